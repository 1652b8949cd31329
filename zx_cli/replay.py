"""``zx replay MATCH``: draw a stored match at any moment, from any seat, or step through it."""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Sequence

import click

from zx_events.errors import ZXError
from zx_events.freetext import SHOWN_CELLS, cut_cells
from zx_events.seats import JUDGE

from .common import PlayerName, Seat, given_catalogs, seat_of, service, used_catalogs, view_catalogs_option
from .options import FORMATS, format_option
from .output import Printable, counted, emit, json_text, output_closed, printable, progress, say, terminal_width

KEYS = "n/space/enter next record · t next turn · p previous · q quit"
SHORT_KEYS = "n next · t turn · p back · q quit"  # the prompt of a terminal too narrow for KEYS
# the keys of --step as a terminal sends them (raw): an arrow as \x1b[C, or \x1bOC in application cursor mode
NEXT_KEYS = frozenset({"n", "N", " ", "\r", "\n", "\x1b[C", "\x1b[B", "\x1bOC", "\x1bOB"})  # also right, down
BACK_KEYS = frozenset({"p", "P", "\x1b[D", "\x1b[A", "\x1bOD", "\x1bOA"})  # also left, up
TURN_KEYS = frozenset({"t", "T"})
QUIT_KEYS = frozenset({"q", "Q", "\x1b", "\x04"})  # Esc alone, Ctrl-D
# a step taller than the terminal is shown a page at a time (as more(1) does): these keys show its next page
MORE_KEYS = frozenset({" ", "\r", "\n", "\x1b[B", "\x1bOB"})  # space, enter, down
MORE = "space/enter · n next record · t turn · p back · q quit"  # after "more (N lines): "
SHORT_MORE = "space more · n next · q quit"
_KEY = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1bO.|.", re.S)  # one key: an escape sequence, or a character


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
    """A warning on stderr when the stored match fails verification as ``zx verify`` checks it (its
    chain, the store seal, its replay snapshots)."""
    from zx_events.ids import match_uuid
    from zx_events.ledger import failure_warning
    from zx_events.replay import verify_match

    if not svc.recorder.select_events(match_uuid(match_id), limit=1):
        return  # unknown: load_history says so
    verdict = verify_match(svc, match_id)
    if not verdict.ok:
        click.echo(printable(f"warning: {failure_warning(verdict)}"), err=True)


@click.command("replay")
@click.argument("match_id", metavar="MATCH")
@click.option("--turn", type=click.IntRange(min=1), default=None, metavar="N",
              help="Start at the start of turn N (right after its turn record).")
@click.option("--event", "seq", type=click.IntRange(min=1), default=None, metavar="N",
              help="Start after event N (seq: 1 is the Started event; see the seq column of --to end).")
@click.option("--to", "to", type=ToParam(), default=None,
              help="Print every step from the start position (default: the header; an event inside a step: that "
                   "step up to it, then the rest of it) to the end, or to event N.")
@click.option("--step", "interactive", is_flag=True,
              help=f"Step through the records one at a time ({KEYS}; the arrow keys: right, down next, left, up previous); "
                   "prints every step when stdin is not a terminal.")
@click.option("--as", "perspective", type=Seat(names=True), default=JUDGE,
              show_default=True,
              help="Whose view (Z/X 301.3, X610Z 502.3): judge sees everything; P1/P2 their own hand (Z/X: and "
                   "Dynamis), the opponent's hidden zones as counts; spectator the public zones only; or a player's "
                   "name (any case): that player's seat (a seat word is the seat, whoever is named so).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table: the board drawn; json: the state (one JSON object per step with --to/--step); "
                   "csv: one row per card or hidden zone.")
