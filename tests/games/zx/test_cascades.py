"""One mistake, one finding (digest.7): a record that is wrong in one part is applied as played where it
can be, so the records after it that depend on it are not charged for it (`zx audit`). Each case here was
a cascade: the one mistake, then false violations at later, correct records. The loop tests spoil one
record of a few simulated matches the same way: the audit must find exactly that one violation."""

from __future__ import annotations

import copy
import json
from functools import cache

import pytest
from support import BOARD, SETUP, line_of, p1_deck_drawn_out, run

from zx_events.games.zx.sim import simulate
from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log


@cache
def sims() -> tuple:
    return tuple(simulate(12, 7, policy="mixed"))


def audit(header: dict, records: list[dict]) -> list[tuple[str, int]]:
    text = "".join(json.dumps(r) + "\n" for r in [header, *records])
    (log,) = parse_log(text, "t.zxlog")
    return [(v.rule, v.line) for v in build_match(log, strict=False).violations]


def run_sim(sim):
    (log,) = parse_log("\n".join(sim.lines()) + "\n", "t.zxlog")
    return build_match(log, strict=False)


# ---------------------------------------------------------------- 301.1 / 402: a setup card not in the deck
def test_301_1_a_setup_card_not_in_the_deck_is_reported_once_and_the_rest_set_up():
    """P1's Life names U01-001, a card of P2's deck: 301.1 at the setup, which was fatal: P1 never set up,
    402 at `turn 1`, then every record of P1's charged (301.1 for the hand and Resource cards, 602.1a...).
    Now the cards the deck holds are taken, the player is set up with Life 3, one finding."""
    bad = copy.deepcopy(SETUP[0])
    bad["life"][3] = "U01-001"
    recs = [bad, SETUP[1], {"do": "turn", "by": "P1"}, {"do": "resource", "by": "P1", "card": "R01-009"},
            {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"},
            {"do": "play", "by": "P1", "card": "R01-001", "pay": [], "square": "b2"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 2)]
    z = c.match.p["P1"]
    assert z["ready"] and sorted(z["life"]) == ["R01-005", "R01-010", "R01-011"] and len(z["deck"]) == 41
    assert c.match.sq["a1"]["code"] == "R01-002" and c.match.sq["b2"]["code"] == "R01-001"


def test_301_1_a_setup_naming_a_fifth_copy_is_one_finding_with_the_payment_of_the_resource_copy_left_out():
    """P1's setup names R01-001 five times (his deck holds four): hand 1, Life 3, then the Resource copy is the one
    left out (301.1 at the setup). His payment with that Resource copy at turn 1 follows from that finding: not
    301.1 again ("R01-001 is not in P1's Resource"), one mistake, one finding."""
    bad = copy.deepcopy(SETUP[0])
    bad["life"] = ["R01-001", "R01-001", "R01-001", "R01-006"]
    recs = [bad, SETUP[1], {"do": "turn", "by": "P1"}, {"do": "resource", "by": "P1", "card": "R01-009"},
            {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"},
            {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line, v.message) for v in c.violations] == [
        ("301.1", 2, "R01-001 not in P1's deck (setup takes cards out of the deck)")]
    z = c.match.p["P1"]
    assert [e["code"] for e in z["resource"]] == ["R01-002", "R01-009"] and c.match.sq["a1"]["code"] == "R01-002"


def test_301_1_a_missing_hand_card_of_a_mulligan_setup_is_reported_once():
    """A hand card not in the deck, in a setup with a mulligan: it is in the hand written and in the final
    cards checked, and was reported (fatally) at the first; now once, with the mulligan applied."""
    bad = dict(SETUP[1], hand=["U01-001", "U01-002", "U01-003", "R01-001"],
               mulligan=["U01-005", "U01-006", "U01-007", "U01-008"], life=["U01-011", "U01-013", "U01-005", "U01-010"])
    c = run([SETUP[0], bad], strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 3)]
    z = c.match.p["P2"]
    assert z["ready"] and sorted(z["hand"]) == ["U01-005", "U01-006", "U01-007", "U01-008"] and len(z["deck"]) == 40


def test_301_1_simulated_setups_with_one_card_not_in_the_deck_give_one_finding():
    """In simulated matches, a Life card that stays in Life to the end (not the last one) written as a card
    the deck does not hold (one of the other player's): one 301.1 at the setup line, nothing after it."""
    done = 0
    for sim in sims():
        final = run_sim(sim).match.p
        for k, setup in enumerate(sim.records):
            if setup["do"] != "setup":
                continue
            pl = setup["by"]
            own = sim.header["players"][pl]["deck"]
            foreign = next(c for c in sim.header["players"]["P2" if pl == "P1" else "P1"]["deck"] if c not in own)
            life = final[pl]["life"]
            kept = [j for j, c in enumerate(setup["life"]) if c in life and setup["life"].count(c) == 1]
            if not kept or len(life) < 2:
                continue
            recs = copy.deepcopy(sim.records)
            recs[k]["life"][kept[0]] = foreign
            assert audit(sim.header, recs) == [("301.1", k + 2)], sim.match_id
            done += 1
    assert done >= 4


# ---------------------------------------------------------------- 506 / 504.3: a record refused for its timing
X2 = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "resource", "by": "P1", "card": "R01-009"},
      {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"}, {"do": "end", "by": "P1"},
      {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]},
      {"do": "play", "by": "P2", "card": "U01-001", "pay": [], "square": "a2"}, {"do": "end", "by": "P2"},
      {"do": "turn", "by": "P1"}]


