"""Start-up: how long each ``zx`` command takes on a small store, against the interpreter + click.

A store of the four example matches (examples/legal) with its analytics file is made once; then
each command runs ``--runs`` times in a fresh process, and the median wall time and the median
CPU time (user + system of the child) are printed. Floor, same run: ``python -c "import click"``,
the least any click command costs. Targets: ``zx --help`` and ``zx matches`` under 150 ms on an
idle machine (the wall figure on a busy machine is longer by the waits for a core: the CPU
figure shows the work). ``python -X importtime -c "from cli.main import main"`` shows where an
import goes.

Usage: .venv/bin/python bench/bench_startup.py [--runs 7] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, WORKDIR, ZX, fresh, load, report, result, zx  # noqa: E402

TARGET_S = 0.150


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd[3:])} failed: {p.stderr.strip()[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="runs per command (median)")
    ap.add_argument("--workdir", type=Path, default=WORKDIR)
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)
    store = fresh(args.workdir / "startup" / "small.sqlite")
    for p in Path(store).parent.glob("small.duckdb*"):
        p.unlink()
    examples = sorted(str(p) for p in (ROOT / "examples" / "legal").glob("*.zxlog"))
    zx("--store", store, "import", "--format", "csv", *examples)
    match = zx("--store", store, "matches", "--format", "csv").stdout.splitlines()[1].split(",")[0]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ZX_STORE": store}
    commands = {
        "python -c 'import click' (floor)": [sys.executable, "-c", "import click"],
        "zx --help": [*ZX, "--help"],
        "zx matches": [*ZX, "matches"],
        "zx replay MATCH --event 5 --format json": [*ZX, "replay", match, "--event", "5", "--format", "json"],
        "zx verify MATCH": [*ZX, "verify", match],
        "zx stats winrates": [*ZX, "stats", "winrates"],
        "zx --store memory: import FILE --no-analytics": [*ZX, "--store", "memory:", "import", "--no-analytics",
                                                          examples[0]],
    }
    figures = {}
    for name, cmd in commands.items():
        run(cmd, env)  # warm the file cache
        walls, cpus = zip(*(run(cmd, env) for _ in range(args.runs)))
        figures[name] = (statistics.median(walls), statistics.median(cpus))
    f_wall, f_cpu = figures.pop("python -c 'import click' (floor)")
    rows = []
    for name, (wall, cpu) in figures.items():
        gated = name in ("zx --help", "zx matches")
        rows.append(result("startup", f"{name} (CPU {cpu * 1e3:.0f} ms; floor CPU {f_cpu * 1e3:.0f} ms)",
                           round(wall * 1e3, 1), "ms wall", round(f_wall * 1e3, 1), wall / f_wall,
                           "< 150 ms (idle machine)" if gated else "", (wall < TARGET_S) if gated else None,
                           cpu_ms=round(cpu * 1e3, 1)))
    rows[0]["what"] += f"; {load()}"
    report(rows, args.fmt, "start-up (median of fresh processes; floor = python -c 'import click')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
