"""The replay page on a phone (QA round 35, /tmp/qa35-mob): nothing moves as it loads on a slow link (its title bar,
Seat box and banners in its HTML from the start, the same words its script writes, for each seat a page holds and
never more), its controls and links 44 x 44 CSS px or more to tap on a touch screen (a mouse's look unchanged), and a
horizontal swipe over the board stepping as the arrow keys do. One Chromium for the module, a phone emulated by CDP
(360 x 740, touch); zx serve's pages and files of zx view, of both games, from a store of the examples. Skipped
without Chromium, unless CI is set (then they fail)."""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from test_serve_browser import running, wait

ROOT = Path(__file__).resolve().parents[2]
ZX, X610Z, VIOLATION = "sim-1-0038", "x610z-sim-7-0264", "invalid-301.1-not-in-hand"
ODD = "phone-odd-names"  # a header whose names and event need escaping: markup, quotes, a bidi override, a control
DATA_AT = b'<script type="application/json" id="zx-data">'
PAUSE = 0.4  # s between the page's markup and its data (and scripts): a slow link, paint before the script


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[str, Path]:
    folder = tmp_path_factory.mktemp("viewer-phone")
    path, analytics = str(folder / "events.sqlite"), folder / "events.duckdb"
    header, *rest = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8").splitlines()
    h = json.loads(header)
    h.update(match=ODD, event="Cup <b>&amp;</b> \u202eevil\x1b[2J", round=3)  # (a control drawn as its escape)
    h["players"]["P1"]["name"] = "<img src=x onerror=alert(1)> \"Q\" 'A' & B"
    h["players"]["P2"]["deck_name"] = "</script><script>alert(2)</script>"
    (folder / "odd.zxlog").write_text("\n".join([json.dumps(h), *rest]) + "\n", "utf-8")
    for args in ([str(ROOT / "examples" / "x610z" / "legal")], [str(ROOT / "examples" / "legal")],
                 [str(folder / "odd.zxlog")],
                 [str(ROOT / "examples" / "invalid" / "301.1-not-in-hand.zxlog"), "--accept-violations"]):
        r = CliRunner().invoke(zx, ["--store", path, "import", *args], env={"ZX_ANALYTICS": str(analytics)})
        assert r.exit_code == 0, r.output
    return path, analytics


@pytest.fixture(scope="module")
def pages(store, tmp_path_factory) -> dict[str, bytes]:
    """Served replay pages (zx serve --judge) and files of zx view, by name."""
    from zx_web.app import create_app

    path, analytics = store
    out: dict[str, bytes] = {}
    with TestClient(create_app(path, analytics=analytics, judge=True)) as c:
        for match in (ZX, X610Z, ODD, VIOLATION):
            for seat in ("spectator", "P1", "judge"):
                r = c.get(f"/matches/{match}/replay", params={"as": seat})
                assert r.status_code == 200, r.text
                out[f"{match}-{seat}"] = r.content
    folder = tmp_path_factory.mktemp("viewer-phone-files")
    for match, seats in ((ZX, ["judge", "P1"]), (X610Z, ["P1", "P2"]), (ODD, ["P2", "spectator"]),
                         (X610Z, ["judge"]), (VIOLATION, ["judge", "spectator"])):
        f = folder / f"{match}-{'-'.join(seats)}.html"
        r = CliRunner().invoke(zx, ["--store", path, "view", match, *sum((["--as", s] for s in seats), []),
                                    "-o", str(f)])
        assert r.exit_code == 0, r.output
        out[f"file-{f.stem}"] = f.read_bytes()
    return out


