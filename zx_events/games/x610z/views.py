"""Immutable views of an X610Z match state from one seat, and the redaction of records and events.

What a seat sees (500-506): the Deck is hidden from both players and the spectator (they see only
its size; no order is kept: the state holds it as an unordered multiset); the Hand is seen by its
owner only, its size by all (502.3-502.4); the Cast Zone (the stack), Play (the board, crystals,
Effects), the Discard Piles and Removed From Game are public (503.2, 504.3, 505, 506). Energy Pools
are public. The judge sees everything, the Decks too (their cards sorted by code, as the state
keeps no order); the spectator sees what both players see publicly. Free text outside the judge's
view has its card codes masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from zx_events.freetext import seat_event, seat_header, seat_player, seat_record
from zx_events.seats import (GENERIC_MASK, HIDDEN, JUDGE, SPECTATOR, Masker, ViolationView, dumps, engine_message,
                             freeze, hide_not_applied, parse_perspective, plain, player_of, record_applied, sees_own)

from .referee import is_code
from .match import STATS, deck_count, hand_count, stat

__all__ = ["build_view", "redact_record", "redact_event", "MatchView", "parse_perspective", "JUDGE", "SPECTATOR"]


@dataclass(frozen=True, slots=True)
class DotView:
    dot: str
    code: str
    name: str | None
    owner: str
    ctrl: str
    life: bool
    activated: bool
    deactivated: bool
    damage: int
    stats: Mapping[str, int]
    # its counters (209.2: a Time Counter, ``time``; an Activation Counter, ``activation``), as a permanent's: public,
    # physical markers on the card (QA round 38: a summon's were shown nowhere)
    counters: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class PermView:
    code: str
    name: str | None
    kind: str
    owner: str
    ctrl: str
    activated: bool
    on: str | None  # the dot or card it is fixed on
    counters: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class PlayerView:
    player: str
    name: str | None
    home: str | None
    deck_count: int
    deck: tuple[str, ...] | None  # the judge only (an unordered multiset: sorted by code); None: hidden
    hand: tuple[str, ...] | None  # None: hidden from this viewer
    hand_count: int
    discard: tuple[str, ...]
    removed: tuple[str, ...]
    pool: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class MatchView:
    match_id: str
    perspective: str
    seq: int
    last_seq: int | None
    turn: int
    active: str | None
    phase: str
    priority: str | None
    board: str
    dots: Mapping[str, DotView]
    perms: tuple[PermView, ...]
    stack: tuple[Mapping[str, Any], ...]
    players: Mapping[str, PlayerView]
    outcome: Mapping[str, Any] | None
    violations: tuple[ViolationView, ...]
    layout: Mapping[str, Any] | None = None  # the board's dots and lines, for drawing (public)
    game: str = "x610z"
    names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # code -> card name, for every code this view shows

    def player(self, pl: str) -> PlayerView:
        return self.players[pl]

    def name(self, code: str | None) -> str | None:
        if code in self.names:
            return self.names[code]
        for d in self.dots.values():
            if d.code == code and d.name:
                return d.name
        return next((p.name for p in self.perms if p.code == code and p.name), None)

    def to_json(self) -> dict[str, Any]:
        return plain(self._fields())

    def json_bytes(self) -> bytes:
        """``orjson.dumps(self.to_json())``, encoded without the copy."""
        return dumps(self._fields())

    def _fields(self) -> dict[str, Any]:
        return ({
            "game": self.game, "match_id": self.match_id, "perspective": self.perspective, "seq": self.seq,
            "last_seq": self.last_seq,
            "turn": self.turn, "active": self.active, "phase": self.phase, "priority": self.priority,
            "board": self.board, "dots": {d: v for d, v in self.dots.items()}, "perms": self.perms,
            "stack": self.stack, "players": self.players, "outcome": self.outcome, "violations": self.violations,
            "layout": self.layout, "names": self.names})


def _where(m: Any, uid: int | None) -> str | None:
    if uid is None:
        return None
    dot, _ = m.find(uid)
    if dot is not None:
        return dot
    p = m.perm(uid)
    return p["code"] if p is not None else None


def _void_cast(entry: Mapping[str, Any]) -> bool:
    """A cast announced as nothing (digest.8): its card was not taken from the hand, where it stays (or it was
    never there: 200.1a), so it is its owner's only (502.3)."""
    return bool(entry.get("void")) and entry.get("kind") == "cast" and entry.get("card") is not None


