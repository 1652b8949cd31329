"""Drawing a Z/X state: the 3x3 Square and both players' zones for the terminal (rich), and one CSV
row per card for ``zx replay --format csv``."""

from __future__ import annotations

from typing import Any, Iterable

from zx_events.drawing import Kept, kept_lines, text_key
from zx_events.freetext import cut_cells, printable, result_text
from zx_events.seats import deck_listed_note

from .rules import LAST_LIFE, REASONS
from .views import MatchView, SquareView

DECK_ELSEWHERE = "in his hand, Life or Resource"  # where a deck list's codes not in the deck may be (402, 503.3)

ROWS = (("a3", "b3", "c3"), ("a2", "b2", "c2"), ("a1", "b1", "c1"))  # P2's side on top (docs/match-log.md)
PLAYER_SQUARES = {"b1": "P1", "b3": "P2"}


CSV_COLUMNS = ("seq", "step", "player", "zone", "square", "code", "name", "count", "power", "dmg", "state",
               "detail")


def card_rows(v: MatchView, step: int) -> list[dict]:
    """One row per card the view shows, and one per hidden zone (its count only)."""
    rows: list[dict] = []

    def row(player: str | None, zone: str, code: str | None, count: int = 1, **kw: Any) -> None:
        rows.append({"seq": v.seq, "step": step, "player": player, "zone": zone, "code": code,
                     "name": v.name(code), "count": count, **kw})

    for s in v.squares:
        if s is None:
            continue
        detail = "; ".join(x for x in (
            f"shift {s.shift}" if s.shift else "", *(f"force {f or '(face-down)'}" for f in s.force),
            f"links {'/'.join(v.links[s.square])}" if v.links.get(s.square) else "", f"mods {s.mods}" if s.mods else "",
            s.kind if s.kind != "zx" else "") if x)
        row(s.ctrl, "square", s.code, square=s.square, name=s.name, power=s.power, dmg=s.dmg, state=s.state,
            detail=detail)  # (the Square's own name: every Token's code is TOKEN, each has its name)
    for p in v.players:
        pl = p.player
        if p.player_card:
            row(pl, "player", p.player_card, state="Sleep" if p.player_card_sleep else "Reboot")
        for zone, cards, count in (("deck", p.deck, p.deck_count), ("life", p.life, p.life_count),
                                   ("hand", p.hand, p.hand_count)):
            if cards is None:
                row(pl, zone, None, count, detail="hidden")
            else:
                note = deck_listed_note(len(cards), count, DECK_ELSEWHERE) if zone == "deck" else ""
                for c in cards:
                    row(pl, zone, c, **({"detail": note} if note else {}))
        for zone, cards in (("charge", p.charge), ("trash", p.trash), ("remove", p.remove)):
            for c in cards:
                row(pl, zone, c)
        for r in p.resource:
            row(pl, "resource", r.code, state="Sleep" if r.sleep else "Reboot")
        hidden = sum(1 for d in p.dynamis if d.code is None)
        for d in p.dynamis:
            if d.code is not None:
                row(pl, "dynamis", d.code, state="face-up" if d.up else "face-down")
        if hidden:
            row(pl, "dynamis", None, hidden, detail="hidden")
    for c in v.temporary:
        row(None, "temporary", c)
    for c in v.force:  # a face-down one the view may not show: a row without its code (301.3d)
        row(None, "force", c, **({} if c else {"state": "face-down", "detail": "hidden"}))
    return rows


# ---------------------------------------------------------------------- drawing (rich)
# A log's text (names, deck names, a result's reason) is escaped (``printable``) before a rich Text holds it:
# Text drops \a \b \v \f \r and measures other controls as no width, so a name holding them lost its
# characters, and its line was wrapped short and then cut once the console escaped them.
def _card(v: MatchView, code: str | None) -> str:
    if code is None:
        return "(face-down)"
    name = v.name(code)
    return printable(f"{code} {name}") if name else code


def _on_square(s: SquareView) -> str:
    """The card on a Square: its code and the Square's own name of it (a Token's is its own: every Token's
    code is TOKEN, and the view's ``names`` has one name for a code: each Token showed the first one's)."""
    if s.code is None:
        return "(face-down)"
    return printable(f"{s.code} {cut_cells(s.name)}") if s.name else s.code  # (200 cells, as a player's name)


def _cards(v: MatchView, codes: Iterable[str | None]) -> str:
    codes = list(codes)
    return ", ".join(_card(v, c) for c in codes) if codes else "-"


def _power(s: SquareView) -> str:
    if s.power is None:
        return "Power -"
    if not s.mods:
        return f"Power {s.power}"
    mods = " ".join(f"{d:+d}" for d, _ in s.mods)
    return f"Power {s.power} ({s.base} {mods})"


