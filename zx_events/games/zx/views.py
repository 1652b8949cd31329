"""Immutable views of a match state, seen from one seat (301.3).

``build_view(match, perspective, names)`` copies a ``Match`` state into frozen dataclasses and
tuples, keeping only what the viewer may see:

- 301.3a: public zones (Square, Trash, Charge, Resource, Temporary, Remove, Force) are seen by all;
- 301.3b: a face-down card in a public zone is seen by its owner only; the others see a card back
  (a face-down Square card, a face-down Force card: ``None`` where its code would be). A Start Card
  is face-down on its Player Square until both players have set up (the digest's setup);
- 301.3c: hidden zones (deck, Life, hand, Dynamis) are not seen. Unless otherwise specified: a
  player looks at their own hand and their own Dynamis, and face-up Dynamis cards (an EX that came
  back, a Gate Card) are public. Life cards are face-down, so even their owner sees only how many;
- 301.3d: everybody knows the number of cards in every zone.

A Dynamis card is face-up only when the state says so AND it is a card of its owner's Dynamis deck
(``_face_up``): the state marks every card an effect sends to Dynamis face-up, also one taken from a
hand or a deck, and a stored match must replay to the state it was checked with, so the view applies
the rule.

The judge sees everything. ``redact_record`` and ``redact_event`` apply the same rules to the log
records and events shown next to a state, so a step never shows what its state hides. A ``move`` out of the
Force Zone does not say whether its card was face-down: the state it was applied to (``before``) does, and a
face-down one that goes to a hidden zone stays unseen (301.3b; without that state, any is taken as face-down). Free text
(notes, violation messages, a result's reason, a Token's name) can name any card: outside the judge's
view notes are left out, and every card code and name in the rest is masked (zx_events.freetext), the
Token's name on its Square too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

from zx_events.freetext import seat_event, seat_header, seat_player, seat_record
from zx_events.games.zx import logformat
from zx_events.games.zx.board import SQUARE_NAMES, player_square
from zx_events.games.zx.match import deck_count as _deck_count
from zx_events.seats import (GENERIC_MASK, HIDDEN, JUDGE, MASK, PERSPECTIVES, SPECTATOR, Masker,  # noqa: F401
                             ViolationView, dumps, engine_message, event_fields, hide_not_applied, parse_perspective, plain,
                             player_of, record_applied)
from zx_events.seats import hide as _hide
from zx_events.seats import sees_own  # the judge, or the owner: hand, Dynamis, face-down cards in public zones

PUBLIC_ZONES = ("square", "trash", "charge", "resource", "temporary", "remove", "force")  # 301.3
HIDDEN_ZONES = ("deck", "life", "hand", "dynamis")  # 301.3
OWN_LOOK = ("hand", "dynamis")  # hidden zones whose owner looks at their cards (301.3c, "unless otherwise specified")


# ---------------------------------------------------------------------- view types
@dataclass(frozen=True, slots=True)
class SquareView:
    """One card on Square with its state (303, 302.2), as the viewer sees it."""

    square: str
    code: str | None  # None: a face-down card the viewer may not look at (301.3b)
    name: str | None
    owner: str
    ctrl: str
    kind: str  # zx, ex, ob, token; card: a face-down card (no Power, and kind and Power hidden with its code)
    base: int | None
    mods: tuple[tuple[int, str], ...]  # (delta, until)
    power: int | None  # base + sum of the modifiers
    dmg: int
    sleep: bool
    shift: str | None  # a Shift on it (202.8a)
    force: tuple[str | None, ...]  # Force cards under it; None: a face-down one the viewer may not see (301.3b)
    uid: int

    @property
    def state(self) -> str:
        return "Sleep" if self.sleep else "Reboot"


@dataclass(frozen=True, slots=True)
class ResourceView:
    code: str
    sleep: bool


@dataclass(frozen=True, slots=True)
class DynamisView:
    code: str | None  # None: face-down and not the viewer's
    up: bool


@dataclass(frozen=True, slots=True)
class PlayerView:
    player: str
    name: str | None
    deck_name: str | None
    player_card: str | None
    player_card_sleep: bool  # its state on the Square (302.2: Sleep by an effect until its owner's Reboot Phase, 502)
    deck_count: int
    deck: tuple[str, ...] | None  # judge only (a multiset: sorted)
    life_count: int
    life: tuple[str, ...] | None  # judge only (301.3c)
    hand_count: int
    hand: tuple[str, ...] | None  # the owner and the judge
    charge: tuple[str, ...]
    trash: tuple[str, ...]
    remove: tuple[str, ...]
    resource: tuple[ResourceView, ...]
    dynamis_count: int
    dynamis: tuple[DynamisView, ...]  # face-up first; hidden ones as code None
    overboost: tuple[str, ...]  # Squares holding this player's Z/X Overboost
    counters: int


@dataclass(frozen=True, slots=True)
class BattleView:
    attacker: str  # the Square it attacked from
    target: str
    target_kind: str
    defender: str
    step: str
    priority: str
    outcome: str | None
    events: tuple[str, ...]


GAME_KEY = "zx"  # (zx_events.games' key of this game)


@dataclass(frozen=True, slots=True)
class MatchView:
    match_id: str
    perspective: str
    seq: int  # the aggregate version this state is after (1 = Started)
    last_seq: int | None  # the match's last seq, when known
    turn: int
    active: str | None
    phase: str
    squares: tuple[SquareView | None, ...]  # in SQUARE_NAMES order: a1 b1 c1 a2 b2 c2 a3 b3 c3
    links: Mapping[str, tuple[str, ...]]  # Square -> players who put a Link there (202.13)
    players: tuple[PlayerView, PlayerView]  # P1, P2
    temporary: tuple[str, ...]
    force: tuple[str | None, ...]  # Force cards not under a Square; None: face-down, not the viewer's (301.3b)
    battle: BattleView | None
    outcome: Mapping[str, Any] | None
    violations: tuple[ViolationView, ...]  # every violation recorded up to seq
    catalog: Mapping[str, str]
    names: Mapping[str, str]  # code -> card name, for every code this view shows

    def square(self, name: str) -> SquareView | None:
        return self.squares[SQUARE_NAMES.index(name)]

    def player(self, player: str) -> PlayerView:
        return self.players[0 if player == "P1" else 1]

    def name(self, code: str | None) -> str | None:
        return self.names.get(code) if code else None

    def codes(self) -> Counter:
        """Every card code the view shows, with multiplicity (for checks and tools)."""
        return _codes(self.squares, self.players, self.temporary, self.force, self.battle)

    def to_json(self) -> dict[str, Any]:
        """JSON-native data: squares by name, players by seat."""
        return plain(self._fields())

    def json_bytes(self) -> bytes:
        """``orjson.dumps(self.to_json())``, encoded without the copy."""
        return dumps(self._fields())

    def _fields(self) -> dict[str, Any]:
        """The view's fields, squares by name and players by seat, their values as they are."""
        # the game first, as X610Z's view has it: a tool reading a store of both games tells them apart
        out = {"game": GAME_KEY, **{n: getattr(self, n) for n in self.__dataclass_fields__}}
        out["squares"] = dict(zip(SQUARE_NAMES, self.squares))
        out["players"] = {"P1": self.players[0], "P2": self.players[1]}
        return out


