"""Strict import against its physical floor: CPU per event on one process, speed-up on two, memory.

Corpus: ``--matches`` simulated matches (``zx simulate --policy mixed``, 100 a file), cached.

- import, 1 process: ``zx import``'s own path (``zx_events.parallel.import_files``, workers=1) into
  a fresh SQLite file: read, JSON Schema, rules engine, digest chain and seal, batched save. Every
  rule is checked and every event chained and sealed. Figure: events per CPU-second.
- floor, same run: what no import can avoid: decode every line of the same files with orjson, and
  insert the rows the import stored (already encoded: read back from its store, in its order) into
  a fresh SQLite file of the same schema with ``executemany``, in transactions of the same 64
  matches. Events per CPU-second. Ratio = import CPU / floor CPU (target: at most 3).
- import, 2 processes: the same import with ``--workers 2`` (the parent, which also writes, and one
  worker process); speed-up = wall(1) / wall(2) (target
  at least 1.8 on 2 idle cores; on a busy machine it cannot be). Printed beside it: the speed-up
  the CPU times allow on idle cores (1-process CPU over the larger of the parent's CPU and the
  parent's plus the workers' CPU shared by the cores), which the load does not change much.
- peak RSS of a child ``zx import`` over the first half and over all of the corpus: equal figures
  mean memory does not grow with the corpus.

``--game x610z``: the same over an X610Z corpus (``zx simulate --game x610z``), its rows prefixed
``x610z:``; the floor is measured on that corpus in the same run.

Usage: .venv/bin/python bench/bench_import.py [--matches 1000] [--game zx|x610z] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, WORKDIR, clocks, corpus, fresh, game_label, game_option, load, report, result  # noqa: E402

BATCH = 64


def run_import(store: str, files: list[Path], workers: int) -> tuple[int, dict[str, float]]:
    from zx_events.application import MatchService
    from zx_events.parallel import import_files

    svc = MatchService(store)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with clocks() as c:
        outs = list(import_files(svc, [str(f) for f in files], workers=workers))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, joined when import_files ends
    c["children_cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    svc.close()
    bad = [o for o in outs if o.status != "imported"]
    if bad:
        raise SystemExit(f"bench: {len(bad)} matches not imported, e.g. {bad[0].error}")
    return sum(o.events for o in outs), c


def floor(files: list[Path], stored: str, target: str) -> dict[str, float]:
    """orjson over every line, then executemany of the stored rows, 64 matches a transaction."""
    import orjson

    src = sqlite3.connect(stored)
    table = src.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'stored_events'").fetchone()[0]
    rows = src.execute("SELECT originator_id, originator_version, topic, state FROM stored_events "
                       "ORDER BY rowid").fetchall()
    src.close()
    batches, current, seen = [], [], 0
    for r in rows:  # 64 matches a batch, as the import writes them
        if r[1] == 1:
            seen += 1
            if seen > BATCH:
                batches.append(current)
                current, seen = [], 1
        current.append(r)
    batches.append(current)
    dst = sqlite3.connect(target, isolation_level=None)
    dst.execute("PRAGMA journal_mode=WAL")
    dst.execute(table)
    insert = "INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)"
    with clocks() as c:
        loads = orjson.loads
        for f in files:
            with open(f, "rb") as fh:
                for line in fh:
                    if line.strip():
                        loads(line)
        for b in batches:
            dst.execute("BEGIN")
            dst.executemany(insert, b)
            dst.execute("COMMIT")
    dst.close()
    return c


def peak_rss(store: str, files: list[Path]) -> float:
    """Peak RSS (MiB) of a child ``zx import`` (VmHWM: its own high-water mark) and its workers."""
    code = ("import resource, sys\nfrom zx_cli.main import main\n"
            "sys.argv = ['zx', '--store', sys.argv[1], 'import', '--no-analytics', '--format', 'csv', *sys.argv[2:]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "hwm = next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM'))\n"
            "print(max(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss), file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", code, store, *map(str, files)], cwd=ROOT, capture_output=True,
                       text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return int(p.stderr.strip().splitlines()[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=1000, help="simulated matches (default 1000)")
    ap.add_argument("--workdir", type=Path, default=WORKDIR, help="corpus cache and stores")
    ap.add_argument("--workers", type=int, default=2, help="processes for the parallel run (default 2)")
    ap.add_argument("--no-rss", action="store_true", help="skip the two peak-memory runs")
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    game_option(ap)
    args = ap.parse_args(argv)
    work = args.workdir
    files = corpus(args.matches, work, game=args.game)
    g = game_label(args.game)
    tag = f"{os.getpid()}"
    rows = []
    if not args.no_rss:
        half = files[: max(1, len(files) // 2)]
        rss_half = peak_rss(fresh(work / f"rss1-{tag}.sqlite"), half)
        rss_all = peak_rss(fresh(work / f"rss2-{tag}.sqlite"), files)
    one = fresh(work / f"one-{tag}.sqlite")
    events, c1 = run_import(one, files, 1)
    cf = floor(files, one, fresh(work / f"floor-{tag}.sqlite"))
    events2, c2 = run_import(fresh(work / f"par-{tag}.sqlite"), files, args.workers)
    assert events2 == events
    rows.append(result("import", f"{g}zx import, 1 process, strict ({args.matches} matches, {events} events)",
                       round(events / c1["cpu"]), "events/CPU-s", round(events / cf["cpu"]),
                       c1["cpu"] / cf["cpu"], "<= 3x floor", c1["cpu"] / cf["cpu"] <= 3,
                       wall_s=round(c1["wall"], 2), floor_note="orjson per line + executemany of the stored rows"))
    speedup = c1["wall"] / c2["wall"]
    # what the same CPU work would give on idle cores: the parent and the workers share min(workers, cores)
    # cores, so the wall time is at least their CPU over the cores, and at least the parent's own CPU
    cores = min(args.workers, os.cpu_count() or 1)
    bound = c1["cpu"] / max(c2["cpu"], (c2["cpu"] + c2["children_cpu"]) / cores)
    rows.append(result("import", f"{g}zx import, {args.workers} processes: speed-up over 1 ({load()}; from CPU "
                                 f"times, parent {c2['cpu']:.2f} s + workers {c2['children_cpu']:.2f} s vs 1 "
                                 f"process {c1['cpu']:.2f} s, on idle cores at most {bound:.2f}x)",
                       round(events / c2["wall"]), "events/s", round(events / c1["wall"]), speedup,
                       ">= 1.8x on 2 idle cores", speedup >= 1.8, cpu_bound_speedup=round(bound, 2)))
    if not args.no_rss:
        rows.append(result("import", f"{g}peak RSS, {len(half)} of {len(files)} files vs all", round(rss_all, 1),
                           "MiB", round(rss_half, 1), rss_all / rss_half, "flat in corpus size",
                           rss_all / rss_half < 1.25))
    for p in work.glob(f"*-{tag}.sqlite*"):
        p.unlink()
    report(rows, args.fmt, "zx import (ratio = import CPU / floor CPU; speed-up = wall 1 process / wall N)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
