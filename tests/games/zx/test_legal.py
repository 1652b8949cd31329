"""The legal-action lister against the referee: what it lists is accepted, what it leaves out is not."""

from __future__ import annotations

from functools import cache

import pytest
from support import BOARD, SETUP, header, text

from zx_events.games.zx.board import SQUARE_NAMES
from zx_events.games.zx.cards import load_catalog
from zx_events.games.zx.engine import checks
from zx_events.games.zx.engine.legal import StateOrder, is_legal, legal_records, payment, to_act
from zx_events.games.zx.engine.referee import Referee
from zx_events.games.zx.setup import open_match
from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log
from zx_events.games.zx.match import Match
from zx_events.games.zx.rules import RULES_VERSION
from zx_events.games.zx.sim import simulate

PASS1 = {"do": "pass", "by": "P1"}
PASS2 = {"do": "pass", "by": "P2"}
RANGE_ON_C2 = {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
               "square": "c2"}
# P2 walks a Z/X next to P1's empty Player Square and hits P1: P1 owes a Life card (604.3b)
HIT_P1 = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "end", "by": "P1"},
          {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]},
          {"do": "play", "by": "P2", "card": "U01-001", "pay": [], "square": "c1"},
          {"do": "attack", "by": "P2", "from": "c1", "target": "b1"}, PASS2, PASS1]


class FixedOrder:
    """A deck order that puts the given cards on top (the rest in the state's order)."""

    def __init__(self, m: Match, top: dict[str, list[str]]) -> None:
        self.m, self.given = m, top

    def top(self, player: str, n: int) -> list[str]:
        cards = list(self.given.get(player, []))
        rest = list(self.m.p[player]["deck"])
        for c in cards:
            rest.remove(c)
        return (cards + rest)[:n]


def state(records: list[dict]):
    """The state after ``records``, as the referee left it: unlike a whole import, the log is not
    finished, so a Battle Event Step at the end stays open (no implied passes, 603.1c)."""
    (log,) = parse_log(text(records), "t.zxlog")
    cat = load_catalog("sample")
    m, ref = open_match(log.header, cat, source="t")
    for rec in log.records:
        ref.handle(rec.line, rec.data)
    return m, cat


def listed(records: list[dict], player: str, order=None) -> list[dict]:
    m, cat = state(records)
    return legal_records(m, cat, player, order(m) if order else None)


def assert_all_legal(m: Match, cat, recs: list[dict]) -> None:
    bad = [r for r in recs if not is_legal(m, cat, r)]
    assert not bad, bad


def kinds(recs: list[dict]) -> set[str]:
    return {r["do"] for r in recs}


# ---------------------------------------------------------------- every listed record is accepted
@pytest.mark.parametrize("upto", range(len(SETUP), len(BOARD) + 1))
def test_listed_records_are_legal_on_every_prefix_of_the_board(upto):
    m, cat = state(BOARD[:upto])
    for player in ("P1", "P2"):
        recs = legal_records(m, cat, player)
        assert recs[-1] == {"do": "concede", "by": player}  # 101.4: always possible
        assert_all_legal(m, cat, recs)


def walk(sim):
    """Every state of a simulated match, with the record that was played next (the real referee)."""
    (log,) = parse_log("\n".join(sim.lines()) + "\n", sim.match_id)
    cat = load_catalog("sample")
    m, ref = open_match(log.header, cat, source="t")
    for rec in log.records:
        yield m, cat, rec.data
        ref.handle(rec.line, rec.data)


@cache
def sims() -> tuple:
    return tuple(simulate(30, 2, policy="random")) + tuple(simulate(15, 3, policy="greedy"))


ORDER_FREE = ("resource", "play", "attack", "pass", "end", "life", "reload", "charge_excess", "turn", "concede",
              "result")


def test_listed_records_are_legal_along_simulated_matches():
    checked = 0
    for sim in sims()[:3] + sims()[-1:]:
        for i, (m, cat, nxt) in enumerate(walk(sim)):
            who = to_act(m, cat)
            if who is not None and nxt["do"] not in ("concede", "result"):
                assert nxt["by"] == who
            if i % 3 == 0:
                for player in ("P1", "P2"):
                    recs = legal_records(m, cat, player)
                    assert_all_legal(m, cat, recs)
                    checked += len(recs)
            if nxt["do"] in ORDER_FREE:  # records that reveal no hidden card: the played one was listed
                assert nxt in legal_records(m, cat, nxt["by"]), nxt
    assert checked > 1000


