"""The X610Z board file (``x610zboard`` 1) and the geometry the rules need (600-605, 202.9-202.12).

A board is dots joined by lines (600.2-600.3). The rules text fixes the kinds of dot but not the
printed board, so every match names a board file, pinned like the card catalog by name and SHA-256.
Geometry is layered as in python-chess: ``step_kind`` (is a step a line, a warp, or neither?),
``turn_angle`` / ``sharp_turns`` (202.9), then whole paths.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from zx_events.errors import FormatError, cut, decoded, shown
from zx_events.files import NotRegular, not_regular, read_limited
from zx_events.games.base import is_dir, is_file, not_found
from zx_events.games.schema import MAX_DEPTH, MAX_DIGITS, DuplicateKey, quoted, unique_keys

KINDS = ("start", "end", "no_attack", "quest", "normal")
DOT_ID = re.compile(r"[A-Za-z0-9]{1,8}")
START_DOTS = 6  # 105.2a
SHARP = 90.0  # glossary "Sharp Turn: a turn of less than 90 degrees"
TOLERANCE = 0.5  # (choice) coordinates are rounded: an angle within 0.5 degree of 90 is not sharp
MAX_BOARD = 1 << 20  # bytes (and characters) of a board file, 1 MiB (the shipped one: 2 KB; docs/match-log-x610z.md)
SECTION = "docs/match-log-x610z.md, Board file"  # what an error of a board file's shape cites (one citing no rule)


@dataclass(frozen=True, slots=True)
class Dot:
    id: str
    kind: str
    x: float
    y: float

    @property
    def is_start(self) -> bool:
        return self.kind == "start"

    @property
    def is_end(self) -> bool:
        return self.kind == "end"

    @property
    def no_attack(self) -> bool:
        """603.1, 601.7: red No Attack Dots, and every Starting Dot."""
        return self.kind in ("no_attack", "start")

    @property
    def warp(self) -> bool:
        """601.6, 602.4: Starting and Ending Dots are Warp Dots."""
        return self.kind in ("start", "end")


@dataclass(frozen=True)
class Board:
    name: str
    sha256: str
    dots: dict[str, Dot]
    # dot -> neighbour -> heading (degrees) of the line leaving dot towards neighbour
    links: dict[str, dict[str, float]] = field(repr=False)
    opposite: dict[str, str] = field(repr=False)
    source: str = ""

    @property
    def ref(self) -> dict:
        """What a stored match pins: the board's name and content hash."""
        return {"name": self.name, "sha256": self.sha256}

    def __contains__(self, dot: object) -> bool:
        return dot in self.dots

    def kind(self, dot: str) -> str:
        return self.dots[dot].kind

    def starts(self) -> list[str]:
        return [d for d, v in self.dots.items() if v.is_start]

    def ends(self) -> list[str]:
        return [d for d, v in self.dots.items() if v.is_end]

    def connected(self, a: str, b: str) -> bool:
        """600.3: a line joins ``a`` and ``b``."""
        return b in self.links.get(a, {})

    def neighbours(self, dot: str) -> list[str]:
        return list(self.links.get(dot, {}))

    def is_warp(self, a: str, b: str) -> bool:
        """604.2: a warp joins a Starting Dot and an Ending Dot (either way), without a line."""
        da, db = self.dots.get(a), self.dots.get(b)
        return (da is not None and db is not None and not self.connected(a, b)
                and ((da.is_start and db.is_end) or (da.is_end and db.is_start)))

    def turn_angle(self, a: str, b: str, c: str) -> float | None:
        """The angle at ``b`` between the lines b-a and b-c, in degrees (180 = straight on);
        None when either step is not along a line (a warp step has no direction, 604.3)."""
        ha = self.links.get(b, {}).get(a)
        hc = self.links.get(b, {}).get(c)
        if ha is None or hc is None:
            return None
        d = abs(ha - hc) % 360.0
        return 360.0 - d if d > 180.0 else d

    def sharp_turns(self, dots: list[str]) -> list[tuple[str, str, str, float]]:
        """202.9: every inner dot of ``dots`` where the path turns by less than 90 degrees."""
        out = []
        for a, b, c in zip(dots, dots[1:], dots[2:]):
            angle = self.turn_angle(a, b, c)
            if angle is not None and angle < SHARP - TOLERANCE:
                out.append((a, b, c, angle))
        return out

    def distance(self, a: str, b: str) -> float:
        pa, pb = self.dots[a], self.dots[b]
        return math.hypot(pa.x - pb.x, pa.y - pb.y)


