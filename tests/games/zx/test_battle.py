"""Battle, 601-605: one test per clause the engine enforces, on the board of tests/support.BOARD."""

from __future__ import annotations

from support import BOARD, line_of, rejects, run

ATTACK_A2 = {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}  # 1500 into 1500
PASS1 = {"do": "pass", "by": "P1"}
PASS2 = {"do": "pass", "by": "P2"}


def events(checked, name):
    return [e for e in checked.match.pending_events if type(e).__name__ == name]


def test_601_1_battle_runs_its_steps_in_order():
    c = run([*BOARD, ATTACK_A2, PASS1, PASS2])
    names = [type(e).__name__ for e in c.match.pending_events][-6:]
    assert names == ["AttackDeclared", "PriorityPassed", "PriorityPassed", "BattleDamageDealt", "ZXDestroyed",
                     "BattleEnded"]
    assert c.match.battle is None


def test_604_3b_an_attack_while_a_life_card_is_owed_breaks_that_obligation():
    """The next battle is declared while P2 still owes the Life card of the last: the attack is the
    first record that is not the one owed, as an ``end`` or a ``draw`` there would be (not 602.1)."""
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"},
            {"do": "attack", "by": "P1", "from": "c2", "target": "b3"},
            PASS1, PASS2,  # U01-003 4500 takes 6000: destroyed
            {"do": "attack", "by": "P1", "from": "b2", "target": "b3"},  # b3 is now the empty Player Square
            {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}]  # P2 still owes a Life card
    err = rejects(recs, "604.3b", line_of(recs, len(recs) - 1))
    assert err.message == "P2 takes 1 damage: a life record for P2 is due, got an attack record"
    c = run([*recs, PASS1, PASS2], strict=False)  # accepted: that battle ends, this one is fought
    assert [v.rule for v in c.violations] == ["604.3b"]
    assert c.match.sq["a2"] is None and c.match.battle is None


def test_602_1_battle_outside_the_main_phase():
    recs = [*BOARD, {"do": "end", "by": "P1"}, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}]
    rejects(recs, "602.1", line_of(recs, len(recs) - 1))


def test_602_1_an_attack_repeated_in_its_battle_event_step_is_one_finding_and_skipped():
    """The attack written twice: the same attack again, its attacker Sleep, while its battle is open is 602.1
    'a battle is already under way', skipped, and the battle goes on (digest.7: it was read as the next battle
    after trailing passes left out: the first battle resolved early, then 602.1a, and both legal passes 603.1b).
    The attacker on another target is still that (602.1a, examples/invalid/602.1a-sleep-attacker.zxlog)."""
    recs = [*BOARD, ATTACK_A2, ATTACK_A2, PASS1, PASS2]
    err = rejects(recs, "602.1", line_of(recs, len(BOARD) + 1))
    assert err.message == "a battle is already under way (the attack from b2 on a2, in its Battle Event Step)"
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("602.1", line_of(recs, len(BOARD) + 1))]
    assert c.match.sq["a2"] is None and c.match.battle is None and len(events(c, "BattleEnded")) == 1
    # another Z/X's attack there is still the next battle, the trailing passes of this one left out (603.1c)
    c = run([*BOARD, {"do": "attack", "by": "P1", "from": "a1", "target": "a2"},
             {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2])
    assert c.match.sq["a2"] is None and len(events(c, "BattleEnded")) == 2


def test_602_1_only_the_turn_player_declares():
    recs = [*BOARD, {"do": "attack", "by": "P2", "from": "a2", "target": "b2"}]
    rejects(recs, "602.1", line_of(recs, len(recs) - 1))


def test_602_1a_attacker_must_be_reboot():
    recs = [*BOARD, ATTACK_A2, PASS1, PASS2, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}]
    err = rejects(recs, "602.1a", line_of(recs, len(recs) - 1))
    assert "Sleep" in err.message


def test_602_1a_attacker_must_be_a_zx_of_the_turn_player():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "a2", "target": "a1"}]
    rejects(recs, "602.1a", line_of(recs, len(recs) - 1))


def test_602_1b_target_not_next_to_attacker_without_range():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "a1", "target": "b3"}]
    err = rejects(recs, "602.1b", line_of(recs, len(recs) - 1))
    assert err.message == "b3 is at distance 3 from a1, beyond its Range 1" or "has no Range" in err.message


