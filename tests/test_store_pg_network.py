"""A PostgreSQL server or client that stops answering (a network cut, a host gone): every connection of a
store carries TCP keepalives and a TCP user timeout, on the client (libpq's ``keepalives_*``,
``tcp_user_timeout``) and on the server (the session's ``tcp_keepalives_*`` and ``tcp_user_timeout``), so a
command finds a lost server within seconds and the server ends the backend of a lost importer, with the
table lock it held (docs/deployment.md). Read on the real sockets and sessions of a real server. And a
schema name the store cannot use is refused before anything is created."""

from __future__ import annotations

import os
import socket

import pytest
from psycopg.rows import tuple_row

from zx_events.store import StoreError, connect_postgres, postgres_env, resolve_store

pytestmark = pytest.mark.postgres
SERVER_SETTINGS = ("tcp_keepalives_idle", "tcp_keepalives_interval", "tcp_keepalives_count", "tcp_user_timeout")


def network_settings(conn) -> tuple[tuple[int, int, int, int], tuple[str, ...]]:
    """(the client socket's SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPCNT and TCP_USER_TIMEOUT), (the session's
    SERVER_SETTINGS) of a psycopg connection."""
    sock = socket.socket(fileno=os.dup(conn.pgconn.socket))
    try:
        client = (sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE),
                  sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE),
                  sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT),
                  sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT))
    finally:
        sock.close()
    cur = conn.cursor(row_factory=tuple_row)  # (a pooled connection's rows are dicts)
    server = tuple(cur.execute("SELECT current_setting(%s)", (name,)).fetchone()[0] for name in SERVER_SETTINGS)
    return client, server


def test_every_connection_has_keepalives_and_a_tcp_user_timeout(postgres_server, monkeypatch):
    """No connection set them: an importer whose network stalled mid-insert kept its backend "active,
    ClientRead" with the table's lock and no time limit (every other importer failed after lock_timeout), and
    a command on a lost server waited 75 s and more. The defaults (5 s idle, 2 s apart, 3 probes, 15 s) reach
    the pool's connections (every read, write and LISTEN) and the store's own (privilege checks, zx serve's
    probe), on both ends; the URL overrides them; PGOPTIONS still applies (options= would replace it)."""
    from zx_events.application import MatchService

    monkeypatch.setenv("PGOPTIONS", "-c application_name=zx-net-test")
    url = postgres_server.fresh_url()
    for extra, client, server in (
            ("", (1, 5, 3, 15000), ("5", "2", "3", "15000")),
            ("&keepalives_idle=7&keepalives_interval=1&keepalives_count=4&tcp_user_timeout=2500&connect_timeout=2",
             (1, 7, 4, 2500), ("7", "1", "4", "2500"))):
        config = resolve_store(url + extra)
        with connect_postgres(config.env) as conn:
            assert network_settings(conn) == (client, server)
            assert conn.execute("SHOW application_name").fetchone()[0] == "zx-net-test"
        svc = MatchService(config.url)
        try:
            pool = svc.recorder.datastore.pool
            assert pool.kwargs["connect_timeout"] == (2 if extra else 10)  # a new pooled connection, bounded too
            with svc.recorder.datastore.get_connection() as conn:
                assert network_settings(conn) == (client, server)
        finally:
            svc.close()


def test_a_keepalive_parameter_must_be_a_whole_number():
    for name in ("keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout"):
        with pytest.raises(StoreError) as e:
            postgres_env(f"postgresql://zx@db/zx?{name}=5s")
        assert str(e.value) == f"{name} must be a whole number, not '5s', in the store URL postgresql://zx@db/zx?{name}=5s"


