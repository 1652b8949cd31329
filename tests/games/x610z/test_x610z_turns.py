"""Turns, phases, priority and the stack (106, 200-201, 502.5, 700-704)."""

import copy

import pytest

from x610z_builder import BATTLE, SETUP, T1, deck_drawn_out, legal, pp, r, refused, run

from zx_events.ids import project


def test_x610z_702_1_draw_exactly_one_card():
    refused(SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("draw", "P1", card="A1-010")], "702.1",
            contains="second card")
    # later in the turn too (the Draw Phase ended with the first draw, 702.3): one finding, the card drawn
    m, ref = run(T1 + [r("draw", "P1", card="A1-010")], strict=False)
    assert [(v.line, v.rule, v.message) for v in ref.found] == [
        (len(T1) + 2, "702.1", "P1 draws a second card this turn (the Draw Phase's draw is exactly 1)")]
    assert len(m.p["P1"]["hand"]) == 8


def test_x610z_702_1_leaving_the_draw_phase_without_drawing():
    refused(SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011")], "702.1", contains="without drawing")


def test_x610z_702_1_the_starting_player_draws_on_turn_1():
    m = legal(SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010")])
    assert len(m.p["P1"]["hand"]) == 8


def no_draw_then_discount() -> list[dict]:
    """Turn 3 without P1's draw: he adds B1 (no priority needed) and casts Discount (a non permanent,
    line CAST); P2 passes, P1 passes, Discount resolves and draws; both pass into the End Phase."""
    return BATTLE[:-1] + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-031", pay={"B": 1})] \
        + pp("P1") + [r("effect", "P1", source="A1-031", op="draw", cards=["A1-010", "A1-010"]),
                      r("pass", "P1"), r("pass", "P2")]


CAST = len(BATTLE) + 2  # the header is line 1


def test_x610z_702_1_a_non_permanent_cast_without_drawing_leaves_the_draw_phase():
    """As a crystal, move, attack or permanent does: one 702.1, by the active player. The engine stayed in
    the Draw Phase: 206.2a and 702.2 on the cast, 702.1 blaming P1 on P2's pass, then 201.3 twice."""
    refused(no_draw_then_discount(), "702.1", line=CAST, contains="P1 leaves the Draw Phase without drawing")
    m, ref = run(no_draw_then_discount(), strict=False)
    assert [(v.line, v.rule, v.player) for v in ref.found] == [(CAST, "702.1", "P1")]
    assert m.phase == "end" and "A1-031" in m.p["P1"]["discard"]


def test_x610z_702_1_passes_that_close_the_draw_phase_without_a_draw_are_the_active_players():
    """Both players pass in P1's Draw Phase, P2 last: P1 left it without drawing (the violation was P2's)."""
    m, ref = run(SETUP + [r("turn", "P1"), r("pass", "P1"), r("pass", "P2")], strict=False)
    assert [(v.line, v.rule, v.player, v.message) for v in ref.found] == [
        (6, "702.1", "P1", "P1 leaves the Draw Phase without drawing 1 card")]
    assert m.phase == "action"


def test_x610z_702_2_only_triggers_in_the_draw_phase():
    """Before P1's draw (after it the Action Phase has begun, 702.3)."""
    recs = SETUP + [r("turn", "P1"), r("pass", "P1"), r("activate", "P2", effect="A1-050", pay={})]
    refused(recs, "702.2")


def reactive_discount(before: list[dict]) -> list[dict]:
    """P1's turn 3 from ``before`` on: P1 draws and passes; P2 adds B1 with a crystal he cast in turn 2 (still
    reactivated) and answers with Discount (206.2a, 703.4: a reactive player casts non permanents in the Action
    Phase), which resolves; both pass into the End Phase, then out of it; P1 ends his turn."""
    return before + [r("draw", "P1", card="A1-010"), r("pass", "P1"), r("energy", "P2", crystal="A1-011"),
                     r("cast", "P2", card="A1-031", pay={"B": 1})] + pp("P2") + [
        r("effect", "P2", source="A1-031", op="draw", cards=["A1-011", "A1-011"]), r("pass", "P1"), r("pass", "P2"),
        r("pass", "P2"), r("pass", "P1"), r("end", "P1", discard=["A1-010"])]


def test_x610z_702_3_the_draw_phase_ends_with_the_draw():
    """702.3: the Draw Phase "ends when the active player has drawn the card and all triggered effects and triggered
    abilities have been resolved"; 703.1: the active player then has priority. The engine kept the Draw Phase
    until both passed or P1 acted: P2's Discount after P1's pass was 206.2a and 702.2, and the passes after it,
    which close the Action and End Phases, were 201.3."""
    turn2 = T1 + [r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"),
                  r("end", "P2"), r("turn", "P1")]
    m = legal(turn2 + [r("draw", "P1", card="A1-010")])
    assert (m.phase, m.prio) == ("action", "P1")
    m = legal(reactive_discount(turn2))
    assert m.turn == 3 and m.phase == "over" and "A1-031" in m.p["P2"]["discard"]
    # the passes after the draw close the Action Phase: a crystal after them is in the End Phase (201.7)
    late = turn2 + [r("draw", "P1", card="A1-010"), r("pass", "P1"), r("pass", "P2"), r("crystal", "P1", card="A1-010")]
    refused(late, "201.7", contains="in the End Phase")
    _, ref = run(late + [r("pass", "P2"), r("pass", "P1"), r("end", "P1")], strict=False)  # (the crystal applied)
    assert [(v.line, v.rule) for v in ref.found] == [(len(late) + 1, "201.7")]


def test_x610z_702_3_the_draw_phase_ends_once_its_triggers_resolved():
    """A trigger on the stack when P1 draws keeps the Draw Phase open (702.2: P2 casts nothing in answer); it
    ends when the trigger has resolved, and P1 has priority in his Action Phase. (Turn 1: P1 puts a Storm Caller,
    a triggered ability, on A2; turn 3: it triggers before his draw.)"""
    from x610z_builder import P1_DECK, header
    h = header()
    h["players"]["P1"]["deck"] = dict(P1_DECK, **{"A1-024": 3, "A1-010": 15})
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"),
                    r("effect", "P1", source="S1", op="search", card="A1-024"),
                    r("effect", "P1", source="S1", op="place", card="A1-024", dot="A2", **{"from": "hand"}),
                    r("end", "P1", discard=["A1-010"]), r("turn", "P2"), r("draw", "P2", card="A1-011"),
                    r("end", "P2", discard=["A1-011"]), r("turn", "P1"), r("trigger", "P1", source="A2", target="S4"),
                    r("draw", "P1", card="A1-010")]
    m = legal(recs, h)
    assert (m.phase, m.prio, len(m.stack)) == ("draw", "P2", 1)
    refused(recs + [r("cast", "P2", card="A1-031", pay={})], "206.2a", head=h)
    m = legal(recs + pp("P1"), h)
    assert (m.phase, m.prio, m.stack) == ("action", "P1", [])


