"""Simulated X610Z matches between the sample decks: legal by construction, deterministic by seed.

Every record is handed at once to a strict ``Referee`` (the real engine), so an illegal choice
would raise here, never at import. The policy is simple and greedy: cast a crystal, pay exactly
(activating crystals first), cast summons on the Summon Dot, use a few effects, walk the Life Base
towards an Ending Dot now and then, move the other summons towards the opponent and attack what is
in Range; the reactive player sometimes answers with a Bullseye on the stack.
"""

from __future__ import annotations

import json
import random
from collections import deque
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from zx_events.games.simfiles import SimFile  # noqa: F401  (what write_files yields)
from zx_events.games.simfiles import write_files as _write_files

from . import checks
from .board import Board, load_board
from .cards import COLORLESS, Catalog, load_catalog
from .decks import sample_decks
from .match import HAND_LIMIT, other, stat
from .setup import open_match

MAX_TURNS = 60
BOARD = "x610z-orbits-sample"


@dataclass
class SimMatch:
    header: dict
    records: list[dict]
    turns: int
    winner: str | None
    reason: str | None
    events: int = 0
    policies: dict = field(default_factory=dict)

    @property
    def match_id(self) -> str:
        return self.header["match"]

    def lines(self) -> list[str]:
        return [json.dumps(self.header, ensure_ascii=False)] + [json.dumps(r, ensure_ascii=False) for r in self.records]


