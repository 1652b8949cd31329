"""Writing pages into the analytics file: each page's rows, the in-flight state and the tracking
position in ONE DuckDB transaction (a rebuild by worker processes: several pages, ``Page.held``), on a
writer thread (DuckDB releases the GIL while it inserts and commits, so page N is written while page
N+1 is read and decoded).

A page goes to DuckDB's write-ahead log at its commit and into the file at the checkpoint when the
connection closes; the last page of a run (``Page.final``) is committed by that checkpoint itself,
the WAL skipped, so its rows are written once (the tail of a Z/X rebuild after its last rows:
0.159 -> 0.140 s)."""

from __future__ import annotations

import os
import queue
import re
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache

import duckdb
import pyarrow as pa

from .db import sql
from .tables import COLUMNS, PROJECTED

NAME = "matches"  # the projection's row in projection_position
_ARROW = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BIGINT": pa.int64(), "BOOLEAN": pa.bool_(),
          "DATE": pa.date32(), "TIMESTAMPTZ": pa.timestamp("us", tz="UTC"), "VARCHAR[]": pa.list_(pa.string())}
_CREATE = re.compile(r"\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s*\((.*)\)\s*;?\s*$", re.S | re.I)
_CONSTRAINTS = {"PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "CONSTRAINT"}  # a table's constraint, not a column


@cache
def declared_types() -> dict[str, pa.Schema]:
    """The Arrow schema of each table, in the column order of ``rows.COLUMNS``, from the types its
    CREATE statement declares (zx_analytics/sql/create_*.sql and the games' ``SQL``), read without a
    database: a rebuild's worker processes start before the analytics file is opened, and DuckDB's
    first connection in a process costs ~100 ms. tests/test_analytics_projection.py checks them
    against the types DuckDB gives the tables it creates from the same statements."""
    from .db import SCHEMA
    from .tables import GAME_SQL

    declared: dict[str, dict[str, pa.DataType]] = {}
    for text in (*(sql(name) for name in SCHEMA), *GAME_SQL):
        m = _CREATE.match(text)
        if m is None:  # a macro, a view
            continue
        columns = declared[m.group(1)] = {}
        for part in re.split(r",(?![^()]*\))", m.group(2)):  # at the commas outside parentheses
            words = part.split()
            if not words or words[0].upper() in _CONSTRAINTS:
                continue
            kind = words[1].upper()
            if kind == "TIMESTAMP" and [w.upper() for w in words[2:5]] == ["WITH", "TIME", "ZONE"]:
                kind = "TIMESTAMPTZ"
            if kind not in _ARROW:
                raise TypeError(f"zx_analytics.writer: no Arrow type for {kind} ({m.group(1)}.{words[0]})")
            columns[words[0]] = _ARROW[kind]
    return {table: pa.schema([(c, declared[table][c]) for c in cols]) for table, cols in COLUMNS.items()}


def arrow_table(rows: list[tuple], schema: pa.Schema) -> pa.Table:
    """A table's rows (tuples in ``schema``'s column order) as an Arrow table of that schema: Arrow
    converts the tuples as one struct array, where turning the rows into columns in Python first cost
    a quarter more (0.108 against 0.078 s for the Z/X corpus' 110k rows).

    A whole number past its column's type (a log may hold up to 2**64 - 1, and a Power is a sum of
    them) is stored as the type's bound (``saturated``): it stopped every update of the store for good
    ("internal error: OverflowError"), a match's events being never rewritten. The events keep it exact."""
    try:
        return pa.Table.from_batches([pa.RecordBatch.from_struct_array(pa.array(rows, type=pa.struct(schema)))])
    except OverflowError:
        return arrow_table(saturated(rows, schema), schema)


def saturated(rows: list[tuple], schema: pa.Schema) -> list[tuple]:
    """``rows`` with each whole number outside its integer column's range replaced by the nearest bound."""
    bounds = {i: (-(1 << (t.bit_width - 1)), (1 << (t.bit_width - 1)) - 1) for i, t in enumerate(schema.types)
              if pa.types.is_signed_integer(t)}

    def fit(row: tuple) -> tuple:
        if all(not isinstance(row[i], int) or lo <= row[i] <= hi for i, (lo, hi) in bounds.items()):
            return row
        out = list(row)
        for i, (lo, hi) in bounds.items():
            if isinstance(out[i], int):
                out[i] = min(max(out[i], lo), hi)
        return tuple(out)

    return [fit(r) for r in rows]


@dataclass
class Page:
    rows: dict[str, list[tuple] | pa.Table]  # a table's rows, or its Arrow table
    deleted: list[str]  # matches whose stored rows go first (re-projected)
    inflight: tuple[str, str] | None  # (match uuid, state JSON) of the match a page boundary cut
    position: int
    events: int
    crash: bool = False
    final: bool = False  # the run ends with this page: it is written straight into the file (no WAL)
    # the transaction stays open: a later page commits this one's rows with its own (a rebuild by worker processes,
    # zx_analytics.projection.REBUILD_COMMIT); ``position``, ``events``, ``inflight`` and ``crash`` of a held page are
    # not used. A writer stopped before that page rolls them back
    held: bool = False


SCAN_NAME = "zx_page_rows"  # the local variable each page's Arrow table is inserted from (``Writer._write``)


class Writer:
    """Commits pages in order on its own thread, each in one DuckDB transaction.

    DuckDB releases the GIL while it inserts and commits, so page N is written while page N+1 is
    read and decoded. At most one page waits (bounded memory); an error is raised in the caller
    at its next ``put``/``drain``."""

    def __init__(self, con: duckdb.DuckDBPyConnection, types: dict[str, pa.Schema]) -> None:
        self.con, self.types = con, types
        self.queue: queue.Queue[Page | None] = queue.Queue(maxsize=1)
        self.error: BaseException | None = None
        self.open = False  # a transaction begun by a held page (Page.held) and not yet committed
        # a table or view of the replacement scan's name in the file (a user's: DuckDB's catalog comes first) was read
        # instead of the page ("Binder Error: Table matches does not have a column ...", an internal error in every
        # update): then each page is registered under a name of its own, as before
        self.by_scan = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                                   [SCAN_NAME]).fetchone()[0] == 0
        # set when the thread's loop has ended: waited for instead of thread.join(), which a Ctrl-C during
        # the join leaves saying is_alive() False while the thread goes on (CPython 3.11, bpo-45274's fix:
        # the file was closed under a commit, "connection is busy", then the process aborted)
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="analytics-writer", daemon=True)
        self.thread.start()

    def put(self, page: Page) -> None:
        self._raise()
        self.queue.put(page)

    def drain(self) -> None:
        """Wait until every page handed over is committed."""
        self.queue.join()
        self._raise()

    def close(self) -> None:
        self.queue.put(None)
        self.ended.wait()
        self._raise()

    def stop(self) -> None:
        """After a failure elsewhere (a Ctrl-C included): let the page being written finish, drop the rest."""
        if not self.ended.is_set():
            self.error = self.error or RuntimeError("stopped")
            self.queue.put(None)  # (after a page or close()'s None the loop takes first: it ends at either None)
            self.ended.wait()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _loop(self) -> None:
        try:
            while True:
                page = self.queue.get()
                try:
                    if page is None:
                        if self.open:  # stopped between the held pages of a transaction: nothing of it stays
                            self.open = False
                            self.con.execute("ROLLBACK")
                        return
                    if self.error is None:
                        self._write(page)
                except BaseException as e:  # kept for the caller; later pages are dropped, never half-written
                    self.error = e
                finally:
                    self.queue.task_done()
        finally:
            self.ended.set()

    def _write(self, page: Page) -> None:
        con = self.con
        if not self.open:
            con.execute("BEGIN TRANSACTION")
            self.open = True
        try:
            for mid in page.deleted:
                for table in PROJECTED:
                    con.execute(f"DELETE FROM {table} WHERE match_id = ?", [mid])  # table from the allow-list
            for table, rows in page.rows.items():
                if isinstance(rows, pa.Table):  # built by a worker process (zx_analytics.parallel)
                    zx_page_rows = rows
                elif rows:
                    zx_page_rows = arrow_table(rows, self.types[table])
                else:
                    continue
                if self.by_scan:  # DuckDB finds the Arrow table by its variable's name (a replacement scan): half
                    # the fixed cost of an insert that registers it and unregisters it again (0.45 against 0.9 ms,
                    # 15 tables a page)
                    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {SCAN_NAME}")
                else:
                    con.register("_zx_page_rows", zx_page_rows)
                    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _zx_page_rows")
                    con.unregister("_zx_page_rows")
                del zx_page_rows  # (read by that statement)
            if page.held:
                return
            if page.crash:  # the test hook: rows written, nothing committed
                os._exit(75)
            con.execute("DELETE FROM projection_inflight")
            if page.inflight is not None:
                con.execute("INSERT INTO projection_inflight VALUES (?, ?)", list(page.inflight))
            con.execute(sql("update_projection_position"),
                        [page.position, page.events, datetime.now(timezone.utc), NAME])
            if page.final:  # the commit checkpoints: the page goes into the file once, not into the WAL
                con.execute("SET checkpoint_threshold = '0B'")  # and again at the checkpoint of close()
                con.execute("SET auto_checkpoint_skip_wal_threshold = 0")
            self.open = False
            con.execute("COMMIT")
        except BaseException:
            self.open = False
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:  # a failed COMMIT (the disk full) has ended the transaction itself: its error,
                pass  # not "cannot rollback - no transaction is active", is the one to report
            raise
