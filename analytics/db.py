"""The analytics DuckDB file: where it lives, its schema, and the SQL shipped with the package.

SQL lives in ``analytics/sql/*.sql``, one statement each, named after what it produces. The
projector is the only writer of the file; every query opens it read-only (DuckDB allows one
read-write process or many read-only ones per file).
"""

from __future__ import annotations

import os
from functools import cache
from importlib import resources
from pathlib import Path

import duckdb

from zx_events.store import StoreConfig

DEFAULT_ANALYTICS = "zx-analytics.duckdb"
SCHEMA_VERSION = 3
# created in this order (one statement per file)
SCHEMA = ("create_matches", "create_seats", "create_plays", "create_attacks", "create_life", "create_ignitions",
          "create_turns", "create_draws", "create_card_games", "create_card_catalog", "create_projection_position",
          "create_projection_inflight", "create_filtered_seats_macro", "create_wilson_low_macro",
          "create_wilson_high_macro")
TABLES = ("matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_games", "card_catalog",
          "projection_position", "projection_inflight")
MACROS = (("filtered_seats", "MACRO TABLE"), ("wilson_low", "MACRO"), ("wilson_high", "MACRO"))


class AnalyticsError(Exception):
    """The analytics file cannot be used as asked (missing, locked, built from another store)."""


@cache
def sql(name: str) -> str:
    """The text of ``analytics/sql/<name>.sql``."""
    return resources.files("analytics").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


def default_path(store: StoreConfig, explicit: str | None = None) -> Path:
    """``--analytics`` / ``ZX_ANALYTICS``; else next to a SQLite store (``X.sqlite`` -> ``X.duckdb``);
    else ``zx-analytics.duckdb`` in the working directory (memory: and PostgreSQL stores)."""
    chosen = explicit or os.environ.get("ZX_ANALYTICS")
    if chosen:
        return Path(chosen).expanduser()
    if store.kind == "sqlite" and store.path is not None:
        return store.path.with_suffix(".duckdb")
    return Path(DEFAULT_ANALYTICS)


def _locked(e: Exception) -> bool:
    text = str(e)
    return "lock" in text.lower() and ("Conflicting" in text or "Could not set lock" in text)


def connect_writer(path: Path, memory_limit: str = "512MB") -> duckdb.DuckDBPyConnection:
    """The projector's read-write connection (the schema is the projection's business: create_schema)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = duckdb.connect(str(path))
    except duckdb.Error as e:
        if _locked(e):
            raise AnalyticsError(f"{path} is in use by another process (an update or a query is running); "
                                 f"try again when it has finished") from None
        raise AnalyticsError(f"cannot open {path}: {e}") from None
    # bounded memory whatever the corpus size; row order within a table carries no meaning here
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute("SET preserve_insertion_order = false")
    con.execute("SET enable_progress_bar = false")
    return con


def stored_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """The schema version the file was built with; None for a new (empty) file."""
    if not con.execute("SELECT 1 FROM information_schema.tables WHERE table_name = 'projection_position'").fetchall():
        return None
    row = con.execute("SELECT schema_version FROM projection_position").fetchall()
    return row[0][0] if row else None


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Every table (if missing), macro (replaced) of this version."""
    for name in SCHEMA:
        con.execute(sql(name))


def drop_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Drop what any version of the projection created (tables, the old seats view, macros)."""
    kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables "
                             "WHERE table_schema = 'main'").fetchall())
    for name in sorted(TABLES, key=lambda n: kinds.get(n) != "VIEW"):  # names from the allow-list above
        if name in kinds:
            con.execute(f"DROP {'VIEW' if kinds[name] == 'VIEW' else 'TABLE'} {name}")
    for name, kind in MACROS:
        con.execute(f"DROP {kind} IF EXISTS {name}")


def connect_reader(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection for queries; a clear error when there is nothing to read yet."""
    if not Path(path).exists():
        raise AnalyticsError(f"no analytics file at {path}: run `zx analytics update` (or `zx import`) first")
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as e:
        if _locked(e):
            raise AnalyticsError(f"{path} is being written by `zx analytics update`; "
                                 f"query it when the update has finished") from None
        raise AnalyticsError(f"cannot open {path}: {e}") from None
    con.execute("SET enable_progress_bar = false")  # DuckDB would draw it on stdout, into the data
    return con
