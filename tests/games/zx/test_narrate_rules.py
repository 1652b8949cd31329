"""Z/X's play-by-play says what the rules did (zx_events/games/zx/narrate.py), in words, on zx replay's JSON steps:

- where a destroyed card goes (1007, ``Match._send``): a Z/X to its owner's Charge, a Z/X EX to Dynamis face-up, a
  Token nowhere (202.11c), read from the kind of the card on its Square in the state the event was applied to;
- what a Life card's trigger owes and what a violation waives, said in words, not the engine's keys
  (``recover:P1``, ``life:P2``: ``match._BATTLE_DUES``);
- a Player card an effect would move to another Square stays (303.6a: the engine moves nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.games.zx.sim import simulate

ROOT = Path(__file__).resolve().parents[3]
INVALID = ROOT / "examples" / "invalid"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("words")
    logs = [INVALID / f"{n}.zxlog" for n in ("602.1b-power-0-token-destroyed", "303.6a-player-card-moved",
                                             "604.3b-attack-while-life-owed")]
    for i, sim in enumerate(simulate(23, 11, policy="random")):
        if i in (1, 22):  # sim-11-0002: a Life Recovery and a Void Bringer owed; sim-11-0023: a Z/X EX destroyed
            log = folder / f"{sim.header['match']}.zxlog"
            log.write_text("".join(json.dumps(r) + "\n" for r in (sim.header, *sim.records)), "utf-8")
            logs.append(log)
    path = str(folder / "events.sqlite")
    r = CliRunner().invoke(zx, ["--store", path, "import", "--accept-violations", "--no-analytics",
                                *map(str, logs)])
    assert r.exit_code == 0, r.output
    return path


def events(store: str, match: str, seat: str) -> list[dict]:
    r = CliRunner().invoke(zx, ["--store", store, "replay", match, "--as", seat, "--to", "end", "--format", "json"])
    assert r.exit_code == 0, r.output
    return [e for line in r.stdout.splitlines() for e in json.loads(line)["events"]]


@pytest.mark.parametrize("seat", ("judge", "P1", "P2", "spectator"))
def test_202_11c_a_destroyed_token_disappears_and_is_not_called_by_its_code(store, seat):
    told = [e["text"] for e in events(store, "invalid-602.1b-power-0-token-destroyed", seat)
            if e["kind"] == "ZXDestroyed"]
    assert "the Token Husk on c2 is destroyed by lethal damage and disappears (a Token, 202.11c)" in told
    assert not any("TOKEN" in t for t in told), told


@pytest.mark.parametrize("seat", ("judge", "P1", "P2", "spectator"))
def test_202_11c_a_destroyed_tokens_name_is_masked_as_the_board_masks_it(tmp_path, seat):
    """A Token's name is the log's free text: the judge reads it whole, every other seat with the card names and
    codes in it masked, as its Square on the board and its ``token`` effect's sentence show it (views._square)."""
    text = (INVALID / "602.1b-power-0-token-destroyed.zxlog").read_text("utf-8")
    assert '"name": "Husk"' in text
    log = tmp_path / "named.zxlog"
    log.write_text(text.replace('"name": "Husk"', '"name": "Husk of Flamecrest Lancer R01-010"'), "utf-8")
    path = str(tmp_path / "named.sqlite")
    r = CliRunner().invoke(zx, ["--store", path, "import", "--accept-violations", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
    said = events(path, "invalid-602.1b-power-0-token-destroyed", seat)
    (told,) = [e["text"] for e in said if e["kind"] == "ZXDestroyed" and " on c2 " in e["text"]]
    (made,) = [e["text"] for e in said if e["kind"] == "EffectApplied" and "is put onto c2" in e["text"]]
    if seat == "judge":
        assert told.startswith("the Token Husk of Flamecrest Lancer R01-010 on c2 is destroyed"), told
    else:
        assert "R01-010" not in told and "Flamecrest" not in told and "[card]" in told, told
        assert "R01-010" not in made and "Flamecrest" not in made, made
        assert told.startswith("the Token Husk of ") and " on c2 is destroyed" in told, told


@pytest.mark.parametrize("seat", ("judge", "spectator"))
def test_1007_a_destroyed_zx_ex_goes_to_dynamis_face_up_and_a_zx_to_the_charge(store, seat):
    told = [e["text"] for e in events(store, "sim-11-0023", seat) if e["kind"] == "ZXDestroyed"]
    assert "Crimson Drake Emperor EX-R01 on c3 is destroyed by lethal damage and goes to P1's Dynamis face-up" \
        in told
    zx_ = [t for t in told if "EX-" not in t]
    assert zx_ and all(t.endswith("'s Charge") for t in zx_), told


@pytest.mark.parametrize("seat", ("judge", "spectator"))
def test_1102_1103_a_life_cards_triggers_say_what_is_owed_in_words(store, seat):
    told = [e["text"] for e in events(store, "sim-11-0002", seat) if e["kind"] == "LifeDamaged"]
    assert any(t.endswith("; P1 owes a Life Recovery (1102)") for t in told), told
    assert any(t.endswith("; P2 owes a Void Bringer (1103)") for t in told), told
    assert not any("triggers" in t or "recover:" in t or "void:" in t for t in told)


def test_604_3b_a_waived_life_card_is_said_in_words(store):
    (told,) = [e["text"] for e in events(store, "invalid-604.3b-attack-while-life-owed", "spectator")
               if e["kind"] == "ViolationRecorded"]
    assert told.endswith("(P2's owed Life card (604.3b) is waived)") and "life:P2" not in told


@pytest.mark.parametrize("seat", ("judge", "P2"))
def test_303_6a_a_player_card_an_effect_would_move_stays_on_its_square(store, seat):
    (told,) = [e["text"] for e in events(store, "invalid-303.6a-player-card-moved", seat)
               if e["kind"] == "EffectApplied"]
    assert told.endswith("the Player card on b1 stays on b1 (a Player card does not move, 303.6a)"), told
    assert "goes to c1" not in told
