"""Reading match logs: JSON Lines in, one ``MatchLog`` per match out, for every game.

A file holds one or more matches, each starting at a header record holding a game's format key
(``zxlog``, ``x610zlog``: ``zx_events.games.header_keys()``), as JSON reads it (in any place of the
object, ``\\u``-escaped: ``_starts_match``); the key picks the game whose schema
(``zx_events.games.schema.LogFormat``) checks the match's records. A file may hold matches of
different games. The reader checks shape and types; counts and legality are the rules engine's.
Every error is a ``FormatError`` with ``FILE:LINE``.

Each match is read on its own: a format error sets that match's ``error`` and the reader skips to
the next header, so the other matches in the file still parse.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

import fastjsonschema
import orjson

from zx_events import games
from zx_events.errors import FormatError, not_ascii
from zx_events.games.schema import MAX_DEPTH, MAX_DIGITS, DuplicateKey, _json_type, quoted, unique_keys

if TYPE_CHECKING:
    from zx_events.games.base import Game

HEADER_KEYS: tuple[str, ...] = games.header_keys()
_KEYS_TEXT = " or ".join(HEADER_KEYS)
BEFORE_HEADER = (f"record before the match header (every match begins with a header record with the key "
                 f"{_KEYS_TEXT})")
TRUNCATED = "truncated file: the last line is incomplete JSON"


def _header_key(obj: dict) -> str | None:
    """The format key ``obj`` holds (a header), or None; two keys are an error (shared/spec/games.md)."""
    found = [k for k in HEADER_KEYS if k in obj]
    if len(found) > 1:
        raise FormatError(f"a header holds one format key, this one holds {' and '.join(map(quoted, found))}")
    return found[0] if found else None


_HEADER_KEY_SET = frozenset(HEADER_KEYS)


def _has_header_key(obj: dict) -> bool:
    return not _HEADER_KEY_SET.isdisjoint(obj)


def _spelled(key: str) -> str:
    """A pattern of ``key`` as a JSON string, however it is written: each character as itself or as a
    ``\\u`` escape, its hex digits in either case (``"\\u007axlog"`` is ``"zxlog"``). A format key
    is letters and digits, which JSON writes no other way."""
    assert key.isascii() and key.isalnum(), key
    return '"' + "".join(f"(?:{c}|\\\\u" + "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{ord(c):04x}")
                         + ")" for c in key) + '"'


_KEY_SPELLED = "|".join(_spelled(k) for k in HEADER_KEYS)
_NAMES_KEY = re.compile(_KEY_SPELLED)  # a format key, quoted, however it is written
_NAMES_KEY_PLAIN = re.compile("|".join(re.escape(f'"{k}"') for k in HEADER_KEYS))  # the same where no backslash is


def _names_header_key(line: str) -> bool:
    return _NAMES_KEY.search(line) is not None


# a line that opens an object with a format key first: broken, it is taken for a broken header
_OPENS_HEADER = re.compile("\ufeff?[ \t\r]*\\{[ \t\r]*(?:" + _KEY_SPELLED + ")[ \t\r]*:")


# --- JSON decoding --------------------------------------------------------------------------

class _NotJSON(ValueError):
    pass


def _parse_float(text: str) -> int | float:
    # JSON Schema counts 2.0 as an integer; hand the engine an int (and hash it as one)
    value = float(text)
    if value in (_INF, -_INF):
        raise _NotJSON(f"number out of range: {text[:40]} is beyond what a 64-bit float holds (docs/match-log.md, Limits)")
    return int(value) if value.is_integer() else value


_INF = float("inf")
MIN_INT, MAX_INT = -(1 << 63), (1 << 64) - 1  # what a stored event holds (orjson: int64 and uint64)


def _out_of_range(obj: Any) -> str | None:
    """The first value of ``obj`` no stored event can hold, described, or None: an integer beyond
    64 bits (2**64, 1e30 read as an integer), a string with half of a UTF-16 surrogate pair
    (``\\ud800`` alone is not a character: it cannot be written as UTF-8), in a key or a value."""
    stack = [obj]
    while stack:
        value = stack.pop()
        t = type(value)
        if t is dict:
            stack.extend(value)
            stack.extend(value.values())
        elif t is list:
            stack.extend(value)
        elif t is int:
            if not MIN_INT <= value <= MAX_INT:
                digits = str(value)
                return (f"number out of range: {digits[:24]}{'...' if len(digits) > 24 else ''} "
                        f"({len(digits)} digits; an integer of a log is between -2**63 and 2**64-1)")
        elif t is str and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as e:
                return (f"not a character: \\u{ord(value[e.start]):04x} is half of a UTF-16 surrogate pair "
                        f"without its other half")
    return None


MAX_LINE = 1_000_000  # characters in one line (a record is a few hundred)
MAX_MATCH_LINES = 50_000  # lines of one match (the longest of 2,000 simulated matches: 650)
MAX_MATCH_CHARS = 8 << 20  # characters of one match's lines (the longest simulated: 31 KB)
# (MAX_DEPTH, MAX_DIGITS: zx_events.games.schema, shared with the board files)


def _depth(obj: Any) -> int:
    """How many arrays and objects are inside each other in ``obj`` (iterative: no recursion)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        value, d = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                stack.extend((v, d + 1) for v in value)
            else:
                return d
    return deepest


