"""The metagame dashboard: its data (the same frames as ``zx stats``) and its charts, drawn as SVG.

Charts are Vega-Lite specifications built with altair and rendered to SVG on the server by
vl-convert (both from PyPI; vl-convert embeds its own renderer), so a page, or the single file of
``zx report``, shows them with no script and no network. Every chart carries its numbers as text
labels, and the same rows as a table under it. Rows flagged ``low_sample`` (fewer than
``min_games`` games) are drawn in grey, or faded in their own colour where the colour tells a
category apart (a seat, an outcome), never hidden.

The charts' text is measured by vl-convert when it lays a chart out, and drawn by the browser that
shows the page: both must use the same font, or labels overrun the chart's edge and each other.
``FONT`` names DejaVu Sans first (vl-convert finds it among the system's fonts, and a browser on the
same kind of system draws with it), then Verdana, of nearly the same widths; ``PADDING`` leaves room
for what is left of a difference.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Callable, Mapping

import polars as pl

from zx_events.freetext import cut_cells, escaped, visible

BLUE = "#3867a8"
RED = "#c0504d"
GREY = "#b9b9b9"
LOW_TEXT = "#595959"  # a low-sample row's label: 7:1 on white, as its table row (#888 was 3.5:1, under WCAG AA)
INK = "#2b2b2b"
# the matchup cells, losing to winning: light enough that INK on any of them (and between them) reaches WCAG AA's
# 4.5:1 (4.85 and 5.08 at the ends); the "redblue" scheme's dark ends took white text, and its middle cells
# (a win rate near 32% or 68%) were under 4.5:1 with white and with dark text
MATCHUP_COLOURS = ("#e07a70", "#f7f7f7", "#6d9ed8")
FONT = "'DejaVu Sans', Verdana, sans-serif"  # the same font for vl-convert's measure and the browser's drawing
PADDING = {"left": 12, "right": 24, "top": 8, "bottom": 8}
FADED = 0.35  # the opacity of a low-sample mark drawn in its category's colour
OUTCOMES = ("destroyed", "player_damaged", "survived", "no_damage_overboost", "fizzled", "unresolved")
# Okabe and Ito's colours, told apart by anyone: every pair at least 17 apart (CIE76) as a deuteranope, a protanope
# and anyone else sees it (two blues and three greys were, two of them 8 apart), the successes in two blues
OUTCOME_COLOURS = ("#0072b2", "#56b4e9", "#e69f00", "#cc79a7", "#009e73", "#c8c8c8")
TOP_CARDS = 25
MAX_TURN = 16
# terminal cells of a name a chart shows (a wide character takes two: 20 CJK characters or emoji): longer, or
# wider drawn than AXIS_LABELS px (``label_px``: 40 "W"s are 440 px), ``short`` cuts it at a grapheme cluster
# (vl-convert lays a long label out in quadratic time)
LABEL_MAX = 40
# px: the axis labels' room (a name is cut to it: ``short``); Vega's own cut (labelLimit) is off: ``render_svg``
AXIS_LABELS = 280
# px: the widest a chart's box is (style.css: main 1200 px less its padding, the section's padding and border);
# a chart as wide or narrower is shown whole, a wider one scrolls in its box with its labels out of sight
CHART_BOX = 1118
# px: the plot of a rate with its interval: the box less the axis labels, the padding and the label right of a
# 100% point ("100.0% [100%–100%] n=1234", about 170 px). It was 720: with a deck name cut to 60 characters the
# chart was 1192 px wide, and "100.0% [21%–100%] n=1" read "100.0% [21%–10" at the box's edge
INTERVAL_PLOT = CHART_BOX - AXIS_LABELS - PADDING["left"] - PADDING["right"] - 10 - 190
# the decks of the weekly trend, told apart by colour and by their points' shape (WCAG 1.4.1): Paul Tol's "muted"
# scheme, its pale grey replaced by the page's ink, which no colour vision deficiency confuses (tableau10's green
# and red were 1.7 apart, CIE76, for a deuteranope); 11 shapes against 10 colours: 110 decks before a pair repeats.
# Its teal, cyan and sand lines were 2.8, 1.8 and 1.6:1 on the white page (WCAG 1.4.11 asks 3:1): two blues and a
# brick red in their place, each at least 3.3:1, every pair still at least 17 apart (CIE76) as a deuteranope, a
# protanope and anyone else sees it
DECK_COLOURS = ("#332288", "#cc6677", "#117733", "#882255", "#0083e0", "#999933", "#aa4499", INK, "#005ee0", "#97230c")
DECK_SHAPES = ("circle", "square", "triangle-up", "diamond", "triangle-down", "cross", "triangle-right",
               "M0,-1.1L0.26,-0.36L1.05,-0.34L0.42,0.14L0.65,0.89L0,0.44L-0.65,0.89L-0.42,0.14L-1.05,-0.34L-0.26,-0.36Z",
               "triangle-left", "M-1,-0.5L-0.5,-1L0,-0.5L0.5,-1L1,-0.5L0.5,0L1,0.5L0.5,1L0,0.5L-0.5,1L-1,0.5L-0.5,0Z",
               "M-1,-1H1L0,0L1,1H-1L0,0Z")  # a star, an x, an hourglass
LEGEND_MAX = 60  # cells of a name the weekly trend's legend shows (docs/serve.md: names of up to 60 shown whole)
# px: the room of a legend label, 60 cells (LEGEND_MAX) of a name's usual letters (DejaVu Sans at 11 px: 7 px a
# character); the legend lays its labels out in as many columns as fit the chart's box
LEGEND_LABELS = 7 * LEGEND_MAX
LABEL_SIZE = 11  # px: the font size of the charts' axis and legend labels and of their text marks
# DejaVu Sans's advance widths (its hmtx table, 2048 units an em) of U+0020-U+007E and U+00A0-U+00FF: a name's
# label is cut to the pixels it is given by them (``label_px``). Cut to 40 terminal cells alone, taken for about
# 280 px, 40 "W"s were 440 px: Win rate by deck was 1230 px wide against its 1118 px box, its labels cut at the edge
_EM = 2048
_ASCII_WIDTHS = (
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303, 1303, 1303, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087, 2048, 1401, 1405, 1430, 1577, 1294, 1178,
    1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251,
    1403, 799, 690, 799, 1716, 1024, 1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995,
    1298, 1253, 1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
)
_LATIN1_WIDTHS = (
    651, 821, 1303, 1303, 1303, 1303, 690, 1024, 1024, 2048, 965, 1253, 1716, 739, 2048, 1024, 1024, 1716, 821, 821,
    1024, 1303, 1303, 651, 1024, 821, 965, 1253, 1985, 1985, 1985, 1087, 1401, 1401, 1401, 1401, 1401, 1401, 1995,
    1430, 1294, 1294, 1294, 1294, 604, 604, 604, 604, 1587, 1532, 1612, 1612, 1612, 1612, 1612, 1716, 1612, 1499,
    1499, 1499, 1499, 1251, 1239, 1290, 1255, 1255, 1255, 1255, 1255, 1255, 2011, 1126, 1260, 1260, 1260, 1260, 569,
    569, 569, 569, 1253, 1298, 1253, 1253, 1253, 1253, 1253, 1716, 1253, 1298, 1298, 1298, 1298, 1212, 1300, 1212,
)
WIDE_EM = 1.25  # a wide character (CJK, an emoji), drawn in whichever font the system falls back on
OTHER_EM = 1.0  # any other character (Greek, Cyrillic, a symbol): as wide as DejaVu Sans's widest letters, about


@cache
def sql(name: str) -> str:
    return resources.files("zx_web").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


# ---------------------------------------------------------------------- data
@dataclass
class Section:
    key: str
    title: str
    note: str
    svg: str
    rows: list[dict[str, Any]]
    columns: list[str]
    empty: str | None = None
    heads: Mapping[str, str] | None = None  # a column's header where it is not ``HEADS``' (an attack outcome's)
    # a column's links, one a row (None: that row's cell is not a link): the match list filtered by the row's name
    # (``MatchLinks``); the live dashboard shows them, zx report's file (which stands alone) does not
    links: dict[str, list[str | None]] = field(default_factory=dict)
    link_titles: dict[str, list[str | None]] = field(default_factory=dict)  # what each link lists, in words

    @property
    def table(self) -> "Table":
        """The rows as the table under the chart shows them (``table``)."""
        return table(self.rows, self.columns, self.heads, self.links, self.link_titles)


@dataclass
class Dashboard:
    filters: dict[str, Any]
    min_games: int
    totals: dict[str, Any]
    sections: list[Section] = field(default_factory=list)
    game: str = ""  # the game shown (games are never mixed)
    game_name: str = ""
    nothing: str | None = None  # no match of the game shown in the analytics file: what to run (no sections)
    share_of: str = ""  # what the deck share is of ("of all 5,600 seats", "of Ren's 212 seats")


NO_TOTALS = {"matches": 0, "decks": 0, "players": 0, "events": 0}


def no_matches_yet(game_name: str, advised: Any = None) -> str:
    """What the dashboard says when its analytics file holds no match of the game shown (an empty store);
    ``advised``: the commands with the --store typed (``Backend.advised``)."""
    text = f"The store has no {game_name} matches yet: import logs with `zx import LOGS`, then run `zx analytics update`."
    return advised(text) if advised is not None else text


def _frame(source: Any, name: str, params: dict[str, Any]) -> pl.DataFrame:
    return source.query(("dashboard", name, tuple(sorted(params.items()))),
                        lambda con: con.sql(sql(name), params=params).pl())


def choices(source: Any, game: str) -> dict[str, list[Any]]:
    """Events and decks of ``game`` in the analytics file, and the games it holds, for the filter form."""
    df = source.query(("dashboard", "choices", game), lambda con: con.sql(sql("choices"), params={"game": game}).pl())
    out: dict[str, list[str]] = {"event": [], "deck": []}
    for row in df.iter_rows(named=True):
        out.setdefault(row["kind"], []).append(row["value"])
    if not source.judge:  # the names as the list shows them (Backend.listed): a masked one stands for its name
        out = {k: sorted({source.masked_name(v) for v in values}) for k, values in out.items()}
    from zx_events import games

    out["game"] = games.choices(_frame(source, "games", {})["game"].to_list())
    return out


def shown_game(source: Any, asked: str | None = None) -> str:
    """The game a dashboard shows: the one asked for, else Z/X's when the analytics file holds it or
    nothing, else the one game (or the first) it holds."""
    from zx_events.games import DEFAULT

    if asked:
        return asked
    held = _frame(source, "games", {})["game"].to_list()
    return DEFAULT if DEFAULT in held or not held else held[0]


def build(source: Any, filters: dict[str, Any], min_games: int) -> Dashboard:
    """Every section's frame and chart. ``source`` is a ``zx_web.backend.Backend`` (``stats`` and ``query``);
    ``filters`` are those of ``zx_analytics.stats.Filters``."""
    from zx_analytics.stats import Filters, table_owners
    from zx_analytics.wilson import with_rate

    params = {k: filters.get(k) for k in Filters.names()}
    held = _frame(source, "games", {})["game"].to_list()
    game = shown_game(source, params.get("game"))
    if len(held) > 1:  # games are never mixed: one game at a time (?game=KEY)
        params["game"] = game
    from zx_events import games

    shown = {k: v for k, v in params.items() if v and k != "game"}
    name = games.choices([game])[0]["name"]
    if game not in held and game in games.keys():  # none imported (an empty store): no figure, but what to run
        return Dashboard(shown, min_games, dict(NO_TOTALS), game=game, game_name=name,
                         nothing=no_matches_yet(name, getattr(source, "advised", None)))
    raw = source.unmask(params)  # (the statistics unmask their own: source.stats)
    totals = _frame(source, "totals", raw).to_dicts()[0]
    d = Dashboard(shown, min_games, totals, game=game, game_name=name)

    def stats(method: str, table: str | None = None, **kw: Any) -> pl.DataFrame | None:
        if table is not None and game not in table_owners(table):
            return None  # a statistic of another game's own table (attacks, life by turn): left out
        return source.stats(method, {**params, **kw}, min_games)

    share = _frame(source, "deck_share", raw)
    share = share if source.judge else source.mask_names(share)
    share = with_rate(share, "share", "seats", "all_seats").with_columns(
        (pl.col("seats") < min_games).alias("low_sample"))
    from zx_events.freetext import printable

    # the names as they are shown in the labels: masked outside the judge's view (their bidirectional controls
    # dropped), every control character as its escape (``\u202e``) in the judge's
    player, opponent = (printable(v if source.judge else source.masked_name(v)) if v else None
                        for v in (shown.get("player"), shown.get("opponent")))
    # with a player filter the share is of that player's seats (deck_share.sql), its trend too (zx stats meta):
    # a coach filtering on one opponent reads that player's decks, where they were a few percent of the field; with
    # an opponent, of the seats facing them
    seats = int(share["all_seats"][0]) if share.height else 0
    facing = f" facing {visible(opponent)}" if opponent else ""
    d.share_of = (f"of {visible(player)}'s {seats:,} seat{'' if seats == 1 else 's'}{facing}" if player else
                  f"of the {seats:,} seat{'' if seats == 1 else 's'}{facing}" if opponent else
                  f"of all {seats:,} seat{'' if seats == 1 else 's'}")
    whose = (f"{visible(player)}'s seats{facing}" if player else f"seats{facing}" if opponent else None)
    of_whose = (whose if player else f"the {whose}") if whose else None  # ("of Aki's seats", "of the seats facing O")
    head = whose[:1].upper() + whose[1:] if whose else None  # (a column's header)
    one_a_match = (f"one a match {visible(player)} played{facing.replace(' facing', ' against')}" if player else
                   f"one a match {visible(opponent)} played" if opponent else "two a match")
    d.sections.append(_section("share", "Deck share",
                               (f"Share {d.share_of} ({one_a_match}, under the date, event and game filters) played "
                                "with each deck, with its Wilson 95% interval; n = seats. A deck filter picks the rows, "
                                "never the field." if whose else
                                f"Share {d.share_of} (two a match) played with each deck, with its Wilson 95% "
                                "interval; n = seats. A deck filter picks the rows, never the field: the share stays "
                                "that of all seats; a player filter makes it that player's seats."),
                               share_chart(share, d.share_of), share,
                               ["deck", "seats", "matches", "all_seats", "share", "share_low", "share_high",
                                "low_sample"], heads={"all_seats": head} if whose else None))
    weekly = stats("meta", by="week", group="deck")  # (with a player, of that player's seats: FIELD_FILTERS)
    d.sections.append(_section("trend", "Deck share by week",
                               (f"Each deck's share of {of_whose} in an ISO week (the weeks with such seats), "
                                if whose else
                                "Each deck's share of the seats played in an ISO week (zx stats meta --by week), ") +
                               "on a scale of time: a deck is at 0% in a week with matches it was not played in "
                               "(no row in the table), and a line joins consecutive weeks only.",
                               trend_chart(weekly, f"{of_whose} in the week" if whose else "the week's seats"), weekly,
                               ["week", "deck", "seats", "field", "share", "share_low", "share_high", "games",
                                "win_rate", "low_sample"],
                               heads={"field": f"{head} in the week"} if whose else None))
    wr = stats("winrates", by="deck")
    d.sections.append(_section("winrates", "Win rate by deck",
                               "Wins / finished games (draws count as games without a win; mirror matches left out), "
                               "with the Wilson 95% interval as a bar. The dashed line is 50%.",
                               interval_chart(wr, "deck", "win_rate", "games"), wr,
                               ["deck", "games", "wins", "losses", "draws", "win_rate", "win_rate_low", "win_rate_high",
                                "low_sample"]))
    mu = stats("matchups")
    d.sections.append(_section("matchups", "Matchups",
                               "Win rate of the row's deck against the column's deck, with its number of games; "
                               "faded cells rest on fewer than the minimum games.",
                               matchup_chart(mu), mu,
                               ["deck", "opponent", "games", "wins", "win_rate", "win_rate_low", "win_rate_high",
                                "low_sample"]))
    first = stats("winrates", by="first")
    d.sections.append(_section("first", "First-player advantage",
                               "Win rate of the player who went first and of the one who went second, with Wilson "
                               "95% intervals.",
                               interval_chart(first, "seat", "win_rate", "games"), first,
                               ["seat", "games", "wins", "losses", "draws", "win_rate", "win_rate_low", "win_rate_high",
                                "low_sample"]))
    att = stats("attacks", "attacks", by="square")
    if att is not None:
        d.sections.append(_section("attacks", "Attack outcomes by attacker Square",
                               "What became of each attack declared from a Square; the label is the success rate "
                               "(the target Z/X destroyed or the player damaged) with its Wilson 95% interval; "
                               "n = attacks.",
                               attack_chart(att, games.get(game).attack_outcomes), att,
                               ["square", "attacks", *OUTCOMES, "success_rate", "success_rate_low",
                                "success_rate_high", "low_sample"],
                               heads={o: w[:1].upper() + w[1:] for o, w in outcome_words(games.get(game).attack_outcomes).items()}))
    life = stats("life", "life", by="turn")
    if life is not None:
        d.sections.append(_section("life", "Life damage by turn",
                               f"Life damage taken per game that reached the turn, by seat (turns 1-"
                               f"{life_turns(life) or MAX_TURN}; 0 where none was taken).",
                               life_chart(life), life,
                               ["turn", "seat", "games", "damage", "damage_per_game", "ignition_rate", "low_sample"]))
    cards = stats("cards")
    if "gih_games" in cards.columns:  # --deck-lists or --judge: the deck lists and hands are published
        note = (f"The {TOP_CARDS} cards seen most in hand: GIH WR, the win rate of the games where the card was in "
                "hand (opening hand kept, or drawn), with Wilson 95% intervals; the table adds IWD (GIH WR minus "
                "the win rate when never seen), opening-hand, drawn and played win rates, as 17lands defines them.")
        columns = ["card", "name", "gih_games", "gih_wr", "gih_wr_low", "gih_wr_high", "iwd", "oh_games", "oh_wr",
                   "gd_games", "gd_wr", "gns_games", "gns_wr", "played_games", "played_wr", "low_sample"]
    else:  # what every spectator saw (zx_web.backend.seen_cards_only): the cards played, their played figures
        note = (f"The {TOP_CARDS} cards played (or cast) most, as every seat saw them: the win rate of the games "
                "where the card was played, with Wilson 95% intervals. A card in a hand is hidden from all but its "
                "owner: the hand and deck-list figures (GIH, OH, GD, GNS, IWD) are shown only where the hands and "
                "deck lists are published (zx serve --deck-lists, zx report --deck-lists).")
        columns = ["card", "name", "played_games", "played_wins", "played_wr", "played_wr_low", "played_wr_high",
                   "low_sample"]
    d.sections.append(_section("cards", "Per-card win rates", note, card_chart(cards), cards, columns,
                               None if "gih_games" in cards.columns or not totals.get("matches") else
                               "no card was played in these matches (cards kept in hand are not shown)"))
    link_rows(d, MatchLinks(source, game, shown))
    return d


# ---------------------------------------------------------------------- links to the match list
NO_DECK_NAME = "(no name)"  # the row of the sides without a deck name (zx_analytics.stats.NO_NAME): no list filter


UNCARRIED = ("seat", "colours", "archetype", "opp_archetype")  # the dashboard's filters the match list has not: no
# row links under them


class MatchLinks:
    """Links from the dashboard's rows to the match list (``/matches``, zx_events.matchlist.MatchFilters) filtered
    by the row's deck, with the dashboard's date, event, player, opponent, opponent's deck and game filters carried
    over; under a filter the list has not (``UNCARRIED``: seat, colours, archetypes) no row links (it would list more
    matches than the row counts).

    A name masked for this server's seat (a card's code or name in it: ``Backend.masked_name``, with the
    ``--catalog`` files) is never put in a URL: a row of such a deck gets no link, and no row gets one when a
    carried filter (an event, a player typed as the dashboard shows it) is masked. A name whose mask drops only
    its bidirectional controls hides nothing and is linked in its shown form (the list matches it, as it shows
    it)."""

    def __init__(self, source: Any, game: str, filters: Mapping[str, Any]) -> None:
        self.source = source
        self.plain = plain_names(source)
        self.base: dict[str, str] | None = {"game": game}
        if any(filters.get(k) for k in UNCARRIED):  # (the list has no such filter: a link would list more matches
            self.base = None  # than its row counts; seat=first linked 18 matches from a row of 10, QA round 37)
        for key, kind in (("event", "event"), ("player", "player"), ("opponent", "player"), ("opp_deck", "deck")):
            if self.base is None:
                break
            value = filters.get(key)
            if value:
                shown = self.shown(kind, value)
                if shown is None:
                    self.base = None
                    break
                self.base[key] = shown
        if self.base is not None:
            self.base.update({k: str(filters[k]) for k in ("since", "until") if filters.get(k)})
        base = self.base or {}
        self.carried = "".join(f" {words} {visible(base[key])}" for key, words in (
            ("player", "played by"), ("opponent", "facing"), ("opp_deck", "against"), ("event", "at"),
            ("since", "from"), ("until", "to")) if base.get(key))  # (a link's title: the filters it carries)

    def shown(self, kind: str, value: Any) -> str | None:
        """``value`` as a link may carry it (the form the match list shows), or None: it is masked, or none."""
        if not isinstance(value, str) or not value or value == NO_DECK_NAME and kind == "deck":
            return None
        if self.plain is None:  # the judge's server: every name as stored
            return value
        from zx_events.games.rowkit import nfc

        return value if self.plain[kind].get(nfc(value)) else None

    def deck(self, deck: Any, week: Any = None, opponent: Any = None) -> str | None:
        """The match list of ``deck`` under the dashboard's filters (``week``: an ISO week, ``2026-W07``, within
        them; ``opponent``: against that deck, a matchup's cell), or None (``shown``)."""
        from urllib.parse import urlencode

        shown = self.shown("deck", deck)
        against = self.shown("deck", opponent) if opponent is not None else None
        if self.base is None or shown is None or opponent is not None and against is None:
            return None
        params = {**self.base, "deck": shown, **({"opp_deck": against} if against is not None else {}), "exact": "1"}
        # (exact: the names as the row counts them, each spelling apart; the list folds case and width by default,
        # and a row counting Mio's 22 games linked 52 matches of Mio, MIO and Ｍｉｏ, QA round 37)
        if week is not None:
            span = week_days(str(week))
            if span is None:
                return None
            since, until = max(span[0], params.get("since", span[0])), min(span[1], params.get("until", span[1]))
            if since > until:
                return None
            params.update(since=since, until=until)
        order = ("game", "player", "deck", "opponent", "opp_deck", "event", "since", "until", "exact")
        return linkable("/matches?" + urlencode([(k, params[k]) for k in order if params.get(k)]))


