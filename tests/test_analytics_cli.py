"""The analytics commands end to end: zx import -> zx stats / sql / export; resuming after a crash."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

from zx_analytics.parallel import WORKERS_ENV
from zx_analytics.projection import CRASH_ENV
from analytics_support import all_tables, assert_same_tables, imported_store, log_text
from failure_support import zx_here
from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
ZX = [str(Path(sys.executable).with_name("zx"))]  # the installed console script


@pytest.fixture
def imported(tmp_path):
    """The hand-built matches imported into a SQLite store, analytics updated by zx import."""
    return imported_store(tmp_path)


def run(store: Path, *args: str) -> "object":
    return CliRunner().invoke(zx, ["--store", str(store), *args])


def test_import_updates_the_analytics_file_next_to_the_store(imported):
    assert imported.with_suffix(".duckdb").exists()
    r = run(imported, "stats", "winrates", "--by", "first", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [(x["seat"], x["games"], x["wins"], x["low_sample"]) for x in rows] == [("first", 2, 2, True),
                                                                                   ("second", 2, 0, True)]


def test_no_analytics_skips_it(tmp_path):
    log = tmp_path / "hand.zxlog"
    log.write_text(log_text(("m1",)), encoding="utf-8")
    store = tmp_path / "s.sqlite"
    r = run(store, "import", "--no-analytics", str(log))
    assert r.exit_code == 0 and not store.with_suffix(".duckdb").exists()
    r = run(store, "stats", "matchups")
    assert r.exit_code == 1
    assert f"no analytics file at {store.with_suffix('.duckdb')}: run `zx --store {store} analytics update`" in r.output
    r = run(store, "analytics", "update", "--format", "csv")
    assert r.exit_code == 0, r.output
    header, row = r.stdout.splitlines()
    assert header == "analytics,events,matches,pages,position,seconds,events_per_s,rebuilt,workers"
    assert row.split(",")[2:4] == ["1", "1"]


def test_analytics_path_from_env_and_option(tmp_path, monkeypatch):
    log = tmp_path / "hand.zxlog"
    log.write_text(log_text(("m2",)), encoding="utf-8")
    monkeypatch.setenv("ZX_ANALYTICS", str(tmp_path / "env.duckdb"))
    assert run(tmp_path / "s.sqlite", "import", str(log)).exit_code == 0
    assert (tmp_path / "env.duckdb").exists() and not (tmp_path / "s.duckdb").exists()
    r = run(tmp_path / "s.sqlite", "stats", "winrates", "--analytics", str(tmp_path / "other.duckdb"))
    assert r.exit_code == 1 and "no analytics file at" in r.output and "other.duckdb" in r.output


def test_every_stats_command_prints_a_table_json_and_csv(imported):
    commands = [["winrates", "--by", b] for b in ("deck", "colour", "player", "first")]
    commands += [["winrates", "--by", "archetype"], ["matchups", "--by", "archetype"], ["mulligans"], ["archetypes"]]
    commands += [["meta", "--by", b] for b in ("week", "month", "event")] + [["meta", "--group", "archetype"]]
    commands += [["matchups"], ["life"], ["life", "--by", "turn"], ["cards"]]
    commands += [["attacks", "--by", b] for b in ("card", "square", "target")]
    for cmd in commands:
        table = run(imported, "stats", *cmd)
        assert table.exit_code == 0 and "sample" in table.stdout, (cmd, table.output)
        rows = json.loads(run(imported, "stats", *cmd, "--format", "json").stdout)
        csv = run(imported, "stats", *cmd, "--format", "csv").stdout.splitlines()
        assert len(csv) == len(rows) + 1 and rows and "low_sample" in csv[0].split(","), cmd


def test_stats_filters_and_min_games(imported):
    r = run(imported, "stats", "winrates", "--deck", "Red Dragons", "--by", "player", "--min-games", "1",
            "--format", "csv")
    lo, hi = 0.20654931437723745, 0.7934506856227626  # Wilson 1/1 and 0/1, full precision in CSV (and JSON)
    assert r.stdout.splitlines()[1:] == [f"Aki,1,1,0,0,1.0,{lo},1.0,False", f"Mio,1,0,1,0,0.0,0.0,{hi},False"]
    r = run(imported, "stats", "matchups", "--since", "2026-12-01", "--until", "2026-12-31", "--event", "Cup",
            "--player", "Ren", "--format", "json")
    assert [(x["deck"], x["opponent"], x["wins"]) for x in json.loads(r.stdout)] == [("Blue Control", "Red Dragons", 1)]


def test_bad_stats_options_are_usage_errors(imported):
    r = run(imported, "stats", "winrates", "--by", "colors")
    assert r.exit_code == 2 and "'colors' is not one of 'deck', 'archetype', 'colour', 'player', 'first'" in r.output
    r = run(imported, "stats", "life", "--since", "2026-13-01")
    assert r.exit_code == 2 and "Invalid value for '--since': '2026-13-01' is not a date (YYYY-MM-DD)" in r.output
    r = run(imported, "stats", "cards", "--min-games", "0")
    assert r.exit_code == 2


def test_sql_read_only(imported):
    r = run(imported, "sql", "SELECT deck, count(*) AS games FROM seats GROUP BY ALL ORDER BY deck", "--format", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines() == ["deck,games", "Blue Control,3", "Red Dragons,3"]
    r = run(imported, "sql", "DELETE FROM matches")
    assert r.exit_code == 1 and "refused: zx sql is read-only" in r.output
    r = run(imported, "sql", "SELEC 1")
    assert r.exit_code == 1 and "SQL error: Parser Error" in r.output


def test_export_parquet_partitioned_by_month(imported, tmp_path):
    out = tmp_path / "out"
    r = run(imported, "export", "--parquet", str(out), "--format", "json")
    assert r.exit_code == 0, r.output
    rows = {x["table"]: x for x in json.loads(r.stdout)}
    assert rows["matches"]["rows"] == 3 and rows["matches"]["months"] == 3
    assert sorted(p.name for p in (out / "matches").iterdir()) == ["month=2026-11", "month=2026-12", "month=unknown"]
    assert (out / "data-dictionary.md").read_text() == (ROOT / "docs" / "data-dictionary.md").read_text()
    tables = all_tables(imported.with_suffix(".duckdb"))
    for name in ("matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_games"):
        back = pl.scan_parquet(out / name, hive_partitioning=True).collect()
        assert back.height == tables[name].height == rows[name]["rows"], name
    attacks = pl.scan_parquet(out / "attacks").filter(pl.col("month") == "2026-12").collect()
    assert attacks["match_id"].to_list() == ["m2"]
    assert pl.read_parquet(out / "card_catalog" / "card_catalog.parquet").height == 134
    again = run(imported, "export", "--parquet", str(out))  # replaces, never appends
    assert again.exit_code == 0 and pl.scan_parquet(out / "plays").collect().height == tables["plays"].height


def test_export_counts_every_table_it_writes_card_catalog_too(imported, tmp_path):
    """QA 31: the progress bar said "exporting 13/13" and the table that followed listed 14 tables (card_catalog, one
    file without months, was not counted): each table written is one step, the bar's total is the tables'."""
    from zx_analytics.db import connect_reader
    from zx_analytics.export import PARTITIONED, export_parquet

    told: list[str] = []
    con = connect_reader(imported.with_suffix(".duckdb"))
    try:
        rows = export_parquet(con, tmp_path / "out", on_table=told.append)
    finally:
        con.close()
    assert told == [r["table"] for r in rows] == [*PARTITIONED, "card_catalog"]
    r = run(imported, "export", "--parquet", str(tmp_path / "again"))
    assert r.exit_code == 0 and f"{len(told)}/{len(told)}" in r.stderr, r.stderr


def test_export_into_a_folder_that_cannot_be_made_says_why_without_an_empty_bar(imported, tmp_path):
    """QA 31: ``zx export --parquet /proc/nope`` drew "exporting 0/14 0:00:00" then said "[Errno 2] No such file
    or directory: '/proc/nope'": the bar is drawn once the folder is made, the error says what failed in words."""
    (tmp_path / "a-file").write_text("x")
    out = tmp_path / "a-file" / "out"
    r = run(imported, "export", "--parquet", str(out))
    assert r.exit_code == 1, r.output
    assert r.stderr == f"Error: cannot export to {out}: Not a directory\n", r.stderr
    assert not out.exists()


