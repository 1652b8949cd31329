"""zx audit of a stored X610Z match judges it by the board it was imported with: its Started event
pins the board's name and SHA-256 (docs/match-log-x610z.md), as it pins the catalog (docs/audit.md)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.games.x610z.board import load_board

from test_x610z_board_files import SAMPLE, UNCONNECTED, UNCONNECTED_ID, run, sample_text


@pytest.fixture
def plus_board(tmp_path) -> Path:
    """The sample board with one more line, S1-B1, under the same name: the 600.3 example is legal on it
    (a curved line, its headings given: drawn straight it would lie on S1-A1, which the board load refuses)."""
    doc = json.loads(sample_text())
    doc["lines"].append({"a": "S1", "b": "B1", "heading": [90, 270]})
    p = tmp_path / "board-plus.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.fixture
def stored_on_plus(tmp_path, plus_board) -> str:
    store = str(tmp_path / "s.sqlite")
    r = run(store, "import", "--no-analytics", "--board", str(plus_board), str(UNCONNECTED))
    assert r.exit_code == 0 and "1 imported" in r.output, r.output
    return store


def _audit(store: str, *args: str) -> tuple[dict, str]:
    r = CliRunner().invoke(zx, ["--store", store, "audit", UNCONNECTED_ID, "--format", "json", *args])
    return json.loads(r.stdout), r.stderr


def test_audit_of_a_match_imported_with_a_board_file_warns_and_says_to_pass_board(stored_on_plus, plus_board):
    """It judged the match on the shipped board of the name (the 600.3 the board file makes legal found), with a
    warning; a stored match is judged on the board it pinned only (QA round 28: tests/games/x610z/
    test_x610z_pinned_board.py): nothing is re-checked, and the warning says what to pass."""
    out, err = _audit(stored_on_plus)
    plus_sha = hashlib.sha256(plus_board.read_bytes()).hexdigest()
    shipped = load_board(SAMPLE)
    assert out["pinned"]["board"] == {"name": SAMPLE, "sha256": plus_sha}
    assert out["board"] is None and out["violations"] == []  # no board used: not the shipped one of the name
    warning = (f"the match was checked against board {SAMPLE!r} sha256 {plus_sha[:12]}, the current one is "
               f"{shipped.sha256[:12]}: its records were not re-checked; pass --board FILE (the board file the match "
               f"was imported with) to audit with the pinned one")
    assert out["warnings"][0] == warning
    assert f"warning: {UNCONNECTED_ID}: {warning}" in err


def test_audit_with_the_pinned_board_file_finds_no_violation_and_no_board_warning(stored_on_plus, plus_board):
    out, err = _audit(stored_on_plus, "--board", str(plus_board))
    assert out["violations"] == [] and out["ok"] is True
    assert out["board"] == out["pinned"]["board"]
    assert not any("board" in w for w in out["warnings"]), out["warnings"]


def test_audit_of_a_match_on_a_shipped_board_uses_it_without_a_warning(tmp_path):
    store = str(tmp_path / "s.sqlite")
    assert run(store, "import", "--no-analytics", "--accept-violations", str(UNCONNECTED)).exit_code == 0
    out, _ = _audit(store)
    assert out["pinned"]["board"] == out["board"] == load_board(SAMPLE).ref
    assert [v["rule"] for v in out["violations"]] == ["600.3"]
    assert out["warnings"] == []


def test_audit_of_a_match_imported_with_a_copy_of_the_shipped_board_uses_the_shipped_one(tmp_path):
    copy = tmp_path / "copy.json"
    copy.write_text(sample_text(), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    assert run(store, "import", "--no-analytics", "--accept-violations", "--board", str(copy),
               str(UNCONNECTED)).exit_code == 0
    out, _ = _audit(store)
    assert out["pinned"]["board"] == out["board"] == load_board(SAMPLE).ref
    assert out["warnings"] == []


def test_audit_table_title_names_the_board_and_catalog_it_checked_against(tmp_path, stored_on_plus, plus_board):
    """The table's title said only how many violations in how many matches: a judge reading the report
    later could not tell which board (and catalog) the logs were checked against. It names them: a file
    given with --board by its path, with the board's name and the first 16 hex digits of its SHA-256;
    otherwise the one each log names; on one line in a pipe. Each match's line on stderr names its board."""
    from zx_events import games

    plus_sha = hashlib.sha256(plus_board.read_bytes()).hexdigest()
    shipped = load_board(SAMPLE).sha256
    x610z_cat = games.get("x610z").load_catalog("x610z-sample").sha256
    zx_cat = games.get("zx").load_catalog("sample").sha256
    catalog = f"the catalog each log names, x610z-sample (sha256 {x610z_cat[:16]})"

    def title(*args: str) -> tuple[str, str]:
        r = CliRunner().invoke(zx, ["--store", stored_on_plus, "audit", *args])
        return r.stdout.splitlines()[0], r.stderr

    line, err = title(UNCONNECTED_ID, "--board", str(plus_board))
    assert line == (f"no rule violations in 1 match; checked against {catalog} and board {plus_board} "
                    f"({SAMPLE}, sha256 {plus_sha[:16]})")
    assert (f"{UNCONNECTED_ID} ({UNCONNECTED}): no violations; checked with catalog x610z-sample (sha256 "
            f"{x610z_cat[:16]}), board {SAMPLE} (sha256 {plus_sha[:16]}) and rules ") in err
    odd = tmp_path / "[red]board.json"  # a path as it is, never read as markup
    odd.write_bytes(plus_board.read_bytes())
    assert title(UNCONNECTED_ID, "--board", str(odd))[0].endswith(f" and board {odd} ({SAMPLE}, sha256 {plus_sha[:16]})")
    line, err = title(UNCONNECTED_ID, str(UNCONNECTED))  # a stored match and a log file, each its own board: the
    # stored one's board file is not at hand, and no board of the name is used for it (QA round 28)
    assert line == (f"1 rule violation in 2 matches; 1 not re-checked (pass --board FILE); checked against {catalog} "
                    f"and the board each log names, "
                    f"{SAMPLE} (sha256 {shipped[:16]})")
    assert err.count(f"board {SAMPLE} (sha256 {shipped[:16]})") == 1
    assert f"warning: {UNCONNECTED_ID}: the match was checked against board {SAMPLE!r} sha256 {plus_sha[:12]}" in err
    zx_log = str(Path(__file__).resolve().parents[3] / "examples" / "legal" / "first-turns.zxlog")
    line, _ = title(str(UNCONNECTED), zx_log)  # two games: two catalogs
    assert line == (f"1 rule violation in 2 matches; checked against the catalog each log names (x610z-sample "
                    f"(sha256 {x610z_cat[:16]}), sample (sha256 {zx_cat[:16]})) and the board each log names, "
                    f"{SAMPLE} (sha256 {shipped[:16]})")
    line, _ = title(str(UNCONNECTED), zx_log, "--catalog", "sample")  # --catalog: one game's
    assert line.startswith(f"1 rule violation in 2 matches; checked against catalog sample (sha256 {zx_cat[:16]}), "
                           f"the catalog each other log names, x610z-sample (sha256 {x610z_cat[:16]}) and ")


