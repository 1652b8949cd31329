"""The match log reader (zx_events.logformat): format errors with their exact line, the schema."""

from __future__ import annotations

import json
from importlib import resources

import fastjsonschema
import jsonschema
import pytest

from zx_events.games.zx.cards import parse_catalog
from zx_events.errors import FormatError
from zx_events import games
from zx_events.logformat.reader import (
    BEFORE_HEADER,
    MatchLog,
    Record,
    check_codes,
    parse_log,
    read_log,
)

KINDS = games.get("zx").log_format.kinds
EFFECT_OPS = games.get("zx").log_format.effect_ops

HEADER = {
    "zxlog": 1, "match": "t-r1-1", "first": "P1", "catalog": "test",
    "played_at": "2026-11-01T14:03:00+09:00", "round": 1,
    "players": {
        "P1": {"name": "Aki", "player_card": "PL-001", "deck": {"B01-001": 4, "B01-002": 4},
               "dynamis": {"EX-001": 1}},
        "P2": {"name": "Ren", "deck": {"B02-001": 4}},
    },
}
# one valid record of every kind and every effect op
VALID = [
    {"do": "setup", "by": "P1", "hand": ["B01-001", "B01-001", "B01-002", "B01-002"],
     "life": ["B01-001", "B01-002", "B01-001", "B01-002"], "resource": ["B01-001", "B01-002"],
     "mulligan": ["B01-001", "B01-001", "B01-002", "B01-002"], "start_card": "B01-001"},
    {"do": "turn", "by": "P1", "turn": 1, "ts": "2026-11-01T14:05:00+09:00", "note": "go"},
    {"do": "draw", "by": "P1", "cards": ["B01-001", "B01-002"]},
    {"do": "draw", "by": "P1", "cards": []},
    {"do": "reload", "by": "P1", "life": "B01-001"},
    {"do": "resource", "by": "P1", "card": "B01-002"},
    {"do": "ignition", "by": "P1", "charge": "B01-001", "revealed": "B01-002", "play": {"square": "a1"}},
    {"do": "ignition", "by": "P1", "charge": "B01-001", "revealed": "B01-002", "play": {}},
    {"do": "ignition", "by": "P1", "charge": "B01-001", "revealed": "B01-002"},
    {"do": "play", "by": "P1", "card": "B01-001", "pay": ["B01-002"], "square": "c1"},
    {"do": "play", "by": "P1", "card": "EX-001", "from": "dynamis", "on": "c1"},
    {"do": "attack", "by": "P1", "from": "c1", "target": "b3"},
    {"do": "pass", "by": "P2"},
    {"do": "life", "by": "P2", "card": "B02-001", "ignite": {"square": "a3"}},
    {"do": "life", "by": "P2", "card": "B02-001"},
    {"do": "charge_excess", "by": "P2", "trash": ["B02-001"]},
    {"do": "end", "by": "P1", "discard": ["B01-001"]},
    {"do": "end", "by": "P1"},
    {"do": "concede", "by": "P2"},
    {"do": "result", "by": "P1", "winner": "P1", "reason": "concede"},
    {"do": "result", "by": "P1", "winner": None, "reason": "draw"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "power", "square": "a3", "delta": -1000,
     "until": "end_of_turn", "target": "card"},
    {"do": "effect", "by": "P1", "source": "B01-001", "op": "damage", "square": "a3", "amount": 2},
    {"do": "effect", "by": "P1", "source": "c1", "op": "destroy", "square": "a3", "target": "link"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "move", "card": "B01-002", "from": "hand",
     "to": "trash", "owner": "P1"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "move", "square": "b1", "from": "square",
     "to": "square", "owner": "P1", "dest": "a1", "target": "player"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "sleep", "square": "a3"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "reboot", "resource": "B01-002"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "draw", "cards": ["B01-001"]},
    {"do": "effect", "by": "P1", "source": "c1", "op": "recover", "card": "B01-002"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "token", "square": "a2", "name": "Wisp", "power": 1000},
    {"do": "effect", "by": "P1", "source": "c1", "op": "counter", "delta": 1},
    {"do": "effect", "by": "P1", "source": "c1", "op": "link", "square": "a2"},
    {"do": "effect", "by": "P1", "source": "c1", "op": "overboost", "square": "b1", "upper": "EX-001"},
]
# (record, the expected message) for records the schema rejects
INVALID = [
    ({"do": "draw", "by": "P1", "crads": ["B01-001"]}, "unknown key 'crads' in a draw record"),
    ({"do": "draw", "by": "P1", "cards": "B01-001"},
     "draw.cards must be an array of card codes, got 'B01-001'"),
    ({"do": "draw", "by": "P1", "cards": ["B01-001", 7]},
     "draw.cards must be an array of card codes (item 2 is 7)"),
    ({"do": "turn"}, "missing required key 'by' in a turn record"),
    ({"do": "attak", "by": "P1"}, "unknown record kind 'attak' (one of " + ", ".join(KINDS) + ")"),
    ({"by": "P1"}, "a record needs the key 'do' (an action record) or 'zxlog' (a header)"),
    ({"do": "turn", "by": "P3"}, "turn.by must be P1 or P2, got 'P3'"),
    ({"do": "turn", "by": "P1", "turn": 0}, "turn.turn must be a whole number >= 1, got 0"),
    ({"do": "turn", "by": "P1", "turn": 2.5}, "turn.turn must be a whole number >= 1, got 2.5"),
    ({"do": "turn", "by": "P1", "turn": True}, "turn.turn must be a whole number >= 1, got true"),
    ({"do": "turn", "by": "P1", "note": 5}, "turn.note must be a string, got 5"),
    ({"do": "attack", "by": "P1", "from": "a1", "target": "d4"},
     "attack.target must be a Square (a1..c3), got 'd4'"),
    ({"do": "play", "by": "P1", "card": "B01-001", "from": "deck"}, "play.from must be hand or dynamis, got 'deck'"),
    ({"do": "ignition", "by": "P1", "charge": "X", "revealed": "Y", "play": {"sqare": "a1"}},
     "unknown key 'sqare' in ignition.play"),
    ({"do": "result", "by": "P1", "winner": "P3", "reason": "x"}, "result.winner must be P1, P2 or null, got 'P3'"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "pwr"},
     "unknown effect op 'pwr' (one of " + ", ".join(EFFECT_OPS) + ")"),
    ({"do": "effect", "by": "P1", "source": "a1"}, "missing required key 'op' in an effect record"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "damage", "square": "a3", "amount": -1},
     "effect.amount must be a whole number >= 0, got -1"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "damage", "square": "a3", "amont": 1},
     "unknown key 'amont' in an effect damage record"),
    ({"do": "effect", "by": "P1", "source": "", "op": "destroy", "square": "a3"},
     "effect.source must be a Square (a1..c3) or a card code, got ''"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "move", "from": "hand", "to": "trash", "owner": "P1"},
     "an effect move record needs exactly one of 'card' or 'square' (it has neither)"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "X", "from": "hand", "to": "bin",
      "owner": "P1"},
     "effect.to must be a zone name (deck, hand, trash, charge, life, resource, square, temporary, remove, "
     "force, dynamis), got 'bin'"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "X", "from": "hand", "to": "trash",
      "owner": "P1", "dest": "a1"},
     "an effect move record: dest (an extension) is allowed only when to is square or force"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "sleep", "resource": "X", "target": "card"},
     "an effect sleep record: target (an extension) needs square (the card it names is on that Square)"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "counter", "delta": 1, "square": "a1"},
     "unknown key 'square' in an effect counter record"),
]


