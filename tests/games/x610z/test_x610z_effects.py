"""What an `effect` record may do (rules digest.3): its source (503.1, 210.4) and how long a resolved
card counts as resolving."""

import pytest

from x610z_builder import BATTLE, legal, pp, r, refused


def eff(by, source, op, **fields):
    return r("effect", by, source=source, op=op, **fields)


# ---------------------------------------------------------------------- 503.1: the source of every op
def test_x610z_503_1_a_card_in_hand_destroys_nothing():
    """Discount (A1-031) is in P1's hand, never cast: it cannot destroy P2's Life Base (it did, and P1 won)."""
    refused(BATTLE + [eff("P1", "A1-031", "destroy", dot="S4")], "503.1", contains="A1-031 of the destroy effect")


@pytest.mark.parametrize("op, fields", [
    ("energy", {"type": "C", "amount": 3}), ("draw", {"cards": ["A1-010"]}), ("extra_turn", {"player": "P1"}),
    ("search", {"card": "A1-010"}), ("deactivate", {"dot": "B5"}), ("stat", {"dot": "B1", "stat": "speed", "delta": 1}),
    ("zone", {"card": "A1-010", "from": "deck", "to": "hand"}), ("skip_turn", {"player": "P2"}),
])
def test_x610z_503_1_every_op_needs_a_source_in_play_on_the_stack_or_resolving(op, fields):
    refused(BATTLE + [eff("P1", "A1-031", op, **fields)], "503.1", contains="when its cast resolves")


def test_x610z_503_1_a_source_resolving_or_in_play_is_accepted():
    """Discount right after its cast resolved draws; a summon in play (its dot or its code) and a
    crystal in play are sources too."""
    recs = BATTLE + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1") + \
        [eff("P1", "A1-031", "draw", cards=["A1-010", "A1-010"]), r("pass", "P1"),
         eff("P1", "B1", "stat", dot="B1", stat="range", delta=1), eff("P1", "A1-022", "stat", dot="B1", stat="attack",
                                                                       delta=1),
         eff("P1", "A1-011", "energy", type="B", amount=1)]
    m = legal(recs)
    assert m.p["P1"]["hand"].count("A1-010") >= 2 and "A1-031" in m.p["P1"]["discard"]
    assert m.dots["B1"]["mods"] == [["range", 1, "end_of_turn"], ["attack", 1, "end_of_turn"]]
    assert m.p["P1"]["pool"] == {"B": 1}


# ---------------------------------------------------------------------- 210.4: resolving ends
def bullseye() -> list[dict]:
    """Turn 3: P1 casts Bullseye on P2's Sky Vessel (B5); it resolves and deals its damage."""
    return BATTLE + [r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"),
                     r("cast", "P1", card="A1-030", pay={"M": 1}, target="B5")] + pp("P1") + \
        [eff("P1", "A1-030", "damage", dot="B5", amount=1)]


@pytest.mark.parametrize("between", [
    [r("pass", "P1")],
    [r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-011"), r("end", "P2"), r("turn", "P1"),
     r("draw", "P1", card="A1-010")],
], ids=["after-a-pass", "two-turns-later"])
def test_x610z_210_4_a_card_resolved_earlier_deals_no_damage(between):
    """The Bullseye is in P1's Discard Pile once its resolution is over: it dealt damage again (from the
    Discard Pile, turns later) because the engine kept it as 'resolving' for the rest of the match."""
    m = legal(bullseye())
    assert "A1-030" in m.p["P1"]["discard"] and m.dots["B5"]["dmg"] == 1
    refused(bullseye() + between + [eff("P1", "A1-030", "damage", dot="B5", amount=1)], "210.4",
            contains="A1-030 is neither in play")


def test_x610z_210_4_the_resolving_card_deals_all_its_effects_a_trigger_between():
    """The effects of one resolution follow it, and a trigger announced during it does not end it."""
    recs = bullseye() + [r("trigger", "P2", source="B5", target="B1"),
                         eff("P1", "A1-030", "damage", dot="S4", amount=1)]
    m = legal(recs)
    assert m.dots["S4"]["dmg"] == 1 and m.stack[-1]["kind"] == "trigger"
