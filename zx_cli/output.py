"""Shared output for every command that prints rows: a table by default, or ``--format json|csv``."""

from __future__ import annotations

import io
import json
import math
import re
import sys
import threading
from contextlib import contextmanager
from functools import cache
from typing import Any, Collection, Iterable, Sequence

import click

from zx_events.freetext import SHOWN_CELLS, cells_prefix, counted, cut_cells, json_escaped, printable  # noqa: F401
# (counted: the commands' from here)

_re = cache(re.compile)  # this module's patterns, each compiled when a value first needs it (a cut cell, a CSV cell
# that starts as a formula would), not at every start-up (issue 20 target 4)

_drawing = threading.local()  # a table drawn into buffers by a thread of its own (drawn_into): its streams, width


@contextmanager
def drawn_into(out: Any, notes: Any, width: int | None):
    """A table ``emit`` draws in this thread goes to ``out`` and its notes to ``notes``, fitted to ``width`` (the
    terminal's, asked before: a buffer has none), not to stdout and stderr: ``zx sql`` draws its table in a thread
    it can stop waiting for (a redirection of sys.stdout was the process's, and outlived the call)."""
    _drawing.out, _drawing.notes, _drawing.width = out, notes, width
    try:
        yield
    finally:
        del _drawing.out, _drawing.notes, _drawing.width


def _note(text: str) -> None:
    """A table's note, on stderr (or the notes of ``drawn_into``)."""
    notes = getattr(_drawing, "notes", None)
    click.echo(text, err=notes is None, file=notes)

def emit_written(fmt: str, row: dict[str, Any]) -> None:
    """The result of a command that wrote a file: ``row["file"]`` alone, or ``row`` as JSON (one
    object) or CSV."""
    if fmt == "path":
        click.echo(row["file"])
    elif fmt == "json":
        click.echo(json_text(row))
    else:
        emit([row], "csv")


def blob_text(b: bytes) -> str:
    """Bytes as DuckDB writes a BLOB as text: printable ASCII as it is, every other byte and the
    backslash as ``\\xHH`` (``'a\\x00'``)."""
    return "".join(chr(c) if 32 <= c < 127 and c != 92 else f"\\x{c:02X}" for c in b)


def _cell(v: Any, exact: bool = False, lists: bool = False) -> str:
    """A value as table text (floats to 4 significant digits) or, ``exact``, as CSV text (every digit).
    Text with control characters gets their escapes (``freetext.printable``): a table or CSV may be
    read in a terminal; a table's text its invisible format characters' too (``\\u200b``: two names that
    differ by one alone read alike). A list is its items, comma-separated (a match's seats), or, ``lists`` (``zx sql``,
    which prints DuckDB's values exactly), its JSON array: ['a, b'] and ['a', 'b'] were both "a, b"."""
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v) if exact else f"{v:.4g}"
    if isinstance(v, (list, tuple)) and not lists:
        return ", ".join(_cell(x, exact) for x in v)
    if isinstance(v, (list, tuple)):
        return printable(_nested(v), unseen=not exact)
    if isinstance(v, dict):
        return printable(json_text(v), unseen=not exact)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return blob_text(bytes(v))
    return printable(str(v), unseen=not exact)  # (a CSV keeps the invisible format characters: data as logged)


def _nested(v: Any) -> str:
    """A list (``zx sql``) as DuckDB's values in brackets: text quoted as JSON quotes it (``["a, b"]`` is not
    ``["a", "b"]``), ``NULL`` for a null (JSON's ``null`` was also NaN's and infinity's), a float with every digit
    (``nan``, ``inf``), a DECIMAL with its scale (``1.10``), a struct as its keys and values alike."""
    if v is None:
        return "NULL"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_nested(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)}: {_nested(x)}" for k, x in v.items()) + "}"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return json.dumps(blob_text(bytes(v)))
    return str(v)


def plain(text: str) -> Any:
    """``text`` for a rich table or console as it is: never read as markup (a player named ``[/]``
    failed ``zx matches``, one named ``[link=...]`` became a link)."""
    from rich.text import Text

    return Text(text)


