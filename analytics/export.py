"""Export the analytics tables as Parquet, Hive-partitioned by month, with the data dictionary.

``DIR/<table>/month=YYYY-MM/*.parquet`` for every table of a match (the month the match was
played, as written in its log; ``month=unknown`` without a date; a table with no rows: one file
``DIR/<table>/<table>.parquet`` of its columns, ``month`` included), ``DIR/card_catalog/*.parquet``,
and ``DIR/data-dictionary.md``. Polars ``scan_parquet``, DuckDB, Spark and Trino read the layout
as is: the hand-off when the analytics outgrow one machine.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Callable

import duckdb

from .tables import PROJECTED

# every table of a match, the shared ones and each game's own (Z/X's plays, attacks, life, ignitions;
# X610Z's x610z_attacks, x610z_life, x610z_moves, x610z_casts): analytics.tables gathers them
PARTITIONED = tuple(PROJECTED)
DICTIONARY = "data-dictionary.md"


def _literal(path: Path) -> str:
    """A path as a SQL string literal (COPY takes no bound parameter for its target)."""
    return "'" + str(path).replace("'", "''") + "'"


def _dictionary() -> str:
    """The data dictionary an export writes beside its tables (the package's own copy)."""
    return resources.files("analytics").joinpath(DICTIONARY).read_text(encoding="utf-8")


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


def export_parquet(con: duckdb.DuckDBPyConnection, out: Path,
                   on_table: Callable[[str], None] | None = None) -> list[dict]:
    """Write every table under ``out`` (replacing an earlier export of the same table)."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for table in PARTITIONED:  # names from the games' rows modules (an allow-list: never user input)
        if table in ("matches", "seats"):
            select = f"SELECT * REPLACE (coalesce(month, 'unknown') AS month) FROM {table}"
        else:
            select = (f"SELECT t.*, coalesce(m.month, 'unknown') AS month FROM {table} t "
                      f"JOIN matches m ON m.match_no = t.match_no")
        n, months = con.execute(f"SELECT count(*), count(DISTINCT coalesce(m.month, 'unknown')) FROM {table} t "
                                f"JOIN matches m ON m.match_no = t.match_no").fetchall()[0]
        folder = out / table
        if n:
            con.execute(f"COPY ({select}) TO {_literal(folder)} (FORMAT parquet, PARTITION_BY (month), OVERWRITE true)")
        else:  # a partitioned COPY of no rows writes no file: the table could not be read (no schema)
            for old in folder.rglob("*.parquet") if folder.is_dir() else ():
                old.unlink()
            folder.mkdir(exist_ok=True)
            con.execute(f"COPY ({select} LIMIT 0) TO {_literal(folder / f'{table}.parquet')} (FORMAT parquet)")
        _prune(folder)
        rows.append({"table": table, "rows": n, "months": months, "path": str(out / table)})
        if on_table is not None:
            on_table(table)
    target = out / "card_catalog"
    target.mkdir(exist_ok=True)
    for old in target.glob("*.parquet"):
        old.unlink()
    con.execute(f"COPY card_catalog TO {_literal(target / 'card_catalog.parquet')} (FORMAT parquet)")
    n = con.execute("SELECT count(*) FROM card_catalog").fetchall()[0][0]
    rows.append({"table": "card_catalog", "rows": n, "months": None, "path": str(target)})
    (out / DICTIONARY).write_text(_dictionary(), encoding="utf-8")
    return rows
