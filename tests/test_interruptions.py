"""SIGTERM (systemd, ``timeout``, cron) takes Ctrl-C's path in every command that does not take it itself: the
command's cleanup runs, its line says what was kept (``interrupted (SIGTERM): ...``), and the process ends by the
signal; an interrupted ``zx prepare``, ``zx simulate`` and ``zx demo`` say what they kept; ``zx export`` on a full
disk says so; ``zx analytics follow`` says at once that it stops. Real ``zx`` processes on a real store, real
signals: each sent by the process to itself at a chosen moment (a hook run before ``zx``'s entry point wraps
the step the signal lands in), as tests/test_import_cleanup.py sends SIGTERM while modules load."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from failure_support import ENV, copy_store, corpus, small_disk, zx  # noqa: F401 (corpus: a fixture)

# ``python -c HOOK ARGS``: SETUP wraps one function so that its Nth call first sends SIG to this process, then
# ``zx``'s own entry point runs the command (zx_cli:main, as the installed ``zx`` script)
HOOK = """
import importlib, os, signal, sys
target = importlib.import_module("{module}")
for name in "{owner}".split(".") if "{owner}" else ():
    target = getattr(target, name)

_original, _calls = target.{function}, [0]

def _hooked(*args, **kwargs):
    _calls[0] += 1
    if _calls[0] == {nth}:
        os.kill(os.getpid(), signal.{sig})
    return _original(*args, **kwargs)

target.{function} = _hooked
from zx_cli import main
main()
"""


def zx_signalled(cwd: Path, module: str, function: str, nth: int, sig: str, *args: str,
                 timeout: float = 120) -> subprocess.CompletedProcess:
    """``zx ARGS`` in ``cwd``, sent ``sig`` by itself as ``module.function`` (``module:Class``: its method) is
    called the ``nth`` time."""
    module, _, owner = module.partition(":")  # (module:Class, a method of its class)
    code = HOOK.format(module=module, owner=owner, function=function, nth=nth, sig=sig)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=ENV, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def last_line(p: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in p.stderr, p.stderr
    return p.stderr.strip().splitlines()[-1]


def sidecars(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(("-wal", "-shm", "-journal")))


def test_sigterm_during_an_export_removes_its_partial_folder_says_so_and_ends_by_the_signal(corpus, tmp_path):
    """It was killed at once: DIR/.zx-export-partial stayed (Ctrl-C removes it), no word."""
    store = copy_store(corpus, tmp_path)
    (tmp_path / "s.duckdb").write_bytes((corpus / "store.duckdb").read_bytes())
    p = zx_signalled(tmp_path, "zx_analytics.export", "_export_table", 3, "SIGTERM", "--store", str(store),
                     "export", "--parquet", "ex")
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr)
    assert last_line(p) == "interrupted (SIGTERM): nothing was exported into ex"
    assert not (tmp_path / "ex").exists()  # (a DIR it made: removed with its partial folder)
    assert sidecars(tmp_path) == []


def test_sigterm_during_an_analytics_update_closes_the_store_and_says_what_the_file_holds(corpus, tmp_path):
    """It was killed at once: the store's -wal and -shm files stayed beside it, no word."""
    store = copy_store(corpus, tmp_path)
    p = zx_signalled(tmp_path, "zx_analytics.projection:Projection", "commit", 2, "SIGTERM", "--store", str(store),
                     "analytics", "update", "--workers", "1", "--page-size", "2000")
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr)
    assert last_line(p).startswith(f"interrupted (SIGTERM): {tmp_path / 's.duckdb'} holds the store's events up to "
                                   f"notification "), p.stderr
    # what its first commit held: whole pages of 2,000 events (one, or more when the worker's pages were waiting as
    # it committed, on a busy machine), as the file itself says
    said = re.search(r"up to notification ([\d,]+) of ([\d,]+) \(([\d,]+) projected\), as its last commit left it; "
                     r"`zx --store", last_line(p))
    assert said, last_line(p)
    position, last, projected = (int(g.replace(",", "")) for g in said.groups())
    assert projected % 2000 == 0 and 0 < projected and position < last, last_line(p)
    con = duckdb.connect(str(tmp_path / "s.duckdb"), read_only=True)
    assert con.execute("SELECT position, events FROM projection_position").fetchone() == (position, projected)
    con.close()
    assert "Aborted!" not in p.stderr
    assert sidecars(tmp_path) == []


