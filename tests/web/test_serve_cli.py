"""``zx demo`` then ``zx serve``: the real command, as a newcomer runs it, in its own process on
127.0.0.1; and ``zx serve``'s refusals."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(args: list[str], cwd: Path, env: dict[str, str],
                ready: str = "/api/status") -> tuple[subprocess.Popen, str]:
    """``zx ARGS serve --port P`` in a process of its own, once it answers ``ready`` with 200; (the process, its
    base URL)."""
    port = free_port()
    # (-m zx_cli.main: named as zx's in the argv another process reads, e.g. the holder of an analytics file)
    proc = subprocess.Popen([sys.executable, "-m", "zx_cli.main", *args, "--port", str(port)],
                            cwd=cwd, env={**env, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    with httpx.Client(timeout=2) as polling:  # (one client: a new one per poll costs ~45 ms of CPU)
        while True:
            try:
                if polling.get(base + ready).status_code == 200:
                    return proc, base
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(proc.communicate()[1])
            time.sleep(0.1)


def test_zx_demo_then_zx_serve_browses_replays_and_charts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZX_STORE", raising=False)
    monkeypatch.delenv("ZX_ANALYTICS", raising=False)
    r = CliRunner().invoke(zx, ["demo", "--matches", "2"])  # (2 of each game: both games served)
    assert r.exit_code == 0, r.output
    env = {k: v for k, v in os.environ.items() if k not in ("ZX_STORE", "ZX_ANALYTICS")}
    proc, base = start_serve(["serve"], tmp_path, env)
    port = int(base.rsplit(":", 1)[1])
    try:
        client = httpx.Client(base_url=base, timeout=120)  # a busy machine draws charts slowly
        listed = client.get("/matches").text
        matches = client.get("/api/matches").json()["matches"]
        assert len(matches) == 4 and all(m["match"] in listed for m in matches)  # 2 of each game
        assert sorted(m["game"] for m in matches) == ["x610z"] * 2 + ["zx"] * 2
        first = matches[0]["match"]
        assert "chain verifies" in client.get(f"/matches/{first}").text
        replay = client.get(f"/matches/{first}/replay")
        assert replay.status_code == 200 and 'id="zx-data"' in replay.text
        dash = client.get("/dashboard").text  # (the one the server drew as it warmed)
        assert dash.count('<svg role="img" aria-label="') == 8 and dash.count('class="chart marks"') == 8
        # on 127.0.0.1, a request addressed to another name (DNS rebinding) reads nothing
        rebound = client.get("/api/matches", headers={"host": f"evil.example:{port}"})
        assert rebound.status_code == 400 and "DNS rebinding" in rebound.json()["error"]
        assert client.get("/api/matches", headers={"host": f"localhost:{port}"}).status_code == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "serving the demo's store zx-demo/events.sqlite" in err
    assert "note: the store has no replay snapshots" in err and "zx-demo/events.sqlite prepare" in err
    assert f"on http://127.0.0.1:{port}" in err
    assert not (tmp_path / "zx-store.sqlite").exists()  # nothing created


def test_zx_report_says_it_reads_the_demos_store_where_serve_serves_it(tmp_path, monkeypatch):
    """docs/serve.md: where there is no zx-store.sqlite but zx demo's store, serve serves that one. zx report
    takes it too, and said "serving the demo's store" (QA round 34): it serves nothing, it writes a file."""
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(zx, ["demo", "-n", "2"]).exit_code == 0
    r = CliRunner().invoke(zx, ["report", "-o", "meta.html"])
    assert r.exit_code == 0, r.output
    assert "no zx-store.sqlite here: reporting on the demo's store zx-demo/events.sqlite" in r.stderr, r.stderr
    assert "serving" not in r.stderr and (tmp_path / "meta.html").stat().st_size > 0
    assert not (tmp_path / "zx-store.sqlite").exists()


def test_serve_refuses_a_taken_port(tmp_path):
    from serve_support import build_store

    built = build_store(str(tmp_path / "events.sqlite"), tmp_path, matches=2)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = CliRunner().invoke(zx, ["--store", built.store, "serve", "--port", str(port)])
    assert r.exit_code == 1 and f"cannot listen on 127.0.0.1:{port}" in r.output and "--port" in r.output
    assert "--host" not in r.output


@pytest.mark.parametrize("host", ["999.1.1.1", "nosuchhost.invalid", "192.0.2.1"])  # (192.0.2.1: TEST-NET, not ours)
def test_serve_names_the_host_when_the_host_is_at_fault(tmp_path, host):
    """A --host that does not resolve, or an address that is not this machine's, said "choose another --port"."""
    from serve_support import build_store

    built = build_store(str(tmp_path / "events.sqlite"), tmp_path, matches=2)
    r = CliRunner().invoke(zx, ["--store", built.store, "serve", "--host", host, "--port", "18641"])
    assert r.exit_code == 1 and f"cannot listen on {host}:18641: " in r.output, r.output
    assert "choose another --host (an address of this machine, e.g. 127.0.0.1)" in r.output and "--port" not in r.output
    assert "Traceback" not in r.output