def test_nothing_legal_is_left_out_of_attacks_plays_and_resource():
    """Both directions: for every attack pair, Z/X play Square and Resource card, listed == accepted."""
    compared = 0
    for sim in sims()[:2]:
        for i, (m, cat, nxt) in enumerate(walk(sim)):
            if i % 4 or m.active is None or m.phase not in ("draw", "resource", "ignition", "main"):
                continue
            if m.battle is not None:  # an attack here would close the step by implied passes: not listed
                continue
            pl = m.active
            recs = legal_records(m, cat, pl)
            candidates = [{"do": "attack", "by": pl, "from": a, "target": t} for a in SQUARE_NAMES for t in SQUARE_NAMES]
            candidates += [{"do": "resource", "by": pl, "card": c} for c in sorted(set(m.p[pl]["hand"]))]
            for code in sorted(set(m.p[pl]["hand"])):
                card = cat[code]
                pay = payment(m, cat, pl, card)
                if card.is_zx and pay is not None:
                    candidates += [{"do": "play", "by": pl, "card": code, "pay": pay, "square": s} for s in SQUARE_NAMES]
            for rec in candidates:
                assert is_legal(m, cat, rec) == (rec in recs), rec
                compared += 1
    assert compared > 2000


# ---------------------------------------------------------------- battle (602, 603, 604, 202.7e)
def test_602_1b_range_attack_listed():
    recs = listed([*BOARD, RANGE_ON_C2], "P1")
    attacks = [(r["from"], r["target"]) for r in recs if r["do"] == "attack"]
    assert ("c2", "a2") in attacks  # distance 2: only by Range 2 (1104)
    assert ("c2", "b3") in attacks  # diagonal: distance 2
    assert ("a1", "b3") not in attacks  # distance 3, no Range


def test_602_1b_only_opponent_zx_and_their_empty_player_square_are_targets():
    m, cat = state(BOARD)
    targets = {r["target"] for r in legal_records(m, cat, "P1") if r["do"] == "attack"}
    assert targets == {"a2", "b3"}  # a2: U01-001, b3: U01-003; not P1's own a1/b2, not empty c2
    for t in ("a1", "c2", "b1"):
        assert not is_legal(m, cat, {"do": "attack", "by": "P1", "from": "b2", "target": t})


def test_602_1a_sleep_attacker_not_listed():
    recs = listed([*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2], "P1")
    sources = {r["from"] for r in recs if r["do"] == "attack"}
    assert "b2" not in sources and "a1" in sources  # b2 attacked (602.1d: now Sleep), a1 still Reboot


def test_602_1_no_attack_while_a_battle_is_under_way():
    recs = listed([*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}], "P1")
    assert kinds(recs) == {"pass", "play", "concede"}  # 603.1b: pass or an Event, nothing else
    # an Event from hand, or an EV EX from Dynamis
    assert [r["card"] for r in recs if r["do"] == "play"] == ["R01-014", "EX-R02"]


def test_603_1b_only_the_player_with_priority_acts():
    battle = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}]
    assert listed(battle, "P2") == [{"do": "concede", "by": "P2"}]
    recs = listed([*battle, PASS1], "P2")
    assert recs[0] == PASS2 and {"do": "play", "by": "P2", "card": "U01-014", "pay": []} in recs
    m, cat = state([*battle, PASS1])
    assert to_act(m, cat) == "P2"
    assert_all_legal(m, cat, recs)


