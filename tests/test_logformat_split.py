"""The log reader splits a file into matches a block at a time (reader.iter_pieces): it gives exactly
the pieces of the line-by-line rule it replaced (kept here as the oracle): the same texts, first
lines, UTF-8 errors and empty-file error, whatever the block size and wherever the blocks cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zx_events.errors import FormatError
from zx_events.logformat.reader import HEADER_KEYS, _KEYS_TEXT, _names_header_key, _open, _starts_match, iter_pieces

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
                yield source, start, "".join(piece), bad
                piece, start, bad = [], no, None
            if error is not None and bad is None:
                bad = error
            seen = seen or (line != "" and not line.isspace())  # (a lone byte order mark is nothing)
            piece.append(line)
        if piece:
            yield source, start, "".join(piece), bad
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
    with a format key; a line the decoder refuses only when it opens an object with a format key first,
    a broken header; a JSON value that is no object never)."""
    import json

    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        expected = line.startswith(tuple(f'{{"{k}":' for k in HEADER_KEYS))
    else:
        expected = type(obj) is dict and any(k in obj for k in HEADER_KEYS)
    assert _starts_match(line) is expected
