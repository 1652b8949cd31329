"""zx import into PostgreSQL over TLS (sslmode=prefer, the default, uses it when the server offers it): a large
batch is inserted without psycopg's pipeline mode, which deadlocked on a few megabytes (the client held the rest
of the INSERT, the server waited for it, for ever, with the table lock); a connection terminated mid-import is
tried again or named in one line, within seconds; and an importer waiting for the table lock says so after about
3 s, as it does on SQLite (docs/deployment.md). On a real server; the import runs in a subprocess with a timeout,
so that a hang fails the test instead of holding it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from failure_support import zx_here
from zx_events.store import connect_postgres, resolve_store

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parent.parent

BIG_BATCH = """
import os, sys, uuid
from eventsourcing.persistence import StoredEvent
from zx_events.application import MatchService
svc = MatchService(sys.argv[1])
rec = svc.recorder
with rec.datastore.get_connection() as conn:
    assert conn.pgconn.ssl_in_use, "not over TLS"
payload = os.urandom(700)
events = [StoredEvent(uuid.uuid4(), v, "t:E", payload) for _ in range(64) for v in range(1, 191)]
ids = rec.insert_events(events)
print(len(ids))
svc.close()
"""


def test_a_batch_of_12160_events_is_inserted_over_tls_without_a_pipeline_deadlock(postgres_server):
    """eventsourcing's insert ran in psycopg's pipeline mode, which stops sending when its queue is empty even
    with bytes of the last command still unsent: 64 matches of ~190 events (8.5 MB) over TLS hung on the
    first batch, every time. The store's recorder inserts with plain statements now: done in well under a
    second here."""
    url = postgres_server.fresh_url()
    run = subprocess.run([sys.executable, "-c", BIG_BATCH, url], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["12160"]


def _simulated(tmp_path: Path, matches: int) -> Path:
    out = tmp_path / "logs"  # (written in this process: the import under test runs in its own)
    r = zx_here(ROOT, "simulate", "--game", "zx", "--matches", str(matches), "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_an_import_whose_connection_is_terminated_goes_on_or_says_so_within_seconds(postgres_server, tmp_path):
    """pg_terminate_backend on a TLS import (another session, a server restart) left it hanging for ever,
    holding the table lock, in 6 of 10 runs: its insert, tried again on a new connection, sent the table
    lock, the NOTIFY and its 64 matches' INSERT in one pipeline, and while the server waited for the lock the
    rest of the INSERT stayed in the client. Here the import's backend is terminated while it waits for the
    table lock another session holds, which lets go a second later: the insert is tried again and the import
    ends within seconds, all imported (or, had the retries run out, with the one-line "could not be reached"
    error and the count of matches stored)."""
    logs = _simulated(tmp_path, 70)
    url = postgres_server.fresh_url()
    config = resolve_store(url)
    first = zx_here(ROOT, "--store", url, "import", "--no-analytics", "examples/legal/first-turns.zxlog")  # (its store)
    assert first.returncode == 0, first.stderr
    name = f"zx-terminated-{os.getpid()}"
    env = {**os.environ, "PGOPTIONS": f"-c application_name={name}"}
    holder = connect_postgres(config.env, autocommit=False)
    holder.execute(f'LOCK TABLE "{config.schema}".matches_events IN EXCLUSIVE MODE')
    proc = subprocess.Popen([sys.executable, "-m", "zx_cli.main", "--store", url, "import", "--no-analytics",
                             "--format", "csv", str(logs)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    terminated = False
    try:
        with connect_postgres(config.env) as admin:
            deadline = time.monotonic() + 30
            while not terminated and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
                row = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                    "WHERE application_name = %s AND wait_event_type = 'Lock'", (name,)).fetchone()
                terminated = row[0] > 0
            time.sleep(1.0)  # (its insert tried again, waiting for the lock again)
            holder.rollback()
        out, err = proc.communicate(timeout=60)
    finally:
        holder.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert terminated, "the import ended before its connection could be terminated"
    assert "Traceback" not in err, err
    if proc.returncode == 0:
        assert err.strip().splitlines()[-1] == f"70 imported, 0 unchanged, 0 rejected into {config.label}", err
    else:
        assert proc.returncode == 1, err
        lines = [line for line in err.splitlines() if line.startswith("Error:")]
        assert len(lines) == 1 and "could not be reached" in lines[0] and "imported match" in lines[0], err


def test_a_postgres_import_waiting_for_the_table_lock_says_so_after_about_3_s(postgres_server, tmp_path):
    """On SQLite zx import says after 3 s that another process is writing; on PostgreSQL it said nothing for up
    to 10 x lock_timeout (5 minutes by default). Now one line on stderr after about 3 s names the table lock
    it waits for, the session holding it, how long it waits, and that Ctrl-C stops the import.
    The lock is held until the note is read (at most 30 s), and the wait is timed from when the server shows the
    importer waiting: a fixed 5 s from the start of the process left too little once its start-up took 3 s under
    load (no note: the lock was gone before 3 s of waiting)."""
    url = postgres_server.fresh_url()
    config = resolve_store(url)
    first = zx_here(ROOT, "--store", url, "import", "--no-analytics", "examples/legal/first-turns.zxlog")  # (its store)
    assert first.returncode == 0, first.stderr
    holder = connect_postgres(config.env, autocommit=False)
    watcher = connect_postgres(config.env, autocommit=True)
    waited_from = noted_at = None
    try:
        holder.execute(f'LOCK TABLE "{config.schema}".matches_events IN EXCLUSIVE MODE')
        holder_pid = holder.info.backend_pid
        proc = subprocess.Popen([sys.executable, "-m", "zx_cli.main", "--store", f"{url}&lock_timeout=2", "import",
                                 "--no-analytics", "examples/legal/rules-fidelity.zxlog"], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        note_seen = threading.Event()

        def read_stderr() -> None:
            for line in proc.stderr:
                lines.append(line)
                if line.startswith("note: waiting for the table lock"):
                    note_seen.set()

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        deadline = time.monotonic() + 30
        while not note_seen.is_set() and time.monotonic() < deadline and proc.poll() is None:
            if waited_from is None and watcher.execute(
                    "SELECT 1 FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", (holder_pid,)).fetchone():
                waited_from = time.monotonic()
            note_seen.wait(0.05)
        noted_at = time.monotonic() if note_seen.is_set() else None
        holder.rollback()  # (the import goes on)
        out, _ = proc.communicate(timeout=60)
        reader.join(timeout=10)
    finally:
        holder.close()
        watcher.close()
    run = subprocess.CompletedProcess(proc.args, proc.returncode, out, "".join(lines))
    assert run.returncode == 0, run.stderr
    assert waited_from is not None and noted_at is not None, run.stderr
    assert noted_at - waited_from >= 2.0, f"the note came {noted_at - waited_from:.2f} s into the wait"  # (about 3 s)
    notes = [line for line in run.stderr.splitlines() if line.startswith("note: waiting for the table lock")]
    assert len(notes) == 1, run.stderr
    assert notes[0].startswith(f"note: waiting for the table lock of {config.label}, which PostgreSQL session "
                               f"{holder_pid} ("), notes
    assert notes[0].endswith(") holds (another zx import or zx prepare, or a session that locked the table): up to "
                             "lock_timeout=2 s a try, 10 tries; Ctrl-C stops the import (the matches stored before "
                             "stay)"), notes


def test_a_postgres_import_whose_every_batch_waits_for_the_table_lock_says_so_once(postgres_server, tmp_path):
    """An import of 130 matches (three batches of 64) while another session takes the table lock between its
    batches (as another zx import's long batches do): each batch waited over 3 s, and the lock-wait note was
    printed again for every one of them. It is printed once per import now."""
    import json

    url = postgres_server.fresh_url()
    config = resolve_store(url)
    first = zx_here(ROOT, "--store", url, "import", "--no-analytics", "examples/legal/first-turns.zxlog")  # (its store)
    assert first.returncode == 0, first.stderr
    lines = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    logs = tmp_path / "many"
    logs.mkdir()
    for i in range(130):
        head["match"] = f"lock-wait-{i:03d}"
        (logs / f"m{i:03d}.zxlog").write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")
    holder = connect_postgres(config.env, autocommit=False)
    table = f'"{config.schema}".matches_events'
    done = threading.Event()
    took: list[int] = []

    def hold() -> None:  # the lock for 3.5 s, three times; asked again at once, it comes after the import's batch
        for _ in range(3):
            holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
            took.append(1)
            if done.wait(3.5):
                holder.rollback()
                return
            holder.rollback()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    try:
        time.sleep(0.2)
        run = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", url, "import", "--no-analytics",
                              "--workers", "1", str(logs)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        done.set()
        thread.join(10)
        holder.close()
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip().splitlines()[-1] == f"130 imported, 0 unchanged, 0 rejected into {config.label}"
    assert len(took) == 3, took  # the import waited three times, each longer than 3 s
    notes = [line for line in run.stderr.splitlines() if line.startswith("note: waiting for the table lock")]
    assert len(notes) == 1, run.stderr
