"""A ``zx import`` that stores nothing leaves nothing behind: the store it created in this run (a SQLite
file with its folders, or a PostgreSQL schema) is removed again, never one that was there before, nor one
another process has open or put something in. And SIGTERM while the command loads its own modules is
taken as it is at every other moment of the command. Real SQLite, the PostgreSQL test server, real
processes and signals."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from failure_support import ENV
from zx_events.newstore import NewStore, before_creating, remove_if_empty
from zx_events.store import connect_postgres, parse_store

ROOT = Path(__file__).resolve().parent.parent
INVALID = ROOT / "examples" / "invalid"
REJECTED = [str(INVALID / "101.2-wrong-winner.zxlog"), str(INVALID / "204.6-colour.zxlog")]
LEGAL = str(ROOT / "examples" / "legal" / "first-turns.zxlog")


def _import(store: str, *logs: str):
    return CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", "--workers", "1",
                                   "--format", "csv", *logs])


def _schema_exists(store_url: str) -> bool:
    config = parse_store(store_url)
    with connect_postgres(config.env) as conn:
        return conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s",
                            (config.env["POSTGRES_SCHEMA"],)).fetchone() is not None


def _leftovers(store_url: str, backend: str) -> bool:
    if backend == "postgres":
        return _schema_exists(store_url)
    return any(os.path.lexists(store_url + s) for s in ("", "-wal", "-shm", "-journal"))


def test_a_fully_rejected_import_removes_the_store_it_created(store_url, backend):
    """Every log rejected by the rules, into a store that did not exist: the file (or schema) the import
    made was left behind, empty. It is removed again, with a note saying so; the exit code is still 1."""
    r = _import(store_url, *REJECTED)
    assert r.exit_code == 1, r.output
    assert "0 imported, 0 unchanged, 2 rejected" in r.output
    label = parse_store(store_url).label
    assert f"nothing was stored, so the store {label} that this import created was removed again" in r.output
    assert not _leftovers(store_url, backend)
    r = _import(store_url, LEGAL)  # and the next import makes it afresh
    assert r.exit_code == 0 and "1 imported, 0 unchanged, 0 rejected" in r.output, r.output


def test_a_fully_rejected_import_removes_the_folders_it_made_for_the_store(tmp_path):
    store = tmp_path / "new" / "deeper" / "s.sqlite"
    r = _import(str(store), *REJECTED)
    assert r.exit_code == 1 and "removed again" in r.output, r.output
    assert os.listdir(tmp_path) == []


def test_an_unreadable_log_alone_leaves_no_store(tmp_path):
    """A log that is not a log at all (not JSON): rejected as unreadable; the store made for it goes too."""
    log = tmp_path / "broken.zxlog"
    log.write_text("this is not JSON\n")
    r = _import(str(tmp_path / "s.sqlite"), str(log))
    assert r.exit_code == 1 and "1 rejected" in r.output, r.output
    assert sorted(os.listdir(tmp_path)) == ["broken.zxlog"]


def test_a_fully_rejected_import_keeps_a_store_that_existed_before(store_url, backend, tmp_path, request):
    """Never a store that was there before the import: one with matches (its bytes untouched), an empty file
    the user made for it, a PostgreSQL schema made beforehand."""
    assert _import(store_url, LEGAL).exit_code == 0
    before = Path(store_url).read_bytes() if backend == "sqlite" else None
    r = _import(store_url, *REJECTED)
    assert r.exit_code == 1 and "removed again" not in r.output, r.output
    assert _leftovers(store_url, backend)
    if backend == "sqlite":
        assert Path(store_url).read_bytes() == before
        empty = tmp_path / "empty.sqlite"
        empty.touch()
        r = _import(str(empty), *REJECTED)
        assert r.exit_code == 1 and "removed again" not in r.output and empty.exists(), r.output
        # ... and left as it was: empty, no sidecar (it held the empty tables, 20 KB: QA round 33)
        assert f"nothing was stored, so the store {empty} is an empty file again, as it was" in r.output, r.output
        assert empty.stat().st_size == 0 and not [f for f in os.listdir(tmp_path) if f.startswith("empty.sqlite-")]
    else:
        other = request.getfixturevalue("postgres_server").fresh_url()
        config = parse_store(other)
        with connect_postgres(config.env) as conn:
            conn.execute(f'CREATE SCHEMA "{config.env["POSTGRES_SCHEMA"]}"')
        r = _import(other, *REJECTED)
        assert r.exit_code == 1 and "removed again" not in r.output and _schema_exists(other), r.output


def test_a_fully_rejected_import_through_a_link_to_a_file_not_made_yet_removes_the_file_and_keeps_the_link(tmp_path):
    """--store a symbolic link to where the store is to be (a volume's path): SQLite made the file it points to,
    which a fully rejected import left behind (and `zx matches` then listed an empty store); it goes, the link
    the user made stays (QA round 33)."""
    (tmp_path / "vol").mkdir()
    link = tmp_path / "link.sqlite"
    link.symlink_to(tmp_path / "vol" / "events.sqlite")
    r = _import(str(link), *REJECTED)
    assert r.exit_code == 1, r.output
    target = tmp_path / "vol" / "events.sqlite"
    assert (f"nothing was stored, so the store {target} that this import created (where {link} links to) was "
            f"removed again") in r.output, r.output
    assert os.listdir(tmp_path / "vol") == [] and link.is_symlink() and not link.exists()
    r = CliRunner().invoke(zx, ["--store", str(link), "matches"])
    assert r.exit_code == 1 and "there is no store" in r.output, r.output
    r = _import(str(link), LEGAL)  # and the next import makes it where the link points
    assert r.exit_code == 0 and target.is_file() and link.is_symlink(), r.output


def test_an_import_that_stored_a_match_keeps_the_store_it_created(store_url, backend):
    r = _import(store_url, LEGAL, *REJECTED)
    assert r.exit_code == 1 and "1 imported, 0 unchanged, 2 rejected" in r.output, r.output
    assert "removed again" not in r.output and _leftovers(store_url, backend)


def test_a_new_store_another_process_has_open_or_wrote_to_stays(tmp_path):
    """The removal itself: a new store is kept while another connection has it open (it could write into a
    file deleted under it), and when any table holds a row; it goes once nobody has it open and it is empty.
    The journal mode is left as it was (WAL) when it stays."""
    store = str(tmp_path / "s.sqlite")
    made = before_creating(store)
    assert made is not None and before_creating(store) is not None  # (nothing made yet)
    con = sqlite3.connect(store)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE stored_events (x)")
    con.commit()
    other = sqlite3.connect(store)
    other.execute("SELECT count(*) FROM stored_events").fetchone()  # (a reader that has read it)
    con.close()
    assert before_creating(store) is None  # (there now)
    assert not remove_if_empty(made) and os.path.exists(store)
    other.execute("INSERT INTO stored_events VALUES (1)")
    other.commit()
    other.close()
    assert not remove_if_empty(made) and os.path.exists(store)
    with sqlite3.connect(store) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        con.execute("DELETE FROM stored_events")
    con.close()
    assert remove_if_empty(made)
    assert os.listdir(tmp_path) == []


@pytest.mark.postgres
def test_a_postgres_schema_that_holds_a_row_is_not_dropped(postgres_server):
    store_url = postgres_server.fresh_url()
    assert before_creating(store_url) is None  # (a schema is known made by the store itself: made_schema)
    config = parse_store(store_url)
    made = NewStore(config, schema=True)
    assert made.schema
    schema = config.env["POSTGRES_SCHEMA"]
    with connect_postgres(config.env) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'CREATE TABLE "{schema}".t (x int)')
        conn.execute(f'INSERT INTO "{schema}".t VALUES (1)')
    assert not remove_if_empty(made) and _schema_exists(store_url)
    with connect_postgres(config.env) as conn:
        conn.execute(f'DELETE FROM "{schema}".t')
    assert remove_if_empty(made) and not _schema_exists(store_url)


@pytest.mark.postgres
def test_a_new_postgres_schema_another_process_has_open_is_not_dropped(postgres_server):
    """An import that stored nothing dropped the schema it had made while another import had it open (its
    tables still empty: it was checking its logs), which then failed with 'relation "....matches_events"
    does not exist'. Each process with the store open holds its "open" lock: the schema stays while one
    does, and is removed once none does."""
    from zx_events.application import MatchService
    from zx_events.newstore import made_schema
    from zx_events.parallel import import_files

    store_url = postgres_server.fresh_url()
    first = MatchService(store_url)  # the import that creates the schema, then stores nothing
    made = made_schema(first)
    assert made is not None
    first.close()
    other = MatchService(store_url)  # the other import, opened meanwhile, nothing stored yet
    try:
        assert not remove_if_empty(made) and _schema_exists(store_url)
        outcomes = list(import_files(other, [LEGAL], workers=1))
        assert [o.status for o in outcomes] == ["imported"], outcomes
    finally:
        other.close()
    assert not remove_if_empty(made) and _schema_exists(store_url)  # (it holds a match now)
    empty_url = postgres_server.fresh_url()
    first = MatchService(empty_url)
    made = made_schema(first)
    first.close()
    MatchService(empty_url).close()  # opened and closed again: nobody has it open
    assert remove_if_empty(made) and not _schema_exists(empty_url)


@pytest.mark.postgres
def test_a_store_whose_new_schema_was_dropped_as_it_opened_is_made_again(postgres_server, monkeypatch):
    """The one moment the "open" lock does not cover: the removal drops the schema between another import's
    look at it and that import's taking the lock. That import then opens the store again, under the lock,
    making the schema afresh, and stores its match (it failed with 'relation ... does not exist')."""
    import zx_events.application
    from zx_events.application import MatchService
    from zx_events.newstore import made_schema
    from zx_events.parallel import import_files

    store_url = postgres_server.fresh_url()
    first = MatchService(store_url)
    made = made_schema(first)
    first.close()
    real_hold = zx_events.application.hold_in_use

    def dropped_first(config):
        assert remove_if_empty(made) and not _schema_exists(store_url)
        return real_hold(config)

    monkeypatch.setattr(zx_events.application, "hold_in_use", dropped_first)
    other = MatchService(store_url)
    monkeypatch.setattr(zx_events.application, "hold_in_use", real_hold)
    try:
        assert [o.status for o in import_files(other, [LEGAL], workers=1)] == ["imported"]
    finally:
        other.close()
    assert _schema_exists(store_url)


# SIGTERM while zx import loaded its own modules (eventsourcing, the parallel importer: tens of ms, before
# its SIGTERM handler was installed) ended it with exit 143 and no word. The hook below sends the signal at
# exactly that moment: when the command first imports zx_events.parallel.
_SIGTERM_ON_IMPORT = """
import importlib.abc, os, signal, sys

class SigtermOnImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "zx_events.parallel":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, SigtermOnImport())
from zx_cli.main import main
main()
"""


def test_sigterm_while_the_import_loads_its_modules_says_so_and_ends_by_the_signal(tmp_path):
    p = subprocess.run([sys.executable, "-c", _SIGTERM_ON_IMPORT, "--store", "s.sqlite", "import", "--no-analytics",
                        LEGAL], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert p.stderr.strip().splitlines()[-1] == "interrupted (SIGTERM): 0 matches were imported", p.stderr
    assert os.listdir(tmp_path) == []  # (no store made)


def test_an_import_whose_store_file_was_removed_under_it_says_so(tmp_path):
    """The one way removing an empty store can lose matches: a second import opens the new file in the
    millisecond between the first one's check that nobody has it open and its unlink, then writes into the
    removed file. zx import asks the file at the path for its last match before it reports (lost_under)."""
    import os

    from click.testing import CliRunner

    from zx_cli.main import zx
    from zx_events.newstore import lost_under
    from zx_events.store import parse_store

    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", "examples/legal/first-turns.zxlog"])
    assert r.exit_code == 0, r.output
    config = parse_store(str(store))
    assert not lost_under(config, "hand-first-turns-001")
    os.replace(store, tmp_path / "elsewhere.sqlite")  # removed under it; another import's empty store in its place
    assert lost_under(config, "hand-first-turns-001")
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", "examples/invalid"])
    assert r.exit_code == 1
    assert lost_under(config, "hand-first-turns-001")
