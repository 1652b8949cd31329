"""The metagame dashboard (a page of ``zx serve``) and ``zx report`` (the same, as one file): every
chart is an SVG drawn on the server whose data labels are the numbers of the stats API."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from serve_support import Built, build_store
from zx_web.app import create_app
from zx_web.dashboard import pct

SECTIONS = ("share", "trend", "winrates", "matchups", "first", "attacks", "life", "cards")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    folder = tmp_path_factory.mktemp("dash")
    return build_store(str(folder / "events.sqlite"), folder)


@pytest.fixture(scope="module")
def report(built: Built, tmp_path_factory: pytest.TempPathFactory) -> str:
    """``zx report`` of the module's store, drawn once: the tests that only read the file share it."""
    out = tmp_path_factory.mktemp("report") / "meta.html"
    r = CliRunner().invoke(zx, ["--store", built.store, "report", "-o", str(out), "--title", "Sim League meta",
                                "--analytics", str(built.analytics)])
    assert r.exit_code == 0, r.output
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def client(built: Built):
    with TestClient(create_app(built.store, analytics=built.analytics)) as c:
        yield c


class Charts(HTMLParser):
    """The text of every <text> element inside each chart's SVG, by section."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.in_text = False
        self.svgs: dict[str, int] = {}
        self.texts: dict[str, list[str]] = {}
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "div" and "data-chart" in a:
            self.section = a["data-chart"]
        elif tag == "svg" and self.section:
            self.svgs[self.section] = self.svgs.get(self.section, 0) + 1
        elif tag == "text" and self.section:
            self.in_text = True
        for key in ("src", "href"):
            if a.get(key) and re.match(r"(https?:)?//", a[key]):
                self.external.append(a[key])

    def handle_endtag(self, tag: str) -> None:
        if tag == "text":
            self.in_text = False
        elif tag == "div" and self.section and not self.in_text:
            pass

    def handle_data(self, data: str) -> None:
        if self.in_text and self.section:
            self.texts.setdefault(self.section, []).append(data)


def parse(html: str) -> Charts:
    p = Charts()
    # each chart div holds exactly one svg: close the section at its </svg>
    for part in re.split(r"(?<=</svg>)", html):
        p.feed(part)
        p.section = None if part.endswith("</svg>") else p.section
    return p


def labels_expected(client: TestClient, min_games: int = 30, **params: str) -> dict[str, set[str]]:
    q = {"min_games": min_games, **params}
    wr = client.get("/api/stats/winrates", params=q).json()["rows"]
    first = client.get("/api/stats/winrates", params={**q, "by": "first"}).json()["rows"]
    mu = client.get("/api/stats/matchups", params=q).json()["rows"]
    att = client.get("/api/stats/attacks", params={**q, "by": "square"}).json()["rows"]
    return {
        "winrates": {f"{pct(r['win_rate'])} [{pct(r['win_rate_low'], 0)}–{pct(r['win_rate_high'], 0)}] n={r['games']}"
                     for r in wr},
        "first": {f"{pct(r['win_rate'])} [{pct(r['win_rate_low'], 0)}–{pct(r['win_rate_high'], 0)}] n={r['games']}"
                  for r in first},
        "matchups": {f"{pct(r['win_rate'], 0)} ({r['games']})" for r in mu},
        "attacks": {f"{pct(r['success_rate'])} [{pct(r['success_rate_low'], 0)}–{pct(r['success_rate_high'], 0)}] "
                    f"n={r['attacks']}" for r in att},
    }


def test_dashboard_draws_every_chart_with_the_api_numbers(client):
    r = client.get("/dashboard")
    assert r.status_code == 200
    charts = parse(r.text)
    assert set(charts.svgs) == set(SECTIONS) and all(n == 1 for n in charts.svgs.values())
    for section, labels in labels_expected(client).items():
        assert labels and labels <= set(charts.texts[section]), section
    decks = {row["deck"] for row in client.get("/api/stats/winrates").json()["rows"]}
    assert decks <= set(charts.texts["share"]) and decks <= set(charts.texts["trend"])
    assert charts.external == []  # no chart library or font from another server


def test_dashboard_filters_are_the_stats_filters(client):
    deck = client.get("/api/stats/winrates").json()["rows"][0]["deck"]
    r = client.get("/dashboard", params={"deck": deck, "min_games": 3})
    charts = parse(r.text)
    for section, labels in labels_expected(client, min_games=3, deck=deck).items():
        assert labels <= set(charts.texts[section]), section
    assert f"deck = {deck}" in r.text


def test_dashboard_greys_small_samples(client):
    html = client.get("/dashboard", params={"min_games": 10_000}).text
    wr = html.split('data-chart="winrates"')[1].split("</svg>")[0]
    assert "#b9b9b9" in wr and "#3867a8" not in wr  # every row under the minimum: all grey
    html = client.get("/dashboard", params={"min_games": 1}).text
    wr = html.split('data-chart="winrates"')[1].split("</svg>")[0]
    assert "#3867a8" in wr and "#b9b9b9" not in wr


def test_dashboard_bad_filter_is_400(client):
    r = client.get("/dashboard", params={"since": "someday"}, headers={"accept": "text/html"})
    assert r.status_code == 400 and "is not a date (YYYY-MM-DD)" in r.text and "<html" in r.text


CHART_ROOT = re.compile(r'<section class="chart-section" id="([a-z]+)">\s*<h2>([^<]*)</h2>.*?<div class="chart" '
                        r'data-chart="\1">(<svg\b[^>]*>)', re.S)


def assert_charts_named_by_their_titles(html: str) -> None:
    """Each chart's <svg> is an image named by its section's title, with one ``class`` attribute."""
    roots = CHART_ROOT.findall(html)
    assert sorted(key for key, _, _ in roots) == sorted(SECTIONS)
    for key, title, tag in roots:
        assert 'role="img"' in tag and f'aria-label="{title}"' in tag, (key, tag)
        assert len(re.findall(r"\sclass=", tag)) == 1 and 'class="chart marks"' in tag, (key, tag)


def test_each_chart_is_an_image_named_by_its_title_with_one_class_attribute(client):
    """role="img" hides a chart's text marks from a screen reader, which met eight images named '' (and the
    root had two class attributes, vl-convert's "marks" and ours, invalid markup). Each is named by its title;
    the report's charts too (test_report_is_one_self_contained_file)."""
    assert_charts_named_by_their_titles(client.get("/dashboard").text)


