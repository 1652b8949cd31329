"""The turn (402, 501-507), playing cards (805, 204.6, 806, 506) and rule effects (902, 905, 1102, 1103, loss)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from support import BOARD, SETUP, header, line_of, p1_deck_drawn_out, rejects, run

from zx_events.games.zx.decks import deck_by_name
from zx_events.games.zx.views import build_view
from zx_events.ids import project
from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log
from zx_events.seats import HIDDEN, deck_count

PASS1 = {"do": "pass", "by": "P1"}
PASS2 = {"do": "pass", "by": "P2"}
# P1 clears b3 with the Range Z/X, then hits P2 from b2: P2 owes one Life card
PLAYER_HIT = [*BOARD,
              {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"], "square": "c2"},
              {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2,
              {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2]


def last(recs):
    return line_of(recs, len(recs) - 1)


# ---------------------------------------------------------------- setup (402) and turns (501)
def test_402_setup_hand_of_four():
    bad = dict(SETUP[0], hand=SETUP[0]["hand"][:3])
    rejects([bad], "402", 2)


def test_402_mulligan_returns_the_hand_and_draws_four():
    p2 = dict(SETUP[1], mulligan=["U01-005", "U01-006", "U01-007", "U01-008"],
              life=["U01-011", "U01-013", "U01-005", "U01-010"])
    m = run([SETUP[0], p2]).match
    assert sorted(m.p["P2"]["hand"]) == ["U01-005", "U01-006", "U01-007", "U01-008"]
    assert len(m.p["P2"]["deck"]) == 40


def test_402_setup_twice():
    rejects([SETUP[0], SETUP[0]], "402", 3)


def test_402_turn_before_setup():
    rejects([SETUP[0], {"do": "turn", "by": "P1"}], "402", 3)


def test_402_a_setup_written_after_turn_1_is_reported_once_and_applied():
    """P2's setup after `turn 1`: 402 at the turn, then a fatal 501.3 'setup after the game began' skipped
    it, and P2 never set up (false 301.1 for the Resource he pays with, 602.1a, 603.1b...). Now the one
    402, and the setup applied where it is written (strict import still stops at the turn)."""
    recs = [SETUP[0], {"do": "turn", "by": "P1"}, SETUP[1], {"do": "resource", "by": "P1", "card": "R01-009"},
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-007", "U01-008"]},
            {"do": "resource", "by": "P2", "card": "U01-003"}]
    rejects(recs, "402", 3)
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("402", 3)]
    z = c.match.p["P2"]
    assert z["ready"] and len(z["life"]) == 4 and [r["code"] for r in z["resource"]] == ["U01-001", "U01-002", "U01-003"]
    rejects([*SETUP, {"do": "turn", "by": "P1"}, SETUP[1]], "501.3", 5)  # set up already: as before


LONG = Path(__file__).resolve().parents[3] / "examples" / "legal" / "long-game-reload-win-by-life.zxlog"


def _setup_left_out():
    """examples/legal/long-game-reload-win-by-life.zxlog without P1's setup (line 2), imported with
    --accept-violations (the audit's check): the match, its events."""
    lines = LONG.read_text().splitlines()
    assert lines[1].startswith('{"do": "setup", "by": "P1"')
    del lines[1]
    (log,) = parse_log("\n".join(lines) + "\n", "noset.zxlog")
    c = build_match(log, strict=False)
    return c, c.match.collect_events()


def test_402_setup_left_out_deals_four_unknown_cards_and_the_game_goes_on_to_its_result():
    """P1's setup left out: the one 402 at turn 1 (line 3 now). It was followed by 18 false findings (301.1 for the
    Life, hand and Resource cards he used, 602.1a, 505.3a, 604.3b, 905, 902 'deck is not empty (10 cards)' at the
    right Reload, and 101.2 at the result, the match stored without a winner): his setup happened unseen."""
    c, _ = _setup_left_out()
    assert [(v.rule, v.line, v.message, v.player) for v in c.violations] == [
        ("402", 3, "turn 1 before the setup of P1", "P1")]  # (P1's, who left it out: it was the turn record's writer's)
    (legal,) = parse_log(LONG.read_text(), LONG.name)
    assert c.match.outcome == build_match(legal).match.outcome == {"winner": "P2", "reason": "life"}


FIRST = Path(__file__).resolve().parents[3] / "examples" / "legal" / "first-turns.zxlog"


def test_402_both_setups_left_out_are_one_finding_each_its_players():
    """Both setups left out: one 402 for each player, his (it was one finding, 'before the setup of P1 and P2', filed
    under the turn record's writer), and both are set up unseen: the match goes on as the legal log's."""
    lines = FIRST.read_text().splitlines()
    assert lines[1].startswith('{"do": "setup", "by": "P1"') and lines[2].startswith('{"do": "setup", "by": "P2"')
    del lines[1:3]
    (log,) = parse_log("\n".join(lines) + "\n", "nosetups.zxlog")
    c = build_match(log, strict=False)
    assert [(v.rule, v.line, v.player, v.message) for v in c.violations] == [
        ("402", 2, "P1", "turn 1 before the setup of P1"), ("402", 2, "P2", "turn 1 before the setup of P2")]
    legal = build_match(parse_log(FIRST.read_text(), FIRST.name)[0]).match
    assert [deck_count(c.match.p[p]) for p in ("P1", "P2")] == [deck_count(legal.p[p]) for p in ("P1", "P2")]


@pytest.mark.parametrize("to, extra", [("deck", {}), ("trash", {}), ("square", {"dest": "c1"})])
def test_402_a_card_an_effect_moves_from_the_unseen_hand_is_one_of_its_unknown_cards(to, extra):
    """first-turns.zxlog without P1's setup, and after his two plays an effect moving R01-004 from his hand (to his
    deck, Trash, Square): the hand's last unknown card is that one, known there, and the move is applied, as with his
    setup (it was 301.1 'R01-004 is not in P1's hand', the move skipped: his hand one card over, his deck, Trash or
    Square one short, for every seat)."""
    def built(setup: bool):
        lines = FIRST.read_text().splitlines()
        move = {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-004", "from": "hand",
                "to": to, **extra}
        lines.insert(6, json.dumps(move))
        if not setup:
            del lines[1]
        (log,) = parse_log("\n".join(lines) + "\n", "moved.zxlog")
        return build_match(log, strict=False)
    c, control = built(False), built(True)
    assert [(v.rule, v.line, v.player) for v in c.violations] == [("402", 3, "P1")] and not control.violations
    z, w = c.match.p["P1"], control.match.p["P1"]
    assert (len(z["hand"]), len(z["trash"]), deck_count(z)) == (len(w["hand"]), len(w["trash"]), deck_count(w))
    assert [e and e["code"] for e in c.match.sq.values()] == [e and e["code"] for e in control.match.sq.values()]


def test_402_setup_left_out_deals_four_unknown_cards_to_hand_life_four_and_resource_two_for_every_seat():
    """The replayed state after the 402 (the unseen setup's ``PlayerSetUp`` of ``?``, at the turn record): P1's hand
    4 cards, Life 4 and Resource 2, all unknown to every seat (the judge too), his deck 50 - 10."""
    _, events = _setup_left_out()
    names = [type(e).__name__ for e in events]
    assert names[:5] == ["Started", "PlayerSetUp", "ViolationRecorded", "PlayerSetUp", "TurnStarted"]
    m = project(None, events[:4])
    for seat in ("judge", "P1", "P2", "spectator"):
        v = next(p for p in build_view(m, seat).players if p.player == "P1")
        assert (v.hand_count, v.life_count, len(v.resource), v.deck_count) == (4, 4, 2, 40), seat
        assert [r.code for r in v.resource] == [HIDDEN, HIDDEN], seat
        assert v.hand in ((HIDDEN,) * 4, None) and v.life in ((HIDDEN,) * 4, None), seat
        assert (v.hand is None) == (seat in ("P2", "spectator")) and (v.life is None) == (seat != "judge"), seat
    m = project(None, events)  # every unknown card was used: known where it was (the setup the log left out)
    assert m.p["P1"]["hand"].count(HIDDEN) == m.p["P1"]["life"].count(HIDDEN) == 0


def test_402_a_card_played_from_the_unseen_hand_of_a_setup_left_out_is_an_opening_row():
    """The analytics rows: the cards P1 plays from his unseen hand (known where he plays them) are ``opening`` rows
    (turn 0), the four of the setup the log left out; none is ``late`` (a card played as written, 301.1)."""
    from zx_events.games.zx import rows

    _, events = _setup_left_out()
    r = rows.MatchRows("oid", 1, rows.new_buffers())
    r.started(dict(vars(events[0])), None)
    for seq, e in enumerate(events[1:], 2):
        r.feed(seq, rows.event_topic(type(e).__name__), dict(vars(e)))
    r.close()
    drawn = [(turn, card, source) for _, _, _, turn, pl, card, source in r.buf["draws"]
             if pl == "P1" and source in ("opening", "late")]
    assert sorted(drawn) == [(0, c, "opening") for c in sorted(["G01-008", "G01-007", "G01-013", "N01-002"])]


def test_402_a_setup_written_late_names_the_unknown_cards_of_the_setup_done_unseen():
    """P1's setup written after P1 has already taken a Life card in turn 1 (line 10 of the legal log, his setup at
    line 11 now): the one 402 at the turn; the Life card G01-010 was one of his unknown Life cards, known there, and
    the late setup names the rest (not G01-010 again). It was applied as a whole where written: the Life card before
    it was 301.1, and so on. The match ends as the legal log's, every zone alike."""
    lines = LONG.read_text().splitlines()
    setup = lines.pop(1)
    assert lines[9] == '{"do": "life", "by": "P1", "card": "G01-010", "ignite": {"square": "b1"}}'
    lines.insert(10, setup)
    (log,) = parse_log("\n".join(lines) + "\n", "late.zxlog")
    c = build_match(log, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("402", 3)]
    (legal,) = parse_log(LONG.read_text(), LONG.name)
    a = build_match(legal).match
    assert c.match.outcome == a.outcome
    for pl in ("P1", "P2"):
        for zone in ("deck", "hand", "life", "charge", "trash"):
            assert sorted(c.match.p[pl][zone]) == sorted(a.p[pl][zone]), (pl, zone)
        assert sorted(r["code"] for r in c.match.p[pl]["resource"]) == sorted(r["code"] for r in a.p[pl]["resource"])
    events = c.match.collect_events()
    named = next(e for e in events if type(e).__name__ == "CardsDrawn" and (e.rec or {}).get("do") == "setup")
    assert (named.line, named.zone, sorted(named.cards)) == (11, "hand", sorted(["G01-008", "G01-007", "G01-013",
                                                                                 "N01-002"]))


def test_501_3_first_turn_is_the_first_players():
    rejects([*SETUP, {"do": "turn", "by": "P2"}], "501.3", 4)


def test_501_3_a_header_first_contradicted_by_the_log_is_one_finding_and_the_log_order_followed():
    """The header says P2 goes first, the log's turn 1 is P1's (and its turns alternate from there): one 501.3 at
    the `turn 1` record, naming the header, and the log's order is followed (it was the header's: turn 1 taken as
    P2's, then every record of P1's in it and of P2's in turn 2 charged, 504.3, 506, 503.3, 602.1, 501.3 at each
    `turn` and `end`: 19 findings in a whole match)."""
    hdr = header(first="P2")
    recs = [*BOARD, {"do": "resource", "by": "P1", "card": "R01-005"}, {"do": "end", "by": "P1"},
            {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-005", "U01-006"]},
            {"do": "end", "by": "P2"}]
    c = run(recs, strict=False, hdr=hdr)
    assert [(v.rule, v.line, v.player) for v in c.violations] == [("501.3", 4, "P1")]
    assert c.violations[0].message == ("turn 1 is P1's: the header says P2 goes first (turn 1 begins at the next "
                                       "record, the turn of the player who acts first)")
    assert (c.match.turn, c.match.active) == (4, "P2")
    err = rejects(recs, "501.3", 4, hdr=hdr)  # strict: stops there
    assert "the header says P2 goes first" in err.message


def test_501_3_a_turn_1_record_under_the_wrong_seat_is_one_finding_and_the_headers_order_followed():
    """The header right, the `turn 1` record under the other player's seat: the same one 501.3, and the turn is the
    header's first player's, who acts first after it (the records of the log's first player decide whose it is)."""
    recs = [*BOARD, {"do": "end", "by": "P1"}]
    recs[2] = {"do": "turn", "by": "P2"}
    c = run(recs, strict=False)
    assert [(v.rule, v.line, v.player) for v in c.violations] == [("501.3", 4, "P2")]
    assert (c.match.turn, c.match.active, c.match.phase) == (3, "P1", "over")


def test_501_3_a_later_turn_by_the_wrong_player_is_still_taken_as_the_turn_players():
    """With the header's first player followed at turn 1, a later `turn` by the wrong player is the finding it was:
    501.3 'turn 3 is P1's, not P2's', the turn taken as P1's."""
    recs = [*BOARD[:-2], {"do": "turn", "by": "P2"}, BOARD[-1], {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line, v.message) for v in c.violations] == [("501.3", line_of(recs, len(recs) - 3),
                                                                    "turn 3 is P1's, not P2's")]
    assert (c.match.turn, c.match.active) == (3, "P1")


def test_501_3_turns_alternate_and_end():
    recs = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "turn", "by": "P2"}]
    err = rejects(recs, "501.3", last(recs))
    assert "has not ended" in err.message