def _heading(a: Dot, b: Dot) -> float:
    return math.degrees(math.atan2(b.y - a.y, b.x - a.x)) % 360.0


def _at(d: Dot) -> str:
    return f"({d.x:g}, {d.y:g})"


def _check_length(path: tuple, a: Dot, b: Dot) -> None:
    """A line has a length and a direction (202.9 measures turns between lines): its dots are at two
    places, whose differences a 64-bit float holds (x 1e308 and x -1e308 are 2e308 apart: past it)."""
    dx, dy = b.x - a.x, b.y - a.y
    if not (math.isfinite(dx) and math.isfinite(dy) and math.isfinite(math.hypot(dx, dy))):
        raise _Bad(path, f"{a.id}-{b.id} is longer than a 64-bit float holds: {a.id} at {_at(a)}, {b.id} at "
                         f"{_at(b)} (coordinates are drawing units, like the shipped board's -4 to 4; 202.9 measures "
                         f"the turns between lines)", None)
    if dx == 0 and dy == 0:
        raise _Bad(path, f"{a.id}-{b.id} has no length: {a.id} and {b.id} are both at {_at(a)} (a line joins "
                         f"two places; 202.9 measures the turns between lines)", None)


def _check_apart(path: tuple, at: str, to: str, out: dict[str, float], others: set[str]) -> None:
    """Two straight lines leaving one dot in the same direction lie on each other: the turn between them,
    0 degrees, is made up (a dot placed far away, at 1e308, leaves every other dot in one direction from
    it)."""
    for other in others:
        d = abs(out[to] - out[other]) % 360.0
        if min(d, 360.0 - d) < TOLERANCE:
            raise _Bad(path, f"{at}-{to} leaves {at} in the same direction as {at}-{other} ({out[to]:.0f} degrees): "
                             f"two straight lines lie on each other (move a dot, or give a curved line its heading; "
                             f"202.9 measures the turns between lines)", None)


def _got(value: object) -> str:
    """A value of the board file as an error echoes it: a string quoted (``shown``), anything else as JSON, as the
    file has it (Python's None, True, ['A1'] and {'id': ...} were printed), cut like ``shown``."""
    if isinstance(value, str):
        return shown(value)
    return cut(json.dumps(value, ensure_ascii=False, default=str))


class _OutOfRange(ValueError):
    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token  # the number as written: its line is found after (json says no position)


