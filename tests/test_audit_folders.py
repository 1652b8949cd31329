"""``zx audit DIR``: every file a folder holds is a log to audit, one that cannot be read included (a loop of links,
a link to nothing, a named pipe: a finding naming the file, the others audited); and every finding names its file
(the ``source`` column of the table and CSV), one of a malformed log with no match id most of all (QA round 30)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
BAD = ROOT / "examples" / "invalid" / "503.3-too-many.zxlog"
LOOP = "too many levels of symbolic links"


def audit(*args: str, env: dict | None = None):
    return CliRunner().invoke(zx, ["--store", "none.sqlite", "audit", *args], env=env)


def csv_rows(stdout: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(stdout)))


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
    rows = csv_rows(audit("loop", "--format", "csv").stdout)
    assert [(x["source"], x["kind"]) for x in rows] == [("loop/a.zxlog", "format"), ("loop/b.zxlog", "format"),
                                                       ("loop/real.zxlog", "rule")]


def test_a_link_to_nothing_in_a_folder_is_a_finding_that_says_so(here):
    (here / "dang").mkdir()
    shutil.copy(LEGAL, here / "dang" / "real.zxlog")
    os.symlink("nowhere.zxlog", here / "dang" / "gone.zxlog")
    r = audit("dang", "--format", "csv")
    assert r.exit_code == 1, r.output
    assert "unknown match" not in r.output
    (row,) = csv_rows(r.stdout)  # (the legal log: no finding)
    assert (row["source"], row["kind"], row["match"]) == ("dang/gone.zxlog", "format", "")
    assert "dang/gone.zxlog is a link to nowhere.zxlog, which does not exist" in row["message"]
    assert "hand-first-turns-001 (dang/real.zxlog): no violations" in r.stderr


def test_a_named_pipe_in_a_folder_is_a_finding_never_waited_on(here):
    (here / "fifo").mkdir()
    shutil.copy(LEGAL, here / "fifo" / "real.zxlog")
    os.mkfifo(here / "fifo" / "pipe.zxlog")
    r = audit("fifo", "--format", "csv")
    assert r.exit_code == 1, r.output
    (row,) = csv_rows(r.stdout)
    assert row["source"] == "fifo/pipe.zxlog" and "named pipe (FIFO)" in row["message"]


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


# ---------------------------------------------------------------------- every finding names its file (defect 2)
@pytest.fixture
def au(here: Path) -> Path:
    """The QA's folder: a binary file, an empty one, a header cut short (no match id in any), and a log."""
    (here / "au").mkdir()
    (here / "au" / "binary.zxlog").write_bytes(bytes(range(128, 256)) * 8)
    (here / "au" / "empty.zxlog").write_text("")
    (here / "au" / "cut.zxlog").write_text('{"zxlog": 1, "match": "x"')
    shutil.copy(BAD, here / "au" / "real.zxlog")
    return here / "au"


def test_the_csv_names_the_file_of_every_finding(au):
    r = audit("au", "--format", "csv")
    assert r.exit_code == 1, r.output
    header = r.stdout.splitlines()[0]
    assert header == "match,line,seq,turn,player,rule,message,kind,source"  # (source last: the columns before kept)
    rows = csv_rows(r.stdout)
    assert [(x["source"], x["match"], x["kind"]) for x in rows] == [
        ("au/binary.zxlog", "", "format"), ("au/cut.zxlog", "", "format"), ("au/empty.zxlog", "", "format"),
        ("au/real.zxlog", "invalid-503.3-too-many", "rule")]
    assert rows[0]["message"].startswith("not UTF-8") and rows[0]["line"] == "1"


def _table_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("│")]


@pytest.mark.parametrize("columns", [None, "120", "80", "60", "40", "30"])
def test_the_table_names_the_file_of_every_finding_at_any_width(au, columns):
    """The table showed an empty match column and ``line 1`` for a file that holds no match id; only JSON said which
    file. Its first column, kept at any width, is now the file (``source``) when logs were audited."""
    r = audit("au", env={"COLUMNS": columns} if columns else None)
    assert r.exit_code == 1, r.output
    head = next(line for line in r.stdout.splitlines() if line.startswith("┃"))
    assert re.match(r"┃ source\s+┃", head), r.stdout
    firsts = [line.split("│")[1].strip() for line in _table_lines(r.stdout)]
    column = "".join(firsts)  # (a narrow terminal folds the file's name over lines: its pieces one after another)
    for name in ("au/binary.zxlog", "au/cut.zxlog", "au/empty.zxlog", "au/real.zxlog"):
        assert name in column, r.stdout
    if columns in (None, "120", "80", "60"):  # (whole from 60 columns up)
        assert sorted(name for name in firsts if name) == ["au/binary.zxlog", "au/cut.zxlog", "au/empty.zxlog",
                                                          "au/real.zxlog"], r.stdout
    if columns in (None, "120", "80", "60"):  # room for its line, the rule and the message beside it
        binary = next(line for line in _table_lines(r.stdout) if "au/binary.zxlog" in line)
        assert "│ 1 " in binary and "format" in binary and "not UTF-8" in binary
    if columns in (None, "120"):  # and for the match (at 80 columns left out, and named on stderr)
        assert any("invalid-503.3-too-many" in line and "503.3" in line for line in _table_lines(r.stdout))


def test_a_stored_match_alone_keeps_its_table_without_a_source_column(tmp_path):
    """``zx audit MATCH`` audits no file: its table is as before, the match first (the source its JSON gives is the
    file it was imported from, long gone maybe)."""
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", "--accept-violations", str(BAD)]).exit_code == 0
    r = CliRunner().invoke(zx, ["--store", store, "audit", "invalid-503.3-too-many"])
    assert r.exit_code == 1, r.output
    head = next(line for line in r.stdout.splitlines() if line.startswith("┃"))
    assert re.match(r"┃ match\s+┃", head) and "source" not in head, r.stdout
    rows = csv_rows(CliRunner().invoke(zx, ["--store", store, "audit", "invalid-503.3-too-many", "--format",
                                            "csv"]).stdout)
    assert [(x["match"], x["rule"], x["source"]) for x in rows] == [("invalid-503.3-too-many", "503.3", str(BAD))]
