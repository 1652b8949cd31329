"""Replay a stored match: its state after any event, at the start of any turn, step by step.

Only the event store is read. ``seq`` is the aggregate version: 1 is the ``Started`` event. A
*step* is one log record: the events that carry its ``line``, in order (derived events such as
``ZXDestroyed``, ``BattleEnded`` or ``MatchEnded`` carry the line of the record that caused them,
and so do the ``ViolationRecorded`` events of ``--accept-violations``). Step 0 is the header.

Seeking is fast because of snapshots: the first seek into a match that has none writes one every
``SNAPSHOT_EVERY`` versions (``prepare_snapshots``; imports stay as fast as before), and every seek
then decodes one snapshot plus at most ``SNAPSHOT_EVERY - 1`` events with a plain projector. A match
whose state keeps growing (thousands of accepted violations or modifiers) gets them further apart:
one is filed only once the events since the one before hold ``1 / SNAPSHOT_SPACE`` of that one's
bytes (``_next_due``), so its snapshots' bytes stay within ``SNAPSHOT_SPACE`` times its events' bytes
(every ``SNAPSHOT_EVERY`` versions they would grow with the square of its length), and a seek
decodes at most that share of a snapshot's bytes in events besides it.

A snapshot is a state made by the event bodies of a game's aggregate (``Game.projection_code``, for
Z/X ``zx_events/games/zx/match.py``); when they change, a stored snapshot may no longer be what
replaying the events gives. So snapshots are filed under an id derived from the match and a
fingerprint of every game's code (``snapshot_id``): after any change of it the old ones are never
read again, and new ones are written on the next seek.
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
import os
import sqlite3
import uuid
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from types import MappingProxyType
from typing import Any, Iterator, Mapping
from weakref import WeakKeyDictionary

import orjson

from eventsourcing.domain import Snapshot
from eventsourcing.persistence import EventStore, IntegrityError, PersistenceError, StoredEvent

from zx_events import games
from zx_events.errors import ArgumentTypeError, DamagedMatch, ReadOnlyService, ZXError, shown  # noqa: F401 (DamagedMatch, ReadOnlyService: their homes before)
from zx_events.ids import match_uuid, project
from zx_events.narration import seat_players
from zx_events.seats import JUDGE, PERSPECTIVES, Masker, ViolationView, event_fields, freeze, parse_perspective, plain
from zx_events.seats import engine_message  # a violation's message as a seat reads it (masked, or withheld)

SNAPSHOT_EVERY = 10  # a seek decodes one snapshot and at most 9 events
SNAPSHOT_SPACE = 4  # ... and, past a snapshot of S bytes, at most S / 4 bytes of events more (_next_due)
SNAPSHOT_TABLE = "stored_snapshots"  # eventsourcing's table of the "snapshots" recorder, beside the events
Match = Any  # a game's match aggregate
MatchView = Any  # a game's frozen view
_OWN_STORES: "WeakKeyDictionary[Any, EventStore]" = WeakKeyDictionary()
_UNWRITABLE: "WeakKeyDictionary[Any, set[str]]" = WeakKeyDictionary()  # matches whose snapshots failed
_DISTRUSTED: "WeakKeyDictionary[Any, set[str]]" = WeakKeyDictionary()  # matches with a snapshot that failed its check
_READ_ONLY: "WeakKeyDictionary[Any, bool]" = WeakKeyDictionary()  # services whose store refused the snapshot table
SEQ_MAX = 1 << 62  # past any stored version (a larger position is compared as this: SQLite's INTEGER ends at 2**63)


def whole(value: Any, name: str) -> int:
    """``value`` as a position (``seq``, ``turn``): any whole number Python can index with (an ``int``,
    a NumPy integer from a DataFrame column), else ``TypeError``. A ``numpy.int64`` went to SQLite as a
    BLOB, greater than every INTEGER: the seek answered with the end of the match; ``3.5`` read 3 events."""
    if isinstance(value, bool):
        raise ArgumentTypeError(f"{name} must be a whole number (an event's or a turn's number), got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ArgumentTypeError(f"{name} must be a whole number (an event's or a turn's number), got "
                                f"{type(value).__name__} {value!r}") from None


class UnknownMatch(ZXError):
    """No match with this id in the store."""

    kind = "not_found"


class OutOfRange(ZXError):
    """A seq or turn the match does not have."""

    kind = "range"


def _reader(svc: Any) -> bool:
    """Whether ``svc`` was opened to read (``StoreConfig.reader``): nothing is written through it."""
    return bool(getattr(getattr(svc, "store", None), "reader", False))


def _read_only_service(svc: Any, what: str) -> ReadOnlyService:
    return ReadOnlyService.of(svc.store.label, what, "prepare")


# ---------------------------------------------------------------------- catalog (names)
@dataclass(frozen=True)
class CardNames:
    names: Mapping[str, str]
    mask: Masker
    warning: str | None


_WRITES = ("prepare_snapshots", "repair_snapshots")  # (their PersistenceError is zx prepare's to say)


def _service(fn: Any) -> Any:
    """A function of the Python API whose first argument is a ``MatchService``: anything else (a store's path,
    None) is a ``TypeError`` that says what to give (it was an AttributeError on ``recorder``, inside). The store
    failing under a read (a damaged file: sqlite3's or eventsourcing's ``DatabaseError``, raw) is a
    ``StoreFailure`` in ``zx``'s words (``store.failures_said``)."""
    from functools import wraps

    from eventsourcing.application import Application

    from zx_events.store import StoreConfig, failures_said

    @wraps(fn)
    def checked(svc: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(svc, Application):
            raise ArgumentTypeError(
                f"replay.{fn.__name__} takes a MatchService (zx_events.application.MatchService(store, "
                f"create=False)), not {type(svc).__name__} {shown(svc)}")
        store = getattr(svc, "store", None)
        if not isinstance(store, StoreConfig):  # (an Application of another kind: as before)
            return fn(svc, *args, **kwargs)
        with failures_said(store, translate=fn.__name__ not in _WRITES):
            return fn(svc, *args, **kwargs)
    return checked


def game_of(match: Any) -> Any:
    """The game whose aggregate ``match`` is (``zx_events.games.base.Game``)."""
    for game in games.all_games():
        if isinstance(match, game.aggregate):
            return game
    raise ZXError(f"{type(match).__name__} is the match of no installed game")


def given_catalogs(catalogs: Any, argument: str = "catalogs") -> tuple[Any, ...]:
    """``catalogs=`` of the Python API (``view_at``, ``steps``, ``load_history``, ``history_of``,
    ``zx_analytics.projection.update``) as a tuple: catalogs loaded from files (``games.load_catalogs(FILE)
    .values()``), or None for none. Anything else is a ``TypeError`` saying what to give, raised before anything
    is read or written: a file's name, the dict ``load_catalogs`` gives or a list of names were ignored without a
    word (the view lacked the card names) or, for an update with ``rebuild=True``, emptied the analytics file
    and then failed inside (QA round 37)."""
    if catalogs is None:
        return ()
    want = (f"{argument} must be catalogs loaded from files, such as "
            f"zx_events.games.load_catalogs(FILE).values()")
    if isinstance(catalogs, Mapping):
        raise ArgumentTypeError(
            f"{want}, got a {type(catalogs).__name__} of keys {shown(list(catalogs)[:5], 80)}: pass its "
            f".values()")
    if isinstance(catalogs, (str, bytes, os.PathLike)):
        raise ArgumentTypeError(
            f"{want}, got {type(catalogs).__name__} {shown(catalogs, 80)}: a file's name is read by "
            f"load_catalogs(FILE)")
    if hasattr(catalogs, "game") and hasattr(catalogs, "sha256"):
        raise ArgumentTypeError(f"{want}, got one catalog: pass it in a list, [catalog]")
    try:
        given = tuple(catalogs)
    except TypeError:
        raise ArgumentTypeError(f"{want}, got {type(catalogs).__name__} {shown(catalogs, 80)}") from None
    for c in given:
        if not (hasattr(c, "game") and hasattr(c, "sha256")) or isinstance(c, type):
            raise ArgumentTypeError(
                f"{want}, got a {type(catalogs).__name__} holding {type(c).__name__} {shown(c, 80)}"
                f"{': a file is read by load_catalogs(FILE)' if isinstance(c, (str, os.PathLike)) else ''}")
    return given


def given_for(game_key: str, sha256: Any, catalogs: Any = ()) -> Any:
    """The one of ``catalogs`` (catalog files the user gave: ``zx replay --catalog FILE``, read by
    ``games.load_catalogs``) of game ``game_key`` whose content's SHA-256 is ``sha256`` (a stored match's pin),
    else None. A file is used for a match exactly when it holds the content the match pinned at import; a
    stored name is never read as a file (docs/security.md, section 5)."""
    if not isinstance(sha256, str) or not sha256:
        return None
    for cat in catalogs or ():
        if getattr(cat, "game", None) == game_key and getattr(cat, "sha256", None) == sha256:
            return cat
    return None


def card_names(game_key: str, name: str | None, sha256: str | None, catalogs: Any = ()) -> CardNames:
    """Card names from the catalog a match was checked against; a warning when it changed or is gone.
    ``catalogs``: the catalog files the user gave (``--catalog FILE``): the one holding the pinned content
    (``given_for``) gives the names of a match checked against a catalog file."""
    return _card_names(game_key, name, sha256, given_for(game_key, sha256, catalogs))


@lru_cache(maxsize=16)
def _card_names(game_key: str, name: str | None, sha256: str | None, given: Any = None) -> CardNames:
    public = games.get(game_key).public_names
    if given is not None:  # the file the match was checked against, given by the user: its names, its messages masked
        names = dict(given.names)
        return CardNames(MappingProxyType(names),
                         Masker([w for w in (*names, *names.values()) if w not in public]), None)
    try:
        cat = games.get(game_key).load_catalog(name or None, files=False)  # a stored name: never a file
    except ZXError as e:
        shipped = games.get(game_key).catalog_names()
        words: list[str] = []
        if name and name not in shipped:
            why = ("not a shipped catalog: the match was checked against a catalog file, which a stored match never "
                   "makes zx read (docs/security.md, section 5); give that file with --catalog FILE")
            # its names unknown: free text is masked with every shipped catalog's (a venue's copy of one)
            words = [w for n in shipped for w in _card_names(game_key, n, None).mask.words]
        else:
            why = e.message
        # its violation messages name cards by its names: withheld from every seat but the judge (seats.engine_message)
        return CardNames(MappingProxyType({}), Masker(words, withheld=True),
                         f"catalog {name!r} cannot be loaded ({why}): cards are shown by code only, violation "
                         f"messages to the judge only")
    names = dict(cat.names)
    warning = None
    if sha256 and cat.sha256 != sha256:  # the match's names may differ from today's: its messages withheld too
        from zx_events.pins import changed

        warning = (f"{changed('catalog', name, sha256, cat.sha256)}: card names are today's and may differ from the "
                   f"match's, violation messages are shown to the judge only")
    return CardNames(MappingProxyType(names), Masker([w for w in (*names, *names.values()) if w not in public],
                                                     withheld=warning is not None), warning)


card_names.cache_clear = _card_names.cache_clear  # type: ignore[attr-defined]  # (it was the cached function)


def names_for(match: Match, catalogs: Any = ()) -> CardNames:
    """The card names of ``match`` (``card_names`` of the catalog its Started event pinned; ``catalogs``: the
    catalog files the user gave)."""
    ref = match.catalog or {}
    return card_names(game_of(match).key, ref.get("name"), ref.get("sha256"), catalogs)


def pinned_by(match: Match) -> set[tuple[str, Any]]:
    """The (game key, SHA-256) of the catalog ``match`` was checked against (its Started event's pin): which of the
    catalog files given to a command that shows it (``--catalog FILE``) it uses (``given_for``)."""
    return {(game_of(match).key, (match.catalog or {}).get("sha256"))}


def pinned_catalogs(svc: Any) -> set[tuple[str, str]]:
    """The (game key, SHA-256) of the catalog each stored match was checked against (its Started event's pin): which
    of the catalog files given to a command (``--catalog FILE``) a stored match of it uses (``given_for``)."""
    from zx_events.summaries import TOPICS_STARTED

    out: set[tuple[str, str]] = set()
    for n in svc.notifications(list(TOPICS_STARTED)):
        try:
            ref = svc.mapper.fields(n.state).get("catalog")
            if isinstance(ref, Mapping) and isinstance(ref.get("sha256"), str):
                out.add((games.topic_key(n.topic), ref["sha256"]))
        except Exception:  # a payload that cannot be read (an altered store): zx verify names it; it pins nothing here
            continue
    return out


# ---------------------------------------------------------------------- reading the store
def _snapshots(svc: Any, create: bool = True) -> EventStore:
    """The application's snapshot store, or one opened on the same datastore (same table). With
    ``create`` its table is made here when missing (a writer: ``zx prepare``, a seek that files
    snapshots; on PostgreSQL by the store's guarded creation): ``PersistenceError`` when the store
    cannot be written (a read-only file, a role without CREATE); a store opened to read creates none.
    Without ``create`` the table is only opened (it exists: ``_stored_snapshots`` looked)."""
    if svc.snapshots is not None:
        return svc.snapshots
    store = _OWN_STORES.get(svc)
    if store is not None:
        return store
    factory = svc.factory
    if create or svc.store.kind not in ("sqlite", "postgres"):
        if svc.store.kind == "postgres" and not _pg_snapshot_table(svc):
            svc.recorder.create_table()  # (both tables, under the advisory lock, only what is missing)
        recorder = factory.aggregate_recorder(purpose="snapshots")
    else:  # eventsourcing's own names: stored_snapshots beside a SQLite file's events, matches_snapshots
        from zx_events.store import snapshots_table

        name = SNAPSHOT_TABLE if svc.store.kind == "sqlite" else snapshots_table(svc.recorder.events_table_name)
        recorder = factory.aggregate_recorder_class(datastore=factory.datastore, events_table_name=name)
    store = factory.event_store(mapper=svc.mapper, recorder=recorder)
    _OWN_STORES[svc] = store
    return store


def _writable_snapshots(svc: Any) -> EventStore | None:
    """``_snapshots(svc)`` for a seek that may file snapshots, or, where the store refuses to make their
    table (a read-only file, a role without CREATE: remembered), the snapshots already stored, written
    never (``_stored_snapshots``): such a store still replays (it raised the store's error at the first seek)."""
    if svc not in _READ_ONLY:
        try:
            return _snapshots(svc)
        except PersistenceError:
            _READ_ONLY[svc] = True
    return _stored_snapshots(svc)


def _pg_snapshot_table(svc: Any) -> bool:
    """Whether a PostgreSQL store has its snapshots table (read, never created)."""
    from zx_events.store import snapshots_table

    rec = svc.recorder
    table = f'"{rec.datastore.schema}"."{snapshots_table(rec.events_table_name)}"'
    with rec.datastore.get_connection() as conn:
        return conn.execute("SELECT to_regclass(%s) IS NOT NULL AS ok", (table,)).fetchone()["ok"] is True


def _stored_snapshots(svc: Any) -> EventStore | None:
    """The snapshot store for a reader that writes nothing (``seek(prepare=False)``): None while a
    SQLite file has no snapshot table yet (the first seek that files snapshots, or ``zx prepare``,
    creates it; opening the store through ``_snapshots`` would create it here)."""
    if svc.snapshots is not None or svc in _OWN_STORES:
        return _snapshots(svc)
    if svc.store.kind == "postgres":
        return _snapshots(svc, create=False) if _pg_snapshot_table(svc) else None
    if svc.store.kind != "sqlite":
        return _snapshots(svc)
    try:
        found = svc.read_one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [SNAPSHOT_TABLE])
    except sqlite3.Error:
        return None
    return _snapshots(svc, create=False) if found is not None else None