def test_506_a_zx_played_before_the_draw_is_applied_and_attacks():
    """Turn 3: P1 plays R01-004 before his draw (506), then draws and attacks with it. The play was skipped, so
    the attack was 602.1a ('c2 holds no Z/X of P1') and both passes 603.1b: now one 506, the play applied."""
    recs = [*X2, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "a3"},
            {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
            {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}, {"do": "pass", "by": "P1"},
            {"do": "pass", "by": "P2"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("506", 13)]
    assert c.match.sq["a3"]["code"] == "R01-004" and c.match.p["P1"]["hand"].count("R01-005") == 1


def test_506_a_zx_played_after_the_end_phase_is_applied():
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]}, {"do": "end", "by": "P1"},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "a3"},
            {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "end", "by": "P2", "discard": ["U01-009"]}, {"do": "turn", "by": "P1"},
            {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-003"]},
            {"do": "attack", "by": "P1", "from": "a3", "target": "a2"}, {"do": "pass", "by": "P1"},
            {"do": "pass", "by": "P2"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("506", 15)]


def test_504_3_a_resource_in_the_main_phase_is_applied_and_pays():
    """A Resource record after an Event has started the Main Phase (504.3) was skipped, and the play paying
    with it was 301.1."""
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
            {"do": "play", "by": "P1", "card": "R01-014", "pay": []},
            {"do": "resource", "by": "P1", "card": "R01-005"},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-005"], "square": "a3"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("504.3", 15)]
    assert c.match.sq["a3"]["code"] == "R01-004"


def test_506_simulated_plays_moved_before_the_draw_give_one_finding():
    """In simulated matches, a Z/X played right after the turn's draw, of a card held before it, written before
    the draw record: one 506 at its line, nothing after it."""
    done = 0
    for sim in sims():
        recs = sim.records
        for k in range(1, len(recs) - 1):
            draw, play = recs[k], recs[k + 1]
            if draw["do"] != "draw" or play["do"] != "play" or play.get("from", "hand") != "hand" \
                    or not play.get("square") or play["card"] in draw["cards"]:
                continue
            spoiled = [*recs[:k], play, draw, *recs[k + 2:]]
            assert audit(sim.header, spoiled) == [("506", k + 2)], (sim.match_id, k)
            done += 1
            break
    assert done >= 4


# ---------------------------------------------------------------- 902: a Reload left out
def test_902_a_reload_left_out_puts_the_trash_back_into_the_deck():
    """P1's deck is empty and his Trash is not; the log leaves the `reload` out and goes on drawing. Nothing of
    the Reload was performed: the deck stayed empty, and every draw after it was charged (301.1, 503.3, then
    309.2a at the end, and 902 again at every draw). Now the 902 once, at the record in its place, and the part
    that needs no choice is performed (Trash back into the deck); only the Life card to Charge is missing."""
    rest, drawn_out = p1_deck_drawn_out()
    discard = rest[: len(rest) + 2 - 6]
    recs = [*BOARD, *drawn_out,
            {"do": "end", "by": "P1", "discard": discard},  # the reload is due here, and left out
            {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "end", "by": "P2"}, {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-004"]},
            {"do": "reload", "by": "P1", "life": "R01-010"}, {"do": "draw", "by": "P1", "cards": discard[:1]},
            {"do": "end", "by": "P1", "discard": ["R01-004", discard[0]]}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("902", line_of(recs, len(BOARD) + 2))]
    z = c.match.p["P1"]  # the first Reload's Life card is missing, the second's in Charge
    assert z["charge"] == ["R01-010"] and len(z["life"]) == 3 and len(z["deck"]) == len(discard) - 1
    from zx_events.games.zx.match import project  # the events replay to the same state (the Reload with no Life card)

    assert project(None, list(c.match.pending_events)).p == c.match.p


def test_301_1_a_reload_naming_a_card_not_in_life_still_puts_the_trash_back():
    rest, drawn_out = p1_deck_drawn_out()
    recs = [*BOARD, *drawn_out,
            {"do": "reload", "by": "P1", "life": "U01-001"}, {"do": "end", "by": "P1", "discard": rest[: len(rest) + 2 - 6]},
            {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "end", "by": "P2"}, {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-004"]}]
    c = run(recs, strict=False)  # (the Reload was skipped: the deck stayed empty, the draw was 301.1 and 902)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", line_of(recs, len(BOARD) + 2))]
    assert len(c.match.p["P1"]["life"]) == 3 and "U01-001" in c.match.p["P1"]["charge"]  # (digest.12: the last
    # card of his Life taken for the one named, which goes to the Charge as written; it kept all 4)


def test_301_1_a_reload_naming_a_card_not_in_life_takes_the_last_life_card_and_the_result_stands():
    """examples/legal/long-game-reload-win-by-life.zxlog with its `reload` (line 275) naming G01-001, not in P1's
    Life, for G01-003: one 301.1, and the Reload takes a card of his Life all the same, the last one, which only the
    judge sees (301.3c: ``Reloaded``'s ``taken``, as a Life card of damage named wrong, digest.9); the card named goes
    to the Charge as written. It kept the Life card (digest.11): his last life loss was refused, 101.2 at the result,
    and the stored match lost its result."""
    from pathlib import Path

    from zx_events.games.zx.match import project
    from zx_events.games.zx.views import redact_event

    path = Path(__file__).resolve().parents[3] / "examples" / "legal" / "long-game-reload-win-by-life.zxlog"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    assert json.loads(lines[274]) == {"do": "reload", "by": "P1", "life": "G01-003"}
    lines[274] = json.dumps({"do": "reload", "by": "P1", "life": "G01-001"}) + "\n"
    (log,) = parse_log("".join(lines), "t.zxlog")
    c = build_match(log, strict=False)
    assert [(v.rule, v.line, v.message) for v in c.violations] == [
        ("301.1", 275, "G01-001 is not in P1's Life: the Reload puts a card of his Life the log does not name into "
                       "the Charge")]
    assert (c.match.outcome["winner"], c.match.outcome["reason"]) == ("P2", "life")
    (reload,) = [e for e in c.match.pending_events if type(e).__name__ == "Reloaded"]
    assert reload.life == "G01-001" and reload.taken is not None and reload.taken != "G01-001"
    fields = {"player": "P1", "life": reload.life, "taken": reload.taken}
    for seat in ("P1", "P2", "spectator"):
        assert redact_event("Reloaded", fields, seat)["taken"] == "?"
    assert redact_event("Reloaded", fields, "judge")["taken"] == reload.taken
    assert project(None, list(c.match.pending_events)).p == c.match.p  # the events replay to the same state


def test_902_simulated_reloads_left_out_give_one_finding():
    """In simulated matches, a `reload` record left out: the 902 at the record in its place, first; where the
    Life card it would have put into Charge is never needed later (by a Charge Excess, an Ignition paying
    with it, the count of Life at the end), nothing after it: before, the deck stayed empty and every draw was
    charged. (That one card is the choice the log does not hold: it stays in Life, its Charge one short.)"""
    done = 0
    for sim in [*simulate(8, 9, policy="mixed", start=8), *simulate(6, 2, policy="random"),
                *simulate(9, 3, policy="greedy", start=6)]:
        recs = sim.records
        ks = [k for k, r in enumerate(recs) if r["do"] == "reload"]
        if not ks:
            continue
        k = ks[0]
        got = audit(sim.header, [*recs[:k], *recs[k + 1:]])
        if sim.match_id == "sim-2-0006":  # its Reload took P2's last Life card, then the result: left out, the
            assert got == [("101.2", k + 2)]  # result is the one finding (a `result` may come while it is owed)
            continue
        assert got[0] == ("902", k + 2), sim.match_id
        done += got == [("902", k + 2)]
    assert done >= 2


# ---------------------------------------------------------------- 604.3b: a Life card one record late
PASS1, PASS2 = {"do": "pass", "by": "P1"}, {"do": "pass", "by": "P2"}
# P1 clears b3 with the Range Z/X, then hits P2 from b2: P2 owes one Life card
PLAYER_HIT = [*BOARD,
              {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"], "square": "c2"},
              {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2,
              {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2]
LIFE_P2 = {"do": "life", "by": "P2", "card": "U01-005"}
STARTUP = {"do": "effect", "by": "P1", "source": "b2", "op": "power", "square": "b2", "delta": 500,
           "until": "end_of_turn", "startup": True}


@pytest.mark.parametrize("late", ["startup", "attack"])
def test_604_3b_a_life_card_one_record_late_is_reported_once_and_applied(late):
    """The record in the Life card's place breaks it (604.3b) and the battle ends; the Life card written on
    the next line was then 604.3b again, 'no damage to P2 is waiting for a Life card', and skipped (P2 kept
    his Life). Now the one 604.3b, and the late Life card is applied."""
    if late == "startup":
        recs = [*PLAYER_HIT, STARTUP, LIFE_P2, {"do": "end", "by": "P1"}]
    else:  # an attack while the step is open: the trailing passes left out, the damage dealt, the Life card owed
        recs = [*PLAYER_HIT[:-1], {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}, LIFE_P2,
                {"do": "end", "by": "P1"}]
    at = line_of(recs, len(recs) - 3)
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("604.3b", at)]
    assert sorted(c.match.p["P2"]["life"]) == ["U01-006", "U01-011", "U01-013"] and "U01-005" in c.match.p["P2"]["charge"]


def test_604_3b_the_other_players_life_card_in_place_of_the_owed_one_is_reported_once():
    """P1 writes a Life card where P2 owes one: 604.3b for the Life card owed, and then 604.3b again on the same
    record ('no damage to P1 is waiting'). Now once."""
    recs = [*PLAYER_HIT, {"do": "life", "by": "P1", "card": "R01-010"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("604.3b", line_of(recs, len(recs) - 2))]
    assert len(c.match.p["P1"]["life"]) == 4


def test_604_3b_a_life_card_with_no_damage_owed_is_still_reported():
    recs = [*BOARD, LIFE_P2]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("604.3b", line_of(recs, len(recs) - 1))]


# ---------------------------------------------------------------- 905 / 902: both players owe one at once
def _move(pl: str, src: str, code: str, to: str) -> dict:
    return {"do": "effect", "by": pl, "source": src, "op": "move", "card": code, "from": "deck", "to": to}


TURN3 = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "resource", "by": "P1", "card": "R01-009"},
         {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"},
         {"do": "play", "by": "P1", "card": "R01-001", "pay": [], "square": "b2"}, {"do": "end", "by": "P1"},
         {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]},
         {"do": "resource", "by": "P2", "card": "U01-004"},
         {"do": "play", "by": "P2", "card": "U01-003", "pay": ["U01-001", "U01-002"], "square": "c3"},
         {"do": "play", "by": "P2", "card": "U01-001", "pay": [], "square": "a2"}, {"do": "end", "by": "P2"},
         {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]}]


@pytest.mark.parametrize("first", ["P1", "P2"])
def test_905_both_players_over_the_charge_limit_trash_in_either_order(first):
    """An Event destroys a Z/X of each player, whose Charge each held 4: both owe a Charge Excess at once. The
    rules order the kinds of rule effects, not the players, for two of one kind: the turn player's (P1) was
    required first, and P2's first refused (905 'a charge_excess record for P1 is due, got a charge_excess')."""
    recs = [*TURN3, *[_move("P1", "R01-014", c, "charge") for c in ("R01-003", "R01-003", "R01-007", "R01-007")],
            *[_move("P2", "U01-014", c, "charge") for c in ("U01-005", "U01-005", "U01-007", "U01-007")],
            {"do": "play", "by": "P1", "card": "R01-014"},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "c3"},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "a1"}]
    p1 = {"do": "charge_excess", "by": "P1", "trash": ["R01-002"]}
    p2 = {"do": "charge_excess", "by": "P2", "trash": ["U01-003"]}
    c = run([*recs, *([p1, p2] if first == "P1" else [p2, p1]), {"do": "end", "by": "P1"}])
    assert len(c.match.p["P1"]["charge"]) == 4 and len(c.match.p["P2"]["charge"]) == 4


@pytest.mark.parametrize("first", ["P1", "P2"])
def test_902_both_players_reload_in_either_order(first):
    """Both decks emptied by effects (each into its Trash): both owe a Reload at once, in either order."""
    m = run(TURN3).match
    recs = [*TURN3, *[_move("P1", "R01-014", c, "trash") for c in m.p["P1"]["deck"]],
            *[_move("P2", "U01-014", c, "trash") for c in m.p["P2"]["deck"]]]
    p1 = {"do": "reload", "by": "P1", "life": "R01-010"}
    p2 = {"do": "reload", "by": "P2", "life": "U01-011"}
    c = run([*recs, *([p1, p2] if first == "P1" else [p2, p1]), {"do": "end", "by": "P1"}])
    assert c.match.p["P1"]["charge"] == ["R01-010"] and c.match.p["P2"]["charge"] == ["U01-011"]


# ---------------------------------------------------------------- 905: a Charge Excess left out
def test_905_a_charge_excess_left_out_is_reported_once_to_its_owner():
    """P1's Charge goes to 5 and no charge_excess follows: 905 at the record where it was due. It was reported
    again at every later record of the next turns' start (the waiver lasted one turn), charged to whoever wrote
    that record (P2's draw), and every later correct Charge Excess was 'one card short'. Now once, P1's; the
    card over the limit stays, and the next Charge Excess (one more card in Charge) trashes one."""
    recs = [*TURN3, *[_move("P1", "R01-014", c, "charge") for c in ("R01-003", "R01-003", "R01-007", "R01-007",
                                                                     "R01-008")],
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "end", "by": "P2"}, {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-012", "R01-012"]},
            _move("P1", "R01-014", "R01-013", "charge"), {"do": "charge_excess", "by": "P1", "trash": ["R01-013"]},
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"}]
    c = run(recs, strict=False)
    at = line_of(recs, len(TURN3) + 5)
    assert [(v.rule, v.line, v.player) for v in c.violations] == [("905", at, "P1")]
    assert len(c.match.p["P1"]["charge"]) == 5 and c.match.p["P1"]["trash"] == ["R01-013"]
    # a Charge Excess of two then is one too many: judged against the Charge without the card kept
    bad = [*recs[:-3], {"do": "charge_excess", "by": "P1", "trash": ["R01-013", "R01-008"]}]
    found = run(bad, strict=False).violations
    assert [(v.rule, v.line) for v in found] == [("905", at), ("905", line_of(bad, len(bad) - 1))]
    assert found[1].message == ("P1's Charge holds 6 cards (1 card over it kept there since a Charge Excess was left "
                                "out): exactly 1 go to Trash, 2 given")


def test_902_a_reload_left_out_takes_no_life_card_in_the_analytics_rows():
    """The Reload performed for one left out (or naming a card not in Life) has no Life card (``life``: None):
    the analytics projection's Life count is not lowered for it, as the state's is not."""
    from zx_events.games.zx import rows

    m = rows.MatchRows("oid", 1, rows.new_buffers())
    m.life = {"P1": 4, "P2": 4}
    reloaded = rows.HANDLERS[rows.event_topic("Reloaded")]
    reloaded(m, 1, {"player": "P1", "life": None})
    assert m.life == {"P1": 4, "P2": 4}
    reloaded(m, 2, {"player": "P1", "life": "R01-010"})
    assert m.life == {"P1": 3, "P2": 4}


# ---------------------------------------------------------------- 301.1 / 504.3: a Resource card that never went there
X5 = [{"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
      {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-005"], "square": "a3"}, {"do": "end", "by": "P1"},
      {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
      {"do": "end", "by": "P2", "discard": ["U01-009"]}, {"do": "turn", "by": "P1"},
      {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-003"]},
      {"do": "play", "by": "P1", "card": "R01-003", "pay": ["R01-005", "R01-002"], "square": "c3"}]


def test_301_1_a_resource_card_left_out_is_charged_once_not_at_every_payment():
    """Turn 3: P1's Resource record is left out, and his plays in turns 3 and 5 pay with its card: 301.1 at the
    first payment only (the second was charged again, the same mistake)."""
    c = run([*X2, *X5], strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 14)]
    assert c.match.sq["a3"]["code"] == "R01-004" and c.match.sq["c3"]["code"] == "R01-003"


def test_504_3_a_resource_record_by_the_wrong_player_is_the_one_finding():
    """P1's Resource record written as P2's (504.3, not applied): the payments with its card were 301.1 twice."""
    recs = [*X2, X5[0], {"do": "resource", "by": "P2", "card": "R01-005"}, *X5[1:]]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("504.3", 14)]


# ---------------------------------------------------------------- a line written twice
def test_503_3_a_draw_written_twice_is_one_finding_and_not_applied():
    """The second draw was applied (503.3, 4 cards drawn), the hand two cards over, and 309.2a charged at the End
    Phase that discards to the log's own hand. Now the 503.3, and the draw is not taken twice."""
    draw = {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]}
    recs = [*X2, draw, draw, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("503.3", 14)]
    assert len(c.match.p["P1"]["hand"]) == 4


def test_504_3_a_resource_written_twice_is_one_finding_and_not_applied():
    """The second Resource record (504.3, a second card this turn) was applied: it took the other R01-005 out of the
    hand, and the play of that card after it was 301.1. Now the 504.3, and the second record is skipped."""
    res = {"do": "resource", "by": "P1", "card": "R01-005"}
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-005"]}, res, res,
            {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-005", "R01-009", "R01-002"], "square": "a3"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("504.3", 15)]
    assert c.match.sq["a3"]["code"] == "R01-005"


def test_301_1_a_play_written_twice_says_it_was_skipped():
    """P2's play of U01-001 to a2 written twice: the second is the one 301.1 (the hand holds no other copy) and is
    not applied, and the finding says so (it said 'played as written, for a card of the hand the log does not name',
    the words of a play that is applied)."""
    play = BOARD[11]
    assert play == {"do": "play", "by": "P2", "card": "U01-001", "pay": [], "square": "a2"}
    recs = [*BOARD[:12], play, *BOARD[12:]]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", line_of(recs, 12))]
    assert c.violations[0].message == "U01-001 is not in P2's hand: the same record as line 13, logged twice (skipped)"
    assert c.match.violations[-1]["applied"] is False
    assert len(c.match.p["P2"]["hand"]) == 3 and c.match.sq["a2"]["code"] == "U01-001"


def test_604_3b_a_pass_written_twice_where_a_life_card_is_owed_is_one_finding():
    """The last pass written twice: the second is where P2 owes a Life card (604.3b), and it was also 603.1b, 'pass
    outside a Battle Event Step', on the same line."""
    recs = [*PLAYER_HIT, PASS2, LIFE_P2, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("604.3b", line_of(recs, len(recs) - 3))]
    assert "U01-005" in c.match.p["P2"]["charge"]


# ---------------------------------------------------------------- 503.3: a draw by the wrong player, or before its turn
def test_503_3_a_draw_by_the_wrong_player_is_the_one_finding_of_the_draw_phase():
    """A draw by P2 in P1's Draw Phase, of P2's cards (503.3, not applied): the Resource record after it was 504.3,
    before the draw, and the Draw Phase short, 503.3 again. Now the one finding."""
    recs = [*X2, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "resource", "by": "P1", "card": "R01-004"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("503.3", 13)]


def test_501_3_a_draw_written_before_its_turn_record_begins_the_turn():
    """P1's draw written before his `turn` record: the turn begins at the draw (501.3, no turn record), the draw is
    applied, and the turn record after it is that turn's (it was 503.3 at the draw, skipped, then a Resource record
    504.3 before the draw, and the Draw Phase short, 503.3)."""
    recs = [*X2[:-1], {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]}, X2[-1],
            {"do": "resource", "by": "P1", "card": "R01-005"},
            {"do": "play", "by": "P1", "card": "R01-014", "pay": []}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("501.3", 12)]
    assert c.match.p["P1"]["resource"][-1]["code"] == "R01-005" and c.match.turn == 3


@pytest.mark.parametrize("turn", [1, 3])
def test_501_3_a_turn_record_left_out_is_one_finding(turn):
    """The turn record left out (turn 1, or turn 3): every record of the turn was charged as in the other player's
    turn (or before the first), 504.3, 506, 501.3 at its end, and the turn numbers after it were off by one. Now the
    turn begins at its first record, one 501.3."""
    at = X2.index({"do": "turn", "by": "P1"}) if turn == 1 else len(X2) - 1
    recs = [*X2[:at], *X2[at + 1:], {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
            {"do": "resource", "by": "P1", "card": "R01-005"}, {"do": "end", "by": "P1"},
            {"do": "turn", "by": "P2", "turn": 4}, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("501.3", at + 2)]
    assert c.match.turn == 4


def test_604_3b_a_life_card_late_after_the_next_attack_leaves_that_battle_open():
    """The Life card owed, written after the next attack (604.3b there): it closed the new battle's Battle Event
    Step, as if its passes were left out, so both passes after it were 603.1b. Now it is applied as the late Life
    card of the battle before, and the new battle goes on."""
    attack = {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}
    recs = [*PLAYER_HIT, attack, LIFE_P2, PASS1, PASS2, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("604.3b", line_of(recs, len(recs) - 5))]
    assert "U01-005" in c.match.p["P2"]["charge"]


def test_905_a_charge_excess_written_late_after_an_attack_is_reported_once():
    """P1's Charge goes to 5, and his attack is written before his Charge Excess: 905 at the attack. The Charge
    Excess after it was 905 again ('not above the limit', the card kept there as left out). Now it is applied."""
    recs = [*TURN3, *[_move("P1", "R01-014", c, "charge") for c in ("R01-003", "R01-003", "R01-007", "R01-007",
                                                                     "R01-008")],
            {"do": "attack", "by": "P1", "from": "b2", "target": "a2"},
            {"do": "charge_excess", "by": "P1", "trash": ["R01-008"]}, PASS1, PASS2, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("905", line_of(recs, len(recs) - 5))]
    assert len(c.match.p["P1"]["charge"]) <= 5 and "R01-008" in c.match.p["P1"]["trash"]


def test_301_1_a_draw_naming_a_card_not_in_the_deck_draws_the_other():
    """A draw naming a card the deck does not hold was skipped: the Draw Phase was short (503.3), and the other
    card, still in the deck, was 301.1 at its Resource record. Now one 301.1; the card the deck holds is drawn."""
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "U01-009"]},
            {"do": "resource", "by": "P1", "card": "R01-005"}, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 13)]
    assert c.match.p["P1"]["resource"][-1]["code"] == "R01-005"