def test_602_1b_an_attack_refused_for_its_target_is_one_finding_with_its_passes_and_life_card():
    """An attack refused for its target (or its attacker, or its seat) opens no battle: the passes and the
    Life card the log writes after it are that battle's, not charged again, and the Life card is taken as
    the damage the log says (digest.7: 603.1b twice, 604.3b, and P2 kept a Life card to the end, 101.2)."""
    cleared = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                        "square": "c2"},
               {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2]  # b3 empty now
    hit = {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}
    for wrong, rule in ((dict(hit, **{"from": "c3"}), "602.1a"), (dict(hit, by="P2"), "602.1")):
        recs = [*cleared, wrong, PASS1, PASS2, {"do": "life", "by": "P2", "card": "U01-005"}, {"do": "end", "by": "P1"}]
        rejects(recs, rule, line_of(recs, len(cleared)))
        c = run(recs, strict=False)
        assert [(v.rule, v.line) for v in c.violations] == [(rule, line_of(recs, len(cleared)))]
        assert sorted(c.match.p["P2"]["life"]) == ["U01-006", "U01-011", "U01-013"] and c.match.battle is None
    # its target a Z/X (here P1's own, 602.1b): an attack on a Z/X owes no Life card (604.3a), refused or not, and
    # one after it is 604.3b, not taken (round 36: it was taken as this battle's)
    recs = [*cleared, dict(hit, target="a1"), PASS1, PASS2, {"do": "life", "by": "P2", "card": "U01-005"},
            {"do": "end", "by": "P1"}]
    rejects(recs, "602.1b", line_of(recs, len(cleared)))
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("602.1b", line_of(recs, len(cleared))),
                                                       ("604.3b", line_of(recs, len(cleared) + 3))]
    assert sorted(c.match.p["P2"]["life"]) == ["U01-005", "U01-006", "U01-011", "U01-013"]
    # a Life card with no battle refused before it is still refused (604.3b)
    recs = [*cleared, {"do": "life", "by": "P2", "card": "U01-005"}]
    assert [v.rule for v in run(recs, strict=False).violations] == ["604.3b"]


def test_602_1c_an_attack_out_of_reach_opens_no_battle():
    """602.1c: a target the attacker cannot choose (602.1b: not next to it, no Range) makes the declaration
    invalid: no battle. It opened one all the same (digest.11): the attacker slept, the passes applied, a Life card
    "due" (604.3b at the `end`) and the narration said "using its Range, distance 3" of a Z/X with no Range."""
    out = {"do": "attack", "by": "P1", "from": "a1", "target": "b3"}  # distance 3, R01-002 has no Range
    cleared = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                        "square": "c2"},
               {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2]  # b3 empty now
    recs = [*cleared, out, PASS1, PASS2, {"do": "end", "by": "P1"}]
    rejects(recs, "602.1b", line_of(recs, len(cleared)))
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("602.1b", line_of(recs, len(cleared)))]
    assert len(events(c, "AttackDeclared")) == 1 and len(events(c, "BattleDamageDealt")) == 1  # the first battle's
    assert c.match.sq["a1"]["sleep"] is False and len(c.match.p["P2"]["life"]) == 4 and c.match.battle is None


def test_602_1c_an_attack_by_a_sleep_zx_opens_no_battle():
    """602.1c as for a target out of reach: a Sleep Z/X (602.1a) attacking the empty Player Square is one finding, no
    battle. It opened one, and the Life card it made "due" was a second finding at the `end` (604.3b)."""
    cleared = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                        "square": "c2"},
               {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2]  # c2 Sleep, b3 empty now
    recs = [*cleared, {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2,
            {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("602.1a", line_of(recs, len(cleared)))]
    assert len(events(c, "AttackDeclared")) == 1 and len(c.match.p["P2"]["life"]) == 4


def test_602_1b_range_2_reaches_distance_2():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"},
            {"do": "attack", "by": "P1", "from": "c2", "target": "a2"}]
    c = run(recs)
    (att,) = events(c, "AttackDeclared")
    assert (att.distance, att.range_used) == (2, True)


def test_602_1b_range_2_does_not_reach_distance_3():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c1"},
            {"do": "attack", "by": "P1", "from": "c1", "target": "b3"}]
    err = rejects(recs, "602.1b", line_of(recs, len(recs) - 1))
    assert "Range 2" in err.message


def test_602_1b_target_holds_own_zx():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a1"}]
    rejects(recs, "602.1b", line_of(recs, len(recs) - 1))


def test_602_1b_empty_normal_square_is_no_target():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "c2"}]
    rejects(recs, "602.1b", line_of(recs, len(recs) - 1))


def test_602_1b_player_square_with_a_zx_targets_the_zx():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2]
    c = run(recs)
    (att,) = events(c, "AttackDeclared")
    assert att.target_kind == "zx" and att.target_info["code"] == "U01-003"


