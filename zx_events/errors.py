"""Error types. A malformed record is not the same error as a well-formed record the rules forbid.

Every error zx raises for what it was given or found derives from ``Error`` (``except zx_events.errors.Error``
catches zx's and the analytics' alike: ``ZXError`` here, ``zx_analytics.db.AnalyticsError`` and the statistics'
``UnknownName`` and ``NotThisGame``). ``ZXError`` and its kinds subclass ``ValueError`` too; every error knows
where it happened (``FILE:LINE``) once the importer attaches the source position, and a rule violation carries its
Comprehensive Rules number.
"""

from __future__ import annotations

import unicodedata
from contextvars import ContextVar


SHOWN = 200  # characters of a value an error message echoes (a longer one is cut, ending in ...)

# Who reads the remedy an error names: "python", a script of the Python API (``update(svc, PATH, rebuild=True)``),
# or "cli", a ``zx`` command's user (```zx analytics update --rebuild```): zx_cli sets it for a command's run
ADVICE_FOR: ContextVar[str] = ContextVar("zx_advice_for", default="python")


def for_python() -> bool:
    """Whether the remedy an error names is a Python caller's (``ADVICE_FOR``), not a ``zx`` command's."""
    return ADVICE_FOR.get() == "python"


def cut(text: str, most: int = SHOWN) -> str:
    """``text`` as an error message echoes it: at most ``most`` characters, a longer one cut ending in ``...``,
    at the end of a grapheme cluster (a flag, an emoji ZWJ sequence, a letter and its accents are one: the
    ``wcwidth`` library's UAX #29), unless the first cluster is longer than that itself."""
    if len(text) <= most:
        return text
    from wcwidth import iter_graphemes

    end = 0
    for cluster in iter_graphemes(text):
        if end + len(cluster) > most - 3:
            break
        end += len(cluster)
    return text[:end or most - 3] + "..."


def shown(value: object, most: int = SHOWN) -> str:
    """``value`` as an error message echoes it (its repr), cut to ``most`` characters ending in ``...``:
    a 60 MB board name or a 5,000-digit cost is shown by its start, never whole."""
    if isinstance(value, str) and len(value) > most:
        value = value[:most]  # (the repr of a long string is never built whole)
    return cut(repr(value), most)


def not_ascii(text: str, most: int = 3) -> str:
    """What a message says after quoting ``text``, a value that must be ASCII (a seat, a card code, a Square,
    a dot, a record kind): its non-ASCII characters named, ``U+0420 CYRILLIC CAPITAL LETTER ER is not ASCII``,
    at most ``most`` of them, or ``""`` for ASCII text. A look-alike (a Cyrillic ``Р1``, ``R01‐001`` with
    U+2010) otherwise read as the very value the message asked for (``must be P1 or P2, got 'Р1'``)."""
    text = text[:SHOWN]  # (the part a message echoes)
    if text.isascii():
        return ""
    chars = list(dict.fromkeys(c for c in text if not c.isascii()))
    named = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip() for c in chars[:most])
    more = f" and {len(chars) - most} more" if len(chars) > most else ""
    return f"{named}{more} {'is' if len(chars) == 1 else 'are'} not ASCII"


class Error(Exception):
    """Base of every error zx raises for what it was given or found (a log, a catalog, a store, an analytics file, a
    query, a name): one ``except`` for a script of zx_events' and zx_analytics' calls alike (they had no common base
    but ``Exception``). Its message says what and where; a bug of zx is never one (an internal error)."""


class ArgumentTypeError(Error, TypeError):
    """An argument of the Python API of another type than it takes (``catalogs='my.csv'``, ``matches='ID'``,
    ``MatchFilters(player=5)``): a ``TypeError`` as it always was, and an ``Error`` (``except Error`` catches it, as
    the package docstrings say of every error for what a script gives; QA round 37)."""


