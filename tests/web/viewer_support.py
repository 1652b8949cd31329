"""Simulated Z/X matches for the viewer tests, varied the way tests/games/zx/test_views_leak.py varies
them: notes that name cards, and a record after the end that the engine refuses (a violation)."""

from __future__ import annotations

import json
import random
from pathlib import Path

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


BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def bidi_log(tmp_path: Path) -> Path:
    """rules-fidelity.zxlog with every bidirectional control in a name, the event, a note, a ts and a Token's name."""
    root = Path(__file__).resolve().parents[2]
    lines = (root / "examples" / "legal" / "rules-fidelity.zxlog").read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"]["name"] = "\u202e800-10R" + BIDI
    header["event"] = "Cup" + BIDI
    out = [json.dumps(header)]
    for line in lines[1:]:
        rec = json.loads(line)
        if rec.get("op") == "token":
            rec["name"] = "Husk" + BIDI
        if rec.get("do") == "turn":
            rec.update(note="n" + BIDI, ts="t" + BIDI)
        out.append(json.dumps(rec))
    log = tmp_path / "bidi.zxlog"
    log.write_text("\n".join(out) + "\n", "utf-8")
    return log
