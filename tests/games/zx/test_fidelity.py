"""Rules-fidelity defects an independent review found (issue 15): one test each, named after its rule.

- 605.5-605.6: an "until end of battle" boost that disappears in the Battle End Step can leave a
  rule effect pending (lethal damage); it is performed before the battle ends, whether the passes
  that closed the Battle Event Step were written or left out.
- Lethal damage (digest, Rule Effects): a Z/X whose Power is 0 or less is destroyed, also one that
  never took damage nor had its Power changed (a Token created with Power 0).
- 603.1b-603.1c: a startup ability played in the Battle Event Step (an ``effect`` record with
  ``startup: true``) is an action of the player with priority, and priority goes to the other.
"""

from __future__ import annotations

from support import BOARD, line_of, rejects, run

ATTACK_A2 = {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}  # R01-001 1500 into U01-001 1500
PASS1 = {"do": "pass", "by": "P1"}
PASS2 = {"do": "pass", "by": "P2"}
# P2 answers the attack with an Event that boosts a2 by 1000 until end of battle: 1500 damage into
# 2500 Power survives the Damage Step, but the boost disappears in the Battle End Step (605.5)
BOOSTED = [*BOARD, ATTACK_A2, PASS1, {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
           {"do": "effect", "by": "P2", "source": "U01-014", "op": "power", "square": "a2", "delta": 1000,
            "until": "end_of_battle"}]


def names(checked) -> list[str]:
    return [type(e).__name__ for e in checked.match.pending_events]


def events(checked, name):
    return [e for e in checked.match.pending_events if type(e).__name__ == name]


# ---------------------------------------------------------------------- 605.5-605.6
def test_605_6_boost_ending_kills_before_battle_ends():
    c = run([*BOOSTED, PASS1, PASS2])
    tail = names(c)[-4:]
    assert tail == ["BattleDamageDealt", "BattleEffectsEnded", "ZXDestroyed", "BattleEnded"], tail
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "destroyed"
    assert c.match.sq["a2"] is None and c.match.p["P2"]["charge"] == ["U01-001"]


def test_605_6_passes_left_out_the_next_record_sees_the_zx_destroyed():
    # the step is closed by the next record (its passes left out, 603.1c): a new attack on a2 finds
    # it empty (602.1b) instead of attacking a dead Z/X
    recs = [*BOOSTED, {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}]
    err = rejects(recs, "602.1b", line_of(recs, len(recs) - 1))
    assert "a2 holds no Z/X of P2" in err.message


def test_605_6_passes_left_out_before_the_end_phase_the_zx_does_not_survive_the_turn():
    c = run([*BOOSTED, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
             {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]}])
    assert c.match.sq["a2"] is None  # its damage did not reset at the end of the turn with it alive
    recs = [*BOOSTED, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "attack", "by": "P2", "from": "a2", "target": "a1"}]
    rejects(recs, "602.1a", line_of(recs, len(recs) - 1))


def test_605_6_end_of_log_closes_the_step_and_destroys():
    c = run(BOOSTED)  # the log stops inside the Battle Event Step
    assert c.match.battle is None and c.match.sq["a2"] is None


def test_605_5_boost_ending_on_a_survivor_is_not_lethal():
    # the attacker's own end-of-battle boost ends; it took no damage: nothing to destroy
    c = run([*BOARD, ATTACK_A2, {"do": "effect", "by": "P1", "source": "b2", "op": "power", "square": "b2",
                                 "delta": 1000, "until": "end_of_battle"}, PASS1, PASS2])
    assert c.match.sq["b2"]["mods"] == [] and c.match.sq["b2"]["code"] == "R01-001"
    # nothing becomes lethal: BattleEnded ends the boost itself, the events are those the engine
    # always wrote
    assert names(c)[-3:] == ["BattleDamageDealt", "ZXDestroyed", "BattleEnded"]


# ---------------------------------------------------------------------- lethal damage (Power 0 or less)
def test_lethal_damage_token_created_with_power_0_is_destroyed():
    c = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "token", "square": "c1",
                      "name": "Husk", "power": 0}])
    assert c.match.sq["c1"] is None
    (dead,) = events(c, "ZXDestroyed")
    assert (dead.square, dead.cause) == ("c1", "lethal")
    assert c.match.p["P1"]["charge"] == []  # 202.11c: a Token that leaves Square disappears


def test_lethal_damage_power_0_square_is_free_again():
    # the Token is gone before the next record: P1 may put a Z/X on c1, P2 cannot attack it
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "token", "square": "c2",
                     "name": "Husk", "power": 0},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "c2"}]
    assert run(recs).match.sq["c2"]["code"] == "R01-004"


