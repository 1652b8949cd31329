"""The Wilson score interval of one proportion (95% by default), as plain arithmetic.

The core's match list gives a player's record with it (``zx_events.matchlist.records``); the analytics apply the
same operations, in the same order, to whole frames (``zx_analytics.wilson``, which explains why it is hand-written
and how it is checked against scipy). Here so that the core needs nothing of the analytics for one formula.

Wilson (1927): for k successes in n trials, p = k/n,
    centre = (p + z²/2n) / (1 + z²/n),  half-width = z/(1 + z²/n) * sqrt(p(1-p)/n + z²/4n²),
with the low bound exactly 0 at p = 0 and the high bound exactly 1 at p = 1, every bound clamped into [0, 1].
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the 0.975 quantile of the standard normal distribution


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """(low, high) for ``k`` successes in ``n`` trials; (None, None) when n is 0."""
    if n <= 0:
        return None, None
    if not 0 <= k <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {k}")
    return bounds(float(k) / float(n), float(n), z)


def bounds(p: float, nf: float, z: float = Z95) -> tuple[float, float]:
    """(low, high) for the rate ``p`` of ``nf`` trials: the operations of ``zx_analytics.wilson.wilson_exprs``, in
    its order (the same bits)."""
    z2 = z * z
    denom = 1 + z2 / nf
    centre = (p + z2 / (2 * nf)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / nf + z2 / (4 * nf * nf))
    return 0.0 if p == 0 else max(centre - half, 0.0), 1.0 if p == 1 else min(centre + half, 1.0)
