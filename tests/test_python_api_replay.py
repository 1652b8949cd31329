"""The replay side of the Python API as a notebook uses it (docs/replay.md, "From Python"): positions
from a DataFrame column, wrong arguments, a service used after close(), a store it may not write,
and views that share nothing with the match (a QA pass over the API found each of these)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pg_roles import READER, granted
from test_store_hardening import stored_with_a_role
from zx_events import replay
from zx_events.application import MatchService, ServiceClosed
from zx_events.games.zx.sim import simulate
from zx_events.logformat.reader import parse_log


@pytest.fixture
def long_match(service):
    """A simulated Z/X match of 150+ events in ``service``'s store: its id and length."""
    sim = next(s for s in simulate(10, seed=11, policy="random") if s.events >= 150)
    (log,) = parse_log("\n".join(sim.lines()) + "\n", "sim.zxlog")
    assert service.import_log(log).status == "imported"
    return log.match_id, replay.last_seq(service, log.match_id)


def test_a_numpy_position_is_the_event_it_names_and_a_fraction_is_refused(service, long_match):
    """A seq from a pandas/Polars column is a numpy.int64: SQLite was given it as a BLOB, greater than
    every stored version, and the view was the match's end, labelled as asked; 3.5 read three events."""
    mid, last = long_match
    plain = replay.view_at(service, mid, seq=100)
    assert replay.view_at(service, mid, seq=np.int64(100)).to_json() == plain.to_json()
    assert replay.state_at(service, mid, np.int32(100)).version == 100
    assert replay.view_at(service, mid, turn=np.int64(2)).to_json() == replay.view_at(service, mid, turn=2).to_json()
    with pytest.raises(replay.OutOfRange, match=f"has {last} events: seq must be 1..{last}"):
        replay.view_at(service, mid, seq=np.int64(10 ** 6))
    for bad in (3.5, "100", True):
        with pytest.raises(TypeError, match="seq must be a whole number"):
            replay.view_at(service, mid, seq=bad)
    with pytest.raises(TypeError, match="turn must be a whole number"):
        replay.view_at(service, mid, turn=2.0)


def test_wrong_arguments_get_the_projects_errors(service, long_match):
    mid, last = long_match
    with pytest.raises(replay.OutOfRange, match=f"seq must be 1..{last}"):  # it was OverflowError on SQLite
        replay.view_at(service, mid, seq=2 ** 70)
    with pytest.raises(TypeError, match="a match id is the match's name \\(a str"):
        replay.view_at(service, None)
    with pytest.raises(replay.UnknownMatch, match="unknown match 'nope': it is not in the store"):
        service.get_match("nope")  # eventsourcing's AggregateNotFoundError, naming a UUID
    assert service.get_match(mid).version == last
    with pytest.raises(replay.UnknownMatch, match="unknown match 'nope'"):
        replay.verify_match(service, "nope")  # it said status "deleted": "the whole match was deleted"
    assert replay.verify_match(service, mid).ok


def test_view_at_says_how_long_the_match_is_as_every_other_surface(service, long_match):
    """``last_seq`` was None from view_at, and the match's length from zx replay, the API and the viewer."""
    mid, last = long_match
    for kw in ({"seq": 30}, {"turn": 2}, {}):
        assert replay.view_at(service, mid, perspective="P1", **kw).to_json()["last_seq"] == last, kw


def test_a_service_takes_its_flags_as_true_or_false(tmp_path):
    """``MatchService(path, create="no")`` made a store: any non-empty text is true (QA round 34). create, write
    and hold are True or False (write also None: as create), else a TypeError, and nothing is created."""
    for flags in ({"create": "no"}, {"write": 1}, {"hold": None}, {"create": None}):
        with pytest.raises(TypeError, match=f"{next(iter(flags))} must be True or False"):
            MatchService(str(tmp_path / "typed.sqlite"), **flags)
    assert list(tmp_path.iterdir()) == []
    MatchService(str(tmp_path / "s.sqlite"), write=None).close()


def test_a_closed_service_says_it_was_closed(store_url, long_match, service):
    mid, _ = long_match
    svc = MatchService(store_url)
    label = svc.store.label
    assert repr(svc) == f"MatchService({label!r})"  # (it was <... object at 0x...>: QA round 34)
    with MatchService(store_url, create=False) as reader:
        assert repr(reader) == f"MatchService({label!r}, read-only)"
    assert replay.view_at(svc, mid, seq=30).seq == 30
    svc.close()
    assert repr(svc) == f"MatchService({label!r}, closed)"
    for use in (lambda: replay.view_at(svc, mid, seq=30), svc.summaries, lambda: svc.get_match(mid)):
        with pytest.raises(ServiceClosed, match="this MatchService of the store .* was closed"):
            use()


