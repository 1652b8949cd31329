"""106.3 for an effect's draw (digest.12): "A player must draw but is unable to draw a card (from his deck) because
there are no cards left in his deck" loses, not only in his Draw Phase. The engine reads no card text, so the log
states the loss: a `deck_out` result right after the effect draw that came short, or the draw's own ``due``.
QA round 35's logs: P1 draws his deck down to 1 card, casts Discount ("Draw 2 cards from your deck", 208.4), draws
the last card (breaking) or the last 2 (complying)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.games.x610z import rows

from test_x610z_rows import project
from x610z_builder import T1, deck_drawn_out, header, legal, pp, r, refused, run, text


def _to_discount(left: int) -> tuple[list[dict], list[str]]:
    """Turn 1: P1 draws all but ``left`` cards of his deck (a shortcut effect of his Life Base on S1), casts Discount
    (A1-031, paid B1) and both pass: its resolution's draw comes next. Returns the records and the cards left."""
    m, _ = run(T1)
    deck = list(m.p["P1"]["deck"])
    drawn, rest = deck[:-left], deck[-left:]
    return T1 + [r("effect", "P1", source="S1", op="draw", cards=drawn),
                 r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1"), rest


def discount(cards_left: int, drawn: int, **due) -> list[dict]:
    recs, rest = _to_discount(cards_left)
    return recs + [r("effect", "P1", source="A1-031", op="draw", cards=rest[:drawn], **due)]


DECK_OUT = r("result", "P2", winner="P2", reason="deck_out")
PASSES = [r("pass", "P1"), r("pass", "P2")]  # after the resolution: the active player has priority (201.6)
DRAW = r("result", "P1", winner=None, reason="simultaneous")
# Discount's resolution also deals 12 damage to a Life Base (Iron Keep, Defense 12; the engine reads no card text)
KILL_P2 = r("effect", "P1", source="A1-031", op="damage", dot="S4", amount=12)
KILL_P1 = r("effect", "P1", source="A1-031", op="damage", dot="S1", amount=12)


def _ended(m) -> list[tuple]:
    return [(e.line, e.winner, e.reason) for e in m.pending_events if type(e).__name__ == "MatchEnded"]


def test_x610z_106_3_an_effect_draw_short_of_an_empty_deck_loses_when_the_result_says_deck_out():
    breaking = discount(1, 1) + [DECK_OUT]  # Discount's 2 cards due, 1 left: the draw came short
    m, ref = run(breaking)
    assert ref.found == [] and m.outcome == {"winner": "P2", "reason": "deck_out"}
    ended = [e for e in m.pending_events if type(e).__name__ == "MatchEnded"]
    assert [(e.line, e.winner, e.reason) for e in ended] == [(len(breaking) + 1, "P2", "deck_out")]
    assert len(m.p["P1"]["deck"]) == 0
    complying = discount(2, 2) + PASSES  # both drawn: the game goes on
    m, ref = run(complying)
    assert ref.found == [] and m.outcome is None and len(m.p["P1"]["deck"]) == 0


def test_x610z_106_3_due_on_an_effect_draw_loses_when_its_resolution_ends():
    """The draw came short of its ``due`` with the deck empty: P1 loses when the resolution ends (digest.13, choice 9:
    the next record that is neither an `effect` nor a `trigger`, or the end of the log), at the line of its last
    `effect` record, not at the draw itself: a later effect record of the same resolution is its own (it was 106.1b
    "effect record after the game has ended")."""
    recs = discount(1, 1, due=2)
    m, ref = run(recs + [DECK_OUT])
    assert ref.found == [] and m.outcome == {"winner": "P2", "reason": "deck_out"}
    assert _ended(m) == [(len(recs) + 1, "P2", "deck_out")]  # the draw's own line: the resolution's last effect record
    # the record after the resolution (P1's pass: he has priority again, 201.6) comes after the end
    refused(recs + [r("pass", "P1")], "106.1b", contains="pass record after the game has ended (deck_out, winner P2)")
    m, ref = run(recs, strict=False)  # a log ending at the draw: the game is over all the same
    assert ref.found == [] and m.outcome == {"winner": "P2", "reason": "deck_out"}
    later = recs + [r("effect", "P1", source="A1-031", op="damage", dot="S4", amount=1)]
    m = legal(later + [DECK_OUT])
    assert m.outcome == {"winner": "P2", "reason": "deck_out"} and m.dots["S4"]["dmg"] == 1
    assert _ended(m) == [(len(later) + 1, "P2", "deck_out")]  # where the resolution's last effect record is


_recs, _rest = _to_discount(1)
BOTH_DRAW = _recs + [KILL_P2, r("effect", "P1", source="A1-031", op="draw", cards=_rest, due=2)]  # (QA round 38's D2)


def test_x610z_106_1a_a_life_base_then_a_short_effect_draw_in_one_resolution_is_a_draw():
    """QA round 38 (D2): Discount's resolution deals 12 damage to P2's Iron Keep, then its draw comes short of P1's
    empty deck (``due`` 2, 1 card left). Both lost within one resolution (106.3: a Life Base leaves play; must draw
    and cannot): 106.1a, a draw. It was P2's win by deck_out at the draw, P2's Life Base left standing with 12 damage,
    and the log's result of a draw 106.1b."""
    recs = BOTH_DRAW
    m = legal(recs + [DRAW])
    assert m.outcome == {"winner": None, "reason": "simultaneous"}  # (no ``how``: not both Life Bases)
    assert _ended(m) == [(len(recs) + 1, None, "simultaneous")]
    assert "S4" not in m.dots and "A1-002" in m.p["P2"]["discard"] and m.p["P1"]["deck"] == []
    (gone,) = [e for e in m.pending_events if type(e).__name__ == "Destroyed"]
    assert (gone.dot, gone.cause, gone.line) == ("S4", "210.5", len(recs) + 1)
    refused(recs + [DECK_OUT], "106.1b", contains="result P2 (deck_out) disagrees with the engine: none (simultaneous)")
    m, ref = run(recs)  # the log ending in the resolution: the same draw
    assert ref.found == [] and m.outcome == {"winner": None, "reason": "simultaneous"}


def test_x610z_106_1b_a_draw_result_after_a_life_base_and_a_draw_without_due_says_how_to_state_it():
    """Without ``due`` the engine cannot know the draw came short (it reads no card text): P2's Life Base left play,
    P1 won when the resolution ended, and a `result` of a draw (or P2's deck_out) disagrees, saying how the log
    states a short draw with the resolution's other losses."""
    recs, rest = _to_discount(1)
    recs = recs + [KILL_P2, r("effect", "P1", source="A1-031", op="draw", cards=rest)]
    hint = (f"(the effect draw at line {len(recs) + 1} left P1's deck empty: a draw that came short of it is stated by "
            f"its `due`, the cards owed, and then loses with the resolution's other losses, 106.3)")
    refused(recs + [DRAW], "106.1b", contains=f"result none (simultaneous) disagrees with the engine: P1 (life_base) {hint}")
    refused(recs + [DECK_OUT], "106.1b", contains=f"result P2 (deck_out) disagrees with the engine: P1 (life_base) {hint}")
    m = legal(recs + [r("result", "P1", winner="P1", reason="life_base")])  # (the log's word: the draw met its due)
    assert m.outcome == {"winner": "P1", "reason": "life_base"}
    err = refused(BOTH_DRAW + [r("result", "P1", winner="P1", reason="life_base")], "106.1b")
    assert "effect draw" not in err.message  # (the draw's ``due`` said it: nothing to add)


def test_x610z_106_1a_a_short_effect_draw_then_a_life_base_in_one_resolution_is_a_draw():
    recs = discount(1, 1, due=2) + [KILL_P2]  # (it was 106.1b at the damage: "effect record after the game has ended")
    m = legal(recs + [DRAW])
    assert m.outcome == {"winner": None, "reason": "simultaneous"} and "S4" not in m.dots
    assert _ended(m) == [(len(recs) + 1, None, "simultaneous")]


def test_x610z_210_8_a_players_life_base_and_his_own_short_draw_in_one_resolution_lose_once():
    """One loser, two ways (210.8 and 106.3) in one resolution: his loss, once, by his Life Base (106.3 lists it
    first); the other player won."""
    recs = discount(1, 1, due=2) + [KILL_P1]
    m = legal(recs + [r("result", "P2", winner="P2", reason="life_base")])
    assert m.outcome == {"winner": "P2", "reason": "life_base"} and _ended(m) == [(len(recs) + 1, "P2", "life_base")]


def test_x610z_106_3_a_draw_phase_from_an_empty_deck_loses_at_once_as_before():
    """Outside any resolution: the Draw Phase's draw due from P1's empty deck loses at his `turn` record (unchanged)."""
    recs = deck_drawn_out()
    m = legal(recs)
    assert m.outcome == {"winner": "P2", "reason": "deck_out"} and _ended(m) == [(len(recs), "P2", "deck_out")]
    refused(recs[:-1] + [r("draw", "P1", card="A1-010")], "106.1b",
            contains="draw record after the game has ended (deck_out, winner P2)")


def test_x610z_106_3_a_deck_out_result_with_cards_left_in_the_deck_is_refused():
    refused(discount(2, 1) + [DECK_OUT], "106.1b",
            contains="result P2 (deck_out) but the game has not ended: P1's deck holds 1 card (106.3")
    refused(discount(3, 2) + [DECK_OUT], "106.1b", contains="P1's deck holds 1 card")


def test_x610z_106_3_a_deck_out_result_with_no_short_effect_draw_just_before_it_is_refused():
    both = discount(2, 2)
    refused(both + PASSES + [DECK_OUT], "106.1b",
            contains="P1's deck is empty, but the record before is no effect draw of his that came short")
    refused(both[:-1] + [dict(both[-1], due=2), DECK_OUT], "106.1b",
            contains=f"the effect draw at line {len(both) + 1} drew the 2 cards due")
    # the winner's own deck is not the loser's: P2's deck is full
    refused(both + [r("result", "P1", winner="P1", reason="deck_out")], "106.1b", contains="P2's deck holds")


def test_x610z_212_1_an_effect_draw_short_of_its_due_while_the_deck_holds_cards():
    recs = discount(3, 1, due=2)
    refused(recs, "212.1", contains="P1 draws 1 of the 2 cards due while his deck holds 2 more")
    m, ref = run(recs + PASSES, strict=False)  # applied as played: the game goes on
    assert [(v.line, v.rule) for v in ref.found] == [(len(recs) + 1, "212.1")] and m.outcome is None
    refused(discount(3, 2, due=1), "212.1", contains="P1 draws 2 cards where 1 are due")


def test_x610z_106_3_an_effect_deck_out_is_the_matchs_reason_in_the_analytics():
    m, _ = run(discount(1, 1) + [DECK_OUT])
    (match,) = project(m)["matches"]
    match = dict(zip(rows.COLUMNS["matches"], match))
    assert (match["winner"], match["reason"]) == ("P2", "deck_out")


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("deckout")
    log = folder / "106.3-effect-draw-bad.x610zlog"
    log.write_text(text(discount(1, 1) + [DECK_OUT]))
    both = folder / "106.1a-life-base-and-deck-out.x610zlog"  # (QA round 38's D2: a draw)
    both.write_text(text(BOTH_DRAW + [DRAW], header(match="lb-deckout")))
    path = str(folder / "s.sqlite")
    res = CliRunner().invoke(zx, ["--store", path, "import", str(log), str(both)])
    assert res.exit_code == 0, res.output
    return path


def test_x610z_106_3_the_judges_replay_and_view_show_the_end(store, tmp_path):
    res = CliRunner().invoke(zx, ["--store", store, "replay", "t", "--as", "judge"])
    assert res.exit_code == 0, res.output
    assert "Result: P2 won by the other player drawing from an empty Deck (106.3)" in res.output
    assert "Traceback" not in res.output
    out = tmp_path / "t.html"
    res = CliRunner().invoke(zx, ["--store", store, "view", "t", "--as", "judge", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert '"deck_out"' in out.read_text()


@pytest.mark.parametrize("seat", ["judge", "P1", "P2"])
def test_x610z_106_1a_the_replay_says_a_life_base_and_a_deck_out_in_one_resolution_are_a_draw(store, seat):
    res = CliRunner().invoke(zx, ["--store", store, "replay", "lb-deckout", "--as", seat], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "Result: a draw by both losing at once (106.1a)" in res.output  # (not "both Life Bases left play")
    assert "on S1: Iron Keep (P1)" in res.output and "on S4:" not in res.output  # (P2's Iron Keep left play)
    assert "P2 B · home S4 · Deck 45 · Hand 7 · Discard 1" in res.output and "Discard: A1-002 Iron Keep" in res.output
    assert "Traceback" not in res.output


def test_a_match_stored_without_a_result_because_its_result_was_refused_is_not_said_to_stop_early(tmp_path):
    """QA round 35 (nit): with --accept-violations, a match whose last record, its `result`, was refused (106.1b) was
    "stored without a result ...: its log stops before the match ends": it did not stop; the note says so now."""
    log = tmp_path / "refused-result.x610zlog"
    log.write_text(text(discount(2, 1) + [DECK_OUT]))  # (a card left: the deck_out result refused, 106.1b)
    res = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), "import", "--accept-violations", str(log)])
    assert res.exit_code == 0, res.output
    assert ("note: 1 match stored without a result (t): its log stops before the match ends, or ends with a result "
            "record the rules refused (see the violations)") in res.stderr, res.stderr
