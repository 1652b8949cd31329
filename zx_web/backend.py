"""What the endpoints read, and nothing they may write: the event store and the analytics file.

``Backend`` holds one ``MatchService`` (the store) and one read-only DuckDB connection (the
analytics projection), shared by every request. It never writes (but for ``follow``, ``zx serve --follow``'s
opt-in, below): matches are read by
``zx_web.cursor`` (a read-only SQLite connection, or the recorder) and ``integrity.stored_rows``
(never ``replay.state_at``, which files snapshots), the DuckDB file is opened ``read_only``, and no
SQL text comes from a request.

Caches, all safe because stored events are never rewritten (a match's events, once stored, are
those events for ever; only new matches are added):
- the match summaries, rebuilt when the store's last notification id moves (an import);
- encoded views by (match, event or turn, perspective) (``VIEW_CACHE``, and ``CACHE_BYTES`` at most: the
  caches of answers are counted by their bytes too, an answer over ``ANSWER_BYTES`` is never kept);
- cursors (``CURSOR_CACHE`` matches): the events of a match read so far and a state walked along
  them, so stepping through a match costs one event a step and a first view reads only up to its
  event;
- match histories grouped into steps (``HISTORY_CACHE``), for the steps endpoint and replay pages;
- what a match's replay snapshots checked against its events gave (``zx verify``'s ``snapshot`` check, a
  replay of the whole match), by the match's head and the SHA-256 of its snapshot rows (``SNAPSHOT_CACHE``):
  a snapshot altered since is checked again;
- stats frames and their encoded answers by query and filters, keyed by the analytics position
  (the projection cannot change under a read-only connection: DuckDB lets no writer in meanwhile; under
  ``follow`` it moves, and every answer is asked for at the position read then: none kept at an older
  position is served once the position has moved);
- the derived tables the statistics count from (``zx_analytics.derived``: card games, attacks and
  life damage joined to their side's filter columns), built in memory on the read-only connection
  at its analytics position, on the first statistic asked (the warming, at start), and built again
  for another position or connection.

``follow`` (``zx serve --follow``): the server is the analytics file's one writer. The file is opened read-write,
with the configuration of ``zx_analytics.db.connect_writer``, so that the updates of a background thread
(``zx_analytics.follow.follow``, the loop of ``zx analytics follow``: a poll of the store every second, or
LISTEN/NOTIFY on PostgreSQL) connect to the same DuckDB database instance as the requests' cursors (DuckDB lets
one process write a file, and no other process read it meanwhile; the connections of one instance see what the
others committed). Each update commits its rows with its position, as ``zx analytics update`` does; the
statistics are answered at the position committed last, and ``freshness`` says how far behind the store it is.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from zx_events import freetext
from zx_events.freetext import json_escaped_bytes

from .cursor import Cursor, EventReader

HISTORY_CACHE = 256
CURSOR_CACHE = 256
VIEW_CACHE = 8192  # encoded views, a few KiB each (a match named with 1,000,000 characters: a MiB or more)
STATS_CACHE = 512
SNAPSHOT_CACHE = 4096  # snapshot checks (a list of problems, most often empty)
REPLAY_CACHE = 32
# each cache of answers (views, the statistics and dashboards, replay pages; zx_web.answers) keeps at most
# CACHE_BYTES of them, each counted by its size (answer_size), and never one of more than ANSWER_BYTES (it is
# served, and computed again when asked again): counted by number only, 8,192 views of a match named with
# 220,000 characters (0.9 MB each) were 7 GB in one server process
CACHE_BYTES = 128 * 2 ** 20
ANSWER_BYTES = 8 * 2 ** 20
log = logging.getLogger("zx.serve")
STORE_CHECK_SECONDS = 1.0  # how long the store's last notification id is trusted before it is read again
# A PostgreSQL store's server gone: eventsourcing tries a read 10 times, each waiting for a pooled connection
# for the store's connect_timeout (10 s), so a request waited 100 s. Unless the store URL or the environment
# gives connect_timeout, serve waits POOL_WAIT s a try (7 s in all) and a new connection may take
# CONNECT_TIMEOUT s; once a read has failed, a request tries one connection before it reads (store_reachable)
# and is answered 503 at once while none can be made, for STORE_RETRY_SECONDS after the last failed attempt
POOL_WAIT = 0.5
CONNECT_TIMEOUT = 3
STORE_RETRY_SECONDS = 1.0
# Requests computed in worker threads a few at a time (the limiters zx_web.app sets) wait their turn in the event
# loop; at most this many wait for each, the next one is answered 503 with Retry-After at once (a queue without
# a bound let one client's thousand uncached dashboards, 0.1-0.4 s each, keep every later one waiting minutes)
MOST_WAITING = {"dashboards": 16, "statistics": 64, "views": 64}
BUSY_RETRY_SECONDS = 2
GONE_POLL = 0.25  # s: how often a request waiting its turn (Backend.in_turn) looks whether its client is still there
FOLLOW_INTERVAL = 1.0  # s: zx serve --follow polls the store's notification log this often (SQLite; PostgreSQL: LISTEN)
DRAWN_KEPT = 32  # live dashboards kept under --follow to answer while they are drawn anew (zx_web.pages.drawn_before)
STORE_FAILED_SECONDS = 60.0  # /api/status says a read of the store failed (a damaged file) for this long after it
FOLLOW_STOP_WAIT = 60.0  # s a stopping server waits for the follower's page under way to commit
# the settings of the requests' reads (zx_analytics.db.SANDBOX's memory, DuckDB's order), set again on the shared
# instance after each update of zx serve --follow (zx_analytics.db.connect_writer sets the projection's: they are global)
READ_SETTINGS = ("SET memory_limit = '2GB'", "SET preserve_insertion_order = true")


class WebError(Exception):
    """An error for the client: an HTTP status and a message that says what to do."""

    def __init__(self, status: int, message: str, retry_after: int | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after  # seconds: the answer's Retry-After (a server too busy now)
        self.extra = extra  # more of a JSON answer beside its error (/api/status: what is known without the store)

    @classmethod
    def of(cls, e: Any) -> "WebError":
        """A ``ZXError`` (an unknown match, a bad value) as the client is answered it: 404 for what is not
        found, 409 for what the store holds but this server cannot show (a match of newer rules), else 400, with
        its message."""
        return cls({"not_found": 404, "conflict": 409}.get(getattr(e, "kind", ""), 400), e.message)


class StoreFailed(WebError):
    """A request's answer when the store failed under it (``Backend.store_error``): the server logs one line,
    ``logged``, with the cause in the store's own words (libpq's hold the operator's file paths: a missing
    ``sslrootcert``'s; SQLite's, its class's name); the visitor's ``message`` says what failed and what to do, no
    more (QA round 38)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None,
                 extra: dict[str, Any] | None = None, logged: str | None = None) -> None:
        super().__init__(status, message, retry_after, extra)
        self.logged = logged or message