def test_602_1d_attacker_is_slept():
    c = run([*BOARD, ATTACK_A2])
    assert c.match.sq["b2"]["sleep"] is True


def test_603_1a_turn_player_has_priority_first():
    recs = [*BOARD, ATTACK_A2, PASS2]
    rejects(recs, "603.1b", line_of(recs, len(recs) - 1))


def test_603_1b_event_by_the_player_with_priority():
    recs = [*BOARD, ATTACK_A2, {"do": "play", "by": "P1", "card": "R01-014", "pay": []},
            {"do": "play", "by": "P2", "card": "U01-014", "pay": []}, PASS1, PASS2]
    c = run(recs)
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "destroyed"


def test_603_1b_event_without_priority_is_rejected():
    recs = [*BOARD, ATTACK_A2, {"do": "play", "by": "P2", "card": "U01-014", "pay": []}]
    rejects(recs, "603.1b", line_of(recs, len(recs) - 1))


def test_603_1b_a_pass_without_priority_is_not_counted():
    """A pass by the player without priority is reported and changes nothing: it is not the second pass
    (digest.7: it started the damage step, and the legal pass after it was charged, 603.1b)."""
    recs = [*BOARD, ATTACK_A2, PASS1, PASS1, PASS2]  # P1's pass written twice
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("603.1b", line_of(recs, len(recs) - 2))]
    assert c.match.violations[0]["applied"] is False
    assert c.match.sq["a2"] is None and c.match.battle is None
    assert len(events(c, "PriorityPassed")) == 2


def test_603_1b_no_zx_played_in_the_battle_event_step():
    # P2 cannot play a Z/X in the Battle Event Step (nor at all in P1's turn): the step's rule, 603.1b, as the
    # test's name says (digest.11; it was 506, the play closing the step as if its trailing passes were left out)
    recs = [*BOARD, ATTACK_A2, PASS1, {"do": "play", "by": "P2", "card": "U01-002", "pay": ["U01-004"],
                                       "square": "c3"}]
    err = rejects(recs, "603.1b", line_of(recs, len(recs) - 1))
    assert err.message.startswith("P2 plays U01-002 in the Battle Event Step: only Events and abilities")


def test_603_1c_both_must_pass_in_a_row():
    # P1 plays an Event: priority goes to P2 (603.1c); P2 passes: priority is P1's again, the step stays open
    recs = [*BOARD, ATTACK_A2, {"do": "play", "by": "P1", "card": "R01-014", "pay": []}, PASS2,
            {"do": "play", "by": "P2", "card": "U01-014", "pay": []}]
    err = rejects(recs, "603.1b", line_of(recs, len(recs) - 1))
    assert "P1 has it" in err.message
    c = run([*recs[:-1], PASS1])
    assert [type(e).__name__ for e in c.match.pending_events][-3:] == ["BattleDamageDealt", "ZXDestroyed",
                                                                      "BattleEnded"]


def test_603_1c_trailing_passes_may_be_left_out():
    c = run([*BOARD, ATTACK_A2, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"],
                                 "square": "c1"}])
    assert c.match.sq["a2"] is None and c.match.sq["c1"]["code"] == "R01-004"


# P1's Charge filled to 4 in the Main Phase; P2 then destroys P1's a1 in the Battle Event Step: P1's
# Charge holds 5, and the Charge Excess (905) is owed in the step, before anyone acts again (702)
CHARGE_4_P1 = [{"do": "effect", "by": "P1", "source": "b1", "op": "move", "card": c, "owner": "P1", "from": z,
                "to": "charge"} for c, z in (("R01-004", "hand"), ("R01-005", "hand"), ("R01-006", "life"),
                                              ("R01-010", "life"))]
