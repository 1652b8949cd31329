"""Where matches are stored: ``--store`` / ``ZX_STORE`` to an ``eventsourcing`` environment.

- a file path (the default, ``zx-store.sqlite`` in the working directory): the embedded SQLite store
  (table ``stored_events``; one writer process at a time, others wait up to 30 s);
- ``memory:``: in memory, for tests and dry runs;
- ``postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]``: a shared PostgreSQL
  (``eventsourcing.postgres`` with psycopg 3; table ``NAME.matches_events``), for many importers
  and readers at once. See docs/deployment.md.

For PostgreSQL, ``resolve_store`` connects once (so an unreachable server is a clear
``StoreError`` at once instead of a 30 s pool timeout) and creates the schema if it is missing
(eventsourcing 9.5 creates tables but not schemas). The tables themselves are created by
``PostgresMatchRecorder`` under an advisory lock, so many importers starting together on an
empty database do not race on ``CREATE TYPE`` / ``CREATE OR REPLACE FUNCTION``.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qsl, quote, unquote, unquote_plus, urlparse

from zx_events.errors import ZXError

DEFAULT_STORE = "zx-store.sqlite"
RECORDER_TOPIC = "zx_events.store:PostgresMatchRecorder"
MAPPER_TOPIC = "zx_events.codec:MatchMapper"  # events stored as the canonical bytes their digests cover
# lower case only: PostgreSQL folds an unquoted name to lower case, and eventsourcing looks its composite type up
# unquoted (CompositeInfo.fetch("Season.stored_event_uuid")), so a schema named with capitals was created, its
# tables too, and then every import failed ("Composite type 'stored_event_uuid' not found")
SCHEMA_NAME = r"[a-z_][a-z0-9_]{0,62}"
# this module's patterns, each compiled when first used (a PostgreSQL URL's parts, a password to redact): a
# SQLite store's path needs none (they were about 2 ms of every command's start-up: issue 20 target 4)
_re = cache(re.compile)

# URL query parameters -> eventsourcing.postgres environment keys (all optional).
PG_PARAMS = {
    "schema": "POSTGRES_SCHEMA",  # created if missing; default public (or env POSTGRES_SCHEMA)
    "connect_timeout": "POSTGRES_CONNECT_TIMEOUT",  # s: first connect, and wait for a pooled one
    "lock_timeout": "POSTGRES_LOCK_TIMEOUT",  # s: wait for the table lock before retrying
    "pool_size": "POSTGRES_POOL_SIZE",
    "max_overflow": "POSTGRES_MAX_OVERFLOW",
}
# TLS to a shared server, as libpq names it in a URL (postgresql://...?sslmode=verify-full&sslrootcert=ca.pem):
# eventsourcing passes psycopg only host, port, user, password and database, so the store's own factory
# (MatchPostgresFactory) adds these to its pool's connection arguments; kept in the environment as ZX_PG_*
PG_TLS = {name: f"ZX_PG_{name.upper()}" for name in ("sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl")}
# A peer that stops answering (a network cut, a host gone): TCP keepalives and a TCP user timeout on every
# connection, as libpq names them in a URL, in seconds (tcp_user_timeout: ms). On the client (libpq's
# keepalives_*), a command finds a lost server within about tcp_user_timeout instead of waiting without end;
# on the server (the same values as the session's tcp_keepalives_* and tcp_user_timeout, set through the
# connection's options: any role may set them), the backend of an importer whose network went away ends,
# and lets go of the table lock every other importer waits for. Kept in the environment as ZX_PG_*.
PG_NET = {name: f"ZX_PG_{name.upper()}" for name in ("keepalives_idle", "keepalives_interval", "keepalives_count",
                                                       "tcp_user_timeout")}
PG_NET_DEFAULTS = {"keepalives_idle": "5", "keepalives_interval": "2", "keepalives_count": "3",
                   "tcp_user_timeout": "15000"}
# What each number of a store URL may be (inclusive): past them a command failed later as "cannot connect" or
# hung. The keepalives are what Linux takes (TCP_KEEPIDLE and TCP_KEEPINTVL 1-32767 s, TCP_KEEPCNT 1-127:
# libpq's "setsockopt(TCP_KEEPIDLE) failed: Invalid argument" on 0 or 32768); tcp_user_timeout, lock_timeout
# (as milliseconds) and connect_timeout are PostgreSQL's and libpq's 32-bit integers; a pool holds one connection.
# connect_timeout is also how long the connection pool waits for a connection (eventsourcing's pool timeout):
# libpq's 0 ("wait indefinitely") made every command fail at once, "couldn't get a connection after 0.00 sec"
INT32 = 2**31 - 1
PG_RANGES = {"keepalives_idle": (1, 32767), "keepalives_interval": (1, 32767), "keepalives_count": (1, 127),
             "tcp_user_timeout": (0, INT32), "connect_timeout": (1, INT32), "lock_timeout": (0, INT32 // 1000),
             "pool_size": (0, 10_000), "max_overflow": (0, 10_000)}
# why a value below the range is refused, where the reason is not plain from the range
_BELOW = {"connect_timeout": " (libpq reads 0 as no limit, but the store's connection pool would not wait at all: "
                             "give the seconds to wait)"}
_ASCII_DIGITS = r"[0-9]+"


def _url_number(name: str, value: str, url: str, where: str | None = None) -> str:
    """``value`` of the store URL's parameter ``name`` (or of its environment variable: ``where`` says which):
    ASCII digits in ``PG_RANGES[name]`` (a ``StoreError`` naming the parameter, the value and the range
    otherwise); returned without leading zeros."""
    low, high = PG_RANGES[name]
    where = where or f"in the store URL {_redact(url)}"
    if not _re(_ASCII_DIGITS).fullmatch(value):  # (str.isdigit took '٣' and '²', which libpq does not)
        raise StoreError(f"{name} must be a whole number, not {value!r}, {where}")
    if not low <= int(value) <= high:
        why = _BELOW.get(name, "") if int(value) < low else ""
        raise StoreError(f"{name} must be from {low} to {high:,}, not {value}, {where}{why}")
    return str(int(value))
FACTORY_TOPIC = "zx_events.store:MatchPostgresFactory"
READER_TOPIC = "zx_events.store:SQLiteReaderFactory"  # a read command's SQLite store: never written (resolve_store)
SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
# A CLI process does one thing at a time: one pooled connection (a second only on demand),
# instead of eventsourcing's 5 + 10, so 50 importers fit in a default max_connections=100.
PG_DEFAULTS = {
    "POSTGRES_CONNECT_TIMEOUT": "10",
    "POSTGRES_LOCK_TIMEOUT": "30",
    "POSTGRES_POOL_SIZE": "1",
    "POSTGRES_MAX_OVERFLOW": "2",
}


class StoreError(ZXError):
    """The store named by ``--store`` / ``ZX_STORE`` cannot be used (bad URL, server unreachable)."""

    kind = "store"


class StoreFailure(StoreError):
    """The store failed under a read of the Python API (``MatchService.summaries``, ``get_match``, the ``replay``
    functions): a damaged SQLite file ("database disk image is malformed"), a lost PostgreSQL server, a privilege
    the role lacks, in the words ``zx`` says it (``failed``); ``cause``: the store's own error (SQLite's, or
    eventsourcing's ``PersistenceError``), also its ``__cause__``. They were raised raw (QA round 37)."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    @classmethod
    def of(cls, store: str, config: "StoreConfig | None", e: BaseException) -> "StoreFailure":
        """``store`` (as named: a path, a URL, never shown with its password) failing with ``e``; ``config``: its
        parsed ``StoreConfig``, None when it cannot be parsed."""
        return cls(redacted(f"the store {store} failed: {failed(config, e)}", store), e)


def is_failure(e: BaseException) -> bool:
    """Whether ``e`` is the store failing (SQLite's DatabaseError, eventsourcing's PersistenceError), without
    importing eventsourcing for it: a command that never imported it cannot have raised it."""
    import sys

    if isinstance(e, sqlite3.DatabaseError):
        return True
    persistence = sys.modules.get("eventsourcing.persistence")
    return persistence is not None and isinstance(e, persistence.PersistenceError)


_reading = threading.local()  # whether this thread is inside a call of the Python API that says failures


@contextmanager
def failures_said(config: "StoreConfig", translate: bool = True) -> Iterator[None]:
    """Around a call of the Python API on the store of ``config`` (``MatchService.summaries``, ``get_match``,
    ``has_match``, the ``replay`` functions): the store failing under it (``is_failure``) leaves it as a
    ``StoreFailure`` in ``zx``'s words. Only the outermost such call of a thread says it: the calls it makes
    raise as they always did to the code around them; and one with ``translate`` False (a write: ``zx prepare``
    tells its own ``PersistenceError``) says nothing, nor do the calls it makes."""
    if getattr(_reading, "inside", False):
        yield
        return
    _reading.inside = True
    try:
        yield
    except Exception as e:
        if not translate or not is_failure(e):
            raise
        parsed: StoreConfig | None = config
        if config.kind == "sqlite":  # as the command line parses it (a reader's file read as unchanging, whose
            try:  # folder is not writable, said every failure was "could not be written")
                parsed = parse_store(config.url)
            except ZXError:
                pass
        raise StoreFailure.of(config.label, parsed, e) from e
    finally:
        _reading.inside = False


