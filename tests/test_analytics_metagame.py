"""17lands card metrics, mulligans (402), archetypes, the metagame by period and name checks: every
metric against values worked out by hand from the hand-built matches (tests/analytics_support.py),
and against an independent Polars computation (from the draws, plays, ignitions, life and matches
tables and the shipped deck lists, not card_games or seats) on simulated matches."""

from __future__ import annotations

import copy
import json
import math
from importlib import resources

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal
from scipy.stats import binomtest

from zx_analytics.projection import update
from zx_analytics.stats import Stats, UnknownName
from analytics_support import headers, log_text, simulated_analytics
from zx_cli.main import zx
from support import text
from zx_events.application import MatchService
from zx_events.games.zx.cards import load_catalog
from zx_events.games.zx.decks import deck_by_name, sample_decks
from zx_events.games.zx.rows import MatchRows, archetype, card_facts, new_buffers
from zx_events.logformat.reader import parse_log

RED = "red: Volcanic Ruin Herald + Scorchclaw Raider"
BLUE = "blue: Azure Gearknight + Mistveil Tactician"


def ci(k: int, n: int) -> tuple[float | None, float | None, float | None]:
    if n == 0:
        return None, None, None
    c = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return k / n, c.low, c.high


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """Newcombe (1998) method 10 from scipy's Wilson intervals: the reference for iwd."""
    p1, l1, u1 = ci(k1, n1)
    p2, l2, u2 = ci(k2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def _project(tmp, logs_text: str, name: str = "s"):
    svc = MatchService(str(tmp / f"{name}.sqlite"))
    for log in parse_log(logs_text, "hand.zxlog"):
        assert svc.import_log(log).status == "imported"
    update(svc, tmp / f"{name}.duckdb")
    svc.close()
    return tmp / f"{name}.sqlite", tmp / f"{name}.duckdb"


@pytest.fixture(scope="module")
def hand(tmp_path_factory):
    """m1, m2, m3 of analytics_support, plus m4: m2 again (ids and date changed) with Mio's Red Dragons
    list under another name ("Dragons!"), played on 2026-12-06 (the same ISO week as m2)."""
    from analytics_support import M2

    h4 = copy.deepcopy(headers()["m2"])
    h4["match"], h4["played_at"] = "m4", "2026-12-06T10:00:00+09:00"
    h4["players"]["P1"]["deck_name"] = "Dragons!"
    store, path = _project(tmp_path_factory.mktemp("meta"), log_text() + text(M2, h4))
    with Stats(path, min_games=1) as st:
        yield store, st


def row(df: pl.DataFrame, **where) -> dict:
    got = df.filter(pl.all_horizontal([pl.col(k) == v for k, v in where.items()]))
    assert got.height == 1, (where, got)
    return got.row(0, named=True)


# ---------------------------------------------------------------------- cards: 17lands metrics by hand
# finished games: m1 (P1 Aki Red wins), m2 and m4 (P2 Ren Blue wins; P1 mulliganed its first four).
# (oh games, wins), (gd), (gns), (played), (deck): worked out from the records
CARDS = {
    # m1: in Aki's opening hand, played on b2 (win). m2/m4: in Mio's mulliganed four only, never
    # drawn -> not seen (loss, loss)
    "R01-001": ((1, 1), (0, 0), (2, 0), (1, 1), (3, 1)),
    # m1: drawn in turn 3 and played (win); m2/m4: a Life card, never in hand (not seen: 2 losses)
    "R01-005": ((0, 0), (1, 1), (2, 0), (1, 1), (3, 1)),
    # m1: drawn in turns 5 and 7 (one game, win); m2/m4: in the redrawn hand (402), and played by an
    # Ignition (505.3a) (losses)
    "R01-013": ((2, 0), (1, 1), (0, 0), (2, 0), (3, 1)),
    # m1: drawn by Ren in turns 4 and 6, played (loss); m2/m4: never seen (wins)
    "U01-009": ((0, 0), (1, 0), (2, 2), (1, 0), (3, 2)),
    # m1: revealed from Life and played by its IG, never in hand: not seen, played (loss); m2/m4: not seen
    "U01-011": ((0, 0), (0, 0), (3, 2), (1, 0), (3, 2)),
}


@pytest.mark.parametrize("card", sorted(CARDS))
def test_card_metrics_by_hand(hand, card):
    _, st = hand
    r = row(st.cards(), card=card)
    (oh, ohw), (gd, gdw), (gns, gnsw), (pl_, plw), (dk, dkw) = CARDS[card]
    want = {"oh": (oh, ohw), "gd": (gd, gdw), "gih": (oh + gd, ohw + gdw), "gns": (gns, gnsw), "played": (pl_, plw),
            "deck": (dk, dkw)}
    for m, (n, k) in want.items():
        assert (r[f"{m}_games"], r[f"{m}_wins"]) == (n, k), m
        assert (r[f"{m}_wr"], r[f"{m}_wr_low"], r[f"{m}_wr_high"]) == pytest.approx(ci(k, n), nan_ok=True), m
    gih, gihw = want["gih"]
    if gih and gns:
        assert (r["iwd"], r["iwd_low"], r["iwd_high"]) == pytest.approx(newcombe(gihw, gih, gnsw, gns))
    else:
        assert r["iwd"] is None


def test_card_filters_by_seat_opponent_colour_and_date(hand):
    _, st = hand
    # seat first: m1's P1 (Aki, Red) and m2/m4's P2 (Ren, Blue)
    r = row(st.cards(seat="first"), card="R01-001")
    assert (r["oh_games"], r["gns_games"], r["deck_games"]) == (1, 0, 1)
    r = row(st.cards(seat="second"), card="R01-001")
    assert (r["oh_games"], r["gns_games"], r["gns_wins"]) == (0, 2, 0)
    # the side whose opponent plays Blue Control: the Red sides only
    assert set(st.cards(opp_deck="Blue Control")["card"].str.slice(0, 1)) == {"R"}
    assert set(st.cards(colours="blue")["card"].str.slice(0, 1)) == {"U", "M"}  # M: the red/blue splash
    r = row(st.cards(since="2026-12-01"), card="U01-009")  # m2 and m4 only
    assert (r["gd_games"], r["gns_games"], r["gns_wins"]) == (0, 2, 2)
    r = row(st.cards(deck="Dragons!"), card="R01-013")  # m4's P1 only
    assert (r["oh_games"], r["oh_wins"], r["played_games"]) == (1, 0, 1)
    one = st.cards(card="Blaze Drake Cadet")  # by name, any case works too
    assert one["card"].to_list() == ["R01-013"] and st.cards(card="r01-013")["card"].to_list() == ["R01-013"]
    # a name of two codes (the shipped catalog's R01-003 and R01-019, a reprint): one row for the name, a game
    # counted once whichever code it held (test_a_card_name_of_two_codes_counts_a_game_once_for_the_name);
    # R01-019 is never seen in these matches, so the name's figures are R01-003's
    (both,) = st.cards(card="crimson drake vanguard").iter_rows(named=True)
    (one,) = st.cards(card="R01-003").iter_rows(named=True)
    assert both["card"] == "R01-003/R01-019" and {**both, "card": "R01-003"} == one


# ---------------------------------------------------------------------- mulligans (402)
def test_mulligans_by_hand(hand):
    _, st = hand
    df = st.mulligans()
    # first: m1 P1 (kept, win), m2/m4 P2 (kept, wins), m3 P1 (kept, no result)
    # second: m1 P2 (kept, loss), m2/m4 P1 (mulligan, losses), m3 P2 (kept, no result)
    want = {"first": (4, 4, 3, 3, 0, 0), "second": (4, 2, 1, 0, 2, 0)}
    assert df["seat"].to_list() == ["first", "second"] and df["hand_size"].to_list() == [4, 4]
    for seat, (games, kept, kg, kw, mg, mw) in want.items():
        r = row(df, seat=seat)
        assert (r["games"], r["kept"], r["kept_games"], r["kept_wins"], r["mulligan_games"], r["mulligan_wins"]) == \
            (games, kept, kg, kw, mg, mw)
        assert (r["keep_rate"], r["keep_rate_low"], r["keep_rate_high"]) == pytest.approx(ci(kept, games))
        assert (r["mulligan_win_rate"], r["mulligan_win_rate_low"], r["mulligan_win_rate_high"]) == \
            pytest.approx(ci(mw, mg), nan_ok=True)


# ---------------------------------------------------------------------- archetypes
def test_archetype_is_computed_from_the_deck_list_not_its_name(hand):
    _, st = hand
    df = st.archetypes()
    r = row(df, archetype=RED)
    # m1, m3: "Red Dragons"; m2: "Red Dragons"; m4: "Dragons!" (same list)
    assert (r["seats"], r["field"], r["decks"], r["deck_names"], r["colours"]) == \
        (4, 8, "Red Dragons (3), Dragons! (1)", 2, "red")
    assert (r["share"], r["share_low"], r["share_high"]) == pytest.approx(ci(4, 8))
    assert (r["games"], r["wins"]) == (3, 1)  # m1 won, m2 and m4 lost; m3 unfinished
    by_arch = st.winrates(by="archetype")
    assert by_arch.select("archetype", "games", "wins").rows() == [(BLUE, 3, 2), (RED, 3, 1)]
    by_deck = st.winrates(by="deck")
    assert by_deck.select("deck", "games", "wins").rows() == [("Blue Control", 3, 2), ("Red Dragons", 2, 1),
                                                              ("Dragons!", 1, 0)]
    m = st.matchups(by="archetype")
    assert m.select("archetype", "opponent", "games", "wins").rows() == [(BLUE, RED, 3, 2), (RED, BLUE, 3, 1)]
    assert st.winrates(by="deck", archetype=RED)["deck"].to_list() == ["Red Dragons", "Dragons!"]
    assert st.cards(opp_archetype=BLUE)["card"].str.slice(0, 1).unique().to_list() == ["R"]


def test_archetype_label_is_deterministic_and_documented_order():
    facts = card_facts("sample")
    red = deck_by_name("Red Dragons").deck
    label = archetype(red, "red", facts)
    assert label == RED
    assert archetype(dict(reversed(list(red.items()))), "red", facts) == label  # dict order does not matter
    # the ranking: most copies, then the highest cost, then Power, then code
    ranked = sorted(red, key=lambda c: (-red[c], -facts[c][1], -facts[c][2], c))
    assert label == f"red: {facts[ranked[0]][0]} + {facts[ranked[1]][0]}"
    # a change outside the signature cards keeps the archetype; one in them changes it
    other = ranked[-1]
    assert archetype({**red, other: red[other] - 1}, "red", facts) == label
    assert archetype({**red, ranked[0]: 1}, "red", facts) != label
    by_copies = sorted(red, key=lambda c: (-red[c], c))  # no catalog: copies, then code; named by code
    assert archetype(red, None, None) == f"unknown: {by_copies[0]} + {by_copies[1]}"
    assert archetype(None, "red", facts) is None


def test_a_copy_of_a_shipped_catalog_under_another_name_ranks_signature_cards_by_cost_and_power():
    """A match checked against ``--catalog FILE`` keeps the catalog's name and SHA-256 only. Its
    archetypes ranked every card as cost -1 and Power 0, so by copies then code: Red Dragons was
    ``unknown: R01-001 + R01-002`` (cost 0 and 1, its cheapest 4-ofs), Green Beasts ``unknown: G01-001 +
    G01-002``. A file with a shipped catalog's content (its SHA-256) has that catalog's costs and Powers:
    the shipped label's two cards, named by code, identity ``unknown``; a catalog zx does not ship has
    none (the documented fallback: copies, then code)."""
    sha, shipped = load_catalog("sample", files=False).sha256, card_facts("sample")

    def label(deck: dict, name: str, sha256: str) -> str:  # as the projection computes it from Started
        m = MatchRows("oid", 1, new_buffers())
        m.started({"match_id": "m", "header": {"players": {"P1": {"deck": deck}, "P2": {}}},
                   "catalog": {"name": name, "sha256": sha256}}, None)  # colours: none for a name zx does not ship
        return m.head["p1_archetype"]

    red, green = deck_by_name("Red Dragons").deck, deck_by_name("Green Beasts").deck
    assert label(red, "my-cards", sha) == "unknown: R01-012 + R01-009"  # Volcanic Ruin Herald + Scorchclaw Raider
    assert label(green, "my-cards", sha) == "unknown: G01-012 + G01-003"  # Rampaging Tusk + Canopy Stalker
    for d in sample_decks():  # the documented order, with the shipped catalog's costs and Powers
        top = sorted(d.deck, key=lambda c: (-d.deck[c], -shipped[c][1], -shipped[c][2], c))[:2]
        assert label(d.deck, "my-cards", sha) == f"unknown: {top[0]} + {top[1]}", d.name
    assert label(red, "my-cards", "0" * 64) == "unknown: R01-001 + R01-002"  # not shipped: copies, then code


def test_a_mirror_of_archetypes_known_by_code_is_left_out_and_unknown_colours_are_no_mirror(tmp_path):
    """One simulated Red Dragons mirror, imported as is and under a catalog given as a file (a copy of
    the shipped one, another name): both are archetype mirrors, left out of the archetype win rates
    (the label is known, by code: ``unknown: R01-012 + R01-009``); the copy's colour identity is
    NULL, never a mirror, so it counts both sides in the blank colour row."""
    sim = tmp_path / "sim"
    r = CliRunner().invoke(zx, ["simulate", "-n", "1", "--seed", "7", "--decks", "Red Dragons", "--out", str(sim)])
    assert r.exit_code == 0, r.output
    (log,) = sim.iterdir()
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    records[0].update(match="custom-mirror", catalog="my-cards")
    custom = tmp_path / "custom.zxlog"
    custom.write_text("".join(json.dumps(x) + "\n" for x in records), encoding="utf-8")
    mine = tmp_path / "my-cards.csv"
    mine.write_text(resources.files("zx_events.games.zx.catalogs").joinpath("sample.csv").read_text(encoding="utf-8"),
                    encoding="utf-8")  # the shipped content, byte for byte
    store = str(tmp_path / "s.sqlite")
    for args in ([str(log)], ["--catalog", str(mine), str(custom)]):
        r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", *args])
        assert r.exit_code == 0, r.output
    svc = MatchService(store)
    update(svc, tmp_path / "s.duckdb")
    svc.close()
    with Stats(tmp_path / "s.duckdb", min_games=1) as st:
        got = st.sql("SELECT match_id, p1_archetype, p2_archetype, p1_colours, p2_colours FROM matches ORDER BY 1")
        assert got.rows() == [("custom-mirror", "unknown: R01-012 + R01-009", "unknown: R01-012 + R01-009", None, None),
                              (log.stem, RED, RED, "red", "red")]
        assert st.winrates(by="archetype").height == 0  # two mirrors
        assert st.matchups(by="archetype").height == 0
        assert st.winrates(by="colour").select("colours", "games", "wins").rows() == [(None, 2, 1)]
        arch = st.archetypes()
        assert row(arch, archetype="unknown: R01-012 + R01-009")["seats"] == 2
        assert row(arch, archetype="unknown: R01-012 + R01-009")["games"] == 0


def test_a_card_name_of_two_codes_counts_a_game_once_for_the_name(tmp_path):
    """Crimson Drake Vanguard is R01-003 and R01-019 (a reprint). m1 with both draws of R01-003 made
    R01-019: per code, m1 is a game not seen (GNS) for R01-003 and drawn (GD) for R01-019, and m2 (in
    Mio's redrawn hand: R01-003) the other way round. --card NAME is one row for the name, as 17lands
    counts: m1 GD (a win), m2 OH (a loss), no GNS; a code alone keeps its own row."""
    from analytics_support import M1, M2

    m1 = [{**r, "cards": ["R01-019" if c == "R01-003" else c for c in r["cards"]]}
          if r.get("do") == "draw" and r.get("by") == "P1" else r for r in M1]
    _, path = _project(tmp_path, text(m1, headers()["m1"]) + text(M2, headers()["m2"]))
    with Stats(path, min_games=1) as st:
        per_code = {r["card"]: r for r in st.cards().filter(pl.col("card").is_in(["R01-003", "R01-019"]))
                    .iter_rows(named=True)}
        assert [(per_code[c]["oh_games"], per_code[c]["gd_games"], per_code[c]["gns_games"]) for c in
                ("R01-003", "R01-019")] == [(1, 0, 1), (0, 1, 1)]
        for name in ("Crimson Drake Vanguard", "crimson drake vanguard"):
            (r,) = st.cards(card=name).iter_rows(named=True)
            assert (r["card"], r["name"]) == ("R01-003/R01-019", "Crimson Drake Vanguard")
            got = {m: (r[f"{m}_games"], r[f"{m}_wins"]) for m in ("deck", "gih", "oh", "gd", "gns", "played")}
            assert got == {"deck": (2, 1), "gih": (2, 1), "oh": (1, 0), "gd": (1, 1), "gns": (0, 0), "played": (0, 0)}
            assert (r["gih_wr"], r["gih_wr_low"], r["gih_wr_high"]) == pytest.approx(ci(1, 2))
        (r,) = st.cards(card="R01-019").iter_rows(named=True)
        assert (r["card"], r["gd_games"], r["gns_games"]) == ("R01-019", 1, 1)


# ---------------------------------------------------------------------- the metagame by period
def test_meta_by_week_by_hand(hand):
    _, st = hand
    df = st.meta(by="week")
    # m1 2026-11-01 is in ISO week 2026-W44; m2 (12-05) and m4 (12-06, a Sunday) in 2026-W49; m3 has no date
    assert df.select("week", "deck", "seats", "field", "games", "wins").rows() == [
        ("2026-W44", "Blue Control", 1, 2, 1, 0), ("2026-W44", "Red Dragons", 1, 2, 1, 1),
        ("2026-W49", "Blue Control", 2, 4, 2, 2), ("2026-W49", "Dragons!", 1, 4, 1, 0),
        ("2026-W49", "Red Dragons", 1, 4, 1, 0),
        ("unknown", "Blue Control", 1, 2, 0, 0), ("unknown", "Red Dragons", 1, 2, 0, 0)]
    r = row(df, week="2026-W49", deck="Blue Control")
    assert (r["share"], r["share_low"], r["share_high"]) == pytest.approx(ci(2, 4))
    assert (r["win_rate"], r["win_rate_low"], r["win_rate_high"]) == pytest.approx(ci(2, 2))
    arch = st.meta(by="week", group="archetype")
    assert row(arch, week="2026-W49", archetype=RED)["seats"] == 2
    # a deck filter keeps the share of the whole field
    only = st.meta(by="event", deck="Dragons!")
    assert only.select("event", "deck", "seats", "field").rows() == [("Cup", "Dragons!", 1, 4)]


def test_unnamed_decks_are_never_a_mirror_and_one_label_everywhere(tmp_path):
    """deck_name is optional: two decks without a name are not a mirror (we cannot know they are the
    same deck), so both sides count, under one label, "(no name)", in winrates, matchups, meta and
    archetypes (winrates and meta counted a side of m1 once and none of it, shown blank). A match
    without an event and one whose event is called "unknown" are two periods of meta --by event."""
    from zx_analytics.stats import NO_NAME
    from analytics_support import M1, M2

    h1, h2 = copy.deepcopy(headers()["m1"]), copy.deepcopy(headers()["m2"])
    for p in ("P1", "P2"):  # m1: Aki (red, no name) beats Ren (blue, no name); no event
        del h1["players"][p]["deck_name"]
    del h1["event"]
    del h2["players"]["P2"]["deck_name"]  # m2: Ren (blue, no name) beats Mio (Red Dragons); event "unknown"
    h2["event"] = "unknown"
    _, path = _project(tmp_path, text(M1, h1) + text(M2, h2))
    with Stats(path, min_games=1) as st:
        assert st.winrates().select("deck", "games", "wins").rows() == [(NO_NAME, 3, 2), ("Red Dragons", 1, 0)]
        assert st.matchups().select("deck", "opponent", "games", "wins").rows() == [
            (NO_NAME, NO_NAME, 2, 1), (NO_NAME, "Red Dragons", 1, 1), ("Red Dragons", NO_NAME, 1, 0)]
        assert st.meta(by="event").select("event", "deck", "seats", "field", "games", "wins").rows() == [
            ("(no event)", NO_NAME, 2, 2, 2, 1), ("unknown", NO_NAME, 1, 2, 1, 1), ("unknown", "Red Dragons", 1, 2, 1, 0)]
        arch = st.archetypes()
        assert row(arch, archetype=BLUE)["decks"] == f"{NO_NAME} (2)"
        assert set(row(arch, archetype=RED)["decks"].split(", ")) == {f"{NO_NAME} (1)", "Red Dragons (1)"}
        # known archetypes: red against blue in both matches, no mirror
        assert (row(arch, archetype=RED)["games"], row(arch, archetype=RED)["wins"]) == (2, 1)


# ---------------------------------------------------------------------- names that match nothing
@pytest.mark.parametrize("kw,message", [
    ({"deck": "Red Dragon"}, "no deck named 'Red Dragon' in the analytics file; did you mean 'Red Dragons'"),
    ({"opp_deck": "blue control"}, "no deck named 'blue control' in the analytics file; did you mean 'Blue Control'?"),
    ({"player": "Akki"}, "no player named 'Akki' in the analytics file; did you mean 'Aki'?"),
    ({"archetype": "red"}, f"no archetype named 'red' in the analytics file; did you mean '{RED}'?"),
    ({"event": "Tokyo"}, "no event named 'Tokyo' in the analytics file; known: 'Cup', 'Test'"),
    ({"game": "chess"}, "no game named 'chess' in the analytics file; known: 'zx'"),
])
def test_unknown_names_are_errors_with_suggestions(hand, kw, message):
    _, st = hand
    with pytest.raises(UnknownName) as e:
        st.winrates(**kw)
    assert str(e.value).startswith(message)


def test_unknown_card_and_cli_exit_codes(hand):
    store, st = hand
    with pytest.raises(UnknownName, match="no card named 'Magma Wyrm' in the analytics file; did you mean "
                                          "'Magma Wyrm Sentinel'"):
        st.cards(card="Magma Wyrm")
    r = CliRunner().invoke(zx, ["--store", str(store), "stats", "cards", "--deck", "Red Dragon"])
    assert r.exit_code == 1
    assert r.output.strip() == ("Error: no deck named 'Red Dragon' in the analytics file; did you mean 'Red Dragons' or "
                                "'Dragons!'?")
    r = CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates", "--deck", "Red Dragons",
                                "--since", "2027-01-01"])
    assert r.exit_code == 0 and "no rows match --since 2027-01-01, --deck Red Dragons" in r.output
    r = CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates", "--seat", "third"])
    assert r.exit_code == 2
    # a card never in the chosen decks: the message names --card too (it named only --deck)
    r = CliRunner().invoke(zx, ["--store", str(store), "stats", "cards", "--card", "R01-005", "--deck", "Blue Control"])
    assert r.exit_code == 0 and r.stderr.strip().endswith("no rows match --card R01-005, --deck Blue Control")


