"""Tamper evidence: a SHA-256 digest chained through every stored event of a match.

At import, before the match is saved, every event gets a ``digest``::

    digest_0 = 64 zeros
    digest_n = SHA-256( bytes(digest_{n-1}) || canonical(event_n) )

``canonical`` is the JSON of the event's topic, aggregate id, version (its ``seq``), timestamp and
every field, with sorted keys, no whitespace and UTF-8 text (the ``digest`` itself left out).
The import then appends a ``Sealed`` event (the number of events before it and the last digest),
chained like the others: its digest is the match's *head*, printed by ``zx import`` so it can be
written on the score sheet.

``verify_rows`` recomputes the chain from the stored rows (decoded with the store's own transcoder,
never through the aggregate, so a later change of an event class cannot hide or fake a change)
and names the first position that fails, with what most likely happened there:

- ``deleted``: a version is missing, the match ends without its seal, or the seal counts more
  events than are left (one was deleted and the later ones renumbered);
- ``inserted``: an event after the last seal, an event without a digest, an event that pushed the
  others down, or a copy of an event that is still in its place;
- ``reordered``: the event at this position verifies as the event of another position;
- ``altered``: the digest does not match the event (its payload, or the digest before it, changed).

What it cannot catch on its own: someone who rewrites a match and recomputes every digest and the
seal. That is what the head on the score sheet is for (``verify --head``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Sequence
from uuid import UUID

import orjson

from zx_events import games

ZERO = "0" * 64
DIGEST_KEY = b',"digest":"'  # an event stored as its canonical bytes ends ,"digest":"<64 hex>"} (zx_events.codec)
SUFFIX = len(DIGEST_KEY) + 64 + 2
KINDS = ("ok", "altered", "deleted", "inserted", "reordered", "unchained", "head", "forged")


def with_digest(body: bytes, digest: str) -> bytes:
    """The stored bytes of an event: its canonical ``body`` with ``digest`` as the last key
    (``zx_events.codec``)."""
    return b"".join((body[:-1], DIGEST_KEY, digest.encode("ascii"), b'"}'))


def is_seal(topic: str) -> bool:
    """Whether ``topic`` is a match's closing seal, in any game (``zx.match:Sealed``, ``x610z.match:Sealed``)."""
    return games.is_topic(topic, "Sealed")


# ---------------------------------------------------------------------- the digest
def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    raise TypeError(f"not JSON-native in an event: {type(value).__name__}")


# the fields a digest leaves out of the event's own (the id, version and topic go in as the row's); a
# stored ``class_version`` is covered: it chooses how the event is read (upcast), and a "class_version": 0
# written into a payload made replay fail on an event verify called intact
_LEFT_OUT = frozenset({"digest", "originator_id", "originator_version"})

def canonical(topic: str, originator_id: Any, version: int, state: dict[str, Any]) -> bytes:
    """The bytes a digest covers: topic, id, version and the fields, as canonical JSON.

    Canonical: keys sorted, no whitespace, UTF-8, datetimes in ISO 8601. orjson writes exactly the
    bytes of ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` for these
    values (checked over every event of the example and simulated matches), 1.5x faster.
    """
    body = {k: v for k, v in state.items() if k not in _LEFT_OUT}
    body["topic"] = topic
    body["originator_id"] = str(originator_id)
    body["originator_version"] = version
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS, default=_plain)


def link(prev: str, body: bytes) -> str:
    """``SHA-256(prev digest as 32 bytes || canonical event)`` in hex."""
    h = hashlib.sha256(bytes.fromhex(prev))
    h.update(body)
    return h.hexdigest()


_TOPICS: dict[type, str] = {}
_VERSIONED: set[type] = set()  # event classes past version 1 (class_version): known once their topic is


def event_topic(event: Any) -> str:
    cls = type(event)
    topic = _TOPICS.get(cls)
    if topic is None:
        from eventsourcing.utils import get_topic

        if class_version(cls) is not None:
            _VERSIONED.add(cls)
        topic = _TOPICS[cls] = get_topic(cls)
    return topic


def class_version(cls: type) -> int | None:
    """The ``class_version`` eventsourcing's mapper stores with an event of ``cls`` (None: none, at 1)."""
    version = getattr(cls, "class_version", 1)
    return version if version > 1 else None


