"""X610Z matches in zx serve (pages and JSON API) and in zx view (Chromium), from a store that holds
both games: imported through the same path as zx import, analytics projected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from cli.main import zx
from web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
MATCH = "x610z-sim-7-000263"  # examples/x610z/legal/life-base-destroyed.x610zlog: P2 wins on Life Base


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> tuple[str, Path]:
    folder = tmp_path_factory.mktemp("x610z-web")
    store, analytics = str(folder / "events.sqlite"), folder / "events.duckdb"
    for logs in (ROOT / "examples" / "x610z" / "legal", ROOT / "examples" / "legal"):
        r = CliRunner().invoke(zx, ["--store", store, "import", str(logs)], env={"ZX_ANALYTICS": str(analytics)})
        assert r.exit_code == 0, r.output
    return store, analytics


@pytest.fixture(scope="module")
def client(mixed):
    store, analytics = mixed
    with TestClient(create_app(store, analytics=analytics), raise_server_exceptions=False) as c:
        yield c


def replay_json(store: str, *args: str) -> dict:
    r = CliRunner().invoke(zx, ["--store", store, "replay", MATCH, "--format", "json", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_x610z_in_the_match_list_and_games(client):
    games = {g["game"]: g["matches"] for g in client.get("/api/games").json()}
    assert games["x610z"] == 3 and games["zx"] > 0
    listed = client.get("/api/matches", params={"game": "x610z"}).json()["matches"]
    assert sorted(m["match"] for m in listed) == sorted(["x610z-sim-7-000278", MATCH, "x610z-sim-9-000074"])
    assert all(m["game"] == "x610z" for m in listed)
    assert MATCH in client.get("/matches", params={"game": "x610z"}).text


def test_x610z_match_page_api_and_audit(client, mixed):
    m = client.get(f"/api/matches/{MATCH}").json()
    assert (m["game"], m["chain"]["verifies"], m["result"]["winner"]) == ("x610z", True, "P2")
    page = client.get(f"/matches/{MATCH}")
    assert page.status_code == 200 and "chain verifies" in page.text
    replay = client.get(f"/matches/{MATCH}/replay")
    assert replay.status_code == 200 and 'id="zx-data"' in replay.text and "x610z" in replay.text
    audit = client.get(f"/api/audit/{MATCH}").json()
    assert audit["game"] == "x610z" and audit["violations"] == []


@pytest.mark.parametrize("seat", ["P1", "P2", "spectator"])
def test_x610z_api_view_is_zx_replay_and_hides_the_other_hand(client, mixed, seat):
    store, _ = mixed
    for turn in (2, 5, 9):
        got = client.get(f"/api/matches/{MATCH}/view", params={"turn": turn, "as": seat}).json()
        assert got == replay_json(store, "--turn", str(turn), "--as", seat)
        for pl, p in got["players"].items():
            assert (p["hand"] is not None) == (pl == seat)
            assert "deck" not in p  # only its size: the order of a deck is never shown
    steps = client.get(f"/api/matches/{MATCH}/steps", params={"as": seat, "limit": 200}).json()["steps"]
    assert steps and all(s["state"]["perspective"] == seat for s in steps)
    judge = client.get(f"/api/matches/{MATCH}/view", params={"as": "judge"})
    assert judge.status_code == 403


def test_x610z_stats_over_the_api_never_mix_games(client):
    wr = client.get("/api/stats/winrates", params={"game": "x610z", "min_games": 1}).json()
    rows = wr["rows"] if isinstance(wr, dict) else wr
    decks = {r["deck"] for r in rows}
    assert decks and decks <= {"Mystic Rush", "Grey Tide", "Prism Keep", "Boost Walkers"}
    both = client.get("/api/stats/winrates", params={"min_games": 1}).json()
    rows = both["rows"] if isinstance(both, dict) else both
    assert {r["game"] for r in rows} == {"x610z", "zx"}
    attacks = client.get("/api/stats/attacks", params={"game": "x610z"})
    assert attacks.status_code == 400 and "x610z_attacks" in attacks.text
    for params in ({"game": "x610z", "min_games": 1}, {"min_games": 1}, {"game": "zx", "min_games": 1}):
        dash = client.get("/dashboard", params=params)
        assert dash.status_code == 200, (params, dash.text[:300])


def test_zx_view_of_a_stored_x610z_match_in_chromium(browser, mixed, tmp_path):
    store, _ = mixed
    out = tmp_path / "x.html"
    r = CliRunner().invoke(zx, ["--store", store, "view", MATCH, "--as", "P2", "-o", str(out)])
    assert r.exit_code == 0, r.output
    browser.get(out.as_uri())
    browser.execute_script("window.__errors = []; window.addEventListener('error', function (e) {"
                           " window.__errors.push(String(e.message)); });")
    assert browser.find_elements("css selector", "#board svg.x610z-board")
    last = browser.execute_script("return zxViewer.data.last")
    browser.execute_script("for (var s = 1; s <= zxViewer.data.last; s++) zxViewer.go(s);")
    assert browser.execute_script("return window.__errors") == []
    assert browser.execute_script("return zxViewer.seq()") == last
    state = browser.execute_script("return zxViewer.state()")
    assert state == replay_json(store, "--event", str(last), "--as", "P2")
    assert state["players"]["P1"]["hand"] is None
