"""A finished match's result is said in the game's words (``Game.reasons``, as the match page and the API say
it) by zx replay's board and by zx view's board in Chromium, in both games: it read the engine's key
(``Result: P2 (life_base)``, ``Match over: P2 won (life_base)``). A draw says "a draw" once: the line says "a draw by
...", and the reason's words said it again (``a draw by the time limit (a draw, 106.1a)``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events import games
from zx_events.games.x610z.sim import simulate

ROOT = Path(__file__).resolve().parents[2]
X610Z = ("x610z-sim-7-0264", "examples/x610z/legal/life-base-destroyed.x610zlog",
         "P2 won by taking the other Life Base out of play (210.8)")
ZX = ("sim-1-0137", "examples/legal/range-attacks-win-by-life.zxlog",
      "won by damage with no Life left (a player with 0 Life loses)")
DRAW = ("x610z-time-draw", "a draw by the time limit (106.1a)")  # (a log the store fixture writes)
RELOAD = ("r37-reload-last-life", "tests/data/zx-loss-reload-takes-last-life.zxlog",
          "won: P1 has no Life left (a Reload put their last Life card into the Charge)")  # (digest.13: no damage;
# the loser named, round 37: "P2 won: no Life left" read as if the winner had none)
PC_SLEEP = "r37-pc-sleep"  # P2's effect puts P1's Player card to Sleep in turn 2 (302.2, digest.13)
CONCEDE = "r38-concede-turn-1"  # P1 concedes in its first turn: P2 wins by concession, in 1 turn


def pc_sleep_log(folder: Path) -> Path:
    """examples/legal/first-turns.zxlog to P2's Main Phase of turn 2 (its first 13 lines), then P2's effect sleeping
    P1's Player card on b1, then P2's end of turn."""
    lines = [json.loads(x) for x in (ROOT / "examples/legal/first-turns.zxlog").read_text("utf-8").splitlines() if x]
    records = lines[:13] + [{"do": "effect", "by": "P2", "source": "b3", "op": "sleep", "target": "player",
                             "square": "b1"}, {"do": "end", "by": "P2"}]
    records[0] = {**records[0], "match": PC_SLEEP}
    path = folder / "pc-sleep.zxlog"
    path.write_text("".join(json.dumps(x) + "\n" for x in records), encoding="utf-8")
    return path


def concede_log(folder: Path) -> Path:
    """examples/legal/first-turns.zxlog to P1's second play of turn 1, then P1 concedes."""
    lines = [json.loads(x) for x in (ROOT / "examples/legal/first-turns.zxlog").read_text("utf-8").splitlines() if x]
    records = lines[:7] + [{"do": "concede", "by": "P1"}]
    records[0] = {**records[0], "match": CONCEDE}
    path = folder / "concede.zxlog"
    path.write_text("".join(json.dumps(x) + "\n" for x in records), encoding="utf-8")
    return path


def time_draw_log(folder: Path) -> Path:
    """A simulated X610Z match cut after turn 1's first records, then a time-limit draw (106.1a)."""
    sim = next(simulate(1, 5))
    header = {**sim.header, "match": DRAW[0]}
    records = list(sim.records[:12]) + [{"do": "result", "by": "P1", "winner": None, "reason": "time"}]
    path = folder / "time-draw.x610zlog"
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *records]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("reasons")
    path = str(folder / "events.sqlite")
    for log in [ROOT / log for _, log, _ in (X610Z, ZX, RELOAD)] + [time_draw_log(folder), pc_sleep_log(folder),
                                                                  concede_log(folder)]:
        r = CliRunner().invoke(zx, ["--store", path, "import", str(log)],
                               env={"ZX_ANALYTICS": str(folder / "events.duckdb")})
        assert r.exit_code == 0, r.output
    return path


def test_zx_replay_says_the_result_in_the_games_words(store):
    for match, _, words in (X610Z, ZX, RELOAD):
        r = CliRunner().invoke(zx, ["--store", store, "replay", match, "--as", "spectator"], env={"COLUMNS": "200"})
        assert r.exit_code == 0, r.output
        line = next(x for x in r.stdout.splitlines() if x.startswith(("Result: ", "Match over: ")))
        assert line.endswith(words), line
        assert "life_base" not in line and "(life)" not in line


