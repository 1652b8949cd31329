"""zx matches for a coach (QA round 36, compared with HSReplay, lichess, 17lands): --opponent and --opp-deck (a
head-to-head), the player's side with --player (seat, deck, opponent, the opponent's deck, result), --sort
newest|oldest|store, and the columns a narrow terminal keeps (the players and the winner). The store of
tests/head_to_head_support.py."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from head_to_head_support import MATCHES, MIO, REN, build
from zx_cli.main import zx


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build(tmp_path_factory.mktemp("h2h"))[0]


def run(store, *args: str, env: dict | None = None):
    return CliRunner().invoke(zx, ["--store", store, "matches", *args], env=env)


def rows(store, *args: str) -> list[dict]:
    r = run(store, *args, "--format", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def ids(store, *args: str) -> list[str]:
    return [m["match"] for m in rows(store, *args)]


def test_opponent_alone_and_with_a_player_and_decks(store):
    assert ids(store, "--opponent", MIO) == ["h1", "h2", "h5", "h6", "h7"]  # every match Mio played
    assert ids(store, "--player", REN, "--opponent", MIO) == ["h1", "h2", "h5", "h6"]
    assert ids(store, "--player", "ren tanaka", "--opponent", "MIO SATO") == ["h1", "h2", "h5", "h6"]  # any case
    # --deck stays the player's side; --opp-deck is the side facing them
    assert ids(store, "--player", REN, "--opponent", MIO, "--deck", "Black Reapers") == ["h1", "h2"]
    assert ids(store, "--player", REN, "--opp-deck", "Red Dragons") == ["h1", "h6"]
    assert ids(store, "--player", REN, "--deck", "Red Dragons", "--opp-deck", "Blue Control") == ["h3"]
    # without --player: the side facing the opponent played the deck
    assert ids(store, "--opponent", MIO, "--deck", "Black Reapers") == ["h1", "h2"]
    assert ids(store, "--opp-deck", "Blue Control") == ["h2", "h3", "h4", "h7"]  # either side's opponent
    r = run(store, "--player", REN, "--opponent", "Aki Mori", "--deck", "Green Beasts")
    assert r.exit_code == 0 and "no stored match matches these filters" in r.output


@pytest.mark.parametrize("args,message", [
    (["--opponent", "Mio Sat"], "Error: no player named 'Mio Sat' in the store; did you mean 'Mio Sato'?"),
    (["--player", REN, "--opponent", "Mioo Sato"],
     "Error: no player named 'Mioo Sato' in the store; did you mean 'Mio Sato'?"),
    (["--opp-deck", "Red Dragon"], "Error: no deck named 'Red Dragon' in the store; did you mean 'Red Dragons'?"),
])
def test_an_unknown_opponent_or_deck_names_the_closest(store, args, message):
    r = run(store, *args)
    assert r.exit_code == 1 and r.output.strip() == message


def test_with_a_player_each_match_is_seen_from_their_side(store):
    got = rows(store, "--player", REN, "--opponent", MIO)
    assert [(m["match"], m["seat"], m["deck"], m["opponent"], m["opp_deck"], m["result"]) for m in got] == [
        ("h1", "P1", "Black Reapers", MIO, "Red Dragons", "lost"),
        ("h2", "P2", "Black Reapers", MIO, "Blue Control", "won"),
        ("h5", "P2", "Red Dragons", MIO, "Green Beasts", "none"),  # no result recorded
        ("h6", "P1", "Green Beasts", MIO, "Red Dragons", "lost")]
    # the summary's own fields are kept in JSON (a script reading p1, p2, winner still reads them)
    assert {k: got[0][k] for k in ("p1", "p2", "winner", "played_at")} == {
        "p1": REN, "p2": MIO, "winner": "P2", "played_at": "2026-03-10T10:00:00+09:00"}
    r = run(store, "--player", REN, "--opponent", MIO, "--format", "csv")
    table = list(csv.reader(io.StringIO(r.stdout)))
    assert table[0] == ["match", "played_at", "event", "seat", "deck", "opponent", "opp_deck", "turns", "result",
                        "reason", "violations", "game"]
    assert [(t[0], t[5], t[8]) for t in table[1:]] == [("h1", MIO, "lost"), ("h2", MIO, "won"), ("h5", MIO, "none"),
                                                       ("h6", MIO, "lost")]
    assert [m["result"] for m in rows(store, "--player", MIO, "--opponent", REN)] == ["won", "lost", "none", "won"]
    # without --player, the list is as before (P1 and P2)
    assert "result" not in rows(store, "--opponent", MIO)[0]


def test_sort_newest_and_oldest_by_the_moment_played(store):
    # h2 and h5 were played at one moment (store order); h7 (20:00 UTC) is after h6 (01:00+09:00 = 16:00 UTC)
    # although its text reads earlier; h4 has no date: last either way
    assert ids(store, "--sort", "newest") == ["h2", "h5", "h3", "h1", "h7", "h6", "h4"]
    assert ids(store, "--sort", "oldest") == ["h6", "h7", "h1", "h3", "h2", "h5", "h4"]
    assert ids(store, "--sort", "store") == ids(store) == list(MATCHES)  # the default: as stored
    assert ids(store, "--sort", "NEWEST", "--limit", "3") == ["h2", "h5", "h3"]  # the 3 latest, not the first 3
    assert ids(store, "--player", REN, "--sort", "newest", "--limit", "2") == ["h2", "h5"]
    r = run(store, "--sort", "latest")
    assert r.exit_code == 2 and "'latest' is not one of 'store', 'newest', 'oldest'" in r.output


@pytest.mark.parametrize("width", [80, 100, 160])
def test_a_narrow_table_keeps_the_players_and_the_winner(store, width):
    r = run(store, env={"COLUMNS": str(width)})
    assert r.exit_code == 0, r.output
    header = next(line for line in r.stdout.splitlines() if "match" in line)
    shown = [cell.strip() for cell in header.strip("┃ ").split("┃")]
    assert {"match", "p1", "p2", "winner"} <= set(shown), shown
    if width >= 100:
        assert {"p1_deck", "p2_deck"} <= set(shown), shown
    if width >= 160:
        assert set(shown) >= {"played_at", "event", "turns", "reason", "violations"}
    r = run(store, "--player", REN, env={"COLUMNS": str(width)})
    header = next(line for line in r.stdout.splitlines() if "match" in line)
    shown = [cell.strip() for cell in header.strip("┃ ").split("┃")]
    assert {"match", "opponent", "result", "deck", "opp_deck"} <= set(shown), shown


def test_zx_stats_opponent_counts_the_head_to_head_the_list_lists(tmp_path):
    """`zx stats winrates --player P --opponent O` (and /api/stats' opponent=): P's record against O, the matches
    `zx matches --player P --opponent O` lists (the find helper left stats without it: its file was another's)."""
    import json as _json

    from click.testing import CliRunner

    from zx_cli.main import zx

    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "simulate", "-n", "30", "--seed", "5", "-o", str(tmp_path / "logs")])
    assert r.exit_code == 0, r.output
    assert CliRunner().invoke(zx, ["--store", str(store), "import", str(tmp_path / "logs")]).exit_code == 0
    rows = _json.loads(CliRunner().invoke(zx, ["--store", str(store), "matches", "--format", "json"]).stdout)
    pairs = {}
    for m in rows:
        if m["winner"] in ("P1", "P2"):
            pairs.setdefault((m["p1"], m["p2"]), []).append(m)
    (p, o), _ = max(pairs.items(), key=lambda kv: len(kv[1]))
    listed = _json.loads(CliRunner().invoke(zx, ["--store", str(store), "matches", "--player", p, "--opponent", o,
                                                 "--format", "json"]).stdout)
    finished = [m for m in listed if m["result"] in ("won", "lost")]
    r = CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates", "--by", "player", "--player", p,
                                "--opponent", o, "--min-games", "1", "--format", "json"])
    assert r.exit_code == 0, r.output
    (row,) = _json.loads(r.stdout)
    assert (row["games"], row["wins"]) == (len(finished), sum(m["result"] == "won" for m in finished)), (row, listed)
    r = CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates", "--opponent", "Nobody At All"])
    assert r.exit_code == 1 and "no player named 'Nobody At All'" in r.output, r.output
