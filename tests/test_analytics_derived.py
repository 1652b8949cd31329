"""The derived tables of a server's statistics (zx_analytics.derived): Stats counting from them gives the
same frames as Stats without them, and they are built in memory on a read-only connection without
writing the file (a server builds them once per analytics position: tests/web/test_serve_api.py). And the row-by-row rates of
small frames (zx_analytics.wilson.BY_ROW) are the same bits as the Polars expressions."""

from __future__ import annotations

import itertools
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from zx_analytics.db import connect_reader
from zx_analytics.derived import build
from zx_analytics.projection import update
from zx_analytics.stats import Stats, _flag, with_difference
from zx_analytics.wilson import _rate_rows, wilson_exprs, with_rate
from analytics_support import import_matches, simulated_analytics
from zx_events.application import MatchService

METHODS = [*(("winrates", {"by": b}) for b in ("deck", "archetype", "colour", "player", "first")),
           *(("matchups", {"by": b}) for b in ("deck", "archetype", "colour")),
           *(("attacks", {"by": b}) for b in ("card", "square", "target")),
           ("life", {"by": "seat"}), ("life", {"by": "turn"}), ("cards", {}), ("mulligans", {}), ("archetypes", {}),
           ("meta", {"by": "week", "group": "deck"})]


def filter_sets(con) -> list[dict]:
    one = lambda q: con.execute(q).fetchone()[0]  # noqa: E731
    deck = one("SELECT min(deck) FROM seats")
    day = str(one("SELECT quantile_disc(played_on, 0.5) FROM seats"))
    return [{}, {"deck": deck}, {"opp_deck": deck}, {"seat": "first"}, {"since": day}, {"until": day},
            {"deck": deck, "seat": "second", "until": "2099-12-31"}, {"player": one("SELECT max(name) FROM seats")},
            {"archetype": one("SELECT min(archetype) FROM seats")}, {"event": one("SELECT max(event) FROM seats")},
            {"game": "zx"}, {"deck": "No Such Deck"}]


def answer(st: Stats, method: str, options: dict, filters: dict) -> pl.DataFrame | str:
    try:
        return getattr(st, method)(**options, **filters)
    except ValueError as e:  # UnknownName, NotThisGame: the same message either way
        return f"{type(e).__name__}: {e}"


def assert_same(got: pl.DataFrame | str, plain: pl.DataFrame | str) -> None:
    if isinstance(plain, str):
        assert got == plain
    else:
        assert_frame_equal(got, plain)