def failed(config: "StoreConfig | None", e: BaseException) -> str:
    """What ``zx`` says of the store of ``config`` failing with ``e`` (``is_failure``), after "the store S
    failed: ": the cause known (``failure_cause``: a file not writable, a full disk, a lock held, a privilege, a
    PostgreSQL server lost), else a privilege's words, else the server's refusal, else damage, with what to do (the
    CLI's words and the Python API's ``StoreFailure``: one text)."""
    found = failure_cause(config, e) if config is not None else None
    if found is not None:  # a SQLite file not writable, its disk full, its lock held: not damage
        return found[1]  # (the error's own words are in it)
    if "permission denied" in str(e) or "readonly database" in str(e):
        return (f"{e} (the role or user may not do that: docs/deployment.md lists the grants a reader and an "
                f"importer need)")
    if config is not None and config.kind == "postgres":  # an error of the server, never damage
        return f"{e} (the PostgreSQL server refused it; its log says more)"
    return f"{e} (is it damaged? `zx verify` checks it; restore it from a backup)"


# What each command that writes an existing PostgreSQL store needs on its schema (docs/deployment.md, "Setting up
# the server"): a role without USAGE on it is told its own command's grants (``SchemaRefused.for_command``)
WRITER_GRANTS = {
    "zx prepare": "USAGE on it, SELECT on matches_events, and SELECT, INSERT on matches_snapshots",
    "zx prepare --repair": "USAGE on it, SELECT on matches_events, and SELECT, INSERT, DELETE on matches_snapshots",
    "zx verify --seal": "USAGE on it and on its sequences, SELECT on matches_events and matches_snapshots, and "
                        "INSERT, UPDATE on matches_events (for LOCK TABLE ... IN EXCLUSIVE MODE)",
}


class SchemaRefused(StoreError):
    """A role that may not use the store's schema (no USAGE), refused by ``prepare_postgres`` before anything is
    read or written. It cannot tell which command writes the store: ``for_command`` words the grants of one of
    ``WRITER_GRANTS`` (the CLI knows which)."""

    def __init__(self, head: str, needs: str, tail: str) -> None:
        super().__init__(f"{head}{needs}{tail}")
        self.head, self.needs, self.tail = head, needs, tail

    def __reduce__(self):  # (copied and pickled whole, as its three parts)
        return type(self), (self.head, self.needs, self.tail)

    def for_command(self, command: str) -> str:
        return f"{self.head}{WRITER_GRANTS[command]}, which {command} needs{self.tail}"


class StoreConfig:
    """Where a store is (``parse_store``): ``url`` as given (a SQLite store's path expanded), ``kind`` (sqlite,
    memory, postgres) and ``env``, the eventsourcing environment that opens it. A frozen value, as the dataclass
    it was (equality, repr, no assignment), written out: making the dataclass was about 1 ms of every command's
    start-up (issue 20 target 4)."""

    url: str
    kind: str  # sqlite, memory, postgres
    env: dict[str, str]

    def __init__(self, url: str, kind: str, env: dict[str, str]) -> None:
        put = object.__setattr__
        put(self, "url", url)
        put(self, "kind", kind)
        put(self, "env", env)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.url, self.kind, self.env) == (other.url, other.kind, other.env)

    def __hash__(self) -> int:
        return hash((self.url, self.kind, self.env))  # (a TypeError, as the dataclass's: env is a dict)

    def __repr__(self) -> str:
        return f"StoreConfig(url={self.url!r}, kind={self.kind!r}, env={self.env!r})"

    @property
    def path(self) -> Path | None:
        if self.kind != "sqlite":
            return None
        return Path(self.env.get(READ_ONLY_FILE) or self.env["SQLITE_DBNAME"])

    @property
    def read_only(self) -> bool:
        """A SQLite store read as an unchanging file (``resolve_store``: a reader, its folder not writable)."""
        return self.kind == "sqlite" and READ_ONLY_FILE in self.env

    @property
    def reader(self) -> bool:
        """Opened by a read command (``resolve_store`` without ``write``): nothing is ever written to it, no
        table created (SQLite: ``SQLiteReaderFactory``; PostgreSQL: ``CREATE_TABLE`` off)."""
        return READER in self.env

    @property
    def schema(self) -> str | None:
        return self.env["POSTGRES_SCHEMA"] if self.kind == "postgres" else None

    @property
    def label(self) -> str:
        """The store for messages: never shows a password."""
        if self.kind == "postgres":
            e = self.env
            tail = "" if e["POSTGRES_SCHEMA"] == "public" else f"?schema={e['POSTGRES_SCHEMA']}"
            return (f"postgresql://{quote(e['POSTGRES_USER'])}@{e['POSTGRES_HOST']}:{e['POSTGRES_PORT']}"
                    f"/{e['POSTGRES_DBNAME']}{tail}")
        return self.url


ACCEPTED = ("a SQLite file path (zx-store.sqlite, ./data/league.sqlite, /srv/zx/store.sqlite), sqlite://PATH "
            "with a relative PATH, memory:, or postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME] "
            "(postgres:// too)")
_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]+:"  # two letters at least: C:\ stays a path
OUR_TABLES = frozenset({"stored_events", "snapshots", "stored_snapshots"})  # what eventsourcing.sqlite creates for this application
OUR_TOPICS = ("zx_events.",)  # topics of this package's own events; a game's events start with its topic prefix
READ_ONLY_FILE = "ZX_SQLITE_READ_ONLY_FILE"  # env: the file of a store opened by its immutable URI (read_only_folder)
READER = "ZX_READER"  # env: set for a store opened by a read command, never written (StoreConfig.reader)
SCHEMA_MADE = "ZX_SCHEMA_MADE"  # env: prepare_postgres created the store's schema in this process (drop_made_schema,
# MatchService.made_schema)


def resolve_store(store: str | None = None, *, prepare: bool = True, create: bool = True,
                  write: bool | None = None) -> StoreConfig:
    """The store named by ``store``, else ``ZX_STORE``, else the default SQLite file.

    An unknown scheme (``mysql://``, ``http://``, ``postgresql:/x``, ``sqlite:///x``) is a
    ``StoreError`` that lists the accepted forms: nothing is created for it. ``create`` (import,
    demo, the Python API): a missing SQLite file and its folder (or an empty file), or a missing
    PostgreSQL schema, are created; without it (read commands) a missing store, or an empty file, is a
    ``StoreError`` and nothing is created. An existing SQLite file must be a readable database whose
    tables are this package's (``check_sqlite``). ``write`` (default: ``create``; ``zx prepare``, ``zx
    verify --seal``: an existing store written): without it the store is a reader's (``StoreConfig.reader``):
    no table is created, and a SQLite file is opened by ``SQLiteReaderFactory``, which never writes it
    (nor switches its journal mode). ``prepare`` (PostgreSQL only): check the server answers (and create
    the schema when ``create``).
    """
    config = parse_store(store)
    write = create if write is None else write
    if not write and config.kind != "memory":
        config.env[READER] = "1"
    if config.kind == "postgres" and not create or config.kind == "sqlite" and not write:
        # a reader creates no table (zx serve recreated a dropped snapshots table; and CREATE TABLE IF NOT
        # EXISTS needs the CREATE privilege a reader role lacks, even when the table is there; a SQLite reader
        # made the events table in an empty file). (On PostgreSQL zx prepare makes a missing snapshots table
        # itself, under the store's lock: zx_events.replay._snapshots)
        config.env["CREATE_TABLE"] = "n"
    if config.kind == "postgres" and prepare:
        prepare_postgres(config, create=create)
    elif config.kind == "sqlite":
        path = config.path
        if not write:
            config.env["PERSISTENCE_MODULE"] = READER_TOPIC
        if path.exists():
            if not create and read_only_folder(path):
                config.env["SQLITE_DBNAME"] = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
                config.env[READ_ONLY_FILE] = str(path)
                config.env["CREATE_TABLE"] = "n"
            check_sqlite(path, ReadConnections.uri_of(config), create=create)
        elif not create:
            raise StoreError(f"there is no store at {path}: zx import creates one (nothing was created)")
        elif not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        if create:
            ensure_wal(path, float(config.env["SQLITE_LOCK_TIMEOUT"]))
    return config


