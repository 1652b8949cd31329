"""Batched, streaming import: a batch that loses a race is saved match by match, nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path

from zx_events.application import MatchService
from zx_events.logformat.reader import iter_log, parse_log, read_log

EXAMPLES = sorted(Path(__file__).parent.parent.joinpath("examples").rglob("*.zxlog"))
FIRST = Path(__file__).parent.parent / "examples" / "legal" / "first-turns.zxlog"


def copies(n: int) -> list[str]:
    lines = FIRST.read_text().splitlines()
    header = json.loads(lines[0])
    out = []
    for i in range(n):
        header["match"] = f"batch-{i}"
        out.append("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return out


def test_iter_log_reads_exactly_what_read_log_reads():
    for path in EXAMPLES:
        a = [(m.match_id, m.header_line, [r.line for r in m.records], str(m.error), m.lines) for m in read_log(path)]
        b = [(m.match_id, m.header_line, [r.line for r in m.records], str(m.error), m.lines) for m in iter_log(path)]
        assert a == b, path.name


def test_iter_log_numbers_lines_across_matches(tmp_path):
    f = tmp_path / "three.zxlog"
    f.write_text("".join(copies(3)))
    logs = list(iter_log(f))
    n = len(FIRST.read_text().splitlines())
    assert [m.header_line for m in logs] == [1, n + 1, 2 * n + 1]
    assert logs[2].records[-1].line == 3 * n


def test_a_batch_that_loses_a_race_is_saved_match_by_match(tmp_path):
    store = str(tmp_path / "s.sqlite")
    a, b = MatchService(store), MatchService(store)
    logs = [parse_log(t, f"m{i}.zxlog")[0] for i, t in enumerate(copies(3))]
    def feed():  # a checks all three; then, before a saves its batch, b stores match 1
        yield from logs
        assert b.import_log(logs[1]).status == "imported"

    got = list(a.import_logs(feed(), batch=10))
    assert [o.status for o in got] == ["imported", "unchanged", "imported"]
    assert got[1].events == 0 and got[0].events > 0
    fresh = MatchService(store)
    assert sorted(r["match"] for r in fresh.summaries()) == ["batch-0", "batch-1", "batch-2"]
    for log in logs:  # every match whole: its Started ... Sealed events all there
        m = fresh.get_match(log.match_id)
        assert m.version == got[0].events and m.sealed["events"] == m.version - 1


def test_the_same_id_twice_in_one_batch(tmp_path):
    svc = MatchService(str(tmp_path / "s.sqlite"))
    text = copies(1)[0]
    changed = text.replace('"opening drop"', '"a different note"')
    logs = [parse_log(t, "x.zxlog")[0] for t in (text, text, changed)]
    got = list(svc.import_logs(logs, batch=10))
    assert [o.status for o in got] == ["imported", "unchanged", "rejected"]
    assert got[1].head == got[0].head
    assert "already stored with different content" in str(got[2].error)


def test_an_import_leaves_the_collector_as_it_found_it(tmp_path):
    """import_logs freezes the objects alive before it (gc.freeze) and collects once a batch while it
    runs, and undoes both when it ends or is stopped early; objects someone else froze stay frozen."""
    import gc

    svc = MatchService(str(tmp_path / "s.sqlite"))
    logs = [parse_log(t, "x.zxlog")[0] for t in copies(3)]
    gc.unfreeze()  # (nothing frozen to begin with: a server test run earlier in this process froze its start-up's)
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    run = svc.import_logs(logs, batch=1)
    assert next(run).status == "imported"
    assert gc.get_freeze_count() > 0 and gc.isenabled()  # the caller's turn: collecting as it was
    run.close()  # stopped early
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    gc.freeze()
    try:
        assert [o.status for o in svc.import_logs(logs)] == ["unchanged", "imported", "imported"]
        assert gc.get_freeze_count() > 0  # still frozen
    finally:
        gc.unfreeze()


def test_a_store_that_fails_mid_import_is_a_clear_error(tmp_path):
    import sqlite3

    from click.testing import CliRunner

    from zx_cli.main import zx

    store = tmp_path / "s.sqlite"
    MatchService(str(store))  # creates the tables
    con = sqlite3.connect(store)
    con.execute("CREATE TRIGGER no_insert BEFORE INSERT ON stored_events BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
    con.commit()
    con.close()
    result = CliRunner().invoke(zx, ["--store", str(store), "import", str(FIRST), "--no-analytics"])
    assert result.exit_code == 1
    assert "failed after 0 imported matches" in result.output and "disk says no" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_parallel_import_stores_exactly_what_a_sequential_import_stores(store_url, tmp_path, count_rows):
    from zx_events.parallel import import_files

    good = copies(40)
    changed = good[3].replace('"opening drop"', '"another note"')  # same id, other content: conflict
    bad = sorted(Path(__file__).parent.parent.joinpath("examples", "invalid").glob("*.zxlog"))[:6]
    a = tmp_path / "a.zxlog"
    a.write_text("".join(good[:25]) + changed + good[5])  # a conflict and a duplicate in the input
    b = tmp_path / "b.zxlog"
    b.write_text("".join(good[20:]))  # overlaps a.zxlog
    paths = [str(a), *map(str, bad), str(b), str(tmp_path / "missing.zxlog")]

    reference = MatchService("memory:")
    expected = list(import_files(reference, paths, workers=1, batch=7))
    svc = MatchService(store_url)
    got = list(import_files(svc, paths, workers=2, batch=7))
    # heads differ between two imports (each event's timestamp is in its digest); all else is equal
    assert [(o.match_id, o.status, o.events, str(o.error)) for o in got] == \
        [(o.match_id, o.status, o.events, str(o.error)) for o in expected]
    assert all(len(o.head) == 64 for o in got if o.status != "rejected")
    statuses = [o.status for o in got]
    assert statuses.count("imported") == 40 and statuses.count("unchanged") == 6
    assert statuses.count("rejected") == 1 + len(bad) + 1
    assert count_rows(svc) == sum(o.events for o in got)
    for o in got[:3]:  # the stored bytes are those the single-process path stores
        mine = [(e.originator_version, e.topic) for e in svc.recorder.select_events(svc.get_match(o.match_id).id)]
        ref = [(e.originator_version, e.topic) for e in reference.recorder.select_events(
            reference.get_match(o.match_id).id)]
        assert mine == ref


def _slow_worker(monkeypatch, seconds: float) -> None:
    """The workers (forked after this) take ``seconds`` longer over each task than this process."""
    import time

    from zx_events import parallel

    real = parallel._check

    def slow(pieces):
        time.sleep(seconds)
        return real(pieces)

    monkeypatch.setattr(parallel, "_check", slow)


def test_parallel_import_checks_in_this_process_and_takes_back_what_a_worker_has_not_begun(tmp_path, monkeypatch):
    """The parent checks a task itself when the worker holds IN_FLIGHT, and at the end takes back the
    tasks the worker has not begun (it skips them); outcomes, order and stored rows are those of a
    sequential import, each match stored once."""
    import os

    from zx_events import parallel

    good = copies(24)
    a = tmp_path / "a.zxlog"
    a.write_text("".join(good[:18]) + good[4])  # a duplicate id in the input: unchanged
    b = tmp_path / "b.zxlog"
    b.write_text("".join(good[18:]))
    paths = [str(a), str(b)]
    expected = list(parallel.import_files(MatchService("memory:"), paths, workers=1, batch=5))

    monkeypatch.setattr(parallel, "TASK_MATCHES", 1)
    monkeypatch.setattr(parallel, "IN_FLIGHT", 3)
    _slow_worker(monkeypatch, 0.15)
    here: list[int] = []
    real_check = parallel.check_task
    monkeypatch.setattr(parallel, "check_task", lambda *a: here.append(os.getpid()) or real_check(*a))
    pools: list = []
    real_pool = parallel._Pool
    monkeypatch.setattr(parallel, "_Pool", lambda *a: pools.append(real_pool(*a)) or pools[-1])

    svc = MatchService(str(tmp_path / "s.sqlite"))
    got = list(parallel.import_files(svc, paths, workers=2, batch=5))
    assert [(o.match_id, o.status, o.events, str(o.error)) for o in got] == \
        [(o.match_id, o.status, o.events, str(o.error)) for o in expected]
    assert [o.status for o in got].count("imported") == 24
    assert here and set(here) == {os.getpid()}  # tasks checked in this process ...
    assert len(here) < 25  # ... and others by the worker
    assert pools[0].taken_back >= 1  # the worker held several when the input ended
    for o in got:
        if o.status == "imported":  # each stored once, whole
            assert len(svc.recorder.select_events(svc.get_match(o.match_id).id)) == o.events


def test_a_worker_that_dies_mid_import_is_a_clear_error_and_leaves_no_half_batch(tmp_path, monkeypatch):
    import os

    from click.testing import CliRunner

    from zx_cli.main import zx
    from zx_events import parallel

    monkeypatch.setattr(parallel, "_check", lambda pieces: os._exit(9))  # the worker is killed on its first task
    logs = tmp_path / "a.zxlog"
    logs.write_text("".join(copies(40)))
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(zx, ["--store", str(store), "import", str(logs), "--workers", "2", "--no-analytics"])
    assert result.exit_code == 1
    assert "import worker process ended unexpectedly (exit code 9" in result.output
    assert "0 matches were imported before" in result.output and "run the import again" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no traceback
    assert not store.exists()  # batch=64: nothing written, so the store the import made was removed again


def test_workers_leave_ctrl_c_to_the_parent_and_end_when_it_closes_them(tmp_path):
    """Ctrl-C reaches the whole process group: a worker ignores it (the parent stops the workers and
    says so once, where each worker printed its own KeyboardInterrupt traceback) and ends at close."""
    import os
    import signal
    import time

    from zx_events import parallel

    store = tmp_path / "s.sqlite"
    MatchService(str(store))
    pool = parallel._Pool(1, (str(store), None, None, False))  # _init: store, catalog, board, accept
    try:
        time.sleep(0.5)  # past its start, where it turns SIGINT off
        os.kill(pool.procs[0].pid, signal.SIGINT)
        time.sleep(0.2)
        assert pool.procs[0].is_alive()
    finally:
        pool.close()
    assert not pool.procs[0].is_alive() and pool.procs[0].exitcode == 0


def test_where_the_system_cannot_fork_the_import_runs_in_this_process(tmp_path, monkeypatch):
    import multiprocessing

    from zx_events import parallel

    logs = tmp_path / "a.zxlog"
    logs.write_text("".join(copies(5)))
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    monkeypatch.setattr(parallel, "_Pool", None)  # no worker may be started
    got = list(parallel.import_files(MatchService(str(tmp_path / "s.sqlite")), [str(logs)], workers=2))
    assert [o.status for o in got] == ["imported"] * 5


def test_at_the_end_a_task_is_taken_back_only_while_the_worker_would_still_be_busy():
    """Once the input is read, the parent takes back a worker's newest task only while the worker's
    other tasks outlast what the parent has left: that task's check and every match still to write."""
    from zx_events.parallel import _take_back_pays

    assert _take_back_pays([16, 16, 16], 48, None, None)  # nothing measured yet: as before, take it back
    # 6 tasks of 16 matches at 4 ms a match: the worker has (16 * 4 + 8) * 4 ms = 288 ms left besides the
    # newest; the parent 16 * 4 ms to check it and 96 matches to write at 1 ms: 160 ms
    assert _take_back_pays([16] * 6, 96, 0.004, 0.001)
    # the same with writes at 2.5 ms a match: 304 ms for the parent, so it waits
    assert not _take_back_pays([16] * 6, 96, 0.004, 0.0025)
    # two tasks: the one under way (half done) is all the worker has besides the newest
    assert not _take_back_pays([16, 16], 32, 0.004, 0.0)
    assert _take_back_pays([16, 16, 16], 0, 0.004, 0.0)