def test_serve_with_workers_answers_only_to_its_names(tmp_path):
    """--workers N builds each process's application from the environment: the names it answers to
    travel with it (--allow-host for a reverse proxy's name)."""
    from serve_support import build_store

    built = build_store(str(tmp_path / "events.sqlite"), tmp_path, matches=4)
    proc, base = start_serve(["--store", built.store, "serve", "--workers", "2", "--allow-host", "ZX.example",
                              "--analytics", str(built.analytics)], tmp_path, dict(os.environ))
    port = int(base.rsplit(":", 1)[1])
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            for _ in range(4):  # whichever process answers
                assert client.get("/api/matches", headers={"host": "zx.example"}).status_code == 200
                assert client.get("/api/matches", headers={"host": f"127.0.0.1:{port}"}).status_code == 200
                r = client.get("/api/matches", headers={"host": "evil.example"})
                assert r.status_code == 400 and "zx.example" in r.json()["error"]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_while_zx_serve_holds_the_analytics_file_every_message_says_to_stop_it(tmp_path):
    """zx serve holds the analytics file as long as it runs. zx analytics update said "in use by another process
    (an update or a query is running); try again when it has finished", zx import "run `zx analytics update`
    later", and the server's own 503 "run `zx analytics update`, then restart `zx serve`": none of which works
    while the server runs. They name the server (its PID) and say to stop it; zx report's advice names no server."""
    from serve_support import build_store

    built = build_store(str(tmp_path / "events.sqlite"), tmp_path, matches=3)
    built.analytics.rename(tmp_path / "events.duckdb")  # the store's own: every command below finds it
    legal = ROOT / "examples" / "legal"
    r = CliRunner().invoke(zx, ["--store", built.store, "import", "--no-analytics", str(legal / "first-turns.zxlog")])
    assert r.exit_code == 0, r.output
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("ZX_STORE", "ZX_ANALYTICS")}
    proc = subprocess.Popen([sys.executable, "-m", "zx_cli.main", "--store", built.store, "serve", "--port", str(port)],
                            cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    polling = httpx.Client(timeout=10)  # (one client: a new one per poll costs ~45 ms of CPU)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                r = polling.get(f"http://127.0.0.1:{port}/api/stats/matchups")
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
                time.sleep(0.2)
        assert r.status_code == 503
        # the update it advises with the --store the server was started with (run as written, it opened the
        # default store: "there is no store at zx-store.sqlite")
        assert r.json()["error"].endswith(f"stop this server, run `zx --store {built.store} analytics update`, then "
                                          f"start it again (or stop it and start it with `zx --store {built.store} "
                                          f"serve --follow`, which brings the file up to date and keeps it so while "
                                          f"it serves: the matches imported meanwhile are counted within seconds)"), \
            r.json()
        held = (f"is in use by another process: `zx serve` (PID {proc.pid}) holds it as long as it runs: stop that "
                f"server, run `zx --store {built.store} analytics update`, then start the server again")
        r = CliRunner().invoke(zx, ["--store", built.store, "analytics", "update"])
        assert r.exit_code == 1 and held in r.stderr and "Traceback" not in r.output, r.output
        assert f"`zx --store {built.store} serve --follow`" in r.stderr, r.stderr  # (as typed: it lost the store)
        r = CliRunner().invoke(zx, ["--store", built.store, "analytics", "update", "--rebuild"])
        assert r.exit_code == 1 and f"run `zx --store {built.store} analytics update --rebuild`, then" in r.stderr, \
            r.stderr  # (the update as asked: it lost its --rebuild)
        assert "serve --update" not in r.stderr and "serve --follow" not in r.stderr, r.stderr  # (it updates, never
        # rebuilds: it refused a file of
        # another schema, the usual reason for a rebuild)
        r = CliRunner().invoke(zx, ["--store", built.store, "import", str(legal / "range-attacks-win-by-life.zxlog")])
        assert r.exit_code == 0 and "the matches are imported, but the analytics file was not updated" in r.stderr
        assert held in r.stderr and "later" not in r.stderr, r.stderr
    finally:
        polling.close()
        proc.terminate()
        proc.communicate(timeout=20)
    r = CliRunner().invoke(zx, ["--store", built.store, "report", "-o", str(tmp_path / "r.html")])
    assert "behind the store" in r.output and "zx serve" not in r.output and "server" not in r.output, r.output


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_serve_says_a_store_has_no_replay_snapshots_with_a_prepare_that_names_it_as_typed(tmp_path, backend,
                                                                                          request):
    """docs/deployment.md, Upgrading: ``zx serve`` says when the store has no replay snapshots this version can use.
    On PostgreSQL it said nothing; and its ``zx --store ... prepare`` dropped a URL's query (``?schema=``: another
    store), unquoted."""
    if backend == "postgres":
        store = request.getfixturevalue("postgres_server").fresh_url()
    else:
        store = str(tmp_path / "my store.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics",
                                str(ROOT / "examples" / "legal" / "first-turns.zxlog")])
    assert r.exit_code == 0, r.output
    proc, _ = start_serve(["--store", store, "serve"], tmp_path, dict(os.environ))
    proc.terminate()
    err = proc.communicate(timeout=30)[1]
    import shlex

    who = ", run by a role with its grants (docs/deployment.md)," if backend == "postgres" else ""
    assert f"`zx --store {shlex.quote(store)} prepare`{who} files them" in err, err  # (QA round 34: a reader's
    # role may not write them; a typed password is left out, not ``***``: test_store_hardening)


@pytest.mark.postgres
def test_a_postgresql_session_says_which_zx_command_it_is(postgres_server, tmp_path):
    """zx's sessions set no application_name: in pg_stat_activity a server's connections were blank, and the lock-wait
    note's "(APPLICATION from ADDRESS)" empty, so a DBA could not tell them from an import's before a
    pg_terminate_backend (QA round 37). Each command's sessions are "zx COMMAND" (libpq's PGAPPNAME), unless set."""
    from zx_events.store import connect_postgres, parse_store

    store = postgres_server.fresh_url()
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics",
                                str(ROOT / "examples" / "legal" / "first-turns.zxlog")])
    assert r.exit_code == 0, r.output
    assert "PGAPPNAME" not in os.environ  # (set for the command's run only)
    env = {k: v for k, v in os.environ.items() if k != "PGAPPNAME"}
    proc, _ = start_serve(["--store", store, "serve"], tmp_path, env)
    try:
        with connect_postgres(parse_store(store).env) as conn:
            names = {row[0] for row in conn.execute("SELECT application_name FROM pg_stat_activity WHERE datname = "
                                                    "current_database() AND pid <> pg_backend_pid()").fetchall()}
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert names == {"zx serve"}, names
