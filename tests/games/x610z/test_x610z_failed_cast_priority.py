"""digest.11: who holds priority after an action that fails for want of energy (200.5; docs/rules-x610z.md, choice 4).

The logs are QA round 27's (tests/data/x610z-200.5-under-*.x610zlog): turn 3, P1's pool holds M1 B1 and he casts
Hunter Dragon (A1-020, cost M2). Under digest.10 the failed cast left priority with P1, so P2's legal pass after it was
"201.3 P2 passes without priority (P1 has it)": strict import refused the legal log, and the underpayment of the bad
log was two findings. The cast was announced (200.5: "After an action is announced ... the card returns to caster's
hand"), so priority goes to the next player (201.4), as after any announcement, a void one too (digest.8)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from x610z_builder import BATTLE, pp, r, run
from x610z_support import play

from zx_events.errors import RuleViolation
from zx_events.ids import project

DATA = Path(__file__).resolve().parents[2] / "data"


def _audited(name: str):
    """Lenient mode (the audit): the match and its findings as (line, player, rule)."""
    path = DATA / f"x610z-200.5-under-{name}.x610zlog"
    (m, ref), = play(path.read_text(), strict=False, source=path.name)
    return m, [(v.line, v.player, v.rule) for v in ref.found]


def _strict(name: str):
    path = DATA / f"x610z-200.5-under-{name}.x610zlog"
    (m, _), = play(path.read_text(), strict=True, source=path.name)
    return m


def test_x610z_200_5_after_a_cast_failed_for_want_of_energy_the_opponent_has_priority():
    """200.5-under-ok: P1 pays M1 B1 for M2 (all he has, B1 for the missing M), the cast fails and Hunter Dragon goes
    back to his hand (line 25); P2 passes (line 26), then P1 (27): the Action Phase ends, P1 ends his turn. No finding,
    and strict import accepts the log (it was '201.3 P2 passes without priority (P1 has it)' at line 26)."""
    m, found = _audited("ok")
    assert found == []
    m = _strict("ok")
    assert m.outcome == {"winner": "P1", "reason": "concede"}
    assert "A1-020" in m.p["P1"]["hand"] and "A1-020" not in m.p["P1"]["discard"]


def test_x610z_200_5_a_failed_cast_passes_priority_on_and_takes_no_stack():
    """The state right after the failed cast: P2 holds priority with no pass counted (201.4), the stack is empty and
    the Action Phase goes on; after P2's and P1's passes the End Phase begins, priority to P2 (704.1)."""
    text = (DATA / "x610z-200.5-under-ok.x610zlog").read_text().splitlines()
    (m, ref), = play("\n".join(text[:25]), strict=True)  # up to line 25, the cast
    assert (m.phase, m.prio, m.passes, m.stack) == ("action", "P2", 0, [])
    assert m.p["P1"]["pool"] == {}
    for no in (26, 27):
        ref.handle(no, json.loads(text[no - 1]))
    assert (m.phase, m.prio, m.stack) == ("end", "P2", [])


def test_x610z_200_5_after_a_failed_cast_its_player_passing_first_is_one_201_3():
    """200.5-under-p1first: P1 passes first after his failed cast (line 26), then P2 (27). P2 held priority, so P1's
    pass is one 201.3, read as the two passes logged in the wrong order (digest.8): both count, the Action Phase ends
    and P1's `end` at line 28 is no 703.7. (Under digest.10, P1 kept priority and the log was clean.)"""
    m, found = _audited("p1first")
    assert found == [(26, "P1", "201.3")]
    assert m.violations[0]["message"] == "P1 passes without priority (P2 has it)"
    assert m.outcome == {"winner": "P1", "reason": "concede"}
    with pytest.raises(RuleViolation) as e:
        _strict("p1first")
    assert (e.value.rule, e.value.line) == ("201.3", 26)


def test_x610z_200_5_an_underpayment_while_energy_remained_is_one_finding():
    """200.5-under-bad: P1 pays M1 for M2 while B1 is still in his pool (200.5: as much as possible): one 200.5 at
    line 25, and P2's pass after it (line 26) none (it was a second finding, 201.3)."""
    m, found = _audited("bad")
    assert found == [(25, "P1", "200.5")]
    assert m.outcome == {"winner": "P1", "reason": "concede"}


def test_x610z_200_5_a_failed_cast_followed_by_the_end_of_the_turn_is_legal():
    """200.5-under-noPass: the failed cast, then P1's `end` (no passes: the passes that close a phase may be left
    out): legal, as it was."""
    m, found = _audited("noPass")
    assert found == []
    assert _strict("noPass").outcome == {"winner": "P1", "reason": "concede"}


def test_x610z_200_5_a_movement_failed_for_want_of_energy_passes_priority_on_too():
    """A movement is announced as a cast is (200.5, 202.2a): one that fails for want of energy gives priority to the
    next player. Turn 3: P1 spends his B1 on Discount, then moves his Life Base S1 > A1 (Movement Energy C1) with an
    empty pool and no crystal left to activate: it fails; P2 passes, then P1, and the Action Phase ends (P2's pass was
    201.3 under digest.10)."""
    recs = BATTLE + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1")
    m, ref = run(recs, strict=False)
    assert ref.found == [] and m.p["P1"]["pool"] == {}
    recs += [r("move", "P1", **{"from": "S1"}, path=["A1"], pay={})]
    m, ref = run(recs, strict=True)
    assert (m.phase, m.prio, m.passes, m.stack) == ("action", "P2", 0, [])
    assert "S1" in m.dots  # the Life Base did not move
    m, ref = run(recs + [r("pass", "P2"), r("pass", "P1")], strict=True)
    assert m.phase == "end" and ref.found == []


def test_x610z_200_5_a_match_imported_under_digest_10_replays_a_failed_cast_as_it_was_imported(monkeypatch):
    """The priority after a failure is a digest.11 change in the state's own handler (ActionFailed): a match stored
    under digest.10 replays with P1 still holding priority after his failed cast, as it was checked."""
    import zx_events.games.x610z.setup as setup
    from zx_events.games import digest_of

    text = "\n".join((DATA / "x610z-200.5-under-p1first.x610zlog").read_text().splitlines()[:25])

    def prio_after_failure(events) -> str:
        m = None
        for e in events:
            m = project(m, [e])
            if type(e).__name__ == "ActionFailed":
                return m.prio
        raise AssertionError("no ActionFailed event")

    monkeypatch.setattr(setup, "RULES_VERSION", "x610z-cr-1.1+digest.10")
    (old, _), = play(text, strict=True)
    monkeypatch.undo()
    events = copy.deepcopy(list(old.pending_events))
    assert events[0].rules_version == "x610z-cr-1.1+digest.10"
    assert prio_after_failure(copy.deepcopy(events)) == "P1"
    (new, _), = play(text, strict=True)
    events = copy.deepcopy(list(new.pending_events))
    assert digest_of(events[0].rules_version) >= 11
    assert prio_after_failure(events) == "P2"
