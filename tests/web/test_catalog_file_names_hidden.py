"""A card's name from the catalog a match was checked against, inside a violation message, stays hidden from the
seats that do not see the card, whatever catalog the match was imported with (docs/security.md, "Hidden
information and free text": violation messages).

A stored match's views know the card names of a shipped catalog of the name it pinned, and only when its SHA-256
is the one pinned: a catalog file (``zx import --catalog FILE``) is never read again, and a shipped catalog may
change. QA round 28 (formats, defect 1): an X610Z match imported with ``--catalog venue-cards.csv`` (the shipped
catalog's bytes under another name), with a crystal record for Hunter Dragon (A1-020) of P1's hand, showed P2 and
a spectator "[card] (Hunter Dragon) is a Summon card: ..." in ``zx replay`` (terminal and JSON), ``zx view``'s
file and ``zx serve``'s API: the mask knew no card name, only the code shape. So did a catalog file with a shipped
catalog's name but other names (the names of today's shipped catalog were masked, the file's not), and Z/X's deck
checks (401: "main deck has 5 copies of 'Crimson Drake Vanguard'", a deck only the judge sees). Now, outside the
judge's view, such a match's violation messages are withheld (``seats.WITHHELD``); the rule, the player, the turn
and the line stay."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

from seat_support import replay, view_file
from test_serve_cli import start_serve

ROOT = Path(__file__).resolve().parents[2]
X610Z_CATALOG = ROOT / "zx_events" / "games" / "x610z" / "catalogs" / "x610z-sample.csv"
ZX_CATALOG = ROOT / "zx_events" / "games" / "zx" / "catalogs" / "sample.csv"
CONCESSION = ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog"
COPIES = ROOT / "examples" / "invalid" / "401-copies-of-a-name.zxlog"
CRYSTAL = '{"do": "crystal", "by": "P1", "card": "A1-020"}'  # line 6: A1-020, Hunter Dragon, is in P1's hand (502.3)

# match -> (the catalog file it is imported with, the hidden card's name in that file, who may see it, the rule)
CASES = {
    "qa-leak-file": ("venue-cards.csv", "Hunter Dragon", "P1", "200.1b"),  # the shipped bytes, another name
    "qa-leak-changed": ("changed/x610z-sample.csv", "Secret Wyrm", "P1", "200.1b"),  # a shipped name, other names
    "qa-zx-leak-file": ("venue-zx.csv", "Crimson Drake Vanguard", "judge", "401"),  # P1's deck: the judge's only
    "qa-zx-leak-changed": ("changed/sample.csv", "Secret Vanguard", "judge", "401"),
}
OTHERS = {"qa-leak-file": ("P2", "spectator"), "qa-leak-changed": ("P2", "spectator"),
          "qa-zx-leak-file": ("P1", "P2", "spectator"), "qa-zx-leak-changed": ("P1", "P2", "spectator")}
WITHHELD = "[withheld: may name a hidden card of a catalog zx does not have]"  # seats.WITHHELD
PLAYER = "hunter dragon fan"  # P1's name, free text: the card's name in it masked as with the shipped catalog
SHIPPED = "qa-leak-shipped"  # the same X610Z log checked against the shipped catalog: masked, not withheld


def _log(src: Path, dst: Path, match: str, line6: str | None = None, player: str | None = None) -> Path:
    lines = src.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["match"] = match
    if player is not None:
        header["players"]["P1"]["name"] = player
    lines[0] = json.dumps(header)
    if line6 is not None:
        lines[5] = line6
    dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dst


def _import(store: str, folder: Path, log: Path, *catalog: str) -> None:
    r = CliRunner().invoke(zx, ["--store", store, "import", "--accept-violations", *catalog, str(log)],
                           env={"ZX_ANALYTICS": str(folder / "events.duckdb")})
    assert r.exit_code == 0, r.output


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """The matches of ``CASES`` and ``SHIPPED``, imported with ``--accept-violations``; the catalog files deleted
    after (a stored match's views never read them)."""
    folder = tmp_path_factory.mktemp("catalog-files")
    (folder / "changed").mkdir()
    shutil.copy(X610Z_CATALOG, folder / "venue-cards.csv")
    shutil.copy(ZX_CATALOG, folder / "venue-zx.csv")
    (folder / "changed" / "x610z-sample.csv").write_text(
        X610Z_CATALOG.read_text(encoding="utf-8").replace("Hunter Dragon", "Secret Wyrm"), encoding="utf-8")
    (folder / "changed" / "sample.csv").write_text(
        ZX_CATALOG.read_text(encoding="utf-8").replace("Crimson Drake Vanguard", "Secret Vanguard"), encoding="utf-8")
    path = str(folder / "events.sqlite")
    for match, (catalog, *_) in CASES.items():
        if match.startswith("qa-zx"):
            log = _log(COPIES, folder / f"{match}.zxlog", match)
        else:
            log = _log(CONCESSION, folder / f"{match}.x610zlog", match, CRYSTAL, PLAYER)
        _import(path, folder, log, "--catalog", str(folder / catalog))
    _import(path, folder, _log(CONCESSION, folder / f"{SHIPPED}.x610zlog", SHIPPED, CRYSTAL))
    for catalog in ("venue-cards.csv", "venue-zx.csv", "changed"):
        shutil.rmtree(folder / catalog) if catalog == "changed" else (folder / catalog).unlink()
    return path


@pytest.fixture(scope="module")
def client(store):
    with TestClient(create_app(store), raise_server_exceptions=False) as c:
        yield c


def _hidden(text: str | bytes, name: str) -> bool:
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return name.lower() not in text.lower()


def _messages(state: dict) -> list[str]:
    return [v["message"] for v in state["violations"]]


def _seen(store: str, match: str, seat: str, tmp_path: Path) -> dict[str, str | bytes]:
    """What ``seat`` reads of ``match`` through the CLI: every surface of ``zx replay`` and ``zx view``."""
    return {"terminal": replay(store, match, seat), "terminal steps": replay(store, match, seat, "--turn", "1",
                                                                              "--to", "8"),
            "json": replay(store, match, seat, "--format", "json"),
            "json steps": replay(store, match, seat, "--turn", "1", "--to", "8", "--format", "json"),
            "zx view": view_file(store, match, seat, tmp_path)}


# ---------------------------------------------------------------------- X610Z: a card of the hand (502.3)
@pytest.mark.parametrize("match", ["qa-leak-file", "qa-leak-changed"])
@pytest.mark.parametrize("seat", ["P2", "spectator"])
def test_502_3_a_hand_cards_name_from_a_catalog_file_reaches_no_other_seat_in_zx_replay_and_zx_view(
        store, match, seat, tmp_path):
    _, name, _, rule = CASES[match]
    for surface, text in _seen(store, match, seat, tmp_path).items():
        assert _hidden(text, name), f"{surface}: {name} shown to {seat}"
    state = json.loads(replay(store, match, seat, "--format", "json"))
    assert state["violations"][0]["rule"] == rule and state["violations"][0]["player"] == "P1"
    assert set(_messages(state)) == {WITHHELD}  # every message: the catalog's names are not known here
    assert f"Rule {rule} broken by P1 (turn 1): {WITHHELD}" in replay(store, match, seat, "--turn", "1", "--to", "8")


@pytest.mark.parametrize("match", ["qa-leak-file", "qa-leak-changed"])
@pytest.mark.parametrize("seat", ["P2", "spectator"])
def test_502_3_a_hand_cards_name_from_a_catalog_file_reaches_no_other_seat_in_zx_serve(client, match, seat):
    _, name, _, rule = CASES[match]
    answers = {
        "view": client.get(f"/api/matches/{match}/view", params={"as": seat}),
        "view at 8": client.get(f"/api/matches/{match}/view", params={"as": seat, "at": 8}),
        "steps": client.get(f"/api/matches/{match}/steps", params={"as": seat}),
        "match": client.get(f"/api/matches/{match}"),
        "match page": client.get(f"/matches/{match}"),
        "replay page": client.get(f"/matches/{match}/replay", params={"as": seat}),
        "audit": client.get(f"/api/audit/{match}"),
    }
    for what, answer in answers.items():
        if what in ("match", "match page", "audit") and seat == "P2":
            continue  # (the spectator's only)
        assert answer.status_code == 200, (what, answer.text)
        assert _hidden(answer.text, name), f"{what}: {name} shown to {seat}"
    view = answers["view"].json()
    assert view["violations"][0]["rule"] == rule and set(_messages(view)) == {WITHHELD}
    assert {v["message"] for v in answers["match"].json()["violations"]} == {WITHHELD}


def test_502_3_a_hand_cards_name_from_a_catalog_file_reaches_no_spectator_of_a_running_zx_serve(store, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("ZX_STORE", "ZX_ANALYTICS")}
    proc, base = start_serve(["--store", store, "serve"], tmp_path, env)
    try:
        with httpx.Client(base_url=base, timeout=120) as c:
            for match in ("qa-leak-file", "qa-leak-changed"):
                answer = c.get(f"/api/matches/{match}/view")
                assert answer.status_code == 200, answer.text
                assert _hidden(answer.text, CASES[match][1])
                assert answer.json()["violations"][0]["message"] == WITHHELD
    finally:
        proc.terminate()
        proc.communicate(timeout=20)


@pytest.mark.parametrize("match", ["qa-leak-file", "qa-leak-changed"])
def test_502_3_the_judge_and_the_cards_owner_read_the_message_whole(store, match, tmp_path):
    _, name, owner, _ = CASES[match]
    judge = json.loads(replay(store, match, "judge", "--format", "json"))
    assert judge["violations"][0]["message"].startswith(f"A1-020 ({name}) is a Summon card")
    with TestClient(create_app(store, judge=True), raise_server_exceptions=False) as c:
        assert name in c.get(f"/api/matches/{match}/view", params={"as": "judge"}).text
    assert owner == "P1"  # (P1 holds the card, but the message is the engine's text: withheld from every seat but
    # the judge's, P1's included, as the names in it cannot be told from each other)


def test_502_3_a_match_checked_against_the_shipped_catalog_shows_its_messages_masked(store, client):
    state = json.loads(replay(store, SHIPPED, "P2", "--format", "json"))
    assert state["violations"][0]["message"] == ("[card] ([card]) is a Summon card: a crystal record casts only "
                                                 "Energy Crystal Cards")
    assert WITHHELD not in json.dumps(state)
    assert client.get(f"/api/matches/{SHIPPED}/view").json()["violations"][0]["message"].startswith("[card] ([card])")


@pytest.mark.parametrize("seat", ["P2", "spectator"])
def test_502_3_free_text_of_a_match_checked_against_a_catalog_file_is_masked_with_the_shipped_names(
        store, client, seat):
    """The file's names are unknown, but a venue's catalog is mostly a copy of a shipped one: its names are masked
    in free text (a player's name) as they are in a match checked against the shipped catalog."""
    state = json.loads(replay(store, "qa-leak-file", seat, "--format", "json"))
    assert state["players"]["P1"]["name"] == "[card] fan"
    assert "[card] fan" in replay(store, "qa-leak-file", seat)
    assert client.get("/api/matches/qa-leak-file/view", params={"as": seat}).json()["players"]["P1"]["name"] == \
        "[card] fan"
    assert json.loads(replay(store, "qa-leak-file", "judge", "--format", "json"))["players"]["P1"]["name"] == PLAYER


# ---------------------------------------------------------------------- Z/X: a card of the deck (301.3c)
@pytest.mark.parametrize("match", ["qa-zx-leak-file", "qa-zx-leak-changed"])
def test_301_3c_a_deck_cards_name_from_a_catalog_file_reaches_no_seat_but_the_judge(store, client, match, tmp_path):
    _, name, _, rule = CASES[match]
    for seat in OTHERS[match]:
        for surface, text in _seen(store, match, seat, tmp_path).items():
            assert _hidden(text, name), f"{surface}: {name} shown to {seat}"
        state = json.loads(replay(store, match, seat, "--format", "json"))
        assert [v["rule"] for v in state["violations"]] == [rule] and _messages(state) == [WITHHELD]
        for url in (f"/api/matches/{match}/view", f"/api/matches/{match}/steps", f"/matches/{match}/replay"):
            answer = client.get(url, params={"as": seat})
            assert answer.status_code == 200 and _hidden(answer.text, name), (url, seat)
    for url in (f"/api/matches/{match}", f"/matches/{match}", f"/api/audit/{match}"):
        answer = client.get(url)
        assert answer.status_code == 200 and _hidden(answer.text, name), url
    judge = json.loads(replay(store, match, "judge", "--format", "json"))
    assert f"5 copies of {name!r}" in judge["violations"][0]["message"]
