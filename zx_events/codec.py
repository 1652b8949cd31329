"""How events are stored: the canonical bytes the digest chain covers are the bytes stored.

An event stored by this version is its canonical JSON (``zx_events.integrity.canonical``: every
field, its topic, aggregate id and version, keys sorted, no whitespace, UTF-8, the timestamp in
ISO 8601) with its ``digest`` appended as the last key::

    {"line":7,"originator_id":"…","originator_version":5,…,"topic":"zx.match:CardsDrawn","turn":2}
    -> stored: {"line":7,…,"turn":2,"digest":"9f…"}

so an import encodes each event once (the bytes it hashes are the bytes it writes, the digest
appended: ``integrity.chain`` makes the stored bytes as it hashes the canonical ones and keeps only
them; a digest cannot sit inside the bytes it covers, so that one copy of 300-odd bytes an event
is the least there is), ``zx verify`` hashes the stored bytes as they are (after checking that the id, version and topic inside them are
the row's), and any reader can decode them with a plain JSON parser. Events stored before (0.1.0:
eventsourcing's ``JSONTranscoder`` of the fields without id and version, the timestamp as
``{"_type_": "datetime_iso", ...}``) carry no ``originator_version`` key; they are decoded as
before, and their digests, computed from their decoded fields, are unchanged.

Snapshots (``zx_events.replay``) are stored as orjson too (one parse instead of the transcoder's
per-object hook: the state of a match is a few hundred small objects), marked with ``"_zx": 2``.
A cipher or compressor configured in the environment still applies to both.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.domain import Snapshot
from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic, resolve_topic

from zx_events import games
from zx_events.integrity import DIGEST_KEY, SUFFIX, event_canonical, with_digest  # noqa: F401 (here too)

TOPIC = "zx_events.codec:MatchMapper"  # MAPPER_TOPIC of the application
SNAPSHOT_TOPIC = get_topic(Snapshot)
_DATES = ("_created_on", "_modified_on")
_new, _set = object.__new__, object.__setattr__


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    raise TypeError(f"not JSON-native in an event: {type(value).__name__}")


def split_digest(state: bytes) -> tuple[bytes, bytes] | None:
    """``(canonical body, digest)`` of bytes made by ``with_digest``, or None."""
    if len(state) > SUFFIX and state[-SUFFIX:-SUFFIX + len(DIGEST_KEY)] == DIGEST_KEY and state.endswith(b'"}'):
        return state[:-SUFFIX] + b"}", state[-66:-2]
    return None


class ForeignTopic(ValueError):
    """A stored topic that is no installed game's (nor the store seal's, nor a snapshot's): never
    resolved, since resolving a topic imports the module it names (a store's content must never
    choose which code runs)."""


_OWN_TOPICS = frozenset({SNAPSHOT_TOPIC, "zx_events.ledger:Entry"})  # (ledger.TOPIC_ENTRY: ledger imports this module)


def game_topic(topic: str) -> str:
    """``topic`` if it belongs to an installed game (``zx.match:Started``), else ``ForeignTopic``."""
    if not isinstance(topic, str) or topic.split(":", 1)[0] not in games.TOPIC_PREFIXES:
        raise ForeignTopic(f"stored topic {str(topic)[:80]!r} belongs to no installed game: the store was altered "
                           f"or written by another program (zx verify names the damage)")
    return topic


@lru_cache(maxsize=None)
def event_class(topic: str) -> type:
    """The class a stored topic names, importing the game it belongs to first (``games.load_events``:
    a store is read without importing the games whose events are not read); a topic of no installed
    game, the seal or a snapshot is ``ForeignTopic``, never imported."""
    if topic not in _OWN_TOPICS:
        game_topic(topic)
    games.load_events(topic)
    return resolve_topic(topic)



class MatchMapper(Mapper):
    """eventsourcing's mapper, storing events as their canonical JSON (see the module docstring)."""

    def stored(self, event: Any, body: bytes, digest: str | None) -> StoredEvent:
        """The stored event for ``event`` whose canonical bytes ``body`` were just hashed into ``digest``."""
        state = body if digest is None else with_digest(body, digest)
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        d = event.__dict__
        out = _new(StoredEvent)  # StoredEvent's fields without its frozen dataclass __init__ (one setattr each)
        _set(out, "__dict__", {"originator_id": d["originator_id"], "originator_version": d["originator_version"],
                               "topic": _topic_of(type(event)), "state": state})
        return out

    def stored_all(self, events: list[Any], states: list[bytes]) -> list[StoredEvent]:
        """The stored event of each event whose stored bytes (canonical bytes and digest:
        ``zx_events.integrity.chain``) are ``states``: one loop, for the import's whole match
        (zx_events.integrity.seal_stored)."""
        compress = self.compressor.compress if self.compressor else None
        encrypt = self.cipher.encrypt if self.cipher else None
        out, new, set_, topics = [], _new, _set, _TOPICS
        for e, state in zip(events, states):
            d, cls = e.__dict__, type(e)
            if compress is not None:
                state = compress(state)
            if encrypt is not None:
                state = encrypt(state)
            s = new(StoredEvent)
            set_(s, "__dict__", {"originator_id": d["originator_id"], "originator_version": d["originator_version"],
                                 "topic": topics.get(cls) or _topic_of(cls), "state": state})
            out.append(s)
        return out

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        if isinstance(domain_event, Snapshot):
            d = vars(domain_event)
            state = orjson.dumps({"_zx": 2, "state": d["state"], "timestamp": d["timestamp"], "topic": d["topic"]},
                                 default=_plain)
            if self.compressor:
                state = self.compressor.compress(state)
            if self.cipher:
                state = self.cipher.encrypt(state)
            return StoredEvent(originator_id=d["originator_id"], originator_version=d["originator_version"],
                               topic=SNAPSHOT_TOPIC, state=state)
        if getattr(type(domain_event), "class_version", 1) > 1:
            return super().to_stored_event(domain_event)
        try:
            body = event_canonical(domain_event)
        except TypeError:  # a value canonical JSON cannot hold: the transcoder's way
            return super().to_stored_event(domain_event)
        return self.stored(domain_event, body, domain_event.__dict__.get("digest"))

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        return self.decode(stored_event.originator_id, stored_event.originator_version, stored_event.topic,
                           stored_event.state)

    def decode(self, originator_id: Any, originator_version: int, topic: str, state: bytes) -> Any:
        """The domain event of one stored row (``to_domain_event`` without a StoredEvent)."""
        try:
            d = orjson.loads(self.plain(state))
        except orjson.JSONDecodeError:
            d = None
        if type(d) is not dict:
            return self._old(originator_id, originator_version, topic, state)
        if topic == SNAPSHOT_TOPIC:
            if d.pop("_zx", None) != 2:
                return self._old(originator_id, originator_version, topic, state)
            inner = d["state"]
            games.load_events(game_topic(d["topic"]))  # the aggregate class the snapshot's mutate resolves
            for key in _DATES:
                if isinstance(inner.get(key), str):
                    inner[key] = datetime.fromisoformat(inner[key])
        elif d.pop("originator_version", None) is None:  # stored before 0.2: the transcoder's JSON
            return self._old(originator_id, originator_version, topic, state)
        else:
            d.pop("originator_id", None)
            d.pop("topic", None)
        d["timestamp"] = datetime.fromisoformat(d["timestamp"])
        d["originator_id"] = originator_id
        d["originator_version"] = originator_version
        event = object.__new__(event_class(topic))
        object.__setattr__(event, "__dict__", d)
        return event

    def snapshot_state(self, state: bytes) -> tuple[str, dict] | None:
        """The aggregate's topic and state of a stored snapshot, as ``decode`` makes them (its dates datetimes),
        without the ``Snapshot`` event round them (its time not read); None for bytes ``decode`` reads otherwise
        (deciphered, decompressed, not ``"_zx": 2``) or fails to read (``replay.seek``: of a snapshot whose bytes
        it has checked already)."""
        if self.cipher or self.compressor:
            return None
        try:
            d = orjson.loads(state)
            if type(d) is not dict or d.get("_zx") != 2:
                return None
            inner, topic = d["state"], d["topic"]
            games.load_events(game_topic(topic))
            for key in _DATES:
                if isinstance(inner.get(key), str):
                    inner[key] = datetime.fromisoformat(inner[key])
        except Exception:  # (decode raises: the caller decodes it, and finds that)
            return None
        return topic, inner

    def _old(self, originator_id: Any, originator_version: int, topic: str, state: bytes) -> Any:
        event_class(topic)  # the game it belongs to imported, so that the library resolves the topic
        event = super().to_domain_event(StoredEvent(originator_id=originator_id, originator_version=originator_version,
                                                    topic=topic, state=state))
        if topic == SNAPSHOT_TOPIC:
            games.load_events(game_topic(event.topic))  # the aggregate class the snapshot's mutate resolves
        return event

    def fields(self, state: bytes) -> dict[str, Any]:
        """The stored fields of an event as plain JSON values (the timestamp as stored), without its
        class: neither the game it belongs to nor its class is imported. No upcast: only for events
        whose classes are at version 1 (``MatchService.update_summaries``; tests/test_cli_startup.py
        checks the ones it reads)."""
        plain = self.plain(state)
        try:
            d = orjson.loads(plain)
        except orjson.JSONDecodeError:
            d = None
        if type(d) is not dict or "originator_version" not in d:  # stored before 0.2: the transcoder's JSON
            d = self.transcoder.decode(plain)
        return d

    def plain(self, state: bytes) -> bytes:
        """Stored bytes deciphered and decompressed."""
        if self.cipher:
            state = self.cipher.decrypt(state)
        if self.compressor:
            state = self.compressor.decompress(state)
        return state


