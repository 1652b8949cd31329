"""zx demo: simulate, import, analyse and replay on a fresh embedded store."""

import csv
import io
import json

from click.testing import CliRunner

from zx_cli.main import zx
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
    assert "Replay of x610z-sim-3-0001 (X610Z), turn 3" in result.output
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
    # CSV: the same rows, every column (the seat column was left out: a first-seat row read as a second-seat one)
    third = CliRunner().invoke(zx, ["demo", "--matches", "4", "--seed", "3", "--dir", str(out), "--format", "csv"])
    assert third.exit_code == 0, third.output
    rows = list(csv.DictReader(io.StringIO(third.stdout)))
    assert {"game", "table", "deck", "seat", "games", "wins", "win_rate"} <= set(rows[0])
    want = [{k: "" if v is None else str(v) for k, v in r.items()} for r in summary["winrates"]]
    assert [{k: r[k] for k in w if k not in ("win_rate", "win_rate_low", "win_rate_high")} for r, w in zip(rows, want)] \
        == [{k: v for k, v in w.items() if k not in ("win_rate", "win_rate_low", "win_rate_high")} for w in want]
    assert sorted((r["game"], r["seat"]) for r in rows if r["table"] == "first") == [
        ("x610z", "first"), ("x610z", "second"), ("zx", "first"), ("zx", "second")]


def test_demo_fits_a_narrow_terminal(tmp_path):
    """At COLUMNS=60 the demo printed 125-character record lines and 84-character headings: every line
    of its output now fits the terminal (records wrap, indented), and the commands it suggests next
    are one a line, each whole. To a pipe a record stays one line."""
    out = tmp_path / "demo"
    r = CliRunner(env={"COLUMNS": "60"}).invoke(zx, ["demo", "--matches", "2", "--seed", "3", "--dir", str(out)])
    assert r.exit_code == 0, r.output
    assert max(len(line) for line in r.stdout.splitlines()) <= 60, r.stdout
    assert "Replay of sim-3-0001 (Z/X -Zillions of enemy X-), turn 3," in r.stdout and "  line " in r.stdout
    assert f"\n  zx --store {out / 'events.sqlite'} replay sim-3-0001 --step\n" in r.stderr
    # a column its tables leave out is named with what shows it: zx demo has no --wide (QA round 31: "--wide shows
    # them", and zx demo --wide was "No such option")
    assert "zx stats ... --wide, shows them" in r.stderr and "; --wide shows them" not in r.stderr, r.stderr
    piped = CliRunner().invoke(zx, ["demo", "--matches", "2", "--seed", "3", "--dir", str(out)])
    assert any(len(line) > 60 and line.startswith("  line ") for line in piped.stdout.splitlines())


def test_demo_refuses_a_folder_that_is_not_its_own(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    result = CliRunner().invoke(zx, ["demo", "--matches", "2", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "is not a zx demo folder" in result.output
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_demo_never_deletes_what_it_did_not_write(tmp_path):
    """A folder holding someone's own events.sqlite was deleted whole (the only test was that file's
    name). Now a demo replaces what a demo wrote (logs/, events.*), in a folder it marked or one made
    before the mark that holds nothing else, and refuses any other folder before touching a file."""
    from zx_events.application import MatchService as Service

    mine = tmp_path / "mine"
    mine.mkdir()
    Service(str(mine / "events.sqlite")).close()  # somebody's store, beside their notes
    (mine / "notes.txt").write_text("keep me")
    before = sorted(p.name for p in mine.iterdir())
    r = CliRunner().invoke(zx, ["demo", "--matches", "2", "--dir", str(mine)])
    assert r.exit_code == 1 and "is not a zx demo folder (it holds notes.txt)" in r.output
    assert "nothing was changed" in r.output
    assert sorted(p.name for p in mine.iterdir()) == before and (mine / "notes.txt").read_text() == "keep me"
    (mine / "notes.txt").unlink()  # a store alone is not a demo's either (no simulated logs beside it)
    r = CliRunner().invoke(zx, ["demo", "--matches", "2", "--dir", str(mine)])
    assert r.exit_code == 1 and "it holds a store it did not make" in r.output and (mine / "events.sqlite").exists()
    (mine / "logs").mkdir()
    (mine / "logs" / "round-3.zxlog").write_text("{}")
    r = CliRunner().invoke(zx, ["demo", "--matches", "2", "--dir", str(mine)])
    assert r.exit_code == 1 and "logs/round-3.zxlog" in r.output and (mine / "logs" / "round-3.zxlog").exists()

    demo = tmp_path / "demo"
    r = CliRunner().invoke(zx, ["demo", "--matches", "2", "--seed", "5", "--dir", str(demo), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert (demo / ".zx-demo").is_file()
    (demo / "my-notes.txt").write_text("mine")  # added later to a demo's folder: kept by the next run
    r = CliRunner().invoke(zx, ["demo", "--matches", "3", "--seed", "5", "--dir", str(demo), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert (demo / "my-notes.txt").read_text() == "mine"
    assert len(MatchService(str(demo / "events.sqlite")).summaries()) == 6
    (demo / ".zx-demo").unlink()  # a demo folder from before the mark: only what a demo writes
    (demo / "my-notes.txt").unlink()
    r = CliRunner().invoke(zx, ["demo", "--matches", "2", "--seed", "5", "--dir", str(demo), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert len(MatchService(str(demo / "events.sqlite")).summaries()) == 4
