"""The Match aggregate: the state of one Z/X match, rebuilt by replaying its events.

Every ``@event`` method here only assigns state: it never checks a rule and never raises, so a
stored match always loads, even after the rules engine changes. The rules engine
(``zx_events.games.zx.engine``) validates each log record first, then calls these methods. Events carry
JSON-native values only, and each has a stable ``TOPIC`` so classes can move without breaking
stored matches. Facts that depend on the catalog (a card's base Power, whether it is an EX or a
Token) are put into the events by the engine, so replay never needs the catalog.

State (all JSON-native, so snapshots need no custom transcoding):
- ``p[P]``: the zones of each player (301.2b): ``deck``, ``hand``, ``life``, ``charge``, ``trash``,
  ``remove`` (lists of codes; deck, hand, life are unordered multisets; the hand holds the cards of a Draw Phase
  draw the log left out as ``HIDDEN``, which ``deck`` still lists, digest.8: ``deck_count``), ``resource`` (list of
  ``{"code", "sleep"}``), ``dynamis`` (list of ``{"code", "up"}``), the Player card (``pc_sleep``: True while it
  is Sleep, absent when Reboot, 302.2; digest.13), Counters. A setup left out
  (402), done unseen at turn 1, puts ``HIDDEN`` in the hand, Life and Resource (``code``), which ``deck`` still
  lists, and sets ``unseen`` (absent otherwise): ``deck_count`` counts them out.
- ``sq``: the Square (303), name -> entry or None. An entry is one card with its state: ``uid``
  (a new card gets a new uid whenever it comes to Square from another zone: 301.4), ``code``,
  ``owner``, ``ctrl``, ``sleep``, ``dmg``, ``mods`` ([delta, until] Power modifiers, in the order
  applied), ``msum`` (the sum of their deltas: Power is ``base`` + ``msum``), ``mends`` (for each
  ``until`` that ends, end_of_turn and end_of_battle, while ``mods`` holds one: [the index of the
  first, the sum of their deltas]), ``base`` Power, ``kind`` (zx, ex, ob, token), ``shift`` (a Shift
  on it, 202.8a), ``name`` (tokens). ``msum`` and ``mends`` keep the cost of a Power, and of the
  modifiers' end, independent of how many modifiers a card holds (``add_mod``, ``end_mods``).
- ``links``: Square -> list of players who put a Link there (202.13).
- ``battle``: the battle under way (601-605) or None; ``outcome``: None or {winner, reason}.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from zx_events.games.base import install_direct_triggers
from zx_events.ids import NAMESPACE, match_uuid, project  # noqa: F401  (one id space and projector for every game)
from zx_events.games import digest_of, known_rules
from zx_events.seats import HIDDEN, deck_count  # noqa: F401  (deck_count: the engine's and views' from here)

PREFIX = "zx.match"
PHASES = ("setup", "draw", "resource", "ignition", "main", "end", "over", "ended")
_PHASE_NO = {p: i for i, p in enumerate(PHASES)}
LIMIT_CHARGE = 4  # 905
LIMIT_HAND = 6  # 309.2a
_BATTLE_DUES = ("life", "recover", "void")  # obligations a battle owes (604.3b, 1102, 1103): keys "life:P2"


def other(player: str) -> str:
    return "P2" if player == "P1" else "P1"


def _take(zone: list, code: str) -> bool:
    """Remove one copy of ``code`` from a list zone; False when it is not there."""
    try:
        zone.remove(code)
        return True
    except ValueError:
        return False


def power_of(entry: dict) -> int:
    return (entry.get("base") or 0) + entry["msum"]


_ENDS = ("end_of_turn", "end_of_battle")  # the modifiers that end (507, 605.5); any other until stays


def add_mod(entry: dict, delta: int, until: Any) -> None:
    """A Power modifier ``[delta, until]`` applied to a card on Square: appended to its ``mods``, its
    sums kept (the cost independent of how many it holds)."""
    mods = entry["mods"]
    if until in _ENDS:
        ends = entry["mends"].get(until)
        if ends is None:
            entry["mends"][until] = [len(mods), delta]
        else:
            ends[1] += delta
    mods.append([delta, until])
    entry["msum"] += delta


def end_mods(entry: dict, until: str) -> None:
    """The modifiers ``until`` (end_of_turn, end_of_battle) of a card end: removed from its ``mods``,
    the others kept in their order. Only the modifiers from the first of them on are looked at, so
    each modifier is looked at by at most one end of each kind, however many turns it stays."""
    ends = entry["mends"].pop(until, None)
    if ends is None:
        return
    first = ends[0]
    mods = entry["mods"]
    kept = [m for m in mods[first:] if m[1] != until]
    mods[first:] = kept
    entry["msum"] -= ends[1]
    for k, other_ends in entry["mends"].items():  # the other kind's first modifier moved up with the rest
        if other_ends[0] > first:
            other_ends[0] = first + next(i for i, m in enumerate(kept) if m[1] == k)


def topic(name: str) -> str:
    """The stable topic a Match event is stored under (``Started`` -> ``zx.match:Started``)."""
    return f"{PREFIX}:{name}"


class Match(Aggregate):
    TOPIC = "zx.match:Match"

    class Event(Aggregate.Event):
        TOPIC = "zx.match:Event"

    @staticmethod
    def create_id(match_id: str, **_: Any) -> uuid.UUID:
        return match_uuid(match_id)

    # ------------------------------------------------------------------ header
    @event("Started", topic=topic("Started"))
    def __init__(self, match_id: str, header: dict, catalog: dict, rules_version: str,
                 source: str, content_sha256: str, line: int | None = None) -> None:
        self.match_id = match_id
        self.header = {k: v for k, v in header.items() if k != "players"}
        self.players = {p: {k: v for k, v in info.items()} for p, info in header["players"].items()}
        self.catalog = dict(catalog)
        known_rules("zx", match_id, rules_version)
        self.rules_version = rules_version
        self.source = source
        self.content_sha256 = content_sha256
        self.first = header.get("first", "P1")
        self.turn = 0
        self.active: str | None = None
        self.phase = "setup"
        self.drawn = 0
        self.p = {}
        for pl in ("P1", "P2"):
            info = header["players"].get(pl, {})
            deck: list[str] = []  # in code order: the stored header has its keys sorted (zx_events.codec)
            for code, n in sorted((info.get("deck") or {}).items()):
                deck.extend([code] * int(n))
            dyn = []
            for code, n in sorted((info.get("dynamis") or {}).items()):
                dyn.extend({"code": code, "up": False} for _ in range(int(n)))
            self.p[pl] = {
                "deck": deck, "hand": [], "life": [], "charge": [], "trash": [], "remove": [],
                "resource": [], "dynamis": dyn, "player_card": info.get("player_card"),
                "counters": 0, "extra_used": False, "resource_used": False, "ready": False,
            }
        self.sq: dict[str, dict | None] = {s: None for s in
                                           ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")}
        self.links: dict[str, list[str]] = {}
        self.temporary: list[dict] = []
        self.force: list[dict] = []
        self.battle: dict | None = None
        self.next_uid = 1
        self.outcome: dict | None = None
        self.waived: list[str] = []
        self.violations: list[dict] = []
        self.last_line = line

    # ------------------------------------------------------------------ helpers (no events)
    def _new_entry(self, code: str, owner: str, ctrl: str, base: int | None, kind: str,
                   name: str | None = None) -> dict:
        uid = self.next_uid
        self.next_uid += 1
        entry = {"uid": uid, "code": code, "owner": owner, "ctrl": ctrl, "sleep": False, "dmg": 0,
                 "mods": [], "msum": 0, "mends": {}, "base": base, "kind": kind, "shift": None}
        if name is not None:
            entry["name"] = name
        return entry

    def _send(self, owner: str, code: str, kind: str, dest: str) -> None:
        """A card leaving Square or Temporary arrives in ``dest`` of its owner (302.4)."""
        if kind == "token":  # 202.11c: a Token that leaves Square disappears
            return
        if kind == "ex" and dest not in ("square", "dynamis"):
            dest = "dynamis"  # Z/X EX / EV EX go back to Dynamis face-up
        zones = self.p[owner]
        if dest == "dynamis":
            zones["dynamis"].append({"code": code, "up": True})
        elif dest == "resource":
            zones["resource"].append({"code": code, "sleep": False})
        elif dest in ("force", "temporary"):  # 301.2a: shared zones (a card sent there used to vanish)
            getattr(self, dest).append({"code": code, "owner": owner})
        elif dest in zones and isinstance(zones[dest], list):
            zones[dest].append(code)

    def _leave_square(self, square: str, dest: str) -> dict | None:
        entry = self.sq.get(square)
        if entry is None:
            return None
        self.sq[square] = None
        self._send(entry["owner"], entry["code"], entry["kind"], dest)
        if entry.get("shift"):  # 202.8a: a Shift moves with its vessel as one card (to its owner's zone, 302.4),
            to = "dynamis" if entry["kind"] == "ex" and dest != "square" and digest_of(self.rules_version) >= 3 \
                else dest  # so with a Z/X EX to Dynamis (a match imported under digest.2 replays as then)
            self._send(entry.get("shift_owner", entry["owner"]), entry["shift"], "shift", to)
        if self.force and dest != "square":  # Force cards under it leave with it, to Trash (301.4)
            self._force_leaves(entry["uid"])
        if self.battle is not None and self.battle.get("target_uid") == entry["uid"] and dest != "square":
            self.battle["target_left"] = True
        return entry

    def _force_leaves(self, uid: int) -> None:
        kept = []
        for f in self.force:
            if isinstance(f, dict) and f.get("uid") == uid:
                self.p[f["owner"]]["trash"].append(f["code"])
            else:
                kept.append(f)
        self.force = kept

    def _place(self, square: str, entry: dict) -> None:
        """Put ``entry`` on ``square``; a card already there (your own Reboot Z/X) goes to Trash."""
        if self.sq.get(square) is not None:
            self._leave_square(square, "trash")
        self.sq[square] = entry

    def _from_zone(self, player: str, zone: str, code: str) -> bool:
        z = self.p[player]
        if zone == "resource":
            for i, r in enumerate(z["resource"]):
                if r["code"] == code:
                    del z["resource"][i]
                    return True
            return False
        if zone == "dynamis":
            # prefer a face-down copy: playing from Dynamis uses the hidden ones first
            best = None
            for i, d in enumerate(z["dynamis"]):
                if d["code"] == code and (best is None or not d["up"]):
                    best = i
                    if not d["up"]:
                        break
            if best is None:
                return False
            del z["dynamis"][best]
            return True
        if zone in ("force", "temporary"):  # 301.2a: shared zones, entries {"code", "owner"}
            shared = getattr(self, zone)
            for i, e in enumerate(shared):
                if e["code"] == code and e["owner"] == player:
                    del shared[i]
                    return True
            return False
        if zone in z and isinstance(z[zone], list):
            return _take(z[zone], code)
        return False

    def _pay(self, player: str, pay: list[str]) -> None:
        for code in pay:
            for r in self.p[player]["resource"]:
                if r["code"] == code and not r["sleep"]:
                    r["sleep"] = True
                    break

    def _phase(self, phase: str) -> None:
        if _PHASE_NO[phase] > _PHASE_NO[self.phase]:  # PHASES.index, without a scan
            self.phase = phase

    # ------------------------------------------------------------------ setup and turn
    @event("PlayerSetUp", topic=topic("PlayerSetUp"))
    def _set_up(self, player: str, hand: list, mulligan: list | None, life: list, resource: list,
                start_card: dict | None, start_resource: str | None, gate: str | None,
                rec: dict | None = None, line: int | None = None) -> None:
        z = self.p[player]
        for c in hand:
            _take(z["deck"], c)
        z["hand"] = list(hand)
        if mulligan is not None:  # 402: return all 4, shuffle, draw 4
            z["deck"].extend(hand)
            z["hand"] = []
            for c in mulligan:
                _take(z["deck"], c)
                z["hand"].append(c)
        for c in life:
            if _take(z["deck"], c) or c == HIDDEN:
                z["life"].append(c)
        for c in resource + ([start_resource] if start_resource else []):
            if _take(z["deck"], c) or c == HIDDEN:
                z["resource"].append({"code": c, "sleep": False})
        if HIDDEN in life:  # 402: a setup left out, taken as done unseen where turn 1 begins (``Referee.do_turn``):
            z["unseen"] = True  # its cards unknown (``HIDDEN``), their codes still in the deck's list (``deck_count``)
        if start_card:
            _take(z["deck"], start_card["code"])
            sq = start_card["square"]
            self._place(sq, self._new_entry(start_card["code"], player, player, start_card.get("power"), "zx"))
        if gate:
            for d in z["dynamis"]:
                if d["code"] == gate and not d["up"]:
                    d["up"] = True
                    break
        z["ready"] = True
        self.last_line = line

    @event("TurnStarted", topic=topic("TurnStarted"))
    def _turn_started(self, turn: int, player: str, rec: dict | None = None, line: int | None = None) -> None:
        self.turn = turn
        self.active = player
        self.phase = "draw"
        self.drawn = 0
        self.waived = []
        for pl in ("P1", "P2"):
            self.p[pl]["extra_used"] = False
            self.p[pl]["resource_used"] = False
        # 502 Reboot Phase: the turn player's Sleep cards on Square and in Resource become Reboot
        for entry in self.sq.values():
            if entry is not None and entry["ctrl"] == player:
                entry["sleep"] = False
        for r in self.p[player]["resource"]:
            r["sleep"] = False
        self.p[player].pop("pc_sleep", None)  # his Player card too (302.2; set only since digest.13)
        self.last_line = line

    @event("CardsDrawn", topic=topic("CardsDrawn"))
    def _drawn(self, player: str, cards: list, rec: dict | None = None, line: int | None = None,
               unknown: bool = False, zone: str = "hand") -> None:
        """``cards`` drawn from the deck into the hand. A card ``HIDDEN`` (digest.8: of a Draw Phase draw the log left
        out, 503.3): an unknown card in the hand, whose code the deck the state keeps still lists (``deck_count``
        counts it out; no code is ``HIDDEN``, so none leaves the list). ``unknown``: ``cards`` are of the hand's
        unknown cards, known now (the record that first uses one): each takes the place of one ``HIDDEN`` and leaves
        the deck's list, and is no draw of the Draw Phase under way. (Events stored before a draw left out put
        ``HIDDEN`` in the hand hold no ``unknown``: a plain draw, as before.) ``zone`` (with ``unknown``; ``hand``
        unless named): ``life`` or ``resource``, cards of a setup left out's unknown Life or Resource cards (402),
        known now: each takes the place of one ``HIDDEN`` there (a Resource card keeping its Sleep) and leaves the
        deck's list; no draw."""
        z = self.p[player]
        if zone != "hand":
            for c in cards:
                _take(z["deck"], c)
                if zone == "life":
                    if _take(z["life"], HIDDEN):
                        z["life"].append(c)
                else:
                    slot = next((r for r in z["resource"] if r["code"] == HIDDEN), None)
                    if slot is not None:
                        slot["code"] = c
            self.last_line = line
            return
        for c in cards:
            _take(z["deck"], c)
            if unknown and HIDDEN in z["hand"]:
                z["hand"].remove(HIDDEN)
            z["hand"].append(c)
        if not unknown:
            self.drawn += len(cards)
        self.last_line = line

    @event("Reloaded", topic=topic("Reloaded"))
    def _reloaded(self, player: str, life: str | None, rec: dict | None = None, line: int | None = None,
                  taken: str | None = None) -> None:
        """902. ``taken``: the card of his Life the Reload took where the log named ``life``, a card his Life did not
        hold (301.1, digest.12): ``life``, as named, goes to the Charge, ``taken`` leaves the Life, known to the judge
        only (301.3c), as a ``LifeDamaged``'s; None (every event before it): ``life`` leaves the Life, if there."""
        z = self.p[player]
        z["deck"].extend(z["trash"])  # 902: Trash back into the deck
        z["trash"] = []
        if taken is not None:
            _take(z["life"], taken)
            z["charge"].append(life)
        elif _take(z["life"], life):  # the opponent's pick goes to Charge: not damage
            z["charge"].append(life)
        self.last_line = line

    @event("ResourcePlaced", topic=topic("ResourcePlaced"))
    def _resource_placed(self, player: str, card: str, rec: dict | None = None, line: int | None = None) -> None:
        z = self.p[player]
        _take(z["hand"], card)
        z["resource"].append({"code": card, "sleep": False})
        z["resource_used"] = True
        self._phase("resource")
        self.last_line = line

    @event("IgnitionPerformed", topic=topic("IgnitionPerformed"))
    def _ignition(self, player: str, charge: str, revealed: str, play: dict | None, kind: str,
                  base: int | None, rec: dict | None = None, line: int | None = None) -> None:
        z = self.p[player]
        if _take(z["charge"], charge):
            z["trash"].append(charge)
        _take(z["deck"], revealed)
        if play is not None and kind in ("zx", "ex") and play.get("square"):
            self._place(play["square"], self._new_entry(revealed, player, player, base, kind))
        else:  # an Event resolves and goes to Trash; a card not played goes to Trash
            z["trash"].append(revealed)
        self._phase("ignition")
        self.last_line = line

    # ------------------------------------------------------------------ playing cards
    @event("CardPlayed", topic=topic("CardPlayed"))
    def _played(self, player: str, card: str, zone: str, pay: list, kind: str, square: str | None,
                on: str | None, base: int | None, extra: bool, rec: dict | None = None,
                line: int | None = None) -> None:
        z = self.p[player]
        self._from_zone(player, zone, card)
        self._pay(player, pay)
        if extra:
            z["extra_used"] = True
        if kind in ("zx", "ex", "ob") and square:
            self._place(square, self._new_entry(card, player, player, base, kind))
        elif kind == "shift" and on and self.sq.get(on) is not None:
            vessel = self.sq[on]
            if vessel.get("shift"):
                self._send(vessel.get("shift_owner", vessel["owner"]), vessel["shift"], "shift", "trash")
            vessel["shift"] = card
            if vessel["owner"] != player:  # 202.8d: a vessel the text designates, maybe the opponent's
                vessel["shift_owner"] = player
            else:
                vessel.pop("shift_owner", None)
        elif kind in ("event", "evex"):
            # resolves in Temporary, then Trash (an EV EX returns to Dynamis face-up)
            self._send(player, card, "ex" if kind == "evex" else "event", "trash")
        if self.battle is not None and self.battle.get("step") == "event":
            self.battle["events"].append(card)
            self.battle["priority"] = other(player)  # 603.1c
            self.battle["passes"] = 0
        elif self.active == player:
            self._phase("main")
        self.last_line = line

    # ------------------------------------------------------------------ battle
    @event("AttackDeclared", topic=topic("AttackDeclared"))
    def _attack(self, player: str, square: str, target: str, attacker: dict, target_kind: str,
                target_info: dict | None, distance: int, range_used: bool, rec: dict | None = None,
                line: int | None = None) -> None:
        entry = self.sq.get(square)
        if entry is not None:
            entry["sleep"] = True  # 602.1d
        self._phase("main")
        self.battle = {
            "attacker_uid": entry["uid"] if entry else None, "attacker": attacker, "from": square,
            "target": target, "target_kind": target_kind,
            "target_uid": (target_info or {}).get("uid"), "target_info": target_info,
            "defender": other(player), "priority": player, "passes": 0, "step": "event",
            "events": [], "outcome": None, "life_due": 0, "triggers": [], "target_left": False,
            "distance": distance, "range_used": range_used,
        }
        self.last_line = line

    @event("PriorityPassed", topic=topic("PriorityPassed"))
    def _passed(self, player: str, rec: dict | None = None, line: int | None = None) -> None:
        if self.battle is not None:
            self.battle["passes"] += 1
            self.battle["priority"] = other(player)
        self.last_line = line

    @event("BattleDamageDealt", topic=topic("BattleDamageDealt"))
    def _battle_damage(self, outcome: str, amount: int, line: int | None = None) -> None:
        b = self.battle
        if b is None:
            return
        b["step"] = "damage"
        b["outcome"] = outcome
        if outcome == "damaged_zx":
            for entry in self.sq.values():
                if entry is not None and entry["uid"] == b["target_uid"]:
                    entry["dmg"] += amount
        elif outcome == "player_damaged":
            b["life_due"] = amount

    @event("BattleEnded", topic=topic("BattleEnded"))
    def _battle_ended(self, outcome: str, line: int | None = None) -> None:
        self.battle = None
        if self.waived and digest_of(self.rules_version) >= 4:  # a waived Life card or trigger was owed by
            self.waived = [w for w in self.waived if w.split(":")[0] not in _BATTLE_DUES]  # this battle only
        for entry in self.sq.values():  # 605.5: "until end of battle" effects end
            if entry is not None and entry["mends"]:
                end_mods(entry, "end_of_battle")

    @event("BattleEffectsEnded", topic=topic("BattleEffectsEnded"))
    def _battle_effects_ended(self, line: int | None = None) -> None:
        """605.5: "until end of battle" effects disappear while the battle is still under way, so a
        rule effect they leave pending (lethal damage) is performed before it ends (605.6)."""
        for entry in self.sq.values():
            if entry is not None and entry["mends"]:
                end_mods(entry, "end_of_battle")

    @event("AbilityPlayed", topic=topic("AbilityPlayed"))
    def _ability_played(self, player: str, source: str, line: int | None = None) -> None:
        """807: a startup ability is played; in the Battle Event Step it is the action of the player
        with priority, and priority goes to the other player (603.1b-603.1c)."""
        b = self.battle
        if b is not None and b.get("step") == "event":
            b["priority"] = other(player)
            b["passes"] = 0
        elif self.active == player and digest_of(self.rules_version) >= 3:  # 506: played in the Main Phase,
            self._phase("main")  # which it starts as an Event does (matches imported under digest.2 replay as then)

    @event("LifeDamaged", topic=topic("LifeDamaged"))
    def _life_damaged(self, player: str, card: str, ignite: dict | None, kind: str, base: int | None,
                      life_after: int, triggers: list, rec: dict | None = None, line: int | None = None,
                      taken: str | None = None) -> None:
        """A Life card owed (604.3b). ``taken``: the card of his Life the damage took where the log named a card
        his Life did not hold (301.1, digest.9): ``card``, as named, goes to the Charge, ``taken`` leaves the
        Life, known to the judge only (301.3c); None (every event before it): ``card`` leaves the Life."""
        z = self.p[player]
        _take(z["life"], card if taken is None else taken)
        if ignite is not None:
            if kind in ("zx", "ex") and ignite.get("square"):
                self._place(ignite["square"], self._new_entry(card, player, player, base, kind))
            else:
                z["trash"].append(card)
        else:
            z["charge"].append(card)
        b = self.battle
        if b is not None and b["life_due"] > 0:
            b["life_due"] -= 1
            b["triggers"].extend(triggers)
        self.last_line = line

    @event("LifeCardKnown", topic=topic("LifeCardKnown"))
    def _life_card_known(self, player: str, card: str, placeholder: str, taken: str | None,
                         line: int | None = None) -> None:
        """The Life card of an earlier damage whose record named a card not in his Life (301.1, ``LifeDamaged``
        with ``taken``), known now: a Charge record names ``card``, of his Life (or ``taken`` itself): it takes the
        place of ``placeholder``, the card that record named, in the Charge, and ``taken``, the card the damage
        took for it (the judge's only), goes back into the Life (digest.9)."""
        z = self.p[player]
        if taken is not None:
            z["life"].append(taken)
        _take(z["life"], card)
        if placeholder in z["charge"]:
            z["charge"][z["charge"].index(placeholder)] = card
        else:
            z["charge"].append(card)
        self.last_line = line

    @event("ChargeExcessTrashed", topic=topic("ChargeExcessTrashed"))
    def _charge_excess(self, player: str, cards: list, rec: dict | None = None, line: int | None = None) -> None:
        z = self.p[player]
        for c in cards:
            if _take(z["charge"], c):
                z["trash"].append(c)
        self.last_line = line

    @event("ZXDestroyed", topic=topic("ZXDestroyed"))
    def _destroyed(self, square: str, uid: int, code: str, cause: str, line: int | None = None) -> None:
        entry = self.sq.get(square)
        if entry is not None and entry["uid"] == uid:
            if self.battle is not None and self.battle.get("target_uid") == uid:
                self.battle["outcome"] = "destroyed"
            self._leave_square(square, "charge")  # 1007: a destroyed Z/X goes to its owner's Charge

    # ------------------------------------------------------------------ effects
    @event("EffectApplied", topic=topic("EffectApplied"))
    def _effect(self, player: str, source: str, op: str, args: dict, rec: dict | None = None,
                line: int | None = None) -> None:
        apply = _EFFECTS.get(op)
        if apply is not None:
            apply(self, player, args)
        b = self.battle
        if b is not None and b["triggers"]:
            key = args.get("resolves")
            if key in b["triggers"]:
                b["triggers"].remove(key)
        self.last_line = line

    # ------------------------------------------------------------------ end of turn and game
    @event("TurnEnded", topic=topic("TurnEnded"))
    def _turn_ended(self, player: str, discard: list, rec: dict | None = None, line: int | None = None) -> None:
        z = self.p[player]
        for c in discard:
            if _take(z["hand"], c):
                z["trash"].append(c)
        for entry in self.sq.values():  # 507: damage resets, "until end of turn" effects end
            if entry is not None:
                entry["dmg"] = 0
                if entry["mends"]:
                    end_mods(entry, "end_of_turn")
        self.phase = "over"
        self.last_line = line

    @event("LateRecord", topic=topic("LateRecord"))
    def _late(self, player: str, discard: list, rec: dict | None = None, line: int | None = None) -> None:
        """A record written after what it says had already happened (digest.7: the `end` of a turn, written after
        the next player's `turn` record, which ended it and was reported, 501.3): nothing else happens; its
        ``discard`` leaves its player's hand for his Trash, as that turn's End Phase discards (309.2a)."""
        z = self.p[player]
        for c in discard:
            if _take(z["hand"], c):
                z["trash"].append(c)
        self.last_line = line

    @event("Conceded", topic=topic("Conceded"))
    def _conceded(self, player: str, rec: dict | None = None, line: int | None = None) -> None:
        self.last_line = line

    @event("MatchEnded", topic=topic("MatchEnded"))
    def _ended(self, winner: str | None, reason: str, line: int | None = None, how: str | None = None) -> None:
        """The game is over (101.2). ``how`` (digest.13, absent before and for damage): how a loser's last Life card
        went where it was no damage, ``effect`` (an effect moved it) or ``reload`` (a Reload put it into the
        Charge, 902): its sentence says so; the outcome is the same."""
        self.outcome = {"winner": winner, "reason": reason}
        if how:
            self.outcome["how"] = how
        self.phase = "ended"
        self.battle = None

    @event("ResultRecorded", topic=topic("ResultRecorded"))
    def _result(self, winner: str | None, reason: str | None, rec: dict | None = None,
                line: int | None = None) -> None:
        self.last_line = line

    @event("ViolationRecorded", topic=topic("ViolationRecorded"))
    def _violation(self, rule: str, message: str, line: int | None, turn: int, player: str | None,
                   rec: dict | None = None, waive: str | None = None) -> None:
        """--accept-violations: the record broke ``rule``; ``rec`` is set when it was not applied."""
        self.violations.append({"line": line, "rule": rule, "message": message, "turn": turn,
                                "player": player, "applied": rec is None})
        if waive:
            self.waived.append(waive)

    @event("RecordSkipped", topic=topic("RecordSkipped"))
    def _skipped(self, player: str | None, rec: dict | None = None, line: int | None = None) -> None:
        """--accept-violations: the record (``rec``) was not applied, and no finding of its own stands for it
        (a pass of the battle refused at its attack: that attack's finding does). It changes nothing; it is
        stored so that every record of the log is."""

    @event("Sealed", topic=topic("Sealed"))
    def _sealed(self, events: int, last: str) -> None:
        """The end of an import: ``events`` events before this one, the last with digest ``last``.

        zx_events.integrity chains a SHA-256 digest through every event; this one's is the head.
        """
        self.sealed = {"events": events, "last": last}


