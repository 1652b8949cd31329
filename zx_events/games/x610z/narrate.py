"""X610Z's play-by-play: each of its events in one line of the game's words (``Game.narrate``; zx_events.narration).

Every sentence is written from the event's fields as a seat sees them (``views.redact_event``): a card the
seat may not see is ``?`` there and "a card" here (a draw from the deck: "P2 draws a card"). ``SAYS`` names,
for each event kind of ``match.Match``, the fields its sentence reads or leaves out on purpose (a uid, the stack
entry's id); any other field is appended as key=value text (``narration.say``).
"""

from __future__ import annotations

from typing import Any, Mapping

from zx_events.narration import (Words, common, compact, counted, discarding, hand, hidden, known, known_now,
                                  say, signed, started, violation)

from .rules import REASONS, gone_text, outcome_text

F = Mapping[str, Any]
PHASES = {"draw": "Draw Phase", "action": "Action Phase", "end": "End Phase", "closed": "End Phase (closed)"}
ZONES = {"deck": "Deck", "hand": "hand", "cast": "Cast Zone", "play": "play", "discard": "Discard Pile",
         "removed": "Removed Zone"}
UNTIL = {"end_of_turn": "until end of turn", "permanent": "permanently"}
# why a summon or permanent left play (``Destroyed``, ``PermanentLeft``'s ``cause``) and what the rule calls it: destroyed
# (210.5, 210.7; 601.5, 602.5 "destroyed and moves to the discard pile"; a `destroy` effect), discarded (402.8: "discard
# the summon that moved in your control last"), or moved to the Discard Pile (209.2c, 209.2f: "moves to the Discard
# Pile"), each to its owner's Discard Pile (210.7, 205.3). "Destroyed" is a game term (210.7): 402.8 and 209.2c/f said it
# (QA round 38)
CAUSES = {"210.5": ("is destroyed", "by lethal damage (210.5)"),
          "602.5": ("is destroyed", "on an Ending Dot after the turn (602.5)"),
          "601.5": ("is destroyed", "on a Starting Dot not its controller's (601.5)"),
          "effect": ("is destroyed", "by an effect"),
          "402.8": ("is discarded", "as its controller already controls a summon of its Class (402.8)"),
          "209.2c": ("moves", "as its Activation Counter ran out (209.2c)"),
          "209.2f": ("moves", "as its Time Counter ran out (209.2f)")}


def _energy(pay: Any) -> str:
    """An energy payment, ``{"M": 1, "B": 2}``: "1 M and 2 B energy"; none: ""."""
    if not isinstance(pay, Mapping) or not pay:
        return ""
    return " and ".join(f"{n} {t}" for t, n in pay.items()) + " energy"


def _paying(pay: Any) -> str:
    e = _energy(pay)
    return f", paying {e}" if e else ""


def _dot(dot: Any) -> bool:
    return isinstance(dot, str) and 1 < len(dot) <= 3 and dot[0].isalpha() and dot[1:].isdigit()


def _source(source: Any, w: Words, before: Any = None, uid: Any = None) -> str:
    """An effect's source: a card (by code), or the summon on a dot, by its card where ``before`` shows it
    (``_summon_on``; ``uid``: its object number, when the event names it)."""
    return _summon_on(source, uid, w, before) if _dot(source) else w.card(source)


def _drawn(f: F, w: Words) -> str:
    """A draw ("P1 draws a card": one the seat may not see); ``left_out``: the card of a draw the log left out,
    unknown to everyone (digest.8), said so in the same words for every seat; ``unknown``: that card, known at the
    record that first uses it (or its draw logged late), named to the seats that see the hand only."""
    card = f.get("card")
    if f.get("unknown"):
        return known_now(f.get("player"), card, w)
    if f.get("left_out"):  # the draw of a Draw Phase the log left out (views.redact_event)
        return f"{w.who(f.get('player'))}'s draw was left out of the log: he drew a card, unknown"
    return f"{w.who(f.get('player'))} draws {w.card(card)}"


