"""A dispute bundle: one zip a floor judge sends to the head judge.

It holds the original log, the events with their digests, every violation with its rule number and
title, and for each violation the state just before and just after the record that broke the rule,
from the judge's, P1's and P2's seats (each player sees only what they may see: the game's
``seats_rule``, Z/X 301.3, X610Z 502.3). The states
are derived by the current rules engine from the log (the same run the audit reports on).
"""

from __future__ import annotations

import contextlib
import copy
import json
import lzma
import re
import zipfile
import zlib
from typing import Any, Callable, Iterable, Iterator

from zx_events.audit import DIFFERS, Audit, file_events, regenerate
from zx_events.errors import cut
from zx_events.freetext import printable
from zx_events import games
from zx_events.ids import project
from zx_events.seats import Masker

SEATS = ("judge", "P1", "P2")


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n"


def original_lines(audit: Audit) -> list[str]:
    """The log as it was handed in: a file's own lines, or the log rebuilt from the stored events."""
    log = audit.log
    if log is None:
        return []
    if audit.stored or not log.lines:
        return regenerate(log)
    return [""] * (log.header_line - 1) + list(log.lines)


def _blocks(events: list, violation_index: int) -> tuple[int, int]:
    """The events of the record that broke the rule: [start, end) around its ViolationRecorded event."""
    line = getattr(events[violation_index], "line", None)
    start = end = violation_index
    while start > 0 and getattr(events[start - 1], "line", None) == line:
        start -= 1
    while end + 1 < len(events) and getattr(events[end + 1], "line", None) == line:
        end += 1
    return start, end + 1


def state_pairs(audit: Audit) -> Iterator[tuple[int, dict | None, dict | None]]:
    """For each rule finding of ``audit`` (``n`` numbering every finding from 1, as violations.json does): ``(n,
    the state before its record, the state after it)``, from the judge's, P1's and P2's seats (None before the
    match), derived one finding at a time from the audit's run of the rules engine: a state of a long match with
    many violations holds every violation so far, three times, and all of them at once took 4.6 GB at 2,000
    violations (QA round 36); two are held here. None for an audit that checked nothing (``audit.checked``)."""
    if audit.checked is None:
        return
    events = list(audit.checked.match.pending_events)
    spans = iter([_blocks(events, i) for i, e in enumerate(events) if type(e).__name__ == "ViolationRecorded"])
    cat = audit.checked.catalog
    names = dict(cat.names) if cat is not None else {}
    game = games.get(audit.game)
    mask = Masker([*names, *names.values()])  # a player's seat as zx replay shows it (names masked: docs/security.md)
    agg: Any = None
    done = 0
    kept: dict[int, dict | None] = {}  # the last two positions derived (a finding's before and after)

    def at(k: int) -> dict | None:
        nonlocal agg, done
        if k in kept:
            return kept[k]
        while done < k:  # a copy: an event body must not alias the events we list
            agg = project(agg, (copy.deepcopy(events[done]),))  # (ids.project: an event it cannot apply is a DamagedMatch)
            done += 1
        kept[k] = None if agg is None else \
            {"seq": k, **{seat: game.build_view(agg, seat, names, seq=k, mask=mask).to_json() for seat in SEATS}}
        while len(kept) > 2:
            del kept[min(kept)]
        return kept[k]

    for n, f in enumerate(audit.findings, 1):
        if f.kind != "rule":
            continue
        start, end = next(spans)
        yield n, at(start), at(end)


def original_name(audit: Audit) -> str:
    """The bundle's copy of the log, with the game's suffix: ``original.zxlog``, ``original.x610zlog``."""
    return "original" + games.get(audit.game).log_suffix


NOT_THE_STORED = "(this log is not the stored match: its head is under integrity)"


def ref_text(ref: dict[str, Any]) -> str:
    """A catalog or board as the README names it: ``NAME sha256 HEX``, a line break in its name as its escape
    (``printable`` keeps one: a catalog file named with one broke the README's line in two, and its pins were then
    "edited", QA round 36)."""
    name = str(ref.get('name'))
    if "\n" in name or "\r" in name:
        name = name.replace("\r", "\\r").replace("\n", "\\n")
    return f"{name} sha256 {ref.get('sha256')}"


def one_line(text: str) -> str:
    """``text`` with its line breaks as their escapes (``\\n``), as README.txt writes a name or a warning on its
    line (``printable`` keeps a line break)."""
    return text.replace("\r", "\\r").replace("\n", "\\n") if "\n" in text or "\r" in text else text


def readme_ref(ref: dict[str, Any]) -> str:
    """A catalog or board as README.txt's lines hold it, its control characters escaped (``readme`` writes each line
    through ``printable``): what ``_readme_checked`` and ``_states_checked`` compare its lines with."""
    return printable(ref_text(ref))


def pins_line(pinned: dict[str, Any], kinds: Iterable[str]) -> str:
    """The README's line of what a stored match pinned at import (``pinned``: its catalog, the game's other
    reference data of ``kinds`` where pinned, and ``rules_version``); ``_readme_checked`` compares it with the one
    the bundle's Started event gives."""
    fixtures = "".join(f"{kind} {ref_text(pinned[kind])}, " for kind in kinds if isinstance(pinned.get(kind), dict))
    return (f"pinned at import: catalog {ref_text(pinned.get('catalog') or {})}, {fixtures}"
            f"rules {pinned.get('rules_version')}")


def violations_line(n: int) -> str:
    """The README's line above its list of violations."""
    return f"{n:,} violation{'s' if n != 1 else ''}:"


def finding_line(f: dict[str, Any], stored: bool) -> str:
    """One violation of the README (``f``: its entry of violations.json)."""
    where = f"seq {f['seq']} (line {f['line']})" if stored else f"line {f['line']}"
    rule = f"rule {f['rule']} ({f['title']})" if f["rule"] else f"format ({f['title']})"
    return f"  {f['n']:>2}. {where}, turn {f['turn']}, {f['player'] or '-'}: {rule}: {f['message']}"


def readme(audit: Audit, findings: list[dict[str, Any]], content_ok: bool | None,
           given: dict[str, str] | None = None) -> str:
    """``given``: the reference files the audit was given (kind -> their name in the bundle), which it holds."""
    given = given or {}
    cat, pinned = audit.catalog or {}, audit.pinned or {}
    seats_rule = games.get(audit.game).seats_rule  # what each seat may see: the match's game's rule
    log = original_name(audit)
    lines = [
        f"Dispute bundle for match {audit.match}",
        "",
        f"source:         {audit.source}",
        f"audited:        {'the stored match (re-checked from its events)' if audit.stored else 'the log file'}",
        f"catalog used:   {ref_text(cat)}",
        # the game's other reference data (X610Z: the board, whose geometry rules 202.9 and 603.2 read)
        *(f"{kind + ' used:':<15} {ref_text(used)}" for kind, used in audit.fixtures.items() if used),
        f"rules version:  {audit.rules_version}",
    ]
    if audit.stored:
        lines.append(pins_line(pinned, audit.fixtures))
    lines += [
        # a log that differs from its stored match: not "(not stored)" above "integrity: differs (the store holds ...)"
        f"head digest:    {audit.head or (NOT_THE_STORED if audit.integrity == DIFFERS else '(not stored)')}",
        f"integrity:      {audit.integrity}" + (f" ({audit.integrity_detail})" if audit.integrity_detail else ""),
    ]
    if content_ok is not None:
        lines.append(f"{log}: " + ("reproduces the content hash recorded at import" if content_ok
                                           else "does NOT reproduce the content hash recorded at import"))
    for w in audit.warnings:  # (each on its line: a catalog file named with a line break broke one in two)
        lines.append(f"warning:        {one_line(w)}")
    lines += ["", violations_line(len(findings))]
    lines += [finding_line(f, audit.stored) for f in findings]
    lines += [
        "",
        "Contents:",
        f"  {log:<19} the match log; every record on its original line number",
        "  events.jsonl        every event: seq, topic, digest (SHA-256 chained over the previous one), payload",
        "  violations.json     each violation: rule number and title, line/seq, turn, player, message, record",
        "  violation-NN/state-before.json, state-after.json",
        "                      the state just before and just after the record that broke the rule,",
        "                      as the judge, P1 and P2 each see it" + (f" ({seats_rule})" if seats_rule else ""),
        *(f"  {name:<19} the {kind} file this audit was given (its sha256 above)" for kind, name in given.items()),
        "",
        # the files it was given are in the bundle (a board file of the venue: without it the same log gave the
        # opposite finding against the board its header names)
        f"Check it: zx audit {log}" + "".join(f" --{kind} {name}" for kind, name in given.items())
        + "   (its rules)",
        "          zx verify --bundle THIS.zip --head HEAD   (its events' chain and its log, without the store; HEAD:"
        " the score sheet's)" if audit.stored else "          (a log file's bundle: its events are derived, not stored)",
        "          zx verify MATCH --head HEAD   (against the store)",
        *([f"          (with a {' or '.join(missing)} zx does not ship: add "
           + " ".join(f"--{kind} FILE" for kind in missing) + ", the files named above)"]
          if (missing := [k for k in ("catalog", *audit.fixtures) if k not in given]) else []),
    ]
    # a head judge reads it with cat: the log's and the catalog's text (names, messages, the catalog's classes)
    # with its control characters escaped, as zx audit shows them (an ESC] set the window title, ESC[2J cleared it)
    return "\n".join(printable(line) for line in lines) + "\n"


