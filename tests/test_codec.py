"""How events are stored (zx_events.codec): the canonical bytes the digest covers are the bytes stored.

New events are stored as their canonical JSON plus the digest as the last key; events stored by
0.1.0 (the shared fixture store) keep their bytes and still decode, replay and verify with their
recorded heads, also in a store that mixes both.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

import orjson

from zx_events import integrity, replay
from zx_events.application import MatchService
from zx_events.codec import split_digest, with_digest
from zx_events.games.zx.match import match_uuid
from zx_events.logformat.reader import read_log

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "examples" / "legal"
FIXTURES = ROOT / "tests" / "fixtures"  # ../shared/fixtures' copy, byte for byte (test_fixture_0_1_0 checks it)
MATCH = "hand-first-turns-001"


def imported(store: str) -> MatchService:
    svc = MatchService(store)
    for path in sorted(LEGAL.glob("*.zxlog")):
        for log in read_log(path):
            assert svc.import_log(log).status == "imported"
    return svc


def test_stored_bytes_are_the_hashed_canonical_bytes(service):
    for path in sorted(LEGAL.glob("*.zxlog")):
        for log in read_log(path):
            assert service.import_log(log).status == "imported"
    stored = service.recorder.select_events(match_uuid(MATCH))
    prev = integrity.ZERO
    for s in stored:
        body, digest = split_digest(s.state)
        fields = orjson.loads(s.state)
        # the canonical bytes of the decoded event are byte for byte the stored body ...
        assert body == integrity.canonical(s.topic, s.originator_id, s.originator_version, fields)
        assert (fields["topic"], fields["originator_version"], fields["originator_id"]) == \
            (s.topic, s.originator_version, str(s.originator_id))
        # ... and the digest chains over them
        assert digest.decode() == fields["digest"] == hashlib.sha256(bytes.fromhex(prev) + body).hexdigest()
        assert with_digest(body, fields["digest"]) == s.state
        prev = fields["digest"]
    # decoding gives the event's fields back, with its timestamp as a datetime
    e = service.mapper.to_domain_event(stored[3])
    assert isinstance(e.timestamp, datetime) and e.timestamp.tzinfo is not None
    assert e.originator_id == match_uuid(MATCH) and e.originator_version == 4
    assert "topic" not in vars(e)
    assert service.mapper.to_stored_event(e).state == stored[3].state  # encoding again: the same bytes


def test_the_plain_rows_of_seal_stored_are_its_stored_events(monkeypatch):
    """seal_stored(hex_rows=True), for a store that takes plain rows (MatchService.rows_direct): each
    row is the StoredEvent the other way makes, as (originator_id hex, version, topic, state): the same
    bytes and the same head, for every legal example match of both games."""
    import copy

    from zx_events.importer import build_match

    svc = MatchService("memory:")
    paths = sorted(LEGAL.glob("*.zxlog")) + sorted((LEGAL.parent / "x610z" / "legal").glob("*.x610zlog"))
    logs = [log for path in paths for log in read_log(path) if log.error is None]
    assert {log.game.key for log in logs} == {"zx", "x610z"}
    sealed_at = datetime(2026, 11, 25).astimezone()
    for log in logs:
        m = build_match(log).match
        # the seal made by both ways at the same time (its timestamp is in its stored bytes)
        monkeypatch.setitem(type(m)._sealed.__globals__, "now", lambda: sealed_at)
        twin = copy.deepcopy(m)
        head, stored = integrity.seal_stored(m, svc.mapper)
        head2, rows = integrity.seal_stored(twin, svc.mapper, hex_rows=True)
        assert head2 == head and len(rows) == len(stored) == m.version
        assert rows == [(s.originator_id.hex, s.originator_version, s.topic, s.state) for s in stored]
        assert all(type(r) is tuple for r in rows)
    svc.close()


def test_snapshots_round_trip(tmp_path):
    svc = imported(str(tmp_path / "s.sqlite"))
    mid = "sim-1-0038"  # 417 events: snapshots at 50, 100, ...
    last = replay.last_seq(svc, mid)
    assert replay.prepare_snapshots(svc, mid, 50) == last // 50
    for seq in (50, 51, 199, last):
        assert vars(replay.state_at(svc, mid, seq)) == vars(svc.get_match(mid, version=seq))


def test_the_0_1_0_store_opens_replays_and_verifies_beside_new_events(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(FIXTURES / "zx-store-0.1.0.sqlite", path)
    con = sqlite3.connect(path)
    before = con.execute("SELECT originator_id, originator_version, topic, state FROM stored_events").fetchall()
    con.close()
    heads = {line.split()[0]: (int(line.split()[1]), line.split()[2])
             for line in (FIXTURES / "zx-store-0.1.0.heads.txt").read_text().splitlines() if line.strip()}
    svc = MatchService(str(path))
    for mid, (events, head) in heads.items():
        v = integrity.verify_stored(svc, mid, match_uuid(mid))
        assert (v.status, v.events, v.head) == ("ok", events, head), mid
        assert svc.get_match(mid).version == events
        assert vars(replay.state_at(svc, mid, events // 2)) == vars(svc.get_match(mid, version=events // 2))
    # a match imported now (new bytes) beside them
    text = (LEGAL / "first-turns.zxlog").read_text().replace(MATCH, "new-beside-old")
    (tmp_path / "new.zxlog").write_text(text)
    (log,) = read_log(tmp_path / "new.zxlog")
    out = svc.import_log(log)
    assert out.status == "imported"
    assert integrity.verify_stored(svc, "new-beside-old", match_uuid("new-beside-old")).head == out.head
    for mid, (events, head) in heads.items():
        assert integrity.verify_stored(svc, mid, match_uuid(mid)).head == head
    svc.close()
    con = sqlite3.connect(path)
    after = con.execute("SELECT originator_id, originator_version, topic, state FROM stored_events "
                        "WHERE originator_id != ?", [match_uuid("new-beside-old").hex]).fetchall()
    con.close()
    assert sorted(after) == sorted(before)  # not one stored byte of 0.1.0 changed


def test_content_hash_encoding_is_the_stdlib_canonical_json():
    """MatchLog.content_sha256 (stored in every Started event) hashes orjson's sorted compact JSON:
    byte for byte what json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False) wrote
    before, for every record of the examples and for awkward text; an integer beyond 64 bits
    (which orjson cannot write) takes the stdlib's way."""
    import json

    from zx_events.logformat.reader import _canonical

    def stdlib(obj):
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    objs = []
    for path in sorted((ROOT / "examples").rglob("*.zxlog")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                objs.append(json.loads(line))
            except ValueError:
                pass
    objs += [{"note": "tab\there \"quoted\" back\\slash \u2028 \x7f \x1f é 日本 😀", "b": 1, "a": [True, None, -0]},
             {"é": 1, "e": 2, "z": {"y": {}, "x": []}, "😀": 3, "\uffff": 4}, {"big": 2 ** 70, "n": -(2 ** 63)}]
    assert len(objs) > 100
    for obj in objs:
        assert _canonical(obj) == stdlib(obj), obj


def test_a_compressed_store_verifies_lists_and_detects_an_edit(tmp_path, monkeypatch):
    """A compressor configured in the environment applies to the stored bytes: verify's one-pass
    check reads them through it, and an edited payload is still found; zx matches lists the store
    through the application (zx_events.summaries cannot read compressed payloads)."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    monkeypatch.setenv("COMPRESSOR_TOPIC", "eventsourcing.compressor:ZlibCompressor")
    store = str(tmp_path / "z.sqlite")
    svc = imported(store)
    oid = match_uuid(MATCH)
    raw = svc.recorder.select_events(oid)[3].state
    assert raw[:1] != b"{" and svc.mapper.compressor.decompress(raw)[:1] == b"{"  # compressed as stored
    assert integrity.verify_stored(svc, MATCH, oid).ok
    listed = CliRunner().invoke(zx, ["--store", store, "matches", "--format", "csv"])
    assert listed.exit_code == 0 and MATCH in listed.stdout
    body = svc.mapper.compressor.decompress(raw).replace(b'"P1"', b'"P2"', 1)
    svc.close()
    con = sqlite3.connect(store)
    con.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 4",
                (svc.mapper.compressor.compress(body), oid.hex))
    con.commit()
    con.close()
    svc = MatchService(store, create=False)
    verdict = integrity.verify_stored(svc, MATCH, oid)
    svc.close()
    assert (verdict.status, verdict.seq) == ("altered", 4)
