"""The shared analytics tables of matches stored with ``--accept-violations`` whose log left a record out or
logged it late (tests/data: a simulated match each, one record deleted, moved or changed): a setup left out, an
`end` left out or logged after the next `turn` record, a draw left out (X610Z) or naming a card not in the deck
(Z/X). What each column means is docs/data-dictionary.md's, for both games alike."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from zx_cli.main import zx

DATA = Path(__file__).parent / "data"
LOGS = ("x610z-setup-left-out.x610zlog", "zx-setup-left-out.zxlog", "x610z-end-left-out.x610zlog",
        "x610z-end-late.x610zlog", "zx-end-left-out.zxlog", "zx-end-late.zxlog", "x610z-draw-left-out.x610zlog",
        "zx-draw-misnamed.zxlog")


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    folder = tmp_path_factory.mktemp("left-out")
    store = folder / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--accept-violations",
                                *(str(DATA / name) for name in LOGS)])
    assert r.exit_code == 0, r.output
    c = duckdb.connect(str(store.with_suffix(".duckdb")), read_only=True)
    yield c
    c.close()


def rows(con, query: str, *params) -> list[tuple]:
    return con.execute(query, list(params)).fetchall()


def test_105_2a_a_card_played_from_the_unknown_hand_of_a_setup_left_out_was_in_the_opening_hand(con):
    """X610Z P1's setup is left out (105.2a): his hand is 7 unknown cards, and a card he later casts that the
    state does not hold is one of them (``Match._from_hand``). A1-010 (an Energy Crystal) is cast twice, never
    drawn: it was in the opening hand (OH/GIH), not a game it was never seen in (GNS) though played."""
    assert rows(con, "SELECT opening, drawn, played FROM card_games WHERE match_id = 'x610z-sim-5-0022' "
                     "AND player = 'P1' AND card = 'A1-010'") == [(True, 0, 2)]
    # an `opening` draws row each, turn 0, for the unknown cards known so (at most 7)
    opening = rows(con, "SELECT turn, card FROM draws WHERE match_id = 'x610z-sim-5-0022' AND player = 'P1' "
                        "AND source = 'opening' ORDER BY seq")
    assert 0 < len(opening) <= 7 and {t for t, _ in opening} == {0} and ("A1-010" in {c for _, c in opening})
    # no card of P1 is both never in the hand and played
    assert rows(con, "SELECT card FROM card_games WHERE match_id = 'x610z-sim-5-0022' AND player = 'P1' "
                     "AND played > 0 AND NOT opening AND drawn = 0") == []


def test_105_2a_a_setup_left_out_has_no_hand_size_and_no_mulligan(con):
    """seats.hand_size and mulligan are NULL without a setup record (docs/data-dictionary.md), for X610Z as
    for Z/X: a setup left out is not a kept hand of 7 in ``zx stats mulligans``."""
    got = rows(con, "SELECT m.game, s.side, s.hand_size, s.mulligan FROM seats s JOIN matches m USING (match_no) "
                    "WHERE m.match_id IN ('x610z-sim-5-0022', 'sim-3-0035') ORDER BY m.game, s.side")
    assert got == [("x610z", "P1", None, None), ("x610z", "P2", 7, False), ("zx", "P1", 4, False),
                   ("zx", "P2", None, None)]


def test_700_1_turns_ended_is_the_end_record_applied_late_or_not_left_out_alike_in_both_games(con):
    """``turns.ended``: the turn's End Phase was recorded. An `end` logged after the next `turn` record is applied
    (a LateRecord): recorded, True; an `end` left out (the `turn` record ends the turn, X610Z's TurnEnded at that
    record): False. X610Z said True for both, Z/X False for both."""
    got = rows(con, "SELECT m.match_id, t.turn, t.ended FROM turns t JOIN matches m USING (match_no) "
                    "WHERE (m.match_id, t.turn) IN (('sim-3-0033', 2), ('sim-9-0006', 4), ('x610z-sim-5-0023', 2), "
                    "('x610z-sim-11-0006', 4)) ORDER BY m.match_id")
    assert got == [("sim-3-0033", 2, True), ("sim-9-0006", 4, False), ("x610z-sim-11-0006", 4, False),
                   ("x610z-sim-5-0023", 2, True)]
    # every other turn of those matches that began and was followed by another ended as recorded
    assert rows(con, "SELECT m.match_id, t.turn FROM turns t JOIN matches m USING (match_no) WHERE NOT t.ended "
                     "AND m.match_id IN ('sim-3-0033', 'sim-9-0006', 'x610z-sim-5-0023', 'x610z-sim-11-0006') "
                     "AND t.turn < m.turns ORDER BY ALL") == [("sim-9-0006", 4), ("x610z-sim-11-0006", 4)]


def test_702_1_the_card_of_a_draw_left_out_is_no_draw_phase_draw_of_the_turn_it_is_played_in(con):
    """X610Z P1's draw of turn 3 is left out (702.1 there); the card shows when he casts it in turn 9, where the
    engine records it drawn. The Draw Phase draws exactly 1 (702.1): turn 9 drew 1, turn 3 none, and the card's
    draws row says what it is (``late``), in card_games.drawn, in no turn's ``drawn``."""
    assert rows(con, "SELECT turn, player, drawn FROM turns t JOIN matches m USING (match_no) "
                     "WHERE m.match_id = 'x610z-sim-5-0001-d26' AND turn IN (3, 9) ORDER BY turn") == \
        [(3, "P1", 0), (9, "P1", 1)]
    assert rows(con, "SELECT turn, card, source FROM draws WHERE match_id = 'x610z-sim-5-0001-d26' AND turn = 9 "
                     "ORDER BY seq") == [(9, "A1-010", "draw"), (9, "A1-025", "late")]
    assert rows(con, "SELECT drawn FROM card_games WHERE match_id = 'x610z-sim-5-0001-d26' AND player = 'P1' "
                     "AND card = 'A1-025'") == [(1,)]