@_service
def no_snapshots(svc: Any, sample: int = 64) -> bool:
    """Whether a SQLite or PostgreSQL store has no replay snapshot this code can use (its seeks replay every match
    from the first event until ``zx prepare``, or a seek that may write, files them): none at all, or none of this
    code's (``projection_fingerprint``) for the first ``sample`` stored matches, as after an upgrade, whose
    snapshots were all ignored without a word; False when it has some, or cannot tell. (PostgreSQL: it said False
    always, so ``zx serve`` never gave its note there.)"""
    fingerprint = projection_fingerprint()
    if svc.store.kind == "postgres":
        return _no_pg_snapshots(svc, sample, fingerprint)
    if svc.store.kind != "sqlite":
        return False
    if _stored_snapshots(svc) is None:
        return True
    c = svc.read_connection()
    if c is None:
        return False
    try:
        if c.execute(f"SELECT 1 FROM {SNAPSHOT_TABLE} LIMIT 1").fetchone() is None:
            return True
        first = c.execute("SELECT originator_id FROM stored_events WHERE originator_version = 1 LIMIT ?", [sample])
        ids = [_filed_under(uuid.UUID(hex=str(oid)), fingerprint).hex for (oid,) in first]
        return bool(ids) and c.execute(f"SELECT 1 FROM {SNAPSHOT_TABLE} WHERE originator_id IN "
                                       f"({', '.join('?' * len(ids))}) LIMIT 1", ids).fetchone() is None
    except (sqlite3.Error, ValueError):
        return False


