"""The registry of games: which game a log's header or a stored event belongs to.

The core asks here, and only here, for a game (``zx_events.games.base.Game``): by its key (``zx``),
by the header key that starts one of its matches in a log (``zxlog``), or by the topic prefix of a
stored event (``zx.match:...``). A game package is imported only when it is first asked for:
``load_events(topic)`` imports a game's events when a stored event of it is first decoded.

Adding a game: a package under ``zx_events/games/`` whose ``game`` module defines ``GAME``, and one
line in ``GAME_MODULES``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, Iterator

from zx_events.errors import ZXError

if TYPE_CHECKING:
    from .base import Game

GAME_MODULES: dict[str, str] = {  # key -> module defining GAME; header key -> key below
    "zx": "zx_events.games.zx.game",
    "x610z": "zx_events.games.x610z.game",
}
HEADER_KEYS: dict[str, str] = {"zxlog": "zx", "x610zlog": "x610z"}
TOPIC_PREFIXES: dict[str, str] = {"zx.match": "zx", "x610z.match": "x610z"}
DEFAULT = "zx"  # the game of a catalog option given without a game, and of the 0.1.0 store

_loaded: dict[str, "Game"] = {}


def digest_of(rules_version: str | None) -> int:
    """The digest number of a game's rules version: ``zx-cr-seed-2026.11+digest.3`` -> 3 (none: 0). A
    game gates a rules change made in its state's own event handlers on it, so that a stored match
    replays as the version it was imported under."""
    _, _, n = (rules_version or "").rpartition("+digest.")
    return int(n) if n.isdigit() else 0


class UnknownGame(ZXError):
    kind = "usage"


class NewerRules(ZXError):
    """A stored match imported under a rules version newer than this zx knows (by a later build: a store taken back
    to an older one): its state's own handlers may have changed since, so it is not replayed as if it were older."""

    kind = "conflict"  # (zx serve: 409, the store holds what this server cannot show)


def known_rules(game_key: str, match_id: str, rules_version: str | None) -> None:
    """Raise ``NewerRules`` when ``rules_version`` (a stored match's) is newer than the game's own: replaying it with
    the handlers of an older version gave another state in silence (a card in two zones)."""
    own = get(game_key).rules_version
    if digest_of(rules_version) > digest_of(own):
        raise NewerRules(f"match {match_id!r} was imported under rules {rules_version}, newer than this zx knows "
                         f"({own}): it is replayed only by a zx that knows them (upgrade zx; docs/deployment.md, "
                         f"Upgrading)")


def keys() -> tuple[str, ...]:
    return tuple(GAME_MODULES)


def get(key: str) -> "Game":
    """The game ``key`` (``UnknownGame`` naming the installed ones)."""
    game = _loaded.get(key)
    if game is None:
        module = GAME_MODULES.get(key)
        if module is None:
            raise UnknownGame(f"unknown game {key!r}: one of {', '.join(GAME_MODULES)} (zx games)")
        game = _loaded[key] = import_module(module).GAME
        # the table above names a game's header key and topic prefix without importing it: keep them honest
        assert HEADER_KEYS[game.header_key] == key and TOPIC_PREFIXES[game.topic_prefix] == key, game
    return game


def all_games() -> list["Game"]:
    return [get(k) for k in GAME_MODULES]


def choices(keys: Any) -> list[dict[str, str]]:
    """``[{"key", "name"}]`` of the game keys given, sorted by key (a form's game select); a key no
    installed game has keeps itself as its name."""
    names = {g.key: g.name for g in all_games()}
    return [{"key": k, "name": names.get(k, k)} for k in sorted(set(keys))]


def header_keys() -> tuple[str, ...]:
    return tuple(HEADER_KEYS)


def for_header(obj: dict) -> "Game | None":
    """The game whose header key ``obj`` holds (None: not a header)."""
    for hk, key in HEADER_KEYS.items():
        if hk in obj:
            return get(key)
    return None


def topic_key(topic: str) -> str:
    """The key of the game a stored event topic belongs to (``zx.match:Started`` -> ``zx``), without
    importing the game."""
    key = TOPIC_PREFIXES.get(topic.split(":", 1)[0])
    if key is None:
        raise UnknownGame(f"stored event topic {topic!r} belongs to no installed game")
    return key