def _reject_constant(name: str) -> None:
    raise _NotJSON(f"bad JSON: {name} is not a JSON value")


_dumps, _SORTED = orjson.dumps, orjson.OPT_SORT_KEYS

_std_decode = json.JSONDecoder(
    parse_float=_parse_float, parse_constant=_reject_constant, object_pairs_hook=unique_keys
).decode


def _decode(line: str) -> Any:
    """The standard decoder's value of ``line``, which may hold what orjson refuses or reads as a
    float (an integer beyond 64 bits, half a surrogate pair): refused here, as the format's limits
    (docs/match-log.md, Limits), before anything stores or hashes it."""
    obj = _std_decode(line)
    problem = _out_of_range(obj)
    if problem is not None:
        raise _NotJSON(f"{problem} (docs/match-log.md, Limits)")
    return obj

_loads, _orjson_error = orjson.loads, orjson.JSONDecodeError


def _members(obj: Any) -> int:
    """How many keys the objects in ``obj`` hold, all levels together; -1 if it holds a float."""
    n, stack = 0, [obj]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            n += len(value)
            value = value.values()
        for v in value:
            t = type(v)
            if t is dict or t is list:
                stack.append(v)
            elif t is float:
                return -1
    return n


def _decode_line(line: str) -> Any:
    """``_decode(line)``: the same value, or the same exception, without a Python call per object.

    orjson parses the line; its value is taken when it is an object that holds every key the line
    writes, and no float (``_parse_float`` turns 2.0 into 2; orjson reads an integer beyond 64 bits
    as a float, the standard decoder as an int). A line with no ``:`` inside its strings has one
    ``:`` per key it writes, and orjson keeps one of two equal keys in an object, so the objects it
    returns hold as many keys as the line has ``:`` exactly when no key is repeated and no string
    holds a ``:``. Any other line (a repeated key, a ``:`` in a string, a float, bad JSON: orjson
    refuses what the standard decoder refuses, and more) is decoded again by ``_decode``, whose
    value or error stands.
    """
    try:
        obj = _loads(line)
    except _orjson_error:
        return _decode(line)
    return _decoded(line, obj)


def _plain_object(line: str, obj: dict) -> bool:
    """Whether ``obj``, what orjson read from ``line``, a line of one object whose values are plain
    or plain lists, is what the standard decoder reads: one ``:`` per key (no key repeated, no ``:``
    inside a string) and no float anywhere."""
    if line.count(":") != len(obj):
        return False
    for v in obj.values():  # (a loop over the few values: a set of their types cost twice as much)
        t = type(v)
        if t is float:
            return False
        if t is list:
            for x in v:
                if type(x) is float:
                    return False
    return True


def _decoded(line: str, obj: Any) -> Any:
    """``_decode_line(line)`` given ``obj``, what orjson read from ``line``."""
    if type(obj) is dict:
        if line.count("{") == 1 and line.count("[") < 2:  # one object, its values plain or plain lists
            if _plain_object(line, obj):
                return obj
        else:
            members = _members(obj)  # -1: a float
            if line.count(":") == members:
                return obj
            if members >= 0 and "\\" not in line and _key_colons(line) == members:
                return obj
    return _decode(line)


def _key_colons(line: str) -> int:
    """How many keys the objects of a valid JSON ``line`` without a backslash write: its ``:`` outside
    strings. Without a backslash no string holds a ``"``, so splitting at ``"`` gives the text outside
    strings at the even places, and every ``:`` there separates a key from its value (a header's
    times hold ``:`` inside strings, where the plain count of ``_decoded`` sees them too)."""
    n = 0
    for outside in line.split('"')[::2]:
        n += outside.count(":")
    return n


# --- the data -------------------------------------------------------------------------------

class Record(NamedTuple):
    """One action record: its 1-based physical line in the file and the parsed object (a frozen
    value; a named tuple, which the reader makes with ``tuple.__new__`` at a third of a frozen
    dataclass's ``__init__``, a line)."""

    line: int
    data: dict

    @property
    def do(self) -> str:
        return self.data["do"]

    @property
    def by(self) -> str:
        return self.data["by"]


def _canonical(obj: Any) -> bytes:
    """Keys sorted, no whitespace, UTF-8 (not \\u-escaped). orjson writes the very bytes of
    ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` for a record (no
    floats: the schema has integers only), 5x faster; what it cannot write (an integer beyond 64
    bits) goes the stdlib's way."""
    try:
        return _dumps(obj, option=_SORTED)
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass
class MatchLog:
    """One match of a log file. ``header`` and ``records`` are trustworthy only if ``error`` is None
    (on error they hold what was read before it; ``header`` may be the malformed header itself)."""

    source: str
    header_line: int
    header: dict | None
    records: list[Record] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # raw lines, header_line .. last record line
    error: FormatError | None = None
    game: "Game | None" = None  # the game its header key names (None: no readable header)

    @property
    def match_id(self) -> str | None:
        m = self.header.get("match") if self.header is not None else None
        return m if isinstance(m, str) else None

    @property
    def content_sha256(self) -> str:
        """SHA-256 of the canonical JSON of the header and each record, each followed by a newline.

        Canonical: keys sorted, no whitespace, UTF-8 (not \\u-escaped). Line numbers, blank lines,
        key order and spacing do not change it; any value does. Computed once (an import asks for
        it several times); a MatchLog is not changed after it is read.
        """
        cached = self.__dict__.get("_content_sha256")
        if cached is not None:
            return cached
        parts = [] if self.header is None else [_canonical(self.header)]
        parts.extend([_canonical(rec.data) for rec in self.records])
        parts.append(b"")  # each line ends with a newline
        out = self.__dict__["_content_sha256"] = hashlib.sha256(b"\n".join(parts)).hexdigest()
        return out