def test_501_3_a_turn_not_ended_is_its_players_finding():
    """P2's `end` of turn 2 left out: the 501.3 'turn 2 of P2 has not ended' at P1's `turn` record is P2's (it was
    filed under P1, the writer of the record where it was found), as X610Z files it."""
    recs = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-005", "U01-006"]}, {"do": "turn", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line, v.player) for v in c.violations] == [("501.3", last(recs), "P2")]
    assert c.violations[0].message == "turn 2 of P2 has not ended (no end record)"


def test_501_3_turn_field_must_match():
    recs = [*SETUP, {"do": "turn", "by": "P1", "turn": 2}]
    rejects(recs, "501.3", last(recs))


def test_501_3_a_repeated_turn_record_is_one_finding_and_skipped():
    """A `turn` record written twice: one 501.3, the second skipped and the turn going on (digest.7: three
    findings on its line, the turn number, the turn player, and 'turn 3 of P1 has not ended')."""
    turn, draw = BOARD[-2], BOARD[-1]
    for again in ({"do": "turn", "by": "P1", "turn": 3}, {"do": "turn", "by": "P1"}):
        recs = [*BOARD[:-1], again, draw, {"do": "resource", "by": "P1", "card": "R01-005"}]
        err = rejects(recs, "501.3", line_of(recs, len(BOARD) - 1))
        began = line_of(recs, len(BOARD) - 2)
        assert err.message == f"a second turn record for turn 3 of P1 (it began at line {began})"
        c = run(recs, strict=False)
        assert [(v.rule, v.line) for v in c.violations] == [("501.3", line_of(recs, len(BOARD) - 1))]
        assert (c.match.turn, c.match.active) == (3, "P1") and len(c.match.p["P1"]["resource"]) == 4
    assert turn == {"do": "turn", "by": "P1"}
    recs = [*BOARD, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P1", "turn": 3}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-005", "U01-006"]}]  # after its end, by its number
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("501.3", line_of(recs, len(BOARD) + 1))]
    assert (c.match.turn, c.match.active) == (4, "P2")