@view_catalogs_option()
@click.pass_context
def replay_cmd(ctx: click.Context, match_id: str, turn: int | None, seq: int | None, to: int | str | None,
               interactive: bool, perspective: str, fmt: str, catalog_files: tuple[str, ...]) -> None:
    """Replay a stored match: the board and both players' zones at any moment, from any seat.

    \b
    Example:
      zx replay sim-2026-0003 --turn 5 --as P1

    --as also takes a player's name, in any case: that player's seat, said in the
    title ("as P2 (Riku)"). Without --turn/--event/--to/--step it shows the final state. Violations recorded by
    `zx import --accept-violations` are shown at the step where they happened. A match imported
    with a catalog file names its cards only when given that file (--catalog FILE).
    """
    from zx_events import replay
    from zx_events.seats import parse_perspective

    if turn is not None and seq is not None:
        raise click.UsageError("give --turn or --event, not both")
    if to is not None and interactive:
        raise click.UsageError("give --to or --step, not both")
    if not isinstance(perspective, PlayerName):  # (a name: read once the match is loaded, seat_of)
        perspective = parse_perspective(perspective)
    catalogs = given_catalogs(catalog_files)  # (a bad file: its FILE:LINE error, before the store is opened)
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
    from zx_events.pins import view_warnings

    first = hist.state_at(1)
    perspective, by_name = seat_of(perspective, first, match_id)
    if catalogs:  # the file the match was checked against names its cards; another is not used (a warning)
        hist = replay.history_of(hist.match_id, hist.events, used_catalogs(
            catalog_files, catalogs, replay.pinned_by(first), f"match {match_id!r} was not"))
    # the catalog's, then each fixture's the match pinned that is not at hand (X610Z: a board file: no map)
    for warning in (hist.names(first).warning, *view_warnings(replay.game_of(first), first)):
        if warning:
            click.echo(printable(f"warning: {warning}"), err=True)
    out = Output(fmt, replay.game_of(first))
    if by_name is not None:  # the title says whose view it is: "as P2 (佐藤 蓮)", the name as that seat sees it
        from zx_events.narration import seat_players

        out.player = seat_players(first, perspective, hist.names(first).mask).get(perspective)
    _draw(hist, out, perspective, seq, stop_seq, to, interactive, fmt)
    if fmt == "table":
        _names_cut_note(first)
        if out.cut:
            click.echo(f"({counted(len(out.cut), 'text')} of records, events or violations (a Token's name, a result's "
                       f"reason, a note) cut to {SHOWN_CELLS} terminal cells (a wide character takes two); --format json "
                       "gives every value)", err=True)


def _names_cut_note(first: Any) -> None:
    """On stderr, as a table notes the values it cut (``zx_cli.output._cut_note``): how many of the players' and
    deck names (the header's) each board showed cut (``freetext.cut_cells``: over 200 terminal cells)."""
    from zx_events.freetext import MASKED_PLAYER, SHOWN_CELLS, cells_prefix

    n = sum(1 for info in (getattr(first, "players", None) or {}).values() if isinstance(info, dict)
            for key in MASKED_PLAYER if isinstance(info.get(key), str) and cells_prefix(info[key], SHOWN_CELLS)
            < len(info[key]))
    if n:
        click.echo(f"({counted(n, 'name')} cut to {SHOWN_CELLS} terminal cells (a wide character takes two) in "
                   "every board; --format json gives every value)", err=True)


