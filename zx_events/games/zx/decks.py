"""Deck construction (401) and the shipped sample decks.

``check_deck`` returns every construction problem as ``(rule, message)``. Every problem cites
rule ``"401"`` (deck construction): the digest names 401.8-401.10 for the Dynamis clauses without
saying which sub-clause is which, so no sub-number is printed. The clauses checked (rules digest,
"Deck and setup"):

- main deck exactly 50 cards, only Z/X and Event cards;
- at most 4 copies of a card *name* (different codes with the same name, e.g. an alternate-art
  print, count together), counted separately in the main deck and in the Dynamis deck;
- exactly 20 main-deck cards with the Ignition (IG) icon; at most 4 Life Recovery (LR) and at most
  4 Void Bringer (VB) cards;
- Dynamis deck optional, at most 16 cards, only Z/X EX, Shift, EV EX and Z/X OB;
- the player card is a Player or a PL EX (202.10a). ``player_card=None`` means the record names
  none and nothing is checked.

Codes the catalog lacks are reported (``unknown card code X``), never raised; copies must be
positive whole numbers. Deck colours are not a construction rule and are not checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from zx_events.games.zx.cards import Card, Catalog

RULE = "401"
MAIN_DECK_SIZE = 50
MAX_COPIES = 4
IG_COUNT = 20
MAX_LR = 4
MAX_VB = 4
MAX_DYNAMIS = 16


def _valid_copies(n: Any) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n > 0


def _entries(catalog: Catalog, cards: Any, where: str,
             problems: list[tuple[str, str]]) -> list[tuple[Card, int]]:
    """The (card, copies) pairs that can be counted; bad copies and unknown codes are reported."""
    if not isinstance(cards, dict):
        problems.append((RULE, f"{where} must map card codes to copies, got {type(cards).__name__}"))
        return []
    out: list[tuple[Card, int]] = []
    for code, copies in cards.items():
        if not _valid_copies(copies):
            problems.append((RULE, f"{where}: {code} copies must be a positive whole number, got {copies!r}"))
            continue
        card = catalog.get(code) if isinstance(code, str) else None
        if card is None:
            problems.append((RULE, f"{where}: unknown card code {code}"))
            continue
        out.append((card, copies))
    return out


def _name_limit(entries: list[tuple[Card, int]], where: str, problems: list[tuple[str, str]]) -> None:
    by_name: dict[str, list[tuple[str, int]]] = {}
    for card, n in entries:
        by_name.setdefault(card.name, []).append((card.code, n))
    for name, prints in by_name.items():
        total = sum(n for _, n in prints)
        if total > MAX_COPIES:
            detail = ", ".join(f"{code} x{n}" for code, n in prints)
            problems.append((RULE, f"{where} has {total} copies of {name!r} ({detail}), at most {MAX_COPIES} of a name"))


_CHECKED: dict[tuple, list[tuple[str, str]]] = {}  # a league plays few decks: each is checked once
_CHECKED_MAX = 1024


def _key(cards: Any) -> Any:
    """``cards`` as part of a cache key: its entries in order, with each value's type (True is not 1)."""
    if isinstance(cards, dict):
        return tuple((k, type(v), v) for k, v in cards.items())
    return type(cards), cards


def check_deck(catalog: Catalog, deck: dict[str, int], dynamis: dict[str, int] | None,
               player_card: str | None) -> list[tuple[str, str]]:
    """Every deck-construction problem (401) as ``(rule, message)``; empty when the deck is legal.

    The answer depends on the catalog's content (its SHA-256) and the deck list alone, so it is kept
    for the next match that brings the same deck (at most ``_CHECKED_MAX`` of them)."""
    try:
        key = (catalog.name, catalog.sha256, _key(deck), _key(dynamis), type(player_card), player_card)
        found = _CHECKED.get(key)
    except TypeError:  # an unhashable value: nothing to remember
        return _check_deck(catalog, deck, dynamis, player_card)
    if found is None:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        found = _CHECKED[key] = _check_deck(catalog, deck, dynamis, player_card)
    return list(found)


