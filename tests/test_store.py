"""The event store on SQLite and PostgreSQL (the ``store_url`` fixture runs each test on both):
import, reload, idempotent re-import, conflicts, atomic rejection; and the store URL itself."""

from __future__ import annotations

import csv
import io
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.application import MatchService
from zx_events.errors import ConflictError, RuleViolation
from zx_events.importer import build_match
from zx_events.logformat.reader import read_log
from zx_events.store import StoreError, connect_postgres, postgres_env, resolve_store

MATCH = "hand-first-turns-001"
DRAW = '"cards": ["U01-003", "U01-004"]'  # P2's Draw Phase on turn 2 (line 10)


def state(match) -> dict:
    """The game state of a Match: its attributes minus eventsourcing's own (_id, _version, ...)."""
    return {k: v for k, v in match.__dict__.items() if not k.startswith("_")}


def variant(example_log: Path, tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = example_log.read_text()
    assert old in text
    out = tmp_path / name
    out.write_text(text.replace(old, new))
    return out


def test_import_then_a_fresh_service_reloads_identical_state(service, store_url, example_log, count_rows):
    (log,) = read_log(example_log)
    memory = MatchService("memory:")  # the reference: the same import, kept in memory
    expected = memory.import_log(log)
    reference = state(memory.get_match(MATCH))
    live = state(build_match(log).match)  # what the engine built, before the import sealed it
    assert expected.status == "imported" and expected.events >= len(build_match(log).match.pending_events)
    out = service.import_log(log)
    assert (out.status, out.events, out.error) == ("imported", expected.events, None)
    assert count_rows(service) == expected.events == count_rows(service, MATCH)

    fresh = MatchService(store_url)
    try:
        again = fresh.get_match(MATCH)
        assert again.version == expected.events
        assert state(again) == state(service.get_match(MATCH))  # the very same stored events
        assert {k: state(again)[k] for k in live} == live  # replay gives what the engine built
        # ... and what an import into memory gives; the import's seal chains the events' timestamps,
        # so of the seal only its event count matches another import
        unsealed = {k: v for k, v in state(again).items() if k != "sealed"}
        assert unsealed == {k: v for k, v in reference.items() if k != "sealed"}
        assert reference.keys() - live.keys() <= {"sealed"}
        if "sealed" in reference:
            assert again.sealed["events"] == reference["sealed"]["events"] == expected.events - 1
        assert [s["match"] for s in fresh.summaries()] == [MATCH]
    finally:
        fresh.close()


def test_reimport_is_unchanged_and_adds_nothing(service, store_url, example_log, count_rows):
    (log,) = read_log(example_log)
    assert service.import_log(log).status == "imported"
    rows = count_rows(service)
    fresh = MatchService(store_url)
    try:
        out = fresh.import_log(read_log(example_log)[0])
    finally:
        fresh.close()
    assert (out.status, out.events, out.error) == ("unchanged", 0, None)
    assert count_rows(service) == rows


def test_same_id_with_other_content_is_a_conflict(service, example_log, tmp_path, count_rows):
    assert service.import_log(read_log(example_log)[0]).status == "imported"
    rows = count_rows(service)
    edited = variant(example_log, tmp_path, "edited.zxlog", '"round": 3', '"round": 4')
    out = service.import_log(read_log(edited)[0])
    assert out.status == "rejected"
    assert isinstance(out.error, ConflictError)
    assert f"match {MATCH} is already stored with different content" in str(out.error)
    assert str(out.error).startswith(f"{edited}:1: ")
    assert count_rows(service) == rows
    assert state(service.get_match(MATCH))["header"]["round"] == 3


def test_a_rejected_match_leaves_nothing_in_the_store(service, example_log, tmp_path, count_rows):
    bad = variant(example_log, tmp_path, "bad-draw.zxlog", DRAW, '"cards": ["U01-003"]')
    out = service.import_log(read_log(bad)[0])
    assert out.status == "rejected"
    assert isinstance(out.error, RuleViolation) and out.error.rule == "503.3"
    assert count_rows(service) == 0
    assert not service.has_match(MATCH)
    assert service.summaries() == []
    # ... and after it, the valid match imports in full.
    assert service.import_log(read_log(example_log)[0]).status == "imported"
    assert count_rows(service) == count_rows(service, MATCH) > 0


def test_cli_import_twice_on_the_store(store_url, example_log):
    events = MatchService("memory:").import_log(read_log(example_log)[0]).events
    runner = CliRunner()  # click >= 8.2: result.stdout and result.stderr apart
    rows = []
    for _ in range(2):
        result = runner.invoke(zx, ["--store", store_url, "import", str(example_log), "--format", "csv"])
        assert result.exit_code == 0, result.output
        (row,) = csv.DictReader(io.StringIO(result.stdout))
        rows.append((row["match"], row["source"], row["status"], row["events"]))
    assert rows == [(MATCH, f"{example_log}:1", "imported", str(events)),
                    (MATCH, f"{example_log}:1", "unchanged", "0")]
    assert "0 imported, 1 unchanged, 0 rejected into " in result.stderr


# ---------------------------------------------------------------- PostgreSQL specifics


@pytest.mark.postgres
def test_postgres_schema_is_created_when_missing(postgres_server):
    url = postgres_server.fresh_url()
    cfg = resolve_store(url, prepare=False)
    with connect_postgres(cfg.env) as con:
        assert con.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (cfg.schema,)).fetchone() is None
    svc = MatchService(url)
    try:
        assert svc.store.schema == cfg.schema
        with connect_postgres(cfg.env) as con:
            row = con.execute("SELECT to_regclass(%s)::text", (f'"{cfg.schema}"."matches_events"',)).fetchone()
        assert row == (f"{cfg.schema}.matches_events",)
        assert svc.summaries() == []
    finally:
        svc.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_postgres_is_a_clear_error_without_traceback(example_log):
    port = free_port()
    result = CliRunner().invoke(zx, ["--store", f"postgresql://zx:s3cret@127.0.0.1:{port}/zx",
                                     "import", str(example_log)])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: cannot connect to PostgreSQL at 127.0.0.1:{port}: ")
    assert "Connection refused" in result.output
    assert "Traceback" not in result.output and "s3cret" not in result.output