def _no_pg_snapshots(svc: Any, sample: int, fingerprint: str) -> bool:
    """``no_snapshots`` of a PostgreSQL store (its snapshots table read, never created)."""
    import psycopg

    from zx_events.store import snapshots_table

    try:
        if not _pg_snapshot_table(svc):
            return True
        rec = svc.recorder
        events = f'"{rec.datastore.schema}"."{rec.events_table_name}"'
        table = f'"{rec.datastore.schema}"."{snapshots_table(rec.events_table_name)}"'
        with rec.datastore.get_connection() as conn:
            if conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is None:
                return True
            first = conn.execute(f"SELECT originator_id FROM {events} WHERE originator_version = 1 LIMIT %s",
                                 (sample,)).fetchall()
            ids = [_filed_under(uuid.UUID(str(row["originator_id"])), fingerprint) for row in first]
            return bool(ids) and conn.execute(f"SELECT 1 FROM {table} WHERE originator_id = ANY(%s) LIMIT 1",
                                              (ids,)).fetchone() is None
    except (psycopg.Error, ValueError):
        return False


@lru_cache(maxsize=1)
def projection_fingerprint() -> str:
    """What replaying events runs: every game's event bodies (``Game.projection_code``) and the
    eventsourcing version."""
    code = b"".join(g.projection_code() for g in games.all_games()) + installed_version("eventsourcing").encode()
    return hashlib.sha256(code).hexdigest()[:16]


def installed_version(name: str) -> str:
    """``importlib.metadata.version(name)`` of an imported package, read from the one
    ``NAME-VERSION.dist-info/METADATA`` beside it (importing importlib.metadata is a tenth of a
    ``zx replay``); asked of importlib.metadata when there is not exactly one."""
    import sys
    from pathlib import Path

    module = sys.modules.get(name)
    if module is not None and getattr(module, "__file__", None):
        found = list(Path(module.__file__).resolve().parent.parent.glob(f"{name}-*.dist-info"))
        if len(found) == 1 and (found[0] / "METADATA").is_file():
            with open(found[0] / "METADATA", encoding="utf-8") as f:
                for line in f:
                    if not line.strip():  # the end of the headers
                        break
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
    from importlib.metadata import version

    return version(name)


def snapshot_id(match_id: str) -> uuid.UUID:
    """Where this code's snapshots of a match are filed (never the match's own id)."""
    return _snapshot_id(match_id, projection_fingerprint())


@lru_cache(maxsize=1024)
def _snapshot_id(match_id: str, fingerprint: str) -> uuid.UUID:
    return _filed_under(match_uuid(match_id), fingerprint)


def _filed_under(oid: uuid.UUID, fingerprint: str) -> uuid.UUID:
    """The id the snapshots of the match of aggregate id ``oid`` are filed under by the code of ``fingerprint``."""
    return uuid.uuid5(oid, f"zx-replay-snapshot-checked:{fingerprint}")


# A snapshot is bound to its events (docs/security.md): its state carries the digest of the event
# it was taken after (``_zx_chain``) and a SHA-256 over that digest and the state (``_zx_check``).
# A seek uses a snapshot only when both still hold (else it replays the events from the start), and
# ``zx verify`` replays every match that has snapshots and compares each one with the events.
CHAIN_KEY, CHECK_KEY = "_zx_chain", "_zx_check"
ZERO_CHAIN = "0" * 64  # the chain value of an event without a digest (a match imported before digests)


def state_check(chain: str, state: Mapping[str, Any]) -> str:
    body = {k: v for k, v in state.items() if k not in (CHAIN_KEY, CHECK_KEY)}
    data = orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=_plain_value)
    return hashlib.sha256(chain.encode() + b"\n" + data).hexdigest()