def event_canonical(event: Any) -> bytes:
    state = event.__dict__
    version = class_version(type(event))
    if version is not None:  # (no event class is past version 1 today) stored with it: covered with it
        state = {**state, "class_version": version}
    return canonical(event_topic(event), state["originator_id"], state["originator_version"], state)


def chain(events: Iterable[Any], prev: str = ZERO, states: list[bytes] | None = None,
          rows: list[Any] | None = None, hex_rows: bool = False) -> str:
    """Give each (pending, not yet saved) event its ``digest``; returns the last one. ``states``
    (when given) receives each event's stored bytes: the canonical bytes just hashed, with the
    digest appended as their last key (``zx_events.codec``); ``rows`` (when given, instead)
    receives the StoredEvent holding them, as ``MatchMapper.stored_all`` makes it (for a mapper
    with neither compressor nor cipher: the stored bytes are the state); with ``hex_rows``, ``rows``
    receives instead the plain row ``(originator_id hex, originator_version, topic, state)`` that a
    SQLite store of UUID ids inserts as it is (``MatchService.rows_direct``): no StoredEvent made
    and taken apart again for ``executemany``.

    The stored bytes are made from the canonical ones at once, and only they are kept: orjson's
    output buffer, kept for the whole match until it was stored, cost three times its own making
    (about 3 µs an event, in the allocator), where a copy of it costs a tenth of that."""
    sha256, setattr_, dumps, sort = hashlib.sha256, object.__setattr__, orjson.dumps, orjson.OPT_SORT_KEYS
    raw, topics, stored_bytes = bytes.fromhex(prev), _TOPICS, with_digest
    append = states.append if states is not None else None
    if rows is not None:
        from eventsourcing.persistence import StoredEvent

        add_row, new = rows.append, object.__new__
    oid, oid_hex = None, ""
    for e in events:  # event_canonical, inlined: orjson writes the id (a UUID) as str() does, and the datetime
        fields = e.__dict__
        topic = topics.get(type(e)) or event_topic(e)
        if "digest" in fields or "topic" in fields or type(e) in _VERSIONED:
            body = event_canonical(e)
        else:  # the event's own fields plus its topic, without copying them: the key is there for one dumps
            fields["topic"] = topic
            try:
                body = dumps(fields, option=sort, default=_plain)
            finally:
                del fields["topic"]
        raw = sha256(raw + body).digest()  # one call: a hash object updated twice cost a fifth of the loop
        prev = raw.hex()
        e.__dict__["digest"] = prev  # events are frozen dataclasses: their __dict__, as setattr would
        if append is not None:
            append(stored_bytes(body, prev))
        elif hex_rows:
            d = e.__dict__
            if d["originator_id"] is not oid:  # a match's events share one id object: its hex once
                oid = d["originator_id"]
                oid_hex = oid.hex
            add_row((oid_hex, d["originator_version"], topic, stored_bytes(body, prev)))
        elif rows is not None:
            d = e.__dict__
            row = new(StoredEvent)  # its fields set at once, as the mapper does (no frozen __init__)
            setattr_(row, "__dict__", {"originator_id": d["originator_id"],
                                       "originator_version": d["originator_version"], "topic": topic,
                                       "state": stored_bytes(body, prev)})
            add_row(row)
    return prev


def seal(match: Any, prev: str = ZERO) -> str:
    """Chain every pending event of ``match``, append its ``Sealed`` event; returns the head digest.

    ``prev`` is the digest of the last stored event when the match already has events in the store
    (the chain then continues through the old seal).
    """
    pending = list(match.pending_events)
    last = chain(pending, prev)
    match._sealed(events=match.version, last=last)
    return chain(match.pending_events[len(pending):], last)


_COLLECT: Any = None  # the library's collect_events (BaseAggregate), once asked


