"""The dashboard and ``zx report`` with names of wide text: emoji, emoji ZWJ sequences (a family), flags, CJK.

The QA report: a deck named with 25 emoji made ``zx report`` fail ("internal error: ValueError: Vega-Lite to SVG
conversion failed ... unexpected end of hex escape") and ``zx serve``'s /dashboard answer 500 for every filter.
Vega cut the long label (a legend's limit is 160 px, an axis's 280) by UTF-16 code units, leaving half a
surrogate pair that vl-convert could not read. Now every name is cut by ``zx_web.dashboard.short`` (by grapheme
cluster, to ``LABEL_MAX`` terminal cells) and Vega cuts none (docs/serve.md, "Metagame").
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from wcwidth import iter_graphemes, wcswidth

from zx_cli.main import zx
from zx_web.app import create_app
from zx_web.dashboard import LABEL_MAX, LEGEND_MAX

ROOT = Path(__file__).resolve().parents[2]
LOGS = ("first-turns.zxlog", "long-game-reload-win-by-life.zxlog", "range-attacks-win-by-life.zxlog")
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man, woman, girl, boy: one grapheme
DECKS = {  # (log, seat): deck name
    (0, "P1"): "\U0001f525" * 25,  # the report's: 25 emoji
    (0, "P2"): "Famille " + FAMILY * 20,
    (1, "P1"): "\U0001f1ef\U0001f1f5" * 30,  # flags
    (1, "P2"): "「紅蓮の竜騎士\U0001f525\U0001f525」" * 5,  # the report's other
    (2, "P1"): "紅蓮" * 40,
    (2, "P2"): ("Ab\U0001f1eb\U0001f1f7" + FAMILY + "紅") * 10,
}
CHARTS = ("share", "trend", "winrates", "matchups", "first", "attacks", "life", "cards")


def card_name(code: str) -> str:
    """A long name of wide text for every card of the catalog (the per-card chart shows them)."""
    names = ["\U0001f409" * 30, "\U0001f1eb\U0001f1f7" * 25, FAMILY * 25, "竜騎士" * 15]
    return f"{code} " + names[sum(map(ord, code)) % 4]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, set[str]]:
    """A store of three example matches whose six decks and every card are named with wide text."""
    tmp = tmp_path_factory.mktemp("wide")
    rows = list(csv.DictReader(io.StringIO((ROOT / "zx_events/games/zx/catalogs/sample.csv").read_text("utf-8"))))
    names = set(DECKS.values())
    for row in rows:
        row["name"] = card_name(row["code"])
        names.add(f"{row['code']} {row['name']}")
    with open(tmp / "wide.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    logs = []
    for k, src in enumerate(LOGS):
        lines = (ROOT / "examples" / "legal" / src).read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        header["catalog"] = "wide"
        for seat in ("P1", "P2"):
            header["players"][seat]["deck_name"] = DECKS[k, seat]
        logs.append(tmp / src)
        logs[-1].write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    store, analytics = str(tmp / "s.sqlite"), tmp / "s.duckdb"
    r = CliRunner().invoke(zx, ["--store", store, "import", "--catalog", str(tmp / "wide.csv"), *map(str, logs)],
                           env={"ZX_ANALYTICS": str(analytics)})
    assert r.exit_code == 0, r.output
    return store, analytics, names


def chart_texts(html: str) -> dict[str, list[str]]:
    """The text of each chart's <text> elements, by section (``data-chart``)."""
    import html as h

    out = {}
    for key, body in re.findall(r'<div class="chart" data-chart="([a-z]+)">(.*?)</div>', html, flags=re.S):
        assert body.startswith("<svg") and body.count("<svg") == 1 and "chart-failed" not in body, (key, body[:300])
        out[key] = [h.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", body)]
    return out


def assert_cut_at_graphemes(texts: dict[str, list[str]], names: set[str]) -> None:
    """Every chart draws; each name it shows is whole, or cut at a grapheme cluster's end to at most LABEL_MAX
    terminal cells (the trend's legend LEGEND_MAX), then "…"; the long ones are cut in every chart that names decks or cards."""
    assert set(texts) == set(CHARTS), texts.keys()
    cut_in = set()
    for section, found in texts.items():
        most = LEGEND_MAX if section == "trend" else LABEL_MAX  # (the trend's legend shows 60 cells, docs/serve.md)
        for t in found:
            if t in names:
                assert wcswidth(t) <= most, (section, t)
                continue
            if not t.endswith("…") or t[:-1].isascii():
                continue  # (a figure, an axis's tick, a legend's title: the life chart's is cut)
            head = t[:-1]
            full = [n for n in names if n.startswith(head)]
            assert full, (section, t)
            ends = {0}
            for g in iter_graphemes(full[0]):
                ends.add(max(ends) + len(g))
            assert len(head) in ends, (section, t, full[0][len(head) - 2:len(head) + 2])
            assert wcswidth(t) <= most, (section, t, wcswidth(t))
            cut_in.add(section)
    assert {"share", "trend", "winrates", "matchups", "cards"} <= cut_in, cut_in


def test_names_of_emoji_flags_zwj_families_and_cjk_are_cut_by_grapheme_and_every_chart_draws(built):
    store, analytics, names = built
    with TestClient(create_app(store, analytics=analytics)) as c:
        # (min_games 30, every row under it, drew the same labels greyed: the same names, the same cut; the
        # low-sample colours are test_serve_dashboard's test_dashboard_greys_small_samples)
        for params in ({"min_games": 1}, {"min_games": 1, "deck": DECKS[0, "P1"]}):
            r = c.get("/dashboard", params=params)
            assert r.status_code == 200, (params, r.text[:300])
            if "deck" not in params:
                assert_cut_at_graphemes(chart_texts(r.text), names)
            for name in DECKS.values():  # the tables keep each name whole
                assert name in re.sub(r"<svg .*?</svg>", "", r.text, flags=re.S) or "deck" in params


def test_zx_report_draws_names_of_wide_text(built, tmp_path):
    store, analytics, names = built
    out = tmp_path / "meta.html"
    r = CliRunner().invoke(zx, ["--store", store, "report", "--analytics", str(analytics), "-o", str(out),
                                "--min-games", "1"])
    assert r.exit_code == 0, r.output
    assert_cut_at_graphemes(chart_texts(out.read_text(encoding="utf-8")), names)


def test_a_chart_that_cannot_be_drawn_says_so_in_its_place_and_the_page_shows_the_others(built, monkeypatch, caplog):
    """Whatever makes the chart renderer fail on one chart, the page is answered (200), that chart's place
    says it could not be drawn (the server's log has why), and the other charts and every table are there."""
    import vl_convert

    store, analytics, _ = built
    real = vl_convert.vegalite_to_svg

    def failing_trend(spec, *args, **kw):
        if "ISO week" in json.dumps(spec):
            raise ValueError("Vega-Lite to SVG conversion failed: (the trend chart, in this test)")
        return real(spec, *args, **kw)

    real_vega = vl_convert.vegalite_to_vega

    def failing_trend_vega(spec, *args, **kw):  # (the trend is drawn through its Vega specification)
        if "ISO week" in json.dumps(spec):
            raise ValueError("Vega-Lite to SVG conversion failed: (the trend chart, in this test)")
        return real_vega(spec, *args, **kw)

    monkeypatch.setattr(vl_convert, "vegalite_to_svg", failing_trend)
    monkeypatch.setattr(vl_convert, "vegalite_to_vega", failing_trend_vega)
    with TestClient(create_app(store, analytics=analytics)) as c:
        r = c.get("/dashboard", params={"min_games": 2})
    assert r.status_code == 200
    sections = dict(re.findall(r'<div class="chart" data-chart="([a-z]+)">(.*?)</div>', r.text, flags=re.S))
    # (the class and the words in the server's log only, not on the page: QA round 38)
    assert "could not be drawn (the server's log says why)" in sections.pop("trend")
    assert sections and all(body.startswith("<svg") for body in sections.values()), sections.keys()
    assert r.text.count("<table") >= len(CHARTS)
    assert "the trend chart, in this test" in caplog.text and "ValueError" in caplog.text