def jl(*objs: object) -> str:
    """JSON Lines text, one line per object (a str is taken as the raw line)."""
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs)


def header(match: str = "t-r1-1", **changes: object) -> dict:
    return {**HEADER, "match": match, **changes}


def only(text: str) -> MatchLog:
    logs = parse_log(text, "r1.zxlog")
    assert len(logs) == 1
    return logs[0]


def assert_error(log: MatchLog, line: int, message: str) -> None:
    assert log.error is not None, "expected a format error"
    assert isinstance(log.error, FormatError)
    assert (log.error.source, log.error.line, log.error.message) == ("r1.zxlog", line, message)
    assert str(log.error) == f"r1.zxlog:{line}: format: {message}"


# --- well-formed logs --------------------------------------------------------------------

def test_a_valid_match_reads_into_header_and_records_with_their_lines():
    log = only(jl(HEADER, *VALID))
    assert log.error is None
    assert log.header == HEADER
    assert log.header_line == 1
    assert log.match_id == "t-r1-1"
    assert [r.line for r in log.records] == list(range(2, len(VALID) + 2))
    assert [r.data for r in log.records] == VALID
    assert (log.records[0].do, log.records[0].by) == ("setup", "P1")
    assert log.lines[0] == json.dumps(HEADER)
    assert len(log.lines) == len(VALID) + 1


def test_a_header_with_no_records_is_a_match():
    log = only(jl(HEADER))
    assert (log.error, log.records, log.match_id) == (None, [], "t-r1-1")