def test_501_3_nothing_after_the_game_ended():
    recs = [*BOARD, {"do": "concede", "by": "P2"}, {"do": "end", "by": "P1"}]
    rejects(recs, "501.3", last(recs))


def test_501_3_one_result_record_after_the_game_ended():
    """The result is the one record allowed after the end, once: a second one (the same or another
    reason) passed as confirming the result again."""
    ended = [*BOARD, {"do": "concede", "by": "P2"}, {"do": "result", "by": "P1", "winner": "P1", "reason": "concede"}]
    assert run(ended).match.outcome == {"winner": "P1", "reason": "concede"}
    for second in ({"do": "result", "by": "P1", "winner": "P1", "reason": "concede"},
                   {"do": "result", "by": "P2", "winner": "P1", "reason": "life"}):
        recs = [*ended, second]
        err = rejects(recs, "501.3", last(recs))
        assert f"a second result record after the game has ended (the result is at line {last(ended)})" in err.message
    lenient = run([*ended, second], strict=False)  # kept as played: the violation, and one result
    assert [v.rule for v in lenient.violations] == ["501.3"]
    assert sum(type(e).__name__ == "ResultRecorded" for e in lenient.match.pending_events) == 1


def test_502_reboot_phase_reboots_the_turn_players_square():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2,
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"}]
    assert run(recs[:-1]).match.sq["b2"]["sleep"] is True
    m = run(recs).match
    assert m.sq["b2"]["sleep"] is True  # P2's Reboot Phase does not reboot P1's cards
    m = run([*recs, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]}, {"do": "end", "by": "P2"},
             {"do": "turn", "by": "P1"}]).match
    assert m.sq["b2"]["sleep"] is False