def test_sigterm_before_a_command_has_anything_to_say_is_aborted_sigterm(corpus, tmp_path):
    """A command with no line of its own (zx verify, here while it loads its module): "Aborted! (SIGTERM)"."""
    store = copy_store(corpus, tmp_path)
    p = zx_signalled(tmp_path, "importlib", "import_module", 1, "SIGTERM", "--store", str(store), "verify")
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr)
    assert p.stderr == "Aborted! (SIGTERM)\n" and p.stdout == ""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interrupted_prepare_says_how_many_matches_have_their_snapshots_and_a_rerun_goes_on(corpus, tmp_path,
                                                                                                sig):
    store = copy_store(corpus, tmp_path)
    p = zx_signalled(tmp_path, "zx_events.replay", "prepare_snapshots", 6, sig, "--store", str(store), "prepare")
    assert p.returncode == (1 if sig == "SIGINT" else -signal.SIGTERM), (p.returncode, p.stderr)
    word = "interrupted" if sig == "SIGINT" else "interrupted (SIGTERM)"
    said = [line for line in p.stderr.splitlines() if line.startswith(word + ":")]
    assert said and said[0].startswith(f"{word}: the snapshots of 5 of 200 matches are written in {store} ("), \
        p.stderr
    assert "`zx prepare` goes on from there" in said[0]
    assert last_line(p) == ("Aborted!" if sig == "SIGINT" else said[0])
    assert sidecars(tmp_path) == []
    again = zx(tmp_path, "--store", str(store), "prepare", "--format", "json")
    assert again.returncode == 0, again.stderr
    import json

    row = json.loads(again.stdout)[0]
    assert row["up_to_date"] == 5 and row["prepared"] == 195, row


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interrupted_simulate_says_which_files_it_wrote_and_import_takes_only_those(tmp_path, sig):
    p = zx_signalled(tmp_path, "zx_events.games.simfiles", "_write_whole", 4, sig, "simulate", "-n", "20",
                     "--per-file", "2", "--out", "sim")
    assert p.returncode == (1 if sig == "SIGINT" else -signal.SIGTERM), (p.returncode, p.stderr)
    word = "interrupted" if sig == "SIGINT" else "interrupted (SIGTERM)"
    said = [line for line in p.stderr.splitlines() if line.startswith(word + ":")]
    assert said == [f"{word}: 3 of 10 log files were written in sim, each whole (6 matches); the rest were not: "
                    f"`zx import sim` imports only those, and the same command again writes them all (the same "
                    f"seed: the same files)"], p.stderr
    assert sorted(os.listdir(tmp_path / "sim")) == [f"sim-0-{k:04d}.zxlog" for k in (1, 2, 3)]  # no temp file
    imported = zx(tmp_path, "--store", "s.sqlite", "import", "--no-analytics", "sim")
    assert imported.returncode == 0 and "6 imported, 0 unchanged, 0 rejected" in imported.stderr, imported.stderr


def test_sigterm_during_the_demos_import_says_what_it_left_and_leaves_no_empty_store(tmp_path):
    """It was killed at once: an empty events.sqlite stayed in the demo's folder, no word."""
    p = zx_signalled(tmp_path, "zx_events.parallel", "import_files", 1, "SIGTERM", "demo", "-n", "2", "--dir", "d")
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr)
    logs = len(os.listdir(tmp_path / "d" / "logs"))
    assert logs > 0
    assert last_line(p) == (f"interrupted (SIGTERM): the demo was not finished: d holds {logs} simulated log files "
                            f"in d/logs; `zx demo` again replaces them (nothing else there is touched)")
    assert sorted(os.listdir(tmp_path / "d")) == [".zx-demo", "logs"]
    again = zx(tmp_path, "demo", "-n", "2", "--dir", "d", "--format", "json")
    assert again.returncode == 0, again.stderr


