"""The store of release 0.1.0 keeps opening, replaying, auditing and verifying, unchanged.

``tests/fixtures/zx-store-0.1.0.*`` is a byte-for-byte copy of ``../shared/fixtures/`` (a user's
store written by zx-events 0.1.0: 20 Z/X matches, 4 stored with ``--accept-violations``), kept in
the repository so that this test runs on every clone; when ``../shared/fixtures`` is at hand it
must be the same bytes. The test copies the store first and never writes to the fixture. Keep this
test for every later release (issue 13).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

HERE = Path(__file__).parent / "fixtures"
STORE, HEADS, MATCHES = (HERE / f"zx-store-0.1.0.{s}" for s in ("sqlite", "heads.txt", "matches.csv"))
SHA256 = {  # of ../shared/fixtures as released with 0.1.0: nobody edits the copy
    STORE: "b734761fdc76add51de01d0e779200f93359aea51b5585a77f8c465202fc8c3a",
    HEADS: "5a86e3485c0d44718b60a4a8140b28599dc73d03ec38addc84d72e0b94a68c42",
    MATCHES: "837895d1cdf160fa65dad72b74d3c7a938a8c4974938f97064887614ead7de98",
}
SHARED = [d / "shared" / "fixtures" for d in Path(__file__).resolve().parents[1:3]]


def heads() -> dict[str, tuple[int, str]]:
    out = {}
    for line in HEADS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            match, events, head = line.split()
            out[match] = (int(events), head)
    return out


def events_table(path: Path) -> list[tuple]:
    """Every stored event row of the store's events table, as stored."""
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT originator_id, originator_version, topic, state FROM stored_events "
                           "ORDER BY rowid").fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fixture-0.1.0") / "events.sqlite"
    shutil.copyfile(STORE, path)
    return path


def run(store: Path, *args: str) -> str:
    r = CliRunner().invoke(zx, ["--store", str(store), *args])
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    return r.stdout


def test_the_fixture_copy_is_the_released_one():
    for path, sha in SHA256.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha, f"{path} was changed: restore it"
    for shared in SHARED:
        if (shared / STORE.name).is_file():
            for path in SHA256:
                assert (shared / path.name).read_bytes() == path.read_bytes()


def test_it_lists_the_same_20_matches(store):
    listed = list(csv.DictReader(io.StringIO(run(store, "matches", "--format", "csv"))))
    released = list(csv.DictReader(MATCHES.read_text(encoding="utf-8").splitlines()))
    assert len(released) == 20
    # the same rows, column for column; later releases add columns at the end (game)
    assert [{k: r[k] for k in released[0]} for r in listed] == released
    assert {r["game"] for r in listed} == {"zx"}


def test_every_match_replays_from_every_seat(store):
    from zx_events import replay
    from zx_events.application import MatchService

    svc = MatchService(str(store), create=False)
    try:
        for match, (events, _) in heads().items():
            hist = replay.load_history(svc, match)
            assert hist.last_seq == events
            for seat in ("judge", "P1", "P2", "spectator"):
                step = hist.step_at(hist.last_seq, seat)
                assert step.state.seq == events and step.state.perspective == seat
            # seeking (through the snapshots the first seek writes) gives the replayed state
            for seq in sorted({1, events // 2, events}):
                assert replay.state_at(svc, match, seq).__dict__ == hist.state_at(seq).__dict__
    finally:
        svc.close()
    out = json.loads(run(store, "replay", "sim-11-0003", "--as", "P1", "--format", "json"))
    assert out["seq"] == 190 and out["perspective"] == "P1"


def test_the_4_accepted_matches_audit_with_their_violations(store):
    accepted = [r for r in csv.DictReader(MATCHES.read_text(encoding="utf-8").splitlines()) if r["violations"] != "0"]
    assert len(accepted) == 4
    r = CliRunner().invoke(zx, ["--store", str(store), "audit", "--format", "json", *[a["match"] for a in accepted]])
    assert r.exit_code == 1, r.output  # violations found: the audit says so with its exit code
    audits = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]  # one JSON object per match
    assert [a["match"] for a in audits] == [a["match"] for a in accepted]
    for a, row in zip(audits, accepted):
        assert a["integrity"] == "ok" and a["game"] == "zx" and a["rules"] == a["rules_version"]
        assert len(a["violations"]) == int(row["violations"])
        expected = row["match"].split("-")[1]  # invalid-603.1b-..., invalid-202.7e-...
        assert [v["rule"] for v in a["violations"]] == [expected]
        assert a["violations"][0]["seq"] is not None and a["violations"][0]["title"]


def test_verify_finds_every_match_intact_with_the_recorded_heads(store):
    *verdicts, seal = json.loads(run(store, "verify", "--format", "json"))  # the last record: the store's
    assert {v["match"]: (v["events"], v["head"]) for v in verdicts} == heads()
    assert (seal["match"], seal["status"], seal["ok"], seal["head"]) == (None, "unsealed", True, None)
    assert all(v["ok"] and v["status"] == "ok" for v in verdicts)


def test_nothing_stored_was_rewritten(store):
    """After listing, replaying (which adds snapshots), auditing and verifying the copy: its events are
    the released bytes."""
    run(store, "replay", "sim-11-0001", "--turn", "2")
    assert events_table(store) == events_table(STORE)


def test_verify_and_audit_write_nothing_into_it(tmp_path):
    """``zx verify`` and ``zx audit`` on a fresh copy leave the file byte for byte as released: no
    table is made (the snapshot check read the snapshots through a store that created their empty
    table on a store that had none)."""
    path = tmp_path / "events.sqlite"
    shutil.copyfile(STORE, path)
    run(path, "verify", "--format", "json")
    run(path, "audit", "sim-11-0001", "--format", "json")
    assert path.read_bytes() == STORE.read_bytes()