# --- reading --------------------------------------------------------------------------------

def read_log(path: str | Path) -> list[MatchLog]:
    """Read a log file (``-``: standard input); a missing or empty file raises ``FormatError``
    naming the path. A line that is not UTF-8 rejects its match only (``iter_pieces``)."""
    return list(iter_log(path))


def iter_log(path: str | Path) -> Iterator[MatchLog]:
    """Read a log file one match at a time, in memory bounded by the largest match.

    The file is split at header lines (lines that hold a game's format key, as the parser decides)
    and each piece is parsed with its own line numbers (``parse_piece``).
    """
    for piece in iter_pieces(path):
        yield from parse_piece(piece)


def parse_piece(piece: tuple[str, int, str, "FormatError | None"]) -> list[MatchLog]:
    """The matches of one piece of ``iter_pieces``; a piece with an undecodable byte: each of its
    matches is rejected whole with that error (its header is still read, for the match id)."""
    source, first_line, text, bad = piece
    logs = parse_log(text, source, first_line)
    if bad is not None:
        for log in logs:  # the first error in line order stands
            if log.error is None or (log.error.line or 0) >= (bad.line or 0):
                log.error = bad
        if not logs:
            logs = [MatchLog(source=source, header_line=first_line, header=None, error=bad)]
    return logs


STDIN = "-"


def _open(path: str | Path) -> tuple[str, Any, bool]:
    """(source label, binary file, whether to close it); ``-`` is standard input. A file in UTF-16 (or UTF-32),
    as Windows tools save text, is refused here whole, saying so (``_wide``): it was "not UTF-8: byte 0xff at byte
    offset 0", or bad JSON where no byte order mark opened it."""
    if str(path) == STDIN:
        if not sys.stdin.isatty():  # (a terminal's Ctrl-D is an end of file once: a peek would take it, and the
            _refuse_wide("<stdin>", sys.stdin.buffer, False)  # reading after it waited for more; nobody types UTF-16)
        return "<stdin>", sys.stdin.buffer, False
    source = str(path)
    f = _open_file(path)
    _refuse_wide(source, f, True)
    return source, f, True


def _refuse_wide(source: str, f: Any, close: bool) -> None:
    """``FormatError`` when ``f`` (not read yet) holds text in UTF-16 or UTF-32: its first bytes, peeked."""
    peek = getattr(f, "peek", None)
    try:
        found = _wide(peek(4)[:4]) if peek is not None else None
    except (OSError, ValueError):  # (read as usual: its reading says what fails)
        found = None
    if found is not None:
        if close:
            f.close()
        what, encoding = found
        raise FormatError(f"not UTF-8: the file looks like {what}: a log is UTF-8 text; save it as UTF-8 (an "
                          f"editor's Save as, or iconv -f {encoding} -t UTF-8): nothing of it was read", source=source)


def _wide(head: bytes) -> tuple[str, str] | None:
    """(``UTF-16 (little-endian, ...)``, its name for iconv) when ``head`` (a file's first bytes) opens text in
    UTF-16 or UTF-32: a byte order mark, or a NUL beside each character of a first line (no UTF-8 log has a NUL:
    JSON forbids it raw)."""
    for bom, bits in ((b"\xff\xfe\x00\x00", 32), (b"\x00\x00\xfe\xff", 32), (b"\xff\xfe", 16), (b"\xfe\xff", 16)):
        if head.startswith(bom):
            little = head[0] == 0xff
            return (f"UTF-{bits} ({'little' if little else 'big'}-endian, from its byte order mark)",
                    f"UTF-{bits}{'LE' if little else 'BE'}")
    if len(head) == 4 and head[0] and not head[1] and head[2] and not head[3]:
        return "UTF-16 (little-endian: a NUL byte after each character)", "UTF-16LE"
    if len(head) == 4 and not head[0] and head[1] and not head[2] and head[3]:
        return "UTF-16 (big-endian: a NUL byte before each character)", "UTF-16BE"
    return None


def _open_file(path: str | Path) -> Any:
    """``path`` opened to read (``files.open_regular``), or ``FormatError`` saying why it cannot be."""
    from zx_events.files import NotRegular, open_regular

    source = str(path)
    try:
        return open_regular(path)[0]
    except NotRegular as e:  # a FIFO waited for a writer, a link to /dev/zero never ended: never opened to read
        raise FormatError(f"not a regular file: {source} is {e.what}; a log is a file (- reads standard input): "
                          f"nothing of it was read", source=source) from None
    except FileNotFoundError:
        raise FormatError(f"log file not found: {source}", source=source) from None
    except IsADirectoryError:
        raise FormatError(f"not a file: {source}", source=source) from None
    except PermissionError:
        raise FormatError(f"cannot read {source}: permission denied", source=source) from None
    except OSError as e:  # a link that leads back to itself (ELOOP), a name too long, a failing disk: this file
        raise FormatError(f"not readable: {_reason(e)}: nothing of it was read", source=source) from None


