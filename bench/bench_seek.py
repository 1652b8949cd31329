"""How fast is the state of a stored match at any event? (zx_events.replay)

Simulates matches of at least --min-events events (zx_events.sim, random policy: long matches),
imports them, then seeks to random seqs and prints the median and p95 of:

- floor:            the lower bound a replay from zero cannot beat: read the stored events 1..seq
                    and decode each with the app's transcoder (JSON) into one plain dict;
- floor (decode):   the same without the read (rows fetched beforehand);
- get_match:        MatchService.get_match(version=seq): every event from 1, plain projector;
- state_at:         zx_events.replay.state_at: the latest snapshot <= seq plus the events after it;
- view_at judge/P1: state_at plus the immutable view (names, perspective filtering);
- history:          load_history: every event of the match decoded once (what `zx replay` reads).

Ratios are to the floor measured in the same run, on the same seqs. The first seek into a match
writes its snapshots (one every --every versions): that one-off cost is printed separately.

Usage: .venv/bin/python bench/bench_seek.py [--store PATH|URL] [--matches 3] [--seeks 400]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any, Callable

from zx_events import replay
from zx_events.application import MatchService
from zx_events.logformat.reader import parse_log
from zx_events.match import match_uuid
from zx_events.sim import simulate


def long_matches(n: int, min_events: int, seed: int) -> list[Any]:
    out = []
    start = 1
    while len(out) < n:
        for sm in simulate(20, seed=seed, policy="random", start=start):
            if sm.events >= min_events:
                out.append(sm)
                if len(out) == n:
                    break
        start += 20
    return out


def timed(fn: Callable[[int], Any], seqs: list[int]) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (this thread) seconds per call: on a busy machine the CPU time shows
    what the wall clock would be without the wait for a core."""
    wall, cpu = [], []
    for s in seqs:
        c = time.thread_time()
        t = time.perf_counter()
        fn(s)
        wall.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
    return wall, cpu


def summary(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", default=None, help="SQLite path, memory: or postgresql://... (default: a temp SQLite file)")
    ap.add_argument("--matches", type=int, default=3, help="matches to measure (default 3)")
    ap.add_argument("--min-events", type=int, default=300, help="only matches with at least this many events")
    ap.add_argument("--seeks", type=int, default=400, help="random seeks per match (default 400)")
    ap.add_argument("--every", type=int, default=replay.SNAPSHOT_EVERY, help="snapshot interval in versions")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    replay.SNAPSHOT_EVERY = args.every

    tmp = None
    store = args.store
    if store is None:
        tmp = tempfile.TemporaryDirectory()
        store = os.path.join(tmp.name, "bench.sqlite")
    svc = MatchService(store)
    print(f"store: {svc.store.label} ({svc.store.kind}); snapshot every {args.every} versions", file=sys.stderr)
    sims = long_matches(args.matches, args.min_events, args.seed)
    ids = []
    for sm in sims:
        (log,) = parse_log("\n".join(sm.lines()) + "\n", f"{sm.match_id}.zxlog")
        out = svc.import_log(log)
        if out.status == "rejected":
            print(f"import failed: {out.error}", file=sys.stderr)
            return 1
        ids.append(log.match_id)

    decode = svc.mapper.transcoder.decode
    rows: dict[str, list] = {}

    def floor_read(mid: str) -> Callable[[int], Any]:
        oid = match_uuid(mid)

        def run(seq: int) -> dict:
            state: dict = {}
            for r in svc.recorder.select_events(oid, lte=seq):
                state.update(decode(r.state))
            return state
        return run

    def floor_decode(mid: str) -> Callable[[int], Any]:
        def run(seq: int) -> dict:
            state: dict = {}
            for r in rows[mid][:seq]:
                state.update(decode(r.state))
            return state
        return run

    kinds = {
        "floor": floor_read,
        "floor (decode only)": floor_decode,
        "get_match (no snapshot)": lambda mid: lambda s: svc.get_match(mid, version=s),
        "state_at": lambda mid: lambda s: replay.state_at(svc, mid, s),
        "view_at judge": lambda mid: lambda s: replay.view_at(svc, mid, seq=s),
        "view_at P1": lambda mid: lambda s: replay.view_at(svc, mid, seq=s, perspective="P1"),
        "history (whole match)": lambda mid: lambda s: replay.load_history(svc, mid),
    }
    results: dict[str, list[float]] = {k: [] for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    cold: list[float] = []
    events = []
    rng = random.Random(args.seed)
    for mid in ids:
        rows[mid] = svc.recorder.select_events(match_uuid(mid))
        last = len(rows[mid])
        events.append(last)
        t = time.perf_counter()
        replay.state_at(svc, mid, last)  # first seek: writes the snapshots
        replay.prepare_snapshots(svc, mid, args.every)  # (no-op when the first seek wrote them)
        cold.append(time.perf_counter() - t)
        seqs = [rng.randint(1, last) for _ in range(args.seeks)]
        for kind, make in kinds.items():
            fn = make(mid)
            fn(seqs[0])  # warm caches (topics, catalog names)
            gc.collect()
            wall, used = timed(fn, seqs)
            results[kind].extend(wall)
            cpu[kind].extend(used)
    floor_med, _ = summary(results["floor"])
    print(f"\nseek into {len(ids)} matches of {', '.join(map(str, events))} events, "
          f"{args.seeks} random seqs each ({svc.store.kind}); load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores")
    print(f"{'':26} {'median ms':>10} {'p95 ms':>9} {'x floor':>8} {'cpu median':>11} {'cpu p95':>8}")
    for kind, times in results.items():
        med, p95 = summary(times)
        cmed, cp95 = summary(cpu[kind])
        print(f"{kind:26} {med * 1e3:10.3f} {p95 * 1e3:9.3f} {med / floor_med:8.2f} {cmed * 1e3:11.3f} "
              f"{cp95 * 1e3:8.3f}")
    print(f"{'first seek (+snapshots)':26} {statistics.median(cold) * 1e3:10.3f} {max(cold) * 1e3:9.3f}")
    med, p95 = summary(results["state_at"])
    target = 2e-3
    print(f"\nstate_at: median {med * 1e3:.3f} ms, p95 {p95 * 1e3:.3f} ms "
          f"({'within' if p95 <= target else 'ABOVE'} the 2 ms target); "
          f"{med / floor_med:.2f}x the floor (median {floor_med * 1e3:.3f} ms)")
    svc.close()
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
