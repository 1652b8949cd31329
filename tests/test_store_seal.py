"""The store seal (zx_events/ledger.py) and the tampering the match chains alone did not show
(issue 14 item 5): a match deleted whole, a match rewritten with recomputed digests, a match added
behind the importer's back, an edited replay snapshot, a deleted event under ``zx replay``.

Each test changes the events table with SQL, as someone with write access to the database would.
Runs on SQLite and PostgreSQL (the ``service`` fixture).
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from test_verify import LEGAL, MATCH, Tamper, match_records
from zx_events import integrity, replay
from zx_events.application import MatchService
from zx_events.games.zx.match import match_uuid
from zx_events.integrity import decode_state
from zx_events.ledger import LEDGER_ID, TOPIC_ENTRY, adopt, read_ledger, sealed_entry
from zx_events.logformat.reader import read_log

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "zx-store-0.1.0.sqlite"  # ../shared/fixtures' copy (test_fixture_0_1_0 checks it)
LONG = ROOT / "examples" / "legal" / "long-game-reload-win-by-life.zxlog"  # ~300 events: has snapshots
WON = "sim-1-0038"


def cli(store_url: str, *args: str):
    return CliRunner().invoke(zx, ["--store", store_url, *args])


@pytest.fixture
def sealed(service, tmp_path):
    """Three matches imported (one batch each): the legal example, a copy under another id, a long one."""
    heads = {}
    for log in read_log(LEGAL):
        heads[MATCH] = service.import_log(log).head
    second = tmp_path / "second.zxlog"
    second.write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, "second-match"), encoding="utf-8")
    for path in (second, LONG):
        for log in read_log(path):
            heads[log.match_id] = service.import_log(log).head
    return service, Tamper(service), heads


def rechained(svc: MatchService, match: str, change, oid=None):
    """Each stored row of ``match`` with ``change(topic, state)`` made to its state and the chain and
    seal recomputed, as a careful forger would (for the aggregate id ``oid``, a copy's, or its own):
    (row, new state) pairs."""
    prev = integrity.ZERO
    for r in integrity.stored_rows(svc, match_uuid(match)):
        state = dict(r.state)
        change(r.topic, state)
        if integrity.is_seal(r.topic):
            state["last"] = prev
        state.pop("digest")
        if oid is not None:
            state["originator_id"] = str(oid)
        prev = integrity.link(prev, integrity.canonical(r.topic, oid or r.originator_id, r.seq, state))
        state["digest"] = prev
        yield r, state


def rewrite(svc: MatchService, t: Tamper, match: str, change) -> str:
    """Change one match's events with ``change(topic, state)`` and recompute its whole chain and
    seal, as a careful forger would; returns the new head."""
    rows, head = [], integrity.ZERO
    for r, state in rechained(svc, match, change):
        rows.append((svc.mapper.transcoder.encode(state), t.oid(match), r.seq))
        head = state["digest"]
    t.run_many("UPDATE {t} SET state = %s WHERE originator_id = %s AND originator_version = %s", rows)
    return head


def test_import_seals_every_match_with_its_head(sealed, count_rows):
    svc, _, heads = sealed
    ledger = read_ledger(svc.recorder, svc.mapper)
    assert ledger.ok and ledger.entries == 3 == count_rows(svc, ledger=True)
    assert {s.match: s.head for s in ledger.matches.values()} == heads
    r = cli(svc.store.url if svc.store.kind != "sqlite" else str(svc.store.path), "verify")
    assert r.exit_code == 0 and "3 intact, 0 failed" in r.stderr
    assert f"store seal: 3 matches in 3 entries, store head {ledger.head[:16]}" in r.stderr


def test_the_seal_of_one_match_is_in_the_singular(tmp_path):
    """``zx verify`` on a store of one match said "store seal: 1 matches in 1 entries"."""
    store = str(tmp_path / "s.sqlite")
    assert cli(store, "import", "--no-analytics", str(LEGAL)).exit_code == 0
    r = cli(store, "verify")
    assert r.exit_code == 0 and "store seal: 1 match in 1 entry, store head " in r.stderr, r.stderr


def test_a_match_deleted_whole_is_caught(sealed, store_url):
    svc, t, heads = sealed
    t.run("DELETE FROM {t} WHERE originator_id = %s", (t.oid("second-match"),))
    r = cli(store_url, "verify", "--format", "json")
    assert r.exit_code == 1
    gone = [v for v in json.loads(r.stdout) if v["status"] == "deleted"]
    assert [v["match"] for v in gone] == ["second-match"]
    assert "the whole match was deleted: the store seal lists it" in gone[0]["message"]
    assert heads["second-match"][:16] in gone[0]["message"]
    r = cli(store_url, "verify", "second-match")
    assert r.exit_code == 1 and "deleted" in r.stdout


def test_a_rewritten_match_with_a_recomputed_chain_is_caught_without_the_score_sheet(sealed, store_url):
    svc, t, heads = sealed

    def flip(topic, state):
        if topic.endswith(("MatchEnded", "ResultRecorded")) and state.get("winner") == "P2":
            state["winner"] = "P1"

    forged = rewrite(svc, t, WON, flip)
    assert forged != heads[WON]
    assert integrity.verify_rows(WON, integrity.stored_rows(svc, match_uuid(WON))).ok  # its own chain holds
    r = cli(store_url, "verify", "--format", "json")
    assert r.exit_code == 1
    (bad,) = [v for v in json.loads(r.stdout) if not v["ok"]]
    assert bad["match"] == WON and bad["status"] == "rewritten"
    assert f"its head {forged[:16]} is not the one sealed at import ({heads[WON][:16]}" in bad["message"]
    # zx audit no longer calls it clean, and zx replay warns
    r = cli(store_url, "audit", WON)
    assert r.exit_code == 1
    assert f"warning: {WON}: {WON} fails verification (rewritten" in r.stderr
    assert "integrity rewritten" in r.stderr
    r = cli(store_url, "replay", WON, "--format", "json")
    assert r.exit_code == 0 and f"warning: {WON} fails verification (rewritten" in r.stderr


def test_a_match_added_behind_the_importer_is_caught(sealed, store_url, tmp_path):
    svc, t, _ = sealed
    other = MatchService(str(tmp_path / "other.sqlite"))
    text = LEGAL.read_text(encoding="utf-8").replace(MATCH, "smuggled")
    (tmp_path / "s.zxlog").write_text(text, encoding="utf-8")
    for log in read_log(tmp_path / "s.zxlog"):
        assert other.import_log(log).status == "imported"
    uid = match_uuid("smuggled")
    rows = other.recorder.select_events(uid)
    svc.recorder.insert_events(rows)  # straight into the events table, no seal entry
    r = cli(store_url, "verify", "--format", "json")
    assert r.exit_code == 1
    (bad,) = [v for v in json.loads(r.stdout) if not v["ok"]]
    assert bad["match"] == "smuggled" and bad["status"] == "added" and "not in the store seal" in bad["message"]
    # zx verify --seal sealed it ("sealed smuggled", exit 0) and every later verify was clean: refused now
    entries = read_ledger(svc.recorder, svc.mapper).entries
    r = cli(store_url, "verify", "--seal")
    assert r.exit_code == 1 and "not sealing: 1 match is not in the store seal (smuggled)" in r.output, r.output
    assert "outside zx import" in r.output and "sealed smuggled" not in r.output
    assert read_ledger(svc.recorder, svc.mapper).entries == entries
    assert cli(store_url, "verify").exit_code == 1


def copy_under_another_id(svc: MatchService, t: Tamper, match: str, change=lambda topic, state: None):
    """Insert a copy of ``match``'s events under another aggregate id, ``change(topic, state)`` made to
    each and its chain and seal recomputed for that id, as a forger would (the store seal untouched);
    returns the copy's id."""
    import uuid

    copy = uuid.uuid4()
    t.run_many("INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)",
               [(copy.hex if t.cfg.kind == "sqlite" else copy, r.seq, r.topic, svc.mapper.transcoder.encode(state))
                for r, state in rechained(svc, match, change, copy)])
    return copy


@pytest.mark.parametrize("original_later", [False, True])
def test_a_copy_of_a_match_under_another_id_is_forged_under_its_own_id(sealed, store_url, original_later):
    """A copy of a match with its winner flipped and its chain recomputed, under another aggregate id:
    ``zx verify`` named it after the original (its Started event's match id), reported it ``added``
    and then replaced that verdict by the original's ``ok``; with the original's rows moved after
    the copy's, "7 intact, 0 failed", exit 0, and ``zx matches`` listed the match twice. zx import
    files a match under ``match_uuid(match id)``: anything else is ``forged``, under its stored id."""
    svc, t, heads = sealed
    if original_later and t.cfg.kind != "sqlite":
        pytest.skip("moves SQLite rowids")

    def flip(topic, state):
        if topic.endswith(("MatchEnded", "ResultRecorded")) and state.get("winner") == "P2":
            state["winner"] = "P1"

    copy = copy_under_another_id(svc, t, WON, flip)
    if original_later:  # the original's rows after the copy's in the log
        t.run("UPDATE {t} SET rowid = rowid + 1000000 WHERE originator_id = %s", (t.oid(WON),))
    r = cli(store_url, "verify", "--format", "json")
    assert r.exit_code == 1, r.output
    verdicts = {v["match"]: v for v in match_records(r.stdout)}
    assert len(verdicts) == 4 and verdicts[WON]["status"] == "ok" and verdicts[WON]["head"] == heads[WON]
    bad = verdicts[str(copy)]
    assert bad["status"] == "forged" and bad["head"] != heads[WON], bad
    assert (f"its Started event says match {WON}, which zx import files under {match_uuid(WON)}, not under this "
            f"aggregate's id {copy}: zx import did not write it") in bad["message"]
    assert "3 intact, 1 failed" in r.stderr
    r = cli(store_url, "verify", str(copy))  # the id it was reported under
    assert r.exit_code == 1 and "forged" in r.stdout and "0 intact, 1 failed" in r.stderr
    assert cli(store_url, "verify", WON).exit_code == 0
    r = cli(store_url, "verify", "--seal")
    assert r.exit_code == 1 and "not sealing" in r.output
    # zx matches: the original once, the copy by its stored id, damaged (through the application too)
    r = cli(store_url, "matches", "--format", "json")
    rows = {m["match"]: m for m in json.loads(r.stdout)}
    assert len(rows) == 4 and rows[str(copy)]["reason"] == "damaged" and rows[str(copy)]["winner"] is None
    assert rows[WON]["winner"] == "P2"
    listed = {m["match"]: m["reason"] for m in svc.summaries()}
    assert listed[str(copy)] == "damaged" and listed[WON] != "damaged"


def edit_entry(svc: MatchService, t: Tamper, version: int, change) -> None:
    """Seal entry ``version`` with ``change(state)`` made to its stored state, its digest left as it was."""
    oid = LEDGER_ID.hex if svc.store.kind == "sqlite" else LEDGER_ID
    (row,) = t.run("SELECT state FROM {t} WHERE originator_id = %s AND originator_version = %s", (oid, version))
    state = svc.mapper.transcoder.decode(bytes(row[0]))
    change(state)
    t.run("UPDATE {t} SET state = %s WHERE originator_id = %s AND originator_version = %s",
          (svc.mapper.transcoder.encode(state), oid, version))


def test_an_altered_seal_entry_is_caught(sealed, store_url):
    svc, t, _ = sealed
    edit_entry(svc, t, 2, lambda state: state.update(matches=[]))  # hide the second match from the seal
    r = cli(store_url, "verify")
    assert r.exit_code == 1 and "store seal: BROKEN: store seal entry 2 was altered" in r.stderr


def test_an_edited_seal_entry_names_the_match_whose_head_it_no_longer_gives(sealed, store_url):
    """One match's head edited in seal entry 1 (of three, one match each): every match was "seal: entry 1 was
    altered", the edited one never named. Now the entries up to the break fail their matches, the one whose
    head the entry no longer gives named as such; the entries after it (chained from it as stored) still
    vouch for theirs; the store's record is broken and verify exits 1."""
    svc, t, heads = sealed

    def zero_head(state: dict) -> None:
        assert [m[0] for m in state["matches"]] == [MATCH]
        state["matches"][0][3] = "0" * 64

    edit_entry(svc, t, 1, zero_head)
    r, records, store, _ = verified(store_url)
    assert r.exit_code == 1 and (store["status"], store["ok"]) == ("broken", False)
    by = {v["match"]: v for v in records}
    assert (by[MATCH]["status"], by[MATCH]["ok"]) == ("seal", False)
    assert by[MATCH]["message"] == (
        f"store seal entry 1 was altered (its digest does not match its content); entry 1 gives this match head "
        f"{'0' * 16} ({by[MATCH]['events']} events), not its head {heads[MATCH][:16]} ({by[MATCH]['events']} "
        f"events): this match or that entry was altered")
    assert {m: (v["status"], v["ok"]) for m, v in by.items() if m != MATCH} == \
        {m: ("ok", True) for m in heads if m != MATCH}
    assert "1 intact" not in r.stderr and "2 intact, 1 failed" in r.stderr
    # entry 2 of 3 edited (its match hidden): entries 1 and 2 cannot vouch (entry 1 may be the one rewritten,
    # its digest recomputed), entry 3 still does
    edit_entry(svc, t, 2, lambda state: state.update(matches=[]))
    r, records, store, _ = verified(store_url)
    by = {v["match"]: v for v in records}
    assert r.exit_code == 1 and by["second-match"]["status"] == "seal"
    assert by["second-match"]["message"].endswith("; no entry of the seal lists this match")
    assert [m for m, v in by.items() if v["ok"]] == [m for m in heads if m not in (MATCH, "second-match")]


def test_a_rewritten_seal_is_caught_by_the_store_head(sealed, store_url):
    svc, _, _ = sealed
    head = read_ledger(svc.recorder, svc.mapper).head
    assert cli(store_url, "verify", "--store-head", head[:16]).exit_code == 0
    r = cli(store_url, "verify", "--store-head", "0123456789abcdef")
    assert r.exit_code == 1 and "the store seal was rewritten" in r.stderr


def test_an_edited_snapshot_is_never_trusted(sealed, store_url):
    svc, t, _ = sealed
    last = replay.last_seq(svc, WON)
    seq = last - 3
    truth = replay.view_at(svc, WON, seq=seq).to_json()  # writes the snapshots
    sid = replay.snapshot_id(WON)
    snaps = replay._snapshots(svc).recorder.select_events(sid)
    assert snaps, "the long match has snapshots"
    table = replay._snapshots(svc).recorder.events_table_name
    for s in snaps:  # as someone editing the snapshots table would: Life counts and turn changed
        state = svc.mapper.transcoder.decode(s.state)
        state["state"]["turn"] += 40
        body = svc.mapper.transcoder.encode(state)
        if svc.store.kind == "sqlite":
            with sqlite3.connect(svc.store.path) as con:
                con.execute(f"UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                            (body, sid.hex, s.originator_version))
            con.close()
        else:
            t.run(f'UPDATE "{svc.store.schema}"."{table}" SET state = %s WHERE originator_id = %s '
                  f'AND originator_version = %s', (body, sid, s.originator_version))
    fresh = MatchService(store_url)
    assert replay.view_at(fresh, WON, seq=seq).to_json() == truth  # the snapshot is ignored
    r = cli(store_url, "verify", WON, "--format", "json")
    assert r.exit_code == 1
    (v,) = match_records(r.stdout)
    assert v["status"] == "snapshot" and "disagrees with the events" in v["message"]
    assert "seeks ignore it (its check fails)" in v["message"]  # it said a seek shows the altered state


def test_a_snapshot_with_a_recomputed_check_is_caught_by_verify(sealed, store_url):
    from test_tamper_views import forge_snapshot

    svc, t, _ = sealed
    seq = forge_snapshot(svc, t, WON)  # 40 turns more, its check recomputed as a forger who read the code would
    r = cli(store_url, "verify", WON, "--format", "json")
    assert r.exit_code == 1
    (v,) = match_records(r.stdout)
    # what verify says is so: a seek reads the forged state (it said seeks ignored it), until --repair
    assert v["status"] == "snapshot" and f"zx prepare --repair {WON}" in v["message"]
    assert "a seek that reads it shows the altered state (its check was recomputed" in v["message"]
    forged_turn = replay.view_at(MatchService(store_url), WON, seq=seq).turn
    plain = cli(store_url, "prepare", WON, "--format", "json")  # without --repair: up to date, kept
    assert plain.exit_code == 0 and json.loads(plain.stdout)[0]["repaired"] == 0
    fixed = cli(store_url, "prepare", "--repair", "--format", "json")
    assert fixed.exit_code == 0, fixed.output
    row = json.loads(fixed.stdout)[0]
    assert row["repaired"] == 1 and row["snapshots"] >= 1
    assert cli(store_url, "verify", WON).exit_code == 0
    assert replay.view_at(MatchService(store_url), WON, seq=seq).turn == forged_turn - 40
    again = cli(store_url, "prepare", "--repair", "--format", "json")  # nothing left to repair or write
    assert json.loads(again.stdout)[0]["repaired"] == 0 and json.loads(again.stdout)[0]["snapshots"] == 0


def test_replay_of_a_match_with_a_deleted_event_is_a_clear_error(sealed, store_url):
    _, t, _ = sealed
    t.delete(MATCH, 5)
    r = cli(store_url, "replay", MATCH)
    assert r.exit_code == 1 and not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit)
    assert "Traceback" not in r.output and "OriginatorVersionError" not in r.output
    assert f"match {MATCH} cannot be replayed: its event seq 5 is missing from the store" in r.output
    assert f"warning: {MATCH} fails verification (deleted" in r.stderr


def test_replay_warns_when_an_event_was_altered(sealed, store_url):
    svc, t, _ = sealed
    state = svc.mapper.transcoder.decode(t.state(MATCH, 3))
    state["note"] = "edited"
    t.set_state(MATCH, 3, svc.mapper.transcoder.encode(state))
    r = cli(store_url, "replay", MATCH)
    assert r.exit_code == 0
    assert f"warning: {MATCH} fails verification (altered: digest mismatch at seq 3" in r.stderr


def test_a_replay_page_of_an_altered_match_says_so_on_its_banner(sealed, store_url, tmp_path):
    """zx view (the file one shares) and zx serve's replay page: the warning zx replay prints, in the
    page's banner, for every seat; an intact match's page has none."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    svc, t, _ = sealed
    out = tmp_path / "intact.html"
    r = cli(store_url, "view", MATCH, "-o", str(out))
    assert r.exit_code == 0 and "fails verification" not in r.stderr + out.read_text(encoding="utf-8")
    state = svc.mapper.transcoder.decode(t.state(MATCH, 3))
    state["note"] = "edited"
    t.set_state(MATCH, 3, svc.mapper.transcoder.encode(state))
    warning = f"{MATCH} fails verification (altered: digest mismatch at seq 3"
    out = tmp_path / "altered.html"
    r = cli(store_url, "view", MATCH, "--as", "P1", "--as", "spectator", "-o", str(out))
    assert r.exit_code == 0 and f"warning: {warning}" in r.stderr
    assert warning in out.read_text(encoding="utf-8")
    with TestClient(create_app(store_url)) as c:
        for seat in ("P1", "spectator"):
            page = c.get(f"/matches/{MATCH}/replay", params={"as": seat})
            assert page.status_code == 200 and warning in page.text


# ---------------------------------------------------------------------- a store from before the seal
def test_reimport_over_a_rewritten_or_forged_match_is_refused_not_unchanged(sealed, store_url, tmp_path):
    """A match edited with its chain recomputed (``rewritten``: only the store seal tells) re-imported
    from the genuine log said ``unchanged``, exit 0, and printed the forger's head for the score sheet;
    a match's events copied under another match's id made that match's log "already stored with
    different content". The import checks a stored match as zx verify does: its chain, then the seal."""
    svc, t, heads = sealed

    def flip(topic, state):
        if topic.endswith(("MatchEnded", "ResultRecorded")) and state.get("winner") == "P2":
            state["winner"] = "P1"

    forged_head = rewrite(svc, t, WON, flip)
    r = cli(store_url, "import", "--no-analytics", str(LONG))
    assert r.exit_code == 1 and "0 imported, 0 unchanged, 1 rejected" in r.stderr, r.output
    assert f"match {WON} is in the store {svc.store.label}, but it does not verify (rewritten" in r.stderr
    assert f"its head {forged_head[:16]} is not the one sealed at import ({heads[WON][:16]}" in r.stderr
    other = tmp_path / "zzz.zxlog"  # WON's events filed under the id of match zzz, whose log is then imported
    other.write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, "zzz"), encoding="utf-8")
    t.run_many("INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)",
               [(match_uuid("zzz").hex if t.cfg.kind == "sqlite" else match_uuid("zzz"), oid.seq, oid.topic,
                 svc.mapper.transcoder.encode(state))
                for oid, state in rechained(svc, WON, lambda topic, state: None, match_uuid("zzz"))])
    r = cli(store_url, "import", "--no-analytics", str(other))
    assert r.exit_code == 1 and "match zzz is in the store" in r.stderr and "(forged at seq 1" in r.stderr, r.output
    assert f"the events filed under its id are those of match {WON}" in r.stderr
    r = cli(store_url, "import", "--no-analytics", str(LEGAL))  # an intact one: unchanged, its head
    assert r.exit_code == 0 and "1 unchanged" in r.stderr, r.output


