"""The board file (x610zboard 1): loading errors with FILE and field, and the geometry."""

import hashlib
import json
import re

import pytest

from zx_events.errors import FormatError
from zx_events.games.x610z.board import load_board, parse_board, read_board

SAMPLE = "x610z-orbits-sample"


def _doc() -> dict:
    b = load_board(SAMPLE)
    return json.loads(open(b.source if b.source.startswith("/") else _path()).read())


def _path() -> str:
    from importlib import resources
    return str(resources.files("zx_events.games.x610z").joinpath("boards").joinpath(f"{SAMPLE}.json"))


def _bad(doc: dict, tmp_path) -> str:
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(FormatError) as info:
        read_board(p)
    assert re.match(rf"{re.escape(str(p))}(:\d+)?: format: ", str(info.value)), str(info.value)  # (a number: its line)
    return info.value.message


def test_x610z_sample_board_loads_and_is_pinned_by_sha256():
    b = load_board(SAMPLE)
    text = open(_path(), encoding="utf-8").read()
    assert b.ref == {"name": SAMPLE, "sha256": hashlib.sha256(text.encode()).hexdigest()}
    assert len(b.dots) == 25 and sum(len(v) for v in b.links.values()) == 2 * 42
    assert b.opposite["S1"] == "S4" and b.opposite["S5"] == "S2"


def test_x610z_105_2a_a_board_has_six_starting_dots(tmp_path):
    doc = json.load(open(_path()))
    doc["dots"][0]["kind"] = "normal"
    assert "exactly 6 Starting Dots (105.2a), got 5" in _bad(doc, tmp_path)


def test_x610z_board_field_errors(tmp_path):
    doc = json.load(open(_path()))
    doc["dots"][3]["kind"] = "lava"
    assert _bad(doc, tmp_path).startswith("dots[3].kind: must be one of")
    doc = json.load(open(_path()))
    doc["lines"][5] = ["A1", "Z9"]
    assert _bad(doc, tmp_path) == "lines[5]: unknown dot 'Z9' (docs/match-log-x610z.md, Board file)"
    doc = json.load(open(_path()))
    doc["opposite"][0] = ["S1", "A1"]
    assert _bad(doc, tmp_path) == "opposite[0]: 'A1' is not a Starting Dot (105.2b)"
    doc = json.load(open(_path()))
    doc["x610zboard"] = 2
    assert _bad(doc, tmp_path) == "x610zboard: must be 1, got 2 (docs/match-log-x610z.md, Board file)"


def test_x610z_board_json_syntax_error_names_the_line(tmp_path):
    p = tmp_path / "b.json"
    p.write_text('{"x610zboard": 1,\n "name": "x",\n oops}\n')
    with pytest.raises(FormatError) as info:
        read_board(p)
    assert info.value.line == 3


def test_x610z_unknown_board_name():
    with pytest.raises(FormatError, match="unknown board 'nowhere'"):
        load_board("nowhere")


def test_x610z_202_9_angles_on_the_sample_board():
    b = load_board(SAMPLE)
    assert round(b.turn_angle("B1", "A1", "A2")) == 60
    assert round(b.turn_angle("S1", "A1", "A2")) == 120
    assert round(b.turn_angle("S1", "A1", "B1")) == 180
    assert b.sharp_turns(["E1", "B1", "A1", "A2"])[0][:3] == ("B1", "A1", "A2")
    assert b.sharp_turns(["S1", "A1", "A2", "A3"]) == []


def test_x610z_202_9_curved_lines_use_their_headings():
    doc = json.load(open(_path()))
    doc["lines"][4] = {"a": "A1", "b": "A2", "heading": [90.0, 0.0]}  # leaves A1 straight up, like A1-B1
    b = parse_board(json.dumps(doc), source="curved.json")
    assert round(b.turn_angle("B1", "A1", "A2")) == 0
    assert round(b.turn_angle("S1", "A1", "A2")) == 180


def test_x610z_604_2_warps_join_starting_and_ending_dots():
    b = load_board(SAMPLE)
    assert b.is_warp("S1", "E3") and b.is_warp("E5", "S2")
    assert not b.is_warp("S1", "A1") and not b.is_warp("E1", "E2") and not b.is_warp("S1", "S2")


def test_x610z_603_1_no_attack_dots():
    b = load_board(SAMPLE)
    assert {d for d, v in b.dots.items() if v.no_attack} == {"S1", "S2", "S3", "S4", "S5", "S6", "B3", "B6"}


