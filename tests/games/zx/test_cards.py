"""The card catalog reader (202 card types) and the shipped sample catalog."""

from __future__ import annotations

import math
from importlib import resources

import pytest

from zx_events.games.zx.cards import (
    COLOURS, HEADER, INF, Card, CardType, Catalog, builtin_catalog_names, load_catalog, parse_catalog,
    read_catalog,
)
from zx_events.errors import CatalogError, FormatError

HEAD = ",".join(HEADER)
GOOD = [
    "R01-001,Ember Whelp Scout,Z/X,red,0,1500,Dragon,,",
    "R01-014,Flash Fire,Event,red,0,,,IG,",
    "PL-001,Kaito Blazeheart,Player,red,,,,,",
]


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog("sample")


def write(tmp_path, lines: list[str], name: str = "bad.csv"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def expect_error_at(tmp_path, lines: list[str], line: int, fragment: str) -> CatalogError:
    p = write(tmp_path, lines)
    with pytest.raises(CatalogError) as ei:
        read_catalog(p)
    err = ei.value
    assert str(err).startswith(f"{p}:{line}: "), str(err)
    assert err.line == line and err.source == str(p)
    assert fragment in str(err)
    return err


# ---------------------------------------------------------------- the sample catalog

def test_sample_is_shipped_and_loads(sample):
    assert "sample" in builtin_catalog_names()
    assert sample.name == "sample"
    assert 110 <= len(sample) <= 160
    assert len(sample.sha256) == 64
    assert sample.ref == {"name": "sample", "sha256": sample.sha256}


def test_sample_covers_every_catalog_type(sample):
    types = {c.type for c in sample.cards.values()}
    assert types == {CardType.ZX, CardType.EVENT, CardType.PLAYER, CardType.ZX_EX, CardType.ZX_OB,
                     CardType.SHIFT, CardType.EV_EX, CardType.PL_EX, CardType.TOKEN}


def test_sample_covers_every_colour_colourless_and_multicolour(sample):
    colours = {col for c in sample.cards.values() for col in c.colors}
    assert colours == set(COLOURS)
    assert any(c.colourless for c in sample.cards.values())
    assert sample["N01-001"].colors == ()
    multi = [c for c in sample.cards.values() if len(c.colors) >= 2]
    assert len(multi) >= 4
    assert sample["M01-001"].colors == ("red", "blue")
    assert sample["M01-006"].colors == COLOURS


def test_sample_icons_lr_and_vb_carry_ig(sample):
    cards = list(sample.cards.values())
    assert any(c.icons == frozenset({"IG"}) for c in cards)
    lr = [c for c in cards if c.life_recovery]
    vb = [c for c in cards if c.void_bringer]
    assert lr and vb
    assert all(c.ignition for c in lr + vb)
    assert sample["R01-011"].icons == frozenset({"IG", "LR"})
    assert sample["U01-016"].icons == frozenset({"IG", "VB"})


def test_sample_ranges(sample):
    assert sample["R01-005"].range == 2
    assert sample["R01-007"].range == 3
    assert sample["R01-008"].range == INF
    ranged = {c.range for c in sample.cards.values() if c.range is not None}
    assert ranged == {2, 3, INF}
    assert all(c.is_zx for c in sample.cards.values() if c.range is not None)


def test_sample_players_dynamis_tokens_keywords(sample):
    cards = list(sample.cards.values())
    assert sum(c.type is CardType.PLAYER for c in cards) >= 4
    assert sum(c.type is CardType.PL_EX for c in cards) >= 1
    dyn_types = {CardType.ZX_EX, CardType.EV_EX, CardType.SHIFT, CardType.ZX_OB}
    for colour in COLOURS:
        have = {c.type for c in cards if c.colors == (colour,) and c.type in dyn_types}
        assert have == dyn_types, colour
    tokens = [c for c in cards if c.type is CardType.TOKEN]
    assert len(tokens) >= 2
    assert all(t.power is not None and t.cost is None for t in tokens)
    assert any(c.has_keyword("link") for c in cards)
    assert any(c.type is CardType.EVENT and c.has_keyword("counter") for c in cards)


def test_sample_costs_and_powers_are_sane(sample):
    for c in sample.cards.values():
        if c.type is CardType.ZX:
            assert 0 <= c.cost <= 5 and 1000 <= c.power <= 9000, c
            if c.cost == 0:
                assert c.power <= 2500, c
        elif c.type is CardType.EVENT:
            assert 0 <= c.cost <= 3 and c.power is None, c
        elif c.type.is_player:
            assert c.cost is None and c.power is None, c


def test_sample_each_colour_has_enough_cards_for_a_deck(sample):
    for colour in COLOURS:
        mine = [c for c in sample.cards.values() if c.colors == (colour,) and c.type.in_main_deck]
        assert len({c.name for c in mine if c.ignition}) >= 7, colour
        assert len({c.name for c in mine if not c.ignition}) >= 9, colour


def test_sample_has_an_alternate_print_sharing_a_name(sample):
    a, b = sample["R01-003"], sample["R01-019"]
    assert a.code != b.code and a.name == b.name


# ---------------------------------------------------------------- 202 card types

def test_202_2_every_card_type_is_readable():
    rows = [
        "A,a,Z/X,red,1,1000,,,", "B,b,Event,red,1,,,,", "C,c,Player,red,,,,,",
        "D,d,Z/X EX,red,3,7000,,,", "E,e,Z/X OB,red,,9000,,,", "F,f,Shift,red,1,,,,",
        "G,g,EV EX,red,2,,,,", "H,h,PL EX,red,,,,,", "I,i,Token,none,,1000,,,",
    ]
    cat = parse_catalog("\n".join([HEAD, *rows]), name="t", source="t.csv")
    assert [cat[k].type.value for k in "ABCDEFGHI"] == [
        "Z/X", "Event", "Player", "Z/X EX", "Z/X OB", "Shift", "EV EX", "PL EX", "Token"]


def test_202_2_long_type_names_are_accepted():
    rows = ["A,a,Z/X Extra,red,3,7000,,,", "B,b,Event Extra,red,2,,,,", "C,c,Z/X Overboost,red,,9000,,,",
            "D,d,Player Extra,red,,,,,"]
    cat = parse_catalog("\n".join([HEAD, *rows]), name="t", source="t.csv")
    assert [cat[k].type for k in "ABCD"] == [CardType.ZX_EX, CardType.EV_EX, CardType.ZX_OB, CardType.PL_EX]


def test_202_2a_token_counter_link_are_markers():
    assert CardType.TOKEN.is_marker and CardType.COUNTER.is_marker and CardType.LINK.is_marker
    assert not any(t.is_marker for t in CardType if t not in (CardType.TOKEN, CardType.COUNTER, CardType.LINK))


@pytest.mark.parametrize("type_", ["Counter", "Link"])
def test_202_2a_counter_and_link_have_no_catalog_rows(tmp_path, type_):
    expect_error_at(tmp_path, [HEAD, GOOD[0], f"X-1,x,{type_},none,,,,,"], 3, "unknown card type")


def test_202_6a_zx_ex_counts_as_zx(sample):
    card = sample["EX-R01"]
    assert card.type is CardType.ZX_EX and card.is_zx and not card.is_event
    assert card.type.is_extra and card.type.in_dynamis and not card.type.in_main_deck


def test_202_7a_zx_ob_counts_as_zx(sample):
    card = sample["EX-R04"]
    assert card.type is CardType.ZX_OB and card.is_zx
    assert card.type.in_dynamis and not card.type.is_extra


def test_202_8_shift_is_not_zx(sample):
    card = sample["EX-R03"]
    assert card.type is CardType.SHIFT and not card.is_zx and not card.is_event
    assert card.type.in_dynamis


def test_202_9a_ev_ex_counts_as_event(sample):
    card = sample["EX-R02"]
    assert card.type is CardType.EV_EX and card.is_event and not card.is_zx
    assert card.type.is_extra and card.type.in_dynamis


def test_202_10a_pl_ex_counts_as_player(sample):
    card = sample["PL-EX1"]
    assert card.type is CardType.PL_EX and card.is_player
    assert not card.type.in_main_deck and not card.type.in_dynamis


def test_202_only_zx_and_event_go_in_main_deck():
    assert {t for t in CardType if t.in_main_deck} == {CardType.ZX, CardType.EVENT}
    assert {t for t in CardType if t.in_dynamis} == {CardType.ZX_EX, CardType.SHIFT, CardType.EV_EX, CardType.ZX_OB}


# ---------------------------------------------------------------- Card properties

def test_range_property():
    assert Card("a", "a", CardType.ZX, power=1).range is None
    assert Card("a", "a", CardType.ZX, power=1, keywords=("range:2",)).range == 2
    assert Card("a", "a", CardType.ZX, power=1, keywords=("range:inf",)).range == INF
    assert math.isinf(Card("a", "a", CardType.ZX, power=1, keywords=("range:2", "range:inf")).range)
    assert Card("a", "a", CardType.ZX, power=1, keywords=("range:3", "range:2")).range == 3


def test_keywords_icons_and_colours_are_parsed():
    cat = parse_catalog(f"{HEAD}\nA,Alpha,Z/X,red/blue,inf,3000,Dragon,IG/LR, range:2 ; custom ;\n",
                        name="t", source="t.csv")
    a = cat["A"]
    assert a.colors == ("red", "blue") and a.cost == INF and a.power == 3000 and a.race == "Dragon"
    assert a.icons == frozenset({"IG", "LR"}) and a.ignition and a.life_recovery and not a.void_bringer
    assert a.keywords == ("range:2", "custom") and a.has_keyword("range") and a.has_keyword("custom")
    assert a.to_json()["cost"] == "inf"


def test_quoted_name_with_comma():
    cat = parse_catalog(f'{HEAD}\nA,"Drake, the Bold",Z/X,red,1,3000,,,\n', name="t", source="t.csv")
    assert cat["A"].name == "Drake, the Bold"


def test_blank_lines_are_skipped_and_counted(tmp_path):
    expect_error_at(tmp_path, [HEAD, "", GOOD[0], "", "B,b,Z/X,red,1,,,,"], 5, "needs a power")


def test_utf8_bom_is_ignored():
    cat = parse_catalog("\ufeff" + HEAD + "\n" + GOOD[0] + "\n", name="t", source="t.csv")
    assert "R01-001" in cat


# ---------------------------------------------------------------- bad rows: FILE:LINE

def test_bad_header_line_1(tmp_path):
    expect_error_at(tmp_path, ["code,name,type,colour,cost,power,race,icons,keywords", GOOD[0]], 1, "header must be")


def test_empty_file_line_1(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_text("", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"empty\.csv:1: "):
        read_catalog(p)


def test_wrong_column_count(tmp_path):
    expect_error_at(tmp_path, [HEAD, GOOD[0], GOOD[1], "R01-002,Cinder Hatchling,Z/X,red,1,3000,Dragon,"], 4,
                    "expected 9 columns, got 8")


def test_unknown_type(tmp_path):
    expect_error_at(tmp_path, [HEAD, GOOD[0], "R01-002,Cinder,Creature,red,1,3000,,,"], 3, "unknown card type 'Creature'")


def test_bad_colour(tmp_path):
    expect_error_at(tmp_path, [HEAD, "R01-002,Cinder,Z/X,purple,1,3000,,,"], 2, "unknown colour 'purple'")


def test_empty_colour(tmp_path):
    expect_error_at(tmp_path, [HEAD, GOOD[0], "R01-002,Cinder,Z/X,,1,3000,,,"], 3, "empty colour")


def test_colour_twice(tmp_path):
    expect_error_at(tmp_path, [HEAD, "R01-002,Cinder,Z/X,red/red,1,3000,,,"], 2, "colour listed twice")


@pytest.mark.parametrize("cost", ["two", "-1", "1.5", "1_000", "+2"])
def test_bad_cost(tmp_path, cost):
    expect_error_at(tmp_path, [HEAD, GOOD[0], GOOD[1], f"R01-002,Cinder,Z/X,red,{cost},3000,,,"], 4, "R01-002: cost")


def test_bad_power(tmp_path):
    expect_error_at(tmp_path, [HEAD, "R01-002,Cinder,Z/X,red,1,lots,,,"], 2, "R01-002: power")


def test_power_inf_is_not_allowed(tmp_path):
    expect_error_at(tmp_path, [HEAD, "R01-002,Cinder,Z/X,red,1,inf,,,"], 2, "R01-002: power")


@pytest.mark.parametrize("kw", ["range:0", "range:x", "range:", "range:-1", "range:\u00b2"])
def test_bad_range(tmp_path, kw):
    expect_error_at(tmp_path, [HEAD, GOOD[0], f"R01-005,Magma,Z/X,red,3,6000,,,{kw}"], 3, "bad Range")


def test_bad_icon(tmp_path):
    expect_error_at(tmp_path, [HEAD, GOOD[0], GOOD[1], GOOD[2], "X,x,Event,red,1,,,IG/XX,"], 5, "unknown icon 'XX'")


def test_duplicate_code(tmp_path):
    expect_error_at(tmp_path, [HEAD, GOOD[0], GOOD[1], GOOD[2], "R01-001,Other Name,Z/X,red,1,3000,,,"], 5,
                    "duplicate card code R01-001")


@pytest.mark.parametrize("type_", ["Z/X", "Z/X EX", "Z/X OB"])
def test_missing_power_on_a_zx(tmp_path, type_):
    expect_error_at(tmp_path, [HEAD, GOOD[0], f"R01-002,Cinder,{type_},red,1,,,,"], 3, "needs a power")


def test_empty_code_and_name(tmp_path):
    expect_error_at(tmp_path, [HEAD, ",Nameless,Z/X,red,1,3000,,,"], 2, "empty card code")
    expect_error_at(tmp_path, [HEAD, GOOD[0], "R01-002,,Z/X,red,1,3000,,,"], 3, "empty card name")


def test_line_of_a_multiline_record_is_its_first_line(tmp_path):
    lines = [HEAD, 'R01-001,"Ember\nWhelp",Z/X,red,0,1500,,,', "R01-002,Cinder,Z/X,red,1,,,,"]
    expect_error_at(tmp_path, lines, 4, "needs a power")
    lines = [HEAD, GOOD[0], 'R01-002,"Cinder\nHatchling",Z/X,red,1,,,,']
    expect_error_at(tmp_path, lines, 3, "needs a power")


def test_malformed_csv_is_a_catalog_error():
    with pytest.raises(CatalogError, match=r"^x\.csv:3: format: bad CSV"):
        parse_catalog(f'{HEAD}\n{GOOD[0]}\nA,"unterminated,Z/X,red,1,1000,,,\n', name="x", source="x.csv")
    with pytest.raises(CatalogError, match=r"^x\.csv:2: format: bad CSV"):
        parse_catalog(f"{HEAD}\nA,a\rb,Z/X,red,1,1000,,,\n", name="x", source="x.csv")


def test_catalog_error_is_a_format_error(tmp_path):
    err = expect_error_at(tmp_path, [HEAD, "R01-002,Cinder,Z/X,red,1,,,,"], 2, "needs a power")
    assert isinstance(err, FormatError) and isinstance(err, ValueError)


# ---------------------------------------------------------------- hashing and loading

def test_content_hash_changes_when_content_changes():
    text = HEAD + "\n" + "\n".join(GOOD) + "\n"
    a = parse_catalog(text, name="t", source="t.csv")
    b = parse_catalog(text, name="t", source="other.csv")
    c = parse_catalog(text.replace("1500", "1600"), name="t", source="t.csv")
    assert a.sha256 == b.sha256
    assert a.sha256 != c.sha256
    assert len({a, b, c}) == 3  # a Catalog is hashable (usable as a cache key)
    assert parse_catalog(text, name="t", source="t.csv") == a


def test_load_catalog_by_name_is_cached(sample):
    assert load_catalog("sample") is sample


def test_load_catalog_by_path(tmp_path, sample):
    src = resources.files("zx_events.games.zx.catalogs").joinpath("sample.csv")
    p = tmp_path / "mycards.csv"
    p.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    cat = load_catalog(str(p))
    assert cat.name == "mycards" and cat.source == str(p)
    assert cat.sha256 == sample.sha256 and len(cat) == len(sample)
    assert cat.cards == sample.cards


def test_load_catalog_unknown():
    with pytest.raises(CatalogError, match="unknown catalog 'nope'.*sample"):
        load_catalog("nope")
    with pytest.raises(CatalogError, match="not found"):
        read_catalog("/nonexistent/cards.csv")