def seal_stored(match: Any, mapper: Any, prev: str = ZERO, hex_rows: bool = False) -> tuple[str, list[Any]]:
    """``seal``, then the match's pending events collected and encoded for the recorder: each one's
    canonical bytes, hashed once, are its stored bytes (``zx_events.codec``). Returns the head and
    the stored events, ready for ``recorder.insert_events``; with ``hex_rows`` (a store that takes
    plain rows: ``MatchService.rows_direct``) and the project's mapper with neither compressor nor
    cipher, the rows ``(originator_id hex, originator_version, topic, state)`` instead."""
    states: list[bytes] = []
    rows: list[Any] | None = None
    plain = getattr(mapper, "stored_all", None) is not None and not mapper.compressor and not mapper.cipher
    if plain:
        states, rows = None, []  # type: ignore[assignment]  (chain makes the stored events itself)
    hex_rows = hex_rows and plain
    pending = list(match.pending_events)
    last = chain(pending, prev, states, rows, hex_rows)
    match._sealed(events=match.version, last=last)
    head = chain(match.pending_events[len(pending):], last, states, rows, hex_rows)
    global _COLLECT
    if _COLLECT is None:
        from eventsourcing.domain import BaseAggregate

        _COLLECT = BaseAggregate.collect_events
    if type(match).collect_events is _COLLECT and type(match.__dict__.get("_pending_events")) is list:
        # what the library's collect_events does, without its pop(0) an event
        events, match.__dict__["_pending_events"] = match.__dict__["_pending_events"], []
    else:
        events = match.collect_events()
    if rows is not None:
        return head, rows
    stored_all = getattr(mapper, "stored_all", None)
    if stored_all is None:  # another mapper: its own encoding
        return head, [mapper.to_stored_event(e) for e in events]
    return head, stored_all(events, states)


# ---------------------------------------------------------------------- reading the store
def decode_state(mapper: Any, stored: Any) -> dict[str, Any]:
    """A stored event's fields, as the transcoder wrote them (no upcasting, no topic lookup)."""
    state = stored.state
    if mapper.cipher:
        state = mapper.cipher.decrypt(state)
    if mapper.compressor:
        state = mapper.compressor.decompress(state)
    out = mapper.transcoder.decode(state)
    if not isinstance(out, dict):
        raise ValueError("the stored state is not an object")
    return out


class Row:
    """One stored event, ready to verify: its position, topic, stored digest and canonical bytes;
    ``state`` (its decoded fields) is decoded when first asked for."""

    __slots__ = ("seq", "topic", "digest", "body", "_state", "_raw", "originator_id")

    def __init__(self, seq: int, topic: str, digest: str | None, body: bytes | None, state: dict[str, Any] | None,
                 originator_id: Any, raw: bytes | None = None) -> None:
        self.seq, self.topic, self.digest, self.body = seq, topic, digest, body  # body None: cannot be decoded
        self._state, self._raw, self.originator_id = state, raw, originator_id

    @property
    def state(self) -> dict[str, Any] | None:
        if self._raw is not None:
            try:
                d = orjson.loads(self._raw)
                self._state = d if isinstance(d, dict) else None
            except orjson.JSONDecodeError:
                self._state = None
            self._raw = None
        return self._state

    def __repr__(self) -> str:
        return f"Row(seq={self.seq}, topic={self.topic!r}, digest={self.digest!r})"

    def body_as(self, version: int) -> bytes:
        """The canonical bytes this event would have at another position."""
        return canonical(self.topic, self.originator_id, version, self.state or {})


def read_rows(mapper: Any, stored: Sequence[Any]) -> list[Row]:
    """The rows of ``stored`` events, ready for ``verify_rows``.

    An event stored as its canonical bytes plus its digest (``zx_events.codec``) is verified on the
    stored bytes themselves, once the id, version and topic inside them are found to be the row's
    (exact key-value bytes: the keys are sorted, so the id and the version are adjacent); any other
    (an event stored before 0.2, or one whose inside disagrees with its row) is decoded and its
    canonical bytes computed again, as they were at import.
    """
    rows = []
    plain = getattr(mapper, "plain", None)
    key_at, ids, topics = -SUFFIX + len(DIGEST_KEY), {}, {}
    for s in stored:
        oid = s.originator_id
        try:
            raw = plain(s.state) if plain is not None else None
            if raw is not None and raw[-SUFFIX:key_at] == DIGEST_KEY and raw[-2:] == b'"}':
                key = oid.int if isinstance(oid, UUID) else oid
                text = ids.get(key)
                if text is None:
                    text = ids[key] = b'"originator_id":"%s",' % str(oid).encode()
                topic = topics.get(s.topic)
                if topic is None:
                    topic = topics[s.topic] = b'"topic":"%s"' % s.topic.encode()
                if b'"originator_version":%d,' % s.originator_version in raw and text in raw and topic in raw:
                    rows.append(Row(s.originator_version, s.topic, raw[-66:-2].decode("ascii"),
                                    raw[:-SUFFIX] + b"}", None, oid, raw))
                    continue
            state = decode_state(mapper, s)
            body = canonical(s.topic, oid, s.originator_version, state)
            digest = state.get("digest")
        except Exception:  # an undecodable payload is an altered one
            state, digest, body = None, None, None
        rows.append(Row(s.originator_version, s.topic, digest if isinstance(digest, str) else None, body, state, oid))
    return rows


