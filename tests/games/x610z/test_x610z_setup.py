"""Deck construction (101, 102, 304.3) and game setup (105)."""

from x610z_builder import P1_DECK, P1_HAND, P2_HAND, SETUP, header, legal, r, refused, run


def _with_deck(deck, **player) -> dict:
    h = header()
    h["players"]["P1"] = {"name": "A", "deck": deck, **player}
    return h


def test_x610z_101_1a_constructed_deck_needs_51_cards():
    deck = dict(P1_DECK, **{"A1-010": 10})
    refused(SETUP, "101.1a", line=1, head=_with_deck(deck), contains="needs at least 51")


def test_x610z_101_1a_exactly_one_life_base_card():
    deck = dict(P1_DECK, **{"A1-001": 1})
    refused(SETUP, "101.1a", line=1, head=_with_deck(deck), contains="2 Life Base Cards")


def test_x610z_101_1b_limited_deck_needs_41_cards_and_ignores_restriction():
    deck = {"A1-001": 1, "A1-010": 10, "A1-011": 5, "A1-020": 10, "A1-022": 5, "A1-030": 1, "A1-031": 1,
            "A1-040": 1}  # 34 cards; 10 Hunter Dragons are fine in Limited
    h = _with_deck(deck)
    h["format"] = "limited"
    err = refused(SETUP, "101.1b", line=1, head=h)
    assert "34 cards" in err.message
    h["players"]["P1"]["deck"]["A1-010"] = 17
    legal(SETUP, head=h)


def test_x610z_304_3a_copies_above_deck_restriction():
    deck = dict(P1_DECK, **{"A1-020": 4, "A1-010": 17})
    refused(SETUP, "304.3a", line=1, head=_with_deck(deck), contains="Deck Restriction is 3")


def test_x610z_304_3a_restriction_counts_deck_and_side_deck():
    side = {"A1-020": 1, "A1-010": 9}
    refused(SETUP, "304.3a", line=1, head=_with_deck(dict(P1_DECK), side=side), contains="deck and side deck")


def test_x610z_102_1a_side_deck_is_0_or_10_cards():
    refused(SETUP, "102.1a", line=1, head=_with_deck(dict(P1_DECK), side={"A1-010": 5}))
    legal(SETUP, head=_with_deck(dict(P1_DECK), side={"A1-010": 5, "A1-011": 5}))


def test_x610z_105_2a_starting_player_sets_up_first():
    refused([SETUP[1], SETUP[0]], "105.2a", line=2, contains="places his Life Base first")


def test_x610z_105_2a_life_base_on_a_starting_dot():
    refused([r("setup", "P1", dot="A1", hand=P1_HAND)], "105.2a", contains="not a Starting Dot")


def test_x610z_105_2b_life_bases_on_opposing_starting_dots():
    refused([SETUP[0], r("setup", "P2", dot="S3", hand=P2_HAND)], "105.2b", contains="does not oppose")


def test_x610z_105_3a_initial_hand_is_7_cards():
    refused([r("setup", "P1", dot="S1", hand=P1_HAND[:6])], "105.3a", contains="needs 7")


def test_x610z_105_3a_hand_comes_from_the_deck_without_the_life_base():
    refused([r("setup", "P1", dot="S1", hand=P1_HAND[:6] + ["A1-002"])], "105.3a", contains="A1-002")


def test_x610z_105_4_murphys_law_hands_shrink_by_one():
    ok = r("setup", "P1", dot="S1", hand=P1_HAND, murphy=[P1_HAND[:6], P1_HAND[:5]])
    m = legal([ok])
    assert len(m.p["P1"]["hand"]) == 5 and len(m.p["P1"]["deck"]) == 50 - 5
    refused([r("setup", "P1", dot="S1", hand=P1_HAND, murphy=[P1_HAND[:5]])], "105.4", contains="needs 6")


def test_x610z_700_1_turns_alternate_from_the_starting_player():
    refused(SETUP + [r("turn", "P2")], "700.1", contains="belongs to P1")


def test_x610z_700_1_turn_number_must_match():
    refused(SETUP + [r("turn", "P1", turn=2)], "700.1", contains="record says turn 2")


def test_x610z_setup_life_base_is_in_play_and_out_of_the_deck():
    m, _ = run(SETUP)
    assert m.dots["S1"]["code"] == "A1-002" and m.dots["S1"]["life"]
    assert len(m.p["P1"]["deck"]) == 51 - 1 - 7


