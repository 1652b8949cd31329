"""Triggers (207.4, 402.10h) and crystal activations (403.4), digest.6: a `trigger` comes from a card in play,
on the stack or resolving, a summon's from one with a triggered ability, and fizzles when its source has left
play (210.4); an Energy Crystal whose only effect is its energy is not `activate`d."""

from __future__ import annotations

import pytest

from x610z_builder import header, r, refused, run

DECK = {"A1-001": 1, "A1-010": 17, "A1-011": 10, "A1-013": 2, "A1-020": 3, "A1-021": 3, "A1-023": 3, "A1-030": 3,
        "A1-050": 2, "A1-034": 2, "A1-035": 2, "A1-024": 3}
HEAD = header(players={"P1": {"name": "a", "deck": dict(DECK)}, "P2": {"name": "b", "deck": dict(DECK)}})
P1_HAND = ["A1-024", "A1-050", "A1-020", "A1-021", "A1-030", "A1-035", "A1-034"]
P2_HAND = ["A1-023", "A1-050", "A1-020", "A1-021", "A1-030", "A1-035", "A1-034"]
SETUP = [r("setup", "P1", dot="S1", hand=P1_HAND), r("setup", "P2", dot="S4", hand=P2_HAND)]


def quiet_turn(pl: str) -> list[dict]:
    return [r("turn", pl), r("draw", pl, card="A1-010"), r("crystal", pl, card="A1-010"), r("end", pl)]


def storm_caller_on_e1() -> list[dict]:
    """Turn 5: P1 (two Mystic Crystals in play, a third now) casts Storm Caller (M1C1, a triggered ability:
    "When this summon is cast: deal 1 damage to target summon") onto E1; it resolves."""
    return SETUP + quiet_turn("P1") + quiet_turn("P2") + quiet_turn("P1") + quiet_turn("P2") + [
        r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-010"),
        r("energy", "P1", crystal="A1-010"), r("energy", "P1", crystal="A1-010"),
        r("cast", "P1", card="A1-024", dot="E1", pay={"M": 2}), r("pass", "P2"), r("pass", "P1")]


def damage(by: str, source: str, dot: str, amount: int) -> dict:
    return r("effect", by, source=source, op="damage", dot=dot, amount=amount)


def test_x610z_402_10h_storm_callers_trigger_deals_its_damage():
    """The legal case: the trigger of Storm Caller on E1 resolves and deals 1 damage to P2's Life Base."""
    m, ref = run(storm_caller_on_e1() + [r("trigger", "P1", source="E1", target="S4"), r("pass", "P2"),
                                         r("pass", "P1"), damage("P1", "E1", "S4", 1)], HEAD)
    assert ref.found == [] and m.dots["S4"]["dmg"] == 1


@pytest.mark.parametrize("source", ["E1", "A1-024"])
def test_x610z_210_4_a_trigger_whose_summon_left_play_deals_no_damage(source):
    """P2 answers the trigger with Bullseye (+M1: 3 damage) on E1, which destroys Storm Caller (Defense 3); the
    trigger then resolves without its summon: its damage was accepted (the trigger counted as resolving)."""
    answered = storm_caller_on_e1() + [
        r("trigger", "P1", source=source, target="S4"), r("energy", "P2", crystal="A1-010"),
        r("energy", "P2", crystal="A1-010"), r("cast", "P2", card="A1-030", target="E1", additional=1, pay={"M": 2}),
        r("pass", "P1"), r("pass", "P2"), damage("P2", "A1-030", "E1", 3), r("pass", "P1"), r("pass", "P2")]
    m, ref = run(answered, HEAD)
    assert ref.found == [] and "E1" not in m.dots and "A1-024" in m.p["P1"]["discard"]
    err = refused(answered + [damage("P1", source, "S4", 1)], "210.4", head=HEAD)
    assert err.message.endswith("is neither in play nor resolving (it fizzled: its effect does not take place)")