def test_lethal_damage_power_cut_to_0_without_damage_is_destroyed():
    c = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "power", "square": "a2",
                      "delta": -1500, "until": "end_of_turn"}])
    assert c.match.sq["a2"] is None and c.match.p["P2"]["charge"] == ["U01-001"]


# ---------------------------------------------------------------------- 603.1b-603.1c startup abilities
STARTUP_P2 = {"do": "effect", "by": "P2", "source": "b3", "op": "power", "square": "b3", "delta": 500,
              "until": "end_of_turn", "startup": True}


def test_603_1c_startup_ability_moves_priority():
    # attack, P1 passes, P2 plays a startup ability of its own Z/X, P1 passes, P2 passes
    recs = [*BOARD, ATTACK_A2, PASS1, STARTUP_P2, PASS1, PASS2]
    c = run(recs)
    assert "AbilityPlayed" in names(c)
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "destroyed"
    assert c.match.sq["b3"]["mods"] == [[500, "end_of_turn"]]


def test_603_1c_steps_of_a_resolution_do_not_move_priority():
    # an Event played by P2 gives priority to P1; the effect records resolving it do not move it again
    recs = [*BOARD, ATTACK_A2, PASS1, {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "power", "square": "a2", "delta": 500,
             "until": "end_of_battle"},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "power", "square": "b3", "delta": 500,
             "until": "end_of_battle"},
            PASS2]
    rejects(recs, "603.1b", line_of(recs, len(recs) - 1))


def test_603_1b_startup_ability_without_priority():
    recs = [*BOARD, ATTACK_A2, STARTUP_P2]  # P1, the attacker, has priority first (603.1a)
    err = rejects(recs, "603.1b", line_of(recs, len(recs) - 1))
    assert "startup ability of b3 without priority (P1 has it)" in err.message


def test_506_startup_ability_of_the_non_turn_player_outside_a_battle():
    """603.1b governs the Battle Event Step only; outside it the non-turn player has no Main Phase (506)."""
    recs = [*BOARD, STARTUP_P2]
    err = rejects(recs, "506", line_of(recs, len(recs) - 1))
    assert err.message == "P2 plays a startup ability of b3 in P1's turn outside a Battle Event Step"


def test_302_1c_startup_ability_is_played_by_its_cards_controller():
    recs = [*BOARD, ATTACK_A2, {"do": "effect", "by": "P1", "source": "b3", "op": "power", "square": "b2",
                                "delta": 500, "until": "end_of_turn", "startup": True}]
    err = rejects(recs, "302.1c", line_of(recs, len(recs) - 1))
    assert "is P2's to play" in err.message


def test_603_1b_startup_ability_of_the_turn_player_in_the_main_phase():
    c = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "power", "square": "a1", "delta": 500,
                      "until": "end_of_turn", "startup": True}])
    assert c.match.sq["a1"]["mods"] == [[500, "end_of_turn"]]


STARTUP_A1 = {"do": "effect", "by": "P1", "source": "a1", "op": "power", "square": "a1", "delta": 4000,
              "until": "end_of_turn", "startup": True}


def test_506_startup_ability_in_the_draw_phase_before_the_draw():
    recs = [*BOARD[:-1], STARTUP_A1, BOARD[-1]]  # turn 3: the ability before P1's draw
    err = rejects(recs, "506", line_of(recs, len(recs) - 2))
    assert err.message == ("a startup ability of a1 played in the Draw Phase, before the draw: startup "
                           "abilities are played in the Main Phase")
    m = run(recs, strict=False).match  # applied (digest.7); the draw after it is still the Draw Phase's
    assert m.sq["a1"]["mods"] == [[4000, "end_of_turn"]] and [v["rule"] for v in m.violations] == ["506"]


def test_506_startup_ability_after_the_end_phase_does_not_reach_the_next_turn():
    recs = [*BOARD, {"do": "end", "by": "P1"}, STARTUP_A1]
    err = rejects(recs, "506", line_of(recs, len(recs) - 1))
    assert err.message == "a startup ability of a1 played after the End Phase"
    m = run([*recs, {"do": "turn", "by": "P2"}], strict=False).match
    assert m.sq["a1"]["mods"] == []  # its "until end of turn" +4000 is not in P2's turn