@pytest.mark.parametrize("where, value, message", [
    (("lines", 0), ["S1", ["A1"]], 'lines[0]: a dot is named by its id (a string), got ["A1"]'),
    (("lines", 0), [3, "A1"], "lines[0]: a dot is named by its id (a string), got 3"),
    (("lines", 0), [None, "A1"], "lines[0]: a dot is named by its id (a string), got null"),
    (("lines", 0), {"a": {"id": "S1"}, "b": "A1", "heading": [0, 0]},
     'lines[0]: a dot is named by its id (a string), got {"id": "S1"}'),
    (("opposite", 0), [["S1"], "S4"], 'opposite[0]: ["S1"] is not a Starting Dot'),
    (("opposite", 0), ["S1", 4], "opposite[0]: 4 is not a Starting Dot"),
    (("dots", 0), {"id": "S1", "kind": ["start"], "x": 0, "y": 0}, "dots[0].kind: must be one of"),
    (("dots", 0), {"id": "S1", "kind": "start", "x": 10 ** 400, "y": 0}, "number out of range: 10000"),  # (past a float)
    (("x610zboard",), True, "x610zboard: must be 1, got true"),
])
def test_x610z_board_fields_of_the_wrong_type_are_format_errors(tmp_path, where, value, message):
    """A list, number, null or object where a dot id is expected was looked up in a dict: "internal error:
    TypeError: unhashable type: 'list'" (a 400-digit coordinate: OverflowError); `true` passed as version 1."""
    doc = json.load(open(_path()))
    if len(where) == 1:
        doc[where[0]] = value
    else:
        doc[where[0]][where[1]] = value
    assert _bad(doc, tmp_path).startswith(message)


def test_x610z_board_name_note_and_repeated_keys(tmp_path):
    """A missing name said "name: must be 1-64 characters A-Za-z0-9._-, got None"; a note that is no text
    was accepted; a key given twice was read as its last value (a log record refuses it)."""
    doc = json.load(open(_path()))
    del doc["name"]
    assert _bad(doc, tmp_path) == ("name: missing (a board's name, 1-64 characters A-Za-z0-9._-; docs/match-log-x610z.md, "
                                   "Board file)")
    doc = json.load(open(_path()))
    doc["name"] = "x" * 65
    assert _bad(doc, tmp_path).startswith("name: must be 1-64 characters A-Za-z0-9._-, got 'xxx")
    doc = json.load(open(_path()))
    doc["note"] = ["not", "text"]
    assert _bad(doc, tmp_path) == 'note: must be a string (free text), got ["not", "text"] (docs/match-log-x610z.md, Board file)'
    doc["note"] = "free text: anything"
    assert parse_board(json.dumps(doc), source="b.json").name == SAMPLE
    text = json.dumps(doc)
    for key, twice in (("name", text.replace('"name": ', '"name": "other", "name": ', 1)),
                       ("kind", text.replace('"kind": "start"', '"kind": "normal", "kind": "start"', 1))):
        p = tmp_path / "b.json"
        p.write_text(twice)
        with pytest.raises(FormatError) as info:
            read_board(p)
        where = "" if key == "name" else "dots[0]: "  # (json.dumps: one line)
        assert str(info.value) == f"{p}:1: format: {where}duplicate key '{key}' in one JSON object (docs/match-log-x610z.md, Board file)"


# ---------------------------------------------------------------------- 105.2b: every Starting Dot paired
SECTION = "(docs/match-log-x610z.md, Board file)"


def _sample_text() -> str:
    return open(_path(), encoding="utf-8").read()


def _refused_text(text: str, tmp_path) -> FormatError:
    p = tmp_path / "b.json"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_board(p)
    assert info.value.source == str(p)
    return info.value


def _line(text: str, needle: str, nth: int = 1) -> int:
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1


@pytest.mark.parametrize("pairs, unpaired", [
    ('[["S1", "S4"]]', "S2, S3, S5, S6"),
    ('[["S1", "S4"], ["S3", "S6"]]', "S2, S5"),
])
def test_105_2b_a_board_whose_opposite_leaves_starting_dots_unpaired_is_refused(tmp_path, pairs, unpaired):
    """A board whose ``opposite`` paired only some Starting Dots loaded, and the referee then checked 105.2b only for
    a first Life Base on a paired dot: P1 on S6 and P2 on S5 (not opposing) imported with no violation. 105.2a gives a
    board 6 Starting Dots and 105.2b has the opponents' Life Bases oppose each other wherever the first is placed: a
    two-player board pairs every Starting Dot (QA round 28, formats 3)."""
    text = _sample_text().replace('[["S1", "S4"], ["S2", "S5"], ["S3", "S6"]]', pairs)
    e = _refused_text(text, tmp_path)
    assert e.line == _line(text, '"opposite"')
    assert e.message == (f"opposite: {unpaired} oppose no Starting Dot (105.2b: a Life Base placed on any of the 6 "
                         f"Starting Dots has an opposing one for the other player's)")


def test_105_2b_an_unpaired_board_is_refused_by_import_and_audit_nothing_stored(tmp_path):
    from click.testing import CliRunner

    from zx_cli.main import zx
    from test_x610z_board_files import LEGAL_LOG

    board = tmp_path / "one-pair.json"
    board.write_text(_sample_text().replace('[["S1", "S4"], ["S2", "S5"], ["S3", "S6"]]', '[["S1", "S4"]]'))
    store = tmp_path / "s.sqlite"
    for command in ("import", "audit"):
        r = CliRunner().invoke(zx, ["--store", str(store), command, "--board", str(board), str(LEGAL_LOG)])
        assert r.exit_code == 1 and r.output.startswith(f"Error: {board}:38: format: opposite: S2, S3, S5, S6 oppose "
                                                        "no Starting Dot (105.2b"), r.output
    assert not store.exists()