# ---------------------------------------------------------------------- verifying
@dataclass
class Verdict:
    """The result for one match: ``status`` is ``ok`` or the kind of the first failure at ``seq``."""

    match: str
    events: int
    status: str
    seq: int | None
    message: str
    head: str | None  # the digest of the last event as stored (the match's head when ok)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        return {"match": self.match, "events": self.events, "status": self.status, "ok": self.ok,
                "seq": self.seq, "head": self.head, "message": self.message}


def _verifies(row: Row, digest_of: str, prev: str) -> bool:
    return row.body is not None and row.digest is not None and link(prev, row.body) == digest_of


def verify_rows(match: str, rows: Sequence[Row]) -> Verdict:
    """Recompute the chain over ``rows`` (sorted by version) and name the first failure."""
    n = len(rows)
    head = rows[-1].digest if rows else None

    def bad(kind: str, seq: int | None, message: str) -> Verdict:
        return Verdict(match, n, kind, seq, message, head)

    if not rows:
        return bad("deleted", 1, "no stored events: the whole match was deleted")
    if all(r.digest is None for r in rows) and all(r.body is not None for r in rows):
        # (every release of zx, 0.1.0 on, wrote a digest into every event: none at all is not a store's age)
        return bad("unchained", None, "no event carries a digest: zx import writes one into every event (every "
                                      "release, 0.1.0 on), so they were removed, or the events written outside it")
    seals = [i for i, r in enumerate(rows) if is_seal(r.topic)]
    last_seal = seals[-1] if seals else None
    prev = ZERO
    for i, row in enumerate(rows):
        expected = i + 1
        if last_seal is not None and i > last_seal:
            return bad("inserted", row.seq, f"seq {row.seq} ({_short_topic(row.topic)}) comes after the seal "
                                            f"at seq {rows[last_seal].seq}: it was added after the import")
        if row.seq > expected:
            missing = expected if expected == row.seq - 1 else f"{expected}-{row.seq - 1}"
            return bad("deleted", expected, f"seq {missing} missing: the versions jump from {expected - 1} "
                                            f"to {row.seq}")
        if row.seq < expected:
            return bad("inserted", row.seq, f"seq {row.seq} is out of range (the first event is seq 1)")
        if row.body is not None and row.digest is None:
            seal = rows[last_seal] if last_seal is not None else None
            if seal is not None and seal.seq == n and (seal.state or {}).get("events") == n - 1:
                # as many events as the match's seal counts: none was added, this one lost its digest
                return bad("altered", row.seq, f"seq {row.seq} ({_short_topic(row.topic)}) has no digest, and the "
                                                f"match holds the {n - 1:,} events its seal counts: its digest was "
                                                f"removed (its content may have been edited)")
            return bad("inserted", row.seq, f"seq {row.seq} ({_short_topic(row.topic)}) has no digest: "
                                            f"the importer did not write it")
        if not _verifies(row, row.digest or "", prev):
            return _diagnose(match, rows, i, prev, head)
        prev = row.digest
    if last_seal is None:
        return bad("deleted", n + 1, f"the match ends at seq {n} without its seal: its last events were deleted")
    sealed = rows[-1]  # the last seal: anything after it was reported above
    before = rows[-2].digest if n > 1 else ZERO
    if (sealed.state or {}).get("events") != sealed.seq - 1 or (sealed.state or {}).get("last") != before:
        return bad("altered", sealed.seq, f"the seal at seq {sealed.seq} does not describe the events before it")
    return Verdict(match, n, "ok", None, f"{n:,} events, chain intact", head)


