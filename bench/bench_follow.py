"""How soon does a match imported into PostgreSQL show in `zx stats` while `zx analytics follow` runs?

A fresh PostgreSQL schema gets ``--base`` simulated matches; ``zx analytics follow`` (a child
process, LISTEN/NOTIFY) catches up; then ``--matches`` more matches are imported one at a time (in
this process, through MatchService.import_log, as ``zx import`` does) and, after each, the analytics
file is read (a read-only connection, as ``zx stats`` opens it, every 10 ms) until the match is
there. Figures: latency from the import's commit to the match being readable (median, max), against
the 2 s target. Floor, same run, same store: the time for a direct ``update()`` of one newly
imported match plus one read of the file (what follow must at least do, without waiting for a
notification or a process wake-up); ratio = follow latency / floor.

Usage: .venv/bin/python bench/bench_follow.py [--postgres URL] [--base 200] [--matches 20]
PostgreSQL: --postgres, else ZX_BENCH_POSTGRES, else ZX_TEST_POSTGRES.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_S = 2.0


def logs(n: int, seed: int) -> list:
    from zx_events.games.zx.sim import simulate
    from zx_events.logformat.reader import parse_log

    out = []
    for sim in simulate(n, seed, policy="mixed"):
        (log,) = parse_log("\n".join(sim.lines()) + "\n", "bench.zxlog")
        out.append(log)
    return out


def count(path: Path) -> int:
    from zx_analytics.db import AnalyticsError, connect_reader

    try:
        con = connect_reader(path, wait=0)
    except AnalyticsError:
        return -1
    try:
        return con.execute("SELECT count(*) FROM matches").fetchall()[0][0]
    finally:
        con.close()


def wait_count(path: Path, want: int, limit: float = 60.0) -> float:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        if count(path) >= want:
            return time.perf_counter() - t0
        time.sleep(0.01)
    raise SystemExit(f"the analytics file never reached {want} matches")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--postgres", default=os.environ.get("ZX_BENCH_POSTGRES") or os.environ.get("ZX_TEST_POSTGRES")
                    or "postgresql://postgres@127.0.0.1:55432/postgres")
    ap.add_argument("--base", type=int, default=200, help="matches in the store before follow starts")
    ap.add_argument("--matches", type=int, default=20, help="matches imported one at a time while follow runs")
    ap.add_argument("--format", choices=["table", "json"], default="table")
    a = ap.parse_args()

    from zx_analytics.projection import update
    from zx_cli.output import emit
    from zx_events.application import MatchService
    from zx_events.store import connect_postgres, postgres_env

    schema = f"bench_follow_{uuid.uuid4().hex[:8]}"
    url = f"{a.postgres}?schema={schema}"
    work = Path(tempfile.mkdtemp(prefix="zx-bench-follow-"))
    path, floor_path = work / "follow.duckdb", work / "floor.duckdb"
    corpus = logs(a.base + 2 * a.matches, 31)
    svc = MatchService(url)
    proc = None
    try:
        for log in corpus[:a.base]:
            svc.import_log(log)
        # the floor: a direct update of one new match into a file already up to date, then one read
        update(svc, floor_path)
        floors = []
        for log in corpus[a.base:a.base + a.matches]:
            svc.import_log(log)
            t = time.perf_counter()
            update(svc, floor_path)
            count(floor_path)
            floors.append(time.perf_counter() - t)
        done = a.base + a.matches
        proc = subprocess.Popen([str(Path(sys.executable).with_name("zx")), "--store", url, "analytics", "follow",
                                 "--analytics", str(path)], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        lines: list[str] = []
        threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True).start()
        catch_up = wait_count(path, done, 300)
        while not any("caught up" in x for x in lines):
            time.sleep(0.01)
        latencies = []
        for log in corpus[done:done + a.matches]:
            svc.import_log(log)  # committed when it returns
            done += 1
            latencies.append(wait_count(path, done))
            time.sleep(0.2)  # matches arrive apart, as from people
        proc.send_signal(2)
        code = proc.wait(timeout=60)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        svc.close()
        with connect_postgres(postgres_env(a.postgres)) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    med, worst, floor = statistics.median(latencies), max(latencies), statistics.median(floors)
    rows = [{"store_matches": done, "imports": len(latencies), "catch_up_s": round(catch_up, 2),
             "latency_median_s": round(med, 3), "latency_max_s": round(worst, 3), "target_s": TARGET_S,
             "within_target": worst <= TARGET_S, "floor_median_s": round(floor, 3), "ratio": round(med / floor, 2),
             "follow_exit": code}]
    if a.format == "json":
        print(json.dumps(rows))
    else:
        emit(rows, "table")


if __name__ == "__main__":
    main()
