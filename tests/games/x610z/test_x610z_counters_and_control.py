"""Rules the engine applies without reporting them (no record breaks them: docs/rules-x610z.md), each named after
its clause: 209.2b "Every time a permanent with an Activation Counter is activated, 1 counter is removed. (not when
deactivated)"; 209.2e "Every time a permanent with a Time Counter is reactivated, 1 counter is removed. (only by
reactivation during its controller's reactivation phase, not by any other reactivation)"; 214.3 "When a permanent
changes of controller it stays in the exact same state (activated or reactivated), any counters on it will stay on it
unchanged ... All Effects fixed on it changes controller with it aswell"."""

from __future__ import annotations

from x610z_builder import BATTLE, header, pp, r, run

P1_DECK = {**header()["players"]["P1"]["deck"], "A1-010": 17, "A1-025": 1}
HAND = ["A1-010", "A1-011", "A1-025", "A1-050", "A1-040", "A1-031", "A1-022"]  # (Guardian Spirit, Watchtower)


def eff(op: str, by: str = "P1", source: str = "S1", **fields) -> dict:
    return r("effect", by, source=source, op=op, **fields)


def play(extra: list[dict]):
    h = header()
    h["players"]["P1"]["deck"] = P1_DECK
    recs = [dict(x, hand=HAND) if x["do"] == "setup" and x["by"] == "P1" else x for x in BATTLE] + extra
    m, ref = run(recs, h)
    assert ref.found == []
    return m


SPIRIT = [eff("place", card="A1-025", dot="A2", **{"from": "hand"})]  # Guardian Spirit (time:3) on A2
QUIET_P2 = [r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"),
            r("end", "P2")]


def test_x610z_209_2e_a_time_counter_goes_down_only_in_its_controllers_reactivation_phase():
    by_effects = SPIRIT + [eff("deactivate", dot="A2"), eff("reactivate", dot="A2")] * 2
    assert play(by_effects).dots["A2"]["counters"] == {"time": 3}  # (reactivated by effects: none removed)
    assert play(by_effects + QUIET_P2[:2]).dots["A2"]["counters"] == {"time": 3}  # (P2's Reactivation Phase)
    m = play(by_effects + QUIET_P2 + [r("turn", "P1")])
    assert m.dots["A2"]["counters"] == {"time": 2}


def test_x610z_209_2b_an_activation_counter_goes_down_at_each_activation_not_at_a_deactivation():
    watchtower = [eff("energy", type="C", amount=3), r("cast", "P1", card="A1-050", pay={"C": 2})] + pp("P1")
    (p,) = [p for p in play(watchtower).perms if p["code"] == "A1-050"]
    assert p["counters"] == {"activation": 3}
    m = play(watchtower + [eff("deactivate", object="A1-050")])
    assert [p["counters"] for p in m.perms if p["code"] == "A1-050"] == [{"activation": 3}]
    m = play(watchtower + [r("activate", "P1", effect="A1-050", pay={"C": 1}, target="B1")] + pp("P1"))
    assert [(p["counters"], p["act"]) for p in m.perms if p["code"] == "A1-050"] == [({"activation": 2}, True)]


def test_x610z_214_3_a_permanent_changing_controller_keeps_its_state_counters_and_fixed_effects():
    """P1's Guardian Spirit (time 3, activated by an effect) with P1's Swift Boots fixed on it comes under P2's control:
    still activated, its counters unchanged, the Boots P2's as well (their owner P1's)."""
    boots = SPIRIT + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-040", pay={"B": 1}, target="A2")] \
        + pp("P1") + [eff("deactivate", dot="A2"), eff("control", dot="A2", to="P2")]
    m = play(boots)
    e = m.dots["A2"]
    assert (e["ctrl"], e["owner"], e["act"], e["counters"]) == ("P2", "P1", True, {"time": 3})
    assert [(p["ctrl"], p["owner"]) for p in m.perms if p["code"] == "A1-040"] == [("P2", "P1")]
