"""``zx replay MATCH``: draw a stored match at any moment, from any seat, or step through it."""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable

import click

from zx_events.errors import ZXError
from zx_events.games.zx.views import JUDGE, PERSPECTIVES, MatchView, SquareView

from .output import FORMATS, emit

ROWS = (("a3", "b3", "c3"), ("a2", "b2", "c2"), ("a1", "b1", "c1"))  # P2's side on top (docs/match-log.md)
PLAYER_SQUARES = {"b1": "P1", "b3": "P2"}
KEYS = "n/space/enter next record · t next turn · p previous · q quit"


class ToParam(click.ParamType):
    name = "end|N"

    def convert(self, value: Any, param: Any, ctx: Any) -> int | str:
        if isinstance(value, int) or value == "end":
            return value
        text = str(value).strip().lower()
        if text == "end":
            return "end"
        if text.isdigit() and int(text) >= 1:
            return int(text)
        self.fail(f"{value!r} is neither 'end' nor an event number (1 or more)", param, ctx)


def _warn_if_tampered(svc, match_id: str) -> None:
    """A warning on stderr when the stored match fails verification (its chain or the store seal)."""
    from zx_events.games.zx.match import match_uuid
    from zx_events.ledger import failure_warning, match_verdict

    uid = match_uuid(match_id)
    if not svc.recorder.select_events(uid, limit=1):
        return  # unknown: load_history says so
    verdict = match_verdict(svc, match_id, uid)
    if not verdict.ok:
        click.echo(f"warning: {failure_warning(verdict)}", err=True)


@click.command("replay")
@click.argument("match_id", metavar="MATCH")
@click.option("--turn", type=click.IntRange(min=1), default=None, metavar="N",
              help="Start at the start of turn N (right after its turn record).")
@click.option("--event", "seq", type=click.IntRange(min=1), default=None, metavar="N",
              help="Start after event N (seq: 1 is the Started event; see the seq column of --to end).")
@click.option("--to", "to", type=ToParam(), default=None,
              help="Print every step from the start position (default: the header) to the end, or to event N.")
@click.option("--step", "interactive", is_flag=True,
              help=f"Step through the records one at a time ({KEYS}); prints every step when stdin is not a terminal.")
@click.option("--as", "perspective", type=click.Choice(PERSPECTIVES, case_sensitive=False), default=JUDGE,
              show_default=True,
              help="Whose view (301.3): judge sees everything; P1/P2 their own hand and Dynamis, the "
                   "opponent's hidden zones as counts; spectator the public zones only.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table: the board drawn; json: the state (one JSON object per step with --to/--step); "
                   "csv: one row per card or hidden zone.")
@click.pass_context
def replay_cmd(ctx: click.Context, match_id: str, turn: int | None, seq: int | None, to: int | str | None,
               interactive: bool, perspective: str, fmt: str) -> None:
    """Replay a stored match: the board and both players' zones at any moment, from any seat.

    Example: zx replay tokyo-r3-t12 --turn 5 --as P1

    Without --turn/--event/--to/--step it shows the final state. Violations recorded by
    `zx import --accept-violations` are shown at the step where they happened.
    """
    from zx_events import replay
    from zx_events.games.zx.views import parse_perspective

    from .main import service

    if turn is not None and seq is not None:
        raise click.UsageError("give --turn or --event, not both")
    if to is not None and interactive:
        raise click.UsageError("give --to or --step, not both")
    perspective = parse_perspective(perspective)
    svc = service(ctx)
    try:
        _warn_if_tampered(svc, match_id)
        hist = replay.load_history(svc, match_id)
        if turn is not None:
            seq = hist.turn_seq(turn)
        elif seq is not None:
            hist.check_seq(seq)
        stop_seq = None if to in (None, "end") else hist.check_seq(int(to))
    except ZXError as e:
        raise click.ClickException(e.message) from None
    finally:
        svc.close()
    warning = replay.names_for(hist.state_at(1)).warning
    if warning:
        click.echo(f"warning: {warning}", err=True)
    out = Output(fmt)
    if to is None and not interactive:  # one moment
        at = hist.last_seq if seq is None else seq
        out.step(hist.step_at(at, perspective), single=True)
        return
    if stop_seq is not None and seq is not None and stop_seq < seq:
        raise click.ClickException(f"--to {stop_seq} is before the start position (event {seq})")
    start = hist.step_of(seq) if seq is not None else 0
    if seq is not None and hist.bounds[start][1] != seq:  # a position inside a step: show it cut there
        out.step(hist.step_at(seq, perspective))
        start += 1
    if interactive and sys.stdin.isatty() and fmt == "table":
        _interactive(hist, perspective, start, out)
        return
    stop = len(hist.bounds) if stop_seq is None else hist.step_of(stop_seq) + 1
    for step in hist.steps(perspective, start, stop):
        if stop_seq is not None and step.seq_last > stop_seq:
            step = hist.step_at(stop_seq, perspective)
        out.step(step)


