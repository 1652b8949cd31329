"""Deck construction (401) and the shipped sample decks."""

from __future__ import annotations

import dataclasses

import pytest

from zx_events.games.zx.cards import Catalog, CardType, load_catalog
from zx_events.games.zx.decks import Deck, check_deck, deck_by_name, sample_catalog_name, sample_decks


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog("sample")


@pytest.fixture
def red() -> Deck:
    return deck_by_name("Red Dragons")


def problems(cat, deck, dynamis=None, player="PL-001"):
    return check_deck(cat, deck, dynamis, player)


def only(found: list[tuple[str, str]], *fragments: str) -> None:
    """Exactly one problem per fragment, each citing 401, in any order."""
    assert len(found) == len(fragments), found
    for frag in fragments:
        assert any(rule == "401" and frag in msg for rule, msg in found), (frag, found)


# ---------------------------------------------------------------- the sample decks

def test_sample_decks_are_legal(cat):
    decks = sample_decks()
    assert len(decks) >= 4
    assert sample_catalog_name() == "sample"
    for d in decks:
        assert check_deck(cat, d.deck, d.dynamis, d.player_card) == [], d.name
        assert d.size == 50


def test_sample_decks_have_different_colours_and_names():
    decks = sample_decks()
    assert len({d.name for d in decks}) == len(decks)
    assert len({frozenset(d.colors) for d in decks}) >= 4
    assert {d.name for d in decks} >= {"Red Dragons", "Blue Control", "White Knights", "Black Reapers"}


def test_sample_decks_are_playable_with_their_colours(cat):
    for d in sample_decks():
        for code in d.deck:
            card = cat[code]
            assert card.colourless or set(card.colors) & set(d.colors), (d.name, code)
        assert cat[d.player_card].is_player


def test_sample_decks_can_develop(cat):
    for d in sample_decks():
        cheap_zx = sum(n for code, n in d.deck.items() if cat[code].is_zx and cat[code].cost <= 2)
        assert cheap_zx >= 16, d.name
        assert any(cat[code].range is not None for code in d.deck), d.name
        assert any(cat[code].is_event for code in d.deck), d.name


def test_at_least_two_sample_decks_have_every_dynamis_type(cat):
    full = {CardType.ZX_EX, CardType.EV_EX, CardType.SHIFT, CardType.ZX_OB}
    with_all = [d.name for d in sample_decks() if {cat[c].type for c in d.dynamis} == full]
    assert len(with_all) >= 2


def test_deck_by_name_and_unknown_name():
    assert deck_by_name("Blue Control").colors == ("blue",)
    with pytest.raises(KeyError) as ei:
        deck_by_name("Purple Haze")
    msg = str(ei.value)
    assert "Purple Haze" in msg and "Red Dragons" in msg and "Black Reapers" in msg


def test_deck_is_frozen_and_fresh_per_call(red):
    with pytest.raises(dataclasses.FrozenInstanceError):
        red.name = "x"  # type: ignore[misc]
    red.deck["R01-001"] = 99
    assert deck_by_name("Red Dragons").deck["R01-001"] == 4
    assert isinstance(hash(red), int)


def test_to_header_player(red):
    h = red.to_header_player("Aki")
    assert h == {"name": "Aki", "deck_name": "Red Dragons", "player_card": "PL-001",
                 "deck": red.deck, "dynamis": red.dynamis}
    assert h["deck"] is not red.deck
    green = deck_by_name("Green Beasts")
    assert green.dynamis == {}
    assert "dynamis" not in green.to_header_player("Ren")
    assert set(green.to_header_player("Ren")) == {"name", "deck_name", "player_card", "deck"}


# ---------------------------------------------------------------- 401 violations

def test_401_main_deck_49_cards(cat, red):
    deck = dict(red.deck)
    deck["R01-017"] -= 1
    only(problems(cat, deck), "main deck has 49 cards, needs exactly 50")


def test_401_main_deck_51_cards(cat, red):
    deck = dict(red.deck)
    deck["R01-018"] = 1
    only(problems(cat, deck), "main deck has 51 cards, needs exactly 50")


def test_401_five_copies_of_a_name_over_two_codes(cat, red):
    assert cat["R01-003"].name == cat["R01-019"].name
    deck = dict(red.deck)
    deck["R01-003"] = 3  # with R01-019 x2: 5 Crimson Drake Vanguard
    deck["R01-009"] -= 1
    found = problems(cat, deck)
    only(found, "main deck has 5 copies of 'Crimson Drake Vanguard' (R01-003 x3, R01-019 x2), at most 4")


def test_401_five_copies_of_one_code(cat, red):
    deck = dict(red.deck)
    deck["R01-001"] = 5
    deck["R01-009"] -= 1
    only(problems(cat, deck), "5 copies of 'Ember Whelp Scout'")


def test_401_nineteen_ig_cards(cat, red):
    deck = dict(red.deck)
    deck["R01-014"] -= 1  # IG event out
    deck["R01-017"] += 1  # non-IG event in
    only(problems(cat, deck), "main deck has 19 cards with the IG icon, needs exactly 20")