# ---------------------------------------------------------------- the store URL


def test_postgres_url_maps_to_the_eventsourcing_env(monkeypatch):
    for key in ("PGPASSWORD", "PGUSER", "PGHOST", "PGPORT", "PGDATABASE", "POSTGRES_SCHEMA", "POSTGRES_POOL_SIZE"):
        monkeypatch.delenv(key, raising=False)
    env = postgres_env("postgresql://ana:p%40ss@db.example:6543/zx?schema=league&lock_timeout=5")
    assert env["PERSISTENCE_MODULE"] == "zx_events.store:MatchPostgresFactory"
    assert (env["POSTGRES_USER"], env["POSTGRES_PASSWORD"], env["POSTGRES_HOST"], env["POSTGRES_PORT"],
            env["POSTGRES_DBNAME"], env["POSTGRES_SCHEMA"]) == ("ana", "p@ss", "db.example", "6543", "zx", "league")
    assert env["POSTGRES_LOCK_TIMEOUT"] == "5" and env["POSTGRES_POOL_SIZE"] == "1"
    assert env["APPLICATION_RECORDER_TOPIC"] == "zx_events.store:PostgresMatchRecorder"
    cfg = resolve_store("postgresql://ana:p%40ss@db.example:6543/zx?schema=league", prepare=False)
    assert cfg.label == "postgresql://ana@db.example:6543/zx?schema=league"


def test_postgres_password_and_schema_from_the_environment(monkeypatch):
    monkeypatch.setenv("PGPASSWORD", "from-env")
    monkeypatch.setenv("POSTGRES_SCHEMA", "shared")
    env = postgres_env("postgresql://postgres@127.0.0.1/zx")
    assert (env["POSTGRES_PASSWORD"], env["POSTGRES_SCHEMA"], env["POSTGRES_PORT"]) == ("from-env", "shared", "5432")
    assert postgres_env("postgresql://postgres:inline@127.0.0.1/zx?schema=s2")["POSTGRES_PASSWORD"] == "inline"