def test_503_3_draw_two():
    recs = [*BOARD[:-1], {"do": "draw", "by": "P1", "cards": ["R01-005"]}, {"do": "end", "by": "P1"}]
    err = rejects(recs, "503.3", last(recs))
    assert "drew 1 card" in err.message
    recs = [*BOARD[:-1], {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014", "R01-013"]}]
    rejects(recs, "503.3", last(recs))


def test_503_3_a_short_draw_names_the_draw_record():
    """The shortfall is known when the phase is left (a Reload may split the draw), so it is reported at
    the record leaving it; the message names the draw record, which a judge looks for (it did not)."""
    recs = [*BOARD[:-1], {"do": "draw", "by": "P1", "cards": ["R01-005"]}, {"do": "resource", "by": "P1", "card": "R01-005"}]
    err = rejects(recs, "503.3", last(recs))
    assert err.message == f"P1 drew 1 card in the Draw Phase, needs exactly 2 (the draw at line {last(recs) - 1})"
    c = run(recs, strict=False)
    assert [(v.rule, v.line, v.message[-21:]) for v in c.violations] == \
        [("503.3", last(recs), f"(the draw at line {last(recs) - 1})")]


def test_503_3_a_short_draw_phase_is_one_violation():
    # one card drawn of two; the record that leaves the Draw Phase puts the card left out into Resource: it was the
    # draw's second card, unknown in the hand from there (digest.8: it was 301.1 too, not applied, the phase left open)
    recs = [*BOARD[:-1], {"do": "draw", "by": "P1", "cards": ["R01-005"]},
            {"do": "resource", "by": "P1", "card": "R01-014"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("503.3", last(recs) - 1)]
    assert c.match.phase == "over" and c.match.p["P1"]["resource"][-1]["code"] == "R01-014"


def test_503_3_a_draw_left_out_is_a_short_draw_at_the_end_of_the_turn():
    """No draw record at all: a record of a later phase is refused as before the draw (digest.6), and the turn's
    end, which leaves the Draw Phase, is the short draw (503.3), once."""
    recs = [*BOARD[:-1], {"do": "resource", "by": "P1", "card": "R01-005"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("504.3", last(recs) - 1), ("503.3", last(recs))]
    assert c.violations[1].message == "P1 drew 0 cards in the Draw Phase, needs exactly 2"
    assert c.match.phase == "over"


def test_503_3_a_draw_left_out_before_two_records_is_one_short_draw_at_the_second():
    """No draw record, and two records of later phases: the first is refused as before the draw (the draw could
    come next), the second finds the draw left out: the short draw (503.3) there, once, the record applied,
    and nothing more to the end of the turn (each record up to the end was refused as before the draw)."""
    recs = [*BOARD[:-1], {"do": "resource", "by": "P1", "card": "R01-005"},
            {"do": "resource", "by": "P1", "card": "R01-004"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("504.3", last(recs) - 2), ("503.3", last(recs) - 1)]
    assert c.violations[1].message == "P1 drew 0 cards in the Draw Phase, needs exactly 2"
    assert "R01-004" in [r["code"] for r in c.match.p["P1"]["resource"]] and c.match.phase == "over"


def test_503_3_with_deck_and_trash_empty_the_draw_phase_draws_what_is_left():
    """No Reload refills an empty deck from an empty Trash and running out is no loss (docs/rules.md):
    the Draw Phase draws the one card left, or none, and the turn goes on."""
    deck = Counter(deck_by_name("Red Dragons").deck)
    used = Counter(SETUP[0]["hand"] + SETUP[0]["life"] + SETUP[0]["resource"] + ["R01-005", "R01-014"])
    rest = sorted((deck - used).elements())
    gone = [{"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": c, "from": "deck", "to": "remove"}
            for c in rest[1:]]  # P1's deck down to one card; P1's Trash is empty
    to_turn_5 = [{"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
                 {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-009"]}, {"do": "end", "by": "P2"},
                 {"do": "turn", "by": "P1"}]
    m = run([*BOARD, *gone, *to_turn_5, {"do": "draw", "by": "P1", "cards": rest[:1]}, {"do": "end", "by": "P1"}]).match
    assert m.p["P1"]["deck"] == m.p["P1"]["trash"] == [] and m.drawn == 1 and m.phase == "over"
    last_card = {**gone[0], "card": rest[0]}
    m = run([*BOARD, *gone, last_card, *to_turn_5, {"do": "end", "by": "P1"}]).match
    assert m.drawn == 0 and m.phase == "over" and m.outcome is None
    recs = [*BOARD, *gone, *to_turn_5, {"do": "end", "by": "P1"}]  # the card left is owed
    err = rejects(recs, "503.3", last(recs))
    assert err.message == "P1 drew 0 cards in the Draw Phase, needs 1, all its deck and Trash hold"


def test_503_3a_no_draw_on_the_first_players_first_turn():
    recs = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]}]
    rejects(recs, "503.3a", last(recs))


def test_504_3_one_resource_a_turn():
    recs = [*BOARD, {"do": "resource", "by": "P1", "card": "R01-004"}, {"do": "resource", "by": "P1",
                                                                        "card": "R01-005"}]
    rejects(recs, "504.3", last(recs))


def test_504_3_no_resource_after_the_main_phase_began():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"},
            {"do": "resource", "by": "P1", "card": "R01-004"}]
    rejects(recs, "504.3", last(recs))


def test_505_3a_ignition_needs_a_charge_card():
    recs = [*BOARD, {"do": "ignition", "by": "P1", "charge": "R01-001", "revealed": "R01-013"}]
    rejects(recs, "505.3a", last(recs))


def test_505_3_ignition_plays_a_revealed_ig_zx_free():
    recs = [*PLAYER_HIT, {"do": "life", "by": "P2", "card": "U01-005"},
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-007"]},
            {"do": "ignition", "by": "P2", "charge": "U01-003", "revealed": "U01-010", "play": {"square": "c3"}}]
    m = run(recs).match
    assert m.sq["c3"]["code"] == "U01-010" and m.p["P2"]["trash"] == ["U01-003"]


def test_505_3a_only_an_ig_card_is_played_free():
    recs = [*PLAYER_HIT, {"do": "life", "by": "P2", "card": "U01-005"},
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-007"]},
            {"do": "ignition", "by": "P2", "charge": "U01-003", "revealed": "U01-008", "play": {"square": "c3"}}]
    rejects(recs, "505.3a", last(recs))


def test_505_3_unplayed_revealed_card_goes_to_trash():
    recs = [*PLAYER_HIT, {"do": "life", "by": "P2", "card": "U01-005"},
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-007"]},
            {"do": "ignition", "by": "P2", "charge": "U01-005", "revealed": "U01-008"}]
    m = run(recs).match
    assert m.p["P2"]["trash"] == ["U01-005", "U01-008"] and m.p["P2"]["charge"] == ["U01-003"]


def test_507_end_phase_discards_to_six():
    draws = [{"do": "effect", "by": "P1", "source": "R01-014", "op": "draw",
              "cards": ["R01-006", "R01-007", "R01-008", "R01-013"]}]
    recs = [*BOARD, *draws, {"do": "end", "by": "P1"}]
    err = rejects(recs, "309.2a", last(recs))
    assert "exactly 1" in err.message
    m = run([*BOARD, *draws, {"do": "end", "by": "P1", "discard": ["R01-004"]}]).match
    assert len(m.p["P1"]["hand"]) == 6 and m.p["P1"]["trash"] == ["R01-004"]


# ---------------------------------------------------------------- playing cards
def test_805_cost_needs_enough_reboot_resource():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002"], "square": "c2"}]
    err = rejects(recs, "805", last(recs))
    assert err.message == "R01-005 costs 3, 2 Resource cards paid"


def test_805_sleep_resource_does_not_pay():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "c2"},
            {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"], "square": "c1"}]
    err = rejects(recs, "805", last(recs))
    assert "R01-001 in P1's Resource is Sleep" in err.message


def test_301_1_one_reboot_resource_card_named_twice_pays_once():
    """Two copies of one code named, one held, Reboot: the message said the card "is Sleep", a card a
    judge would look for and not find."""
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-001", "R01-002"],
                     "square": "c2"}]
    err = rejects(recs, "301.1", last(recs))
    assert err.message == "R01-001 is paid 2 times, P1's Resource holds one"


def test_204_6_cost_needs_a_card_of_the_colour():
    # Black Reapers with two colourless N01-001 as its Resource: a black card cannot be paid
    hdr = header()
    hdr["players"]["P1"] = deck_by_name("Black Reapers").to_header_player("Kuro")
    p1 = {"do": "setup", "by": "P1", "hand": ["K01-001", "K01-002", "K01-003", "K01-004"],
          "life": ["K01-010", "K01-011", "K01-012", "K01-013"], "resource": ["N01-001", "N01-001"]}
    recs = [p1, SETUP[1], {"do": "turn", "by": "P1"},
            {"do": "play", "by": "P1", "card": "K01-002", "pay": ["N01-001"], "square": "a1"}]
    err = rejects(recs, "204.6", last(recs), hdr=hdr)
    assert err.message == "none of the paid cards is black, a colour of K01-002"
    ok = [*recs[:-1], {"do": "play", "by": "P1", "card": "K01-001", "pay": [], "square": "a1"}]
    assert run(ok, hdr=hdr).match.sq["a1"]["code"] == "K01-001"  # cost 0 needs no colour


def test_806_not_on_the_opponents_player_square():
    recs = [*BOARD, {"do": "effect", "by": "P2", "source": "U01-014", "op": "move", "square": "b3",
                     "from": "square", "to": "hand"},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "b3"}]
    rejects(recs, "806", last(recs))


