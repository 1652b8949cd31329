"""Match summaries: one row per stored match (id, date, event, players, decks, turns, winner,
violations, game), built from the notifications of four kinds of event read without their classes.

``update`` is the one fold, used by ``MatchService.update_summaries`` (``zx serve``'s match list,
the Python API) over the recorder's notifications. ``read_sqlite`` folds the same rows read with
read-only statements straight from a SQLite store's file, so ``zx matches`` neither imports
``eventsourcing`` (about a fifth of its start-up, issue 20 target 4) nor opens the application.
It takes that path only where it reads exactly what the application would: a SQLite file with
this package's table, no cipher or compressor configured, and every payload the canonical JSON the
importer writes (0.2 and later); anything else (a store written by 0.1.0, whose payloads are
eventsourcing's transcoder JSON) gives None and the caller asks the application.

Both read a SQLite store through two partial indexes (``INDEXES``) where it has them, as ``zx import``
gives it (``MatchService.index_summaries``): every Started, MatchEnded and ViolationRecorded event, and
of each match only its last TurnStarted (both engines number a match's turns 1, 2, 3, ... whatever its
records say, a violation or not, so its last is its greatest; 0.1.0's did too). Without
them (a store no import of round 33 or later has written) every event is read to find those: at
130,000 matches 10.6-13.4 s against 3.4-3.9 s (docs/architecture.md, "Stored data does not move").
"""

from __future__ import annotations

import heapq
import os
import sqlite3
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator
from uuid import UUID

import orjson

from zx_events import games
from zx_events.ids import filed_under

# every game's events of these kinds (zx.match:Started, x610z.match:Started, ...)
TOPICS_STARTED = games.topics("Started")
TOPICS_TURN = games.topics("TurnStarted")
TOPICS_ENDED = games.topics("MatchEnded")
TOPICS_VIOLATION = games.topics("ViolationRecorded")
TOPICS = (*TOPICS_STARTED, *TOPICS_TURN, *TOPICS_ENDED, *TOPICS_VIOLATION)

# The partial indexes through which a SQLite store's summaries are read (``indexed_notes``): "heads", the events a
# summary is made of but TurnStarted, keyed by topic; "turns", the key of every TurnStarted with its topic, so that
# each match's last is found in the index alone. Their conditions name every registered game's topics, compared one
# by one (a kind taken out of the topic, or an IN list, cost an import 2.9 us an event, these 0.5: measured on
# 300,000 events); the names end with a digest of the conditions, so that a release with another set of games makes
# its own (``create_indexes`` drops the others). Made by every import; a store without them is read whole.
def _fnv1a(text: str) -> str:
    """A 32-bit FNV-1a digest of ``text``, in hex (hashlib loads two modules ``zx matches`` does without)."""
    h = 0x811C9DC5
    for b in text.encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def _either(topics: tuple[str, ...]) -> str:
    assert all(t.replace(".", "").replace(":", "").replace("_", "").isalnum() for t in topics)  # (quoted as they are)
    return "(" + " OR ".join(f"topic = '{t}'" for t in topics) + ")"


HEADS_WHERE = _either((*TOPICS_STARTED, *TOPICS_ENDED, *TOPICS_VIOLATION))
TURNS_WHERE = _either(TOPICS_TURN)
_TAG = _fnv1a(f"{HEADS_WHERE} {TURNS_WHERE}")
HEADS_INDEX, TURNS_INDEX = f"zx_summary_heads_{_TAG}", f"zx_summary_turns_{_TAG}"
INDEXES = {
    HEADS_INDEX: f"ON stored_events(topic) WHERE {HEADS_WHERE}",
    TURNS_INDEX: f"ON stored_events(originator_id, originator_version, topic) WHERE {TURNS_WHERE}",
}
INDEX_PREFIX = "zx_summary_"

# eventsourcing settings that change how payloads are stored (as ENV or APPNAME_ENV)
_CODEC_SETTINGS = ("CIPHER_TOPIC", "COMPRESSOR_TOPIC")