def stored_long_match(store) -> str:
    """A simulated Z/X match of 150+ events imported into a new store (a SQLite path, a URL; closed); its id."""
    rw = MatchService(str(store))
    sim = next(s for s in simulate(10, seed=11, policy="random") if s.events >= 150)
    (log,) = parse_log("\n".join(sim.lines()) + "\n", "sim.zxlog")
    rw.import_log(log)
    rw.close()
    return log.match_id


def test_a_read_only_sqlite_file_opened_the_default_way_still_replays(tmp_path):
    """docs/replay.md: a read-only file "still replays, without snapshots"; MatchService(path) (it may
    write) raised "attempt to write a readonly database" at the first seek, making the snapshot table."""
    path = tmp_path / "ro.sqlite"
    mid = stored_long_match(path)
    reader = MatchService(str(path), create=False)  # writes nothing: no snapshot table yet
    last = replay.last_seq(reader, mid)
    want = {seq: json.dumps(replay.view_at(reader, mid, seq=seq).to_json(), sort_keys=True) for seq in (60, last)}
    reader.close()
    path.with_name("ro.sqlite-wal").unlink(missing_ok=True)
    before = path.read_bytes()
    ro = MatchService(str(path), env={"SQLITE_DBNAME": f"file:{path}?mode=ro"})  # no snapshot table: it made one
    try:
        for seq, view in want.items():
            assert json.dumps(replay.view_at(ro, mid, seq=seq).to_json(), sort_keys=True) == view
        assert replay.prepare_snapshots(ro, mid) == 0
    finally:
        ro.close()
    assert path.read_bytes() == before


@pytest.mark.postgres
def test_a_role_that_may_only_select_replays_through_the_api(postgres_server):
    """A role with USAGE and SELECT only, opening MatchService the default way: the first seek said
    "permission denied for schema" (making the snapshot table, which exists); it reads the snapshots."""
    url, env, role, reader = stored_with_a_role(postgres_server, "zx_apiread")
    writer = MatchService(url)
    match = "hand-first-turns-001"
    want = replay.view_at(writer, match, seq=9, perspective="P1").to_json()
    replay._snapshots(writer)  # the snapshots table exists
    writer.close()
    with granted(env, role, READER):
        svc = MatchService(reader)
        try:
            assert replay.view_at(svc, match, seq=9, perspective="P1").to_json() == want
            assert replay.prepare_snapshots(svc, match) == 0
        finally:
            svc.close()


def test_x610z_views_share_nothing_with_the_match(service):
    """docs/replay.md: views are immutable and share nothing with the match. A stack entry's ``path`` was the
    match's own list: appending to one step's view changed the path the next step showed."""
    from pathlib import Path

    from zx_events.logformat.reader import read_log

    root = Path(__file__).resolve().parent.parent
    for path in sorted((root / "examples" / "x610z" / "legal").glob("*.x610zlog")):
        for log in read_log(path):
            service.import_log(log)
    moved = []
    for mid in [s["match"] for s in service.summaries() if s.get("game") == "x610z"]:
        for step in replay.steps(service, mid, "judge"):
            for entry in step.state.stack:
                assert isinstance(entry.get("path", ()), tuple), entry
                moved += [(mid, step.index)] if entry.get("path") else []
                for value in entry.values():
                    assert not isinstance(value, (list, dict)), entry
    assert moved, "no stack entry with a path in the examples: the test checks nothing"


def test_get_match_takes_a_version_as_view_at_takes_a_seq(service, long_match):
    """MatchService.get_match(version=...) gave the match's end for a numpy.int64 (a BLOB to SQLite), read three
    events for 3.5 and one for True, took "5" as 5, raised OverflowError for 2**70, and gave the end, without a
    word, for a version past it (view_at's seq: OutOfRange)."""
    mid, last = long_match
    assert service.get_match(mid, version=np.int64(100)).version == 100
    assert service.get_match(mid, version=np.int32(last)).version == last
    for bad in (3.5, "5", True):
        with pytest.raises(TypeError, match="version must be a whole number"):
            service.get_match(mid, version=bad)
    for past in (last + 1, np.int64(10 ** 6), 2 ** 70):
        with pytest.raises(replay.OutOfRange, match=f"has {last} events: version must be 1..{last}"):
            service.get_match(mid, version=past)
    with pytest.raises(replay.UnknownMatch, match="unknown match 'nope'"):
        service.get_match("nope", version=np.int64(3))


