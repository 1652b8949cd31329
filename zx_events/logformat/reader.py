"""Reading match logs (zxlog 1): JSON Lines in, one ``MatchLog`` per match out.

The reader checks shape and types (the JSON Schema ``match-log.schema.json`` next to this file);
counts and legality are the rules engine's. Every error is a ``FormatError`` with ``FILE:LINE``.

A file holds one or more matches, each starting at a header record (the key ``zxlog``). Each
match is read on its own: a format error sets that match's ``error`` and the reader skips to the
next header, so the other matches in the file still parse.

Validation has two speeds: every record goes through a fastjsonschema validator compiled from the
record kind's ``$defs`` entry (dispatched here on ``do`` and, for effects, ``op``); only a record
that fails is looked at again with jsonschema, to say what is wrong in words.
"""

from __future__ import annotations

import gc
import hashlib
import json
import sys
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

import fastjsonschema
import orjson

from zx_events.games.zx.board import SQUARE_NAMES
from zx_events.errors import FormatError

SCHEMA_FILE = "match-log.schema.json"
SCHEMA: dict = json.loads(resources.files("zx_events.games.zx").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))
_DEFS: dict = SCHEMA["$defs"]

KINDS: tuple[str, ...] = tuple(_DEFS["action"]["properties"]["do"]["enum"])
EFFECT_OPS: tuple[str, ...] = tuple(_DEFS["effect"]["properties"]["op"]["enum"])
VERSION = 1

BEFORE_HEADER = "record before the match header (every match begins with a header record with the key zxlog)"
TRUNCATED = "truncated file: the last line is incomplete JSON"


# --- the two validators -------------------------------------------------------------------

def _def_name(obj: dict) -> str | None:
    """The ``$defs`` entry a record is checked against, or None if its kind is unknown."""
    if "zxlog" in obj:
        return "header"
    do = obj.get("do")
    if do == "effect":
        op = obj.get("op")
        return f"effect_{op}" if isinstance(op, str) and op in EFFECT_OPS else None
    return do if isinstance(do, str) and do in KINDS else None


def _subschema(name: str) -> dict:
    return {"$schema": SCHEMA["$schema"], "$defs": _DEFS, "$ref": f"#/$defs/{name}"}


