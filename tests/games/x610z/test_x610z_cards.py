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


# ---------------------------------------------------------------------- rows the rules rule out (QA round 28, formats 6)
def _sample_rows() -> list[str]:
    from importlib import resources

    return resources.files("zx_events.games.x610z").joinpath("catalogs", "x610z-sample.csv").read_text(
        encoding="utf-8").splitlines(keepends=True)


def _refused_row(code: str, old: str, new: str) -> CatalogError:
    """The shipped catalog with the row of ``code`` changed (``old`` -> ``new``), refused at that row's line."""
    rows = _sample_rows()
    (i,) = [n for n, r in enumerate(rows) if r.startswith(code + ",")]
    assert old in rows[i]
    rows[i] = rows[i].replace(old, new, 1)
    with pytest.raises(CatalogError) as info:
        parse_catalog("".join(rows), name="venue", source="venue.csv")
    assert (info.value.source, info.value.line) == ("venue.csv", i + 1)
    return info.value


def test_402_4_a_summon_that_is_no_life_base_without_an_element_is_refused():
    """Hunter Dragon with no element loaded and imported with 0 violations: 402.4 "All Non Life Base summons have an
    Element"."""
    e = _refused_row("A1-020", ",Dragon,Fire,", ",Dragon,,")
    assert e.message == ("A1-020: a summon that is no Life Base has an Element (402.4): the element column is empty "
                         "(class Dragon)")


def test_402_5_a_life_base_with_an_element_is_refused():
    """A Life Base with element Fire loaded: 402.5 "The Life Base summon doesn't have and can't get an Element", and
    the spec's table "(no element, 402.5)"."""
    e = _refused_row("A1-001", ",Life Base,,", ",Life Base,Fire,")
    assert e.message == "A1-001: a Life Base has no Element (402.5), got element 'Fire'"


@pytest.mark.parametrize("column, value, rule", [
    ("class", "Dragon", "402.2"), ("element", "Water", "402.4"), ("attack", "7", "402.10"), ("defense", "7", "402.10"),
    ("speed", "7", "402.10"), ("range", "7", "402.10"), ("move_cost", "M1", "204.5"),
])
def test_402_an_energy_crystal_with_a_summon_only_column_is_refused(column, value, rule):
    """An Energy Crystal with class, element, stats and a move_cost loaded (the spec's table: Summon only)."""
    rows = _sample_rows()
    header = rows[0].strip().split(",")
    (i,) = [n for n, r in enumerate(rows) if r.startswith("A1-010,")]
    cells = rows[i].rstrip("\n").split(",")
    assert cells[header.index(column)] == ""
    cells[header.index(column)] = value
    rows[i] = ",".join(cells) + "\n"
    with pytest.raises(CatalogError) as info:
        parse_catalog("".join(rows), name="venue", source="venue.csv")
    assert (info.value.source, info.value.line) == ("venue.csv", i + 1)
    assert info.value.message == (f"A1-010: an Energy Crystal has no {column} ({rule}: a Summon's column, "
                                  f"docs/match-log-x610z.md, Card catalog), got {value!r}")


def test_402_the_shipped_catalog_and_sample_decks_pass_the_row_checks():
    from importlib import resources

    cat = load_catalog("x610z-sample")
    text = resources.files("zx_events.games.x610z").joinpath("catalogs", "x610z-sample.csv").read_text(encoding="utf-8")
    assert parse_catalog(text, name="x610z-sample", source="x.csv").sha256 == cat.sha256
    assert all(bool(c.element) != c.is_life_base for c in cat.cards.values() if c.is_summon)
