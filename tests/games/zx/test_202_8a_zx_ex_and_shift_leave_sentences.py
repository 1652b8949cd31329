"""Sentences of a card leaving the Square that say where it and its Shift went, as the state has them (digest.13).

A Z/X EX that would go anywhere but Square or Dynamis goes to Dynamis face-up (the digest): an effect moving it from
the Square to a hand, the deck or the Trash said "goes to P2's hand", the state right; now "would go to P2's hand: goes
to P2's Dynamis face-up (Z/X EX)" (the event's `to` is what the log wrote). A `destroy` names the face-up card and
where it goes (1007: Charge; a Z/X EX: Dynamis face-up), and a Shift on it goes with it (202.8a) to its owner's zone
(302.4), said: it was "the card on a1 is destroyed". A vessel moved to a hand takes its Shift with it, said too. Each
seat reads the same words (every card named was face-up on the Square). QA round 37: `zxex-bounce-to-hand`,
`zxex-to-deck`, `zxex-to-trash`, `202.8a-shift-on-opp-zx-destroyed`, `202.8a-shift-vessel-to-hand`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

from .boundary_logs import END2, P, checked, findings, imported_store, turn2

SEATS = ("judge", "P1", "P2", "spectator")
EX = "Azure Leviathan Prime EX-U01"
SHIFT = "Tidecaller Exosuit EX-U03"
PL1 = "Kaito Blazeheart PL-001"


def effect(**fields) -> dict:
    return P("P2", "effect", source="b3", **fields)


EX_ON = [effect(op="move", card="EX-U01", from_="dynamis", to="square", dest="c3")]
TOKEN_ON = [effect(op="token", square="c3", name="Sprout", power=1000)]
EX_DOWN = [effect(op="move", card="EX-U01", from_="dynamis", to="square", dest="c3", face="down")]
SHIFT_ON = [P("P2", "play", card="EX-U03", pay=["U01-004"], from_="dynamis", on="a1")]
LOGS = {
    "ex-hand": turn2() + EX_ON + [effect(op="move", square="c3", from_="square", to="hand"), END2],
    "ex-deck": turn2() + EX_ON + [effect(op="move", square="c3", from_="square", to="deck"), END2],
    "ex-trash": turn2() + EX_ON + [effect(op="move", square="c3", from_="square", to="trash"), END2],
    "shift-destroyed": turn2() + SHIFT_ON + [effect(op="destroy", square="a1"), END2],
    "shift-vessel-hand": turn2() + SHIFT_ON + [effect(op="move", square="a1", from_="square", to="hand"), END2],
    "face-down-destroyed": turn2() + [effect(op="move", card="U01-009", from_="hand", to="square", dest="c2",
                                             face="down"), effect(op="destroy", square="c2"), END2],
    "token-destroyed": turn2() + [effect(op="token", square="c2", power=1000, name="Drone"),
                                  effect(op="destroy", square="c2"), END2],
    "token-hand": turn2() + TOKEN_ON + [effect(op="move", square="c3", from_="square", to="hand"), END2],
    "token-shift-hand": turn2() + TOKEN_ON + [P("P2", "play", card="EX-U03", pay=["U01-004"], from_="dynamis",
                                                on="c3"), effect(op="move", square="c3", from_="square", to="hand"),
                                              END2],
    "player-card-trash": turn2() + [effect(op="move", square="b1", target="player", from_="square", to="trash"), END2],
    "player-card-by-code": turn2() + [effect(op="move", card="PL-001", from_="square", to="trash"), END2],
    "face-down-ex-hand": turn2() + EX_DOWN + [effect(op="move", square="c3", from_="square", to="hand"), END2],
    "face-down-ex-destroyed": turn2() + EX_DOWN + [effect(op="destroy", square="c3"), END2],
}
SAID = {
    "ex-hand": f"{EX} on c3 would go to P2's hand: goes to P2's Dynamis face-up (Z/X EX)",
    "ex-deck": f"{EX} on c3 would go to P2's deck: goes to P2's Dynamis face-up (Z/X EX)",
    "ex-trash": f"{EX} on c3 would go to P2's Trash: goes to P2's Dynamis face-up (Z/X EX)",
    "shift-destroyed": f"Cinder Hatchling R01-002 on a1 is destroyed and goes to P1's Charge, with its Shift {SHIFT}, "
                       f"which goes to P2's Charge",
    "shift-vessel-hand": f"Cinder Hatchling R01-002 on a1 goes to P1's hand, with its Shift {SHIFT}, which goes to "
                         f"P2's hand",
    "face-down-destroyed": "the card on c2 is destroyed and goes to P2's Trash",  # (unnamed, 301.3b: no Z/X, 1007)
    "token-destroyed": "the Token Drone on c2 is destroyed and disappears (a Token, 202.11c)",
    # 202.11c: a Token that leaves the Square disappears, as a destroy says (digest.13: "the card on c3 goes to P2's
    # hand"); its Shift goes to its owner's zone
    "token-hand": "the Token Sprout on c3 would go to P2's hand: it disappears (a Token, 202.11c)",
    "token-shift-hand": f"the Token Sprout on c3 would go to P2's hand: it disappears (a Token, 202.11c); its Shift "
                        f"{SHIFT} goes to P2's hand",
    # the Player card, face-up on its Player Square (public), is named (it was "P1's Player card goes to the Trash")
    "player-card-trash": f"P1's Player card {PL1} goes to P1's Trash",
    "player-card-by-code": f"P1's Player card {PL1} goes to P1's Trash",
    # a Z/X EX put face-down: to Dynamis face-up all the same, where it is public (301.3c): named, to every seat
    "face-down-ex-hand": f"the card on c3 would go to P2's hand: goes to P2's Dynamis face-up, revealed: {EX} (an EX "
                         f"card goes nowhere but Square or Dynamis)",
    "face-down-ex-destroyed": f"the card on c3 is destroyed and goes to P2's Dynamis face-up, revealed: {EX} (an EX "
                              f"card goes nowhere but Square or Dynamis)",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("r37ex")
    return imported_store(folder, LOGS, "r37")


def last_effect(store: str, name: str, seat: str) -> str:
    r = CliRunner().invoke(zx, ["--store", store, "replay", f"r37-{name}", "--as", seat, "--to", "end",
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    frames = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    return [e["text"] for f in frames for e in f["events"] if e["kind"] == "EffectApplied"][-1]


@pytest.mark.parametrize("seat", SEATS)
@pytest.mark.parametrize("name", list(LOGS))
def test_202_8a_the_sentence_says_where_the_card_and_its_shift_went(store, name, seat):
    said = last_effect(store, name, seat)
    assert said.endswith(": " + SAID[name]), said
    assert "U01-009" not in said  # (the face-down card's code, in no seat's sentence)


@pytest.mark.parametrize("name,zone,card", [("ex-hand", "hand", "EX-U01"), ("ex-trash", "trash", "EX-U01")])
def test_202_8a_the_state_has_the_zx_ex_in_dynamis_face_up(name, zone, card):
    c = checked(LOGS[name])
    assert findings(c) == [] and card not in c.match.p["P2"][zone]
    assert {"code": card, "up": True} in c.match.p["P2"]["dynamis"]


def test_202_8a_the_state_has_the_shift_where_the_sentence_says():
    c = checked(LOGS["shift-destroyed"])
    assert findings(c) == [] and "EX-U03" in c.match.p["P2"]["charge"] and "R01-002" in c.match.p["P1"]["charge"]
    c = checked(LOGS["shift-vessel-hand"])
    assert findings(c) == [] and "EX-U03" in c.match.p["P2"]["hand"] and "R01-002" in c.match.p["P1"]["hand"]


@pytest.mark.parametrize("name", ["face-down-ex-hand", "face-down-ex-destroyed"])
def test_202_8a_a_face_down_zx_ex_leaving_the_square_goes_to_dynamis_face_up(name):
    """The digest: "Z/X EX and EV EX that would go anywhere but Square or Dynamis go to Dynamis face-up", put on the
    Square face-down too (digest.13: it went to the hand, or to the Trash as a face-down card destroyed). QA round 37:
    `leave-facedown-zxex-to-hand`, `leave-facedown-zxex-destroy`."""
    c = checked(LOGS[name])
    z = c.match.p["P2"]
    assert findings(c) == [] and c.match.sq["c3"] is None
    assert "EX-U01" not in z["hand"] and "EX-U01" not in z["trash"]
    assert {"code": "EX-U01", "up": True} in z["dynamis"]


def test_202_8a_a_stored_event_without_ex_to_dynamis_replays_as_before():
    """EffectApplied's ``ex_to_dynamis`` is absent from the events stored before it: they replay as imported."""
    c = checked(turn2() + EX_DOWN)
    c.match._effect(player="P2", source="b3", op="move", args={"from": "square", "square": "c3", "to": "hand"},
                    rec=None, line=15)
    assert "EX-U01" in c.match.p["P2"]["hand"] and {"code": "EX-U01", "up": True} not in c.match.p["P2"]["dynamis"]