EXCESS_IN_STEP = [*BOARD, *CHARGE_4_P1, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1,
                  {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
                  {"do": "effect", "by": "P2", "source": "U01-014", "op": "destroy", "square": "a1"},
                  {"do": "charge_excess", "by": "P1", "trash": ["R01-004"]}]


def test_603_1c_charge_excess_in_the_step_keeps_it_open():
    # the owed record is a rule effect, no action of 603.1b: the step stays open, priority stays with P1
    recs = [*EXCESS_IN_STEP, PASS2]
    err = rejects(recs, "603.1b", line_of(recs, len(recs) - 1))
    assert err.message == "P2 passes without priority (P1 has it)"
    c = run([*EXCESS_IN_STEP, PASS1, PASS2])  # the passes that close it are not "outside the step"
    names = [type(e).__name__ for e in c.match.pending_events]
    assert names.index("ChargeExcessTrashed") < names.index("BattleDamageDealt")
    assert c.match.sq["b3"]["dmg"] == 1500 and c.match.battle is None


def test_603_1c_a_charge_excess_owed_after_the_damage_closes_the_step_its_passes_left_out():
    """Nothing owed in the step: the `charge_excess` is the one the battle damage makes owed, its trailing
    passes left out (digest.7: it was refused in the step, 905, and asked for again at the next record,
    905: so a pass of P2's written as P1's, not applied since, gave three findings)."""
    charge_4_p2 = [{"do": "effect", "by": "P1", "source": "b1", "op": "move", "card": c, "owner": "P2", "from": z,
                    "to": "charge"} for c, z in (("U01-002", "hand"), ("U01-014", "hand"), ("U01-011", "life"),
                                                  ("U01-013", "life"))]
    excess = {"do": "charge_excess", "by": "P2", "trash": ["U01-001"]}  # U01-001 of a2, destroyed: 5 in Charge
    c = run([*BOARD, *charge_4_p2, ATTACK_A2, PASS1, excess, {"do": "end", "by": "P1"}])
    assert c.match.sq["a2"] is None and "U01-001" in c.match.p["P2"]["trash"]
    assert len(c.match.p["P2"]["charge"]) == 4
    recs = [*BOARD, *charge_4_p2, ATTACK_A2, PASS1, PASS1, excess, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("603.1b", line_of(recs, len(recs) - 3))]
    assert len(c.match.p["P2"]["charge"]) == 4
    # one owed before the battle and written late, after the attack, still keeps the step open: its passes
    # are the step's, not charged
    late = [*BOARD, *charge_4_p2, {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}, PASS1, PASS2,
            {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, excess, PASS1, PASS2]
    assert "603.1b" not in [v.rule for v in run(late, strict=False).violations]


def test_603_1c_event_after_a_charge_excess_resolves_before_the_damage():
    # P1's Event after the Charge Excess boosts the attacker in the step: 1500 + 3000 destroys U01-003,
    # and the boost ends with the battle (605.5) instead of outliving it
    boost = [{"do": "play", "by": "P1", "card": "R01-014", "pay": []},
             {"do": "effect", "by": "P1", "source": "R01-014", "op": "power", "square": "b2", "delta": 3000,
              "until": "end_of_battle"}]
    for tail in ([PASS2, PASS1], []):  # the closing passes written, or left out
        c = run([*EXCESS_IN_STEP, *boost, *tail, {"do": "end", "by": "P1"}])
        (ended,) = events(c, "BattleEnded")
        assert ended.outcome == "destroyed" and c.match.sq["b3"] is None
        assert c.match.sq["b2"]["mods"] == []


def test_603_1c_reload_in_the_step_keeps_it_open():
    from collections import Counter

    from zx_events.games.zx.decks import deck_by_name

    used = Counter(BOARD[1]["hand"] + BOARD[1]["life"] + BOARD[1]["resource"] + BOARD[8]["cards"])
    rest = sorted((Counter(deck_by_name("Blue Control").deck) - used).elements())
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1,
            {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "draw", "cards": rest},
            {"do": "reload", "by": "P2", "life": "U01-005"}]
    err = rejects([*recs, PASS2], "603.1b", line_of(recs, len(recs)))
    assert err.message == "P2 passes without priority (P1 has it)"
    c = run([*recs, PASS1, PASS2])
    assert c.match.sq["b3"]["dmg"] == 1500 and c.match.p["P2"]["charge"] == ["U01-005"]


def test_604_2_attacker_left_square_nothing_happens():
    recs = [*BOARD, ATTACK_A2, PASS1, {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "destroy", "square": "b2"}, PASS1, PASS2]
    c = run(recs)
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "fizzled"
    assert c.match.sq["a2"]["dmg"] == 0
    assert "R01-001" in c.match.p["P1"]["charge"]


def test_604_3a_target_left_square_nothing_happens():
    recs = [*BOARD, ATTACK_A2, PASS1, {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "move", "square": "a2", "from": "square",
             "to": "hand", "owner": "P2"}, PASS1, PASS2]
    c = run(recs)
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "fizzled"
    assert c.match.p["P2"]["hand"].count("U01-001") == 1


def test_604_3a_damage_equal_to_power_destroys_to_charge():
    c = run([*BOARD, ATTACK_A2, PASS1, PASS2])
    assert c.match.sq["a2"] is None
    assert c.match.p["P2"]["charge"] == ["U01-001"]


def test_604_3a_damage_below_power_survives_and_resets_in_end_phase():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2]
    c = run(recs)
    assert c.match.sq["b3"]["dmg"] == 1500
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "survived"
    c = run([*recs, {"do": "end", "by": "P1"}])
    assert c.match.sq["b3"]["dmg"] == 0  # 507


