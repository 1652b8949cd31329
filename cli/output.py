"""Shared output for every command that prints rows: a table by default, or ``--format json|csv``."""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import Any, Callable, Iterable, Sequence

import click

FORMATS = ("table", "json", "csv")


def format_option(f: Callable) -> Callable:
    """The shared ``--format`` option (table, json or csv)."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="Output as a table, JSON, or CSV.")(f)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_cell(x) for x in v)
    if isinstance(v, dict):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def emit(rows: Sequence[dict[str, Any]], fmt: str, columns: Iterable[str] | None = None,
         title: str | None = None, header: bool = True) -> None:
    """Print ``rows`` to stdout in ``fmt``; ``columns`` picks and orders the table/CSV columns.

    ``header=False`` leaves out the CSV header row (for rows that continue an earlier emit)."""
    cols = list(columns) if columns is not None else (list(rows[0].keys()) if rows else [])
    if fmt == "json":
        click.echo(json.dumps(list(rows), ensure_ascii=False, default=str, indent=None))
        return
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        if header:
            w.writerow(cols)
        for r in rows:
            w.writerow([_cell(r.get(c)) for c in cols])
        click.echo(buf.getvalue(), nl=False)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_lines=False, header_style="bold")
    for c in cols:
        table.add_column(c, overflow="fold")
    for r in rows:
        table.add_row(*[_cell(r.get(c)) for c in cols])
    Console(file=sys.stdout, width=max(100, min(200, len(cols) * 18)), soft_wrap=False).print(table)


def progress(total: int, label: str, enabled: bool = True):
    """A progress bar on stderr (shown only when there is enough work to be worth it)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=Console(file=sys.stderr), disable=not enabled or total < 2, transient=False)
