"""The encoded answers of the GET endpoints whose answer is a function of the request's path and query
alone, served before the framework: a view of a stored match (``/api/matches/{id}/view``) and a
statistic (``/api/stats/...``, while the analytics file stands at the same position).

FastAPI's parameter parsing and validation and its dependencies cost 0.1-0.3 ms a request, several
times the cost of looking up an answer already computed (bench/bench_serve.py). ``Answers`` is a
plain ASGI layer in front of the application: a request it has answered before with ``200``, the
same path and the same query string byte for byte, gets the same status, headers and body again,
without the framework. Anything else (another method, a first request, an error, a streamed body)
goes through the application unchanged, and only its ``200`` answers are kept. A view asked for
the first time with a plain query (``at``, ``turn``, ``as``; nothing else) is computed here by the
endpoint's own call (``Backend.view_json``) with the endpoint's headers; its error (a ``WebError``, or
the store failing: ``Backend.store_error``) is answered here as the application answers it, never
computed again; any other query is the application's. A view not kept is computed in a worker thread
(``Backend.view``), and on a PostgreSQL store the other reads run in one too (``Backend.off_loop``): the
event loop never waits on a view nor on the network. A view never
changes (stored events are never rewritten); a statistic is kept under the analytics position it was
computed at, and asked for again when the analytics file is missing or behind the store, so the
application answers ``503`` as before.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request

from zx_events.errors import ZXError

from .app_json import JSON
from .backend import ANSWER_BYTES, CACHE_BYTES, LRU, Backend, WebError, log, store_failure

ANSWERS = 8192 + 512  # the views and the statistics the backend keeps (VIEW_CACHE, STATS_CACHE), CACHE_BYTES at most
_VIEW = re.compile(r"/api/matches/([^/]+)/view")
_STATS = re.compile(r"/api/stats/[a-z]+")
_NUMBER = re.compile(rb"[1-9][0-9]{0,8}")
_SEAT = re.compile(rb"[A-Za-z0-9]{1,16}")
_JSON_HEADERS = [(b"content-type", b"application/json")]


def view_query(query: bytes) -> tuple[int | None, int | None, str | None] | None:
    """``at``, ``turn`` and ``as`` of a view's query string in their plain form (each at most once, a
    number without sign or leading zero, a seat of letters and digits), or None for anything else,
    which the application parses and, when it is wrong, answers with its message."""
    at = turn = seat = None
    if query:
        for part in query.split(b"&"):
            name, eq, value = part.partition(b"=")
            if name == b"at" and at is None and _NUMBER.fullmatch(value):
                at = int(value)
            elif name == b"turn" and turn is None and _NUMBER.fullmatch(value):
                turn = int(value)
            elif name == b"as" and seat is None and _SEAT.fullmatch(value):
                seat = value.decode()
            else:
                return None
    if at is not None and turn is not None:
        return None
    return at, turn, seat


class Answers:
    def __init__(self, app: Any, backend: Backend, size: int = ANSWERS) -> None:
        self.app = app
        self.backend = backend
        self.cache = LRU(size, CACHE_BYTES, ANSWER_BYTES)

    async def _key(self, scope: dict[str, Any]) -> tuple[Any, ...] | None:
        """The answer's key, or None: not one of these endpoints, or statistics that cannot be served now."""
        if scope["type"] != "http" or scope["method"] != "GET":
            return None
        path = scope["path"]
        if _VIEW.fullmatch(path):
            return ("view", path, scope["query_string"])
        if _STATS.fullmatch(path):
            b = self.backend
            if b.store_lost:  # its server gone: one try at connecting, else 503 (no read waiting on the pool)
                await b.off_loop(b.store_reachable)
            try:
                fresh = await b.off_loop(b.freshness, reads=b.store_due())
            except WebError:  # no analytics file: the application says so
                return None
            return ("stats", fresh.position, path, scope["query_string"]) if fresh.ok else None
        return None

    async def _view(self, scope: dict[str, Any], receive: Any, key: tuple[Any, ...]) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
        """A view not answered before (``key``: its key in the cache), computed here as the endpoint
        computes it (``Backend.view_json``) when its query is plain; None: the application parses the
        query and answers. Its ``WebError`` (an unknown match, an event out of range) and the store's
        failure are raised, answered by ``__call__`` as the application would, not computed again."""
        args = view_query(scope["query_string"])
        if args is None:
            return None
        at, turn, seat = args
        b = self.backend
        if b.store_lost:
            await b.off_loop(b.store_reachable)
        match_id = _VIEW.fullmatch(scope["path"]).group(1)
        # (its client watched while it waits its turn: Backend.in_turn; a GET's empty body is all it takes from receive)
        body = await b.view(match_id, b.allowed(seat), at=at, turn=turn, request=Request(scope, receive))
        answer = ([(b"content-length", str(len(body)).encode()), *_JSON_HEADERS], body)
        self.cache.put(key, answer)
        return answer

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            key = await self._key(scope)
            hit = None if key is None else self.cache.peek(key)
            if hit is None and key is not None and key[0] == "view":
                hit = await self._view(scope, receive, key)
        except Exception as e:  # noqa: BLE001 - another error is the application's last resort (500, logged)
            if store_failure(e):  # the store's server gone: one line in the log, no traceback, no retry
                error = self.backend.store_error(e)
                log.warning("%s %s: %s", scope["method"], scope["path"], error.logged)
            elif isinstance(e, WebError):
                error = e
            elif isinstance(e, ZXError):  # as the application's handler answers it
                error = WebError.of(e)
            else:
                raise
            response = JSON({"error": error.message, "status": error.status}, status_code=error.status)
            if error.retry_after is not None:  # (the server busy: as the application's handler answers it)
                response.headers["Retry-After"] = str(error.retry_after)
            await response(scope, receive, send)
            return
        if key is None:
            await self.app(scope, receive, send)
            return
        if hit is not None:
            await send({"type": "http.response.start", "status": 200, "headers": hit[0]})
            await send({"type": "http.response.body", "body": hit[1]})
            return
        start: dict[str, Any] = {}
        body: list[bytes] = []
        whole = [True]

        async def keep(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    whole[0] = False
            await send(message)

        await self.app(scope, receive, keep)
        if start.get("status") == 200 and whole[0] and not start.get("trailers"):
            self.cache.put(key, (list(start.get("headers", ())), b"".join(body)))