def _state_files(n: int, before: dict | None, after: dict | None) -> dict[str, str]:
    """The files of violation ``n``'s states (none when it has neither: a format finding)."""
    if before is None and after is None:
        return {}
    return {f"violation-{n:02d}/state-before.json": _dump(before), f"violation-{n:02d}/state-after.json": _dump(after)}


def bundle_bytes(audit: Audit, given: dict[str, tuple[str, bytes]] | None = None) -> tuple[bytes, list[str]]:
    """The dispute bundle of ``audit`` (a zip, in memory: a few files of text) and the names it holds.
    ``given``: the reference files the audit was given (``zx audit --catalog FILE --board FILE``), kind ->
    (their name in the bundle, their bytes): held in it, for ``zx audit`` of its log to find what it found."""
    import io

    given = {kind: file for kind, file in (given or {}).items() if _used(audit, kind, file[1])}
    with_states = {n for n, f in enumerate(audit.findings, 1) if f.kind == "rule"} if audit.checked is not None \
        else set()  # (each rule finding of a checked audit has its states: after its record, at least)
    findings = []
    records = {r.line: r.data for r in audit.log.records} if audit.log is not None else {}
    for n, f in enumerate(audit.findings, 1):
        entry = {"n": n, **f.to_json(audit.stored), "line": f.line, "record": records.get(f.line)}
        if n in with_states:
            entry["states"] = f"violation-{n:02d}"
        findings.append(entry)
    original = original_lines(audit)
    content_ok = None
    if audit.stored and audit.log is not None and audit.rows:
        started = next((r.state for r in audit.rows if r.state and "content_sha256" in r.state), None) or {}
        content_ok = audit.log.content_sha256 == started.get("content_sha256")
    body = {
        "README.txt": readme(audit, findings, content_ok, {kind: name for kind, (name, _) in given.items()}),
        original_name(audit): "\n".join(original) + "\n" if original else "",
        "events.jsonl": "".join(json.dumps(e, ensure_ascii=False, default=str) + "\n" for e in file_events(audit)),
        "violations.json": _dump(findings),
    }
    buf = io.BytesIO()
    names = list(body)
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, text in body.items():
            z.writestr(name, text)
        for n, before, after in state_pairs(audit):  # (one finding's states at a time)
            for name, text in _state_files(n, before, after).items():
                z.writestr(name, text)
                names.append(name)
        for name, data in given.values():
            z.writestr(name, data)
    return buf.getvalue(), [*names, *(name for name, _ in given.values())]


def _used(audit: Audit, kind: str, data: bytes) -> bool:
    """Whether the reference file ``data`` of ``kind`` given to the audit is the one it used (its SHA-256, as zx
    hashes such a file): one of another game's (``--board`` for a Z/X match, which a warning says was not used) is
    left out of the bundle, whose check (``verify_bundle``) holds each such file to the one its match pinned."""
    from zx_events.errors import FormatError

    used = audit.catalog if kind == "catalog" else audit.fixtures.get(kind)
    if not isinstance(used, dict):
        return False
    try:
        return _reference_sha256(data, kind, kind) == used.get("sha256")
    except FormatError:
        return False