def _interactive(hist: Any, perspective: str, index: int, out: "Output") -> None:
    last = len(hist.bounds) - 1
    index = min(index, last)
    shown = None
    while True:
        if index != shown:
            (step,) = hist.steps(perspective, index, index + 1)
            out.step(step)
            shown = index
        click.echo(f"[{index}/{last}] {KEYS}", err=True)
        key = click.getchar()
        if key in ("q", "Q", "\x1b", "\x03", "\x04"):
            return
        if key in ("p", "P"):
            index = max(0, index - 1)
        elif key in ("t", "T"):
            later = [t for t in hist.turns if t > hist.bounds[index][1]]
            if later:
                index = hist.step_of(later[0])
            else:
                click.echo("no later turn: this is the last one", err=True)
        elif index == last:
            click.echo("end of the match", err=True)
            return
        else:
            index += 1


# ---------------------------------------------------------------------- output
class Output:
    def __init__(self, fmt: str):
        self.fmt = fmt
        self.header = True

    def step(self, step: Any, single: bool = False) -> None:
        if self.fmt == "json":
            data = step.state.to_json() if single else step.to_json()
            click.echo(json.dumps(data, ensure_ascii=False))
        elif self.fmt == "csv":
            emit(card_rows(step.state, step.index), "csv", CSV_COLUMNS, header=self.header)
            self.header = False
        else:
            draw_step(step)


CSV_COLUMNS = ["seq", "step", "player", "zone", "square", "code", "name", "count", "power", "dmg", "state",
               "detail"]


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
            f"shift {s.shift}" if s.shift else "", *(f"force {f}" for f in s.force),
            f"links {'/'.join(v.links[s.square])}" if v.links.get(s.square) else "", f"mods {s.mods}" if s.mods else "",
            s.kind if s.kind != "zx" else "") if x)
        row(s.ctrl, "square", s.code, square=s.square, power=s.power, dmg=s.dmg, state=s.state, detail=detail)
    for p in v.players:
        pl = p.player
        if p.player_card:
            row(pl, "player", p.player_card)
        for zone, cards, count in (("deck", p.deck, p.deck_count), ("life", p.life, p.life_count),
                                   ("hand", p.hand, p.hand_count)):
            if cards is None:
                row(pl, zone, None, count, detail="hidden")
            else:
                for c in cards:
                    row(pl, zone, c)
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
    for c in v.force:
        row(None, "force", c)
    return rows


# ---------------------------------------------------------------------- drawing (rich)
def _card(v: MatchView, code: str | None) -> str:
    if code is None:
        return "(face-down)"
    name = v.name(code)
    return f"{code} {name}" if name else code


def _cards(v: MatchView, codes: Iterable[str]) -> str:
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
        t.append(f"  {owner}'s Player Square" + (f"\nPlayer: {_card(v, pc)}" if pc else ""), style="dim")
    if s is not None:
        side = "red" if s.ctrl == "P1" else "blue"
        t.append("\n" + _card(v, s.code), style=f"bold {side}")
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
    t.append(f"{pl} {p.name or ''}", style="bold red" if pl == "P1" else "bold blue")
    if p.deck_name:
        t.append(f" · {p.deck_name}")
    t.append(f" · Player card {_card(v, p.player_card) if p.player_card else '-'}")
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
        t.append(f"\n  Deck: {_cards(v, p.deck)}", style="dim")
    return t


def draw_board(v: MatchView) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    grid = Table(show_header=False, show_lines=True, expand=False, padding=(0, 1))
    for _ in range(3):
        grid.add_column(width=34, overflow="fold")
    for row in ROWS:
        grid.add_row(*[_cell(v, n) for n in row])
    parts: list[Any] = [_player_lines(v, "P2"), grid, _player_lines(v, "P1")]
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
        w = v.outcome.get("winner")
        extra.append(f"Match over: {w + ' won' if w else 'a draw'} ({v.outcome.get('reason')})\n", style="bold")
    if extra:
        parts.append(extra)
    return Group(*parts)


def _record_text(rec: Any) -> str:
    if rec is None:
        return "header"
    from zx_events.replay import thaw

    r = thaw(rec)
    head = f"{r.pop('by', '')} {r.pop('do', '')}".strip()
    return f"{head} {json.dumps(r, ensure_ascii=False)}" if r else head


def _event_text(e: Any) -> str:
    from zx_events.replay import thaw

    data = {k: v for k, v in thaw(e.data).items() if v not in (None, [], {})}
    if e.kind == "Started":
        h = data.get("header", {})
        return f"{data.get('match_id')} · {h.get('event') or ''} {h.get('played_at') or ''}".strip()
    return " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in data.items())


def draw_step(step: Any) -> None:
    from rich.console import Console
    from rich.rule import Rule
    from rich.text import Text

    v = step.state
    console = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 120, soft_wrap=False,
                      highlight=False)
    phase = v.phase if v.phase in ("setup", "over", "ended") else f"{v.phase.capitalize()} Phase"
    title = (f"{v.match_id} · step {step.index} · seq {v.seq}/{v.last_seq} · turn {v.turn}"
             + (f" ({v.active})" if v.active else "") + f" · {phase} · as {v.perspective}")
    console.print(Rule(title))
    where = f"line {step.line}: " if step.line is not None else ""
    console.print(Text(f"{where}{_record_text(step.record)}", style="bold"))
    for e in step.events:
        console.print(Text(f"  seq {e.seq:>4} {e.kind:<18} {_event_text(e)}"))
    for viol in step.violations:
        console.print(Text(f"  ! violation rule {viol.rule} ({viol.player or '-'}, line {viol.line}): "
                           f"{viol.message}" + ("" if viol.applied else " [record not applied]"), style="bold red"))
    console.print(draw_board(v))