# ---------------------------------------------------------------------- effect ops (state only)
def _entry_at(m: Match, square: str | None, a: dict | None = None) -> dict | None:
    """The Z/X (or card) on ``square``; None when the effect (``a``) targets the Player card or a Link
    there, which the rules treat apart (202.13f, 303.6a): such an effect was applied to the Z/X on that
    Square, which then left it, and an attack on the player was accepted."""
    if a is not None and a.get("target") in ("player", "link"):
        return None
    return m.sq.get(square) if square else None


def _op_power(m: Match, player: str, a: dict) -> None:
    e = _entry_at(m, a.get("square"), a)
    if e is not None:
        add_mod(e, int(a.get("delta", 0)), a.get("until", "end_of_turn"))


def _op_damage(m: Match, player: str, a: dict) -> None:
    e = _entry_at(m, a.get("square"), a)
    if e is not None:
        e["dmg"] += int(a.get("amount", 0))


def _op_destroy(m: Match, player: str, a: dict) -> None:
    if a.get("player_leaves"):  # a Player card destroyed: to its owner's Trash (1007), as a move of it there
        _op_move(m, player, a)
        return
    if a.get("target") == "link":
        links = m.links.get(a.get("square"), [])
        if links:
            links.pop()  # 915: the Link is banished
        return
    e = _entry_at(m, a.get("square"), a)
    if e is not None:  # 1007: a Z/X to its owner's Charge, another card (face-down, no Z/X) to Trash; a face-down
        # Z/X EX or EV EX to Dynamis face-up (``ex_to_dynamis``, digest.13: absent from older events)
        m._leave_square(a["square"], "dynamis" if a.get("ex_to_dynamis") else
                        "trash" if e.get("up") is False else "charge")


