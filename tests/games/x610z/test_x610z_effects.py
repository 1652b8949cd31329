"""What an `effect` record may do (rules digest.3): its source (503.1, 210.4), how long a resolved card
counts as resolving (digest.4: a fizzled one never does, 208.5), and `zone` from play (205.3, 207.5a)."""

import copy

import pytest

from x610z_builder import BATTLE, T1, header, legal, pp, r, refused, run, text
from test_x610z_cast import fetch, rich

from zx_events.ids import project
from zx_events.logformat.reader import parse_log


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
def test_x610z_503_1_every_op_needs_a_source_in_play_or_resolving(op, fields):
    refused(BATTLE + [eff("P1", "A1-031", op, **fields)], "503.1", contains="when its cast resolves")


def test_x610z_503_1_a_source_resolving_or_in_play_is_accepted():
    """Discount right after its cast resolved draws; a summon in play with an ability (its dot or its code:
    the Life Base Iron Keep, A1-002, continuous) is a source too."""
    recs = BATTLE + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1") + \
        [eff("P1", "A1-031", "draw", cards=["A1-010", "A1-010"]), r("pass", "P1"),
         eff("P1", "S1", "stat", dot="B1", stat="range", delta=1), eff("P1", "A1-002", "stat", dot="B1", stat="attack",
                                                                       delta=1),
         eff("P1", "A1-002", "energy", type="B", amount=1)]
    m = legal(recs)
    assert m.p["P1"]["hand"].count("A1-010") >= 2 and "A1-031" in m.p["P1"]["discard"]
    assert m.dots["B1"]["mods"] == [["range", 1, "end_of_turn"], ["attack", 1, "end_of_turn"]]
    assert m.p["P1"]["pool"] == {"B": 1}


# ---------------------------------------------------------------------- digest.8: a source in play has an effect
def vanilla_life_bases() -> dict:
    """The shipped Life Base (A1-001, no ability) for both players, as in most real decks."""
    h = header()
    for pl in ("P1", "P2"):
        deck = h["players"][pl]["deck"]
        deck["A1-001"] = deck.pop("A1-002")
    return h


def test_x610z_210_1_a_summon_without_an_ability_deals_no_damage_by_an_effect():
    """210.1: summons are dealt damage "by attacks of summons, by the effect of Effects and by abilities". P1's
    Life Base (no ability) dealt 10 damage to P2's and won; his Sky Vessel on B1 (no ability) likewise."""
    err = refused(T1 + [eff("P1", "S1", "damage", dot="S4", amount=10)], "210.1", head=vanilla_life_bases())
    assert err.message == ("the damage source S1 (Life Base on S1) has no ability: a summon deals damage by its attacks "
                           "(the engine deals an attack's damage) and by its abilities")
    refused(BATTLE + [eff("P1", "B1", "damage", dot="B5", amount=1)], "210.1", contains="Sky Vessel on B1")
    refused(BATTLE + [eff("P1", "A1-022", "damage", dot="B5", amount=1)], "210.1", contains="Sky Vessel on B1")
    _, ref = run(T1 + [eff("P1", "S1", "damage", dot="S4", amount=10),
                       r("result", "P1", winner="P1", reason="life_base")], vanilla_life_bases(), strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(len(T1) + 2, "210.1")]  # one finding, the record applied


@pytest.mark.parametrize("op, fields", [("energy", {"type": "B", "amount": 3}), ("search", {"card": "A1-050"}),
                                        ("deactivate", {"dot": "B5"}), ("extra_turn", {"player": "P1"})])
def test_x610z_402_10_a_summon_without_an_ability_has_no_effect(op, fields):
    """402.10: summons "can have an Ability"; one without has no effect to log (it was any summon in play)."""
    refused(BATTLE + [eff("P1", "B1", op, **fields)], "402.10",
            contains=f"the source B1 of the {op} effect (Sky Vessel on B1) has no ability")
    legal(BATTLE + [eff("P1", "S1", op, **fields)])  # (Iron Keep, A1-002: a continuous ability)


