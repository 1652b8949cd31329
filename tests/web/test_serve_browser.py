"""``zx serve`` in a real browser: uvicorn on 127.0.0.1 (a free port) in a thread, Debian's headless
Chromium driven by Selenium (the ``browser`` fixture of tests/web/conftest.py). The dashboard draws
its charts, the match list filters, a replay opens and steps."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from contextlib import contextmanager
from typing import Iterator

import pytest

from serve_support import VIOLATION_MATCH, Built, build_store
from zx_web.dashboard import pct

SECTIONS = ["share", "trend", "winrates", "matchups", "first", "attacks", "life", "cards"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    folder = tmp_path_factory.mktemp("serve-browser")
    return build_store(str(folder / "events.sqlite"), folder)


@pytest.fixture(scope="module")
def server(built: Built) -> Iterator[str]:
    from zx_web.app import create_app

    with running(create_app(built.store, analytics=built.analytics)) as url:
        yield url


@contextmanager
def running(app) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 (a free port) in a thread; its address."""
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def wait(browser, css: str, timeout: float = 20.0):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def submit(browser, timeout: float = 20.0) -> None:
    """Click the match list's Search and wait for the new page: the old table gone (a row of the unfiltered
    list matched the wait for a filtered row, and the rows were read while the page was being replaced)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    old = browser.find_element(By.ID, "match-table")
    browser.find_element(By.ID, "search").click()

    def gone(driver) -> bool:  # (ec.staleness_of, but Chromium answers a node of the page being replaced with
        # "unhandled inspector error: Node with given id does not belong to the document" as well: gone too)
        try:
            return ec.staleness_of(old)(driver)
        except WebDriverException as e:
            if "does not belong to the document" in str(e):
                return True
            raise

    WebDriverWait(browser, timeout).until(gone)
    wait(browser, "#match-table")


def test_the_dashboard_draws_its_charts_with_their_data_labels(browser, server):
    browser.get(server + "/dashboard?min_games=5")
    wait(browser, "div[data-chart='cards'] svg")
    drawn = browser.execute_script("""
        const out = {};
        for (const div of document.querySelectorAll('div[data-chart]')) {
          const svg = div.querySelector('svg');
          const box = svg.getBoundingClientRect();
          out[div.dataset.chart] = {width: box.width, height: box.height,
            marks: svg.querySelectorAll('path, rect, line, circle').length,
            texts: Array.from(svg.querySelectorAll('text')).map(t => t.textContent)};
        }
        return out;""")
    assert sorted(drawn) == sorted(SECTIONS)
    for key, chart in drawn.items():
        assert chart["width"] > 250 and chart["height"] > 60 and chart["marks"] > 5, key
    rows = get_json(server + "/api/stats/winrates?min_games=5")["rows"]
    for r in rows:
        label = f"{pct(r['win_rate'])} [{pct(r['win_rate_low'], 0)}–{pct(r['win_rate_high'], 0)}] n={r['games']}"
        assert label in drawn["winrates"]["texts"]
        assert r["deck"] in drawn["winrates"]["texts"]
    cells = get_json(server + "/api/stats/matchups?min_games=5")["rows"]
    assert {f"{pct(c['win_rate'], 0)} ({c['games']})" for c in cells} <= set(drawn["matchups"]["texts"])
    first = get_json(server + "/api/stats/winrates?by=first&min_games=5")["rows"]
    assert {"first", "second"} <= set(drawn["first"]["texts"]) and len(first) == 2
    # no request left this server: every resource the page loaded is from it
    hosts = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(h.startswith(server) for h in hosts)
    # an emptied "Min. games" is not sent (it was a 400 page): the browser asks for a number instead
    from selenium.webdriver.common.by import By

    box = browser.find_element(By.CSS_SELECTOR, "#dash-filters input[name=min_games]")
    box.clear()
    before = browser.current_url
    browser.find_element(By.CSS_SELECTOR, "#dash-filters button[type=submit]").click()
    time.sleep(0.3)
    assert browser.current_url == before
    assert browser.execute_script("return document.querySelector('#dash-filters input[name=min_games]')"
                                  ".validity.valueMissing")


def test_the_match_list_filters(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server + "/matches")
    wait(browser, "#match-table")
    total = get_json(server + "/api/matches")["total"]
    assert browser.find_element(By.ID, "match-count").text.startswith(f"{total} matches")
    box = browser.find_element(By.ID, "q")
    box.clear()
    box.send_keys("not-in-hand")
    submit(browser)
    wait(browser, "tr[data-match='invalid-301.1-not-in-hand']")
    rows = browser.find_elements(By.CSS_SELECTOR, "#match-table tbody tr[data-match]")
    assert [r.get_attribute("data-match") for r in rows] == ["invalid-301.1-not-in-hand"]

    browser.get(server + "/matches")
    wait(browser, "#deck")
    deck = Select(browser.find_element(By.ID, "deck")).options[1].text
    Select(browser.find_element(By.ID, "deck")).select_by_visible_text(deck)
    submit(browser)
    wait(browser, "select#deck option[selected]")
    expected = get_json(server + "/api/matches?limit=500&deck=" + urllib.request.quote(deck))["matches"]
    shown = [r.get_attribute("data-match") for r in
             browser.find_elements(By.CSS_SELECTOR, "#match-table tbody tr[data-match]")]
    assert shown == [m["match"] for m in expected][:50] and shown
    for row in browser.find_elements(By.CSS_SELECTOR, "#match-table tbody tr[data-match]"):
        assert deck in row.text


def test_a_replay_opens_from_the_match_page_and_steps(browser, server, built):
    from selenium.webdriver.common.by import By

    match = built.matches[0]
    browser.get(f"{server}/matches/{match}")
    wait(browser, "#replay-P1")
    assert browser.find_elements(By.ID, "replay-judge") == []  # not without --judge
    assert "chain verifies" in browser.find_element(By.ID, "chain").text
    browser.find_element(By.ID, "replay-P1").click()
    wait(browser, "#board")
    assert match in browser.find_element(By.ID, "match-title").text + browser.find_element(By.ID, "match-sub").text
    seats = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#seat option")]
    assert seats == ["P1"]  # the page holds that seat's views only (301.3)
    before = browser.find_element(By.ID, "pos").text
    browser.find_element(By.ID, "first").click()
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    after = browser.find_element(By.ID, "pos").text
    assert after != before and after
    browser.get(f"{server}/matches/{match}/replay?as=judge")
    assert "--judge" in browser.find_element(By.ID, "error-message").text


CHART_TEXT = """
var out = {outside: [], overlap: [], texts: 0};
document.querySelectorAll('div[data-chart] svg').forEach(function (svg) {
  var R = svg.getBoundingClientRect(), key = svg.closest('div[data-chart]').dataset.chart, items = [];
  svg.querySelectorAll('text').forEach(function (t) {
    var b = t.getBoundingClientRect();
    if (!b.width || getComputedStyle(t).opacity === '0' || t.getAttribute('opacity') === '0') return;
    out.texts++;
    if (b.left < R.left - 0.5 || b.right > R.right + 0.5) out.outside.push([key, t.textContent, b.left - R.left, b.right - R.right]);
    if (!/rotate/.test(t.getAttribute('transform') || '')) items.push([t.textContent, b]);  // (a turned label's box is not its shape)
  });
  svg.querySelectorAll('.role-legend-symbol path').forEach(function (p) { items.push(['(swatch)', p.getBoundingClientRect()]); });
  for (var i = 0; i < items.length; i++) for (var j = i + 1; j < items.length; j++) {
    var a = items[i][1], c = items[j][1];
    var w = Math.min(a.right, c.right) - Math.max(a.left, c.left), h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
    if (w > 1 && h > 2 && !(items[i][0] === '(swatch)' && items[j][0] === '(swatch)'))
      out.overlap.push([key, items[i][0], items[j][0], w, h]);
  }
});
return out;"""


def assert_chart_text_inside_and_apart(browser) -> None:
    found = browser.execute_script(CHART_TEXT)
    assert found["texts"] > 50
    assert found["outside"] == [] and found["overlap"] == []


def test_the_charts_text_stays_inside_each_chart_and_apart(browser, server):
    """vl-convert lays a chart out with the widths of its text in one font, the browser draws it in
    another: labels were cut at a chart's edge, legend labels ran into the next swatch. The charts
    name one font both use (zx_web.dashboard.FONT)."""
    try:
        browser.set_window_size(1366, 900)
        for q in ("min_games=5", "min_games=1"):
            browser.get(server + "/dashboard?" + q)
            wait(browser, "div[data-chart='cards'] svg")
            assert_chart_text_inside_and_apart(browser)
    finally:
        browser.set_window_size(1400, 1000)


def test_on_a_phone_the_charts_keep_their_size_and_scroll_sideways(browser, server):
    """At 390 px the charts were shrunk to 30-50% (text 4 px high); the matches table ran past the
    screen. Each keeps its size and scrolls in its own box; the page itself is as wide as the screen."""
    try:
        browser.set_window_size(390, 844)
        browser.get(server + "/dashboard?min_games=5")
        wait(browser, "div[data-chart='cards'] svg")
        charts = browser.execute_script("""return Array.prototype.map.call(document.querySelectorAll('div[data-chart]'),
            function (d) { var svg = d.querySelector('svg');
              return [d.dataset.chart, svg.getBoundingClientRect().width, +svg.getAttribute('width'),
                      d.scrollWidth > d.clientWidth, getComputedStyle(d).overflowX]; });""")
        for key, shown, width, scrolls, overflow in charts:
            assert abs(shown - width) < 1, (key, shown, width)
            assert overflow == "auto" and (scrolls or width <= 390), key
        inner = browser.execute_script("return window.innerWidth")
        for path in ("/dashboard?min_games=5", "/matches"):
            browser.get(server + path)
            wait(browser, "main")
            assert browser.execute_script("return document.documentElement.scrollWidth") <= inner, path
        wide = browser.execute_script("var t = document.getElementById('match-table'); "
                                      "return [t.parentElement.scrollWidth > t.parentElement.clientWidth, "
                                      "getComputedStyle(t.parentElement).overflowX]")
        assert wide == [True, "auto"]
    finally:
        browser.set_window_size(1400, 1000)


def test_the_served_replay_links_back_and_to_the_other_seats_and_agrees_on_colours(browser, server, built):
    """The served replay page was a dead end (no way back, the seat box disabled): it links to its match
    and the list, and to the same match from each other seat the server offers (not the judge's without
    --judge). The match page's seat badges have the viewer's colours (P1 was blue there, red here)."""
    from selenium.webdriver.common.by import By

    match = built.matches[0]
    browser.get(f"{server}/matches/{match}")
    wait(browser, ".seat.P1")
    badges = browser.execute_script("return ['P1', 'P2'].map(function (s) { return "
                                    "getComputedStyle(document.querySelector('.seat.' + s)).backgroundColor; })")
    browser.find_element(By.ID, "replay-P1").click()
    wait(browser, "#served-nav")
    who = browser.execute_script("return ['P1', 'P2'].map(function (s) { return "
                                 "getComputedStyle(document.querySelector('#match-sub .who.' + s)).color; })")
    assert badges == who and badges[0] != badges[1]
    links = {a.get_attribute("id"): a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#served-nav a")}
    assert links["back-match"] == f"{server}/matches/{match}" and links["back-list"] == f"{server}/matches"
    assert sorted(k for k in links if k.startswith("as-")) == ["as-P2", "as-spectator"]  # no judge: no --judge
    browser.find_element(By.ID, "as-P2").click()
    wait(browser, "#served-nav")
    assert browser.execute_script("return zxViewer.seat()") == "P2"
    assert browser.execute_script("return typeof zxViewer") == "object"  # its scripts still run (CSP)
    browser.find_element(By.ID, "back-match").click()
    wait(browser, "#replay-P1")
    assert browser.current_url == f"{server}/matches/{match}"


def test_a_seat_link_of_the_served_replay_opens_the_same_moment_from_that_seat(browser, server, built):
    """The "seen from" links under the title were fixed (?as=P2): at event 22 as P1, the P2 link opened
    P2's replay at event 1. They follow the position, as the address does."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    match = built.matches[0]
    browser.get(f"{server}/matches/{match}/replay?as=P1#e=20")
    wait(browser, "#served-nav")
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    assert browser.execute_script("return zxViewer.seq()") == 22
    browser.find_element(By.ID, "as-P2").click()
    WebDriverWait(browser, 20).until(lambda d: d.execute_script(
        "return window.zxViewer ? zxViewer.seat() : null") == "P2")
    assert browser.execute_script("return zxViewer.seq()") == 22
    assert browser.current_url == f"{server}/matches/{match}/replay?as=P2#e=22"
    assert browser.find_element(By.ID, "as-P1").get_attribute("href").endswith("?as=P1#e=22")


