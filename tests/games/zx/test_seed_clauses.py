"""The seed clauses (202, 301-303, 601-605) that no other test names, and the table that lists them all.

docs/rules.md has one row per clause of the seed texts in shared/rules/: ``enforced`` (a test named
after the clause exists, here or elsewhere), ``definition`` or ``not checkable`` (with the reason).
``test_every_seed_clause_is_enforced_with_a_test_or_listed_with_a_reason`` keeps that table honest.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from support import BOARD, header, line_of, rejects, run

from zx_events.games.zx.board import ALL_SQUARES, Square, area_of, player_square
from zx_events.games.zx.cards import CardType, load_catalog
from zx_events.games.zx.views import build_view

ROOT = Path(__file__).resolve().parents[3]
RULES = ROOT.parent / "shared" / "rules" if (ROOT.parent / "shared" / "rules").is_dir() else Path("/work/shared/rules")
SEEDS = ("000_", "001_", "003_", "004_")  # 303; 601-605; 301-302; 202 (002_ is X610Z, another game)
PASS1 = {"do": "pass", "by": "P1"}
PASS2 = {"do": "pass", "by": "P2"}


# ---------------------------------------------------------------------- the table
def seed_clauses() -> list[str]:
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(RULES.glob("*.txt")) if p.name.startswith(SEEDS))
    found = set(re.findall(r"• ((?:202|301|302|303|601|602|603|604|605)\.\d+[a-z]?)", text))
    return sorted(found, key=lambda c: [int(x) if x.isdigit() else x for x in re.findall(r"\d+|[a-z]", c)])


def table() -> dict[str, tuple[str, str]]:
    """docs/rules.md's clause table: clause -> (status, test or reason)."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("## Every seed clause", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"\d{3}\.\d+[a-z]?", cells[0]):
            rows[cells[0]] = (cells[1], cells[2])
    return rows


def zx_test_names() -> list[str]:
    """Every test function of the Z/X engine and the core (not another game's tests)."""
    out = []
    for p in (ROOT / "tests").rglob("test_*.py"):
        if "x610z" in p.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                out.append(node.name)
    return out


def named_after(clause: str, names: list[str]) -> list[str]:
    pat = re.compile(r"(?:^test|_)" + re.escape(clause.replace(".", "_")) + r"_")
    return [n for n in names if pat.search(n)]


def test_every_seed_clause_is_enforced_with_a_test_or_listed_with_a_reason():
    clauses = seed_clauses()
    assert len(clauses) == 114 and clauses[0] == "202.1" and clauses[-1] == "605.6"
    rows = table()
    assert sorted(rows) == sorted(clauses), set(rows) ^ set(clauses)
    names = zx_test_names()
    for clause, (status, why) in rows.items():
        assert status in ("enforced", "definition", "not checkable"), (clause, status)
        if status == "enforced":
            assert named_after(clause, names), f"{clause} is marked enforced but no test is named after it"
        else:
            assert len(why) > 20, f"{clause}: {status} needs its reason"


# ---------------------------------------------------------------------- 202: card types
def test_202_1_the_catalog_type_column_is_the_card_type():
    cat = load_catalog("sample")
    assert cat["R01-001"].type is CardType.ZX and cat["R01-014"].type is CardType.EVENT


def test_202_3_zx():
    assert CardType("Z/X") is CardType.ZX and load_catalog("sample")["R01-001"].is_zx


def test_202_4_event():
    assert CardType("Event") is CardType.EVENT and load_catalog("sample")["R01-014"].is_event


def test_202_5_player():
    assert CardType("Player") is CardType.PLAYER and load_catalog("sample")["PL-001"].is_player


def test_202_6_zx_extra():
    assert load_catalog("sample")["EX-R01"].type is CardType.ZX_EX


def test_202_7_zx_overboost():
    assert load_catalog("sample")["EX-R04"].type is CardType.ZX_OB


def test_202_7b_an_overboost_upper_part_is_a_zx_ob():
    hdr = header()
    hdr["players"]["P1"]["dynamis"] = {"EX-R01": 1, "EX-R04": 1}
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "PL-001", "op": "overboost", "square": "c1",
                     "upper": "EX-R01"}]
    err = rejects(recs, "202.7b", line_of(recs, len(recs) - 1), hdr=hdr)
    assert "not a Z/X Overboost upper part" in err.message


