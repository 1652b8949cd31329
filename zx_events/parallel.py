"""Import on several cores: ``workers`` processes check matches, the first of them (this one)
also writes them in batches.

Each worker process reads pieces of log files (one match each), runs the whole check (schema,
rules engine, digest chain) and encodes the events with the application's own mapper; this process
receives the encoded events in input order and inserts ``batch`` matches per transaction. In
between it checks tasks itself: one the workers have no room for (each holds ``IN_FLIGHT``), and
at the end of a run the ones they have not begun (``_Pool.wait_for``), so no core waits while
there is work. With a worker process for every core, as before, the parent's inserts (a quarter of
the work, bench/bench_import.py) took their time from the workers, and the extra process cost
pickling, page faults and context switches: on the 2-core machine one worker and the parent use
less CPU for the same import than two workers and the parent (bench/README.md, fifth round).

The guarantees are those of ``MatchService.import_logs``: a rejected match never joins a batch, a
duplicate id (in the store, or earlier in the input) is "unchanged" or a conflict, a batch that
loses a race with another importer is written match by match, and a crash loses at most the batch
under way, which a second run imports. Memory stays bounded: a few tasks per worker in flight.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections import deque
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Iterator
from uuid import UUID

from eventsourcing.persistence import IntegrityError, StoredEvent

from zx_events.application import ImportOutcome, MatchService, collect_after, originator_of
from zx_events.errors import FormatError
from zx_events.forked import WorkerDied, become_worker, ctrl_c_held, fork_is_safe
from zx_events.ledger import insert_sealed, sealed_entry
from zx_events.logformat.reader import iter_pieces, parse_piece

TASK_MATCHES = 16  # matches per task sent to a worker
IN_FLIGHT = 6  # tasks per worker queued at once (see _Pool.give)
PIPE_SIZE = 1 << 20  # bytes a worker's pipes hold (fs.pipe-max-size: 1 MiB by default)
SWITCH_INTERVAL = 0.0005  # seconds: a worker's thread switch interval (its threads hand tasks and results on)

_svc: MatchService | None = None
_catalog: Any = None
_accept = False


def _init(store: str, catalog: str | None, board: str | None, accept: bool) -> None:
    global _svc, _catalog, _accept
    from zx_events.games import load_references

    _svc = MatchService(store, hold=False)  # (the importer holds the store open: application.hold_in_use)
    _catalog = load_references(catalog, board=board)
    _accept = accept
    gc.freeze()  # what the worker holds from here on (modules, the service) is out of the collector's passes
    gc.enable()  # check_task collects once a task (whatever the forking process had set)


_tasks_done = 0


def _check(pieces: list[tuple[str, int, str, Any]]) -> list[tuple[ImportOutcome, Any, list]]:
    """In a worker: check each match; the encoded events of the ones to store as plain
    ``(originator_id, originator_version, topic, state)`` tuples, the id as the store's insert takes
    it (its hex on SQLite), so the parent hands them to ``executemany`` as they come: a StoredEvent
    (a dataclass) took ten times as long to pickle, and building one per event in the parent cost
    the parent a tenth of the import's CPU."""
    assert _svc is not None
    return check_task(_svc, _catalog, _accept, pieces)


def check_task(svc: MatchService, catalog: Any, accept: bool,
               pieces: list[tuple[str, int, str, Any]]) -> list[tuple[ImportOutcome, Any, list]]:
    """The check of one task, in a worker (``_check``) or in the parent (a task it takes itself,
    with the collector off: ``import_files`` runs it once a batch)."""
    global _tasks_done
    out: list = []
    if not gc.isenabled():
        _check_pieces(svc, catalog, accept, pieces, out)
        return out
    # the collector runs once a task, after it, instead of every 700 allocations over the events being
    # built (as MatchService.import_logs does once a batch): a task leaves a few cycles, memory stays flat
    gc.disable()
    try:
        _check_pieces(svc, catalog, accept, pieces, out)
    finally:
        _tasks_done += 1
        collect_after(_tasks_done)
        gc.enable()
    return out


