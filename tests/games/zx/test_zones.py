"""Zones and card state (301-303), and the card types' rules the engine enforces (202)."""

from __future__ import annotations

from collections import Counter

from support import BOARD, SETUP, header, line_of, rejects, run

from zx_events.games.zx.decks import deck_by_name

PASS1 = {"do": "pass", "by": "P1"}
PASS2 = {"do": "pass", "by": "P2"}


def test_301_1_a_card_taken_from_a_zone_where_it_is_not():
    recs = [*BOARD, {"do": "resource", "by": "P1", "card": "R01-008"}]
    err = rejects(recs, "301.1", line_of(recs, len(recs) - 1))
    assert "R01-008 is not in P1's hand" == err.message


def test_301_1_setup_takes_cards_out_of_the_deck():
    bad = dict(SETUP[0], hand=["R01-008", "R01-008", "R01-008", "R01-001"])  # only 1 copy in the deck
    rejects([bad], "301.1", 2)


def test_301_2_eleven_zones():
    m = run(BOARD).match
    own = {"deck", "hand", "life", "charge", "trash", "remove", "resource", "dynamis"}  # 301.2b
    assert own <= set(m.p["P1"])
    for shared in ("sq", "temporary", "force"):  # 301.2a
        assert hasattr(m, shared)


def test_301_4_a_card_that_leaves_square_is_a_new_card():
    # U01-001 with a Power boost is returned to hand and played again: no boost, a new uid
    recs = [*BOARD, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "effect", "by": "P2", "source": "U01-010", "op": "power", "square": "a2", "delta": 2000,
             "until": "permanent"},
            {"do": "effect", "by": "P2", "source": "U01-010", "op": "move", "square": "a2", "from": "square",
             "to": "hand"},
            {"do": "play", "by": "P2", "card": "U01-001", "pay": [], "square": "a2"}]
    c = run(recs)
    before = [e for e in c.match.pending_events if type(e).__name__ == "CardPlayed"]
    entry = c.match.sq["a2"]
    assert entry["code"] == "U01-001" and entry["mods"] == []
    assert entry["uid"] > 4 and len(before) >= 3


def test_301_4_square_to_square_is_the_same_card():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "power", "square": "a1",
                     "delta": 1000, "until": "end_of_turn"},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "square": "a1", "from": "square",
             "to": "square", "dest": "c1"}]
    m = run(recs).match
    assert m.sq["a1"] is None and m.sq["c1"]["mods"] == [[1000, "end_of_turn"]]


def test_301_5_cards_moved_together_arrive_together():
    # a charge_excess of two cards is one event that moves both
    recs = charge_five()
    first = recs[-1]["card"]
    c = run([*recs, {"do": "charge_excess", "by": "P2", "trash": [first]}])
    (ev,) = [e for e in c.match.pending_events if type(e).__name__ == "ChargeExcessTrashed"]
    assert ev.cards == [first] and c.match.p["P2"]["trash"] == [first]
    assert len(c.match.p["P2"]["charge"]) == 4


def test_302_1b_302_4_a_destroyed_card_goes_to_its_owners_charge():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2]
    m = run(recs).match
    assert m.p["P2"]["charge"] == ["U01-001"] and m.p["P1"]["charge"] == []


def test_302_2_resource_cards_sleep_to_pay_and_reboot_in_the_reboot_phase():
    recs = BOARD[:5]  # P1 turn 1 after paying R01-001
    m = run(recs).match
    assert [r["sleep"] for r in m.p["P1"]["resource"]] == [True, False, False]
    m = run(BOARD).match  # 502: P1's turn 3 rebooted them
    assert [r["sleep"] for r in m.p["P1"]["resource"]] == [False, False, False]


def test_303_5a_a_card_put_on_square_enters_in_reboot():
    m = run(BOARD).match
    assert m.sq["a1"]["sleep"] is False and m.sq["b3"]["sleep"] is False