def _check_deck(catalog: Catalog, deck: dict[str, int], dynamis: dict[str, int] | None,
                player_card: str | None) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []

    # main deck
    main = _entries(catalog, deck, "main deck", problems)
    for card, n in main:
        if not card.type.in_main_deck:
            problems.append((RULE, f"main deck: {card.code} {card.name!r} is {card.type.a}; "
                                   "only Z/X and Event cards go in the main deck"))
    if isinstance(deck, dict):
        total = sum(n for n in deck.values() if _valid_copies(n))
        if total != MAIN_DECK_SIZE:
            problems.append((RULE, f"main deck has {total} cards, needs exactly {MAIN_DECK_SIZE}"))
    _name_limit(main, "main deck", problems)
    ig = sum(n for c, n in main if c.ignition)
    if ig != IG_COUNT:
        problems.append((RULE, f"main deck has {ig} cards with the IG icon, needs exactly {IG_COUNT}"))
    lr = sum(n for c, n in main if c.life_recovery)
    if lr > MAX_LR:
        problems.append((RULE, f"main deck has {lr} Life Recovery (LR) cards, at most {MAX_LR}"))
    vb = sum(n for c, n in main if c.void_bringer)
    if vb > MAX_VB:
        problems.append((RULE, f"main deck has {vb} Void Bringer (VB) cards, at most {MAX_VB}"))

    # Dynamis deck (optional)
    if dynamis is not None:
        dyn = _entries(catalog, dynamis, "Dynamis deck", problems)
        for card, n in dyn:
            if not card.type.in_dynamis:
                problems.append((RULE, f"Dynamis deck: {card.code} {card.name!r} is {card.type.a}; "
                                       "only Z/X EX, Shift, EV EX and Z/X OB cards go in the Dynamis deck"))
        if isinstance(dynamis, dict):
            total = sum(n for n in dynamis.values() if _valid_copies(n))
            if total > MAX_DYNAMIS:
                problems.append((RULE, f"Dynamis deck has {total} cards, at most {MAX_DYNAMIS}"))
        _name_limit(dyn, "Dynamis deck", problems)

    # player card
    if player_card is not None:
        pc = catalog.get(player_card) if isinstance(player_card, str) else None
        if pc is None:
            problems.append((RULE, f"player card: unknown card code {player_card}"))
        elif not pc.is_player:
            problems.append((RULE, f"player card {pc.code} {pc.name!r} is {pc.type.a}, "
                                   "not a Player or PL EX"))
    return problems


@dataclass(frozen=True)
class Deck:
    """A named deck: main deck and Dynamis as code -> copies, and its player card."""

    name: str
    colors: tuple[str, ...]
    player_card: str
    deck: dict[str, int] = field(hash=False)
    dynamis: dict[str, int] = field(default_factory=dict, hash=False)

    @property
    def size(self) -> int:
        return sum(self.deck.values())

    def to_header_player(self, name: str) -> dict:
        """The match-log header's player object for this deck, played by ``name``."""
        out: dict[str, Any] = {"name": name, "deck_name": self.name, "player_card": self.player_card,
                               "deck": dict(self.deck)}
        if self.dynamis:
            out["dynamis"] = dict(self.dynamis)
        return out


SAMPLE_DECKS_FILE = "sample_decks.json"


def sample_decks() -> list[Deck]:
    """The shipped sample decks (``zx_events/games/zx/catalogs/sample_decks.json``), in file order.

    Each call returns fresh objects, so a caller may change a deck's dicts without affecting others.
    """
    text = resources.files("zx_events.games.zx.catalogs").joinpath(SAMPLE_DECKS_FILE).read_text(encoding="utf-8")
    data = json.loads(text)
    return [
        Deck(name=d["name"], colors=tuple(d["colors"]), player_card=d["player_card"],
             deck=dict(d["deck"]), dynamis=dict(d.get("dynamis") or {}))
        for d in data["decks"]
    ]


def sample_catalog_name() -> str:
    """The catalog the sample decks' codes refer to."""
    text = resources.files("zx_events.games.zx.catalogs").joinpath(SAMPLE_DECKS_FILE).read_text(encoding="utf-8")
    return json.loads(text)["catalog"]


def deck_by_name(name: str) -> Deck:
    """A sample deck by its name; ``KeyError`` lists the known names."""
    decks = sample_decks()
    for d in decks:
        if d.name == name:
            return d
    raise KeyError(f"no sample deck named {name!r}; known decks: {', '.join(d.name for d in decks)}")
