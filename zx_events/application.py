"""The application service: import matches into the event store, list them, load them.

It loads, calls the rules engine, saves, and returns plain values (ids, dicts), never live
aggregates to the CLI. A match is saved whole, in one transaction (with the others of its batch): a
rejected match leaves nothing behind, and a crash mid-import leaves nothing half-written.
"""

from __future__ import annotations

import gc
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, NamedTuple
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError, PersistenceError, StoredEvent

from zx_events.errors import ArgumentTypeError, ConflictError, InternalError, ReadOnlyService, RuleViolation, ZXError
from zx_events.integrity import seal_stored, stored_head
from zx_events.ledger import insert_sealed, sealed_entry
from zx_events import summaries
from zx_events.ids import match_uuid, project
from zx_events.store import (SCHEMA_MADE, ReadConnections, StoreConfig, StoreError, cannot_open_text, drop_made_schema,
                             failures_said, hold_in_use, resolve_store, schema_held)
from zx_events.summaries import TOPICS_ENDED, TOPICS_STARTED, TOPICS_TURN, TOPICS_VIOLATION  # noqa: F401 (their home before)

if TYPE_CHECKING:  # the reader's schemas and the rules engine load when a log is checked, not for zx matches
    from zx_events.games.base import Violation
    from zx_events.logformat.reader import MatchLog

Catalog = Any  # a game's catalog (zx_events.games.base.Game.load_catalog), or {game key: catalog}