# ---------------------------------------------------------------------- building a view
def _codes(squares: Iterable[SquareView | None], players: Iterable[PlayerView], temporary: Iterable[str],
           force: Iterable[str], battle: BattleView | None) -> Counter:
    out: Counter = Counter()
    for s in squares:
        if s is not None:
            out.update(c for c in (s.code, s.shift, *s.force) if c)
    for p in players:
        out.update(c for c in (p.player_card,) if c)
        for zone in (p.deck, p.life, p.hand, p.charge, p.trash, p.remove):
            out.update(zone or ())
        out.update(r.code for r in p.resource)
        out.update(d.code for d in p.dynamis if d.code)
    out.update(c for c in temporary if c)
    out.update(c for c in force if c)
    if battle is not None:
        out.update(battle.events)
    return out


def _sorted(codes: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(codes))


def _entry_code(e: Any) -> tuple[str | None, str | None, bool]:
    """A Temporary or Force entry: a code, or ``{"code", "owner", "up"}``."""
    if isinstance(e, dict):
        return e.get("code"), e.get("owner"), e.get("up", True)
    return e, None, True


def _public(entries: Iterable[Any], viewer: str) -> tuple[str | None, ...]:
    """Cards of a shared public zone: a face-down one the viewer may not look at (301.3b) as None, a
    card back that is still counted (301.3d)."""
    out: list[str | None] = []
    for e in entries:
        code, owner, up = _entry_code(e)
        if code:
            out.append(code if up or sees_own(viewer, owner) else None)
    return tuple(out)