def linkable(url: str) -> str | None:
    """``url``, or None when it is longer than a filter form asks for (``zx_events.matchlist.OFFERED_MAX``: a deck named
    with nearly 1,000,000 characters, 12 MB percent-encoded, a URL the browser and the server refuse; the page held
    it once a section)."""
    from zx_events.matchlist import OFFERED_MAX

    return url if len(url) <= OFFERED_MAX else None


def week_days(week: str) -> tuple[str, str] | None:
    """An ISO week's first and last days (``2026-W07`` -> ``2026-02-09``, ``2026-02-15``), or None."""
    from datetime import date, timedelta

    m = re.fullmatch(r"(\d{4})-W(\d{1,2})", week)
    if m is None:
        return None
    try:
        monday = date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
    except ValueError:
        return None
    return monday.isoformat(), (monday + timedelta(days=6)).isoformat()


def plain_names(source: Any) -> dict[str, dict[str, bool]] | None:
    """Per kind (event, deck, player): each name as the match list shows it (in NFC) -> whether it hides nothing
    (every stored name it stands for is itself but for bidirectional controls); None on the judge's server (no
    mask). A name shown masked (``Finals [card]``) maps to False, and a name no stored match has is absent."""
    if getattr(source, "judge", True) or not hasattr(source, "summaries"):
        return None
    from zx_events.freetext import BIDI_CONTROLS
    from zx_events.games.rowkit import nfc

    rows = source.summaries()
    kept = _PLAIN.get(source)
    if kept is not None and kept[0] is rows:  # (the same summaries: Backend.summaries reads them again only when
        return kept[1]  # the store has changed)
    out: dict[str, dict[str, bool]] = {"event": {}, "deck": {}, "player": {}}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        for kind, keys in (("event", ("event",)), ("deck", ("p1_deck", "p2_deck")), ("player", ("p1", "p2"))):
            for k in keys:
                raw = row.get(k)
                if not isinstance(raw, str) or (kind, raw) in seen:
                    continue
                seen.add((kind, raw))
                shown = source.masked_name(raw)
                key = nfc(shown)
                out[kind][key] = out[kind].get(key, True) and shown == BIDI_CONTROLS.sub("", raw)
    _PLAIN[source] = (rows, out)
    return out


