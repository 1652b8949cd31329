"""Where a store's analytics file is: a module of its own, so that a command that only needs the path (zx
view and zx audit --bundle, which never write over it) does not import DuckDB for it (80-100 ms)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from zx_events import files

if TYPE_CHECKING:
    from zx_events.store import StoreConfig

DEFAULT_ANALYTICS = "zx-analytics.duckdb"


def same_file(a: "str | os.PathLike[str]", b: "str | os.PathLike[str]") -> bool:
    """Whether ``a`` and ``b`` name the same file: the same resolved path (a link to it included), or
    the same file on disk (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is not there
        return False


URL_LIKE = ("memory:", "md:", "motherduck:")  # DuckDB's own names of a database that is no file
EXTENSION_PREFIX = re.compile(r"[A-Za-z0-9_]+:")  # a path DuckDB opens through the extension it names (sqlite:, file:)


def not_a_file(path: Path | str) -> str | None:
    """Why ``path`` (``--analytics``, ``ZX_ANALYTICS``) is not a file the analytics can be written to, or None: a
    URL (``s3://``, ``postgresql://``) or one of DuckDB's names of another database (``memory:``, ``md:``) made
    folders named ``s3:`` and ``postgresql:`` and answered DuckDB's advice to install an extension; ``:memory:``
    (``:memory:name``), DuckDB's in-memory database, took an update that kept nothing ("projected into
    :memory:", then "no analytics file at :memory:")."""
    text = str(path)
    if "://" in text or text.lower().startswith(URL_LIKE) or text.lower().startswith(":memory:"):
        return (f"the analytics file {text} is not a file path (a URL, or a database DuckDB would open another way): "
                f"the analytics are a DuckDB file; give a path such as zx-analytics.duckdb")
    prefix = EXTENSION_PREFIX.match(text)
    if prefix:  # (sqlite:x.db, file:a.duckdb: DuckDB loads the extension the prefix names, and gave its advice)
        return (f"the analytics file {text} is not a file path (DuckDB reads '{prefix.group(0)}' at its start as the "
                f"prefix of another kind of database): give a path such as zx-analytics.duckdb (./{text} for a file "
                f"so named)")
    return None


def not_regular(path: Path | str) -> str | None:
    """Why ``path`` (the analytics file) or its write-ahead log (``PATH.wal``) cannot be opened: it exists but
    is not a regular file (a named pipe, a folder, a device, a socket); None when it is one, or is not
    there (an update makes it). Asked with ``os.stat`` before anything opens it: opening a named pipe
    (``mkfifo pipe.duckdb``) waits for a writer, and ``zx sql``, ``zx stats`` hung silently, deaf to Ctrl-C."""
    for name, what in ((os.fspath(path), "the analytics file"),
                       (os.fspath(path) + ".wal", "the analytics file's write-ahead log")):
        try:
            mode = os.stat(name).st_mode
        except (OSError, ValueError):  # not there, or not a path the system takes: DuckDB's own error says so
            continue
        if stat.S_ISREG(mode):
            continue
        kind = files.kind(mode)
        todo = ("give --analytics (or ZX_ANALYTICS) the path of a DuckDB file, or of one to create"
                if what == "the analytics file" else "move it away (DuckDB makes its own when it writes)")
        return f"{what} {name} is {kind}, not a regular file: {todo}"
    return None


def default_path(store: "StoreConfig", explicit: str | None = None) -> Path:
    """``--analytics`` / ``ZX_ANALYTICS``; else next to a SQLite store (``X.sqlite`` -> ``X.duckdb``);
    else ``zx-analytics.duckdb`` in the working directory (memory: and PostgreSQL stores)."""
    chosen = explicit or os.environ.get("ZX_ANALYTICS")
    if chosen:
        try:
            return Path(chosen).expanduser()
        except RuntimeError:  # ~name of no user: its path as written (then "no analytics file at ~name/...")
            return Path(chosen)
    if store.kind == "sqlite" and store.path is not None:
        return store.path.with_suffix(".duckdb")
    return Path(DEFAULT_ANALYTICS)
