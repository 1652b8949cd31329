"""Read commands never write the SQLite file given as ``--store`` (docs/security.md section 2).

Every command but ``zx import`` and ``zx demo`` (which create and write stores), ``zx prepare`` (which
writes snapshots) and ``zx verify --seal`` reads the store: it leaves the file's bytes and its folder's
listing as they were. Found by QA: a zero-byte file became a WAL store with an events table under
``zx verify`` (which said "0 intact"), a store in rollback-journal mode was switched to WAL by ``zx
matches``, and a damaged store was left with a -wal and a -shm file beside it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "zx-store-0.1.0.sqlite"  # WAL mode; 20 Z/X matches
MATCH = "sim-11-0001"  # one of them
EXAMPLES = ROOT / "examples" / "legal"


READS = ["matches", "replay", "audit", "verify", "view", "analytics-update"]  # zx serve: serve_reads, serve_start


def read_command(name: str, out: Path) -> list[str]:
    """The read command ``name`` of a store, writing what it writes (a page, the analytics file) into ``out``."""
    return {"matches": ["matches"], "replay": ["replay", MATCH, "--turn", "2"], "audit": ["audit", MATCH],
            "verify": ["verify"], "view": ["view", MATCH, "-o", str(out / "view.html")],
            "analytics-update": ["analytics", "update", "--analytics", str(out / "a.duckdb")]}[name]


def state(folder: Path) -> dict[str, str]:
    """The SHA-256 of every file in ``folder``, by name: its listing and its bytes."""
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in sorted(os.listdir(folder))}


def invoke(store: Path, *args: str):
    r = CliRunner().invoke(zx, ["--store", str(store), *args])
    assert "Traceback" not in r.output
    return r


def journal_mode(path: Path) -> str:
    """WAL or rollback journal, as the file's header says (bytes 18 and 19: 2 for WAL), without opening it."""
    return {b"\x02\x02": "wal", b"\x01\x01": "rollback"}[path.read_bytes()[18:20]]


def rollback_journal_store(folder: Path) -> Path:
    """A copy of the 0.1.0 store switched to rollback-journal mode (``journal_mode=delete``)."""
    folder.mkdir()
    path = folder / "dj.sqlite"
    shutil.copyfile(FIXTURE, path)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode=delete").fetchone()[0] == "delete"
    con.close()
    assert journal_mode(path) == "rollback"
    return path


def serve_reads(store: Path, out: Path) -> None:
    """``zx serve``'s start and a few requests (the match list, a view, an audit, a match with its chain)."""
    from zx_web.app import create_app

    with TestClient(create_app(str(store), analytics=out / "serve.duckdb")) as c:
        assert c.get("/api/matches").status_code == 200
        assert c.get(f"/api/matches/{MATCH}/view", params={"at": 40}).status_code == 200
        assert c.get(f"/api/audit/{MATCH}").status_code == 200
        assert c.get(f"/api/matches/{MATCH}").status_code == 200


@pytest.mark.parametrize("name", READS)
def test_a_read_command_given_an_empty_file_says_there_is_no_store_and_leaves_it_empty(tmp_path, name):
    folder, out = tmp_path / "store", tmp_path / "out"
    folder.mkdir()
    out.mkdir()
    empty = folder / "e.sqlite"
    empty.touch()
    r = invoke(empty, *read_command(name, out))
    assert r.exit_code == 1, r.output
    assert r.output == f"Error: there is no store at {empty} (an empty file): zx import creates one in it " \
                       f"(nothing was changed)\n"
    assert empty.stat().st_size == 0 and os.listdir(folder) == ["e.sqlite"]
    assert not (out / "view.html").exists()


def serve_start(store: Path, out: Path) -> str:
    """What ``zx serve`` says when it cannot open ``store`` (its start, ``zx_web.app.open_backend``: the
    command itself would serve for ever where it wrongly can)."""
    from zx_web.app import open_backend
    from zx_events.errors import ZXError

    with pytest.raises(ZXError) as e:
        open_backend(str(store), out / "a.duckdb").close()
    return e.value.message


def test_zx_serve_given_an_empty_file_says_there_is_no_store_and_leaves_it_empty(tmp_path):
    empty = tmp_path / "e.sqlite"
    empty.touch()
    assert serve_start(empty, tmp_path) == (f"there is no store at {empty} (an empty file): zx import creates one in "
                                            f"it (nothing was changed)")
    assert empty.stat().st_size == 0 and os.listdir(tmp_path) == ["e.sqlite"]


