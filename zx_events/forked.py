"""Forked worker processes (the import's and the analytics': ``zx_events.parallel``,
``zx_analytics.parallel``): what one does first, and the error its parent raises when one dies.
Standard library only, so a worker imports nothing else for it."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from typing import Any, Iterator


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


_ON_THREADS: Any = None  # (a WeakSet, made at first use) what reads stores on threads of this process


def reads_on_threads(owner: Any) -> None:
    """``owner`` (``zx serve``'s ``zx_web.backend.Backend``) reads stores on threads of this process, SQLite ones
    among them, until its ``closed`` is true: no worker is forked meanwhile (``fork_is_safe``)."""
    global _ON_THREADS
    if _ON_THREADS is None:
        import weakref

        _ON_THREADS = weakref.WeakSet()
    _ON_THREADS.add(owner)


def fork_is_safe() -> bool:
    """Whether this process may fork workers: nothing of zx reads a store on its threads (``reads_on_threads``: a
    served app's, ``zx_web.backend.Backend``, not closed). A forked child holds only the thread that forked it: a
    lock another thread held at that moment stays held in the child for ever, and a thread inside SQLite held its
    global mutex: the worker's first ``sqlite3.connect`` waited for ever (a test's import, run beside a served
    app, hung 20 minutes). A process that serves imports in one process instead. Other programs' threads are not
    known here: a host program whose own threads use SQLite passes ``workers=1``."""
    return not any(not getattr(owner, "closed", False) for owner in list(_ON_THREADS or ()))