def test_x610z_403_4_an_energy_crystal_without_an_effect_is_the_source_of_none():
    """403.4: Energy Crystal Cards "can have an effect"; a Boost Crystal's only one is its energy (an `energy`
    record), so it gives no `energy` effect, nor damage (210.1)."""
    refused(T1 + [eff("P1", "A1-011", "energy", type="B", amount=3)], "403.4",
            contains="(Boost Crystal) has no effect besides its energy")
    refused(T1 + [eff("P1", "A1-011", "damage", dot="S4", amount=1)], "210.1")


@pytest.mark.parametrize("source", ["S4", "B5"])
def test_x610z_214_2_the_other_players_permanent_is_not_the_source_of_a_players_effect(source):
    """214.2: the controller of a card is the player that gets to use it. P1 dealt damage with P2's Life Base (or
    his Sky Vessel): accepted, the source being in play (one finding with the shipped Life Base too)."""
    err = refused(BATTLE + [eff("P1", source, "damage", dot="S4", amount=1)], "214.2")
    assert err.message.endswith("is controlled by P2, not P1: only its controller uses it (an effect record is by "
                                "the player whose card or ability it is)")
    h = vanilla_life_bases()
    refused(T1 + [eff("P1", "S4", "damage", dot="S4", amount=10)], "214.2", head=h)
    _, ref = run(T1 + [eff("P1", "S4", "destroy", dot="S4")], h, strict=False)
    assert [v.rule for v in ref.found] == ["214.2"]


def test_x610z_503_1_a_card_on_the_stack_has_no_effect_before_its_cast_resolves():
    """503.1: "When the casting of the card is resolved, the effect takes place". A Bullseye's damage and a
    Discount's draw logged while they waited on the stack were accepted; at their resolution they are legal."""
    bull = BATTLE + [r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"),
                     r("cast", "P1", card="A1-030", pay={"M": 1}, target="B5")]
    err = refused(bull + [eff("P1", "A1-030", "damage", dot="B5", amount=2)], "210.4")
    assert err.message == ("the damage source A1-030 is neither in play nor resolving (it is on the stack: a card's "
                           "effect takes place when its cast resolves)")
    _, ref = run(bull + [eff("P1", "A1-030", "damage", dot="B5", amount=2)] + pp("P1") + [r("end", "P1")],
                 strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(len(bull) + 2, "210.4")]
    legal(bull + pp("P1") + [eff("P1", "A1-030", "damage", dot="B5", amount=2)])
    disc = BATTLE + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-031", pay={"B": 1})]
    refused(disc + [eff("P1", "A1-031", "draw", cards=["A1-010", "A1-010"])], "503.1", contains="it is on the stack")
    legal(disc + pp("P1") + [eff("P1", "A1-031", "draw", cards=["A1-010", "A1-010"])])


def test_x610z_402_10_an_abilitys_effects_name_its_summon_by_its_dot():
    """The resolving ability is its summon's (named by its dot, as a summon in play is): one applied as played
    though the summon has no such ability (402.10f) gives its effect without a second finding."""
    recs = BATTLE + [r("ability", "P1", summon="B1", kind="activated", pay={})] + pp("P1") + \
        [eff("P1", "B1", "heal", dot="B1", amount=1), r("end", "P1")]
    _, ref = run(recs, strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(len(BATTLE) + 2, "402.10f")]


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
    """The effects of one resolution follow it, and a trigger announced during it does not end it (the
    trigger of the resolving card itself: a Sky Vessel, which has no triggered ability, is 402.10h now)."""
    recs = bullseye() + [r("trigger", "P1", source="A1-030", target="B1"),
                         eff("P1", "A1-030", "damage", dot="S4", amount=1)]
    m = legal(recs)
    assert m.dots["S4"]["dmg"] == 1 and m.stack[-1]["kind"] == "trigger"


