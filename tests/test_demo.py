"""zx demo: simulate, import, analyse and replay on a fresh embedded store."""

import json

from click.testing import CliRunner

from cli.main import zx
from zx_events.application import MatchService


def test_demo_runs_end_to_end(tmp_path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(zx, ["demo", "--matches", "6", "--seed", "3", "--dir", str(out)])
    assert result.exit_code == 0, result.output
    zx_part, x610z_part = result.output.split("== Z/X -Zillions of enemy X- (zx): 6 matches")[1].split(
        "== X610Z (x610z): 6 matches")
    for part in (zx_part, x610z_part):  # both games, each counted on its own
        assert "Win rate by deck (Wilson 95%)" in part and "First-player advantage" in part
    assert "Attacks by target (top 6)" in zx_part  # Z/X's attacks table
    assert "Replay of sim-3-0001 (Z/X -Zillions of enemy X-), turn 3" in result.output
    assert "Replay of x610z-sim-3-000000 (X610Z), turn 3" in result.output
    assert "dots: Starting S1" in result.output  # the X610Z board drawing
    rows = MatchService(str(out / "events.sqlite")).summaries()
    assert len(rows) == 12 and all(r["winner"] or r["reason"] is None for r in rows)
    assert sorted(r["game"] for r in rows) == ["x610z"] * 6 + ["zx"] * 6
    # a second run replaces the demo folder instead of adding to it
    again = CliRunner().invoke(zx, ["demo", "--matches", "4", "--seed", "3", "--dir", str(out), "--format", "json"])
    assert again.exit_code == 0, again.output
    assert len(MatchService(str(out / "events.sqlite")).summaries()) == 8
    summary = json.loads(again.stdout)
    assert summary["summary"]["matches"] == 8
    by_game = {(r["game"], r["table"]) for r in summary["winrates"]}
    assert by_game == {("zx", "deck"), ("zx", "first"), ("x610z", "deck"), ("x610z", "first")}


def test_demo_refuses_a_folder_that_is_not_its_own(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    result = CliRunner().invoke(zx, ["demo", "--matches", "2", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "is not a zx demo folder" in result.output
    assert (tmp_path / "precious.txt").read_text() == "keep me"
