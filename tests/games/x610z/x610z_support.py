"""Test helpers: play an X610Z log through the referee."""

from __future__ import annotations

import json
from pathlib import Path

from zx_events.games.x610z.setup import board_for, catalog_for, open_match

SPEC = Path(__file__).resolve().parents[3] / ".." / ".." / "shared" / "spec" / "x610z"
SPEC = Path("/work/shared/spec/x610z") if not SPEC.exists() else SPEC


def split(text: str) -> list[tuple[int, dict, list[tuple[int, dict]]]]:
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        obj = json.loads(line)
        if "x610zlog" in obj:
            out.append((no, obj, []))
        else:
            out[-1][2].append((no, obj))
    return out


def play(text: str, *, strict: bool = True, source: str = "t.x610zlog"):
    matches = []
    for hline, header, records in split(text):
        m, ref = open_match(header, catalog_for(header), board_for(header), strict=strict, source=source, line=hline)
        for no, rec in records:
            ref.handle(no, rec)
        ref.finish()
        matches.append((m, ref))
    return matches