def _draw(hist: Any, out: "Output", perspective: str, seq: int | None, stop_seq: int | None, to: Any,
          interactive: bool, fmt: str) -> None:
    if to is None and not interactive:  # one moment
        at = hist.last_seq if seq is None else seq
        out.step(hist.step_at(at, perspective), single=True)
        return
    if stop_seq is not None and seq is not None and stop_seq < seq:
        raise click.UsageError(f"--to {stop_seq} is before the start position (event {seq})",  # (exit 2: the options
                               click.get_current_context(silent=True))  # given do not go together, as --turn --event)
    start = hist.step_of(seq) if seq is not None else 0
    end = hist.bounds[start][1]
    parts = []  # a position inside a step: that step cut there, then the rest of it
    if seq is not None and end != seq:
        parts.append(hist.step_at(seq, perspective))
        rest = end if stop_seq is None else min(end, stop_seq)
        if rest > seq:  # (it went on with the next step: the step's events after ``seq`` were never shown)
            parts.append(hist.part(seq + 1, rest, perspective))
    # (standard input closed, ``<&-``: None; every step is printed, as without a terminal)
    if interactive and sys.stdin is not None and sys.stdin.isatty() and fmt == "table":
        _interactive(hist, perspective, start, out, parts)  # (the parts paged as a step is, its prompt after them)
        return
    for part in parts:
        out.step(part)
    start += bool(parts)
    stop = len(hist.bounds) if stop_seq is None else hist.step_of(stop_seq) + 1
    for step in hist.steps(perspective, start, stop):
        if stop_seq is not None and step.seq_last > stop_seq:
            step = hist.step_at(stop_seq, perspective)
        out.step(step)


def _read_keys() -> list[str]:
    """The keys typed, each in turn (keys typed ahead while a step was drawn, or a key held down, are read at once);
    none at the end of input: Ctrl-D alone (``click.getchar`` raises EOFError for it: "Aborted!", exit 1), or the
    terminal closed (the read gives nothing, or fails: each empty read was taken for "next", to the last step)."""
    try:
        text = click.getchar()
    except (EOFError, OSError):  # (OSError: EIO, the terminal is gone)
        return []
    return _KEY.findall(text or "")  # (None: click's terminal settings could not be set back, the terminal gone)


def _prompt(text: str, short: str, width: int | None) -> str:
    """``text``, or ``short`` on a terminal narrower than ``text``."""
    return text if width is None or len(text) <= width else short


def terminal_height() -> int | None:
    """The number of lines of the terminal the output goes to (``LINES`` when set), or None: not a terminal (or one
    that reports no size)."""
    import os

    lines = os.environ.get("LINES", "")
    if lines.isdigit() and int(lines) > 0:
        return int(lines)
    try:
        height = os.get_terminal_size(sys.stdout.fileno()).lines if sys.stdout.isatty() else None
    except (OSError, ValueError, AttributeError):
        return None
    return height or None


def _page(lines: list[str]) -> list[str]:
    """The first page of ``lines`` written to stdout (as many as fit above a prompt line in the terminal, read at
    each page: it may have been resized; every line when its height is unknown); the lines left to show."""
    height = terminal_height()
    n = len(lines) if height is None else max(height - 1, 3)
    sys.stdout.write("".join(f"{line}\n" for line in lines[:n]))
    sys.stdout.flush()
    return lines[n:]


