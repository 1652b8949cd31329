"""``zx analytics update``, ``zx stats ...``, ``zx sql`` and ``zx export``: the metagame analytics."""

from __future__ import annotations

import os
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

import click

from .common import (DAY, GAME, MAX_PAGE_SIZE, MAX_SQL_TIMEOUT, MAX_WORKERS, NAME, Seconds, given_catalogs,
                     interrupted, match_filter_options, spellings, with_store)
from .sigterm import interrupted_word
from .options import format_option
from .output import LateBar, _echo_csv, counted, emit, emit_frame, json_text, printable

ANALYTICS_HELP = ("Analytics DuckDB file (default: next to a SQLite store, X.sqlite -> X.duckdb; else "
                  "zx-analytics.duckdb in the working directory). Also ZX_ANALYTICS.")


def analytics_option(f: Callable) -> Callable:
    return click.option("--analytics", "analytics_path", envvar="ZX_ANALYTICS", default=None, metavar="PATH",
                        help=ANALYTICS_HELP)(f)


def resolve_analytics_path(ctx: click.Context, explicit: str | None) -> Path:
    from zx_analytics.db import default_path
    from zx_events.errors import ZXError
    from zx_events.store import parse_store

    from zx_analytics.paths import not_a_file, not_regular

    try:
        store = parse_store(ctx.obj.get("store") if ctx.obj else None)
    except ZXError as e:
        raise click.ClickException(str(e)) from None
    path = default_path(store, explicit)
    if explicit and ctx.get_parameter_source("analytics_path") == click.core.ParameterSource.COMMANDLINE \
            and isinstance(ctx.find_root().obj, dict):  # (the advice of an error names it: common.with_store)
        ctx.find_root().obj["analytics"] = explicit
    refused = not_a_file(explicit or os.environ.get("ZX_ANALYTICS") or path)  # (as given: a Path folds "s3://" to "s3:/")
    refused = refused or not_regular(path)  # (a named pipe: opened, it waited for ever)
    if refused is not None:
        raise click.ClickException(refused + " (nothing was created)")
    return path


CATALOG_HELP = ("A catalog file matches were imported with (zx import --catalog FILE; the same format): the stored "
                "matches checked against its content (SHA-256) get their colours, card names and archetypes from it. "
                "Repeatable. Matches already projected keep their rows until zx analytics update --rebuild. A file "
                "no stored match was checked against is not used: a warning says so.")


def run_update(svc: Any, path: Path, *, rebuild: bool = False, page_size: int | None = None,
               stop_after_pages: int | None = None, workers: int | None = None, catalogs: tuple[Any, ...] = ()):
    """The projection with a progress bar on stderr; AnalyticsError for the caller to report."""
    from zx_analytics.projection import PAGE_SIZE, update

    with ExitStack() as stack:  # the bar drawn once there is work (the update's first call, with its total)
        # (its unit the store's events read, every kind and the seal's entries: the summary after it counts the events
        # projected into tables, fewer; counting those first cost a rebuild 8-14%, round 33)
        bar = LateBar(stack, "analytics: stored events read")

        def on_progress(done: int, total: int) -> None:
            if total >= 1 or bar.bar is not None:
                bar.update(done, total)

        result = update(svc, path, rebuild=rebuild, page_size=page_size or PAGE_SIZE, on_progress=on_progress,
                        stop_after_pages=stop_after_pages, workers=workers, catalogs=catalogs)
    if result.set_aside is not None:
        click.echo(f"note: {path} could not be read (damaged, or not a DuckDB database): it was moved to "
                   f"{result.set_aside} (delete it when you like) and rebuilt from the store", err=True)
    warn_left_out(result)
    note_unknown_catalogs(result)
    return result


def warn_unused_catalogs(result: Any, given: tuple[str, ...], catalogs: tuple[Any, ...]) -> None:
    """A warning for each ``--catalog`` (``given``, read as ``catalogs``) that no match of the analytics file
    was checked against (``UpdateResult.unused_catalogs``): it was not used, as zx import and zx audit warn
    of a catalog no match of theirs is of the game of."""
    from zx_events import games

    for arg, cat in zip(given, catalogs):
        if any(cat is c for c in result.unused_catalogs):
            click.echo(printable(f"warning: --catalog {arg}: no stored match was checked against it (catalog "
                                 f"{cat.name}, sha256 {cat.sha256[:16]}, {games.get(cat.game).name.split(' ')[0]}); "
                                 f"it was not used (a catalog file is for the matches imported with it: zx import "
                                 f"--catalog FILE)"), err=True)


def note_unknown_catalogs(result: Any, prefix: str = "") -> None:
    """A note for each catalog, neither shipped nor given with --catalog, that matches this update projected
    were checked against (``UpdateResult.unknown_catalogs``)."""
    for (_game, name, sha), n in sorted(result.unknown_catalogs.items(), key=lambda kv: str(kv[0])):
        digest = f"sha256 {sha[:8]}…" if isinstance(sha, str) else "no sha256"
        click.echo(printable(f"{prefix}note: {counted(n, 'match', 'matches')} {'was' if n == 1 else 'were'} checked against "
                             f"catalog {name} ({digest}), which zx does not ship: their colours and archetypes are "
                             f"unknown/by code; pass --catalog FILE to zx analytics update --rebuild"), err=True)


def warn_left_out(result: Any, prefix: str = "warning: ") -> None:
    """A warning for each stored aggregate the projection left out (``UpdateResult.left_out``)."""
    from zx_events.ids import match_uuid

    for oid, match in result.left_out:
        click.echo(printable(f"{prefix}the stored aggregate {oid} says it is match {match}, which zx import files under "
                             f"{match_uuid(match)}: zx import did not write it (a copy of a match's events, or a "
                             f"forgery), and the analytics leave it out; zx verify names it (forged)"), err=True)


# ---------------------------------------------------------------------- zx analytics update
@click.group("analytics")
def analytics_group() -> None:
    """Maintain the analytics DuckDB file projected from the event store.

    \b
    Example:
      zx analytics update
    """


def _file_mark(path: Path) -> tuple[int, int, Any] | None:
    """The analytics file's (position, events projected, updated_at), or None when it cannot be read."""
    import duckdb

    from zx_events.files import database_kind

    if database_kind(path) != "duckdb":  # (a SQLite store given by mistake: DuckDB fetched an extension to open it)
        return None
    try:
        con = duckdb.connect(str(path), read_only=True)
        try:
            return con.execute("SELECT position, events, updated_at FROM projection_position").fetchone()
        finally:
            con.close()
    except (duckdb.Error, OSError, KeyboardInterrupt):
        return None