def test_export_holds_every_row_and_column_of_the_analytics_file(imported, tmp_path):
    """The export reads the file through the sandboxed connection and writes the Parquet files through
    another (the rows cross as Arrow batches): read back, every table holds the file's rows and columns,
    of the same types, with its month (card_catalog as it is), as the COPY on the file itself wrote them."""
    from zx_analytics.export import PARTITIONED

    out = tmp_path / "out"
    assert run(imported, "export", "--parquet", str(out)).exit_code == 0
    con = duckdb.connect()
    con.execute(f"ATTACH '{imported.with_suffix('.duckdb')}' AS a (READ_ONLY)")
    try:
        for table in (*PARTITIONED, "card_catalog"):
            if table == "card_catalog":
                source = "SELECT * FROM a.card_catalog"
            elif table in ("matches", "seats"):
                source = f"SELECT * REPLACE (coalesce(month, 'unknown') AS month) FROM a.{table}"
            else:
                source = (f"SELECT t.*, coalesce(m.month, 'unknown') AS month FROM a.{table} t "
                          f"JOIN a.matches m USING (match_no)")
            columns = [c[:2] for c in con.execute(f"DESCRIBE {source}").fetchall()]  # (name, type)
            names = ", ".join(f'"{name}"' for name, _ in columns)
            files = f"read_parquet('{out / table}/**/*.parquet', hive_partitioning = true)"
            everything = {c[0] for c in con.execute(f"DESCRIBE SELECT * FROM {files}").fetchall()}
            assert everything == {name for name, _ in columns}, table
            back = f"SELECT {names} FROM {files}"
            assert [c[:2] for c in con.execute(f"DESCRIBE {back}").fetchall()] == columns, table
            n = con.execute(f"SELECT count(*) FROM ({source})").fetchone()[0]
            assert con.execute(f"SELECT count(*) FROM ({back})").fetchone()[0] == n, table
            assert con.execute(f"SELECT count(*) FROM (({source}) EXCEPT ALL ({back}))").fetchone()[0] == 0, table
        assert n == 134
    finally:
        con.close()


def test_export_of_a_table_with_no_rows_reads_with_its_columns_and_leaves_no_empty_month(imported, tmp_path):
    """A partitioned COPY of no rows wrote no file: in a Z/X-only store the x610z_* folders were empty and
    ``pl.scan_parquet(out/x610z_attacks)`` failed ("expanded paths were empty"), DuckDB's read_parquet
    too. Each such table is now one file of its columns and no row. And a re-export left the month
    folders of an earlier one behind, emptied (a Hive partition scan lists them)."""
    from zx_analytics.export import PARTITIONED

    out = tmp_path / "out"
    assert run(imported, "export", "--parquet", str(out)).exit_code == 0
    stale = out / "matches" / "month=1999-01"  # a month of an earlier export, not in this store
    stale.mkdir()
    pl.DataFrame({"x": [1]}).write_parquet(stale / "data_0.parquet")
    r = run(imported, "export", "--parquet", str(out), "--format", "json")
    assert r.exit_code == 0, r.output
    rows = {x["table"]: x["rows"] for x in json.loads(r.stdout)}
    assert rows["x610z_attacks"] == 0 and rows["matches"] == 3
    con = duckdb.connect(str(imported.with_suffix(".duckdb")), read_only=True)
    try:
        for table in PARTITIONED:
            back = pl.scan_parquet(out / table, hive_partitioning=True).collect()
            columns = [c[0] for c in con.execute(f"DESCRIBE {table}").fetchall()]
            assert back.height == rows[table], table
            assert sorted(back.columns) == sorted({*columns, "month"}), table
            n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out / table}/**/*.parquet')").fetchall()[0][0]
            assert n == rows[table], table
    finally:
        con.close()
    assert not stale.exists()
    assert sorted(p.name for p in (out / "matches").iterdir()) == ["month=2026-11", "month=2026-12", "month=unknown"]


def test_data_dictionary_documents_every_column(imported):
    text = (ROOT / "docs" / "data-dictionary.md").read_text(encoding="utf-8")
    documented: dict[str, list[tuple[str, str]]] = {}
    section = None
    for line in text.splitlines():
        if line.startswith("## ") or line.startswith("### x610z_"):
            section = line.split(" ", 1)[1].strip()
        m = re.match(r"\| ([a-z0-9_]+) \| ([A-Z\[\]]+) \|", line)
        if m and section:
            documented.setdefault(section, []).append((m.group(1), m.group(2)))
    con = duckdb.connect(str(imported.with_suffix(".duckdb")), read_only=True)
    spelled = {"TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ"}
    for name in ("matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_games",
                 "card_catalog", "x610z_attacks", "x610z_life", "x610z_moves", "x610z_casts"):
        cols = [(c, spelled.get(t, t)) for c, t in con.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? "
            "ORDER BY ordinal_position", [name]).fetchall()]
        assert documented.get(name) == cols, name
    con.close()