def test_401_twenty_one_ig_cards(cat, red):
    deck = dict(red.deck)
    deck["R01-017"] -= 1
    deck["R01-016"] = 1
    only(problems(cat, deck), "main deck has 21 cards with the IG icon, needs exactly 20")


def test_401_five_lr_cards(cat):
    d = deck_by_name("White Knights")
    deck = dict(d.deck)
    deck["W01-011"] -= 1  # IG, not LR
    deck["R01-011"] = 1  # IG/LR (red, but colour is no construction rule)
    only(problems(cat, deck, d.dynamis, d.player_card), "main deck has 5 Life Recovery (LR) cards, at most 4")


def test_401_five_vb_cards(cat, red):
    deck = dict(red.deck)
    deck["R01-015"] -= 1
    deck["K01-012"] = 1  # IG/VB
    only(problems(cat, deck), "main deck has 5 Void Bringer (VB) cards, at most 4")


def test_401_event_extra_in_main_deck(cat, red):
    deck = dict(red.deck)
    deck["R01-017"] -= 1
    deck["EX-R02"] = 1
    only(problems(cat, deck), "main deck: EX-R02 'Dragonfire Cataclysm' is an EV EX; only Z/X and Event")  # (it said "a EV EX")


@pytest.mark.parametrize("code", ["EX-R01", "EX-R03", "EX-R04", "PL-002", "TK-001"])
def test_401_only_zx_and_event_in_main_deck(cat, red, code):
    deck = dict(red.deck)
    deck["R01-017"] -= 1
    deck[code] = 1
    only(problems(cat, deck), f"main deck: {code} ")


def test_401_seventeen_dynamis_cards(cat, red):
    dyn = {"EX-R01": 4, "EX-R02": 4, "EX-R03": 4, "EX-R04": 4, "EX-U01": 1}
    only(problems(cat, red.deck, dyn), "Dynamis deck has 17 cards, at most 16")
    assert problems(cat, red.deck, {"EX-R01": 4, "EX-R02": 4, "EX-R03": 4, "EX-R04": 4}) == []


def test_401_five_of_a_name_in_dynamis(cat, red):
    only(problems(cat, red.deck, {"EX-R01": 5}), "Dynamis deck has 5 copies of 'Crimson Drake Emperor'")


@pytest.mark.parametrize("code", ["R01-001", "R01-014", "PL-001", "PL-EX1", "TK-001"])
def test_401_dynamis_only_takes_dynamis_types(cat, red, code):
    only(problems(cat, red.deck, {code: 1}), f"Dynamis deck: {code} ")


def test_401_dynamis_is_optional(cat, red):
    assert problems(cat, red.deck, None) == []
    assert problems(cat, red.deck, {}) == []


def test_401_player_card_not_a_player(cat, red):
    only(problems(cat, red.deck, red.dynamis, "R01-001"),
         "player card R01-001 'Ember Whelp Scout' is a Z/X, not a Player or PL EX")
    only(problems(cat, red.deck, red.dynamis, "EX-R01"), "player card EX-R01")


def test_401_player_card_pl_ex_is_allowed(cat, red):
    assert problems(cat, red.deck, red.dynamis, "PL-EX1") == []
    assert problems(cat, red.deck, red.dynamis, None) == []


def test_401_unknown_codes_are_reported_not_raised(cat, red):
    deck = dict(red.deck)
    deck["R01-017"] -= 1
    deck["ZZ-999"] = 1
    found = problems(cat, deck, {"EX-ZZ": 1}, "PL-999")
    assert ("401", "main deck: unknown card code ZZ-999") in found
    assert ("401", "Dynamis deck: unknown card code EX-ZZ") in found
    assert ("401", "player card: unknown card code PL-999") in found
    # the unknown card still counts toward the 50, so no size problem
    assert not any("cards, needs exactly 50" in m for _, m in found)
    assert len(found) == 3


@pytest.mark.parametrize("copies", [0, -1, 1.5, "2", True, None])
def test_401_copies_must_be_positive_whole_numbers(cat, red, copies):
    deck = dict(red.deck)
    deck["R01-018"] = copies
    found = problems(cat, deck)
    only(found, f"main deck: R01-018 copies must be a positive whole number, got {copies!r}")


def test_401_every_problem_is_reported(cat):
    deck = {"R01-001": 5, "R01-011": 5, "EX-R02": 1}
    found = check_deck(cat, deck, {"EX-R01": 17}, "R01-002")
    msgs = "\n".join(m for _, m in found)
    for frag in ("EX-R02", "has 11 cards", "5 copies of 'Ember Whelp Scout'", "5 copies of 'Phoenix Ember Healer'",
                 "5 cards with the IG icon", "5 Life Recovery", "Dynamis deck has 17 cards",
                 "17 copies of 'Crimson Drake Emperor'", "player card R01-002"):
        assert frag in msgs, frag
    assert all(rule == "401" for rule, _ in found)
