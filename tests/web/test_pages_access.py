"""Accessibility of the served pages and of ``zx report``'s file, in Debian's headless Chromium (the ``browser``
fixture of tests/web/conftest.py) where what is asked is what a browser draws: the contrast of the filter fields'
borders (WCAG 1.4.11), and the pages printed (print media emulated through CDP). QA round 30."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from serve_support import COLOURS, VIOLATION_MATCH, Built, emulate
from test_serve_browser import built, server  # noqa: F401  (the browser tests' store and server fixtures: this
# module's own of each, module-scoped)

PRINT_WIDTH = 718  # px: an A4 page's printable width at Chromium's default margins


@pytest.fixture(scope="module")
def report(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pages-access-report") / "meta.html"
    r = CliRunner().invoke(zx, ["--store", built.store, "report", "-o", str(out), "--analytics", str(built.analytics)])
    assert r.exit_code == 0, r.output
    return out


# the colours of the page as drawn, each blended over what is under it (an opaque background ends the walk)
CONTRAST = COLOURS + r"""
function ratio(a, b) { var x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
return Array.from(document.querySelectorAll('form.filters input, form.filters select')).map(function (e) {
  var field = under(e), around = under(e.parentElement), border = blend(parse(getComputedStyle(e).borderTopColor), field);
  return {field: e.name, on_field: Math.round(ratio(border, field) * 100) / 100,
          on_form: Math.round(ratio(border, around) * 100) / 100, border: getComputedStyle(e).borderTopColor};
});"""


@pytest.mark.parametrize("path", ["/matches", "/dashboard"])
def test_every_filter_fields_border_reaches_3_to_1_in_the_light_and_the_dark_scheme_wcag_1_4_11(page, server, path):
    """The Search, Player, Winner, Min. games and date fields' borders were #ccc on white, 1.61:1, and #56606c on
    the dark form, 2.53:1: under the 3:1 WCAG 1.4.11 asks of what shows a field is there. Measured as Chromium
    draws them: the border against the field's own background and against the form around it."""
    page.get(server + path)
    for scheme in ("light", "dark"):
        emulate(page, scheme=scheme)
        fields = page.execute_script(CONTRAST)
        assert len(fields) >= 5, (path, fields)
        low = [f for f in fields if min(f["on_field"], f["on_form"]) < 3]
        assert not low, (path, scheme, low)


# what printing cuts or leaves out: an element past the page's right edge, a box that scrolls (its content cut on
# paper), a data table not drawn (a closed <details>), and the form and links that have no use on paper, shown
PRINTED = r"""
var W = document.documentElement.clientWidth, out = {width: W, page: document.documentElement.scrollWidth, past: [],
  scrolled: [], unprinted: [], shown: []};
function name(e) { return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('class') ? '.' + e.getAttribute('class').split(' ')[0] : '')
  + ' ' + (e.textContent || '').trim().slice(0, 30); }
document.querySelectorAll('main *').forEach(function (e) {
  if (!e.checkVisibility()) return;
  var r = e.getBoundingClientRect();
  if (r.width && (r.right > W + 0.5 || r.left < -0.5)) out.past.push(name(e) + ' ' + Math.round(r.left) + '-' + Math.round(r.right));
  var cs = getComputedStyle(e);
  if ((cs.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1) || (cs.overflowY !== 'visible' && e.scrollHeight > e.clientHeight + 1))
    out.scrolled.push(name(e) + ' ' + e.clientWidth + 'x' + e.clientHeight + ' of ' + e.scrollWidth + 'x' + e.scrollHeight);
});
document.querySelectorAll('main table, div.chart svg').forEach(function (e) { if (!e.checkVisibility()) out.unprinted.push(name(e)); });
document.querySelectorAll('form.filters, header nav, nav.toc, .skip, .pager a, .reset').forEach(function (e) {
  if (e.checkVisibility()) out.shown.push(name(e)); });
out.tables = document.querySelectorAll('main table').length; out.charts = document.querySelectorAll('div.chart svg').length;
return out;"""


def printed(browser, url: str) -> dict:
    """What of ``url`` prints on an A4 page (print media, the page's printable width), in the light scheme and the
    dark one (background colours are not printed: the text must be dark in either)."""
    browser.get(url)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": PRINT_WIDTH, "height": 1000,
                                                                    "deviceScaleFactor": 1, "mobile": False})
    out = {}
    for scheme in ("light", "dark"):
        emulate(browser, "print", scheme)
        out[scheme] = browser.execute_script(PRINTED)
        out[scheme]["ink"] = browser.execute_script(
            "return [document.body, document.querySelector('header.top'), document.querySelector('main h1')]"
            ".map(function (e) { return getComputedStyle(e).color; })")
    return out


def dark_enough(colour: str) -> bool:
    """A text colour readable on paper (no background printed): its channels' mean under 128."""
    import re

    return sum(map(int, re.findall(r"\d+", colour)[:3])) / 3 < 128


