"""The Wilson score interval for a proportion (95% by default), vectorised over Polars columns.

Why hand-written: the interval is a closed formula of a few arithmetic operations, and the stats
apply it to every row of an aggregated frame at once. As a Polars expression it runs vectorised
in microseconds; statsmodels (``proportion_confint(method="wilson")``) or scipy
(``binomtest(k, n).proportion_ci(method="wilson")``) would add a heavy runtime dependency and a
Python call per row. tests/test_analytics_wilson.py checks this implementation, and the SQL macros
``wilson_low`` / ``wilson_high`` shipped in the DuckDB file, against scipy's.

Wilson (1927): for k successes in n trials, p = k/n,
    centre = (p + z²/2n) / (1 + z²/n),  half-width = z/(1 + z²/n) * sqrt(p(1-p)/n + z²/4n²).
Unlike the normal (Wald) interval it stays inside [0, 1] and is honest at p = 0 or 1 and small n.
At p = 0 the low bound is exactly 0 and at p = 1 the high bound exactly 1 (in exact arithmetic
centre - half and centre + half are 0 and 1 there; in floating point they came out as 2.8e-17 or
0.9999999999999999, so the interval of 0 wins in 7 did not hold the rate 0), and every bound is
clamped into [0, 1]; the SQL macros do the same.

``with_rate`` on a frame of at most ``BY_ROW`` rows (a statistic's few dozen or hundred rows) works
row by row in Python (``_rate_rows``): a Polars query of these expressions costs ~0.2-0.7 ms to plan
whatever the rows, several times the arithmetic of a few hundred rows, and a statistic has up to
seven rates. Both paths do the same IEEE operations in the same order, so they give the same bits
(tests/test_analytics_wilson.py compares them over every k <= n <= 1500).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# the scalar interval is the core's (the match list's record needs it without the analytics): the same operations
from zx_events.wilson import Z95, wilson_interval  # noqa: F401  (re-exported: zx_analytics.wilson.wilson_interval)
from zx_events.wilson import bounds as _bounds

if TYPE_CHECKING:  # (polars only where a frame is: the match list's record needs the arithmetic alone, and
    import polars as pl  # zx matches would pay polars' ~0.2 s import, issue 20 target 4)

BY_ROW = 256  # with_rate: frames of at most this many rows are computed row by row


def wilson_exprs(k: pl.Expr, n: pl.Expr, z: float = Z95) -> tuple[pl.Expr, pl.Expr]:
    """Polars expressions for the (low, high) bounds; null where n is 0 or null."""
    import polars as pl

    kf, nf = k.cast(pl.Float64), n.cast(pl.Float64)
    p = kf / nf
    z2 = z * z
    denom = 1 + z2 / nf
    centre = (p + z2 / (2 * nf)) / denom
    half = z / denom * (p * (1 - p) / nf + z2 / (4 * nf * nf)).sqrt()
    ok = n.is_not_null() & (n > 0)
    low = pl.when(ok).then(pl.when(p == 0).then(pl.lit(0.0)).otherwise(pl.max_horizontal(centre - half, pl.lit(0.0))))
    high = pl.when(ok).then(pl.when(p == 1).then(pl.lit(1.0)).otherwise(pl.min_horizontal(centre + half, pl.lit(1.0))))
    return low, high


def _rate_rows(df: pl.DataFrame, name: str, k: str, n: str) -> list[pl.Series] | None:
    """``with_rate``'s three columns, computed row by row with the same values as its expressions: null
    where n is null or not positive; where only k is null, a null rate and the bounds 0 and 1 (what
    max_horizontal and min_horizontal make of a null). None when a k is outside 0..n (no statistic
    has one): the expressions' NaN are theirs to make."""
    import polars as pl

    rates: list[float | None] = []
    lows: list[float | None] = []
    highs: list[float | None] = []
    for kk, nn in zip(df.get_column(k).to_list(), df.get_column(n).to_list()):
        if nn is None or nn <= 0:
            rate, low, high = None, None, None
        elif kk is None:
            rate, low, high = None, 0.0, 1.0
        elif not 0 <= kk <= nn:
            return None
        else:
            rate = float(kk) / float(nn)
            low, high = _bounds(rate, float(nn))
        rates.append(rate)
        lows.append(low)
        highs.append(high)
    return [pl.Series(c, v, dtype=pl.Float64) for c, v in ((name, rates), (f"{name}_low", lows), (f"{name}_high", highs))]


def with_rate(df: pl.DataFrame, name: str, k: str, n: str) -> pl.DataFrame:
    """Add ``name`` = k/n and its Wilson 95% bounds ``name_low`` and ``name_high`` (null when n is 0).
    A DataFrame of at most ``BY_ROW`` rows: row by row (``_rate_rows``); otherwise Polars expressions."""
    import polars as pl

    if isinstance(df, pl.DataFrame) and df.height <= BY_ROW:
        columns = _rate_rows(df, name, k, n)
        if columns is not None:
            return df.with_columns(columns)
    low, high = wilson_exprs(pl.col(k), pl.col(n))
    ok = pl.col(n) > 0
    return df.with_columns(
        pl.when(ok).then(pl.col(k).cast(pl.Float64) / pl.col(n).cast(pl.Float64)).alias(name),
        low.alias(f"{name}_low"),
        high.alias(f"{name}_high"),
    )
