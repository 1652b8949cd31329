"""Play one complete match: the real Match and Referee decide what is legal at every step.

The loop asks who acts next (``legal.to_act``), lists that player's legal records with the real
deck order (``HiddenDecks``), lets the player's policy pick one, and hands it to a strict
``Referee`` at once, so a log this module writes is legal by construction: an illegal pick would
raise here, not at import. The match ends when the engine says so (0 Life: a ``result`` record
follows), when a player concedes (101.4), or at the turn cap (the trailing player concedes; with
Life level the log simply stops, without a result).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from zx_events.games.zx.cards import Catalog
from zx_events.games.zx.engine.legal import legal_records, to_act
from zx_events.errors import RuleViolation
from zx_events.games.zx.setup import open_match
from zx_events.games.zx.match import other, power_of
from zx_events.games.zx.sim.hidden import HiddenDecks
from zx_events.games.zx.sim.policy import Policy

MAX_TURNS = 60
CONCEDE_CHANCE = 0.15  # a player at 1 Life facing a much larger board concedes this often


@dataclass
class SimMatch:
    """One simulated match: its header and records (the log), and what happened."""

    header: dict
    records: list[dict]
    turns: int
    winner: str | None
    reason: str | None  # life, concede, draw, or None when the log stops at the turn cap
    events: int = 0  # events the engine recorded while checking it
    policies: dict[str, str] = field(default_factory=dict)

    @property
    def match_id(self) -> str:
        return self.header["match"]

    def lines(self) -> list[str]:
        """The match as JSON Lines: header first, one record a line."""
        return [json.dumps(self.header, ensure_ascii=False)] + \
               [json.dumps(r, ensure_ascii=False) for r in self.records]


class _Game:
    def __init__(self, header: dict, catalog: Catalog, policies: dict[str, Policy], rng: random.Random,
                 max_turns: int, check: bool) -> None:
        self.cat = catalog
        self.policies = policies
        self.rng = rng
        self.max_turns = max_turns
        self.check = check
        self.m, self.ref = open_match(header, catalog, source=header["match"])
        self.hidden = HiddenDecks(self.m, rng)
        self.records: list[dict] = []

    def apply(self, rec: dict) -> None:
        m, pl = self.m, rec["by"]
        try:
            self.ref.handle(len(self.records) + 2, rec)
        except RuleViolation as e:  # a bug in the lister or a policy, never bad luck
            raise RuntimeError(f"the simulator wrote an illegal record {json.dumps(rec)}: {e}") from e
        self.records.append(rec)
        kind = rec["do"]
        if kind == "draw":
            self.hidden.take(pl, rec["cards"])
        elif kind == "ignition":
            self.hidden.take(pl, [rec["revealed"]])
        elif kind == "effect" and rec["op"] == "recover":
            self.hidden.take(pl, [rec["card"]])
        elif kind == "reload":  # 902: the Trash, shuffled, is the new deck
            self.hidden.reshuffle(pl, m.p[pl]["deck"])
        if self.check and not self.hidden.agrees_with(m):
            raise RuntimeError(f"the hidden deck order disagrees with the state after {json.dumps(rec)}")

    def setup(self, pl: str) -> None:
        """402: draw 4, one optional mulligan (return all 4, shuffle, draw 4), Life 4, Resource 2."""
        hand = self.hidden.deal(pl, 4)
        rec: dict = {"do": "setup", "by": pl, "hand": hand}
        if self.policies[pl].mulligan(self.cat, hand, self.rng):
            self.hidden.put_back(pl, hand)
            rec["mulligan"] = self.hidden.deal(pl, 4)
        rec["life"] = self.hidden.deal(pl, 4)
        rec["resource"] = self.hidden.deal(pl, 2)
        self.apply(rec)

    def concedes(self, pl: str) -> bool:
        """At 1 Life, facing at least two Z/X and twice the Power on Square, sometimes give up."""
        m = self.m
        if len(m.p[pl]["life"]) != 1:
            return False
        theirs = [power_of(e) for e in m.sq.values() if e is not None and e["ctrl"] == other(pl)]
        mine = sum(power_of(e) for e in m.sq.values() if e is not None and e["ctrl"] == pl)
        return len(theirs) >= 2 and sum(theirs) >= 2 * mine + 3000 and self.rng.random() < CONCEDE_CHANCE

    def run(self) -> None:
        m = self.m
        for pl in ("P1", "P2"):
            self.setup(pl)
        while True:
            if m.outcome is not None:  # 101.2: the result agrees with the engine's outcome
                o = m.outcome
                self.apply({"do": "result", "by": o["winner"] or m.first, "winner": o["winner"],
                            "reason": o["reason"]})
                break
            who = to_act(m, self.cat)
            if m.phase == "over" and m.turn >= self.max_turns and who == other(m.active):
                lives = {pl: len(m.p[pl]["life"]) for pl in ("P1", "P2")}
                if lives["P1"] == lives["P2"]:
                    break  # the log stops: no result
                self.apply({"do": "concede", "by": min(lives, key=lives.get)})
                continue
            options = legal_records(m, self.cat, who, self.hidden)
            rec = self.policies[who].choose(m, self.cat, who, options, self.rng)
            self.apply(rec)
            if rec["do"] == "turn" and self.concedes(who):
                self.apply({"do": "concede", "by": who})
        self.ref.finish()


def play_match(header: dict, catalog: Catalog, policies: dict[str, Policy], rng: random.Random, *,
               max_turns: int = MAX_TURNS, check: bool = False) -> SimMatch:
    """Play the match ``header`` describes; ``check`` also verifies the hidden deck order each step."""
    g = _Game(header, catalog, policies, rng, max_turns, check)
    g.run()
    o = g.m.outcome or {}
    return SimMatch(header=header, records=g.records, turns=g.m.turn, winner=o.get("winner"),
                    reason=o.get("reason"), events=len(g.m.pending_events),
                    policies={pl: p.name for pl, p in policies.items()})

