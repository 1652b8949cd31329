"""What a visitor of ``zx serve`` is told when something fails is what failed and what to do; the causes in a
library's words (SQLite's exception class, another store's path or PostgreSQL identity) go to the server's log and
the terminal (QA round 38, information disclosure). The real command, in its own process, its log read."""

from __future__ import annotations

import os
import random
import socket
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from test_serve_cli import start_serve
from zx_cli.main import zx


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("visitors")
    r = CliRunner().invoke(zx, ["demo", "--matches", "6", "--dir", str(folder / "demo")])
    assert r.exit_code == 0, r.output
    return folder


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("ZX_STORE", "ZX_ANALYTICS")}


def stopped(proc) -> str:
    proc.terminate()
    return proc.communicate(timeout=30)[1]


def test_a_damaged_store_answers_without_sqlites_class_and_the_status_says_it_failed(demo, tmp_path):
    """Its pages answered `failed: DatabaseError: database disk image is malformed`, and /api/status said
    ``store_ok: true`` meanwhile: a health check saw a healthy store under a server whose every list was a 500."""
    data = bytearray((demo / "demo" / "events.sqlite").read_bytes())
    rng = random.Random(3)
    for at in range(8192, len(data), 8192):  # (as a failing disk leaves it: tests/test_python_api_errors.py)
        data[at:at + 512] = bytes(rng.randrange(256) for _ in range(512))
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(bytes(data))
    proc, base = start_serve(["--store", str(damaged), "serve", "--analytics", str(tmp_path / "none.duckdb")],
                             tmp_path, env(), ready="/static/style.css")  # (its status is the store's 500)
    try:
        with httpx.Client(base_url=base, timeout=30) as c:
            r = c.get("/api/matches")
            status = c.get("/api/status")
    finally:
        err = stopped(proc)
    assert r.status_code == 500 and r.json()["error"] == (f"the store {damaged} failed to be read (is it damaged? "
                                                          f"`zx verify` checks it)"), r.text
    assert status.status_code == 500 and status.json()["store_ok"] is False, status.text
    assert status.json()["store_message"] == r.json()["error"] and status.json()["seats"]
    assert "DatabaseError: database disk image is malformed" in err and "Traceback" not in err, err


def test_an_analytics_file_of_another_store_does_not_tell_a_visitor_that_stores_path(demo, tmp_path):
    other = tmp_path / "league" / "store.sqlite"
    other.parent.mkdir()
    logs = sorted(str(p) for p in (demo / "demo" / "logs").iterdir())
    r = CliRunner().invoke(zx, ["--store", str(other), "import", "--no-analytics", *logs])
    assert r.exit_code == 0, r.output
    built_from = str(demo / "demo" / "events.sqlite")  # (demo's analytics file is that store's)
    proc, base = start_serve(["--store", "league/store.sqlite", "serve", "--analytics",
                              str(demo / "demo" / "events.duckdb")], tmp_path, env())
    try:
        with httpx.Client(base_url=base, timeout=30) as c:
            answers = [c.get("/api/status").json()["analytics_message"], c.get("/api/stats/winrates").text,
                       c.get("/dashboard", headers={"accept": "text/html"}).text]
    finally:
        err = stopped(proc)
    for text in answers:
        assert "was built from another store, not from this store: run `zx --store league/store.sqlite analytics " \
               "update" in text, text[:2000]
        assert built_from not in text and str(tmp_path) not in text.replace(str(demo / "demo" / "events.duckdb"), "")
    assert f"was built from sqlite:{built_from}, not from this store" in err, err  # (its start-up line: the terminal)


def test_a_malformed_chunked_request_leaves_no_traceback_in_the_log(demo, tmp_path):
    """uvicorn's h11 refused the request (its own 400) while the application answered it; the answer it then
    refused wrote two tracebacks to the log a request (caught, uvicorn's ERROR line "ASGI callable returned without
    completing response" was left): uvicorn's warning line alone now."""
    proc, base = start_serve(["--store", str(demo / "demo" / "events.sqlite"), "serve"], tmp_path, env())
    try:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"POST /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n")
            answer = s.recv(65536)
        assert answer.startswith(b"HTTP/1.1 400"), answer
        time.sleep(0.5)
        assert httpx.get(base + "/api/status", timeout=30).status_code == 200  # (serving on)
    finally:
        err = stopped(proc)
    assert "Traceback" not in err and "ERROR" not in err and err.count("Invalid HTTP request received.") == 1, err


def test_a_stopped_follower_tells_a_visitor_what_happens_not_its_error(demo, tmp_path):
    """--follow's follower stopped (its store's server gone, a file of another store): a visitor read its error in
    the library's words, then "(stop this server first: ...)" after an advice the visitor's words had lost (QA round
    38, docs); now what happens and that the log says why; the terminal's words keep the error and what to run."""
    from types import SimpleNamespace

    from zx_web.app import open_backend

    store = str(demo / "demo" / "events.sqlite")
    backend = open_backend(store, demo / "demo" / "events.duckdb")
    try:
        backend.serving = True
        backend._follower = SimpleNamespace(error="connection failed: root certificate file \"/etc/zx/ca.pem\" does "
                                                  "not exist; run `zx analytics update`")  # (what Follower.run keeps)
        said = backend.freshness()
        assert not said.ok and said.message.endswith("(the server's log says why); the statistics answer again once "
                                                     "this server is started again"), said.message
        assert "/etc/zx" not in said.message and "stop this server first" not in said.message
        backend.visitors = False  # (zx serve's start-up, on the terminal)
        assert "/etc/zx/ca.pem" in backend.freshness().message
    finally:
        backend._follower = None
        backend.close()