def test_303_6a_a_player_card_does_not_move_to_another_square():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "square": "b1",
                     "from": "square", "to": "square", "dest": "c1", "target": "player"}]
    rejects(recs, "303.6a", line_of(recs, len(recs) - 1))


def test_202_7f_overboost_controllers_player_card_is_unaffected():
    recs = [*BOARD, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "effect", "by": "P2", "source": "PL-002", "op": "overboost", "square": "c3", "upper": "EX-U04"},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "sleep", "square": "b3", "target": "player"}]
    rejects(recs, "202.7f", line_of(recs, len(recs) - 1))


def test_202_7f_player_card_named_by_its_code_is_unaffected_too():
    # the same Player card moved off its Square by an effect naming it by code, not by target: player
    ob = [*BOARD, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
          {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
          {"do": "effect", "by": "P2", "source": "PL-002", "op": "overboost", "square": "c3", "upper": "EX-U04"},
          {"do": "end", "by": "P2"}, {"do": "turn", "by": "P1"},
          {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-013"]}]
    move = {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": "PL-002", "owner": "P2",
            "from": "square", "to": "trash"}
    recs = [*ob, move]
    err = rejects(recs, "202.7f", line_of(recs, len(recs) - 1))
    assert err.message == "P2 controls a Z/X Overboost on Square: P2's Player card is unaffected by card effects"
    m = run([*BOARD, move]).match  # without an Overboost the Player card leaves its Square (303.6a)
    assert m.p["P2"]["player_card"] is None and m.p["P2"]["trash"] == ["PL-002"]


def test_202_7g_only_one_overboost_on_square():
    hdr = header()
    hdr["players"]["P2"]["dynamis"] = {"EX-U04": 2}
    recs = [*BOARD, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "effect", "by": "P2", "source": "PL-002", "op": "overboost", "square": "c3", "upper": "EX-U04"},
            {"do": "effect", "by": "P2", "source": "PL-002", "op": "overboost", "square": "c2", "upper": "EX-U04"}]
    rejects(recs, "202.7g", line_of(recs, len(recs) - 1), hdr=hdr)


def test_202_7g_no_second_overboost_put_on_square_by_an_effects_move():
    # a Z/X OB upper part moved from Dynamis onto the Square is a Z/X Overboost put on Square as well
    hdr = header()
    hdr["players"]["P2"]["dynamis"] = {"EX-U04": 2}
    recs = [*BOARD, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "effect", "by": "P2", "source": "PL-002", "op": "overboost", "square": "c3", "upper": "EX-U04"},
            {"do": "effect", "by": "P2", "source": "PL-002", "op": "move", "card": "EX-U04", "from": "dynamis",
             "to": "square", "dest": "c2"}]
    err = rejects(recs, "202.7g", line_of(recs, len(recs) - 1), hdr=hdr)
    assert err.message == "P2 already has a Z/X Overboost on Square"
    m = run([*recs[:-2], recs[-1]], hdr=hdr).match  # the first one may come by a move
    assert m.sq["c2"]["kind"] == "ob"


def test_202_8c_no_second_shift():
    hdr = header()
    hdr["players"]["P1"]["dynamis"] = {"EX-R03": 2}
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-001"], "on": "a1"},
            {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-002"], "on": "b2"}]
    m = run(recs[:-1], hdr=hdr).match
    assert m.sq["a1"]["shift"] == "EX-R03"
    rejects(recs, "202.8c", line_of(recs, len(recs) - 1), hdr=hdr)


def test_202_8a_shift_moves_with_its_vessel():
    hdr = header()
    hdr["players"]["P1"]["dynamis"] = {"EX-R03": 1}
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-001"], "on": "b2"},
            {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2,
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "attack", "by": "P2", "from": "b3", "target": "b2"}, PASS2, PASS1]
    m = run(recs, hdr=hdr).match
    assert m.sq["b2"] is None and m.p["P1"]["charge"] == ["R01-001", "EX-R03"]


def test_202_8a_a_shift_on_a_zx_ex_goes_with_it_to_dynamis():
    # the pair is one card of the Z/X EX's type (a Shift adds no type, 202.8e): destroyed, or moved to
    # another zone than Square or Dynamis, it goes to Dynamis face-up, the Shift too (it went to Charge)
    ex_shift = [*BOARD, {"do": "effect", "by": "P1", "source": "b1", "op": "move", "card": "EX-R01",
                         "from": "dynamis", "to": "square", "dest": "c2"},
                {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-001"], "on": "c2"}]
    life = list(run(ex_shift).match.p["P1"]["life"])
    for leave in ({"op": "destroy", "square": "c2"},
                  {"op": "move", "square": "c2", "from": "square", "to": "life", "owner": "P1"}):
        c = run([*ex_shift, {"do": "effect", "by": "P1", "source": "R01-014", **leave}])
        z = c.match.p["P1"]
        assert c.match.sq["c2"] is None and z["charge"] == [] and z["life"] == life, leave
        assert sorted(d["code"] for d in z["dynamis"] if d["up"]) == ["EX-R01", "EX-R03"], leave
        (applied,) = [e for e in c.match.pending_events if type(e).__name__ == "EffectApplied"][-1:]
        assert "into_life" not in applied.args  # (the analytics' Life counts: nothing joined Life)


def test_202_11c_a_token_that_leaves_square_disappears():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "token", "square": "c2",
                     "name": "Ember Whelp Token", "power": 1000},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "c2"}]
    m = run(recs).match
    assert m.sq["c2"] is None and m.p["P1"]["charge"] == [] and m.p["P1"]["trash"] == []


