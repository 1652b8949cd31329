"""Board files given with --board: nesting, size, a byte-order mark and long values in messages."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.errors import FormatError
from zx_events.games.x610z.board import MAX_BOARD, load_board, read_board

ROOT = Path(__file__).resolve().parents[3]
LEGAL_LOG = ROOT / "examples" / "x610z" / "legal" / "life-base-destroyed.x610zlog"
UNCONNECTED = ROOT / "examples" / "x610z" / "invalid" / "600.3-unconnected.x610zlog"
UNCONNECTED_ID = "x610z-invalid-600.3-unconnected"
SAMPLE = "x610z-orbits-sample"
CITE = " (docs/match-log-x610z.md, Board file)"  # what an error of the file's shape cites


def run(store: str, *args: str):
    return CliRunner().invoke(zx, ["--store", store, *args])


def sample_text() -> str:
    return resources.files("zx_events.games.x610z").joinpath("boards", f"{SAMPLE}.json").read_text(encoding="utf-8")


def refused(path: Path) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_board(path)
    assert str(info.value).startswith(f"{path}")
    return info.value


# ---------------------------------------------------------------------- nesting
def test_board_nested_too_deep_is_a_format_error_with_its_line_not_an_internal_error(tmp_path):
    deep = tmp_path / "deep.json"
    text = sample_text().replace('"name": ', '"note": ' + "[" * 100_000 + "]" * 100_000 + ',\n  "name": ', 1)
    deep.write_text(text, encoding="utf-8")
    line = text[:text.index("[[")].count("\n") + 1
    message = f"{deep}:{line}: format: nested too deep: more than 32 levels of arrays and objects (docs/match-log.md, Limits)"
    assert str(refused(deep)) == message
    store = str(tmp_path / "s.sqlite")
    for command in ("import", "audit"):
        r = run(store, command, "--board", str(deep), str(LEGAL_LOG))
        assert r.exit_code == 1 and r.output == f"Error: {message}\n", r.output
    assert not Path(store).exists()


def test_board_nested_33_levels_is_refused_and_32_levels_is_not_a_nesting_error(tmp_path):
    for levels, deep in ((33, True), (32, False)):
        p = tmp_path / f"n{levels}.json"
        p.write_text(sample_text().replace('"name": ', '"note": ' + "[" * (levels - 1) + "]" * (levels - 1) + ', "name": ', 1))
        assert ("nested too deep" in str(refused(p))) is deep  # 32: the note is not a string, its own error


def test_board_brackets_inside_strings_are_not_nesting(tmp_path):
    p = tmp_path / "b.json"
    p.write_text(sample_text().replace('"note": "', '"note": "' + "[{" * 100 + '\\"[', 1))
    assert read_board(p).name == SAMPLE


def test_a_board_path_that_is_a_named_pipe_is_refused_by_its_kind_unopened(tmp_path):
    """``--board pipe.json`` (mkfifo) was "unknown board ...: not a shipped board nor a board file", and
    read_board opened what it was given (a named pipe waits for a writer). It is named by its kind, unopened,
    as a catalog file or a log is (zx_events.files)."""
    import os

    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    for refusal in (lambda: load_board(str(pipe)), lambda: read_board(pipe)):
        with pytest.raises(FormatError) as info:
            refusal()
        assert info.value.message == f"the board file {pipe} is a named pipe (FIFO), not a regular file (nothing was read)"
    r = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--board", str(pipe),
                                str(ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog")])
    assert r.exit_code == 1 and "is a named pipe (FIFO), not a regular file" in r.output, r.output
    assert "Traceback" not in r.output and not (tmp_path / "s.sqlite").exists()


# ---------------------------------------------------------------------- size
def test_board_file_over_1_mib_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.json"
    with big.open("wb") as f:  # sparse: 117 MB that are never read
        f.write(b'{"x610zboard": 1, "name": "big", "note": "')
        f.truncate(117_000_000)
    assert refused(big).message == ("board file too big: 117,000,000 bytes (a board file has at most 1 MiB, "
                                    "1,048,576 bytes; a board is a few KB: docs/match-log-x610z.md)")
    at_limit = tmp_path / "at-limit.json"
    text = sample_text()
    at_limit.write_text(text.replace('"note": "', '"note": "' + "x" * (MAX_BOARD - len(text.encode())), 1))
    assert at_limit.stat().st_size == MAX_BOARD
    assert read_board(at_limit).name == SAMPLE


# ---------------------------------------------------------------------- long values in messages
@pytest.mark.parametrize("doc, start", [
    ('{"x610zboard": 1, "name": "%s"}' % ("a" * 600_000), "name: must be 1-64 characters A-Za-z0-9._-, got 'aaa"),
    ('{"x610zboard": 1, "%s": 1, "%s": 2}' % ("k" * 6000, "k" * 6000), "duplicate key 'kkk"),
    ('{"x610zboard": "%s"}' % ("9" * 6000), "x610zboard: must be 1, got '999"),
    ('{"x610zboard": 1, "name": "b", "note": [%s]}' % ",".join(["1"] * 50_000), "note: must be a string (free text), got [1, 1,"),
])
def test_board_error_echoes_a_long_value_cut_to_200_characters(tmp_path, doc, start):
    p = tmp_path / "b.json"
    p.write_text(doc)
    message = refused(p).message
    assert message.startswith(start) and message.endswith("..." + CITE)
    assert len(message) < 200 + 60 + len(CITE)


def test_board_integer_of_more_than_4300_digits_is_a_format_error(tmp_path):
    p = tmp_path / "b.json"
    p.write_text('{"x610zboard": %s}' % ("9" * 6000))
    assert refused(p).message.startswith("number too long: an integer of more than 4300 digits")


# ---------------------------------------------------------------------- a byte-order mark
def test_board_file_with_a_utf8_bom_is_read_as_logs_and_catalogs_are(tmp_path):
    p = tmp_path / "bom.json"
    p.write_bytes(b"\xef\xbb\xbf" + sample_text().encode("utf-8"))
    board = read_board(p)
    assert board.name == SAMPLE and board.dots == load_board(SAMPLE).dots
    assert board.sha256 == hashlib.sha256(p.read_bytes()).hexdigest()  # as sha256sum says, as a catalog's
    r = run(str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--board", str(p), str(LEGAL_LOG))
    assert r.exit_code == 0, r.output


# ---------------------------------------------------------------------- a board the header does not name
def test_board_file_named_otherwise_than_the_header_is_refused_at_the_header_line_and_stores_nothing(tmp_path):
    """`zx import --board FILE` checked a log whose header names x610z-orbits-sample on a board file named
    something else, and stored it as played there: a log is checked on the board it names (so is an audit)."""
    import json

    doc = json.loads(sample_text())
    doc["name"] = "club-board"
    other = tmp_path / "club.json"
    other.write_text(json.dumps(doc))
    store = tmp_path / "s.sqlite"
    message = (f"board: the header names board '{SAMPLE}', --board '{other}' holds board 'club-board': give the "
               "file of the board the match was played on")
    r = run(str(store), "import", "--board", str(other), str(LEGAL_LOG))
    assert r.exit_code == 1 and f"{LEGAL_LOG}:1: format: {message}" in r.output, r.output
    assert "0 imported, 0 unchanged, 1 rejected" in r.output and "Traceback" not in r.output
    assert not store.exists()  # the store this import made was removed again: nothing stored
    audit = run(str(store), "audit", "--board", str(other), "--format", "json", str(LEGAL_LOG))
    assert audit.exit_code == 1, audit.output
    finding = json.loads(audit.stdout)["violations"][0]
    assert (finding["line"], finding["kind"]) == (1, "format") and finding["message"].startswith(message), finding
    doc["name"] = SAMPLE  # the same content under the header's name: accepted
    other.write_text(json.dumps(doc))
    assert run(str(store), "import", "--no-analytics", "--board", str(other), str(LEGAL_LOG)).exit_code == 0


def test_board_file_not_utf8_names_its_line_byte_and_offset_and_crlf_keeps_its_sha256(tmp_path):
    """A board file with a byte that is not UTF-8 gave Python's codec text ("'utf-8' codec can't decode byte 0xff in
    position 63"); now as a log's. Read as bytes, its line ends are read as before (a CRLF copy: the same SHA-256)."""
    data = sample_text().encode("utf-8")
    at = data.index(b"FICTIONAL") + 4
    p = tmp_path / "bad.json"
    p.write_bytes(data[:at] + b"\xff" + data[at:])
    line = data.count(b"\n", 0, at) + 1
    column = at - (data.rfind(b"\n", 0, at) + 1) + 1
    assert str(refused(p)) == (f"{p}:{line}: format: the board file is not UTF-8: byte 0xff at byte offset {at} "
                               f"(column {column}) cannot be decoded")
    crlf = tmp_path / "crlf.json"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    assert read_board(crlf).sha256 == load_board(SAMPLE).sha256


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(name=None), "name: must be 1-64 characters A-Za-z0-9._-, got null"),
    (lambda d: d.update(name=True), "name: must be 1-64 characters A-Za-z0-9._-, got true"),
])
def test_board_error_echoes_json_values_as_json(tmp_path, change, message):
    """A board's null name was echoed as Python's ``None``."""
    import json

    doc = json.loads(sample_text())
    change(doc)
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    assert str(refused(p)) == f"{p}:1: format: {message}{CITE}"  # (json.dumps: one line)


