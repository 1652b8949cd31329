"""The X610Z Match aggregate: the state of one match, rebuilt by replaying its events.

Events that a log record caused first carry the record (``rec``): the audit rebuilds the log of a
stored match from them and replay shows each step's record. Every ``@event`` method only assigns state: it never checks a rule and never raises, so a stored
match always loads after the rules engine changes. The referee (``referee.py``) checks each log
record, derives what the rules make happen (resolutions, fizzles, destruction, the outcome) and
calls these methods with the facts, so replay needs neither the catalog nor the board.

State (JSON-native):
- ``p[P]``: ``deck`` and ``hand`` (unordered multisets of codes; the hand of a setup left out holds its 7 unknown
  cards as ``HIDDEN``, and a Draw Phase draw left out one more, ``CardDrawn`` of ``HIDDEN``, which ``deck`` still
  lists, digest.8: ``_from_hand``, ``deck_count``), ``discard`` (a ``HIDDEN`` there: a card the hand still lists,
  discarded unknown which by the turn an `end` left out ended, digest.8: ``hand_count``), ``removed``,
  ``pool`` (energy type -> amount, 203), ``home`` (the Summon Dot, 105.2c), ``crystal_cast``.
- ``dots``: occupied dot -> summon entry (600.5): ``uid``, ``code``, ``owner``, ``ctrl``, ``act``
  (card activated), ``deact`` (deactivated by an effect, 202.4), ``dmg``, ``base`` stats, ``mods``
  ([stat, delta, until], in the order applied), ``msum`` (stat -> the sum of its modifiers' deltas),
  ``mends`` ({"end_of_turn": the index of the first such modifier} while ``mods`` holds one: the two
  keep a stat's cost, and the modifiers' end, independent of how many a summon holds), ``life`` (a
  Life Base), ``cls``, ``counters``, this turn's ``trail`` (the dots that fix its direction, 202.8)
  and ``pos`` on it, ``attacks``, ``extra_attacks``, ``abil``.
- ``perms``: permanents off the board (crystals, permanent Effects), each ``uid``, ``code``,
  ``kind``, ``owner``, ``ctrl``, ``act``, ``on`` (the uid it is fixed on) and ``counters``.
- ``stack`` (201.2; its cards are in the Cast Zone; an entry marked ``void`` is an announcement of what is not
  there, digest.8: it names nothing, moves no card and fizzles), ``prio`` and ``passes`` (201.3-201.6).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import Aggregate, event

from zx_events.games.base import install_direct_triggers
from zx_events.games import digest_of, known_rules
from zx_events.ids import match_uuid, project as _project  # one id space across games (shared/spec/games.md)
from zx_events.seats import HIDDEN, deck_count  # noqa: F401  (deck_count: the engine's and views' from here)

PREFIX = "x610z.match"
PHASES = ("setup", "draw", "action", "end", "closed", "over", "ended")
HAND_LIMIT = 7  # 502.5
STATS = ("attack", "defense", "speed", "range")


def topic(name: str) -> str:
    """The stable topic an X610Z event is stored under (``Started`` -> ``x610z.match:Started``)."""
    return f"{PREFIX}:{name}"


def other(player: str) -> str:
    return "P2" if player == "P1" else "P1"


def _take(zone: list, code: str) -> bool:
    try:
        zone.remove(code)
        return True
    except ValueError:
        return False


def _from_hand(z: dict, code: str) -> bool:
    """``code`` taken from the player's hand (``z``), or, the hand not holding it, for one of its unknown cards
    (``HIDDEN``, digest.8: a setup or a draw left out): that card was ``code``, which leaves the deck the state
    keeps."""
    if _take(z["hand"], code):
        return True
    if HIDDEN in z["hand"] and _take(z["deck"], code):
        z["hand"].remove(HIDDEN)
        return True
    return False


def _unnamed(z: dict) -> None:
    """A card cast from the player's hand (``z``) that it does not list (digest.9): one of its cards, unknown which,
    was that card under another name (a setup's or a draw's): it leaves the hand, which still lists the other name,
    uncounted (``hand_count``); the deck the state keeps still lists the card cast in place of that one (the counts
    are right, which card is not known)."""
    z["unnamed"] = z.get("unnamed", 0) + 1


def hand_count(z: dict) -> int:
    """How many cards the player's hand (``z``) holds: the hand the state keeps, less the cards an `end` left out
    discarded unknown (``HIDDEN`` in his Discard Pile, digest.8: the turn ended by the next `turn` discards down to the
    hand limit, 502.5), whose codes it still lists, which of them they are not being known; and less the cards a `cast`
    or `crystal` used under a name the hand does not list (``unnamed``, digest.9: played as written for a card of the
    hand the log does not name, which it still lists)."""
    return max(0, len(z["hand"]) - z["discard"].count(HIDDEN) - z.get("unnamed", 0))


def stat(entry: dict, name: str) -> int:
    """202.6-202.7c: the Basic Stat plus every modifier, the total clamped at 0 (open question 19)."""
    return max(0, entry["base"].get(name, 0) + entry["msum"].get(name, 0))


def add_mod(entry: dict, name: Any, delta: int, until: Any) -> None:
    """A modifier ``[stat, delta, until]`` applied to a summon: appended to its ``mods``, its sums kept
    (a stat that is none of ``STATS`` is kept in the list and counts for none)."""
    if until == "end_of_turn" and "end_of_turn" not in entry["mends"]:
        entry["mends"]["end_of_turn"] = len(entry["mods"])
    entry["mods"].append([name, delta, until])
    if name in STATS:
        entry["msum"][name] = entry["msum"].get(name, 0) + delta


def end_mods(entry: dict) -> None:
    """402.10e: a summon's "until end of turn" modifiers end; the others stay, in their order. Only the
    modifiers from the first of them on are looked at (each modifier by at most one end of turn)."""
    first = entry["mends"].pop("end_of_turn", None)
    if first is None:
        return
    mods, msum = entry["mods"], entry["msum"]
    kept = []
    for m in mods[first:]:
        if m[2] != "end_of_turn":
            kept.append(m)
        elif m[0] in STATS:
            msum[m[0]] -= m[1]
    mods[first:] = kept


project = _project  # zx_events.ids: every game's plain projector


class Match(Aggregate):
    TOPIC = "x610z.match:Match"

    class Event(Aggregate.Event):
        TOPIC = "x610z.match:Event"

    @staticmethod
    def create_id(match_id: str, **_: Any):
        return match_uuid(match_id)

    # ------------------------------------------------------------------ header
    @event("Started", topic=topic("Started"))
    def __init__(self, match_id: str, header: dict, catalog: dict, board: dict, rules_version: str,
                 source: str, content_sha256: str, line: int | None = None) -> None:
        self.game = "x610z"
        self.match_id = match_id
        self.header = {k: v for k, v in header.items() if k != "players"}
        self.players = {p: dict(info) for p, info in header["players"].items()}
        self.catalog = dict(catalog)
        self.board = dict(board)
        known_rules("x610z", match_id, rules_version)
        self.rules_version = rules_version
        self.source = source
        self.content_sha256 = content_sha256
        self.first = header.get("first", "P1")
        self.turn = 0
        self.active: str | None = None
        self.phase = "setup"
        self.drawn = 0
        self.p: dict[str, dict] = {}
        for pl in ("P1", "P2"):
            deck: list[str] = []
            for code, n in (header["players"].get(pl, {}).get("deck") or {}).items():
                deck.extend([code] * int(n))
            self.p[pl] = {"deck": deck, "hand": [], "discard": [], "removed": [], "pool": {}, "home": None,
                          "ready": False, "crystal_cast": False}
        self.dots: dict[str, dict] = {}
        self.perms: list[dict] = []
        self.stack: list[dict] = []
        self.prio: str | None = None
        self.passes = 0
        self.next_uid = 1
        self.turns_queue: list[str] = []
        self.outcome: dict | None = None
        self.violations: list[dict] = []
        self.last_line = line

    # ------------------------------------------------------------------ helpers (no events)
    def _uid(self) -> int:
        uid = self.next_uid
        self.next_uid += 1
        return uid

    def _summon(self, code: str, owner: str, ctrl: str, info: dict) -> dict:
        return {"uid": self._uid(), "code": code, "owner": owner, "ctrl": ctrl, "act": False, "deact": False,
                "dmg": 0, "base": dict(info.get("stats") or {}), "mods": [], "msum": {}, "mends": {},
                "life": bool(info.get("life")),
                "cls": info.get("cls", ""), "counters": dict(info.get("counters") or {}), "trail": None,
                "pos": 0, "attacks": 0, "extra_attacks": 0, "abil": []}

    def find(self, uid: int | None) -> tuple[str | None, dict | None]:
        """The dot and entry of the summon ``uid`` (None, None when it is not in play)."""
        for dot, e in self.dots.items():
            if e["uid"] == uid:
                return dot, e
        return None, None

    def perm(self, uid: int | None) -> dict | None:
        for p in self.perms:
            if p["uid"] == uid:
                return p
        return None

    def _spend(self, player: str, pay: dict) -> None:
        pool = self.p[player]["pool"]
        for t, n in (pay or {}).items():
            left = pool.get(t, 0) - int(n)
            if left > 0:
                pool[t] = left
            else:
                pool.pop(t, None)

    def _detach(self, uid: int) -> None:
        """Effects fixed on an object that left play go to their owners' Discard Piles (205.3)."""
        for p in [p for p in self.perms if p.get("on") == uid]:
            self.perms.remove(p)
            self.p[p["owner"]]["discard"].append(p["code"])
            self._detach(p["uid"])

    def _first_holder(self) -> str | None:
        if self.active is None:
            return None
        return other(self.active) if self.phase == "end" else self.active  # 201.3a-b

    # ------------------------------------------------------------------ setup and turns
    @event("PlayerSetUp", topic=topic("PlayerSetUp"))
    def _set_up(self, player: str, dot: str | None, life_base: dict | None, hand: list, murphy: list,
                rec: dict | None = None, line: int | None = None) -> None:
        """``life_base`` None (digest.8): a setup that places no Life Base (a dot off the board or taken, a deck
        without a Life Base Card), applied without it; ``dot`` None: no Starting Dot either."""
        z = self.p[player]
        if life_base is not None:
            _take(z["deck"], life_base["code"])  # 105.3a: the Life Base Card is on the table before the draw
            self.dots[dot] = self._summon(life_base["code"], player, player, {**life_base, "life": True})
        z["home"] = dot
        for c in hand:
            _take(z["deck"], c)
        z["hand"] = list(hand)
        for again in murphy:  # 105.4: hand shuffled back, one card fewer drawn
            z["deck"].extend(z["hand"])
            z["hand"] = []
            for c in again:
                _take(z["deck"], c)
                z["hand"].append(c)
        z["ready"] = True
        self.last_line = line

    @event("TurnStarted", topic=topic("TurnStarted"))
    def _turn_started(self, turn: int, player: str, rec: dict | None = None, line: int | None = None) -> None:
        self.turn = turn
        self.active = player
        self.phase = "draw"
        self.drawn = 0
        if self.turns_queue:
            self.turns_queue.pop(0)
        for z in self.p.values():
            z["crystal_cast"] = False
        for e in self.dots.values():  # 701.1 reactivation; this turn's direction and attacks reset
            e["trail"], e["pos"], e["attacks"], e["extra_attacks"], e["abil"] = None, 0, 0, 0, []
            if e["ctrl"] == player:
                e["act"] = e["deact"] = False
                if "time" in e["counters"]:
                    e["counters"]["time"] -= 1  # 209.2e
        for p in self.perms:
            if p["ctrl"] == player:
                p["act"] = False
                if "time" in p["counters"]:
                    p["counters"]["time"] -= 1
        self.prio, self.passes = player, 0
        self.last_line = line

    @event("CardDrawn", topic=topic("CardDrawn"))
    def _drawn(self, player: str, card: str, rec: dict | None = None, line: int | None = None,
               unknown: bool = False) -> None:
        """``card`` drawn from the deck into the hand. ``card`` ``HIDDEN`` (digest.8: a Draw Phase draw the log left
        out, 702.1): an unknown card in the hand, whose code the deck the state keeps still lists (``deck_count``
        counts it out; no code is ``HIDDEN``, so none leaves the list). ``unknown``: ``card`` is one of the hand's
        unknown cards, known now (the record that first uses the card of a draw left out, or its draw logged late):
        it takes the place of one ``HIDDEN`` and leaves the deck's list, and is no draw of the Draw Phase under way.
        (Events stored before the draw left out put ``HIDDEN`` in the hand hold no ``unknown``: a plain draw.)"""
        z = self.p[player]
        _take(z["deck"], card)
        if unknown and HIDDEN in z["hand"]:
            z["hand"].remove(HIDDEN)
        z["hand"].append(card)
        if player == self.active and self.phase == "draw" and not unknown:
            self.drawn += 1
        self.last_line = line

    @event("PhaseEntered", topic=topic("PhaseEntered"))
    def _phase_entered(self, phase: str, line: int | None = None) -> None:
        self.phase = phase
        self.prio = None if phase == "closed" else self._first_holder()
        self.passes = 0

    # ------------------------------------------------------------------ energy (203, 403)
    @event("CrystalCast", topic=topic("CrystalCast"))
    def _crystal(self, player: str, card: str, pay: dict, counters: dict, rec: dict | None = None, line: int | None = None,
                 unnamed: bool = False) -> None:
        """``unnamed`` (digest.9): ``card``, which the hand does not list, is cast for a card of the hand the log does
        not name (``_unnamed``)."""
        z = self.p[player]
        if unnamed:
            _unnamed(z)
        else:
            _from_hand(z, card)
        self._spend(player, pay)
        self.perms.append({"uid": self._uid(), "code": card, "kind": "crystal", "owner": player, "ctrl": player,
                           "act": False, "on": None, "counters": dict(counters)})
        z["crystal_cast"] = True
        self.last_line = line

    @event("EnergyAdded", topic=topic("EnergyAdded"))
    def _energy(self, player: str, uid: int, type: str, amount: int, rec: dict | None = None, line: int | None = None) -> None:
        p = self.perm(uid)
        if p is not None:
            p["act"] = True
            if "activation" in p["counters"]:
                p["counters"]["activation"] -= 1  # 209.2b
        pool = self.p[player]["pool"]
        pool[type] = pool.get(type, 0) + amount
        self.last_line = line

    # ------------------------------------------------------------------ the stack (200, 201)
    @event("Announced", topic=topic("Announced"))
    def _announced(self, player: str, entry: dict, pay: dict, rec: dict | None = None, line: int | None = None) -> None:
        """An entry marked ``unnamed`` (digest.9): the card cast, which the hand does not list, is cast for a card of
        the hand the log does not name (``_unnamed``)."""
        self._spend(player, pay)
        kind = entry["kind"]
        if entry.get("void"):
            pass  # an announcement of nothing (digest.8: what it names is not there): it takes the stack and priority
        elif entry.get("unnamed"):
            _unnamed(self.p[player])
        elif kind == "cast":
            _from_hand(self.p[player], entry["card"])  # to the Cast Zone (503.1)
        elif kind == "activate":
            p = self.perm(entry.get("uid"))
            if p is not None:
                p["act"] = True
                if "activation" in p["counters"]:
                    p["counters"]["activation"] -= 1
        elif kind in ("move", "attack", "ability"):
            _, e = self.find(entry.get("uid"))
            if e is not None:
                if kind == "move" or entry.get("ability") == "activated":
                    e["act"] = True  # 202.2, 402.10f
                    if "activation" in e["counters"]:
                        e["counters"]["activation"] -= 1
                if kind == "ability":
                    e["abil"].append(entry["ability"])
                if kind == "attack":
                    e["attacks"] += 1
                if "trail" in entry:
                    e["trail"], e["pos"], e["via"] = list(entry["trail"]), entry["pos"], kind
        self.stack.append(dict(entry))
        self.prio, self.passes = other(player), 0  # 201.4 (open question 6)
        self.last_line = line

    @event("ActionFailed", topic=topic("ActionFailed"))
    def _failed(self, player: str, kind: str, pay: dict, rec: dict | None = None, line: int | None = None) -> None:
        """200.5: the cost could not be met; the energy is spent, the card stays in hand, nothing goes on the stack.

        A stackable action that fails was announced all the same (200.5: "After an action is announced ..."):
        priority goes to the next player (201.4, choice 4), the passes counted again, as after any announcement.
        A crystal's is no announcement (200.1b, 200.2). digest.11: under digest.10 and before priority stayed with
        ``player`` (a match stored then replays as it was imported)."""
        self._spend(player, pay)
        if kind != "crystal" and digest_of(self.rules_version) >= 11:
            self.prio, self.passes = other(player), 0  # 201.4 (choice 4)
        self.last_line = line

    @event("Passed", topic=topic("Passed"))
    def _passed(self, player: str, rec: dict | None = None, line: int | None = None) -> None:
        self.passes += 1
        self.prio = other(player)
        self.last_line = line

    @event("Resolved", topic=topic("Resolved"))
    def _resolved(self, outcome: str, facts: dict, line: int | None = None) -> None:
        if not self.stack:
            return
        entry = self.stack.pop()
        kind, by = entry["kind"], entry["by"]
        done = outcome == "done"
        if kind == "cast":
            card = entry["card"]
            if done and entry.get("summon"):
                self.dots[facts["dot"]] = self._summon(card, by, by, entry["summon"])
            elif done and entry.get("permanent"):
                # 208.2: cast on a Summon, Energy Crystal or Effect, it is under that object's controller
                on = facts.get("on")
                host = (self.find(on)[1] or self.perm(on)) if on is not None else None
                self.perms.append({"uid": self._uid(), "code": card, "kind": "effect", "owner": by,
                                   "ctrl": host["ctrl"] if host is not None else by, "act": False, "on": on,
                                   "counters": dict(entry.get("counters") or {})})
            elif not entry.get("void"):  # 206.2b a resolved non permanent, 208.5 / 200.4 a fizzled card (a void
                self.p[by]["discard"].append(card)  # one, digest.8, never left where it was)
        elif kind == "move" and done:
            src, e = self.find(entry.get("uid"))
            if e is not None and facts.get("to") and facts["to"] != src:
                del self.dots[src]
                self.dots[facts["to"]] = e
        elif kind == "attack" and done:
            _, target = self.find(facts.get("target"))
            if target is not None:
                target["dmg"] += int(facts.get("damage", 0))  # 202.5a, 210.2
        self.prio, self.passes = self._first_holder(), 0  # 201.6
        self.last_line = line

    # ------------------------------------------------------------------ effects and destruction
    @event("EffectApplied", topic=topic("EffectApplied"))
    def _effect(self, player: str, source: str, op: str, args: dict, rec: dict | None = None, line: int | None = None) -> None:
        apply = _OPS.get(op)
        if apply is not None:
            apply(self, player, args)
        self.last_line = line

    @event("Destroyed", topic=topic("Destroyed"))
    def _destroyed(self, dot: str, uid: int, code: str, cause: str, line: int | None = None) -> None:
        """A summon leaves play (210.7, 601.5, 602.5): card to its owner's Discard Pile, pawn off."""
        e = self.dots.get(dot)
        if e is not None and e["uid"] == uid:
            del self.dots[dot]
            self.p[e["owner"]]["discard"].append(e["code"])
            self._detach(uid)

    @event("PermanentLeft", topic=topic("PermanentLeft"))
    def _perm_left(self, uid: int, code: str, cause: str, line: int | None = None) -> None:
        p = self.perm(uid)
        if p is not None:
            self.perms.remove(p)
            self.p[p["owner"]]["discard"].append(p["code"])
            self._detach(uid)

    # ------------------------------------------------------------------ end of turn and game
    @event("TurnEnded", topic=topic("TurnEnded"))
    def _turn_ended(self, player: str, discard: list, rec: dict | None = None, line: int | None = None,
                    unnamed: list | None = None) -> None:
        """``unnamed`` (digest.9): the cards of ``discard`` the hand does not list, discarded as written for cards of
        the hand the log does not name (``_unnamed``)."""
        z = self.p[player]
        left = list(unnamed or [])
        for c in discard:  # 502.5
            if c == HIDDEN:  # a card of the hand, unknown which (an `end` left out, digest.8: ``hand_count``)
                z["discard"].append(HIDDEN)
            elif _from_hand(z, c):
                z["discard"].append(c)
            elif c in left:
                left.remove(c)
                z["discard"].append(c)
                _unnamed(z)
        for zz in self.p.values():
            zz["pool"] = {}  # 203.4
        for e in self.dots.values():
            if e["mends"]:
                end_mods(e)  # 402.10e
        self.stack = []
        self.phase = "over"
        self.prio, self.passes = None, 0
        self.last_line = line

    @event("LateRecord", topic=topic("LateRecord"))
    def _late(self, player: str, discard: list, rec: dict | None = None, line: int | None = None) -> None:
        """A record logged after what it says had already happened (digest.8: the `turn` record of a turn its player's
        record began, the `end` of a turn a `turn` record ended): nothing else happens; a late `end`'s ``discard``
        leaves its player's hand (502.5), a card the hand does not hold as one of its unknown cards (``_from_hand``, as
        ``TurnEnded``'s; the referee stored only cards the hand held before, which it takes as it did)."""
        z = self.p[player]
        for c in discard:
            if _from_hand(z, c):
                if HIDDEN in z["discard"]:  # the card the turn's end discarded unknown (``hand_count``): known now
                    z["discard"].remove(HIDDEN)
                z["discard"].append(c)
        self.last_line = line

    @event("Conceded", topic=topic("Conceded"))
    def _conceded(self, player: str, rec: dict | None = None, line: int | None = None) -> None:
        self.last_line = line

    @event("MatchEnded", topic=topic("MatchEnded"))
    def _ended(self, winner: str | None, reason: str, line: int | None = None, how: str | None = None) -> None:
        """The game is over (106). ``how`` (digest.13, absent before and otherwise): ``effect``, a draw whose Life Bases
        left play by one resolution's effects, checked when it ended (``rules.gone_text`` says it); the outcome is the
        same."""
        self.outcome = {"winner": winner, "reason": reason}
        if how:
            self.outcome["how"] = how
        self.phase = "ended"
        self.prio = None

    @event("ResultRecorded", topic=topic("ResultRecorded"))
    def _result(self, winner: str | None, reason: str | None, rec: dict | None = None, line: int | None = None) -> None:
        self.last_line = line

    @event("ViolationRecorded", topic=topic("ViolationRecorded"))
    def _violation(self, rule: str, message: str, line: int | None, turn: int, player: str | None,
                   rec: dict | None = None) -> None:
        """--accept-violations: the record broke ``rule``; ``rec`` is set when it was not applied."""
        self.violations.append({"line": line, "rule": rule, "message": message, "turn": turn,
                                "player": player, "applied": rec is None})

    @event("Sealed", topic=topic("Sealed"))
    def _sealed(self, events: int, last: str) -> None:
        self.sealed = {"events": events, "last": last}