def test_604_3b_player_attack_deals_one_damage_a_life_card():
    recs = [*BOARD, ATTACK_A2, PASS1, PASS2,
            {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}]
    rejects(recs, "602.1b")  # a2 is now empty: not a target
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"},
            {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2,
            {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2,
            {"do": "life", "by": "P2", "card": "U01-005"}]
    c = run(recs)
    assert len(c.match.p["P2"]["life"]) == 3
    assert c.match.p["P2"]["charge"] == ["U01-003", "U01-005"]
    ended = events(c, "BattleEnded")
    assert [e.outcome for e in ended] == ["destroyed", "player_damaged"]


def test_604_3b_missing_life_record_is_a_violation():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"},
            {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2,
            {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2,
            {"do": "end", "by": "P1"}]
    rejects(recs, "604.3b", line_of(recs, len(recs) - 1))


OVERBOOST_P2 = [
    {"do": "end", "by": "P1"},
    {"do": "turn", "by": "P2"},
    {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
    {"do": "effect", "by": "P2", "source": "PL-002", "op": "overboost", "square": "c3", "upper": "EX-U04"},
    {"do": "end", "by": "P2"},
    {"do": "turn", "by": "P1"},
    {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-013"]},
]


def test_604_3c_202_7e_no_attack_on_a_player_with_an_overboost():
    # destroy the Z/X on b3 first, then P2 joins an Overboost: b3 is empty but not a target
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"},
            {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2, *OVERBOOST_P2,
            {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}]
    rejects(recs, "202.7e", line_of(recs, len(recs) - 1))


def test_604_3c_a_life_card_after_a_battle_an_overboost_kept_from_damaging_is_604_3c():
    """P2 joins an Overboost in the Battle Event Step of an attack on him: 604.3c, no damage is dealt. His Life card
    written after it is refused for that clause ("no damage is dealt to P2"), not 604.3b ("no damage ... waiting")."""
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"},
            {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2,  # b3 empty now
            {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1,
            {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "overboost", "square": "c3", "upper": "EX-U04"},
            PASS1, PASS2]
    c = run(recs)
    assert len(c.match.p["P2"]["life"]) == 4 and c.match.battle is None
    recs = [*recs, {"do": "life", "by": "P2", "card": "U01-005"}, {"do": "end", "by": "P1"}]
    err = rejects(recs, "604.3c", line_of(recs, len(recs) - 2))
    assert err.message == "no damage is dealt to P2: P2 controls a Z/X Overboost on Square, so no Life card is due"
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("604.3c", line_of(recs, len(recs) - 2))]
    assert len(c.match.p["P2"]["life"]) == 4


def test_604_3d_target_moved_still_takes_the_damage():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1,
            {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "move", "square": "b3", "from": "square",
             "to": "square", "dest": "c3"}, PASS1, PASS2]
    c = run(recs)
    assert c.match.sq["b3"] is None
    assert c.match.sq["c3"]["code"] == "U01-003" and c.match.sq["c3"]["dmg"] == 1500


def test_605_5_until_end_of_battle_effects_end():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"},
            {"do": "play", "by": "P1", "card": "R01-014", "pay": []},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "power", "square": "b2", "delta": 3000,
             "until": "end_of_battle"},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "power", "square": "a1", "delta": 1000,
             "until": "end_of_turn"}, PASS2, PASS1]
    c = run(recs)
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "destroyed"  # 1500 + 3000 = 4500 into U01-003's 4500
    assert c.match.sq["b2"]["mods"] == []
    assert c.match.sq["a1"]["mods"] == [[1000, "end_of_turn"]]


# ---------------------------------------------------------------- the remaining clauses of 601-605
def test_602_1c_no_attacker_no_battle():
    # no Z/X of P1 on c1: neither 602.1a nor 602.1b can be chosen, the declaration is invalid
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "c1", "target": "c2"}]
    rejects(recs, "602.1a", line_of(recs, len(recs) - 1))
    c = run([*BOARD, {"do": "attack", "by": "P1", "from": "c1", "target": "c2"}], strict=False)
    assert events(c, "AttackDeclared") == [] and c.match.battle is None  # recorded, not applied