def one_match_store(folder, **header) -> tuple[str, str]:
    """A store (and its analytics file) of one simulated Z/X match whose header has ``header``'s fields;
    each of ``players`` is merged into that seat's."""
    from zx_analytics.projection import update
    from zx_events.application import MatchService
    from zx_events.games.zx.sim import simulate
    from zx_events.logformat.reader import parse_log

    (sim,) = simulate(1, seed=3, policy="mixed")
    players = header.pop("players", {})
    top = dict(sim.header, **header)
    top["players"] = {seat: {**p, **players.get(seat, {})} for seat, p in sim.header["players"].items()}
    (log,) = parse_log("".join(json.dumps(x) + "\n" for x in [top, *sim.records]), "one.zxlog")
    store = str(folder / "events.sqlite")
    svc = MatchService(store)
    try:
        assert svc.import_log(log).status == "imported"
        update(svc, folder / "analytics.duckdb", rebuild=True)
    finally:
        svc.close()
    return store, log.match_id


def test_a_long_event_name_keeps_the_filters_on_a_phones_screen(browser, tmp_path):
    """A 60-character event name made the Event select 447 px wide (min-width, no max-width): the match
    list and the dashboard scrolled sideways on a 375 px phone. A select is at most its form's width."""
    from zx_web.app import create_app

    event = "Z/X Championship Series 2026 Tokyo Regional Qualifier, Day 2"
    store, _ = one_match_store(tmp_path, event=event)
    try:
        browser.set_window_size(375, 800)
        with running(create_app(store, analytics=tmp_path / "analytics.duckdb")) as url:
            for path in ("/matches", "/dashboard"):
                browser.get(url + path)
                wait(browser, "select[name=event]")
                got = browser.execute_script("""var s = document.querySelector('select[name=event]');
                    return [s.getBoundingClientRect().right, document.documentElement.clientWidth,
                            document.documentElement.scrollWidth, s.options[s.options.length - 1].text.length];""")
                right, inner, page, longest = got
                assert longest == len(event) and right <= inner and page <= inner, (path, got)
    finally:
        browser.set_window_size(1400, 1000)