@contextmanager
def slow_server(pages: dict[str, bytes]) -> Iterator[str]:
    """``pages`` over HTTP as a slow link brings them: the markup before the page's data at once, the rest (the data,
    the scripts) ``PAUSE`` later, so that the browser draws the page before its script runs."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path.lstrip("/").split("#")[0])
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            cut = body.index(DATA_AT)
            self.wfile.write(body[:cut])
            self.wfile.flush()
            time.sleep(PAUSE)
            rest = body[cut:]
            for i in range(0, len(rest), 65536):  # then the data as a slow link brings it, in pieces
                self.wfile.write(rest[i:i + 65536])
                self.wfile.flush()
                time.sleep(0.02)

        def log_message(self, *args: Any) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


# the layout shift score as the QA measured it (a PerformanceObserver of 'layout-shift'), and where the controls, the
# chart and the board stand in the first frame drawn with all three, before the script has run
SHIFTS = """window.__shift = 0; new PerformanceObserver(function (l) { l.getEntries().forEach(function (e) {
  if (!e.hadRecentInput) window.__shift += e.value; }); }).observe({type: 'layout-shift', buffered: true});
window.__first = null;
(function frame() {
  var els = ['replay', 'chart', 'board'].map(function (id) { return document.getElementById(id); });
  if (els.every(Boolean) && !window.zxViewer) {
    window.__first = els.map(function (e) { return e.getBoundingClientRect().top + scrollY; });
    return;
  }
  if (!window.zxViewer) requestAnimationFrame(frame);
})();"""
WHERE = ("return ['replay', 'chart', 'board'].map(function (id) {"
         " return document.getElementById(id).getBoundingClientRect().top + scrollY; })")


def as_phone(d: Any) -> None:
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 740, "deviceScaleFactor": 2,
                                                             "mobile": True})
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    d.execute_cdp_cmd("Emulation.setEmitTouchEventsForMouse", {"enabled": True, "configuration": "mobile"})


def as_desktop(d: Any) -> None:
    d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    d.execute_cdp_cmd("Emulation.setEmitTouchEventsForMouse", {"enabled": False})


@pytest.fixture(scope="module")
def phone() -> Iterator[Any]:
    from zx_web.browser import chromium

    from conftest import need_browser

    need_browser()
    with chromium(360, 740) as d:
        as_phone(d)
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SHIFTS})
        yield d


def load(d: Any, url: str) -> None:
    d.get("about:blank")
    d.get(url)
    wait(d, "#board .player, #board > *")
    d.execute_async_script("var done = arguments[0]; requestAnimationFrame(function () {"
                           " requestAnimationFrame(function () { setTimeout(done, 100); }); });")


# ------------------------------------------------------------------ 1. nothing moves as the page loads

def test_nothing_moves_on_a_phone_as_the_replay_page_loads_on_a_slow_link(phone, pages):
    """The title (3-12 lines on a phone) was written by the script at the end of the page: the controls, the chart
    and the board were pushed ~150 px down once on screen (layout shift 0.78 at 360 px). They stand where the first
    frame drew them, before the script ran, and the layout shift score is under 0.1, both games, served pages and zx
    view's files."""
    names = [f"{m}-{s}" for m in (ZX, X610Z, ODD) for s in ("spectator", "P1", "judge")] + \
        [n for n in pages if n.startswith("file-")]
    with slow_server(pages) as url:
        for name in names:
            load(phone, f"{url}/{name}")
            shift, painted, drawn = phone.execute_script(
                "var p = performance.getEntriesByName('first-contentful-paint')[0];"
                "var m = performance.getEntriesByName('zx-first-draw')[0];"
                "return [window.__shift, p ? p.startTime : null, m ? m.startTime : null];")
            assert painted is not None and drawn is not None and painted < drawn, (name, painted, drawn)
            first, now = phone.execute_script("return window.__first"), phone.execute_script(WHERE)
            assert first is not None, name  # a frame drawn before the script ran
            assert [round(b - a) for a, b in zip(first, now)] == [0, 0, 0], (name, first, now)
            assert shift < 0.1, (name, shift)


