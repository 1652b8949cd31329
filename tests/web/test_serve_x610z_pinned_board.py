"""zx serve of a stored X610Z match uses a board only when its SHA-256 is the one the match pinned at import
(QA round 28, "formats", defects 2 and 5): the view API gives no layout for a match checked against a board file
that kept the shipped board's name, the replay page warns naming both SHA-256s, and the served audit of a match
imported with a board file zx does not ship is a warning, not a malformed log."""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app
from zx_events.games.x610z.board import load_board

ROOT = Path(__file__).resolve().parents[2]
LEGAL_LOG = ROOT / "examples" / "x610z" / "legal" / "life-base-destroyed.x610zlog"
MATCH = "x610z-sim-7-0264"
VENUE_MATCH = "venue-served-1"
SAMPLE = "x610z-orbits-sample"


def _sample() -> dict:
    return json.loads(resources.files("zx_events.games.x610z").joinpath("boards", f"{SAMPLE}.json")
                      .read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A store with the legal match checked against a board file of the shipped name (A5 a No Attack Dot, B3 not)
    and a match on venue-board, a board file zx does not ship; the served app (no analytics needed) and both
    files' SHA-256."""
    folder = tmp_path_factory.mktemp("served-pinned")
    kinds = _sample()
    for d in kinds["dots"]:
        if d["id"] in ("A5", "B3"):
            d["kind"] = "no_attack" if d["id"] == "A5" else "normal"
    kinds_file = folder / "board-kinds.json"
    kinds_file.write_text(json.dumps(kinds), encoding="utf-8")
    venue = {**_sample(), "name": "venue-board"}
    venue_file = folder / "venue-board.json"
    venue_file.write_text(json.dumps(venue), encoding="utf-8")
    lines = LEGAL_LOG.read_text(encoding="utf-8").splitlines()
    header = {**json.loads(lines[0]), "board": "venue-board", "match": VENUE_MATCH}
    venue_log = folder / "venue.x610zlog"
    venue_log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(folder / "s.sqlite")
    for args in (["--accept-violations", "--board", str(kinds_file), str(LEGAL_LOG)],
                 ["--board", str(venue_file), str(venue_log)]):
        r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", *args])
        assert r.exit_code == 0, r.output
    with TestClient(create_app(store), raise_server_exceptions=False) as c:
        yield c, hashlib.sha256(kinds_file.read_bytes()).hexdigest(), hashlib.sha256(venue_file.read_bytes()).hexdigest()


def test_the_view_api_gives_no_layout_of_the_shipped_board_for_a_match_checked_on_another_of_its_name(served):
    client, _, _ = served
    for seat in ("spectator", "P1"):
        got = client.get(f"/api/matches/{MATCH}/view", params={"as": seat})
        assert got.status_code == 200, got.text
        state = got.json()
        assert state["board"] == SAMPLE and state["layout"] is None, state["layout"]
    steps = client.get(f"/api/matches/{MATCH}/steps", params={"limit": 5}).json()["steps"]
    assert steps and all(s["state"]["layout"] is None for s in steps)


def test_the_replay_page_warns_of_the_pinned_and_the_shipped_sha256(served):
    client, pinned, _ = served
    page = client.get(f"/matches/{MATCH}/replay")
    assert page.status_code == 200
    data = json.loads(re.search(r'<script type="application/json" id="zx-data">(.*?)</script>', page.text,
                                re.S).group(1))
    shipped = load_board(SAMPLE).sha256
    assert (f"the match was checked against board {SAMPLE!r} sha256 {pinned[:12]}, the current one is "
            f"{shipped[:12]}") in (data["warning"] or ""), data["warning"]


def test_the_served_audit_of_a_match_on_a_board_file_zx_does_not_ship_is_a_warning_not_a_malformed_log(served):
    client, _, venue_sha = served
    got = client.get(f"/api/audit/{VENUE_MATCH}")
    assert got.status_code == 200, got.text
    out = got.json()
    assert out["violations"] == [] and out["integrity"] == "ok", out["violations"]
    assert out["pinned"]["board"] == {"name": "venue-board", "sha256": venue_sha}
    assert any("venue-board" in w and venue_sha[:12] in w and
               "pass --board FILE (the board file the match was imported with)" in w for w in out["warnings"]), \
        out["warnings"]


def test_the_served_audit_of_a_match_checked_on_another_board_of_the_shipped_name_judges_nothing_on_it(served):
    client, pinned, _ = served
    out = client.get(f"/api/audit/{MATCH}").json()
    assert out["violations"] == [] and out["board"] is None
    assert any(pinned[:12] in w and "pass --board FILE" in w for w in out["warnings"]), out["warnings"]