def test_decks_named_with_wide_letters_leave_every_chart_as_wide_as_its_box_at_1280_px(browser, tmp_path):
    """Decks named "W" * 60 and "M" * 60 made Win rate by deck 1230 px wide, Deck share 1152 px and the
    weekly trend 1150 px against their 1118 px box, labels cut at its edge (docs/serve.md: from 1280 px up
    every chart is as wide as its box or narrower): names are cut to the pixels they are given too."""
    from zx_web.app import create_app

    store, _ = one_match_store(tmp_path, players={"P1": {"deck_name": "W" * 60}, "P2": {"deck_name": "M" * 60}})
    try:
        browser.set_window_size(1280, 900)
        with running(create_app(store, analytics=tmp_path / "analytics.duckdb")) as url:
            browser.get(url + "/dashboard?min_games=1")
            wait(browser, "div[data-chart='cards'] svg")
            charts = browser.execute_script("""return Array.prototype.map.call(document.querySelectorAll('div[data-chart]'),
                function (d) { var svg = d.querySelector('svg');
                  return [d.dataset.chart, svg.getBoundingClientRect().width, d.clientWidth]; });""")
            assert {key for key, _, _ in charts} >= {"share", "trend", "winrates"}
            for key, width, box in charts:
                assert width <= box, (key, width, box)
            found = browser.execute_script(CHART_TEXT)
            assert found["outside"] == [] and found["overlap"] == [], found
    finally:
        browser.set_window_size(1400, 1000)