# ---------------------------------------------------------------------- effect ops (state only)
def _at(m: Match, dot: str | None) -> dict | None:
    return m.dots.get(dot) if dot else None


def _op_damage(m: Match, player: str, a: dict) -> None:
    e = _at(m, a.get("dot"))
    if e is not None:
        e["dmg"] += int(a.get("amount", 0))


def _op_heal(m: Match, player: str, a: dict) -> None:
    e = _at(m, a.get("dot"))
    if e is not None:
        e["dmg"] = max(0, e["dmg"] - int(a.get("amount", 0)))


def _op_stat(m: Match, player: str, a: dict) -> None:
    e = _at(m, a.get("dot"))
    if e is not None:
        add_mod(e, a.get("stat"), int(a.get("delta", 0)), a.get("until", "end_of_turn"))


def _op_place(m: Match, player: str, a: dict) -> None:
    owner = a.get("owner") or player
    zone = m.p[owner].get(a.get("from") or "hand")
    if isinstance(zone, list):
        _take(zone, a.get("card", ""))
    m.dots[a["dot"]] = m._summon(a.get("card", ""), owner, player, a.get("summon") or {})


def _op_relocate(m: Match, player: str, a: dict) -> None:
    e = m.dots.pop(a.get("dot"), None) if a.get("dot") else None
    if e is not None:
        m.dots[a["to"]] = e


