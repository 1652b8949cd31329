"""Turn a parsed match log into a match aggregate, checked by its game's rules engine.

Nothing here touches storage: ``build_match`` returns the aggregate with its pending events (strict:
or raises at the first violation), so the application can save a whole match in one transaction or
nothing at all. The game is the one the log's header key names (``MatchLog.game``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from zx_events import games
from zx_events.errors import FormatError
from zx_events.logformat.reader import MatchLog, check_codes

if TYPE_CHECKING:
    from zx_events.games.base import Game, Violation


@dataclass
class Checked:
    match: Any
    violations: list["Violation"] = field(default_factory=list)
    catalog: Any = None


def game_of(log: MatchLog) -> "Game":
    return log.game or games.get(games.DEFAULT)


def catalog_for(log: MatchLog, override: Any = None) -> Any:
    """The catalog a match is checked against: ``override`` (a catalog, or {game key: catalog} as
    ``games.load_references`` gives for ``--catalog``) when it is for the match's game, else the
    shipped one its header names (or the game's default): a header names a catalog, it never makes
    zx read a file (``Game.load_catalog``)."""
    game = game_of(log)
    if override is not None and isinstance(override, Mapping):  # (typing's Mapping: an ABC check, asked only then)
        override = override.get(game.key)
    if override is not None and getattr(override, "game", game.key) == game.key:
        return override
    name = (log.header or {}).get("catalog") or game.default_catalog
    try:
        return game.load_catalog(name, files=False)
    except FormatError as e:
        raise FormatError(e.message, source=log.source, line=log.header_line) from None


class OtherGameCatalog(UserWarning):
    """A catalog given to the Python API (``import_log(s)``, ``audit_log``, ``audit_stored``) that is another game's
    than the match's: not used (``catalog_for``), the match checked against the one its header names. ``zx`` says it
    once a command instead (``zx_cli.common.warn_unused_references``); this one was silent (QA round 37)."""


def warn_other_game(log: MatchLog, catalog: Any, stacklevel: int = 3) -> bool:
    """Warn (``OtherGameCatalog``, for a Python caller: ``errors.for_python``) when ``catalog`` is given, and is
    another game's than ``log``'s: one catalog, or ``{game key: catalog}`` (``games.load_catalogs`` of a file: its
    game's alone) naming none of ``log``'s game; whether it is."""
    if catalog is None or log.game is None:
        return False
    game = log.game
    if isinstance(catalog, Mapping):
        if game.key in catalog:  # (the common case, once a match of an import: asked first)
            return False
        given = [(key, cat) for key, cat in catalog.items() if isinstance(key, str)]  # (not the (game, "board") keys)
        if not given:
            return False
        other, catalog = given[0]
    else:
        other = getattr(catalog, "game", game.key)
    if other == game.key:
        return False
    from zx_events.errors import for_python

    if for_python():
        import warnings

        from zx_events import games

        def short(key: str) -> str:  # "Z/X", "X610Z" (as zx's warning names a game)
            return games.get(key).name.split(" ")[0] if key in games.keys() else key

        name = getattr(catalog, "name", None) or "given"
        # (no match named: Python shows a warning once a place, not once each of a thousand matches)
        article = "an" if short(other)[:1] in "AEFHILMNORSX" else "a"  # (an X610Z: said "ex")
        warnings.warn(f"the catalog {name} is {article} {short(other)} catalog, not used for {short(game.key)} "
                      f"matches: each is checked against the one its header names; give a catalog of {short(game.key)} "
                      f"(or {{game key: catalog}}: zx_events.games.load_references)", OtherGameCatalog,
                      stacklevel=stacklevel)
    return True


def fixtures_for(log: MatchLog, override: Any = None) -> dict[str, Any]:
    """Reference data the header pins besides the catalog (X610Z: the shipped board it names, or the
    one ``override`` holds: ``games.load_references`` for ``--board``)."""
    try:
        return game_of(log).load_fixtures(log.header or {}, override if isinstance(override, Mapping) else None)
    except FormatError as e:
        raise FormatError(e.message, source=log.source, line=log.header_line) from None


def _check_card_fields(log: MatchLog, game: "Game", cat: Any) -> None:
    """``FormatError`` at the first record with a field its card does not take (``Game.card_field_problem``)."""
    kinds = game.card_field_kinds
    if not kinds:
        return
    problem_of = game.card_field_problem
    for rec in log.records:
        if rec.data.get("do") in kinds:
            problem = problem_of(rec.data, cat)
            if problem is not None:
                raise FormatError(problem, source=log.source, line=rec.line)


def build_match(log: MatchLog, *, catalog: Any = None, strict: bool = True) -> Checked:
    """Check ``log`` with the rules engine; strict raises ``RuleViolation`` at the first violation.
    ``catalog``: a catalog, or the reference data given on the command line (``games.load_references``)."""
    if log.error is not None:
        raise log.error
    if log.header is None:
        raise FormatError("no match header", source=log.source, line=log.header_line)
    game = game_of(log)
    cat = catalog_for(log, catalog)
    check_codes(log, cat)
    _check_card_fields(log, game, cat)
    # the file's name as text the events can hold: one that is not UTF-8 (a byte Python keeps as a lone surrogate,
    # "caf\xe9.zxlog") failed every match of the import in the digest's encoding, valid logs too
    source = log.source.encode("utf-8", "backslashreplace").decode("utf-8")
    m, ref = game.open_match(log.header, cat, fixtures_for(log, catalog), strict=strict, source=source,
                             content_sha256=log.content_sha256, line=log.header_line)
    handle = ref.handle
    for rec in log.records:
        handle(rec.line, rec.data)
    ref.finish()
    return Checked(m, ref.found, cat)
