"""Small legality checks, layered as geometry, then state. Each returns a problem or None.

A problem is ``(rule, message)``. These functions never mutate anything and never raise for a
rules problem, so the referee, the legal-action lister and tests can all use them alone.
"""

from __future__ import annotations

from typing import Collection, Iterable

from zx_events.games.zx.board import SQUARE_NAMES, Square, player_square
from zx_events.games.zx.cards import INF, Card, Catalog
from zx_events.games.zx.match import Match, deck_count, other

Problem = tuple[str, str] | None
_PLAYER_SQUARE = {p: str(player_square(p)) for p in ("P1", "P2")}  # the name of each player's Player Square


def missing(zone: Iterable[str], codes: Iterable[str]) -> list[str]:
    """The codes of ``codes`` that ``zone`` does not hold (as a multiset)."""
    if not isinstance(zone, list):
        zone = list(zone)
    if type(codes) is list and len(codes) <= 1:  # one card (or none): whether the zone holds it
        return [] if not codes or codes[0] in zone else list(codes)
    need: dict[str, int] = {}
    for code in codes:
        need[code] = need.get(code, 0) + 1
    if not need:
        return []
    out: list[str] = []
    for code, n in need.items():  # counting only the codes asked for (a deck holds 50 cards)
        have = zone.count(code)
        if have < n:
            out.extend([code] * (n - have))
    return out


# ---------------------------------------------------------------- geometry (303, 602.1b)
def reach_of(card: Card | None) -> float | int:
    """How far a Z/X may attack: 1 (next to it, 602.1b), or its Range X (1104)."""
    r = card.range if card is not None else None
    return r if r is not None else 1


def attack_geometry(src: str, dst: str, card: Card | None) -> Problem:
    """602.1b geometry: the target Square is next to the attacker, or within its Range."""
    dist = Square.parse(src).distance(Square.parse(dst))
    reach = reach_of(card)
    if dist <= reach:
        return None
    if card is not None and card.range is not None:
        shown = "inf" if card.range == INF else card.range
        return "602.1b", f"{dst} is at distance {dist} from {src}, beyond its Range {shown}"
    return "602.1b", f"{dst} is not next to {src} and {src} has no Range"


# ---------------------------------------------------------------- state
def controls_overboost(m: Match, player: str) -> bool:
    for e in m.sq.values():  # (a loop: any() over a generator cost twice as much)
        if e is not None and e["kind"] == "ob" and e["ctrl"] == player:
            return True
    return False


def controls_shift(m: Match, player: str) -> bool:
    # 202.8c; the Shift's controller is its owner (302.1b), who put it on the vessel
    return any(e is not None and e.get("shift") and e.get("shift_owner", e["ctrl"]) == player
               for e in m.sq.values())


def startup_source(m: Match, player: str, source: str) -> Problem:
    """302.1c: the startup ability of a card on Square (``source`` names its Square) is played by that
    card's controller: the card there, or on a Player Square with no card on it the Player card (its
    controller is its owner, 302.1b). An empty Square holds no card to play one of (301.1). A source
    named by its code (a card elsewhere, docs/match-log.md) is not checked: the state does not say
    whose it is."""
    if source not in SQUARE_NAMES:
        return None
    e = m.sq.get(source)
    if e is not None:
        code, ctrl = e["code"], e["ctrl"]
    else:
        ctrl = next((pl for pl, s in _PLAYER_SQUARE.items() if s == source), None)
        code = m.p[ctrl]["player_card"] if ctrl is not None else None
        if code is None:
            return "301.1", f"there is no card on {source}: no startup ability of it can be played"
    if ctrl != player:
        return "302.1c", f"the startup ability of {code} on {source} is {ctrl}'s to play, not {player}'s"
    return None


def turn_player(m: Match) -> str:
    """The turn player, once turn 1 has begun (``TurnStarted`` sets the turn and its player together)."""
    assert m.active is not None
    return m.active


def to_draw(m: Match) -> int:
    """503.3 / 503.3a: how many cards the turn player's Draw Phase still owes: 2 (none on the first turn),
    but never more than deck and Trash hold (a Reload refills the deck from Trash; with both empty
    nothing does, and running out is no loss: docs/rules.md)."""
    z = m.p[turn_player(m)]  # (asked in a turn's Draw Phase)
    return max(0, min((0 if m.turn == 1 else 2) - m.drawn, deck_count(z) + len(z["trash"])))


def find_uid(m: Match, uid: int | None) -> tuple[str, dict] | None:
    if uid is None:
        return None
    for name, e in m.sq.items():
        if e is not None and e["uid"] == uid:
            return name, e
    return None


