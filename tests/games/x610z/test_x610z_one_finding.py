"""digest.8: one mistake, one finding (docs/rules-x610z.md). A setup, a draw, an `end` or a `turn` the audit refused
without applying it charged the records after it: a setup on a dot that is not a Starting Dot made the other player's
legal setup 105.2a and every later record 105.2a or 700.1 (153 findings in a simulated log); a draw logged after the
first action was refused, and the end of the turn was 502.5; an `end` by the other player, or a `turn` while the turn
had not ended, left the turn running, and each record of the next turn was charged (700.1, 702.1, 403.2, ...). And
one record gave two findings for one fact (206.1a twice, 206.2a and 702.2, 402.10f and 206.1e). Now such a record is
applied as played, or as what it has to be, and reported once; a clause is reported once per record."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from zx_events.games.x610z.setup import board_for, catalog_for, open_match
from zx_events.games.x610z.sim import simulate
from zx_events.games.x610z.views import build_view, redact_record
from zx_events.seats import HIDDEN

from x610z_builder import BATTLE, P1_HAND, P2_HAND, SETUP, T1, deck_drawn_out, header, legal, pp, r, refused, run
from x610z_support import hidden_codes, play, visible_codes

INVALID = Path(__file__).resolve().parents[3] / "examples" / "x610z" / "invalid"


def audit(records: list[dict]):
    """Lenient mode (the audit, --accept-violations): the match and its violations as (line, player, rule)."""
    m, ref = run(records, strict=False)
    return m, [(v.line, v.player, v.rule) for v in ref.found]


def at(records: list[dict]) -> int:
    """The line of the last record (the header is line 1)."""
    return len(records) + 1


def two_turns(first: str = "P1") -> list[dict]:
    """Turns 1 and 2 with a draw, a Boost Crystal and an end each (P1 holds 7 cards at his end, P2 7)."""
    second = "P2" if first == "P1" else "P1"
    return [r("turn", first), r("draw", first, card="A1-010"), r("crystal", first, card="A1-011"), r("end", first),
            r("turn", second), r("draw", second, card="A1-011"), r("crystal", second, card="A1-011"), r("end", second)]


# ---------------------------------------------------------------------- setup (105.2a)
def test_x610z_105_2a_a_life_base_on_a_dot_that_is_not_a_starting_dot_is_placed_as_played():
    """A1 is a dot of the board: the Life Base is placed there (digest.7: what stays skipped is a dot off the board).
    P2's legal setup was '105.2a P1 places his Life Base first', each turn 'a turn before both players set up' and each
    record '700.1 no turn under way'."""
    recs = [r("setup", "P1", dot="A1", hand=P1_HAND), SETUP[1]] + two_turns()
    m, found = audit(recs)
    assert found == [(2, "P1", "105.2a")]
    assert m.dots["A1"]["life"] and m.p["P1"]["home"] == "A1" and m.turn == 2 and m.outcome is None
    refused(recs, "105.2a", line=2, contains="A1 is not a Starting Dot")  # strict import stops there as before


@pytest.mark.parametrize("left_out", ["P1", "P2"])
def test_x610z_105_2a_a_setup_left_out_is_made_at_the_first_turn(left_out):
    """A player's setup left out: the first `turn` is 105.2a once for it and sets him up there, his Life Base on the
    Starting Dot opposing the other's (105.2b), his 7 cards unknown: the cards he plays from his hand are taken as
    among them, and his `end` counts them (the turn was refused, 'a turn before both players set up', and every record
    after it was 700.1 'no turn under way': 153 findings in a simulated log). The starting player's left out: P2's
    setup before his is that 105.2a, 'P1 (the starting player) places his Life Base first', and the only one."""
    recs = [x for x in SETUP if x["by"] != left_out] + two_turns()
    m, ref = run(recs, strict=False)
    found = [(v.line, v.player, v.rule) for v in ref.found]
    assert found == [(2, "P2", "105.2a")] if left_out == "P1" else [(3, "P2", "105.2a")]
    assert ("places his Life Base first" if left_out == "P1" else "has no setup before the first turn") \
        in ref.found[-1].message
    home = {"P1": "S1", "P2": "S4"}[left_out]
    assert m.dots[home]["life"] and m.dots[home]["ctrl"] == left_out and m.p[left_out]["home"] == home
    assert m.turn == 2 and m.phase == "over" and m.outcome is None


def test_x610z_502_5_the_unknown_cards_of_a_setup_left_out_count_at_the_end():
    """P1's setup left out, then 1 card drawn and none played: he holds 8 cards (7 unknown) and discards 1."""
    m, found = audit([SETUP[1], r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])])
    assert found == [(2, "P2", "105.2a")] and m.phase == "over"


def _counts(m, viewer: str = "judge") -> dict:
    return {pl: (v.hand_count, v.deck_count, v.discard) for pl, v in build_view(m, viewer).players.items()}


@pytest.mark.parametrize("left_out", ["P1", "P2"])
def test_x610z_105_2a_a_setup_left_out_holds_his_7_unknown_cards_in_the_hand(left_out):
    """The 7 cards of a setup left out are in his hand, unknown to every seat (``?``), and out of his deck: the hand
    and deck counts are the legal log's (digest.8: his hand was empty, 0 cards and a deck of 7 more, to the end)."""
    recs = SETUP + two_turns()
    m, _ = run([x for x in recs if x["by"] != left_out or x["do"] != "setup"], strict=False)
    legal_m = legal(recs)
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert _counts(m, viewer) == _counts(legal_m, viewer)
    unknown = 7 if left_out == "P2" else 6  # (P1's crystal, not the card he drew, is one of them; P2's is the card)
    assert m.p[left_out]["hand"].count(HIDDEN) == unknown
    assert build_view(m, left_out).players[left_out].hand.count(HIDDEN) == unknown


def test_x610z_502_5_a_discard_of_an_unknown_card_of_a_setup_left_out_reaches_the_discard_pile():
    """P1's setup left out: his End Phase discard of a card of his deck he does not hold as the state knows it is one
    of his 7 unknown cards, and goes to his Discard Pile (digest.8: accepted, it stayed nowhere); his counts are then
    the legal log's."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-040"])]
    m, found = audit(recs[1:])
    assert found == [(2, "P2", "105.2a")]
    assert m.p["P1"]["discard"] == ["A1-040"] and m.p["P1"]["hand"].count(HIDDEN) == 6
    assert _counts(m) == _counts(legal(recs))


def test_x610z_106_3_the_unknown_cards_of_a_setup_left_out_are_out_of_the_deck_for_a_deck_out():
    """P1's setup left out, then his whole deck drawn (a draw, a `draw` effect) and discarded: at his next turn his
    deck is empty, the 7 unknown cards in his hand, and he loses (106.3), as with his setup logged. The deck the state
    keeps still lists their 7 codes (which they are is not known): the deck-out was not found, the game went on and the
    log's result was 106.1b. Every seat counts his deck 0; only the judge sees the deck list."""
    recs = deck_drawn_out()
    m, found = audit(recs[1:])
    assert found == [(2, "P2", "105.2a")] and m.outcome == {"winner": "P2", "reason": "deck_out"}
    assert m.p["P1"]["hand"].count(HIDDEN) == 7 and len(m.p["P1"]["deck"]) == 7
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert _counts(m, viewer) == _counts(legal(recs), viewer)
        assert build_view(m, viewer).players["P1"].deck_count == 0
        assert (build_view(m, viewer).players["P1"].deck is None) == (viewer != "judge")


def test_x610z_502_5_an_end_discarding_more_copies_than_the_deck_lists_is_reported():
    """P1's setup left out: his `end` discarding 3 copies of A1-050, his deck listing 2, takes 2 of his unknown cards as
    them and is 502.5 for the third (each copy was taken as an unknown card: no finding, one unknown card counted off
    that never left the hand)."""
    recs = SETUP[1:] + [r("turn", "P1"), r("draw", "P1", card="A1-010"),
                        r("end", "P1", discard=["A1-010", "A1-050", "A1-050", "A1-050"])]
    m, found = audit(recs)
    assert found == [(2, "P2", "105.2a"), (at(recs), "P1", "502.5")]
    assert m.violations[-1]["message"].startswith("A1-050 not in P1's hand: nothing is discarded for it")
    assert sorted(m.p["P1"]["discard"]) == ["A1-010", "A1-050", "A1-050"] and m.p["P1"]["hand"] == [HIDDEN] * 5


