"""digest.7: a record that breaks a rule but can be applied as written is reported and applied (docs/audit.md),
so the other player's legal records after it are not charged; and the clause each such record is cited under
(docs/rules-x610z.md). Under digest.6 each of these records was skipped: the other player's pass after a
trigger or activation that never reached the stack was "201.3 passes without priority", and his whole turn
after an `end` that never ended the turn was 700.1."""

from __future__ import annotations

from x610z_builder import BATTLE, SETUP, T1, pp, r, refused, run
from test_x610z_triggers import HEAD, SETUP as T_SETUP, quiet_turn, storm_caller_on_e1


def audit(records: list[dict], head: dict | None = None):
    """Lenient mode (the audit, --accept-violations): the match and its violations as (line, player, rule)."""
    m, ref = run(records, head, strict=False)
    return m, [(v.line, v.player, v.rule) for v in ref.found]


def at(records: list[dict]) -> int:
    """The line of the last record (the header is line 1)."""
    return len(records) + 1


def watchtower_in_play() -> list[dict]:
    """Turn 5: P1 (two Mystic Crystals in play, a third now) casts Watchtower (C2, activation:3, "(activation symbol)
    C1: target summon gets Range +1") with M2; it resolves; M1 is left to pay an activation."""
    return T_SETUP + quiet_turn("P1") + quiet_turn("P2") + quiet_turn("P1") + quiet_turn("P2") + [
        r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-010"),
        r("energy", "P1", crystal="A1-010"), r("energy", "P1", crystal="A1-010"),
        r("cast", "P1", card="A1-050", pay={"M": 2}), r("pass", "P2"), r("pass", "P1"),
        r("energy", "P1", crystal="A1-010")]


# ---------------------------------------------------------------------- applied as played (digest.7)
def test_x610z_402_10h_a_trigger_without_a_triggered_ability_is_applied_and_the_passes_after_it_are_legal():
    recs = storm_caller_on_e1() + [r("trigger", "P1", source="S1", target="S4")]
    m, found = audit(recs + [r("pass", "P2"), r("pass", "P1"), r("end", "P1")], HEAD)
    assert found == [(at(recs), "P1", "402.10h")]  # (P2's pass was 201.3)
    assert m.violations[0]["applied"] is True and m.stack == []


def test_x610z_403_4_an_activation_of_a_crystal_with_no_effect_is_applied_and_the_passes_after_it_are_legal():
    recs = T_SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-011"), r("crystal", "P1", card="A1-011"),
                      r("activate", "P1", effect="A1-011", pay={})]
    m, found = audit(recs + [r("pass", "P2"), r("pass", "P1"), r("end", "P1")], HEAD)
    assert found == [(at(recs), "P1", "403.4")]
    assert m.perms[0]["act"] is True  # activated as the record says


def test_x610z_207_6_an_activation_of_an_effect_without_a_symbol_is_applied_and_the_passes_after_it_are_legal():
    """Swift Boots (a permanent Summon Effect, no activated effect) fixed on P1's Sky Vessel, then activated:
    207.6, the activation on the stack as played (its payment spent as logged: there is no cost to check)."""
    boots = BATTLE + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-040", target="B1", pay={"B": 1})] \
        + pp("P1") + [r("activate", "P1", effect="A1-040", pay={})]
    m, found = audit(boots + pp("P1") + [r("end", "P1")])
    assert found == [(at(boots), "P1", "207.6")]  # (P2's pass was 201.3, P1's movement after it too)
    refused(boots, "207.6", contains="Swift Boots has no activation symbol")


def test_x610z_209_2a_an_activation_with_no_counter_left_is_applied_and_209_2c_then_discards_it():
    recs = watchtower_in_play() + [
        r("effect", "P1", source="A1-050", op="counter", object="A1-050", kind="activation", delta=-3),
        r("activate", "P1", effect="A1-050", target="S1", pay={"M": 1})]
    m, found = audit(recs + [r("pass", "P2"), r("pass", "P1"), r("end", "P1")], HEAD)
    assert found == [(at(recs), "P1", "209.2a")]
    assert "A1-050" in m.p["P1"]["discard"] and not [p for p in m.perms if p["code"] == "A1-050"]  # 209.2c


def test_x610z_402_10f_an_ability_the_summon_does_not_have_is_applied_and_the_passes_after_it_are_legal():
    recs = BATTLE + [r("ability", "P1", summon="B1", kind="activated", pay={})]
    _, found = audit(recs + pp("P1") + [r("end", "P1")])
    assert found == [(at(recs), "P1", "402.10f")]