def store_failure(e: BaseException) -> bool:
    """Whether ``e`` is the store failing under a read: ``zx_events.store.is_failure`` (SQLite's and eventsourcing's
    errors, the CLI's test too), the Python API's ``StoreFailure`` (its words of those, raised by MatchService's and
    replay's reads), this server's ``StoreFailed``, or psycopg's errors; without importing them for it: a server that
    never loaded them cannot have raised them."""
    from zx_events.store import StoreFailure, is_failure

    if isinstance(e, (StoreFailed, StoreFailure)) or is_failure(e):
        return True
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(e, psycopg.Error)


def answer_size(value: Any) -> int:
    """The bytes an answer holds: bytes and text by their size, a tuple or list (an answer's headers and body)
    by its parts', a Polars frame by its estimate, anything else by its own size."""
    if isinstance(value, (bytes, str, bytearray)):
        return sys.getsizeof(value)
    if isinstance(value, (tuple, list)):
        return sys.getsizeof(value) + sum(answer_size(v) for v in value)
    estimate = getattr(value, "estimated_size", None)  # a Polars frame
    if callable(estimate):
        return int(estimate())
    return sys.getsizeof(value)


class LRU:
    """A small thread-safe least-recently-used cache. ``get`` builds a missing value once: a caller that
    asks for a key another thread is building waits for that value instead of building it again (fifty
    clients opening the same dashboard run its queries once).

    At most ``size`` values; with ``budget``, also at most ``budget`` bytes of them (``answer_size``), and
    none larger than ``largest`` bytes (it is given to its callers, not kept)."""

    def __init__(self, size: int, budget: int | None = None, largest: int | None = None) -> None:
        self.size = size
        self.budget = budget
        self.largest = largest if largest is not None else budget
        self.bytes = 0  # of the values kept, when there is a budget
        self.data: OrderedDict[Any, Any] = OrderedDict()
        self.weights: dict[Any, int] = {}
        self.lock = threading.Lock()
        self.building: dict[Any, _Building] = {}

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
            building = self.building.get(key)
            mine = building is None
            if mine:
                building = self.building[key] = _Building()
        if not mine:
            building.done.wait()
            if building.error is not None:
                raise building.error
            return building.value
        try:
            building.value = make()
        except BaseException as e:
            building.error = e
            raise
        else:
            self.put(key, building.value)
        finally:
            with self.lock:
                self.building.pop(key, None)
            building.done.set()
        return building.value

    def peek(self, key: Any) -> Any:
        with self.lock:
            value = self.data.get(key)
            if value is not None:
                self.data.move_to_end(key)
            return value

    def put(self, key: Any, value: Any) -> None:
        weight = 0 if self.budget is None else answer_size(value)
        with self.lock:
            if self.largest is not None and weight > self.largest:
                return
            self.bytes += weight - self.weights.get(key, 0)
            self.weights[key] = weight
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size or (self.budget is not None and self.bytes > self.budget):
                old, _ = self.data.popitem(last=False)
                self.bytes -= self.weights.pop(old)

    def clear(self) -> None:
        with self.lock:
            self.data.clear()
            self.weights.clear()
            self.bytes = 0


class _Building:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


def connect_shared(path: Path) -> Any:
    """The requests' connection to the analytics file under ``zx serve --follow``: read-write, with the
    configuration of ``zx_analytics.db.connect_writer``, so that the follower's updates (which connect with it) reach
    the same DuckDB database instance, and its reads see each update once committed. The file must exist (the
    server's first update made it). ``FileInUse`` when another process holds it."""
    from zx_analytics.db import HELD_OPEN, AnalyticsError, connect_writer

    if not Path(path).exists():
        raise AnalyticsError(f"no analytics file at {path}: run `zx analytics update` (or `zx import LOGS`) first")
    con = connect_writer(Path(path))
    # from here nothing of this process opens the file but DuckDB (zx_analytics.db.HELD_OPEN: closing a descriptor of
    # it would drop DuckDB's lock on it); released by Backend.close
    HELD_OPEN.add(os.path.realpath(path))
    for setting in READ_SETTINGS:
        con.execute(setting)
    return con


class Follower:
    """``zx serve --follow``'s background thread: ``zx_analytics.follow.follow`` (the loop of ``zx analytics follow``)
    over the backend's store and analytics file until ``stop_and_wait``; each update through the database instance
    the requests read (``connect_shared``), serially (no process forked beside the server's threads), and a stop
    ends it after the page under way has committed (the next start resumes from there, never counting a match
    twice). ``error``: why it ended by itself (a file of another store or version, the store's server gone): the
    statistics then answer 503 with it."""

    def __init__(self, backend: "Backend", interval: float, say: Callable[[str], None],
                 catalogs: tuple[Any, ...] = ()) -> None:
        self.backend = backend
        self.catalogs = catalogs  # (zx serve --catalog FILE: for the matches imported with it, those to come too)
        self.interval = interval
        self.say = say
        self.stop = threading.Event()
        self.error: str | None = None
        import contextvars

        # (run in a copy of its starter's context: a thread starts in an empty one, and the follower's errors gave
        # the server's users the Python API's remedy, zx_events.errors.ADVICE_FOR, QA round 37)
        self.thread = threading.Thread(target=contextvars.copy_context().run, args=(self._run,),
                                       name="zx-serve-follow", daemon=True)

    def _run(self) -> None:
        from zx_analytics.db import first_line
        from zx_analytics.follow import follow

        b = self.backend

        def moved(result: Any, state: Any = None) -> None:
            b.moved(result.position)
            if result.events:
                self.say(f"follow: +{result.matches:,} match{'es' if result.matches != 1 else ''}, {result.events:,} "
                         f"event{'s' if result.events != 1 else ''} in {result.seconds:.2f} s; at notification "
                         f"{result.position:,}")

        try:
            follow(b.svc, b.analytics_path, stop=self.stop, interval=self.interval, on_first=moved, on_update=moved,
                   on_wait=lambda text: self.say(f"follow: {b.told(text)} (retrying)"),
                   on_listen=lambda text: self.say(f"follow: {text}"), catalogs=self.catalogs,
                   update_options={"workers": 0, "stop": self.stop})
        except BaseException as e:  # noqa: BLE001 - said, and answered by the statistics (freshness)
            self.error = b.advised(first_line(e))
            self.say(f"follow: stopped following the store: {b.told(first_line(e))}; the statistics answer 503 "
                     f"until the server is started again")

    def stop_and_wait(self, wait: float) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(wait)


@dataclass(frozen=True)
class Freshness:
    """How the analytics file stands against the store."""

    ok: bool
    position: int | None  # notification id the file is up to date with
    store_last: int
    message: str | None


SUMMARY_TEXT = ("event", "p1", "p2", "p1_deck", "p2_deck")  # a summary's free text (security.md, section 4)
STATS_TEXT = ("deck", "player", "event", "decks")  # free text in the statistics' frames (event, player, deck names)


def mask_summary(row: dict[str, Any], catalogs: tuple[Any, ...] = ()) -> dict[str, Any]:
    """``row`` (a match summary) as a seat that is not the judge's sees it: its free text masked (``catalogs``:
    ``all_games_mask``'s)."""
    return {**row, **{k: masked_name(row[k], catalogs) for k in SUMMARY_TEXT if isinstance(row.get(k), str)}}


