"""How fast is the match list (``zx matches``, ``zx serve``'s list, ``MatchService.summaries()``) read?

The corpus (``zx simulate --policy mixed``, 100 matches a file, cached) is imported into a fresh SQLite
store by this tree's importer, which gives it the summaries' two partial indexes (round 33); a copy
without them stands for a store no import of round 33 or later has written. Wall time, fastest of
``--repeat`` runs each, of ``summaries.read_sqlite`` (what ``zx matches`` reads):

- indexed: the list read through the indexes (three events a match);
- floor:   the same rows read through the indexes and not decoded (``indexed_notes`` consumed): no
           list can do less. Ratio = indexed / floor;
- whole:   the copy's list, every event read to find them (before round 33); ratio = whole / indexed
           (the speed-up; it grows with the store: 10.6-13.4 s against 3.4-3.9 s at 130,000 matches);
- first:   ``zx matches --limit 20`` without filters (the first 20 matches only).

The lists read both ways must be equal, or the bench fails.

Usage: .venv/bin/python bench/bench_matches.py [--matches 1000] [--repeat 5] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WORKDIR, corpus, fresh, report, result  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=1000, help="corpus size")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each (the fastest counts)")
    ap.add_argument("--workdir", type=Path, default=WORKDIR)
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)

    from zx_events import summaries
    from zx_events.application import MatchService
    from zx_events.parallel import import_files
    from zx_events.store import ReadConnections, connect_read, resolve_store

    files = corpus(args.matches, args.workdir)
    path = Path(fresh(args.workdir / "matches.sqlite"))
    svc = MatchService(str(path))
    imported = sum(o.status == "imported" for o in import_files(svc, [str(f) for f in files], workers=1))
    svc.close()
    whole_path = Path(fresh(args.workdir / "matches-unindexed.sqlite"))
    shutil.copyfile(path, whole_path)
    con = sqlite3.connect(whole_path)
    for name in summaries.INDEXES:
        con.execute(f"DROP INDEX {name}")
    con.commit()
    con.close()
    indexed, whole = (resolve_store(str(p), prepare=False, create=False) for p in (path, whole_path))

    def best(fn) -> float:
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return min(times)

    def floor() -> None:
        con = connect_read(ReadConnections.uri_of(indexed))
        try:
            notes, _ = summaries.indexed_notes(con)
            for _ in notes:
                pass
        finally:
            con.close()

    listed = summaries.read_sqlite(indexed)
    if listed != summaries.read_sqlite(whole) or len(listed) != imported or \
            summaries.read_sqlite(indexed, 20) != listed[:20]:
        print("bench_matches: the list read through the indexes differs from the list read whole", file=sys.stderr)
        return 1
    t_floor = best(floor)
    t_indexed = best(lambda: summaries.read_sqlite(indexed))
    t_whole = best(lambda: summaries.read_sqlite(whole))
    t_first = best(lambda: summaries.read_sqlite(indexed, 20))
    n = len(listed)
    rows = [
        result("matches", f"match list through the indexes, {n} matches", round(n / t_indexed), "matches/s",
               round(n / t_floor), t_indexed / t_floor, "", None,
               floor_note="the same rows through the indexes, not decoded"),
        result("matches", f"match list read whole (a store without the indexes): {t_whole * 1000:.0f} ms against "
                          f"{t_indexed * 1000:.0f} ms", round(n / t_whole), "matches/s", round(n / t_indexed),
               t_whole / t_indexed, ">= 2x slower than indexed", t_whole / t_indexed >= 2,
               floor_note="the indexed list"),
        result("matches", "zx matches --limit 20 (the first 20 matches only)", round(t_first * 1000, 1), "ms",
               round(t_indexed * 1000, 1), t_first / t_indexed, "", None, floor_note="the whole indexed list"),
    ]
    report(rows, args.fmt, "the match list (ratio = time / floor time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