_PLAIN: "weakref.WeakKeyDictionary[Any, tuple[list, dict[str, dict[str, bool]]]]" = weakref.WeakKeyDictionary()


def link_rows(d: Dashboard, links: MatchLinks) -> None:
    """Each deck row of ``d``'s sections linked to its matches (``MatchLinks``): the deck share, the win rate by
    deck, the matchups (the row's deck against the row's opponent deck: ``opp_deck``) and the weekly trend (that
    week's matches)."""
    for s in d.sections:
        if s.key in ("share", "winrates") and "deck" in s.columns:
            s.links = {"deck": [links.deck(r.get("deck")) for r in s.rows]}
            titles = [f"the matches of {visible(str(r.get('deck')))}" for r in s.rows]
        elif s.key == "matchups" and "deck" in s.columns:
            s.links = {"deck": [links.deck(r.get("deck"), opponent=r.get("opponent")) for r in s.rows]}
            titles = [f"the matches of {visible(str(r.get('deck')))} against {visible(str(r.get('opponent')))}"
                      for r in s.rows]
        elif s.key == "trend" and "deck" in s.columns:
            s.links = {"deck": [links.deck(r.get("deck"), r.get("week")) for r in s.rows]}
            titles = [f"the matches of {visible(str(r.get('deck')))} in {r.get('week')}" for r in s.rows]
        else:
            continue
        # a link says where it goes (WCAG 2.4.4: a matchup's "the matches of Black Reapers" listed those against
        # Blue Control alone, QA round 36), with the filters it carries
        s.link_titles = {"deck": [f"{t}{links.carried}" for t in titles]}