@functools.lru_cache(maxsize=1 << 16)
def masked_name(text: str, catalogs: tuple[Any, ...] = ()) -> str:
    """``all_games_mask(catalogs)(text)``, remembered: a store's names repeat (10,000 summaries took 1.0 s to
    mask one by one, again after every import; a few distinct events, players and decks)."""
    return all_games_mask(catalogs)(text)


@functools.lru_cache(maxsize=8)
def all_games_mask(catalogs: tuple[Any, ...] = ()) -> Any:
    """A ``Masker`` of every card code and name of every installed game's shipped catalogs, and anything
    shaped like a code: one mask for the list, the statistics and their filters alike (a summary does
    not say which catalog its match was checked with; a statistic may hold several games). ``catalogs``:
    the catalog files given to the command (``zx serve --catalog FILE``, ``zx report --catalog FILE``) that
    stored matches were checked against: their names too."""
    from zx_events import games
    from zx_events.seats import Masker

    words: list[str] = []
    for game in games.all_games():
        for name in game.catalog_names():
            names = game.load_catalog(name, files=False).names
            words += [w for w in (*names, *names.values()) if w not in game.public_names]
    for cat in catalogs:
        public = games.get(cat.game).public_names
        words += [w for w in (*cat.names, *cat.names.values()) if w not in public]
    return Masker(words)


FREE_TEXT_KINDS = ("event", "deck", "player")  # UnknownName kinds whose names are a log's free text


def public_unknown_name(e: Any, catalogs: tuple[Any, ...] = ()) -> Any:
    """``e`` (an ``zx_analytics.stats.UnknownName``) as a seat that is not the judge's reads it: card names
    and codes, archetypes, colours and games are public, the names the filter takes, and suggested as they
    are (masked, a card filter's suggestions were all ``'[card]'``); an event, deck or player name, the
    one asked for included, is masked as the list shows it, and the closest are found among the names as
    listed, so that which one is suggested tells nothing of the text a mask hides."""
    from zx_analytics.stats import UnknownName

    if e.kind not in FREE_TEXT_KINDS:
        return e
    return UnknownName(e.kind, masked_name(e.value, catalogs), sorted({masked_name(k, catalogs) for k in e.known}),
                       e.where, e.none)


HIDDEN_CARD_FIGURES = ("deck_", "gns_", "iwd", "gih_", "oh_", "gd_")  # per-card columns that rest on hidden cards


def seen_cards_only(df: Any, min_games: int) -> Any:
    """``Stats.cards`` as a server (or ``zx report``) without ``--deck-lists`` or ``--judge`` answers it: only
    what every spectator saw. A row for each card played (the game's own public notion, ``card_games.played``:
    Z/X played from hand or Dynamis, or by its IG; X610Z cast, or a crystal cast), with its played figures
    only, ``low_sample`` counted on its played games and the rows sorted by them. A card in a hand is hidden
    from all but its owner (Z/X 301.3c; X610Z 502.3-502.4), so the figures of when a card was in a hand
    (GIH, OH, GD) are left out even for a card later played, as are those that count the deck lists, hidden
    from every seat (301.3: deck, GNS, IWD). Before, a card kept hidden in hand all match was listed, and
    narrowed to one match the rows gave its player's opening hand and draws."""
    import polars as pl

    keep = [c for c in df.columns if not c.startswith(HIDDEN_CARD_FIGURES) and c != "low_sample"]
    df = df.filter(pl.col("played_games") > 0)
    order, descending = ["played_games", "card"], [True, False]
    if "game" in df.columns:  # a frame per game, in the order Stats gave them: each game's rows stay together
        df = df.with_row_index("place").with_columns(pl.col("place").min().over("game"))
        order, descending = ["place", *order], [False, *descending]
    return (df.sort(order, descending=descending).select(keep)
            .with_columns((pl.col("played_games") < min_games).alias("low_sample")))


