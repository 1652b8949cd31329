"""Movement (202.1-202.12, 600-604) and what it can end in (601.5, 602.2, 602.5)."""

from x610z_builder import BATTLE, T1, legal, pp, r, refused, run
from test_x610z_energy import gain


def mv(by, src, path, **pay):
    return r("move", by, **{"from": src}, path=path, pay=pay)


VESSEL = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1")] + pp("P1")  # P1's Sky Vessel on E1, B1 in pool


def test_x610z_202_1_only_the_active_player_moves():
    refused(T1 + [mv("P2", "S4", ["A4"], B=1)], "202.1")


def test_x610z_201_7_no_movement_outside_the_action_phase():
    refused(T1 + [r("pass", "P1"), r("pass", "P2"), mv("P1", "S1", ["A1"], B=1)], "201.7", contains="End Phase")


def test_x610z_202_2a_movement_energy_must_be_paid():
    refused(T1 + [mv("P1", "S1", ["A1"])], "202.2a")


def test_x610z_202_2b_summon_card_must_be_reactivated():
    recs = T1 + gain("P1", C=1) + [mv("P1", "S1", ["A1"], B=1)] + pp("P1") + [mv("P1", "A1", ["B1"], C=1)]
    refused(recs, "202.2b")


def test_x610z_202_4_a_deactivated_summon_cannot_move():
    recs = T1 + [r("effect", "P2", source="S4", op="deactivate", dot="S1"), mv("P1", "S1", ["A1"], B=1)]
    refused(recs, "202.4")


def test_x610z_202_5c_at_most_speed_dots():
    refused(T1 + [mv("P1", "S1", ["A1", "B1"], B=1)], "202.5c", contains="Speed is 1")


def test_x610z_600_3_steps_follow_lines():
    refused(T1 + [mv("P1", "S1", ["B1"], B=1)], "600.3", contains="no line joins S1 and B1")


def test_x610z_202_9_sharp_turn_is_refused():
    refused(VESSEL + [mv("P1", "E1", ["B1", "A1", "A2"], B=1)], "202.9", contains="B1 > A1 > A2 is 60 degrees")


def test_x610z_202_9_a_120_degree_turn_is_not_sharp():
    m = legal(VESSEL + [mv("P1", "E1", ["E2", "E3"], B=1)] + pp("P1"))
    assert m.dots["E3"]["code"] == "A1-022"


def test_x610z_202_10_moving_over_other_summons():
    recs = T1 + gain("P1", C=1) + [mv("P1", "S1", ["A1"], B=1)] + pp("P1") + \
        [r("cast", "P1", card="A1-022", pay={}, dot="S1")] + pp("P1") + [mv("P1", "S1", ["A1", "B1", "E1"], C=1)] + pp("P1")
    m = legal(recs)
    assert m.dots["E1"]["code"] == "A1-022" and m.dots["A1"]["life"]


def test_x610z_600_5_the_destination_must_be_free():
    refused(VESSEL + [mv("P1", "E1", ["B1", "A1", "S1"], B=1)], "600.5", contains="S1 is occupied")


def test_x610z_604_2_a_life_base_cannot_warp():
    refused(T1 + [mv("P1", "S1", ["E1"], B=1)], "604.2", contains="Life Base cannot warp")


def test_x610z_604_2_warp_only_between_own_starting_dot_and_an_ending_dot():
    refused(VESSEL + [mv("P1", "E1", ["S2"], B=1)], "604.2", contains="not E1 and S2")


def test_x610z_604_3_a_warp_is_one_step_to_the_own_starting_dot():
    recs = T1 + gain("P1", C=1) + [mv("P1", "S1", ["A1"], B=1)] + pp("P1") + \
        [r("cast", "P1", card="A1-022", pay={}, dot="E3")] + pp("P1") + [mv("P1", "E3", ["S1"], C=1)] + pp("P1")
    m = legal(recs)
    assert m.dots["S1"]["code"] == "A1-022"