def test_a_screen_reader_meets_each_chart_as_an_image_named_by_its_title(browser, server):
    """Chromium's accessibility tree held eight images named '' on the dashboard (role="img", no name, and
    the text marks inside hidden by that role). Each is named by its section's title."""
    browser.get(server + "/dashboard?min_games=5")
    wait(browser, "div[data-chart='cards'] svg")
    titles = browser.execute_script("return Array.prototype.map.call(document.querySelectorAll('section.chart-section h2'),"
                                    " function (h) { return h.textContent; })")
    browser.execute_cdp_cmd("Accessibility.enable", {})
    try:
        nodes = browser.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    finally:
        browser.execute_cdp_cmd("Accessibility.disable", {})
    images = [(n.get("name") or {}).get("value", "") for n in nodes
              if (n.get("role") or {}).get("value") in ("image", "img") and not n.get("ignored")]
    assert len(titles) == len(SECTIONS) and images == titles


def test_on_a_phone_long_names_and_messages_wrap_and_the_page_stays_as_wide_as_the_screen(browser, tmp_path):
    """At 390 px a match with a 64-character player name and a 78-character deck name without spaces made its
    page 868 px wide, the dashboard's message naming that deck 762 px, and /about's table 468 px: the page
    scrolled sideways. Long text wraps; a wide table scrolls in its own box."""
    from zx_web.app import create_app

    name, deck = "Maximilian-Alexander_VonSuperlongname_TheThirdOfHisName_Champion", "D" * 78
    assert len(name) == 64
    store, match = one_match_store(tmp_path, players={"P1": {"name": name, "deck_name": deck}})
    try:
        browser.set_window_size(390, 844)
        with running(create_app(store, analytics=tmp_path / "analytics.duckdb")) as url:
            for path, shows in ((f"/matches/{match}", name), ("/dashboard?deck=Nope", deck), ("/about", "/api/status")):
                browser.get(url + path)
                wait(browser, "main")
                inner, page, text = browser.execute_script(
                    "return [document.documentElement.clientWidth, document.documentElement.scrollWidth, "
                    "document.querySelector('main').textContent]")
                assert shows in text and page <= inner, (path, page, inner)
            box = browser.execute_script("var t = document.getElementById('endpoints').parentElement; "
                                         "return [t.className, getComputedStyle(t).overflowX, t.scrollWidth > t.clientWidth]")
            assert box == ["wide", "auto", True]  # /about's table scrolls in its box
    finally:
        browser.set_window_size(1400, 1000)


