"""The Wilson 95% interval: our Polars expression, scalar function and SQL macros against scipy's."""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy.stats import binomtest

from analytics.db import connect_writer, create_schema
from analytics.wilson import wilson_exprs, wilson_interval, with_rate

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