def read_only_folder(path: Path) -> bool:
    """Whether the SQLite store ``path`` is in WAL mode in a folder this process cannot write, with no
    ``-wal`` file beside it: SQLite cannot open it even read-only (``mode=ro``), as it must create the
    ``-shm`` file first ("attempt to write a readonly database": every reader said the store was damaged).

    Such a store is read as an unchanging file instead (SQLite's ``immutable=1``: no lock, no -shm).
    That is exact: with no -wal file no writer has it open (the last connection to close removes it),
    and everything committed is in the file. A writer that starts meanwhile (a user who may write the
    folder) is not seen by a reader already running; docs/deployment.md says so.

    The file itself is opened (its header read) last, only for a folder not writable: closing a file
    descriptor of it drops every POSIX lock this process holds on it, SQLite's included (``zx serve``'s
    connections then failed with "disk I/O error")."""
    if os.path.exists(f"{path}-wal") or os.access(path.parent, os.W_OK | os.X_OK):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(20)[18:20] == b"\x02\x02"  # WAL (not: read-only opening needs no new file)
    except OSError:
        return False  # unreadable: check_sqlite says so


def unwritable(path: Path) -> str | None:
    """Why this process cannot write the SQLite store ``path``, naming what is not writable (the file,
    its folder, or its -wal/-shm file: permissions, or a read-only file system); None when it can."""
    if path.exists() and not os.access(path, os.W_OK):
        return f"the store file {path} is not writable by this user, or is on a read-only file system"
    folder = path.resolve().parent
    sidecars = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    if not os.access(folder, os.W_OK | os.X_OK) and not all(p.exists() for p in sidecars):
        return (f"the folder {folder} of the store is not writable by this user, or is on a read-only file system "
                f"(SQLite writes {path.name}-wal and {path.name}-shm there)")
    for p in sidecars:
        if p.exists() and not os.access(p, os.W_OK):
            return f"{p} is not writable by this user, or is on a read-only file system"
    return None


def failure_cause(config: "StoreConfig", e: BaseException) -> tuple[str, str] | None:
    """Why a store failed under a command, as ``(kind, words)``. SQLite: ``unwritable`` (which file or
    folder), ``full`` (the disk), ``locked`` (another process held the write lock past the wait).
    PostgreSQL (``postgres_cause``): ``refused`` (the role lacks a privilege, or its sessions are
    read-only), ``timeout`` (a statement ran past the role's statement_timeout, SQLSTATE 57014), ``locked``
    (another session held the table lock past lock_timeout, 55P03), ``unreachable`` (the server could not be
    reached, or dropped the connection). None when
    the error says nothing known. The callers add what to do next: advice for a damaged store ("restore
    it from a backup") was given for all of them."""
    if config.kind == "postgres":
        return postgres_cause(config, e)
    if config.kind != "sqlite" or config.path is None:
        return None
    text = str(e).lower()
    path = config.path
    if "readonly" in text or "read-only" in text or "unable to open" in text or config.read_only:
        return "unwritable", unwritable(path) or f"the store {path} could not be written ({e})"
    if "disk is full" in text or "no space" in text:
        return "full", f"the disk holding {path} is full ({e})"
    if "locked" in text or "busy" in text:
        return "locked", (f"another process (another zx import or zx prepare) held the store's write lock longer than "
                          f"{config.env.get('SQLITE_LOCK_TIMEOUT', '30')} s ({e})")
    return None


# A connection lost or never made, not a problem of the data: SQLSTATE class 08 (connection exception),
# 57P01-57P03 (the server shut down, terminated the session, or is starting up); and the words of the client
# (psycopg, psycopg_pool, libpq) for the failures that have no SQLSTATE
_LOST_STATES = ("57P01", "57P02", "57P03")
_LOST_WORDS = ("couldn't get a connection", "connection refused", "server closed the connection",
               "connection is closed", "connection is lost", "terminating connection", "could not connect",
               "connection timed out", "timeout expired", "no route to host", "could not translate host name",
               "failed to resolve host", "consuming input failed", "ssl syscall error", "eof detected",
               "connection reset", "connection is bad", "the database system is shutting down",
               "the database system is starting up")


def postgres_cause(config: "StoreConfig", e: BaseException) -> tuple[str, str] | None:
    """``failure_cause`` of a PostgreSQL store, read from ``e`` and the errors it was raised from
    (eventsourcing's errors wrap psycopg's, which carry the SQLSTATE)."""
    chain: list[BaseException] = []
    while e is not None and all(e is not seen for seen in chain):
        chain.append(e)
        e = e.__cause__ or e.__context__
    states = {str(getattr(x, "sqlstate", None) or "") for x in chain} - {""}
    text = " ".join(str(x) for x in chain).lower()
    env, first = config.env, _first_line(chain[0])
    if "42501" in states or "permission denied" in text:
        return "refused", (f"the role {env['POSTGRES_USER']} may not do that ({first}): docs/deployment.md lists the "
                           f"grants of an importer and a reader")
    if "25006" in states or "read-only transaction" in text:
        return "refused", (f"the role {env['POSTGRES_USER']} may not write {config.label}: its sessions are read-only "
                           f"({first}: default_transaction_read_only, or a standby server)")
    if "57014" in states and "statement timeout" in text or "canceling statement due to statement timeout" in text:
        return "timeout", (f"the PostgreSQL server canceled a statement that ran longer than the statement_timeout of "
                           f"the role {env['POSTGRES_USER']} ({first}): raise it for the role (ALTER ROLE ... SET "
                           f"statement_timeout, or in PGOPTIONS), or unset it")
    if "55P03" in states or "lock timeout" in text:
        return "locked", (f"another session held the table lock of {config.label} longer than lock_timeout allows "
                          f"({first}): another zx import or zx prepare, or a session that locked the table; wait for "
                          f"it to finish")
    if any(s.startswith("08") or s in _LOST_STATES for s in states) or any(w in text for w in _LOST_WORDS):
        return "unreachable", (f"the PostgreSQL server at {env['POSTGRES_HOST']}:{env['POSTGRES_PORT']} could not be "
                               f"reached, or dropped the connection ({first}): check that it runs and that this "
                               f"machine reaches it")
    return None


def locked_by_another(config: "StoreConfig", wait: float = 3.0) -> bool:
    """Whether another process holds the write lock of a SQLite store and kept it for ``wait`` seconds (a
    connection of its own waits for it, then lets it go): ``zx import`` then says it waits, where it waited
    its 30 s without a word."""
    if config.kind != "sqlite" or config.read_only or config.path is None or not config.path.exists():
        return False
    try:
        con = sqlite3.connect(config.path, timeout=wait, isolation_level=None)
    except sqlite3.Error:
        return False  # the import reports it
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as e:
        return "locked" in str(e) or "busy" in str(e)
    except sqlite3.Error:
        return False
    finally:
        con.close()


def ensure_wal(path: Path, timeout: float) -> None:
    """Put the SQLite file ``path`` in WAL mode, as eventsourcing would on its first connection, but
    waiting while another process does the same (a store made by ``zx import`` is in WAL already).

    ``PRAGMA journal_mode=WAL`` needs an exclusive lock that SQLite does not wait for: when several
    ``zx import`` start together on a new store, eventsourcing's own pragma failed now and then with
    "database is locked" (3 of 180 starts of 6 processes here). WAL is written in the file's header
    (bytes 18-19 are 2), so a store already in WAL is only read 20 bytes of here, not opened.
    """
    try:
        with open(path, "rb") as f:
            if f.read(20)[18:20] == b"\x02\x02":
                return
    except OSError:
        pass  # not there yet: sqlite3 creates it below
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            con = sqlite3.connect(path, timeout=timeout)
            try:
                con.execute("PRAGMA journal_mode=WAL").fetchone()
                return
            finally:
                con.close()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or time.monotonic() > deadline:
                raise StoreError(f"cannot open the store {path}: {_cannot_make(Path(path), e)}") from None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def parse_store(store: str | None = None) -> StoreConfig:
    """Where ``store`` (else ``ZX_STORE``, else the default file) points, without touching it."""
    url = store or os.environ.get("ZX_STORE") or DEFAULT_STORE
    if url in ("memory:", ":memory:"):
        return StoreConfig(url, "memory", {"PERSISTENCE_MODULE": "eventsourcing.popo", "MAPPER_TOPIC": MAPPER_TOPIC})
    if url.startswith(("postgresql://", "postgres://")):
        return StoreConfig(url, "postgres", postgres_env(url))
    if url.startswith("sqlite://") and not url.startswith("sqlite:///"):
        url = url.removeprefix("sqlite://")
    elif (":" in url or "@" in url) and (_re(_SCHEME).match(url) or _re(_POSTGRES_TYPO).match(url)):  # (each needs
        # one of them: a plain path compiles neither)
        scheme = re.split(r"[:/]", url, maxsplit=1)[0]
        hint = ("; for an absolute path give the path itself" if url.startswith("sqlite:///") else
                "; PostgreSQL URLs start with postgresql:// (two slashes)"
                if scheme.lower() in ("postgresql", "postgres")
                else "")
        raise StoreError(f"unknown store {_redact(url)!r} (scheme {scheme}:){hint}. A store is {ACCEPTED}; "
                         f"a file whose name contains a colon: write it as ./NAME")
    try:
        path = Path(url).expanduser()
    except RuntimeError:  # ~name of no user on this machine: "Could not determine home directory" (an internal error)
        raise StoreError(f"cannot read the store path {url!r}: {url.split('/')[0]} names no user of this machine "
                         f"(a path starting with ~ is a home folder: write ./{url} for a folder named so)") from None
    return StoreConfig(str(path), "sqlite", {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(path),
        "SQLITE_LOCK_TIMEOUT": "30",
        "CREATE_TABLE": "y",
        "MAPPER_TOPIC": MAPPER_TOPIC,
    })


