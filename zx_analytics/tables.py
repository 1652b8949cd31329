"""The analytics tables of every installed game, gathered from each game's rows module.

Each game contributes a rows module (``Game.rows``) with: ``GAME`` (the ``game`` column value),
``COLUMNS`` (table -> columns: the shared tables ``matches``, ``seats``, ``turns``, ``draws``,
``card_games``, ``card_catalog`` with the same columns in every game, plus the game's own tables),
``TOPICS`` (the event topics it reads), ``HANDLERS`` (topic -> handler), ``MatchRows`` (the in-flight
state of one match: ``started(payload, identity, given)`` (``Catalogs.of``), ``close``,
``to_json``/``from_json``), ``catalog_rows(cat)`` (a catalog's per-card deck identity and its
``card_catalog`` rows), and optionally ``SQL`` (the CREATE
statements of its own tables) and ``NO_PAYLOAD`` (topics whose handler reads nothing of the payload:
it is called with None, the JSON is not decoded). The projection (``zx_analytics.projection``) only
talks to these.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

from zx_events import games
from zx_events.errors import ZXError
from zx_events.games.rowkit import shipped_catalog

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
# the CREATE statements of the games' own tables (besides zx_analytics/sql/), and those tables' names
GAME_SQL: tuple[str, ...] = tuple(s for r in ROWS.values() for s in getattr(r, "SQL", ()))
GAME_TABLES: tuple[str, ...] = tuple(t for r in ROWS.values() for t in getattr(r, "SQL_TABLES", ()))


def new_buffers() -> dict[str, list[tuple]]:
    return {t: [] for t in COLUMNS}


def rows_of(game_key: str | None) -> Any:
    """The rows module of a game (the in-flight state of a match names its game; 0.2 and before: zx)."""
    return ROWS[game_key or games.DEFAULT]


class Catalogs:
    """What the projection knows of the catalog a match was checked against, by game, catalog name and
    SHA-256 (as its Started event pins them; looked up once): the deck identity per card (Z/X colours,
    X610Z energy types), the catalog file given for it, and the card_catalog rows of new catalogs.

    A stored name picks a shipped catalog, never a file (docs/security.md); ``given``: catalogs the
    user handed the update (``zx analytics update --catalog FILE``), each used for exactly the matches
    whose pinned SHA-256 is its own, under the name the match pins. ``unknown`` counts the matches of
    each catalog neither shipped (by name or content) nor given: (game key, name, SHA-256) -> matches.
    ``known``: the (name, SHA-256) of the catalogs whose card_catalog rows the file holds already: a catalog
    is its content, so two files of one name each get their own rows (the second got none)."""

    def __init__(self, known: set[tuple[str, str]], given: Iterable[Any] = ()) -> None:
        self.known = known
        self.given = {(c.game, c.sha256): c for c in given}
        self.seen: dict[tuple[str, Any, Any], tuple[dict[str, tuple[str, ...]] | None, Any, bool]] = {}
        self.unknown: dict[tuple[str, Any, Any], int] = {}

    def of(self, game: Any, d: dict, buf: dict[str, list[tuple]]) -> tuple[dict[str, tuple[str, ...]] | None, Any]:
        """(identity per card, the given catalog or None) of the match whose Started payload is ``d``:
        the arguments of its rows' ``MatchRows.started`` after ``d``."""
        pinned = d.get("catalog") or {}
        name, sha = pinned.get("name"), pinned.get("sha256")
        key = (game.key, name, sha)
        hit = self.seen.get(key)
        if hit is None:
            hit = self.seen[key] = self._look_up(game, name, sha, buf)
        if hit[2]:
            self.unknown[key] = self.unknown.get(key, 0) + 1
        return hit[0], hit[1]

    def _look_up(self, game: Any, name: Any, sha: Any, buf: dict[str, list[tuple]]) -> tuple:
        given = self.given.get((game.key, sha)) if isinstance(sha, str) else None
        if given is not None:
            cat = given if not isinstance(name, str) or given.name == name else replace(given, name=name)
        elif isinstance(name, str):
            try:
                cat = game.load_catalog(name, files=False)  # a stored name: a shipped catalog, never a file
            except ZXError:  # a catalog given as a file (--catalog FILE) and not now: no colours
                cat = None
        else:
            cat = None
        if cat is None:
            ship, _ = shipped_catalog(game.load_catalog, game.catalog_names(), name, sha)
            return None, None, ship is None  # (a shipped catalog's content: rows rank by it, colours unknown)
        colours, rows = game.rows.catalog_rows(cat)
        if (cat.name, cat.sha256) not in self.known:
            self.known.add((cat.name, cat.sha256))
            buf["card_catalog"].extend(rows)
        return colours, given, False
