"""What the ``zx`` commands share: the store they open, the ``--catalog`` option, the log files of
``zx import``. (Its own module so that the command modules and ``zx_cli.main`` do not import each other.)"""

from __future__ import annotations

from typing import Callable

import click

from zx_events.advice import with_given
from zx_events.errors import ZXError, not_ascii

STORE_HELP = ("Event store: a SQLite file (default zx-store.sqlite), memory:, or postgresql://USER@HOST:PORT/DB. "
              "Also ZX_STORE. Only zx import and zx demo create one; read commands never write to it.")


def service(ctx: click.Context, *, create: bool = False, write: bool = False):
    """The store of ``--store``; only ``create`` (zx import) makes one where there is none. Only ``create``
    and ``write`` (zx prepare, zx verify --seal) may write to it: a read command's store is never written
    (``zx_events.store.resolve_store``)."""
    from zx_events.application import MatchService
    from zx_events.store import SchemaRefused

    from .sigterm import opened

    try:  # (closed before the process ends by SIGTERM: its -wal and -shm files stayed beside the store)
        return opened(MatchService(ctx.obj["store"], create=create, write=create or write))
    except SchemaRefused as e:  # no USAGE on the schema: the grants of this command, which the store cannot tell
        command = _writer(ctx) if write and not create else None
        raise click.ClickException(e.for_command(command) if command else str(e)) from None
    except ZXError as e:  # StoreError: says which store and why, without the password
        raise click.ClickException(str(e)) from None
    except Exception as e:  # a store that cannot be opened is a user error, not a traceback
        raise cannot_open(ctx.obj["store"], e) from None


def cannot_open(store: str | None, e: Exception) -> click.ClickException:
    """The error of a store that could not be opened (``service``, ``zx serve``'s backend): which store,
    without its password, and why, in words for a PostgreSQL store (a statement or lock timeout, a
    privilege, a lost server: ``postgres_cause``)."""
    from zx_events.store import cannot_open_text, parse_store, redacted

    try:
        return click.ClickException(cannot_open_text(parse_store(store), e, store))
    except ZXError:
        return click.ClickException(redacted(f"cannot open the store {store or ''}: {e}", store))


def _writer(ctx: click.Context) -> str | None:
    """The command of ``ctx`` that writes an existing store, as ``zx_events.store.WRITER_GRANTS`` names it."""
    if ctx.info_name == "prepare":
        return "zx prepare --repair" if ctx.params.get("repair") else "zx prepare"
    return "zx verify --seal" if ctx.info_name == "verify" else None


def interrupted(e: BaseException) -> bool:
    """Whether ``e`` is Ctrl-C: a KeyboardInterrupt, or DuckDB's end of a statement that SIGINT stopped
    (DuckDB turns the KeyboardInterrupt into RuntimeError "Query interrupted", or its InterruptException;
    both were "internal error ... a bug in zx"), or DuckDB's InvalidInputException around the KeyboardInterrupt
    of the Python Arrow stream it read (``zx export``: "cannot export to DIR: Invalid Input Error: reading the
    schema of the object registered as 'export_rows' failed: KeyboardInterrupt")."""
    if isinstance(e, KeyboardInterrupt):
        return True
    import re
    import sys

    duckdb = sys.modules.get("duckdb")  # (a command that never imported DuckDB cannot have raised its error)
    if duckdb is not None and isinstance(e, duckdb.InterruptException):
        return True
    if duckdb is not None and isinstance(e, duckdb.InvalidInputException) \
            and re.search(r"(^|: )KeyboardInterrupt\s*$", str(e), re.MULTILINE):
        return True
    return isinstance(e, RuntimeError) and str(e).strip() == "Query interrupted"


def summaries(ctx: click.Context, first: int | None = None) -> list[dict]:
    """The stored matches' summaries (``zx matches``): of a SQLite store read straight from its file
    without opening the application (``zx_events.summaries.read_sqlite``), else the service's; ``first``:
    at least the first so many (all of them, where they cannot be read so)."""
    from zx_events.store import resolve_store
    from zx_events.summaries import read_sqlite

    try:  # prepare=False: another kind of store is only parsed here, and opened by the service
        rows = read_sqlite(resolve_store(ctx.obj["store"], prepare=False, create=False), first)
    except ZXError as e:
        raise click.ClickException(str(e)) from None
    if rows is not None:
        return rows
    svc = service(ctx)
    try:
        return svc.summaries()
    finally:
        svc.close()  # (a PostgreSQL store's pool: left to the collector, it was closed by __del__ with a warning)