def test_301_1_a_second_copy_that_never_went_into_resource_is_charged_once():
    """R01-002 is in Resource once; the Resource record of a second copy names a card not in hand (301.1, skipped).
    The log pays with both copies: that was 301.1 ('paid 2 times') and later 805 (the one copy Sleep)."""
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-004"]},
            {"do": "resource", "by": "P1", "card": "R01-002"},
            {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-002", "R01-002", "R01-009"], "square": "a3"},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-002"], "square": "c3"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 14)]


def test_501_3_a_turn_record_by_the_wrong_player_begins_the_turn_of_the_right_one():
    """Turn 3, P1's, written as P2's: 501.3, and it was P2's turn, so every record of P1 in it was charged (503.3,
    504.3, 501.3 at its end, and the turn after it). The turns alternate: it is P1's turn, one finding."""
    recs = [*X2[:-1], {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
            {"do": "resource", "by": "P1", "card": "R01-005"}, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("501.3", 12)]
    assert c.match.active == "P2" and c.match.turn == 4


def test_506_a_play_by_the_wrong_player_with_the_turn_players_card_is_applied_as_his():
    """P1's Z/X played, written as P2's: 506 and skipped, then its attack was 602.1a and both passes 603.1b. The card
    is in P1's hand, not P2's: the play is P1's, one finding."""
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
            {"do": "play", "by": "P2", "card": "R01-004", "pay": ["R01-001"], "square": "a3"},
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "end", "by": "P2", "discard": ["U01-009"]}, {"do": "turn", "by": "P1"},
            {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-003"]},
            {"do": "attack", "by": "P1", "from": "a3", "target": "a2"}, PASS1, PASS2]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("506", 14)]
    assert c.match.sq["a3"]["code"] == "R01-004"


