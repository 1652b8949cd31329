"""Legal actions: every log record the referee would accept next, like a chess library's legal moves.

``legal_records(match, catalog, player)`` lists candidate records (the spec's record dicts) for the
decision points of a match: setup, the turn record, the rule obligations first (Reload 902, Charge
Excess 905, a Life card per point of damage 604.3b, Life Recovery 1102, Void Bringer 1103), then the
Draw (503.3), Resource (504.3), Ignition (505.3) and Main (506) Phases, battles (602) and the
Battle Event Step (603), and the End Phase (507, 309.2a). ``concede`` (101.4) is always listed while
the game is on, and ``result`` (101.2) once it is over.

Legality comes from the same small checks the referee runs (``checks.placement``,
``attack_target``, ``attacker``, ``attack_geometry``, ``cost_problems``), never from a second copy
of the rules. Deliberate limits: a play lists one payment per (card, Square), not every subset of
Resource; a Shift is listed on your own cards only (the referee accepts any vessel, which its text
designates: 202.8d); ``effect`` records are listed only where an obligation asks for one (the lister does not
know card abilities), and one sample startup ability (807): a card with the ``link`` keyword on
Square may put a Link on its own Square (202.13b), in its controller's Main Phase or, with priority,
in the Battle Event Step (an ``effect`` with ``startup: true``, 603.1b-603.1c), so simulated
matches exercise Links and startup abilities; a record that closes the Battle Event Step by implied
passes (603.1c) is not listed, only the explicit ``pass``.

The deck is an unordered multiset in the state (301.3), so records that reveal cards from it
(draw, ignition, recover, setup) take their codes from a ``DeckOrder``: the simulator passes the real
shuffled order it keeps; without one, ``StateOrder`` takes the state's own list order.
``is_legal(match, catalog, record)`` is the oracle: the real referee, strict, on a copy of the state.
"""

from __future__ import annotations

import copy
import json
from itertools import combinations
from typing import Protocol

from zx_events.games.zx.board import SQUARE_NAMES
from zx_events.games.zx.cards import INF, Card, CardType, Catalog
from zx_events.errors import ZXError
from zx_events.games.zx.match import LIMIT_CHARGE, LIMIT_HAND, PHASES, Match, other
from zx_events.games.zx.engine import checks
from zx_events.games.zx.engine.referee import Obligation, Referee

_RESOURCE = PHASES.index("resource")
_IGNITION = PHASES.index("ignition")
_MAIN = PHASES.index("main")


class DeckOrder(Protocol):
    """Who knows the hidden order of the decks: ``top(player, n)`` is the next ``n`` cards, top first."""

    def top(self, player: str, n: int) -> list[str]: ...


class StateOrder:
    """No hidden order known: any card of an unordered deck is a legal draw, so take the state's list."""

    def __init__(self, match: Match) -> None:
        self.m = match

    def top(self, player: str, n: int) -> list[str]:
        return list(self.m.p[player]["deck"][:n])


# ---------------------------------------------------------------------- who acts
def to_act(match: Match, catalog: Catalog) -> str | None:
    """The player whose record comes next, or None once the game is over.

    An obligation's player first, then the player with priority in a Battle Event Step (603.1b),
    then the turn player; after the End Phase the next turn's player; before turn 1 the first
    player who is not set up yet, then the first player.
    """
    m = match
    if m.outcome is not None:
        return None
    due = Referee(m, catalog).due()
    if due is not None:
        return due.player
    if m.battle is not None and m.battle["step"] == "event":
        return m.battle["priority"]
    if m.phase == "setup":
        for pl in ("P1", "P2"):
            if not m.p[pl]["ready"]:
                return pl
        return m.first
    if m.phase == "over":
        return other(m.active)
    return m.active