def _op_move(m: Match, player: str, a: dict) -> None:
    owner = a.get("owner") or player
    src, dst = a.get("from"), a.get("to")
    if a.get("player_leaves"):  # a Player card leaves its Player Square for another zone (not 303.6a)
        code = m.p[owner]["player_card"]
        if code:
            m.p[owner]["player_card"] = None
            m.p[owner].pop("pc_sleep", None)  # (a new card in its zone, 301.4: no state)
            m._send(owner, code, "card", dst)
        return
    if src == "square":
        sq = a.get("square")
        if a.get("target") == "link":
            links = m.links.get(sq, [])
            if links:
                who = links.pop()
                if dst == "square" and a.get("dest"):
                    m.links.setdefault(a["dest"], []).append(who)
            return
        if a.get("target") == "player":
            return  # 303.6a: a Player card does not move
        if dst == "square":
            entry = m.sq.get(sq)
            dest = a.get("dest")
            if entry is not None and dest and dest != sq:
                m.sq[sq] = None
                if m.sq.get(dest) is not None:
                    m._leave_square(dest, "trash")
                m.sq[dest] = entry  # Square to Square: the same card (301.4), its Force cards with it
                for f in m.force:
                    if isinstance(f, dict) and f.get("uid") == entry["uid"]:
                        f["square"] = dest
        else:
            if a.get("ex_to_dynamis"):  # a face-down Z/X EX or EV EX: to Dynamis face-up, as a face-up one goes
                dst = "dynamis"  # (digest.13: absent from older events, which sent it where `to` said)
            before = len(m.force)
            m._leave_square(sq, dst)
            if dst == "force":
                _tie_force(m, m.force[before:], a)
        return
    code = a.get("card")
    if not code:
        return
    if not m._from_zone(owner, src, code):
        if digest_of(m.rules_version) < 5:
            if src != "temporary":  # (digest.4 and before: a card named out of Temporary was put into `to`
                return  # whether it was there or not, 301.1)
        elif not (a.get("resolving") and _take_resolved(m, owner, a["resolving"], code)):
            return
    if dst == "square" and a.get("dest"):
        if a.get("face") == "down":  # 301.3b: a face-down card, no Z/X and no Power
            entry = m._new_entry(code, owner, owner, None, "card")  # 302.1b: controlled by its owner
            entry["up"] = False
            m._place(a["dest"], entry)
        else:
            m._place(a["dest"], m._new_entry(code, owner, owner, a.get("base"), a.get("kind", "zx")))
    else:
        before = len(m.force)
        m._send(owner, code, a.get("kind", "card"), dst)
        if dst == "force":
            _tie_force(m, m.force[before:], a)