def for_topic(topic: str) -> "Game":
    """The game a stored event topic belongs to (``zx.match:Started`` -> Z/X)."""
    return get(topic_key(topic))


def topics(name: str) -> tuple[str, ...]:
    """Every game's topic for event ``name`` (``Started`` -> ``zx.match:Started``, ``x610z.match:Started``)."""
    return tuple(f"{prefix}:{name}" for prefix in TOPIC_PREFIXES)


def is_topic(topic: str, name: str) -> bool:
    """Whether ``topic`` is some game's event ``name`` (``x610z.match:Sealed`` is a ``Sealed``)."""
    prefix, _, rest = topic.partition(":")
    return rest == name and prefix in TOPIC_PREFIXES


def import_events() -> None:
    """Import every game's aggregate, so that every stored topic resolves."""
    for game in all_games():
        game.aggregate  # noqa: B018


def load_events(topic: str) -> None:
    """Import the aggregate (the event classes) of the game a stored topic belongs to, if any, so
    that the topic resolves; the store's mapper asks before it resolves a topic (``zx_events.codec``),
    so reading a store imports only the games whose events are read (``zx matches``: none)."""
    prefix = topic.split(":", 1)[0]
    if prefix in _LOADED:
        return
    key = TOPIC_PREFIXES.get(prefix)
    if key is not None:
        get(key).aggregate  # noqa: B018
        _LOADED.add(prefix)


_LOADED: set[str] = set()  # topic prefixes whose game's aggregate is imported (load_events: once a seek)


def describe() -> Iterator[dict[str, Any]]:
    for game in all_games():
        yield game.describe()


def load_references(catalog: str | None = None, **fixtures: str | None) -> dict[Any, Any] | None:
    """``--catalog`` and each game's fixture options (``--board``): the reference data given on the
    command line, in one mapping for the importer: {game key: catalog} (``load_catalogs``) and
    {(game key, kind): value} for every kind given (``Game.fixture_options``; a kind no game takes, or
    a bad file: ``FormatError``); None when none is given (each header's own). A log's header only
    names shipped reference data; a file comes from here."""
    from zx_events.errors import FormatError

    if not catalog and not any(fixtures.values()):
        return None

    out: dict[Any, Any] = dict(load_catalogs(catalog))
    for kind, name_or_path in fixtures.items():
        if not name_or_path:
            continue
        takers = [g for g in all_games() if kind in g.fixture_options()]
        if not takers:
            raise FormatError(f"no installed game takes a {kind}")
        for game in takers:
            out[(game.key, kind)] = game.load_fixture(kind, name_or_path)
    return out


def load_catalogs(name_or_path: str | None) -> dict[str, Any]:
    """``--catalog``: a catalog name or file for the game it belongs to, as {game key: catalog}.

    A shipped name belongs to the game that ships it; a file to the first game that reads it (a
    catalog's CSV header says which game it is for). Unknown: ``CatalogError`` naming every game's
    catalogs."""
    from zx_events.errors import CatalogError

    if not name_or_path:
        return {}
    errors = []
    for game in all_games():
        if name_or_path in game.catalog_names():
            return {game.key: game.load_catalog(name_or_path)}
    for game in all_games():
        try:
            return {game.key: game.load_catalog(name_or_path)}
        except CatalogError as e:
            errors.append((game, e))
    if len(errors) == 1:
        raise errors[0][1]
    names = "; ".join(f"{g.key}: {', '.join(g.catalog_names())}" for g, _ in errors)
    # the file's position is kept (FILE:LINE): a game that read past the header names the row it
    # refused (the catalog is that game's); a file no game can read (a byte that is not UTF-8) has one reason,
    # said once; when every game refused the header, each says what it wants
    deepest = max((e for _, e in errors), key=lambda e: e.line or 0)
    if (deepest.line is None or len({(e.message, e.line) for _, e in errors}) == 1
            or deepest.line > min(e.line or 0 for _, e in errors)):
        raise CatalogError(f"{deepest.message} (shipped catalogs by game: {names})", source=deepest.source,
                           line=deepest.line)
    detail = "; ".join(f"as a {g.key} catalog, {e.message}" for g, e in errors)
    raise CatalogError(f"not a catalog of any game: {detail} (shipped catalogs by game: {names})",
                       source=deepest.source, line=deepest.line)
