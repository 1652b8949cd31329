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
    assert _bad(doc, tmp_path) == "lines[5]: unknown dot 'Z9'"
    doc = json.load(open(_path()))
    doc["opposite"][0] = ["S1", "A1"]
    assert _bad(doc, tmp_path) == "opposite[0]: 'A1' is not a Starting Dot"
    doc = json.load(open(_path()))
    doc["x610zboard"] = 2
    assert _bad(doc, tmp_path) == "x610zboard: must be 1, got 2"


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
    assert _bad(doc, tmp_path) == "name: missing (a board's name, 1-64 characters A-Za-z0-9._-)"
    doc = json.load(open(_path()))
    doc["name"] = "x" * 65
    assert _bad(doc, tmp_path).startswith("name: must be 1-64 characters A-Za-z0-9._-, got 'xxx")
    doc = json.load(open(_path()))
    doc["note"] = ["not", "text"]
    assert _bad(doc, tmp_path) == 'note: must be a string (free text), got ["not", "text"]'
    doc["note"] = "free text: anything"
    assert parse_board(json.dumps(doc), source="b.json").name == SAMPLE
    text = json.dumps(doc)
    for key, twice in (("name", text.replace('"name": ', '"name": "other", "name": ', 1)),
                       ("kind", text.replace('"kind": "start"', '"kind": "normal", "kind": "start"', 1))):
        p = tmp_path / "b.json"
        p.write_text(twice)
        with pytest.raises(FormatError) as info:
            read_board(p)
        assert str(info.value) == f"{p}: format: duplicate key '{key}' in one JSON object"
