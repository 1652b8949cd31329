"""zx demo: simulate, import, analyse and replay on a fresh embedded store."""

from click.testing import CliRunner

from cli.main import zx
from zx_events.application import MatchService


def test_demo_runs_end_to_end(tmp_path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(zx, ["demo", "--matches", "6", "--seed", "3", "--dir", str(out)])
    assert result.exit_code == 0, result.output
    assert "Win rate by deck (Wilson 95%)" in result.output
    assert "First-player advantage" in result.output
    assert "Replay of sim-3-0001, turn 3" in result.output
    rows = MatchService(str(out / "events.sqlite")).summaries()
    assert len(rows) == 6 and all(r["winner"] or r["reason"] is None for r in rows)
    # a second run replaces the demo folder instead of adding to it
    again = CliRunner().invoke(zx, ["demo", "--matches", "4", "--seed", "3", "--dir", str(out), "--format", "json"])
    assert again.exit_code == 0, again.output
    assert len(MatchService(str(out / "events.sqlite")).summaries()) == 4


def test_demo_refuses_a_folder_that_is_not_its_own(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    result = CliRunner().invoke(zx, ["demo", "--matches", "2", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "is not a zx demo folder" in result.output
    assert (tmp_path / "precious.txt").read_text() == "keep me"
