"""Splitting a log file into its matches at C speed, for the parallel importer's parent.

``pieces(path)`` gives exactly what ``reader.iter_pieces`` gives (the same pieces, first lines,
UTF-8 errors and empty-file error), but looks at the file a block at a time instead of a line at a
time: a block that decodes as UTF-8 is split with ``str.find``/``str.count`` at the lines that name
a format key (each confirmed by ``reader._starts_match``, as the line-by-line reader does); a block
with an undecodable byte falls back to the line-by-line rule for its lines. Memory is bounded by
the block size and the largest match.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from zx_events.errors import FormatError
from zx_events.logformat.reader import _KEYS_TEXT, HEADER_KEYS, _names_header_key, _open, _starts_match

BLOCK = 1 << 22  # bytes read at a time
_NAMES_KEY = re.compile("|".join(re.escape(f'"{k}"') for k in HEADER_KEYS))

Piece = tuple[str, int, str, "FormatError | None"]


class _Splitter:
    """The state of one file's split: the current piece's parts, its first line and first error."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.parts: list[str] = []
        self.start = 1  # file line of the piece's first line
        self.bad: FormatError | None = None
        self.no = 0  # file lines seen so far
        self.offset = 0  # bytes seen so far
        self.seen = False  # a line that is not only whitespace

    def _cut(self, start: int) -> Piece:
        piece = (self.source, self.start, "".join(self.parts), self.bad)
        self.parts, self.start, self.bad = [], start, None
        return piece

    def block(self, data: bytes) -> Iterator[Piece]:
        """Complete lines (and at the very end of the file, a last line without a newline)."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            lines = data.split(b"\n")  # a file's lines end at b"\n" only (not bytes.splitlines' \r)
            last = lines.pop()
            for raw in lines:
                yield from self.line(raw + b"\n")
            if last:
                yield from self.line(last)
            return
        if self.no == 0 and text.startswith("\ufeff"):
            text = text[1:]
        self.seen = self.seen or not text.isspace()
        if text == "":  # a file of one byte order mark: one empty line, as the line-by-line reader has it
            self.parts.append(text)
        pos, first_no = 0, self.no  # pos: where the unconsumed text starts; first_no: lines before it
        search = _NAMES_KEY.search
        m = search(text)
        while m is not None:
            ls = text.rfind("\n", 0, m.start()) + 1
            le = text.find("\n", m.end())
            le = len(text) if le < 0 else le + 1
            line = text[ls:le]
            if (self.parts or ls > pos) and _starts_match(line):
                no = first_no + text.count("\n", pos, ls) + 1  # the file line of the header
                if ls > pos:
                    self.parts.append(text[pos:ls])
                yield self._cut(no)
                first_no, pos = no - 1, ls
            m = search(text, le)
        if pos < len(text):
            self.parts.append(text[pos:])
        self.no += data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        self.offset += len(data)

    def line(self, raw: bytes) -> Iterator[Piece]:
        """One line the slow way: ``reader.iter_pieces``'s own rule, for a block with a bad byte."""
        self.no += 1
        no = self.no
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line = raw.decode("utf-8", errors="replace")  # to find the match it belongs to; never stored
            error = FormatError(f"not UTF-8: byte 0x{raw[e.start]:02x} at byte offset {self.offset + e.start} "
                                f"(column {len(raw[:e.start].decode('utf-8', 'replace')) + 1}) cannot be "
                                f"decoded: the match is rejected whole", source=self.source, line=no)
        else:
            error = None
        self.offset += len(raw)
        if no == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if self.parts and _names_header_key(line) and _starts_match(line):
            yield self._cut(no)
        if error is not None and self.bad is None:
            self.bad = error
        self.seen = self.seen or not line.isspace()
        self.parts.append(line)


def pieces(path: str | Path, block: int = BLOCK) -> Iterator[Piece]:
    """``(source, first line, text, error)`` for each match of a log file: ``reader.iter_pieces``'s
    answer, found a block at a time."""
    source, f, close = _open(path)
    try:
        s = _Splitter(source)
        carry = b""
        while True:
            chunk = f.read(block)
            if not chunk:
                break
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line ends in it yet
                carry = data
                continue
            carry = data[cut:]
            yield from s.block(data[:cut])
        if carry:
            yield from s.block(carry)
        if s.parts:
            yield s._cut(0)
        if not s.seen:
            raise FormatError(f"{source} is empty: no match in it (a log starts with a header record with the "
                              f"key {_KEYS_TEXT})", source=source)
    finally:
        if close:
            f.close()
