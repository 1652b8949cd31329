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


def test_the_new_links_and_fields_are_44_px_to_tap_and_the_download_is_a_named_link(phone, store):  # noqa: F811
    """QA round 36: the match list's replay and match links 38x16, the match page's player and deck links 16 px tall
    and 21 px apart, the filter forms' new fields 26-29 px: 44 px on a touch screen. The Download was a link with
    role="button", which Space does not work (the page scrolled): a link, named with its seat."""
    from test_serve_browser import running
    from test_viewer_phone import load_served
    from zx_web.app import create_app

    path, analytics = store
    with running(create_app(path, analytics=analytics)) as url:
        load_served(phone, url + "/matches?player=Ren&sort=newest")
        assert phone.find_elements("css selector", "#match-table a.replay")
        assert phone.execute_script(SMALL, "#match-table td a, form.filters input, form.filters select") == []
        heads = phone.execute_script("return Array.prototype.map.call(document.querySelectorAll('#match-table th'),"
                                     " function (e) { return e.textContent; })")
        assert heads[:3] == ["opponent", "result", "replay"], heads  # (a phone's first screen: whom, won, replay)
        load_served(phone, url + f"/matches/{ZX}")
        assert phone.find_elements("css selector", "a.name-link")
        assert phone.execute_script(SMALL, "a.name-link") == []
        load_served(phone, url + f"/matches/{ZX}/replay?as=P1")
        link = phone.find_element("css selector", "#download")
        assert link.get_attribute("role") is None and link.get_attribute("aria-label") == \
            "Download this replay as P1 sees it (one HTML file)"
