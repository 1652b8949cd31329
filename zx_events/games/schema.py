"""A game's log format: its JSON Schema compiled into fast validators, and the words for what is wrong.

Every game's records share one envelope (shared/spec/games.md): a header holds the game's format
key (``zxlog``, ``x610zlog``), an action record names its kind in ``do``, an ``effect`` record its
operation in ``op``. A game's schema has one ``$defs`` entry per record kind (``header``, each kind,
``effect_OP`` for each effect operation); ``LogFormat`` reads those and nothing else about the game.

Validation has two speeds: every record goes through a fastjsonschema validator compiled from its
kind's ``$defs`` entry, on the first record of that kind; only a record that fails is looked at
again with jsonschema, to say what is wrong in words.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from functools import cached_property
from typing import Any, Callable, Iterator

import fastjsonschema

from zx_events.errors import FormatError, cut, not_ascii

# the limits of one JSON value read from a user's file, a log's line or a board file alike (docs/match-log.md, Limits)
MAX_DEPTH = 32  # arrays and objects inside each other (records use 4, a board 4)
MAX_DIGITS = sys.get_int_max_str_digits() or 4300  # digits of one integer (Python's own limit)

# $defs reference names that hold card codes; the ``...OrCode`` ones may hold a board position instead
CODE_REFS = ("code", "codes")


def quoted(value: object, ascii: bool = False) -> str:
    """A value as it appears in a message: strings in single quotes, cut as ``errors.cut`` cuts every
    echoed value (a 5,000-character duplicate key was echoed whole, and a table as wide with it); a string
    with a character ``str.isprintable`` refuses (a control, a joiner, a space other than ' ') in JSON's
    double quotes and escapes, cut the same before it is written, so its quote is closed (it was cut to 60
    characters after, its quote lost: docs/match-log.md, Limits); anything else as JSON, cut alike.
    ``ascii``: the value must be ASCII (a seat, a card code, a Square, a dot, a record kind, a key): its
    non-ASCII characters are named after it (``errors.not_ascii``). Public: a game's own record checks word their
    messages with it too (``games/*/game.py``)."""
    named = f" ({not_ascii(value)})" if ascii and isinstance(value, str) and not value.isascii() else ""
    if isinstance(value, str) and value.isprintable():
        return f"'{cut(value)}'{named}"
    if isinstance(value, str):
        return json.dumps(cut(value), ensure_ascii=False) + named
    return cut(json.dumps(value, ensure_ascii=False, default=str)) + named


class DuplicateKey(ValueError):
    """A key given twice in one JSON object, which ``json.loads`` would read as its last value alone."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An ``object_pairs_hook`` for ``json``: the object of ``pairs``, or ``DuplicateKey`` naming the first
    key given twice (the log reader's and the X610Z board reader's)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"duplicate key {quoted(key)} in one JSON object")
            seen.add(key)
    return obj


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


def _dotted(path: list) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def _at(obj: Any, path: list) -> Any:
    for key in path:
        obj = obj[key]
    return obj


class _Validators(dict):
    """One plain function per record kind (no if/then chain on the hot path), compiled on the first
    record of its kind: compiling them all took 165 ms of every ``zx`` start-up, read a log or not.
    A key that is not a record kind is a ``KeyError``, as in a plain dict."""

    def __init__(self, names: dict[str, str], compile_: Callable[[str], Any]) -> None:
        super().__init__()
        self.names = names  # key -> $defs entry
        self.compile = compile_

    def __missing__(self, key: Any) -> Any:
        v = self[key] = self.compile(self.names[key])  # KeyError (or TypeError) for an unknown kind
        return v


_RANK = {"additionalProperties": 0, "required": 1, "oneOf": 3}


# ---------------------------------------------------------------------- the fast accept
class _Unsupported(Exception):
    pass


_IGNORED = frozenset({"title", "description", "$schema", "$id", "$comment", "examples"})
_TYPE_TEST = {"object": "type({v}) is dict", "array": "type({v}) is list", "string": "type({v}) is str",
              "integer": "type({v}) is int", "boolean": "type({v}) is bool", "null": "{v} is None",
              "number": "(type({v}) is int or type({v}) is float)"}


def _accept_lines(schema: Any, v: str, depth: int, out: list[str], consts: dict[str, Any]) -> None:
    """Lines (at ``depth`` levels of indentation) that ``return slow(d0)`` unless the value named
    ``v`` surely matches ``schema``; ``_Unsupported`` for a keyword they do not know."""
    pad = "    " * depth
    if schema is True:
        return
    if not isinstance(schema, dict):
        raise _Unsupported(repr(schema))

    def const(value: Any) -> str:
        if type(value) in (str, int):
            return repr(value)
        name = f"c{len(consts)}"
        consts[name] = value
        return name

    tests: list[str] = []  # each must hold; joined into one test

    for key in schema:
        if key not in _IGNORED and key not in ("type", "const", "enum", "minLength", "minimum", "minItems", "pattern",
                                               "items", "required", "properties", "additionalProperties",
                                               "propertyNames"):
            raise _Unsupported(key)
    t = schema.get("type")
    known = None  # the one type the value has once the type test passed
    if t is not None:
        types = [t] if isinstance(t, str) else t
        if not isinstance(types, list) or any(x not in _TYPE_TEST for x in types):
            raise _Unsupported(f"type {t!r}")
        cond = " or ".join(_TYPE_TEST[x].format(v=v) for x in types)
        tests.append(f"({cond})" if len(types) > 1 else cond)
        known = types[0] if len(types) == 1 else None

    def guard(kind: str, cond: str) -> None:  # cond applies to values of ``kind`` only
        if known == kind:
            tests.append(cond)
        elif known is None:
            tests.append(f"(not {_TYPE_TEST[kind].format(v=v)} or {cond})")
        # another known type: the keyword does not apply

    if "const" in schema:
        c = schema["const"]
        if c is None or isinstance(c, bool):
            tests.append(f"{v} is {c!r}")
        elif type(c) in (str, int):
            tests.append(f"type({v}) is {type(c).__name__} and {v} == {const(c)}")
        else:
            raise _Unsupported("const")
    if "enum" in schema:
        e = schema["enum"]
        if not isinstance(e, list) or not all(x is None or type(x) is str for x in e):
            raise _Unsupported("enum")
        strings = frozenset(x for x in e if x is not None)
        tests.append(f"(type({v}) is str and {v} in {const(strings)}" + (f" or {v} is None)" if None in e else ")"))
    if "minLength" in schema:
        guard("string", f"len({v}) >= {int(schema['minLength'])}")
    if "pattern" in schema:  # compiled as fastjsonschema compiles it ($ is the end of the text)
        from fastjsonschema.draft04 import DOLLAR_FINDER

        regex = re.compile(DOLLAR_FINDER.sub(r"\\Z", schema["pattern"]))
        guard("string", f"{const(regex)}.search({v})")
    if "minimum" in schema:
        m = schema["minimum"]
        if type(m) not in (int, float):
            raise _Unsupported("minimum")
        if known == "integer" or known == "number":
            tests.append(f"{v} >= {m!r}")
        elif known is None:
            tests.append(f"(not (type({v}) is int or type({v}) is float) or {v} >= {m!r})")
    if "minItems" in schema:
        guard("array", f"len({v}) >= {int(schema['minItems'])}")
    if tests:
        out.append(f"{pad}if not ({' and '.join(tests)}):")
        out.append(f"{pad}    return slow(d0)")
    if "items" in schema:
        if not isinstance(schema["items"], dict):
            raise _Unsupported("items")
        item = f"x{depth}"
        if known == "array":
            out.append(f"{pad}for {item} in {v}:")
            _accept_lines(schema["items"], item, depth + 1, out, consts)
        elif known is None:
            out.append(f"{pad}if type({v}) is list:")
            out.append(f"{pad}    for {item} in {v}:")
            _accept_lines(schema["items"], item, depth + 2, out, consts)
    if any(k in schema for k in ("required", "properties", "additionalProperties", "propertyNames")) \
            and known in ("object", None):
        if known is None:
            out.append(f"{pad}if type({v}) is dict:")
            pad, depth = pad + "    ", depth + 1
        props = schema.get("properties", {})
        keys = []
        if "required" in schema:
            keys.append(f"{v}.keys() >= {const(frozenset(schema['required']))}")
        extra = schema.get("additionalProperties", True)
        if extra is False:
            keys.append(f"{v}.keys() <= {const(frozenset(props))}")
        if keys:
            out.append(f"{pad}if not ({' and '.join(keys)}):")
            out.append(f"{pad}    return slow(d0)")
        if extra is not True and extra is not False:
            if not isinstance(extra, dict):
                raise _Unsupported("additionalProperties")
            k, x = f"k{depth}", f"y{depth}"
            out.append(f"{pad}for {k}, {x} in {v}.items():")
            out.append(f"{pad}    if {k} not in {const(frozenset(props))}:")
            _accept_lines(extra, x, depth + 2, out, consts)
        if "propertyNames" in schema:  # every key matches (a key is a string)
            k = f"n{depth}"
            out.append(f"{pad}for {k} in {v}:")
            _accept_lines(schema["propertyNames"], k, depth + 1, out, consts)
        for i, (key, sub) in enumerate(props.items()):
            x = f"p{depth}_{i}"
            out.append(f"{pad}if {const(key)} in {v}:")
            out.append(f"{pad}    {x} = {v}[{const(key)}]")
            before = len(out)
            _accept_lines(sub, x, depth + 1, out, consts)
            if len(out) == before:  # nothing to check of it
                del out[-2:]


class _Lazy:
    """A fastjsonschema validator compiled when first called (a few ms a record kind: the fast
    accept takes every valid record, so a log without errors needs none of them)."""

    __slots__ = ("schema", "validate")

    def __init__(self, schema: dict) -> None:
        self.schema = schema
        self.validate: Any = None

    def __call__(self, data: Any) -> Any:
        if self.validate is None:
            self.validate = fastjsonschema.compile(self.schema)
        return self.validate(data)


def _with_fast_accept(schema: dict, slow: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
    """``slow`` (a fastjsonschema validator of ``schema``), preceded by checks that take a record
    that surely matches (a plain function, each type asked with ``type(x) is``, each key set compared
    once) at a third of the cost, and hand any other to ``slow``, whose answer (or error) stands.

    Every check is as strict as fastjsonschema's or stricter (an integer is an ``int``, never a float
    like 2.0; an array a ``list``), so what they take, fastjsonschema takes. A schema with a keyword
    they do not know (``if``, ``oneOf``, ``propertyNames``, ``default``...) is checked by ``slow``
    alone."""
    out: list[str] = []
    consts: dict[str, Any] = {}
    try:
        _accept_lines(schema, "d0", 1, out, consts)
    except _Unsupported:
        return slow.validate or fastjsonschema.compile(slow.schema) if isinstance(slow, _Lazy) else slow
    source = "def validate(d0):\n" + "\n".join(out) + "\n    return d0\n"
    scope = {"slow": slow, **consts}
    exec(compile(source, f"<accept {name}>", "exec"), scope)
    fn = scope["validate"]
    fn.__doc__ = source
    return fn


class LogFormat:
    """The records of one game's log: ``header_key`` starts a match, ``schema`` checks each record.

    ``is_position(value)``: whether a value of an ``...OrCode`` field names a board position (a Z/X
    Square, an X610Z dot) rather than a card code."""

    def __init__(self, schema: dict, header_key: str, *, version: int = 1,
                 is_position: Callable[[Any], bool] = lambda v: False) -> None:
        self.schema = schema
        self.header_key = header_key
        self.version = version
        self.is_position = is_position
        self.defs: dict = schema["$defs"]
        self.kinds: tuple[str, ...] = tuple(self.defs["action"]["properties"]["do"]["enum"])
        self.effect_ops: tuple[str, ...] = tuple(self.defs["effect"]["properties"]["op"]["enum"]) \
            if "effect" in self.defs else ()
        self.record_defs = ("header", *(k for k in self.kinds if k != "effect"),
                            *(f"effect_{op}" for op in self.effect_ops))
        self.action = _Validators({k: k for k in self.kinds if k != "effect"}, self._compile)
        self.effect = _Validators({op: f"effect_{op}" for op in self.effect_ops}, self._compile)
        self._slow: dict[str, Any] = {}
        self._compiled: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"LogFormat({self.header_key!r} {self.version})"

    # ------------------------------------------------------------------ validators
    def _inline(self, schema: Any) -> Any:
        """``schema`` with every ``$ref`` replaced by the definition (the schemas have no recursion).

        The same checks; fastjsonschema then generates one flat function per record kind instead of
        a call (and a formatted path string) per field and per list item: about 30% faster."""
        if isinstance(schema, dict):
            if "$ref" in schema:
                return self._inline(self.defs[schema["$ref"].rsplit("/", 1)[-1]])
            return {k: self._inline(v) for k, v in schema.items()}
        if isinstance(schema, list):
            return [self._inline(v) for v in schema]
        return schema

    def _compile(self, name: str) -> Any:
        v = self._compiled.get(name)
        if v is None:
            schema = self._inline(self.defs[name])
            v = self._compiled[name] = _with_fast_accept(schema, _Lazy({"$schema": self.schema["$schema"], **schema}),
                                                         name)
        return v

    @cached_property
    def header(self) -> Any:
        return self._compile("header")

    def slow(self, name: str):
        v = self._slow.get(name)
        if v is None:
            from jsonschema import Draft202012Validator  # imported only when a record is wrong

            v = self._slow[name] = Draft202012Validator(
                {"$schema": self.schema["$schema"], "$defs": self.defs, "$ref": f"#/$defs/{name}"})
        return v

    def def_name(self, obj: dict) -> str | None:
        """The ``$defs`` entry a record is checked against, or None if its kind is unknown."""
        if self.header_key in obj:
            return "header"
        do = obj.get("do")
        if do == "effect":
            op = obj.get("op")
            return f"effect_{op}" if isinstance(op, str) and op in self.effect_ops else None
        return do if isinstance(do, str) and do in self.kinds else None

    def check_header_values(self, header: dict) -> None:
        """What the schema's patterns cannot say: played_at is a real date; a match id is not made only of dots."""
        match_id = header.get("match")
        if isinstance(match_id, str) and match_id and not match_id.strip("."):  # the pattern allows "." and ".."
            raise FormatError(f"match must not be made only of dots, got {quoted(match_id)}: a browser resolves a "
                              f"path segment {quoted(match_id)} away, so zx serve's pages could not open the match "
                              f"(docs/match-log.md, The header)")
        played = header.get("played_at")
        if played is not None:
            try:
                datetime.fromisoformat(played)
            except (TypeError, ValueError):
                title = self.defs["header"]["properties"]["played_at"].get("title") or "an ISO 8601 date-time"
                raise FormatError(f"played_at must be {title}, got {quoted(played)}") from None

    # ------------------------------------------------------------------ card codes
    @cached_property
    def code_fields(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """For each record ``$defs`` entry: the (field, 'code' | 'codes' | 'position') that hold card
        codes, read from the schema (a ``...OrCode`` reference may also name a board position)."""
        out: dict[str, tuple[tuple[str, str], ...]] = {}
        for name in self.record_defs:
            if name == "header":
                continue
            fields = []
            for key, sub in self.defs[name].get("properties", {}).items():
                ref = sub.get("$ref", "").rsplit("/", 1)[-1]
                if ref in CODE_REFS:
                    fields.append((key, ref))
                elif ref.endswith("OrCode"):
                    fields.append((key, "position"))
            out[name] = tuple(fields)
        return out

    @cached_property
    def card_keys(self) -> dict[str, dict[str, str | None]]:
        """For each record ``$defs`` entry: every key it takes -> ``'code'`` when its value may hold a card code
        at any depth (``murphy``: a list of lists), ``'position'`` when that code may be a board position
        instead (an ``...OrCode``), None when it never names a card. Unlike ``code_fields`` (the keys whose own
        reference is a code, what the catalog checks), nothing nested is missed: a seat's view of a record not
        applied hides by it (``seats.hide_not_applied``)."""
        out: dict[str, dict[str, str | None]] = {}
        for name in self.record_defs:
            if name != "header":
                out[name] = {key: self._card_kind(sub, set())
                             for key, sub in self.defs[name].get("properties", {}).items()}
        return out

    def _card_kind(self, schema: Any, seen: set[str]) -> str | None:
        kinds: set[str] = set()
        if isinstance(schema, dict):
            ref = schema.get("$ref", "").rsplit("/", 1)[-1]
            if ref in CODE_REFS:
                return "code"
            if ref.endswith("OrCode"):
                kinds.add("position")
            elif ref and ref not in seen:
                kinds.add(self._card_kind(self.defs.get(ref), seen | {ref}) or "")
            for key, sub in schema.items():
                if key != "$ref":
                    kinds.add(self._card_kind(sub, seen) or "")
        elif isinstance(schema, list):
            kinds.update(self._card_kind(sub, seen) or "" for sub in schema)
        return "code" if "code" in kinds else "position" if "position" in kinds else None

    def codes_of(self, obj: dict, name: str) -> Iterator[str]:
        """The card codes a record names (its kind's ``$defs`` entry ``name``)."""
        for key, kind in self.code_fields.get(name, ()):  # the record's few code-valued keys, not all of them
            value = obj.get(key)
            if value is None and key not in obj:
                continue
            if kind == "code":
                yield value
            elif kind == "codes":
                yield from value
            elif isinstance(value, str) and not self.is_position(value):
                yield value

    # ------------------------------------------------------------------ saying what is wrong
    def _resolve(self, schema: dict | None) -> dict | None:
        while schema is not None and "$ref" in schema:
            schema = self.defs.get(schema["$ref"].rsplit("/", 1)[-1])
        return schema

    def _child(self, schema: dict | None, key: object) -> dict | None:
        schema = self._resolve(schema)
        if schema is None:
            return None
        if isinstance(key, int):
            return schema.get("items")
        props = schema.get("properties", {})
        if key in props:
            return props[key]
        extra = schema.get("additionalProperties")
        return extra if isinstance(extra, dict) else None

    def explain(self, obj: dict, fast_error: Exception) -> str:
        """The friendly message for a record the fast validator rejected."""
        hk = self.header_key
        if hk in obj:
            z = obj[hk]
            if type(z) is not int or z != self.version:
                return f"{hk} must be {self.version} (this reader knows version {self.version})"
            return self._explain_against("header", obj, "the header", "", fast_error)
        if "do" not in obj:
            return f"a record needs the key 'do' (an action record) or '{hk}' (a header)"
        do = obj["do"]
        if not isinstance(do, str) or do not in self.kinds:
            return f"unknown record kind {quoted(do, ascii=True)} (one of {', '.join(self.kinds)})"
        if do == "effect":
            if "op" not in obj:
                return "missing required key 'op' in an effect record"
            op = obj["op"]
            if not isinstance(op, str) or op not in self.effect_ops:
                return f"unknown effect op {quoted(op, ascii=True)} (one of {', '.join(self.effect_ops)})"
            return self._explain_against(f"effect_{op}", obj, f"an effect {op} record", "effect", fast_error)
        return self._explain_against(do, obj, _article(f"{do} record"), do, fast_error)

    def _explain_against(self, name: str, obj: dict, ctx: str, prefix: str, fast_error: Exception) -> str:
        errors = list(self.slow(name).iter_errors(obj))
        if not errors:  # the validators disagree (Python's re lets a pattern's $ match before a final
            # newline; fastjsonschema does not): fall back on the fast validator's own finding
            name_ = getattr(fast_error, "name", "") or ""
            title = (getattr(fast_error, "definition", None) or {}).get("title")
            path_ = name_[len("data"):].lstrip(".") if name_.startswith("data") else name_
            value = getattr(fast_error, "value", None)
            if title and path_:
                formed = self._formed(getattr(fast_error, "definition", None))
                return f"{prefix + '.' if prefix else ''}{path_} must be {title}, got {quoted(value, formed)}"
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
            schema: Any = self.defs[name]  # (jsonschema leaves $ref out of the schema path)
            for step in e.relative_schema_path:
                if step == "then":
                    break
                schema = self._resolve(schema) if step == "$ref" else schema[step]
            desc = schema["then"].get("description", "") if isinstance(schema, dict) else ""
            return f"{ctx}: {desc or e.message}"
        if e.validator == "additionalProperties":
            props = e.schema.get("properties", {})
            extra = next((k for k in e.instance if k not in props), "?")
            return f"unknown key {quoted(extra, ascii=True)} in {where(path)}"
        if e.validator == "required":
            missing = next((k for k in e.validator_value if k not in e.instance), "?")
            return f"missing required key {quoted(missing)} in {where(path)}"
        if e.validator == "oneOf":
            keys = [s["required"][0] for s in e.validator_value if "required" in s]
            have = [k for k in keys if k in e.instance]
            return (f"{where(path)} needs exactly one of {' or '.join(map(quoted, keys))} "
                    f"({'it has both' if have else 'it has neither'})")
        if "propertyNames" in e.relative_schema_path:  # what a key must be: its schema's title (a card code,
            # an energy type letter), never "not a card code" for a payment's key
            node: Any = self.defs[name]
            for key in path:
                node = self._child(node, key)
            names = self._resolve((self._resolve(node) or {}).get("propertyNames"))
            what = (names or {}).get("title") or "a card code"
            return f"{where(path)} has a key that is not {what}: {quoted(e.instance, ascii=True)}"

        # a value of the wrong type or out of range: name the field with its schema's title
        titled: list[tuple[int, str, Any]] = []  # (depth, title, schema) along the path
        schema = self.defs[name]
        for depth, key in enumerate(path, 1):
            schema = self._child(schema, key)
            node = self._resolve(schema)
            if node is None:
                break
            title = (schema or {}).get("title") or node.get("title")
            if title:
                titled.append((depth, title, node))
        if not titled:
            return f"{where(path)}: {e.message}"
        depth, title, node = titled[-1]
        formed = self._formed(node)  # (a seat, a Square, a card code, a dot: ASCII)
        if isinstance(path[depth - 1], int) and len(titled) > 1 and titled[-2][0] == depth - 1:
            # an item of a list: name the list ("draw.cards must be an array of card codes")
            depth, title, _ = titled[-2]
            item = path[depth]
            value = _at(obj, path[:depth + 1])
            named = not_ascii(value) if formed and isinstance(value, str) else ""
            return (f"{where(path[:depth])} must be {title} (item {item + 1} is {quoted(value)}"
                    f"{': ' + named if named else ''})")
        return f"{where(path[:depth])} must be {title}, got {quoted(_at(obj, path[:depth]), formed)}"

    def _formed(self, schema: Any) -> bool:
        """Whether a value of ``schema`` has a form, an ``enum`` or a ``pattern`` (a seat, a Square, a card code,
        a dot, a rule number): each of both games' is ASCII, so a value with other characters has them named."""
        node = self._resolve(schema) if isinstance(schema, dict) else None
        if node is None:
            return False
        return "enum" in node or "pattern" in node or any(
            self._formed(s) for key in ("anyOf", "oneOf") for s in node.get(key, ()))
