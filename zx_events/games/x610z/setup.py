"""Starting a checked X610Z match from a header: its catalog, its board and its referee."""

from __future__ import annotations

from zx_events.errors import FormatError

from .board import Board, load_board
from .cards import Catalog, load_catalog
from .match import Match
from .referee import Referee
from .rules import RULES_VERSION

DEFAULT_CATALOG = "x610z-sample"


def catalog_for(header: dict, source: str | None = None, line: int | None = None) -> Catalog:
    try:
        return load_catalog(header.get("catalog") or DEFAULT_CATALOG, files=False)
    except FormatError as e:
        raise FormatError(e.message, source=source, line=line) from None


def board_for(header: dict, source: str | None = None, line: int | None = None) -> Board:
    try:
        return load_board(header["board"], files=False)
    except FormatError as e:
        raise FormatError(f"board: {e.message}" if e.source is None else str(e), source=source, line=line) from None


def open_match(header: dict, catalog: Catalog, board: Board, *, strict: bool = True, source: str | None = None,
               content_sha256: str = "", line: int | None = 1) -> tuple[Match, Referee]:
    """A match started from ``header`` with the referee that checks its records (the decks, 101-102,
    already checked). Records go to ``referee.handle``; ``referee.finish`` ends the log."""
    m = Match(match_id=header["match"], header=header, catalog=catalog.ref, board=board.ref,
              rules_version=RULES_VERSION, source=source or header["match"], content_sha256=content_sha256,
              line=line)
    ref = Referee(m, catalog, board, strict=strict, source=source)
    ref.header(header, line)
    return m, ref