def update_was_complete(svc: Any, path: Path, before: Any = None, rebuild: bool = False) -> str | None:
    """What an update interrupted by Ctrl-C had done, when it had done everything: the file's position is the
    store's last event (a Ctrl-C during the last commit, which writes a rebuild's held pages: it said "Aborted!"
    alone, and the user took the rebuild for lost), and, a ``rebuild``, the file is not as it was ``before`` (an
    early Ctrl-C of a rebuild of a file already up to date was said complete: QA round 34); None otherwise, or
    when the file cannot be read."""
    try:
        last = svc.recorder.max_notification_id() or 0
    except (Exception, KeyboardInterrupt):  # noqa: BLE001 - (a store gone meanwhile: nothing to say)
        return None
    row = _file_mark(path)
    if row is None or row[0] < last or (rebuild and row == before):
        return None
    return (f"{interrupted_word()} after the update was complete: {path} holds every stored event ({row[1]:,} "
            f"projected); only the table of what was done was not printed")


def update_interrupted(svc: Any, path: Path, before: Any, rebuild: bool) -> str | None:
    """The line an interrupted ``zx analytics update`` ends with: what the file holds now (``Aborted!`` alone
    said nothing of it: QA round 34). A rebuild commits once, at its end: until then the file is as it was."""
    done = update_was_complete(svc, path, before, rebuild)
    if done is not None:
        return done
    row = _file_mark(path)
    if rebuild:
        if row is None:
            return (f"{interrupted_word()}: the rebuild was not committed: {path} was not made; `zx analytics update` "
                    f"makes it")
        if row == before:
            return (f"{interrupted_word()}: the rebuild was not committed: {path} is as it was (up to notification "
                    f"{row[0]:,}); `zx analytics update --rebuild` rebuilds it")
    if row is None:
        return None
    try:
        last = svc.recorder.max_notification_id() or 0
    except (Exception, KeyboardInterrupt):  # noqa: BLE001
        return None
    return (f"{interrupted_word()}: {path} holds the store's events up to notification {row[0]:,} of {last:,} ({row[1]:,} "
            f"projected), as its last commit left it; `zx analytics update` continues from there")


@analytics_group.command("update")
@click.option("--rebuild", is_flag=True, help="Start from zero: drop every row and project the whole store again.")
@click.option("--page-size", type=click.IntRange(min=1, max=MAX_PAGE_SIZE), default=None, metavar="N",
              help=f"Notifications read and committed per transaction (default 50000, at most {MAX_PAGE_SIZE:,}).")
@click.option("--stop-after-pages", type=click.IntRange(min=1), default=None, hidden=True,
              help="Stop after N committed pages (tests of resuming).")
@click.option("--workers", type=click.IntRange(min=1, max=MAX_WORKERS), default=None, metavar="N",
              help="Processes that project a SQLite store in parallel, whole matches each (default: "
                   "ZX_ANALYTICS_WORKERS, else one per core up to 4, for 20,000 events or more; 1: this process; "
                   f"at most {MAX_WORKERS}).")
@click.option("--catalog", "catalog_paths", multiple=True, metavar="FILE", help=CATALOG_HELP)
@analytics_option
@format_option
@click.pass_context
def update_cmd(ctx: click.Context, rebuild: bool, page_size: int | None, stop_after_pages: int | None,
               workers: int | None, catalog_paths: tuple[str, ...], analytics_path: str | None, fmt: str) -> None:
    """Project the events not yet in the analytics file (resumes where it stopped; --rebuild from zero).

    \b
    Examples:
      zx analytics update --rebuild
      zx analytics update --rebuild --catalog my-cards.csv
        (my-cards.csv: the catalog the matches were imported with)

    A catalog file is used for exactly the stored matches checked against its content (its SHA-256);
    the projection never reads a file a stored catalog name names.
    """
    from zx_analytics.db import AnalyticsError

    from .common import service

    catalogs = given_catalogs(catalog_paths)  # a bad file fails here, before the store is opened
    path = resolve_analytics_path(ctx, analytics_path)
    svc = service(ctx)
    before = _file_mark(path) if rebuild else None  # (whether a rebuild interrupted had committed)
    try:
        result = run_update(svc, path, rebuild=rebuild, page_size=page_size, stop_after_pages=stop_after_pages,
                            workers=workers, catalogs=catalogs)
    except AnalyticsError as e:
        raise click.ClickException(str(e)) from None
    except (KeyboardInterrupt, Exception) as e:
        if not interrupted(e):
            raise
        said = update_interrupted(svc, path, before, rebuild)  # (a Ctrl-C in the last commit: complete)
        if said:
            click.echo(with_store(said, ctx), err=True)
        raise click.Abort() from None
    warn_unused_catalogs(result, catalog_paths, catalogs)
    emit([result.to_json()], fmt, ["analytics", "events", "matches", "pages", "position", "seconds", "events_per_s",
                                   "rebuilt", "workers"])



@analytics_group.command("follow")
@click.option("--interval", type=Seconds(min=0.05, max=3600), default=1.0, show_default=True, metavar="SECONDS",
              help="How often to look for new matches (SQLite), or the backstop poll behind LISTEN/NOTIFY (PostgreSQL).")
@click.option("--page-size", type=click.IntRange(min=1, max=MAX_PAGE_SIZE), default=None, metavar="N",
              help=f"Notifications read and committed per transaction (default 50000, at most {MAX_PAGE_SIZE:,}).")