def _reference_sha256(data: bytes, kind: str, name: str) -> str:
    """The SHA-256 of a reference file (a catalog, a board) as zx pins it at import: of its text, line ends read as
    LF (``errors.decoded``, which raises ``FormatError`` naming ``name`` for bytes that are no such text)."""
    import hashlib

    from zx_events.errors import decoded

    return hashlib.sha256(decoded(data, f"the {kind} file", name).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------- checking a bundle without the store
# the files ``zx audit --bundle`` writes (docs/audit.md, Dispute bundles), but for the log, whose name is its game's:
# the README, the events, the findings and their states, and the catalog and board files the audit was given
BUNDLE_FILES = re.compile(r"README\.txt|events\.jsonl|violations\.json|violation-\d{2,}/(state-(before|after)\.json)?"
                          r"|(catalog|board)(\.[^./]+)?")  # (violation-NN/: a folder entry, as zip -r writes one)


MAX_BUNDLE = 256 << 20  # bytes of a bundle file, 256 MiB (one match's: a 650-line match's is 16 KB)
MAX_MEMBER = 64 << 20  # bytes of one file in it, uncompressed, as declared and as read (events.jsonl of the
# longest match a log holds, 8 MiB of lines: about 64 MiB); its log is read within a log's limits too


def _open_bundle(path: str) -> zipfile.ZipFile:
    """The bundle's zip, after its limits: a regular file (a FIFO waited forever, a link to /dev/zero read
    past 8 GB) of at most ``MAX_BUNDLE`` bytes, whose files declare at most ``MAX_MEMBER`` bytes each."""
    from zx_events.errors import ZXError
    from zx_events.files import NotRegular, open_regular

    try:
        f, size = open_regular(path)
    except FileNotFoundError:
        raise ZXError(f"no bundle at {path}") from None
    except NotRegular as e:
        raise ZXError(f"{path} is {e.what}, not a regular file: a dispute bundle is a zip file (nothing was "
                      f"read)") from None
    except OSError as e:
        raise ZXError(f"cannot read the bundle {path}: {e.strerror or e}") from None
    try:
        if size > MAX_BUNDLE:
            raise ZXError(f"{path} is too big for a dispute bundle: {size:,} bytes (at most {MAX_BUNDLE >> 20} MiB, "
                          f"{MAX_BUNDLE:,} bytes: docs/audit.md, Dispute bundles): refused, nothing in it was checked")
        z = zipfile.ZipFile(f)
        big = next((i for i in z.infolist() if i.file_size > MAX_MEMBER), None)
        if big is not None:
            raise ZXError(_too_big(path, big.filename, f"{big.file_size:,} bytes"))
        return z
    except BaseException:
        f.close()
        raise


def _too_big(path: str, name: str, size: str) -> str:
    return (f"{path}: its {name} holds {size} uncompressed (a file of a dispute bundle holds at most "
            f"{MAX_MEMBER >> 20} MiB, {MAX_MEMBER:,} bytes: docs/audit.md, Dispute bundles): refused, it is not "
            f"a bundle zx audit wrote")


@contextlib.contextmanager
def _opened(z: zipfile.ZipFile, path: str, name: str) -> Iterator[Any]:
    """The bundle's file ``name``, open: every read of a bundle's files goes through here, where what the zip
    module raises of a file it cannot read is a ``ZXError`` naming it (a hostile bundle: an entry flagged encrypted
    was a RuntimeError, compression method 99 a NotImplementedError, "This is a bug in zx", QA round 37);
    ``KeyError`` when it is not there. A ``RecursionError`` of the reader (a log's JSON nested too deep) is its own."""
    from zx_events.errors import ZXError

    try:
        with z.open(name) as f:
            yield f
    except RecursionError:
        raise
    except (RuntimeError, NotImplementedError, zipfile.BadZipFile, EOFError, zlib.error, lzma.LZMAError, OSError) as e:
        reason = ("it is encrypted (zx audit --bundle writes no password)" if "encrypted" in str(e) or
                  "password" in str(e) else cut(printable(str(e) or type(e).__name__), 120))
        raise ZXError(f"{path} is not a dispute bundle of zx audit --bundle: its {printable(name)} cannot be read: "
                      f"{reason}") from None


def _read_member(z: zipfile.ZipFile, path: str, name: str) -> bytes:
    """The file ``name`` of the bundle, read a block at a time and never past ``MAX_MEMBER`` bytes, whatever
    its header declares (``ZXError`` past it); ``KeyError`` when it is not there."""
    from zx_events.errors import ZXError
    from zx_events.files import TooBig, read_capped

    with _opened(z, path, name) as f:
        try:
            return read_capped(f, MAX_MEMBER)
        except TooBig:
            raise ZXError(_too_big(path, name, f"more than {MAX_MEMBER:,} bytes")) from None


def _read_log(z: zipfile.ZipFile, path: str, name: str) -> list:
    """The matches of the bundle's log ``name``, read as ``zx import`` reads a log file (a block at a time,
    within the limits of docs/match-log.md, Limits: a match past them is one with its error) and never past
    ``MAX_MEMBER`` bytes (``ZXError``)."""
    from zx_events.errors import ZXError
    from zx_events.files import Capped, TooBig
    from zx_events.logformat.reader import iter_pieces, parse_piece

    with _opened(z, path, name) as f:
        try:
            return [log for piece in iter_pieces(name, stream=Capped(f, MAX_MEMBER)) for log in parse_piece(piece)]
        except TooBig:
            raise ZXError(_too_big(path, name, f"more than {MAX_MEMBER:,} bytes")) from None


def verify_bundle(path: str, head: str | None = None) -> Any:
    """``zx verify --bundle FILE [--head HEX]``: the digest chain of a dispute bundle's ``events.jsonl`` recomputed
    without the store (each event's canonical bytes from its payload, as ``zx verify`` does from the stored rows),
    and its log (``original`` and its game's suffix, the game of its Started event) checked against the content
    hash its Started event recorded at import, each record on the line its event carries; ``head``: the one written
    on the score sheet; then its board and catalog files against the SHA-256 its Started event pinned
    (``_reference_files``). Lines of ``events.jsonl`` out of the order of their seq are diagnosed as
    ``zx verify`` diagnoses a store's rows (``_out_of_order``). An ``integrity.Verdict``.
    ``README.txt`` and ``violations.json`` are the audit's report, not part of the chain: their head digest,
    integrity, pins and violations are checked against its events (``_readme_checked``: an edited head digest, or a
    violation made up, is ``altered``), and its violation-NN/ states derived again from its log (``_states_checked``)
    when the README says the audit judged by the rules and data the match pinned. A bundle of a log file (not of
    a stored match) holds no chain to check; one holding a file that
    ``zx audit --bundle`` does not write is refused (the judge reads the bundle's files). The bundle comes from
    outside: it is held to ``MAX_BUNDLE`` and each of its files to ``MAX_MEMBER``, its log to a log's limits."""
    return check_bundle(path, head)[0]


NOT_COVERED = "README.txt and violations.json are not covered by the chain"
STATES_CHECKED = "the states in violation-NN/ are the ones its log gives"  # (the end of a bundle checked whole)


def check_bundle(path: str, head: str | None = None, progress: Callable[[int, int], None] | None = None
                 ) -> tuple[Any, str]:
    """``verify_bundle``, and what of the bundle's report its check covered, in words for the verdict line: its
    README.txt's head digest, integrity, pins and violations and its violations.json checked against its events
    (``_readme_checked``), and its states (violation-NN/) derived again, or why they are not (``NOT_COVERED``, and
    why)."""
    from zx_events.errors import ZXError

    try:
        z = _open_bundle(path)
    except (zipfile.BadZipFile, ValueError, OSError) as e:
        if isinstance(e, ZXError):
            raise
        raise ZXError(f"{path} is not a dispute bundle of zx audit --bundle (events.jsonl and original.* in a zip): "
                      f"{e}") from None
    covered = [NOT_COVERED]
    with z:
        return _verify_open(z, path, head, covered, progress), covered[0]


def _verify_open(z: zipfile.ZipFile, path: str, head: str | None, covered: list[str],
                 progress: Callable[[int, int], None] | None = None) -> Any:
    from zx_events.errors import ZXError
    from zx_events.ids import match_uuid
    from zx_events.integrity import Row, Verdict, canonical, check_head, verify_rows
    from zx_events.logformat.reader import FormatError

    try:
        names = z.namelist()
        text = _read_member(z, path, "events.jsonl").decode("utf-8")
    except ZXError:
        raise
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, ValueError, OSError) as e:
        raise ZXError(f"{path} is not a dispute bundle of zx audit --bundle (events.jsonl and original.* in a zip): "
                      f"{e}") from None
    events, at = _events(path, text)
    started = events[0]["payload"] if isinstance(events[0]["payload"], dict) else {}
    match = started.get("match_id")
    if not isinstance(match, str) or not games.is_topic(str(events[0]["topic"]), "Started"):
        raise ZXError(f"{path}: its first event is not a Started event naming its match: nothing to verify")
    # the log of the match's game, by its exact name: not the first file whose name starts with "original." (an
    # untouched copy beside an edited log the judge reads), and no file the audit did not write
    original = "original" + games.for_topic(str(events[0]["topic"])).log_suffix
    extra = [n for n in dict.fromkeys(names) if n != original and not BUNDLE_FILES.fullmatch(n)]
    twice = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    if extra or twice:
        what = (f"{', '.join(map(repr, extra[:5]))}{' ...' if len(extra) > 5 else ''}, which zx audit --bundle does "
                f"not write" if extra else f"{', '.join(map(repr, twice))} twice")
        raise ZXError(f"{path} holds {what} (a bundle holds README.txt, {original}, events.jsonl, "
                      f"violations.json, violation-NN/ and the catalog and board files the audit was given: "
                      f"docs/audit.md, Dispute bundles): refused, it is not the bundle zx audit wrote; ask the floor "
                      f"judge for the bundle as written")
    try:
        logs = _read_log(z, path, original)
    except ZXError as e:
        if isinstance(e, FormatError):  # (empty, or unreadable)
            raise ZXError(f"{path} is not a dispute bundle of zx audit --bundle: its match's log {original}: "
                          f"{e.message}") from None
        raise
    except (KeyError, zipfile.BadZipFile, OSError) as e:
        raise ZXError(f"{path} is not a dispute bundle of zx audit --bundle: its match's log {original}: {e}") from None
    if not games.is_topic(str(events[-1]["topic"]), "Sealed") and head is None and not _says_stored(z, path):
        raise ZXError(f"{path} is the bundle of a log file, not of a stored match: its events were derived by the "
                      f"audit, not stored, so there is no chain to check; `zx audit {original}` checks its rules")
    # (a stored match's bundle without its seal, by the head given or its README: verify_rows says "deleted")
    oid = match_uuid(match)
    for n, e in zip(at, events):
        if not isinstance(e["seq"], int) or isinstance(e["seq"], bool):  # (a hostile bundle: never a traceback)
            raise ZXError(f"{path}: events.jsonl:{n}: its seq is not a whole number ({str(e['seq'])[:40]!r})")

    def rows_at(seqs: list[int]) -> list:
        out = []
        for seq, e in zip(seqs, events):
            payload = e["payload"] if isinstance(e["payload"], dict) else None
            body = canonical(str(e["topic"]), oid, seq, payload) if payload is not None else None
            out.append(Row(seq, str(e["topic"]), e["digest"] if isinstance(e["digest"], str) else None,
                           body, payload, oid))
        return out

    seqs = [e["seq"] for e in events]
    rows = rows_at(seqs)
    if all(a < b for a, b in zip(seqs, seqs[1:])):
        verdict = verify_rows(match, rows)  # (in order: a seq missing is deleted, as zx verify says it of a store)
    else:  # lines swapped, moved or copied: each event checked at its place in the file, as zx verify checks a store
        verdict = _out_of_order(match, rows_at(list(range(1, len(events) + 1))), seqs, at, rows)
    if verdict.ok and head is not None and not check_head(verdict, head).ok:  # the head written down first: a
        return check_head(verdict, head)  # bundle of another chain is not read further (its states are work)
    if verdict.ok:
        recorded = started.get("content_sha256")
        edited = ""
        over = next((log.error for log in logs if log.error is not None and log.error.message.startswith(
            ("match too long", "line too long"))), None)  # (past a log's limits: zx import rejects it)
        if over is not None:
            edited = (f"is not a log zx import reads: {over.message} at {original}:{over.line}: the log in the "
                      f"bundle was edited")
        elif not logs or logs[0].content_sha256 != recorded:
            edited = (f"does not reproduce the content hash its Started event recorded at import "
                      f"({str(recorded)[:12]}): the log in the bundle was edited"
                      f"{_edited_where(logs[0], rows) if logs else ''}")
        elif len(logs) > 1:
            edited = (f"holds {len(logs):,} matches, its events one: the log in the bundle was edited: a match added at "
                      f"{original}:{logs[1].header_line}")
        elif moved := _moved(logs[0], rows):
            edited = (f"holds its records on other lines than its events carry, so the lines its findings cite are not "
                      f"theirs: the log in the bundle was edited{moved}")
        if edited:
            return Verdict(match, verdict.events, "altered", None, f"the bundle's {original} {edited}; its events are "
                                                                   f"intact", verdict.head)
        wrong, declared = _reference_files(z, path, names, started, games.for_topic(str(events[0]["topic"])),
                                           logs[0])
        if wrong:
            return Verdict(match, verdict.events, "altered", None, f"{wrong}; its events are intact", verdict.head)
        wrong, covered[0] = _readme_checked(z, path, rows, started, games.for_topic(str(events[0]["topic"])),
                                            verdict.head, logs[0], progress, declared)
        if wrong:
            return Verdict(match, verdict.events, "altered", None, f"{wrong}; its events are intact", verdict.head)
        if not covered[0].endswith(STATES_CHECKED):  # its chain intact, its report not all checked: not "ok" (a
            # README.txt line edited switched the check of the states off, and the answer was ok, exit 0: QA round 36)
            verdict = Verdict(match, verdict.events, "unchecked", None,
                              f"{verdict.events:,} events, chain intact; {covered[0]}", verdict.head)
    elif verdict.status == "deleted" and not games.is_topic(str(events[-1]["topic"]), "Sealed") \
            and not _says_stored(z, path):  # a head was given for a bundle whose README calls it a log file's
        verdict = Verdict(verdict.match, verdict.events, verdict.status, verdict.seq,
                          f"{verdict.message} (its README calls it the bundle of a log file, whose events end without "
                          f"a seal; a head written down is a stored match's, whose bundle ends with its seal)",
                          verdict.head)
    return check_head(verdict, head) if head is not None else verdict