def test_202_7e_player_with_an_overboost_is_not_a_target():
    recs = [*SETUP, {"do": "turn", "by": "P1"},
            {"do": "play", "by": "P1", "card": "R01-001", "pay": [], "square": "b2"}, {"do": "end", "by": "P1"},
            {"do": "turn", "by": "P2"}, {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]},
            {"do": "end", "by": "P2"}, {"do": "turn", "by": "P1"},
            {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-013"]}]
    assert ("b2", "b3") in [(r["from"], r["target"]) for r in listed(recs, "P1") if r["do"] == "attack"]
    ob = {"do": "play", "by": "P2", "card": "EX-U04", "from": "dynamis", "pay": [], "square": "c3"}
    assert ob in listed(recs[:-3], "P2")  # a Z/X OB is listed (the simulator's policies skip it)
    with_ob = [*recs[:-3], ob, *recs[-3:]]
    m, cat = state(with_ob)
    assert not [r for r in legal_records(m, cat, "P1") if r["do"] == "attack" and r["target"] == "b3"]
    assert not is_legal(m, cat, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"})
    assert {"do": "play", "by": "P2", "card": "EX-U04", "from": "dynamis", "pay": [], "square": "a3"} \
        not in listed(with_ob[:-3], "P2")  # 202.7g: one Z/X Overboost on Square


def test_604_3b_life_records_for_the_damaged_player_only():
    m, cat = state(HIT_P1)
    assert to_act(m, cat) == "P1"
    assert legal_records(m, cat, "P2") == [{"do": "concede", "by": "P2"}]
    recs = legal_records(m, cat, "P1")
    assert {r["card"] for r in recs if r["do"] == "life"} == {"R01-010", "R01-011", "R01-005", "R01-006"}
    ignites = [r for r in recs if "ignite" in r]
    assert {r["card"] for r in ignites} == {"R01-010", "R01-011"}  # only the IG cards (505.3a)
    squares = {r["ignite"]["square"] for r in ignites}
    assert "b3" not in squares and "c1" not in squares  # 806: P2's Player Square, P2's Z/X
    assert_all_legal(m, cat, recs)


def test_1102_life_recovery_lists_the_top_card_of_the_deck():
    lr = [*HIT_P1, {"do": "life", "by": "P1", "card": "R01-011", "ignite": {"square": "a1"}}]
    recs = listed(lr, "P1", lambda m: FixedOrder(m, {"P1": ["R01-007"]}))
    assert recs[0] == {"do": "effect", "by": "P1", "source": "R01-011", "op": "recover", "card": "R01-007"}
    assert kinds(recs) == {"effect", "concede"}
    m, cat = state(lr)
    assert_all_legal(m, cat, legal_records(m, cat, "P1", FixedOrder(m, {"P1": ["R01-007"]})))


def test_1102_source_of_a_trigger_in_a_match_loaded_from_the_store():
    from zx_events.application import MatchService

    svc = MatchService("memory:")
    lr = [*HIT_P1, {"do": "life", "by": "P1", "card": "R01-011", "ignite": {"square": "a1"}}]
    (log,) = parse_log(text(lr), "t.zxlog")
    assert svc.import_log(log).status == "imported"
    m = svc.get_match(log.match_id)  # no pending events: the source is found on Square
    (recover, _) = legal_records(m, load_catalog("sample"), "P1")
    assert recover["source"] == "R01-011" and is_legal(m, load_catalog("sample"), recover)


# ---------------------------------------------------------------- the turn (503-507, 805, 806, 309.2a)
def test_503_3a_no_draw_on_the_first_players_first_turn():
    recs = listed([*SETUP, {"do": "turn", "by": "P1"}], "P1")
    assert "draw" not in kinds(recs) and {"resource", "play", "end"} <= kinds(recs)


def test_503_3_the_draw_comes_first_and_takes_the_top_two():
    before = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"}]
    recs = listed(before, "P2", lambda m: FixedOrder(m, {"P2": ["U01-008", "U01-007"]}))
    assert recs == [{"do": "draw", "by": "P2", "cards": ["U01-008", "U01-007"]}, {"do": "concede", "by": "P2"}]
    m, cat = state(before)
    (draw, _) = legal_records(m, cat, "P2", StateOrder(m))
    assert len(draw["cards"]) == 2 and is_legal(m, cat, draw)


def test_503_3_with_deck_and_trash_empty_the_turn_goes_on_without_a_draw():
    m, cat = state(BOARD)
    gone = [{"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "card": c, "from": "deck", "to": "remove"}
            for c in m.p["P1"]["deck"]]  # P1's deck emptied; P1's Trash is empty
    before = [*BOARD, *gone, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
              {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-009"]}, {"do": "end", "by": "P2"},
              {"do": "turn", "by": "P1"}]
    m, cat = state(before)
    recs = legal_records(m, cat, "P1")
    assert "draw" not in kinds(recs) and {"resource", "end"} <= kinds(recs)
    assert all(is_legal(m, cat, r) for r in recs)


def test_501_3_the_next_turn_is_the_other_players():
    done = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "end", "by": "P1"}]
    assert listed(done, "P2")[0] == {"do": "turn", "by": "P2", "turn": 2}
    assert listed(done, "P1") == [{"do": "concede", "by": "P1"}]
    assert listed(SETUP[:1], "P1") == [{"do": "concede", "by": "P1"}]  # P1 is set up: P2 is not yet
    assert listed(SETUP, "P1")[0] == {"do": "turn", "by": "P1", "turn": 1}
    assert listed(SETUP, "P2") == [{"do": "concede", "by": "P2"}]  # P1 goes first


def test_402_setup_deals_from_the_top():
    m = Match(match_id="t", header=header(), catalog=load_catalog("sample").ref, rules_version=RULES_VERSION,
              source="t", content_sha256="", line=1)
    (setup, _) = legal_records(m, load_catalog("sample"), "P1")
    top = StateOrder(m).top("P1", 10)
    assert setup == {"do": "setup", "by": "P1", "hand": top[:4], "life": top[4:8], "resource": top[8:]}
    assert is_legal(m, load_catalog("sample"), setup)


def test_504_3_one_resource_a_turn():
    recs = listed([*BOARD, {"do": "resource", "by": "P1", "card": "R01-004"}], "P1")
    assert "resource" not in kinds(recs)
    recs = listed([*BOARD, {"do": "play", "by": "P1", "card": "R01-014", "pay": []}], "P1")
    assert "resource" not in kinds(recs) and "ignition" not in kinds(recs)  # past those phases


def test_505_3_ignition_reveals_the_top_card_and_lists_its_free_plays():
    hit = [*HIT_P1, {"do": "life", "by": "P1", "card": "R01-010"}, {"do": "end", "by": "P2"},
           {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-003"]}]
    m, cat = state(hit)
    assert m.p["P1"]["charge"] == ["R01-010"]
    recs = legal_records(m, cat, "P1", FixedOrder(m, {"P1": ["R01-013"]}))  # an IG Z/X on top
    ign = [r for r in recs if r["do"] == "ignition"]
    assert ign[0] == {"do": "ignition", "by": "P1", "charge": "R01-010", "revealed": "R01-013"}
    squares = {r["play"]["square"] for r in ign[1:]}
    assert squares == {s for s in SQUARE_NAMES if checks.placement(m, "P1", s) is None}
    assert "b3" not in squares and "c1" not in squares
    assert_all_legal(m, cat, recs)
    plain = legal_records(m, cat, "P1", FixedOrder(m, {"P1": ["R01-001"]}))  # no IG icon: not played
    assert [r for r in plain if r["do"] == "ignition"] == [
        {"do": "ignition", "by": "P1", "charge": "R01-010", "revealed": "R01-001"}]


def test_805_unaffordable_play_not_listed():
    paid = [*BOARD, RANGE_ON_C2]  # all three Reboot Resource cards are now Sleep
    m, cat = state(paid)
    plays = [r for r in legal_records(m, cat, "P1") if r["do"] == "play"]
    assert {r["card"] for r in plays} == {"R01-014", "EX-R04"}  # the cost-0 Event, the cost-less Z/X OB
    assert not is_legal(m, cat, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "c1"})


def test_805_every_listed_payment_pays_the_cost_with_a_shared_colour():
    m, cat = state(BOARD)
    for r in legal_records(m, cat, "P1"):
        if r["do"] == "play":
            assert checks.cost_problems(m, cat, "P1", cat[r["card"]], r["pay"]) == []


def test_806_no_play_on_the_opponent_player_square_or_their_zx():
    m, cat = state(BOARD)
    squares = {r["square"] for r in legal_records(m, cat, "P1") if r["do"] == "play" and "square" in r}
    assert squares == {"b1", "c1", "c2", "a3", "c3", "a1", "b2"}  # not b3 (P2's), not a2 (P2's Z/X)
    assert not is_legal(m, cat, {"do": "play", "by": "P1", "card": "R01-004", "pay": ["R01-001"], "square": "b3"})


def test_506_one_zx_ex_from_dynamis_a_turn():
    rich = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]},
            {"do": "resource", "by": "P2", "card": "U01-004"}]
    m, cat = state(rich)
    assert not [r for r in legal_records(m, cat, "P2") if r["card" if r["do"] == "play" else "do"] == "EX-U01"]
    assert {"do": "play", "by": "P2", "card": "EX-U02", "from": "dynamis", "pay": ["U01-001", "U01-002"]} \
        in legal_records(m, cat, "P2")  # an EV EX, cost 2
    played = listed([*rich, {"do": "play", "by": "P2", "card": "EX-U02", "from": "dynamis",
                             "pay": ["U01-001", "U01-002"]}], "P2")
    assert not [r for r in played if r.get("from") == "dynamis" and r["card"] in ("EX-U01", "EX-U02")]