@pytest.mark.parametrize("number,message", [
    ("1e400", "number out of range: 1e400 (past a 64-bit float; docs/match-log.md, Limits)"),
    ("1" + "0" * 400, "number out of range: 1000000000000000000000000000000000000... (401 digits, past a 64-bit "
                      "float; docs/match-log.md, Limits)"),  # (an integer: it was "must be a number", no line)
    ("NaN", "not JSON: NaN is not a JSON number (docs/match-log.md, Limits)"),
    ("-Infinity", "not JSON: -Infinity is not a JSON number (docs/match-log.md, Limits)"),
])
def test_board_number_out_of_a_floats_range_or_not_json_is_refused_as_in_a_log(tmp_path, number, message):
    """``"x": 1e400`` was read as inf and refused as "must be a number, got inf"; NaN and Infinity (not JSON) as nan."""
    import json

    doc = json.loads(sample_text())
    doc["note"] = f"{number} in a string is no number"
    x = doc["dots"][0]["x"]
    text = json.dumps(doc, indent=1).replace(f'"x": {json.dumps(x)}', f'"x": {number}', 1)
    line = text[:text.index(f'"x": {number}')].count("\n") + 1
    assert line > 3
    p = tmp_path / "b.json"
    p.write_text(text, encoding="utf-8")
    assert str(refused(p)) == f"{p}:{line}: format: {message}"  # its line, as any other error of the file