def _events(path: str, text: str) -> tuple[list[dict], list[int]]:
    """The events of a bundle's ``events.jsonl`` (one JSON object a line, blank lines left out) and the line of
    each; a line that is not JSON, or not an event, is a ``ZXError`` naming it (``events.jsonl:5``)."""
    from zx_events.errors import ZXError, cut

    events, at = [], []
    for n, line in enumerate(text.split("\n"), 1):  # (not splitlines: U+2028 in a name is no line end of JSON)
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except (ValueError, RecursionError) as err:
            reason = (f"{err.msg} at column {err.colno}" if isinstance(err, json.JSONDecodeError) else
                      "nested too deep" if isinstance(err, RecursionError) else str(err))  # (an internal error)
            raise ZXError(f"{path}: events.jsonl:{n} is not JSON: {reason} ({cut(line.strip(), 40)!r}): it is not the "
                          f"bundle zx audit wrote, whose events.jsonl holds one event a line") from None
        if not isinstance(e, dict) or not {"seq", "topic", "digest", "payload"} <= set(e):
            raise ZXError(f"{path}: events.jsonl:{n} is not an event of zx audit --bundle (an object with seq, topic, "
                          f"digest, payload)")
        events.append(e)
        at.append(n)
    if not events:
        raise ZXError(f"{path}: its events.jsonl holds no events of zx audit --bundle (seq, topic, digest, payload)")
    return events, at


def _out_of_order(match: str, rows: list, seqs: list[int], at: list[int], by_seq: list) -> Any:
    """The verdict on a bundle's events whose lines are not in the order of their seq (swapped, moved, a line
    copied): ``rows`` hold each event at its place in the file (seq 1, 2, ...), checked as ``zx verify`` checks a
    store's (``integrity.verify_rows``, its diagnosis shared: ``recorded_elsewhere``), and worded with the lines of
    events.jsonl (``at``): ``events.jsonl:10, where seq 10 belongs, holds seq 11 (...) (seq 10 is at
    events.jsonl:11): events were swapped or moved``. Where the events verify at their places, a line whose seq
    is not its place had its seq edited (``altered``); anything else is worded from ``by_seq`` (each event at the
    seq its line says), as before (``seq 10 missing``)."""
    from zx_events.integrity import Verdict, recorded_elsewhere, verify_rows

    verdict = verify_rows(match, rows)
    first = next(i for i, seq in enumerate(seqs) if seq != i + 1)  # (not in order: one is not at its place)
    where = (verdict.seq - 1) if verdict.seq is not None and not verdict.ok else None
    head = verdict.head
    if where is not None and where <= first and verdict.status in ("reordered", "inserted"):
        found = recorded_elsewhere(rows, where)
        if found is not None:
            k, kept = found
            row, seq = rows[where], where + 1
            what = row.topic.rsplit(":", 1)[-1]
            if kept:
                return Verdict(match, len(rows), "inserted", seq,
                               f"events.jsonl:{at[where]}, where seq {seq} belongs, holds a copy of seq {k + 1} "
                               f"({what}), which is still in place at events.jsonl:{at[k]}", head)
            own = [at[j] for j, s in enumerate(seqs) if s == seq and j != where]
            return Verdict(match, len(rows), "reordered", seq,
                           f"events.jsonl:{at[where]}, where seq {seq} belongs, holds seq {k + 1} ({what})"
                           + (f" (seq {seq} is at events.jsonl:{own[0]})" if own else "")
                           + ": events were swapped or moved", head)
    if where is None or where > first:  # its event verifies at its place: its seq alone was edited
        return Verdict(match, len(rows), "altered", first + 1,
                       f"events.jsonl:{at[first]} says seq {seqs[first]}, but its event verifies as seq {first + 1}, "
                       f"the place of its line: its seq was edited", head)
    return verify_rows(match, by_seq)


def _reference_files(z: zipfile.ZipFile, path: str, names: list[str], started: dict, game: Any, log: Any
                     ) -> tuple[str, dict[str, str]]:
    """What is wrong with the board and catalog files a bundle holds (``zx audit --board FILE --catalog FILE``:
    they change its findings), or "", and the kinds of those its README.txt says the audit used in place of the
    pinned one (kind -> README.txt's words of it, ``NAME sha256 HEX``). Each is hashed as zx hashes a reference
    file (its text, line ends as LF: ``errors.decoded``) and compared with the one its match's Started event pinned
    at import (the chain checked first: the pin is the importer's). A file of a kind its match pinned none of is
    named with the pin and its hash; so is one of another content, unless README.txt says so as zx audit writes it:
    its ``catalog used:`` (``board used:``) line names that content's hash, and it holds the warning zx audit writes
    of a match audited with another file than it pinned (a genuine bundle of ``zx audit MATCH --catalog OTHER``
    was "edited, swapped, or given to the audit in its place", QA round 37): its findings and states are then that
    file's, which ``_readme_checked`` says (not the match's: ``unchecked``)."""
    from zx_events.errors import FormatError, ZXError

    declared: dict[str, str] = {}
    for name in dict.fromkeys(names):
        m = re.fullmatch(r"(catalog|board)(\.[^./]+)?", name)
        if m is None:
            continue
        kind = m.group(1)
        pin = started.get(kind)
        if not isinstance(pin, dict) or not isinstance(pin.get("sha256"), str):
            reads = kind == "catalog" or kind in game.fixture_options()
            return (f"the bundle's {name} is a {kind} file, but its match pinned no {kind} at import (its Started "
                    f"event names none{'' if reads else f': a {game.name} match reads no {kind}'}): it is not a "
                    f"file the match was checked with"), {}
        try:
            data = _read_member(z, path, name)
        except (zipfile.BadZipFile, OSError) as e:
            raise ZXError(f"{path} is not a dispute bundle of zx audit --bundle: its {name}: {e}") from None
        try:
            sha = _reference_sha256(data, kind, name)
        except FormatError as e:
            return (f"the bundle's {name} is not the {kind} its match was imported with: {e.message} (its Started "
                    f"event pins {kind} {pin.get('name')} sha256 {pin['sha256'][:12]})"), {}
        if sha != pin["sha256"]:
            said = _said_used(z, path, started, game, log, kind, sha)
            if said is not None:
                declared[kind] = said
                continue
            return (f"the bundle's {name} is not the {kind} its match was imported with: its Started event pins "
                    f"{kind} {pin.get('name')} sha256 {pin['sha256'][:12]}, the file hashes to {sha[:12]} (edited, "
                    f"swapped, or given to the audit in its place, and its README.txt does not say the audit used "
                    f"it, as zx audit writes: the findings of `zx audit` with it are not the match's)"), {}
    return "", declared


def _raw_name(z: zipfile.ZipFile, path: str, shown: str, sha: str) -> str:
    """The name of a catalog of SHA-256 ``sha`` whose README.txt line (``readme_ref``: its control characters
    escaped) names it ``shown``, as the audit named it, which its states hold: ``shown`` itself, or the name whose
    escapes give it (``esc\\x1b[31mred``: ESC or a backslash, README.txt's line is the same), the one the bundle's
    first state holds (its states are then derived again under it and compared: either is the README's)."""
    if "\\" not in shown:
        return shown
    try:
        raw = shown.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except (UnicodeError, ValueError):
        return shown
    if raw == shown or readme_ref({"name": raw, "sha256": sha}) != f"{shown} sha256 {sha}":
        return shown
    first = next((n for n in z.namelist() if STATE_FILE.fullmatch(n)), None)
    held = (_member_text(z, path, first) or "") if first is not None else ""
    return shown if json.dumps(shown, ensure_ascii=False) in held else raw


