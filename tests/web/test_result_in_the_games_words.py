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
         "P2 won by destroying the other Life Base (210.8)")
ZX = ("sim-1-0137", "examples/legal/range-attacks-win-by-life.zxlog",
      "won by damage with no Life left (a player with 0 Life loses)")
DRAW = ("x610z-time-draw", "a draw by the time limit (106.1a)")  # (a log the store fixture writes)


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
    for log in [ROOT / log for _, log, _ in (X610Z, ZX)] + [time_draw_log(folder)]:
        r = CliRunner().invoke(zx, ["--store", path, "import", str(log)],
                               env={"ZX_ANALYTICS": str(folder / "events.duckdb")})
        assert r.exit_code == 0, r.output
    return path


def test_zx_replay_says_the_result_in_the_games_words(store):
    for match, _, words in (X610Z, ZX):
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


@pytest.mark.parametrize("match, log, words", [X610Z, ZX])
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
