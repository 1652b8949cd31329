"""What a seek reads and decodes (issue 20 target 2: ``replay.state_at`` on a long match at most half the decode floor).

A seek past a snapshot reads the snapshot and the events from the one it was taken after on the store's own read
connection, with no statement that sorts (a temporary B-tree: the one statement before, a union sorted again, was a
tenth of a seek), and decodes the snapshot alone through the mapper: the events after it are decoded and applied by
``codec.project_rows``, with the same outcome, the same state and the same errors for a damaged row as before. No
test here times anything (bench/bench_seek.py does): they pin what the seek does.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from zx_events import replay
from zx_events.application import MatchService
from zx_events.errors import DamagedMatch
from zx_events.games.zx.match import match_uuid
from zx_events.games.zx.sim import simulate
from zx_events.logformat.reader import parse_log


def state(m) -> dict:
    return {k: v for k, v in vars(m).items() if k != "_pending_events"}


def rebuilt(svc, match_id: str, seq: int):
    m = None
    for row in svc.recorder.select_events(match_uuid(match_id), lte=seq):
        m = svc.mapper.to_domain_event(row).mutate(m)
    return m


def long_match(svc) -> str:
    sim = next(s for s in simulate(10, seed=11, policy="random") if s.events >= 150)
    (log,) = parse_log("\n".join(sim.lines()) + "\n", "t.zxlog")
    assert svc.import_log(log).status == "imported"
    return log.match_id


@pytest.fixture
def sqlite_service(tmp_path):
    svc = MatchService(str(tmp_path / "s.sqlite"))
    yield svc
    svc.close()


def test_a_seek_on_a_sqlite_file_runs_no_statement_that_sorts(sqlite_service):
    svc = sqlite_service
    mid = long_match(svc)
    replay.prepare_snapshots(svc, mid)
    con = svc.read_connection()
    ran: list[str] = []
    con.set_trace_callback(ran.append)
    try:
        for seq in (3, 9, 10, 15, 57, 100, None):
            replay.state_at(svc, mid, seq)
    finally:
        con.set_trace_callback(None)
    selects = [s for s in ran if s.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert selects  # the seeks read on this connection
    check = sqlite3.connect(svc.store.path)
    try:
        for sql in set(selects):
            plan = " ".join(str(r[-1]) for r in check.execute("EXPLAIN QUERY PLAN " + sql))
            assert "TEMP B-TREE" not in plan, (sql, plan)
    finally:
        check.close()
