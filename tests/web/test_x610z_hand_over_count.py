"""X610Z 502.5, an `end` left out: the turn the next `turn` record ends discards its player's hand down to 7, unknown
which (digest.8). The state keeps the codes the hand held (one more than it holds now), so a seat that sees the hand
read 8 cards listed under "Hand 7" with nothing saying why. Every surface now says it: the terminal's "Hand:" line
and the browser's hand zone add "7 of these 8: 1 was discarded, unknown which (502.5)", CSV's hand rows carry it in
their ``detail``; the other seats see the count only, as before.

The log is examples/x610z/legal/life-base-destroyed.x610zlog without line 12, P1's `end` of turn 1 that discarded
A1-010 from his 8 cards."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from seat_support import browser_at_turn, replay, stored_as_played

ROOT = Path(__file__).resolve().parents[2]
MATCH = "x610z-sim-7-0264"
NOTE = "7 of these 8: 1 was discarded, unknown which"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("handover")
    lines = (ROOT / "examples" / "x610z" / "legal" / "life-base-destroyed.x610zlog").read_text().splitlines(True)
    assert lines[11].startswith('{"do": "end", "by": "P1", "discard"')
    log = folder / "end-left-out.x610zlog"
    log.write_text("".join(lines[:11] + lines[12:]))
    return stored_as_played(folder, [log])


@pytest.mark.parametrize("seat", ("P1", "judge"))
def test_502_5_a_hand_that_lists_more_cards_than_it_holds_says_why_in_the_terminal_and_csv(store, seat):
    table = replay(store, MATCH, seat, "--turn", "2")
    assert "Hand 7 " in table and f"({NOTE}, 502.5)" in " ".join(table.split())
    rows = [r for r in csv.DictReader(io.StringIO(replay(store, MATCH, seat, "--turn", "2", "--format", "csv")))
            if r["player"] == "P1" and r["zone"] == "hand"]
    assert len(rows) == 8 and all(r["detail"] == f"{NOTE}, 502.5" for r in rows)


@pytest.mark.parametrize("seat", ("P2", "spectator"))
def test_502_5_the_other_seats_see_the_count_alone(store, seat):
    table = replay(store, MATCH, seat, "--turn", "2")
    assert "Hand 7 " in table and "Hand: 7 hidden" in table and NOTE not in table


def test_502_5_the_browsers_hand_zone_says_why_it_lists_more_cards(browser, store, tmp_path):
    browser_at_turn(browser, store, MATCH, "P1", 2, tmp_path)
    hand = browser.find_element("css selector", "[data-player=P1] [data-zone=hand]")
    assert hand.find_element("css selector", "[data-field=hand_note]").text == f"{NOTE} (502.5)"
    assert len(hand.find_elements("css selector", ".mini")) == 8
    assert "discarded" not in browser.find_element("css selector", "[data-player=P2] [data-zone=hand]").text
