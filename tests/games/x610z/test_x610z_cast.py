"""Casting, targets, permanents, Class restriction, abilities and counters (206-209, 401-402)."""

from x610z_builder import P1_DECK, SETUP, T1, header, legal, pp, r, refused, run
from test_x610z_energy import gain

RICH = dict(P1_DECK, **{"A1-010": 9, "A1-023": 3, "A1-033": 3, "A1-034": 2, "A1-035": 3, "A1-012": 1})


def rich() -> dict:
    h = header()
    h["players"]["P1"]["deck"] = dict(RICH)
    return h


def fetch(*codes) -> list[dict]:
    return [r("effect", "P1", source="S1", op="search", card=c) for c in codes]


def test_x610z_206_1a_permanent_by_the_reactive_player():
    refused(T1 + [r("cast", "P2", card="A1-022", pay={}, dot="E4")], "206.1a")


def test_x610z_402_6_summon_on_its_starting_dot_or_an_ending_dot():
    refused(T1 + [r("cast", "P1", card="A1-022", pay={}, dot="A1")], "402.6")


def test_x610z_600_5_one_summon_per_dot():
    """An effect places no summon on a taken dot (a cast summon's dot counts when the cast resolves: the
    two tests below)."""
    place = r("effect", "P1", source="S1", op="place", card="A1-022", dot="S1", **{"from": "hand"})
    refused(T1 + [place], "600.5", contains="occupied")


def test_x610z_402_6_a_summon_cast_onto_its_starting_dot_is_placed_if_it_is_free_when_the_cast_resolves():
    """P1 casts Sky Vessel onto his Starting Dot while his Life Base stands there, then moves the Life Base
    away before the cast resolves: 402.6 places the pawn when the cast has resolved (it was refused, 600.5)."""
    recs = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="S1"), r("pass", "P2"),
                 r("move", "P1", **{"from": "S1"}, path=["A1"], pay={"B": 1})] + pp("P1") + \
        [r("pass", "P1"), r("pass", "P2")]  # the move resolved: P1 has priority again (201.6)
    m = legal(recs)
    assert m.dots["S1"]["code"] == "A1-022" and m.dots["A1"]["life"] and m.stack == []


def test_x610z_200_4_a_summon_cast_onto_a_dot_still_taken_when_it_resolves_fizzles():
    m = legal(T1 + [r("cast", "P1", card="A1-022", pay={}, dot="S1")] + pp("P1"))
    assert m.dots["S1"]["life"] and "A1-022" in m.p["P1"]["discard"] and m.stack == []


def test_x610z_402_8_one_summon_of_a_class():
    recs = T1 + fetch("A1-022") + [r("cast", "P1", card="A1-022", pay={}, dot="E1")] + pp("P1") + \
        [r("cast", "P1", card="A1-022", pay={}, dot="E2")]
    refused(recs, "402.8", contains="Class Vessel")


def test_x610z_200_3_targeting_card_without_a_target():
    refused(T1 + [r("cast", "P1", card="A1-040", pay={"B": 1})], "200.3")


def test_x610z_401_2a_summon_effect_targets_a_summon():
    refused(T1 + [r("cast", "P1", card="A1-040", pay={"B": 1}, target="A1-011")], "401.2a")


def test_x610z_401_3a_class_specific_effect_targets_its_class():
    recs = T1 + fetch("A1-033") + gain("P1", M=1) + [r("cast", "P1", card="A1-033", pay={"M": 1}, target="S1")]
    refused(recs, "401.3a", head=rich(), contains="targets a Dragon")


def test_x610z_401_4a_energy_crystal_effect_targets_a_crystal():
    refused(T1 + fetch("A1-034") + [r("cast", "P1", card="A1-034", pay={"B": 1}, target="S1")], "401.4a", head=rich())
    m = legal(T1 + fetch("A1-034") + [r("cast", "P1", card="A1-034", pay={"B": 1}, target="A1-011")] + pp("P1"),
              head=rich())
    crystal = next(p for p in m.perms if p["code"] == "A1-011")
    assert next(p for p in m.perms if p["code"] == "A1-034")["on"] == crystal["uid"]


def test_x610z_401_5a_effect_effect_targets_an_effect():
    recs = T1 + fetch("A1-035") + [r("cast", "P1", card="A1-035", pay={"B": 1}, target="A1-011")]
    refused(recs, "401.5a", head=rich())


