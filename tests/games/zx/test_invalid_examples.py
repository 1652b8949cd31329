"""The invalid-log corpus (examples/invalid/) and strict import.

Each file breaks one check of the spec's rule table (or is malformed) at one line, listed in
examples/invalid/expected.json. Two layers of tests:

- the CLI contract, parametrised over the manifest: ``zx import FILE`` exits 1, prints exactly
  ``FILE:LINE: rule NNN: message`` (``FILE:LINE: format: message`` for a malformed log) on stderr,
  ``--format json`` says the same, and the store holds nothing of the match afterwards;
- one engine test per check, named after its rule number: the records before the bad line are a
  legal log, and the bad line is rejected with that rule.

Plus the import semantics around it: the same match twice is a no-op, the same id with other
content is a conflict, and a file with several matches imports each one on its own.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.application import MatchService
from zx_events.errors import FormatError, RuleViolation, ZXError
from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log, read_log

ROOT = Path(__file__).resolve().parents[3]
INVALID = ROOT / "examples" / "invalid"
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
MANIFEST: dict[str, dict] = json.loads((INVALID / "expected.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------- helpers
def zx_import(store: Path, *args: str):
    return CliRunner().invoke(zx, ["--store", str(store), "import", *args])


def stored_rows(store: Path) -> int:
    """Rows of match events (the store seal's entries left out: zx_events.ledger)."""
    from zx_events.ledger import LEDGER_ID

    with sqlite3.connect(store) as con:
        return con.execute("SELECT count(*) FROM stored_events WHERE originator_id != ?", (LEDGER_ID.hex,)).fetchone()[0]


def summaries(store: Path) -> list[dict]:
    svc = MatchService(str(store))
    try:
        return svc.summaries()
    finally:
        svc.close()


def expected_prefix(path: Path, exp: dict) -> str:
    what = f"rule {exp['rule']}" if exp["kind"] == "rule" else "format"
    return f"{path}:{exp['line']}: {what}: "


def first_error(path: Path) -> ZXError:
    """Read and check every match of ``path`` strictly; the first error raised."""
    with pytest.raises(ZXError) as info:
        for log in read_log(path):
            build_match(log)
    return info.value


def check_case(name: str) -> ZXError:
    """Engine level: the lines before the bad one are a legal log; the bad line is rejected as listed."""
    exp = MANIFEST[name]
    path = INVALID / name
    if exp["line"] > 1 and name != "format-missing-header.zxlog":
        before = "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:exp["line"] - 1])
        logs = parse_log(before, str(path))
        assert logs, name
        for log in logs:
            checked = build_match(log)  # strict: raises at a violation
            assert checked.violations == []
    err = first_error(path)
    assert err.line == exp["line"], str(err)
    assert exp["message_contains"] in err.message, str(err)
    if exp["kind"] == "rule":
        assert isinstance(err, RuleViolation), str(err)
        assert err.rule == exp["rule"], str(err)
    else:
        assert isinstance(err, FormatError) and not isinstance(err, RuleViolation), str(err)
    return err


# ---------------------------------------------------------------------- the CLI contract, per file
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_cli_rejects_at_line_and_rule_and_stores_nothing(name: str, tmp_path: Path) -> None:
    exp = MANIFEST[name]
    path = INVALID / name
    store = tmp_path / "store.sqlite"
    MatchService(str(store)).close()  # an existing, empty store

    result = zx_import(store, str(path))
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    prefix = expected_prefix(path, exp)
    assert lines[0].startswith(prefix), lines[0]
    assert exp["message_contains"] in lines[0][len(prefix):], lines[0]
    assert lines[1] == f"0 imported, 0 unchanged, 1 rejected into {store}"
    assert len(lines) == 2

    result = zx_import(store, "--format", "json", str(path))
    assert result.exit_code == 1, result.output
    (row,) = json.loads(result.stdout)
    assert row["status"] == "rejected" and row["events"] == 0
    err = row["error"]
    assert (err["kind"], err["line"], err["rule"]) == (exp["kind"], exp["line"], exp["rule"])
    assert err["text"] == lines[0]
    assert result.stderr.splitlines()[0] == lines[0]

    assert summaries(store) == []
    assert stored_rows(store) == 0


def test_manifest_lists_every_file_and_nothing_else() -> None:
    on_disk = {p.name for p in INVALID.glob("*.zxlog")}
    assert on_disk == set(MANIFEST)
    for name, exp in MANIFEST.items():
        assert set(exp) == {"line", "rule", "kind", "message_contains"}, name
        assert exp["kind"] in ("rule", "format"), name
        assert (exp["rule"] is None) == (exp["kind"] == "format"), name
        if exp["kind"] == "rule":
            assert name.startswith(exp["rule"] + "-"), name  # files are named after their rule


def test_committed_files_match_the_generator() -> None:
    spec = importlib.util.spec_from_file_location("make_invalid", ROOT / "examples" / "make_invalid.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_invalid"] = mod
    try:
        spec.loader.exec_module(mod)
        cases = mod.cases()
    finally:
        del sys.modules["make_invalid"]
    assert {f"{c.name}.zxlog" for c in cases} == set(MANIFEST)
    for c in cases:
        name = f"{c.name}.zxlog"
        assert (INVALID / name).read_text(encoding="utf-8") == c.render(), f"{name}: run examples/make_invalid.py"
        assert MANIFEST[name] == {"line": c.bad_line(), "rule": c.rule, "kind": c.kind,
                                  "message_contains": c.message}


def test_every_file_has_a_test_named_after_its_rule() -> None:
    """Each file of the corpus is checked by one test whose name starts with its rule number."""
    found: dict[str, list[str]] = {}
    for fname, fn in inspect.getmembers(sys.modules[__name__], inspect.isfunction):
        if fname.startswith("test_"):
            for file in re.findall(r'check_case\("([^"]+)"\)', inspect.getsource(fn)):
                found.setdefault(file, []).append(fname)
    for name, exp in MANIFEST.items():
        assert len(found.get(name, [])) == 1, (name, found.get(name))
        stem = exp["rule"].replace(".", "_") if exp["rule"] else "format"
        assert found[name][0].startswith(f"test_{stem}_"), (name, found[name])


# ---------------------------------------------------------------------- 602: battle declaration
def test_602_1a_attacker_is_sleep() -> None:
    check_case("602.1a-sleep-attacker.zxlog")


def test_602_1a_attacker_square_holds_no_own_zx() -> None:
    check_case("602.1a-not-own-zx.zxlog")


def test_602_1b_target_out_of_reach() -> None:
    check_case("602.1b-out-of-reach.zxlog")


def test_602_1b_target_holds_own_zx() -> None:
    check_case("602.1b-own-zx.zxlog")


def test_602_1b_target_empty_non_player_square() -> None:
    check_case("602.1b-empty-square.zxlog")


def test_604_3b_battle_declared_while_a_life_card_is_owed() -> None:
    check_case("604.3b-attack-while-life-owed.zxlog")


def test_602_1_battle_declared_outside_the_main_phase() -> None:
    check_case("602.1-after-end-phase.zxlog")


def test_202_7e_player_square_attacked_under_overboost() -> None:
    check_case("202.7e-player-under-overboost.zxlog")


# ---------------------------------------------------------------------- 603.1b / 506
def test_603_1b_pass_out_of_priority() -> None:
    check_case("603.1b-out-of-priority.zxlog")


def test_603_1b_event_played_without_priority() -> None:
    check_case("603.1b-event-without-priority.zxlog")


def test_603_1b_second_ev_ex_from_dynamis_in_battle() -> None:
    check_case("603.1b-second-ev-ex-in-battle.zxlog")


def test_506_second_ev_ex_from_dynamis_in_main_phase() -> None:
    check_case("506-second-ev-ex-in-main-phase.zxlog")


# ---------------------------------------------------------------------- one on Square, Player cards, Links
def test_202_7g_second_overboost_on_square() -> None:
    check_case("202.7g-second-overboost.zxlog")


def test_202_8c_second_shift_on_square() -> None:
    check_case("202.8c-second-shift.zxlog")


def test_303_6a_player_card_moved_to_another_square() -> None:
    check_case("303.6a-player-card-moved.zxlog")


def test_202_13f_link_affected_by_effect_not_naming_links() -> None:
    check_case("202.13f-link-unaffected.zxlog")


# ---------------------------------------------------------------------- zones and phases
def test_301_1_card_not_in_hand() -> None:
    check_case("301.1-not-in-hand.zxlog")


def test_301_1_card_not_in_deck() -> None:
    check_case("301.1-not-in-deck.zxlog")


def test_503_3a_draw_on_first_players_first_turn() -> None:
    check_case("503.3a-draw-on-first-turn.zxlog")


def test_503_3_three_cards_drawn() -> None:
    check_case("503.3-too-many.zxlog")


def test_503_3_one_card_drawn() -> None:
    check_case("503.3-too-few.zxlog")


def test_504_3_second_resource_in_a_turn() -> None:
    check_case("504.3-second-resource.zxlog")


def test_505_3a_ignition_with_empty_charge() -> None:
    check_case("505.3a-empty-charge.zxlog")


def test_505_3a_ig_play_of_card_without_ig_icon() -> None:
    check_case("505.3a-ig-play-without-ig.zxlog")


def test_505_3a_life_card_ignited_without_ig_icon() -> None:
    check_case("505.3a-life-ignite-without-ig.zxlog")


def test_501_3_turn_out_of_order() -> None:
    check_case("501.3-turn-out-of-order.zxlog")


def test_501_3_turn_number_disagrees() -> None:
    check_case("501.3-turn-number.zxlog")


def test_501_3_record_after_game_ended() -> None:
    check_case("501.3-after-game-ended.zxlog")


def test_309_2a_hand_above_limit_after_end_phase() -> None:
    check_case("309.2a-hand-above-limit.zxlog")


# ---------------------------------------------------------------------- costs and placement
def test_805_too_few_resource_cards_paid() -> None:
    check_case("805-too-few-resources.zxlog")


def test_805_sleep_resource_card_paid() -> None:
    check_case("805-sleep-resource.zxlog")


def test_204_6_no_paid_card_of_the_cards_colour() -> None:
    check_case("204.6-colour.zxlog")


def test_806_play_on_opponent_player_square() -> None:
    check_case("806-opponent-player-square.zxlog")


def test_806_play_on_opponent_zx() -> None:
    check_case("806-opponent-zx.zxlog")


def test_806_play_on_own_sleep_zx() -> None:
    check_case("806-own-sleep-zx.zxlog")


def test_806_effect_moves_a_zx_onto_an_opponent_zx() -> None:
    check_case("806-effect-moves-onto-opponent-zx.zxlog")


# ---------------------------------------------------------------------- header, outcome, rule effects
def test_401_main_deck_of_49_cards() -> None:
    check_case("401-deck-size.zxlog")


def test_401_five_copies_of_a_name() -> None:
    check_case("401-copies-of-a-name.zxlog")


def test_101_2_result_before_the_game_ended() -> None:
    check_case("101.2-result-before-end.zxlog")


def test_101_2_result_names_the_wrong_winner() -> None:
    check_case("101.2-wrong-winner.zxlog")


def test_902_reload_with_cards_in_the_deck() -> None:
    check_case("902-reload-with-cards-in-deck.zxlog")


def test_905_charge_excess_below_the_limit() -> None:
    check_case("905-charge-not-above-limit.zxlog")


# ---------------------------------------------------------------------- rules-fidelity defects (issue 15)
def test_602_1b_target_destroyed_when_its_boost_ended_605_6() -> None:
    check_case("602.1b-target-destroyed-at-605.6.zxlog")


def test_602_1b_power_0_token_was_destroyed_by_lethal_damage() -> None:
    check_case("602.1b-power-0-token-destroyed.zxlog")


def test_603_1b_startup_ability_played_without_priority() -> None:
    check_case("603.1b-startup-without-priority.zxlog")


def test_302_1c_startup_ability_of_the_opponents_card() -> None:
    check_case("302.1c-startup-of-opponents-card.zxlog")


def test_303_1_event_put_face_up_on_square() -> None:
    check_case("303.1-event-put-on-square.zxlog")


# ---------------------------------------------------------------------- format errors
def test_format_bad_json() -> None:
    check_case("format-bad-json.zxlog")


def test_format_unknown_key() -> None:
    check_case("format-unknown-key.zxlog")


def test_format_unknown_card_code() -> None:
    check_case("format-unknown-card-code.zxlog")


def test_format_wrong_type() -> None:
    check_case("format-wrong-type.zxlog")


def test_format_move_to_square_without_dest() -> None:
    check_case("format-move-to-square-without-dest.zxlog")


def test_format_missing_header() -> None:
    check_case("format-missing-header.zxlog")


def test_format_truncated_file() -> None:
    check_case("format-truncated.zxlog")


# ---------------------------------------------------------------------- import semantics
def _with_id(text: str, match_id: str) -> str:
    lines = text.splitlines(keepends=True)
    header = json.loads(lines[0])
    header["match"] = match_id
    return json.dumps(header, ensure_ascii=False) + "\n" + "".join(lines[1:])


def test_same_match_imported_twice_is_a_no_op(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    first = zx_import(store, "--format", "json", str(LEGAL))
    assert first.exit_code == 0, first.output
    (row,) = json.loads(first.stdout)
    assert row["status"] == "imported" and row["events"] > 0
    rows = stored_rows(store)
    assert rows == row["events"]

    # the same content, differently spaced and with a blank line: still the same match
    respaced = tmp_path / "respaced.zxlog"
    lines = LEGAL.read_text(encoding="utf-8").splitlines()
    respaced.write_text("\n".join(json.dumps(json.loads(x), separators=(",", ":")) for x in lines[:5])
                        + "\n\n" + "\n".join(lines[5:]) + "\n", encoding="utf-8")
    for path in (LEGAL, respaced):
        again = zx_import(store, "--format", "json", str(path))
        assert again.exit_code == 0, again.output
        (row,) = json.loads(again.stdout)
        assert (row["match"], row["status"], row["events"]) == ("hand-first-turns-001", "unchanged", 0)
        assert again.stderr.splitlines()[-1] == f"0 imported, 1 unchanged, 0 rejected into {store}"
    assert stored_rows(store) == rows
    assert [s["match"] for s in summaries(store)] == ["hand-first-turns-001"]


def test_same_id_with_different_content_is_a_conflict(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    assert zx_import(store, str(LEGAL)).exit_code == 0
    rows = stored_rows(store)

    changed = tmp_path / "changed.zxlog"
    changed.write_text(LEGAL.read_text(encoding="utf-8").replace('"note": "opening drop"', '"note": "first drop"'),
                       encoding="utf-8")
    result = zx_import(store, str(changed))
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{changed}:1: match hand-first-turns-001 is already stored with different content")
    assert lines[1] == f"0 imported, 0 unchanged, 1 rejected into {store}"

    result = zx_import(store, "--format", "json", str(changed))
    assert result.exit_code == 1
    (row,) = json.loads(result.stdout)
    assert row["status"] == "rejected"
    assert (row["error"]["kind"], row["error"]["line"], row["error"]["rule"]) == ("conflict", 1, None)

    assert stored_rows(store) == rows  # the stored match is untouched
    svc = MatchService(str(store))
    try:
        (log,) = read_log(LEGAL)
        assert svc.get_match("hand-first-turns-001").content_sha256 == log.content_sha256
    finally:
        svc.close()


def test_file_with_three_matches_imports_each_on_its_own(tmp_path: Path) -> None:
    legal = LEGAL.read_text(encoding="utf-8")
    bad_name = "602.1b-out-of-reach.zxlog"
    bad = (INVALID / bad_name).read_text(encoding="utf-8")
    multi = tmp_path / "three.zxlog"
    multi.write_text(_with_id(legal, "multi-1") + _with_id(bad, "multi-2") + _with_id(legal, "multi-3"),
                     encoding="utf-8")
    n_legal = len(legal.splitlines())
    bad_line = n_legal + MANIFEST[bad_name]["line"]
    store = tmp_path / "store.sqlite"

    result = zx_import(store, "--format", "json", str(multi))
    assert result.exit_code == 1
    rows = json.loads(result.stdout)
    assert [(r["match"], r["status"], r["line"]) for r in rows] == [
        ("multi-1", "imported", 1),
        ("multi-2", "rejected", n_legal + 1),
        ("multi-3", "imported", n_legal + len(bad.splitlines()) + 1),
    ]
    assert rows[0]["events"] == rows[2]["events"] > 0
    assert (rows[1]["error"]["line"], rows[1]["error"]["rule"]) == (bad_line, "602.1b")
    assert f"{multi}:{bad_line}: rule 602.1b: b3 is not next to a1 and a1 has no Range" in result.stderr.splitlines()
    assert f"2 imported, 0 unchanged, 1 rejected into {store}" in result.stderr.splitlines()

    assert sorted((s["match"], s["turns"]) for s in summaries(store)) == [("multi-1", 3), ("multi-3", 3)]
    assert stored_rows(store) == rows[0]["events"] + rows[2]["events"]