def test_x610z_105_2a_the_second_setup_on_a_dot_that_is_not_a_starting_dot_is_not_also_105_2b():
    _, found = audit([SETUP[0], r("setup", "P2", dot="A4", hand=P2_HAND)] + two_turns())
    assert found == [(3, "P2", "105.2a")]


def test_x610z_105_2a_a_setup_that_places_no_life_base_does_not_charge_the_rest_of_the_match():
    """A dot off the board in the first setup: no Life Base is placed, the rest of the setup is applied (the hand dealt,
    the player set up), so the turns go on; with no Life Base in play he loses none (210.8: the game went on)."""
    recs = [r("setup", "P1", dot="Z9", hand=P1_HAND), SETUP[1]]
    m, ref = run(recs + two_turns(), strict=False)
    assert [(v.line, v.player, v.rule, v.message) for v in ref.found] == [
        (2, "P1", "105.2a", "Z9 is not a Starting Dot of board x610z-orbits-sample (not a dot of it: no Life Base is "
                            "placed)")]
    z = m.p["P1"]
    assert z["ready"] and z["home"] is None and len(z["hand"]) == 7 and m.turn == 2 and m.outcome is None
    assert sum(e["life"] for e in m.dots.values()) == 1


@pytest.mark.parametrize("dot, message", [
    ("Z9", "Z9 is not a Starting Dot of board x610z-orbits-sample (not a dot of it: the Life Base is not placed "
           "there); placed on S4, the Starting Dot opposing P1's S1 (105.2b)"),
    ("A4", "A4 is not a Starting Dot of board x610z-orbits-sample; placed on S4, the Starting Dot opposing P1's S1 "
           "(105.2b)"),
    ("S1", "Starting Dot S1 is taken by P1's Life Base (the Life Base is not placed there); placed on S4, the Starting "
           "Dot opposing P1's S1 (105.2b)"),
])
def test_x610z_105_2a_the_second_setup_not_on_a_free_starting_dot_is_placed_opposite_the_first(dot, message):
    """The second Life Base goes on the Starting Dot opposing the first (105.2b): a setup naming a dot off the board,
    one that is not a Starting Dot or the first player's is 105.2a once and placed there, so P2's move from S4 is his
    Life Base's (it was placed as played, or not at all, and each record of S4 was charged: 202.2 'no summon on S4', a
    summon cast there 402.6 ...)."""
    recs = [SETUP[0], r("setup", "P2", dot=dot, hand=P2_HAND)] + two_turns()[:5] + [
        r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"), r("energy", "P2", crystal="A1-011"),
        r("move", "P2", **{"from": "S4"}, path=["A4"], pay={"B": 1})] + pp("P2") + [r("end", "P2")]
    m, ref = run(recs, strict=False)
    assert [(v.line, v.player, v.rule, v.message) for v in ref.found] == [(3, "P2", "105.2a", message)]
    assert m.p["P2"]["home"] == "S4" and m.dots["A4"]["life"] and m.dots["A4"]["ctrl"] == "P2" and m.turn == 2


def test_x610z_105_2a_a_setup_before_the_starting_players_merges_its_105_2a_findings():
    """P2 sets up first, on a dot that is not a Starting Dot: two 105.2a facts in one record, one finding."""
    m, ref = run([r("setup", "P2", dot="A4", hand=P2_HAND), SETUP[0]], strict=False)
    assert [(v.line, v.rule, v.message) for v in ref.found] == [
        (2, "105.2a", "P1 (the starting player) places his Life Base first; A4 is not a Starting Dot of board "
                      "x610z-orbits-sample")]
    assert [v["rule"] for v in m.violations] == ["105.2a"]


def test_x610z_105_2a_a_header_naming_the_other_starting_player_is_one_finding():
    """The header's "first" names P2, the log's setups and turn 1 are P1's (the concession example with only "first"
    changed): the header is the wrong one, one finding at the first record that contradicts it, and the log's order is
    followed from there (P1 starts: his turn 1, his draw, his hand). It was 144 findings: turn 1 begun as P2's, each
    record of P1 charged (201.3, 202.1, 403.2, 702.1) and each `end` 502.5."""
    recs = SETUP + two_turns()
    m, ref = run(recs, head=header(first="P2"), strict=False)
    assert [(v.line, v.player, v.rule) for v in ref.found] == [(2, "P1", "105.2a")]
    assert "the header names P2 as the starting player" in ref.found[0].message
    assert m.turn == 2 and m.active == "P2" and m.phase == "over" and m.outcome is None
    assert _counts(m) == _counts(legal(recs))
    refused(recs, "105.2a", line=2, head=header(first="P2"), contains="the header names P2 as the starting player")


def test_x610z_105_2a_a_header_naming_the_other_starting_player_in_the_concession_example():
    text = (Path(__file__).resolve().parents[3] / "examples" / "x610z" / "legal" / "concession.x610zlog").read_text()
    head, *rest = text.splitlines()
    h = json.loads(head)
    h["first"] = "P2" if h.get("first", "P1") == "P1" else "P1"
    matches = play("\n".join([json.dumps(h)] + rest) + "\n", strict=False)
    (m, ref), = matches
    assert [(v.line, v.rule) for v in ref.found] == [(2, "105.2a")] and m.outcome is not None


def test_x610z_105_2a_a_setup_by_the_other_player_first_with_the_headers_turn_1_stands_alone():
    """The header's starting player begins turn 1: the setup logged before his is the one wrong record (today's
    finding, charged to it), and the match goes on from the header's order."""
    recs = [SETUP[1], SETUP[0]] + two_turns()
    m, ref = run(recs, strict=False)
    assert [(v.line, v.player, v.rule, v.message) for v in ref.found] == [
        (2, "P2", "105.2a", "P1 (the starting player) places his Life Base first")]
    assert m.turn == 2 and m.phase == "over"
    # the header's first P2, P1 sets up first, then turn 1 is P2's: the header stands, P1's setup is the finding
    recs = SETUP + two_turns("P2")
    m, ref = run(recs, head=header(first="P2"), strict=False)
    assert [(v.line, v.player, v.rule, v.message) for v in ref.found] == [
        (2, "P1", "105.2a", "P2 (the starting player) places his Life Base first")]
    assert m.turn == 2 and m.phase == "over"


CONCESSION = INVALID.parent / "legal" / "concession.x610zlog"


def _concession(line: int, old: str, new: str):
    """The concession example with ``old`` changed to ``new`` in line ``line``, audited; and the example itself."""
    lines = CONCESSION.read_text().splitlines()
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    (m, ref), = play("\n".join(lines) + "\n", strict=False)
    (legal_m, _), = play(CONCESSION.read_text())
    return m, ref, legal_m


def test_x610z_200_1a_a_cast_of_a_card_of_the_deck_list_not_in_the_hand_is_played_as_written():
    """Line 25 casts A1-025 (in P1's deck list, not in his hand as logged; the hand holds A1-020): one 200.1a, the card
    cast as written for a card of the hand the log does not name, which leaves the hand uncounted. It was announced as
    nothing, and every later move or attack of the summon was charged (202.2 at 45, 75, 114, 146; 202.3 at 85, and at 99
    to P2, who logged nothing wrong): 7 findings."""
    m, ref, legal_m = _concession(25, '"A1-020"', '"A1-025"')
    # the card as written is a Guardian Spirit (Speed 1, 3 Time Counters), not the log's Hunter Dragon: its own rules
    # are what follows, and nothing of P2's (its 2-dot move is 202.5c, it leaves play at its third reactivation,
    # 209.2f, and the log's two later moves of it are 202.2)
    assert [(v.line, v.player, v.rule) for v in ref.found] == [
        (25, "P1", "200.1a"), (45, "P1", "202.5c"), (114, "P1", "202.2"), (146, "P1", "202.2")]
    assert ref.found[0].message == ("A1-025 is not in P1's hand (a card is cast from hand): played as written, for a "
                                    "card of the hand the log does not name")
    assert m.outcome == legal_m.outcome
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert [(v.hand_count, v.deck_count) for v in build_view(m, viewer).players.values()] == \
            [(v.hand_count, v.deck_count) for v in build_view(legal_m, viewer).players.values()]