def test_x610z_201_3_pass_without_priority():
    refused(T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"), r("pass", "P1")], "201.3",
            contains="without priority")


def test_x610z_201_3_stackable_action_without_priority():
    recs = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"), r("cast", "P1", card="A1-030", pay={"B": 1},
                                                                       target="E1")]
    refused(recs, "201.3")


def test_x610z_201_5_stack_resolves_last_in_first_out():
    recs = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1")] + pp("P1")
    m = legal(recs)
    assert m.dots["E1"]["code"] == "A1-022" and m.stack == [] and m.prio == "P1"


def test_x610z_106_1b_nothing_after_the_game_has_ended():
    refused(SETUP + [r("concede", "P2"), r("turn", "P1")], "106.1b", contains="after the game has ended")


def test_x610z_106_1b_result_must_agree_with_the_engine():
    refused(SETUP + [r("concede", "P2"), r("result", "P2", winner="P2", reason="concede")], "106.1b",
            contains="disagrees")


def test_x610z_106_1b_one_result_record_after_the_game_has_ended():
    ended = SETUP + [r("concede", "P2"), r("result", "P1", winner="P1", reason="concede")]
    legal(ended)
    refused(ended + [r("result", "P1", winner="P1", reason="concede")], "106.1b",
            contains="a second result record after the game has ended")


