"""SIGTERM (systemd, ``timeout``, cron, docker stop) taken as Ctrl-C by every ``zx`` command that does not take it
itself (``zx serve`` and ``zx analytics follow`` do): the command's own cleanup runs (a partial export folder
removed, the store closed, its -wal and -shm files gone), its message says what was kept, worded
``interrupted (SIGTERM): ...``, and the process then ends by the signal (exit 143 in a shell), as ``zx import``
did alone until 2026-11-29 (every other command was killed without a word, its cleanup skipped).

Standard library only: ``zx_cli.main`` (the entry point, ``zx_cli:main``) takes SIGTERM before it imports the
command line's modules."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

_state: dict[str, Any] = {"pid": None, "terminated": False, "said": False, "opened": [], "finished": False}


def _term(signum: int, frame: Any) -> None:
    if os.getpid() != _state["pid"]:  # a forked worker that inherited this handler: it ends as SIGTERM ends it
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    if _state["terminated"]:  # a second SIGTERM while the first one's cleanup runs: the same stop, under way
        return
    if _state["finished"]:  # the command has done its work and said so, the process is exiting: it exits as the
        return  # command ended (it ended by the signal, 143, without a word, its work done: QA round 34)
    _state["terminated"] = True
    raise KeyboardInterrupt


_term.interrupts_statements = True  # type: ignore[attr-defined]  # (a DuckDB statement under way stops on it:
# zx_analytics.db.ctrl_c_interrupts, as on Ctrl-C)


def take() -> Any:
    """SIGTERM, from now on, raises ``KeyboardInterrupt`` in this process (Ctrl-C's path) and is remembered
    (``terminated``); returns the handler it had. A SIGTERM ignored by whoever started the process stays ignored
    (``nohup``-like starters), and in a thread other than the main one nothing is changed."""
    import threading

    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_IGN or threading.current_thread() is not threading.main_thread():
        return previous
    _state["pid"] = os.getpid()
    signal.signal(signal.SIGTERM, _term)
    return previous


def handler() -> Any:
    """The handler ``take`` installs (``zx import`` puts it back when it ends)."""
    return _term


def leave() -> None:
    """SIGTERM back to its default action (``zx serve``, which stops on it and ends by it itself)."""
    if signal.getsignal(signal.SIGTERM) is _term:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def finished(done: bool = True) -> None:
    """The command has returned (its work done, its output written): a SIGTERM from now on, while the process
    exits, is let be (the process ends as the command did). ``done=False`` as a command begins (a process running
    many, CliRunner's)."""
    _state["finished"] = done


def terminated() -> bool:
    """Whether SIGTERM stopped this command."""
    return bool(_state["terminated"])


def interrupted_word() -> str:
    """How a command's line about what an interruption kept begins: ``interrupted`` (Ctrl-C), or ``interrupted
    (SIGTERM)``; that line is then the last one (no ``Aborted!`` after it on SIGTERM)."""
    if _state["terminated"]:
        _state["said"] = True
        return "interrupted (SIGTERM)"
    return "interrupted"


def said() -> bool:
    """Whether the command said what its interruption by SIGTERM kept (``interrupted_word``)."""
    return bool(_state["said"])


def opened(closeable: Any) -> Any:
    """``closeable`` (a store's service) is closed before the process ends by SIGTERM, if it is still open (the
    end by the signal skips the interpreter's own finalization, which closes a SQLite store and removes its -wal
    and -shm files)."""
    import weakref

    opened = _state["opened"]
    opened[:] = [ref for ref in opened if ref() is not None]  # (a process running many commands, CliRunner's:
    opened.append(weakref.ref(closeable))  # not every service it ever opened kept alive)
    return closeable


def end() -> None:
    """After SIGTERM stopped the command: close what it opened, flush what it printed, then end the process by
    the signal (exit 143 in a shell; a caller sees it killed by SIGTERM)."""
    import gc

    for ref in reversed(_state["opened"]):
        closeable = ref()
        try:
            if closeable is not None and not getattr(closeable, "_closed", False):
                closeable.close()
        except BaseException:  # noqa: BLE001 - (closing at the end: what could not be closed ends with the process)
            pass
    _state["opened"].clear()
    gc.collect()  # (what the command left to the collector: DuckDB connections, a store's pool)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.raise_signal(signal.SIGTERM)
