"""The X610Z catalog CSV and the sample decks."""

import pytest

from zx_events.errors import CatalogError
from zx_events.games.x610z.cards import TYPES, load_catalog, parse_catalog, parse_energy
from zx_events.games.x610z.decks import check_deck, sample_decks

from zx_events.games.x610z.cards import HEADER


def test_x610z_sample_catalog_covers_every_card_type_and_ability_kind():
    cat = load_catalog("x610z-sample")
    assert {c.type for c in cat.cards.values()} == set(TYPES)
    assert {k for c in cat.cards.values() for k in c.abilities} == {"activated", "paid", "triggered", "continuous"}
    assert sum(c.is_life_base for c in cat.cards.values()) == 2
    assert {t for c in cat.cards.values() for a in c.produces for t in a} == {"M", "B", "C"}
    assert {k for c in cat.cards.values() for k in c.counters} == {"activation", "time"}
    assert cat["A1-021"].cost == {"B": 1, "C": 1} and cat["A1-001"].restriction == 1


def test_x610z_energy_strings():
    assert parse_energy("B1C1", ("M", "B"), "x") == {"B": 1, "C": 1}
    with pytest.raises(CatalogError, match="unknown energy type 'F'"):
        parse_energy("F1", ("M", "B"), "x")
    with pytest.raises(CatalogError, match="bad energy string"):
        parse_energy("M1x", ("M", "B"), "x")


def test_x610z_203_2a_catalog_declares_extra_energy_types():
    text = "# types: F\n" + ",".join(HEADER) + "\nA1-001,Fire Crystal,Energy Crystal,yes,,inf,,,,,,,,,,,,F1,,,\n"
    assert parse_catalog(text, name="t", source="t.csv")["A1-001"].produces == ({"F": 1},)


def test_x610z_catalog_row_error_names_file_and_line():
    text = ",".join(HEADER) + "\nA1-001,X,Summon,yes,,1,,,,1,1,1,1,,,,,,,,\n"
    with pytest.raises(CatalogError) as info:
        parse_catalog(text, name="t", source="t.csv")
    assert str(info.value) == "t.csv:2: format: A1-001: a Summon needs a class (402.2)"


def test_x610z_four_sample_decks_are_legal():
    decks = sample_decks()
    cat = load_catalog(decks["catalog"])
    assert len(decks["decks"]) >= 4
    for d in decks["decks"]:
        assert check_deck(cat, d["deck"], d.get("side"), decks["format"]) == [], d["name"]


def test_x610z_a_catalog_that_is_not_utf8_is_named(tmp_path):
    """--catalog FILE not UTF-8 said "format: catalog is not UTF-8: ..." without naming FILE (every game
    refused it before reading a row, and the message built from theirs dropped the file)."""
    from zx_events.games import load_catalogs

    p = tmp_path / "cat-binary.csv"
    p.write_bytes(b"\xff\xfe" + ",".join(HEADER).encode() + b"\n")
    with pytest.raises(CatalogError) as info:
        load_catalogs(str(p))
    assert str(info.value).startswith(f"{p}:1: format: the catalog file is not UTF-8: byte 0xff at byte offset 0 ")