def _face_up(m: Any, pl: str) -> Callable[[dict], bool]:
    """Whether a Dynamis entry of ``pl`` is face-up by the rules: the state says so and the card is one
    of ``pl``'s Dynamis deck (the header's). Cards in a hidden zone are face-down (302.3c); the face-up
    ones are a Gate Card, and a Z/X EX or EV EX (with a Shift on it, 202.8a) back from where it went
    (digest): all cards of that Dynamis deck. The state marks every card sent to Dynamis face-up, also
    one an effect takes from a hand or a deck, which must stay hidden (301.3c)."""
    own = (m.players.get(pl) or {}).get("dynamis") or {}
    return lambda d: bool(d["up"]) and d["code"] in own


def _player(m: Any, pl: str, viewer: str, masker: Masker | None) -> PlayerView:
    """``masker``: None for the judge; the game's for every other seat, the player's own included (their
    name and deck name are free text, masked as the header's: zx_events.freetext.MASKED_PLAYER)."""
    z = m.p[pl]
    info = seat_player(m.players.get(pl) or {}, masker)
    own = sees_own(viewer, pl)
    judge = viewer == JUDGE
    dyn = z["dynamis"]
    face_up = _face_up(m, pl)
    if own:
        dynamis = tuple(DynamisView(d["code"], up) for up, d in
                        sorted(((face_up(d), d) for d in dyn), key=lambda x: (not x[0], x[1]["code"])))
    else:  # 301.3c: face-up Dynamis cards are public, the others only counted
        up = sorted(d["code"] for d in dyn if face_up(d))
        dynamis = tuple(DynamisView(c, True) for c in up) + \
            tuple(DynamisView(None, False) for _ in range(len(dyn) - len(up)))
    return PlayerView(
        player=pl, name=info["name"], deck_name=info["deck_name"], player_card=z.get("player_card"),
        player_card_sleep=bool(z.get("pc_sleep")) and bool(z.get("player_card")),
        # (the unknown cards of a draw left out, HIDDEN in the hand, are still listed in the deck: not counted there)
        deck_count=_deck_count(z), deck=_sorted(z["deck"]) if judge else None,
        life_count=len(z["life"]), life=tuple(z["life"]) if judge else None,
        hand_count=len(z["hand"]), hand=tuple(z["hand"]) if own else None,
        charge=tuple(z["charge"]), trash=tuple(z["trash"]), remove=tuple(z["remove"]),
        resource=tuple(ResourceView(r["code"], r["sleep"]) for r in z["resource"]),
        dynamis_count=len(dyn), dynamis=dynamis,
        overboost=tuple(s for s, e in m.sq.items() if e is not None and e["kind"] == "ob" and e["ctrl"] == pl),
        counters=z.get("counters", 0),
    )


_PLAYER_SQUARE = {p: str(player_square(p)) for p in ("P1", "P2")}  # where each Start Card lies face-down
# a lean view lists a card's Power modifiers while it holds at most this many (the HTML viewer draws each, as
# zx replay does; zx_web/viewer.py MODS_SHOWN); past that, its Power and base only: they can pile up (20,000)
LEAN_MODS = 8


def _square(name: str, e: dict, viewer: str, force: tuple[str | None, ...], names: Mapping[str, str],
            start: bool = False, lean: bool = False, masker: Masker | None = None) -> SquareView:
    """``start``: the Start Cards are still face-down (setup is not over): the card on its owner's Player
    Square, where the setup puts it (402.1a), not a card played since (a log whose player never sets up
    hid every card of the other's for the whole match); ``lean``: no list of modifiers once the card holds
    more than ``LEAN_MODS`` (a list as long as a card holds costs every view of it); ``masker``: None
    for the judge, else a Token's own name (free text of the log, zx_events.freetext) is masked."""
    start = start and name == _PLAYER_SQUARE.get(e["owner"])
    face_down = (e.get("up") is False or start) and not sees_own(viewer, e["owner"])  # 301.3b
    mods = () if lean and len(e["mods"]) > LEAN_MODS else tuple((int(d), str(u)) for d, u in e["mods"])
    base = None if face_down else e.get("base")  # a Start Card's Power would name it
    code = None if face_down else e["code"]
    own = e.get("name")  # a Token's
    if own and masker is not None:
        own = masker(own)
    return SquareView(
        square=name, code=code, name=(own or names.get(code)) if code else None, owner=e["owner"],
        ctrl=e["ctrl"], kind="card" if face_down else e["kind"], base=base, mods=mods,
        power=None if base is None else base + e["msum"], dmg=e["dmg"], sleep=e["sleep"],
        shift=e.get("shift"), force=force, uid=e["uid"])


