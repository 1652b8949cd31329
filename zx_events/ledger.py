"""The store seal: a ledger of every imported match and its head, chained, in the store itself.

Each match's own digest chain (``zx_events.integrity``) shows an event altered, deleted, inserted
or reordered inside it, but not a match deleted whole, nor one rewritten with every digest
recomputed: that needed the head written on the score sheet. The ledger closes both gaps without
rewriting any stored event. It is one more event stream in the same store (aggregate id
``LEDGER_ID``, topic ``zx_events.ledger:Entry``): each import batch appends, *in the same
transaction as the batch*, one ``Entry`` that lists the matches it stored (match id, originator id,
number of events, head), chained like match events::

    digest_n = SHA-256( bytes(digest_{n-1}) || canonical(entry_n) )     digest_0 = 64 zeros

``zx verify`` then checks the set of stored matches against the ledger: a sealed match that is gone
(``deleted``), a stored match the ledger does not list (``added``), a match whose head is not the
sealed one (``rewritten``, even with a recomputed chain), and the ledger's own chain (``seal``).
The head of the last entry is the *store head*, printed by ``zx verify``: someone who rewrites
the ledger too (recomputing its digests) is caught by comparing it with one written down.

Concurrent importers: an entry's version is the ledger's last version + 1, read just before the
insert; two importers that collide get an ``IntegrityError`` for the same ledger version and the
loser re-reads the ledger and tries again (``insert_sealed``). A store from before the ledger (the
0.1.0 fixture) has matches and no ledger: it stays *unsealed* (imports add no entries, ``zx verify``
says so and still checks every match chain) until ``zx verify --seal`` checks every chain and
writes the first entry listing them all.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence

from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import IntegrityError

from zx_events.integrity import ZERO, canonical, decode_state, event_canonical, link

LEDGER_ID = uuid.uuid5(uuid.NAMESPACE_URL, "https://zx-events/store-ledger")
TOPIC_ENTRY = "zx_events.ledger:Entry"
RETRIES = 200  # collisions with other importers before giving up (each one means another batch went in)
ADOPT_CHUNK = 1000  # matches per entry when --seal adopts a legacy store


@dataclass(frozen=True)
class Entry(DomainEvent):
    """One import batch sealed: its matches, and the digest chained from the entry before.

    Stored under ``LEDGER_ID``; its topic is ``zx_events.ledger:Entry`` (module and name: keep them)."""

    matches: list  # [[match id, originator id, events, head], ...]
    prev: str
    digest: str


@dataclass(frozen=True)
class Sealed:
    """What the ledger says of one match."""

    match: str
    originator_id: str
    events: int
    head: str
    entry: int  # the ledger version that sealed it


@dataclass
class LedgerState:
    """The whole ledger, verified: ``ok`` false names the first broken entry in ``problem``."""

    exists: bool
    entries: int
    head: str  # digest of the last entry (ZERO when there is none)
    matches: dict[str, Sealed]  # originator id (str) -> what was sealed
    ok: bool = True
    problem: str | None = None
    digests: list[str] = field(default_factory=list)  # each entry's digest, in order (the last is ``head``)
    suspect: int = 0  # entries 1..suspect cannot be vouched for: the last broken entry (0: none)

    def entry_of(self, head: str) -> int | None:
        """The entry (1-based) whose digest starts with ``head`` (a store head written down earlier: the seal
        up to that entry is as it was then), or None: the seal was rewritten at or before it."""
        head = head.strip().lower()
        return next((i for i, d in enumerate(self.digests, start=1) if head and d.startswith(head)), None)


# ---------------------------------------------------------------------- writing
def _last(recorder: Any, mapper: Any) -> tuple[int, str] | None:
    """(version, digest) of the last ledger entry, or None when the store has no ledger."""
    rows = recorder.select_events(LEDGER_ID, desc=True, limit=1)
    if not rows:
        return None
    try:
        digest = decode_state(mapper, rows[0]).get("digest")
    except Exception:
        from zx_events.errors import DamagedMatch

        raise DamagedMatch(f"the store seal's last entry (seq {rows[0].originator_version}) cannot be read: the store "
                           f"was altered; nothing was imported; zx verify names the damage") from None
    return rows[0].originator_version, digest if isinstance(digest, str) else ZERO


def _has_events(recorder: Any) -> bool:
    return bool(recorder.select_notifications(start=None, limit=1))


def entry(version: int, prev: str, matches: Sequence[Sequence[Any]]) -> Entry:
    """A ledger entry at ``version`` after the entry whose digest is ``prev``, digest computed."""
    e = Entry(originator_id=LEDGER_ID, originator_version=version,
                          timestamp=datetime.now(timezone.utc), matches=[list(m) for m in matches], prev=prev,
                          digest="")
    object.__setattr__(e, "digest", link(prev, event_canonical(e)))
    return e


def insert_sealed(recorder: Any, mapper: Any, stored: list, matches: Sequence[Sequence[Any]],
                  insert: Any = None) -> bool:
    """Insert ``stored`` (encoded events) with one ledger entry listing ``matches``, in one transaction.

    Returns False when the store is unsealed (a legacy store: matches and no ledger), after
    inserting ``stored`` alone. Raises ``IntegrityError`` when one of ``stored`` conflicts (a match
    id stored meanwhile by another importer); a collision on the ledger alone is retried.
    ``insert``: how to insert a list of stored events in one transaction (default the recorder's).
    """
    insert = insert or recorder.insert_events
    for attempt in range(RETRIES):
        last = _last(recorder, mapper)
        if last is None and _has_events(recorder):
            insert(stored)
            if _last(recorder, mapper) is None:
                return False
            # zx verify --seal wrote the first entry between our look and our insert: it lists the matches it
            # had verified, maybe not these (zx verify then called them "added", as if written behind the seal)
            append_unlisted(recorder, mapper, matches)
            return True
        version, prev = last if last is not None else (0, ZERO)
        ledger_row = mapper.to_stored_event(entry(version + 1, prev, matches))
        try:
            insert([*stored, ledger_row])
            return True
        except IntegrityError:
            now = _last(recorder, mapper)
            if now is not None and now[0] != version:  # another importer sealed a batch meanwhile: again
                time.sleep(random.uniform(0, 0.01 * min(attempt + 1, 10)))
                continue
            raise  # the ledger did not move: one of our matches is the conflict
    raise IntegrityError(f"the store ledger kept moving under {RETRIES} attempts (too many importers at once?)")


def append_unlisted(recorder: Any, mapper: Any, matches: Sequence[Sequence[Any]]) -> list:
    """Append one entry to a sealed store's ledger listing those of ``matches`` (stored, their chains
    checked: rows of ``sealed_entry``) that it does not list yet; returns those rows. For the race of an
    import and the first ``zx verify --seal`` of a store from before the seal: whichever commits last
    lists what the other left out (a match listed twice is the same row twice: harmless)."""
    from eventsourcing.persistence import PersistenceError

    for attempt in range(RETRIES):
        listed = read_ledger(recorder, mapper).matches
        missing = [m for m in matches if str(m[1]) not in listed]
        last = _last(recorder, mapper)
        if not missing or last is None:
            return []
        try:
            recorder.insert_events([mapper.to_stored_event(entry(last[0] + 1, last[1], missing))])
            return missing
        except IntegrityError:  # another process appended meanwhile: read the ledger again
            time.sleep(random.uniform(0, 0.01 * min(attempt + 1, 10)))
    # (not an IntegrityError: the importer would take it for one of its matches stored meanwhile)
    raise PersistenceError(f"the store ledger kept moving under {RETRIES} attempts (too many importers at once?)")


def sealed_entry(out_match: str, originator_id: Any, events: int, head: str | None) -> list:
    """One row of ``Entry.matches``."""
    return [out_match, str(originator_id), events, head]


# ---------------------------------------------------------------------- reading and checking
def read_ledger(recorder: Any, mapper: Any) -> LedgerState:
    """Every entry, its chain checked: the sealed set of matches and the store head.

    A broken entry does not end the reading: ``problem`` names the first, and every entry up to the last
    broken one is ``suspect`` (an entry before a break may be the one rewritten, its digest recomputed),
    while the entries after it chain from it as stored and still vouch for their matches. So one edited
    entry fails the matches it lists, naming the one whose head it no longer gives, not every match."""
    rows = recorder.select_events(LEDGER_ID)
    state = LedgerState(exists=bool(rows), entries=len(rows), head=ZERO, matches={})
    prev, i = ZERO, 0  # the digest the next entry follows (the stored one, past a break); the entry before it
    for row in rows:
        expected, i = i + 1, row.originator_version
        try:
            d = decode_state(mapper, row)
            body = canonical(row.topic, row.originator_id, row.originator_version, d)
        except Exception:
            d, body = {}, None
        problem = None
        if i != expected:
            problem = f"store seal entry {expected} is missing (the entries jump to {i})"
        elif row.topic != TOPIC_ENTRY or body is None or d.get("prev") != prev or link(prev, body) != d.get("digest"):
            problem = f"store seal entry {i} was altered (its digest does not match its content)"
        rows_ok = isinstance(d.get("matches") or [], list) and all(
            isinstance(m, (list, tuple)) and len(m) == 4 for m in d.get("matches") or [])
        if problem is None and not rows_ok:
            problem = f"store seal entry {i} holds a malformed match row"
        if problem is not None:
            state.ok, state.suspect = False, i
            state.problem = state.problem or problem
        digest = d.get("digest")
        prev = digest if isinstance(digest, str) else ZERO
        if state.ok:
            state.digests.append(prev)
        for m in (d.get("matches") or []) if rows_ok else []:
            match, oid, events, head = m
            try:
                sealed = Sealed(str(match), str(oid), int(events), str(head), i)
            except (TypeError, ValueError):
                state.ok, state.suspect = False, i
                state.problem = state.problem or f"store seal entry {i} holds a malformed match row"
                continue
            first = state.matches.get(sealed.originator_id)
            if first is None:
                state.matches[sealed.originator_id] = sealed
            elif (first.events, first.head) != (sealed.events, sealed.head):
                # a match is sealed once, by the import that stored it (a race lists the same row twice): another
                # head in a later entry is the entry a forger appended to vouch for the match rewritten (QA round
                # 35: it replaced the first, and the rewritten match verified, with --store-head too). The first
                # stands (the match is judged against it); the seal is broken from that entry, those before it
                # still vouching for their matches
                state.ok = False
                state.problem = state.problem or (
                    f"store seal entry {i} lists {sealed.match} again, with head {sealed.head[:16]} ({sealed.events:,} "
                    f"events), where entry {first.entry} sealed it with head {first.head[:16]} ({first.events:,} events): "
                    f"a match is sealed once, when imported; this entry was added after it was rewritten")
    if state.ok:
        state.head = prev
    return state


def adopt(recorder: Any, mapper: Any, matches: Iterable[Sequence[Any]]) -> int:
    """``zx verify --seal``: write the first entries of a store from before the seal, listing ``matches``
    (already verified); returns how many it sealed.

    Returns 0, writing nothing, when the store has a ledger by then: another ``zx verify --seal`` wrote
    the first entry meanwhile (and a ``zx import`` may have sealed its own batch after it). On a sealed
    store only ``zx import`` seals: three concurrent ``--seal`` each appended the same matches after the
    other's entries, and the store heads the first two printed were superseded (``--store-head`` with
    them said "the store seal was rewritten")."""
    rows = list(matches)
    for _ in range(RETRIES):
        if _last(recorder, mapper) is not None:  # sealed meanwhile by another process
            return 0
        prev, entries = ZERO, []
        for k in range(0, len(rows), ADOPT_CHUNK):
            e = entry(1 + len(entries), prev, rows[k:k + ADOPT_CHUNK])
            prev = e.digest
            entries.append(mapper.to_stored_event(e))
        try:
            recorder.insert_events(entries)
            return len(rows)
        except IntegrityError:  # another process wrote the first entry first: read the ledger again
            time.sleep(random.uniform(0, 0.05))
    raise IntegrityError("the store ledger kept moving: run zx verify --seal again")


def describe(kind: str, sealed: Sealed | None = None, head: str | None = None) -> str:
    if kind == "deleted":
        return (f"the whole match was deleted: the store seal lists it (entry {sealed.entry}, {sealed.events:,} events, "
                f"head {sealed.head[:16]})")
    if kind == "added":
        return "not in the store seal: stored outside zx import (or after the seal was made)"
    if kind == "rewritten":
        return (f"rewritten after import: its head {str(head)[:16]} is not the one sealed at import "
                f"({sealed.head[:16]}, store seal entry {sealed.entry}), even though its own chain verifies")
    raise ValueError(kind)

# ---------------------------------------------------------------------- verdicts with the seal
def against_seal(ledger: LedgerState, verdict: Any, originator_id: Any) -> Any:
    """``verdict`` (a match's own chain, zx_events.integrity.Verdict) checked against the store seal:
    a match the seal does not list is ``added``, one whose head or event count differ ``rewritten``."""
    from zx_events.integrity import Verdict

    if ledger.exists and verdict.status == "unchained":  # digests stripped from a match the seal vouches for
        sealed = ledger.matches.get(str(originator_id))
        if sealed is None:
            return Verdict(verdict.match, verdict.events, "added", None, describe("added"), verdict.head)
        return Verdict(verdict.match, verdict.events, "altered", 1, (
            f"no event carries a digest, but the store seal lists it (entry {sealed.entry}, {sealed.events:,} events, "
            f"head {sealed.head[:16]}): its digests were removed and its events may have been edited"), verdict.head)
    if not ledger.exists or not verdict.ok:
        return verdict
    sealed = ledger.matches.get(str(originator_id))
    if sealed is None:
        return Verdict(verdict.match, verdict.events, "added", None, describe("added"), verdict.head)
    if sealed.head != verdict.head or sealed.events != verdict.events:
        return Verdict(verdict.match, verdict.events, "rewritten", verdict.events or None,
                       describe("rewritten", sealed, verdict.head), verdict.head)
    return verdict


def match_verdict(app: Any, name: str, originator_id: Any, ledger: LedgerState | None = None,
                  rows: Any = None) -> Any:
    """One stored match verified: its own chain (``rows`` when given, else read and checked by
    ``verify_stored``), then against the store seal (read when not given)."""
    from zx_events.integrity import Verdict, verify_rows, verify_stored

    verdict = verify_rows(name, rows) if rows is not None else verify_stored(app, name, originator_id)
    ledger = ledger if ledger is not None else read_ledger(app.recorder, app.mapper)
    if not verdict.events:
        sealed = ledger.matches.get(str(originator_id))
        if sealed is not None:
            return Verdict(sealed.match, 0, "deleted", 1, describe("deleted", sealed), None)
    if not ledger.ok and verdict.ok:
        sealed = ledger.matches.get(str(originator_id))
        if sealed is None or sealed.entry <= ledger.suspect:  # an entry after the last break vouches for it
            return Verdict(verdict.match, verdict.events, "seal", None, _unvouched(ledger, sealed, verdict),
                           verdict.head)
    if not ledger.ok and not verdict.ok:
        return verdict
    return against_seal(ledger, verdict, originator_id)


def _unvouched(ledger: LedgerState, sealed: Sealed | None, verdict: Any) -> str:
    """Why a broken seal cannot vouch for a match whose own chain verifies, and what the seal says of it: the
    match whose head an edited entry no longer gives is named as such (every match said only "seal entry N
    was altered")."""
    problem = ledger.problem or "the store seal is broken"
    if sealed is None:
        return f"{problem}; no entry of the seal lists this match"
    if sealed.head != verdict.head or sealed.events != verdict.events:
        return (f"{problem}; entry {sealed.entry} gives this match head {sealed.head[:16]} ({sealed.events:,} events), "
                f"not its head {str(verdict.head)[:16]} ({verdict.events:,} events): this match or that entry was altered")
    return (f"{problem}; entry {sealed.entry} lists this match with its head, but the seal up to entry "
            f"{ledger.suspect} cannot vouch for it")


def failure_warning(verdict: Any) -> str:
    """The warning ``zx replay`` and ``zx audit`` print for a match that fails verification."""
    return (f"{verdict.match} fails verification ({verdict.status}: {verdict.message}): what is shown may not be "
            f"what was imported; zx verify {verdict.match} names the damage")


def deleted_verdicts(ledger: LedgerState, present: Iterable[Any]) -> list:
    """A ``deleted`` verdict for every sealed match that is no longer in the store."""
    from zx_events.integrity import Verdict

    have = {str(p) for p in present}
    return [Verdict(s.match, 0, "deleted", 1, describe("deleted", s), None)
            for oid, s in ledger.matches.items() if oid not in have]


def seal_summary(ledger: LedgerState, stored: int | None = None) -> str:
    """The store seal in one line; ``stored``: how many matches the store holds, when known (a store
    without a seal that holds none is an empty store, not one from before the seal)."""
    if not ledger.exists and stored == 0:
        return "store seal: none yet: the store holds no match (zx import seals each batch it stores)"
    if not ledger.exists:
        return ("store seal: none (a store from before zx-events 0.2.0): a match deleted whole, or rewritten with "
                "a recomputed chain, is caught only with --head; `zx verify --seal` checks every match and seals them")
    if not ledger.ok:
        return f"store seal: BROKEN: {ledger.problem}"
    n, entries = len(ledger.matches), ledger.entries
    return (f"store seal: {n:,} match{'es' if n != 1 else ''} in {entries:,} entr{'ies' if entries != 1 else 'y'}, "
            f"store head {ledger.head[:16]} (write it down: a rewritten seal is caught with --store-head)")