def _section(key: str, title: str, note: str, svg: str, df: pl.DataFrame, columns: list[str],
             none: str | None = None, heads: Mapping[str, str] | None = None) -> Section:
    """A section; ``none``: what an empty frame says where there are matches (else: no matches); ``heads``: the
    headers of columns ``HEADS`` does not name."""
    cols = [c for c in columns if c in df.columns]
    empty = None if df.height else none or "no matches for these filters"
    return Section(key, title, note, named(svg, title) if svg and df.height else "", df.select(cols).to_dicts(),
                   cols, empty, heads)


# ---------------------------------------------------------------------- charts
def render_svg(chart: Any, vega: Callable[[dict], dict] | None = None) -> str:
    """A chart's SVG (vl-convert's), with no label cut by Vega: every ``labelLimit`` is 0 (none), the names
    being cut already (``short``, by grapheme cluster). Vega cuts a label too long for its ``labelLimit`` by
    UTF-16 code units, and measures the pieces it tries: a deck named with 25 emoji (its legend's limit is
    160 px) left half a surrogate pair, which vl-convert cannot read ("Vega-Lite to SVG conversion failed"):
    ``zx report`` failed and ``zx serve``'s /dashboard answered 500, for every filter. Should a chart fail all
    the same, the page says so in its place (logged) and shows the others. ``vega``: a change to its Vega
    specification (what Vega-Lite cannot say)."""
    import vl_convert as vlc

    spec = _xml_safe(chart.to_dict(validate=False))
    config = spec.setdefault("config", {})
    for part in ("axis", "legend"):  # (Vega's defaults: 180 px an axis label, 160 px a legend's)
        config.setdefault(part, {})["labelLimit"] = 0
    _uncut(spec)
    try:
        return vlc.vegalite_to_svg(spec) if vega is None else vlc.vega_to_svg(vega(vlc.vegalite_to_vega(spec)))
    except Exception as e:  # (one chart's failure is not the page's)
        import logging

        logging.getLogger("zx.dashboard").error("a dashboard chart could not be drawn: %s: %s", type(e).__name__,
                                                str(e)[:500])
        return ('<p class="error chart-failed">This chart could not be drawn (the server\'s log says why); '
                "the table below has its figures.</p>")


