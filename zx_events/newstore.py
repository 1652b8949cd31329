"""A store that ``zx import`` made and stored nothing in, removed again: a fully rejected import of a new
store left an empty SQLite file (or an empty PostgreSQL schema) the user never asked for.

``before_creating(store)`` notes, before the store is opened, what of it does not exist yet: a SQLite
file with its -wal, -shm and -journal files and the folders it would be made in; ``made_schema(svc)``,
once it is open, the PostgreSQL schema it created.
``remove_if_empty(made)``, after the service is closed, removes exactly that, and only while no table of
it holds a row and no other process has it open:

- SQLite: ``PRAGMA journal_mode=DELETE`` succeeds only when no other connection has the file open (a WAL
  store's every connection holds a shared lock on it; another ``zx import`` that opened it meanwhile
  keeps it); then, under an exclusive lock, every table is checked empty and the file is unlinked before
  the lock is released. A file that existed before, even empty, is never removed. Where the switch cannot
  write (the disk the import filled, a file-size limit), the file is opened in SQLite's exclusive locking
  mode instead, which reads it without writing and is refused the same way while another connection has it.
- PostgreSQL: in one transaction, the store's "open" lock is taken (an advisory lock every process that
  has the store open to import holds shared, ``store.hold_in_use``: refused while another holds it; one that
  opens the store meanwhile waits for the drop, then opens it again), the schema's tables are locked
  (``ACCESS EXCLUSIVE``, a 5 s ``lock_timeout``) and checked empty, then its tables, functions and types are dropped, then the
  schema ``RESTRICT``: anything else in it (another session's) rolls the whole drop back. A schema that
  existed before is never dropped.

Quiet: whatever fails (another process's lock, a lost server) leaves the store as it is, as before.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from zx_events.errors import ZXError
from zx_events.store import StoreConfig, connect_postgres, in_use_key, parse_store

SIDECARS = ("-wal", "-shm", "-journal")


@dataclass
class NewStore:
    """What an import is about to create: ``files`` (a SQLite store's file and the sidecars not there
    before), ``folders`` (made for it, the deepest first), ``schema`` (a PostgreSQL schema not there before)."""

    config: StoreConfig
    files: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    schema: bool = False
    emptied: bool = False  # the file was there before, empty (the user's own): made empty again, not removed
    removed: str = field(default="", init=False)  # what remove_if_empty removed, for the message


def before_creating(store: str | None) -> NewStore | None:
    """What opening the SQLite store ``store`` with ``create`` would make, or None when the file is there
    already (even empty), or the store is not a SQLite file (a PostgreSQL schema: ``made_schema``, once
    it is open), or cannot be told (a bad URL: the service says why when it opens it)."""
    try:
        config = parse_store(store)
    except ZXError:
        return None
    if config.kind == "sqlite":
        path = str(config.path)
        if os.path.islink(path) and not os.path.exists(path):  # a link to a file not made yet: SQLite makes the
            path = os.path.realpath(path)  # file it points to (and its sidecars beside it); the link stays
        elif os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) == 0:
            # an empty file of the user's (a store to be): emptied again, its sidecars removed (it was left holding
            # the empty tables, 20 KB)
            return NewStore(config, (path, *(path + s for s in SIDECARS if not os.path.lexists(path + s))),
                            emptied=True)
        if os.path.lexists(path):
            return None
        folders = []
        parent = os.path.dirname(os.path.abspath(path))
        while not os.path.lexists(parent):
            folders.append(parent)
            parent = os.path.dirname(parent)
        return NewStore(config, (path, *(path + s for s in SIDECARS if not os.path.lexists(path + s))),
                        tuple(folders))
    return None


def made_schema(svc: Any) -> NewStore | None:
    """The PostgreSQL schema the service ``svc`` created when it opened its store (``prepare_postgres``'s
    CREATE SCHEMA succeeded in this process: ``MatchService.made_schema``), or None. Asked of the store
    itself, after it is open: a look before opening cost a connection, and could not tell a schema another
    importer created in between from its own."""
    return NewStore(svc.store, schema=True) if getattr(svc, "made_schema", False) else None


def remove_if_empty(made: NewStore) -> bool:
    """Remove the store ``made`` describes if it holds nothing and nobody else has it open; whether it did."""
    try:
        if made.config.kind == "sqlite":
            return _remove_sqlite(made)
        if made.config.kind == "postgres" and made.schema:
            return _drop_schema(made)
    except Exception:  # quiet: the store stays, as it did before
        return False
    return False


def remove_unopened(made: NewStore) -> None:
    """A new SQLite store that could not even be opened: remove what opening it left (its file and sidecars
    while empty, then the folders made for it, while empty); quiet, and never anything that holds data."""
    for name in made.files[1:] if made.emptied else made.files:  # (the user's empty file stays)
        try:
            if os.path.isfile(name) and not os.path.islink(name) and os.path.getsize(name) == 0:
                os.unlink(name)
        except OSError:
            pass
    _remove_folders(made)


def _remove_folders(made: NewStore) -> None:
    """The folders made for the store, the deepest first, while empty (a folder something else was put in stays)."""
    for folder in made.folders:
        try:
            os.rmdir(folder)
        except OSError:
            break


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _remove_sqlite(made: NewStore) -> bool:
    path = made.files[0]
    if not os.path.isfile(path) or os.path.islink(path):
        return False
    con = sqlite3.connect(path, timeout=0, isolation_level=None)
    removed = switched = False
    try:
        try:  # refused ("database is locked") while another connection has the file open
            switched = con.execute("PRAGMA journal_mode=DELETE").fetchone()[0].lower() == "delete"
        except sqlite3.OperationalError as e:
            if _locked(e):
                return False
            con.close()  # the switch could not write (a full disk, a file-size limit): the store stays, full,
            return _remove_sqlite_unwritable(made)  # unless removed without writing a byte
        if not switched:
            return False
        con.execute("BEGIN EXCLUSIVE")  # no other process reads or writes it until the file is gone
        removed = _unlinked_if_empty(con, path, _tables(con), made.emptied)
        if not removed:
            return False
    finally:
        if switched and not removed:
            try:  # as it was: a store of zx is in WAL mode (store.ensure_wal)
                con.execute("PRAGMA journal_mode=WAL")
            except sqlite3.Error:
                pass
        con.close()
        if removed:
            _remove_the_rest(made)
    made.removed = path
    return True


def _tables(con: sqlite3.Connection) -> list[str]:
    return [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]


def _unlinked_if_empty(con: sqlite3.Connection, path: str, tables: list[str], emptied: bool = False) -> bool:
    """In ``con``'s exclusive transaction on the store ``path``: the file unlinked (``emptied``: cut to 0 bytes, as
    it was) when none of ``tables`` (SQLite's statistics aside) holds a row, else kept (False); the transaction
    rolled back either way (it wrote nothing)."""
    try:
        if any(con.execute(f"SELECT 1 FROM {_quoted(t)} LIMIT 1").fetchone() is not None
               for t in tables if not t.startswith("sqlite_stat")):
            return False
        if emptied:
            os.truncate(path, 0)
        else:
            os.unlink(path)
        return True
    finally:
        con.execute("ROLLBACK")


def _remove_the_rest(made: NewStore) -> None:
    """Once the store file is unlinked: its -wal, -shm and journal, and the folders made for it."""
    for sidecar in made.files[1:]:
        try:
            os.unlink(sidecar)
        except OSError:
            pass
    _remove_folders(made)


def _locked(e: sqlite3.Error) -> bool:
    """Whether ``e`` is SQLite refusing a lock another connection holds (not a failure to write)."""
    name = getattr(e, "sqlite_errorname", "")
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(e) or "busy" in str(e)


def _remove_sqlite_unwritable(made: NewStore) -> bool:
    """``_remove_sqlite`` where nothing can be written (the disk full, a file-size limit: the import failed for
    it, and the switch out of WAL, which copies the log into the file, failed too): the store, its -wal and -shm
    were left behind, filling the disk. The file opened in SQLite's exclusive locking mode, which reads a WAL
    store without writing and takes the file's exclusive lock at the first read: refused ("database is
    locked") while any other connection has it open, as the switch is; then every table checked empty and
    the file unlinked under that lock, as ``_remove_sqlite`` does."""
    path = made.files[0]
    con = sqlite3.connect(path, timeout=0, isolation_level=None)
    removed = False
    try:
        con.execute("PRAGMA locking_mode=EXCLUSIVE")
        try:
            tables = _tables(con)
            con.execute("BEGIN EXCLUSIVE")
        except sqlite3.OperationalError:  # another connection has it open (or it cannot be read): it stays
            return False
        removed = _unlinked_if_empty(con, path, tables, made.emptied)
    finally:
        con.close()
        if removed:
            _remove_the_rest(made)
    if removed:
        made.removed = path
    return removed


def _drop_schema(made: NewStore) -> bool:
    from psycopg import sql

    schema = made.config.env["POSTGRES_SCHEMA"]
    with connect_postgres(made.config.env, autocommit=False) as conn:  # one transaction: all of it, or nothing
        conn.execute("SET LOCAL lock_timeout = '5s'")
        # another process that has the store open holds its "open" lock (store.hold_in_use), shared: then it
        # stays; once this holds it, one opening the store waits for this drop, then finds no schema
        if not conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (in_use_key(made.config),)).fetchone()[0]:
            conn.rollback()
            return False
        nsp = conn.execute("SELECT oid FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
        if nsp is None:
            return False
        tables = [r[0] for r in conn.execute("SELECT relname FROM pg_class WHERE relnamespace = %s "
                                             "AND relkind IN ('r', 'p') ORDER BY relname", nsp)]
        names = [sql.Identifier(schema, t) for t in tables]
        if names:
            conn.execute(sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(sql.SQL(", ").join(names)))
        for name in names:
            if conn.execute(sql.SQL("SELECT EXISTS (SELECT 1 FROM {})").format(name)).fetchone()[0]:
                conn.rollback()
                return False
        functions = [r[0] for r in conn.execute("SELECT oid::regprocedure::text FROM pg_proc WHERE pronamespace = %s",
                                                nsp)]
        types = [r[0] for r in conn.execute("SELECT t.oid::regtype::text FROM pg_type t JOIN pg_class c "
                                            "ON c.oid = t.typrelid WHERE t.typnamespace = %s AND c.relkind = 'c'", nsp)]
        for function in functions:  # (names as PostgreSQL writes them for this session)
            conn.execute(sql.SQL("DROP FUNCTION {} RESTRICT").format(sql.SQL(function)))
        if names:
            conn.execute(sql.SQL("DROP TABLE {} RESTRICT").format(sql.SQL(", ").join(names)))
        for type_ in types:
            conn.execute(sql.SQL("DROP TYPE {} RESTRICT").format(sql.SQL(type_)))
        conn.execute(sql.SQL("DROP SCHEMA {} RESTRICT").format(sql.Identifier(schema)))  # else: all rolled back
    made.removed = f"schema {schema}"
    return True


def lost_under(config: StoreConfig, match_id: str) -> bool:
    """Whether the SQLite store file at ``config``'s path no longer holds ``match_id``, which this process
    stored in it: the file was removed (or replaced) while it was open here, and what was written went
    into the removed file. ``remove_if_empty`` of another ``zx import`` that stored nothing in the store it
    had made can do that to a process that opened the file in the millisecond before its unlink (it is
    refused while any other connection has the file open): so zx import asks, and says so, instead of
    reporting matches imported that are gone. False for another kind of store."""
    from zx_events.ids import match_uuid

    if config.kind != "sqlite" or config.path is None:
        return False
    try:
        con = sqlite3.connect(f"{config.path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return True
    try:
        return con.execute("SELECT 1 FROM stored_events WHERE originator_id = ? LIMIT 1",
                           (match_uuid(match_id).hex,)).fetchone() is None
    except sqlite3.Error:  # no such table (an empty file made since), not a database
        return True
    finally:
        con.close()
