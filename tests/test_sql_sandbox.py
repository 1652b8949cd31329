"""``zx sql`` and ``Stats.sql`` are read-only and sandboxed (issue 14 item 1; docs/security.md), and
``zx export`` reads the analytics file through the same sandbox (SQL planted in the file: QA r2).

One test per escape an attacker tried: each is refused with a clear error and leaves no trace (no
file written, the event store and the analytics file unchanged, no setting changed), while SELECTs,
the Wilson macros and every documented table keep working.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from zx_analytics.db import QueryRefused, QueryTimeout
from zx_analytics.stats import Stats
from analytics_support import imported_store
from zx_cli.main import zx

DOCUMENTED = ("matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_catalog")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # where DuckDB would put secrets and extensions
    (tmp_path / "home").mkdir()
    return imported_store(tmp_path)


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def sql(store: Path, query: str, *options: str):
    return CliRunner().invoke(zx, ["--store", str(store), "sql", *options, query])


def refused(store: Path, query: str, *options: str) -> str:
    """Run ``query``; assert it was refused with a clear error and changed neither file."""
    duck = store.with_suffix(".duckdb")
    before = _digest(store), _digest(duck)
    r = sql(store, query, *options)
    assert r.exit_code == 1, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "Traceback" not in r.output
    assert (_digest(store), _digest(duck)) == before
    return r.output


def test_copy_to_a_file_is_refused(store, tmp_path):
    out = refused(store, f"COPY (SELECT * FROM matches) TO '{tmp_path / 'leak.csv'}'")
    assert "refused: zx sql is read-only and sandboxed" in out and "reading or writing files" in out
    assert not (tmp_path / "leak.csv").exists()


def test_export_database_is_refused(store, tmp_path):
    out = refused(store, f"EXPORT DATABASE '{tmp_path / 'dump'}'")
    assert "refused:" in out
    assert not any((tmp_path / "dump").glob("*.csv")) if (tmp_path / "dump").exists() else True


def test_log_query_path_is_refused(store, tmp_path):
    out = refused(store, f"SET log_query_path = '{tmp_path / 'q.log'}'; SELECT 1")
    assert "refused:" in out and "settings cannot be changed" in out
    assert not (tmp_path / "q.log").exists()


def test_overwriting_the_event_store_is_refused(store):
    out = refused(store, f"COPY (SELECT 'x' AS x) TO '{store}' (FORMAT csv)")
    assert "refused:" in out


@pytest.mark.parametrize("query", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/passwd')",
    "SELECT * FROM glob('/etc/*')",
    "CREATE TEMP TABLE t (a VARCHAR); COPY t FROM '/etc/passwd'; SELECT * FROM t",
], ids=["read_csv", "read_text", "read_blob", "glob", "copy-from"])
def test_reading_any_file_is_refused(store, query):
    out = refused(store, query)
    assert "refused:" in out and "root:" not in out


def test_a_file_named_as_a_table_is_not_read(store):
    out = refused(store, "SELECT * FROM '/etc/passwd'")  # (DuckDB's replacement scan: refused before it runs, since
    # round 38, as a table named as a file; DuckDB's sandbox said "Table with name /etc/passwd does not exist")
    assert "'/etc/passwd' names a file" in out and "root:" not in out


def test_attach_another_database_and_delete_from_it_is_refused(store, tmp_path):
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE t AS SELECT 1 AS a")
    con.close()
    out = refused(store, f"ATTACH '{other}' AS o; DELETE FROM o.t; SELECT 1")
    assert "refused:" in out
    con = duckdb.connect(str(other), read_only=True)
    assert con.execute("SELECT count(*) FROM t").fetchone() == (1,)
    con.close()


def test_writing_the_analytics_file_is_refused(store):
    out = refused(store, "DELETE FROM matches")
    assert "refused:" in out and "read-only" in out


@pytest.mark.parametrize("query", ["SET threads = 1", "RESET lock_configuration", "SET enable_external_access = true",
                                   "PRAGMA enable_profiling"])
def test_settings_cannot_be_changed(store, query):
    assert "settings cannot be changed" in refused(store, query)


def test_persistent_secrets_are_refused(store, tmp_path):
    out = refused(store, "CREATE PERSISTENT SECRET s1 (TYPE s3, KEY_ID 'a', SECRET 'b')")
    assert "refused:" in out
    assert not [p for p in (tmp_path / "home").rglob("*") if p.is_file()]


@pytest.mark.parametrize("query", ["INSTALL spatial", "LOAD spatial", "FORCE INSTALL httpfs"])
def test_extensions_cannot_be_installed_or_loaded(store, tmp_path, query):
    out = refused(store, query)
    assert "refused:" in out and "http" not in out.lower()  # never tries to download
    assert not (tmp_path / "home" / ".duckdb").exists()


def test_a_query_past_its_time_limit_is_stopped(store):
    r = sql(store, "SELECT count(*) FROM range(1000000000000) a, range(10) b", "--timeout", "0.5")
    assert r.exit_code == 1
    assert "the query ran longer than 0.5 s and was stopped" in r.output


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_the_time_limit_and_memory_cover_writing_the_rows(store, fmt):
    """The rows are written as they are fetched, the time limit checked between batches: 10,000,000 rows
    as CSV took 28 s and 3.7 GB of memory past a 2 s limit (the limit covered the query alone, and every
    row was held in Python before the first was written). Run in a process of its own to measure it."""
    import os
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    code = ("import sys\nfrom zx_cli.main import main\nsys.argv = ['zx', *sys.argv[1:]]\n"
            "try:\n    main()\nfinally:\n    print(next(int(x.split()[1]) for x in open('/proc/self/status')"
            " if x.startswith('VmHWM')), file=sys.stderr)\n")  # its own high-water mark, KiB
    query = "SELECT range AS a, range AS b FROM range(100000000)"
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code, "--store", str(store), "sql", "--timeout", "1", "--format", fmt,
                        "--limit", "0", query], capture_output=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(root)})
    took = time.monotonic() - start
    peak_mib = int(p.stderr.strip().splitlines()[-1]) / 1024
    assert p.returncode == 1 and b"ran longer than 1 s and was stopped" in p.stderr, p.stderr[-300:]
    assert took < 20, took  # (1 s, then the batch under way; 28 s and more before)
    # (csv and json stream their rows; a table keeps 10,000 and counts the others: it held every row fetched
    # before the limit, 1,037-1,075 MiB on a machine where csv and json stayed near 400)
    assert peak_mib < 1024, peak_mib
    if fmt == "csv":
        assert p.stdout.startswith(b"a,b\n0,0\n")  # what was written before the limit


def test_one_huge_value_is_stopped_by_the_process_memory_cap(store):
    """DuckDB's memory_limit (2 GB) bounds its operators, not the string one scalar call builds:
    ``repeat('abcd', 500000000)`` took 4 GB, and a larger argument more, on a shared machine. zx sql caps
    its process's data memory (3 GiB): past it the query fails at once with a clear error, nothing
    written. Run in a process of its own (the cap is the process's)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    code = ("import sys\nfrom zx_cli.main import main\nsys.argv = ['zx', *sys.argv[1:]]\n"
            "try:\n    main()\nfinally:\n    print(next(int(x.split()[1]) for x in open('/proc/self/status')"
            " if x.startswith('VmHWM')), file=sys.stderr)\n")  # its own high-water mark, KiB
    duck = store.with_suffix(".duckdb")
    before = _digest(store), _digest(duck)
    p = subprocess.run([sys.executable, "-c", code, "--store", str(store), "sql", "--format", "csv",
                        "SELECT length(repeat('abcd', 1000000000)) AS n"], capture_output=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(root)})
    peak_mib = int(p.stderr.strip().splitlines()[-1]) / 1024
    assert p.returncode == 1, p.stderr[-400:]
    assert b"the query needs more memory than zx sql allows" in p.stderr and b"Traceback" not in p.stderr
    assert peak_mib < 3 * 1024, peak_mib
    assert p.stdout == b"" and (_digest(store), _digest(duck)) == before