# ---------------------------------------------------------------------- the lister
def legal_records(match: Match, catalog: Catalog, player: str, order: DeckOrder | None = None) -> list[dict]:
    """The records ``player`` may write next that the referee (strict) accepts, concede last."""
    m = match
    if m.outcome is not None:  # 101.2: only a result that agrees with the engine
        o = m.outcome
        return [{"do": "result", "by": player, "winner": o["winner"], "reason": o["reason"]}]
    order = order if order is not None else StateOrder(m)
    due = Referee(m, catalog).due()
    if due is not None:
        out = _obligation(m, catalog, due, order) if due.player == player else []
    elif m.battle is not None:
        b = m.battle
        out = []
        if b["step"] == "event" and b["priority"] == player:  # 603.1b
            out = [{"do": "pass", "by": player}, *_event_plays(m, catalog, player), *startups(m, catalog, player)]
    elif m.phase == "setup":
        out = _setup(m, player, order)
    elif m.phase == "over":
        out = [{"do": "turn", "by": player, "turn": m.turn + 1}] if player == other(m.active) else []
    elif player == m.active:
        out = _turn(m, catalog, player, order)
    else:  # the non-turn player acts only in a Battle Event Step (506, 603.1b)
        out = []
    out.append({"do": "concede", "by": player})
    return out


def is_legal(match: Match, catalog: Catalog, record: dict) -> bool:
    """Would the referee (strict) accept ``record`` next? Checked on a deep copy: ``match`` is untouched.

    The record must also be well-formed (the log schema) and name only codes of ``catalog``.
    """
    import fastjsonschema

    from zx_events.games.zx.logformat import log_format

    fmt = log_format()  # what the log reader checks a record against (the header was checked at import)
    record = json.loads(json.dumps(record))  # as a log line would give it
    try:
        name = fmt.def_name(record)
        if name is None or name == "header":
            return False
        (fmt.effect[record["op"]] if record["do"] == "effect" else fmt.action[record["do"]])(record)
    except (fastjsonschema.JsonSchemaException, KeyError, TypeError):
        return False
    if any(code not in catalog for code in fmt.codes_of(record, name)):
        return False
    try:
        # pending events are history, not state: the copy starts without them; the header, the
        # players' decks and the catalog reference are never changed by the referee: shared
        memo = {id(match.pending_events): [], id(match.header): match.header,
                id(match.players): match.players, id(match.catalog): match.catalog}
        trial = copy.deepcopy(match, memo)
        ref = Referee(trial, catalog, strict=True, source="<legal>")
        ref.handle(2, record)
    except ZXError:
        return False
    return True


# ---------------------------------------------------------------------- pieces
def _distinct(codes: list[str]) -> list[str]:
    """Each code once, in first-seen order (copies in an unordered zone are interchangeable)."""
    return list(dict.fromkeys(codes))


def _choose(codes: list[str], n: int) -> list[list[str]]:
    """Every distinct multiset of ``n`` codes out of ``codes``, in a stable order."""
    return [list(c) for c in dict.fromkeys(combinations(sorted(codes), n))]


class _Squares:
    """806: the Squares ``player`` may put a Z/X on, worked out the first time they are needed."""

    def __init__(self, m: Match, player: str) -> None:
        self.m, self.player = m, player
        self._names: list[str] | None = None

    def __iter__(self):
        if self._names is None:
            self._names = [s for s in SQUARE_NAMES if checks.placement(self.m, self.player, s) is None]
        return iter(self._names)


def _free_plays(card: Card, squares: _Squares) -> list[dict]:
    """The ways to play an IG card free (505.3a): a Z/X on a legal Square, an Event as ``{}``."""
    if not card.ignition:
        return []
    if card.is_zx:
        return [{"square": s} for s in squares]
    return [{}] if card.is_event else []


def payment(m: Match, catalog: Catalog, player: str, card: Card) -> list[str] | None:
    """One way to pay ``card`` (805 / 204.6): Reboot Resource cards, one of them sharing a colour."""
    cost = card.cost
    if cost == INF:
        return None
    need = int(cost or 0)
    if need == 0:
        return []
    reboot = [r["code"] for r in m.p[player]["resource"] if not r["sleep"]]
    if len(reboot) < need:
        return None
    if card.colors:
        first = next((c for c in reboot if (rc := catalog.get(c)) is not None and rc.shares_colour(card)), None)
        if first is None:
            return None
        rest = list(reboot)
        rest.remove(first)
        pay = [first, *rest[:need - 1]]
    else:
        pay = reboot[:need]
    return None if checks.cost_problems(m, catalog, player, card, pay) else pay