def test_an_export_on_a_full_disk_says_the_disk_is_full_and_keeps_the_earlier_export(corpus, tmp_path):
    """It printed DuckDB's raw JSON error ("IO Error: Async write failed ... "errno":"28"")."""
    store = copy_store(corpus, tmp_path)
    (tmp_path / "s.duckdb").write_bytes((corpus / "store.duckdb").read_bytes())
    with small_disk(tmp_path / "disk", "4m") as disk:
        out = disk / "ex"
        first = zx(tmp_path, "--store", str(store), "export", "--parquet", str(out))
        assert first.returncode == 0, first.stderr
        before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
        used = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
        (disk / "filler").write_bytes(b"\0" * max(0, free - used // 4))  # room for a quarter of another export
        p = zx(tmp_path, "--store", str(store), "export", "--parquet", str(out))
        assert p.returncode == 1, p.stderr
        assert p.stderr.strip().splitlines()[-1] == (
            f"Error: the disk holding {out} is full: nothing was exported into {out} (an earlier export there is "
            f"unchanged); free room and run it again"), p.stderr
        assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before  # (its partial folder gone too)
    with small_disk(tmp_path / "tiny", "64k") as tiny:  # a new DIR on a disk too small for the export
        new = zx(tmp_path, "--store", str(store), "export", "--parquet", str(tiny / "ex"))
        assert new.returncode == 1, new.stderr
        assert new.stderr.strip().splitlines()[-1] == (
            f"Error: the disk holding {tiny / 'ex'} is full: nothing was exported into {tiny / 'ex'}; free room and "
            f"run it again"), new.stderr
        assert os.listdir(tiny) == []  # (the DIR it made: removed)


def test_follow_says_at_once_that_it_stops_after_the_page_under_way(corpus, tmp_path):
    """Ctrl-C during the first catching up was silent until the page under way had committed."""
    store = copy_store(corpus, tmp_path)
    p = zx_signalled(tmp_path, "zx_analytics.follow", "update", 1, "SIGINT", "--store", str(store),
                     "analytics", "follow", "--page-size", "500", "--interval", "0.2")
    assert p.returncode == 0, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert "follow: stopping after the page under way is committed ..." in lines, p.stderr
    assert lines[-1].startswith("follow: stopped at notification"), p.stderr


def test_sigterm_once_the_command_has_finished_lets_the_process_exit_as_the_command_did(corpus, tmp_path):
    """QA round 34 (1 of 5 timings): a SIGTERM in the instant after ``zx export`` finished ended the process by the
    signal (143) without a word, its export complete. Once the command has returned, the process exits as the
    command ended: 0, its output whole, no line about an interruption (here: the signal sent as click exits)."""
    store = copy_store(corpus, tmp_path)
    (tmp_path / "s.duckdb").write_bytes((corpus / "store.duckdb").read_bytes())
    p = zx_signalled(tmp_path, "sys", "exit", 1, "SIGTERM", "--store", str(store), "export", "--parquet", "ex")
    assert p.returncode == 0, (p.returncode, p.stderr)
    assert "interrupted" not in p.stderr and "Aborted" not in p.stderr and "Traceback" not in p.stderr
    assert (tmp_path / "ex").is_dir() and any((tmp_path / "ex").rglob("*.parquet")), sorted((tmp_path / "ex").rglob("*"))
    assert sidecars(tmp_path) == []


# the write's transaction begun, then Ctrl-C before the ``with`` that began it is set up: its ``__exit__`` never
# runs, so the transaction (a generator, held by the traceback's frames) is left suspended at its ``yield`` and
# finalized whenever those frames are freed (a SIGINT that arrived while SQLite waited for another importer's lock
# runs its handler as the wait returns: there)
BEGUN_THEN_CTRL_C = """
import os, signal
import eventsourcing.sqlite as es

_original, _calls = es.SQLiteDatastore.transaction, [0]

class Begun:
    def __init__(self, inner):
        self.inner = inner
    def __enter__(self):
        value = self.inner.__enter__()
        _calls[0] += 1
        if _calls[0] == {nth}:
            os.kill(os.getpid(), signal.SIGINT)
        return value
    def __exit__(self, *exc):
        return self.inner.__exit__(*exc)

es.SQLiteDatastore.transaction = lambda self, *, commit: Begun(_original(self, commit=commit))
from zx_cli import main
main()
"""


@pytest.mark.parametrize("nth", [1, 2, 4, 9])
def test_ctrl_c_as_a_write_begins_says_what_was_kept_without_a_traceback(corpus, tmp_path, nth):
    """QA round 35 (3 of 10 tries with two importers on one SQLite store): "Exception ignored in: <generator object
    SQLiteDatastore.transaction> ... ConnectionPoolClosedError: Pool is closed" after the interrupted line: the
    transaction under way was finalized after the store was closed. It is let go before the store closes, at
    every step: the store's tables being made (1: the store, of one page and no table, stayed too), the import's
    first look-ups, its batches. A store this import made and stored nothing in is removed."""
    code = BEGUN_THEN_CTRL_C.format(nth=nth)
    p = subprocess.run([sys.executable, "-c", code, "--store", str(tmp_path / "s.sqlite"), "import", "--workers", "1",
                        "--no-analytics", str(corpus / "logs")], cwd=tmp_path, env=ENV, capture_output=True,
                       text=True, timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert lines[-1] == "Aborted!", p.stderr
    assert sidecars(tmp_path) == []
    if nth > 2:  # (in the loop: what it kept)
        assert any(x.startswith("interrupted: ") for x in lines), p.stderr
    store = tmp_path / "s.sqlite"
    if not store.exists():
        return
    r = zx(tmp_path, "--store", str(store), "verify")  # kept: it holds what was stored, intact
    assert r.returncode == 0 and " 0 failed" in r.stderr and not re.search(r"(?<!\d)0 intact", r.stderr), r.stderr
