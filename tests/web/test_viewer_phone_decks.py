"""The judge's deck summaries (the `Deck N (judge, sorted)` line that opens a deck's list) 44 px tall to tap on a
touch screen, both games (QA round 35 left them 11-16 px: the X610Z judge's, and Z/X's alike); a mouse's look
unchanged. Reuses test_viewer_phone's pages, served over a slow link, in a Chromium of its own."""

from __future__ import annotations

from test_viewer_phone import SMALL, X610Z, ZX, as_desktop, as_phone, load, pages, phone, slow_server, store  # noqa: F401


def test_the_judges_deck_summaries_are_44_px_to_tap_on_a_touch_screen(phone, pages):  # noqa: F811
    with slow_server(pages) as url:
        for match in (ZX, X610Z):
            load(phone, f"{url}/{match}-judge")
            assert phone.find_elements("css selector", ".zone.deck summary"), match
            assert phone.execute_script(SMALL, ".zone.deck summary") == [], match
        as_desktop(phone)
        try:
            phone.set_window_size(1280, 800)
            for match in (ZX, X610Z):
                load(phone, f"{url}/{match}-judge")
                heights = phone.execute_script("return Array.prototype.map.call(document.querySelectorAll("
                                               "'.zone.deck summary'), function (e) {"
                                               " return e.getBoundingClientRect().height; })")
                assert heights and max(heights) < 30, (match, heights)  # the desktop's look
        finally:
            as_phone(phone)
