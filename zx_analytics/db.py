"""The analytics DuckDB file: where it lives, its schema, and the SQL shipped with the package.

SQL lives in ``zx_analytics/sql/*.sql``, one statement each, named after what it produces. The
projector is the only writer of the file; every query opens it read-only (DuckDB allows one
read-write process or many read-only ones per file).
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from zx_events.errors import Error, for_python
from zx_events.files import SQLITE_MAGIC

from .paths import DEFAULT_ANALYTICS, default_path  # noqa: F401 (their home before)
from .paths import not_regular

if TYPE_CHECKING:
    from .stats import Stats

SCHEMA_VERSION = 13  # 5: every installed game's own tables (x610z_*), created from the games' rows modules;
# 6: a card an effect put into hand (Z/X move to hand, X610Z search and zone to hand) is a draws row and drawn;
# 7: the archetype of a match checked against a copy of a shipped catalog under another name ranks its cards by
# cost and Power (X610Z: leaves out crystals and the Life Base), as under the shipped name (it ranked by copies);
# 8: card_catalog is keyed by the catalog's content too (catalog_sha256): two files of one name kept the first's rows;
# matches.catalog_sha256 joins a match to its own card_catalog rows;
# 9: a header's event, format, player and deck names are stored in Unicode NFC (rowkit.nfc): one deck written in
# two normal forms was two rows by deck, two sides of a matchup;
# 10: X610Z turns.damage_dealt is the Life damage the turn player's opponent took in the turn (x610z_life): it
# added an attack's damage to a summon too and an effect's to any dot, and left out the other player's effects'
# 11: records left out or logged late (--accept-violations): an X610Z setup left out has hand_size and mulligan
# NULL and the cards its player uses from the unknown hand are `opening` draws rows (they were in no hand: GNS and
# played); turns.ended is the `end` record applied, late too (X610Z said true for an `end` left out, Z/X false for
# one applied late); the card of a draw left out (X610Z) or named wrong (Z/X, 301.1), known where it is used, is a
# `late` draws row, no Draw Phase draw of that turn (turns.drawn counted it);
# 12: Z/X cards played from a hand the log never put them in (--accept-violations: 301.1, played as written): of a
# setup left out (402) `opening` draws rows, as X610Z's, else `late` ones (they were in no hand: GNS and played); a
# setup written after turn 1's `turn` record is the opening hand of turn 0 (it was the turn its record came in);
# 13: X610Z x610z_life.source of an effect whose source is a summon named by its dot is that summon's card (the code
# of the summon on the dot then; NULL when none is there): it was the dot as written ("S1")
# created in this order (one statement per file)
SCHEMA = ("create_matches", "create_seats", "create_plays", "create_attacks", "create_life", "create_ignitions",
          "create_turns", "create_draws", "create_card_games", "create_card_catalog", "create_projection_position",
          "create_projection_inflight", "create_filtered_seats_macro", "create_wilson_low_macro",
          "create_wilson_high_macro")
TABLES = ("matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_games", "card_catalog",
          "projection_position", "projection_inflight")
MACROS = (("filtered_seats", "MACRO TABLE"), ("wilson_low", "MACRO"), ("wilson_high", "MACRO"))


class AnalyticsError(Error):
    """The analytics file cannot be used as asked (missing, locked, built from another store); a
    ``zx_events.errors.Error``, as every error zx raises for what it was given."""


class RebuildNeeded(AnalyticsError):
    """An analytics file the update must not add to as it is (built by another schema version, or from
    another store): its message says to run ``zx analytics update --rebuild``, and to a Python caller
    (``zx_events.errors.for_python``) also ``zx_analytics.projection.update(svc, PATH, rebuild=True)``: ``path``,
    the file's."""

    def __init__(self, message: str, path: "str | Path | None" = None) -> None:
        if path is not None and for_python():
            message += f" (in Python: zx_analytics.projection.update(svc, {str(path)!r}, rebuild=True))"
        super().__init__(message)
        self.path = path