def load_catalog_option(path: str | None, board: str | None = None):
    """``--catalog NAME|FILE`` and ``--board NAME|FILE``: the reference data for the games they
    belong to (``games.load_references``; None: each header's own shipped catalog and board)."""
    from zx_events.games import load_references

    try:
        return load_references(path, board=board)
    except ZXError as e:
        raise click.ClickException(str(e)) from None


def warn_unused_references(references: object, given: dict[str, str | None], used: set, what: str) -> None:
    """A warning on stderr for each of ``--catalog`` and ``--board`` (``given``: option name -> its value) whose
    game none of the matches checked (``used``: their game keys) is: the option was not used (an X610Z board
    with Z/X logs, a Z/X catalog file with X610Z logs); ``what`` names the matches (``log of this import``)."""
    from zx_events import games

    from .output import printable

    for key in references or {}:
        game, option = (key, "catalog") if isinstance(key, str) else (key[0], key[1])
        if game in used or not given.get(option):
            continue
        name = games.get(game).name.split(" ")[0]
        click.echo(printable(f"warning: --{option} {given[option]}: no {what} is {name} (the game of this {option}); "
                             f"it was not used"), err=True)


VIEW_CATALOG_HELP = ("A catalog file matches were imported with (zx import --catalog FILE; the same format): a stored "
                     "match checked against its content (SHA-256) gets its card names from it, which every seat but the "
                     "judge's sees masked (docs/security.md, section 5). Repeatable. A file no stored match here was "
                     "checked against is not used: a warning says so.")


def view_catalogs_option(help: str = VIEW_CATALOG_HELP) -> Callable:
    """``--catalog FILE`` (repeatable) of the commands that show stored matches (zx replay, zx view, zx report, zx
    serve): the catalog files their matches were imported with (``given_catalogs``)."""
    return click.option("--catalog", "catalog_files", multiple=True, metavar="FILE", help=help)


def given_catalogs(paths: tuple[str, ...]) -> tuple:
    """Each ``--catalog FILE`` read as ``zx import --catalog`` reads it (``games.load_catalogs``: the same format
    and SHA-256); a bad one is an error naming it and its line, before the store is opened. A stored name is never
    read as a file: only the files the user gives are (docs/security.md, section 5)."""
    from zx_events.games import load_catalogs

    out = []
    for p in paths:
        try:
            out += load_catalogs(p).values()
        except ZXError as e:
            raise click.ClickException(str(e)) from None  # (as zx import words it: FILE:LINE)
    return tuple(out)


def used_catalogs(given: tuple[str, ...], catalogs: tuple, pinned: set, nobody: str = "no stored match was",
                  then: str = "it was not used") -> tuple:
    """The ``catalogs`` (read from ``given``, each ``--catalog FILE``) that a stored match pinned (``pinned``: their
    (game key, SHA-256), ``replay.pinned_catalogs``); a warning on stderr for each other one: it is not used, as zx
    import and zx analytics update warn of a catalog no match of theirs is of, or was checked against. ``nobody``:
    the subject of the warning (``match 'M' was not``); ``then``: what becomes of the file."""
    from zx_events import games

    from .output import printable

    out = []
    for arg, cat in zip(given, catalogs):
        if (cat.game, cat.sha256) in pinned:
            out.append(cat)
            continue
        click.echo(printable(f"warning: --catalog {arg}: {nobody} checked against it (catalog {cat.name}, sha256 "
                             f"{cat.sha256[:16]}, {games.get(cat.game).name.split(' ')[0]}); {then} (a "
                             f"catalog file is for the matches imported with it: zx import --catalog FILE)"), err=True)
    return tuple(out)


class GameKey(click.ParamType):
    """``--game``: an installed game's key; another is a usage error (exit 2) naming the option and the
    known games, the same for every command (it was exit 1 or 2, in three wordings)."""

    name = "game"

    def convert(self, value, param, ctx):
        from zx_events.games import GAME_MODULES

        if isinstance(value, str) and value.lower() in GAME_MODULES:  # (X610Z, ZX: as the game's own name is written)
            return value.lower()
        self.fail(f"unknown game {value!r} (known: {', '.join(GAME_MODULES)}; zx games lists them)", param, ctx)


