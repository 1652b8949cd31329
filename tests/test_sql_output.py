"""``zx sql`` prints whatever DuckDB returns, exactly, in every format.

Found by trying types on ``zx sql``: an INTERVAL or a UNION, an infinite timestamp, a struct holding
bytes each ended in a traceback (the result went through Polars, which refuses or panics on them),
a HUGEINT lost its last digits, ``--format json`` wrote ``NaN`` (not JSON), and ``--format csv``
cut every float to 4 digits.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from zx_analytics.stats import Stats
from analytics_support import imported_store
from zx_cli.main import zx


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return imported_store(tmp_path_factory.mktemp("sqlout"))


def run(store: Path, query: str, fmt: str):
    r = CliRunner().invoke(zx, ["--store", str(store), "sql", "--format", fmt, query])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    assert r.exit_code == 0, r.output
    return r.stdout


def strict_json(text: str):
    """JSON as the standard defines it: NaN and Infinity are not JSON."""
    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


HUGE = "170141183460469231731687303715884105727"  # the largest HUGEINT: 39 digits, more than a double or Decimal(38)

# expression -> (JSON value, CSV text): DuckDB's value, exact; DuckDB's text where Python has no value for it
TYPES = {
    "interval 14 month": ("1 year 2 months", "1 year 2 months"),
    "union_value(k := 7)": (7, "7"),
    "'infinity'::timestamp": ("infinity", "infinity"),
    "'-infinity'::date": ("-infinity", "-infinity"),
    "'12:00:00+02'::timetz": ("12:00:00+02", "12:00:00+02"),
    "'101'::bit": ("101", "101"),
    f"{HUGE}::hugeint": (int(HUGE), HUGE),
    "123456789012345678901234567890123456789012::varint": ("123456789012345678901234567890123456789012",) * 2,
    "'a\\x00\\x5C'::blob": ("a\\x00\\x5C", "a\\x00\\x5C"),
    "{'a': [1, 2], 'b': 'x\\xFF'::blob}": ({"a": [1, 2], "b": "x\\xFF"}, '{"a": [1, 2], "b": "x\\\\xFF"}'),
    "map([1, 2], ['one', 'two'])": ({"1": "one", "2": "two"}, '{"1": "one", "2": "two"}'),
    "map(['2026-11-26'::date], [1])": ({"2026-11-26": 1}, '{"2026-11-26": 1}'),
    "1.50::decimal(10, 2)": (1.5, "1.50"),
    "0.1::decimal(10, 1)": (0.1, "0.1"),
    "0.123456789::double": (0.123456789, "0.123456789"),
    "1 / 3": (1 / 3, repr(1 / 3)),
    "'nan'::double": (None, "nan"),
    "'-inf'::double": (None, "-inf"),
}


@pytest.mark.parametrize("expr", list(TYPES))
def test_zx_sql_prints_every_type_exactly_in_every_format(store, expr):
    want_json, want_csv = TYPES[expr]
    assert strict_json(run(store, f"SELECT {expr} AS v", "json")) == [{"v": want_json}]
    assert list(csv.reader(io.StringIO(run(store, f"SELECT {expr} AS v", "csv")))) == [["v"], [want_csv]]
    table = run(store, f"SELECT {expr} AS v", "table")
    assert "v" in table.splitlines()[1]


def test_a_setting_row_holding_bytes_prints(store):
    """The query that first showed it: duckdb_settings() has a VARIANT column (two byte strings)."""
    q = "SELECT * FROM duckdb_settings() WHERE name = 'enable_external_access'"
    rows = strict_json(run(store, q, "json"))
    assert rows[0]["name"] == "enable_external_access" and rows[0]["value"] == "false"
    assert "enable_external_access" in run(store, q, "table")
    assert run(store, q, "csv").splitlines()[0].startswith("name,value,")


def test_csv_and_json_keep_every_digit_the_table_rounds(store):
    q = "SELECT 2 / 3 AS r, 12345.678901234 AS x"
    assert run(store, q, "csv").splitlines() == ["r,x", f"{2 / 3!r},12345.678901234"]
    assert strict_json(run(store, q, "json")) == [{"r": 2 / 3, "x": 12345.678901234}]
    assert "0.6667" in run(store, q, "table")


def test_columns_named_alike_stay_apart(store):
    assert run(store, "SELECT 1 AS a, 2 AS a, 3 AS a_1", "csv").splitlines() == ["a,a_1,a_1_1", "1,2,3"]


def test_the_python_api_gives_a_frame_for_types_polars_cannot_hold(store):
    with Stats(store.with_suffix(".duckdb")) as st:
        df = st.sql("SELECT interval 14 month AS i, union_value(k := 7) AS u, '101'::bit AS b, "
                    "{'x': interval 1 day} AS s, 5 AS n, [1, 2] AS l")
        assert df.to_dicts() == [{"i": "1 year 2 months", "u": "7", "b": "101", "s": "{'x': 1 day}", "n": 5,
                                  "l": [1, 2]}]
        assert st.sql("SELECT 1 AS a, 2 AS a").columns == ["a", "a_1"]
        columns, rows = st.sql_rows(f"SELECT {HUGE}::hugeint AS h, 'infinity'::timestamp AS t")
        assert columns == ["h", "t"] and rows == [(int(HUGE), "infinity")]
        assert st.sql_rows("SELECT * FROM range(10) t(n)", limit=3) == (["n"], [(0,), (1,), (2,)])


def test_the_python_api_gives_an_infinite_date_or_timestamp_as_text(store):
    """DuckDB's ``infinity`` crossed Arrow as the largest value of the type, which Polars holds but
    cannot print (``print(df)`` was a Rust panic); a TIMESTAMP_S infinity came as a second before
    1970. A column holding one comes as DuckDB's text; a finite one stays a date or timestamp."""
    with Stats(store.with_suffix(".duckdb")) as st:
        df = st.sql("SELECT * FROM (VALUES ('infinity'::DATE, '-infinity'::TIMESTAMP, 'infinity'::TIMESTAMPTZ, "
                    "'infinity'::TIMESTAMP_S, 'infinity'::TIMESTAMP_NS, DATE '2020-01-02', "
                    "TIMESTAMP_S '2020-01-02 10:00:00'), (DATE '2020-01-03', NULL, NULL, NULL, NULL, NULL, NULL)) "
                    "t(d, ts, tz, s, ns, fd, fs)")
        str(df)  # prints
        assert df.row(0) == ("infinity", "-infinity", "infinity", "infinity", "infinity", date(2020, 1, 2),
                             datetime(2020, 1, 2, 10))
        assert df.row(1)[0] == "2020-01-03"
        assert df.dtypes[5] == pl.Date and isinstance(df.dtypes[6], pl.Datetime)
        assert st.sql("SELECT DATE '2020-01-02' AS d").dtypes == [pl.Date]