class DamagedFile(AnalyticsError):
    """The analytics file cannot be read: damaged (cut short, overwritten) or not a DuckDB database at all.
    It is only a projection of the store: ``zx analytics update --rebuild`` makes it again (``damaged``).
    ``python``: raised to a Python caller (a ``Stats``' call: it raised DuckDB's raw ``IOException``), whose
    advice is also ``zx_analytics.projection.update(svc, PATH, rebuild=True)``. Made of another ``DamagedFile``
    (``e``), it has that one's cause: a caller words it for its own reader (the CLI's, the server's advice)."""

    def __init__(self, path: Path, e: Exception, rebuilding: bool = False, *, python: bool = False) -> None:
        self.path = path
        self.cause = e.cause if isinstance(e, DamagedFile) else first_line(e)  # DuckDB's words
        if Path(path).suffix != ".duckdb":  # --rebuild leaves it alone (zx_analytics.projection.set_aside)
            todo = ("its name does not end in .duckdb: it may not be zx's analytics file (--rebuild leaves such a "
                    "file alone); name zx's analytics file with --analytics, or move this one away")
        elif rebuilding:
            todo = (f"--rebuild could not make it again in place: move it away (mv {path} {path}.damaged) and run "
                    f"`zx analytics update`")
        else:
            todo = "`zx analytics update --rebuild` rebuilds it from the store"
            if python:
                todo += f" (in Python: zx_analytics.projection.update(svc, {str(path)!r}, rebuild=True))"
        super().__init__(f"the analytics file {path} is damaged or not a DuckDB database ({self.cause}): {todo}")


# what DuckDB says of a file it cannot read: cut short, blocks that fail their checksum, not a database at all
_DAMAGE = ("not a valid duckdb database", "could not read enough bytes", "corrupt", "checksum")


def damaged(e: BaseException) -> bool:
    """Whether DuckDB's error ``e`` says the file is damaged or not a database (``DamagedFile``); a file it
    may not open (permissions, locked, a newer format) or a full disk is not that."""
    if isinstance(e, DamagedFile):  # (a Stats' call raises it: a caller that rewords it finds it damaged too)
        return True
    text = str(e).lower()
    return isinstance(e, duckdb.Error) and any(k in text for k in _DAMAGE)


def first_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    return lines[0] if lines else type(e).__name__


@contextmanager
def ctrl_c_interrupts(con: "duckdb.DuckDBPyConnection | Stats"):
    """Ctrl-C stops the statement DuckDB runs on this (the main) thread at once (on ``con``, or on the cursor
    a ``Stats`` runs user SQL on: ``Stats.interrupt``). The SIGINT reaches
    whichever thread of the process the kernel picks, often one of DuckDB's own, and Python acts on it
    only when this thread runs Python again, after the statement: ``zx sql`` of a long join went on
    for minutes after Ctrl-C (4 times in 5). The signal's wake-up byte (``signal.set_wakeup_fd``,
    written by the C handler on whatever thread caught it) wakes a watcher thread that interrupts the
    connection, as the time limit's timer does; the interruption leaves as ``KeyboardInterrupt``: the
    command's ordinary "Aborted!"."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit, done = threading.Event(), threading.Event()
    # SIGTERM too where it is Ctrl-C's path (zx_cli.sigterm): a long statement went on after it, as after Ctrl-C
    stops_on_sigterm = getattr(signal.getsignal(signal.SIGTERM), "interrupts_statements", False)
    r, w = os.pipe()
    os.set_blocking(w, False)

    def watch() -> None:
        while not done.is_set():
            got = os.read(r, 64)
            if not got or done.is_set():
                return
            if signal.SIGINT in got or (signal.SIGTERM in got and stops_on_sigterm):
                hit.set()
                con.interrupt()
                return

    try:
        previous = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    except ValueError:  # (not the main thread of the main interpreter)
        os.close(r)
        os.close(w)
        yield
        return
    watcher = threading.Thread(target=watch, daemon=True, name="ctrl-c")
    watcher.start()
    try:
        yield
    except duckdb.Error:
        if hit.is_set():
            raise KeyboardInterrupt from None
        raise
    finally:
        done.set()
        signal.set_wakeup_fd(previous)
        try:
            os.write(w, b"\0")  # wakes the watcher: done, it interrupts nothing
        except OSError:
            pass
        watcher.join(timeout=5)
        os.close(r)
        os.close(w)
    if hit.is_set():  # Ctrl-C as the statement ended
        raise KeyboardInterrupt


class Interruptible:
    """A DuckDB connection that keeps the cursors made from it, so that ``interrupt()`` stops the statements
    they run (each then raises ``duckdb.InterruptException``). DuckDB's own ``interrupt()`` of a connection
    does not reach its cursors, and it refuses to ``close()`` a connection while one of them runs a
    statement: ``zx serve`` stopped during its start-up warming got "connection is busy", then a crash.
    Anything else is the connection's."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        import weakref

        self.con = con
        self._cursors: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()
        self._lock = threading.Lock()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cur = self.con.cursor()
        with self._lock:
            self._cursors.add(cur)
        return cur

    def interrupt(self) -> None:
        """Interrupt the statement each cursor (and the connection) runs now; one that starts later runs."""
        with self._lock:
            cursors = list(self._cursors)
        for con in (self.con, *cursors):
            try:
                con.interrupt()
            except duckdb.Error:  # closed already
                pass

    def __getattr__(self, name: str) -> object:
        return getattr(self.con, name)


