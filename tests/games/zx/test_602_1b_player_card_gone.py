"""602.1b: the attack target is "the non-turn player with Player card, if the Player Square of the non-turn player is
next to the attacking Z/X, and there is no Z/X on that Square". A player whose Player card has left the Square (an
effect moved it to the Trash, or destroyed it, 1007) has none: an attack on his Player Square is refused, 602.1b, and
opens no battle (602.1c, digest.13: it was accepted and its Life card taken as the battle's damage). Its passes and
Life card are the refused battle's, as after an attack on the Player Square out of reach (digest.12). QA round 37:
`602.1b-attack-player-without-pc`, `-with-pc`."""

from __future__ import annotations

from .boundary_logs import END2, P, checked, events_of, findings, turn2

ATTACK = [P("P2", "play", card="U01-001", pay=[], square="c1"), P("P2", "attack", from_="c1", target="b1"),
          P("P2", "pass"), P("P1", "pass"), P("P1", "life", card="R01-010"), END2]
GONE = P("P2", "effect", source="b3", op="move", square="b1", target="player", from_="square", to="trash")


def test_602_1b_an_attack_on_a_player_whose_player_card_left_the_square_is_refused():
    c = checked(turn2(12) + [GONE] + ATTACK)
    assert findings(c) == [("602.1b", 15, "P2")]
    assert c.violations[0].message == ("b1 is P1's Player Square, but P1's Player card is no longer on it: only a "
                                       "player with his Player card on his Player Square is attacked")
    assert events_of(c, "AttackDeclared") == [] and events_of(c, "BattleDamageDealt") == []  # 602.1c: no battle
    assert c.match.battle is None and c.match.p["P1"]["trash"] == ["PL-001"]
    assert [e.card for e in events_of(c, "LifeDamaged")] == ["R01-010"]  # the refused battle's, as digest.12's


def test_602_1b_the_twin_with_the_player_card_there_is_a_battle():
    c = checked(turn2(12) + ATTACK)
    assert findings(c) == []
    (attack,) = events_of(c, "AttackDeclared")
    assert attack.target_kind == "player"
    assert [e.outcome for e in events_of(c, "BattleDamageDealt")] == ["player_damaged"]