def _set_up(f: F, w: Words) -> str:
    parts = []
    base = f.get("life_base")
    if isinstance(base, Mapping):
        parts.append(f"puts {w.card(base.get('code'))} on {f.get('dot')} as its Life Base")
    else:
        parts.append("places no Life Base")
    parts.append(f"draws a hand of {hand(f.get('hand'), w)}")
    for again in f.get("murphy") or []:  # 105.4: the hand shuffled back, one card fewer drawn
        parts.append(f"mulligans (Murphy's law) and draws {hand(again, w)}")
    return f"{w.who(f.get('player'))} sets up: " + ", ".join(parts)


def _target(t: Any, w: Words, before: Any = None) -> str:
    """A declared target in the words the board uses: a card by its code and name, a summon by its dot (and its card
    where ``before``, the state it was announced in, shows it: ``_summon_on``), a player; never the engine's object
    number (``uid``), which no surface shows."""
    if isinstance(t, Mapping):
        if t.get("code") is not None:  # a permanent, an Effect on the stack: by its card
            return f" targeting {w.card(t['code'])}" + (f" on {t['dot']}" if t.get("dot") else "")
        if t.get("dot"):  # (its ``uid``: the summon's there; None: none was there, 200.4)
            return f" targeting {_summon_on(t['dot'], t.get('uid'), w, before)}"
        if t.get("player"):
            return f" targeting {t['player']}"
        return ""
    if _dot(t):
        return f" targeting {_summon_on(t, None, w, before)}"
    if isinstance(t, str):  # a trigger's target as its record names it: a code
        return f" targeting {w.card(t)}"
    return ""  # (an object number: an attack's target is its path's last dot, _announced)


def _summon_on(dot: Any, uid: Any, w: Words, before: Any) -> str:
    """The summon on ``dot`` as the board names it: its card (name and code) on its dot, read from ``before``, the
    state the event was applied to (Play is public to every seat: 503.2, ``views.build_view``); ``uid``, when the
    event names it, must be the summon there. "the summon on DOT" when the state does not say which card (no
    ``before``, another summon there, none, or a card it holds as unknown: ``?``)."""
    entry = (getattr(before, "dots", None) or {}).get(dot) if before is not None and isinstance(dot, str) else None
    if not isinstance(entry, Mapping) or (uid is not None and entry.get("uid") != uid) or hidden(entry.get("code")):
        return f"the summon on {dot}"
    return f"{w.card(entry['code'])} on {dot}"


def _attack(f: F, w: Words, before: Any) -> str:
    """An attack (202.3): the summon it is made with, its path, and the summon it targets, the one on its path's
    last dot (its target is the summon's object number, which no surface shows), each by its card where ``before``
    shows it (``_summon_on``)."""
    e = f.get("entry") or {}
    path = e.get("path") or []
    target = e.get("target")
    if not isinstance(target, (str, Mapping)) and path:  # its summon's object number: 202.3, the path ends on it
        aimed = f" targeting {_summon_on(path[-1], target, w, before)}"
    elif _dot(target):
        aimed = f" targeting {_summon_on(target, None, w, before)}"
    else:
        aimed = _target(target, w)
    return (f"{w.who(f.get('player'))} attacks with {_summon_on(e.get('from'), e.get('uid'), w, before)}"
            + (f" via {' → '.join(map(str, path))}" if path else "") + f"{aimed}{_paying(f.get('pay'))}")