def _take_resolved(m: Match, owner: str, zone: str, code: str) -> bool:
    """The Event resolving in Temporary, which ``CardPlayed`` (``IgnitionPerformed``, ``LifeDamaged``) has already
    sent on to ``zone``: an Event to Trash, an EV EX to Dynamis face-up. Taken from there when an effect of its
    resolution moves it out of Temporary (digest.5)."""
    if zone == "dynamis":
        dyn = m.p[owner]["dynamis"]
        for i, d in enumerate(dyn):
            if d["code"] == code and d["up"]:
                del dyn[i]
                return True
        return False
    return _take(m.p[owner][zone], code)


def _tie_force(m: Match, added: list, a: dict) -> None:
    """Force cards just put into the Force Zone: under the card on ``dest`` (tied to its uid), face-down
    when ``face`` says so (301.3b)."""
    under = m.sq.get(a["dest"]) if a.get("dest") else None
    for f in added:
        if under is not None:
            f["square"] = a["dest"]
            f["uid"] = under["uid"]
        if a.get("face") == "down":
            f["up"] = False


def _op_state(sleep: bool):
    def apply(m: Match, player: str, a: dict) -> None:
        whose = a.get("player_state")  # a Player card's state (302.2, digest.13: absent from every event before,
        if whose in ("P1", "P2"):  # which changed nothing): ``pc_sleep`` set while it is Sleep, absent when Reboot
            z = m.p[whose]
            if sleep and z.get("player_card"):
                z["pc_sleep"] = True
            else:
                z.pop("pc_sleep", None)
            return
        if a.get("square"):
            e = _entry_at(m, a["square"], a)
            if e is not None:
                e["sleep"] = sleep
        elif a.get("resource"):
            owner = a.get("owner") or player
            for r in m.p[owner]["resource"]:
                if r["code"] == a["resource"] and r["sleep"] != sleep:
                    r["sleep"] = sleep
                    break
    return apply