def test_a_forged_aggregate_is_named_as_such_by_every_reader_and_by_verify_under_either_name(sealed, store_url,
                                                                                             tmp_path):
    """zx matches lists a copy of a match under another id by that id (damaged), and its page linked
    there; but zx replay, zx view, zx audit and the API said "unknown match ...: it is not in the
    store". And events filed under the id of match zzz but naming another match were ``added`` to
    ``zx verify zzz`` (``forged`` to a whole-store verify)."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    svc, t, _ = sealed
    copy = str(copy_under_another_id(svc, t, WON))
    said = f"{copy} is the stored id of events zx import did not write"
    for args in (["replay", copy], ["view", copy, "-o", str(tmp_path / "c.html")],
                 ["audit", copy]):
        r = cli(store_url, *args)
        assert r.exit_code == 1 and said in r.output and "not in the store" not in r.output, (args, r.output)
    genuine = str(match_uuid(WON))  # a real match's stored id is no forgery: an unknown name, as before
    r = cli(store_url, "replay", genuine)
    assert r.exit_code == 1 and f"unknown match {genuine!r}" in r.output and "did not write" not in r.output
    with TestClient(create_app(store_url)) as c:
        for url in (f"/api/matches/{copy}", f"/api/audit/{copy}"):
            r = c.get(url)
            assert r.status_code == 404 and said in r.json()["error"], url
        assert "did not write" not in c.get(f"/api/matches/{genuine}").json()["error"]
    t.run_many("INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)",
               [(match_uuid("zzz").hex if t.cfg.kind == "sqlite" else match_uuid("zzz"), oid.seq, oid.topic,
                 svc.mapper.transcoder.encode(state))
                for oid, state in rechained(svc, WON, lambda topic, state: None, match_uuid("zzz"))])
    r = cli(store_url, "verify", "zzz", "--format", "csv")
    assert r.exit_code == 1 and r.stdout.splitlines()[1].startswith("zzz,") and ",forged," in r.stdout, r.output
    assert f"its Started event says match {WON}" in r.stdout


@pytest.fixture
def legacy(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(FIXTURE, path)
    return path


def test_the_0_1_0_store_verifies_with_its_heads_and_says_it_is_unsealed(legacy):
    recorded = {}
    for line in (FIXTURE.parent / "zx-store-0.1.0.heads.txt").read_text().split("\n"):
        if line.strip():
            match, events, head = line.split()
            recorded[match] = (int(events), head)
    before = events_of(legacy)
    r = cli(str(legacy), "verify", "--format", "json")
    assert r.exit_code == 0, r.output
    assert {v["match"]: (v["events"], v["head"]) for v in match_records(r.stdout)} == recorded
    assert "store seal: none (a store from before zx-events 0.2.0)" in r.stderr
    assert events_of(legacy) == before  # no stored event rewritten, none added


def events_of(path: Path) -> list:
    with sqlite3.connect(path) as con:
        rows = con.execute("SELECT * FROM stored_events ORDER BY originator_id, originator_version").fetchall()
    con.close()
    return rows


def test_importing_into_a_legacy_store_keeps_it_unsealed_until_asked(legacy, tmp_path):
    svc = MatchService(str(legacy))
    (tmp_path / "new.zxlog").write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, "new-match"),
                                        encoding="utf-8")
    for log in read_log(tmp_path / "new.zxlog"):
        assert svc.import_log(log).status == "imported"
    assert not read_ledger(svc.recorder, svc.mapper).exists
    r = cli(str(legacy), "verify")
    assert r.exit_code == 0 and "21 intact" in r.stderr and "store seal: none" in r.stderr
    r = cli(str(legacy), "verify", "--seal")
    assert r.exit_code == 0, r.output
    assert "21 matches sealed; store seal: 21 matches in 1 entry" in r.stderr
    ledger = read_ledger(svc.recorder, svc.mapper)
    assert ledger.ok and len(ledger.matches) == 21
    Tamper(svc).run("DELETE FROM {t} WHERE originator_id = %s", (match_uuid("new-match").hex,))
    r = cli(str(legacy), "verify")
    assert r.exit_code == 1 and "the whole match was deleted" in r.stdout


def test_seal_refuses_a_store_whose_matches_fail(legacy):
    svc = MatchService(str(legacy))
    mid = next(iter(read_ledger(svc.recorder, svc.mapper).matches), None)
    assert mid is None
    (row,) = Tamper(svc).run("SELECT originator_id FROM {t} WHERE originator_version = 3 LIMIT 1")
    Tamper(svc).run("DELETE FROM {t} WHERE originator_id = %s AND originator_version = 3", (row[0],))
    r = cli(str(legacy), "verify", "--seal")
    assert r.exit_code == 1 and "not sealing: 1 match fail verification" in r.output
    assert not read_ledger(svc.recorder, svc.mapper).exists


def test_verify_of_an_empty_store_says_it_holds_no_match(store_url):
    """A store that holds no match has no seal yet: that is not a store from before the seal (which
    it used to be called)."""
    MatchService(store_url).close()
    r = cli(store_url, "verify")
    assert r.exit_code == 0 and "0 intact, 0 failed" in r.stderr
    assert "store seal: none yet: the store holds no match" in r.stderr and "before zx-events 0.2.0" not in r.stderr


def test_the_audit_of_a_record_whose_kind_was_rewritten_says_so_not_an_internal_error(sealed, store_url):
    """A stored record's kind changed in SQL ("pass" -> "Pass"): zx audit said "internal error:
    AttributeError: 'Referee' object has no attribute 'do_Pass'" (and the server answered 500)."""
    svc, t, _ = sealed
    seq = next(s for s in range(2, 40) if (svc.mapper.transcoder.decode(t.state(MATCH, s)).get("rec") or {}).get("do")
               == "pass")
    state = svc.mapper.transcoder.decode(t.state(MATCH, seq))
    state["rec"]["do"] = "Pass"
    t.set_state(MATCH, seq, svc.mapper.transcoder.encode(state))
    r = cli(store_url, "audit", MATCH, "--format", "json")
    assert r.exit_code == 1 and "internal error" not in r.output, r.output
    out = json.loads(r.stdout.splitlines()[0])  # (one JSON object a line: one audited match)
    assert out["integrity"] == "altered" and f"warning: {MATCH}" in r.stderr
    # the record as it is stored now is no record of the imported log: its finding ("unknown record kind 'Pass'")
    # is one of those not shown from the first event altered on, which the warnings count
    assert not [f for f in out["violations"] if (f.get("seq") or seq) >= seq], out["violations"]
    assert any(f"of the re-check at or after seq {seq} " in w for w in out["warnings"]), out["warnings"]


