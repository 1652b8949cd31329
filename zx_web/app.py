"""The ASGI application of ``zx serve``: ``create_app(store, judge=False)``.

FastAPI (on Starlette) rather than bare Starlette: the API's query parameters are declared once,
with their types, bounds and help, and FastAPI both validates them (a bad one is a 400 with the
parameter's name, never a traceback) and writes the OpenAPI document (``/api/openapi.json``) from
the same declarations. The pages are Jinja2 templates rendered on the server; the charts are SVG
drawn on the server (``zx_web.dashboard``), so a page needs nothing beyond this server.

Read-only: no endpoint writes to the store or the analytics file, and SQL is not exposed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from zx_events.errors import ZXError

from .answers import Answers
from .app_json import JSON
from .backend import Backend, StoreFailed, WebError, store_failure

HERE = Path(__file__).parent
THREADS = 8
STATS_AT_ONCE = (os.cpu_count() or 2) + 1  # statistics computed at once (lifespan)
VIEWS_AT_ONCE = (os.cpu_count() or 2) + 1  # views and steps computed at once, in their own threads (lifespan)
DASHBOARDS_AT_ONCE = 1  # dashboards drawn at once, in their own threads (lifespan): vl-convert holds the GIL
ENV_STORE, ENV_ANALYTICS, ENV_JUDGE = "ZX_SERVE_STORE", "ZX_SERVE_ANALYTICS", "ZX_SERVE_JUDGE"
ENV_DECK_LISTS = "ZX_SERVE_DECK_LISTS"
ENV_HOSTS = "ZX_SERVE_HOSTS"  # the names the server answers to (zx_web.app.Hosts), comma-separated; empty: any
# the --store and --analytics typed on zx serve's command line (zx_cli.common.given_store; empty: not typed): the
# commands a worker's answers advise carry them, as the single process's do
ENV_GIVEN_STORE, ENV_GIVEN_ANALYTICS = "ZX_SERVE_GIVEN_STORE", "ZX_SERVE_GIVEN_ANALYTICS"
# the catalog files zx serve was given that stored matches were checked against (--catalog FILE): a JSON list of
# [path, SHA-256]; a worker reads each and uses it only when it still holds that content
ENV_CATALOGS = "ZX_SERVE_CATALOGS"
ENV_SUPERVISOR = "ZX_SERVE_SUPERVISOR"  # the PID of the --workers supervisor (a worker ends when it is gone)
# the exit status of a worker that could not open the store (it said why, in one line): the supervisor starts
# another in its place without a line of its own (zx_cli.serve); uvicorn's STARTUP_FAILURE (3) would stop the server
CANNOT_OPEN = 4
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
log = logging.getLogger("zx.serve")


def open_backend(store: str | None, analytics: str | Path | None = None, judge: bool = False,
                 deck_lists: bool = False, catalogs: tuple[Any, ...] = ()) -> Backend:
    """The store and analytics file a server reads; ZXError when the store does not exist (serve never
    creates one). ``catalogs``: ``Backend.catalogs``."""
    from zx_analytics.db import default_path
    from zx_events.application import MatchService
    from zx_events.store import parse_store

    config = parse_store(store)
    if config.kind == "memory":  # (its recorder has no table to page through: an internal error)
        raise ZXError("a memory: store holds nothing between commands, so there is nothing to serve or report: "
                      "give --store a SQLite file or a PostgreSQL URL")
    if config.kind == "sqlite" and (config.path is None or not config.path.is_file()):
        raise ZXError(f"there is no store at {config.label}: run `zx demo` or `zx import LOG...` first, "
                      f"or pass --store")
    svc = MatchService(store, create=False)
    return Backend(svc, default_path(config, str(analytics) if analytics else None), judge=judge, deck_lists=deck_lists,
                   catalogs=catalogs)


def create_app(store: str | Backend | None = None, judge: bool = False, analytics: str | Path | None = None,
               serving: bool = False, hosts: Any = None, deck_lists: bool = False,
               catalogs: tuple[Any, ...] = ()) -> FastAPI:
    """The application: the JSON API under /api, the pages, and /static. ``store`` is a store URL or
    path (see ``zx --store``), or an open ``Backend``.

    At start, in the background, the match list and the unfiltered statistics are computed. With
    ``serving`` (the process of ``zx serve``), the unfiltered dashboard is drawn too (seconds of
    vl-convert at 10,000 matches), then every object alive is moved out of the garbage collector's
    sight (``gc.freeze``): a full collection over the summaries of 10,000 matches took 20-40 ms, a
    pause in every request in flight; after it, 2-5 ms.

    ``hosts``: the only names (``Host`` header, port aside) the server answers to; None: any (see
    ``Hosts``). ``catalogs``: catalog files stored matches were checked against (``Backend.catalogs``; of a
    ``store`` given as a URL or path)."""
    from . import api, pages

    owned = not isinstance(store, Backend)
    backend = open_backend(store, analytics, judge, deck_lists, catalogs) if owned else store
    backend.serving = True  # its answers are a server's (Backend.freshness: what to run while it holds the file)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        import anyio.to_thread

        # endpoints run in worker threads; beyond a few they only fight over the GIL (measured:
        # bench/bench_serve.py), so requests past THREADS wait in the event loop instead
        anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS
        # statistics not computed before: one more at once than there are cores (one's Python beside
        # two in DuckDB), the others waiting in order of arrival. All at once (up to THREADS), each
        # took the time of all of them, so a slow one (cards) waited behind every query that came
        # after it. p99 of 670 cold statistics at 10 clients on 2 cores, alternating runs: all at
        # once 88-104 ms (5 runs), 2 at once 66-122 ms (7), 3 at once 55-94 ms (5)
        backend.stats_limiter = anyio.CapacityLimiter(STATS_AT_ONCE)
        # views and steps not computed before: in worker threads of their own, never in the event loop nor in
        # the threads of the other endpoints, so that slow ones (a match named with 220,000 characters) hold
        # neither /api/status nor the match list; beyond a core each they only fight over the GIL
        backend.view_limiter = anyio.CapacityLimiter(VIEWS_AT_ONCE)
        # dashboards not drawn before: one at a time, in a worker thread of its own, the others waiting their turn in
        # the event loop. vl-convert holds the GIL while it draws a chart (0.1-0.4 s each), so drawn side by side
        # in the threads every endpoint shares, 16 dashboards took all of them and /api/status waited 14 s
        backend.dashboard_limiter = anyio.CapacityLimiter(DASHBOARDS_AT_ONCE)
        # the match list reads every match's notifications once (seconds at 10,000 matches), and the
        # unfiltered statistics take tens of milliseconds each: start now
        backend.warming = True
        warm = threading.Thread(target=_warm, args=(backend, serving), daemon=True, name="zx-serve-warm")
        warm.start()
        restore = _stop_drops_the_queues(backend)
        try:
            yield
        except asyncio.CancelledError:
            # the event loop closes without a shutdown (a second Ctrl-C: uvicorn's force exit): re-raised, the
            # cancellation's traceback reached the terminal (Starlette's "lifespan.shutdown.failed")
            pass
        finally:
            restore()
            if owned:  # (else its owner closes it: zx serve)
                backend.close()  # interrupts the warming's statement and waits for it (Backend.close)

    app = FastAPI(lifespan=lifespan, title="zx-events", version="0.1.0", default_response_class=JSON,
                  description="Read-only API over a zx-events store: matches, views from a seat, metagame "
                              "statistics with Wilson 95% intervals, audits. See docs/serve.md.",
                  openapi_url="/api/openapi.json", docs_url=None, redoc_url=None)
    app.state.backend = backend
    app.add_middleware(Answers, backend=backend)  # the answers given before, without the framework
    app.add_middleware(Head)  # a HEAD is a GET to every layer below
    if hosts is not None:
        app.add_middleware(Hosts, names=hosts)  # nothing of the store before the Host is checked
    app.add_middleware(NoSniff)  # outermost: every answer, JSON, errors and the Host refusal too, is read as the
    # type it says
    app.include_router(api.router, dependencies=[Depends(known_query), Depends(store_reachable)])
    app.include_router(pages.router, dependencies=[Depends(known_query), Depends(store_reachable)])
    # the icon reads nothing of the store: served while the store's server is out of reach too
    app.add_api_route("/favicon.ico", pages.favicon, methods=["GET"], include_in_schema=False,
                      dependencies=[Depends(known_query)])
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api") or "text/html" not in request.headers.get("accept", "")

    def error(request: Request, status: int, message: str, retry_after: int | None = None,
              extra: dict[str, Any] | None = None) -> Any:
        if wants_json(request):
            answer = JSON({**(extra or {}), "error": message, "status": status}, status_code=status)
        else:
            answer = pages.html_response(pages.error_page(request, status, message), status=status)
        if retry_after is not None:
            answer.headers["Retry-After"] = str(retry_after)
        return answer

    async def refused(request: Request, status: int, message: str, retry_after: int | None = None) -> Any:
        """``error``, but a page of /dashboard whose parameters were refused is the dashboard's own page: its form
        with what was asked, the reason, a link back without filters (as for an unknown name)."""
        if status == 400 and request.url.path == "/dashboard" and not wants_json(request):
            page = await pages.dashboard_refusal(request, backend, message)
            if page is not None:
                return page
        return error(request, status, message, retry_after)

    @app.exception_handler(WebError)
    async def web_error(request: Request, e: WebError) -> Any:
        return await refused(request, e.status, e.message, e.retry_after)

    @app.exception_handler(ZXError)
    async def zx_error(request: Request, e: ZXError) -> Any:
        err = WebError.of(e)
        return error(request, err.status, err.message)

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, e: RequestValidationError) -> Any:
        parts = []
        for err in e.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x not in ("query", "path"))
            parts.append(f"{where}: {err.get('msg')} (got {err.get('input')!r})")
        return await refused(request, 400, "; ".join(parts) or "bad parameters")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> Any:
        message = e.detail if isinstance(e.detail, str) else str(e.detail)
        if e.status_code == 404 and message == "Not Found":
            message = f"no such page or endpoint: {request.url.path} (the API is listed at /api/openapi.json)"
        if e.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}: this server is read-only"
            answer = error(request, 405, message)
            answer.headers["Allow"] = "GET, HEAD"  # RFC 9110, 15.5.6 (HEAD: the Head middleware)
            return answer
        return error(request, e.status_code, message)

    async def store_failed(request: Request, e: Exception) -> Any:
        # the store's server gone (or a damaged file): one line in the server's log, no traceback (a
        # handler of Exception is Starlette's last resort, which logs the traceback again after it)
        err = backend.store_error(e)
        log.warning("%s %s: %s", request.method, request.url.path, err.logged)
        return error(request, err.status, err.message, extra=err.extra)

    for failure in store_failures(backend):
        app.add_exception_handler(failure, store_failed)

    async def stopping(request: Request, e: Exception) -> Any:
        if not backend.closed:
            raise e  # a bug: for the handler of last resort (unexpected), which logs its traceback
        # a statement Backend.close interrupted, or a connection it closed (the server stops under a request)
        return error(request, 503, "the server is stopping")

    import duckdb

    app.add_exception_handler(duckdb.Error, stopping)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, e: Exception) -> Any:
        log.exception("unexpected error on %s", request.url.path)  # the server's log, never the client
        return error(request, 500, "internal error: the server log has the details")  # (no class name for a visitor)

    return app


def _stop_drops_the_queues(backend: Backend) -> Callable[[], None]:
    """At the server's stop (SIGINT, SIGTERM: uvicorn's handlers, which this wraps while the app runs), the requests
    waiting their turn leave the queues at once (``Backend.stop_waiting``): uvicorn waits for every request under
    way before it stops, and drew every dashboard queued (a Ctrl-C took 13-30 s). Returns what puts the handlers
    back; nothing is wrapped outside the main thread (a test client's) nor for a signal without a Python handler."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    wrapped: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if not callable(handler):
            continue

        def stopping(sig: int, frame: Any, handler: Any = handler) -> None:
            loop.call_soon_threadsafe(backend.stop_waiting)  # (in the event loop, where the queues are)
            handler(sig, frame)

        signal.signal(signum, stopping)
        wrapped[signum] = (handler, stopping)

    def restore() -> None:
        for signum, (handler, stopping) in wrapped.items():
            if signal.getsignal(signum) is stopping:
                signal.signal(signum, handler)

    return restore


def store_failures(backend: Backend) -> list[type[BaseException]]:
    """The exception classes of the store failing under a request (``zx_web.backend.store_failure``)."""
    import sqlite3

    from eventsourcing.persistence import PersistenceError

    from zx_events.store import StoreFailure

    # (StoreFailure, a ZXError: its own handler, before the ZXError one's 400)
    classes: list[type[BaseException]] = [StoreFailed, StoreFailure, PersistenceError, sqlite3.DatabaseError]
    if not backend.local:
        import psycopg

        classes.append(psycopg.Error)
    return classes


def host_name(header: str) -> str:
    """The name of a ``Host`` header without its port, lower-case (``[::1]:8000`` -> ``[::1]``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[:header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


_HOST_HEADER = re.compile(r"[A-Za-z0-9.\-]{1,253}(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")


class Hosts:
    """Requests addressed to another name than the server's are refused (400), before anything else.

    A server on 127.0.0.1 is out of the network's reach, but not of the web pages its user opens: a
    page on evil.example can point its own name at 127.0.0.1 (DNS rebinding) and then read this
    server as same-origin, every match (and with ``--judge`` every hidden card). Its requests carry
    ``Host: evil.example``; the server's own names (127.0.0.1, localhost, [::1], the address it
    listens on, and the names given with ``zx serve --allow-host``) are all it answers to."""

    def __init__(self, app: Any, names: Any) -> None:
        self.app = app
        self.names = frozenset(n.lower() for n in names)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # lifespan (this server has no websockets)
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), "")
        if host_name(host) in self.names:
            await self.app(scope, receive, send)
            return
        # (the name given is echoed only when it is one: never markup nor a megabyte of text)
        asked = (f"not to {host!r}" if _HOST_HEADER.fullmatch(host) else "not to the name this request gives"
                 if host else "and this request names none (no Host header)")
        message = (f"this server answers only requests addressed to {', '.join(sorted(self.names))}, "
                   f"{asked}: a page elsewhere cannot read it through a name "
                   f"that points here (DNS rebinding); behind a proxy or a name, start it with --allow-host NAME")
        response = JSON({"error": message, "status": 400}, status_code=400)
        await response(scope, receive, send)


class NoSniff:
    """``X-Content-Type-Options: nosniff`` on every answer that does not say it already (the pages did;
    the JSON answers and errors did not, and a browser could read JSON that quotes a log's text as HTML);
    and ``Cache-Control: no-store`` on every one but the static files' that does not say how it is cached:
    the pages said it, the JSON answers not, and a seat's or a judge's view (``/api/matches/ID/view?as=P2``)
    could be kept by a browser's disk cache or a proxy (QA round 33)."""

    HEADER = (b"x-content-type-options", b"nosniff")
    NO_STORE = (b"cache-control", b"no-store")

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        static = scope.get("path", "").startswith("/static/")

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                names = {k.lower() for k, _ in headers}
                more = [h for h in (self.HEADER, None if static else self.NO_STORE) if h and h[0] not in names]
                if more:
                    message = {**message, "headers": [*headers, *more]}
            await send(message)

        await self.app(scope, receive, sending)


class Head:
    """HEAD answered as GET without its body (RFC 9110, 9.3.2): the status and headers a GET would get,
    ``content-length`` included. FastAPI's GET routes take no HEAD, so a monitor's or a link
    checker's ``curl -I`` got 405, "this server is read-only"."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


async def known_query(request: Request) -> None:
    """Every query parameter is one the endpoint takes, given once; else a 400 naming it. Without
    this, a misspelt filter (``/api/stats/winrates?decks=...``) or seat (``view?seat=P1``) was
    ignored and the answer was the unfiltered one, or the spectator's, as if it had been asked for."""
    if not request.scope.get("query_string"):
        return
    route = request.scope.get("route")
    known = getattr(route, "zx_query_names", None)
    if known is None:
        if route is None:
            return
        known = route.zx_query_names = frozenset(_query_names(route.dependant))
    seen: set[str] = set()
    for name, _ in request.query_params.multi_items():
        if name not in known:
            import difflib

            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            takes = ", ".join(sorted(known)) or "no parameters"
            raise WebError(400, f"unknown parameter {name!r} for {request.url.path}: {hint}it takes {takes}")
        if name in seen:
            raise WebError(400, f"parameter {name!r} is given more than once: give it once")
        seen.add(name)


async def store_reachable(request: Request) -> None:
    """A store whose server was lost is tried once before the request reads it (``Backend.store_reachable``):
    a 503 at once while it cannot be reached."""
    b = request.app.state.backend
    if b.store_lost:
        try:
            await b.off_loop(b.store_reachable)
        except StoreFailed as e:
            if request.url.path != "/api/status":
                raise
            request.state.store_failed = e  # (the status answers it with the rest of the status: a health check's)


def _query_names(dependant: Any) -> list[str]:
    """The names (aliases) of the query parameters an endpoint takes, its dependencies' included."""
    names = [p.alias for p in dependant.query_params]
    for sub in dependant.dependencies:
        names.extend(_query_names(sub))
    return names


def _warm(backend: Backend, serving: bool = False) -> None:
    """The match list, then the unfiltered statistics (and dashboard): what a first visitor asks for."""
    import gc

    from . import api

    try:
        backend.listed()  # the summaries, and outside the judge's view their names masked
    except Exception as e:  # the first request will say what is wrong
        if backend.closed:  # the server stops (Backend.close): nothing went wrong
            pass
        elif not store_failure(e):
            log.exception("warming the match summaries failed")
        else:  # the store's server gone: one line, as a request says it
            log.warning("warming the match summaries: %s", backend.store_error(e).logged)
    try:
        api.warm_stats(backend)
        if serving and not backend.closed:
            from zx_analytics.stats import Filters

            from .pages import render_dashboard

            render_dashboard(backend, Filters().params(), api.DEFAULT_MIN_GAMES, live=True)
    except WebError:  # no analytics file, or one behind the store: every statistic says so (503)
        pass
    except Exception as e:
        if backend.closed:  # the server stops: Backend.close interrupted the statement, or closed the file
            pass
        elif not store_failure(e):
            log.exception("warming the statistics failed")
        else:
            log.warning("warming the statistics: %s", backend.store_error(e).logged)
    finally:
        if serving and not backend.closed:
            gc.collect()
            gc.freeze()
        backend.warming = False


def app_from_env() -> FastAPI:
    """The application of one ``zx serve --workers N`` process: the store, analytics file and judge
    flag come from ZX_SERVE_STORE, ZX_SERVE_ANALYTICS and ZX_SERVE_JUDGE (set by ``zx serve``), the commands
    its answers advise carry the --store and --analytics typed (ZX_SERVE_GIVEN_STORE, ZX_SERVE_GIVEN_ANALYTICS),
    or the ZX_ANALYTICS the command was given.

    The process prints every thread's stack on SIGUSR1 (``kill -USR1``; without a handler it ended the
    worker), and ends when its supervisor is gone (Linux: a supervisor killed with SIGKILL left its workers
    serving for ever). A store it cannot open (a PostgreSQL server down, a file moved away as the supervisor
    starts a worker again) is one line in the server's log, not a traceback, and the process ends with status
    ``CANNOT_OPEN``: the supervisor starts another in its place, until the store opens again."""
    import sys

    from zx_events.advice import with_given  # (the advice zx serve's single process gives: zx_cli.serve._backend)
    from zx_events.store import cannot_open_text, parse_store

    _worker_signals()
    given = (os.environ.get(ENV_GIVEN_STORE) or None, os.environ.get(ENV_GIVEN_ANALYTICS) or None,
             os.environ.get("ZX_ANALYTICS") or None)  # (inherited from the command: zx_cli.common.with_store)
    hosts = os.environ.get(ENV_HOSTS)
    store = os.environ.get(ENV_STORE) or None
    try:
        app = create_app(store, judge=os.environ.get(ENV_JUDGE) == "1",
                         deck_lists=os.environ.get(ENV_DECK_LISTS) == "1",
                         analytics=os.environ.get(ENV_ANALYTICS) or None, serving=True,
                         hosts=hosts.split(",") if hosts else None, catalogs=_env_catalogs())
    except Exception as e:  # (a KeyboardInterrupt is uvicorn's: the supervisor stops its workers)
        if isinstance(e, ZXError):
            message = e.message
        else:
            try:
                message = cannot_open_text(parse_store(store), e, store)
            except ZXError:
                message = f"cannot open the store: {e}"
        log.error("zx serve: worker process %d cannot start: %s; another is started in its place", os.getpid(),
                  with_given(message, *given))
        sys.exit(CANNOT_OPEN)
    app.state.backend.advised = lambda text: with_given(text, *given, visitors=True)
    app.state.backend.told = lambda text: with_given(text, *given)
    return app


def _env_catalogs() -> tuple[Any, ...]:
    """The catalog files of ``ENV_CATALOGS`` (zx serve's private copies of the files it checked), each read and
    checked again: one that does not hold that content is an error, and the worker does not start (it served
    without the file, the names it masks unmasked: QA round 34)."""
    import json

    from zx_events.games import load_catalogs

    out: list[Any] = []
    for path, sha in json.loads(os.environ.get(ENV_CATALOGS) or "[]"):
        try:
            cats = list(load_catalogs(path).values())
        except ZXError as e:
            cats, why = [], e.message
        else:
            why = "its content changed since the server started"
        kept = [c for c in cats if c.sha256 == sha]
        if not kept:  # (the supervisor's own copy, zx_cli.serve._private_copies: serving without it would show the
            # names it masks unmasked: this worker does not start)
            raise ZXError(f"the catalog file {path} zx serve gave this worker is not the one it checked ({why})")
        out += kept
    return tuple(out)


def _worker_signals() -> None:
    """SIGUSR1 prints every thread's stack on stderr (faulthandler); the process gets SIGTERM (a stop, as the
    supervisor's own) when the supervisor that started it ends, even by SIGKILL (Linux's PR_SET_PDEATHSIG)."""
    import faulthandler
    import signal
    import sys

    if hasattr(signal, "SIGUSR1"):
        try:
            faulthandler.register(signal.SIGUSR1, all_threads=True)
        except (AttributeError, ValueError, OSError):  # stderr is not a real file
            pass
        else:  # (the supervisor starts a worker with it blocked and ignored: zx_cli.serve._supervisor)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    supervisor = os.environ.get(ENV_SUPERVISOR)
    if sys.platform != "linux" or not supervisor:
        return
    import ctypes

    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != int(supervisor):  # it ended before the signal was asked for
        log.error("zx serve: worker process %d: its server (PID %s) has ended; this worker ends too", os.getpid(),
                  supervisor)
        sys.exit(1)