def _check_pieces(svc: MatchService, catalog: Any, accept: bool, pieces: list[tuple[str, int, str, Any]],
                  out: list) -> None:
    direct = svc.rows_direct
    for piece in pieces:
        for log in parse_piece(piece):
            result, stored = svc._check(log, catalog, accept, {})
            key = SimpleNamespace(match_id=log.match_id, content_sha256=log.content_sha256, source=log.source,
                                  header_line=log.header_line,
                                  originator_id=str(originator_of(stored[0])) if stored else None)
            rows: list = []
            if stored:
                if direct:  # _check made the plain rows themselves (MatchService.rows_direct)
                    rows = stored
                else:
                    oid = stored[0].originator_id
                    rows = [(oid, s.originator_version, s.topic, s.state) for s in stored]
            out.append((result, key, rows))


def _stored_events(rows: list[tuple[Any, int, str, bytes]]) -> list[StoredEvent]:
    """The StoredEvents of a worker's tuples (their fields set at once, as the mapper does)."""
    new, set_ = object.__new__, object.__setattr__
    out = []
    for oid, version, topic, state in rows:
        s = new(StoredEvent)
        set_(s, "__dict__", {"originator_id": oid if isinstance(oid, UUID) else UUID(hex=oid),
                             "originator_version": version, "topic": topic, "state": state})
        out.append(s)
    return out


def _tasks(paths: Iterable[str], on_bytes: Callable[[int], None] | None) -> Iterator[Any]:
    """Tasks of up to TASK_MATCHES pieces; an unreadable file becomes a rejected outcome."""
    task: list[tuple[str, int, str, Any]] = []
    for path in paths:
        try:
            for piece in iter_pieces(path):
                if on_bytes is not None:
                    on_bytes(len(piece[2]))
                task.append(piece)
                if len(task) >= TASK_MATCHES:
                    yield task
                    task = []
        except FormatError as e:
            if task:
                yield task
                task = []
            yield ImportOutcome(e.source or str(path), e.line or 0, None, "rejected", error=e)
    if task:
        yield task


def import_files(svc: MatchService, paths: Iterable[str], *, workers: int | None = None, catalog: str | None = None,
                 board: str | None = None, accept_violations: bool = False, batch: int = 64,
                 on_bytes: Callable[[int], None] | None = None) -> Iterator[ImportOutcome]:
    """Import every match of ``paths`` into the store of ``svc`` on ``workers`` processes (the workers
    open the same store); outcomes in input order. ``catalog``, ``board``: ``--catalog``, ``--board``
    (``games.load_references``)."""
    from zx_events.games import load_references

    workers = workers or os.cpu_count() or 1
    references = load_references(catalog, board=board)  # this process's (the workers load their own)
    # a memory store lives in this process only; the workers are forked (where a system cannot fork, or
    # this process serves: threads of it may be inside SQLite, forked.fork_is_safe, the import runs in this
    # process)
    if workers <= 1 or svc.store.kind == "memory" or not _can_fork() or not fork_is_safe():
        from zx_events.logformat.reader import MatchLog, iter_log

        def logs() -> Iterator[MatchLog]:
            for path in paths:
                try:
                    for log in iter_log(path):
                        if on_bytes is not None:
                            on_bytes(sum(len(x) + 1 for x in log.lines))
                        yield log
                except FormatError as e:
                    yield MatchLog(source=e.source or str(path), header_line=e.line or 0, header=None, error=e)

        yield from svc.import_logs(logs(), catalog=references, accept_violations=accept_violations, batch=batch)
        return
    costs = _Costs()
    writer = _Writer(svc, batch, costs)

    def check(task: list) -> list:
        start = time.perf_counter()
        out = check_task(svc, references, accept_violations, task)
        costs.checked(len(task), time.perf_counter() - start)
        return out

    def worth_taking(held: list[_Slot]) -> bool:  # at the end of the input (_take_back_pays)
        unwritten = len(writer.pending) + sum(
            len(x.results) if x.results is not None else len(x.task) for x in queue if isinstance(x, _Slot))
        return _take_back_pays([len(slot.task) for slot in held], unwritten, costs.check, costs.write)

    pool = _Pool(workers - 1, (svc.store.url, catalog, board, accept_violations))
    # this process's collector: as in MatchService.import_logs, what is alive before is frozen out of its
    # passes and it runs once a batch (_Writer.flush), not every 700 allocations of the tasks it checks
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    was_on = gc.isenabled()
    gc.disable()
    try:
        queue: deque = deque()  # outcomes and tasks (_Slot), in input order
        for task in _tasks(paths, on_bytes):
            pool.collect()
            while queue and _ready(queue[0]):  # what is done at the head is written first
                yield from writer.take(queue.popleft())
            if isinstance(task, ImportOutcome):
                queue.append(task)
            elif not pool.give(task, queue):  # every worker has IN_FLIGHT tasks: this process checks it
                queue.append(_Slot(check(task)))
            while len(queue) > 2 * IN_FLIGHT * pool.size:  # memory stays bounded: wait for the head
                pool.wait_for(queue[0], check)
                yield from writer.take(queue.popleft())
        while queue:
            pool.collect()
            if writer.pending and not _ready(queue[0]):
                # the input is read: the matches checked so far are written while the workers check
                # their last tasks (before this process takes any back), not after them
                yield from writer.flush()
            pool.wait_for(queue[0], check, worth_taking)
            yield from writer.take(queue.popleft())
        yield from writer.flush()
    finally:
        pool.close()
        if was_on:
            gc.enable()
        if frozen:
            gc.unfreeze()


