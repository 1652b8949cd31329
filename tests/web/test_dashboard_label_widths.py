"""A chart's names cut by their drawn width, not by terminal cells alone (docs/serve.md, "Metagame").

The QA report: a deck named "W" * 60 made Win rate by deck 1230 px wide, Deck share 1152 px and the weekly
trend 1150 px, against their 1118 px box (labels cut at its edge): names were cut to 40 terminal cells, taken
for about 280 px, but 40 "W"s are about 440 px in the charts' font (DejaVu Sans, 11 px). Now ``short`` cuts a
name to the pixels it is given too, measured with DejaVu Sans's widths (a wide default for other text).
Fast: the chart functions on small frames, no browser.
"""

from __future__ import annotations

import re

import polars as pl
import pytest

from zx_web.dashboard import (AXIS_LABELS, CHART_BOX, LEGEND_LABELS, interval_chart, label_px, share_chart, short,
                           trend_chart)

WIDE = {
    "W": "W" * 60,
    "M": "M" * 60,
    "mixed": "WMWM@" * 12,
    "latin1": "ÆŒ" * 20 + "Æ" * 40,
    "cjk": "紅蓮の竜騎士" * 10,
    "emoji": "\U0001f525" * 40,
}


def width(svg: str) -> float:
    return float(re.search(r'<svg[^>]*\swidth="([0-9.]+)"', svg).group(1))


def frame(names: list[str]) -> pl.DataFrame:
    n = len(names)
    return pl.DataFrame({"deck": names, "games": [40] * n, "seats": [40] * n, "all_seats": [80] * n,
                         "win_rate": [1.0] * n, "win_rate_low": [0.21] * n, "win_rate_high": [1.0] * n,
                         "share": [0.5] * n, "share_low": [0.2] * n, "share_high": [1.0] * n,
                         "low_sample": [False] * n})


@pytest.mark.parametrize("kind", sorted(WIDE))
def test_a_long_name_of_wide_letters_leaves_every_chart_as_wide_as_its_box_or_narrower(kind):
    names = [WIDE[kind], WIDE[kind][:-1] + "x", "Red Dragons"]
    df = frame(names)
    assert width(interval_chart(df, "deck", "win_rate", "games")) <= CHART_BOX
    assert width(share_chart(df)) <= CHART_BOX
    weeks = pl.concat([df.with_columns(pl.lit(w).alias("week")) for w in ("2026-W01", "2026-W02")])
    assert width(trend_chart(weeks)) <= CHART_BOX


@pytest.mark.parametrize("kind", sorted(WIDE))
def test_a_name_cut_for_a_chart_is_drawn_in_the_room_it_is_given(kind):
    for room in (AXIS_LABELS, LEGEND_LABELS):
        cut = short(WIDE[kind], 200, room)
        assert cut.endswith("…") and label_px(cut) <= room, (kind, room, label_px(cut))
        assert WIDE[kind].startswith(cut[:-1])
    assert short("Red Dragons") == "Red Dragons"  # a name that fits is whole
    assert label_px("W" * 40) > 400 and label_px("i" * 40) < 150  # (the widths of DejaVu Sans at 11 px)