def test_301_1_the_card_of_a_draw_named_wrong_is_no_draw_phase_draw_of_the_turn_it_is_played_in(con):
    """Z/X, the same case: P2's turn 3 draw names R01-001, not in his deck (301.1), for W01-010, which he plays
    in turn 5 (``Referee._drawn_late``). Turn 5's Draw Phase drew 2, not 3; the card is a ``late`` draws row."""
    assert rows(con, "SELECT turn, drawn FROM turns t JOIN matches m USING (match_no) "
                     "WHERE m.match_id = 'sim-5-0002' AND turn IN (3, 5) ORDER BY turn") == [(3, 1), (5, 2)]
    assert rows(con, "SELECT turn, source FROM draws WHERE match_id = 'sim-5-0002' AND card = 'W01-010' "
                     "AND turn > 0") == [(5, "late")]
    # every turn's drawn is its Draw Phase's draws rows
    assert rows(con, "SELECT m.match_id, t.turn FROM turns t JOIN matches m USING (match_no) WHERE t.drawn <> "
                     "(SELECT count(*) FROM draws d WHERE d.match_no = t.match_no AND d.turn = t.turn "
                     "AND d.source = 'draw')") == []


def test_502_5_a_late_end_discarding_an_unknown_card_of_a_setup_left_out_was_in_the_opening_hand(tmp_path):
    """X610Z P1's setup left out, and his turn 1 `end` logged after P2's `turn` record (a LateRecord), discarding
    A1-035, a card of his deck the log never shows: the engine takes it from his 7 unknown cards (``_from_hand``,
    as at an `end` in time), so the rows do too: in the opening hand, an ``opening`` draws row (the late discard
    was taken from the known hand only, and the card counted in no hand at all)."""
    lines = (DATA / "x610z-setup-left-out.x610zlog").read_text().splitlines()
    assert lines[9] == '{"do": "end", "by": "P1"}' and lines[10] == '{"do": "turn", "by": "P2"}'
    lines[9], lines[10] = lines[10], '{"do": "end", "by": "P1", "discard": ["A1-035"]}'
    log = tmp_path / "late.x610zlog"
    log.write_text("\n".join(lines) + "\n")
    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--accept-violations", str(log)])
    assert r.exit_code == 0, r.output
    c = duckdb.connect(str(store.with_suffix(".duckdb")), read_only=True)
    try:
        assert rows(c, "SELECT opening, drawn, played FROM card_games WHERE match_id = 'x610z-sim-5-0022' "
                       "AND player = 'P1' AND card = 'A1-035'") == [(True, 0, 0)]
        assert ("A1-035",) in rows(c, "SELECT card FROM draws WHERE match_id = 'x610z-sim-5-0022' AND player = 'P1' "
                                      "AND source = 'opening'")
    finally:
        c.close()


def _imported(tmp_path, name: str, lines: list[str]):
    """A log of tests/data, changed (``lines``), imported with --accept-violations: its analytics file, open."""
    log = tmp_path / name
    log.write_text("\n".join(lines) + "\n")
    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--accept-violations", str(log)])
    assert r.exit_code == 0, r.output
    return duckdb.connect(str(store.with_suffix(".duckdb")), read_only=True)


