"""The dashboard's chart scales and labels (docs/serve.md, "Metagame"): the QA report of 2026-11-28.

Life damage by turn drew only the turns with damage (its axis read 1, 2, 3, 5, 7, 9, 12 under "turns 1-16");
Deck share by week drew a deck's line through the weeks it was not played, on a category axis where 20 weeks
were as wide as one; Attack outcomes wrote "100.0% of 17" with no interval and raw keys in its legend; Deck
share's axis ended at 74% with an 80% label over the 75%. Fast: the chart functions on small frames, no browser.
"""

from __future__ import annotations

import re

import polars as pl


def axis(svg: str, title: str) -> str:
    """The description vl-convert writes of the axis titled ``title`` (its scale and values)."""
    return re.search(rf"X-axis titled '{title}' for a [^\"]*", svg).group(0)


def test_life_damage_by_turn_shows_every_turn_of_its_range_0_where_none_was_taken():
    from web.dashboard import life_chart

    rows = [(t, seat, 4, dmg) for t, dmgs in ((1, (0, 2)), (2, (0, 0)), (3, (1, 0)), (4, (0, 0)), (5, (0, 3)))
            for seat, dmg in zip(("first", "second"), dmgs)]
    df = pl.DataFrame({"turn": [r[0] for r in rows], "seat": [r[1] for r in rows], "games": [r[2] for r in rows],
                       "damage": [r[3] for r in rows], "damage_per_game": [r[3] / r[2] for r in rows],
                       "ignition_rate": [0.0] * len(rows), "low_sample": [False] * len(rows)})
    svg = life_chart(df)
    assert axis(svg, "turn").endswith("5 values: 1, 2, 3, 4, 5"), axis(svg, "turn")
    bars = re.findall(r'aria-roledescription="bar"', svg)
    assert len(bars) == 10  # a bar (of 0 where none) for each seat of each turn
    assert "turn: 2; Life damage per game: 0; seat: first" in svg and "turn: 4; per_game: 0; seat: second; label: 0" in svg