def _uncut(spec: Any) -> None:
    """Every ``labelLimit`` in ``spec`` (an axis's, a legend's) set to 0, no limit, in place."""
    if isinstance(spec, dict):
        if "labelLimit" in spec:
            spec["labelLimit"] = 0
        for value in spec.values():
            _uncut(value)
    elif isinstance(spec, list):
        for value in spec:
            _uncut(value)


def _coloured_shapes(vega: dict) -> dict:
    """The legend of the points' shapes in their colours too: Vega-Lite draws the colour and the shape of a
    layered chart's points as two legends (or, the colour's left out, black shapes), where Vega draws one."""
    for legend in vega.get("legends", []):
        if legend.get("shape") == "shape":
            legend["fill"] = "color"
            legend.get("encode", {}).get("symbols", {}).get("update", {}).pop("fill", None)
    return vega


_SVG = re.compile(r"<svg\b[^>]*>")
_CLASS = re.compile(r'\sclass="([^"]*)"')


def named(svg: str, title: str) -> str:
    """A chart's SVG (vl-convert's) as a page shows it: one image named by its chart's title, and one
    ``class`` attribute. ``role="img"`` hides the text marks inside from assistive technology, so without a
    name a screen reader met eight images named ''; and vl-convert's root already has ``class="marks"``,
    so a second ``class`` was invalid markup (the browser ignored it)."""
    from html import escape

    root = _SVG.search(svg)
    if root is None:
        return svg
    tag = root.group(0)
    classes = ["chart", *(c for found in _CLASS.findall(tag) for c in found.split())]
    tag = _CLASS.sub("", tag).replace("<svg", f'<svg role="img" aria-label="{escape(title)}" '
                                              f'class="{" ".join(classes)}"', 1)
    return svg[:root.start()] + tag + svg[root.end():]


# what XML 1.0 does not allow in text: a deck named "Red\x01Dragons" made vl-convert panic while writing
# the chart's SVG, which aborted the whole process (zx serve gone at one GET /dashboard, zx report exit 134)
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(value: Any) -> Any:
    """``value`` (a chart's spec) with every character XML cannot hold written as its escape (``\\x01``), and
    every invisible format character (``freetext.visible``: two decks differing by a zero-width space alone)."""
    if isinstance(value, str):
        return escaped(_NOT_XML, visible(value))
    if isinstance(value, dict):
        return {_xml_safe(k): _xml_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_xml_safe(v) for v in value]
    return value


def short(text: str, limit: int = LABEL_MAX, px: float = AXIS_LABELS) -> str:
    """``text`` cut to ``limit`` terminal cells (a wide character takes two) and to ``px`` pixels drawn
    (``label_px``), the last one an ellipsis where it was cut, at a grapheme cluster (``freetext.cut_cells``:
    never half a flag, an emoji family cut at a joiner, half a surrogate pair). Cells alone let 40 "W"s through,
    440 px against the 280 px an axis's names are given. Reads no further into ``text`` than ``limit``."""
    cut = cut_cells(text, limit, "…")
    if label_px(cut) <= px:
        return cut
    from wcwidth import iter_graphemes

    room, used, end = px - label_px("…"), 0.0, 0
    for cluster in iter_graphemes(cut):
        used += _cluster_px(cluster)
        if used > room:
            break
        end += len(cluster)
    return cut[:end] + "…"


def label_px(text: str) -> float:
    """About how wide ``text`` is drawn at the charts' ``LABEL_SIZE`` in their ``FONT``: DejaVu Sans's own widths
    for ASCII and Latin-1 (what vl-convert measures and a browser on the same kind of system draws), ``WIDE_EM``
    for a wide character (CJK, an emoji), ``OTHER_EM`` for any other (an estimate on the wide side)."""
    from wcwidth import iter_graphemes

    return sum(_cluster_px(cluster) for cluster in iter_graphemes(text))


def _cluster_px(cluster: str) -> float:
    """A grapheme cluster's width in px (``label_px``): its first character's (combining marks take none)."""
    from wcwidth import wcswidth

    cells = wcswidth(cluster)
    if cells < 0:  # a control character: drawn as its escape (``_xml_safe``: "\x01")
        return label_px(cluster.encode("unicode_escape").decode("ascii"))
    c = ord(cluster[0])
    if 0x20 <= c < 0x7F:
        em = _ASCII_WIDTHS[c - 0x20] / _EM
    elif 0xA0 <= c <= 0xFF:
        em = _LATIN1_WIDTHS[c - 0xA0] / _EM
    else:
        em = 0.0 if cells == 0 else OTHER_EM
    if cells >= 2:  # (a keycap or a flag begins with a narrow character)
        em = max(em, WIDE_EM)
    return em * LABEL_SIZE


def _labels(df: pl.DataFrame, *cols: str, limit: int = LABEL_MAX, px: float = AXIS_LABELS) -> pl.DataFrame:
    """``df`` with the names in ``cols`` (decks, players, cards) as a chart shows them: cut to
    ``limit`` terminal cells and ``px`` pixels (``short``; an axis's ``LABEL_MAX`` and ``AXIS_LABELS``, the trend
    legend's ``LEGEND_MAX`` and ``LEGEND_LABELS``), two names cut to the same text told apart by a number. A log's
    header line may hold 1,000,000 characters: a chart with one 30,000-character deck name took vl-convert
    a minute to lay out (its label truncation measures the text again and again), holding the GIL, so
    ``zx serve`` answered nothing and ``zx report`` took 74 s instead of 6. The tables keep the full names."""
    long: set[str] = set()
    kept: set[str] = set()
    for c in cols:
        for v in df[c].unique().to_list():
            if isinstance(v, str):
                (long if short(v, limit, px) != v else kept).add(v)
    if not long:
        return df
    mapping = {}
    for v in sorted(long):
        label, k = short(v, limit, px), 1
        while label in kept:
            k += 1
            label = short(v, limit - len(f" ({k})"), px - label_px(f" ({k})")) + f" ({k})"
        kept.add(label)
        mapping[v] = label
    return df.with_columns(pl.col(c).replace(mapping) for c in cols)


def _alt() -> Any:
    """altair, without its checks of every object built against the Vega-Lite schema (``disable_debug_mode``;
    ``render_svg`` asks no check of the whole spec either): the charts are built by this module's fixed code, and
    jsonschema took 1.2 s of a 4.2 s ``zx report`` (40 matches), a fifth to a quarter of every dashboard. A chart
    that is wrong all the same fails in vl-convert, which ``render_svg`` reports in its place."""
    import altair as alt
    from altair.utils.schemapi import disable_debug_mode

    disable_debug_mode()
    return alt


def _config(chart: Any, title: str | None = None) -> Any:
    return (chart.configure(font=FONT, background="white", padding=PADDING)
            .configure_view(stroke=None)
            .configure_axis(labelLimit=AXIS_LABELS, labelFontSize=11, titleFontSize=11, labelColor=INK, titleColor=INK, grid=True,
                            gridColor="#eee", domainColor="#999", tickColor="#999")
            .configure_legend(labelFontSize=11, titleFontSize=11, orient="bottom")
            .properties(title=title or ""))


def pct(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v * 100:.{digits}f}%"


def _colour(alt: Any) -> Any:
    return alt.condition("datum.low_sample", alt.value(GREY), alt.value(BLUE))