def _announced(f: F, w: Words, before: Any = None) -> str:
    e = f.get("entry") or {}
    who, kind = w.who(f.get("player")), e.get("kind")
    pay = _paying(f.get("pay"))
    if e.get("void"):
        what = {"cast": f"casts {w.card(e.get('card'))}", "activate": f"activates {w.card(e.get('card'))}",
                "trigger": f"announces a trigger of {_source(e.get('source'), w)}"}.get(
            kind, f"announces {counted(1, compact(kind))}")
        return f"{who} {what}{pay}, which is not there to be announced: it does nothing"
    if kind == "cast":
        text = f"{who} casts {w.card(e.get('card'))}"
        if e.get("summon") is not None:
            text += f" as a summon to {e.get('dot')}"
        text += _target(e.get("target"), w, before)
        if e.get("additional"):
            text += f" (additional cost {e['additional']})"
        return text + pay
    if kind == "activate":
        return f"{who} activates {w.card(e.get('card'))}{_target(e.get('target'), w, before)}{pay}"
    if kind == "move":
        path = e.get("trail") or [e.get("from"), *(e.get("path") or [])]
        text = f"{who} {'warps' if e.get('warp') else 'moves'} {_summon_on(e.get('from'), e.get('uid'), w, before)} " \
            f"along " + \
            " → ".join(str(d) for d in path)
        return text + (" (an illegal move)" if e.get("illegal") else "") + pay
    if kind == "attack":
        return _attack(f, w, before)
    if kind == "ability":
        return f"{who} plays the {compact(e.get('ability'))} ability of {w.card(e.get('card'))}{pay}"
    if kind == "trigger":
        return f"{who}'s trigger of {_source(e.get('source'), w, before, e.get('uid'))} goes on the stack" \
            f"{_target(e.get('target'), w, before)}"
    return f"{who} announces {compact(e)}{pay}"


def _with_uid(uid: Any, before: Any) -> str | None:
    """The dot of the summon whose object number is ``uid`` in ``before`` (None: no state, no such summon)."""
    if uid is None or before is None:
        return None
    for dot, entry in (getattr(before, "dots", None) or {}).items():
        if isinstance(entry, Mapping) and entry.get("uid") == uid:
            return dot
    return None


def _resolved(f: F, w: Words, before: Any = None) -> str:
    facts = f.get("facts") or {}
    if f.get("outcome") == "fizzled":
        return "The top of the stack fizzles"
    if f.get("outcome") != "done":
        return f"The top of the stack resolves: {compact(f.get('outcome'))}"
    text = "The top of the stack resolves"
    if "damage" in facts:  # (202.5a; its target is an object number: the summon by its card where ``before`` shows it)
        dot = _with_uid(facts.get("target"), before)
        text += f": {facts['damage']} damage to " + (_summon_on(dot, facts.get("target"), w, before) if dot else
                                                     "the attacked summon")
    elif facts.get("dot"):
        text += f": the summon comes into play on {facts['dot']}"
    elif facts.get("to"):
        text += f": the summon arrives on {facts['to']}"
    elif facts.get("on") is not None:
        text += ": the card is fixed on its target"
    rest = {k: v for k, v in facts.items() if k not in ("damage", "target", "dot", "to", "on")}
    return text + (f" ({compact(rest)})" if rest else "")