# the title bar, the Seat box and the banners, as the page shows them
HEAD = """var t = function (id) { var e = document.getElementById(id); return [e.innerHTML, e.hidden]; };
var sel = document.getElementById('seat');
return {title: t('match-title'), sub: t('match-sub'), note: t('seat-note'), shown: t('seat-shown'),
  banner: t('judge-banner'), warning: t('warning'), viol: document.getElementById('viol-nav').hidden,
  seats: Array.prototype.map.call(sel.options, function (o) { return [o.value, o.textContent]; }),
  seat: sel.value, off: sel.disabled, last: document.getElementById('slider').max,
  text: document.body.innerText};"""


def test_the_title_bar_seat_box_and_banners_are_written_as_the_script_writes_them(phone, pages):
    """What the page shows before its script runs is what the script leaves (else the text moves when it runs),
    for every seat and both games, escaped (markup, quotes, a bidi override and an escape in the names and the event
    drawn as text); a page shows the seat it holds that sees least, never a judge's words in a page without the
    judge's view."""
    with slow_server(pages) as url:
        for name in pages:
            phone.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
            try:
                phone.get("about:blank")
                phone.get(f"{url}/{name}")
                wait(phone, "#zx-data")
                before = phone.execute_script(HEAD)
            finally:
                phone.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
            load(phone, f"{url}/{name}")
            after = phone.execute_script(HEAD)
            text_before, text_after = before.pop("text"), after.pop("text")
            assert before == after, name
            assert before["title"][0] != "zx view" and "vs" in text_before, name
            if "judge" not in name:
                assert "judge" not in [s for s, _ in before["seats"]], name
                assert "Judge's file" not in text_before and "sees everything" not in text_before, name
                assert "Judge's file" not in text_after and "sees everything" not in text_after, name
            if name.startswith(ODD):
                assert '<img src=x onerror=alert(1)> "Q" \'A\' & B' in text_before, text_before
                assert "</script><script>alert(2)</script>" in text_before
                assert "Cup <b>&amp;</b> evil\\x1b[2J" in text_before  # the escape shown as text
                assert "\u202e" not in text_before  # (the mask drops a bidi control)
            if name == f"{VIOLATION}-judge":  # the judge's violation buttons: there from the start
                assert before["viol"] is False, name


# ------------------------------------------------------------------ 2. tap targets

SMALL = """var out = [], sel = arguments[0];
document.querySelectorAll(sel).forEach(function (e) {
  var r = e.getBoundingClientRect(), cs = getComputedStyle(e);
  if (!r.width || cs.display === 'none' || cs.visibility === 'hidden' || e.closest('[hidden]')) return;
  if (r.width < 44 || r.height < 44)
    out.push((e.id || e.className || e.tagName) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
});
return out;"""
CONTROLS = ("header.top button, header.top select, header.top a, nav.served a, nav.served .seat-link, #replay button, "
            "#replay select, #replay input, .viol-mark")


def test_each_control_of_the_replay_page_is_44_px_to_tap_on_a_touch_screen(phone, pages, store):
    """Step buttons 38 x 32, the slider 16 px tall, a violation's mark 4 x 8, the seat links 15 px tall ~8 px apart:
    at least 44 x 44 CSS px on a touch screen, the seat links apart; with a mouse, as they were."""
    from zx_web.app import create_app

    with slow_server(pages) as url:
        load(phone, f"{url}/{VIOLATION}-judge")
        assert phone.execute_script("return matchMedia('(pointer: coarse)').matches")
        assert phone.find_elements("css selector", ".viol-mark") and phone.find_elements("css selector", "a.seat-link")
        assert phone.execute_script(SMALL, CONTROLS) == []
        links = phone.execute_script("return Array.prototype.map.call(document.querySelectorAll('nav.served a, "
                                     "nav.served .seat-link'), function (e) { var r = e.getBoundingClientRect();"
                                     " return [r.left, r.top, r.right, r.bottom]; });")
        for i, a in enumerate(links):
            for b in links[i + 1:]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)  # no overlap
        as_desktop(phone)
        try:
            phone.set_window_size(1280, 800)
            load(phone, f"{url}/{VIOLATION}-judge")
            assert not phone.execute_script("return matchMedia('(pointer: coarse)').matches")
            sizes = phone.execute_script("return ['next', 'slider'].map(function (id) { var r = document"
                                         ".getElementById(id).getBoundingClientRect(); return [r.width, r.height]; })")
            assert sizes[0] == [38, 32] and sizes[1][1] < 30, sizes  # the desktop's look
        finally:
            as_phone(phone)
    path, analytics = store
    with running(create_app(path, analytics=analytics)) as url:
        for page, sel in (("/matches", "a.reset"), ("/dashboard?min_games=1", "a.reset, nav.toc a, details summary")):
            load_served(phone, url + page)
            assert phone.find_elements("css selector", sel)
            assert phone.execute_script(SMALL, sel) == [], page


