"""``zx audit DIR``: every file a folder holds is a log to audit, one that cannot be read included (a loop of links,
a link to nothing, a named pipe: a finding naming the file, the others audited) (QA round 30)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
BAD = ROOT / "examples" / "invalid" / "503.3-too-many.zxlog"
LOOP = "too many levels of symbolic links"


def audit(*args: str, env: dict | None = None):
    return CliRunner().invoke(zx, ["--store", "none.sqlite", "audit", *args], env=env)


@pytest.fixture
def here(tmp_path: Path, monkeypatch) -> Path:
    """An empty folder, the current one (paths stay short and relative, as a judge types them)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---------------------------------------------------------------------- what a folder holds is a file (defect 1)
def test_a_loop_of_links_in_a_folder_is_a_finding_for_each_and_the_other_logs_are_audited(here):
    """``a.zxlog -> b.zxlog -> a.zxlog`` beside a log: "unknown matches 'loop/a.zxlog', 'loop/b.zxlog': they are
    neither log files nor a stored match", nothing audited; now one format finding for each link, naming it and why,
    and the log audited as usual."""
    (here / "loop").mkdir()
    shutil.copy(BAD, here / "loop" / "real.zxlog")
    os.symlink("b.zxlog", here / "loop" / "a.zxlog")
    os.symlink("a.zxlog", here / "loop" / "b.zxlog")
    r = audit("loop", "--format", "json")
    assert r.exit_code == 1, r.output
    assert "neither" not in r.output and "unknown match" not in r.output
    out = {o["source"]: o for o in map(json.loads, r.stdout.splitlines())}
    assert set(out) == {"loop/a.zxlog", "loop/b.zxlog", "loop/real.zxlog"}
    for name in ("loop/a.zxlog", "loop/b.zxlog"):
        (finding,) = out[name]["violations"]
        assert out[name]["match"] is None and finding["kind"] == "format" and LOOP in finding["message"]
    assert [v["rule"] for v in out["loop/real.zxlog"]["violations"]] == ["503.3"]


def test_a_link_to_nothing_in_a_folder_is_a_finding_that_says_so(here):
    (here / "dang").mkdir()
    shutil.copy(LEGAL, here / "dang" / "real.zxlog")
    os.symlink("nowhere.zxlog", here / "dang" / "gone.zxlog")
    r = audit("dang", "--format", "json")
    assert r.exit_code == 1, r.output
    assert "unknown match" not in r.output
    gone, real = map(json.loads, r.stdout.splitlines())
    (finding,) = gone["violations"]
    assert (gone["source"], finding["kind"], gone["match"]) == ("dang/gone.zxlog", "format", None)
    assert "dang/gone.zxlog is a link to nowhere.zxlog, which does not exist" in finding["message"]
    assert real["ok"]
    assert "hand-first-turns-001 (dang/real.zxlog): no violations" in r.stderr


def test_a_named_pipe_in_a_folder_is_a_finding_never_waited_on(here):
    (here / "fifo").mkdir()
    shutil.copy(LEGAL, here / "fifo" / "real.zxlog")
    os.mkfifo(here / "fifo" / "pipe.zxlog")
    r = audit("fifo", "--format", "json")
    assert r.exit_code == 1, r.output
    pipe, real = map(json.loads, r.stdout.splitlines())
    assert pipe["source"] == "fifo/pipe.zxlog" and "named pipe (FIFO)" in pipe["violations"][0]["message"]
    assert real["ok"]


@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_link_named_on_the_command_line_says_what_it_is(here, kind):
    """Named on the command line, a loop of links and a link to nothing were "unknown match 'X': it is neither a
    log file nor a stored match" too."""
    if kind == "loop":
        os.symlink("b.zxlog", here / "a.zxlog")
        os.symlink("a.zxlog", here / "b.zxlog")
        said = LOOP
    else:
        os.symlink("gone/nowhere.zxlog", here / "a.zxlog")
        said = "a.zxlog is a link to gone/nowhere.zxlog, which does not exist"
    r = audit("a.zxlog", str(LEGAL), "--format", "json")
    assert r.exit_code == 1, r.output
    assert "unknown match" not in r.output and "neither" not in r.output
    first, second = map(json.loads, r.stdout.splitlines())
    assert first["source"] == "a.zxlog" and said in first["violations"][0]["message"]
    assert second["match"] == "hand-first-turns-001" and second["ok"]


def test_a_name_that_is_nothing_on_disk_is_still_an_unknown_match(here):
    r = audit("no-such-match")
    assert r.exit_code == 1
    assert "unknown match 'no-such-match': it is neither a log file nor a stored match" in r.output
