"""digest.8: a record the referee refuses without applying it leaves priority as the log's next records expect,
so one mistake is one finding (docs/rules-x610z.md). A stackable announcement (or a trigger) naming a summon, card,
permanent or dot that is not there goes on the stack as nothing (``void``) and fizzles when it resolves: the passes
logged after it resolve it. Under digest.7 it was skipped and priority stayed with its player, so the other player's
legal pass after it was a second finding, "201.3 passes without priority". A draw of a card not in the deck is the
Draw Phase's draw all the same (leaving the phase was a second finding, 702.1)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zx_cli.main import zx
from zx_events.games.x610z.render import zones
from zx_events.games.x610z.setup import board_for, catalog_for, open_match
from zx_events.games.x610z.sim import simulate
from zx_events.games.x610z.views import build_view

from x610z_builder import BATTLE, SETUP, pp, r, refused, run
from test_x610z_rows import project


def audit(records: list[dict]):
    """Lenient mode (the audit, --accept-violations): the match and its violations as (line, player, rule)."""
    m, ref = run(records, strict=False)
    return m, [(v.line, v.player, v.rule) for v in ref.found]


def at(records: list[dict]) -> int:
    """The line of the last record (the header is line 1)."""
    return len(records) + 1


# BATTLE: turn 3, P1 (drawn, priority) has his Sky Vessel on B1, P2 his on B5; A3 is empty, Z9 is no dot
REFUSED = {
    "move-from-an-empty-dot": (r("move", "P1", **{"from": "A3"}, path=["A4"], pay={"C": 1}), "202.2"),
    "move-off-the-board": (r("move", "P1", **{"from": "B1"}, path=["Z9"], pay={}), "600.3"),
    "attack-from-an-empty-dot": (r("attack", "P1", **{"from": "A3"}, target="B5", path=["A4", "A5", "B5"]), "202.3"),
    "attack-on-an-empty-dot": (r("attack", "P1", **{"from": "B1"}, target="A3", path=["A2", "A3"]), "202.3"),
    "attack-path-not-to-the-target": (r("attack", "P1", **{"from": "B1"}, target="B5", path=["B6"]), "202.3"),
    "attack-off-the-board": (r("attack", "P1", **{"from": "B1"}, target="B5", path=["Z9", "B5"]), "600.3"),
    # (a card of his deck list would be played as written, for a card of the hand the log does not name: digest.9)
    "cast-not-in-hand": (r("cast", "P1", card="A1-033", pay={}), "200.1a"),
    "cast-summon-on-no-dot": (r("cast", "P1", card="A1-020", pay={}), "402.6"),
    "cast-summon-off-the-board": (r("cast", "P1", card="A1-020", dot="Z9", pay={}), "402.6"),
    "activate-not-in-play": (r("activate", "P1", effect="A1-050", pay={}), "500.1"),
    "ability-of-an-empty-dot": (r("ability", "P1", summon="A3", kind="activated", pay={}), "500.1"),
    "trigger-from-an-empty-dot": (r("trigger", "P1", source="A3"), "500.1"),
    "trigger-from-a-card-in-hand": (r("trigger", "P1", source="A1-030"), "500.1"),
}


@pytest.mark.parametrize("kind", list(REFUSED))
def test_x610z_201_3_the_pass_after_a_refused_announcement_is_legal(kind):
    """The refused record is the one finding: P2's pass after it is legal (it was 201.3), P1's resolves it (it
    fizzles), and P1 ends his turn with an empty stack."""
    bad, rule = REFUSED[kind]
    recs = BATTLE + [bad]
    m, found = audit(recs + pp("P1") + [r("end", "P1")])
    assert found == [(at(recs), "P1", rule)]
    assert m.stack == [] and m.turn == 3 and m.phase == "over"
    assert m.violations[0]["applied"] is True  # (announced as nothing: the Announced event carries the record)
    refused(recs, rule)  # strict import stops there as before


@pytest.mark.parametrize("kind", list(REFUSED))
def test_x610z_201_3_a_refused_announcement_changes_nothing_but_the_stack_and_priority(kind):
    """On the stack it names nothing: no card leaves a hand, no summon is activated, moved or attacked with; the
    priority goes to the other player (201.4); when it resolves it fizzles, and nothing goes to a Discard Pile."""
    bad, _ = REFUSED[kind]
    before = run(BATTLE)[0]
    m, _ = audit(BATTLE + [bad])
    assert m.prio == "P2" and m.passes == 0 and len(m.stack) == 1 and m.stack[0]["void"] is True
    view = build_view(m)
    assert view.stack[0]["void"] is True and zones(view)[-1].endswith("(refused: it fizzles)")
    m, _ = audit(BATTLE + [bad] + pp("P1"))
    assert m.stack == [] and m.prio == "P1"
    assert m.dots == before.dots and m.perms == before.perms
    assert [(z["hand"], z["discard"]) for z in m.p.values()] == [(z["hand"], z["discard"]) for z in before.p.values()]


def test_x610z_201_3_a_refused_announcement_by_the_player_without_priority_is_its_own_findings_only():
    """P2 casts a Dragon Fury he does not hold while P1 has priority in his Action Phase: 201.3 and 200.1a at its
    line; P1's pass and P2's after it resolve it, and P1 goes on with his turn."""
    recs = BATTLE + [r("crystal", "P1", card="A1-010"), r("cast", "P2", card="A1-033", target="B5", pay={})]
    _, found = audit(recs + [r("pass", "P1"), r("pass", "P2"), r("end", "P1")])
    assert found == [(at(recs), "P2", "201.3"), (at(recs), "P2", "200.1a")]


def test_x610z_201_3_a_refused_trigger_of_the_reactive_player_needs_no_priority():
    recs = BATTLE + [r("trigger", "P2", source="A3")]
    _, found = audit(recs + [r("pass", "P1"), r("pass", "P2"), r("end", "P1")])
    assert found == [(at(recs), "P2", "500.1")]


def test_x610z_201_3_a_refused_announcement_in_the_end_phase_is_resolved_by_the_passes_after_it():
    """In the End Phase the reactive player has priority first (201.3b): P2 activates a Watchtower he does not
    control; P1's pass and P2's resolve it, priority is P2's again (201.6), and both pass to end the phase. (BATTLE
    ends with P1's draw, which ended his Draw Phase, 702.3: two passes end his Action Phase; the log passed twice more,
    as under digest.7, and P1's first pass in the End Phase was 201.3.)"""
    recs = BATTLE + [r("pass", "P1"), r("pass", "P2"), r("activate", "P2", effect="A1-050", pay={})]
    m, found = audit(recs + [r("pass", "P1"), r("pass", "P2"), r("pass", "P2"), r("pass", "P1")])
    assert found == [(at(recs), "P2", "500.1")] and m.phase == "closed"
    _, found = audit(recs + [r("pass", "P1"), r("pass", "P2"), r("pass", "P2"), r("pass", "P1"), r("end", "P1")])
    assert found == [(at(recs), "P2", "500.1")]