def test_each_number_of_a_store_url_is_checked_against_its_range_before_connecting(postgres_server):
    """keepalives_idle=0, 32768, non-ASCII digits ('\u0663', which str.isdigit took) or a value past 2^31
    passed the URL check and failed later as "cannot connect" (libpq: "setsockopt(TCP_KEEPIDLE) failed:
    Invalid argument"): each is now refused naming the parameter, the value and its range, before any
    connection. The ends of each range do connect, on both ends of a real connection."""
    from zx_events.store import PG_RANGES

    url = postgres_server.fresh_url()
    for name, (low, high) in PG_RANGES.items():
        for bad in (str(low - 1) if low else None, str(high + 1)):
            if bad is not None:
                with pytest.raises(StoreError) as e:
                    postgres_env(f"postgresql://zx@db/zx?{name}={bad}")
                assert str(e.value).startswith(f"{name} must be from {low} to {high:,}, not {bad}, in the store "
                                               f"URL postgresql://zx@db/zx?{name}={bad}")
        for bad in ("\u0663", "\u00b2", "-1", "+5", " 5", "5.0", ""):
            with pytest.raises(StoreError, match=f"^{name} must be a whole number, not "):
                postgres_env(f"postgresql://zx@db/zx?{name}={bad}")
    for name in ("keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout"):
        low, high = PG_RANGES[name]
        for value in (low, high):
            with connect_postgres(resolve_store(f"{url}&{name}={value}").env) as conn:
                assert conn.execute("SELECT 1").fetchone()


def test_connect_timeout_0_is_refused_before_connecting_and_1_opens_the_store(postgres_server):
    """connect_timeout=0 passed the URL check ("0 (no limit)", as libpq reads it) and then every command that
    opened the store failed with "the PostgreSQL server ... could not be reached ... (couldn't get a
    connection after 0.00 sec)": the connection pool waits connect_timeout for a connection, and 0 is not at
    all (psycopg itself reads 0 as 130 s). It is refused now, naming the parameter, the value and the range,
    before any connection; the new low end, 1, opens the store and imports."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    with pytest.raises(StoreError) as e:
        postgres_env("postgresql://zx@db/zx?connect_timeout=0")
    assert str(e.value) == ("connect_timeout must be from 1 to 2,147,483,647, not 0, in the store URL "
                            "postgresql://zx@db/zx?connect_timeout=0 (libpq reads 0 as no limit, but the store's "
                            "connection pool would not wait at all: give the seconds to wait)")
    url = postgres_server.fresh_url()
    r = CliRunner().invoke(zx, ["--store", f"{url}&connect_timeout=0", "import", "--no-analytics",
                                "examples/legal/first-turns.zxlog"])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "connect_timeout must be from 1 to 2,147,483,647, not 0" in r.output, r.output
    assert "could not be reached" not in r.output, r.output
    r = CliRunner().invoke(zx, ["--store", f"{url}&connect_timeout=1", "import", "--no-analytics",
                                "examples/legal/first-turns.zxlog"])
    assert r.exit_code == 0, r.output
    assert CliRunner().invoke(zx, ["--store", f"{url}&connect_timeout=1", "matches"]).exit_code == 0


def test_a_statement_timeout_while_a_new_store_is_made_is_named_and_leaves_no_schema(postgres_server, monkeypatch,
                                                                                      tmp_path):
    """A statement timeout hit while zx import opened a new store said only "cannot open the store ...:
    canceling statement due to statement timeout", and left the new schema behind, empty. Now it is named with
    what to do (as under any other command), and the schema the command made is dropped again."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    url = postgres_server.fresh_url()
    schema = resolve_store(url, prepare=False).env["POSTGRES_SCHEMA"]
    monkeypatch.setenv("PGOPTIONS", "-c statement_timeout=1")  # 1 ms: making the store's tables takes longer
    r = CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", "examples/legal"])
    monkeypatch.delenv("PGOPTIONS")
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "ran longer than the statement_timeout of the role postgres" in r.output, r.output
    assert "raise it for the role (ALTER ROLE ... SET statement_timeout, or in PGOPTIONS)" in r.output
    with connect_postgres(resolve_store(postgres_server.base_url, prepare=False).env) as conn:
        assert conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() is None
    # the same store made without the timeout: the schema and its tables stay
    assert CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", "examples/legal"]).exit_code == 0
    with connect_postgres(resolve_store(postgres_server.base_url, prepare=False).env) as conn:
        assert conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"{schema}.matches_events",)).fetchone()[0]


