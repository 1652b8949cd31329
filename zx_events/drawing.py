"""What the games' terminal boards share in drawing them with rich (imported only where a board is drawn).

``zx replay --to end`` draws the board after every step: 747 boards for a 57-turn Z/X match, and rich's
wrapping and table layout took ~8 ms of each (6 s of the 8). Most steps change one part of a board, many
none (a pass of priority), so a part's lines are kept (``Kept``) and drawn again only when its text, its
styles or the width change."""

from __future__ import annotations

import re
from typing import Any, Hashable

LIMIT = 4096  # the parts kept at most (then all forgotten at once): a line takes a few hundred bytes, a grid a few KiB


class Kept:
    """``inner`` (a rich renderable) drawn as the lines last drawn for the same ``key`` and console options.
    ``key`` must tell apart every two ``inner`` that draw differently at one width: their text and their
    styles (``text_key``), and what else shapes them (a table's columns: fixed where it is built)."""

    _lines: dict[Hashable, list[Any]] = {}

    def __init__(self, inner: Any, key: Hashable) -> None:
        self.inner, self.key = inner, key

    def __rich_console__(self, console: Any, options: Any) -> Any:
        k = (self.key, options.max_width, options.min_width, options.ascii_only, options.encoding,
             options.justify, options.overflow, options.no_wrap, options.height, options.highlight,
             options.markup)
        lines = self._lines.get(k)
        if lines is None:
            lines = list(console.render(self.inner, options))
            if len(self._lines) >= LIMIT:
                self._lines.clear()
            self._lines[k] = lines
        return lines

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement.get(console, options, self.inner)


def kept_lines(t: Any) -> list[Kept]:
    """A rich ``Text`` of several lines as one ``Kept`` a line (a step changes one zone of a player's, and the
    others' lines are not wrapped again), a zone's line wrapped under its first value (``Hanging``)."""
    return [Kept(hanging(line), text_key(line)) for line in t.split("\n")]


# a zone's line: "  Deck: ...", "  Deck (judge, sorted): ...": its label, ASCII (one cell a character)
ZONE_LABEL = re.compile(r"  [A-Z][A-Za-z ,()]{0,40}: ")


def hanging(t: Any) -> Any:
    """``t`` (a rich ``Text`` of one line) as ``Hanging`` when it is a zone's line, else itself."""
    m = ZONE_LABEL.match(t.plain)
    return Hanging(t, m.end()) if m else t


class Hanging:
    """A zone's line wrapped with its later lines under its first value, not at the line's start:

        Deck: K01-001 Graveyard Wisp, K01-001 Graveyard Wisp, K01-002 Bone
              Rattler, K01-003 Dusk Reaper Initiate, ...

    (a judge's Deck of 40 cards took ten lines, each from the first column, the zone's name lost among
    them). Where the label leaves less than half the width, the line wraps as it is."""

    def __init__(self, text: Any, indent: int) -> None:
        self.text, self.indent = text, indent

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.text import Text

        width = options.max_width
        if self.indent * 2 > width or self.text.cell_len <= width:
            yield self.text
            return
        label, rest = self.text[: self.indent], self.text[self.indent:]
        out = Text(end=self.text.end)
        for i, line in enumerate(rest.wrap(console, width - self.indent, overflow="fold")):
            line.rstrip()
            out.append_text(label if i == 0 else Text(" " * self.indent))
            out.append_text(line)
            out.append("\n")
        out.rstrip()
        yield out

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement.get(console, options, self.text)


def text_key(t: Any) -> Hashable:
    """What draws a rich ``Text``: its characters, its styles and how it wraps."""
    return (t.plain, tuple(t.spans), str(t.style), t.justify, t.overflow, t.no_wrap, t.end, t.tab_size)
