"""A stored X610Z match is shown and audited with its board only when that board is the one it pinned at import.

QA round 28 ("formats", defects 2 and 5). A match checked against a board file that kept the shipped board's name
(x610z-orbits-sample) but had other dots (A5 a No Attack Dot, B3 a normal one) was drawn by every view with the
shipped board's kinds (JSON layout, the terminal legend "No Attack B3 B6", zx view), without a word: the views looked
the board up by name only. They now use the shipped board only when its SHA-256 is the pinned one, else draw no map
(docs/security.md, section 5) and warn, naming both SHA-256s, as for a catalog. A match imported with a board file
zx does not ship at all, audited without it, was "1 malformed log" (kind format, no line): it is a warning now,
naming the pinned board and saying to pass --board FILE."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.games.x610z.board import load_board

from test_x610z_board_files import LEGAL_LOG, SAMPLE, sample_text

MATCH = "x610z-sim-7-0264"  # examples/x610z/legal/life-base-destroyed.x610zlog
VENUE = "venue-board"
VENUE_MATCH = "venue-match-1"


def invoke(store: str, *args: str, env: dict | None = None):
    r = CliRunner().invoke(zx, ["--store", store, *args], env=env or {})
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r


def kinds_board(folder: Path) -> Path:
    """The shipped board under its own name, A5 made a No Attack Dot and B3 a normal one."""
    doc = json.loads(sample_text())
    for d in doc["dots"]:
        if d["id"] in ("A5", "B3"):
            d["kind"] = "no_attack" if d["id"] == "A5" else "normal"
    p = folder / "board-kinds.json"
    p.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def same_name(tmp_path_factory) -> tuple[str, str]:
    """A store holding the legal match checked against ``kinds_board`` (603.2 at A5 recorded), and that board's
    SHA-256."""
    folder = tmp_path_factory.mktemp("pinned-same-name")
    board = kinds_board(folder)
    store = str(folder / "s.sqlite")
    r = invoke(store, "import", "--no-analytics", "--accept-violations", "--board", str(board), str(LEGAL_LOG))
    assert r.exit_code == 0 and "1 imported" in r.output, r.output
    return store, hashlib.sha256(board.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def venue(tmp_path_factory) -> tuple[str, Path, str]:
    """A store holding the legal match played on ``venue-board``, a board file zx does not ship (the shipped
    board's content under that name), imported with --board; the file and its SHA-256."""
    folder = tmp_path_factory.mktemp("pinned-venue")
    doc = json.loads(sample_text())
    doc["name"] = VENUE
    board = folder / "venue-board.json"
    board.write_text(json.dumps(doc), encoding="utf-8")
    lines = LEGAL_LOG.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.update(board=VENUE, match=VENUE_MATCH)
    log = folder / "venue.x610zlog"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(folder / "s.sqlite")
    r = invoke(store, "import", "--no-analytics", "--board", str(board), str(log))
    assert r.exit_code == 0 and "1 imported" in r.output, r.output
    return store, board, hashlib.sha256(board.read_bytes()).hexdigest()


def board_warning(pinned: str) -> str:
    shipped = load_board(SAMPLE).sha256
    return (f"the match was checked against board {SAMPLE!r} sha256 {pinned[:12]}, the current one is "
            f"{shipped[:12]}")


# ---------------------------------------------------------------------- defect 2: the views
def test_replay_json_of_a_match_checked_on_another_board_of_the_shipped_name_has_no_layout_and_warns(same_name):
    store, pinned = same_name
    r = invoke(store, "replay", MATCH, "--as", "judge", "--format", "json")
    assert r.exit_code == 0, r.output
    state = json.loads(r.stdout)
    assert state["violations"][0]["rule"] == "603.2"  # checked on the file: A5 is a No Attack Dot there
    assert state["board"] == SAMPLE and state["layout"] is None  # not the shipped board's kinds (A5 normal)
    assert f"warning: {board_warning(pinned)}" in r.stderr, r.stderr


def test_replay_table_of_a_match_checked_on_another_board_of_the_shipped_name_draws_no_map(same_name):
    store, pinned = same_name
    r = invoke(store, "replay", MATCH, "--as", "P2", env={"COLUMNS": "120"})
    assert r.exit_code == 0, r.output
    assert "No Attack B3 B6" not in r.stdout and "dots: " not in r.stdout  # the shipped board's legend
    assert "the map is not drawn" in r.stdout and "on " in r.stdout  # the summons by dot, as for a board file
    assert f"warning: {board_warning(pinned)}" in r.stderr, r.stderr


def test_zx_view_of_a_match_checked_on_another_board_of_the_shipped_name_has_no_layout_and_warns(same_name, tmp_path):
    from zx_web.viewer import decode

    store, pinned = same_name
    out = tmp_path / "m.html"
    r = invoke(store, "view", MATCH, "--as", "P1", "-o", str(out))
    assert r.exit_code == 0, r.output
    data = json.loads(re.search(r'<script type="application/json" id="zx-data">(.*?)</script>', out.read_text(),
                                re.S).group(1))
    assert board_warning(pinned) in data["warning"], data["warning"]
    states = decode(data, "P1")
    assert states and all(s.get("layout") is None for s in states)


def test_a_match_on_the_shipped_board_keeps_its_map_and_no_warning(tmp_path):
    store = str(tmp_path / "s.sqlite")
    assert invoke(store, "import", "--no-analytics", str(LEGAL_LOG)).exit_code == 0
    r = invoke(store, "replay", MATCH, "--format", "json")
    state = json.loads(r.stdout)
    assert state["layout"]["dots"]["B3"][2] == "no_attack" and state["layout"]["dots"]["A5"][2] == "normal"
    assert "warning" not in r.stderr
    r = invoke(store, "replay", MATCH, env={"COLUMNS": "120"})
    assert "No Attack B3 B6" in r.stdout and "warning" not in r.stderr


def test_audit_of_a_match_checked_on_another_board_of_the_shipped_name_does_not_judge_it_on_the_shipped_one(
        same_name):
    """The audit re-checked it on the shipped board (A5 normal: the 603.2 recorded at import gone), with a warning;
    a board it may use is the pinned one only: it says so and what to pass, and shows no finding of another board."""
    store, pinned = same_name
    r = invoke(store, "audit", MATCH, "--format", "json")
    out = json.loads(r.stdout)
    assert out["violations"] == [] and out["integrity"] == "ok" and out["board"] is None
    assert out["pinned"]["board"] == {"name": SAMPLE, "sha256": pinned}
    (warning,) = [w for w in out["warnings"] if "board" in w]
    assert warning.startswith(board_warning(pinned)), warning
    assert "pass --board FILE (the board file the match was imported with)" in warning
    assert not any("recorded at import" in w for w in out["warnings"]), out["warnings"]  # nothing was re-checked
    assert out["ok"] is False and out["not_rechecked"] == ["board"]  # nothing judged: no clean audit (exit 1)
    assert r.exit_code == 1


# ---------------------------------------------------------------------- defect 5: the audit without the board file
def test_audit_of_a_match_imported_with_a_board_file_zx_does_not_ship_warns_it_is_no_malformed_log(venue):
    store, _, sha = venue
    r = invoke(store, "audit", VENUE_MATCH, "--format", "json")
    out = json.loads(r.stdout)
    assert out["violations"] == [], out["violations"]  # it was "1 malformed log (x610zlog 1)", line null
    assert out["integrity"] == "ok" and out["ok"] is False and out["not_rechecked"] == ["board"]
    assert out["pinned"]["board"] == {"name": VENUE, "sha256": sha}
    (warning,) = out["warnings"]
    assert VENUE in warning and sha[:12] in warning, warning
    assert "pass --board FILE (the board file the match was imported with)" in warning
    assert f"warning: {VENUE_MATCH}: {warning}" in r.stderr
    assert r.exit_code == 1, r.output  # no finding, integrity ok, but nothing judged: not a clean audit


def test_audit_table_of_a_match_imported_with_a_board_file_zx_does_not_ship_counts_no_malformed_log(venue):
    store, _, _ = venue
    r = invoke(store, "audit", VENUE_MATCH)
    assert "malformed" not in r.stdout and "format" not in r.stdout, r.stdout
    assert r.stdout.startswith("no rule violations in 1 match; 1 not re-checked (pass --board FILE)"), r.stdout
    assert f"{VENUE_MATCH} (" in r.stderr and "): not re-checked (its pinned board not given: pass --board FILE)" \
        in r.stderr, r.stderr  # (it said "no violations; checked with ... rules": of nothing judged)
    assert "pass --board FILE" in r.stderr and "1 violation" not in r.stderr, r.stderr


def test_audit_with_the_board_file_of_a_match_zx_does_not_ship_checks_it_without_a_warning(venue):
    store, board, sha = venue
    r = invoke(store, "audit", VENUE_MATCH, "--board", str(board), "--format", "json")
    out = json.loads(r.stdout)
    assert r.exit_code == 0 and out["violations"] == [] and out["warnings"] == []
    assert out["board"] == out["pinned"]["board"] == {"name": VENUE, "sha256": sha}


def test_replay_of_a_match_imported_with_a_board_file_zx_does_not_ship_warns_of_it(venue):
    store, _, sha = venue
    r = invoke(store, "replay", VENUE_MATCH, "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["layout"] is None
    assert "warning: " in r.stderr and VENUE in r.stderr and sha[:12] in r.stderr, r.stderr
