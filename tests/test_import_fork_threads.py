"""An import's worker processes are not forked while zx serves in the same process (``zx_events.forked.
fork_is_safe``: a ``zx_web.backend.Backend`` open): a thread of the server inside SQLite at the fork held its global
mutex, and the forked worker's first ``sqlite3.connect`` waited for ever (tests/web/test_serve_api.py's import
beside a served app hung the suite 20 minutes, round 35). Real forks, counted by an at-fork hook; a real app."""

from __future__ import annotations

import os
from pathlib import Path

from fastapi.testclient import TestClient

from zx_events.application import MatchService
from zx_events.forked import fork_is_safe
from zx_events.parallel import import_files
from zx_web.app import create_app

LOGS = sorted((Path(__file__).resolve().parents[1] / "examples" / "legal").glob("*.zxlog"))
FORKS: list[int] = []
os.register_at_fork(before=lambda: FORKS.append(os.getpid()))


def imported(store: Path) -> list[str]:
    svc = MatchService(str(store))
    try:
        return [o.status for o in import_files(svc, [str(p) for p in LOGS], workers=2)]
    finally:
        svc.close()


def test_an_import_beside_a_served_app_runs_in_this_process_and_forks_again_once_it_closes(tmp_path):
    served = tmp_path / "served.sqlite"
    assert set(imported(served)) == {"imported"}
    with TestClient(create_app(str(served), analytics=tmp_path / "none.duckdb")) as client:
        assert client.get("/api/status").status_code == 200  # (its threads have read the store)
        assert not fork_is_safe()
        before = len(FORKS)
        statuses = imported(tmp_path / "a.sqlite")
        assert statuses and set(statuses) == {"imported"}
        assert len(FORKS) == before  # no worker forked
    assert fork_is_safe()  # the app closed: the workers are forked, as before
    before = len(FORKS)
    assert set(imported(tmp_path / "b.sqlite")) == {"imported"}
    assert len(FORKS) > before