class Day(click.ParamType):
    """``--since``/``--until``: a date, YYYY-MM-DD (given as that text); another value is a usage error
    naming the option, the same for every command."""

    name = "date"

    def convert(self, value, param, ctx):
        from datetime import date

        try:
            return date.fromisoformat(str(value)).isoformat()
        except ValueError:
            self.fail(f"{value!r} is not a date (YYYY-MM-DD)", param, ctx)


class Name(click.ParamType):
    """A filter's name (--player, --opponent, --deck, --event, ...): any text but an empty one, a usage error naming
    the option (`--opponent ''` was no filter in zx matches and "no player named ''" in zx stats, QA round 36)."""

    name = "text"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail(f"{value!r} is empty: give a name, or leave the option out", param, ctx)
        return value


class PlayerName(str):
    """A value of ``--as`` that is no seat word: a player's name, read as his seat once the match is loaded
    (``player_seat``)."""


class Seat(click.Choice):
    """``--as``: a seat, in any case (judge, P1, P2, spectator); a value with a character that is not ASCII (a
    Cyrillic ``Р1``, which reads as P1) is refused naming it (``errors.not_ascii``), as a log's seat is.
    ``names``: any other value is a player's name (a ``PlayerName``; ``player_seat`` reads it, refusing it
    the same way): ``zx replay --as``, ``zx view --as``, whose operator has the store (never the HTTP API's
    ``?as=``)."""

    def __init__(self, names: bool = False) -> None:
        from zx_events.seats import PERSPECTIVES  # (made by the commands that take --as: not at every start-up)

        super().__init__(PERSPECTIVES, case_sensitive=False)
        self.names = names

    def get_metavar(self, param, ctx=None):  # click shows them lower-cased (``[judge|p1|p2|spectator]``): as written
        shown = super().get_metavar(param, ctx)
        lowered = "|".join(str(c).lower() for c in self.choices)
        shown = shown.replace(lowered, "|".join(map(str, self.choices)), 1) if shown else shown
        return f"{shown}|NAME" if shown and self.names else shown

    def convert(self, value, param, ctx):
        if isinstance(value, PlayerName):
            return value
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as e:  # click's words ("'Р1' is not one of ..."), the characters named after it
            if self.names and isinstance(value, str) and value.strip():
                import unicodedata

                wide = unicodedata.normalize("NFKC", value).strip().casefold()  # a seat word typed in full width
                seat = next((c for c in self.choices if str(c).casefold() == wide), None)  # ("Ｐ２": a Japanese
                return str(seat) if seat is not None else PlayerName(value)  # keyboard's; it was read as a name)
            named = not_ascii(value) if isinstance(value, str) else ""
            if named and repr(value) in e.message:
                e.message = e.message.replace(repr(value), f"{value!r} ({named})", 1)
            seats = [str(c) for c in self.choices]  # click lists them lower-cased ("'p1', 'p2'"): as they are written
            lowered = ", ".join(repr(c.lower()) for c in seats)
            if lowered in e.message:
                e.message = e.message.replace(lowered, ", ".join(map(repr, seats)), 1).rstrip(".") + " (in any case)."
                if self.names:
                    e.message = e.message.rstrip(".") + ", nor a player's name."
            raise


def seat_of(value: str, match: object, match_id: str) -> tuple[str, str | None]:
    """``--as``'s seat (a ``Seat(names=True)`` value) in match ``match`` (its state at event 1), and the name of the
    player asked for by name, as his match's header has it (None: asked for by seat); a name no player of the match
    has, or both have, is a usage error (exit 2) on ``--as`` that says what to give (``seats.player_seat``)."""
    from zx_events.narration import seat_players
    from zx_events.seats import JUDGE, player_seat

    if not isinstance(value, PlayerName):
        return value, None
    players = seat_players(match, JUDGE, None)
    try:
        seat = player_seat(value, players, match_id)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--as'") from None
    return seat, players[seat]


GAME, DAY, NAME = GameKey(), Day(), Name()


