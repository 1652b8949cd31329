"""The statistics side of the Python API as a notebook uses it (docs/analytics.md, "In a notebook"):
user SQL that cannot change what later answers read, one Stats from several threads, a closed Stats,
wrong arguments, and export_parquet's guards (a QA pass over the API found each of these)."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from zx_analytics.db import QueryRefused, QueryTimeout, connect_reader
from zx_analytics.export import ExportWouldReplace, export_parquet
from zx_analytics.stats import QueryError, Stats, StatsClosed
from analytics_support import imported_store
from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def duck(tmp_path):
    return imported_store(tmp_path).with_suffix(".duckdb")


@pytest.mark.parametrize("statement", [
    "CREATE TEMP TABLE seats AS SELECT * FROM seats LIMIT 1",
    "CREATE TEMP VIEW seats AS SELECT * FROM seats WHERE FALSE",
    "CREATE TEMP MACRO wilson_low(k, n) AS 0.5",
    "SELECT 1; CREATE TEMP TABLE t AS SELECT 1",
    "BEGIN TRANSACTION",
    "ATTACH ':memory:' AS m (READ_WRITE); USE m",
    "ATTACH ':memory:' AS m (READ_WRITE); USE m; DETACH s",
    "EXPLAIN ANALYZE CREATE TEMP TABLE seats AS SELECT * FROM seats LIMIT 1",
])
def test_user_sql_cannot_change_what_the_statistics_read(duck, statement):
    """A temporary table, view or macro named like the file's shadowed it for every later answer of the same
    Stats (winrates from the user's 1-row table, without a word); an open transaction held every later query;
    an in-memory database ATTACHed (which the sandbox allows) then USEd, or the file's own database (``s``)
    DETACHed from under it, left every later statistic without its tables."""
    with Stats(duck, min_games=1) as st:
        before = st.winrates().to_dicts()
        with pytest.raises(QueryRefused, match="statements that make or change anything are not run"):
            st.sql(statement)
        assert st.winrates().to_dicts() == before
        assert st.sql("SELECT count(*) AS n FROM duckdb_tables() WHERE temporary AND NOT internal").item() == 0
    r = CliRunner().invoke(zx, ["sql", "--analytics", str(duck), statement])
    assert r.exit_code == 1 and "refused: zx sql is read-only and sandboxed" in r.output, r.output


@pytest.mark.parametrize("statement", [
    "SET search_path = 'system'",
])
def test_what_user_sql_leaves_on_its_connection_ends_with_the_call(duck, statement):
    """A search_path is the connection's: it reached every later answer of the same Stats (a CatalogException
    "Table with name seats does not exist"). User SQL now runs on a cursor of its own, closed after the call; zx
    sql runs it as before. (EXPLAIN ANALYZE runs the statement it explains: of a CREATE TEMP TABLE, it made a table
    named seats, past the refusal of CREATE; an EXPLAIN of a statement that makes anything is refused as that
    statement is, since QA round 38.)"""
    with Stats(duck, min_games=1) as st:
        before = st.winrates().to_dicts()
        seats = st.sql("SELECT count(*) AS n FROM seats").item()
        st.sql(statement)
        assert st.winrates().to_dicts() == before
        assert st.sql("SELECT count(*) AS n FROM seats").item() == seats
        assert st.sql("SELECT count(*) AS n FROM duckdb_tables() WHERE temporary AND NOT internal").item() == 0
    r = CliRunner().invoke(zx, ["sql", "--analytics", str(duck), statement])
    assert r.exit_code == 0, r.output


def test_another_thread_stops_the_user_sql_a_stats_runs(duck):
    """``Stats.interrupt()`` (zx sql's Ctrl-C, from its watcher thread) reaches the cursor user SQL runs on
    (DuckDB's interrupt of the connection does not reach a cursor of it)."""
    with Stats(duck) as st:
        got: list[BaseException] = []

        def run() -> None:
            try:
                st.sql("SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b", timeout=20)
            except BaseException as e:  # noqa: BLE001 - collected for the main thread
                got.append(e)

        t = threading.Thread(target=run)
        t.start()
        deadline = time.monotonic() + 10
        while t.is_alive() and time.monotonic() < deadline:  # (until the query is under way: one not begun runs)
            time.sleep(0.2)
            st.interrupt()
        t.join(timeout=10)
        assert not t.is_alive(), "the query went on after interrupt()"
        assert len(got) == 1 and isinstance(got[0], duckdb.InterruptException), got
        assert st.sql("SELECT 1 AS one").item() == 1  # the Stats goes on


def test_the_time_limit_passing_while_rows_are_written_is_a_query_timeout(duck, monkeypatch):
    """``sql_each`` checks its deadline (taken as it starts) between batches; the interruption that check
    raised was then told from a Ctrl-C by the time since ``_sql`` began, a moment later: past the deadline
    but within the limit of that later start, it left as a bare ``InterruptException`` (``zx sql --format
    table``: "SQL error: the time limit passed while the rows were written", now and then on a loaded
    machine). The clock of zx_analytics.stats is made to read, after the first batch, a time in that gap."""
    import types

    import zx_analytics.stats as stats_module

    readings: list[float] = []
    jump: list[float] = []

    def monotonic() -> float:
        now = jump[0] if jump else time.monotonic()
        readings.append(now)
        return now

    def consume(columns: list[str], rows: list[tuple]) -> None:
        deadline, began = readings[0] + 5, readings[1] + 5  # sql_each's deadline; then _sql's start's
        jump.append((deadline + began) / 2)

    monkeypatch.setattr(stats_module, "time", types.SimpleNamespace(monotonic=monotonic))
    with Stats(duck) as st:
        with pytest.raises(QueryTimeout, match="the query ran longer than 5 s and was stopped"):
            st.sql_each("SELECT range FROM range(30000)", consume, timeout=5, batch=10_000)


def test_stats_of_neither_a_path_nor_a_connection_is_a_type_error():
    with pytest.raises(TypeError, match="source must be the analytics file's path .* got NoneType None"):
        Stats(None)


def test_user_sql_errors_are_the_projects_with_duckdbs_words(duck):
    with Stats(duck) as st:
        with pytest.raises(QueryError, match='SQL error: Parser Error: syntax error at or near "SELEC"'):
            st.sql("SELEC 1")
        with pytest.raises(QueryError, match="SQL error: Catalog Error: Table with name seat does not exist"):
            st.sql("SELECT * FROM seat")
        with pytest.raises(TypeError, match="query must be SQL text"):
            st.sql(None)
        with pytest.raises(TypeError, match="deck must be a name \\(a str\\), got int 5"):
            st.winrates(deck=5)
        assert st.sql("SELECT 1 AS one").item() == 1


def test_a_closed_stats_says_it_was_closed(duck):
    st = Stats(duck)
    st.close()
    for use in (st.winrates, st.games, lambda: st.sql("SELECT 1")):
        with pytest.raises(StatsClosed, match="this Stats was closed"):
            use()


def test_a_stats_says_what_it_reads_and_its_statistics_keep_their_signatures(duck):
    """A notebook showed ``<analytics.stats.Stats object at 0x...>``, and ``by_game`` (``-> Any``) erased every
    statistic's parameters for a type checker and ``help()`` (QA round 34)."""
    import inspect

    st = Stats(duck, min_games=3)
    assert repr(st) == f"Stats({str(duck)!r}, min_games=3)"
    st.close()
    assert repr(st).endswith(", closed)")
    with duckdb.connect(str(duck), read_only=True) as con:
        assert repr(Stats(con)).startswith("Stats(an open DuckDB connection, min_games=")
    assert list(inspect.signature(Stats.winrates).parameters) == ["self", "by", "filters"]
    from zx_analytics.stats import by_game  # a decorator that gives back the method's own type, for a type checker

    assert inspect.signature(by_game).return_annotation == "Callable[[_Method], _Method]"


def test_one_stats_from_several_threads_answers_each_call_as_alone(duck):
    """``sql(game=...)`` shadows the tables with one game's views on the connection: another thread's
    statistics read them ("no game named 'zx'"), DuckDB said "connection is busy", and views left behind
    by a failed DROP answered one game for good."""
    with Stats(duck, min_games=1) as st:
        want = st.winrates(game="zx").to_dicts()
        errors: list[BaseException] = []

        def statistics() -> None:
            for _ in range(30):
                try:
                    assert st.winrates(game="zx").to_dicts() == want
                except BaseException as e:  # noqa: BLE001 - collected for the main thread
                    errors.append(e)

        def user_sql() -> None:
            for _ in range(30):
                try:
                    st.sql("SELECT count(*) FROM seats", game="zx")
                except BaseException as e:  # noqa: BLE001
                    errors.append(e)

        threads = [threading.Thread(target=f) for f in (statistics, user_sql, statistics, user_sql)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert st.sql("SELECT count(*) AS n FROM duckdb_views() WHERE temporary AND NOT internal").item() == 0


def test_export_parquet_replaces_neither_a_users_folder_nor_the_file_it_reads(duck, tmp_path):
    """The CLI refused both; the Python API wiped a folder ``matches/`` of the user's, and the analytics file
    it was reading from under ``out/seats/``."""
    out = tmp_path / "exp"
    (out / "matches").mkdir(parents=True)
    (out / "matches" / "mine.txt").write_text("my notes")
    con = connect_reader(duck)
    try:
        with pytest.raises(ExportWouldReplace, match="holds matches, which the export would replace"):
            export_parquet(con, out)
        assert (out / "matches" / "mine.txt").read_text() == "my notes"
        assert export_parquet(con, out, force=True)  # asked for: replaced
        assert not (out / "matches" / "mine.txt").exists()
    finally:
        con.close()
    inside = tmp_path / "exp2" / "seats"
    inside.mkdir(parents=True)
    copy = inside / "a.duckdb"
    copy.write_bytes(duck.read_bytes())
    con = connect_reader(copy)
    try:
        with pytest.raises(ExportWouldReplace, match="and the analytics file is there: zx never writes over a file"):
            export_parquet(con, tmp_path / "exp2", force=True)
    finally:
        con.close()
    assert copy.read_bytes() == duck.read_bytes()


def test_a_connection_given_to_stats_never_aborts_the_process_at_exit(tmp_path):
    """``Stats(duckdb.connect(new file)).sql(...)``: the time limit's timer thread, cancelled but still alive
    as the process exited, made it abort ("terminate called after throwing ...", exit 134) 8 runs in 10."""
    code = ("import duckdb, sys\nfrom zx_analytics.stats import Stats\n"
            "Stats(duckdb.connect(sys.argv[1])).sql('SELECT 1')\n")
    for i in range(8):
        path = tmp_path / f"new{i}.duckdb"
        r = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 0, (i, r.returncode, r.stderr[-500:])


@pytest.mark.parametrize("target", ["s3://bucket/a.duckdb", "postgresql://u@h/db", ":memory:", "md:mine", "sqlite:x.db",
                                    "file:a.duckdb"])
def test_update_and_stats_refuse_a_url_or_duckdbs_own_databases_as_the_file(duck, tmp_path, monkeypatch, target):
    """docs/analytics.md: such a path is refused by the Python API too, before anything opens it. update() made
    folders s3:/bucket and postgresql:/u@h in the working directory, then failed on DuckDB's missing extension;
    :memory: "projected 8 matches" into a database gone with the call."""
    from zx_analytics.db import AnalyticsError
    from zx_analytics.projection import update
    from zx_events.application import MatchService

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    with MatchService(str(duck.with_suffix(".sqlite")), create=False) as svc:
        with pytest.raises(AnalyticsError, match=f"the analytics file {target} is not a file path .*nothing was created"):
            update(svc, target)
    with pytest.raises(AnalyticsError, match=f"the analytics file {target} is not a file path"):
        Stats(target)
    assert list(work.iterdir()) == []


def test_wrong_argument_types_are_type_errors_that_say_what_to_give(duck, tmp_path):
    """Each was an AttributeError from inside (no attribute 'casefold', 'strip', 'store', 'execute')."""
    from zx_analytics.projection import update

    with Stats(duck, min_games=1) as st:
        with pytest.raises(TypeError, match=r"game must be a game's key \(a str: zx, x610z\), got int 1"):
            st.sql("SELECT 1", game=1)
        with pytest.raises(TypeError, match=r"card must be a card's code or name \(a str\), got int 5"):
            st.cards(card=5)
        with pytest.raises(TypeError, match=r"export_parquet reads through a DuckDB connection .*connect_reader"
                                            r"\(PATH\), or a Stats' .con\), not Stats"):
            export_parquet(st, tmp_path / "out")
        with pytest.raises(TypeError, match="out must be a folder's path"):
            export_parquet(st.con, None)
        for bad in ("5", [5], True):  # ('5': unsupported operand type(s) for +; True was taken as 1 s)
            for call in (st.sql, st.sql_rows, lambda q, timeout: st.sql_each(q, print, timeout=timeout)):
                with pytest.raises(TypeError, match=r"timeout is a number of seconds \(0..86400\), or None for no "
                                                    r"limit, not "):
                    call("SELECT 1", timeout=bad)
    with pytest.raises(TypeError, match=r"update takes a MatchService .*not str 'zx-store.sqlite'"):
        update("zx-store.sqlite", tmp_path / "x.duckdb")
    assert not (tmp_path / "out").exists() and not (tmp_path / "x.duckdb").exists()


def test_min_games_limit_and_batch_of_another_type_or_range_say_what_to_give(duck):
    """docs/analytics.md: every argument of another type is a TypeError saying what to give, as timeout's (QA round
    27, D4): min_games='5' or None was "'<' not supported between instances of 'str' and 'int'", limit='3'
    DuckDB's "limit(): incompatible function arguments", limit=-1 was ignored (every row), min_games=2.5 and True
    (bool is no count here) were taken, and sql_each's batch=0 returned no row."""
    for bad in ("5", None, 2.5, True):
        with pytest.raises(TypeError, match=r"min_games is a whole number of games \(1 or more\), not "
                                            rf"{type(bad).__name__} {re.escape(repr(bad))}$"):
            Stats(duck, min_games=bad)
    with pytest.raises(ValueError, match=r"min_games must be 1 or more games, got 0$"):
        Stats(duck, min_games=0)
    with Stats(duck, min_games=2) as st:
        assert st.min_games == 2
        calls = (st.sql, st.sql_rows, lambda q, **kw: st.sql_each(q, lambda *_: None, **kw))
        for call in calls:
            for bad in ("3", 2.5, True, [3]):
                with pytest.raises(TypeError, match=r"limit is a whole number of rows \(0 or more\), or None for "
                                                    rf"every row, not {type(bad).__name__} {re.escape(repr(bad))}$"):
                    call("SELECT * FROM range(5)", limit=bad)
            with pytest.raises(ValueError, match=r"limit must be 0 or more rows, or None for every row, got -1$"):
                call("SELECT * FROM range(5)", limit=-1)
        for bad in ("3", 2.5, False, None):
            with pytest.raises(TypeError, match=r"batch is a whole number of rows \(1 or more\), not "):
                st.sql_each("SELECT * FROM range(5)", lambda *_: None, batch=bad)
        with pytest.raises(ValueError, match=r"batch must be 1 or more rows, got 0$"):
            st.sql_each("SELECT * FROM range(5)", lambda *_: None, batch=0)
        # what was right stays so
        assert [st.sql("SELECT * FROM range(5)", limit=n).height for n in (0, 2, None)] == [0, 2, 5]
        assert len(st.sql_rows("SELECT * FROM range(5)", limit=3)[1]) == 3
        got: list[int] = []
        st.sql_each("SELECT * FROM range(5)", lambda _, rows: got.append(len(rows)), batch=2)
        assert got == [2, 2, 1]


def test_a_time_limit_of_0_is_no_limit_in_sql_sql_rows_and_sql_each_as_in_zx_sql(duck):
    """timeout=0 is no limit in all three, as zx sql --timeout 0 (sql_rows and sql_each stopped at once; sql ran
    with no limit, its timer's interrupt lost); a time limit reached says so in the API's words (it told a
    Python caller about --timeout), zx sql in its own."""
    quick = "SELECT count(*) AS n FROM range(1000000)"
    with Stats(duck) as st:
        assert st.sql(quick, timeout=0).item() == 1000000
        assert st.sql_rows(quick, timeout=0) == (["n"], [(1000000,)])
        got = []
        assert st.sql_each(quick, lambda c, r: got.extend(r), timeout=0) == ["n"] and got == [(1000000,)]
        slow = "SELECT count(*) AS n FROM range(1000000000000) a, range(10) b"
        words = r"the query ran longer than 0.3 s and was stopped \(raise the limit with timeout=SECONDS, None for none\)"
        for call in (lambda: st.sql(slow, timeout=0.3), lambda: st.sql_rows(slow, timeout=0.3)):
            with pytest.raises(QueryTimeout, match=words):
                call()
    r = CliRunner().invoke(zx, ["sql", "--analytics", str(duck), "--timeout", "0.5", slow])
    assert r.exit_code == 1 and ("the query ran longer than 0.5 s and was stopped (raise the limit with --timeout "
                                 "SECONDS, 0 for none)") in r.output, r.output


def test_a_sum_of_integers_converts_to_arrow_exactly(duck):
    """A HUGEINT (sum() of integers) came as Polars' Int128, which to_arrow() and to_pandas() refuse ("Invalid or
    unsupported format string: '_pli128'"): Int64 when every value fits, else a Decimal(38, 0), else Int128."""
    import polars as pl
    import pyarrow as pa

    with Stats(duck) as st:
        df = st.sql("SELECT deck, sum(damage_taken) AS damage FROM seats GROUP BY ALL ORDER BY 1")
        assert df.schema["damage"] == pl.Int64 and df.to_arrow().schema.field("damage").type == pa.int64()
        big = st.sql("SELECT sum(x) AS s FROM (VALUES (9223372036854775807::BIGINT), (10::BIGINT)) t(x)")
        assert big.item() == 9223372036854775817 and big.to_arrow().schema.field("s").type == pa.decimal128(38, 0)
        huge = st.sql("SELECT 170141183460469231731687303715884105727::HUGEINT AS h")
        assert huge.item() == 170141183460469231731687303715884105727  # exact (39 digits: Int128)
        assert st.sql("SELECT NULL::HUGEINT AS n").item() is None


def test_update_while_this_process_holds_a_stats_on_the_file_says_close_it(duck):
    """DuckDB's raw "Can't open a connection to same database file with a different configuration than existing
    connections" came as "cannot open ...": across processes the same is FileInUse naming who and what to do."""
    from zx_analytics.db import FileInUse
    from zx_analytics.projection import update
    from zx_events.application import MatchService

    with MatchService(str(duck.with_suffix(".sqlite")), create=False) as svc:
        with Stats(duck):
            with pytest.raises(FileInUse, match=r"is open in this process \(a Stats, or another DuckDB connection to "
                                                r"it\): close it first \(Stats.close\(\)"):
                update(svc, duck)
        assert update(svc, duck).events == 0  # closed: it updates