def _unseen(entry: Mapping[str, Any]) -> dict[str, str]:
    """The fields of a stack entry naming a card that may lie in a hidden zone (field -> the record's field): a
    cast announced as nothing (``_void_cast``), an activation of an Effect not in play (500.1) or a trigger of a card
    not in play (500.1, 207.4), both announced as nothing (digest.8: the card may be in its player's hand, 502.3, or
    in a deck), and a target named by a card not in play (200.4, ``gone``: where it is, the state does not say). Its
    player's and the judge's only."""
    out = {}
    if entry.get("void"):
        kind = entry.get("kind")
        if kind == "cast" and entry.get("card") is not None:
            out["card"] = "card"
        elif kind == "activate" and entry.get("card") is not None:
            out["card"] = "effect"
        elif kind == "trigger" and is_code(entry.get("source")):
            out["source"] = "source"
    target = entry.get("target")
    if isinstance(target, Mapping) and target.get("gone") and target.get("code") is not None:
        out["target"] = "target"
    return out


def _hide_entry(entry: Mapping[str, Any]) -> dict:
    """``entry`` (an ``Announced`` event's) with what ``_unseen`` names as ``?``."""
    out = dict(entry)
    for key in _unseen(entry):
        out[key] = {**out[key], "code": HIDDEN} if key == "target" else HIDDEN
    return out


def _public_entry(m: Any, entry: dict, viewer: str = JUDGE) -> dict:
    """What a stack entry shows, deep-copied read-only (``freeze``): its ``path`` was the match's own list,
    so changing one step's view changed the next step's. A card that may be in a hidden zone (``_unseen``): its
    player's and the judge's only."""
    out = {k: freeze(v) for k, v in entry.items() if k in ("id", "kind", "by", "card", "dot", "from", "path",
                                                             "ability", "source", "choice", "additional",
                                                             "void")}
    unseen = {} if sees_own(viewer, entry.get("by")) else _unseen(entry)
    for key in unseen.keys() & out.keys():
        out[key] = HIDDEN
    target = entry.get("target")
    if isinstance(target, dict) and "uid" in target:
        out["target"] = _where(m, target["uid"]) or target.get("dot") or target.get("code")
    elif entry.get("kind") == "attack":
        out["target"] = _where(m, entry.get("target"))
    elif target is not None:
        out["target"] = target
    if "target" in unseen:
        out["target"] = HIDDEN
    return out


def build_view(m: Any, perspective: str = JUDGE, names: Mapping[str, str] | None = None, *,
               mask: Masker | None = None, seq: int | None = None, last_seq: int | None = None,
               lean: bool = False) -> MatchView:
    """The state of ``m`` as ``perspective`` sees it. ``lean``: without the lists that grow with the
    match, for a caller that builds a view at every event (the HTML viewer): no violations."""
    viewer = perspective
    names = names or {}
    dots = {}
    for dot in sorted(m.dots):
        e = m.dots[dot]
        dots[dot] = DotView(dot, e["code"], names.get(e["code"]), e["owner"], e["ctrl"], e["life"], e["act"],
                            e["deact"], e["dmg"], MappingProxyType({s: stat(e, s) for s in STATS}),
                            MappingProxyType(dict(e.get("counters") or {})))
    perms = tuple(PermView(p["code"], names.get(p["code"]), p["kind"], p["owner"], p["ctrl"], p["act"],
                           _where(m, p.get("on")), MappingProxyType(dict(p["counters"]))) for p in m.perms)
    mask = None if viewer == JUDGE else (mask or GENERIC_MASK)
    players = {}
    for pl, z in m.p.items():
        hand = tuple(sorted(z["hand"])) if sees_own(viewer, pl) else None
        name = seat_player(m.players.get(pl) or {}, mask)["name"]  # free text: masked but for the judge
        deck = tuple(sorted(z["deck"])) if viewer == JUDGE else None  # the others see its size only
        # (the unknown cards of a setup or a draw left out, HIDDEN in the hand, are still listed in the deck: not
        # counted there)
        players[pl] = PlayerView(pl, name, z["home"], deck_count(z), deck, hand,
                                 hand_count(z), tuple(z["discard"]), tuple(z["removed"]),
                                 MappingProxyType(dict(z["pool"])))
    listed = tuple(ViolationView(v["line"], v["turn"], v["player"], v["rule"],
                                 engine_message(mask, v["message"]) if mask else v["message"], v.get("applied", True))
                   for v in m.violations) if not lean else ()
    pin = m.board or {}
    board = pin.get("name", "")
    stack = tuple(MappingProxyType(_public_entry(m, s, viewer)) for s in m.stack)
    shown = {c: names[c] for c in sorted(_codes(dots.values(), perms, players.values(), stack)) if c in names}
    return MatchView(m.match_id, viewer, m.version if seq is None else seq, last_seq, m.turn, m.active, m.phase, m.prio,
                     board, MappingProxyType(dots), perms,
                     stack, MappingProxyType(players),
                     MappingProxyType(dict(m.outcome)) if m.outcome else None, listed, _layout(board, pin.get("sha256")),
                     names=MappingProxyType(shown))