def _said_used(z: zipfile.ZipFile, path: str, started: dict, game: Any, log: Any, kind: str, sha: str
               ) -> str | None:
    """README.txt's words of the ``kind`` the audit used (``NAME sha256 HEX``) where they name the bundle's
    ``kind`` file of SHA-256 ``sha`` (not the match's pinned one), each such line once, and README.txt holds the
    warning zx audit writes of that (``audit.pin_warnings``); else None."""
    from zx_events.audit import Audit, pin_warnings

    text = _member_text(z, path, "README.txt")
    if text is None:
        return None
    lines = text.split("\n")
    key = f"{kind} used:"
    used = [ln[len(key):].lstrip(" ") for ln in lines if ln.startswith(key)]
    if len(used) != 1 or not used[0].endswith(f" sha256 {sha}"):
        return None
    name = used[0][:-len(f" sha256 {sha}")]  # (its warning's words are the same under either name _raw_name reads)
    pinned = {k: started.get(k) for k in ("catalog", *game.fixture_options())}
    pinned["rules_version"] = started.get("rules_version")
    fixtures = {k: None for k in game.fixture_options()}
    catalog = {"name": name, "sha256": sha} if kind == "catalog" else started.get("catalog")
    if kind != "catalog":
        fixtures[kind] = {"name": name, "sha256": sha}
    audit = Audit(started.get("match_id"), "", True, 0, [], "ok", None, None, catalog, game.key,
                  pinned.get("rules_version") or "", fixtures, pinned, [], log=log)
    warnings = {ln[len("warning:"):].lstrip(" ") for ln in lines if ln.startswith("warning:")}
    mine = f"the match was checked at import against {kind} "  # (the warning of that kind: not the rules')
    wanted = [printable(one_line(w)) for w in pin_warnings(audit) if w.startswith(mine)]
    return used[0] if wanted and all(w in warnings for w in wanted) else None


def _readme_checked(z: zipfile.ZipFile, path: str, rows: list, started: dict, game: Any,
                    chain_head: str | None, log: Any, progress: Callable[[int, int], None] | None = None,
                    declared: dict[str, str] | None = None) -> tuple[str, str]:
    """What is wrong with a bundle's README.txt and violations.json, checked against its events (the chain verified
    first), or "", and what that covered (for the verdict line). README.txt is what the head judge reads first: its
    head digest and integrity lines were never checked (QA round 35: another head, and a made-up violation in it
    and in violations.json, verified "intact"). Its head digest must be the chain's when its integrity says ``ok``
    (else the store's failure at the audit, which a bundle cannot check, is what it records: not covered); its
    ``pinned at import`` line the Started event's; its list of violations what violations.json holds, each with its
    rule's title and the seq of its line's event; and violations.json the violations the events recorded at import
    (``ViolationRecorded``: line, turn, player, rule, message) when the README says the audit used the rules,
    catalog and board the match pinned (the audit judges by today's rules: by others it may find otherwise, and
    the bundle cannot judge that: not covered, ``zx audit`` of its log does). Last, README.txt whole is the one zx
    audit writes of all that (``_as_written``): the checks above read the first line of each key, and lines added
    after them passed (QA round 37)."""
    from zx_events.audit import seq_of_lines

    text, listed = _member_text(z, path, "README.txt"), _member_text(z, path, "violations.json")
    held = dict.fromkeys(z.namelist())
    for name, got in (("README.txt", text), ("violations.json", listed)):
        if got is None and name in held:  # (there, and more than a file of a bundle holds: not "no README.txt")
            return (f"the bundle's {name} holds more than {MAX_MEMBER:,} bytes ({MAX_MEMBER >> 20} MiB), which no "
                    f"{name} zx audit writes does (a few KB): {name} was edited"), ""
    if text is None or listed is None:
        return "", (f"{NOT_COVERED} (the bundle holds no {'README.txt' if text is None else 'violations.json'} it "
                    f"could read)")
    lines = text.splitlines()

    def field(name: str) -> str | None:
        return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith(name + ":")), None)

    readme_head, integrity = field("head digest"), field("integrity")
    missing = next((name for name in ("head digest", "integrity", "rules version", "catalog used")
                    if field(name) is None), None)
    if missing is not None:  # (every README zx audit --bundle writes of a stored match has them: it said "None")
        return f"the bundle's README.txt has no `{missing}:` line, which zx audit writes: README.txt was edited", ""
    if integrity != "ok":  # (the states it holds are still its log's: one edited is said, QA round 36)
        wrong, _ = _states_checked(z, path, log, started, game, [], field, progress, only_held=True)
        status, _, detail = str(integrity).partition(" (")
        if not wrong and (status not in STORE_FAILURES or not detail.endswith(")") or len(detail) < 2):  # (a value
            # zx audit never writes: "ok (re-verified by the head judge)" switched the check of its head and
            # violations off, and one made up verified "unchecked", QA round 37)
            at = next(i for i, ln in enumerate(lines, 1) if ln.startswith("integrity:"))
            return (f"the bundle's README.txt records integrity {_quoted(str(integrity), 80)} (its line {at}), which "
                    f"zx audit never writes: it writes `ok`, or the store's failure as `STATUS (what failed)` "
                    f"({', '.join(STORE_FAILURES)}): README.txt was edited"), ""
        if not wrong:  # (its head, integrity, warnings and violations are the store's at the audit: as they are, but
            # every line one zx audit writes, in its place)
            try:
                written = _listed(listed)
            except ValueError as e:
                return f"the bundle's violations.json is not the list zx audit writes ({e}): it was edited", ""
            wrong = _as_written(text, z, path, started, game, None, log, written, None)
        return wrong, (f"{NOT_COVERED} (its README.txt records integrity {str(integrity)[:60]!r} at the audit: the "
                       f"store's, which a bundle cannot check)")
    said = next((ln for ln in lines if ln.startswith(tuple(f"original{g.log_suffix}: " for g in games.all_games()))),
                None)
    if said is None:
        return ("the bundle's README.txt has no line on its log's content hash, which zx audit writes of a stored "
                "match: README.txt was edited"), ""
    if not said.endswith(": reproduces the content hash recorded at import"):
        return ("the bundle's README.txt says its log does not reproduce the content hash recorded at import; it does "
                "(checked above): README.txt was edited"), ""
    if readme_head != chain_head:
        return (f"the bundle's README.txt names head digest {str(readme_head)[:16]}, its events' chain ends at "
                f"{str(chain_head)[:16]}: README.txt was edited (or is another match's)"), ""
    pinned = {kind: started.get(kind) for kind in ("catalog", *game.fixture_options())}
    pins = {**pinned, "rules_version": started.get("rules_version")}
    if printable(pins_line(pins, game.fixture_options())) not in lines and not (
            field("catalog used") == "None sha256 None" and printable(pins_line(pins, ())) in lines):  # (an audit
        # that found its log malformed, before any board: its pins line names the catalog and rules alone (a genuine
        # X610Z bundle audited with a board of another name was "edited", QA round 37); the whole check holds it)
        return ("the bundle's README.txt names other pins than its Started event (the catalog, board and rules the "
                "match was checked with at import): README.txt was edited"), ""
    try:
        entries = _listed(listed)
        keys = [(e.get("line"), e.get("turn"), e.get("player"), e.get("rule"), e.get("message")) for e in entries]
    except ValueError as e:
        return f"the bundle's violations.json is not the list zx audit writes ({e}): it was edited", ""
    seqs = seq_of_lines(rows)
    if any(not isinstance(e.get("line"), int) or not isinstance(e.get("rule"), (str, type(None))) for e in entries):
        return ("the bundle's violations.json holds a violation without a line or a rule number, which zx audit of a "
                "stored match never writes: it was edited"), ""
    malformed = f"malformed log ({game.header_key} {game.format_version})"  # (a format finding's title: rule null,
    # as zx audit writes a log it finds malformed, a board of another name than its header's: QA round 37)
    expected = [{**e, "n": n, "seq": seqs.get(e["line"], 1),  # (as the audit maps a finding's line to its seq)
                 "title": game.rule_title(e["rule"]) if e["rule"] is not None else malformed}
                for n, e in enumerate(entries, 1)]
    if any((e.get("n"), e.get("seq"), e.get("title")) != (x["n"], x["seq"], x["title"])
           for e, x in zip(entries, expected)):
        return ("the bundle's violations.json numbers a violation, or gives its seq or its rule's title, otherwise "
                "than its events and the rules do: it was edited"), ""
    block = [printable(violations_line(len(expected))), *(printable(finding_line(x, True)) for x in expected)]
    at = next((i for i, ln in enumerate(lines) if re.fullmatch(r"[\d,]+ violations?:", ln)), None)
    if at is None or lines[at:at + len(block)] != block or (lines[at + len(block):] or [""])[0].strip():
        return ("the bundle's README.txt lists other violations than its violations.json: README.txt or "
                "violations.json was edited"), ""
    recorded = [((r.state or {}).get("line"), (r.state or {}).get("turn"), (r.state or {}).get("player"),
                 (r.state or {}).get("rule"), (r.state or {}).get("message"))
                for r in rows if games.is_topic(r.topic, "ViolationRecorded")]
    used = {"catalog": field("catalog used"), **{kind: field(f"{kind} used") for kind in game.fixture_options()}}
    as_pinned = field("rules version") == started.get("rules_version") and all(
        not isinstance(pin, dict) or used.get(kind) == readme_ref(pin)
        for kind, pin in pinned.items())
    if sorted(keys, key=repr) == sorted(recorded, key=repr):
        records = {r.line: r.data for r in log.records}
        for e in entries:  # the record each names is its line's (a head judge reads it as the one that broke the rule)
            if e.get("record") != records.get(e["line"]):
                return (f"the bundle's violations.json gives violation {e.get('n')} another record than its log holds "
                        f"at line {e['line']}: it was edited"), ""
        agree = "README.txt's head digest, integrity, pins and violations and violations.json agree with its events"
        wrong, states = _states_checked(z, path, log, started, game, entries, field, progress)
        if not wrong:  # (its warnings derived again where this zx's rules are the ones it names)
            wrong = _as_written(text, z, path, started, game, chain_head, log, expected, rows,
                                exact=field("rules version") == game.rules_version)
        if not wrong and declared:  # (its reference files the audit used in place of the pinned ones, as its README
            # says: the states are checked, by those, and are theirs, not the match's: not checked as the match's)
            def short(words: str) -> str:  # ("NAME sha256 HEX" as "NAME (sha256 HEX[:12])")
                name, _, sha = words.rpartition(" sha256 ")
                return f"{cut(name, 60)} (sha256 {sha[:12]})"

            said = "; ".join(f"{kind} {short(used)}" for kind, used in declared.items())
            pins = "; ".join(f"{kind} {short(readme_ref(pinned[kind]))}" for kind in declared
                             if isinstance(pinned.get(kind), dict))
            states = (f"; its README.txt says the audit judged by {said}, the bundle's file, not by the one its match "
                      f"pinned ({pins}): its findings and the states in violation-NN/ (derived again alike) are that "
                      f"file's, not the match's (`zx audit` of its log with the pinned file judges them)")
        return wrong, "" if wrong else f"{agree}{states}"
    if as_pinned:
        return (f"the bundle's violations.json lists {len(keys):,} violation{'s' if len(keys) != 1 else ''}, its "
                f"events record {len(recorded):,} at import by the rules and reference data its README says the audit "
                f"used: violations.json (and README.txt) were edited"), ""
    if field("rules version") == game.rules_version:  # (a catalog or board nothing could have used, as the states'
        shipped = _shipped_refs(game)  # check says it: "sample sha256 ...   (approved by head judge)" was unchecked
        for kind, value in used.items():  # here, where no state is derived, QA round 37)
            pin = pinned.get(kind)
            if value is None or value == readme_ref(pin if isinstance(pin, dict) else {}) or \
                    value in shipped.get(kind, ()) or value == (declared or {}).get(kind) or \
                    (kind == "catalog" and value == "None sha256 None"):
                continue
            return (f"the bundle's README.txt names {kind} {cut(printable(value), 80)} used by the audit, which is "
                    f"neither the {kind} its match pinned, nor a file of the bundle, nor one zx ships: README.txt was "
                    f"edited"), ""
    wrong = _as_written(text, z, path, started, game, chain_head, log, expected, rows,
                        exact=field("rules version") == game.rules_version)  # (as above: all of them, in order, by
    if wrong:  # this zx's rules; a warning dropped verified "unchecked", QA round 37)
        return wrong, ""
    return "", (f"README.txt's head digest, integrity and pins agree with its events; its violations differ from the "
                f"{len(recorded):,} its events record at import, and its README.txt says the audit judged by other "
                f"rules or reference data than the match pinned: {NOT_COVERED} (zx audit of its log judges them)")


