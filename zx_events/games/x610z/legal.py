"""Legal actions: the X610Z log records the referee would accept next (like a chess library's
legal moves).

``legal_records(match, catalog, board, player)`` lists candidate records for ``player`` at this
point: setup, the turn record, the draw, an Energy Crystal Card, energy from each reactivated
crystal, casts, Effect activations, abilities, movements and attacks (every path within Speed or
Range), ``pass``, ``end``, ``concede`` and, once the game is over, ``result``. Payments are taken
from the Energy Pool as it stands (one exact payment per action: crystals are activated by their
own ``energy`` records first). Deliberate limits: ``effect`` and ``trigger`` records are not listed
(the engine does not read card text); a record the stack's answers depend on is listed only for
the priority holder.

Legality comes from the referee's own small checks (``checks.payment``, ``step_problem``,
``sharp``, ``direction``); ``is_legal`` is the oracle: the real referee, strict, on a copy.
"""

from __future__ import annotations

import copy
from itertools import combinations_with_replacement
from typing import Iterator, Protocol

from zx_events.errors import ZXError
from zx_events.seats import HIDDEN

from . import checks
from .board import Board
from .cards import COLORLESS, Catalog
from .match import HAND_LIMIT, Match, other, stat
from .referee import Referee


class DeckOrder(Protocol):
    def top(self, player: str, n: int) -> list[str]: ...


class StateOrder:
    """The state's own deck order (the simulator passes its real shuffled order instead)."""

    def __init__(self, m: Match, catalog: Catalog) -> None:
        self.m, self.cat = m, catalog

    def top(self, player: str, n: int) -> list[str]:
        deck = self.m.p[player]["deck"]
        if not self.m.p[player]["ready"]:
            deck = [c for c in deck if not self.cat[c].is_life_base]
        return list(deck[:n])


def to_act(m: Match) -> str | None:
    """Who records next: the setup player, the next turn's player, the drawing player, the
    priority holder (or the active player when priority is settled)."""
    if m.outcome is not None:
        return None
    if not all(z["ready"] for z in m.p.values()):
        return m.first if not m.p[m.first]["ready"] else other(m.first)
    if m.phase in ("setup", "over"):
        return m.first if m.turn == 0 else (m.turns_queue[0] if m.turns_queue else other(m.active))
    if m.phase == "draw" and not m.drawn:
        return m.active
    if m.phase == "closed":
        return m.active
    return m.prio or m.active


def exact_payments(cost: dict, pool: dict) -> list[dict]:
    """Every proper payment of ``cost`` out of ``pool`` (204.1b-c, 203.2b), or [] when none."""
    pay = {t: n for t, n in cost.items() if t != COLORLESS}
    if any(pool.get(t, 0) < n for t, n in pay.items()):
        return []
    need = cost.get(COLORLESS, 0)
    left = {t: pool.get(t, 0) - pay.get(t, 0) for t in pool}
    types = sorted(t for t, n in left.items() if n > 0)
    out = []
    for combo in combinations_with_replacement(types, need):
        extra = {t: combo.count(t) for t in set(combo)}
        if all(left[t] >= n for t, n in extra.items()):
            total = dict(pay)
            for t, n in extra.items():
                total[t] = total.get(t, 0) + n
            if total not in out:
                out.append({t: n for t, n in total.items() if n})
    return out if need or not cost or pay else [pay]


def paths(board: Board, src: str, length: int, *, life: bool, home: str | None, attack: bool) -> Iterator[list[str]]:
    """Every path from ``src`` of 1..``length`` steps with legal steps and no sharp turn."""
    stack = [[src]]
    while stack:
        path = stack.pop()
        if len(path) > 1:
            yield path[1:]
        if len(path) - 1 >= length:
            continue
        here = path[-1]
        nxt = list(board.neighbours(here))
        if not attack and not life and home:
            if here == home:
                nxt += board.ends()
            elif board.dots[here].is_end:
                nxt.append(home)
        for d in nxt:
            if d in path or checks.step_problem(board, here, d, life=life, home=home, attack=attack):
                continue
            if attack and len(path) > 1 and board.dots[here].warp:
                continue  # 604.4
            cand = path + [d]
            if not board.sharp_turns(cand[-3:]):
                stack.append(cand)


def _rec(do: str, by: str, **fields) -> dict:
    return {"do": do, "by": by, **fields}