def _plain_value(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise ArgumentTypeError(type(value).__name__)


def _take(match: Match, sid: uuid.UUID, chain: str) -> Snapshot:
    snap = dataclasses.replace(Snapshot.take(match), originator_id=sid)
    state = {**snap.state, CHAIN_KEY: chain}
    state[CHECK_KEY] = state_check(chain, state)
    return dataclasses.replace(snap, state=state)


def trusted(snapshot: Any, event: Any) -> bool:
    """The snapshot was taken after ``event`` (the stored event at its version) and is unaltered."""
    state = snapshot.state
    chain = state.get(CHAIN_KEY)
    return (event is not None and isinstance(chain, str) and chain == (getattr(event, "digest", None) or ZERO_CHAIN)
            and state.get(CHECK_KEY) == state_check(chain, state))


_VERIFIED: dict[bytes, None] = {}  # the (snapshot row, event row) pairs found trusted, by SHA-256 of their bytes
_VERIFIED_MAX = 1 << 16


def _pair_key(snap: Any, event_row: Any) -> bytes:
    """What ``_VERIFIED`` knows a snapshot row and the stored row of the event it was taken after by: the
    SHA-256 of their bytes."""
    h = hashlib.sha256(len(snap[2]).to_bytes(8, "big"))
    h.update(snap[2])
    h.update(event_row[2])
    return h.digest()


def _trusted_rows(snap: Any, event_row: Any, snapshot: Any, oid: uuid.UUID, decode: Any,
                  key: bytes | None = None) -> bool:
    """``trusted(snapshot, event)`` for a snapshot row and the stored row of the event it was taken
    after, remembered by the SHA-256 of the two rows' bytes (``key``: ``_pair_key``, when known): the
    verdict depends on those bytes alone, so a pair seen before is not re-encoded and re-hashed (a fifth
    of a seek); bytes altered since are a new pair, checked afresh."""
    if key is None:
        key = _pair_key(snap, event_row)
    if key in _VERIFIED:
        return True
    ok = trusted(snapshot, decode(oid, *event_row))
    if ok:
        if len(_VERIFIED) >= _VERIFIED_MAX:
            _VERIFIED.clear()
        _VERIFIED[key] = None
    return ok


def _from_snapshot(snapshot: Any, match_id: str, oid: uuid.UUID | None = None) -> Match:
    state = snapshot.state  # decoded for this seek alone: its check keys are dropped in place
    match = _restored(snapshot.topic, state, snapshot.originator_version, oid or match_uuid(match_id))
    if match is None:  # an aggregate class with upcasts: Snapshot.mutate's own way
        match = dataclasses.replace(snapshot, state=state).mutate(None)
        match.__dict__["_id"] = oid or match_uuid(match_id)
    return match


def _restored(topic: str, state: dict, version: int, oid: uuid.UUID) -> Match | None:
    """The aggregate of ``topic`` made from a snapshot's decoded ``state`` (taken, its check keys dropped) at
    ``version``, as ``Snapshot.mutate`` makes it; None for a class with upcasts (``class_version`` above 1, or
    the state's own), which it leaves to ``Snapshot.mutate``."""
    import zx_events.codec as codec  # (the module bound at once: a from-import of it is a call of importlib's)

    state.pop(CHAIN_KEY, None)
    state.pop(CHECK_KEY, None)
    cls = codec.event_class(topic)  # the aggregate class, its game imported first
    if _class_version(cls) != 1 or "class_version" in state:
        return None
    state["_id"] = oid  # filed under snapshot_id; the events check the match's id
    state["_version"] = version
    state["_pending_events"] = []
    match = object.__new__(cls)
    object.__setattr__(match, "__dict__", state)
    return match


_CLASS_VERSIONS: dict[type, Any] = {}


def _class_version(cls: type) -> Any:
    """``getattr(cls, "class_version", 1)``, once a class (a missing attribute is an exception raised and
    dropped: 3,000 instructions)."""
    found = _CLASS_VERSIONS.get(cls)
    if found is None:
        found = _CLASS_VERSIONS[cls] = getattr(cls, "class_version", 1)
    return found


def stored_events(svc: Any, match_id: str, *, gt: int | None = None, lte: int | None = None) -> list[StoredEvent]:
    return svc.recorder.select_events(match_uuid(match_id), gt=gt, lte=lte)


@_service
def last_seq(svc: Any, match_id: str) -> int:
    rows = svc.recorder.select_events(match_uuid(match_id), desc=True, limit=1)
    if not rows:
        raise unknown(svc, match_id)
    return rows[0].originator_version


def unknown(svc: Any, match_id: str) -> UnknownMatch:
    """The error for a match name that names no stored match; for the stored id of an aggregate zx
    import did not write (listed by zx matches as damaged, ``forged`` under zx verify), says so: it
    was "not in the store" while zx matches listed it. A match the store seal lists but whose events
    are all gone was deleted whole (``deleted`` under zx verify): it says so, with what the seal holds."""
    if forged_id(svc, match_id):
        return UnknownMatch(f"{match_id} is the stored id of events zx import did not write (a copy of a match's "
                            f"events, or a forgery): nothing of them is shown; zx verify {match_id} reports them")
    sealed = deleted_match(svc, match_id)
    if sealed is not None:
        return UnknownMatch(f"match {match_id!r} was deleted whole from the store {svc.store.label}: the store seal "
                            f"lists it (entry {sealed.entry}, {sealed.events:,} events, head {sealed.head[:16]}), but "
                            f"none of its events is left; zx verify {match_id} reports it")
    return UnknownMatch(unknown_text([match_id], svc.store.label))


def unknown_text(names: "list[str]", store: str, *, logs: bool = False) -> str:
    """The one wording of match names no store holds (zx replay, view, prepare, verify, audit; ``logs``: zx audit,
    whose arguments may also be log files): "unknown match 'X': it is not in the store S (zx matches lists the
    stored ones)". They said it in four ways ("no stored match 'X' in S", "X: neither a log file nor ...")."""
    one = len(names) == 1
    if logs:
        what = "it is neither a log file nor in" if one else "they are neither log files nor in"
    else:
        what = "it is not in" if one else "they are not in"
    return (f"unknown match{'' if one else 'es'} {', '.join(repr(n) for n in names)}: {what} the store {store} "
            f"(zx matches lists the stored ones)")


def deleted_match(svc: Any, match_id: str) -> Any:
    """What the store seal holds of ``match_id`` (``ledger.Sealed``: its entry, events and head) when it
    lists the match, or None; asked of a match none of whose events is stored: it was deleted whole."""
    from zx_events.ledger import read_ledger

    return read_ledger(svc.recorder, svc.mapper).matches.get(str(match_uuid(match_id)))


def forged_id(svc: Any, name: str) -> bool:
    """Whether ``name`` is a UUID under which events are stored that zx import did not write there: the
    Started event's match id files elsewhere, or there is none (zx matches lists such an aggregate by
    that id, as damaged). A genuine match's stored id is not one (it is "unknown" as a name)."""
    from uuid import UUID

    from zx_events import games
    from zx_events.ids import filed_under
    from zx_events.integrity import decode_state

    try:
        oid = UUID(name)
    except ValueError:
        return False
    if oid == match_uuid(name):
        return False
    rows = svc.recorder.select_events(oid, limit=1)
    if not rows:
        return False
    try:
        started = decode_state(svc.mapper, rows[0]) if games.is_topic(rows[0].topic, "Started") else {}
    except Exception:  # noqa: BLE001 - unreadable: not zx import's either
        return True
    match_id = started.get("match_id")
    return not isinstance(match_id, str) or not filed_under(match_id, oid)


def _next_due(rows: list[Any], every: int, size: int, after: int = 0) -> int | None:
    """The version at which the next snapshot is filed after one of ``size`` bytes (0: none yet) at
    version ``after``, among ``rows``, the ``(version, topic, state)`` of a match's events in order: the
    first multiple of ``every`` by which the events after it hold ``size / SNAPSHOT_SPACE`` bytes or
    more; None if none there."""
    since = 0
    for i in range(bisect_right(rows, after, key=itemgetter(0)), len(rows)):
        v, _, body = rows[i]
        since += len(body)
        if v % every == 0 and since * SNAPSHOT_SPACE >= size:
            return v
    return None


@_service
def prepare_snapshots(svc: Any, match_id: str, every: int | None = None, *, strict: bool = False) -> int:
    """Write the missing snapshots of a match (one every ``every`` versions, default
    ``SNAPSHOT_EVERY``, further apart where the state outgrows its events: ``_next_due``); returns
    how many it wrote. A store that cannot be written (read-only) is remembered and 0 returned, or
    with ``strict`` its ``PersistenceError`` raised (``zx prepare``); so is a service opened to read
    (``MatchService(create=False)``, ``ReadOnlyService`` with ``strict``): on PostgreSQL it wrote them, on a
    SQLite file without the snapshots table it raised "no such table" and then did at every seek."""
    if _reader(svc):
        last_seq(svc, match_id)  # as a writer: UnknownMatch, ServiceClosed
        if strict:
            raise _read_only_service(svc, f"write the replay snapshots of match {match_id}")
        return 0
    every = every or SNAPSHOT_EVERY
    sid = snapshot_id(match_id)
    try:
        store = _snapshots(svc)
    except PersistenceError:  # its table cannot be made: a read-only store
        if strict:
            raise
        _READ_ONLY[svc] = True
        return 0
    last = store.recorder.select_events(sid, desc=True, limit=1)
    have, size = (last[0].originator_version, len(last[0].state)) if last else (0, 0)
    from zx_events import codec

    oid = match_uuid(match_id)
    if have:  # every snapshot the match's events call for is there already: nothing (more) read or decoded
        n = last_seq(svc, match_id)
        if have >= n - n % every:
            return 0
        tail = [(r.originator_version, r.topic, r.state) for r in svc.recorder.select_events(oid, gt=have)]
        if _next_due(tail, every, size, have) is None:
            return 0
    _, rows = _read(svc, match_id, oid, None, False)
    if not rows:
        raise unknown(svc, match_id)
    mapper = svc.mapper
    decode = getattr(mapper, "decode", None) or (lambda i, v, t, s: mapper.to_domain_event(
        StoredEvent(originator_id=i, originator_version=v, topic=t, state=s)))
    due = _next_due(rows, every, size, have)
    match: Match | None = None
    todo: list[StoredEvent] = []
    for e in _decoded_rows(match_id, oid, rows, decode):
        match = codec.project(match, (e,))
        if match.version == due:  # encoded at once: the state keeps changing after this
            todo.append(svc.mapper.to_stored_event(_take(match, sid, getattr(e, "digest", None) or ZERO_CHAIN)))
            due = _next_due(rows, every, len(todo[-1].state), due)
    if todo:
        try:
            store.recorder.insert_events(todo)
        except IntegrityError:  # another reader wrote them meanwhile
            return 0
        except PersistenceError:  # e.g. a read-only store: seeks still work, only slower
            if strict:
                raise
            _UNWRITABLE.setdefault(svc, set()).add(match_id)
            return 0
    return len(todo)


@_service
def repair_snapshots(svc: Any, match_id: str) -> int:
    """``zx prepare --repair``: when a stored snapshot of the match disagrees with its events (what
    ``snapshot_problems`` finds: altered, its check recomputed, which no seek can tell from a sound
    one without replaying), delete the match's snapshots, for ``prepare_snapshots`` to write again from
    the events; returns how many disagreed (0: nothing changed). Events are never touched. A service
    opened to read: ``ReadOnlyService``."""
    if _reader(svc):
        raise _read_only_service(svc, f"repair the replay snapshots of match {match_id}")
    bad = snapshot_problems(svc, match_id)
    if not bad:
        return 0
    rec = _snapshots(svc).recorder
    sid = snapshot_id(match_id)
    with rec.datastore.transaction(commit=True) as c:
        if svc.store.kind == "sqlite":
            c.execute(f"DELETE FROM {rec.events_table_name} WHERE originator_id = ?", (sid.hex,))
        else:
            from psycopg.sql import SQL, Identifier

            c.execute(SQL("DELETE FROM {schema}.{table} WHERE originator_id = %s").format(
                schema=Identifier(rec.datastore.schema), table=Identifier(rec.events_table_name)), (sid,))
    return len(bad)  # (the caller writes them again: prepare_snapshots, counted with the others)


@_service
def state_at(svc: Any, match_id: str, seq: int | None = None) -> Match:
    """The match after event ``seq`` (None: after its last event): a live aggregate, for the engine.

    The latest snapshot at or before ``seq`` (none is looked for below the first place one is
    filed, so a short match costs no more than replaying it from its first event), then the events
    after it, read as bare rows and replayed by ``codec.project_rows``. A match without its snapshots
    gets them written here, for the next seek (``prepare_snapshots``)."""
    return seek.__wrapped__(svc, match_id, seq)[0]  # (svc checked already)


@_service
def seek(svc: Any, match_id: str, seq: int | None = None, *, prepare: bool = True) -> tuple[Match, int]:
    """``state_at``, and the version of the snapshot the state was built from (0: none, every event
    replayed). With ``prepare=False`` nothing is ever written: a reader that may not write
    (``zx serve``) uses the snapshots already stored (``zx prepare``) and replays where there are none;
    so does a service opened to read (``MatchService(create=False)``, ``StoreConfig.reader``)."""
    import zx_events.codec as codec

    if seq is not None:
        seq = whole(seq, "seq")
        if seq < 1:
            raise OutOfRange(f"seq {seq}: events are numbered from 1 (the Started event)")
    if prepare and (_reader(svc) or svc in _READ_ONLY):
        prepare = False  # a read command's store (MatchService(create=False)), or one that refused a write
    oid = match_uuid(match_id)
    snap, rows = _read(svc, match_id, oid, seq, seq is None or seq >= SNAPSHOT_EVERY, create=prepare)
    mapper = svc.mapper
    decode = getattr(mapper, "decode", None) or (lambda i, v, t, s: mapper.to_domain_event(
        StoredEvent(originator_id=i, originator_version=v, topic=t, state=s)))
    start = None
    if snap:  # _read also gave the event the snapshot was taken after: the snapshot is checked against it
        key = _pair_key(snap, rows[0]) if rows and rows[0][0] == snap[0] else None
        if key is not None and key in _VERIFIED:  # these very bytes checked before: no Snapshot event made
            known = getattr(mapper, "snapshot_state", None)
            found = known(snap[2]) if known is not None else None
            if found is not None:
                start = _restored(found[0], found[1], snap[0], oid)
        if start is None:
            try:
                snapshot = decode(snapshot_id(match_id), *snap)
            except Exception:  # undecodable, or naming no game's aggregate (codec.ForeignTopic): altered
                snapshot = None
            if snapshot is not None and key is not None and _trusted_rows(snap, rows[0], snapshot, oid, decode, key):
                start = _from_snapshot(snapshot, match_id, oid)
            else:  # altered, or taken after other events: never trusted; replay from the first event
                _DISTRUSTED.setdefault(svc, set()).add(match_id)
                snap, rows = _read(svc, match_id, oid, seq, False)
        if start is not None:
            rows = rows[1:]
    if start is None and not rows:
        raise unknown(svc, match_id)
    reached = rows[-1][0] if rows else start.version
    if seq is not None and reached < seq:
        raise OutOfRange(f"match {match_id} has {reached} events: seq must be 1..{reached}")
    base = 0 if start is None else start.version
    match = codec.project_rows(start, mapper, decode, oid, rows, base + 1,
                               lambda expected, found: _damaged(match_id, expected, found))
    if prepare and len(rows) >= SNAPSHOT_EVERY and match_id not in _UNWRITABLE.get(svc, ()) \
            and match_id not in _DISTRUSTED.get(svc, ()) \
            and _next_due(rows, SNAPSHOT_EVERY, len(snap[2]) if base else 0, base) is not None:
        prepare_snapshots(svc, match_id)  # no snapshot yet where one belongs: write them for the next seek
    return match, base


def _read(svc: Any, match_id: str, oid: uuid.UUID, lte: int | None, snapshot: bool,
          create: bool = True) -> tuple[Any, list[Any]]:
    """The latest snapshot at or before ``lte`` (when ``snapshot``; else None) and the events from
    the one it was taken after (to check it against) up to ``lte``, each as ``(version, topic, state)``.
    On a SQLite file two plain statements (``_read_sqlite``) on this thread's read-only connection
    (``MatchService.read_connection``: the recorder's ``select_events`` costs a transaction, a
    StoredEvent and a UUID a row, most of a seek); elsewhere, or when the file cannot be read that
    way, through the recorders. Without ``create`` a missing snapshot table is not created: no snapshot."""
    rec, top = svc.recorder, SEQ_MAX if lte is None else min(lte, SEQ_MAX)
    lte = None if lte is None else top
    store = (_writable_snapshots(svc) if create else _stored_snapshots(svc)) if snapshot else None
    reads = getattr(svc, "read_connection", None)
    c = reads() if reads is not None else None  # None but on a SQLite file
    if c is not None and (store is None or store.recorder.datastore is rec.datastore):
        try:
            return _read_sqlite(svc, c, match_id, oid, top, store)
        except sqlite3.Error:  # e.g. the file deleted under a running service
            pass
    snap = None
    if store is not None:
        found = store.recorder.select_events(snapshot_id(match_id), lte=lte, desc=True, limit=1)
        snap = (found[0].originator_version, found[0].topic, found[0].state) if found else None
    gt = snap[0] - 1 if snap else None
    return snap, [(r.originator_version, r.topic, r.state) for r in rec.select_events(oid, gt=gt, lte=lte)]


def _read_sqlite(svc: Any, c: sqlite3.Connection, match_id: str, oid: uuid.UUID, top: int,
                 store: Any) -> tuple[Any, list[Any]]:
    """``_read`` on a SQLite file: on connection ``c``, the latest snapshot at or before ``top``, then the events
    from its version, each a plain range of a primary key read in its order (no sort: one statement for both,
    a union sorted in a temporary B-tree, cost a seek about a tenth more). The two are not one read transaction:
    a snapshot written or deleted between them changes nothing (its events are the same rows), and events
    altered between them are found as any other (the snapshot is checked against the event it was taken after)."""
    table = svc.recorder.events_table_name
    if store is None:
        return None, c.execute(f"SELECT originator_version, topic, state FROM {table} "
                               f"WHERE originator_id = ? AND originator_version <= ? ORDER BY originator_version",
                               [oid.hex, top]).fetchall()
    oid_hex, sid_hex = _hex_ids(match_id, projection_fingerprint())
    snap = c.execute(f"SELECT originator_version, topic, state FROM {store.recorder.events_table_name} "
                     f"WHERE originator_id = ? AND originator_version <= ? ORDER BY originator_version DESC LIMIT 1",
                     [sid_hex, top]).fetchone()
    return snap, c.execute(f"SELECT originator_version, topic, state FROM {table} WHERE originator_id = ? AND "
                           f"originator_version >= ? AND originator_version <= ? ORDER BY originator_version",
                           [oid_hex, 1 if snap is None else snap[0], top]).fetchall()


@lru_cache(maxsize=1024)
def _hex_ids(match_id: str, fingerprint: str) -> tuple[str, str]:
    """The match's aggregate id and its snapshots' (``snapshot_id``) as SQLite stores them (hex)."""
    return match_uuid(match_id).hex, _snapshot_id(match_id, fingerprint).hex


@_service
def turn_starts(svc: Any, match_id: str) -> list[int]:
    """The seq at which each turn begins (``turn_begins``): ``turn_starts(...)[N - 1]`` starts turn N."""
    rows = stored_events(svc, match_id)
    if not rows:
        raise unknown(svc, match_id)
    from zx_events import codec

    decode = svc.mapper.to_domain_event
    return turn_begins([(r.originator_version, codec.event_class(r.topic).__name__) for r in rows],
                       games.for_topic(rows[0].topic).turn_effects,
                       lambda i: getattr(decode(rows[i]), "line", None))


def turn_begins(entries: Any, after: frozenset[str], line: Any) -> list[int]:
    """The seq at which each turn begins, where ``zx replay --turn N`` lands ("right after its turn record"), of a
    match's events ``entries`` ((seq, kind) in seq order): its ``TurnStarted`` event, or the last of the events of
    ``after`` (its game's ``Game.turn_effects``) that follow it on its line (``line(i)``: the line of entry ``i``,
    read only there), which its `turn` record wrote. X610Z's `turn` record sends a summon whose Time Counter ran out
    away (209.2f) after its TurnStarted: turn 9 began with the Guardian Spirit still on the board, its leaving the
    next event of the same record (QA round 38). Z/X's TurnStarted ends its record (its game names none)."""
    out: list[int] = []
    for i, (seq, kind) in enumerate(entries):
        if kind != "TurnStarted":
            continue
        last = i
        if after:
            here = None
            while last + 1 < len(entries) and entries[last + 1][1] in after:
                here = line(i) if here is None else here
                if line(last + 1) != here:
                    break
                last += 1
        out.append(entries[last][0])
    return out


@_service
def turn_seq(svc: Any, match_id: str, turn: int) -> int:
    turn = whole(turn, "turn")
    starts = turn_starts(svc, match_id)
    if not 1 <= turn <= len(starts):
        raise OutOfRange(f"match {match_id} has {len(starts)} turns: turn must be 1..{len(starts)}")
    return starts[turn - 1]


def seat(perspective: str) -> str:
    """``perspective`` when it is one of ``PERSPECTIVES`` (exactly), else ``ValueError``: a view asked
    for ``p1`` or ``P3`` was the spectator's, labelled as asked, without a word."""
    if perspective in PERSPECTIVES:
        return perspective
    try:
        hint = f": did you mean {parse_perspective(perspective)!r}?" if isinstance(perspective, str) else ""
    except ValueError:
        hint = ""
    raise ZXError(f"perspective must be one of {', '.join(PERSPECTIVES)}, got {perspective!r}{hint}")


@_service
def view_at(svc: Any, match_id: str, *, seq: int | None = None, turn: int | None = None,
            perspective: str = JUDGE, catalogs: Any = ()) -> MatchView:
    """The state after event ``seq``, or at the start of ``turn`` (one of them, or neither: the end), as
    ``perspective`` (``PERSPECTIVES``; else ``ValueError``) sees it. ``catalogs``: catalog files
    (``games.load_catalogs``), the one the match was checked against naming its cards (``card_names``)."""
    seat(perspective)
    catalogs = given_catalogs(catalogs)
    if seq is not None and turn is not None:
        raise ZXError(f"give seq or turn, not both (seq={seq}, turn={turn})")
    if turn is not None:
        seq = turn_seq(svc, match_id, turn)
    match = state_at(svc, match_id, seq)
    cn = names_for(match, catalogs)
    # the match's length, as zx replay, the server and the viewer give it (it was None here)
    last = match.version if seq is None else last_seq(svc, match_id)
    return game_of(match).build_view(match, perspective, cn.names, mask=cn.mask, last_seq=last)


# ---------------------------------------------------------------------- steps
thaw = plain  # the inverse of ``freeze``: views.plain turns any frozen view data back into JSON-native data


@dataclass(frozen=True, slots=True)
class EventView:
    seq: int
    kind: str
    data: Mapping[str, Any]  # the event's fields as the seat sees them (its game's ``redact_event``)
    text: str = ""  # the same in the game's words (``Game.narrate``): "P2 draws a card"

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "data": thaw(self.data), "text": self.text}


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
    # catalog files the user gave (--catalog FILE): the one holding the content the match pinned names its cards
    catalogs: tuple[Any, ...] = ()
    # begins[N - 1] = the seq turn N begins at, after every event of its `turn` record (``turn_begins``: X610Z's
    # 209.2f after its TurnStarted); ``turn_seq``'s, where --turn N lands
    begins: tuple[int, ...] = ()

    def names(self, match: Match) -> CardNames:
        """``names_for(match)`` with this history's catalog files."""
        return names_for(match, self.catalogs)

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
        turn = whole(turn, "turn")  # (as view_at's: 3.5 and "5" were raw errors, True was turn 1)
        if not 1 <= turn <= len(self.turns):
            raise OutOfRange(f"match {self.match_id} has {len(self.turns)} turns: turn must be 1..{len(self.turns)}")
        return (self.begins or self.turns)[turn - 1]

    def check_seq(self, seq: int) -> int:
        """``seq`` as a whole number (``whole``) of an event of the match, else ``TypeError`` or ``OutOfRange``."""
        seq = whole(seq, "seq")
        if not 1 <= seq <= self.last_seq:
            raise OutOfRange(f"match {self.match_id} has {self.last_seq} events: seq must be 1..{self.last_seq}")
        return seq

    def state_at(self, seq: int) -> Match:
        """The aggregate after ``seq``, projected from the decoded events (a fresh object)."""
        return project(None, self.events[: self.check_seq(seq)])

    def step_at(self, seq: int, perspective: str = JUDGE) -> Step:
        """The step holding event ``seq``, cut after it: its record, its events up to ``seq``, the state."""
        seq = self.check_seq(seq)
        return self.part(self.bounds[self.step_of(seq)][0], seq, perspective)

    def part(self, first: int, last: int, perspective: str = JUDGE) -> Step:
        """Events ``first``..``last`` of one step (the rest of a step cut after ``first - 1``, or its start
        cut after ``last``): its record (wherever in the step its event is), those events, the state after."""
        seat(perspective)
        first, last = self.check_seq(first), self.check_seq(last)
        index = self.step_of(first)
        lo, hi = self.bounds[index]
        if not first <= last <= hi:
            raise OutOfRange(f"events {first}..{last} are not of one step (step {index}: {lo}..{hi})")
        match = project(None, self.events[: lo - 1]) if lo > 1 else None  # (the state before the step)
        return _step(index, self.events[lo - 1: last], match, perspective,
                     self.names(match) if match is not None else None, self.last_seq, self.catalogs,
                     whole=self.events[lo - 1: hi], first=first)[0]

    def steps(self, perspective: str = JUDGE, start: int = 0, stop: int | None = None) -> Iterator[Step]:
        """Steps ``start``..``stop - 1``, each with its record, events and state after, as seen."""
        seat(perspective)
        stop = len(self.bounds) if stop is None else min(stop, len(self.bounds))
        if start >= stop:
            return
        first = self.bounds[start][0]
        match = project(None, self.events[: first - 1]) if first > 1 else None
        cn: CardNames | None = self.names(match) if match is not None else None
        for index in range(start, stop):
            lo, hi = self.bounds[index]
            step, match, cn = _step(index, self.events[lo - 1: hi], match, perspective, cn, self.last_seq,
                                    self.catalogs)
            yield step


