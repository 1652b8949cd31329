"""Keyboard-only use of the replay viewer (QA round 32, /tmp/qa31-keys): a judge's open deck and the focus on its
summary kept across the board's redraws (Z/X and X610Z), PageUp / PageDown on the slider going a turn back and on,
and the status line (the live region) saying a seat or a speed chosen while playing once, with no event said twice.
In Debian's headless Chromium (the ``page`` fixture of tests/web/conftest.py), files written by ``zx view`` (X610Z's
by web.viewer from a simulated match). Skipped without Chromium, unless CI is set (then they fail)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from test_viewer_access import focused, press
from test_viewer_browser import open_file, seq, write_views, x610z_history
from web import viewer


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
