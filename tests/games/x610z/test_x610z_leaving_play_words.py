"""What a summon or permanent leaving play is called, and the clause a moved summon's activated ability breaks (QA
round 38, X610Z CR V1.1's words). "Destroyed" is a game term (210.7: "A Non Life Base summon that is destroyed leaves
play. The Summon Card moves into owner's discard pile"): 402.8 says "discard the summon that moved in your control
last", 209.2c and 209.2f that the permanent "moves to the Discard Pile"; each goes to its owner's pile, named. 402.10f:
a summon with an activated ability "can either be moved or its ability activated, since both require the activation
of the summon" (it was cited 206.1e)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events import replay
from zx_events.application import MatchService

from x610z_builder import BATTLE, P1_HAND, header, pp, r, refused, text


def eff(op: str, source: str = "S1", **fields) -> dict:
    return r("effect", "P1", source=source, op=op, **fields)


GOLEM_DECK = {**header()["players"]["P1"]["deck"], "A1-010": 17, "A1-023": 1}  # (a Stone Golem: activated ability)
HAND = [c if c != "A1-020" else "A1-023" for c in P1_HAND]


def golem(head: bool = False):
    """Turn 3: P1 places a Stone Golem (A1-023, "(activated) C1: heal 1 damage") from his hand on A2 (a shortcut
    effect of his Iron Keep), P2's turn 4 passes quietly, P1's turn 5 has drawn and holds B2."""
    h = header()
    h["players"]["P1"]["deck"] = GOLEM_DECK
    recs = [dict(x, hand=HAND) if x["do"] == "setup" and x["by"] == "P1" else x for x in BATTLE] + [
        eff("place", card="A1-023", dot="A2", **{"from": "hand"}), r("end", "P1"), r("turn", "P2"),
        r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"), r("end", "P2"), r("turn", "P1"),
        r("draw", "P1", card="A1-010"), eff("energy", type="B", amount=2)]
    return (h, recs) if head else recs


def test_x610z_402_10f_a_moved_summons_activated_ability_is_402_10f_not_206_1e():
    h, recs = golem(head=True)
    moved = recs + [r("move", "P1", **{"from": "A2"}, path=["A3"], pay={"B": 1})] + pp("P1")
    err = refused(moved + [r("ability", "P1", summon="A3", kind="activated", pay={"B": 1})], "402.10f", head=h)
    assert err.message == ("Stone Golem is activated: it can either be moved or its activated ability activated, both "
                           "activating it (it needs it reactivated)")
    # the ability before any move: legal (its summon is activated by it, 402.10f; a move after it is 202.2b's)
    refused(recs + [r("ability", "P1", summon="A2", kind="activated", pay={"B": 1})] + pp("P1")
            + [r("move", "P1", **{"from": "A2"}, path=["A3"], pay={"B": 1})], "202.2b", head=h)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """P1 takes control of P2's Sky Vessel while he controls one (402.8: the one moved in last is discarded, to P2's
    pile), then of P2's Iron Keep (402.8 too: P2's Life Base leaves play, 210.8); a second log whose Sky Vessels are
    dealt lethal damage (210.5)."""
    folder = tmp_path_factory.mktemp("words")
    logs = {"control": BATTLE + [eff("control", dot="B5", to="P1"), eff("control", dot="S4", to="P1"),
                                 r("result", "P1", winner="P1", reason="life_base")],
            "lethal": BATTLE + [eff("damage", dot="B5", amount=2), r("end", "P1")]}
    path = str(folder / "events.sqlite")
    for name, recs in logs.items():
        (folder / f"{name}.x610zlog").write_text(text(recs, header(match=name)))
    r_ = CliRunner().invoke(zx, ["--store", path, "import", "--no-analytics", str(folder)])
    assert r_.exit_code == 0, r_.output
    return path


def _said(store: str, match: str, kind: str, seat: str = "P2") -> list[str]:
    svc = MatchService(store)
    try:
        return [e.text for s in replay.steps(svc, match, seat) for e in s.events if e.kind == kind]
    finally:
        svc.close()


def test_x610z_402_8_a_summon_moved_into_control_is_discarded_to_its_owners_pile(store):
    assert _said(store, "control", "Destroyed") == [
        "Sky Vessel A1-022 on B5 is discarded to P2's Discard Pile as its controller already controls a summon of its "
        "Class (402.8)",
        "Iron Keep A1-002 on S4 is discarded to P2's Discard Pile as its controller already controls a summon of its "
        "Class (402.8)"]


def test_x610z_210_5_a_summon_dealt_lethal_damage_is_destroyed_and_goes_to_its_owners_pile(store):
    assert _said(store, "lethal", "Destroyed", "spectator") == [
        "Sky Vessel A1-022 on B5 is destroyed by lethal damage (210.5) and goes to P2's Discard Pile"]


def test_x610z_210_8_a_life_base_discarded_by_402_8_is_no_destroyed_life_base_in_the_result(store):
    """P2's Iron Keep discarded by 402.8 after P1 took control of it: P1 won by "destroying the other Life Base", the
    one reason text of every Life Base out of play (QA round 38); 210.8 says "leaves play", and so does the result."""
    assert _said(store, "control", "MatchEnded") == [
        "The match ends: P1 won by taking the other Life Base out of play (210.8)"]
