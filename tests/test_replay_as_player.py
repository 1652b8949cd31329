"""``zx replay MATCH --as NAME`` and ``zx view MATCH --as NAME``: a player's point of view by his name (a coach
opens a replay from his student's side, as HSReplay opens one from the uploader's), in any case and width as
``zx matches --player`` compares names; the seat words win; a name of both players, or of neither, is a usage
error that says what to give (QA round 36)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parents[1]
ZX_LOG = ROOT / "examples" / "legal" / "first-turns.zxlog"  # hand-first-turns-001: P1 Aki, P2 Ren
X610Z_LOG = ROOT / "examples" / "x610z" / "legal" / "life-base-destroyed.x610zlog"  # P1 'P1 bot', P2 'P2 bot'

# match id -> (P1's name, P2's name), each a copy of first-turns.zxlog
RENAMED = {"pov-ja": ("Aki", "佐藤 蓮"),  # a Japanese name, typed in another width and case below
           "pov-same": ("Aki", "aki"),  # one name, in two cases
           "pov-seat-word": ("p2", "Ren"),  # a player named as the other seat
           "pov-masked": ("Aki", "Ren R01-001")}  # a name a seat that is not the judge's sees masked ([card])


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("as-player")
    lines = ZX_LOG.read_text(encoding="utf-8").splitlines()
    for match, (p1, p2) in RENAMED.items():
        header = json.loads(lines[0])
        header["match"] = match
        header["players"]["P1"]["name"], header["players"]["P2"]["name"] = p1, p2
        (folder / f"{match}.zxlog").write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n",
                                               encoding="utf-8")
    path = str(folder / "s.sqlite")
    for logs in (str(folder), str(ZX_LOG), str(X610Z_LOG)):
        r = CliRunner().invoke(zx, ["--store", path, "import", "--no-analytics", logs])
        assert r.exit_code == 0, r.output
    return path


def run(store: str, *args: str, columns: int = 200):
    return CliRunner().invoke(zx, ["--store", store, *args], env={"COLUMNS": str(columns)})


def title(out: str) -> str:
    """The first step's title, without its rule's dashes."""
    return out.splitlines()[0].strip("─ ")


@pytest.mark.parametrize("match, name, seat, shown", [
    ("hand-first-turns-001", "ren", "P2", "Ren"),
    ("hand-first-turns-001", "AKI", "P1", "Aki"),
    ("pov-ja", "佐藤 蓮", "P2", "佐藤 蓮"),
    ("pov-ja", "佐藤\u3000蓮", "P2", "佐藤 蓮"),  # an ideographic space: NFKC, as zx matches --player reads it
    ("x610z-sim-7-0264", "p2 BOT", "P2", "P2 bot"),
])
def test_a_players_name_is_his_seat_said_in_the_title(store, match, name, seat, shown):
    """The board, JSON and CSV are the seat's, byte for byte, and the title says whose view it is."""
    for fmt in ("json", "csv"):
        by_name = run(store, "replay", match, "--turn", "1", "--as", name, "--format", fmt)
        by_seat = run(store, "replay", match, "--turn", "1", "--as", seat, "--format", fmt)
        assert by_name.exit_code == 0 and by_seat.exit_code == 0, by_name.output + by_seat.output
        assert by_name.stdout == by_seat.stdout
    assert json.loads(by_name_json(store, match, name))["perspective"] == seat  # the seat word, as before
    r = run(store, "replay", match, "--turn", "1", "--as", name)
    assert r.exit_code == 0, r.output
    assert title(r.stdout).endswith(f" · as {seat} ({shown})"), title(r.stdout)
    plain = run(store, "replay", match, "--turn", "1", "--as", seat)
    assert title(plain.stdout).endswith(f" · as {seat}")  # asked for by seat: as it was
    assert r.stdout.splitlines()[1:] == plain.stdout.splitlines()[1:]  # the rest is the seat's view


def by_name_json(store: str, match: str, name: str) -> str:
    r = run(store, "replay", match, "--as", name, "--format", "json")
    assert r.exit_code == 0, r.output
    return r.stdout


def test_the_title_names_the_player_as_his_seat_sees_him(store):
    """A name with a card code in it is masked for every seat but the judge's, the player's own too (docs/security.md):
    the title shows it as the board below it does, never the code."""
    r = run(store, "replay", "pov-masked", "--turn", "1", "--as", "ren r01-001")
    assert r.exit_code == 0, r.output
    assert title(r.stdout).endswith(" · as P2 (Ren [card])"), title(r.stdout)
    assert "Ren R01-001" not in r.stdout


@pytest.mark.parametrize("columns, want", [(60, "step 3 · turn 1 (P1) · Draw Phase · as P2 (佐藤 蓮)"),
                                           (40, "step 3 · turn 1 (P1) · as P2")])
def test_on_a_narrow_terminal_the_name_gives_way_after_the_phase(store, columns, want):
    r = run(store, "replay", "pov-ja", "--turn", "1", "--as", "佐藤 蓮", columns=columns)
    assert r.exit_code == 0, r.output
    assert title(r.stdout) == want, title(r.stdout)


