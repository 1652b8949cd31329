"""Forked worker processes (the import's and the analytics': ``zx_events.parallel``,
``analytics.parallel``): what one does first, and the error its parent raises when one dies.
Standard library only, so a worker imports nothing else for it."""

from __future__ import annotations

import os


class WorkerDied(Exception):
    """A worker process ended before sending back its work (killed, out of memory). Not bad input
    (``zx_events.errors``): the caller says what was saved and that running again finishes it."""


def become_worker(parent: int) -> None:
    """What a forked worker process does first: end when the process that forked it does, even killed
    (-9) or at ``os._exit`` (it would otherwise wait on its pipe for ever, holding the parent's stdout
    and stderr), and leave Ctrl-C to the parent, which stops its workers and says so once (each
    worker would print its own KeyboardInterrupt traceback)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)