def test_202_7a_a_destroyed_overboost_goes_to_charge_as_a_zx():
    hdr = header()
    hdr["players"]["P1"]["dynamis"] = {"EX-R04": 1}
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "PL-001", "op": "overboost", "square": "c1",
                      "upper": "EX-R04"},
             {"do": "effect", "by": "P1", "source": "R01-014", "op": "destroy", "square": "c1"}], hdr=hdr).match
    assert m.sq["c1"] is None and m.p["P1"]["charge"] == ["EX-R04"]  # 1007: a Z/X to its owner's Charge


def test_202_8_shift():
    assert load_catalog("sample")["EX-R03"].type is CardType.SHIFT


def test_202_8d_a_shift_goes_on_the_card_its_text_designates_even_the_opponents():
    # the vessel is designated by the Shift's text (202.8d), not restricted to your own cards; its
    # controller is its owner (302.1b), so it counts for 202.8c, and it goes to its owner's zone (302.4)
    hdr = header()
    hdr["players"]["P1"]["dynamis"] = {"EX-R03": 2}
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-001"], "on": "a2"}]
    m = run(recs, hdr=hdr).match
    assert m.sq["a2"]["shift"] == "EX-R03" and m.sq["a2"]["ctrl"] == "P2"
    second = [*recs, {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-002"], "on": "a1"}]
    rejects(second, "202.8c", line_of(second, len(second) - 1), hdr=hdr)
    m = run([*recs, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2], hdr=hdr).match
    assert m.p["P2"]["charge"] == ["U01-001"] and m.p["P1"]["charge"] == ["EX-R03"]


def test_202_8d_a_shift_refused_for_its_vessel_says_what_is_wrong():
    """No `on`, an empty Square, a Player Square holding only the Player card: each says what is wrong (a Player
    card there said "needs a card on Square to go on", though a card was there)."""
    hdr = header()
    hdr["players"]["P1"]["dynamis"] = {"EX-R03": 2}
    shift = {"do": "play", "by": "P1", "card": "EX-R03", "from": "dynamis", "pay": ["R01-001"]}
    for on, says in ((None, "the Shift EX-R03 needs a card on Square to go on: the play names none (on: its Square)"),
                     ("c2", "c2 holds no card: the Shift EX-R03 cannot exist on its own on Square"),
                     ("b1", "b1 holds no card but P1's Player card, which is no Shift Vessel: the Shift EX-R03 goes "
                            "on a card put on the Square, not on a Player card")):
        recs = [*BOARD, shift if on is None else {**shift, "on": on}]
        assert rejects(recs, "202.8d", line_of(recs, len(recs) - 1), hdr=hdr).message == says


def test_202_9_event_extra():
    assert load_catalog("sample")["EX-R02"].type is CardType.EV_EX


def test_202_10_player_extra():
    assert load_catalog("sample")["PL-EX1"].type is CardType.PL_EX


def test_202_11_token_202_11a_placed_on_square_as_a_zx():
    assert load_catalog("sample")["TK-001"].type is CardType.TOKEN
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "token", "square": "c1", "name": "Whelp",
                      "power": 1000}]).match
    e = m.sq["c1"]
    assert (e["kind"], e["base"], e["ctrl"]) == ("token", 1000, "P1")
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "token", "square": "c1", "name": "Whelp",
                     "power": 1000}, {"do": "play", "by": "P2", "card": "U01-002", "pay": [], "square": "c1"}]
    rejects(recs, "506")  # a Token occupies its Square like a card


def test_202_11b_a_token_has_power_and_is_attacked_by_it():
    m = run([*BOARD, {"do": "effect", "by": "P2", "source": "U01-014", "op": "token", "square": "c2",
                      "name": "Buoy", "power": 1000},
             {"do": "attack", "by": "P1", "from": "b2", "target": "c2"}, PASS1, PASS2]).match
    assert m.sq["c2"] is None  # 1500 damage into a 1000 Token


def test_202_11b_a_token_without_power_is_refused_with_the_rule():
    """The schema required `power` first: "format: missing required key 'power' in an effect token record",
    no rule; the engine's 202.11b check could not fire. Now it does (strict: the line and the rule; with
    --accept-violations: one violation, the Token not put on Square)."""
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "token", "square": "c2", "name": "Husk"}]
    err = rejects(recs, "202.11b", line=line_of(recs, len(recs) - 1))
    assert str(err) == f"t.zxlog:{line_of(recs, len(recs) - 1)}: rule 202.11b: a Z/X Token needs its power"
    checked = run(recs, strict=False)
    assert [(v.line, v.rule) for v in checked.violations] == [(line_of(recs, len(recs) - 1), "202.11b")]
    assert checked.match.sq["c2"] is None


