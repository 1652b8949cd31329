"""``zx import --accept-violations`` stores every record of the log, applied or not: the stored match reproduces
the imported log (its content sha256), the replay steps through each of its lines, and ``zx audit MATCH`` finds
the violations the import recorded. Z/X records a referee skips without a fatal finding of their own, then every
one-record mistake (a record left out, two swapped, one written twice, one by the other player) in a few
simulated matches of each game."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.application import MatchService
from zx_events.audit import audit_stored, stored_log
from zx_events.games.x610z.sim import simulate as simulate_x610z
from zx_events.games.zx.sim import simulate as simulate_zx
from zx_events.logformat.reader import parse_log

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"


def refused_attack_text() -> str:
    """The legal example with P2's attack (line 14) from c2, which holds no Z/X of P2: refused (602.1a), and the
    passes of that battle after it (lines 15, 16) passed over, that finding standing for them."""
    recs = [json.loads(line) for line in LEGAL.read_text(encoding="utf-8").splitlines()]
    recs[0]["match"] = "accepted-refused-attack"
    assert recs[13] == {"do": "attack", "by": "P2", "from": "a2", "target": "a1"}
    recs[13]["from"] = "c2"
    return "".join(json.dumps(r) + "\n" for r in recs)


def imported(tmp_path: Path, log: Path) -> str:
    store = str(tmp_path / "store.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--accept-violations", str(log)])
    assert r.exit_code == 0, r.output
    return store


def steps(store: str, match_id: str) -> dict[int, dict]:
    r = CliRunner().invoke(zx, ["--store", store, "replay", match_id, "--to", "end", "--format", "json",
                                "--as", "judge"])
    assert r.exit_code == 0, r.output
    return {s["line"]: s for s in map(json.loads, r.stdout.splitlines())}


def audited(store: str, match_id: str) -> dict:
    r = CliRunner().invoke(zx, ["--store", store, "audit", match_id, "--format", "json"])
    (out,) = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    return out


def log_lines(path: Path) -> list[int]:
    return [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.strip()]


def test_passes_of_an_attack_refused_602_1a_are_stored_and_replayed_as_records_not_applied(tmp_path):
    log = tmp_path / "refused.zxlog"
    log.write_text(refused_attack_text(), encoding="utf-8")
    store = imported(tmp_path, log)
    by_line = steps(store, "accepted-refused-attack")
    assert sorted(by_line) == log_lines(log)  # lines 15 and 16 were not replayed
    for line, by in ((15, "P2"), (16, "P1")):
        step = by_line[line]
        assert step["record"] == {"do": "pass", "by": by}
        assert [e["kind"] for e in step["events"]] == ["RecordSkipped"] and step["violations"] == []
    out = audited(store, "accepted-refused-attack")
    assert out["warnings"] == []  # "the records stored in the events do not reproduce the imported log"
    assert [v["rule"] for v in out["violations"]] == ["602.1a"]
    r = CliRunner().invoke(zx, ["--store", store, "replay", "accepted-refused-attack", "--event", "15"])
    assert r.exit_code == 0 and 'line 15: P2 pass [record not applied]' in r.stdout


def stored_not_applied(tmp_path: Path, match: str, line: int, record: dict, rule: str) -> tuple[str, dict]:
    """Import tests/data/MATCH.zxlog: every line of it is a step, the one at ``line`` holds ``record`` and its one
    violation ``rule``, not applied; the audit of the stored match finds just that, with no warning. (The store,
    the step.)"""
    log = DATA / f"{match}.zxlog"
    store = imported(tmp_path, log)
    by_line = steps(store, match)
    assert sorted(by_line) == log_lines(log)
    step = by_line[line]
    assert step["record"] == record
    assert [(v["rule"], v["applied"]) for v in step["violations"]] == [(rule, False)]
    out = audited(store, match)
    assert out["warnings"] == []  # "the records stored in the events do not reproduce the imported log"
    assert [v["rule"] for v in out["violations"]] == [rule]
    return store, by_line


def test_record_refused_for_its_timing_504_3_that_cannot_be_applied_is_stored_not_applied(tmp_path):
    """P2's Resource before the draw that brings the card (line 9): reported for its timing (504.3), then it
    cannot be applied either; it was stored nowhere, its violation said applied, and the audit of the stored
    match lost the 504.3. (Its card, named by the payment after it, is not charged again: one finding.)"""
    store, by_line = stored_not_applied(tmp_path, "accepted-timing-unappliable", 9,
                                        {"do": "resource", "by": "P2", "card": "W01-015"}, "504.3")
    assert "W01-015" not in [c["code"] for c in by_line[9]["state"]["players"]["P2"]["resource"]]
    r = CliRunner().invoke(zx, ["--store", store, "replay", "accepted-timing-unappliable", "--event", "9",
                                "--as", "judge"])
    assert "line 9: P2 resource" in r.stdout and "[record not applied]" in r.stdout


def test_other_players_life_card_where_one_is_owed_604_3b_is_stored_not_applied(tmp_path):
    """P2's Life card (line 10) where P1 owes one: reported once (604.3b) and not applied; it was stored
    nowhere, and its violation said applied."""
    _, by_line = stored_not_applied(tmp_path, "accepted-other-life", 10,
                                    {"do": "life", "by": "P2", "card": "U01-001"}, "604.3b")
    assert by_line[10]["state"]["players"]["P2"]["life"] == by_line[9]["state"]["players"]["P2"]["life"]


# ---------------------------------------------------------------------- every one-record mistake, both games
SIMULATED = {"zx": (lambda: simulate_zx(2, 21, policy="mixed"), ".zxlog"),
             "x610z": (lambda: simulate_x610z(2, 21), ".x610zlog")}
PER_KIND = 4  # positions of each kind of mistake, per match


def mistakes(records: list[dict], rng: random.Random):
    """(what, records) for a few one-record mistakes: a record left out, two neighbours swapped, a record
    written twice, a record written by the other player (the mutations of the QA mutation fuzz)."""
    n = len(records)
    for i in rng.sample(range(n), PER_KIND):
        yield f"delete {i}", records[:i] + records[i + 1:]
    for i in rng.sample(range(n - 1), PER_KIND):
        yield f"swap {i}", records[:i] + [records[i + 1], records[i]] + records[i + 2:]
    for i in rng.sample(range(n), PER_KIND):
        yield f"dup {i}", records[:i + 1] + [records[i]] + records[i + 1:]
    for i in rng.sample([i for i, r in enumerate(records) if r.get("by") in ("P1", "P2")], PER_KIND):
        flipped = {**records[i], "by": "P2" if records[i]["by"] == "P1" else "P1"}
        yield f"by {i}", records[:i] + [flipped] + records[i + 1:]


@pytest.mark.parametrize("game", sorted(SIMULATED))
def test_every_record_of_a_log_with_a_one_record_mistake_is_stored_and_audits_as_imported(game):
    """Whatever the referee makes of a wrong record (applied, refused, passed over), the import stores it: the
    stored match reproduces the log, and its audit finds the violations the import recorded."""
    simulated, suffix = SIMULATED[game]
    svc = MatchService("memory:")
    rng = random.Random(21)
    tried = 0
    for sim in simulated():
        for what, records in mistakes(sim.records, rng):
            tried += 1
            header = {**sim.header, "match": f"{sim.match_id}-{tried}"}
            text = "".join(json.dumps(r) + "\n" for r in [header, *records])
            (log,) = parse_log(text, f"mistake-{tried}{suffix}")
            out = svc.import_log(log, accept_violations=True)
            assert out.status == "imported", (what, out.error)
            audit = audit_stored(svc, log.match_id)
            stored = stored_log(audit.rows)
            assert [(r.line, r.data) for r in stored.records] == [(r.line, r.data) for r in log.records], what
            assert not [w for w in audit.warnings if "do not reproduce" in w], (what, audit.warnings)
            assert sum(f.kind == "rule" for f in audit.findings) == len(out.violations), (what, audit.warnings)
    assert tried == 2 * 4 * PER_KIND