def test_report_is_one_self_contained_file(report, client):
    html = report
    charts = parse(html)
    assert set(charts.svgs) == set(SECTIONS)
    for section, labels in labels_expected(client).items():
        assert labels <= set(charts.texts[section]), section
    assert charts.external == []
    assert not re.search(r'(src|href)="/', html)  # nothing from a server: CSS inline, no links to pages
    assert "<style>" in html and "Sim League meta" in html
    assert_charts_named_by_their_titles(html)
    # a file one shares: it runs no script and fetches nothing, whatever text it holds
    assert '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'' \
        in html and "<script" not in html


def test_report_errors(built, tmp_path):
    r = CliRunner().invoke(zx, ["--store", built.store, "report", "-o", str(tmp_path / "x.html"), "--since", "nope"])
    assert r.exit_code == 2 and "Invalid value for '--since': 'nope' is not a date" in r.output
    r = CliRunner().invoke(zx, ["--store", built.store, "report", "-o", str(tmp_path / "x.html"),
                                "--analytics", str(tmp_path / "missing.duckdb")])
    assert r.exit_code == 1 and "analytics update --analytics" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.html").exists()
    for args in (["report", "-o", str(tmp_path / "x.html")], ["serve", "--port", "1"]):  # an internal error before
        r = CliRunner().invoke(zx, ["--store", "memory:", *args])
        assert r.exit_code == 1 and "a memory: store holds nothing between commands" in r.output, r.output
    assert not (tmp_path / "x.html").exists()


def test_the_server_process_draws_the_default_dashboard_at_start_then_freezes_the_heap(built):
    import gc
    import time

    from zx_analytics.stats import Filters

    app = create_app(built.store, analytics=built.analytics, serving=True)
    b = app.state.backend
    try:
        with TestClient(app) as c:
            deadline = time.monotonic() + 120
            while c.get("/api/status").json()["warming"]:
                assert time.monotonic() < deadline, "the server never finished warming"
                time.sleep(0.05)
            key = ("page", tuple(sorted(Filters().params().items())), 30, True, "Metagame")
            drawn = b.peek_cached(key)
            assert drawn is not None and gc.get_freeze_count() > 0
            assert c.get("/dashboard").text == drawn.replace("<!--zx-freshness-->", "")  # the page served is the
            # one drawn at start (its line on the store's freshness filled in at each answer: none, up to date)
    finally:
        gc.unfreeze()


def test_names_from_a_log_are_text_on_every_page_never_markup(tmp_path):
    """A log's names are someone else's text: on the dashboard, the report, the match list and the
    match page they read as written (a deck named ``R&D`` read ``R&amp;D`` in the dashboard's data
    tables, escaped twice) and never become markup."""
    import json

    lines = (Path(__file__).parents[2] / "examples" / "legal" / "first-turns.zxlog").read_text().splitlines()
    header = json.loads(lines[0])
    deck = 'R&D <b>bold</b> "Q" </script><script>alert(1)</script>'
    header["players"]["P1"]["deck_name"] = deck
    header["players"]["P1"]["name"] = "Aki <img src=x onerror=alert(2)>"
    log = tmp_path / "names.zxlog"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    store, analytics = str(tmp_path / "s.sqlite"), tmp_path / "s.duckdb"
    r = CliRunner().invoke(zx, ["--store", store, "import", str(log)], env={"ZX_ANALYTICS": str(analytics)})
    assert r.exit_code == 0, r.output

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.cells: list[str] = []
            self.tags: list[str] = []
            self.scripts = 0

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            self.scripts += tag == "script"

        def handle_data(self, data):
            self.cells.append(data)

    out = tmp_path / "r.html"
    r = CliRunner().invoke(zx, ["--store", store, "report", "--analytics", str(analytics), "-o", str(out),
                                "--min-games", "1"])
    assert r.exit_code == 0, r.output
    with TestClient(create_app(store, analytics=analytics)) as c:
        pages = {"report": out.read_text(encoding="utf-8"), "dashboard": c.get("/dashboard?min_games=1").text,
                 "matches": c.get("/matches").text, "match": c.get(f"/matches/{header['match']}").text}
    for name, html in pages.items():
        p = Text()
        p.feed(html)
        assert "img" not in p.tags and "b" not in p.tags and p.scripts == 0, name
        text = "".join(p.cells)
        assert deck in text, name
        assert "&amp;" not in text and "&lt;" not in text, name


