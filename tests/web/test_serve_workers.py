"""``zx serve --workers 2`` in real processes: uvicorn's supervisor and its worker processes, each building its
application from the environment (``zx_web.app.app_from_env``).

What the single process did and the workers did not: the advice of their answers carried the --store and
--analytics given; ``kill -USR1`` printed the stacks (the supervisor printed nothing, a worker sent it ended);
SIGTERM ended the process by the signal (exit 0). And what only workers meet: one that dies is replaced without a
word in the log; one started again while the store cannot be opened printed a traceback at every try; and
workers went on serving for ever once their supervisor was killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import httpx
import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from serve_support import Built, build_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    folder = tmp_path_factory.mktemp("serve-workers")
    return build_store(str(folder / "events.sqlite"), folder, matches=3)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``zx --store STORE serve --workers 2 --analytics FILE`` in a session of its own, its stderr read as it
    comes (``err``)."""

    def __init__(self, built: Built, analytics: str | None = None, env: dict[str, str] | None = None,
                 program: list[str] | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        given = ["--analytics", analytics or str(built.analytics)] if env is None else []
        program = program or [sys.executable, "-c", "from zx_cli.main import main; main()"]
        self.proc = subprocess.Popen([*program, "--store", built.store,
                                      "serve", "--port", str(self.port), "--workers", "2", *given],
                                     env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        # a new connection for every request, as httpx.get opened (whichever worker takes it answers), from one
        # client: a new client per request (httpx.get) costs ~45 ms of CPU, polled 10 times a second
        self.http = httpx.Client(timeout=30, limits=httpx.Limits(max_keepalive_connections=0))
        self.lines: list[str] = []
        threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stderr.readline, "")), daemon=True).start()
        self.wait(lambda: self.answers() and len(self.workers()) == 2, "the server did not start")

    @property
    def err(self) -> str:
        return "".join(self.lines)

    def answers(self) -> bool:
        try:
            return self.http.get(self.base + "/api/status", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def workers(self) -> list[int]:
        """The worker processes (multiprocessing's spawned children, not its resource tracker)."""
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                cmdline = (stat.parent / "cmdline").read_bytes()
            except OSError:
                continue
            if int(fields[1]) == self.proc.pid and fields[0] != "Z" and b"spawn_main" in cmdline:
                found.append(int(stat.parent.name))
        return sorted(found)

    def wait(self, done: Callable[[], object], what: str, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while not done():
            assert self.proc.poll() is None, f"the server ended: {self.err}"
            assert time.monotonic() < deadline, f"{what}:\n{self.err}"
            time.sleep(0.1)

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.http.close()


def in_group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (Linux: /proc/PID/stat)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_workers_advise_with_the_store_print_stacks_say_a_death_and_end_by_sigterm(built):
    """With --workers 2: the advice of every worker's 503 carries the --store and --analytics given (it was
    `zx analytics update`); ``kill -USR1`` of the supervisor prints its stacks and every worker's, and of a
    worker its own, which goes on serving (it ended); a worker killed is replaced with one line in the log
    (none); SIGTERM ends the server by the signal (exit 0), as the single process ends."""
    legal = ROOT / "examples" / "legal"
    r = CliRunner().invoke(zx, ["--store", built.store, "import", "--no-analytics", str(legal / "first-turns.zxlog")])
    assert r.exit_code == 0, r.output  # the analytics file is now behind the store
    server = Server(built)
    try:
        update = f"`zx --store {built.store} analytics update --analytics {built.analytics}`"
        for _ in range(6):  # (whichever worker answers)
            r = server.http.get(server.base + "/api/stats/winrates", timeout=30)
            assert r.status_code == 503 and update in r.json()["error"], r.text
            assert update in server.http.get(server.base + "/api/status", timeout=30).json()["analytics_message"]

        workers = server.workers()
        os.kill(server.proc.pid, signal.SIGUSR1)
        server.wait(lambda: server.err.count("in subprocess_started\n") == 2 and "in handle_usr1" in server.err,
                    "kill -USR1 of the supervisor printed its stacks and each worker's")
        # each process's under its PID, one after the other (dumped at once, their lines were interleaved)
        for said in (f"the stacks of the supervisor (PID {server.proc.pid}):\n",
                     *(f"the stacks of worker process {pid}:\n" for pid in workers)):
            assert server.err.count(f"zx serve: {said}") == 1, server.err
        os.kill(workers[0], signal.SIGUSR1)
        server.wait(lambda: server.err.count("in subprocess_started\n") == 3,
                    "kill -USR1 of a worker printed its stacks")
        time.sleep(1)
        assert server.workers() == workers and server.answers()  # (none ended)
        assert "most recent call first" in server.err and "Traceback" not in server.err

        os.kill(workers[1], signal.SIGKILL)
        said = f"zx serve: worker process {workers[1]} was killed by SIGKILL; worker process "
        server.wait(lambda: said in server.err, "a worker's death said in the log")
        line = next(line for line in server.lines if said in line)
        assert line.rstrip().endswith(" takes its place"), line

        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=60) == -signal.SIGTERM, server.err
        assert "Traceback" not in server.err, server.err
    finally:
        server.kill()


def test_workers_advise_with_the_zx_analytics_given_for_the_command(built, tmp_path):
    """``ZX_ANALYTICS=FILE zx serve --workers 2`` (no --analytics): each worker's advice left the file out, so
    the update it advised, pasted as written, updated the store's default file and the server kept answering 503;
    it carries ``ZX_ANALYTICS=FILE`` now, as the single process's does."""
    missing = tmp_path / "elsewhere.duckdb"
    server = Server(built, env={"ZX_ANALYTICS": str(missing)})
    try:
        update = f"`ZX_ANALYTICS={missing} zx --store {built.store} analytics update`"
        for _ in range(6):  # (whichever worker answers)
            r = server.http.get(server.base + "/api/stats/winrates", timeout=30)
            assert r.status_code == 503 and update in r.json()["error"], r.text
        assert update in server.http.get(server.base + "/dashboard", timeout=30).text.replace("&#x60;", "`")
        assert not missing.exists()
    finally:
        server.kill()


def test_a_worker_that_cannot_open_the_store_says_so_in_one_line_and_workers_end_with_their_supervisor(built,
                                                                                                      tmp_path):
    """A worker started again while the store cannot be opened (here a SQLite file moved away; a PostgreSQL
    server down) printed a traceback at every try: one line now, and the supervisor tries again. And a
    supervisor killed (kill -9, the OOM killer) left its workers serving for ever; they end with it."""
    store = Path(built.store)
    server = Server(built)
    try:
        moved = tmp_path / "moved.sqlite"
        store.rename(moved)
        try:
            os.kill(server.workers()[0], signal.SIGKILL)
            said = f"cannot start: there is no store at {store}"
            server.wait(lambda: said in server.err, "a worker that cannot open the store says so")
            time.sleep(1)
        finally:
            moved.rename(store)
        line = next(line for line in server.lines if said in line)
        assert line.startswith("zx serve: worker process ") and line.rstrip().endswith(
            "; another is started in its place"), line
        assert "Traceback" not in server.err and "SpawnProcess" not in server.err, server.err
        assert "exited with status" not in server.err  # (the worker's line is the one)
        server.wait(lambda: len(server.workers()) == 2 and server.answers(), "a worker started again")

        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
        deadline = time.monotonic() + 30
        while in_group(server.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert in_group(server.proc.pid) == [], server.err
        assert not server.answers()
    finally:
        server.kill()


def test_an_update_beside_workers_names_their_server_not_a_worker(built):
    """QA round 35: ``zx analytics update`` (import, follow) beside ``zx serve --workers 2`` said the file was "in use
    by another process (python3, PID <a worker>)", as for an unknown program; stopping that PID did nothing (the
    server starts another worker). The worker is named by its server: "`zx serve` (PID N) holds it"."""
    zx_script = Path(sys.executable).parent / "zx"  # (the installed command: /proc shows `zx ... serve`)
    server = Server(built, program=[str(zx_script)])
    try:
        r = CliRunner().invoke(zx, ["--store", built.store, "analytics", "update", "--rebuild", "--analytics",
                                    str(built.analytics)])
        assert r.exit_code == 1, r.output
        assert f"is in use by another process: `zx serve` (PID {server.proc.pid}) holds it" in r.output, r.output
        assert "python3" not in r.output
    finally:
        server.kill()
