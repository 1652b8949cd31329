"""Accessibility of the replay viewer (QA round 30, /tmp/qa30-access): the keys (the Seat box keeps the focus and
its seat is said, V / Shift+V only while the replay's controls have the focus, Space on a button, a summary or a
field does what it does there), the contrast of its fields' borders and of the current row's outline in either
scheme (WCAG 1.4.11), the page printed, the slider's spoken value and the served page's title. In Debian's
headless Chromium (the ``browser`` fixture of tests/web/conftest.py), files written by ``zx view``.
Skipped without Chromium, unless CI is set (then they fail)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from selenium.webdriver.support.ui import WebDriverWait
from serve_support import COLOURS, emulate
from test_viewer_browser import open_file, seq, write_views

PRINT_WIDTH = 718  # px: an A4 page's printable width at Chromium's default margins


@pytest.fixture(scope="module")
def files(viewer_store, tmp_path_factory) -> dict[str, Path]:
    """Pages written by zx view: a match from three seats, from the judge's and P1's, and the violation's from P2."""
    match_id = viewer_store.matches[1]
    return write_views(viewer_store.path, tmp_path_factory.mktemp("viewer-access"), (
        ("three", ["P1", "P2", "spectator"], match_id), ("judge", ["judge"], match_id), ("P1", ["P1"], match_id),
        ("violation", ["P2"], viewer_store.with_violation)))