def fizzled_bullseye() -> list[dict]:
    """Turn 3: P1 casts Bullseye on his own Sky Vessel (B1), then moves it in answer onto the foreign
    Starting Dot S2 (601.5: destroyed); the Bullseye resolves without its target (208.5: fizzled)."""
    return BATTLE + [r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"),
                     r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-030", pay={"M": 1}, target="B1"),
                     r("pass", "P2"), r("move", "P1", **{"from": "B1"}, path=["B2", "A2", "S2"], pay={"B": 1})] + \
        pp("P1") + [r("pass", "P1"), r("pass", "P2")]


def test_x610z_210_4_a_fizzled_card_deals_no_damage():
    """A Bullseye that fizzled (its target left play, 208.5) went to the Discard Pile: its damage is
    not dealt. It was accepted and applied: the fizzled card still counted as resolving."""
    m, ref = run(fizzled_bullseye())
    assert ref.found == [] and "B1" not in m.dots and "A1-030" in m.p["P1"]["discard"] and not m.stack
    err = refused(fizzled_bullseye() + [eff("P1", "A1-030", "damage", dot="B5", amount=2)], "210.4",
                  contains="A1-030 is neither in play nor resolving (it fizzled")
    assert "its effect does not take place" in err.message
    m, ref = run(fizzled_bullseye() + [eff("P1", "A1-030", "damage", dot="B5", amount=2)], strict=False)
    assert [(v.rule, v.player) for v in ref.found] == [("210.4", "P1")]


@pytest.mark.parametrize("op, fields", [("destroy", {"dot": "B5"}), ("draw", {"cards": ["A1-010"]})])
def test_x610z_503_1_a_fizzled_card_has_no_effect(op, fields):
    refused(fizzled_bullseye() + [eff("P1", "A1-030", op, **fields)], "503.1",
            contains="A1-030 of the " + op + " effect is neither in play nor resolving (it fizzled")


# ---------------------------------------------------------------------- zone from play (205.3, 207.5a)
def dispel() -> list[dict]:
    """Turn 3: P1's Swift Boots on P2's Sky Vessel (so under P2's control, 208.2; owned by P1), then P1's
    Dispel on the Boots, resolved: its effect follows."""
    return BATTLE + fetch("A1-035") + [
        r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"), r("energy", "P1", crystal="A1-011"),
        r("cast", "P1", card="A1-040", pay={"B": 1}, target="B5")] + pp("P1") + \
        [r("cast", "P1", card="A1-035", pay={"M": 1}, target="A1-040")] + pp("P1")


def zone(owner=None, card="A1-040", to="discard", source="A1-035"):
    extra = {"owner": owner} if owner else {}
    return eff("P1", source, "zone", card=card, to=to, **{"from": "play"}, **extra)


@pytest.mark.parametrize("owner", ["P1", None])
def test_x610z_500_1_zone_from_play_sends_an_effect_to_its_owners_discard_pile(owner):
    """"Send target Effect to its owner's Discard Pile" (Dispel): refused as "A1-040 is not in P1's play"."""
    m, _ = run(dispel(), head=rich())
    boots = next(p for p in m.perms if p["code"] == "A1-040")
    assert (boots["owner"], boots["ctrl"]) == ("P1", "P2")
    m = legal(dispel() + [zone(owner)], head=rich())
    assert not any(p["code"] == "A1-040" for p in m.perms)
    assert m.p["P1"]["discard"].count("A1-040") == 1 and "A1-040" not in m.p["P2"]["discard"]
    assert "A1-035" in m.p["P1"]["discard"] and "B5" in m.dots


def test_x610z_500_1_zone_from_play_names_the_cards_owner():
    refused(dispel() + [zone("P2")], "500.1", head=rich(),
            contains="no A1-040 owned by P2 is in play (its owner is P1)")


def test_x610z_500_1_zone_from_play_moves_crystals_and_effects_not_summons():
    refused(BATTLE + [zone(card="A1-022", source="S1")], "500.1", contains="a summon in play is named by its dot")
    refused(dispel() + [zone("P1", to="cast")], "500.1", head=rich(), contains="not cast")


