"""The analytics tables of every installed game, gathered from each game's rows module.

Each game contributes a rows module (``Game.rows``) with: ``GAME`` (the ``game`` column value),
``COLUMNS`` (table -> columns: the shared tables ``matches``, ``seats``, ``turns``, ``draws``,
``card_games``, ``card_catalog`` with the same columns in every game, plus the game's own tables),
``TOPICS`` (the event topics it reads), ``HANDLERS`` (topic -> handler), ``MatchRows`` (the in-flight
state of one match: ``started``, ``close``, ``to_json``/``from_json``), ``catalog_rows(cat)`` (a
catalog's per-card deck identity and its ``card_catalog`` rows), and optionally ``SQL`` (the CREATE
statements of its own tables) and ``NO_PAYLOAD`` (topics whose handler reads nothing of the payload:
it is called with None, the JSON is not decoded). The projection (``analytics.projection``) only
talks to these.
"""

from __future__ import annotations

from typing import Any

from zx_events import games
from zx_events.errors import ZXError

GAMES = games.all_games()
ROWS = {g.key: g.rows for g in GAMES}

COLUMNS: dict[str, tuple[str, ...]] = {}
for _key, _rows in ROWS.items():
    for _table, _cols in _rows.COLUMNS.items():
        if COLUMNS.setdefault(_table, _cols) != _cols:
            raise RuntimeError(f"game {_key} gives table {_table} other columns than another game: "
                               f"{_cols} != {COLUMNS[_table]}")
PROJECTED = tuple(t for t in COLUMNS if t != "card_catalog")
TOPICS = tuple(t for r in ROWS.values() for t in r.TOPICS)
HANDLERS: dict[str, Any] = {t: h for r in ROWS.values() for t, h in r.HANDLERS.items()}
NO_PAYLOAD: frozenset[str] = frozenset(t for r in ROWS.values() for t in getattr(r, "NO_PAYLOAD", ()))
# a match begins with its game's Started event: topic -> (game, rows module)
STARTED: dict[str, tuple[Any, Any]] = {g.topic("Started"): (g, g.rows) for g in GAMES}
# the CREATE statements of the games' own tables (besides analytics/sql/), and those tables' names
GAME_SQL: tuple[str, ...] = tuple(s for r in ROWS.values() for s in getattr(r, "SQL", ()))
GAME_TABLES: tuple[str, ...] = tuple(t for r in ROWS.values() for t in getattr(r, "SQL_TABLES", ()))


def new_buffers() -> dict[str, list[tuple]]:
    return {t: [] for t in COLUMNS}


def rows_of(game_key: str | None) -> Any:
    """The rows module of a game (the in-flight state of a match names its game; 0.2 and before: zx)."""
    return ROWS[game_key or games.DEFAULT]


class Catalogs:
    """A deck's identity per card (Z/X colours, X610Z energy types) by game and catalog name (loaded
    once), and the card_catalog rows of new catalogs."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.colours: dict[tuple[str, str], dict[str, tuple[str, ...]] | None] = {}

    def colours_of(self, game: Any, name: str | None, buf: dict[str, list[tuple]]) -> dict[str, tuple[str, ...]] | None:
        if name is None:
            return None
        key = (game.key, name)
        if key not in self.colours:
            try:
                cat = game.load_catalog(name, files=False)  # a stored name: a shipped catalog, never a file
            except ZXError:  # a catalog given as a file (--catalog FILE): not at hand, no colours
                self.colours[key] = None
                return None
            self.colours[key], rows = game.rows.catalog_rows(cat)
            if name not in self.known:
                self.known.add(name)
                buf["card_catalog"].extend(rows)
        return self.colours[key]