def rate_label(rate: str, low: str, high: str, n: str) -> pl.Expr:
    """A chart's label of a rate, as every rate chart writes it: ``42.9% [21%–67%] n=6`` (the rate, its Wilson 95%
    interval, its count), as the column ``label``."""
    return pl.format("{} [{}–{}] n={}", pl.col(rate).map_elements(pct, return_dtype=pl.String),
                     pl.col(low).map_elements(lambda v: pct(v, 0), return_dtype=pl.String),
                     pl.col(high).map_elements(lambda v: pct(v, 0), return_dtype=pl.String),
                     pl.col(n)).alias("label")


def share_chart(df: pl.DataFrame, of: str = "of seats") -> str:
    """Each deck's share as a bar, its Wilson 95% interval as an error bar across the bar's end, and a label
    right of the interval: share [low-high] n, as the win rate charts write it. ``of``: what the share is of, in the
    axis's title ("of all 5,600 seats", "of Ren's 212 seats": ``Dashboard.share_of``)."""
    if not df.height:
        return ""
    alt = _alt()
    data = _labels(df, "deck").with_columns(rate_label("share", "share_low", "share_high", "seats"))
    # the order named: the error bar's layer (an aggregate) has no field to sort by, and the layers' sorts are dropped
    order = list(dict.fromkeys(data.sort(["share", "deck"], descending=[True, False])["deck"].to_list()))
    y = alt.Y("deck:N", sort=order, title=None)
    ticks = share_ticks(_top(df, "share_high", 1.1))
    x_scale = alt.Scale(domain=[0, ticks[-1]], nice=False)
    # what a screen reader says of a bar: its deck and its label as drawn ("Black Reapers: 33.3% [20%-50%] n=12"; it
    # heard "share: 33.333333%", QA round 36); the text, which the bar's words carry, is not read
    data = data.with_columns(pl.format("{}: {} {}", "deck", "label", pl.lit(short(of, LEGEND_MAX, LEGEND_LABELS)))
                             .alias("aria"))
    base = alt.Chart(data).encode(y=y)
    bars = base.mark_bar(height={"band": 0.7}, opacity=0.55).encode(
        x=alt.X("share:Q", axis=alt.Axis(format="%", values=ticks, labelFlush=False),
                title=f"share {short(of, LEGEND_MAX, LEGEND_LABELS)} (95% interval)", scale=x_scale),
        color=_colour(alt), description="aria:N")
    interval = base.mark_errorbar(ticks=alt.TickConfig(size=12, thickness=1.5), thickness=1.5, color=INK).encode(
        x=alt.X("share_low:Q", scale=x_scale, title=None), x2="share_high:Q")
    text = base.mark_text(align="left", dx=6, fontSize=11, color=INK, aria=False).encode(x="share_high:Q",
                                                                                         text="label:N")
    return render_svg(_config((bars + interval + text).properties(width=INTERVAL_PLOT, height=26 * df.height)))