def test_a_stored_topic_never_chooses_which_module_is_imported(sealed, store_url, tmp_path, monkeypatch):
    """A topic is resolved by importing the module it names: a row's topic set to ``this:s`` made
    ``zx replay`` print the Zen of Python, a snapshot row's made ``zx verify --format json`` do it
    inside its JSON. A topic of no installed game (nor the seal's, nor a snapshot's) is refused
    unimported: an event row's, a snapshot row's, and the aggregate topic inside a snapshot whose
    check a forger recomputed."""
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "zx_import_probe.py").write_text(f"open({str(tmp_path / 'imported')!r}, 'w').close()\nclass s: pass\n")
    monkeypatch.syspath_prepend(str(probe))
    svc, t, _ = sealed
    replay.view_at(svc, WON, seq=replay.last_seq(svc, WON))  # writes the snapshots
    seq = t.seq_of(MATCH, "zx.match:CardsDrawn")
    t.run("UPDATE {t} SET topic = %s WHERE originator_id = %s AND originator_version = %s",
          ("zx_import_probe:s", t.oid(MATCH), seq))
    r = cli(store_url, "replay", MATCH, "--format", "json")
    assert r.exit_code == 1 and f"its event seq {seq} cannot be decoded" in r.output, r.output
    assert (json.loads(cli(store_url, "verify", MATCH, "--format", "json").stdout)[0]["status"], seq) == ("altered", seq)
    store = replay._snapshots(svc)
    sid = replay.snapshot_id(WON)
    (s, *_) = store.recorder.select_events(sid)
    snap = svc.mapper.to_domain_event(s)
    state = dict(snap.state)
    state[replay.CHECK_KEY] = replay.state_check(state[replay.CHAIN_KEY], state)
    forged = svc.mapper.to_stored_event(type(snap)(originator_id=sid, originator_version=snap.originator_version,
                                                   timestamp=snap.timestamp, topic="zx_import_probe:s", state=state))
    table = store.recorder.events_table_name
    for topic, body in (("zx_import_probe:s", s.state), (s.topic, forged.state)):  # the row's topic; the inner one
        if svc.store.kind == "sqlite":
            with sqlite3.connect(svc.store.path) as con:
                con.execute(f"UPDATE {table} SET topic = ?, state = ? WHERE originator_id = ? AND originator_version = ?",
                            (topic, body, sid.hex, s.originator_version))
            con.close()
        else:
            t.run(f'UPDATE "{svc.store.schema}"."{table}" SET topic = %s, state = %s WHERE originator_id = %s '
                  f'AND originator_version = %s', (topic, body, sid, s.originator_version))
        r = cli(store_url, "verify", WON, "--format", "json")
        assert r.exit_code == 1 and json.loads(r.stdout)[0]["status"] == "snapshot", r.output
        fresh = MatchService(store_url)
        assert replay.view_at(fresh, WON, seq=s.originator_version).turn >= 1  # the snapshot is not used
        fresh.close()
    assert not (tmp_path / "imported").exists() and "zx_import_probe" not in __import__("sys").modules


