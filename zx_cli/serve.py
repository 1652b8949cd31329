"""``zx serve`` (the web service: JSON API, match browser, metagame dashboard) and ``zx report``
(the dashboard as one self-contained HTML file)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import click

from .analytics import analytics_option, filter_options, resolve_analytics_path, run_update
from .common import (MAX_WORKERS, OutputFile, cannot_open, given_catalogs, interrupted, used_catalogs,
                     view_catalogs_option, with_store)
from .common import given_store as given_store_of
from .options import written_option
from .output import counted, emit_written


DEMO_STORE = Path("zx-demo") / "events.sqlite"  # where `zx demo` puts its store (its --dir default)
# bytes of a request's line and headers the server reads (uvicorn's h11): the two names a form offers at their
# longest (zx_web.pages.OFFERED_MAX, 256 KiB each percent-encoded) at once, with room for the typed filters
REQUEST_HEAD_MAX = 1024 * 1024
USR1_PAUSE = 0.2  # s between the workers the --workers supervisor sends SIGUSR1 to (a dump takes milliseconds)


def _store(ctx: click.Context, doing: str = "serving") -> str | None:
    """--store / ZX_STORE; else the default store, or the demo's when only ``zx demo`` has been run here
    (``doing`` it: zx serve serves it, zx report reads it)."""
    import os

    from zx_events.store import DEFAULT_STORE

    chosen = ctx.obj.get("store") or os.environ.get("ZX_STORE")
    if chosen is None and not Path(DEFAULT_STORE).exists() and DEMO_STORE.is_file():
        click.echo(f"no {DEFAULT_STORE} here: {doing} the demo's store {DEMO_STORE} (--store picks another)", err=True)
        ctx.obj["store"] = str(DEMO_STORE)
    return ctx.obj.get("store")


@contextmanager
def _sigint_held(ignore: bool = False, also: tuple[int, ...] = ()) -> Iterator[None]:
    """A context in which SIGINT is blocked for this thread (a Ctrl-C meanwhile stays pending and reaches
    the handler once it is unblocked: Linux never discards a blocked signal), and with ``ignore`` also
    ignored: an ignored signal stays ignored in a program this process starts, so a worker started there is
    deaf to Ctrl-C until its server takes SIGINT over. ``also``: other signals held the same way (SIGUSR1, which
    a worker takes over and unblocks: ``zx_web.app.app_from_env``)."""
    import signal

    held = {signal.SIGINT, *also}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    handlers = {s: signal.signal(s, signal.SIG_IGN) for s in held} if ignore else {}
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _imports_deaf_to_ctrl_c() -> None:
    """Import the modules serve needs with SIGINT blocked (a Ctrl-C meanwhile is taken once they are in).

    The libraries that start threads of their own when imported (numpy's OpenBLAS pool, pyarrow's and polars'
    allocators and pools) keep the mask they started with: a Ctrl-C that one of them took while the
    ``--workers`` supervisor ignores SIGINT (``_sigint_held``) was lost, and the server went on serving.
    And CPython ends a process by SIGINT at exit (status 130) once a KeyboardInterrupt has left code run by
    ``exec`` of a string, even when it was caught: a Ctrl-C in the dataclasses, pydantic and FastAPI models
    these modules build when imported was "Aborted!" and then status 130 instead of 1."""
    import importlib
    import importlib.util

    with _sigint_held():
        for name in SERVE_IMPORTS_IF_INSTALLED:  # (numpy is no dependency of zx: a wheel's install has none, and serve
            if importlib.util.find_spec(name) is not None:  # failed to start, "No module named 'numpy'": QA round 34)
                importlib.import_module(name)
        for name in SERVE_IMPORTS:
            importlib.import_module(name)


# what _imports_deaf_to_ctrl_c imports: modules of zx's dependencies (pyproject.toml) and its own; and those imported
# only where installed (numpy: pyarrow's and polars' conversions use it when it is there)
SERVE_IMPORTS = ("polars", "pyarrow", "duckdb", "uvicorn", "uvicorn.protocols.http.h11_impl", "zx_web.connections",
                 "zx_analytics.db", "zx_analytics.projection", "zx_web.app", "zx_events.application", "zx_events.replay")
SERVE_IMPORTS_IF_INSTALLED = ("numpy",)


def _supervisor() -> Any:
    """uvicorn's supervisor of ``--workers`` processes, which starts each with SIGINT ignored: a Ctrl-C
    reaches the whole foreground process group, and a worker still importing its modules printed the
    traceback of its KeyboardInterrupt. The supervisor takes Ctrl-C and stops its workers with SIGTERM
    (a worker's server stops on it; a worker not yet serving ends without a word). A worker's SIGINT stays
    held (its mask passes on through spawn): only the supervisor takes Ctrl-C.

    ``kill -USR1`` of the supervisor prints its own threads' stacks and sends SIGUSR1 to each worker in turn,
    which prints its own (a worker starts with SIGUSR1 held and ignored until its application takes it:
    ``zx_web.app.app_from_env``; uvicorn's supervisor took SIGUSR1 and did nothing, and a worker sent it ended).
    A worker that dies is started again with one line in the server's log (uvicorn says so only at its info
    level). ``stopped_by`` is the signal that stopped it (SIGTERM: ``zx serve`` then ends by it, as the
    single process does)."""
    import faulthandler
    import logging
    import os
    import signal
    import sys
    import time
    from multiprocessing import resource_tracker

    from uvicorn.supervisors import Multiprocess

    from zx_web.app import CANNOT_OPEN

    log = logging.getLogger("zx.serve")

    def held() -> Any:
        # multiprocessing starts its resource tracker at its first process, and unblocks SIGINT after (with
        # SIG_UNBLOCK, not the mask before): started here, first, it leaves the held SIGINT held
        resource_tracker.ensure_running()
        return _sigint_held(ignore=True, also=(signal.SIGUSR1,))

    class Supervisor(Multiprocess):
        stopped_by: int | None = None

        def init_processes(self) -> None:
            with held():
                super().init_processes()

        def restart_all(self) -> None:
            with held():
                super().restart_all()

        def keep_subprocess_alive(self) -> None:  # (a worker that died is started again)
            before = list(self.processes)
            hung: set[int | None] = set()  # killed by uvicorn: still running, but not answering its health check
            for process in before:
                def kill(process: Any = process, kill: Any = process.kill) -> None:
                    if process.process.exitcode is None:
                        hung.add(process.pid)
                    kill()
                process.kill = kill  # (called only on a worker that is not alive, or not answering)
            with held():
                super().keep_subprocess_alive()
            for old, new in zip(before, self.processes):
                if old is new or old.exitcode == CANNOT_OPEN:  # (that worker said why, in one line)
                    continue
                how = ("did not answer uvicorn's health check, and was killed" if old.pid in hung
                       else f"was killed by {signal.Signals(-old.exitcode).name}" if (old.exitcode or 0) < 0
                       else f"exited with status {old.exitcode}")
                log.warning("zx serve: worker process %s %s; worker process %s takes its place", old.pid, how, new.pid)

        def handle_usr1(self) -> None:
            # one process after another, each under its PID: dumped at once, their lines were interleaved
            try:
                print(f"zx serve: the stacks of the supervisor (PID {os.getpid()}):", file=sys.stderr, flush=True)
                faulthandler.dump_traceback(all_threads=True)
            except (AttributeError, ValueError, OSError):  # stderr is not a real file
                pass
            for process in self.processes:
                if process.pid is not None and process.exitcode is None:
                    print(f"zx serve: the stacks of worker process {process.pid}:", file=sys.stderr, flush=True)
                    try:
                        os.kill(process.pid, signal.SIGUSR1)
                    except ProcessLookupError:  # (ended meanwhile)
                        continue
                    time.sleep(USR1_PAUSE)

        def handle_term(self) -> None:
            self.stopped_by = signal.SIGTERM
            super().handle_term()

    return Supervisor


class _Copies:
    """Catalog files copied into a folder of this process's own (``_private_copies``): ``files`` (path, SHA-256)."""

    def __init__(self, folder: str | None, files: list[tuple[str, str]]) -> None:
        self.folder, self.files = folder, files

    def remove(self) -> None:
        import shutil

        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _private_copies(used: list[tuple[str, Any]]) -> _Copies:
    """The bytes of each catalog file ``used`` (its path as given, the catalog read from it), checked against the
    SHA-256 it was read with, written into a new folder only this user may enter (``zx serve --workers``: what each
    worker reads); a file changed since it was read is an error (nothing is served)."""
    import hashlib
    import os
    import tempfile

    if not used:
        return _Copies(None, [])
    folder = tempfile.mkdtemp(prefix="zx-serve-catalogs-")  # (mode 0700)
    files = []
    try:
        for i, (path, cat) in enumerate(used):
            data = Path(path).read_bytes()
            if hashlib.sha256(data).hexdigest() != cat.sha256:
                raise click.ClickException(f"--catalog {path} changed while zx serve started: give it again")
            copy = os.path.join(folder, f"{i}-{Path(path).name}")
            with open(copy, "xb") as f:
                f.write(data)
            files.append((copy, cat.sha256))
    except BaseException:
        _Copies(folder, []).remove()
        raise
    return _Copies(folder, files)


def _given_catalogs_used(backend: Any, given: tuple[str, ...], catalogs: tuple[Any, ...],
                         follow: bool = False) -> tuple[Any, ...]:
    """Of the catalog files given (``--catalog FILE``, read as ``catalogs``), the ones a stored match was checked
    against (by game and SHA-256: ``replay.pinned_catalogs``), now the ``backend``'s: the views of those matches
    name their cards by them, the list and the dashboard mask their names too. A warning for each other one; with
    ``follow`` (zx serve --follow) it is kept all the same, for the matches imported with it while serving."""
    from zx_events.errors import ZXError
    from zx_events.replay import pinned_catalogs

    if not catalogs:
        return ()
    try:
        pinned = pinned_catalogs(backend.svc)
    except ZXError as e:
        backend.close()
        raise click.ClickException(e.message) from None
    except Exception as e:  # a store that cannot be read is a user error, not a traceback
        backend.close()
        if interrupted(e):
            raise click.Abort() from None
        raise cannot_open(backend.svc.store.url, e) from None
    if follow:
        used_catalogs(given, catalogs, pinned, "no stored match was yet",
                      "it is used only for the matches imported with it while serving")
        backend.catalogs = catalogs
    else:
        backend.catalogs = used_catalogs(given, catalogs, pinned)
    return backend.catalogs


def _backend(ctx: click.Context, analytics_path: str | None, judge: bool = False, deck_lists: bool = False) -> Any:
    from zx_web.app import open_backend
    from zx_events.errors import ZXError

    store = _store(ctx)
    path = resolve_analytics_path(ctx, analytics_path)
    try:
        backend = open_backend(store, path, judge=judge, deck_lists=deck_lists)
        # its advice with the --store typed, as zx stats's (the terminal's; _to_visitors once it serves or writes)
        backend.advised = backend.told = lambda text: with_store(text, ctx)
        backend.visitors = False
        return backend
    except ZXError as e:
        raise click.ClickException(e.message) from None
    except Exception as e:  # a store that cannot be opened is a user error, not a traceback
        if interrupted(e):  # Ctrl-C while DuckDB ran a statement: the ordinary interrupt
            raise click.Abort() from None
        raise cannot_open(ctx.obj.get("store"), e) from None


def _given_host(ctx: click.Context, param: click.Parameter, host: str) -> str:
    """An empty or blank --host is refused: uvicorn took ``""`` for every interface (0.0.0.0 and ::), and the
    warning and the serving line read ``listening on :`` and ``http://:8744``."""
    if not host.strip():
        raise click.BadParameter("empty: give an address of this machine (127.0.0.1, the default), or 0.0.0.0 "
                                 "for every interface")
    return host


def _exposed(host: str) -> str:
    """The warning of a --host that is not loopback: every interface said plainly for 0.0.0.0 and ::."""
    import ipaddress

    try:
        every = ipaddress.ip_address(host).is_unspecified
    except ValueError:
        every = False
    where = (f"every interface ({host}): anyone who can reach this machine on any of its addresses" if every
             else f"{host}: anyone who can reach this address")
    return f"warning: listening on {where} can read every stored match"


def _to_visitors(backend: Any, ctx: click.Context) -> None:
    """From here ``backend``'s advice is read by visitors (a served page, a shared report): its --store named by
    ``store.for_visitors``, without the operator's connection parameters (an ``sslrootcert`` path, QA round 37);
    what was said on the terminal until then, and the server's own log (``told``), keep them, to run as pasted."""
    backend.advised = lambda text: with_store(text, ctx, visitors=True)
    backend.visitors = True


def _visitors(judge: bool) -> str:
    """The seat a visitor gets, in the ``serving`` line (docs/serve.md, Hidden information)."""
    return "seat: spectator unless ?as=P1|P2|judge" if judge else "seat: spectator unless ?as=P1|P2 (judge: --judge)"


def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, callback=_given_host,
              help="Address to listen on. Anything but a loopback address exposes the store to the network.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="TCP port.")
@click.option("--judge", is_flag=True,
              help="Also serve the judge view (every hidden card: hands, decks, Life) to anyone who can reach "
                   "the server. Off by default: views are the spectator's, or a seat's own.")
@click.option("--deck-lists", is_flag=True,
              help="The deck lists and hands are published, as after an event: give every per-card figure (GIH, OH, "
                   "GD: a card in a hand; deck, GNS, IWD: the deck lists). Off by default: only the cards played, "
                   "with their played figures, since a hand is hidden from all but its owner and a deck list from "
                   "every seat (Z/X 301.3, X610Z 502.3). --judge implies it.")
@click.option("--workers", type=click.IntRange(min=1, max=MAX_WORKERS), default=1, show_default=True,
              help="Server processes (each with its own connections and caches); more than the cores gains nothing.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="On a loopback address the server answers only requests addressed to 127.0.0.1, localhost or "
                   "[::1] (a web page cannot read it by pointing its own name here); also answer to NAME (a reverse "
                   "proxy's name), repeatable.")
@click.option("--update", is_flag=True,
              help="Bring the analytics file up to date before serving (with --follow, the only writes serve makes).")
@click.option("--follow", is_flag=True,
              help="Bring the analytics file up to date, then keep it so while serving: the server is the file's one "
                   "writer and projects the matches imported meanwhile within seconds (as zx analytics follow), "
                   "no restart needed. One server process only (not with --workers N).")
@view_catalogs_option(
    "A catalog file matches were imported with (zx import --catalog FILE; the same format): a stored match checked "
    "against its content (SHA-256) gets its card names from it in its views, which every seat but the judge's sees "
    "masked, the match list and the dashboard mask its names, and --update and --follow take its colours, names and "
    "archetypes for the analytics (docs/security.md, section 5). Repeatable. A file no stored match was checked "
    "against is not used: a warning says so.")
@analytics_option
@click.pass_context
def serve_cmd(ctx: click.Context, host: str, port: int, judge: bool, deck_lists: bool, workers: int,
              allow_hosts: tuple[str, ...], update: bool, follow: bool, catalog_files: tuple[str, ...],
              analytics_path: str | None) -> None:
    """Serve the store over HTTP: a JSON API, the match browser with replays, and the metagame dashboard.

    \b
    Example:
      zx demo && zx --store zx-demo/events.sqlite serve
        (then open http://127.0.0.1:8000)

    Read-only: no request writes to the store or the analytics file. The statistics need the
    analytics file up to date with the store (`zx analytics update`, or --update); while serving,
    the file is open read-only, so stop the server to update it, or start it with --follow: it then
    keeps the file up to date itself as matches are imported. See docs/serve.md.
    """
    import faulthandler
    import signal

    _imports_deaf_to_ctrl_c()
    import uvicorn

    from zx_analytics.db import AnalyticsError
    from zx_web.app import LOOPBACK_NAMES, create_app

    # a request line as long as the longest name a form offers, in every filter at once (zx_web.pages.OFFERED_MAX):
    # h11, whose limit is set here; httptools, uvicorn's default, refused a URL of more than 64 KiB with a
    # plain-text 400 (a 10,000-character Japanese deck name chosen in the form), and has no setting for it
    # h11 under zx_web.connections: a head must arrive whole within its time limit, and connections are bounded
    from zx_web.connections import HTTP

    long_requests = {"http": HTTP, "h11_max_incomplete_event_size": REQUEST_HEAD_MAX}

    if hasattr(signal, "SIGUSR1"):  # `kill -USR1 PID` prints every thread's stack to stderr (a stuck request)
        try:
            faulthandler.register(signal.SIGUSR1, all_threads=True)
        except (AttributeError, ValueError, OSError):  # stderr is not a real file (a test runner's capture)
            pass

    if follow and workers > 1:  # DuckDB: one process writes a file, and no other may even read it meanwhile
        raise click.UsageError("--follow needs one server process: it writes the analytics file, which DuckDB then "
                               "lets no other process read, the other workers included; drop --workers (or "
                               "serve with --workers N and update the file between runs: --update)")
    catalogs = given_catalogs(catalog_files)  # (a bad file: its FILE:LINE error, before anything is opened)
    backend = _backend(ctx, analytics_path, judge=judge, deck_lists=deck_lists)
    if follow and backend.svc.store.kind == "memory":
        backend.close()
        raise click.UsageError("--follow: a memory: store lives only in this process: no match can be imported into "
                               "it while serving")
    used = _given_catalogs_used(backend, catalog_files, catalogs, follow)  # (a warning for each other one)
    if update or follow:
        try:  # (every file given: with --follow, a match imported while serving may be checked against one)
            result = run_update(backend.svc, backend.analytics_path, catalogs=catalogs)
        except AnalyticsError as e:
            raise click.ClickException(str(e)) from None
        click.echo(f"analytics: {counted(result.events, 'event')}, {counted(result.matches, 'match', 'matches')} "
                   f"projected into "
                   f"{backend.analytics_path}", err=True)
    import socket

    try:  # a clear message instead of uvicorn's when the port is taken
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except OSError as e:
        import errno

        # a name that does not resolve, or an address not of this machine: the --host is at fault, not the port
        todo = ("choose another --host (an address of this machine, e.g. 127.0.0.1)"
                if isinstance(e, socket.gaierror) or e.errno == errno.EADDRNOTAVAIL else "choose another --port")
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}; {todo}") from None
    if not _loopback(host):
        click.echo(_exposed(host), err=True)
    if judge:
        click.echo("warning: --judge: the judge view (every hidden card) is served to anyone who can reach "
                   "this server", err=True)
    fresh_note = ""
    backend.serving = True  # (its advice: stop the server to update the file it holds)
    if follow:  # from here the file is open read-write: the follower's updates and the requests share it
        try:
            backend.follow(say=lambda text: click.echo(text, err=True), catalogs=catalogs)
        except Exception as e:  # (FileInUse: another process took the file since the update)
            backend.close()
            raise click.ClickException(getattr(e, "message", None) or str(e)) from None
    from zx_analytics.db import ctrl_c_interrupts

    try:
        # Ctrl-C stops a slow read of the file at once (the SIGINT reached one of DuckDB's threads, and serve
        # printed "Aborted!" only when the statement ended: 10 s on a position that takes long to read)
        with ctrl_c_interrupts(backend):
            fresh = backend.freshness()
        if not fresh.ok:
            fresh_note = f" (statistics unavailable: {fresh.message})"
    except Exception as e:  # the WebError of a missing file: serve the matches anyway
        if interrupted(e):  # Ctrl-C while DuckDB read the file: DuckDB's "Query interrupted" was taken for an
            # unusable file, and the server went on serving ("statistics unavailable: Query interrupted")
            raise click.Abort() from None
        fresh_note = f" (statistics unavailable: {getattr(e, 'message', e)})"
    _to_visitors(backend, ctx)
    from zx_events.replay import no_snapshots

    if no_snapshots(backend.svc):
        import shlex

        from zx_events.store import without_password

        typed = given_store_of(ctx)[0]  # (as typed, quoted: a URL's ?schema= left out named another store)
        prepare = f"zx --store {shlex.quote(without_password(typed))} prepare" if typed else "zx prepare"
        # (a reader's role may not write them: serve's own, as docs/deployment.md has it, was advised to)
        who = ", run by a role with its grants (docs/deployment.md)," if backend.svc.store.kind == "postgres" else ""
        click.echo(f"note: the store has no replay snapshots this version of zx can use (none at all, or only "
                   f"another version's): the first view of a match replays it from its first event; `{prepare}`"
                   f"{who} files them (docs/replay.md)", err=True)
    shown = f"[{host}]" if ":" in host else host
    serving = (f"serving {backend.svc.store.label} on http://{shown}:{port}{fresh_note}; {_visitors(judge)}; "
               f"Ctrl-C stops")
    # on loopback, only the server's own names (DNS rebinding: zx_web.app.Hosts); elsewhere the address is open
    # anyway, so only the names given, if any
    given = {h.strip().lower() for h in allow_hosts if h.strip()}
    hosts = None
    if _loopback(host) or given:
        hosts = sorted({*(LOOPBACK_NAMES if _loopback(host) else ()), f"[{host}]" if ":" in host else host.lower(),
                        *given})
    if workers > 1:  # each process builds its own app from the environment (zx_web.app.app_from_env)
        import os

        import json

        from zx_web.app import (ENV_ANALYTICS, ENV_CATALOGS, ENV_DECK_LISTS, ENV_GIVEN_ANALYTICS, ENV_GIVEN_STORE,
                                ENV_HOSTS, ENV_JUDGE, ENV_STORE, ENV_SUPERVISOR)

        given_store, given_analytics = given_store_of(ctx)  # (the advice of every worker: zx_web.app.app_from_env)
        # each catalog file in use, as it was read and checked, copied where only this server writes: a worker
        # started later (one that died, replaced) read the file again, found it changed, and served the names it
        # masks unmasked (QA round 34)
        kept_catalogs = _private_copies([(path, cat) for path, cat in zip(catalog_files, catalogs) if cat in used])
        os.environ.update({ENV_STORE: backend.svc.store.url, ENV_ANALYTICS: str(backend.analytics_path),
                           ENV_JUDGE: "1" if judge else "0", ENV_DECK_LISTS: "1" if deck_lists else "0",
                           ENV_HOSTS: ",".join(hosts or ()), ENV_GIVEN_STORE: given_store or "",
                           ENV_GIVEN_ANALYTICS: given_analytics or "", ENV_SUPERVISOR: str(os.getpid()),
                           ENV_CATALOGS: json.dumps([[path, sha] for path, sha in kept_catalogs.files])})
        backend.close()
        config = uvicorn.Config("zx_web.app:app_from_env", factory=True, workers=workers, host=host, port=port,
                                log_level="warning", access_log=False, **long_requests)
        supervisor = None
        early: list[int] = []  # a Ctrl-C once "serving" is said, before the supervisor takes SIGINT: kept for it
        # (a KeyboardInterrupt raised there could land in a garbage collector's callback, "Exception ignored",
        # and the Ctrl-C was lost: the server went on serving)
        previous = signal.signal(signal.SIGINT, lambda signum, frame: early.append(signum))
        try:
            sock = config.bind_socket()
            sock.listen(config.backlog)  # connections are taken from here (a worker answers them once it runs)
            click.echo(serving, err=True)
            supervisor = _supervisor()(config, sockets=[sock])  # (its own handlers from here)
            supervisor.signal_queue.extend(early)  # (handled as its first signals: the same stop)
            supervisor.run()
        except KeyboardInterrupt:  # (a Ctrl-C by an earlier handler, if any: the same stop)
            pass
        finally:
            if supervisor is None:
                signal.signal(signal.SIGINT, previous)
            kept_catalogs.remove()
        if supervisor is not None and supervisor.stopped_by == signal.SIGTERM:  # as the single process ends (143)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.raise_signal(signal.SIGTERM)
        return
    server: Any = None
    stopped = False
    terminated = False

    def term(signum: int, frame: Any) -> None:
        # SIGTERM (systemd, docker stop): uvicorn stops on it, then raises it again once it has stopped; with the
        # default action that killed the process before the store was closed (its -wal and -shm stayed beside
        # it). Here it stops the server; the process ends by the signal after the store is closed (exit 143)
        nonlocal terminated
        terminated = True
        stop(signum, frame)

    def stop(signum: int, frame: Any) -> None:
        # Ctrl-C once "serving" is said, before uvicorn takes SIGINT over (and when it raises it again, once it
        # has stopped): a stop, as while serving. A KeyboardInterrupt there was "Aborted!" (killed by a second
        # Ctrl-C), uvicorn's exit 3 with asyncio's "coroutine 'Server.serve' was never awaited", or, raised
        # again after a second Ctrl-C, the traceback of the cancelled lifespan
        nonlocal stopped
        stopped = True
        if server is not None:
            server.should_exit = True

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:  # said once the port listens: a script that waited for the line was refused 0.3 s
                click.echo(serving, err=True)

    previous, previous_term = signal.signal(signal.SIGINT, stop), signal.signal(signal.SIGTERM, term)
    try:
        app = create_app(backend, serving=True, hosts=hosts)
        server = Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                       **long_requests))
        if not stopped:
            server.run()
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)
        backend.close()  # (safe at any moment: it interrupts the warming and waits for it)
    if terminated:  # ended by SIGTERM, as uvicorn ends: after the store is closed
        signal.raise_signal(signal.SIGTERM)


