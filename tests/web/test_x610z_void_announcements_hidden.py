"""X610Z, digest.8: an announcement of what is not there (``void`` on the stack) or a target not in play names a
card its player may still hold in his hand, which is his only (502.3), or that lies in a deck, seen by nobody but the
judge: every seat but its player's and the judge's reads ``?`` (``a card``) in the event's fields, the record, the
stack and the sentence, on every surface (zx replay's table and JSON, zx view's file, zx serve's view and steps), as
a void cast already was (tests/web/test_refused_cards_hidden.py).

- an ``activate`` of an Effect not in play (500.1), still in the hand (tests/data/x610z-void-activate-hand-*.x610zlog);
- a ``trigger`` of a card not in play (500.1, 207.4), in the hand (x610z-void-trigger-hand.x610zlog);
- a cast targeting a card not in play (200.4, 401.2a), in the hand (x610z-gone-target-hand.x610zlog)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from zx_web.app import create_app

import seat_support
from seat_support import stored_as_played, view_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
LOGS = ("x610z-void-activate-hand-p1", "x610z-void-activate-hand-p2", "x610z-void-trigger-hand",
        "x610z-gone-target-hand")
# match, the card its last record names from its player's hand, the card's name, that player
CASES = [("x610z-invalid-void-activate-hand-p1", "A1-040", "Swift Boots", "P1"),
         ("x610z-invalid-void-activate-hand", "A1-032", "Heal", "P2"),
         ("qa-void-trigger-hand", "A1-030", "Bullseye", "P1"),
         ("qa-gone-target-hand", "A1-030", "Bullseye", "P1")]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    return stored_as_played(tmp_path_factory.mktemp("void"), [DATA / f"{log}.x610zlog" for log in LOGS])


@pytest.fixture(scope="module")
def client(store):
    with TestClient(create_app(store), raise_server_exceptions=False) as c:
        yield c


def replay(store: str, match: str, seat: str, *args: str) -> str:
    return seat_support.replay(store, match, seat, "--to", "end", *args)


def others(owner: str) -> tuple[str, str]:
    return ("P2" if owner == "P1" else "P1", "spectator")


@pytest.mark.parametrize("match, code, name, owner", CASES)
def test_502_3_a_void_announcement_names_its_card_in_hand_to_no_other_seat(store, client, tmp_path, match, code,
                                                                           name, owner):
    for seat in others(owner):
        table = replay(store, match, seat)
        assert code not in table and name not in table, seat
        assert "a card" in table.splitlines()[-1] or any("a card" in x and "Announced" in x
                                                          for x in table.splitlines()), table
        steps = replay(store, match, seat, "--format", "json")
        assert code not in steps and name not in steps, seat
        page = view_file(store, match, seat, tmp_path)
        assert code.encode() not in page and name.encode() not in page, seat
        api = client.get(f"/api/matches/{match}/view", params={"as": seat})
        assert api.status_code == 200 and code not in api.text and name not in api.text, seat
        served = client.get(f"/api/matches/{match}/steps", params={"as": seat})
        assert served.status_code == 200 and code not in served.text and name not in served.text, seat


@pytest.mark.parametrize("match, code, name, owner", CASES)
def test_502_3_a_void_announcement_shows_its_card_to_its_player_and_the_judge(store, client, match, code, name,
                                                                              owner):
    for seat in (owner, "judge"):
        last = [json.loads(x) for x in replay(store, match, seat, "--format", "json").splitlines()][-1]
        announced = next(e for e in last["events"] if e["kind"] == "Announced")
        assert f"{name} {code}" in announced["text"], seat
        assert code in json.dumps(last["record"]) and code in json.dumps(last["state"]["stack"]), seat


def test_502_3_the_sentence_of_a_void_activate_for_the_other_seat(store):
    table = replay(store, "x610z-invalid-void-activate-hand-p1", "P2")
    assert "P1 Mia activates a card, which is not there to be announced: it does nothing" in table
    table = replay(store, "qa-gone-target-hand", "spectator")
    assert "P1 Mia casts Swift Boots A1-040 targeting a card" in table
