"""Energy, costs and Energy Crystals (200.5, 203, 204, 206.1e, 403)."""

from x610z_builder import BATTLE, SETUP, T1, legal, pp, r, refused, run


def gain(by: str, **energy) -> list[dict]:
    """Energy from an effect (the engine applies what the log says a card did)."""
    return [r("effect", by, source={"P1": "S1", "P2": "S4"}[by], op="energy", type=t, amount=n) for t, n in energy.items()]


def test_x610z_204_1b_specific_part_paid_with_another_type():
    refused(T1 + gain("P1", M=1) + [r("cast", "P1", card="A1-030", pay={"B": 1}, target="S4")], "204.1b")


def test_x610z_203_2b_colorless_energy_pays_only_colorless():
    refused(T1 + gain("P1", C=1, M=1) + [r("cast", "P1", card="A1-030", pay={"C": 1}, target="S4")], "203.2b")


def test_x610z_204_1c_colorless_part_paid_with_any_type():
    m = legal(T1 + [r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1"))
    assert m.p["P1"]["pool"] == {} and "A1-031" in m.p["P1"]["discard"]


def test_x610z_200_5_paying_more_than_the_cost():
    refused(T1 + gain("P1", M=1) + [r("cast", "P1", card="A1-031", pay={"B": 1, "M": 1})], "200.5",
            contains="more than the cost")


def test_x610z_200_5_paying_with_energy_not_in_the_pool():
    refused(T1 + [r("cast", "P1", card="A1-031", pay={"M": 1})], "200.5", contains="Energy Pool holds M0")


def test_x610z_200_5_underpaying_while_energy_remained():
    refused(T1 + gain("P1", M=1) + [r("cast", "P1", card="A1-020", pay={"M": 1}, dot="E1")], "200.5",
            contains="while energy remained")


def test_x610z_200_5_underpaying_with_nothing_left_fails_and_the_card_returns():
    m = legal(T1 + [r("cast", "P1", card="A1-030", pay={"B": 1}, target="S4")])
    assert m.stack == [] and "A1-030" in m.p["P1"]["hand"] and m.p["P1"]["pool"] == {}


def test_x610z_200_5_a_cost_that_cannot_be_met_is_paid_up_to_its_total_in_any_type():
    """"the amount he can't pay in a specific type must be payed with energy of any type (to a maximum
    of the energy required)": B2 in the pool, Bullseye costs M1; paying B1 is the whole duty (it was
    refused as "as much as possible must be paid"), the action fails and the card returns."""
    recs = T1 + gain("P1", B=1) + [r("cast", "P1", card="A1-030", pay={"B": 1}, target="S4")]
    m = legal(recs)
    assert m.stack == [] and "A1-030" in m.p["P1"]["hand"] and m.p["P1"]["pool"] == {"B": 1}
    over = T1 + gain("P1", B=1) + [r("cast", "P1", card="A1-030", pay={"B": 2}, target="S4")]
    refused(over, "200.5", contains="more than the cost")
    m, ref = run(over, strict=False)  # as played: the violation, and the action fails all the same
    assert [v.rule for v in ref.found] == ["200.5"] and m.stack == [] and "A1-030" in m.p["P1"]["hand"]
    refused(T1 + gain("P1", B=1) + [r("cast", "P1", card="A1-030", pay={}, target="S4")], "200.5",
            contains="as much as possible")


def test_x610z_200_5_a_reactivated_crystal_counts_as_available_energy():
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-010"),
                    r("cast", "P1", card="A1-030", pay={}, target="S4")]
    refused(recs, "200.5")


def test_x610z_206_1e_an_activated_crystal_gives_no_energy():
    refused(T1 + [r("energy", "P1", crystal="A1-011")], "206.1e")


def test_x610z_203_2a_a_crystal_produces_only_its_types():
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-011"),
                    r("energy", "P1", crystal="A1-011", type="M")]
    refused(recs, "203.2a", contains="cannot produce M")


def test_x610z_403_1_one_energy_crystal_card_per_turn():
    refused(T1 + [r("crystal", "P1", card="A1-010")], "403.1")


def test_x610z_403_2_energy_crystal_cards_by_the_active_player():
    refused(T1 + [r("crystal", "P2", card="A1-010")], "403.2")


def test_x610z_201_7_energy_crystal_card_outside_the_action_phase():
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("pass", "P1"), r("pass", "P2"),
                    r("crystal", "P1", card="A1-010")]  # (the Draw Phase ended with the draw, 702.3)
    refused(recs, "201.7", contains="in the End Phase")


def test_x610z_200_1b_a_crystal_is_not_cast_with_a_cast_record():
    refused(T1 + [r("cast", "P1", card="A1-010", pay={})], "200.1b")