def spellings(rows: list[dict], option: str, name: str | None, keys: tuple[str, ...]) -> str:
    """What to say when ``--OPTION NAME`` stood for several spellings of a name among ``rows``' ``keys`` (the list
    folds case and width, ``zx stats`` takes a name as written: their counts then differ, QA round 36), or ""."""
    from zx_events.matchlist import spellings_of

    found = spellings_of(rows, name, keys)
    if len(found) < 2:
        return ""
    return (f"--{option} {name!r} matches {len(found)} spellings of the name ({', '.join(map(repr, found[:5]))}"
            f"{', ...' if len(found) > 5 else ''}): zx stats counts each apart, as written")


def match_filter_options(f: Callable) -> Callable:
    """The match list's filters that ``zx matches`` and ``zx export`` share (zx_events.matchlist.MatchFilters):
    --player, --deck, --opponent, --opp-deck, --event, --since, --until."""
    for opt in reversed([
        click.option("--player", type=NAME, default=None, help="Only matches this player played (either side; any case)."),
        click.option("--deck", type=NAME, default=None,
                     help="Only matches with this deck on either side; with --player, on that player's side (any "
                          "case)."),
        click.option("--opponent", type=NAME, default=None,
                     help="Only matches against this player (any case); with --player, that player's matches against "
                          "them."),
        click.option("--opp-deck", "opp_deck", type=NAME, default=None,
                     help="Only matches where the side facing --player (without it: either side) played this deck."),
        click.option("--event", type=NAME, default=None, help="Only matches of this event (any case)."),
        click.option("--since", type=DAY, default=None, metavar="YYYY-MM-DD",
                     help="Only matches played on or after this date."),
        click.option("--until", type=DAY, default=None, metavar="YYYY-MM-DD",
                     help="Only matches played on or before this date."),
    ]):
        f = opt(f)
    return f


MAX_WORKERS = 256  # --workers: processes forked at once (a typo of many digits used to fork until the system refused)
MAX_SQL_TIMEOUT = 86_400  # zx sql --timeout: zx_analytics.stats.MAX_SQL_TIMEOUT (not imported here: DuckDB, Polars)
MAX_PAGE_SIZE = 10_000_000  # --page-size: past what SQLite binds (a typo of many digits: an internal error, mid-rebuild)