def build_view(m: Any, perspective: str = JUDGE, names: Mapping[str, str] | None = None, *,
               seq: int | None = None, last_seq: int | None = None,
               mask: "Masker | None" = None, lean: bool = False) -> MatchView:
    """The state of ``m`` (a ``Match``) as ``perspective`` sees it; nothing in it aliases ``m``.
    ``lean``: without the lists that grow with the match, for a caller that builds a view at every
    event (the HTML viewer): no violations, and a Square's Power without its list of modifiers when that
    holds more than ``LEAN_MODS``."""
    viewer = perspective
    names = names or {}
    force_under: dict[str, list[Any]] = {}
    loose_force = []
    for f in m.force:
        sq = f.get("square") if isinstance(f, dict) else None
        (force_under.setdefault(sq, []) if sq else loose_force).append(f)
    # the setup puts each Start Card face-down on its Player Square; they flip when both players are set up
    # (whenever that is: a setup written after the turn record is applied there, digest.4; with "turn 0"
    # here P1's Start Card showed face-up to P2 and the spectators before P2 had set up)
    start = not all(m.p[p]["ready"] for p in ("P1", "P2"))
    masker = (mask or GENERIC_MASK) if viewer != JUDGE else None
    squares = tuple(
        None if (e := m.sq.get(n)) is None else
        _square(n, e, viewer, _public(force_under.get(n, ()), viewer), names, start, lean, masker)
        for n in SQUARE_NAMES)
    players = (_player(m, "P1", viewer, masker), _player(m, "P2", viewer, masker))
    b = m.battle
    battle = None if b is None else BattleView(
        attacker=b["from"], target=b["target"], target_kind=b["target_kind"], defender=b["defender"],
        step=b["step"], priority=b["priority"], outcome=b.get("outcome"), events=tuple(b.get("events", ())))
    listed = tuple(
        ViolationView(v["line"], v["turn"], v["player"], v["rule"],
                      engine_message(masker, v["message"]) if masker else v["message"], v["applied"])
        for v in m.violations) if not lean else ()
    temporary, force = _public(m.temporary, viewer), _public(loose_force, viewer)
    shown = {c: names[c] for c in _codes(squares, players, temporary, force, battle) if c in names}
    for s in squares:  # Tokens carry their own name (masked for every seat but the judge's)
        if s is not None and s.name and s.code:
            shown.setdefault(s.code, s.name)
    return MatchView(
        match_id=m.match_id, perspective=viewer, seq=m.version if seq is None else seq, last_seq=last_seq,
        turn=m.turn, active=m.active, phase=m.phase, squares=squares,
        links=MappingProxyType({s: tuple(who) for s, who in m.links.items() if who}), players=players,
        temporary=temporary, force=force, battle=battle,
        outcome=MappingProxyType(dict(m.outcome)) if m.outcome else None, violations=listed,
        catalog=MappingProxyType(dict(m.catalog)), names=MappingProxyType(shown))


# ---------------------------------------------------------------------- free text
# ---------------------------------------------------------------------- records and events
def _move_visible(viewer: str, owner: str | None, src: str | None, dst: str | None) -> bool:
    """A moved card is seen when it passes through a public zone, or by its owner through hand or Dynamis."""
    if src in PUBLIC_ZONES or dst in PUBLIC_ZONES or src is None or dst is None:
        return True
    return sees_own(viewer, owner) and (src in OWN_LOOK or dst in OWN_LOOK)


# what an effect's fields say of the card it moves, besides its code: the engine adds its Power and kind
# (zx, ex, ob) to a move's event, and a record may carry a name or a Power; each would name a hidden card
_CARD_FACTS = ("base", "kind", "name", "power")


def _hide_card(fields: dict) -> None:
    fields["card"] = HIDDEN
    for key in _CARD_FACTS:
        fields.pop(key, None)