def test_x610z_106_1b_an_early_result_leaves_the_games_own_result_due():
    """A result before the end is one violation (--accept-violations); the right result after the end
    is none. It was flagged as "a second result record after the game has ended (the result is at line 5)"."""
    recs = SETUP + [r("turn", "P1"), r("result", "P1", winner="P1", reason="concede"), r("concede", "P2"),
                    r("result", "P1", winner="P1", reason="concede")]
    m, ref = run(recs, strict=False)
    assert [(v.line, v.rule, v.message) for v in ref.found] == [
        (5, "106.1b", "result P1 (concede) but the game has not ended")]
    assert m.outcome == {"winner": "P1", "reason": "concede"}
    m, ref = run(recs + [r("result", "P1", winner="P1", reason="concede")], strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(5, "106.1b"), (8, "106.1b")]
    assert "(the result is at line 7)" in ref.found[1].message


def test_x610z_106_1a_time_limit_draw_is_a_result_record():
    m = legal(SETUP + [r("turn", "P1"), r("result", "P1", winner=None, reason="time")])
    assert m.outcome == {"winner": None, "reason": "time"}


def test_x610z_703_7_end_with_a_non_empty_stack():
    refused(T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"), r("end", "P1")], "703.7")


def test_x610z_704_6_nothing_after_the_end_phase_closed():
    recs = T1 + [r("pass", "P1"), r("pass", "P2"), r("pass", "P2"), r("pass", "P1"),
                 r("cast", "P2", card="A1-031", pay={"C": 1})]
    refused(recs, "704.6")


def test_x610z_704_1_end_phase_priority_to_the_reactive_player():
    m, _ = run(T1 + [r("pass", "P1"), r("pass", "P2")])
    assert (m.phase, m.prio) == ("end", "P2")


def test_x610z_206_2a_non_permanent_in_the_end_phase_by_the_reactive_player():
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("pass", "P1"), r("pass", "P2"),
                    r("pass", "P2"), r("pass", "P1"), r("turn", "P2", turn=2)]
    refused(recs, "700.1")  # the turn has not ended without an end record
    recs = BATTLE + [r("pass", "P1"), r("pass", "P2")]  # (the Draw Phase ended with the draw, 702.3)
    refused(BATTLE[:-1] + [r("pass", "P1"), r("cast", "P2", card="A1-031", pay={})], "206.2a",
            contains="outside the Action and End Phases")  # P1's Draw Phase, before his draw
    # in the End Phase the reactive P2 may cast a non permanent; with no energy left it fails (200.5)
    m = legal(recs + [r("cast", "P2", card="A1-031", pay={})])
    assert m.phase == "end" and m.stack == [] and "A1-031" in m.p["P2"]["hand"]


def test_x610z_502_5_discard_down_to_7():
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1")]
    refused(recs, "502.5", contains="holds 8 cards and discards 0")
    m = legal(recs[:-1] + [r("end", "P1", discard=["A1-031"])])
    assert len(m.p["P1"]["hand"]) == 7 and m.p["P1"]["discard"] == ["A1-031"]


def test_x610z_502_5_discard_a_card_not_in_hand():
    refused(SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-050"])], "502.5")


def test_x610z_106_3_concession_loses():
    m = legal(SETUP + [r("concede", "P1"), r("result", "P1", winner="P2", reason="concede")])
    assert m.outcome == {"winner": "P2", "reason": "concede"}


def test_x610z_106_3_empty_deck_when_a_draw_is_due_loses():
    recs = deck_drawn_out()
    m = legal(recs)
    assert m.outcome == {"winner": "P2", "reason": "deck_out"}


def test_x610z_201_2_counter_action_names_an_action_on_the_stack():
    recs = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1")]
    refused(recs + [r("effect", "P2", source="S4", op="counter_action", line=4)], "201.2",
            contains="no action announced at line 4")
    m = legal(recs + [r("effect", "P2", source="S4", op="counter_action", line=8)])
    assert m.stack == [] and "A1-022" in m.p["P1"]["discard"]


def test_x610z_200_6_raise_cost_spends_energy_of_the_stack_entry_owner():
    recs = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"),
                 r("effect", "P2", source="S4", op="raise_cost", line=8, pay={"B": 1})]
    m = legal(recs)
    assert m.p["P1"]["pool"] == {}


# ---------------------------------------------------------------------- 700.2: extra and skipped turns
def skip(player: str) -> dict:
    return r("effect", "P1", source="S1", op="skip_turn", player=player)


def extra(player: str) -> dict:
    return r("effect", "P1", source="S1", op="extra_turn", player=player)