def _reason(e: OSError) -> str:
    """Why a log could not be opened, in words (the system's, lower-cased), with what it means where that is not
    plain: a chain of links that comes back to where it started never reaches a file."""
    import errno

    text = (e.strerror or str(e)).lower()
    if e.errno == errno.ELOOP:
        return f"{text} (a loop of links, or a chain of too many)"
    return text


BLOCK = 1 << 22  # bytes read at a time by iter_pieces
LONG_LINE = 4 * MAX_LINE + 4  # bytes: a line this long holds more than MAX_LINE characters in any UTF-8
Piece = tuple[str, int, str, "FormatError | None"]


class _Splitter:
    """The state of one file's split: the current piece's parts, its first line and first error."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.parts: list[str] = []
        self.start = 1  # file line of the piece's first line
        self.bad: FormatError | None = None
        self.no = 0  # file lines seen so far
        self.offset = 0  # bytes seen so far
        self.seen = False  # a line that is not only whitespace
        self.size = 0  # characters in parts
        self.lines = -1  # lines in parts, counted once size could hold too many (-1: not yet)
        self.over = False  # the piece passed a limit: its lines after the first are dropped
        self.ids: dict[str, tuple[int, int]] = {}  # the match ids of the file's pieces so far (piece_error)
        self.head: tuple[str | None] | None = None  # the piece's match id, read when its header ended the piece before

    def _cut(self, start: int, following: str | None = None) -> Piece:
        """The piece read so far; the next one starts at line ``start`` with the header ``following`` (None: the
        end of the file), read once here: an action record too (a ``do``) is the piece's error (its match may end
        with it: ``_stray``, as ``_read_matches`` says of the match it starts), and its match id the next piece's."""
        text = "".join(self.parts)
        nxt = None if following is None else _header_obj(following)
        if nxt is not None and "do" in nxt and self.bad is None:
            self.bad = _stray(nxt, start, self.source, True)
        mid = self.head[0] if self.head is not None else _match_id(text.partition("\n")[0])
        following_id = _id_of(nxt)
        error = piece_error(self.ids, self.source, self.start, text, mid, following_id, start)
        if error is not None:  # (at the header: before any other error of the piece)
            self.bad = error
        piece = (self.source, self.start, text, self.bad)
        self.parts, self.start, self.bad, self.size, self.lines, self.over = [], start, None, 0, -1, False
        self.head = (following_id,)
        return piece

    def _add(self, text: str) -> None:
        """Add ``text`` (whole lines, or a last line without its newline) to the piece, within the
        limits of one match (``MAX_MATCH_LINES``, ``MAX_MATCH_CHARS``): a match past one keeps its
        first line (its header, for the match id) and the limit's error, and its other lines are
        dropped as they come, so a hostile file costs its match no more memory than the limit."""
        if self.over:
            return
        self.parts.append(text)
        self.size += len(text)
        if self.size <= MAX_MATCH_LINES:  # (fewer characters than the line limit: fewer lines too)
            return
        if self.lines < 0:
            self.lines = sum(t.count("\n") for t in self.parts)
        else:
            self.lines += text.count("\n")
        if self.size > MAX_MATCH_CHARS or self.lines > MAX_MATCH_LINES:
            what = (f"more than {MAX_MATCH_LINES:,} lines" if self.lines > MAX_MATCH_LINES
                    else f"more than {MAX_MATCH_CHARS >> 20} MiB of lines")
            first = self.parts[0].partition("\n")
            self.parts = [first[0] + first[1]]
            self.over = True
            if self.bad is None:
                self.bad = FormatError(f"match too long: {what} (docs/match-log.md, Limits): the match is "
                                       f"rejected whole", source=self.source, line=self.start)

    def block(self, data: bytes) -> Iterator[Piece]:
        """Complete lines (and at the very end of the file, a last line without a newline)."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            lines = data.split(b"\n")  # a file's lines end at b"\n" only (not bytes.splitlines' \r)
            last = lines.pop()
            for raw in lines:
                yield from self.line(raw + b"\n")
            if last:
                yield from self.line(last)
            return
        if self.no == 0 and text.startswith("\ufeff"):
            text = text[1:]
        self.seen = self.seen or (text != "" and not text.isspace())  # (a file of one byte order mark is empty)
        if text == "":  # a file of one byte order mark: one empty line, as the line-by-line reader has it
            self._add(text)
        pos, first_no = 0, self.no  # pos: where the unconsumed text starts; first_no: lines before it
        search = (_NAMES_KEY if "\\" in text else _NAMES_KEY_PLAIN).search  # (no backslash: no escape; 2x faster)
        m = search(text)
        while m is not None:
            ls = text.rfind("\n", 0, m.start()) + 1
            le = text.find("\n", m.end())
            le = len(text) if le < 0 else le + 1
            line = text[ls:le]
            if (self.parts or ls > pos) and _starts_match(line):
                no = first_no + text.count("\n", pos, ls) + 1  # the file line of the header
                if ls > pos:
                    self._add(text[pos:ls])
                yield self._cut(no, line)
                first_no, pos = no - 1, ls
            m = search(text, le)
        if pos < len(text):
            self._add(text[pos:])
        self.no += data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        self.offset += len(data)

    def long_line(self, dropped: int) -> None:
        """A line of more than ``LONG_LINE`` bytes, dropped as it was read (``dropped`` bytes, its
        newline included): an empty line in its place, its error the piece's (the first one stands)."""
        self.no += 1
        self.offset += dropped
        self.seen = True
        if self.bad is None:
            self.bad = FormatError(f"line too long: more than {LONG_LINE:,} bytes (at most {MAX_LINE:,} characters; "
                                   f"docs/match-log.md, Limits)", source=self.source, line=self.no)
        self._add("\n")

    def line(self, raw: bytes) -> Iterator[Piece]:
        """One line at a time, for a block with a byte that is not UTF-8."""
        self.no += 1
        no = self.no
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line = raw.decode("utf-8", errors="replace")  # to find the match it belongs to; never stored
            error = FormatError(f"not UTF-8: byte 0x{raw[e.start]:02x} at byte offset {self.offset + e.start} "
                                f"(column {len(raw[:e.start].decode('utf-8', 'replace')) + 1}) cannot be "
                                f"decoded: the match is rejected whole", source=self.source, line=no)
        else:
            error = None
        self.offset += len(raw)
        if no == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if self.parts and _names_header_key(line) and _starts_match(line):
            yield self._cut(no, line)
        if error is not None and self.bad is None:
            self.bad = error
        self.seen = self.seen or (line != "" and not line.isspace())
        self._add(line)