# a game whose seats see an event by the state it was applied to (``Game.redact_event``'s ``before``)
SEES_BEFORE = True


def _force_face_down(before: Any, code: Any, owner: str | None) -> bool:
    """Whether the Force card a ``move`` takes out of the Force Zone (the first of ``code`` and ``owner`` there, as
    the engine takes it: ``match.Match._from_zone``) is face-down in ``before``, the state the move was applied to.
    Without that state, any: a seat that does not see it is never told it (301.3b)."""
    if before is None:
        return True
    for e in getattr(before, "force", ()):
        if isinstance(e, dict) and e.get("code") == code and e.get("owner") == owner:
            return e.get("up", True) is False
    return False


def _redact_effect(fields: dict, viewer: str, by: str | None, before: Any = None) -> None:
    op = fields.get("op")
    if op == "draw":
        if not sees_own(viewer, by):
            fields["cards"] = _hide(fields.get("cards", []))
    elif op == "recover":  # the top card of the deck goes into Life face-down: nobody sees it
        if "card" in fields:
            _hide_card(fields)
    elif op == "move" and "card" in fields:
        owner = fields.get("owner") or by
        if not _move_visible(viewer, owner, fields.get("from"), fields.get("to")):
            _hide_card(fields)
        elif fields.get("from") == "force" and not sees_own(viewer, owner) and \
                (fields.get("to") not in PUBLIC_ZONES or fields.get("face") == "down") and \
                _force_face_down(before, fields["card"], owner):  # 301.3b: a face-down Force card that stays unseen
            _hide_card(fields)
        elif fields.get("face") == "down" and not sees_own(viewer, owner) and \
                fields.get("from") not in PUBLIC_ZONES:  # 301.3b: put face-down from a hidden zone
            _hide_card(fields)


# what a record not applied takes from a zone its owner looks at (hand, Dynamis: 301.3c), by its kind (``do``,
# or ``effect_OP``) and field; "from": the zone its ``from`` field names (a play's: the hand unless it says
# Dynamis). Every other card it names: ``?`` to a seat (``seats.hide_not_applied``: hidden by default, by the
# schema; Life and deck: nobody but the judge)
_TAKEN_FROM = {("resource", "card"): "hand", ("play", "card"): "from", ("end", "discard"): "hand",
               ("effect_move", "card"): "from", ("effect_overboost", "upper"): "dynamis"}


def _own_look(viewer: str) -> Callable[[dict, str], bool]:
    def sees(rec: dict, key: str) -> bool:
        kind = f"effect_{rec.get('op')}" if rec.get("do") == "effect" else rec.get("do")
        zone, owner = _TAKEN_FROM.get((kind, key)), rec.get("by")
        if zone == "from":
            zone = rec.get("from", "hand" if kind == "play" else None)
            if kind == "effect_move":  # whose zones: ``owner``, by default the card's (docs/match-log.md)
                owner = rec.get("owner") or owner
        return zone in OWN_LOOK and sees_own(viewer, owner)
    return sees


def _redact_refused(out: dict, viewer: str, by: str | None) -> None:
    """A record not applied (its step's ``ViolationRecorded`` carries it, or a ``RecordSkipped``) moves no card:
    each card it names is ``?`` to a seat but for its owner's look into his own hand or Dynamis (``_TAKEN_FROM``,
    ``seats.hide_not_applied``), with what an effect's fields say of it besides its code (``_CARD_FACTS``)."""
    hide_not_applied(out, viewer, logformat.log_format(), _own_look(viewer))
    if out.get("card") == HIDDEN:
        for key in _CARD_FACTS:
            out.pop(key, None)