def turn(player: str, n: int, discard: bool = True) -> list[dict]:
    """Turn ``n`` of ``player``: turn, draw, end, discarding the card drawn (502.5: down to 7) if ``discard``."""
    card = "A1-010" if player == "P1" else "A1-011"
    return [r("turn", player, turn=n), r("draw", player, card=card),
            r("end", player, **({"discard": [card]} if discard else {}))]


def order(effects: list[dict], players: str) -> list[dict]:
    """BATTLE (P1's turn 3 has drawn), the effects, P1's end, then turns 4, 5, ... by ``players`` ("21"). P1
    holds 7 cards, P2 6 (his first turn here draws up to 7)."""
    recs = BATTLE + effects + [r("end", "P1")]
    for n, p in enumerate(players, 4):
        recs += turn(f"P{p}", n, discard=p == "1" or "2" in players[:n - 4])
    return recs


def test_x610z_700_1_a_player_who_skips_his_own_next_turn_in_his_turn_plays_after_two_of_the_other():
    """700.2 (skip: the turn does not occur) and 700.1: P1 skips his next turn in his turn 3, so P2 has turns 4
    and 5, then P1 turn 6. The engine put P2 first in the turn queue, which P2's ordinary turn 4 used up: it
    refused P2's turn 5 ("turn 5 belongs to P1, not P2") and accepted P1's."""
    m = legal(order([skip("P1")], "221"))
    assert (m.turn, m.active, m.turns_queue) == (6, "P1", [])
    refused(order([skip("P1")], "21")[:-2], "700.1", contains="turn 5 belongs to P2, not P1")


def test_x610z_700_1_a_player_who_skips_his_next_turn_twice_waits_three_turns():
    m = legal(order([skip("P1"), skip("P1")], "2221"))
    assert (m.turn, m.active) == (7, "P1")
    refused(order([skip("P1"), skip("P1")], "221")[:-2], "700.1", contains="turn 6 belongs to P2, not P1")


def test_x610z_700_1_a_skip_of_the_opponents_turn_gives_the_active_player_the_next_one():
    """As before digest.5: P2's turn 4 does not occur, P1 has turns 3 and 4, then P2."""
    m = legal(order([skip("P2")], "12"))
    assert (m.turn, m.active, m.turns_queue) == (5, "P2", [])
    refused(order([skip("P2")], "2")[:-2], "700.1", contains="turn 4 belongs to P1, not P2")
    m = legal(order([skip("P2"), skip("P2")], "112"))
    assert (m.turn, m.active) == (6, "P2")


@pytest.mark.parametrize("effects, players", [
    ([extra("P1"), skip("P1")], "212"),  # the extra turn is the next one skipped: as if neither
    ([skip("P1"), extra("P1")], "1221"),  # the extra turn comes first; the skip took out turn 5 as it stood
    ([extra("P1"), skip("P2")], "112"),
    ([skip("P2"), extra("P1")], "112"),
])
def test_x610z_700_1_extra_and_skipped_turns_together(effects, players):
    m = legal(order(effects, players))
    assert (m.turn, m.turns_queue) == (3 + len(players), [])
    wrong = "1" if players[0] == "2" else "2"
    refused(order(effects, wrong)[:-2], "700.1", contains=f"turn 4 belongs to P{players[0]}, not P{wrong}")


def test_x610z_700_1_a_match_imported_under_digest_4_replays_skip_turn_as_it_was_imported():
    """`skip_turn` is a digest.5 change in the state's own handler: a match stored under digest.4 replays with
    the turn queue it was checked against (P2 put first, used up by his ordinary turn 4)."""
    from zx_events.games import digest_of

    m, _ = run(BATTLE + [skip("P1")])
    events = copy.deepcopy(list(m.pending_events))
    assert digest_of(events[0].rules_version) >= 5
    assert project(None, copy.deepcopy(events)).turns_queue == ["P2", "P2"]
    events[0].__dict__["rules_version"] = "x610z-cr-1.1+digest.4"
    assert project(None, events).turns_queue == ["P2"]


def refused_at_first_difference(effects: list[dict], players: str, wrong: str) -> None:
    """The order ``wrong`` is refused with 700.1 at its first turn record that differs from ``players``."""
    n = next(i for i, (a, b) in enumerate(zip(players, wrong)) if a != b)
    refused(order(effects, wrong[:n + 1])[:-2], "700.1", contains=f"turn {n + 4} belongs to P{players[n]}, not P{wrong[n]}")