_TOPICS: dict[type, str] = {}


def _topic_of(cls: type) -> str:
    topic = _TOPICS.get(cls)
    if topic is None:
        topic = _TOPICS[cls] = get_topic(cls)
    return topic


# ---------------------------------------------------------------------- replaying
_APPLY: dict[type, Any] = {}


def _applier(cls: type) -> Any:
    """``(method, parameter names)`` of an ``@event`` class whose ``apply`` is the library's own
    (call the decorated method with the event's fields), else False (``mutate`` is used)."""
    from eventsourcing.domain import DecoratedFuncCaller, _spec_filter_kwargs_for_method_params, decorated_funcs

    found: Any = False
    if issubclass(cls, DecoratedFuncCaller) and cls.apply is DecoratedFuncCaller.apply and cls in decorated_funcs \
            and getattr(cls.mutate, "__qualname__", "").startswith("CanMutateAggregate."):
        func = decorated_funcs[cls]
        found = (func, tuple(_spec_filter_kwargs_for_method_params(func)))
    _APPLY[cls] = found
    return found


def project(aggregate: Any, events: Any) -> Any:
    """Each event mutates the aggregate in turn, as ``event.mutate`` does (the same checks of id and
    version, the same method called with the same fields, the same version and modified_on), minus
    the library's per-event lookups of the method and of its parameters (half of a replay). A stored
    event that cannot be applied is a ``DamagedMatch`` (``ids.unappliable``)."""
    e = None
    try:
        for e in events:
            cls = type(e)
            a = _APPLY.get(cls)
            if a is None:
                a = _applier(cls)
            if not a or aggregate is None:
                aggregate = e.mutate(aggregate)
                continue
            d, ad = e.__dict__, aggregate.__dict__
            oid = d["originator_id"]
            if d["originator_version"] != ad["_version"] + 1 or (oid is not ad["_id"] and oid != ad["_id"]):
                aggregate = e.mutate(aggregate)  # raises the library's own error
                continue
            func, names = a
            func(aggregate, **{n: d[n] for n in names if n in d})
            ad["_version"] = d["originator_version"]
            ad["_modified_on"] = d["timestamp"]
    except Exception as exc:
        from zx_events.ids import unappliable

        raise unappliable(aggregate, e, exc) from exc
    return aggregate