def test_x610z_207_5a_effects_fixed_on_a_permanent_leave_play_with_it():
    """A crystal returned to its owner's hand (205.3: the zone the effect states) takes the Overcharge
    fixed on it along: to its owner's Discard Pile."""
    recs = T1 + fetch("A1-034") + [r("cast", "P1", card="A1-034", pay={"B": 1}, target="A1-011")] + pp("P1")
    m, _ = run(recs, head=rich())
    assert {p["code"] for p in m.perms} == {"A1-011", "A1-034"}
    m = legal(recs + [zone(card="A1-011", to="hand", source="S1")], head=rich())
    assert m.perms == [] and "A1-011" in m.p["P1"]["hand"] and "A1-034" in m.p["P1"]["discard"]


def test_x610z_205_3_a_match_imported_under_digest_2_replays_as_it_was_imported():
    """`zone` from play is a digest.3 change in the state's own handler: a match stored under digest.2
    (none could hold such an event: it was refused) replays as then; one imported now moves the Effect."""
    from zx_events.games import digest_of
    from zx_events.games.x610z.rules import RULES_VERSION

    m, _ = run(dispel() + [zone("P1")], head=rich())
    events = copy.deepcopy(list(m.pending_events))
    assert digest_of(events[0].rules_version) == digest_of(RULES_VERSION) >= 3
    now = project(None, copy.deepcopy(events))
    assert not any(p["code"] == "A1-040" for p in now.perms) and "A1-040" in now.p["P1"]["discard"]
    events[0].__dict__["rules_version"] = "x610z-cr-1.1+digest.2"
    then = project(None, events)
    assert any(p["code"] == "A1-040" for p in then.perms) and "A1-040" not in then.p["P1"]["discard"]


# ---------------------------------------------------------------------- 600.3: an effect's dot is on the board
def place(dot: str) -> dict:
    return eff("P1", "S1", "place", card="A1-022", dot=dot, **{"from": "hand"})


def test_x610z_600_3_place_and_relocate_name_a_dot_of_the_board():
    """A `place` or `relocate` onto a dot the board does not have (Z9) stopped the check with an internal
    error (KeyError: 'Z9', in the 601.5 test of the dot), and with it the import of every other match."""
    m = legal(T1 + [place("A2"), eff("P1", "S1", "relocate", dot="A2", to="A3")])
    assert m.dots["A3"]["code"] == "A1-022" and "A2" not in m.dots
    refused(T1 + [place("Z9")], "600.3", contains="Z9 is not a dot of board x610z-orbits-sample")
    refused(T1 + [place("A2"), eff("P1", "S1", "relocate", dot="A2", to="Z9")], "600.3",
            contains="Z9 is not a dot of board x610z-orbits-sample")
    m, ref = run(T1 + [place("A2"), eff("P1", "S1", "relocate", dot="A2", to="Z9"), place("Z9")], strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(9, "600.3"), (10, "600.3")]
    assert m.dots["A2"]["code"] == "A1-022" and "A1-022" not in m.p["P1"]["hand"]


# ---------------------------------------------------------------------- what the format reader refuses
def format_error(records: list[dict], head: dict | None = None) -> str:
    """The reader's error for the last record (FILE:LINE: format: ...), as `zx import` prints it."""
    logs = parse_log(text(records, head), "t.x610zlog")
    assert len(logs) == 1 and logs[0].error is not None, "expected a format error"
    err = logs[0].error
    assert (err.source, err.line) == ("t.x610zlog", len(records) + 1), str(err)
    return str(err)


@pytest.mark.parametrize("op, fields", [("deactivate", {}), ("reactivate", {}), ("counter", {"kind": "time", "delta": 1}),
                                        ("control", {"to": "P2"})])