def update(rows: dict[Any, dict[str, Any]], notes: Iterable[tuple[int, Any, str, bytes]],
           fields: Callable[[bytes], dict[str, Any]]) -> int | None:
    """Fold ``notes`` ((notification id, originator id, topic, stored payload), in log order, of the
    ``TOPICS`` only) into ``rows`` (summaries by originator id); returns the last id read (None if
    none). ``fields`` decodes a payload to its stored fields.

    Of a match's TurnStarted events only its last counts (its turn, or the match damaged when it cannot be
    read): what ``indexed_notes`` reads of them, so that a store's list is the same read whole or through
    the indexes, whatever was edited in it (every TurnStarted was read here, the greatest turn taken and
    any unreadable one making the match damaged; through the indexes only the last: QA round 33). The
    list is no check of the events: ``zx verify`` reads and checks every one."""
    last = None
    started, turn, ended = set(TOPICS_STARTED), set(TOPICS_TURN), set(TOPICS_ENDED)
    last_turns: dict[Any, tuple[str, bytes]] = {}
    for nid, oid, topic, state in notes:
        last = nid
        if topic in turn:
            last_turns[oid] = (topic, state)  # (read once all are in: its last)
            continue
        try:
            if topic in started:
                e = fields(state)
                if not filed_under(e["match_id"], oid):  # not where zx import files it: a copy, or a forgery
                    damaged(rows, oid, topic)
                    continue
                h = e["header"]
                pl = h["players"]
                rows[oid] = {
                    "match": e["match_id"], "played_at": h.get("played_at"), "event": h.get("event"),
                    "p1": pl["P1"].get("name"), "p2": pl["P2"].get("name"),
                    "p1_deck": pl["P1"].get("deck_name"), "p2_deck": pl["P2"].get("deck_name"),
                    "turns": 0, "winner": None, "reason": None, "violations": 0,
                    "game": games.topic_key(topic),
                }
                continue
            row = rows.get(oid)
            if row is None:
                continue
            if topic in ended:
                e = fields(state)
                if row["reason"] != DAMAGED:
                    row["winner"], row["reason"] = e["winner"], e["reason"]
                    if e.get("how"):  # (Z/X, digest.13: how a loser's last Life card went where it was no
                        row["how"] = e["how"]  # damage, as the outcome has it; absent from older events and rows)
            else:
                row["violations"] += 1
        except _NotCanonical:  # (read_sqlite: the application decodes this store's payloads)
            raise
        except Exception:  # a payload edited in the store: the match is listed by its stored id, as damaged
            damaged(rows, oid, topic)
    for oid, (topic, state) in last_turns.items():
        row = rows.get(oid)
        if row is None:
            continue
        try:
            row["turns"] = max(row["turns"], fields(state)["turn"])
        except _NotCanonical:
            raise
        except Exception:
            damaged(rows, oid, topic)
    return last


# the reason of a match whose stored events cannot all be read, or filed where zx import would not file it (a
# copy of another match's events, which listed it twice under one name): zx verify names the damage
DAMAGED = "damaged"


def damaged(rows: dict[Any, dict[str, Any]], oid: Any, topic: str) -> None:
    row = rows.get(oid)
    if row is None:
        try:
            name = str(oid if isinstance(oid, UUID) else UUID(str(oid)))
        except ValueError:  # an id zx never writes (a row's edited in the store): its text (zx verify: forged)
            name = str(oid)
        row = rows[oid] = {"match": name, "played_at": None,
                           "event": None, "p1": None, "p2": None, "p1_deck": None, "p2_deck": None, "turns": 0,
                           "winner": None, "reason": None, "violations": 0, "game": games.topic_key(topic)}
    row["winner"], row["reason"] = None, DAMAGED


class _NotCanonical(Exception):
    """A payload that is not the importer's canonical JSON: the application must decode it."""


def _canonical_fields(state: bytes) -> dict[str, Any]:
    try:
        d = orjson.loads(state)
    except orjson.JSONDecodeError:
        raise _NotCanonical from None
    if type(d) is not dict or "originator_version" not in d:
        raise _NotCanonical
    return d


def read_sqlite(config: Any, first: int | None = None) -> list[dict[str, Any]] | None:
    """The summaries of a SQLite store (``zx_events.store.StoreConfig``, already checked by
    ``resolve_store``), read on a read-only connection to its file; None where only the application
    can read them (see the module's text). ``first``: at least the first matches of the list, so many
    (``zx matches --limit N`` without filters: read match by match, up to ``FIRST_MAX``, where the store
    has the indexes; at 130,000 matches 0.1 s instead of 3.5)."""
    from zx_events.store import ReadConnections, connect_read

    uri = ReadConnections.uri_of(config) if config.kind == "sqlite" else None
    if uri is None or any(k.endswith(_CODEC_SETTINGS) for k in (*os.environ, *config.env)):
        return None
    try:
        con = connect_read(uri)
    except sqlite3.Error:
        return None
    try:
        rows: dict[Any, dict[str, Any]] = {}
        if first is not None and first <= FIRST_MAX and has_indexes(con):
            con.execute("BEGIN")  # (one state of the store)
            notes = _first_notes(con, first)
            try:
                update(rows, notes, _canonical_fields)
            finally:
                notes.close()
                con.execute("COMMIT")
            return list(rows.values())
        read = indexed_notes(con)
        if read is None:
            update(rows, con.execute(f"SELECT rowid, originator_id, topic, state FROM stored_events WHERE topic IN "
                                     f"({_marks(TOPICS)}) ORDER BY rowid", TOPICS), _canonical_fields)
        else:
            try:
                update(rows, read[0], _canonical_fields)
            finally:
                read[0].close()  # (its transaction ended before the connection closes, also after _NotCanonical)
        return list(rows.values())
    except (sqlite3.Error, _NotCanonical):
        return None  # no events table (the file replaced since it was checked), or payloads the application decodes
    finally:
        con.close()


