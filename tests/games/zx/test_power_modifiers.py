"""Power modifiers at scale: a Z/X's Power is its base plus the sum of its modifiers (``effect`` records
with ``op: power``), and the modifiers "until end of turn" (507) and "until end of battle" (605.5) end.

The state keeps that sum as modifiers come and go (``add_mod``, ``end_mods``), so a Z/X holding N
modifiers costs the rules engine, replay and a seat's view as much as one holding a few: the referee
summed every modifier of every card after every record, and the viewer's view at every event did the
same, so N permanent modifiers cost N² (QA: 49,900 of them, a 5.5 MB log within the limits, took 26 s
to audit). The timing tests compare CPU time (``time.process_time``, the collector off while measured)
of N and 4N modifiers in one process: linear is a ratio of about 4, the old cost about 11-16.
"""

from __future__ import annotations

import random

import pytest

from support import BOARD, cpu, header, run, text
from zx_events import replay
from zx_events.application import MatchService
from zx_events.games.zx.engine.referee import _lethal_after_battle
from zx_events.games.zx.match import power_of
from zx_events.games.zx.views import build_view
from zx_events.logformat.reader import parse_log

SMALL, LARGE = 5_000, 20_000
LINEAR = 8  # the bound on the ratio of 4x the modifiers: linear is about 4, the quadratic cost it guards against
# 11-16; a CI run with three test processes and browsers beside it (load 4.5) measured 7.0 of a linear 4.0-4.8
A1_BASE = 3000  # R01-002 on a1 after BOARD; P2's U01-001 (1500) on a2


def records(n: int) -> list[dict]:
    """BOARD, then ``n`` permanent +1 modifiers on P1's a1, then a1 attacks a2 and the turn ends."""
    mod = {"do": "effect", "by": "P1", "source": "a1", "op": "power", "square": "a1", "delta": 1,
           "until": "permanent"}
    return [*BOARD, *([mod] * n), {"do": "attack", "by": "P1", "from": "a1", "target": "a2"},
            {"do": "pass", "by": "P1"}, {"do": "pass", "by": "P2"}, {"do": "end", "by": "P1"}]



@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> MatchService:
    """A SQLite store holding the match with SMALL modifiers (``mods-5000``) and with LARGE (``mods-20000``)."""
    svc = MatchService(str(tmp_path_factory.mktemp("mods") / "store.sqlite"))
    for n in (SMALL, LARGE):
        (log,) = parse_log(text(records(n), header(f"mods-{n}")), "mods.zxlog")
        assert svc.import_log(log).status == "imported"
    yield svc
    svc.close()


def test_permanent_power_modifiers_are_checked_in_time_linear_in_their_number():
    small, large = records(SMALL), records(LARGE)
    ratio = cpu(lambda: run(large), runs=3) / cpu(lambda: run(small), runs=3)
    assert ratio < LINEAR, f"checking 4x the modifiers cost {ratio:.1f}x the CPU time (linear: about 4)"


def test_power_with_20000_modifiers_is_the_base_plus_their_sum_in_the_rules_and_the_views(stored):
    c = run(records(LARGE))
    (attack,) = [e for e in c.match.pending_events if type(e).__name__ == "AttackDeclared"]
    assert attack.attacker["power"] == A1_BASE + LARGE  # 602: the attacker's Power, as the event carries it
    (destroyed,) = [e for e in c.match.pending_events if type(e).__name__ == "ZXDestroyed"]
    assert (destroyed.square, destroyed.code) == ("a2", "U01-001")  # 604.3d: 23,000 damage into 1,500
    a1 = c.match.sq["a1"]
    assert power_of(a1) == A1_BASE + LARGE == A1_BASE + sum(d for d, _ in a1["mods"])
    assert len(a1["mods"]) == LARGE  # permanent: the end of the turn (507) leaves every one
    m = replay.seek(stored, f"mods-{LARGE}", prepare=False)[0]  # (no snapshots written)
    for lean in (False, True):
        v = build_view(m, "P2", lean=lean).square("a1")
        assert (v.base, v.power, len(v.mods)) == (A1_BASE, A1_BASE + LARGE, 0 if lean else LARGE)


def test_replaying_and_viewing_a_match_of_many_modifiers_costs_time_linear_in_them(stored):
    """Replay (every event projected, as ``zx view`` and ``zx replay`` do) is linear in the events; a
    seat's view, built at every event by the viewer, costs the same whatever the modifiers held."""
    hist = {n: replay.load_history(stored, f"mods-{n}") for n in (SMALL, LARGE)}
    replayed = {n: cpu(lambda h=h: h.state_at(h.last_seq), runs=3) for n, h in hist.items()}
    ratio = replayed[LARGE] / replayed[SMALL]
    assert ratio < LINEAR, f"replaying 4x the modifiers cost {ratio:.1f}x the CPU time (linear: about 4)"
    final = {n: h.state_at(h.last_seq) for n, h in hist.items()}
    viewed = {n: cpu(lambda m=m: [build_view(m, "P1", lean=True) for _ in range(500)]) for n, m in final.items()}
    ratio = viewed[LARGE] / viewed[SMALL]
    assert ratio < 2, f"a view of a Z/X with 4x the modifiers cost {ratio:.1f}x the CPU time (about 1)"


@pytest.mark.parametrize("seed", range(4))
def test_507_605_5_modifiers_that_end_leave_the_others_in_order_and_power_is_their_sum(seed):
    """Random modifiers of every kind on the four Z/X of BOARD, ends of turn (507) and of battle
    (605.5) between them: each Z/X keeps exactly the modifiers that did not end, in the order they
    were applied; its Power (the rules', the view's) is its base plus their sum; and 605.6 finds a Z/X
    lethal once its "until end of battle" modifiers end exactly when their end leaves it so."""
    rng = random.Random(seed)
    m = run(BOARD).match
    held: dict[str, list[list]] = {sq: [] for sq in ("a1", "b2", "a2", "b3")}
    for _ in range(400):
        roll = rng.random()
        if roll < 0.85:
            sq = rng.choice(list(held))
            delta, until = rng.randint(-4, 6) * 500, rng.choice(("permanent", "end_of_turn", "end_of_battle"))
            m._effect(player="P1", source=sq, op="power", args={"square": sq, "delta": delta, "until": until})
            held[sq].append([delta, until])
        else:
            ending = "end_of_turn" if roll < 0.93 else "end_of_battle"
            if ending == "end_of_turn":
                m._turn_ended(player="P1", discard=[])
            else:
                m._battle_ended(outcome="survived")
            held = {sq: [x for x in mods if x[1] != ending] for sq, mods in held.items()}
        for sq, mods in held.items():
            e = m.sq[sq]
            e["dmg"] = rng.randint(0, 8) * 500
            assert e["mods"] == mods, sq
            assert power_of(e) == e["base"] + sum(d for d, _ in mods), sq
            v = build_view(m, "judge").square(sq)
            assert (v.power, v.mods) == (e["base"] + sum(d for d, _ in mods), tuple(map(tuple, mods))), sq
        left = {sq: m.sq[sq]["base"] + sum(d for d, u in mods if u != "end_of_battle") for sq, mods in held.items()}
        assert _lethal_after_battle(m) == any(
            any(u == "end_of_battle" for _, u in mods) and (left[sq] <= 0 or m.sq[sq]["dmg"] >= left[sq])
            for sq, mods in held.items())