CONTRAST = r"""
function rgb(s) { var p = s.match(/rgba?\(([^)]+)\)/)[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
function lum(c) { var a = c.slice(0, 3).map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * a[0] + 0.7152 * a[1] + 0.0722 * a[2]; }
function blend(f, b) { var a = f[3]; return [f[0] * a + b[0] * (1 - a), f[1] * a + b[1] * (1 - a), f[2] * a + b[2] * (1 - a), 1]; }
function background(e) { var layers = [];
  for (; e; e = e.parentElement) { var c = rgb(getComputedStyle(e).backgroundColor); if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
  var b = [255, 255, 255, 1]; for (var i = layers.length - 1; i >= 0; i--) b = blend(layers[i], b); return b; }
var low = [];
document.querySelectorAll('body *').forEach(function (e) {
  if (e.closest('svg') || !Array.prototype.some.call(e.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); })) return;
  var r = e.getBoundingClientRect(), cs = getComputedStyle(e);
  if (!r.width || !r.height || cs.visibility === 'hidden') return;
  var b = background(e), f = blend(rgb(cs.color), b), L1 = lum(f), L2 = lum(b);
  var ratio = (Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05), size = parseFloat(cs.fontSize);
  var large = size >= 24 || (parseInt(cs.fontWeight) >= 700 && size >= 18.66);
  if (ratio < (large ? 3 : 4.5)) low.push([e.tagName + '.' + e.className, cs.color, ratio.toFixed(2), e.textContent.trim().slice(0, 30)]);
});
return low;"""