def our_topics() -> tuple[str, ...]:
    """The topic prefixes of this package's events: every registered game's, and the package's own."""
    from zx_events.games import TOPIC_PREFIXES

    return tuple(f"{prefix}:" for prefix in TOPIC_PREFIXES) + OUR_TOPICS


def check_sqlite(path: Path, uri: str | None = None, *, create: bool = True) -> None:
    """``path`` is a SQLite event store of this package (or, with ``create``, an empty file or a database
    without the events table: a new store), else a ``StoreError``.

    Opened by ``connect_read`` (``uri``: how; default ``ReadConnections``' URI), so a damaged file or another
    application's database is reported and never written, nor left with a -wal or -shm file beside it: not
    a database, tables that are not ours, or events of another application. A file SQLite cannot open or
    read (its permissions, a WAL store in a folder a writer cannot write) is said to be that, never damaged.
    Without ``create`` (a read command) an empty file, or a database without the events table, is no store.
    """
    import sqlite3

    if path.is_dir():
        raise StoreError(f"the store {path} is a folder: give a SQLite file (for example {path / DEFAULT_STORE})")
    if path.stat().st_size == 0:
        if create:
            return  # an empty file: a new store
        raise StoreError(f"there is no store at {path} (an empty file): zx import creates one in it "
                         f"(nothing was changed)")
    try:
        con = connect_read(uri or f"{path.resolve().as_uri()}?mode=rw")
    except sqlite3.Error as e:
        raise StoreError(f"cannot open the store {path}: {_cannot_open(path, e)}; nothing was changed") from None
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        foreign = sorted(t for t in tables - OUR_TABLES if not t.startswith("sqlite_"))
        if foreign:
            raise StoreError(f"{path} is not a zx-events store: it holds tables of another application "
                             f"({', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''}); nothing was changed. "
                             f"Give another --store")
        if "stored_events" in tables:
            row = con.execute("SELECT topic FROM stored_events LIMIT 1").fetchone()
            if row is not None and not str(row[0]).startswith(our_topics()):
                raise StoreError(f"{path} is not a zx-events store: it holds the events of another application "
                                 f"(topic {str(row[0])[:60]!r}); nothing was changed. Give another --store")
        elif not create and con.execute("SELECT 1 FROM sqlite_master WHERE name = 'stored_events'").fetchone() is None:
            raise StoreError(f"there is no store at {path} (a SQLite database without the events table): zx import "
                             f"creates one in it (nothing was changed)")
    except sqlite3.OperationalError as e:  # cannot open, lock or read it: not damage (a damaged file is a DatabaseError)
        raise StoreError(f"cannot open the store {path}: {_cannot_open(path, e)}; nothing was changed") from None
    except sqlite3.DatabaseError as e:
        raise StoreError(f"the store {path} is damaged or not a SQLite database ({e}); nothing was changed. "
                         f"Restore it from a backup, or give another --store") from None
    finally:
        con.close()


SQLITE_PATH_MAX = 512  # bytes of a file's full path SQLite opens (its unix VFS's MAX_PATHNAME)


def _cannot_make(path: Path, e: Exception) -> str:
    """Why SQLite could not open (or make) the store ``path``: a folder or file this user may not write, a path
    longer than SQLite takes, or a name whose -wal and -journal files would be too long; else its own words
    ("unable to open database file" said none of these)."""
    why = unwritable(path)
    if why:
        return f"{why} ({e}): make it writable, or give another --store"
    full = len(os.fsencode(os.path.abspath(path)))
    if full + len("-journal") > SQLITE_PATH_MAX:
        return (f"its full path is {full} bytes, and SQLite opens at most {SQLITE_PATH_MAX} with its -journal and "
                f"-wal names ({e}): give a shorter --store")
    if len(os.fsencode(path.name)) + len("-journal") > 255:
        return (f"its name is {len(os.fsencode(path.name))} bytes, and its -journal and -wal files would pass the file "
                f"system's 255 ({e}): give a shorter name")
    return str(e)


def _cannot_open(path: Path, e: Exception) -> str:
    """Why SQLite could not open the store ``path`` (its error ``e``), and what to do."""
    if not os.access(path, os.R_OK):
        return f"the store file is not readable by this user ({e}): check its permissions"
    why = unwritable(path)
    return f"{why} ({e}): make it writable, or give another --store" if why else str(e)


def postgres_env(url: str) -> dict[str, str]:
    """The ``eventsourcing.postgres`` environment for a ``postgresql://`` URL.

    Missing parts come from the libpq variables (PGUSER, PGPASSWORD, PGHOST, PGPORT, PGDATABASE),
    then from the defaults postgres@127.0.0.1:5432/postgres. The schema is ``?schema=`` or
    POSTGRES_SCHEMA or public. Tuning keys not given in the URL or the environment get
    ``PG_DEFAULTS``.
    """
    try:
        u = urlparse(url)
    except ValueError as e:  # an unbalanced [ or ] ("Invalid IPv6 URL"), a host that is no address in [ ]
        raise StoreError(f"bad store URL {_redact(url)!r}: {e} (a [ without its ], or the reverse: an IPv6 host "
                         f"is written [::1]). A store is {ACCEPTED}") from None
    params = parse_qsl(u.query, keep_blank_values=True)
    if "@" in u.path or u.fragment or any("@" in name for name, _ in params):
        # an unencoded / ? or # in the password cut the host part short there: the rest of the password
        # became the database name (shown in every message), a parameter's name or a fragment. Checked before
        # the port: the password's start then stands where the port goes ("bad port" for zx:Sec/ret@host)
        raise StoreError(f"bad store URL {_redact(url)!r}: an @ after the host, or a # in it: a password that holds "
                         f"/ ? # or @ must be percent-encoded (%2F %3F %23 %40). A store is {ACCEPTED}")
    try:
        port = u.port
    except ValueError:
        raise StoreError(f"bad port in the store URL {_redact(url)}") from None
    params = dict(params)
    unknown = sorted(set(params) - set(PG_PARAMS) - set(PG_TLS) - set(PG_NET))
    if unknown:
        secret = [name for name in unknown if name.split("=", 1)[0].strip().lower() == "password"]
        hint = ("; a password goes before the host (postgresql://USER:PASSWORD@HOST/DB), or in PGPASSWORD or "
                "~/.pgpass" if secret else "")
        shown = [f"{name.split('=', 1)[0]}=***" if "=" in name and _secret_name(name) else name for name in unknown]
        raise StoreError(f"unknown parameter {', '.join(shown)} in the "
                         f"store URL {_redact(url)}{hint}; known: {', '.join([*PG_PARAMS, *PG_TLS, *PG_NET])}")
    tls = {PG_TLS[k]: params.pop(k) for k in list(params) if k in PG_TLS}
    net = {PG_NET[k]: params.pop(k) for k in list(params) if k in PG_NET}
    for key, value in net.items():
        net[key] = _url_number(key.removeprefix("ZX_PG_").lower(), value, url)
    if tls.get(PG_TLS["sslmode"], "require") not in SSLMODES:
        raise StoreError(f"sslmode must be one of {', '.join(SSLMODES)}, not {tls[PG_TLS['sslmode']]!r}, in the store "
                         f"URL {_redact(url)}")
    env = {
        "PERSISTENCE_MODULE": FACTORY_TOPIC,
        "POSTGRES_DBNAME": unquote(u.path.lstrip("/")) or os.environ.get("PGDATABASE") or "postgres",
        "POSTGRES_HOST": u.hostname or os.environ.get("PGHOST") or "127.0.0.1",
        "POSTGRES_PORT": str(port or os.environ.get("PGPORT") or 5432),
        "POSTGRES_USER": unquote(u.username or "") or os.environ.get("PGUSER") or "postgres",
        "POSTGRES_PASSWORD": unquote(u.password or "") or os.environ.get("PGPASSWORD", ""),
        "POSTGRES_SCHEMA": os.environ.get("POSTGRES_SCHEMA") or "public",
        "CREATE_TABLE": "y",
        "APPLICATION_RECORDER_TOPIC": RECORDER_TOPIC,
        "MAPPER_TOPIC": MAPPER_TOPIC,
    }
    for key, value in PG_DEFAULTS.items():
        if key not in os.environ:
            env[key] = value
    for name, value in params.items():
        env[PG_PARAMS[name]] = value if name == "schema" else _url_number(name, value, url)
    for name, key in PG_PARAMS.items():  # the same settings given in the environment (eventsourcing reads them)
        if name != "schema" and name not in params and os.environ.get(key, "").strip():
            env[key] = _url_number(name, os.environ[key].strip(), url, f"in the environment ({key})")
    pool = [env.get(PG_PARAMS[n]) or os.environ.get(PG_PARAMS[n], "").strip() for n in ("pool_size", "max_overflow")]
    if pool == ["0", "0"]:
        raise StoreError(f"pool_size and max_overflow cannot both be 0 (no connection could ever be opened), in the "
                         f"store URL {_redact(url)} or the environment")
    env.update(tls)
    env.update({PG_NET[name]: value for name, value in PG_NET_DEFAULTS.items()}, **net)
    schema = env["POSTGRES_SCHEMA"]
    if _re(SCHEMA_NAME).fullmatch(schema.lower()) and not _re(SCHEMA_NAME).fullmatch(schema):
        raise StoreError(f"bad schema name {schema!r}: it has capitals, which PostgreSQL folds to lower case where "
                         f"eventsourcing finds its tables' type under the name as written (every import failed); "
                         f"use lower case ({schema.lower()}); nothing was created")
    if not _re(SCHEMA_NAME).fullmatch(schema):
        raise StoreError(f"bad schema name {schema!r}: use 1-63 lower-case letters, digits and _, "
                         f"not starting with a digit")
    return env