def test_each_boards_reasons_are_the_games():
    for key in ("zx", "x610z"):
        js = (Path(games.__file__).parent / key / "web" / "board.js").read_text(encoding="utf-8")
        table = re.search(r"var REASONS = \{(.*?)\};", js, re.S).group(1)
        assert dict(re.findall(r'(\w+): "([^"]+)"', table)) == dict(games.get(key).reasons), key
    from zx_events.games.zx.rules import LAST_LIFE

    js = (Path(games.__file__).parent / "zx" / "web" / "board.js").read_text(encoding="utf-8")
    table = re.search(r"var LAST_LIFE = \{(.*?)\};", js, re.S).group(1)
    assert dict(re.findall(r'(\w+): "([^"]+)"', table)) == LAST_LIFE


@pytest.mark.parametrize("match, log, words", [X610Z, ZX, RELOAD])
def test_zx_views_board_says_the_result_in_the_games_words_in_chromium(browser, store, tmp_path, match, log,
                                                                        words):
    out = tmp_path / "m.html"
    r = CliRunner().invoke(zx, ["--store", store, "view", match, "--as", "spectator", "-o", str(out)])
    assert r.exit_code == 0, r.output
    browser.get(out.as_uri())
    browser.execute_script("zxViewer.go(zxViewer.data.last)")
    text = browser.find_element("css selector", "[data-field=outcome]").text
    assert text.startswith("Match over: ") and text.endswith(words), text


def test_each_games_reasons_do_not_say_a_draw_again():
    """The result line says "a draw by {reason}" itself (render.py, board.js): no reason says it too."""
    for key in ("zx", "x610z"):
        for reason, words in games.get(key).reasons.items():
            assert not re.search(r"\bdraw\b", words), (key, reason, words)


