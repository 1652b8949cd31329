"""The match list's player and deck filters (``zx matches``, ``/api/matches``, the ``/matches`` page), QA round 35:

- with a player, the deck is that player's side (``zx stats --player P --deck D`` counts so): the list counted the
  matches where the opponent played the deck too (421 against the statistics' 325);
- a name no stored match has is said, with the closest names (the CLI's words; a 400 with ``suggestions`` from the
  API; a line above the empty list with links on the page), where the API and the page said "0 matches"; outside
  the judge's view the names suggested are the list's, masked (a guess of a hidden card is answered as any other).

One small store of hand-written headers over one finished example match, with its analytics file.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "legal" / "range-attacks-win-by-life.zxlog"
REN, HIDDEN = "佐藤 蓮", "Aki U01-003"  # (U01-003: a card's code, masked outside the judge's view)
MATCHES = {  # match: (P1, P1's deck, P2, P2's deck)
    "g0": (REN, "Black Reapers", "Mio", "Red Dragons"),
    "g1": ("Mio", "Black Reapers", REN, "Blue Control"),  # the opponent played Black Reapers
    "g2": (HIDDEN, "Black Reapers", REN, "Black Reapers"),  # a mirror
    "g3": (REN, "Blue Control", HIDDEN, "Red Dragons"),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    folder = tmp_path_factory.mktemp("list-names")
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    logs = []
    for match, (p1, d1, p2, d2) in MATCHES.items():
        header = json.loads(lines[0])
        header["match"] = match
        header["players"]["P1"].update(name=p1, deck_name=d1)
        header["players"]["P2"].update(name=p2, deck_name=d2)
        logs.append(folder / f"{match}.zxlog")
        logs[-1].write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    store, analytics = str(folder / "s.sqlite"), folder / "s.duckdb"
    r = CliRunner().invoke(zx, ["--store", store, "import", *map(str, logs)], env={"ZX_ANALYTICS": str(analytics)})
    assert r.exit_code == 0, r.output
    return store, analytics


def cli(store, *args: str):
    path, analytics = store
    return CliRunner().invoke(zx, ["--store", path, *args], env={"ZX_ANALYTICS": str(analytics)})


def listed(store, *args: str) -> list[str]:
    r = cli(store, "matches", *args, "--format", "json")
    assert r.exit_code == 0, r.output
    return [m["match"] for m in json.loads(r.stdout)]


def stats_games(store, player: str, deck: str) -> int:
    """The games ``zx stats winrates --by player`` counts for ``player`` playing ``deck`` (0: no row). By player,
    as mirror pairings are left out of the win rates by deck only (the list counts a mirror: the player played
    the deck)."""
    r = cli(store, "stats", "winrates", "--by", "player", "--player", player, "--deck", deck, "--min-games", "1",
            "--format", "json")
    assert r.exit_code == 0, r.output
    return sum(row["games"] for row in json.loads(r.stdout)) if r.stdout.strip() else 0


@pytest.mark.parametrize("player", [REN, "Mio", HIDDEN])
@pytest.mark.parametrize("deck", ["Black Reapers", "Blue Control", "Red Dragons"])
def test_with_a_player_the_deck_is_that_players_side_as_the_statistics_count_it(store, clients, player, deck):
    """g1 (the opponent's Black Reapers) was listed for 佐藤 蓮 + Black Reapers: 3 matches, the statistics 2."""
    c, j = clients
    got = listed(store, "--player", player, "--deck", deck)
    assert len(got) == stats_games(store, player, deck)
    assert got == [m for m, (p1, d1, p2, d2) in MATCHES.items() if (player, deck) in ((p1, d1), (p2, d2))]
    api = j.get("/api/matches", params={"player": player, "deck": deck}).json()
    assert [m["match"] for m in api["matches"]] == got
    page = j.get("/matches", params={"player": player, "deck": deck}, headers={"accept": "text/html"}).text
    assert re.findall(r'<tr data-match="([^"]+)"', page) == got


def test_the_deck_alone_and_the_winner_stay_either_side(store, clients):
    assert listed(store, "--deck", "Black Reapers") == ["g0", "g1", "g2"]
    assert listed(store, "--player", REN, "--deck", "Black Reapers") == ["g0", "g2"]
    assert listed(store, "--player", REN, "--deck", "black reapers") == ["g0", "g2"]  # (any case, as before)
    # --winner NAME is the match's winner (P2 won each), whoever played the deck
    assert listed(store, "--player", REN, "--deck", "Black Reapers", "--winner", "Mio") == ["g0"]
    assert listed(store, "--player", REN, "--deck", "Black Reapers", "--winner", REN) == ["g2"]
    assert listed(store, "--player", "Mio", "--winner", REN) == ["g1"]
    c, _ = clients
    assert c.get("/api/matches", params={"deck": "Black Reapers"}).json()["total"] == 3


def test_an_unknown_player_says_so_with_the_closest_names_in_the_cli_the_api_and_the_page(store, clients):
    c, j = clients
    r = cli(store, "matches", "--player", "佐藤蓮")
    assert r.exit_code == 1 and r.output.strip() == "Error: no player named '佐藤蓮' in the store; did you mean '佐藤 蓮'?"
    for client in (c, j):
        got = client.get("/api/matches", params={"player": "佐藤蓮", "since": "2026-01-01"})
        assert got.status_code == 400, got.text
        assert got.json() == {"error": "no player named '佐藤蓮' in the store; did you mean '佐藤 蓮'?", "status": 400,
                              "filter": "player", "suggestions": [REN]}
    page = c.get("/matches", params={"player": "佐藤蓮", "since": "2026-01-01"}, headers={"accept": "text/html"})
    assert page.status_code == 400
    line = re.search(r'<p class="error" role="alert" id="unknown-filter">(.*?)</p>', page.text, re.S).group(1)
    assert unescape(line).startswith("no player named '佐藤蓮' in the store; did you mean '佐藤 蓮'?")
    (href,) = re.findall(r'<a href="([^"]+)" class="suggestion">', line)
    assert parse_qs(urlsplit(unescape(href)).query) == {"player": [REN], "since": ["2026-01-01"]}  # (the rest kept)
    followed = c.get(unescape(href), headers={"accept": "text/html"})
    assert followed.status_code == 200 and 'id="unknown-filter"' not in followed.text
    assert re.findall(r'<tr data-match="([^"]+)"', followed.text) == ["g0", "g1", "g2", "g3"]
    # a deck, an event and a winner's name alike; a known name matching nothing is no error
    assert "did you mean 'Black Reapers'?" in c.get("/api/matches", params={"deck": "Black Reaper"}).json()["error"]
    assert c.get("/api/matches", params={"winner": "Mioo"}).json()["suggestions"] == ["Mio"]
    assert c.get("/api/matches", params={"event": "Sim Leage"}).json()["filter"] == "event"
    nothing = c.get("/api/matches", params={"player": "Mio", "deck": "Blue Control"})
    assert nothing.status_code == 200 and nothing.json()["total"] == 0
    assert c.get("/api/matches", params={"player": REN, "game": "x610z"}).json()["error"] == (
        "no player named '佐藤 蓮' in the X610Z matches; the store has no X610Z matches yet")


def test_outside_the_judges_view_a_suggestion_never_names_a_hidden_card(clients):
    """A right and a wrong guess of the card in "Aki U01-003" get one answer, naming the masked name as listed."""
    c, j = clients
    answers = [c.get("/api/matches", params={"player": guess}) for guess in (HIDDEN, "Aki U01-004")]
    assert [a.status_code for a in answers] == [400, 400]
    assert answers[0].json() == answers[1].json() == {
        "error": "no player named 'Aki [card]' in the store; did you mean 'Aki [card]'?", "status": 400,
        "filter": "player", "suggestions": ["Aki [card]"]}
    right, wrong = (c.get("/matches", params={"player": guess}, headers={"accept": "text/html"}).text
                    for guess in (HIDDEN, "Aki U01-004"))
    assert "U01-003" not in wrong and 'class="suggestion">Aki [card]</a>' in wrong
    assert right.replace("U01-003", "X") == wrong.replace("U01-004", "X")  # (the form shows the name typed)
    assert c.get("/api/matches", params={"player": "Aki [card]"}).json()["total"] == 2  # the suggestion lists them
    assert j.get("/api/matches", params={"player": "Aki U01-004"}).json()["suggestions"] == [HIDDEN]
