"""Keyboard-only use of the replay viewer (QA round 32, /tmp/qa31-keys): a judge's open deck and the focus on its
summary kept across the board's redraws (Z/X and X610Z), PageUp / PageDown on the slider going a turn back and on,
and the status line (the live region) saying a seat or a speed chosen while playing once, with no event said twice.
In Debian's headless Chromium (the ``page`` fixture of tests/web/conftest.py), files written by ``zx view`` (X610Z's
by zx_web.viewer from a simulated match). Skipped without Chromium, unless CI is set (then they fail)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from test_viewer_access import focused, playing, press, said
from test_viewer_browser import open_file, seq, write_views, x610z_history
from zx_web import viewer


@pytest.fixture(scope="module")
def files(viewer_store, tmp_path_factory) -> dict[str, Path]:
    """A match's judge file and its three-seat file (zx view), and a simulated X610Z match's judge file."""
    root = tmp_path_factory.mktemp("viewer-keyboard")
    match_id = viewer_store.matches[1]
    out = write_views(viewer_store.path, root, (
        ("judge", ["judge"], match_id), ("three", ["P1", "P2", "spectator"], match_id)))
    game, hist = x610z_history()
    out["x610z"] = root / "x610z-judge.html"
    out["x610z"].write_text(viewer.page(viewer.history_data(hist, ["judge"], viewer.game_views(game))), "utf-8")
    return out


# ------------------------------------------------------------------ a judge's open deck across redraws

DECKS = """return Array.prototype.map.call(document.querySelectorAll('#board details.deck'), function (d) {
  var p = d.closest('[data-player]'); return [p ? p.dataset.player : null, d.open]; });"""

# the deck of the focused summary: its player, whether it is open, and whether the element is the one first marked
HELD = """var e = document.activeElement, d = e && e.closest && e.closest('#board details.deck');
if (!d || e.tagName !== 'SUMMARY') return null;
return [d.closest('[data-player]').dataset.player, d.open, !!d.__marked];"""


def tab_to_the_deck(driver: Any) -> str:
    """Tab from the top of the page to the first deck's summary; the player whose deck it is."""
    driver.execute_script("document.activeElement && document.activeElement.blur(); scrollTo(0, 0)")
    for _ in range(40):
        press(driver, "TAB")
        if focused(driver).startswith("summary"):
            return driver.execute_script("return document.activeElement.closest('[data-player]').dataset.player")
    raise AssertionError("no deck summary within 40 Tab presses: " + focused(driver))


