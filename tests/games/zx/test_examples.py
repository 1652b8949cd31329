"""The shipped legal examples import cleanly and together show what the rules-engine issue names."""

from __future__ import annotations

from pathlib import Path

import pytest

from zx_events.importer import build_match
from zx_events.logformat.reader import read_log
from zx_events.games.zx.sim.coverage import features

LEGAL = sorted(Path(__file__).resolve().parents[3].joinpath("examples", "legal").glob("*.zxlog"))
SHORT = ("first-turns.zxlog", "rules-fidelity.zxlog")  # a few turns each, not whole matches
COMPLETE = [p for p in LEGAL if p.name not in SHORT]
NAMED = ("battle_on_zx", "battle_on_player", "range_attack", "ignition_play", "charge_excess", "reload",
         "life_recovery", "win_by_life", "concession")


@pytest.mark.parametrize("path", LEGAL, ids=lambda p: p.name)
def test_every_legal_example_imports_strictly(path):
    for log in read_log(path):
        checked = build_match(log, strict=True)
        assert checked.violations == []
        assert checked.match.version > 10


def test_three_complete_matches_of_eight_or_more_turns():
    ended = []
    for path in COMPLETE:
        (log,) = read_log(path)
        m = build_match(log).match
        assert m.turn >= 8, path.name
        assert m.outcome is not None, path.name
        ended.append(m.outcome["reason"])
    assert len(COMPLETE) >= 3
    assert "life" in ended and "concede" in ended


def test_examples_together_show_every_named_feature():
    seen = {k: 0 for k in NAMED}
    for path in COMPLETE:
        (log,) = read_log(path)
        f = features(build_match(log).match.pending_events)
        for k in NAMED:
            seen[k] += f[k]
    assert all(seen.values()), {k: v for k, v in seen.items() if not v}


def _public(m):
    return {k: v for k, v in vars(m).items() if not k.startswith("_")}


@pytest.mark.parametrize("seed", [11, 12])
def test_replaying_the_events_rebuilds_exactly_the_live_state(seed):
    """The engine's direct trigger path and replay run the same @event bodies: same state."""
    from zx_events.games.zx.match import project
    from zx_events.logformat.reader import parse_log
    from zx_events.games.zx.sim.batch import simulate

    logs = [p for path in LEGAL for p in read_log(path)]
    logs += [parse_log("\n".join(s.lines()) + "\n", f"sim-{seed}.zxlog")[0] for s in simulate(15, seed)]
    for log in logs:
        m = build_match(log).match
        assert _public(project(None, list(m.pending_events))) == _public(m), log.match_id


def test_rules_fidelity_example_605_6_lethal_damage_603_1c():
    """examples/legal/rules-fidelity.zxlog: each defect of issue 15 in a legal log (the engine before
    the fix rejected it: the 603.1b passes, a Z/X played on a dead U01-001 and on a dead Token, 806)."""
    (log,) = read_log(LEGAL[0].parent / "rules-fidelity.zxlog")
    checked = build_match(log, strict=True)
    assert checked.violations == []
    evs = checked.match.pending_events
    names = [type(e).__name__ for e in evs]
    assert names.count("AbilityPlayed") == 1  # 603.1c: the startup ability moved priority
    i = names.index("BattleEffectsEnded")  # 605.5, then the kill, then the battle ends (605.6)
    assert names[i + 1:i + 3] == ["ZXDestroyed", "BattleEnded"] and evs[i + 1].code == "U01-001"
    token = [e for e in evs if type(e).__name__ == "ZXDestroyed" and e.code == "TOKEN"]
    assert [(e.square, e.cause) for e in token] == [("c2", "lethal")]
    m = checked.match
    assert m.sq["a2"]["code"] == "R01-004" and m.sq["c2"]["code"] == "R01-002"