def _line_of(body: str, token: str) -> int | None:
    """The line of the first ``token`` (a number as written) outside the strings of ``body``."""
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|([-+0-9.eEa-zA-Z]+)', body):
        if m.group(1) == token:
            return body.count("\n", 0, m.start()) + 1
    return None


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent, refused past a 64-bit float (``1e400`` was read as inf, then
    refused as "must be a number, got inf")."""
    value = float(text)
    if not math.isfinite(value):
        raise _OutOfRange(f"number out of range: {cut(text, 40)} (past a 64-bit float; docs/match-log.md, Limits)",
                          text)
    return value


def _whole(text: str) -> int:
    """A JSON integer, refused past a 64-bit float's range as ``_finite`` refuses 1e400 (a coordinate of 400 digits
    was "must be a number", with no line)."""
    value = int(text)  # (past 4,300 digits: Python's ValueError, "number too long")
    if abs(value) > sys.float_info.max:
        raise _OutOfRange(f"number out of range: {cut(text, 40)} ({len(text.lstrip('-'))} digits, past a 64-bit "
                          f"float; docs/match-log.md, Limits)", text)
    return value


def _constant(text: str) -> float:
    raise _OutOfRange(f"not JSON: {text} is not a JSON number (docs/match-log.md, Limits)", text)


def _fail(message: str, source: str, line: int | None = None) -> FormatError:
    return FormatError(message, source=source, line=line)


def _number(v: object) -> bool:
    """A finite JSON number (not true/false; an integer of 400 digits, past a float, is none)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def _too_deep(text: str) -> int | None:
    """The line where arrays and objects go more than ``MAX_DEPTH`` deep in the JSON ``text``, or None
    (strings skipped; a loop, never recursion)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return text.count("\n", 0, i) + 1
        elif ch in "]}":
            depth -= 1
    return None


class _Bad(ValueError):
    """A board file's field is wrong: ``path`` is where (``("dots", 3, "kind")``), ``cite`` the rule or spec section
    the message names (None: the message names it already). Raised inside ``parse_board``, which finds the line."""

    def __init__(self, path: tuple, message: str, cite: str | None = SECTION, *, key: tuple | None = None) -> None:
        super().__init__(message)
        self.path, self.message, self.cite, self.key = path, message, cite, key  # key: at that key's line

    def __str__(self) -> str:
        where = _field(self.path)
        text = f"{where}: {self.message}" if where else self.message
        return f"{text} ({self.cite})" if self.cite else text


def _field(path: tuple) -> str:
    """``("dots", 3, "kind")`` -> ``dots[3].kind``; a key the format does not know is echoed quoted and cut, as a
    value is (``note["k..."]``: an object where the file has free text)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[a-z0-9_]{1,16}", part):
            out += f".{part}" if out else part
        else:
            out += f"[{quoted(part)}]"
    return out


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_ATOM = re.compile(r'[^\s,:\[\]{}"]+')
_SPACE = re.compile(r"[ \t\n\r]*")