def test_an_empty_file_holds_no_matches():
    assert parse_log("", "r1.zxlog") == []
    assert parse_log("\n  \n\n", "r1.zxlog") == []


def test_blank_lines_are_ignored_but_counted_in_line_numbers():
    text = "\n" + jl(HEADER) + "\n   \n" + jl({"do": "turn", "by": "P1"}) + "\n\n" + jl({"do": "draw", "by": "P1", "cards": []})
    log = only(text)
    assert log.error is None
    assert log.header_line == 2
    assert [r.line for r in log.records] == [5, 8]
    # the raw lines run from the header to the last record, blank lines included
    assert log.lines == [json.dumps(HEADER), "", "   ", '{"do": "turn", "by": "P1"}', "", "",
                         '{"do": "draw", "by": "P1", "cards": []}']


def test_the_last_line_may_lack_its_newline_when_it_is_complete():
    log = only(jl(HEADER) + json.dumps({"do": "turn", "by": "P1"}))
    assert log.error is None
    assert [r.line for r in log.records] == [2]


def test_crlf_line_ends_and_a_byte_order_mark_are_accepted():
    text = "\ufeff" + jl(HEADER).replace("\n", "\r\n") + '{"do": "turn", "by": "P1"}\r\n'
    log = only(text)
    assert log.error is None
    assert [r.line for r in log.records] == [2]


def test_integral_numbers_written_as_floats_are_read_as_ints():
    log = only(jl(HEADER, '{"do": "effect", "by": "P1", "source": "a1", "op": "counter", "delta": 2.0}'))
    assert log.error is None
    assert log.records[0].data["delta"] == 2 and type(log.records[0].data["delta"]) is int


def test_played_at_may_be_a_plain_date():
    log = only(jl(header(played_at="2026-11-01")))
    assert log.error is None


def test_record_is_a_frozen_value():
    rec = Record(3, {"do": "turn", "by": "P2"})
    assert (rec.line, rec.do, rec.by) == (3, "turn", "P2")
    with pytest.raises(AttributeError):
        rec.line = 4  # type: ignore[misc]


# --- format errors, each at its exact line -------------------------------------------------

def test_bad_json_is_reported_with_the_decoder_message_and_column():
    log = only(jl(HEADER, {"do": "turn", "by": "P1"}, '{"do": "turn" "by": "P1"}', {"do": "pass", "by": "P2"}))
    assert_error(log, 3, "bad JSON: Expecting ',' delimiter (column 15)")
    assert [r.line for r in log.records] == [2]  # what came before the error is kept
    assert len(log.lines) == 4  # the rest of the match is kept as raw text


def test_a_line_that_is_not_an_object():
    assert_error(only(jl(HEADER, "[1, 2]")), 2, "a record must be a JSON object, got an array")
    assert_error(only(jl(HEADER, '"turn"')), 2, "a record must be a JSON object, got a string")


def test_nan_is_not_json():
    assert_error(only(jl(HEADER, '{"do": "turn", "by": "P1", "turn": NaN}')), 2, "bad JSON: NaN is not a JSON value")


def test_a_duplicate_key_is_an_error():
    log = only(jl(HEADER, '{"do": "turn", "by": "P1", "by": "P2"}'))
    assert_error(log, 2, "duplicate key 'by' in one JSON object")


def test_a_duplicate_key_in_a_nested_object_is_an_error():
    log = only(jl(HEADER, '{"do": "ignition", "by": "P1", "play": {"square": "P1", "square": "V1"}}'))
    assert_error(log, 2, "duplicate key 'square' in one JSON object")