# ---------------------------------------------------------------------- damage no command may crash on
def test_a_null_payload_is_one_match_altered_not_an_internal_error(sealed, store_url):
    """A NULL ``state`` in one event row stopped ``zx verify`` for the whole store (TypeError in the
    one-pass check); now that match is ``altered`` at its seq and the others get their verdicts."""
    svc, t, _ = sealed
    t.run("UPDATE {t} SET state = NULL WHERE originator_id = %s AND originator_version = 20", (t.oid(WON),))
    r = cli(store_url, "verify", "--format", "json")
    assert r.exit_code == 1 and "internal error" not in r.output, r.output
    if svc.store.kind == "postgres":  # eventsourcing's reader fails on the row: the command says which row to find
        assert "holds no payload (its state is NULL)" in r.output and "WHERE state IS NULL" in r.output
        assert "holds no payload" in cli(store_url, "replay", WON).output
        return
    verdicts = {v["match"]: (v["status"], v["seq"]) for v in json.loads(r.stdout)}
    assert verdicts[WON] == ("altered", 20) and verdicts[MATCH] == ("ok", None)
    r = cli(store_url, "replay", WON)
    assert r.exit_code == 1 and "its event seq 20 cannot be decoded" in r.output


def test_a_match_whose_started_event_cannot_be_read_is_listed_as_damaged(sealed, store_url, tmp_path):
    """Its Started payload replaced by bytes that are not JSON: ``zx matches`` (and the server's match
    list) failed for the whole store, ``zx audit MATCH`` and a re-import of its log with internal
    errors. Now it is listed by its stored id with the reason ``damaged``, the audit says it has no
    readable Started event, and the import rejects the log naming the damage."""
    svc, t, _ = sealed
    t.set_state(MATCH, 1, b"\x00\xff")
    r = cli(store_url, "matches", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = {m["match"]: m for m in json.loads(r.stdout)}
    damaged = rows[str(match_uuid(MATCH))]
    assert (damaged["reason"], damaged["winner"], damaged["game"]) == ("damaged", None, "zx") and WON in rows
    r = cli(store_url, "audit", MATCH)
    assert r.exit_code == 1 and "Started event of this match is missing or cannot be decoded" in r.output
    assert "internal error" not in r.output
    r = cli(store_url, "import", "--no-analytics", str(LEGAL))
    assert r.exit_code == 1 and "internal error" not in r.output
    assert f"match {MATCH} is in the store" in r.output and "cannot be decoded as its Started event" in r.output
    from zx_web.app import create_app
    from fastapi.testclient import TestClient

    with TestClient(create_app(store_url)) as c:
        listed = c.get("/api/matches", params={"limit": 50})
        assert listed.status_code == 200 and str(match_uuid(MATCH)) in listed.text


def test_a_match_whose_started_event_was_deleted_is_named_by_audit_and_import(sealed, store_url):
    """Seq 1 deleted: ``zx audit MATCH`` said "neither a log file nor a stored match", and importing
    its log again said "run the import again" (a UNIQUE constraint) however often it was run."""
    svc, t, _ = sealed
    t.delete(MATCH, 1)
    r = cli(store_url, "audit", MATCH)
    assert r.exit_code == 1 and "neither a log file nor a stored match" not in r.output
    for _ in range(2):
        r = cli(store_url, "import", "--no-analytics", str(LEGAL))
        assert r.exit_code == 1 and "run the import again" not in r.output
        assert f"match {MATCH} is in the store" in r.output and "its event seq 1 is missing" in r.output


def test_an_undecodable_store_seal_entry_stops_an_import_with_a_clear_error(sealed, store_url, tmp_path):
    svc, t, _ = sealed
    t.run("UPDATE {t} SET state = %s WHERE originator_id = %s AND originator_version = "
          "(SELECT max(originator_version) FROM {t} WHERE originator_id = %s)",
          (b"\x00\xff", LEDGER_ID.hex if svc.store.kind == "sqlite" else LEDGER_ID,
           LEDGER_ID.hex if svc.store.kind == "sqlite" else LEDGER_ID))
    log = tmp_path / "new.zxlog"
    log.write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, "new-match"), encoding="utf-8")
    r = cli(store_url, "import", "--no-analytics", str(log))
    assert r.exit_code == 1 and "internal error" not in r.output, r.output
    assert "the store seal's last entry" in r.output and "cannot be read" in r.output
    assert not MatchService(store_url).has_match("new-match")


