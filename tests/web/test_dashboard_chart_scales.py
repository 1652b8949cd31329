"""The dashboard's chart scales and labels (docs/serve.md, "Metagame"): the QA report of 2026-11-28.

Life damage by turn drew only the turns with damage (its axis read 1, 2, 3, 5, 7, 9, 12 under "turns 1-16");
Deck share by week drew a deck's line through the weeks it was not played, on a category axis where 20 weeks
were as wide as one; Attack outcomes wrote "100.0% of 17" with no interval and raw keys in its legend; Deck
share's axis ended at 74% with an 80% label over the 75%. Fast: the chart functions on small frames, no browser.
"""

from __future__ import annotations

import html
import re

import polars as pl


def axis(svg: str, title: str) -> str:
    """The description vl-convert writes of the axis titled ``title`` (its scale and values)."""
    return re.search(rf"X-axis titled '{title}' for a [^\"]*", svg).group(0)


def test_life_damage_by_turn_shows_every_turn_of_its_range_0_where_none_was_taken():
    from zx_web.dashboard import life_chart

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


def x_labels(svg: str) -> list[tuple[float, str, str]]:
    """(x, text-anchor, text) of each label of a chart's x axis (its first axis)."""
    part = svg[svg.index("role-axis-label"):]
    part = part[:part.index("</g>")]
    return [(float(x), anchor or "middle", text) for anchor, x, text in re.findall(
        r'<text(?: text-anchor="(\w+)")? transform="translate\(([\d.]+),[\d.]+\)[^"]*"[^>]*>([^<]*)</text>', part)]


def test_deck_shares_axis_ends_at_a_round_value_and_its_labels_never_meet():
    """The QA store's shares (Blue Control's interval ends at 67.4%): the axis ended at 80% with its last label
    flush right, 1 px from the 75% (a browser drew "75%80%")."""
    from zx_web.dashboard import label_px, share_chart

    df = pl.DataFrame({"deck": ["Blue Control", "Red Dragons", "Green Beasts", "White Knights"],
                       "seats": [6, 5, 2, 1], "all_seats": [14] * 4, "share": [0.429, 0.357, 0.143, 0.071],
                       "share_low": [0.214, 0.163, 0.040, 0.013], "share_high": [0.674, 0.612, 0.399, 0.315],
                       "low_sample": [True] * 4})
    for top in (0.674, 0.18, 0.93, 1.0):
        svg = share_chart(df.with_columns(pl.Series("share_high", [top, 0.1, 0.1, 0.1])))
        labels = x_labels(svg)
        spans = [(x - {"start": 0, "middle": 0.5, "end": 1}[a] * label_px(t),
                  x + {"start": 1, "middle": 0.5, "end": 0}[a] * label_px(t)) for x, a, t in labels]
        assert all(b[0] - a[1] >= 6 for a, b in zip(spans, spans[1:])), (top, labels)
        end = float(labels[-1][2].rstrip("%")) / 100
        assert end >= min(1.0, top * 1.1) - 1e-9 and round(end * 100) % 5 == 0, (top, labels)
        assert f"values from 0% to {labels[-1][2]}" in svg  # the domain ends at the last label


def attack_frame() -> pl.DataFrame:
    from zx_analytics.wilson import with_rate

    df = pl.DataFrame({"square": ["a1", "a2", "b1"], "attacks": [17, 5, 3], "destroyed": [14, 3, 1],
                       "player_damaged": [3, 0, 0], "survived": [0, 2, 0], "no_damage_overboost": [0, 0, 1],
                       "fizzled": [0, 0, 0], "unresolved": [0, 0, 1], "successes": [17, 3, 1],
                       "low_sample": [False, False, True]})
    return with_rate(df, "success_rate", "successes", "attacks")