def test_a_history_takes_positions_as_view_at_does(service, long_match):
    """``replay.load_history`` (the viewer's): 3.5 was "slice indices must be integers" from state_at and "events
    3..3.5 are not of one step" from step_at, True was event 1 and turn 1, "5" a comparison error."""
    mid, last = long_match
    history = replay.load_history(service, mid)
    assert history.state_at(np.int64(100)).version == 100
    assert history.step_at(np.int64(100)).seq_last == 100
    assert history.turn_seq(np.int64(2)) == replay.turn_seq(service, mid, 2)
    for bad in (3.5, "5", True):
        with pytest.raises(TypeError, match="seq must be a whole number"):
            history.state_at(bad)
        with pytest.raises(TypeError, match="seq must be a whole number"):
            history.step_at(bad)
        with pytest.raises(TypeError, match="turn must be a whole number"):
            history.turn_seq(bad)
    with pytest.raises(replay.OutOfRange, match=f"seq must be 1..{last}"):
        history.state_at(2 ** 70)


def test_a_service_opened_to_read_prepares_no_snapshots_and_keeps_seeking(tmp_path):
    """docs/replay.md: a service opened to read (create=False) never writes its store. prepare_snapshots on one
    whose SQLite file had no snapshot table raised eventsourcing's "no such table: stored_snapshots" and left the
    service broken: every later seek past event 9, and verify_match, raised it again."""
    path = tmp_path / "s.sqlite"
    mid = stored_long_match(path)
    before = path.read_bytes()
    reader = MatchService(str(path), create=False)
    try:
        assert replay.prepare_snapshots(reader, mid) == 0
        assert replay.view_at(reader, mid, seq=120).seq == 120
        assert replay.verify_match(reader, mid).ok
        with pytest.raises(replay.ReadOnlyService, match="opened to read .*write=True"):
            replay.prepare_snapshots(reader, mid, strict=True)
        with pytest.raises(replay.ReadOnlyService, match="opened to read"):
            replay.repair_snapshots(reader, mid)
        assert replay.no_snapshots(reader)
        with pytest.raises(replay.UnknownMatch, match="unknown match 'nope'"):
            replay.prepare_snapshots(reader, "nope")
        # an import through it: SQLite's "attempt to write a readonly database" (eventsourcing's OperationalError)
        (log,) = parse_log("\n".join(next(simulate(1, seed=5, policy="random")).lines()) + "\n", "other.zxlog")
        with pytest.raises(replay.ReadOnlyService, match="cannot import: .*opened to read .*write=True"):
            reader.import_log(log)
    finally:
        reader.close()
    with pytest.raises(ServiceClosed):
        replay.prepare_snapshots(reader, mid)
    assert path.read_bytes() == before


@pytest.mark.postgres
def test_a_service_opened_to_read_writes_no_snapshot_to_postgresql(postgres_server):
    """On PostgreSQL prepare_snapshots wrote the snapshots of a service opened to read (create=False)."""
    from zx_events.store import connect_postgres, postgres_env

    url = postgres_server.fresh_url()
    mid = stored_long_match(url)
    env = postgres_env(url)
    table = f'"{env["POSTGRES_SCHEMA"]}".matches_snapshots'

    def snapshots() -> int:
        with connect_postgres(env) as conn:
            return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]

    reader = MatchService(url, create=False)
    try:
        assert replay.prepare_snapshots(reader, mid) == 0
        assert replay.view_at(reader, mid, seq=120).seq == 120
        with pytest.raises(replay.ReadOnlyService, match="opened to read"):
            replay.prepare_snapshots(reader, mid, strict=True)
    finally:
        reader.close()
    assert snapshots() == 0


@pytest.mark.parametrize("given", [None, "zx-store.sqlite"])
def test_a_replay_function_given_no_service_says_what_to_give(given):
    """replay.view_at(None, ...) or a store's path in place of the service raised AttributeError ('NoneType'
    object has no attribute 'recorder') from inside: docs/replay.md promises a TypeError that says what to give."""
    calls = [lambda: replay.view_at(given, "m", seq=1), lambda: replay.state_at(given, "m", 1),
             lambda: replay.steps(given, "m"), lambda: replay.load_history(given, "m"),
             lambda: replay.verify_match(given, "m"), lambda: replay.prepare_snapshots(given, "m"),
             lambda: replay.last_seq(given, "m"), lambda: replay.turn_starts(given, "m")]
    for call in calls:
        with pytest.raises(TypeError, match=r"takes a MatchService \(zx_events.application.MatchService\(store, "
                                            r"create=False\)\), not (NoneType None|str 'zx-store.sqlite')"):
            call()


