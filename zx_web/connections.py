"""uvicorn's h11 protocol with two bounds on the connections of ``zx serve`` (each of its processes), which uvicorn
0.54 has no setting for.

- A request head (its line and headers) must arrive whole within ``HEAD_TIMEOUT`` of the connection, or of the end
  of the previous answer on it; else ``408`` and the connection closed (closed without a word if it sent nothing).
  uvicorn times only a connection idle after an answer (``timeout_keep_alive``, 5 s), and stops that timer at the
  first byte that comes: a half-sent head (up to ``zx_cli.serve.REQUEST_HEAD_MAX``, 1 MiB, buffered by h11) or a
  connection that sent nothing stayed open for ever (QA round 29: 300 such clients held ~460 MB for 150 s+).
  The time a request takes to be answered is not bounded (a dashboard may take seconds).
- At most ``MAX_CONNECTIONS`` connections at once: one more is answered ``503`` and closed as soon as it is
  accepted, before a byte of it is read. uvicorn's ``limit_concurrency`` answers 503 only once a head has come
  whole (the connection and its buffer kept meanwhile), counting idle keep-alive connections against requests.

Chosen by ``zx serve`` as uvicorn's ``http`` (``HTTP``), in every process of ``--workers N``."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

HTTP = "zx_web.connections:BoundedH11Protocol"  # uvicorn's ``http`` setting: imported by name in each worker too
HEAD_TIMEOUT = 10.0  # s for a request head to arrive whole (as Apache's mod_reqtimeout's first wait)
MAX_CONNECTIONS = 256  # open at once in a process: 40 browsers' six each; at 1 MiB of head each, 256 MiB at most


def _plain(status: str, text: str, *extra: str) -> bytes:
    """An answer written on the socket itself: h11 sends a response only to a request it has read whole."""
    body = text.encode("ascii")
    head = [f"HTTP/1.1 {status}", "content-type: text/plain; charset=utf-8", f"content-length: {len(body)}",
            "connection: close", "x-content-type-options: nosniff", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body


class BoundedH11Protocol(H11Protocol):
    head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            self.transport.write(_plain("503 Service Unavailable", f"the server has {MAX_CONNECTIONS} connections "
                                        f"open, its most: retry in 2 seconds", "retry-after: 2"))
            self.transport.close()
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """h11 refused what came (a malformed chunked body) while its request is in the application already: that
        request's answer is not sent (the cycle is over: ``disconnected``), h11's 400 is. The application's answer
        met h11's LocalProtocolError, and the log got two tracebacks a request (QA round 38), then, caught, uvicorn's
        ERROR "ASGI callable returned without completing response": uvicorn's own warning line alone now."""
        cycle = getattr(self, "cycle", None)
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
        super().send_400_response(msg)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()  # (a pipelined request already read whole is in flight: the timer passes it by)

    def _await_head(self) -> None:
        self._stop_head_timer()
        self.head_timer = self.loop.call_later(HEAD_TIMEOUT, self._head_timed_out)

    def _stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self.transport.is_closing() or (self.cycle is not None and not self.cycle.response_complete):
            return  # a request is being answered: the timer starts again at its end
        if self.conn.trailing_data[0]:  # part of a head came (else nothing: closed as a keep-alive connection is)
            self.transport.write(_plain("408 Request Timeout", f"the request's line and headers did not arrive "
                                        f"within {HEAD_TIMEOUT:g} s"))
        self.transport.close()
