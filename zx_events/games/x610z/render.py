"""A terminal drawing of the X610Z board: dots at their coordinates, lines between them, pawns.

Each dot is drawn as two characters: its id when empty, ``1L``/``2L`` for a player's Life Base,
``1a``, ``1b`` ... for his other summons (legend below the board). Lines are dotted.
"""

from __future__ import annotations

from zx_events.freetext import cut_cells
from zx_events.seats import deck_listed_note

from .board import Board
from .rules import outcome_text

DECK_ELSEWHERE = "in his hand"  # where a deck list's codes not in the deck may be (a setup or a draw left out)
WIDTH, HEIGHT = 61, 25
MIN_WIDTH = 31  # the narrowest map drawn: a terminal narrower than WIDTH gets the map squeezed to it (wrapped, its
# lines broke apart below ~60 columns), down to this; narrower still, the map is drawn at this width


def _grid_pos(board: Board, width: int, height: int) -> dict[str, tuple[int, int]]:
    xs = [d.x for d in board.dots.values()]
    ys = [d.y for d in board.dots.values()]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    sx = (width - 3) / ((x1 - x0) or 1)
    sy = (height - 1) / ((y1 - y0) or 1)
    return {k: (round((d.x - x0) * sx), round((y1 - d.y) * sy)) for k, d in board.dots.items()}


def draw(board: Board, view, *, width: int = WIDTH, height: int = HEIGHT) -> str:
    """The board of ``view`` (an X610Z ``MatchView``) as text, with a legend of the pawns."""
    pos = _grid_pos(board, width, height)
    grid = [[" "] * width for _ in range(height)]
    for a, nbrs in board.links.items():
        for b in nbrs:
            if a < b:
                (c0, r0), (c1, r1) = pos[a], pos[b]
                steps = max(abs(c1 - c0), abs(r1 - r0), 1)
                for i in range(1, steps):
                    c = round(c0 + (c1 - c0) * i / steps)
                    r = round(r0 + (r1 - r0) * i / steps)
                    grid[r][c] = "·"
    labels = _labels(view)
    for dot, (c, r) in sorted(pos.items(), key=lambda kv: kv[0]):
        label = labels.get(dot, dot[:2])
        for i, ch in enumerate(label[:2]):
            if c + i < width:
                grid[r][c + i] = ch
    lines = ["".join(row).rstrip() for row in grid]
    kinds = {"start": "Starting", "end": "Ending", "no_attack": "No Attack", "quest": "Quest"}
    key = "  dots: " + "; ".join(f"{kinds[k]} {' '.join(sorted(d for d, v in board.dots.items() if v.kind == k))}"
                                  for k in kinds if any(v.kind == k for v in board.dots.values()))
    return "\n".join(lines + [key] + _legend(view, labels) + zones(view))


class Fitted:
    """The board of ``view`` as a rich renderable, drawn as wide as the terminal gives it (at most ``WIDTH``,
    at least ``MIN_WIDTH``), its text passed through ``escape`` (``printable``) and never read as markup."""

    def __init__(self, board: Board, view, escape) -> None:
        self.board, self.view, self.escape = board, view, escape

    def __rich_console__(self, console, options):
        from rich.text import Text

        from zx_events.drawing import Kept, hanging

        drawn = self.escape(draw(self.board, self.view, width=max(MIN_WIDTH, min(WIDTH, options.max_width))))
        for line in drawn.split("\n"):  # a line drawn as before (most of them: a step moves a summon or a card)
            yield Kept(hanging(Text(line)), line)  # (a zone's line wrapped under its first value)


def draw_unmapped(view, why: str) -> str:
    """The board of ``view`` when the board itself is not at hand (a board file given with ``--board``
    at import, not shipped): no map, the summons by dot, and the zones."""
    return "\n".join([f"  ({why}: the map is not drawn)"] + _legend(view, _labels(view)) + zones(view))


def _labels(view) -> dict[str, str]:
    """Each occupied dot's two-letter label: the controller and a letter a summon (L: a Life Base), in dot order."""
    out, counters = {}, {"P1": 0, "P2": 0}
    for dot in sorted(view.dots):
        v = view.dots[dot]
        if v is None:
            continue
        if v.life:
            out[dot] = f"{v.ctrl[1]}L"
        else:
            out[dot] = f"{v.ctrl[1]}{'abcdefghijklmnopqrstuvwxyz'[counters[v.ctrl] % 26]}"
            counters[v.ctrl] += 1
    return out


def _legend(view, labels: dict[str, str]) -> list[str]:
    out = []
    for dot, label in labels.items():
        v = view.dots[dot]
        state = ", ".join(x for x in ("activated" if v.activated else "", "deactivated" if v.deactivated else "") if x)
        out.append(f"  {label} on {dot}: {v.name or v.code} ({v.ctrl}) "
                   f"A{v.stats['attack']} D{v.stats['defense']} S{v.stats['speed']} R{v.stats['range']}"
                   f"{f', {v.damage} damage' if v.damage else ''}{f', {state}' if state else ''}"
                   f"{_counters(v.counters)}")
    return out


def _counters(counters) -> str:
    """A summon's or permanent's counters (209.2), as the legend and the Permanents line say them: ", time 2"."""
    return "".join(f", {k} {n}" for k, n in sorted(counters.items()))


