"""The Square (303): a 3x3 grid named a1..c3 as seen from P1's seat.

The letter is the column (a = P1's left), the digit the row counted from P1's side, so row 1 is
P1's Army Area, row 3 P2's, and row 2 the Center Area. b1 and b3 are the Player Squares.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Iterator

PLAYERS = ("P1", "P2")
COLUMNS = "abc"
ROWS = "123"


def opponent(player: str) -> str:
    """The other player."""
    return "P2" if player == "P1" else "P1"


@dataclass(frozen=True, slots=True, order=True)
class Square:
    """One of the nine Squares (303.2). ``Square.parse("b3")``; ``str(square)`` gives it back."""

    col: int  # 0..2, a..c
    row: int  # 0..2, 1..3

    @classmethod
    def parse(cls, text: str) -> "Square":
        return _parse(text)

    def __str__(self) -> str:
        return f"{COLUMNS[self.col]}{ROWS[self.row]}"

    def __repr__(self) -> str:
        return f"Square.parse({str(self)!r})"

    @property
    def is_player_square(self) -> bool:
        """303.3a: the Squares on each side next to the middle Square in a line with it (b1, b3)."""
        return self.col == 1 and self.row != 1

    @property
    def is_normal_square(self) -> bool:
        """303.3b: the seven Squares that are not Player Squares."""
        return not self.is_player_square

    def distance(self, other: "Square") -> int:
        """303.2a: the fewest steps through orthogonal neighbours (a diagonal is 2)."""
        return abs(self.col - other.col) + abs(self.row - other.row)

    def is_next_to(self, other: "Square") -> bool:
        """303.2: vertically or horizontally adjacent; diagonal Squares are not next to each other."""
        return self.distance(other) == 1

    def neighbours(self) -> list["Square"]:
        return [s for s in ALL_SQUARES if self.is_next_to(s)]


@cache
def _parse(text: str) -> Square:
    if not isinstance(text, str) or len(text) != 2 or text[0] not in COLUMNS or text[1] not in ROWS:
        raise ValueError(f"not a Square: {text!r} (expected a1..c3)")
    return Square(COLUMNS.index(text[0]), ROWS.index(text[1]))


ALL_SQUARES: tuple[Square, ...] = tuple(Square(c, r) for r in range(3) for c in range(3))
SQUARE_NAMES: tuple[str, ...] = tuple(str(s) for s in ALL_SQUARES)
MIDDLE = Square(1, 1)


def is_square_name(text: object) -> bool:
    return isinstance(text, str) and text in SQUARE_NAMES


def player_square(player: str) -> Square:
    """402.1a: P1 sits behind b1, P2 behind b3."""
    return Square(1, 0) if player == "P1" else Square(1, 2)


def army_area(player: str) -> frozenset[Square]:
    """303.4a: your Player Square and the Squares next to it except the middle."""
    ps = player_square(player)
    return frozenset({ps, *[s for s in ps.neighbours() if s != MIDDLE]})


def enemy_army_area(player: str) -> frozenset[Square]:
    """303.4b: the opponent's Player Square and the Squares next to it except the middle."""
    return army_area(opponent(player))


def center_area() -> frozenset[Square]:
    """303.4c: the Squares in neither Army Area."""
    return frozenset(ALL_SQUARES) - army_area("P1") - army_area("P2")


def area_of(square: Square, player: str) -> str:
    """'army', 'center' or 'enemy' for ``square`` from ``player``'s point of view (303.4)."""
    if square in army_area(player):
        return "army"
    if square in enemy_army_area(player):
        return "enemy"
    return "center"


def squares() -> Iterator[Square]:
    return iter(ALL_SQUARES)
