"""The analytics projection against its floor: reading and decoding the events it projects.

The corpus (``zx simulate --policy mixed``, ``--matches``) is imported by this tree's ``zx import``
into a SQLite store (cached per tree), then in a child process:

- projection: ``zx_analytics.projection.update(rebuild=True)`` into a fresh DuckDB file (reading the
  notification log in pages, building the rows, writing them on a writer thread);
- floor, same process: read the rows of the projected topics straight from SQLite in pages of the
  same size and decode every payload with orjson, nothing else: no projection can do less.

Ratio = projection wall time / floor wall time (target: at most 1.5); CPU times (every thread of
the projection, and its worker processes) are printed beside them.

``--game x610z``: the same over an X610Z corpus (its floor reads the same topics' rows of that store).

Usage: .venv/bin/python bench/bench_projection.py [--matches 1000] [--game zx|x610z] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, WORKDIR, corpus, fresh, game_label, game_option, load, report, result  # noqa: E402

CHILD = r"""
import json, resource, sqlite3, sys, time
import orjson
from zx_events.application import MatchService
from zx_analytics.projection import PAGE_SIZE, update
from zx_analytics import reader

store, duck = sys.argv[1], sys.argv[2]
topics = list(reader.TOPICS) if hasattr(reader, "TOPICS") else None
if topics is None:
    from zx_analytics.tables import TOPICS as topics

def floor():
    con = sqlite3.connect(store)
    q = (f"SELECT rowid, originator_id, originator_version, topic, state FROM stored_events WHERE rowid > ? "
         f"AND topic IN ({','.join('?' * len(topics))}) ORDER BY rowid LIMIT {PAGE_SIZE}")
    t, c = time.perf_counter(), time.process_time()
    n, last, loads = 0, 0, orjson.loads
    while True:
        rows = con.execute(q, [last, *topics]).fetchall()
        if not rows:
            break
        for r in rows:
            loads(r[4])
        n += len(rows)
        last = rows[-1][0]
    out = (n, time.perf_counter() - t, time.process_time() - c)
    con.close()
    return out

floor()  # warm the file cache
n, f_wall, f_cpu = floor()
svc = MatchService(store)
def children():  # the CPU of worker processes (zx_analytics.parallel), once they have ended
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime

t, c, k = time.perf_counter(), time.process_time(), children()
r = update(svc, duck, rebuild=True)
wall, cpu = time.perf_counter() - t, time.process_time() - c + children() - k
print(json.dumps({"events": r.events, "position": r.position, "wall": wall, "cpu": cpu,
                  "floor_events": n, "floor_wall": f_wall, "floor_cpu": f_cpu}))
"""


def store_for_tree(matches: int, work: Path, game: str = "zx") -> Path:
    """This tree's import of the corpus (the stored bytes depend on the code that wrote them)."""
    tag = hashlib.sha256(str(ROOT).encode()).hexdigest()[:8] + ("" if game == "zx" else f"-{game}")
    path = work / f"projection-{matches}-{tag}.sqlite"
    if not path.exists():
        files = corpus(matches, work, game=game)
        tmp = fresh(work / f"projection-{matches}-{tag}.partial")
        code = ("import sys\nfrom zx_events.application import MatchService\nfrom zx_events.parallel import import_files\n"
                "svc = MatchService(sys.argv[1])\nlist(import_files(svc, sys.argv[2:], workers=1))\nsvc.close()\n")
        subprocess.run([sys.executable, "-c", code, tmp, *map(str, files)], cwd=ROOT, check=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        for suffix in ("-wal", "-shm"):
            Path(tmp + suffix).unlink(missing_ok=True)
        os.replace(tmp, path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--workdir", type=Path, default=WORKDIR)
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    game_option(ap)
    args = ap.parse_args(argv)
    store = store_for_tree(args.matches, args.workdir, args.game)
    duck = args.workdir / f"projection-{os.getpid()}.duckdb"
    fresh(duck)
    p = subprocess.run([sys.executable, "-c", CHILD, str(store), str(duck)], cwd=ROOT, capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    for x in args.workdir.glob(f"projection-{os.getpid()}.duckdb*"):
        x.unlink()
    if p.returncode != 0:
        raise SystemExit(f"bench: the projection failed: {p.stderr[-2000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    ratio = r["wall"] / r["floor_wall"]
    rows = [result("projection", f"{game_label(args.game)}analytics update --rebuild, {r['position']} store events, {r['events']} "
                                 f"projected (CPU {r['cpu']:.2f} s vs floor CPU {r['floor_cpu']:.2f} s; {load()})",
                   round(r["position"] / r["wall"]), "events/s", round(r["position"] / r["floor_wall"]), ratio,
                   "<= 1.5x floor", ratio <= 1.5, cpu_ratio=round(r["cpu"] / r["floor_cpu"], 2))]
    report(rows, args.fmt, "analytics projection (ratio = projection wall / floor wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