# the password of a URL: what follows "scheme:" (with any number of slashes: postgresql://, and the typos
# postgresql:/, postgresql: and postgresql//) and "user:", up to the last "@" (a password may hold an unencoded
# "#", "?", "/" or "@", where urlparse cuts the netloc short and left it in the message)
_PASSWORD = r"(?is)^((?:postgres(?:ql)?/+|[a-z][a-z0-9+.-]*+:[:/]*)[^:/@?#]*:)(.*)@"
# the typo postgresql//USER:PASSWORD@HOST (no colon): refused as a store, not read as a file path
_POSTGRES_TYPO = r"(?i)^postgres(?:ql)?/+[^/]*@"
# a query parameter, whole: libpq's ?password= and ?sslpassword= are secrets whatever the name's case or
# percent-encoding (password%3DX: parse_qsl reads it as a parameter named "password=X")
_PARAM = r"(?<=[?&;])[^&;#]*"
_NAME_VALUE = r"(?is)(.*?)(?:=|%3d)(.*)"


def _secret_name(name: str) -> bool:
    return any(word in unquote(name).lower() for word in ("password", "passwd"))


def _param_name(raw: str) -> str:
    """The name of a query parameter ``raw`` (``name=value``, ``name%3Dvalue``), percent-decoded, lower case."""
    m = _re(_NAME_VALUE).fullmatch(raw)
    return unquote(m.group(1) if m else raw).lower()


def _param_secret(raw: str) -> tuple[str, str] | None:
    """(name, value) of a query parameter ``raw`` that holds a password, else None."""
    m = _re(_NAME_VALUE).fullmatch(raw)
    name, value = (m.group(1), m.group(2)) if m else (raw, "")
    return (name, value) if _secret_name(name) else None


def _redact(url: str) -> str:
    """``url`` (a store as given) with its password, wherever it was typed, as ``***``."""
    m = _re(_PASSWORD).match(url)
    if m is not None:
        url = m.group(1) + "***" + url[m.end() - 1:]
    return _re(_PARAM).sub(lambda q: f"{secret[0]}=***" if (secret := _param_secret(q[0])) else q[0], url)


def without_password(url: str) -> str:
    """``url`` (a store as given) with no password: none typed after its user, no ``password=`` parameter. The
    store of a command a message advises, to be pasted and run: ``***`` (``_redact``) was then taken as the
    password (QA round 34); without one, libpq asks ``PGPASSWORD`` or ``~/.pgpass``, or the server lets it in."""
    url = _without_user_password(url)
    base, asked, query = url.partition("?")
    if not asked:
        return url
    kept = [part for part in _re(r"[&;]").split(query) if part and not _param_secret(part)]
    return base + ("?" + "&".join(kept) if kept else "")


def _without_user_password(url: str) -> str:
    """``url`` without the password typed after its user (``USER:PASSWORD@``)."""
    m = _re(_PASSWORD).match(url)
    return url if m is None else m.group(1)[:-1] + url[m.end() - 1:]


def for_visitors(url: str) -> str:
    """``url`` (a store as given) as a served page or a shared report names it: no password, and of its query
    parameters only ``schema`` (the store's own); the others set up the operator's connection (``sslrootcert``,
    ``sslkey`` and ``passfile`` paths, ``options``, timeouts) and are no visitor's business (QA round 37: a
    public 503 page advised `zx --store postgresql://...?sslrootcert=/etc/zx/ca.pem ...`)."""
    base, _, query = _without_user_password(url).partition("?")
    # (split as parse_store reads it, parse_qsl: on "&" alone, the last of a repeated name the one taken; "a;schema=s"
    # is a value of a, QA round 38)
    kept = [part for part in query.split("&") if _param_name(part) == "schema"][-1:]
    return base + ("?" + kept[0] if kept else "")


def _secrets(url: str) -> set[str]:
    """The password(s) in ``url``: as typed and percent-decoded."""
    m = _re(_PASSWORD).match(url)
    found = [m.group(2)] if m is not None else []
    found += [secret[1] for q in _re(_PARAM).finditer(url) if (secret := _param_secret(q[0]))]
    return {form for secret in found for form in (secret, unquote(secret), unquote_plus(secret))}


def cannot_open_text(config: "StoreConfig", e: BaseException, url: str | None = None) -> str:
    """Why the store of ``config`` could not be opened, in words: which store, without its password, and,
    for a PostgreSQL store, the cause (a privilege, a timeout, a lost server: ``postgres_cause``)."""
    cause = postgres_cause(config, e) if config.kind == "postgres" else None
    return redacted(f"cannot open the store {config.label}: {cause[1] if cause else _first_line(e)}", url)


def redacted(text: str, url: str | None) -> str:
    """``text`` (a message) with the store ``url`` and its password, wherever they appear, hidden."""
    if not url:
        return text
    text = text.replace(url, _redact(url))
    for secret in sorted(_secrets(url), key=len, reverse=True):
        if len(secret) >= 3:  # (a one-character password would blank the whole message)
            text = text.replace(secret, "***")
    return text


def connect_postgres(env: dict[str, str], *, autocommit: bool = True):
    """A plain psycopg connection to the server of a postgres store environment."""
    import psycopg

    kwargs = {"host": env["POSTGRES_HOST"], "port": env["POSTGRES_PORT"], "dbname": env["POSTGRES_DBNAME"],
              "user": env["POSTGRES_USER"], "connect_timeout": int(env.get("POSTGRES_CONNECT_TIMEOUT", "10")),
              "autocommit": autocommit}
    if env.get("POSTGRES_PASSWORD"):
        kwargs["password"] = env["POSTGRES_PASSWORD"]
    return psycopg.connect(**kwargs, **connection_arguments(env))


def tls_arguments(env: Any) -> dict[str, str]:
    """The URL's TLS parameters (``PG_TLS``) of a store environment, as psycopg's connection arguments."""
    return {name: value for name, key in PG_TLS.items() if (value := env.get(key))}


def connection_arguments(env: Any) -> dict[str, str]:
    """What every connection of a store environment takes beside host, port, user, password and database:
    the TLS parameters (``tls_arguments``), and the keepalives and TCP user timeout (``PG_NET``) on the
    client (libpq's ``keepalives*``, ``tcp_user_timeout``) and on the server (the session's
    ``tcp_keepalives_*`` and ``tcp_user_timeout``, in ``options``, before ``PGOPTIONS``, which an
    ``options`` argument would otherwise replace, so that ``PGOPTIONS`` still applies and may override them)."""
    net = {name: env.get(key) or PG_NET_DEFAULTS[name] for name, key in PG_NET.items()}
    server = " ".join(f"-c {'tcp_' + name if name.startswith('keepalives') else name}={value}"
                      for name, value in net.items())
    given = os.environ.get("PGOPTIONS", "").strip()
    return {**tls_arguments(env), "keepalives": "1", **net, "options": f"{server} {given}".strip()}


