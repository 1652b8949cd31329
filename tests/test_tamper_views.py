"""What the readers of a tampered store say, as ``zx verify`` says it (QA round 2, tampering):

- a match deleted whole from a sealed store (``zx verify``: ``deleted``): ``zx replay``, ``zx view``,
  ``zx audit`` and ``zx serve`` said only that the match was unknown.

Each test changes the store with SQL, as someone with write access to the database would; SQLite and
PostgreSQL (the ``service`` fixture).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from cli.main import zx
from test_verify import LEGAL, Tamper
from web.app import create_app
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


def test_a_match_deleted_whole_is_said_deleted_by_replay_view_audit_and_serve(stored, store_url, tmp_path):
    """``zx verify`` says ``deleted`` (the store seal lists it); ``zx replay``, ``zx view``, ``zx audit`` said
    "unknown match ...: it is not in the store" and "neither a log file nor a stored match"."""
    svc, t, heads = stored
    t.run("DELETE FROM {t} WHERE originator_id = %s", (t.oid(WON),))
    r = cli(store_url, "verify", WON, "--format", "json")
    (v,) = json.loads(r.stdout)
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