def _cards(view, codes) -> str:
    return ", ".join(f"{c} {view.name(c)}" if view.name(c) else c for c in codes) or "-"


def zones(view) -> list[str]:
    """Each player's zones as this seat sees them: the hand (or only its size), the deck's size
    (never its order; the judge: its cards, sorted), the discard and removed piles, the energy pool,
    the permanents off the board (crystals, equipment), and the stack."""
    out = []
    for pl, pv in sorted(view.players.items()):
        turn = "  (turn player)" if pl == view.active else ""
        pool = " ".join(f"{t}{n}" for t, n in sorted(pv.pool.items()) if n) or "-"
        out.append(f"{pl} {cut_cells(pv.name or '')} · home {pv.home or '-'} · Deck {pv.deck_count} "  # (200 cells)
                   f"· Hand {pv.hand_count} · Discard {len(pv.discard)} · Energy {pool}{turn}")
        out.append("  Hand: " + (f"{pv.hand_count} hidden" if pv.hand is None else _cards(view, pv.hand)
                                 + _unknown_out(pv)))
        if pv.deck is not None:  # the judge's view only (no order is kept: sorted by code)
            note = deck_listed_note(len(pv.deck), pv.deck_count, DECK_ELSEWHERE)
            out.append("  Deck (judge, sorted): " + _cards(view, pv.deck) + (f" ({note})" if note else ""))
        out.append("  Discard: " + _cards(view, pv.discard))
        if pv.removed:
            out.append("  Removed: " + _cards(view, pv.removed))
        perms = [p for p in view.perms if p.ctrl == pl]
        if perms:
            out.append("  Permanents: " + ", ".join(
                f"{p.code} {p.name or ''} ({p.kind}{f' on {p.on}' if p.on else ''}"
                f"{', activated' if p.activated else ''}"
                f"{_counters(p.counters)})".replace("  ", " ")
                for p in perms))
    if view.stack:
        out.append("Stack (top last): " + "; ".join(_entry(view, s) for s in view.stack))
    if view.outcome:
        o = view.outcome
        out.append(f"Result: {outcome_text(o.get('winner'), o.get('reason'), o.get('how'))}")
    return out


def _unknown_out(pv) -> str:
    """The note of a hand that lists more cards than it holds: an `end` left out discarded the excess, unknown which
    (502.5, digest.8: the state keeps their codes in the hand, ``match.hand_count``)."""
    out = len(pv.hand) - pv.hand_count
    return f" ({pv.hand_count} of these {len(pv.hand)}: {out} {'was' if out == 1 else 'were'} discarded, unknown " \
           f"which, 502.5)" if out > 0 else ""


def _entry(view, s) -> str:
    """A stack entry as the browser's board says it: its player, kind, card (or where it moves from, or a
    trigger's source), target, and whether it was refused; each card with its name where the view names it
    (a card this seat may not see reads ``?``: views._public_entry)."""
    def named(x):
        return _cards(view, (str(x),)) if x is not None else ""

    what = named(s.get("card") or s.get("from") or s.get("source"))
    target = f" → {named(s.get('target'))}" if s.get("target") else ""
    return (f"{s.get('by')} {s.get('kind')} {what}".strip() + target
            + (" (refused: it fizzles)" if s.get("void") else ""))


CSV_COLUMNS = ["seq", "step", "player", "zone", "dot", "code", "name", "count", "attack", "defense", "speed",
               "range", "dmg", "state", "detail"]


def card_rows(v, step: int) -> list[dict]:
    """One row per card the view shows (the judge: the decks' too), and one per hidden zone (its count only)."""
    rows: list[dict] = []

    def row(player, zone, code, count=1, **kw):
        rows.append({"seq": v.seq, "step": step, "player": player, "zone": zone, "code": code,
                     "name": v.name(code) if code else None, "count": count, **kw})

    for dot, d in sorted(v.dots.items()):
        state = "deactivated" if d.deactivated else ("activated" if d.activated else "reactivated")
        row(d.ctrl, "play", d.code, dot=dot, dmg=d.damage, state=state,
            detail=("life base" if d.life else "") + _counters(d.counters).removeprefix("" if d.life else ", ") or None,
            **dict(d.stats))
    for p in v.perms:
        row(p.ctrl, "play", p.code, state="activated" if p.activated else "reactivated",
            detail=f"{p.kind}{f' on {p.on}' if p.on else ''}{_counters(p.counters)}")
    for s in v.stack:
        row(s.get("by"), "cast", s.get("card"), detail=f"{s.get('kind')}{' (refused)' if s.get('void') else ''}")
    for pl, pv in sorted(v.players.items()):
        if pv.deck is None:
            row(pl, "deck", None, pv.deck_count)
        else:
            note = deck_listed_note(len(pv.deck), pv.deck_count, DECK_ELSEWHERE)
            for c in pv.deck:
                row(pl, "deck", c, **({"detail": note} if note else {}))
        if pv.hand is None:
            row(pl, "hand", None, pv.hand_count)
        else:
            note = _unknown_out(pv).strip(" ()") or None  # (an `end` left out discarded some, unknown which)
            for c in pv.hand:
                row(pl, "hand", c, detail=note)
        for zone, cards in (("discard", pv.discard), ("removed", pv.removed)):
            for c in cards:
                row(pl, zone, c)
    return rows