def _cell(v: MatchView, name: str) -> Any:
    from rich.text import Text

    s = v.square(name)
    t = Text()
    owner = PLAYER_SQUARES.get(name)
    t.append(name, style="bold dim")
    if owner:
        pc = v.player(owner).player_card
        sleep = " (Sleep)" if pc and v.player(owner).player_card_sleep else ""  # (302.2; Reboot unsaid, as before)
        t.append(f"  {owner}'s Player Square" + (f"\nPlayer: {_card(v, pc)}{sleep}" if pc else ""), style="dim")
    if s is not None:
        side = "red" if s.ctrl == "P1" else "blue"
        t.append("\n" + _on_square(s), style=f"bold {side}")
        t.append({"ex": " [Z/X EX]", "ob": " [Overboost]", "token": " [Token]"}.get(s.kind, ""))
        t.append(f"\n{s.ctrl} · {_power(s)}")
        if s.dmg:
            t.append(f" · damage {s.dmg}", style="yellow")
        t.append(f"\n{s.state}", style="dim" if s.sleep else "green")
        if s.owner != s.ctrl:
            t.append(f" · owner {s.owner}")
        if s.shift:
            t.append(f"\nShift: {_card(v, s.shift)}")
        for f in s.force:
            t.append(f"\nForce: {_card(v, f)}")
    links = v.links.get(name)
    if links:
        t.append(f"\nLink: {', '.join(links)}", style="magenta")
    return t


def _player_lines(v: MatchView, pl: str) -> Any:
    from rich.text import Text

    p = v.player(pl)
    t = Text()
    # a name and a deck name cut to 200 terminal cells, as a table's values (zx_cli.replay notes it)
    t.append(printable(f"{pl} {cut_cells(p.name or '')}"), style="bold red" if pl == "P1" else "bold blue")
    if p.deck_name:
        t.append(printable(f" · {cut_cells(p.deck_name)}"))
    t.append(f" · Player card {_card(v, p.player_card) if p.player_card else '-'}"
             + (" (Sleep)" if p.player_card_sleep else ""))
    if v.active == pl:
        t.append("  (turn player)", style="bold")
    t.append(f"\nLife {p.life_count} · Deck {p.deck_count} · Hand {p.hand_count} · Charge {len(p.charge)} · "
             f"Trash {len(p.trash)} · Resource {len(p.resource)} · Dynamis {p.dynamis_count}"
             + (f" · Counters {p.counters}" if p.counters else ""))
    t.append(f"\n  Hand: {_cards(v, p.hand) if p.hand is not None else f'{p.hand_count} hidden'}")
    if p.life is not None:
        t.append(f"\n  Life: {_cards(v, p.life)}")
    t.append(f"\n  Charge: {_cards(v, p.charge)}")
    t.append(f"\n  Trash: {_cards(v, p.trash)}")
    res = ", ".join(f"{_card(v, r.code)} ({'Sleep' if r.sleep else 'Reboot'})" for r in p.resource) or "-"
    t.append(f"\n  Resource: {res}")
    shown = [d for d in p.dynamis if d.code is not None]
    hidden = len(p.dynamis) - len(shown)
    dyn = ", ".join(f"{_card(v, d.code)}{' (face-up)' if d.up else ''}" for d in shown)
    if hidden:
        dyn = (dyn + ", " if dyn else "") + f"{hidden} face-down"
    t.append(f"\n  Dynamis: {dyn or '-'}")
    t.append(f"\n  Overboost: {', '.join(p.overboost) or '-'}")
    if p.remove:
        t.append(f"\n  Remove: {_cards(v, p.remove)}")
    if p.deck is not None:
        note = deck_listed_note(len(p.deck), p.deck_count, DECK_ELSEWHERE)
        t.append(f"\n  Deck: {_cards(v, p.deck)}" + (f" ({note})" if note else ""), style="dim")
    return t


def draw_board(v: MatchView) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    grid = Table(show_header=False, show_lines=True, expand=False, padding=(0, 1))
    for _ in range(3):
        grid.add_column(width=34, overflow="fold")
    cells = [[(c, text_key(c)) for c in (_cell(v, n) for n in row)] for row in ROWS]
    for row in cells:
        grid.add_row(*[Kept(c, key) for c, key in row])  # (a column's width is fixed: no cell is measured)
    p2, p1 = _player_lines(v, "P2"), _player_lines(v, "P1")
    # each part drawn again only when it changed (zx replay --to end: most steps change one part or none)
    parts: list[Any] = [*kept_lines(p2), Kept(grid, tuple(key for row in cells for _, key in row)), *kept_lines(p1)]
    extra = Text()
    if v.temporary:
        extra.append(f"Temporary: {_cards(v, v.temporary)}\n")
    if v.force:
        extra.append(f"Force zone: {_cards(v, v.force)}\n")
    if v.battle is not None:
        b = v.battle
        extra.append(f"Battle: {b.attacker} -> {b.target} ({'player' if b.target_kind == 'player' else 'Z/X'}) · "
                     f"{b.step} step · priority {b.priority}"
                     + (f" · events {_cards(v, b.events)}" if b.events else "") + "\n", style="yellow")
    if v.outcome is not None:
        # in the game's words (rules.REASONS), as the match page and browser say it
        how = LAST_LIFE.get(v.outcome.get("how")) if v.outcome.get("winner") else None  # (the last Life card gone by
        # an effect or a Reload: no damage; a draw, by an effect too, says its reason)
        winner = v.outcome.get("winner")
        said = result_text(winner, v.outcome.get("reason"), REASONS) if not how else \
            f"{winner} won: {'P2' if winner == 'P1' else 'P1'} has no Life left ({how})"  # (the loser's Life: "P1 won:
        # no Life left" read as if the winner had none, QA round 37)
        extra.append(printable(f"Match over: {said}") + "\n", style="bold")
    if extra:
        parts.append(extra)
    return Group(*parts)