def iter_pieces(path: str | Path, block: int = BLOCK, stream: Any = None) -> Iterator[Piece]:
    """``(source, first line, text, error)`` for each match of a log file (``-``: standard input),
    unparsed (see ``iter_log``).

    ``error`` is None, or the ``FormatError`` of the first line of the piece that is not UTF-8
    (``FILE:LINE``, the byte and its offset in the file): the match holding it is rejected whole,
    and the matches after it are read as usual. A missing file raises ``FormatError``, and so does
    an empty one (no match in it).

    The file is read a block at a time: a block that decodes as UTF-8 is split with ``str.find`` and
    ``str.count`` at the lines that name a format key, however written (``_NAMES_KEY``; each
    confirmed by ``_starts_match``); a block with an undecodable byte is split line by line
    (``_Splitter.line``). Both give the pieces a line-by-line reading gives
    (tests/test_logformat_split.py); the block way costs a tenth of it.
    Memory is bounded by the block size and the limits of one match (``MAX_MATCH_LINES``,
    ``MAX_MATCH_CHARS``); a line that runs past ``LONG_LINE`` bytes without ending (a file of
    zeros, an endless pipe) is dropped as it is read, an error of its match. ``stream``: a binary file
    already open (a bundle's member, ``zx verify --bundle``), read as ``path``'s, left open."""
    source, f, close = (str(path), stream, False) if stream is not None else _open(path)
    try:
        s = _Splitter(source)
        carry = b""
        dropping = -1  # bytes dropped so far of a line too long to keep (-1: none under way)
        while True:
            try:
                chunk = f.read1(block)  # what is there (a pipe is read as it comes), at most a block
            except OSError as e:  # a disk or network file system failing (EIO): this file, named; the others go on
                raise FormatError(f"cannot read {source}: {e.strerror or e} (at byte {s.offset + len(carry)}); the "
                                  f"match being read is not imported", source=source) from None
            if not chunk:
                break
            if dropping >= 0:  # the rest of a too-long line, up to its newline
                end = chunk.find(b"\n")
                if end < 0:
                    dropping += len(chunk)
                    continue
                s.long_line(dropping + end + 1)
                dropping, chunk = -1, chunk[end + 1:]
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line ends in it yet
                if len(data) > LONG_LINE:
                    dropping, carry = len(data), b""
                else:
                    carry = data
                continue
            carry = data[cut:]
            yield from s.block(data[:cut])
        if dropping >= 0:  # the file ends inside the too-long line
            s.long_line(dropping)
        if carry:
            yield from s.block(carry)
        if s.parts:
            yield s._cut(0)
        if not s.seen:
            raise FormatError(f"{source} is empty: no match in it (a log starts with a header record with the "
                              f"key {_KEYS_TEXT})", source=source)
    finally:
        if close:
            f.close()


# the JSON structure of a line, whatever its numbers: what is a header does not hang on a limit of them
_structure = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=str).decode


