"""Helpers for engine tests: build logs from records and run them through the real importer."""

from __future__ import annotations

import gc
import json
import time
from typing import Any, Callable, Iterator

import pytest

from zx_events.games.zx.decks import deck_by_name
from zx_events.errors import RuleViolation
from zx_events.importer import Checked, build_match
from zx_events.logformat.reader import parse_log

SETUP = [
    {"do": "setup", "by": "P1", "hand": ["R01-001", "R01-002", "R01-004", "R01-009"],
     "life": ["R01-010", "R01-011", "R01-005", "R01-006"], "resource": ["R01-001", "R01-002"]},
    {"do": "setup", "by": "P2", "hand": ["U01-001", "U01-002", "U01-003", "U01-014"],
     "life": ["U01-011", "U01-013", "U01-005", "U01-006"], "resource": ["U01-001", "U01-002"]},
]


def header(match: str = "t-1", **over: Any) -> dict:
    h = {"zxlog": 1, "match": match, "played_at": "2026-11-01T10:00:00+09:00", "event": "Test",
         "catalog": "sample", "first": "P1",
         "players": {"P1": deck_by_name("Red Dragons").to_header_player("Aki"),
                     "P2": deck_by_name("Blue Control").to_header_player("Ren")}}
    h.update(over)
    return h


def text(records: list[dict], hdr: dict | None = None) -> str:
    return "".join(json.dumps(r) + "\n" for r in [hdr or header(), *records])


def run(records: list[dict], *, strict: bool = True, hdr: dict | None = None) -> Checked:
    """Check ``records`` (after a header on line 1: the first record is line 2)."""
    (log,) = parse_log(text(records, hdr), "t.zxlog")
    return build_match(log, strict=strict)


def rejects(records: list[dict], rule: str, line: int | None = None, hdr: dict | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        run(records, hdr=hdr)
    err = info.value
    assert err.rule == rule, str(err)
    if line is not None:
        assert err.line == line, str(err)
    return err


def line_of(records: list[dict], index: int) -> int:
    """The file line of ``records[index]`` (line 1 is the header)."""
    return index + 2


# A board for battle tests: after turn 2, P1 has R01-002 (3000) on a1 and R01-001 (1500) on b2,
# P2 has U01-003 (4500) on b3 and U01-001 (1500) on a2. Turn 3 is P1's, drawn, in the Main Phase.
BOARD = [
    *SETUP,
    {"do": "turn", "by": "P1"},
    {"do": "resource", "by": "P1", "card": "R01-009"},
    {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"},
    {"do": "play", "by": "P1", "card": "R01-001", "pay": [], "square": "b2"},
    {"do": "end", "by": "P1"},
    {"do": "turn", "by": "P2"},
    {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]},
    {"do": "resource", "by": "P2", "card": "U01-004"},
    {"do": "play", "by": "P2", "card": "U01-003", "pay": ["U01-001", "U01-002"], "square": "b3"},
    {"do": "play", "by": "P2", "card": "U01-001", "pay": [], "square": "a2"},
    {"do": "end", "by": "P2"},
    {"do": "turn", "by": "P1"},
    {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
]
# After BOARD: P1 hand R01-004, R01-005 (Range 2, cost 3), R01-014 (IG Event, cost 0); three Reboot
# Resource cards. P2 hand U01-002, U01-014 (IG Event, cost 0), U01-003; P2 Dynamis holds EX-U04 (Z/X OB).



def p1_deck_drawn_out() -> tuple[list[str], list[dict]]:
    """P1's deck left after BOARD (sorted), and the two records after BOARD that empty it with a card in his
    Trash (R01-004 moved there from his hand, then every card left drawn): a Reload is due at the next record."""
    from collections import Counter

    deck = Counter(deck_by_name("Red Dragons").deck)
    used = Counter(SETUP[0]["hand"] + SETUP[0]["life"] + SETUP[0]["resource"] + ["R01-005", "R01-014"])
    rest = sorted((deck - used).elements())
    return rest, [{"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": "R01-004",
                   "from": "hand", "to": "trash"},
                  {"do": "effect", "by": "P1", "source": "R01-014", "op": "draw", "cards": rest}]

def cpu(f: Callable[[], object], runs: int = 2) -> float:
    """The least CPU time of ``runs`` calls of ``f``, the garbage collector off while it runs (its passes grow
    with the heap, not with what is measured): a cost compared with another in one test (a ratio), never a
    bound on wall time."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            t = time.process_time()
            f()
            best = min(best, time.process_time() - t)
        finally:
            gc.enable()
    return best


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys too (a hidden card's code must be none of them)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)