def lock_wait_note(config: StoreConfig, pid: int) -> str:
    """What ``zx import`` says when its backend ``pid`` has waited ``LOCK_WAIT_NOTE`` seconds for the events
    table's lock of the PostgreSQL store ``config``: which sessions hold it (from ``pg_blocking_pids``, as far
    as this role may see them), how long it waits, and that Ctrl-C stops it."""
    rows: list = []
    try:
        with connect_postgres(config.env) as conn:
            rows = conn.execute("SELECT pid, application_name, client_addr FROM pg_stat_activity "
                                "WHERE pid = ANY(pg_blocking_pids(%s)) ORDER BY pid", (pid,)).fetchall()
    except Exception:  # (a note: without the holders when they cannot be read)
        pass
    named = ", ".join(f"{p} ({app or 'no application name'}{f' from {addr}' if addr else ''})" for p, app, addr in rows)
    who = f"PostgreSQL session{'s' if len(rows) > 1 else ''} {named}" if rows else "another session"
    wait = config.env.get("POSTGRES_LOCK_TIMEOUT", PG_DEFAULTS["POSTGRES_LOCK_TIMEOUT"])
    return (f"note: waiting for the table lock of {config.label}, which {who} holds (another zx import or zx "
            f"prepare, or a session that locked the table): up to lock_timeout={wait} s a try, 10 tries; Ctrl-C "
            f"stops the import (the matches stored before stay)")


def prepare_postgres(config: StoreConfig, create: bool = True) -> None:
    """Check the server answers and the role may use the store's schema; create the schema if it does
    not exist yet (``create``), else say there is no store there. A role that may not use the schema
    (USAGE), or may not create the store's tables in it or the schema itself (CREATE), is told which
    grant it lacks, before anything is created (a read command said "cannot create schema", an import
    "cannot open the store ...: permission denied for schema public")."""
    import psycopg
    from psycopg import sql

    env, schema = config.env, config.env["POSTGRES_SCHEMA"]
    where = f"{env['POSTGRES_HOST']}:{env['POSTGRES_PORT']}"
    writer = not create and READER not in env  # zx prepare, zx verify --seal: an existing store written
    role = env["POSTGRES_USER"]
    done = "nothing was created" if create else "nothing was written" if writer else "nothing was read"
    try:
        conn = connect_postgres(env)
    except psycopg.Error as e:
        raise StoreError(f"cannot connect to PostgreSQL at {where}: {_first_line(e)}") from None
    try:
        with conn:
            exists = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() is not None
            if exists and not conn.execute("SELECT has_schema_privilege(%s, 'USAGE')", (schema,)).fetchone()[0]:
                needs = ("USAGE on it, and CREATE on it for a new store" if create else
                         "what the command writes: " + "; ".join(f"for {command} {grants}" for command, grants
                                                                 in WRITER_GRANTS.items()) if writer else
                         "USAGE on it and SELECT on its tables")
                raise SchemaRefused(f"the role {role} may not use schema {schema} of {config.label}: grant it ", needs,
                                    f" (docs/deployment.md, \"Setting up the server\"); {done}")
            table = f'"{schema}".matches_events'
            if not create:
                if conn.execute("SELECT to_regclass(%s) IS NULL", (table,)).fetchone()[0]:
                    raise StoreError(f"there is no store at {config.label}: zx import creates one "
                                     f"(nothing was created)")
                return
            if exists:
                if conn.execute("SELECT to_regclass(%s) IS NULL AND NOT has_schema_privilege(%s, 'CREATE')",
                                (table, schema)).fetchone()[0]:
                    raise StoreError(f"the role {role} may not create the store's tables in schema {schema} of "
                                     f"{config.label}: grant it CREATE on the schema (docs/deployment.md, "
                                     f"\"Setting up the server\"); {done}")
                return
            try:
                conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
                env[SCHEMA_MADE] = "1"
            except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateSchema):
                pass  # another importer created it between our check and our CREATE
            except psycopg.errors.InsufficientPrivilege as e:
                raise StoreError(f"the role {role} may not create schema {schema} in {config.label} "
                                 f"({_first_line(e)}): grant it CREATE on the database, or create the schema and "
                                 f"grant it USAGE and CREATE on it (docs/deployment.md, \"Setting up the server\"); "
                                 f"{done}") from None
    except psycopg.Error as e:
        what = f"cannot create schema {schema}" if create else f"cannot read schema {schema}"
        found = postgres_cause(config, e)  # a statement timeout, a lost server: in words, with what to do
        raise StoreError(f"{what} in PostgreSQL at {where}/{env['POSTGRES_DBNAME']}: "
                         f"{found[1] if found else _first_line(e)}") from None


def in_use_key(config: StoreConfig) -> int:
    """The PostgreSQL advisory lock key of "this store is open" (``hold_in_use``, ``newstore._drop_schema``)."""
    import hashlib  # (a PostgreSQL store's: not loaded by a SQLite store's command)

    name = f'zx store in use "{config.env["POSTGRES_SCHEMA"]}"'
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


def hold_in_use(config: StoreConfig) -> Any:
    """For a PostgreSQL store: a connection of its own that holds the store's "open" lock (a shared advisory
    lock, ``in_use_key``) until it is closed, or None (another kind of store, or no connection). Held while
    an importer has the store open (``MatchService`` with ``create``): ``zx import``'s removal of an empty schema it created
    (``newstore``) takes the lock exclusively, so it never drops a schema another process has open; a
    process that takes it during the drop waits for the drop (``schema_held``: then it opens the store again)."""
    if config.kind != "postgres":
        return None
    import psycopg

    conn = None
    try:
        conn = connect_postgres(config.env)
        conn.execute("SELECT pg_advisory_lock_shared(%s)", (in_use_key(config),))
        return conn
    except psycopg.Error:
        if conn is not None:
            conn.close()
        return None


def schema_held(config: StoreConfig, conn: Any) -> bool:
    """Whether the store's schema is (still) there, asked on ``hold_in_use``'s connection once it holds the
    lock: a ``zx import`` may have dropped it between the store's opening and the lock (the store is then
    opened again, under the lock)."""
    try:
        return conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s",
                            (config.env["POSTGRES_SCHEMA"],)).fetchone() is not None
    except Exception:  # (a lost connection: opening the store says so)
        return True


def drop_made_schema(config: StoreConfig) -> None:
    """After a store that ``prepare_postgres`` created the schema of could not be opened (its tables not made:
    a statement timeout, a lost server): drop that schema again if it is still empty (``RESTRICT``: never
    anything another session has put in it since), so that the failed command leaves nothing behind. Quiet:
    the error that made the store fail is the one to report."""
    if config.kind != "postgres" or not config.env.pop(SCHEMA_MADE, None):
        return
    import psycopg
    from psycopg import sql

    try:
        with connect_postgres(config.env) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} RESTRICT").format(sql.Identifier(config.env["POSTGRES_SCHEMA"])))
    except psycopg.Error:
        pass  # not empty (another importer's tables), or the server gone: it stays, as before


def write_refusal(config: StoreConfig, command: str = "import", *, repair: bool = False) -> str | None:
    """Why this process may not write the store for ``command`` (``import``, ``prepare``, ``seal``: the first
    ``zx verify --seal`` of a store, which writes into the events table as an import does), or None.

    PostgreSQL, every privilege docs/deployment.md lists, checked before any work (an import without
    INSERT or UPDATE failed after two seconds of retries with "pipeline aborted ... run the import again",
    the cause only in the server's log; without USAGE on the sequence, or in a read-only session, it said
    "run the import again", which could never succeed): a session that is read-only
    (``default_transaction_read_only``, a standby); for ``import``, SELECT, INSERT and UPDATE (for LOCK
    TABLE ... IN EXCLUSIVE MODE) on the events table and USAGE on its notification_id sequence; for
    ``prepare``, SELECT and INSERT on the snapshots table (DELETE with ``repair``), or CREATE on the
    schema when it has none yet. SQLite, for ``import``: the file or folder is not writable
    (``unwritable``: the import said "run the import again")."""
    done = {"import": "nothing was imported", "seal": "nothing was sealed",
            "prepare": "nothing was written (seeks still work, replaying from the first event)"}[command]
    if config.kind == "sqlite":  # (zx prepare says it of a SQLite store itself, with how far it got)
        why = unwritable(config.path) if config.path is not None and command in ("import", "seal") else None
        verb = "import into" if command == "import" else "seal"
        return f"cannot {verb} {config.label}: {why}; {done}" if why else None
    if config.kind != "postgres":
        return None
    import psycopg

    try:
        with connect_postgres(config.env) as conn:
            return _postgres_refusal(conn, config, command, repair, done)
    except psycopg.Error as e:  # (the server gone since the store was opened: not an internal error)
        found = postgres_cause(config, e)
        raise StoreError(f"cannot check the privileges of the role on {config.label}: "
                         f"{found[1] if found else _first_line(e)}; {done}") from None