def test_x610z_200_1a_a_cast_of_a_card_of_the_deck_list_with_the_same_stats_is_one_finding():
    """A Sky Vessel P1 does not hold as logged (his hand lists a Forest Beast for it): one 200.1a, the summon cast as
    written, his hand one card fewer (its counts the legal log's for every seat), and the other seat does not see his
    hand (it counts it)."""
    hand = [c if c != "A1-022" else "A1-021" for c in P1_HAND]
    cast = [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("cast", "P1", card="A1-022", dot="E1", pay={})]
    recs = [r("setup", "P1", dot="S1", hand=hand), SETUP[1]] + cast
    m, ref = run(recs, strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(6, "200.1a")]
    assert ref.found[0].message.endswith("played as written, for a card of the hand the log does not name")
    legal_m = legal(SETUP + cast)
    assert m.stack[-1]["card"] == "A1-022" and not m.stack[-1].get("void")
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert _counts(m, viewer)["P1"][:2] == _counts(legal_m, viewer)["P1"][:2]
    assert build_view(m, "P2").players["P1"].hand is None
    secret = hidden_codes(m, "P2") - visible_codes(m, "P2")  # (P1's Bullseye and Swift Boots, say)
    seen = repr(build_view(m, "P2")) + json.dumps(m.violations) + json.dumps(redact_record(recs[-1], "P2"))
    assert secret and not [c for c in secret if c in seen]
    refused(recs, "200.1a", line=6, contains="played as written")


def test_x610z_200_1b_a_crystal_of_the_deck_list_not_in_the_hand_is_played_as_written():
    """P1 casts a Mystic Crystal his hand does not list (a Boost Crystal in its place): one 200.1b, the crystal in play,
    its energy added, and his `end` counts his hand one card fewer (it was skipped: 203.3 at the energy, 200.5 at its
    payment, a false 502.5 at the end)."""
    hand = ["A1-011" if c == "A1-010" else c for c in P1_HAND]
    recs = [r("setup", "P1", dot="S1", hand=hand), SETUP[1], r("turn", "P1"), r("draw", "P1", card="A1-011"),
            r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"), r("end", "P1")]
    m, found = audit(recs)
    assert found == [(6, "P1", "200.1b")]
    assert [p["code"] for p in m.perms] == ["A1-010"] and m.p["P1"]["pool"] == {}


def test_x610z_200_1b_a_crystal_record_naming_a_card_that_is_no_crystal_is_the_crystal_its_energy_names():
    """x13: the concession example's line 6 makes a crystal of A1-030 (a Bullseye, no crystal, not in the hand) instead
    of A1-010: one 200.1b; the crystal is the hand's one whose energy P1 adds next (line 7), cast there. It was 7
    findings: 203.3 at 7, 200.5 at 8, a false 502.5 at 11 and 206.1e at 24, 78, 149."""
    m, ref, legal_m = _concession(6, '"A1-010"', '"A1-030"')
    assert [(v.line, v.player, v.rule) for v in ref.found] == [(6, "P1", "200.1b")]
    assert "no Energy Crystal Card" in ref.found[0].message and m.outcome == legal_m.outcome
    assert sorted(p["code"] for p in m.perms) == sorted(p["code"] for p in legal_m.perms)
    assert _counts(m) == _counts(legal_m)
    # its energy never added that turn: the `end` counts the hand without it (no false 502.5)
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-011"), r("crystal", "P1", card="A1-032"),
                    r("end", "P1")]
    _, found = audit(recs)
    assert found == [(6, "P1", "200.1b")]


def test_x610z_502_5_a_discard_of_a_card_of_the_deck_list_not_in_the_hand_is_discarded_as_written():
    """P1's `end` discards A1-050, in his deck list, not in his hand as logged: one 502.5, the card discarded as written
    for a card of the hand the log does not name, his hand one card fewer (it was 'nothing is discarded for it', his
    hand kept a card too many, and his next right discard was 502.5 again)."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-050"]),
                    r("turn", "P2"), r("draw", "P2", card="A1-011"), r("end", "P2", discard=["A1-011"]),
                    r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])]
    m, ref = run(recs, strict=False)
    assert [(v.line, v.player, v.rule) for v in ref.found] == [(6, "P1", "502.5")]
    assert ref.found[0].message == ("A1-050 not in P1's hand: discarded as written, for a card of the hand the log does "
                                    "not name")
    assert m.p["P1"]["discard"] == ["A1-050", "A1-010"] and _counts(m)["P1"][0] == 7


def test_x610z_200_1a_a_cast_not_in_the_hand_nor_the_deck_list_is_still_announced_as_nothing():
    """A card the deck list does not hold (an other deck's) cannot stand for a card of the hand: announced as nothing
    (digest.8), as before."""
    m, ref, _ = _concession(25, '"A1-020"', '"A1-021"')
    assert [(v.line, v.rule) for v in ref.found][0] == (25, "200.1a")
    assert "played as written" not in ref.found[0].message


# ---------------------------------------------------------------------- the draw (702.1)
def test_x610z_702_1_a_draw_after_the_first_action_is_applied_as_played():
    """The crystal leaves the Draw Phase without a draw (702.1, reported there); the draw after it is the turn's draw
    made late: the card goes to the hand, no second finding (it was '702.1 a draw record belongs to the active
    player's Draw Phase', skipped, and the end's discard from 8 cards was 502.5)."""
    recs = SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011"), r("draw", "P1", card="A1-010"),
                    r("draw", "P1", card="A1-011")]
    m, found = audit(recs[:-1] + [r("end", "P1")])
    assert found == [(at(SETUP) + 2, "P1", "702.1")] and m.p["P1"]["hand"].count("A1-010") == 2
    assert len(m.p["P1"]["hand"]) == 7 and m.phase == "over"
    m, found = audit(recs + [r("end", "P1", discard=["A1-011"])])  # a second late draw is 702.1, applied
    assert found == [(at(SETUP) + 2, "P1", "702.1"), (at(recs), "P1", "702.1")] and m.p["P1"]["discard"] == ["A1-011"]
    # the same draw record twice is one record logged twice: one 702.1, skipped (test_x610z_702_1_a_draw_record_...)
    m, found = audit(recs[:-1] + [recs[-2], r("end", "P1")])
    assert found == [(at(SETUP) + 2, "P1", "702.1"), (at(recs), "P1", "702.1")] and len(m.p["P1"]["hand"]) == 7


def test_x610z_702_1_the_card_of_a_draw_left_out_is_played_with_no_second_finding():
    """P1's draw left out (702.1 at his crystal): the Heal he casts, in his deck and not in his hand as the state knows
    it, is the card he drew (it was 200.1a 'not in P1's hand', the cast announced as nothing). One such card only: a
    second card not in the hand is 200.1a."""
    recs = SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011"), r("energy", "P1", crystal="A1-011"),
                    r("cast", "P1", card="A1-032", target="S1", pay={"B": 1})] + pp("P1")
    m, found = audit(recs + [r("end", "P1")])
    assert found == [(at(SETUP) + 2, "P1", "702.1")] and m.p["P1"]["discard"] == ["A1-032"] and m.phase == "over"
    more = [r("cast", "P1", card="A1-050", pay={})]
    _, found = audit(recs + more)
    assert found == [(at(SETUP) + 2, "P1", "702.1"), (at(recs + more), "P1", "200.1a")]


