"""``zx audit MATCH --catalog FILE`` with another catalog than the one the match pinned at import is no clean audit
(QA round 35: a venue catalog edited after import, W01-002 white -> green, audited "no rule violations", ok true,
exit 0, and its warning blamed "the current rules engine" for the violation gone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "zx_events" / "games" / "zx" / "catalogs" / "sample.csv"
COLOUR = ROOT / "examples" / "invalid" / "204.6-colour.zxlog"  # one 204.6: a white card paid with green resources
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
MATCH = "invalid-204.6-colour"
WHITE = "W01-002,Dawnshield Page,Z/X,white,"


def invoke(store: Path, *args: str):
    return CliRunner().invoke(zx, ["--store", str(store), *args])


@pytest.fixture(scope="module")
def venue(tmp_path_factory) -> tuple[Path, Path, Path, str]:
    """A store with the colour example and the legal one, both imported with a venue's catalog (a file zx does
    not ship); that file as imported, and a copy edited after import (W01-002 green)."""
    tmp = tmp_path_factory.mktemp("venue")
    pinned = tmp / "venue.csv"
    pinned.write_text(SAMPLE.read_text(encoding="utf-8").replace(
        "R01-002,Cinder Hatchling,", "R01-002,Cinder Hatchling V,"), encoding="utf-8")
    store = tmp / "s.sqlite"
    for log in (COLOUR, LEGAL):
        r = invoke(store, "import", "--no-analytics", "--catalog", str(pinned), "--accept-violations", str(log))
        assert r.exit_code == 0, r.output
    edited = tmp / "edited" / "venue.csv"
    edited.parent.mkdir()
    text = pinned.read_text(encoding="utf-8")
    assert WHITE in text
    edited.write_text(text.replace(WHITE, "W01-002,Dawnshield Page,Z/X,green,"), encoding="utf-8")
    legal_id = json.loads(LEGAL.read_text(encoding="utf-8").splitlines()[0])["match"]
    return store, pinned, edited, legal_id


def test_the_pinned_catalog_finds_the_violation_recorded_at_import(venue):
    store, pinned, _, _ = venue
    r = invoke(store, "audit", MATCH, "--catalog", str(pinned), "--format", "json")
    out = json.loads(r.stdout)
    assert [v["rule"] for v in out["violations"]] == ["204.6"] and "other_than_pinned" not in out
    assert not any("recorded at import" in w for w in out["warnings"]), out["warnings"]
    assert r.exit_code == 1  # the violation


def test_an_edited_catalog_that_finds_nothing_is_no_clean_audit(venue):
    store, pinned, edited, _ = venue
    r = invoke(store, "audit", MATCH, "--catalog", str(edited), "--format", "json")
    out = json.loads(r.stdout)
    assert out["violations"] == [] and out["integrity"] == "ok"
    assert out["ok"] is False and out["other_than_pinned"] == ["catalog"]
    assert r.exit_code == 1, r.output
    pin, used = out["pinned"]["catalog"]["sha256"], out["catalog"]["sha256"]
    assert pin != used
    # the recount names the catalog as the difference, not the rules engine
    (recount,) = [w for w in out["warnings"] if "recorded at import" in w]
    assert recount == (f"1 violation was recorded at import against catalog venue (sha256 {pin[:12]}), this audit "
                       f"finds 0 against catalog venue (sha256 {used[:12]}): another catalog than the match pinned, "
                       f"not the rules engine, makes the difference"), recount
    assert "rules engine finds" not in r.stderr


def test_the_table_title_and_the_summary_say_it_is_no_clean_audit(venue):
    store, _, edited, legal_id = venue
    r = invoke(store, "audit", legal_id, "--catalog", str(edited))  # a clean match: nothing found, nothing recorded
    assert r.exit_code == 1, r.output
    title = r.stdout.splitlines()[0]
    assert title.startswith(f"no rule violations in 1 match; checked against catalog {edited} (venue, sha256 "), title
    assert "; not the catalog the match pinned at import (sha256 " in title and title.endswith(
        "): not a clean audit"), title
    assert "): not a clean audit" in r.stderr.splitlines()[0] and \
        ", not the one the match pinned at import (sha256 " in r.stderr.splitlines()[0], r.stderr


def test_two_matches_judged_against_another_catalog_are_counted_in_the_title(venue):
    store, _, edited, legal_id = venue
    r = invoke(store, "audit", MATCH, legal_id, "--catalog", str(edited))
    assert r.exit_code == 1
    assert "; 2 judged against another catalog than the one their match pinned at import: not a clean audit" in \
        r.stdout.splitlines()[0], r.stdout


def test_the_pinned_catalog_on_a_clean_match_is_a_clean_audit(venue):
    store, pinned, _, legal_id = venue
    r = invoke(store, "audit", legal_id, "--catalog", str(pinned), "--format", "json")
    out = json.loads(r.stdout)
    assert out["ok"] is True and "other_than_pinned" not in out and r.exit_code == 0, r.output


def test_a_shipped_catalog_changed_by_a_later_release_is_no_clean_audit_until_the_pinned_one_is_given(
        tmp_path, monkeypatch):
    """A match stored by a release whose shipped catalog a later one changed (the 0.1.0 fixture's did not: its audit
    is as it was): audited by its name, with the shipped catalog of today, it is judged on other card data than it
    was played with; with the catalog file it pinned, it is a clean audit again."""
    from zx_events.games.zx import cards

    store = tmp_path / "s.sqlite"
    assert invoke(store, "import", "--no-analytics", str(LEGAL)).exit_code == 0
    legal_id = json.loads(LEGAL.read_text(encoding="utf-8").splitlines()[0])["match"]
    assert invoke(store, "audit", legal_id).exit_code == 0  # the shipped catalog it pinned
    text = SAMPLE.read_text(encoding="utf-8")
    later = cards.parse_catalog(text.replace("R01-002,Cinder Hatchling,", "R01-002,Cinder Hatchling II,"),
                                name="sample", source="zx_events/games/zx/catalogs/sample.csv")
    monkeypatch.setitem(cards._BUILTIN, "sample", later)  # (the release after)
    r = invoke(store, "audit", legal_id, "--format", "json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and out["ok"] is False and out["other_than_pinned"] == ["catalog"], r.output
    assert any("pass --catalog to audit with the pinned one" in w for w in out["warnings"]), out["warnings"]
    old = tmp_path / "sample-as-released.csv"
    old.write_text(text, encoding="utf-8")
    r = invoke(store, "audit", legal_id, "--catalog", str(old), "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["ok"] is True, r.output


def test_another_board_than_the_match_pinned_is_no_clean_audit(tmp_path):
    """X610Z's board judges movement and attacks (202.9, 603.2) as the catalog judges costs: a stored match audited
    with `--board FILE` of other content than the board it pinned (a venue's board file edited after import: here
    only its note, so no finding changes) is no clean audit either: ok false, other_than_pinned, exit 1 (round 35
    made it so for both kinds with a test of the catalog's only)."""
    log = ROOT / "examples" / "x610z" / "legal" / "life-base-destroyed.x610zlog"
    shipped = ROOT / "zx_events" / "games" / "x610z" / "boards" / "x610z-orbits-sample.json"
    match = json.loads(log.read_text(encoding="utf-8").splitlines()[0])["match"]
    store = tmp_path / "s.sqlite"
    assert invoke(store, "import", "--no-analytics", str(log)).exit_code == 0
    board = json.loads(shipped.read_text(encoding="utf-8"))
    board["note"] = f"{board.get('note', '')} (edited at the venue)"
    edited = tmp_path / "x610z-orbits-sample.json"
    edited.write_text(json.dumps(board), encoding="utf-8")
    r = invoke(store, "audit", match, "--board", str(edited), "--format", "json")
    out = json.loads(r.stdout)
    assert out["violations"] == [] and out["integrity"] == "ok"
    assert out["ok"] is False and out["other_than_pinned"] == ["board"], out
    assert out["board"]["sha256"] != out["pinned"]["board"]["sha256"]
    assert r.exit_code == 1, r.output
    r = invoke(store, "audit", match, "--board", str(shipped), "--format", "json")  # the pinned content: clean
    out = json.loads(r.stdout)
    assert (r.exit_code, out["ok"], "other_than_pinned" in out) == (0, True, False), out
