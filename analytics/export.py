"""Export the analytics tables as Parquet, Hive-partitioned by month, with the data dictionary.

``DIR/<table>/month=YYYY-MM/*.parquet`` for every table of a match (the month the match was
played, as written in its log; ``month=unknown`` without a date; a table with no rows: one file
``DIR/<table>/<table>.parquet`` of its columns, ``month`` included), ``DIR/card_catalog/*.parquet``,
and ``DIR/data-dictionary.md``. Polars ``scan_parquet``, DuckDB, Spark and Trino read the layout
as is: the hand-off when the analytics outgrow one machine.

The analytics file is read through the sandboxed read-only connection of ``zx sql``
(``analytics.db.connect_reader``): SQL stored in the file (a view or a macro in place of a table)
runs there, where it can touch no file, network or extension. The Parquet files are written by a
second connection, in memory, that holds none of the file's SQL: it scans the rows streamed from the
first as Arrow record batches (a batch at a time, whatever the table's size).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable

import duckdb

from .db import NO_EXTENSIONS, AnalyticsError, first_line, refusal, refuse_other_version
from .paths import same_file
from .tables import PROJECTED

# every table of a match, the shared ones and each game's own (Z/X's plays, attacks, life, ignitions;
# X610Z's x610z_attacks, x610z_life, x610z_moves, x610z_casts): analytics.tables gathers them
PARTITIONED = tuple(PROJECTED)
DICTIONARY = "data-dictionary.md"
BATCH_ROWS = 65536  # rows of a table in memory at a time between the reading and the writing connection


class ExportRefused(AnalyticsError):
    """Reading a table ran SQL stored in the analytics file (a view or a macro in its place) that the
    sandbox refused: it reached for files, the network or extensions. zx's own SQL reads tables only."""

    def __init__(self, table: str, e: duckdb.Error, file: str = "the analytics file", exported: bool = False) -> None:
        self.table = table
        self.cause = first_line(e)  # DuckDB's words: which file, which function
        done = "the tables before it were exported" if exported else "nothing was exported"
        super().__init__(f"refused: {file} holds SQL that zx did not write: reading its {table} reached for files, "
                         f"the network or extensions, which zx export does not allow ({self.cause}); the file was "
                         f"changed outside zx: `zx analytics update --rebuild` makes it again from the store ({done})")


def _literal(path: Path) -> str:
    """A path as a SQL string literal (COPY takes no bound parameter for its target)."""
    return "'" + str(path).replace("'", "''") + "'"


def _dictionary() -> str:
    """The data dictionary an export writes beside its tables (the package's own copy)."""
    return resources.files("analytics").joinpath(DICTIONARY).read_text(encoding="utf-8")


class ExportWouldReplace(AnalyticsError):
    """An export asked to write where it would replace what is not an earlier export's, or a file it reads
    (nothing written)."""


def database_files(con: duckdb.DuckDBPyConnection, file: str = "the analytics file") -> list[tuple[str, str]]:
    """The file ``con`` reads (its database's, none in memory) and its write-ahead log, each with what it is."""
    try:
        (path,) = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
    except (duckdb.Error, TypeError):
        return []
    if not path:
        return []
    return [(str(path), file), (f"{path}.wal", f"{file}'s write-ahead log {path}.wal")]


def refuse_replacing(out: Path, reads: Iterable[tuple[str, str]], force: bool = False, named: str | None = None,
                     force_option: str = "force=True") -> None:
    """``ExportWouldReplace`` (nothing written) when an export into ``out`` would replace a file it reads
    (``reads``: (path, what) pairs), ``force`` or not: with the store in ``out/matches/``, DuckDB's OVERWRITE
    deleted it with the folder's other files; or, without ``force``, folders named like its tables in a
    directory that is not an earlier export (``replaced_by_export``). ``named``: how the message names
    ``out`` (``zx export``: ``--parquet DIR``), ``force_option`` how it names ``force``."""
    named = named or str(out)
    for name in (*PARTITIONED, "card_catalog", DICTIONARY):
        replaced = out / name
        for read, what in reads:
            if same_file(read, replaced) or os.path.realpath(read).startswith(os.path.realpath(replaced) + os.sep):
                raise ExportWouldReplace(f"{named}: the export replaces {replaced}, and {what} is there: zx never "
                                         f"writes over a file the command reads, {force_option} or not; give another "
                                         f"directory (nothing was written)")
    clash = [] if force else replaced_by_export(out)
    if clash:
        shown = ", ".join(clash[:5]) + (f" and {len(clash) - 5} more" if len(clash) > 5 else "")
        raise ExportWouldReplace(f"{named} holds {shown}, which the export would replace, and is not an earlier "
                                 f"export of zx (no data dictionary of zx in it): give a new or empty directory, or "
                                 f"{force_option} to replace them (nothing was written)")


def replaced_by_export(out: Path) -> list[str]:
    """What in ``out`` an export would replace (its own folders and data dictionary, where they are)
    when ``out`` is not an earlier export: nothing for a new or empty directory, nor for an earlier
    export (its ``data-dictionary.md`` is zx's), whose folders an export replaces by design."""
    names = [*PARTITIONED, "card_catalog", DICTIONARY]
    there = [n for n in names if (out / n).exists()]
    if not there:
        return []
    dictionary = out / DICTIONARY
    if dictionary.is_file():
        ours = _dictionary().partition("\n")[0]
        try:
            with open(dictionary, encoding="utf-8") as f:
                if f.readline().rstrip("\n") == ours:
                    return []
        except (OSError, UnicodeDecodeError):
            pass
    return there