@pytest.mark.parametrize("play", ["cast", "end"])
def test_x610z_702_1_the_card_of_a_draw_left_out_leaves_the_deck_where_it_is_played(play):
    """The card of a draw left out, unknown in the hand since (``CardDrawn`` of ``?`` at the record that left the Draw
    Phase), cast or discarded later, is known at that record (``CardDrawn`` with ``unknown``, no finding): it leaves
    the deck, whose count and cards are then the legal log's (digest.8: it stayed in the deck as well)."""
    drawn = [r("turn", "P1"), r("draw", "P1", card="A1-032")]
    after = ([r("crystal", "P1", card="A1-011"), r("energy", "P1", crystal="A1-011"),
              r("cast", "P1", card="A1-032", target="S1", pay={"B": 1})] + pp("P1") + [r("end", "P1")]
             if play == "cast" else [r("end", "P1", discard=["A1-032"])])
    m, found = audit(SETUP + drawn[:1] + after)
    line = at(SETUP) + 2 + (play == "cast") * 2  # (the cast, or the end)
    assert found == [(at(SETUP) + 2, "P1", "702.1")]
    legal_m = legal(SETUP + drawn + after)
    assert sorted(m.p["P1"]["deck"]) == sorted(legal_m.p["P1"]["deck"]) and _counts(m) == _counts(legal_m)
    assert [(e.line, e.card, e.unknown) for e in m.pending_events if type(e).__name__ == "CardDrawn"] == \
        [(at(SETUP) + 2, HIDDEN, False), (line, "A1-032", True)]


def _seat_sentences(m, kind: str) -> list[tuple[int, dict[str, str]]]:
    """(line, {seat: its sentence}) of each ``kind`` event of ``m``, its fields as each seat sees them."""
    from zx_events import games
    from zx_events.seats import event_fields

    game = games.get("x610z")
    out = []
    for e in m.pending_events:
        if type(e).__name__ == kind:
            fields = event_fields(e)
            out.append((e.line, {seat: game.narrate(kind, game.redact_event(kind, fields, seat), names={
                "A1-032": "Heal"}) for seat in ("judge", "P1", "P2", "spectator")}))
    return out


def test_x610z_702_1_a_draw_left_out_is_an_unknown_card_in_the_hand_at_once():
    """P1's draw left out (702.1 at his crystal): the card he drew is in his hand from then on, unknown to every seat
    (``?``, the judge's too), its code still listed in the deck the state keeps and counted out of it, so each seat's
    hand and deck counts are the legal log's at once (digest.8: the hand was a card short and the deck a card long
    until a record used the card)."""
    recs = SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011")]
    m, found = audit(recs)
    assert found == [(at(recs), "P1", "702.1")]
    legal_m = legal(SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-032"), r("crystal", "P1", card="A1-011")])
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert _counts(m, viewer) == _counts(legal_m, viewer), viewer
        hand = build_view(m, viewer).players["P1"].hand
        assert hand is None if viewer in ("P2", "spectator") else hand.count(HIDDEN) == 1
    assert m.p["P1"]["hand"].count(HIDDEN) == 1 and len(m.p["P1"]["deck"]) == len(legal_m.p["P1"]["deck"]) + 1
    assert [(e.line, e.card) for e in m.pending_events if type(e).__name__ == "CardDrawn"] == [(at(recs), HIDDEN)]
    # the play-by-play: a card drawn, never its code (nobody knows it)
    assert _seat_sentences(m, "CardDrawn") == [(at(recs), dict.fromkeys(("judge", "P1", "P2", "spectator"),
                                                                         "P1's draw was left out of the log: he drew a "
                                                                         "card, unknown"))]


def test_x610z_702_1_the_card_of_a_draw_left_out_is_known_where_it_is_used_and_said_so():
    """The Heal P1 casts after his draw was left out is that draw's card, known there: it takes the place of the
    unknown card in his hand (``CardDrawn`` with ``unknown``), then leaves the hand for the Cast Zone; P1 and the judge
    read which card it was, P2 and a spectator only that it is known now (its cast shows it to them next)."""
    recs = SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011"), r("energy", "P1", crystal="A1-011"),
                    r("cast", "P1", card="A1-032", target="S1", pay={"B": 1})]
    m, found = audit(recs)
    assert found == [(at(SETUP) + 2, "P1", "702.1")] and HIDDEN not in m.p["P1"]["hand"]
    drawn = [e for e in m.pending_events if type(e).__name__ == "CardDrawn"]
    assert [(e.line, e.card, e.unknown) for e in drawn] == [(at(SETUP) + 2, HIDDEN, False), (at(recs), "A1-032", True)]
    said = "P1's card drawn unknown (his draw left out of the log) is "
    assert _seat_sentences(m, "CardDrawn")[1] == (at(recs), {"judge": said + "Heal A1-032", "P1": said + "Heal A1-032",
                                                             "P2": said + "known now", "spectator": said + "known now"})


@pytest.mark.parametrize("discard, rules", [(["A1-010"], ["702.1"]), ([], ["702.1", "502.5"]),
                                            (["A1-010", "A1-011"], ["702.1", "502.5"])])
def test_x610z_502_5_the_card_of_a_draw_left_out_counts_for_the_hand_limit(discard, rules):
    """P1's draw left out at his `end` (702.1 there): he holds 8 cards, one unknown, and discards down to 7 (502.5): one
    card is right (it was 502.5 'holds 7 cards and discards 1'), none or two are 502.5 (none was found right)."""
    recs = SETUP + [r("turn", "P1"), r("end", "P1", discard=discard)]
    m, ref = run(recs, strict=False)
    assert [(v.line, v.player, v.rule) for v in ref.found] == [(at(recs), "P1", rule) for rule in rules]
    if "502.5" in rules:
        assert ref.found[-1].message == f"P1 holds 8 cards and discards {len(discard)}: down to 7 means 1"
    else:
        legal_m = legal(SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-032"), r("end", "P1", discard=discard)])
        assert _counts(m) == _counts(legal_m) and m.p["P1"]["hand"].count(HIDDEN) == 1


def test_x610z_106_3_the_card_of_a_draw_left_out_is_out_of_the_deck_for_a_deck_out():
    """P1's whole deck drawn in his turn 1 (a `draw` effect), its Draw Phase draw left out (702.1 at his `end`): at his
    next turn his deck is empty, the card of that draw in his hand, and he loses (106.3), as in the legal log (digest.8:
    the deck the state kept still held that card, the deck-out was not found then, and the log's result was 106.1b)."""
    recs = deck_drawn_out()
    draw = recs.index(r("draw", "P1", card="A1-010"))
    m, found = audit(recs[:draw] + recs[draw + 1:])
    end = next(i for i, x in enumerate(recs) if x["do"] == "end")  # (one record earlier without the draw)
    assert found == [(end + 1, "P1", "702.1")] and m.outcome == {"winner": "P2", "reason": "deck_out"}
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert _counts(m, viewer) == _counts(legal(recs), viewer)
        assert build_view(m, viewer).players["P1"].deck_count == 0


def test_x610z_702_1_the_replay_of_a_draw_left_out_counts_its_card_in_the_hand_from_that_record_on(service):
    """Stored and replayed (zx replay, the server's steps), every seat's state at the record that left the Draw Phase
    without its draw, and after each record to the one that casts the card, has the legal log's hand and deck counts,
    and its events say "P1 A draws a card" (digest.8: a card short in the hand and long in the deck until the cast)."""
    from zx_events import replay
    from zx_events.logformat.reader import parse_log

    from x610z_builder import header, text

    drawn = [r("turn", "P1"), r("draw", "P1", card="A1-032")]
    after = [r("crystal", "P1", card="A1-011"), r("energy", "P1", crystal="A1-011"),
             r("cast", "P1", card="A1-032", target="S1", pay={"B": 1})]
    (log,) = parse_log(text(SETUP + drawn[:1] + after, header(match="draw-left-out")), "t.x610zlog")
    assert service.import_log(log, accept_violations=True).status == "imported"
    (legal_log,) = parse_log(text(SETUP + drawn + after, header(match="draw-logged")), "l.x610zlog")
    assert service.import_log(legal_log).status == "imported"
    hist, legal_hist = replay.load_history(service, "draw-left-out"), replay.load_history(service, "draw-logged")
    for seat in ("judge", "P1", "P2", "spectator"):
        steps = {s.line: s for s in hist.steps(seat)}
        legal_steps = {s.line: s for s in legal_hist.steps(seat)}
        for line in range(at(SETUP) + 2, at(SETUP) + 5):  # the crystal, the energy, the cast (one line later legal)
            got, want = steps[line].state.players["P1"], legal_steps[line + 1].state.players["P1"]
            assert (got.hand_count, got.deck_count) == (want.hand_count, want.deck_count), (seat, line)
        said = "P1 A's draw was left out of the log: he drew a card, unknown"
        assert said in [e.text for e in steps[at(SETUP) + 2].events]


def test_x610z_702_1_a_match_stored_with_the_card_of_a_draw_left_out_drawn_only_where_used_replays_as_stored(service):
    """Stored data is sacred: a match stored before the draw left out put an unknown card in the hand (no ``CardDrawn``
    of ``?`` at the record that left the Draw Phase; a plain ``CardDrawn`` of the card, without ``unknown``, where it
    was used) replays as it did: its hand a card short until that record, then the card drawn and cast."""
    from zx_events.games.x610z.match import Match
    import orjson

    recs = SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011"), r("energy", "P1", crystal="A1-011"),
                    r("cast", "P1", card="A1-032", target="S1", pay={"B": 1})]
    m, _ = run(recs, strict=False)
    stored = [service.mapper.to_stored_event(e) for e in m.pending_events]
    old, version = [], 0
    for s in stored:  # the events as the engine stored them before: the CardDrawn of ? left out, no `unknown` field
        state = orjson.loads(s.state)
        if s.topic == "x610z.match:CardDrawn" and state["card"] == HIDDEN:
            continue
        state.pop("unknown", None)
        version += 1
        state["originator_version"] = version
        old.append((s.originator_id, version, s.topic, orjson.dumps(state)))
    events = [service.mapper.decode(*row) for row in old]
    assert not any("unknown" in vars(e) for e in events)

    def state_at(n: int):
        agg = None
        for e in events[:n]:
            agg = e.mutate(agg)
        return agg

    crystal = next(i for i, e in enumerate(events) if type(e).__name__ == "CrystalCast")
    before = state_at(crystal + 1)  # the crystal applied, the draw left out: no unknown card (as stored)
    assert HIDDEN not in before.p["P1"]["hand"] and len(before.p["P1"]["hand"]) == 6
    assert len(before.p["P1"]["deck"]) == len(m.p["P1"]["deck"]) + 1
    after = state_at(len(events))  # the card drawn where it is cast, then cast: the state the engine keeps now
    assert (sorted(after.p["P1"]["hand"]), sorted(after.p["P1"]["deck"])) == \
        (sorted(m.p["P1"]["hand"]), sorted(m.p["P1"]["deck"]))
    assert isinstance(after, Match) and after.stack == m.stack