def test_402_a_card_played_from_the_hand_of_a_setup_left_out_was_in_the_opening_hand(tmp_path):
    """Z/X P2's setup is left out (402, "turn 1 before the setup of P2"): it was done unseen, his hand 4 unknown
    cards (Life 4, Resource 2), and a card he uses from the hand that it does not name is one of them, known there
    (``CardsDrawn`` with ``unknown``): the opening hand (OH/GIH, an ``opening`` draws row at the play, turn 0), not a
    game it was never seen in (GNS) though played, as X610Z's unknown hand (105.2a). His turn 3 draw names W01-001
    and W01-009 here, not W01-003 and W01-002: the four unknown cards are W01-015 and W01-013 (put into Resource)
    and W01-012 and W01-002 (played); W01-003, played in turn 7, is a fifth, which the hand of 4 cannot be: played as
    written (301.1, ``Referee._ghost``), a ``late`` card. (Before, with P2 never set up, his Resource records were
    refused and W01-002 and W01-003 were the opening cards.)"""
    lines = (DATA / "zx-setup-left-out.zxlog").read_text().splitlines()
    assert lines[13] == '{"do": "draw", "by": "P2", "cards": ["W01-003", "W01-002"]}'
    lines[13] = '{"do": "draw", "by": "P2", "cards": ["W01-001", "W01-009"]}'
    c = _imported(tmp_path, "ghost.zxlog", lines)
    try:
        assert rows(c, "SELECT card, opening, drawn, played FROM card_games WHERE match_id = 'sim-3-0035' "
                       "AND player = 'P2' AND card IN ('W01-002', 'W01-003') ORDER BY card") == \
            [("W01-002", True, 0, 1), ("W01-003", False, 1, 1)]
        assert rows(c, "SELECT turn, card FROM draws WHERE match_id = 'sim-3-0035' AND player = 'P2' "
                       "AND source = 'opening' ORDER BY seq") == \
            [(0, "W01-015"), (0, "W01-012"), (0, "W01-013"), (0, "W01-002")]
        assert rows(c, "SELECT turn, card FROM draws WHERE match_id = 'sim-3-0035' AND player = 'P2' "
                       "AND source = 'late'") == [(7, "W01-003")]
        # no card of P2's deck list is both never in his hand and played (a Dynamis card is in no deck list)
        assert rows(c, "SELECT card FROM card_games WHERE match_id = 'sim-3-0035' AND player = 'P2' "
                       "AND copies > 0 AND played > 0 AND NOT opening AND drawn = 0") == []
    finally:
        c.close()


def test_402_a_setup_written_after_the_turn_record_of_turn_1_is_the_opening_hand_of_turn_0(tmp_path):
    """Z/X P1's setup written after the `turn` record of turn 1 (402 there) is applied late: his hand is the
    opening hand, turn 0 in ``draws`` as every opening hand (it was the turn the record came in, 1), and his
    seat's hand_size is the hand's 4."""
    lines = (DATA / "zx-setup-left-out.zxlog").read_text().splitlines()
    assert lines[1].startswith('{"do": "setup", "by": "P1"') and lines[2] == '{"do": "turn", "by": "P2", "turn": 1}'
    lines[1], lines[2] = lines[2], lines[1]
    c = _imported(tmp_path, "late-setup.zxlog", lines)
    try:
        assert rows(c, "SELECT turn, card FROM draws WHERE match_id = 'sim-3-0035' AND player = 'P1' "
                       "AND source = 'opening' ORDER BY seq") == \
            [(0, "K01-004"), (0, "K01-017"), (0, "N01-003"), (0, "K01-003")]
        assert rows(c, "SELECT hand_size, mulligan FROM seats s JOIN matches m USING (match_no) "
                       "WHERE m.match_id = 'sim-3-0035' AND side = 'P1'") == [(4, False)]
    finally:
        c.close()


def test_301_1_a_card_played_as_written_from_a_hand_the_log_never_put_it_in_is_a_late_card(tmp_path):
    """Z/X P1's setup names K01-002 and K01-006 for the K01-004 and K01-003 he plays in turn 2 (a mulligan left
    out of the setup, a card an effect put into the hand with no record: the log never puts them there). Each play
    is taken as written, for a card of the hand the log does not name (301.1, ``Referee._ghost``): the card was in
    his hand, brought by a record the log left out, and known where it is used, a ``late`` draws row (drawn), not a
    game it was never seen in (GNS) though played."""
    lines = (DATA / "zx-setup-left-out.zxlog").read_text().splitlines()
    old = '"hand": ["K01-004", "K01-017", "N01-003", "K01-003"]'
    assert old in lines[1]
    lines[1] = lines[1].replace(old, '"hand": ["K01-002", "K01-017", "N01-003", "K01-006"]')
    c = _imported(tmp_path, "untold.zxlog", lines)
    try:
        assert rows(c, "SELECT turn, card, source FROM draws WHERE match_id = 'sim-3-0035' AND player = 'P1' "
                       "AND turn = 2 ORDER BY seq") == \
            [(2, "K01-011", "draw"), (2, "K01-010", "draw"), (2, "K01-003", "late"), (2, "K01-004", "late")]
        assert rows(c, "SELECT card, opening, drawn FROM card_games WHERE match_id = 'sim-3-0035' AND player = 'P1' "
                       "AND card IN ('K01-003', 'K01-004') ORDER BY card") == [("K01-003", False, 1), ("K01-004", False, 2)]
    # (K01-004: the card of turn 2, late, and the one his turn 6 draw names)
        assert rows(c, "SELECT drawn FROM turns t JOIN matches m USING (match_no) WHERE m.match_id = 'sim-3-0035' "
                       "AND turn = 2") == [(2,)]  # (no Draw Phase draw)
        # no card of either deck list is both never in the hand and played from it (a Dynamis card is in no list)
        assert rows(c, "SELECT player, card FROM card_games WHERE match_id = 'sim-3-0035' AND copies > 0 "
                       "AND played > 0 AND NOT opening AND drawn = 0") == []
    finally:
        c.close()
