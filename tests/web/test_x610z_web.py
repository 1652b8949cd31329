"""X610Z matches in zx serve (pages and JSON API) and in zx view (Chromium), from a store that holds
both games: imported through the same path as zx import, analytics projected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app
from zx_web.viewer import page_state

ROOT = Path(__file__).resolve().parents[2]
MATCH = "x610z-sim-7-0264"  # examples/x610z/legal/life-base-destroyed.x610zlog: P2 wins on Life Base
ENDING_DOT = "x610z-sim-9-0075"  # examples/x610z/legal/murphys-law-ending-dot.x610zlog


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
    assert sorted(m["match"] for m in listed) == sorted(["x610z-sim-7-0279", MATCH, "x610z-sim-9-0075"])
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
            assert p["deck"] is None  # only its size: its cards are the judge's only
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


def test_the_apis_game_filter_takes_any_case_as_the_cli_does(client):
    """``/api/matches?game=X610Z`` was "unknown game 'X610Z'" and ``/api/stats/winrates?game=ZX`` "no game named
    'ZX'", while ``zx stats --game X610Z`` and docs/serve.md ("case-insensitive") took it."""
    for game in ("x610z", "zx"):
        for asked in (game.upper(), game.capitalize()):
            listed = client.get("/api/matches", params={"game": asked, "limit": 5})
            assert listed.status_code == 200 and listed.json(), (asked, listed.text[:200])
            assert listed.json() == client.get("/api/matches", params={"game": game, "limit": 5}).json()
            wr = client.get("/api/stats/winrates", params={"game": asked, "min_games": 1})
            assert wr.status_code == 200, (asked, wr.text[:200])
            assert wr.json() == client.get("/api/stats/winrates", params={"game": game, "min_games": 1}).json()


X610Z_DECKS = {"Mystic Rush", "Grey Tide", "Prism Keep", "Boost Walkers"}


def _options(html: str, name: str) -> dict[str, bool]:
    """The options of the form's ``<select name=...>``: value (or text) -> selected."""
    import re

    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select, name
    return {(m.group(1) if m.group(1) is not None else m.group(3)).strip(): bool(m.group(2))
            for m in re.finditer(r'<option(?: value="([^"]*)")?\s*(selected)?\s*>([^<]*)</option>', select.group(1))}


def test_the_dashboard_form_picks_the_game_and_offers_its_decks(client):
    """On a file of both games the dashboard shows Z/X's unless told; its form has a game select
    (before, applying the form went back to Z/X's dashboard, and its deck list mixed both games)."""
    zx_page = client.get("/dashboard", params={"min_games": 1}).text
    assert _options(zx_page, "game") == {"x610z": False, "zx": True}
    assert "X610Z</option>" in zx_page and "Z/X -Zillions of enemy X-</option>" in zx_page
    zx_decks = set(_options(zx_page, "deck")) - {""}
    assert zx_decks and not zx_decks & X610Z_DECKS
    page = client.get("/dashboard", params={"game": "x610z", "min_games": 1}).text
    assert _options(page, "game") == {"x610z": True, "zx": False}
    assert set(_options(page, "deck")) - {""} <= X610Z_DECKS


def test_the_match_list_page_picks_the_game_and_names_each_matchs(client):
    """On a store of both games the match list's form has a game select (before, only ?game= in the
    address could pick one) and the table a game column."""
    import re

    page = client.get("/matches").text
    assert _options(page, "game") == {"": False, "x610z": False, "zx": False}
    assert '<th scope="col">game</th>' in page
    page = client.get("/matches", params={"game": "x610z"}).text
    assert _options(page, "game") == {"": False, "x610z": True, "zx": False}
    listed = re.findall(r'<tr data-match="([^"]+)">\s*<td[^>]*><a [^>]*>[^<]*</a></td>\s*<td>([^<]*)</td>', page)
    assert sorted(listed) == sorted((m, "x610z") for m in ("x610z-sim-7-0279", MATCH, "x610z-sim-9-0075"))


