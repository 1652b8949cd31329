"""302.2 / 303.5: a card on Square is Reboot or Sleep, the Player card on its Player Square too. A `sleep` aimed at a
Player card (`target: player`) makes it Sleep, a `reboot` Reboot, until its owner's Reboot Phase (502), and every
seat sees it: the state JSON (`player_card_sleep`), the terminal's board and card rows (digest.13). It was narrated
("the Player card on b1 becomes Sleep") and changed nothing, the Z/X on that Square unchanged too; with the Player
card gone from the Square it still said so: now 301.1, not applied, as a move or destroy of it is. QA round 37:
`pc-sleep-p1`, `pc-reboot-p2-own`, `pc-sleep-b3-with-zx`, `pc-sleep-after-pc-gone`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

from .boundary_logs import BASE, END2, P, checked, findings, imported_store, turn2

SEATS = ("judge", "P1", "P2", "spectator")


def effect(op: str, **fields) -> dict:
    return P("P2", "effect", source="b3", op=op, target="player", **fields)


GONE = P("P2", "effect", source="b3", op="move", square="b1", target="player", from_="square", to="trash")
LOGS = {
    "sleep-p1": turn2() + [effect("sleep", square="b1"), END2],
    "sleep-p1-turn3": turn2() + [effect("sleep", square="b1"), END2] + [dict(r) for r in BASE[17:19]],
    "reboot-own": turn2() + [effect("sleep", square="b3"), effect("reboot", square="b3"), END2],
    "sleep-own-under-zx": turn2() + [effect("sleep", square="b3"), END2],
    "gone": turn2() + [GONE, effect("sleep", square="b1"), END2],
}


def test_302_2_a_sleep_makes_the_player_card_sleep_until_its_owners_reboot_phase():
    c = checked(LOGS["sleep-p1"])
    assert findings(c) == [] and c.match.p["P1"].get("pc_sleep") is True
    c = checked(LOGS["sleep-p1-turn3"])
    assert findings(c) == [] and c.match.turn == 3 and "pc_sleep" not in c.match.p["P1"]  # 502
    c = checked(LOGS["reboot-own"])
    assert findings(c) == [] and "pc_sleep" not in c.match.p["P2"]


def test_302_2_the_player_card_under_a_zx_sleeps_and_the_zx_does_not():
    c = checked(LOGS["sleep-own-under-zx"])
    assert findings(c) == [] and c.match.p["P2"].get("pc_sleep") is True
    assert c.match.sq["b3"]["code"] == "U01-003" and c.match.sq["b3"]["sleep"] is False


def test_301_1_a_sleep_of_a_player_card_that_has_left_the_square_is_refused():
    c = checked(LOGS["gone"])
    assert findings(c) == [("301.1", 15, "P2")]
    assert c.violations[0].message == "P1 has no Player card on b1 (it has left the Square)"
    assert c.violations[0].line == 15 and "pc_sleep" not in c.match.p["P1"]
    assert c.match.violations[0]["applied"] is False


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("r37pc")
    return imported_store(folder, {name: LOGS[name] for name in ("sleep-p1", "sleep-p1-turn3")}, "r37")


def replay(store: str, name: str, seat: str, *more: str) -> str:
    r = CliRunner().invoke(zx, ["--store", store, "replay", f"r37-{name}", "--as", seat, "--to", "end", *more])
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.mark.parametrize("seat", SEATS)
def test_302_2_every_seat_sees_the_player_cards_state(store, seat):
    last = json.loads(replay(store, "sleep-p1", seat, "--format", "json").splitlines()[-1])
    assert last["state"]["players"]["P1"]["player_card_sleep"] is True
    assert last["state"]["players"]["P2"]["player_card_sleep"] is False
    board = replay(store, "sleep-p1", seat).split("TurnEnded")[-1]  # (the board after the last event)
    assert "Player card PL-001 Kaito Blazeheart (Sleep)" in board
    assert "Player card PL-002 Mirei Tidecaller (Sleep)" not in board
    rows = [r.split(",") for r in replay(store, "sleep-p1", seat, "--format", "csv").splitlines()]
    assert [(r[2], r[10]) for r in rows if r[0] == "16" and r[3] == "player"] == [("P1", "Sleep"), ("P2", "Reboot")]
    after = json.loads(replay(store, "sleep-p1-turn3", seat, "--format", "json").splitlines()[-1])
    assert after["state"]["players"]["P1"]["player_card_sleep"] is False  # 502: P1's Reboot Phase


def test_302_2_an_event_stored_before_digest_13_replays_as_stored():
    """A stored `sleep` of a Player card from before carries no `player_state`: it changed nothing, and still does."""
    import copy

    from zx_events.ids import project

    events = copy.deepcopy(list(checked(LOGS["sleep-p1"]).match.pending_events))
    assert project(None, copy.deepcopy(events)).p["P1"].get("pc_sleep") is True
    for e in events:
        if type(e).__name__ == "EffectApplied":
            e.__dict__["args"] = {k: v for k, v in e.args.items() if k != "player_state"}
    assert "pc_sleep" not in project(None, events).p["P1"]


def test_301_1_a_sleep_of_a_player_square_without_target_names_the_player_card_there():
    """A `sleep` on b1 without `target`, b1 holding only P1's Player card: 301.1, not applied, saying what is there and
    how an effect aims at it (it said "there is no card on b1"). QA round 37: `pc-sleep-square-no-target`."""
    c = checked(turn2() + [P("P2", "effect", source="b3", op="sleep", square="b1"), END2])
    assert findings(c) == [("301.1", 14, "P2")]
    assert c.violations[0].message == ("there is no card on b1 but P1's Player card (an effect on it says target: "
                                       "player)")
    assert "pc_sleep" not in c.match.p["P1"] and c.match.violations[0]["applied"] is False