LINES = [  # what the fast line decoder must read as the standard decoder does (value or error)
    '{"a": 1, "a": 2}', '{"a": {"b": 1, "b": 2}}', '{"a": [{"b": 1, "b": 2}]}', '{"a": 1, "b": {"a": 1, "a": 1}}',
    '{"a": 2.0}', '{"a": 1e2}', '{"a": -0.0}', '{"a": "x:y"}', '{"a:b": 1}', '{"a": "\\u003a", "a": 1}',
    '{"a": NaN}', '{"a": 1', '[1, 2]', '"x"', '{"a": ' + "9" * 30 + '}', '{"a": -9999999999999999999}',
    '{"a": 9223372036854775807}', '{"a": "\\ud800"}', '{"a": [1, 2, {"c": [{"d": 1}]}], "b": {"e": {}}}',
    '{"a": -0}', ' {"a" : 1 } \r', '{"a": "{"}', '{"a": "\\u0000"}', '{"do": "draw", "by": "P1", "cards": ["R01-003"]}',
    # nested, with ":" inside strings (a header's times): the keys counted outside the strings
    '{"t": "12:00", "p": {"a": 1, "b": "x:y"}}', '{"t": "12:00", "p": {"a": 1, "a": "x:y"}}',
    '{"t": "12:00", "p": {"a": 1, "b": 2.0}}', '{"t": "1:2:3", "p": {"a:": ":", "b" : {"c":[1, {"d" :"::"}]}}}',
    '{"t": "1:2", "p": {"a": 1}, "p": {"a": 1}}', '{"t": "1:2", "p": [{"a": 1, "a": 1}]}',
    '{"t": "1\\"2:3", "p": {"a": 1}}', '{"t": "1\\"2:3", "p": {"a": 1, "a": 2}}', '{"t": "\\\\:", "p": {"a": 1}}',
    '{"t": "12:00", "p": {"a": ' + "9" * 30 + '}}', '{"t": "12:00", "p": {"a": 1e2}}',
]


@pytest.mark.parametrize("line", LINES)
def test_the_fast_line_decoder_reads_as_the_standard_decoder(line):
    from zx_events.logformat.reader import _decode, _decode_line

    def read(f):
        try:
            v = f(line)
        except Exception as e:  # noqa: BLE001 - the same exception, same message
            return "error", type(e), str(e)
        return "value", json.dumps(v), repr(v)

    assert read(_decode_line) == read(_decode)


RECORD_LINES = [  # action records the reader's inlined flat-line way must read as the general way does
    json.dumps(r) for r in VALID] + [
    '{"do": "turn", "by": "P2", "turn": 2.0}', '{"do": "turn", "by": "P2", "turn": 2.5}',
    '{"do": "draw", "by": "P2", "cards": ["B02-001"], "by": "P1"}', '{"do": "turn", "by": "P2", "note": "a:b"}',
    '{"do": "draw", "by": "P2", "cards": [1.0, "B02-001"]}', '{"do": "draw", "by": "P2", "cards": [[]]}',
    '{"do": "turn", "by": "P2", "turn": 18446744073709551616}', '{"do": "turn", "by": "P2", "note": "{["}',
    '{"do": "pass", "by": "P2", "zxlog": 1}', '{"do": "nothing", "by": "P2"}', '{"by": "P2"}', '[1]', '{"do": ',
    '{"do": "pass", "by": "P2"} ', '  {"do":"pass","by":"P2"}', '{"do": "pass", "by": "P2", "x": NaN}',
]


def test_a_header_with_times_is_read_without_the_standard_decoder(monkeypatch):
    """A header holds ":" inside strings (its times) and nested objects: its keys are counted outside
    the strings, so orjson's value stands (the standard decoder is asked only where one could differ)."""
    from zx_events.logformat import reader

    asked = []
    monkeypatch.setattr(reader, "_decode", lambda line: asked.append(line) or json.loads(line))
    line = json.dumps(HEADER)
    assert reader._decode_line(line) == HEADER and not asked
    assert reader._decode_line('{"t": "1:2", "p": {"a": 1, "a": 2}}') and len(asked) == 1  # a repeated key
    assert reader._decode_line('{"t": "1\\"2:3", "p": {"a": 1}}') and len(asked) == 2  # a backslash


def test_the_readers_flat_line_way_reads_as_its_general_way(monkeypatch):
    """_read_matches takes a flat action record on a way of its own (_decode_line's first case,
    inlined): every record, after every other, reads as it does when orjson reads nothing (every
    line then goes the general way, through the standard decoder): the same records and the same
    error at the same line."""
    from zx_events.logformat import reader

    def read(text: str) -> list:
        return [(m.header_line, str(m.error) if m.error else None,
                 [(r.line, json.dumps(r.data), repr(r.data)) for r in m.records]) for m in parse_log(text, "t.zxlog")]

    texts = [jl(HEADER, json.loads(a), *[json.loads(x) for x in RECORD_LINES[:5]]) for a in RECORD_LINES[:3]]
    texts += [json.dumps(HEADER) + "\n" + a + "\n" + b + "\n" + json.dumps(VALID[1]) + "\n"
              for a in RECORD_LINES for b in RECORD_LINES[-6:]]
    fast = [read(t) for t in texts]

    def refuse(line):
        raise orjson.JSONDecodeError("refused", line, 0)

    import orjson
    monkeypatch.setattr(reader, "_loads", refuse)
    assert [read(t) for t in texts] == fast
    assert any(r for m in fast for _, _, r in m)  # records were read, and errors found
    assert any(e for m in fast for _, e, _ in m)


