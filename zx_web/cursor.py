"""Reading a stored match for the server, fast and without ever writing: its events, and its state
walked forward along them.

``EventReader`` reads a match's stored rows as ``(version, topic, state)``: on SQLite through the
service's read-only connection per thread (``MatchService.read_connection``, the seeks' too;
``mode=ro``: the file cannot be written through it; a plain query
instead of the recorder's transaction, ``StoredEvent`` and UUID per row), elsewhere through the
store's recorder. The rows are decoded by the application's mapper, the same decoding as every
other reader of the store.

``Cursor`` holds one match: its stored rows read so far (only as far as a request has needed), its
last seq, its card names, and one live aggregate at some seq. A view at a later seq projects only the
events in between onto that aggregate (``codec.project``, as ``replay.state_at`` does); a view at
an earlier seq projects from the first event again. The aggregate is the cursor's own: no view
aliases it (``build_view`` copies), and a cursor is used under its lock.

A far view starts from a stored snapshot through ``replay.seek(..., prepare=False)``, which reads
and never writes: ``replay.state_at`` would file missing snapshots, and the server writes nothing.
"""

from __future__ import annotations

import sqlite3
import threading
from functools import lru_cache
from typing import Any, Callable

from zx_events import codec, games, replay
from zx_events.freetext import counted
from zx_events.ids import match_uuid


class EventReader:
    """The stored events of matches, read-only."""

    def __init__(self, svc: Any) -> None:
        self.svc = svc
        self.decode = svc.mapper.decode
        self.table = svc.recorder.events_table_name

    @property
    def uri(self) -> str | None:
        """The read-only URI of the store file; None: read through the recorder."""
        return self.svc.reads.uri

    @uri.setter
    def uri(self, value: str | None) -> None:
        self.svc.reads.uri = value

    def _con(self) -> sqlite3.Connection | None:
        """This thread's read-only connection, the service's own (``MatchService.read_connection``, as
        the seeks use); None (then the recorder reads) when the file cannot be opened read-only, e.g.
        a store in a read-only folder without its -shm file."""
        return self.svc.read_connection()

    def last_seq(self, match_id: str) -> int:
        """The match's last seq; ``replay.UnknownMatch`` when it is not stored."""
        con = self._con()
        if con is None:
            return replay.last_seq(self.svc, match_id)
        row = con.execute(f"SELECT MAX(originator_version) FROM {self.table} WHERE originator_id = ?",
                          [match_uuid(match_id).hex]).fetchone()
        if row is None or row[0] is None:
            raise replay.unknown(self.svc, match_id)
        return int(row[0])

    def rows(self, match_id: str, gt: int, lte: int) -> list[tuple[int, str, bytes]]:
        """``(version, topic, state)`` of the events ``gt < seq <= lte``, in order."""
        oid = match_uuid(match_id)
        con = self._con()
        if con is None:
            return [(r.originator_version, r.topic, r.state)
                    for r in self.svc.recorder.select_events(oid, gt=gt or None, lte=lte)]
        return con.execute(
            f"SELECT originator_version, topic, state FROM {self.table} WHERE originator_id = ? "
            f"AND originator_version > ? AND originator_version <= ? ORDER BY originator_version",
            [oid.hex, gt, lte]).fetchall()

    def close(self) -> None:
        self.svc.reads.close()  # a closed reader reads through the recorder (which says it is closed)


@lru_cache(maxsize=None)
def _kind(topic: str) -> str:
    """The event class name of a stored topic (``TurnStarted``), without decoding the event."""
    return codec.event_class(topic).__name__


