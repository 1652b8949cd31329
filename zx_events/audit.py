"""The audit: re-run the rules engine over a log, or a stored match, and report every violation.

A log file is checked as it is (format errors are findings of kind ``format``, with their line).
A stored match is checked by rebuilding its log from the events: every record-level event carries
the record it came from (``rec``) and its line, a record skipped in lenient mode is carried by its
``ViolationRecorded`` event, and the header by ``Started``. The rebuilt log goes through the
current rules engine, so an audit always judges by today's rules and says which catalog and rules
version it used, and warns when they differ from the ones the match was pinned to at import.
Findings of a stored match are placed by ``seq`` (the event's position); the line they came from
is kept for the bundle.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Iterable

from zx_events import games
from zx_events.errors import ArgumentTypeError, ZXError, cut, shown
from zx_events.ids import match_uuid
from zx_events.importer import Checked, build_match, fixtures_for, game_of, warn_other_game
from zx_events.integrity import ZERO, Row, Verdict, chain, stored_rows
from zx_events.ledger import LedgerState, failure_warning, match_verdict, read_ledger
from zx_events.logformat.reader import MatchLog, Record, _canonical
from zx_events.narration import counted
from zx_events.pins import shipped_fixture, unpinned

Catalog = Any  # a game's catalog, or the reference data of the command line (zx_events.games.load_references)
NOT_STORED = "not stored"  # integrity of a log file whose match is not in the store
DIFFERS = "differs"  # integrity of a log file whose match is stored with other content


@dataclass(frozen=True)
class Finding:
    """One wrong step: a rule violation (with its number) or a format error (``rule`` None)."""

    kind: str  # "rule" or "format"
    line: int | None
    turn: int | None
    player: str | None
    rule: str | None
    message: str
    seq: int | None = None
    game: str = games.DEFAULT  # whose rules the number is

    @property
    def title(self) -> str:
        game = games.get(self.game)
        return game.rule_title(self.rule) if self.rule else f"malformed log ({game.header_key} {game.format_version})"

    def to_json(self, stored: bool = False) -> dict[str, Any]:
        out = {"line": None if stored else self.line, "turn": self.turn, "player": self.player,
               "rule": self.rule, "message": self.message, "kind": self.kind, "title": self.title}
        if stored:
            out["seq"] = self.seq
        return out


@dataclass
class Audit:
    """The audit of one match; ``checked`` and ``log`` (and ``rows`` for a stored match) feed a bundle."""

    match: str | None
    source: str
    stored: bool
    events: int
    findings: list[Finding]
    integrity: str
    integrity_detail: str | None = None
    head: str | None = None
    catalog: dict | None = None  # the catalog used: {"name", "sha256"}
    game: str = games.DEFAULT  # the game's key (audit JSON "game")
    rules_version: str = ""  # the ruleset the audit judged by (audit JSON "rules" and "rules_version")
    fixtures: dict = field(default_factory=dict)  # the reference data used besides the catalog (X610Z: {"board": {...}})
    pinned: dict | None = None  # a stored match: {"catalog": {...}, ("board": {...},) "rules_version": ...}
    warnings: list[str] = field(default_factory=list)
    log: MatchLog | None = None
    checked: Checked | None = None
    rows: list[Row] | None = None
    verdict: Verdict | None = None
    unchecked: tuple[str, ...] = ()  # a stored match's pinned fixtures not at hand (X610Z: "board"): nothing re-checked

    def __post_init__(self) -> None:
        if not self.rules_version:
            self.rules_version = games.get(self.game).rules_version

    @property
    def integrity_ok(self) -> bool:
        return self.integrity in ("ok", NOT_STORED)

    @property
    def other_than_pinned(self) -> dict[str, tuple[dict, dict]]:
        """A stored match's reference data (catalog, X610Z's board) that this audit judged with other content than
        the match pinned at import: kind -> (used, pinned). Its findings are of other card data than the match was
        played and checked with (a catalog edited after import found no violation: "no rule violations", exit 0).
        A log file's audit judges the file by what its header names: a stored match of its id pinned with other
        data is a warning of it (``compare_with_store``), not this."""
        out: dict[str, tuple[dict, dict]] = {}
        if not self.stored:
            return out
        pinned = self.pinned or {}
        for kind, used in [("catalog", self.catalog), *self.fixtures.items()]:
            pin = pinned.get(kind)
            if used and isinstance(pin, dict) and pin.get("sha256") and used.get("sha256") != pin.get("sha256"):
                out[kind] = (used, pin)
        return out

    @property
    def ok(self) -> bool:
        """No finding, the integrity intact, and the records re-checked with what the match pinned (a match whose
        pinned board is not at hand is not judged, nor one judged against another catalog or board: not ok, though
        nothing was found)."""
        return not self.findings and self.integrity_ok and not self.unchecked and not self.other_than_pinned

    def to_json(self) -> dict[str, Any]:
        out = {"match": self.match, "source": self.source, "events": self.events, "ok": self.ok,
               "violations": [f.to_json(self.stored) for f in self.findings], "integrity": self.integrity}
        if self.integrity_detail:
            out["integrity_detail"] = self.integrity_detail
        out.update({"head": self.head, "catalog": self.catalog, **self.fixtures, "rules_version": self.rules_version,
                    "pinned": self.pinned, "warnings": self.warnings, "game": self.game,
                    "rules": self.rules_version})
        if self.unchecked:  # (only then: the JSON of every other audit as it was)
            out["not_rechecked"] = list(self.unchecked)
        if self.other_than_pinned:  # (likewise)
            out["other_than_pinned"] = list(self.other_than_pinned)
        return out


# ---------------------------------------------------------------------- a log
def audit_unreadable(source: str, e: ZXError) -> Audit:
    """The audit of a log file that holds no match to read (empty, a BOM alone, one that cannot be read: a loop of
    links, a link to nothing, a named pipe): one finding of kind ``format``, as ``zx import`` rejects it, and the
    other files are audited as usual."""
    target = dangling_link(source)
    message = e.message if target is None else \
        f"not readable: {source} is a link to {target}, which does not exist: nothing of it was read"
    return Audit(None, source, False, 0, [Finding("format", e.line, None, None, None, message)], NOT_STORED)


def dangling_link(path: str) -> str | None:
    """What ``path`` links to when it is a link that leads to nothing (``log file not found`` said of a file listed
    in the folder): the link's own text when that names nothing, else (a chain of links) the path its end names;
    None when ``path`` is no such link (a loop of links is not one: its reading says so)."""
    import errno
    import os

    try:
        direct = os.readlink(path)
    except (OSError, ValueError):
        return None
    try:
        os.stat(path)
    except OSError as e:
        if e.errno not in (errno.ENOENT, errno.ENOTDIR):
            return None
    else:
        return None  # (there now)
    if not os.path.lexists(os.path.join(os.path.dirname(path), direct)):
        return direct
    return os.path.realpath(path)


def audit_log(log: MatchLog, catalog: Catalog | None = None) -> Audit:
    """Check one match of a log file with the rules engine in lenient mode: every violation. ``log``: one
    ``MatchLog`` (``read_log(PATH)`` gives a file's list of them); ``catalog``: as ``MatchService.import_logs``
    takes it (a catalog's name or file, or loaded); anything else is a ``TypeError`` that says what to give."""
    if not isinstance(log, MatchLog):  # (a path, read_log's list: an AttributeError on 'game', inside)
        raise ArgumentTypeError(
            f"audit_log takes one zx_events.logformat.reader.MatchLog (read_log(PATH) gives a file's "
            f"list of them: [audit_log(log) for log in read_log(PATH)]), not {type(log).__name__} "
            f"{shown(log)}")
    catalog = _given_catalog(catalog)
    warn_other_game(log, catalog)
    return _audit_log(log, catalog)


def _audit_log(log: MatchLog, catalog: Any) -> Audit:
    """``audit_log`` of a ``log`` and a ``catalog`` already checked (and warned of)."""
    game = game_of(log).key

    def broken(e: ZXError) -> Audit:
        f = Finding("format", e.line if e.line is not None else log.header_line, None, None, None, e.message,
                    game=game)
        return Audit(log.match_id, log.source, False, 0, [f], NOT_STORED, log=log, game=game)

    if log.error is not None:
        return broken(log.error)
    try:
        checked = build_match(log, catalog=catalog, strict=False)
    except ZXError as e:  # no header, an unknown catalog, an unknown card code
        return broken(e)
    findings = [Finding("rule", v.line, v.turn, v.player, v.rule, v.message, game=game) for v in checked.violations]
    fixtures = {kind: used.ref for kind, used in fixtures_for(log, catalog).items()}  # (loaded already: cached)
    return Audit(log.match_id, log.source, False, len(checked.match.pending_events), findings, NOT_STORED,
                 catalog=checked.catalog.ref if checked.catalog else None, log=log, checked=checked, game=game,
                 fixtures=fixtures)


class SealReading:
    """The store seal as an audit of many matches checks them against it: read once, at the first match (each
    match read it whole again: ``zx audit`` of a season's 300 files, 3,000 matches, took 40 s with the store, 12 s
    without, the seal's 3,000 entries read 3,000 times: QA round 30), and read again when it does not list a match
    (a batch ``zx import`` committed since the reading: never called ``added`` for that)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.ledger: LedgerState | None = None

    def verdict(self, name: str, originator_id: Any, rows: list[Row]) -> Verdict:
        """``ledger.match_verdict`` of a stored match whose ``rows`` were read."""
        if self.ledger is not None and str(originator_id) in self.ledger.matches:
            return match_verdict(self.app, name, originator_id, self.ledger, rows=rows)
        self.ledger = read_ledger(self.app.recorder, self.app.mapper)  # (the first, or one the reading does not list)
        return match_verdict(self.app, name, originator_id, self.ledger, rows=rows)


def compare_with_store(audit: Audit, app: Any, seal: SealReading | None = None) -> None:
    """A log file whose match is in the store: is it the stored content, and is the chain intact? ``seal``: the
    store seal as read for the other matches of this audit (None: read for this one)."""
    if audit.log is None or audit.match is None:
        return
    rows = stored_rows(app, match_uuid(audit.match))
    if not rows:
        return
    started = rows[0].state or {}
    # the reference data the stored match was checked against at import, as a stored audit warns of them: a
    # file audited against another board (or catalog, or rules) said "integrity ok" and the opposite finding
    audit.pinned = pinned_of(started, game_of(audit.log))
    audit.warnings.extend(pin_warnings(audit))
    verdict = (seal or SealReading(app)).verdict(audit.match, match_uuid(audit.match), rows)
    if started.get("content_sha256") != audit.log.content_sha256:
        audit.integrity = DIFFERS
        audit.integrity_detail = (f"the store holds {audit.match} with other content (stored "
                                  f"{str(started.get('content_sha256'))[:12]}, this log "
                                  f"{audit.log.content_sha256[:12]}){first_difference(audit.log, rows)}; the "
                                  f"stored match's head is {verdict.head or 'none'}")
        return
    audit.integrity, audit.head = verdict.status, verdict.head
    audit.integrity_detail = None if verdict.ok else verdict.message
    if not verdict.ok:
        audit.warnings.append(failure_warning(verdict))


def first_difference(log: MatchLog, rows: list[Row], stored_name: str = "the stored match") -> str:
    """Where a log first differs from the stored match's records (``: first at FILE:LINE, ...``), record by record
    in order (a log may hold the match at other lines): a judge was told only that the content hashes differ, and
    the rebuilt log's keys are sorted, so a diff marked every line. Compared as ``MatchLog.content_sha256`` compares
    them: each in its canonical JSON. ``stored_name``: what the message calls the match of ``rows`` (a dispute
    bundle's: "the match in events.jsonl")."""
    try:
        stored = stored_log(rows)
    except ZXError:
        return ""
    if _canonical(log.header) != _canonical(stored.header):
        return f": first at {log.source}:{log.header_line}, the header"
    for mine, theirs in zip(log.records, stored.records):
        if _canonical(mine.data) != _canonical(theirs.data):
            return (f": first at {log.source}:{mine.line}, {cut(json.dumps(mine.data, ensure_ascii=False), 120)} "
                    f"where {stored_name} has {cut(json.dumps(theirs.data, ensure_ascii=False), 120)}")
    if len(log.records) != len(stored.records):
        more, fewer = ("this log", stored_name) if len(log.records) > len(stored.records) else \
            (stored_name, "this log")
        return (f": {more} has {abs(len(log.records) - len(stored.records)):,} more record(s) after the "
                f"{min(len(log.records), len(stored.records)):,} both have ({fewer} ends there)")
    return ""


# ---------------------------------------------------------------------- a stored match
def stored_log(rows: list[Row]) -> MatchLog:
    """The log a stored match was imported from, rebuilt from its events (header + records by line)."""
    first = next((r for r in rows if games.is_topic(r.topic, "Started") and r.state), None)
    if first is None:
        raise ZXError("the Started event of this match is missing or cannot be decoded: nothing to audit")
    started = first.state
    records: dict[int, dict] = {}
    for r in rows:
        st = r.state or {}
        rec, line = st.get("rec"), st.get("line")
        if isinstance(rec, dict) and isinstance(line, int) and line not in records:
            records[line] = rec
    header_line = started.get("line") or 1
    log = MatchLog(source=started.get("source") or "", header_line=header_line, header=started.get("header"),
                   records=[Record(line, records[line]) for line in sorted(records)],
                   game=games.for_topic(first.topic))
    log.lines = regenerate(log)[header_line - 1:]
    return log


def regenerate(log: MatchLog) -> list[str]:
    """The log's lines, each record on its original line (blank lines in between keep the numbers)."""
    out: list[str] = [""] * (log.header_line - 1)
    out.append(json.dumps(log.header, ensure_ascii=False))
    for rec in log.records:
        out.extend([""] * (rec.line - len(out) - 1))
        out.append(json.dumps(rec.data, ensure_ascii=False))
    return out


def seq_of_lines(rows: Iterable[Row]) -> dict[int, int]:
    """line -> seq of the event that carries that line's record (else the first event of that line)."""
    carrier: dict[int, int] = {}
    first: dict[int, int] = {}
    for r in rows:
        st = r.state or {}
        line = st.get("line")
        if not isinstance(line, int):
            continue
        first.setdefault(line, r.seq)
        if st.get("rec") is not None:
            carrier.setdefault(line, r.seq)
    return {**first, **carrier}


def audit_stored(app: Any, match_id: str, catalog: Catalog | None = None, seal: SealReading | None = None) -> Audit:
    """Re-check a stored match against the current rules engine and verify its digest chain (``seal``: as
    ``compare_with_store``). ``app``: a ``MatchService``, else a ``TypeError``; a match with no stored event is
    ``replay.UnknownMatch``, as ``replay.get_match`` and ``replay.verify_match`` say it."""
    from eventsourcing.application import Application

    from zx_events import replay

    if not isinstance(app, Application):  # (a store's path: an AttributeError on 'mapper', inside)
        raise ArgumentTypeError(
            f"audit_stored takes a MatchService (zx_events.application.MatchService(store, create=False)), "
            f"not {type(app).__name__} {shown(app)}")
    if not isinstance(match_id, str):
        raise ArgumentTypeError(f"a match id is a str, not {type(match_id).__name__} {shown(match_id)}")
    catalog = _given_catalog(catalog)
    rows = stored_rows(app, match_uuid(match_id))
    if not rows:
        raise replay.unknown(app, match_id)
    verdict = (seal or SealReading(app)).verdict(match_id, match_uuid(match_id), rows)  # its chain and the seal
    log = stored_log(rows)
    warn_other_game(log, catalog)
    started = next(r.state for r in rows if games.is_topic(r.topic, "Started") and r.state)
    missing = unpinned_references(log, started, catalog)
    # a board the match did not pin judges none of its records (QA round 28: a board file under a name zx does not
    # ship was "1 malformed log", one under a shipped name with other content was judged on the shipped board)
    audit = unchecked(log, missing) if missing else _audit_log(log, pinned_references(log, started, catalog))
    seqs = seq_of_lines(rows)
    audit.findings = [Finding(f.kind, f.line, f.turn, f.player, f.rule, f.message,
                              seqs.get(f.line, 1) if f.line is not None else None, f.game) for f in audit.findings]
    audit.match, audit.stored, audit.rows, audit.verdict = match_id, True, rows, verdict
    audit.events, audit.head = len(rows), verdict.head
    audit.integrity = verdict.status
    audit.integrity_detail = None if verdict.ok else verdict.message
    audit.pinned = pinned_of(started, game_of(log))
    audit.warnings = audit.warnings + pin_warnings(audit)  # (an unchecked one's: why, first)
    if not verdict.ok:
        audit.warnings.insert(0, failure_warning(verdict))
    if log.content_sha256 != started.get("content_sha256"):
        audit.warnings.append(f"the records stored in the events do not reproduce the imported log (content "
                              f"sha256 {log.content_sha256[:12]}, recorded at import "
                              f"{str(started.get('content_sha256'))[:12]})")
    altered_at = None if verdict.ok else verdict.seq  # the first event the chain does not verify: from there the
    if altered_at is not None:  # records are not the ones imported, and a finding on them is of no record the log had
        # (an undecodable event's record lost: a false 301.1 at the next record that depended on it)
        kept = [f for f in audit.findings if f.seq is not None and f.seq < altered_at]
        left_out = len(audit.findings) - len(kept)
        if left_out:
            audit.findings = kept
            audit.warnings.append(f"{counted(left_out, 'finding')} of the re-check at or after seq {altered_at} "
                                  f"{'is' if left_out == 1 else 'are'} not shown: the store was altered there (zx "
                                  f"verify {match_id}), so the records from there on are not the ones imported; "
                                  f"zx audit the original log file to judge them")
        rows_kept = [r for r in rows if r.seq < altered_at]
    else:
        rows_kept = rows
    recorded = sum(games.is_topic(r.topic, "ViolationRecorded") for r in rows_kept)
    found = sum(f.kind == "rule" for f in audit.findings)
    if recorded != found and not missing:  # (nothing re-checked: no count to compare)
        audit.warnings.append(recount_warning(recorded, found, audit.other_than_pinned))
    return audit


def _given_catalog(catalog: Any) -> Any:
    """``catalog`` as ``MatchService.import_logs`` takes it (``application.given_catalog``)."""
    from zx_events.application import given_catalog

    return given_catalog(catalog)


def unpinned_references(log: MatchLog, started: dict, references: Any) -> dict[str, str]:
    """The fixtures (X610Z: the board) a stored match pinned that neither the command line gives (``references``)
    nor zx ships with the pinned content -> why (``pins.unpinned``): the audit may judge its records by none."""
    game = game_of(log)
    given = {kind for kind in game.fixture_options()
             if isinstance(references, Mapping) and references.get((game.key, kind)) is not None}
    pins = {kind: started.get(kind) for kind in game.fixture_options() if kind not in given}
    return unpinned(game, log.header, pins)


def unchecked(log: MatchLog, missing: dict[str, str]) -> Audit:
    """The audit of a stored match whose pinned fixtures ``missing`` (kind -> why) are not at hand: no record judged,
    no finding (its log is not malformed: docs/audit.md), a warning for each saying what to pass; not ok
    (``Audit.ok``: exit 1), since nothing was judged."""
    game = game_of(log).key
    audit = Audit(log.match_id, log.source, True, 0, [], NOT_STORED, log=log, game=game,
                  fixtures={kind: None for kind in missing}, unchecked=tuple(missing))
    audit.warnings = [f"{why}: its records were not re-checked; pass --{kind} FILE (the {kind} file the match was "
                      f"imported with) to audit with the pinned one" for kind, why in missing.items()]
    return audit


def recount_warning(recorded: int, found: int, other: Mapping[str, tuple[dict, dict]] | None = None) -> str:
    """The warning of a stored match whose audit finds another number of violations than its import recorded
    (it said "1 violation were recorded"). ``other``: ``Audit.other_than_pinned``; when the catalog or a board
    differs from the pinned one, that is named as the difference (it blamed "the current rules engine" for the
    finding of a catalog edited after import)."""
    was = f"{recorded:,} violation{'s were' if recorded != 1 else ' was'} recorded at import"
    if other:
        pinned = " and ".join(f"{kind} {named_ref(pin)}" for kind, (_, pin) in other.items())
        used = " and ".join(f"{kind} {named_ref(used)}" for kind, (used, _) in other.items())
        return (f"{was} against {pinned}, this audit finds {found:,} against {used}: another "
                f"{' and '.join(other)} than the match pinned, not the rules engine, makes the difference")
    return f"{was}, the current rules engine finds {found:,}"


def named_ref(ref: dict, digits: int = 12) -> str:
    """A catalog's or a board's name and the first ``digits`` hex digits of its SHA-256 (12 as the warnings give
    them; zx audit's titles and summaries 16)."""
    return f"{ref.get('name')} (sha256 {str(ref.get('sha256'))[:digits]})"


def pinned_of(started: dict, game: Any) -> dict:
    """What a stored match was checked against at import (its Started event): catalog, fixtures, rules."""
    return {"catalog": started.get("catalog"), **{kind: started.get(kind) for kind in game.fixture_options()},
            "rules_version": started.get("rules_version")}


def pinned_references(log: MatchLog, started: dict, references: Any) -> Any:
    """The reference data to audit a stored match with: ``references`` (the command line's, as
    ``games.load_references`` gives them) and, for each of its game's fixtures not given there
    (X610Z: the board), the shipped one the match pinned (its Started event holds the name and
    SHA-256 under the fixture's kind, as the header names it) when that name holds that content.
    A pinned file not shipped with zx cannot be read from data (docs/security.md): ``audit_stored``
    then judges nothing (``unpinned_references``, ``unchecked``) and says to pass ``--KIND FILE``."""
    game = game_of(log)
    out: dict[Any, Any] = {}
    for kind in game.fixture_options():
        pin = started.get(kind)
        given = references.get((game.key, kind)) if isinstance(references, Mapping) else None
        if given is not None or not isinstance(pin, dict) or not isinstance(pin.get("name"), str):
            continue
        shipped = shipped_fixture(game, log.header, kind, pin)
        if shipped is not None:
            out[(game.key, kind)] = shipped
    if not out:
        return references
    if isinstance(references, Mapping):
        return {**references, **out}
    return {**({game.key: references} if references is not None else {}), **out}


def pin_warnings(audit: Audit) -> list[str]:
    """Warn when the catalog, a fixture (X610Z: the board) or the rules version used now are not the
    ones the match was pinned to."""
    out = []
    pinned = audit.pinned or {}
    cat, used = pinned.get("catalog") or {}, audit.catalog or {}
    if used and cat.get("sha256") != used.get("sha256"):
        out.append(f"the match was checked at import against catalog {cat.get('name')} (sha256 "
                   f"{str(cat.get('sha256'))[:12]}), this audit used {used.get('name')} (sha256 "
                   f"{str(used.get('sha256'))[:12]}): pass --catalog to audit with the pinned one")
    for kind, used in audit.fixtures.items():
        pin = pinned.get(kind) or {}
        if used and pin and pin.get("sha256") != used.get("sha256"):
            # a pinned one zx ships is used without --KIND (it said "pass --board FILE" of a match imported
            # with no board file)
            how = (f"leave out --{kind}: zx ships the {kind} {pin.get('name')}" if _ships(audit, kind, pin) else
                   f"pass --{kind} FILE (the {kind} file the match was imported with)")
            out.append(f"the match was checked at import against {kind} {pin.get('name')} (sha256 "
                       f"{str(pin.get('sha256'))[:12]}), this audit used {used.get('name')} (sha256 "
                       f"{str(used.get('sha256'))[:12]}): {how} to audit with the pinned one")
    if pinned.get("rules_version") and pinned["rules_version"] != audit.rules_version:
        out.append(f"the match was checked at import against rules {pinned['rules_version']}, "
                   f"this audit used {audit.rules_version}")
    return out


def _ships(audit: Audit, kind: str, pin: dict) -> bool:
    return audit.game is not None and shipped_fixture(games.get(audit.game), audit.log.header if audit.log else None,
                                                      kind, pin) is not None


def file_events(audit: Audit) -> list[dict[str, Any]]:
    """The events of an audit as the bundle lists them: seq, topic, digest, payload."""
    if audit.rows is not None:
        return [{"seq": r.seq, "topic": r.topic, "digest": r.digest,
                 "payload": _payload(r.state) if r.state is not None else None} for r in audit.rows]
    if audit.checked is None:
        return []
    from zx_events.integrity import event_topic

    events = list(audit.checked.match.pending_events)
    chain(events, ZERO)  # the digests these events would get at import (they are not stored)
    return [{"seq": e.originator_version, "topic": event_topic(e), "digest": e.digest,
             "payload": _payload(vars(e))} for e in events]


def _payload(state: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in state.items():
        if k in ("digest", "originator_id", "originator_version"):
            continue
        out[k] = v.isoformat() if hasattr(v, "isoformat") else v
    return out