def test_806_not_on_an_opponent_zx():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "a2"}]
    rejects(recs, "806", last(recs))


def test_806_not_on_an_opponents_face_down_card_which_is_named_no_zx():
    # P2's face-down card is no Z/X (303.6) but still P2's card on c2: no play puts it away; the message
    # does not call it a Z/X nor show its code, which only P2 may see (301.3b)
    recs = [*BOARD, {"do": "effect", "by": "P2", "source": "U01-014", "op": "move", "card": "U01-002",
                     "from": "hand", "to": "square", "dest": "c2", "owner": "P2", "face": "down"},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "c2"}]
    err = rejects(recs, "806", last(recs))
    assert err.message == "c2 holds P2's face-down card"


def test_806_not_on_your_own_sleep_zx_but_onto_a_reboot_one():
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2,
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "b2"}]
    rejects(recs, "806", last(recs))
    m = run([*BOARD, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "b2"}]).match
    assert m.sq["b2"]["code"] == "R01-004" and m.p["P1"]["trash"] == ["R01-001"]


def _move(frm: str, dest: str) -> dict:
    return {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "square": frm, "from": "square",
            "to": "square", "dest": dest}


def test_806_an_effects_move_square_to_square_is_held_to_the_placement_of_a_play():
    """An effect moving a Z/X from Square to Square: not onto an opponent's Z/X, nor the opponent's Player Square,
    nor your own Sleep Z/X, as a play (806). It was not checked (digest.11): P2's U01-001 on a2 went to P2's Trash
    with no event naming it, and the battle on it fizzled."""
    recs = [*BOARD, _move("b2", "a2")]
    err = rejects(recs, "806", last(recs))
    assert err.message == ("a2 holds P2's Z/X U01-001: R01-001 on b2 is not moved there (an effect's move is held "
                           "to the placement of a play)")
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("806", last(recs))]
    assert c.match.sq["a2"]["code"] == "U01-001" and c.match.sq["b2"]["code"] == "R01-001"
    assert c.match.p["P2"]["trash"] == []
    err = rejects([*BOARD, _move("b2", "b3")], "806")  # the opponent's Player Square (his Z/X on it too)
    assert err.message.startswith("b3 is P2's Player Square: R01-001 on b2 is not moved there")
    recs = [*BOARD, {"do": "effect", "by": "P2", "source": "U01-014", "op": "move", "square": "b3", "from": "square",
                     "to": "hand"}, _move("b2", "b3")]
    rejects(recs, "806", last(recs))  # empty, it is still his
    recs = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2, _move("a1", "b2")]
    err = rejects(recs, "806", last(recs))  # your own Sleep Z/X (the attacker)
    assert err.message.startswith("b2 holds P1's own Sleep Z/X R01-001")
    # an opponent's Z/X moved onto your Z/X: the placement is the moved card's controller's
    rejects([*BOARD, {**_move("a2", "a1"), "by": "P2", "source": "U01-014"}], "806")
    # from a zone too: P2's card put onto P1's Reboot Z/X by P1's effect (it was held to P1's placement: R01-002, his
    # own Reboot Z/X, went to the Trash under P2's card)
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": "U01-002", "from": "hand",
                     "to": "square", "owner": "P2", "dest": "a1"}]
    assert rejects(recs, "806", last(recs)).message == ("a1 holds P1's Z/X R01-002: U01-002 from P2's hand is not put "
                                                        "there (an effect's move is held to the placement of a play)")