# the statuses of a stored match's check zx audit writes as README.txt's ``integrity:`` when it fails (the chain's,
# ``integrity.verify_rows``, and the store seal's, ``ledger.match_verdict``), each with what failed in brackets
STORE_FAILURES = ("altered", "deleted", "inserted", "reordered", "unchained", "added", "rewritten", "seal")


def _listed(listed: str) -> list[dict]:
    """The entries of a bundle's violations.json; ``ValueError`` saying why it is not the list zx audit writes (JSON
    nested thousands deep, 10 KB of brackets, was a RecursionError: "This is a bug in zx", QA round 37)."""
    try:
        entries = json.loads(listed)
    except RecursionError:
        raise ValueError("nested too deep") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError("not a list of objects")
    return entries


_KEY = re.compile(r"(source|audited|[a-z]+ used|rules version|head digest|integrity|warning):( +)")


def _aligned(line: str) -> str:
    """A README line with the spaces after its key (``rules version:  ``) as one: they align the values, and a
    README with one space after a key says what zx audit's says; more than zx audit writes there (its values start
    at column 16) are not alignment, and stay (10,000 spaces before a value verified intact, QA round 37)."""
    m = _KEY.match(line)
    if m is None or len(m.group(2)) > max(15 - len(m.group(1)) - 1, 0) + 1:
        return line
    return f"{m.group(1)}: {line[m.end():]}"


def _as_written(text: str, z: zipfile.ZipFile, path: str, started: dict, game: Any, chain_head: str | None,
                log: Any, findings: list[dict], rows: list | None, exact: bool = False) -> str:
    """What is wrong with a bundle's README.txt as a whole, or "": it is derived (``readme``, as ``zx audit
    --bundle`` writes it) and compared whole with the one zx audit writes of its match, from what the bundle holds:
    its match, source and pins (its Started event), its head (``chain_head``: the chain's; None: the README's own, a
    store's failure recorded at the audit), its violations (``findings``, violations.json's, checked before), the
    reference files it holds, its log's content hash (checked before). What the bundle cannot derive again is taken
    from README.txt's own lines: the catalog and board the audit used and its rules version (checked against the
    states and the pins by the callers), its integrity where the store had failed, and its warnings, which,
    where ``rows`` are given, must be the ones zx audit writes of those (all of them, in order, when ``exact``: the
    README names this zx's rules version; else some of them, in order). Every line is thus one zx audit writes,
    each key once, in its place, nothing added: a second ``integrity:`` or ``head digest:`` line after the real one,
    a ruling, a line with a terminal's escape, another ``source:`` or ``audited:``, a 60 MB tail passed the check
    of the first line of each key (QA round 37). The first differing line is named, escaped."""
    from zx_events.audit import Audit, pin_warnings, recount_warning, unchecked, unpinned_references

    lines = text.split("\n")
    fixture_kinds = list(game.fixture_options())

    def said(key: str) -> str | None:  # (the first line of ``key``: the check before says each is once)
        return next((ln[len(key) + 1:].strip() for ln in lines if ln.startswith(key + ":")), None)  # (anything
        # after its value is then a difference: "sample sha256 HEX " read as the hash "HEX " passed, QA round 37)

    def ref(value: str | None) -> dict | None:  # (a catalog or board as the README names it: "NAME sha256 HEX")
        if value is None or value == "None sha256 None":  # (none used: an audit that judged nothing)
            return None
        name, _, sha = value.rpartition(" sha256 ")
        return {"name": name, "sha256": sha} if name else {"name": value, "sha256": None}

    catalog = ref(said("catalog used"))
    fixtures = {kind: ref(said(f"{kind} used")) for kind in fixture_kinds}
    pinned = {kind: started.get(kind) for kind in ("catalog", *fixture_kinds)}
    pinned["rules_version"] = started.get("rules_version")
    warnings = [ln[len("warning:"):].lstrip(" ") for ln in lines if ln.startswith("warning:")]
    integrity = "ok" if chain_head is not None else (said("integrity") or "")
    head = chain_head if chain_head is not None else said("head digest")
    audit = Audit(started.get("match_id"), started.get("source") or "", True, 0, [], integrity, None, head,
                  catalog, game.key, said("rules version") or "", fixtures, pinned, warnings, log=log)
    try:
        missing = unpinned_references(log, started, _bundle_references(z, path, started, game))
    except (ValueError, OSError):  # (its files were checked against their pins before)
        missing = {}
    if catalog is None and not missing:  # (no catalog used and no pinned file missing: an audit that found its log
        audit.fixtures = {}  # malformed before reading any reference data, whose pins line names no board either)
    derived = unchecked(log, missing).warnings if missing else []
    derived += pin_warnings(audit)
    if rows is not None:  # (a store intact at the audit: its warnings are the pins' and the count's, as audit_stored)
        recorded = sum(games.is_topic(r.topic, "ViolationRecorded") for r in rows)
        found = sum(1 for f in findings if f.get("rule") is not None)  # (rule findings: not a format one, as
        if recorded != found and not missing:  # audit_stored counts them)
            derived.append(recount_warning(recorded, found, audit.other_than_pinned))
        derived = [printable(one_line(w)) for w in derived]  # (as the README's lines hold them)
        it = iter(derived)
        if warnings != derived and (exact or not all(w in it for w in warnings)):  # (some, in order: a subsequence)
            # zx audit's own, in its order, each once: a warning duplicated or two swapped is an edit whatever the
            # rules version (the forger's order and copies were kept, and a copy verified intact, QA round 37)
            audit.warnings = derived if exact else [w for w in derived if w in warnings]
    else:  # the store failed at the audit: its failure, the pins', what it left out and the count's, in that order
        shapes = _failed_store_warnings(audit.match or "", integrity, derived, audit.other_than_pinned, bool(missing))
        kept, at = [], 0
        for w in warnings:
            found = next((i for i in range(at, len(shapes)) if shapes[i].fullmatch(w)), None)
            if found is not None:
                kept.append(w)
                at = found + 1
        if not kept or not shapes[0].fullmatch(kept[0]):  # (zx audit writes the failure first, always: one left
            kept.insert(0, printable(one_line(_failure(audit.match or "", integrity))))  # out is an edit, QA round 37)
        audit.warnings = kept  # (a line no warning of zx audit's: left out, so the README differs there)
    given = {m.group(1): name for name in dict.fromkeys(z.namelist())
             if (m := re.fullmatch(r"(catalog|board)(\.[^./]+)?", name)) is not None}
    try:
        expected = readme(audit, findings, True, given)
    except (KeyError, TypeError, ValueError) as e:  # (violations.json's entries, as they are, where the store failed)
        return (f"the bundle's violations.json is not the list zx audit writes ({cut(printable(str(e)), 60)}): it was "
                f"edited")
    if text == expected:
        return ""
    ours = expected.split("\n")
    at = next((i for i, (x, y) in enumerate(zip(lines, ours)) if _aligned(x) != _aligned(y)),
              min(len(lines), len(ours)))
    if at == len(lines) == len(ours):  # (alike but for the spaces that align a key's value: no word changed)
        return ""
    if at < len(lines) and at < len(ours):
        column, theirs, want = _differing(lines[at], ours[at])
        return (f"the bundle's README.txt is not the one zx audit writes of its match: its line {at + 1} differs at "
                f"column {column}: it holds {theirs}, zx audit writes {want}: README.txt was edited")
    theirs = f"holds {_quoted(lines[at], 100)}" if at < len(lines) else "is not there"
    want = f"zx audit writes {_quoted(ours[at], 100)}" if at < len(ours) else "zx audit writes none"
    return (f"the bundle's README.txt is not the one zx audit writes of its match: its line {at + 1} {theirs}, "
            f"{want}: README.txt was edited")


