"""The ``zx`` command: import, list, replay, audit and analyse matches of every installed game."""

from __future__ import annotations

import errno
import io
import os
import sys

import click

from zx_events.errors import ZXError

from .common import BOARD_HELP, DAY, GAME, MAX_WORKERS, STORE_HELP, interrupted, load_catalog_option, log_paths, match_filter_options, service, summaries, with_store  # noqa: F401  (commands' shared helpers)
from .options import format_option, refuse_repeats  # (zx_cli.output, the tables, is imported by the commands that print: not by --help)




# The commands defined in other modules, imported only when run (``zx --help`` and ``zx matches``
# load none of them): name -> (module, attribute, the first paragraph of its help). ``zx --help``
# lists each by that paragraph, shortened as click shortens a loaded command's help;
# tests/test_cli_startup.py checks that it is the command's own (change both together).
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "analytics": ("zx_cli.analytics", "analytics_group",
                  "Maintain the analytics DuckDB file projected from the event store."),
    "audit": ("zx_cli.audit", "audit_cmd",
              "Report every rule violation of match logs or stored matches (exit 1 when any)."),
    "demo": ("zx_cli.demo", "demo_cmd",
             "Simulate matches of every game, import them, update analytics, print each game's summary and replay a turn."),
    "export": ("zx_cli.analytics", "export_cmd",
               "Export every analytics table as Parquet, partitioned by month, with the data dictionary."),
    "prepare": ("zx_cli.replay", "prepare_cmd",
                "Write the replay snapshots of stored matches, so that any moment of them opens at once."),
    "replay": ("zx_cli.replay", "replay_cmd",
               "Replay a stored match: the board and both players' zones at any moment, from any seat."),
    "report": ("zx_cli.serve", "report_cmd",
               "Write the metagame dashboard as one self-contained HTML file (charts inline, no server, no network)."),
    "serve": ("zx_cli.serve", "serve_cmd",
              "Serve the store over HTTP: a JSON API, the match browser with replays, and the metagame dashboard."),
    "simulate": ("zx_cli.simulate", "simulate_cmd",
                 "Play complete legal matches between sample decks and write them as match logs "
                 "(zxlog 1, x610zlog 1)."),
    "sql": ("zx_cli.analytics", "sql_cmd",
            "Run read-only SQL on the analytics file (no files, settings or extensions: docs/security.md)."),
    "stats": ("zx_cli.analytics", "stats_group",
              "Metagame statistics: every rate with its count and a Wilson 95% interval."),
    "verify": ("zx_cli.audit", "verify_cmd",
               "Recompute the digest chain of stored matches, check them against the store seal, "
               "name the first tampered event."),
    "view": ("zx_cli.view", "view_cmd",
             "Write a stored match as one HTML file that replays it in any browser, from the seats chosen."),
}


TAKES_SIGTERM = frozenset({"serve"})  # commands that stop on SIGTERM themselves and end by it (docs/serve.md); every
# other one takes it as Ctrl-C (zx_cli.sigterm), zx analytics follow too until its own handler is in place

OUTPUT_CLOSED = 141  # the exit status of a process that SIGPIPE ended (128 + 13), as POSIX tools give it


class OutputClosed(Exception):
    """Standard output was closed while a command wrote it (``zx verify | head``): the command ends quietly with
    ``OUTPUT_CLOSED`` (README.md, "Exit status"). Not an OSError, so that click does not turn it into exit 1."""


