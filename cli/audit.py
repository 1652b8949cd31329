"""``zx audit`` (every violation of a log or a stored match) and ``zx verify`` (the digest chains)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from zx_events.application import TOPIC_STARTED
from zx_events.errors import ZXError

from .main import load_catalog_option, service
from .output import emit, format_option, progress

AUDIT_COLUMNS = ["match", "line", "seq", "turn", "player", "rule", "message"]
VERIFY_COLUMNS = ["match", "events", "status", "seq", "head", "message"]


def _summary(a) -> str:
    cat = a.catalog or {}
    n = len(a.findings)
    used = (f"catalog {cat.get('name')} (sha256 {str(cat.get('sha256'))[:12]}) and rules {a.rules_version}"
            if cat else f"rules {a.rules_version}")
    integrity = a.integrity + (f": {a.integrity_detail}" if a.integrity_detail else "")
    head = f", head {a.head[:16]}" if a.head else ""
    return (f"{a.match or '?'} ({a.source}): {n or 'no'} violation{'s' if n != 1 else ''}; checked with {used}; "
            f"integrity {integrity}{head}")


@click.command("audit")
@click.argument("targets", nargs=-1, required=True, metavar="LOG...|MATCH...")
@click.option("--catalog", "catalog_path", default=None, metavar="NAME|FILE",
              help="Card catalog to check with (default: the one each header names).")
@click.option("--bundle", "bundle_path", default=None, type=click.Path(dir_okay=False), metavar="FILE.zip",
              help="Write a dispute bundle of the (single) audited match to FILE.zip.")
@format_option
@click.pass_context
def audit_cmd(ctx: click.Context, targets: tuple[str, ...], catalog_path: str | None, bundle_path: str | None,
              fmt: str) -> None:
    """Report every rule violation of match logs or stored matches (exit 1 when any).

    Example: zx audit r3.zxlog   or   zx audit tokyo-regional-2026-r3-t12 --bundle dispute.zip

    An argument that is a file is a log (each match in it is audited); anything else is the id of
    a stored match, re-checked from its events by the current rules engine, with its digest chain
    verified. --format json prints one JSON object per match, one per line.
    """
    from zx_events.audit import audit_log, audit_stored, compare_with_store
    from zx_events.errors import FormatError
    from zx_events.logformat.reader import read_log

    catalog = load_catalog_option(catalog_path)
    files = [t for t in targets if Path(t).is_file()]
    ids = [t for t in targets if t not in files]
    svc = None
    if ids and not _store_exists(ctx):
        raise click.ClickException(f"{', '.join(ids)}: neither a log file nor a stored match "
                                   f"(there is no store at {_store_label(ctx)})")
    if ids or _store_exists(ctx):
        svc = service(ctx)
    if ids:
        unknown = [t for t in ids if not svc.has_match(t)]
        if unknown:
            raise click.ClickException(
                f"{', '.join(unknown)}: neither a log file nor a stored match in {svc.store.label}")
    audits = []
    with progress(len(targets), "auditing") as bar:
        task = bar.add_task("audit", total=len(targets))
        for t in targets:
            if t in files:
                try:
                    logs = read_log(t)
                except FormatError as e:
                    raise click.ClickException(str(e)) from None
                for log in logs:
                    a = audit_log(log, catalog)
                    if svc is not None:
                        compare_with_store(a, svc)
                    audits.append(a)
            else:
                try:
                    audits.append(audit_stored(svc, t, catalog))
                except ZXError as e:
                    raise click.ClickException(f"{t}: {e}") from None
            bar.advance(task)
    if bundle_path is not None:
        if len(audits) != 1:
            raise click.UsageError(f"--bundle needs exactly one match, these arguments hold {len(audits)}")
        from zx_events.bundle import write_bundle

        write_bundle(audits[0], bundle_path)
    for a in audits:
        click.echo(_summary(a), err=True)
        for w in a.warnings:
            click.echo(f"warning: {a.match}: {w}", err=True)
    if fmt == "json":
        for a in audits:
            click.echo(json.dumps(a.to_json(), ensure_ascii=False, default=str))
    else:
        rows = [{"match": a.match, **f.to_json(a.stored), "line": None if a.stored else f.line,
                 "rule": f.rule or "format"} for a in audits for f in a.findings]
        n = len(rows)
        emit(rows, fmt, AUDIT_COLUMNS, title=f"{n or 'no'} violation{'s' if n != 1 else ''} in "
                                             f"{len(audits)} match{'es' if len(audits) != 1 else ''}")
    if bundle_path is not None:
        click.echo(f"dispute bundle written to {bundle_path}", err=True)
    if not all(a.ok for a in audits):
        sys.exit(1)


def _store_label(ctx: click.Context) -> str:
    from zx_events.store import resolve_store

    try:
        return resolve_store(ctx.obj["store"], prepare=False).label
    except Exception:
        return str(ctx.obj["store"])


def _store_exists(ctx: click.Context) -> bool:
    """Compare logs with the store only when there is one (a log audit must not create a store file)."""
    from zx_events.store import resolve_store

    try:
        cfg = resolve_store(ctx.obj["store"], prepare=False)
    except Exception:
        return False
    if cfg.kind == "sqlite":
        return cfg.path is not None and cfg.path.is_file()
    return cfg.kind == "postgres"


@click.command("verify")
@click.argument("matches", nargs=-1, metavar="[MATCH...]")
@click.option("--head", "head", default=None, metavar="HEX",
              help="The head digest written on the score sheet (at least 16 hex digits); needs one MATCH.")
@format_option
@click.pass_context
def verify_cmd(ctx: click.Context, matches: tuple[str, ...], head: str | None, fmt: str) -> None:
    """Recompute the digest chain of stored matches and name the first tampered event.

    Example: zx verify   or   zx verify tokyo-regional-2026-r3-t12 --head 3f9a0c21d4e5b6a7

    Without MATCH every match in the store is checked. Exit 1 when any chain is broken (an event
    altered, deleted, inserted or reordered after import) or the head differs from --head.
    """
    from zx_events.integrity import check_head, stored_rows, verify_rows
    from zx_events.match import match_uuid

    if head is not None:
        if len(matches) != 1:
            raise click.UsageError("--head needs exactly one MATCH")
        h = head.strip().lower()
        if len(h) < 16 or len(h) > 64 or any(c not in "0123456789abcdef" for c in h):
            raise click.BadParameter(f"{head!r} is not a head digest (16 to 64 hex digits)", param_hint="--head")
    if not _store_exists(ctx):
        raise click.ClickException(f"there is no store at {_store_label(ctx)}: nothing to verify")
    svc = service(ctx)
    if matches:
        targets = [(m, match_uuid(m)) for m in matches]
    else:
        targets = _all_matches(svc)
    verdicts = []
    with progress(len(targets), "verifying") as bar:
        task = bar.add_task("verify", total=len(targets))
        for name, uid in targets:
            rows = stored_rows(svc, uid)
            if not rows and matches:
                raise click.ClickException(f"no stored match {name!r} in {svc.store.label}")
            v = verify_rows(name, rows)
            if head is not None:
                v = check_head(v, head)
            verdicts.append(v)
            bar.advance(task)
    if fmt == "json":
        emit([v.to_json() for v in verdicts], fmt)
    else:
        rows_out = [{**v.to_json(), "head": v.head[:16] if v.head else None} for v in verdicts]
        emit(rows_out, fmt, VERIFY_COLUMNS)
    bad = [v for v in verdicts if not v.ok]
    click.echo(f"{len(verdicts) - len(bad)} intact, {len(bad)} failed in {svc.store.label}", err=True)
    if bad:
        sys.exit(1)


def _all_matches(svc) -> list[tuple[str, object]]:
    """Every aggregate in the store (not only those whose Started event survived), named by match id."""
    from zx_events.integrity import decode_state

    names: dict[object, str] = {}
    for n in svc.notifications():
        if n.originator_id not in names:
            names[n.originator_id] = str(n.originator_id)
        if n.topic == TOPIC_STARTED:
            try:
                names[n.originator_id] = decode_state(svc.mapper, n).get("match_id") or names[n.originator_id]
            except Exception:
                pass
    return [(name, uid) for uid, name in names.items()]