def test_506_startup_ability_before_the_first_turn():
    recs = [*BOARD[:2], {"do": "effect", "by": "P1", "source": "b1", "op": "counter", "delta": 1, "startup": True}]
    err = rejects(recs, "506", line_of(recs, len(recs) - 1))
    assert err.message == "a startup ability of b1 played before the first turn"  # (it said "in None's turn")


def test_506_cards_played_before_the_first_turn():
    # (the same "in None's turn" text as the startup ability's, for an Event and for a Z/X). By P2: the first
    # player's play there begins turn 1, its turn record left out (501.3, test_cascades)
    recs = [*BOARD[:2], {"do": "play", "by": "P2", "card": "U01-014", "pay": []}]
    err = rejects(recs, "506", line_of(recs, len(recs) - 1))
    assert err.message == "the Event U01-014 played before the first turn"
    recs = [*BOARD[:2], {"do": "play", "by": "P2", "card": "U01-002", "pay": ["U01-001"], "square": "a3"}]
    err = rejects(recs, "506", line_of(recs, len(recs) - 1))
    assert err.message == "U01-002 played before the first turn"


def test_506_startup_ability_is_of_the_main_phase():
    # played in the Main Phase, it ends the Resource Phase as an Event would
    recs = [*BOARD, STARTUP_A1, {"do": "resource", "by": "P1", "card": "R01-004"}]
    err = rejects(recs, "504.3", line_of(recs, len(recs) - 1))
    assert err.message == "a Resource record in the Main Phase"


def test_302_1c_startup_ability_of_the_opponents_player_card():
    # b3 emptied of its Z/X: the source b3 is P2's Player card, whose abilities are P2's (302.1b)
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "b3"},
            {"do": "effect", "by": "P1", "source": "b3", "op": "counter", "delta": 1, "startup": True}]
    err = rejects(recs, "302.1c", line_of(recs, len(recs) - 1))
    assert err.message == "the startup ability of PL-002 on b3 is P2's to play, not P1's"
    own = {"do": "effect", "by": "P1", "source": "b1", "op": "counter", "delta": 1, "startup": True}
    assert run([*BOARD, own]).match.p["P1"]["counters"] == 1  # P1's own Player card


def test_302_1c_startup_ability_of_an_empty_square():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "c2", "op": "counter", "delta": 1, "startup": True}]
    err = rejects(recs, "301.1", line_of(recs, len(recs) - 1))
    assert err.message == "there is no card on c2: no startup ability of it can be played"


# ---------------------------------------------------------------------- Force cards (202, 301.4)
FORCE_A1 = {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-005", "from": "hand",
            "to": "force", "dest": "a1"}


def test_301_4_force_card_is_tied_to_the_card_it_sits_under():
    from zx_events.games.zx.views import build_view

    m = run([*BOARD, FORCE_A1]).match
    (f,) = m.force
    assert (f["code"], f["square"], f["uid"]) == ("R01-005", "a1", m.sq["a1"]["uid"])
    assert build_view(m, "P2").squares[0].force == ("R01-005",)  # a1; public face-up (301.3a)
    # Square to Square it is the same card (301.4): its Force card moves with it
    m = run([*BOARD, FORCE_A1, {"do": "effect", "by": "P1", "source": "a1", "op": "move", "square": "a1",
                                "from": "square", "to": "square", "dest": "c1"}]).match
    assert m.force[0]["square"] == "c1"
    assert build_view(m, "P1").squares[2].force == ("R01-005",)  # c1


def test_301_4_force_card_leaves_with_the_card_it_sits_under():
    # the card under it is destroyed: a new card in Charge (301.4), the Force card goes to Trash
    m = run([*BOARD, FORCE_A1, {"do": "effect", "by": "P2", "source": "U01-014", "op": "destroy",
                                "square": "a1"}]).match
    assert m.force == [] and m.p["P1"]["trash"] == ["R01-005"] and m.p["P1"]["charge"] == ["R01-002"]
    # lethal damage the same; a loose Force card (no dest) stays
    recs = [*BOARD, FORCE_A1, {"do": "effect", "by": "P1", "source": "b2", "op": "move", "card": "R01-014",
                               "from": "hand", "to": "force"},
            {"do": "effect", "by": "P1", "source": "b2", "op": "damage", "square": "a1", "amount": 3000}]
    m = run(recs).match
    assert [f["code"] for f in m.force] == ["R01-014"] and m.p["P1"]["trash"] == ["R01-005"]


def test_301_1_force_card_under_an_empty_square():
    recs = [*BOARD, dict(FORCE_A1, dest="c1")]
    err = rejects(recs, "301.1", line_of(recs, len(recs) - 1))
    assert "no card on c1" in err.message