def project_rows(aggregate: Any, mapper: Any, decode: Any, oid: Any, rows: Any, first: int, damaged: Any) -> Any:
    """``project(aggregate, events)`` of the events of stored ``rows`` (``(version, topic, state)`` of the
    aggregate of id ``oid``, versions ``first``, ``first + 1``, ...), each decoded as ``decode(oid, version,
    topic, state)`` (``mapper``'s) decodes it, every row before the first is applied: a version missing is
    ``damaged(expected, found)``, a row that cannot be decoded ``damaged(expected, None)``, one that cannot be applied the ``DamagedMatch`` of
    ``project``. What ``replay.seek`` replays after a snapshot: a row as this version stores it (a
    ``MatchMapper`` with neither cipher nor compressor) is decoded here into the fields its event would hold,
    whose method is called with them as ``project`` calls it (the same checks of id and version, the same
    arguments: by position where it can, ``_positional``), without an event object or a call of the decoder
    an event: about a tenth of a seek. Any other row is decoded by ``decode``; an event whose class
    ``project`` would ``mutate`` is made and mutated as there."""
    fast = type(mapper) is MatchMapper and mapper.cipher is None and mapper.compressor is None
    loads, iso = orjson.loads, datetime.fromisoformat
    decoded: list[Any] = []  # (event class, fields) or (None, event)
    for expected, (version, topic, state) in enumerate(rows, start=first):
        if version != expected:
            raise damaged(expected, version)
        d = None
        if fast and topic != SNAPSHOT_TOPIC:
            try:
                d = loads(state)
            except orjson.JSONDecodeError:
                d = None
            if type(d) is not dict or d.pop("originator_version", None) is None:
                d = None  # (stored before 0.2, or no object: the decoder's own way below)
        try:
            if d is None:
                decoded.append((None, decode(oid, version, topic, state)))
                continue
            d.pop("originator_id", None)
            d.pop("topic", None)
            d["timestamp"] = iso(d["timestamp"])
            d["originator_id"] = oid
            d["originator_version"] = version
            decoded.append((event_class(topic), d))
        except Exception:
            raise damaged(expected, None) from None
    cls = d = e = None
    try:
        for cls, d in decoded:
            e = None
            if cls is None:  # an event the mapper decoded
                e, d = d, d.__dict__
                cls = type(e)
            a = _APPLY.get(cls)
            if a is None:
                a = _applier(cls)
            if a and aggregate is not None:
                ad, i = aggregate.__dict__, d["originator_id"]
                if d["originator_version"] == ad["_version"] + 1 and (i is ad["_id"] or i == ad["_id"]):
                    call = _CALLS.get(cls)
                    if call is None:
                        call = _positional(cls, a[0])
                    if not call or not call(aggregate, d):  # (no call by position: the fields by name, as project)
                        func, names = a
                        func(aggregate, **{n: d[n] for n in names if n in d})
                    ad["_version"] = d["originator_version"]
                    ad["_modified_on"] = d["timestamp"]
                    continue
            if e is None:
                e = _new(cls)
                _set(e, "__dict__", d)
            aggregate = e.mutate(aggregate)  # (a version or id out of place: the library's own error)
    except Exception as exc:
        from zx_events.ids import unappliable

        if e is None and cls is not None:  # (the event, for the error's words)
            e = _new(cls)
            _set(e, "__dict__", d)
        raise unappliable(aggregate, e, exc) from exc
    return aggregate


