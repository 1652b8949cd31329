"""Z/X's play-by-play: each of its events in one line of the game's words (``Game.narrate``; zx_events.narration).

Every sentence is written from the event's fields as a seat sees them (``views.redact_event``): a card the
seat may not see is ``?`` there and "a card" here, a hand drawn face-down "2 cards". One reads, besides, what is
public in the state the event was applied to and its fields leave out: where a destroyed card goes (its kind).
``SAYS`` names, for each event kind of ``match.Match``, the fields its sentence reads or leaves out on purpose (a
uid, the record's line); any other field is appended as key=value text (``narration.say``).
"""

from __future__ import annotations

from typing import Any, Mapping

from zx_events.freetext import result_text
from zx_events.games import digest_of
from zx_events.narration import (Words, common, compact, discarding, hand, hidden, known, known_now, say, short,
                                  signed, started, violation)

from .rules import LAST_LIFE, LAST_LIFE_BOTH, REASONS

F = Mapping[str, Any]
ZONES = {"hand": "the hand", "deck": "the deck", "life": "Life", "charge": "the Charge", "trash": "the Trash",
         "remove": "the Remove Zone", "resource": "the Resource", "dynamis": "Dynamis", "square": "the Square",
         "force": "the Force Zone", "temporary": "Temporary"}
UNTIL = {"end_of_turn": "until end of turn", "end_of_battle": "until end of battle", "permanent": "permanently"}


def _zone(zone: Any) -> str:
    return ZONES.get(zone, str(zone))


