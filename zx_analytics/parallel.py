"""The projection of a SQLite store in worker processes: each projects whole matches of a range of
the notification log, reading it from the store file itself, and hands back Arrow tables.

The serial projection (``zx_analytics.projection``) spends about three quarters of its time in
Python (decoding, the games' row handlers, turning rows into Arrow), all under one GIL, against a
floor that only reads and decodes. Here the log after the tracking position is cut into chunks of
``span`` notification ids; forked workers project the chunks at once (each reads, decodes and
builds the rows of its chunk), and the parent commits their tables in log order, whole chunks of
about a page of events in one DuckDB transaction with the position, as it does for a page (a
rebuild: pages together, ``projection.REBUILD_COMMIT``).

A chunk is whole matches: a match's events are contiguous in the log (the application saves a
match in one transaction), so a worker skips the leading events of the match that runs into its
range from the one before (that worker reads on past its range's end to the end of its last match)
and closes its last match when the next one begins or the log ends, exactly where the serial
projection closes it. So nothing is in flight at a chunk's commit; a run that starts with a match
in flight (a serial run cut by a kill) hands its state to the first chunk.

What the workers cannot do falls back to the serial projection from the last committed chunk: an
event for a match closed earlier (re-projecting it needs the analytics file). Only stores read with
the direct SQLite query, with plain JSON payloads, take this path (``eligible``); PostgreSQL and
memory stores, and ciphered, compressed or upcast events, are projected serially.

The workers get what every chunk shares (``Run``) when they are forked, and hand their tables back
as Arrow IPC streams; while they work DuckDB writes with one thread (the cores are theirs).

Measured on the 2-core machine shared with other jobs (bench/README.md, "Projection, round 3"):
two workers take about 1.1-1.3x the CPU of the serial projection (forked processes fault their
memory in afresh, results cross a pipe) and gain wall time only on cores left idle. A worker's
instructions (cachegrind, Z/X corpus): reading the rows from SQLite ~29%, orjson ~22% (the floor's
own work), the loop and the games' row handlers ~37%, rows to Arrow ~11%. A rebuild forks them
first, so the ~0.06-0.08 s the parent spends opening the DuckDB file and making its schema (DuckDB's
first connection in a process is the dearest) run beside them, where an update had to read the
file's position first; after the last chunk arrives the parent still runs ~0.1-0.2 s alone (its
page, and the checkpoint that compresses the whole file into place).
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson
import pyarrow as pa

from zx_events.forked import WorkerDied, become_worker, ctrl_c_held
from zx_events.ids import filed_under
from zx_events.store import ReadConnections, connect_read

from .tables import HANDLERS, NO_PAYLOAD, STARTED, Catalogs, new_buffers, rows_of
from .writer import arrow_table

WORKERS_ENV = "ZX_ANALYTICS_WORKERS"  # worker processes (0 or 1: the serial projection); set: also small runs
MAX_WORKERS = 256  # at most (as zx analytics update --workers)
PARALLEL_MIN = 20_000  # notification ids left: fewer are projected serially (forking costs more than it saves)
CHUNKS_PER_WORKER = 4  # a run is cut in about this many chunks a worker (the last ones finish together)

_connections: dict[str, sqlite3.Connection] = {}  # a worker's connection to the store, by file


@dataclass
class Run:
    """What every chunk of a run shares: handed to the workers once, when they are forked, not
    pickled with every task."""
    db: str  # the store file's read-only URI (zx_events.store.ReadConnections.uri_of)
    table: str  # its events table
    topics: tuple[str, ...]
    schemas: dict[str, pa.Schema]
    known: frozenset[tuple[str, str]]  # catalogs already in card_catalog: (name, SHA-256)
    last: int  # the end of the log the run reads up to
    page_size: int
    catalogs: tuple[Any, ...] = ()  # catalogs given as files (projection.update's ``catalogs``)


@dataclass
class Task:
    after: int  # the chunk: notification ids after this ...
    stop: int  # ... up to this (and on to the end of the last match begun)
    first: bool  # the run's first chunk: nothing to skip, the in-flight match (if any) continues
    inflight: tuple[str, dict] | None
    run: Run | None = None  # set in the worker: the Run it was forked with


@dataclass
class Chunk:
    tables: dict[str, pa.Table] = field(default_factory=dict)
    catalog_rows: list[tuple] = field(default_factory=list)
    position: int | None = None  # the last notification id projected (None: nothing of its own)
    events: int = 0
    matches: int = 0
    reopen: bool = False  # an event for a match closed earlier: project from ``after`` serially
    left_out: list[tuple[str, str]] = field(default_factory=list)  # as the serial projection's (Projection.run)
    unknown: dict[tuple[str, Any, Any], int] = field(default_factory=dict)  # zx_analytics.tables.Catalogs.unknown

    # through the pipe its tables go as Arrow IPC streams: pickle's own reduction of a table, array by
    # array, cost twice as much to write and three times as much to read (Z/X corpus: 30 and 14 ms
    # against 16 and 4 ms)
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["tables"] = {name: _ipc_stream(table) for name, table in self.tables.items()}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["tables"] = {name: pa.ipc.open_stream(data).read_all() for name, data in state["tables"].items()}
        self.__dict__.update(state)


def _ipc_stream(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as out:
        out.write_table(table)
    return sink.getvalue().to_pybytes()


def workers_wanted() -> tuple[int, bool]:
    """(worker processes, whether asked for explicitly by ``ZX_ANALYTICS_WORKERS``): by default one
    a core, up to 4."""
    text = os.environ.get(WORKERS_ENV, "").strip()
    if text:
        if not text.isdigit() or int(text) > MAX_WORKERS:
            from .db import AnalyticsError

            raise AnalyticsError(f"{WORKERS_ENV} must be a whole number from 0 to {MAX_WORKERS}, got {text!r}")
        return int(text), True
    return min(os.cpu_count() or 1, 4), False


def eligible(svc: Any, fast_read: bool, decode: Any) -> bool:
    """Whether the store can be projected by workers: a SQLite file read by the direct query, with
    plain JSON payloads, and a process that can fork: called on its main thread, every other thread a
    daemon (the CLI's progress bar). A process that runs other work on threads (``zx serve``) projects
    serially: a forked child could inherit a lock one of them holds."""
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    recorder = svc.recorder
    me = threading.current_thread()
    return (fast_read and decode is None and svc.store.kind == "sqlite"
            and ReadConnections.uri_of(svc.store) is not None
            and isinstance(recorder, SQLiteApplicationRecorder) and recorder.datastore.originator_id_type == "uuid"
            and "fork" in multiprocessing.get_all_start_methods() and me is threading.main_thread()
            and all(t.daemon for t in threading.enumerate() if t is not me))


class Workers:
    """Forked worker processes, each on a pipe, that project chunks in any order and hand them back
    in the order given (``results``). Forked: they inherit the imported modules (no start-up
    imports) and never touch the parent's connections (they end with ``os._exit``). No threads, so a
    worker that dies is seen at once (its pipe ends), not waited for (``multiprocessing.Pool``
    would start another and wait for the lost result for ever)."""

    def __init__(self, count: int, run: Run, tasks: Any) -> None:
        ctx = multiprocessing.get_context("fork")
        self.procs: list[Any] = []
        self.pipes: list[Any] = []
        self.tasks = iter(tasks)
        self.busy: dict[Any, deque[int]] = {}  # the tasks each worker has
        self.sent = 0
        self.exhausted = False
        parent = os.getpid()
        try:
            for _ in range(count):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(theirs, parent, run), daemon=True, name="analytics-worker")
                with ctrl_c_held():
                    proc.start()
                theirs.close()
                self.procs.append(proc)
                self.pipes.append(mine)
                self.busy[mine] = deque()
            self._feed()  # they begin at once, while this process goes on (opening the analytics file)
        except BaseException:
            self.close()
            raise

    def _feed(self) -> None:
        """Every worker holds two tasks: the next waits in its pipe while the parent is busy."""
        for pipe in self.pipes:
            while len(self.busy[pipe]) < 2 and not self.exhausted:
                task = next(self.tasks, None)
                if task is None:
                    self.exhausted = True
                    break
                try:
                    pipe.send(task)
                except OSError:
                    raise WorkerDied() from None
                self.busy[pipe].append(self.sent)
                self.sent += 1

    def results(self) -> Any:
        """Each task's Chunk, in the order of the tasks (read lazily: a worker a task at a time)."""
        from multiprocessing.connection import wait

        done: dict[int, Chunk] = {}
        following = 0
        while True:
            self._feed()
            while following in done:
                yield done.pop(following)
                following += 1
            waiting = [pipe for pipe, held in self.busy.items() if held]
            if not waiting:
                return
            for pipe in wait(waiting):
                try:
                    ok, value = pipe.recv()
                except (EOFError, OSError):
                    raise WorkerDied() from None
                if not ok:
                    raise value
                done[self.busy[pipe].popleft()] = value

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.close()
        for proc in self.procs:
            if proc.is_alive():
                proc.kill()
            proc.join()


def _serve(pipe: Any, parent: int, run: Run) -> None:
    """A worker's loop: a task in, its chunk (or the exception it raised) out, until the pipe ends."""
    become_worker(parent)
    while True:
        try:
            task = pipe.recv()
        except (EOFError, OSError):
            return
        task.run = run
        try:
            out: tuple[bool, Any] = (True, project(task))
        except Exception as e:  # raised again in the parent; one that cannot be pickled as its text
            try:
                import pickle

                pickle.dumps(e)
                out = (False, e)
            except Exception:
                out = (False, RuntimeError(f"{type(e).__name__}: {e}"))
        pipe.send(out)


def _connection(db: str) -> sqlite3.Connection:
    con = _connections.get(db)
    if con is None:
        con = _connections[db] = connect_read(db, check_same_thread=False)  # reads only
    return con


def project(task: Task) -> Chunk:
    """One chunk, in a worker: the same loop as ``Projection.run`` over whole matches."""
    run = task.run
    assert run is not None
    con = _connection(run.db)
    topics = run.topics
    marks = ",".join("?" * len(topics))
    statement = (f"SELECT rowid, originator_id, originator_version, topic, state FROM {run.table} "
                 f"WHERE rowid > ? AND rowid <= ? AND topic IN ({marks}) ORDER BY rowid LIMIT ?")
    buf = new_buffers()
    catalogs = Catalogs(set(run.known), run.catalogs)
    out = Chunk()
    cur: Any = None
    key: Any = None
    skip: Any = None
    if task.inflight is not None:
        oid, state = task.inflight
        cur = rows_of(state.get("game")).MatchRows.from_json(oid, state, buf)
        key = UUID(oid).hex
    elif not task.first:  # the match that runs into this chunk belongs to the one before
        row = con.execute(f"SELECT originator_id FROM {run.table} WHERE rowid <= ? AND topic IN ({marks}) "
                          f"ORDER BY rowid DESC LIMIT 1", [task.after, *topics]).fetchone()
        skip = row[0] if row is not None else None
    loads, started, stop = orjson.loads, STARTED, task.stop
    decoded = {t: h for t, h in HANDLERS.items() if t not in NO_PAYLOAD}  # the handlers by what they are given
    blind = {t: h for t, h in HANDLERS.items() if t in NO_PAYLOAD}
    # rows a query: a fresh process pays a page fault for every page of memory it touches the first
    # time; small reads reuse theirs (pages of 50,000 rows: 49k faults and 0.21 s of system time a run
    # for the two workers, against 17k and 0.1 s)
    fetch = min(run.page_size, 4096)
    read_from, events, position, matches, done = task.after, 0, None, 0, False
    while not done:
        rows = con.execute(statement, [read_from, run.last, *topics, fetch]).fetchall()
        for nid, oid, seq, topic, state in rows:
            if oid != key:
                if skip is not None:  # the leading events of a match the chunk before projects
                    if oid == skip:
                        continue
                    skip = None
                if nid > stop:  # the next match begins past this chunk: the next chunk's
                    done = True
                    break
                if cur is not None:
                    cur.close()
                    matches += 1
                first = started.get(topic)
                if first is None:  # an event for a match closed earlier: the serial projection's
                    return Chunk(reopen=True)
                key = oid
                try:
                    match_key = str(UUID(oid))
                except ValueError:  # an id zx never writes (a row's edited in the store): left out, as an aggregate
                    cur = None  # zx import did not write (zx verify names it: forged)
                else:
                    cur = first[1].MatchRows(match_key, nid, buf)
            if cur is None:  # an aggregate zx import did not write: left out, its events counted as read
                events += 1
                position = nid
                continue
            h = decoded.get(topic)  # most events: one look-up
            if h is not None:
                h(cur, seq, loads(state))
            elif topic in blind:  # a payload its handler does not read is not decoded (NO_PAYLOAD)
                blind[topic](cur, seq, None)
            else:
                first = started.get(topic)
                if first is not None:
                    d = loads(state)
                    if not filed_under(d.get("match_id"), cur.oid):
                        out.left_out.append((cur.oid, d["match_id"]))
                        cur = None
                        events += 1
                        position = nid
                        continue
                    cur.started(d, *catalogs.of(first[0], d, buf))
            events += 1
            position = nid
        if not done and len(rows) < fetch:  # the end of the log
            done = True
            if cur is not None or events:
                position = run.last
        elif rows and not done:
            read_from = rows[-1][0]
    if cur is not None:
        cur.close()
        matches += 1
        if position is None:  # only the in-flight match, closed: no event of its own
            position = task.after
    out.position, out.events, out.matches = position, events, matches
    out.unknown = catalogs.unknown
    out.catalog_rows = buf.pop("card_catalog")
    for table, rows in buf.items():
        if rows:
            out.tables[table] = arrow_table(rows, run.schemas[table])
    return out