def _starts_match(line: str) -> bool:
    """Whether the parser takes ``line`` for a header (a new match of its own): an object with a
    format key, however written (in any place, ``\\u``-escaped, after a byte order mark), or a broken
    line that opens an object with a format key first (a broken header). A JSON value that is no
    object is never a header (a record is an object), and a broken line that names a format key
    further on may hold the end of the match before it (two logs joined without a newline): it is no
    place to cut; the parser rejects the match it ends and starts a broken one there
    (``_read_matches``). A header the parser refuses (a number too long, a key twice, nested past
    ``MAX_DEPTH``) is still a header: a match of its own, rejected with that error (but one nested
    past both decoders' limits, a thousand levels, is a broken line). orjson reads the line first
    (a header: a fifth of the standard decoder's time): what it reads is an object exactly when the
    standard decoder's is, with the same keys (of two equal keys both keep one); a line it refuses
    (it refuses more) is the standard decoder's to judge, its numbers read as text."""
    if line.startswith("\ufeff"):  # a byte order mark: dropped at the start of a match (parse_log)
        line = line[1:]
    try:
        obj = _loads(line)
    except _orjson_error:
        try:
            obj = _structure(line)
        except (ValueError, RecursionError):
            return _OPENS_HEADER.match(line) is not None
    return type(obj) is dict and _has_header_key(obj)


def parse_log(text: str, source: str, first_line: int = 1) -> list[MatchLog]:
    """Split ``text`` into matches and read each one. An empty text gives an empty list.

    ``first_line`` is the file line of the text's first line (``iter_log`` parses a file in pieces)."""
    if text.startswith("\ufeff"):  # a UTF-8 byte order mark is not part of the first record
        text = text[1:]
    raw = text.split("\n")  # physical lines; str.splitlines would also split on \x1c, \u2028...
    unterminated = raw[-1] != ""  # the last line has no newline
    if not unterminated:
        raw.pop()
    gc_was_on = gc.isenabled()
    gc.disable()  # only acyclic JSON values are built here; collections would be pure overhead
    try:
        return _read_matches(raw, source, unterminated, first_line - 1)
    finally:
        if gc_was_on:
            gc.enable()


@dataclass(frozen=True, slots=True)
class _Bad:
    """A line that is not JSON: the message, and the column where the decoder stopped."""

    message: str
    column: int | None = None


def _read_matches(raw: list[str], source: str, unterminated: bool, base: int = 0) -> list[MatchLog]:
    matches: list[MatchLog] = []
    cur: MatchLog | None = None
    records: list[Record] = []
    start = end = 0  # 0-based index range of cur's lines
    skipping = True  # True before the first header and after an error: look for the next header
    fast = fast_effect = fmt = None  # the current match's game's validators
    decode, has_key = _decode_line, _has_header_key
    no_header_key = _HEADER_KEY_SET.isdisjoint  # _has_header_key's test, without a Python call a line
    invalid = fastjsonschema.JsonSchemaException
    loads, not_json, plain_object, new, record, decoded = _loads, _orjson_error, _plain_object, tuple.__new__, Record, _decoded

    def close() -> None:
        if cur is not None:
            cur.records = records
            cur.lines = raw[start:end + 1]

    for i, line in enumerate(raw):
        if not line or line.isspace():
            continue
        # the hot path: an action record on one flat line (one object; its values plain, or one plain
        # list) that orjson reads as the standard decoder does (_decoded's first case: _plain_object;
        # no deeper than 2, so within MAX_DEPTH); any other line takes the general way
        read = None  # what orjson read from the line, a dict (for the general way: not read twice)
        hot = False
        if not skipping and len(line) <= MAX_LINE:
            try:
                obj = loads(line)
            except not_json:
                obj = None
            if type(obj) is dict:
                read = obj
            hot = (read is not None and line.count("{") == 1 and line.count("[") < 2 and plain_object(line, obj)
                   and no_header_key(obj))  # a header takes the general way
        if hot:  # obj is the record, as the general way below would read it: validated below
            pass
        elif len(line) > MAX_LINE:
            obj = _Bad(f"line too long: {len(line):,} characters (at most {MAX_LINE:,}; docs/match-log.md, Limits)")
        else:
            try:
                obj = decode(line) if read is None else decoded(line, read)
                if line.count("[") + line.count("{") > MAX_DEPTH and _depth(obj) > MAX_DEPTH:
                    obj = _Bad(f"nested too deep: more than {MAX_DEPTH} levels of arrays and objects "
                               f"(docs/match-log.md, Limits)")
            except json.JSONDecodeError as e:
                obj = _Bad(e.msg, e.colno)
            except (_NotJSON, DuplicateKey) as e:
                obj = _Bad(str(e))
            except RecursionError:
                obj = _Bad(f"nested too deep: more than {MAX_DEPTH} levels of arrays and objects "
                           f"(docs/match-log.md, Limits)")
            except ValueError as e:  # Python's limit on integer digits
                obj = _Bad(f"number too long: an integer of more than {MAX_DIGITS} digits ({str(e).split(':')[0]}; "
                           f"docs/match-log.md, Limits)")
        is_dict = type(obj) is dict
        if hot or is_dict and not skipping and no_header_key(obj):  # an action record
            end = i
            try:
                do = obj["do"]
                v = fast_effect[obj["op"]] if do == "effect" else fast[do]  # type: ignore[index]
            except (KeyError, TypeError):  # no do, an unknown kind, an unhashable value...
                v = None
            try:
                if v is None:
                    raise invalid("no validator for this record kind")
                v(obj)
            except invalid as e:
                cur.error = FormatError(fmt.explain(obj, e), source=source, line=base + i + 1)  # type: ignore
                skipping = True
                continue
            records.append(new(record, (base + i + 1, obj)))
            continue

        no = base + i + 1
        if is_dict:
            header = has_key(obj)
        else:  # a broken line that names a format key starts a broken match; a JSON value that is no object never
            header = type(obj) is _Bad and _names_header_key(line)
            if header and cur is not None and not _starts_match(line):  # the key further on: a record may end there
                end = i
                if cur.error is None:
                    cur.error = _joined(obj, no, unterminated and i == len(raw) - 1, source)
        stray = is_dict and header and "do" in obj  # an action record holding a format key, or a header a "do"
        if stray and cur is not None:  # it ends the match before, whose record it may be: that one is rejected too
            end = i  # (its first part was stored, a match cut short, and the whole log refused later: QA round 32)
            if cur.error is None:
                cur.error = _stray(obj, no, source, True)
        if header:  # a header: a new match
            close()
            cur = MatchLog(source=source, header_line=no, header=obj if is_dict else None)
            matches.append(cur)
            records = []
            start = end = i
            skipping = True
            if not is_dict:
                cur.error = _line_error(obj, no, unterminated and i == len(raw) - 1, source)
                continue
            if stray:
                cur.error = _stray(obj, no, source, False)
                continue
            try:
                game = games.get(games.HEADER_KEYS[_header_key(obj)])  # type: ignore[index]
            except FormatError as e:
                cur.error = e.at(source, no)
                continue
            cur.game = game
            fmt = game.log_format
            fast, fast_effect = fmt.action, fmt.effect
            try:
                fmt.header(obj)
                fmt.check_header_values(obj)
            except invalid as e:
                cur.error = FormatError(fmt.explain(obj, e), source=source, line=no)
                continue
            except FormatError as e:
                cur.error = e.at(source, no)
                continue
            skipping = False
        elif cur is None:  # a line before the first header: a match of its own, in error
            cur = MatchLog(source=source, header_line=no, header=None)
            matches.append(cur)
            start = end = i
            cur.error = (None if is_dict else _line_error(obj, no, unterminated and i == len(raw) - 1, source)) \
                or FormatError(BEFORE_HEADER, source=source, line=no)
        else:
            end = i
            if not skipping:  # not an object (the hot path took the objects)
                cur.error = _line_error(obj, no, unterminated and i == len(raw) - 1, source)
                skipping = True
    close()
    return matches


