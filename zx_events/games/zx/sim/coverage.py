"""Which rules a set of matches exercised, counted from the engine's own events (not the log).

``features(events)`` reads the events a checked match recorded (``Checked.match.pending_events``
after ``build_match``, or events loaded from the store), so a count says what the rules engine
saw happen: a Range attack is an ``AttackDeclared`` whose distance needed Range (1104), a Reload
is a ``Reloaded`` event (902), and so on.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

FEATURES = (
    "battle_on_zx", "battle_on_player", "range_attack", "zx_destroyed", "ignition", "ignition_play",
    "life_ignite", "charge_excess", "reload", "life_recovery", "void_bringer", "mulligan", "dynamis_play",
    "event_in_battle", "win_by_life", "concession", "draw", "unfinished",
    # issue 15: every Overboost, Shift, Link, startup and Ignition path
    "overboost", "shift", "link", "startup", "startup_in_battle", "ignition_no_play", "ignition_play_zx",
    "ignition_play_event", "life_ignite_zx", "life_ignite_event",
)


def features(events: Iterable[Any]) -> Counter:
    """How often each feature of ``FEATURES`` occurs in one match's events."""
    c: Counter = Counter()
    ended = False
    in_battle = False
    for e in events:
        name = type(e).__name__
        if name == "AttackDeclared":
            c["battle_on_zx" if e.target_kind == "zx" else "battle_on_player"] += 1
            c["range_attack"] += bool(e.range_used)
            in_battle = True
        elif name in ("BattleEnded", "BattleDamageDealt"):
            in_battle = False
        elif name == "ZXDestroyed":
            c["zx_destroyed"] += 1
        elif name == "IgnitionPerformed":
            c["ignition"] += 1
            c["ignition_play"] += e.play is not None
            if e.play is None:
                c["ignition_no_play"] += 1
            else:
                c["ignition_play_zx" if e.play.get("square") else "ignition_play_event"] += 1
        elif name == "LifeDamaged":
            c["life_ignite"] += e.ignite is not None
            if e.ignite is not None:
                c["life_ignite_zx" if e.ignite.get("square") else "life_ignite_event"] += 1
        elif name == "AbilityPlayed":
            c["startup"] += 1
            c["startup_in_battle"] += in_battle
        elif name == "ChargeExcessTrashed":
            c["charge_excess"] += 1
        elif name == "Reloaded":
            c["reload"] += 1
        elif name == "EffectApplied":
            c["link"] += e.op == "link"
            c["overboost"] += e.op == "overboost"
            c["life_recovery"] += e.op == "recover"
            c["void_bringer"] += e.op == "move" and e.args.get("resolves", "").startswith("void:")
        elif name == "PlayerSetUp":
            c["mulligan"] += e.mulligan is not None
        elif name == "CardPlayed":
            c["dynamis_play"] += e.zone == "dynamis"
            c["overboost"] += e.kind == "ob"
            c["shift"] += e.kind == "shift"
            c["event_in_battle"] += in_battle
        elif name == "MatchEnded":
            ended = True
            key = {"life": "win_by_life", "concede": "concession", "draw": "draw"}.get(e.reason)
            if key:
                c[key] += 1
    if not ended:
        c["unfinished"] += 1
    return c
