"""202.7f: "An Overboost controller's Player cards are unaffected by card effects". An effect on such a Player card
is one 202.7f and not applied, as a move 806 refuses is not: the card stays on its Player Square, Reboot, and a
refused move does not meet an owed Void Bringer (1103; the finding stands for it, as any record owed that cannot be
applied). Digest.13 recorded "unaffected by card effects" and then applied it anyway: the sleep, the move to the
Trash, the destroy, and the move met the Void Bringer. QA round 37: `zx3-pc-sleep-under-ob`,
`202.7f-move-pc-target-no-vb`, `202.7f-destroy-pc`, `1103-pc-target-under-ob`."""

from __future__ import annotations

import pytest

from .boundary_logs import ATTACK_P1, END2, P, checked, events_of, findings, vb_turn2

OB = P("P2", "effect", source="PL-002", op="overboost", square="c2", upper="EX-U04")  # line 13
MESSAGE = "P2 controls a Z/X Overboost on Square: P2's Player card is unaffected by card effects"


def own(op: str, **fields) -> dict:
    return P("P2", "effect", source="b3", op=op, square="b3", target="player", **fields)


@pytest.mark.parametrize("record", [own("sleep"), own("move", from_="square", to="trash"), own("destroy"),
                                    P("P2", "effect", source="b3", op="move", card="PL-002", from_="square",
                                      to="trash")], ids=["sleep", "move", "destroy", "move-by-code"])
def test_202_7f_an_effect_on_an_overboost_controllers_player_card_is_not_applied(record):
    c = checked(vb_turn2() + [OB, record, END2])
    assert findings(c) == [("202.7f", 14, "P2")]
    assert c.violations[0].message == MESSAGE
    assert c.match.violations[0]["applied"] is False
    z = c.match.p["P2"]
    assert z["player_card"] == "PL-002" and "PL-002" not in z["trash"] and "pc_sleep" not in z
    assert not [e for e in events_of(c, "EffectApplied") if e.source == "b3"]


def test_202_7f_a_refused_move_of_the_player_card_does_not_meet_the_void_bringer():
    life = P("P1", "life", card="R01-012", ignite={"square": "a3"})
    void = P("P1", "effect", source="R01-012", op="move", square="b3", target="player", from_="square", to="trash")
    c = checked(vb_turn2() + [OB] + ATTACK_P1 + [life, void, END2])
    assert findings(c) == [("202.7f", 19, "P1")]  # one finding: it stands for the Void Bringer owed
    assert c.match.p["P2"]["player_card"] == "PL-002"
    assert not [e for e in events_of(c, "EffectApplied") if e.source == "R01-012"]
    assert [e.outcome for e in events_of(c, "BattleEnded")] == ["player_damaged"]
