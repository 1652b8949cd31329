"""The player's record in the match list (round 37): with a player filter, `zx matches` says on stderr, `/api/matches`
answers as `records`, and the /matches page says above its table the player's wins, losses and draws of every match
kept (not the page alone), with the win rate and its Wilson 95% interval, one a game, counted as `zx stats winrates
--by player` counts them (a coach looking at a player's or a head-to-head list had to count the rows, or ask the
statistics again)."""

from __future__ import annotations

import html
import json

import pytest
from click.testing import CliRunner

from zx_cli.main import zx


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("record")
    runner = CliRunner()
    for args in (["--matches", "40", "--seed", "11", "--policy", "mixed", "--max-turns", "12"],
                 ["--game", "x610z", "--matches", "6", "--seed", "2"]):
        r = runner.invoke(zx, ["simulate", *args, "--out", str(folder / "logs")])
        assert r.exit_code == 0, r.output
    # a player of both games: the X610Z simulator's P1 named as a Z/X player
    name = json.loads(next((folder / "logs").glob("*.zxlog")).read_text(encoding="utf-8").splitlines()[0])[
        "players"]["P1"]["name"]
    for log in (folder / "logs").glob("*.x610zlog"):
        head, rest = log.read_text(encoding="utf-8").split("\n", 1)
        header = json.loads(head)
        header["players"]["P1"]["name"] = name
        log.write_text(json.dumps(header, ensure_ascii=False) + "\n" + rest, encoding="utf-8")
    store = str(folder / "s.sqlite")
    r = runner.invoke(zx, ["--store", store, "import", str(folder / "logs")])
    assert r.exit_code == 0, r.output
    return store


def run(store: str, *args: str):
    r = CliRunner().invoke(zx, ["--store", store, *args])
    assert r.exit_code == 0, r.output
    return r


def winrates(store: str, game: str, *args: str) -> dict:
    (row,) = json.loads(run(store, "stats", "winrates", "--by", "player", "--game", game, "--min-games", "1",
                            "--format", "json", *args).stdout)
    return row


def players(store: str, game: str) -> list[str]:
    return sorted({m[k] for m in json.loads(run(store, "matches", "--game", game, "--format", "json").stdout)
                   for k in ("p1", "p2")})


def test_the_record_is_the_one_zx_stats_counts_for_every_player(store):
    from zx_events.matchlist import MatchFilters, kept, records

    rows = json.loads(run(store, "matches", "--format", "json").stdout)
    seen_none = False
    for game in ("zx", "x610z"):
        for name in players(store, game):
            (rec,) = records(kept(rows, MatchFilters(game=game, player=name)))
            stats = winrates(store, game, "--player", name)
            assert (rec["games"], rec["won"], rec["lost"], rec["drawn"]) == \
                (stats["games"], stats["wins"], stats["losses"], stats["draws"]), (game, name)
            assert (rec["win_rate"], rec["win_rate_low"], rec["win_rate_high"]) == \
                pytest.approx((stats["win_rate"], stats["win_rate_low"], stats["win_rate_high"])), (game, name)
            seen_none = seen_none or rec["none"] > 0
    assert seen_none  # (--max-turns 12: some matches stop without a result, and are no game)


def test_zx_matches_says_the_record_on_stderr_with_the_names_as_stored(store):
    name = players(store, "zx")[0]
    rival = next(m["opponent"] for m in json.loads(run(store, "matches", "--game", "zx", "--player", name,
                                                       "--format", "json").stdout))
    stats = winrates(store, "zx", "--player", name, "--opponent", rival)
    r = run(store, "matches", "--game", "zx", "--player", name.upper(), "--opponent", rival.lower(), "--format", "csv")
    rate = (f"win rate {100 * stats['win_rate']:.1f}% (95% interval {100 * stats['win_rate_low']:.1f}-"
            f"{100 * stats['win_rate_high']:.1f})") if stats["games"] else ""
    line = next(ln for ln in r.stderr.splitlines() if ln.startswith("record: "))
    assert line.startswith(f"record: {name} against {rival}: {stats['wins']} won, {stats['losses']} lost, "
                           f"{stats['draws']} drawn of {stats['games']} game"), line
    assert rate in line
    assert "record" not in r.stdout  # (the table and its formats unchanged)


def test_with_limit_the_record_is_of_every_match_kept(store):
    name = players(store, "zx")[0]
    whole = [ln for ln in run(store, "matches", "--game", "zx", "--player", name).stderr.splitlines()
             if ln.startswith("record: ")]
    limited = [ln for ln in run(store, "matches", "--game", "zx", "--player", name, "--limit", "1").stderr.splitlines()
               if ln.startswith("record: ")]
    assert limited[0].startswith(whole[0]) and "--limit lists 1)" in limited[0], (whole, limited)


def test_one_record_a_game_never_mixed(store):
    both = sorted(set(players(store, "zx")) & set(players(store, "x610z")))
    assert both  # (the fixture names X610Z's P1 as a Z/X player)
    r = run(store, "matches", "--player", both[0])
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("record: ")]
    assert len(lines) == 2 and any("(Z/X" in ln for ln in lines) and any("(X610Z" in ln for ln in lines), lines


def test_no_record_without_a_player_or_with_a_winner_filter(store):
    name = players(store, "zx")[0]
    for args in ((), ("--opponent", name), ("--player", name, "--winner", "P1")):
        assert "record: " not in run(store, "matches", "--game", "zx", *args).stderr, args


def test_the_api_and_the_page_give_the_record(store):
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    name = players(store, "zx")[0]
    stats = winrates(store, "zx", "--player", name)
    with TestClient(create_app(store)) as c:
        answer = c.get("/api/matches", params={"game": "zx", "player": name, "limit": 1}).json()
        (rec,) = answer["records"]
        assert len(answer["matches"]) == 1 and rec["games"] == stats["games"] and rec["won"] == stats["wins"]
        assert "records" not in c.get("/api/matches", params={"game": "zx"}).json()
        assert "records" not in c.get("/api/matches", params={"player": name, "winner": "P2"}).json()
        page = html.unescape(c.get("/matches", params={"game": "zx", "player": name.lower()},
                                   headers={"Accept": "text/html"}).text)
        assert f'<p class="record" id="record">{name}: {stats["wins"]} won, {stats["losses"]} lost' in page, page[:4000]
        assert 'class="record"' not in c.get("/matches", params={"game": "zx"}, headers={"Accept": "text/html"}).text
