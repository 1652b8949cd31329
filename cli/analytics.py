"""``zx analytics update``, ``zx stats ...``, ``zx sql`` and ``zx export``: the metagame analytics."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

from .output import emit, format_option, progress

ANALYTICS_HELP = ("Analytics DuckDB file (default: next to a SQLite store, X.sqlite -> X.duckdb; else "
                  "zx-analytics.duckdb in the working directory). Also ZX_ANALYTICS.")


def analytics_option(f: Callable) -> Callable:
    return click.option("--analytics", "analytics_path", envvar="ZX_ANALYTICS", default=None, metavar="PATH",
                        help=ANALYTICS_HELP)(f)


def resolve_analytics_path(ctx: click.Context, explicit: str | None) -> Path:
    from analytics.db import default_path
    from zx_events.errors import ZXError
    from zx_events.store import resolve_store

    try:
        store = resolve_store(ctx.obj.get("store") if ctx.obj else None, prepare=False)
    except ZXError as e:
        raise click.ClickException(str(e)) from None
    return default_path(store, explicit)


def run_update(svc: Any, path: Path, *, rebuild: bool = False, page_size: int | None = None,
               stop_after_pages: int | None = None):
    """The projection with a progress bar on stderr; AnalyticsError for the caller to report."""
    from analytics.projection import PAGE_SIZE, update

    with progress(2, "analytics") as bar:
        task = bar.add_task("analytics", total=None)

        def on_progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return update(svc, path, rebuild=rebuild, page_size=page_size or PAGE_SIZE, on_progress=on_progress,
                      stop_after_pages=stop_after_pages)


# ---------------------------------------------------------------------- zx analytics update
@click.group("analytics")
def analytics_group() -> None:
    """Maintain the analytics DuckDB file projected from the event store.

    Example: zx analytics update
    """


@analytics_group.command("update")
@click.option("--rebuild", is_flag=True, help="Start from zero: drop every row and project the whole store again.")
@click.option("--page-size", type=click.IntRange(min=1), default=None, metavar="N",
              help="Notifications read and committed per transaction (default 50000).")
@click.option("--stop-after-pages", type=click.IntRange(min=1), default=None, hidden=True,
              help="Stop after N committed pages (tests of resuming).")
@analytics_option
@format_option
@click.pass_context
def update_cmd(ctx: click.Context, rebuild: bool, page_size: int | None, stop_after_pages: int | None,
               analytics_path: str | None, fmt: str) -> None:
    """Project the events not yet in the analytics file (resumes where it stopped; --rebuild from zero).

    Example: zx analytics update --rebuild
    """
    from analytics.db import AnalyticsError

    from .main import service

    path = resolve_analytics_path(ctx, analytics_path)
    svc = service(ctx)
    try:
        result = run_update(svc, path, rebuild=rebuild, page_size=page_size, stop_after_pages=stop_after_pages)
    except AnalyticsError as e:
        raise click.ClickException(str(e)) from None
    emit([result.to_json()], fmt, ["analytics", "events", "matches", "pages", "position", "seconds", "events_per_s",
                                   "rebuilt"])



# ---------------------------------------------------------------------- zx stats
def stats_options(f: Callable) -> Callable:
    """The filters and output options every ``zx stats`` command shares."""
    for opt in reversed([
        click.option("--since", default=None, metavar="YYYY-MM-DD", help="Matches played on or after this date."),
        click.option("--until", default=None, metavar="YYYY-MM-DD", help="Matches played on or before this date."),
        click.option("--event", default=None, help="Only this event (exact name)."),
        click.option("--deck", default=None, help="Only the side playing this deck (exact deck name)."),
        click.option("--player", default=None, help="Only the side of this player (exact name)."),
        click.option("--min-games", type=click.IntRange(min=1), default=30, show_default=True,
                     help="Rows whose rate rests on fewer games (or attacks, damage points) are flagged low_sample."),
        analytics_option,
        format_option,
    ]):
        f = opt(f)
    return f


def _stats_call(method: str, **fixed: Any) -> Callable:
    """Run Stats.<method>(**fixed, filters) and print its frame."""
    def run(ctx: click.Context, since: str | None, until: str | None, event: str | None, deck: str | None,
            player: str | None, min_games: int, analytics_path: str | None, fmt: str, **kw: Any) -> None:
        from analytics.db import AnalyticsError
        from analytics.stats import Filters, Stats

        try:
            filters = Filters(since, until, event, deck, player)
        except ValueError as e:
            raise click.UsageError(str(e)) from None
        path = resolve_analytics_path(ctx, analytics_path)
        try:
            with Stats(path, min_games=min_games) as st:
                df = getattr(st, method)(**fixed, **kw, **filters.params())
        except AnalyticsError as e:
            raise click.ClickException(str(e)) from None
        emit(df.to_dicts(), fmt, df.columns)
    return run


@click.group("stats")
def stats_group() -> None:
    """Metagame statistics: every rate with its count and a Wilson 95% interval.

    Example: zx stats winrates --by deck --since 2026-11-01

    Rows whose sample is under --min-games are flagged low_sample, never hidden.
    """


def _stats_command(name: str, method: str, doc: str, by: tuple[str, ...] | None = None, by_default: str | None = None):
    call = _stats_call(method)

    @click.pass_context
    def command(ctx: click.Context, **kw: Any) -> None:
        call(ctx, **kw)

    command.__doc__ = doc
    if by:
        command = click.option("--by", type=click.Choice(by), default=by_default, show_default=True,
                               help="What each row is.")(command)
    stats_group.command(name)(stats_options(command))


_stats_command("winrates", "winrates",
               "Win rates by deck, colour identity, player, or seat (first/second), with Wilson 95% intervals.\n\n"
               "Example: zx stats winrates --by colour --event \"Tokyo Regional 2026\"\n\n"
               "Finished matches only; a draw is a game without a win; mirror pairings are left out "
               "(by deck and colour).",
               ("deck", "colour", "player", "first"), "deck")
_stats_command("matchups", "matchups",
               "Deck against deck: the win rate of each deck against each other deck (mirrors left out).\n\n"
               "Example: zx stats matchups --deck \"Red Dragons\" --format csv")
_stats_command("attacks", "attacks",
               "Attacks by attacker card, attacker Square, or target: outcomes and success rate.\n\n"
               "Example: zx stats attacks --by square\n\n"
               "Success: the target Z/X was destroyed or the player took damage.",
               ("card", "square", "target"), "card")
_stats_command("life", "life",
               "Life damage per turn per seat, ignition rate of revealed Life cards, comeback rate.\n\n"
               "Example: zx stats life --by turn",
               ("seat", "turn"), "seat")
_stats_command("cards", "cards",
               "Per card: win rate when played, and when in hand (opening hand or drawn).\n\n"
               "Example: zx stats cards --deck \"Blue Control\" --min-games 50")


# ---------------------------------------------------------------------- zx sql, zx export
@click.command("sql")
@click.argument("query")
@analytics_option
@format_option
@click.pass_context
def sql_cmd(ctx: click.Context, query: str, analytics_path: str | None, fmt: str) -> None:
    """Run SQL on a read-only connection to the analytics file.

    Example: zx sql "SELECT deck, count(*) AS games FROM seats GROUP BY ALL ORDER BY games DESC"

    Tables: matches, plays, attacks, life, ignitions, turns, draws, card_catalog; the view seats;
    the macros filtered_seats(since, until, event, deck, player), wilson_low(k, n), wilson_high(k, n).
    See docs/data-dictionary.md.
    """
    import duckdb

    from analytics.db import AnalyticsError
    from analytics.stats import Stats

    path = resolve_analytics_path(ctx, analytics_path)
    try:
        with Stats(path) as st:
            df = st.sql(query)
    except AnalyticsError as e:
        raise click.ClickException(str(e)) from None
    except duckdb.Error as e:
        raise click.ClickException(f"SQL error: {e}") from None
    emit(df.to_dicts(), fmt, df.columns)


@click.command("export")
@click.option("--parquet", "out", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="Directory for the Parquet files (Hive-partitioned by month) and the data dictionary.")
@analytics_option
@format_option
@click.pass_context
def export_cmd(ctx: click.Context, out: str, analytics_path: str | None, fmt: str) -> None:
    """Export every analytics table as Parquet, partitioned by month, with the data dictionary.

    Example: zx export --parquet out/ && python -c "import polars as pl; print(pl.scan_parquet('out/matches').collect())"
    """
    import duckdb

    from analytics.db import AnalyticsError, connect_reader
    from analytics.export import PARTITIONED, export_parquet

    path = resolve_analytics_path(ctx, analytics_path)
    if Path(out).exists() and not Path(out).is_dir():
        raise click.ClickException(f"--parquet {out} is a file, not a directory")
    try:
        con = connect_reader(path)
    except AnalyticsError as e:
        raise click.ClickException(str(e)) from None
    try:
        with progress(len(PARTITIONED), "exporting") as bar:
            task = bar.add_task("export", total=len(PARTITIONED))
            rows = export_parquet(con, Path(out), on_table=lambda _: bar.advance(task))
    except (duckdb.Error, OSError) as e:
        raise click.ClickException(f"cannot export to {out}: {e}") from None
    finally:
        con.close()
    emit(rows, fmt, ["table", "rows", "months", "path"])
    click.echo(f"data dictionary: {Path(out) / 'data-dictionary.md'}", err=True)


def update_after_import(ctx: click.Context, svc: Any) -> None:
    """``zx import``'s analytics step: a failure is reported, the import itself stands."""
    import duckdb

    from analytics.db import AnalyticsError

    path = resolve_analytics_path(ctx, None)
    try:
        result = run_update(svc, path)
    except (AnalyticsError, duckdb.Error) as e:
        click.echo(f"warning: the matches are imported, but the analytics file was not updated: {e}; "
                   f"run `zx analytics update` later", err=True)
        return
    click.echo(f"analytics: {result.events} events, {result.matches} matches projected into {path}", err=True)


def register(zx: click.Group) -> None:
    for command in (analytics_group, stats_group, sql_cmd, export_cmd):
        zx.add_command(command)