def _step(index: int, events: Any, match: Match | None, perspective: str, cn: CardNames | None, last: int,
          catalogs: Any = (), whole: Any = None, first: int | None = None) -> tuple[Step, Match, CardNames]:
    """A step of ``events`` (from the step's first, ``whole``: the whole step, where its record is, when
    ``events`` is its start), projected one by one onto ``match``, the state before them (None: before the
    Started event), which it moves on; those from seq ``first`` (default: all) are shown. Each event is seen as
    the state it was applied to lets the seat see it, the record as the state before the step
    (``Game.redact_event``'s ``before``: a face-down Force card that leaves, 301.3b). The step, the state after
    it (``match`` moved on) and the card names."""
    events = tuple(events)
    first = events[0].originator_version if first is None else first
    record = None
    for e in whole if whole is not None else events:
        rec = getattr(e, "rec", None)
        if rec is not None:
            record = rec
            break
    step_events = whole if whole is not None else events
    seen = []
    violations = []
    record_seen: Any = None
    seen_record = False
    game = players = None
    for e in events:
        kind = type(e).__name__
        before = match
        if before is None:  # the Started event: nothing before it
            match = project(None, (e,))
        if cn is None:
            cn = names_for(match, catalogs)
        if game is None:
            game = game_of(match)
            players = seat_players(match, perspective, cn.mask)  # (the names of the header, as the board shows them)
        if not seen_record:
            record_seen = game.redact_record(record, perspective, cn.mask, step_events, before=before)
            seen_record = True
        if e.originator_version >= first:
            data = game.redact_event(kind, event_fields(e), perspective, cn.mask, before=before)
            seen.append(EventView(e.originator_version, kind, freeze(data),
                                   game.narrate(kind, data, cn.names, players, before=before,
                                                mask=None if perspective == JUDGE else cn.mask)))  # (what the seat
            # sees only: its fields, and the public state it was applied to, its free text masked as the board's)
            if kind == "ViolationRecorded":
                message = e.message if perspective == JUDGE else engine_message(cn.mask, e.message)
                violations.append(ViolationView(e.line, e.turn, e.player, e.rule, message, e.rec is None))
        if before is not None:
            match = project(match, (e,))
    assert match is not None and cn is not None and game is not None
    view = game.build_view(match, perspective, cn.names, mask=cn.mask, last_seq=last)
    out = Step(index=index, line=getattr(step_events[0], "line", None),
               seq_first=first, seq_last=events[-1].originator_version,
               record=freeze(record_seen), events=tuple(seen), violations=tuple(violations), state=view)
    return out, match, cn


