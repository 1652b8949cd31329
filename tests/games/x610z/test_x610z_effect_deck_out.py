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
from x610z_builder import T1, pp, r, refused, run, text


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


def test_x610z_106_3_due_on_an_effect_draw_ends_the_game_at_the_draw():
    recs = discount(1, 1, due=2)
    m, ref = run(recs + [DECK_OUT])
    assert ref.found == [] and m.outcome == {"winner": "P2", "reason": "deck_out"}
    (ended,) = [e for e in m.pending_events if type(e).__name__ == "MatchEnded"]
    assert ended.line == len(recs) + 1  # the draw's own line
    refused(recs + [r("pass", "P2")], "106.1b", contains="after the game has ended (deck_out, winner P2)")
    m, ref = run(recs, strict=False)  # a log ending at the draw: the game is over all the same
    assert ref.found == [] and m.outcome == {"winner": "P2", "reason": "deck_out"}


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
    path = str(folder / "s.sqlite")
    res = CliRunner().invoke(zx, ["--store", path, "import", str(log)])
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


def test_a_match_stored_without_a_result_because_its_result_was_refused_is_not_said_to_stop_early(tmp_path):
    """QA round 35 (nit): with --accept-violations, a match whose last record, its `result`, was refused (106.1b) was
    "stored without a result ...: its log stops before the match ends": it did not stop; the note says so now."""
    log = tmp_path / "refused-result.x610zlog"
    log.write_text(text(discount(2, 1) + [DECK_OUT]))  # (a card left: the deck_out result refused, 106.1b)
    res = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), "import", "--accept-violations", str(log)])
    assert res.exit_code == 0, res.output
    assert ("note: 1 match stored without a result (t): its log stops before the match ends, or ends with a result "
            "record the rules refused (see the violations)") in res.stderr, res.stderr