def test_x610z_the_shipped_board_pairs_every_starting_dot():
    b = load_board(SAMPLE)
    assert sorted(b.opposite) == sorted(b.starts()) and all(b.opposite[b.opposite[s]] == s for s in b.starts())


# ---------------------------------------------------------------------- errors name FILE:LINE, field and section
def test_board_duplicate_key_names_the_line_of_the_second_key_and_its_object(tmp_path):
    """"boards/dup-key-deep.json: format: duplicate key 'x' in one JSON object": no line, no field, in a file of 25
    dots each with an x (QA round 28, formats 4). A log record's duplicate key gives its line: so does a board's."""
    text = _sample_text().replace('"x": 0.866, "y": 0.5}', '"x": 0.866, "x": 0.5, "y": 0.5}', 1)
    e = _refused_text(text, tmp_path)
    assert (e.line, e.message) == (24, f"dots[20]: duplicate key 'x' in one JSON object {SECTION}")
    nested = _sample_text().replace('"name": "x610z-orbits-sample",', '"name": "x610z-orbits-sample",\n "name": "b",')
    e = _refused_text(nested, tmp_path)
    assert (e.line, e.message) == (2, f"duplicate key 'name' in one JSON object {SECTION}")
    inner_first = '{"x610zboard": 1, "x610zboard": 1,\n "dots": [{"id": "S1",\n "id": "S2"}]}'
    e = _refused_text(inner_first, tmp_path)  # json refuses the object that closes first: the dot
    assert (e.line, e.message) == (3, f"dots[0]: duplicate key 'id' in one JSON object {SECTION}")


@pytest.mark.parametrize("old, new, needle, nth, message", [
    ('{"id": "E6", "kind": "end", "x": -0.866, "y": -0.5},', '{"id": "E6", "kind": "end", "x": -0.866, "y": -0.5},\n'
     '  {"id": "A1", "kind": "normal", "x": 9.0, "y": 9.0},', '"A1"', 2, f"dots[24].id: duplicate dot A1 {SECTION}"),
    ('{"id": "S4", "kind": "start", "x": 0.0, "y": 4.0}', '{"id": "S4", "kind": "start", "x": 0.0, "y": 4.0, "z": 1}',
     '{"id": "S4"', 1, f"dots[3]: must be an object with exactly id, kind, x, y {SECTION}"),
    ('"kind": "no_attack", "x": 1.732', '"kind": "lava", "x": 1.732', '"lava"', 1,
     f"dots[14].kind: must be one of start, end, no_attack, quest, normal, got 'lava' {SECTION}"),
    ('"x": 2.598, "y": 1.5}', '"x": "2.598", "y": 1.5}', '"2.598"', 1, f"dots[8].x: must be a number, got '2.598' {SECTION}"),
    ('["B1", "B2"]', '["B1", "Z9"]', '"Z9"', 1, f"lines[5]: unknown dot 'Z9' {SECTION}"),
    ('["E2", "E3"]', '["E2", "E2"]', '["E2", "E2"]', 1, f"lines[13]: a line joins two different dots {SECTION}"),
    ('["E6", "E1"]', '["E6", "E1"], ["A6", "S6"]', '["A6", "S6"]', 1, f"lines[42]: A6-S6 is listed twice {SECTION}"),
    ('["S3", "S6"]]', '["S3", "A1"]]', '["S3", "A1"]', 1, "opposite[2]: 'A1' is not a Starting Dot (105.2b)"),
    ('"name": "x610z-orbits-sample",', '"name": "x610z-orbits-sample", "colour": "red",', '"colour"', 1,
     f"unknown key 'colour' {SECTION}"),
    ('{"x610zboard": 1,', '{"x610zboard": 2,', "2", 1, f"x610zboard: must be 1, got 2 {SECTION}"),
    ('"kind": "end", "x": 0.0, "y": -1.0', '"kind": "normal", "x": 0.0, "y": -1.0', '"dots"', 1,
     None),  # (E1 normal: still 5 Ending Dots, loads)
    ('{"id": "S1", "kind": "start"', '{"id": "S1", "kind": "normal"', '"dots"', 1,
     "dots: a board has exactly 6 Starting Dots (105.2a), got 5"),
])
def test_board_field_errors_name_file_line_field_and_section(tmp_path, old, new, needle, nth, message):
    """"dots[25].id: duplicate dot A1", "dots[3]: must be an object with exactly id, kind, x, y": a field path,
    no line, no spec section or rule (QA round 28, formats 4). Each names the line where its field starts."""
    text = _sample_text().replace(old, new, 1)
    assert text != _sample_text()
    if message is None:
        assert parse_board(text, source="b.json").name == SAMPLE
        return
    e = _refused_text(text, tmp_path)
    assert (e.line, e.message) == (_line(text, needle, nth), message)