class QueryRefused(AnalyticsError):
    """User SQL tried something the sandbox forbids (files, other databases, settings, extensions, writes)."""


class QueryTimeout(AnalyticsError):
    """User SQL ran longer than its time limit and was interrupted (``seconds``: the limit). Its message speaks
    the Python API (``timeout=SECONDS``); ``zx sql`` says its own (``--timeout SECONDS``)."""

    seconds: float | None = None


# The sandbox of every connection that runs statistics or user SQL (docs/security.md): set when the
# database is opened, then locked, so no statement can undo it. With external access disabled DuckDB
# refuses every file and network access other than this database file itself: COPY TO/FROM, EXPORT
# DATABASE, read_csv/read_text/read_blob/glob/read_parquet, ATTACH, INSTALL/LOAD, persistent secrets.
# temp_directory '' keeps it from spilling to disk: a query too large for memory_limit fails instead.
SANDBOX = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "allow_persistent_secrets": False,
    "temp_directory": "",
    "memory_limit": "2GB",
    "lock_configuration": True,  # last: SET, RESET, PRAGMA that change settings are refused from here on
}


SQL_DATA_MEMORY = 3 << 30  # bytes of data memory a ``zx sql`` query may add to its process (RLIMIT_DATA)


def _data_size() -> int:
    """The process's data memory now, in bytes (Linux: ``VmData``), or 0 where it cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


@contextmanager
def data_memory_cap(extra: int = SQL_DATA_MEMORY):
    """Within the block, this process's data memory (its heap and private writable mappings:
    ``RLIMIT_DATA``) may grow by at most ``extra`` bytes (a lower cap already set is kept); the cap
    before it is restored after. ``memory_limit`` bounds DuckDB's buffer pool (operators, hash
    tables), not the string one scalar call builds: ``repeat('abcd', 10^9)`` took 4 GB past a 2 GB
    limit, and more if asked. Past the cap an allocation fails: DuckDB raises
    ``OutOfMemoryException``, Python ``MemoryError``. For ``zx sql`` (the Python API leaves its
    caller's process alone). Where the platform has no such limit, nothing is done."""
    try:
        import resource

        old = resource.getrlimit(resource.RLIMIT_DATA)
        soft, hard = old
        new = _data_size() + extra
        if soft != resource.RLIM_INFINITY:
            new = min(new, soft)
        if hard != resource.RLIM_INFINITY:
            new = min(new, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (new, hard))
    except (ImportError, AttributeError, ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, old)


@cache
def sql(name: str) -> str:
    """The text of ``zx_analytics/sql/<name>.sql``."""
    return resources.files("zx_analytics").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


def _locked(e: Exception) -> bool:
    text = str(e)
    return "lock" in text.lower() and ("Conflicting" in text or "Could not set lock" in text)


# every connection, sandboxed or not: DuckDB opens a SQLite file by loading its sqlite_scanner extension,
# downloaded from the internet on first use (an event store given as the analytics file did that)
NO_EXTENSIONS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


# the analytics files this process holds open read-write for as long as it runs (``zx serve --follow``: the
# server's own DuckDB instance, which each of its updates connects to again): the lock DuckDB holds on such a file
# is a POSIX record lock, which the process loses as soon as it closes ANY descriptor of the file, so
# ``refuse_sqlite`` must not open it to read its first bytes (it did, at each update: a `zx import` then opened
# the file beside the server, and failed only at its commit, on the lock of the write-ahead log)
HELD_OPEN: set[str] = set()


def refuse_sqlite(path: Path) -> None:
    """A SQLite file (a zx event store, most likely) given as the analytics file: refused before DuckDB
    sees it (it would open it through an extension, read-write), and never set aside by a rebuild. So is
    anything but a regular file (``paths.not_regular``), before it is opened: a named pipe blocked the open."""
    refused = not_regular(path)
    if refused is not None:
        raise AnalyticsError(refused)
    if os.path.realpath(path) in HELD_OPEN:  # a DuckDB file this process holds open (and locked): never opened here
        return
    try:
        with open(path, "rb") as f:
            magic = f.read(len(SQLITE_MAGIC))
    except OSError:
        return  # none yet, or unreadable: DuckDB's own error says so
    if magic == SQLITE_MAGIC:
        raise AnalyticsError(f"{path} is a SQLite file (a zx event store?), not the analytics DuckDB file: give "
                             f"--analytics another file (by default the store's name with .duckdb)")


ANALYTICS_COMMANDS = ("serve", "sql", "stats", "export", "report", "analytics", "import", "demo")  # zx's readers


def lock_holder(e: Exception) -> tuple[int | None, str | None]:
    """(PID, what it runs) of the process DuckDB's lock error names ("Conflicting lock is held in ... (PID N)"):
    what it runs is ``zx serve`` (``zx sql``, ...) when /proc/PID/cmdline shows a zx command, else its program's
    name; None where it cannot be read. Never more of its command line (a --store URL may hold a password). A
    worker process of ``zx serve --workers N`` (Python's multiprocessing: "python3") is named by its server, the
    process it serves for: stopping the worker did nothing (the server starts another in its place)."""
    found = re.search(r"\(PID (\d+)\)", str(e))
    if found is None:
        return None, None
    pid = int(found.group(1))
    args = _cmdline(pid)
    if args is None:
        return pid, None
    command = _zx_command(args)
    if command is None:
        parent = _parent(pid)
        server = _zx_command(_cmdline(parent) or []) if parent else None
        if server is not None and server.startswith("zx serve"):
            return parent, server
    if command is not None:
        return pid, command
    return pid, os.path.basename(args[0]) if args else None


def _cmdline(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return None


def _parent(pid: int) -> int | None:
    """The parent's PID of ``pid`` (/proc/PID/stat's fourth field, after the program's name in parentheses)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _zx_command(args: list[str]) -> str | None:
    """``zx serve --follow``, ``zx serve``, ``zx sql``, ``zx``... of a command line that runs zx, else None."""
    zx = next((i for i, a in enumerate(args) if os.path.basename(a) == "zx" or a in ("zx_cli.main", "zx_cli")), None)
    if zx is None:
        return None
    command = next((a for a in args[zx + 1:] if a in ANALYTICS_COMMANDS), None)
    if command == "serve" and "--follow" in args[zx + 1:]:  # the server keeps the file up to date itself
        return "zx serve --follow"
    return f"zx {command}" if command else "zx"


class FileInUse(AnalyticsError):
    """Another process holds the analytics file an update would write (its message says who, and what to run)."""


def in_use(path: Path, e: Exception, rebuild: bool = False) -> str:
    """Why ``path`` cannot be written: another process holds it (DuckDB: one writer, or readers), named by its
    PID and command where they can be read, and what to run. ``zx serve`` holds it as long as it runs: "try
    again when it has finished" was never true of it. (A server's worker processes, ``--workers N``, are named by
    their server, ``lock_holder``; any other holder but a zx command may still be a server of a zx run otherwise,
    ``python -m``.) ``rebuild``:
    the update it advises is the one asked for, ``--rebuild`` (it lost it)."""
    pid, command = lock_holder(e)
    update = "`zx analytics update --rebuild`" if rebuild else "`zx analytics update`"
    # (``zx serve --update`` updates, it never rebuilds: for a rebuild it is no other way; it was offered, and it
    # refused a file of another schema, the usual reason to rebuild)
    if command == "zx serve --follow" and not rebuild:
        return (f"{path} is written by a `zx serve` started with --follow (PID {pid}): that server projects the new "
                f"matches itself, within seconds; nothing to run")
    if command in ("zx serve", "zx serve --follow"):
        return (f"{path} is in use by another process: `zx serve` (PID {pid}) holds it as long as it runs: stop that "
                f"server, run {update}, then start the server again" + ("" if rebuild else
                " (or stop it and start it with `zx serve --follow`, which keeps the file up to date while it "
                "serves: the matches imported meanwhile are counted within seconds)"))
    if command is not None and command.startswith("zx "):
        return (f"{path} is in use by another process (`{command}`, PID {pid}): an update or a query is running; "
                f"run {update} when it has finished")
    who = f" ({command}, PID {pid})" if command else f" (PID {pid})" if pid else ""
    return (f"{path} is in use by another process{who}: an update or a query running, or a `zx serve`, which holds "
            f"it as long as it runs; run {update} when it has finished, or after stopping that server" +
            ("" if rebuild else " (`zx serve --update` brings the file up to date first, then serves)"))


def connect_writer(path: Path, memory_limit: str = "512MB", rebuild: bool = False) -> duckdb.DuckDBPyConnection:
    """The projector's read-write connection (the schema is the projection's business: create_schema); ``rebuild``:
    an update that rebuilds the file (what ``FileInUse`` advises running again)."""
    refuse_sqlite(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = duckdb.connect(str(path), config=dict(NO_EXTENSIONS))
    except duckdb.Error as e:
        if _locked(e):
            raise FileInUse(in_use(path, e, rebuild)) from None
        if damaged(e):
            raise DamagedFile(path, e) from None
        if "same database file with a different configuration" in str(e):  # (DuckDB's words, raw)
            raise FileInUse(f"{path} is open in this process (a Stats, or another DuckDB connection to it): close it "
                            f"first (Stats.close(), or the end of its with block), then update") from None
        raise AnalyticsError(f"cannot open {path}: {e}") from None
    try:  # bounded memory whatever the corpus size; row order within a table carries no meaning here
        con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute("SET preserve_insertion_order = false")
        con.execute("SET enable_progress_bar = false")
    except BaseException:  # (Ctrl-C: the file is closed for the update to remove it, if it made it)
        con.close()
        raise
    return con


def version_refused(path: "str | Path", version: int | None, verb: str = "reads", con: Any = None) -> str:
    """Why an analytics file built by another schema version is refused (by a reader: ``reads``; by the
    update: ``writes``), and what to run: the one wording of ``zx stats``, ``zx sql``, ``zx serve`` and
    ``zx analytics update``. ``version`` None: a DuckDB file without zx's schema (``no_schema``)."""
    if version is None:
        return no_schema(path, con)
    return (f"{path} has analytics schema {version}, this version {verb} {SCHEMA_VERSION}: "
            f"run `zx analytics update --rebuild`")