def placement(m: Match, player: str, square: str) -> Problem:
    """806: not the opponent's Player Square, not on an opponent Z/X, not on your own Sleep Z/X.

    A face-down card (303.6: no Z/X) is held to the same rule (docs/rules.md): no text lets a play put
    away an opponent's card, nor your own Sleep one. The message does not name it (301.3b: hidden)."""
    opp = other(player)
    Square.parse(square)  # (a name that is not a Square: ValueError)
    if square == _PLAYER_SQUARE[opp]:  # Square.parse(square) == player_square(opp), without making a Square
        return "806", f"{square} is {opp}'s Player Square"
    e = m.sq.get(square)
    if e is not None:
        what = "face-down card" if e.get("up") is False else f"Z/X {e['code']}"
        if e["ctrl"] != player:
            return "806", f"{square} holds {opp}'s {what}"
        if e["sleep"]:
            return "806", f"{square} holds {player}'s own Sleep {what}"
    return None


def attack_target(m: Match, player: str, square: str) -> tuple[str | None, Problem]:
    """602.1b state: an opponent Z/X, or the opponent's empty Player Square while his Player card is on it ("the
    non-turn player with Player card"). Returns (kind, problem)."""
    opp = other(player)
    e = m.sq.get(square)
    if e is not None and e.get("up") is False:  # 303.6: a face-down card on Square is no Z/X
        e = None
    if e is not None:
        if e["ctrl"] == player:
            return None, ("602.1b", f"{square} holds {player}'s own Z/X {e['code']}")
        return "zx", None
    if Square.parse(square) == player_square(opp):
        if not m.p[opp]["player_card"]:  # 602.1b: "the non-turn player with Player card" (it left the Square for
            # a zone: moved or destroyed by an effect, 303.6a, 1007); no target to choose, no battle (602.1c;
            # digest.13: the attack was accepted and took a Life card)
            return None, ("602.1b", f"{square} is {opp}'s Player Square, but {opp}'s Player card is no longer on it: "
                                    f"only a player with his Player card on his Player Square is attacked")
        if controls_overboost(m, opp):  # 202.7e
            return None, ("202.7e", f"{opp} controls a Z/X Overboost on Square: {opp} cannot be attacked")
        return "player", None
    return None, ("602.1b", f"{square} holds no Z/X of {opp} and is not {opp}'s Player Square")


def attacker(m: Match, player: str, square: str) -> Problem:
    """602.1a: a Reboot Z/X controlled by the turn player on Square."""
    e = m.sq.get(square)
    if e is None or e["ctrl"] != player:
        return "602.1a", f"{square} holds no Z/X of {player}"
    if e.get("up") is False:  # 303.6: a face-down card on Square is no Z/X
        return "602.1a", f"{square} holds a face-down card of {player}, not a Z/X"
    if e["sleep"]:
        return "602.1a", f"the attacker {e['code']} on {square} is Sleep, not Reboot"
    return None


def cost_problems(m: Match, cat: Catalog, player: str, card: Card, pay: list[str],
                  absent: Collection[str] = ()) -> list[tuple[str, str]]:
    """805 / 204.6: sleep exactly ``cost`` Reboot Resource cards, one of them of the card's colour.
    ``absent``: cards the log holds in Resource and the state does not, already reported: not reported again
    (not in Resource, paid twice with one held, or paid Sleep, a copy of it being there)."""
    out: list[tuple[str, str]] = []
    cost = card.cost
    if cost == INF:
        out.append(("805", f"{card.code} has cost inf and cannot be paid"))
        return out
    need = int(cost or 0)
    if len(pay) != need:
        out.append(("805", f"{card.code} costs {need}, {len(pay)} Resource card{'s' if len(pay) != 1 else ''} paid"))
    resource = m.p[player]["resource"]
    reboot = [r["code"] for r in resource if not r["sleep"]]
    for code in dict.fromkeys(missing(reboot, pay)):
        if code in absent:  # a copy the log holds there and the state does not: reported (301.1) where it went missing
            continue
        held = sum(r["code"] == code for r in resource)
        if held > reboot.count(code):
            out.append(("805", f"{code} in {player}'s Resource is Sleep: only Reboot Resource cards pay"))
        elif held:  # every copy Reboot, one card named twice: nothing is Sleep (301.1: a card is where it is)
            out.append(("301.1", f"{code} is paid {pay.count(code)} times, {player}'s Resource holds "
                                 f"{'one' if held == 1 else held}"))
        else:
            out.append(("301.1", f"{code} is not in {player}'s Resource"))
    if need > 0 and card.colors and pay:
        for code in pay:  # (a loop: any() over a generator)
            c = cat.get(code)
            if c is not None and c.shares_colour(card):
                break
        else:
            out.append(("204.6", f"none of the paid cards is {'/'.join(card.colors)}, a colour of {card.code}"))
    return out


def lethal(entry: dict, ending: str | None = None) -> bool:
    """Lethal damage: damage at least its Power, or Power 0 or less; ``ending``: once its modifiers
    until then (end_of_battle: 605.5) have ended."""
    p = (entry.get("base") or 0) + entry["msum"]  # power_of, inlined
    if ending is not None and ending in entry["mends"]:
        p -= entry["mends"][ending][1]
    return p <= 0 or entry["dmg"] >= p
