"""The real order of each player's deck, which the match state does not keep (301.3: unordered).

The simulator shuffles each deck with its own seeded ``random.Random`` and deals from the top, so
every drawn, revealed or recovered card is the one a real shuffled deck would give. This object is
the ``DeckOrder`` the legal-action lister reads the top cards from.
"""

from __future__ import annotations

import random
from collections import Counter

from zx_events.games.zx.match import Match


class HiddenDecks:
    """Each player's deck as a list, top card last (dealing pops from the end)."""

    def __init__(self, match: Match, rng: random.Random) -> None:
        self.rng = rng
        self.cards: dict[str, list[str]] = {}
        for pl in ("P1", "P2"):
            self.reshuffle(pl, match.p[pl]["deck"])

    def reshuffle(self, player: str, cards: list[str]) -> None:
        """Shuffle ``cards`` into a new deck (setup, mulligan, Reload 902)."""
        deck = sorted(cards)  # the state's list order must not matter, only the seeded shuffle
        self.rng.shuffle(deck)
        self.cards[player] = deck

    def top(self, player: str, n: int) -> list[str]:
        deck = self.cards[player]
        return deck[:-n - 1:-1] if n > 0 else []

    def deal(self, player: str, n: int) -> list[str]:
        """Take the top ``n`` cards."""
        out = self.top(player, n)
        del self.cards[player][len(self.cards[player]) - len(out):]
        return out

    def take(self, player: str, codes: list[str]) -> None:
        """The record just applied took ``codes`` from the top of the deck."""
        dealt = self.deal(player, len(codes))
        if dealt != list(codes):
            raise RuntimeError(f"{player} took {codes} from the deck, its top was {dealt}")

    def put_back(self, player: str, codes: list[str]) -> None:
        """Return cards to the deck and shuffle (the mulligan, 402)."""
        self.reshuffle(player, self.cards[player] + list(codes))

    def agrees_with(self, match: Match) -> bool:
        """The hidden order holds exactly the cards the state says each deck holds."""
        return all(Counter(self.cards[pl]) == Counter(match.p[pl]["deck"]) for pl in ("P1", "P2"))
