"""A table to a pipe or a file (no terminal width) is drawn at its natural width by a console wider than any table
(``zx_cli.output.print_table``), its columns of one-line text without rich's word wrap (``zx_cli.output._unfolded``): the
same lines as on a console of the table's measured width, every column wrapping, as it was drawn before (measuring
every cell once more and wrapping text that always fitted: a third of ``zx matches``' drawing, issue 20 target 4)."""

from __future__ import annotations

import io
import random

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.text import Text

from zx_cli import output


def measured(table) -> str:
    """The table as print_table drew it before: on a console as wide as the table's measured maximum (or its title)."""
    out = io.StringIO()
    console = Console(file=out, width=1_000_000, soft_wrap=False)
    console.width = max(Measurement.get(console, console.options, table).maximum, cell_len(str(table.title or "")), 1)
    if isinstance(table.title, Text):
        table.title.no_wrap, table.title.overflow = True, "ignore"
    console.print(table)
    return out.getvalue()


def drawn(table) -> str:
    out = io.StringIO()
    with output.drawn_into(out, io.StringIO(), None):
        output.print_table(table, None)
    return out.getvalue()


PIECES = ["a", "bc", " ", "xyz", "長", "名前", "\t", "\n", "-", "😀", "e\u0301", "[/]", "\\x1b", "  ", "ﾊ", "0.5",
          "\u0301", "👨\u200d👩", "\ufe0f", "\u200b", "a  "]


@pytest.mark.parametrize("seed", range(4))
def test_a_table_without_a_width_is_drawn_as_at_its_measured_width(seed):
    rng = random.Random(seed)
    for _ in range(100):
        columns, rows = rng.randint(0, 6), rng.randint(0, 5)
        headers = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4))) for _ in range(columns)]
        cells = [["".join(rng.choice(PIECES) for _ in range(rng.randint(0, rng.choice([2, 8, 30]))))
                  for _ in range(columns)] for _ in range(rows)]
        title = rng.choice([None, "t", "a short title", "a title wider than most of these tables, " * 3, "長い題名"])
        rigid = {h for h in headers if rng.random() < 0.3}
        tables = [output._table(title, headers, cells, list(range(columns)), rigid=rigid, natural=natural)
                  for natural in (True, False)]
        assert drawn(tables[0]) == measured(tables[1]), (title, headers, cells)


def test_a_column_of_one_line_texts_is_drawn_without_word_wrap():
    table = output._table(None, ["a", "b", "c", "d"], [["x y", "長 い", "tab\there", "e\u0301 "], ["", "z", "", "e"]],
                          [0, 1, 2, 3], natural=True)
    assert [c.no_wrap for c in table.columns] == [True, True, False, False]
    assert not any(c.no_wrap for c in output._table(None, ["a"], [["x y"]], [0]).columns)