def test_806_an_effects_move_onto_your_own_reboot_zx_replaces_it_and_says_so():
    """Onto your own Reboot Z/X, the one there goes to the Trash, as a play onto it (the digest), and the event's
    sentence says so (it went without a word)."""
    from zx_events import games

    recs = [*BOARD, _move("b2", "a1")]
    c = run(recs)
    assert c.match.sq["a1"]["code"] == "R01-001" and c.match.sq["b2"] is None
    assert c.match.p["P1"]["trash"] == ["R01-002"]
    (applied,) = [e for e in c.match.pending_events if type(e).__name__ == "EffectApplied"]
    before = run(recs[:-1]).match
    fields = {k: getattr(applied, k) for k in ("player", "source", "op", "args")}
    zx = games.get("zx")
    assert zx.narrate("EffectApplied", fields, before=before) == \
        "P1 resolves R01-014: R01-001 on b2 goes to a1, replacing R01-002 there, which goes to P1's Trash"
    play = [*BOARD, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "b2"}]
    (played,) = [e for e in run(play).match.pending_events if type(e).__name__ == "CardPlayed"][-1:]
    fields = {k: getattr(played, k) for k in ("player", "card", "zone", "pay", "kind", "square", "on", "base", "extra")}
    assert zx.narrate("CardPlayed", fields, before=run(play[:-1]).match).endswith(
        "onto b2 (Power 2500), replacing R01-001 there, which goes to P1's Trash, paying R01-001")


@pytest.mark.parametrize("strict", [True, False])
def test_301_1_an_effect_record_missing_a_field_its_op_needs_is_a_format_error_not_a_rule(strict):
    """A move to the Square with no ``dest`` (now in the schema), a move of a card from the Square with no
    ``square``, a sleep with neither ``square`` nor ``resource`` (the schema's already): the log's format error at
    its line, as a missing key the schema names is (digest.11: each was 301.1, a zone rule it does not break)."""
    from zx_events.errors import FormatError

    base = {"do": "effect", "by": "P1", "source": "R01-014"}
    for bad, says in (({**base, "op": "move", "square": "b2", "from": "square", "to": "square"},
                       "an effect move record: a move to the Square (to: square) needs dest (an extension), the "
                       "Square it goes to"),  # (the log's schema)
                      ({**base, "op": "move", "card": "R01-001", "from": "square", "to": "trash"},
                       "missing required key 'square' in an effect record (an effect on a card on Square names its "
                       "Square)"),
                      ({**base, "op": "sleep"}, "an effect sleep record needs exactly one of 'square' or 'resource'")):
        recs = [*BOARD, bad]
        with pytest.raises(FormatError) as info:
            run(recs, strict=strict)
        assert info.value.line == last(recs) and says in str(info.value)
        assert str(info.value).startswith(f"t.zxlog:{last(recs)}: format: ")


def test_506_one_extra_from_dynamis_a_turn():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "EX-R02", "from": "dynamis", "pay": ["R01-001", "R01-002"]},
            {"do": "play", "by": "P1", "card": "EX-R02", "from": "dynamis", "pay": ["R01-009"]}]
    m = run(recs[:-1]).match
    assert {"code": "EX-R02", "up": True} in m.p["P1"]["dynamis"]  # an EV EX returns to Dynamis face-up
    rejects(recs, "506", last(recs))


def test_506_an_event_of_the_non_turn_player_outside_a_battle():
    """Events are played in your own Main Phase or in a Battle Event Step (603.1b governs only that)."""
    recs = [*BOARD, {"do": "play", "by": "P2", "card": "U01-014", "pay": []}]
    err = rejects(recs, "506", last(recs))
    assert err.message == "P2 plays the Event U01-014 in P1's turn outside a Battle Event Step"


def test_603_1b_one_extra_from_dynamis_a_turn_in_battle():
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "EX-R02", "from": "dynamis", "pay": ["R01-001", "R01-002"]},
            {"do": "attack", "by": "P1", "from": "b2", "target": "a2"},
            {"do": "play", "by": "P1", "card": "EX-R02", "from": "dynamis", "pay": []}]
    rejects(recs, "603.1b", last(recs))


# ---------------------------------------------------------------- rule effects
def test_604_3b_life_card_goes_to_charge():
    m = run([*PLAYER_HIT, {"do": "life", "by": "P2", "card": "U01-005"}]).match
    assert len(m.p["P2"]["life"]) == 3 and "U01-005" in m.p["P2"]["charge"]


def test_1102_life_recovery_when_life_not_higher():
    recs = [*PLAYER_HIT, {"do": "life", "by": "P2", "card": "U01-011", "ignite": {"square": "c3"}},
            {"do": "end", "by": "P1"}]
    err = rejects(recs, "1102", last(recs))
    assert "Life Recovery" in err.message
    recs = [*recs[:-1], {"do": "effect", "by": "P2", "source": "U01-011", "op": "recover", "card": "U01-009"},
            {"do": "end", "by": "P1"}]
    m = run(recs).match
    assert len(m.p["P2"]["life"]) == 4 and m.sq["c3"]["code"] == "U01-011"


