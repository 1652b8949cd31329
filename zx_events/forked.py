"""Forked worker processes (the import's and the analytics': ``zx_events.parallel``,
``zx_analytics.parallel``): what one does first, and the error its parent raises when one dies.
Standard library only, so a worker imports nothing else for it."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from typing import Iterator


class WorkerDied(Exception):
    """A worker process ended before sending back its work (killed, out of memory). Not bad input
    (``zx_events.errors``): the caller says what was saved and that running again finishes it."""


def become_worker(parent: int) -> None:
    """What a forked worker process does first: end when the process that forked it does, even killed
    (-9) or at ``os._exit`` (it would otherwise wait on its pipe for ever, holding the parent's stdout
    and stderr), and leave Ctrl-C to the parent, which stops its workers and says so once (each
    worker would print its own KeyboardInterrupt traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (the parent's, zx_cli.sigterm, is Ctrl-C's path: its own)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # held by ctrl_c_held meanwhile
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Around the start of a worker process: SIGINT held back (blocked), so that a Ctrl-C lands neither
    in the child before ``become_worker`` ignores it nor in the at-fork handlers of the parent (either
    printed "Exception ignored in ... KeyboardInterrupt" with a traceback, 1 Ctrl-C in 40 during an
    analytics update). A Ctrl-C meanwhile reaches the parent when it ends: the ordinary interrupt. SIGTERM too,
    which ``zx`` takes as Ctrl-C (``zx_cli.sigterm``)."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