@pytest.mark.parametrize("store", ["file", "memory:"])
def test_an_import_through_a_closed_service_raises_service_closed(tmp_path, store):
    """docs/replay.md: a service used after close() raises ServiceClosed. An import reported each match
    "rejected" with ServiceClosed as its error (a ZXError, so the match's), and a memory store's imported."""
    from zx_events.logformat.reader import read_log

    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    logs = [log for name in ("first-turns", "range-attacks-win-by-life")
            for log in read_log(root / "examples" / "legal" / f"{name}.zxlog")]
    svc = MatchService(str(tmp_path / "s.sqlite") if store == "file" else store)
    assert svc.import_log(logs[0]).status == "imported"
    svc.close()
    with pytest.raises(ServiceClosed, match="this MatchService of the store .* was closed"):
        list(svc.import_logs(logs[1:]))
    with pytest.raises(ServiceClosed):
        svc.import_log(logs[1])
    svc = MatchService(str(tmp_path / "s2.sqlite"))  # closed while an import runs: its next match
    outcomes = svc.import_logs(logs, batch=1)
    assert next(outcomes).status == "imported"
    svc.close()
    with pytest.raises(ServiceClosed):
        next(outcomes)


def test_import_takes_a_catalogs_name_or_file_as_zx_import_catalog_does(tmp_path):
    """catalog='sample' was passed through to the reader: every match "rejected" as an internal error, "a bug
    in zx (please report it)". A name or a file is loaded as zx import --catalog loads it; other types refused."""
    from zx_events.errors import CatalogError
    from zx_events.logformat.reader import read_log

    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    (log,) = read_log(root / "examples" / "legal" / "first-turns.zxlog")
    with MatchService(str(tmp_path / "s.sqlite")) as svc:
        out = svc.import_log(log, catalog="sample")
        assert out.status == "imported", out.to_json()
        with pytest.raises(CatalogError, match="nope"):
            svc.import_log(log, catalog="nope")
        with pytest.raises(TypeError, match=r"catalog must be a catalog's name or file .*load_catalogs\(NAME_OR_FILE"
                                            r"\)\), or None, got int 5"):
            svc.import_log(log, catalog=5)


def test_wrong_argument_types_of_the_service_are_type_errors_that_say_what_to_give(tmp_path):
    """MatchService(Path) was AttributeError 'PosixPath' has no 'startswith'; import_log of a path or of
    read_log's list, AttributeError 'str' ('list') has no 'source'."""
    from pathlib import Path

    from zx_events.logformat.reader import read_log

    path = Path(__file__).resolve().parent.parent / "examples" / "legal" / "first-turns.zxlog"
    with MatchService(tmp_path / "s.sqlite") as svc:  # a Path, as Stats and update take
        assert svc.store.path == tmp_path / "s.sqlite"
        for given, shown in ((str(path), "str '"), (read_log(path), "list \\[MatchLog")):
            with pytest.raises(TypeError, match=r"a log to import is a zx_events.logformat.reader.MatchLog "
                                                r"\(read_log\(PATH\) gives a list of them.*, not " + shown):
                svc.import_log(given)
        with pytest.raises(TypeError, match=r"import_logs takes MatchLogs, not a path \(str"):
            list(svc.import_logs(str(path)))
        for one in (read_log(path)[0], 5):  # ('MatchLog' object is not iterable)
            with pytest.raises(TypeError, match=r"import_logs takes an iterable of MatchLogs .*import_logs\(\[LOG\]\)\), "
                                                r"not " + type(one).__name__):
                list(svc.import_logs(one))
        assert svc.summaries() == []
    with pytest.raises(TypeError, match="store must be a path .* or a URL, got int 5"):
        MatchService(5)


def test_views_and_steps_go_through_pickle_deepcopy_and_asdict(service, long_match):
    """Their read-only mappings (MappingProxyType) made each of them "TypeError: cannot pickle 'mappingproxy'
    object", in both games."""
    import copy
    import dataclasses
    import pickle
    from pathlib import Path

    from zx_events.logformat.reader import read_log

    root = Path(__file__).resolve().parent.parent
    (x610z,) = read_log(sorted((root / "examples" / "x610z" / "legal").glob("*.x610zlog"))[0])[:1]
    assert service.import_log(x610z).status == "imported"
    for mid in (long_match[0], x610z.match_id):
        view = replay.view_at(service, mid, seq=20, perspective="P2")
        again = pickle.loads(pickle.dumps(view))
        assert again == view and again.to_json() == view.to_json()
        assert copy.deepcopy(view).to_json() == view.to_json()
        assert dataclasses.asdict(view)["seq"] == 20
        steps = list(replay.steps(service, mid, "P1"))[:5]
        assert [s.state.to_json() for s in pickle.loads(pickle.dumps(steps))] == [s.state.to_json() for s in steps]
        with pytest.raises(TypeError):  # still read-only
            again.names["x"] = "y"
