"""Dashboards asked by clients who hang up before their turn (QA "serve", 2026-11-28): each was still drawn in
its turn, and they kept their places in the queue of dashboards (at most ``MOST_WAITING["dashboards"]`` waiting):
after 17 clients asked for dashboards of new filters and hung up, the next one was refused ``503 the server is
busy`` two or three times, then drawn 48-51 s later. Now a request whose client has gone leaves the queue before
its turn: the next one waits for the dashboard being drawn, not for the 16 behind it. In a real ``zx serve``."""

from __future__ import annotations

import os
import socket
import time

import httpx
import pytest

from serve_support import build_store
from test_serve_cli import start_serve
from web.backend import MOST_WAITING


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("gone")
    built = build_store(str(folder / "events.sqlite"), folder, matches=4)
    proc, base = start_serve(["--store", built.store, "serve", "--analytics", str(built.analytics)], folder,
                             dict(os.environ))
    try:
        yield base
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def ask_and_hang_up(base: str, path: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    return s


def test_dashboards_of_clients_gone_leave_the_queue_before_their_turn(served):
    with httpx.Client(base_url=served, timeout=120) as client:
        start = time.monotonic()
        assert client.get("/dashboard?min_games=41").status_code == 200  # (one dashboard's time, new filters)
        one = time.monotonic() - start
        # (new filters each; 30, the default, was drawn as the server started)
        gone = [ask_and_hang_up(served, f"/dashboard?min_games={100 + n}")
                for n in range(1, MOST_WAITING["dashboards"] + 2)]
        time.sleep(0.3)  # (all of them in the queue: one drawn, 16 waiting)
        for s in gone:
            s.close()
        time.sleep(0.6)  # (each looks every 0.25 s whether its client is there)
        start = time.monotonic()
        r = client.get("/dashboard?min_games=42")
        took = time.monotonic() - start
    assert r.status_code == 200, r.text[:300]  # (was 503: the server is busy: 16 requests ... waiting their turn)
    # the one being drawn, then this one: not the 16 behind it (48-51 s before)
    assert took < 3 * one + 3, f"{took:.1f} s, one dashboard {one:.1f} s"
