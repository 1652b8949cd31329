"""Small, separately testable checks: payment (200.5, 203.2b, 204.1b) and paths (202, 600, 604).

Each returns ``None`` when the thing is legal, or ``(rule, message)``.
"""

from __future__ import annotations

from .board import Board
from .cards import COLORLESS, energy_text

PAID, FAILS = "paid", "fails"


def _total(energy: dict) -> int:
    return sum(map(int, energy.values()))  # (map: no generator frame a value; the same sum)


def add(a: dict, b: dict, times: int = 1) -> dict:
    out = dict(a)
    for t, n in b.items():
        out[t] = out.get(t, 0) + n * times
    return {t: n for t, n in out.items() if n}


def proper(cost: dict, pay: dict) -> bool:
    """204.1b-c, 203.2b: each specific part with its type, the Colorless part with any energy."""
    if _total(pay) != _total(cost):
        return False
    if pay.get(COLORLESS, 0) > cost.get(COLORLESS, 0):
        return False
    for t, n in cost.items():  # (a loop: all() over a generator cost as much as the rest)
        if t != COLORLESS and pay.get(t, 0) < n:
            return False
    return True


def could_meet(cost: dict, pool: dict, wild: int = 0, extra: dict | None = None) -> bool:
    """Whether energy ``pool`` plus reactivated crystals (``extra`` by type, ``wild`` that may give
    either specific type) could pay ``cost`` properly."""
    have = add(pool, extra or {})
    wild_left = wild
    for t, n in cost.items():
        if t == COLORLESS:
            continue
        short = max(0, n - have.get(t, 0))
        if short > wild_left:
            return False
        wild_left -= short
        have[t] = have.get(t, 0) + short - n
    rest = sum(v for v in have.values() if v > 0) + wild_left
    return rest >= cost.get(COLORLESS, 0)


def paid_properly(cost: dict, pay: dict, pool: dict) -> bool:
    """Whether ``payment`` says ``(PAID, None)`` before it asks ``wild`` or ``extra``: every part of
    ``pay`` within ``pool``, no more than the cost, and proper."""
    for t, n in pay.items():
        if n > pool.get(t, 0):
            return False
    return proper(cost, pay)  # (proper asks the totals to be equal: "no more than the cost" within it)


def payment(cost: dict, pay: dict, pool: dict, *, wild: int = 0, extra: dict | None = None,
            under_rule: str = "200.5") -> tuple[str, tuple[str, str] | None]:
    """Judge ``pay`` against ``cost`` with ``pool`` in the Energy Pool.

    Returns ``(PAID | FAILS, problem)``: FAILS is a legal underpayment (200.5: nothing more could
    be paid; the action fails), ``problem`` a violation. Reactivated crystals that could still pay
    count as available energy (open question 14).
    """
    for t, n in sorted(pay.items()):
        if n > pool.get(t, 0):
            return PAID, ("200.5", f"pays {t}{n} but the Energy Pool holds {t}{pool.get(t, 0)}")
    want, give = _total(cost), _total(pay)
    if give > want:  # (an action whose cost could not be met fails all the same)
        return (PAID if could_meet(cost, pool, wild, extra) else FAILS), \
            ("200.5", f"pays {energy_text(pay)}, more than the cost {energy_text(cost)}")
    if proper(cost, pay):
        return PAID, None
    if could_meet(cost, pool, wild, extra):
        if give == want:
            if pay.get(COLORLESS, 0) > cost.get(COLORLESS, 0):
                return PAID, ("203.2b", f"Colorless energy pays only the Colorless part of {energy_text(cost)}")
            return PAID, ("204.1b", f"pays {energy_text(pay)}: each specific part of {energy_text(cost)} "
                                    f"needs its own energy type")
        return PAID, (under_rule, f"pays {energy_text(pay)}, less than {energy_text(cost)}, "
                                  f"while the energy for it was available")
    # 200.5: what cannot be paid in its type is paid with energy of any type, "to a maximum of the energy
    # required": as much as possible up to the cost's total (paying the total in the wrong types is that)
    left = add(pool, {t: -n for t, n in pay.items()})
    if give < want and (_total(left) > 0 or wild or _total(extra or {})):
        return FAILS, ("200.5", f"cannot meet {energy_text(cost)} and pays {energy_text(pay)} while energy "
                                f"remained: as much as possible must be paid")
    return FAILS, None


def step_problem(board: Board, a: str, b: str, *, life: bool, home: str | None, attack: bool) -> tuple[str, str] | None:
    """One step of a path: along a line (600.3), or a legal warp (604.2; never in an attack, 604.4)."""
    if board.connected(a, b):
        return None
    if board.is_warp(a, b):
        if attack:
            return "604.4", f"an attack cannot warp ({a} to {b})"
        if life:
            return "604.2", f"a Life Base cannot warp ({a} to {b})"
        own = (a == home and board.dots[b].is_end) or (board.dots[a].is_end and b == home)
        if not own:
            return "604.2", (f"a warp joins its controller's Starting Dot {home} and an Ending Dot, "
                             f"not {a} and {b}")
        return None
    return "600.3", f"no line joins {a} and {b}"


def sharp(board: Board, dots: list[str], rule: str = "202.9", what: str = "") -> tuple[str, str] | None:
    turns = board.sharp_turns(dots)
    if not turns:
        return None
    a, b, c, angle = turns[0]
    return rule, f"{what}sharp turn at {b}: {a} > {b} > {c} is {angle:.0f} degrees (under 90)"


def direction(board: Board, trail: list[str] | None, pos: int, via: str | None, src: str, path: list[str],
              kind: str) -> tuple[tuple[str, str] | None, list[str], int]:
    """202.8 / 202.9: this turn's direction of a summon. Returns the problem, the new trail and the
    summon's position on it (a move ends at its destination, an attack leaves it where it is).

    An attack after attacks alone (``via`` attack, the summon where they left it: ``pos`` 0; a move
    leaves it further on) may go any way, and sets the direction from then on: 202.8 links moving and
    attacking ("a player can only move a summon in the direction it attacked and vice versa"), and
    202.3b gives an extra attack no direction (digest.4, docs/rules-x610z.md choice 7)."""
    full = [src] + list(path)
    if not trail or trail[pos] != src or (kind == "attack" and via == "attack" and pos == 0):
        return None, full, (len(full) - 1 if kind == "move" else 0)
    ahead = trail[pos + 1:]
    problem = None
    k = 0
    while k < len(path) and k < len(ahead):
        if path[k] != ahead[k]:
            problem = ("202.8", f"the {kind} leaves this turn's direction at {full[k]}: "
                                f"the {via} went on to {ahead[k]}, this goes to {path[k]}")
            break
        k += 1
    new = list(trail)
    if problem is None and k < len(path):
        joined = trail + list(path[k:])
        rule = "202.9" if kind == "move" and via == "move" else "202.8"
        turn = board.sharp_turns(joined[len(trail) - 2 if len(trail) >= 2 else 0: len(trail) + 1])
        if turn:
            a, b, c, angle = turn[0]
            problem = (rule, f"the {kind} turns back from this turn's {via} at {b}: {a} > {b} > {c} is "
                             f"{angle:.0f} degrees (under 90)")
        new = joined
    elif problem is not None:
        new = full
    end = new.index(path[-1], pos) if kind == "move" and path[-1] in new[pos:] else (len(new) - 1 if kind == "move" else pos)
    return problem, new, end