def test_a_read_command_given_a_database_without_the_events_table_says_there_is_no_store(tmp_path):
    store = tmp_path / "blank.sqlite"
    con = sqlite3.connect(store)
    con.execute("PRAGMA user_version = 7")  # a database file, without a table
    con.close()
    before = state(tmp_path)
    r = invoke(store, "verify")
    assert r.exit_code == 1 and "there is no store at" in r.output and "without the events table" in r.output
    assert state(tmp_path) == before


def test_zx_import_still_makes_a_store_in_an_empty_file(tmp_path):
    empty = tmp_path / "e.sqlite"
    empty.touch()
    r = invoke(empty, "import", "--no-analytics", str(EXAMPLES))
    assert r.exit_code == 0, r.output
    assert invoke(empty, "matches", "--format", "csv").stdout.count("\n") == 1 + len(list(EXAMPLES.glob("*.zxlog")))


@pytest.fixture(scope="module")
def rollback_journal(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """One rollback-journal store the tests of this module read in turn: (its file, its folder's state)."""
    path = rollback_journal_store(tmp_path_factory.mktemp("dj") / "store")
    return path, state(path.parent)


@pytest.mark.parametrize("name", READS)
def test_a_read_command_leaves_a_rollback_journal_store_byte_for_byte(rollback_journal, tmp_path, name):
    store, before = rollback_journal
    r = invoke(store, *read_command(name, tmp_path))
    assert r.exit_code == 0, r.output
    assert state(store.parent) == before and journal_mode(store) == "rollback"


def test_zx_serve_leaves_a_rollback_journal_store_byte_for_byte(rollback_journal, tmp_path):
    store, before = rollback_journal
    serve_reads(store, tmp_path)
    assert state(store.parent) == before and journal_mode(store) == "rollback"


@pytest.fixture(scope="module")
def truncated(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The 0.1.0 store cut short (its first 100,000 bytes): a damaged WAL store."""
    path = tmp_path_factory.mktemp("trunc") / "trunc.sqlite"
    path.write_bytes(FIXTURE.read_bytes()[:100_000])
    return path, state(path.parent)


@pytest.mark.parametrize("name", READS)
def test_a_read_command_given_a_damaged_store_leaves_no_wal_or_shm_file(truncated, tmp_path, name):
    store, before = truncated
    r = invoke(store, *read_command(name, tmp_path))
    assert r.exit_code == 1, r.output
    assert r.output.startswith(f"Error: the store {store} is damaged or not a SQLite database (")
    assert "nothing was changed. Restore it from a backup, or give another --store" in r.output
    assert state(store.parent) == before


def test_zx_serve_given_a_damaged_store_leaves_no_wal_or_shm_file(truncated, tmp_path):
    store, before = truncated
    assert "is damaged or not a SQLite database" in serve_start(store, tmp_path)
    assert state(store.parent) == before


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A WAL store of this release (``zx import``): ``zx matches`` reads it without the application."""
    path = tmp_path_factory.mktemp("wal") / "s.sqlite"
    assert invoke(path, "import", "--no-analytics", str(EXAMPLES)).exit_code == 0
    assert journal_mode(path) == "wal"
    return path, state(path.parent)


@pytest.mark.parametrize("command", [["matches"], ["matches", "--game", "zx"], ["verify"]], ids="-".join)
def test_a_read_command_leaves_no_wal_or_shm_file_beside_a_wal_store(imported, command):
    """A read-only connection (``mode=ro``) to a WAL store makes its -wal and -shm files and cannot
    remove them: ``zx matches`` left both beside every store it listed."""
    store, before = imported
    assert invoke(store, *command).exit_code == 0
    assert state(store.parent) == before


def test_the_writers_still_write_a_rollback_journal_store(tmp_path):
    """zx prepare (snapshots) and zx verify --seal (the store seal) write the store they are given; a
    SQLite writer puts it in WAL mode (eventsourcing does), and the store stays readable."""
    store = rollback_journal_store(tmp_path / "store")
    r = invoke(store, "prepare", "--format", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines()[1].startswith("20,20,0,"), r.output
    r = invoke(store, "verify", "--seal")
    assert r.exit_code == 0 and "20 matches sealed" in r.output, r.output
    assert invoke(store, "verify").exit_code == 0 and journal_mode(store) == "wal"


def test_a_seek_on_a_service_opened_to_read_writes_no_snapshot(rollback_journal):
    """``replay.state_at`` files a match's snapshots at its first seek; on ``MatchService(url,
    create=False)`` it reads as ``zx serve`` does (it made the snapshots table and wrote them)."""
    from zx_events import replay
    from zx_events.application import MatchService

    store, before = rollback_journal
    svc = MatchService(str(store), create=False)
    try:
        assert svc.store.reader
        assert replay.state_at(svc, MATCH, 50).version == 50
        assert replay.no_snapshots(svc)
    finally:
        svc.close()
    assert state(store.parent) == before
