"""``zx replay --to end`` in the terminal: a step drawn (its record, events and board) against the same step
written as JSON.

The first corpus file (100 matches, ``zx simulate --policy mixed``) of each game is imported into a fresh SQLite
store; its longest match (most steps) is then replayed from the judge's seat, in this process, CPU time:

- drawn: every step as ``zx replay MATCH --to end`` draws it at 120 columns (``zx_cli.replay.draw_step``: rich
  lays out the record, the events and the board), written to /dev/null; the parts kept from one step to the
  next (``zx_events.drawing.Kept``) forgotten before each run, as in a new process;
- floor: the same steps as ``zx replay MATCH --to end --format json`` writes them (``Step.to_json``, one line
  each): the same states, read and decoded alike, with no drawing.

Ratio = drawn / floor. Informative, no target: rich's layout is most of a step (round 26: 8.2 ms a step on Z/X,
30x; a 57-turn match's 747 steps took 8 s to scroll by; round 27 keeps a part's lines while it is unchanged).

Usage: .venv/bin/python bench/bench_replay.py [--game zx|x610z] [--repeat 3] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WORKDIR, clocks, corpus, fresh, game_label, game_option, report, result  # noqa: E402

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=1000, help="corpus size (its first file is used)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each (the fastest counts)")
    ap.add_argument("--workdir", type=Path, default=WORKDIR)
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    game_option(ap)
    args = ap.parse_args(argv)
    os.environ["COLUMNS"] = "120"

    from zx_cli.output import json_text
    from zx_cli.replay import draw_step
    from zx_events import replay
    from zx_events.application import MatchService
    from zx_events.parallel import import_files

    try:
        from zx_events.drawing import Kept
    except ImportError:  # (before round 27: nothing kept)
        Kept = None

    files = corpus(args.matches, args.workdir, game=args.game)[:1]
    svc = MatchService(fresh(args.workdir / f"replay-{args.game}.sqlite"))
    outs = [o for o in import_files(svc, [str(f) for f in files], workers=1) if o.status == "imported"]
    longest, hist = None, None
    for o in outs:
        h = replay.load_history(svc, o.match_id)
        if hist is None or len(h.bounds) > len(hist.bounds):
            longest, hist = o.match_id, h
    game = replay.game_of(hist.state_at(1))
    steps = list(hist.steps(replay.JUDGE))
    real, null = sys.stdout, open(os.devnull, "w")

    def drawn() -> None:
        if Kept is not None:
            Kept._lines.clear()
        for s in steps:
            draw_step(s, game, set())

    def as_json() -> None:
        for s in steps:
            null.write(json_text(s.to_json()) + "\n")

    def best(fn) -> float:
        times = []
        for _ in range(args.repeat):
            sys.stdout = null
            try:
                with clocks() as c:
                    fn()
            finally:
                sys.stdout = real
            times.append(c["cpu"])
        return min(times)

    t_floor, t_drawn = best(as_json), best(drawn)
    svc.close()
    ratio = t_drawn / t_floor
    rows = [result("replay", f"{game_label(args.game)}zx replay --to end, {len(steps)} steps of {longest} (judge, "
                             f"120 columns)", round(t_drawn / len(steps) * 1000, 2), "ms CPU a step",
                   round(t_floor / len(steps) * 1000, 2), ratio, "(informative)", None,
                   floor_note="the same steps as --format json")]
    report(rows, args.fmt, "zx replay --to end (ratio = drawn CPU / JSON CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
