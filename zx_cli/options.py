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


def given_once(param: click.Parameter) -> bool:
    """Whether ``param`` may be given once only: an option that takes a value (or an on/off pair of flags,
    ``--analytics/--no-analytics``), not one meant to repeat (``multiple=True``, a count) nor a plain flag (given
    twice it says the same)."""
    if not isinstance(param, click.Option) or param.multiple or param.count:
        return False
    return not param.is_flag or bool(param.secondary_opts)


def option_name(param: click.Parameter) -> str:
    """How a message names ``param``: its first long name (``--colours`` of ``--colours, --colour``), both of an
    on/off pair (``--analytics/--no-analytics``)."""
    def first(names: list[str]) -> str:
        return next((n for n in names if n.startswith("--")), names[0])

    off = list(getattr(param, "secondary_opts", ()))
    return f"{first(param.opts)}/{first(off)}" if off else first(param.opts)


def refuse_repeats(command: click.Command) -> click.Command:
    """``command`` refusing an option given more than once that it takes once (``given_once``): a usage error,
    exit 2, "--player is given more than once: give it once", as the HTTP API says of a parameter given twice.
    click kept the last value, and ``zx stats winrates --player A --player B`` answered for B alone (QA round
    35). Applied to every command (``zx_cli.main.accept_store_everywhere``): it reads the order the parser took
    the options in, each occurrence, so ``--player=A``, ``-o A`` and an option's value that looks like one
    (``--event --deck``) are told apart as click tells them."""
    if getattr(command, "refuses_repeats", False):
        return command
    make_parser = command.make_parser

    def checked_parser(ctx: click.Context):
        parser = make_parser(ctx)
        parse = parser.parse_args

        def parse_args(args: list[str]):
            opts, rest, order = parse(args)
            seen: set[int] = set()
            for param in order:
                if given_once(param):
                    if id(param) in seen and not ctx.resilient_parsing:
                        raise click.UsageError(f"{option_name(param)} is given more than once: give it once", ctx)
                    seen.add(id(param))
            return opts, rest, order

        parser.parse_args = parse_args
        return parser

    command.make_parser = checked_parser  # type: ignore[method-assign]
    command.refuses_repeats = True  # type: ignore[attr-defined]
    return command