@pytest.mark.parametrize(("record", "message"), INVALID, ids=[m[:40] for _, m in INVALID])
def test_schema_violation_messages(record, message):
    log = only(jl(HEADER, {"do": "turn", "by": "P1"}, record))
    assert_error(log, 3, message)


def test_unknown_key_in_the_header():
    assert_error(only(jl(header(evnt="Regional"))), 1, "unknown key 'evnt' in the header")


def test_missing_required_key_in_the_header_and_in_a_player():
    h = {k: v for k, v in HEADER.items() if k != "first"}
    assert_error(only(jl(h)), 1, "missing required key 'first' in the header")
    h = header(players={"P1": {"deck": {}}, "P2": HEADER["players"]["P2"]})
    assert_error(only(jl(h)), 1, "missing required key 'name' in players.P1")


@pytest.mark.parametrize("example", ["examples/legal/first-turns.zxlog",
                                     "examples/x610z/legal/murphys-law-ending-dot.x610zlog"])
def test_an_empty_header_catalog_is_refused_alike_in_both_games(example):
    """``"catalog": ""`` was read as the default catalog in Z/X and refused in X610Z: both refuse it."""
    from pathlib import Path
    lines = (Path(__file__).resolve().parent.parent / example).read_text(encoding="utf-8").splitlines()
    h = json.loads(lines[0])
    h["catalog"] = ""
    assert_error(only(jl(h, *lines[1:])), 1, "catalog must be a name, got ''")


def test_wrong_types_in_the_header():
    h = header(players={"P1": {"name": "A", "deck": {"B01-001": 0}}, "P2": HEADER["players"]["P2"]})
    assert_error(only(jl(h)), 1, "players.P1.deck.B01-001 must be a number of copies (a whole number from 1 to 99: a format limit, far above any legal deck; the rules count the deck, 401), got 0")
    assert_error(only(jl(header("bad id!"))), 1,
                 "match must be a match id of 1-128 characters A-Za-z0-9._:-, got 'bad id!'")
    assert_error(only(jl(header("x" * 129))), 1,
                 f"match must be a match id of 1-128 characters A-Za-z0-9._:-, got '{'x' * 129}'")
    assert_error(only(jl(header(played_at="2026-13-01"))), 1,
                 "played_at must be a date (2026-11-01) or date-time (2026-11-01T14:03:00+09:00) in ISO 8601's extended calendar form, got '2026-13-01'")


def test_a_match_id_with_a_trailing_newline_is_rejected():
    # Python's re lets "$" match before a final newline; the reader must not
    log = only(jl(header("m1\n")))
    assert_error(log, 1, 'match must be a match id of 1-128 characters A-Za-z0-9._:-, got "m1\\n"')


def test_zxlog_version_other_than_1():
    assert_error(only(jl(header(zxlog=2))), 1, "zxlog must be 1 (this reader knows version 1)")
    assert_error(only(jl(header(zxlog="1"))), 1, "zxlog must be 1 (this reader knows version 1)")


def test_truncated_last_line():
    text = jl(HEADER, {"do": "turn", "by": "P1"}) + '{"do": "draw", "by": "P1", "cards": ["B01-0'
    log = only(text)
    assert log.error is not None
    assert log.error.line == 3
    assert log.error.message.startswith("truncated file: the last line is incomplete JSON (")
    assert [r.line for r in log.records] == [2]


def test_a_bad_last_line_that_ends_with_a_newline_is_bad_json_not_truncation():
    log = only(jl(HEADER, '{"do": "draw", "by": "P1", "cards": ["B01-0'))
    assert log.error is not None and log.error.line == 2
    assert log.error.message.startswith("bad JSON: Unterminated string")