@pytest.mark.parametrize("which", ["dashboard", "report", "matches", "match"])
def test_a_printed_page_cuts_nothing_prints_its_data_tables_and_leaves_out_the_form(page, server, report, which):
    """No print stylesheet: printed on A4, the dashboard and ``zx report`` cut 7 of their 8 charts at the right
    (labels lost), left their 8 data tables in closed <details> (not printed), and the match list's table was cut
    at 655 of its 1044 px (P2's deck, the turns, the result and the violations lost). Printed now: every chart
    within the page (scaled to its width), every data table drawn whole (no scroll box), the match list within the
    page, and no filter form, header links or pager; the text dark on the paper in either scheme."""
    url = {"dashboard": server + "/dashboard", "report": report.as_uri(), "matches": server + "/matches",
           "match": f"{server}/matches/{VIOLATION_MATCH}"}[which]
    charts = 8 if which in ("dashboard", "report") else 0
    for scheme, got in printed(page, url).items():
        assert got["tables"] >= max(1, charts) and got["charts"] == charts, (which, got["tables"], got["charts"])
        assert got["page"] <= got["width"], (which, scheme, got["page"], got["past"][:5])
        assert not got["past"], (which, scheme, got["past"][:5])
        assert not got["scrolled"], (which, scheme, got["scrolled"][:5])
        assert not got["unprinted"], (which, scheme, got["unprinted"])
        assert not got["shown"], (which, scheme, got["shown"])
        assert all(map(dark_enough, got["ink"])), (which, scheme, got["ink"])


def fetch(url: str) -> tuple[int, str]:
    """``url`` asked for as a browser asks (HTML): its status and its text, an error's too."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"accept": "text/html"}), timeout=60) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8")


def title_and_heading(page: str) -> tuple[str, str]:
    import html
    import re

    return tuple(html.unescape(re.search(rf"<{tag}>(.*?)</{tag}>", page, re.S).group(1)) for tag in ("title", "h1"))


@pytest.mark.parametrize("path, status, heading, said", [
    ("/matches/no-such-match", 404, "Not found", "unknown match 'no-such-match'"),
    ("/matches?since=someday", 400, "Bad request", "since: 'someday' is not a date"),
    ("/no/such/page", 404, "Not found", "no such page or endpoint: /no/such/page"),
    (f"/matches/{VIOLATION_MATCH}/replay?as=judge", 403, "Not allowed", "as=judge: the judge view"),
])
def test_an_error_pages_heading_and_title_say_what_went_wrong_wcag_2_4_6(server, path, status, heading, said):
    """An error page's heading was "404" or "400", its title "404 · zx-events": they say what went wrong now, the
    title with the message's beginning, the message whole under the heading (and the status, for whoever wants
    it)."""
    got, page = fetch(server + path)
    title, h1 = title_and_heading(page)
    assert (got, h1) == (status, heading), (path, got, h1)
    assert title.startswith(f"{heading}: {said}") and title.endswith(" · zx-events"), (path, title)
    assert f"HTTP {status}" in page and f"<h1>{status}" not in page


def marked(page: str) -> dict[str, str]:
    """The form's fields marked invalid: name: the id of what describes them."""
    import re

    fields = re.findall(r'<(?:input|select)\b[^>]*>', page)
    return {re.search(r'name="([^"]+)"', f).group(1): re.search(r'aria-describedby="([^"]+)"', f).group(1)
            for f in fields if 'aria-invalid="true"' in f}


@pytest.mark.parametrize("query, fields", [
    ("min_games=0", {"min_games"}), ("since=someday", {"since"}), ("until=2026-13-01", {"until"}),
    ("since=2026-05-01&until=2026-01-01", {"since", "until"}), ("deck=No+Such+Deck", {"deck"}),
    ("event=No+Such+Event", {"event"}), ("player=Nobody+At+All", {"player"}), ("nonsense=1", set()),
])
def test_a_refused_dashboard_says_so_in_its_title_and_marks_the_field_at_fault(server, query, fields):
    """A dashboard refused (400) kept the title "Metagame · zx-events", and nothing marked the field at fault:
    its title says the filter was refused, the reason is an alert, and the fields it names are aria-invalid,
    described by it (an unknown parameter names none of them)."""
    got, page = fetch(f"{server}/dashboard?{query}")
    assert got == 400 and title_and_heading(page)[0] == "Filter refused: Metagame · zx-events", (query, got)
    assert '<p class="error" role="alert" id="error-message">' in page, query
    assert marked(page) == {f: "error-message" for f in fields}, query
    status, fine = fetch(f"{server}/dashboard")
    assert status == 200 and title_and_heading(fine)[0] == "Metagame · zx-events" and not marked(fine)
    assert 'role="alert"' not in fine


def test_the_header_and_the_replays_seen_from_line_mark_the_current_page_and_seat_with_aria_current(server):
    """The header's link to the page shown was marked by class="here" alone, the replay's current seat by <b>: a
    screen reader told neither. Both are aria-current="page" now, and nothing else is."""
    import re

    for path, link in (("/matches", "/matches"), ("/dashboard", "/dashboard"), ("/about", "/about"),
                       (f"/matches/{VIOLATION_MATCH}", "/matches")):
        page = fetch(server + path)[1]
        nav = page[page.index("<nav>"):page.index("</nav>")]
        assert re.findall(r'<a href="([^"]+)"[^>]*aria-current="page"', nav) == [link], (path, nav)
    page = fetch(f"{server}/matches/{VIOLATION_MATCH}/replay?as=P1")[1]
    served = page[page.index('id="served-nav"'):]
    served = served[:served.index("</nav>")]
    assert re.findall(r'<b class="seat-link here" aria-current="page">([^<]+)</b>', served) == ["P1"]
    assert served.count("aria-current") == 1, served
