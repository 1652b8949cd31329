"""Derived tables for the statistics a server answers: built in memory, never in the analytics file.

``zx stats cards``, ``attacks`` and ``life --by turn`` join a large table (card_games, attacks,
life: 356k, 131k and 48k rows at 10,000 matches) to the filtered ``seats`` on (match_no, side),
and ``cards`` then groups by a VARCHAR card and its facts: 10-35 ms of CPU a cold query on the
10k-match file, most of a cold request of ``zx serve``. Here those rows are joined to their side's
filter columns once, when a server opens the file at a position, so a statistic filters and counts
one table:

- ``card_seats``: card_games of finished games with the side's filter columns and one integer
  ``k = card_id * 32 + facts`` (``card_ids``: card codes by number), counted on a small integer key;
- ``attack_seats``: attacks with the side's filter columns and the three keys of ``zx stats
  attacks`` (card, square, target);
- ``life_seats``: life damage with the side's filter columns.

They live in an in-memory database attached to the read-only connection (``ATTACH ':memory:'``,
which DuckDB allows under the sandbox and with the file read-only): every cursor of that
connection sees them, and the analytics file and the store are never written. The filter columns
are ENUMs of the values the file holds (the filters' values are checked against ``seats`` first,
``Stats.filters``), a byte or two a row instead of a string: 14.5 MiB at 10,000 matches.

The analytics file's schema and the projection are unchanged (a projection keeping such tables
cost +25% CPU): the derived tables are a server's own, built at one analytics position
(``Derived.position``) and built again when it serves another (``zx_web.backend.Backend``). ``Stats``
given a ``Derived`` answers from them (``cards_derived.sql``, ``attacks_derived.sql``,
``life_by_turn_derived.sql``) the same rows as without, which it still does for the CLI and the
Python API (tests/test_analytics_derived.py).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Mapping

import duckdb

from .db import sql

# ENUM type -> the values it holds: every value a filter column (or a key) of the derived tables
# may take. A filter and its opponent counterpart share a type (deck, opp_deck), so every value
# ``Stats.filters`` accepts for either is in it
TYPES = {
    "game_t": "SELECT game FROM seats",
    "event_t": "SELECT event FROM seats",
    "deck_t": "SELECT deck FROM seats UNION SELECT opp_deck FROM seats",
    "name_t": "SELECT name FROM seats UNION SELECT opp_name FROM seats",
    "seat_t": "SELECT seat FROM seats",
    "colours_t": "SELECT colours FROM seats",
    "archetype_t": "SELECT archetype FROM seats UNION SELECT opp_archetype FROM seats",
    "card_t": "SELECT attacker_card FROM attacks UNION SELECT target_card FROM attacks UNION SELECT 'player'",
    "square_t": "SELECT attacker_square FROM attacks",
    "outcome_t": "SELECT outcome FROM attacks",
}
# filter column of seats -> its type (a DATE stays a DATE): the columns of Stats' filters
# (zx_analytics.stats.FILTER_SQL), under their seats names
SEAT_COLUMNS = {"game": "game_t", "played_on": None, "event": "event_t", "deck": "deck_t", "name": "name_t",
                "opp_deck": "deck_t", "seat": "seat_t", "colours": "colours_t", "archetype": "archetype_t",
                "opp_archetype": "archetype_t", "opp_name": "name_t"}
TABLES = ("derived_card_ids", "derived_card_seats", "derived_attack_seats", "derived_life_seats")
# seats columns whose distinct values Stats.filters checks a filter against (zx_analytics.stats.NAMED_FILTERS)
KNOWN = ("event", "deck", "name", "colours", "archetype", "game")
_catalogs = itertools.count(1)


@dataclass(frozen=True)
class Derived:
    """The derived tables of one connection at one analytics position, in catalog ``catalog``; and
    what the statistics otherwise ask the file at every call: the games it holds and the distinct
    values of the filter columns (they cannot change at a position)."""

    catalog: str
    position: int | None
    games: tuple[str, ...]
    known: Mapping[str, tuple[str, ...]]
    seconds: float  # how long building them took

    def drop(self, con: duckdb.DuckDBPyConnection) -> None:
        """Detach the in-memory database (the statistics no longer read it)."""
        con.execute(f"DETACH DATABASE IF EXISTS {self.catalog}")


def build(con: duckdb.DuckDBPyConnection, position: int | None = None) -> Derived:
    """Build the derived tables from the analytics file ``con`` reads (any connection: read-only and
    sandboxed too) in a new in-memory database attached to it; ``position``: the analytics position
    the file stands at (kept with them: a caller builds them again for another)."""
    started = time.perf_counter()
    catalog = f"zx_derived_{next(_catalogs)}"  # a name of ours: letters, digits, underscores
    con.execute(f"ATTACH ':memory:' AS {catalog} (READ_WRITE)")
    try:
        for name, values in TYPES.items():
            con.execute(f"CREATE TYPE {catalog}.{name} AS ENUM "
                        f"(SELECT DISTINCT v FROM ({values}) t(v) WHERE v IS NOT NULL ORDER BY v)")
        columns = ", ".join(f"CAST(s.{c} AS {catalog}.{t}) AS {c}" if t else f"s.{c}" for c, t in SEAT_COLUMNS.items())
        for name in TABLES:
            con.execute(sql(name).format(derived=catalog, seat_columns=columns))
        known = {c: tuple(r[0] for r in con.execute(f"SELECT DISTINCT {c} FROM seats WHERE {c} IS NOT NULL")
                          .fetchall()) for c in KNOWN}
    except BaseException:
        con.execute(f"DETACH DATABASE IF EXISTS {catalog}")
        raise
    return Derived(catalog, position, tuple(sorted(known["game"])), known, time.perf_counter() - started)