def test_503_3_a_draw_by_the_wrong_player_with_the_turn_players_cards_is_his_draw():
    """In the Draw Phase only the turn player draws: the cards are in P1's deck, so the draw is P1's (503.3 once);
    the cards are drawn, and their play after it is legal."""
    recs = [*X2, {"do": "draw", "by": "P2", "cards": ["R01-005", "R01-004"]},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "a3"},
            {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("503.3", 13)]
    assert c.match.sq["a3"]["code"] == "R01-004" and "R01-005" in c.match.p["P1"]["hand"]


def test_301_1_a_resource_record_naming_a_card_not_in_hand_stands_for_the_card_paid():
    """The Resource record names a card not in hand (301.1, not applied), and the play after it pays with the card
    the writer meant, still in hand: that was 301.1 again ('not in P1's Resource')."""
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
            {"do": "resource", "by": "P1", "card": "R01-003"},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-005"], "square": "a3"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 14)]


def test_301_1_a_resource_record_after_the_payment_that_named_its_card_is_one_finding():
    """The play paying with the Resource card written before the Resource record: 301.1 at the payment, and the
    Resource record after it was 504.3 (in the Main Phase). The payment's finding stands for both."""
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "R01-014"]},
            {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-005"], "square": "a3"},
            {"do": "resource", "by": "P1", "card": "R01-005"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 14)]
    assert c.match.p["P1"]["resource"][-1]["code"] == "R01-005"