def test_zx_report_draws_the_dashboard_of_the_game_asked_for(mixed, tmp_path, client):
    """zx report --game (and every filter of zx stats): an X610Z analyst's report file; before, it
    could only be Z/X's."""
    store, analytics = mixed
    out = tmp_path / "x610z.html"
    args = ["--store", store, "report", "--analytics", str(analytics), "--min-games", "1"]
    r = CliRunner().invoke(zx, [*args, "--game", "x610z", "-o", str(out), "--format", "json"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)
    assert row == {"file": str(out), "bytes": out.stat().st_size, "game": "x610z", "title": "Metagame",
                   "filters": {}, "min_games": 1}
    html = out.read_text(encoding="utf-8")
    assert "<span id=\"game\">X610Z</span>" in html and "Attack outcomes" not in html  # Z/X's own tables left out
    served = client.get("/dashboard", params={"game": "x610z", "min_games": 1}).text
    for deck in X610Z_DECKS & set(_options(served, "deck")):
        assert deck in html
    assert "Red Dragons" not in html
    # the other filters of zx stats; the game a report without --game shows is named in its row
    zx_out = tmp_path / "zx.html"
    r = CliRunner().invoke(zx, [*args, "--seat", "first", "--opp-archetype", "nothing-such", "-o", str(zx_out)])
    assert r.exit_code == 1 and "archetype" in r.output and not zx_out.exists()
    r = CliRunner().invoke(zx, [*args, "--seat", "first", "-o", str(zx_out), "--format", "csv"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["file,bytes,game,title,filters,min_games",
                                     f'{zx_out},{zx_out.stat().st_size},zx,Metagame,"{{""seat"": ""first""}}",1']
    zx_html = zx_out.read_text(encoding="utf-8")
    assert "seat = first" in zx_html and '<span id="game">Z/X -Zillions of enemy X-</span>' in zx_html


def test_zx_report_keeps_an_existing_file_unless_force(mixed, tmp_path):
    store, analytics = mixed
    out = tmp_path / "meta.html"
    out.write_text("mine")
    args = ["--store", store, "report", "--analytics", str(analytics), "-o", str(out)]
    r = CliRunner().invoke(zx, args)
    assert r.exit_code == 1 and f"{out} exists: give --force" in r.output
    assert out.read_text() == "mine"
    # (a page of no match: written by the same write_page as any; its eight charts are drawn elsewhere)
    r = CliRunner().invoke(zx, [*args, "--force", "--since", "2099-01-01"])
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == str(out) and out.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left behind
    r = CliRunner().invoke(zx, ["--store", store, "report", "--analytics", str(analytics), "--game", "chess",
                                "-o", str(tmp_path / "c.html")])
    assert r.exit_code == 2 and "Invalid value for '--game': unknown game 'chess'" in r.output
    assert not (tmp_path / "c.html").exists()


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
    assert state == page_state(replay_json(store, "--event", str(last), "--as", "P2"))
    assert state["players"]["P1"]["hand"] is None
    assert not browser.find_elements("css selector", '#board [data-zone="deck"]')  # a Deck's cards: the judge's only


def test_the_judges_file_draws_each_deck_sorted_in_chromium(browser, mixed, tmp_path):
    """The X610Z judge saw only each Deck's size, while the Z/X judge sees its cards: now the judge's board
    lists them (sorted by code: the state keeps no order)."""
    store, _ = mixed
    out = tmp_path / "judge.html"
    r = CliRunner().invoke(zx, ["--store", store, "view", MATCH, "--as", "judge", "-o", str(out)])
    assert r.exit_code == 0, r.output
    browser.get(out.as_uri())
    browser.execute_script("zxViewer.go(zxViewer.data.last);")
    state = replay_json(store, "--as", "judge")
    for pl in ("P1", "P2"):
        codes = browser.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll("
            "'#board .player.' + arguments[0] + ' [data-zone=\"deck\"] [data-code]'), "
            "function (e) { return e.getAttribute('data-code'); });", pl)
        deck = state["players"][pl]
        assert codes == deck["deck"] == sorted(codes) and len(codes) == deck["deck_count"]


def test_the_match_page_says_what_a_seat_sees_and_the_result_in_x610zs_words(client):
    """The X610Z match page said "that seat's own hand and Dynamis too (301.3)" (Z/X's zones and rule),
    and "by ending_dot" (the engine's key): each game's own words now."""
    for match, reason in ((MATCH, "taking the other Life Base out of play (210.8)"),
                          (ENDING_DOT, "its Life Base reaching an Ending Dot (602.2)")):
        page = client.get(f"/matches/{match}").text
        assert f'by <span id="reason">{reason}</span>' in page and f'title="{reason_key(match)}"' not in page
        assert "Dynamis" not in page and "301.3" not in page and "own Hand too (502.3-502.4" in page
        assert client.get(f"/api/matches/{match}").json()["result"]["reason_text"] == reason
    zx_match = next(m["match"] for m in client.get("/api/matches?game=zx&limit=5").json()["matches"])
    page = client.get(f"/matches/{zx_match}").text
    assert "own hand and Dynamis too (301.3)" in page


def reason_key(match: str) -> str:
    return {MATCH: "life_base", ENDING_DOT: "ending_dot"}[match]


def test_a_filter_of_the_other_game_shows_in_the_form_and_says_so_in_the_dashboard(client):
    """A Z/X deck kept when the form switched to X610Z: every section was empty, "filters: deck = ..."
    in the summary, and the Deck box said "any". An unknown player was a bare 400 page without the form,
    linking to the matches, suggesting names of the other game. Now: the dashboard's page with its form
    (the deck selected), the reason, this game's names only, and a link back to the dashboard."""
    import re

    rows = client.get("/api/matches?limit=500").json()["matches"]
    zx_deck = next(r["p1_deck"] for r in rows if r["game"] == "zx" and r.get("p1_deck"))
    x6_names = sorted({r[k] for r in rows if r["game"] == "x610z" for k in ("p1", "p2") if r.get(k)})
    zx_names = {r[k] for r in rows if r["game"] == "zx" for k in ("p1", "p2") if r.get(k)}
    r = client.get("/dashboard", params={"game": "x610z", "deck": zx_deck}, headers={"accept": "text/html"})
    assert r.status_code == 400
    assert 'id="dash-filters"' in r.text and f'<option value="{zx_deck}" selected>{zx_deck}</option>' in r.text
    assert f"no deck named &#39;{zx_deck}&#39; in the X610Z matches" in r.text
    assert 'id="back-dashboard" href="/dashboard?game=x610z"' in r.text and "data-chart" not in r.text
    typo = x6_names[0][:-1] + "q"
    r = client.get("/dashboard", params={"game": "x610z", "player": typo}, headers={"accept": "text/html"})
    message = re.search(r'id="error-message">([^<]+)<', r.text).group(1)
    assert r.status_code == 400 and 'id="dash-filters"' in r.text and f'value="{typo}"' in r.text
    assert x6_names[0] in message and not any(n in message for n in zx_names - set(x6_names))
    ok = client.get("/dashboard", params={"game": "x610z", "player": x6_names[0]}, headers={"accept": "text/html"})
    assert ok.status_code == 200 and "data-chart" in ok.text


def test_x610z_shared_card_figures_hold_only_the_cards_cast_502_3(mixed, client, tmp_path):
    """X610Z's hand is seen by its owner only (502.3-502.4): narrowed to one match, the per-card figures
    shared without --deck-lists (API, dashboard, zx report) list the cards cast (a crystal or a card onto
    the stack, every seat saw them: ``card_games.played``) with their played figures only, and no card
    that was only ever in a hand. Before, the whole opening hand and every draw were listed."""
    store, analytics = mixed
    day = {"game": "x610z", "since": "2026-11-27", "until": "2026-11-27"}  # x610z-sim-7-0279 alone
    r = CliRunner().invoke(zx, ["--store", store, "stats", "cards", "--analytics", str(analytics), "--game", "x610z",
                                "--since", day["since"], "--until", day["until"], "--min-games", "1",
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    every = json.loads(r.stdout)
    cast = [r for r in every if r["played_games"] > 0]
    in_hand = {r["card"] for r in every if r["gih_games"] > 0 and r["played_games"] == 0}
    assert cast and in_hand
    figures = ("card", "name", "played_games", "played_wins", "played_wr", "played_wr_low", "played_wr_high")
    rows = client.get("/api/stats/cards", params={**day, "min_games": 1}).json()["rows"]
    assert rows == [{**{k: r[k] for k in figures}, "low_sample": False}
                    for r in sorted(cast, key=lambda r: (-r["played_games"], r["card"]))]
    out = tmp_path / "x610z.html"
    r = CliRunner().invoke(zx, ["--store", store, "report", "--analytics", str(analytics), "--min-games", "1",
                                *[a for k, v in day.items() for a in (f"--{k}", v)], "-o", str(out)])
    assert r.exit_code == 0, r.output
    for page in (client.get("/dashboard", params={**day, "min_games": 1}).text, out.read_text(encoding="utf-8")):
        section = page.split('id="cards"')[1]
        assert not [c for c in in_hand if c in section] and all(r["card"] in section for r in cast)
        assert "win rate when played" in section and "gih_" not in section and "gns_" not in section


def test_zx_view_of_an_x610z_match_writes_the_same_bytes_whatever_the_hash_seed(mixed, tmp_path):
    """An X610Z view listed its card names in a set's order, which follows PYTHONHASHSEED: two runs of zx view
    of one match wrote two different files (Z/X's were already the same)."""
    import os
    import subprocess
    import sys

    store, _ = mixed
    out = []
    for seed in ("1", "2"):
        path = tmp_path / f"seed-{seed}.html"
        subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", store, "view", MATCH, "--as", "P1",
                        "-o", str(path)], cwd=ROOT, check=True, capture_output=True,
                       env=dict(os.environ, PYTHONHASHSEED=seed))
        out.append(path.read_bytes())
    assert out[0] == out[1]