def no_schema(path: "str | Path", con: Any = None) -> str:
    """Why a reader refuses a DuckDB file without zx's schema (no ``projection_position`` row: an update
    interrupted before its first commit, or a database that is not zx's): the one wording of ``zx stats``,
    ``zx sql``, ``zx export``, ``zx report`` and ``zx serve`` (they said "internal error: CatalogException", "Table
    with name matches does not exist", "cannot export to DIR", "analytics schema None"). A file holding tables of
    its own (read on ``con``, when given) is another database, which an update never writes to: it is named as
    such (the advice to build it was refused by the update it advised)."""
    held = [] if con is None else [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() "
        "ORDER BY table_name").fetchall()]
    if held:
        shown = ", ".join(held[:5]) + (", ..." if len(held) > 5 else "")
        return (f"{path} is a DuckDB database that is not zx's analytics (it holds {shown}): name zx's analytics file "
                f"with --analytics (zx analytics update writes only its own)")
    return (f"{path} is not zx's analytics file (no schema): run `zx analytics update` to build it, or name zx's "
            f"analytics file with --analytics")


def stored_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """The schema version the file was built with; None for a new (empty) file."""
    if not con.execute("SELECT 1 FROM information_schema.tables WHERE table_name = 'projection_position'").fetchall():
        return None
    row = con.execute("SELECT schema_version FROM projection_position").fetchall()
    return row[0][0] if row else None