def same_answers(path: Path) -> int:
    con = connect_reader(path)
    try:
        derived = build(con, 1)
        assert derived.games == tuple(Stats(con).games())
        compared = 0
        sets = filter_sets(con)
        for i, ((method, options), filters) in enumerate(itertools.product(METHODS, sets)):
            min_games = (1, 30)[(i + i // len(sets)) % 2]  # each method and each filter set under both, a checker
            # board of the pairs, not every pair (the suite's second longest test: 52 s)
            plain = answer(Stats(con.cursor(), min_games), method, options, filters)
            got = answer(Stats(con.cursor(), min_games, derived=derived), method, options, filters)
            assert_same(got, plain)
            compared += 1
        card = con.execute("SELECT min(card) FROM card_games").fetchone()[0]
        twice = con.execute("SELECT any_value(name) FROM card_catalog GROUP BY name HAVING count(DISTINCT code) > 1 "
                            "ORDER BY 1 LIMIT 1").fetchone()  # a name of two codes: every code of it
        for c in (card, card.lower(), "ZZ-999", *(twice or ())):
            assert_same(answer(Stats(con, derived=derived), "cards", {"card": c}, {}), answer(Stats(con), "cards", {"card": c}, {}))
        return compared
    finally:
        con.close()


@pytest.fixture(scope="module")
def hand_built(tmp_path_factory) -> Path:
    """The hand-built matches of analytics_support: one without a date, one unfinished."""
    d = tmp_path_factory.mktemp("derived-hand")
    svc = MatchService(str(d / "s.sqlite"))
    import_matches(svc)
    update(svc, d / "s.duckdb")
    svc.close()
    return d / "s.duckdb"


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> Path:
    return simulated_analytics(tmp_path_factory.mktemp("derived-sim"), 60, 11)


def test_stats_from_the_derived_tables_are_the_stats_without(hand_built, simulated):
    assert same_answers(hand_built) == len(METHODS) * 12
    assert same_answers(simulated) == len(METHODS) * 12


def test_the_derived_tables_are_in_memory_and_the_file_is_not_written(simulated):
    before = simulated.read_bytes()
    con = connect_reader(simulated)  # read-only and sandboxed
    try:
        derived = build(con, 7)
        assert derived.position == 7
        assert con.execute(f"SELECT count(*) FROM {derived.catalog}.card_seats").fetchone()[0] == con.execute(
            "SELECT count(*) FROM card_games g JOIN seats s ON s.match_no = g.match_no AND s.side = g.player "
            "WHERE s.result IS NOT NULL").fetchone()[0]
        path = con.execute(f"SELECT path FROM duckdb_databases() WHERE database_name = '{derived.catalog}'").fetchone()[0]
        assert path is None  # in memory
        cur = con.cursor()  # every cursor of the connection sees them
        assert cur.execute(f"SELECT count(*) FROM {derived.catalog}.attack_seats").fetchone()[0] == \
            cur.execute("SELECT count(*) FROM attacks").fetchone()[0]
        derived.drop(con)
        assert not con.execute(f"SELECT 1 FROM duckdb_databases() WHERE database_name = '{derived.catalog}'").fetchall()
    finally:
        con.close()
    assert simulated.read_bytes() == before


# ---------------------------------------------------------------------- row by row = expressions
def test_rates_row_by_row_are_the_expressions_bits():
    pairs = [(k, n) for n in range(0, 400) for k in range(0, n + 1)] + [(None, 5), (3, None), (2, 0)]
    df = pl.DataFrame({"k": [k for k, _ in pairs], "n": [n for _, n in pairs]}, schema={"k": pl.Int64, "n": pl.Int64})
    assert df.height > 256  # with_rate would use the expressions: compare the row path directly
    rows = df.with_columns(_rate_rows(df, "r", "k", "n"))
    low, high = wilson_exprs(pl.col("k"), pl.col("n"))
    exprs = df.with_columns(pl.when(pl.col("n") > 0).then(pl.col("k").cast(pl.Float64) / pl.col("n").cast(pl.Float64))
                            .alias("r"), low.alias("r_low"), high.alias("r_high"))
    assert_frame_equal(rows, exprs, check_exact=True)
    assert_frame_equal(with_rate(df.head(100), "r", "k", "n"), with_rate(df.head(100).lazy(), "r", "k", "n").collect(),
                       check_exact=True)


def test_differences_and_flags_row_by_row_are_the_expressions_values():
    import random

    rng = random.Random(3)
    rows = [(rng.randint(0, 50), rng.randint(0, 60)) for _ in range(200)]
    df = pl.DataFrame({"a_wins": [min(w, g) for w, g in rows], "a_games": [g for _, g in rows],
                       "b_wins": [min(w, g) // 2 for w, g in rows],
                       "b_games": [g if i % 7 else None for i, (_, g) in enumerate(rows)]})
    for frame in (df, df.lazy()):
        frame = with_rate(with_rate(frame, "a", "a_wins", "a_games"), "b", "b_wins", "b_games")
        frame = _flag(with_difference(frame, "d", "a", "b"), ["a_games", "b_games"], 30)
        if isinstance(frame, pl.LazyFrame):
            assert_frame_equal(frame.collect(), eager, check_exact=True)
        else:
            eager = frame
    odd = pl.DataFrame({"k": [3, 1], "n": [2, 4]})  # k > n: no statistic has one; the expressions' values
    assert_frame_equal(with_rate(odd, "r", "k", "n"), with_rate(odd.lazy(), "r", "k", "n").collect(), check_exact=True)