def _codes(dots: Any, perms: Any, players: Any, stack: Any) -> set[str]:
    """Every card code a view shows: pawns, permanents, the hands and decks it sees, Discard Piles,
    Removed From Game, and the cards on the stack (its ``names`` are these codes' only: never a hidden card's)."""
    out = {d.code for d in dots} | {p.code for p in perms}
    for pl in players:
        out.update(pl.hand or ())
        out.update(pl.deck or ())
        out.update(pl.discard)
        out.update(pl.removed)
    out.update(e["card"] for e in stack if isinstance(e.get("card"), str))
    return out


def pinned_board(name: str, sha256: str | None) -> Any:
    """The shipped board ``name`` when it is the one a stored match pinned (``sha256``), else None: a board file
    given at import is not at hand, whether zx ships no board of its name or one with other content (QA round 28:
    the views drew the shipped board's dots and kinds for a board file of its name). A stored name is never read
    as a file (docs/security.md, section 5); the warning saying so is ``zx_events.pins.view_warnings``."""
    from zx_events.errors import ZXError

    from .board import load_board

    try:
        b = load_board(name, files=False)  # a stored name: never a file
    except ZXError:
        return None
    return b if b.sha256 == sha256 else None


@lru_cache(maxsize=16)
def _layout(name: str, sha256: str | None) -> Mapping[str, Any] | None:
    """The geometry of the board a match pinned (dots with coordinates and kinds, lines) when it is a shipped one
    (``pinned_board``), else None: no map."""
    b = pinned_board(name, sha256)
    if b is None:
        return None
    return MappingProxyType({
        "dots": MappingProxyType({d: (v.x, v.y, v.kind) for d, v in b.dots.items()}),
        "lines": tuple((a, c) for a, nbrs in b.links.items() for c in nbrs if a < c)})


# ---------------------------------------------------------------------- records and events
def _hide(codes: Any) -> Any:
    if isinstance(codes, list):
        return [_hide(c) if isinstance(c, list) else HIDDEN for c in codes]
    return HIDDEN if codes is not None else None


_SECRET = ("deck", "hand")


def _redact_effect(fields: dict, viewer: str, by: str | None) -> None:
    op = fields.get("op")
    if op == "draw" and not sees_own(viewer, by):
        fields["cards"] = _hide(fields.get("cards", []))
    elif op == "search" and not sees_own(viewer, by):
        fields["card"] = HIDDEN
    elif op == "zone" and "card" in fields:
        owner = fields.get("owner") or by
        if fields.get("from") in _SECRET and fields.get("to") in _SECRET and not sees_own(viewer, owner):
            fields["card"] = HIDDEN
    elif op == "place" and fields.get("from") == "deck":
        pass  # the card comes into play: public from then on


# what a record not applied takes from its owner's hand (502.3: he looks there), by its kind (``do``, or
# ``effect_OP``) and field; "from": the zone its ``from`` field names. Every other card it names: ``?`` to a seat
# (``seats.hide_not_applied``: hidden by default, by the schema)
_TAKEN_FROM = {("crystal", "card"): "hand", ("cast", "card"): "hand", ("end", "discard"): "hand",
               ("effect_place", "card"): "from", ("effect_zone", "card"): "from"}


def _kind(rec: Mapping[str, Any]) -> str | None:
    return f"effect_{rec.get('op')}" if rec.get("do") == "effect" else rec.get("do")


def _own_look(viewer: str) -> Any:
    def sees(rec: dict, key: str) -> bool:
        zone, owner = _TAKEN_FROM.get((_kind(rec), key)), rec.get("by")
        if zone == "from":  # a zone effect's card is its owner's (docs/match-log-x610z.md)
            zone, owner = rec.get("from"), rec.get("owner") or owner
        return zone == "hand" and sees_own(viewer, owner)
    return sees