def _interactive(hist: Any, perspective: str, index: int, out: "Output", parts: Sequence[Any] = ()) -> None:
    """The review from step ``index``; ``parts``: what to show of that step in its place (``--event N`` inside
    it: the step cut after N, then the rest of it), paged as one step is (they were printed whole, the next step
    drawn under them at once, QA round 32)."""
    last = len(hist.bounds) - 1
    index = min(index, last)
    shown = None
    keys: list[str] = []
    rest: list[str] = []  # the lines of the step shown still to show (a step taller than the terminal: more(1))
    if parts:
        rest = _page([line for part in parts for line in out.step_lines(part)])
        shown = index
    while True:
        if index != shown:
            (step,) = hist.steps(perspective, index, index + 1)
            rest = _page(out.step_lines(step))
            shown = index
        width = terminal_width()  # at each prompt: the terminal may have been resized (the step is drawn at it too)
        if rest:  # the prompt of a page, on its line, wiped when a key is read (the step's next lines take it)
            click.echo(_prompt(f"[{index}/{last}] more ({counted(len(rest), 'line')}): {MORE}",  # (a column spare:
                               f"[{index}/{last}] {SHORT_MORE}", width and width - 1), err=True, nl=False)  # no wrap)
        else:
            click.echo(_prompt(f"[{index}/{last}] {KEYS}", f"[{index}/{last}] {SHORT_KEYS}", width), err=True)
        if not keys:
            keys = _read_keys()
        if rest:
            click.echo("\r\x1b[K" if sys.stderr.isatty() else "", err=True, nl=not sys.stderr.isatty())
        if not keys:  # the end of input: as q
            return
        key = keys.pop(0)
        if key == "\x03":  # Ctrl-C among keys read at once (alone, click.getchar raises it): Aborted!, exit 1
            raise KeyboardInterrupt
        if key in QUIT_KEYS:
            return
        if rest and key in MORE_KEYS:
            rest = _page(rest)
        elif key in BACK_KEYS:
            if index == 0:
                click.echo("no earlier step: this is the first one", err=True)
            else:
                index -= 1
        elif key in TURN_KEYS:
            later = [t for t in hist.turns if t > hist.bounds[index][1]]
            if later:
                index = hist.step_of(later[0])
            else:
                click.echo("no later turn: this is the last one", err=True)
        elif key in NEXT_KEYS:
            if index == last:
                click.echo("end of the match", err=True)
                return
            index += 1
        else:  # any other key: nothing but the keys that work (each was taken for "next")
            keys_text = (MORE, SHORT_MORE) if rest else (KEYS, SHORT_KEYS)
            click.echo(_prompt(f"keys: {keys_text[0]}", f"keys: {keys_text[1]}", width), err=True)


# ---------------------------------------------------------------------- output
class Output:
    def __init__(self, fmt: str, game: Any):
        self.fmt = fmt
        self.game = game  # zx_events.games.base.Game: draws its board and lists its cards
        self.header = True
        self.player: str | None = None  # the name of the player whose seat it is, asked for by name (the title's)
        self.cut: set[str] = set()  # the texts of records, events and violations a table showed cut (draw_step)

    def step(self, step: Any, single: bool = False) -> None:
        if self.fmt == "json":
            data = step.state.to_json() if single else step.to_json()
            click.echo(json_text(data))
        elif self.fmt == "csv":
            emit(self.game.card_rows(step.state, step.index), "csv", list(self.game.card_columns),
                 header=self.header)
            self.header = False
        else:
            draw_step(step, self.game, self.cut, player=self.player)

    def step_lines(self, step: Any) -> list[str]:
        """Step ``step`` as ``step`` draws a table (``--step``'s format on a terminal), as lines to write (another
        format: written, none left to write)."""
        if self.fmt != "table":
            self.step(step)
            return []
        return draw_step(step, self.game, self.cut, capture=True, player=self.player).splitlines()


def _cut_values(v: Any, cut: set[str]) -> Any:
    """``v`` with each text in it cut to 200 terminal cells (``freetext.cut_cells``, as a board's player and deck
    names: a Token's name, a result's reason or a note of 5,000 characters filled a hundred lines of its step);
    ``cut`` gets each text cut."""
    from zx_events.freetext import cut_cells

    if isinstance(v, str):
        shown = cut_cells(v)
        if shown != v:
            cut.add(v)
        return shown
    if isinstance(v, dict):
        return {k: _cut_values(x, cut) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_cut_values(x, cut) for x in v]
    return v


def _record_text(rec: Any, cut: set[str]) -> str:
    if rec is None:
        return "header"
    from zx_events.replay import thaw

    r = thaw(rec)
    head = f"{r.pop('by', '')} {r.pop('do', '')}".strip()
    return f"{head} {json.dumps(_cut_values(r, cut), ensure_ascii=False)}" if r else head