def _obligation(m: Match, cat: Catalog, due: Obligation, order: DeckOrder) -> list[dict]:
    pl = due.player
    z = m.p[pl]
    if due.kind == "reload":  # 902: the opponent picks which Life card goes to Charge
        return [{"do": "reload", "by": pl, "life": c} for c in _distinct(z["life"])]
    if due.kind == "charge_excess":  # 905: the owner picks the excess
        n = len(z["charge"]) - LIMIT_CHARGE
        return [{"do": "charge_excess", "by": pl, "trash": c} for c in _choose(z["charge"], n)]
    if due.kind == "life":  # 604.3b: one Life card a point; an IG card may be played free
        squares = _Squares(m, pl)
        out = []
        for code in _distinct(z["life"]):
            out.append({"do": "life", "by": pl, "card": code})
            out.extend({"do": "life", "by": pl, "card": code, "ignite": p}
                       for p in _free_plays(cat[code], squares))
        return out
    source = _trigger_source(m, cat, pl, "LR" if due.kind == "recover" else "VB")
    if due.kind == "recover":  # 1102: the top card of the deck into Life
        return [{"do": "effect", "by": pl, "source": source, "op": "recover", "card": c}
                for c in order.top(pl, 1)]
    # 1103 Void Bringer: one card on any Square into Trash
    return [{"do": "effect", "by": pl, "source": source, "op": "move", "square": s, "from": "square",
             "to": "trash", "owner": e["owner"]} for s, e in m.sq.items() if e is not None]


def _trigger_source(m: Match, cat: Catalog, player: str, icon: str) -> str:
    """The card whose Life Recovery / Void Bringer triggered: the last Life card ``player`` played."""
    for e in reversed(m.pending_events[-12:]):
        if isinstance(e, Match.LifeDamaged) and e.player == player:
            return e.card
    # a match loaded from the store has no pending events: a card with the icon the player has used
    for code in [e["code"] for e in m.sq.values() if e is not None and e["ctrl"] == player] + \
            list(reversed(m.p[player]["trash"])):
        card = cat.get(code)  # a Token's code may not be in the catalog
        if card is not None and icon in card.icons:
            return code
    return m.p[player]["player_card"] or player


def _setup(m: Match, player: str, order: DeckOrder) -> list[dict]:
    """402: hand 4, Life 4 and Resource 2 from the top of the deck; then the first player's turn 1."""
    if m.p[player]["ready"]:
        ready = all(m.p[p]["ready"] for p in ("P1", "P2"))
        return [{"do": "turn", "by": player, "turn": 1}] if ready and player == m.first else []
    top = order.top(player, 10)
    if len(top) < 10:
        return []
    return [{"do": "setup", "by": player, "hand": top[:4], "life": top[4:8], "resource": top[8:10]}]


def _turn(m: Match, cat: Catalog, pl: str, order: DeckOrder) -> list[dict]:
    """The turn player's records from the Draw Phase to the End Phase."""
    z = m.p[pl]
    phase = PHASES.index(m.phase)
    if m.phase == "draw":  # 503.3 / 503.3a: nothing else until the draw is complete
        need = checks.to_draw(m)  # (an empty deck with cards in Trash owes a Reload first: an obligation)
        if need > 0:
            cards = order.top(pl, min(need, len(z["deck"])))
            return [{"do": "draw", "by": pl, "cards": cards}] if cards else []
    out: list[dict] = []
    if phase <= _RESOURCE and not z["resource_used"]:  # 504.3
        out.extend({"do": "resource", "by": pl, "card": c} for c in _distinct(z["hand"]))
    squares = _Squares(m, pl)
    if phase <= _IGNITION and z["charge"] and z["deck"]:  # 505.3
        revealed = order.top(pl, 1)[0]
        plays = _free_plays(cat[revealed], squares)
        for c in _distinct(z["charge"]):
            out.append({"do": "ignition", "by": pl, "charge": c, "revealed": revealed})
            out.extend({"do": "ignition", "by": pl, "charge": c, "revealed": revealed, "play": p} for p in plays)
    out.extend(_main_plays(m, cat, pl, squares))
    out.extend(attacks(m, cat, pl))
    out.extend(startups(m, cat, pl))
    need = max(0, len(z["hand"]) - LIMIT_HAND)  # 309.2a
    if need:
        out.extend({"do": "end", "by": pl, "discard": d} for d in _choose(z["hand"], need))
    else:
        out.append({"do": "end", "by": pl})
    return out