def _diagnose(match: str, rows: Sequence[Row], i: int, prev: str, head: str | None) -> Verdict:
    """The event at position ``i`` fails its link: reordered, inserted, or altered?"""
    row, seq, n = rows[i], rows[i].seq, len(rows)

    def verdict(kind: str, message: str) -> Verdict:
        return Verdict(match, n, kind, seq, message, head)

    what = _short_topic(row.topic)
    if row.body is None:
        return verdict("altered", f"seq {seq} ({what}): the stored payload cannot be decoded")
    found = recorded_elsewhere(rows, i)
    if found is not None:
        k, kept = found
        m = rows[k].seq
        if kept:
            return verdict("inserted", f"seq {seq} ({what}) is a copy of seq {m}, which is still in place")
        return verdict("reordered", f"seq {seq} holds the event recorded as seq {m} ({what}): "
                                    f"events were swapped or moved")
    if i + 1 < n and rows[i + 1].body is not None and rows[i + 1].digest is not None and \
            link(prev, rows[i + 1].body_as(seq)) == rows[i + 1].digest:
        return verdict("inserted", f"seq {seq} ({what}) was inserted: the event after it was recorded as seq {seq}")
    last = rows[-1]
    counted = (last.state or {}).get("events") if is_seal(last.topic) else None
    if isinstance(counted, int) and counted > n - 1:  # the seal counts more events than are left
        return verdict("deleted", f"an event was deleted at seq {seq} and the later ones renumbered: the seal "
                                  f"counts {counted:,} events before it, the store holds {n - 1:,}")
    if row.digest is None:
        return verdict("altered", f"seq {seq} ({what}): its digest was removed")
    return verdict("altered", f"digest mismatch at seq {seq} ({what}): its payload was changed after import "
                              f"(or the digest of seq {seq - 1} was rewritten)")


def recorded_elsewhere(rows: Sequence[Row], i: int) -> tuple[int, bool] | None:
    """Whether the event at position ``i`` (one that fails its link there) verifies as the event recorded at
    another position ``k``: ``(k, kept)``, ``kept`` when the event at ``k`` is still in its place (``i`` holds a
    copy of it: inserted) and not (events swapped or moved: reordered); None when it verifies nowhere else.
    ``_diagnose`` words it for a store, ``zx_events.bundle`` for a dispute bundle's lines."""
    row, seq = rows[i], rows[i].seq
    if row.body is None or row.digest is None:
        return None
    in_place = [k == 0 and _verifies(r, r.digest or "", ZERO) or k > 0 and
                _verifies(r, r.digest or "", rows[k - 1].digest or "") for k, r in enumerate(rows)]
    displaced = {ZERO} | {r.digest for k, r in enumerate(rows) if not in_place[k] and r.digest}
    for k, other in enumerate(rows):  # does this event verify as the event of another position?
        m = other.seq
        if m == seq:
            continue
        prevs = displaced | ({rows[k - 1].digest} if k > 0 and rows[k - 1].digest else set())
        body = row.body_as(m)
        if any(link(p, body) == row.digest for p in prevs):
            return k, in_place[k]
    return None


def _short_topic(topic: str) -> str:
    return topic.rsplit(":", 1)[-1]


# ---------------------------------------------------------------------- the application's side
def stored_rows(app: Any, originator_id: Any) -> list[Row]:
    return read_rows(app.mapper, app.recorder.select_events(originator_id))


def verify_stored(app: Any, match: str, originator_id: Any) -> Verdict:
    """``verify_rows(match, stored_rows(app, originator_id))``, on one read of the rows.

    An intact match stored as canonical bytes (``zx_events.codec``) is checked in one pass over
    the stored bytes (``_intact``); anything else (a failure to diagnose, an event stored before
    0.2) is read into rows and verified, diagnosed and worded by ``verify_rows``."""
    stored = app.recorder.select_events(originator_id)
    try:
        verdict = _intact(app.mapper, match, stored)
    except (TypeError, AttributeError, ValueError):  # a row no importer wrote (a NULL or TEXT state): diagnosed below
        verdict = None
    return verdict if verdict is not None else verify_rows(match, read_rows(app.mapper, stored))


_VERSIONS: list[bytes] = []  # b"1," b"2," ...: the bytes after "originator_version": in a canonical event