def test_202_12d_counters_cannot_go_below_zero():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "counter", "delta": 2},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "counter", "delta": -3}]
    assert run(recs[:-1]).match.p["P1"]["counters"] == 2
    rejects(recs, "202.12d", line_of(recs, len(recs) - 1))


def test_202_13f_a_link_is_unaffected_by_effects_not_naming_links():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "W01-018", "op": "link", "square": "c2"},
            {"do": "effect", "by": "P2", "source": "U01-014", "op": "destroy", "square": "c2", "target": "link"}]
    assert run(recs[:-1]).match.links == {"c2": ["P1"]}
    rejects(recs, "202.13f", line_of(recs, len(recs) - 1))


def test_202_13f_an_effect_naming_links_affects_them():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "W01-018", "op": "link", "square": "c2"},
            {"do": "effect", "by": "P1", "source": "G01-009", "op": "destroy", "square": "c2", "target": "link"}]
    assert run(recs).match.links == {"c2": []}


def charge_five() -> list[dict]:
    """P2's Charge reaches 5 in turn 3: returns the records up to that point."""
    deck = Counter(deck_by_name("Blue Control").deck)
    used = Counter(SETUP[1]["hand"] + SETUP[1]["life"] + SETUP[1]["resource"] + ["U01-003", "U01-004"])
    rest = sorted((deck - used).elements())
    five = [c for c in rest if c.startswith("U01-00")][:5]
    moves = [{"do": "effect", "by": "P2", "source": "U01-017", "op": "move", "card": c, "from": "deck",
              "to": "charge"} for c in five]
    return [*BOARD, *moves]


def test_905_charge_above_4_must_be_trashed_next():
    recs = [*charge_five(), {"do": "end", "by": "P1"}]
    rejects(recs, "905", line_of(recs, len(recs) - 1))


def test_905_charge_excess_trashes_exactly_the_excess():
    recs = charge_five()
    two = [r["card"] for r in recs[-2:]]
    recs = [*recs, {"do": "charge_excess", "by": "P2", "trash": two}]
    err = rejects(recs, "905", line_of(recs, len(recs) - 1))
    assert "exactly 1" in err.message


def test_905_no_charge_excess_below_the_limit():
    recs = [*BOARD, {"do": "charge_excess", "by": "P1", "trash": []}]
    rejects(recs, "905", line_of(recs, len(recs) - 1))