@lru_cache(maxsize=1)
def _log_format() -> Any:
    from zx_events import games

    return games.get("x610z").log_format


def _redact_refused(out: dict, viewer: str, by: str | None, events: Iterable[Any]) -> None:
    """What a record names that stayed in a hidden zone: a record not applied (``seats.record_applied``) moves
    no card (``seats.hide_not_applied``: each card it names is ``?`` but for the owner's look into his own hand,
    ``_TAKEN_FROM``), and an announcement of nothing or a target not in play (``_unseen``) names a card that may be
    in the hand or a deck; a card in a hand is its owner's only (502.3), one in a deck nobody's but the judge's."""
    if not record_applied(events):
        hide_not_applied(out, viewer, _log_format(), _own_look(viewer))
    elif not sees_own(viewer, by):
        for e in events:
            if type(e).__name__ == "Announced":
                for key in _unseen(getattr(e, "entry", None) or {}).values():
                    if out.get(key) is not None:
                        out[key] = HIDDEN


def redact_record(rec: Mapping[str, Any] | None, viewer: str, mask: Masker | None = None,
                  events: Iterable[Any] = ()) -> dict | None:
    """A log record as ``viewer`` may see it: hidden card codes become ``?``; notes are masked. ``events``: its
    step's domain events, which say whether its cards stayed where they were (``_redact_refused``)."""
    if rec is None:
        return None
    out = dict(rec)
    if viewer == JUDGE:
        return out
    by, do = out.get("by"), out.get("do")
    events = tuple(events)
    _redact_refused(out, viewer, by, events)
    if do == "setup" and not sees_own(viewer, by):
        out["hand"] = _hide(out.get("hand"))
        if "murphy" in out:
            out["murphy"] = _hide(out["murphy"])
    elif do == "draw" and not sees_own(viewer, player_of(events, "CardDrawn", by)):  # (the active player's
        # draw under the other seat, digest.8: the hand it went to)
        out["card"] = HIDDEN
    elif do == "effect":
        _redact_effect(out, viewer, by)
    # notes: judge only; ts: only a date-time (zx_events.freetext). No other free text: every other string of
    # a record has a form the schema checks (a code, a dot, a zone, one of a fixed list: a result's reason)
    return seat_record(out, viewer)


_PUBLIC_EVENTS = frozenset({
    "TurnStarted", "PhaseEntered", "CrystalCast", "EnergyAdded", "Announced", "ActionFailed", "Passed",
    "Resolved", "Destroyed", "PermanentLeft", "TurnEnded", "LateRecord", "Conceded", "MatchEnded", "ResultRecorded",
    "Sealed"})


def redact_event(kind: str, fields: dict[str, Any], viewer: str, mask: Masker | None = None) -> dict[str, Any]:
    """An event's fields as ``viewer`` may see them (the same rules as ``redact_record``)."""
    out = seat_event(kind, dict(fields), viewer)  # the Started event's import file path: judge only
    if kind == "CardDrawn" and out.get("card") == HIDDEN and not out.get("unknown"):
        out["left_out"] = True  # the card of a draw left out (digest.8, Referee._leave_draw): every seat reads so
    if kind == "Announced" and isinstance(out.get("entry"), Mapping) and not sees_own(viewer, out["entry"].get("by")):
        out["entry"] = _hide_entry(out["entry"])  # a card that may be in a hidden zone (502.3, _unseen)
    if viewer == JUDGE or kind in _PUBLIC_EVENTS:
        return out
    by = out.get("player")
    if kind == "Started":
        header = seat_header(dict(out.get("header", {})), viewer, mask or GENERIC_MASK)  # zx_events.freetext
        header["players"] = {p: {k: v for k, v in info.items() if k not in ("deck", "side")}
                             for p, info in header.get("players", {}).items()}
        out["header"] = header
    elif kind == "PlayerSetUp":
        if not sees_own(viewer, by):
            out["hand"] = _hide(out.get("hand"))
            out["murphy"] = _hide(out.get("murphy"))
    elif kind == "CardDrawn":
        if not sees_own(viewer, by):
            out["card"] = HIDDEN
    elif kind == "EffectApplied":
        args = dict(out.get("args", {}))
        args["op"] = out.get("op")
        _redact_effect(args, viewer, by)
        args.pop("op")
        out["args"] = args
    elif kind == "ViolationRecorded":
        out["message"] = engine_message(mask or GENERIC_MASK, out.get("message", ""))
    else:
        out = {}
    return out