def test_202_11c_a_token_moved_to_a_hand_is_gone_and_its_shift_in_the_hand():
    c = checked(LOGS["token-shift-hand"])
    z = c.match.p["P2"]
    assert findings(c) == [] and c.match.sq["c3"] is None and z["hand"].count("EX-U03") == 1
    assert not any(x.startswith("TOKEN") for x in z["hand"])


def test_202_8a_a_shift_played_onto_a_face_down_card_is_said_onto_it(tmp_path):
    """A Shift played onto a face-down card (301.3b: unnamed, no Z/X to any seat) was narrated "onto the Z/X on c2"
    (QA round 37); it is "onto the face-down card on c2", and no seat's sentence names the card under it."""
    down = [effect(op="move", card="U01-009", from_="hand", to="square", dest="c2", face="down")]
    store = imported_store(tmp_path, {"shift-face-down": turn2() + down + [
        P("P2", "play", card="EX-U03", pay=["U01-004"], from_="dynamis", on="c2"), END2]}, "r38")
    for seat in SEATS:
        r = CliRunner().invoke(zx, ["--store", store, "replay", "r38-shift-face-down", "--as", seat, "--to", "end",
                                    "--format", "json"])
        assert r.exit_code == 0, r.output
        texts = [e["text"] for line in r.stdout.splitlines() if line.strip()
                 for e in json.loads(line)["events"] if "Shift" in e["text"]]
        assert len(texts) == 1 and f"plays the Shift {SHIFT} from Dynamis onto the face-down card on c2, paying " \
            in texts[0], (seat, texts)
        assert "onto the Z/X" not in texts[0] and "U01-009" not in texts[0]