def _effect(f: F, w: Words, before: Any = None) -> str:
    """An effect (107.1a): its source and the summon it acts on, each named by its dot in the log, by card and dot
    where ``before``, the state the effect was applied to, shows the card (``_summon_on``: Play is public, 503.2)."""
    a = dict(f.get("args") or {})
    op, player = f.get("op"), f.get("player")
    on = _summon_on(a.get("dot"), None, w, before) if a.get("dot") else \
        (w.card(a["object"]) if a.get("object") is not None else "its object")  # (a permanent in play: public)
    if op == "damage":
        what = f"{on} is dealt {a.get('amount')} damage"
    elif op == "heal":
        what = f"{on} heals {a.get('amount')} damage"
    elif op == "stat":
        what = f"{on} gets {signed(a.get('delta'))} {str(a.get('stat')).capitalize()} " \
               f"{UNTIL.get(a.get('until', 'end_of_turn'), a.get('until'))}"
    elif op == "place":
        frm = ZONES.get(a.get("from") or "hand", a.get("from"))
        what = f"{w.card(a.get('card'))} comes from {frm} into play on {a.get('dot')}"
    elif op == "relocate":
        what = f"{on} is relocated to {a.get('to')}"
    elif op == "destroy":
        what = f"{on} is destroyed"
    elif op == "zone":
        owner = a.get("owner") or player
        frm = ZONES.get(a.get("from"), a.get("from"))
        what = f"{w.card(a.get('card'))} goes from {owner}'s {frm} to {owner}'s {ZONES.get(a.get('to'), a.get('to'))}"
    elif op == "draw":
        what = f"{player} draws {hand(a.get('cards'), w)}"
    elif op == "search":
        what = f"{player} searches the Deck for {w.card(a.get('card'))}"
    elif op in ("deactivate", "reactivate"):
        what = f"{on} is {op}d"
    elif op == "counter":
        what = f"{on} gets {signed(a.get('delta'))} {a.get('kind', 'activation')} counters"
    elif op == "energy":
        what = f"{player} adds {_energy({a.get('type'): a.get('amount')})}"
    elif op == "control":
        what = f"{on} comes under {a.get('to')}'s control"
    elif op == "counter_action":
        what = f"stack entry {a.get('line')} is countered"
    elif op == "raise_cost":
        what = (f"{a.get('payer') or player} pays {_energy(a.get('pay')) or 'nothing'} more for stack entry "
                f"{a.get('line')}")
    elif op == "extra_attack":
        what = f"{on} may attack once more"
    elif op == "extra_turn":
        what = f"{a.get('player') or player} takes an extra turn after this one"
    elif op == "skip_turn":
        what = f"{a.get('player') or player}'s next turn is skipped"
    else:
        return f"{w.who(player)} resolves {_source(f.get('source'), w, before)}: {compact(op)} {compact(a)}"
    return f"{w.who(player)} resolves {_source(f.get('source'), w, before)}: {what}"


def _left(what: str, f: F, before: Any) -> str:
    """A summon (``Destroyed``) or permanent (``PermanentLeft``) leaving play for its owner's Discard Pile (210.7, 205.3),
    in its rule's words (``CAUSES``): "Iron Keep A1-002 on S4 is discarded to P2's Discard Pile as its controller
    already controls a summon of its Class (402.8)", "... is destroyed by lethal damage (210.5) and goes to P2's
    Discard Pile". The owner is read from ``before``, the state the event was applied
    to (its object by ``uid``; Play is public, 503.2): "its owner's" where it does not say."""
    verb, why = CAUSES.get(f.get("cause"), ("is destroyed", f"({compact(f.get('cause'))})"))
    uid = f.get("uid")
    owners = [e.get("owner") for e in [*(getattr(before, "dots", None) or {}).values(),
                                         *(getattr(before, "perms", None) or ())]
              if isinstance(e, Mapping) and uid is not None and e.get("uid") == uid]
    pile = f"{owners[0]}'s Discard Pile" if owners and isinstance(owners[0], str) else "its owner's Discard Pile"
    if verb == "is destroyed":
        return f"{what} is destroyed {why} and goes to {pile}"
    return f"{what} {verb} to {pile} {why}"


COMMON = common(REASONS)


def _ended(f: F, w: Words) -> str:
    """The match's end in the game's words; a draw whose Life Bases one resolution's effects took out of play (``how``,
    digest.13) says so (``rules.gone_text``): "The match ends: a draw: both Life Bases left play at once (one
    resolution's effects took both out of play; 106.1a)"."""
    return "The match ends: " + outcome_text(f.get("winner"), f.get("reason"), f.get("how"))