def test_the_memory_cap_is_the_querys_and_is_lifted_after_it(store):
    """The cap was set on the whole process and left there: run in-process (CliRunner, a notebook's
    main()), every later allocation past 3 GiB of the process failed (a test session's MemoryErrors)."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_DATA)
    r = sql(store, "SELECT count(*) AS n FROM seats", "--format", "csv")
    assert r.exit_code == 0, r.output
    assert resource.getrlimit(resource.RLIMIT_DATA) == before


def test_every_row_is_written_in_batches_as_it_was_whole(store):
    for fmt in ("csv", "json"):
        r = sql(store, "SELECT range AS n, 'x' || range AS t FROM range(25000)", "--format", fmt)
        assert r.exit_code == 0, r.output
        rows = r.stdout.splitlines()[1:] if fmt == "csv" else json.loads(r.stdout)
        assert len(rows) == 25000 and (rows[-1] == "24999,x24999" if fmt == "csv" else rows[-1] == {"n": 24999, "t": "x24999"})


def test_the_table_output_is_limited_and_says_so(store):
    r = sql(store, "SELECT * FROM range(5000) t(n)", "--limit", "20")
    assert r.exit_code == 0
    assert "showing the first 20 rows" in r.stderr
    assert r.stdout.count("\n") < 40
    r = sql(store, "SELECT * FROM range(5000) t(n)", "--format", "csv")  # csv and json: every row
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 5001 and "showing" not in r.stderr


def test_a_table_of_limit_0_draws_10000_rows_and_counts_the_others_under_the_time_limit(store):
    """``--limit 0`` drew every row in a table after the time limit and the memory cap had ended, with nothing
    on stderr: 50,000 rows took 40 s past ``--timeout 1``, 857,000 printed nothing for 10 minutes. A table
    now draws 10,000 rows at most, says it is drawing them and how many it left out (counted as they are
    fetched, under the limit); the limit covers drawing it too; CSV and JSON still give every row."""
    query = "SELECT range AS i, 'sim-0-0001' AS m FROM range(25000)"
    r = sql(store, query, "--limit", "0")
    assert r.exit_code == 0, r.output
    assert sum(1 for line in r.stdout.splitlines() if line.startswith("│")) == 10_000
    assert r.stderr.splitlines() == ["(drawing a table of 10,000 rows; --format csv|json is faster)",
                                     "(the table shows the first 10,000 rows; 15,000 more rows left out: "
                                     "--format csv|json gives every row)"]
    r = sql(store, query, "--limit", "0", "--timeout", "1")  # (10,000 rows take seconds to lay out)
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.stderr.splitlines()[-1] in (  # (on a busy machine the limit can come while the rows are fetched)
        "Error: zx sql ran longer than 1 s and was stopped drawing its table of 10,000 rows (raise the limit with "
        "--timeout SECONDS, 0 for none; a smaller --limit, or --format csv|json, is faster)",
        "Error: the query ran longer than 1 s and was stopped (raise the limit with --timeout SECONDS, 0 for none)")
    for fmt in ("csv", "json"):
        r = sql(store, query, "--limit", "0", "--timeout", "30", "--format", fmt)
        assert r.exit_code == 0 and r.stderr == "", r.output
        assert len(r.stdout.splitlines()) == 25001 if fmt == "csv" else len(json.loads(r.stdout)) == 25000


def test_the_table_is_drawn_under_the_memory_cap(store, monkeypatch):
    """The 3 GiB cap ended before the table was drawn: 500,000 rows took 3.75 GB in rich's layout."""
    import resource

    import zx_cli.output

    before, during = resource.getrlimit(resource.RLIMIT_DATA), []
    draw = zx_cli.output.print_table

    def print_table(*args):
        during.append(resource.getrlimit(resource.RLIMIT_DATA))
        draw(*args)

    monkeypatch.setattr(zx_cli.output, "print_table", print_table)
    r = sql(store, "SELECT * FROM range(3) t(n)")
    assert r.exit_code == 0 and "│ 2 │" in r.stdout, r.output
    assert len(during) == 1 and during[0] != before and during[0][0] != resource.RLIM_INFINITY
    assert resource.getrlimit(resource.RLIMIT_DATA) == before


def test_a_table_stopped_drawing_at_its_time_limit_says_it_was_drawing(store, monkeypatch):
    """A table past --timeout while it was drawn said "the query ran longer than 1 s" (zx sql reworded every time
    limit as the query's): the query took no time; the drawing took the limit (a slow layout, here made so)."""
    import time

    import zx_cli.output

    draw = zx_cli.output.print_table

    def slow_print_table(*args):
        time.sleep(2)
        draw(*args)

    monkeypatch.setattr(zx_cli.output, "print_table", slow_print_table)
    r = sql(store, "SELECT * FROM range(3) t(n)", "--timeout", "0.5")
    assert r.exit_code == 1 and "│ 2 │" not in r.stdout, r.output
    assert r.stderr.splitlines()[-1] == (
        "Error: zx sql ran longer than 0.5 s and was stopped drawing its table of 3 rows (raise the limit with "
        "--timeout SECONDS, 0 for none; a smaller --limit, or --format csv|json, is faster)")