def test_a_rejected_duplicate_shows_no_head_it_never_stored(tmp_path):
    """The second of two different matches under one id is rejected; its row showed the head digest the
    parallel import's worker had sealed, which was never stored (judges copy the printed head)."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    text = copies(1)[0]
    log = tmp_path / "two.zxlog"
    log.write_text(text + text.replace('"opening drop"', '"a different note"'))
    for workers in ("1", "2"):
        store = tmp_path / f"s{workers}.sqlite"
        r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", "--workers", workers,
                                    "--format", "json", str(log)])
        assert r.exit_code == 1, r.output
        first, second = json.loads(r.stdout)
        assert first["status"] == "imported" and len(first["head"]) == 64
        assert second["status"] == "rejected" and second["head"] is None, (workers, second)


def test_a_strict_import_refuses_a_log_stored_earlier_with_its_violations(store_url):
    """Stored as played with --accept-violations, the log passed a later strict import as unchanged,
    violations 0, exit 0: a judge's strict re-check said it was clean. It is refused with its first
    violation, at its line, as on a store without it; the stored match is kept as it was."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    log = str(Path(__file__).parent.parent / "examples" / "invalid" / "602.1b-out-of-reach.zxlog")

    def run(*args: str):
        return CliRunner().invoke(zx, ["--store", store_url, "import", "--no-analytics", "--format", "json", *args, log])

    r = run("--accept-violations")
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["status"] == "imported", r.output
    head = json.loads(r.stdout)[0]["head"]
    r = run()
    assert r.exit_code == 1, r.output
    (row,) = json.loads(r.stdout)
    assert row["status"] == "rejected" and row["error"]["rule"] == "602.1b" and row["head"] is None
    assert f"{log}:20: rule 602.1b: " in r.stderr and "stored as played, with 1 violation" in r.stderr
    r = run("--accept-violations")  # as played: unchanged, the same head
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["status"] == "unchanged"
    assert json.loads(r.stdout)[0]["head"] == head


