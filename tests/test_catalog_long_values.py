"""A catalog error echoes a bad value cut to 200 characters ending in ``...``, never whole (a
5,000-digit move_cost was a 5 KB message, a 10,000-type ``# types:`` line one of 59 KB)."""

from __future__ import annotations

import csv
import io
from importlib import resources

import pytest

from zx_events.errors import CatalogError
from zx_events.games import load_catalogs


def _x610z_sample() -> str:
    return resources.files("zx_events.games.x610z").joinpath("catalogs", "x610z-sample.csv").read_text(encoding="utf-8")


def _zx_sample() -> str:
    return resources.files("zx_events.games.zx").joinpath("catalogs", "sample.csv").read_text(encoding="utf-8")


def _with_cell(text: str, column: str, value: str, **more: str) -> str:
    rows = list(csv.reader(io.StringIO(text)))
    for k, v in {column: value, **more}.items():
        rows[1][rows[0].index(k)] = v
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _refused(tmp_path, text: str) -> str:
    p = tmp_path / "cat.csv"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalogs(str(p))
    return info.value.message


@pytest.mark.parametrize("text, start", [
    (lambda: _with_cell(_x610z_sample(), "move_cost", "M" + "9" * 5000), "A1-001: move_cost: bad energy string 'M999"),
    (lambda: "# types: " + ", ".join(f"T{k}" for k in range(10_000)) + "\n" + _x610z_sample(),
     "not a catalog of any game: as a zx catalog, header must be "),
    (lambda: _with_cell(_x610z_sample(), "code", "A-" + "1" * 5000, type="Bogus"), "A-111"),
    (lambda: _with_cell(_zx_sample(), "code", "X" * 5000, type="Bogus"), "XXX"),
    (lambda: _with_cell(_zx_sample(), "color", "/".join(["red"] * 2000)), "R01-001: colour listed twice in 'red/red/"),
])
def test_catalog_error_cuts_each_value_it_echoes_to_200_characters(tmp_path, text, start):
    message = _refused(tmp_path, text())
    assert message.startswith(start), message[:300]
    assert "..." in message and len(message) < 600, len(message)