def _op_zone(m: Match, player: str, a: dict) -> None:
    owner = a.get("owner") or player
    z = m.p[owner]
    if a.get("from") == "play" and digest_of(m.rules_version) >= 3:  # (under digest.2 it moved nothing)
        p, dst = m.perm(a.get("uid")), z.get(a.get("to"))
        if p is not None and isinstance(dst, list):  # a crystal or Effect leaves play (205.3)
            m.perms.remove(p)
            dst.append(p["code"])
            m._detach(p["uid"])  # 207.5a: the Effects fixed on it go with it to their owners' Discard Piles
        return
    if a.get("from") == "cast" and digest_of(m.rules_version) >= 4:  # (under digest.3 it moved nothing)
        entry = next((s for s in m.stack if s.get("id") == a.get("entry")), None)
        dst = m.p[entry["by"]].get(a.get("to")) if entry is not None else None
        if entry is not None and isinstance(dst, list):  # a cast card leaves the Cast Zone unresolved (503.1)
            m.stack.remove(entry)
            dst.append(entry["card"])
        return
    src, dst = z.get(a.get("from")), z.get(a.get("to"))
    if isinstance(src, list) and isinstance(dst, list) and _take(src, a.get("card", "")):
        dst.append(a["card"])


def _op_draw(m: Match, player: str, a: dict) -> None:
    z = m.p[player]
    for c in a.get("cards", []):
        if _take(z["deck"], c):
            z["hand"].append(c)


