"""How zx reports the analytics DuckDB file failing under it: a full disk, a damaged file or one that is
not a DuckDB database, Ctrl-C during a query or an update. Never "internal error ... a bug in zx": the
disk's own error and that the next update resumes; the damaged file named with the command that makes
it again. Real DuckDB files, real processes and signals (tests/failure_support.py)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from analytics_support import assert_same_tables
from failure_support import corpus, interrupt, small_disk, zx, zx_here  # noqa: F401 (corpus: a fixture)


def test_ctrl_c_during_a_duckdb_query_is_the_ordinary_interrupt(corpus):
    """DuckDB ends a statement stopped by SIGINT with RuntimeError "Query interrupted": zx called it "internal
    error ... This is a bug in zx". It is now "Aborted!", exit 1, as Ctrl-C anywhere else."""
    four = " UNION ALL ".join(["SELECT card, turn FROM draws"] * 4)  # 20,000 rows, joined with themselves a
    # hundred times: a query of minutes that DuckDB stops at Ctrl-C (it looks for one between the parts of its
    # work). (Without range(100) it took 1 s on a fast machine and ended before the Ctrl-C at 1.5 s.)
    started = time.monotonic()
    r = interrupt(corpus, ["--store", "store.sqlite", "sql", "--timeout", "0",
                           f"SELECT count(*) FROM ({four}) a, ({four}) b, range(100) r(i) "
                           f"WHERE a.card <> b.card AND (a.turn * b.turn + i) % 7 = 3"],
                  lambda: time.monotonic() - started > 1.5)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines()[-1] == "Aborted!"
    assert "internal error" not in r.stderr and "bug" not in r.stderr and "Traceback" not in r.stderr
    assert "ran longer than" not in r.stderr  # not the time limit


def test_ctrl_c_during_an_analytics_update_never_leaves_its_writer_running():
    """A Ctrl-C during the join of the analytics writer thread makes CPython 3.11 mark the thread ended while
    it still commits (bpo-45274's fix: ``Thread._stop()`` in the interrupted join): ``stop()`` then
    returned at once, the file was closed under the commit ("connection is busy", an "internal error")
    and the process aborted at exit ("terminate called ... FATAL"). It now waits for the loop's own end."""
    import duckdb

    from zx_analytics.writer import Page, Writer

    con = duckdb.connect()
    gate = threading.Event()
    writer = Writer(con, {})
    real = writer._write
    writer._write = lambda page: (gate.wait(10), real(page))  # a commit under way while Ctrl-C arrives
    writer.put(Page({}, [], None, 0, 0))
    time.sleep(0.1)
    writer.thread._tstate_lock.release()  # what threading's join does when Ctrl-C interrupts it (3.11)
    writer.thread._stop()
    assert not writer.thread.is_alive()
    threading.Timer(0.3, gate.set).start()
    writer.stop()
    assert gate.is_set() and writer.ended.is_set()  # it returned after the commit, not before
    assert writer.error is not None  # (the update_projection_position table is not here: the page failed)
    con.close()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_analytics_update_on_a_full_disk_says_so_and_resumes_when_there_is_room(corpus, tmp_path, workers):
    """After a COMMIT that failed for want of space DuckDB has ended the transaction itself: the writer's
    ROLLBACK failed ("cannot rollback - no transaction is active") and that hid the real error, reported as
    an internal error. Now: the disk's own error, what stays, and the next update resumes."""
    with small_disk(tmp_path / "disk", "1m") as disk:
        target = disk / "a.duckdb"
        r = zx(corpus, "--store", "store.sqlite", "analytics", "update", "--analytics", str(target),
               "--workers", workers, "--page-size", "2000")
        assert r.returncode == 1
        assert f"cannot write the analytics file {target}:" in r.stderr and "No space left on device" in r.stderr
        assert "Every page committed before stays" in r.stderr
        assert f"`zx --store store.sqlite analytics update --analytics {target}` resumes" in r.stderr, r.stderr
        assert "rollback" not in r.stderr and "internal error" not in r.stderr, r.stderr
        subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
        r = zx(corpus, "--store", "store.sqlite", "analytics", "update", "--analytics", str(target))
        assert r.returncode == 0, r.stderr
        assert_same_tables(corpus / "store.duckdb", target)