def test_the_text_of_the_served_pages_reaches_wcag_aa_contrast(browser, server):
    """The grey of notes, labels, counts, breadcrumbs and the footer (#777) was 4.29:1 on the page's #fafafa and
    4.48:1 on white, the red of error messages 4.48:1 on #fafafa: under WCAG AA's 4.5:1 (3:1 for large text).
    Every text outside the charts reaches it (the report has the same style sheet)."""
    match = VIOLATION_MATCH  # its violations' table too
    for path in ("/dashboard?min_games=5", "/dashboard?deck=Nope", "/matches", f"/matches/{match}", "/about",
                 "/no-such-page"):
        browser.get(server + path)
        wait(browser, "main")
        assert browser.execute_script(CONTRAST) == [], path


def test_an_api_answer_opened_in_a_browser_finds_its_icon(browser, server):
    """A JSON answer names no icon, so the browser asks for /favicon.ico: it was a 404 in the console."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get_log("browser")  # (what earlier tests left)
    browser.get(server + "/api/status")
    failed: list[str] = []

    def favicon_failed(d) -> bool:
        failed.extend(e["message"] for e in d.get_log("browser") if "favicon" in e["message"])
        return bool(failed)

    try:  # the browser asks for the icon after the answer has loaded: a 404 shows within a second
        WebDriverWait(browser, 1.0, poll_frequency=0.1).until(favicon_failed)
    except TimeoutException:
        pass
    assert failed == []


def test_long_names_without_spaces_wrap_in_the_match_list_and_every_chart_fits_its_box(browser, tmp_path):
    """A 112-character player, 121-character deck and 106-character event name, none with a space, made the match
    list 4000 px wide at 1280 px (its cells kept words whole); the win rate chart, a deck name cut to 60 characters,
    was 1192 px wide in its 1118 px box, and "100.0% [21%–100%] n=1" was cut at the edge. The names wrap in their
    cells and every chart is as wide as its box or narrower, at 1280 and 1920 px."""
    from zx_web.app import create_app

    store, _ = one_match_store(tmp_path, event="World_Championship_Finals_" + "X" * 80,
                               players={"P1": {"name": "Bartholomew_" + "Q" * 100,
                                               "deck_name": "Supercalifragilistic_" + "D" * 100},
                                        "P2": {"deck_name": "Hyperextraordinary_" + "E" * 100}})
    try:
        with running(create_app(store, analytics=tmp_path / "analytics.duckdb")) as url:
            for width in (1280, 1920):
                browser.set_window_size(width, 900)
                browser.get(url + "/matches")
                wait(browser, "#match-table tbody tr[data-match]")
                table, box = browser.execute_script("var t = document.getElementById('match-table'); "
                                                    "return [t.getBoundingClientRect().width, t.parentElement.clientWidth]")
                assert table <= box, (width, table, box)
                browser.get(url + "/dashboard?min_games=1")
                wait(browser, "div[data-chart='winrates'] svg")
                charts = browser.execute_script("""return Array.prototype.map.call(document.querySelectorAll('div[data-chart]'),
                    function (d) { return [d.dataset.chart, +d.querySelector('svg').getAttribute('width'), d.clientWidth]; });""")
                assert all(svg <= box for _, svg, box in charts), (width, charts)
                label = browser.execute_script("""var box = document.querySelector("div[data-chart='winrates']");
                    var t = Array.prototype.find.call(box.querySelectorAll('text'), function (t) {
                      return /^100\\.0% \\[/.test(t.textContent); });
                    return t && [t.getBoundingClientRect().right, box.getBoundingClientRect().right];""")
                assert label and label[0] <= label[1], (width, label)
    finally:
        browser.set_window_size(1400, 1000)


def test_dates_in_the_match_list_stay_on_one_line(browser, server):
    """Six name columns of at least 9em left the date column 84 px at any width, and every date broke at its
    hyphen ("2026-03-" / "05"). A date stays on one line, at 1280 px and at 1920 px, and the table fits its box."""
    try:
        for width in (1280, 1920):
            browser.set_window_size(width, 900)
            browser.get(server + "/matches")
            wait(browser, "#match-table tbody tr[data-match]")
            got = browser.execute_script("""var t = document.getElementById('match-table');
                var col = Array.prototype.findIndex.call(t.querySelectorAll('thead th'), function (th) {
                  return th.textContent === 'date'; });
                var cells = Array.prototype.map.call(t.querySelectorAll('tbody tr'), function (tr) { return tr.cells[col]; });
                var line = parseFloat(getComputedStyle(cells[0]).lineHeight);
                var broken = cells.filter(function (td) {  // its text on more than one line
                  var r = document.createRange(); r.selectNodeContents(td);
                  return r.getClientRects().length > 1 || r.getBoundingClientRect().height > 1.5 * line; });
                return [cells.length, broken.map(function (td) { return td.textContent; }),
                        t.getBoundingClientRect().width, t.parentElement.clientWidth];""")
            rows, broken, table, box = got
            assert rows >= 40 and broken == [] and table <= box, (width, got)
    finally:
        browser.set_window_size(1400, 1000)


def test_the_first_tab_stop_of_a_served_page_is_a_skip_link_to_its_content(browser, server):
    """A keyboard user tabbed through the header's links on every page before its content. The first Tab stop is
    "Skip to content", shown while it has the focus; Enter takes the focus to the page's main content, and the
    next Tab stop is the content's first (the match list's first filter)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    focused = """var e = document.activeElement, r = e.getBoundingClientRect();
        return [e.tagName.toLowerCase(), e.id || e.className, e.textContent.trim().slice(0, 20), r.top >= 0 && r.width > 0];"""
    for path in ("/matches", "/dashboard?min_games=5", "/about", "/no-such-page"):
        browser.get("about:blank")
        browser.get(server + path)
        wait(browser, "main")
        assert browser.execute_script("return document.querySelector('a.skip').getBoundingClientRect().bottom") <= 0
        ActionChains(browser).send_keys(Keys.TAB).perform()
        assert browser.execute_script(focused) == ["a", "skip", "Skip to content", True], path
        ActionChains(browser).send_keys(Keys.ENTER).perform()
        assert browser.execute_script(focused)[:2] == ["main", "main"], path
        ActionChains(browser).send_keys(Keys.TAB).perform()
        assert browser.execute_script("return document.querySelector('main').contains(document.activeElement)"), path
        if path == "/matches":
            assert browser.execute_script("return document.activeElement.closest('form').id") == "match-filters"