@pytest.mark.parametrize("card, taken", [("A1-011", True), ("A1-013", False)])
def test_x610z_702_1_a_draw_under_the_other_seat_is_the_active_players_draw(card, taken):
    """P2's draw of turn 2 logged under P1: its card in P2's deck, it is P2's draw, its seat mistaken, one 702.1 (it
    was refused, 'belongs to the active player's Draw Phase', and P2's crystal after it 702.1 again, 'P2 leaves the
    Draw Phase without drawing 1 card'). Only P2 sees the card it drew. A card P2's deck does not hold is refused as
    before."""
    recs = SETUP + two_turns()[:4] + [r("turn", "P2"), r("draw", "P1", card=card)]
    m, found = audit(recs + [r("crystal", "P2", card="A1-011"), r("end", "P2"), r("turn", "P1")])
    if not taken:
        assert found == [(at(recs), "P1", "702.1"), (at(recs) + 1, "P2", "702.1")]
        return
    assert found == [(at(recs), "P1", "702.1")] and m.turn == 3 and len(m.p["P2"]["hand"]) == 7
    assert m.violations[0]["message"] == ("P1 draws in P2's turn, where only P2 draws: the draw record is taken as "
                                          "P2's (A1-011 is in P2's deck)")
    events = [e for e in m.pending_events if getattr(e, "line", None) == at(recs)]
    assert [redact_record(recs[-1], v, events=events)["card"] for v in ("P1", "P2", "spectator")] == \
        [HIDDEN, "A1-011", HIDDEN]


def test_x610z_403_1_a_crystal_record_logged_twice_is_one_finding_and_skipped():
    """P1's crystal logged twice, two copies in his hand: the second is 403.1 once and skipped (it was applied, taking
    the second copy from the hand, so his crystal of turn 3 was 200.1b 'not in P1's hand')."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-011"), r("crystal", "P1", card="A1-011"),
                    r("crystal", "P1", card="A1-011")]
    m, found = audit(recs + [r("end", "P1")] + two_turns("P2")[:4]
                     + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-011")])
    assert found == [(at(recs), "P1", "403.1")] and m.turn == 3
    assert m.violations[0]["message"] == ("P1 already cast an Energy Crystal Card this turn: the same record as line "
                                          f"{at(recs) - 1}, logged twice (skipped)")
    assert "A1-011" not in m.p["P1"]["hand"] and sum(p["code"] == "A1-011" for p in m.perms if p["ctrl"] == "P1") == 2


def test_x610z_702_1_a_draw_record_logged_twice_is_one_finding_and_skipped():
    """P1's draw logged twice: the second is 702.1 once and skipped (it was applied, a second card into his hand, so
    his hand held 8 at the end of the turn: 502.5 as well)."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-011"), r("draw", "P1", card="A1-011")]
    m, found = audit(recs + [r("crystal", "P1", card="A1-011"), r("end", "P1")] + two_turns("P2")[:4])
    assert found == [(at(recs), "P1", "702.1")]
    assert m.violations[0]["message"] == ("P1 draws a second card this turn: the same record as line "
                                          f"{at(recs) - 1}, logged twice (skipped)")
    assert len(m.p["P1"]["hand"]) == 7 and m.turn == 2
    # a second draw of another card is still applied (it was made: the hand holds it), one 702.1 too
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-011"), r("draw", "P1", card="A1-010")]
    m, found = audit(recs)
    assert found == [(at(recs), "P1", "702.1")] and "A1-010" in m.p["P1"]["hand"]


# ---------------------------------------------------------------------- one record, one finding per clause
def test_x610z_206_1a_a_permanent_cast_by_the_reactive_player_in_the_end_phase_is_one_finding():
    """206.1a: "only ... by the active player during the Action Phase": both halves broken, one finding (it was two)."""
    recs = BATTLE + pp("P2") + [r("cast", "P2", card="A1-020", dot="S4", pay={})]  # (P2 has priority, 704.1)
    _, ref = run(recs, strict=False)
    assert [(v.line, v.rule, v.message) for v in ref.found] == [
        (at(recs), "206.1a", "P2 casts the permanent Hunter Dragon in P1's turn and in the End Phase: only the active "
                             "player, in his Action Phase")]
    refused(recs, "206.1a", contains="in P1's turn and in the End Phase")


def test_x610z_206_2a_a_non_permanent_cast_in_the_draw_phase_is_not_also_702_2():
    """P2 answers P1's pass in P1's Draw Phase (before his draw) with Discount: 206.2a names the phases a non permanent
    is cast in; 702.2 (only triggers in the Draw Phase) says the same of it, and was a second finding."""
    recs = BATTLE[:-1] + [r("pass", "P1"), r("cast", "P2", card="A1-031", pay={})]
    _, found = audit(recs)
    assert found == [(at(recs), "P2", "206.2a")]


def test_x610z_201_7_a_move_in_the_draw_phase_is_not_also_702_2():
    """Table 1 (201.7) names the phase of a movement: a reactive player's move of his Life Base in the Draw Phase is
    202.1 and 201.7, not 702.2 as well."""
    recs = BATTLE[:-1] + [r("pass", "P1"), r("move", "P2", **{"from": "S4"}, path=["A4"], pay={})]
    _, found = audit(recs)
    assert found == [(at(recs), "P2", "202.1"), (at(recs), "P2", "201.7")]