def test_dates_inside_lists_and_structs_and_past_9999_are_duckdbs_text(store):
    """Inside a list or a struct an infinite date was a Rust panic in Polars (print(df), df.rows()) and
    9999-12-31 in zx sql; a finite date past year 9999 (DuckDB's range is wider than Python's) a panic
    too; a TIMESTAMP_S infinity in a list a second before 1970. Date and time leaves of a nested
    column come as text in their place; a date column holding a year Python cannot hold, as text."""
    q = ("SELECT [DATE 'infinity', DATE '2020-01-02'] AS l, {'a': TIMESTAMP '-infinity', 'b': 3} AS s, "
         "['infinity'::TIMESTAMP_S] AS ls, DATE '5877642-06-24' AS far, TIMESTAMP '294247-01-10 04:00:54' AS farts, "
         "DATE '9999-12-31' AS near")
    with Stats(store.with_suffix(".duckdb")) as st:
        df = st.sql(q)
        str(df)  # prints
        assert df.rows() == [(["infinity", "2020-01-02"], {"a": "-infinity", "b": 3}, ["infinity"], "5877642-06-24",
                              "294247-01-10 04:00:54", date(9999, 12, 31))]
        columns, rows = st.sql_rows(q)
        assert rows == [(["infinity", "2020-01-02"], {"a": "-infinity", "b": 3}, ["infinity"], "5877642-06-24",
                         "294247-01-10 04:00:54", "9999-12-31")]
        assert st.sql("SELECT [1, 2] AS l, {'x': 'y'} AS s").rows() == [([1, 2], {"x": "y"})]  # no date: as it is
    assert run(store, "SELECT [DATE 'infinity', DATE '-infinity'] AS l", "csv").splitlines()[1] == '"[""infinity"", ""-infinity""]"'


def test_an_empty_query_is_an_error_and_several_statements_say_which_rows_these_are(store):
    """An empty query or one of comments only printed nothing and succeeded; several statements
    showed the last one's rows without a word."""
    for query in ("", "   ", "/* only a comment */"):
        r = CliRunner().invoke(zx, ["--store", str(store), "sql", query])
        assert r.exit_code == 2 and "the query holds no statement" in r.output, query
    r = CliRunner().invoke(zx, ["--store", str(store), "sql", "SELECT 1 AS a; SELECT 2 AS b", "--format", "csv"])
    assert r.exit_code == 0 and r.stdout == "b\n2\n"
    assert "2 statements: the rows shown are the last one's" in r.stderr
    r = CliRunner().invoke(zx, ["--store", str(store), "sql", "SELEC x"])
    assert r.exit_code == 1 and "SQL error: Parser Error" in r.output


