"""Export the analytics tables as Parquet, Hive-partitioned by month, with the data dictionary.

``DIR/<table>/month=YYYY-MM/*.parquet`` for every table of a match (the month the match was
played, as written in its log; ``month=unknown`` without a date; a table with no rows: one file
``DIR/<table>/<table>.parquet`` of its columns, ``month`` included), ``DIR/card_catalog/*.parquet``,
and ``DIR/data-dictionary.md``. Polars ``scan_parquet``, DuckDB, Spark and Trino read the layout
as is: the hand-off when the analytics outgrow one machine.

The analytics file is read through the sandboxed read-only connection of ``zx sql``
(``zx_analytics.db.connect_reader``): SQL stored in the file (a view or a macro in place of a table)
runs there, where it can touch no file, network or extension. The Parquet files are written by a
second connection, in memory, that holds none of the file's SQL: it scans the rows streamed from the
first as Arrow record batches (a batch at a time, whatever the table's size).

The tables are written into ``DIR/.zx-export-partial/`` and moved into place, each folder whole, once every
one is written: an export interrupted (Ctrl-C, killed) leaves DIR as it was, and its partial folder is
removed then or by the next export. One export at a time writes into DIR (a lock on the directory); another
is refused (``ExportBusy``), where two at once left one of them "done" with tables missing.
"""

from __future__ import annotations

import os
import shutil
from importlib import resources
from pathlib import Path
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator

import duckdb

from zx_events.errors import ArgumentTypeError, shown

from .db import NO_EXTENSIONS, AnalyticsError, first_line, refusal, refuse_other_version
from .paths import same_file
from .tables import PROJECTED

# every table of a match, the shared ones and each game's own (Z/X's plays, attacks, life, ignitions;
# X610Z's x610z_attacks, x610z_life, x610z_moves, x610z_casts): zx_analytics.tables gathers them
PARTITIONED = tuple(PROJECTED)
DICTIONARY = "data-dictionary.md"
PARTIAL = ".zx-export-partial"  # in DIR: the export being written, moved into place when whole
BATCH_ROWS = 65536  # rows of a table in memory at a time between the reading and the writing connection


class ExportRefused(AnalyticsError):
    """Reading a table ran SQL stored in the analytics file (a view or a macro in its place) that the
    sandbox refused: it reached for files, the network or extensions. zx's own SQL reads tables only."""

    def __init__(self, table: str, e: duckdb.Error, file: str = "the analytics file") -> None:
        self.table = table
        self.cause = first_line(e)  # DuckDB's words: which file, which function
        done = "nothing was exported"  # (an export is put in place whole, or not at all)
        super().__init__(f"refused: {file} holds SQL that zx did not write: reading its {table} reached for files, "
                         f"the network or extensions, which zx export does not allow ({self.cause}); the file was "
                         f"changed outside zx: `zx analytics update --rebuild` makes it again from the store ({done})")


def _literal(path: Path) -> str:
    """A path as a SQL string literal (COPY takes no bound parameter for its target)."""
    return "'" + str(path).replace("'", "''") + "'"


def _dictionary() -> str:
    """The data dictionary an export writes beside its tables (the package's own copy)."""
    return resources.files("zx_analytics").joinpath(DICTIONARY).read_text(encoding="utf-8")


class ExportWouldReplace(AnalyticsError):
    """An export asked to write where it would replace what is not an earlier export's, or a file it reads
    (nothing written)."""


class NothingToExport(AnalyticsError):
    """``export_parquet(matches=...)`` given ids none of which is a match of the analytics file, or none at all:
    nothing written (an empty export looked complete), as ``zx export`` refuses filters that choose no match."""


class ExportBusy(AnalyticsError):
    """Another export is writing into the same directory (nothing written)."""


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
    if not there or (out / PARTIAL).is_dir():  # (an export killed while it moved its tables into place)
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


def _writer() -> duckdb.DuckDBPyConnection:
    """The connection that writes the Parquet files: in memory, no extension, no data or SQL of the file;
    it spills nothing to disk (an in-memory database would make a ``.tmp`` folder where zx was started)."""
    con = duckdb.connect(":memory:", config={**NO_EXTENSIONS, "temp_directory": ""})
    con.execute("SET enable_progress_bar = false")  # DuckDB would draw it on stdout, into the data
    # each month's rows are written out every 65,536 rows (DuckDB's default: 524,288 a partition, held in memory for
    # every month at once: 1.0 GB of RSS for 8M rows over 24 months, 2.9 GB for 32M, where this holds 0.55 and 0.6 GB,
    # for a quarter more time; QA round 32 at 130,000 matches: the export's peak grew with its tables)
    con.execute("SET partitioned_write_flush_threshold = 65536")
    return con