# ---------------------------------------------------------------------- geometry (Checks on load)
def _moved(tmp_path: Path, **at: tuple[float, float]) -> Path:
    import json

    doc = json.loads(sample_text())
    for d in doc["dots"]:
        if d["id"] in at:
            d["x"], d["y"] = at[d["id"]]
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


def test_board_line_between_two_dots_at_one_place_is_refused_at_the_line_not_blamed_on_the_log(tmp_path):
    """B2 drawn on A2 (the line A2-B2 has no length) loaded, and a legal move S2 > A2 > B2 was then
    refused as a 30-degree sharp turn (202.9)."""
    a2 = next(d for d in __import__("json").loads(sample_text())["dots"] if d["id"] == "A2")
    p = _moved(tmp_path, B2=(a2["x"], a2["y"]))
    assert str(refused(p)) == (f"{p}:1: format: lines[8]: A2-B2 has no length: A2 and B2 are both at (2.598, -1.5) "
                               f"(a line joins two places; 202.9 measures the turns between lines)")
    r = run(str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--board", str(p),
            str(ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog"))
    assert r.exit_code == 1 and "lines[8]: A2-B2 has no length" in r.output and "202.9: sharp turn" not in r.output


def test_board_line_longer_than_a_float_holds_is_refused_at_the_line(tmp_path):
    """A1 at x 1e308 and S1 at x -1e308: the vector S1-A1 is past a 64-bit float (inf)."""
    p = _moved(tmp_path, S1=(-1e308, 0), A1=(1e308, 0))
    assert str(refused(p)) == (f"{p}:1: format: lines[0]: S1-A1 is longer than a 64-bit float holds: S1 at "
                               f"(-1e+308, 0), A1 at (1e+308, 0) (coordinates are drawing units, like the shipped "
                               f"board's -4 to 4; 202.9 measures the turns between lines)")


def test_board_dot_so_far_that_its_lines_lie_on_each_other_is_refused_at_the_line(tmp_path):
    """A2 at (1e308, 1e308): every other dot lies in one direction from it, and the legal move
    S2 > A2 > B2 was refused as a 0-degree sharp turn (202.9)."""
    p = _moved(tmp_path, A2=(1e308, 1e308))
    assert str(refused(p)) == (f"{p}:1: format: lines[7]: A2-S2 leaves A2 in the same direction as A2-A1 "
                               f"(225 degrees): two straight lines lie on each other (move a dot, or give a "
                               f"curved line its heading; 202.9 measures the turns between lines)")
