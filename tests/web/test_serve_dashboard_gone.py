"""Dashboards asked by clients who hang up before their turn (QA "serve", 2026-11-28): each was still drawn in
its turn, and they kept their places in the queue of dashboards (at most ``MOST_WAITING["dashboards"]`` waiting):
after 17 clients asked for dashboards of new filters and hung up, the next one was refused ``503 the server is
busy`` two or three times, then drawn 48-51 s later. Now a request whose client has gone leaves the queue before
its turn: the next one waits for the dashboard being drawn, not for the 16 behind it, even asked the moment the
others hung up (it was refused as busy once more: they were counted until their watch looked again). And Ctrl-C
with dashboards queued waited for all of them to be drawn (13-30 s), printing nothing: now the queued ones are
answered "the server is stopping" at once, and one line says the stop waits for the one being drawn. In a real
``zx serve``: one server for the module, which the last test stops."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import httpx
import pytest

from serve_support import build_store
from test_serve_cli import start_serve
from zx_web.backend import MOST_WAITING


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """(the ``zx serve`` process, its base URL, the time of one dashboard of new filters)."""
    folder = tmp_path_factory.mktemp("gone")
    built = build_store(str(folder / "events.sqlite"), folder, matches=4)
    proc, base = start_serve(["--store", built.store, "serve", "--analytics", str(built.analytics)], folder,
                             dict(os.environ))
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            start = time.monotonic()
            assert client.get("/dashboard?min_games=41").status_code == 200  # (new filters: 30, the default, was
            one = time.monotonic() - start  # drawn as the server started)
        yield proc, base, one
    finally:
        if proc.poll() is None:  # (test_ctrl_c_... stops it)
            proc.terminate()
            proc.communicate(timeout=30)


def ask_and_hang_up(base: str, path: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    return s


def test_dashboards_of_clients_gone_leave_the_queue_before_their_turn(served):
    _, base, one = served
    with httpx.Client(base_url=base, timeout=120) as client:
        # (new filters each)
        gone = [ask_and_hang_up(base, f"/dashboard?min_games={100 + n}")
                for n in range(1, MOST_WAITING["dashboards"] + 2)]
        time.sleep(0.3)  # (all of them in the queue: one drawn, 16 waiting)
        for s in gone:
            s.close()
        start = time.monotonic()  # (at once, as a reload: was 503 the server is busy, their watches not yet looking)
        r = client.get("/dashboard?min_games=42")
        took = time.monotonic() - start
    assert r.status_code == 200, r.text[:300]  # (was 503: the server is busy: 16 requests ... waiting their turn)
    # the one being drawn, then this one: not the 16 behind it (48-51 s before)
    assert took < 3 * one + 3, f"{took:.1f} s, one dashboard {one:.1f} s"


def test_statistics_of_clients_gone_leave_the_queue_before_their_turn(served):
    """The same for statistics (64 may wait, at tens of milliseconds each): asked by clients that hung up, they were
    all computed in their turn and counted meanwhile, the next request refused 503 (the server is busy)."""
    _, base, _ = served
    from zx_web.app import STATS_AT_ONCE

    with httpx.Client(base_url=base, timeout=120) as client:
        start = time.monotonic()
        assert client.get("/api/stats/cards?min_games=998").status_code == 200
        one = time.monotonic() - start  # (one statistic not computed before)
        gone = [ask_and_hang_up(base, f"/api/stats/cards?min_games={1000 + n}")  # (new filters each: computed)
                for n in range(STATS_AT_ONCE + MOST_WAITING["statistics"])]
        time.sleep(0.2)  # (all of them asked: a few computed, the others waiting)
        for s in gone:
            s.close()
        start = time.monotonic()  # (at once, as a reload)
        r = client.get("/api/stats/cards?min_games=999")
        took = time.monotonic() - start
    assert r.status_code == 200, r.text[:300]  # (was 503 the server is busy, or waited for them all)
    # the ones being computed, then this one, not the 64 behind them (0.8 s against 0.03 s for one, before)
    assert took < 6 * one + 0.3, f"{took:.2f} s, one statistic {one:.2f} s"


def test_ctrl_c_drops_the_queued_dashboards_and_says_it_waits_for_the_one_drawn(served):
    """The last test of the module: it stops the server."""
    proc, base, one = served
    answers: list[httpx.Response] = []

    def ask(n: int) -> None:
        with httpx.Client(base_url=base, timeout=120) as client:
            answers.append(client.get(f"/dashboard?min_games={200 + n}", headers={"Accept": "application/json"}))

    askers = [threading.Thread(target=ask, args=(n,)) for n in range(5)]  # (one drawn, 4 waiting their turn)
    for t in askers:
        t.start()
    time.sleep(0.3 + one / 4)  # (all of them asked, the first one being drawn)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    took = time.monotonic() - start
    for t in askers:
        t.join(30)
    assert proc.returncode == 0, err
    stopping = [r for r in answers if r.status_code == 503]
    # (were all drawn, one after the other, before the server stopped: 200 each)
    assert len(stopping) >= 3 and all(r.json()["error"] == "the server is stopping" for r in stopping), \
        [(r.status_code, r.text[:100]) for r in answers]
    assert "zx serve: stopping once the dashboard being drawn is done" in err, err  # (it printed nothing)
    assert len([line for line in err.splitlines() if "stopping once" in line]) == 1, err
    assert took < 2 * one + 3, f"{took:.1f} s, one dashboard {one:.1f} s"  # (the one drawn, not all five)