def test_a_bug_met_in_one_match_rejects_that_match_and_the_others_are_imported(tmp_path, monkeypatch):
    """A bug in one match's check (an X610Z effect relocating a summon to a dot off the board raised a
    KeyError in the referee) stopped the whole import, sequential or parallel, with an internal error:
    the legal logs beside it were not imported. It is that match's rejection now, saying it is a bug."""
    from zx_events import importer, parallel

    real = importer.build_match

    def buggy(log, **kw):  # the bug, in the one match batch-2 (a worker inherits it when forked)
        if log.match_id == "batch-2":
            return {}["Z9"]
        return real(log, **kw)

    monkeypatch.setattr(importer, "build_match", buggy)
    logs = tmp_path / "a.zxlog"
    logs.write_text("".join(copies(5)))
    for workers in (1, 2):
        svc = MatchService(str(tmp_path / f"s{workers}.sqlite"))
        got = list(parallel.import_files(svc, [str(logs)], workers=workers, batch=2))
        assert [o.status for o in got] == ["imported", "imported", "rejected", "imported", "imported"]
        err = got[2].error
        assert (err.kind, err.source, err.line) == ("internal", str(logs), 1 + 2 * len(copies(1)[0].splitlines()))
        assert err.message.startswith("internal error: KeyError: 'Z9' at tests/test_import_batch.py:")
        assert "a bug in zx, not in this match" in err.message
        assert not svc.has_match("batch-2") and svc.has_match("batch-4")