@click.option("--catalog", "catalog_paths", multiple=True, metavar="FILE", help=CATALOG_HELP)
@analytics_option
@click.pass_context
def follow_cmd(ctx: click.Context, interval: float, page_size: int | None, catalog_paths: tuple[str, ...],
               analytics_path: str | None) -> None:
    """Keep the analytics file up to date as matches arrive in the store, until Ctrl-C (or SIGTERM).

    \b
    Examples:
      zx --store postgresql://zx@db/zx analytics follow --analytics /srv/zx.duckdb
      zx analytics follow --catalog my-cards.csv
        (my-cards.csv: the catalog the matches were imported with)

    Catches up from the file's tracking position first (a restart resumes there), then projects new
    matches as they are stored: woken by PostgreSQL LISTEN/NOTIFY (the eventsourcing subscription),
    or by polling a SQLite store every --interval seconds. Each update commits its rows with its
    position in one transaction, as `zx analytics update` does: killed at any point, nothing is lost
    or counted twice. Progress goes to stderr; `zx stats` reads the file between updates.
    """
    import signal
    import threading

    from zx_analytics.db import AnalyticsError
    from zx_analytics.follow import follow

    from .common import service

    catalogs = given_catalogs(catalog_paths)  # a bad file fails here, before the store is opened
    path = resolve_analytics_path(ctx, analytics_path)
    svc = service(ctx)
    stop = threading.Event()

    def notes(r: Any) -> None:
        warn_left_out(r, "follow: warning: ")
        note_unknown_catalogs(r, "follow: ")

    def on_signal(signum: int, _frame: Any) -> None:
        if not stop.is_set():  # said at once (a Ctrl-C during the first catch-up was silent for seconds, until the
            # page under way had committed); written straight to fd 2: a handler that wrote through sys.stderr while
            # the main thread did could meet its buffer in use ("reentrant call")
            try:
                os.write(2, b"follow: stopping after the page under way is committed ...\n")
            except OSError:
                pass
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    err = lambda text: click.echo(f"follow: {text}", err=True)  # noqa: E731
    said: list[str] = []

    def waiting(text: str) -> None:  # once while the same holder keeps the file (it said so every second)
        if said[-1:] != [text]:
            said.append(text)
            err(f"{with_store(text, ctx)} (retrying)")
    try:
        state = follow(
            svc, path, stop=stop, interval=interval, page_size=page_size,
            on_start=lambda st: err(f"{svc.store.label} -> {path}: caught up at notification {st.position:,} "
                                    f"({counted(st.events, 'event')}, {counted(st.matches, 'match', 'matches')} "
                                    f"projected); waiting for matches "
                                    + ("(LISTEN/NOTIFY)" if st.mode == "listen" else f"(polling every {interval:g} s)")),
            on_update=lambda r, st: (notes(r),
                                     err(f"+{counted(r.matches, 'match', 'matches')}, {counted(r.events, 'event')} "
                                         f"in {r.seconds:.2f} s; at notification {st.position:,}")),
            on_first=notes, on_wait=waiting, on_listen=err, catalogs=catalogs,
            update_options={"stop": stop})  # (a long first catching up ends after its page under way, as said)
    except AnalyticsError as e:
        raise click.ClickException(str(e)) from None
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    if not state.started:  # (it said "stopped at notification 0" of a file far ahead)
        err(f"stopped before the first update: {path} was held by another process the whole time (zx serve, zx "
            f"sql?); nothing was projected")
        return
    err(f"stopped at notification {state.position:,} ({counted(state.matches, 'match', 'matches')}, "
        f"{counted(state.events, 'event')} projected "
        f"since start)")


# ---------------------------------------------------------------------- zx stats
GAME_HELP = ("Only matches of this game (zx games lists them). Without it, each game the file holds is counted on its "
             "own (a leading game column); games are never mixed.")


def filter_options(f: Callable, game_help: str = GAME_HELP) -> Callable:
    """The filters of ``zx stats`` (zx_analytics.stats.Filters), shared with ``zx report``."""
    for opt in reversed([
        click.option("--since", type=DAY, default=None, metavar="YYYY-MM-DD", help="Matches played on or after this date."),
        click.option("--until", type=DAY, default=None, metavar="YYYY-MM-DD", help="Matches played on or before this date."),
        click.option("--event", type=NAME, default=None, help="Only this event (exact name)."),
        click.option("--deck", type=NAME, default=None, help="Only the side playing this deck (exact deck name)."),
        click.option("--opp-deck", "opp_deck", type=NAME, default=None, help="Only sides whose opponent plays this deck."),
        click.option("--archetype", type=NAME, default=None, help="Only the side playing this archetype (zx stats archetypes)."),
        click.option("--opp-archetype", "opp_archetype", type=NAME, default=None,
                     help="Only sides whose opponent plays this archetype."),
        click.option("--colours", "--colour", "colours", type=NAME, default=None, metavar="COLOURS",
                     help="Only the side with this colour identity (red, white/green, ...)."),
        click.option("--seat", type=click.Choice(["first", "second"]), default=None,
                     help="Only the side that went first (or second)."),
        click.option("--player", type=NAME, default=None, help="Only the side of this player (exact name)."),
        click.option("--opponent", type=NAME, default=None,
                     help="Only sides facing this player (exact name); with --player, head to head."),
        click.option("--game", type=GAME, default=None, help=game_help),
    ]):
        f = opt(f)
    return f


def stats_options(f: Callable) -> Callable:
    """The filters and output options every ``zx stats`` command shares."""
    for opt in reversed([
        filter_options,
        click.option("--min-games", type=click.IntRange(min=1), default=30, show_default=True,
                     help="Rows whose rate rests on fewer games (or attacks, damage points) are flagged low_sample."),
        click.option("--wide", is_flag=True, help="Table: every column, however wide (default: fit the terminal)."),
        analytics_option,
        format_option,
    ]):
        f = opt(f)
    return f


def stale_note(ctx: click.Context, st: Any, path: Path) -> None:
    """A note on stderr when the analytics file read is behind the SQLite store it was built from
    (zx stats and zx sql read only the file: figures without the matches imported since came with no
    word), or, for a store named with --store or ZX_STORE, built from another store. A PostgreSQL
    store is not asked (a connection for a note; ``zx analytics follow`` keeps such a file current)."""
    import os
    import sqlite3

    from zx_events.errors import ZXError
    from zx_events.store import ReadConnections, connect_read, parse_store

    at = st.position()
    try:
        config = parse_store(ctx.obj.get("store") if ctx.obj else None)
    except ZXError:
        return
    if at is None or config.kind != "sqlite" or config.path is None or not config.path.is_file():
        return
    position, built_from = at
    if built_from != f"sqlite:{config.path.resolve()}":
        if (ctx.obj or {}).get("store") or os.environ.get("ZX_STORE"):
            click.echo(f"note: {path} holds the analytics of {built_from}, not of the store {config.label}", err=True)
        return
    uri = ReadConnections.uri_of(config)
    if uri is None:
        return
    try:
        con = connect_read(uri)
        try:
            last = con.execute("SELECT max(rowid) FROM stored_events").fetchone()[0] or 0
        finally:
            con.close()
    except sqlite3.Error:
        return
    if position < last:
        click.echo(with_store(f"note: {path} is behind the store {config.label} (notification {position} of {last}): "
                              f"these figures leave out what was imported since; `zx analytics update` brings it up "
                              f"to date"), err=True)


FILTERS = ("since", "until", "event", "deck", "player", "opp_deck", "seat", "colours", "archetype", "opp_archetype",
           "game", "opponent")


