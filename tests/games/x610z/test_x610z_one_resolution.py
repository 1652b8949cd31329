"""106.1a and 210.8 when one resolution takes Life Bases out of play (digest.13): the rule effects (210.5, 210.8) are
checked when the resolution ends (choice 9: the next record that is neither an `effect` nor a `trigger`, or the end of
the log), once, not after each of its records. 106.1a: "2 players/teams win/lose at the same time" is a draw.
QA round 38's logs (D): in turn 3 P1 casts Discount (A1-031; the engine reads no card text), and its resolution deals
12 damage to each Iron Keep (Defense 12): P2's on S4, then P1's on S1."""

from __future__ import annotations

from zx_events.games.x610z.rules import RULES_VERSION

from x610z_builder import BATTLE, legal, pp, r, refused, run


def eff(op: str, source: str = "A1-031", **fields) -> dict:
    return r("effect", "P1", source=source, op=op, **fields)


DISCOUNT = BATTLE + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1")
KILL_P2 = eff("damage", dot="S4", amount=12)
KILL_P1 = eff("damage", dot="S1", amount=12)
DRAW = r("result", "P1", winner=None, reason="simultaneous")
P1_WINS = r("result", "P1", winner="P1", reason="life_base")


def _ended(m) -> list[tuple]:
    return [(e.line, e.winner, e.reason) for e in m.pending_events if type(e).__name__ == "MatchEnded"]


def test_x610z_106_1a_both_life_bases_gone_in_one_resolution_is_a_draw():
    recs = DISCOUNT + [KILL_P2, KILL_P1]
    m = legal(recs + [DRAW])
    assert m.outcome == {"winner": None, "reason": "simultaneous", "how": "effect"}  # (the end says how: by effects)
    assert _ended(m) == [(len(recs) + 1, None, "simultaneous")]  # at the line of the resolution's last effect record
    assert not any(e["life"] for e in m.dots.values())
    # the log ending in the resolution: the same draw (``finish``)
    m, ref = run(recs)
    assert ref.found == [] and m.outcome == {"winner": None, "reason": "simultaneous", "how": "effect"}
    # the breaking log: P1 won (it was the engine's word, and the draw's result 106.1b)
    refused(recs + [P1_WINS], "106.1b", contains="result P1 (life_base) disagrees with the engine: none (simultaneous)")
    assert RULES_VERSION == "x610z-cr-1.1+digest.13"


def test_x610z_210_8_a_life_base_gone_in_a_resolution_loses_when_it_ends():
    """One Life Base in the resolution, the other's damage after it (P1's pass, priority his again, 201.6): the game
    ended with the resolution, P1 the winner, and the record after it is 106.1b."""
    recs = DISCOUNT + [KILL_P2]
    m = legal(recs + [P1_WINS])
    assert m.outcome == {"winner": "P1", "reason": "life_base"} and _ended(m) == [(len(recs) + 1, "P1", "life_base")]
    refused(recs + [r("pass", "P1"), KILL_P1], "106.1b", line=len(recs) + 2,
            contains="pass record after the game has ended (life_base, winner P1)")


def test_x610z_106_1b_a_record_after_the_resolution_that_ended_the_game():
    refused(DISCOUNT + [KILL_P2, r("end", "P1")], "106.1b",
            contains="end record after the game has ended (life_base, winner P1)")


def test_x610z_210_8_a_later_effect_record_of_the_resolution_is_accepted():
    """The resolution goes on after the Life Base's damage: its next `effect` record (and a trigger, 207.4b) is its
    own, not "after the game has ended" (it was 106.1b)."""
    recs = DISCOUNT + [KILL_P2, eff("damage", dot="B5", amount=1), eff("draw", cards=["A1-010"])]
    m = legal(recs + [P1_WINS])
    assert m.outcome == {"winner": "P1", "reason": "life_base"}
    assert m.dots["B5"]["dmg"] == 1 and _ended(m) == [(len(recs) + 1, "P1", "life_base")]


def test_x610z_210_5_and_210_6_lethal_damage_counts_when_the_resolution_ends():
    """210.5 once, when the resolution ends: a Sky Vessel (Defense 2) dealt 2 damage by one of its records and healed
    1 by the next stays (210.6: lethal damage is final once the action has resolved); it was destroyed at the first,
    and the heal was 500.1 "no summon on B5". Lethal damage left at the end destroys it then."""
    m = legal(DISCOUNT + [eff("damage", dot="B5", amount=2), eff("heal", dot="B5", amount=1)] + [r("pass", "P1")])
    assert m.dots["B5"]["dmg"] == 1 and m.outcome is None
    recs = DISCOUNT + [eff("damage", dot="B5", amount=2), eff("stat", dot="B1", stat="attack", delta=1)]
    m = legal(recs + [r("pass", "P1")])
    assert "B5" not in m.dots and "A1-022" in m.p["P2"]["discard"]
    (gone,) = [e for e in m.pending_events if type(e).__name__ == "Destroyed"]
    assert (gone.dot, gone.cause, gone.line) == ("B5", "210.5", len(recs) + 1)