def test_202_8d_a_shift_does_not_stand_alone_on_square():
    hdr = header()
    hdr["players"]["P1"]["dynamis"] = {"EX-R03": 1}
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": "EX-R03",
                     "from": "dynamis", "to": "square", "dest": "c2", "owner": "P1"}]
    rejects(recs, "202.8d", line_of(recs, len(recs) - 1), hdr=hdr)


def test_303_6a_an_effect_on_the_player_card_or_a_link_leaves_the_zx_on_that_square():
    """``target: player`` or ``link`` says what on the Square the effect acts on (docs/match-log.md;
    202.13f, 303.6a): a destroy, damage, power or sleep effect aimed at the Player card or a Link was
    applied to the Z/X standing there (it left the Square, and an attack on the player was accepted)."""
    for effect in ({"op": "destroy"}, {"op": "damage", "amount": 9000}, {"op": "power", "delta": -9000, "until": "end_of_turn"},
                   {"op": "sleep"}):
        for target in ("player", "link"):
            rec = {"do": "effect", "by": "P1", "source": "b2", "square": "b3", "target": target, **effect}
            m = run([*BOARD, rec], strict=False).match
            zx = m.sq["b3"]
            assert zx is not None and zx["code"] == "U01-003", (effect, target)
            assert (zx["dmg"], zx["mods"], zx["sleep"]) == (0, [], False), (effect, target)
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "b2", "op": "destroy", "square": "b3"}], strict=False).match
    assert m.sq["b3"] is None  # (aimed at the Z/X itself: destroyed, as before)


def test_302_1b_a_card_an_effect_puts_on_square_is_controlled_by_its_owner():
    """"Unless otherwise specified, the controller of a card is the owner of that card": P2's Z/X put
    on a3 by P1's effect was P1's to attack with (the engine gave it to whoever wrote the effect)."""
    put = {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": "U01-002", "from": "hand",
           "to": "square", "dest": "a3", "owner": "P2"}
    m = run([*BOARD, put], strict=False).match
    assert (m.sq["a3"]["owner"], m.sq["a3"]["ctrl"]) == ("P2", "P2")
    recs = [*BOARD, put, {"do": "attack", "by": "P1", "from": "a3", "target": "b3"}]
    rejects(recs, "602.1a", line_of(recs, len(recs) - 1))