def _stats_call(method: str, **fixed: Any) -> Callable:
    """Run Stats.<method>(**fixed, filters) and print its frame."""
    def run(ctx: click.Context, min_games: int, analytics_path: str | None, fmt: str, wide: bool, **kw: Any) -> None:
        import duckdb

        from zx_analytics.db import AnalyticsError, DamagedFile, damaged
        from zx_analytics.stats import Filters, NotThisGame, Stats, UnknownName

        filters = {k: kw.pop(k) for k in FILTERS}
        try:
            Filters(**filters)
        except ValueError as e:
            raise click.UsageError(str(e)) from None
        path = resolve_analytics_path(ctx, analytics_path)
        try:
            with Stats(path, min_games=min_games) as st:
                stale_note(ctx, st, path)
                df = getattr(st, method)(**fixed, **kw, **filters)
                mirrors = df.height == 0 and _all_mirrors(st, method, kw.get("by"), filters, kw.get("card"))
                unfinished = (df.height == 0 and not mirrors and kw.get("card") is None
                              and all(v is None for v in filters.values()) and _unfinished(st))
        except (AnalyticsError, UnknownName, NotThisGame) as e:
            raise reader_error(ctx, path, e) from None
        except duckdb.Error as e:
            if damaged(e):  # a block past the ones opening it read
                raise click.ClickException(str(DamagedFile(path, e))) from None
            raise
        keys = 2 if method == "life" and kw.get("by") == "turn" else KEEP.get(method, 1)  # by turn: turn and seat
        keep = keys + ("game" in df.columns and df.columns[0] == "game")
        emit_frame(_means_shown(df) if fmt == "table" else df, fmt, wide=wide, keep=keep)
        if mirrors:
            click.echo(f"no rows: every finished match in the analytics file is a mirror (the same {mirrors} on both "
                       f"sides), which {method} by {mirrors} leave out (50% by construction); `zx stats winrates "
                       f"--by first` counts them", err=True)
        elif unfinished:
            which = ("the one match in the analytics file has no result (its log stops before its end)" if unfinished == 1
                     else f"none of the {unfinished:,} matches in the analytics file has a result (each log stops before "
                          f"its end)")
            click.echo(f"no rows: {which}, and {method} count{'s' * (method[-1] != 's')} finished matches only", err=True)
        elif df.height == 0:  # name every option that chose rows: the filters, and cards' --card
            chosen = {"card": kw.get("card"), **filters}
            given = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in chosen.items() if v is not None)
            click.echo("no rows" + (f" match {given}" if given else ": the analytics file has no matches for this yet"),
                       err=True)
    return run


KEEP = {"matchups": 2, "meta": 2, "cards": 2, "mulligans": 2, "attacks": 2}  # key columns a narrow table keeps
MEANS = ("damage_per_turn", "damage_per_game")  # zx stats life's averages: two decimals in a table


def _means_shown(df: Any) -> Any:
    """``df`` as a table shows it: each average of ``MEANS`` to two decimals (``0.49``), as its rates are to one
    decimal of a percent; a table showed four significant digits, ``0.4896`` beside ``0.365`` and ``0``, ragged
    against ``36.1% (33.5-38.8)`` (QA round 36). JSON and CSV keep every digit, as of every figure."""
    import polars as pl

    means = [c for c in MEANS if c in df.columns]
    if not means:
        return df
    return df.with_columns([pl.col(c).map_elements(lambda v: f"{v:.2f}", return_dtype=pl.String) for c in means])


def _all_mirrors(st: Any, method: str, by: str | None, filters: dict, card: str | None) -> str | None:
    """For a win rate or matchup table that came out empty with no filter given: the key (``deck``...) when
    the file does have finished matches, every one of them a mirror by it (it said "no matches for this yet")."""
    from zx_analytics.stats import WINRATE_MIRRORS

    by = by or "deck"
    mirrored = method == "matchups" or (method == "winrates" and by in WINRATE_MIRRORS)
    if not mirrored or card is not None or any(v is not None for v in filters.values()):
        return None
    finished = st.sql("SELECT count(*) AS n FROM seats WHERE result IS NOT NULL", timeout=None)
    return by if finished.item(0, 0) else None


def reader_error(ctx: click.Context, path: str | Path, e: Exception) -> click.ClickException:
    """The error of a reader of the analytics file ``path`` (zx stats, zx sql, zx export) that ``e`` refused. With
    the file not there and no store to update it from (none, an empty file, another application's or a damaged
    file), what the store is: the update ``e`` advises would refuse it ("there is no store at ...", "... is not a
    zx-events store"); zx sql and zx export advised it, and every reader did for another application's file."""
    if not Path(path).exists() and (store := _no_store(ctx)):
        return click.ClickException(f"no analytics file at {path}, and {store}")
    return click.ClickException(str(e))


def _no_store(ctx: click.Context) -> str | None:
    """Why the SQLite store is no store to update analytics from: a file not there or empty ("no store at S: import
    logs first"), a database without the events table, another application's or a damaged file (what
    ``store.check_sqlite`` says of it); None for a store, a PostgreSQL one, a bad URL (the command's own error says
    why). The store parsed once; "not there" as ``newstore.before_creating`` tells it (``os.path.lexists``: a
    dangling link is there)."""
    from zx_events.errors import ZXError
    from zx_events.store import check_sqlite, parse_store

    root = ctx.find_root()
    try:
        config = parse_store(root.obj.get("store") if isinstance(root.obj, dict) else None)
    except ZXError:
        return None
    if config.kind != "sqlite":
        return None
    path = Path(config.path)
    if not os.path.lexists(path) or (path.is_file() and path.stat().st_size == 0):
        empty = " (an empty file)" if os.path.lexists(path) else ""
        return f"no store at {config.path}{empty}: import logs first (`zx import LOGS` makes both)"
    try:
        check_sqlite(path, create=False)
    except ZXError as e:  # a database without the events table, another application's file, a damaged one
        return str(e)
    return None


def _unfinished(st: Any) -> int:
    """The matches of the analytics file when it has some and none of them has a result, else 0 (an empty table
    said "the analytics file has no matches for this yet" over 11 matches that stop before their end)."""
    counts = st.sql("SELECT count(*) AS n, count(result) AS finished FROM seats", timeout=None)
    seats, finished = counts.item(0, 0), counts.item(0, 1)
    return seats // 2 if seats and not finished else 0


@click.group("stats")
def stats_group() -> None:
    """Metagame statistics: every rate with its count and a Wilson 95% interval.

    \b
    Example:
      zx stats winrates --by archetype --since 2026-06-01

    Rows whose sample is under --min-games are flagged low_sample, never hidden. A deck, player,
    event, archetype or card the analytics file has never seen is an error naming the closest ones.
    Games are never mixed: --game GAME counts one; without it each game of the file is counted on
    its own (a leading game column when the file holds several).
    """


