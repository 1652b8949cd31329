"""Run every benchmark and print one table: figure, floor measured in the same run, ratio, target, met.

Each script runs in its own process on one shared corpus (``zx simulate --policy mixed``, cached in
``ZX_BENCH_DIR``, default /tmp/zx-bench); ``bench/README.md`` says what each measures and why its
floor is the least any implementation must pay. The sizes are chosen to finish in under 10
minutes on the 2-core machine: ``--quick`` halves most of them; ``--only NAME,...`` and
``--skip NAME,...`` choose scripts. ``--code DIR`` measures the code of another checkout (another
version: these scripts are copied into DIR/.bench-run/ and run there), so two versions can be
compared on the same corpus in one sitting.

Scripts that print their own report (bench_serve, bench_viewer) add one summary row each (wall time,
exit status) and their report after the table; bench_follow needs PostgreSQL (ZX_TEST_POSTGRES)
and bench_viewer Debian's Chromium: without them their row says skipped.

Usage: .venv/bin/python bench/run_all.py [--quick] [--only import,seek] [--code DIR] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import report, result  # noqa: E402


def plan(quick: bool, matches: int) -> dict[str, list[str]]:
    q = quick
    return {
        "startup": ["bench_startup.py", "--runs", "3" if q else "7"],
        "verify": ["bench_verify.py", "--matches", str(matches), "--files", "2" if q else "3"],
        "seek": ["bench_seek.py", "--matches", str(matches), "--seeks", "100" if q else "300"],
        "import": ["bench_import.py", "--matches", str(matches)] + (["--no-rss"] if q else []),
        "projection": ["bench_projection.py", "--matches", str(matches)],
        # X610Z (issue 16): the same three on an X610Z corpus, beside Z/X's figures
        "x610z-seek": ["bench_seek.py", "--game", "x610z", "--matches", str(matches), "--seeks", "100" if q else "300"],
        "x610z-import": ["bench_import.py", "--game", "x610z", "--matches", str(matches), "--no-rss"],
        "x610z-projection": ["bench_projection.py", "--game", "x610z", "--matches", str(matches)],
        "replay": ["bench_replay.py", "--matches", str(matches)],
        "x610z-replay": ["bench_replay.py", "--game", "x610z", "--matches", str(matches)],
        "store": ["bench_store.py", "--matches", "100" if q else "200"],
        "matches": ["bench_matches.py", "--matches", str(matches), "--repeat", "3" if q else "5"],
        "analytics": ["bench_analytics.py", "--matches", "500" if q else "1000", "--scale-events", "3000000",
                      "--min-matches", "20000", "--small-matches", "5000", "--repeat", "3", "--copies-check", "1"],
        "serve": ["bench_serve.py", "--dir", str(Path(os.environ.get("ZX_BENCH_DIR", "/tmp/zx-bench")) / "serve"),
                  "--matches", "500" if q else "1000", "--clients", "1,10", "--requests", "200" if q else "500"],
        "viewer": ["bench_viewer.py", "--loads", "2" if q else "3"],
        "follow": ["bench_follow.py", "--base", "50", "--matches", "5" if q else "10", "--format", "json"],
    }


COMMON = {"startup", "verify", "seek", "import", "projection", "x610z-seek", "x610z-import", "x610z-projection",
          "replay", "x610z-replay", "matches"}  # print result() rows with --format json


def adapt(name: str, out: str) -> list[dict]:
    """Rows of the summary table from a script's own JSON."""
    data = json.loads(out.strip().splitlines()[-1])
    if name in COMMON:
        return data
    if name == "store":
        return [result("store", f"import into {r['store']}, {r['matches']} copies of the example match",
                       r["import ev/s"], "events/s", r["floor ev/s"], r["floor/import"],
                       "(floor: bare insert_events)", None) for r in data]
    if name == "analytics":
        rows = [result("analytics", f"projection of {p['store_events']} store events (own floor)",
                       p["store_events_per_s"], "events/s", p["floor_events_per_s"], p["ratio"], "(see projection)",
                       None) for p in data["projection"]]
        big = max(r["matches"] for r in data["stats"])
        rows += [result("analytics", f"zx stats {r['query'].removeprefix('zx stats ')} at {r['matches']} matches "
                                     f"(python loop {r['python_ms']} ms)", r["warm_ms"], "ms warm", r["floor_ms"],
                        r["ratio"], "<= 1 s at 100k matches", r["warm_ms"] <= 1000)
                 for r in data["stats"] if r["matches"] == big]
        return rows
    if name == "follow":
        return [result("follow", f"a match imported into PostgreSQL shows in zx stats ({r['imports']} imports, "
                                 f"max {r['latency_max_s']} s)", r["latency_median_s"], "s median",
                       r["floor_median_s"], r["ratio"], f"<= {r['target_s']} s", r["within_target"])
                for r in (data if isinstance(data, list) else [data])]
    return []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    ap.add_argument("--matches", type=int, default=1000, help="corpus size (default 1000)")
    ap.add_argument("--only", default=None, help="comma-separated scripts to run (startup,verify,seek,...)")
    ap.add_argument("--skip", default="", help="comma-separated scripts to leave out")
    ap.add_argument("--code", type=Path, default=None, help="measure the code of this checkout instead")
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)
    scripts = plan(args.quick, args.matches)
    chosen = [n for n in scripts if (args.only is None or n in args.only.split(",")) and n not in args.skip.split(",")]
    where = HERE
    if args.code is not None:
        where = args.code.resolve() / ".bench-run"
        where.mkdir(exist_ok=True)
        for f in HERE.glob("*.py"):
            shutil.copy(f, where / f.name)
    rows: list[dict] = []
    reports: list[str] = []
    started = time.perf_counter()
    for name in chosen:
        cmd = [sys.executable, str(where / scripts[name][0]), *scripts[name][1:]]
        if name in COMMON or name == "store":
            cmd += ["--format", "json"]
        if name == "analytics":
            cmd += ["--format", "json"]
        t = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(where.parent)}
        p = subprocess.run(cmd, cwd=where.parent, capture_output=True, text=True, env=env)
        took = time.perf_counter() - t
        print(f"run_all: {name} {'ok' if p.returncode == 0 else 'exit ' + str(p.returncode)} in {took:.0f} s",
              file=sys.stderr)
        if p.returncode != 0:
            reason = (p.stderr.strip().splitlines() or ["?"])[-1][:160]
            skipped = p.returncode == 2 or "skipped" in reason or "PostgreSQL" in reason
            rows.append(result(name, f"{'skipped' if skipped else 'FAILED'}: {reason}", round(took, 1), "s", None,
                               None, "", None if skipped else False))
            continue
        try:
            got = adapt(name, p.stdout)
        except (ValueError, KeyError, IndexError):
            got = []
        if got:
            rows += got
        else:
            rows.append(result(name, f"report below ({took:.0f} s)", round(took, 1), "s", None, None, "", None))
            reports.append(f"## {name}\n{p.stdout.strip()}")
    title = (f"zx-events benchmarks{' of ' + str(args.code) if args.code else ''} "
             f"({time.perf_counter() - started:.0f} s; ratio = measured / floor, same run)")
    report(rows, args.fmt, title)
    if args.fmt == "table":
        for r in reports:
            print("\n" + r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