def test_a_name_no_player_of_the_match_has_is_a_usage_error_naming_its_players(store):
    for command in (["replay", "pov-ja"], ["view", "pov-ja", "-o", "never.html"]):
        r = run(store, *command, "--as", "佐藤蓮")
        assert r.exit_code == 2, r.output
        assert ("Error: Invalid value for '--as': no player named '佐藤蓮' in match 'pov-ja' (its players are P1 'Aki' "
                "and P2 '佐藤 蓮'); give a player's name or a seat: 'judge', 'P1', 'P2', 'spectator' (in any case)"
                ) in r.stderr, r.stderr
        assert not r.stdout
    assert not Path("never.html").exists()
    r = run(store, "replay", "no-such-match", "--as", "Aki")  # the match first: unknown, exit 1 as before
    assert r.exit_code == 1 and "no-such-match" in r.stderr, r.stderr


def test_a_name_of_both_players_is_refused_asking_for_the_seat(store, tmp_path):
    for command in (["replay", "pov-same"], ["view", "pov-same", "-o", str(tmp_path / "m.html")]):
        r = run(store, *command, "--as", "AKI")
        assert r.exit_code == 2, r.output
        assert ("Invalid value for '--as': both players of match 'pov-same' are named 'Aki' and 'aki': give the seat, "
                "P1 or P2") in r.stderr, r.stderr
    assert not (tmp_path / "m.html").exists()
    assert run(store, "replay", "pov-same", "--as", "P2").exit_code == 0


@pytest.mark.parametrize("name, seat", [("Aki", "P1"), ("aki", "P2")])
def test_a_name_spelled_as_one_of_two_alike_is_that_players(store, name, seat):
    """The two players named 'Aki' and 'aki': the name spelled exactly as one of them is that one's seat (it was refused
    as both players', QA round 37); any other spelling of both ('AKI') still asks for the seat."""
    r = run(store, "replay", "pov-same", "--turn", "1", "--as", name, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["perspective"] == seat


def test_a_seat_word_is_the_seat_whoever_is_named_so(store):
    """P1 is named 'p2': ``--as p2`` is the seat P2 (Ren's), as documented; P1's player is asked for as P1."""
    r = run(store, "replay", "pov-seat-word", "--turn", "1", "--as", "p2")
    assert r.exit_code == 0, r.output
    assert title(r.stdout).endswith(" · as P2"), title(r.stdout)
    assert json.loads(by_name_json(store, "pov-seat-word", "p2"))["perspective"] == "P2"


def test_zx_view_as_a_name_writes_the_seats_file(store, tmp_path, monkeypatch):
    """The file's default name is the seat's (MATCH-P2.html), its content the seat's, the message names the player;
    a name and the seat it is are one seat."""
    monkeypatch.chdir(tmp_path)
    r = run(store, "view", "pov-ja", "--as", "佐藤 蓮", "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["seats"] == ["P2"] and json.loads(r.stdout)["file"] == "pov-ja-P2.html"
    assert "seats P2 (佐藤 蓮): open it in a browser" in r.stderr, r.stderr
    by_name = (tmp_path / "pov-ja-P2.html").read_bytes()
    (tmp_path / "pov-ja-P2.html").unlink()
    r = run(store, "view", "pov-ja", "--as", "P2", "--as", "佐藤 蓮", "--as", "aki", "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["seats"] == ["P1", "P2"], r.stdout
    assert "seats P1 (Aki), P2 (佐藤 蓮)" in r.stderr, r.stderr
    r = run(store, "view", "pov-ja", "--as", "P2", "-o", "by-seat.html")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "by-seat.html").read_bytes() == by_name


def test_the_help_lists_the_seats_and_a_name(store):
    for command in ("replay", "view"):
        r = run(store, command, "--help")
        assert "--as [judge|P1|P2|spectator]|NAME" in r.stdout, r.stdout
        assert "or a player's name" in " ".join(r.stdout.split())


def test_a_blank_as_is_still_refused(store):
    r = run(store, "replay", "pov-ja", "--as", " ")
    assert r.exit_code == 2
    assert "' ' is not one of 'judge', 'P1', 'P2', 'spectator' (in any case), nor a player's name." in r.stderr


def test_the_folding_is_the_match_lists(store):
    """``zx replay --as NAME`` folds a name as ``zx matches --player`` does: one function (``freetext.folded_name``)."""
    from zx_events.seats import folded_name
    from zx_events.matchlist import folded

    for text in ("Aki", "AKI", "佐藤\u3000蓮", "ﾀﾛｳ", "Ｒｅｎ", "José", "Jose\u0301", "\u202eAki\u202c", "あき",
                 "Straße"):
        assert folded_name(text) == folded(text), text


def test_the_http_api_takes_no_name(store):
    """A name is the CLI's only (its operator has the store): the API's ?as= is a seat, as before."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    with TestClient(create_app(store), raise_server_exceptions=False) as c:
        r = c.get("/api/matches/pov-ja/view", params={"as": "佐藤 蓮"})
        assert r.status_code == 400 and "as: unknown perspective '佐藤 蓮'" in r.text, r.text
        assert c.get("/api/matches/pov-ja/view", params={"as": "P2"}).json()["perspective"] == "P2"


def test_the_exact_spelling_is_taken_in_any_unicode_normal_form():
    """Zoë (NFC) facing ZOË: `--as` given Zoë typed decomposed (NFD, as some keyboards and file names give it) was
    refused as both players' name, though it looks as the one typed (QA round 37): as the statistics take names."""
    import unicodedata

    from zx_events.seats import player_seat

    players = {"P1": "Zo\u00eb", "P2": "ZO\u00cb"}
    assert player_seat(unicodedata.normalize("NFD", "Zo\u00eb"), players, "mir-1") == "P1"
    assert player_seat(unicodedata.normalize("NFD", "ZO\u00cb"), players, "mir-1") == "P2"
