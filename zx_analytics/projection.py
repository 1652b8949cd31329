"""The tracked projection: the event store's notification log into the analytics DuckDB file.

``update(svc, path)`` reads the notification log after the tracking position in pages, turns the
events into rows (each game's rows module, gathered by ``zx_analytics.tables``) and writes each page's rows, the in-flight state of the match
under way and the new position in ONE DuckDB transaction. Killed at any point it resumes exactly:
an unfinished transaction is rolled back by DuckDB, and the next run starts from the last
committed position with the committed in-flight state. ``rebuild=True`` starts from zero.

The application saves a whole match in one transaction, so a match's events are contiguous in
the log: a match is closed (its match row written) when the next match begins or the log ends. An
event that arrives later for an already closed match (the application does not do this today,
but a later feature might append to a match) re-projects that match from its stored events in the
same transaction, so its rows are never counted twice. An aggregate whose Started event names a match
that zx import files under another id (``zx_events.ids.filed_under``: a copy, ``forged`` under zx
verify) is left out and named in ``UpdateResult.left_out``; nothing else of the store is verified.

Speed: events are fetched straight from the recorder's database (only the topics the tables need)
and decoded with orjson, without building event objects (``zx_analytics.reader``); rows are plain
tuples, turned per page into Arrow tables and inserted with ``INSERT ... SELECT`` by a writer
thread while the next page is read (``zx_analytics.writer``; the last page of a run is committed by a
checkpoint, straight into the file). Payloads no handler reads are not decoded (the games'
``NO_PAYLOAD``). The cyclic GC is off while it runs. A
large run over a SQLite store is projected by forked worker processes, whole matches a chunk
(``zx_analytics.parallel``), committed in log order the same way; the serial loop below takes over
where they cannot go on (an event for a match closed earlier).
"""

from __future__ import annotations

import gc
import inspect
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable
from uuid import UUID

import duckdb
import orjson
import pyarrow as pa

from zx_events.errors import ArgumentTypeError
from zx_events.ids import filed_under
from zx_events.store import ReadConnections

from . import parallel
from .db import (SCHEMA_VERSION, AnalyticsError, DamagedFile, FileInUse, connect_writer, create_schema, damaged,
                 drop_schema, RebuildNeeded, first_line, sql, stored_version, version_refused)
from .reader import decoder, page_reader
from .tables import HANDLERS, NO_PAYLOAD, PROJECTED, STARTED, TOPICS, Catalogs, new_buffers, rows_of
from .writer import NAME, Page, Writer, declared_types

Buffers = dict[str, list[tuple]]
MatchRows = Any  # a game's rows.MatchRows

# measured on 5.3M events: pages of 20k ran at 156k events/s, 50k at 191k (less per-page cost in the
# writer), 100k no faster and more memory
PAGE_SIZE = 50_000
# a rebuild by worker processes commits its pages about this many events at a time, not each page: a page
# committed before the last goes to DuckDB's write-ahead log and into the file again at the checkpoint that
# ends the run (a Z/X rebuild of 100,000 events wrote 87% of its rows twice; the parent's CPU -10% without).
# A rebuild killed midway resumes from its last commit, up to this many events back (seconds of work)
REBUILD_COMMIT = 1_000_000
CRASH_ENV = "ZX_ANALYTICS_CRASH_AFTER_PAGES"  # test hook: exit uncleanly inside page K+1's transaction


@dataclass
class UpdateResult:
    path: Path
    events: int  # events projected by this run
    matches: int  # match rows written by this run
    pages: int
    position: int  # the notification id the file is now up to date with
    seconds: float
    rebuilt: bool
    workers: int = 0  # worker processes that projected (zx_analytics.parallel); 0: serially
    set_aside: Path | None = None  # where a rebuild moved a file DuckDB could not read (_open)
    # (stored id, the match its Started event names) of each aggregate left out: not filed under that match's
    # id, so not written by zx import (a copy of a match's events: two aggregates of one match id ended the
    # update in a duplicate key of the matches table); zx verify calls it forged
    left_out: list[tuple[str, str]] = field(default_factory=list)
    # (game key, name, SHA-256) -> the matches projected by this run that were checked against that catalog,
    # neither shipped (by name or content) nor given (``catalogs``): their colours are unknown, their
    # archetypes ranked by copies and code (zx_analytics.tables.Catalogs.unknown)
    unknown_catalogs: dict[tuple[str, Any, Any], int] = field(default_factory=dict)
    # the catalogs given (``catalogs``) that no match of the file was checked against (by game and SHA-256):
    # not used, for this update or any before (zx analytics update --catalog FILE warns of each)
    unused_catalogs: list[Any] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"analytics": str(self.path), "events": self.events, "matches": self.matches, "pages": self.pages,
                "position": self.position, "seconds": round(self.seconds, 3), "rebuilt": self.rebuilt,
                "events_per_s": round(self.events / self.seconds) if self.seconds > 0 else None,
                "workers": self.workers}