_first = itemgetter(0)
FIRST_MAX = 1_000  # read_sqlite(first=N): matches read one by one (all of each one's events); more: the list's way


def _first_notes(con: sqlite3.Connection, n: int) -> Iterator[tuple[int, Any, str, bytes]]:
    """The notes of the first ``n`` matches in log order: the ids of the first ``n`` matches with a Started event
    (each game's through the heads index, merged), then every event of each ``update`` folds, through the
    table's key, in log order (a match with two Started events, edited in, is one match: QA round 33)."""
    heads = f"SELECT rowid, originator_id FROM stored_events INDEXED BY {HEADS_INDEX} WHERE {HEADS_WHERE}"
    first: dict[Any, None] = {}
    for _, oid in heapq.merge(*(con.execute(f"{heads} AND topic = ? ORDER BY rowid", (t,)) for t in TOPICS_STARTED),
                              key=_first):
        first[oid] = None
        if len(first) >= n:
            break
    of_match = (f"SELECT rowid, originator_id, topic, state FROM stored_events WHERE originator_id = ? AND topic IN "
                f"({_marks(TOPICS)}) ORDER BY rowid")
    for oid in first:
        yield from con.execute(of_match, (oid, *TOPICS))


def _marks(values: tuple[str, ...]) -> str:
    return ", ".join("?" * len(values))


def has_indexes(con: Any) -> bool:
    """Whether the SQLite store on ``con`` has both ``INDEXES``."""
    names = tuple(INDEXES)
    found = dict(con.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = "
                             f"'stored_events' AND name IN ({_marks(names)})", names).fetchall())
    return found == {name: _create(name) for name in names}  # (an index of that name made otherwise: read whole)


def _create(name: str) -> str:
    return f"CREATE INDEX {name} {INDEXES[name]}"  # (as SQLite keeps it, IF NOT EXISTS left out)


def other_indexes(con: Any) -> list[str]:
    """The indexes an import drops (``create_indexes``) in the SQLite store on ``con``: the summaries' indexes of
    another release's set of games (an import kept them up to date for nothing), and an index of one of
    ``INDEXES``' names made otherwise (by hand: the list was read whole for good). Another index, even named
    ``zx_summary_...`` (a user's own), is left alone."""
    return [name for name, sql in con.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'stored_events' AND substr(name, 1, ?) "
        "= ?", (len(INDEX_PREFIX), INDEX_PREFIX)).fetchall()
        if ours(name) and (name not in INDEXES or sql != _create(name))]


def ours(name: str) -> bool:
    """Whether ``name`` is one the summaries' indexes have, in some release: ``zx_summary_heads_`` or
    ``zx_summary_turns_`` and 8 hexadecimal digits."""
    kind, _, tag = name.removeprefix(INDEX_PREFIX).rpartition("_")
    return name.startswith(INDEX_PREFIX) and kind in ("heads", "turns") and len(tag) == 8 and \
        all(c in "0123456789abcdef" for c in tag)


def create_indexes(con: Any, drop: list[str] = ()) -> None:
    """Make the ``INDEXES`` a SQLite store lacks, and drop the indexes ``drop`` (``other_indexes``), on ``con`` (a
    writer's, in its transaction): at once in a new store; in one of many events a read of them all (17 s at 21
    million events here), once. Only writes: a read first would begin the transaction as a reader, which
    another importer's commit then keeps from writing ("database is locked" at once, whatever the timeout)."""
    for name in drop:
        con.execute(f'DROP INDEX IF EXISTS "{name}"')
    for name in INDEXES:
        con.execute(_create(name).replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))


def indexed_notes(con: sqlite3.Connection) -> tuple[Iterator[tuple[int, Any, str, bytes]], int] | None:
    """The notes ``update`` folds into every match's summary, read through the ``INDEXES`` in one read
    transaction, with the store's last notification id then (None when the store lacks the indexes: read
    every event then): every Started event in log order, then each match's last TurnStarted (see the
    module's text), its MatchEnded and ViolationRecorded events. One row at a time (fetched all at once,
    the 130,000 matches' held 400 MB); the transaction ends when the notes do, or are closed."""
    if not has_indexes(con):
        return None
    began = not con.in_transaction
    if began:
        con.execute("BEGIN")  # (the statements see one state of the store: an import may commit between them)
    try:
        last = con.execute("SELECT max(rowid) FROM stored_events").fetchone()[0] or 0
    except BaseException:
        if began:
            con.execute("COMMIT")
        raise
    return _notes(con, began), last