@pytest.mark.parametrize("name", ["judge", "x610z"])
def test_an_open_deck_stays_open_and_keeps_the_focus_as_the_board_is_redrawn(page, files, name):
    """QA 32: the judge's "Deck 40 (judge)" opened with the keyboard closed again at the next step that redrew its
    panel (X610Z: every step) and the focus on its summary fell to the page. A <details> the user opened stays open
    across redraws (by player and zone) and the focus goes back to the same summary; one the user closed stays
    closed. Stepped with the keys from the summary, then from the slider, then by zxViewer.go."""
    open_file(page, files[name], "#e=%d" % 3)
    who = tab_to_the_deck(page)
    press(page, "ENTER")  # opens it (Enter on a summary: the browser's)
    decks = page.execute_script(DECKS)
    assert [who, True] in decks and not any(o for p, o in decks if p != who), decks
    page.execute_script("document.activeElement.parentElement.__marked = true")
    redrawn = False
    for k in ("ARROW_RIGHT", "ARROW_RIGHT", "ARROW_RIGHT", "ARROW_DOWN", "ARROW_DOWN"):  # keys on the summary step
        before = seq(page)
        press(page, k)
        assert seq(page) > before
        held = page.execute_script(HELD)
        assert held is not None and held[:2] == [who, True], (k, seq(page), focused(page), held)
        redrawn = redrawn or not held[2]
    assert redrawn, "the deck's panel was never redrawn: the test proves nothing"
    assert page.execute_script("return scrollY") < 5000  # (the focus put back without a jump to elsewhere)
    page.execute_script("document.getElementById('slider').focus()")  # back to the slider: the keys step from there
    for k in ("ARROW_DOWN", "ARROW_RIGHT", "ARROW_UP"):
        press(page, k)
        assert focused(page) == "input#slider"
        assert [who, True] in page.execute_script(DECKS), (k, seq(page), page.execute_script(DECKS))
    last = page.execute_script("return zxViewer.data.last")
    for at in (last // 2, 2, last):
        page.execute_script("zxViewer.go(arguments[0])", at)
        decks = page.execute_script(DECKS)
        assert focused(page) == "input#slider" and [who, True] in decks, (at, decks)
    # closed by the user: it stays closed as the board is redrawn
    page.execute_script("zxViewer.go(3); document.querySelector('#board [data-player=\"%s\"] details.deck summary')"
                        ".focus()" % who)
    press(page, "ENTER")
    for k in ("ARROW_DOWN", "ARROW_DOWN"):
        press(page, k)
        assert page.execute_script(HELD)[:2] == [who, False], (k, seq(page), page.execute_script(HELD))
    assert not any(o for _, o in page.execute_script(DECKS))


# ------------------------------------------------------------------ PageUp / PageDown on the slider

def test_page_up_and_page_down_on_the_slider_go_a_turn_back_and_on_as_the_key_help_says(page, files):
    """QA 32: PageUp / PageDown on the slider moved the replay by the range input's own large step (about a tenth of
    the match, PageDown backwards) while the docs said they scroll the page. On the slider they go to the first event
    of the previous / next turn, as Up and Down do (WAI-ARIA's slider: a larger step); the footer says so. Elsewhere
    they scroll the page (test_viewer_browser.py::test_pagedown_scrolls_the_page_...)."""
    open_file(page, files["three"], "#e=1&as=P1")
    turns = page.execute_script("return zxViewer.data.turns")
    page.execute_script("zxViewer.go(arguments[0] + 1); document.getElementById('slider').focus(); scrollTo(0, 0)",
                        turns[2])
    press(page, "PAGE_DOWN")
    assert (seq(page), focused(page)) == (turns[3], "input#slider")
    press(page, "PAGE_DOWN")
    assert seq(page) == turns[4]
    press(page, "PAGE_UP")
    assert seq(page) == turns[3]
    press(page, "PAGE_UP", "PAGE_UP")
    assert seq(page) == turns[1]
    assert page.execute_script("return scrollY") == 0  # stepped, not scrolled
    assert page.find_element("id", "slider").get_attribute("aria-valuetext").startswith(f"event {turns[1]} of ")
    footer = page.find_element("tag name", "footer").text
    assert re.search(r"PageUp PageDown on the slider: turn", footer), footer
    assert "elsewhere they scroll the page" in footer, footer


# ------------------------------------------------------------------ the status line while playing

OBSERVE = """window.__said = []; var s = document.getElementById('said');
new MutationObserver(function () { window.__said.push(s.textContent); })
  .observe(s, {childList: true, characterData: true, subtree: true});"""


def lines(driver: Any) -> list[str]:
    return driver.execute_script("return window.__said")


def events_said(texts: list[str]) -> list[int]:
    """The event each line says ("Event 54 of 147, ..."), in order."""
    return [int(m[1]) for t in texts for m in [re.search(r"\bEvent (\d+) of ", t)] if m]


def play_and_listen(driver: Any, path: Path) -> None:
    """``path`` at event 40 from P1's seat, playing (Space on the slider) for 0.7 s; then the status line watched."""
    open_file(driver, path, "#e=40&as=P1")
    driver.execute_script("document.getElementById('slider').focus()")
    press(driver, "SPACE")
    assert playing(driver)
    time.sleep(0.7)
    driver.execute_script(OBSERVE)


def test_a_seat_chosen_while_playing_is_said_once_and_playing_goes_on(page, files):
    """QA 32: a seat chosen in the Seat box while playing said the event twice (a line for the event, then the seat's
    line with it again) and stopped the play. Now the seat's line (with the event shown) is said once, the play goes
    on, and each event after it is said once, in order (at most one every 1.5 s, as before)."""
    play_and_listen(page, files["three"])
    page.execute_script("document.getElementById('seat').focus()")
    press(page, "ARROW_DOWN")  # P1 -> P2, with the keyboard, the focus in the box
    assert page.execute_script("return zxViewer.seat()") == "P2"
    time.sleep(2.3)  # one event line is due 1.5 s after the seat's
    got = lines(page)
    assert playing(page), got
    assert got and got[0].startswith("Seat P2: "), got
    assert sum(t.startswith("Seat ") for t in got) == 1, got
    said_at = events_said(got)
    assert len(said_at) == len(set(said_at)) >= 2 and said_at == sorted(said_at), got  # the play went on, said once


def test_a_speed_chosen_while_playing_is_said_once_and_playing_goes_on_at_it(page, files):
    """QA 32: a speed chosen while playing (a pause and a play in between) added a line of the event shown. Now the
    speed is said, once, the play goes on at it, and each event after it is said once, in order."""
    play_and_listen(page, files["three"])
    page.execute_script("document.getElementById('speed').focus()")
    press(page, "ARROW_DOWN")  # 2/s -> 4/s
    assert page.execute_script("return document.getElementById('speed').value") == "4"
    time.sleep(2.3)  # one event line is due 1.5 s after the speed's
    got = lines(page)
    assert playing(page), got
    assert got and got[0] == "Speed: 4 events a second.", got
    rest = got[1:]
    assert rest and all(t.startswith("Event ") for t in rest), got  # then the events, each once
    said_at = events_said(rest)
    assert len(said_at) == len(set(said_at)) and said_at == sorted(said_at), got
    before = seq(page)
    time.sleep(0.8)
    assert seq(page) >= before + 2  # at 4 events a second now
    press(page, "ESCAPE", "SPACE")  # back to the slider; Space pauses
    assert not playing(page)
    WebDriverWait(page, 3).until(lambda d: said(d).startswith(f"Event {seq(d)} of "))  # where the play stopped