def dispel_on_the_stack() -> list[dict]:
    """Turn 1: P1 casts Discount (an Effect), P2 passes, P1 answers with Dispel ("Send target Effect to its owner's
    Discard Pile", an Effect Effect Card) on the Discount waiting on the stack."""
    return T1 + fetch("A1-035") + [r("effect", "P1", source="S1", op="energy", type="C", amount=1),
                                   r("cast", "P1", card="A1-031", pay={"B": 1}), r("pass", "P2"),
                                   r("cast", "P1", card="A1-035", pay={"C": 1}, target="A1-031")]


def test_x610z_401_5a_an_effect_effect_card_targets_an_effect_on_the_stack():
    """The glossary: "Effect: Any type of Effect Card in play or on the stack". Dispel on a Discount on the stack was
    "401.5a: no A1-031 in play to target", and its `zone` effect, which counters the Discount, 503.1 (fizzled)."""
    recs = dispel_on_the_stack() + pp("P1") + [
        r("effect", "P1", source="A1-035", op="zone", card="A1-031", to="discard", **{"from": "cast"})]
    m = legal(recs, head=rich())
    assert m.stack == [] and sorted(m.p["P1"]["discard"]) == ["A1-031", "A1-035"]  # (the Discount never resolved)


def test_x610z_208_5_an_effect_targeted_on_the_stack_that_left_it_fizzles_the_card():
    """Discount taken off the stack (back to P1's hand) before the Dispel on it resolves: the Dispel fizzles (208.5:
    its target "isn't in play anymore"), so it has no effect."""
    recs = dispel_on_the_stack() + [
        r("effect", "P1", source="S1", op="zone", card="A1-031", to="hand", **{"from": "cast"})] + pp("P1")
    m = legal(recs, head=rich())
    assert m.stack == [] and "A1-031" in m.p["P1"]["hand"] and "A1-035" in m.p["P1"]["discard"]
    refused(recs + [r("effect", "P1", source="A1-035", op="zone", card="A1-031", to="discard", **{"from": "hand"})],
            "503.1", head=rich(), contains="(it fizzled")


def test_x610z_207_5a_permanent_summon_effect_is_fixed_on_its_target():
    m = legal(T1 + [r("cast", "P1", card="A1-040", pay={"B": 1}, target="S1")] + pp("P1"))
    boots = next(p for p in m.perms if p["code"] == "A1-040")
    assert boots["on"] == m.dots["S1"]["uid"]


def test_x610z_208_2_a_permanent_effect_cast_on_an_opponents_summon_is_under_its_controller():
    """"it's put under the control of that Summon's / Energy Crystal's / Effect's controller": P1's Swift
    Boots on P2's Life Base is P2's to control (it stayed P1's), and P1's card all the same."""
    m = legal(T1 + [r("cast", "P1", card="A1-040", pay={"B": 1}, target="S4")] + pp("P1"))
    boots = next(p for p in m.perms if p["code"] == "A1-040")
    assert (boots["owner"], boots["ctrl"], boots["on"]) == ("P1", "P2", m.dots["S4"]["uid"])
    own = legal(T1 + [r("cast", "P1", card="A1-040", pay={"B": 1}, target="S1")] + pp("P1"))
    assert next(p for p in own.perms if p["code"] == "A1-040")["ctrl"] == "P1"


def test_x610z_207_6_only_an_effect_with_an_activation_symbol_is_activated():
    recs = T1 + [r("cast", "P1", card="A1-040", pay={"B": 1}, target="S1")] + pp("P1") + \
        [r("activate", "P1", effect="A1-040", pay={})]
    refused(recs, "207.6")


WATCH = T1 + [r("effect", "P1", source="S1", op="search", card="A1-050")] + [
    r("effect", "P1", source="S1", op="energy", type="C", amount=3),
    r("cast", "P1", card="A1-050", pay={"B": 1, "C": 1})] + pp("P1")


def test_x610z_206_1e_an_activated_effect_cannot_be_activated_again():
    recs = WATCH + [r("activate", "P1", effect="A1-050", pay={"C": 1}, target="S1")] + pp("P1") + \
        [r("activate", "P1", effect="A1-050", pay={"C": 1}, target="S1")]
    refused(recs, "206.1e")