def test_zx_replay_says_a_draw_once(store):
    r = CliRunner().invoke(zx, ["--store", store, "replay", DRAW[0], "--as", "spectator"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert [x for x in r.stdout.splitlines() if x.startswith("Result: ")] == [f"Result: {DRAW[1]}"]


def test_zx_views_board_says_a_draw_once_in_chromium(browser, store, tmp_path):
    out = tmp_path / "m.html"
    r = CliRunner().invoke(zx, ["--store", store, "view", DRAW[0], "--as", "spectator", "-o", str(out)])
    assert r.exit_code == 0, r.output
    browser.get(out.as_uri())
    browser.execute_script("zxViewer.go(zxViewer.data.last)")
    assert browser.find_element("css selector", "[data-field=outcome]").text == f"Match over: {DRAW[1]}"


@pytest.mark.parametrize("seat", ["P1", "P2", "spectator"])
def test_zx_views_board_shows_a_player_cards_sleep_in_chromium(browser, store, tmp_path, seat):
    """302.2 (digest.13): a Player card put to Sleep by an effect is Sleep on its Player Square and in its player's
    panel, for every seat (the terminal said so; the viewer drew it Reboot)."""
    out = tmp_path / "m.html"
    r = CliRunner().invoke(zx, ["--store", store, "view", PC_SLEEP, "--as", seat, "-o", str(out)])
    assert r.exit_code == 0, r.output
    browser.get(out.as_uri())
    browser.execute_script("zxViewer.go(zxViewer.data.last)")
    states = browser.find_elements("css selector", "[data-field=pc_state]")
    assert [e.text for e in states] == ["Sleep"], [e.text for e in states]  # (P1's alone)
    panels = {e.get_attribute("data-player"): e.find_element("css selector", ".pc").text
              for e in browser.find_elements("css selector", "section.player")}
    assert panels["P1"].endswith("(Sleep)") and not panels["P2"].endswith("(Sleep)"), panels


@pytest.fixture(scope="module")
def client(store):
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    analytics = str(Path(store).parent / "events.duckdb")
    with TestClient(create_app(store, analytics=analytics), raise_server_exceptions=False) as c:
        yield c


def test_a_loss_by_a_reload_says_so_on_the_match_page_the_api_and_the_match_list(client, store):
    """A loss whose last Life card went by a Reload (MatchEnded's ``how``, digest.13) is no damage: the match page
    and /api/matches/{id} said "by damage with no Life left", and ``how`` was in neither the API's result nor
    zx matches --format json. A loss by damage (no ``how``) reads as before. QA round 37: `R-reload-noresult`."""
    detail = client.get(f"/api/matches/{RELOAD[0]}").json()["result"]
    assert detail["how"] == "reload" and detail["reason"] == "life"
    assert detail["reason_text"] == "P1 has no Life left (a Reload put their last Life card into the Charge)"
    page = client.get(f"/matches/{RELOAD[0]}").text
    assert '<span id="reason">P1 has no Life left (a Reload put their last Life card into the Charge)</span>' \
        in page and "by <span" not in page
    detail = client.get(f"/api/matches/{ZX[0]}").json()["result"]
    assert "how" not in detail and detail["reason_text"] == "damage with no Life left (a player with 0 Life loses)"
    assert 'by <span id="reason">damage with no Life left' in client.get(f"/matches/{ZX[0]}").text
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = {row["match"]: row for row in json.loads(r.stdout)}
    assert rows[RELOAD[0]]["how"] == "reload" and rows[RELOAD[0]]["reason"] == "life"
    assert "how" not in rows[ZX[0]] and "how" not in rows[DRAW[0]]  # (by damage; an X610Z draw)


def result_cells(page: str) -> dict[str, tuple[str, str | None]]:
    """The match list's result cell of each match: its text, and its reason's tooltip."""
    import html

    out = {}
    for match, cell in re.findall(r'<tr data-match="([^"]+)"[^>]*>.*?<td class="result[^"]*">(.*?)</td>', page, re.S):
        title = re.search(r'title="([^"]*)"', cell)
        out[match] = (html.unescape(re.sub(r"<[^>]+>", "", cell)), html.unescape(title.group(1)) if title else None)
    return out


def test_the_match_list_says_each_result_in_the_games_short_words_with_the_whole_as_its_tooltip(client):
    """The list wrote the engine's keys, "P2 won (life)", "won (ending_dot)", and "won (concede)", which read as if the
    winner had conceded (QA round 38): the game's short words (``Game.reason_label``), the match page's whole words
    as the tooltip, on the list and on a player's side of it; JSON keeps the key."""
    cells = result_cells(client.get("/matches").text)
    assert cells[CONCEDE] == ("P2 won (by concession)", "concession")
    assert cells[ZX[0]][0].endswith(" won (no Life left)") and cells[ZX[0]][1] == \
        "damage with no Life left (a player with 0 Life loses)"
    assert cells[RELOAD[0]] == ("P2 won (no Life left)",
                                "P1 has no Life left (a Reload put their last Life card into the Charge)")
    x6 = games.get("x610z")
    assert cells[X610Z[0]] == (f"P2 won ({x6.reason_label('life_base')})", x6.reasons["life_base"])
    assert cells[DRAW[0]] == (f"draw ({x6.reason_label('time')})", x6.reasons["time"])
    assert cells[PC_SLEEP] == ("—", None)
    for text, title in cells.values():  # never an engine's key
        assert not re.search(r"\((life|concede|life_base|ending_dot|time|deck_out)\)", text), text
    mine = result_cells(client.get("/matches", params={"player": "Aki"}).text)  # (P1 of first-turns.zxlog)
    assert mine[CONCEDE] == ("lost (by concession)", "concession")
    rows = {r["match"]: r for r in client.get("/api/matches", params={"limit": 500}).json()["matches"]}
    assert (rows[CONCEDE]["reason"], rows[X610Z[0]]["reason"], rows[ZX[0]]["reason"]) == ("concede", "life_base", "life")


def test_the_match_page_says_one_turn_and_its_reason_has_no_key_for_a_tooltip(client):
    """"1 turns" (QA round 38), and the reason's tooltip was the engine's key (``title="life"``); "has 1 turns" in
    /view's range error and "Data (1 rows)" under a dashboard's chart likewise."""
    page = client.get(f"/matches/{CONCEDE}").text
    assert re.search(r"by <span id=\"reason\">concession</span> · 1 turn · \d+ events", page), page
    assert 'title="concede"' not in page and 'title="life"' not in client.get(f"/matches/{ZX[0]}").text
    said = client.get(f"/api/matches/{CONCEDE}/view", params={"turn": 3}).json()["error"]  # (and the API's range)
    assert said == f"match {CONCEDE} has 1 turn: turn must be 1..1", said
    page = client.get("/dashboard", params={"game": "zx", "player": "Aki", "min_games": 1}).text  # (one deck)
    counts = re.findall(r"Data \((\d+) (rows?)\)", page)
    assert ("1", "row") in counts and all((n == "1") == (word == "row") for n, word in counts), counts


def test_each_games_short_reasons_are_words_for_every_reason():
    """Every reason a game names has short words (its own, or its whole words without the rule's number)."""
    for key in ("zx", "x610z"):
        game = games.get(key)
        for reason in game.reasons:
            label = game.reason_label(reason)
            assert label and label != reason and "(" not in label, (key, reason, label)
    assert games.get("zx").reason_label("concede") == "by concession"
    assert [games.get("x610z").reason_label(r) for r in ("ending_dot", "life_base", "deck_out")] == \
        ["Ending Dot", "Life Base out of play", "deck out"]  # (short, as a list's cell; its whole words were long)
    assert games.get("zx").reason_label("a log's own words") == "a log's own words"

