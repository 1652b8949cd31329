"""The encoded answers of the GET endpoints whose answer is a function of the request's path and query
alone, served before the framework: a view of a stored match (``/api/matches/{id}/view``) and a
statistic (``/api/stats/...``, while the analytics file stands at the same position).

FastAPI's parameter parsing and validation and its dependencies cost 0.1-0.3 ms a request, several
times the cost of looking up an answer already computed (bench/bench_serve.py). ``Answers`` is a
plain ASGI layer in front of the application: a request it has answered before with ``200``, the
same path and the same query string byte for byte, gets the same status, headers and body again,
without the framework. Anything else (another method, a first request, an error, a streamed body)
goes through the application unchanged, and only its ``200`` answers are kept. A view never
changes (stored events are never rewritten); a statistic is kept under the analytics position it was
computed at, and asked for again when the analytics file is missing or behind the store, so the
application answers ``503`` as before.
"""

from __future__ import annotations

import re
from typing import Any

from .backend import LRU, Backend, WebError

ANSWERS = 8192 + 512  # the views and the statistics the backend keeps (VIEW_CACHE, STATS_CACHE)
_VIEW = re.compile(r"/api/matches/[^/]+/view")
_STATS = re.compile(r"/api/stats/[a-z]+")


class Answers:
    def __init__(self, app: Any, backend: Backend, size: int = ANSWERS) -> None:
        self.app = app
        self.backend = backend
        self.cache = LRU(size)

    def _key(self, scope: dict[str, Any]) -> tuple[Any, ...] | None:
        """The answer's key, or None: not one of these endpoints, or statistics that cannot be served now."""
        if scope["type"] != "http" or scope["method"] != "GET":
            return None
        path = scope["path"]
        if _VIEW.fullmatch(path):
            return (path, scope["query_string"])
        if _STATS.fullmatch(path):
            try:
                fresh = self.backend.freshness()
            except WebError:  # no analytics file: the application says so
                return None
            return (fresh.position, path, scope["query_string"]) if fresh.ok else None
        return None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        key = self._key(scope)
        if key is None:
            await self.app(scope, receive, send)
            return
        hit = self.cache.peek(key)
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