def _op_search(m: Match, player: str, a: dict) -> None:
    z = m.p[player]
    if _take(z["deck"], a.get("card", "")):
        z["hand"].append(a["card"])  # 211.2: the deck is then shuffled (an unordered multiset here)


def _object(m: Match, a: dict) -> dict | None:
    if a.get("dot"):
        return _at(m, a["dot"])
    uid = a.get("uid")
    return m.perm(uid) if uid is not None else None


def _op_state(deact: bool):
    def apply(m: Match, player: str, a: dict) -> None:
        obj = _object(m, a)
        if obj is None:
            return
        obj["act"] = deact  # 206.1g: deactivation is the activated state without the effect
        if "deact" in obj:
            obj["deact"] = deact
    return apply


def _op_counter(m: Match, player: str, a: dict) -> None:
    obj = _object(m, a)
    if obj is not None:
        kind = a.get("kind", "activation")
        obj["counters"][kind] = max(0, obj["counters"].get(kind, 0) + int(a.get("delta", 0)))


def _op_energy(m: Match, player: str, a: dict) -> None:
    pool = m.p[player]["pool"]
    pool[a["type"]] = pool.get(a["type"], 0) + int(a.get("amount", 0))


def _op_control(m: Match, player: str, a: dict) -> None:
    obj = _object(m, a)
    if obj is not None:
        obj["ctrl"] = a["to"]  # 214.3: same state, same counters
        for p in m.perms:
            if p.get("on") == obj["uid"]:
                p["ctrl"] = a["to"]