class Cursor:
    """One stored match as far as it has been read, with a state walked along it (use under ``lock``).

    It keeps stored rows (bytes: nothing for the garbage collector to walk), a window of them from
    ``base + 1``, and decodes only the events it projects: a server with a few hundred cursors of
    decoded events spent 100+ ms in each full collection.

    A view far from the cursor's state (the first view of a match, a step back, a jump ahead) starts
    from the match's latest stored snapshot at or before it when there is one (``replay.seek``,
    ``prepare=False``: read-only; ``zx prepare`` files them), so it decodes one snapshot and at most
    ``SNAPSHOT_EVERY - 1`` events (more in a match of growing state: ``replay._next_due``) instead of
    every event from the first; a match without snapshots is replayed from its first event, as before."""

    def __init__(self, reader: EventReader, match_id: str, names: Callable[[Any], Any]) -> None:
        self.reader = reader
        self.match_id = match_id
        self.oid = match_uuid(match_id)
        self.names_of = names  # Match -> replay.CardNames (cached by the backend)
        self.lock = threading.Lock()
        self.last = reader.last_seq(match_id)  # UnknownMatch first: a cursor exists only for a stored match
        self.base = 0  # rows[i] is seq base + i + 1
        self.rows: list[tuple[int, str, bytes]] = []
        self.turns: list[int] | None = None  # where each turn begins (replay.turn_begins), once every row is read
        self.state: Any = None  # the aggregate after event self.pos
        self.pos = 0
        self.snapshots = True  # False once a seek found none: then never looked for again
        self.cn: Any = None
        self.mask: Any = None  # cn.mask, remembering what it masked: the match's names, masked in every view
        self.build_view: Any = None  # the match's game's (zx_events.games: the registry)

    def check_seq(self, seq: int) -> int:
        if not 1 <= seq <= self.last:
            raise replay.OutOfRange(f"match {self.match_id} has {counted(self.last, 'event')}: seq must be "
                                    f"1..{self.last}")
        return seq

    def turn_seq(self, turn: int) -> int:
        if self.turns is None:
            entries = []
            rows = self.window(1, self.last)
            for version, topic, _ in rows:
                try:
                    entries.append((version, _kind(topic)))
                except codec.ForeignTopic:  # a topic altered: the answer a view of that event gets (400), not a 500
                    raise replay._damaged(self.match_id, version, None) from None
            # where each turn begins: after its TurnStarted and the rule effects its `turn` record wrote after it (X610Z's
            # 209.2f), their lines decoded only there
            after = games.for_topic(rows[0][1]).turn_effects if rows else frozenset()
            self.turns = replay.turn_begins(
                entries, after, lambda i: getattr(self.decoded(entries[i][0], entries[i][0])[0], "line", None))
        if not 1 <= turn <= len(self.turns):
            n = len(self.turns)
            raise replay.OutOfRange(f"match {self.match_id} has {counted(n, 'turn')}: turn must be 1..{n}")
        return self.turns[turn - 1]

    def window(self, first: int, last: int) -> list[tuple[int, str, bytes]]:
        """The stored rows of seq ``first..last`` (fewer when rows are missing: the store was altered),
        read from the store only where the window kept does not hold them already."""
        end = self.base + len(self.rows)
        if not self.base < first <= end + 1:  # not joined to the rows kept: a new window
            self.base, self.rows, end = first - 1, [], first - 1
        if last > end:
            self.rows += self.reader.rows(self.match_id, end, last)
        return self.rows[first - 1 - self.base: last - self.base]

    def decoded(self, first: int, last: int) -> list[Any]:
        """The domain events ``first..last``; ``replay.DamagedMatch`` when one is missing or undecodable."""
        return replay._decoded_rows(self.match_id, self.oid, self.window(first, last), self.reader.decode, first)

    def all_events(self) -> list[Any]:
        return self.decoded(1, self.last)

    def state_at(self, seq: int) -> Any:
        """The aggregate after event ``seq`` (the cursor's own: read it, never keep it)."""
        near = self.state is not None and self.pos <= seq < self.pos + 2 * replay.SNAPSHOT_EVERY
        if not near and self.snapshots and seq >= replay.SNAPSHOT_EVERY:  # far: from a stored snapshot
            self.state = None
            try:
                state, base = replay.seek(self.reader.svc, self.match_id, seq, prepare=False)
            except replay.UnknownMatch:  # every row gone since the cursor was made: the store was altered
                raise replay.DamagedMatch(f"match {self.match_id} cannot be replayed: its events are missing "
                                          f"from the store; zx verify {self.match_id} names the damage") from None
            self.snapshots = base > 0
            self.state, self.pos = state, seq
            return state
        if self.state is not None and seq >= self.pos:  # ahead: walk forward from here
            start = self.pos
        else:
            self.state, start = None, 0
        events = self.decoded(start + 1, seq)
        if len(events) < seq - start:  # rows missing at the end: the store was altered
            raise replay.DamagedMatch(f"match {self.match_id} cannot be replayed: its event seq "
                                      f"{start + len(events) + 1} is missing from the store; zx verify "
                                      f"{self.match_id} names the damage")
        try:
            self.state = codec.project(self.state, events)
        except BaseException:  # a state half walked is no state at any seq: the next view starts over
            self.state, self.pos = None, 0
            raise
        self.pos = seq
        return self.state

    def view(self, seq: int, perspective: str) -> Any:
        """``replay.History.step_at(seq, perspective).state``: the same game's ``build_view`` of the same state."""
        match = self.state_at(seq)
        if self.cn is None:
            self.build_view = replay.game_of(match).build_view
            self.cn = self.names_of(match)
            # once per match, not once per view: a header may hold 1,000,000 characters of names, and the
            # mask's own memory is shared by every match of its catalog (seats.MASK_CACHE_CHARS)
            self.mask = lru_cache(maxsize=None)(self.cn.mask)
            self.mask.withheld = getattr(self.cn.mask, "withheld", False)  # (violation messages withheld: seats.engine_message)
        return self.build_view(match, perspective, self.cn.names, mask=self.mask, last_seq=self.last)