def load_served(d: Any, url: str) -> None:
    d.get(url)
    wait(d, "main")


# ------------------------------------------------------------------ 3. a swipe over the board

def touch(d: Any, kind: str, points: list[tuple[float, float]]) -> None:
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y} for x, y in points]})


def drag(d: Any, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
    touch(d, "touchStart", [start])
    for i in range(1, steps + 1):
        f = i / steps
        touch(d, "touchMove", [(start[0] + (end[0] - start[0]) * f, start[1] + (end[1] - start[1]) * f)])
        time.sleep(0.01)
    touch(d, "touchEnd", [])
    time.sleep(0.3)


def pinch(d: Any, y: float) -> None:
    """Two fingers apart, one moving across as in a swipe."""
    touch(d, "touchStart", [(150, y), (200, y)])
    for i in range(1, 6):
        touch(d, "touchMove", [(150 - 4 * i, y), (200 + 25 * i, y)])
    touch(d, "touchEnd", [])
    time.sleep(0.2)


def test_a_swipe_over_the_board_steps_a_vertical_drag_scrolls_a_pinch_zooms(phone, pages):
    """A swipe left over the board: the next event; right: the previous one, as the arrow keys; a vertical drag
    scrolls the page and steps nothing; a pinch zooms and steps nothing, nor does a swipe on the page zoomed in (it
    pans); a swipe right is not the browser's "back" (touch emulated by CDP, Input.dispatchTouchEvent)."""
    seq = "return window.zxViewer.seq()"
    with slow_server(pages) as url:
        for name in (f"{ZX}-P1", f"{X610Z}-spectator"):
            load(phone, f"{url}/{name}#e=5")
            assert phone.execute_script(seq) == 5
            phone.execute_script("window.scrollTo(0, document.getElementById('board').getBoundingClientRect().top"
                                 " + scrollY - 200)")
            time.sleep(0.2)
            y = 260  # over the board
            assert phone.execute_script("return document.getElementById('board').contains("
                                        "document.elementFromPoint(300, arguments[0]))", y), name
            drag(phone, (300, y), (60, y + 10))
            assert phone.execute_script(seq) == 6, name
            drag(phone, (60, y), (300, y - 10))
            drag(phone, (60, y), (300, y))
            assert phone.execute_script(seq) == 4, name  # (and still this page: not gone "back")
            before = phone.execute_script("return scrollY")
            drag(phone, (180, y + 300), (190, y - 100))
            assert phone.execute_script("return scrollY") > before + 100, name
            assert phone.execute_script(seq) == 4, name
        # last (CDP's pinch leaves Chromium's touch input to the next page stuck): a pinch over the last page's board
        pinch(phone, y)
        assert phone.execute_script("return visualViewport.scale") > 1.1, name  # the browser zoomed
        assert phone.execute_script(seq) == 4, name
        drag(phone, (300, y), (60, y))
        assert phone.execute_script(seq) == 4, name