def test_x610z_200_1b_an_energy_crystal_cast_with_a_cast_record_is_applied_as_a_crystal_record():
    """Its energy is then there to add, and P2's turn is his (it was skipped: 500.1 at the energy record,
    200.5 at the payment with it, and so on for the rest of the match)."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("cast", "P1", card="A1-010", pay={})]
    rest = [r("energy", "P1", crystal="A1-010"), r("cast", "P1", card="A1-031", pay={"M": 1})] + pp("P1") + [
        r("effect", "P1", source="A1-031", op="draw", cards=["A1-010", "A1-010"]), r("end", "P1", discard=["A1-010"]),
        r("turn", "P2"), r("draw", "P2", card="A1-010"), r("crystal", "P2", card="A1-010"), r("end", "P2")]
    m, found = audit(recs + rest)
    assert found == [(at(recs), "P1", "200.1b")]
    assert [(p["code"], p["kind"], p["owner"]) for p in m.perms] == [("A1-010", "crystal", "P1"), ("A1-010", "crystal", "P2")]
    refused(recs, "200.1b", contains="it is cast with a crystal record")


def test_x610z_502_5_a_discard_not_in_hand_ends_the_turn_and_the_next_turn_is_legal():
    """P1 holds 8 cards and names one he does not hold, nor his deck list: nothing is discarded for it, and his turn
    ends (the whole `end` was skipped: P2's turn 2 was 700.1 "turn 1 has not ended", 702.1, 403.2 ...). (A card of his
    deck list is discarded as written, for a card of the hand the log does not name: digest.9, test_x610z_one_finding.)"""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-025"])]
    m, found = audit(recs + [r("turn", "P2"), r("draw", "P2", card="A1-010"), r("crystal", "P2", card="A1-010"),
                             r("end", "P2")])
    assert found == [(at(recs), "P1", "502.5")]
    assert m.turn == 2 and len(m.p["P1"]["hand"]) == 8 and m.p["P1"]["discard"] == []
    err = refused(recs, "502.5")
    assert err.message == "A1-025 not in P1's hand: nothing is discarded for it (the active player discards from his hand)"


def test_x610z_214_2_a_move_of_the_other_players_summon_fizzles_and_leaves_it_as_it_was():
    """P1 moves P2's Sky Vessel (B5): 214.2 (it was 202.1, the active player's rule, and P1 is the active
    player); the movement goes on the stack naming no summon, P2 passes with priority, and it fizzles."""
    recs = BATTLE + [r("energy", "P1", crystal="A1-011"), r("move", "P1", **{"from": "B5"}, path=["E5"], pay={"B": 1})]
    before = dict(run(BATTLE)[0].dots["B5"])
    m, found = audit(recs + pp("P1") + [r("end", "P1")])
    assert found == [(at(recs), "P1", "214.2")]  # (P2's pass was 201.3)
    assert m.dots["B5"] == before and "E5" not in m.dots
    err = refused(recs, "214.2")
    assert err.message == "the summon on B5 is controlled by P2, not P1: only its controller uses it"


def test_x610z_214_2_an_attack_with_the_other_players_summon_fizzles():
    recs = BATTLE + [r("attack", "P1", **{"from": "B5"}, target="B1", path=["A5", "A1", "B1"])]
    m, found = audit(recs + pp("P1") + [r("end", "P1")])
    assert [f for f in found if f[1] == "P2"] == [] and found[0] == (at(recs), "P1", "214.2")
    assert m.dots["B1"]["dmg"] == 0 and m.dots["B5"]["attacks"] == 0


def test_x610z_200_4_an_activation_whose_target_is_not_there_is_applied_and_fizzles():
    """Watchtower's activated effect targets a summon; its card type names no target (an Effect), so a
    target that is not there is 200.4 (it was 200.3, which asks only that the target be declared)."""
    recs = watchtower_in_play() + [r("activate", "P1", effect="A1-050", target="A3", pay={"M": 1})]
    m, found = audit(recs + [r("pass", "P2"), r("pass", "P1"), r("end", "P1")], HEAD)
    assert found == [(at(recs), "P1", "200.4")]
    assert [p["counters"] for p in m.perms if p["code"] == "A1-050"] == [{"activation": 2}]
    effect = r("effect", "P1", source="A1-050", op="stat", dot="S1", stat="range", delta=1, until="end_of_turn")
    _, found = audit(recs + [r("pass", "P2"), r("pass", "P1"), effect], HEAD)
    assert found == [(at(recs), "P1", "200.4"), (at(recs) + 3, "P1", "503.1")]  # it fizzled: no effect from it
    refused(recs, "200.4", head=HEAD, contains="no summon on A3 to target")


def test_x610z_401_2a_a_cast_whose_target_is_not_there_is_applied_and_fizzles():
    recs = T1 + [r("cast", "P1", card="A1-040", target="A3", pay={"B": 1})]
    m, found = audit(recs + pp("P1") + [r("end", "P1")])
    assert found == [(at(recs), "P1", "401.2a")]
    assert "A1-040" in m.p["P1"]["discard"] and m.perms[-1]["code"] != "A1-040"  # fizzled (208.5, 200.4)


# ---------------------------------------------------------------------- the clause each record is cited under
def test_x610z_200_1b_an_energy_crystal_card_is_cast_from_hand():
    refused(SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-012")], "200.1b",
            contains="A1-012 is not in P1's hand")


def test_x610z_212_1_a_draw_is_from_the_deck():
    refused(SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-033")], "212.1", contains="A1-033 is not in P1's deck")
    refused(T1 + [r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1")
            + [r("effect", "P1", source="A1-031", op="draw", cards=["A1-010", "A1-033"])], "212.1",
            contains="A1-033 not in P1's deck")


def test_x610z_203_3_energy_comes_from_a_crystal_the_player_controls():
    refused(T1 + [r("energy", "P1", crystal="A1-010")], "203.3", contains="P1 controls no A1-010 in play")


def test_x610z_202_2_a_move_starts_from_a_dot_with_a_summon():
    refused(BATTLE + [r("move", "P1", **{"from": "A3"}, path=["A4"], pay={})], "202.2", contains="no summon on A3 to move")


def test_x610z_202_3_an_attack_is_made_from_a_dot_with_a_summon():
    refused(BATTLE + [r("attack", "P1", **{"from": "A3"}, target="B5", path=["A4", "A5", "B5"])], "202.3",
            contains="no summon on A3 to attack with")


def test_x610z_202_1_a_reactive_players_move_is_still_202_1():
    """202.1 stays for what it says: only the active player moves and attacks."""
    recs = BATTLE + [r("move", "P2", **{"from": "B5"}, path=["E5"], pay={})]
    refused(recs, "202.1", contains="only the active player")