def piece_error(ids: dict[str, tuple[int, int]], source: str, line: int, text: str, mid: str | None,
                following: str | None, next_line: int) -> FormatError | None:
    """The error of a file's piece (``text``, from ``line``, its header's match id ``mid``; the next piece starts at
    ``next_line``, its header's match id ``following``, None at the end of the file or without one; ``_match_id``
    reads them) whose match id an earlier match of the file has, in other words
    (``ids``: the id of each piece so far, with its line and the hash of its text; an identical copy is read as
    usual: "unchanged"), or that is a header alone followed by the same match's header (a header written
    twice). Two matches of one file with one id: the first was stored, the second refused as different
    content, and a header written twice stored a match of no record that then refused the match (QA round 32)."""
    if mid is None:
        return None
    if following == mid and not text.partition("\n")[2].strip():
        return FormatError(f"a header with no record after it, then the same match's header again at line "
                           f"{next_line} (a header written twice?): this one is not read, the match is read from "
                           f"line {next_line}", source=source, line=line)
    first = ids.get(mid)
    if first is None:
        ids[mid] = (line, hash(text))
        return None
    if first[1] == hash(text):  # the same lines again: the same match ("unchanged", as in another file)
        return None
    return FormatError(f"match id {quoted(mid)} is the id of the match at line {first[0]} of this file too, with "
                       f"other records: each match of a file needs an id of its own; this one is rejected (the one "
                       f"at line {first[0]} is read as usual)", source=source, line=line)


def _header_obj(line: str) -> dict | None:
    """The object of a line as orjson reads it (a byte order mark before it left out), or None: no object."""
    try:
        obj = _loads(line[1:] if line.startswith("\ufeff") else line)
    except _orjson_error:
        return None
    return obj if type(obj) is dict else None


def _id_of(obj: dict | None) -> str | None:
    """The match id of a header's object (its ``match``, a string), or None: no header, or no id to read."""
    if obj is None or not _has_header_key(obj):
        return None
    mid = obj.get("match")
    return mid if type(mid) is str else None


def _match_id(line: str) -> str | None:
    """The match id of a header line, or None."""
    return _id_of(_header_obj(line))


def _stray(obj: dict, no: int, source: str, before: bool) -> FormatError:
    """The error of a line that is an action record (``do``) and holds a format key: a header's key in a record
    (a slip of an editor or a tool), or a ``do`` in a header, no one can tell which. It starts a match (the
    splitter cuts there) and ends the one before it: both are rejected (``before``: the error of the one
    before), as two logs joined on one line are (``_joined``)."""
    key = next((k for k in HEADER_KEYS if k in obj), "")
    what = (f"an action record (\"do\") that also holds the format key {quoted(key)}, a header's, which starts a "
            f"match, ends this one here (it may be its record)")
    return FormatError(f"{what}: the match is rejected whole (drop the key from the record, or the \"do\" from the "
                       f"header)" if before else f"an action record (\"do\") that also holds the format key "
                       f"{quoted(key)}, a header's: read as a header, it is none; the match it starts is rejected "
                       f"(and the one before it, whose record it may be)", source=source, line=no)