def _quoted(text: str, width: int) -> str:
    """``text`` quoted for a message: cut at ``width`` characters, its control characters escaped."""
    return "'" + printable(cut(text, width).replace("\\", "\\\\")).replace("'", "\\'") + "'"


def _ascii_escaped(text: str) -> str:
    """``text`` with its backslashes doubled and every character that is not printable ASCII as its escape
    (``\\u043e``, ``\\u00e9``, ``\\x1b``)."""
    def one(c: str) -> str:
        if c == "\\":
            return "\\\\"
        if " " <= c <= "~":
            return c
        return f"\\x{ord(c):02x}" if ord(c) < 0x80 else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"

    return "".join(map(one, text))


def _differing(theirs: str, ours: str, before: int = 16, width: int = 60) -> tuple[int, str, str]:
    """Where two lines first differ, for a message: the column (from 1) and each line quoted from a few
    characters before it (``...`` where cut), the differing stretch with its characters past ASCII escaped
    (``\\u043e``): a Cyrillic о for an o, an NFD é, an edit past character 100 were two quotes that read alike
    (QA round 37)."""
    i = next((k for k, (a, b) in enumerate(zip(theirs, ours)) if a != b), min(len(theirs), len(ours)))
    tail = 0  # (the common end, after the differing stretch)
    while tail < min(len(theirs), len(ours)) - i and theirs[len(theirs) - 1 - tail] == ours[len(ours) - 1 - tail]:
        tail += 1
    start = max(0, i - before)

    def shown(text: str) -> str:  # (as repr shows it: a backslash of the line doubled, its quote escaped)
        return printable(text.replace("\\", "\\\\")).replace("'", "\\'")

    def quote(line: str) -> str:
        end = len(line) - tail
        stretch = line[i:end]
        after = line[end:] if len(stretch) <= width else ""
        room = max(width - len(stretch), 0)
        text = shown(line[start:i]) + _ascii_escaped(stretch[:width]).replace("'", "\\'") + shown(after[:room])
        return f"'{'...' if start else ''}{text}{'...' if len(stretch) > width or len(after) > room else ''}'"

    return i + 1, quote(theirs), quote(ours)


def _failed_store_warnings(match: str, integrity: str, derived: list[str], other: dict, missing: bool
                           ) -> list[re.Pattern]:
    """The warnings ``audit_stored`` writes of a store whose check failed at the audit, in their order, as patterns
    of README lines (the counts and the seq where the store was altered are the store's, which the bundle cannot
    give): the failure (its words are the README's ``integrity:`` line's), the unpinned and pins' ``derived``, the
    findings left out, the count recorded at import against the count found."""
    from zx_events.audit import recount_warning

    failure = _failure(match, integrity)
    number = r"[\d,]+"
    left_out = (rf"(?:an? finding|{number} findings) of the re-check at or after seq {number} (?:is|are) not shown: "
                rf"the store was altered there \(zx verify {re.escape(printable(match))}\), so the records from there "
                rf"on are not the ones imported; zx audit the original log file to judge them")
    shapes = [re.escape(printable(one_line(w))) for w in (failure, *derived)] + [left_out]
    if not missing:
        count = printable(one_line(recount_warning(7_777_777, 8_888_888, other)))  # (the counts: placeholders)
        count = re.escape(count.replace("7,777,777 violations were", "RECORDED").replace("8,888,888", "FOUND"))
        shapes.append(count.replace("RECORDED", rf"{number} violations? (?:were|was)").replace("FOUND", number))
    return [re.compile(shape) for shape in shapes]


def _failure(match: str, integrity: str) -> str:
    """The warning zx audit writes first of a store whose check failed at the audit, from README.txt's
    ``integrity:`` value (``STATUS (what failed)``)."""
    from types import SimpleNamespace

    from zx_events.ledger import failure_warning

    status, _, detail = integrity.partition(" (")
    return failure_warning(SimpleNamespace(match=match, status=status, message=detail[:-1]))


STATE_FILE = re.compile(r"violation-(\d{2,})/state-(before|after)\.json")


def _bundle_references(z: zipfile.ZipFile, path: str, started: dict, game: Any) -> Any:
    """The catalog and board files a bundle holds, loaded as ``zx audit --catalog FILE --board FILE`` loads them
    (``games.load_references``; None: it holds none), each read from a file of a fixed name in a folder of its own
    (removed after) and, a catalog, under the name its match pinned: a catalog's name is its file's, and the states
    show it (a file named ``..csv`` or with 201 characters was read as ``catalog``, and a genuine bundle's states
    were "edited", QA round 36; a name of 300 bytes was a "File name too long")."""
    import dataclasses
    import tempfile
    from pathlib import Path

    files: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="zx-bundle-") as tmp:
        for name in dict.fromkeys(z.namelist()):
            m = re.fullmatch(r"(catalog|board)(\.[^./]+)?", name)
            if m is not None:
                files[m.group(1)] = str(Path(tmp) / ("catalog.csv" if m.group(1) == "catalog" else "board.json"))
                Path(files[m.group(1)]).write_bytes(_read_member(z, path, name))
        refs = games.load_references(files.get("catalog"), **{kind: files.get(kind) for kind in game.fixture_options()})
    pin = started.get("catalog")
    if refs and game.key in refs and isinstance(pin, dict) and isinstance(pin.get("name"), str) \
            and dataclasses.is_dataclass(refs[game.key]):
        name = pin["name"]
        ref = getattr(refs[game.key], "ref", None)
        if isinstance(ref, dict) and ref.get("sha256") != pin.get("sha256"):  # (a catalog the audit used in place of
            # the pinned one, as README.txt says (``_reference_files``): under the name README.txt gives it)
            readme = _member_text(z, path, "README.txt") or ""
            used = next((ln[len("catalog used:"):].lstrip(" ") for ln in readme.split("\n")
                         if ln.startswith("catalog used:")), "")
            shown, _, sha = used.rpartition(" sha256 ")
            name = _raw_name(z, path, shown, sha) if shown else name
        refs[game.key] = dataclasses.replace(refs[game.key], name=name)
    return refs