def test_attack_outcomes_write_each_success_rate_with_its_wilson_interval_and_count():
    """It wrote "100.0% of 17": a rate with no interval, though docs/analytics.md gives every rate one."""
    from zx_web.dashboard import attack_chart, pct

    df = attack_frame()
    svg = attack_chart(df)
    texts = set(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    for r in df.iter_rows(named=True):
        label = f"{pct(r['success_rate'])} [{pct(r['success_rate_low'], 0)}–{pct(r['success_rate_high'], 0)}] " \
                f"n={r['attacks']}"
        assert label in texts, (label, texts)
    assert "100.0% [82%–100%] n=17" in texts  # (Wilson's 95% interval of 17 of 17)


def test_attack_outcomes_legend_says_the_games_words_in_colours_told_apart_by_anyone():
    """Its legend showed the table's keys (player_damaged, no_damage_overboost), in two blues and three greys of
    which two were 8 apart (CIE76). It says Z/X's words (``Game.attack_outcomes``), each outcome in a colour at
    least 15 apart from every other for anyone, a deuteranope and a protanope."""
    from itertools import combinations

    from test_serve_dashboard import DICHROMATS, lab_seen

    from zx_web.dashboard import OUTCOME_COLOURS, OUTCOMES, attack_chart
    from zx_events import games

    words = games.get("zx").attack_outcomes
    assert set(words) == set(OUTCOMES) and all("_" not in w for w in words.values())
    svg = attack_chart(attack_frame(), words)
    legend = svg[svg.index("role-legend"):]
    shown = re.findall(r'role-legend-label"[^>]*><text[^>]*>([^<]*)<', legend)
    assert shown == [words[o] for o in OUTCOMES], shown
    assert not any(o in svg for o in ("player_damaged", "no_damage_overboost"))
    for matrix in (None, *DICHROMATS.values()):
        for a, b in combinations(OUTCOME_COLOURS, 2):
            gap = sum((x - y) ** 2 for x, y in zip(lab_seen(a, matrix), lab_seen(b, matrix))) ** 0.5
            assert gap >= 15, (a, b, gap)


def week_labels(svg: str) -> dict[str, float]:
    """The weekly trend's x axis labels: ISO week -> x."""
    return {text: x for x, _, text in x_labels(svg) if re.fullmatch(r"\d{4}-W\d\d", text)}


def line_paths(svg: str, colour: str) -> list[list[tuple[float, float]]]:
    """The vertices of each line drawn in ``colour`` (its path's M and L commands)."""
    part = svg[svg.index('class="mark-line role-mark'):]
    part = part[:part.index('class="mark-symbol')]
    return [[(float(x), float(y)) for x, y in re.findall(r"[ML]([\d.]+),([\d.]+)", d)]
            for d in re.findall(rf'<path[^>]* d="([^"]+)"[^>]*stroke="{colour}"', part)]


def test_deck_share_by_week_draws_time_to_scale_and_a_week_a_deck_was_not_played_at_0():
    """The QA store: Blue Control played in 2026-W19, W20 and W44, Green Beasts in W20 and W24. Its line ran from
    W20 to W44 at 50%, over W24 where its share was 0%, on a category axis where W24-W44 was as wide as W19-W20.
    The axis is one of time (a week as wide as any other, labelled by its ISO week); a deck is at 0% in a week with
    matches it was not in; a line joins consecutive weeks only, never across weeks without a match."""
    from zx_web.dashboard import DECK_COLOURS, trend_chart

    played = {"2026-W19": ("Blue Control", "White Knights"), "2026-W20": ("Blue Control", "Green Beasts"),
              "2026-W24": ("Green Beasts", "Red Dragons"), "2026-W44": ("Blue Control", "Red Dragons")}
    df = pl.DataFrame([{"week": w, "deck": d, "seats": 1, "field": 2, "share": 0.5}
                       for w, decks in played.items() for d in decks])
    svg = trend_chart(df)
    # (the axis is hidden from a screen reader: it said "values from 105,658.5"; each point names its week, and the
    # scale's linearity is measured below, from the labels' positions)
    assert "X-axis titled 'ISO week'" not in svg and "2026-W19: " in html.unescape(svg)
    labels = week_labels(svg)
    assert len(labels) >= 4, labels
    (w1, x1), (w2, x2) = sorted(labels.items())[:2]
    week = (x2 - x1) / (int(w2[-2:]) - int(w1[-2:]))  # px a week: the same between any two labels
    for w, x in labels.items():
        assert abs(x - (x1 + week * (int(w[-2:]) - int(w1[-2:])))) < 0.01, (w, labels)
    xs = {w: x1 + week * (int(w[-2:]) - int(w1[-2:])) for w in played}
    blue = line_paths(svg, DECK_COLOURS[0])  # (the decks' colours in their names' order: Blue Control first)
    vertices = {round(x, 1): y for path in blue for x, y in path}
    assert round(xs["2026-W24"], 1) in vertices  # drawn at W24, where it was not played
    bottom = max(y for path in line_paths(svg, DECK_COLOURS[3]) for _, y in path)  # (White Knights: 0% at W20)
    assert vertices[round(xs["2026-W24"], 1)] == bottom and vertices[round(xs["2026-W19"], 1)] < bottom
    for path in blue:  # no line across W21-W23 or W25-W43, weeks without a match
        assert all(abs((b[0] - a[0]) - week) < 0.01 for a, b in zip(path, path[1:])), path


def test_attack_outcome_bars_and_swatches_are_outlined_3_to_1_on_white():
    """Three of the outcome colours are under 3:1 on the chart's white (sky blue 2.2, orange 2.0, grey 1.7; WCAG
    1.4.11 asks 3:1 of a mark one must see to read a chart): every part of a bar and every legend swatch is
    outlined in a colour 3:1 or more on white, and a part under 3:1 itself is one of them."""
    from test_serve_dashboard import contrast

    from zx_web.dashboard import OUTCOME_COLOURS, attack_chart
    from zx_events import games

    svg = attack_chart(attack_frame(), games.get("zx").attack_outcomes)
    marks = svg[svg.index('class="mark-rect role-mark'):]
    marks = marks[:marks.index("</g>")]
    swatches = re.findall(r'role-legend-symbol"[^>]*>(<path[^>]*/>)', svg)
    assert len(swatches) == 6
    paths = re.findall(r'<path[^>]*role="graphics-symbol"[^>]*/>', marks) + swatches
    assert len(paths) >= 6 + 6  # (the frame: parts of 3 bars, 6 swatches)
    faint = [c for c in OUTCOME_COLOURS if contrast(c) < 3]
    assert len(faint) == 3, faint
    seen = set()
    for p in paths:
        fill = re.search(r'fill="(#[0-9a-f]{6})"', p).group(1)
        stroke = re.search(r'stroke="(#[0-9a-f]{6})"', p)
        seen.add(fill)
        assert stroke and contrast(stroke.group(1)) >= 3 and 'stroke-width="1"' in p, p
    assert set(faint) <= seen
