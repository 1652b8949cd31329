"""A Z/X Draw Phase `draw` record left out (503.3, digest.7/8): its cards are in the hand, unknown (``HIDDEN``), from
the record that leaves the Draw Phase, and a card its player later uses from the hand that the state does not hold
is one of them, known there. One mistake, one finding: the short draw (503.3) and the timing finding of the record
before it (504.3); no 301.1 where its cards are played, no 309.2a on a right discard, no 902 on a right Reload, and
the log's result stands."""

from __future__ import annotations

from pathlib import Path

from zx_events.games.zx.views import build_view
from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log
from zx_events.seats import HIDDEN

DATA = Path(__file__).resolve().parents[2] / "data"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def deck_count(z: dict) -> int:
    """The deck's size: its list less the hand's unknown cards, whose codes it still lists."""
    return len(z["deck"]) - z["hand"].count(HIDDEN)


def checked(path: Path, drop: int | None = None):
    lines = path.read_text().splitlines()
    if drop is not None:
        del lines[drop - 1]
    (log,) = parse_log("\n".join(lines) + "\n", path.name)
    return build_match(log, strict=False)


def findings(c) -> list[tuple[str, int]]:
    return [(v.rule, v.line) for v in c.violations]


def test_309_2a_a_draw_left_out_counts_its_cards_in_the_hand_limit():
    """examples/invalid/309.2a-hand-above-limit.zxlog made legal at its end, then P2's draw (line 10) left out: the
    Resource record before it (504.3) and the short draw (503.3) only. The hand was counted 2 short: 309.2a at the
    right discard of line 13, and the card played at 11 was 301.1."""
    c = checked(DATA / "zx-draw-left-out-309.zxlog")
    assert findings(c) == [("504.3", 10), ("503.3", 11)]
    z = c.match.p["P2"]
    assert len(z["hand"]) == 6 and z["hand"].count(HIDDEN) == 0  # U01-004 (Resource) and U01-003 (played) known
    assert [r["code"] for r in z["resource"]] == ["U01-001", "U01-002", "U01-004"]


def test_902_a_draw_left_out_keeps_the_deck_count_and_the_result():
    """examples/legal/long-game-reload-win-by-life.zxlog without line 35 (P1's draw of turn 4): the deck was counted
    2 cards too many, so the right Reload at 274 was 902 ('deck is not empty') and the result at 290 101.2 (the match
    stored without a winner)."""
    legal = checked(EXAMPLES / "legal" / "long-game-reload-win-by-life.zxlog")
    c = checked(DATA / "zx-draw-left-out-long.zxlog")
    assert findings(c) == [("504.3", 35), ("503.3", 36)]
    assert c.match.outcome == legal.match.outcome and c.match.outcome["winner"] == "P2"
    for pl in ("P1", "P2"):
        a, b = legal.match.p[pl], c.match.p[pl]
        assert (len(b["hand"]), deck_count(b)) == (len(a["hand"]), deck_count(a)), pl


def test_503_3_the_cards_of_a_draw_left_out_are_in_the_hand_unknown_from_the_phase_left():
    """Every seat counts them at once (hand and deck sizes), at the record that leaves the Draw Phase; their owner
    sees them as unknown (``?``) until one is used, the other seats see only the counts."""
    path = DATA / "zx-draw-left-out-309.zxlog"
    lines = path.read_text().splitlines()
    (log,) = parse_log("\n".join(lines[:10]) + '\n{"do": "end", "by": "P2"}\n', path.name)
    c = build_match(log, strict=False)
    assert findings(c) == [("504.3", 10), ("503.3", 11)]
    z = c.match.p["P2"]
    assert sorted(z["hand"]) == sorted(["U01-001", "U01-002", "U01-009", "U01-010", HIDDEN])  # U01-004 put into Resource
    assert deck_count(z) == 50 - 4 - 4 - 2 - 2
    for seat in ("judge", "P1", "P2", "spectator"):
        v = next(p for p in build_view(c.match, seat).players if p.player == "P2")
        assert (v.hand_count, v.deck_count) == (5, 38), seat
        assert v.hand == (None if seat in ("P1", "spectator") else tuple(z["hand"])), seat


def test_503_3_cards_drawn_events_stored_before_unknown_replay_as_before():
    """Guard (the apply method took ``unknown``): a ``CardsDrawn`` stored without it (every one before this change)
    replays as a plain draw: the cards leave the deck, join the hand, and count as the Draw Phase's."""
    c = checked(EXAMPLES / "legal" / "long-game-reload-win-by-life.zxlog")
    events = c.match.collect_events()
    state = None
    old = 0
    for e in events:
        if type(e).__name__ == "CardsDrawn":
            assert e.__dict__.get("unknown") is False
            stored = object.__new__(type(e))
            object.__setattr__(stored, "__dict__", {k: v for k, v in vars(e).items() if k != "unknown"})
            e, old = stored, old + 1
        state = e.mutate(state)
    assert old > 20
    assert state.p == c.match.p and state.drawn == c.match.drawn and state.outcome == c.match.outcome