class _Play:
    def __init__(self, header: dict, cat: Catalog, board: Board, rng: random.Random, max_turns: int):
        self.cat, self.board, self.rng, self.max_turns = cat, board, rng, max_turns
        self.m, self.ref = open_match(header, cat, board, source=header["match"])
        self.records: list[dict] = []
        self.decks: dict[str, list[str]] = {}
        for pl in ("P1", "P2"):
            deck = [c for c in self.m.p[pl]["deck"] if not cat[c].is_life_base]
            rng.shuffle(deck)
            self.decks[pl] = deck

    # ------------------------------------------------------------------ plumbing
    def apply(self, rec: dict) -> None:
        self.records.append(rec)
        self.ref.handle(len(self.records) + 1, rec)

    @property
    def over(self) -> bool:
        return self.m.outcome is not None

    def draw_top(self, pl: str, n: int = 1) -> list[str]:
        out = self.decks[pl][:n]
        del self.decks[pl][:n]
        return out

    # ------------------------------------------------------------------ energy
    def plan(self, pl: str, cost: dict) -> tuple[list[dict], dict] | None:
        """Energy records and the exact payment for ``cost``, or None when it cannot be paid."""
        pool = dict(self.m.p[pl]["pool"])
        ready = [p for p in self.m.perms if p["kind"] == "crystal" and p["ctrl"] == pl and not p["act"]]
        used: list[dict] = []
        pay: dict[str, int] = {}

        def take(types: Sequence[str] | None, n: int) -> int:
            for t in list(pool):
                if n and (types is None or t in types) and pool[t] > 0 and (types is not None or True):
                    k = min(n, pool[t])
                    pool[t] -= k
                    pay[t] = pay.get(t, 0) + k
                    n -= k
            for p in ready:
                if not n:
                    break
                if p in [u["perm"] for u in used]:
                    continue
                for alt in self.cat[p["code"]].produces:
                    t = next(iter(alt))
                    if types is None or t in types:
                        amount = alt[t]
                        used.append({"perm": p, "type": t if len(self.cat[p["code"]].produces) > 1 else None})
                        give = min(n, amount)
                        pay[t] = pay.get(t, 0) + give
                        pool[t] = pool.get(t, 0) + amount - give
                        n -= give
                        break
            return n

        for t, n in cost.items():
            if t != COLORLESS and take((t,), n):
                return None
        if cost.get(COLORLESS) and take(None, cost[COLORLESS]):
            return None
        recs = []
        for u in used:
            rec = {"do": "energy", "by": pl, "crystal": u["perm"]["code"]}
            if u["type"]:
                rec["type"] = u["type"]
            recs.append(rec)
        return recs, {t: n for t, n in pay.items() if n}

    def pay_and(self, pl: str, cost: dict, rec: dict) -> bool:
        got = self.plan(pl, cost)
        if got is None:
            return False
        for e in got[0]:
            self.apply(e)
        self.apply({**rec, "pay": got[1]})
        return True

    # ------------------------------------------------------------------ the stack
    def resolve_all(self, pl: str) -> None:
        """Pass until the stack is empty; the reactive player may answer; effects follow resolutions."""
        m = self.m
        while m.stack and not self.over:
            top = m.stack[-1]
            holder = m.prio
            if holder != m.active and self.rng.random() < 0.25 and self.answer(holder):
                continue
            self.apply({"do": "pass", "by": holder})
            if not self.over and (not m.stack or m.stack[-1] is not top) and top not in m.stack:
                self.after(top)
                self.ref.end_resolution()  # (its effects written: 210.5 and 210.8 now, as the next record would)

    def answer(self, pl: str) -> bool:
        """A reactive Bullseye on an enemy summon (a non permanent, 206.2a)."""
        if "A1-030" not in self.m.p[pl]["hand"]:
            return False
        target = self.enemy_target(pl)
        if target is None:
            return False
        return self.pay_and(pl, self.cat["A1-030"].cost, {"do": "cast", "by": pl, "card": "A1-030", "target": target})

    def enemy_target(self, pl: str) -> str | None:
        dots = [d for d, e in self.m.dots.items() if e["ctrl"] != pl]
        if not dots:
            return None
        return min(dots, key=lambda d: (stat(self.m.dots[d], "defense") - self.m.dots[d]["dmg"], d))

    def after(self, entry: dict) -> None:
        """What the resolved card or ability did, as effect records (the engine does not read text)."""
        m, by = self.m, entry["by"]
        if self.over:
            return
        code = entry.get("card")
        target = entry.get("target") or {}
        tdot = m.find(target["uid"])[0] if isinstance(target, dict) and "uid" in target else None

        def eff(**kw):
            self.apply({"do": "effect", "by": by, "source": kw.pop("source", code), **kw})

        if entry["kind"] == "cast":
            if code == "A1-030" and tdot:
                eff(op="damage", dot=tdot, amount=3 if entry.get("additional") else 2)
            elif code == "A1-031":
                cards = self.draw_top(by, 2)
                if cards:
                    eff(op="draw", cards=cards)
            elif code == "A1-032" and tdot:
                eff(op="heal", dot=tdot, amount=2)
            elif code == "A1-033" and tdot:
                eff(op="stat", dot=tdot, stat="attack", delta=2, until="end_of_turn")
            elif code == "A1-040" and tdot:
                eff(op="stat", dot=tdot, stat="speed", delta=1, until="permanent")
            elif code == "A1-024":
                dot = entry.get("dot")
                target = self.enemy_target(by)
                if dot in m.dots and target is not None:
                    self.apply({"do": "trigger", "by": by, "source": dot, "target": target})
                    self.resolve_all(by)
        elif entry["kind"] == "trigger":
            t = entry.get("target")
            if isinstance(t, str) and t in m.dots and entry["source"] in m.dots:
                eff(source=entry["source"], op="damage", dot=t, amount=1)
        elif entry["kind"] == "activate" and code == "A1-050":
            t = entry.get("target") or {}
            d = m.find(t.get("uid"))[0] if isinstance(t, dict) else None
            if d:
                eff(op="stat", dot=d, stat="range", delta=1, until="end_of_turn")
        elif entry["kind"] == "ability":
            d = m.find(entry["uid"])[0]
            if d and entry["ability"] == "paid":
                eff(source=d, op="stat", dot=d, stat="attack", delta=1, until="end_of_turn")
            elif d and entry["ability"] == "activated" and m.dots[d]["dmg"]:
                eff(source=d, op="heal", dot=d, amount=1)

    # ------------------------------------------------------------------ geometry
    def paths(self, src: str, length: int, *, life: bool, home: str, attack: bool) -> Iterator[list[str]]:
        b = self.board
        stack = [[src]]
        while stack:
            path = stack.pop()
            if len(path) > 1:
                yield path[1:]
            if len(path) - 1 >= length:
                continue
            here = path[-1]
            nxt = list(b.neighbours(here))
            if not attack and not life:
                if here == home:
                    nxt += b.ends()
                elif b.dots[here].is_end:
                    nxt.append(home)
            for d in nxt:
                if d in path:
                    continue
                if checks.step_problem(b, here, d, life=life, home=home, attack=attack):
                    continue
                if attack and len(path) > 1 and b.dots[here].warp:
                    continue  # 604.4
                cand = path + [d]
                if b.sharp_turns(cand[-3:]):
                    continue
                stack.append(cand)

    def distance(self, goals: set[str], avoid: set[str]) -> dict[str, int]:
        dist = {g: 0 for g in goals}
        q = deque(goals)
        while q:
            d = q.popleft()
            for n in self.board.neighbours(d):
                if n not in dist and n not in avoid:
                    dist[n] = dist[d] + 1
                    q.append(n)
        return dist

    # ------------------------------------------------------------------ a turn
    def setup(self, pl: str) -> None:
        hand = self.draw_top(pl, 7)
        rec = {"do": "setup", "by": pl, "dot": "", "hand": list(hand)}
        if not any(self.cat[c].is_crystal for c in hand):  # 105.4 Murphy's Law, once
            self.decks[pl].extend(hand)
            self.rng.shuffle(self.decks[pl])
            rec["murphy"] = [self.draw_top(pl, 6)]
        opp = self.m.p[other(pl)]["home"]
        rec["dot"] = self.board.opposite[opp] if opp else self.rng.choice(sorted(self.board.opposite))
        self.apply(rec)

    def turn(self, pl: str) -> None:
        m = self.m
        self.apply({"do": "turn", "by": pl})
        if self.over:
            return
        self.apply({"do": "draw", "by": pl, "card": self.draw_top(pl)[0]})
        crystals = [c for c in m.p[pl]["hand"] if self.cat[c].is_crystal]
        if crystals:
            code = min(crystals, key=lambda c: (bool(self.cat[c].cost), c))
            card = self.cat[code]
            if not card.cost:
                self.apply({"do": "crystal", "by": pl, "card": code})
            else:
                self.pay_and(pl, card.cost, {"do": "crystal", "by": pl, "card": code})
        for step in (self.cast_summons, self.cast_spells, self.use_abilities, self.move_all, self.attack_all):
            if self.over:
                return
            step(pl)
        if self.over:
            return
        z = m.p[pl]
        extra = max(0, len(z["hand"]) - HAND_LIMIT)
        order = sorted(z["hand"], key=lambda c: (not self.cat[c].is_crystal, c))
        self.apply({"do": "end", "by": pl, **({"discard": order[:extra]} if extra else {})})

    def cast_summons(self, pl: str) -> None:
        m = self.m
        for code in sorted(set(m.p[pl]["hand"])):
            card = self.cat[code]
            if not card.is_summon or any(e["ctrl"] == pl and e["cls"] == card.cls for e in m.dots.values()):
                continue
            home = m.p[pl]["home"]
            free_ends = [d for d in self.board.ends() if d not in m.dots]
            dot = home if home not in m.dots else (self.rng.choice(free_ends) if free_ends and self.rng.random() < 0.3 else None)
            if dot is None:
                continue
            if self.pay_and(pl, card.cost, {"do": "cast", "by": pl, "card": code, "dot": dot}):
                self.resolve_all(pl)
                if self.over:
                    return

    def own(self, pl: str, pred=lambda e: True) -> list[str]:
        return sorted(d for d, e in self.m.dots.items() if e["ctrl"] == pl and pred(e))

    def cast_spells(self, pl: str) -> None:
        m, rng = self.m, self.rng
        for code in sorted(set(m.p[pl]["hand"])):
            if self.over or code not in m.p[pl]["hand"] or rng.random() < 0.4:
                continue
            card = self.cat[code]
            rec = {"do": "cast", "by": pl, "card": code}
            if code == "A1-030":
                rec["target"] = self.enemy_target(pl)
                if rec["target"] is None:
                    continue
                if rng.random() < 0.3:
                    rec["additional"] = 1
            elif code == "A1-031":
                if len(self.decks[pl]) < 6:
                    continue
            elif code == "A1-032":
                hurt = self.own(pl, lambda e: e["dmg"] > 0)
                if not hurt:
                    continue
                rec["target"] = hurt[0]
            elif code == "A1-033":
                dragons = self.own(pl, lambda e: e["cls"] == card.cls)
                if not dragons:
                    continue
                rec["target"] = dragons[0]
            elif code == "A1-040":
                mine = self.own(pl)
                rec["target"] = rng.choice(mine)
            elif code == "A1-034":
                crystals = [p["code"] for p in m.perms if p["kind"] == "crystal" and p["ctrl"] == pl]
                if not crystals:
                    continue
                rec["target"] = crystals[0]
            elif code == "A1-050":
                pass
            else:
                continue
            cost = checks.add(card.cost, card.additional_cost, rec.get("additional", 0))
            if self.pay_and(pl, cost, rec):
                self.resolve_all(pl)

    def use_abilities(self, pl: str) -> None:
        m = self.m
        for p in [p for p in m.perms if p["code"] == "A1-050" and p["ctrl"] == pl and not p["act"]]:
            mine = self.own(pl, lambda e: not e["life"])
            if mine and self.rng.random() < 0.5:
                if self.pay_and(pl, self.cat["A1-050"].activation_cost, {"do": "activate", "by": pl, "effect": "A1-050",
                                                                         "target": mine[0]}):
                    self.resolve_all(pl)
                    if self.over:
                        return
        for dot in self.own(pl):
            e = m.dots.get(dot)
            if e is None:
                continue
            card = self.cat[e["code"]]
            for kind in ("paid", "activated"):
                if kind in card.abilities and kind not in e["abil"] and not (kind == "activated" and (e["act"] or not e["dmg"])):
                    if self.pay_and(pl, card.abilities[kind], {"do": "ability", "by": pl, "summon": dot, "kind": kind}):
                        self.resolve_all(pl)
                        if self.over:
                            return

    def move_all(self, pl: str) -> None:
        m, b, rng = self.m, self.board, self.rng
        home = m.p[pl]["home"]
        foe = [d for d, e in m.dots.items() if e["ctrl"] != pl]
        foe_starts = {d for d in b.starts() if d != home}
        to_foe = self.distance(set(foe), set()) if foe else {}
        to_end = self.distance(set(b.ends()), foe_starts)
        for dot in self.own(pl):
            e = m.dots.get(dot)
            if e is None or e["act"] or e["deact"] or self.over:
                continue
            if e["life"] and rng.random() > 0.35:
                continue
            options = []
            for path in self.paths(dot, stat(e, "speed"), life=e["life"], home=home, attack=False):
                dest = path[-1]
                if dest in m.dots or dest in foe_starts:
                    continue
                if not e["life"] and b.dots[dest].is_end:
                    continue
                if checks.direction(b, e["trail"], e["pos"], e.get("via"), dot, path, "move")[0]:
                    continue
                if e["life"]:
                    score = -100 if b.dots[dest].is_end else to_end.get(dest, 99)
                else:
                    score = to_foe.get(dest, 99) + (3 if b.dots[dest].no_attack else 0)
                options.append((score, len(path), path))
            if not options:
                continue
            options.sort()
            path = options[0][2]
            if self.pay_and(pl, self.cat[e["code"]].move_cost, {"do": "move", "by": pl, "from": dot, "path": path}):
                self.resolve_all(pl)

    def attack_all(self, pl: str) -> None:
        m, b = self.m, self.board
        for dot in self.own(pl):
            e = m.dots.get(dot)
            if e is None or e["deact"] or e["attacks"] or b.dots[dot].no_attack or self.over:
                continue
            best = None
            for path in self.paths(dot, stat(e, "range"), life=e["life"], home="", attack=True):
                t = m.dots.get(path[-1])
                if t is None or t["ctrl"] == pl or b.dots[path[-1]].no_attack:
                    continue
                if any(d in m.dots and m.dots[d]["ctrl"] == pl and False for d in path):
                    continue
                if checks.direction(b, e["trail"], e["pos"], e.get("via"), dot, path, "attack")[0]:
                    continue
                left = stat(t, "defense") - t["dmg"]
                key = (not t["life"] and left > stat(e, "attack"), left, len(path))
                if best is None or key < best[0]:
                    best = (key, path)
            if best is not None:
                path = best[1]
                self.apply({"do": "attack", "by": pl, "from": dot, "target": path[-1], "path": path})
                self.resolve_all(pl)

    def run(self) -> None:
        first = self.m.first
        self.setup(first)
        self.setup(other(first))
        pl = first
        while not self.over:
            if self.m.turn >= self.max_turns:
                self.apply({"do": "result", "by": first, "winner": None, "reason": "time"})
                return
            self.turn(pl)
            if not self.over:
                lb = next((e for e in self.m.dots.values() if e["life"] and e["ctrl"] == pl), None)
                foe = sum(1 for e in self.m.dots.values() if e["ctrl"] != pl)
                if lb is not None and lb["dmg"] >= 7 and foe >= 3 and self.rng.random() < 0.3:
                    self.apply({"do": "concede", "by": pl})
                    break
            pl = self.m.turns_queue[0] if self.m.turns_queue else other(pl)
        out = self.m.outcome
        self.apply({"do": "result", "by": first, "winner": out["winner"], "reason": out["reason"]})