def _op_counter_action(m: Match, player: str, a: dict) -> None:
    for i, entry in enumerate(m.stack):
        if entry.get("id") == a.get("line"):
            del m.stack[i]
            if entry["kind"] == "cast":
                m.p[entry["by"]]["discard"].append(entry["card"])
            return


def _op_raise_cost(m: Match, player: str, a: dict) -> None:
    m._spend(a.get("payer") or player, a.get("pay") or {})  # 200.6


def _op_extra_attack(m: Match, player: str, a: dict) -> None:
    e = _at(m, a.get("dot"))
    if e is not None:
        e["extra_attacks"] += 1


def _op_extra_turn(m: Match, player: str, a: dict) -> None:
    """700.2: the player gets another turn, the one after the current turn; the turns to come keep their
    order (700.1). An empty ``turns_queue`` means the turns alternate from the active player: the other
    player's ordinary next turn is not written in it, so when the extra turn is his, that turn is written
    out behind it (under digest.4 it was not: the extra turn took its place and he gained no turn)."""
    who, q = a.get("player") or player, m.turns_queue
    if not q and who != m.active and digest_of(m.rules_version) >= 5:
        q.append(who)  # his ordinary next turn, after which the turns alternate from him as before
    q.insert(0, who)


def _op_skip_turn(m: Match, player: str, a: dict) -> None:
    """700.2: the skipped player's next turn does not occur (the glossary's "skip"); the turns after it
    keep their order (700.1). ``turns_queue`` holds the turns to come, then the turns alternate from its
    last (or the active player): that turn is taken out of the queue, written out as far as it."""
    who, q = a.get("player") or player, m.turns_queue
    if digest_of(m.rules_version) < 5:  # digest.4 and before: the other player put first (which his ordinary
        q.insert(0, other(who))  # next turn used up when the active player skipped his own next turn)
        return
    last = q[-1] if q else m.active
    while who not in q:
        last = other(last)
        q.append(last)
    i = q.index(who)
    del q[i]
    if i == len(q) and (q[-1] if q else m.active) != last:
        q.append(other(last))  # the alternation after the queue goes on as it would have


_OPS = {
    "damage": _op_damage, "heal": _op_heal, "stat": _op_stat, "place": _op_place, "relocate": _op_relocate,
    "zone": _op_zone, "draw": _op_draw, "search": _op_search, "deactivate": _op_state(True),
    "reactivate": _op_state(False), "counter": _op_counter, "energy": _op_energy, "control": _op_control,
    "counter_action": _op_counter_action, "raise_cost": _op_raise_cost, "extra_attack": _op_extra_attack, "extra_turn": _op_extra_turn,
    "skip_turn": _op_skip_turn,
}


install_direct_triggers(Match)  # zx_events.games.base: each @event method without the library's per-call work