def _only_our_own(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """A DuckDB file that is not an analytics file (no ``projection_position``, which every version
    has written) but holds tables of its own is never written to: an update dropped a user's own
    ``matches`` table in a file given by mistake, and added fifteen tables beside theirs."""
    found = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables WHERE table_catalog = "
                                       "current_database() ORDER BY table_name").fetchall()]
    if found:
        shown = ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")
        raise AnalyticsError(f"{path} is a DuckDB database that is not zx's analytics (it holds {shown}): zx writes "
                             f"only its own analytics file; nothing was changed. Choose another file with --analytics")


def store_identity(svc: Any) -> str:
    """What the position is relative to: the store's kind and location (never a password). A PostgreSQL store is
    its server (the cluster's system identifier), database and schema, not the connection's text: the role and the
    host's spelling made the file the owner's projection built "another store" to every reader, and to the same
    role at ``localhost`` (QA round 34). Where the server does not say (``pg_control_system`` refused), the URL
    without its user."""
    st = svc.store
    if st.kind == "sqlite" and st.path is not None:
        return f"sqlite:{st.path.resolve()}"
    if st.kind == "postgres":
        from eventsourcing.persistence import InterfaceError, NotSupportedError, OperationalError, ProgrammingError
        from eventsourcing.utils import retry
        from psycopg.rows import tuple_row

        e = st.env
        where = f"database {e['POSTGRES_DBNAME']}, schema {e['POSTGRES_SCHEMA']}"

        # a connection lost (pg_terminate_backend, a restart) is tried again on a new one, as the reads are
        # (``reader``), and then raised as the store's failure: it was taken for a server that will not say, whose
        # identity is the URL, and the file became "another store's" ("run --rebuild"; --follow stopped for good,
        # QA round 37)
        @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
        def system() -> Any:
            with svc.recorder.datastore.get_connection() as conn:  # (its rows are dicts by default)
                return conn.cursor(row_factory=tuple_row).execute(
                    "SELECT system_identifier FROM pg_control_system()").fetchone()[0]
        try:
            return f"PostgreSQL server {system()}, {where}"
        except (ProgrammingError, NotSupportedError):  # (a server that does not let the role read it, or has no such
            return f"postgresql://{e['POSTGRES_HOST']}:{e['POSTGRES_PORT']}, {where}"  # function: the URL, less
            # its user)
    return st.label


def same_store(built_from: str, store: str, svc: Any) -> bool:
    """Whether a file built from ``built_from`` is of the store ``store`` (``store_identity(svc)``): also a file an
    earlier release built from this PostgreSQL store under this URL (its identity was the URL: ``svc.store.label``)."""
    return built_from == store or (svc.store.kind == "postgres" and built_from == svc.store.label)


def known_catalogs(con: duckdb.DuckDBPyConnection) -> set[tuple[str, str]]:
    """The (name, SHA-256) of each catalog whose rows card_catalog holds (``tables.Catalogs``)."""
    return set(con.execute("SELECT DISTINCT catalog, catalog_sha256 FROM card_catalog").fetchall())


