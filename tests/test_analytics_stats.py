"""zx stats over hand-built matches: exactly the expected frames, intervals from scipy; and one
metric computed twice, in DuckDB SQL and in Polars, over simulated matches."""

from __future__ import annotations

import re

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import binomtest

from zx_analytics.projection import update
from zx_analytics.stats import Stats, UnknownName
from analytics_support import import_matches, simulated_analytics
from zx_events.application import MatchService


def ci(k: int, n: int) -> tuple[float | None, float | None, float | None]:
    """(rate, low, high) from scipy, the independent reference."""
    if n == 0:
        return None, None, None
    c = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return k / n, c.low, c.high


@pytest.fixture(scope="module")
def stats(tmp_path_factory):
    d = tmp_path_factory.mktemp("stats")
    svc = MatchService(str(d / "s.sqlite"))
    import_matches(svc)
    update(svc, d / "s.duckdb")
    svc.close()
    with Stats(d / "s.duckdb") as st:
        yield st


def frame(like: pl.DataFrame, rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=like.schema, orient="row")


def test_winrates_by_deck(stats):
    df = stats.winrates(by="deck")
    # m1: Red beats Blue; m2: Blue beats Red; m3 has no result and is left out
    assert_frame_equal(df, frame(df, [
        ("Blue Control", 2, 1, 1, 0, *ci(1, 2), True),
        ("Red Dragons", 2, 1, 1, 0, *ci(1, 2), True),
    ]))


def test_min_games_flags_never_hides(stats):
    few = Stats(stats.con, min_games=2).winrates(by="player")
    assert_frame_equal(few, frame(few, [
        ("Ren", 2, 1, 1, 0, *ci(1, 2), False),
        ("Aki", 1, 1, 0, 0, *ci(1, 1), True),
        ("Mio", 1, 0, 1, 0, *ci(0, 1), True),
    ]))


def test_winrates_by_colour_and_first(stats):
    df = stats.winrates(by="colour")
    assert df["colours"].to_list() == ["blue", "red"] and df["wins"].to_list() == [1, 1]
    df = stats.winrates(by="first")
    assert_frame_equal(df, frame(df, [  # the first player won both finished matches
        ("first", 2, 2, 0, 0, *ci(2, 2), True),
        ("second", 2, 0, 2, 0, *ci(0, 2), True),
    ]))


def test_filters(stats):
    df = stats.winrates(by="deck", since="2026-12-01")  # only m2 (dated 2026-12-05)
    assert_frame_equal(df, frame(df, [("Blue Control", 1, 1, 0, 0, *ci(1, 1), True),
                                      ("Red Dragons", 1, 0, 1, 0, *ci(0, 1), True)]))
    assert stats.winrates(by="deck", until="2026-11-30")["wins"].to_list() == [0, 1]  # m1: Blue lost, Red won
    assert stats.winrates(by="deck", event="Cup")["games"].to_list() == [1, 1]
    df = stats.winrates(by="player", deck="Red Dragons")  # the side playing Red Dragons
    assert df.select("player", "games", "wins").rows() == [("Aki", 1, 1), ("Mio", 1, 0)]
    df = stats.winrates(by="deck", player="Ren")
    assert df.select("deck", "games", "wins").rows() == [("Blue Control", 2, 1)]
    with pytest.raises(UnknownName, match="no event named 'Nowhere' in the analytics file; known: 'Cup', 'Test'"):
        stats.winrates(by="deck", event="Nowhere")


def test_a_date_filter_takes_a_python_date_as_its_text(stats):
    """``since=datetime.date(2026, 1, 1)`` was refused: "since must be a date YYYY-MM-DD, got datetime.date(...)"."""
    import datetime

    for since in (datetime.date(2026, 11, 1), datetime.datetime(2026, 11, 1, 23, 59)):
        assert_frame_equal(stats.winrates(by="deck", since=since, until=datetime.date(2026, 12, 31)),
                           stats.winrates(by="deck", since="2026-11-01", until="2026-12-31"))


def test_sql_frames_hold_128_bit_integers_exactly(stats):
    """A HUGEINT crossed Arrow as a Decimal(38, 0): its 39-digit top came back with its last digits wrong,
    and a UHUGEINT above 2^127 as -1. A HUGEINT is exact: Int128 where a value needs 39 digits, else the
    narrowest type Arrow takes (Int64 here; test_python_api_stats); a UHUGEINT DuckDB's text."""
    import polars as pl

    df = stats.sql("SELECT 170141183460469231731687303715884105727::HUGEINT AS top, 5::HUGEINT AS small, "
                   "340282366920938463463374607431768211455::UHUGEINT AS u")
    assert df.dtypes == [pl.Int128, pl.Int64, pl.String]
    assert df.row(0) == (2 ** 127 - 1, 5, str(2 ** 128 - 1))


