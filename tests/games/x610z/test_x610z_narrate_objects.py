"""X610Z's play-by-play names what an attack, its damage and an effect act on in the game's words, never by the
engine's object numbers (a ``uid``, which no surface shows: the board names a summon by its dot and card); and a
player's name that already starts with his seat (a simulated match's "P1 bot") is not said after the seat again."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events import games
from zx_events.seats import HIDDEN

ROOT = Path(__file__).resolve().parents[3]
CONCESSION = ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog"  # x610z-sim-7-0279: attacks on Iron Keep
NAMES = {"A1-002": "Iron Keep", "A1-040": "Swift Boots", "A1-050": "Watchtower"}
X = games.get("x610z")


def say(kind: str, fields: dict, players: dict | None = None) -> str:
    return X.narrate(kind, fields, NAMES, players or {"P1": "Mia"})


def test_202_3_an_attack_names_its_target_by_its_dot_not_its_object_number():
    attack = {"player": "P1", "pay": {}, "entry": {"id": 90, "kind": "attack", "by": "P1", "uid": 7, "from": "A1",
                                                   "path": ["A2", "A3"], "target": 2, "trail": [], "pos": None}}
    assert say("Announced", attack) == "P1 Mia attacks with the summon on A1 via A2 → A3 targeting the summon on A3"


def test_202_5a_battle_damage_names_the_attacked_summon_not_its_object_number():
    text = say("Resolved", {"outcome": "done", "facts": {"target": 2, "damage": 2}})
    assert text == "The top of the stack resolves: 2 damage to the attacked summon"


def test_206_1_a_permanent_fixed_on_its_target_and_an_effect_on_an_object_say_no_object_number():
    assert say("Resolved", {"outcome": "done", "facts": {"on": 4}}) == \
        "The top of the stack resolves: the card is fixed on its target"
    effect = {"player": "P2", "source": "S4", "op": "deactivate", "args": {"object": "A1-050", "uid": 12}}
    assert say("EffectApplied", effect) == "P2 resolves the summon on S4: Watchtower A1-050 is deactivated"
    effect["args"] = {"uid": 12}  # (no code to name it by)
    assert "#" not in say("EffectApplied", effect)
    assert "#" not in say("Announced", {"player": "P1", "pay": {}, "entry": {"kind": "trigger", "by": "P1",
                                                                            "source": "S1", "target": {"uid": 3}}})
    trigger = {"player": "P1", "pay": {}, "entry": {"kind": "ability", "by": "P1", "card": "A1-002", "uid": 1,
                                                    "ability": "activated", "target": "A1-040"}}
    assert say("Announced", trigger).endswith("ability of Iron Keep A1-002")  # (an ability names no target field)
    trigger["entry"] = {"kind": "trigger", "by": "P1", "source": "S1", "target": "A1-040"}
    assert say("Announced", trigger) == "P1 Mia's trigger of the summon on S1 goes on the stack targeting Swift " \
                                        "Boots A1-040"
    trigger["entry"]["target"] = HIDDEN
    assert say("Announced", trigger).endswith("targeting a card")


def test_a_players_name_that_starts_with_his_seat_is_said_once():
    assert say("Passed", {"player": "P1"}, {"P1": "P1 bot"}) == "P1 bot passes"
    assert say("Passed", {"player": "P2"}, {"P2": "P2"}) == "P2 passes"
    assert say("Passed", {"player": "P1"}, {"P1": "P10 bot"}) == "P1 P10 bot passes"
    assert say("Passed", {"player": "P1"}, {"P1": "Mia"}) == "P1 Mia passes"


@pytest.fixture(scope="module")
def concession(tmp_path_factory) -> str:
    """A store holding examples/x610z/legal/concession.x610zlog (x610z-sim-7-0279)."""
    folder = tmp_path_factory.mktemp("concession")
    store = str(folder / "x.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", str(CONCESSION)],
                           env={"ZX_ANALYTICS": str(folder / "x.duckdb")})
    assert r.exit_code == 0, r.output
    return store


def replayed(store: str, seat: str) -> list[dict]:
    """Every step of x610z-sim-7-0279 as ``seat`` sees it (``zx replay --to end --format json``)."""
    r = CliRunner().invoke(zx, ["--store", store, "replay", "x610z-sim-7-0279", "--as", seat, "--to", "end",
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.stdout.splitlines()]


def test_a_replayed_match_says_no_object_number_to_any_seat(concession):
    for seat in ("judge", "P1", "P2", "spectator"):
        texts = {e["seq"]: e["text"] for step in replayed(concession, seat) for e in step["events"]}
        assert not [t for t in texts.values() if re.search(r"#\d", t)], seat
        assert texts[102] == "P1 bot attacks with Storm Caller A1-024 on A1 via A2 → A3 targeting Iron Keep " \
                             "A1-002 on A3"
        assert texts[105] == "The top of the stack resolves: 2 damage to Iron Keep A1-002 on A3"
        assert texts[138] == "P1 bot moves Storm Caller A1-024 on A1 along A1 → B1 → B2, paying 1 M energy"


def test_202_5a_battle_damage_names_the_attacked_summon_by_its_card_in_the_state_before_it():
    """The damage's target is the attacked summon's object number: the summon with it in the state the event was
    applied to, by card and dot as the board shows it (Play is public, 503.2); its card unknown there, by its dot;
    without that state, or none with that number there, "the attacked summon"."""
    damage = {"outcome": "done", "facts": {"target": 2, "damage": 3}}
    before = SimpleNamespace(dots={"A1": _summon(7, "A1-040", "P1"), "A3": _summon(2, "A1-002", "P2")})
    assert X.narrate("Resolved", damage, NAMES, {"P1": "Mia"}, before=before) == \
        "The top of the stack resolves: 3 damage to Iron Keep A1-002 on A3"
    for state in (None, SimpleNamespace(dots={"A3": _summon(5, "A1-002", "P2")})):
        assert X.narrate("Resolved", damage, NAMES, {"P1": "Mia"}, before=state) == \
            "The top of the stack resolves: 3 damage to the attacked summon"
    assert X.narrate("Resolved", damage, NAMES, {"P1": "Mia"}, before=SimpleNamespace(
        dots={"A3": _summon(2, HIDDEN, "P2")})) == "The top of the stack resolves: 3 damage to the summon on A3"


def test_600_3_a_move_names_the_summon_it_moves_by_its_card_in_the_state_before_it():
    move = {"player": "P1", "pay": {}, "entry": {"id": 9, "kind": "move", "by": "P1", "uid": 7, "from": "A1",
                                                 "path": ["A2"], "trail": ["A1", "A2"]}}
    before = SimpleNamespace(dots={"A1": _summon(7, "A1-040", "P1")})
    assert X.narrate("Announced", move, NAMES, {"P1": "Mia"}, before=before) == \
        "P1 Mia moves Swift Boots A1-040 on A1 along A1 → A2"
    assert X.narrate("Announced", move, NAMES, {"P1": "Mia"}) == "P1 Mia moves the summon on A1 along A1 → A2"


def test_202_3_an_attack_announced_as_nothing_reads_an_attack():
    void = {"player": "P1", "pay": {}, "entry": {"id": 9, "kind": "attack", "by": "P1", "uid": None, "from": "A1",
                                                 "path": ["A2"], "target": None, "void": True}}
    assert say("Announced", void) == "P1 Mia announces an attack, which is not there to be announced: it does nothing"


def _summon(uid: int, code: str, owner: str) -> dict:
    return {"uid": uid, "code": code, "owner": owner, "ctrl": owner}


ATTACK = {"player": "P1", "pay": {}, "entry": {"id": 90, "kind": "attack", "by": "P1", "uid": 7, "from": "A1",
                                               "path": ["A2", "A3"], "target": 2, "trail": [], "pos": None}}


def test_202_3_an_attack_names_its_attacker_and_its_target_by_their_cards_in_the_state_before_it():
    """Play is public (503.2, views.build_view shows every dot's card to every seat): the attack names the
    summons it is made with and at as the board does, by card and dot, read from the state it was applied to."""
    before = SimpleNamespace(dots={"A1": _summon(7, "A1-040", "P1"), "A3": _summon(2, "A1-002", "P2")})
    text = X.narrate("Announced", ATTACK, NAMES, {"P1": "Mia"}, before=before)
    assert text == "P1 Mia attacks with Swift Boots A1-040 on A1 via A2 → A3 targeting Iron Keep A1-002 on A3"
    foreign = {**ATTACK, "entry": {**ATTACK["entry"], "uid": None}}  # (a summon not the player's: 214.2)
    assert X.narrate("Announced", foreign, NAMES, {"P1": "Mia"}, before=before).startswith(
        "P1 Mia attacks with Swift Boots A1-040 on A1 ")


def test_202_3_an_attack_on_a_summon_the_state_does_not_show_keeps_the_summon_on_its_dot():
    """A card the state holds as unknown (``?``), another summon on the dot than the one attacked, or no state at
    all: "the summon on" its dot, never a card the seat may not see."""
    hidden = SimpleNamespace(dots={"A1": _summon(7, HIDDEN, "P1"), "A3": _summon(5, "A1-002", "P2")})
    text = X.narrate("Announced", ATTACK, NAMES, {"P1": "Mia"}, before=hidden)
    assert text == "P1 Mia attacks with the summon on A1 via A2 → A3 targeting the summon on A3"
    assert X.narrate("Announced", ATTACK, NAMES, {"P1": "Mia"}) == text


def test_202_3_every_seat_reads_the_cards_of_an_attack_and_only_those_on_the_field(concession):
    """Per seat (judge, P1, P2, spectator): each attack names its attacker and target by card, and every card an
    attack sentence names is one on the field in the seat's own view before it (never a hand's or a deck's)."""
    for seat in ("judge", "P1", "P2", "spectator"):
        steps = replayed(concession, seat)
        attacks = 0
        for prev, step in zip(steps, steps[1:]):
            field = {d["code"] for d in prev["state"]["dots"].values()}
            for e in step["events"]:
                if e["kind"] != "Announced" or " attacks with " not in e["text"]:
                    continue
                attacks += 1
                named = set(re.findall(r"[A-Z]\d-\d{3}", e["text"]))
                assert len(named) >= 1 and named <= field, (seat, e["text"])
                assert "the summon on" not in e["text"], (seat, e["text"])
        assert attacks >= 5, seat
        texts = {e["seq"]: e["text"] for s in steps for e in s["events"]}
        assert texts[128] == "P2 bot attacks with Sky Vessel A1-022 on B1 via A1 targeting Storm Caller A1-024 on A1"


def test_503_1_an_effect_names_its_source_summon_and_the_summon_it_acts_on_by_their_cards_in_the_state_before_it():
    """An effect's ``source`` and ``dot`` name summons by their dots (docs/match-log-x610z.md); the sentence names
    them as the board does, by card and dot, from the state the effect was applied to (Play is public, 503.2):
    "P1 bot resolves the summon on S1: the summon on S4 is dealt 1 damage" where the state showed Storm Caller on S1
    and Iron Keep on S4. A dot the state shows no card on (none there, ``?``, or no state) stays "the summon on"."""
    names = {**NAMES, "A1-024": "Storm Caller"}
    damage = {"player": "P1", "source": "S1", "op": "damage", "args": {"dot": "S4", "amount": 1}}
    before = SimpleNamespace(dots={"S1": _summon(5, "A1-024", "P1"), "S4": _summon(2, "A1-002", "P2")})
    assert X.narrate("EffectApplied", damage, names, {"P1": "P1 bot"}, before=before) == \
        "P1 bot resolves Storm Caller A1-024 on S1: Iron Keep A1-002 on S4 is dealt 1 damage"
    trigger = {"player": "P1", "pay": {}, "entry": {"kind": "trigger", "by": "P1", "source": "S1", "uid": 5,
                                                    "target": "S4"}}
    assert X.narrate("Announced", trigger, names, {"P1": "P1 bot"}, before=before) == \
        "P1 bot's trigger of Storm Caller A1-024 on S1 goes on the stack targeting Iron Keep A1-002 on S4"
    unseen = SimpleNamespace(dots={"S1": _summon(5, HIDDEN, "P1")})
    for state in (unseen, None):
        assert X.narrate("EffectApplied", damage, names, {"P1": "P1 bot"}, before=state) == \
            "P1 bot resolves the summon on S1: the summon on S4 is dealt 1 damage"
    coded = {**damage, "source": "A1-024"}  # (a source by its code: the card)
    assert X.narrate("EffectApplied", coded, names, {"P1": "P1 bot"}, before=before) == \
        "P1 bot resolves Storm Caller A1-024: Iron Keep A1-002 on S4 is dealt 1 damage"


def test_503_1_every_seat_reads_the_cards_of_a_summons_effect(concession):
    """x610z-sim-7-0279: Storm Caller's trigger on S6 deals 1 damage to P2's Iron Keep on A3 (seq 87, 91); every
    seat reads both by card (Play is public), and every card an effect sentence names is on the field in the seat's
    view before it, or the effect's own code (a card resolving) or the seat sees it in its event's fields."""
    for seat in ("judge", "P1", "P2", "spectator"):
        steps = replayed(concession, seat)
        texts = {e["seq"]: e["text"] for s in steps for e in s["events"]}
        assert texts[87] == "P1 bot's trigger of Storm Caller A1-024 on S6 goes on the stack targeting Iron Keep " \
                            "A1-002 on A3", seat
        assert texts[91] == "P1 bot resolves Storm Caller A1-024 on S6: Iron Keep A1-002 on A3 is dealt 1 damage", seat
        for prev, step in zip(steps, steps[1:]):
            field = {d["code"] for d in prev["state"]["dots"].values()}
            for e in step["events"]:
                if e["kind"] == "EffectApplied":
                    named = set(re.findall(r"[A-Z]\d-\d{3}", e["text"]))
                    assert named <= field | set(re.findall(r"[A-Z]\d-\d{3}", json.dumps(e["data"]))), (seat, e)
