"""The Square, 303: notation, Player Squares, adjacency, distance, Areas."""

import pytest
from hypothesis import given, strategies as st

from zx_events.games.zx.board import (ALL_SQUARES, Square, area_of, army_area, center_area, enemy_army_area,
                             player_square)

squares = st.sampled_from(ALL_SQUARES)


def test_square_parse_format_round_trip():
    for s in ALL_SQUARES:
        assert Square.parse(str(s)) == s
        assert eval(repr(s)) == s  # repr round-trips
    assert [str(s) for s in ALL_SQUARES] == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]


@pytest.mark.parametrize("bad", ["", "a", "d1", "a4", "A1", "b0", "a11", 3])
def test_square_parse_rejects(bad):
    with pytest.raises(ValueError):
        Square.parse(bad)


def test_303_2_nine_squares_in_a_3x3_grid():
    assert len(ALL_SQUARES) == 9 and len(set(ALL_SQUARES)) == 9


def test_303_2_orthogonal_neighbours_are_next_to_each_other():
    b2 = Square.parse("b2")
    assert sorted(str(s) for s in b2.neighbours()) == ["a2", "b1", "b3", "c2"]
    assert sorted(str(s) for s in Square.parse("a1").neighbours()) == ["a2", "b1"]


def test_303_2_diagonal_squares_are_not_next_to_each_other():
    assert not Square.parse("a1").is_next_to(Square.parse("b2"))


def test_303_2a_distance_to_the_next_square_is_1():
    assert Square.parse("b1").distance(Square.parse("b2")) == 1


def test_303_2a_diagonal_distance_is_2():
    assert Square.parse("a1").distance(Square.parse("b2")) == 2


def test_303_2a_corner_to_corner_is_4():
    assert Square.parse("a1").distance(Square.parse("c3")) == 4


@given(squares, squares, squares)
def test_303_2a_distance_is_a_metric(a, b, c):
    assert a.distance(b) == b.distance(a)
    assert (a.distance(b) == 0) == (a == b)
    assert a.distance(c) <= a.distance(b) + b.distance(c)


def test_303_3a_player_squares_are_b1_and_b3():
    assert [str(s) for s in ALL_SQUARES if s.is_player_square] == ["b1", "b3"]
    assert str(player_square("P1")) == "b1" and str(player_square("P2")) == "b3"


def test_303_3b_seven_normal_squares():
    assert sum(s.is_normal_square for s in ALL_SQUARES) == 7


def test_303_4a_army_area():
    assert sorted(map(str, army_area("P1"))) == ["a1", "b1", "c1"]
    assert sorted(map(str, army_area("P2"))) == ["a3", "b3", "c3"]


def test_303_4b_enemy_army_area():
    assert enemy_army_area("P1") == army_area("P2")
    assert enemy_army_area("P2") == army_area("P1")


def test_303_4c_center_area():
    assert sorted(map(str, center_area())) == ["a2", "b2", "c2"]
    assert area_of(Square.parse("b2"), "P1") == "center"
    assert area_of(Square.parse("c3"), "P1") == "enemy"
    assert area_of(Square.parse("c3"), "P2") == "army"
