"""Replay a stored match: its state after any event, at the start of any turn, step by step.

Only the event store is read. ``seq`` is the aggregate version: 1 is the ``Started`` event. A
*step* is one log record: the events that carry its ``line``, in order (derived events such as
``ZXDestroyed``, ``BattleEnded`` or ``MatchEnded`` carry the line of the record that caused them,
and so do the ``ViolationRecorded`` events of ``--accept-violations``). Step 0 is the header.

Seeking is fast because of snapshots: the first seek into a match that has none writes one every
``SNAPSHOT_EVERY`` versions (``prepare_snapshots``; imports stay as fast as before), and every seek
then decodes one snapshot plus at most ``SNAPSHOT_EVERY - 1`` events with a plain projector.

A snapshot is a state made by the event bodies of ``zx_events/match.py``; when they change, a
stored snapshot may no longer be what replaying the events gives. So snapshots are filed under an
id derived from the match and a fingerprint of that code (``snapshot_id``): after any change of
match.py the old ones are never read again, and new ones are written on the next seek.
"""

from __future__ import annotations

import dataclasses
import hashlib
import uuid
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping
from weakref import WeakKeyDictionary

from eventsourcing.domain import Snapshot
from eventsourcing.persistence import EventStore, IntegrityError, PersistenceError, StoredEvent

from . import match as match_module
from .cards import load_catalog
from .errors import ZXError
from .match import Match, match_uuid, project, topic
from .views import (JUDGE, Masker, MatchView, ViolationView, build_view, event_fields, plain, redact_event,
                    redact_record)

SNAPSHOT_EVERY = 50
TOPIC_TURN = topic("TurnStarted")
_OWN_STORES: "WeakKeyDictionary[Any, EventStore]" = WeakKeyDictionary()
_UNWRITABLE: "WeakKeyDictionary[Any, set[str]]" = WeakKeyDictionary()  # matches whose snapshots failed


class UnknownMatch(ZXError):
    """No match with this id in the store."""

    kind = "not_found"


class OutOfRange(ZXError):
    """A seq or turn the match does not have."""

    kind = "range"


# ---------------------------------------------------------------------- catalog (names)
@dataclass(frozen=True)
class CardNames:
    names: Mapping[str, str]
    mask: Masker
    warning: str | None


@lru_cache(maxsize=16)
def card_names(name: str | None, sha256: str | None) -> CardNames:
    """Card names from the catalog a match was checked against; a warning when it changed or is gone."""
    try:
        cat = load_catalog(name or "sample")
    except ZXError as e:
        return CardNames(MappingProxyType({}), Masker(), f"catalog {name!r} cannot be loaded ({e.message}): "
                                                         f"cards are shown by code only")
    names = {c.code: c.name for c in cat.cards.values()}
    warning = None
    if sha256 and cat.sha256 != sha256:
        warning = (f"the match was checked against catalog {name!r} sha256 {sha256[:12]}, the current one is "
                   f"{cat.sha256[:12]}: card names are today's and may differ from the match's")
    return CardNames(MappingProxyType(names), Masker([*names, *names.values()]), warning)


def names_for(match: Match) -> CardNames:
    ref = match.catalog or {}
    return card_names(ref.get("name"), ref.get("sha256"))


# ---------------------------------------------------------------------- reading the store
def _snapshots(svc: Any) -> EventStore:
    """The application's snapshot store, or one opened on the same datastore (same table)."""
    if svc.snapshots is not None:
        return svc.snapshots
    store = _OWN_STORES.get(svc)
    if store is None:
        recorder = svc.factory.aggregate_recorder(purpose="snapshots")
        store = svc.factory.event_store(mapper=svc.mapper, recorder=recorder)
        _OWN_STORES[svc] = store
    return store


@lru_cache(maxsize=1)
def projection_fingerprint() -> str:
    """What replaying events runs: the Match's event bodies (match.py) and the eventsourcing version."""
    code = Path(match_module.__file__).read_bytes() + version("eventsourcing").encode()
    return hashlib.sha256(code).hexdigest()[:16]


def snapshot_id(match_id: str) -> uuid.UUID:
    """Where this code's snapshots of a match are filed (never the match's own id)."""
    return uuid.uuid5(match_uuid(match_id), f"zx-replay-snapshot:{projection_fingerprint()}")


def _from_snapshot(snapshot: Any, match_id: str) -> Match:
    match = snapshot.mutate(None)
    match.__dict__["_id"] = match_uuid(match_id)  # filed under snapshot_id; the events check the match's id
    return match


def stored_events(svc: Any, match_id: str, *, gt: int | None = None, lte: int | None = None) -> list[StoredEvent]:
    return svc.recorder.select_events(match_uuid(match_id), gt=gt, lte=lte)


