"""The ``--format`` options every command shares, apart from ``zx_cli.output`` (which draws the tables): the root
command's module defines ``zx matches`` and ``zx games`` with them, and ``zx --help`` runs without loading the
table drawing (json, decimal, csv and the free-text rules: about 20 ms of its start-up, bench/bench_startup.py)."""

from __future__ import annotations

from typing import Callable

import click

FORMATS = ("table", "json", "csv")


def format_option(f: Callable) -> Callable:
    """The shared ``--format`` option (table, json or csv)."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="Output as a table, JSON, or CSV.")(f)


def written_option(f: Callable) -> Callable:
    """``--format`` of a command whose result is a file (zx view, zx report): its path alone (the
    default, for ``xdg-open "$(zx view ...)"``), or a row describing it as JSON or CSV."""
    return click.option("--format", "fmt", type=click.Choice(("path", "json", "csv")), default="path",
                        show_default=True, help="Print the path written, or a row describing the file (JSON, CSV).")(f)
