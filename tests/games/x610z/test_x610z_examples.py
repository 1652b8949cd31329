"""The X610Z example logs: the spec's three with their expected results, and the three complete
legal matches that together show every record kind."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zx_events.errors import RuleViolation
from zx_events.games.x610z.board import load_board

from x610z_support import play

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "examples" / "x610z" / "spec"
LEGAL = ROOT / "examples" / "x610z" / "legal"
EXPECTED = json.loads((SPEC / "expected.json").read_text())
KINDS = {"setup", "turn", "draw", "crystal", "energy", "cast", "activate", "ability", "move", "attack", "trigger",
         "pass", "effect", "end", "concede", "result"}


@pytest.mark.parametrize("case", EXPECTED, ids=[c["file"] for c in EXPECTED])
def test_x610z_spec_example_gives_its_expected_result(case):
    text = (SPEC / case["file"]).read_text()
    (m, ref), = play(text, strict=False, source=case["file"])
    assert [v.to_json() for v in ref.found] == case["violations"]
    assert m.outcome == case["outcome"]
    if case["violations"]:
        first = case["violations"][0]
        with pytest.raises(RuleViolation) as info:
            play(text, source=case["file"])
        assert (info.value.line, info.value.rule, info.value.message) == (first["line"], first["rule"], first["message"])
    else:
        assert {p: len(z["hand"]) for p, z in m.p.items()} == case["state_at_end"]["hands"]
        assert m.p["P2"]["discard"] == case["state_at_end"]["P2 discard"]
        assert m.dots["E1"]["life"] and m.dots["E1"]["dmg"] == 2 and m.dots["B4"]["life"]
        assert m.dots["A2"]["code"] == "A1-022"


def test_x610z_legal_examples_import_strictly_and_show_every_record_kind():
    board = load_board("x610z-orbits-sample")
    kinds, murphy, warp = set(), False, False
    files = sorted(LEGAL.glob("*.x610zlog"))
    assert len(files) >= 3
    for f in files:
        (m, ref), = play(f.read_text(), source=f.name)
        assert ref.found == [] and m.outcome is not None and m.turn >= 8, f.name
        for line in f.read_text().splitlines()[1:]:
            rec = json.loads(line)
            kinds.add(rec["do"])
            murphy |= "murphy" in rec
            if rec["do"] == "move":
                steps = [rec["from"]] + rec["path"]
                warp |= any(board.is_warp(a, b) for a, b in zip(steps, steps[1:]))
    assert KINDS <= kinds, sorted(KINDS - kinds)
    assert murphy and warp


def test_x610z_legal_examples_are_up_to_date():
    script = ROOT / "examples" / "x610z" / "make_legal.py"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    assert subprocess.run([sys.executable, str(script), "--check"], env=env).returncode == 0