def _states_checked(z: zipfile.ZipFile, path: str, log: Any, started: dict, game: Any, entries: list[dict],
                    field: Callable[[str], str | None], progress: Callable[[int, int], None] | None = None,
                    only_held: bool = False) -> tuple[str, str]:
    """What is wrong with a bundle's ``violation-NN/`` states (and violations.json's ``states`` folders), or "", and
    the verdict line's words of them. They are derived again from its log (which reproduces the content hash its
    Started event recorded: checked first) by this zx's rules engine, with the reference data its match pinned
    (the bundle's catalog and board files, else the shipped ones), as ``zx audit`` of the stored match derived
    them (``audit_stored``: the same ``audit_log`` of the same records), one finding at a time (``state_pairs``),
    and compared with its files: equal, they are checked, whatever README.txt says the audit used (its claims
    could switch the check off, QA round 36). Otherwise a state edited (a card put in a hand, a Life changed),
    removed or added is ``altered``, unless README.txt says the audit judged by other rules or reference data than
    this zx derives them by (an audit by another release of zx), which the verdict line then says, not checked:
    except that a catalog or board it names that is neither the one its match pinned, nor a file of the bundle,
    nor one this zx ships, by this zx's rules version, is an edit (nothing could have used it). ``progress(done,
    total)``: after each finding's states."""
    from zx_events.audit import audit_log, pinned_references, unpinned_references
    from zx_events.errors import ZXError

    try:
        refs = _bundle_references(z, path, started, game)
        audit = None if unpinned_references(log, started, refs) else \
            audit_log(log, pinned_references(log, started, refs))
    except (ZXError, OSError) as e:  # (the files were checked against their pins first: hostile bytes of a forged
        # chain's pins, which --head catches)
        return (f"the bundle's states could not be derived again from its log and its reference files "
                f"({getattr(e, 'message', None) or e}): the bundle was edited"), ""
    names = dict.fromkeys(z.namelist())
    held = {n for n in names if STATE_FILE.fullmatch(n)}
    derived_with = {"rules version": game.rules_version}
    if audit is not None:
        derived_with["catalog used"] = readme_ref(audit.catalog or {})
        derived_with.update({f"{kind} used": readme_ref(used) for kind, used in audit.fixtures.items() if used})
    claimed = {key: field(key) for key in derived_with}
    total = sum(f.kind == "rule" for f in audit.findings) if audit is not None else 0  # (the states it derives: not
    # violations.json's count, which is 0 where the store failed, and the bar said 1/0, QA round 37)
    wrong = ""
    seen: set[str] = set()
    pairs = state_pairs(audit) if audit is not None else iter(())
    for done, (n, before, after) in enumerate(pairs, 1):
        folder = f"violation-{n:02d}"
        seen.add(folder)
        for name, text in _state_files(n, before, after).items():
            held.discard(name)
            data = _member_text(z, path, name)
            if data is None and only_held:  # (a README.txt that says the audit's store was altered: findings after
                continue  # the damage were left out of it, and their states with them)
            if data is None:
                wrong = wrong or (f"the bundle holds no {name}, the state its violation has: it was removed (the "
                                  f"bundle was edited)")
            elif data != text:
                wrong = wrong or (f"the bundle's {name} is not the state its log gives at that violation (derived "
                                  f"again: {_first_state_difference(data, text)}): it was edited")
        if wrong:
            break
        if progress is not None:
            progress(done, total)
    if not wrong and held:
        wrong = (f"the bundle holds {sorted(held)[0]}, a state of no violation its log gives: it was added (the bundle "
                 f"was edited)")
    if only_held:
        return wrong, ""
    for e in entries if not wrong else ():  # (each violation's ``states``: its folder, where its log gives states)
        n = e.get("n")
        folder = f"violation-{n:02d}" if isinstance(n, int) and f"violation-{n:02d}" in seen else None
        if e.get("states") != folder:
            wrong = (f"the bundle's violations.json points violation {n} to the states {str(e.get('states'))[:40]!r}, "
                     f"its log gives {folder or 'none'}: it was edited")
            break
    other = {key: value for key, value in claimed.items() if value != derived_with[key]}
    if other and claimed["rules version"] == game.rules_version:  # (states alike or not: a catalog nothing could
        shipped = _shipped_refs(game)  # have used is an edit of README.txt, which the head judge reads first)
        for key, value in other.items():
            kind = key.split(" ")[0]
            pin = started.get(kind)
            if value != readme_ref(pin if isinstance(pin, dict) else {}) and value not in shipped.get(kind, ()):
                return (f"the bundle's README.txt names {kind} {str(value)[:80]} used by the audit, which is neither "
                        f"the {kind} its match pinned, nor a file of the bundle, nor one zx ships: README.txt was "
                        f"edited{f'; and {wrong}' if wrong else ''}"), ""
    if not wrong:
        return "", f", and {STATES_CHECKED}"
    if not other:
        return wrong, ""
    said = "; ".join(f"{key} {str(value)[:80]}" for key, value in other.items())
    return "", (f"; the states in violation-NN/ are not checked: its README.txt says the audit judged by {said}, "
                f"this zx derives them by {'; '.join(f'{k} {derived_with[k][:80]}' for k in other)}, and they differ "
                f"(`zx audit` of its log by the zx that wrote it derives them)")


def _shipped_refs(game: Any) -> dict[str, set[str]]:
    """kind -> the README's words (``readme_ref``) of every catalog and board this zx ships for
    ``game``."""
    out: dict[str, set[str]] = {}
    for kind, names in (("catalog", game.catalog_names()),
                        *((k, getattr(game, f"{k}_names", list)()) for k in game.fixture_options())):
        for name in names:
            try:
                ref = (game.load_catalog(name, files=False) if kind == "catalog" else game.load_fixture(kind, name)).ref
            except Exception:  # noqa: BLE001 (a shipped file this zx cannot read: not one it could have used)
                continue
            out.setdefault(kind, set()).add(readme_ref(ref))
    return out


def _first_state_difference(held: str, expected: str) -> str:
    """Where a state file differs from the one derived: its first differing line, as it is (spaces and all)."""
    a, b = held.split("\n"), expected.split("\n")
    for i, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return f"line {i} holds {cut(printable(repr(x)), 80)}, the derived state {cut(printable(repr(y)), 80)}"
    return (f"{len(a):,} lines against {len(b):,}" if len(a) != len(b) else
            "its line ends or final line break differ")


def _member_text(z: zipfile.ZipFile, path: str, name: str) -> str | None:
    """The bundle's file ``name`` as text (at most ``MAX_MEMBER`` bytes), or None: not there, or more than that
    (a ``ZXError`` of ``_opened`` when the zip cannot read it)."""
    from zx_events.files import TooBig, read_capped

    try:
        with _opened(z, path, name) as f:
            return read_capped(f, MAX_MEMBER).decode("utf-8", "replace")
    except (KeyError, TooBig):
        return None


def _says_stored(z: zipfile.ZipFile, path: str) -> bool:
    """Whether the bundle's README says it is a stored match's (``audited: the stored match``)."""
    readme = _member_text(z, path, "README.txt")
    return readme is not None and any(line.startswith("audited:") and "the stored match" in line
                                      for line in readme.splitlines())


def _moved(log: Any, rows: list) -> str:
    """Where a bundle's log, with the content its events hold, first has a record on another line than its event
    carries (``: first at original.zxlog:11, {...} where the match in events.jsonl has it at line 10``): the rebuilt
    log keeps each record on its line (blank lines in between), and the findings cite those lines."""
    from zx_events.audit import stored_log
    from zx_events.errors import ZXError, cut

    try:
        stored = stored_log(rows)
    except ZXError:
        return ""
    if log.header_line != stored.header_line:
        return (f": first at {log.source}:{log.header_line}, the header, where the match in events.jsonl has it at "
                f"line {stored.header_line}")
    for mine, theirs in zip(log.records, stored.records):
        if mine.line != theirs.line:
            return (f": first at {log.source}:{mine.line}, {cut(json.dumps(mine.data, ensure_ascii=False), 120)} "
                    f"where the match in events.jsonl has it at line {theirs.line}")
    return ""


def _edited_where(log: Any, rows: list) -> str:
    """Where a bundle's log first differs from the records its events hold (``: first at original.x610zlog:98,
    {...} where the match in events.jsonl has {...}``), as ``zx audit LOG`` says it against the store; a line
    that cannot be read (the log is read up to it): that line and why."""
    from zx_events.audit import first_difference

    where = first_difference(log, rows, "the match in events.jsonl")
    if log.error is not None and not where.startswith(": first at"):
        return f": first at {log.error.where}, which cannot be read ({log.error.message})"
    return where
