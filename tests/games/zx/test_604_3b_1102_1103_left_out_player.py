"""604.3b, 1102, 1103 (and 902, one line of the referee with them): a record owed and left out is filed under the
player who owed it, whose seat its message names, as a Charge Excess (905) and a missing `end` already were
(digest.9); it was filed under the player who wrote the next record (QA round 36: `604.3b-life-left-out-end`,
`1102-lr-left-out`, `1102-lr-recover-by-p2`: "... a life record for P1 is due, got an end record", filed under P2)."""

from __future__ import annotations

from support import BOARD, run

from .boundary_logs import END2, P, checked, findings, turn2

# P2 attacks P1's Player Square b1 from c1 (a U01-001 played there): P1 owes a Life card
ON_B1 = turn2(12) + [P("P2", "play", card="U01-001", pay=[], square="c1"), P("P2", "attack", from_="c1", target="b1"),
                     P("P2", "pass"), P("P1", "pass")]
LR = P("P1", "life", card="R01-011", ignite={"square": "c2"})  # R01-011: IG/LR, played onto c2


def test_604_3b_a_life_card_left_out_is_the_defenders_finding():
    c = checked(ON_B1 + [END2])
    assert findings(c) == [("604.3b", 17, "P1")]
    assert c.violations[0].message == "P1 takes 1 damage: a life record for P1 is due, got an end record"


def test_1102_a_life_recovery_left_out_is_its_players_finding():
    c = checked(ON_B1 + [LR, END2])
    assert findings(c) == [("1102", 18, "P1")]
    assert c.violations[0].message.startswith("Life Recovery of P1 triggered: an effect record (recover) by P1 is due")


def test_1102_a_recover_by_the_other_player_is_the_owing_players_finding():
    c = checked(ON_B1 + [LR, P("P2", "effect", source="R01-011", op="recover", card="U01-003"), END2])
    assert [(rule, player) for rule, _, player in findings(c)] == [("1102", "P1")]


def test_1103_a_void_bringer_left_out_is_its_players_finding():
    """tests/games/zx/test_battle.py's board: P2's Life card U01-016 (IG/VB) owes a Void Bringer; P1 attacks."""
    destroy_b3 = [{"do": "play", "by": "P1", "card": "R01-014", "pay": []},
                  {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "b3"}]
    vb = {**BOARD[1], "life": ["U01-016", "U01-013", "U01-005", "U01-006"]}
    recs = [BOARD[0], vb, *BOARD[2:], *destroy_b3, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"},
            {"do": "pass", "by": "P1"}, {"do": "pass", "by": "P2"},
            {"do": "life", "by": "P2", "card": "U01-016", "ignite": {}},
            {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.player) for v in c.violations] == [("1103", "P2")]