def press(driver: Any, *names: str, shift: bool = False) -> None:
    """Keys pressed where the focus is (nothing blurred first): Keys' names, or characters."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    chain = ActionChains(driver)
    if shift:
        chain.key_down(Keys.SHIFT)
    for n in names:
        chain.send_keys(getattr(Keys, n) if len(n) > 1 else n)
    if shift:
        chain.key_up(Keys.SHIFT)
    chain.perform()


def focused(driver: Any) -> str:
    return driver.execute_script("var e = document.activeElement; return e.tagName.toLowerCase() + '#' + e.id")


def said(driver: Any) -> str:
    return driver.execute_script("return document.getElementById('said').textContent")


def playing(driver: Any) -> bool:
    return driver.execute_script("return zxViewer.playing()")


# ------------------------------------------------------------------ the Seat box (WCAG 3.2.2, 2.4.3, 4.1.3)

def test_the_seat_box_keeps_the_focus_its_arrows_choose_seats_each_said_and_escape_goes_back_to_stepping(page, files):
    """QA 30: Up in the Seat box chose a seat and the box then let go of the focus (``this.blur()``): the next Up
    stepped the replay instead of choosing the next seat, and the new seat was said nowhere. Now the focus stays in
    the box, each seat chosen is said in the status line, and Escape takes the focus to the slider, where the
    arrow keys step again (so does Tab, to the first step button)."""
    open_file(page, files["three"], "#e=10")
    assert page.execute_script("return zxViewer.seat()") == "spectator"  # the seat that sees least
    press(page, "TAB", "TAB")  # Skip to content, then the Seat box
    assert focused(page) == "select#seat"
    press(page, "ARROW_UP")
    assert (page.execute_script("return zxViewer.seat()"), seq(page), focused(page)) == ("P2", 10, "select#seat")
    note = page.find_element("id", "seat-note").text  # what the seat sees, in the game's words
    assert note and said(page).startswith(f"Seat P2: {note}. Event 10 of "), said(page)
    press(page, "ARROW_UP")
    assert (page.execute_script("return zxViewer.seat()"), seq(page), focused(page)) == ("P1", 10, "select#seat")
    assert said(page).startswith("Seat P1: ")
    assert page.execute_script("return location.hash") == "#e=10&as=P1"
    press(page, "ESCAPE")
    assert focused(page) == "input#slider"
    press(page, "ARROW_RIGHT", "ARROW_RIGHT")
    assert (page.execute_script("return zxViewer.seat()"), seq(page)) == ("P1", 12)
    page.execute_script("document.getElementById('seat').focus()")
    press(page, "ARROW_DOWN")
    assert page.execute_script("return zxViewer.seat()") == "P2" and focused(page) == "select#seat"
    press(page, "TAB")  # out of the box: the first step button
    assert focused(page) == "button#first"
    press(page, "ARROW_RIGHT")
    assert (page.execute_script("return zxViewer.seat()"), seq(page)) == ("P2", 13)


# ------------------------------------------------------------------ V and Space (WCAG 2.1.4)


def test_a_seat_the_address_changes_to_is_said_as_one_chosen_in_the_box(page, files):
    """Left by QA 30's fix: a seat chosen in the Seat box was said in the status line, one the address changed to
    (Back, Forward, a typed #as=) was not. A stray seat is said as refused instead, as before."""
    open_file(page, files["three"], "#e=10")
    for step in (1, 2, 3):  # steps in a row: the next line waits its turn (SAY_GAP), and must not replace the seat's
        page.execute_script("document.getElementById('slider').focus()")
        press(page, "ARROW_RIGHT")
    page.execute_script("location.hash = '#e=20&as=p2'")
    WebDriverWait(page, 5).until(lambda d: d.execute_script("return zxViewer.seat()") == "P2")
    time.sleep(0.6)  # past any step's line still waiting
    note = page.find_element("id", "seat-note").text
    assert said(page).startswith(f"Seat P2: {note}. Event 20 of "), said(page)
    page.execute_script("history.back()")  # to #e=13 as the spectator
    WebDriverWait(page, 5).until(lambda d: d.execute_script("return zxViewer.seat()") == "spectator")
    time.sleep(0.6)
    assert said(page).startswith("Seat spectator") and " Event 13 of " in said(page), said(page)
    page.execute_script("location.hash = '#e=20&as=nobody'")
    WebDriverWait(page, 5).until(lambda d: "nobody" in said(page))
    assert said(page).startswith("The address names seat"), said(page)


def test_v_steps_to_a_violation_only_while_the_replays_controls_have_the_focus(page, files):
    """QA 30: V / Shift+V worked page-wide (a letter typed, or said by speech input, with the focus anywhere) and
    could not be turned off. Now they work while the focus is in the replay's controls (a step button, the slider):
    with the focus on the page itself a V does nothing."""
    open_file(page, files["violation"], "#e=1")
    first = page.execute_script("var s = Object.keys(zxViewer.data.views.P2.violations.reduce(function (o, v) {"
                                " o[v[0]] = 1; return o; }, {})).map(Number).sort(function (a, b) { return a - b; });"
                                " return s[0];")
    assert first and first > 1
    page.execute_script("document.activeElement && document.activeElement.blur()")
    press(page, "v")
    press(page, "V", shift=True)
    assert seq(page) == 1 and not playing(page)
    page.execute_script("document.getElementById('slider').focus()")
    press(page, "v")
    assert seq(page) == first
    page.execute_script("zxViewer.go(1); document.getElementById('next').focus()")
    press(page, "v")
    assert seq(page) == first and focused(page) == "button#next"
    page.execute_script("zxViewer.go(zxViewer.data.last)")
    press(page, "V", shift=True)
    assert seq(page) < page.execute_script("return zxViewer.data.last")
    assert "V / Shift+V" in page.find_element("tag name", "footer").text
    assert "replay's controls" in page.find_element("tag name", "footer").text


def test_a_violation_button_that_disables_itself_hands_the_focus_on_and_v_still_works(page, files):
    """QA 31: Enter on !▶ at the last violation disabled the focused button and the focus fell to the page, where
    V and Shift+V do nothing: the focus goes to the other violation button (else the slider), so Shift+V goes back."""
    open_file(page, files["violation"], "#e=1")
    seqs = page.execute_script("return Object.keys(zxViewer.data.views.P2.violations.reduce(function (o, v) {"
                               " o[v[0]] = 1; return o; }, {})).map(Number).sort(function (a, b) { return a - b; });")
    page.execute_script(f"zxViewer.go({seqs[-1] - 1}); document.getElementById('next-viol').focus()")
    press(page, "ENTER")
    assert seq(page) == seqs[-1] and focused(page) in ("button#prev-viol", "input#slider"), focused(page)
    press(page, "V", shift=True)  # handled where the focus went: back to the one before, or said there is none
    if len(seqs) > 1:
        assert seq(page) == seqs[-2]
    else:
        assert seq(page) == seqs[-1] and said(page).startswith(f"No violation before event {seqs[-1]}"), said(page)


def test_the_skip_links_target_shows_it_has_the_focus(page, files):
    """QA 31: "Skip to content" put the focus on the replay's controls box, which takes keys, with no outline at all
    (``.controls:focus { outline: none }``, WCAG 2.4.7): it is outlined now."""
    open_file(page, files["P1"], "#e=5")
    press(page, "TAB")
    press(page, "ENTER")
    assert focused(page) == "nav#replay.controls" or focused(page).startswith("nav#replay"), focused(page)
    style = page.execute_script("var cs = getComputedStyle(document.activeElement);"
                                " return [cs.outlineStyle, parseFloat(cs.outlineWidth)];")
    assert style[0] != "none" and style[1] >= 2, style


def test_space_on_a_button_or_a_summary_does_what_it_does_there_and_plays_elsewhere(page, files):
    """QA 30: Space with the focus on Go (a turn typed) or on the judge's "Deck 40 (judge)" summary started playing
    instead of pressing Go or opening the deck. Now Space presses a focused button, opens a focused summary and
    types in a field; with the focus on the slider, or on nothing, it plays and pauses."""
    open_file(page, files["judge"], "#e=1")
    turn2 = page.execute_script("return zxViewer.data.turns[1]")
    box = page.find_element("id", "turn-input")
    box.click()
    box.send_keys("2")
    press(page, "TAB")
    assert focused(page) == "button#turn-go"
    press(page, "SPACE")
    time.sleep(0.2)
    assert (seq(page), playing(page)) == (turn2, False)
    page.execute_script("document.getElementById('next').focus()")
    press(page, "SPACE")
    time.sleep(0.2)
    assert (seq(page), playing(page)) == (turn2 + 1, False)  # Next pressed, once
    summary = page.find_element("css selector", "#board details.deck summary")
    page.execute_script("arguments[0].focus()", summary)
    press(page, "SPACE")
    time.sleep(0.2)
    assert not playing(page) and seq(page) == turn2 + 1
    assert page.execute_script("return document.querySelector('#board details.deck').open")
    page.execute_script("document.getElementById('slider').focus()")
    press(page, "SPACE")
    assert playing(page)
    press(page, "SPACE")
    assert not playing(page)
    page.execute_script("document.activeElement.blur()")
    press(page, "SPACE")
    assert playing(page)
    press(page, "ARROW_RIGHT")  # any move pauses
    assert not playing(page)


# ------------------------------------------------------------------ contrast (WCAG 1.4.11)

# each field's border against the field and what is around it, the current row's outline against the row and the
# list under it: the colours as drawn, each blended over what is under it (an opaque background ends the walk)
OUTLINES = COLOURS + r"""
function ratio(a, b) { var x = lum(a), y = lum(b); return Math.round((Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05) * 100) / 100; }
var out = {};
['#turn-input', '#speed', '#seat'].forEach(function (sel) {
  var e = document.querySelector(sel), field = under(e), around = under(e.parentElement);
  var line = blend(parse(getComputedStyle(e).borderTopColor), field);
  out[sel] = [ratio(line, field), ratio(line, around), getComputedStyle(e).borderTopColor];
});
var row = document.querySelector('#events li.current'), cs = getComputedStyle(row);
var outline = blend(parse(cs.outlineColor), under(row));
out['current row'] = [ratio(outline, under(row)), ratio(outline, under(row.parentElement)), cs.outlineColor,
                      cs.outlineStyle, parseFloat(cs.outlineWidth)];
return out;"""


def test_the_fields_borders_and_the_current_rows_outline_reach_3_to_1_in_either_scheme_wcag_1_4_11(page, files):
    """QA 30: the empty turn box's border was #d9dde3 on white (1.36:1), in dark #3a414b on #14171b (1.74:1); the
    current event row's outline #e6b400 on white (1.93:1). Measured as Chromium draws them, in the light scheme
    and the dark one: each against both colours it separates."""
    open_file(page, files["three"], "#e=10&as=spectator")  # the spectator's Seat box: the page's own border
    low = {}
    for scheme in ("light", "dark"):
        emulate(page, scheme=scheme)
        got = page.execute_script(OUTLINES)
        assert got["current row"][3] == "solid" and got["current row"][4] >= 1, got
        low.update({f"{scheme} {k}": v for k, v in got.items() if min(v[0], v[1]) < 3})
    assert low == {}


# ------------------------------------------------------------------ print

PRINTED = r"""
var W = document.documentElement.clientWidth, out = {width: W, stuck: [], scrolled: [], hidden_rows: 0, controls: []};
function name(e) { return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('class') ? '.' + e.getAttribute('class').split(' ')[0] : ''); }
document.querySelectorAll('body *').forEach(function (e) {
  if (!e.checkVisibility() || e.matches('.sr-only')) return;  // (the status line: one pixel, for screen readers)
  var cs = getComputedStyle(e);
  if (cs.position === 'sticky' || cs.position === 'fixed') out.stuck.push(name(e));
  if ((cs.overflowY !== 'visible' && e.scrollHeight > e.clientHeight + 1) || (cs.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1))
    out.scrolled.push(name(e) + ' ' + e.clientHeight + ' of ' + e.scrollHeight);
});
var rows = document.querySelectorAll('#events li');
out.rows = rows.length;
rows.forEach(function (r) { if (!r.checkVisibility()) out.hidden_rows++; });
var list = document.getElementById('events').getBoundingClientRect(), lastRow = rows[rows.length - 1].getBoundingClientRect();
out.last_row_inside = lastRow.bottom <= list.bottom + 1;
document.querySelectorAll('nav.controls button, nav.controls select, nav.controls form, #slider, .skip, #seat, ' +
                          '.seat-box label, nav.served, nav.served a').forEach(function (e) {
  if (e.checkVisibility()) out.controls.push(name(e)); });
var shown = document.getElementById('seat-shown');
out.seat_shown = shown && shown.checkVisibility() ? shown.textContent : null;  // (none before QA 32)
out.board = document.getElementById('board').checkVisibility() && document.querySelectorAll('#board [data-player]').length;
out.pos = document.getElementById('pos').checkVisibility() ? document.getElementById('pos').textContent : null;
out.ink = getComputedStyle(document.body).color;
return out;"""


def dark_enough(colour: str) -> bool:
    """A text colour readable on paper (no background printed): its channels' mean under 128."""
    import re

    return sum(map(int, re.findall(r"\d+", colour)[:3])) / 3 < 128


def test_a_printed_replay_holds_the_board_shown_and_the_whole_event_list_without_the_controls(page, files):
    """QA 30: viewer.css had no print style: a printed replay showed the 450 px of the event list its scroll box
    shows, and the sticky controls. Printed (print media at an A4 page's printable width), in either scheme: no
    box scrolls, nothing is sticky or fixed, every row of the list prints, the board at the event shown and where
    the match stands print, the buttons and the slider do not, and the text is dark on the (unprinted) page.
    QA 32: nor does the Seat box; the seat shown prints as text ("Seat: P1")."""
    open_file(page, files["P1"], "#e=40")
    assert_printed(page, "P1")


def assert_printed(page: Any, seat: str) -> dict:
    """The page open in ``page`` printed in either scheme, then on screen again (the test above): what shows there."""
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": PRINT_WIDTH, "height": 1000,
                                                                "deviceScaleFactor": 1, "mobile": False})
    tints = {}
    for scheme in ("light", "dark"):
        emulate(page, "print", scheme)
        got = page.execute_script(PRINTED)
        assert got["stuck"] == [] and got["scrolled"] == [] and got["controls"] == [], (scheme, got)
        assert got["rows"] > 40 and got["hidden_rows"] == 0 and got["last_row_inside"], (scheme, got)
        assert got["board"] == 2 and got["pos"].startswith("event 40/"), (scheme, got)
        assert got["seat_shown"] == f"Seat: {seat}", (scheme, got)
        assert dark_enough(got["ink"]), (scheme, got["ink"])
        tints[scheme] = page.execute_script(BOARD_TINTS)
    # the board's own tints (its board.css) on paper are the light ones whatever the screen's scheme: its dark block
    # applied to print too (dark squares and panels under the page's dark text)
    assert tints["light"] == tints["dark"] and len(tints["light"]) > 5, tints
    emulate(page, "", "light")  # on screen again: the list scrolls in its box, the controls stick
    got = page.execute_script(PRINTED)
    assert "nav#replay.controls" in got["stuck"] and any(s.startswith("ol#events") for s in got["scrolled"])
    assert "select#seat" in got["controls"] and got["seat_shown"] is None, got  # the box, not the text, on screen
    return got