def _zx(store: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*ZX, "--store", store, *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


@pytest.mark.parametrize("backend,workers", [("sqlite", "0"), ("sqlite", "2"),
                                             pytest.param("postgres", "0", marks=pytest.mark.postgres)],
                         indirect=["backend"])
def test_killed_mid_run_resumes_without_double_counting(store_url, tmp_path, workers):
    """The restart test: the update dies inside a page's transaction (os._exit, like a kill -9),
    runs again, and every table equals a rebuild into another file. ``workers``: serially, and by
    worker processes (a SQLite store; they die with the update). (Not "postgres" with workers: a PostgreSQL
    store is projected serially whatever ZX_ANALYTICS_WORKERS says, ``parallel.eligible``: the same case.) The
    update killed runs in a process of its own; the import before it, the run again and the rebuild in this one."""
    from zx_events.games.zx.sim import simulate, write_files

    # 15 matches (~1,500 events) in pages of 150 events: as many pages as 30 matches in pages of 300, half the work
    list(write_files(tmp_path / "sim", 11, simulate(15, 11, policy="mixed"), 15))
    logs = sorted(str(p) for p in (tmp_path / "sim").glob("*.zxlog"))
    r = zx_here(ROOT, "--store", store_url, "import", "--no-analytics", "--format", "csv", *logs)
    assert r.returncode == 0, r.stderr
    path, rebuilt = tmp_path / "a.duckdb", tmp_path / "rebuilt.duckdb"
    crashed = _zx(store_url, "analytics", "update", "--analytics", str(path), "--page-size", "150",
                  env={CRASH_ENV: "3", WORKERS_ENV: workers})
    assert crashed.returncode == 75, crashed.stderr
    con = duckdb.connect(str(path), read_only=True)
    (position, inflight), = con.execute("SELECT position, (SELECT count(*) FROM projection_inflight) "
                                        "FROM projection_position").fetchall()
    partial = con.execute("SELECT count(*) FROM matches").fetchall()[0][0]
    con.close()
    assert position > 0 and 0 < partial < 15  # three pages committed, the fourth rolled back
    resumed = zx_here(ROOT, "--store", store_url, "analytics", "update", "--analytics", str(path), "--page-size",
                      "150", "--format", "json", env={WORKERS_ENV: workers})
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)[0]["matches"] == 15 - partial
    full = zx_here(ROOT, "--store", store_url, "analytics", "update", "--rebuild", "--analytics", str(rebuilt),
                   "--format", "json")
    assert full.returncode == 0, full.stderr
    assert json.loads(full.stdout)[0]["matches"] == 15
    assert_same_tables(rebuilt, path)
    assert inflight in (0, 1)


def test_a_rebuild_by_workers_commits_its_pages_together_and_resumes(tmp_path):
    """A rebuild by worker processes commits its pages in one transaction (up to REBUILD_COMMIT events), so
    that their rows go into the file once, not into DuckDB's write-ahead log first: killed inside its fourth
    page (os._exit, like a kill -9), it has committed nothing of its projection, and the next update projects
    every match once (the tables of a serial rebuild). (The update killed in a process of its own, the rest here.)"""
    from zx_events.games.zx.sim import simulate, write_files

    # 10 matches (~1,000 events) in pages of 100 events: as many pages as 20 matches in pages of 200, half the work
    list(write_files(tmp_path / "sim", 12, simulate(10, 12, policy="mixed"), 10))
    store = str(tmp_path / "store.sqlite")
    logs = sorted(str(p) for p in (tmp_path / "sim").glob("*.zxlog"))
    r = zx_here(ROOT, "--store", store, "import", "--no-analytics", "--format", "csv", *logs)
    assert r.returncode == 0, r.stderr
    path, serial = tmp_path / "a.duckdb", tmp_path / "serial.duckdb"
    crashed = _zx(store, "analytics", "update", "--rebuild", "--analytics", str(path), "--page-size", "100",
                  env={CRASH_ENV: "3", WORKERS_ENV: "2"})
    assert crashed.returncode == 75, crashed.stderr
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT position, events FROM projection_position").fetchall() == [(0, 0)]
    assert con.execute("SELECT count(*) FROM matches").fetchall() == [(0,)]
    con.close()
    resumed = zx_here(ROOT, "--store", store, "analytics", "update", "--analytics", str(path), "--page-size", "100",
                      "--format", "json", env={WORKERS_ENV: "2"})
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)[0]["matches"] == 10
    full = zx_here(ROOT, "--store", store, "analytics", "update", "--rebuild", "--analytics", str(serial),
                   "--format", "json", env={WORKERS_ENV: "0"})
    assert full.returncode == 0, full.stderr
    assert_same_tables(serial, path)


def test_update_workers_option_projects_the_same_tables(imported, tmp_path):
    """zx analytics update --workers N: N processes project whole matches (the output says how many);
    --workers 1 projects in this process; both give every table the same rows."""
    serial, parallel = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    r1 = run(imported, "analytics", "update", "--rebuild", "--analytics", str(serial), "--workers", "1",
             "--format", "json")
    r2 = run(imported, "analytics", "update", "--rebuild", "--analytics", str(parallel), "--workers", "2",
             "--format", "json")
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.output + r2.output
    (one,), (two,) = json.loads(r1.stdout), json.loads(r2.stdout)
    assert one["workers"] == 0 and two["workers"] == 2
    assert (one["events"], one["matches"], one["position"]) == (two["events"], two["matches"], two["position"])
    a, b = all_tables(serial), all_tables(parallel)
    assert a.keys() == b.keys()
    for name in a:
        assert_frame_equal(a[name], b[name], check_row_order=False)
    bad = run(imported, "analytics", "update", "--workers", "0")
    assert bad.exit_code == 2 and "--workers" in bad.output