def test_202_8a_a_match_imported_under_digest_2_replays_as_it_was_imported():
    """The Shift's way to Dynamis is a rules change of digest.3 made in the state's own handler: a
    match stored under digest.2 must replay as it was checked then (its Shift in Charge), or later
    events of it would meet another state; one imported now goes to Dynamis."""
    import copy

    from zx_events.games import digest_of
    from zx_events.games.zx.rules import RULES_VERSION
    from zx_events.ids import project

    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "b1", "op": "move", "card": "EX-R01",
                     "from": "dynamis", "to": "square", "dest": "c2"},
            {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-001"], "on": "c2"},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "c2"}]
    events = copy.deepcopy(list(run(recs).match.pending_events))
    assert digest_of(events[0].rules_version) == digest_of(RULES_VERSION) >= 3
    now = project(None, copy.deepcopy(events)).p["P1"]
    assert [c["code"] for c in now["charge"]] == [] and "EX-R03" in [d["code"] for d in now["dynamis"] if d["up"]]
    events[0].__dict__["rules_version"] = "zx-cr-seed-2026.11+digest.2"
    then = project(None, events).p["P1"]
    assert "EX-R03" in str(then["charge"]) and "EX-R03" not in [d["code"] for d in then["dynamis"] if d["up"]]


# ---------------------------------------------------------------- the shared zones: Temporary and Force (301.1)
FLASH = {"do": "play", "by": "P1", "card": "R01-014", "pay": []}  # an Event: it resolves in Temporary


def _out_of(zone: str, code: str, to: str = "hand", **more) -> dict:
    return {"do": "effect", "by": "P1", "source": "b2", "op": "move", "card": code, "from": zone, "to": to, **more}


def test_301_1_a_card_is_moved_out_of_the_temporary_zone_only_when_it_is_there():
    """Temporary holds the Event being resolved and the cards an effect put there: a card named out of it
    that is not there (a Z/X EX still in Dynamis, a card still in the deck) is refused, not conjured."""
    for rec in (_out_of("temporary", "EX-R01", to="square", dest="c1"), _out_of("temporary", "R01-013"),
                _out_of("temporary", "R01-004")):  # (R01-004 is in P1's hand, not in Temporary)
        recs = [*BOARD, rec]
        err = rejects(recs, "301.1", line_of(recs, len(recs) - 1))
        assert err.message == (f"{rec['card']} of P1 is not in the Temporary Zone (it holds the Event being "
                               f"resolved and the cards an effect put there)")
    m = run([*BOARD, _out_of("hand", "R01-004", to="temporary"), _out_of("temporary", "R01-004")]).match
    assert m.temporary == [] and m.p["P1"]["hand"].count("R01-004") == 1


def test_301_1_a_card_is_moved_out_of_the_force_zone_only_when_it_is_there():
    recs = [*BOARD, _out_of("force", "R01-004")]
    err = rejects(recs, "301.1", line_of(recs, len(recs) - 1))
    assert err.message == "R01-004 of P1 is not in the Force Zone"
    c = run(recs, strict=False)
    assert [v.rule for v in c.violations] == ["301.1"] and c.match.p["P1"]["hand"].count("R01-004") == 1
    m = run([*BOARD, _out_of("hand", "R01-004", to="force", dest="a1"), _out_of("force", "R01-004")]).match
    assert m.force == [] and m.p["P1"]["hand"].count("R01-004") == 1


def test_301_1_the_event_being_resolved_is_moved_out_of_temporary():
    """An Event resolves in Temporary (the state sends it on to Trash at once): an effect of its resolution may
    move it from there, once; after its resolution (the next record but its effects) it is not there."""
    m = run([*BOARD, FLASH, _out_of("temporary", "R01-014")]).match
    assert m.p["P1"]["hand"].count("R01-014") == 1 and "R01-014" not in m.p["P1"]["trash"]
    gone = [_out_of("temporary", "R01-014", to="charge"),  # moved out already
            {"do": "attack", "by": "P1", "from": "b2", "target": "a2"},  # its resolution is over
            {"do": "effect", "by": "P1", "source": "b2", "op": "counter", "delta": 1, "startup": True}]
    for after in gone:
        recs = [*BOARD, FLASH, after, _out_of("temporary", "R01-014")]
        rejects(recs, "301.1", line_of(recs, len(recs) - 1))
    # an EV EX resolving is back in Dynamis face-up (202.9a): moved out of Temporary, it goes there again, once
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "EX-R02", "from": "dynamis", "pay": ["R01-001", "R01-002"]},
            _out_of("temporary", "EX-R02")]
    dyn = [d for d in run(recs).match.p["P1"]["dynamis"] if d["code"] == "EX-R02"]
    assert sorted(d["up"] for d in dyn) == [False, True]


def test_301_1_a_match_imported_under_digest_4_replays_its_moves_out_of_temporary_as_imported():
    """Taking the resolving Event from where the state sent it is a digest.5 change in the state's own handler:
    a match stored under digest.4 replays as it was checked then (the card put into `to`, and left in Trash)."""
    import copy

    from zx_events.games import digest_of
    from zx_events.ids import project

    events = copy.deepcopy(list(run([*BOARD, FLASH, _out_of("temporary", "R01-014")]).match.pending_events))
    assert digest_of(events[0].rules_version) >= 5
    now = project(None, copy.deepcopy(events)).p["P1"]
    assert now["hand"].count("R01-014") == 1 and "R01-014" not in now["trash"]
    events[0].__dict__["rules_version"] = "zx-cr-seed-2026.11+digest.4"
    then = project(None, events).p["P1"]
    assert then["hand"].count("R01-014") == 1 and then["trash"] == ["R01-014"]