def test_x610z_201_3_an_effect_logged_for_a_refused_announcement_is_refused_as_a_fizzled_actions():
    """Nothing of a refused cast takes place: the damage its resolution logs is 210.4, as after any action that
    fizzled (digest.4; test_x610z_applied_as_played: the 200.4 activation). (A1-033 is not in P1's deck list: one of
    it would be played as written, digest.9.)"""
    recs = BATTLE + [r("cast", "P1", card="A1-033", pay={})]
    _, found = audit(recs + pp("P1") + [r("effect", "P1", source="A1-033", op="damage", dot="B5", amount=1)])
    assert found == [(at(recs), "P1", "200.1a"), (at(recs) + 3, "P1", "210.4")]
    # an ability of P2's summon on B5, used by P1: its effect named by the dot is no effect of P2's summon there
    recs = BATTLE + [r("ability", "P1", summon="B5", kind="paid", pay={})]
    m, found = audit(recs + pp("P1") + [r("effect", "P1", source="B5", op="stat", dot="B5", stat="attack", delta=1,
                                          until="end_of_turn")])
    assert found == [(at(recs), "P1", "500.1"), (at(recs) + 3, "P1", "503.1")]


def test_x610z_201_3_a_refused_announcement_spends_its_payment_as_logged():
    """There is no cost to check it against (no summon moves): the energy the player meant to spend is spent, so
    his pool is what his later payments expect."""
    recs = BATTLE + [r("energy", "P1", crystal="A1-011"), r("move", "P1", **{"from": "A3"}, path=["A4"], pay={"B": 1})]
    m, found = audit(recs)
    assert found == [(at(recs), "P1", "202.2")] and m.p["P1"]["pool"] == {}