def redact_record(rec: Mapping[str, Any] | None, viewer: str, mask: Masker | None = None,
                  events: Iterable[Any] = (), before: Any = None) -> dict | None:
    """A log record as ``viewer`` may see it: hidden card codes become ``?``; notes are left out, a result's
    reason and a Token's name masked (zx_events.freetext). ``events``: its step's domain events; a record
    not applied (``seats.record_applied``) names cards that stayed in hidden zones (``_redact_refused``).
    ``before``: the state before its step (whether a Force card it moves is face-down, 301.3b; None: taken as
    face-down)."""
    if rec is None:
        return None
    out = dict(rec)
    if viewer == JUDGE:
        return out
    by = out.get("by")
    do = out.get("do")
    events = tuple(events)  # (read twice: a generator was spent by the first)
    if not record_applied(events):
        _redact_refused(out, viewer, by)
    if do == "setup":
        if not sees_own(viewer, by):
            for key in ("hand", "mulligan"):
                if key in out:
                    out[key] = _hide(out[key])
            if out.get("start_card") is not None:  # put face-down on the Player Square (setup, digest)
                out["start_card"] = HIDDEN
        if "life" in out:  # 301.3c: Life is face-down, even to its owner
            out["life"] = _hide(out["life"])
    elif do == "draw":
        if not sees_own(viewer, player_of(events, "CardsDrawn", by)):  # (the turn player's draw under the
            # other seat, digest.7: the hand it went to)
            out["cards"] = _hide(out.get("cards", []))
    elif do == "effect":
        _redact_effect(out, viewer, by, before)
    # notes: judge only; ts: only a date-time; a result's reason and a Token's name masked (zx_events.freetext)
    return seat_record(out, viewer, mask or GENERIC_MASK)


_PUBLIC_EVENTS = frozenset({
    "TurnStarted", "Reloaded", "ResourcePlaced", "IgnitionPerformed", "CardPlayed", "AttackDeclared",
    "PriorityPassed", "BattleDamageDealt", "BattleEnded", "LifeDamaged", "ChargeExcessTrashed", "ZXDestroyed",
    "TurnEnded", "Conceded", "MatchEnded", "ResultRecorded", "Sealed", "AbilityPlayed", "BattleEffectsEnded",
    "RecordSkipped", "LateRecord", "LifeCardKnown"})
# public events that carry a Life card only the judge knows (301.3c): the card a damage took where its record named a
# card not in the Life (301.1, ``Referee.do_life``), shown to every other seat as HIDDEN
_TAKEN_EVENTS = frozenset({"LifeDamaged", "LifeCardKnown", "Reloaded"})  # (a Reload's, digest.12)


def redact_event(kind: str, fields: dict[str, Any], viewer: str, mask: Masker | None = None,
                 before: Any = None) -> dict[str, Any]:
    """An event's fields as ``viewer`` may see them (the same rules as ``redact_record``). ``before``: the state
    the event was applied to (whether a Force card it moves is face-down, 301.3b; None: taken as face-down)."""
    # the Started event's import file path: judge only; a result's reason and a Token's name masked
    out = seat_event(kind, dict(fields), viewer, mask or GENERIC_MASK)
    if viewer == JUDGE:
        return out
    if kind in _TAKEN_EVENTS and (out.get("taken") is not None or kind == "LifeCardKnown"):
        out["taken"] = HIDDEN  # 301.3c: the Life card taken, face-down, the judge's only
    if kind in _PUBLIC_EVENTS:
        return out
    by = out.get("player")
    if kind == "Started":
        header = seat_header(dict(out.get("header", {})), viewer, mask or GENERIC_MASK)  # zx_events.freetext
        header["players"] = {p: {k: v for k, v in info.items() if k not in ("deck", "dynamis")}
                             for p, info in header.get("players", {}).items()}
        out["header"] = header
    elif kind == "PlayerSetUp":
        if not sees_own(viewer, by):
            out["hand"] = _hide(out.get("hand"))
            out["mulligan"] = _hide(out.get("mulligan"))
            start = out.get("start_card")
            if isinstance(start, dict):  # face-down on the Player Square: its Square only (its Power names it)
                out["start_card"] = {"code": HIDDEN, "square": start.get("square")}
        out["life"] = _hide(out.get("life"))
    elif kind == "CardsDrawn":
        zone = out.get("zone")  # (a setup left out's unknown card known now, 402: as its PlayerSetUp shows it)
        if zone == "life" or zone != "resource" and not sees_own(viewer, by):  # Life is face-down (301.3c), to its
            out["cards"] = _hide(out.get("cards"))  # owner too; Resource face-up, to every seat
    elif kind == "EffectApplied":
        args = dict(out.get("args", {}))
        args["op"] = out.get("op")
        _redact_effect(args, viewer, by, before)
        args.pop("op")
        out["args"] = args
    elif kind == "ViolationRecorded":
        out["message"] = engine_message(mask or GENERIC_MASK, out.get("message", ""))
    else:  # an event kind this module does not know: show only its name
        out = {}
    return out