def test_an_unknown_name_message_shows_long_names_cut():
    """A player named with 180,000 characters came back whole in a "did you mean": one stderr line of 180 KB.
    The message shows at most 80 characters of a name; ``suggestions`` keeps them whole."""
    long = "Ren" + "abcdefghij" * 18_000
    e = UnknownName("player", "Ren", [long, "Aki"])
    assert len(str(e)) < 300 and f"did you mean '{long[:79]}…'" in str(e)
    assert e.suggestions == [long]
    e = UnknownName("player", long + "x", ["Aki"])
    assert str(e).startswith(f"no player named '{long[:79]}…' in the analytics file")


def test_bad_filters_are_refused(stats):
    with pytest.raises(ValueError, match=re.escape("since: '2026-1-1x' is not a date (YYYY-MM-DD)")):
        stats.winrates(since="2026-1-1x")
    with pytest.raises(ValueError, match="since 2026-12-01 is after until 2026-11-01"):
        stats.winrates(since="2026-12-01", until="2026-11-01")
    with pytest.raises(ValueError, match="by must be one of deck, archetype, colour, player, first, got 'colors'"):
        stats.winrates(by="colors")


def test_a_date_python_reads_is_given_to_sql_as_its_day(stats):
    """``since='20260101'`` passed the check (Python's date.fromisoformat reads it) and failed in SQL's CAST
    (duckdb ConversionException): it is read as 2026-01-01, as ``zx stats --since 20260101`` reads it."""
    assert_frame_equal(stats.winrates(since="20260101"), stats.winrates(since="2026-01-01"))
    assert_frame_equal(stats.winrates(until="2026-W53-1"), stats.winrates(until="2026-12-28"))


def test_matchups(stats):
    df = stats.matchups()
    assert_frame_equal(df, frame(df, [
        ("Blue Control", "Red Dragons", 2, 1, 1, 0, *ci(1, 2), True),
        ("Red Dragons", "Blue Control", 2, 1, 1, 0, *ci(1, 2), True),
    ]))


def test_attacks_by_card(stats):
    df = stats.attacks(by="card")
    # attacks, games, destroyed, survived, player_damaged, no_damage_overboost, fizzled, unresolved,
    # successes, events_played
    assert_frame_equal(df, frame(df, [
        ("R01-001", "Ember Whelp Scout", 4, 2, 0, 1, 3, 0, 0, 0, 3, 1, *ci(3, 4), True),
        ("R01-005", "Magma Wyrm Sentinel", 3, 1, 1, 0, 2, 0, 0, 0, 3, 0, *ci(3, 3), True),
        ("R01-002", "Cinder Hatchling", 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, *ci(1, 1), True),
        ("U01-001", "Tidepool Drone", 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, *ci(1, 1), True),
        ("U01-009", "Mistveil Tactician", 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, *ci(1, 1), True),
    ]))


def test_attacks_by_square_and_target(stats):
    df = stats.attacks(by="square")
    assert df.select("square", "attacks", "successes").rows() == [("b2", 5, 4), ("c2", 3, 3), ("a1", 1, 1),
                                                                  ("a2", 1, 1)]
    df = stats.attacks(by="target")
    assert df.select("target", "name", "attacks", "destroyed", "survived", "player_damaged").rows() == [
        ("player", None, 6, 0, 0, 6), ("U01-003", "Azure Gearknight", 2, 1, 1, 0),
        ("R01-002", "Cinder Hatchling", 1, 1, 0, 0), ("U01-001", "Tidepool Drone", 1, 1, 0, 0)]
    df = stats.attacks(by="card", deck="Blue Control")  # the attacking side's deck
    assert df["card"].to_list() == ["U01-001", "U01-009"]


def test_life_by_seat(stats):
    df = stats.life()
    # games, opponent_turns, damage, ignitions, behind_games, comebacks, damage_per_turn, rates
    assert_frame_equal(df, frame(df, [
        ("first", 3, 5, 0, 0, 0, 0, 0.0, *ci(0, 0), *ci(0, 0), True),
        # m1: P2 took 5 points in P1's 4 turns (one revealed card played by its IG), m2: P1 took 1
        # in P2's 1 turn, m3: none in 2 turns; the second seat was behind in m1 and m2 and lost both
        ("second", 3, 7, 6, 1, 2, 0, 6 / 7, *ci(1, 6), *ci(0, 2), True),
    ]))


def test_life_by_turn(stats):
    df = Stats(stats.con, min_games=1).life(by="turn")
    got = df.filter(pl.col("damage") > 0).select("turn", "seat", "games", "damage", "ignitions", "damage_per_game")
    assert got.rows() == [(1, "second", 3, 1, 0, 1 / 3), (3, "second", 2, 1, 0, 0.5), (5, "second", 1, 2, 1, 2.0),
                          (7, "second", 1, 2, 0, 2.0)]
    assert df.height == 14 and df.filter(pl.col("turn") == 4)["games"].to_list() == [1, 1]
    row = df.filter((pl.col("turn") == 5) & (pl.col("seat") == "second")).row(0, named=True)
    assert (row["ignition_rate"], row["ignition_rate_low"], row["ignition_rate_high"]) == pytest.approx(ci(1, 2))