@pytest.mark.parametrize("card, where", [("A1-030", "in P2's hand"), ("A1-024", "in no deck of P2")])
def test_x610z_500_1_a_trigger_names_a_card_in_play_on_the_stack_or_resolving(card, where):
    """A code was never looked up: P2 triggered a Bullseye from his hand, or a Storm Caller he does not play,
    and its 10 damage destroyed P1's Life Base (a result P2 life_base, accepted)."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-010"),
                    r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-010"),
                    r("trigger", "P2", source=card, target="S1")]
    no_storm_caller = {**{k: v for k, v in DECK.items() if k != "A1-024"}, "A1-011": DECK["A1-011"] + 3}
    head = HEAD if card == "A1-030" else header(players={"P1": {"name": "a", "deck": dict(DECK)},
                                                        "P2": {"name": "b", "deck": no_storm_caller}})
    err = refused(recs, "500.1", head=head)
    assert err.message == (f"{card} is not in play, on the stack or resolving for P2: a triggered effect comes from "
                           f"a card there (207.4, 503.1)"), where
    _, ref = run(recs + [r("pass", "P1"), r("pass", "P2"), damage("P2", card, "S1", 10)], head, strict=False)
    # the audit puts the trigger on the stack as nothing (digest.8), so P1's pass is legal (it was 201.3), and the damage
    # is refused: the trigger fizzled
    assert [v.rule for v in ref.found] == ["500.1", "210.4"]


def test_x610z_402_10h_a_summon_without_a_triggered_ability_does_not_trigger():
    """Storm Caller has a triggered ability; a summon whose card has none (P1's Life Base on S1) named as a
    trigger's source is 402.10h (it was accepted: only its controller was checked)."""
    err = refused(storm_caller_on_e1() + [r("trigger", "P1", source="S1", target="S4")], "402.10h", head=HEAD)
    assert err.message == "Life Base has no triggered ability"


def test_x610z_403_4_a_crystal_whose_only_effect_is_its_energy_is_not_activated():
    """A Boost Crystal ("Activate: add B1") activated, then its "effect" drawing 2 cards: accepted, as every
    crystal was exempt from 207.6. Its energy is added by an `energy` record (or a payment)."""
    turn = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-011"), r("crystal", "P1", card="A1-011")]
    err = refused(turn + [r("activate", "P1", effect="A1-011", pay={})], "403.4", head=HEAD)
    assert err.message == ("Boost Crystal has no effect besides its energy: it is activated for its energy by an "
                           "energy record or a payment")
    m, ref = run(turn + [r("energy", "P1", crystal="A1-011")], HEAD)
    assert ref.found == [] and m.p["P1"]["pool"] == {"B": 1}


@pytest.mark.parametrize("source", ["E1", "A1-024"])
def test_x610z_210_4_a_fizzled_trigger_deals_no_damage_when_another_summon_stands_on_its_dot(source):
    """The trigger's Storm Caller is destroyed and P1 casts a second one onto E1 before the trigger resolves: the
    trigger fizzled, but its damage "from E1" (or "from A1-024") was accepted, the second summon standing there."""
    base = SETUP + quiet_turn("P1") + quiet_turn("P2") + quiet_turn("P1") + quiet_turn("P2") + quiet_turn("P1") \
        + quiet_turn("P2") + [r("turn", "P1"), r("draw", "P1", card="A1-024"), r("end", "P1", discard=["A1-050"])] \
        + quiet_turn("P2") + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-010"),
                              r("energy", "P1", crystal="A1-010"), r("energy", "P1", crystal="A1-010"),
                              r("cast", "P1", card="A1-024", dot="E1", pay={"M": 2}), r("pass", "P2"), r("pass", "P1")]
    recast = base + [
        r("trigger", "P1", source=source, target="S4"), r("energy", "P2", crystal="A1-010"),
        r("energy", "P2", crystal="A1-010"), r("cast", "P2", card="A1-030", target="E1", additional=1, pay={"M": 2}),
        r("pass", "P1"), r("pass", "P2"), damage("P2", "A1-030", "E1", 3),
        r("energy", "P1", crystal="A1-010"), r("energy", "P1", crystal="A1-010"),
        r("cast", "P1", card="A1-024", dot="E1", pay={"M": 2}), r("pass", "P2"), r("pass", "P1"),
        r("pass", "P1"), r("pass", "P2")]
    m, ref = run(recast, HEAD)
    assert ref.found == [] and m.dots["E1"]["code"] == "A1-024"  # the second Storm Caller
    refused(recast + [damage("P1", source, "S4", 1)], "210.4", head=HEAD, contains="(it fizzled")


def test_x610z_704_6_a_trigger_after_everyone_passed_keeps_the_end_phase_until_it_resolved():
    """704.6: the End Phase "and with it the turn ends when there is no stack and no player announces an action"; a
    trigger uses the stack when it triggers, in every phase (200.1a, Table 1). Storm Caller's trigger logged after
    both players passed in the End Phase was accepted onto the stack of a phase already over: each pass to resolve
    it was 704.6, and so was the `end` (with the trigger left on the stack)."""
    closed = storm_caller_on_e1() + [r("pass", "P1"), r("pass", "P2"), r("pass", "P2"), r("pass", "P1")]
    m, _ = run(closed, HEAD)
    assert (m.phase, m.prio) == ("closed", None)
    recs = closed + [r("trigger", "P1", source="E1", target="S4"), r("pass", "P2"), r("pass", "P1"),
                     damage("P1", "E1", "S4", 1)]
    m, ref = run(recs, HEAD)
    assert ref.found == [] and (m.phase, m.prio, m.stack) == ("end", "P2", []) and m.dots["S4"]["dmg"] == 1
    m, ref = run(recs + [r("end", "P1")], HEAD, strict=False)
    assert ref.found == [] and m.phase == "over"
    refused(closed + [r("cast", "P2", card="A1-030", pay={}, target="E1")], "704.6", head=HEAD)  # (a cast still is)
