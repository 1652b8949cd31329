"""What every benchmark shares: the corpus, fresh stores, CPU and wall clocks, and the result rows.

The corpus is made by the real command (``zx simulate --policy mixed --per-file 100``), cached in
the work directory, so every script (and every version of the code) measures the same files.
Figures are printed beside a floor measured in the same run: the machine is shared, so only the
ratios are comparable between runs. CPU time (``time.process_time``) is preferred to wall time
wherever the work is in one process: it does not count the waits for a busy core.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

WORKDIR = Path(os.environ.get("ZX_BENCH_DIR", "/tmp/zx-bench"))
ZX = [sys.executable, "-c", "import sys; from zx_cli.main import main; sys.argv[0] = 'zx'; main()"]


def zx(*args: str, env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """Run this tree's ``zx`` in a child process."""
    return subprocess.run([*ZX, *args], cwd=ROOT, capture_output=True, text=True, check=check,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


GAMES = {"zx": ".zxlog", "x610z": ".x610zlog"}  # --game of the import, seek and projection benches: log suffix


def corpus(matches: int, workdir: Path = WORKDIR, seed: int = 7, per_file: int = 100, game: str = "zx") -> list[Path]:
    """``matches`` simulated matches of ``game`` in log files (made once with ``zx simulate``, then cached),
    one corpus a rules version: a rules change can make logs of the one before illegal (digest.3 rejected
    3 of the 1,000 matches simulated under digest.2, and the import bench failed)."""
    from zx_events import games as registry

    rules = registry.get(game).rules_version
    out = workdir / (f"corpus-{matches}-{seed}-{rules}" if game == "zx" else f"corpus-{game}-{matches}-{seed}-{rules}")
    done = out / "DONE"
    if not done.exists():
        out.mkdir(parents=True, exist_ok=True)
        print(f"bench: zx simulate --game {game} -n {matches} --seed {seed} into {out} (cached)", file=sys.stderr)
        zx("simulate", "--game", game, "-n", str(matches), "--seed", str(seed), "--out", str(out), "--policy",
           "mixed", "--per-file", str(per_file), "--format", "csv")
        done.write_text("ok")
    return sorted(out.glob(f"*{GAMES[game]}"))


def game_option(ap: Any) -> None:
    """``--game``: which game's simulated corpus the bench measures (its figures sit beside Z/X's)."""
    ap.add_argument("--game", choices=sorted(GAMES), default="zx",
                    help="the game of the simulated corpus (default zx)")


def game_label(game: str) -> str:
    return "" if game == "zx" else f"{game}: "


def fresh(path: Path) -> str:
    """``path`` with no SQLite file (or its -wal / -shm) left from an earlier run."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    return str(path)


@contextmanager
def clocks() -> Iterator[dict[str, float]]:
    """``with clocks() as c:`` then ``c["cpu"]``, ``c["wall"]`` (seconds) after the block."""
    out: dict[str, float] = {}
    c, t = time.process_time(), time.perf_counter()
    try:
        yield out
    finally:
        out["cpu"] = time.process_time() - c
        out["wall"] = time.perf_counter() - t


def quantiles(times: list[float]) -> tuple[float, float]:
    """Median and 99th percentile."""
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def result(bench: str, what: str, figure: float, unit: str, floor: float | None, ratio: float | None,
           target: str, met: bool | None, **extra: Any) -> dict[str, Any]:
    """One row of the summary table (``run_all.py`` collects them from every script's --json)."""
    return {"bench": bench, "what": what, "figure": round(figure, 4) if isinstance(figure, float) else figure,
            "unit": unit, "floor": round(floor, 4) if isinstance(floor, float) else floor,
            "ratio": None if ratio is None else round(ratio, 2), "target": target,
            "met": None if met is None else ("yes" if met else "NO"), **extra}


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def report(rows: list[dict[str, Any]], fmt: str, title: str) -> None:
    if fmt == "json":
        print(json.dumps(rows))
        return
    from zx_cli.output import emit

    emit(rows, fmt, ["bench", "what", "figure", "unit", "floor", "ratio", "target", "met"], title=title)