def _stats_command(name: str, method: str, doc: str, by: tuple[str, ...] | None = None, by_default: str | None = None,
                   extra: tuple[Callable, ...] = ()):
    call = _stats_call(method)

    @click.pass_context
    def command(ctx: click.Context, **kw: Any) -> None:
        call(ctx, **kw)

    command.__doc__ = doc
    for opt in extra:
        command = opt(command)
    if by:
        command = click.option("--by", type=click.Choice(by), default=by_default, show_default=True,
                               help="What each row is.")(command)
    stats_group.command(name)(stats_options(command))


_stats_command("winrates", "winrates",
               "Win rates by deck, archetype, colour identity, player, or seat (first/second), with Wilson 95% "
               "intervals.\n\n"
               "\b\nExample:\n  zx stats winrates --by archetype --event \"Sim League\"\n\n"
               "Finished matches only; a draw is a game without a win; mirror pairings are left out "
               "(by deck, archetype and colour).",
               ("deck", "archetype", "colour", "player", "first"), "deck")
_stats_command("matchups", "matchups",
               "Deck (or archetype, colours) against deck: the win rate of each against each other (mirrors left "
               "out).\n\n"
               "\b\nExample:\n  zx stats matchups --by archetype --format csv",
               ("deck", "archetype", "colour"), "deck")
_stats_command("attacks", "attacks",
               "Attacks by attacker card, attacker Square, or target: outcomes and success rate.\n\n"
               "\b\nExample:\n  zx stats attacks --by square\n\n"
               "Success: the target Z/X was destroyed or the player took damage. Reads Z/X's attacks table: Z/X "
               "matches only (another game's attacks are in its own tables: zx sql --game GAME).",
               ("card", "square", "target"), "card")
_stats_command("life", "life",
               "Life damage per turn per seat, ignition rate of revealed Life cards, comeback rate.\n\n"
               "\b\nExample:\n  zx stats life --by turn\n\n"
               "--by seat reads the seats of every game (one game at a time); --by turn reads Z/X's life table.",
               ("seat", "turn"), "seat")
_stats_command("cards", "cards",
               "Per card, as 17lands defines them: win rate in hand (GIH), opening hand (OH), drawn (GD), never "
               "seen (GNS), played, and IWD.\n\n"
               "\b\nExample:\n  zx stats cards --deck \"Blue Control\" --seat second --min-games 50\n\n"
               "GIH = OH + GD (the opening hand kept after any mulligan, or drawn later); GNS: in the deck list, "
               "never in hand; IWD = GIH WR - GNS WR in percentage points. A card's name is every name the "
               "catalogs give its code, in alphabetical order, joined by ' / ' (two when catalogs name it apart).",
               extra=(click.option("--card", default=None,
                                   help="Only this card: a code, or a name (a name of several codes, a reprint, "
                                        "is one row for the name)."),))
_stats_command("mulligans", "mulligans",
               "Opening hands by seat and hand size: keep rate, and the win rate of kept and mulliganed hands (402)."
               "\n\n\b\nExample:\n  zx stats mulligans --deck \"Red Dragons\"")
_stats_command("archetypes", "archetypes",
               "Archetypes (colour identity + signature cards of the deck list): share, win rate, deck names seen."
               "\n\n\b\nExample:\n  zx stats archetypes --since 2026-06-01\n\n"
               "The label is computed from the deck list alone (docs/data-dictionary.md), the same on every run.")
_stats_command("meta", "meta",
               "The metagame by week, month or event: each deck's (or archetype's) share of the field and win rate."
               "\n\n\b\nExample:\n  zx stats meta --by week --group archetype",
               ("week", "month", "event"), "week",
               extra=(click.option("--group", type=click.Choice(["deck", "archetype", "colour"]), default="deck",
                                   show_default=True, help="What each row's share is of."),))


# ---------------------------------------------------------------------- zx sql, zx export
SQL_TABLE_ROWS = 10_000  # the rows zx sql's table draws at most (a few seconds; --format csv|json stream every row)
DRAW_NOTE = 2_000  # a table of more rows says on stderr that it is being drawn (about a second and more)
COUNT_NOTE = 5.0  # seconds between the notes counting the rows past the table


@click.command("sql")
@click.argument("query")
@click.option("--timeout", type=Seconds(min=0, max=MAX_SQL_TIMEOUT), default=60, show_default=True, metavar="SECONDS",
              help=f"Stop the query after this many seconds (0: no limit; at most {MAX_SQL_TIMEOUT}, a day).")
@click.option("--limit", "row_limit", type=click.IntRange(min=0), default=1000, show_default=True, metavar="N",
              help=f"Rows shown by the table output, at most {SQL_TABLE_ROWS:,} (0: that many, and a count of the "
                   "others); --format json and csv print every row.")
@click.option("--game", type=GAME, default=None,
              help="Only this game's matches: every table (and filtered_seats) shows that game's rows only.")