def test_selects_macros_and_every_documented_table_still_work(store):
    for table in DOCUMENTED:
        r = sql(store, f"SELECT count(*) AS n FROM {table}", "--format", "csv")
        assert r.exit_code == 0, (table, r.output)
    r = sql(store, "SELECT round(wilson_low(5, 10), 4) AS lo, round(wilson_high(5, 10), 4) AS hi", "--format", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines() == ["lo,hi", "0.2366,0.7634"]
    r = sql(store, "SELECT count(*) AS n FROM filtered_seats(NULL, NULL, NULL, 'Red Dragons', NULL)", "--format", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines() == ["n", "3"]
    r = sql(store, "SELECT deck, count(*) AS games FROM seats GROUP BY ALL ORDER BY deck", "--format", "csv")
    assert r.stdout.splitlines() == ["deck,games", "Blue Control,3", "Red Dragons,3"]
    r = CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates", "--format", "csv"])
    assert r.exit_code == 0, r.output


def test_the_python_api_is_sandboxed_too(store, tmp_path):
    with Stats(store.with_suffix(".duckdb")) as st:
        with pytest.raises(QueryRefused, match="reading or writing files"):
            st.sql(f"COPY (SELECT 1) TO '{tmp_path / 'api.csv'}'")
        with pytest.raises(QueryRefused, match="settings cannot be changed"):
            st.sql("SET enable_external_access = true")
        with pytest.raises(QueryTimeout):
            st.sql("SELECT count(*) FROM range(1000000000000) a, range(10) b", timeout=0.3)
        assert st.sql("SELECT count(*) AS n FROM matches").item() == 3
        assert st.sql("SELECT * FROM range(100)", limit=7).height == 7
    assert not (tmp_path / "api.csv").exists()


def test_sql_each_takes_parameters_and_is_sandboxed(store):
    rows: list = []
    with Stats(store.with_suffix(".duckdb")) as st:
        columns = st.sql_each("SELECT $x::INTEGER + 1 AS a, count(*) AS n FROM matches", lambda c, b: rows.extend(b),
                              params={"x": 5})
        assert columns == ["a", "n"] and rows[0][0] == 6 and rows[0][1] > 0
        with pytest.raises(QueryRefused):
            st.sql_each("SELECT * FROM read_csv('/etc/passwd')", lambda c, b: None)


SECRET = "PRIVATE-KEY-MATERIAL"


@pytest.mark.parametrize("table, planted", [
    ("card_catalog", ["ALTER TABLE card_catalog RENAME TO card_catalog_real",
                      "CREATE VIEW card_catalog AS SELECT * FROM card_catalog_real UNION ALL SELECT * REPLACE "
                      "((SELECT content FROM read_text('{secret}')) AS name) FROM card_catalog_real"]),
    ("plays", ["ALTER TABLE plays RENAME TO plays_real",
               "CREATE MACRO leak() AS TABLE SELECT * FROM read_csv('{secret}', header = false, "
               "columns = {{'l': 'VARCHAR'}})",
               "CREATE VIEW plays AS SELECT p.* REPLACE ((SELECT min(l) FROM leak()) AS card) FROM plays_real p"]),
    ("matches", ["ALTER TABLE matches RENAME TO matches_real",
                 "CREATE VIEW matches AS SELECT m.* REPLACE ((SELECT string_agg(file, ',') FROM glob('{folder}/*')) "
                 "AS event) FROM matches_real m"]),
], ids=["view-read_text", "macro-read_csv", "view-glob"])
def test_export_reads_the_analytics_file_sandboxed_so_sql_planted_in_it_reaches_no_file(store, tmp_path, table,
                                                                                         planted):
    """QA (r2): zx export opened the analytics file without the sandbox, and the SQL stored in the file ran there:
    a view (or a macro it calls) put in place of a table by whoever can write the file (a shared one kept by
    zx analytics follow) copied any file the exporting user can read into the Parquet files, or listed a
    folder. The file is now read through zx sql's sandbox: refused, naming the table and the file, nothing
    written."""
    duck = store.with_suffix(".duckdb")
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    con = duckdb.connect(str(duck))
    for statement in planted:
        con.execute(statement.format(secret=secret, folder=tmp_path))
    con.close()
    out = tmp_path / "out"
    r = CliRunner().invoke(zx, ["--store", str(store), "export", "--parquet", str(out)])
    assert r.exit_code == 1, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "Traceback" not in r.output and SECRET not in r.output
    assert (f"refused: the analytics file {duck} holds SQL that zx did not write: reading its {table} reached for "
            f"files, the network or extensions, which zx export does not allow") in r.output
    named = tmp_path / "*" if table == "matches" else secret  # the folder glob() lists, or the file read
    assert f'Cannot access file "{named}" - file system operations are disabled by configuration' in r.output
    assert re.search(r"`zx --store \S+ analytics update --rebuild` makes it again from the store \(nothing was exported\)",
                     r.output), r.output
    assert not out.exists()


def test_export_of_a_file_with_its_own_views_that_read_no_file_still_works(store, tmp_path):
    """The sandbox refuses files, not views: a view over the file's own tables exports as a table did."""
    duck = store.with_suffix(".duckdb")
    con = duckdb.connect(str(duck))
    con.execute("ALTER TABLE card_catalog RENAME TO card_catalog_real")
    con.execute("CREATE VIEW card_catalog AS SELECT * FROM card_catalog_real")
    con.close()
    out = tmp_path / "out"
    r = CliRunner().invoke(zx, ["--store", str(store), "export", "--parquet", str(out), "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = {x["table"]: x["rows"] for x in json.loads(r.stdout)}
    assert rows["card_catalog"] == 134 and rows["matches"] == 3


def test_sql_rows_over_a_huge_result_stops_at_its_time_limit(store):
    """``Stats.sql_rows`` fetched the whole result into Python after the query, past the timer's interrupt:
    50,000,000 rows came whole after 5 s and 4.7 GB past a 1 s limit. It now fetches as ``sql_each``, the
    time limit checked between batches."""
    import time

    with Stats(store.with_suffix(".duckdb")) as st:
        start = time.monotonic()
        with pytest.raises(QueryTimeout, match="the query ran longer than 0.5 s and was stopped"):
            st.sql_rows("SELECT range AS a, range AS b FROM range(10000000)", timeout=0.5)
        assert time.monotonic() - start < 10
        assert st.sql_rows("SELECT range AS n FROM range(25000)", timeout=5) == (["n"], [(n,) for n in range(25000)])
        assert st.sql_rows("SELECT range AS n FROM range(25000)", limit=3) == (["n"], [(0,), (1,), (2,)])


def test_a_query_duckdb_would_plan_past_its_time_limit_is_refused_before_it_runs(store):
    """DuckDB plans a query before the time limit's interrupt can stop it, with memory past its
    memory_limit: 14,000 SELECTs joined by UNION ALL (a 266 KB query) took 15 s and 5 GB past a 1 s
    limit, a list of 1,000,000 values 10 s and 2.6 GB, 22 CTEs NOT MATERIALIZED each read twice by the next
    72 s and 8.7 GB. More than 1,000 UNION, INTERSECT or EXCEPT, more than 131,072 characters (the longest
    a command line takes), or a CTE NOT MATERIALIZED are refused at once, in zx sql too; the words in a
    string or a comment are not counted."""
    MAX_SQL_LENGTH, MAX_SQL_SET_OPERATIONS = 131_072, 1_000  # zx_analytics.stats' (docs/security.md)

    parts = " UNION ALL ".join(["SELECT 1 AS one"] * (MAX_SQL_SET_OPERATIONS + 1001))
    values = "SELECT count(*) AS n FROM seats WHERE match_no IN (" + ", ".join(map(str, range(30000))) + ")"
    assert len(values) > MAX_SQL_LENGTH
    with Stats(store.with_suffix(".duckdb")) as st:
        for call in (st.sql, st.sql_rows, lambda q, **k: st.sql_each(q, lambda c, b: None, **k)):
            with pytest.raises(QueryRefused, match=r"the query holds 2,000 UNION, INTERSECT or EXCEPT, more than "
                                                   r"the 1,000 user SQL may"):
                call(parts, timeout=0.5)
            with pytest.raises(QueryRefused, match=r"the query is 1\d\d,\d\d\d characters long, more than the "
                                                   r"131,072 user SQL may be"):
                call(values, timeout=0.5)
            with pytest.raises(QueryRefused, match="the query marks a CTE NOT MATERIALIZED"):
                call("WITH t AS NOT /* a hint */ MATERIALIZED (SELECT 1 AS x) SELECT * FROM t", timeout=0.5)
        allowed = " UNION ALL ".join(["SELECT 1 AS one"] * (MAX_SQL_SET_OPERATIONS + 1))
        assert st.sql(allowed).height == MAX_SQL_SET_OPERATIONS + 1
        assert st.sql_rows("SELECT 'UNION ' || ?::VARCHAR AS s /* " + "UNION " * 2000 + "*/",
                           ["EXCEPT " * 2000])[1][0][0].count("EXCEPT") == 2000
        assert st.sql("WITH t AS MATERIALIZED (SELECT true AS materialized) SELECT NOT materialized AS m FROM t "
                      "-- AS NOT MATERIALIZED").rows() == [(False,)]
    out = refused(store, parts)
    assert "refused: the query holds 2,000 UNION, INTERSECT or EXCEPT" in out and "VALUES" in out


def test_a_query_joining_more_tables_than_duckdb_plans_quickly_is_refused_before_it_runs(store):
    """DuckDB orders a join's tables as it plans, before the time limit can stop it: seats joined to itself 160
    times took 30 s to over 3 minutes past a 3 s limit. A part of a query joining more than 32 tables (its FROM,
    its subqueries and CTEs together) is refused at once, an EXPLAIN of it too, in zx sql and the Python API;
    each part of a UNION counts on its own, and 32 plan at once."""
    def joined(n: int, first: int = 0) -> str:
        tables = ", ".join(f"seats t{i}" for i in range(first, first + n))
        on = " AND ".join(f"t{i}.match_no = t{i + 1}.match_no" for i in range(first, first + n - 1))
        return f"SELECT count(*) AS n FROM {tables} WHERE {on or 'true'}"

    message = r"refused: one part of the query joins {} tables .*, more than the 32 user SQL may"
    nested = f"SELECT * FROM ({joined(17)}) a, ({joined(17, 17)}) b"
    in_where = f"{joined(30)} AND EXISTS (SELECT 1 FROM seats x, seats y, seats z WHERE x.match_no = t0.match_no)"
    with_cte = f"WITH c AS ({joined(20)}) SELECT * FROM c, ({joined(13, 20)}) d"
    with Stats(store.with_suffix(".duckdb")) as st:
        for call in (st.sql, st.sql_rows, lambda q, **k: st.sql_each(q, lambda c, b: None, **k)):
            for query, n in ((joined(40), 40), ("EXPLAIN " + joined(33), 33), ("-- why\nexplain analyze " + joined(33), 33),
                             (nested, 34), (in_where, 33), (with_cte, 34)):
                with pytest.raises(QueryRefused, match=message.format(n)):
                    call(query, timeout=5)
        assert len(st.sql("EXPLAIN " + joined(32))) > 0  # (planned, not run: 32 tables of every match's seats)
        assert st.sql(" UNION ALL ".join([joined(2)] * 40)).height == 40  # 80 tables, 2 in each part
    out = refused(store, joined(40))
    assert "refused: one part of the query joins 40 tables" in out and "join fewer tables at a time" in out


@pytest.fixture(scope="module")
def two_games(tmp_path_factory) -> Path:
    """A store of both games' legal examples (X610Z: 3 matches, 6 seats; Z/X: 5 matches), its analytics file
    ``s.duckdb`` beside it: DuckDB names the file's database ``s``."""
    root = Path(__file__).resolve().parent.parent / "examples"
    store = tmp_path_factory.mktemp("two") / "s.sqlite"
    for folder in (root / "x610z" / "legal", root / "legal"):
        r = CliRunner().invoke(zx, ["--store", str(store), "import", str(folder)])
        assert r.exit_code == 0, r.output
    return store


# each read every game's rows under a game chosen (QA round 27, D5): the file's database named, in a query or in the
# value of a SET VARIABLE (its query part, checked as a SELECT)
OTHER_GAMES = ("SELECT count(*) AS n FROM s.seats", "SELECT count(*) AS n FROM s.main.seats",
               'SELECT count(*) AS n FROM "S"."MAIN".seats', "FROM s.seats SELECT DISTINCT game",
               "SELECT (SELECT count(*) FROM s.seats) AS n",
               "WITH seats AS (SELECT * FROM s.seats) SELECT count(*) AS n FROM seats",
               "SELECT count(*) AS n FROM matches m, LATERAL (SELECT * FROM s.plays p WHERE p.match_no = m.match_no)",
               "SELECT count(*) AS n FROM seats WHERE game IN (SELECT game FROM s.matches)",
               "SELECT 1 AS n UNION ALL SELECT count(*) FROM s.seats", "SUMMARIZE s.seats",
               "EXPLAIN ANALYZE SELECT * FROM s.seats", "/* why */ explain SELECT * FROM s.main.seats",
               "SELECT * FROM s.filtered_seats(NULL, NULL, NULL, NULL, NULL)",
               "SET VARIABLE n = (SELECT count(*) FROM s.seats); SELECT getvariable('n') AS n",
               "CALL range((SELECT count(*) FROM s.seats))")


@pytest.mark.parametrize("query", OTHER_GAMES)
def test_a_game_chosen_cannot_be_left_by_naming_the_files_database(two_games, query):
    """docs/analytics.md: ``zx sql --game GAME`` runs the query "with every table holding only that game's rows".
    The game's views shadow unqualified names only: ``s.seats`` (the file's database, named by DuckDB after the
    file) read both games (QA round 27, D5). With a game chosen, a query that names the file's database, or reads
    what DuckDB's parse of it cannot show, is refused (zx sql, exit 1; Stats.sql*: QueryRefused); the same queries
    without a game run as before."""
    out = refused(two_games, query, "--game", "x610z")
    assert "refused: with a game chosen" in out, out
    with Stats(two_games.with_suffix(".duckdb")) as st:
        for call in (st.sql, st.sql_rows, lambda q, **k: st.sql_each(q, lambda c, b: None, **k)):
            with pytest.raises(QueryRefused, match="refused: with a game chosen"):
                call(query, game="zx")
        st.sql_rows(query)  # without a game: as it ran before
    r = sql(two_games, query, "--format", "csv")
    assert r.exit_code == 0, r.output


def test_a_game_chosen_still_reads_its_own_rows_by_any_name_that_reaches_only_them(two_games):
    """What names the game's own views, or no table of the file, keeps working under a game; without one, the
    file's database named reads every game (QA round 27, D5)."""
    with Stats(two_games.with_suffix(".duckdb")) as st:
        every = st.sql_rows("SELECT count(*), count(DISTINCT game) FROM s.seats")[1]
        assert every == [(16, 2)]
        for query in ("SELECT count(*) AS n FROM seats", "SELECT count(*) AS n FROM main.seats",
                      "SELECT count(*) AS n FROM temp.main.seats", "SELECT count(*) AS n FROM temp.seats",
                      "SELECT count(*) AS n FROM filtered_seats(NULL, NULL, NULL, NULL, NULL)",
                      "SELECT count(*) AS n FROM seats WHERE game = $game"):
            params = {"game": "x610z"} if "$game" in query else None
            assert st.sql_rows(query, params, game="x610z")[1] == [(6,)], query
        assert st.sql_rows("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'seats'",
                           game="x610z")[1][0][0] >= 1
        assert st.sql_rows("SELECT count(*) FROM range(3)", game="x610z")[1] == [(3,)]
        assert st.sql_rows("DESCRIBE seats", game="x610z")[1]
        assert st.sql_rows("EXPLAIN SELECT count(*) FROM seats", game="x610z")[1]
        assert st.sql_rows("PIVOT (SELECT seat FROM seats) ON seat IN ('first', 'second') USING count(*)",
                           game="x610z")[1] == [(3, 3)]
    r = sql(two_games, "SELECT count(*) AS seats, count(DISTINCT game) AS games FROM seats", "--game", "x610z",
            "--format", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines() == ["seats,games", "6,1"], r.output


# QA round 38: each ran, with a game chosen, over every game's rows (the first three), or ran SQL given as text that no
# check of zx saw (the UNION, NOT MATERIALIZED and join refusals bypassed), or reads a table named in text
AS_TEXT = ("SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT game, count(*) AS n FROM ' || "
           "'s.seats GROUP BY ALL'))",
           "SELECT game, count(*) AS n FROM read_duckdb('{duck}', table_name := 'seats') GROUP BY ALL",
           "SELECT bin, count FROM histogram_values(s.main.matches, game)",
           "SELECT bin, count FROM histogram(seats, game)",
           "SELECT count(*) AS n FROM query_table('s.seats')",
           "SELECT count(*) AS n FROM query('SELECT * FROM s.seats')",
           'SELECT count(*) AS n FROM "QUERY"(\'SELECT 1\')',
           "SELECT * FROM pragma_storage_info('s.seats')",
           "SELECT game, count(*) AS n FROM duckdb_table_sample('s.seats') GROUP BY ALL",
           "CALL query_table('s.seats')",
           "PRAGMA json_execute_serialized_sql(json_serialize_sql('SELECT 42'))",
           "PRAGMA storage_info('s.seats')")


@pytest.mark.parametrize("query", AS_TEXT)
def test_sql_given_as_text_or_a_table_named_in_text_is_refused_game_or_not(two_games, query):
    """User SQL may call the table functions of an allow-list only (docs/security.md §1): what runs SQL given as
    text, reads a table named in text, or reads the analytics file again (read_duckdb) is refused before it runs,
    with a game chosen (it read every game's rows: QA round 38) or not (no refusal checked the SQL it ran), and the
    refusal names the functions user SQL may call."""
    query = query.format(duck=two_games.with_suffix(".duckdb"))
    for options in (("--game", "x610z"), ()):
        out = refused(two_games, query, *options)
        assert "refused: zx sql is read-only and sandboxed" in out and "Traceback" not in out, out
        assert "is not run" in out or "a PRAGMA runs only to read the catalog" in out, out
    with Stats(two_games.with_suffix(".duckdb")) as st:
        for game in ("x610z", None):
            with pytest.raises(QueryRefused, match="range, unnest|table_info, version") as got:
                st.sql(query, game=game)
            assert "refused: with a game chosen" not in str(got.value)


@pytest.mark.parametrize("named", ["'{duck}'", '"{duck}"', "'s.duckdb'", "'other.parquet'", "'s3://bucket/x.csv'"])
def test_a_table_named_as_a_file_is_refused_game_or_not(two_games, named):
    """``FROM 'x.duckdb'`` is DuckDB's replacement scan of that file: the sandbox's allowed paths let the analytics
    file itself through DuckDB's .duckdb reader (QA round 38: a file of one table would be read whole, past a game).
    A table named as a file is refused before it runs, in the sandbox's words; the file's tables by their names run."""
    query = f"SELECT count(*) AS n FROM {named}".format(duck=two_games.with_suffix(".duckdb"))
    for options in (("--game", "x610z"), ()):
        out = refused(two_games, query, *options)
        assert "refused: zx sql is read-only and sandboxed: reading or writing files" in out and "names a file" in out
    with Stats(two_games.with_suffix(".duckdb")) as st:
        with pytest.raises(QueryRefused, match="names a file"):
            st.sql(query, game="x610z")
        assert st.sql_rows('SELECT count(*) FROM "seats"', game="x610z")[1] == [(6,)]


def test_the_table_functions_on_the_allow_list_still_run_inside_the_game(two_games):
    """What an analyst needs runs, a game chosen or not: numbers (range, generate_series), a list's values (unnest),
    a JSON value's parts (json_each), the catalog (duckdb_tables, duckdb_columns, pragma_table_info, PRAGMA
    table_info), zx's filtered_seats macro (the game's seats), and CALL of an allowed table function."""
    with Stats(two_games.with_suffix(".duckdb")) as st:
        for game, seats in (("x610z", 6), (None, 16)):
            rows = lambda q: st.sql_rows(q, game=game)[1]  # noqa: E731
            assert rows("SELECT count(*) FROM range(3) a, generate_series(1, 2) b, unnest([1, 2]) c") == [(12,)]
            assert rows("SELECT key FROM json_each('{\"a\": 1}')") == [("a",)]
            assert rows("SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = 'seats'") == [(True,)]
            assert rows("SELECT count(*) > 0 FROM pragma_table_info('seats')") == [(True,)]
            assert rows("SELECT count(*) FROM filtered_seats(NULL, NULL, NULL, NULL, NULL)") == [(seats,)]
            assert rows("CALL range(2)") == [(0,), (1,)]
            if game is None:  # (a PRAGMA, as every statement without a query part, is refused under a game)
                assert ("match_id",) in [r[1:2] for r in rows("PRAGMA table_info('seats')")]


def test_planning_bombs_hidden_in_sql_as_text_or_a_set_variable_are_refused_before_they_run(two_games):
    """QA round 38: a NOT MATERIALIZED CTE chain given to query() ran 36.5 s and 4.2 GB past Stats.sql(timeout=1);
    3,000 UNIONs through json_execute_serialized_sql and 100 tables joined in a SET VARIABLE's value ran to their
    limit. The SQL in text is refused as such; a SET VARIABLE's value, a CALL's arguments and an EXPLAIN's statement
    are checked as the SELECT they are (refused before they run: QueryRefused, not QueryTimeout)."""
    n = 22
    chain = "WITH c0 AS NOT MATERIALIZED (SELECT 1 AS x), " + ", ".join(
        f"c{i} AS NOT MATERIALIZED (SELECT a.x FROM c{i - 1} a, c{i - 1} b LIMIT 1)" for i in range(1, n)) + \
        f" SELECT * FROM c{n - 1}"
    join = "SELECT count(*) FROM " + ", ".join(f"seats s{i}" for i in range(100)) + " WHERE " + " AND ".join(
        f"s{i}.match_no = s{i - 1}.match_no" for i in range(1, 100))
    with Stats(two_games.with_suffix(".duckdb")) as st:
        for query, words in (
                ("SELECT * FROM query('" + chain.replace("'", "''") + "')", "query() is not run"),
                ("SELECT count(*) FROM json_execute_serialized_sql(json_serialize_sql(repeat('SELECT 1 UNION ALL ', "
                 "3000) || 'SELECT 1'))", "json_execute_serialized_sql() is not run"),
                (f"SET VARIABLE v = ({join})", "one part of the query joins 100 tables"),
                (f"SET VARIABLE v TO ({join}); SELECT getvariable('v')", "one part of the query joins 100 tables"),
                (f"CALL range(({join}))", "one part of the query joins 101 tables"),
                (f"EXPLAIN ANALYZE SET VARIABLE v = ({join})", "one part of the query joins 100 tables"),
                (f"PIVOT ({join}) ON count_star", "a PIVOT that finds its columns first")):
            with pytest.raises(QueryRefused, match=re.escape(words)):
                st.sql(query, timeout=1)
        assert st.sql_rows("SET VARIABLE v = (SELECT count(*) FROM seats); SELECT getvariable('v') AS n")[1] == [(16,)]
    assert "one part of the query joins 100 tables" in refused(two_games, f"SET VARIABLE v = ({join})")


def test_a_sample_clause_is_no_crash_of_the_table_count(two_games):
    """QA round 38: ``USING SAMPLE 10%`` and ``TABLESAMPLE reservoir(5 ROWS)`` were "internal error: TypeError:
    unhashable type: 'dict'" (the parse's sample size holds a dict under "type"): they run, inside a game too."""
    with Stats(two_games.with_suffix(".duckdb")) as st:
        assert st.sql_rows("SELECT count(*) FROM seats TABLESAMPLE reservoir(5 ROWS)")[1] == [(5,)]
        assert st.sql_rows("SELECT count(*), count(DISTINCT game) FROM seats TABLESAMPLE reservoir(5 ROWS)",
                           game="x610z")[1] == [(5, 1)]
        assert st.sql_rows("SELECT count(*) <= 16 FROM seats USING SAMPLE 10%", game="zx")[1] == [(True,)]
    for options in ((), ("--game", "x610z")):
        r = sql(two_games, "SELECT count(*) AS n FROM seats USING SAMPLE 10% (bernoulli, 42)", *options, "--format",
                "csv")
        assert r.exit_code == 0 and r.output.splitlines()[0] == "n", r.output


@pytest.mark.parametrize("query", ["UPDATE EXTENSIONS", "UPDATE EXTENSIONS (json)", "VACUUM", "ANALYZE"])
def test_a_statement_zx_cannot_name_or_check_is_refused_in_the_sandboxs_words(two_games, query):
    """QA round 38: ``UPDATE EXTENSIONS`` was "internal error: ValueError: 29 is not a valid StatementType" (a
    statement kind Python's DuckDB cannot name); it, and any kind zx does not run, is refused."""
    out = refused(two_games, query)
    assert "refused: zx sql is read-only and sandboxed" in out and "internal error" not in out, out
    with Stats(two_games.with_suffix(".duckdb")) as st, pytest.raises(QueryRefused, match="read-only and sandboxed"):
        st.sql(query)


@pytest.mark.parametrize("query, duckdb_says", [
    ("SELECT * FROM secret_decks", 'Did you mean "'),
    ("SELECT * FROM read_only_results", "Table with name read_only_results does not exist"),
    ("SELECT CAST('read-only' AS DATE)", "invalid date field format"),
    ("SELECT CAST('configuration has been locked' AS INT)", "Could not convert string"),
    ("SELECT error('the external access of my deck is disabled by configuration')", "the external access of my deck"),
])
def test_words_of_the_sandbox_in_a_query_or_its_data_are_no_refusal(two_games, query, duckdb_says):
    """QA round 38: a message holding "secret", "read-only", "configuration has been locked" or "external access"
    anywhere (a table named secret_decks, a value cast) was "refused: ... secrets are disabled", without DuckDB's
    "Did you mean" line, and QueryRefused in Python. A refusal is known by DuckDB's exception class and its own
    whole wording: these are SQL errors (QueryError), DuckDB's words kept."""
    from zx_analytics.stats import QueryError

    r = sql(two_games, query)
    assert r.exit_code == 1 and "SQL error:" in r.output and "refused" not in r.output, r.output
    assert duckdb_says in r.output
    with Stats(two_games.with_suffix(".duckdb")) as st, pytest.raises(QueryError, match=re.escape(duckdb_says)):
        st.sql(query)


def test_an_arrow_lambda_is_told_the_lambda_syntax_not_a_setting_zx_refuses(two_games):
    """DuckDB 2 rejects ``x -> x + 1`` advising ``SET lambda_syntax=...``, which zx sql refuses (locked settings):
    the error says to write ``lambda x: x + 1``, which runs."""
    r = sql(two_games, "SELECT list_transform([1, 2], x -> x + 1) AS l")
    assert r.exit_code == 1 and "lambda x: x + 1" in r.output and "SET lambda_syntax" not in r.output, r.output
    r = sql(two_games, "SELECT list_transform([1, 2], lambda x: x + 1) AS l", "--format", "csv")
    assert r.exit_code == 0 and r.output.splitlines()[1] == '"[2, 3]"', r.output


DEEP = {"a sum of 340 terms": ("SELECT " + " + ".join(["1"] * 340) + " AS s", 340),
        "a sum of 900 terms": ("SELECT " + " + ".join(["1"] * 900) + " AS s", 900),
        "400 strings joined by ||": ("SELECT length(" + " || ".join(["'a'"] * 400) + ") AS s", 400),
        "abs() 400 deep": ("SELECT " + "abs(" * 400 + "-1" + ")" * 400 + " AS s", 1)}


@pytest.mark.parametrize("name", DEEP)
def test_a_deeply_nested_expression_runs_as_in_duckdb(two_games, name):
    """QA round 38: an expression nested a few hundred levels deep (DuckDB runs up to 1,000) was "internal error:
    RecursionError" (zx sql) or a bare RecursionError (Stats.sql*): the parse zx checks nests thousands of JSON
    objects, past Python's recursion limit. It runs, a game chosen or not, and the table count and the game's
    checks still read its whole parse."""
    query, value = DEEP[name]
    with Stats(two_games.with_suffix(".duckdb")) as st:
        assert st.sql(query).rows() == [(value,)]
        assert st.sql_rows(query, game="x610z")[1] == [(value,)]
        with pytest.raises(QueryRefused, match="refused: with a game chosen"):
            st.sql(query.replace(" AS s", " AS s FROM s.seats"), game="x610z")
    r = sql(two_games, query, "--format", "csv")
    assert r.exit_code == 0 and r.output.splitlines() == ["s", str(value)], r.output


def test_an_expression_deeper_than_duckdb_takes_is_its_error_with_zxs_advice(two_games):
    """Past DuckDB's own depth limit, DuckDB's error (a QueryError), without its advice to change a setting zx sql
    locks; a subquery 300 deep is DuckDB's binder error, not a RecursionError."""
    from zx_analytics.stats import QueryError

    with Stats(two_games.with_suffix(".duckdb")) as st:
        for query in ("SELECT " + " + ".join(["1"] * 2000), "SELECT " + "abs(" * 999 + "1" + ")" * 999,
                      "SELECT " + "(SELECT " * 300 + "1" + ")" * 300):
            with pytest.raises(QueryError, match="Max expression depth limit of 1000 exceeded") as got:
                st.sql(query)
            assert "SET max_expression_depth" not in str(got.value) and "nest the expression less" in str(got.value)
    # zx sql too: its count of the statements met DuckDB's parser error first, with DuckDB's advice (QA round 38)
    out = refused(two_games, "SELECT " + " + ".join(["1"] * 1100))
    assert "Max expression depth limit of 1000 exceeded" in out and "SET max_expression_depth" not in out, out
    assert "nest the expression less deeply" in out


def test_json_loads_reads_any_depth_as_json_does():
    from zx_analytics.stats import json_loads

    deep = "[" * 5000 + '{"a": "\\u00e9\\"", "b": [1, -2.5e3, true, false, null]}' + "]" * 5000
    value = json_loads(deep)
    for _ in range(5000):
        value = value[0]
    assert value == {"a": 'é"', "b": [1, -2500.0, True, False, None]}
    for bad in ("", "[1, 2", "]", "{1: 2}", "[1] [2]"):
        with pytest.raises(ValueError):
            json_loads(bad)



# each EXPLAIN DuckDB runs (QA round 38), and the same with the statement explained reading past the game chosen
EXPLAINED = {"EXPLAIN (SELECT 1) UNION ALL (SELECT 2)": "EXPLAIN (SELECT 1) UNION ALL (SELECT count(*) FROM s.seats)",
             "EXPLAIN ANALYZE (SELECT count(*) FROM seats)": "EXPLAIN ANALYZE (SELECT count(*) FROM s.seats)",
             "EXPLAIN /* c */ ANALYZE SELECT 1": "EXPLAIN /* c */ ANALYZE SELECT * FROM s.seats",
             "EXPLAIN -- c\nANALYZE SELECT 1": "EXPLAIN -- c\nANALYZE SELECT * FROM s.seats",
             "EXPLAIN (SELECT 1)": "EXPLAIN (SELECT * FROM s.main.seats)",
             "EXPLAIN (FORMAT json) (SELECT 1)": "EXPLAIN (FORMAT json) (SELECT * FROM s.seats)",
             "EXPLAIN ANALYZE /* ) */ (FORMAT json) SELECT ')'": "EXPLAIN ANALYZE /* ) */ (FORMAT json) FROM s.seats",
             "EXPLAIN (ANALYZE, FORMAT json) SELECT 1": "EXPLAIN (ANALYZE, FORMAT json) SELECT 1 FROM s.seats",
             "EXPLAIN (DESCRIBE seats)": "EXPLAIN (DESCRIBE SELECT * FROM s.seats)"}


@pytest.mark.parametrize("query", EXPLAINED)
def test_every_explain_duckdb_runs_is_run_and_its_statement_checked(two_games, query):
    """QA round 38: EXPLAIN read by a regular expression took ``(SELECT 1)`` for an option list ("syntax error at or
    near UNION", or refused) and missed ANALYZE after a comment; DuckDB runs them all. The statement explained is
    found from DuckDB's tokens and parse, and checked as before: a game chosen cannot be left through it, and what
    it calls is on the allow-list."""
    with Stats(two_games.with_suffix(".duckdb")) as st:
        assert st.sql_rows(query)[1]
        assert st.sql_rows(query, game="x610z")[1]
        with pytest.raises(QueryRefused, match="refused: with a game chosen"):
            st.sql(EXPLAINED[query], game="x610z")
        st.sql(EXPLAINED[query])  # (without a game: it runs)
        with pytest.raises(QueryRefused, match=r"query\(\) is not run"):
            st.sql(EXPLAINED[query].replace("s.main.seats", "s.seats").replace("s.seats", "query('SELECT 1')"))
    r = sql(two_games, query, "--format", "csv")
    assert r.exit_code == 0 and r.output.startswith("explain_key,explain_value"), r.output


class _FirstBatch(Exception):
    pass


def test_a_call_streams_its_rows_as_the_select_it_is_checked_as(two_games):
    """QA round 38: ``CALL range(100000000)`` held its whole result before the first row came (914 MB, where ``SELECT
    * FROM range(...)`` streams in 110 MB; ``CALL range(1e11)`` ran into the memory cap): a CALL runs as the ``SELECT *
    FROM f(...)`` zx checks of it (docs/security.md), so the first batch of a hundred billion rows comes at once."""
    def first(columns, rows):
        assert columns == ["range"] and rows[:2] == [(0,), (1,)]
        raise _FirstBatch

    with Stats(two_games.with_suffix(".duckdb")) as st:
        for query in ("CALL range(100000000000)", "SELECT 1; /* a */ CALL /* b */ range(100000000000); -- the end"):
            with pytest.raises(_FirstBatch):
                st.sql_each(query, first, timeout=5)
        assert st.sql_rows("CALL range($1)", [2])[1] == [(0,), (1,)]
        assert st.sql("CALL generate_series(1, 3)").columns == ["generate_series"]
    r = sql(two_games, "SELECT 1; CALL range(2) -- the end", "--format", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines() == ["range", "0", "1"], r.output


@pytest.mark.parametrize("query, params, duckdb_says", [
    ("SET VARIABLE v = $1; SELECT getvariable('v')", [5], "Prepared parameters are only supported for the last"),
    ("SELECT $1 AS v", [object()], "Unable to transform python value"),
    ("SELECT 2147483647::INT + 1", None, "Overflow in addition"),
    ("SELECT list_resize([1], 1e12::BIGINT)", None, "Cannot resize vector"),
])
def test_sql_duckdb_cannot_run_as_written_is_a_query_error_of_every_kind(two_games, query, params, duckdb_says):
    """docs/analytics.md: SQL DuckDB cannot run as written is ``QueryError``. DuckDB's ``NotImplementedException``
    (parameters given to a statement before the last, a parameter it cannot take) and ``OutOfRangeException`` (an
    overflow) reached the caller raw (QA round 38); DuckDB's error is the ``__cause__``."""
    from zx_analytics.stats import QueryError

    with Stats(two_games.with_suffix(".duckdb")) as st:
        for call in (st.sql, st.sql_rows, lambda q, p: st.sql_each(q, lambda c, b: None, p)):
            with pytest.raises(QueryError, match=re.escape(duckdb_says)) as got:
                call(query, params)
            assert str(got.value).startswith("SQL error: ") and isinstance(got.value.__cause__, duckdb.Error)


@pytest.mark.parametrize("query, meant", [("SELECT * FROM generate_serie(1, 3)", "generate_series"),
                                          ("SELECT * FROM rnge(3)", "range")])
def test_a_table_function_duckdb_does_not_know_is_its_error_not_a_refusal(two_games, query, meant):
    """QA round 38: a misspelt table function was "refused: ... not one of those user SQL may call"; a name of no
    function in DuckDB's catalog is DuckDB's own error, which says what was meant (one it knows, off the allow-list,
    is still refused)."""
    from zx_analytics.stats import QueryError

    for options in ((), ("--game", "x610z")):
        r = sql(two_games, query, *options)
        assert r.exit_code == 1 and "does not exist" in r.output and f'Did you mean "{meant}"' in r.output, r.output
        assert "refused" not in r.output
    with Stats(two_games.with_suffix(".duckdb")) as st:
        with pytest.raises(QueryError, match=f'Did you mean "{meant}"'):
            st.sql(query)
        with pytest.raises(QueryRefused, match=r"abs\(\) is not run"):
            st.sql("SELECT * FROM abs(3)")


def test_the_note_of_several_statements_comes_only_once_they_pass_the_checks(two_games):
    """QA round 38: "2 statements: the rows shown are the last one's" was printed before the refusal of the second
    statement; it is said only for rows shown."""
    r = sql(two_games, "SELECT 1; COPY (SELECT 1) TO 'x.csv'")
    assert r.exit_code == 1 and "refused" in r.output and "statements" not in r.stderr, r.output
    for fmt in ("table", "csv", "json"):
        r = sql(two_games, "SELECT 1 AS a; SELECT 2 AS b", "--format", fmt)
        assert r.exit_code == 0 and r.stderr.count("2 statements: the rows shown are the last one's") == 1, r.output


def test_show_tables_under_a_game_lists_each_table_once(two_games):
    """QA round 38: ``zx sql --game x610z "SHOW TABLES"`` listed every table twice (the game's temporary view and
    the file's table): each name once, the names DuckDB lists without a game."""
    every = sql(two_games, "SHOW TABLES", "--format", "csv")
    assert every.exit_code == 0 and "seats" in every.stdout.splitlines()
    for query in ("SHOW TABLES", "/* c */ show tables;"):
        r = sql(two_games, query, "--game", "x610z", "--format", "csv")
        assert r.exit_code == 0 and r.stdout == every.stdout, r.output
    with Stats(two_games.with_suffix(".duckdb")) as st:
        names = [n for n, in st.sql_rows("SHOW TABLES", game="zx")[1]]
        assert names == sorted(set(names)) and "seats" in names
