"""A face-down Force card is seen by its owner only (301.3b); when an effect takes it back to a hidden zone (the
hand, the deck) no other seat learns what it was, on any surface: zx replay's table and JSON (record, event fields,
sentence), zx view's file and zx serve's steps. Whether it was face-down is the state's, not the record's (a
``move`` out of ``force`` does not say it): each seat sees an event as the state it was applied to lets it
(``Game.redact_event``'s ``before``), so a face-up Force card that goes back to the hand is still named to all.

tests/data/zx-face-down-force-leaves.zxlog: examples/legal/first-turns.zxlog to line 6, then P1 puts R01-004
(Flamecrest Lancer) from the hand face-down into the Force Zone under a1 and back to the hand (lines 7-8), then
again, and back to the deck (lines 9-10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

from seat_support import replay

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "tests" / "data" / "zx-face-down-force-leaves.zxlog"
DOWN, UP = "qa-face-down-force", "qa-face-up-force"
CODE, NAME = "R01-004", "Flamecrest Lancer"
LEAVES = {8: "P1's hand", 10: "P1's deck"}  # seq of each move out of the Force Zone -> where it goes


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("force")
    up = folder / "face-up.zxlog"  # the same moves, the card put face-up
    up.write_text(LOG.read_text("utf-8").replace(DOWN, UP).replace(', "face": "down"', ""), "utf-8")
    path = str(folder / "events.sqlite")
    r = CliRunner().invoke(zx, ["--store", path, "import", "--no-analytics", str(LOG), str(up)])
    assert r.exit_code == 0, r.output
    return path


def steps_json(store: str, match: str, seat: str) -> list[dict]:
    return [json.loads(line) for line in replay(store, match, seat, "--to", "end", "--format", "json").splitlines()]


def leaving(steps: list[dict]) -> list[tuple[dict, dict]]:
    """The record and the event of each move out of the Force Zone."""
    return [(s["record"], e) for s in steps for e in s["events"] if e["seq"] in LEAVES]


@pytest.mark.parametrize("seat", ("P2", "spectator"))
def test_301_3b_a_face_down_force_card_back_to_a_hidden_zone_is_named_to_no_other_seat(store, seat, tmp_path):
    moves = leaving(steps_json(store, DOWN, seat))
    assert len(moves) == 2
    for rec, event in moves:
        assert rec["card"] == "?" and event["data"]["args"]["card"] == "?", (rec, event)
        assert event["text"].endswith(f"resolves the card on a1: a card goes from P1's Force Zone to "
                                      f"{LEAVES[event['seq']]}"), event
    for seq in LEAVES:
        table = replay(store, DOWN, seat, "--event", str(seq))
        assert CODE not in table and NAME not in table, table
    assert CODE not in replay(store, DOWN, seat, "--to", "end")
    out = tmp_path / f"{seat}.html"
    r = CliRunner().invoke(zx, ["--store", store, "view", DOWN, "--as", seat, "-o", str(out)])
    assert r.exit_code == 0, r.output
    page = out.read_text("utf-8")
    assert CODE not in page and NAME not in page
    with TestClient(create_app(store), raise_server_exceptions=False) as c:
        steps = c.get(f"/api/matches/{DOWN}/steps", params={"as": seat, "limit": 20})
        assert steps.status_code == 200 and len(steps.json()["steps"]) == 11
        assert CODE not in steps.text and NAME not in steps.text
        one = c.get(f"/api/matches/{DOWN}/steps", params={"as": seat, "start": 7, "limit": 1})
        assert one.status_code == 200 and CODE not in one.text


@pytest.mark.parametrize("seat", ("P1", "judge"))
def test_301_3b_its_owner_and_the_judge_still_read_the_face_down_force_card(store, seat):
    for rec, event in leaving(steps_json(store, DOWN, seat)):
        assert rec["card"] == CODE and event["data"]["args"]["card"] == CODE
        assert f"{NAME} {CODE} goes from P1's Force Zone to {LEAVES[event['seq']]}" in event["text"]


@pytest.mark.parametrize("seat", ("P2", "spectator"))
def test_301_3a_a_face_up_force_card_back_to_the_hand_is_still_named_to_every_seat(store, seat):
    moves = leaving(steps_json(store, UP, seat))
    assert len(moves) == 2
    for rec, event in moves:
        assert rec["card"] == CODE and event["data"]["args"]["card"] == CODE
        assert f"{NAME} {CODE} goes from P1's Force Zone to {LEAVES[event['seq']]}" in event["text"]


def test_301_3b_a_seat_given_no_state_is_never_told_a_force_card_that_leaves_for_a_hidden_zone():
    from zx_events.games.zx.views import redact_event, redact_record

    rec = {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": CODE, "from": "force", "to": "hand"}
    assert redact_record(rec, "P2")["card"] == "?"
    fields = {"player": "P1", "source": "a1", "op": "move", "args": {"card": CODE, "from": "force", "to": "hand"}}
    assert redact_event("EffectApplied", fields, "spectator")["args"]["card"] == "?"
    assert redact_event("EffectApplied", fields, "P1")["args"]["card"] == CODE
    to_trash = {**fields, "args": {"card": CODE, "from": "force", "to": "trash"}}  # face-up in a public zone
    assert redact_event("EffectApplied", to_trash, "P2")["args"]["card"] == CODE