def test_a_printed_served_replay_leaves_out_its_links_and_seat_box_and_says_the_seat(page, viewer_store, tmp_path):
    """QA 32: zx serve's replay page printed its links (back to the match and the list, the other seats) and the
    Seat box, which do nothing on paper: left out, the seat shown printed as text ("Seat: P2"). The page as the
    server sends it (through the app), opened from a file."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    with TestClient(create_app(viewer_store.path)) as c:
        replay = c.get(f"/matches/{viewer_store.matches[1]}/replay?as=P2")
    assert replay.status_code == 200 and 'id="served-nav"' in replay.text
    path = tmp_path / "served.html"
    path.write_text(replay.text, "utf-8")
    open_file(page, path, "#e=40")
    on_screen = assert_printed(page, "P2")
    assert {"nav#served-nav.served", "a#back-match", "a#back-list"} <= set(on_screen["controls"]), on_screen


BOARD_TINTS = r"""
return Array.from(document.querySelectorAll('#board .cell, #board .player, #board .mini, #board .turn-flag'))
  .slice(0, 40).map(function (e) { var cs = getComputedStyle(e); return cs.backgroundColor + ' ' + cs.borderTopColor; });
"""


# ------------------------------------------------------------------ the slider's value, the served page's title

def test_the_slider_says_its_event_and_turn_as_its_value(page, files):
    """QA 30 (nit): the slider said only its number ("60"): its value is now said as "event 60 of 87, turn 3"."""
    open_file(page, files["P1"], "#e=30")
    want = page.execute_script("return 'event 30 of ' + zxViewer.data.last + ', turn ' + "
                               "zxViewer.data.turns.filter(function (t) { return t <= 30; }).length")
    assert page.find_element("id", "slider").get_attribute("aria-valuetext") == want
    page.execute_script("document.getElementById('slider').focus()")
    press(page, "ARROW_RIGHT")
    assert page.find_element("id", "slider").get_attribute("aria-valuetext").startswith("event 31 of ")


def test_the_served_replay_pages_title_ends_as_the_other_served_pages_do(viewer_store, files):
    """QA 30 (nit): the served replay page's title ended "· zx view", every other served page's "· zx-events". A file
    of zx view keeps its "· zx view" (it stands alone: no server wrote it)."""
    import re

    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    title = lambda text: re.search(r"<title>(.*?)</title>", text, re.S)[1]  # noqa: E731
    match_id = viewer_store.matches[1]
    with TestClient(create_app(viewer_store.path)) as c:
        listing, replay = c.get("/matches"), c.get(f"/matches/{match_id}/replay?as=P2")
    assert listing.status_code == 200 and replay.status_code == 200
    assert title(listing.text).endswith(" · zx-events")
    assert title(replay.text) == f"{match_id} · P2 · zx-events"
    assert title(files["P1"].read_text("utf-8")) == f"{match_id} · P1 · zx view"