def test_a_lock_timeout_while_the_store_is_opened_is_named_with_what_to_do(postgres_server, monkeypatch):
    """Another session holding the lock under which a store's tables are made (another zx import making them)
    past the session's lock_timeout (PGOPTIONS) said only "cannot open the store ...: canceling statement due to
    lock timeout": it is named, with what to do."""
    import hashlib

    from click.testing import CliRunner

    from zx_cli.main import zx

    url = postgres_server.fresh_url()
    env = resolve_store(url).env  # (the schema made, no tables yet)
    table = f'"{env["POSTGRES_SCHEMA"]}"."matches_events"'
    key = int.from_bytes(hashlib.blake2b(table.encode(), digest_size=8).digest(), "big", signed=True)
    with connect_postgres(env) as other:
        other.execute("SELECT pg_advisory_lock(%s)", (key,))
        monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=200")
        r = CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", "examples/legal/first-turns.zxlog"])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"Error: cannot open the store {url}: another session held the table lock of {url} "
                               f"longer than lock_timeout allows (canceling statement due to lock timeout): another "
                               f"zx import or zx prepare, or a session that locked the table; wait for it to finish"), \
        r.output


def test_a_schema_named_with_capitals_is_refused_before_anything_is_created(postgres_server, tmp_path):
    """``?schema=Upper``: zx import created the schema and its tables, then failed with "Composite type
    'stored_event_uuid' not found; run the import again" every time, leaving the schema behind."""
    from pathlib import Path

    from click.testing import CliRunner

    from zx_cli.main import zx

    log = sorted((Path(__file__).resolve().parent.parent / "examples" / "legal").glob("*.zxlog"))[0]
    url = postgres_server.fresh_url()
    upper = url.replace("?schema=", "?schema=Up")
    r = CliRunner().invoke(zx, ["--store", upper, "import", "--no-analytics", str(log)])
    assert r.exit_code == 1
    assert "it has capitals" in r.output and "use lower case" in r.output and "nothing was created" in r.output
    with connect_postgres(postgres_env(url)) as conn:
        assert conn.execute("SELECT count(*) FROM pg_namespace WHERE lower(nspname) LIKE 'up%%'").fetchone()[0] == 0


def locked_store(postgres_server):
    """A fresh store holding the example match, and a connection holding its events table locked (ACCESS
    EXCLUSIVE, in an open transaction): close it to release the lock."""
    from pathlib import Path

    from click.testing import CliRunner

    from zx_cli.main import zx

    log = sorted((Path(__file__).resolve().parent.parent / "examples" / "legal").glob("*.zxlog"))[0]
    url = postgres_server.fresh_url()
    assert CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", str(log)]).exit_code == 0
    env = postgres_env(url)
    holder = connect_postgres(env, autocommit=False)
    holder.execute(f'LOCK TABLE "{env["POSTGRES_SCHEMA"]}".matches_events IN ACCESS EXCLUSIVE MODE')
    return url, log, holder