def _damaged(match_id: str, expected: int, found: int | None) -> DamagedMatch:
    if found is None:
        return DamagedMatch(f"match {match_id} cannot be replayed: its event seq {expected} cannot be decoded; the "
                            f"store was altered: zx verify {match_id} names the damage")
    return DamagedMatch(f"match {match_id} cannot be replayed: its event seq {expected} is missing from the store "
                        f"(the events jump to seq {found}); the store was altered: zx verify {match_id} names the damage")


def _decoded_rows(match_id: str, oid: Any, rows: Any, decode: Any, first: int = 1) -> list[Any]:
    """The domain events of ``(version, topic, state)`` rows, which must be versions ``first``,
    ``first + 1``, ...: a gap (an event deleted) or an undecodable payload is a ``DamagedMatch``."""
    out = []
    for expected, (version, topic_, state) in enumerate(rows, start=first):
        if version != expected:
            raise _damaged(match_id, expected, version)
        try:
            out.append(decode(oid, version, topic_, state))
        except Exception:
            raise _damaged(match_id, expected, None) from None
    return out


def decoded(svc: Any, match_id: str, rows: list[StoredEvent], first: int = 1) -> list[Any]:
    """The domain events of stored ``rows`` (versions ``first``, ``first + 1``, ...; else ``DamagedMatch``)."""
    out = []
    decode = svc.mapper.to_domain_event
    for expected, row in enumerate(rows, start=first):
        if row.originator_version != expected:
            raise _damaged(match_id, expected, row.originator_version)
        try:
            out.append(decode(row))
        except Exception:
            raise _damaged(match_id, expected, None) from None
    return out