def test_x610z_200_1a_a_card_not_in_hand():
    refused(T1 + [r("cast", "P1", card="A1-050", pay={})], "200.1a", contains="not in P1's hand")


def test_x610z_203_4_pools_empty_at_the_end_of_the_turn():
    m, _ = run(T1 + [r("end", "P1")])
    assert m.p["P1"]["pool"] == {}
    m, _ = run(T1)
    assert m.p["P1"]["pool"] == {"B": 1}


def test_x610z_701_1_reactivation_phase_reactivates_crystals():
    m = legal(T1 + [r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-010"),
                    r("end", "P2", discard=["A1-010"]), r("turn", "P1"), r("energy", "P1", crystal="A1-011")])
    assert m.p["P1"]["pool"] == {"B": 1}


def test_a_proper_payment_within_the_pool_is_paid_whatever_the_reserve():
    """checks.paid_properly (the referee's shortcut past the crystals' reserve) says yes only where
    checks.payment says (PAID, None) for any reserve."""
    import itertools
    import random

    from zx_events.games.x610z import checks

    rng = random.Random(7)
    types = ["C", "R", "B"]

    def energy() -> dict:
        return {t: n for t in types if (n := rng.choice([0, 0, 1, 2, 3]))}

    shortcuts = 0
    for _ in range(2000):
        cost, pay, pool = energy(), energy(), energy()
        if checks.paid_properly(cost, pay, pool):
            shortcuts += 1
            for wild, extra in itertools.product((0, 2), ({}, {"R": 1})):
                assert checks.payment(cost, pay, pool, wild=wild, extra=extra) == (checks.PAID, None)
    assert shortcuts > 20


def test_x610z_200_1b_a_crystal_record_casts_only_crystals_and_names_the_type_with_its_article():
    """"A1-031 (Discount) is a Effect card": "an Effect card"."""
    refused(BATTLE + [r("crystal", "P1", card="A1-031")], "200.1b",
            contains="A1-031 (Discount) is an Effect card: a crystal")
    refused(BATTLE + [r("crystal", "P1", card="A1-020")], "200.1b", contains="(Hunter Dragon) is a Summon card")


def test_x610z_format_a_payment_key_is_an_energy_type_letter():
    """A `pay` key that is no energy type was "move.pay has a key that is not a card code: 'm'" (the
    reader's words for a deck list's key): it names what the key must be; a deck list's stay."""
    from test_x610z_effects import format_error
    from x610z_builder import header

    assert format_error(T1 + [r("move", "P1", **{"from": "S1"}, path=["A1"], pay={"m": 1})]).endswith(
        ":8: format: move.pay has a key that is not an energy type letter (M, B, C or a catalog type): 'm'")
    assert format_error(T1 + [r("crystal", "P1", card="A1-011", pay={"BB": 1})]).endswith(
        ":8: format: crystal.pay has a key that is not an energy type letter (M, B, C or a catalog type): 'BB'")
    head = header()
    head["players"]["P1"]["deck"]["a1-010"] = 1
    assert format_error([], head).endswith(":1: format: players.P1.deck has a key that is not a card code: 'a1-010'")


def test_x610z_203_2a_an_energy_effect_adds_only_a_type_the_catalog_declares():
    """An `energy` effect of type X, a type the sample catalog never declares, was accepted and a move then
    paid {"X": 1} with 0 violations; an `energy` record naming X already got 203.2a. A catalog that declares
    X in a `# types:` line has it."""
    from x610z_builder import header
    from zx_events.games.x610z.board import load_board
    from zx_events.games.x610z.cards import parse_catalog
    from zx_events.games.x610z.setup import open_match

    x = gain("P1", X=1)
    refused(T1 + x, "203.2a", contains="X is not an energy type of catalog x610z-sample: M, B or C (a catalog "
                                       "declares further types in a `# types:` line)")
    m, ref = run(T1 + x + [r("move", "P1", **{"from": "S1"}, path=["A1"], pay={"X": 1})], strict=False)
    assert [v.rule for v in ref.found][0] == "203.2a" and "X" not in m.p["P1"]["pool"]
    from importlib import resources
    sample = resources.files("zx_events.games.x610z").joinpath("catalogs", "x610z-sample.csv").read_text("utf-8")
    cat = parse_catalog("# types: X\n" + sample, name="x-types", source="x.csv")
    m, ref = open_match(header(), cat, load_board("x610z-orbits-sample"))
    for no, rec in enumerate(T1 + x, 2):
        ref.handle(no, rec)
    assert ref.found == [] and m.p["P1"]["pool"] == {"B": 1, "X": 1}