def test_202_12_counter_202_12a_202_12b_a_number_per_player_from_0():
    m = run(BOARD).match
    assert m.p["P1"]["counters"] == 0 and m.p["P2"]["counters"] == 0
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "counter", "delta": 2}]).match
    assert (m.p["P1"]["counters"], m.p["P2"]["counters"]) == (2, 0)


def test_202_12c_counters_are_seen_by_the_opponent():
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "counter", "delta": 2}]).match
    for viewer in ("P2", "spectator"):
        assert build_view(m, viewer).players[0].counters == 2


def test_202_13_link_202_13a_202_13c_put_on_a_square_and_seen_by_both():
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "G01-009", "op": "link", "square": "c2"}]).match
    assert m.links == {"c2": ["P1"]}
    assert build_view(m, "P2").links == {"c2": ("P1",)}


def test_202_13b_a_link_is_put_on_the_chosen_square():
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "G01-009", "op": "link", "square": "a2"}]).match
    assert m.links["a2"] == ["P1"] and m.sq["a2"]["code"] == "U01-001"  # beside the Z/X there


def test_202_13b_a_link_on_no_chosen_square_is_refused_with_the_rule():
    """The schema required `square` first: "format: missing required key 'square' in an effect link record",
    no rule; the engine's 202.13b check could not fire. Now it does."""
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "G01-009", "op": "link"}]
    err = rejects(recs, "202.13b", line=line_of(recs, len(recs) - 1))
    assert str(err) == f"t.zxlog:{line_of(recs, len(recs) - 1)}: rule 202.13b: a Link is put on a chosen Square (square)"
    checked = run(recs, strict=False)
    assert [(v.line, v.rule) for v in checked.violations] == [(line_of(recs, len(recs) - 1), "202.13b")]
    assert checked.match.links == {}


def test_202_13d_a_link_moved_off_square_is_banished():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "G01-009", "op": "link", "square": "c2"},
            {"do": "effect", "by": "P1", "source": "G01-009", "op": "move", "square": "c2", "target": "link",
             "from": "square", "to": "trash"}]
    m = run(recs).match
    assert not m.links.get("c2") and "G01-009" not in m.p["P1"]["trash"]
    m = run([*recs[:-1], {"do": "effect", "by": "P1", "source": "G01-009", "op": "move", "square": "c2",
                          "target": "link", "from": "square", "to": "square", "dest": "c1"}]).match
    assert m.links.get("c1") == ["P1"]  # Square to Square it stays


def test_202_13e_a_link_is_chosen_only_by_a_card_naming_links():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "G01-009", "op": "link", "square": "c2"},
            {"do": "effect", "by": "P1", "source": "a1", "op": "move", "square": "c2", "target": "link",
             "from": "square", "to": "trash"}]
    rejects(recs, "202.13f", line_of(recs, len(recs) - 1))  # the engine cites 202.13f for both


# ---------------------------------------------------------------------- 301-302: zones, cards
def test_301_2a_301_2b_shared_zones_and_each_players_own():
    m = run(BOARD).match
    for own in ("deck", "trash", "remove", "charge", "life", "resource", "hand", "dynamis"):
        assert m.p["P1"][own] is not m.p["P2"][own]
    assert isinstance(m.sq, dict) and isinstance(m.temporary, list) and isinstance(m.force, list)


def test_301_3a_face_up_cards_in_public_zones_are_seen_by_all():
    m = run([*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "a2"}, PASS1, PASS2]).match
    for viewer in ("P1", "P2", "spectator"):
        v = build_view(m, viewer)
        assert v.players[1].charge == ("U01-001",) and v.squares[0].code == "R01-002"


def test_301_3c_hidden_zones_are_not_seen():
    m = run(BOARD).match
    v = build_view(m, "P2")
    assert v.players[0].hand is None and v.players[0].deck is None and v.players[0].life is None
    assert build_view(m, "P1").players[0].life is None  # Life is face-down, even to its owner


def test_301_3d_every_seat_knows_how_many_cards_each_zone_holds():
    m = run(BOARD).match
    for viewer in ("P1", "P2", "spectator"):
        p1 = build_view(m, viewer).players[0]
        assert (p1.hand_count, p1.deck_count, p1.life_count) == (3, 38, 4)


def test_302_1_302_1a_owner_and_controller_of_every_card():
    m = run(BOARD).match
    for e in m.sq.values():
        if e is not None:
            assert e["owner"] in ("P1", "P2") and e["ctrl"] == e["owner"]  # 302.1b
    assert m.p["P1"]["player_card"] == header()["players"]["P1"]["player_card"]