@pytest.mark.parametrize("setting, said", [
    ("statement_timeout=300", "the PostgreSQL server canceled a statement that ran longer than the statement_timeout "
                              "of the role postgres (canceling statement due to statement timeout): raise it for the "
                              "role (ALTER ROLE ... SET statement_timeout, or in PGOPTIONS), or unset it"),
    ("lock_timeout=300", "another session held the table lock of postgresql://"),
])
def test_a_statement_or_lock_timeout_is_named_not_called_damage(postgres_server, monkeypatch, setting, said):
    """A role's statement_timeout (ALTER ROLE ... SET, or PGOPTIONS) under a read command was "failed:
    OperationalError: canceling statement due to statement timeout (is it damaged? `zx verify` checks it;
    restore it from a backup)"; a lock held by another session likewise. Each is now named, with what to do,
    once, without the exception's class."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    url, _, holder = locked_store(postgres_server)
    monkeypatch.setenv("PGOPTIONS", f"-c {setting}")
    try:
        r = CliRunner().invoke(zx, ["--store", url, "matches"])
    finally:
        holder.close()
    assert r.exit_code == 1
    assert r.output.startswith(f"Error: the store {url} failed: {said}"), r.output
    for word in ("damaged", "backup", "OperationalError", "Error:", "internal error"):
        assert r.output.count(word) == (1 if word == "Error:" else 0), r.output



def test_the_store_settings_given_in_the_environment_are_checked_as_the_urls_are(monkeypatch):
    """POSTGRES_CONNECT_TIMEOUT=0 in the environment made every command fail as "could not be reached
    (couldn't get a connection after 0.00 sec)", 99999999999 as "timestamp out of range for platform time_t";
    pool_size and max_overflow both 0 as psycopg_pool's "if min_size is 0 max_size must be greater than 0".
    The environment's values are checked as the URL's, naming the variable; a pool of 0 kept connections
    (opened on demand) is taken."""
    url = "postgresql://zx@db/zx"
    for key, value, said in (
            ("POSTGRES_CONNECT_TIMEOUT", "0", "connect_timeout must be from 1 to 2,147,483,647, not 0, in the "
                                              "environment (POSTGRES_CONNECT_TIMEOUT)"),
            ("POSTGRES_CONNECT_TIMEOUT", "99999999999", "connect_timeout must be from 1 to 2,147,483,647, not "
                                                        "99999999999, in the environment (POSTGRES_CONNECT_TIMEOUT)"),
            ("POSTGRES_LOCK_TIMEOUT", "5s", "lock_timeout must be a whole number, not '5s', in the environment "
                                            "(POSTGRES_LOCK_TIMEOUT)")):
        monkeypatch.setenv(key, value)
        with pytest.raises(StoreError) as e:
            postgres_env(url)
        assert str(e.value).startswith(said), str(e.value)
        monkeypatch.delenv(key)
    monkeypatch.setenv("POSTGRES_CONNECT_TIMEOUT", "007")
    assert postgres_env(url)["POSTGRES_CONNECT_TIMEOUT"] == "7"
    assert postgres_env(url + "?pool_size=0")["POSTGRES_POOL_SIZE"] == "0"  # connections opened on demand
    with pytest.raises(StoreError, match="pool_size and max_overflow cannot both be 0"):
        postgres_env(url + "?pool_size=0&max_overflow=0")
    monkeypatch.setenv("POSTGRES_MAX_OVERFLOW", "0")
    with pytest.raises(StoreError, match="pool_size and max_overflow cannot both be 0"):
        postgres_env(url + "?pool_size=0")


@pytest.mark.parametrize("command", [["verify"], ["import", "--no-analytics"]])
def test_a_server_lost_under_a_command_is_reported_within_about_15_s(postgres_server, tmp_path, monkeypatch, command):
    """The server gone in the middle of zx verify or zx import (the connection reset, then every connect
    refused): each of eventsourcing's 10 tries of a read or write waited the pool's connect_timeout (10 s) for
    a connection the refused connects never made, and the "could not be reached" error came after ~82 s (QA,
    repro-lost-server.sh) where docs/deployment.md says within about 15 s. A try that waited the pool's
    whole timeout is not tried again."""
    import time
    from urllib.parse import urlparse

    from click.testing import CliRunner

    from zx_cli.main import zx
    from tcp_proxy import TcpProxy
    from zx_events import ledger

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    logs = sorted(os.path.join(root, "examples", "legal", n) for n in os.listdir(os.path.join(root, "examples", "legal")))
    url = postgres_server.fresh_url()
    if command[0] == "verify":
        assert CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", *logs]).exit_code == 0
    env = postgres_env(url)
    proxy = TcpProxy((env["POSTGRES_HOST"], int(env["POSTGRES_PORT"])))
    u = urlparse(url)
    lost = u._replace(netloc=f"{u.username}@127.0.0.1:{proxy.port}").geturl()  # connect_timeout: the default 10 s
    cut: list[float] = []

    def cut_now() -> None:
        if not cut:
            proxy.close()
            cut.append(time.monotonic())

    if command[0] == "verify":  # cut once the first match is verified (the store open, its connection in use)
        verdict = ledger.match_verdict
        calls = []

        def cutting(*a, **k):
            calls.append(1)
            if len(calls) == 2:
                cut_now()
            return verdict(*a, **k)

        monkeypatch.setattr(ledger, "match_verdict", cutting)
    else:  # cut as the first batch is written
        from zx_events import store as store_module

        recorder = store_module.PostgresMatchRecorder
        insert = recorder._insert_plain

        def cutting_insert(self, *a, **k):
            cut_now()
            return insert(self, *a, **k)

        monkeypatch.setattr(recorder, "_insert_plain", cutting_insert)
        command = [*command, "--workers", "1", *logs]
    monkeypatch.setenv("ZX_ANALYTICS", str(tmp_path / "a.duckdb"))
    try:
        r = CliRunner().invoke(zx, ["--store", lost, *command])
        took = time.monotonic() - cut[0]
    finally:
        proxy.close()
    assert r.exit_code == 1, r.output
    assert f"the PostgreSQL server at 127.0.0.1:{proxy.port} could not be reached" in r.output, r.output
    assert took < 16, f"reported {took:.1f} s after the server was lost"