def legal_records(m: Match, cat: Catalog, board: Board, player: str, order: DeckOrder | None = None) -> list[dict]:
    order = order or StateOrder(m, cat)
    out: list[dict] = []
    if m.outcome is not None:
        return [_rec("result", player, winner=m.outcome["winner"], reason=m.outcome["reason"])]
    out.append(_rec("concede", player))
    z = m.p[player]
    if not z["ready"]:
        if to_act(m) == player:
            opp = m.p[other(player)]["home"]
            dots = [board.opposite[opp]] if opp in board.opposite else sorted(board.opposite)
            hand = order.top(player, 7)
            out.extend(_rec("setup", player, dot=d, hand=hand) for d in dots if d not in m.dots)
        return out
    if m.phase in ("setup", "over"):
        if to_act(m) == player:
            out.append(_rec("turn", player))
        return out
    active = player == m.active
    for p in m.perms:  # 200.2, 201.3 (Table 1): energy needs no priority, in any phase
        if p["kind"] == "crystal" and p["ctrl"] == player and not p["act"]:
            alts = cat[p["code"]].produces
            if len(alts) == 1:
                out.append(_rec("energy", player, crystal=p["code"]))
            else:
                out.extend(_rec("energy", player, crystal=p["code"], type=next(iter(a))) for a in alts)
    out = _dedupe(out)
    if m.phase == "draw" and active and not m.drawn:
        top = order.top(player, 1)
        if top:
            out.append(_rec("draw", player, card=top[0]))
        return out
    pool = z["pool"]
    in_action = m.phase == "action" or (m.phase == "draw" and active and not m.stack)
    if active and in_action and not z["crystal_cast"]:
        for code in sorted({c for c in z["hand"] if c != HIDDEN and cat[c].is_crystal}):
            for pay in exact_payments(cat[code].cost, pool) if cat[code].cost else [None]:
                out.append(_rec("crystal", player, card=code, **({"pay": pay} if pay else {})))
    if m.phase != "closed" and m.prio in (player, None if active else "-"):
        out.extend(_casts(m, cat, board, player, in_action))
        if active and in_action:
            out.extend(_moves(m, cat, board, player))
            out.extend(_attacks(m, board, player))
        out.append(_rec("pass", player))
    if active and not m.stack and m.phase in ("draw", "action", "end", "closed") and (m.drawn or m.phase != "draw"):
        extra = max(0, len(z["hand"]) - HAND_LIMIT)  # (a card unknown, HIDDEN, is discarded last: its code unknown)
        out.append(_rec("end", player, **({"discard": sorted(z["hand"], key=lambda c: (c == HIDDEN, c))[:extra]}
                                           if extra else {})))
    return out


def _dedupe(recs: list[dict]) -> list[dict]:
    seen, out = set(), []
    for r in recs:
        key = repr(sorted(r.items()))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _targets(m: Match, cat: Catalog, player: str, kind: str | None, card) -> list:
    if kind is None:
        return [None]
    if kind in ("summon", "class"):
        return [d for d, e in sorted(m.dots.items()) if kind == "summon" or e["cls"] == card.cls]
    want = "crystal" if kind == "crystal" else "effect"
    return sorted({p["code"] for p in m.perms if p["kind"] == want})


def _casts(m: Match, cat: Catalog, board: Board, player: str, in_action: bool) -> Iterator[dict]:
    z = m.p[player]
    active = player == m.active
    for code in sorted(set(z["hand"]) - {HIDDEN}):  # (HIDDEN: a card unknown, of a setup left out)
        card = cat[code]
        if card.is_crystal:
            continue
        if card.permanent and not (active and in_action):
            continue
        if not card.permanent and m.phase not in ("action", "end") and not in_action:
            continue
        cost = card.cost
        for pay in exact_payments(cost, z["pool"]) if cost else [{}]:
            if card.is_summon:
                if any(e["ctrl"] == player and e["cls"] == card.cls for e in m.dots.values()):
                    continue
                dots = ([z["home"]] if z["home"] else []) + board.ends()
                for d in dict.fromkeys(dots):
                    if d not in m.dots:
                        yield _rec("cast", player, card=code, pay=pay, dot=d)
            else:
                for t in _targets(m, cat, player, card.targets, card):
                    yield _rec("cast", player, card=code, pay=pay, **({"target": t} if t else {}))
    for p in m.perms:
        card = cat[p["code"]]
        if p["ctrl"] == player and not p["act"] and card.activation_cost is not None:
            for pay in exact_payments(card.activation_cost, z["pool"]) if card.activation_cost else [{}]:
                yield _rec("activate", player, effect=p["code"], pay=pay)
    for dot, e in sorted(m.dots.items()):
        if e["ctrl"] != player:
            continue
        for kind, cost in cat[e["code"]].abilities.items():
            if kind in ("activated", "paid") and kind not in e["abil"] and not (kind == "activated" and e["act"]):
                for pay in exact_payments(cost, z["pool"]) if cost else [{}]:
                    yield _rec("ability", player, summon=dot, kind=kind, pay=pay)


def _moves(m: Match, cat: Catalog, board: Board, player: str) -> Iterator[dict]:
    home = m.p[player]["home"]
    for dot, e in sorted(m.dots.items()):
        if e["ctrl"] != player or e["act"] or e["deact"]:
            continue
        pays = exact_payments(cat[e["code"]].move_cost, m.p[player]["pool"]) if cat[e["code"]].move_cost else [{}]
        if not pays:
            continue
        for path in paths(board, dot, stat(e, "speed"), life=e["life"], home=home, attack=False):
            if path[-1] in m.dots:
                continue
            if checks.direction(board, e["trail"], e["pos"], e.get("via"), dot, path, "move")[0]:
                continue
            for pay in pays:
                yield _rec("move", player, **{"from": dot}, path=path, pay=pay)


def _attacks(m: Match, board: Board, player: str) -> Iterator[dict]:
    for dot, e in sorted(m.dots.items()):
        if e["ctrl"] != player or e["deact"] or e["attacks"] >= 1 + e["extra_attacks"] or board.dots[dot].no_attack:
            continue
        for path in paths(board, dot, stat(e, "range"), life=e["life"], home=None, attack=True):
            t = m.dots.get(path[-1])
            if t is None or t["ctrl"] == player or board.dots[path[-1]].no_attack:
                continue
            if checks.direction(board, e["trail"], e["pos"], e.get("via"), dot, path, "attack")[0]:
                continue
            yield _rec("attack", player, **{"from": dot}, target=path[-1], path=path)


def is_legal(m: Match, cat: Catalog, board: Board, rec: dict, line: int = 10**6) -> bool:
    """The oracle: the real referee, strict, on a copy of the state."""
    copy_m = copy.deepcopy(m)
    ref = Referee(copy_m, cat, board, strict=True, source="legal")
    try:
        ref.handle(line, rec)
    except ZXError:
        return False
    return True