def test_x610z_209_2c_activation_counter_at_zero_sends_the_permanent_to_the_discard_pile():
    recs = WATCH + [r("effect", "P1", source="A1-050", op="counter", object="A1-050", kind="activation", delta=-2),
                    r("activate", "P1", effect="A1-050", pay={"C": 1}, target="S1")]
    m = legal(recs)
    assert any(p["code"] == "A1-050" for p in m.perms)
    m = legal(recs + pp("P1"))
    assert not any(p["code"] == "A1-050" for p in m.perms) and "A1-050" in m.p["P1"]["discard"]


def test_x610z_209_2c_a_countered_activation_at_zero_counters_sends_the_permanent_away_too():
    """"directly after its effect or movement has been countered/prevented or successfully resolved": the
    Watchtower whose last activation was countered stayed in play at 0 (and could be activated again)."""
    recs = WATCH + [r("effect", "P1", source="A1-050", op="counter", object="A1-050", kind="activation", delta=-2),
                    r("activate", "P1", effect="A1-050", pay={"C": 1}, target="S1")]
    countered = recs + [r("effect", "P2", source="S4", op="counter_action", line=len(recs) + 1)]
    m = legal(countered)
    assert m.stack == [] and not any(p["code"] == "A1-050" for p in m.perms)
    assert "A1-050" in m.p["P1"]["discard"]


def test_x610z_209_2a_a_permanent_without_activation_left_cannot_be_activated():
    """209.2a: the counter says how many times it can be activated: at 0 (here by an effect), none."""
    recs = WATCH + [r("effect", "P1", source="A1-050", op="counter", object="A1-050", kind="activation", delta=-3),
                    r("activate", "P1", effect="A1-050", pay={"C": 1}, target="S1")]
    refused(recs, "209.2a", contains="its Activation Counter is 0")


def test_x610z_209_2f_time_counter_at_zero_sends_the_permanent_to_the_discard_pile():
    h = rich()
    h["players"]["P1"]["deck"].update({"A1-025": 3, "A1-010": 6})
    end = [r("end", "P1")]
    recs = T1 + fetch("A1-025") + [r("effect", "P1", source="S1", op="energy", type="C", amount=1),
                                   r("cast", "P1", card="A1-025", pay={"B": 1, "C": 1}, dot="E2")] + pp("P1") + \
        [r("move", "P1", **{"from": "E2"}, path=["B2"], pay={}), ]
    m, _ = run(recs[:-1], head=h)
    assert m.dots["E2"]["counters"] == {"time": 3}
    turn = [r("turn", "P2"), r("draw", "P2", card="A1-010"), r("end", "P2", discard=["A1-010"]),
            r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])]
    # keep the Spirit off the Ending Dot with a relocation, then let three Reactivation Phases pass
    recs = recs[:-1] + [r("effect", "P1", source="A1-025", op="relocate", dot="E2", to="B2")] + end + turn * 3
    m = legal(recs[:-1], head=h)
    assert "B2" not in m.dots and "A1-025" in m.p["P1"]["discard"]


def test_x610z_402_10g_paid_ability_once_per_turn():
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-031"]),
                    r("turn", "P2"), r("draw", "P2", card="A1-011"),
                    r("effect", "P2", source="S4", op="energy", type="B", amount=4),
                    r("cast", "P2", card="A1-021", pay={"B": 2}, dot="E4")] + pp("P2") + \
        [r("ability", "P2", summon="E4", kind="paid", pay={"B": 1})] + pp("P2") + \
        [r("ability", "P2", summon="E4", kind="paid", pay={"B": 1})]
    refused(recs, "402.10g", contains="already used this turn")


def test_x610z_402_10f_activated_ability_once_per_turn_and_it_activates_the_summon():
    h = rich()
    recs = T1 + fetch("A1-023") + [r("effect", "P1", source="S1", op="energy", type="B", amount=3),
                                   r("cast", "P1", card="A1-023", pay={"B": 2}, dot="E1")] + pp("P1") + \
        [r("ability", "P1", summon="E1", kind="activated", pay={"B": 1})] + pp("P1")
    m = legal(recs, head=h)
    assert m.dots["E1"]["act"] and m.dots["E1"]["abil"] == ["activated"]
    refused(recs + [r("ability", "P1", summon="E1", kind="activated", pay={"B": 1})], "402.10f", head=h)
    refused(recs + [r("move", "P1", **{"from": "E1"}, path=["B1"], pay={"B": 1})], "202.2b", head=h)