class ZXGroup(click.Group):
    """The root group. The commands of ``LAZY_COMMANDS`` are imported when run (click's "lazily
    loading subcommands"), each given ``--store`` after its name. A store that fails under a command
    (a damaged SQLite page, a lost server connection) is an error message naming the store, never a
    traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in LAZY_COMMANDS:
            from importlib import import_module

            module, attribute, _ = LAZY_COMMANDS[cmd_name]
            command = getattr(import_module(module), attribute)
            accept_store_everywhere(command)
            self.add_command(command, cmd_name)
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """A mistyped command is offered the closest of every command's name, the lazy ones not loaded yet
        too, by name (nothing imported for it): click offers the commands it has loaded (``self.commands``),
        and ``zx stat`` said "No such command 'stat'." with no "Did you mean 'stats'?" (``zx improt`` had it).
        The closest name only (or the names as close as it): click lists all it finds close in alphabetical
        order, ``zx replya`` "(Did you mean one of: 'prepare', 'replay'?)". (click's NoSuchCommand, 8.4 on; an
        older click offers none at all.)"""
        try:
            name, command, rest = super().resolve_command(ctx, args)
        except click.UsageError as e:
            name = getattr(e, "command_name", None)
            if name is None:  # (another usage error: an option before the command, an older click's words)
                raise
            names = [n for n in self.list_commands(ctx) if not getattr(self.commands.get(n), "hidden", False)]
            raise type(e)(name, possibilities=closest(name, names), ctx=e.ctx) from None
        if name in TAKES_SIGTERM:  # (stops on it itself, then ends by it: not Ctrl-C's path)
            from . import sigterm

            sigterm.leave()
        return name, command, rest

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``zx --help`` without importing the commands not loaded yet: each of
        those is listed by the first paragraph of its help, shortened as click shortens a loaded one's."""
        listed = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name) or click.Command(name, help=LAZY_COMMANDS[name][2])
            if not command.hidden:
                listed.append((name, command))
        if listed:
            limit = formatter.width - 6 - max(len(name) for name, _ in listed)
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in listed])

    def invoke(self, ctx: click.Context):
        from zx_events.errors import ADVICE_FOR

        from . import sigterm

        sigterm.finished(False)
        advice = ADVICE_FOR.set("cli")  # (an error's remedy in the command line's words: zx analytics update --rebuild)
        try:
            result = self._invoke(ctx)
            sigterm.finished()
            return result
        except (click.Abort, KeyboardInterrupt):
            if not sigterm.terminated():
                raise  # Ctrl-C: "Aborted!", exit 1 (click)
            if not sigterm.said():  # SIGTERM: the command's own line said what it kept, else this one
                click.echo("Aborted! (SIGTERM)", err=True)
            raise SystemExit(1) from None  # (main ends the process by the signal)
        except OSError as e:
            if e.errno == errno.EPIPE and _writing_output(e):  # (click would exit 1, silently: "a finding" to a
                raise OutputClosed() from None  # script); not a pipe to a worker process, which is an error
            raise
        except click.ClickException as e:  # every error message, the text it quotes too (DuckDB's "Could not
            # convert string 'Evil\x1b]52;...'": a player's name wrote the clipboard of whoever ran zx sql), with each
            # control character as its escape (docs/security.md, "Free text in a terminal"); lines kept
            from zx_events.freetext import printable

            e.message = printable(with_store(e.message, ctx))  # (and the update it advises runnable as written)
            raise
        finally:
            ADVICE_FOR.reset(advice)

    def _invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ZXError as e:  # worded for the user wherever it was raised (a damaged match found deep in a replay)
            if os.environ.get(DEBUG_ENV, "0") not in ("", "0"):
                raise
            raise click.ClickException(str(e)) from None
        except Exception as e:
            if interrupted(e):  # Ctrl-C while DuckDB ran a statement: the ordinary interrupt
                raise click.Abort() from None
            from zx_events.store import StoreFailure, is_failure, parse_store

            if not is_failure(e):
                raise

            store = (ctx.obj or {}).get("store") or "zx-store.sqlite"
            try:
                config = parse_store(store)
            except ZXError:
                config = None
            # (the words of the Python API's StoreFailure: zx_events.store.failed)
            raise click.ClickException(str(StoreFailure.of(store, config, e))) from None