def test_missing_header_a_file_of_records_only():
    log = only(jl({"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "cards": []}))
    assert log.header is None and log.match_id is None and log.records == []
    assert_error(log, 1, BEFORE_HEADER)
    assert BEFORE_HEADER == ("record before the match header "
                             "(every match begins with a header record with the key zxlog or x610zlog)")


def test_records_before_the_first_header_are_a_match_in_error_and_the_next_match_reads():
    text = "\n" + jl({"do": "turn", "by": "P1"}, {"do": "pass", "by": "P2"}, HEADER, {"do": "turn", "by": "P1"})
    first, second = parse_log(text, "r1.zxlog")
    assert first.header is None
    assert first.header_line == 2
    assert_error(first, 2, BEFORE_HEADER)
    assert len(first.lines) == 2
    assert second.error is None
    assert (second.header_line, [r.line for r in second.records]) == (4, [5])


def test_an_error_in_match_2_of_3_leaves_matches_1_and_3_whole():
    text = jl(header("m1"), {"do": "turn", "by": "P1"},
              header("m2"), {"do": "turn", "by": "P1"}, {"do": "draw", "by": "P1", "crads": []},
              {"do": "pass", "by": "P2"}, "this line is skipped",
              header("m3"), {"do": "turn", "by": "P1"}, {"do": "pass", "by": "P2"})
    m1, m2, m3 = parse_log(text, "r1.zxlog")
    assert [m.match_id for m in (m1, m2, m3)] == ["m1", "m2", "m3"]
    assert (m1.error, [r.line for r in m1.records]) == (None, [2])
    assert_error(m2, 5, "unknown key 'crads' in a draw record")
    assert [r.line for r in m2.records] == [4]
    assert len(m2.lines) == 5  # header to the last line before match 3
    assert (m3.error, m3.header_line, [r.line for r in m3.records]) == (None, 8, [9, 10])


def test_a_broken_header_starts_a_new_match_in_error():
    text = jl(header("m1"), {"do": "turn", "by": "P1"}, '{"zxlog": 1, "match": "m2",',
              {"do": "turn", "by": "P1"}, header("m3"))
    m1, m2, m3 = parse_log(text, "r1.zxlog")
    assert m1.error is None and [r.line for r in m1.records] == [2]
    assert m2.header is None and m2.header_line == 3
    assert m2.error is not None and m2.error.line == 3 and m2.error.message.startswith("bad JSON: ")
    assert (m3.error, m3.match_id, m3.header_line) == (None, "m3", 5)


def test_an_invalid_header_keeps_its_match_apart():
    text = jl(header("m1", first="P3"), {"do": "turn", "by": "P1"}, header("m2"), {"do": "turn", "by": "P1"})
    m1, m2 = parse_log(text, "r1.zxlog")
    assert_error(m1, 1, "first must be P1 or P2, got 'P3'")
    assert m1.records == []
    assert m2.error is None and [r.line for r in m2.records] == [4]


# --- files --------------------------------------------------------------------------------

def test_read_log_reads_a_file(tmp_path):
    p = tmp_path / "r1.zxlog"
    p.write_text(jl(HEADER, {"do": "turn", "by": "P1"}), encoding="utf-8")
    (log,) = read_log(p)
    assert (log.source, log.error, len(log.records)) == (str(p), None, 1)


def test_read_log_missing_file_is_a_format_error_with_the_path(tmp_path):
    p = tmp_path / "nope.zxlog"
    with pytest.raises(FormatError) as ei:
        read_log(p)
    assert ei.value.source == str(p)
    assert str(ei.value) == f"{p}: format: log file not found: {p}"


def test_read_log_undecodable_utf8_names_the_path_and_line(tmp_path):
    p = tmp_path / "latin1.zxlog"
    head = jl(HEADER).encode()
    p.write_bytes(head + '{"do": "turn", "by": "P1", "note": "caf\u00e9"}\n'.encode("latin-1"))
    (log,) = read_log(p)  # the match holding the byte is rejected whole, with where the byte is
    assert (log.error.source, log.error.line) == (str(p), 2)
    offset = len(head) + len('{"do": "turn", "by": "P1", "note": "caf')
    assert log.error.message == (f"not UTF-8: byte 0xe9 at byte offset {offset} (column 40) cannot be decoded: "
                                 f"the match is rejected whole")


# --- card codes ---------------------------------------------------------------------------

CATALOG_CSV = """code,name,type,color,cost,power,race,icons,keywords
B01-001,Red Drake,Z/X,red,1,3000,Dragon,IG,
B01-002,Flame Burst,Event,red,2,,,,
B02-001,Blue Gear,Z/X,blue,1,2000,Machine,,
EX-001,Drake Lord,Z/X EX,red,3,7000,Dragon,,
PL-001,Aki,Player,red,,,,,
"""


@pytest.fixture(scope="module")
def catalog():
    return parse_catalog(CATALOG_CSV, name="test", source="test.csv")


def test_check_codes_accepts_known_codes(catalog):
    log = only(jl(HEADER, *VALID))
    check_codes(log, catalog)  # does not raise
    assert log.error is None


def test_check_codes_unknown_code_in_a_deck_points_at_the_header(catalog):
    h = header(players={"P1": HEADER["players"]["P1"], "P2": {"name": "Ren", "deck": {"B02-001": 3, "B09-999": 1}}})
    log = only("\n" + jl(h))
    with pytest.raises(FormatError) as ei:
        check_codes(log, catalog)
    assert (ei.value.source, ei.value.line) == ("r1.zxlog", 2)
    assert str(ei.value) == "r1.zxlog:2: format: players.P2.deck: unknown card code 'B09-999' (not in catalog test)"


def test_check_codes_unknown_player_card_and_dynamis(catalog):
    p1 = {**HEADER["players"]["P1"], "player_card": "PL-404"}
    log = only(jl(header(players={"P1": p1, "P2": HEADER["players"]["P2"]})))
    with pytest.raises(FormatError, match=r": players\.P1\.player_card: unknown card code 'PL-404' \(not in catalog test\)"):
        check_codes(log, catalog)
    p1 = {**HEADER["players"]["P1"], "dynamis": {"EX-404": 1}}
    log = only(jl(header(players={"P1": p1, "P2": HEADER["players"]["P2"]})))
    with pytest.raises(FormatError, match=": players.P1.dynamis: unknown card code 'EX-404'"):
        check_codes(log, catalog)


@pytest.mark.parametrize("record,field", [
    ({"do": "draw", "by": "P1", "cards": ["B01-001", "ZZ-1"]}, "draw.cards item 2"),
    ({"do": "setup", "by": "P1", "hand": [], "life": [], "resource": [], "gate": "ZZ-1"}, "setup.gate"),
    ({"do": "ignition", "by": "P1", "charge": "B01-001", "revealed": "ZZ-1"}, "ignition.revealed"),
    ({"do": "play", "by": "P1", "card": "B01-001", "pay": ["ZZ-1"], "square": "a1"}, "play.pay item 1"),
    ({"do": "end", "by": "P1", "discard": ["ZZ-1"]}, "end.discard item 1"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "ZZ-1", "from": "hand", "to": "trash",
      "owner": "P1"}, "effect.card"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "reboot", "resource": "ZZ-1"}, "effect.resource"),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "overboost", "square": "b1", "upper": "ZZ-1"},
     "effect.upper"),
], ids=lambda r: r["do"] + ("." + r["op"] if "op" in r else "") if isinstance(r, dict) else "")
def test_check_codes_unknown_code_in_a_record_names_its_line_field_and_item(catalog, record, field):
    """The message named neither the field nor the item (a setup line holds hand, life and resource
    lists); it names them as the schema's messages do (``setup.hand must be ... (item 2 is ...)``)."""
    log = only(jl(HEADER, {"do": "turn", "by": "P1"}, "", record))
    assert log.error is None
    with pytest.raises(FormatError) as ei:
        check_codes(log, catalog)
    assert ei.value.line == 4
    assert ei.value.message == f"{field}: unknown card code 'ZZ-1' (not in catalog test)"


