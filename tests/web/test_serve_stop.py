"""Stopping ``zx serve`` at any moment: Ctrl-C (once, or twice: uvicorn's force exit) and SIGTERM as the
server starts and while it warms its statistics, each in a real ``zx serve`` process; and a statistic in
flight when the server stops.

The warming's first statistic builds the derived tables (``zx_analytics.derived``) in DuckDB. Closing the
analytics connection under it was refused ("connection is busy"), printed as an internal error, and a
thread still in DuckDB at exit aborted the process (exit 134); a second Ctrl-C printed the traceback of
the cancelled lifespan. Here every card row of the analytics file is counted 2,000 times, so that the
build takes a second or more from the server's first answer, and the signals land while it runs."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
COPIES = 2000  # of each card_games row in the slow analytics file


@dataclass
class Warming:
    store: str
    analytics: Path  # as projected
    slow: Path  # its copy with every card row COPIES times: the warming's derived tables take seconds


@pytest.fixture(scope="module")
def warming(tmp_path_factory: pytest.TempPathFactory) -> Warming:
    from serve_support import build_store

    folder = tmp_path_factory.mktemp("serve-stop")
    built = build_store(str(folder / "events.sqlite"), folder, matches=40)
    slow = folder / "slow.duckdb"
    slow.write_bytes(built.analytics.read_bytes())
    con = duckdb.connect(str(slow))
    try:
        con.execute(f"INSERT INTO card_games SELECT c.* FROM card_games c, range(1, {COPIES})")
    finally:
        con.close()
    return Warming(built.store, built.analytics, slow)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_serve(w: Warming, signals: list[int], delay: float, *, when: str = "answered") -> tuple[int, str, bool]:
    """Start ``zx serve`` on the slow analytics file; ``delay`` s after its first answer (``when="answered"``)
    or after it says ``serving ...`` (``when="said"``, before it listens), send ``signals`` (50 ms apart).
    (Its exit status, its stderr, whether it was warming at its first answer.)"""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", "from zx_cli.main import main; main()", "--store", w.store, "serve",
                             "--port", str(port), "--analytics", str(w.slow)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    said, warming = "", True
    polling = httpx.Client(timeout=5)  # (one client: a new one per poll costs ~45 ms of CPU, 50 times a second)
    try:
        deadline = time.monotonic() + 60
        while when == "said" and not said.startswith("serving "):
            said = proc.stderr.readline()
            if not said:
                raise AssertionError(f"zx serve did not start: {proc.communicate(timeout=30)[1]}")
        while when == "answered":
            try:
                warming = polling.get(f"http://127.0.0.1:{port}/api/status", timeout=5).json()["warming"]
                break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"zx serve did not start: {proc.communicate(timeout=30)[1]}")
            time.sleep(0.02)
        time.sleep(delay)
        for i, sig in enumerate(signals):
            if i:
                time.sleep(0.05)
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        polling.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err, warming


def after_start(err: str) -> list[str]:
    """What the server printed besides its start-up lines: nothing, when it stops cleanly."""
    return [line for line in err.splitlines()
            if line.strip() and not line.startswith(("note: the store has no replay snapshots", "serving "))]


def test_ctrl_c_during_the_start_up_warming_stops_cleanly(warming):
    """Ctrl-C stops the server as it does once warmed (exit 0, nothing printed), at every moment of the
    warming: it was "internal error ... connection is busy", then "terminate called" (exit 134)."""
    # at its very start and halfway into the derived tables' build (a second or more): the close under a busy
    # connection failed at any moment of the build, so two moments prove it as well as four did
    for delay in (0.0, 0.4):
        status, err, was_warming = stop_serve(warming, [signal.SIGINT], delay)
        assert was_warming
        assert status == 0 and after_start(err) == [], f"Ctrl-C {delay} s into the warming: exit {status}\n{err}"


def test_ctrl_c_as_the_server_starts_stops_cleanly(warming):
    """Ctrl-C once it has said "serving", before uvicorn takes SIGINT over: "Aborted!" (exit 1, or killed
    by a second Ctrl-C: exit -2), or uvicorn's exit 3 with asyncio's "coroutine 'Server.serve' was never
    awaited"; now the same stop as while serving."""
    # (0.05 s lay between these two moments, both before uvicorn takes SIGINT over: the same path)
    for signals, delay in (([signal.SIGINT], 0.0), ([signal.SIGINT], 0.15), ([signal.SIGINT, signal.SIGINT], 0.0)):
        status, err, _ = stop_serve(warming, signals, delay, when="said")
        assert status == 0 and after_start(err) == [], \
            f"Ctrl-C x{len(signals)} {delay} s after 'serving': exit {status}\n{err}"


