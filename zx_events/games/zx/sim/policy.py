"""Simple players: each picks one record out of the legal ones (``zx_events.games.zx.engine.legal``).

- ``Random``: a uniformly random kind of action (weighted so turns are not all ended at once), then
  a uniformly random record of that kind.
- ``Greedy``: puts its weakest card into Resource, ignites when its hand is small, plays the
  highest Power Z/X it can pay on the most useful Square, attacks when the attack destroys a Z/X
  or hits the player, and ends the turn otherwise.

A Z/X Overboost is a free 10000 Z/X whose controller cannot be damaged (202.7e, 604.3c), which
would stall simulated matches if joined whenever listed: ``Random`` joins one in 0.4% of the
decisions where one is listed, and plays the lister's sample startup ability (a Link, 807) in 5% of
those where one is listed; ``Greedy`` does neither. Those two draws come from a second generator
(``explore``, seeded from the match id), so the main choices are unchanged until one is taken.

Both pick a Life card for the attacker's side at random among the damaged player's Life cards
(604.3b) and the Life card that a Reload sends to Charge (902, the opponent's pick) at random. Choices depend only on the state, the
options (in the lister's stable order) and the seeded ``random.Random``: never on set or hash order.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from zx_events.games.zx.board import Square, player_square
from zx_events.games.zx.cards import CardType, Catalog
from zx_events.games.zx.match import Match, other, power_of

_RANDOM_WEIGHTS = {"resource": 1.0, "ignition": 0.6, "play": 2.0, "attack": 2.5, "end": 0.8}


class Policy(ABC):
    name = "policy"

    def choose(self, m: Match, cat: Catalog, player: str, options: list[dict], rng: random.Random) -> dict:
        """One of ``options`` (the lister's records, ``concede`` last)."""
        opts = [o for o in options if o["do"] != "concede" and not _is_overboost(cat, o) and not o.get("startup")]
        # the rarer paths (202.7 Overboost, 807 startup abilities) are drawn from a second generator,
        # so a match where none is taken makes exactly the choices it made before they were listed
        boosts = [o for o in options if _is_overboost(cat, o)]
        starts = [o for o in options if o.get("startup")]
        if self.explore is not None:
            if boosts and self.explore.random() < self.overboost_chance:
                return self.explore.choice(boosts)
            if starts and self.explore.random() < self.startup_chance:
                return self.explore.choice(starts)
        if not opts:  # nothing legal but conceding: a deck that ran out with an empty Trash
            return options[-1]
        if len(opts) == 1:
            return opts[0]
        kind = opts[0]["do"]
        if kind == "reload":  # 902: the opponent picks which Life card goes to Charge
            return rng.choice(opts)
        if kind == "life":  # 604.3b: the attacker's side picks the Life card, its owner may ignite it
            code = rng.choice(m.p[player]["life"])
            return self.life(m, cat, player, [o for o in opts if o["card"] == code], rng)
        if kind == "charge_excess":
            return self.excess(cat, opts, rng)
        if kind == "effect":  # an obligation: Void Bringer (1103)
            return self.void(m, player, opts, rng)
        if kind == "pass":
            return self.event_step(opts, rng)
        return self.turn(m, cat, player, opts, rng)

    overboost_chance = 0.0  # how often to join a listed Z/X Overboost (202.7)
    startup_chance = 0.0  # how often to play a listed startup ability (807)

    def __init__(self, explore: random.Random | None = None) -> None:
        self.explore = explore

    @abstractmethod
    def mulligan(self, cat: Catalog, hand: list[str], rng: random.Random) -> bool:
        """Whether to return the opening hand and draw 4 again (402)."""

    @abstractmethod
    def life(self, m: Match, cat: Catalog, player: str, opts: list[dict], rng: random.Random) -> dict:
        """The Life card's record, given the card the attacker's side picked: ignite it or not."""

    @abstractmethod
    def excess(self, cat: Catalog, opts: list[dict], rng: random.Random) -> dict:
        """Which Charge cards go to Trash (905)."""

    @abstractmethod
    def void(self, m: Match, player: str, opts: list[dict], rng: random.Random) -> dict:
        """Which card on Square Void Bringer puts into Trash (1103)."""

    @abstractmethod
    def event_step(self, opts: list[dict], rng: random.Random) -> dict:
        """Pass (the first option) or play an Event in the Battle Event Step (603)."""

    @abstractmethod
    def turn(self, m: Match, cat: Catalog, player: str, opts: list[dict], rng: random.Random) -> dict:
        """The turn player's next record: Resource, Ignition, a play, an attack, or the end."""


def _is_overboost(cat: Catalog, rec: dict) -> bool:
    return rec.get("from") == "dynamis" and cat[rec["card"]].type == CardType.ZX_OB


def value(cat: Catalog, code: str) -> int:
    """How much a card is worth keeping: a Z/X its Power, an IG card a little more, an Event little."""
    card = cat[code]
    v = card.power or 1000
    return v + (500 if card.ignition else 0)


class Random(Policy):
    name = "random"

    overboost_chance = 0.004
    startup_chance = 0.05

    def mulligan(self, cat, hand, rng):
        return rng.random() < 0.25

    def life(self, m, cat, player, opts, rng):
        return rng.choice(opts)

    def excess(self, cat, opts, rng):
        return rng.choice(opts)

    def void(self, m, player, opts, rng):
        return rng.choice(opts)

    def event_step(self, opts, rng):
        return opts[0] if rng.random() < 0.85 else rng.choice(opts)

    def turn(self, m, cat, player, opts, rng):
        kinds = list(dict.fromkeys(o["do"] for o in opts))
        weights = [_RANDOM_WEIGHTS.get(k, 1.0) for k in kinds]
        kind = rng.choices(kinds, weights)[0]
        return rng.choice([o for o in opts if o["do"] == kind])


class Greedy(Policy):
    name = "greedy"


    def mulligan(self, cat, hand, rng):
        """Redraw a hand with no Z/X it can play in its first two turns."""
        return not any(cat[c].is_zx and (cat[c].cost or 0) <= 2 for c in hand)

    def life(self, m, cat, player, opts, rng):
        ignites = [o for o in opts if "ignite" in o]
        if not ignites:
            return opts[0]
        card = cat[ignites[0]["card"]]
        return max(ignites, key=lambda o: _square_score(m, player, o["ignite"].get("square"), card.power))

    def excess(self, cat, opts, rng):
        return min(opts, key=lambda o: sum(value(cat, c) for c in o["trash"]))

    def void(self, m, player, opts, rng):
        opp = other(player)

        def score(o: dict) -> int:
            e = m.sq[o["square"]]
            p = power_of(e)
            return p if e["ctrl"] == opp else -p

        return max(opts, key=score)

    def event_step(self, opts, rng):
        return opts[0]  # pass: the sample Events carry no effects the simulator writes

    def turn(self, m, cat, player, opts, rng):
        by: dict[str, list[dict]] = {}
        for o in opts:
            by.setdefault(o["do"], []).append(o)
        z = m.p[player]
        if "resource" in by and len(z["hand"]) >= 2 and len(z["resource"]) < 8:  # 504.3
            return min(by["resource"], key=lambda o: value(cat, o["card"]))
        if "ignition" in by and len(z["hand"]) <= 3:  # 505.3: dig for IG cards when the hand is small
            plays = [o for o in by["ignition"] if "play" in o]
            if plays:
                card = cat[plays[0]["revealed"]]
                return max(plays, key=lambda o: _square_score(m, player, o["play"].get("square"), card.power))
            return by["ignition"][0]
        zx = [o for o in by.get("play", []) if cat[o["card"]].is_zx]
        if zx:
            best = max(cat[o["card"]].power for o in zx)
            strongest = [o for o in zx if cat[o["card"]].power == best]
            pick = max(strongest, key=lambda o: _square_score(m, player, o["square"], best))
            if _square_score(m, player, pick["square"], best) > -100:
                return pick
        hit = _best_attack(m, by.get("attack", []))
        if hit is not None:
            return hit
        return min(by["end"], key=lambda o: sum(value(cat, c) for c in o.get("discard", [])))


def _square_score(m: Match, player: str, square: str | None, power: int | None) -> float:
    """Where a new Z/X does most good: guarding your Player Square, then next to the opponent's."""
    if square is None:
        return 0.0
    e = m.sq[square]
    if e is not None:  # replacing your own Z/X sends it to Trash: only for a stronger one
        gain = (power or 0) - power_of(e)
        return gain / 10000 - 1 if gain > 0 else -1000.0
    s = Square.parse(square)
    score = 0.0
    if s == player_square(player):
        score += 3  # an occupied Player Square cannot be attacked (602.1b)
    if s.is_next_to(player_square(other(player))):
        score += 2
    return score


def _best_attack(m: Match, attacks: list[dict]) -> dict | None:
    """An attack that hits the player, else the one destroying the strongest Z/X; None if neither."""
    best, best_score = None, 0
    for o in attacks:
        target = m.sq[o["target"]]
        if target is None:
            score = 100_000  # 604.3b: one Life card
        else:
            att = power_of(m.sq[o["from"]])
            left = power_of(target) - target["dmg"]
            score = power_of(target) if att >= left else 0
        if score > best_score:
            best, best_score = o, score
    return best


POLICIES = {"greedy": Greedy, "random": Random}