def last_seq(svc: Any, match_id: str) -> int:
    rows = svc.recorder.select_events(match_uuid(match_id), desc=True, limit=1)
    if not rows:
        raise unknown(svc, match_id)
    return rows[0].originator_version


def unknown(svc: Any, match_id: str) -> UnknownMatch:
    return UnknownMatch(f"unknown match {match_id!r}: it is not in the store {svc.store.label} "
                        f"(zx matches lists the stored ones)")


def prepare_snapshots(svc: Any, match_id: str, every: int | None = None) -> int:
    """Write the missing snapshots of a match (one every ``every`` versions, default
    ``SNAPSHOT_EVERY``); returns how many it wrote."""
    every = every or SNAPSHOT_EVERY
    sid = snapshot_id(match_id)
    store = _snapshots(svc)
    last = store.recorder.select_events(sid, desc=True, limit=1)
    have = last[0].originator_version if last else 0
    rows = svc.recorder.select_events(match_uuid(match_id))
    if not rows:
        raise unknown(svc, match_id)
    match: Match | None = None
    todo: list[StoredEvent] = []
    for row in rows:
        match = svc.mapper.to_domain_event(row).mutate(match)
        v = match.version
        if v % every == 0 and v > have:  # encoded at once: the state keeps changing after this
            snap = dataclasses.replace(Snapshot.take(match), originator_id=sid)
            todo.append(svc.mapper.to_stored_event(snap))
    if todo:
        try:
            store.recorder.insert_events(todo)
        except IntegrityError:  # another reader wrote them meanwhile
            return 0
        except PersistenceError:  # e.g. a read-only store: seeks still work, only slower
            _UNWRITABLE.setdefault(svc, set()).add(match_id)
            return 0
    return len(todo)


def state_at(svc: Any, match_id: str, seq: int | None = None) -> Match:
    """The match after event ``seq`` (None: after its last event): a live aggregate, for the engine."""
    if seq is not None and seq < 1:
        raise OutOfRange(f"seq {seq}: events are numbered from 1 (the Started event)")
    snap = _snapshots(svc).recorder.select_events(snapshot_id(match_id), lte=seq, desc=True, limit=1)
    gt = snap[0].originator_version if snap else None
    rows = svc.recorder.select_events(match_uuid(match_id), gt=gt, lte=seq)
    if not snap and not rows:
        raise unknown(svc, match_id)
    reached = rows[-1].originator_version if rows else gt
    if seq is not None and reached < seq:
        raise OutOfRange(f"match {match_id} has {reached} events: seq must be 1..{reached}")
    decode = svc.mapper.to_domain_event
    match = project(_from_snapshot(decode(snap[0]), match_id) if snap else None, (decode(r) for r in rows))
    if len(rows) >= SNAPSHOT_EVERY and match_id not in _UNWRITABLE.get(svc, ()):
        prepare_snapshots(svc, match_id)  # no snapshot yet where one belongs: write them for the next seek
    return match


def turn_starts(svc: Any, match_id: str) -> list[int]:
    """The seq of each turn's ``TurnStarted`` event: ``turn_starts(...)[N - 1]`` starts turn N."""
    rows = stored_events(svc, match_id)
    if not rows:
        raise unknown(svc, match_id)
    return [r.originator_version for r in rows if r.topic == TOPIC_TURN]


def turn_seq(svc: Any, match_id: str, turn: int) -> int:
    starts = turn_starts(svc, match_id)
    if not 1 <= turn <= len(starts):
        raise OutOfRange(f"match {match_id} has {len(starts)} turns: turn must be 1..{len(starts)}")
    return starts[turn - 1]


def view_at(svc: Any, match_id: str, *, seq: int | None = None, turn: int | None = None,
            perspective: str = JUDGE) -> MatchView:
    """The state after event ``seq``, or at the start of ``turn``, as ``perspective`` sees it."""
    if turn is not None:
        seq = turn_seq(svc, match_id, turn)
    match = state_at(svc, match_id, seq)
    cn = names_for(match)
    return build_view(match, perspective, cn.names, mask=cn.mask)


