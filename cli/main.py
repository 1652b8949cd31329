"""The ``zx`` command: import, list, replay, audit and analyse Z/X matches."""

from __future__ import annotations

import sys

import click

from zx_events.errors import ZXError

from .output import emit, format_option, progress


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", envvar="ZX_STORE", default=None, metavar="PATH|URL",
              help="Event store: a SQLite file (default zx-store.sqlite), memory:, or postgresql://USER@HOST:PORT/DB. "
                   "Also ZX_STORE.")
@click.pass_context
def zx(ctx: click.Context, store: str | None) -> None:
    """zx: replay, audit and analyse Z/X -Zillions of enemy X- matches.

    Example: zx demo    (or: zx import examples/legal/*.zxlog && zx matches)
    """
    ctx.obj = {"store": store}


def service(ctx: click.Context):
    from zx_events.application import MatchService

    try:
        return MatchService(ctx.obj["store"])
    except ZXError as e:  # StoreError: says which store and why, without the password
        raise click.ClickException(str(e)) from None
    except Exception as e:  # a store that cannot be opened is a user error, not a traceback
        raise click.ClickException(f"cannot open the store {ctx.obj['store'] or ''}: {e}") from None


def load_catalog_option(path: str | None):
    if path is None:
        return None
    from zx_events.cards import load_catalog

    try:
        return load_catalog(path)
    except ZXError as e:
        raise click.ClickException(str(e)) from None


@zx.command("import")
@click.argument("logs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--catalog", "catalog_path", default=None, metavar="NAME|FILE",
              help="Card catalog for every match (default: the one each header names, else sample).")
@click.option("--accept-violations", is_flag=True,
              help="Store matches as played, recording each rule violation as an event.")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes that check matches in parallel (default: one per core; a memory: store uses 1).")
@click.option("--analytics/--no-analytics", "update_analytics", default=True, show_default=True,
              help="Then bring the analytics DuckDB file up to date (zx analytics update; path from ZX_ANALYTICS).")
@format_option
@click.pass_context
def import_cmd(ctx: click.Context, logs: tuple[str, ...], catalog_path: str | None, accept_violations: bool,
               workers: int | None, fmt: str, update_analytics: bool = True) -> None:
    """Import match logs (JSON Lines, zxlog 1) into the event store, checking every rule.

    Example: zx import examples/legal/*.zxlog

    A match that breaks a rule is rejected with FILE:LINE: rule NNN: message and nothing of it is
    stored; the others are imported. Exit code 1 when any match was rejected.
    """
    import os

    from eventsourcing.persistence import PersistenceError

    from zx_events.parallel import import_files

    svc = service(ctx)
    load_catalog_option(catalog_path)  # a bad --catalog fails here, before any work
    total = sum(os.path.getsize(p) if os.path.isfile(p) else 0 for p in logs)
    outcomes = []
    with progress(max(1, total), "importing", enabled=total > 2_000_000) as bar:
        task = bar.add_task("import", total=total)
        try:  # one match at a time: memory stays bounded whatever the corpus size
            for o in import_files(svc, logs, workers=workers, catalog=catalog_path,
                                  accept_violations=accept_violations, on_bytes=lambda n: bar.advance(task, n)):
                outcomes.append(o)
        except PersistenceError as e:  # the store failed mid-import: the batch under way was not saved
            done = sum(o.status == "imported" for o in outcomes)
            raise click.ClickException(f"the store {svc.store.label} failed after {done} imported matches "
                                       f"(the batch under way was not saved; run the import again): "
                                       f"{type(e).__name__}: {e}") from None
    rejected = [o for o in outcomes if o.status == "rejected"]
    for o in rejected:
        click.echo(str(o.error), err=True)
    if fmt == "json":
        emit([o.to_json() for o in outcomes], fmt)
    else:
        emit([_import_row(o) for o in outcomes], fmt,
             ["match", "source", "status", "events", "violations", "head", "error"])
    imported = sum(o.status == "imported" for o in outcomes)
    unchanged = sum(o.status == "unchanged" for o in outcomes)
    click.echo(f"{imported} imported, {unchanged} unchanged, {len(rejected)} rejected "
               f"into {svc.store.label}", err=True)
    if update_analytics and imported:
        from .analytics import update_after_import

        update_after_import(ctx, svc)
    if rejected:
        sys.exit(1)


def _import_row(o) -> dict:
    """One table/CSV row of ``zx import``: where (the error's own line when rejected), the head digest
    (16 hex digits; --format json gives all 64), and the error with its rule."""
    error = None
    if o.error is not None:
        rule = getattr(o.error, "rule", None)
        error = f"rule {rule}: {o.error.message}" if rule else o.error.message
    where = o.error.where if o.error and o.error.line else f"{o.source}:{o.line}" if o.line else o.source
    return {"match": o.match_id, "source": where,
            "status": o.status, "events": o.events, "violations": len(o.violations),
            "head": o.head[:16] if o.head else None, "error": error}


@zx.command("matches")
@format_option
@click.pass_context
def matches_cmd(ctx: click.Context, fmt: str) -> None:
    """List the stored matches: id, date, event, players, decks, turns, winner.

    Example: zx matches --format csv
    """
    rows = service(ctx).summaries()
    emit(rows, fmt, ["match", "played_at", "event", "p1", "p1_deck", "p2", "p2_deck", "turns", "winner",
                     "reason", "violations"])


# the other commands live in their own modules, which import ``service`` from here
from .analytics import register as register_analytics  # noqa: E402
from .audit import audit_cmd, verify_cmd  # noqa: E402
from .demo import demo_cmd  # noqa: E402
from .replay import replay_cmd  # noqa: E402
from .simulate import simulate_cmd  # noqa: E402

for _command in (replay_cmd, audit_cmd, verify_cmd, simulate_cmd, demo_cmd):
    zx.add_command(_command)
register_analytics(zx)


def main() -> None:
    zx(prog_name="zx")


if __name__ == "__main__":
    main()