def test_zx_stats_writes_nothing_but_its_table(imported):
    """A real process, to its exit: stderr holds no warning (DuckDB's bindings used to report
    "nanobind: leaked 27 instances!" at every exit of zx stats)."""
    r = subprocess.run([sys.executable, "-c", "from zx_cli.main import main; main()", "--store", str(imported),
                        "stats", "winrates", "--format", "csv"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("deck,")
    assert r.stderr == "", r.stderr


def test_export_never_replaces_folders_it_did_not_write_unless_forced(imported, tmp_path):
    """A directory that is not an earlier export (no data dictionary of zx): a folder named like a
    table is the user's, and the export (which replaces its own folders whole) leaves it alone."""
    out = tmp_path / "mine"
    (out / "matches").mkdir(parents=True)
    (out / "matches" / "notes.txt").write_text("keep me")
    (out / "card_catalog").mkdir()
    (out / "card_catalog" / "mine.parquet").write_bytes(b"not ours")
    r = run(imported, "export", "--parquet", str(out))
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"--parquet {out} holds matches, card_catalog, which the export would replace" in r.output
    assert "nothing was written" in r.output
    assert (out / "matches" / "notes.txt").read_text() == "keep me"
    assert (out / "card_catalog" / "mine.parquet").read_bytes() == b"not ours"
    assert sorted(p.name for p in out.iterdir()) == ["card_catalog", "matches"]
    other = tmp_path / "other"  # other files beside the export's own names: no clash
    other.mkdir()
    (other / "readme.txt").write_text("mine")
    assert run(imported, "export", "--parquet", str(other)).exit_code == 0
    assert (other / "readme.txt").read_text() == "mine" and (other / "data-dictionary.md").is_file()
    assert run(imported, "export", "--parquet", str(other)).exit_code == 0  # an earlier export: replaced
    forced = run(imported, "export", "--parquet", str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert not (out / "matches" / "notes.txt").exists()
    assert pl.scan_parquet(out / "matches").collect().height == 3


def test_stats_and_sql_say_when_the_file_is_behind_the_store(tmp_path, monkeypatch):
    """zx stats, zx sql and zx export read only the analytics file: after an import with --no-analytics their
    figures left out the new matches without a word."""
    monkeypatch.delenv("ZX_ANALYTICS", raising=False)
    monkeypatch.delenv("ZX_STORE", raising=False)
    legal = Path(__file__).resolve().parent.parent / "examples" / "legal"
    store = str(tmp_path / "s.sqlite")

    def zx_(*args: str):
        r = CliRunner().invoke(zx, ["--store", store, *args])
        assert r.exit_code == 0, r.output
        return r

    zx_("import", str(legal / "long-game-reload-win-by-life.zxlog"))
    for args in (["stats", "winrates", "--min-games", "1"], ["sql", "SELECT count(*) AS n FROM matches"]):
        assert "note:" not in zx_(*args).stderr
    zx_("import", "--no-analytics", str(legal / "range-attacks-win-by-life.zxlog"))
    for args in (["stats", "winrates", "--min-games", "1"], ["sql", "SELECT count(*) AS n FROM matches"]):
        r = zx_(*args)
        assert re.search(r"note: .*s\.duckdb is behind the store .*s\.sqlite \(notification \d+ of \d+\): these "
                         r"figures leave out what was imported since; `zx --store \S+ analytics update`", r.stderr), r.stderr
    r = zx_("export", "--parquet", str(tmp_path / "pq"))
    assert "is behind the store" in r.stderr
    zx_("analytics", "update")
    assert "note:" not in zx_("stats", "winrates", "--min-games", "1").stderr
    other = tmp_path / "other.sqlite"
    other.write_bytes(Path(store).read_bytes())
    r = CliRunner().invoke(zx, ["--store", str(other), "stats", "winrates", "--min-games", "1",
                                "--analytics", str(tmp_path / "s.duckdb")])
    assert r.exit_code == 0 and "holds the analytics of sqlite:" in r.stderr and "not of the store" in r.stderr


def test_report_says_it_adds_iwd_only_when_its_table_shows_it(imported, tmp_path):
    """Without --deck-lists the per-card table leaves out IWD (it counts the deck lists), and its note
    said 'the table adds IWD ...' all the same. (Without it the table holds the played figures only: a hand
    is hidden, 301.3c; the note says where the others are.)"""
    notes = {}
    for extra in ([], ["--deck-lists"]):
        out = tmp_path / f"r{len(extra)}.html"
        r = CliRunner().invoke(zx, ["--store", str(imported), "report", "-o", str(out), "--min-games", "1", *extra])
        assert r.exit_code == 0, r.output
        notes[bool(extra)] = out.read_text(encoding="utf-8")
    assert "adds IWD" not in notes[False] and "the win rate of the games where the card was played" in notes[False]
    assert ("the hand and deck-list figures (GIH, OH, GD, GNS, IWD) are shown only where the hands and deck lists "
            "are published (zx serve --deck-lists, zx report --deck-lists)") in notes[False]
    assert "adds IWD (GIH WR minus the win rate when never seen)" in notes[True]


def test_a_match_imported_with_accepted_violations_counts_in_the_statistics_as_documented(tmp_path):
    """docs/analytics.md: such a match is counted like any other (matches.violations says so), and the
    zx sql recipe there leaves it out."""
    from analytics_support import M2, headers
    from support import text

    m2 = [{**r, "cards": r["cards"][:1]} if r.get("do") == "draw" else r for r in M2]  # a Draw Phase of one card
    log = tmp_path / "v.zxlog"
    log.write_text(text(m2, headers()["m2"]), encoding="utf-8")
    store = tmp_path / "s.sqlite"
    assert run(store, "import", "--accept-violations", str(log)).exit_code == 0
    r = run(store, "sql", "--format", "csv", "SELECT match_id, violations > 0 AS broke FROM matches")
    assert r.stdout.splitlines() == ["match_id,broke", "m2,True"]
    r = run(store, "stats", "winrates", "--format", "csv")
    assert [line.split(",")[:3] for line in r.stdout.splitlines()[1:]] == [["Blue Control", "1", "1"],
                                                                           ["Red Dragons", "1", "0"]]
    docs = (ROOT / "docs" / "analytics.md").read_text(encoding="utf-8")
    recipe = re.search(r'zx sql "(SELECT deck, count\(\*\) AS games.*?GROUP BY ALL)"', docs, re.S).group(1)
    r = run(store, "sql", "--format", "csv", " ".join(recipe.split()))
    assert r.exit_code == 0 and r.stdout.splitlines() == ["deck,games,wins"]


def test_stats_refuse_an_analytics_file_of_another_schema_version(tmp_path):
    """zx stats read an analytics file built by an older schema without a word and showed its figures
    (the archetypes schema 7 fixed); zx report, zx serve and zx analytics update refused it."""
    import duckdb
    from click.testing import CliRunner

    from zx_analytics.db import SCHEMA_VERSION
    from zx_cli.main import zx

    store, duck = str(tmp_path / "s.sqlite"), tmp_path / "s.duckdb"
    assert CliRunner().invoke(zx, ["--store", store, "import", "examples/legal"]).exit_code == 0
    assert CliRunner().invoke(zx, ["--store", store, "stats", "winrates"]).exit_code == 0
    con = duckdb.connect(str(duck))
    con.execute("UPDATE projection_position SET schema_version = ?", [SCHEMA_VERSION - 1])
    con.close()
    r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates"])
    assert r.exit_code == 1 and f"schema {SCHEMA_VERSION - 1}, this version reads {SCHEMA_VERSION}" in r.output, r.output
    assert f"zx --store {store} analytics update --rebuild" in r.output and "Traceback" not in r.output


def test_export_refuses_an_analytics_file_of_another_schema_version(tmp_path):
    """zx export wrote an older schema's tables as Parquet without a word, under a data dictionary of this
    version (zx stats and zx sql refused the same file): now refused in the same words, nothing written;
    the Python API (export_parquet) refuses it too."""
    import duckdb
    import pytest
    from click.testing import CliRunner

    from zx_analytics.db import SCHEMA_VERSION, AnalyticsError, connect_reader
    from zx_analytics.export import export_parquet
    from zx_cli.main import zx

    store, duck, out = str(tmp_path / "s.sqlite"), tmp_path / "s.duckdb", tmp_path / "out"
    assert CliRunner().invoke(zx, ["--store", store, "import", "examples/legal"]).exit_code == 0
    assert CliRunner().invoke(zx, ["--store", store, "export", "--parquet", str(tmp_path / "ok")]).exit_code == 0
    con = duckdb.connect(str(duck))
    con.execute("UPDATE projection_position SET schema_version = ?", [SCHEMA_VERSION - 1])
    con.close()
    r = CliRunner().invoke(zx, ["--store", store, "export", "--parquet", str(out)])
    assert r.exit_code == 1 and f"schema {SCHEMA_VERSION - 1}, this version reads {SCHEMA_VERSION}" in r.output, r.output
    assert f"zx --store {store} analytics update --rebuild" in r.output and "Traceback" not in r.output
    assert not out.exists()
    con = connect_reader(duck)
    try:
        with pytest.raises(AnalyticsError, match="zx analytics update --rebuild"):
            export_parquet(con, out)
    finally:
        con.close()
    assert not out.exists()


def test_import_on_an_old_schema_file_says_to_rebuild_with_its_catalog_file_not_update_later(tmp_path):
    """An import whose analytics step met a file of another schema version said both "run `zx analytics update
    --rebuild`" and "run `zx analytics update` later" (which fails the same way); and neither named the
    import's --catalog FILE, without which the rebuild projects its matches with unknown colours."""
    import shutil

    import duckdb
    from click.testing import CliRunner

    from zx_analytics.db import SCHEMA_VERSION
    from zx_cli.main import zx

    store, duck = str(tmp_path / "s.sqlite"), tmp_path / "s.duckdb"
    cards = tmp_path / "my cards.csv"
    shutil.copy("zx_events/games/zx/catalogs/sample.csv", cards)
    assert CliRunner().invoke(zx, ["--store", store, "import", "examples/legal/first-turns.zxlog"]).exit_code == 0
    con = duckdb.connect(str(duck))
    con.execute("UPDATE projection_position SET schema_version = ?", [SCHEMA_VERSION - 1])
    con.close()
    r = CliRunner().invoke(zx, ["--store", store, "import", "--catalog", str(cards), "examples/legal"])
    assert r.exit_code == 0, r.output
    warning = [line for line in r.output.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "the matches are imported" in warning[0], r.output
    assert f"zx --store {store} analytics update --rebuild" in warning[0] and "later" not in warning[0], warning
    assert f"--catalog '{cards}'" in warning[0], warning


def test_report_refuses_an_analytics_file_of_another_schema_version(tmp_path):
    """zx report refuses a file of another schema version in the words of zx stats, zx sql and zx export,
    exit 1, and writes no page (a guard: QA found zx export's gap; zx report had none)."""
    import duckdb
    from click.testing import CliRunner

    from zx_analytics.db import SCHEMA_VERSION
    from zx_cli.main import zx

    store, duck, page = str(tmp_path / "s.sqlite"), tmp_path / "s.duckdb", tmp_path / "meta.html"
    assert CliRunner().invoke(zx, ["--store", store, "import", "examples/legal"]).exit_code == 0
    con = duckdb.connect(str(duck))
    con.execute("UPDATE projection_position SET schema_version = ?", [SCHEMA_VERSION - 1])
    con.close()
    r = CliRunner().invoke(zx, ["--store", store, "report", "-o", str(page)])
    assert r.exit_code == 1 and r.output == (f"Error: {duck} has analytics schema {SCHEMA_VERSION - 1}, this version "
                                             f"reads {SCHEMA_VERSION}: run `zx --store {store} analytics update "
                                             f"--rebuild`\n"), r.output
    assert not page.exists()


@pytest.mark.parametrize("value", ["s3://bucket/x.duckdb", "postgresql://x@h/db", "md:foo", "memory:", ":memory:",
                                   ":memory:x", "sqlite:x.db", "ducklake:y.db"])
def test_an_analytics_url_is_refused_before_anything_is_made(tmp_path, monkeypatch, value):
    """``ZX_ANALYTICS=s3://bucket/x.duckdb``: folders ``s3:/bucket`` made, and DuckDB's advice to install httpfs.
    ``:memory:``, DuckDB's in-memory database: an update said "projected into :memory:", exit 0, and kept nothing."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZX_ANALYTICS", value)
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", str(ROOT / "examples" / "legal" / "first-turns.zxlog")])
    assert r.exit_code == 0 and "the matches are imported, but the analytics were not updated" in r.output, r.output
    for args in (["analytics", "update"], ["stats", "winrates"]):
        r = CliRunner().invoke(zx, ["--store", store, *args])
        assert r.exit_code == 1 and f"the analytics file {value} is not a file path" in r.output, r.output
        assert "INSTALL" not in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]


def within(seconds: float, call: "object") -> "object":
    """``call()`` in a thread: what it returns or raises, or an AssertionError when it has not ended within
    ``seconds`` (it is left blocked, a daemon thread)."""
    import threading

    out: list = []

    def run() -> None:
        try:
            out.append((True, call()))
        except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
            out.append((False, e))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"still running after {seconds} s"
    ok, value = out[0]
    if not ok:
        raise value
    return value


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_an_analytics_path_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    """``--analytics pipe.duckdb``, a named pipe (mkfifo): refuse_sqlite opened it to read its first bytes, which
    waits for a writer: zx sql and zx stats hung with no message, deaf to Ctrl-C. A folder was DuckDB's "Could not
    read from file ... Is a directory". Every command that opens the analytics file (and the Python API) now says
    what the path is, at once, exit 1, and creates nothing; so for a write-ahead log (PATH.wal) that is a pipe."""
    from zx_analytics.db import AnalyticsError
    from zx_analytics.stats import Stats
    from failure_support import zx as zx_process

    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics",
                                str(ROOT / "examples" / "legal" / "first-turns.zxlog")])
    assert r.exit_code == 0, r.output
    path = tmp_path / "pipe.duckdb"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    what = "a named pipe (FIFO)" if kind == "fifo" else "a folder"
    said = f"the analytics file {path} is {what}, not a regular file: give --analytics"
    for args in (["sql", "SELECT 1"], ["stats", "winrates"], ["analytics", "update"], ["analytics", "update", "--rebuild"],
                 ["export", "--parquet", str(tmp_path / "out")], ["report", "-o", str(tmp_path / "meta.html")]):
        r = within(5, lambda: CliRunner().invoke(zx, ["--store", str(store), *args, "--analytics", str(path)]))
        assert r.exit_code == 1 and said in r.output and "(nothing was created)" in r.output, (args, r.output)
    r = zx_process(tmp_path, "--store", str(store), "serve", "--port", "1", "--analytics", str(path), timeout=60)
    assert r.returncode == 1 and said in r.stderr and "Traceback" not in r.stderr, r.stderr
    with pytest.raises(AnalyticsError, match=re.escape(f"the analytics file {path} is {what}, not a regular file")):
        within(5, lambda: Stats(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.duckdb", "s.sqlite"]

    if kind == "fifo":  # a store's analytics file beside it, whose write-ahead log is a pipe
        r = CliRunner().invoke(zx, ["--store", str(store), "analytics", "update"])
        assert r.exit_code == 0, r.output
        os.mkfifo(tmp_path / "s.duckdb.wal")
        for args in (["sql", "SELECT 1"], ["stats", "winrates"]):
            r = within(5, lambda: CliRunner().invoke(zx, ["--store", str(store), *args]))
            assert r.exit_code == 1, (args, r.output)
            assert (f"the analytics file's write-ahead log {tmp_path / 's.duckdb.wal'} is a named pipe (FIFO), not a "
                    f"regular file: move it away") in r.output, r.output


def test_the_advice_of_an_error_names_the_store_and_file_given_on_the_command_line(tmp_path, monkeypatch):
    """`zx --store league/s.sqlite stats winrates` said "run `zx analytics update`", which, run as written, opened
    the default store ("there is no store at zx-store.sqlite"). The advice carries the --store given (quoted for
    a shell) and, for the update, the --analytics given; a store from ZX_STORE is left as it is. The import it
    offers instead names its LOGS (`zx import` alone is a usage error)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my league").mkdir()
    store = "my league/s.sqlite"
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(ROOT / "examples" / "legal" /
                                                                              "first-turns.zxlog")])
    assert r.exit_code == 0, r.output
    for args in (["--store", store, "stats", "winrates"], ["stats", "winrates", "--store", store]):
        r = CliRunner().invoke(zx, args)
        assert r.exit_code == 1 and "run `zx --store 'my league/s.sqlite' analytics update`" in r.output, r.output
    r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates", "--analytics", "other.duckdb"])
    assert ("run `zx --store 'my league/s.sqlite' analytics update --analytics other.duckdb` (or `ZX_ANALYTICS="
            "other.duckdb zx --store 'my league/s.sqlite' import LOGS`) first") in r.output, r.output  # (`zx import` alone: a usage error)
    r = CliRunner().invoke(zx, ["stats", "winrates"], env={"ZX_STORE": store})
    assert r.exit_code == 1 and "run `zx analytics update` (or `zx import LOGS`) first" in r.output, r.output
    assert CliRunner().invoke(zx, ["--store", store, "analytics", "update"]).exit_code == 0  # the advice, run
    assert CliRunner().invoke(zx, ["--store", store, "stats", "winrates"]).exit_code == 0


def test_the_advice_of_an_import_given_zx_analytics_for_itself_names_that_file(tmp_path, monkeypatch):
    """``ZX_ANALYTICS=x.duckdb zx import LOGS`` (the variable given for that one command) ended, its analytics file
    damaged, with "`zx --store S analytics update --rebuild` rebuilds it": run as written, it rebuilt S.duckdb, not
    x.duckdb. The advice carries the variable as it was given, and works run as written."""
    import shlex

    monkeypatch.chdir(tmp_path)
    (tmp_path / "my league").mkdir()
    store, file = "my league/s.sqlite", "my league/x.duckdb"
    (tmp_path / file).write_bytes(b"not a DuckDB file " * 300)
    log = str(ROOT / "examples" / "legal" / "first-turns.zxlog")
    r = CliRunner().invoke(zx, ["--store", store, "import", log], env={"ZX_ANALYTICS": file})
    assert r.exit_code == 0, r.output
    advised = "ZX_ANALYTICS='my league/x.duckdb' zx --store 'my league/s.sqlite' analytics update --rebuild"
    assert f"`{advised}` rebuilds it from the store" in r.stderr, r.stderr
    env, _, *args = shlex.split(advised)  # run as written: the variable for that one command, as it was given
    name, value = env.split("=", 1)
    assert CliRunner().invoke(zx, args, env={name: value}).exit_code == 0
    assert not (tmp_path / "my league" / "s.duckdb").exists()  # (the store's default file: not the one advised)
    r = CliRunner().invoke(zx, ["--store", store, "sql", "SELECT count(*) AS n FROM matches", "--analytics", file,
                                "--format", "csv"])
    assert r.exit_code == 0 and r.stdout == "n\n1\n", r.output


def test_the_advice_of_stats_given_zx_analytics_for_itself_names_that_file(tmp_path, monkeypatch):
    """``ZX_ANALYTICS=x.duckdb zx stats winrates`` (the variable for that one command, the file not made yet)
    advised "run `zx --store S analytics update`": run as written, it made S's default file, and the same
    command failed again. The advice carries the variable as it was given (a store from ZX_STORE stays out)."""
    import shlex

    monkeypatch.chdir(tmp_path)
    store, file = "s.sqlite", "my x.duckdb"
    log = str(ROOT / "examples" / "legal" / "first-turns.zxlog")
    assert CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", log]).exit_code == 0
    r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates"], env={"ZX_ANALYTICS": file})
    advised = "ZX_ANALYTICS='my x.duckdb' zx --store s.sqlite analytics update"
    assert r.exit_code == 1 and f"run `{advised}`" in r.output, r.output
    env, _, *args = shlex.split(advised)
    name, value = env.split("=", 1)
    assert CliRunner().invoke(zx, args, env={name: value}).exit_code == 0  # the advice, run as written
    assert not (tmp_path / "s.duckdb").exists() and (tmp_path / file).exists()
    r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates"], env={"ZX_ANALYTICS": file})
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["stats", "winrates"], env={"ZX_STORE": store, "ZX_ANALYTICS": "other.duckdb"})
    assert r.exit_code == 1 and "run `ZX_ANALYTICS=other.duckdb zx analytics update`" in r.output, r.output


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_second_export_into_the_same_directory_is_refused_and_the_first_is_whole(imported, tmp_path):
    """Two zx export --parquet DIR at once: one said it succeeded with 72 of 74 files in DIR, the other printed
    DuckDB's raw IO error ("Cannot open file ... File exists"). While one writes into DIR, another is refused
    with what to do, writing nothing; the one that succeeds holds every table and month."""
    from zx_analytics.db import connect_reader
    from zx_analytics.export import PARTIAL, export_parquet

    reference = tmp_path / "reference"
    assert run(imported, "export", "--parquet", str(reference)).exit_code == 0
    out = tmp_path / "out"
    second = []

    def another_export(table: str) -> None:
        if not second:  # while the first export is writing its tables
            second.append(run(imported, "export", "--parquet", str(out)))

    con = connect_reader(imported.with_suffix(".duckdb"))
    try:
        export_parquet(con, out, on_table=another_export)
    finally:
        con.close()
    r = second[0]
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert f"--parquet {out}: another zx export is writing into {out} now: run this one again when it has " \
           f"finished (nothing was written)" in r.stderr
    assert _files(out) == _files(reference) and not (out / PARTIAL).exists()


def test_an_interrupted_export_exports_nothing_and_says_so(imported, tmp_path, monkeypatch):
    """Ctrl-C during zx export said only "Aborted!" and left a few tables of the new export over the earlier
    one (or, in a new folder, a half export the next zx export refused without --force). The earlier export
    is as it was, nothing of the new one is in DIR, and it says so."""
    import zx_analytics.export as export

    out = tmp_path / "out"
    assert run(imported, "export", "--parquet", str(out)).exit_code == 0
    (out / "matches" / "month=2026-11").rename(out / "matches" / "month=1999-01")  # tell the two apart
    before = _files(out)
    copy, calls = export._copy, []

    def ctrl_c_at_the_third_table(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return copy(*args, **kwargs)

    monkeypatch.setattr(export, "_copy", ctrl_c_at_the_third_table)
    r = run(imported, "export", "--parquet", str(out))
    assert r.exit_code == 1 and f"interrupted: nothing was exported into {out}\nAborted!" in r.stderr, r.output
    assert _files(out) == before and not (out / export.PARTIAL).exists()
    fresh = tmp_path / "fresh"
    calls.clear()
    r = run(imported, "export", "--parquet", str(fresh))
    assert r.exit_code == 1 and "interrupted: nothing was exported" in r.stderr
    assert not fresh.exists()  # (made by the export, which exported nothing: removed)
    monkeypatch.setattr(export, "_copy", copy)
    assert run(imported, "export", "--parquet", str(fresh)).exit_code == 0  # no --force: nothing is in the way


def test_ctrl_c_while_the_export_is_put_in_place_lets_it_finish(imported, tmp_path, monkeypatch):
    """Ctrl-C once every table was written, as they were moved into place (or the earlier export's folders
    removed): it said "interrupted: nothing was exported" of an export in place, and left the earlier export's
    folders in the partial folder. That step now finishes: the export is whole and says so."""
    import os
    import signal

    import zx_analytics.export as export

    out = tmp_path / "out"
    assert run(imported, "export", "--parquet", str(out)).exit_code == 0
    (out / "matches" / "month=2026-11").rename(out / "matches" / "month=1999-01")  # the earlier export's
    put = export._put_in_place

    def ctrl_c_meanwhile(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # (delivered at once: Python runs its handler in this thread)
        return put(*args, **kwargs)

    monkeypatch.setattr(export, "_put_in_place", ctrl_c_meanwhile)
    r = run(imported, "export", "--parquet", str(out))
    assert r.exit_code == 0 and "interrupted" not in r.stderr, r.output
    assert (out / "matches" / "month=2026-11").is_dir() and not (out / "matches" / "month=1999-01").exists()
    assert not (out / export.PARTIAL).exists() and (out / export.DICTIONARY).is_file()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


def test_ctrl_c_once_the_export_is_in_place_says_it_is_complete(imported, tmp_path, monkeypatch):
    """Ctrl-C after every table was in place, as the table of what was written was printed: "Aborted!" alone, over
    a whole export in DIR (docs/analytics.md: an interrupted export changes nothing). It says the export is
    complete, and DIR holds it."""
    import zx_cli.analytics

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(zx_cli.analytics, "emit", ctrl_c)
    out = tmp_path / "out"
    r = run(imported, "export", "--parquet", str(out))
    assert r.exit_code == 1, r.output
    assert (f"interrupted after the export was complete: {out} holds every table (" in r.stderr
            and r.stderr.endswith("Aborted!\n")), r.stderr
    assert (out / "matches").is_dir() and (out / "data-dictionary.md").is_file()


KILLED_EXPORT = """
import os, signal, sys
import zx_analytics.export as export
from zx_cli.main import main

store, out, where = sys.argv[1:]
calls = []
def killed_at_the_third(original, into):
    def call(*args, **kwargs):
        if out in str(args[into]):
            calls.append(1)
            if len(calls) == 3:
                os.kill(os.getpid(), signal.SIGKILL)
        return original(*args, **kwargs)
    return call
if where == "writing":
    export._copy = killed_at_the_third(export._copy, 3)
else:  # moving the tables into place
    os.replace = killed_at_the_third(os.replace, 1)
sys.argv = ["zx", "--store", store, "export", "--parquet", out]
main()
"""


@pytest.mark.parametrize("where", ["writing", "in place"])
def test_the_next_export_replaces_what_a_killed_export_left_without_force(imported, tmp_path, where):
    """zx export killed (SIGKILL) left a few tables in a new DIR, and the next zx export refused it ("not an earlier
    export of zx ... --force"). What a killed export leaves (its partial folder; killed while it moved its tables
    into place, some of them) is recognised and replaced by the next export, which is whole."""
    from zx_analytics.export import PARTIAL

    reference = tmp_path / "reference"
    assert run(imported, "export", "--parquet", str(reference)).exit_code == 0
    out = tmp_path / "out"
    if where == "in place":  # an earlier export there: the one killed was replacing it
        assert run(imported, "export", "--parquet", str(out)).exit_code == 0
    p = subprocess.run([sys.executable, "-c", KILLED_EXPORT, str(imported), str(out), where], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == -9, p.stderr
    r = run(imported, "export", "--parquet", str(out))
    assert r.exit_code == 0, r.output
    assert _files(out) == _files(reference) and not (out / PARTIAL).exists()


@pytest.fixture
def read_only_folder(tmp_path):
    """A read-only file system (a tmpfs mounted ro; skipped where this process may not mount)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a read-only tmpfs here")
    yield folder
    subprocess.run(["umount", str(folder)], check=False)


def test_a_first_update_into_a_read_only_folder_says_why_and_an_import_keeps_its_advice(tmp_path, read_only_folder):
    """The cleanup of a file the update made unlinked it even where it was never made: a read-only file system
    refuses that too (EROFS), and that error replaced the update's own: "Read-only file system ... in
    _remove_made", and zx import exited 1 without its advice."""
    store = str(tmp_path / "s.sqlite")
    legal = Path(__file__).resolve().parents[1] / "examples" / "legal"
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(legal / "first-turns.zxlog")])
    assert r.exit_code == 0, r.output
    target = read_only_folder / "new.duckdb"
    r = CliRunner().invoke(zx, ["--store", store, "analytics", "update", "--analytics", str(target)])
    assert r.exit_code == 1 and "Read-only file system" in r.output and "_remove_made" not in r.output, r.output
    assert f"cannot open {target}" in r.output
    r = CliRunner().invoke(zx, ["--store", store, "import", str(legal)], env={"ZX_ANALYTICS": str(target)})
    assert r.exit_code == 0, r.output
    assert "the matches are imported, but the analytics file was not updated" in r.output
    assert f"`ZX_ANALYTICS={target} zx --store {store} analytics update`" in r.output
    assert not target.exists()


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_table_or_view_named_as_the_page_rows_in_the_file_changes_nothing_an_update_writes(imported, workers,
                                                                                            monkeypatch):
    """Pages were inserted ``SELECT * FROM batch`` by DuckDB's replacement scan, which a table or view of that
    name in the file (a user's: DuckDB's catalog comes first) took the place of: every update said "internal
    error: BinderException ... Table matches does not have a column with name one"."""
    monkeypatch.setenv(WORKERS_ENV, workers)
    duck = imported.with_suffix(".duckdb")
    before = run(imported, "stats", "winrates", "--by", "first", "--format", "json")
    assert before.exit_code == 0, before.output
    con = duckdb.connect(str(duck))
    for name in ("batch", "zx_page_rows"):  # (the name the pages are inserted from: zx_analytics.writer.SCAN_NAME)
        con.execute(f"CREATE VIEW {name} AS SELECT 1 AS one")
    con.close()
    r = run(imported, "analytics", "update", "--rebuild")
    assert r.exit_code == 0 and "internal error" not in r.output, r.output
    after = run(imported, "stats", "winrates", "--by", "first", "--format", "json")
    assert after.exit_code == 0 and json.loads(after.stdout) == json.loads(before.stdout)


def test_an_update_interrupted_once_complete_says_so_and_one_cut_short_does_not(imported, tmp_path):
    """A Ctrl-C during an update's last commit (which writes a rebuild's held pages) said "Aborted!" alone, though
    the file held every event: the user took the rebuild for lost. ``update_was_complete`` is what it says then."""
    from zx_cli.analytics import update_was_complete
    from zx_events.application import MatchService

    partial = tmp_path / "partial.duckdb"
    r = run(imported, "analytics", "update", "--analytics", str(partial), "--page-size", "5", "--stop-after-pages",
            "1")
    assert r.exit_code == 0, r.output
    svc = MatchService(str(imported), create=False)
    try:
        assert update_was_complete(svc, partial) is None
        done = update_was_complete(svc, imported.with_suffix(".duckdb"))
        assert done is not None and done.startswith("interrupted after the update was complete: ")
        assert update_was_complete(svc, tmp_path / "none.duckdb") is None
    finally:
        svc.close()
    assert not (tmp_path / "none.duckdb").exists()


@pytest.mark.parametrize("rebuild", [True, False])
def test_an_interrupted_update_says_what_the_file_holds(imported, monkeypatch, rebuild):
    """An early Ctrl-C of ``zx analytics update --rebuild`` of a file already up to date said "interrupted after the
    update was complete" (its position was the store's last), though the rebuild never ran; an update cut short said
    "Aborted!" alone (QA round 34). A Ctrl-C is injected before the rebuild begins, and at an update's first progress
    report, a real update's."""
    import zx_analytics.projection as projection

    duck = imported.with_suffix(".duckdb")
    real = projection.update
    if rebuild:  # (a file damaged meanwhile: what the rebuild was for)
        with duckdb.connect(str(duck)) as con:
            con.execute("DELETE FROM seats WHERE seat = 'first'")
        with duckdb.connect(str(duck), read_only=True) as con:
            seats = con.execute("SELECT count(*) FROM seats").fetchone()[0]
    else:  # (an update that has events to project: the file from its first page only)
        duck.unlink()
        assert run(imported, "analytics", "update", "--page-size", "5", "--stop-after-pages", "1").exit_code == 0

    def cut(*args, on_progress=None, **kwargs):
        if rebuild:  # (before the rebuild empties the file: its first moments)
            raise KeyboardInterrupt

        def progress(done, total):
            raise KeyboardInterrupt
        return real(*args, on_progress=progress, **kwargs)

    monkeypatch.setattr(projection, "update", cut)
    r = run(imported, "analytics", "update", *(["--rebuild"] if rebuild else []))
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "complete" not in r.output, r.output
    if rebuild:
        assert f"interrupted: the rebuild was not committed: {duck} is as it was (up to notification " in r.output
        assert "`zx --store" in r.output and "analytics update --rebuild` rebuilds it" in r.output, r.output
        with duckdb.connect(str(duck), read_only=True) as con:
            assert con.execute("SELECT count(*) FROM seats").fetchone()[0] == seats
    else:
        assert f"interrupted: {duck} holds the store's events up to notification 5 of " in r.output, r.output
        assert "as its last commit left it; `zx --store" in r.output and "continues from there" in r.output
    monkeypatch.setattr(projection, "update", real)
    assert run(imported, "analytics", "update", *(["--rebuild"] if rebuild else [])).exit_code == 0


def test_export_writes_each_month_out_every_65536_rows():
    """QA round 32 (130,000 matches): the export's peak memory grew with its tables (1.05 GB), DuckDB holding
    524,288 rows of every month before writing them; its writer flushes a month's rows every 65,536 (8M rows over 24
    months: 1.0 GB of RSS before, 0.55 GB after, bench/README.md)."""
    from zx_analytics.export import _writer

    con = _writer()
    try:
        assert con.execute("SELECT current_setting('partitioned_write_flush_threshold')").fetchone()[0] == 65536
    finally:
        con.close()


def test_the_update_bar_says_it_counts_the_stored_events_read(tmp_path):
    """The bar's unit is the store's events read, all of them (the seal's entries and the kinds no table takes
    among them), named so: its count and the summary's events projected differ (741/741 over "582 events")."""
    store = imported_store(tmp_path, "--no-analytics")
    import sqlite3

    con = sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True)
    stored = con.execute("SELECT count(*) FROM stored_events").fetchone()[0]
    con.close()
    r = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(store), "analytics", "update", "--format",
                        "json"], capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
    assert r.returncode == 0, r.stderr
    (summary,) = json.loads(r.stdout)
    projected = summary["events"]
    assert re.search(rf"^analytics: stored events read .* {stored}/{stored} ", r.stderr, re.M), r.stderr
    assert 0 < projected < stored