def _event_text(e: Any, cut: set[str]) -> str:
    """An event in its game's words (``EventView.text``, ``Game.narrate``: "P2 Hana draws a card"; its fields,
    ``key=value``, where the game has no sentence), cut to 200 terminal cells. The judge's ``Started``: its file
    kept, the match's words before it cut to make room (a long event, round or names took the file with them)."""
    source = e.data.get("source") if e.kind == "Started" else None
    if isinstance(source, str) and source and len(e.text) > SHOWN_CELLS // 2:  # (a cell at most 2 characters)
        from rich.cells import cell_len

        from zx_events.narration import imported_from

        phrase = imported_from(e.data)  # (as the sentence has it)
        at = e.text.find(phrase)
        if at > 0:  # the match's words, the file's, then the header's note (`` — NOTE``): the note is cut first,
            # then the words before the file (to 40 cells at least); the file stays whole
            head, note = e.text[:at], e.text[at + len(phrase):]
            room = SHOWN_CELLS - cell_len(head) - cell_len(phrase)
            if room < 10:
                head = cut_cells(head, max(SHOWN_CELLS - cell_len(phrase) - (3 if note else 0), 40))
                note = "..." if note else ""
            shown = head + phrase + cut_cells(note, max(room, 3))
            if shown != e.text:
                cut.add(e.text)
            return shown
    return _cut_values(e.text, cut)


def step_title(step: Any, phase: str, cells: int, player: str | None = None) -> str:
    """The title of step ``step`` (its state's match, ``seq``, turn and seat; ``phase`` in the viewer's words), its
    control characters escaped, in ``cells`` terminal cells where it can be: the match id gives way first (cut in
    the middle, then left out), then ``seq``, then the phase, so that the step, the turn and the seat stay (at 40
    columns the end was cut: ``sim-1-0038 · step 0 · seq 1/417 · t…``). A narrower title is cut at its end.
    ``player``: the name of the player whose seat it is (``--as NAME``), after the seat, ``as P2 (佐藤 蓮)``, cut to
    40 cells; it gives way after the phase."""
    from rich.cells import cell_len

    v = step.state
    turn = f"turn {v.turn}" + (f" ({v.active})" if v.active else "")
    seat = seat_only = f"as {v.perspective}"
    if player:
        seat += f" ({printable(cut_cells(player, 40))})"
    title = printable(f"{v.match_id} · step {step.index} · seq {v.seq}/{v.last_seq} · {turn} · {phase} · ") + seat
    if cell_len(title) <= cells:
        return title
    step_, seq, phase = f"step {step.index}", f"seq {v.seq}/{v.last_seq}", printable(phase)
    rest = " · ".join((step_, seq, turn, phase, seat))
    room = cells - cell_len(rest) - len(" · ")
    if room >= 7:  # (fewer cells keep too little of an id to tell it)
        return f"{_elide_middle(printable(v.match_id), room)} · {rest}"
    for shorter in ((step_, seq, turn, phase, seat), (step_, turn, phase, seat), (step_, turn, seat),
                    (step_, turn, seat_only)):
        title = " · ".join(shorter)
        if cell_len(title) <= cells:
            break
    return title