# ---------------------------------------------------------------------- face-down cards (301.3b)
FACE_DOWN_C1 = {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-005", "from": "hand",
                "to": "square", "dest": "c1", "face": "down"}


def test_301_3b_face_down_card_on_square_seen_only_by_its_owner():
    from zx_events.games.zx.views import build_view, event_fields, redact_event, redact_record

    c = run([*BOARD, FACE_DOWN_C1])
    m = c.match
    assert m.sq["c1"]["up"] is False and m.sq["c1"]["base"] is None
    seen = {v: build_view(m, v).squares[2].code for v in ("judge", "P1", "P2", "spectator")}
    assert seen == {"judge": "R01-005", "P1": "R01-005", "P2": None, "spectator": None}
    assert "R01-005" not in repr(build_view(m, "P2").squares[2])
    assert redact_record(FACE_DOWN_C1, "P2")["card"] == "?" and redact_record(FACE_DOWN_C1, "P1")["card"] == "R01-005"
    ev = c.match.pending_events[-1]
    assert redact_event("EffectApplied", event_fields(ev), "spectator")["args"]["card"] == "?"


def test_301_3b_face_down_force_card_seen_only_by_its_owner():
    from zx_events.games.zx.views import build_view

    m = run([*BOARD, dict(FORCE_A1, face="down")]).match
    # the other seats see a card back there: counted (301.3d), not named
    assert build_view(m, "P2").squares[0].force == (None,) and build_view(m, "P1").squares[0].force == ("R01-005",)


def test_303_6_face_down_card_on_square_is_no_zx():
    # no Power, so no lethal damage; it does not attack (602.1a) and is not attacked (602.1b)
    c = run([*BOARD, FACE_DOWN_C1])
    assert c.match.sq["c1"] is not None
    recs = [*BOARD, FACE_DOWN_C1, {"do": "attack", "by": "P1", "from": "c1", "target": "c2"}]
    err = rejects(recs, "602.1a", line_of(recs, len(recs) - 1))
    assert "face-down" in err.message
    # P2 cannot attack it either: in P2's turn c1 holds no Z/X of P1 (602.1b)
    recs = [*BOARD, FACE_DOWN_C1, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "play", "by": "P2", "card": "U01-002", "pay": ["U01-001"], "square": "c2"},
            {"do": "attack", "by": "P2", "from": "c2", "target": "c1"}]
    err = rejects(recs, "602.1b", line_of(recs, len(recs) - 1))
    assert "c1 holds no Z/X of P1" in err.message
    # destroyed, it is no Z/X: to Trash, not Charge (1007)
    m = run([*BOARD, FACE_DOWN_C1, {"do": "effect", "by": "P1", "source": "a1", "op": "destroy",
                                    "square": "c1"}]).match
    assert m.p["P1"]["trash"] == ["R01-005"] and m.p["P1"]["charge"] == []


# ---------------------------------------------------------------------- analytics: Life counts
def test_life_counts_follow_a_card_moved_from_square_into_life(tmp_path):
    """turns.p1_life / p2_life count a card an effect moves from a Square into Life (no blind spot):
    P1 returns P2's U01-001 from a2 into P2's Life, and its own Token there disappears (202.11c)."""
    import duckdb

    from zx_analytics.projection import update
    from support import text
    from zx_events.application import MatchService
    from zx_events.logformat.reader import parse_log

    recs = [*BOARD,
            {"do": "effect", "by": "P1", "source": "a1", "op": "move", "square": "a2", "from": "square",
             "to": "life"},
            {"do": "effect", "by": "P1", "source": "a1", "op": "token", "square": "c1", "name": "Whelp",
             "power": 1000},
            {"do": "effect", "by": "P1", "source": "a1", "op": "move", "square": "c1", "from": "square",
             "to": "life"},
            {"do": "end", "by": "P1"}]
    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        (log,) = parse_log(text(recs), "life.zxlog")
        assert svc.import_log(log).status == "imported"
        m = svc.get_match("t-1")
        assert (len(m.p["P1"]["life"]), len(m.p["P2"]["life"])) == (4, 5)
        update(svc, tmp_path / "a.duckdb")
    finally:
        svc.close()
    con = duckdb.connect(str(tmp_path / "a.duckdb"), read_only=True)
    try:
        rows = con.sql("SELECT turn, p1_life, p2_life FROM turns ORDER BY turn").fetchall()
    finally:
        con.close()
    assert rows[-1] == (3, 4, 5)
