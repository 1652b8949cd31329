"""Starting a checked Z/X match from a header: the aggregate and its referee."""

from __future__ import annotations

from typing import Any

from .engine.referee import Referee
from .match import Match
from .rules import RULES_VERSION


def open_match(header: dict, catalog: Any, *, strict: bool = True, source: str | None = None,
               content_sha256: str = "", line: int | None = 1):
    """A match started from ``header``, with the referee that checks its records (the header's deck
    construction, 401, already checked). Records go to ``referee.handle``; ``referee.finish`` ends
    the log."""
    m = Match(match_id=header["match"], header=header, catalog=catalog.ref, rules_version=RULES_VERSION,
              source=source or header["match"], content_sha256=content_sha256, line=line)
    ref = Referee(m, catalog, strict=strict, source=source)
    ref.header(header, line)
    return m, ref
