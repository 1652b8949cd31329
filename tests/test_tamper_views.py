"""What the readers of a tampered store say, as ``zx verify`` says it (QA round 2, tampering):

- a replay snapshot doctored with its check recomputed (``zx verify``: ``snapshot``): ``zx serve``'s API
  and match page said the match verified while its views were built from the doctored snapshot;
- a match deleted whole from a sealed store (``zx verify``: ``deleted``): ``zx replay``, ``zx view``,
  ``zx audit`` and ``zx serve`` said only that the match was unknown.

Each test changes the store with SQL, as someone with write access to the database would; SQLite and
PostgreSQL (the ``service`` fixture).
"""

from __future__ import annotations

import html
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from test_verify import LEGAL, MATCH, Tamper, match_records
from zx_web.app import create_app
from zx_events import replay
from zx_events.application import MatchService
from zx_events.logformat.reader import read_log

ROOT = Path(__file__).resolve().parent.parent
LONG = ROOT / "examples" / "legal" / "long-game-reload-win-by-life.zxlog"  # ~300 events: has snapshots
WON = "sim-1-0038"


def cli(store_url: str, *args: str):
    return CliRunner().invoke(zx, ["--store", store_url, *args])


@pytest.fixture
def stored(service):
    """Two matches, each imported (and sealed) in its own batch: the legal example (entry 1), the long one
    (entry 2); returns the service, SQL on its events table, and each match's head."""
    heads = {}
    for path in (LEGAL, LONG):
        for log in read_log(path):
            heads[log.match_id] = service.import_log(log).head
    return service, Tamper(service), heads


def forge_snapshot(svc: MatchService, t: Tamper, match: str) -> int:
    """The match's snapshots written, then its first one given 40 more turns, its check recomputed as a forger
    who read the code would (``replay.state_check``): a seek reads it. Returns its seq."""
    replay.view_at(svc, match, seq=replay.last_seq(svc, match))  # writes the snapshots
    sid = replay.snapshot_id(match)
    store = replay._snapshots(svc)
    (s, *_) = store.recorder.select_events(sid)
    snap = svc.mapper.to_domain_event(s)
    state = dict(snap.state)
    state["turn"] = state["turn"] + 40
    state[replay.CHECK_KEY] = replay.state_check(state[replay.CHAIN_KEY], state)
    forged = svc.mapper.to_stored_event(type(snap)(originator_id=sid, originator_version=snap.originator_version,
                                                   timestamp=snap.timestamp, topic=snap.topic, state=state))
    table = store.recorder.events_table_name
    where = "originator_id = %s AND originator_version = %s"
    if svc.store.kind == "sqlite":
        with sqlite3.connect(svc.store.path) as con:
            con.execute(f"UPDATE {table} SET state = ? WHERE {where.replace('%s', '?')}",
                        (forged.state, sid.hex, s.originator_version))
        con.close()
    else:
        t.run(f'UPDATE "{svc.store.schema}"."{table}" SET state = %s WHERE {where}',
              (forged.state, sid, s.originator_version))
    return s.originator_version


def test_a_snapshot_with_a_recomputed_check_fails_verification_in_serve_replay_and_view_as_in_verify(
        stored, store_url, tmp_path):
    """``zx serve`` answered ``verifies: true`` (match page: "chain verifies") for a match whose doctored
    snapshot its views were built from, while ``zx verify`` failed it (status ``snapshot``)."""
    svc, t, _ = stored
    seq = forge_snapshot(svc, t, WON)
    r = cli(store_url, "verify", WON, "--format", "json")
    assert r.exit_code == 1, r.output
    (v,) = match_records(r.stdout)
    assert v["status"] == "snapshot"
    warning = f"{WON} fails verification (snapshot: the replay snapshot at seq {seq} disagrees with the events"
    with TestClient(create_app(store_url)) as c:
        for _ in range(2):  # the second from the server's cache of snapshot checks
            chain = c.get(f"/api/matches/{WON}").json()["chain"]
            assert chain == {"head": v["head"], "verifies": False, "status": "snapshot", "seq": None,
                             "message": v["message"]}
        page = html.unescape(c.get(f"/matches/{WON}").text)
        assert "fails verification: snapshot" in page and v["message"] in page and "chain verifies" not in page
        for seat in ("P1", "spectator"):
            replay_page = c.get(f"/matches/{WON}/replay", params={"as": seat})
            assert replay_page.status_code == 200 and warning in replay_page.text
        assert c.get(f"/api/matches/{MATCH}").json()["chain"]["verifies"] is True  # the other match: intact
        fixed = cli(store_url, "prepare", "--repair", WON)
        assert fixed.exit_code == 0, fixed.output
        chain = c.get(f"/api/matches/{WON}").json()["chain"]  # the snapshots rewritten: checked again
        assert chain["verifies"] is True and chain["status"] == "ok", chain
    forge_snapshot(svc, t, WON)
    r = cli(store_url, "replay", WON, "--turn", "2")
    assert r.exit_code == 0 and f"warning: {warning}" in r.stderr, r.output
    out = tmp_path / "v.html"
    r = cli(store_url, "view", WON, "-o", str(out))
    assert r.exit_code == 0 and f"warning: {warning}" in r.stderr and warning in out.read_text(encoding="utf-8")
    r = cli(store_url, "replay", MATCH)
    assert r.exit_code == 0 and "fails verification" not in r.stderr, r.output