def test_1103_void_bringer_puts_a_square_card_into_trash():
    p2 = copy.deepcopy(SETUP[1])
    p2["life"] = ["U01-016", "U01-013", "U01-005", "U01-006"]
    recs = [SETUP[0], p2, *PLAYER_HIT[2:], {"do": "life", "by": "P2", "card": "U01-016", "ignite": {}},
            {"do": "effect", "by": "P2", "source": "U01-016", "op": "move", "square": "c2", "from": "square",
             "to": "trash"}, {"do": "end", "by": "P1"}]
    m = run(recs).match
    assert m.sq["c2"] is None and "R01-005" in m.p["P1"]["trash"]
    rejects([*recs[:-2], {"do": "end", "by": "P1"}], "1103", len(recs) - 1 + 1)


def test_902_reload_when_the_deck_runs_out():
    rest, drawn_out = p1_deck_drawn_out()
    recs = [*BOARD, *drawn_out,
            {"do": "end", "by": "P1", "discard": rest[: len(rest) + 2 - 6]}]
    rejects(recs, "902", last(recs))
    recs = [*recs[:-1], {"do": "reload", "by": "P1", "life": "R01-010"}]
    m = run(recs).match
    assert len(m.p["P1"]["deck"]) == 1 and m.p["P1"]["charge"] == ["R01-010"] and len(m.p["P1"]["life"]) == 3


def test_902_no_reload_while_the_deck_has_cards():
    rejects([*BOARD, {"do": "reload", "by": "P1", "life": "R01-010"}], "902", line_of(BOARD, len(BOARD)))


def test_loss_at_zero_life_and_result_must_agree():
    drain = [{"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": c, "from": "life",
              "to": "charge", "owner": "P2"} for c in ("U01-011", "U01-013", "U01-006")]
    recs = [*PLAYER_HIT[:-5], *drain, *PLAYER_HIT[-5:], {"do": "charge_excess", "by": "P2", "trash": ["U01-003"]}]
    recs = [*recs[:-1], {"do": "life", "by": "P2", "card": "U01-005"}]
    m = run(recs).match
    assert m.outcome == {"winner": "P1", "reason": "life"}
    assert run([*recs, {"do": "result", "by": "P1", "winner": "P1", "reason": "life"}]).match.outcome["winner"] == "P1"
    bad = [*recs, {"do": "result", "by": "P1", "winner": "P2", "reason": "life"}]
    rejects(bad, "101.2", last(bad))


def test_101_4_concession_ends_the_game():
    m = run([*BOARD, {"do": "concede", "by": "P2"}]).match
    assert m.outcome == {"winner": "P1", "reason": "concede"}


def test_lenient_mode_records_every_violation_and_goes_on():
    recs = [*BOARD[:-1], {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014", "R01-013"]},
            {"do": "resource", "by": "P1", "card": "R01-004"}, {"do": "resource", "by": "P1", "card": "R01-013"},
            {"do": "attack", "by": "P1", "from": "a1", "target": "b3"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    got = [(v.line, v.rule) for v in c.violations]
    n = line_of(recs, len(BOARD) - 1)  # the draw of three
    assert got == [(n, "503.3"), (n + 2, "504.3"), (n + 3, "602.1b")]
    assert [v["rule"] for v in c.match.violations] == ["503.3", "504.3", "602.1b"]
    assert c.match.phase == "over"


def test_505_3_only_the_turn_player_ignites_and_only_before_the_main_phase():
    """505.3 was reported (the non-turn player's Ignition, or one after the Ignition Phase) and asserted
    by no test."""
    recs = [*BOARD, {"do": "ignition", "by": "P2", "charge": "U01-005", "revealed": "U01-008"}]
    err = rejects(recs, "505.3", last(recs))
    assert "P2" in err.message
    late = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"},  # (the Main Phase began)
            {"do": "ignition", "by": "P1", "charge": "R01-001", "revealed": "R01-013"}]
    rejects(late, "505.3", last(late))


def test_501_3_503_3_602_1_records_before_the_first_turn_say_so():
    """No turn player before turn 1: the message says so (it printed Python's None). By P2: the first player's
    record there begins turn 1, its turn record left out (501.3, test_cascades)."""
    for rec, rule, message in (
            ({"do": "draw", "by": "P2", "cards": ["U01-003"]}, "503.3", "P2 acts before the first turn (no turn record yet)"),
            ({"do": "resource", "by": "P2", "card": "U01-003"}, "504.3", "P2 acts before the first turn (no turn record yet)"),
            ({"do": "end", "by": "P2"}, "501.3", "P2 ends a turn before the first turn (no turn record yet)"),
            ({"do": "attack", "by": "P2", "from": "b3", "target": "b2"}, "602.1",
             "P2 declares a battle before the first turn (no turn record yet)")):
        assert rejects([*SETUP, rec], rule, 4).message == message


def test_506_an_event_in_the_draw_phase_before_the_draw():
    """An Event before the draw breaks 506 at its line, as a startup ability there does; the draw after it is
    no violation (it was a false 503.3 short draw at the Event, then the draw refused as after the phase)."""
    from zx_events.games.zx.rules import title

    recs = [*BOARD[:8], {"do": "play", "by": "P2", "card": "U01-014", "pay": []}, *BOARD[8:]]
    at = line_of(recs, 8)
    err = rejects(recs, "506", at)
    assert err.message == ("the Event U01-014 played in the Draw Phase, before the draw: Events are played in the "
                           "Main Phase")
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("506", at)]
    assert "Events" in title("506") and "startup abilities" in title("506")  # the audit's title of these


# the turn player's records of a later phase written before the draw record of turn 3 (digest.6): each was a short
# draw (503.3) at its line, the draw after it then refused as after the Draw Phase, and false 301.1/602.1a after;
# since digest.7 each is applied as played (it was skipped, and a record depending on it was charged)
BEFORE_DRAW = {
    "506": ({"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-009"], "square": "c1"},
            "R01-004 played in the Draw Phase, before the draw: cards other than Events are played in your own "
            "Main Phase"),
    "504.3": ({"do": "resource", "by": "P1", "card": "R01-004"},
              "R01-004 put into Resource in the Draw Phase, before the draw: a card is put into Resource in the "
              "Resource Phase"),
    "505.3": ({"do": "ignition", "by": "P1", "charge": "R01-001", "revealed": "R01-013", "play": {"square": "c1"}},
              "an Ignition in the Draw Phase, before the draw: Ignition is performed in the Ignition Phase"),
    "602.1": ({"do": "attack", "by": "P1", "from": "b2", "target": "a2"},
              "a battle declared in the Draw Phase, before the draw: a battle is declared in the Main Phase"),
}