def test_cards_in_hand_and_played(stats):
    """The in-hand (GIH) and played counts of every card, as before the 17lands columns came."""
    df = stats.cards()
    # (played games, wins, in-hand games, wins); m3 has no result; m2's mulliganed cards do not count
    counts = {"R01-001": (1, 1, 1, 1), "R01-002": (1, 1, 1, 1), "R01-003": (0, 0, 2, 1), "R01-004": (0, 0, 2, 1),
              "R01-005": (1, 1, 1, 1), "R01-009": (0, 0, 2, 1), "R01-010": (0, 0, 1, 0), "R01-013": (1, 0, 2, 1),
              "R01-014": (1, 1, 2, 1), "U01-001": (2, 1, 2, 1), "U01-002": (0, 0, 2, 1), "U01-003": (1, 0, 2, 1),
              "U01-004": (0, 0, 1, 0), "U01-009": (1, 0, 1, 0), "U01-010": (0, 0, 1, 0), "U01-011": (1, 0, 0, 0),
              "U01-014": (0, 0, 2, 1)}
    got = {r["card"]: (r["played_games"], r["played_wins"], r["gih_games"], r["gih_wins"])
           for r in df.iter_rows(named=True) if r["played_games"] or r["gih_games"]}
    assert got == counts
    assert df.filter(pl.col("card") == "R01-001")["name"].to_list() == ["Ember Whelp Scout"]
    for r in df.iter_rows(named=True):
        assert (r["gih_wr"], r["gih_wr_low"], r["gih_wr_high"]) == pytest.approx(ci(r["gih_wins"], r["gih_games"]))


def test_sql_is_read_only(stats):
    from zx_analytics.db import QueryRefused

    assert stats.sql("SELECT count(*) AS n FROM seats").rows() == [(6,)]
    assert stats.sql("SELECT * FROM filtered_seats(NULL, NULL, 'Cup', NULL, NULL)").height == 2
    with pytest.raises(QueryRefused, match="read-only"):
        stats.sql("DELETE FROM matches")


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """80 simulated matches (zx simulate's engine), projected."""
    with Stats(simulated_analytics(tmp_path_factory.mktemp("sim"), 80, 5)) as st:
        yield st


def test_win_rate_by_deck_sql_equals_polars(simulated):
    """The same metric from DuckDB SQL (zx stats) and from Polars over the raw matches table."""
    sql = simulated.winrates(by="deck")
    m = simulated.sql("SELECT * FROM matches")
    sides = pl.concat([
        m.select(pl.col("p1_deck").alias("deck"), pl.col("p2_deck").alias("opp"),
                 (pl.col("winner") == "P1").alias("won"), pl.col("reason")),
        m.select(pl.col("p2_deck").alias("deck"), pl.col("p1_deck").alias("opp"),
                 (pl.col("winner") == "P2").alias("won"), pl.col("reason")),
    ])
    finished = sides.filter(pl.col("reason").is_not_null() & (pl.col("deck") != pl.col("opp")))
    by_polars = (finished.group_by("deck")
                 .agg(pl.len().alias("games"), pl.col("won").fill_null(False).sum().alias("wins"))
                 .with_columns((pl.col("wins") / pl.col("games")).alias("win_rate"))
                 .sort("deck"))
    assert by_polars["games"].sum() > 100
    assert_frame_equal(sql.select("deck", "games", "wins", "win_rate").sort("deck"), by_polars, check_dtypes=False)
    for row in sql.iter_rows(named=True):
        _, low, high = ci(row["wins"], row["games"])
        assert row["win_rate_low"] == pytest.approx(low) and row["win_rate_high"] == pytest.approx(high)


def test_every_stats_command_runs_on_simulated_matches(simulated):
    frames = [simulated.winrates(by=b) for b in ("deck", "colour", "player", "first")]
    frames += [simulated.matchups(), simulated.life(), simulated.life(by="turn"), simulated.cards()]
    frames += [simulated.attacks(by=b) for b in ("card", "square", "target")]
    for df in frames:
        assert df.height > 0 and "low_sample" in df.columns
    seats = simulated.winrates(by="first")
    assert seats["games"].to_list()[0] == seats["games"].to_list()[1]  # every finished match has both seats


@pytest.mark.parametrize("by,expr", [("card", "attacker_card"), ("square", "attacker_square"),
                                     ("target", "coalesce(target_card, 'player')")])
def test_attack_games_equal_a_distinct_count(simulated, by, expr):
    """games counts the first attacks of a side per key; the slow way, count(DISTINCT), agrees."""
    got = simulated.attacks(by=by).select(by, "games").sort(by)
    want = simulated.sql(f"SELECT {expr} AS {by}, count(DISTINCT (match_no, player)) AS games FROM attacks "
                         f"GROUP BY ALL ORDER BY 1")
    assert_frame_equal(got, want)
