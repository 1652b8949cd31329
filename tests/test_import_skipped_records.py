"""``zx import --accept-violations`` stores every record of the log, applied or not: the stored match reproduces
the imported log (its content sha256), the replay steps through each of its lines, and ``zx audit MATCH`` finds
the violations the import recorded. Z/X records a referee skips without a fatal finding of their own."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cli.main import zx

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
    r = CliRunner().invoke(zx, ["--store", store, "replay", match_id, "--to", "end", "--format", "json", "--as", "judge"])
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


def test_record_refused_for_its_timing_504_3_that_cannot_be_applied_is_stored_not_applied(tmp_path):
    """P2's Resource before the draw that brings the card (line 9): reported for its timing (504.3), then it
    cannot be applied either; it was stored nowhere, its violation said applied, and the audit of the stored
    match lost the 504.3."""
    log = DATA / "accepted-timing-unappliable.zxlog"
    store = imported(tmp_path, log)
    by_line = steps(store, "accepted-timing-unappliable")
    assert sorted(by_line) == log_lines(log)
    step = by_line[9]
    assert step["record"] == {"do": "resource", "by": "P2", "card": "W01-015"}
    assert [(v["rule"], v["applied"]) for v in step["violations"]] == [("504.3", False)]
    assert "W01-015" not in [c["code"] for c in step["state"]["players"]["P2"]["resource"]]
    out = audited(store, "accepted-timing-unappliable")
    assert out["warnings"] == []
    assert [v["rule"] for v in out["violations"]] == ["504.3", "301.1"]
    r = CliRunner().invoke(zx, ["--store", store, "replay", "accepted-timing-unappliable", "--event", "9",
                                "--as", "judge"])
    assert "line 9: P2 resource" in r.stdout and "[record not applied]" in r.stdout


def test_other_players_life_card_where_one_is_owed_604_3b_is_stored_not_applied(tmp_path):
    """P2's Life card (line 10) where P1 owes one: reported once (604.3b) and not applied; it was stored
    nowhere, and its violation said applied."""
    log = DATA / "accepted-other-life.zxlog"
    store = imported(tmp_path, log)
    by_line = steps(store, "accepted-other-life")
    assert sorted(by_line) == log_lines(log)
    step = by_line[10]
    assert step["record"] == {"do": "life", "by": "P2", "card": "U01-001"}
    assert [(v["rule"], v["applied"]) for v in step["violations"]] == [("604.3b", False)]
    assert step["state"]["players"]["P2"]["life"] == by_line[9]["state"]["players"]["P2"]["life"]
    out = audited(store, "accepted-other-life")
    assert out["warnings"] == []
    assert [v["rule"] for v in out["violations"]] == ["604.3b"]
