"""X610Z through the product: the zx commands on a real store (SQLite file, or PostgreSQL) holding
matches of both games."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import zx
from zx_events.application import MatchService

ROOT = Path(__file__).resolve().parents[3]
LEGAL = ROOT / "examples" / "x610z" / "legal"
INVALID = ROOT / "examples" / "x610z" / "invalid"
ZX_LEGAL = ROOT / "examples" / "legal"
SHARP = INVALID / "202.9-sharp-turn.x610zlog"
MATCH = "x610z-sim-7-000263"  # examples/x610z/legal/life-base-destroyed.x610zlog


def run(store: str, *args: str):
    return CliRunner().invoke(zx, ["--store", store, *args])


@pytest.fixture
def both(tmp_path) -> str:
    """A SQLite store with the X610Z legal examples and the Z/X legal examples (X610Z first)."""
    store = str(tmp_path / "s.sqlite")
    for folder in (LEGAL, ZX_LEGAL):
        r = run(store, "import", str(folder))
        assert r.exit_code == 0, r.output
    return store


def test_x610z_import_then_zx_import_share_one_store(both):
    rows = MatchService(both).summaries()
    games = {r["game"] for r in rows}
    assert games == {"x610z", "zx"}
    assert sum(r["game"] == "x610z" for r in rows) == len(list(LEGAL.glob("*.x610zlog")))


def test_x610z_strict_import_names_file_line_and_rule_and_stores_nothing(tmp_path):
    store = str(tmp_path / "s.sqlite")
    r = run(store, "import", str(SHARP))
    assert r.exit_code == 1
    assert f"{SHARP}:11: rule 202.9: sharp turn at A1: B1 > A1 > A2 is 60 degrees (under 90)" in r.output
    assert "Traceback" not in r.output
    assert MatchService(store).summaries() == []
    ok = run(store, "import", "--accept-violations", str(SHARP))
    assert ok.exit_code == 0, ok.output
    (row,) = MatchService(store).summaries()
    assert (row["game"], row["violations"]) == ("x610z", 1)


def test_x610z_matches_game_filter(both):
    r = run(both, "matches", "--game", "x610z", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert rows and {x["game"] for x in rows} == {"x610z"}
    zx_rows = json.loads(run(both, "matches", "--game", "zx", "--format", "json").stdout)
    assert zx_rows and {x["game"] for x in zx_rows} == {"zx"}
    bad = run(both, "matches", "--game", "chess")
    assert bad.exit_code == 2 and "unknown game 'chess'" in bad.output


def test_x610z_audit_bundle_carries_the_log_under_its_own_suffix(tmp_path):
    store = str(tmp_path / "s.sqlite")
    assert run(store, "import", "--accept-violations", str(SHARP)).exit_code == 0
    bundle = tmp_path / "d.zip"
    r = run(store, "audit", "x610z-invalid-202.9-sharp-turn", "--bundle", str(bundle))
    assert r.exit_code == 1 and "202.9" in r.output  # a violation: exit 1
    names = zipfile.ZipFile(bundle).namelist()
    assert "original.x610zlog" in names and "violation-01/state-before.json" in names
    readme = zipfile.ZipFile(bundle).read("README.txt").decode()
    assert "zx audit original.x610zlog" in readme
    original = tmp_path / "original.x610zlog"
    original.write_bytes(zipfile.ZipFile(bundle).read("original.x610zlog"))
    again = run(store, "audit", str(original), "--format", "json")
    (found,) = [json.loads(line) for line in again.stdout.splitlines()]
    assert found["game"] == "x610z" and [v["rule"] for v in found["violations"]] == ["202.9"]


def test_x610z_verify(both):
    r = run(both, "verify", MATCH)
    assert r.exit_code == 0, r.output
    assert "1 intact, 0 failed" in r.output