def test_audit_of_the_handed_in_file_warns_of_the_board_the_stored_match_was_checked_against(stored_on_plus):
    """The log file of a stored match, audited against the board its header names, said "integrity ok" and a
    violation the stored match (judged on the board file it was imported with) does not have, without a word."""
    r = CliRunner().invoke(zx, ["--store", stored_on_plus, "audit", str(UNCONNECTED), "--format", "json"])
    out = json.loads(r.stdout)
    assert out["integrity"] == "ok" and out["pinned"]["board"]["name"] == SAMPLE
    assert any("the match was checked at import against board" in w and "pass --board FILE" in w
               for w in out["warnings"]), out["warnings"]


def test_a_bundle_holds_the_board_file_it_was_checked_with_and_its_check_uses_it(stored_on_plus, plus_board, tmp_path):
    """A bundle made with --board FILE held no board: `zx audit original.x610zlog`, as its README said, gave the
    opposite finding (the header names the shipped board)."""
    import zipfile

    bundle = tmp_path / "d.zip"
    r = CliRunner().invoke(zx, ["--store", stored_on_plus, "audit", UNCONNECTED_ID, "--board", str(plus_board),
                                "--bundle", str(bundle)])
    assert r.exit_code == 0, r.output  # no violation on the board it was imported with
    z = zipfile.ZipFile(bundle)
    assert z.read("board.json") == plus_board.read_bytes()
    readme = z.read("README.txt").decode()
    assert "Check it: zx audit original.x610zlog --board board.json" in readme, readme
    fresh = tmp_path / "fresh"
    z.extractall(fresh)
    again = CliRunner().invoke(zx, ["--store", str(tmp_path / "none.sqlite"), "audit",
                                    str(fresh / "original.x610zlog"), "--board", str(fresh / "board.json")])
    assert again.exit_code == 0 and "no violations" in again.output, again.output


def test_a_board_given_for_a_match_pinned_to_a_shipped_board_is_told_to_be_left_out(tmp_path, plus_board):
    """The warning said "pass --board FILE (the board file the match was imported with)" of a match imported
    with no board file: what audits it with its pinned board is to leave --board out."""
    store = str(tmp_path / "s.sqlite")
    assert run(store, "import", "--no-analytics", "--accept-violations", str(UNCONNECTED)).exit_code == 0
    _, err = _audit(store, "--board", str(plus_board))
    assert f"leave out --board: zx ships the board {SAMPLE} to audit with the pinned one" in err, err