@pytest.mark.parametrize("url, message", [
    ("postgresql://u@h/db?scheme=x", "unknown parameter scheme in the store URL"),
    ("postgresql://u@h/db?schema=1bad", "bad schema name '1bad'"),
    ("postgresql://u@h/db?schema=a;drop", "bad schema name 'a;drop'"),
    ("postgresql://u@h/db?schema=Season2026", "bad schema name 'Season2026': it has capitals, which PostgreSQL folds "
     "to lower case where eventsourcing finds its tables' type under the name as written (every import failed); "
     "use lower case (season2026); nothing was created"),
    ("postgresql://u@h/db?pool_size=many", "pool_size must be a whole number, not 'many'"),
    ("postgresql://u:pw@h:99999/db", "bad port in the store URL postgresql://u:***@h:99999/db"),
])
def test_bad_postgres_urls_are_store_errors(url, message):
    """(A schema with capitals was accepted: zx import created it and its tables, then always failed with
    "Composite type 'stored_event_uuid' not found; run the import again".)"""
    with pytest.raises(StoreError) as info:
        resolve_store(url, prepare=False)
    assert message in str(info.value)
    assert ":pw@" not in str(info.value)


@pytest.mark.postgres
def test_a_store_url_takes_libpqs_tls_parameters(postgres_server, monkeypatch, example_log):
    """postgresql://...?sslmode=verify-full&sslrootcert=CA: the store's connections use TLS and check
    the server's certificate (the URL form every libpq tool takes; it was "unknown parameter sslmode").
    .ci/run starts its server with TLS and a certificate for 127.0.0.1 (ZX_TEST_POSTGRES_CA)."""
    import os

    for var in ("PGSSLMODE", "PGSSLROOTCERT"):  # the URL's parameters alone
        monkeypatch.delenv(var, raising=False)
    ca = os.environ.get("ZX_TEST_POSTGRES_CA")
    if not ca:
        pytest.skip("ZX_TEST_POSTGRES_CA (the test server's certificate) is not set: .ci/run sets it")
    url = postgres_server.fresh_url()
    svc = MatchService(f"{url}&sslmode=verify-full&sslrootcert={ca}")
    try:
        svc.import_log(read_log(example_log)[0])
        with svc.recorder.datastore.get_connection() as conn:
            row = conn.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").fetchone()
        assert row == {"ssl": True}
    finally:
        svc.close()
    r = CliRunner().invoke(zx, ["--store", f"{url}&sslmode=verify-full&sslrootcert={ca}", "matches", "--format", "csv"])
    assert r.exit_code == 0 and "hand-first-turns-001" in r.stdout
    wrong = Path(__file__).parent / "data" / "not-the-ca.pem"
    r = CliRunner().invoke(zx, ["--store", f"{url}&sslmode=verify-full&sslrootcert={wrong}", "matches"])
    assert r.exit_code == 1 and "certificate verify failed" in r.output
    r = CliRunner().invoke(zx, ["--store", f"{url}&sslmode=sometimes", "matches"])
    assert r.exit_code == 1 and "sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full" \
        in r.output


def test_read_connections_closed_never_hand_out_a_closed_connection(tmp_path):
    """``ReadConnections.close`` closes every thread's connection and forgets them: given a file
    again (a reader that shares them, as zx serve's does the service's), a thread gets a new one."""
    import sqlite3

    from zx_events.store import ReadConnections

    path = tmp_path / "s.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (x)")
    uri = f"{path.resolve().as_uri()}?mode=ro"
    reads = ReadConnections(uri, "SELECT 1 FROM t LIMIT 1")
    first = reads.get()
    assert first is not None and first.execute("SELECT count(*) FROM t").fetchone() == (0,)
    reads.close()
    assert reads.get() is None
    reads.uri = uri
    again = reads.get()
    assert again is not None and again is not first and again.execute("SELECT count(*) FROM t").fetchone() == (0,)
    reads.close()


def test_a_service_collected_after_its_close_is_not_closed_again(tmp_path):
    """A full suite's warning: eventsourcing's ``Application.__del__`` ran ``close()`` again on a service whose close
    had failed (its PostgreSQL server gone), from the collector on one of the pool's own threads: "Exception ignored
    in ... __del__ ... RuntimeError: cannot join current thread", a traceback on stderr. Collected, a closed service
    is not closed again; an open one still is."""
    from zx_events.application import MatchService

    svc = MatchService(str(tmp_path / "s.sqlite"))
    svc.close()
    again: list[int] = []
    svc.close = lambda: again.append(1)  # (the instance's, as __del__ would call it)
    svc.__del__()
    assert again == []
    other = MatchService(str(tmp_path / "s.sqlite"))
    closed: list[int] = []
    real = other.close
    other.close = lambda: closed.append(1) or real()
    other.__del__()
    assert closed == [1] and other._closed