def _joined(obj: _Bad, no: int, last_unterminated: bool, source: str) -> FormatError:
    """The error of the match a broken line ends when the line names a format key after its start: the
    match's last record and the next match's header may share it (two logs joined without a newline)."""
    e = _line_error(obj, no, last_unterminated, source)
    return FormatError(f"{e.message}; the line names a format key ({_KEYS_TEXT}) after its start: a record of "
                       f"this match and the next match's header on one line (two logs joined without a newline "
                       f"between them?): the match is rejected whole", source=source, line=no)


def _line_error(obj: object, no: int, last_unterminated: bool, source: str) -> FormatError:
    """The error of a line that is not a JSON object."""
    if isinstance(obj, _Bad):
        if obj.column is None:
            return FormatError(obj.message, source=source, line=no)
        if last_unterminated:
            at = "" if obj.message.endswith(" at") else " at"  # "Unterminated string starting at"
            return FormatError(f"{TRUNCATED} ({obj.message}{at} column {obj.column})", source=source, line=no)
        return FormatError(f"bad JSON: {obj.message} (column {obj.column})", source=source, line=no)
    return FormatError(f"a record must be a JSON object, got {_json_type(obj)}", source=source, line=no)


# --- card codes -----------------------------------------------------------------------------

def check_codes(log: MatchLog, catalog) -> None:
    """Raise ``FormatError`` (with the line and the field) for the first card code not in ``catalog``.

    Looks at the codes the header names (the game's ``header_codes``: decks, Player cards...) and at
    every code-valued field of every record (which fields hold codes is read from the game's schema;
    a field that holds "a position or a card code" counts when it is not a position). The message
    names the field as the schema's do (``setup.hand item 3: unknown card code 'Z99-999' (not in
    catalog sample)``, ``players.P2.deck: ...``); a value of a position-or-code field that is
    neither says what the field holds (``effect.source must be a Square (a1..c3) or a card code, got
    'd4' (no card code of catalog sample)``).
    """
    game = log.game or games.get(games.DEFAULT)
    fmt = game.log_format

    def unknown(code: str, line: int, where: str) -> FormatError:
        named = not_ascii(code)  # (a look-alike: 'R01‐001' with U+2010 HYPHEN)
        return FormatError(f"{where}: unknown card code {quoted(code)} ({named + '; ' if named else ''}not in catalog "
                           f"{catalog.name})", source=log.source, line=line)

    def neither(rec: Record, name: str, key: str, where: str) -> FormatError:
        ref = fmt.defs[name].get("properties", {}).get(key, {}).get("$ref", "").rsplit("/", 1)[-1]
        title = fmt.defs.get(ref, {}).get("title") or "a position or a card code"
        return FormatError(f"{where} must be {title}, got {quoted(rec.data[key])} (no card code of catalog "
                           f"{catalog.name})", source=log.source, line=rec.line)

    if log.header is not None and log.header_line:
        for where, code in game.header_codes(log.header):
            if code not in catalog:
                raise unknown(code, log.header_line, where)
    fields_of: dict[Any, tuple] = {}  # (do, op) -> the code-valued fields of that record kind
    code_fields, is_position = fmt.code_fields, fmt.is_position
    known = _codes_of(catalog)
    for rec in log.records:  # fmt.def_name and fmt.codes_of, with the fields looked up once per kind
        d = rec.data
        do = d.get("do")
        kind = (do, d.get("op")) if do == "effect" else do
        try:
            fields = fields_of.get(kind)
        except TypeError:  # an unhashable do or op: that record's own way
            fields = None
            kind = None
        if fields is None:
            name = fmt.def_name(d)
            fields = code_fields.get(name, ()) if name is not None else ()
            if kind is not None and fmt.header_key not in d:
                fields_of[kind] = fields
        for key, what in fields:
            value = d.get(key)
            if value is None and key not in d:
                continue
            if what == "code":
                if value not in known:
                    raise unknown(value, rec.line, f"{_prefix(d)}.{key}")
            elif what == "codes":
                for n, code in enumerate(value, 1):
                    if code not in known:
                        raise unknown(code, rec.line, f"{_prefix(d)}.{key} item {n}")
            elif isinstance(value, str) and not is_position(value) and value not in known:
                raise neither(rec, fmt.def_name(d), key, f"{_prefix(d)}.{key}")


def _prefix(record: dict) -> str:
    """What a record's fields are named after in messages, as the schema's (``setup``, ``effect``)."""
    return "effect" if record.get("do") == "effect" else str(record.get("do"))


def _codes_of(catalog: Any) -> Any:
    """What ``code in catalog`` asks, without a Python call a code: the dict of cards of a catalog
    whose ``in`` is ``CardSet``'s (a look-up in that dict), else the catalog itself."""
    from zx_events.games.base import CardSet

    cards = getattr(catalog, "cards", None)
    if type(cards) is dict and type(catalog).__contains__ is CardSet.__contains__:
        return cards
    return catalog