def _square(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 2 and value[0] in "abc" and value[1] in "123"


def _source(source: Any, w: Words) -> str:
    """An effect's or ability's source: a card (by code), or the card on a Square."""
    return f"the card on {source}" if _square(source) else w.card(source)


def _power(base: Any) -> str:
    return f" (Power {base})" if base is not None else ""


def _replacing(square: Any, before: Any, w: Words, moved: Any = None) -> str:
    """What a card put onto ``square`` sends away (``Match._place``: your own Reboot Z/X there goes to the Trash,
    the digest's rule of a play, 806; a Token disappears, 202.11c), read in ``before``, the state the event was
    applied to (public: a card on Square; a face-down one unnamed, 301.3b); "" for an empty Square, no ``before``, or
    the card moved itself (``moved``: the Square it leaves, Square to Square). It went without a word (digest.12)."""
    if before is None or not _square(square) or square == moved:
        return ""
    entry = (getattr(before, "sq", None) or {}).get(square)
    if not isinstance(entry, Mapping):
        return ""
    owner = entry.get("owner")
    if entry.get("kind") == "token":
        return ", replacing the Token there, which disappears (202.11c)"
    card = "a face-down card" if entry.get("up") is False else w.card(entry.get("code"))
    shift = " with its Shift" if entry.get("shift") else ""
    return f", replacing {card}{shift} there, which goes to {owner + chr(39) + 's' if owner else 'the'} Trash"


def _shift_goes(entry: Mapping, dest: Any, w: Words, before: Any = None, alone: bool = False) -> str:
    """Where the Shift on a card leaving the Square for ``dest`` goes (202.8a: with its vessel, as one card, to its
    owner's zone, 302.4; with a Z/X EX vessel to Dynamis face-up, ``Match._leave_square``): "" for a card without
    one. The Shift was face-up on the Square (public): it is named (digest.13: it went without a word). ``alone``:
    its vessel went nowhere (a Token, 202.11c): "; its Shift ... goes to ..."."""
    shift = entry.get("shift")
    if not shift:
        return ""
    owner = entry.get("shift_owner") or entry.get("owner")
    version = getattr(before, "rules_version", None)
    zone = "dynamis" if entry.get("kind") == "ex" and (version is None or digest_of(version) >= 3) else dest
    where = "Dynamis face-up" if zone == "dynamis" else _zone(zone).removeprefix("the ")
    whose = owner + chr(39) + 's' if owner else 'the'
    if alone:
        return f"; its Shift {w.card(shift)} goes to {whose} {where}"
    return f", with its Shift {w.card(shift)}, which goes to {whose} {where}"


def _set_up(f: F, w: Words) -> str:
    parts = [f"draws a hand of {hand(f.get('hand'), w)}"]
    if f.get("mulligan"):
        parts.append(f"mulligans and draws {hand(f['mulligan'], w)}")
    if f.get("life"):
        parts.append(f"puts {hand(f['life'], w)} into Life face-down")
    if f.get("resource"):
        parts.append(f"puts {w.cards(f['resource'])} into the Resource")
    if f.get("start_resource"):
        parts.append(f"puts {w.card(f['start_resource'])} into the Resource as its start resource")
    start = f.get("start_card")
    if isinstance(start, Mapping):
        parts.append(f"puts {w.card(start.get('code'))} onto {start.get('square')}{_power(start.get('power'))}"
                     + (" face-down" if hidden(start.get("code")) else ""))
    if f.get("gate"):
        parts.append(f"turns the Gate Card {w.card(f['gate'])} face-up")
    if any(hidden(c) for c in f.get("resource") or ()):  # (Resource is face-up: unknown to every seat, 402)
        return f"{w.who(f.get('player'))}'s setup is left out of the log, done unseen: " + ", ".join(parts)
    return f"{w.who(f.get('player'))} sets up: " + ", ".join(parts)


def _drawn(f: F, w: Words) -> str:
    """A draw ("P1 draws 2 cards": ones the seat may not see, or the cards of a draw the log left out, unknown to
    everyone, digest.8); ``unknown``: one of those cards, known at the record that first uses it, named to the seats
    that see the hand only."""
    cards = f.get("cards")
    if f.get("unknown") and f.get("zone") is not None:  # a setup left out's unknown card (402): its Life or
        codes = cards or []  # Resource card, or a card of a hand that may also hold a draw left out's
        what = "known now" if all(hidden(c) for c in codes) else w.cards(cards)
        if f["zone"] == "hand":
            return f"{w.who(f.get('player'))}'s card of the hand unknown (his setup or a draw left out of the log) " \
                   f"is {what}"
        where = "Life" if f["zone"] == "life" else "Resource"
        return f"{w.who(f.get('player'))}'s {where} card dealt unknown (his setup left out of the log) is {what}"
    if f.get("unknown"):
        return known_now(f.get("player"), cards or [], w)
    return f"{w.who(f.get('player'))} draws {hand(cards, w)}"


def _reloaded(f: F, w: Words) -> str:
    text = f"{w.who(f.get('player'))} reloads: the Trash is shuffled into the deck"
    if f.get("life") is not None:
        text += f", and {w.card(f['life'])} goes from Life to the Charge"
    if f.get("taken") is not None:  # (the record named a card not in the Life, 301.1, digest.12: the card taken in
        # its place, the judge's only, 301.3c; every other seat reads "a card")
        text += f"; the Life does not hold it: {w.card(f['taken'])} leaves the Life in its place"
    return text


def _ignition(f: F, w: Words, before: Any = None) -> str:
    text = (f"{w.who(f.get('player'))} ignites: {w.card(f.get('charge'))} goes from the Charge to the Trash, "
            f"revealing {w.card(f.get('revealed'))}")
    play = f.get("play")
    if play is None:
        return text + ", which goes to the Trash"
    if isinstance(play, Mapping) and play.get("square"):
        return text + f", played free onto {play['square']}{_power(f.get('base'))}" + \
            _replacing(play["square"], before, w)
    return text + ", played free"


def _played(f: F, w: Words, before: Any = None) -> str:
    kind, card = f.get("kind"), w.card(f.get("card"))
    src = _zone(f.get("zone"))
    if kind == "shift":
        entry = (getattr(before, "sq", None) or {}).get(f.get("on")) if before is not None else None
        vessel = "the face-down card" if isinstance(entry, Mapping) and entry.get("up") is False else "the Z/X"
        what = f"the Shift {card} from {src} onto {vessel} on {f.get('on')}"
    elif kind in ("event", "evex"):
        what = f"the {'EV EX' if kind == 'evex' else 'Event'} {card} from {src}"
    elif kind == "ob":
        what = f"{card} from {src} by Overboost onto {f.get('square')}{_power(f.get('base'))}" + \
            _replacing(f.get("square"), before, w)
    elif f.get("square"):
        what = f"{card} from {src} onto {f.get('square')}{_power(f.get('base'))}" + \
            _replacing(f.get("square"), before, w)
    else:
        what = f"{card} from {src}"
    pay = f.get("pay") or []
    text = f"{w.who(f.get('player'))} plays {what}"
    if pay:
        text += f", paying {w.cards(pay)}"
    return text + (" (its Extra play)" if f.get("extra") else "")


def _attack(f: F, w: Words) -> str:
    player = f.get("player")
    defender = "P2" if player == "P1" else "P1"
    a = f.get("attacker") or {}
    if f.get("target_kind") == "player":
        target = f"{defender}'s Player Square ({f.get('target')})"
    else:
        t = f.get("target_info") or {}
        target = f"{defender}'s {w.card(t.get('code'))}{_power(t.get('power'))} on {f.get('target')}"
    text = (f"{w.who(player)} attacks {target} with {w.card(a.get('code'))}{_power(a.get('power'))} "
            f"from {f.get('square')}")
    if f.get("range_used"):
        text += f" (using its Range, distance {f.get('distance')})"
    return text


def _battle_damage(f: F, w: Words) -> str:
    outcome, n = f.get("outcome"), f.get("amount")
    if outcome == "player_damaged":
        return f"The attacked player is dealt {n} damage"
    if outcome == "damaged_zx":
        return f"The attacked Z/X is dealt {n} damage"
    if outcome == "no_damage_overboost":
        return "No damage is dealt (Overboost)"
    return f"Battle damage: {compact(outcome)}, {n}"


BATTLE_ENDS = {"player_damaged": "the player was damaged", "destroyed": "the attacked Z/X was destroyed",
               "survived": "the attacked Z/X survived", "no_damage_overboost": "no damage (Overboost)"}


def _life_damaged(f: F, w: Words, before: Any = None) -> str:
    card, ignite = w.card(f.get("card")), f.get("ignite")
    text = f"{w.who(f.get('player'))} takes 1 Life damage: {card} "
    if ignite is None:
        text += "goes to the Charge"
    elif isinstance(ignite, Mapping) and ignite.get("square"):
        text += f"is played free (Life Burst) onto {ignite['square']}{_power(f.get('base'))}" + \
            _replacing(ignite["square"], before, w)
    else:
        text += "is played free (Life Burst) and goes to the Trash"
    if f.get("taken") is not None:  # (the record named a card not in the Life, 301.1: the card the damage took
        # in its place, the judge's only, 301.3c; every other seat reads "a card")
        text += f"; the Life does not hold it: {w.card(f['taken'])} leaves the Life in its place"
    if f.get("life_after") is not None:
        text += f" ({f['life_after']} Life left)"
    if f.get("triggers"):
        text += "; " + " and ".join(_owed(t) for t in f["triggers"])
    return text


# what a battle or a turn owes (the engine's obligation keys, "KIND:SEAT": ``match._BATTLE_DUES``, ``Referee.due``)
DUES = {"life": "a Life card (604.3b)", "recover": "a Life Recovery (1102)", "void": "a Void Bringer (1103)",
        "reload": "a Reload (902)", "charge_excess": "a Charge Excess (905)"}


def _due(key: Any) -> tuple[str, str] | None:
    """``("P1", "a Life Recovery (1102)")`` of the key ``recover:P1``; None for a key of another shape."""
    kind, _, seat = str(key).partition(":")
    return (seat, DUES[kind]) if kind in DUES and seat else None


def _owed(key: Any) -> str:
    """A trigger of a Life card: ``P1 owes a Life Recovery (1102)``."""
    due = _due(key)
    return f"{due[0]} owes {due[1]}" if due else f"{key} is owed"


def _violation(f: F, w: Words) -> str:
    """``violation``'s sentence, its waiver in words: ``(P2's owed Life card (604.3b) is waived)``."""
    text = violation({**f, "waive": None}, w)
    if not f.get("waive"):
        return text
    due = _due(f["waive"])
    return text + (f" ({due[0]}'s owed {due[1].removeprefix('a ')} is waived)" if due else f" (waived: {f['waive']})")


CAUSES = {"lethal": "by lethal damage"}
TOKEN = "TOKEN"  # a Token's code on the Square (its name is the log's free text: ``op`` ``token``'s ``name``)


def _destroyed(f: F, w: Words, before: Any) -> str:
    """A ``ZXDestroyed``: the card and where it goes, as the engine sends it (1007, ``Match._send``): a Z/X to its
    owner's Charge, a Z/X EX to its owner's Dynamis face-up, a Token nowhere (202.11c). The event names the card by
    its code only: its kind and owner are those of the card on its Square in ``before``, the state the event was
    applied to (public: a destroyed card is a face-up Z/X), and a Token's name there (the log's free text, as the
    seat reads it: ``Words.free``, as its Square on the board shows it); without it, a Token by its code, any other
    card as a Z/X."""
    square, code = f.get("square"), f.get("code")
    entry = (getattr(before, "sq", None) or {}).get(square) if before is not None else None
    if not isinstance(entry, Mapping) or entry.get("uid") != f.get("uid"):
        entry = {}
    kind = entry.get("kind") or ("token" if code == TOKEN else "zx")
    owner = entry.get("owner")
    name = w.free(entry.get("name")) if kind == "token" else ""
    card = (f"the Token {name} on {square}" if name else f"the Token on {square}") if kind == "token" else \
        f"{w.card(code)} on {square}"
    cause = CAUSES.get(f.get("cause"), "by " + compact(f.get("cause")))
    if kind == "token":
        return f"{card} is destroyed {cause} and disappears (a Token, 202.11c)"
    zone = "Dynamis face-up" if kind == "ex" else "Charge"
    return f"{card} is destroyed {cause} and goes to {owner + chr(39) + 's' if owner else 'the'} {zone}" + \
        (_shift_goes(entry, "charge", w, before) if entry else "")


def _player_card(a: Mapping, owner: str, w: Words, before: Any) -> str:
    """" Mirei Tidecaller PL-002": the Player card an effect moves off its Player Square, face-up there (the record's
    `card`, else the one ``before`` has on that Square); "" where neither says."""
    code = a.get("card")
    if not code:
        players = getattr(before, "p", None) or {}
        code = (players.get(owner) or {}).get("player_card")
    return f" {w.card(code)}" if code else ""


def _revealed(entry: Mapping, w: Words) -> str:
    """A face-down Z/X EX or EV EX that left the Square for Dynamis face-up: the card, public there (301.3c)."""
    return f"{w.card(entry.get('code'))} (an EX card goes nowhere but Square or Dynamis)"


def _effect(f: F, w: Words, before: Any = None) -> str:
    a = dict(f.get("args") or {})
    op, player = f.get("op"), f.get("player")
    a.pop("resolves", None)
    square = a.get("square")
    on = {"link": f"the Link on {square}", "player": f"the Player card on {square}"}.get(a.get("target"),
                                                                                      f"the card on {square}")
    if op == "power":
        what = f"{on} gets {signed(a.get('delta'))} Power {UNTIL.get(a.get('until', 'end_of_turn'), a.get('until'))}"
    elif op == "damage":
        what = f"{on} is dealt {a.get('amount')} damage"
    elif op == "destroy":
        what = f"{on} is destroyed"
        entry = (getattr(before, "sq", None) or {}).get(square) if before is not None and _square(square) else None
        if a.get("player_leaves"):  # (1007: a card other than a Z/X goes to the Trash; named, face-up on its Square,
            owner = a.get("owner") or player  # as a move of it names it: round 37's close)
            what = f"{owner}'s Player card{_player_card(a, owner, w, before)} on {square} is destroyed and goes to " \
                f"{owner}'s Trash"
        elif isinstance(entry, Mapping) and a.get("target", "card") == "card":  # (1007, as ``_op_destroy`` sends it:
            # the face-up card named, where it and its Shift go; digest.13: "the card on a1 is destroyed" alone)
            owner = entry.get("owner")
            whose = owner + chr(39) + "s" if owner else "the"
            if entry.get("up") is False and a.get("ex_to_dynamis"):  # a Z/X EX (EV EX) put face-down: to Dynamis
                what += f" and goes to {whose} Dynamis face-up, revealed: {_revealed(entry, w)}"  # face-up (public)
            elif entry.get("up") is False:  # a face-down card: no Z/X, to the Trash, unnamed (301.3b)
                what += f" and goes to {whose} Trash" + _shift_goes(entry, "trash", w, before)
            elif entry.get("kind") == "token":
                name = w.free(entry.get("name"))
                token = f"the Token {name} on {square}" if name else f"the Token on {square}"
                what = f"{token} is destroyed and disappears (a Token, 202.11c)"
            else:
                zone = "Dynamis face-up (Z/X EX)" if entry.get("kind") == "ex" else "Charge"
                what = f"{w.card(entry.get('code'))} on {square} is destroyed and goes to {whose} {zone}" + \
                    _shift_goes(entry, "charge", w, before)
    elif op in ("sleep", "reboot"):
        state = "Sleep" if op == "sleep" else "Reboot"
        what = (f"{on} becomes {state}" if square else
                f"{w.card(a.get('resource'))} in {a.get('owner') or player}'s Resource becomes {state}")
    elif op == "draw":
        cards = a.get("cards") or []
        what = f"{player} draws {hand(cards, w)}"
    elif op == "recover":
        what = f"{player} puts {w.card(a.get('card'))} from the top of the deck into Life"
    elif op == "token":
        what = f"a Token {short(a.get('name') or '')} (Power {a.get('power')}) is put onto {square}"
        what = what.replace("  ", " ") + _replacing(square, before, w)
    elif op == "counter":
        what = f"{player}'s counters change by {signed(a.get('delta'))}"
    elif op == "link":
        what = f"{player} puts a Link on {square}"
    elif op == "overboost":
        what = f"{player} Overboosts {w.card(a.get('upper'))} onto {square}{_power(a.get('base'))}" + \
            _replacing(square, before, w)
    elif op == "move":
        owner = a.get("owner") or player
        if a.get("player_leaves"):  # the Player card was face-up on its Player Square (public): named (digest.13:
            # "P2's Player card goes to the Trash")
            what = f"{owner}'s Player card{_player_card(a, owner, w, before)} goes to " \
                f"{owner}'s {_zone(a.get('to')).removeprefix('the ')}"  # (its owner's zone: "to the hand" said no one's)
        elif a.get("from") == "square" and a.get("target") == "player":  # 303.6a: the engine moves nothing
            what = f"{on} stays on {square} (a Player card does not move, 303.6a)"
        elif a.get("from") == "square":
            entry = (getattr(before, "sq", None) or {}).get(square) if before is not None and _square(square) \
                else None
            if isinstance(entry, Mapping) and a.get("target", "card") == "card":
                if entry.get("up") is not False and entry.get("kind") != "token":  # a face-up card: public, named
                    on = f"{w.card(entry.get('code'))} on {square}"  # (a face-down one stays "the card")
                if entry.get("owner"):  # 302.4: a zone of each player's is its owner's, whoever the log names
                    owner = entry["owner"]
            to = a["dest"] if a.get("to") == "square" and a.get("dest") else \
                f"{owner}'s " + _zone(a.get("to")).removeprefix("the ")
            if a.get("to") != "square" and a.get("owner") and a["owner"] != owner:
                to += f" (its owner's, 302.4: not {a['owner']}'s)"
            what = f"{on} goes to {to}"
            if isinstance(entry, Mapping) and a.get("target", "card") == "card" and a.get("to") != "square":
                if entry.get("kind") == "token":  # 202.11c: a Token that leaves the Square disappears (as a destroy
                    # and lethal damage say; digest.13: "the card on c3 goes to P2's hand")
                    name = w.free(entry.get("name"))
                    token = f"the Token {name} on {square}" if name else f"the Token on {square}"
                    what = f"{token} would go to {to}: it disappears (a Token, 202.11c)" + \
                        _shift_goes(entry, a.get("to"), w, before, alone=True)
                elif entry.get("up") is False and a.get("ex_to_dynamis"):  # a Z/X EX (EV EX) put face-down: the same,
                    # and face-up in Dynamis it is public (301.3c): named there (digest.13: the hand or the Trash)
                    what = f"{on} would go to {to}: goes to {owner}'s Dynamis face-up, revealed: {_revealed(entry, w)}"
                elif entry.get("kind") == "ex" and a.get("to") != "dynamis":  # (the digest: anywhere but Square or
                    # Dynamis, a Z/X EX goes to Dynamis face-up; the record's `to` said as written. Digest.13: the
                    # sentence said the hand, the state had Dynamis)
                    what = f"{on} would go to {to}: goes to {owner}'s Dynamis face-up (Z/X EX)"
                if entry.get("kind") != "token":
                    what += _shift_goes(entry, a.get("to"), w, before)
        else:
            dest = a["dest"] if a.get("to") == "square" and a.get("dest") else \
                f"{owner}'s " + _zone(a.get("to")).removeprefix("the ")
            what = f"{w.card(a.get('card'))} goes from {owner}'s {_zone(a.get('from')).removeprefix('the ')} to {dest}"
        if a.get("face") == "down":
            what += " face-down"
        if a.get("to") == "square" and not a.get("player_leaves") and a.get("target") not in ("player", "link"):
            what += _replacing(a.get("dest"), before, w, moved=square if a.get("from") == "square" else None)
        a = {}
    else:
        return f"{w.who(player)} resolves {_source(f.get('source'), w)}: {compact(op)} {compact(a)}"
    return f"{w.who(player)} resolves {_source(f.get('source'), w)}: {what}"


def _ended(f: F, w: Words) -> str:
    """The match's end in the game's words (``REASONS``); a loss at 0 Life whose last Life card went by an effect or
    a Reload says so, not "by damage" (the digest: a Reload is no damage): "P2 won: P1 has no Life left (an effect
    took their last Life card; a player with 0 Life loses)"."""
    winner, how = f.get("winner"), LAST_LIFE.get(f.get("how"))
    if how and winner in ("P1", "P2") and f.get("reason") == "life":
        loser = "P2" if winner == "P1" else "P1"
        return f"The match ends: {winner} won: {loser} has no Life left ({how}; a player with 0 Life loses)"
    if f.get("how") in LAST_LIFE_BOTH and winner is None and f.get("reason") == "draw":  # (an Event's steps took both
        # players' last Life cards, digest.14; it said nothing of the effect)
        return f"The match ends: {result_text(None, 'draw', REASONS)} ({LAST_LIFE_BOTH[f['how']]})"
    return "The match ends: " + result_text(winner, f.get("reason"), REASONS)


def _result_recorded(f: F, w: Words, before: Any = None) -> str:
    """The log's result; where it is the engine's loss at 0 Life whose last Life card went by no damage (the state's
    outcome ``how``: the match ended before the `result` record), in the match's end's words (``_ended``), not "by
    damage with no Life left" (digest.13 said it so); a record giving no reason too (it said "P2 won" alone)."""
    outcome = getattr(before, "outcome", None)
    if isinstance(outcome, Mapping) and outcome.get("how") in LAST_LIFE and f.get("reason") in ("life", None) \
            and outcome.get("reason") == "life" and f.get("winner") == outcome.get("winner"):
        ended = _ended({**f, "how": outcome["how"], "reason": "life"}, w)
        return "The log records the result: " + ended.removeprefix("The match ends: ")
    return COMMON["ResultRecorded"][1](f, w)


def _turn_ended(f: F, w: Words) -> str:
    return f"{w.who(f.get('player'))} ends the turn{discarding(f, w)}"


def _late(f: F, w: Words) -> str:
    discard = f.get("discard") or []
    return (f"{w.who(f.get('player'))}'s end of turn comes late (the next turn had begun)"
            + (f": {w.cards(discard)} goes from the hand to the Trash" if discard else ": nothing else happens"))


COMMON = common(REASONS)
SAYS: dict[str, tuple[frozenset[str], Any]] = {
    **COMMON,
    "Started": (known("match_id", "header", "catalog", "rules_version", "source", "content_sha256"), started),
    "PlayerSetUp": (known("player", "hand", "mulligan", "life", "resource", "start_card", "start_resource", "gate"),
                    _set_up),
    "CardsDrawn": (known("player", "cards", "unknown", "zone"), _drawn),
    "Reloaded": (known("player", "life", "taken"), _reloaded),
    "ResourcePlaced": (known("player", "card"),
                       lambda f, w: f"{w.who(f.get('player'))} puts {w.card(f.get('card'))} into the Resource"),
    "IgnitionPerformed": (known("player", "charge", "revealed", "play", "kind", "base"), _ignition),
    "CardPlayed": (known("player", "card", "zone", "pay", "kind", "square", "on", "base", "extra"), _played),
    "AttackDeclared": (known("player", "square", "target", "attacker", "target_kind", "target_info", "distance",
                          "range_used"), _attack),
    "PriorityPassed": (known("player"), lambda f, w: f"{w.who(f.get('player'))} passes priority"),
    "BattleDamageDealt": (known("outcome", "amount"), _battle_damage),
    "BattleEnded": (known("outcome"),
                    lambda f, w: f"The battle ends: {BATTLE_ENDS.get(f.get('outcome'), compact(f.get('outcome')))}"),
    "BattleEffectsEnded": (known(), lambda f, w: "Effects until end of battle end"),
    "AbilityPlayed": (known("player", "source"),
                      lambda f, w: f"{w.who(f.get('player'))} plays the ability of {_source(f.get('source'), w)}"),
    "LifeDamaged": (known("player", "card", "ignite", "kind", "base", "life_after", "triggers", "taken"),
                    _life_damaged),
    "LifeCardKnown": (known("player", "card", "placeholder", "taken"),
                      lambda f, w: f"{w.who(f.get('player'))}'s Life card of an earlier damage was "
                                   f"{w.card(f.get('card'))}: it takes {w.card(f.get('placeholder'))}'s place in "
                                   f"the Charge, and {w.card(f.get('taken'))}, taken for it, is in the Life again"),
    "ChargeExcessTrashed": (known("player", "cards"),
                            lambda f, w: f"{w.who(f.get('player'))} puts {w.cards(f.get('cards') or [])} from the "
                                         f"Charge into the Trash (over the Charge limit)"),
    "ZXDestroyed": (known("square", "uid", "code", "cause"), _destroyed),
    "EffectApplied": (known("player", "source", "op", "args"), _effect),
    "TurnEnded": (known("player", "discard"), _turn_ended),
    "LateRecord": (known("player", "discard"), _late),
    "ViolationRecorded": (known("rule", "message", "turn", "player", "waive"), _violation),
    "MatchEnded": (known("winner", "reason", "how"), _ended),
    "ResultRecorded": (known("winner", "reason"), _result_recorded),
}


# a game whose sentences may read the state an event was applied to (``Game.narrate``'s ``before``)
SEES_BEFORE = True
READS_BEFORE = frozenset({"ZXDestroyed", "CardPlayed", "IgnitionPerformed", "LifeDamaged", "EffectApplied",
                          "ResultRecorded"})
# the kinds written with it (where a destroyed card goes, a Token's name: ``_destroyed``; the card a card put onto a
# Square sends away: ``_replacing``)


def sentence(kind: str, fields: F, words: Words, before: Any = None) -> str | None:
    """``kind``'s sentence (None: Z/X does not say it; ``Game.narrate`` then writes the fields). ``before``: the
    state the event was applied to, where a sentence reads what is public there and its fields leave out (where a
    destroyed card goes: ``_destroyed``)."""
    return say(SAYS, kind, fields, words, before, READS_BEFORE)