def refuse_other_version(con: duckdb.DuckDBPyConnection, path: "str | Path") -> None:
    """Raise ``AnalyticsError`` (``version_refused``) when the file open on ``con`` was built by another schema
    version: its figures are another projection's (``zx stats``, ``zx sql``, ``zx export`` read no such file);
    or has no schema at all (``no_schema``: it was read as version None, then failed on its first table)."""
    version = stored_version(con)
    if version is None:
        raise AnalyticsError(no_schema(path, con))
    if version != SCHEMA_VERSION:
        raise RebuildNeeded(version_refused(path, version), path)


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Every table (if missing), macro (replaced) of this version, and every game's own tables."""
    from .tables import GAME_SQL

    for name in SCHEMA:
        con.execute(sql(name))
    for statement in GAME_SQL:
        con.execute(statement)


def drop_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Drop what any version of the projection created (tables, the old seats view, macros)."""
    from .tables import GAME_TABLES

    kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables "
                             "WHERE table_schema = 'main'").fetchall())
    for name in sorted((*TABLES, *GAME_TABLES), key=lambda n: kinds.get(n) != "VIEW"):  # allow-listed names
        if name in kinds:
            con.execute(f"DROP {'VIEW' if kinds[name] == 'VIEW' else 'TABLE'} {name}")
    for name, kind in MACROS:
        con.execute(f"DROP {kind} IF EXISTS {name}")


READER_WAIT = 5.0  # seconds a query waits for an update under way (zx analytics follow commits often)


def connect_reader(path: Path, *, wait: float = READER_WAIT) -> duckdb.DuckDBPyConnection:
    """A read-only connection for queries; a clear error when there is nothing to read yet.

    Always sandboxed (statistics, user SQL and ``zx export`` alike): no file, network, extension or
    setting access (``SANDBOX``), whatever SQL runs on it, the SQL stored in the file (views, macros)
    included. ``zx export`` writes its Parquet files through another connection (``zx_analytics.export``).
    While an update holds the file (DuckDB: one writer or many readers), it retries for up to
    ``wait`` seconds: ``zx analytics follow`` holds it only while it commits new matches."""
    if not Path(path).exists():
        raise AnalyticsError(f"no analytics file at {path}: run `zx analytics update` (or `zx import LOGS`) first")
    refuse_sqlite(Path(path))
    deadline = time.monotonic() + wait
    while True:
        try:
            con = duckdb.connect(str(path), read_only=True,
                                 config=dict(SANDBOX))
            break
        except duckdb.Error as e:
            following = _locked(e) and lock_holder(e)[1] == "zx serve --follow"  # (holds it as long as it runs)
            if _locked(e) and time.monotonic() < deadline and not following:
                time.sleep(0.05)
                continue
            if following:
                raise AnalyticsError(f"{path} is written by a `zx serve` started with --follow (PID "
                                     f"{lock_holder(e)[0]}), which lets no other process read it while it runs: ask "
                                     f"that server (its /api/stats/... and /dashboard), or stop it first") from None
            if _locked(e):
                raise AnalyticsError(f"{path} is being written by `zx analytics update`; "
                                     f"query it when the update has finished") from None
            if damaged(e):
                raise DamagedFile(path, e) from None
            raise AnalyticsError(f"cannot open {path}: {e}") from None
    return con


# DuckDB's own words for what the sandbox refuses, whole (each error's first line), by the exception's class: words a
# query or its data can hold ("secret_decks", "read-only", an error('...') of its own) are no refusal (QA round 38:
# SELECT * FROM secret_decks, a Catalog Error, was "refused: ... secrets are disabled", its "Did you mean" lost)
_FILES = "reading or writing files, attaching databases and installing or loading extensions are disabled"
_REFUSALS: tuple[tuple[type, re.Pattern[str], str], ...] = (
    (duckdb.InvalidInputException,
     re.compile(r'Invalid Input Error: Cannot change configuration option ".*" - the configuration has been locked'),
     "settings cannot be changed (SET, RESET, PRAGMA)"),
    (duckdb.InvalidInputException,
     re.compile(r'Invalid Input Error: Cannot execute statement of type "\w+" on database ".*" which is attached in '
                r'read-only mode!'),
     "the analytics file is opened read-only"),
    (duckdb.CatalogException, re.compile(r"Catalog Error: Cannot launch in-memory database in read-only mode!"),
     "the analytics file is opened read-only"),
    (duckdb.InvalidInputException,
     re.compile(r"Invalid Input Error: Secret type '.*' does not exist, but it exists in the \w+ extension\."),
     "secrets are disabled (they need extensions, which cannot be installed or loaded)"),
)


def refusal(e: duckdb.Error) -> str | None:
    """What the sandbox refused, in words, when ``e`` is a refusal (else None): every ``PermissionException``
    (DuckDB's "file system operations are disabled by configuration", "Loading external extensions is disabled"),
    and the errors of ``_REFUSALS``, known by their class and DuckDB's whole first line."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if isinstance(e, duckdb.PermissionException):
        what = _FILES
    else:
        what = next((words for kind, wording, words in _REFUSALS
                     if isinstance(e, kind) and wording.fullmatch(text.strip())), None)
        if what is None:
            return None
    return f"refused: zx sql is read-only and sandboxed: {what} ({text})"