def _postgres_refusal(conn: Any, config: StoreConfig, command: str, repair: bool, done: str) -> str | None:
    """``write_refusal`` of a PostgreSQL store, on the connection ``conn``."""
    schema = config.env["POSTGRES_SCHEMA"]
    events = f'"{schema}".matches_events'
    snapshots = f'"{schema}".{snapshots_table("matches_events")}'
    user, read_only, standby = conn.execute(
        "SELECT current_user, current_setting('transaction_read_only') = 'on', pg_is_in_recovery()").fetchone()
    if read_only:
        why = ("the server is a standby (in recovery), which takes no writes" if standby else
               "its sessions are read-only (default_transaction_read_only is on for the role or its database)")
        return f"the role {user} may not write {config.label}: {why}; {done}"
    lacks = []
    if command in ("import", "seal"):  # (the seal's first entries go into the events table, as an import's)
        if conn.execute("SELECT to_regclass(%s) IS NULL", (events,)).fetchone()[0]:
            return None  # (the service creates it: a role that may not says so when it opens the store)
        select, insert, update, sequence = conn.execute(
            "SELECT has_table_privilege(to_regclass(%s), 'SELECT'), has_table_privilege(to_regclass(%s), 'INSERT'), "
            "has_table_privilege(to_regclass(%s), 'UPDATE, DELETE, TRUNCATE'), "
            "pg_get_serial_sequence(%s, 'notification_id')", (events, events, events, events)).fetchone()
        usage = sequence is None or conn.execute("SELECT has_sequence_privilege(%s, 'USAGE, UPDATE')",
                                                 (sequence,)).fetchone()[0]
        lacks += [f"INSERT on {events}"] if not insert else []
        lacks += [f"SELECT on {events}"] if not select else []
        lacks += [f"UPDATE on {events} (for LOCK TABLE ... IN EXCLUSIVE MODE)"] if not update else []
        lacks += [f"USAGE on the sequence {sequence}"] if not usage else []
        who = "an importer" if command == "import" else "an importer, which zx verify --seal needs"
    else:
        if not conn.execute("SELECT has_table_privilege(to_regclass(%s), 'SELECT')", (events,)).fetchone()[0]:
            lacks.append(f"SELECT on {events} (the events it replays)")
        if conn.execute("SELECT to_regclass(%s) IS NULL", (snapshots,)).fetchone()[0]:
            if not conn.execute("SELECT has_schema_privilege(%s, 'CREATE')", (schema,)).fetchone()[0]:
                lacks.append(f"CREATE on the schema {schema} (to make the table {snapshots}, which is missing)")
        else:
            wanted = ["SELECT", "INSERT", *(["DELETE"] if repair else [])]
            for p in wanted:
                if not conn.execute("SELECT has_table_privilege(to_regclass(%s), %s)", (snapshots, p)).fetchone()[0]:
                    lacks.append(f"{p} on {snapshots}" + (" (for --repair)" if p == "DELETE" else ""))
        who = "zx prepare"
    if lacks:
        return (f"the role {user} may not write {config.label}: it lacks {', '.join(lacks)} (docs/deployment.md "
                f"lists the grants of {who}); {done}")
    return None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # psycopg repeats "connection to server at ... failed:" per address; keep the distinct reasons
    reasons = []
    for ln in lines:
        ln = re.sub(r'^(connection failed: )?(connection to server at "[^"]*"( \([^)]*\))?, port \d+ failed: )?'
                    r'(FATAL: +)?', "", ln)
        if ln not in reasons:
            reasons.append(ln)
    return "; ".join(reasons) or type(e).__name__


def snapshots_table(events_table: str) -> str:
    """The snapshots table beside a PostgreSQL events table (eventsourcing's naming: matches_events,
    matches_snapshots)."""
    return events_table.removesuffix("_events") + "_snapshots"


# After how many seconds of waiting for the events table's lock an importer says so (its ``on_lock_wait``), as
# zx import does for SQLite's write lock
LOCK_WAIT_NOTE = 3.0