def test_x610z_212_1_a_draw_of_a_card_not_in_the_deck_is_the_turns_draw():
    """It is reported, no card is drawn, and the Draw Phase is left without a second finding (it was 702.1 at the
    crystal); a second draw is still 702.1."""
    recs = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-033")]
    m, found = audit(recs + [r("crystal", "P1", card="A1-011"), r("end", "P1")])
    assert found == [(at(recs), "P1", "212.1")] and len(m.p["P1"]["hand"]) == 6
    _, found = audit(recs + [r("draw", "P1", card="A1-010"), r("end", "P1", discard=["A1-010"])])
    assert found == [(at(recs), "P1", "212.1"), (at(recs) + 1, "P1", "702.1")]


def test_x610z_201_3_a_refused_announcement_is_no_card_played_in_the_analytics():
    m, _ = audit(BATTLE + [r("cast", "P1", card="A1-033", pay={}), r("attack", "P1", **{"from": "A3"}, target="B5",
                                                                       path=["A4", "A5", "B5"])] + pp("P1") + pp("P1"))
    buf = project(m)
    assert [x[5] for x in buf["x610z_casts"] if x[8] != "resolved"] == [] and buf["x610z_attacks"] == []
    games = {(g[2], g[3]): g for g in buf["card_games"]}
    assert ("P1", "A1-033") not in games or games[("P1", "A1-033")][7] == 0  # (played)


def test_x610z_201_3_the_audit_of_a_simulated_log_with_a_move_from_an_empty_dot(tmp_path):
    """The defect as reported: one `move` of a simulated log made to start from an empty dot. `zx audit` gave the
    move's 202.2 and, at the next line, '201.3 P2 passes without priority'. The log is cut once the movement has
    resolved (what follows would be the game's consequence: the summon did not move) and P2 concedes."""
    header, *records = [json.loads(x) for x in next(simulate(1, 0)).lines()]
    m, ref = open_match(header, catalog_for(header), board_for(header))
    i = next(k for k, rec in enumerate(records) if rec["do"] == "move")
    for k, rec in enumerate(records[:i]):
        ref.handle(k + 2, rec)
    empty = sorted(d for d in board_for(header).dots if d not in m.dots)[0]
    for k, rec in enumerate(records[i:], start=i):
        ref.handle(k + 2, rec)
        if not m.stack:
            break
    records = records[:i] + [{**records[i], "from": empty}] + records[i + 1:k + 1] + [r("concede", "P2")]
    log = tmp_path / "one.x610zlog"
    log.write_text("\n".join(json.dumps(x) for x in [header] + records) + "\n", encoding="utf-8")
    out = CliRunner().invoke(zx, ["--store", str(tmp_path / "none.sqlite"), "audit", str(log), "--format", "json"])
    found = [(v["line"], v["player"], v["rule"]) for v in json.loads(out.stdout)["violations"]]
    assert found == [(i + 2, records[i]["by"], "202.2")], out.output