def share_ticks(top: float) -> list[float]:
    """The deck share axis's ticks, 0 to the first round value at or past ``top`` (every 2%, 5% or 10%: at least
    37 px apart on its plot), the last one the domain's end. The domain ended at ``top`` itself (74%), Vega put its
    80% label flush with the end, 1 px from the 75% one ("75%80%" in a browser)."""
    step = 2 if top <= 0.2 else 5 if top <= 0.8 else 10
    end = min(100, -(-round(top * 100, 6) // step) * step)
    return [k / 100 for k in range(0, int(end) + 1, step)]


def _top(df: pl.DataFrame, col: str, room: float = 1.35) -> float:
    top = df[col].max() or 0.0
    return min(1.0, max(0.1, float(top) * room))


def week_number(week: str) -> int:
    """An ISO week ("2026-W19") as a number of weeks (its Monday's since 0001-01-01): consecutive weeks differ
    by 1, across a year's end too."""
    from datetime import date

    year, _, w = week.partition("-W")
    return (date.fromisocalendar(int(year), int(w), 1).toordinal() - 1) // 7


def week_name(number: int) -> str:
    from datetime import date

    year, week, _ = date.fromordinal(number * 7 + 1).isocalendar()
    return f"{year}-W{week:02d}"


def week_ticks(first: int, last: int, most: int = 12) -> list[int]:
    """At most ``most`` weeks from ``first`` to ``last`` to label, evenly apart (1, 2, 4, 8, 13, 26, 52 or more)."""
    step = next((s for s in (1, 2, 4, 8, 13, 26, 52) if (last - first) // s < most), -(-(last - first + 1) // most))
    return list(range(first, last + 1, step))


def trend_points(data: pl.DataFrame) -> pl.DataFrame:
    """Every deck in every week that had a match (``week_no``), at 0% where it was not played (the stats' rows
    are the decks played), and ``run``: the stretch of consecutive such weeks, a line's extent."""
    weeks = data.select(pl.col("week").map_elements(week_number, return_dtype=pl.Int64).alias("week_no"),
                        "week").unique().sort("week_no")
    runs = weeks.with_columns((pl.col("week_no").diff().fill_null(1) != 1).cum_sum().alias("run"))
    grid = runs.join(data.select("deck").unique(), how="cross")
    return grid.join(data.select(["week", "deck", "share"]), on=["week", "deck"], how="left").with_columns(
        pl.col("share").is_not_null().alias("played"), pl.col("share").fill_null(0.0))


def trend_chart(df: pl.DataFrame, of: str = "the week's seats") -> str:
    """Each deck's share by ISO week, on an axis of time (a week as wide as any other: on a category axis 20
    weeks without a match were as wide as one): a deck is at 0% in a week it was not played (its line ran
    through such weeks at the shares around them), and a line joins consecutive weeks only, none across weeks
    without a match (nothing was measured there); a point marks each week a deck was played."""
    if not df.height:
        return ""
    alt = _alt()
    data = _labels(df.filter(pl.col("week") != "unknown"), "deck", limit=LEGEND_MAX, px=LEGEND_LABELS)
    if not data.height:
        return ""
    decks = data["deck"].unique()
    data = trend_points(data)
    # what a screen reader says of a point: the week as the axis shows it, the share to a tenth of a percent (it
    # heard "ISO week: 105659; share of the week's seats: 16.666667%", QA round 36)
    data = data.with_columns(pl.format("{}: {}, {} of {}", "week", "deck",
                                       (pl.col("share") * 100).round(1).cast(pl.String) + "%", pl.lit(of))
                             .alias("aria"))  # (``of``: whose seats, as the table's header says them)
    first, last = data["week_no"].min(), data["week_no"].max()
    ticks = week_ticks(first, last)
    named = " : ".join(f"datum.value == {t} ? '{week_name(t)}'" for t in ticks) + " : ''"
    # the legend under the chart, in as many columns of its longest name as fit the box (a row of ten names
    # ran 400 px past it, and a name was cut after 25 characters)
    widest = min(LEGEND_LABELS, max(28, *map(label_px, decks.to_list()))) + 16 + 5 + 10  # symbol, gaps
    columns = max(1, min(decks.len(), (CHART_BOX - PADDING["left"] - PADDING["right"]) // widest))
    legend = alt.Legend(title="deck", columns=columns, labelLimit=LEGEND_LABELS, symbolSize=70)
    colour = alt.Color("deck:N", scale=alt.Scale(range=list(DECK_COLOURS)), legend=None)
    x = alt.X("week_no:Q", title="ISO week", scale=alt.Scale(domain=[first - 0.5, last + 0.5], nice=False, zero=False),
              axis=alt.Axis(values=ticks, labelExpr=named, labelAngle=-45, labelFlush=False, grid=True,
                            aria=False))  # (a screen reader heard "values from 105,658.5": each point names its week)
    base = alt.Chart(data).encode(x=x, y=alt.Y("share:Q", axis=alt.Axis(format="%"), title=f"share of {of}"),
                                  color=colour)
    lines = base.mark_line(strokeWidth=2, aria=False).encode(detail="run:N")  # (the points say each week's share)
    points = base.transform_filter("datum.played").mark_point(filled=True, size=60, opacity=1).encode(
        shape=alt.Shape("deck:N", scale=alt.Scale(range=list(DECK_SHAPES)), legend=legend),
        description="aria:N")
    return render_svg(_config((lines + points).properties(width=760, height=280)), _coloured_shapes)


def interval_chart(df: pl.DataFrame, key: str, rate: str, n: str, axis_title: str = "win rate (95% interval)") -> str:
    """A rate per row as a point, its Wilson 95% interval as a bar, and a label: rate [low-high] n."""
    if not df.height:
        return ""
    alt = _alt()
    data = _labels(df, key).with_columns(rate_label(rate, f"{rate}_low", f"{rate}_high", n))
    y = alt.Y(f"{key}:N", sort=alt.EncodingSortField(field=rate, order="descending"), title=None)
    x_scale = alt.Scale(domain=[0, 1])
    base = alt.Chart(data).encode(y=y)
    bars = base.mark_rule(strokeWidth=7, opacity=0.45).encode(
        x=alt.X(f"{rate}_low:Q", scale=x_scale, axis=alt.Axis(format="%"), title=axis_title),
        x2=f"{rate}_high:Q", color=_colour(alt))
    points = base.mark_point(filled=True, size=70, opacity=1).encode(x=f"{rate}:Q", color=_colour(alt))
    text = base.mark_text(align="left", dx=6, dy=-9, fontSize=11, color=INK).encode(x=f"{rate}:Q", text="label:N")
    half = alt.Chart(pl.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[4, 4], color="#888").encode(x="x:Q")
    return render_svg(_config((half + bars + points + text).properties(width=INTERVAL_PLOT, height=34 * df.height)))


def matchup_chart(df: pl.DataFrame) -> str:
    if not df.height:
        return ""
    alt = _alt()
    data = _labels(df, "deck", "opponent").with_columns(
        pl.format("{} ({})", pl.col("win_rate").map_elements(lambda v: pct(v, 0), return_dtype=pl.String),
                  pl.col("games")).alias("label"))
    base = alt.Chart(data).encode(
        x=alt.X("opponent:N", title="against", axis=alt.Axis(labelAngle=-30, orient="top", grid=False)),
        # the rows' title in the corner above their names, never beside them: left of the names, where it was,
        # the longest name ran into it (the browser's text is a little wider than vl-convert's measure)
        y=alt.Y("deck:N", title="deck", axis=alt.Axis(grid=False, titleAngle=0, titleAlign="right", titleBaseline="bottom",
                                                      titleX=-8, titleY=-6)))
    cells = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color("win_rate:Q", scale=alt.Scale(domain=[0.2, 0.5, 0.8], range=list(MATCHUP_COLOURS), clamp=True),
                        legend=alt.Legend(format="%", title="win rate")),
        opacity=alt.condition("datum.low_sample", alt.value(0.3), alt.value(1.0)))
    text = base.mark_text(fontSize=11, color=INK).encode(text="label:N")
    decks = max(df["deck"].n_unique(), df["opponent"].n_unique())
    return render_svg(_config((cells + text).properties(width=92 * decks, height=36 * decks)))


def attack_chart(df: pl.DataFrame, words: Mapping[str, str] | None = None) -> str:
    """Each Square's attacks as a bar of their outcomes, named in the game's ``words`` (``Game.attack_outcomes``;
    else the key, its underscores spaces), and a label: the success rate [its Wilson 95% interval] n=attacks, as
    the win rate charts write it ("100.0% of 17" had no interval)."""
    if not df.height:
        return ""
    alt = _alt()
    words = outcome_words(words)
    long = df.select(["square", *OUTCOMES]).unpivot(index="square", variable_name="outcome", value_name="count")
    long = long.filter(pl.col("count") > 0).with_columns(
        pl.col("outcome").replace(words).alias("said"),
        pl.col("outcome").replace({o: str(i) for i, o in enumerate(OUTCOMES)}).cast(pl.Int64).alias("outcome_order"))
    labels = df.with_columns(rate_label("success_rate", "success_rate_low", "success_rate_high", "attacks"))
    said = [words[o] for o in OUTCOMES]
    y = alt.Y("square:N", sort="ascending", title="attacker Square")
    # room right of the longest bar for its label ("100.0% [100%–100%] n=1234", about 170 px of the 720)
    # each part of a bar, and its legend's swatch, outlined in ink: three of the colours are under 3:1 on white
    # (sky blue 2.2, orange 2.0, grey 1.7: WCAG 1.4.11 asks 3:1 of a mark one must see to read the chart)
    bars = alt.Chart(long).mark_bar(height={"band": 0.7}, stroke=INK, strokeWidth=1).encode(
        y=y, x=alt.X("count:Q", title="attacks", scale=alt.Scale(domain=[0, int(df["attacks"].max() * 1.35) + 1])),
        color=alt.Color("said:N", scale=alt.Scale(domain=said, range=list(OUTCOME_COLOURS)), title="outcome",
                        legend=alt.Legend(columns=3, symbolStrokeColor=INK, symbolStrokeWidth=1)),
        order=alt.Order("outcome_order:Q"))
    text = alt.Chart(labels).mark_text(align="left", dx=4, fontSize=11).encode(
        y=y, x="attacks:Q", text="label:N",
        color=alt.condition("datum.low_sample", alt.value(LOW_TEXT), alt.value(INK)))
    return render_svg(_config((bars + text).properties(width=720, height=28 * df.height)))


def outcome_words(words: Mapping[str, str] | None) -> dict[str, str]:
    """Each attack outcome in the game's words (``Game.attack_outcomes``), else its key with spaces."""
    return {o: (words or {}).get(o) or o.replace("_", " ") for o in OUTCOMES}


def life_turns(df: pl.DataFrame) -> int:
    """The last turn the Life damage chart shows: the last one a game reached, at most ``MAX_TURN`` (0: none)."""
    return min(MAX_TURN, int(df["turn"].max() or 0)) if df.height else 0


def life_chart(df: pl.DataFrame) -> str:
    """Life damage per game by turn and seat: every turn from 1 to ``life_turns`` on the axis, a turn without
    damage (or a seat without a row) drawn as 0, as the table under it lists it (the turns without damage were
    left out: the axis read 1, 2, 3, 5, 7, 9, 12 under "turns 1-16")."""
    last = life_turns(df)
    if not last or not df.filter((pl.col("turn") <= last) & (pl.col("damage") > 0)).height:
        return ""
    alt = _alt()
    grid = pl.DataFrame({"turn": [t for t in range(1, last + 1) for _ in (0, 1)],
                         "seat": ["first", "second"] * last})
    data = grid.join(df.select(["turn", "seat", "damage_per_game", "low_sample"]).cast({"turn": pl.Int64}),
                     on=["turn", "seat"], how="left")
    data = data.with_columns(pl.col("damage_per_game").fill_null(0.0).round(2).alias("per_game"),
                             pl.col("low_sample").fill_null(True)).with_columns(
        pl.when(pl.col("per_game") == 0).then(pl.lit("0")).otherwise(pl.format("{}", pl.col("per_game")))
        .alias("label"))
    base = alt.Chart(data).encode(x=alt.X("turn:O", title="turn", sort=list(range(1, last + 1)),
                                          axis=alt.Axis(labelAngle=0)),
                                  xOffset=alt.XOffset("seat:N", sort=["first", "second"]))
    bars = base.mark_bar().encode(
        y=alt.Y("per_game:Q", title="Life damage per game"),
        color=alt.Color("seat:N", scale=alt.Scale(domain=["first", "second"], range=[BLUE, RED]),
                        legend=alt.Legend(title="damage taken by the player going", titleLimit=400)),
        opacity=alt.condition("datum.low_sample", alt.value(FADED), alt.value(1.0)))  # the seat stays told
    text = base.mark_text(dy=-6, fontSize=9, color=INK).encode(y="per_game:Q", text="label:N")
    return render_svg(_config((bars + text).properties(width=max(320, 44 * last), height=240)))


def card_chart(df: pl.DataFrame) -> str:
    """GIH WR of the cards seen most in hand; without the hand figures (not published: only the cards
    played, ``zx_web.backend.seen_cards_only``) the win rate when played of the cards played most."""
    m, title = ("gih", "GIH win rate") if "gih_games" in df.columns else ("played", "win rate when played")
    top = df.filter(pl.col(f"{m}_games") > 0).sort([f"{m}_games", "card"], descending=[True, False]).head(TOP_CARDS)
    if not top.height:
        return ""
    top = top.with_columns(pl.format("{} {}", pl.col("card"), pl.col("name").fill_null("")).alias("label_card"))
    return interval_chart(top.rename({"label_card": "card name"}), "card name", f"{m}_wr", f"{m}_games",
                          axis_title=f"{title} (95% interval)")


# ---------------------------------------------------------------------- page
def cell(value: Any) -> str:
    """A table cell's text; the template escapes it (escaped here too, a deck named ``R&D`` read
    ``R&amp;D``)."""
    if isinstance(value, float):
        return f"{value:.3f}"
    if value is None:
        return ""
    return str(value)


# ---------------------------------------------------------------------- the tables under the charts
# A chart's text equivalent: its rows, each column headed in words, a rate as a percentage, its Wilson interval's
# two ends one column ("38.1%–59.5%", as the chart's label "48.7% [38%–60%] n=80"), a row under the minimum of
# games "below minimum". They were the frames' keys and values (win_rate_low, gih_wr, 0.487, False); the JSON API
# and zx stats keep those. 17lands' short names stay (GIH WR, OH WR, GD WR, GNS WR, IWD).
HEADS = {
    "deck": "Deck", "opponent": "Opponent's deck", "seat": "Player going", "week": "ISO week", "card": "Card",
    "name": "Name", "square": "Attacker Square", "turn": "Turn", "seats": "Seats", "matches": "Matches",
    "all_seats": "All seats", "field": "Week's seats", "games": "Games", "wins": "Wins", "losses": "Losses",
    "draws": "Draws", "share": "Share", "win_rate": "Win rate", "attacks": "Attacks", "success_rate": "Success rate",
    "damage": "Life damage", "damage_per_game": "Damage per game", "ignition_rate": "Ignition rate",
    "gih_games": "GIH games", "gih_wr": "GIH WR", "iwd": "IWD", "oh_games": "OH games", "oh_wr": "OH WR",
    "gd_games": "GD games", "gd_wr": "GD WR", "gns_games": "GNS games", "gns_wr": "GNS WR",
    "played_games": "Played games", "played_wins": "Played wins", "played_wr": "Played WR", "low_sample": "Sample",
}
RATES = frozenset({"share", "win_rate", "success_rate", "ignition_rate", "gih_wr", "oh_wr", "gd_wr", "gns_wr",
                   "played_wr"})
BELOW_MINIMUM = "below minimum"  # a low_sample row's Sample cell (the others: "enough")


@dataclass
class Table:
    heads: list[tuple[str, bool]]  # (header, numeric: right-aligned)
    rows: list[tuple[bool, list[tuple[str, str]]]]  # (low sample, cells: (text, class: "name", "num" or ""))
    hrefs: list[list[str | None]] = field(default_factory=list)  # per row, per cell: its link (or None)
    titles: list[list[str | None]] = field(default_factory=list)  # per row, per cell: what its link lists


def table(rows: list[dict[str, Any]], columns: list[str], heads: Mapping[str, str] | None = None,
          links: Mapping[str, list[str | None]] | None = None,
          link_titles: Mapping[str, list[str | None]] | None = None) -> Table:
    """``rows`` as the table under a chart shows them: ``columns`` headed in words (``HEADS``, else ``heads``,
    else the key with spaces), a rate's ``_low`` and ``_high`` one column after it; ``links``: a column's link
    per row (``Section.links``)."""
    named = {**HEADS, **(heads or {})}
    spans: list[tuple[str, tuple[str, ...]]] = []
    for c in columns:
        base = c[:-4] if c.endswith("_low") else c[:-5] if c.endswith("_high") else None
        if base is not None and {f"{base}_low", f"{base}_high"} <= set(columns):
            if c.endswith("_low"):
                spans.append((f"{named.get(base, base)} 95% interval", (c, f"{base}_high")))
            continue
        spans.append((named.get(c, c.replace("_", " ")), (c,)))
    numeric = [all(not isinstance(r.get(keys[0]), str) and keys[0] != "low_sample" for r in rows) and keys[0] not in
               ("seat", "week") for _, keys in spans]
    links = links or {}
    hrefs = [[(links[keys[0]][i] if keys[0] in links and len(keys) == 1 and i < len(links[keys[0]]) else None)
              for _, keys in spans] for i in range(len(rows))] if links else []
    titles = [[((link_titles or {}).get(keys[0]) or [None] * len(rows))[i] if len(keys) == 1 else None
               for _, keys in spans] for i in range(len(rows))] if links else []
    return Table([(head, num) for (head, _), num in zip(spans, numeric)],
                 [(bool(r.get("low_sample")), [_cell(r, keys) for _, keys in spans]) for r in rows], hrefs, titles)


def _cell(row: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, str]:
    """One cell of ``table``: its text (the template escapes it) and its class."""
    key, value = keys[0], row.get(keys[0])
    if len(keys) == 2:  # a Wilson interval
        high = row.get(keys[1])
        return ("-" if value is None or high is None else f"{pct(value)}–{pct(high)}"), "num"
    if key == "low_sample":
        return (BELOW_MINIMUM if value else "enough"), ""
    if isinstance(value, str):
        return visible(value), "name"
    if value is None:
        return "-", "num"
    if isinstance(value, bool):
        return ("yes" if value else "no"), ""
    if key in RATES:
        return pct(value), "num"
    if key == "iwd":  # GIH WR less the win rate when never seen: percentage points
        return f"{value * 100:+.1f} pp", "num"
    if isinstance(value, float):
        return (f"{value:.2f}" if key == "damage_per_game" else cell(value)), "num"
    return cell(value), "num"
