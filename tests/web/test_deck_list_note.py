"""The judge's deck list of a player whose setup the log left out holds the codes of the cards that setup took out
of it (Z/X 402: hand 4, Life 4, Resource 2; X610Z 105.2a: a hand of 7), unknown which (``seats.deck_count`` counts
them out): 50 codes listed under "Deck 40", with no word, and 50 CSV rows of a 40-card deck (QA). Every surface now
says it, as a judge reads it: "40 of these 50: 10 are in his hand, Life or Resource, unknown which (the log left them
out)" in the terminal, under the browser's deck, and in the ``detail`` of CSV's deck rows. The other seats see the
deck's size only, as before."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from seat_support import browser_at_turn, replay, stored_as_played

ROOT = Path(__file__).resolve().parents[2]
ZX_MATCH, X6_MATCH = "hand-first-turns-001", "x610z-sim-7-0279"
ZX_NOTE = "40 of these 50: 10 are in his hand, Life or Resource, unknown which (the log left them out)"


def _without(src: Path, line: int, folder: Path) -> Path:
    lines = src.read_text().splitlines(True)
    assert '"do": "setup", "by": "P1"' in lines[line - 1]
    out = folder / src.name
    out.write_text("".join(lines[:line - 1] + lines[line:]))
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("decknote")
    return stored_as_played(folder, [_without(ROOT / "examples" / "legal" / "first-turns.zxlog", 2, folder),
                                     _without(ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog", 2,
                                              folder)])


def test_402_the_judges_deck_list_says_which_of_its_codes_are_not_in_the_deck(store):
    table = " ".join(replay(store, ZX_MATCH, "judge", "--turn", "1").split())
    assert "Deck 40 " in table and f"({ZX_NOTE})" in table
    rows = [r for r in csv.DictReader(io.StringIO(replay(store, ZX_MATCH, "judge", "--turn", "1", "--format", "csv")))
            if r["player"] == "P1" and r["zone"] == "deck"]
    assert len(rows) == 50 and all(r["detail"] == ZX_NOTE for r in rows)
    p2 = [r for r in csv.DictReader(io.StringIO(replay(store, ZX_MATCH, "judge", "--turn", "1", "--format", "csv")))
          if r["player"] == "P2" and r["zone"] == "deck"]
    assert p2 and not any(r["detail"] for r in p2)  # (his setup is in the log: his list is his deck)


@pytest.mark.parametrize("seat", ("P1", "P2", "spectator"))
def test_402_the_other_seats_see_the_decks_size_alone(store, seat):
    table = replay(store, ZX_MATCH, seat, "--turn", "1")
    assert "Deck 40 " in table and "unknown which" not in table


def test_105_2a_an_x610z_setup_left_out_says_it_of_the_judges_deck_list_too(store):
    table = " ".join(replay(store, X6_MATCH, "judge", "--turn", "1").split())
    assert "7 are in his hand, unknown which (the log left them out)" in table


def test_402_the_browsers_judge_deck_says_it(browser, store, tmp_path):
    browser_at_turn(browser, store, ZX_MATCH, "judge", 1, tmp_path)
    deck = browser.find_element("css selector", "[data-player=P1] [data-zone=deck]")
    browser.execute_script("arguments[0].open = true", deck)
    assert deck.find_element("css selector", "[data-field=deck_note]").text == ZX_NOTE
    assert not browser.find_elements("css selector", "[data-player=P2] [data-field=deck_note]")
