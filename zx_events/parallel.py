"""Import on several cores: worker processes check matches, the parent writes them in batches.

Each worker reads pieces of log files (one match each), runs the whole check (schema, rules
engine, digest chain) and encodes the events with the application's own mapper; the parent
receives the encoded events in input order and inserts ``batch`` matches per transaction. The
guarantees are those of ``MatchService.import_logs``: a rejected match never joins a batch, a
duplicate id (in the store, or earlier in the input) is "unchanged" or a conflict, a batch that
loses a race with another importer is written match by match, and a crash loses at most the batch
under way, which a second run imports. Memory stays bounded: a few tasks per worker in flight.
"""

from __future__ import annotations

import gc
import os
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Iterator
from uuid import UUID

from eventsourcing.persistence import IntegrityError, StoredEvent

from zx_events.application import ImportOutcome, MatchService, originator_of
from zx_events.errors import FormatError
from zx_events.ledger import insert_sealed, sealed_entry
from zx_events.logformat.reader import iter_pieces, parse_piece

TASK_MATCHES = 16  # matches per task sent to a worker
IN_FLIGHT = 4  # tasks per worker queued at once

_svc: MatchService | None = None
_catalog: Any = None
_accept = False


def _init(store: str, catalog: str | None, accept: bool) -> None:
    global _svc, _catalog, _accept
    from zx_events.games import load_catalogs

    _svc = MatchService(store)
    _catalog = load_catalogs(catalog) if catalog else None
    _accept = accept
    gc.freeze()  # what the worker holds from here on (modules, the service) is out of the collector's passes


_tasks_done = 0


def _check(pieces: list[tuple[str, int, str, Any]]) -> list[tuple[ImportOutcome, Any, list]]:
    """In a worker: check each match; the encoded events of the ones to store as plain
    ``(originator_id, originator_version, topic, state)`` tuples, the id as the store's insert takes
    it (its hex on SQLite), so the parent hands them to ``executemany`` as they come: a StoredEvent
    (a dataclass) took ten times as long to pickle, and building one per event in the parent cost
    the parent a tenth of the import's CPU."""
    global _tasks_done
    out = []
    direct = _svc.rows_direct
    # the collector runs once a task, after it, instead of every 700 allocations over the events being
    # built (as MatchService.import_logs does once a batch): a task leaves a few cycles, memory stays flat
    gc.disable()
    try:
        _check_pieces(pieces, direct, out)
    finally:
        _tasks_done += 1
        gc.collect(2 if _tasks_done % 16 == 0 else 1)
        gc.enable()
    return out


def _check_pieces(pieces: list[tuple[str, int, str, Any]], direct: bool, out: list) -> None:
    for piece in pieces:
        for log in parse_piece(piece):
            result, stored = _svc._check(log, _catalog, _accept, {})
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
                 accept_violations: bool = False, batch: int = 64,
                 on_bytes: Callable[[int], None] | None = None) -> Iterator[ImportOutcome]:
    """Import every match of ``paths`` into the store of ``svc`` on ``workers`` processes (the workers
    open the same store); outcomes in input order."""
    workers = workers or os.cpu_count() or 1
    if workers <= 1 or svc.store.kind == "memory":  # a memory store lives in this process only
        from zx_events.games import load_catalogs
        from zx_events.logformat.reader import MatchLog, iter_log

        cat = load_catalogs(catalog) if catalog else None

        def logs() -> Iterator[MatchLog]:
            for path in paths:
                try:
                    for log in iter_log(path):
                        if on_bytes is not None:
                            on_bytes(sum(len(x) + 1 for x in log.lines))
                        yield log
                except FormatError as e:
                    yield MatchLog(source=e.source or str(path), header_line=e.line or 0, header=None, error=e)

        yield from svc.import_logs(logs(), catalog=cat, accept_violations=accept_violations, batch=batch)
        return
    writer = _Writer(svc, batch)
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(svc.store.url, catalog, accept_violations)) as pool:
        queue: deque = deque()
        for task in _tasks(paths, on_bytes):
            queue.append(task if isinstance(task, ImportOutcome) else pool.submit(_check, task))
            while len(queue) > workers * IN_FLIGHT:
                yield from writer.take(queue.popleft())
        while queue:
            yield from writer.take(queue.popleft())
    yield from writer.flush()


class _Writer:
    """The parent's side: in-order outcomes, batches of encoded events, one transaction each."""

    def __init__(self, svc: MatchService, batch: int) -> None:
        self.svc = svc
        self.batch = batch
        self.outs: list[ImportOutcome] = []
        self.pending: list[tuple[ImportOutcome, Any, list]] = []
        self.ids: dict[str, tuple[str, str | None]] = {}

    def take(self, item: Any) -> Iterator[ImportOutcome]:
        results = [(item, None, [])] if isinstance(item, ImportOutcome) else item.result()
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
            try:
                insert_sealed(self.svc.recorder, self.svc.mapper, [r for _, _, rows in pending for r in rows],
                              [sealed_entry(out.match_id, key.originator_id, len(rows), out.head)
                               for out, key, rows in pending], insert=self._insert)
            except IntegrityError:  # another importer stored one of these ids meanwhile: match by match
                for out, key, rows in pending:
                    self.svc.write_one(out, key, _stored_events(rows))
            else:
                for out, _, _ in pending:
                    out.status = "imported"
        outs, self.outs, self.pending, self.ids = self.outs, [], [], {}
        yield from outs