def _prune(folder: Path) -> None:
    """Remove the month folders an export emptied: DuckDB's OVERWRITE deletes the files of an earlier
    export's months, not their folders, which a Hive partition scan (Spark, Trino) would list."""
    for d in folder.glob("month=*"):
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()


def _writer() -> duckdb.DuckDBPyConnection:
    """The connection that writes the Parquet files: in memory, no extension, no data or SQL of the file;
    it spills nothing to disk (an in-memory database would make a ``.tmp`` folder where zx was started)."""
    con = duckdb.connect(":memory:", config={**NO_EXTENSIONS, "temp_directory": ""})
    con.execute("SET enable_progress_bar = false")  # DuckDB would draw it on stdout, into the data
    return con


def _reads(table: str) -> tuple[str, str]:
    """(the rows of ``table`` as exported, the count of its rows and months): SQL on the analytics file."""
    if table == "card_catalog":
        return "SELECT * FROM card_catalog", "SELECT count(*), NULL FROM card_catalog"
    if table in ("matches", "seats"):
        select = f"SELECT * REPLACE (coalesce(month, 'unknown') AS month) FROM {table}"
    else:
        select = (f"SELECT t.*, coalesce(m.month, 'unknown') AS month FROM {table} t "
                  f"JOIN matches m ON m.match_no = t.match_no")
    return select, (f"SELECT count(*), count(DISTINCT coalesce(m.month, 'unknown')) FROM {table} t "
                    f"JOIN matches m ON m.match_no = t.match_no")


def _copy(reader: duckdb.DuckDBPyConnection, writer: duckdb.DuckDBPyConnection, select: str, to: str) -> None:
    """``COPY (select) TO to``: ``select`` run by ``reader`` (sandboxed), the files written by ``writer``;
    the rows cross as Arrow record batches, ``BATCH_ROWS`` at a time."""
    writer.register("export_rows", reader.sql(select).to_arrow_reader(BATCH_ROWS))
    try:
        writer.execute(f"COPY (SELECT * FROM export_rows) TO {to}")
    finally:
        writer.unregister("export_rows")


def _export_table(con: duckdb.DuckDBPyConnection, writer: duckdb.DuckDBPyConnection, table: str, out: Path) -> dict:
    """Write ``out/<table>`` (replacing an earlier export of it); its row of the command's output."""
    select, count = _reads(table)
    n, months = con.execute(count).fetchall()[0]
    folder = out / table
    if table == "card_catalog":  # one file: no month
        folder.mkdir(exist_ok=True)
        for old in folder.glob("*.parquet"):
            old.unlink()
        _copy(con, writer, select, f"{_literal(folder / 'card_catalog.parquet')} (FORMAT parquet)")
    elif n:
        _copy(con, writer, select, f"{_literal(folder)} (FORMAT parquet, PARTITION_BY (month), OVERWRITE true)")
    else:  # a partitioned COPY of no rows writes no file: the table could not be read (no schema)
        for old in folder.rglob("*.parquet") if folder.is_dir() else ():
            old.unlink()
        folder.mkdir(exist_ok=True)
        _copy(con, writer, f"{select} LIMIT 0", f"{_literal(folder / f'{table}.parquet')} (FORMAT parquet)")
    _prune(folder)
    return {"table": table, "rows": n, "months": months, "path": str(folder)}


def export_parquet(con: duckdb.DuckDBPyConnection, out: Path,
                   on_table: Callable[[str], None] | None = None, file: str = "the analytics file", *,
                   force: bool = False, reads: Iterable[tuple[str, str]] = (), named: str | None = None,
                   force_option: str = "force=True") -> list[dict]:
    """Write every table under ``out`` (replacing an earlier export of the same table), reading through
    ``con``: a sandboxed connection (``connect_reader``). ``file`` names it in an ``ExportRefused``, and in the
    ``AnalyticsError`` that refuses a file of another schema version (nothing written).

    Refused (``ExportWouldReplace``, nothing written), ``force`` or not, where the export would replace the
    file ``con`` reads or any of ``reads`` (the store: ``zx export``); and, without ``force``, where ``out``
    holds folders named like the tables and is not an earlier export (``refuse_replacing``; the Python API
    replaced a folder ``out/matches`` of the user's, and the analytics file in it, without a word)."""
    out = Path(out)
    refuse_other_version(con, file)  # another schema's tables are not what the data dictionary says
    if out.exists() and not out.is_dir():
        raise ExportWouldReplace(f"{named or out} is a file, not a directory")
    refuse_replacing(out, [*database_files(con, file), *reads], force, named, force_option)
    tables = (*PARTITIONED, "card_catalog")  # names from the games' rows modules (an allow-list: never user input)
    for table in tables:  # bound first: SQL of the file that reaches for a file is refused before anything is written
        try:
            for statement in _reads(table):
                con.execute(f"SELECT * FROM ({statement}) LIMIT 0").fetchall()
        except duckdb.Error as e:
            if refusal(e) is not None:
                raise ExportRefused(table, e, file, exported=False) from None
            raise
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    writer = _writer()
    try:
        for table in tables:
            try:
                rows.append(_export_table(con, writer, table, out))
            except duckdb.Error as e:  # refused only as the rows were read: the stream's error, in the writer's words
                if refusal(e) is not None:
                    raise ExportRefused(table, e, file, exported=bool(rows)) from None
                raise
            if on_table is not None and table in PARTITIONED:
                on_table(table)
    finally:
        writer.close()
    (out / DICTIONARY).write_text(_dictionary(), encoding="utf-8")
    return rows
