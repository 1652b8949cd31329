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


def test_a_seek_past_a_snapshot_it_checked_before_makes_no_event_through_the_mapper(service, monkeypatch):
    """The snapshot's bytes checked before (the same bytes, remembered by their SHA-256) are restored without a
    Snapshot event, and the events after it are decoded by codec.project_rows: the mapper's decode is not called
    (it was, for the snapshot and each event after it)."""
    mid = long_match(service)
    replay.prepare_snapshots(service, mid)
    seq = 5 * replay.SNAPSHOT_EVERY + 7
    truth = state(rebuilt(service, mid, seq))
    assert state(replay.state_at(service, mid, seq)) == truth  # the snapshot checked (and remembered)
    calls: list[int] = []
    decode = service.mapper.decode

    def counted(oid, version, topic, body):
        calls.append(version)
        return decode(oid, version, topic, body)

    monkeypatch.setattr(service.mapper, "decode", counted, raising=False)
    match, base = replay.seek(service, mid, seq)
    assert base == 5 * replay.SNAPSHOT_EVERY and state(match) == truth
    assert calls == []
    replay._VERIFIED.clear()  # forgotten: checked again, through the mapper (the snapshot, the event it follows)
    match, base = replay.seek(service, mid, seq)
    assert base == 5 * replay.SNAPSHOT_EVERY and state(match) == truth and calls == [base, base]


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_every_seq_through_the_snapshots_equals_the_events_replayed_whole(service, game):
    if game == "zx":
        mid = long_match(service)
    else:
        from zx_events.games.x610z.sim import simulate as simulate_x610z

        x = next(s for s in simulate_x610z(6, seed=5) if len(s.records) >= 60)
        (log,) = parse_log("\n".join(x.lines()) + "\n", "t.x610zlog")
        assert service.import_log(log).status == "imported"
        mid = log.match_id
    last = replay.last_seq(service, mid)
    assert replay.prepare_snapshots(service, mid) > 3
    m = None
    for row in service.recorder.select_events(match_uuid(mid)):
        m = service.mapper.to_domain_event(row).mutate(m)
        for _ in range(2):  # the snapshot checked, then known
            seek, _base = replay.seek(service, mid, row.originator_version)
            assert state(seek) == state(m), row.originator_version
            assert type(seek) is type(m) and seek._modified_on == m._modified_on
    assert m.version == last


def _edit(svc, mid: str, version: int, change) -> None:
    with sqlite3.connect(svc.store.path) as con:
        (body,) = con.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = ?",
                              (match_uuid(mid).hex, version)).fetchone()
        new = change(body)
        if new is None:
            con.execute("DELETE FROM stored_events WHERE originator_id = ? AND originator_version = ?",
                        (match_uuid(mid).hex, version))
        else:
            con.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
                        (new, match_uuid(mid).hex, version))
    con.close()


@pytest.mark.parametrize("damage, words", [
    (lambda body: body[:-9], "its event seq {v} cannot be decoded"),
    (lambda body: json.dumps({**json.loads(body), "timestamp": "yesterday"}).encode(), "its event seq {v} cannot be decoded"),
    (lambda body: None, "its event seq {v} is missing from the store (the events jump to seq {n})"),
])
def test_a_damaged_event_after_a_snapshot_is_named_as_before(sqlite_service, damage, words):
    """The events after a snapshot are decoded by codec.project_rows: a row cut short, a timestamp that is none,
    a row deleted give the DamagedMatch they gave through the mapper (its seq, its words)."""
    svc = sqlite_service
    mid = long_match(svc)
    replay.prepare_snapshots(svc, mid)
    v = 3 * replay.SNAPSHOT_EVERY + 4
    _edit(svc, mid, v, damage)
    with pytest.raises(DamagedMatch) as e:
        replay.state_at(svc, mid, v + 2)
    assert words.format(v=v, n=v + 1) in str(e.value) and f"zx verify {mid}" in str(e.value)


def test_an_event_after_a_snapshot_that_cannot_be_applied_is_named_with_its_kind(sqlite_service):
    """A row whose topic names another kind of event than its payload holds: DamagedMatch, the kind its topic
    names and the seq, as project says it."""
    svc = sqlite_service
    mid = long_match(svc)
    replay.prepare_snapshots(svc, mid)
    oid = match_uuid(mid)
    rows = svc.recorder.select_events(oid, gt=3 * replay.SNAPSHOT_EVERY, lte=4 * replay.SNAPSHOT_EVERY - 1)
    turn_ended = next(r for r in rows if r.topic.endswith(":TurnEnded"))
    other = next(r for r in rows if r.topic.endswith((":AttackDeclared", ":CardPlayed")))
    with sqlite3.connect(svc.store.path) as con:
        con.execute("UPDATE stored_events SET topic = ? WHERE originator_id = ? AND originator_version = ?",
                    (turn_ended.topic, oid.hex, other.originator_version))
    con.close()
    with pytest.raises(DamagedMatch) as e:
        replay.state_at(svc, mid, 4 * replay.SNAPSHOT_EVERY - 1)
    assert f"its event seq {other.originator_version} (TurnEnded) cannot be applied (TypeError" in str(e.value)


@pytest.mark.parametrize("change, words", [
    (lambda doc: doc.pop("player"), "missing 1 required positional argument: 'player'"),
    (lambda doc: doc.update(self="P1"), "got multiple values for argument 'self'"),
])
def test_an_event_after_a_snapshot_whose_fields_its_method_refuses_is_named_as_before(sqlite_service, change, words):
    """codec.project_rows calls an event's method by position: a row whose fields lack one the method needs, or
    name its first parameter, is called by name as project calls it, and raises the same error."""
    svc = sqlite_service
    mid = long_match(svc)
    replay.prepare_snapshots(svc, mid)
    oid = match_uuid(mid)
    rows = svc.recorder.select_events(oid, gt=3 * replay.SNAPSHOT_EVERY, lte=4 * replay.SNAPSHOT_EVERY - 1)
    row = next(r for r in rows if json.loads(r.state).get("player"))
    kind = row.topic.split(":")[1]

    def edit(body):
        doc = json.loads(body)
        change(doc)
        return json.dumps(doc).encode()

    _edit(svc, mid, row.originator_version, edit)
    with pytest.raises(DamagedMatch) as e:
        replay.state_at(svc, mid, 4 * replay.SNAPSHOT_EVERY - 1)
    assert f"its event seq {row.originator_version} ({kind}) cannot be applied (TypeError" in str(e.value)
    assert words in str(e.value)