class ZXError(Error, ValueError):
    """Base of every error this package raises for bad input."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line

    def at(self, source: str | None, line: int | None) -> "ZXError":
        """Attach the position where the error happened (keeps one already set)."""
        if self.source is None:
            self.source = source
        if self.line is None:
            self.line = line
        return self

    def __reduce__(self):  # picklable whatever the subclass's __init__ takes (parallel import)
        return _restore, (type(self), dict(self.__dict__))

    @property
    def where(self) -> str:
        if self.source is None and self.line is None:
            return ""
        if self.line is None:
            return f"{self.source}"
        return f"{self.source or '<input>'}:{self.line}"

    def __str__(self) -> str:  # FILE:LINE: message
        where = self.where
        return f"{where}: {self.message}" if where else self.message


class ReadOnlyService(ZXError):
    """A write asked of a ``MatchService`` opened to read (``MatchService(url, create=False)``), which never
    writes its store: an import (``import_log``, ``import_logs``), snapshots (``replay.prepare_snapshots(strict=True)``,
    ``replay.repair_snapshots``)."""

    @classmethod
    def of(cls, store: str, what: str, command: str) -> "ReadOnlyService":
        """Why ``what`` cannot be done through the service of ``store`` (its label), and the ``zx`` command that can."""
        return cls(f"cannot {what}: this MatchService of the store {store} was opened to read (create=False), and "
                   f"writes nothing; open one that may write, MatchService(url, create=False, write=True), or run "
                   f"zx {command}")


class FormatError(ZXError):
    """The input is not a well-formed match log or catalog (bad JSON, unknown key, wrong type...)."""

    kind = "format"

    def __str__(self) -> str:
        where = self.where
        return f"{where}: format: {self.message}" if where else f"format: {self.message}"


class CatalogError(FormatError):
    """A card catalog row is malformed."""


def decoded(data: bytes, what: str, source: str, error: type[FormatError] = FormatError) -> str:
    """``data`` (a whole catalog or board file) as UTF-8 text with its line ends read as ``open`` reads them (CRLF
    and CR as LF: the SHA-256 a match pins is of that text); else ``error`` at the line of the first byte that is
    not UTF-8, naming it, its byte offset and column as a log's own check does (docs/match-log.md, Limits), never
    Python's codec text."""
    try:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        column = len(data[line_start:e.start].decode("utf-8", "replace")) + 1
        raise error(f"{what} is not UTF-8: byte 0x{data[e.start]:02x} at byte offset {e.start} (column {column}) "
                    f"cannot be decoded", source=source, line=data.count(b"\n", 0, e.start) + 1) from None


class RuleViolation(ZXError):
    """A well-formed record that the rules forbid. ``rule`` is the Comprehensive Rules number."""

    kind = "rule"

    def __init__(self, rule: str, message: str, *, source: str | None = None, line: int | None = None):
        super().__init__(message, source=source, line=line)
        self.rule = rule

    def __str__(self) -> str:
        where = self.where
        body = f"rule {self.rule}: {self.message}"
        return f"{where}: {body}" if where else body


class ConflictError(ZXError):
    """A match id already stored with different content."""

    kind = "conflict"


class DamagedMatch(ZXError):
    """The stored events of a match cannot be replayed: one is missing or cannot be decoded."""

    kind = "integrity"


class InternalError(ZXError):
    """A bug in zx met while checking one match (not a fault of the input): that match is rejected with
    it, naming the exception and where it was raised, and the others of the import go on (a KeyError in
    one X610Z log's check stopped a whole folder's import, the legal logs in it too)."""

    kind = "internal"

    @classmethod
    def of(cls, e: Exception, *, source: str | None = None, line: int | None = None) -> "InternalError":
        text = str(e).strip().splitlines()
        return cls(f"internal error: {type(e).__name__}: {text[0] if text else 'no message'}{raised_at(e)}: a bug "
                   f"in zx, not in this match: it is not imported (please report it); the import goes on with the "
                   f"other matches",
                   source=source, line=line)


def raised_at(e: BaseException, ours: bool = False) -> str:
    """Where ``e`` was raised, for a message: `` at FILE:LINE (in FUNCTION)``, the innermost frame (``ours``:
    the innermost of zx's own code, none when it has none), FILE relative to the checkout when it is in it;
    empty without a traceback. Never raises (the working directory deleted: it raised a second traceback)."""
    import os
    import traceback

    frames = traceback.extract_tb(e.__traceback__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if ours:
        frames = [f for f in frames if f.filename.startswith(root + os.sep) and "site-packages" not in f.filename]
    if not frames:
        return ""
    last = frames[-1]
    name = last.filename
    if name.startswith(root + os.sep):
        name = name[len(root) + 1:]
    return f" at {name}:{last.lineno} (in {last.name})"


def _restore(cls: type, state: dict) -> ZXError:
    err = cls.__new__(cls)
    Exception.__init__(err, state.get("message"))
    err.__dict__.update(state)
    return err