@analytics_option
@format_option
@click.pass_context
def sql_cmd(ctx: click.Context, query: str, timeout: float, row_limit: int, game: str | None,
            analytics_path: str | None, fmt: str) -> None:
    """Run read-only SQL on the analytics file (no files, settings or extensions: docs/security.md).

    \b
    Example:
      zx sql "SELECT deck, count(*) AS n FROM seats GROUP BY deck ORDER BY n DESC"

    Shared tables (every game, a game column in matches and seats): matches, seats, turns, draws,
    card_games, card_catalog; each game's own tables (zx: plays, attacks, life, ignitions; x610z:
    x610z_attacks, x610z_life, x610z_moves, x610z_casts); the macros filtered_seats(since, until,
    event, deck, player), wilson_low(k, n), wilson_high(k, n). See docs/data-dictionary.md.
    Games are never mixed by zx stats; here --game GAME keeps one game's rows in every table.
    """
    import duckdb

    from zx_analytics.db import (SQL_DATA_MEMORY, AnalyticsError, DamagedFile, QueryTimeout, ctrl_c_interrupts, damaged,
                              data_memory_cap)
    from zx_analytics.stats import Stats, UnknownName

    from zx_analytics.stats import _advice, unreadable

    try:
        unreadable(query)
        statements = len(duckdb.extract_statements(query))
    except AnalyticsError as e:
        raise click.ClickException(str(e)) from None
    except duckdb.Error as e:  # (its advice as the Python API's: not a setting zx sql refuses, QA round 38)
        raise click.ClickException(f"SQL error: {_advice(e)}") from None
    if not statements:  # an empty query, or comments only: it printed nothing and succeeded
        raise click.UsageError("the query holds no statement: give a SELECT (docs/data-dictionary.md lists the "
                               "tables)")
    noted = [statements <= 1]

    def note() -> None:
        """Say that the rows are the last statement's, once the statements have passed zx's checks and run (it was
        said before a refusal of the second one)."""
        if not noted[0]:
            noted[0] = True
            click.echo(f"{statements:,} statements: the rows shown are the last one's", err=True)

    path = resolve_analytics_path(ctx, analytics_path)
    too_big = (f"the query needs more memory than zx sql allows (DuckDB's work at most 2 GB, all of it "
               f"{SQL_DATA_MEMORY >> 30} GiB; docs/security.md): ask for less (fewer rows or columns, smaller values)")
    # a table is for reading: it draws SQL_TABLE_ROWS at most (rich lays a table out whole, ~0.5 ms and ~7 KB a
    # row: --limit 0 drew 50,000 rows for 40 s past a 1 s limit, the whole draws table of 857,000 printed nothing
    # for 10 minutes); asked for more (--limit 0 or past it), the rows past them are counted, not kept
    shown = min(row_limit or SQL_TABLE_ROWS, SQL_TABLE_ROWS)
    count_rest = not row_limit or row_limit > SQL_TABLE_ROWS
    limit = shown + 1 if fmt == "table" and not count_rest else None  # one more: to know there are more
    written = [0]
    began = time.monotonic()

    def write(columns: list[str], batch: list[tuple]) -> None:
        """CSV or JSON as the rows come (sql_each): millions of rows are never held whole, and the
        time limit covers writing them (it covered the query alone: 10,000,000 rows took 28 s and
        3.7 GB past a 2 s limit)."""
        note()
        names = unique_names(columns)
        if fmt == "csv":
            _echo_csv(names if not written[0] else None, batch, lists=True)
        else:
            click.echo(("[" if not written[0] else ", ") + ", ".join(json_text(dict(zip(names, r))) for r in batch),
                       nl=False)
        written[0] += len(batch)

    rows: list[tuple] = []  # the table's (at most ``shown``: the time limit covers fetching them too)
    past = [0, began + COUNT_NOTE]  # rows fetched past them; when to say how many so far

    def keep(_: list[str], batch: list[tuple]) -> None:
        note()
        room = max(shown - len(rows), 0)
        rows.extend(batch[:room])
        past[0] += max(len(batch) - room, 0)
        if count_rest and past[0] and time.monotonic() >= past[1]:  # counting a long result: say so, as it goes
            click.echo(f"(counting the rows past the table's {shown:,}: {past[0]:,} so far; --format csv|json "
                       f"prints every row)", err=True)
            past[1] = time.monotonic() + COUNT_NOTE

    try:  # the memory the query may take, past DuckDB's own 2 GB (docs/security.md), and drawing its table too
        with data_memory_cap():
            with Stats(path) as st:  # DuckDB's own values, exact for every type (Stats.sql_each)
                stale_note(ctx, st, path)
                if fmt != "table":
                    with ctrl_c_interrupts(st):  # (the cursor its SQL runs on: Stats.interrupt)
                        columns = st.sql_each(query, write, timeout=timeout or None, game=game)
                    note()
                    if not written[0]:
                        emit([], fmt, unique_names(columns), lists=True)
                    elif fmt == "json":
                        click.echo("]")
                    return
                with ctrl_c_interrupts(st):
                    columns = st.sql_each(query, keep, timeout=timeout or None, limit=limit, game=game)
                note()
            if past[0] and not count_rest:
                click.echo(f"showing the first {counted(shown, 'row')}: --limit N (at most {SQL_TABLE_ROWS:,}; 0: "
                           f"count the others), or --format csv|json for every row", err=True)
            names = unique_names(columns)
            _draw_within(began + timeout if timeout else None, timeout, len(rows),  # the time limit holds
                         lambda: emit([dict(zip(names, r)) for r in rows], fmt, names, most=None, lists=True))
    except QueryTimeout:  # (the API's words say timeout=SECONDS)
        raise click.ClickException(f"the query ran longer than {timeout:g} s and was stopped (raise the limit with "
                                   f"--timeout SECONDS, 0 for none)") from None
    except (AnalyticsError, UnknownName) as e:
        raise reader_error(ctx, path, e) from None
    except MemoryError:
        raise click.ClickException(too_big) from None
    except duckdb.Error as e:
        if damaged(e):
            raise click.ClickException(str(DamagedFile(path, e))) from None
        if isinstance(e, duckdb.OutOfMemoryException):
            raise click.ClickException(f"{too_big} ({str(e).splitlines()[0]})") from None
        raise click.ClickException(f"SQL error: {_advice(e)}") from None
    if past[0] and count_rest:
        more = f"{past[0]:,} more {'row' if past[0] == 1 else 'rows'}"
        click.echo(f"(the table shows the first {shown:,} rows; {more} left out: --format csv|json gives every row)",
                   err=True)


def _draw_within(deadline: float | None, timeout: float, n: int, draw: Callable[[], None]) -> None:
    """``draw()`` a table of ``n`` rows (a note on stderr first when it takes a while) before ``deadline`` (the
    ``--timeout`` of the query, from its start), else stop saying so, nothing of the table printed.
    rich lays a table out in Python, which nothing interrupts: it is drawn into memory by a thread of its own (at
    most ``SQL_TABLE_ROWS`` rows: a few MB; ``zx_cli.output.drawn_into``), printed when it is done in time, and left
    unfinished otherwise (a SIGALRM raising in the drawing could land in any callback, a garbage collector's,
    and be ignored there)."""
    import io

    from .output import drawn_into, terminal_width

    def timed_out() -> click.ClickException:  # (not a QueryTimeout: zx sql words the query's own in its place)
        return click.ClickException(f"zx sql ran longer than {timeout:g} s and was stopped drawing its table of "
                                    f"{n:,} {'row' if n == 1 else 'rows'} (raise the limit with --timeout SECONDS, 0 "
                                    f"for none; a smaller --limit, or --format csv|json, is faster)")

    if n > DRAW_NOTE:
        click.echo(f"(drawing a table of {n:,} rows; --format csv|json is faster)", err=True)
    if deadline is None:
        draw()
        return
    left = deadline - time.monotonic()
    if left <= 0:
        raise timed_out()
    out, notes, failed, width = io.StringIO(), io.StringIO(), [], terminal_width()

    def run() -> None:
        try:
            with drawn_into(out, notes, width):
                draw()
        except BaseException as e:  # (MemoryError past the cap: raised where the command expects it)
            failed.append(e)

    drawer = threading.Thread(target=run, name="zx sql table", daemon=True)
    drawer.start()
    drawer.join(left)
    if drawer.is_alive():  # (left to finish into its buffers, unread: the command ends)
        raise timed_out()
    if failed:
        raise failed[0]
    click.echo(out.getvalue(), nl=False)  # (click's echo: a reader gone away is the quiet 141 of zx_cli.main)
    click.echo(notes.getvalue(), nl=False, err=True)