def test_602_1e_start_of_battle_abilities_resolve_as_effects():
    # "this card attacks": an ability's effect record right after the declaration, before priority
    recs = [*BOARD, ATTACK_A2, {"do": "effect", "by": "P1", "source": "b2", "op": "power", "square": "b2",
                                "delta": 1000, "until": "end_of_battle"}]
    c = run(recs + [PASS1, PASS2])
    assert c.match.sq["b2"]["mods"] == []  # expired with the battle (605.5)
    (dealt,) = events(c, "BattleDamageDealt")
    assert dealt.amount == 2500


def test_602_1f_602_1g_declaration_proceeds_to_the_battle_event_step():
    c = run([*BOARD, ATTACK_A2, {"do": "play", "by": "P1", "card": "R01-014", "pay": []}, PASS2,
             {"do": "effect", "by": "P1", "source": "R01-014", "op": "counter", "delta": 1}])
    # the log ends with the step open: it is closed as if both passed
    assert [type(e).__name__ for e in c.match.pending_events][-3:] == ["BattleDamageDealt", "ZXDestroyed",
                                                                      "BattleEnded"]


def test_603_1_events_and_extra_events_are_played_in_the_step():
    recs = [*BOARD, ATTACK_A2, {"do": "play", "by": "P1", "card": "EX-R02", "from": "dynamis",
                                "pay": ["R01-001", "R01-002"]}, PASS2, PASS1]
    c = run(recs)
    (ended,) = events(c, "BattleEnded")
    played = [e.card for e in events(c, "CardPlayed")]
    assert "EX-R02" in played and ended.outcome == "destroyed"


def test_604_1_rule_effects_before_damage():
    # damage from an effect in the step destroys the attacker before the Damage Step (lethal damage)
    recs = [*BOARD, ATTACK_A2, PASS1, {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "damage", "square": "b2", "amount": 1500}]
    c = run(recs, strict=True)
    destroyed = events(c, "ZXDestroyed")
    assert [d.square for d in destroyed][:1] == ["b2"]
    c = run([*recs, PASS1, PASS2])
    (ended,) = events(c, "BattleEnded")
    assert ended.outcome == "fizzled"  # 604.2: the attacker is gone


def test_604_4_then_605_the_battle_ends():
    c = run([*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2])
    names = [type(e).__name__ for e in c.match.pending_events]
    assert names[-2:] == ["BattleDamageDealt", "BattleEnded"] and c.match.battle is None


def test_605_1_605_3_rule_effects_in_the_end_step():
    # a destroyed target brings P2's Charge above 4: the Charge Excess is owed before anything else
    from games.zx.test_zones import charge_five

    recs = [*charge_five()[:-1], ATTACK_A2, PASS1, PASS2, {"do": "end", "by": "P1"}]
    err = rejects(recs, "905", line_of(recs, len(recs) - 1))
    assert "holds 5 cards" in err.message


def test_605_2_605_4_605_6_the_battle_ends_only_when_nothing_is_owed():
    from games.zx.test_turn import PLAYER_HIT

    recs = [*PLAYER_HIT, {"do": "life", "by": "P2", "card": "U01-011", "ignite": {"square": "c3"}}]
    c = run(recs)
    assert c.match.battle is not None and c.match.battle["triggers"] == ["recover:P2"]  # Life Recovery owed
    c = run([*recs, {"do": "effect", "by": "P2", "source": "U01-011", "op": "recover", "card": "U01-009"}])
    assert c.match.battle is None
    assert [e.outcome for e in events(c, "BattleEnded")][-1] == "player_damaged"


# ---------------------------------------------------------------------- an owed record left out (lenient)
DESTROY_B3 = [{"do": "play", "by": "P1", "card": "R01-014", "pay": []},  # b3 emptied: P2's Player Square
              {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "b3"}]