def _make_recorder_class():
    from eventsourcing.persistence import InterfaceError, OperationalError
    from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder
    from eventsourcing.utils import retry

    class PostgresMatchRecorder(PostgresApplicationRecorder):
        """eventsourcing's recorder, with table creation made safe for many processes at once.

        The stock ``create_table`` runs ``CREATE TYPE``, ``CREATE TABLE IF NOT EXISTS`` and
        ``CREATE OR REPLACE FUNCTION`` unguarded: two importers starting together on an empty
        database fail with a duplicate-key or "tuple concurrently updated" error. Here the DDL runs
        under a PostgreSQL advisory lock, and only when a table is missing. The snapshots table
        (``matches_snapshots``, opened later by zx_events.replay with the stock recorder) is
        created at the same time, so that later ``CREATE TABLE IF NOT EXISTS`` finds it.

        Events are inserted without psycopg's pipeline mode (``insert_events``), and an importer that waits
        for the table lock longer than ``LOCK_WAIT_NOTE`` is told through ``on_lock_wait``.
        """

        # called (from a timer thread) with the PostgreSQL backend pid of the connection when an insert has waited
        # LOCK_WAIT_NOTE seconds for the table lock, over its tries; once per insert_events call (zx import: a line
        # on stderr, for its first batch that waits only)
        on_lock_wait: Any = None

        def insert_events(self, stored_events: Any, **kwargs: Any) -> Any:
            """eventsourcing's insert (lock the table, NOTIFY, INSERT ... RETURNING, in one transaction, tried
            again on a lost connection or a lock timeout), as plain statements instead of one psycopg pipeline.

            In pipeline mode psycopg 3 (3.3.9 here, the newest) stops sending once its queue of commands is
            empty even when libpq still holds unsent bytes of the last one, then waits for results: a batch of
            some megabytes over TLS (zx import's 64 matches, ~12,000 events) left the rest of its INSERT in the
            client's buffer, the server waited for it and the client for the server, for ever, with the table
            lock held (psycopg issue #685 is the same kind of deadlock). A plain ``execute`` sends all before it
            waits: four round trips instead of one, some milliseconds per batch."""
            if self.datastore.enable_db_functions or not stored_events:
                return super().insert_events(stored_events, **kwargs)
            state: dict[str, Any] = {"pid": None, "locked": False}
            hook, note = self.on_lock_wait, None
            if hook is not None:
                def waited() -> None:
                    if state["pid"] is not None and not state["locked"]:
                        hook(state["pid"])

                note = threading.Timer(LOCK_WAIT_NOTE, waited)
                note.daemon = True
                note.start()
            try:
                return self._insert_plain(stored_events, state, **kwargs)
            finally:
                if note is not None:
                    note.cancel()

        @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
        def _insert_plain(self, stored_events: Any, state: dict[str, Any], **kwargs: Any) -> Any:
            with self.datastore.get_connection() as conn, conn.transaction(), conn.cursor() as curs:
                state["pid"], state["locked"] = conn.info.backend_pid, False
                self._insert_events(curs, stored_events, **kwargs)
                self._lock_table(curs)
                state["locked"] = True
                self._notify_channel(curs)
                PostgresAggregateRecorder._insert_stored_events(self, curs, stored_events, **kwargs)
                return self._fetch_ids_after_insert_events(curs, stored_events, **kwargs)

        @property
        def ddl_lock(self) -> int:
            """The advisory lock the store's tables (``create_table``) and indexes (``MatchService.index_summaries``)
            are made under."""
            import hashlib

            table = f'"{self.datastore.schema}"."{self.events_table_name}"'
            return int.from_bytes(hashlib.blake2b(table.encode(), digest_size=8).digest(), "big", signed=True)

        def create_table(self) -> None:
            import psycopg

            ds = self.datastore
            snapshots = PostgresAggregateRecorder(
                ds, events_table_name=snapshots_table(self.events_table_name))
            tables = [f'"{ds.schema}"."{t}"' for t in (self.events_table_name, snapshots.events_table_name)]
            statements = [*self.sql_create_statements, *snapshots.sql_create_statements]
            key = self.ddl_lock
            with ds.get_connection() as conn:
                conn.execute("SELECT pg_advisory_lock(%s)", (key,))
                try:
                    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL AND to_regclass(%s) IS NOT NULL AS ok",
                                       tables).fetchone()
                    if not row["ok"]:
                        for statement in statements:
                            if "CREATE TYPE" in statement.as_string():
                                try:
                                    conn.execute(statement, prepare=False)
                                except psycopg.errors.DuplicateObject:
                                    pass  # both tables share the type; or left by an interrupted creation
                        with conn.transaction():
                            for statement in statements:
                                if "CREATE TYPE" not in statement.as_string():
                                    conn.execute(statement, prepare=False)
                finally:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            ds.register_type_adapters()

        # eventsourcing reads every payload with bytes(row["state"]): a row whose state someone set to NULL
        # made every reader of the store fail with "TypeError: cannot convert 'NoneType' object to bytes"
        def select_events(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().select_events(*args, **kwargs)
            except TypeError as e:
                raise self._null_payload(e) from None

        def select_notifications(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().select_notifications(*args, **kwargs)
            except TypeError as e:
                raise self._null_payload(e) from None

        def _null_payload(self, e: TypeError) -> Exception:
            if "NoneType" not in str(e):
                return e
            from zx_events.errors import DamagedMatch

            table = f'"{self.datastore.schema}"."{self.events_table_name}"'
            return DamagedMatch(f"an event row of {table} holds no payload (its state is NULL): the store was altered "
                                f"outside zx; SELECT originator_id, originator_version FROM {table} WHERE state IS NULL "
                                f"finds it")

    PostgresMatchRecorder.__module__ = __name__
    PostgresMatchRecorder.__qualname__ = "PostgresMatchRecorder"
    return PostgresMatchRecorder


# For how long after a wait for a pooled connection ran out (the pool's timeout: connect_timeout) another request
# for one fails at once while the pool has none idle, instead of waiting the whole timeout again
LOST_WINDOW = 5.0


def _fail_fast_once_lost(datastore: Any) -> None:
    """eventsourcing tries each read and write 10 times (``retry``, 0.2 s apart) on a lost connection, and each
    try waited the pool's whole timeout (connect_timeout, 10 s) for a connection a server that is gone never
    gives: a server lost under zx verify or zx import was reported ~82 s later, where docs/deployment.md says
    within about 15 s (QA). Here a request for a connection that comes within ``LOST_WINDOW`` s of one that
    waited the whole timeout, while the pool has no idle connection, fails at once with the same words
    ("couldn't get a connection", an ``OperationalError``: every caller reads it as before), so the tries
    after the first full wait take 0.2 s each: the error comes about connect_timeout + 2 s after the loss.
    A connection had clears it; after the window a request waits the whole timeout again (zx serve)."""
    from contextlib import contextmanager

    from eventsourcing.persistence import OperationalError
    from psycopg_pool import PoolTimeout

    stock = datastore.get_connection
    state: dict[str, float | None] = {"timed_out": None}

    @contextmanager
    def get_connection() -> Any:
        since = state["timed_out"]
        if since is not None and time.monotonic() - since < LOST_WINDOW \
                and not datastore.pool.get_stats().get("pool_available"):
            raise OperationalError(f"couldn't get a connection: a wait of {datastore.pool.timeout:g} s for one ran "
                                   f"out {time.monotonic() - since:.1f} s ago, and none has come since")
        acquired = False
        try:
            with stock() as conn:
                acquired, state["timed_out"] = True, None
                yield conn
        except OperationalError as e:
            if not acquired and isinstance(e.__cause__, PoolTimeout):
                state["timed_out"] = time.monotonic()
            raise

    datastore.get_connection = get_connection


def _make_factory_class():
    from eventsourcing.postgres import PostgresFactory

    class MatchPostgresFactory(PostgresFactory):
        """eventsourcing's factory, whose pooled connections (and so every read, write and LISTEN of the
        store) also take the store URL's TLS parameters (``PG_TLS``), keepalives and TCP user timeout
        (``PG_NET``, ``connection_arguments``), and the connect timeout (eventsourcing gives it only to the
        pool's wait: a server that accepted the connection and then stopped answering held a new one for
        psycopg's default of 130 s)."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            self.datastore.pool.kwargs.update(connection_arguments(self.env))
            self.datastore.pool.kwargs["connect_timeout"] = int(self.env.get("POSTGRES_CONNECT_TIMEOUT") or 10)
            _fail_fast_once_lost(self.datastore)

    MatchPostgresFactory.__module__ = __name__
    MatchPostgresFactory.__qualname__ = "MatchPostgresFactory"
    return MatchPostgresFactory


def connect_read(uri: str, **kwargs: Any) -> sqlite3.Connection:
    """A connection to a SQLite store's file that never writes it: by its URI (``ReadConnections.uri_of``:
    ``mode=rw``, which never creates a file, or ``immutable=1``), every statement refused but reads
    (``PRAGMA query_only``). Not ``mode=ro``: a read-only connection to a WAL store makes its -wal and
    -shm files and cannot remove them when it closes, so they stayed beside the store after every read
    command; a read-write connection removes them when it is the last to close, as a writer does (and
    is refused at the first write)."""
    con = sqlite3.connect(uri, uri=True, **kwargs)
    try:
        con.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        con.close()
        raise
    return con


def _make_reader_factory_class():
    from eventsourcing.persistence import InterfaceError
    from eventsourcing.sqlite import SQLiteConnection, SQLiteConnectionPool, SQLiteFactory

    class SQLiteReaderPool(SQLiteConnectionPool):
        """eventsourcing's pool of connections to a SQLite file, for a reader: each made by ``connect_read``,
        the file's journal mode left as it is (eventsourcing's pool switches a store in rollback-journal
        mode to WAL at its first connection, rewriting the file's header)."""

        def _create_connection(self) -> SQLiteConnection:
            try:
                c = connect_read(self.db_name, check_same_thread=False, isolation_level=None, cached_statements=True,
                                 timeout=self.lock_timeout or 5)
            except sqlite3.Error as e:
                raise InterfaceError(e) from e
            c.row_factory = sqlite3.Row
            return SQLiteConnection(sqlite_conn=c, max_age=self.max_age)

    class SQLiteReaderFactory(SQLiteFactory):
        """eventsourcing's SQLite factory for a read command (``resolve_store`` without ``write``): its
        connections never write the store's file, nor create it (``SQLiteReaderPool``); no table is made
        (``CREATE_TABLE`` is off)."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            ds = self.datastore
            name = ds.pool.db_name
            if not name.startswith("file:"):  # a path: its URI that never creates it (else already one)
                name = f"{Path(name).resolve().as_uri()}?mode=rw"
            stock = ds.pool
            stock.close()  # (it made no connection yet)
            ds.pool = SQLiteReaderPool(db_name=name, lock_timeout=stock.lock_timeout)

    for cls in (SQLiteReaderPool, SQLiteReaderFactory):
        cls.__module__ = __name__
    return SQLiteReaderFactory


_LAZY = {"PostgresMatchRecorder": _make_recorder_class, "MatchPostgresFactory": _make_factory_class,
         "SQLiteReaderFactory": _make_reader_factory_class}


def __getattr__(name: str):  # built on first use: psycopg loads only for PostgreSQL, eventsourcing.sqlite for SQLite
    if name in _LAZY:
        cls = _LAZY[name]()
        globals()[name] = cls
        return cls
    raise AttributeError(name)


class ReadConnections:
    """Each thread's own read-only connection to a SQLite store file (``connect_read``: the file can be
    neither written nor created through it; autocommit: each statement sees every committed write).
    A plain query on one costs a fraction of the recorder's transaction, ``StoredEvent`` and UUID a
    row. ``get()`` is None (read through the recorder) when there is no file to read this way: no
    ``uri``, or a file that cannot be opened read-only (a store in a read-only folder without its
    -shm file, a file deleted meanwhile), after which it stays None. ``close()`` closes every
    thread's connection; a closed one gives None."""

    def __init__(self, uri: str | None, probe: str) -> None:
        self.uri = uri
        self.probe = probe  # a statement that must run (e.g. the events table exists)
        self.local = threading.local()
        self.lock = threading.Lock()
        self.opened: list[sqlite3.Connection] = []

    @staticmethod
    def uri_of(config: "StoreConfig") -> str | None:
        """The URI of a SQLite store's file for ``connect_read`` (None: not a plain file path): ``mode=rw``,
        which never creates the file (``connect_read`` refuses every write)."""
        name = config.env.get("SQLITE_DBNAME") if config.kind == "sqlite" else None
        if config.read_only:
            return name  # already its read-only URI (resolve_store: immutable, in a read-only folder)
        if not name or name.startswith("file:") or name == ":memory:":
            return None
        return f"{Path(name).resolve().as_uri()}?mode=rw"

    def get(self) -> sqlite3.Connection | None:
        if self.uri is None:
            return None
        con = getattr(self.local, "con", None)
        if con is None:
            try:
                con = connect_read(self.uri, check_same_thread=False, isolation_level=None)
            except sqlite3.Error:
                self.uri = None
                return None
            try:
                con.execute(self.probe).fetchall()
            except sqlite3.Error:
                con.close()  # (an open one kept the -wal and -shm files it made from being removed)
                self.uri = None
                return None
            self.local.con = con
            with self.lock:
                self.opened.append(con)
        return con

    def close(self) -> None:
        self.uri = None
        with self.lock:
            opened, self.opened = self.opened, []
            self.local = threading.local()  # no thread keeps a closed connection to hand out again
        for con in opened:
            con.close()