def test_x610z_700_2_an_extra_turn_of_the_opponent_comes_after_his_ordinary_one():
    """700.2: in P1's turn 3 an effect gives P2 another turn: P2 has turns 4 (his ordinary one) and 5 (the extra
    one), then P1 turn 6. The extra turn took the place of P2's ordinary turn 4 in the turn queue: P2 gained no
    turn, P1's turn 5 was accepted and P2's refused ("turn 5 belongs to P1, not P2")."""
    m = legal(order([extra("P2")], "221"))
    assert (m.turn, m.active, m.turns_queue) == (6, "P1", [])
    refused_at_first_difference([extra("P2")], "221", "21")
    m = legal(order([extra("P2"), extra("P2")], "2221"))
    assert (m.turn, m.active, m.turns_queue) == (7, "P1", [])
    refused_at_first_difference([extra("P2"), extra("P2")], "2221", "221")


def test_x610z_700_2_an_extra_turn_of_the_active_player_comes_next():
    m = legal(order([extra("P1")], "12"))
    assert (m.turn, m.active, m.turns_queue) == (5, "P2", [])
    refused_at_first_difference([extra("P1")], "12", "2")
    m = legal(order([extra("P1"), extra("P1")], "112"))
    assert (m.turn, m.active, m.turns_queue) == (6, "P2", [])
    refused_at_first_difference([extra("P1"), extra("P1")], "112", "12")


@pytest.mark.parametrize("effects, players, wrong", [
    ([extra("P2"), skip("P2")], "21", "12"),  # the skip takes out P2's next turn, his ordinary turn 4: as if neither
    ([skip("P2"), extra("P2")], "212", "12"),  # the skip took out turn 4; the extra turn is the next one
    ([extra("P2"), skip("P1")], "2221", "221"),  # P1's turn 6 does not occur: P2 plays 4, 5 (extra) and 6
    ([skip("P1"), extra("P2")], "2221", "221"),  # P2's turns 4 and 5 (P1's skip), and the extra one
    ([extra("P2"), extra("P1")], "1221", "121"),  # the last extra turn given comes first
    ([extra("P1"), extra("P2")], "2121", "12"),  # so too here (docs/rules-x610z.md, choice 18: said since 11-27)
], ids=["extra-P2-skip-P2", "skip-P2-extra-P2", "extra-P2-skip-P1", "skip-P1-extra-P2", "extra-P2-extra-P1",
        "extra-P1-extra-P2"])
def test_x610z_700_2_an_extra_turn_of_the_opponent_with_skipped_turns(effects, players, wrong):
    m = legal(order(effects, players))
    assert (m.turn, m.active, m.turns_queue) == (3 + len(players), f"P{players[-1]}", [])
    refused_at_first_difference(effects, players, wrong)


def test_x610z_700_2_a_match_imported_under_digest_4_replays_an_opponents_extra_turn_as_it_was_imported(monkeypatch):
    """`extra_turn` of the opponent is a digest.5 change in the state's own handler: a match imported under
    digest.4, where the extra turn took the place of P2's ordinary turn 4 (P2, then P1 turn 5), replays with the
    turn queue it was checked against; imported under digest.5 that order is refused."""
    import zx_events.games.x610z.setup as setup

    def queues(events) -> list[list[str]]:
        """The turn queue after each event, replayed from the start."""
        out, m = [], None
        for e in events:
            m = project(m, [e])
            out.append(list(m.turns_queue))
        return out

    monkeypatch.setattr(setup, "RULES_VERSION", "x610z-cr-1.1+digest.4")
    m = legal(order([extra("P2")], "21"))
    monkeypatch.undo()
    events = copy.deepcopy(list(m.pending_events))
    assert events[0].rules_version == "x610z-cr-1.1+digest.4"
    assert ["P2"] in queues(copy.deepcopy(events)) and ["P2", "P2"] not in queues(copy.deepcopy(events))
    replayed = project(None, copy.deepcopy(events))
    assert (replayed.turn, replayed.active, replayed.turns_queue, replayed.p) == (5, "P1", [], m.p)
    events[0].__dict__["rules_version"] = "x610z-cr-1.1+digest.5"
    assert ["P2", "P2"] in queues(events)
    refused_at_first_difference([extra("P2")], "221", "21")