def _main_plays(m: Match, cat: Catalog, pl: str, squares: _Squares) -> list[dict]:
    """506: Z/X and Events from hand; Z/X EX, EV EX (one a turn), Shift and Z/X OB from Dynamis."""
    z = m.p[pl]
    out: list[dict] = []
    for code in _distinct(z["hand"]):
        card = cat[code]
        if card.type.in_dynamis or (pay := payment(m, cat, pl, card)) is None:
            continue
        if card.is_zx:
            out.extend({"do": "play", "by": pl, "card": code, "pay": pay, "square": s} for s in squares)
        elif card.is_event:
            out.append({"do": "play", "by": pl, "card": code, "pay": pay})
    for code in _distinct([d["code"] for d in z["dynamis"]]):
        card = cat[code]
        t = card.type
        if t.is_extra and z["extra_used"]:  # 506: one Z/X EX or EV EX from Dynamis a turn
            continue
        if t == CardType.ZX_OB and checks.controls_overboost(m, pl):  # 202.7g
            continue
        if t == CardType.SHIFT and checks.controls_shift(m, pl):  # 202.8c
            continue
        pay = payment(m, cat, pl, card)
        if pay is None:
            continue
        base = {"do": "play", "by": pl, "card": code, "from": "dynamis", "pay": pay}
        if card.is_zx:
            out.extend({**base, "square": s} for s in squares)
        elif t == CardType.SHIFT:  # 202.8d: on a card of yours on Square
            out.extend({**base, "on": s} for s, e in m.sq.items() if e is not None and e["ctrl"] == pl)
        elif card.is_event:
            out.append(base)
    return out


def _event_plays(m: Match, cat: Catalog, pl: str) -> list[dict]:
    """603.1b: in the Battle Event Step the player with priority may play Events (and an EV EX)."""
    z = m.p[pl]
    out: list[dict] = []
    for code in _distinct(z["hand"]):
        card = cat[code]
        if card.type == CardType.EVENT and (pay := payment(m, cat, pl, card)) is not None:
            out.append({"do": "play", "by": pl, "card": code, "pay": pay})
    if not z["extra_used"]:
        for code in _distinct([d["code"] for d in z["dynamis"]]):
            card = cat[code]
            if card.type == CardType.EV_EX and (pay := payment(m, cat, pl, card)) is not None:
                out.append({"do": "play", "by": pl, "card": code, "from": "dynamis", "pay": pay})
    return out


def startups(m: Match, cat: Catalog, pl: str) -> list[dict]:
    """807: the sample startup ability: a face-up card of ``pl`` with the ``link`` keyword on Square
    puts a Link on its own Square (202.13b). The catalog holds no ability texts; this one stands in
    for them so that Links and startup abilities (603.1b-603.1c) occur in simulated matches."""
    out = []
    for s, e in m.sq.items():
        if e is not None and e["ctrl"] == pl and e.get("up", True) and (c := cat.get(e["code"])) is not None \
                and c.has_keyword("link"):
            out.append({"do": "effect", "by": pl, "source": s, "op": "link", "square": s, "startup": True})
    return out


def attacks(m: Match, cat: Catalog, pl: str) -> list[dict]:
    """602.1: every legal (attacker, target) pair of the turn player: next to it, or within Range."""
    if m.battle is not None or pl != m.active:
        return []
    sources = [s for s in SQUARE_NAMES if checks.attacker(m, pl, s) is None]
    if not sources:
        return []
    out: list[dict] = []
    targets = [s for s in SQUARE_NAMES if checks.attack_target(m, pl, s)[1] is None]
    for src in sources:
        card = cat.get(m.sq[src]["code"])
        out.extend({"do": "attack", "by": pl, "from": src, "target": t} for t in targets
                   if checks.attack_geometry(src, t, card) is None)
    return out