def test_x610z_format_deactivate_reactivate_counter_control_name_exactly_one_of_dot_object(op, fields):
    """Without `dot` and `object` the engine said "rule 500.1: no None in play for the deactivate effect";
    with both it followed the dot and dropped `object` silently. A format error at FILE:LINE now."""
    line = len(BATTLE) + 2
    assert format_error(BATTLE + [eff("P1", "S1", op, **fields)]) == \
        f"t.x610zlog:{line}: format: an effect {op} record needs exactly one of 'dot' or 'object' (it has neither)"
    assert format_error(BATTLE + [eff("P1", "S1", op, dot="B1", object="A1-011", **fields)]) == \
        f"t.x610zlog:{line}: format: an effect {op} record needs exactly one of 'dot' or 'object' (it has both)"
    for one in ({"dot": "B1"}, {"object": "A1-011"}):
        assert parse_log(text(BATTLE + [eff("P1", "S1", op, **one, **fields)]), "t.x610zlog")[0].error is None


# ---------------------------------------------------------------------- zone from cast, and never to play or cast
def countered(**fields) -> list[dict]:
    """Turn 1: P1 casts Sky Vessel (A1-022) onto E1, then Discount on top of it; Discount resolves and its
    `zone` effect takes the Sky Vessel off the stack."""
    return T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"), r("pass", "P2"),
                 r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1") + \
        [eff("P1", "A1-031", "zone", card="A1-022", **{"from": "cast", "to": "hand", **fields})]


@pytest.mark.parametrize("to, owner", [("hand", None), ("hand", "P1"), ("removed", None)])
def test_x610z_503_1_zone_from_cast_takes_a_cast_card_off_the_stack(to, owner):
    """A card on the stack sent to a zone (a counter that returns it to its owner's hand) was refused:
    "rule 500.1: A1-022 is not in P1's cast" though it waited in the Cast Zone (503.1). Its cast never
    resolves: no summon comes onto E1."""
    m = legal(countered(to=to, **({"owner": owner} if owner else {})) + [r("pass", "P1"), r("pass", "P2")])
    assert m.stack == [] and "E1" not in m.dots and m.phase == "end"
    assert "A1-022" in m.p["P1"][to] and "A1-022" not in m.p["P1"]["discard"]


def test_x610z_500_1_zone_from_cast_names_a_card_cast_on_the_stack():
    refused(countered(owner="P2"), "500.1", contains="no A1-022 owned by P2 is cast on the stack (its owner is P1)")
    recs = countered()
    recs[-1]["card"] = "A1-020"
    refused(recs, "500.1", contains="no A1-020 is cast on the stack")


def test_x610z_503_1_a_match_imported_under_digest_3_replays_zone_from_cast_as_it_was_imported():
    """`zone` from cast is a digest.4 change in the state's own handler: a match stored under digest.3 replays
    as then (the card stays on the stack); one imported now takes it off."""
    from zx_events.games import digest_of

    m, _ = run(countered())
    events = copy.deepcopy(list(m.pending_events))
    assert digest_of(events[0].rules_version) >= 4
    now = project(None, copy.deepcopy(events))
    assert now.stack == [] and "A1-022" in now.p["P1"]["hand"]
    events[0].__dict__["rules_version"] = "x610z-cr-1.1+digest.3"
    then = project(None, events)
    assert [s.get("card") for s in then.stack] == ["A1-022"]


@pytest.mark.parametrize("frm, to", [("hand", "play"), ("hand", "cast"), ("deck", "play"), ("discard", "cast")])
def test_x610z_format_zone_puts_no_card_into_play_nor_onto_the_stack(frm, to):
    """`zone` to play or to cast was accepted and did nothing (the card stayed in the hand): the record has no
    dot to place a summon on, nor a cast to put on the stack. A format error at FILE:LINE now."""
    assert format_error(T1 + [eff("P1", "S1", "zone", card="A1-020", **{"from": frm, "to": to})]).endswith(
        ":8: format: effect.to must be deck, hand, discard or removed (a zone effect puts no card into play nor "
        f"onto the stack), got '{to}'")
