"""Turn a parsed match log into a Match aggregate, checked by the rules engine.

Nothing here touches storage: ``build_match`` returns the aggregate with its pending events (strict:
or raises at the first violation), so the application can save a whole match in one transaction or
nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zx_events.games.zx.cards import Catalog, load_catalog
from zx_events.games.zx.engine.referee import Referee, Violation
from zx_events.errors import FormatError
from zx_events.logformat.reader import MatchLog, check_codes
from zx_events.games.zx.match import Match
from zx_events.games.zx.rules import RULES_VERSION


@dataclass
class Checked:
    match: Match
    violations: list[Violation] = field(default_factory=list)
    catalog: Catalog | None = None


def catalog_for(log: MatchLog, override: Catalog | None = None) -> Catalog:
    if override is not None:
        return override
    name = (log.header or {}).get("catalog") or "sample"
    try:
        return load_catalog(name)
    except FormatError as e:
        raise FormatError(e.message, source=log.source, line=log.header_line) from None


def open_match(header: dict, catalog: Catalog, *, strict: bool = True, source: str | None = None,
               content_sha256: str = "", line: int | None = 1) -> tuple[Match, Referee]:
    """A match started from ``header``, with the referee that checks its records (the header's deck
    construction, 401, already checked). Records go to ``referee.handle``; ``referee.finish`` ends
    the log."""
    m = Match(match_id=header["match"], header=header, catalog=catalog.ref, rules_version=RULES_VERSION,
              source=source or header["match"], content_sha256=content_sha256, line=line)
    ref = Referee(m, catalog, strict=strict, source=source)
    ref.header(header, line)
    return m, ref


def build_match(log: MatchLog, *, catalog: Catalog | None = None, strict: bool = True) -> Checked:
    """Check ``log`` with the rules engine; strict raises ``RuleViolation`` at the first violation."""
    if log.error is not None:
        raise log.error
    if log.header is None:
        raise FormatError("no match header", source=log.source, line=log.header_line)
    cat = catalog_for(log, catalog)
    check_codes(log, cat)
    m, ref = open_match(log.header, cat, strict=strict, source=log.source, content_sha256=log.content_sha256,
                        line=log.header_line)
    for rec in log.records:
        ref.handle(rec.line, rec.data)
    ref.finish()
    return Checked(m, ref.found, cat)