def _report_filters(f: Any) -> Any:
    return filter_options(f, game_help="The game the dashboard shows (zx games lists them): games are never mixed; "
                                       "without it, Z/X's when the analytics file holds several, else its one game.")


@click.command("report")
@click.option("-o", "--output", "--out", "out", default="meta.html", show_default=True, type=OutputFile(),
              help="The HTML file to write.")
@click.option("--force", is_flag=True, help="Overwrite the file if it exists.")
@click.option("--title", default="Metagame", show_default=True, help="The page title.")
@click.option("--deck-lists", is_flag=True,
              help="The deck lists and hands are published, as after an event: give every per-card figure (GIH, OH, "
                   "GD, deck, GNS, IWD). Off by default: the file is for sharing, as zx serve's dashboard, so it "
                   "lists only the cards played, with their played figures (a hand is hidden from all but its "
                   "owner: Z/X 301.3, X610Z 502.3).")
@_report_filters
@click.option("--min-games", type=click.IntRange(min=1), default=30, show_default=True,
              help="Rows resting on fewer games are drawn in grey.")
@view_catalogs_option(
    "A catalog file matches were imported with (zx import --catalog FILE; the same format): when a stored match was "
    "checked against its content (SHA-256), its names are masked in the event, player and deck names the report "
    "shows, as the shipped catalogs' are (docs/security.md, section 5). Repeatable. A file no stored match was "
    "checked against is not used: a warning says so. (Its colours and archetypes: zx analytics update --catalog FILE.)")
