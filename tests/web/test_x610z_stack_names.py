"""The browser's X610Z stack line names the cards of its entries as the terminal's does (zx_events/games/x610z/render.py,
``_entry``): a cast's card and a target that is a card by their names where the view names them (until 2026-11-28 the
target was its code: "P1 cast Overcharge → A1-010"), a dot as itself, a hidden card as ``?``.

tests/data/x610z-cast-on-crystal.x610zlog is ``zx simulate --game x610z -n 4 --seed 7 --policy mixed``'s fourth match:
line 102, P1 casts Overcharge (A1-034) on his Mystic Crystal (A1-010), a permanent in play (public to every seat)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seat_support import replay, stored_as_played, view_file

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
MATCH = "x610z-sim-7-0004"
SEQ = 128  # the last event of line 102's step: the cast on the stack


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    return stored_as_played(tmp_path_factory.mktemp("stack"), [DATA / "x610z-cast-on-crystal.x610zlog"])


@pytest.mark.parametrize("seat", ("P2", "spectator"))
def test_the_terminal_and_the_json_name_the_target_card_of_a_cast_on_the_stack(store, seat):
    assert "Stack (top last): P1 cast A1-034 Overcharge → A1-010 Mystic Crystal" in \
        replay(store, MATCH, seat, "--event", str(SEQ))
    state = json.loads(replay(store, MATCH, seat, "--event", str(SEQ), "--format", "json"))
    assert state["stack"] == [{"by": "P1", "card": "A1-034", "id": 102, "kind": "cast", "target": "A1-010"}]
    assert state["names"]["A1-010"] == "Mystic Crystal"


def test_the_browsers_stack_line_names_the_target_card_of_a_cast(browser, store, tmp_path):
    view_file(store, MATCH, "P2", tmp_path)
    browser.get((tmp_path / f"{MATCH}-P2.html").as_uri())
    browser.execute_script(f"zxViewer.go({SEQ})")
    text = browser.find_element("css selector", "[data-field=stack]").text
    assert text == "Stack (top last): P1 cast Overcharge → Mystic Crystal"