def test_a_match_deleted_whole_is_said_deleted_by_replay_view_audit_and_serve(stored, store_url, tmp_path):
    """``zx verify`` says ``deleted`` (the store seal lists it); ``zx replay``, ``zx view``, ``zx audit`` said
    "unknown match ...: it is not in the store" and "neither a log file nor a stored match"."""
    svc, t, heads = stored
    t.run("DELETE FROM {t} WHERE originator_id = %s", (t.oid(WON),))
    r = cli(store_url, "verify", WON, "--format", "json")
    (v,) = match_records(r.stdout)
    assert v["status"] == "deleted" and f"head {heads[WON][:16]})" in v["message"], v
    sealed = v["message"][v["message"].index("(entry 2, "):]  # (entry 2, N events, head H)
    said = f"match {WON!r} was deleted whole from the store {svc.store.label}: the store seal lists it {sealed}"
    tail = f", but none of its events is left; zx verify {WON} reports it"
    for args in (["replay", WON], ["view", WON, "-o", str(tmp_path / "v.html")], ["audit", WON]):
        r = cli(store_url, *args)
        assert r.exit_code == 1 and said in r.output and tail in r.output, (args, r.output)
        assert "not in the store (" not in r.output and "neither a log file" not in r.output, (args, r.output)
        assert "Traceback" not in r.output
    assert not (tmp_path / "v.html").exists()
    r = cli(store_url, "replay", "never-imported")  # a name no import stored: unknown, as before
    assert r.exit_code == 1 and "unknown match 'never-imported': it is not in the store" in r.output
    with TestClient(create_app(store_url)) as c:
        for url in (f"/api/matches/{WON}", f"/api/matches/{WON}/view", f"/api/audit/{WON}"):
            r = c.get(url)
            assert r.status_code == 404 and said in r.json()["error"] and tail in r.json()["error"], (url, r.text)
        for url in (f"/matches/{WON}", f"/matches/{WON}/replay"):
            r = c.get(url)
            assert r.status_code == 404 and said in html.unescape(r.text), (url, r.text)


def test_a_match_whose_started_event_cannot_be_read_is_not_called_unknown_by_serve(stored, store_url):
    """Its Started event made unreadable: the match list shows it (damaged, by its stored id or its name),
    zx audit MATCH says its Started event cannot be decoded, but the match page and /api/matches/M
    answered 404 "unknown match ...: it is not in the store"."""
    svc, t, _ = stored
    t.set_state(WON, 1, t.state(WON, 1)[:-40])  # cut: no longer JSON
    r = cli(store_url, "verify", WON, "--format", "json")
    (v,) = match_records(r.stdout)
    assert r.exit_code == 1 and v["status"] == "altered" and v["seq"] == 1, v
    with TestClient(create_app(store_url)) as c:
        r = c.get(f"/api/matches/{WON}")
        error = r.json()["error"]
        assert r.status_code == 409 and f"match {WON!r} is in the store, but its Started event is missing or " \
            f"cannot be decoded" in error and v["message"] in error and f"zx verify {WON}" in error, r.text
        assert "not in the store" not in error
        page = c.get(f"/matches/{WON}")
        assert page.status_code == 409 and "is in the store, but its Started event" in html.unescape(page.text)
        assert c.get("/api/matches/never-imported").status_code == 404  # a name no import stored: unknown
        assert c.get(f"/api/matches/{MATCH}").status_code == 200  # the other match


def test_a_served_replay_page_says_a_match_was_altered_after_it_was_first_served(stored, store_url):
    """The replay page is kept once built (by match and seat): one served before its match was altered kept
    its banner-less page, while the match page, read again, said "fails verification"."""
    svc, t, _ = stored
    with TestClient(create_app(store_url)) as c:
        first = c.get(f"/matches/{MATCH}/replay", params={"as": "spectator"})
        assert first.status_code == 200 and "fails verification" not in first.text, first.text[:300]
        state = t.state(MATCH, 3)
        t.set_state(MATCH, 3, state.replace(b'"line":3', b'"line":4', 1))  # (still replays: a record's line)
        again = c.get(f"/matches/{MATCH}/replay", params={"as": "spectator"})
        assert again.status_code == 200 and \
            f"{MATCH} fails verification (altered: digest mismatch at seq 3" in html.unescape(again.text)
        assert "fails verification" in html.unescape(c.get(f"/matches/{MATCH}").text)


def test_an_audit_shows_no_finding_on_the_records_after_an_event_altered(stored, store_url):
    """QA (shared PostgreSQL): event 5's payload made bytes that are not JSON: ``zx audit`` re-checked the records
    the events still hold and said 301.1 at the next record that depended on the one lost (a Comprehensive Rules
    finding no record of the imported log broke), beside "integrity: altered". From the first event the chain does
    not verify, the records are not the ones imported: no finding there, and a warning says how many and why."""
    svc, t, heads = stored
    t.set_state(WON, 5, bytes.fromhex("00ff00ff6e6f74206a736f6e"))
    r = cli(store_url, "audit", WON, "--format", "json")
    (a,) = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert a["integrity"] == "altered", a
    assert [v for v in a["violations"] if (v.get("seq") or 0) >= 5] == [], a["violations"]
    assert any("of the re-check at or after seq 5" in w and "not shown: the store was altered there" in w
               for w in a.get("warnings", [])), a
    assert "Traceback" not in r.output
    with TestClient(create_app(store_url)) as c:
        api = c.get(f"/api/audit/{WON}").json()
        assert [v for v in api["violations"] if (v.get("seq") or 0) >= 5] == [], api