@pytest.mark.parametrize("source", ["ZZ-1", "d4"])
def test_check_codes_a_source_neither_a_square_nor_a_known_code_says_what_the_field_holds(catalog, source):
    """``effect.source: "d4"`` was "unknown card code 'd4'", though the field holds a Square or a code."""
    log = only(jl(HEADER, {"do": "turn", "by": "P1"}, {"do": "effect", "by": "P1", "source": source, "op": "counter",
                                                       "delta": 1}))
    with pytest.raises(FormatError) as ei:
        check_codes(log, catalog)
    assert (ei.value.line, ei.value.message) == (
        3, f"effect.source must be a Square (a1..c3) or a card code, got '{source}' (no card code of catalog test)")


def test_check_codes_x610z_names_the_field_and_item_as_zx_does():
    """X610Z's schema said ``setup.hand must be a list of card codes (item 2 is 'a1-031')``, its catalog
    check only ``unknown card code 'Z9-999'``: both games name the field and the item alike."""
    from pathlib import Path
    game = games.get("x610z")
    cat = game.load_catalog()
    lines = (Path(__file__).resolve().parent.parent / "examples" / "x610z" / "legal" /
             "murphys-law-ending-dot.x610zlog").read_text(encoding="utf-8").splitlines()
    setup = json.loads(lines[1])
    setup["hand"][2] = "Z9-999"
    h = json.loads(lines[0])
    h["players"]["P2"]["side"] = {"Z9-998": 1}
    for text, at, message in ((jl(json.loads(lines[0]), setup), 2, "setup.hand item 3: unknown card code 'Z9-999'"),
                              (jl(h), 1, "players.P2.side: unknown card code 'Z9-998'")):
        log = parse_log(text, "r1.x610zlog")[0]
        assert log.error is None
        with pytest.raises(FormatError) as ei:
            check_codes(log, cat)
        assert (ei.value.line, ei.value.message) == (at, f"{message} (not in catalog x610z-sample)")


