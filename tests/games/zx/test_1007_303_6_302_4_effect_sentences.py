"""Effects on the Square whose sentence must say what the state shows (QA round 36), in every seat's replay.

1007 / 303.6a: a `destroy` of a Player card (`target: player`) puts it into its owner's Trash (1007: a card other
than a Z/X goes to the Trash; 303.6a forbids only a move to another Square), as a `move` of it there does: it said
"the Player card on b1 is destroyed" and nothing moved. 303.6: `damage` and `power` on a Player card (no Z/X: no
Power, no damage) are refused; they said "is dealt 1000 damage", "gets -1000 Power", and nothing changed.
302.4: an effect moving P1's Z/X from the Square to "P2's hand" (`owner: P2`) puts it into P1's hand, its owner's:
the sentence says so (it said "goes to P2's hand"); not a finding (302.4 says where such a card goes). A card moved
from the Square is named when face-up (it was "the card on b3"); a face-down one stays unnamed (301.3b)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

from .boundary_logs import END2, P, checked, findings, imported_store, turn2

SEATS = ("judge", "P1", "P2", "spectator")


def effect(**fields) -> dict:
    return P("P2", "effect", source="b3", **fields)


LOGS = {
    "destroy-player": turn2() + [effect(op="destroy", square="b1", target="player"), END2],
    "damage-player": turn2() + [effect(op="damage", square="b1", target="player", amount=1000), END2],
    "power-player": turn2() + [effect(op="power", square="b1", target="player", delta=-1000, until="permanent"), END2],
    "to-my-hand": turn2() + [effect(op="move", square="a1", from_="square", to="hand", owner="P2"), END2],
    "to-his-hand": turn2() + [effect(op="move", square="a1", from_="square", to="hand"), END2],
    "square-to-square": turn2() + [effect(op="move", square="b3", from_="square", to="square", dest="c3"), END2],
    "facedown-moved": turn2() + [effect(op="move", card="U01-009", from_="hand", to="square", dest="c2", face="down"),
                                 effect(op="move", square="c2", from_="square", to="square", dest="c3"), END2],
    "zone-onto-opp-zx": turn2() + [effect(op="move", card="R01-004", from_="hand", to="square", owner="P1", dest="a2"),
                                   END2],
}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("r36")
    return imported_store(folder, LOGS, "r36")


def told(store: str, name: str, seat: str) -> tuple[list[str], dict]:
    r = CliRunner().invoke(zx, ["--store", store, "replay", f"r36-{name}", "--as", seat, "--to", "end",
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    frames = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    return [e["text"] for f in frames for e in f["events"] if e["kind"] == "EffectApplied"], frames[-1]["state"]


@pytest.mark.parametrize("seat", SEATS)
def test_1007_a_destroyed_player_card_goes_to_its_owners_trash(store, seat):
    (sentence,), state = told(store, "destroy-player", seat)
    assert sentence.endswith("P1's Player card Kaito Blazeheart PL-001 on b1 is destroyed and goes to P1's Trash"), sentence
    assert "PL-001" in state["players"]["P1"]["trash"]
    c = checked(LOGS["destroy-player"])
    assert findings(c) == [] and c.match.p["P1"]["player_card"] is None and c.match.p["P1"]["trash"] == ["PL-001"]


@pytest.mark.parametrize("name,what", [("damage-player", "takes no damage"), ("power-player", "has no Power to change")])
def test_303_6_damage_and_power_on_a_player_card_are_refused(store, name, what):
    c = checked(LOGS[name])
    assert findings(c) == [("303.6", 14, "P2")]
    assert c.violations[0].message == f"P1's Player card on b1 is no Z/X: it {what}"
    assert told(store, name, "judge")[0] == []  # not applied: no sentence says it was


@pytest.mark.parametrize("seat", SEATS)
def test_302_4_a_zx_moved_to_a_hand_goes_to_its_owners_and_the_sentence_says_so(store, seat):
    (mine,), state = told(store, "to-my-hand", seat)
    assert mine.endswith("R01-002 on a1 goes to P1's hand (its owner's, 302.4: not P2's)"), mine
    assert "P2's hand" not in mine.replace("not P2's", "")
    (his,), _ = told(store, "to-his-hand", seat)
    assert his.endswith("R01-002 on a1 goes to P1's hand"), his
    assert findings(checked(LOGS["to-my-hand"])) == []


@pytest.mark.parametrize("seat", SEATS)
def test_a_face_up_card_moved_square_to_square_is_named_a_face_down_one_is_not(store, seat):
    (moved,), state = told(store, "square-to-square", seat)
    what = moved.split(": ", 1)[1]  # (after "P2 ... resolves the card on b3", its source)
    assert what.endswith("U01-003 on b3 goes to c3") and "the card" not in what, moved
    assert state["squares"]["c3"]["code"] == "U01-003"
    sentences, _ = told(store, "facedown-moved", seat)
    assert sentences[-1].endswith("the card on c2 goes to c3"), sentences
    assert "U01-009" not in sentences[-1]


@pytest.mark.parametrize("seat", SEATS)
def test_806_a_move_from_a_zone_refused_names_the_card_to_the_seats_that_may_see_it(store, seat):
    r = CliRunner().invoke(zx, ["--store", store, "replay", "r36-zone-onto-opp-zx", "--as", seat, "--to", "end",
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    (message,) = [v["message"] for line in r.stdout.splitlines() if line.strip()
                  for v in json.loads(line)["violations"]]
    assert message.endswith(" from P1's hand is not put there (an effect's move is held to the placement of a play)")
    if seat == "judge":
        assert message.startswith("a2 holds P2's Z/X U01-001: R01-004 from P1's hand"), message
    else:  # a seat's messages are masked (a card of P1's hand, refused there, never became public)
        assert "R01-004" not in message, message
