"""The log reader splits a file into matches a block at a time (reader.iter_pieces): it gives exactly
the pieces of the line-by-line rule it replaced (kept here as the oracle): the same texts, first
lines, UTF-8 errors and empty-file error, whatever the block size and wherever the blocks cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zx_events.errors import FormatError
from zx_events.logformat.reader import (HEADER_KEYS, _KEYS_TEXT, _match_id, _names_header_key, _open, _starts_match,
                                        iter_pieces, piece_error)

ROOT = Path(__file__).resolve().parent.parent
HEADER = b'{"zxlog": 1, "match": "m-%d", "players": {}}'
LINES = [
    HEADER,
    b'{"x610zlog": 1, "match": "x"}',
    b'{"kind": "draw", "note": "says \\"zxlog\\" in a string"}',  # names a key, not a header
    b'{"kind": "draw", "player": "P1"}',
    b'{"zxlog": 1, "x610zlog": 1}',  # two keys: still a header for the splitter
    b'not json but "zxlog"',  # broken and names a key after its start: no cut (it may end a match)
    b'{"zxlog": 1, "match": "broken',  # broken and opens with a format key: a broken header, a new match
    b'[1, 2, "zxlog"]',  # not an object: never a header, no cut
    b"",
    b"   \t",
    b"\xef\xbb\xbf" + HEADER,  # a byte order mark (only the file's first one is dropped)
    b'{"kind": "note", "text": "caf\xc3\xa9 \xe2\x80\xa8"}',  # UTF-8 and U+2028 (not a line end)
    b'{"kind": "note", "text": "bad \xff byte"}',  # not UTF-8
    b'{"kind": "note", "text": "cr\r inside"}',  # \r is not a line end
    b'\xc3',  # a cut multi-byte sequence
    b'{"\\u007axlog": 1, "match": "e-%d"}',  # the format key written with an escape: a header
    b'{"match": "l-%d", "x\\u0036\\u00310zlog": 1}',  # escaped, and last: a header
    b'{ "zxlog" : 1 , "match": "s-%d" }',  # spaces around the key: a header
    b'\xef\xbb\xbf{"match": "b-%d", "zxlog": 1}',  # a byte order mark, the key last: a header
    b'{"match": "n-%d", "round": 1' + b"0" * 5000 + b', "zxlog": 1}',  # past a limit, the key last: a header
    b'{"\\u007Axlog": 1, "match": "broken',  # broken and opens with an escaped format key: a broken header
    b'{"do": "x", "note": "\\"\\u007axlog\\": 1"}',  # an escaped key inside a string: no header
]


def line_by_line(path):
    """The reader's rule, one line at a time (iter_pieces before it read blocks): the oracle."""
    source, f, close = _open(path)
    try:
        piece: list[str] = []
        start = 1
        bad: FormatError | None = None
        offset = 0  # of the current line in the file, in bytes
        seen = False
        ids: dict = {}  # (the match ids so far: piece_error, the reader's own checks of a piece)
        for no, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                line = raw.decode("utf-8", errors="replace")  # to find the match it belongs to; never stored
                error = FormatError(f"not UTF-8: byte 0x{raw[e.start]:02x} at byte offset {offset + e.start} "
                                    f"(column {len(raw[:e.start].decode('utf-8', 'replace')) + 1}) cannot be "
                                    f"decoded: the match is rejected whole", source=source, line=no)
            else:
                error = None
            offset += len(raw)
            if no == 1 and line.startswith("\ufeff"):
                line = line[1:]
            if piece and _names_header_key(line) and _starts_match(line):
                text = "".join(piece)
                yield source, start, text, piece_error(ids, source, start, text, _match_id(text.partition("\n")[0]),
                                                       _match_id(line), no) or bad
                piece, start, bad = [], no, None
            if error is not None and bad is None:
                bad = error
            seen = seen or (line != "" and not line.isspace())  # (a lone byte order mark is nothing)
            piece.append(line)
        if piece:
            text = "".join(piece)
            yield source, start, text, piece_error(ids, source, start, text, _match_id(text.partition("\n")[0]),
                                                   None, 0) or bad
        if not seen:
            raise FormatError(f"{source} is empty: no match in it (a log starts with a header record with the "
                              f"key {_KEYS_TEXT})", source=source)
    finally:
        if close:
            f.close()


def outcome(it):
    out = []
    try:
        for source, line, text, bad in it:
            out.append((source, line, text, None if bad is None else (str(bad), bad.line)))
    except FormatError as e:
        out.append(("error", str(e), e.line))
    return out


def same(path: Path, block: int) -> None:
    assert outcome(iter_pieces(path, block)) == outcome(line_by_line(path))


@pytest.mark.parametrize("path", sorted(ROOT.glob("examples/**/*.*log")), ids=lambda p: p.name)
def test_split_gives_the_line_readers_pieces_for_every_example_log(path):
    for block in (1, 13, 4096, 1 << 22):
        same(path, block)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(len(LINES))), max_size=30), st.booleans(), st.integers(1, 300))