# ten deck names of 60 characters (the most a chart shows whole: zx_web.dashboard.LABEL_MAX)
LONG_DECKS = [f"{c} Verdant Beast Ramp into Overboost Finishers, Osaka Top 8 list"[:60] for c in "ABCDEFGHIJ"]


@pytest.fixture(scope="module")
def long_decks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of 20 simulated matches whose decks have the ten names of LONG_DECKS; its address."""
    from zx_analytics.projection import update
    from zx_web.app import create_app
    from zx_events.application import MatchService
    from zx_events.games.zx.sim import simulate
    from zx_events.logformat.reader import parse_log

    folder = tmp_path_factory.mktemp("long-decks")
    store = str(folder / "events.sqlite")
    svc = MatchService(store)
    try:
        for n, sim in enumerate(simulate(20, seed=7, policy="greedy")):
            header = dict(sim.header, players={seat: dict(p, deck_name=LONG_DECKS[(2 * n + k) % 10])
                                               for k, (seat, p) in enumerate(sim.header["players"].items())})
            (log,) = parse_log("".join(json.dumps(x) + "\n" for x in [header, *sim.records]), f"{n}.zxlog")
            assert svc.import_log(log).status == "imported"
        update(svc, folder / "analytics.duckdb", rebuild=True)
    finally:
        svc.close()
    with running(create_app(store, analytics=folder / "analytics.duckdb")) as url:
        yield url


def test_a_trend_legend_of_ten_decks_named_with_60_characters_shows_each_whole_inside_its_box(browser, long_decks):
    """The legend of the deck share by week was one row: ten ordinary names ran 400 px past the chart's 1118 px
    box, and a name of 45 characters was cut to 25. At 1280 px it is laid out in columns inside the box, every
    name whole, no label over another."""
    try:
        browser.set_window_size(1280, 900)
        browser.get(long_decks + "/dashboard?min_games=1")
        wait(browser, "div[data-chart='trend'] svg")
        got = browser.execute_script("""var d = document.querySelector("div[data-chart='trend']"), s = d.querySelector('svg');
            return [+s.getAttribute('width'), s.getBoundingClientRect().right, d.clientWidth, d.getBoundingClientRect().right,
                    Array.prototype.map.call(s.querySelectorAll('.role-legend-label text'), function (t) { return t.textContent; })];""")
        width, right, box, box_right = got[:4]
        assert width <= box and right <= box_right and sorted(got[4]) == LONG_DECKS, got
        found = browser.execute_script(CHART_TEXT)
        assert [o for o in found["overlap"] + found["outside"] if o[0] == "trend"] == []
    finally:
        browser.set_window_size(1400, 1000)


def test_the_matchup_grids_row_title_runs_into_no_deck_name(browser, long_decks):
    """The matchup grid's "deck" title stood left of its rows' names, where the longest ran into it (the browser
    draws a name a little wider than vl-convert measured it). It stands in the corner above the names; no text of
    any chart runs into another, nor out of its chart."""
    try:
        browser.set_window_size(1280, 900)
        browser.get(long_decks + "/dashboard?min_games=1")
        wait(browser, "div[data-chart='matchups'] svg")
        over = browser.execute_script("""var texts = document.querySelectorAll("div[data-chart='matchups'] svg text");
            var title = Array.prototype.filter.call(texts, function (t) { return t.textContent === 'deck'; });
            if (title.length !== 1) return title.length;
            var a = title[0].getBoundingClientRect();  // (turned a quarter, as it was, its box is its shape)
            return Array.prototype.filter.call(texts, function (t) {
              var b = t.getBoundingClientRect();
              return t !== title[0] && Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1; }).map(function (t) { return t.textContent; });""")
        assert over == []
        assert_chart_text_inside_and_apart(browser)
    finally:
        browser.set_window_size(1400, 1000)