class Printable:
    """A rich renderable drawn with every control character in its text escaped (``printable``): the
    game's board and the replay's lines show a log's names, and a name can hold an ESC sequence."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.segment import Segment

        for seg in console.render(self.inner, options):
            shown = seg.text if seg.control is not None else printable(seg.text)
            yield seg if shown is seg.text else Segment(shown, seg.style)  # (printable: the text itself if kept)


def _json_default(v: Any) -> Any:
    """What ``json`` cannot write itself: bytes as DuckDB's text of a BLOB, a decimal as the number
    it is (its text where a JSON number would round it), anything else (dates, times, UUIDs) as its text."""
    from decimal import Decimal  # (asked only for a value json cannot write: not at every start-up)

    if isinstance(v, (bytes, bytearray, memoryview)):
        return blob_text(bytes(v))
    if isinstance(v, Decimal) and v.is_finite():
        if v == v.to_integral_value():
            return int(v)
        f = float(v)
        if Decimal(repr(f)) == v:
            return f
    return str(v)


def _json_ready(v: Any) -> Any:
    """``v`` with what JSON has no value for replaced: a NaN or an infinity by null, a key that is
    not a string, number, boolean or null by its text."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k if k is None or isinstance(k, (str, int, float, bool)) else str(_json_default(k)): _json_ready(x)
                for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_ready(x) for x in v]
    return v