def test_a_topic_swapped_for_another_kind_is_a_damaged_match_in_replay_and_view(sealed, store_url, tmp_path):
    """The topic column of an attack set to ``TurnEnded`` (the payload intact): ``zx replay`` and ``zx
    view`` failed with an internal TypeError from the library; verify says ``altered``, and they now
    say the event cannot be applied and point to zx verify."""
    svc, t, _ = sealed
    seq = t.seq_of(WON, "zx.match:AttackDeclared")
    t.run("UPDATE {t} SET topic = %s WHERE originator_id = %s AND originator_version = %s",
          ("zx.match:TurnEnded", t.oid(WON), seq))
    for args in (["replay", WON], ["view", WON, "-o", str(tmp_path / "v.html")]):
        r = CliRunner().invoke(zx, ["--store", store_url, *args])
        assert r.exit_code == 1 and "internal error" not in r.output, (args, r.output)
        assert f"its event seq {seq} (TurnEnded) cannot be applied" in r.output and f"zx verify {WON}" in r.output
    assert not (tmp_path / "v.html").exists()


def test_a_class_version_written_into_a_payload_is_altered(sealed, store_url, legacy):
    """``"class_version": 0`` added to one stored payload changes how the event is read (replay: it
    cannot be decoded), but the digest left the key out, so verify called the match intact, in a new
    store and in the 0.1.0 fixture with its recorded head. The digest covers it now."""
    svc, t, _ = sealed
    raw = t.state(WON, 20)
    t.set_state(WON, 20, raw.replace(b'"originator_version":20,', b'"class_version":0,"originator_version":20,'))
    (v,) = match_records(cli(store_url, "verify", WON, "--format", "json").stdout)
    assert (v["status"], v["seq"]) == ("altered", 20)
    fixture = MatchService(str(legacy))
    heads = dict(line.split()[::2] for line in (FIXTURE.parent / "zx-store-0.1.0.heads.txt").read_text().split("\n")
                 if line.strip())
    old = Tamper(fixture)
    match = sorted(heads)[0]
    body = old.state(match, 5)
    old.set_state(match, 5, b'{"class_version":0,' + body[1:])
    r = cli(str(legacy), "verify", match, "--head", heads[match], "--format", "json")
    assert r.exit_code == 1 and (json.loads(r.stdout)[0]["status"], json.loads(r.stdout)[0]["seq"]) == ("altered", 5)


def verify_with_imports(monkeypatch, store_url: str, tmp_path: Path, before: str | None = None,
                        after: str | None = None) -> tuple[Any, dict[str, str]]:
    """``zx verify --format json`` while another service (another process's importer) imports, for real, a copy of
    the legal match named ``before`` just before verify reads the list of matches, and one named ``after`` just
    after it (the whole list: not verify's look-ups of one match); the result and each match's status."""
    import importlib

    audit_cli = importlib.import_module("zx_cli.audit")  # (``cli`` here is this file's helper)
    listed = audit_cli._all_matches

    def store(name: str | None) -> None:
        if name is None:
            return
        log = tmp_path / f"{name}.zxlog"
        log.write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, name), encoding="utf-8")
        other = MatchService(store_url)
        for parsed in read_log(log):
            assert other.import_log(parsed).status == "imported"
        other.close()

    def import_around_the_list(s, *args, **kwargs):
        if kwargs.get("only") is not None:
            return listed(s, *args, **kwargs)
        store(before)
        out = listed(s, *args, **kwargs)
        store(after)
        return out

    monkeypatch.setattr(audit_cli, "_all_matches", import_around_the_list)
    r = cli(store_url, "verify", "--format", "json")
    return r, {v["match"]: v["status"] for v in match_records(r.stdout)}


def test_a_match_imported_while_verify_runs_is_not_called_added(sealed, store_url, tmp_path, monkeypatch):
    """zx verify read the store seal, then the list of matches: a batch zx import committed in between
    was in the list but not in the seal it had read, and verify called every match of it ``added``
    (stored outside zx import), exit 1, on a live tournament store. The import here runs, for real,
    exactly in that window."""
    r, verdicts = verify_with_imports(monkeypatch, store_url, tmp_path, before="imported-meanwhile")
    assert r.exit_code == 0, r.output
    assert verdicts["imported-meanwhile"] == "ok" and set(verdicts.values()) == {"ok"}


def test_a_match_imported_after_verify_listed_the_matches_is_never_called_deleted(sealed, store_url, tmp_path,
                                                                                  monkeypatch):
    """zx verify read the seal, the list of matches, then (a batch imported before the list: ``added``) the
    seal again: a batch zx import committed after the list was in that newer seal and not in the list, and
    verify called each of its matches "deleted whole" (60-384 of them, exit 1, on a store being imported
    into). Real imports run here in that order: one before the list is read, one after; both are verified
    (``ok``) and none is deleted."""
    r, verdicts = verify_with_imports(monkeypatch, store_url, tmp_path, before="before-the-list",
                                      after="after-the-list")
    assert r.exit_code == 0, r.output
    assert verdicts["before-the-list"] == "ok" and verdicts["after-the-list"] == "ok", verdicts
    assert set(verdicts.values()) == {"ok"} and len(verdicts) == 5
    assert "5 intact, 0 failed" in r.stderr and "store seal: 5 matches" in r.stderr