def _inline(schema: Any) -> Any:
    """``schema`` with every ``$ref`` replaced by the definition (the schema has no recursion).

    The same checks; fastjsonschema then generates one flat function per record kind instead of a
    call (and a formatted path string) per field and per list item: about 30% faster.
    """
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline(_DEFS[schema["$ref"].rsplit("/", 1)[-1]])
        return {k: _inline(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_inline(v) for v in schema]
    return schema


_RECORD_DEFS = ("header", *(k for k in KINDS if k != "effect"), *(f"effect_{op}" for op in EFFECT_OPS))


class _Validators(dict):
    """One plain function per record kind (no if/then chain on the hot path), compiled on the first
    record of its kind: compiling them all took 165 ms of every ``zx`` start-up, read a log or not.
    A key that is not a record kind is a ``KeyError``, as in a plain dict."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names  # key -> $defs entry

    def __missing__(self, key: Any) -> Any:
        v = self[key] = _compile(self.names[key])  # KeyError (or TypeError) for an unknown kind
        return v


@lru_cache(maxsize=None)
def _compile(name: str) -> Any:
    return fastjsonschema.compile({"$schema": SCHEMA["$schema"], **_inline(_DEFS[name])})


_FAST = _Validators({name: name for name in _RECORD_DEFS})
_FAST_ACTION = _Validators({k: k for k in KINDS if k != "effect"})
_FAST_EFFECT = _Validators({op: f"effect_{op}" for op in EFFECT_OPS})
_SLOW: dict[str, Any] = {}  # jsonschema validators, built on the first failure of each kind


def _slow(name: str):
    v = _SLOW.get(name)
    if v is None:
        from jsonschema import Draft202012Validator  # imported only when a record is wrong

        v = _SLOW[name] = Draft202012Validator(_subschema(name))
    return v


# --- JSON decoding --------------------------------------------------------------------------

class _NotJSON(ValueError):
    pass


def _parse_float(text: str) -> int | float:
    # JSON Schema counts 2.0 as an integer; hand the engine an int (and hash it as one)
    value = float(text)
    return int(value) if value.is_integer() else value


MAX_LINE = 1_000_000  # characters in one line (a record is a few hundred)
MAX_DEPTH = 32  # arrays and objects inside each other (records use 4)
MAX_DIGITS = sys.get_int_max_str_digits() or 4300  # digits of one integer (Python's own limit)


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


def _object_pairs(pairs: list[tuple[str, Any]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _NotJSON(f"duplicate key {_q(key)} in one JSON object")
            seen.add(key)
    return obj


_dumps, _SORTED = orjson.dumps, orjson.OPT_SORT_KEYS

_decode = json.JSONDecoder(
    parse_float=_parse_float, parse_constant=_reject_constant, object_pairs_hook=_object_pairs
).decode


# --- the data -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Record:
    """One action record: its 1-based physical line in the file and the parsed object."""

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
        h = hashlib.sha256()
        if self.header is not None:
            h.update(_canonical(self.header) + b"\n")
        for rec in self.records:
            h.update(_canonical(rec.data) + b"\n")
        out = self.__dict__["_content_sha256"] = h.hexdigest()
        return out


# --- reading --------------------------------------------------------------------------------

def read_log(path: str | Path) -> list[MatchLog]:
    """Read a log file (``-``: standard input); a missing or empty file raises ``FormatError``
    naming the path. A line that is not UTF-8 rejects its match only (``iter_pieces``)."""
    return list(iter_log(path))


def iter_log(path: str | Path) -> Iterator[MatchLog]:
    """Read a log file one match at a time, in memory bounded by the largest match.

    The file is split at header lines (lines that hold the key ``zxlog``, as the parser decides)
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
    """(source label, binary file, whether to close it); ``-`` is standard input."""
    if str(path) == STDIN:
        return "<stdin>", sys.stdin.buffer, False
    source = str(path)
    try:
        return source, open(path, "rb"), True
    except FileNotFoundError:
        raise FormatError(f"log file not found: {source}", source=source) from None
    except IsADirectoryError:
        raise FormatError(f"not a file: {source}", source=source) from None
    except PermissionError:
        raise FormatError(f"cannot read {source}: permission denied", source=source) from None


def iter_pieces(path: str | Path) -> Iterator[tuple[str, int, str, FormatError | None]]:
    """``(source, first line, text, error)`` for each match of a log file (``-``: standard input),
    unparsed (see ``iter_log``).

    ``error`` is None, or the ``FormatError`` of the first line of the piece that is not UTF-8
    (``FILE:LINE``, the byte and its offset in the file): the match holding it is rejected whole,
    and the matches after it are read as usual. A missing file raises ``FormatError``, and so does
    an empty one (no match in it).
    """
    source, f, close = _open(path)
    try:
        piece: list[str] = []
        start = 1
        bad: FormatError | None = None
        offset = 0  # of the current line in the file, in bytes
        seen = False
        for no, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                line = raw.decode("utf-8", errors="replace")  # to find the match it belongs to; never stored
                error = FormatError(f"not UTF-8: byte 0x{raw[e.start]:02x} at byte offset {offset + e.start} "
                                    f"(column {len(raw[:e.start].decode('utf-8', 'replace')) + 1}) cannot be "
                                    f"decoded: the match is rejected whole", source=source, line=no)
            else:
                error = None
            offset += len(raw)
            if no == 1 and line.startswith("\ufeff"):
                line = line[1:]
            if piece and '"zxlog"' in line and _starts_match(line):
                yield source, start, "".join(piece), bad
                piece, start, bad = [], no, None
            if error is not None and bad is None:
                bad = error
            seen = seen or not line.isspace()
            piece.append(line)
        if piece:
            yield source, start, "".join(piece), bad
        if not seen:
            raise FormatError(f"{source} is empty: no match in it (a log starts with a header record with the "
                              f"key zxlog)", source=source)
    finally:
        if close:
            f.close()


def _starts_match(line: str) -> bool:
    """Whether the parser takes ``line`` for a header (a new match): an object with ``zxlog``, or a
    broken line that names it."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return True
    return type(obj) is not dict or "zxlog" in obj


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
    fast, fast_effect, fast_header, decode = _FAST_ACTION, _FAST_EFFECT, _FAST["header"], _decode
    invalid = fastjsonschema.JsonSchemaException

    def close() -> None:
        if cur is not None:
            cur.records = records
            cur.lines = raw[start:end + 1]

    for i, line in enumerate(raw):
        if not line or line.isspace():
            continue
        if len(line) > MAX_LINE:
            obj = _Bad(f"line too long: {len(line)} characters (at most {MAX_LINE}; docs/match-log.md, Limits)")
        else:
            try:
                obj = decode(line)
                if line.count("[") + line.count("{") > MAX_DEPTH and _depth(obj) > MAX_DEPTH:
                    obj = _Bad(f"nested too deep: more than {MAX_DEPTH} levels of arrays and objects "
                               f"(docs/match-log.md, Limits)")
            except json.JSONDecodeError as e:
                obj = _Bad(e.msg, e.colno)
            except _NotJSON as e:
                obj = _Bad(str(e))
            except RecursionError:
                obj = _Bad(f"nested too deep: more than {MAX_DEPTH} levels of arrays and objects "
                           f"(docs/match-log.md, Limits)")
            except ValueError as e:  # Python's limit on integer digits
                obj = _Bad(f"number too long: an integer of more than {MAX_DIGITS} digits ({str(e).split(':')[0]}; "
                           f"docs/match-log.md, Limits)")
        is_dict = type(obj) is dict
        if is_dict and not skipping and "zxlog" not in obj:  # the hot path: an action record
            end = i
            try:
                do = obj["do"]
                v = fast_effect[obj["op"]] if do == "effect" else fast[do]
            except (KeyError, TypeError):  # no do, an unknown kind, an unhashable value...
                v = None
            try:
                if v is None:
                    raise invalid("no validator for this record kind")
                v(obj)
            except invalid as e:
                cur.error = FormatError(_explain(obj, e), source=source, line=base + i + 1)  # type: ignore[union-attr]
                skipping = True
                continue
            records.append(Record(base + i + 1, obj))
            continue

        no = base + i + 1
        if "zxlog" in obj if is_dict else '"zxlog"' in line:
            # a header (a broken line that names zxlog is taken for a broken header): a new match
            close()
            cur = MatchLog(source=source, header_line=no, header=obj if is_dict else None)
            matches.append(cur)
            records = []
            start = end = i
            skipping = True
            if not is_dict:
                cur.error = _line_error(obj, no, unterminated and i == len(raw) - 1, source)
                continue
            try:
                fast_header(obj)
                _check_header_values(obj)
            except invalid as e:
                cur.error = FormatError(_explain(obj, e), source=source, line=no)
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


def _check_header_values(header: dict) -> None:
    """What the schema's patterns cannot say: played_at is a real date."""
    played = header.get("played_at")
    if played is not None:
        try:
            datetime.fromisoformat(played)
        except ValueError:
            raise FormatError(f"played_at must be {_DEFS['header']['properties']['played_at']['title']}, "
                              f"got {_q(played)}") from None


# --- card codes -----------------------------------------------------------------------------

def _code_fields() -> dict[str, dict[str, str]]:
    """For each record ``$defs`` entry: field -> 'code' | 'codes' | 'squareOrCode', from the schema."""
    out: dict[str, dict[str, str]] = {}
    for name in _RECORD_DEFS:
        fields = {}
        for key, sub in _DEFS[name].get("properties", {}).items():
            ref = sub.get("$ref", "").rsplit("/", 1)[-1]
            if ref in ("code", "codes", "squareOrCode"):
                fields[key] = ref
        out[name] = fields
    return out


CODE_FIELDS = _code_fields()


_CODE_KEYS = {name: tuple(fields.items()) for name, fields in CODE_FIELDS.items()}


def _codes_of(obj: dict, name: str) -> Iterator[str]:
    for key, kind in _CODE_KEYS.get(name, ()):  # the record's few code-valued keys, not all of them
        value = obj.get(key)
        if value is None and key not in obj:
            continue
        if kind == "code":
            yield value
        elif kind == "codes":
            yield from value
        elif kind == "squareOrCode" and value not in SQUARE_NAMES:
            yield value


def _header_codes(header: dict) -> Iterator[str]:
    players = header.get("players")
    for p in ("P1", "P2"):
        entry = players.get(p) if isinstance(players, dict) else None
        if not isinstance(entry, dict):
            continue
        for key in ("deck", "player_card", "dynamis"):
            value = entry.get(key)
            if isinstance(value, dict):
                yield from value
            elif isinstance(value, str):
                yield value


def check_codes(log: MatchLog, catalog) -> None:
    """Raise ``FormatError`` (with the line) for the first card code not in ``catalog``.

    Looks at the header's decks, Player cards and Dynamis, and at every code-valued field of every
    record (which fields hold codes is read from the schema; ``effect.source`` counts when it is
    not a Square).
    """
    def unknown(code: str, line: int) -> FormatError:
        return FormatError(f"unknown card code {_q(code)} (not in catalog {catalog.name})", source=log.source, line=line)

    if log.header is not None and log.header_line:
        for code in _header_codes(log.header):
            if code not in catalog:
                raise unknown(code, log.header_line)
    for rec in log.records:
        name = _def_name(rec.data)
        if name is None:
            continue
        for code in _codes_of(rec.data, name):
            if code not in catalog:
                raise unknown(code, rec.line)


# --- saying what is wrong -------------------------------------------------------------------

def _q(value: object) -> str:
    """A value as it appears in a message: strings in single quotes, anything else as JSON."""
    if isinstance(value, str) and value.isprintable():
        return f"'{value}'"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return "a number"


def _article(text: str) -> str:
    return ("an " if text[:1] in "aeiou" else "a ") + text


def _resolve(schema: dict | None) -> dict | None:
    while schema is not None and "$ref" in schema:
        schema = _DEFS.get(schema["$ref"].rsplit("/", 1)[-1])
    return schema


def _child(schema: dict | None, key: object) -> dict | None:
    schema = _resolve(schema)
    if schema is None:
        return None
    if isinstance(key, int):
        return schema.get("items")
    props = schema.get("properties", {})
    if key in props:
        return props[key]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _dotted(path: list) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


_RANK = {"additionalProperties": 0, "required": 1, "oneOf": 3}


def _explain(obj: dict, fast_error: Exception) -> str:
    """The friendly message for a record the fast validator rejected."""
    if "zxlog" in obj:
        z = obj["zxlog"]
        if type(z) is not int or z != VERSION:
            return f"zxlog must be {VERSION} (this reader knows version {VERSION})"
        return _explain_against("header", obj, "the header", "", fast_error)
    if "do" not in obj:
        return "a record needs the key 'do' (an action record) or 'zxlog' (a header)"
    do = obj["do"]
    if not isinstance(do, str) or do not in KINDS:
        return f"unknown record kind {_q(do)} (one of {', '.join(KINDS)})"
    if do == "effect":
        if "op" not in obj:
            return "missing required key 'op' in an effect record"
        op = obj["op"]
        if not isinstance(op, str) or op not in EFFECT_OPS:
            return f"unknown effect op {_q(op)} (one of {', '.join(EFFECT_OPS)})"
        return _explain_against(f"effect_{op}", obj, f"an effect {op} record", "effect", fast_error)
    return _explain_against(do, obj, _article(f"{do} record"), do, fast_error)


def _explain_against(name: str, obj: dict, ctx: str, prefix: str, fast_error: Exception) -> str:
    errors = list(_slow(name).iter_errors(obj))
    if not errors:  # the validators disagree (Python's re lets a pattern's $ match before a final
        # newline; fastjsonschema does not): fall back on the fast validator's own finding
        name_ = getattr(fast_error, "name", "") or ""
        title = (getattr(fast_error, "definition", None) or {}).get("title")
        path_ = name_[len("data"):].lstrip(".") if name_.startswith("data") else name_
        value = getattr(fast_error, "value", None)
        if title and path_:
            return f"{prefix + '.' if prefix else ''}{path_} must be {title}, got {_q(value)}"
        return f"{ctx} does not match the schema: {getattr(fast_error, 'message', fast_error)}"

    def rank(e) -> tuple:
        in_then = "then" in e.relative_schema_path
        return (2 if in_then else _RANK.get(e.validator, 4), len(e.absolute_path))

    e = min(errors, key=rank)
    path = list(e.absolute_path)

    def where(p: list) -> str:
        if not p:
            return ctx
        return f"{prefix}.{_dotted(p)}" if prefix else _dotted(p)

    if "then" in e.relative_schema_path:  # a rule between fields (the extensions' dest and target)
        schema: Any = _DEFS[name]  # (jsonschema leaves $ref out of the schema path)
        for step in e.relative_schema_path:
            if step == "then":
                break
            schema = _resolve(schema) if step == "$ref" else schema[step]
        desc = schema["then"].get("description", "") if isinstance(schema, dict) else ""
        return f"{ctx}: {desc or e.message}"
    if e.validator == "additionalProperties":
        props = e.schema.get("properties", {})
        extra = next((k for k in e.instance if k not in props), "?")
        return f"unknown key {_q(extra)} in {where(path)}"
    if e.validator == "required":
        missing = next((k for k in e.validator_value if k not in e.instance), "?")
        return f"missing required key {_q(missing)} in {where(path)}"
    if e.validator == "oneOf":
        keys = [s["required"][0] for s in e.validator_value if "required" in s]
        have = [k for k in keys if k in e.instance]
        return (f"{where(path)} needs exactly one of {' or '.join(map(_q, keys))} "
                f"({'it has both' if have else 'it has neither'})")
    if "propertyNames" in e.relative_schema_path:
        return f"{where(path)} has a key that is not a card code: {_q(e.instance)}"

    # a value of the wrong type or out of range: name the field with its schema's title
    titled: list[tuple[int, str]] = []  # (depth, title) along the path
    schema = _DEFS[name]
    for depth, key in enumerate(path, 1):
        schema = _child(schema, key)
        node = _resolve(schema)
        if node is None:
            break
        title = (schema or {}).get("title") or node.get("title")
        if title:
            titled.append((depth, title))
    if not titled:
        return f"{where(path)}: {e.message}"
    depth, title = titled[-1]
    if isinstance(path[depth - 1], int) and len(titled) > 1 and titled[-2][0] == depth - 1:
        # an item of a list: name the list ("draw.cards must be an array of card codes")
        depth, title = titled[-2]
        item = path[depth]
        return f"{where(path[:depth])} must be {title} (item {item + 1} is {_q(_at(obj, path[:depth + 1]))})"
    return f"{where(path[:depth])} must be {title}, got {_q(_at(obj, path[:depth]))}"


def _at(obj: Any, path: list) -> Any:
    for key in path:
        obj = obj[key]
    return obj