def _intact(mapper: Any, match: str, stored: Sequence[Any]) -> Verdict | None:
    """The ``ok`` verdict when every stored event is canonical bytes plus digest, at its place (the
    id, version and topic inside it are the row's) and chained, and the last is the seal that
    counts them; otherwise None (``verify_rows`` then finds out what is wrong)."""
    from binascii import unhexlify

    plain = getattr(mapper, "plain", None)
    if plain is None or not stored:
        return None
    stored_plain = mapper.cipher is None and mapper.compressor is None  # (the default: no call per event)
    n = len(stored)
    while len(_VERSIONS) <= n:
        _VERSIONS.append(b"%d," % len(_VERSIONS))
    versions, sha256, key_at = _VERSIONS, hashlib.sha256, -SUFFIX + len(DIGEST_KEY)
    first = stored[0].originator_id
    if not isinstance(first, UUID):
        return None
    first_int = first.int
    idv = b'"originator_id":"%s",' % str(first).encode()
    key, skip = b'"originator_version":', len(b'"originator_version":')
    topics: dict[str, bytes] = {}
    prev = prev_hex = None
    before = ZERO
    digest = bytes(32)
    for i, s in enumerate(stored, 1):
        raw = s.state if stored_plain else plain(s.state)
        if s.originator_version != i or raw[-SUFFIX:key_at] != DIGEST_KEY or raw[-2:] != b'"}' \
                or s.originator_id.int != first_int:
            return None
        at = raw.find(key) + skip
        v = versions[i]
        if at < skip or raw[at:at + len(v)] != v or (i == 1 and idv not in raw):
            return None  # (the other events' ids: the chain from the first proves them the first's)
        topic = topics.get(s.topic)
        if topic is None:
            topic = topics[s.topic] = b'"topic":"%s"' % s.topic.encode()
        if raw.rfind(topic) < 0:  # (from the end: "topic" is among the last keys of the sorted body)
            return None
        h = sha256(digest)
        h.update(raw[:-SUFFIX])
        h.update(b"}")
        digest = h.digest()
        try:
            if unhexlify(raw[-66:-2]) != digest:
                return None
        except ValueError:
            return None
        prev, before, prev_hex = raw, prev_hex, raw[-66:-2]
    if not is_seal(stored[-1].topic):
        return None
    sealed = orjson.loads(prev)
    if sealed.get("events") != n - 1 or sealed.get("last") != (before.decode() if before else ZERO):
        return None
    head = prev_hex.decode()
    return Verdict(match, n, "ok", None, f"{n:,} events, chain intact", head)


def stored_head(app: Any, originator_id: Any) -> str | None:
    """The head digest of a stored match: the digest of its last event (its seal), or None."""
    last = app.recorder.select_events(originator_id, desc=True, limit=1)
    if not last:
        return None
    try:
        digest = decode_state(app.mapper, last[0]).get("digest")
    except Exception:
        return None
    return digest if isinstance(digest, str) else None


def forged(verdict: Verdict, match_id: str, originator_id: Any) -> Verdict:
    """``verdict`` of a stored aggregate whose Started event says ``match_id`` but which is not filed
    under ``match_uuid(match_id)``, where zx import files that match (``zx_events.ids.filed_under``):
    a copy of a match's rows or a forgery, whatever its own chain and the store seal say of it."""
    from zx_events.ids import match_uuid

    own = "" if verdict.ok else f"; its own check: {verdict.status}: {verdict.message}"
    return Verdict(verdict.match, verdict.events, "forged", 1 if verdict.events else None,
                   f"its Started event says match {match_id}, which zx import files under {match_uuid(match_id)}, not "
                   f"under this aggregate's id {originator_id}: zx import did not write it (a copy of a match's events, "
                   f"or a forgery){own}", verdict.head)


def check_head(verdict: Verdict, head: str) -> Verdict:
    """Compare the stored head with one written down elsewhere (a prefix of at least 16 hex digits)."""
    given = head.strip().lower()
    if verdict.head is not None and verdict.head.startswith(given):
        return verdict
    if not verdict.ok:
        return verdict
    return Verdict(verdict.match, verdict.events, "head", verdict.events or None,
                   f"the stored head {verdict.head[:16] if verdict.head else None} is not the head written down "
                   f"({given[:16]}): the match was rewritten with a recomputed chain, or this is another match",
                   verdict.head)