@analytics_option
@written_option
@click.pass_context
def report_cmd(ctx: click.Context, out: str, force: bool, title: str, deck_lists: bool, min_games: int,
               catalog_files: tuple[str, ...], analytics_path: str | None, fmt: str, **given: Any) -> None:
    """Write the metagame dashboard as one self-contained HTML file (charts inline, no server, no network).

    \b
    Examples:
      zx report --event "Sim League" -o sim-league.html
      zx report --game x610z -o x610z-meta.html

    It takes the filters of zx stats and shows one game (--game). An existing file is kept unless
    --force. Prints the path written (--format json|csv: a row with its size, game and filters).
    """
    from zx_analytics.stats import Filters
    from zx_web.backend import WebError
    from zx_web.dashboard import shown_game
    from zx_web.pages import render_dashboard

    from .common import check_writable, read_files, write_page

    try:
        filters = Filters(**given)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    path = Path(out)
    catalogs = given_catalogs(catalog_files)  # (a bad file: its FILE:LINE error, before anything is opened)
    store = _store(ctx, "reporting on")  # (before the analytics file: it is the store's by default)
    analytics = resolve_analytics_path(ctx, analytics_path)
    backend = _backend(ctx, analytics_path, deck_lists=deck_lists)  # "no store", "no analytics file" before "-o
    _given_catalogs_used(backend, catalog_files, catalogs)  # FILE exists: give --force" (nothing is written either way)
    visitors = False  # (from _to_visitors on, an error's advice is a visitor's: told_again for the terminal)
    try:
        fresh = backend.freshness()  # the analytics file: there, of this version, built from this store, current
        if not fresh.ok:
            raise WebError(503, fresh.message or "the analytics file cannot be used")
        check_writable(path, force, read_files(
            store, (analytics, f"the analytics file {analytics}"),
            (f"{analytics}.wal", f"the analytics file's write-ahead log {analytics}.wal"),
            *((f, f"the catalog {f}") for f in catalog_files)))
        _to_visitors(backend, ctx)
        visitors = True
        text = render_dashboard(backend, filters.params(), min_games, live=False, title=title)
        game = shown_game(backend, filters.game)
    except WebError as e:
        from zx_events.advice import told_again

        raise click.ClickException(told_again(e.message, given_store_of(ctx)[0]) if visitors else e.message) from None
    finally:
        backend.close()
    data = text.encode("utf-8")
    write_page(path, data, force)
    click.echo(f"{len(data) // 1024} KiB: open it in any browser", err=True)
    emit_written(fmt, {"file": str(path), "bytes": len(data), "game": game, "title": title,
                       "filters": {k: v for k, v in filters.params().items() if v is not None and k != "game"},
                       "min_games": min_games})


def register(zx: click.Group) -> None:
    for command in (serve_cmd, report_cmd):
        zx.add_command(command)
