"""``zx audit`` (every violation of a log or a stored match) and ``zx verify`` (the digest chains)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click

from zx_events.errors import ZXError

from .common import (BOARD_HELP, OutputFile, load_catalog_option, read_files, refuse_read_file, service,
                     warn_unused_references)
from .options import format_option
from .output import counted, emit, json_text, printable, progress

AUDIT_COLUMNS = ["match", "line", "seq", "turn", "player", "rule", "message"]
VERIFY_COLUMNS = ["match", "events", "status", "seq", "head", "message"]


def _ref(ref: dict) -> str:
    """A catalog's or a board's name and the first 16 hex digits of its SHA-256."""
    from zx_events.audit import named_ref

    return named_ref(ref, 16)


def _summary(a) -> str:
    n = len(a.findings)
    refs = ([f"catalog {_ref(a.catalog)}"] if a.catalog else []) + \
        [f"{kind} {_ref(ref)}" for kind, ref in a.fixtures.items() if ref]
    used = (", ".join(refs) + " and " if refs else "") + f"rules {a.rules_version}"
    integrity = a.integrity + (f": {a.integrity_detail}" if a.integrity_detail else "")
    head = f", head {a.head[:16]}" if a.head else ""
    if a.unchecked:  # (its pinned board not at hand: "no violations; checked with rules ..." said of nothing judged)
        kinds = " and ".join(a.unchecked)
        return (f"{a.match or '?'} ({a.source}): not re-checked (its pinned {kinds} not given: pass "
                f"{' and '.join(f'--{k} FILE' for k in a.unchecked)}); integrity {integrity}{head}")
    return (f"{a.match or '?'} ({a.source}): {f'{n:,}' if n else 'no'} violation{'s' if n != 1 else ''}; checked with {used}; "
            f"integrity {integrity}{head}{_not_pinned(a)}")


def _not_pinned(a) -> str:
    """"; judged against catalog X (sha256 ...), not the one the match pinned at import (sha256 ...): not a clean
    audit" when the audit used another catalog or board than its stored match pinned (``Audit.other_than_pinned``:
    a catalog edited after import said "no rule violations", exit 0), else ""."""
    other = a.other_than_pinned
    if not other:
        return ""
    return "; judged against " + " and ".join(
        f"{kind} {_ref(used)}, not the one the match pinned at import (sha256 {str(pin.get('sha256'))[:16]})"
        for kind, (used, pin) in other.items()) + ": not a clean audit"


def _checked_against(audits: list, references, given: dict[str, str | None]) -> str:
    """The reference data the audits were checked against, for the table's title (a judge reading
    the report later can tell): for the catalog and each fixture (X610Z's board), the file or name
    given on the command line (``given``: --catalog, --board) with the name and SHA-256 of what it
    holds, else the one each log names (its name and SHA-256 when they all used the same)."""
    clauses = []
    for kind in ["catalog", *dict.fromkeys(k for a in audits for k in a.fixtures)]:
        option: dict[tuple, dict] = {}
        own: dict[tuple, dict] = {}
        for a in audits:
            ref = a.catalog if kind == "catalog" else a.fixtures.get(kind)
            if not ref:
                continue
            held = references.get(a.game if kind == "catalog" else (a.game, kind)) if references else None
            (option if getattr(held, "ref", None) == ref else own)[(ref.get("name"), ref.get("sha256"))] = ref
        for ref in option.values():
            arg = given.get(kind)
            clauses.append(f"{kind} {_ref(ref)}" if arg == ref.get("name") else
                           f"{kind} {arg} ({ref.get('name')}, sha256 {str(ref.get('sha256'))[:16]})")
        each = f"the {kind} each {'other ' if option else ''}log names"  # (--catalog is one game's)
        if len(own) == 1:
            clauses.append(f"{each}, {_ref(next(iter(own.values())))}")
        elif own:
            clauses.append(f"{each} ({', '.join(_ref(r) for r in own.values())})")
    if not clauses:
        return ""
    return " checked against " + (", ".join(clauses[:-1]) + " and " if len(clauses) > 1 else "") + clauses[-1]


def _check_bundle_path(ctx: click.Context, bundle_path: str, force: bool, targets: list[str],
                       catalog_path: str | None, board_path: str | None) -> None:
    """``--bundle FILE`` may be written: its folder exists, it is none of the files the audit reads (the store,
    a log, the catalog, the board), and it does not exist, or ``force``."""
    folder = Path(bundle_path).parent
    if not folder.is_dir():
        raise click.ClickException(f"--bundle {bundle_path}: the folder {folder} does not exist")
    read = [(t, f"the audited log {t}") for t in targets if Path(t).is_file()]
    read += [(f, f"the {kind} {f}") for f, kind in ((catalog_path, "catalog"), (board_path, "board"))
             if f and Path(f).is_file()]
    refuse_read_file(bundle_path, read_files(ctx.obj["store"], *read), "--bundle")
    if Path(bundle_path).exists() and not force:
        raise click.ClickException(f"--bundle {bundle_path} already exists: give another name, or --force "
                                   f"to replace it")


@click.command("audit")
@click.argument("targets", nargs=-1, required=True, metavar="LOG...|DIR|-|MATCH...")
@click.option("--catalog", "catalog_path", default=None, metavar="NAME|FILE",
              help="Card catalog to check with (default: the shipped one each header names).")
@click.option("--board", "board_path", default=None, metavar="NAME|FILE", help=BOARD_HELP)
@click.option("--bundle", "bundle_path", default=None, type=OutputFile(), metavar="FILE.zip",
              help="Write a dispute bundle of the (single) audited match to FILE.zip.")
@click.option("--force", is_flag=True, help="Let --bundle replace an existing file.")
@format_option
@click.pass_context
def audit_cmd(ctx: click.Context, targets: tuple[str, ...], catalog_path: str | None, board_path: str | None,
              bundle_path: str | None, force: bool, fmt: str) -> None:
    """Report every rule violation of match logs or stored matches (exit 1 when any).

    \b
    Examples:
      zx audit examples/invalid/401-deck-size.zxlog
      zx audit sim-2026-0003 --bundle dispute.zip

    An argument that is a file is a log (each match in it is audited), a folder stands for its logs of
    every game (subfolders too), - for standard input, as for zx import (a log that cannot be read is a
    finding naming it); anything else is the id of a stored match, re-checked from its events by the
    current rules engine, with its digest chain verified. Each finding names its file (source: the
    table's first column when logs were audited, CSV's last). The table's title names the catalog and
    board the matches were checked against (as each match's line on stderr does); --format json prints
    one JSON object per match, one per line.
    """
    from zx_events.audit import SealReading, audit_log, audit_stored, audit_unreadable, compare_with_store
    from zx_events.errors import FormatError
    from zx_events.logformat.reader import read_log

    catalog = load_catalog_option(catalog_path, board_path)
    targets, files = _expanded(targets)
    ids = [t for t in targets if t not in files]
    svc = None
    if ids and not _store_exists(ctx):
        one = len(ids) == 1
        raise click.ClickException(f"unknown match{'' if one else 'es'} {', '.join(repr(i) for i in ids)}: "
                                   f"{'it is neither a log file nor' if one else 'they are neither log files nor'} a "
                                   f"stored match (there is no store at {_store_label(ctx)})")
    if ids or _store_exists(ctx):
        svc = service(ctx)
    elif files:  # "integrity not stored" read as "never imported" by a judge in the wrong folder
        click.echo(printable(f"note: there is no store at {_store_label(ctx)}: the logs are not compared with stored "
                             f"matches (--store names one)"), err=True)
    if ids:
        unknown = [t for t in ids if not svc.has_match(t)]
        if unknown:
            from zx_events.replay import deleted_match, forged_id, unknown as unknown_match

            # a forged aggregate's stored id, or a match the store seal lists but that was deleted whole: said so
            damaged = [t for t in unknown if forged_id(svc, t) or deleted_match(svc, t) is not None]
            from zx_events.replay import unknown_text

            text = unknown_match(svc, damaged[0]).message if damaged else \
                unknown_text(unknown, svc.store.label, logs=True)
            svc.close()  # (the store as it was: no -wal or -shm left beside it while this process runs on)
            raise click.ClickException(text)
    if bundle_path is not None:  # before any work, once the store and the matches are found ("there is no store",
        # "unknown match" are not hidden behind "--bundle FILE already exists"): never a file replaced unasked
        try:
            _check_bundle_path(ctx, bundle_path, force, targets, catalog_path, board_path)
        except click.ClickException:
            if svc is not None:
                svc.close()  # (the store as it was: no -wal or -shm left beside it)
            raise
    audits = []
    seal = SealReading(svc) if svc is not None else None  # (read once for all the matches, not once each)
    with progress(len(targets), "auditing") as bar:
        task = bar.add_task("audit", total=len(targets))
        for t in targets:
            if t in files:
                try:
                    logs = read_log(t)
                except FormatError as e:  # (empty): a finding, as zx import rejects it; the other files go on
                    audits.append(audit_unreadable(t, e))
                    bar.advance(task)
                    continue
                for log in logs:
                    a = audit_log(log, catalog)
                    if svc is not None:
                        compare_with_store(a, svc, seal)
                    audits.append(a)
            else:
                try:
                    audits.append(audit_stored(svc, t, catalog, seal))
                except ZXError as e:
                    raise click.ClickException(f"{t}: {e}") from None
            bar.advance(task)
    if bundle_path is not None:
        if len(audits) != 1:
            raise click.UsageError(f"--bundle needs exactly one match, these arguments hold {len(audits)}")
        from zx_events.bundle import bundle_bytes

        from .common import write_page

        given = {kind: (f"{kind}{Path(path).suffix}", Path(path).read_bytes())  # the files, for its check
                 for kind, path in (("catalog", catalog_path), ("board", board_path)) if path and Path(path).is_file()}
        write_page(Path(bundle_path), bundle_bytes(audits[0], given)[0], force)  # whole, never over a file unasked
    for a in audits:
        click.echo(printable(_summary(a)), err=True)
        for w in a.warnings:
            click.echo(printable(f"warning: {a.match}: {w}"), err=True)
    warn_unused_references(catalog, {"catalog": catalog_path, "board": board_path}, {a.game for a in audits},
                           "match of this audit")
    if fmt == "json":
        for a in audits:
            click.echo(json_text(a.to_json()))
    else:
        # a malformed log's finding: rule ``format`` in a table (read by a person); in CSV, as in JSON,
        # rule empty and kind ``format`` (the last CSV column: rule, format or integrity)
        # each row names its file (``source``, as JSON does): a malformed log with no match id was a row of an
        # empty match and "line 1" (QA round 30)
        rows = [{"match": a.match, **f.to_json(a.stored), "line": None if a.stored else f.line,
                 "rule": f.rule or ("format" if fmt == "table" else None), "source": a.source}
                for a in audits for f in a.findings]
        n = len(rows)
        broken = [a for a in audits if not a.integrity_ok]
        rows += [{"match": a.match, "source": a.source, "rule": "integrity", "kind": "integrity",  # an altered log
                  "message": f"{a.integrity}: {a.integrity_detail}" if a.integrity_detail else a.integrity}
                 for a in broken]  # or stored match is a finding too
        # what the rows are: rule violations, malformed logs (a finding with no rule), integrity failures; and
        # how many matches were read (a file with no readable match is not one: "2 violations in 2 matches"
        # was said of an empty file and a broken one)
        formats = sum(1 for a in audits for f in a.findings if not f.rule)
        parts = [f"{len(broken):,} failing integrity"] if broken else []
        parts.append(f"{f'{n - formats:,}' if n - formats else 'no'} rule violation{'s' if n - formats != 1 else ''}")
        if formats:
            parts.append(f"{formats:,} malformed log{'s' if formats != 1 else ''}")
        read = sum(1 for a in audits if a.match)
        title = (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]) + \
            f" in {read:,} match{'es' if read != 1 else ''}"
        unchecked = sorted({k for a in audits for k in a.unchecked})
        if unchecked:  # (its pinned board not given: nothing judged, so "no rule violations" is not of it)
            title += (f"; {sum(1 for a in audits if a.unchecked)} not re-checked (pass "
                      f"{' and '.join(f'--{k} FILE' for k in unchecked)})")
        against = _checked_against(audits, catalog, {"catalog": catalog_path, "board": board_path})
        title += f";{against}" if against else ""
        other = [a for a in audits if a.other_than_pinned]
        if len(other) == 1 and len(audits) == 1:  # (the title named what was used: the pin beside it)
            title += "; " + " and ".join(f"not the {kind} the match pinned at import (sha256 {str(pin.get('sha256'))[:16]})"
                                         for kind, (_, pin) in other[0].other_than_pinned.items()) + ": not a clean audit"
        elif other:
            kinds = " or ".join(dict.fromkeys(k for a in other for k in a.other_than_pinned))
            title += (f"; {len(other):,} judged against another {kinds} than the one {'its' if len(other) == 1 else 'their'}"
                      f" match pinned at import: not a clean audit")
        columns = AUDIT_COLUMNS + (["kind", "source"] if fmt == "csv" else [])  # (CSV: after the columns it had)
        if fmt == "table":  # logs audited: no stored event, no seq; stored matches: no line; an empty column took
            # a narrow table's room (and a stored match's showed an empty line, no seq: no place at all)
            columns = [c for c in columns if c not in ("seq", "line") or any(r.get(c) is not None for r in rows)]
            if not all(a.stored for a in audits):  # a file audited: the file first, the column a table always keeps
                # (FILE, then its line: a finding of a file with no match id has no other locator), the match
                # beside it where there is room; stored matches alone: the match first, as before (their source
                # is the file imported once)
                columns = ["source", *columns]
        emit(rows, fmt, columns, title=title, first=("rule", "message", "line", "seq"))
    if bundle_path is not None:
        click.echo(printable(f"dispute bundle written to {bundle_path}"), err=True)
    if not all(a.ok for a in audits):
        sys.exit(1)


def _expanded(targets: tuple[str, ...]) -> tuple[list[str], set[str]]:
    """The arguments with each folder replaced by its log files of every game and ``-`` kept for standard input,
    as zx import reads them (``common.log_paths``): ``zx audit logs/`` and ``zx audit - < r3.zxlog`` were "neither a
    log file nor a stored match"; and which of them are files (the rest: match ids). Every entry a folder gives is a
    file, one that cannot be read too (a loop of links, a link to nothing, a named pipe: the audit's finding says
    why, as zx import rejects it): they were match ids, and the audit of the folder "unknown matches 'loop/a.zxlog',
    'loop/b.zxlog': they are neither log files nor a stored match" (QA round 30); so is a name on the command line
    that is there on disk (``_on_disk``)."""
    import sys

    from .common import log_paths

    out: list[str] = []
    files: set[str] = set()
    for t in targets:
        if t == "-" or Path(t).is_dir():
            found = log_paths((t,))
            files.update(found)
        else:
            found = [t]
            if _on_disk(t):
                files.add(t)
        out += found
    if out.count("-") > 1:
        raise click.UsageError("- (standard input) can be given once")
    if "-" in out and sys.stdin is None:  # closed (``<&-``)
        raise click.UsageError("- reads match logs from standard input, which is closed: pipe or redirect the logs "
                               "into zx audit -, or name the files")
    if "-" in out and sys.stdin.isatty():  # a forgotten pipe would otherwise wait without a word
        click.echo("reading match logs from standard input: paste or type them, then Ctrl-D", err=True)
    return out, files


def _on_disk(name: str) -> bool:
    """Whether a command-line argument names something on disk, a log to audit even when it cannot be read (a link
    to nothing or to itself, a named pipe, a file in a folder it may not look into), rather than a stored match's id:
    a loop of links was "neither a log file nor a stored match". A name nothing is at is a match id."""
    import os

    try:
        os.lstat(name)  # (the link itself: one to nothing is there)
    except PermissionError:  # a folder on the way it may not look into: the file's finding says so
        return True
    except (OSError, ValueError):  # nothing there (ENOENT, ENOTDIR), a name no file can have (too long, a NUL)
        return False
    return True


def _store_label(ctx: click.Context) -> str:
    return _parsed(ctx).label


def _parsed(ctx: click.Context):
    from zx_events.store import parse_store

    try:
        return parse_store(ctx.obj["store"])
    except ZXError as e:  # an unknown scheme: the accepted forms
        raise click.ClickException(str(e)) from None


def _store_exists(ctx: click.Context) -> bool:
    """Compare logs with the store only when there is one (a log audit must not create a store file)."""
    cfg = _parsed(ctx)
    if cfg.kind == "sqlite":
        return cfg.path is not None and cfg.path.is_file()
    return cfg.kind == "postgres"


def _hex_option(value: str | None, name: str) -> None:
    if value is None:
        return
    h = value.strip().lower()
    if len(h) < 16 or len(h) > 64 or any(c not in "0123456789abcdef" for c in h):
        raise click.BadParameter(f"{value!r} is not a head digest (16 to 64 hex digits)", param_hint=name)


@click.command("verify")
@click.argument("matches", nargs=-1, metavar="[MATCH...]")
@click.option("--head", "head", default=None, metavar="HEX",
              help="The head digest written on the score sheet (at least 16 hex digits); needs one MATCH.")
@click.option("--store-head", "store_head", default=None, metavar="HEX",
              help="The store head printed by an earlier zx verify (at least 16 hex digits): the seal was not rewritten.")
@click.option("--bundle", "bundle_path", default=None, metavar="FILE",
              help="Check a dispute bundle (zx audit --bundle) without the store: its events' digest chain, its "
                   "seal, and its log's content hash and lines (a file zx audit --bundle does not write: refused); "
                   "with --head, the head written down.")
@click.option("--seal", "make_seal", is_flag=True,
              help="Then seal a store from before 0.2.0 (no store seal yet), when every match verifies; a "
                   "sealed store's matches are sealed by zx import only.")
@format_option
@click.pass_context
def verify_cmd(ctx: click.Context, matches: tuple[str, ...], head: str | None, store_head: str | None,
               bundle_path: str | None, make_seal: bool, fmt: str) -> None:
    """Recompute the digest chain of stored matches, check them against the store seal, name the first tampered event.

    \b
    Examples:
      zx verify
      zx verify sim-2026-0003 --head 5729393145ae1f6f   (the head written down)

    Without MATCH every match in the store is checked, and the store seal (zx_events/ledger.py):
    a match deleted whole, one added outside zx import, one rewritten even with a recomputed chain.
    Exit 1 when any check fails (an event altered, deleted, inserted or reordered after import; a
    match deleted, added or rewritten; the seal broken) or a head differs from --head/--store-head.
    --format json|csv ends with one record for the store (match null): status sealed, unsealed,
    broken, store-head (--store-head matched no seal entry) or earlier-head, ok, the store head in
    full, and as message what the table's trailer says (docs/audit.md).
    """
    from zx_events.integrity import check_head, forged
    from zx_events.ledger import deleted_verdicts, match_verdict, read_ledger
    from zx_events.replay import snapshot_verdict

    if bundle_path is not None:  # no store: the bundle alone
        if matches or store_head is not None or make_seal:
            raise click.UsageError("--bundle checks the bundle alone: give no MATCH, --store-head or --seal")
        _hex_option(head, "--head")
        _verify_bundle(bundle_path, head, fmt)
        return
    if head is not None and len(matches) != 1:
        raise click.UsageError("--head needs exactly one MATCH")
    if make_seal and matches:
        raise click.UsageError("--seal checks and seals the whole store: give no MATCH")
    _hex_option(head, "--head")
    _hex_option(store_head, "--store-head")
    svc = service(ctx, write=make_seal)  # a missing store: "there is no store at ...", nothing created
    ledger = read_ledger(svc.recorder, svc.mapper)
    if make_seal and not ledger.exists and svc.recorder.select_notifications(start=None, limit=1):
        # it will write the first entries (a store with matches, no seal): its grants, before any match is read
        from zx_events.store import write_refusal

        refusal = write_refusal(svc.store, "seal")
        if refusal is not None:
            svc.close()
            raise click.ClickException(refusal)
    claims: dict[object, str] = {}  # aggregate id -> the match its Started event names, where zx import would not file it
    if matches:
        targets = [_target(svc, m, claims) for m in matches]
    else:  # a bar of its own (130,000 matches: 170 s without a word through the recorder, QA 32; 38 s on SQLite now)
        last = svc.recorder.max_notification_id() or 0
        with progress(last, "listing matches", enabled=last > LISTING_BAR) as bar:
            task = bar.add_task("list", total=last)
            targets = _all_matches(svc, claims, at=lambda n: bar.update(task, completed=n))
            bar.update(task, completed=last)
    verdicts = []
    with progress(len(targets), "verifying") as bar:
        task = bar.add_task("verify", total=len(targets))
        for name, uid in targets:
            if matches and str(uid) not in ledger.matches and not svc.recorder.select_events(uid, limit=1):
                from zx_events.replay import unknown_text

                raise click.ClickException(unknown_text([name], svc.store.label))
            if isinstance(uid, str):  # (_all_matches_sqlite: an id that is no UUID)
                verdicts.append(_not_an_id(uid))
                bar.advance(task)
                continue
            v = match_verdict(svc, name, uid, ledger)
            if uid in claims:  # not where zx import files its match: a copy or a forgery, whatever its chain says
                v = forged(v, claims[uid], uid)
            if v.ok:
                v = snapshot_verdict(svc, v)  # its replay snapshots too
            if head is not None:
                v = check_head(v, head)
            verdicts.append(v)
            bar.advance(task)
    if any(v.status == "added" for v in verdicts):
        # the seal was read first: a batch zx import committed since is in the store but not in that reading
        # (a verify during an import called a whole batch "added": stored outside zx import); read it again
        # (each verdict by its position: two aggregates can carry one name, and the copy's "added" became
        # the original's "ok")
        ledger = read_ledger(svc.recorder, svc.mapper)
        for i, v in enumerate(verdicts):
            uid = targets[i][1]
            if v.status == "added" and str(uid) in ledger.matches:
                v = match_verdict(svc, v.match, uid, ledger)
                if v.ok:
                    v = snapshot_verdict(svc, v)  # its replay snapshots too
                verdicts[i] = check_head(v, head) if head is not None else v
    if not matches:
        # the seal read last can list matches a zx import committed after the list of matches was read (a
        # verify during an import called each of them "deleted whole": the seal lists it, the list did not):
        # one whose events are there now is verified with the others, never reported deleted
        have = {str(uid) for _, uid in targets}
        for oid in ledger.matches:
            stored = None if oid in have else _uuid(oid)
            for name, uid in _all_matches(svc, claims, only=stored) if stored is not None else ():  # (none: deleted)
                v = match_verdict(svc, name, uid, ledger)
                if uid in claims:
                    v = forged(v, claims[uid], uid)
                if v.ok:
                    v = snapshot_verdict(svc, v)
                targets.append((name, uid))
                verdicts.append(v)
        verdicts.extend(deleted_verdicts(ledger, [uid for _, uid in targets]))
    rows_out = [v.to_json() for v in verdicts]  # (as verified: before --seal calls any "sealed now")
    if fmt == "table":
        _verdict_table(rows_out)
    bad = [v for v in verdicts if not v.ok]
    click.echo(f"{len(verdicts) - len(bad):,} intact, {len(bad):,} failed in {svc.store.label}", err=True)
    store = StoreCheck.of(ledger, None if matches else len(targets), store_head)
    for line in store.lines:
        click.echo(line, err=True)
    if make_seal:
        try:
            store = _seal(svc, ledger, verdicts, targets, bad, store)
        except click.ClickException:  # not sealing: the records as verified, then why
            _emit_records(rows_out, store, fmt)
            raise
    _emit_records(rows_out, store, fmt)
    if bad or not store.ok:
        sys.exit(1)


def _verify_bundle(path: str, head: str | None, fmt: str) -> None:
    """``zx verify --bundle FILE [--head HEX]``: one record, as for a stored match (no store record: no store)."""
    from contextlib import ExitStack

    from zx_events.bundle import check_bundle

    from .output import LateBar

    with ExitStack() as stack:  # (a bar once the states are derived: a long match's many violations take seconds)
        try:
            verdict, covered = check_bundle(path, head, LateBar(stack, "checking the states").update)
        except ZXError as e:  # (the head given: the bundle is a stored match's)
            raise click.ClickException(e.message) from None
    if fmt == "table":
        _verdict_table([verdict.to_json()])
    else:
        emit([verdict.to_json()], fmt, VERIFY_COLUMNS)
    # what of its report was checked, or that it was not (README.txt is what the head judge reads first: another
    # head digest in it, and a violation made up, were "intact": QA round 35)
    unchecked = verdict.status == "unchecked"  # (its chain intact, its report not all checked: exit 1)
    click.echo(printable(  # (a stranger's file name, and README.txt's words in ``covered``: escapes, never a
        # terminal's sequences: a name holding OSC 52 wrote the clipboard, QA round 37)
        f"{'intact' if verdict.ok else 'UNCHECKED' if unchecked else 'FAILED'}: {path} (its events' chain "
        f"and its log, without the store{'; the head written down' if head is not None else ''}"
        f"{f'; {covered}' if verdict.ok or unchecked else ''})"), err=True)
    if not verdict.ok:
        sys.exit(1)


@dataclass
class StoreCheck:
    """What ``zx verify`` says of the store as a whole: the store seal, and the store head written down
    (``--store-head``). ``lines``: the trailer it prints on stderr, the record's ``message`` too (one wording);
    ``ok`` false exactly when this part makes the exit code 1."""

    status: str  # sealed, unsealed, broken, store-head (--store-head matched no entry), earlier-head
    ok: bool
    head: str | None  # the store head, all 64 hex digits (None: no seal, or a broken one)
    lines: list[str]

    @classmethod
    def of(cls, ledger, stored: int | None, store_head: str | None) -> "StoreCheck":
        """``stored``: how many matches the store holds, when all were checked (``seal_summary``)."""
        from zx_events.ledger import seal_summary

        sealed = ledger.exists and ledger.ok
        status = "sealed" if sealed else "broken" if ledger.exists else "unsealed"
        check = cls(status, ledger.ok, ledger.head if sealed else None, [seal_summary(ledger, stored)])
        if store_head is None:
            return check
        # the head written down: the last entry's, or an earlier one's (imports since); on a broken seal, an entry's
        # before the break (their digests are read up to it)
        at = ledger.entry_of(store_head) if ledger.exists else None
        if at is not None and not sealed:
            check.lines.append(f"the store head written down is that of seal entry {at} of {ledger.entries}: the seal "
                               f"up to it is as it was then; it is broken after it (above)")
        elif at is None:
            check.lines.append(f"the store head {ledger.head[:16] if ledger.exists else 'none'} is not the one written "
                               f"down ({store_head.strip().lower()[:16]}), nor that of any earlier seal entry: the "
                               f"store seal was rewritten")
            check.ok, check.status = False, "broken" if ledger.exists and not ledger.ok else "store-head"
        elif at < ledger.entries:
            later = sum(1 for s in ledger.matches.values() if s.entry > at)
            check.lines.append(
                f"the store head written down is that of seal entry {at} of {ledger.entries}: the seal up to it is "
                f"as it was then; the {counted(later, 'match', 'matches')} sealed in the "
                f"{counted(ledger.entries - at, 'entry', 'entries')} since (later imports) are vouched for by the "
                f"store head {ledger.head[:16]} alone: write it down")
            check.status = "earlier-head"
        return check

    def after_seal(self, line: str, now) -> "StoreCheck":
        """After ``--seal``: its trailer line added; a store that has a seal now is ``sealed``, with its store head
        (``now``: the seal read again)."""
        self.lines.append(line)
        if now.exists and now.ok:
            self.head = now.head
            if self.status == "unsealed":
                self.status = "sealed"
        return self

    def record(self) -> dict:
        """The record that ends ``zx verify --format json|csv``, after the matches' (``match`` null)."""
        return {"match": None, "events": None, "status": self.status, "ok": self.ok, "seq": None,
                "head": self.head, "message": "; ".join(self.lines)}


def _verdict_table(rows: list[dict]) -> None:
    """``zx verify``'s table of verdicts (``Verdict.to_json``): heads cut to 16 hex digits (JSON and CSV: all 64)."""
    columns = [c for c in VERIFY_COLUMNS if c != "seq" or any(r.get("seq") is not None for r in rows)]  # (a
    # clean store's empty seq column took the room of head at 80 columns)
    emit([{**r, "head": r["head"][:16] if r["head"] else r["head"]} for r in rows], "table", columns,
         first=("status", "message", "seq"))


def _emit_records(rows_out: list, store: StoreCheck, fmt: str) -> None:
    """``--format json|csv``: the matches' records, then the store's (a table has printed its rows, and the
    store's lines are its trailer)."""
    if fmt != "table":
        emit([*rows_out, store.record()], fmt, VERIFY_COLUMNS)


def _seal(svc, ledger, verdicts, targets, bad, store: StoreCheck) -> StoreCheck:
    """zx verify --seal: seal a store from before the seal (no ledger yet), once every match verifies.
    A sealed store's matches are sealed by ``zx import`` alone: one the seal does not list (``added``)
    was written behind it, and sealing it would launder it (it did). Returns ``store`` as it is after."""
    from zx_events.ledger import adopt, against_seal, read_ledger, seal_summary, sealed_entry

    added = [v for v in bad if v.status == "added"]
    if added:
        raise click.ClickException(
            f"not sealing: {len(added):,} match{'es are' if len(added) != 1 else ' is'} not in the store seal "
            f"({', '.join(v.match for v in added[:3])}{', ...' if len(added) > 3 else ''}): written into this sealed "
            f"store outside zx import, and a seal would vouch for them; zx import seals the matches it stores "
            f"(remove these and import their logs)")
    if bad:
        raise click.ClickException(f"not sealing: {len(bad):,} match{'es' if len(bad) != 1 else ''} "
                                   f"fail verification (see above); a seal would vouch for them")
    uids = dict(targets)
    todo = [v for v in verdicts if v.ok and not ledger.exists]
    if todo and not adopt(svc.recorder, svc.mapper,
                          [sealed_entry(v.match, uids[v.match], v.events, v.head) for v in todo]):
        # another zx verify --seal wrote the first entry meanwhile: nothing is appended (it listed these
        # matches once more, after it, and the heads printed before were superseded); these are checked
        # against its seal, and the head printed is the one that holds now, the same in every process
        now = read_ledger(svc.recorder, svc.mapper)
        later = [against_seal(now, v, uids[v.match]) for v in todo]
        listed = sum(v.ok for v in later)
        line = (f"0 matches sealed: the store was sealed meanwhile by another process (zx verify --seal), which "
                f"lists {listed:,} of these {len(todo):,}"
                f"{'' if listed == len(todo) else ' (zx verify names the others)'}; " + seal_summary(now))
        click.echo(line, err=True)
        for v, w in zip(todo, later):
            v.status, v.message = (("ok", "sealed by another process") if w.ok else (w.status, w.message))
            if not w.ok:
                bad.append(v)
        return store.after_seal(line, now)
    for v in todo:
        click.echo(f"sealed {v.match} (head {str(v.head)[:16]})", err=True)
    late = _stored_while_sealing(svc)
    for row in late:
        click.echo(f"sealed {row[0]} (head {str(row[3])[:16]}; imported while the seal was made)", err=True)
    now = read_ledger(svc.recorder, svc.mapper)
    line = f"{counted(len(todo) + len(late), 'match', 'matches')} sealed; " + seal_summary(now)
    click.echo(line, err=True)
    for v in todo:  # they verify now
        v.status, v.message = "ok", "sealed now"
    bad[:] = [v for v in bad if v.status != "ok"]
    return store.after_seal(line, now)


def _stored_while_sealing(svc) -> list:
    """After the first entry of a store from before the seal: the matches a ``zx import`` committed between
    this command's verification and that entry (the import found the store unsealed, and the entry lists
    what was verified), their chains checked, appended to the ledger (``ledger.append_unlisted``); their
    ``sealed_entry`` rows. (The import looks again after its insert and appends them too if it commits
    later: whichever is last lists them.)"""
    from zx_events.integrity import verify_stored
    from zx_events.ledger import append_unlisted, read_ledger, sealed_entry

    listed = read_ledger(svc.recorder, svc.mapper).matches
    rows, claims = [], {}
    for name, uid in _all_matches(svc, claims):
        if isinstance(uid, str):  # (an id that is no UUID: never sealed)
            continue
        if str(uid) not in listed and uid not in claims:  # (not one filed where zx import would not file it)
            v = verify_stored(svc, name, uid)
            if v.ok:
                rows.append(sealed_entry(v.match, uid, v.events, v.head))
    return append_unlisted(svc.recorder, svc.mapper, rows) if rows else []


def _not_an_id(oid: str) -> object:
    """The verdict of events stored under ``oid``, which is no id zx writes (a UUID's 32 hex digits): a row's id
    edited in the store (QA round 35: one such row was an internal error of zx verify, zx matches and the
    analytics, no match verified)."""
    from zx_events.integrity import Verdict

    return Verdict(oid, 0, "forged", None, f"events are stored under the id {oid!r}, which is no id zx writes (not "
                                            f"a UUID): rows edited in the store, outside zx", None)


def _uuid(oid: str):
    """A stored id as the seal lists it (text) as the recorder takes it; None when it is not one (a seal row
    written outside zx: no aggregate can be filed under it)."""
    import uuid

    try:
        return uuid.UUID(oid)
    except (ValueError, TypeError, AttributeError):  # (a row's id edited into another type: an integer)
        return None


def _target(svc, name: str, claims: dict) -> tuple[str, object]:
    """A MATCH argument: a match id, or the stored id (a UUID) of an aggregate ``zx verify`` reported
    under it (one filed where zx import would not file its match, or whose Started event is unreadable)."""
    import uuid

    from zx_events.ids import match_uuid

    uid = match_uuid(name)
    try:
        stored = uuid.UUID(name)
    except ValueError:
        _all_matches(svc, claims, only=uid)  # filed under this name but naming another match: forged too
        return name, uid
    if svc.recorder.select_events(uid, limit=1) or not svc.recorder.select_events(stored, limit=1):
        return name, uid
    for name_, uid_ in _all_matches(svc, claims, only=stored):
        return name_, uid_
    return name, stored


LISTING_BAR = 200_000  # notifications: a store with more gets a bar while zx verify lists its matches


def _all_matches(svc, claims: dict | None = None, only=None, at=None) -> list[tuple[str, object]]:
    """Every aggregate in the store (not only those whose Started event survived), named by match id;
    one whose Started event names a match that zx import files under another id is named by its
    stored id, and that match id goes into ``claims`` (two aggregates named alike: the copy's verdict
    was reported under the original's name, and replaced by it). ``only``: that aggregate alone. ``at(id)``: told
    the notification id reached, every 65,536."""
    from zx_events import games
    from zx_events.integrity import decode_state

    from zx_events.ledger import LEDGER_ID

    names: dict[object, str] = {}
    con = svc.read_connection() if only is None and svc.rows_direct else None
    if con is not None:
        return _all_matches_sqlite(svc, con, claims, at)
    rows = svc.notifications() if only is None else svc.recorder.select_events(only, limit=1)
    for k, n in enumerate(rows, 1):
        if at is not None and not k & 0xFFFF:
            at(n.id)
        if n.originator_id == LEDGER_ID:  # the store seal, checked on its own
            continue
        if n.originator_id not in names:
            names[n.originator_id] = str(n.originator_id)
        if games.is_topic(n.topic, "Started"):
            try:
                match_id = decode_state(svc.mapper, n).get("match_id")
            except Exception:
                continue
            _name(names, claims, n.originator_id, match_id)
    return [(name, uid) for uid, name in names.items()]


def _name(names: dict, claims: dict | None, uid: object, match_id: object) -> None:
    """Name the aggregate ``uid`` in ``names`` by the match id its Started event gives: the match id where zx import
    files that match under ``uid``, else its stored id, the match id it claims going into ``claims``."""
    from zx_events.ids import filed_under

    if not filed_under(match_id, uid):
        if claims is not None:
            claims[uid] = match_id
        names[uid] = str(uid)
    else:
        names[uid] = match_id or names[uid]


def _all_matches_sqlite(svc, con, claims: dict | None, at) -> list[tuple[str, object]]:
    """``_all_matches`` of a SQLite store, read with two plain statements on its read-only connection ``con``
    in one read transaction: every aggregate's id in the order of its first event (the table's key alone), and
    the Started events (through the summaries' index where the store has it). Reading every notification
    through the recorder took 170 s at 130,000 matches (21 million events), this 37 s from a cold disk; the
    same list, named alike."""
    from zx_events import summaries
    from zx_events.ledger import LEDGER_ID

    started = summaries.TOPICS_STARTED
    where = f"{summaries.HEADS_WHERE} AND " if summaries.has_indexes(con) else ""
    began = not con.in_transaction
    if began:
        con.execute("BEGIN")
    try:
        ids = [r[0] for r in con.execute("SELECT originator_id FROM stored_events GROUP BY originator_id "
                                         "ORDER BY min(rowid)")]
        if at is not None:
            at(con.execute("SELECT max(rowid) FROM stored_events").fetchone()[0] or 0)
        names: dict[object, str] = {}
        for oid in ids:
            if oid != LEDGER_ID.hex:  # (the store seal, checked on its own)
                uid = _uuid(oid)
                if uid is None:  # an id zx never writes (a row's edited in the store): kept by its text, reported
                    names[str(oid)] = str(oid)  # forged (_not_an_id)
                    continue
                names[uid] = str(uid)
        for oid, state in con.execute(f"SELECT originator_id, state FROM stored_events WHERE {where}topic IN "
                                      f"({', '.join('?' * len(started))}) ORDER BY rowid", started):
            uid = _uuid(oid)
            if uid is None:
                continue
            try:
                match_id = svc.mapper.fields(state).get("match_id")
            except Exception:
                continue
            _name(names, claims, uid, match_id)
    finally:
        if began:
            con.execute("COMMIT")
    return [(name, uid) for uid, name in names.items()]
