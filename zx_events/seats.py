"""Seats and what is common to every game's views: who may look (the judge, a player, a spectator),
how a hidden card is shown, masking card codes in free text, and turning frozen views back into
JSON-native data. What each seat sees is the game's (its ``views`` module); these are the words it
uses to say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Iterable

import orjson

from zx_events.freetext import JUDGE, normalize

SPECTATOR = "spectator"
PLAYERS = ("P1", "P2")
PERSPECTIVES = (JUDGE, *PLAYERS, SPECTATOR)
HIDDEN = "?"  # stands for one card the viewer may not see, where a record or event names it
MASK = "[card]"  # replaces a card code inside free text outside the judge's view


def parse_perspective(text: str) -> str:
    """``judge``, ``P1``, ``P2`` or ``spectator`` (case-insensitive)."""
    low = text.strip().lower()
    for p in PERSPECTIVES:
        if p.lower() == low:
            return p
    raise ValueError(f"unknown perspective {text!r}: one of {', '.join(PERSPECTIVES)}")


def sees_own(viewer: str, owner: str | None) -> bool:
    """The judge, or the card's owner."""
    return viewer == JUDGE or (owner is not None and viewer == owner)


@dataclass(frozen=True, slots=True)
class ViolationView:
    line: int | None
    turn: int
    player: str | None
    rule: str
    message: str
    applied: bool


_SCALARS = (str, int, float, bool, type(None))


def plain(value: Any) -> Any:
    """Frozen view data back to JSON-native dicts and lists."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    names = getattr(type(value), "__dataclass_fields__", None)
    if names is not None:
        return {n: plain(getattr(value, n)) for n in names}
    if isinstance(value, (dict, MappingProxyType)):
        return {k: plain(v) for k, v in value.items()}
    return value


def _mapping(value: Any) -> Any:
    if isinstance(value, MappingProxyType):
        return dict(value)
    raise TypeError(type(value).__name__)


def dumps(value: Any) -> bytes:
    """``orjson.dumps(plain(value))``, the same bytes, with the dataclasses, tuples and mappings walked
    by orjson itself instead of copied by ``plain`` first (a third of a server's view)."""
    return orjson.dumps(value, default=_mapping)


_CODE_LIKE = r"\b[A-Za-z][A-Za-z0-9]*-[A-Za-z0-9]*[0-9][A-Za-z0-9]*\b"  # R01-001, EX-R01, PL-001, u01-013


class Masker:
    """Replaces card codes and names inside free text by ``[card]``: a catalog's, and anything code-like,
    in any letter case, after ``freetext.normalize`` (NFKC, dash-like characters as ``-``)."""

    def __init__(self, words: Iterable[str] = ()):
        ordered = sorted({normalize(w) for w in words if w}, key=len, reverse=True)
        self.pattern = re.compile("|".join([*(re.escape(w) for w in ordered), _CODE_LIKE]), re.IGNORECASE)
        # the same few texts (players' and deck names) are masked in every step's view: a scan of a catalog's
        # names takes ~1 ms per 1,000 characters, and a name may be 100,000 (zx view took 115 s, not 0.4)
        self._masked = lru_cache(maxsize=64)(self._mask)

    def __call__(self, text: str) -> str:
        return self._masked(text) if text else text

    def _mask(self, text: str) -> str:
        return self.pattern.sub(MASK, normalize(text))


GENERIC_MASK = Masker()

_SKIP = frozenset({"rec", "line", "originator_id", "originator_version", "timestamp", "digest"})


def event_fields(event: Any) -> dict[str, Any]:
    """An event's own fields (what the engine decided), without the record it came from nor its
    integrity digest (``zx_events.integrity``)."""
    return {k: v for k, v in vars(event).items() if k not in _SKIP}


def hide(codes: Any) -> Any:
    """Each card of ``codes`` (a list, or one code) as ``?``."""
    if isinstance(codes, list):
        return [HIDDEN] * len(codes)
    return HIDDEN if codes is not None else None