def test_lists_print_as_json_so_that_different_values_never_print_alike(store):
    """['a, b'] and ['a', 'b'] both printed "a, b" in the table and the CSV, [] and [NULL] both an empty cell
    (as NULL): a list is its JSON text, which tells them apart (docs/analytics.md: "exactly")."""
    query = "SELECT ['a, b'] AS one, ['a', 'b'] AS two, []::VARCHAR[] AS empty, [NULL]::VARCHAR[] AS nul, " \
            "NULL::VARCHAR[] AS none"
    row = next(csv.DictReader(io.StringIO(run(store, query, "csv"))))
    assert row == {"one": '["a, b"]', "two": '["a", "b"]', "empty": "[]", "nul": "[NULL]", "none": ""}
    table = run(store, query, "table")
    assert '["a, b"]' in table and '["a", "b"]' in table and "[NULL]" in table
    # NaN and infinity in a list were JSON's null (as NULL), a DECIMAL lost its scale: DuckDB's values
    q = "SELECT ['nan'::DOUBLE, NULL, 'inf'::DOUBLE] AS f, [1.10::DECIMAL(5,2)] AS d, [{'k': 1.5}] AS s"
    assert next(csv.DictReader(io.StringIO(run(store, q, "csv")))) == {"f": "[nan, NULL, inf]", "d": "[1.10]",
                                                                       "s": '[{"k": 1.5}]'}


@pytest.mark.parametrize("limit, shown, note", [("0", 1500, None), ("1200", 1200, "showing the first 1,200 rows"),
                                                (None, 1000, "showing the first 1,000 rows")])
def test_the_table_shows_limit_rows_and_zero_shows_all(store, limit, shown, note):
    """--limit 0 ("0: all") and --limit 1200 still drew 1,000 rows, under two notes that said different things.
    (A table draws 10,000 rows at most: test_sql_sandbox.py, ``test_a_table_of_limit_0_...``.)"""
    args = ["--store", str(store), "sql", "SELECT * FROM range(1500) t(n)"] + (["--limit", limit] if limit else [])
    r = CliRunner().invoke(zx, args)
    assert r.exit_code == 0, r.output
    assert sum(1 for line in r.stdout.splitlines() if line.startswith("│")) == shown
    notes = [line for line in r.stderr.splitlines() if line.strip()]
    assert notes == ([f"{note}: --limit N (at most 10,000; 0: count the others), or --format csv|json for every row"]
                     if note else []), notes


@pytest.mark.parametrize("end", ["; -- the end", "; /* the end */", ";; -- the end", " -- the end\n; /* the end */"])
def test_a_query_ending_in_a_semicolon_and_a_comment_answers_alike_in_every_format_and_the_api(store, end):
    """``SELECT 1 AS a; -- the end`` was a syntax error at the ``;`` ("LINE 3") in the table output, and with a
    date, time or interval column in every format and in the Python API: DuckDB keeps the semicolon in the
    statement's text when a comment follows, and a projection or a limit put that text inside
    ``SELECT ... FROM (...)``. Several statements still give the last one's rows."""
    for query in (f"SELECT 1 AS a{end}", f"SELECT 0 AS z; SELECT 1 AS a{end}"):
        assert strict_json(run(store, query, "json")) == [{"a": 1}]
        assert run(store, query, "csv").splitlines() == ["a", "1"]
        assert "│ 1 │" in run(store, query, "table")
    query = f"SELECT DATE '2026-11-26' AS d, INTERVAL 1 DAY AS i{end}"
    assert strict_json(run(store, query, "json")) == [{"d": "2026-11-26", "i": "1 day"}]
    assert run(store, query, "csv").splitlines() == ["d,i", "2026-11-26,1 day"]
    assert "1 day" in run(store, query, "table")
    with Stats(store.with_suffix(".duckdb")) as st:
        assert st.sql(query).rows() == [(date(2026, 11, 26), "1 day")]
        assert st.sql_rows(query) == (["d", "i"], [("2026-11-26", "1 day")])
        assert st.sql(f"SELECT 7 AS n{end}", limit=1).rows() == [(7,)]
        rows: list = []
        assert st.sql_each(query, lambda _, batch: rows.extend(batch)) == ["d", "i"] and rows == [("2026-11-26", "1 day")]