def test_301_1_an_end_discarding_a_card_not_in_hand_still_ends_the_turn():
    """P1 holds 7 cards and his `end` discards R01-008, which his hand does not hold: the end was skipped (301.1,
    fatal), so the turn never ended and P2's legal `turn` record after it was 501.3 'turn 3 of P1 has not ended'.
    Now the turn ends there, one 301.1; the card meant stays in the hand uncounted, so P1's next End Phase, which
    discards to 6 as the log counts the hand, is legal (it was 309.2a)."""
    draw4 = {"do": "effect", "by": "P1", "source": "R01-014", "op": "draw",
             "cards": ["R01-001", "R01-003", "R01-006", "R01-007"]}
    recs = [*BOARD, draw4, {"do": "end", "by": "P1", "discard": ["R01-008"]},
            {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
            {"do": "end", "by": "P2"}, {"do": "turn", "by": "P1"},
            {"do": "draw", "by": "P1", "cards": ["R01-011", "R01-012"]},
            {"do": "end", "by": "P1", "discard": ["R01-011", "R01-012"]}, {"do": "turn", "by": "P2"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", line_of(recs, len(BOARD) + 1))]
    assert c.match.turn == 6 and c.match.active == "P2" and len(c.match.p["P1"]["hand"]) == 7


def test_301_1_the_card_a_draw_named_wrong_is_the_one_then_used_from_the_hand():
    """The draw names U01-009 (not in P1's deck) for R01-013: one 301.1, R01-005 drawn. The Resource record of
    R01-013, the card really drawn, was charged 301.1 again ('not in P1's hand'). A card of the draw's count named
    wrong stands for the first card then used from the hand that the deck holds: it is drawn there, no finding."""
    recs = [*X2, {"do": "draw", "by": "P1", "cards": ["R01-005", "U01-009"]},
            {"do": "resource", "by": "P1", "card": "R01-013"},
            {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-013", "R01-009", "R01-002"], "square": "c2"},
            {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", line_of(recs, len(X2)))]
    z = c.match.p["P1"]
    assert z["resource"][-1]["code"] == "R01-013" and c.match.sq["c2"]["code"] == "R01-005"
    assert z["deck"].count("R01-013") == 3


def test_301_1_a_play_of_a_card_not_in_hand_from_the_deck_list_is_placed_as_written():
    """P2 plays U01-008 (in his deck list, not in his hand; U01-001 meant) on a2: 301.1, and the play was skipped,
    so his attack from a2 was 602.1a and P1's attack on a2 602.1b. Now the Z/X is placed as written, one finding:
    its cost is the card meant's (no 805), and the hand keeps that card uncounted."""
    recs = copy.deepcopy(BOARD)
    recs[11]["card"] = "U01-008"
    recs[12:12] = [{"do": "attack", "by": "P2", "from": "a2", "target": "a1"}, PASS2, PASS1]
    recs += [{"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2, {"do": "end", "by": "P1"}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", line_of(recs, 11))]
    assert c.match.battle is None and c.match.turn == 3


# ---------------------------------------------------------------- 501.3: an `end` written after the next `turn`
def test_501_3_a_late_end_with_a_discard_is_one_finding_and_its_discard_leaves_the_hand():
    """In simulated matches, an `end` that discards (309.2a) swapped with the next player's `turn` record: 501.3 at
    the turn record ('has not ended'). The end was skipped whole, its discard kept in the hand, and the player was
    charged 309.2a at his next End Phases (three findings); now its discard goes to the Trash, one finding."""
    done = 0
    for sim in sims():
        recs = list(sim.records)
        for i in range(len(recs) - 1):
            if recs[i]["do"] == "end" and recs[i].get("discard") and recs[i + 1]["do"] == "turn":
                late = [*recs[:i], recs[i + 1], recs[i], *recs[i + 2:]]
                assert audit(sim.header, late) == [("501.3", i + 2)], (sim.match_id, i)
                done += 1
    assert done >= 3
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-014", "op": "draw",
                     "cards": ["R01-006", "R01-007", "R01-008", "R01-013"]},
            {"do": "turn", "by": "P2"}, {"do": "end", "by": "P1", "discard": ["R01-004"]}]
    c = run(recs, strict=False)
    assert [(v.rule, v.line) for v in c.violations] == [("501.3", line_of(recs, len(BOARD) + 1))]
    assert len(c.match.p["P1"]["hand"]) == 6 and c.match.p["P1"]["trash"] == ["R01-004"]
    assert c.match.active == "P2" and c.match.phase == "draw"


# ---------------------------------------------------------------- 301.1: a Resource record left out
def test_301_1_a_resource_left_out_then_another_copy_placed_is_one_finding():
    """In simulated matches, a Resource record left out whose card a later Resource record places again and a
    payment after it names twice: 301.1 at the first payment naming it. The later Resource record forgot the
    copy missing, and the payment naming both was 301.1 again, 'R01-017 is paid 2 times, P1's Resource holds one'."""
    done = 0
    for sim in [*sims(), *simulate(4, 5, policy="greedy")]:
        recs = list(sim.records)
        for i, r in enumerate(recs):
            if r["do"] != "resource":
                continue
            card, pl = r["card"], r["by"]
            again = next((j for j in range(i + 1, len(recs)) if recs[j]["do"] == "resource"
                          and recs[j]["by"] == pl and recs[j]["card"] == card), None)
            if again is None or not any(q["do"] == "play" and q["by"] == pl and q.get("pay", []).count(card) == 2
                                        for q in recs[again:]):
                continue
            first = next(j for j in range(i + 1, len(recs)) if recs[j]["by"] == pl and card in recs[j].get("pay", ()))
            assert audit(sim.header, [*recs[:i], *recs[i + 1:]]) == [("301.1", first + 1)], (sim.match_id, i)
            done += 1
    assert done >= 2


# ---------------------------------------------------------------- 604.3b: a Life card under the other seat
def test_604_3b_a_life_card_under_the_other_players_seat_is_one_finding_and_applied():
    """In simulated matches, a `life` record, the Life card owed, written under the other player's seat: 604.3b, and
    it was skipped, so the damage never landed and the result was 101.2 (the stored match had no winner). Its card
    is in the owing player's Life: it is his, applied, one finding, and the match keeps its winner."""
    done = 0
    for sim in sims()[:6]:
        winner = run_sim(sim).match.outcome["winner"]
        for i, r in enumerate(sim.records):
            if r["do"] != "life" or r["card"] in sim.header["players"]["P2" if r["by"] == "P1" else "P1"]["deck"]:
                continue
            recs = copy.deepcopy(sim.records)
            recs[i]["by"] = "P2" if r["by"] == "P1" else "P1"
            text = "".join(json.dumps(q) + "\n" for q in [sim.header, *recs])
            (log,) = parse_log(text, "t.zxlog")
            m = build_match(log, strict=False)
            assert [(v.rule, v.line) for v in m.violations] == [("604.3b", i + 2)], (sim.match_id, i)
            assert "under P" in m.violations[0].message and m.match.outcome["winner"] == winner
            done += 1
    assert done >= 10