def _elide_middle(text: str, cells: int) -> str:
    """``text`` in ``cells`` terminal cells: its start and its end, whole grapheme clusters, about a half each,
    with ``…`` between them."""
    from rich.cells import cell_len
    from wcwidth import iter_graphemes

    from zx_events.freetext import cells_prefix

    head = text[:cells_prefix(text, cells // 2)]
    tail: list[str] = []
    free = cells - 1 - cell_len(head)
    for cluster in reversed(list(iter_graphemes(text[len(head):]))):
        free -= cell_len(cluster)
        if free < 0:
            break
        tail.append(cluster)
    return f"{head}…{''.join(reversed(tail))}"


def draw_step(step: Any, game: Any, cut: set[str] | None = None, capture: bool = False,
              player: str | None = None) -> str:
    """Step ``step`` drawn on stdout: its record, its events, its violations and the board after it; ``cut`` gets
    each text of them cut to 200 terminal cells (``_cut_values``). ``capture``: not written, returned (the
    terminal's styles in it). ``player``: the title's name of the seat's player (``step_title``)."""
    from rich.console import Console, Group
    from rich.rule import Rule
    from rich.text import Text

    cut = set() if cut is None else cut
    v = step.state
    console = Console(file=sys.stdout, width=terminal_width() or 120, soft_wrap=False,  # COLUMNS, else the terminal's
                      highlight=False)
    console.on_broken_pipe = output_closed  # (zx replay | head: 141, quietly; rich's own exits 1)
    phase = game.phase_text(v.phase)  # the viewer's words ("over" was printed as it is stored)
    # a log's text (names, ids, notes) is shown as text: never markup, its control characters escaped before
    # a Text holds it (Text drops \a \b \v \f \r and measures other controls as no width: the line was cut);
    # Printable escapes what a game's board still holds
    parts: list[Any] = [Rule(Text(step_title(step, phase, console.width - 4, player)))]  # (a Rule: 2 cells each side)
    where = f"line {step.line}: " if step.line is not None else ""
    skipped = " [record not applied]" if any(e.kind == "RecordSkipped" for e in step.events) else ""  # (no finding
    # of its own: a pass of a battle refused at its attack, docs/replay.md)
    parts.append(Text(printable(f"{where}{_record_text(step.record, cut)}{skipped}"), style="bold"))
    for e in step.events:
        parts.append(Text(printable(f"  seq {e.seq:>4} {e.kind:<18} {_event_text(e, cut)}")))
    for viol in step.violations:
        parts.append(Text(printable(f"  ! violation rule {viol.rule} ({viol.player or '-'}, line "
                                    f"{viol.line}): {_cut_values(viol.message, cut)}")
                          + ("" if viol.applied else " [record not applied]"), style="bold red"))
    parts.append(game.render_board(v))
    if capture:
        with console.capture() as captured:
            console.print(Printable(Group(*parts)))
        return captured.get()
    console.print(Printable(Group(*parts)))  # one print a step (a print each line took a third of its time)
    return ""


def _prepare_failed(svc: Any, e: Exception, prepared: int, total: int) -> str:
    """``zx prepare``'s error when the store refuses a write: how far it got, the cause (the file or
    folder not writable, the disk full, the store locked: it said "a read-only store" for each), and
    what to do. The matches prepared before keep their snapshots: a run again skips them."""
    from .common import store_failed

    done = f"{prepared:,} of {counted(total, 'match', 'matches')} {'was' if prepared == 1 else 'were'} prepared before (their snapshots stay; zx prepare skips them)"
    cause, todo = store_failed(svc.store, e, "run zx prepare again",
                               kept="seeks still work, replaying from the first event; ")
    return f"cannot write snapshots to {svc.store.label}: {cause}. {done}; {todo}"


def _prepare_interrupted(svc: Any, done: int, total: int, written: int) -> str:
    """What an interrupted ``zx prepare`` kept (it said "Aborted!" alone): the matches done before the one under
    way (whose snapshots are one insert: written whole, or not at all), and that a run again goes on."""
    from .sigterm import interrupted_word

    return (f"{interrupted_word()}: the snapshots of {done:,} of {counted(total, 'match', 'matches')} are "
            f"written in {svc.store.label} ({counted(written, 'snapshot')} by this run); `zx prepare` goes on from "
            f"there (the matches prepared are skipped)")


PREPARE_COLUMNS = ["matches", "prepared", "up_to_date", "snapshots", "repaired", "damaged", "newer_rules", "seconds"]


@click.command("prepare")
@click.argument("matches", nargs=-1, metavar="[MATCH...]")
@click.option("--repair", is_flag=True,
              help="Also compare every stored snapshot with its match's events (as zx verify does, replaying each "
                   "match) and write again the snapshots of a match where one disagrees.")
@format_option
@click.pass_context
def prepare_cmd(ctx: click.Context, matches: tuple[str, ...], repair: bool, fmt: str) -> None:
    """Write the replay snapshots of stored matches, so that any moment of them opens at once.

    \b
    Examples:
      zx prepare   (every stored match)
      zx prepare sim-2026-0003

    One snapshot every 10 events: the state after that event, bound to its digest (further apart in
    a match whose state outgrows its events, such as thousands of accepted violations: one where the
    events since the last hold a quarter of its bytes). A seek (the views of zx serve, and
    replay.state_at / view_at in Python) then decodes one snapshot and at most 9 events instead of
    every event from the first. replay.state_at writes a match's snapshots at
    its first seek into it; zx serve writes nothing, so run zx prepare after an import to make the
    server's first view of every match fast. Events are never changed, a snapshot damaged or bound to
    another event is never used (docs/security.md), and matches that have their snapshots are
    skipped. A snapshot altered with its check recomputed can only be told by replaying the match:
    zx verify does, and --repair writes such a match's snapshots again. Exit 1 when a match cannot
    be replayed (zx verify names the damage), or was imported under rules newer than this zx knows
    (newer_rules: a store taken back from a later zx).
    """
    import time

    from eventsourcing.persistence import PersistenceError

    from zx_events import replay
    from zx_events.application import TOPICS_STARTED
    from zx_events.games import NewerRules
    from zx_events.store import unwritable, write_refusal

    svc = service(ctx, write=True)  # a missing store: "there is no store at ...", nothing created
    if svc.store.read_only:  # a store in a folder it cannot write, opened as an unchanging file
        svc.close()
        raise click.ClickException(f"cannot write snapshots to {svc.store.label}: {unwritable(svc.store.path)}; "
                                   f"nothing was written (seeks still work, replaying from the first event)")
    refusal = write_refusal(svc.store, "prepare", repair=repair)  # PostgreSQL: a privilege missing, a read-only role
    if refusal is not None:
        svc.close()
        raise click.ClickException(refusal)
    if matches:
        for m in matches:
            if not svc.has_match(m):
                from zx_events.replay import unknown

                raise click.ClickException(unknown(svc, m).message)
        targets = list(matches)
    else:
        targets = [svc.mapper.fields(n.state)["match_id"] for n in svc.notifications(list(TOPICS_STARTED))]
    t0 = time.perf_counter()
    written = prepared = repaired = 0
    damaged: list[str] = []
    newer: list[str] = []
    stopped = None  # interrupted before this match (its index)
    with progress(len(targets), "preparing snapshots") as bar:
        task = bar.add_task("prepare", total=len(targets))
        for done, m in enumerate(targets):
            try:
                if repair:
                    repaired += replay.repair_snapshots(svc, m) > 0
                n = replay.prepare_snapshots(svc, m, strict=True)
            except PersistenceError as e:
                raise click.ClickException(_prepare_failed(svc, e, prepared, len(targets))) from None
            except NewerRules as e:  # intact, of rules this zx does not know: not damaged (zx verify passes it)
                newer.append(m)
                say(bar, f"{m}: {e}")
            except ZXError as e:  # DamagedMatch: an event missing or undecodable
                damaged.append(m)
                say(bar, f"{m}: {e}")
            except KeyboardInterrupt:  # Ctrl-C, SIGTERM: each match's snapshots are written whole (one insert)
                stopped = done
                break
            else:
                written += n
                prepared += n > 0
            bar.advance(task)
    if stopped is not None:  # (said below the bar's last line)
        click.echo(_prepare_interrupted(svc, stopped, len(targets), written), err=True)
        raise click.Abort()
    row = {"matches": len(targets), "prepared": prepared,
           "up_to_date": len(targets) - prepared - len(damaged) - len(newer), "snapshots": written,
           "repaired": repaired, "damaged": len(damaged), "newer_rules": len(newer),
           "seconds": round(time.perf_counter() - t0, 2)}
    emit([row], fmt, PREPARE_COLUMNS)
    click.echo(f"{counted(written, 'snapshot')} written for {prepared:,} of {counted(len(targets), 'match', 'matches')} in {svc.store.label}", err=True)
    if damaged or newer:
        sys.exit(1)
