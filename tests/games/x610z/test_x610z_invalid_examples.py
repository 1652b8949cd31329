"""examples/x610z/invalid: each log stops at the line and rule its manifest names (strict); under
--accept-violations that violation comes first, and any other is on the same record and listed in
ALSO (a record can break more than one rule: a reactive player's announcement is also one without
priority)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zx_events.errors import RuleViolation

from x610z_support import play

ROOT = Path(__file__).resolve().parents[3]
INVALID = ROOT / "examples" / "x610z" / "invalid"
CASES = json.loads((INVALID / "expected.json").read_text())

# the rules the last record breaks besides its own (every other example breaks only its own). A clause that says the
# same as the example's own is not listed (digest.8): a non permanent cast in the Draw Phase is 206.2a, not 702.2 too; an
# activated ability used twice is 402.10f, not 206.1e too (its first use activated the summon)
ALSO = {
    "702.2-stackable-in-draw-phase.x610zlog": ["201.3", "500.1"],  # P2 controls no Watchtower either (left as is)
    "206.1a-permanent-by-reactive-player.x610zlog": ["201.3"],
    "202.1-move-by-reactive-player.x610zlog": ["201.3", "200.5"],  # P2 pays B1 from an empty pool too (left as is)
    "201.7-move-in-end-phase.x610zlog": ["201.3"],  # the End Phase's priority is the reactive player's (704.1)
}


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_x610z_invalid_example_names_its_line_and_rule(case):
    text = (INVALID / case["file"]).read_text()
    with pytest.raises(RuleViolation) as info:
        play(text, source=case["file"])
    err = info.value
    assert (err.line, err.rule) == (case["line"], case["rule"]), str(err)
    assert case["message"] in err.message
    assert str(err).startswith(f"{case['file']}:{case['line']}: rule {case['rule']}: ")


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_x610z_invalid_example_lenient_records_the_violation(case):
    """Only the first was checked: 202.3-friendly-target's target stood on a No Attack Dot (603.2), the
    path of 202.5d-out-of-range turned sharply (202.9)."""
    (m, ref), = play((INVALID / case["file"]).read_text(), strict=False, source=case["file"])
    also = [(case["line"], rule) for rule in ALSO.get(case["file"], [])]
    assert [(v.line, v.rule) for v in ref.found] == [(case["line"], case["rule"])] + also


def test_x610z_invalid_examples_are_up_to_date():
    script = ROOT / "examples" / "x610z" / "make_invalid.py"
    assert subprocess.run([sys.executable, str(script), "--check"]).returncode == 0


def test_x610z_every_rule_of_the_table_has_an_invalid_example():
    rules = {c["rule"] for c in CASES}
    table = {"101.1a", "101.1b", "304.3a", "102.1a", "105.2a", "105.2b", "105.3a", "105.4", "700.1", "106.1b",
             "702.2", "702.1", "201.3", "206.1a", "206.2a", "202.1", "201.7", "403.1", "403.2", "200.1a", "204.1b",
             "203.2b", "200.5", "206.1e", "402.10f", "402.10g", "402.6", "600.5", "402.8", "401.2a", "401.3a",
             "401.4a", "401.5a", "200.3", "202.2a", "202.2b", "202.4", "202.5c", "600.3", "202.9", "604.2", "202.8",
             "202.3", "202.5d", "202.3b", "603.2", "604.4", "703.7", "704.6", "502.5", "503.1"}
    assert table <= rules, sorted(table - rules)