def closest(name: str, names: list[str]) -> list[str]:
    """The names of ``names`` closest to ``name`` (difflib's ratio, as click's suggestions: at least 0.6), the
    ties of the closest kept; none when none is that close."""
    from difflib import SequenceMatcher

    scored = [(SequenceMatcher(None, name, n).ratio(), n) for n in names]
    best = max((score for score, _ in scored), default=0.0)
    return [n for score, n in scored if score == best] if best >= 0.6 else []


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("zx-events")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``--version``: the installed version, looked up only when asked (importlib.metadata is a
    fifth of ``zx --help``)."""
    if value and not ctx.resilient_parsing:
        click.echo(f"zx {_version()}", color=ctx.color)
        ctx.exit()


@click.group(cls=ZXGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", "-V", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
@click.option("--store", envvar="ZX_STORE", default=None, metavar="PATH|URL", help=STORE_HELP)
@click.pass_context
def zx(ctx: click.Context, store: str | None) -> None:
    """zx: replay, audit and analyse card game matches: Z/X -Zillions of enemy X- and X610Z (zx games).

    \b
    Example:
      zx demo    (or: zx import examples/legal/*.zxlog && zx matches)
    """
    ctx.obj = {"store": store}
    if "PGAPPNAME" not in os.environ and "application_name" not in os.environ.get("PGOPTIONS", "") \
            and ctx.invoked_subcommand:  # a PostgreSQL session says which zx command it is (a name set is kept)
        # (pg_stat_activity's application_name, and the lock-wait note's "(zx import from ADDRESS)"): a DBA tells the
        # server's sessions from an import's before a pg_terminate_backend (QA round 37); libpq reads it
        os.environ["PGAPPNAME"] = f"zx {ctx.invoked_subcommand}"
        ctx.call_on_close(lambda: os.environ.pop("PGAPPNAME", None))


@zx.command("import")
@click.argument("logs", nargs=-1, required=True, type=click.Path(allow_dash=True, readable=False))  # (a file it
# may not read is rejected by the import, as in a folder, the others imported: click refused the command, exit 2)
@click.option("--catalog", "catalog_path", default=None, metavar="NAME|FILE",
              help="Card catalog for every match of the game it belongs to (default: the shipped one each header "
                   "names, else the game's sample; zx games lists them); a file is also handed to the analytics "
                   "update the import runs (to a later one: zx analytics update --catalog FILE).")
@click.option("--board", "board_path", default=None, metavar="NAME|FILE", help=BOARD_HELP)
@click.option("--accept-violations", is_flag=True,
              help="Store matches as played, recording each rule violation as an event.")
@click.option("--workers", type=click.IntRange(min=1, max=MAX_WORKERS), default=None, metavar="N",
              help="Processes that check matches in parallel, this one (which also writes them) included "
                   f"(default: one per core; a memory: store uses 1; at most {MAX_WORKERS}).")
@click.option("--analytics/--no-analytics", "update_analytics", default=True, show_default=True,
              help="Then bring the analytics DuckDB file up to date (zx analytics update). A switch that takes no "
                   "file: name the file with ZX_ANALYTICS=PATH zx import ... (default: next to a SQLite store, "
                   "X.sqlite -> X.duckdb; else zx-analytics.duckdb in the working directory).")
@format_option
@click.pass_context
def import_cmd(ctx: click.Context, logs: tuple[str, ...], catalog_path: str | None, board_path: str | None,
               accept_violations: bool, workers: int | None, fmt: str, update_analytics: bool = True) -> None:
    """Import match logs (JSON Lines: zxlog 1, x610zlog 1) into the event store, checking every rule.

    \b
    Examples:
      zx import examples/legal/*.zxlog
      zx import examples/legal          (a folder)
      cat examples/legal/*.zxlog | zx import -   (stdin)

    A match that breaks a rule is rejected with FILE:LINE: rule NNN: message and nothing of it is
    stored; the others are imported. Exit code 1 when any match was rejected. A store this import created
    and stored nothing in (every log rejected) is removed again.
    """
    import os
    import signal

    from .output import counted, emit, printable, progress, say

    from . import sigterm

    svc = made = None  # the store, once opened; what of it this import creates (zx_events.newstore)
    opening = False  # the store is being opened (an interrupt then names it)
    catalog_file = catalog_path if catalog_path and os.path.isfile(catalog_path) else None  # (not a shipped name)
    # SIGTERM (systemd, `timeout`, docker stop) is Ctrl-C's stop (zx_cli.sigterm: what was stored stays, the batch
    # under way is not saved, the message), then the process ends by the signal once the store is closed; taken
    # here too for an import run in another program (CliRunner), and given back at its end
    previous_term = sigterm.take()
    try:  # SIGTERM anywhere in the command (its modules loaded, the logs read, the store opened, the analytics
        # updated after): as Ctrl-C (the handler comes first: SIGTERM while these modules loaded ended it without a word)
        from eventsourcing.persistence import PersistenceError

        from zx_events.application import let_go_of
        from zx_events.forked import WorkerDied
        from zx_events.newstore import before_creating, lost_under, made_schema, remove_if_empty, remove_unopened
        from zx_events.parallel import import_files

        logs = tuple(log_paths(logs))
        if "-" in logs and sys.stdin is None:  # closed (``<&-``): Python has no standard input at all
            raise click.UsageError("- reads match logs from standard input, which is closed: pipe or redirect the "
                                   "logs into zx import -, or name the files")
        references = load_catalog_option(catalog_path, board_path)  # a bad --catalog or --board fails here
        if "-" in logs and sys.stdin.isatty():  # a forgotten pipe would otherwise wait without a word
            click.echo("reading match logs from standard input: paste or type them, then Ctrl-D", err=True)
        made = before_creating(ctx.obj["store"])  # (None: the store is there already, or memory:)
        try:
            opening = True
            svc = service(ctx, create=True)  # (after every argument is checked)
        except BaseException as e:  # a new store that could not be opened (a path too long for SQLite, a folder it
            if made is not None:  # may not write): the empty file and the folders made for it stayed
                if not (isinstance(e, KeyboardInterrupt) and remove_if_empty(made)):  # (a Ctrl-C as its tables
                    remove_unopened(made)  # were being made: a file of a page, holding nothing, stayed)
            raise
        made = made or made_schema(svc)
        from zx_events.store import locked_by_another, write_refusal

        refusal = write_refusal(svc.store)
        if refusal is not None:
            svc.close()
            raise click.ClickException(refusal)
        drawn: list[object] = []  # the import's bar, once drawn (a note said while it is drawn goes above it)
        if svc.store.kind == "postgres":  # a line once an insert has waited LOCK_WAIT_NOTE s for the table lock
            from zx_events.store import lock_wait_note

            noted: list[int] = []

            def waiting(pid: int) -> None:  # once per import: it was said again for every batch that waited
                if not noted:
                    noted.append(pid)
                    say(drawn[0] if drawn else None, lock_wait_note(svc.store, pid))  # (above the bar)

            svc.recorder.on_lock_wait = waiting
        elif locked_by_another(svc.store):  # (after 3 s of waiting for it)
            click.echo(f"note: another process is writing {svc.store.label} (another zx import or zx prepare): waiting "
                       f"for it to finish, up to {svc.store.env.get('SQLITE_LOCK_TIMEOUT', '30')} s more", err=True)
        try:
            svc.index_summaries(note=lambda text: click.echo(f"note: {text}", err=True))
        except PersistenceError as e:  # (another writer holding the store past its lock timeout, a full disk)
            from .common import store_failed

            cause, todo = store_failed(svc.store, e, "run the import again")
            raise click.ClickException(f"the store {svc.store.label} failed before the import began (nothing was "
                                       f"imported): {cause}; {todo}") from None
        total = sum(os.path.getsize(p) if os.path.isfile(p) else 0 for p in logs)
        outcomes = []
        with progress(max(1, total), "importing", enabled=total > 2_000_000, in_bytes=True) as bar:
            drawn.append(bar)
            task = bar.add_task("import", total=total)
            try:  # one match at a time: memory stays bounded whatever the corpus size
                for o in import_files(svc, logs, workers=workers, catalog=catalog_path, board=board_path,
                                      accept_violations=accept_violations, on_bytes=lambda n: bar.advance(task, n)):
                    outcomes.append(o)
            except PersistenceError as e:  # the store failed mid-import: the batch under way was not saved
                from .common import store_failed

                done = sum(o.status == "imported" for o in outcomes)
                cause, todo = store_failed(svc.store, e, "run the import again")
                raise click.ClickException(f"the store {svc.store.label} failed after "
                                           f"{counted(done, 'imported match', 'imported matches')} "
                                           f"(the batch under way was not saved): {cause}; {todo} (the matches stored "
                                           f"are 'unchanged' then)") from None
            except WorkerDied as e:
                done = sum(o.status == "imported" for o in outcomes)
                raise click.ClickException(f"{e} ({counted(done, 'match', 'matches')} {'was' if done == 1 else 'were'} "
                                           f"imported before)") from None
            except KeyboardInterrupt as e:  # Ctrl-C: what was stored stays, the batch under way was not saved
                let_go_of(e)
                done = svc.matches_written  # (counted at each commit: the outcomes come out a little later)
                bar.stop()  # (the bar's last line ended first: the line below was glued to it)
                if done:
                    click.echo(f"{sigterm.interrupted_word()}: "
                               f"{counted(done, 'match', 'matches')} {'was' if done == 1 else 'were'} imported into "
                               f"{svc.store.label} before (the batch under way was not saved); run the import again "
                               f"to finish it: the matches stored are 'unchanged' then", err=True)
                else:  # (nothing to finish: "run the import again to finish it" read oddly before "the store ...
                    # was removed again")
                    click.echo(f"{sigterm.interrupted_word()}: nothing was imported into {svc.store.label} (the "
                               f"batch under way was not saved)", err=True)
                raise click.Abort() from None
        rejected = [o for o in outcomes if o.status == "rejected"]
        for o in rejected:
            click.echo(printable(str(o.error)), err=True)  # a log's text, as the table shows it
        closed = False  # stdout's reader went away (zx import DIR | head): every match is stored by now, and the
        try:  # summary and the analytics update asked for still come (they were skipped: zx stats showed old figures)
            if fmt == "json":
                emit([o.to_json() for o in outcomes], fmt)
            else:
                emit([_import_row(o, whole=fmt == "csv") for o in outcomes], fmt,
                     ["match", "source", "status", "events", "violations", "head", "error"],
                     first=("status", "error", "source", "head"))  # (source: where a rejected row's log is)
        except OSError as e:
            if e.errno != errno.EPIPE or not _writing_output(e):  # (as ZX.invoke tells stdout's reader gone)
                raise
            closed = True  # (141 once the rest is done: OutputClosed)
        imported = sum(o.status == "imported" for o in outcomes)
        unchanged = sum(o.status == "unchanged" for o in outcomes)
        last = next((o.match_id for o in reversed(outcomes) if o.status == "imported"), None)
        if last is not None and lost_under(svc.store, last):  # the file removed under this import (newstore)
            raise click.ClickException(
                f"the store file {svc.store.label} was removed or replaced while this import wrote to it (another "
                f"zx import that stored nothing removes the store it made): the "
                f"{counted(imported, 'match', 'matches')} reported above are not in it; run the import again")
        unfinished = [o.match_id for o in outcomes if o.status == "imported" and not o.finished]
        if unfinished:  # a log cut short (a pipe whose writer died) is a legal match that stops: kept for good
            named = ", ".join(unfinished[:3]) + (f" and {len(unfinished) - 3:,} more" if len(unfinished) > 3 else "")
            # (a match stored with its violations may have ended on a `result` the rules refused: its log did not
            # stop early, QA round 35)
            refused = any(o.violations for o in outcomes if o.status == "imported" and not o.finished)
            one = len(unfinished) == 1
            ends = f", or {'ends' if one else 'end'} with a result record the rules refused (see the violations)"
            click.echo(f"note: {len(unfinished):,} match{'' if one else 'es'} stored without a result "
                       f"({named}): {'its log stops' if one else 'their logs stop'} before the match "
                       f"ends{ends if refused else ''}; a longer log under the same id will be refused as different "
                       f"content (stored matches are never rewritten)", err=True)
        from .common import warn_unused_references

        warn_unused_references(references, {"catalog": catalog_path, "board": board_path},
                               {o.game for o in outcomes}, "log of this import")
        # (a store this command made and stored nothing in is removed again when the command ends, unless
        # another importer has it open or put something in it meanwhile: zx_events.newstore)
        click.echo(f"{imported:,} imported, {unchanged:,} unchanged, {len(rejected):,} rejected "
                   f"into {svc.store.label}", err=True)
        if update_analytics and imported:
            from .analytics import update_after_import

            # its catalog goes on to the analytics: a file's cards are stored nowhere else
            update_after_import(ctx, svc, tuple(v for k, v in (references or {}).items() if isinstance(k, str)),
                                catalog_file)
        if closed:
            raise OutputClosed()
        if rejected:
            sys.exit(1)
    except KeyboardInterrupt as e:  # outside the import loop (which says how far it got)
        if svc is not None:  # (its module loaded: not while the command's modules were)
            from zx_events.application import let_go_of as release

            release(e)
        done = svc.matches_written if svc is not None else 0
        terminated = sigterm.terminated()
        if not terminated and not done:
            raise  # Ctrl-C before anything was stored: "Aborted!" (zx_cli.main.main), as before
        from .analytics import catalog_given

        later = with_store(f"; `zx analytics update{catalog_given(catalog_file)}` brings the analytics file up to date"
                           if done and update_analytics else "")
        click.echo(f"{sigterm.interrupted_word()}: {counted(done, 'match', 'matches')} "
                   f"{'was' if done == 1 else 'were'} imported" + _into(svc, ctx, opening) + later, err=True)
        if not terminated:  # (Ctrl-C after the import, before its analytics update began)
            raise click.Abort() from None
    finally:
        if not sigterm.terminated():
            signal.signal(signal.SIGTERM, previous_term)
        if made is not None and svc is not None and svc.matches_written == 0:
            _remove_made_store(svc, made)
        elif svc is not None:  # its connections (the store's "open" lock among them) let go now, not at the
            svc.close()  # process's end: an import run in a longer-lived process (CliRunner)
        if sigterm.terminated():  # ended by SIGTERM, after its message, once the store is closed
            sigterm.end()


def _into(svc, ctx: click.Context, opening: bool) -> str:
    """`` into STORE`` of an interrupted import's message: the store it opened, or the one it was opening (a
    SIGTERM while the store was being opened said "0 matches were imported", into no store); none before."""
    if svc is not None:
        return f" into {svc.store.label}"
    if not opening:
        return ""
    try:
        from zx_events.store import parse_store

        return f" into {parse_store(ctx.obj['store']).label}"
    except Exception:  # (a store it could not even read: said by the error before, if any)
        return ""


def _remove_made_store(svc, made) -> None:
    """The store ``zx import`` made (``made``, zx_events.newstore) and stored nothing in, removed again,
    with a note: "a rejected match leaves nothing behind" held for the store too (a fully rejected import
    of a new store left an empty file or schema). Kept when another process has it open or put something
    in it."""
    from zx_events.newstore import remove_if_empty

    svc.close()  # (its own connections would keep it open)
    if remove_if_empty(made):
        if made.emptied:
            click.echo(f"nothing was stored, so the store {svc.store.label} is an empty file again, as it was", err=True)
        elif svc.store.kind == "sqlite" and made.removed != str(svc.store.path):  # (a link to the file made: it stays)
            click.echo(f"nothing was stored, so the store {made.removed} that this import created (where "
                       f"{svc.store.label} links to) was removed again", err=True)
        else:
            click.echo(f"nothing was stored, so the store {svc.store.label} that this import created was removed "
                       f"again", err=True)


def _import_row(o, whole: bool = False) -> dict:
    """One table/CSV row of ``zx import``: where (the error's own line when rejected), the head digest
    (16 hex digits in the table; all 64 in CSV, ``whole``, and JSON), and the error with its rule."""
    error = None
    if o.error is not None:
        rule = getattr(o.error, "rule", None)
        error = f"rule {rule}: {o.error.message}" if rule else o.error.message
    where = o.error.where if o.error and o.error.line else f"{o.source}:{o.line}" if o.line else o.source
    return {"match": o.match_id, "source": where,
            "status": o.status, "events": o.events, "violations": len(o.violations),
            "head": (o.head if whole else o.head[:16]) if o.head else None, "error": error}


def _without_collector(command):
    """``command`` run with the garbage collector off (as it was again after): ``zx matches`` makes no reference
    cycle to collect (its rows and rich's table are freed by their reference counts: none was left by a listing of
    79 matches), and the collector's passes over every object it imported (rich's modules) were ~3 ms of its
    start-up (issue 20 target 4)."""
    from functools import wraps

    @wraps(command)
    def run(*args, **kwargs):
        import gc

        collecting = gc.isenabled()
        gc.disable()
        try:
            return command(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()
    return run


@zx.command("matches")
@match_filter_options
@click.option("--winner", default=None, metavar="P1|P2|NAME|draw|none",
              help="Only matches won by this side or player; draw: finished without a winner; none: no result.")
@click.option("--violations", "with_violations", is_flag=True,
              help="Only matches stored with rule violations (imported with --accept-violations).")
@click.option("--game", type=GAME, default=None, help="Only matches of this game (zx, x610z: zx games).")
@click.option("--sort", type=click.Choice(("store", "newest", "oldest"), case_sensitive=False), default="store", show_default=True,
              help="store: as stored (import order); newest: the latest played first; oldest: the earliest first "
                   "(ties in store order, undated matches last).")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="At most N matches (the first N in --sort's order).")
@click.option("--exact", is_flag=True,
              help="Names as written (in any Unicode normal form), each spelling apart, as zx stats counts them "
                   "(default: in any case and width).")
@format_option
@click.pass_context
@_without_collector
def matches_cmd(ctx: click.Context, player: str | None, deck: str | None, opponent: str | None, opp_deck: str | None,
                event: str | None, since: str | None, until: str | None, winner: str | None, with_violations: bool,
                game: str | None, sort: str, limit: int | None, exact: bool, fmt: str) -> None:
    """List the stored matches: id, date, event, players, decks, turns, winner.

    \b
    Example:
      zx matches --player Aki --opponent Mio --sort newest --limit 20

    With --player, each match is seen from that player's side: their seat, deck, opponent, the
    opponent's deck and the result (won, lost, draw, none). A player, deck or event no stored match
    has is an error that names the closest ones.
    """
    from zx_events.matchlist import MatchFilters, kept as kept_rows, record_line, recorded, records, unknown_filter

    from .common import spellings
    from .output import emit, printable

    sort = sort.lower()
    try:
        filters = MatchFilters(game, player, deck, event, since, until, winner, None, opponent, opp_deck, exact)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    filtered = any(v is not None for v in (player, deck, opponent, opp_deck, event, since, until, winner, game)) \
        or with_violations or sort != "store" or exact
    rows = summaries(ctx, None if filtered else limit)  # (unfiltered in store order, the first N: read match by match)
    kept = [r for r in kept_rows(rows, filters, sort) if not with_violations or r["violations"] > 0]
    unknown = unknown_filter(rows, filters) if not kept else None  # a name no stored match has (of the game given)
    if unknown is not None:
        from zx_analytics.stats import UnknownName  # (polars and DuckDB: only to word this error)

        raise click.ClickException(str(UnknownName(*unknown[1])))
    tallies = records(kept) if recorded(filters) else []  # (of every match kept, --limit or not: the record and
    chosen, listed = kept, len(kept)  # the spellings note)
    if limit is not None:
        kept = kept[:limit]
    dated = ("played_at",) if sort != "store" else ()  # (sorted by it: the date stays at a narrow width)
    if player:  # the player's side: a reader's columns first (opponent, result), as the table narrows
        # (JSON: every field of the summary, and seat, player, opponent, deck, opp_deck, result besides)
        emit(kept, fmt, ["match", "played_at", "event", "seat", "deck", "opponent", "opp_deck", "turns", "result",
                         "reason", "violations", "game"],
             first=("opponent", "result", *dated, "deck", "opp_deck"))
    else:  # at a narrow width the players and the winner stay; the decks, date, event and the rest as they fit
        emit(kept, fmt, ["match", "played_at", "event", "p1", "p1_deck", "p2", "p2_deck", "turns", "winner",
                         "reason", "violations", "game"],
             first=("p1", "p2", "winner", *dated, "p1_deck", "p2_deck"))
    for note in () if exact else (  # (names as written: one spelling each)
            spellings(chosen, "player", player, ("player",) if player else ("p1", "p2")),  # (of every match kept,
            spellings(chosen, "opponent", opponent, ("opponent",) if player else ("p1", "p2"))):  # QA round 37)
        if note:
            click.echo(printable(f"note: {note}"), err=True)
    for tally in tallies:  # the player's record, as zx stats winrates --by player counts it (on stderr: the table
        # and its formats unchanged)
        of = f" (of all {listed:,} matches kept; --limit lists {len(kept):,})" if len(kept) < listed else ""
        click.echo(printable(f"record: {record_line(filters, tally, chosen, len(tallies) > 1)}{of}"), err=True)
    if not kept and rows:
        click.echo("no stored match matches these filters", err=True)
    holding_nothing()  # (summaries closed the store: read_sqlite's connection, or the service's)


@zx.command("games")
@format_option
def games_cmd(fmt: str) -> None:
    """List the installed games: key, name, rules version, log header, record kinds, catalogs.

    \b
    Example:
      zx games --format json
    """
    from zx_events import games

    from .output import emit

    rows = [{**d, "record_kinds": d["record_kinds"] if fmt == "json" else ",".join(d["record_kinds"]),
             "catalogs": d["catalogs"] if fmt == "json" else ",".join(d["catalogs"])} for d in games.describe()]
    emit(rows, fmt, ["key", "name", "rules", "header", "suffix", "topics", "catalogs", "record_kinds"])
    holding_nothing()


def _late_store(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.find_root().obj["store"] = value


STORELESS = frozenset({"demo", "games", "simulate"})  # commands that open no store: --store after them is refused
# (zx demo --store mine.sqlite was accepted and the demo went into zx-demo/ without a word)


def accept_store_everywhere(command: click.Command) -> None:
    """``--store`` also after the subcommand (``zx stats attacks --store x``), on every command, and
    after a group's name (``zx stats --store x attacks``: it was "No such option"): the root group's
    own commands here, each lazy one when it is loaded (``ZXGroup.get_command``)."""
    refuse_repeats(command)  # (an option taken once given twice: a usage error, on every command)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            accept_store_everywhere(sub)
    if command.name in STORELESS:
        return
    if not any("--store" in getattr(p, "opts", ()) for p in command.params):
        command.params.append(click.Option(["--store"], default=None, metavar="PATH|URL", expose_value=False,
                                           is_eager=True, callback=_late_store, help=STORE_HELP))


refuse_repeats(zx)  # (zx --store A --store B)
for _command in zx.commands.values():
    accept_store_everywhere(_command)


DEBUG_ENV = "ZX_DEBUG"  # set (to anything but 0): an unexpected error shows its traceback

_held = {"nothing": False}  # holding_nothing() was said by the command that ran: main() lets the process end sooner


def holding_nothing() -> None:
    """Said by a command, at its end, that holds no store, file or connection open (``zx matches``, ``zx games``):
    ``main`` then ends the process without its last collections of reference cycles (``gc.freeze``), a garbage
    collector's walk of every object the command made and imported: about 9 ms of ``zx matches`` (issue 20 target 4),
    which had nothing left to close. Objects are still freed as the interpreter ends; what a cycle holds is
    released with the process, as the file of a command that closes none would be. Only ``main`` (the ``zx``
    process) acts on it: a command run in another program (click's ``CliRunner``) never freezes its objects."""
    _held["nothing"] = True


def main() -> None:
    try:
        os.getcwd()
    except FileNotFoundError:  # deleted under the shell: every relative path failed, in a double traceback
        sys.stderr.write("Error: the working directory no longer exists (it was deleted or moved): cd to a folder "
                         "that does\n")
        sys.exit(1)
    if sys.stdout is None:  # fd 1 closed (``>&-``): every command printed nothing and said it had succeeded
        if sys.stderr is not None:
            sys.stderr.write("Error: standard output is closed: zx has nowhere to print (redirect it to a file, or "
                             "to /dev/null to discard what it prints)\n")
        sys.exit(1)
    _whole_writes()
    for stream in (sys.stdout, sys.stderr):  # a terminal or pipe that cannot show every character (ASCII,
        # cp1252), or a character no encoding can write (half a surrogate pair: an argument's byte that is
        # not UTF-8 reaches Python as one): written as an escape (\u5c71, \udcff) instead of failing the command
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    _held["nothing"] = False
    from . import sigterm

    sigterm.take()  # (zx_cli:main took it already, before the command line's modules were imported)
    try:
        _run()
    finally:
        if sigterm.terminated():  # SIGTERM took Ctrl-C's path: the command cleaned up and said so; it ends by it
            sigterm.end()


def _run() -> None:
    try:
        zx(prog_name="zx")
    except (SystemExit, GeneratorExit):
        if _held["nothing"]:  # (the process ends now: holding_nothing)
            import gc

            gc.freeze()
        raise
    except OutputClosed:  # what is left in stdout's buffer goes nowhere (its flush at exit would fail again)
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        sys.exit(OUTPUT_CLOSED)
    except BaseException as e:  # (BaseException: a Rust library's panic reaches Python as one)
        if interrupted(e):  # Ctrl-C outside a command's own handling: as click reports it within one
            from . import sigterm

            click.echo("Aborted! (SIGTERM)" if sigterm.terminated() else "Aborted!", err=True)
            sys.exit(1)
        if os.environ.get(DEBUG_ENV, "0") not in ("", "0"):
            raise
        click.echo(internal_error(e), err=True)
        if isinstance(e, OSError) and _writing_output(e):  # what is left in its buffer goes nowhere: Python's own
            # flush at exit failed again ("Exception ignored ... OSError", exit 120), as the Python docs say of EPIPE
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
        sys.exit(1)


class _WholeWrites(io.RawIOBase):
    """Standard output's file descriptor, each write written whole or failing: a pipe whose reader went away in the
    middle of a large write (``zx sql ... | head -1``) returned a short count, which Python's buffered writer passed
    on and its text layer ignored: the rest was lost without an error, and the command exited 0. Here the next
    ``os.write`` raises the broken pipe (``OutputClosed``: 141)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, b) -> int:
        view = memoryview(b).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self.fd, view[done:])
        return done


def _whole_writes() -> None:
    """``sys.stdout`` over ``_WholeWrites`` (same encoding, line buffering and descriptor), where it is a pipe."""
    import stat

    try:
        fd = sys.stdout.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return
    except (AttributeError, OSError, ValueError):  # (no descriptor: a test's captured output)
        return
    sys.stdout.flush()
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_WholeWrites(fd)), encoding=sys.stdout.encoding,
                                  errors=sys.stdout.errors, line_buffering=sys.stdout.line_buffering)


def internal_error(e: BaseException) -> str:
    """The one line ``zx`` prints for an error no command expected, instead of a traceback: what
    failed and where (the innermost frame, as FILE:LINE), and that it is a bug to report."""
    from zx_events.errors import raised_at

    where = raised_at(e)
    if isinstance(e, MemoryError):
        return f"Error: out of memory{where}: nothing more could be done"
    if isinstance(e, OSError) and e.errno is not None:  # the system refused (disk full, permission, ...)
        if e.filename is None and _writing_output(e):  # (it named a line of rich's console: "zx matches > /dev/full")
            return f"Error: cannot write the output (standard output): {e.strerror or e}"
        target = f": {e.filename}" if e.filename is not None else ""
        # the system's refusal, not a bug: where in zx's own code, never a line of Python's (pathlib.py:1116)
        return f"Error: {e.strerror or e}{target}{raised_at(e, ours=True)}"
    text = str(e).strip().splitlines()
    return (f"Error: internal error: {type(e).__name__}: {text[0] if text else 'no message'}{where}. "
            f"This is a bug in zx, not in your data or command: please report it with the command that "
            f"caused it; {DEBUG_ENV}=1 shows the traceback.")


def _writing_output(e: BaseException) -> bool:
    """Whether ``e`` was raised writing what a command prints: in rich's console or click's echo (the
    tables, JSON and CSV go through them)."""
    import traceback

    for frame in traceback.extract_tb(e.__traceback__):
        path = frame.filename.replace("\\", "/")
        if (path.endswith("/rich/console.py") and frame.name in ("_write_buffer", "_check_buffer")) or \
                (path.endswith("/click/utils.py") and frame.name == "echo"):
            return True
    return False


if __name__ == "__main__":
    main()
