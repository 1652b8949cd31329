"""Regenerate examples/x610z/legal/: three complete legal matches of 8+ turns from the simulator
(deterministic by seed) that together show every record kind, Murphy's Law and a warp.

Usage: python examples/x610z/make_legal.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

from zx_events.games.x610z.sim import simulate

OUT = Path(__file__).resolve().parent / "legal"
PICKS = {  # file -> (seed, match index from 0; its id is index + 1): a Life Base destroyed; a concession; Murphy's Law
    "life-base-destroyed.x610zlog": (7, 263),
    "concession.x610zlog": (7, 278),
    "murphys-law-ending-dot.x610zlog": (9, 74),
}


def build() -> dict[str, str]:
    out = {}
    for name, (seed, n) in PICKS.items():
        sim = next(simulate(1, seed, start=n))
        out[name] = "\n".join(sim.lines()) + "\n"
    return out


def main(argv: list[str]) -> int:
    files = build()
    if "--check" in argv:
        stale = [n for n, t in files.items() if not (OUT / n).is_file() or (OUT / n).read_text() != t]
        for n in stale:
            print(f"out of date: {OUT / n}", file=sys.stderr)
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for n, t in files.items():
        (OUT / n).write_text(t, encoding="utf-8")
    print(f"wrote {len(files)} logs to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
