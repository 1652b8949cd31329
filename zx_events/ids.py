"""Match ids, common to every game: one id space across games (shared/spec/games.md).

A match's aggregate id is ``uuid5(NAMESPACE, match_id)``: importing the same match twice collides
instead of duplicating, and ``zx replay ID`` needs no game. Never change NAMESPACE: stored matches
are filed under these ids (the 0.1.0 fixture store is the test).
"""

from __future__ import annotations

import uuid
from functools import lru_cache

try:  # Python's own SHA-1: hashlib's loads OpenSSL's library, about 4 ms of zx matches' start-up (issue 20 target 4),
    from _sha1 import sha1  # for a few dozen bytes a match; the same digest
except ImportError:  # (a Python built without it)
    from hashlib import sha1

NAMESPACE = uuid.UUID("0b6f2f64-4b53-5c2a-9a35-6d0c7f6e2a11")


@lru_cache(maxsize=4096)  # uuid5 hashes on every call: a tenth of a seek
def match_uuid(match_id: str) -> uuid.UUID:
    """A deterministic aggregate id: importing the same match twice collides instead of duplicating.

    ``uuid.uuid5(NAMESPACE, match_id)``, also for an id no stored match can have, holding half a
    surrogate pair (a command-line byte that is not UTF-8: ``zx replay $'\\xff'``), which uuid5
    cannot encode: its bytes (surrogatepass) are not UTF-8, so it is no other id's."""
    try:
        return uuid.uuid5(NAMESPACE, match_id)
    except TypeError:  # None, a number: "encoding without a string argument" reached a caller of the Python API
        if isinstance(match_id, str):
            raise
        from zx_events.errors import ArgumentTypeError

        raise ArgumentTypeError(f"a match id is the match's name (a str, as zx matches lists it), got "
                                f"{type(match_id).__name__} {match_id!r}") from None
    except UnicodeEncodeError:
        digest = sha1(NAMESPACE.bytes + match_id.encode("utf-8", "surrogatepass")).digest()
        return uuid.UUID(bytes=digest[:16], version=5)


def filed_under(match_id: object, originator_id: object) -> bool:
    """Whether a stored aggregate whose Started event says ``match_id`` is filed where ``zx import``
    files that match: ``match_uuid(match_id)``. One that is not (a copy of a match's rows under another
    id, with or without its chain recomputed) was not written by zx import: ``zx verify`` calls it
    ``forged``, ``zx matches`` lists it by its stored id as damaged, the analytics leave it out.
    ``originator_id``: a UUID, or its text (canonical or 32 hex digits, as a SQLite store holds it); a
    ``match_id`` that is not text is not judged here (True)."""
    if not isinstance(match_id, str):
        return True
    if isinstance(originator_id, uuid.UUID):
        oid = originator_id.bytes
    else:
        text = str(originator_id)
        oid = bytes.fromhex(text) if len(text) == 32 else uuid.UUID(text).bytes
    try:
        # uuid5's SHA-1 compared with the id's bytes, its version and variant bits set as uuid5 sets them:
        # match_uuid (a UUID made, and a cache that every match listed would miss and churn) cost 3-5 µs
        d = sha1(NAMESPACE.bytes + match_id.encode("utf-8")).digest()
    except UnicodeEncodeError:  # (half a surrogate pair: match_uuid's own way)
        return match_uuid(match_id).bytes == oid
    return (oid[9:16] == d[9:16] and oid[:6] == d[:6] and oid[7] == d[7] and oid[6] == (d[6] & 0x0F | 0x50)
            and oid[8] == (d[8] & 0x3F | 0x80))


def project(aggregate, events):
    """A plain projector: each event mutates the aggregate in turn. eventsourcing's default one also
    checks every event against a Protocol at run time, which made rebuilding a match ~3x slower. A
    stored event that cannot be applied is a ``DamagedMatch`` (``unappliable``)."""
    e = None
    try:
        for e in events:
            aggregate = e.mutate(aggregate)
    except Exception as exc:
        raise unappliable(aggregate, e, exc) from exc
    return aggregate


def unappliable(aggregate, event, exc):
    """The ``DamagedMatch`` of a stored event its match cannot apply: a row whose topic names another kind
    of event than its payload holds (``TurnEnded`` for an attack) made replay and view fail with a
    TypeError from deep in the library. It is already a DamagedMatch (``exc``): itself."""
    from zx_events.errors import DamagedMatch, ZXError

    if isinstance(exc, ZXError):
        return exc
    name = getattr(aggregate, "match_id", None) or str(getattr(event, "originator_id", "?"))
    seq = getattr(event, "originator_version", "?")
    return DamagedMatch(f"match {name} cannot be replayed: its event seq {seq} ({type(event).__name__}) cannot be "
                        f"applied ({type(exc).__name__}: {str(exc)[:120]}); the store was altered: zx verify {name} "
                        f"names the damage (if it finds the match intact, this is a bug in zx)")