def test_x610z_402_10f_an_activated_ability_used_twice_is_not_also_206_1e():
    """The first use activated the summon (402.10f: "it can either be moved or its ability activated, since both
    require the activation of the summon"): its being activated is the fact 402.10f reports, not a second one."""
    (_, ref), = play((INVALID / "402.10f-activated-ability-twice.x610zlog").read_text(), strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(16, "402.10f")]


def test_x610z_502_5_a_discard_not_in_hand_and_a_wrong_count_are_one_finding():
    """P1 holds 7 cards after his draw and crystal and discards one he does not hold (nor his deck list): two facts of
    502.5, one finding whose message says both (a clause is reported once per record)."""
    recs = T1 + [r("end", "P1", discard=["A1-025"])]
    _, ref = run(recs, strict=False)
    assert [(v.line, v.rule, v.message) for v in ref.found] == [
        (at(recs), "502.5", "A1-025 not in P1's hand: nothing is discarded for it (the active player discards from "
                            "his hand); P1 holds 7 cards and discards 1: down to 7 means 0")]


# ---------------------------------------------------------------------- the end of a turn (700.1)
def test_x610z_700_1_an_end_by_the_other_player_is_applied_as_the_active_players_end():
    """P2 logs the end of P1's turn 1 (P1 holds 8 cards, the record discards one of them): applied as P1's end, with
    its discard (it was skipped, and P2's turn 2 was 700.1, 702.1, 700.1 again, then P1's 702.1 and 502.5)."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P2", discard=["A1-010"])]
    m, found = audit(recs + [r("turn", "P2"), r("draw", "P2", card="A1-010"), r("end", "P2", discard=["A1-010"]),
                             r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])])
    assert found == [(at(recs), "P2", "700.1")] and m.turn == 3 and len(m.p["P1"]["hand"]) == 7
    assert m.violations[0]["message"] == "P2 ends P1's turn: the active player ends his turn (applied as P1's end)"


def test_x610z_700_1_a_turn_while_the_turn_has_not_ended_ends_it():
    """The `end` of P1's turn 1 left out: the `turn` of P2 is 700.1 once, P1's turn ends there (nothing discarded)
    and P2's begins (it was skipped: P2's draw was 702.1, his crystal 403.2, his end 700.1, and so on)."""
    recs = T1 + [r("turn", "P2")]
    m, found = audit(recs + [r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"), r("end", "P2"),
                             r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])])
    assert found == [(at(recs), "P1", "700.1")] and m.turn == 3 and m.phase == "over"
    refused(recs, "700.1", contains="turn 1 has not ended")


def test_x610z_700_1_an_end_logged_after_the_next_turn_record_is_the_closed_turns_late_end():
    """P2's `turn` logged before P1's `end` (swapped): the `turn` is 700.1 and ends turn 1 there; P1's `end` after it is
    turn 1's, late: no second finding (it was applied as the end of P2's turn 2, 'P1 ends P2's turn', with a 702.1, and
    each of P2's records after it was 700.1 'turn 2 has ended'; then a second 700.1, 'comes after turn 2 began')."""
    recs = T1 + [r("turn", "P2"), r("end", "P1")]
    m, found = audit(recs + [r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"), r("end", "P2"),
                             r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])])
    assert found == [(at(recs) - 1, "P1", "700.1")] and m.turn == 3 and m.phase == "over"


def test_x610z_700_1_a_late_end_discards_its_cards():
    """P1 holds 8 cards at the end of turn 1 and his `end`, discarding one, comes after P2's `turn`: the `turn` ended
    turn 1 with nothing discarded, the late `end` discards the card (it kept it: P1 held 8 cards, and his next `end`
    was 502.5 for a discard the turn before's)."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("turn", "P2"),
                    r("end", "P1", discard=["A1-010"])]
    m, found = audit(recs + [r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"), r("end", "P2")])
    assert found == [(at(recs) - 1, "P1", "700.1")]
    assert len(m.p["P1"]["hand"]) == 7 and m.p["P1"]["discard"] == ["A1-010"] and m.turn == 2


def _late_end(discard: list[str]) -> list[dict]:
    """P1's turn 1 (a draw), ended early by P2's `turn` (700.1), then P1's late `end` discarding ``discard``."""
    return SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("turn", "P2"), r("end", "P1", discard=discard)]


def test_x610z_502_5_a_late_end_discards_an_unknown_card_of_a_setup_left_out():
    """P1's setup left out: his late `end` discarding a card of his deck he does not hold as the state knows it
    discards one of his 7 unknown cards, as his `end` in time does (it was dropped: the card stayed in his deck, his
    hand held 8 cards, and his next `end` had one card too many to discard). The stored ``LateRecord`` names it, and
    replays to the same state."""
    recs = _late_end(["A1-040"])
    m, found = audit(recs[1:])
    assert found == [(2, "P2", "105.2a"), (at(recs[1:]) - 1, "P1", "700.1")]
    z = m.p["P1"]
    assert z["discard"] == ["A1-040"] and z["hand"].count(HIDDEN) == 6 and len(z["hand"]) == 7
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert _counts(m, viewer) == _counts(audit(recs)[0], viewer)
    late = [e for e in m.pending_events if type(e).__name__ == "LateRecord"]
    assert [e.discard for e in late] == [["A1-040"]]
    from zx_events.games.x610z.match import project
    assert project(None, copy.deepcopy(list(m.pending_events))).p == m.p


@pytest.mark.parametrize("left_out", [False, True])
def test_x610z_502_5_a_late_end_discarding_a_card_not_in_the_hand_is_reported_once(left_out):
    """A late `end` discarding a card its player does not hold is 502.5 once, at its line, as his `end` in time is
    (it was dropped without a word); the other discards are made. P1 has 2 copies of A1-050, none in his hand: with his
    setup left out, two of his unknown cards are taken as them and the third is the one not in his hand."""
    recs = _late_end(["A1-010", "A1-050", "A1-050", "A1-050"])
    m, ref = run(recs[1:] if left_out else recs, strict=False)
    line = len(recs) if left_out else len(recs) + 1
    found = [(v.line, v.player, v.rule, v.message) for v in ref.found if v.rule == "502.5"]
    lost = "A1-050" if left_out else "A1-050, A1-050, A1-050"
    assert [f[:3] for f in found] == [(line, "P1", "502.5")] and found[0][3].startswith(f"{lost} not in P1's hand")
    z = m.p["P1"]
    assert sorted(z["discard"]) == (["A1-010", "A1-050", "A1-050"] if left_out else ["A1-010"])
    assert z["hand"].count(HIDDEN) == (5 if left_out else 0) and len(z["hand"]) == (5 if left_out else 7)


def test_x610z_700_1_a_turn_record_logged_after_the_draw_that_began_its_turn_is_that_turns():
    """P2's `turn` and `draw` swapped: the draw after P1's `end` begins turn 2 with one 700.1, and the `turn` after it
    is turn 2's, late, with no finding (it was 700.1 'turn 2 has not ended', ended turn 2 there and began a turn 3
    of P2's, 'belongs to P1', and P2's crystal after it was 702.1: three findings for one swap)."""
    recs = SETUP + two_turns()[:4] + [r("draw", "P2", card="A1-011"), r("turn", "P2")]
    m, found = audit(recs + [r("crystal", "P2", card="A1-011"), r("end", "P2"), r("turn", "P1")])
    assert found == [(at(recs) - 1, "P2", "700.1")]
    assert m.turn == 3 and m.active == "P1" and len(m.p["P2"]["hand"]) == 7


def test_x610z_700_1_a_turn_record_of_the_wrong_player_begins_the_due_players_turn():
    """P1's `turn` where turn 2 is P2's: 700.1 once, and the turn begins as P2's, whose records follow (it began as
    P1's, and P2's draw was 702.1, his crystal 403.2 and 201.7, his `end` 700.1, and the next `turn` 700.1 again)."""
    recs = SETUP + two_turns()[:4] + [r("turn", "P1")]
    m, found = audit(recs + two_turns()[5:] + [r("turn", "P1"), r("draw", "P1", card="A1-010")])
    assert found == [(at(recs), "P1", "700.1")] and m.turn == 3 and m.active == "P1"
    assert "turn 2 belongs to P2, not P1 (begun as P2's)" in m.violations[0]["message"]