def test_ctrl_c_twice_during_the_start_up_warming_stops_cleanly(warming):
    """A second Ctrl-C (uvicorn's force exit; ``timeout -s INT`` sends two: to the process and its group)
    printed the cancelled lifespan's traceback (KeyboardInterrupt, CancelledError) and the internal error."""
    for delay in (0.0, 0.3):
        status, err, was_warming = stop_serve(warming, [signal.SIGINT, signal.SIGINT], delay)
        assert was_warming
        assert status == 0 and after_start(err) == [], f"Ctrl-C twice {delay} s into the warming: exit {status}\n{err}"


def test_sigterm_during_the_start_up_warming_stops_cleanly(warming):
    """SIGTERM ends the server by that signal once it has stopped (uvicorn raises it again), as once warmed."""
    for delay in (0.0, 0.3):
        status, err, was_warming = stop_serve(warming, [signal.SIGTERM], delay)
        assert was_warming
        assert status == -signal.SIGTERM and after_start(err) == [], \
            f"SIGTERM {delay} s into the warming: exit {status}\n{err}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_leaves_nothing_beside_the_store(warming, sig):
    """A SIGTERM (systemd, docker stop) ended the process by that signal before the store was closed: its
    -wal and -shm files stayed beside it (Ctrl-C closed it). Both now close it first; SIGTERM still ends by
    the signal (exit 143 in a shell)."""
    folder = Path(warming.store).parent
    for leftover in (Path(f"{warming.store}-wal"), Path(f"{warming.store}-shm")):
        leftover.unlink(missing_ok=True)
    status, err, _ = stop_serve(warming, [sig], 0.5)
    assert status == (-signal.SIGTERM if sig == signal.SIGTERM else 0), err
    assert not [p.name for p in folder.iterdir() if p.name.startswith("events.sqlite-")], err


def test_a_statistic_in_flight_when_the_server_stops_is_interrupted_and_answered_503(warming, monkeypatch, caplog):
    """Backend.close interrupts a request's DuckDB statement (here one of 15 s or more) rather than wait for
    it or close the connection under it; the request is answered 503, without a traceback in the log."""
    from fastapi.testclient import TestClient

    from zx_analytics.stats import Stats
    from zx_web.app import create_app

    running = threading.Event()
    ended = []

    def endless(self, **_filters):
        running.set()
        try:
            return self.con.execute("SELECT sum(hash(a.range * b.range)) FROM range(100000) a, "
                                    "range(20000) b").fetchall()
        except BaseException as e:
            ended.append(e)
            raise

    monkeypatch.setattr(Stats, "mulligans", endless)
    app = create_app(warming.store, analytics=warming.analytics)
    answers = []
    asking = threading.Thread(target=lambda: answers.append(TestClient(app).get("/api/stats/mulligans")), daemon=True)
    with caplog.at_level(logging.WARNING):
        asking.start()
        assert running.wait(60)
        time.sleep(0.1)  # (into the statement)
        app.state.backend.close()
        asking.join(60)
    # not waited for (it runs 15 s or more): interrupted, or refused by its closed connection when close()
    # came before it started
    assert [type(e) for e in ended] in ([duckdb.InterruptException], [duckdb.ConnectionException]), ended
    assert answers and answers[0].status_code == 503, answers and answers[0].text
    assert answers[0].json()["error"] == "the server is stopping"
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


def test_ctrl_c_as_the_workers_start_stops_cleanly(warming):
    """``zx serve --workers 2``: a Ctrl-C reaches the terminal's whole process group, and a worker still
    importing its modules printed the traceback of its KeyboardInterrupt; right after "serving" it was
    "Aborted!" (exit 1). Now only the supervisor takes it and stops its workers (SIGTERM): nothing printed,
    exit 0, no worker left running, and a Ctrl-C while the workers start is never lost."""
    # (a server and two workers each: 4 s) right after "serving", as the workers import their modules (about
    # a second), and later in it; 0.0 twice and 0.03 landed in the same import as 0.0 and 0.1
    for delay in (0.0, 0.1, 0.5):
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-c", "from zx_cli.main import main; main()", "--store", warming.store,
                                 "serve", "--port", str(port), "--workers", "2", "--analytics", str(warming.analytics)],
                                env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            said = "note"
            while said and not said.startswith("serving "):
                said = proc.stderr.readline()
            assert said, "zx serve --workers 2 did not start"
            time.sleep(delay)
            workers = in_group(proc.pid)
            os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to every process of the group
            _, err = proc.communicate(timeout=30)  # (a Ctrl-C the supervisor lost: it went on serving)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        assert proc.returncode == 0 and after_start(err) == [], f"Ctrl-C {delay} s after 'serving': exit " \
                                                                 f"{proc.returncode}\n{err}"
        deadline = time.monotonic() + 10  # (multiprocessing's resource tracker ends when it sees the server gone)
        while in_group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.pid in workers and not in_group(proc.pid), (delay, in_group(proc.pid))  # no worker left


def in_group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (Linux: /proc/PID/stat)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found