def test_a_match_deleted_whole_is_still_caught_after_a_concurrent_import(sealed, store_url, tmp_path, monkeypatch):
    """Looking again at what the newer seal lists does not hide a deletion: a match deleted whole before verify
    ran is ``deleted`` while a batch is imported in the window above."""
    _, t, _ = sealed
    t.run("DELETE FROM {t} WHERE originator_id = %s", (t.oid("second-match"),))
    r, verdicts = verify_with_imports(monkeypatch, store_url, tmp_path, before="meanwhile")
    assert r.exit_code == 1, r.output
    assert verdicts.pop("second-match") == "deleted" and verdicts.pop("meanwhile") == "ok", verdicts
    assert set(verdicts.values()) == {"ok"} and len(verdicts) == 2, verdicts


# ---------------------------------------------------------------------- concurrent zx verify --seal
def legacy_store(svc: MatchService, tmp_path: Path, n: int) -> list[list]:
    """``n`` matches imported into ``svc``'s store, then its ledger deleted: a store from before the seal
    (as on PostgreSQL, where no 0.1.0 file can be copied). Returns what ``zx verify --seal`` would list."""
    log = tmp_path / "legacy.zxlog"
    log.write_text("".join(LEGAL.read_text(encoding="utf-8").replace(MATCH, f"legacy-{i:02d}") for i in range(n)),
                   encoding="utf-8")
    outs = [svc.import_log(parsed) for parsed in read_log(log)]
    assert {o.status for o in outs} == {"imported"}
    Tamper(svc).run("DELETE FROM {t} WHERE topic = %s", (TOPIC_ENTRY,))
    assert not read_ledger(svc.recorder, svc.mapper).exists
    return [sealed_entry(o.match_id, match_uuid(o.match_id), o.events, o.head) for o in outs]


def test_seals_that_collide_on_the_first_entry_write_it_once(service, store_url, tmp_path):
    """Three ``zx verify --seal`` on a legacy store, each past its check that the store has no ledger when
    they insert: the losers appended the same matches after the winner's entry (3 entries listing them all),
    and each printed a store head the next one superseded. Now the first entry is written once and the
    others write nothing (0 sealed): the store was sealed by another process."""
    rows = legacy_store(service, tmp_path, 5)
    ids = [r[0] for r in rows]
    gate = threading.Barrier(3, timeout=30)
    results: dict[int, object] = {}

    def seal(i: int) -> None:
        svc = MatchService(store_url, write=True)
        insert = svc.recorder.insert_events

        def together(events, **kwargs):  # every one past its look at the ledger, then all insert at once
            if events and events[0].originator_id == LEDGER_ID and i not in results:
                results[i] = "at the gate"
                gate.wait()
            return insert(events, **kwargs)

        svc.recorder.insert_events = together
        try:
            results[i] = adopt(svc.recorder, svc.mapper, rows)
        except Exception as e:  # (reported below)
            results[i] = e
        finally:
            svc.close()

    threads = [threading.Thread(target=seal, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(results.values(), key=str) == [0, 0, 5], results
    ledger = read_ledger(service.recorder, service.mapper)
    assert ledger.ok and ledger.entries == 1 and sorted(s.match for s in ledger.matches.values()) == ids


def test_a_seal_after_another_seal_and_an_import_appends_nothing(service, store_url, tmp_path):
    """A ``zx verify --seal`` that read the store as legacy, then finds it sealed by another one and a batch
    of ``zx import`` sealed after that: it appended every legacy match again after the import's entry. Now
    it writes nothing; the import's entry lists its own match alone, and the head both print verifies."""
    rows = legacy_store(service, tmp_path, 3)
    ids = [r[0] for r in rows]
    first, second = MatchService(store_url, write=True), MatchService(store_url, write=True)
    try:
        assert adopt(first.recorder, first.mapper, rows) == 3
        late = tmp_path / "late.zxlog"
        late.write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, "imported-later"), encoding="utf-8")
        assert {service.import_log(parsed).status for parsed in read_log(late)} == {"imported"}
        assert adopt(second.recorder, second.mapper, rows) == 0
    finally:
        first.close()
        second.close()
    ledger = read_ledger(service.recorder, service.mapper)
    assert ledger.ok and ledger.entries == 2
    entries = [decode_state(service.mapper, r)["matches"] for r in service.recorder.select_events(LEDGER_ID)]
    assert [sorted(m[0] for m in e) for e in entries] == [ids, ["imported-later"]]
    r = cli(store_url, "verify", "--store-head", ledger.head[:16])
    assert r.exit_code == 0 and "4 intact, 0 failed" in r.stderr, r.output


GATED = ("import sys, time\nfrom zx_cli.main import main\ntime.sleep(max(0.0, float(sys.argv[1]) - time.time()))\n"
         "sys.argv[1:2] = []\nmain()\n")


