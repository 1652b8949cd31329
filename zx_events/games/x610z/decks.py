"""Deck construction (101, 102, 304.3) and the shipped sample decks.

``check_deck`` returns every problem as ``(rule, message)``:
- Constructed: at least 51 cards with exactly one Life Base Card (101.1a; "exactly" is a choice,
  open question 3); copies at most the card's Deck Restriction, deck and side deck together
  (304.3a, 102.1a); a side deck of 0 or exactly 10 cards (102.1a).
- Limited: at least 41 cards with exactly one Life Base Card; the Deck Restriction is ignored
  (101.1b); the side deck is everything not in the deck, taken as given (102.1b).
"""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from typing import Any

from .cards import Catalog

MIN_CONSTRUCTED = 51  # 101.1a
MIN_LIMITED = 41  # 101.1b
SIDE_DECK = 10  # 102.1a


def _copies(cards: Any, where: str, problems: list) -> Counter:
    out: Counter = Counter()
    if not isinstance(cards, dict):
        return out
    for code, n in cards.items():
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            problems.append(("101.1a", f"{where}: {code} copies must be a positive whole number, got {n!r}"))
            continue
        out[code] += n
    return out


def check_deck(catalog: Catalog, deck: Any, side: Any = None, fmt: str = "constructed") -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    main = _copies(deck, "deck", problems)
    extra = _copies(side or {}, "side deck", problems)
    for code in list(main) + list(extra):
        if code not in catalog:
            problems.append(("101.1a", f"unknown card code {code}"))
            return problems
    size = sum(main.values())
    life = sum(n for c, n in main.items() if catalog[c].is_life_base)
    limited = fmt == "limited"
    rule, least = ("101.1b", MIN_LIMITED) if limited else ("101.1a", MIN_CONSTRUCTED)
    if size < least:
        problems.append((rule, f"the deck has {size} cards, needs at least {least}"))
    if life != 1:
        problems.append((rule, f"the deck has {life} Life Base Cards, needs exactly 1"))
    if not limited:
        both = main + extra
        for code, n in sorted(both.items()):
            limit = catalog[code].restriction
            if n > limit:
                where = "deck and side deck" if extra.get(code) else "deck"
                problems.append(("304.3a", f"{n} copies of {code} ({catalog[code].name}) in the {where}, "
                                           f"its Deck Restriction is {int(limit)}"))
        n_side = sum(extra.values())
        if n_side not in (0, SIDE_DECK):
            problems.append(("102.1a", f"the side deck has {n_side} cards, needs 0 or exactly {SIDE_DECK}"))
    return problems


def sample_decks() -> dict:
    """The shipped sample decks: ``{"catalog", "format", "decks": [{"name", "deck", "side"?}]}``."""
    return json.loads(resources.files(__package__).joinpath("catalogs").joinpath("x610z-sample-decks.json")
                      .read_text(encoding="utf-8"))