@pytest.mark.parametrize("rule", BEFORE_DRAW)
def test_506_504_3_505_3_602_1_a_record_in_the_draw_phase_before_the_draw(rule):
    """Refused at its own line with the rule of its phase, and applied as played (digest.7); the draw on the
    next line is no violation, and the turn goes on from it: a Resource record after the draw is legal (but
    after a Resource record before it, the second of the turn)."""
    rec, message = BEFORE_DRAW[rule]
    recs = [*BOARD[:-1], rec, BOARD[-1]]
    at = line_of(recs, len(recs) - 2)
    assert rejects(recs, rule, at).message == message
    resource = {"do": "resource", "by": "P1", "card": "R01-005"}  # (the draw closed the battle's Event Step)
    c = run([*recs, *([] if rule == "504.3" else [resource]), {"do": "end", "by": "P1"}], strict=False)
    assert [(v.rule, v.line, v.message) for v in c.violations] == [(rule, at, message)]
    m = c.match
    assert m.drawn == 2 and m.phase == "over" and ("R01-005" in [r["code"] for r in m.p["P1"]["resource"]]) != (
        rule == "504.3")
    if rule == "506":
        assert m.sq["c1"]["code"] == "R01-004"
    if rule == "504.3":
        assert "R01-004" in [r["code"] for r in m.p["P1"]["resource"]]
    if rule == "602.1":
        assert m.sq["b2"]["sleep"] is True and m.sq["a2"] is None  # the battle was fought: U01-001 destroyed


def test_505_3_an_ignition_with_a_charge_card_before_the_draw():
    """An Ignition that would be legal in its phase (a Charge card, an IG Z/X played free) is 505.3 before the
    draw, and applied (digest.7); the draw is applied, and the same Ignition after the draw is legal."""
    turn4 = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2,
             {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"}]  # U01-001 destroyed: P2's Charge
    ignite = {"do": "ignition", "by": "P2", "charge": "U01-001", "revealed": "U01-010", "play": {"square": "a3"}}
    draw = {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-009"]}
    recs = [*turn4, ignite, draw]
    err = rejects(recs, "505.3", last(recs) - 1)
    assert err.message == "an Ignition in the Draw Phase, before the draw: Ignition is performed in the Ignition Phase"
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("505.3", last(recs) - 1)]
    assert c.match.sq["a3"]["code"] == "U01-010" and c.match.p["P2"]["charge"] == []
    assert run([*turn4, draw, ignite]).match.sq["a3"]["code"] == "U01-010"


def test_503_3_a_record_after_a_short_draw_record_is_a_short_draw():
    """After a draw record the Draw Phase is not 'before the draw': a record leaving it with a card still owed is
    the short draw (503.3), named with the draw's line, and is applied; an Event too (digest.5 called it 506)."""
    for rec in ({"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-009"], "square": "c1"},
                {"do": "play", "by": "P1", "card": "R01-014", "pay": []}):
        recs = [*BOARD[:-1], {"do": "draw", "by": "P1", "cards": ["R01-014"]}, rec]
        err = rejects(recs, "503.3", last(recs))
        assert err.message == f"P1 drew 1 card in the Draw Phase, needs exactly 2 (the draw at line {last(recs) - 1})"
        c = run(recs, strict=False)
        assert [v.rule for v in c.violations] == ["503.3"] and rec["card"] not in c.match.p["P1"]["hand"]


@pytest.mark.parametrize("rec", [
    {"do": "play", "by": "P2", "card": "U01-002", "pay": ["U01-004"], "square": "c3"},
    {"do": "resource", "by": "P2", "card": "U01-002"},
    {"do": "ignition", "by": "P2", "charge": "U01-001", "revealed": "U01-008"},
    {"do": "attack", "by": "P2", "from": "b3", "target": "b2"},
    {"do": "play", "by": "P2", "card": "U01-014", "pay": []},
    {"do": "effect", "by": "P2", "source": "b3", "op": "counter", "delta": 1, "startup": True},
])
def test_506_504_3_505_3_602_1_the_non_turn_players_record_before_the_draw(rec):
    """The non-turn player's record there is refused at its line for being out of turn, once (a startup ability
    was also called before the draw, digest.5); the draw is no violation."""
    recs = [*BOARD[:-1], rec, BOARD[-1]]
    c = run(recs, strict=False)
    assert [(v.line, v.player) for v in c.violations] == [(last(recs) - 1, "P2")] and c.match.drawn == 2


def test_503_3_an_effect_before_the_draw_is_no_violation():
    """An effect's step (a triggered ability's, not a startup ability) is not a record of a later phase: the
    Draw Phase still takes its draw after it."""
    recs = [*BOARD[:-1], {"do": "effect", "by": "P1", "source": "R01-014", "op": "counter", "delta": 1}, BOARD[-1]]
    assert run(recs).match.drawn == 2