# ---------------------------------------------------------------------- an independent computation
@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    with Stats(simulated_analytics(tmp_path_factory.mktemp("sim"), 60, 23), min_games=1) as st:
        yield st


def _sides(st: Stats) -> pl.DataFrame:
    """One row per match and side, from the matches table (not seats)."""
    m = st.sql("SELECT * FROM matches")
    out = []
    for me, you in (("P1", "P2"), ("P2", "P1")):
        a, b = me.lower(), you.lower()
        out.append(m.select(
            "match_no", "reason", pl.lit(me).alias("player"), pl.col(f"{a}_deck").alias("deck"),
            pl.col(f"{b}_deck").alias("opp"), pl.col(f"{a}_archetype").alias("arch"),
            pl.col(f"{b}_archetype").alias("opp_arch"), pl.col("played_on"),
            pl.when(pl.col("first") == me).then(pl.lit("first")).otherwise(pl.lit("second")).alias("seat"),
            (pl.col("winner") == me).fill_null(False).alias("won")))
    return pl.concat(out)


def test_cards_equal_a_polars_computation_from_the_event_rows(simulated):
    st = simulated
    sides = _sides(st).filter(pl.col("reason").is_not_null())
    draws = st.sql("SELECT match_no, player, card, source FROM draws")
    held = draws.filter(pl.col("source") != "mulliganed").group_by("match_no", "player", "card").agg(
        (pl.col("source") == "opening").any().alias("oh"), (pl.col("source") != "opening").any().alias("later"))
    played = pl.concat([
        st.sql("SELECT match_no, player, card FROM plays"),
        st.sql("SELECT match_no, player, revealed AS card FROM ignitions WHERE played"),
        st.sql("SELECT match_no, player, card FROM life WHERE ig_played"),
    ]).unique().with_columns(pl.lit(True).alias("played"))
    lists = pl.DataFrame([(d.name, code) for d in sample_decks() for code in d.deck], schema=["deck", "card"],
                         orient="row").with_columns(pl.lit(True).alias("in_deck"))
    in_deck = sides.join(lists, on="deck").select("match_no", "player", "card", "in_deck")
    keys = pl.concat([held.select("match_no", "player", "card"), played.select("match_no", "player", "card"),
                      in_deck.select("match_no", "player", "card")]).unique()
    g = (keys.join(sides, on=["match_no", "player"])
         .join(held, on=["match_no", "player", "card"], how="left")
         .join(played, on=["match_no", "player", "card"], how="left")
         .join(in_deck, on=["match_no", "player", "card"], how="left")
         .with_columns(pl.col("oh", "later", "played", "in_deck").fill_null(False)))
    facts = {"oh": pl.col("oh"), "gd": ~pl.col("oh") & pl.col("later"), "gih": pl.col("oh") | pl.col("later"),
             "gns": pl.col("in_deck") & ~pl.col("oh") & ~pl.col("later"), "played": pl.col("played"),
             "deck": pl.col("in_deck")}
    want = g.group_by("card").agg(
        *[e.sum().cast(pl.Int64).alias(f"{m}_games") for m, e in facts.items()],
        *[(e & pl.col("won")).sum().cast(pl.Int64).alias(f"{m}_wins") for m, e in facts.items()]).sort("card")
    got = st.cards().select(want.columns).sort("card")
    assert want["gih_games"].sum() > 500 and want["gns_games"].sum() > 500
    assert_frame_equal(got, want)
    # the same with filters: the second seat against one deck, in a date range
    opp = sides["deck"].unique().sort()[0]
    dates = sides["played_on"].drop_nulls().sort()
    since, until = str(dates[len(dates) // 4]), str(dates[3 * len(dates) // 4])
    sub = g.filter((pl.col("seat") == "second") & (pl.col("opp") == opp) & (pl.col("played_on") >= dates[len(dates) // 4])
                   & (pl.col("played_on") <= dates[3 * len(dates) // 4]))
    want = sub.group_by("card").agg(facts["gns"].sum().cast(pl.Int64).alias("gns_games"),
                                    (facts["gih"] & pl.col("won")).sum().cast(pl.Int64).alias("gih_wins")).sort("card")
    got = st.cards(seat="second", opp_deck=opp, since=since, until=until).select(want.columns).sort("card")
    assert_frame_equal(got, want)


def test_mulligans_and_meta_equal_a_polars_computation(simulated):
    st = simulated
    sides = _sides(st)
    mull = st.sql("SELECT DISTINCT match_no, player FROM draws WHERE source = 'mulliganed'").with_columns(
        pl.lit(True).alias("mulligan"))
    s = sides.join(mull, on=["match_no", "player"], how="left").with_columns(pl.col("mulligan").fill_null(False))
    fin = pl.col("reason").is_not_null()
    want = s.group_by("seat").agg(pl.len().cast(pl.Int64).alias("games"),
                                  (~pl.col("mulligan")).sum().cast(pl.Int64).alias("kept"),
                                  (fin & pl.col("mulligan")).sum().cast(pl.Int64).alias("mulligan_games"),
                                  (pl.col("won") & pl.col("mulligan")).sum().cast(pl.Int64).alias("mulligan_wins")
                                  ).sort("seat")
    assert want["mulligan_games"].sum() > 5
    assert_frame_equal(st.mulligans().select(want.columns), want)
    # meta by ISO week and archetype: share of the week's seats, win rate without mirrors
    s = sides.with_columns(pl.col("played_on").dt.strftime("%G-W%V").fill_null("unknown").alias("week"))
    field = s.group_by("week").agg(pl.len().cast(pl.Int64).alias("field"))
    notmirror = fin & (pl.col("arch") != pl.col("opp_arch"))
    want = (s.group_by("week", "arch").agg(pl.len().cast(pl.Int64).alias("seats"),
                                           notmirror.sum().cast(pl.Int64).alias("games"),
                                           (notmirror & pl.col("won")).sum().cast(pl.Int64).alias("wins"))
            .join(field, on="week").rename({"arch": "archetype"}).sort("week", "archetype"))
    got = st.meta(by="week", group="archetype").select(want.columns).sort("week", "archetype")
    assert got.height > 5
    assert_frame_equal(got, want)
    for r in st.meta(by="week", group="archetype").iter_rows(named=True):
        assert (r["share"], r["share_low"], r["share_high"]) == pytest.approx(ci(r["seats"], r["field"]))


def test_archetypes_winrates_and_matchups_by_archetype_equal_polars(simulated):
    st = simulated
    sides = _sides(st)
    # the label, computed here from the shipped deck lists and the catalog (copies, cost, Power, code)
    facts = card_facts("sample")
    for d in sample_decks():
        top = sorted(d.deck, key=lambda c: (-d.deck[c], -facts[c][1], -facts[c][2], c))[:2]
        labels = sides.filter(pl.col("deck") == d.name)["arch"].unique().to_list()
        assert all(lab.endswith(f": {facts[top[0]][0]} + {facts[top[1]][0]}") for lab in labels), (d.name, labels)
    fin = pl.col("reason").is_not_null() & (pl.col("arch") != pl.col("opp_arch"))
    want = (sides.group_by("arch").agg(pl.len().cast(pl.Int64).alias("seats"),
                                       fin.sum().cast(pl.Int64).alias("games"),
                                       (fin & pl.col("won")).sum().cast(pl.Int64).alias("wins"),
                                       pl.col("deck").n_unique().cast(pl.Int64).alias("deck_names"))
            .with_columns(pl.lit(sides.height, pl.Int64).alias("field")).rename({"arch": "archetype"})
            .sort("archetype"))
    got = st.archetypes().select(want.columns).sort("archetype")
    assert_frame_equal(got, want)
    want = (sides.filter(fin).group_by("arch").agg(pl.len().cast(pl.Int64).alias("games"),
                                                   pl.col("won").sum().cast(pl.Int64).alias("wins"))
            .rename({"arch": "archetype"}).sort("archetype"))
    assert_frame_equal(st.winrates(by="archetype").select(want.columns).sort("archetype"), want)
    want = (sides.filter(fin).group_by("arch", "opp_arch").agg(pl.len().cast(pl.Int64).alias("games"),
                                                               pl.col("won").sum().cast(pl.Int64).alias("wins"))
            .rename({"arch": "archetype", "opp_arch": "opponent"}).sort("archetype", "opponent"))
    assert_frame_equal(st.matchups(by="archetype").select(want.columns).sort("archetype", "opponent"), want)


# ---------------------------------------------------------------------- output that reads well
def test_tables_fit_the_terminal_and_wide_shows_every_column(hand):
    store, _ = hand
    narrow = CliRunner(env={"COLUMNS": "80"}).invoke(zx, ["--store", str(store), "stats", "cards", "--card",
                                                          "R01-001"])
    assert narrow.exit_code == 0, narrow.output
    table = narrow.stdout.splitlines()
    assert max(len(line) for line in table) <= 80
    # the rate with its Wilson interval in one cell (1 of 1: 100.0%, 20.7-100.0)
    assert "100.0% (20.7-100.0)" in narrow.stdout and "gih_wr" in narrow.stdout
    assert "columns left out to fit 80 characters" in narrow.stderr and "--wide shows them" in narrow.stderr
    # every card's table keeps its first rate and that rate's count before other counts (it showed
    # card, name, gih_games, oh_games and no rate: the rate's cell, the widest, did not fit after them)
    for args in (["cards"], ["matchups"], ["winrates"], ["attacks"], ["archetypes"], ["meta"]):
        header = CliRunner(env={"COLUMNS": "80"}).invoke(zx, ["--store", str(store), "stats", *args]).stdout.splitlines()[1]
        cells = [c.strip() for c in header.strip("┃ ").split("┃")]
        rate = {"cards": "gih_wr", "attacks": "success_rate", "archetypes": "share", "meta": "share"}.get(args[0], "win_rate")
        # (meta: its two rates before a count, share and win_rate, not seats; archetypes: the win rate's count, games,
        # before the share's: zx_cli.output.emit_frame)
        count = {"cards": "gih_games", "attacks": "attacks", "meta": "win_rate"}.get(args[0], "games")
        assert rate in cells and count in cells, (args, cells)
    wide = CliRunner(env={"COLUMNS": "80"}).invoke(zx, ["--store", str(store), "stats", "cards", "--card", "R01-001",
                                                        "--wide"])
    assert wide.exit_code == 0 and "left out" not in wide.stderr
    assert "played_wins" in wide.stdout and "+100.0 pp" in wide.stdout  # IWD in percentage points
    data = CliRunner().invoke(zx, ["--store", str(store), "stats", "cards", "--card", "R01-001", "--format", "json"])
    (r,) = json.loads(data.stdout)
    assert r["gih_wr_low"] == pytest.approx(ci(1, 1)[1], rel=1e-12)
    assert len(str(r["gih_wr_low"])) > 8  # full precision, not a rounded display value


def test_two_players_of_one_name_count_both_sides_in_winrates_by_player(tmp_path):
    """Only deck, archetype and colour pairings are mirrors: two players of one name (two people, or names
    anonymised alike) were left out of ``winrates --by player`` (every match, when both sides had it)."""
    from analytics_support import M1, M2

    h1, h2 = copy.deepcopy(headers()["m1"]), copy.deepcopy(headers()["m2"])
    for h in (h1, h2):
        for p in ("P1", "P2"):
            h["players"][p]["name"] = "Ren"
    store, path = _project(tmp_path, text(M1, h1) + text(M2, h2))
    with Stats(path, min_games=1) as st:
        assert st.winrates(by="player").select("player", "games", "wins", "losses").rows() == [("Ren", 4, 2, 2)]
        # the deck rows still leave out a mirror (none here: the decks differ)
        assert st.winrates(by="deck").select("games").to_series().sum() == 4
    out = CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates", "--by", "player", "--format", "csv"])
    assert out.exit_code == 0 and out.stdout.splitlines()[1].startswith("Ren,4,2,2,"), out.output


def test_a_table_empty_because_every_match_is_a_mirror_says_so(tmp_path):
    """Every finished match a mirror by deck: the table is empty, and stderr said "the analytics file has no
    matches for this yet", pointing at a failed import; it names the mirrors (winrates and matchups)."""
    from analytics_support import M1

    h1 = copy.deepcopy(headers()["m1"])
    h1["players"]["P2"]["deck_name"] = h1["players"]["P1"]["deck_name"]
    store, _ = _project(tmp_path, text(M1, h1))
    for args in (["winrates"], ["matchups"]):
        out = CliRunner().invoke(zx, ["--store", str(store), "stats", *args, "--format", "csv"])
        assert out.exit_code == 0 and len(out.stdout.splitlines()) == 1, out.output
        assert "every finished match in the analytics file is a mirror (the same deck on both sides)" in out.stderr
        assert "no matches for this yet" not in out.stderr
    first = CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates", "--by", "first", "--format", "csv"])
    assert len(first.stdout.splitlines()) == 3  # the seats count them


def _header_cells(store, columns: int, *args: str) -> list[str]:
    out = CliRunner(env={"COLUMNS": str(columns)}).invoke(zx, ["--store", str(store), "stats", *args])
    assert out.exit_code == 0, out.output
    assert max(len(line) for line in out.stdout.splitlines()) <= columns
    lines = [line for line in out.stdout.splitlines() if line.startswith("┃")]
    return ["".join(c.strip() for c in col) for col in  # a header folded over lines: its pieces joined
            zip(*[[c for c in line.strip("┃").split("┃")] for line in lines])]


def test_a_narrow_life_by_turn_table_keeps_its_seat_column(hand):
    """``life --by turn`` is keyed by turn and seat: at 40 columns the seat went (rows "1 | | low" and
    "1 | 42.3% | low" could not be told apart)."""
    store, _ = hand
    for columns in (30, 40, 50):
        cells = _header_cells(store, columns, "life", "--by", "turn")
        assert cells[:2] == ["turn", "seat"], (columns, cells)


def test_a_narrow_cards_table_shows_no_other_metrics_count_without_its_rate(hand):
    """At 30 columns ``cards`` showed card, name and oh_games: a count of another metric, with no rate.
    Narrower than the rate needs, the keys and the first rate's own count, as they fit."""
    store, _ = hand
    for columns in (30, 34, 38):
        cells = _header_cells(store, columns, "cards")
        assert cells[:2] == ["card", "name"] and set(cells[2:]) <= {"gih_games"}, (columns, cells)
    assert "gih_wr" in _header_cells(store, 44, "cards")


def test_a_narrow_life_table_shows_the_ignition_rates_own_count_damage_not_games(hand):
    """At 30-42 columns ``life`` showed ``games`` beside ``ignition_rate``, whose interval rests on ``damage``
    (64 shown against 149): a narrow table keeps a rate's own count (zx_cli.output.RATE_COUNTS)."""
    store, _ = hand
    for columns in (20, 24, 42):
        cells = _header_cells(store, columns, "life")
        assert cells[0] == "seat" and "games" not in cells and set(cells[1:]) <= {"damage", "ignition_rate", "sample"}, \
            (columns, cells)
    assert _header_cells(store, 70, "life")[:3] == ["seat", "damage", "ignition_rate"]
    # (at 50 and 60 its two rates, the counts left out for them: seat, ignition_rate, comeback_rate)


def test_with_a_player_the_shares_of_meta_and_archetypes_are_of_that_players_seats(simulated):
    """`zx stats meta --player P` and `archetypes --player P` divided P's seats of a deck by the whole field (every
    deck of P a few percent), where the dashboard's deck share is of P's seats (QA round 36): the field of a share
    follows the player filter, so P's shares of a period add up to 1, and the field is P's seats."""
    st = simulated
    names = st.sql("SELECT name, count(*) AS n FROM seats GROUP BY name ORDER BY n DESC, name").rows()
    player, seats = names[0]
    assert len(names) > 1 and seats > 3
    meta = st.meta(by="week", player=player)
    assert meta.height
    for week in meta["week"].unique():
        rows = meta.filter(pl.col("week") == week)
        assert rows["seats"].sum() == rows["field"][0] and rows["share"].sum() == pytest.approx(1.0), week
    arch = st.archetypes(player=player)
    assert arch["seats"].sum() == seats and set(arch["field"]) == {seats}
    assert st.meta(by="week")["field"].max() > meta["field"].max()  # (the whole field: more seats)
    # --opponent likewise: the shares of the sides facing that player (QA round 36: of the whole field)
    facing = st.sql(f"SELECT count(*) FROM seats WHERE opp_name = '{player}'").item()
    arch = st.archetypes(opponent=player)
    assert arch["seats"].sum() == facing and set(arch["field"]) == {facing}
