"""Ctrl-C (SIGINT to the process group, as a terminal sends it) at any moment of ``zx serve``'s start, with or
without ``--workers``: before it says ``serving ...`` it is ``Aborted!`` (exit 1), after it a stop (exit 0,
nothing printed); never lost, never a traceback, no process of the server left (docs/serve.md).

Each run is a real ``zx serve`` in a session of its own; the delays count from the moment its command is
about to run (``zx_cli.main`` imported: the ``READY`` line), so that they land in the command's own start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from test_serve_stop import ROOT, after_start, free_port, in_group

READY = "ready"
CHILD = (f"import sys; from zx_cli.main import main; sys.stderr.write('{READY}\\n'); sys.stderr.flush(); "
         "sys.argv[0] = 'zx'; main()")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    from serve_support import build_store

    folder = tmp_path_factory.mktemp("serve-sigint")
    built = build_store(str(folder / "events.sqlite"), folder, matches=6)
    return built.store, built.analytics


def start(store: str, analytics: Path, *extra: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, "--store", store, "serve", "--port", str(free_port()),
                             "--analytics", str(analytics), *extra],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stderr.readline().strip() == READY
    return proc


def ctrl_c(proc: subprocess.Popen) -> tuple[int | None, str]:
    """Ctrl-C to the server's group; its exit status (None: still running 10 s later, killed) and stderr."""
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=10)
        status = proc.returncode
    except subprocess.TimeoutExpired:  # the Ctrl-C was lost: the server went on
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        status = None
    deadline = time.monotonic() + 10  # (multiprocessing's resource tracker ends when it sees the server gone)
    while in_group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not in_group(proc.pid), f"processes of the server left: {in_group(proc.pid)}\n{err}"
    return status, err


def check(status: int | None, err: str, what: str) -> None:
    assert "Traceback" not in err, f"{what}:\n{err}"
    if any(line.startswith("serving ") for line in err.splitlines()) or status == 0:
        # uvicorn takes SIGINT over before the server listens, and "serving" is said once it listens: a Ctrl-C
        # between the two is the same clean stop, before the line (seen once, 0.8 s into a start on a fast machine)
        assert status == 0 and after_start(err) == [], f"{what}: exit {status}\n{err}"
    else:
        assert status == 1 and err.strip().splitlines()[-1:] == ["Aborted!"], f"{what}: exit {status}\n{err}"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_at_any_moment_of_the_start_ends_the_server(small, workers):
    """A Ctrl-C before "serving" was lost when it came while DuckDB read the analytics file (below); here a
    Ctrl-C at several moments of the start, and once it serves, each ends the server as docs/serve.md says."""
    store, analytics = small
    for delay in (0.05, 0.2, 0.4, 0.8, "served") if workers == "1" else (0.2, 0.8):  # (test_serve_stop: once served)
        proc = start(store, analytics, "--workers", workers)
        said = ""
        if delay == "served":
            while not said.startswith("serving "):
                said = proc.stderr.readline()
                assert said, f"zx serve --workers {workers} did not start"
            time.sleep(0.3)
        else:
            time.sleep(delay)
        status, err = ctrl_c(proc)
        check(status, said + err, f"--workers {workers}, Ctrl-C {delay} s into the start")


def test_ctrl_c_while_duckdb_reads_the_analytics_file_at_start_is_aborted(small, tmp_path):
    """DuckDB turns the KeyboardInterrupt of a Ctrl-C during its statement into "Query interrupted", which serve
    took for an unusable analytics file: it said "serving ... (statistics unavailable: Query interrupted)" and
    went on serving. Here the analytics file's position takes seconds to read (a view), and the Ctrl-C lands
    while serve reads it."""
    store, analytics = small
    slow = tmp_path / "slow.duckdb"
    slow.write_bytes(analytics.read_bytes())
    con = duckdb.connect(str(slow))
    try:
        con.execute("ALTER TABLE projection_position RENAME TO position_kept")
        con.execute("CREATE VIEW projection_position AS SELECT p.* FROM position_kept p "
                    "WHERE (SELECT sum(hash(range)) FROM range(20000000000)) IS NOT NULL")
    finally:
        con.close()
    proc = start(store, slow)
    deadline = time.monotonic() + 30
    fds = Path(f"/proc/{proc.pid}/fd")
    while time.monotonic() < deadline:  # until serve has opened the analytics file
        try:
            if any(os.path.realpath(fd) == os.path.realpath(slow) for fd in fds.iterdir()):
                break
        except OSError:  # a descriptor closed meanwhile
            pass
        time.sleep(0.005)
    time.sleep(0.3)  # (into the statement)
    status, err = ctrl_c(proc)
    assert status == 1 and err.strip().splitlines()[-1:] == ["Aborted!"], f"exit {status}\n{err}"
    assert "Traceback" not in err, err
