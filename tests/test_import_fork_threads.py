"""An import's worker processes are forked only when no thread of another kind runs in the process
(``zx_events.forked.fork_is_safe``): a thread of a host program inside SQLite at the fork held its global mutex,
and the forked worker's first ``sqlite3.connect`` waited for ever (tests/web/test_serve_api.py's import beside a
served app's threads hung the suite 20 minutes, round 35). Real forks, counted by an at-fork hook."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from zx_events.application import MatchService
from zx_events.forked import fork_is_safe
from zx_events.parallel import import_files

LOGS = sorted((Path(__file__).resolve().parents[1] / "examples" / "legal").glob("*.zxlog"))
FORKS: list[int] = []
os.register_at_fork(before=lambda: FORKS.append(os.getpid()))


def imported(store: Path) -> list[str]:
    svc = MatchService(str(store))
    try:
        return [o.status for o in import_files(svc, [str(p) for p in LOGS], workers=2)]
    finally:
        svc.close()


def test_an_import_beside_another_thread_runs_in_this_process_and_alone_it_forks(tmp_path):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)  # (daemon or not: a host's thread all the same)
    other.start()
    try:
        assert not fork_is_safe()
        before = len(FORKS)
        statuses = imported(tmp_path / "a.sqlite")
        assert statuses and set(statuses) == {"imported"}
        assert len(FORKS) == before  # no worker forked
    finally:
        stop.set()
        other.join()
    if fork_is_safe():  # (alone on its thread, as a test file run alone is: the workers are forked, as before; a
        # thread another test of the same process left running makes this one import in the process too)
        before = len(FORKS)
        assert set(imported(tmp_path / "b.sqlite")) == {"imported"}
        assert len(FORKS) > before


def test_only_the_main_thread_forks():
    out: list[bool] = []
    t = threading.Thread(target=lambda: out.append(fork_is_safe()))
    t.start()
    t.join()
    assert out == [False]