def _op_draw(m: Match, player: str, a: dict) -> None:
    z = m.p[player]
    for c in a.get("cards", []):
        if _take(z["deck"], c):
            z["hand"].append(c)


def _op_recover(m: Match, player: str, a: dict) -> None:
    z = m.p[player]
    if _take(z["deck"], a.get("card", "")):
        z["life"].append(a["card"])


def _op_token(m: Match, player: str, a: dict) -> None:
    m._place(a["square"], m._new_entry(a.get("code") or "TOKEN", player, player, a.get("power"), "token",
                                       name=a.get("name")))


def _op_counter(m: Match, player: str, a: dict) -> None:
    m.p[player]["counters"] = max(0, m.p[player]["counters"] + int(a.get("delta", 0)))


def _op_link(m: Match, player: str, a: dict) -> None:
    m.links.setdefault(a["square"], []).append(player)


def _op_overboost(m: Match, player: str, a: dict) -> None:
    m._from_zone(player, "dynamis", a.get("upper", ""))
    m._place(a["square"], m._new_entry(a.get("upper", ""), player, player, a.get("base"), "ob"))


_EFFECTS = {
    "power": _op_power, "damage": _op_damage, "destroy": _op_destroy, "move": _op_move,
    "sleep": _op_state(True), "reboot": _op_state(False), "draw": _op_draw, "recover": _op_recover,
    "token": _op_token, "counter": _op_counter, "link": _op_link, "overboost": _op_overboost,
}


# ---------------------------------------------------------------------- a direct trigger path
install_direct_triggers(Match)  # zx_events.games.base: each @event method without the library's per-call work