def match_header(seed: int, n: int, pair: tuple[dict, dict], fmt: str, catalog: str) -> dict:
    """The header of the match of index ``n`` (from 0): id ``x610z-sim-<seed>-<n + 1>``, numbered from 1
    in 4 digits or more, as its files and Z/X's matches (it was ``-000000``, 6 digits from 0)."""
    h = {"x610zlog": 1, "rules": "x610z-cr-1.1", "match": f"x610z-sim-{seed}-{n + 1:04d}",
         "played_at": f"2026-11-{1 + n % 28:02d}T{10 + n % 10:02d}:00:00+00:00", "event": "X610Z simulation",
         "round": n + 1, "format": fmt, "catalog": catalog, "board": BOARD, "first": "P1", "players": {}}
    for pl, d in zip(("P1", "P2"), pair):
        entry = {"name": f"{pl} bot", "deck_name": d["name"], "deck": dict(d["deck"])}
        if d.get("side"):
            entry["side"] = dict(d["side"])
        h["players"][pl] = entry
    return h


def deck_names() -> list[str]:
    return [d["name"] for d in sample_decks()["decks"]]


def simulate(matches: int, seed: int, *, decks: Sequence[str] | None = None, max_turns: int = MAX_TURNS,
             start: int = 0, **_: object) -> Iterator[SimMatch]:
    """``matches`` legal matches, of index ``start`` on (from 0: match id ``...-0001``, as
    ``match_header``); the same seed gives the same logs."""
    data = sample_decks()
    pool = [d for d in data["decks"] if decks is None or d["name"] in decks]
    cat = load_catalog(data["catalog"])
    board = load_board(BOARD)
    pairs = [(a, b) for a in pool for b in pool if a is not b] or [(pool[0], pool[0])]
    for n in range(start, start + matches):
        rng = random.Random(f"x610z:{seed}:{n}")
        header = match_header(seed, n, pairs[n % len(pairs)], data["format"], data["catalog"])
        play = _Play(header, cat, board, rng, max_turns)
        play.run()
        out = play.m.outcome or {}
        yield SimMatch(header, play.records, play.m.turn, out.get("winner"), out.get("reason"),
                       len(play.m.pending_events))


def write_files(out, seed: int, sims: Iterator[SimMatch], per_file: int = 1, before=None) -> Iterator[SimFile]:
    """Write the matches ``per_file`` to a file, ``<out>/x610z-sim-<seed>-<k>.x610zlog``."""
    return _write_files(out, f"x610z-sim-{seed}-{{k:04d}}.x610zlog", sims, per_file, before)