def test_x610z_700_1_a_turn_record_logged_twice_is_one_finding_and_skipped():
    """The `turn` repeated: 700.1 once, skipped (it ended the turn it began, nothing discarded, and began turn 2 as
    P1's: 'belongs to P2', and each of P2's records after P1's `end` was charged)."""
    recs = SETUP + [r("turn", "P1"), r("turn", "P1")]
    m, found = audit(recs + two_turns()[1:] + [r("turn", "P1")])
    assert found == [(at(recs), "P1", "700.1")] and m.turn == 3 and m.active == "P1"


def test_x610z_700_1_the_first_turn_record_left_out_begins_turn_1_at_the_starting_players_record():
    """Turn 1's `turn` left out: P1's draw after the setups is 700.1 once and begins turn 1 (each record of turn 1 was
    700.1 'no turn under way', and P2's `turn` then 'turn 1 belongs to P1')."""
    recs = SETUP + two_turns()[1:]
    m, found = audit(recs)
    assert found == [(at(SETUP) + 1, "P1", "700.1")] and m.turn == 2 and m.phase == "over"
    assert "turn 1 begins without a turn record (it comes after the setups)" in m.violations[0]["message"]


# ---------------------------------------------------------------------- priority (201.3)
CAST = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1")]  # Sky Vessel, resolved by the passes after it
MOVE = [r("move", "P1", **{"from": "E1"}, path=["B1"], pay={"B": 1})] + pp("P1") + [r("end", "P1")]


@pytest.mark.parametrize("passes", [
    [r("pass", "P1")],  # P2's pass left out
    [r("pass", "P2"), r("pass", "P2")],  # P1's pass logged as P2's
])
def test_x610z_201_3_a_pass_without_priority_then_another_record_completes_the_round_of_passes(passes):
    """The pass without priority is followed by a record that is no pass: it was the pass of the round that resolves
    the cast, so Sky Vessel is on E1 and moves (the cast stayed on the stack: the move was 202.2 'no summon on E1' or
    201.3 again, and the `end` 703.7 with the cast on the stack)."""
    recs = CAST + passes
    m, found = audit(recs + MOVE)
    assert found == [(at(recs), passes[-1]["by"], "201.3")]
    assert m.dots["B1"]["code"] == "A1-022" and m.turn == 1 and m.phase == "over"


def test_x610z_201_3_a_pass_logged_before_the_announcement_it_answers_is_applied_after_it():
    """P2's pass and P1's cast swapped: the pass without priority answers the cast that follows it (it did nothing, so
    P1's pass after the cast was 201.3 as well, and the `end` 703.7 with the cast on the stack)."""
    recs = T1 + [r("pass", "P2")]
    m, found = audit(recs + [r("cast", "P1", card="A1-022", pay={}, dot="E1"), r("pass", "P1")] + MOVE)
    assert found == [(at(recs), "P2", "201.3")]
    assert m.dots["B1"]["code"] == "A1-022" and m.phase == "over"


def test_x610z_201_3_an_announcement_logged_twice_is_one_finding_and_skipped():
    """The move logged twice: the second is 201.3 (priority went to P2) and skipped (it was applied again: 202.2b, the
    summon activated, 200.5, the energy spent, and the `end` 703.7 with it on the stack)."""
    recs = CAST + pp("P1") + MOVE[:1] + MOVE[:1]
    m, found = audit(recs + MOVE[1:])
    assert found == [(at(recs), "P1", "201.3")]
    assert "the same record as line" in m.violations[0]["message"] and m.dots["B1"]["code"] == "A1-022"


@pytest.mark.parametrize("announce", [
    r("move", "P2", **{"from": "E1"}, path=["B1"], pay={"B": 1}),  # P1's Sky Vessel
    r("cast", "P2", card="A1-040", target="E1", pay={"B": 1}),  # Swift Boots, in P1's hand only
])
def test_x610z_201_3_an_announcement_by_the_wrong_seat_is_judged_as_the_priority_holders(announce):
    """P1 holds priority in his Action Phase; the record names his summon, or a card in his hand and not in P2's, by P2:
    its seat mistaken, 201.3 once and judged as P1's (it was 201.3, 202.1 or 206.1a, 214.2 or 200.1a, 200.5 for P2's
    empty pool, then P2's pass after it 201.3 again)."""
    recs = CAST + pp("P1") + [announce]
    m, found = audit(recs + pp("P1") + [r("end", "P1")])
    assert found == [(at(recs), "P2", "201.3")] and m.phase == "over"
    assert "its player mistaken (judged as P1's)" in m.violations[0]["message"]
    if announce["do"] == "move":
        assert m.dots["B1"]["code"] == "A1-022"
    else:  # (fixed on Sky Vessel, which 602.5 destroyed on its Ending Dot at the end of the turn)
        assert "A1-040" not in m.p["P1"]["hand"] and "A1-040" in m.p["P1"]["discard"]


def test_x610z_201_3_a_pass_without_priority_leaves_the_resolutions_effects_to_come():
    """Discount resolved; a pass without priority, then its effect: the effect is the resolution's (the pass ended the
    resolution's effects: the draw was 503.1 'neither in play nor resolving')."""
    recs = T1 + [r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1") + [r("pass", "P2")]
    m, found = audit(recs + [r("effect", "P1", source="A1-031", op="draw", cards=["A1-010", "A1-010"]),
                             r("end", "P1", discard=["A1-010"])])
    assert found == [(at(recs), "P2", "201.3")] and m.phase == "over"


def test_x610z_700_1_a_turn_record_left_out_begins_the_turn_at_the_next_players_record():
    """The `turn` of P2's turn 2 left out: his draw after P1's `end` is 700.1 once, turn 2 begins there and the rest is
    judged in it (it was 700.1 'turn 1 has ended' at each of P2's records, then P1's `turn` 'turn 2 belongs to P2')."""
    recs = SETUP + two_turns()[:4] + [r("draw", "P2", card="A1-011")]
    m, found = audit(recs + [r("crystal", "P2", card="A1-011"), r("end", "P2"),
                             r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])])
    assert found == [(at(recs), "P2", "700.1")] and m.turn == 3 and m.phase == "over"
    assert m.violations[0]["turn"] == 2 and "turn 2 begins without a turn record" in m.violations[0]["message"]
    refused(recs, "700.1", contains="without a turn record")


# ---------------------------------------------------------------------- a pass without priority (201.3)
CAST_E1 = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1")]


@pytest.mark.parametrize("passes, wrong", [
    (["P1", "P1"], 0),  # P2's pass logged as P1's: P1's own pass after it was 201.3 again, and the Sky Vessel waited
    (["P1", "P2"], 0),  # the two passes in the wrong order: P1's did nothing, and the stack stayed unresolved
    (["P2", "P2", "P1"], 1),  # P2's pass logged twice: the second does nothing, as before
])
def test_x610z_201_3_a_pass_without_priority_is_one_finding(passes, wrong):
    """P1 casts Sky Vessel onto E1 and the passes that resolve it are logged with one mistake: one 201.3, and the
    Sky Vessel resolves at the passes (it did not when the pass without priority was P2's pass with P1's seat, or the
    two came in the wrong order: P1's next legal pass was 201.3 too, his end 703.7)."""
    recs = CAST_E1 + [r("pass", by) for by in passes]
    m, found = audit(recs)
    assert found == [(len(CAST_E1) + 2 + wrong, passes[wrong], "201.3")]
    assert m.dots["E1"]["code"] == "A1-022" and m.stack == [] and (m.phase, m.prio) == ("action", "P1")
    m, found_then = audit(recs + [r("end", "P1")])
    assert found_then == found and m.phase == "over"


