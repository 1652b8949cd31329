"""Simulated Z/X matches for the viewer tests, varied the way tests/games/zx/test_views_leak.py varies
them: notes that name cards, and a record after the end that the engine refuses (a violation)."""

from __future__ import annotations

import json
import random

from zx_events.games.zx.sim import simulate

PLAYERS = ("P1", "P2")


def varied_log(seed: int, policy: str, notes: bool, late: bool) -> tuple[str, int]:
    """A simulated match as log text (and its number of records), with card-naming notes and a
    refused late record when asked."""
    (sim,) = simulate(1, seed=seed, policy=policy)
    rng = random.Random(seed)
    header = dict(sim.header)
    header["match"] = f"view-{seed}-{policy}"
    codes = sorted({c for pl in PLAYERS for c in header["players"][pl]["deck"]})
    records = [dict(r) for r in sim.records]
    if notes:
        for r in rng.sample(records, k=min(8, len(records))):
            r["note"] = f"thinking about {rng.choice(codes)} here"
    if late:  # refused by the engine (501.3 / 503.3): stored as a violation with its record
        who = rng.choice(PLAYERS)
        records.append({"do": "draw", "by": who, "cards": rng.sample(sorted(header["players"][who]["deck"]), 2),
                        "note": "one more"})
    return "".join(json.dumps(x) + "\n" for x in [header, *records]), len(records)
