"""Logs at a clause's boundary, built from examples/legal/first-turns.zxlog as the QA's round-36 scripts did
(/tmp/qa36-zx2/gen.py): its first 13 lines leave P2 in the Main Phase of turn 2, P1 with R01-002 on a1 (3000) and
R01-001 on b2 (1500), P2 with U01-003 on b3 (4500) and U01-001 on a2 (1500), all Reboot; P1's Player Square is b1."""

from __future__ import annotations

import json
from pathlib import Path

from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log

ROOT = Path(__file__).resolve().parents[3]
BASE = [json.loads(line) for line in (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8").splitlines()
        if line.strip()]


def P(by: str, do: str, **fields) -> dict:
    """A record; a field ending in ``_`` (``from_``) drops it."""
    return {"do": do, "by": by, **{k.rstrip("_"): v for k, v in fields.items()}}


def turn2(n: int = 13) -> list[dict]:
    return [dict(r) for r in BASE[:n]]


END2 = P("P2", "end")


def text(records: list[dict], match: str = "qa36") -> str:
    records = [dict(r) for r in records]
    records[0]["match"] = match
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def checked(records: list[dict], match: str = "qa36"):
    (log,) = parse_log(text(records, match), "t.zxlog")
    return build_match(log, strict=False)


def events_of(c, kind: str) -> list:
    return [e for e in c.match.pending_events if type(e).__name__ == kind]


def findings(c) -> list[tuple]:
    return [(v.rule, v.line, v.player) for v in c.violations]


def vb_turn2(n: int = 12) -> list[dict]:
    """``turn2(n)`` with P1's Life holding R01-012 (IG, Void Bringer) second and P2's mulligan keeping U01-001 and
    U01-014 (an Event) in his hand, as QA round 37's /tmp/qa37-zx3/gen.py (``vbT2``) built them."""
    r = turn2(n)
    r[1] = {**r[1], "life": ["R01-010", "R01-012", "R01-005", "R01-006"]}
    r[2] = {**r[2], "mulligan": ["U01-001", "U01-002", "U01-009", "U01-014"]}
    return r


# P2 plays U01-001 onto c1 and attacks P1's Player Square (b1) from it; both pass (lines 13-16 after vb_turn2())
ATTACK_P1 = [P("P2", "play", card="U01-001", pay=[], square="c1"), P("P2", "attack", from_="c1", target="b1"),
             P("P2", "pass"), P("P1", "pass")]


def imported_store(folder: Path, logs: dict[str, list[dict]], prefix: str, files: tuple[str, ...] = ()) -> str:
    """A SQLite store in ``folder`` of the logs ``logs`` (name -> records; each match named ``PREFIX-NAME``) and the
    log ``files`` besides, imported with --accept-violations, no analytics: its path."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    paths = list(files)
    for name, recs in logs.items():
        path = folder / f"{name}.zxlog"
        path.write_text(text(recs, f"{prefix}-{name}"), "utf-8")
        paths.append(str(path))
    db = str(folder / "events.sqlite")
    r = CliRunner().invoke(zx, ["--store", db, "import", "--accept-violations", "--no-analytics", *paths])
    assert r.exit_code == 0, r.output
    return db
