"""examples/x610z/invalid: each log stops at the line and rule its manifest names (strict), and
imports with exactly that one violation under --accept-violations."""

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
    (m, ref), = play((INVALID / case["file"]).read_text(), strict=False, source=case["file"])
    assert [(v.line, v.rule) for v in ref.found][:1] == [(case["line"], case["rule"])]


def test_x610z_invalid_examples_are_up_to_date():
    script = ROOT / "examples" / "x610z" / "make_invalid.py"
    assert subprocess.run([sys.executable, str(script), "--check"]).returncode == 0


def test_x610z_every_rule_of_the_table_has_an_invalid_example():
    rules = {c["rule"] for c in CASES}
    table = {"101.1a", "101.1b", "304.3a", "102.1a", "105.2a", "105.2b", "105.3a", "105.4", "700.1", "106.1b",
             "702.2", "702.1", "201.3", "206.1a", "206.2a", "202.1", "201.7", "403.1", "403.2", "500.1", "204.1b",
             "203.2b", "200.5", "206.1e", "402.10f", "402.10g", "402.6", "600.5", "402.8", "401.2a", "401.3a",
             "401.4a", "401.5a", "200.3", "202.2a", "202.2b", "202.4", "202.5c", "600.3", "202.9", "604.2", "202.8",
             "202.3", "202.5d", "202.3b", "603.2", "604.4", "703.7", "704.6", "502.5", "503.1"}
    assert table <= rules, sorted(table - rules)