# ---------------------------------------------------------------------- steps
def freeze(value: Any) -> Any:
    """A deep read-only copy of JSON-like data: dicts become mappings, lists tuples."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


thaw = plain  # the inverse of ``freeze``: views.plain turns any frozen view data back into JSON-native data


@dataclass(frozen=True, slots=True)
class EventView:
    seq: int
    kind: str
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "data": thaw(self.data)}


@dataclass(frozen=True, slots=True)
class Step:
    """One log record: the record, the events it produced, and the state after them."""

    index: int  # 0 = the header
    line: int | None
    seq_first: int
    seq_last: int
    record: Mapping[str, Any] | None
    events: tuple[EventView, ...]
    violations: tuple[ViolationView, ...]  # recorded at this step (--accept-violations)
    state: MatchView

    @property
    def turn(self) -> int:
        return self.state.turn

    def to_json(self) -> dict[str, Any]:
        return {"step": self.index, "line": self.line, "seq_first": self.seq_first, "seq_last": self.seq_last,
                "record": thaw(self.record), "events": [e.to_json() for e in self.events],
                "violations": [{"line": v.line, "turn": v.turn, "player": v.player, "rule": v.rule,
                                "message": v.message, "applied": v.applied} for v in self.violations],
                "state": self.state.to_json()}


@dataclass(frozen=True)
class History:
    """Every event of a stored match, decoded once, grouped into steps."""

    match_id: str
    events: tuple[Any, ...]  # decoded domain events, seq order (events[i] has seq i + 1)
    bounds: tuple[tuple[int, int], ...]  # per step: (first seq, last seq)
    turns: tuple[int, ...]  # turns[N - 1] = seq of turn N's TurnStarted

    @property
    def last_seq(self) -> int:
        return len(self.events)

    def step_of(self, seq: int) -> int:
        """The index of the step that holds event ``seq``."""
        lo, hi = 0, len(self.bounds) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.bounds[mid][0] <= seq:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def turn_seq(self, turn: int) -> int:
        if not 1 <= turn <= len(self.turns):
            raise OutOfRange(f"match {self.match_id} has {len(self.turns)} turns: turn must be 1..{len(self.turns)}")
        return self.turns[turn - 1]

    def check_seq(self, seq: int) -> int:
        if not 1 <= seq <= self.last_seq:
            raise OutOfRange(f"match {self.match_id} has {self.last_seq} events: seq must be 1..{self.last_seq}")
        return seq

    def state_at(self, seq: int) -> Match:
        """The aggregate after ``seq``, projected from the decoded events (a fresh object)."""
        return project(None, self.events[: self.check_seq(seq)])

    def step_at(self, seq: int, perspective: str = JUDGE) -> Step:
        """The step holding event ``seq``, cut after it: its record, its events up to ``seq``, the state."""
        index = self.step_of(self.check_seq(seq))
        lo = self.bounds[index][0]
        match = self.state_at(seq)
        return _step(index, self.events[lo - 1: seq], match, perspective, names_for(match), self.last_seq)

    def steps(self, perspective: str = JUDGE, start: int = 0, stop: int | None = None) -> Iterator[Step]:
        """Steps ``start``..``stop - 1``, each with its record, events and state after, as seen."""
        stop = len(self.bounds) if stop is None else min(stop, len(self.bounds))
        if start >= stop:
            return
        first = self.bounds[start][0]
        match = project(None, self.events[: first - 1]) if first > 1 else None
        cn: CardNames | None = names_for(match) if match is not None else None
        for index in range(start, stop):
            lo, hi = self.bounds[index]
            chunk = self.events[lo - 1: hi]
            match = project(match, chunk)
            if cn is None:
                cn = names_for(match)
            yield _step(index, chunk, match, perspective, cn, self.last_seq)


def _step(index: int, chunk: Any, match: Match, perspective: str, cn: CardNames, last: int) -> Step:
    record = None
    for e in chunk:
        rec = getattr(e, "rec", None)
        if rec is not None:
            record = rec
            break
    events = []
    violations = []
    for e in chunk:
        kind = type(e).__name__
        events.append(EventView(e.originator_version, kind,
                                freeze(redact_event(kind, event_fields(e), perspective, cn.mask))))
        if kind == "ViolationRecorded":
            message = e.message if perspective == JUDGE else cn.mask(e.message)
            violations.append(ViolationView(e.line, e.turn, e.player, e.rule, message, e.rec is None))
    view = build_view(match, perspective, cn.names, mask=cn.mask, last_seq=last)
    return Step(index=index, line=getattr(chunk[0], "line", None), seq_first=chunk[0].originator_version,
                seq_last=chunk[-1].originator_version,
                record=freeze(redact_record(record, perspective, cn.mask)), events=tuple(events),
                violations=tuple(violations), state=view)


def load_history(svc: Any, match_id: str) -> History:
    rows = stored_events(svc, match_id)
    if not rows:
        raise unknown(svc, match_id)
    decode = svc.mapper.to_domain_event
    events = tuple(decode(r) for r in rows)
    bounds: list[tuple[int, int]] = []
    current: Any = object()
    for e in events:
        line = getattr(e, "line", None)
        seq = e.originator_version
        if bounds and (line is None or line == current):
            bounds[-1] = (bounds[-1][0], seq)
        else:
            bounds.append((seq, seq))
            current = line
    turns = tuple(e.originator_version for e in events if type(e).__name__ == "TurnStarted")
    return History(match_id, events, tuple(bounds), turns)


def steps(svc: Any, match_id: str, perspective: str = JUDGE) -> Iterator[Step]:
    """The ordered steps of a stored match (step 0 = the header), each with the state after it."""
    return load_history(svc, match_id).steps(perspective)
