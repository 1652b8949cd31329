"""The Wilson 95% interval: our Polars expression, scalar function and SQL macros against scipy's."""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy.stats import binomtest

from zx_analytics.db import connect_writer, create_schema
from zx_analytics.wilson import wilson_exprs, wilson_interval, with_rate

CASES = [(0, 1), (1, 1), (0, 5), (3, 7), (5, 5), (1, 2), (17, 30), (29, 30), (0, 30), (512, 1000), (1, 100_000),
         (49_999, 100_000)]


def scipy_wilson(k: int, n: int) -> tuple[float, float]:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


@pytest.mark.parametrize("k,n", CASES)
def test_scalar_matches_scipy(k, n):
    low, high = wilson_interval(k, n)
    want = scipy_wilson(k, n)
    assert low == pytest.approx(want[0], abs=1e-12) and high == pytest.approx(want[1], abs=1e-12)


def test_polars_expression_matches_scipy_and_is_null_without_trials():
    df = pl.DataFrame({"k": [k for k, _ in CASES] + [0], "n": [n for _, n in CASES] + [0]})
    low, high = wilson_exprs(pl.col("k"), pl.col("n"))
    got = df.with_columns(low.alias("low"), high.alias("high"))
    for (k, n), lo, hi in zip(CASES, got["low"], got["high"]):
        want = scipy_wilson(k, n)
        assert lo == pytest.approx(want[0], abs=1e-12) and hi == pytest.approx(want[1], abs=1e-12)
    assert got.row(-1) == (0, 0, None, None)


def test_with_rate_adds_rate_and_bounds():
    df = with_rate(pl.DataFrame({"wins": [1, 0], "games": [2, 0]}), "win_rate", "wins", "games")
    assert df.columns == ["wins", "games", "win_rate", "win_rate_low", "win_rate_high"]
    assert df.row(1) == (0, 0, None, None, None)
    assert df["win_rate"][0] == 0.5 and df["win_rate_low"][0] == pytest.approx(scipy_wilson(1, 2)[0])


def test_sql_macros_match_scipy(tmp_path):
    con = connect_writer(tmp_path / "w.duckdb")
    create_schema(con)
    for k, n in CASES:
        (low, high), = con.execute("SELECT wilson_low(?, ?), wilson_high(?, ?)", [k, n, k, n]).fetchall()
        want = scipy_wilson(k, n)
        assert low == pytest.approx(want[0], abs=1e-9) and high == pytest.approx(want[1], abs=1e-9)
    assert con.execute("SELECT wilson_low(0, 0)").fetchall() == [(None,)]
    con.close()


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="between 0 and n=3"):
        wilson_interval(4, 3)
    assert wilson_interval(0, 0) == (None, None)
    assert not math.isnan(wilson_interval(0, 1)[0])


# ---------------------------------------------------------------------- the ends are exact
ENDS = range(1, 2001)


def test_no_wins_has_low_bound_0_and_all_wins_high_bound_1_in_python():
    """At k = 0 the low bound is exactly 0 and at k = n the high bound exactly 1, in the scalar and
    the row-by-row path (centre - half left 2.8e-17 at 0 of 7: an interval without its own rate)."""
    for n in ENDS:
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0, n
    df = pl.DataFrame({"k": [0 for n in ENDS] + list(ENDS), "n": [*ENDS, *ENDS]})
    for start in range(0, df.height, 200):  # with_rate row by row (at most BY_ROW rows a frame)
        part = with_rate(df.slice(start, 200), "r", "k", "n")
        assert all((lo == 0.0) if k == 0 else (hi == 1.0) for k, lo, hi in part.select("k", "r_low", "r_high").rows())


def test_bounds_hold_the_rate_inside_0_1_and_are_exact_at_the_ends_in_expressions_and_sql(tmp_path):
    """Every k <= n <= 2000: low <= k/n <= high inside [0, 1], low exactly 0 at k = 0 and high exactly 1
    at k = n, in the Polars expressions and the SQL macros (which gave -1.2e-17 and 1.0000000000000002)."""
    con = connect_writer(tmp_path / "w.duckdb")
    create_schema(con)
    checks = ("count(*) FILTER (WHERE lo < 0 OR hi > 1 OR lo > k / n OR hi < k / n) AS outside, "
              "count(*) FILTER (WHERE k = 0 AND lo <> 0) AS low_not_0, count(*) FILTER (WHERE k = n AND hi <> 1) AS high_not_1")
    pairs = "SELECT k, n FROM range(1, 2001) a(n), range(0, 2001) b(k) WHERE k <= n"
    sql_bounds = con.execute(f"SELECT {checks}, count(*) FROM (SELECT k, CAST(n AS DOUBLE) AS n, wilson_low(k, n) AS lo, "
                             f"wilson_high(k, n) AS hi FROM ({pairs}))").fetchone()
    assert sql_bounds == (0, 0, 0, 2001 * 2000 // 2 + 2000)
    con.close()
    df = pl.DataFrame([(k, n) for n in ENDS for k in range(n + 1)], schema={"k": pl.Int64, "n": pl.Int64}, orient="row")
    low, high = wilson_exprs(pl.col("k"), pl.col("n"))
    got = df.with_columns(low.alias("lo"), high.alias("hi"), (pl.col("k") / pl.col("n")).alias("p"))
    assert got.filter((pl.col("lo") < 0) | (pl.col("hi") > 1) | (pl.col("lo") > pl.col("p"))
                      | (pl.col("hi") < pl.col("p"))).height == 0
    assert got.filter((pl.col("k") == 0) & (pl.col("lo") != 0.0)).height == 0
    assert got.filter((pl.col("k") == pl.col("n")) & (pl.col("hi") != 1.0)).height == 0


def test_sql_macros_are_null_for_a_null_count(tmp_path):
    con = connect_writer(tmp_path / "w.duckdb")
    create_schema(con)
    assert con.execute("SELECT wilson_low(NULL, 5), wilson_high(NULL, 5)").fetchall() == [(None, None)]
    con.close()