def test_302_3_302_3b_302_3c_face_up_and_face_down():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-005", "from": "hand",
                     "to": "square", "dest": "c1", "face": "down"}]
    m = run(recs).match
    assert m.sq["c1"]["up"] is False and m.sq["a1"].get("up", True) is True
    assert build_view(m, "P2").squares[2].code is None and build_view(m, "P2").squares[0].code == "R01-002"


def test_302_4_a_card_moves_into_its_owners_zone():
    # P1's effect sends P2's Z/X to "hand": P2's hand, not P1's
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "move", "square": "a2", "from": "square",
                      "to": "hand"}]).match
    assert m.p["P2"]["hand"].count("U01-001") == 1 and "U01-001" not in m.p["P1"]["hand"]


# ---------------------------------------------------------------------- 303: the Square
def test_303_1_only_zx_and_tokens_are_put_on_square_face_up():
    recs = [*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-014", "from": "hand",
                     "to": "square", "dest": "c1"}]
    err = rejects(recs, "303.1", line_of(recs, len(recs) - 1))
    assert "R01-014 is an Event: only Z/X" in err.message  # (it said "a Event")
    # it said "only Z/X (and Player cards) are put on Square": a Player card moved to a Square is 303.6a, and a
    # Token is put there (docs/rules.md)
    assert err.message == ("R01-014 is an Event: only Z/X (and Tokens) are put on Square face-up; another card goes "
                           "there face-down (face: down)")
    assert run([*recs[:-1], dict(recs[-1], face="down")]).match.sq["c1"]["code"] == "R01-014"


def test_303_3_every_square_is_a_normal_or_a_player_square():
    players = {player_square("P1"), player_square("P2")}
    assert len(ALL_SQUARES) == 9 and len([s for s in ALL_SQUARES if s not in players]) == 7


def test_303_4_squares_belong_to_areas():
    for pl in ("P1", "P2"):
        areas = [area_of(s, pl) for s in ALL_SQUARES]
        assert sorted(set(areas)) == ["army", "center", "enemy"] and areas.count("center") == 3


def test_303_5_cards_on_square_are_reboot_or_sleep():
    m = run([*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2]).match
    states = {s: e["sleep"] for s, e in m.sq.items() if e is not None}
    assert states == {"a1": False, "b2": True, "a2": False, "b3": False}


def test_303_7_square_is_public():
    m = run(BOARD).match
    seen = {v: [s.code for s in build_view(m, v).squares if s is not None] for v in ("P1", "P2", "spectator")}
    assert seen["P1"] == seen["P2"] == seen["spectator"] == ["R01-002", "U01-001", "R01-001", "U01-003"]


def test_303_6a_a_player_card_moved_to_another_zone_leaves_the_square():
    # 303.6a forbids only another Square; a Player card sent to its owner's hand leaves the Square
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "move", "square": "b3", "target": "player",
                      "from": "square", "to": "trash"}]).match
    assert m.p["P2"]["player_card"] is None and m.p["P2"]["trash"] == ["PL-002"]
    code = header()["players"]["P1"]["player_card"]
    m = run([*BOARD, {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": code, "from": "square",
                      "to": "hand", "owner": "P1"}]).match
    assert m.p["P1"]["player_card"] is None and code in m.p["P1"]["hand"]


def test_602_1b_range_reaches_the_player_square():
    # Range (1104) lets the attacker choose a distant target (601-605 overview), the empty Player Square too
    recs = [*BOARD, {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"],
                     "square": "c2"},
            {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, PASS1, PASS2,  # U01-003 destroyed
            {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2"},
            {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]}, {"do": "end", "by": "P2"},
            {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-013"]},
            {"do": "effect", "by": "P1", "source": "R01-014", "op": "move", "square": "c2", "from": "square",
             "to": "square", "dest": "a1"}]
    recs[-1] = {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}
    c = run(recs)
    att = [e for e in c.match.pending_events if type(e).__name__ == "AttackDeclared"][-1]
    assert (att.target_kind, att.distance, att.range_used) == ("player", 2, True)
    assert Square.parse("c2").distance(Square.parse("b3")) == 2


def test_604_3_the_damage_step_follows_the_kind_of_target():
    zx = run([*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, PASS1, PASS2])
    (dealt,) = [e for e in zx.match.pending_events if type(e).__name__ == "BattleDamageDealt"]
    assert (dealt.outcome, dealt.amount) == ("damaged_zx", 1500)  # 604.3a: its Power
    from games.zx.test_turn import PLAYER_HIT

    hit = run(PLAYER_HIT)
    dealt = [e for e in hit.match.pending_events if type(e).__name__ == "BattleDamageDealt"][-1]
    assert (dealt.outcome, dealt.amount) == ("player_damaged", 1)  # 604.3b: 1 damage