ONLY = "match_no IN (SELECT unnest($matches))"  # an export of some matches: theirs (``$matches``: their match_no)


def _reads(table: str, only: bool = False) -> tuple[str, str]:
    """(the rows of ``table`` as exported, the count of its rows and months): SQL on the analytics file. ``only``:
    of the matches whose ``match_no`` the parameter ``$matches`` lists (card_catalog: the catalogs they pinned)."""
    if table == "card_catalog":
        if only:
            pinned = (f"EXISTS (SELECT 1 FROM matches m WHERE m.catalog = c.catalog AND m.catalog_sha256 = "
                      f"c.catalog_sha256 AND m.{ONLY})")
            return (f"SELECT c.* FROM card_catalog c WHERE {pinned}",
                    f"SELECT count(*), NULL FROM card_catalog c WHERE {pinned}")
        return "SELECT * FROM card_catalog", "SELECT count(*), NULL FROM card_catalog"
    where = f" WHERE m.{ONLY}" if only else ""
    if table in ("matches", "seats"):
        select = f"SELECT * REPLACE (coalesce(month, 'unknown') AS month) FROM {table}"
        if only:
            select += f" WHERE {ONLY}"
    else:
        select = (f"SELECT t.*, coalesce(m.month, 'unknown') AS month FROM {table} t "
                  f"JOIN matches m ON m.match_no = t.match_no{where}")
    return select, (f"SELECT count(*), count(DISTINCT coalesce(m.month, 'unknown')) FROM {table} t "
                    f"JOIN matches m ON m.match_no = t.match_no{where}")


def _copy(reader: duckdb.DuckDBPyConnection, writer: duckdb.DuckDBPyConnection, select: str, to: str,
          params: dict | None = None) -> None:
    """``COPY (select) TO to``: ``select`` run by ``reader`` (sandboxed), the files written by ``writer``;
    the rows cross as Arrow record batches, ``BATCH_ROWS`` at a time."""
    rows = reader.sql(select, params=params) if params else reader.sql(select)
    writer.register("export_rows", rows.to_arrow_reader(BATCH_ROWS))
    try:
        writer.execute(f"COPY (SELECT * FROM export_rows) TO {to}")
    finally:
        writer.unregister("export_rows")


def _export_table(con: duckdb.DuckDBPyConnection, writer: duckdb.DuckDBPyConnection, table: str, into: Path,
                  out: Path, params: dict | None = None) -> dict:
    """Write ``into/<table>`` (a new folder; moved to ``out/<table>`` later); its row of the command's output.
    ``params``: ``{"matches": [match_no, ...]}``, the rows of those matches only."""
    select, count = _reads(table, params is not None)
    n, months = (con.execute(count, params) if params else con.execute(count)).fetchall()[0]
    folder = into / table
    if table == "card_catalog":  # one file: no month
        folder.mkdir()
        _copy(con, writer, select, f"{_literal(folder / 'card_catalog.parquet')} (FORMAT parquet)", params)
    elif n:
        _copy(con, writer, select, f"{_literal(folder)} (FORMAT parquet, PARTITION_BY (month))", params)
    else:  # a partitioned COPY of no rows writes no file: the table could not be read (no schema)
        folder.mkdir()
        _copy(con, writer, f"{select} LIMIT 0", f"{_literal(folder / f'{table}.parquet')} (FORMAT parquet)", params)
    return {"table": table, "rows": n, "months": months, "path": str(out / table)}


def match_numbers(con: duckdb.DuckDBPyConnection, match_ids: Iterable[str]) -> list[int]:
    """The ``match_no`` of the matches named by ``match_ids`` (the analytics file's ``matches.match_id``) that the
    file holds, in the file's order."""
    return [n for (n,) in con.execute("SELECT match_no FROM matches WHERE list_contains($ids, match_id) "
                                      "ORDER BY match_no", {"ids": list(match_ids)}).fetchall()]


def filtered_note(filters: str, kept: int, total: int) -> str:
    """The section a filtered export's data dictionary ends with: which filters, how many matches of how many."""
    return (f"\n## This export: filtered\n\nThis export holds {kept:,} of the {total:,} matches of the analytics file: "
            f"those that {filters} select (as `zx matches` selects them). Every table holds the rows of those matches "
            f"only, and `card_catalog` the catalogs they were checked against; an unfiltered `zx export` holds them "
            f"all.\n")