def unique_names(columns: list[str]) -> list[str]:
    """Column names made unique for the output's rows (a result may name two columns alike: ``a``,
    ``a_1``, ...), as Polars names them."""
    out: list[str] = []
    for name in columns:
        new, n = name, 0
        while new in out:
            n += 1
            new = f"{name}_{n}"
        out.append(new)
    return out


@click.command("export")
@click.option("--parquet", "out", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="Directory for the Parquet files (Hive-partitioned by month) and the data dictionary.")
@click.option("--force", is_flag=True,
              help="Replace folders named like the export's tables in DIR even when DIR is not an earlier export.")
@match_filter_options
@click.option("--game", type=GAME, default=None, help="Only matches of this game (zx, x610z: zx games).")
@click.option("--exact", is_flag=True,
              help="Names as written (in any Unicode normal form), each spelling apart, as zx stats counts them "
                   "(default: in any case and width, as zx matches).")
@analytics_option
@format_option
@click.pass_context
def export_cmd(ctx: click.Context, out: str, force: bool, player: str | None, deck: str | None, opponent: str | None,
               opp_deck: str | None, event: str | None, since: str | None, until: str | None, game: str | None,
               exact: bool, analytics_path: str | None, fmt: str) -> None:
    """Export every analytics table as Parquet, partitioned by month, with the data dictionary.

    \b
    Example:
      zx export --parquet out/
      zx export --parquet mio/ --opponent Mio
      python -c "import polars as pl; print(pl.read_parquet('out/matches'))"

    The filters choose matches as zx matches does; every table then holds those matches' rows
    only, and the data dictionary of the export says which filters chose them.

    The analytics file is read through the sandbox of zx sql: SQL stored in it (a view, a macro) that
    reaches for files is refused, and nothing is exported (docs/security.md).

    The export holds what the analytics file holds: every deck list, opening hand and card drawn
    (draws, card_games, seats.mulligan), as a judge sees them. To share statistics without them, share
    zx report (without --deck-lists), not the export.
    """
    import duckdb

    from zx_analytics.db import AnalyticsError, DamagedFile, connect_reader, damaged, refuse_other_version
    from zx_analytics.export import PARTITIONED, export_parquet, refuse_replacing

    from .common import read_files

    path = resolve_analytics_path(ctx, analytics_path)
    # the files this command reads (the store, the analytics file): checked once the file is opened (opened
    # read-only: "no analytics file" comes before "DIR holds matches ... --force"), before anything is written,
    # and again by export_parquet (which knows the file it reads, as any caller of the Python API)
    reads = read_files(ctx.obj.get("store") if ctx.obj else None, (path, f"the analytics file {path}"),
                       (f"{path}.wal", f"the analytics file's write-ahead log {path}.wal"))
    named = f"--parquet {out}"
    try:
        con = connect_reader(path)  # sandboxed, as zx sql: SQL stored in the file touches no file (docs/security.md)
    except AnalyticsError as e:
        raise reader_error(ctx, path, e) from None
    rows = None  # (set once every table is in place: an interrupt after it says so)
    earlier = False  # DIR holds an earlier export
    try:
        from zx_analytics.stats import Stats

        refuse_other_version(con, path)  # an older schema's tables are not what the data dictionary describes
        if Path(out).exists() and not Path(out).is_dir():  # what is read first, then where it is written
            raise click.ClickException(f"--parquet {out} is a file, not a directory")
        refuse_replacing(Path(out), reads, force, named, "--force")

        chosen, note = _export_selection(con, path, dict(player=player, deck=deck, opponent=opponent,
                                                            opp_deck=opp_deck, event=event, since=since,
                                                            until=until, game=game), exact)
        stale_note(ctx, Stats(con), path)  # (Stats over the open connection: not closed here)
        with ExitStack() as stack:  # the bar drawn once DIR is made (a DIR that cannot be made: no empty bar)
            bar, tables, written = LateBar(stack, "exporting"), len(PARTITIONED) + 1, []  # (+ card_catalog, one file)

            def on_table(table: str) -> None:
                written.append(table)
                bar.update(len(written), tables)

            def on_done(done: list) -> None:  # (in place: an interruption from here says so)
                nonlocal rows
                rows = done

            earlier = (Path(out) / "data-dictionary.md").is_file()  # (a full disk leaves an earlier export as it was)
            rows = export_parquet(con, Path(out), on_table=on_table, file=f"the analytics file {path}", force=force,
                                  reads=reads, named=named, force_option="--force",
                                  on_start=lambda: bar.update(0, tables), on_done=on_done, matches=chosen,
                                  note=note)
    except AnalyticsError as e:  # SQL stored in the file that the sandbox refused (ExportRefused), another
        # export writing into DIR (ExportBusy)
        raise click.ClickException(str(e)) from None
    except BaseException as e:
        if interrupted(e):  # Ctrl-C (DuckDB's InterruptException is a duckdb.Error): the tables written so far
            # went with their partial folder (it said only "Aborted!", and left a few tables in DIR that the next
            # export refused as "not an earlier export of zx")
            click.echo(_export_interrupted(out, rows), err=True)
            raise click.Abort() from None
        if not isinstance(e, (duckdb.Error, OSError)):
            raise
        if damaged(e):
            raise click.ClickException(str(DamagedFile(path, e))) from None
        if disk_full(e):  # (DuckDB's own words were its JSON: "IO Error: Async write failed ... "errno":"28"")
            raise click.ClickException(f"the disk holding {out} is full: nothing was exported into {out}"
                                       + (" (an earlier export there is unchanged)" if earlier else "")
                                       + "; free room and run it again") from None
        if isinstance(e, OSError) and e.strerror:  # ("[Errno 2] No such file or directory: '/proc/x'")
            raise click.ClickException(f"cannot export to {out}: {e.strerror}"
                                       + (f" ({e.filename})" if e.filename and str(e.filename) != str(out) else "")) \
                from None
        raise click.ClickException(f"cannot export to {out}: {e}") from None
    finally:
        try:
            con.close()
        except KeyboardInterrupt:  # (the export is in place: said below)
            pass
    try:
        emit(rows, fmt, ["table", "rows", "months", "path"])
        click.echo(f"data dictionary: {Path(out) / 'data-dictionary.md'}", err=True)
    except KeyboardInterrupt:  # Ctrl-C once every table was in place: not "Aborted!" alone over a whole export
        click.echo(_export_interrupted(out, rows), err=True)
        raise click.Abort() from None


EXPORT_FILTERS = ("player", "deck", "opponent", "opp_deck", "event", "since", "until", "game")  # (zx export's options)


