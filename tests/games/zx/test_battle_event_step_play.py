"""603.1b: a card other than an Event played in the Battle Event Step (digest.11).

QA round 27's logs (tests/data/zx-603.1b-*.zxlog): in P2's turn 1 P2 attacks P1's Player Square (line 7), then
- zx-bad: P2 passes (line 8) and P1, with priority, plays the Z/X K01-003 (line 9); P2 passes, P1 passes, P1's Life;
- bad: P1 plays the Z/X K01-003 at once (line 8), without priority (P2, the turn player, has it first: 603.1a);
- turnplayer-bad: P2, with priority, plays the Z/X R01-001 (line 8; a card his hand does not hold either);
- ok: the legal neighbour, P1 plays the Event K01-014 (Dark Omen, cost 0) after P2's pass.

Each bad log is one finding, 603.1b at the play's line (in this step the player with priority may play only Events,
EV EX or startup abilities; one without priority may play nothing), and the play is not applied: the card stays in
the hand, its cost unpaid, the priority where it was. The passes after it are the step's (603.1c: only two passes
in a row move on to the Battle Damage Step), and P1's Life card is the damage's. Before (digest.10) the play closed
the step as if its trailing passes were left out: 604.3b at the play (the Life card owed), then 506 (or 301.1) for
the play itself and 603.1b for the legal pass after it, "pass outside a Battle Event Step"; strict import named
604.3b.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log

DATA = Path(__file__).resolve().parents[2] / "data"
BAD = {  # log -> its one finding: line, player, the message's start
    "zx-603.1b-zx-bad": (9, "P1", "P1 plays K01-003 in the Battle Event Step: only Events and abilities are played "
                                  "in the Battle Event Step, not the Z/X K01-003"),
    "zx-603.1b-bad": (8, "P1", "P1 plays K01-003 without priority (P2 has it): only Events and abilities are played "
                               "in the Battle Event Step, not the Z/X K01-003"),
    "zx-603.1b-turnplayer-bad": (8, "P2", "P2 plays R01-001 in the Battle Event Step: only Events and abilities are "
                                          "played in the Battle Event Step, not the Z/X R01-001"),
}


def checked(name: str, *, strict: bool = False):
    (log,) = parse_log((DATA / f"{name}.zxlog").read_text("utf-8"), f"{name}.zxlog")
    return build_match(log, strict=strict)


def audit_rows(name: str) -> list[dict]:
    r = CliRunner().invoke(zx, ["audit", str(DATA / f"{name}.zxlog"), "--format", "csv"])
    assert r.exit_code in (0, 1), r.output
    text = r.stdout if hasattr(r, "stdout") else r.output
    return list(csv.DictReader(io.StringIO(text[text.index("match,line"):])))


@pytest.mark.parametrize("name", sorted(BAD))
def test_603_1b_a_card_other_than_an_event_in_the_battle_event_step_is_one_finding(name):
    line, player, message = BAD[name]
    rows = audit_rows(name)
    assert [(int(r["line"]), r["player"], r["rule"]) for r in rows] == [(line, player, "603.1b")]
    assert rows[0]["message"] == message + " (not applied)"


@pytest.mark.parametrize("name", sorted(BAD))
def test_603_1b_strict_import_names_the_play_and_603_1b(name):
    line = BAD[name][0]
    log = DATA / f"{name}.zxlog"
    r = CliRunner().invoke(zx, ["--store", "memory:", "import", "--no-analytics", str(log)])
    assert r.exit_code == 1, r.output
    assert f"{log}:{line}: rule 603.1b: " in r.output
    assert "604.3b" not in r.output and "rule 506" not in r.output


@pytest.mark.parametrize("name", sorted(BAD))
def test_603_1b_the_play_is_not_applied_and_the_battle_goes_on(name):
    """The card stays in the hand, its Resource Reboot; the step closes at the two passes after it, P1's Life card
    is the damage's (K01-009 to his Charge), the battle ends and the turn too."""
    c = checked(name)
    m = c.match
    (v,) = c.violations
    assert v.rule == "603.1b" and m.violations[-1]["applied"] is False
    card = "R01-001" if "turnplayer" in name else "K01-003"
    assert all(entry is None or entry["code"] != card for entry in m.sq.values())
    if card == "K01-003":
        assert "K01-003" in m.p["P1"]["hand"]
        assert [e["sleep"] for e in m.p["P1"]["resource"]] == [False, False]
    assert sorted(m.p["P1"]["life"]) == ["K01-004", "K01-005", "K01-012"] and m.p["P1"]["charge"] == ["K01-009"]
    assert m.battle is None
    assert (m.outcome["winner"], m.outcome["reason"]) == ("P2", "concede")


def test_603_1b_an_event_at_the_same_point_is_clean():
    """The legal neighbour: after P2's pass P1 plays the Event K01-014 (cost 0), both pass, P1's Life card."""
    assert checked("zx-603.1b-ok").violations == []
    assert audit_rows("zx-603.1b-ok") == []
    r = CliRunner().invoke(zx, ["--store", "memory:", "import", "--no-analytics", str(DATA / "zx-603.1b-ok.zxlog")])
    assert r.exit_code == 0, r.output
    assert "1 imported" in r.output


def test_603_1b_the_answer_pass_after_the_play_is_stored_not_applied():
    """zx-bad: P2's pass at line 10 answers the play as if it had been an action; the play not applied, P2's pass of
    line 8 stands and this one changes nothing (a pass applied would be the second in a row, closing the step before
    P1's). It is stored at its line (``RecordSkipped``), no finding; P1's pass of line 11 closes the step."""
    c = checked("zx-603.1b-zx-bad")
    lines = {getattr(e, "line", None): type(e).__name__ for e in c.match.pending_events if hasattr(e, "line")}
    assert lines[10] == "RecordSkipped"
    passed = [e.line for e in c.match.pending_events if type(e).__name__ == "PriorityPassed"]
    assert passed == [8, 11]


def test_603_1b_the_turn_players_zx_then_the_life_card_is_still_one_finding():
    """The turn player's Z/X after his attack on the Player Square, its passes left out and the Life card next: the
    battle would owe that Life card, so the play is the step's (603.1b, not applied) and the Life card closes the step
    and meets the damage. (Closing the step at the play would have been one 604.3b there, the Life card one record
    late.)"""
    lines = (DATA / "zx-603.1b-turnplayer-bad.zxlog").read_text("utf-8").splitlines(keepends=True)
    lines[7] = '{"do": "play", "by": "P2", "card": "R01-002", "pay": [], "square": "a3"}\n'
    del lines[8:10]  # the two passes
    (log,) = parse_log("".join(lines), "t.zxlog")
    c = build_match(log, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("603.1b", 8)]
    assert "R01-002" in c.match.p["P2"]["hand"] and c.match.sq["a3"] is None
    assert c.match.p["P1"]["charge"] == ["K01-009"] and c.match.battle is None