class _Where:
    """Where each value and key of a board file starts, read by a second pass over its text, made only for an
    error (``json`` gives no position but a syntax error's): ``line(path)``, and ``twice``, the first key given twice
    in the order ``json`` refuses one (the object that closes first), as (object path, offset of the second key)."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.values: dict[tuple, int] = {}
        self.keys: dict[tuple, int] = {}
        self.twice: tuple[tuple, int] | None = None
        self._pos = 0
        try:
            self._value(())
        except (IndexError, AttributeError, ValueError, RecursionError):  # (text past the error json found)
            pass

    def _space(self) -> None:
        self._pos = _SPACE.match(self.body, self._pos).end()  # type: ignore[union-attr]

    def _value(self, path: tuple) -> None:
        self._space()
        self.values.setdefault(path, self._pos)
        ch = self.body[self._pos]
        if ch == "{":
            self._object(path)
        elif ch == "[":
            self._pos += 1
            self._space()
            if self.body[self._pos] == "]":
                self._pos += 1
                return
            i = 0
            while True:
                self._value(path + (i,))
                self._space()
                ch = self.body[self._pos]
                self._pos += 1
                if ch == "]":
                    return
                i += 1
        else:
            self._pos = (_STRING if ch == '"' else _ATOM).match(self.body, self._pos).end()  # type: ignore[union-attr]

    def _object(self, path: tuple) -> None:
        self._pos += 1
        self._space()
        if self.body[self._pos] == "}":
            self._pos += 1
            return
        seen: set[str] = set()
        twice = None
        while True:
            self._space()
            m = _STRING.match(self.body, self._pos)
            key, at = json.loads(m.group()), self._pos  # type: ignore[union-attr]
            if key in seen and twice is None:
                twice = at
            seen.add(key)
            self.keys.setdefault(path + (key,), at)
            self._pos = m.end()  # type: ignore[union-attr]
            self._space()
            self._pos += 1  # the colon
            self._value(path + (key,))
            self._space()
            ch = self.body[self._pos]
            self._pos += 1
            if ch == "}":
                break
        if twice is not None and self.twice is None:
            self.twice = (path, twice)

    def at(self, offset: int) -> int:
        return self.body.count("\n", 0, offset) + 1

    def line(self, path: tuple, key: tuple | None = None) -> int | None:
        """The line where the value at ``path`` starts, else where the nearest enclosing one does (a missing field:
        its object's line); with ``key``, the line of that key."""
        if key is not None and key in self.keys:
            return self.at(self.keys[key])
        while path not in self.values and path:
            path = path[:-1]
        return self.at(self.values[path]) if path in self.values else None


def parse_board(text: str, *, source: str, name: str | None = None) -> Board:
    """Read an ``x610zboard`` 1 file; every problem is a ``FormatError`` naming FILE, the line where the field
    starts, the field, and the rule or the section of docs/match-log-x610z.md it breaks."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()  # of the text as given (a BOM too, as a catalog's)
    body = text.removeprefix("\ufeff")  # a byte-order mark is allowed, as in a log or a catalog
    deep = _too_deep(body)
    if deep is not None:  # (json would recurse: RecursionError past ~1,000 levels)
        raise _fail(f"nested too deep: more than {MAX_DEPTH} levels of arrays and objects "
                    f"(docs/match-log.md, Limits)", source, deep)
    try:
        # a key given twice is refused, as in a log record; NaN, Infinity and 1e400 too
        doc = json.loads(body, object_pairs_hook=unique_keys, parse_float=_finite, parse_int=_whole,
                         parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise _fail(f"not JSON: {e.msg}", source, e.lineno) from None
    except _OutOfRange as e:
        raise _fail(str(e), source, _line_of(body, e.token)) from None
    except DuplicateKey as e:  # at the second key, in the object json refused (the first to close with one)
        where = _Where(body)
        path, at = where.twice if where.twice is not None else ((), None)
        raise _fail(str(_Bad(path, cut(str(e)))), source, where.at(at) if at is not None else None) from None
    except ValueError as e:  # Python's limit on the digits of an integer
        raise _fail(f"number too long: an integer of more than {MAX_DIGITS} digits ({str(e).split(':')[0]}; "
                    f"docs/match-log.md, Limits)", source) from None
    try:
        bname, dots, links, opposite = _board(doc)
    except _Bad as e:
        raise _fail(str(e), source, _Where(body).line(e.path, e.key)) from None
    if name is not None and name != bname:
        bname = name
    return Board(bname, sha, dots, links, opposite, source)


def _board(doc: object) -> tuple[str, dict[str, Dot], dict[str, dict[str, float]], dict[str, str]]:
    """The fields of a board file read by ``json``: its name, dots, lines and opposing Starting Dots, or ``_Bad``."""
    if not isinstance(doc, dict):
        raise _Bad((), "a board file is a JSON object")
    if type(doc.get("x610zboard")) is not int or doc.get("x610zboard") != 1:  # (true == 1 in Python)
        raise _Bad(("x610zboard",), f"must be 1, got {_got(doc.get('x610zboard'))}")
    extra = set(doc) - {"x610zboard", "name", "note", "dots", "lines", "opposite"}
    if extra:
        raise _Bad((), f"unknown key {shown(sorted(extra)[0])}", key=(sorted(extra)[0],))
    if "name" not in doc:
        raise _Bad((), f"name: missing (a board's name, 1-64 characters A-Za-z0-9._-; {SECTION})", None)
    bname = doc["name"]
    if not isinstance(bname, str) or not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", bname):
        raise _Bad(("name",), f"must be 1-64 characters A-Za-z0-9._-, got {_got(bname)}")
    if "note" in doc and not isinstance(doc["note"], str):
        raise _Bad(("note",), f"must be a string (free text), got {_got(doc['note'])}")
    dots_raw = doc.get("dots")
    if not isinstance(dots_raw, list) or not dots_raw:
        raise _Bad(("dots",), "must be a non-empty list")
    dots: dict[str, Dot] = {}
    for i, d in enumerate(dots_raw):
        where = ("dots", i)
        if not isinstance(d, dict) or set(d) != {"id", "kind", "x", "y"}:
            raise _Bad(where, "must be an object with exactly id, kind, x, y")
        if not isinstance(d["id"], str) or not DOT_ID.fullmatch(d["id"]):
            raise _Bad(where + ("id",), f"must match [A-Za-z0-9]{{1,8}}, got {_got(d['id'])}")
        if d["id"] in dots:
            raise _Bad(where + ("id",), f"duplicate dot {d['id']}")
        if d["kind"] not in KINDS:
            raise _Bad(where + ("kind",), f"must be one of {', '.join(KINDS)}, got {_got(d['kind'])}")
        for axis in ("x", "y"):
            if not _number(d[axis]):
                raise _Bad(where + (axis,), f"must be a number, got {_got(d[axis])}")
        dots[d["id"]] = Dot(d["id"], d["kind"], float(d["x"]), float(d["y"]))
    starts = [k for k, v in dots.items() if v.is_start]
    if len(starts) != START_DOTS:
        raise _Bad(("dots",), f"a board has exactly {START_DOTS} Starting Dots (105.2a), got {len(starts)}", None)
    if not any(v.is_end for v in dots.values()):
        raise _Bad(("dots",), "a board needs at least one Ending Dot (602)", None)
    links: dict[str, dict[str, float]] = {k: {} for k in dots}
    straight: dict[str, set[str]] = {k: set() for k in dots}  # the dots a straight line joins each dot to
    lines_raw = doc.get("lines")
    if not isinstance(lines_raw, list):
        raise _Bad(("lines",), "must be a list")
    for i, ln in enumerate(lines_raw):
        where = ("lines", i)
        heading = None
        if isinstance(ln, dict):
            if not {"a", "b"} <= set(ln) or set(ln) - {"a", "b", "heading"}:
                raise _Bad(where, "a curved line is an object with a, b and heading")
            a, b, heading = ln["a"], ln["b"], ln.get("heading")
            if not (isinstance(heading, list) and len(heading) == 2 and all(_number(h) for h in heading)):
                raise _Bad(where + ("heading",), "must be two numbers, the degrees at a and at b")
        elif isinstance(ln, list) and len(ln) == 2:
            a, b = ln
        else:
            raise _Bad(where, 'must be [a, b] or {"a", "b", "heading"}')
        for end in (a, b):
            if not isinstance(end, str) or end not in dots:  # (a list was looked up: TypeError)
                raise _Bad(where, f"unknown dot {_got(end)}" if isinstance(end, str)
                           else f"a dot is named by its id (a string), got {_got(end)}")
        if a == b:
            raise _Bad(where, "a line joins two different dots")
        if b in links[a]:
            raise _Bad(where, f"{a}-{b} is listed twice")
        _check_length(where, dots[a], dots[b])
        if heading is None:
            links[a][b] = _heading(dots[a], dots[b])
            links[b][a] = _heading(dots[b], dots[a])
            for at, to in ((a, b), (b, a)):
                _check_apart(where, at, to, links[at], straight[at])
                straight[at].add(to)
        else:
            links[a][b] = float(heading[0]) % 360.0
            links[b][a] = float(heading[1]) % 360.0
    return bname, dots, links, _opposite(doc.get("opposite"), dots)


def _opposite(opp_raw: object, dots: dict[str, Dot]) -> dict[str, str]:
    """105.2b: opponents' Life Bases oppose each other, wherever the first is placed among the 6 Starting Dots
    (105.2a): ``opposite`` pairs every Starting Dot with another (a dot left out had none to check a setup
    against, and 105.2b went unchecked for a Life Base placed there)."""
    opposite: dict[str, str] = {}
    if not isinstance(opp_raw, list) or not opp_raw:
        raise _Bad(("opposite",), "must be a non-empty list of Starting Dot pairs (105.2b)", None)
    for i, pair in enumerate(opp_raw):
        where = ("opposite", i)
        if not (isinstance(pair, list) and len(pair) == 2):
            raise _Bad(where, "must be a pair [s, s']", "105.2b")
        for s in pair:
            if not isinstance(s, str) or s not in dots or not dots[s].is_start:
                raise _Bad(where, f"{_got(s)} is not a Starting Dot", "105.2b")
            if s in opposite:
                raise _Bad(where, f"{s} is already in another pair", "105.2b")
        if pair[0] == pair[1]:
            raise _Bad(where, "a Starting Dot does not oppose itself", "105.2b")
        opposite[pair[0]], opposite[pair[1]] = pair[1], pair[0]
    alone = [d for d, v in dots.items() if v.is_start and d not in opposite]
    if alone:
        raise _Bad(("opposite",), f"{', '.join(alone)} oppose{'s' if len(alone) == 1 else ''} no Starting Dot "
                                  f"(105.2b: a Life Base placed on any of the {START_DOTS} Starting Dots has an "
                                  f"opposing one for the other player's)", None)
    return opposite


def read_board(path: str | Path) -> Board:
    """The board file ``path`` (``--board FILE``), at most ``MAX_BOARD`` bytes, never read past it; what is not
    a regular file is refused unopened (zx_events.files)."""
    p = Path(path)
    try:
        data, size = read_limited(p, MAX_BOARD)
    except NotRegular as e:
        raise _fail(f"the board file {p} is {e.what}, not a regular file (nothing was read)", str(p)) from None
    except FileNotFoundError:
        raise _fail(f"board file not found: {p}", str(p)) from None
    except OSError as e:
        raise _fail(f"cannot read the board file: {e.strerror or e}", str(p)) from None
    if data is None:
        raise _fail(f"board file too big: {size:,} bytes (a board file has at most 1 MiB, {MAX_BOARD:,} bytes; a "
                    f"board is a few KB: docs/match-log-x610z.md)", str(p))
    return parse_board(decoded(data, "the board file", str(p)), source=str(p))


_BUILTIN: dict[str, Board] = {}


def builtin_board_names() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files(__package__).joinpath("boards").iterdir()
                  if p.name.endswith(".json"))


def load_board(name_or_path: str, *, files: bool = True) -> Board:
    """A shipped board by name (``x610z-orbits-sample``) or, ``files``, a board file by path.
    ``files=False`` for a name that comes from data (a log's header, a stored match): it names a
    shipped board, never a file to read (docs/security.md)."""
    if name_or_path in _BUILTIN:
        return _BUILTIN[name_or_path]
    if name_or_path in builtin_board_names():  # among the shipped names, never a stat (zx.cards.load_catalog)
        res = resources.files(__package__).joinpath("boards").joinpath(f"{name_or_path}.json")
        board = parse_board(res.read_text(encoding="utf-8"), source=f"boards/{name_or_path}.json")
        _BUILTIN[name_or_path] = board
        return board
    if not files:
        raise FormatError(f"unknown board {shown(name_or_path)}: not a shipped board "
                          f"({', '.join(builtin_board_names())}); a board file is given with --board FILE")
    if is_file(name_or_path) or not_regular(name_or_path) and not is_dir(name_or_path):  # (a named pipe: refused
        # unopened, by its kind; a folder said as --catalog says it: not_found)
        return read_board(name_or_path)
    raise FormatError(not_found(name_or_path, "board", builtin_board_names(), kind="board", suffix=".json",
                                file="board file"))