class Backend:
    def __init__(self, svc: Any, analytics_path: Path, judge: bool = False, deck_lists: bool = False,
                 catalogs: tuple[Any, ...] = ()) -> None:
        self.svc = svc
        # the catalog files given (zx serve --catalog FILE) that stored matches were checked against: a match's views
        # name its cards by the one it pinned (replay.card_names), the list and statistics mask their names too
        self.catalogs = tuple(catalogs)
        self.analytics_path = Path(analytics_path)
        self.judge = judge
        # the per-card figures that rest on hidden cards (hands, deck lists) may be shown (seen_cards_only)
        self.deck_lists = judge or deck_lists
        self.events = EventReader(svc)
        self.cursors = LRU(CURSOR_CACHE)  # matches being viewed: their events read so far and a state
        self.views = LRU(VIEW_CACHE, CACHE_BYTES, ANSWER_BYTES)  # encoded views by (match, at, turn, perspective)
        self.histories = LRU(HISTORY_CACHE)
        self.snapshot_checks = LRU(SNAPSHOT_CACHE)  # replay.snapshot_problems by (match, head, snapshots' SHA-256)
        self.stats_cache = LRU(STATS_CACHE, CACHE_BYTES, ANSWER_BYTES)
        self.replays = LRU(REPLAY_CACHE, CACHE_BYTES, ANSWER_BYTES)  # viewer pages by (match, seat)
        self._names: dict[tuple[Any, Any, Any], Any] = {}
        self.closed = False
        from zx_events.forked import reads_on_threads

        reads_on_threads(self)  # (no import forks its workers while it is open: a thread of it may be inside SQLite)
        self.serving = False  # a server's (zx_web.app.create_app, zx serve), not zx report's: its advice says so
        # the commands its messages advise, as the user typed them (zx_cli.common.with_store: the --store and --analytics
        # of the command line; run as written, `zx analytics update --rebuild` opened the default store): ``advised``
        # in what a visitor reads (the store as store.for_visitors names it), ``told`` in the server's own log
        self.advised: Callable[[str], str] = lambda text: text
        self.told: Callable[[str], str] = lambda text: text
        # what it says is read by visitors (a served page, a shared report): the causes in a library's words (a
        # file's path in libpq's), another store's identity, are left to the terminal and the log (QA round 38);
        # zx serve and zx report say their start-up checks on the terminal first (zx_cli.serve._backend)
        self.visitors = True
        self.warming = False  # the match list and default statistics are being computed (zx_web.app)
        self.stats_limiter: Any = None  # how many statistics are computed at once (zx_web.app sets it)
        self.view_limiter: Any = None  # how many views and steps are computed at once (zx_web.app sets it)
        self.dashboard_limiter: Any = None  # how many dashboards are drawn at once (zx_web.app sets it)
        self._in_turn = dict.fromkeys(MOST_WAITING, 0)  # requests computed or waiting their turn (in_turn)
        self._computing = dict.fromkeys(MOST_WAITING, 0)  # of those, the ones whose turn has come (in_turn)
        self.stopping = False  # the server stops: requests waiting their turn leave the queue (stop_waiting)
        # the watched requests waiting their turn (in_turn): {the cancel scope of its wait: (request, [counted])}
        self._waiting: dict[str, dict[Any, tuple[Any, list[bool]]]] = {what: {} for what in MOST_WAITING}
        self._identity: str | None = None
        # under --follow, the live dashboards drawn last (key -> page, when: at most DRAWN_KEPT, the oldest dropped
        # first), answered while the next is drawn (zx_web.pages.drawn_before), and the keys being drawn anew in the
        # background with their tasks
        self.drawn_pages: "OrderedDict[Any, tuple[str, float]]" = OrderedDict()
        self.redrawing: set[Any] = set()
        self.redraws: set[Any] = set()
        self._summaries: tuple[int, list[dict[str, Any]]] | None = None
        self._listed: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None
        self._masked_names: tuple[list[dict[str, Any]], dict[str, Any]] | None = None
        self._summaries_lock = threading.Lock()
        self._summary_rows: dict[Any, dict[str, Any]] = {}  # by originator id, kept up to date
        self._last_id: tuple[float, int] | None = None
        self._con: Any = None
        self._con_lock = threading.Lock()
        self._projection: tuple[int, str] | None = None
        self._damaged: Any = None  # why the analytics file cannot be read (a DamagedFile), once a read found it damaged
        self._derived: tuple[int, Any] | None = None  # (position, its zx_analytics.derived.Derived of self._con or None)
        self._derived_lock = threading.Lock()
        self._follower: Follower | None = None  # zx serve --follow's updates (follow)
        self._position_lock = threading.Lock()
        self._failed: tuple[float, StoreFailed] | None = None  # when a read of the store last failed (failed_recently)
        self._lost: tuple[float, StoreFailed] | None = None  # when the store's server was last found gone, and the answer
        self._probe_lock = threading.Lock()
        self._connect_timeout = CONNECT_TIMEOUT
        if not self.local:
            self._tune_pool()

    def _tune_pool(self) -> None:
        """Serve's waits on a PostgreSQL store (``POOL_WAIT``, ``CONNECT_TIMEOUT``), unless the store URL or
        the environment gives connect_timeout."""
        from urllib.parse import parse_qsl, urlparse

        store = self.svc.store
        if "POSTGRES_CONNECT_TIMEOUT" in os.environ or "connect_timeout" in dict(parse_qsl(urlparse(store.url).query)):
            self._connect_timeout = int(self.svc.env.get("POSTGRES_CONNECT_TIMEOUT") or 10)
            return
        pool = self.svc.recorder.datastore.pool
        pool.timeout = POOL_WAIT
        pool.kwargs["connect_timeout"] = CONNECT_TIMEOUT

    def interrupt(self) -> None:
        """Interrupt the statements running on the analytics file now (``zx_analytics.db.ctrl_c_interrupts``: a Ctrl-C
        while the main thread waits on one); nothing when the file is not open."""
        with self._con_lock:
            con = self._con
        if con is not None:
            con.interrupt()

    def close(self, wait: float = 10.0) -> None:
        """Close the analytics file and the store, safely at any moment (Ctrl-C during the start-up warming):
        no new statement starts, and the statements running on the analytics file (the warming's, a
        request's) are interrupted until the warming has ended (``zx_web.app``) and DuckDB lets the connection
        close, at most ``wait`` seconds. DuckDB refuses to close a connection one of its cursors runs a
        statement on, and a thread still in DuckDB at interpreter exit aborted the process."""
        with self._con_lock:
            self.closed = True  # _connection() now says "the server is stopping"
            con = self._con
        deadline = time.monotonic() + wait
        if self._follower is not None:  # after the page under way has committed (a page: a second or so)
            self._follower.stop_and_wait(FOLLOW_STOP_WAIT)
        while con is not None or self.warming:
            if con is not None:
                con.interrupt()
                if not self.warming:
                    import duckdb

                    try:
                        con.close()
                        con = self._con = None
                        break
                    except duckdb.Error:  # a statement is still running on one of its cursors
                        pass
            if time.monotonic() >= deadline:  # (a connection DuckDB does not close is left open)
                log.warning("the statistics warming or a request on the analytics file did not end within %.0f s "
                            "of the server's stop: it stops without waiting for them", wait)
                break
            time.sleep(0.02)
        if self._follower is not None and con is None:  # (closed: DuckDB's lock is gone with it)
            from zx_analytics.db import HELD_OPEN

            HELD_OPEN.discard(os.path.realpath(self.analytics_path))
        self.events.close()
        self.svc.close()

    @property
    def local(self) -> bool:
        """Whether the store is read on this machine (a SQLite file, memory): a read is a fraction of a
        millisecond. A PostgreSQL store's is a round trip to its server, and up to the pool's timeout
        when the server is gone."""
        return self.svc.store.kind != "postgres"

    def store_due(self) -> bool:
        """Whether ``freshness()`` reads the store now rather than answering from what it read last."""
        cached = self._last_id
        return self._identity is None or cached is None or time.monotonic() - cached[0] >= STORE_CHECK_SECONDS

    async def off_loop(self, fn: Callable[..., Any], *args: Any, reads: bool = True) -> Any:
        """``fn(*args)`` from the event loop: in a worker thread when it ``reads`` a PostgreSQL store, so the
        loop never waits on the network (with the server gone, every request and Ctrl-C waited behind one
        read for the pool's timeout); in the loop otherwise, where a thread would cost more than the read."""
        if self.local or not reads:
            return fn(*args)
        import anyio.to_thread

        return await anyio.to_thread.run_sync(lambda: fn(*args))

    async def in_turn(self, limiter: Any, fn: Callable[[], Any], what: str, request: Any = None) -> Any:
        """``fn()`` in a worker thread, at most ``limiter``'s tokens at once, the others waiting their turn in order;
        503 (retry after ``BUSY_RETRY_SECONDS``) when ``MOST_WAITING[what]`` already wait. Counted here, in the
        event loop, as each request comes: the limiter counts a request waiting only once ``run_sync`` has let
        the loop run the next ones, which had all been counted too early.
        ``request`` (dashboards, statistics, views and steps): while it waits its turn, a request whose client has
        gone (``is_disconnected``, looked at every ``GONE_POLL`` s, and once more when its turn comes) leaves the
        queue and its count at once, never computed: 17 clients that asked for new dashboards and hung up kept the
        next one refused, then waiting 48-51 s (64 statistics or views asked and abandoned: the next refused as
        busy, then waiting for all of them). So does every waiting one once the server stops (``stop_waiting``),
        answered 503 "the server is stopping": a Ctrl-C waited for all of them (dashboards: 13-30 s, silently). One
        whose turn has come is computed to its end (its answer is kept for the next client who asks); one whose
        turn is there at once is not watched (no task, no poll: most views and statistics)."""
        import anyio
        import anyio.to_thread

        most = MOST_WAITING[what] + (limiter.total_tokens if limiter is not None else 0)
        if self._in_turn[what] >= most and self._waiting[what]:
            await self._drop_gone(what)  # (clients gone since their watch last looked: a reload right after)
        if self._in_turn[what] >= most:
            raise WebError(503, f"the server is busy: {MOST_WAITING[what]} requests for {what} not computed before "
                                f"are waiting their turn; retry in {BUSY_RETRY_SECONDS} seconds",
                           retry_after=BUSY_RETRY_SECONDS)
        self._in_turn[what] += 1
        counted = [True]  # (until _drop_gone has taken it out of the count)
        try:
            if request is None or limiter is None:
                return await anyio.to_thread.run_sync(fn, limiter=limiter)
            turn = False
            try:
                limiter.acquire_nowait()  # a token free and no one waiting (anyio's test): its turn now, nothing to watch
                turn = True
            except anyio.WouldBlock:
                pass
            if not turn:
                turn = await self._wait_turn(limiter, request, what, counted)
            if not turn:
                if self.stopping:
                    raise WebError(503, "the server is stopping")
                raise WebError(503, "the client went away before its turn")  # (no one reads it)
            self._computing[what] += 1
            try:
                return await anyio.to_thread.run_sync(fn)  # (the token taken above bounds these threads)
            finally:
                self._computing[what] -= 1
                limiter.release()
        finally:
            if counted[0]:
                self._in_turn[what] -= 1

    async def _wait_turn(self, limiter: Any, request: Any, what: str, counted: list[bool]) -> bool:
        """``in_turn``'s wait for a token of ``limiter``, watching the client of ``request``: True with the token taken,
        False (no token held) when the client went away or the server stops first."""
        import anyio

        turn = False
        scope = None
        try:
            async with anyio.create_task_group() as tg:  # (its turn, or its client gone: whichever comes first)
                async def watch() -> None:
                    while not self.stopping and not await request.is_disconnected():
                        await anyio.sleep(GONE_POLL)
                    tg.cancel_scope.cancel()

                scope = tg.cancel_scope
                self._waiting[what][scope] = (request, counted)
                tg.start_soon(watch)
                await limiter.acquire()  # (in order of arrival; cancelled: out of the queue, no token held)
                self._waiting[what].pop(scope, None)  # (its turn: _drop_gone leaves it)
                turn = True
                tg.cancel_scope.cancel()
            if turn and (self.stopping or await request.is_disconnected()):  # (gone since watch last looked)
                limiter.release()
                turn = False
            return turn
        finally:
            self._waiting[what].pop(scope, None)

    async def _drop_gone(self, what: str) -> None:
        """The waiting requests for ``what`` whose clients have gone leave its count now, and its queue as soon as
        their tasks run (``in_turn``): a client that hung up and asked again at once was refused as busy, its
        earlier request still counted until its watch looked again."""
        for scope, (request, counted) in list(self._waiting[what].items()):
            if await request.is_disconnected() and self._waiting[what].pop(scope, None) is not None:
                counted[0] = False
                self._in_turn[what] -= 1
                scope.cancel()

    def stop_waiting(self) -> None:
        """The server stops (zx_web.app, at its first SIGINT or SIGTERM; called in the event loop): the dashboards
        waiting their turn leave the queue (``in_turn``), and when the stop still waits for one being drawn, one
        line on stderr says so (a Ctrl-C with dashboards queued waited 13-30 s and printed nothing)."""
        if self.stopping:
            return
        self.stopping = True
        if self._computing["dashboards"]:
            waiting = self._in_turn["dashboards"] - self._computing["dashboards"]
            log.warning("zx serve: stopping once the dashboard being drawn is done (a few seconds)%s",
                        f"; the {waiting} waiting their turn are dropped" if waiting else "")

    @property
    def store_lost(self) -> bool:
        """Whether the last read of the store failed for want of its server (``store_reachable`` then checks)."""
        return self._lost is not None

    def store_reachable(self) -> None:
        """Before a request reads a store whose server was lost (a read failed for want of it): one connection
        attempt, made by one request at a time and at most once in ``STORE_RETRY_SECONDS``; while none can be
        made, raises ``StoreFailed`` (503) at once, where a read would wait seconds for the pool; once the
        server answers, the reads go on as before."""
        if self._lost is None:
            return
        with self._probe_lock:
            lost = self._lost
            if lost is None:
                return
            if time.monotonic() - lost[0] >= STORE_RETRY_SECONDS:
                from zx_events.store import connect_postgres

                try:
                    connect_postgres({**self.svc.store.env,
                                      "POSTGRES_CONNECT_TIMEOUT": str(self._connect_timeout)}).close()
                except Exception as e:  # noqa: BLE001 - psycopg's error, said in the answer
                    lost = self._lost = (time.monotonic(), self.store_error(e))
                else:
                    self._lost = None
                    return
        raise StoreFailed(lost[1].status, lost[1].message, logged=lost[1].logged)

    def store_error(self, e: BaseException) -> "StoreFailed":
        """The answer to a request under which the store failed (``store_failure(e)``): ``503`` naming the
        store (never its password) when its server cannot be reached (``store_reachable`` checks before the
        next reads), the server itself running on and reading the store again once it answers; ``500``
        naming it otherwise (a damaged file)."""
        import sqlite3

        from zx_events.store import redacted

        from zx_events.store import StoreFailure

        if isinstance(e, StoreFailed):
            return e
        if isinstance(e, StoreFailure) and e.cause is not None:  # the store's own error, told as the server tells it
            e = e.cause
        store = self.svc.store
        detail = redacted(" ".join(str(e).split()), store.url) or type(e).__name__
        persistence = sys.modules.get("eventsourcing.persistence")
        lost = persistence is not None and isinstance(e, (persistence.OperationalError, persistence.InterfaceError))
        psycopg = sys.modules.get("psycopg")
        lost = lost or (psycopg is not None and isinstance(e, (psycopg.OperationalError, psycopg.InterfaceError)))
        lost = lost or isinstance(e, sqlite3.OperationalError)
        if store.kind == "postgres" and lost:
            said = ("is its PostgreSQL server down or out of reach? This server keeps running and reads the store "
                    "again once it answers")
            error = StoreFailed(503, f"the store {store.label} cannot be reached: {said}",
                                logged=f"the store {store.label} cannot be reached ({detail}): {said}")
            self._lost = (time.monotonic(), error)
            return error
        if lost:
            return StoreFailed(503, f"the store {store.label} cannot be read now; this server keeps running",
                               logged=f"the store {store.label} cannot be read now ({detail}); this server keeps "
                                      f"running")
        advice = " (is it damaged? `zx verify` checks it)" if store.kind == "sqlite" else ""
        error = StoreFailed(500, f"the store {store.label} failed to be read{advice}",
                            logged=f"the store {store.label} failed: {type(e).__name__}: {detail}{advice}")
        self._failed = (time.monotonic(), error)
        return error

    def failed_recently(self) -> "StoreFailed | None":
        """The answer of the last read of the store that failed (not for want of its server: ``store_reachable``
        tells that), if within ``STORE_FAILED_SECONDS``: ``/api/status`` says it (``store_ok: false``)."""
        failed = self._failed
        return failed[1] if failed is not None and time.monotonic() - failed[0] <= STORE_FAILED_SECONDS else None

    def names(self, match: Any) -> Any:
        """``replay.names_for(match)``, built once per catalog (name and digest)."""
        from zx_events import replay

        ref = match.catalog or {}
        key = (type(match), ref.get("name"), ref.get("sha256"))
        cn = self._names.get(key)
        if cn is None:
            cn = self._names[key] = replay.names_for(match, self.catalogs)
        return cn

    # ------------------------------------------------------------------ the store
    def store_last_id(self, fresh: bool = False) -> int:
        """The store's last notification id (re-read at most once a second; ``fresh``: now, as ``/api/status``
        gives it beside the analytics' position, which ``--follow`` may have moved past the second-old one)."""
        now = time.monotonic()
        cached = self._last_id
        if not fresh and cached is not None and now - cached[0] < STORE_CHECK_SECONDS:
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

    def listed(self) -> list[dict[str, Any]]:
        """The match summaries a request may see (the list, its search and filters): as stored on a judge's
        server; on any other, card codes and names in the event, player and deck names replaced by
        ``[card]``, as on the match page (docs/security.md, section 4). They were shown as written, and
        the search found a match by the hidden text (``?q=U01-009``)."""
        rows = self.summaries()
        if self.judge:
            return rows
        cached = self._listed
        if cached is not None and cached[0] is rows:
            return cached[1]
        masked = [mask_summary(r, self.catalogs) for r in rows]
        self._listed = (rows, masked)
        return masked

    def mask_names(self, df: Any, method: str = "", by: str | None = None) -> Any:
        """A statistic's frame as a seat that is not the judge's sees it: the event, player and deck
        names in it masked as in the match list (``listed``); archetype and colour labels are ours, not
        free text, and card names are the catalog's."""
        import polars as pl

        columns = [c for c in df.columns if c in STATS_TEXT or (c == "opponent" and method == "matchups"
                                                                  and (by or "deck") == "deck")]
        if not columns or not df.height:
            return df
        return df.with_columns(pl.col(c).map_elements(self.masked_name, return_dtype=pl.String) for c in columns)

    def masked_name(self, text: str) -> str:
        """``masked_name(text)`` with this server's catalog files (``catalogs``)."""
        return masked_name(text, self.catalogs)

    def unmask(self, params: dict[str, Any]) -> dict[str, Any]:
        """Filters as a seat that is not the judge's gives them: a masked name (``Finals [card]``, as the
        list and the dashboard show it) stands for the name it masks; a name that shows hidden text is
        not one of this server's (400, as an unknown name: it cannot be used to test a guess)."""
        if self.judge:
            return params
        out = dict(params)
        for key, kind in (("event", "event"), ("deck", "deck"), ("opp_deck", "deck"), ("player", "player"),
                          ("opponent", "player")):  # (opponent was left out: a hidden name stored answered its
            # figures, a wrong guess 400, QA round 37)
            value = params.get(key)
            if not value:
                continue
            shown, hidden = self._name_index()[kind]
            raws = shown.get(value)
            if raws is None:
                masked = self.masked_name(value)
                raws = shown.get(self.shown_name(value, masked))
            if raws is None:
                # a name with hidden text in it (a card's code or name): one answer whether or not it is a stored
                # one (a stored one was answered "names are shown masked", a wrong guess "did you mean ...": a
                # seat could try the codes of a colour until the answer changed)
                if value in hidden or masked != value:
                    raise WebError(400, f"no {kind} named {self.masked_name(value)!r} (names are shown masked "
                                        f"outside the judge's view: use them as listed)")
                continue
            if len(raws) > 1:
                raise WebError(400, f"{key} {value!r} stands for {len(raws)} {kind} names outside the judge's view: "
                                    f"it cannot pick one of them (the judge's view shows each)")
            out[key] = raws[0]
        return out

    def shown_name(self, value: str, masked: str | None = None) -> str:
        """A filter's name as the list shows it when its mask (``masked``) drops its bidirectional controls and
        nothing else: it hides no card, and stands for its shown form (a name as stored, as a user copies it
        from a log, was refused: round 33's QA); any other ``value`` as given."""
        masked = self.masked_name(value) if masked is None else masked
        return masked if masked != value and masked == freetext.BIDI_CONTROLS.sub("", value) else value

    def _name_index(self) -> dict[str, tuple[dict[str, list[str]], set[str]]]:
        """Per kind of name (event, deck, player) of the stored matches: the masked name -> the names it
        masks, and the names the mask changes."""
        rows = self.summaries()
        cached = self._masked_names
        if cached is not None and cached[0] is rows:
            return cached[1]
        mask = self.masked_name
        out: dict[str, tuple[dict[str, list[str]], set[str]]] = {}
        for kind, keys in (("event", ("event",)), ("deck", ("p1_deck", "p2_deck")), ("player", ("p1", "p2"))):
            raw = {r[k] for r in rows for k in keys if isinstance(r.get(k), str)}
            shown: dict[str, list[str]] = {}
            for name in sorted(raw):
                shown.setdefault(mask(name), []).append(name)
            out[kind] = (shown, {n for n in raw if mask(n) != n})
        self._masked_names = (rows, out)
        return out

    def history(self, match_id: str) -> Any:
        """The decoded events of a stored match grouped into steps (``replay.History``); 404 when unknown."""
        from zx_events import replay

        def load() -> Any:
            cursor = self.cursor(match_id)
            with cursor.lock:
                events = cursor.all_events()
            return replay.history_of(match_id, tuple(events), self.catalogs)

        return self.histories.get(match_id, load)

    def verdict(self, match_id: str, rows: Any = None) -> Any:
        """What ``zx verify MATCH`` says of a stored match now: its chain and the store seal (``rows``: its
        ``integrity.stored_rows`` when read already), then its replay snapshots (``snapshot_problems``, cached)."""
        from zx_events.ids import match_uuid
        from zx_events.ledger import match_verdict
        from zx_events.replay import snapshot_verdict

        verdict = match_verdict(self.svc, match_id, match_uuid(match_id), rows=rows)
        return snapshot_verdict(self.svc, verdict, self.snapshot_problems(match_id, verdict.head) if verdict.ok else None)

    def snapshot_problems(self, match_id: str, head: str | None) -> list[str]:
        """``replay.snapshot_problems``: where the stored replay snapshots of a match (views are built from
        them) disagree with its events, as ``zx verify`` finds it. That replays the whole match (2 ms for 180
        events); the answer is kept by the match's ``head`` and the SHA-256 of its snapshot rows, so asked
        again it costs one read of its snapshots, and a snapshot altered since is checked again."""
        import hashlib

        from zx_events import replay

        snaps = replay.stored_snapshot_rows(self.svc, match_id)
        if not snaps:
            return []
        digest = hashlib.sha256()
        for s in snaps:
            state = bytes(s.state)
            digest.update(b"%d %d %d " % (s.originator_version, len(s.topic), len(state)))
            digest.update(s.topic.encode("utf-8") + state)
        return self.snapshot_checks.get((match_id, head, digest.digest()),
                                        lambda: replay.snapshot_problems(self.svc, match_id, snaps))

    def cursor(self, match_id: str) -> "Cursor":
        """The match's ``Cursor`` (its events read so far and a state walked along them), cached; 404 when
        the match is not stored."""
        from zx_events import replay

        def make() -> Cursor:
            try:
                return Cursor(self.events, match_id, self.names)
            except replay.UnknownMatch as e:
                raise WebError(404, e.message) from None

        return self.cursors.get(match_id, make)

    def view_json(self, match_id: str, perspective: str, at: int | None = None, turn: int | None = None) -> bytes:
        """The state after event ``at`` (or at the start of ``turn``; default: the end) as ``perspective``
        sees it, as JSON: exactly ``zx replay MATCH --event N --as SEAT --format json``.

        A view of a stored match never changes, so the encoded answer is kept (``VIEW_CACHE`` of them,
        ``CACHE_BYTES`` at most). Otherwise the match's cursor reads only the events it has not read yet,
        up to ``at``, and walks its state forward to it (stepping through a match costs one event a step);
        a step back replays from the first event."""
        from zx_events import replay

        key = (match_id, at, turn, perspective)
        hit = self.views.peek(key)
        if hit is not None:
            return hit
        cursor = self.cursor(match_id)
        with cursor.lock:
            try:
                seq = cursor.turn_seq(turn) if turn is not None else cursor.check_seq(at) if at is not None else cursor.last
            except replay.OutOfRange as e:
                raise WebError(400, e.message) from None
            body = json_escaped_bytes(cursor.view(seq, perspective).json_bytes())  # (app_json)
        self.views.put(key, body)
        return body

    async def view(self, match_id: str, perspective: str, at: int | None = None, turn: int | None = None,
                   request: Any = None) -> bytes:
        """``view_json`` from the event loop: a view kept is answered at once; any other is computed in a
        worker thread, at most ``view_limiter`` at once (the others wait their turn), never in the loop. In
        the loop, one client asking for views of matches named with 220,000 characters (1.5 s each) held every
        other request of the server; a view is also a store's read, a round trip to a PostgreSQL server."""
        hit = self.views.peek((match_id, at, turn, perspective))
        if hit is not None:
            return hit
        return await self.in_turn(self.view_limiter, lambda: self.view_json(match_id, perspective, at=at, turn=turn),
                                  "views", request)

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
        from zx_analytics.db import AnalyticsError, Interruptible, connect_reader

        with self._con_lock:
            if self.closed:
                raise WebError(503, "the server is stopping")
            if self._con is None:
                try:
                    if self._follower is not None:  # the instance the follower's updates write through
                        self._con = Interruptible(connect_shared(self.analytics_path))
                    else:
                        self._con = Interruptible(connect_reader(self.analytics_path))  # (close interrupts it)
                except AnalyticsError as e:  # (no file: the update it advises, with the --store typed)
                    raise WebError(503, self.advised(self._said(e))) from None
                self._projection = None
                self._derived = None  # they were the closed connection's
                self.stats_cache.clear()
            return self._con

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Around a read of the analytics file: DuckDB's error that it is damaged (cut short, overwritten:
        ``zx_analytics.db.damaged``; DuckDB finds a block missing or failing its checksum only when a statement
        reads it) is a ``503`` with ``zx stats``'s words (``DamagedFile``: what to run), and from then on
        ``projection`` answers it (/api/status and every statistic say so): nothing can mend the file under
        this read-only connection. It was a ``500`` "internal error (IOException)" with a traceback in the
        server's log, /api/status's included."""
        from zx_analytics.db import DamagedFile, damaged

        try:
            yield
        except Exception as e:
            if not damaged(e):
                raise
            self._damaged = DamagedFile(self.analytics_path, e)
            raise WebError(503, self._damaged_text()) from None

    def _damaged_text(self) -> str:
        """The answer of a damaged analytics file (``reading``), worded when it is given: a visitor's advice names the
        store by ``store.for_visitors`` and leaves DuckDB's words out, the terminal's (zx serve's start-up, zx report)
        keeps both (it was worded once, at the first read: zx serve's start-up read gave every visitor the terminal's,
        the store's connection parameters in it, QA round 38)."""
        return self._update_advice(self._said(self._damaged))

    def _said(self, e: Exception) -> str:
        """``e`` (an ``AnalyticsError``) in words for this backend's reader: a visitor's without DuckDB's of a
        ``DamagedFile`` (its cause: the terminal's and the operator's)."""
        from zx_analytics.db import DamagedFile

        text = str(e)
        if self.visitors and isinstance(e, DamagedFile) and e.cause:
            text = text.replace(f" ({e.cause})", "", 1)
        return text

    def projection(self) -> tuple[int, str]:
        """(position, store identity) of the analytics file."""
        from zx_analytics.db import SCHEMA_VERSION, stored_version, version_refused

        con = self._connection()
        if self._damaged is not None:
            raise WebError(503, self._damaged_text())
        if self._projection is None:
            cur = con.cursor()
            try:
                with self.reading():
                    version = stored_version(cur)
                    if version != SCHEMA_VERSION:
                        raise WebError(503, self._update_advice(version_refused(self.analytics_path, version, con=cur)))
                    row = cur.execute("SELECT position, store FROM projection_position").fetchall()
            finally:
                cur.close()
            if not row:
                raise WebError(503, self._update_advice(f"{self.analytics_path} is empty: run `zx analytics update`"))
            read = (int(row[0][0]), str(row[0][1]))
            with self._position_lock:  # (follow: the follower may have set a later one meanwhile: the position
                held = self._projection  # only moves on, and an answer kept at an older one is never served)
                if held is None or read[0] > held[0]:
                    self._projection = read
        return self._projection

    @property
    def following(self) -> bool:
        """Whether this server keeps its analytics file up to date itself (``zx serve --follow``)."""
        return self._follower is not None

    def remember_drawn(self, key: Any, page: str) -> None:
        """Keep the live dashboard ``page`` of ``key`` (``drawn_pages``)."""
        import time

        self.drawn_pages[key] = (page, time.monotonic())
        self.drawn_pages.move_to_end(key)
        while len(self.drawn_pages) > DRAWN_KEPT:
            self.drawn_pages.popitem(last=False)

    def follow(self, interval: float = FOLLOW_INTERVAL, say: Callable[[str], None] = log.warning,
               catalogs: tuple[Any, ...] = ()) -> None:
        """Start ``zx serve --follow``'s follower (``Follower``): from here the analytics file is opened read-write
        and kept up to date with the store while the server runs; ``say``: its progress and its errors;
        ``catalogs``: the catalog files of ``--catalog`` (``zx_analytics.follow.follow``'s)."""
        with self._con_lock:
            if self._con is not None:  # a read-only connection of before: the follower's instance replaces it
                self._con.close()
                self._con, self._projection, self._derived = None, None, None
            self._follower = Follower(self, interval, say, catalogs)
        self._connection()  # before the follower's first update: its instance, which the update then shares
        self._follower.thread.start()

    def moved(self, position: int) -> None:
        """The follower committed the file up to ``position``: the statistics are answered there from now on
        (every cached answer is keyed by the position), in the requests' settings again."""
        from zx_analytics.projection import store_identity

        con = self._con
        if con is not None:
            try:
                cur = con.cursor()  # (the connection itself is never used by two threads at once)
                try:
                    for setting in READ_SETTINGS:
                        cur.execute(setting)
                finally:
                    cur.close()
            except Exception:  # noqa: BLE001 - closing: nothing more is read
                pass
        try:
            identity = store_identity(self.svc)
        except Exception:  # noqa: BLE001 - (the store's server lost for the 2 s of its retries: the identity held, as
            identity = (self._projection or (None, self._identity))[1]  # the follower goes on, QA round 37)
        with self._position_lock:
            held = self._projection
            if held is None or position > held[0]:
                self._projection = (position, identity)

    def _update_advice(self, text: str) -> str:
        """``text`` (advice to run an analytics update) as this server or report gives it: with the --store typed
        (``advised``), and, a running server, saying to stop it first: it holds the file open as long as it runs,
        so the update it advises fails until the server stops (``zx report`` holds it only a moment)."""
        if self.serving:
            text = f"{text} (stop this server first: it holds the file open as long as it runs; then start it again)"
        return self.advised(text)

    def freshness(self) -> Freshness:
        from zx_analytics.projection import same_store, store_identity

        position, built_from = self.projection()
        last = self.store_last_id()
        if self._identity is None:
            from eventsourcing.persistence import InterfaceError, OperationalError

            from zx_analytics.db import first_line

            try:  # (a connection lost is tried again inside: a lost server is no identity to keep, QA round 37)
                self._identity = store_identity(self.svc)
            except (InterfaceError, OperationalError) as e:
                cause = "" if self.visitors else f" ({first_line(e)})"
                return Freshness(False, position, last, f"the store's server could not be reached to tell whether "
                                                        f"the analytics file is its own{cause}: try again")
        if not same_store(built_from, self._identity, self.svc):
            # (a visitor is not told the other store: its path, or its PostgreSQL server's system identifier)
            other = "another store" if self.visitors else built_from
            return Freshness(False, position, last, self._update_advice(
                f"{self.analytics_path} was built from {other}, not from this store: run `zx analytics update "
                f"--rebuild`"))
        follower = self._follower
        if follower is not None and follower.error is not None:
            if self.visitors:  # (the error and what to run are the operator's: the server's log has them)
                return Freshness(False, position, last, f"the analytics stopped following the store at notification "
                                                        f"{position} of {last} (the server's log says why); the "
                                                        f"statistics answer again once this server is started again")
            return Freshness(False, position, last, self._update_advice(
                f"the analytics stopped following the store at notification {position} of {last}: {follower.error}"))
        if follower is not None:  # answered at the position committed last; the follower catches up
            behind = max(0, last - position)
            return Freshness(True, position, last, "following the store (zx serve --follow): " + (
                f"{behind:,} notification{'s' if behind != 1 else ''} behind, projecting them now" if behind
                else "up to date"))
        if position < last:
            # a server holds the file as long as it runs, and the update cannot write it meanwhile ("run zx analytics
            # update, then restart zx serve" failed while it ran); zx report holds it only while it draws
            # (with --workers N, --update: --follow needs one server process, the file's one writer)
            workers = bool(os.environ.get("ZX_SERVE_SUPERVISOR"))  # (zx_web.app.ENV_SUPERVISOR: a worker process's)
            todo = ("run `zx analytics update`" if not self.serving else
                    "stop this server, run `zx analytics update`, then start it again (or stop it and start it with "
                    "`zx serve --update`, which does both)" if workers else
                    "stop this server, run `zx analytics update`, then start it again (or stop it and start it with "
                    "`zx serve --follow`, which brings the file up to date and keeps it so while it serves: the "
                    "matches imported meanwhile are counted within seconds)")
            return Freshness(False, position, last, self.advised(f"the analytics are behind the store (notification "
                                                                 f"{position} of {last}): {todo}"))
        return Freshness(True, position, last, None)

    def stats(self, method: str, kwargs: dict[str, Any], min_games: int) -> Any:
        """``zx_analytics.stats.Stats.<method>(**kwargs)`` as a Polars frame; 503 when the analytics are
        missing or behind the store."""
        from zx_analytics.stats import Stats, UnknownName

        fresh = self.freshness()
        if not fresh.ok:
            raise WebError(503, fresh.message or "the analytics file cannot be used")
        key = (fresh.position, method, tuple(sorted(kwargs.items())), min_games)

        def run() -> Any:
            derived = self.derived(fresh.position)
            cur = self._connection().cursor()  # one DuckDB connection per request thread
            try:
                with self.reading():
                    df = getattr(Stats(cur, min_games=min_games, derived=derived), method)(**self.unmask(kwargs))
                df = df if self.deck_lists or method != "cards" else seen_cards_only(df, min_games)
                return df if self.judge else self.mask_names(df, method, kwargs.get("by"))
            except UnknownName as e:  # a name the file has never seen
                raise WebError(400, str(e) if self.judge else str(public_unknown_name(e, self.catalogs))) from None
            except ValueError as e:  # a date, a seat
                raise WebError(400, str(e) if self.judge else all_games_mask(self.catalogs)(str(e))) from None
            finally:
                cur.close()

        return self.stats_cache.get(key, run)

    def derived(self, position: int) -> Any:
        """The derived tables (``zx_analytics.derived.Derived``) of the open connection at analytics position
        ``position``: built on first use, in memory (the file is never written), and built again for
        another position. None when they could not be built: the statistics then read the file's own
        tables, with the same answers."""
        from zx_analytics.derived import build

        held = self._derived
        if held is not None and held[0] == position:
            return held[1]
        with self._derived_lock:
            held = self._derived
            if held is not None and held[0] == position:
                return held[1]
            cur = self._connection().cursor()
            try:
                try:
                    with self.reading():  # a damaged file: its 503 (the file's own tables are the same file's)
                        new = build(cur, position)
                    log.info("derived statistics tables built at analytics position %s in %.2f s", position,
                             new.seconds)
                except WebError:
                    raise
                except Exception as e:  # noqa: BLE001 - the statistics are still answered, only slower
                    if not self.closed:  # (else interrupted by close(): nothing went wrong)
                        log.warning("the derived statistics tables could not be built (%s): the statistics read "
                                    "the analytics file's own tables", e)
                    new = None
                self._derived = (position, new)
                if held is not None and held[1] is not None:  # another position of the same connection
                    try:
                        held[1].drop(cur)
                    except Exception:  # noqa: BLE001 - a statistic still reading them: they go with the connection
                        pass
            finally:
                cur.close()
            return new

    def query(self, key: Any, make: Callable[[Any], Any]) -> Any:
        """Any other read of the analytics file (the dashboard's own queries), cached like stats."""
        def run() -> Any:
            cur = self._connection().cursor()
            try:
                with self.reading():
                    return make(cur)
            finally:
                cur.close()

        return self.cached(key, run)

    def peek_cached(self, key: Any) -> Any:
        """What ``cached(key, ...)`` holds, or None; 503 when the analytics are missing or behind."""
        fresh = self.freshness()
        if not fresh.ok:
            raise WebError(503, fresh.message or "the analytics file cannot be used")
        return self.stats_cache.peek((fresh.position, *key))

    def cached(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()`` computed from the analytics file (e.g. a drawn dashboard), cached while the file
        stands; 503 when the analytics are missing or behind the store."""
        fresh = self.freshness()
        if not fresh.ok:
            raise WebError(503, fresh.message or "the analytics file cannot be used")
        return self.stats_cache.get((fresh.position, *key), make)