def _locked(out: Path, named: str) -> int:
    """A lock on the directory ``out`` for this export (its file descriptor: closing it releases the lock,
    and so does the end of the process, killed or not); ``ExportBusy`` when another export holds it."""
    import fcntl

    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ExportBusy(f"{named}: another zx export is writing into {out} now: run this one again when it has "
                         f"finished (nothing was written)") from None
    return fd


@contextmanager
def _finishing() -> Iterator[None]:
    """Around what cannot stop half-way (the tables moved into place): Ctrl-C (SIGINT) is taken and let go, the
    export finishes; in the main thread only (where Python delivers signals). A SIGTERM that a Python handler
    takes (``zx``'s, which is Ctrl-C's path: zx_cli.sigterm) is held meanwhile and handed to it after (the
    export is in place then); SIGTERM's default action (the process killed) is left alone."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    term, held = signal.getsignal(signal.SIGTERM), []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    if callable(term):
        signal.signal(signal.SIGTERM, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if callable(term):
            signal.signal(signal.SIGTERM, term)
    if held:
        signal.raise_signal(signal.SIGTERM)


def _put_in_place(partial: Path, out: Path, names: Iterable[str]) -> None:
    """Move each of ``names`` from ``partial`` to ``out``, an earlier one there moved aside first (each folder
    is whole in ``out`` at every moment but the one between two renames), the data dictionary last."""
    aside = partial / ".replaced"
    aside.mkdir()
    for name in (*names, DICTIONARY):
        if name != DICTIONARY and os.path.lexists(out / name):
            os.rename(out / name, aside / name)
        os.replace(partial / name, out / name)  # (the dictionary: over an earlier one, in one step)


def export_parquet(con: duckdb.DuckDBPyConnection, out: Path,
                   on_table: Callable[[str], None] | None = None, file: str = "the analytics file", *,
                   force: bool = False, reads: Iterable[tuple[str, str]] = (), named: str | None = None,
                   force_option: str = "force=True", on_start: Callable[[], None] | None = None,
                   on_done: Callable[[list[dict]], None] | None = None, matches: Iterable[str] | None = None,
                   note: str | None = None) -> list[dict]:
    """Write every table under ``out`` (replacing an earlier export of the same table), reading through
    ``con``: a sandboxed connection (``connect_reader``). ``file`` names it in an ``ExportRefused``, and in the
    ``AnalyticsError`` that refuses a file of another schema version (nothing written).

    Refused (``ExportWouldReplace``, nothing written), ``force`` or not, where the export would replace the
    file ``con`` reads or any of ``reads`` (the store: ``zx export``); and, without ``force``, where ``out``
    holds folders named like the tables and is not an earlier export (``refuse_replacing``; the Python API
    replaced a folder ``out/matches`` of the user's, and the analytics file in it, without a word).

    The tables are written into ``out/.zx-export-partial`` and moved into place when every one is: an export
    that fails or is interrupted leaves ``out`` as it was (a partial folder left by one that was killed is
    removed by the next; an ``out`` it made is removed again). ``ExportBusy`` (nothing written) while another
    export writes into ``out``. ``on_start()`` is called once ``out`` is made and locked, before the first table
    (a progress bar drawn from there: ``zx export --parquet /proc/x`` drew "exporting 0/14" over its error).
    ``on_done(rows)`` is called once the export is in place (an interruption after it, SIGTERM held while the
    tables were moved into place, finds the export whole).

    ``matches``: the ids (``matches.match_id``) of the matches to export (``zx export --player P ...``): every table
    holds those matches' rows only, ``card_catalog`` the catalogs they pinned; an id the file does not hold is
    ignored, but ids none of which it holds (or none: ``[]``) are ``NothingToExport``, nothing written; a ``str``
    (one id) is a ``TypeError``: give a list, ``[id]``. None: every match. ``note``: text the export's data
    dictionary ends with (which filters chose them); with ``matches`` and no ``note``, a section saying the export
    holds those matches of how many (``filtered_note``)."""
    if not isinstance(con, duckdb.DuckDBPyConnection):  # (a Stats was AttributeError: no attribute 'execute')
        raise ArgumentTypeError(f"export_parquet reads through a DuckDB connection to the analytics file "
                                f"(zx_analytics.db.connect_reader(PATH), or a Stats' .con), not {type(con).__name__}")
    if not isinstance(out, (str, os.PathLike)):
        raise ArgumentTypeError(
            f"out must be a folder's path (a str or pathlib.Path), got {type(out).__name__} {out!r}")
    if matches is not None:
        if isinstance(matches, (str, bytes)) or not hasattr(matches, "__iter__"):  # (a str: its characters, none
            # a match id: an empty export that looked complete)
            raise ArgumentTypeError(f"matches must be a list of match ids (the analytics file's matches.match_id, as "
                                    f"zx matches lists them), or None for every match, got {type(matches).__name__} "
                                    f"{shown(matches, 80)}{': one id is [id]' if isinstance(matches, str) else ''}")
        matches = list(matches)
        odd = next((m for m in matches if not isinstance(m, str)), None)
        if odd is not None:
            raise ArgumentTypeError(f"matches must be a list of match ids (str), holding {type(odd).__name__} "
                                    f"{shown(odd, 80)}")
    out = Path(out)
    refuse_other_version(con, file)  # another schema's tables are not what the data dictionary says
    if out.exists() and not out.is_dir():
        raise ExportWouldReplace(f"{named or out} is a file, not a directory")
    refuse_replacing(out, [*database_files(con, file), *reads], force, named, force_option)
    tables = (*PARTITIONED, "card_catalog")  # names from the games' rows modules (an allow-list: never user input)
    try:
        params = {"matches": match_numbers(con, matches)} if matches is not None else None
    except duckdb.Error as e:
        if refusal(e) is not None:
            raise ExportRefused("matches", e, file) from None
        raise
    if params is not None and not params["matches"]:
        raise NothingToExport(
            "no match to export: matches=[] names none (None exports every match): nothing was exported"
            if not matches else
            f"no match of {file} has the id{'s' if len(matches) > 1 else ''} given ({len(matches):,}: "
            f"{', '.join(shown(m, 60) for m in matches[:3])}{', ...' if len(matches) > 3 else ''}): nothing was "
            f"exported (zx matches lists the ids)")
    if params is not None and note is None:  # (a Python caller's matches=: the dictionary says the export is of some
        # matches, as zx export's does; it read as a whole export, QA round 37)
        total = con.execute("SELECT count(*) FROM matches").fetchone()[0]
        note = filtered_note("the ids given to `export_parquet(matches=...)`", len(params["matches"]), total)
    for table in tables:  # bound first: SQL of the file that reaches for a file is refused before anything is written
        try:
            for statement in _reads(table, params is not None):
                con.execute(f"SELECT * FROM ({statement}) LIMIT 0", params).fetchall()
        except duckdb.Error as e:
            if refusal(e) is not None:
                raise ExportRefused(table, e, file) from None
            raise
    made = not os.path.lexists(out)  # a DIR this export makes: removed again if it exports nothing into it
    out.mkdir(parents=True, exist_ok=True)
    lock = _locked(out, named or str(out))  # one export at a time into ``out``
    try:
        refuse_replacing(out, [*database_files(con, file), *reads], force, named, force_option)  # (as it is now)
        partial = out / PARTIAL
        if os.path.lexists(partial):  # left by an export that was killed: this one holds the lock, it is no one's
            shutil.rmtree(partial) if partial.is_dir() and not partial.is_symlink() else partial.unlink()
        partial.mkdir()
        try:
            if on_start is not None:
                on_start()
            rows = []
            writer = _writer()
            try:
                for table in tables:
                    try:
                        rows.append(_export_table(con, writer, table, partial, out, params))
                    except duckdb.Error as e:  # refused only as the rows were read: the stream's error, in the
                        # writer's words
                        if refusal(e) is not None:
                            raise ExportRefused(table, e, file) from None
                        raise
                    if on_table is not None:  # (card_catalog too: the bar said 13/13 of the 14 tables written)
                        on_table(table)
            finally:
                writer.close()
            (partial / DICTIONARY).write_text(_dictionary() + (note or ""), encoding="utf-8")
        except BaseException:  # failed or interrupted (Ctrl-C): nothing of it in ``out``
            shutil.rmtree(partial, ignore_errors=True)
            raise
        with _finishing():  # whole in ``out``: a Ctrl-C now waits until it is in place (it said "nothing was
            # exported" of an export in place, and left the earlier one's folders in the partial folder)
            _put_in_place(partial, out, tables)
            shutil.rmtree(partial)  # (the earlier export's folders, moved aside)
            if on_done is not None:
                on_done(rows)
    except BaseException:  # failed or interrupted: a DIR it made is removed, empty (an interrupted export left it)
        if made:
            try:
                os.rmdir(out)  # (never a DIR that holds anything)
            except OSError:
                pass
        raise
    finally:
        os.close(lock)
    return rows
