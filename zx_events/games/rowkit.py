"""What every game's analytics rows module shares (``Game.rows``; zx_analytics/tables.py gathers them).

The shared tables every game fills in the same columns, so win rates, matchups and per-card rates
are one SQL over all games filtered by ``game`` (docs/data-dictionary.md), and the helpers that
read a match header's values the same way in every game.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any, Callable, Iterable

from zx_events.freetext import nfc  # (its home: the core's, which the match list and seats use too)

SHARED_COLUMNS: dict[str, tuple[str, ...]] = {
    "matches": ("match_id", "match_no", "match_uuid", "game", "played_at", "played_on", "month", "event", "format",
                "round", "catalog", "p1_name", "p1_deck", "p1_colours", "p1_colours_all", "p1_archetype", "p2_name",
                "p2_deck", "p2_colours", "p2_colours_all", "p2_archetype", "first", "winner", "reason", "turns",
                "violations", "source", "imported_at", "catalog_sha256"),
    "seats": ("match_id", "match_no", "game", "played_on", "month", "event", "format", "side", "name", "deck",
              "colours", "archetype", "opp_name", "opp_deck", "opp_colours", "opp_archetype", "seat", "opp_seat",
              "result", "turns", "opp_turns", "damage_taken", "life_ignitions", "was_behind", "hand_size",
              "mulligan"),
    "turns": ("match_id", "match_no", "turn", "player", "drawn", "resource", "ignitions", "plays", "attacks",
              "damage_dealt", "p1_life", "p2_life", "ended"),
    "draws": ("match_id", "match_no", "seq", "turn", "player", "card", "source"),
    "card_games": ("match_id", "match_no", "player", "card", "copies", "opening", "drawn", "played"),
    "card_catalog": ("catalog", "catalog_sha256", "code", "name", "type", "colours", "cost", "power", "icons"),
}


def timestamp(v: Any) -> str | None:
    """The transcoder's ``{"_type_": "datetime_iso", "_data_": ...}`` (or a plain ISO string)."""
    if isinstance(v, dict):
        v = v.get("_data_")
    return v if isinstance(v, str) else None


def match_head(d: dict, summary: Callable[[Any, tuple], tuple], given: Any = None,
               default_format: str | None = None) -> dict[str, Any]:
    """The match row's header values, the same in every game: ``d`` the Started payload; ``summary(deck, ref)`` a
    seat's (colour or energy identity, every colour, archetype, list) from the game's deck summary, ``ref`` what
    the match was checked against (the catalog's name and SHA-256 it pins, and ``given``: the catalog file handed
    to the projection with that SHA-256)."""
    h = d["header"]
    pl = h.get("players") or {}
    pinned = d.get("catalog") or {}
    sha = pinned.get("sha256")
    sha = sha if isinstance(sha, str) else None
    ref = (pinned.get("name"), sha, given)
    rnd, fmt = h.get("round"), h.get("format")
    if default_format is not None:
        fmt = fmt or default_format
    head = {"played_at": h.get("played_at"), "event": nfc(h.get("event")), "format": nfc(fmt),
            "round": None if rnd is None else str(rnd), "catalog": pinned.get("name"), "catalog_sha256": sha}
    for key, seat in (("p1", "P1"), ("p2", "P2")):
        p = pl.get(seat) or {}
        colours, every, arch, listed = summary(p.get("deck"), ref)
        head.update({f"{key}_name": nfc(p.get("name")), f"{key}_deck": nfc(p.get("deck_name")) or None,  # ("": no name, as one left out)
                     f"{key}_colours": colours, f"{key}_colours_all": every, f"{key}_archetype": arch,
                     f"{key}_list": listed})
    head.update({"first": h.get("first", "P1"), "source": d.get("source"), "imported_at": timestamp(d.get("timestamp"))})
    return head


def parse_played_at(text: Any) -> tuple[datetime | None, date | None, str | None]:
    """(instant in UTC, the date as written, 'YYYY-MM' as written); Nones when absent or unreadable."""
    if not isinstance(text, str):
        return None, None, None
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        return None, None, None
    on = at.date()  # the local date the organiser wrote, not the UTC one
    return _utc(at), on, f"{on.year:04d}-{on.month:02d}"


def instant(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return _utc(datetime.fromisoformat(text))
    except ValueError:
        return None


def _utc(at: datetime) -> datetime | None:
    """``at`` in UTC (a time without an offset taken as UTC); None when Python holds no such instant
    (9999-12-31T23:59:59-23:59: an OverflowError, which stopped every analytics update of the store for good)."""
    try:
        return at.astimezone(timezone.utc) if at.tzinfo else at.replace(tzinfo=timezone.utc)
    except OverflowError:
        return None


def deck_list(deck: Any) -> dict[str, int] | None:
    """The main deck as code -> copies (JSON-native, kept in the in-flight state)."""
    if not isinstance(deck, dict):
        return None
    return {str(code): int(n) for code, n in deck.items() if isinstance(n, int) and not isinstance(n, bool)}


class DeckMemo:
    """A deck's summary (identity, every colour or type, archetype, list) computed once per deck list,
    catalog and per-card colours: a corpus plays the same decks again and again, and ranking a deck's
    cards for its archetype costs more than all the other work of starting a match.

    ``summary(deck, catalog, colours_of)`` calls ``compute(deck, catalog, colours_of)`` for a deck not seen
    yet; a deck that is not a plain JSON object of hashable values is computed every time. The
    results are shared between matches: callers only read them. Bounded (cleared when full)."""

    __slots__ = ("compute", "seen", "limit")

    def __init__(self, compute: Any, limit: int = 4096) -> None:
        self.compute, self.seen, self.limit = compute, {}, limit

    def summary(self, deck: Any, catalog: Any, colours_of: Any) -> Any:  # catalog: hashable (a name, or name and hash)
        if not isinstance(deck, dict):
            return self.compute(deck, catalog, colours_of)
        try:
            key = (catalog, id(colours_of), tuple(deck.items()))
            hit = self.seen.get(key)
        except TypeError:  # a value that is not hashable (a malformed deck): nothing to share
            return self.compute(deck, catalog, colours_of)
        if hit is not None and hit[0] is colours_of:  # the id of a live object (kept in the entry)
            return hit[1]
        out = self.compute(deck, catalog, colours_of)
        if len(self.seen) >= self.limit:
            self.seen.clear()
        self.seen[key] = (colours_of, out)
        return out


def shipped_catalog(load: Callable[..., Any], shipped: Iterable[str], name: Any, sha256: Any) -> tuple[Any, bool]:
    """The shipped catalog holding the cards a stored match was checked against, and whether it is the
    one of the match's catalog name. A match's Started event pins its catalog's name and SHA-256 only:
    the shipped catalog of that name, else the shipped one with the same content (a copy of it given
    with ``--catalog FILE`` under another name); ``(None, False)`` for a catalog zx does not ship (its
    cards are stored nowhere). ``load(name, files=False)`` is the game's ``load_catalog``: a stored
    name never names a file."""
    from zx_events.errors import ZXError

    if isinstance(name, str):
        try:
            return load(name, files=False), True
        except ZXError:
            pass
    if isinstance(sha256, str):
        for other in shipped:
            try:
                cat = load(other, files=False)
            except ZXError:
                continue
            if cat.sha256 == sha256:
                return cat, False
    return None, False