def test_split_gives_the_line_readers_pieces_for_any_file(tmp_path_factory, kinds, newline_at_end, block):
    data = b"\n".join(LINES[k] % i if b"%d" in LINES[k] else LINES[k] for i, k in enumerate(kinds))
    if newline_at_end and kinds:
        data += b"\n"
    path = tmp_path_factory.mktemp("split") / "log.zxlog"
    path.write_bytes(data)
    same(path, block)


def test_split_of_a_missing_or_empty_file_is_the_readers_error(tmp_path):
    for data in (None, b"", b"\n \n", b"\xef\xbb\xbf"):
        path = tmp_path / "f.zxlog"
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(data)
        same(path, 4)


@pytest.mark.parametrize("line", [
    '{"zxlog": 1, "match": "m"}', '{"x610zlog": 1}', '{"do": "pass", "by": "P1"}',
    '{"\\u007axlog": 1}', '{"m": 1, "\\u0078610\\u007Alog": 1}', '{ "zxlog" : 1 }',  # a key however written
    '\ufeff{"m": 1, "zxlog": 1}', '{"m": 1' + "0" * 5000 + ', "zxlog": 1}',  # after a BOM; a number past a limit
    '{"\\u007axlog": 1, "m": "broken', '{"m": "broken", "\\u007axlog": 1',  # broken: the key first, or not
    '{"note": "\\"\\u007axlog\\": 1"}', '{"zxlo\\u0067g": 1}',  # no format key
    '{"zxlog": 1, "zxlog": 2}', '{"do": "x", "do": "y"}',  # repeated keys: one kept, either way
    '{"do": "x", "n": NaN, "note": "\\"zxlog\\": 1"}',  # NaN: orjson refuses, the standard decoder reads it
    '{"note": "\\"zxlog\\":", "n": 1' + "0" * 400 + '}',  # beyond a double: orjson refuses
    '{"note": "\\"zxlog\\":", "n": 1' + "0" * 5000 + '}',  # beyond Python's digit limit: a broken line
    '{"note": "\\"zxlog\\":", "n": 1' + "0" * 30 + '}',  # orjson reads a float, the standard decoder an int
    '{"zxlog": 1, "s": "\\ud800"}',  # a lone surrogate: orjson refuses
    "[" * 2000 + "]" * 2000, '["zxlog"]', '"zxlog"', '{"zxlog": 1', "not json \"zxlog\":",
])
def test_a_header_is_told_as_the_standard_decoder_tells_it(line):
    """``_starts_match`` reads a line with orjson first: its answer is the standard decoder's (an object
    with a format key, however the key is written, after a byte order mark, whatever its numbers; a line
    the decoder refuses only when it opens an object with a format key first, a broken header; a JSON
    value that is no object never)."""
    import json
    import re

    line_ = line.removeprefix("\ufeff")
    try:
        obj = json.loads(line_, parse_int=str)
    except (ValueError, RecursionError):
        first = re.match(r'\{ *("(?:[^"\\]|\\.)*") *:', line_)  # the first key, as written
        expected = first is not None and json.loads(first[1]) in HEADER_KEYS
    else:
        expected = type(obj) is dict and any(k in obj for k in HEADER_KEYS)
    assert _starts_match(line) is expected


@pytest.mark.parametrize("header", [
    b'{"\\u007axlog": 1, "match": "m"}', b'{"\\u0078610z\\u006Cog": 1, "match": "m"}',  # a key escaped
    b'{"match": "m", "zxlog": 1}', b'{"match": "m", "x\\u0036\\u00310zlog": 1}',  # the key last
    b'{ "zxlog" : 1 }', b'\xef\xbb\xbf{"match": "m", "zxlog": 1}',  # spaced; after a byte order mark
    b'{"match": "m", "round": 1' + b"0" * 5000 + b', "zxlog": 1}',  # past a limit, the key last
])
@pytest.mark.parametrize("bad_byte", [False, True], ids=["utf-8", "a-bad-byte-after"])
def test_a_header_is_a_cut_however_its_format_key_is_written(tmp_path, header, bad_byte):
    """The file was cut only where the literal "zxlog" or "x610zlog" was (or, before a byte order mark,
    a header whose key came first): a second match whose header wrote its key otherwise was read in
    one piece with the first, and the second's bad byte rejected both. Every line the parser takes for
    a header (``_starts_match``) names a format key (``_names_header_key``), and is a cut, whatever the
    block size; a bad byte after it is its own piece's."""
    assert _starts_match(header.decode("utf-8")) and _names_header_key(header.decode("utf-8"))
    path = tmp_path / "two.zxlog"
    path.write_bytes(HEADER % 1 + b'\n{"do": "pass", "by": "P1"}\n' + header + b"\n"
                     + (b'{"do": "pass", "by": "P1", "note": "caf\xe9"}\n' if bad_byte else b""))
    for block in (1, 13, 1 << 22):
        pieces = [(line, bad if bad is None else bad.line) for _, line, _, bad in iter_pieces(path, block)]
        assert pieces == [(1, None), (3, 4 if bad_byte else None)], block
        same(path, block)