# ---------------------------------------------------------------------- 208.5
def test_x610z_208_5_an_activation_whose_target_left_play_fizzles():
    """208.5: "Whenever an Effect with an activated effect doesn't have a legal target or the target isn't in play
    anymore when it resolves the effect doesn't take place". P1 activates Watchtower on P2's Sky Vessel (B5), which is
    destroyed before the activation resolves: it fizzles, as a cast does, and an effect logged for it is refused (it
    took place: a stat of Watchtower's on B1 was accepted)."""
    recs = BATTLE + [r("effect", "P1", source="S1", op="search", card="A1-050"),
                     r("effect", "P1", source="S1", op="energy", type="C", amount=3),
                     r("cast", "P1", card="A1-050", pay={"C": 2})] + pp("P1") + [
        r("activate", "P1", effect="A1-050", target="B5", pay={"C": 1}), r("pass", "P2"),
        r("effect", "P1", source="S1", op="destroy", dot="B5"), r("pass", "P1")]
    m, ref = run(recs, strict=False)
    assert ref.found == [] and m.stack == [] and ref.fizzled == "A1-050"
    stat = r("effect", "P1", source="A1-050", op="stat", dot="B1", stat="range", delta=1, until="end_of_turn")
    refused(recs + [stat], "503.1", contains="it fizzled")


# ---------------------------------------------------------------------- simulated logs
def _audit(header: dict, records: list[dict]):
    m, ref = open_match(header, catalog_for(header), board_for(header), strict=False)
    for k, rec in enumerate(records):
        ref.handle(k + 2, rec)
    return m, [(v.line, v.player, v.rule) for v in ref.found]


def _names(rec: dict, dots: set[str]) -> bool:
    values = [x for v in rec.values() for x in (v if isinstance(v, list) else [v])]
    return any(isinstance(v, str) and v in dots for v in values)


SIMS = list(simulate(20, 7))


@pytest.mark.parametrize("sim", SIMS, ids=[s.match_id for s in SIMS])
def test_x610z_700_1_one_spoiled_record_of_a_simulated_match_is_its_one_finding(sim):
    """A legal simulated match with one record spoiled: the audit gives one finding, at that line, and (but for the
    setup) the match ends as it did. The first `end` logged by the other player (700.1); the first `end` without a
    discard left out (700.1 at the `turn` after it, which takes its line); a draw moved after the active player's first
    action when that action does not name the card drawn (702.1 at that action, which takes the draw's line); each
    player's setup on a dot that is not a Starting Dot (105.2a; its Life Base is placed there, so the log is cut at the
    first record that names that dot or the Starting Dot the match was played from: from there on the later records
    play a game that the setup did not set up)."""
    header, *records = [json.loads(x) for x in sim.lines()]
    board = board_for(header)
    outcome = {"winner": sim.winner, "reason": sim.reason}
    other = {"P1": "P2", "P2": "P1"}

    i = next(k for k, rec in enumerate(records) if rec["do"] == "end")
    spoiled = records[:i] + [{**records[i], "by": other[records[i]["by"]]}] + records[i + 1:]
    m, found = _audit(header, spoiled)
    assert (found, m.outcome) == ([(i + 2, spoiled[i]["by"], "700.1")], outcome), "end by the other player"

    i = next(k for k, rec in enumerate(records[:-1]) if rec["do"] == "end" and not rec.get("discard")
             and records[k + 1]["do"] == "turn")
    m, found = _audit(header, records[:i] + records[i + 1:])
    assert (found, m.outcome) == ([(i + 2, records[i]["by"], "700.1")], outcome), "end left out"

    late = [k for k, rec in enumerate(records[:-1]) if rec["do"] == "draw" and records[k + 1]["by"] == rec["by"]
            and records[k + 1]["do"] in ("crystal", "cast", "move", "attack", "ability", "activate")
            and rec["card"] not in json.dumps(records[k + 1])]
    if late:
        i = late[len(late) // 2]
        m, found = _audit(header, records[:i] + [records[i + 1], records[i]] + records[i + 2:])
        assert (found, m.outcome) == ([(i + 2, records[i]["by"], "702.1")], outcome), "draw after the first action"

    for i in (0, 1):
        dot = sorted(d for d in board.dots if not board.dots[d].is_start)[i]
        cut = next((k for k, rec in enumerate(records) if k > 1 and _names(rec, {dot, records[i]["dot"]})),
                   len(records))
        spoiled = records[:i] + [{**records[i], "dot": dot}] + records[i + 1:cut]
        m, found = _audit(header, spoiled)
        assert found == [(i + 2, records[i]["by"], "105.2a")], f"setup on {dot}, cut at line {cut + 2}"


# ---------------------------------------------------------------------- an `end` or a setup left out, their counts
DATA = Path(__file__).resolve().parents[2] / "data"
LEGAL = Path(__file__).resolve().parents[3] / "examples" / "x610z" / "legal"


def _audited(path: Path):
    (m, ref), = play(path.read_text(), strict=False, source=path.name)
    return m, [(v.line, v.player, v.rule) for v in ref.found]


def _sizes(m, viewer: str) -> dict:
    return {pl: (v.hand_count, v.deck_count, len(v.discard)) for pl, v in build_view(m, viewer).players.items()}


def test_x610z_502_5_an_end_left_out_discards_down_to_the_hand_limit_unknown_which():
    """life-base-destroyed without P1's `end` of turn 1 (line 12, discarding one of his 8 cards): P2's `turn` is 700.1
    once, P1's (the record he left out), and ends the turn discarding 1 card of P1's hand, unknown which (``?`` in his
    Discard Pile); P1's right discard at line 24 is no 502.5 and every seat's counts are the legal log's (digest.8:
    nothing discarded, P1's hand 1 card too many from line 12 on, and a false 502.5 at line 24)."""
    m, found = _audited(DATA / "x610z-end-left-out-discard.x610zlog")
    assert found == [(12, "P1", "700.1")]
    assert m.violations[0]["message"] == ("turn 1 has not ended (an end record comes first): it ends here, discarding "
                                          "1 card of his hand down to 7 (502.5), unknown which")
    (legal_m, _), = play((LEGAL / "life-base-destroyed.x610zlog").read_text(), strict=False)
    for viewer in ("judge", "P1", "P2", "spectator"):
        assert _sizes(m, viewer) == _sizes(legal_m, viewer), viewer
    assert m.p["P1"]["discard"].count(HIDDEN) == 1


def test_x610z_502_5_a_late_end_names_the_card_an_end_left_out_discarded():
    """P1's `end` (discarding 1 of his 8 cards) logged after P2's `turn`: the `turn` discarded one unknown, the late `end`
    says which: the Discard Pile holds it, no ``?``, the hand 7."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("turn", "P2"),
                    r("end", "P1", discard=["A1-010"])]
    m, found = audit(recs)
    assert found == [(at(recs) - 1, "P1", "700.1")]
    assert m.p["P1"]["discard"] == ["A1-010"] and len(m.p["P1"]["hand"]) == 7


def test_x610z_105_4_a_setup_left_out_may_have_taken_murphys_law_no_502_5_on_its_unknown_cards():
    """murphys-law-ending-dot without P2's setup (line 3, Murphy's Law once: 6 cards): 105.2a there, his hand taken as 7
    unknown cards; his `end` at line 20 holding 8 by that count and discarding none is no 502.5, since the unknown
    hand may have been smaller (105.4) (digest.8: '502.5 P2 holds 8 cards and discards 0')."""
    m, found = _audited(DATA / "x610z-setup-left-out-murphy.x610zlog")
    assert found == [(3, "P2", "105.2a")]


def test_x610z_502_5_a_count_resting_on_the_unknown_cards_of_a_setup_left_out_still_charges_too_many_discards():
    """P1's setup left out, 1 card drawn: he holds 8 by the count (7 unknown) and may hold fewer (105.4): discarding 1
    is right, 0 too, but 2 is more than the count's excess: 502.5."""
    base = [r("setup", "P2", dot="S2", hand=P2_HAND), r("turn", "P1"), r("draw", "P1", card="A1-010")]
    for discard, rules in (([], []), (["A1-010"], []), (["A1-010", "A1-010"], ["502.5"])):
        m, found = audit(base + [r("end", "P1", discard=discard)])
        assert [rule for _, _, rule in found if rule != "105.2a"] == rules, discard