def test_check_codes_takes_a_square_source_for_a_square(catalog):
    log = only(jl(HEADER, {"do": "effect", "by": "P1", "source": "b2", "op": "counter", "delta": 1}))
    check_codes(log, catalog)  # b2 is a Square, not an unknown card code
    assert log.records[0].data["source"] == "b2"


# --- content hash -------------------------------------------------------------------------

def test_content_hash_ignores_whitespace_key_order_blank_lines_and_number_spelling():
    a = only(jl(HEADER, {"do": "turn", "by": "P1", "turn": 1}))
    reordered = dict(reversed(list(HEADER.items())))
    b = only("\n\n" + json.dumps(reordered, indent=None, separators=(" , ", " :  ")) + "\n\n"
             + '{ "turn" : 1.0, "by":"P1",   "do" : "turn" }\n')
    assert a.error is None and b.error is None
    assert a.content_sha256 == b.content_sha256
    assert len(a.content_sha256) == 64


def test_content_hash_changes_with_content():
    a = only(jl(HEADER, {"do": "turn", "by": "P1"}))
    assert a.content_sha256 != only(jl(HEADER, {"do": "turn", "by": "P2"})).content_sha256
    assert a.content_sha256 != only(jl(HEADER, {"do": "turn", "by": "P1", "note": "x"})).content_sha256
    assert a.content_sha256 != only(jl(HEADER)).content_sha256
    assert a.content_sha256 != only(jl(header("t-r1-2"), {"do": "turn", "by": "P1"})).content_sha256


def test_content_hash_is_over_canonical_json_one_line_each():
    import hashlib

    log = only(jl(HEADER, {"by": "P1", "do": "turn"}))
    canon = [json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
             for o in (HEADER, {"do": "turn", "by": "P1"})]
    assert log.content_sha256 == hashlib.sha256("".join(c + "\n" for c in canon).encode()).hexdigest()


# --- the schema file ------------------------------------------------------------------------

def _schema() -> dict:
    text = resources.files("zx_events.games.zx").joinpath("match-log.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def test_the_schema_is_a_valid_draft_2020_12_schema():
    schema = _schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert set(schema["$defs"]["action"]["properties"]["do"]["enum"]) == {
        "setup", "turn", "draw", "reload", "resource", "ignition", "play", "attack", "pass", "life",
        "charge_excess", "effect", "end", "concede", "result"}
    assert schema["$defs"]["zone"]["enum"] == ["deck", "hand", "trash", "charge", "life", "resource", "square",
                                               "temporary", "remove", "force", "dynamis"]


@pytest.mark.parametrize("validator", ["jsonschema-2020-12", "fastjsonschema"])
def test_the_whole_schema_agrees_with_the_reader(validator):
    """The shipped schema, used as a whole by another tool, accepts and rejects what the reader does."""
    schema = _schema()
    if validator == "fastjsonschema":
        check = fastjsonschema.compile(schema)

        def ok(obj):
            try:
                check(obj)
                return True
            except fastjsonschema.JsonSchemaException:
                return False
    else:
        ok = jsonschema.Draft202012Validator(schema).is_valid
    assert ok(HEADER)
    assert not ok({**HEADER, "zxlog": 2})
    for rec in VALID:
        assert ok(rec), rec
    for rec, _ in INVALID:
        assert not ok(rec), rec


def _mutations(rec: dict):
    for key in rec:
        yield {k: v for k, v in rec.items() if k != key}
        for bad in (None, 0, -1, 2, "", "a1", "zz", [], ["B01-001"], [3], {}, {"square": "a1"}, True, 1.5):
            yield {**rec, key: bad}
    yield {**rec, "extra": 1}


def test_fast_path_and_jsonschema_agree_on_every_mutation_of_the_valid_records():
    """Every field of every valid record swapped for wrong values: the reader's fast validators and
    the whole schema under jsonschema give the same verdict, and each rejection gets a worded message."""
    full = jsonschema.Draft202012Validator(_schema())
    checked = 0
    for rec in [HEADER, *VALID]:
        for mutated in _mutations(rec):
            lines = [mutated] if "zxlog" in mutated else [HEADER, mutated]
            log = only(jl(*lines))
            assert (log.error is None) == full.is_valid(mutated), mutated
            if log.error is not None:
                assert "does not match the schema" not in log.error.message, (mutated, log.error.message)
            checked += 1
    assert checked > 1000
