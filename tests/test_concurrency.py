"""Several ``zx import`` processes writing to one store at once lose and duplicate nothing.

4 OS processes each import 50 matches; 10 ids are imported by all four, and neighbours share
another 10, so 140 distinct matches arrive 200 times, in a different order in each process. The
store must then hold each match once, with exactly the events of a reference import into memory.

PostgreSQL: every insert takes the table lock, and a duplicate collides on the primary key
(deterministic aggregate ids) and is reported "unchanged". SQLite: one writer at a time; the
others wait on the lock (SQLITE_LOCK_TIMEOUT 30 s), which is plenty for this load. Setting up a
new SQLite file is the one step SQLite does not wait for by itself (its WAL pragma);
``zx_events.store.ensure_wal`` waits there instead.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from zx_events.application import MatchService
from zx_events.ledger import LEDGER_ID, read_ledger
from zx_events.logformat.reader import parse_log

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legal" / "first-turns.zxlog"
PROCESSES, PER_PROCESS, COMMON, OVERLAP = 4, 50, 10, 10


def match_text(n: int) -> str:
    """The example match under the id ``conc-NNNN``, its note varied so each id has its own content."""
    lines = EXAMPLE.read_text().splitlines()
    header = json.loads(lines[0])
    header["match"] = f"conc-{n:04d}"
    out = [json.dumps(header)]
    for line in lines[1:]:
        rec = json.loads(line)
        if rec.get("note") == "opening drop":
            rec["note"] = f"opening drop #{n}"
        out.append(json.dumps(rec))
    return "\n".join(out) + "\n"


def plan() -> list[list[int]]:
    """Match numbers per process: COMMON shared by all, then runs that overlap their neighbours."""
    own = PER_PROCESS - COMMON
    step = own - OVERLAP
    batches = []
    for i in range(PROCESSES):
        ids = list(range(COMMON)) + list(range(COMMON + i * step, COMMON + i * step + own))
        random.Random(i).shuffle(ids)
        batches.append(ids)
    return batches


def zx_command() -> list[str]:
    exe = Path(sys.executable).with_name("zx")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "zx_cli.main"]


def test_plan_overlaps_as_described():
    batches = plan()
    assert [len(b) for b in batches] == [PER_PROCESS] * PROCESSES
    seen = Counter(n for b in batches for n in b)
    assert len(seen) == 140 and sum(seen.values()) == 200
    assert all(len(set(b)) == len(b) for b in batches)
    assert {n for n, c in seen.items() if c == PROCESSES} == set(range(COMMON))


def test_concurrent_imports_lose_and_duplicate_nothing(store_url, tmp_path, count_rows):
    batches = plan()
    texts = {n: match_text(n) for n in sorted({n for b in batches for n in b})}
    assert len({t for t in texts.values()}) == len(texts)  # content differs per id

    reference = MatchService("memory:")
    expected: dict[str, int] = {}
    for n, text in texts.items():
        out = reference.import_log(parse_log(text, f"ref-{n}.zxlog")[0])
        assert out.status == "imported", out.error
        expected[out.match_id] = out.events

    files = []
    for i, ids in enumerate(batches):
        path = tmp_path / f"batch-{i}.zxlog"
        path.write_text("".join(texts[n] for n in ids))
        files.append(path)
    procs = [subprocess.Popen([*zx_command(), "--store", store_url, "import", str(f), "--no-analytics",
                               "--format", "json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
             for f in files]
    results = [p.communicate(timeout=300) for p in procs]
    outcomes = []
    for p, (stdout, stderr) in zip(procs, results):
        assert p.returncode == 0, stderr
        rows = json.loads(stdout)
        assert len(rows) == PER_PROCESS
        outcomes.extend(rows)

    status = Counter(o["status"] for o in outcomes)
    assert status == {"imported": len(expected), "unchanged": PROCESSES * PER_PROCESS - len(expected)}
    imported = Counter(o["match"] for o in outcomes if o["status"] == "imported")
    assert set(imported) == set(expected) and set(imported.values()) == {1}  # each stored by exactly one
    assert all(o["events"] == expected[o["match"]] for o in outcomes if o["status"] == "imported")

    svc = MatchService(store_url)
    try:
        assert count_rows(svc) == sum(expected.values())
        for match_id, events in expected.items():
            assert count_rows(svc, match_id) == events, match_id
            stored = svc.recorder.select_events(svc.get_match(match_id).id)
            assert [s.originator_version for s in stored] == list(range(1, events + 1))
            ref = reference.get_match(match_id)
            assert svc.get_match(match_id).content_sha256 == ref.content_sha256
        notes = [n for n in svc.notifications() if n.originator_id != LEDGER_ID]
        assert len(notes) == sum(expected.values())
        ids = [n.id for n in notes]
        assert ids == sorted(set(ids))  # strictly increasing: no notification seen twice
        assert sorted(s["match"] for s in svc.summaries()) == sorted(expected)
        # the store seal lists every match once, with its head, in a chain the four importers shared
        ledger = read_ledger(svc.recorder, svc.mapper)
        assert ledger.ok and ledger.exists, ledger.problem
        assert sorted(s.match for s in ledger.matches.values()) == sorted(expected)
        assert count_rows(svc, ledger=True) == ledger.entries
        heads = {o["match"]: o["head"] for o in outcomes if o["status"] == "imported"}
        assert {s.match: s.head for s in ledger.matches.values()} == heads
        r = subprocess.run([*zx_command(), "--store", store_url, "verify"], capture_output=True, text=True)
        assert r.returncode == 0 and f"{len(expected)} intact, 0 failed" in r.stderr, r.stderr
    finally:
        svc.close()


class LateService(MatchService):
    """An importer that checked for the match just before another one stored it: its first
    look-up sees nothing, so it goes on to save and must collide on the primary key."""

    name = MatchService.name  # eventsourcing names the PostgreSQL table after the application

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.blind = 1

    def stored_started(self, match_id):
        if self.blind:
            self.blind -= 1
            return None
        return super().stored_started(match_id)


def test_losing_the_race_is_unchanged_or_conflict_and_writes_nothing(store_url, count_rows):
    first, late = MatchService(store_url), LateService(store_url)
    try:
        assert first.import_log(parse_log(match_text(1), "a.zxlog")[0]).status == "imported"
        rows = count_rows(first)
        out = late.import_log(parse_log(match_text(1), "b.zxlog")[0])
        assert (out.status, out.events, out.error) == ("unchanged", 0, None)
        assert late.blind == 0 and count_rows(first) == rows

        other = match_text(1).replace("opening drop #1", "opening drop, edited")
        late.blind = 1
        out = late.import_log(parse_log(other, "c.zxlog")[0])
        assert out.status == "rejected" and out.error.kind == "conflict"
        assert str(out.error).startswith("c.zxlog:1: match conc-0001 is already stored with different content")
        assert count_rows(first) == rows == count_rows(first, "conc-0001")
    finally:
        first.close()
        late.close()


def _open_and_close(url: str, results) -> None:
    try:
        MatchService(url).close()
        results.put("ok")
    except Exception as e:  # reported to the parent, which fails the test with it
        results.put(f"{type(e).__name__}: {e}")


def test_many_processes_creating_the_tables_at_once(store_url):
    """On an empty store, 8 processes that open it together all succeed (PostgreSQL: eventsourcing's
    own CREATE TYPE/TABLE/FUNCTION failed 22 of 40 such openings here; zx_events.store serialises
    them with an advisory lock)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    procs = [ctx.Process(target=_open_and_close, args=(store_url, results)) for _ in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert sorted(results.get(timeout=5) for _ in procs) == ["ok"] * 8
    svc = MatchService(store_url)
    try:
        assert svc.summaries() == []
    finally:
        svc.close()


def test_a_new_sqlite_store_waits_for_another_process_setting_it_up(tmp_path):
    """``PRAGMA journal_mode=WAL`` fails at once, without the busy timeout, while another connection
    holds the file's RESERVED lock: four ``zx import`` starting together on a new store failed now
    and then with "database is locked" (3 of 180 openings of 6 processes). ``zx_events.store``
    sets WAL itself and waits; the store opens once the other process lets go."""
    import sqlite3
    import threading
    import time

    path = tmp_path / "new.sqlite"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another importer, half-way through setting up the file
    try:
        probe = sqlite3.connect(path, timeout=5)
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            probe.execute("PRAGMA journal_mode=WAL")  # what eventsourcing does on its first connection
        assert time.monotonic() - started < 1  # no busy wait: this is the race
        probe.close()
        threading.Timer(0.3, other.execute, ("COMMIT",)).start()
        started = time.monotonic()
        svc = MatchService(str(path))
        try:
            assert time.monotonic() - started >= 0.25  # it waited for the other one ...
            assert svc.summaries() == []  # ... and then opened the store
        finally:
            svc.close()
        assert path.read_bytes()[18:20] == b"\x02\x02"  # the header says WAL
    finally:
        other.close()