def _can_fork() -> bool:
    """Whether this system can fork worker processes (multiprocessing, ~9 ms to import, only asked
    for an import that would use them)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _take_back_pays(sizes: list[int], unwritten: int, check: float | None, write: float | None) -> bool:
    """Whether this process should take back the newest of a worker's tasks (``sizes``: their matches,
    oldest first, that one under way) rather than wait for its results, once the input is read: only
    while the worker's other tasks would keep it busy longer than this process takes to check that
    one and write the ``unwritten`` matches (all of them its own to write, the worker's too), at
    ``check`` and ``write`` seconds a match as measured so far (None: nothing measured yet, so take it
    back). Taking back every task but the one under way left this process checking and writing
    alone after the worker's last task."""
    if check is None or write is None:
        return True
    worker = (sum(sizes[:-1]) - sizes[0] / 2) * check  # the one under way: half done, on average
    return worker > sizes[-1] * check + unwritten * write


def _average(mean: float | None, value: float, weight: float = 0.3) -> float:
    """A running average that follows the machine's load: ``weight`` for the newest value."""
    return value if mean is None else mean + weight * (value - mean)


class _Costs:
    """What a match takes this process to check (its own tasks) and to write (its batches): running
    averages in seconds, None until measured."""

    __slots__ = ("check", "write", "tasks")

    def __init__(self) -> None:
        self.check: float | None = None
        self.write: float | None = None
        self.tasks = 0

    def checked(self, matches: int, seconds: float) -> None:
        self.tasks += 1
        if matches and self.tasks > 1:  # the first pays for loading the game's modules and catalogs
            self.check = _average(self.check, seconds / matches)

    def wrote(self, matches: int, seconds: float) -> None:
        if matches:
            self.write = _average(self.write, seconds / matches)


class _Slot:
    """A task's place in the outcome order: its results once checked (until then, its task)."""

    __slots__ = ("results", "task")

    def __init__(self, results: list | None = None, task: list | None = None) -> None:
        self.results, self.task = results, task


def _ready(item: Any) -> bool:
    return isinstance(item, ImportOutcome) or item.results is not None


class _Pool:
    """Forked worker processes that check tasks (``_serve``), each with a pipe for its tasks and one
    for its results. No thread in the parent: it sends tasks and reads results itself between its
    own work (``collect``), so a worker's next task or finished results never wait for a thread of
    the parent to get the GIL (``ProcessPoolExecutor``'s threads did while the parent checked or
    wrote: each task's hand-over took ~7 ms, and its worker sat idle a fifth of the time)."""

    def __init__(self, size: int, initargs: tuple) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")  # the children inherit the modules: no start-up imports
        self.size = size
        self.procs: list[Any] = []
        self.tasks: list[Any] = []  # the parent's end of each worker's task pipe
        self.results: list[Any] = []  # ... and of its results pipe
        self.held: list[dict[int, _Slot]] = []  # each worker's tasks not yet back, by number
        self.sent = 0
        self.taken_back = 0  # tasks this process took back from a worker and checked itself
        parent = os.getpid()
        try:
            for _ in range(size):
                task_in, task_out = ctx.Pipe(duplex=False)
                result_in, result_out = ctx.Pipe(duplex=False)
                _widen(task_out)
                _widen(result_out)
                theirs = [*self.tasks, *self.results, task_out, result_in]  # the parent's ends, closed in the child
                proc = ctx.Process(target=_serve, args=(task_in, result_out, theirs, parent, initargs), daemon=True,
                                   name="import-worker")
                with ctrl_c_held():
                    proc.start()
                task_in.close()
                result_out.close()
                self.procs.append(proc)
                self.tasks.append(task_out)
                self.results.append(result_in)
                self.held.append({})
        except BaseException:
            self.close()
            raise

    def give(self, task: list, queue: deque) -> bool:
        """Send ``task`` to the worker holding fewest, its slot appended to ``queue``; False when
        each holds IN_FLIGHT already.

        A task counts as held until this process reads its results, and it reads them only between
        its own work (a task it checks, a batch it writes: 50-110 ms each), so a worker holds fewer
        tasks still to do than it seems to. With 4 a worker, one ran out of tasks for 0.3-0.4 s of a
        3.3 s X610Z import (its tasks ~60 ms each); with 6 for 0.04 s, and the import took 3.07 s
        against 3.33 s (medians of 8 runs alternating; Z/X 1.82 s against 2.05 s). 8 left a longer
        queue of results for this process to write alone after the worker's last task."""
        i = min(range(self.size), key=lambda k: len(self.held[k]))
        if len(self.held[i]) >= IN_FLIGHT:
            return False
        slot = _Slot(task=task)
        self.sent += 1
        try:
            self.tasks[i].send((self.sent, task))
        except OSError:
            raise self._died(i) from None
        self.held[i][self.sent] = slot
        queue.append(slot)
        return True

    def collect(self, timeout: float = 0) -> None:
        """Read every result already sent (waiting up to ``timeout`` seconds for one)."""
        from multiprocessing.connection import wait

        busy = [self.results[i] for i in range(self.size) if self.held[i]]
        if not busy:
            return
        for conn in wait(busy, timeout):
            i = self.results.index(conn)
            try:
                number, ok, value = conn.recv()
            except (EOFError, OSError):
                raise self._died(i) from None
            slot = self.held[i].pop(number, None)
            if slot is None:  # a task taken back (``wait_for``) the worker had begun: checked here already
                continue
            if not ok:
                raise value
            slot.results, slot.task = value, None

    def wait_for(self, item: Any, check: Callable[[list], list],
                 worth: Callable[[list[_Slot]], bool] | None = None) -> None:
        """Until ``item`` is checked: rather than wait for a worker, this process takes back the task
        sent last to the worker holding most (the one least likely begun: the worker skips it) and
        checks it with ``check``; so the run does not end with this process idle while a worker
        works through its queue. ``worth(tasks)``, given: whether taking back the last of a worker's
        ``tasks`` is worth it (else this process waits for a result)."""
        while not _ready(item):
            self.collect()
            if _ready(item):
                return
            i = max(range(self.size), key=lambda k: len(self.held[k]))
            if len(self.held[i]) < 2 or worth is not None and not worth(list(self.held[i].values())):
                self.collect(timeout=None)  # its only task is under way, or it will end first: wait
                continue
            number = next(reversed(self.held[i]))
            slot = self.held[i].pop(number)
            try:
                self.tasks[i].send((number, None))  # skip it
            except OSError:
                raise self._died(i) from None
            self.taken_back += 1
            slot.results, slot.task = check(slot.task), None

    def _died(self, i: int) -> WorkerDied:
        self.procs[i].join(timeout=1)
        return WorkerDied(f"an import worker process ended unexpectedly (exit code {self.procs[i].exitcode}: "
                          f"killed, or out of memory); the batch under way was not saved: run the import again "
                          f"(or with --workers 1)")

    def close(self) -> None:
        for conn in self.tasks:  # a worker ends at None (the pipe's end: every worker holds the others')
            try:
                conn.send(None)
            except OSError:
                pass
            conn.close()
        for conn in self.results:  # a result still being sent (a task taken back) fails: its worker ends
            conn.close()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join()


def _widen(conn: Any) -> None:
    """A pipe that holds a task's results whole (Linux: 64 KiB by default, up to 1 MiB unprivileged), so
    they are written in one go and read without waiting; elsewhere, or refused, it stays as it is."""
    try:
        import fcntl

        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except (ImportError, AttributeError, OSError):
        pass


def _serve(tasks: Any, results: Any, theirs: list, parent: int, initargs: tuple) -> None:
    """A worker: one thread receives tasks, this one checks them, one sends the results, so the
    worker neither waits for the parent to read its last results nor makes the parent wait to
    hand it the next task; other threads get this one's GIL within ``SWITCH_INTERVAL``."""
    import pickle
    import queue
    import threading

    become_worker(parent)
    for conn in theirs:  # so a pipe ends when the parent closes its end (not held open by a worker)
        conn.close()
    sys.setswitchinterval(SWITCH_INTERVAL)
    _init(*initargs)
    inbox: queue.SimpleQueue = queue.SimpleQueue()
    outbox: queue.SimpleQueue = queue.SimpleQueue()

    skipped: set[int] = set()  # tasks the parent took back
    stopping = threading.Event()

    def receive() -> None:
        while True:
            try:
                item = tasks.recv()
            except (EOFError, OSError):
                item = None
            if item is not None and item[1] is None:
                skipped.add(item[0])
                continue
            if item is None:  # the end: the tasks still queued are dropped, the one under way finishes
                stopping.set()
            inbox.put(item)
            if item is None:
                return

    def send() -> None:
        while (out := outbox.get()) is not None:
            try:
                results.send(out)
            except OSError:  # the parent is gone
                return

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    threading.Thread(target=receive, daemon=True).start()
    while (item := inbox.get()) is not None and not stopping.is_set():
        number, pieces = item
        if number in skipped:
            skipped.discard(number)
            continue
        try:
            out: tuple = (number, True, _check(pieces))
        except Exception as e:  # raised again in the parent; one that cannot be pickled as its text
            try:
                pickle.dumps(e)
            except Exception:
                e = RuntimeError(f"{type(e).__name__}: {e}")
            out = (number, False, e)
        outbox.put(out)
    outbox.put(None)
    sender.join()


class _Writer:
    """The parent's side: in-order outcomes, batches of encoded events, one transaction each."""

    def __init__(self, svc: MatchService, batch: int, costs: _Costs) -> None:
        self.svc = svc
        self.batch = batch
        self.outs: list[ImportOutcome] = []
        self.pending: list[tuple[ImportOutcome, Any, list]] = []
        self.ids: dict[str, tuple[str, str | None]] = {}
        self.batches = 0
        self.costs = costs  # what its batches took goes there (_take_back_pays)

    def take(self, item: Any) -> Iterator[ImportOutcome]:
        results = [(item, None, [])] if isinstance(item, ImportOutcome) else item.results
        for out, key, rows in results:
            self.outs.append(out)
            if not rows:
                continue
            if self.svc.seen_in_batch(out, key, self.ids):
                continue
            self.ids[key.match_id] = (key.content_sha256, out.head)
            self.pending.append((out, key, rows))
        if len(self.pending) >= self.batch:
            yield from self.flush()

    def _insert(self, items: list) -> None:
        """Insert the workers' row tuples and the ledger's StoredEvent in one transaction
        (``MatchService.insert`` takes the rows as they are where the store takes rows directly)."""
        if not self.svc.rows_direct:
            items = [i if isinstance(i, StoredEvent) else _stored_events([i])[0] for i in items]
        self.svc.insert(items)

    def flush(self) -> Iterator[ImportOutcome]:
        pending = self.pending
        if pending:
            start = time.perf_counter()
            try:
                insert_sealed(self.svc.recorder, self.svc.mapper, [r for _, _, rows in pending for r in rows],
                              [sealed_entry(out.match_id, key.originator_id, len(rows), out.head)
                               for out, key, rows in pending], insert=self._insert)
            except IntegrityError:  # another importer stored one of these ids meanwhile: match by match
                for out, key, rows in pending:
                    self.svc.write_one(out, key, _stored_events(rows))
            except KeyboardInterrupt:
                self.svc.count_if_saved(pending[0][0].match_id, len(pending))
                raise
            else:
                self.svc.matches_written += len(pending)
                for out, _, _ in pending:
                    out.status = "imported"
            self.costs.wrote(len(pending), time.perf_counter() - start)
        outs, self.outs, self.pending, self.ids = self.outs, [], [], {}
        self.batches += 1
        if not gc.isenabled():  # the parent's collector is off while it imports: it runs once a batch
            collect_after(self.batches)
        yield from outs