def _export_selection(con: Any, path: str, given: dict[str, str | None],
                      exact: bool = False) -> tuple[list[str] | None, str | None]:
    """The ids of the matches ``zx export``'s filters (``given``: option -> value) choose among the analytics file's,
    as ``zx matches`` chooses them (``zx_events.matchlist.MatchFilters``), and the note its data dictionary ends with;
    (None, None) without a filter (every match: the export as before, byte for byte). A name no match of the file
    has is the error of zx matches, with the closest names; filters that choose no match are an error too (nothing
    exported)."""
    import shlex

    import duckdb

    from zx_analytics.db import refusal
    from zx_analytics.export import ExportRefused, filtered_note
    from zx_events.matchlist import MatchFilters, unknown_filter

    if all(v is None for v in given.values()):
        return None, None
    try:
        filters = MatchFilters(given["game"], given["player"], given["deck"], given["event"], given["since"],
                               given["until"], None, None, given["opponent"], given["opp_deck"], exact)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    try:  # (the file's rows as the list's summaries: its date as written in the log's header)
        rows = [{"match": m, "game": g, "played_at": day, "event": e, "p1": p1, "p1_deck": d1, "p2": p2,
                 "p2_deck": d2} for m, g, day, e, p1, d1, p2, d2 in con.execute(
                     "SELECT match_id, game, CAST(played_on AS VARCHAR), event, p1_name, p1_deck, p2_name, p2_deck "
                     "FROM matches ORDER BY match_no").fetchall()]
    except duckdb.Error as e:
        if refusal(e) is not None:
            raise ExportRefused("matches", e, f"the analytics file {path}") from None
        raise
    picked = [r for r in rows if filters.keep(r)]
    chosen = [r["match"] for r in picked]
    if not chosen:
        unknown = unknown_filter(rows, filters)
        if unknown is not None:
            from zx_analytics.stats import UnknownName

            raise click.ClickException(str(UnknownName(*unknown[1])))
        raise click.ClickException(f"no match of the analytics file {path} matches these filters: nothing was "
                                   f"exported")
    options = " ".join([*(f"--{k.replace('_', '-')} {shlex.quote(v)}" for k in EXPORT_FILTERS
                          if (v := given.get(k)) is not None), *(["--exact"] if exact else [])])
    click.echo(printable(f"exporting {counted(len(chosen), 'match', 'matches')} of {len(rows):,} ({options})"), err=True)
    notes = [] if exact else [n for n in (spellings(picked, "player", given["player"], ("p1", "p2")),
                                          spellings(picked, "opponent", given["opponent"], ("p1", "p2"))) if n]
    for n in notes:  # (the list's folding, said as zx matches says it, and in the data dictionary)
        click.echo(printable(f"note: {n}"), err=True)
    return chosen, filtered_note(f"`zx export {options}`", len(chosen), len(rows)) + "".join(
        f"\nNote: {n}.\n" for n in notes)


def _export_interrupted(out: str, rows: Any) -> str:
    """What a Ctrl-C (or SIGTERM) during ``zx export`` left: nothing, or (once every table is in place) the whole
    export."""
    if rows is None:
        return f"{interrupted_word()}: nothing was exported into {out}"
    return (f"{interrupted_word()} after the export was complete: {out} holds every table ({len(rows)}) and the data "
            f"dictionary; only the table of what was written was not printed")


def disk_full(e: BaseException) -> bool:
    """Whether ``e`` (an OSError, or DuckDB's error of a write) is a full disk (ENOSPC)."""
    import errno

    if isinstance(e, OSError):
        return e.errno == errno.ENOSPC
    text = str(e)
    return "No space left on device" in text or '"errno":"28"' in text.replace(" ", "")


def catalog_given(catalog_file: str | None) -> str:
    """`` --catalog FILE`` (shell-quoted) for the ``zx analytics update`` a message asks for, when the import
    was given a catalog file (without it, its matches would be projected with unknown colours); else ``""``."""
    import shlex

    return f" --catalog {shlex.quote(catalog_file)}" if catalog_file else ""


def update_after_import(ctx: click.Context, svc: Any, catalogs: tuple[Any, ...] = (),
                        catalog_file: str | None = None) -> None:
    """``zx import``'s analytics step: a failure is reported, the import itself stands. ``catalogs``: the
    import's ``--catalog`` (the matches it checked against a file have that file's cards); ``catalog_file``:
    that option when it named a file, which the update the failure asks for must be given too."""
    import duckdb

    from zx_analytics.db import AnalyticsError, DamagedFile, FileInUse, RebuildNeeded

    if svc.store.kind == "memory":  # nothing would outlive this command but a file nobody asked for
        click.echo("analytics: not updated: a memory: store lasts only as long as this command", err=True)
        return
    try:
        path = resolve_analytics_path(ctx, None)
    except click.ClickException as e:  # (ZX_ANALYTICS a URL): the import stands
        click.echo(f"warning: the matches are imported, but the analytics were not updated: {e.message}", err=True)
        return
    try:
        result = run_update(svc, path, catalogs=catalogs)
    except BaseException as e:
        if not interrupted(e) and not isinstance(e, (AnalyticsError, duckdb.Error)):
            raise
        given = catalog_given(catalog_file)

        def advised(text: str) -> str:  # the file the update ran on, as given (ZX_ANALYTICS for this one command)
            return with_store(text, ctx)

        if interrupted(e):  # Ctrl-C: the import stands; the file keeps what its last commit wrote
            done = update_was_complete(svc, path)  # (a Ctrl-C in its last commit: it said "was not brought up to
            if done:  # date" of a file that held every event, QA round 31)
                word = interrupted_word()
                click.echo(f"{word}: the matches are imported; {done.removeprefix(word + ' ')}", err=True)
            else:
                click.echo(advised(f"{interrupted_word()}: the matches are imported, but the analytics file {path} was not "
                                   f"brought up to date; `zx analytics update{given}` finishes it"), err=True)
            raise click.Abort() from None
        if isinstance(e, (RebuildNeeded, DamagedFile, FileInUse)):  # its message says what to run: "update later"
            # would fail the same way (or, the file held by zx serve, as long as the server runs)
            click.echo(advised(f"warning: the matches are imported, but the analytics file was not updated: {e}"
                               + (f" (with{given}: the catalog these matches were checked against)" if given else "")),
                       err=True)
        else:
            click.echo(advised(f"warning: the matches are imported, but the analytics file was not updated: {e}; "
                               f"run `zx analytics update{given}` later"), err=True)
        return
    click.echo(f"analytics: {counted(result.events, 'event')}, {counted(result.matches, 'match', 'matches')} "
               f"projected into {path}", err=True)


def register(zx: click.Group) -> None:
    for command in (analytics_group, stats_group, sql_cmd, export_cmd):
        zx.add_command(command)