def test_x610z_105_3a_a_card_not_in_the_deck_is_left_out_and_the_setup_applied():
    """P1's hand names his Life Base Card: the audit skipped the whole setup (110 violations: a false
    105.2a for P2's, then 'a turn before both players set up' and 700.1 on nearly every record). Now
    one 105.3a; the Life Base is on S1, the hand holds the 6 cards the deck held, the match goes on."""
    bad = r("setup", "P1", dot="S1", hand=["A1-002"] + P1_HAND[:6])
    m, ref = run([bad, SETUP[1], r("turn", "P1"), r("draw", "P1", card="A1-010")], strict=False)
    assert [(v.line, v.rule, v.player) for v in ref.found] == [(2, "105.3a", "P1")]
    assert m.dots["S1"]["code"] == "A1-002" and m.p["P1"]["home"] == "S1" and m.p["P1"]["ready"]
    assert m.p["P1"]["hand"] == P1_HAND[:6] + ["A1-010"] and len(m.p["P1"]["deck"]) == 51 - 1 - 6 - 1
    assert m.turn == 1 and m.p["P2"]["ready"]


def test_x610z_105_4_a_murphy_card_not_in_the_deck_is_left_out_and_the_setup_applied():
    bad = r("setup", "P1", dot="S1", hand=P1_HAND, murphy=[P1_HAND[:5] + ["A1-001"]])
    refused([bad], "105.4", contains="A1-001 not in P1's deck after shuffling the hand back")
    m, ref = run([bad, SETUP[1], r("turn", "P1")], strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(2, "105.4")]
    assert m.p["P1"]["hand"] == P1_HAND[:5] and len(m.p["P1"]["deck"]) == 51 - 1 - 5 and m.turn == 1


def test_x610z_101_1b_a_limited_deck_without_a_life_base_card_is_cited_as_limited():
    """The setup of a Limited deck with no Life Base Card cited 101.1a (Constructed Play), after the header's own
    101.1b for the same deck."""
    deck = {"A1-010": 41, "A1-011": 10}
    h = _with_deck(deck)
    h["format"] = "limited"
    setup = [r("setup", "P1", dot="S1", hand=["A1-010"] * 4 + ["A1-011"] * 3)]
    _, ref = run(setup, head=h, strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(1, "101.1b"), (2, "101.1b")]
    assert ref.found[1].message == "P1's deck has no Life Base Card"
    _, ref = run(setup, head=_with_deck(deck), strict=False)
    assert [(v.line, v.rule) for v in ref.found] == [(1, "101.1a"), (2, "101.1a")]


def test_x610z_105_4_no_murphys_law_hand_after_an_empty_hand():
    """105.4: "The Murphy's Law option can be done until a player has no cards left in his hand". A hand after
    the empty one was reported as "needs -1"."""
    hands = [P1_HAND[:n] for n in range(6, -1, -1)]
    legal([r("setup", "P1", dot="S1", hand=P1_HAND, murphy=hands)])
    err = refused([r("setup", "P1", dot="S1", hand=P1_HAND, murphy=hands + [P1_HAND[:1]])], "105.4")
    assert err.message == ("Murphy's Law hand 8 follows an empty hand: the option is taken only while P1 has cards "
                           "in his hand (each new hand is one card smaller)")


def test_x610z_101_1a_a_deck_of_two_life_bases_sets_up_the_same_one_whatever_its_order():
    """QA round 32: with two Life Base Cards (101.1a) the one placed was the first the header listed: the same deck
    in another key order (the stored header's: sorted) placed the other, and a stored match's audit found a 202.5d
    its import had not (Iron Keep's Range 1 against Life Base's 0). The lowest code is placed, in either order."""
    rest = {c: n for c, n in P1_DECK.items() if c != "A1-002"}
    rest["A1-010"] -= 1  # (51 cards still: the second Life Base is the only 101.1a)
    placed, found = [], []
    for deck in ({"A1-002": 1, **rest, "A1-001": 1}, {"A1-001": 1, **rest, "A1-002": 1}):
        m, ref = run(SETUP, _with_deck(deck), strict=False)
        placed.append([u["code"] for u in m.dots.values() if u["owner"] == "P1" and u["life"]])
        found.append([(v.rule, v.line) for v in ref.found])
    assert placed == [["A1-001"], ["A1-001"]], placed
    assert found[0] == found[1] == [("101.1a", 1)], found