def _notes(con: sqlite3.Connection, began: bool) -> Iterator[tuple[int, Any, str, bytes]]:
    # (each statement has its index's condition: SQLite uses a partial index only where the WHERE has its terms)
    heads = f"SELECT rowid, originator_id, topic, state FROM stored_events INDEXED BY {HEADS_INDEX} WHERE {HEADS_WHERE}"
    try:
        # the Started events of each game in log order (the index's order within a topic), merged: the list's order
        yield from heapq.merge(*(con.execute(f"{heads} AND topic = ?", (t,)) for t in TOPICS_STARTED), key=_first)
        yield from con.execute(
            f"SELECT e.rowid, e.originator_id, e.topic, e.state FROM (SELECT originator_id AS o, "
            f"max(originator_version) AS v FROM stored_events INDEXED BY {TURNS_INDEX} WHERE {TURNS_WHERE} "
            f"GROUP BY originator_id) JOIN stored_events AS e ON e.originator_id = o AND e.originator_version = v")
        rest = (*TOPICS_ENDED, *TOPICS_VIOLATION)
        yield from con.execute(f"{heads} AND topic IN ({_marks(rest)})", rest)
    finally:
        if began:
            con.execute("COMMIT")


# PostgreSQL: the same two indexes (names and conditions), on the events table's notification id (the heads, in log
# order) and key (the turns); made by an importer whose role owns the table (``MatchService.index_summaries``).
def pg_index_statements(table: str) -> dict[str, str]:
    """``CREATE INDEX`` statements of the ``INDEXES`` on ``table`` (quoted, with its schema)."""
    return {HEADS_INDEX: f"CREATE INDEX IF NOT EXISTS {HEADS_INDEX} ON {table} (notification_id) WHERE {HEADS_WHERE}",
            TURNS_INDEX: f"CREATE INDEX IF NOT EXISTS {TURNS_INDEX} ON {table} (originator_id, originator_version) "
                         f"WHERE {TURNS_WHERE}"}


def pg_found_indexes(conn: Any, schema: str, table: str) -> dict[str, bool]:
    """The summaries' indexes (any release's) on ``schema.table``, by name: whether PostgreSQL may use each
    (an index whose making was cut off is left invalid)."""
    from psycopg.rows import tuple_row

    return {r[0]: r[1] for r in conn.cursor(row_factory=tuple_row).execute(
        "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON "
        "t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = %s AND t.relname = %s "
        "AND starts_with(c.relname, %s)", (schema, table, INDEX_PREFIX)).fetchall()}


def pg_notes(conn: Any, table: str) -> Iterator[tuple[int, Any, str, bytes]]:
    """``indexed_notes``' notes of a PostgreSQL store, on ``conn`` in a REPEATABLE READ transaction of the
    caller's (read in pages by server-side cursors)."""
    from psycopg.rows import tuple_row

    rest = (*TOPICS_ENDED, *TOPICS_VIOLATION)
    for n, (sql, params) in enumerate((
            (f"SELECT notification_id, originator_id, topic, state FROM {table} WHERE {HEADS_WHERE} AND topic = ANY(%s) "
             f"ORDER BY notification_id", (list(TOPICS_STARTED),)),
            # each match's last TurnStarted, one step back in the index from the match's end (grouping all of them
            # read every TurnStarted row from the table: PostgreSQL checks each one's visibility there; 4x slower)
            (f"SELECT e.notification_id, e.originator_id, e.topic, e.state FROM (SELECT originator_id FROM {table} "
             f"WHERE {HEADS_WHERE} AND topic = ANY(%s)) s CROSS JOIN LATERAL (SELECT notification_id, originator_id, "
             f"topic, state FROM {table} WHERE {TURNS_WHERE} AND originator_id = s.originator_id ORDER BY "
             f"originator_version DESC LIMIT 1) e", (list(TOPICS_STARTED),)),
            (f"SELECT notification_id, originator_id, topic, state FROM {table} WHERE {HEADS_WHERE} AND topic = ANY(%s)",
             (list(rest),)))):
        with conn.cursor(name=f"zx_summaries_{n}", row_factory=tuple_row) as cur:
            cur.itersize = 2000
            cur.execute(sql, params)
            for row in cur:
                yield (row[0], row[1], row[2], bytes(row[3]) if row[3] is not None else None)