def stored_snapshot_rows(svc: Any, match_id: str) -> list[StoredEvent]:
    """The stored replay snapshots of a match, as rows (none where the store has no snapshot table: none
    is made here)."""
    store = _stored_snapshots(svc)
    return store.recorder.select_events(snapshot_id(match_id)) if store is not None else []


def snapshot_problems(svc: Any, match_id: str, snaps: list[StoredEvent] | None = None) -> list[str]:
    """``zx verify``: each stored snapshot of the match (``snaps``, read when not given:
    ``stored_snapshot_rows``) compared with the state its events give; the match is replayed whole."""
    from zx_events import codec

    if snaps is None:
        snaps = stored_snapshot_rows(svc, match_id)
    if not snaps:
        return []
    decode = svc.mapper.to_domain_event
    wanted = {s.originator_version: s for s in snaps}
    problems = []
    match = None
    for e in decoded(svc, match_id, svc.recorder.select_events(match_uuid(match_id))):
        match = codec.project(match, (e,))
        stored = wanted.pop(match.version, None)
        if stored is None:
            continue
        chain = getattr(e, "digest", None) or ZERO_CHAIN
        expected = state_check(chain, Snapshot.take(match).state)
        try:
            snapshot = decode(stored)
            state = snapshot.state
        except Exception:
            snapshot, state = None, {}
        if state.get(CHAIN_KEY) != chain or state_check(chain, state) != expected:
            used = snapshot is not None and trusted(snapshot, e)  # its check recomputed by whoever altered it
            effect = ("a seek that reads it shows the altered state (its check was recomputed to match)" if used else
                      "seeks ignore it (its check fails) and replay the events")
            problems.append(f"the replay snapshot at seq {match.version} disagrees with the events (altered): {effect}; "
                            f"zx prepare --repair {match_id} writes the match's snapshots again from its events")
    for v in sorted(wanted):
        problems.append(f"a replay snapshot at seq {v} has no event at that seq")
    return problems