# ---------------------------------------------------------------------- simulated logs (hypothesis)
def _refusable(m, board, cat, active: str, data) -> tuple[dict, str]:
    """A record of ``active`` the referee refuses without applying it, drawn for the state ``m``."""
    empty = sorted(d for d in board.dots if d not in m.dots)
    dot = data.draw(st.sampled_from(empty))
    hand = m.p[active]["hand"]
    theirs = [d for d, e in sorted(m.dots.items()) if e["ctrl"] != active]
    # (not in his deck list either: a card of it would be played as written, for a card of the hand the log does not
    # name, digest.9)
    away = sorted(c for c in cat.cards if c not in hand and c not in m.p[active]["deck"] and not cat[c].is_crystal
                  and not cat[c].is_life_base)
    held = {p["code"] for p in m.perms if p["ctrl"] == active}
    kinds = {
        "move": (r("move", active, **{"from": dot}, path=[data.draw(st.sampled_from(sorted(board.dots)))], pay={}),
                 "202.2"),
        "attack": (r("attack", active, **{"from": dot}, target=theirs[0], path=[theirs[0]]), "202.3"),
        "cast": (r("cast", active, card=data.draw(st.sampled_from(away)), pay={}), "200.1a"),
        "activate": (r("activate", active, effect=data.draw(st.sampled_from(
            sorted(c for c in cat.cards if c not in held and cat[c].type == "Effect"))), pay={}), "500.1"),
        "ability": (r("ability", active, summon=dot, kind=data.draw(st.sampled_from(["activated", "paid"])), pay={}),
                    "500.1"),
        "trigger": (r("trigger", active, source=dot), "500.1"),
    }
    kind = data.draw(st.sampled_from(sorted(kinds)))
    return kinds[kind]


@settings(max_examples=int(os.environ.get("X610Z_SIM_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=10**6), data=st.data())
def test_x610z_201_3_a_refused_record_in_a_simulated_match_is_its_one_finding(seed, data):
    """A legal simulated match; where the active player has priority in his Action Phase with an empty stack, a
    record he cannot have made (from an empty dot, a card not in hand, a permanent not in play, ...) is put in,
    with the two passes that would resolve what it meant. The audit gives one finding, at that line: the passes
    and the rest of the match are legal. (Changing one of the match's own records instead changes the game: the
    summon that did not move is not where the later records find it; that is the game's consequence, not the
    priority's.)"""
    sim = next(simulate(1, seed))
    header, *records = [json.loads(x) for x in sim.lines()]
    cat, board = catalog_for(header), board_for(header)
    m, ref = open_match(header, cat, board)
    spots = []
    for i, rec in enumerate(records):
        if m.outcome is None and m.phase == "action" and not m.stack and m.prio == m.active and m.passes == 0 \
                and rec["do"] not in ("effect", "trigger"):
            spots.append((i, m.active))
        ref.handle(i + 2, rec)
    if not spots:
        return
    i, active = data.draw(st.sampled_from(spots))
    m, ref = open_match(header, cat, board)  # the state at that spot, to draw a record it refuses
    for k, rec in enumerate(records[:i]):
        ref.handle(k + 2, rec)
    bad, rule = _refusable(m, board, cat, active, data)
    other = "P2" if active == "P1" else "P1"
    mutated = records[:i] + [bad, r("pass", other), r("pass", active)] + records[i:]
    text = "\n".join(json.dumps(x) for x in [header] + mutated) + "\n"
    m, ref = open_match(header, cat, board, strict=False)
    for k, rec in enumerate(mutated):
        ref.handle(k + 2, rec)
    assert [(v.line, v.player, v.rule) for v in ref.found] == [(i + 2, active, rule)], (text.splitlines()[i + 1])
    assert m.outcome == {"winner": sim.winner, "reason": sim.reason}