ON_PLAYER = [{"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2]  # P2 owes a Life card
SECOND = [{"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"], "square": "c2"},
          {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2]  # Range 2: P2 again


def test_604_3b_a_life_card_left_out_is_one_violation_and_the_battle_ends():
    """An accepted violation of the owed Life card ends the battle (605) as a waived trigger does: the
    next battle of the turn is declared, and its own Life card is owed and met."""
    recs = [*BOARD, *DESTROY_B3, *ON_PLAYER, *SECOND, {"do": "life", "by": "P2", "card": "U01-011"},
            {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    (v,) = c.violations
    assert (v.rule, v.line) == ("604.3b", line_of(recs, len(BOARD) + 5))
    assert v.message == "P2 takes 1 damage: a life record for P2 is due, got a play record"
    names = [type(e).__name__ for e in c.match.pending_events]
    i = names.index("ViolationRecorded")
    assert names[i + 1:i + 3] == ["BattleEnded", "CardPlayed"]  # stored: the battle ended, then the play
    assert names.count("BattleEnded") == 2 and names.count("LifeDamaged") == 1
    assert c.match.battle is None and c.match.p["P2"]["life"] == ["U01-013", "U01-005", "U01-006"]


def test_604_3b_a_life_record_that_cannot_be_applied_stands_for_the_life_card_owed():
    # U01-011 is played from Life onto P1's Player Square (806, not applied): no second violation follows
    recs = [*BOARD, *DESTROY_B3, *ON_PLAYER,
            {"do": "life", "by": "P2", "card": "U01-011", "ignite": {"square": "b1"}}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("806", line_of(recs, len(recs) - 2))]
    assert c.match.battle is None and c.match.phase == "over"


def test_604_3b_a_waived_life_card_is_owed_by_its_battle_only_from_digest_4():
    """The waiver ends with its battle in the state's own handler (digest.4): a match imported under
    digest.3 replays with it kept, as it was checked then."""
    import copy

    from zx_events.ids import project

    recs = [*BOARD, *DESTROY_B3, *ON_PLAYER, *SECOND]
    events = copy.deepcopy(list(run(recs, strict=False).match.pending_events))
    assert project(None, copy.deepcopy(events)).waived == []
    events[0].__dict__["rules_version"] = "zx-cr-seed-2026.11+digest.3"
    assert project(None, events).waived == ["life:P2"]


def test_1102_an_attack_while_life_recovery_is_owed_breaks_that_obligation():
    recs = [*BOARD, *DESTROY_B3, *ON_PLAYER,
            {"do": "life", "by": "P2", "card": "U01-011", "ignite": {"square": "a3"}},  # IG/LR, onto a3
            {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}]
    err = rejects(recs, "1102", line_of(recs, len(recs) - 1))
    assert err.message.endswith("an effect record (recover) by P2 is due, got an attack record")


def test_1103_an_attack_while_void_bringer_is_owed_breaks_that_obligation():
    vb = {**BOARD[1], "life": ["U01-016", "U01-013", "U01-005", "U01-006"]}  # U01-016: an IG/VB Event
    recs = [BOARD[0], vb, *BOARD[2:], *DESTROY_B3, *ON_PLAYER,
            {"do": "life", "by": "P2", "card": "U01-016", "ignite": {}},
            {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}]
    err = rejects(recs, "1103", line_of(recs, len(recs) - 1))
    assert err.message.endswith("(move from square to trash) by P2 is due, got an attack record")
    c = run([*recs, PASS1, PASS2], strict=False)
    assert [v.rule for v in c.violations] == ["1103"] and c.match.sq["a2"] is None


def test_603_1_604_3b_a_startup_ability_in_the_battle_damage_step_breaks_the_life_obligation():
    """603.1: abilities are played in the Battle Event Step; in the Damage Step a Life card is owed first, and a
    startup ability there breaks that obligation as an Event does (it was accepted)."""
    startup = {"do": "effect", "by": "P1", "source": "b2", "op": "counter", "delta": 1, "startup": True}
    recs = [*BOARD, *DESTROY_B3, *ON_PLAYER, startup]
    err = rejects(recs, "604.3b", line_of(recs, len(recs) - 1))
    assert err.message == ("P2 takes 1 damage: a life record for P2 is due, got a startup ability (effect record "
                           "with startup: true)")
    c = run([*recs, {"do": "end", "by": "P1"}], strict=False)
    assert [v.rule for v in c.violations] == ["604.3b"] and c.match.battle is None
    # a step of a resolution still comes between, as before
    step = {k: v for k, v in startup.items() if k != "startup"}
    run([*BOARD, *DESTROY_B3, *ON_PLAYER, step, {"do": "life", "by": "P2", "card": "U01-011"}])


def test_1103_a_destroy_does_not_meet_an_owed_void_bringer():
    """The Void Bringer puts a card on Square into Trash; a destroy sends a Z/X to Charge (1007). It may be a
    step that comes first (this IG/VB Event resolves before its Void Bringer), so it is applied, the Void Bringer
    stays owed, and the record that breaks it names the destroy."""
    vb = {**BOARD[1], "life": ["U01-016", "U01-013", "U01-005", "U01-006"]}
    destroy = {"do": "effect", "by": "P2", "source": "U01-016", "op": "destroy", "square": "a1"}
    recs = [BOARD[0], vb, *BOARD[2:], *DESTROY_B3, *ON_PLAYER,
            {"do": "life", "by": "P2", "card": "U01-016", "ignite": {}}, destroy, {"do": "end", "by": "P1"}]
    err = rejects(recs, "1103", line_of(recs, len(recs) - 1))
    assert err.message == (f"Void Bringer of P2 triggered: an effect record (move from square to trash) by P2 is "
                           f"due, got an end record (the destroy at line {line_of(recs, len(recs) - 2)} does not "
                           f"meet it: a destroyed Z/X goes to Charge, 1007)")
    rejects([*recs[:-2], {**destroy, "source": "b3", "startup": True}], "1103", line_of(recs, len(recs) - 2))
    move = {"do": "effect", "by": "P2", "source": "U01-016", "op": "move", "square": "b2", "from": "square",
            "to": "trash", "owner": "P1"}
    m = run([*recs[:-1], move, recs[-1]]).match
    assert m.p["P1"]["charge"] == ["R01-002"] and "R01-001" in m.p["P1"]["trash"] and m.phase == "over"


def _cleared_b3() -> list[dict]:
    return [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"}, {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2]


def test_603_1b_the_passes_of_an_attack_refused_are_checked_for_their_order():
    """The passes after an attack refused were skipped unchecked: the defender's first is now 603.1b (the attacker
    has priority), and the attacker's pass after it is the battle's first."""
    cleared = _cleared_b3()
    recs = [*cleared, {"do": "attack", "by": "P1", "from": "b2", "target": "a1"}, PASS2, PASS1,
            {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("602.1b", line_of(recs, len(cleared))),
                                                        ("603.1b", line_of(recs, len(cleared) + 1))]


def test_603_1b_the_passes_and_life_card_of_an_attack_left_out_are_one_finding():
    """The attack left out: each pass was 603.1b ('pass outside a Battle Event Step') and the Life card 604.3b, and P2
    kept it. Now the first pass is the one 603.1b, the defender's pass and Life card after it are that battle's."""
    cleared = _cleared_b3()
    recs = [*cleared, PASS1, PASS2, {"do": "life", "by": "P2", "card": "U01-005"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("603.1b", line_of(recs, len(cleared)))]
    assert sorted(c.match.p["P2"]["life"]) == ["U01-006", "U01-011", "U01-013"]


def test_602_1_an_attack_after_the_end_phase_takes_its_passes_with_it():
    """An attack after the End Phase is one 602.1, not applied; its passes were then 603.1b each."""
    recs = [*BOARD, {"do": "end", "by": "P1"}, ATTACK_A2, PASS1, PASS2, {"do": "turn", "by": "P2"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("602.1", line_of(recs, len(BOARD) + 1))]


def test_603_1b_a_pass_under_the_wrong_seat_is_the_one_finding():
    """P1's pass written as P2's: 603.1b, not applied; P2's own pass after it was 603.1b again (P1 still had
    priority). A pass refused and then one by the same player: the first was the other player's, applied as his."""
    recs = [*BOARD, ATTACK_A2, PASS2, PASS2, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("603.1b", line_of(recs, len(BOARD) + 1))]
    assert c.match.battle is None and c.match.sq["a2"] is None


def test_501_3_an_end_written_after_the_next_turn_record_is_one_finding():
    """The end of P1's turn written after P2's turn record: 501.3 at the turn record ('has not ended'), and the end
    was 501.3 again, 'P1 ends a turn that is P2's'."""
    recs = [*BOARD, {"do": "turn", "by": "P2"}, {"do": "end", "by": "P1"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("501.3", line_of(recs, len(BOARD)))]


def test_501_3_an_end_under_the_wrong_seat_ends_the_turn_players_turn():
    """P1's end written as P2's: 501.3, skipped, and P2's turn record after it was 501.3 again ('turn 3 of P1 has not
    ended'). Only the turn player ends his turn: it is his end, one finding."""
    recs = [*BOARD, {"do": "end", "by": "P2"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("501.3", line_of(recs, len(BOARD)))]
    assert c.match.active == "P2"


def test_603_1b_the_attackers_pass_written_before_the_attack_is_its_first():
    """The attacker's pass written before his attack: 603.1b there (no battle), and the defender's pass after the
    attack was 603.1b again (the attacker had priority). Now that pass is the battle's first, one finding."""
    recs = [*BOARD, PASS1, ATTACK_A2, PASS2, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("603.1b", line_of(recs, len(BOARD)))]
    assert c.match.battle is None and c.match.sq["a2"] is None