def json_text(value: Any) -> str:
    """``value`` as valid JSON (never ``NaN``: ``json.dumps`` would write it), on one line: the text of every
    ``--format json``. Non-ASCII text as it is (a Japanese name stays readable), but each character a terminal
    acts on (C1 controls, DEL, line separators, bidirectional controls: ``freetext.json_escaped``) as its
    ``\\uXXXX`` escape, which JSON does not do itself: the same value, never a log's escape sequence run."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=_json_default, allow_nan=False)
    except (ValueError, TypeError):  # a NaN or an infinity, or a dict key JSON cannot have: rare, so looked for only then
        text = json.dumps(_json_ready(value), ensure_ascii=False, default=_json_default, allow_nan=False)
    return json_escaped(text)


TABLE_ROWS = 1000  # rows a table shows at most (a note on stderr counts the others; CSV and JSON give them all)


def emit(rows: Sequence[dict[str, Any]], fmt: str, columns: Iterable[str] | None = None,
         title: str | None = None, header: bool = True, first: Sequence[str] = (),
         most: int | None = TABLE_ROWS, lists: bool = False) -> None:
    """Print ``rows`` to stdout in ``fmt``; ``columns`` picks and orders the table/CSV columns.

    ``header=False`` leaves out the CSV header row (for rows that continue an earlier emit).
    ``first``: the columns a table in a narrow terminal keeps first, after the first column (the
    others follow in order while they fit; the table shows them in ``columns``' order). ``most``: the
    rows a table shows at most (None: all; ``zx sql --limit N`` cuts its own rows and says so); ``lists``: a
    list value as its JSON array (``_cell``)."""
    cols = list(columns) if columns is not None else (list(rows[0].keys()) if rows else [])
    if fmt == "json":
        click.echo(json_text(list(rows)))
        return
    if fmt == "csv":
        _echo_csv(cols if header else None, ([r.get(c) for c in cols] for r in rows), lists=lists)
        return
    more = len(rows) - most if most is not None else 0
    if more > 0:  # rich lays a table out whole, ~0.6 ms a row: an import of 200,000 logs took 130 s and 1.8 GB
        rows = rows[:most]  # to print its table; CSV and JSON stream every row
    cells = [[_cell(r.get(c), lists=lists) for c in cols] for r in rows]
    width = terminal_width()
    cells, cut = _cut(cells) if width is not None else (cells, {})
    # in a terminal, the columns that fit it (the first always, then ``first``, then in order; long
    # text wraps at 24); elsewhere (a pipe, a file) every column, whole (``print_table``)
    tokens = _tokens(cols, cells)
    idx = list(range(len(cols))) if width is None or not cols else _fit(cols, cells, width, keep=1, first=first,
                                                                          wrap=24, rigid=tokens)
    named = [cols.index(c) for c in first if c in cols]
    for wrap in (16, 12, 8):  # a ``first`` column left out: text wraps narrower for it (the later columns took its
        if width is None or all(i in idx for i in named):  # room: a narrow zx audit showed seq and turn, not message)
            break
        idx = _fit(cols, cells, width, keep=1, first=first, wrap=wrap, rigid=tokens)
    whole = False
    if width is not None and cols and cells and all(_cells(r[0]) <= TOKEN_MAX and not any(ch.isspace() for ch in r[0])
                                                  for r in cells):
        # a key of single words (a match id: what a user copies into zx replay) is drawn whole where the first three
        # ``first`` columns still fit beside it (all of them, at the widest wrap that fits them); the tries above
        # count it at their wrap, and rich folded x610z-sim-11-0001 at 60-75 columns to give a deck name its
        # width (QA round 37); narrower, it folds (an audit's seq at 50 columns)
        solid = {*tokens, cols[0]}
        for wrap in (24, 16, 12, 8):
            tried = _fit(cols, cells, width, keep=1, first=first, wrap=wrap, rigid=solid)
            if all(i in tried for i in named[:3]) and (not whole or all(i in tried for i in named)):
                idx, whole = tried, True
            if whole and all(i in idx for i in named):
                break
    print_table(_table(title, cols, cells, idx, rigid=tokens, natural=width is None, whole_key=whole), width)
    _cut_note(cut, idx)
    _left_out(cols, idx, width, "a wider terminal, or --format csv|json, gives every value")
    if more > 0:
        _note(f"(the table shows the first {most:,} rows; {counted(more, 'more row')} left out: "
              f"--format csv|json gives every row)")


TOKEN_MAX = 32  # a column of single words this long at most is kept whole in a table, or left out


def _tokens(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> set[str]:
    """The columns whose every cell is one word (no space) of at most ``TOKEN_MAX`` characters: a time, an id, a
    number. A table keeps each whole or leaves it out (with the note naming it): folded, ``zx matches`` showed
    every ``played_at`` over two lines at 100 columns, ``2026-03-05T10:47:00+09:0`` above a lone ``0``."""
    return {h for i, h in enumerate(headers)  # (not the first, the key: kept always, at 50 columns folded)
            if i > 0 and rows and all(_cells(r[i]) <= TOKEN_MAX and not any(ch.isspace() for ch in r[i]) for r in rows)}


def _cells(text: str) -> int:
    """The terminal cells ``text`` takes (a wide East Asian character two): tables were fitted by characters, and a
    Japanese name of 16 characters, 32 cells, was kept whole as a "word" while the match id was squeezed to nothing
    (QA round 31)."""
    from rich.cells import cell_len

    return cell_len(text)


def print_table(table: Any, width: int | None) -> None:
    """Print a rich table to stdout: fitted to ``width`` characters (a terminal, or ``COLUMNS``), or,
    ``width`` None (a pipe, a file), as wide as its content needs: no cell ever wrapped or cut (a pipe
    got 100-200 characters: ``zx verify | grep MATCH`` missed an id folded in two)."""
    from rich.console import Console
    from rich.text import Text

    # width None: a console wider than any table, which rich draws at its natural width (every column as wide as
    # its widest cell: a table is not expanded), as on a console of that width: it was measured first, every cell
    # a second time (a fifth of zx matches' drawing), for the same lines
    console = Console(file=getattr(_drawing, "out", None) or sys.stdout, width=width or 1_000_000, soft_wrap=False)
    console.on_broken_pipe = output_closed  # (rich's own exits 1)
    if width is None and isinstance(table.title, Text):  # on one line, however much wider than the table (rich
        table.title.no_wrap, table.title.overflow = True, "ignore"  # folds it to it)
    elif isinstance(table.title, Text) and table.title.cell_len > console.measure(table).maximum:
        # a title wider than its table, on a terminal: its own lines, as wide as the terminal (rich folded it to the
        # table: a clean audit's sentence in 3-5 lines of 42 characters above an empty table, QA round 34)
        title, table.title = table.title, None
        title.style = "table.title"
        console.print(title)
    console.print(table)


def output_closed() -> None:
    """A rich console's reader went away (``zx matches | head``): the broken pipe goes up to ``zx_cli.main``, which
    ends quietly with 141, as POSIX tools do (rich's own handler exited 1, the status of a finding or an error)."""
    import errno

    raise BrokenPipeError(errno.EPIPE, "Broken pipe")


MIN_WIDTH = 20  # a narrower terminal (COLUMNS=1) printed a table of borders and no value: drawn this wide (a
# name and a count; a rate and its interval from about 30: docs/analytics.md)


def terminal_width() -> int | None:
    """The width of the terminal the output goes to (``COLUMNS`` when set; at least ``MIN_WIDTH``), or
    None: not a terminal."""
    import os

    if hasattr(_drawing, "width"):  # (a table drawn into a buffer: the terminal's, asked before)
        return _drawing.width
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    try:
        width = os.get_terminal_size(sys.stdout.fileno()).columns if sys.stdout.isatty() else None
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's captured output)
        return None
    return max(width, MIN_WIDTH) if width else None  # a terminal that reports no size (0: a bare pty): as a pipe


class _NoBar:
    """What ``progress`` gives when no bar is shown: the calls commands make, doing nothing (rich's
    console and progress modules, ~40 ms to import, are not imported for a bar that is not drawn)."""

    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0

    def advance(self, *args: Any, **kwargs: Any) -> None:
        return None

    def update(self, *args: Any, **kwargs: Any) -> None:
        return None

    def stop(self) -> None:
        return None


def _stderr_is_a_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # (closed, or a stream without it)
        return False


class LateBar:
    """A progress bar drawn only once its work begins (its first ``update``), entered into ``stack`` (an
    ``ExitStack``) and stopped with it: a no-op ``zx analytics update``, one refused at once, or an export into a
    folder that cannot be made drew an empty bar ("0/? 0:00:00", "exporting 0/14") over what followed."""

    def __init__(self, stack: Any, label: str) -> None:
        self.stack, self.label = stack, label
        self.bar: Any = None
        self.task: Any = None

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = self.stack.enter_context(progress(max(total, 2), self.label))
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)


def say(bar: Any, text: str) -> None:
    """``text`` on stderr, on its own line above ``bar`` while the bar is drawn (``click.echo`` wrote it after
    the bar's line, glued to it: click writes to stderr itself, not through rich's redirection); a ``_NoBar``, or a
    bar stopped: ``click.echo``."""
    live = getattr(bar, "live", None)
    if live is None or not live.is_started:
        click.echo(text, err=True)
        return
    from rich.text import Text

    bar.console.print(Text(text), soft_wrap=True)  # (soft_wrap: the terminal wraps it, as click.echo's)


class _PlainBar:
    """``progress`` on a stderr that is no terminal (cron, systemd, a pipe into a log): rich's bar (``inner``), which
    there draws its last state only, when it stops, and a line at most every ``ZX_PROGRESS_SECONDS`` (default 10)
    of work in between, ``importing: 1.2 GB of 3.4 GB (35%), 0:01:10``: a 3-minute import into PostgreSQL said
    nothing until it ended (QA round 37)."""

    def __init__(self, inner: Any, total: int, label: str, in_bytes: bool) -> None:
        import os
        import time

        self.inner, self.label, self.total, self.done, self.in_bytes = inner, label, total, 0.0, in_bytes
        try:
            self.every = float(os.environ.get("ZX_PROGRESS_SECONDS", "10"))
        except ValueError:
            self.every = 10.0
        if not 0 <= self.every < float("inf"):  # (-5, nan, inf: the default; nan was 0, a line every item)
            self.every = 10.0
        self.clock = time.monotonic
        self.began = self.said = self.clock()

    def __enter__(self) -> "_PlainBar":
        self.inner.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self.inner.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:  # (live, console, stop: rich's, as ``say`` reads them)
        return getattr(self.inner, name)

    def add_task(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("total") is not None:
            self.total = kwargs["total"]
        return self.inner.add_task(*args, **kwargs)

    def advance(self, task: Any, advance: float = 1) -> None:
        self.inner.advance(task, advance)
        self.done += advance
        self._tick()

    def update(self, task: Any, **kwargs: Any) -> None:
        self.inner.update(task, **kwargs)
        if kwargs.get("total") is not None:
            self.total = kwargs["total"]
        if kwargs.get("completed") is not None:
            self.done = kwargs["completed"]
        if kwargs.get("advance") is not None:
            self.done += kwargs["advance"]
        self._tick()

    def _tick(self) -> None:
        now = self.clock()
        if now - self.said < self.every:
            return
        self.said = now

        def size(n: float) -> str:
            return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB"
        done, total, seconds = self.done, self.total or 0, int(now - self.began)
        shown = f"{size(done)} of {size(total)}" if self.in_bytes else f"{int(done):,} of {int(total):,}"
        share = f" ({min(done / total, 1):.0%})" if total else ""
        click.echo(f"{self.label}: {shown}{share}, {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}",
                   err=True)


def progress(total: int, label: str, enabled: bool = True, *, in_bytes: bool = False):
    """A progress bar on stderr (shown only when there is enough work to be worth it); ``in_bytes``:
    the count is bytes read, shown as sizes (``1.2/3.2 MB``) rather than a bare number. A stderr that is no
    terminal gets a line every few seconds besides (``_PlainBar``)."""
    if not enabled or total < 2:
        return _NoBar()
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    count = DownloadColumn() if in_bytes else MofNCompleteColumn()
    bar = Progress(TextColumn(label), BarColumn(), count, TimeElapsedColumn(), console=Console(file=sys.stderr),
                   transient=False)
    return bar if _stderr_is_a_terminal() else _PlainBar(bar, total, label, in_bytes)


# ---------------------------------------------------------------------- frames of rates (zx stats, zx demo)
LOW_PRIORITY = ("wins", "losses", "draws", "field")  # counts a narrow table leaves out first


def _is_rate(df_columns: Sequence[str], c: str) -> bool:
    return f"{c}_low" in df_columns and f"{c}_high" in df_columns


def rate_text(v: float | None, low: float | None, high: float | None, points: bool = False) -> str:
    """``52.3% (48.1-56.4)``: a rate and its 95% interval; ``points``: a difference in percentage
    points, signed (``+5.2 pp (-1.0-+11.3)``)."""
    if v is None:
        return ""
    if points:
        return f"{v * 100:+.1f} pp ({low * 100:+.1f} to {high * 100:+.1f})" if low is not None else f"{v * 100:+.1f} pp"
    return f"{v:.1%} ({low * 100:.1f}-{high * 100:.1f})" if low is not None else f"{v:.1%}"


def table_rows(df: Any) -> tuple[list[str], list[list[str]]]:
    """A frame as table text: each rate with its interval in one cell, ``low_sample`` as ``low``."""
    cols = list(df.columns)
    shown = [c for c in cols if not (c.endswith(("_low", "_high")) and _is_rate(cols, c.rsplit("_", 1)[0]))]
    out = []
    for r in df.iter_rows(named=True):
        row = []
        for c in shown:
            if _is_rate(cols, c):
                row.append(rate_text(r[c], r[f"{c}_low"], r[f"{c}_high"], points=c == "iwd"))
            elif c == "low_sample":
                row.append("low" if r[c] else "")
            else:
                row.append(_cell(r[c]))
        out.append(row)
    return ["sample" if c == "low_sample" else c for c in shown], out


def _fit(headers: list[str], rows: list[list[str]], width: int, keep: int, first: Sequence[str] = (),
         wrap: int = 30, rigid: Collection[str] = (), flag: bool = True, last: Collection[str] = ()) -> list[int]:
    """The columns (indexes) a table of ``width`` characters keeps: the first ``keep`` always (and the
    ``sample`` flag, unless not ``flag``), then in order of priority (``first``, then frame order,
    low-priority counts last) while they fit; long text wraps at ``wrap`` characters, but never in the
    ``rigid`` columns (a rate and its interval); a key's header too (a label: ``hand_size`` over two lines
    beside a win rate, at 80 columns zx stats mulligans needed 82 for its three rates)."""
    def need(i: int) -> int:
        natural = max([_cells(headers[i]), *(_cells(r[i]) for r in rows)]) if rows else _cells(headers[i])
        if headers[i] in rigid:
            return natural + 3
        return min(natural, wrap if i < keep else max(wrap, len(headers[i]))) + 3
    order = list(range(len(headers)))
    low = [i for i in order[keep:] if headers[i] in LOW_PRIORITY or headers[i].endswith(tuple(f"_{p}" for p in LOW_PRIORITY))
           or headers[i] in last]  # (``last``: columns empty in every row)
    named = [headers.index(c) for c in first if c in headers and headers.index(c) >= keep]
    ranked = order[:keep] + named + [i for i in order[keep:] if i not in low and i not in named] + \
        [i for i in low if i not in named]
    always = [i for n, i in enumerate(ranked) if n < keep or (flag and headers[i] == "sample")]  # keys and the flag
    chosen, used = list(always), 1 + sum(need(i) for i in always)
    rate_of = {i: _rate_of(headers, headers[i]) for i in ranked}
    for i in list(ranked):  # a count ranked before its rate is weighed right after it (games, win_rate)
        rate = headers.index(rate_of[i]) if rate_of[i] is not None else None
        if rate is not None and i not in always and ranked.index(i) < ranked.index(rate):
            ranked.remove(i)
            ranked.insert(ranked.index(rate) + 1, i)
    for i in ranked:
        if rate_of[i] is not None and headers.index(rate_of[i]) not in chosen:  # a count only beside its rate:
            continue  # "never another metric's count without its rate" (a narrow stats meta showed games and
            # wins, not win_rate, whose counts they are)
        if i not in always and used + need(i) <= width:
            chosen.append(i)
            used += need(i)
    return sorted(chosen)


def _rate_of(headers: Sequence[str], column: str) -> str | None:
    """The rate whose count ``column`` is, when that rate is a column of the table (shown with its interval):
    ``games``, ``wins``, ``losses``, ``draws`` of ``win_rate``; ``X_games``, ``X_wins`` of ``X_win_rate`` (or
    ``X_wr``); the counts of ``RATE_COUNTS`` and ``RATE_HITS``. None: not a rate's count (or its rate is not in the
    table)."""
    candidates = [r for r, count in [*RATE_COUNTS.items(), *RATE_HITS.items()] if count == column]
    if column in ("games", "wins", "losses", "draws"):
        candidates.append("win_rate")
    for suffix in ("_games", "_wins"):
        if column.endswith(suffix):
            stem = column[:-len(suffix)]
            candidates += [f"{stem}_win_rate", f"{stem}_wr"]
    found = [r for r in candidates if r in headers and r != column]
    return found[0] if found else None


def _is_win_rate(column: str) -> bool:
    return column == "win_rate" or column.endswith(("_win_rate", "_wr"))


def _primary(columns: Sequence[str]) -> list[str]:
    """The first win rate of a frame (else its first rate) and its count (``gih_games``, ``gih_wr``; ``games``,
    ``win_rate``), then its other rates: what a narrow table keeps before any other column (at 80 columns ``zx
    stats cards`` showed four counts and no rate, the rate's cell being the widest; at 60 ``zx stats meta`` its
    share and no win rate)."""
    rates = [c for c in columns if _is_rate(columns, c)]
    if not rates:
        return []
    rate = next((c for c in rates if _is_win_rate(c)), rates[0])
    rates = [rate] + [c for c in rates if c != rate]
    count = f"{rate[:-3]}_games" if rate.endswith("_wr") else RATE_COUNTS.get(rate, "games")
    return [c for c in (count, rate) if c in columns] + rates[1:]  # then the other rates, before other counts


LEADING = ("damage_per_turn",)  # a statistic's figure without an interval that a narrow table keeps right after the
# first rate: zx stats life's ("Life damage per turn", its description and X610Z's example), left out at 80 columns


RATE_COUNTS = {"share": "seats", "keep_rate": "games", "success_rate": "attacks", "ignition_rate": "damage",
               "comeback_rate": "behind_games", "kept_win_rate": "kept_games", "mulligan_win_rate": "mulligan_games"}
# a rate's count, where it is not games or X_games (zx_analytics.stats: each with_rate(df, rate, hits, count)); a narrow
# `zx stats life` showed ignition_rate beside games (64) where its interval rests on damage (149)
RATE_HITS = {"keep_rate": "kept", "success_rate": "successes", "ignition_rate": "ignitions", "comeback_rate": "comebacks"}
# a rate's hits, where they are not wins or X_wins: shown only beside it, as its count (a narrow `zx stats mulligans`
# showed kept beside the win rates, without keep_rate)


def emit_frame(df: Any, fmt: str, *, wide: bool = False, title: str | None = None, keep: int = 1,
               width: int | None = None,
               hint: str = "--wide shows them, --format csv|json gives every value") -> None:
    """Print a polars frame of rates: JSON/CSV with every column at full precision; a table with rates
    as percentages and their interval, fitted to the terminal (columns that do not fit are left out
    and named on stderr; ``wide``, or no terminal (a pipe, a file), shows them all), ``low_sample`` as a ``sample`` column marking rows
    ``low``, left out when no row is flagged."""
    if fmt == "json":
        click.echo(json_text(df.to_dicts()))
        return
    if fmt == "csv":
        _echo_csv(df.columns, df.iter_rows())
        return
    if df.height and not wide:  # a column empty in every row (X610Z's ignitions and ignition_rate: no Ignition,
        # docs/analytics.md) is not drawn: blank, it took the room of X610Z life's damage (QA round 37); CSV, JSON
        # and --wide keep it
        df = df.drop([c for c in df.columns if df[c].null_count() == df.height and not c.endswith(("_low", "_high"))
                      and c != "low_sample"])
    headers, rows = table_rows(df)
    if "sample" in headers and not any(r[headers.index("sample")] for r in rows):  # no row flagged: an empty column
        at = headers.index("sample")
        headers, rows = headers[:at] + headers[at + 1:], [r[:at] + r[at + 1:] for r in rows]
    width = width or terminal_width()  # None: a pipe or a file, every column (as --wide)
    # a terminal (or a width asked for): long values cut, even with --wide
    rows, cut = _cut(rows) if width is not None else (rows, {})
    # a column empty in every row (X610Z's ignition_rate: no Ignition) weighs nothing: kept at 80 columns, it left out
    # the X610Z life's damage_per_turn (QA round 36)
    empty = {c for c in df.columns if df.height and df[c].null_count() == df.height}
    primary = [c for c in _primary(df.columns) if c not in empty]
    primary[2:2] = [c for c in LEADING if c in df.columns and c not in empty]  # (after the first rate and its count)
    rates = {c for c in df.columns if _is_rate(df.columns, c)}
    idx = list(range(len(headers)))
    if not wide and width is not None:  # long text wraps at 24 characters, or narrower where the first rate and its count need it;
        # too narrow for both: the rate (its interval tells the sample's size) without its count, the text wrapped
        # narrower still (at 60 columns zx stats matchups kept games and wins, not the rate: the last try, which
        # asked for both, was kept though the rate alone fitted with the decks wrapped at 8)
        rate_first = primary[1:2] + primary[:1] + primary[2:]
        # and at 28-40 columns a table of low samples kept games, wins and the flag: names wrap at 6, then the
        # flag goes, and where the rate cannot fit beside the keys at all it is shown with them alone
        # every rate first, text wrapped down to 12 for them (the priority columns win the room: at 80 columns stats
        # archetypes showed colours, not win_rate, the archetypes wrapped at 24)
        # then every rate without the counts (names wrapped down to 12), then without the flag (names, and a key's
        # header, down to 6); then, where they do not all fit, every win rate so: rates before counts, flag and
        # labels (at 80 columns stats meta kept seats and field, not win_rate, and mulligans games and kept, not
        # mulligan_win_rate). A table of one rate: the tries below, that rate first.
        every = len(primary)
        rated = [c for c in primary if c in rates]
        wins = [c for c in rated if _is_win_rate(c)]
        groups = ([rated] if len(rated) > 1 else []) + ([wins] if 1 < len(wins) < len(rated) else [])
        several = tuple((wrap, group + [c for c in primary if c not in group], len(group), flag) for group in groups
                        for wrap, flag in ((24, True), (16, True), (12, True), (24, False), (16, False), (12, False),
                                           (8, False), (6, False)))
        for wrap, first, needed, flag in ((24, primary, every, True), (16, primary, every, True),
                                          (12, primary, every, True), *several,
                                          (24, primary, 2, True), (16, primary, 2, True), (12, primary, 2, True),
                                          (12, rate_first, 1, True), (8, rate_first, 1, True),
                                          (6, rate_first, 1, True), (6, rate_first, 1, False)):
            idx = _fit(headers, rows, width, keep, first=first, wrap=wrap, rigid=rates, flag=flag, last=empty)
            if all(headers.index(c) in idx for c in first[:needed]):
                break
        else:  # the rate beside the keys squeezed to 6 characters at least (narrower: the counts, as they fit)
            at = headers.index(rate_first[0]) if rate_first else None
            if at is not None and 1 + keep * 9 + max(_cells(r[at]) for r in [headers, *rows]) + 3 <= width:
                idx = sorted({*range(keep), at})
            elif primary:  # the keys and the first rate's count, if it fits: not another metric's count
                # (at 30 columns zx stats cards showed card, name and oh_games, a count with no rate of its own)
                idx = [i for i in idx if i < keep or headers[i] in primary]
    print_table(_table(title, headers, rows, idx, rigid=rates, natural=wide or width is None), None if wide else width)
    _cut_note(cut, idx)
    _left_out(headers, idx, width, hint)  # (the command's options: zx demo has no --wide)


CELL_MAX = SHOWN_CELLS  # terminal cells of one value a table in a terminal shows, 200 (a wide character takes two)
_PART_ESCAPE = r"\\(?:x[0-9a-fA-F]?|u[0-9a-fA-F]{0,3}|U[0-9a-fA-F]{0,7})?$"  # a cut "\x1" of "\x1b"


def _cut(rows: list[list[str]]) -> tuple[list[list[str]], dict[int, int]]:
    """``rows`` with every value wider than ``CELL_MAX`` terminal cells cut to it, ending in ``...``
    (never inside an escape such as ``\\x1b``), and how many were cut in each column: in a terminal a
    180,000-character player name folded into thousands of lines. A pipe or a file gets every value
    whole, as ``--format csv|json`` does; ``_cut_note`` says so for the columns shown. A value is cut at the end
    of a grapheme cluster (``freetext.cut_cells``, as a board cuts a name): rich's ``set_cell_size`` left half a
    flag (one regional indicator) or a family emoji cut at a joiner."""
    cut: dict[int, int] = {}
    out = []
    for r in rows:
        if any(cells_prefix(v, CELL_MAX) < len(v) for v in r):  # (quick: a value of 100 characters or fewer fits)
            new = []
            for i, v in enumerate(r):
                shown = cut_cells(v, CELL_MAX)
                if shown != v:
                    v = _re(_PART_ESCAPE).sub("", shown[:-3].rstrip()) + "..."
                    cut[i] = cut.get(i, 0) + 1
                new.append(v)
            r = new
        out.append(r)
    return out, cut


def _cut_note(cut: dict[int, int], idx: Sequence[int]) -> None:
    """The note on stderr counting the values ``_cut`` cut in the columns the table shows (``idx``)."""
    n = sum(cut.get(i, 0) for i in idx)
    if n:
        _note(f"({counted(n, 'value')} cut to {CELL_MAX} terminal cells (a wide character takes two) to fit the "
              f"terminal; --format csv|json gives every value)")


def _echo_csv(header: Sequence[str] | None, rows: Iterable[Sequence[Any]], lists: bool = False) -> None:
    """CSV to stdout: ``header`` (None: none), then each row's values at full precision (``_cell``; ``lists``:
    a list as its JSON array)."""
    buf = io.StringIO()
    if header is not None:
        buf.write(_csv_line([_formula_safe(printable(c)) for c in header]))
    for r in rows:  # (a value is a Decimal, DuckDB's, only once decimal is imported: a CSV of none does not import it)
        decimal = sys.modules.get("decimal")
        numbers = (int, float) if decimal is None else (int, float, decimal.Decimal)
        buf.write(_csv_line([_cell(v, exact=True) if isinstance(v, numbers)
                             else _formula_safe(_cell(v, exact=True, lists=lists)) for v in r]))
    click.echo(buf.getvalue(), nl=False)


# a CSV field holding one of these is quoted: the comma, the quote and line ends (RFC 4180, as Python's csv quotes),
# and the semicolon and tab another spreadsheet splits on (a player `Aki;=cmd|...` was a cell starting with `=` in a
# spreadsheet splitting on `;`, past the `'` before a field's formula: QA round 33; quoted, it is one cell)
_CSV_QUOTED = (",", '"', ";", "\t", "\r", "\n")  # (not a pattern: zx matches compiles none, issue 20 target 4)


def _csv_line(fields: Sequence[str]) -> str:
    return ",".join('"' + f.replace('"', '""') + '"' if any(c in f for c in _CSV_QUOTED) else f
                    for f in fields) + "\n"


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as a formula (OWASP: CSV injection)
_NUMBER_TEXT = r"(?i)[+-]?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+|inf|infinity|nan)?"


def _formula_safe(text: str) -> str:
    """Text that a spreadsheet opening the CSV would run as a formula (``=HYPERLINK(...)``, ``@SUM(...)``,
    a player named ``=cmd|...``, ``-2+3+cmd|...``) with a ``'`` before it, as OWASP advises: the names come
    from someone else's log. A number, or a number's text (``-5``, DuckDB's ``-infinity`` date), stays as it
    is; JSON and Parquet keep every value as it is."""
    text = _formula_safe_part(text)
    if ";" in text or "\t" in text[1:]:  # each part after a ; or a tab too: a spreadsheet splitting on it makes
        # it a cell (a player `Aki;=cmd|...` gave a cell `=cmd|...` past the quotes, which it reads only at a cell's
        # start: QA round 33)
        parts = _re(r"([;\t])").split(text)
        text = parts[0] + "".join(sep + _formula_safe_part(part) for sep, part in zip(parts[1::2], parts[2::2]))
    return text


def _formula_safe_part(text: str) -> str:
    """``text`` with a ``'`` before it where it starts as a formula and is no number's text (``_formula_safe``'s
    rule, for the whole field and for each part after a ``;`` or a tab)."""
    return "'" + text if text.startswith(FORMULA_START) and not _re(_NUMBER_TEXT).fullmatch(text) else text


def _table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]], idx: Sequence[int],
           rigid: Collection[str] = (), natural: bool = False, whole_key: bool = False) -> Any:
    """A rich table of the columns ``idx`` of ``rows`` (cells already text): every header and cell as
    plain text, never markup (``plain``); long text folds, but not in the ``rigid`` columns. ``natural``: drawn
    at its natural width (``print_table`` without a width), where no text folds: a column whose every line
    fits whole as rich reads it (``_unfolded``) is drawn without rich's word wrap, the same lines for less
    work (a sixth of ``zx matches``' drawing, issue 20 target 4). ``whole_key``: the first column is never folded
    (``_whole_key``)."""
    from rich.table import Table

    table = Table(title=None if title is None else plain(printable(title)), show_lines=False, header_style="bold")
    for i in idx:
        header = printable(headers[i])
        no_wrap = headers[i] in rigid or (natural and _unfolded([header, *(r[i] for r in rows)])) \
            or (i == 0 and whole_key)
        table.add_column(plain(header), overflow="fold", no_wrap=no_wrap)
    for r in rows:
        table.add_row(*[plain(r[i]) for i in idx])
    return table


def _unfolded(texts: Sequence[str]) -> bool:
    """Whether a column of ``texts``, drawn as wide as its widest text, gives the same lines without rich's word
    wrap: each text one line without a tab (``isprintable``: rich expands a tab after measuring it) and no longer in
    characters than that width in cells (rich trims a wrapped line's trailing spaces past the width counted in
    characters: a combining accent counts one, and no cell)."""
    if not all(t.isprintable() for t in texts):
        return False
    if all(t.isascii() for t in texts):  # (a character a cell)
        return True
    from rich.cells import cell_len

    return max(map(len, texts)) <= max(map(cell_len, texts))


def _left_out(headers: Sequence[str], idx: Sequence[int], width: int | None, hint: str) -> None:
    """The note on stderr naming the columns a table left out to fit ``width`` characters."""
    left = [headers[i] for i in range(len(headers)) if i not in idx]
    if left:
        _note(f"({counted(len(left), 'column')} left out to fit {width} characters: {', '.join(left)}; {hint})")