class Projection:
    """One run of the projection over an open writer connection."""

    def __init__(self, svc: Any, con: duckdb.DuckDBPyConnection, page_size: int = PAGE_SIZE,
                 fast_read: bool = True, catalogs: Iterable[Any] = ()) -> None:
        self.svc = svc
        self.con = con
        self.page_size = page_size
        self.buf = new_buffers()
        self.current: MatchRows | None = None
        self.key: Any = None  # the current match's originator id as the page rows carry it
        self.pages, self.key_of, self.text_of = page_reader(svc.recorder, page_size, fast_read)
        self.deleted: list[str] = []  # matches re-projected in this page: their stored rows go first
        self.catalogs = Catalogs(known_catalogs(con), catalogs)
        self.writer = Writer(con, declared_types())
        self.decode = decoder(svc.mapper)
        self.matches_written = 0
        self.left_out: list[tuple[str, str]] = []  # UpdateResult.left_out

    # ------------------------------------------------------------------ events
    def run(self, rows: Iterable[tuple]) -> None:
        """Feed one page of ``(id, originator_id, version, topic, state)`` rows (the hot loop)."""
        cur, key = self.current, self.key
        handlers, decode, loads, started, blind = HANDLERS, self.decode, orjson.loads, STARTED, NO_PAYLOAD
        for nid, oid, seq, topic, state in rows:
            first = started.get(topic)  # (game, rows module) when a match begins here
            if oid != key:
                if cur is not None:
                    cur.close()
                    self.matches_written += 1
                key = oid
                try:
                    text = self.text_of(oid)
                except ValueError:  # an id zx never writes (a row's edited in the store): left out, as an aggregate
                    cur = self.current = None  # zx import did not write (zx verify names it: forged)
                    continue
                cur = self.current = first[1].MatchRows(text, nid, self.buf) if first is not None else \
                    self.reopen(text, seq, nid)
            if cur is None:  # an aggregate zx import did not write: left out
                continue
            if first is not None:
                d = loads(state) if decode is None else decode(topic, state)
                if not filed_under(d.get("match_id"), cur.oid):
                    self.left_out.append((cur.oid, d["match_id"]))
                    cur = self.current = None
                    continue
                cur.started(d, *self.catalogs.of(first[0], d, self.buf))
            else:
                h = handlers.get(topic)
                if h is not None:  # a payload its handler does not read is not decoded (NO_PAYLOAD)
                    h(cur, seq, None if topic in blind else loads(state) if decode is None else decode(topic, state))
        self.current, self.key = cur, key

    def resume(self, oid: str, state: dict) -> None:
        self.current = rows_of(state.get("game")).MatchRows.from_json(oid, state, self.buf)
        self.key = self.key_of(oid)

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.matches_written += 1
            self.current = self.key = None

    def reopen(self, oid: str, seq: int, nid: int) -> MatchRows | None:
        """An event for a match closed earlier: drop its rows and project it again from version 1,
        under the match_no it had (the notification id of its first event). None: the rest of an
        aggregate left out (its Started event names a match filed under another id: ``run``)."""
        stored = self.svc.recorder.select_events(UUID(oid), lte=seq - 1)
        no = next((r[1] for r in self.buf["matches"] if r[2] == oid), None)
        if no is None:
            self.writer.drain()  # earlier pages are committed before the file is read
            row = self.con.execute("SELECT match_no FROM matches WHERE match_uuid = ?", [oid]).fetchall()
            no = row[0][0] if row else nid
        game, rows = STARTED[stored[0].topic] if stored and stored[0].topic in STARTED else (None, rows_of(None))
        m = rows.MatchRows(oid, no, self.buf)
        topics = set(TOPICS)
        for se in stored:
            if se.topic not in topics:
                continue
            d = orjson.loads(se.state) if self.decode is None else self.decode(se.topic, se.state)
            if se.topic in STARTED:
                if not filed_under(d.get("match_id"), oid):  # (left out when its Started event was read)
                    return None
                m.started(d, *self.catalogs.of(game, d, self.buf))
                self._forget(m.mid)
            else:
                m.feed(se.originator_version, se.topic, d)
        return m

    def _forget(self, mid: str) -> None:
        self.deleted.append(mid)
        for table in PROJECTED:
            rows = self.buf[table]
            if any(r[0] == mid for r in rows):
                self.buf[table] = [r for r in rows if r[0] != mid]  # MatchRows look lists up by name

    # ------------------------------------------------------------------ writing
    def commit(self, position: int, events: int, crash: bool = False, final: bool = False) -> None:
        """Hand this page's rows, the in-flight state and the position to the writer (one transaction)."""
        rows = {t: self.buf[t] for t in self.buf}
        for t in self.buf:  # MatchRows look their lists up by name: they append to the fresh ones
            self.buf[t] = []
        inflight = None if self.current is None else (self.current.oid, orjson.dumps(self.current.to_json()).decode())
        self.writer.put(Page(rows, self.deleted, inflight, position, events, crash, final and inflight is None))
        self.deleted = []


