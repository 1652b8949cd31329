"""Live analytics: keep the DuckDB projection up to date as matches arrive in the store.

``follow(svc, path, stop=...)`` runs ``projection.update`` once to catch up from the file's
tracking position (so a restart resumes exactly where the last committed page left off), then
waits for new notifications and runs ``update`` again each time some arrive. Every run is the same
tracked, transactional update as ``zx analytics update``: rows and position commit together, so a
follow killed at any point (even ``kill -9``) and started again never counts a match twice.

How it learns that matches arrived:
- PostgreSQL: LISTEN/NOTIFY, through the eventsourcing library's subscription
  (``PostgresApplicationRecorder.subscribe``: the recorder NOTIFYs its channel in the transaction
  that inserts events; the subscription's thread LISTENs and pulls the new notifications). It is
  subscribed to the ``Started`` topic only: the application saves a whole match in one
  transaction, so a new match's first event is enough to wake up, and the subscription does not
  read every event a second time. A poll of ``max_notification_id`` every ``interval`` seconds
  backs it up (an event appended later to an existing match, a lost connection). A lost LISTEN
  connection is made again, 1 s later, then twice as long after each failure (at most 60 s), and
  ``on_listen`` says when it is lost and when it is back (it said "retrying" and never listened again).
- SQLite (no subscription support in eventsourcing): polling ``max_notification_id`` every
  ``interval`` seconds.
- memory: refused (the store lives only in the process that made it).

The DuckDB file is opened read-write only while an update runs (DuckDB allows one writer or many
readers per file), so ``zx stats`` can read between updates; readers wait for an update under way
(``db.READER_WAIT``), and an update that finds the file held by a reader tries again at the next tick.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .db import AnalyticsError, FileInUse, first_line
from .projection import STARTED, UpdateResult, update


@dataclass
class FollowState:
    mode: str  # "listen" (LISTEN/NOTIFY) or "poll"
    position: int
    updates: int = 0  # updates that projected something
    events: int = 0
    matches: int = 0
    started: bool = True  # False: stopped while the file was still held by another process (nothing read)


class _Listener:
    """The eventsourcing subscription on a thread: ``flag`` is set when a new match is recorded;
    ``listening`` once its LISTEN is in place."""

    def __init__(self, recorder: Any, position: int, flag: threading.Event) -> None:
        self.listening = threading.Event()
        self.sub = _subscription(recorder, position, self.listening)
        self.flag = flag
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="analytics-follow-listen", daemon=True)
        self.sub.__enter__()
        self.thread.start()

    def _run(self) -> None:
        try:
            for _ in self.sub:
                self.flag.set()
        except BaseException as e:  # a lost connection: reported, polling goes on, LISTEN again later
            self.error = e
            self.flag.set()

    def close(self) -> None:
        try:
            self.sub.__exit__(None, None, None)
        except Exception:
            pass
        self.thread.join(timeout=5)


def _subscription(recorder: Any, position: int, listening: threading.Event) -> Any:
    """eventsourcing's PostgreSQL subscription to every game's Started topic, whose LISTEN thread also
    sets ``listening`` once LISTEN has run (its ``_listen``, as in eventsourcing 9.5, with that line
    added): how ``follow`` knows, and says, that LISTEN is back after a lost connection."""
    from eventsourcing.postgres import PostgresSubscription
    from psycopg.sql import SQL, Identifier

    class Subscription(PostgresSubscription):
        def _listen(self) -> None:
            try:
                with self._recorder.datastore.get_connection() as conn:
                    conn.execute(SQL("LISTEN {0}").format(Identifier(self._recorder.channel_name)))
                    listening.set()
                    while not self._has_been_stopped and not self._thread_error:
                        for _ in conn.notifies(timeout=0.1, stop_after=1):
                            self._has_been_notified.set()
            except BaseException as e:
                if self._thread_error is None:
                    self._thread_error = e
                self.stop()

    return Subscription(recorder, gt=position, topics=list(STARTED))


def _answers(config: Any) -> bool:
    """Whether the PostgreSQL server of the store ``config`` takes a new connection and answers it."""
    from zx_events.store import connect_postgres

    if config.kind != "postgres":
        return False
    try:
        with connect_postgres(config.env) as conn:
            conn.execute("SELECT 1")
        return True
    except Exception:
        return False


LISTEN_RETRY = (1.0, 60.0)  # seconds: the first wait before LISTEN is tried again after a lost connection, the longest


def subscribable(recorder: Any) -> bool:
    """Whether the recorder supports eventsourcing subscriptions (LISTEN/NOTIFY on PostgreSQL)."""
    from eventsourcing.postgres import PostgresApplicationRecorder

    return isinstance(recorder, PostgresApplicationRecorder)


def follow(svc: Any, path: str | Path, *, stop: threading.Event, interval: float = 1.0,
           page_size: int | None = None, on_update: Callable[[UpdateResult, FollowState], None] | None = None,
           on_start: Callable[[FollowState], None] | None = None,
           on_first: Callable[[UpdateResult], None] | None = None,
           on_wait: Callable[[str], None] | None = None,
           on_listen: Callable[[str], None] | None = None, catalogs: Iterable[Any] = (),
           update_options: dict[str, Any] | None = None) -> FollowState:
    """Catch up, then keep ``path`` up to date with ``svc``'s store until ``stop`` is set.

    ``catalogs``: catalog files, as ``update``'s (``zx analytics follow --catalog FILE``): each used for the
    matches checked against its content, those stored while this runs too.

    ``on_start(state)`` once caught up (``on_first(result)`` just before, with the catching up's
    result); ``on_update(result, state)`` after each update that projected events; ``on_wait(message)`` when an
    update is tried again: the file is held by a reader, or a connection to the store was dropped during it
    while the server still answers (a lost server, which takes no new connection, ends the follow with its error);
    ``update_options``: more keyword arguments of each ``update`` (``zx serve --follow``: ``workers=0``, no process
    forked beside the server's threads; ``stop=stop``, a stop ends a long catching up after its page under way).
    ``on_listen(message)`` when the LISTEN connection is lost (polling goes on, and LISTEN is tried
    again after 1 s, then twice as long each time it fails, at most 60 s) and when it is back."""
    if svc.store.kind == "memory":
        raise AnalyticsError("a memory: store lives only in the process that made it: nothing to follow; "
                             "use a SQLite file or PostgreSQL")
    if interval <= 0:
        raise AnalyticsError(f"the interval must be more than 0 seconds, got {interval}")
    kw: dict[str, Any] = {} if page_size is None else {"page_size": page_size}
    catalogs = tuple(catalogs)
    if catalogs:
        kw["catalogs"] = catalogs
    kw.update(update_options or {})
    path = Path(path)

    def dropped(e: Exception) -> bool:
        """Whether ``e`` is a connection to the store dropped while the server still answers (a
        ``pg_terminate_backend``, a restarted pooler): then the update is tried again on a new connection,
        said once through ``on_wait``. False (the error ends the follow) for any other error, and when the
        server cannot be reached at all."""
        from zx_events.store import failure_cause

        found = failure_cause(svc.store, e)
        if found is None or found[0] != "unreachable" or not _answers(svc.store):
            return False
        if on_wait is not None:
            on_wait(f"a connection to the store was dropped during an update ({first_line(e)}); "
                    f"updating again on a new connection")
        return True

    def run() -> UpdateResult | None:
        try:
            return update(svc, path, **kw)
        except AnalyticsError as e:
            # a reader holds the file (another process, or a read-only connection of this one): next tick
            if isinstance(e, FileInUse) or "different configuration" in str(e):  # (FileInUse: "open in this
                # process" too, a Stats of the caller's: it was DuckDB's raw "different configuration", retried)
                if on_wait is not None:
                    on_wait(str(e))
                return None
            if dropped(e):
                return None
            raise
        except Exception as e:
            if dropped(e):
                return None
            raise

    def newest() -> int | None:
        """The store's last notification id, or None when the connection was dropped (``dropped``)."""
        try:
            return svc.recorder.max_notification_id() or 0
        except Exception as e:
            if dropped(e):
                return None
            raise

    first = None
    while first is None and not stop.is_set():
        first = run()
        if first is None:
            stop.wait(interval)
    if first is None:  # stopped before the first update could run: the file's position was never read
        return FollowState("poll", 0, started=False)
    flag = threading.Event()
    listener = _Listener(svc.recorder, first.position, flag) if subscribable(svc.recorder) else None
    state = FollowState("listen" if listener else "poll", first.position, int(first.events > 0), first.events,
                        first.matches)
    if on_first is not None:
        on_first(first)
    if on_start is not None:
        on_start(state)
    stop_watch = threading.Thread(target=lambda: (stop.wait(), flag.set()), daemon=True)
    stop_watch.start()  # a stop wakes the wait below at once
    retry = False
    again_at: float | None = None  # when to LISTEN again (the connection was lost)
    delay = LISTEN_RETRY[0]
    lost = False  # LISTEN was lost and is not back yet
    try:
        while not stop.is_set():
            timeout = min(interval, 0.2) if retry else interval
            if again_at is not None:
                timeout = min(timeout, max(0.0, again_at - time.monotonic()))
            elif lost:  # a new LISTEN under way: look for it shortly
                timeout = min(timeout, 0.2)
            woke = flag.wait(timeout)
            if stop.is_set():
                break
            flag.clear()
            if listener is not None and listener.error is not None:  # lost: poll, and LISTEN again later
                error = str(listener.error).strip().splitlines() or [type(listener.error).__name__]
                listener.close()
                listener, again_at, state.mode = None, time.monotonic() + delay, "poll"
                if on_listen is not None:
                    on_listen(f"the LISTEN connection failed ({error[0]}); "
                              f"polling every {interval:g} s until it is back (LISTEN again in {delay:g} s)")
                delay = min(delay * 2, LISTEN_RETRY[1])
                lost, woke = True, True  # (an update now: what arrived while it went down)
            elif again_at is not None and time.monotonic() >= again_at:
                listener, again_at = _Listener(svc.recorder, state.position, flag), None
            elif lost and listener is not None and listener.listening.is_set():
                lost, delay, state.mode = False, LISTEN_RETRY[0], "listen"
                if on_listen is not None:
                    on_listen("LISTEN is back: woken by LISTEN/NOTIFY again")
            if not (woke or retry) and (last := newest()) is not None and last <= state.position:
                continue  # the poll (or the backstop behind LISTEN): nothing new (None: a dropped connection: update)
            result = run()
            retry = result is None  # the file was held by a reader, or a connection dropped: again shortly
            if result is None:
                continue
            state.position = result.position
            if result.events:
                state.updates += 1
                state.events += result.events
                state.matches += result.matches
                if on_update is not None:
                    on_update(result, state)
    finally:
        if listener is not None:
            listener.close()
    return state