class Seconds(click.FloatRange):
    """A duration in seconds within [min, max]: ``nan`` (which every range check lets through: it polled
    without pause, or never stopped a query) and ``inf`` are refused, as a value past ``max`` is (a timer
    of 1e10 s overflowed the platform's time_t: a traceback)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        import math

        v = super().convert(value, param, ctx)
        if not math.isfinite(v):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return v

BOARD_HELP = ("X610Z board for every X610Z match: a shipped name or a board file of at most 1 MiB (default: the "
              "shipped board each header names; a log names a board, it cannot make zx read a file). With no "
              "X610Z match, a warning says it was not used.")


def log_paths(args: tuple[str, ...]) -> list[str]:
    """The log files of ``zx import`` arguments: a folder stands for its log files of every game
    (``*.zxlog``, ``*.x610zlog``, in any case: ``R1.ZXLOG``; sorted, subfolders too; the other files it holds
    counted in a note on stderr), ``-`` for standard input. A path that does not exist is an error here,
    before the store is made (it made an empty store); one there that cannot be read (no read permission, a
    link that leads back to itself) is kept, for the import to reject it with why, as in a folder."""
    import os

    from zx_events import games

    suffixes = tuple(g.log_suffix for g in games.all_games())
    out: list[str] = []
    for a in args:
        if a != "-" and os.path.isdir(a):  # (os.path's: False, not an error, for a path it cannot look at)
            found, skipped = _logs_in(a, suffixes)
            if not found:
                raise click.ClickException(f"{a}: a folder with no *{suffixes[0]} file in it"
                                           + "".join(f" (nor *{s})" for s in suffixes[1:])
                                           + (f"; it holds {counted_files(len(skipped))} of other kinds, "
                                              f"{_skipped_text(skipped)}" if skipped else ""))
            if skipped:  # (UPPER.ZXLOG was left out, x.zxlog.gz is: without a word, the import looked complete)
                from zx_events.freetext import printable

                click.echo(printable(f"note: {counted_files(len(skipped))} in {a} skipped (not "
                                     f"{'/'.join(suffixes)}): {_skipped_text(skipped)}"), err=True)
            out.extend(found)
        elif a != "-" and _missing(a):  # before anything is done, the store made included
            raise click.ClickException(f"{a}: no such file or folder (nothing was imported)")
        elif a != "-" and (refused := _a_database(a)) is not None:
            raise click.ClickException(refused)
        else:
            out.append(a)
    if out.count("-") > 1:
        raise click.UsageError("- (standard input) can be given once")
    return out


def _a_database(path: str) -> str | None:
    """Why ``path``, named as a match log, is refused: a DuckDB or SQLite database (by its first bytes; a file
    that is not a regular one is never opened here); else None. ``zx import --analytics league.duckdb log.zxlog``
    (the form every other command takes: import's --analytics is a switch) read league.duckdb as a log, imported
    the log and wrote a new analytics file, the one named left as it was (QA)."""
    import shlex

    from zx_events.files import database_kind

    kind = database_kind(path)  # (a file that cannot be read: the import reports it, rejected, as before)
    q = shlex.quote(path)
    if kind == "duckdb":
        return (f"{path}: a DuckDB database, not a match log (nothing was imported): zx import's --analytics is a "
                f"switch (on by default) that takes no file; to have this import update {path}: "
                f"ZX_ANALYTICS={q} zx import LOG..., or zx import --no-analytics LOG... then "
                f"zx analytics update --analytics {q}")
    if kind == "sqlite":
        return (f"{path}: a SQLite database, not a match log (nothing was imported): the store an import writes to "
                f"is named with zx --store PATH import LOG... (or ZX_STORE)")
    return None


def _missing(path: str) -> bool:
    """Whether nothing is at ``path`` (nor at the end of its links): a path the system cannot look at for another
    reason (a link that leads back to itself, a folder on the way without search permission) is there, for the
    import to reject with why (``Path.exists`` said False for a loop of links: "no such file or folder")."""
    import os

    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


def counted_files(n: int) -> str:
    return f"{n:,} file{'' if n == 1 else 's'}"


def _skipped_text(skipped: list[str]) -> str:
    """``e.g. NAME`` of the files a folder holds beside its logs: one whose name looks like a log's first
    (``r1.zxlog.gz``, ``r1.zxlog.bak``), else the first."""
    likely = [n for n in skipped if "log" in n.lower()]
    return f"e.g. {(likely or skipped)[0]}"


def _logs_in(folder: str, suffixes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The log files in ``folder`` and its subfolders, sorted, their suffix in any case (``R1.ZXLOG``: the same
    format); and the other files there, as paths within ``folder``, sorted (said in a note: ``x.zxlog.gz`` was
    left out without a word). A log that cannot be read (a link to nothing or to itself, a file without read
    permission, what is not a regular file: a FIFO, a device, a socket, a link to one) is listed, for the import
    to report it rejected (never opened to read); a subfolder that cannot be read is an error here, before
    anything is done. Each was skipped without a word: the import said every match was imported."""
    import os

    def refuse(e: OSError) -> None:
        raise click.ClickException(f"{e.filename}: a folder that cannot be read ({e.strerror}): its logs would be "
                                   f"left out (nothing was imported)")

    found, skipped = [], []
    for root, dirs, files in os.walk(folder, onerror=refuse):  # (links to folders are not followed)
        dirs.sort()
        for name in files:
            path = os.path.join(root, name)
            if name.lower().endswith(suffixes):  # (files: all but folders, a FIFO and a device included)
                found.append(path)
            else:
                skipped.append(os.path.relpath(path, folder))
    return sorted(found), sorted(skipped)


class OutputFile(click.Path):
    """A file a command writes (``zx view -o``, ``zx report -o``, ``zx audit --bundle``): a regular
    file or none yet. Refused before any work: ``-`` (read as stdout, it made a file named ``-``), a name ending in ``/`` (``--bundle out/`` wrote a file
    named ``out``), a folder, and what is not a regular file (a FIFO, a device: ``-o /dev/full --force``
    replaced the device with a file)."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value, param, ctx):
        import os
        import stat

        text = os.fspath(value)
        if text == "-":  # the usual name of stdout: a file named "-" in the current folder was written
            self.fail("- would be a file named '-' here: these commands write a file, not stdout; give its name "
                      "(./- if you do mean that name)", param, ctx)
        if text.endswith(("/", os.sep)):
            self.fail(f"{text} names a folder (it ends with /): give the name of a file (in that folder, if you like)",
                      param, ctx)
        value = super().convert(value, param, ctx)
        try:
            mode = os.stat(value).st_mode
        except OSError:
            return value  # none yet (or a dangling link): check_writable and write_page decide
        if not stat.S_ISREG(mode):
            self.fail(f"{text} is not a regular file (a device, a FIFO or a socket): zx writes only regular files",
                      param, ctx)
        return value


def store_failed(store, e: BaseException, again: str, kept: str = "") -> tuple[str, str]:
    """Why ``store`` failed under a command (``zx_events.store.failure_cause``; else the error itself) and
    what to do next, ending with ``again`` ("run the import again"); ``kept`` says first what still works
    where the store is not written again soon (a folder to make writable, a privilege to grant)."""
    from zx_events.store import failure_cause

    found = failure_cause(store, e) or _write_failed(store, e)
    kind, cause = found if found else ("", f"{type(e).__name__}: {e}")
    todo = {"unwritable": f"{kept}make it writable, then {again}",
            "full": f"free some space, then {again}",
            "file-size": f"raise the limit (ulimit -f unlimited), then {again}",
            "io": f"once the disk is sound, {again}",
            "locked": f"{again} when that process has finished",
            "refused": f"{kept}grant it, then {again}",
            "unreachable": f"{again} when it does"}.get(kind, again)
    return cause, todo


def _write_failed(store, e: BaseException) -> tuple[str, str] | None:
    """``failure_cause`` of a SQLite store's "disk I/O error" (it said "OperationalError: disk I/O error"): a write
    of its file refused, past the process's file-size limit (``ulimit -f``: the system's EFBIG, which SQLite reports
    so) when one is set and a file of the store reached it, else an I/O error of the disk or file system."""
    import os

    if getattr(store, "kind", None) != "sqlite" or store.path is None or "disk i/o error" not in str(e).lower():
        return None
    path = store.path
    try:
        import resource  # (POSIX only)

        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        limited = limit != resource.RLIM_INFINITY
    except (ImportError, OSError, ValueError):
        limit, limited = 0, False
    if limited:
        sizes = []
        for suffix in ("", "-wal", "-journal"):
            try:
                sizes.append(os.path.getsize(f"{path}{suffix}"))
            except OSError:
                pass
        if any(size + (1 << 20) >= limit for size in sizes):  # (within a write of it: SQLite writes pages)
            return "file-size", (f"writing the store file {path} failed (disk I/O error): it reached the file-size "
                                 f"limit of this process ({limit:,} bytes, ulimit -f)")
    return "io", (f"writing the store file {path} failed (disk I/O error): an I/O error of its disk or file system "
                  f"(the system log says more), or a file-size limit (ulimit -f)")


STORE_FILES = (("", "the store"), ("-wal", "the store's write-ahead log"), ("-shm", "the store's shared memory file"),
               ("-journal", "the store's rollback journal"))


def read_files(store: str | None, *others: tuple[object, str]) -> list[tuple[str, str]]:
    """The files a command reads, which it never writes over, each with what it is (for the error): a
    SQLite store (``--store``, ``ZX_STORE`` or the default) with its -wal, -shm and -journal files, by the
    name given and by the file a link names (SQLite keeps them beside that one); none for memory: or
    PostgreSQL. Then ``others``: (path, what) pairs, the analytics file, a log audited."""
    import os

    from zx_events.store import parse_store

    out: list[tuple[str, str]] = []
    try:
        config = parse_store(store)
    except ZXError:  # a bad --store: the command says so when it opens it
        config = None
    if config is not None and config.path is not None:
        for base in dict.fromkeys((str(config.path), os.path.realpath(config.path))):
            out.extend((base + suffix, f"{what} {config.path}{suffix}") for suffix, what in STORE_FILES)
    if config is not None:  # the store's analytics file (ZX_ANALYTICS, or beside it): zx view -o s.duckdb --force replaced it
        from zx_analytics.paths import default_path

        analytics = default_path(config)
        out += [(os.fspath(analytics), f"the analytics file {analytics}"),
                (f"{analytics}.wal", f"the analytics file's write-ahead log {analytics}.wal")]
    return out + [(os.fspath(p), what) for p, what in others]


def refuse_read_file(path, reads: list[tuple[str, str]], option: str = "-o") -> None:
    """``path`` (a file a command writes) is none of the files it reads (``read_files``), --force or not:
    ``zx view MATCH -o s.sqlite --force`` replaced the store with the page (as cp refuses a file onto itself)."""
    from zx_analytics.paths import same_file

    for read, what in reads:
        if same_file(path, read):
            raise click.ClickException(f"{option} {path} is {what}: zx never writes over a file the command "
                                       f"reads, --force or not; give another file (nothing was written)")


def check_writable(path, force: bool, reads: list[tuple[str, str]] = (), default: str | None = None) -> None:
    """Before the work, once what the command reads is found (the store, the match: their errors come first):
    ``path`` (a file a command writes) may be written: it is none of the files the command ``reads``
    (``read_files``), its folder exists, and it does not, or ``force`` (zx view, zx report). ``default``: what
    ``path`` is when the user named none (zx view's MATCH-SEAT.html), said with "exists"."""
    refuse_read_file(path, list(reads))
    if path.exists() and not force:
        raise click.ClickException(f"{path} exists{f' ({default})' if default else ''}: give --force to overwrite "
                                   f"it, or -o another file")
    if not path.parent.is_dir():
        raise click.ClickException(f"cannot write {path}: the folder {path.parent} does not exist")


def write_page(path, data: bytes, force: bool) -> None:
    """Write ``data`` to ``path`` whole or not at all: into a temporary file beside it, then moved in
    place; without ``force`` a file that appeared meanwhile is never overwritten. The file gets the
    permissions of any new file (the umask's)."""
    import os
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=".zx-", suffix=path.suffix or ".tmp", dir=path.parent)
    except OSError as e:  # a folder that takes no new file (read-only, /proc, full)
        raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a written page is an ordinary file
        if force:
            if os.path.exists(path) and not os.path.isfile(path):  # became a FIFO, a device: never replaced
                raise click.ClickException(f"{path} is not a regular file: zx writes only regular files")
            os.replace(tmp, path)
        else:  # never overwrite a file that appeared meanwhile
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise click.ClickException(f"{path} exists: give --force to overwrite it") from None
            except OSError:  # no hard links on this file system
                if path.exists():
                    raise click.ClickException(f"{path} exists: give --force to overwrite it") from None
                os.replace(tmp, path)
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def with_store(text: str, ctx: click.Context | None = None, visitors: bool = False) -> str:
    """``text`` (a message) with the analytics commands it advises (`` `zx analytics update` ``, `` `zx import` ``,
    `` `zx serve --update` ``) given the ``--store`` (and, for the update and the server, the ``--analytics``) the
    user gave on the command line: run as
    written, the advice of ``zx --store league/s.sqlite stats winrates`` opened the default store ("there is no
    store at zx-store.sqlite"). A store from ``ZX_STORE`` is left out (the advice runs with it as it is); a
    ``ZX_ANALYTICS`` with no ``--analytics`` is carried as it was given,
    ``ZX_ANALYTICS=x.duckdb zx ... analytics update``: given for that one command (``ZX_ANALYTICS=x.duckdb zx
    stats``, ``zx import``, ``zx serve``), the advice run as written updated the store's default file; a password
    is shown hidden; ``visitors``: for a served page or a report (``advice.with_given``)."""
    import os

    return with_given(text, *given_store(ctx), os.environ.get("ZX_ANALYTICS") or None, visitors=visitors)


def given_store(ctx: click.Context | None = None) -> tuple[str | None, str | None]:
    """The ``--store`` and ``--analytics`` typed on the command line of ``ctx`` (None: not typed, or from the
    environment), as ``with_store`` writes them into advice."""
    from click.core import ParameterSource

    ctx = ctx or click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    obj = root.obj if root is not None and isinstance(root.obj, dict) else {}
    store = obj.get("store") if root is not None and root.get_parameter_source("store") != ParameterSource.ENVIRONMENT \
        else None
    analytics = obj.get("analytics")
    return store, (str(analytics) if analytics else None)
