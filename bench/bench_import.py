"""Import throughput and memory, against the bare eventsourcing save rate of the same events.

Corpus: ``--matches`` simulated matches (zx_events.sim, seed 7, 500 per file), cached in --workdir.

- import (SQLite, 1 process / N processes, memory): ``zx import``'s own path (zx_events.parallel.
  import_files): read, JSON Schema, rules engine, digest chain, batched save; events/s.
- lower bound: ``Application.save`` of the same events, already checked and sealed, 64 matches a
  transaction, into a fresh store of the same kind: the rate an import cannot beat in one process.
- peak RSS: a child ``zx import`` over the first half and over the whole corpus; equal figures mean
  memory does not grow with the corpus (the import streams one match at a time).

Usage: .venv/bin/python bench/bench_import.py [--matches 4000] [--workdir /tmp/zx-bench] [--format json]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.output import emit  # noqa: E402
from zx_events.application import MatchService  # noqa: E402
from zx_events.importer import build_match  # noqa: E402
from zx_events.integrity import seal  # noqa: E402
from zx_events.logformat.reader import iter_log  # noqa: E402
from zx_events.parallel import import_files  # noqa: E402
from zx_events.sim.batch import simulate, write_files  # noqa: E402


def corpus(workdir: Path, matches: int) -> list[Path]:
    out = workdir / f"corpus-{matches}"
    done = out / "DONE"
    if not done.exists():
        out.mkdir(parents=True, exist_ok=True)
        print(f"bench: simulating {matches} matches into {out} (cached)", file=sys.stderr)
        list(write_files(out, 7, simulate(matches, 7, policy="mixed"), per_file=500))
        done.write_text("ok")
    return sorted(out.glob("*.zxlog"))


def fresh(workdir: Path, name: str) -> str:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{workdir / name}{suffix}").unlink(missing_ok=True)
    return str(workdir / name)


def timed_import(store: str, files: list[Path], workers: int) -> tuple[int, float, float]:
    svc = MatchService(store)
    t, c = time.perf_counter(), time.process_time()
    events = sum(o.events for o in import_files(svc, [str(f) for f in files], workers=workers))
    return events, time.perf_counter() - t, time.process_time() - c


def save_floor(store: str, files: list[Path]) -> tuple[int, float]:
    matches = []
    for f in files:
        for log in iter_log(f):
            m = build_match(log).match
            seal(m)
            matches.append(m)
    svc = MatchService(store)
    batches = [[e for m in matches[i:i + 64] for e in m.collect_events()] for i in range(0, len(matches), 64)]
    events = sum(len(b) for b in batches)
    t = time.perf_counter()
    for b in batches:
        svc.save(*b)
    return events, time.perf_counter() - t


def peak_rss(store: str, files: list[Path]) -> float:
    """Peak RSS (MiB) of a child `zx import` process and its workers.

    Read from /proc/self/status VmHWM (this process's own high-water mark: ru_maxrss would carry the
    benchmark parent's size across fork and exec) and the workers' ru_maxrss."""
    code = ("import resource, sys\nfrom cli.main import main\n"
            "sys.argv = ['zx', '--store', sys.argv[1], 'import', '--no-analytics', '--format', 'csv', *sys.argv[2:]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "hwm = next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM'))\n"
            "print(max(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss), file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", code, store, *map(str, files)], cwd=ROOT, capture_output=True,
                       text=True, check=True)
    return int(p.stderr.strip().splitlines()[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=4000, help="simulated matches (default 4000)")
    ap.add_argument("--workdir", default="/tmp/zx-bench", help="corpus cache and stores")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="processes for the parallel run")
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    files = corpus(work, args.matches)
    half = files[: max(1, len(files) // 2)]
    rss_half = peak_rss(fresh(work, "rss1.sqlite"), half)  # first, while this process is small
    rss_all = peak_rss(fresh(work, "rss2.sqlite"), files)
    rows = []
    floor_ev, floor_s = save_floor(fresh(work, "floor.sqlite"), files)
    floor = floor_ev / floor_s
    mem_floor_ev, mem_floor_s = save_floor("memory:", files)
    mem_floor = mem_floor_ev / mem_floor_s
    for label, store, workers, lower in (("SQLite, 1 process", fresh(work, "one.sqlite"), 1, floor),
                                         (f"SQLite, {args.workers} processes", fresh(work, "par.sqlite"),
                                          args.workers, floor),
                                         ("memory, 1 process", "memory:", 1, mem_floor)):
        events, wall, cpu = timed_import(store, files, workers)
        rows.append({"import": label, "matches": args.matches, "events": events, "events/s": round(events / wall),
                     "parent CPU s": round(cpu, 1), "lower bound events/s": round(lower),
                     "ratio": round(lower / (events / wall), 2), "target": "40,000 events/s (SQLite)"})
    rows.append({"import": f"peak RSS, {len(half)} of {len(files)} files", "events/s": None,
                 "peak MiB": round(rss_half, 1)})
    rows.append({"import": f"peak RSS, all {len(files)} files", "events/s": None, "peak MiB": round(rss_all, 1),
                 "target": "1 GiB for 100,000 matches"})
    emit(rows, args.fmt, ["import", "matches", "events", "events/s", "lower bound events/s", "ratio",
                          "parent CPU s", "peak MiB", "target"],
         title="zx import (ratio = lower bound / measured; lower bound = eventsourcing save of the same events)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