@pytest.mark.parametrize("game,log", [("zx", "legal/first-turns.zxlog"), ("x610z", "x610z/legal/concession.x610zlog")])
def test_a_name_with_characters_xml_cannot_hold_is_drawn_escaped_not_a_crash(tmp_path, game, log):
    """A deck named with a control character (``\\x01``, ESC, form feed, U+FFFE) made the chart
    renderer (vl-convert, Rust) panic and abort the whole process: ``zx report`` exit 134, ``zx serve``
    gone at one GET /dashboard. Run in a process of its own, as a panic would take pytest with it."""
    import json
    import subprocess
    import sys

    root = Path(__file__).parents[2]
    lines = (root / "examples" / log).read_text().splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"]["deck_name"] = "Red\x01Dragons\x1b[31m\x0c\ufffe"
    path = tmp_path / f"ctl.{game}log"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    store, out = str(tmp_path / "s.sqlite"), tmp_path / "r.html"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "ZX_ANALYTICS": str(tmp_path / "s.duckdb")}
    code = "import sys\nfrom zx_cli.main import main\nsys.argv = ['zx', *sys.argv[1:]]\nmain()\n"
    # the import draws no chart: in this process; the report (where vl-convert panicked) in one of its own
    r = CliRunner().invoke(zx, ["--store", store, "import", str(path)], env={"ZX_ANALYTICS": env["ZX_ANALYTICS"]})
    assert r.exit_code == 0, r.output
    args = ["report", "--game", game, "--min-games", "1", "-o", str(out)]
    p = subprocess.run([sys.executable, "-c", code, "--store", store, *args], env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, (args, p.returncode, p.stderr[-800:])
    charts = re.findall(r"<svg .*?</svg>", out.read_text(encoding="utf-8"), flags=re.S)
    assert charts and any("Red\\x01Dragons\\x1b[31m\\x0c\\ufffe" in svg for svg in charts)  # drawn, as its escapes
    assert not any(c in svg for svg in charts for c in "\x01\x1b\x0c\ufffe")  # (the tables keep the text as written)


def _fills(svg: str) -> list[str]:
    return re.findall(r'<path[^>]*aria-roledescription="rect mark"[^>]* fill="([^"]+)"', svg)


def test_matchup_colours_clamp_so_0_and_100_percent_take_the_end_colours():
    """The scale runs 20%-80%; a rate beyond it took a colour extrapolated past the scheme (a 0% and a
    100% cell looked alike, both near black). Beyond it now means the end colour."""
    import polars as pl

    from zx_web.dashboard import matchup_chart

    rates = [0.0, 0.2, 0.8, 1.0]
    df = pl.DataFrame({"deck": ["A", "A", "B", "B"], "opponent": ["C", "D", "C", "D"], "games": [5] * 4,
                       "win_rate": rates, "low_sample": [False] * 4})
    cells = _fills(matchup_chart(df))
    assert len(cells) == 4
    assert cells[0] == cells[1] and cells[2] == cells[3] and cells[0] != cells[3]


def test_life_damage_keeps_each_seats_colour_when_a_bar_is_low_sample():
    """At the default minimum every bar of a small file is low-sample: they were all grey, so the
    first and the second player's bars could not be told apart while the legend showed two colours.
    A low-sample bar is its seat's colour, faded."""
    import polars as pl

    from zx_web import dashboard
    from zx_web.dashboard import BLUE, GREY, RED, life_chart

    FADED = getattr(dashboard, "FADED", 0.35)

    df = pl.DataFrame({"turn": [1, 1, 2, 2], "seat": ["first", "second"] * 2, "games": [3] * 4, "damage": [2, 3, 1, 4],
                       "damage_per_game": [0.67, 1.0, 0.33, 1.33], "ignition_rate": [0.1] * 4,
                       "low_sample": [True, True, False, True]})
    svg = life_chart(df)
    bars = re.findall(r'<path[^>]*aria-roledescription="bar"[^>]*>', svg) or \
        re.findall(r'<path[^>]* fill="#[0-9a-f]{6}"[^>]*>', svg.split('class="mark-rect', 1)[1].split("</g>", 1)[0])
    assert len(bars) == 4
    fills = [re.search(r'fill="(#[0-9a-f]{6})"', b).group(1) for b in bars]
    assert GREY not in fills and sorted(fills) == sorted([BLUE, RED, BLUE, RED])
    faded = [b for b in bars if f'opacity="{FADED}"' in b]
    assert len(faded) == 3


def test_every_page_names_its_icon_inline_so_no_favicon_request_fails(built, client, report, tmp_path):
    """Each served page made the browser ask for /favicon.ico, a 404 in its console: every page (and a
    zx view file, and a zx report file) names a small icon as a data: URL, which its policy allows."""
    from urllib.parse import unquote

    match = client.get("/api/matches?limit=1").json()["matches"][0]["match"]
    pages = {p: client.get(p, headers={"accept": "text/html"}) for p in
             ("/matches", f"/matches/{match}", f"/matches/{match}/replay?as=P1", "/dashboard", "/about", "/nowhere")}
    view = tmp_path / "v.html"
    r = CliRunner().invoke(zx, ["--store", built.store, "view", match, "-o", str(view)])
    assert r.exit_code == 0, r.output
    texts = {**{p: r.text for p, r in pages.items()}, "view": view.read_text(), "report": report}
    served = client.get("/favicon.ico").text
    for name, text in texts.items():
        icon = re.search(r'<link rel="icon" href="data:image/svg\+xml,([^"]+)">', text)
        assert icon, name
        assert unquote(icon.group(1)) == served, name  # one icon (zx_web/static/icon.svg), the same everywhere
        policy = pages[name].headers["content-security-policy"] if name in pages else ""
        meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
        for p in filter(None, (policy, meta and meta.group(1))):
            if "default-src 'none'" in p and "frame-ancestors 'none'" != p.strip():
                assert re.search(r"img-src [^;]*data:", p), (name, p)


def test_favicon_ico_is_the_pages_icon_read_only_and_cached(client):
    """A JSON answer opened in a browser (/api/status, linked from the error messages) names no icon, so the
    browser asked for /favicon.ico: a 404 in its console. It is the pages' own icon, as an SVG."""
    from urllib.parse import unquote

    inline = re.search(r'<link rel="icon" href="data:image/svg\+xml,([^"]+)">', client.get("/matches").text).group(1)
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.text == unquote(inline)  # the same icon as every page names inline
    assert r.headers["cache-control"] == "public, max-age=86400" and r.headers["x-content-type-options"] == "nosniff"
    head = client.head("/favicon.ico")
    assert head.status_code == 200 and head.content == b"" and head.headers["content-length"] == str(len(r.content))
    assert client.post("/favicon.ico").status_code == 405  # read-only
    assert client.get("/favicon.ico?size=32").status_code == 400  # a parameter it does not take
    assert "/favicon.ico" not in client.get("/api/openapi.json").json()["paths"]


def contrast(fg: str, bg: str = "#ffffff") -> float:
    """WCAG 2 contrast ratio of two #rrggbb (or #rgb) colours."""
    def lum(c: str) -> float:
        c = c.lstrip("#")
        c = "".join(x * 2 for x in c) if len(c) == 3 else c
        v = [int(c[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        v = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in v]
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]

    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_a_low_sample_label_of_the_attack_chart_reaches_4_5_to_1_on_white(client):
    """A label resting on fewer than the minimum games was #888 on the chart's white, 3.5:1: under WCAG AA's
    4.5:1 for its 11 px text. It is #595959, as its table row (7:1)."""
    html = client.get("/dashboard", params={"min_games": 10_000}).text
    svg = html.split('data-chart="attacks"')[1].split("</svg>")[0]
    labels = svg.split('class="mark-text role-mark', 1)[1].split("</g>", 1)[0]
    fills = set(re.findall(r'fill="(#[0-9a-f]{3,6})"', labels))
    assert fills and all(contrast(f) >= 4.5 for f in fills), fills


def test_a_100000_character_deck_name_is_cut_in_the_charts_and_kept_whole_in_the_data(tmp_path):
    """A header line may hold 1,000,000 characters. One deck named with 30,000 made every chart that
    shows it take vl-convert a minute (its label layout is quadratic in the text, and holds the GIL:
    zx serve answered nothing meanwhile): zx report took 74 s instead of 6, 100,000 characters more
    than 300 s. A chart shows a name cut to 60 characters; the tables and the JSON keep it whole."""
    import json
    import time

    from zx_web.dashboard import LABEL_MAX, LEGEND_MAX

    root = Path(__file__).parents[2] / "examples" / "legal"
    long_name = "Deep " + "D" * 100_000
    stores = {}
    for kind in ("plain", "long"):
        folder = tmp_path / kind
        folder.mkdir()
        for src in ("first-turns.zxlog", "long-game-reload-win-by-life.zxlog", "range-attacks-win-by-life.zxlog"):
            lines = (root / src).read_text().splitlines()
            header = json.loads(lines[0])
            if kind == "long" and src.startswith("long-game"):
                header["players"]["P2"]["deck_name"] = long_name
            (folder / src).write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
        store, analytics = str(folder / "s.sqlite"), folder / "s.duckdb"
        r = CliRunner().invoke(zx, ["--store", store, "import", *map(str, sorted(folder.glob("*.zxlog")))],
                               env={"ZX_ANALYTICS": str(analytics)})
        assert r.exit_code == 0, r.output
        stores[kind] = (store, analytics)

    def report(kind: str) -> tuple[float, str]:
        store, analytics = stores[kind]
        out = tmp_path / f"{kind}.html"
        start = time.monotonic()
        r = CliRunner().invoke(zx, ["--store", store, "report", "--analytics", str(analytics), "-o", str(out),
                                    "--min-games", "1", "--force"])
        assert r.exit_code == 0, r.output
        return time.monotonic() - start, out.read_text(encoding="utf-8")

    import vl_convert as vlc

    # (vl-convert's first chart starts its engine: a chart of one point starts it, as a whole report did)
    vlc.vegalite_to_svg({"data": {"values": [{"a": 1}]}, "mark": "point",
                         "encoding": {"x": {"field": "a", "type": "quantitative"}}})
    plain, _ = report("plain")
    took, html = report("long")
    assert took < 3 * plain + 2, (took, plain)
    with TestClient(create_app(stores["long"][0], analytics=stores["long"][1])) as c:
        start = time.monotonic()
        page = c.get("/dashboard", params={"min_games": 1})
        served = time.monotonic() - start
        rows = c.get("/api/stats/winrates", params={"by": "deck", "min_games": 1}).json()["rows"]
    assert page.status_code == 200 and served < 3 * plain + 2, (served, plain)
    assert long_name in [r["deck"] for r in rows]  # the data keeps the name whole
    for name, doc in (("report", html), ("dashboard", page.text)):
        charts = parse(doc)
        for section in ("share", "trend", "winrates", "matchups"):  # (the renderer may cut it shorter still)
            cut = [t for t in charts.texts[section] if t.startswith("Deep D")]
            most = LEGEND_MAX if section == "trend" else LABEL_MAX  # (the trend's legend: 60, docs/serve.md)
            assert cut and all(len(t) <= most and t.endswith("…") for t in cut), (name, section, cut)
        assert not any("D" * LEGEND_MAX in svg for svg in re.findall(r"<svg .*?</svg>", doc, flags=re.S)), name
        assert long_name in re.sub(r"<svg .*?</svg>", "", doc, flags=re.S), name  # the tables: whole


def test_deck_share_counts_every_seat_and_the_sides_without_a_deck_name(tmp_path):
    """The dashboard's deck share left out the sides without a deck name, from its rows and from the
    field it divides by: with 1 such side of 6, each deck's share was out of 5 ("Share of all seats",
    said the note), and the next section (zx stats meta) counted 6. They are one row, ``(no name)``,
    as in every statistic by deck."""
    import html as html_text
    import json

    root = Path(__file__).parents[2] / "examples" / "legal"
    for i, src in enumerate(("first-turns.zxlog", "long-game-reload-win-by-life.zxlog", "range-attacks-win-by-life.zxlog")):
        lines = (root / src).read_text().splitlines()
        header = json.loads(lines[0])
        if i == 0:
            header["players"]["P2"].pop("deck_name")
        (tmp_path / src).write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    store, analytics = str(tmp_path / "s.sqlite"), tmp_path / "s.duckdb"
    env = {"ZX_ANALYTICS": str(analytics)}
    r = CliRunner().invoke(zx, ["--store", store, "import", *map(str, sorted(tmp_path.glob("*.zxlog")))], env=env)
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["--store", store, "sql", "--format", "json",
                                "SELECT coalesce(deck, '(no name)') AS deck, count(*) AS seats FROM seats GROUP BY ALL"],
                           env=env)
    expected = {row["deck"]: row["seats"] for row in json.loads(r.stdout)}
    assert expected["(no name)"] == 1 and sum(expected.values()) == 6
    r = CliRunner().invoke(zx, ["--store", store, "report", "-o", str(tmp_path / "meta.html"), "--min-games", "1"],
                           env=env)
    assert r.exit_code == 0, r.output
    page = (tmp_path / "meta.html").read_text()
    at = page.index("<h2>Deck share</h2>")
    body = page[at:page.index("</table>", at)].split("</thead>")[1]
    rows = [[html_text.unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]
    shown = {row[0]: (int(row[1]), row[4]) for row in rows}  # deck, seats, matches, all seats, share, ...
    assert shown == {deck: (n, pct(n / 6)) for deck, n in expected.items()}


def test_every_matchup_cell_label_reaches_4_5_to_1_on_its_cell():
    """The matchup cells took the "redblue" scheme, white text on its dark ends and dark text elsewhere: a
    cell near a 32% or 68% win rate was under WCAG AA's 4.5:1 with either (about 3.5 and 4.2). Each cell's
    label, low sample or not, is now measured against the cell as drawn (its opacity over the white)."""
    import re

    import polars as pl

    from zx_web.dashboard import matchup_chart

    rates = [i / 40 for i in range(41)]
    df = pl.DataFrame({"deck": [f"d{i:02d}" for i in range(len(rates))], "opponent": ["o"] * len(rates),
                       "games": [40] * len(rates), "wins": [round(r * 40) for r in rates], "win_rate": rates,
                       "low_sample": [i % 5 == 0 for i in range(len(rates))]})
    svg = matchup_chart(df)
    cells = {m["key"]: (tuple(int(x) for x in m["rgb"].split(",")), float(m["op"])) for m in re.finditer(
        r'<path aria-label="(?P<key>[^"]*); win_rate: [^"]*"[^>]*fill="rgb\((?P<rgb>[\d, ]+)\)"[^>]*opacity="(?P<op>[\d.]+)"',
        svg)}
    labels = {m["key"]: m["fill"] for m in re.finditer(
        r'<text aria-label="(?P<key>[^"]*); label: [^"]*"[^>]*fill="(?P<fill>[^"]+)"', svg)}
    assert len(cells) == len(labels) == len(rates)
    for key, (rgb, opacity) in cells.items():
        drawn = "#" + "".join(f"{round(c * opacity + 255 * (1 - opacity)):02x}" for c in rgb)  # over the white
        fill = {"white": "#ffffff", "black": "#000000"}.get(labels[key], labels[key])
        assert contrast(fill, drawn) >= 4.5, (key, drawn, fill, contrast(fill, drawn))


def test_deck_share_with_a_deck_filter_is_the_decks_share_of_the_whole_field(client):
    """/dashboard?deck=D (and zx report --deck) showed D's Deck share as 100%: the field was counted under the deck
    filter too. The share is that of all seats under the date, event, seat and game filters (as
    /api/stats/meta and archetypes count the field), with its Wilson interval."""
    from zx_analytics.wilson import wilson_interval

    whole = {r["deck"]: r for r in client.get("/api/stats/winrates", params={"min_games": 1}).json()["rows"]}
    deck = max(whole, key=lambda d: whole[d]["games"])
    field = client.get("/api/stats/archetypes", params={"deck": deck}).json()["rows"]
    seats, all_seats = sum(r["seats"] for r in field), field[0]["field"]
    assert 0 < seats < all_seats
    labels = parse(client.get("/dashboard", params={"deck": deck}).text).texts["share"]
    low, high = wilson_interval(seats, all_seats)
    assert f"{pct(seats / all_seats)} [{pct(low, 0)}–{pct(high, 0)}] n={seats}" in labels, labels
    page = client.get("/dashboard", params={"deck": deck}).text
    table = page[page.index("<h2>Deck share</h2>"):]
    table = re.sub(r"<[^>]+>", " ", table[table.index("<table"):table.index("</table>")])
    row = " ".join(table.split()).split(f"{deck} ", 1)[1].split()
    assert row[:6] == [str(seats), row[1], str(all_seats), pct(seats / all_seats), f"{pct(low)}–{pct(high)}",
                       row[5]], (seats, all_seats, low, high, table)


def test_dashboards_drawn_for_many_clients_at_once_never_hold_the_status_endpoint(built):
    """Twelve clients asking at once for dashboards the server has not drawn (min_games 101, 102, ...):
    they are drawn one at a time (``zx_web.app.DASHBOARDS_AT_ONCE``) in threads of their own, the others
    waiting their turn in the event loop, so ``/api/status``, the match list and a view are answered
    meanwhile, and the first dashboard soon. Drawn in the worker threads every endpoint shares, where
    vl-convert holds the GIL while it draws a chart, they took all of them and ``/api/status`` waited 14 s
    (16 dashboards). A real ``zx serve``."""
    import os
    import socket
    import subprocess
    import sys
    import threading
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", "from zx_cli.main import main; main()", "--store", built.store,
                             "serve", "--port", str(port), "--analytics", str(built.analytics)],
                            env={**os.environ, "PYTHONPATH": str(root)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    answers: list[tuple[int, str]] = []
    clients: list[threading.Thread] = []

    def dashboard(n: int) -> None:
        try:
            r = drawing.get(f"{url}/dashboard", params={"min_games": 100 + n})
            answers.append((r.status_code, r.text))
        except httpx.HTTPError:  # the server was stopped before its turn came
            pass

    drawing = httpx.Client(timeout=120)  # (shared by the twelve clients' threads: a connection each)
    polling = httpx.Client(timeout=5)  # (one client: a new one costs ~45 ms of CPU, polled 20 times a second)
    try:
        deadline = time.monotonic() + 60
        while True:  # up, and done drawing its start-up dashboard
            try:
                if not polling.get(f"{url}/api/status").json()["warming"]:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "zx serve did not start"
            time.sleep(0.05)
        clients += [threading.Thread(target=dashboard, args=(n,), daemon=True) for n in range(1, 13)]
        for t in clients:
            t.start()
        time.sleep(0.3)  # every request has arrived
        cheap = ["/api/status", "/api/matches?limit=5", f"/api/matches/{built.matches[0]}/view?at=5&as=P1"] * 2
        for path in cheap:  # a generous bound: /api/status waited for the first dashboards drawn side by side
            try:
                answer = polling.get(url + path, timeout=4)
            except httpx.TimeoutException:
                pytest.fail(f"{path} was not answered within 4 s while dashboards were being drawn")
            assert answer.status_code == 200, (path, answer.text)
            time.sleep(0.2)
        while not answers:
            assert time.monotonic() < deadline + 60, "no dashboard was answered"
            time.sleep(0.05)
        assert answers[0][0] == 200 and 'data-chart="share"' in answers[0][1]
    finally:
        polling.close()
        proc.kill()
        proc.wait()
    for t in clients:
        t.join(timeout=10)
    drawing.close()


def test_dashboards_not_drawn_before_are_drawn_one_at_a_time_and_every_one_is_answered(client, monkeypatch):
    """Eight clients asking at once for dashboards the server has not drawn: at most ``DASHBOARDS_AT_ONCE``
    are drawn together (the others wait their turn), every one is answered, and one drawn before is
    answered as it was drawn. (Their sections are left out: drawn, eight take seconds.)"""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from zx_web import dashboard
    from zx_web.app import DASHBOARDS_AT_ONCE

    backend = client.app.state.backend
    assert backend.dashboard_limiter.total_tokens == DASHBOARDS_AT_ONCE
    lock = threading.Lock()
    running, most = [0], [0]

    def counted(source, filters, min_games):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            time.sleep(0.05)  # long enough for every request to have arrived
            return dashboard.Dashboard({}, min_games, {"matches": 0}, game="zx", game_name="Z/X")
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(dashboard, "build", counted)
    first = client.get("/dashboard", params={"min_games": 7})
    assert first.status_code == 200
    with ThreadPoolExecutor(8) as pool:  # min_games 7 (drawn before), 201, 202, ...
        answers = list(pool.map(lambda n: client.get("/dashboard", params={"min_games": n}),
                                [7, *range(201, 208)]))
    assert [a.status_code for a in answers] == [200] * 8
    assert answers[0].text == first.text and most[0] == DASHBOARDS_AT_ONCE


@pytest.mark.parametrize("what", ["dashboards", "statistics", "views"])
def test_requests_past_the_most_that_may_wait_their_turn_are_answered_503_with_retry_after(client, built, monkeypatch,
                                                                                         what):
    """Uncached dashboards (statistics) are computed a few at a time and the others wait their turn in the event
    loop; that queue had no bound: one client's thousand dashboards of distinct filters (0.1-0.4 s each) kept
    every later request waiting for minutes. Past ``MOST_WAITING`` waiting, a request is answered 503 at once,
    with Retry-After and what to do (as HTML for a browser, JSON for the API); once the queue drains, the same
    request is answered. A view asked with a plain query (``?at=N&as=P1``: zx_web.answers answers it) was refused
    without Retry-After."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from zx_web import api, dashboard
    from zx_web.backend import BUSY_RETRY_SECONDS, MOST_WAITING

    backend = client.app.state.backend
    limiter = {"dashboards": backend.dashboard_limiter, "statistics": backend.stats_limiter,
               "views": backend.view_limiter}[what]
    most = MOST_WAITING[what] + limiter.total_tokens  # drawn at once and waiting: answered
    gate = threading.Event()
    if what == "views":  # (each computed as an empty view once let through: only the queue is tested)
        monkeypatch.setattr(backend, "view_json", lambda *a, **k: (gate.wait(10), b"{}")[1])
        m = built.matches[0]
        ask = lambda n: client.get(f"/api/matches/{m}/view?at={300 + n}&as=P1")  # noqa: E731
    elif what == "dashboards":
        real, drawn = dashboard.build, []  # (each drawn once, then the same: 2-3 s a dashboard on a slow machine)
        monkeypatch.setattr(dashboard, "build", lambda *a, **k: (gate.wait(10), drawn or drawn.append(real(*a, **k)),
                                                                 drawn[0])[2])
        ask = lambda n: client.get("/dashboard", params={"min_games": 300 + n}, headers={"accept": "text/html"})  # noqa: E731
    else:
        real = api.stats_json
        monkeypatch.setattr(api, "stats_json", lambda *a, **k: (gate.wait(10), real(*a, **k))[1])
        ask = lambda n: client.get("/api/stats/winrates", params={"min_games": 300 + n})  # noqa: E731
    first = 0 if what == "dashboards" else 100  # min_games no dashboard asked (a dashboard computes its statistics)
    with ThreadPoolExecutor(most + 4) as pool:
        futures = [pool.submit(ask, first + n) for n in range(most + 4)]
        deadline = time.monotonic() + 10
        while sum(f.done() for f in futures) < 4 and time.monotonic() < deadline:  # the four past the most
            time.sleep(0.01)
        gate.set()
        answers = [f.result() for f in futures]
    busy = [a for a in answers if a.status_code == 503]
    assert len(busy) == 4 and sum(a.status_code == 200 for a in answers) == most, [a.status_code for a in answers]
    for a in busy:
        assert a.headers["retry-after"] == str(BUSY_RETRY_SECONDS)
        assert f"the server is busy: {MOST_WAITING[what]} requests for {what}" in a.text
        assert a.headers["content-type"].startswith("text/html" if what == "dashboards" else "application/json")
    asked = busy[0].request.url.params
    again = ask(int(asked["at"] if what == "views" else asked["min_games"]) - 300)
    assert again.status_code == 200


def test_an_empty_store_says_it_has_no_matches_yet_and_what_to_run(tmp_path):
    """With no match imported, /matches said "No match fits these filters." and each dashboard section "no matches
    for these filters", though no filter was set, and /dashboard?game=x610z was a bare 400 page without the form.
    They say the store has no matches yet and what to run; the filters' words stay for filters that match nothing."""
    from zx_analytics.projection import update
    from zx_events.application import MatchService

    store = str(tmp_path / "events.sqlite")
    svc = MatchService(store)
    try:
        update(svc, tmp_path / "analytics.duckdb", rebuild=True)
    finally:
        svc.close()
    html = {"accept": "text/html"}
    with TestClient(create_app(store, analytics=tmp_path / "analytics.duckdb")) as c:
        page = c.get("/matches", headers=html)
        assert page.status_code == 200 and "The store has no matches yet" in page.text
        assert "zx import LOGS" in page.text and "No match fits" not in page.text
        for path, name in (("/dashboard", "Z/X -Zillions of enemy X-"), ("/dashboard?game=x610z", "X610Z")):
            page = c.get(path, headers=html)
            assert page.status_code == 200, (path, page.text[:300])
            assert f"The store has no {name} matches yet" in page.text, path
            assert "`zx import LOGS`, then run `zx analytics update`" in page.text, path
            assert 'id="dash-filters"' in page.text and "for these filters" not in page.text, path


def test_zx_serve_and_report_advise_the_store_they_were_given(tmp_path):
    """Their advice ran as written on the default store: the empty-store pages' `zx import LOGS` (zx serve's
    /matches and dashboard, the page zx report writes); and a running server's advice to rebuild its analytics
    (another schema version, another store's) did not say to stop it first, which holds the file."""
    import duckdb

    from zx_analytics.db import SCHEMA_VERSION
    from zx_analytics.projection import update
    from zx_web.app import open_backend
    from zx_events.application import MatchService

    store = tmp_path / "league" / "events.sqlite"
    store.parent.mkdir()
    svc = MatchService(str(store))
    try:
        update(svc, store.with_suffix(".duckdb"), rebuild=True)
    finally:
        svc.close()
    r = CliRunner().invoke(zx, ["--store", str(store), "report", "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    assert f"`zx --store {store} import LOGS`, then run `zx --store {store} analytics update`" in \
        (tmp_path / "r.html").read_text(encoding="utf-8")
    backend = open_backend(str(store), store.with_suffix(".duckdb"))
    backend.advised = lambda text: text.replace("`zx ", f"`zx --store {store} ")  # (zx serve: zx_cli.common.with_store)
    with TestClient(create_app(backend, serving=True)) as c:
        page = c.get("/matches", headers={"accept": "text/html"}).text
        assert f"`zx --store {store} import LOGS` (then `zx --store {store} analytics update`" in page
    backend.close()
    con = duckdb.connect(str(store.with_suffix(".duckdb")))
    con.execute("UPDATE projection_position SET schema_version = ?", [SCHEMA_VERSION - 1])
    con.close()
    backend = open_backend(str(store), store.with_suffix(".duckdb"))
    with TestClient(create_app(backend, serving=True)) as c:
        error = c.get("/api/stats/winrates").json()["error"]
    backend.close()
    assert error.endswith("run `zx analytics update --rebuild` (stop this server first: it holds the file open as "
                          "long as it runs; then start it again)"), error


def test_filters_that_match_nothing_say_so(client):
    """(the words an empty store no longer borrows)"""
    html = {"accept": "text/html"}
    assert "No match fits these filters." in client.get("/matches?player=Nobody%20At%20All", headers=html).text
    page = client.get("/dashboard?until=1990-01-01", headers=html)
    assert page.status_code == 200 and "no matches for these filters" in page.text and "no matches yet" not in page.text


def test_deck_share_draws_each_decks_wilson_interval_and_writes_it_as_the_win_rate_charts_do(client):
    """The section said "with its Wilson 95% interval", but the chart drew a bar and "20.7% · n=62" only. Each deck
    has an error bar from share_low to share_high across its bar, and its label reads "20.7% [16%–26%] n=62"."""
    page = client.get("/dashboard").text
    table = page[page.index('id="share"'):page.index('id="trend"')]
    rows = [[" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
            for r in re.findall(r"<tr class=\"[^\"]*\">(.*?)</tr>", table)]
    assert len(rows) >= 5
    svg = table[table.index("<svg"):table.index("</svg>")]
    labels = set(parse(page).texts["share"])
    bars = re.findall(r'<line[^>]*aria-roledescription="errorbar"[^>]*>', svg)
    assert len(bars) == len(rows)
    for deck, seats, _, _, share, interval, _ in rows:  # (the table's interval: "16.4%–24.2%")
        (bar,) = [b for b in bars if f"deck: {deck};" in b]
        drawn = {k: float(v) for k, v in re.findall(r"(share_low|share_high): ([\d.]+)", bar)}
        low, high = drawn["share_low"], drawn["share_high"]
        assert f"{share} [{pct(low, 0)}–{pct(high, 0)}] n={seats}" in labels, (deck, labels)
        assert interval == f"{pct(low)}–{pct(high)}", (deck, bar)
        assert float(re.search(r' x2="([\d.]+)"', bar).group(1)) > 0 and low < float(share.rstrip("%")) / 100 < high


def trend_frame(decks: list[str], weeks: int = 4):
    import polars as pl

    return pl.DataFrame([{"week": f"2026-W{w:02d}", "deck": d, "share": (i + w) / 40}
                         for w in range(1, weeks + 1) for i, d in enumerate(decks)])


def legend_entries(svg: str) -> list[tuple[str, str, str]]:
    """(label, symbol's shape, symbol's fill) of each entry of a chart's legends."""
    return [(label, d, fill) for d, fill, label in re.findall(
        r'role-legend-symbol"[^>]*><path[^>]* d="([^"]+)"[^>]* fill="([^"]+)".*?role-legend-label"[^>]*><text[^>]*>([^<]*)<',
        svg)]


def test_the_weekly_trend_tells_its_decks_apart_by_shape_as_well_as_colour_in_one_legend():
    """The decks' lines were told apart by colour alone (WCAG 1.4.1), every point a circle. Each deck's points
    have a shape of their own too (up to 11 decks), and the one legend shows each deck's shape in its colour."""
    from zx_web.dashboard import trend_chart

    decks = [f"Deck {c}" for c in "ABCDEFGHIJ"]
    svg = trend_chart(trend_frame(decks))
    entries = legend_entries(svg)
    assert [label for label, _, _ in entries] == decks and svg.count(">deck</text>") == 1  # one legend
    assert len({d for _, d, _ in entries}) == len(decks) and len({f for _, _, f in entries}) == len(decks)
    points = svg[svg.index('class="mark-symbol role-mark'):]
    points = points[:points.index("</g>")]
    assert len({d for d in re.findall(r' d="([^"]+)"', points)}) == len(decks)


# Machado, Oliveira & Fernandes (2009), severity 1: linear RGB as a dichromat sees it
DICHROMATS = {"deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                               (-0.011820, 0.042940, 0.968881)),
              "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                             (-0.003882, -0.048116, 1.051998))}


def lab_seen(colour: str, matrix=None) -> tuple[float, float, float]:
    """CIELAB of ``colour`` (#rrggbb), as a dichromat of ``matrix`` sees it."""
    lin = [(lambda v: v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)(int(colour[i:i + 2], 16) / 255)
           for i in (1, 3, 5)]
    if matrix:
        lin = [min(1.0, max(0.0, sum(m * c for m, c in zip(row, lin)))) for row in matrix]
    r, g, b = lin
    xyz = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, \
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def test_no_two_decks_of_the_weekly_trend_look_alike_to_a_deuteranope_or_a_protanope():
    """tableau10's green and red lines (#54a24b, #e45756) were 1.7 apart (CIE76) for a deuteranope, its grey and
    pink 1.8 for a protanope. The ten colours of the trend's decks are at least 10 apart for both, and for anyone."""
    from itertools import combinations

    from zx_web.dashboard import trend_chart

    svg = trend_chart(trend_frame([f"Deck {c}" for c in "ABCDEFGHIJ"]))
    lines = svg[svg.index('class="mark-line role-mark'):]
    colours = set(re.findall(r'stroke="(#[0-9a-f]{6})"', lines[:lines.index('class="mark-symbol')]))
    assert len(colours) == 10
    for matrix in (None, *DICHROMATS.values()):
        for a, b in combinations(sorted(colours), 2):
            gap = sum((x - y) ** 2 for x, y in zip(lab_seen(a, matrix), lab_seen(b, matrix))) ** 0.5
            assert gap >= 10, (a, b, gap)


def test_every_line_colour_of_the_weekly_trend_has_3_to_1_contrast_on_the_white_page_wcag_1_4_11():
    """Paul Tol's muted teal, cyan and sand lines were 2.8, 1.8 and 1.6:1 against the page's white: under the 3:1
    WCAG 1.4.11 asks of a graphic's parts. Every colour a line of the trend is drawn in has 3:1 at the least."""
    from zx_web.dashboard import trend_chart

    def luminance(colour: str) -> float:
        lin = [(lambda v: v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)(int(colour[i:i + 2], 16) / 255)
               for i in (1, 3, 5)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    svg = trend_chart(trend_frame([f"Deck {c}" for c in "ABCDEFGHIJKL"]))
    lines = svg[svg.index('class="mark-line role-mark'):]
    colours = set(re.findall(r'stroke="(#[0-9a-f]{6})"', lines[:lines.index('class="mark-symbol')]))
    assert len(colours) == 10
    for colour in colours:
        assert (1.0 + 0.05) / (luminance(colour) + 0.05) >= 3.0, colour


def test_the_weekly_trend_legend_shows_60_character_names_whole_in_columns_within_the_box():
    """Ten ordinary deck names made a one-row legend 1532 px wide in a 1118 px box, and names of 45 characters
    were cut to about 25. The legend lays its names out in as many columns as fit the box, each name of up to
    60 characters whole."""
    from zx_web.dashboard import CHART_BOX, trend_chart

    for decks in ([f"{c} Equipment Midrange {n}" for n, c in zip(range(10), "ABCDEFGHIJ")],  # 22 characters
                  [(f"{c} Crimson Drake Emperor Aggro Regional Top 8 List Number" + "x" * 60)[:60] for c in "ABCDE"]):
        svg = trend_chart(trend_frame(decks))
        assert [label for label, _, _ in legend_entries(svg)] == decks
        assert float(re.search(r'<svg[^>]* width="([\d.]+)"', svg).group(1)) <= CHART_BOX


def test_the_life_damage_legend_title_says_whole_whose_damage_it_is():
    """The legend's title was cut: "damage taken by the playe…" (legends cut a title at 180 px)."""
    import polars as pl

    from zx_web.dashboard import life_chart

    df = pl.DataFrame({"turn": [1, 1], "seat": ["first", "second"], "games": [3, 3], "damage": [2, 3],
                       "damage_per_game": [0.67, 1.0], "ignition_rate": [0.1, 0.1], "low_sample": [False, False]})
    assert ">damage taken by the player going</text>" in life_chart(df)


def test_every_table_header_cell_names_its_column_for_a_screen_reader(client, report):
    """No <th> said what it heads (scope): every one of the served pages' and the report's tables is scope="col"."""
    from serve_support import VIOLATION_MATCH

    pages = {p: client.get(p).text for p in ("/matches", f"/matches/{VIOLATION_MATCH}", "/about", "/dashboard")}
    pages["report"] = report
    for name, html in pages.items():
        cells = re.findall(r"<th\b[^>]*>", html)
        assert cells and all('scope="col"' in c for c in cells), (name, [c for c in cells if "scope" not in c][:3])


def test_a_filter_the_dashboard_refuses_is_its_own_page_with_the_form_the_reason_and_a_link_back(client):
    """From after To (``since=2026-05-01&until=2026-01-01``) answered a bare error page (or JSON) linking to the
    matches, as did a date that is none and a minimum of games under 1, where an unknown name gets the
    dashboard's own page (docs/serve.md): its form with what was asked, the reason, a link back without
    filters. The JSON API keeps its JSON error."""
    html = {"accept": "text/html"}
    cases = (({"since": "2026-05-01", "until": "2026-01-01"}, "since 2026-05-01 is after until 2026-01-01"),
             ({"since": "someday"}, "since: &#39;someday&#39; is not a date (YYYY-MM-DD)"),
             ({"min_games": "0"}, "min_games"))
    for params, reason in cases:
        r = client.get("/dashboard", params={"game": "zx", **params}, headers=html)
        assert r.status_code == 400, (params, r.text[:300])
        assert 'id="dash-filters"' in r.text and 'id="back-dashboard"' in r.text, params
        message = re.search(r'id="error-message">([^<]+)<', r.text)
        assert message and reason in message.group(1), (params, r.text[:500])
        assert "data-chart" not in r.text
    r = client.get("/dashboard", params={"since": "2026-05-01", "until": "2026-01-01"}, headers=html)
    assert 'name="since" value="2026-05-01"' in r.text and 'name="until" value="2026-01-01"' in r.text
    api = client.get("/api/stats/winrates", params={"since": "2026-05-01", "until": "2026-01-01"}, headers=html)
    assert api.status_code == 400 and api.json()["error"] == "since 2026-05-01 is after until 2026-01-01"


def test_a_name_asked_of_a_game_the_store_has_no_matches_of_says_so_in_a_sentence(client):
    """``/dashboard?game=x610z&deck=Red+Dragons`` on a store of Z/X matches said "no deck named 'Red Dragons' in
    the X610Z matches; the X610Z matches has no matches yet"."""
    assert "x610z" not in {r["game"] for r in client.get("/api/matches?limit=500").json()["matches"]}
    r = client.get("/dashboard", params={"game": "x610z", "deck": "Red Dragons"}, headers={"accept": "text/html"})
    message = re.search(r'id="error-message">([^<]+)<', r.text).group(1)
    assert r.status_code == 400 and 'id="dash-filters"' in r.text
    assert message == "no deck named &#39;Red Dragons&#39; in the X610Z matches; the store has no X610Z matches yet"