def test_a_damaged_analytics_file_says_so_and_rebuild_makes_it_again(corpus, tmp_path):
    """An analytics file cut short gave "internal error ... IOException ... Could not read enough bytes" and no
    next step. It is now named damaged, with the command that makes it again from the store. (What the commands
    say: they run in this process.)"""
    good = corpus / "store.duckdb"
    cut = tmp_path / "a.duckdb"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    for args in (["stats", "winrates"], ["analytics", "update"], ["export", "--parquet", str(tmp_path / "out")]):
        r = zx_here(corpus, "--store", "store.sqlite", *args, "--analytics", str(cut))
        assert r.returncode == 1, (args, r.stderr)
        assert f"the analytics file {cut} is damaged or not a DuckDB database (IO Error: " in r.stderr, r.stderr
        assert f"`zx --store store.sqlite analytics update --analytics {cut} --rebuild` rebuilds it from the store" \
            in r.stderr, r.stderr
        assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    r = zx_here(corpus, "--store", "store.sqlite", "analytics", "update", "--rebuild", "--analytics", str(cut))
    assert r.returncode == 0, r.stderr
    assert_same_tables(good, cut)


def test_rebuild_sets_aside_a_file_duckdb_cannot_open_but_never_one_not_named_duckdb(corpus, tmp_path):
    """A file that is not a DuckDB database at all ("not a valid DuckDB database file!") had no next step,
    and --rebuild refused it too. --rebuild now renames it (and its .wal) aside, never deleting it, and
    makes a new one; a file whose name does not end in .duckdb may be anything and is left alone. (What the
    commands say and do to the files: they run in this process.)"""
    junk = tmp_path / "a.duckdb"
    junk.write_bytes(os.urandom(100_000))
    Path(f"{junk}.wal").write_bytes(b"a log that is not the new file's")
    before = junk.read_bytes()
    r = zx_here(corpus, "--store", "store.sqlite", "stats", "winrates", "--analytics", str(junk))
    assert r.returncode == 1 and "is damaged or not a DuckDB database" in r.stderr and "--rebuild" in r.stderr
    r = zx_here(corpus, "--store", "store.sqlite", "analytics", "update", "--rebuild", "--analytics", str(junk))
    assert r.returncode == 0, r.stderr
    (aside,) = [p for p in tmp_path.iterdir() if p.name.startswith("a.duckdb.damaged-") and p.suffix != ".wal"]
    assert aside.read_bytes() == before and Path(f"{aside}.wal").read_bytes() == b"a log that is not the new file's"
    assert f"note: {junk} could not be read (damaged, or not a DuckDB database): it was moved to {aside}" in r.stderr
    assert_same_tables(corpus / "store.duckdb", junk)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    for args in (["stats", "winrates"], ["sql", "SELECT 1"]):  # (they advised the --rebuild refused below)
        r = zx_here(corpus, "--store", "store.sqlite", *args, "--analytics", str(notes))
        assert r.returncode == 1 and f"the analytics file {notes} is damaged or not a DuckDB database" in r.stderr
        assert "--rebuild` rebuilds it" not in r.stderr, r.stderr
        assert ("its name does not end in .duckdb: it may not be zx's analytics file (--rebuild leaves such a file "
                "alone); name zx's analytics file with --analytics, or move this one away") in r.stderr, r.stderr
    r = zx_here(corpus, "--store", "store.sqlite", "analytics", "update", "--rebuild", "--analytics", str(notes))
    assert r.returncode == 1 and "so --rebuild leaves it alone" in r.stderr, r.stderr
    assert notes.read_text() == "my notes\n" and not list(tmp_path.glob("notes.txt.*"))