def _result_recorded(f: F, w: Words, before: Any = None) -> str:
    """The log's result; where it agrees with an outcome whose ``how`` says how both Life Bases left play (the match
    ended before the `result` record), in the match's end's words (``_ended``), as Z/X's."""
    outcome = getattr(before, "outcome", None)
    if isinstance(outcome, Mapping) and gone_text(f.get("winner"), f.get("reason"), outcome.get("how")) \
            and (f.get("winner"), f.get("reason")) == (outcome.get("winner"), outcome.get("reason")):
        return "The log records the result: " + outcome_text(f.get("winner"), f.get("reason"), outcome["how"])
    return COMMON["ResultRecorded"][1](f, w)


SAYS: dict[str, tuple[frozenset[str], Any]] = {
    **COMMON,
    "MatchEnded": (known("winner", "reason", "how"), _ended),
    "ResultRecorded": (known("winner", "reason"), _result_recorded),
    "Started": (known("match_id", "header", "catalog", "board", "rules_version", "source", "content_sha256"), started),
    "PlayerSetUp": (known("player", "dot", "life_base", "hand", "murphy"), _set_up),
    "CardDrawn": (known("player", "card", "unknown", "left_out"), _drawn),
    "PhaseEntered": (known("phase"),
                     lambda f, w: f"The {PHASES.get(f.get('phase'), str(f.get('phase')).capitalize() + ' Phase')} "
                                  f"begins"),
    "CrystalCast": (known("player", "card", "pay", "counters", "unnamed"),
                    lambda f, w: f"{w.who(f.get('player'))} casts the Energy Crystal {w.card(f.get('card'))}"
                                 f"{_paying(f.get('pay'))}"),
    "EnergyAdded": (known("player", "uid", "type", "amount"),
                    lambda f, w: f"{w.who(f.get('player'))} adds {_energy({f.get('type'): f.get('amount')})}"),
    "Announced": (known("player", "entry", "pay"), _announced),
    "ActionFailed": (known("player", "kind", "pay"),
                     lambda f, w: f"{w.who(f.get('player'))}'s {compact(f.get('kind'))} fails: its cost cannot be "
                                  f"met" + (f" ({_energy(f.get('pay'))} spent)" if _energy(f.get("pay")) else "")),
    "Passed": (known("player"), lambda f, w: f"{w.who(f.get('player'))} passes"),
    "Resolved": (known("outcome", "facts"), _resolved),
    "EffectApplied": (known("player", "source", "op", "args"), _effect),
    "Destroyed": (known("dot", "uid", "code", "cause"),
                  lambda f, w, before=None: _left(f"{w.card(f.get('code'))} on {f.get('dot')}", f, before)),
    "PermanentLeft": (known("uid", "code", "cause"),
                      lambda f, w, before=None: _left(w.card(f.get("code")), f, before)),
    "TurnEnded": (known("player", "discard", "unnamed"), lambda f, w: f"{w.who(f.get('player'))} ends the turn{discarding(f, w)}"),
    "LateRecord": (known("player", "discard"),
                   lambda f, w: f"{w.who(f.get('player'))}'s record comes late (what it says had already happened)"
                                f"{discarding(f, w)}"),
    "ViolationRecorded": (known("rule", "message", "turn", "player"), violation),
}


# a game whose sentences may read the state an event was applied to (``Game.narrate``'s ``before``)
SEES_BEFORE = True
# the kinds written with it (the cards of an attack, a move, a battle's damage, a target, an effect's source and object)
READS_BEFORE = frozenset({"Announced", "Resolved", "EffectApplied", "Destroyed", "PermanentLeft", "ResultRecorded"})


def sentence(kind: str, fields: F, words: Words, before: Any = None) -> str | None:
    """``kind``'s sentence (None: X610Z does not say it; ``Game.narrate`` then writes the fields). ``before``: the
    state the event was applied to, where a sentence reads what is public there and its fields leave out (the cards
    of an attack's summons: ``_attack``)."""
    return say(SAYS, kind, fields, words, before, READS_BEFORE)
