"""Metagame statistics as Polars DataFrames, for the CLI and for notebooks.

    from analytics.stats import Stats
    st = Stats("zx-store.duckdb")                 # a read-only connection
    st.winrates(by="deck", since="2026-11-01")    # polars.DataFrame
    st.matchups(event="Tokyo Regional 2026")
    st.attacks(by="square"); st.life(); st.life(by="turn"); st.cards(deck="Red Dragons")
    st.sql("SELECT deck, count(*) FROM seats GROUP BY ALL")

Definitions (also in docs/data-dictionary.md):
- Every rate ``r`` comes with its denominator (the count it is a share of), ``r_low`` and ``r_high``:
  the Wilson 95% interval. ``low_sample`` is true when any denominator in the row is below
  ``min_games`` (default 30): such rows are flagged, never hidden.
- Filters select the perspective side: ``since``/``until`` (the match date as written, inclusive),
  ``event``, ``deck`` and ``player`` (exact names). A match without a date is left out when a date
  filter is given.
- A win rate counts finished matches only (a winner or a draw); a draw is a game without a win.
  Mirror pairings (same deck, same colours) are left out of win rates by deck or colour and of
  matchups, where they are 50% by construction.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from .db import connect_reader, sql
from .wilson import with_rate

MIN_GAMES = 30
# allow-lists: option value -> (SQL expression, output column)
WINRATE_KEYS = {"deck": ("deck", "deck"), "colour": ("colours", "colours"), "player": ("name", "player"),
                "first": ("seat", "seat")}
ATTACK_KEYS = {"card": ("a.attacker_card", "card", "a.first_of_card"),
               "square": ("a.attacker_square", "square", "a.first_of_square"),
               "target": ("CASE WHEN a.target_kind = 'player' THEN 'player' ELSE a.target_card END", "target",
                          "a.first_of_target")}
LIFE_KEYS = ("seat", "turn")


@dataclass(frozen=True)
class Filters:
    since: str | None = None
    until: str | None = None
    event: str | None = None
    deck: str | None = None
    player: str | None = None

    def __post_init__(self) -> None:
        for name in ("since", "until"):
            v = getattr(self, name)
            if v is None:
                continue
            try:
                date.fromisoformat(v)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a date YYYY-MM-DD, got {v!r}") from None
        if self.since and self.until and self.since > self.until:
            raise ValueError(f"since {self.since} is after until {self.until}")

    def params(self) -> dict[str, Any]:
        return asdict(self)


def _flag(df: pl.DataFrame, denominators: list[str], min_games: int) -> pl.DataFrame:
    return df.with_columns(pl.any_horizontal([pl.col(c).fill_null(0) < min_games for c in denominators])
                           .alias("low_sample"))


class Stats:
    """Read-only statistics over one analytics file (or an open DuckDB connection)."""

    def __init__(self, source: str | Path | duckdb.DuckDBPyConnection, min_games: int = MIN_GAMES) -> None:
        if min_games < 1:
            raise ValueError(f"min_games must be at least 1, got {min_games}")
        self.con = source if isinstance(source, duckdb.DuckDBPyConnection) else connect_reader(Path(source))
        self.min_games = min_games

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "Stats":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _query(self, name: str, filters: Filters, **identifiers: str) -> pl.DataFrame:
        text = sql(name).format(**identifiers) if identifiers else sql(name)
        return self.con.sql(text, params=filters.params()).pl()

    def _names(self) -> pl.DataFrame:
        return self.con.sql("SELECT code, any_value(name) AS name FROM card_catalog GROUP BY ALL").pl()

    def sql(self, query: str, params: Any = None) -> pl.DataFrame:
        """Any SQL over the tables, views and macros of the file (read-only)."""
        rel = self.con.sql(query, params=params)
        return rel.pl() if rel is not None else pl.DataFrame()

    # ------------------------------------------------------------------ win rates
    def winrates(self, by: str = "deck", **filters: Any) -> pl.DataFrame:
        """Win rate per deck, colour identity, player name, or seat (going first or second)."""
        if by not in WINRATE_KEYS:
            raise ValueError(f"by must be one of {', '.join(WINRATE_KEYS)}, got {by!r}")
        expr, label = WINRATE_KEYS[by]
        df = self._query("winrates", Filters(**filters), key=expr)
        df = with_rate(df, "win_rate", "wins", "games")
        df = _flag(df, ["games"], self.min_games).rename({"key": label})
        return df.sort(["games", label], descending=[True, False], nulls_last=True)

    def matchups(self, **filters: Any) -> pl.DataFrame:
        """Deck against deck: the win rate of ``deck`` against ``opponent`` (both orientations)."""
        df = self._query("matchups", Filters(**filters))
        df = _flag(with_rate(df, "win_rate", "wins", "games"), ["games"], self.min_games)
        return df.sort(["deck", "opponent"], nulls_last=True)

    # ------------------------------------------------------------------ attacks
    def attacks(self, by: str = "card", **filters: Any) -> pl.DataFrame:
        """Attacks per attacker card, attacker Square or target (a card, or ``player``).

        ``success_rate``: the share of attacks that destroyed the target Z/X or damaged the player;
        ``games``: the games (match and side) with such an attack."""
        if by not in ATTACK_KEYS:
            raise ValueError(f"by must be one of {', '.join(ATTACK_KEYS)}, got {by!r}")
        expr, label, first = ATTACK_KEYS[by]
        df = self._query("attacks", Filters(**filters), key=expr, first=first)
        df = _flag(with_rate(df, "success_rate", "successes", "attacks"), ["attacks"], self.min_games)
        if by != "square":
            df = df.join(self._names(), left_on="key", right_on="code", how="left")
            df = df.select(["key", "name", *[c for c in df.columns if c not in ("key", "name")]])
        df = df.rename({"key": label})
        return df.sort(["attacks", label], descending=[True, False], nulls_last=True)

    # ------------------------------------------------------------------ life
    def life(self, by: str = "seat", **filters: Any) -> pl.DataFrame:
        """Life damage by seat (first or second player), or by turn and seat.

        By seat: ``damage_per_turn`` = Life damage taken per turn of the opponent;
        ``ignition_rate`` = share of damage points whose revealed card was played by its IG;
        ``comeback_rate`` = share of finished matches the seat won after being behind on Life at
        the end of some turn. By turn: damage per game that reached that turn, and the ignition rate."""
        if by not in LIFE_KEYS:
            raise ValueError(f"by must be one of {', '.join(LIFE_KEYS)}, got {by!r}")
        f = Filters(**filters)
        if by == "seat":
            df = self._query("life_by_seat", f)
            df = df.with_columns(pl.when(pl.col("opponent_turns") > 0)
                                 .then(pl.col("damage") / pl.col("opponent_turns")).alias("damage_per_turn"))
            df = with_rate(df, "ignition_rate", "ignitions", "damage")
            df = with_rate(df, "comeback_rate", "comebacks", "behind_games")
            df = _flag(df, ["games", "damage", "behind_games"], self.min_games).rename({"key": "seat"})
            return df.sort("seat")
        df = self._query("life_by_turn", f)
        df = df.with_columns((pl.col("damage") / pl.col("games")).alias("damage_per_game"))
        df = _flag(with_rate(df, "ignition_rate", "ignitions", "damage"), ["games", "damage"], self.min_games)
        df = df.rename({"key": "seat"}).select(["turn", "seat", *[c for c in df.columns if c not in ("turn", "key", "seat")]])
        return df.sort(["turn", "seat"])

    # ------------------------------------------------------------------ cards
    def cards(self, **filters: Any) -> pl.DataFrame:
        """Per card: the win rate in games where its player played it, and where it was in hand.

        Played: from hand or Dynamis, or free by its IG (Ignition Phase or from Life). In hand
        (like 17lands' GIH WR): in the opening hand kept after any mulligan, or drawn later (Draw
        Phase or an effect). A game counts once per card and player, however many copies."""
        df = self._query("cards", Filters(**filters))
        df = with_rate(df, "played_win_rate", "played_wins", "played_games")
        df = with_rate(df, "hand_win_rate", "hand_wins", "hand_games")
        df = _flag(df, ["played_games", "hand_games"], self.min_games).rename({"key": "card"})
        return df.sort(["hand_games", "card"], descending=[True, False])