def test_309_2a_end_discards_down_to_six():
    eight = [*SETUP, {"do": "turn", "by": "P1"}, {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
             {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]}, {"do": "end", "by": "P2"},
             {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-013"]},
             {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
             {"do": "draw", "by": "P2", "cards": ["U01-005", "U01-009"]}]
    m, cat = state(eight)
    ends = [r for r in legal_records(m, cat, "P2") if r["do"] == "end"]
    hand = m.p["P2"]["hand"]
    assert len(hand) == 8
    assert all(len(r["discard"]) == 2 for r in ends)
    assert len(ends) == len({tuple(sorted(r["discard"])) for r in ends})  # each choice once
    assert_all_legal(m, cat, ends)
    assert not is_legal(m, cat, {"do": "end", "by": "P2"})


# ---------------------------------------------------------------- obligations found in simulated matches
@pytest.mark.parametrize("kind,rule", [("reload", "902"), ("charge_excess", "905"), ("life", "604.3b"),
                                       ("void", "1103")])
def test_obligation_comes_first_and_only_its_records_are_listed(kind, rule):
    found = 0
    for sim in sims():
        for m, cat, nxt in walk(sim):
            due = Referee(m, cat).due()
            if due is None or due.kind != kind:
                continue
            assert due.rule == rule
            recs = legal_records(m, cat, due.player)
            expected = {"void": "effect"}.get(kind, kind)
            assert kinds(recs) == {expected, "concede"}
            assert_all_legal(m, cat, recs)
            if nxt["do"] != "concede":
                assert nxt in recs
            assert legal_records(m, cat, "P1" if due.player == "P2" else "P2")[:-1] == []
            found += 1
            if found >= 3:
                return
    assert found, f"no {kind} obligation in the simulated matches"


def test_101_2_after_the_end_only_the_result_is_listed():
    sim = next(s for s in sims() if s.reason == "life")
    body = [r for r in sim.records if r["do"] != "result"]
    (log,) = parse_log("\n".join([sim.lines()[0], *map(__import__("json").dumps, body)]) + "\n", "t")
    c = build_match(log)
    recs = legal_records(c.match, c.catalog, "P1")
    assert recs == [{"do": "result", "by": "P1", "winner": sim.winner, "reason": "life"}]
    assert is_legal(c.match, c.catalog, recs[0])
    assert not is_legal(c.match, c.catalog, {**recs[0], "winner": "P2" if sim.winner == "P1" else "P1"})
    assert to_act(c.match, c.catalog) is None


def test_is_legal_rejects_malformed_records_and_leaves_the_state_alone():
    m, cat = state(BOARD)
    before = (len(m.pending_events), m.phase, list(m.p["P1"]["hand"]))
    assert not is_legal(m, cat, {"do": "attack", "by": "P1", "from": "b2"})  # no target: a format error
    assert not is_legal(m, cat, {"do": "resource", "by": "P1", "card": "XX-999"})  # unknown code
    assert is_legal(m, cat, {"do": "resource", "by": "P1", "card": "R01-004"})
    assert (len(m.pending_events), m.phase, list(m.p["P1"]["hand"])) == before