def _shown(value: Any, most: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= most else text[:most - 1] + "…"


def given_catalog(catalog: Any) -> Any:
    """``import_logs``' ``catalog``: None, a game's catalog or {game key: catalog} (``games.load_references``) as
    they are; a catalog's name or file (a ``str`` or ``pathlib.Path``) loaded as ``zx import --catalog`` loads it
    (``games.load_catalogs``: an unknown one is a ``CatalogError`` naming the known ones); anything else a
    ``TypeError``. A name was passed through and failed every match as an "internal error"."""
    if catalog is None or isinstance(catalog, Mapping) or hasattr(catalog, "game"):
        return catalog
    if isinstance(catalog, (str, os.PathLike)):
        from zx_events.games import load_catalogs

        return load_catalogs(os.fspath(catalog)) or None
    raise ArgumentTypeError(f"catalog must be a catalog's name or file (a str or pathlib.Path), a catalog "
                            f"(zx_events.games.load_catalogs(NAME_OR_FILE)), or None, got {type(catalog).__name__} "
                            f"{_shown(catalog)}")


def _reads_store(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A ``MatchService`` read of the Python API: the store failing under it (a damaged file, a lost server) is a
    ``StoreFailure`` in ``zx``'s words (``store.failures_said``; it was sqlite3's or eventsourcing's
    ``DatabaseError``, raw)."""
    from functools import wraps

    @wraps(fn)
    def read(self: "MatchService", *args: Any, **kwargs: Any) -> Any:
        with failures_said(self.store):
            return fn(self, *args, **kwargs)
    return read


class _LogKey(NamedTuple):
    """What a batch keeps of a checked log: enough to tell a duplicate from a conflict on retry."""

    match_id: str | None
    content_sha256: str
    source: str
    header_line: int


def seal_row(out: "ImportOutcome", stored: list) -> list:
    """The store-seal row of one match about to be written: id, originator id, events, head
    (``stored``: its StoredEvents, or its plain rows, the id as hex: ``MatchService.insert``)."""
    return sealed_entry(out.match_id, originator_of(stored[0]), len(stored), out.head)


# index_summaries on a store written by an earlier release: said first from this many events (measured: 17 s for
# 21 million events of 130,000 matches, a 9.8 GB store, here)
INDEX_NOTE_EVENTS = 1_000_000
INDEX_SECONDS_PER_EVENT = 0.8e-6
INDEX_LOCK_WAIT = 3  # seconds PostgreSQL's CREATE INDEX waits for the table lock another session holds


def _note_indexing(note: Callable[[str], None] | None, events: int, more: str = "") -> None:
    """Tell ``note`` the summaries' indexes are being made in a store of ``events`` events, from
    ``INDEX_NOTE_EVENTS`` on, with how long it takes (``more``: what else the store does meanwhile)."""
    if note is not None and events >= INDEX_NOTE_EVENTS:
        note(f"indexing the store's {events:,} events for listing its matches (once: about "
             f"{max(1, round(events * INDEX_SECONDS_PER_EVENT))} s{more})")


FULL_COLLECTION_EVERY = 16  # an import's batches (or a worker's tasks) between two full collections


def collect_after(batches: int) -> None:
    """The cyclic collector's pass once an import has written its ``batches``-th batch (a worker: done
    its ``batches``-th task), where it runs instead of every 700 allocations: the young generations
    each time, everything every ``FULL_COLLECTION_EVERY`` (a match leaves a few cycles: memory stays flat)."""
    gc.collect(2 if batches % FULL_COLLECTION_EVERY == 0 else 1)


def originator_of(item: Any) -> UUID:
    """The originator id of a StoredEvent or of a plain row ``(originator_id hex, version, topic, state)``."""
    if type(item) is tuple:
        oid = item[0]
        return oid if isinstance(oid, UUID) else UUID(hex=oid)
    return item.originator_id


@dataclass
class ImportOutcome:
    source: str
    line: int
    match_id: str | None
    status: str  # imported, unchanged, rejected
    events: int = 0
    error: ZXError | None = None
    violations: list[Violation] = field(default_factory=list)
    head: str | None = None  # the head digest of the stored match (zx_events.integrity)
    finished: bool = True  # False: checked and stored without a result (a log that stops mid-match)
    game: str | None = None  # the key of the game its header names (None: no readable header)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"match": self.match_id, "source": self.source, "line": self.line,
                               "status": self.status, "events": self.events,
                               "violations": [v.to_json() for v in self.violations], "head": self.head}
        if self.error is not None:
            out["error"] = {"kind": getattr(self.error, "kind", "error"), "line": self.error.line,
                            "rule": getattr(self.error, "rule", None), "message": self.error.message,
                            "text": str(self.error)}
        return out


class ServiceClosed(ZXError):
    """A ``MatchService`` used after ``close()``."""

    @classmethod
    def of(cls, label: str) -> "ServiceClosed":
        return cls(f"this MatchService of the store {label} was closed (close(), or the end of its with block): "
                   f"open a new one to read or write the store")


def let_go_of(e: BaseException) -> None:
    """What a store's work under way at a Ctrl-C (``e``) held, let go now, while the store is open: the frames its
    traceback holds may hold a transaction begun and never entered (the signal handled as the transaction's
    ``BEGIN`` returned, after a wait for another importer's lock), finalized after the store closed: "Exception
    ignored in: <generator object SQLiteDatastore.transaction> ... ConnectionPoolClosedError: Pool is closed", a
    traceback (QA round 35). Called before the store is closed."""
    import gc

    e.__traceback__ = None
    gc.collect()


class MatchService(Application[UUID]):
    """A store of matches (docs/replay.md, "From Python"): ``MatchService(STORE, create=False)`` to read one, a
    path (a ``str`` or ``pathlib.Path``) or a URL (``postgresql://...``); ``write=True`` to import into it.

    Reads: ``summaries()`` (one row a match, as ``zx matches`` lists them: ``zx_events.matchlist.kept`` filters
    them), ``get_match(ID, version=N)``, ``has_match(ID)``; ``zx_events.replay`` builds views and steps from it.
    Writes: ``import_log(LOG)``, ``import_logs(LOGS, catalog=...)`` (``zx_events.logformat.reader.read_log``).
    A store failing under a read (a damaged file, a lost server) is ``zx_events.store.StoreFailure``; after
    ``close()`` (or its ``with`` block) every call raises ``ServiceClosed``. Built on the eventsourcing library's
    ``Application``: its events are the matches' facts, each match one aggregate."""

    name = "Matches"

    def __init__(self, store: str | None = None, env: dict[str, str] | None = None, *, create: bool = True,
                 write: bool | None = None, hold: bool = True) -> None:
        """``create``: make the store when it does not exist yet (else a ``StoreError``, nothing created): a
        mistyped path is a new, empty store, which stays (a reader passes False; ``zx import`` removes one it
        stored nothing in, ``newstore``: not a service, which may be one of several opening the same new store).
        ``write`` (default ``create``): the store may be written; without it nothing ever is (``resolve_store``).
        ``store``: a path (a ``str`` or ``pathlib.Path``) or a URL; None: ``ZX_STORE``, else the default file.
        ``hold`` (PostgreSQL, with ``create``: an importer's): hold the store's "open" lock on a connection of
        its own until ``close()`` (``store.hold_in_use``), so that no ``zx import`` removes the schema as empty
        meanwhile; a worker process of a service that holds it passes False."""
        if isinstance(store, os.PathLike):  # (a Path was AttributeError: no attribute 'startswith', inside)
            store = os.fspath(store)
        if store is not None and not isinstance(store, str):
            raise ArgumentTypeError(
                f"store must be a path (a str or pathlib.Path) or a URL, got {type(store).__name__} "
                f"{store!r}")
        for name, flag in (("create", create), ("write", write), ("hold", hold)):
            if not isinstance(flag, bool) and not (name == "write" and flag is None):  # ("no" was taken as true)
                raise ArgumentTypeError(f"{name} must be True or False, got {type(flag).__name__} {_shown(flag)}")
        self.store: StoreConfig = resolve_store(store, create=create, write=write)
        self._in_use = hold_in_use(self.store) if hold and create else None
        if self._in_use is not None and not schema_held(self.store, self._in_use):
            try:  # dropped by the zx import that made it, just before the lock: made again (or "no store"), now
                # that no import can drop it
                self.store = resolve_store(store, create=create, write=write)
            except BaseException:
                self._let_go()
                raise
        self._closed = False
        self._reads: ReadConnections | None = None
        self._indexed = False  # whether the summaries' indexes are known to be there (index_summaries)
        self._ledger: Any = None  # the store seal as _stored_intact last read it (it only grows)
        # matches this service has written (import_logs, the parallel import), counted at each commit: an
        # import's outcomes come out after its batch's gc pass, where a Ctrl-C landed now and then (said 0)
        self.matches_written = 0
        # a game's event classes are imported when an event of it is first decoded (codec.event_class)
        try:
            super().__init__(env={**self.store.env, **(env or {})})
        except BaseException as e:
            self._let_go()
            if isinstance(e, KeyboardInterrupt):  # a Ctrl-C as the schema's transaction began
                let_go_of(e)
            factory = getattr(self, "factory", None)  # (made before the recorder failed: its pool open, else closed
            if factory is not None:  # by the collector's __del__, on whatever thread it ran: "cannot join current
                try:  # thread" from psycopg_pool, and a warning)
                    factory.close()
                except Exception:
                    pass
            drop_made_schema(self.store)  # a schema made for this store, still empty: not left behind
            if isinstance(e, PersistenceError):  # (a role without CREATE: psycopg's "permission denied", raw)
                raise StoreError(cannot_open_text(self.store, e, store)) from None
            raise
        # whether it created the store's PostgreSQL schema (zx import removes one it stored nothing in: newstore)
        self.made_schema = bool(self.store.env.pop(SCHEMA_MADE, None))

    def __repr__(self) -> str:  # (a notebook showed <zx_events.application.MatchService object at 0x...>)
        store = getattr(self, "store", None)
        reader = ", read-only" if store is not None and store.reader else ""
        closed = ", closed" if getattr(self, "_closed", False) else ""
        return f"MatchService({store.label if store is not None else '?'!r}{reader}{closed})"

    @property
    def reads(self) -> ReadConnections:
        """The per-thread read-only connections to the store's SQLite file, made on first use and
        closed with the service: the seeks', the import's look-ups' and ``zx serve``'s."""
        if self._reads is None:
            direct = self.rows_direct
            self._reads = ReadConnections(ReadConnections.uri_of(self.store) if direct else None,
                                          f"SELECT 1 FROM {self.recorder.events_table_name} LIMIT 1" if direct else "")
        return self._reads

    def read_connection(self) -> Any:
        """This thread's read-only connection to the store's SQLite file (``ReadConnections``), or
        None: read through the recorder (another kind of store, or a file it cannot open read-only)."""
        return self.reads.get()

    def read_one(self, sql: str, params: Any) -> Any:
        """The first row of a plain statement on a SQLite store: on this thread's read-only
        connection, or where there is none on one of the recorder's pooled connections."""
        con = self.read_connection()
        if con is not None:
            return con.execute(sql, params).fetchone()
        with self.recorder.datastore.get_connection(commit=False) as conn:
            c = conn.cursor()
            c.execute(sql, params)
            return c.fetchone()

    def _let_go(self) -> None:
        """Close the connection that holds the store's "open" lock (``hold_in_use``), if any."""
        conn, self._in_use = getattr(self, "_in_use", None), None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # (a lost connection: its lock went with it)
                pass

    def __del__(self) -> None:
        """eventsourcing's: ``close()`` when collected, but not again after a ``close()`` (one that failed, its
        PostgreSQL server gone, was run again by the collector on whatever thread it ran: on one of the pool's own
        threads it could not join that thread, "Exception ignored in ... __del__ ... RuntimeError: cannot join
        current thread", a traceback), nor on a thread of the store's own pool."""
        if getattr(self, "_closed", True):  # (closed, or never opened this far)
            return
        threading = sys.modules.get("threading")  # (no import here: at the interpreter's exit there is none)
        pool = getattr(getattr(getattr(self, "recorder", None), "datastore", None), "pool", None)
        me = threading.current_thread() if threading is not None else None
        if me is not None and (me is getattr(pool, "_sched_runner", None) or me in (getattr(pool, "_workers", None)
                                                                                       or ())):
            return
        super().__del__()

    def close(self) -> None:
        self._closed = True
        self._let_go()
        if self._reads is not None:
            self._reads.close()
        super().close()
        # a later read through the recorders (a seek, the summaries, an update of the analytics) met the pool
        # closed: ConnectionPoolClosedError('') on SQLite, "pool has already been opened/closed" on PostgreSQL
        datastore = getattr(self.recorder, "datastore", None)
        if datastore is not None:
            label = self.store.label

            def closed(*args: Any, **kwargs: Any) -> Any:
                raise ServiceClosed.of(label)

            datastore.get_connection = closed  # (the datastore's transaction() asks it for its connection too)

    @property
    def rows_direct(self) -> bool:
        """Whether the store is a SQLite file of UUID ids, whose rows this service reads and writes
        with plain statements (``originator_id`` as hex) instead of the recorder's per-row objects."""
        return self.store.kind == "sqlite" and getattr(self.recorder.datastore, "originator_id_type", None) == "uuid"

    # ------------------------------------------------------------------ import
    def stored_started(self, match_id: str) -> Any:
        """The Started event of a stored match, or None when no event of it is stored; ``DamagedMatch``
        when its first stored event is not a Started event that decodes (an event row deleted or
        edited in the store: the import said "run the import again" for ever, zx matches failed)."""
        rec, oid = self.recorder, match_uuid(match_id)
        if self.rows_direct:
            # asked before checking every imported match: one statement on this thread's read-only
            # connection (autocommit: it sees every committed match; the recorder's pooled connection
            # cost half of it in the pool's check-out, and its select_events wraps the statement in
            # BEGIN ... ROLLBACK); the matches of a batch not yet committed are the caller's to know
            # (seen_in_batch), and one stored meanwhile by another importer is the insert's conflict
            row = self.read_one(f"SELECT originator_version, topic, state FROM {rec.events_table_name} WHERE "
                                f"originator_id = ? ORDER BY originator_version LIMIT 1", (oid.hex,))
            if row is None:
                return None
            version, topic, decode = row[0], row[1], lambda: self.mapper.decode(oid, 1, row[1], row[2])
        else:
            stored = rec.select_events(oid, limit=1)
            if not stored:
                return None
            version, topic = stored[0].originator_version, stored[0].topic
            decode = lambda: self.mapper.to_domain_event(stored[0])  # noqa: E731
        if version == 1 and topic in summaries.TOPICS_STARTED:
            try:
                return decode()
            except Exception:
                pass
        from zx_events.errors import DamagedMatch

        what = "is missing" if version != 1 else "cannot be decoded as its Started event"
        raise DamagedMatch(f"match {match_id} is in the store {self.store.label}, but its event seq 1 {what}: the "
                           f"store was altered; zx verify {match_id} names the damage")

    def import_log(self, log: MatchLog, *, catalog: Catalog | None = None,
                   accept_violations: bool = False) -> ImportOutcome:
        """Check one match and store it in one transaction, or store nothing of it."""
        (out,) = self._import_logs([log], catalog, accept_violations, 1, warn_at=5)
        return out

    def import_logs(self, logs: Iterable[MatchLog], *, catalog: Catalog | None = None,
                    accept_violations: bool = False, batch: int = 64) -> Iterator[ImportOutcome]:
        """Import matches in order, yielding one outcome each (in input order).

        Checked matches are saved ``batch`` at a time in one transaction: a rejected match never
        joins a batch, so it leaves nothing behind; a batch that loses a race with another importer
        (an id stored meanwhile) is saved again match by match. Lazy: nothing is done until it is iterated.
        """
        return self._import_logs(logs, catalog, accept_violations, batch, warn_at=4)

    def _import_logs(self, logs: Iterable[MatchLog], catalog: Catalog | None, accept_violations: bool, batch: int,
                     warn_at: int) -> Iterator[ImportOutcome]:
        """``import_logs``; ``warn_at``: the frame of the caller an ``OtherGameCatalog`` warning names (the one
        that iterates ``import_logs``, or calls ``import_log``: QA round 38, it named application.py for the second)."""
        if self._closed:  # (each match was "rejected" with ServiceClosed as its error; a memory store's imported)
            raise ServiceClosed.of(self.store.label)
        if self.store.reader:  # (it failed at the first batch with SQLite's "attempt to write a readonly database")
            raise ReadOnlyService.of(self.store.label, "import", "import")
        if isinstance(logs, (str, bytes, os.PathLike)):  # (each character of a path was "a log": AttributeError)
            raise ArgumentTypeError(f"import_logs takes MatchLogs, not a path ({type(logs).__name__} {logs!r}): "
                                    f"zx_events.logformat.reader.read_log(PATH) reads a file's")
        from zx_events.logformat.reader import MatchLog

        if isinstance(logs, MatchLog) or not isinstance(logs, Iterable):  # ('MatchLog' object is not iterable)
            raise ArgumentTypeError(
                f"import_logs takes an iterable of MatchLogs (read_log(PATH) gives a list of them; one "
                f"alone: import_log(LOG) or import_logs([LOG])), not {type(logs).__name__} {_shown(logs)}")
        catalog = given_catalog(catalog)
        outs: list[ImportOutcome] = []
        pending: list[tuple[ImportOutcome, Any, list[StoredEvent]]] = []
        in_batch: dict[str, tuple[str, str | None]] = {}  # match id -> (content hash, head)
        # The cyclic garbage collector: its passes went over every object alive (a tenth of an import's
        # CPU), again and again over the encoded events of the batch under way. So while the import
        # runs, the objects alive before it (modules, classes, the caller's) are frozen out of its
        # sight (gc.freeze; not when someone froze them already), and it collects once a batch, after
        # the batch is written, instead of every 700 allocations (a match leaves a few cycles behind:
        # memory stays flat). Undone when it ends or stops early; the caller's code between the
        # outcomes runs with the collector as it was.
        frozen = gc.get_freeze_count() == 0
        if frozen:
            gc.freeze()
        was_on = gc.isenabled()
        batches = 0
        try:
            gc.disable()
            for log in logs:
                out, stored = self._check(log, catalog, accept_violations, in_batch, warn_at)
                outs.append(out)
                if stored is not None:  # what a retry needs of the log, not its records (alive until the flush)
                    pending.append((out, _LogKey(log.match_id, log.content_sha256, log.source, log.header_line),
                                    stored))
                    in_batch[log.match_id] = (log.content_sha256, out.head)
                if len(pending) >= batch or (not pending and len(outs) >= batch):
                    self._flush(pending)
                    outs_, outs, pending, in_batch = outs, [], [], {}
                    batches += 1
                    if was_on:
                        collect_after(batches)
                        if frozen and batches == 1:
                            # what the first batch loaded for good (a game's modules, its schema's
                            # validators, catalogs) out of the passes too, once its garbage is gone:
                            # the full pass every 16 batches went over all of it (~30 ms of 1,000 matches)
                            gc.freeze()
                        gc.enable()
                    yield from outs_
                    gc.disable()
            self._flush(pending)
        finally:
            if was_on:
                gc.enable()
            if frozen:
                gc.unfreeze()
        yield from outs

    def _check(self, log: MatchLog, catalog: Catalog | None, accept_violations: bool,
               in_batch: dict[str, tuple[str, str | None]], warn_at: int = 4) -> tuple[ImportOutcome, list[Any] | None]:
        """The outcome of checking ``log``, and its sealed events encoded for the recorder (None when
        there is nothing to store): StoredEvents, or where the store takes plain rows (``rows_direct``)
        the rows ``(originator_id hex, version, topic, state)`` that ``insert`` hands on as they are."""
        from zx_events.logformat.reader import MatchLog

        if not isinstance(log, MatchLog):  # (a path or read_log's list: AttributeError 'str' has no 'source')
            raise ArgumentTypeError(
                f"a log to import is a zx_events.logformat.reader.MatchLog (read_log(PATH) gives a list of "
                f"them: import_logs(read_log(PATH)), or import_log(one of them)), not "
                f"{type(log).__name__} {_shown(log)}")
        out = ImportOutcome(log.source, log.header_line, log.match_id, "rejected",
                            game=log.game.key if log.game is not None else None)
        from zx_events.importer import warn_other_game

        warn_other_game(log, catalog, stacklevel=warn_at)  # (import_logs' caller, who iterates it; import_log's)
        try:
            if log.error is None and log.match_id is not None:
                if self.seen_in_batch(out, log, in_batch):
                    return out, None
                existing = self.stored_started(log.match_id)
                if existing is not None:
                    head = self._stored_intact(log, existing)
                    self._same_or_conflict(log, existing)
                    if not accept_violations:
                        self._refuse_if_stored_with_violations(log, existing.originator_id)
                    out.status = "unchanged"
                    out.head = head
                    return out, None
            from zx_events.importer import build_match

            try:
                checked = build_match(log, catalog=catalog, strict=not accept_violations)
            except (ZXError, MemoryError):
                raise
            except Exception as e:  # a bug met in this match's check: this match is rejected, not the import
                raise InternalError.of(e, source=log.source, line=log.header_line) from e
        except ServiceClosed:  # the service's, not the match's: every later match would be "rejected" too
            raise
        except ZXError as e:
            out.error = e
            return out, None
        # tamper evidence: a digest chained through every event, then the seal; each event's canonical
        # bytes, hashed once, are the bytes stored (zx_events.codec)
        out.head, stored = seal_stored(checked.match, self.mapper, hex_rows=self.rows_direct)
        out.finished = getattr(checked.match, "outcome", None) is not None
        out.violations = checked.violations
        out.events = len(stored)
        return out, stored

    def seen_in_batch(self, out: ImportOutcome, log: Any, in_batch: dict[str, tuple[str, str | None]]) -> bool:
        """Whether ``log``'s id came earlier in this batch; then ``out`` says unchanged or conflict."""
        seen = in_batch.get(log.match_id)
        if seen is None:
            return False
        if seen[0] != log.content_sha256:
            # (a worker of the parallel import sealed it already: its head was never stored)
            out.status, out.error, out.events, out.head = "rejected", self._conflict(log, seen[0]), 0, None
        else:
            out.status, out.head, out.events = "unchanged", seen[1], 0
        return True

    def _flush(self, pending: list[tuple[ImportOutcome, Any, list[StoredEvent]]]) -> None:
        """Insert the encoded events of ``pending`` and their store-seal entry (zx_events.ledger) in one
        transaction (straight to the recorder: ``Application.save`` would encode them again and check
        each against a runtime Protocol); a batch that loses a race with another importer (an id
        stored meanwhile) is written again match by match."""
        if not pending:
            return
        try:
            insert_sealed(self.recorder, self.mapper, [s for _, _, stored in pending for s in stored],
                          [seal_row(out, stored) for out, _, stored in pending], insert=self.insert)
        except IntegrityError:  # another importer stored one of these ids meanwhile
            for out, log, stored in pending:
                self.write_one(out, log, stored)
            return
        except KeyboardInterrupt:
            self.count_if_saved(pending[0][0].match_id, len(pending))
            raise
        self.matches_written += len(pending)
        for out, _, _ in pending:
            out.status = "imported"

    write_batch = _flush  # the parallel importer's writer (zx_events.parallel)

    def count_if_saved(self, first: str, matches: int) -> None:
        """After Ctrl-C in the write of a batch whose first match is ``first``: count its ``matches`` in
        ``matches_written`` when the batch was saved (SIGINT lands in the COMMIT call, after the commit, as
        the WAL checkpoint inside it runs: the Ctrl-C after a batch said 0 matches were imported)."""
        try:
            if self.has_match(first):
                self.matches_written += matches
        except Exception:  # (the store failing now: the count stays what it was)
            pass

    def insert(self, stored: list[Any]) -> None:
        """Insert encoded events in one transaction. On SQLite with one ``executemany``: the
        recorder's own insert runs one statement per event to return notification ids, which an
        import does not use; the transaction and its errors (``IntegrityError``) are the recorder's.

        Where ``rows_direct``, an item may also be the row itself, ``(originator_id hex, version,
        topic, state)``, as the parallel import's workers send it (zx_events.parallel)."""
        rec = self.recorder
        if self.rows_direct:
            self.index_summaries()  # (the first write of a service that was not given a note to say it in)
            params = [s if type(s) is tuple else (s.originator_id.hex, s.originator_version, s.topic, s.state)
                      for s in stored]
            with rec.datastore.transaction(commit=True) as c:
                c.executemany(rec.insert_events_statement, params)
            return
        self.index_summaries()  # (PostgreSQL: where the role owns the table)
        rec.insert_events(stored)

    def write_one(self, out: ImportOutcome, log: Any, stored: list[StoredEvent]) -> None:
        """Store one match with its seal entry; when its id was stored meanwhile: unchanged, or a conflict."""
        try:
            insert_sealed(self.recorder, self.mapper, stored, [seal_row(out, stored)], insert=self.insert)
        except IntegrityError:
            try:
                existing = self.stored_started(log.match_id)
                if existing is None:
                    raise
                self._same_or_conflict(log, existing)
            except ZXError as e:
                out.status, out.error, out.events, out.head = "rejected", e, 0, None  # (the head was never stored)
                return
            out.status, out.events = "unchanged", 0
            out.head = stored_head(self, existing.originator_id)
            return
        self.matches_written += 1
        out.status = "imported"

    def _refuse_if_stored_with_violations(self, log: MatchLog, oid: UUID) -> None:
        """A strict import of a log stored earlier as played (``--accept-violations``) refuses it with its
        first violation, as it refuses the same log on a store without it (the stored match is kept).
        It passed as unchanged, violations 0, exit 0: a judge's strict re-check said the log was clean."""
        rec = self.recorder
        if self.rows_direct:
            row = self.read_one(f"SELECT originator_version, topic, state, count(*) OVER () FROM "
                                f"{rec.events_table_name} WHERE originator_id = ? AND topic LIKE '%:ViolationRecorded' "
                                f"ORDER BY originator_version LIMIT 1", (oid.hex,))  # the first, and how many
            first = None if row is None else self.mapper.decode(oid, row[0], row[1], row[2])
            count = 0 if row is None else row[3]
        else:
            found = [s for s in rec.select_events(oid) if s.topic.endswith(":ViolationRecorded")]
            first, count = (self.mapper.to_domain_event(found[0]) if found else None), len(found)
        if first is None:
            return
        raise RuleViolation(getattr(first, "rule", "?"),
                            f"{getattr(first, 'message', 'a violation')} (match {log.match_id} is stored as played, "
                            f"with {count} violation{'s' * (count != 1)}, by zx import --accept-violations; a "
                            f"strict import refuses it; the stored match is kept)",
                            source=log.source, line=getattr(first, "line", None) or log.header_line)

    def _stored_intact(self, log: MatchLog, existing: Any) -> str | None:
        """The head of ``log``'s match, stored already, once it verifies as ``zx verify`` checks it (its
        digest chain, then the store seal); else a ``DamagedMatch`` that names it and ``zx verify``. The
        log said "unchanged", exit 0, with the score sheet's head, over a stored match whose result was
        edited (the head is the last row's digest, and the Started event's content hash was all it
        compared), and then over one edited with its chain recomputed (``rewritten``: only the seal
        tells). Only here, where nothing is imported: an import of new matches reads nothing more; the
        seal is read once an import (again when it lacks a match sealed since: ``added``)."""
        from zx_events.errors import DamagedMatch
        from zx_events.ids import filed_under
        from zx_events.integrity import Verdict
        from zx_events.ledger import match_verdict, read_ledger

        uid = match_uuid(log.match_id)
        if not filed_under(getattr(existing, "match_id", log.match_id), uid):  # another match's events filed here
            verdict: Any = Verdict(log.match_id, 0, "forged", 1, (
                f"the events filed under its id are those of match {existing.match_id}: zx import did not write them"),
                None)
        else:
            ledger = self._ledger if self._ledger is not None else read_ledger(self.recorder, self.mapper)
            verdict = match_verdict(self, log.match_id, uid, ledger)
            if verdict.status == "added" and self._ledger is not None:  # sealed since the seal was read
                ledger = read_ledger(self.recorder, self.mapper)
                verdict = match_verdict(self, log.match_id, uid, ledger)
            self._ledger = ledger
            if verdict.ok:  # ("unchained", no digest at all, was taken as unchanged: every release writes them)
                return verdict.head
        at = f" at seq {verdict.seq}" if verdict.seq is not None else ""
        raise DamagedMatch(f"match {log.match_id} is in the store {self.store.label}, but it does not verify "
                           f"({verdict.status}{at}: {verdict.message}): the store was altered; nothing was imported; "
                           f"zx verify {log.match_id} names the damage",
                           source=log.source, line=log.header_line)

    @classmethod
    def _same_or_conflict(cls, log: MatchLog, existing: Any) -> None:
        if existing.content_sha256 != log.content_sha256:
            raise cls._conflict(log, existing.content_sha256)

    @staticmethod
    def _conflict(log: MatchLog, stored_sha: str) -> ConflictError:
        return ConflictError(
            f"match {log.match_id} is already stored with different content "
            f"(stored {stored_sha[:12]}, this log {log.content_sha256[:12]}); "
            f"give the corrected match a new id", source=log.source, line=log.header_line)

    # ------------------------------------------------------------------ read
    @_reads_store
    def get_match(self, match_id: str, version: int | None = None) -> Any:
        """The match aggregate (after event ``version``; None: the last): ``UnknownMatch`` when no event of
        it is stored (it was eventsourcing's AggregateNotFoundError, naming a UUID), ``OutOfRange`` for a
        version it does not have; ``version`` is a whole number as ``replay.view_at``'s ``seq`` (``replay.whole``:
        a ``numpy.int64`` went to SQLite as a BLOB, greater than every version, and gave the match's end)."""
        from eventsourcing.application import AggregateNotFoundError

        from zx_events.replay import SEQ_MAX, OutOfRange, last_seq, unknown, whole

        if version is not None:
            version = whole(version, "version")
        try:
            match = self.repository.get(match_uuid(match_id), projector_func=project,
                                        version=None if version is None else min(version, SEQ_MAX))
        except AggregateNotFoundError:
            if version is None or not self.has_match(match_id):
                raise unknown(self, match_id) from None
            match = None
        if match is None or (version is not None and match.version != version):  # (before its first, past its end)
            n = last_seq(self, match_id)
            raise OutOfRange(f"match {match_id} has {n} events: version must be 1..{n}")
        return match

    @_reads_store
    def has_match(self, match_id: str) -> bool:
        """Whether any event of the match is stored (a damaged match too: what reads it says so)."""
        from zx_events.errors import DamagedMatch

        try:
            return self.stored_started(match_id) is not None
        except DamagedMatch:
            return True

    def notifications(self, topics: list[str] | None = None, page: int = 1000,
                      start: int | None = None) -> Iterator[Any]:
        """Every stored notification (in order) with the given topics, read in pages."""
        last = start
        while True:
            batch = self.recorder.select_notifications(start=last, limit=page, topics=topics or (),
                                                       inclusive_of_start=last is None)
            if not batch:
                return
            yield from batch
            last = batch[-1].id
            if len(batch) < page:
                return

    @_reads_store
    def summaries(self) -> list[dict[str, Any]]:
        """One row per stored match: id, date, event, players, decks, turns, winner, violations, game."""
        rows: dict[UUID, dict[str, Any]] = {}
        self.update_summaries(rows)
        return list(rows.values())

    def update_summaries(self, rows: dict[UUID, dict[str, Any]], after: int | None = None) -> int | None:
        """Bring ``rows`` (summaries by originator id) up to date with the notifications after ``after``
        (all of them when None); returns the last notification id read (``after`` when none is new).
        The store only grows, so a caller can keep ``rows`` and read only what came since.

        The events' stored fields are read without their classes (``MatchMapper.fields``), so listing
        matches imports no game. The first read of a SQLite store that has the summaries' indexes
        (``index_summaries``) reads a few events of each match through them (``summaries.indexed_notes``)."""
        if after is None and self.store.kind == "postgres" and self._pg_indexed():
            with self.recorder.datastore.get_connection() as conn, conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                last = conn.execute(f"SELECT max(notification_id) FROM {self._pg_table}").fetchone()
                summaries.update(rows, summaries.pg_notes(conn, self._pg_table), self.mapper.fields)
            return next(iter(last.values())) if isinstance(last, dict) else last[0]
        con = self.read_connection() if after is None else None
        read = summaries.indexed_notes(con) if con is not None else None
        if read is not None:
            notes, last = read
            try:
                summaries.update(rows, ((nid, UUID(oid), topic, state) for nid, oid, topic, state in notes),
                                 self.mapper.fields)
            finally:
                notes.close()  # (its read transaction ended: this thread's connection serves later reads)
            return last
        notes = ((n.id, n.originator_id, n.topic, n.state)
                 for n in self.notifications(list(summaries.TOPICS), start=after))
        last = summaries.update(rows, notes, self.mapper.fields)
        return after if last is None else last

    @property
    def _pg_table(self) -> str:
        return f'"{self.recorder.datastore.schema}"."{self.recorder.events_table_name}"'

    def _pg_indexed(self) -> bool:
        """Whether the PostgreSQL store has the summaries' indexes, valid (``index_summaries``)."""
        ds = self.recorder.datastore
        with ds.get_connection() as conn:
            found = summaries.pg_found_indexes(conn, ds.schema, self.recorder.events_table_name)
        return all(found.get(name) for name in summaries.INDEXES)

    def _pg_index_summaries(self, note: Callable[[str], None] | None) -> None:
        """``index_summaries`` on PostgreSQL: under the lock the store's tables are made under
        (``PostgresMatchRecorder.ddl_lock``), by a role that owns the table; another role's import (docs/deployment.md:
        INSERT without ownership) leaves the store as it is, its list read whole, and says nothing (it said it was
        indexing, at every import). ``CREATE INDEX`` waits at most ``INDEX_LOCK_WAIT`` for the table lock another
        session holds (it waited without limit and without a word: QA round 33): the import goes on, with a note,
        and a later one makes them."""
        import psycopg

        ds, rec = self.recorder.datastore, self.recorder
        with ds.get_connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (rec.ddl_lock,))
            try:
                found = summaries.pg_found_indexes(conn, ds.schema, rec.events_table_name)
                drop = [name for name, valid in found.items()
                        if summaries.ours(name) and (name not in summaries.INDEXES or not valid)]
                if not drop and all(name in found for name in summaries.INDEXES):
                    return
                row = conn.execute("SELECT pg_has_role(c.relowner, 'USAGE') AS owner, greatest(c.reltuples, 0)::bigint "
                                   "AS n FROM pg_class c WHERE c.oid = to_regclass(%s)", (self._pg_table,)).fetchone()
                owner, events = (row["owner"], row["n"]) if isinstance(row, dict) else row or (False, 0)
                if not owner:  # (only the table's owner may make an index on it)
                    return
                _note_indexing(note, events, "; inserts wait meanwhile")
                try:
                    with conn.transaction():
                        conn.execute(f"SET LOCAL lock_timeout = '{INDEX_LOCK_WAIT}s'")
                        for name in drop:
                            conn.execute(f'DROP INDEX IF EXISTS "{ds.schema}"."{name}"')
                        for statement in summaries.pg_index_statements(self._pg_table).values():
                            conn.execute(statement)
                except psycopg.errors.LockNotAvailable:
                    if note is not None:
                        note(f"another session holds the table lock of {self.store.label} (another zx import, or a "
                             f"session that locked the table): the indexes its match list is read through are left "
                             f"to a later import (docs/architecture.md, \"Stored data does not move\")")
                except psycopg.Error:  # (a statement_timeout, a privilege taken away meanwhile): the import goes on,
                    pass  # and the next one makes them
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (rec.ddl_lock,))

    def index_summaries(self, note: Callable[[str], None] | None = None) -> None:
        """Give a SQLite store the indexes the match summaries are read through (``summaries.INDEXES``)
        if it lacks them (a PostgreSQL store: ``_pg_index_summaries``): at once in a new store; in a store of
        many events written by an earlier release under a second per million events, said first to ``note``.
        Every import does it (its first write), so a store's listing is slow at most until its next import."""
        if self._indexed:
            return
        if self.store.kind == "postgres":
            self._pg_index_summaries(note)
            self._indexed = True
            return
        if not self.rows_direct:
            return
        con = self.read_connection()
        drop = summaries.other_indexes(con) if con is not None else []
        if con is None or drop or not summaries.has_indexes(con):
            events = con.execute("SELECT max(rowid) FROM stored_events").fetchone()[0] or 0 if con is not None else 0
            _note_indexing(note, events)
            with self.recorder.datastore.transaction(commit=True) as c:
                summaries.create_indexes(c, drop)
        self._indexed = True