@dataclass
class _Started:
    """Worker processes projecting (position, last] in chunks (``_start``), and what the parent needs
    to commit their chunks."""
    pool: parallel.Workers
    chunks: int
    known: set[tuple[str, str]]  # the catalogs already in card_catalog (known_catalogs)


def _start(svc: Any, workers: int, position: int, last: int, page_size: int, known: set[tuple[str, str]],
           inflight: list[tuple[str, dict]], catalogs: Iterable[Any] = ()) -> _Started:
    """Fork the workers and hand them their first chunks of (position, last]: ``known`` catalogs,
    ``inflight`` the match a page boundary cut (at most one), ``catalogs`` the catalog files given."""
    span = max(1, min(page_size, -(-(last - position) // (workers * parallel.CHUNKS_PER_WORKER))))
    afters = range(position, last, span)
    run = parallel.Run(ReadConnections.uri_of(svc.store) or "", svc.recorder.events_table_name, TOPICS,
                       declared_types(), frozenset(known), last, page_size, tuple(catalogs))
    tasks = (parallel.Task(after, min(after + span, last), after == position,
                           inflight[0] if inflight and after == position else None) for after in afters)
    return _Started(parallel.Workers(workers, run, tasks), len(afters), set(known))


def _in_workers(svc: Any, con: duckdb.DuckDBPyConnection, workers: int, position: int, last: int, done_before: int,
                page_size: int, crash_after: int, stop_after_pages: int | None,
                progress: Callable[[int], None] | None, started: _Started | None = None,
                left_out: list[tuple[str, str]] | None = None, catalogs: Iterable[Any] = (),
                unknown: dict | None = None, commit_every: int = 0) -> tuple[int, int, int, int]:
    """Project (position, last] in chunks of whole matches by worker processes, committing each
    chunk's tables in log order (one transaction each, nothing in flight after it). Returns
    (position, events, pages, matches) as far as it got: up to ``last``, or up to the chunk before
    an event for a match closed earlier (the serial projection goes on from there). ``started``: the
    workers already at work on (position, last] (a rebuild starts them before the file is opened);
    ``left_out`` receives the aggregates the committed chunks left out (``UpdateResult.left_out``), and
    ``unknown`` their matches of catalogs neither shipped nor given (``catalogs``: ``UpdateResult.unknown_catalogs``).
    ``commit_every``: pages are committed together, about this many events a transaction (``REBUILD_COMMIT``; 0:
    each page); the page that ends the run, or the run this update was asked to stop at, commits."""
    types = declared_types()
    if started is None:
        known = known_catalogs(con)
        inflight = [(oid, orjson.loads(state)) for oid, state in
                    con.execute("SELECT match_uuid, state FROM projection_inflight").fetchall()]
        started = _start(svc, workers, position, last, page_size, known, inflight, catalogs)
    workers_pool, known = started.pool, started.known
    events, pages, matches = 0, 0, 0
    uncommitted = 0  # events of the pages held in the open transaction (Page.held)
    # the cores are the workers': DuckDB's own threads would only contend with them (the parent's
    # instructions: -13% with one thread, cachegrind)
    con.execute("SET threads = 1")
    writer: Writer | None = None
    group: list[parallel.Chunk] = []  # chunks to commit together: a page of about ``page_size`` events

    def commit(more: bool = True) -> None:
        """Hand the page of the chunks in ``group`` to the writer; ``more``: chunks follow (the page may stay in
        the open transaction). An empty ``group`` commits the pages held, if any."""
        nonlocal pages, position, events, matches, uncommitted
        rows: dict[str, Any] = {}
        if group:
            for table in types:
                parts = [c.tables[table] for c in group if table in c.tables]
                if parts:
                    rows[table] = parts[0] if len(parts) == 1 else pa.concat_tables(parts)
            rows["card_catalog"] = []
            for c in group:  # a catalog new to the file comes from every worker that met it: keep one
                rows["card_catalog"] += [r for r in c.catalog_rows if (r[0], r[1]) not in known]
                known.update((r[0], r[1]) for r in c.catalog_rows)
            events += sum(c.events for c in group)
            matches += sum(c.matches for c in group)
            if left_out is not None:
                left_out.extend(x for c in group for x in c.left_out)
            if unknown is not None:
                for c in group:
                    for key, n in c.unknown.items():
                        unknown[key] = unknown.get(key, 0) + n
            position = group[-1].position
            pages += 1
            uncommitted += sum(c.events for c in group)
        elif not uncommitted:
            return
        crash = bool(crash_after) and pages > crash_after
        held = more and position < last and not crash and uncommitted < commit_every and \
            (stop_after_pages is None or pages < stop_after_pages)
        if not held:
            uncommitted = 0
        writer.put(Page(rows, [], None, position, done_before + events, crash, position >= last, held))
        group.clear()
        if progress is not None:
            progress(position)

    try:
        writer = Writer(con, types)
        for i, chunk in enumerate(workers_pool.results()):
            if chunk.reopen:
                break
            if chunk.position is not None:
                group.append(chunk)
            # a page is about ``page_size`` events; the last chunk is a page of its own, so what is left
            # to write after the workers end is that chunk and the checkpoint, not a whole page
            if group and (i >= started.chunks - 2 or sum(c.events for c in group) >= page_size):
                commit(i < started.chunks - 1)
                if stop_after_pages is not None and pages >= stop_after_pages:
                    break
        commit(False)  # the chunks before one the serial projection takes over; the pages held
        workers_pool.close()  # their work is done: they end while the last page is written
        writer.close()
    except parallel.WorkerDied:
        raise AnalyticsError("a projection worker process died (killed, or out of memory); nothing after the last "
                             f"committed page was written: run the update again (or with {parallel.WORKERS_ENV}=0 "
                             f"to project in this process)") from None
    finally:
        with ExitStack() as cleanup:  # each runs whatever another raises (Ctrl-C arriving in one): a writer
            # thread left running into DuckDB made the close of the file fail, or the process abort at exit
            if writer is not None:
                cleanup.callback(writer.stop)
            cleanup.callback(workers_pool.close)
    con.execute("RESET threads")  # a serial projection that goes on from here has the cores again
    return position, events, pages, matches


def _cannot_write(e: Exception) -> bool:
    """Whether DuckDB's error ``e`` is the file system refusing a write (a full disk, a quota, a read-only
    file system), not a statement of the projection failing. After a failed COMMIT DuckDB has ended the
    transaction itself: the writer keeps this error (zx_analytics.writer), not its rollback's."""
    text = str(e).lower()
    return "could not write" in text or "no space left" in text or "disk quota" in text or "read-only file" in text


def _open(path: Path, rebuild: bool) -> tuple[duckdb.DuckDBPyConnection, int | None, Path | None]:
    """The writer connection, the file's schema version, and where a damaged file was set aside.

    A file DuckDB cannot read (cut short, overwritten, not a database: ``DamagedFile``) is an error
    that says to rebuild it; under ``rebuild`` it is set aside (``set_aside``: renamed, never deleted)
    and a new file made in its place: --rebuild refused it too ("not a valid DuckDB database file")."""
    con = None
    try:
        con = connect_writer(path, rebuild=rebuild)
        return con, stored_version(con), None
    except (DamagedFile, duckdb.Error) as e:
        if not isinstance(e, DamagedFile) and not damaged(e):
            raise
        if con is not None:
            try:
                con.close()
            except duckdb.Error:
                pass
        if not rebuild:
            raise e if isinstance(e, DamagedFile) else DamagedFile(path, e) from None
        aside = set_aside(path, e)
        con = connect_writer(path, rebuild=rebuild)
        return con, stored_version(con), aside


def _remove_made(path: Path) -> None:
    """Remove the analytics file (and its .wal) an update made and left without a committed schema (it failed
    or was interrupted before): nothing half-made is left behind."""
    for p in (path, Path(f"{path}.wal")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except OSError:  # a read-only file system refuses even a file that is not there (EROFS): this cleanup's
            if p.exists():  # error replaced the update's own ("Read-only file system ... in _remove_made")
                raise


def set_aside(path: Path, e: Exception) -> Path:
    """Rename the unreadable file ``path`` (and its .wal) to ``PATH.damaged-YYYYmmddTHHMMSS``, for a
    rebuild to make a new one. Only a file named ``*.duckdb`` (every name zx gives its analytics file):
    one named otherwise may be anything, given to --analytics by mistake, and is left alone."""
    if path.suffix != ".duckdb":
        cause = getattr(e, "cause", None) or first_line(e)
        raise AnalyticsError(f"{path} cannot be read as a DuckDB database ({cause}) and its name does not end in "
                             f".duckdb: it may not be zx's analytics file, so --rebuild leaves it alone; move it "
                             f"away, or choose another file with --analytics") from None
    stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    path.rename(aside)
    wal = Path(f"{path}.wal")  # its write-ahead log belongs to it: a new file must not replay it
    if wal.exists():
        wal.rename(Path(f"{aside}.wal"))
    return aside


def _parallel(svc: Any, wanted: int, forced: bool, events: int, fast_read: bool) -> bool:
    """Whether ``events`` notifications are projected by ``wanted`` worker processes (zx_analytics.parallel)."""
    return wanted > 1 and events > 0 and (forced or events >= parallel.PARALLEL_MIN) \
        and parallel.eligible(svc, fast_read, decoder(svc.mapper))


def _position(con: duckdb.DuckDBPyConnection) -> tuple[int, int, str]:
    return con.execute("SELECT position, events, store FROM projection_position WHERE projection = ?",
                       [NAME]).fetchall()[0]


def _reset(con: duckdb.DuckDBPyConnection, store: str) -> None:
    """Drop everything any version created and start this version's schema at position 0."""
    con.execute("BEGIN TRANSACTION")
    drop_schema(con)
    create_schema(con)
    con.execute(sql("insert_projection_position"), [NAME, SCHEMA_VERSION, store, datetime.now(timezone.utc)])
    con.execute("COMMIT")


_PATH_LOCKS: dict[str, Any] = {}  # one a file: updates of it in this process, one at a time
_PATH_LOCKS_LOCK = threading.Lock()


def _path_lock(path: Any) -> Any:
    """The lock of the analytics file ``path`` in this process (``update``), or a no-op for what is not a path
    (``update`` refuses it)."""
    if not isinstance(path, (str, os.PathLike)):
        return nullcontext()
    key = os.path.realpath(path)
    with _PATH_LOCKS_LOCK:
        return _PATH_LOCKS.setdefault(key, threading.RLock())  # (a thread may nest them: a callback)


def update(svc: Any, path: str | Path, *args: Any, **kwargs: Any) -> UpdateResult:
    # (its help and signature are _update's: below)
    with _path_lock(path):  # threads of one process updating one file: DuckDB's raw "Catalog write-write
        # conflict" for all but one, whose new file their cleanup then removed; now one after the other
        return _update(svc, path, *args, **kwargs)


def _update(svc: Any, path: str | Path, *, rebuild: bool = False, page_size: int = PAGE_SIZE,
           on_progress: Callable[[int, int], None] | None = None,
           stop_after_pages: int | None = None, fast_read: bool = True, workers: int | None = None,
           catalogs: Iterable[Any] = (), stop: threading.Event | None = None) -> UpdateResult:
    """Bring the analytics file at ``path`` up to date with the store of ``svc``.

    ``on_progress(done, total)`` is called once the work is known (``done`` 0; not when there is none) and after
    each page (events of this run). A memory store
    lives only as long as its process, so its analytics are always rebuilt. ``fast_read=False``
    reads through ``select_notifications`` even where a direct query is available (tests compare both).
    ``workers``: worker processes for a SQLite store (``zx_analytics.parallel``; default: the
    ``ZX_ANALYTICS_WORKERS`` variable, else one a core up to 4, for runs of ``PARALLEL_MIN`` events
    or more; given, whatever the run's size; 0 or 1: the serial projection).
    ``catalogs``: catalogs given as files (``zx analytics update --catalog FILE``; ``games.load_catalogs``),
    each used for exactly the matches whose Started event pins its SHA-256 (the projection never reads
    a file a stored name names); the matches of a catalog neither shipped nor given are counted in
    ``UpdateResult.unknown_catalogs``.
    ``stop``: once it is set, the update ends after the page under way has committed (``zx serve --follow``
    stopping: the position says where the next update resumes, as after ``stop_after_pages``).

    Updates of one file from threads of one process run one after the other; another process that holds
    the file makes it ``FileInUse``. A file this update made and could not give its tables is removed again,
    and only then: never one another update made or committed to.
    """
    from eventsourcing.application import Application

    from .paths import not_a_file

    if not isinstance(svc, Application):  # (a store's path was AttributeError: no attribute 'store', inside)
        raise ArgumentTypeError(
            f"update takes a MatchService (zx_events.application.MatchService(store, create=False)), "
            f"not {type(svc).__name__} {svc!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(
            f"path must be the analytics file's path (a str or pathlib.Path), got {type(path).__name__} "
            f"{path!r}")
    refused = not_a_file(path)  # (as given: a Path folds "s3://" to "s3:/"; DuckDB made folders s3:/ and kept
    if refused is not None:  # nothing of :memory:)
        raise AnalyticsError(refused + " (nothing was created)")
    from zx_events.replay import given_catalogs

    catalogs = given_catalogs(catalogs)  # (a dict, a file's name: a TypeError before the file is touched)
    t0 = time.perf_counter()
    path = Path(path)
    if page_size < 1:
        raise AnalyticsError(f"page size must be at least 1, got {page_size}")
    store = store_identity(svc)
    asked = rebuild
    rebuild = rebuild or svc.store.kind == "memory"  # (unless the file is another store's: below)
    wanted, forced = parallel.workers_wanted() if workers is None else (workers, True)
    con: duckdb.DuckDBPyConnection | None = None
    proj: Projection | None = None
    ahead: ThreadPoolExecutor | None = None
    early: _Started | None = None
    # rows are acyclic tuples: the cyclic collector would only walk every live object again and again
    # while the pages allocate (a tenth of the run); forked workers inherit it disabled
    collecting = gc.isenabled()
    # a file this update makes: removed again if it ends before the schema is committed (a Ctrl-C in the first
    # second of a first update left a DuckDB file without tables, which every reader then failed on)
    made = not os.path.lexists(path) and not os.path.lexists(f"{path}.wal")
    schema = False
    gc.disable()
    try:
        last = svc.recorder.max_notification_id() or 0
        if (rebuild or not path.exists()) and _parallel(svc, wanted, forced, last, fast_read):
            # a rebuild, or a new file, projects (0, last]: the workers begin while this process opens
            # the file and makes its schema (~60 ms before they began: a tenth of a Z/X rebuild)
            early = _start(svc, wanted, 0, last, page_size, set(), [], catalogs)
        try:
            con, version, aside = _open(path, rebuild)
        except FileInUse:  # another process made it meanwhile, and holds it: its file, not this update's
            made = False
            raise
        made = made and version is None  # (another process made it meanwhile, and committed its tables)
        if version is None:
            _only_our_own(con, path)
        elif svc.store.kind == "memory" and not asked:
            # a memory store's file is rebuilt every time (the store lasts as long as its process), but
            # never one that holds another store's analytics: that one meets the check below, which
            # says whose (a dry run into memory: wiped the file ZX_ANALYTICS pointed at)
            try:
                rebuild = same_store(_position(con)[2], store, svc)
            except (duckdb.Error, IndexError):  # another version's file: whose, the check below cannot tell
                rebuild = False
        if early is not None and version is not None and not rebuild:  # made meanwhile by another update
            early.pool.close()
            early = None
        if version is not None and not rebuild:
            if version != SCHEMA_VERSION:
                raise RebuildNeeded(version_refused(path, version, "writes"), path)
            built_from = _position(con)[2]
            if not same_store(built_from, store, svc):
                raise RebuildNeeded(f"{path} was built from {built_from}, not {store}: run `zx analytics update "
                                    f"--rebuild` to rebuild it from this store, or choose another file with "
                                    f"--analytics", path)
            create_schema(con)  # tables exist; macros are refreshed
            if built_from != store:  # (an earlier release's name of this store: this one's from now on)
                con.execute("UPDATE projection_position SET store = ? WHERE projection = ?", [store, NAME])
        else:
            _reset(con, store)
        schema = True
        position, done_before, _ = _position(con)
        if position > last:
            raise AnalyticsError(f"{path} is up to notification {position} but the store ends at {last}: it was "
                                 f"built from another store; run `zx analytics update --rebuild`")
        crash_after = int(os.environ.get(CRASH_ENV, "0") or 0)
        total, events, pages, matches = last - position, 0, 0, 0
        if on_progress is not None and total > 0:  # the work known, before the first page (a bar drawn from here)
            on_progress(0, total)
        left_out: list[tuple[str, str]] = []
        unknown: dict[tuple[str, Any, Any], int] = {}
        used = 0
        if early is not None or _parallel(svc, wanted, forced, last - position, fast_read):
            used = wanted
            started, early = early, None  # _in_workers closes them
            position, events, pages, matches = _in_workers(
                svc, con, wanted, position, last, done_before, page_size, crash_after, stop_after_pages,
                on_progress and (lambda p: on_progress(p - (last - total), total)), started, left_out, catalogs,
                unknown, REBUILD_COMMIT if rebuild else 0)
        if position < last and (stop_after_pages is None or pages < stop_after_pages) or \
                (position >= last and con.execute("SELECT count(*) FROM projection_inflight").fetchall()[0][0]):
            proj = Projection(svc, con, page_size, fast_read, catalogs)
            for oid, state in con.execute("SELECT match_uuid, state FROM projection_inflight").fetchall():
                proj.resume(oid, orjson.loads(state))  # at most one: the match a page boundary cut
            # the next page is read on a thread while this one is projected (SQLite and psycopg release
            # the GIL while they fetch); only a full page can have a next one
            ahead = ThreadPoolExecutor(1, thread_name_prefix="analytics-reader")
            following = ahead.submit(proj.pages, position, last) if position < last else None
            while position < last:
                page = following.result()
                following = None
                if len(page) >= page_size and page[-1][0] < last and \
                        (stop_after_pages is None or pages + 1 < stop_after_pages):
                    following = ahead.submit(proj.pages, page[-1][0], last)
                proj.run(page)
                events += len(page)
                if len(page) < page_size:  # the snapshot's end: nothing more can belong to the open match
                    proj.close()
                    new_position = last
                else:
                    new_position = page[-1][0]
                pages += 1
                proj.commit(new_position, done_before + events, crash=bool(crash_after) and pages > crash_after,
                            final=new_position >= last)
                position = new_position
                if on_progress is not None:
                    on_progress(position - (last - total), total)
                if stop_after_pages is not None and pages >= stop_after_pages or stop is not None and stop.is_set():
                    break
            if position >= last and proj.current is not None:  # resumed at the very end with a match open
                proj.close()
                proj.commit(position, done_before + events, final=True)
            proj.writer.close()
            matches += proj.matches_written
            left_out += proj.left_out
            for key, n in proj.catalogs.unknown.items():
                unknown[key] = unknown.get(key, 0) + n
        unused = [c for c in catalogs if not con.execute("SELECT count(*) FROM matches WHERE game = ? AND "
                                                         "catalog_sha256 = ?", [c.game, c.sha256]).fetchall()[0][0]]
        return UpdateResult(path, events, matches, pages, position, time.perf_counter() - t0, rebuild, used, aside,
                            left_out, unknown, unused)
    except duckdb.Error as e:
        if damaged(e):  # read past what _open read: a block further in
            raise DamagedFile(path, e, rebuilding=rebuild) from None
        if not _cannot_write(e):
            raise
        raise AnalyticsError(f"cannot write the analytics file {path}: {first_line(e)}. Every page committed before "
                             f"stays (zx stats reads them); once the disk has room, `zx analytics update` resumes "
                             f"from the last one") from None
    finally:
        with ExitStack() as cleanup:  # in the reverse order of these lines, each whatever another raises (a
            # Ctrl-C arriving in one): the file closed last, after every thread that writes or reads it
            if made and not schema:  # after the file is closed
                cleanup.callback(_remove_made, path)
            if con is not None:
                cleanup.callback(con.close)
            if proj is not None:
                cleanup.callback(proj.writer.stop)
            if ahead is not None:
                cleanup.callback(ahead.shutdown, wait=True, cancel_futures=True)
            if collecting:
                cleanup.callback(gc.enable)
            if early is not None:  # the file could not be opened or made: the workers' chunks go nowhere
                cleanup.callback(early.pool.close)


update.__doc__ = _update.__doc__  # (help(update), inspect.signature: the arguments _update takes)
update.__wrapped__ = _update  # type: ignore[attr-defined]


update.__doc__ = _update.__doc__  # (help(update) showed nothing, its signature *args, **kwargs)
update.__signature__ = inspect.signature(_update)  # type: ignore[attr-defined]
