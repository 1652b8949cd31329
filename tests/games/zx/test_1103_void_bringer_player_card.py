"""1103: Void Bringer "puts one card on any Square into Trash". A Player card on its Player Square is a card on a
Square (303.1: the Square is the zone of Player and Z/X cards): an effect moving the opponent's Player card from the
Square into the Trash meets an owed Void Bringer (digest.13). It was applied, the card in the Trash, and 1103 charged
as not met at the next record ("an effect record (move from square to trash) by P1 is due, got an end record"): the
message contradicted the board. QA round 37: `1103-vb-opp-player-card`."""

from __future__ import annotations

import pytest

from .boundary_logs import ATTACK_P1, END2, P, checked, events_of, findings, vb_turn2

LIFE = P("P1", "life", card="R01-012", ignite={"square": "c2"})


def void(**fields) -> dict:
    return P("P1", "effect", source="R01-012", op="move", from_="square", to="trash", **fields)


@pytest.mark.parametrize("how", [{"square": "b3", "target": "player"}, {"card": "PL-002", "owner": "P2"}])
def test_1103_moving_the_opponents_player_card_to_the_trash_meets_the_void_bringer(how):
    c = checked(vb_turn2() + ATTACK_P1 + [LIFE, void(**how), END2])
    assert findings(c) == []
    assert c.match.p["P2"]["player_card"] is None and c.match.p["P2"]["trash"][-1] == "PL-002"
    (applied,) = [e for e in events_of(c, "EffectApplied") if e.source == "R01-012"]
    assert applied.args["resolves"] == "void:P1"
    assert [e.outcome for e in events_of(c, "BattleEnded")] == ["player_damaged"]  # nothing owed: the battle ends


def test_1103_the_twin_on_a_zx_meets_it_and_a_destroy_of_the_player_card_does_not():
    assert findings(checked(vb_turn2() + ATTACK_P1 + [LIFE, void(square="c1"), END2])) == []
    c = checked(vb_turn2() + ATTACK_P1 + [LIFE, P("P1", "effect", source="R01-012", op="destroy", square="b3",
                                                   target="player"), END2])
    assert findings(c) == [("1103", 19, "P1")]  # (a destroy never meets it, digest.5; the card still goes, 1007)
    assert c.match.p["P2"]["player_card"] is None


def test_1103_the_opponents_player_card_named_by_its_code_alone_is_his():
    """docs/match-log.md, `move`: `owner` is optional, "by default the card's owner" (digest.13 (2): "or the card by
    its code"). It was looked up under the writer's seat: "301.1: PL-002 is not P1's Player card on Square", the
    legal Void Bringer refused. QA round 37: `1103-pc-by-code-no-owner`, `pc-by-code-move-no-owner-p2`."""
    c = checked(vb_turn2() + ATTACK_P1 + [LIFE, void(card="PL-002"), END2])
    assert findings(c) == []
    assert c.match.p["P2"]["player_card"] is None and c.match.p["P2"]["trash"][-1] == "PL-002"
    assert c.match.p["P1"]["player_card"] == "PL-001"
    (applied,) = [e for e in events_of(c, "EffectApplied") if e.source == "R01-012"]
    assert applied.args["owner"] == "P2" and applied.args["resolves"] == "void:P1"
    # P2's effect moving P1's Player card, named by its code alone
    c = checked(vb_turn2(13) + [P("P2", "effect", source="b3", op="move", card="PL-001", from_="square",
                                  to="trash"), END2])
    assert findings(c) == []
    assert c.match.p["P1"]["player_card"] is None and c.match.p["P1"]["trash"][-1] == "PL-001"
    assert c.match.p["P2"]["player_card"] == "PL-002"


def test_301_1_a_player_card_named_by_its_code_after_it_left_the_square_is_gone():
    """The Player card already in the Trash: its owner has none on his Player Square (as a sleep of it says,
    302.2), not "PL-002 is not P1's Player card". QA round 37: `1103-pc-by-code-gone`."""
    gone = P("P2", "effect", source="b3", op="move", square="b3", target="player", from_="square", to="trash")
    c = checked(vb_turn2() + [gone] + ATTACK_P1 + [LIFE, void(card="PL-002"), END2])
    assert findings(c) == [("301.1", 19, "P1")]
    assert c.violations[0].message == "P2 has no Player card on b3 (it has left the Square)"
    assert c.match.violations[0]["applied"] is False