def test_concurrent_verify_seal_processes_print_one_head_that_verifies(service, store_url, tmp_path):
    """The QA report: three ``zx verify --seal`` started at once on a legacy store each said "N matches
    sealed", with heads in 1, 2 and 3 entries; ``--store-head`` with the first two then said "the store
    seal was rewritten" (exit 1). Real processes, released at one instant once Python and click are loaded:
    one first entry; every process exits 0 and prints the same head, which verifies."""
    ids = [r[0] for r in legacy_store(service, tmp_path, 40)]
    start = f"{time.time() + 2:.3f}"
    procs = [subprocess.Popen([sys.executable, "-c", GATED, start, "--store", store_url, "verify", "--seal"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    done = [(p.wait(120), *p.communicate()) for p in procs]
    assert [rc for rc, _, _ in done] == [0, 0, 0], [err for _, _, err in done]
    heads = [re.findall(r"store head ([0-9a-f]{16})", err) for _, _, err in done]
    assert all(heads), [err for _, _, err in done]
    ledger = read_ledger(service.recorder, service.mapper)
    assert ledger.ok and ledger.entries == 1 and sorted(s.match for s in ledger.matches.values()) == ids
    assert {h for printed in heads for h in printed} == {ledger.head[:16]}
    assert sum("40 matches sealed; store seal: 40 matches in 1 entry" in err for _, _, err in done) == 1
    r = cli(store_url, "verify", "--store-head", heads[0][0])
    assert r.exit_code == 0 and "40 intact, 0 failed" in r.stderr, r.output


def test_an_import_that_meets_the_first_seal_between_its_look_and_its_insert_gets_its_matches_listed(legacy,
                                                                                                     tmp_path):
    """An import into a store from before the seal looked for a ledger (none: it stores unsealed), then a
    `zx verify --seal` wrote the first entry, then the import inserted: its match was listed by neither, and
    `zx verify` called it "added" (written behind the seal). The import looks again after its insert and
    appends an entry for what the seal left out. Here the seal runs exactly between the two (the service's
    insert, its one place to step in)."""
    svc = MatchService(str(legacy))
    (tmp_path / "new.zxlog").write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, "new-match"),
                                        encoding="utf-8")
    insert = svc.insert

    def seal_then_insert(stored):
        r = cli(str(legacy), "verify", "--seal")  # a second process, in between
        assert r.exit_code == 0 and "20 matches sealed" in r.stderr, r.output
        return insert(stored)

    svc.insert = seal_then_insert
    try:
        for log in read_log(tmp_path / "new.zxlog"):
            assert svc.import_log(log).status == "imported"
    finally:
        svc.insert = insert
    ledger = read_ledger(svc.recorder, svc.mapper)
    assert ledger.ok and ledger.entries == 2 and str(match_uuid("new-match")) in ledger.matches
    svc.close()
    r = cli(str(legacy), "verify")
    assert r.exit_code == 0 and "21 intact, 0 failed" in r.stderr and "added" not in r.output, r.output


def test_the_first_seal_lists_a_match_imported_while_it_verified(legacy, tmp_path):
    """The other order: `zx verify --seal` verified the store's matches, an import stored one more (unsealed:
    no ledger yet), then the seal wrote its entry listing what it had verified: the import's match was
    listed by neither. After its entry the seal lists the matches stored meanwhile (chains checked)."""
    from zx_cli.audit import _stored_while_sealing

    svc = MatchService(str(legacy))
    verified = [(name, uid) for name, uid in _all_stored(svc)]
    (tmp_path / "new.zxlog").write_text(LEGAL.read_text(encoding="utf-8").replace(MATCH, "new-match"),
                                        encoding="utf-8")
    for log in read_log(tmp_path / "new.zxlog"):
        assert svc.import_log(log).status == "imported"  # unsealed: the store has no ledger yet
    rows = []
    for name, uid in verified:
        v = integrity.verify_stored(svc, name, uid)
        rows.append(sealed_entry(v.match, uid, v.events, v.head))
    assert adopt(svc.recorder, svc.mapper, rows) == 20
    assert str(match_uuid("new-match")) not in read_ledger(svc.recorder, svc.mapper).matches
    late = _stored_while_sealing(svc)
    assert [r[0] for r in late] == ["new-match"]
    assert _stored_while_sealing(svc) == []  # listed once
    svc.close()
    r = cli(str(legacy), "verify")
    assert r.exit_code == 0 and "21 intact, 0 failed" in r.stderr, r.output


def _all_stored(svc):
    from zx_cli.audit import _all_matches

    return _all_matches(svc)


def _strip_digests(svc: MatchService, t: Tamper, match: str, change=lambda d: None) -> None:
    """Every event of ``match`` without its digest (and ``change`` applied to each payload)."""
    rows = []
    for seq, state in t.run("SELECT originator_version, state FROM {t} WHERE originator_id = %s "
                            "ORDER BY originator_version", (t.oid(match),)):
        d = json.loads(bytes(state))
        d.pop("digest", None)
        change(d)
        rows.append((json.dumps(d).encode(), t.oid(match), seq))
    assert len(rows) == len(svc.recorder.select_events(match_uuid(match)))
    t.run_many("UPDATE {t} SET state = %s WHERE originator_id = %s AND originator_version = %s", rows)


def test_a_sealed_match_with_its_digests_stripped_is_altered_and_its_log_is_not_unchanged(sealed, store_url):
    """Every digest of a sealed match removed and its result edited: zx verify called it "unchained: imported
    before tamper evidence existed" (no release ever wrote events without digests), and zx import of its
    original log said "unchanged", exit 0, over the edited match. The seal vouches for it: it is "altered",
    naming the seal's entry, and the import is rejected."""
    svc, t, _ = sealed

    def swap_winner(d):
        if d.get("winner") in ("P1", "P2"):
            d["winner"] = "P2" if d["winner"] == "P1" else "P1"

    _strip_digests(svc, t, MATCH, swap_winner)
    r = cli(store_url, "verify", MATCH, "--format", "json")
    assert r.exit_code == 1, r.output
    (v,) = match_records(r.stdout)
    assert v["status"] == "altered" and v["seq"] == 1, v
    assert v["message"].startswith("no event carries a digest, but the store seal lists it (entry 1, "), v
    r = cli(store_url, "import", "--no-analytics", str(LEGAL))
    assert r.exit_code == 1 and "unchanged" not in r.stdout, r.output
    assert f"match {MATCH} is in the store" in r.output and "does not verify (altered at seq 1" in r.output


def test_a_legacy_match_with_its_digests_stripped_is_unchained_and_its_log_is_not_unchanged(legacy):
    """In a store from before the seal nothing vouches for the match, but no release wrote events without
    digests: "unchained" is a failure whose message says so (it said "imported before tamper evidence
    existed")."""
    svc = MatchService(str(legacy))
    t = Tamper(svc)
    match = svc.summaries()[0]["match"]
    _strip_digests(svc, t, match)
    svc.close()
    r = cli(str(legacy), "verify", match, "--format", "json")
    assert r.exit_code == 1, r.output
    (v,) = match_records(r.stdout)
    assert v["status"] == "unchained" and "so they were removed" in v["message"], v


def test_a_store_head_written_down_before_later_imports_still_verifies_the_seal_up_to_it(sealed, store_url):
    """A store head written down, then a normal import: `--store-head` with it said "the store seal was rewritten"
    (it compared the last entry's digest only). The seal up to that entry is as it was: it passes, saying how
    many entries and matches came since and that the new head vouches for them; an entry rewritten at or before
    it still fails."""
    svc, t, _ = sealed
    ledger = read_ledger(svc.recorder, svc.mapper)
    earlier, entries = ledger.head, ledger.entries
    later = LEGAL.parent.parent / "x610z" / "legal" / "concession.x610zlog"
    assert cli(store_url, "import", "--no-analytics", str(later)).exit_code == 0
    now = read_ledger(svc.recorder, svc.mapper)
    assert now.entries == entries + 1 and now.head != earlier
    r = cli(store_url, "verify", "--store-head", earlier[:16])
    assert r.exit_code == 0, r.output
    assert (f"the store head written down is that of seal entry {entries} of {entries + 1}: the seal up to it is as "
            f"it was then; the 1 match sealed in the 1 entry since (later imports) are vouched for by the store head "
            f"{now.head[:16]} alone: write it down") in r.stderr
    assert cli(store_url, "verify", "--store-head", now.head[:16]).exit_code == 0
    # a head that no entry has (the seal rewritten, every digest recomputed, before that entry) still fails
    r = cli(store_url, "verify", "--store-head", "0123456789abcdef")
    assert r.exit_code == 1 and "nor that of any earlier seal entry: the store seal was rewritten" in r.stderr, r.output


# ---------------------------------------------------------------------- the store's record in --format json|csv
RECORD_KEYS = ["match", "events", "status", "ok", "seq", "head", "message"]
CSV_HEADER = "match,events,status,seq,head,message"


def verified(store_url: str, *args: str):
    """``zx verify ARGS --format json``: the result, its match records, the store's record (the last) and the
    trailer on stderr (the lines after "N intact, M failed in ...")."""
    r = cli(store_url, "verify", *args, "--format", "json")
    *records, store = json.loads(r.stdout)
    lines = r.stderr.splitlines()
    trailer = lines[next(i for i, line in enumerate(lines) if " intact, " in line) + 1:]
    return r, records, store, trailer


def csv_rows(store_url: str, *args: str) -> list[str]:
    r = cli(store_url, "verify", *args, "--format", "csv")
    return r.stdout.splitlines()


def test_verify_json_and_csv_end_with_the_sealed_store_and_its_whole_head(sealed, store_url):
    """``zx verify --format json|csv`` gave the match records alone: the seal's state and the store head (16 hex
    digits) were on stderr only. One record for the store ends them (``match`` null), the matches' unchanged;
    ``zx verify MATCH`` and ``--head`` end with it too, and the table is as it was (its trailer says it)."""
    svc, _, heads = sealed
    ledger = read_ledger(svc.recorder, svc.mapper)
    r, records, store, trailer = verified(store_url)
    assert r.exit_code == 0, r.output
    assert [list(v) for v in records] == [RECORD_KEYS] * 3  # the matches' records as 0.2.0 printed them
    assert {v["match"]: (v["status"], v["ok"], v["seq"], v["head"]) for v in records} == \
        {m: ("ok", True, None, h) for m, h in heads.items()}
    assert list(store) == RECORD_KEYS and len(ledger.head) == 64
    assert store == {"match": None, "events": None, "status": "sealed", "ok": True, "seq": None,
                     "head": ledger.head, "message": "; ".join(trailer)}
    assert trailer == [f"store seal: 3 matches in 3 entries, store head {ledger.head[:16]} (write it down: a "
                       f"rewritten seal is caught with --store-head)"]
    rows = csv_rows(store_url)
    assert rows[0] == CSV_HEADER and len(rows) == 5
    assert rows[-1] == f',,sealed,,{ledger.head},"{store["message"]}"'
    assert {row.split(",")[0]: row.split(",")[4] for row in rows[1:-1]} == heads  # the matches' rows, whole heads
    table = cli(store_url, "verify")  # the table: the matches alone, the store in its trailer
    assert table.exit_code == 0 and "sealed" not in table.stdout and trailer[0] in table.stderr
    # a subset, and --head: the match's record, then the store's
    r, records, store, _ = verified(store_url, WON, "--head", heads[WON][:16])
    assert r.exit_code == 0 and [(v["match"], v["status"]) for v in records] == [(WON, "ok")]
    assert (store["status"], store["ok"], store["head"]) == ("sealed", True, ledger.head)
    r, records, store, _ = verified(store_url, WON, "--head", "0123456789abcdef")
    assert r.exit_code == 1 and [(v["match"], v["status"]) for v in records] == [(WON, "head")]
    assert (store["status"], store["ok"]) == ("sealed", True)  # the match fails, not the store
    rows = csv_rows(store_url, WON)
    assert rows[0] == CSV_HEADER and rows[1].startswith(f"{WON},") and rows[2].startswith(",,sealed,,")


def test_verify_json_and_csv_say_what_the_store_head_written_down_matched(sealed, store_url):
    """``--store-head HEX``: the current head (``sealed``), an earlier entry's (``earlier-head``, the entries and
    matches since in its message, exit 0) or none (``store-head``, ``ok`` false: why the exit code is 1 while every
    match record is ok); in JSON and in CSV, with the trailer's sentences as its message."""
    svc, _, _ = sealed
    earlier = read_ledger(svc.recorder, svc.mapper)
    r, _, store, trailer = verified(store_url, "--store-head", earlier.head[:16].upper())
    assert r.exit_code == 0 and (store["status"], store["ok"], store["head"]) == ("sealed", True, earlier.head)
    later = LEGAL.parent.parent / "x610z" / "legal" / "concession.x610zlog"
    assert cli(store_url, "import", "--no-analytics", str(later)).exit_code == 0
    now = read_ledger(svc.recorder, svc.mapper)
    r, records, store, trailer = verified(store_url, "--store-head", earlier.head)
    assert r.exit_code == 0, r.output
    assert len(trailer) == 2 and trailer[1].startswith("the store head written down is that of seal entry 3 of 4: ")
    assert store == {"match": None, "events": None, "status": "earlier-head", "ok": True, "seq": None,
                     "head": now.head, "message": "; ".join(trailer)}
    assert "the 1 match sealed in the 1 entry since (later imports)" in store["message"]
    r, records, store, trailer = verified(store_url, "--store-head", "0123456789abcdef")
    assert r.exit_code == 1 and all(v["ok"] for v in records) and len(records) == 4
    assert store == {"match": None, "events": None, "status": "store-head", "ok": False, "seq": None,
                     "head": now.head, "message": "; ".join(trailer)}
    assert store["message"].endswith("(0123456789abcdef), nor that of any earlier seal entry: the store seal was "
                                     "rewritten")
    rows = csv_rows(store_url, "--store-head", "0123456789abcdef")
    assert rows[0] == CSV_HEADER and rows[-1] == f',,store-head,,{now.head},"{store["message"]}"'
    assert csv_rows(store_url, "--store-head", earlier.head[:16])[-1].startswith(f",,earlier-head,,{now.head},")


def test_verify_json_says_a_broken_seal_is_broken_and_not_ok(sealed, store_url):
    """A seal entry altered: exit 1 with every match's record naming the seal; the store's record says
    ``broken``, ``ok`` false, no store head (its entries do not verify)."""
    svc, t, _ = sealed
    edit_entry(svc, t, 2, lambda state: state.update(matches=[]))
    r, _, store, trailer = verified(store_url)
    assert r.exit_code == 1
    assert store == {"match": None, "events": None, "status": "broken", "ok": False, "seq": None, "head": None,
                     "message": "store seal: BROKEN: store seal entry 2 was altered (its digest does not match its "
                                "content)"} and trailer == [store["message"]]


def test_verify_json_and_csv_of_an_unsealed_store_and_of_its_seal(legacy):
    """The 0.1.0 store: its match records as released, then the store's, ``unsealed`` (no head); with
    ``--seal`` the record gives the seal just made and its store head in full."""
    r, records, store, trailer = verified(str(legacy))
    assert r.exit_code == 0 and len(records) == 20 and [list(v) for v in records] == [RECORD_KEYS] * 20
    assert store == {"match": None, "events": None, "status": "unsealed", "ok": True, "seq": None, "head": None,
                     "message": "; ".join(trailer)}
    assert store["message"].startswith("store seal: none (a store from before zx-events 0.2.0)")
    rows = csv_rows(str(legacy))
    assert rows[0] == CSV_HEADER and len(rows) == 22 and rows[-1] == f',,unsealed,,,"{store["message"]}"'
    r, after, sealed_now, _ = verified(str(legacy), "--seal")
    assert r.exit_code == 0, r.output
    assert after == records  # as verified (0.2.0 printed them before sealing too)
    svc = MatchService(str(legacy))
    ledger = read_ledger(svc.recorder, svc.mapper)
    svc.close()
    assert (sealed_now["status"], sealed_now["ok"], sealed_now["head"]) == ("sealed", True, ledger.head)
    assert sealed_now["message"] == (f"{store['message']}; 20 matches sealed; store seal: 20 matches in 1 entry, "
                                     f"store head {ledger.head[:16]} (write it down: a rewritten seal is caught "
                                     f"with --store-head)")
    r, _, store, _ = verified(str(legacy), "--store-head", ledger.head)
    assert r.exit_code == 0 and (store["status"], store["head"]) == ("sealed", ledger.head)


def test_a_rewritten_match_vouched_for_by_an_entry_appended_after_is_caught(sealed, store_url):
    """QA round 35 (security): a match rewritten with its chain recomputed, then one entry appended to the seal, well
    chained, listing the match with its new head: the later listing replaced the first, and ``zx verify`` said "3
    intact", with ``--store-head`` (the head written down before) too. A match is sealed once, by the import that
    stored it: the first listing stands (the match is "rewritten" against it), and the seal is broken from the entry
    that lists it again."""
    from zx_events.ledger import entry

    svc, t, heads = sealed
    before = read_ledger(svc.recorder, svc.mapper)

    def flip(topic, state):
        if topic.endswith(("MatchEnded", "ResultRecorded")) and state.get("winner") == "P2":
            state["winner"] = "P1"

    forged = rewrite(svc, t, WON, flip)
    first = next(s for s in before.matches.values() if s.match == WON)
    appended = entry(before.entries + 1, before.head, [sealed_entry(WON, first.originator_id, first.events, forged)])
    svc.recorder.insert_events([svc.mapper.to_stored_event(appended)])
    after = read_ledger(svc.recorder, svc.mapper)
    assert not after.ok and after.matches[first.originator_id].head == heads[WON]  # the first listing stands
    for args in ((), ("--store-head", before.head)):
        r = cli(store_url, "verify", "--format", "json", *args)
        assert r.exit_code == 1, r.output
        records = json.loads(r.stdout)
        assert [(v["match"], v["status"]) for v in records if not v["ok"] and v["match"]] == [(WON, "rewritten")]
        assert f"store seal: BROKEN: store seal entry {before.entries + 1} lists {WON} again, with head {forged[:16]}" \
            in r.stderr, r.stderr
        assert [v["status"] for v in records if v["match"] is None] == ["broken"]
    assert (f"the store head written down is that of seal entry {before.entries} of {before.entries + 1}: the seal up "
            f"to it is as it was then; it is broken after it") in r.stderr


def test_a_match_listed_twice_with_the_same_head_is_no_break(sealed, store_url):
    """The same row in two entries (an import and a first ``zx verify --seal`` racing: ``ledger.append_unlisted``)
    is harmless: the seal holds."""
    from zx_events.ledger import entry

    svc, _, heads = sealed
    before = read_ledger(svc.recorder, svc.mapper)
    first = next(s for s in before.matches.values() if s.match == WON)
    again = entry(before.entries + 1, before.head, [sealed_entry(WON, first.originator_id, first.events, first.head)])
    svc.recorder.insert_events([svc.mapper.to_stored_event(again)])
    assert read_ledger(svc.recorder, svc.mapper).ok
    r = cli(store_url, "verify")
    assert r.exit_code == 0 and "3 intact, 0 failed" in r.stderr, r.stderr
