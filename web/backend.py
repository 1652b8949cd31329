"""What the endpoints read, and nothing they may write: the event store and the analytics file.

``Backend`` holds one ``MatchService`` (the store) and one read-only DuckDB connection (the
analytics projection), shared by every request. It never writes: matches are read with
``replay.load_history`` and ``integrity.stored_rows`` (never ``replay.state_at``, which files
snapshots), the DuckDB file is opened ``read_only``, and no SQL text comes from a request.

Caches, all safe because stored events are never rewritten:
- the match summaries, rebuilt when the store's last notification id moves (an import);
- decoded match histories (an LRU of ``HISTORY_CACHE`` matches): stepping through a match in the
  browser decodes its events once;
- stats frames by query and filters, for as long as the analytics connection is open (the
  projection cannot change under a read-only connection: DuckDB lets no writer in meanwhile).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from zx_events.errors import ZXError

HISTORY_CACHE = 256
STATS_CACHE = 512
REPLAY_CACHE = 32
STORE_CHECK_SECONDS = 1.0  # how long the store's last notification id is trusted before it is read again


class WebError(Exception):
    """An error for the client: an HTTP status and a message that says what to do."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class LRU:
    """A small thread-safe least-recently-used cache."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        value = make()  # outside the lock: two threads may both build it, one wins
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)
        return value

    def peek(self, key: Any) -> Any:
        with self.lock:
            return self.data.get(key)

    def clear(self) -> None:
        with self.lock:
            self.data.clear()


@dataclass(frozen=True)
class Freshness:
    """How the analytics file stands against the store."""

    ok: bool
    position: int | None  # notification id the file is up to date with
    store_last: int
    message: str | None


class Backend:
    def __init__(self, svc: Any, analytics_path: Path, judge: bool = False) -> None:
        self.svc = svc
        self.analytics_path = Path(analytics_path)
        self.judge = judge
        self.histories = LRU(HISTORY_CACHE)
        self.stats_cache = LRU(STATS_CACHE)
        self.replays = LRU(REPLAY_CACHE)  # viewer pages by (match, seat)
        self.seen = LRU(HISTORY_CACHE * 4)  # matches asked for once: the second time, their history is cached
        self._summaries: tuple[int, list[dict[str, Any]]] | None = None
        self._summaries_lock = threading.Lock()
        self._summary_rows: dict[Any, dict[str, Any]] = {}  # by originator id, kept up to date
        self._last_id: tuple[float, int] | None = None
        self._con: Any = None
        self._con_lock = threading.Lock()
        self._projection: tuple[int, str] | None = None

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None
        self.svc.close()

    # ------------------------------------------------------------------ the store
    def store_last_id(self) -> int:
        """The store's last notification id (re-read at most once a second)."""
        now = time.monotonic()
        cached = self._last_id
        if cached is not None and now - cached[0] < STORE_CHECK_SECONDS:
            return cached[1]
        last = self.svc.recorder.max_notification_id() or 0
        self._last_id = (now, last)
        return last

    def summaries(self) -> list[dict[str, Any]]:
        """``MatchService.summaries()``, read once and then only for the notifications that came since."""
        last = self.store_last_id()
        cached = self._summaries
        if cached is not None and cached[0] >= last:
            return cached[1]
        with self._summaries_lock:
            cached = self._summaries
            if cached is not None and cached[0] >= last:
                return cached[1]
            read = self.svc.update_summaries(self._summary_rows, cached[0] if cached else None)
            # every notification up to `last` has been read (and perhaps a few more)
            self._summaries = (max(read or 0, last), list(self._summary_rows.values()))
            return self._summaries[1]

    def history(self, match_id: str) -> Any:
        """The decoded events of a stored match (``replay.load_history``); 404 when unknown."""
        from zx_events import replay

        def load() -> Any:
            try:
                return replay.load_history(self.svc, match_id)
            except replay.UnknownMatch as e:
                raise WebError(404, e.message) from None

        return self.histories.get(match_id, load)

    def view(self, match_id: str, perspective: str, at: int | None = None, turn: int | None = None) -> dict[str, Any]:
        """The state after event ``at`` (or at the start of ``turn``; default: the end) as ``perspective``
        sees it: exactly ``zx replay MATCH --event N --as SEAT --format json``.

        A match asked for the first time is read only up to ``at`` (one query for the last seq, one for
        the events): a client that jumps between matches pays for the events it needs. From the
        second request on, its whole history is decoded once and kept (stepping through a match)."""
        from zx_events import replay

        cached = self.histories.peek(match_id)
        if cached is None and turn is None and at is not None and not self.seen.peek(match_id):
            self.seen.get(match_id, lambda: True)
            return _view_upto(self.svc, match_id, at, perspective)
        hist = cached or self.history(match_id)
        try:
            seq = hist.turn_seq(turn) if turn is not None else hist.check_seq(at) if at is not None else hist.last_seq
        except replay.OutOfRange as e:
            raise WebError(400, e.message) from None
        return hist.step_at(seq, perspective).state.to_json()

    def allowed(self, perspective: str | None) -> str:
        """The perspective a request may have: spectator by default; judge only with --judge (301.3)."""
        from zx_events.seats import JUDGE, SPECTATOR, parse_perspective

        if perspective is None or perspective == "":
            return SPECTATOR
        try:
            p = parse_perspective(perspective)
        except ValueError as e:
            raise WebError(400, f"as: {e}") from None
        if p == JUDGE and not self.judge:
            raise WebError(403, "as=judge: the judge view shows every hidden card; it is served only when the "
                                "server was started with `zx serve --judge`")
        return p

    def seats(self) -> list[str]:
        """The perspectives this server offers, spectator first."""
        from zx_events.seats import JUDGE, SPECTATOR

        return [SPECTATOR, "P1", "P2", *([JUDGE] if self.judge else [])]

    # ------------------------------------------------------------------ the analytics file
    def _connection(self) -> Any:
        from analytics.db import AnalyticsError, connect_reader

        with self._con_lock:
            if self._con is None:
                try:
                    self._con = connect_reader(self.analytics_path)
                except AnalyticsError as e:
                    raise WebError(503, f"{e}") from None
                self._projection = None
                self.stats_cache.clear()
            return self._con

    def projection(self) -> tuple[int, str]:
        """(position, store identity) of the analytics file."""
        from analytics.db import SCHEMA_VERSION, stored_version

        con = self._connection()
        if self._projection is None:
            cur = con.cursor()
            try:
                version = stored_version(cur)
                if version != SCHEMA_VERSION:
                    raise WebError(503, f"{self.analytics_path} has analytics schema {version}, this version reads "
                                        f"{SCHEMA_VERSION}: run `zx analytics update --rebuild`")
                row = cur.execute("SELECT position, store FROM projection_position").fetchall()
            finally:
                cur.close()
            if not row:
                raise WebError(503, f"{self.analytics_path} is empty: run `zx analytics update`")
            self._projection = (int(row[0][0]), str(row[0][1]))
        return self._projection

    def freshness(self) -> Freshness:
        from analytics.projection import store_identity

        position, built_from = self.projection()
        last = self.store_last_id()
        if built_from != store_identity(self.svc):
            return Freshness(False, position, last, f"{self.analytics_path} was built from {built_from}, not from "
                                                    f"this store: run `zx analytics update --rebuild`")
        if position < last:
            return Freshness(False, position, last, f"the analytics are behind the store (notification {position} "
                                                    f"of {last}): run `zx analytics update`, then restart "
                                                    f"`zx serve` (or start it with --update)")
        return Freshness(True, position, last, None)

    def stats(self, method: str, kwargs: dict[str, Any], min_games: int) -> Any:
        """``analytics.stats.Stats.<method>(**kwargs)`` as a Polars frame; 503 when the analytics are
        missing or behind the store."""
        from analytics.stats import Stats

        fresh = self.freshness()
        if not fresh.ok:
            raise WebError(503, fresh.message or "the analytics file cannot be used")
        key = (fresh.position, method, tuple(sorted(kwargs.items())), min_games)

        def run() -> Any:
            cur = self._connection().cursor()  # one DuckDB connection per request thread
            try:
                return getattr(Stats(cur, min_games=min_games), method)(**kwargs)
            except ValueError as e:  # a date, a seat, or a name the file has never seen (UnknownName)
                raise WebError(400, str(e)) from None
            finally:
                cur.close()

        return self.stats_cache.get(key, run)

    def query(self, key: Any, make: Callable[[Any], Any]) -> Any:
        """Any other read of the analytics file (the dashboard's own queries), cached like stats."""
        def run() -> Any:
            cur = self._connection().cursor()
            try:
                return make(cur)
            finally:
                cur.close()

        return self.cached(key, run)

    def cached(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()`` computed from the analytics file (e.g. a drawn dashboard), cached while the file
        stands; 503 when the analytics are missing or behind the store."""
        fresh = self.freshness()
        if not fresh.ok:
            raise WebError(503, fresh.message or "the analytics file cannot be used")
        return self.stats_cache.get((fresh.position, *key), make)


def _view_upto(svc: Any, match_id: str, at: int, perspective: str) -> dict[str, Any]:
    """``History.step_at(at, perspective).state.to_json()`` computed from events 1..at only: the same
    ``build_view`` of the same state, with the same names, mask and last seq."""
    from zx_events import replay
    from zx_events.ids import match_uuid, project

    try:
        last = replay.last_seq(svc, match_id)
    except replay.UnknownMatch as e:
        raise WebError(404, e.message) from None
    if not 1 <= at <= last:
        raise WebError(400, f"match {match_id} has {last} events: seq must be 1..{last}")
    decode = svc.mapper.to_domain_event
    match = project(None, (decode(r) for r in svc.recorder.select_events(match_uuid(match_id), lte=at)))
    cn = replay.names_for(match)
    return replay.game_of(match).build_view(match, perspective, cn.names, mask=cn.mask, last_seq=last).to_json()