def test_x610z_601_5_moving_onto_another_starting_dot_destroys_the_summon():
    m = legal(VESSEL + [mv("P1", "E1", ["E2", "B2"], B=1)] + pp("P1") + gain("P1", C=1))
    recs = VESSEL + gain("P1", C=1) + [mv("P1", "E1", ["E2", "B2", "A2"], B=1)] + pp("P1")
    m = legal(recs)
    assert "A2" in m.dots
    recs = VESSEL + [r("effect", "P1", source="A1-022", op="relocate", dot="E1", to="A2"), mv("P1", "A2", ["S2"], B=1)]
    m = legal(recs + pp("P1"))
    assert "S2" not in m.dots and "A1-022" in m.p["P1"]["discard"]


def test_x610z_602_5_summons_on_ending_dots_are_destroyed_after_the_turn():
    m = legal(VESSEL + [r("end", "P1")])
    assert "E1" not in m.dots and m.p["P1"]["discard"] == ["A1-022"]


def test_x610z_602_2_life_base_reaching_an_ending_dot_wins():
    recs = T1 + [mv("P1", "S1", ["A1"], B=1)] + pp("P1") + [r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-010"),
                                                              r("end", "P2", discard=["A1-010"]), r("turn", "P1"),
                                                              r("draw", "P1", card="A1-010"),
                                                              r("energy", "P1", crystal="A1-011"),
                                                              mv("P1", "A1", ["B1"], B=1)] + pp("P1")
    m = legal(recs)
    assert m.outcome is None
    more = [r("end", "P1", discard=["A1-010"]), r("turn", "P2"), r("draw", "P2", card="A1-010"),
            r("end", "P2", discard=["A1-010"]), r("turn", "P1"), r("draw", "P1", card="A1-010"),
            r("energy", "P1", crystal="A1-011"), mv("P1", "B1", ["E1"], B=1)] + pp("P1") + \
        [r("result", "P1", winner="P1", reason="ending_dot")]
    m = legal(recs + more)
    assert m.outcome == {"winner": "P1", "reason": "ending_dot"}


def test_x610z_602_2_an_illegal_life_base_movement_onto_an_ending_dot_wins_nothing():
    """602.2: a Life Base that "successfully reaches" an Ending Dot wins; the glossary's "Successfully": "without
    being prevented or illegal". A Life Base warped onto E1 (604.2), applied as played, won the game, and every
    later record was 106.1b ("after the game has ended"): one finding now, the game goes on."""
    warp = T1 + [mv("P1", "S1", ["E1"], B=1)]
    later = pp("P1") + [r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-011"),
                        r("crystal", "P2", card="A1-011"), r("end", "P2")]
    m, ref = run(warp + later, strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(len(warp) + 1, "604.2")]
    assert m.outcome is None and m.dots["E1"]["life"] and m.turn == 2


def test_x610z_202_11_an_occupied_destination_stops_the_move_short():
    recs = VESSEL + [mv("P1", "E1", ["E2", "E3"], B=1),
                     r("effect", "P2", source="S4", op="relocate", dot="S4", to="E3")] + pp("P1")
    m, _ = run(recs)
    assert m.dots["E2"]["code"] == "A1-022"


def test_x610z_202_8_a_move_after_an_attack_keeps_its_direction():
    recs = BATTLE + [r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"),
                     r("attack", "P1", **{"from": "B1"}, target="B5", path=["B6", "B5"])] + pp("P1")
    refused(recs + [mv("P1", "B1", ["B2"], M=1)], "202.8", contains="leaves this turn's direction")
    m = legal(recs + [mv("P1", "B1", ["B6"], M=1)] + pp("P1"))
    assert m.dots["B6"]["code"] == "A1-022"


def test_x610z_202_9_a_second_movement_keeps_the_direction():
    recs = VESSEL + gain("P1", C=1) + [mv("P1", "E1", ["E2"], B=1)] + pp("P1") + \
        [r("effect", "P1", source="S1", op="reactivate", dot="E2"), mv("P1", "E2", ["E1"], C=1)]
    refused(recs, "202.9", contains="turns back")
