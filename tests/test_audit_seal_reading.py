"""``zx audit`` of many matches reads the store seal once, not once per match (QA round 30: a season's 300 files,
3,000 matches, took 40 s with the store against 12 s without, most of it the seal's 3,000 entries read 3,000
times), and again when it does not list a match: one a ``zx import`` stored after the reading is never ``added``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from zx_cli.main import zx
from zx_events import audit as audit_module, ledger
from zx_events.audit import audit_log, audit_stored, compare_with_store
from zx_events.ids import match_uuid
from zx_events.integrity import stored_rows
from zx_events.logformat.reader import read_log

ROOT = Path(__file__).resolve().parent.parent
LOGS = [ROOT / "examples" / "legal" / "first-turns.zxlog", ROOT / "examples" / "invalid" / "503.3-too-many.zxlog",
        ROOT / "examples" / "invalid" / "602.1b-own-zx.zxlog"]


def test_an_audit_of_logs_and_matches_against_the_store_reads_its_seal_once(store_url, monkeypatch):
    r = CliRunner().invoke(zx, ["--store", store_url, "import", "--no-analytics", "--accept-violations",
                                *map(str, LOGS)])
    assert r.exit_code == 0, r.output
    reads = []
    real = ledger.read_ledger

    def counted(*args, **kwargs):  # (the real reading, counted)
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ledger, "read_ledger", counted)
    monkeypatch.setattr(audit_module, "read_ledger", counted, raising=False)
    r = CliRunner().invoke(zx, ["--store", store_url, "audit", *map(str, LOGS), "invalid-602.1b-own-zx",
                                "--format", "json"])
    assert r.exit_code == 1, r.output  # (two logs with a violation)
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(o["match"], o["integrity"]) for o in out] == [
        ("hand-first-turns-001", "ok"), ("invalid-503.3-too-many", "ok"), ("invalid-602.1b-own-zx", "ok"),
        ("invalid-602.1b-own-zx", "ok")]
    assert all(o["head"] for o in out)
    assert len(reads) == 1  # (it was 4: once per match)


def test_a_match_imported_after_the_seal_was_read_is_checked_against_the_newer_seal(service):
    """The seal read for the first match does not list one a later import batch stored: it is read again for that
    match, which is ``ok`` (its entry), not ``added`` (stored outside zx import)."""
    from zx_events.audit import SealReading

    first, later, third = (read_log(p)[0] for p in LOGS)
    service.import_log(first)
    seal = SealReading(service)
    a = audit_log(first)
    compare_with_store(a, service, seal)
    assert a.integrity == "ok" and a.head
    service.import_log(later, accept_violations=True)  # (a batch committed after the reading: a new seal entry)
    b = audit_stored(service, later.match_id, seal=seal)
    assert (b.integrity, b.verdict.status) == ("ok", "ok"), b.integrity_detail
    assert str(match_uuid(later.match_id)) in seal.ledger.matches
    service.import_log(third, accept_violations=True)
    c = audit_log(third)
    compare_with_store(c, service, seal)
    assert c.integrity == "ok" and c.head == seal.verdict(third.match_id, match_uuid(third.match_id),
                                                          stored_rows(service, match_uuid(third.match_id))).head