_CALLS: dict[type, Any] = {}  # event class -> its method called by position (_positional), or False

_CALL = """
def call(aggregate, d):
    try:
{required}
    except KeyError:
        return False
    if {own!r} in d:
        return False
    body(aggregate, {args})
    return True
"""


def _positional(cls: type, body: Any) -> Any:
    """``call(aggregate, fields)`` for an ``@event`` class whose method ``body`` has plain parameters: the
    method called with the fields by position, a parameter not among them given its default, as
    ``body(aggregate, **{name: fields[name] for the parameters' names among the fields})`` calls it (a keyword
    call builds a dict and binds it by name: a tenth of a seek); False, calling nothing, where that call
    is an error (a field the method needs missing, or one named as its first parameter), for the caller to
    make it by name and raise it. False for a method with other parameters (then always by name)."""
    import inspect

    params = list(inspect.signature(body).parameters.values())
    if not params or any(p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params):
        _CALLS[cls] = False
        return False
    env: dict[str, Any] = {"body": body}
    required, args = [], []
    for i, p in enumerate(params[1:]):
        if p.default is inspect.Parameter.empty:
            required.append(f"        a{i} = d[{p.name!r}]")
            args.append(f"a{i}")
        else:
            env[f"default{i}"] = p.default
            args.append(f"d.get({p.name!r}, default{i})")
    exec(_CALL.format(required="\n".join(required) or "        pass", own=params[0].name, args=", ".join(args)), env)
    _CALLS[cls] = env["call"]
    return env["call"]