def snapshot_verdict(svc: Any, verdict: Any, problems: list[str] | None = None) -> Any:
    """``verdict`` (a stored match's chain and the store seal: ``ledger.match_verdict``) completed as ``zx
    verify`` completes it: a match that verifies but whose replay snapshots disagree with its events
    fails, status ``snapshot``, its message the disagreements (``problems``: ``snapshot_problems``, found
    here when not given). A seek reads such a snapshot when its check was recomputed: ``zx serve`` served
    its views while it said the match verified."""
    from zx_events.integrity import Verdict

    if not verdict.ok:
        return verdict
    problems = snapshot_problems(svc, verdict.match) if problems is None else problems
    if not problems:
        return verdict
    return Verdict(verdict.match, verdict.events, "snapshot", None, "; ".join(problems), verdict.head)


@_service
def verify_match(svc: Any, match_id: str, rows: Any = None) -> Any:
    """What ``zx verify MATCH`` says of one stored match (an ``integrity.Verdict``): its digest chain
    (``rows``, its ``integrity.stored_rows``, when read already), the store seal, its replay snapshots."""
    from zx_events.ledger import match_verdict

    verdict = match_verdict(svc, match_id, match_uuid(match_id), rows=rows)
    if not verdict.events and deleted_match(svc, match_id) is None:  # not one the store seal lists, deleted whole
        raise unknown(svc, match_id)  # a name no import stored: it was "deleted", "the whole match was deleted"
    return snapshot_verdict(svc, verdict)


@_service
def load_history(svc: Any, match_id: str, catalogs: Any = ()) -> History:
    """The stored match's ``History``; ``catalogs``: catalog files the user gave (``History.catalogs``)."""
    catalogs = given_catalogs(catalogs)
    rows = stored_events(svc, match_id)
    if not rows:
        raise unknown(svc, match_id)
    return history_of(match_id, tuple(decoded(svc, match_id, rows)), catalogs)


def history_of(match_id: str, events: tuple[Any, ...], catalogs: Any = ()) -> History:
    """A match's decoded events (seq order, from 1) grouped into steps, with its turn starts (``catalogs``:
    ``History.catalogs``)."""
    catalogs = given_catalogs(catalogs)
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
    begins = tuple(turn_begins([(e.originator_version, type(e).__name__) for e in events], _turn_effects(events),
                               lambda i: getattr(events[i], "line", None)))
    return History(match_id, events, tuple(bounds), turns, catalogs, begins)


def _turn_effects(events: Any) -> frozenset[str]:
    """The ``Game.turn_effects`` of the game whose decoded ``events`` these are (none: no event)."""
    if not events:
        return frozenset()
    from zx_events.integrity import event_topic

    return games.for_topic(event_topic(events[0])).turn_effects


@_service
def steps(svc: Any, match_id: str, perspective: str = JUDGE, catalogs: Any = ()) -> Iterator[Step]:
    """The ordered steps of a stored match (step 0 = the header), each with the state after it (``catalogs``:
    ``History.catalogs``)."""
    seat(perspective)  # at the call, not at the first step
    catalogs = given_catalogs(catalogs)  # (kept: an iterator is read once, QA round 37)
    return load_history(svc, match_id, catalogs).steps(perspective)