def test_ctrl_c_stops_a_query_of_hours_at_once_every_time(corpus):
    """SIGINT reaches whichever thread the kernel picks, often one of DuckDB's, and Python acted on it only
    after the statement: a join of hours went on after Ctrl-C 4 times in 5 (``zx sql --timeout 0``). The
    signal's wake-up byte now interrupts the connection from a watcher thread: stopped within a second,
    "Aborted!", every time."""
    import signal
    import subprocess

    from failure_support import ENV, ZX

    for _ in range(4):
        p = subprocess.Popen([*ZX, "--store", "store.sqlite", "sql", "--timeout", "0",
                              "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"],
                             cwd=corpus, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        time.sleep(1.5)  # the query under way (a trillion rows: hours)
        assert p.poll() is None, p.communicate()
        os.killpg(p.pid, signal.SIGINT)
        sent = time.monotonic()
        try:
            out, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise AssertionError("zx sql went on 20 s after Ctrl-C")
        assert time.monotonic() - sent < 5 and p.returncode == 1, err
        assert err.strip().splitlines()[-1] == "Aborted!" and "Traceback" not in err and "internal error" not in err


def test_an_event_store_given_as_the_analytics_file_is_refused_without_any_download(corpus, tmp_path):
    """``--analytics store.sqlite`` (the event store, by mistake): DuckDB opened the SQLite file through its
    sqlite_scanner extension, which it tried to download from the internet (into ~/.duckdb: `zx export`,
    `zx analytics update`, with or without --rebuild), and would have opened the store read-write; zx stats
    said "Loading external extensions is disabled". Each now says what the file is, downloads nothing, creates
    nothing, and the store is left as it was (never set aside)."""
    home = tmp_path / "home"
    home.mkdir()
    store = corpus / "store.sqlite"
    before = store.read_bytes()
    for args in (["export", "--parquet", str(tmp_path / "out")], ["analytics", "update"],
                 ["analytics", "update", "--rebuild"], ["stats", "winrates"], ["sql", "SELECT 1"]):
        r = zx(corpus, "--store", "store.sqlite", *args, "--analytics", str(store), env={"HOME": str(home)})
        assert r.returncode == 1, (args, r.stderr)
        assert f"{store} is a SQLite file (a zx event store?), not the analytics DuckDB file" in r.stderr, r.stderr
        assert "download" not in r.stderr and "Traceback" not in r.stderr
    assert list(home.iterdir()) == [] and not (tmp_path / "out").exists()
    assert store.read_bytes() == before and not list(corpus.glob("store.sqlite.damaged-*"))


def test_zx_imports_advice_on_an_analytics_file_it_could_not_update_runs_as_written(tmp_path):
    """zx import with --store: its warning that the analytics file was not updated advised `zx analytics update
    --rebuild` without the store (run as written: "there is no store at zx-store.sqlite"), and for a damaged file
    added "run `zx analytics update` later", which fails the same way."""
    import duckdb
    from click.testing import CliRunner

    from zx_analytics.db import SCHEMA_VERSION
    from zx_cli.main import zx as zx_group

    root = Path(__file__).resolve().parent.parent
    logs = sorted((root / "examples" / "legal").glob("*.zxlog"))
    store = tmp_path / "s.sqlite"
    analytics = tmp_path / "s.duckdb"
    r = CliRunner().invoke(zx_group, ["--store", str(store), "import", str(logs[0])])
    assert r.exit_code == 0, r.output
    con = duckdb.connect(str(analytics))
    con.execute("UPDATE projection_position SET schema_version = ?", [SCHEMA_VERSION - 1])
    con.close()
    r = CliRunner().invoke(zx_group, ["--store", str(store), "import", str(logs[1])])
    assert r.exit_code == 0, r.output
    assert f"run `zx --store {store} analytics update --rebuild`" in r.stderr and "later" not in r.stderr, r.stderr
    analytics.write_bytes(b"not a DuckDB file at all" * 100)
    r = CliRunner().invoke(zx_group, ["--store", str(store), "import", str(logs[2])])
    assert r.exit_code == 0, r.output
    assert f"`zx --store {store} analytics update --rebuild` rebuilds it from the store" in r.stderr, r.stderr
    assert "later" not in r.stderr, r.stderr
