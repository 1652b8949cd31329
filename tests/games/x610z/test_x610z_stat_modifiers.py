"""Stat modifiers at scale (202.6-202.7c, 402.10e): a summon's stat is its Basic Stat plus the sum of its
modifiers (``effect`` records with ``op: stat``), clamped at 0; the "until end of turn" ones end with
the turn.

The state keeps each stat's sum as modifiers come and go, so a summon holding N modifiers costs the
referee, replay and a seat's view as much as one holding a few: the referee summed every modifier of
every damaged or modified summon after every record (210.5's lethal check), and the view at every event
summed them again for each stat (16,000 on one summon: 3.7 s to audit, 13 s for ``zx view``). The
timing tests compare CPU time (the collector off while measured) of N and 4N modifiers: linear is a
ratio of about 4.
"""

from __future__ import annotations

import random

import pytest

from support import cpu
from x610z_builder import BATTLE, header, r, run, text
from zx_events import replay
from zx_events.application import MatchService
from zx_events.games.x610z.match import STATS, stat
from zx_events.games.x610z.views import build_view
from zx_events.logformat.reader import parse_log

SMALL, LARGE = 5_000, 20_000
LINEAR = 8  # the bound on the ratio of 4x the modifiers: linear is about 4, the quadratic cost it guards against
# 11-16; a CI run with three test processes and browsers beside it (load 4.5) measured 7.0 of a linear 4.0-4.8
B5_DEFENSE = 2  # P2's Sky Vessel (A1-022) on B5 after BATTLE; P1's on B1


def eff(by: str, source: str, op: str, **fields) -> dict:
    return r("effect", by, source=source, op=op, **fields)


def records(n: int) -> list[dict]:
    """BATTLE, then ``n`` permanent +1 defense modifiers on P2's B5 by P1's Sky Vessel on B1."""
    return BATTLE + [eff("P1", "S1", "stat", dot="B5", stat="defense", delta=1, until="permanent")] * n



@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> MatchService:
    """A SQLite store holding the match with SMALL modifiers (``xmods-5000``) and with LARGE."""
    svc = MatchService(str(tmp_path_factory.mktemp("xmods") / "store.sqlite"))
    for n in (SMALL, LARGE):
        (log,) = parse_log(text(records(n), header(match=f"xmods-{n}")), "xmods.x610zlog")
        assert svc.import_log(log).status == "imported"
    yield svc
    svc.close()


def test_x610z_permanent_stat_modifiers_are_checked_in_time_linear_in_their_number():
    small, large = records(SMALL), records(LARGE)
    ratio = cpu(lambda: run(large), runs=3) / cpu(lambda: run(small), runs=3)
    assert ratio < LINEAR, f"checking 4x the modifiers cost {ratio:.1f}x the CPU time (linear: about 4)"


def test_x610z_210_5_defense_with_20000_modifiers_is_the_base_plus_their_sum(stored):
    m, ref = run(records(LARGE) + [eff("P1", "S1", "damage", dot="B5", amount=B5_DEFENSE + LARGE - 1)])
    assert ref.found == [] and stat(m.dots["B5"], "defense") == B5_DEFENSE + LARGE
    assert build_view(m, "P1").dots["B5"].stats["defense"] == B5_DEFENSE + LARGE  # damage 20,001: it stays
    m, ref = run(records(LARGE) + [eff("P1", "S1", "damage", dot="B5", amount=B5_DEFENSE + LARGE)])
    assert ref.found == [] and "B5" not in m.dots  # 210.5: damage equal to its defense destroys it
    replayed = replay.seek(stored, f"xmods-{LARGE}", prepare=False)[0]
    assert build_view(replayed, "P2", lean=True).dots["B5"].stats["defense"] == B5_DEFENSE + LARGE


def test_x610z_replaying_and_viewing_a_match_of_many_modifiers_costs_time_linear_in_them(stored):
    hist = {n: replay.load_history(stored, f"xmods-{n}") for n in (SMALL, LARGE)}
    replayed = {n: cpu(lambda h=h: h.state_at(h.last_seq), runs=3) for n, h in hist.items()}
    ratio = replayed[LARGE] / replayed[SMALL]
    assert ratio < LINEAR, f"replaying 4x the modifiers cost {ratio:.1f}x the CPU time (linear: about 4)"
    final = {n: h.state_at(h.last_seq) for n, h in hist.items()}
    viewed = {n: cpu(lambda m=m: [build_view(m, "P1", lean=True) for _ in range(500)]) for n, m in final.items()}
    ratio = viewed[LARGE] / viewed[SMALL]
    assert ratio < 2, f"a view of a summon with 4x the modifiers cost {ratio:.1f}x the CPU time (about 1)"


@pytest.mark.parametrize("seed", range(4))
def test_x610z_402_10e_modifiers_that_end_leave_the_others_in_order_and_stats_their_sum(seed):
    """Random modifiers of every stat, both untils, on the two summons of BATTLE, turns ending between
    them: each keeps exactly the modifiers that did not end, in the order applied, and each stat (the
    rules', the view's) is its Basic Stat plus their sum, clamped at 0."""
    rng = random.Random(seed)
    m, _ = run(BATTLE)
    held: dict[str, list[list]] = {dot: [] for dot in ("B1", "B5")}
    for _ in range(400):
        if rng.random() < 0.85:
            dot = rng.choice(list(held))
            mod = [rng.choice(STATS), rng.randint(-3, 4), rng.choice(("permanent", "end_of_turn"))]
            m._effect(player="P1", source="B1", op="stat", args=dict(zip(("stat", "delta", "until"), mod), dot=dot))
            held[dot].append(mod)
        else:
            m._turn_ended(player=m.active, discard=[])
            held = {dot: [x for x in mods if x[2] != "end_of_turn"] for dot, mods in held.items()}
        view = build_view(m, "judge")
        for dot, mods in held.items():
            e = m.dots[dot]
            assert e["mods"] == mods, dot
            for name in STATS:
                expected = max(0, e["base"].get(name, 0) + sum(d for s, d, _ in mods if s == name))
                assert stat(e, name) == view.dots[dot].stats[name] == expected, (dot, name)
