"""``zx serve``'s forms and a long name: what a form offers, the server answers.

The QA report: a 10,000-character Japanese deck name (90 KB percent-encoded) was offered in the Deck
dropdown of the match list and the dashboard, but choosing it got uvicorn's plain-text ``400 Invalid HTTP
request received`` (its default parser, httptools, refuses a URL of more than 64 KiB), not JSON, without the
pages' headers. docs/serve.md, "Long names in a form".
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from test_serve_cli import start_serve
from zx_web.pages import OFFERED_MAX

ROOT = Path(__file__).resolve().parents[2]
DECK = "紅蓮" * 5000  # 10,000 characters, 90 KB in a URL
EVENT = "東京大会" * 2500  # the same, in the other offered filter: both at once
TOO_LONG = "竜" * 40_000  # 360 KB in a URL: more than a form offers


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    tmp = tmp_path_factory.mktemp("long-filters")
    logs = []
    for src, deck, event in (("range-attacks-win-by-life.zxlog", DECK, EVENT), ("first-turns.zxlog", TOO_LONG, None),
                             ("long-game-reload-win-by-life.zxlog", None, None)):
        lines = (ROOT / "examples" / "legal" / src).read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        if deck:
            header["players"]["P1"]["deck_name"] = deck
        if event:
            header["event"] = event
        logs.append(tmp / src)
        logs[-1].write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    path, analytics = str(tmp / "s.sqlite"), str(tmp / "s.duckdb")
    r = CliRunner().invoke(zx, ["--store", path, "import", *map(str, logs)], env={"ZX_ANALYTICS": analytics})
    assert r.exit_code == 0, r.output
    return path, analytics, tmp


def get(base: str, path: str, params: dict[str, str]) -> tuple[int, str, str]:
    """GET ``path?params`` (status, content type, text): with http.client, as httpx refuses a query of more
    than 64 KiB itself."""
    import http.client
    from urllib.parse import urlencode, urlsplit

    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        conn.request("GET", f"{path}?{urlencode(params)}")
        r = conn.getresponse()
        return r.status, r.getheader("content-type") or "", r.read().decode("utf-8")
    finally:
        conn.close()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_10000_character_deck_chosen_in_a_form_is_answered_with_the_filtered_page_and_json(store, workers):
    path, analytics, tmp = store
    proc, base = start_serve(["--store", path, "serve", "--analytics", analytics, "--workers", workers], tmp,
                             dict(os.environ))
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            # (the dashboard's charts once: with --workers 2 the long URL's way through the proxy is the point)
            for page in ("/matches", "/dashboard") if workers == "1" else ("/matches",):
                html = client.get(page).text
                assert f'<option value="{DECK}" ' in html and f'<option value="{EVENT}" ' in html, page
                assert f'<option value="{TOO_LONG}"' not in html, page  # its URL: more than a form offers
            assert TOO_LONG in client.get("/matches").text  # (listed in the table)
            both = {"deck": DECK, "event": EVENT}
            status, kind, text = get(base, "/matches", both)  # (a URL of 180 KB: past httptools' 64 KiB)
            assert status == 200 and "1 match," in text, text[:300]
            if workers == "1":
                status, kind, text = get(base, "/dashboard", {**both, "min_games": "1"})
                assert status == 200 and kind.startswith("text/html"), text[:300]
            status, kind, text = get(base, "/api/matches", both)
            assert status == 200 and [m["p1_deck"] for m in json.loads(text)["matches"]] == [DECK], text[:300]
            status, kind, text = get(base, "/api/stats/winrates", {"deck": DECK, "min_games": "1"})
            assert status == 200 and json.loads(text)["rows"][0]["games"] == 1, text[:300]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_a_form_offers_a_name_whose_url_fits_and_no_longer_one():
    from zx_web.pages import offered

    fits = "a" * (OFFERED_MAX - 10)
    assert offered(["Red Dragons", DECK, fits, TOO_LONG, "é" * (OFFERED_MAX // 6 + 1)]) == ["Red Dragons", DECK, fits]
