"""Start-up: how long each ``zx`` command takes on a small store, against the interpreter + click.

A store of the example matches of both games (examples/legal, examples/x610z/legal) with its
analytics file is made once; then each command runs ``--runs`` times in a fresh process (after one
warm-up run), and the median CPU time (user + system of the child) and the median wall time are
printed, each beside the same median of the floor, ``python -c "import click"`` (the least any
click command costs), measured in the same run. The figure is the CPU time: on the shared machine
the wall time is longer by the waits for a core (the load average is printed). Targets: ``zx
--help`` and ``zx matches`` under 150 ms on an idle machine; judged on the wall time when the load
average is below the number of cores, else on the CPU time (said in the row).
``python -X importtime -c "from zx_cli.main import main"`` shows where an import goes.

The commands run with their bytecode cached, as an installed ``zx`` runs (pip compiles each
module when it installs it): ``PYTHONDONTWRITEBYTECODE`` is dropped from the children's
environment and ``PYTHONPYCACHEPREFIX`` points into the work directory (so no ``__pycache__`` is
written into the checkout); the warm-up run writes it. ``--no-bytecode-cache`` measures them
compiling every module of the source tree on each run instead (a checkout run with
``PYTHONDONTWRITEBYTECODE=1``): 10 ms more on ``zx matches``, 50 ms more on ``zx replay``.

Usage: .venv/bin/python bench/bench_startup.py [--runs 7] [--no-bytecode-cache] [--format table|json|csv]
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
    ap.add_argument("--no-bytecode-cache", dest="bytecode", action="store_false",
                    help="compile the source tree's modules on every run (as PYTHONDONTWRITEBYTECODE=1 does)")
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)
    store = fresh(args.workdir / "startup" / "small.sqlite")
    for p in Path(store).parent.glob("small.duckdb*"):
        p.unlink()
    examples = sorted(str(p) for p in (ROOT / "examples" / "legal").glob("*.zxlog"))
    others = sorted(str(p) for p in (ROOT / "examples" / "x610z" / "legal").glob("*.x610zlog"))
    zx("--store", store, "import", "--format", "csv", *examples, *others)
    match = zx("--store", store, "matches", "--format", "csv").stdout.splitlines()[1].split(",")[0]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ZX_STORE": store}
    if args.bytecode:  # as installed: every module's bytecode cached (outside the checkout)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(args.workdir / "startup" / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    commands = {
        "python -c 'import click' (floor)": [sys.executable, "-c", "import click"],
        "zx --help": [*ZX, "--help"],
        "zx matches": [*ZX, "matches"],
        "zx games": [*ZX, "games"],
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
    busy = os.getloadavg()[0] >= (os.cpu_count() or 1)
    rows = []
    for name, (wall, cpu) in figures.items():
        gated = name in ("zx --help", "zx matches")
        judged = cpu if busy else wall
        target = f"< 150 ms (idle machine; judged on {'CPU: busy' if busy else 'wall'})" if gated else ""
        rows.append(result("startup", f"{name}: CPU (wall {wall * 1e3:.0f} ms, {wall / f_wall:.1f}x the floor's "
                                      f"{f_wall * 1e3:.0f} ms)", round(cpu * 1e3, 1), "ms CPU", round(f_cpu * 1e3, 1),
                           cpu / f_cpu, target, (judged < TARGET_S) if gated else None,
                           cpu_ms=round(cpu * 1e3, 1), wall_ms=round(wall * 1e3, 1),
                           floor_cpu_ms=round(f_cpu * 1e3, 1), floor_wall_ms=round(f_wall * 1e3, 1)))
    rows[0]["what"] += f"; {load()}; bytecode {'cached' if args.bytecode else 'compiled on each run'}"
    report(rows, args.fmt, "start-up (median of fresh processes; floor = python -c 'import click')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
