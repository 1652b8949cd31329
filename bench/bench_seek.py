"""Seek: the state of a stored match at any event (``zx_events.replay.state_at``), on short and long matches.

The first ``--files`` files of the corpus (``zx simulate --policy mixed``) are imported into a
fresh store (``--store`` to use another kind); then, on the matches nearest 40 events, nearest 150
and the longest (300+ events), ``--seeks`` random seqs each are timed (CPU time of this thread, so a
busy machine does not count), median and p99 of:

- decode floor:  the lower bound any replay has to pay: decode the stored payloads of events 1..seq
                 (rows fetched beforehand) with orjson, the fastest JSON decoder here, into dicts;
- replay from 0: ``MatchService.get_match(version=seq)``: read every event from 1, project it;
- state_at:      the latest snapshot <= seq plus the events after it (snapshots are written by the
                 first seek into a match: that one-off cost is printed apart).

Targets: state_at never slower than replay from zero on any match (per-match median ratio <= 1),
and at most 0.5x the decode floor on matches of 300+ events.

``--game x610z``: the same on X610Z matches (rows prefixed ``x610z:``).

Usage: .venv/bin/python bench/bench_seek.py [--seeks 300] [--store PATH|URL] [--game zx|x610z] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WORKDIR, corpus, fresh, game_label, game_option, quantiles, report, result  # noqa: E402


def timed(fn: Callable[[int], Any], seqs: list[int]) -> list[float]:
    out = []
    for s in seqs:
        c = time.thread_time()
        fn(s)
        out.append(time.thread_time() - c)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=1000, help="corpus size (default 1000; its first files are used)")
    ap.add_argument("--files", type=int, default=3, help="corpus files imported (100 matches each)")
    ap.add_argument("--store", default=None, help="store (default: a fresh SQLite file in the work directory)")
    ap.add_argument("--seeks", type=int, default=300, help="random seeks per match")
    ap.add_argument("--workdir", type=Path, default=WORKDIR)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    game_option(ap)
    args = ap.parse_args(argv)
    g = game_label(args.game)

    import orjson

    from zx_events import replay
    from zx_events.application import MatchService
    from zx_events.parallel import import_files

    files = corpus(args.matches, args.workdir, game=args.game)[: args.files]
    svc = MatchService(args.store or fresh(args.workdir / f"seek-{args.game}.sqlite"))
    outs = [o for o in import_files(svc, [str(f) for f in files], workers=1) if o.status == "imported"]
    by_len = sorted(((o.events, o.match_id) for o in outs))
    short = sorted(by_len, key=lambda x: abs(x[0] - 40))[:3]
    medium = sorted(by_len, key=lambda x: abs(x[0] - 150))[:3]
    long_ = [x for x in by_len if x[0] >= 300][-3:]
    rng = random.Random(args.seed)
    rows: list[dict] = []
    worst = 0.0
    for label, picked in (("~40 events", short), ("~150 events", medium), ("300+ events", long_)):
        times: dict[str, list[float]] = {"decode floor": [], "replay from 0": [], "state_at": []}
        cold = []
        for events, mid in picked:
            stored = replay.stored_events(svc, mid)
            decoded_rows = [r.state for r in stored]
            t = time.perf_counter()
            replay.state_at(svc, mid, events)  # the first seek: writes the snapshots
            cold.append(time.perf_counter() - t)
            seqs = [rng.randint(1, events) for _ in range(args.seeks)]

            def floor(seq: int, states: list = decoded_rows) -> dict:
                loads, out = orjson.loads, {}
                for s in states[:seq]:
                    out.update(loads(s))
                return out
            kinds = {"decode floor": floor,
                     "replay from 0": lambda s, mid=mid: svc.get_match(mid, version=s),
                     "state_at": lambda s, mid=mid: replay.state_at(svc, mid, s)}
            per_match = {}
            for kind, fn in kinds.items():
                fn(seqs[0])
                gc.collect()
                ts = timed(fn, seqs)
                times[kind] += ts
                per_match[kind] = quantiles(ts)[0]
            worst = max(worst, per_match["state_at"] / per_match["replay from 0"])
        f_med, f_p99 = quantiles(times["decode floor"])
        r_med, r_p99 = quantiles(times["replay from 0"])
        s_med, s_p99 = quantiles(times["state_at"])
        what = f"{label} ({', '.join(str(e) for e, _ in picked)})"
        rows.append(result("seek", f"{g}state_at vs replay from 0, {what}", round(s_med * 1e3, 3), "ms median",
                           round(r_med * 1e3, 3), s_med / r_med, "<= 1x replay", s_med <= r_med,
                           p99_ms=round(s_p99 * 1e3, 3), replay_p99_ms=round(r_p99 * 1e3, 3)))
        if label.startswith("300"):
            rows.append(result("seek", f"{g}state_at vs decode floor, {what}", round(s_med * 1e3, 3), "ms median",
                               round(f_med * 1e3, 3), s_med / f_med, "<= 0.5x decode floor", s_med / f_med <= 0.5,
                               p99_ms=round(s_p99 * 1e3, 3), floor_p99_ms=round(f_p99 * 1e3, 3),
                               first_seek_ms=round(max(cold) * 1e3, 2)))
    rows.append(result("seek", f"{g}state_at / replay from 0, worst match (median of its seeks)", round(worst, 3),
                       "ratio", 1.0, worst, "<= 1 on every match", worst <= 1))
    for r in rows:
        if "p99_ms" in r:
            r["what"] += f"; p99 {r['p99_ms']} ms"
    svc.close()
    report(rows, args.fmt, "seek (CPU ms per seek; ratio = state_at / floor)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
