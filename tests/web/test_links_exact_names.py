"""The dashboard's links list the matches their row counts when a name has several spellings (QA round 37): the
statistics take a name as written (each spelling apart), the list folds case and width, so a row counting Mio's 22
games linked 52 matches of Mio, MIO and Ｍｉｏ. The links carry `exact=1`: the list then takes the names as written,
says so, and links to the same list in any case and width."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

LOG = Path(__file__).resolve().parents[2] / "examples" / "legal" / "range-attacks-win-by-life.zxlog"
NAMES = {"m-mio": "Mio", "m-upper": "MIO", "m-wide": "Ｍｉｏ", "m-mio-2": "Mio"}  # P2, facing P1 Ren


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exact")
    lines = LOG.read_text(encoding="utf-8").splitlines()
    logs = []
    for match, name in NAMES.items():
        header = json.loads(lines[0])
        header["match"] = match
        header["players"]["P1"]["name"], header["players"]["P2"]["name"] = "Ren", name
        logs.append(folder / f"{match}.zxlog")
        logs[-1].write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    store, analytics = str(folder / "s.sqlite"), str(folder / "s.duckdb")
    r = CliRunner().invoke(zx, ["--store", store, "import", *map(str, logs)], env={"ZX_ANALYTICS": analytics})
    assert r.exit_code == 0, r.output
    with TestClient(create_app(store, analytics=analytics)) as c:
        yield c


@pytest.mark.parametrize("key", ["player", "opponent"])
def test_a_dashboard_rows_link_lists_the_matches_it_counts(client, key):
    answer = client.get("/api/stats/winrates", params={key: "Mio", "min_games": 1}).json()
    counted = {r["deck"]: r["games"] for r in answer["rows"]}
    page = client.get("/dashboard", params={key: "Mio"}).text
    links = [html.unescape(h) for h in re.findall(r'href="(/matches\?[^"]+)"', page)]
    checked = 0
    for href in links:
        q = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
        if set(q) != {"game", "deck", key, "exact"}:
            continue  # (a week's or a matchup's link)
        assert q["exact"] == "1" and q[key] == "Mio", href
        listed = client.get("/api/matches", params=q).json()["total"]
        assert listed == counted[q["deck"]] == 2, (href, listed, counted)  # (not 4: MIO and Ｍｉｏ apart)
        checked += 1
    assert checked, links
    assert client.get("/api/matches", params={key: "Mio", "game": "zx"}).json()["total"] == 4  # (without exact:
    # any case and width, as before)


def test_the_list_says_it_takes_names_as_written_and_links_to_any_spelling(client):
    page = html.unescape(client.get("/matches", params={"player": "Mio", "exact": "1"},
                                    headers={"Accept": "text/html"}).text)
    assert 'id="exact-names"' in page and '<input type="hidden" name="exact" value="1">' in page
    assert "spellings of the name" not in page  # (the fold note is for folded names)
    assert "2 matches, 1–2 shown" in page, page[:3000]
    any_case = re.search(r'id="exact-names">[^<]*<a href="([^"]+)"', page).group(1)
    assert parse_qs(urlsplit(any_case).query) == {"player": ["Mio"]}
    assert client.get("/api/matches", params={"player": "Mio", "exact": "maybe"}).status_code == 400


def test_a_page_past_the_end_of_the_list_says_so_and_links_to_its_last_page(client):
    """`/matches?offset=999999` said "28000 matches, 1000000–999999 shown" and "No match fits these filters" (QA round
    37): the filters fit; the page is past the end."""
    page = html.unescape(client.get("/matches", params={"offset": 999999}, headers={"Accept": "text/html"}).text)
    assert "4 matches; this page (from 1000000) is past the end of the list" in page, page[:3000]
    assert "This page is past the end of the list." in page and "No match fits" not in page
    last = re.search(r'<a href="([^"]+)" id="last-page">', page).group(1)
    assert parse_qs(urlsplit(last).query) == {"offset": ["0"]}
    assert 'data-match="m-mio"' in client.get(last, headers={"Accept": "text/html"}).text


def test_previous_from_past_the_end_is_the_last_page_and_every_pager_link_is_on_the_grid(client, monkeypatch):
    """Past the end, "previous" went to offset - 50, past the end again (19 empty pages to walk back from 1000 of
    53), and from offset=53 to offset=3 (QA round 38): past the end it is the last page, as the count line's link;
    elsewhere a page start (a multiple of the page size) holding the row just before the first shown (previous) or
    just after the last (next), so that no row is skipped. Pages of 2 rows here (the list's own code, a smaller
    page), over the 4 matches."""
    from zx_web import pages

    monkeypatch.setattr(pages, "PAGE_SIZE", 2)

    def pager(offset: int) -> tuple[dict | None, dict | None, list[str]]:
        page = html.unescape(client.get("/matches", params={"offset": offset}, headers={"Accept": "text/html"}).text)
        links = [re.search(rf'<a href="([^"]+)" id="{k}">', page) for k in ("prev", "next")]
        return (*[parse_qs(urlsplit(m.group(1)).query) if m else None for m in links],
                re.findall(r'<tr data-match="([^"]+)"', page))

    assert pager(999999)[:2] == ({"offset": ["2"]}, None)  # (the last page: rows 3-4)
    assert pager(4)[:2] == ({"offset": ["2"]}, None)
    assert pager(3)[:2] == ({"offset": ["2"]}, None)  # (rows 4-4: previous holds row 3)
    assert pager(1)[:2] == ({"offset": ["0"]}, {"offset": ["2"]})  # (rows 2-3: next holds row 4, on the grid)
    assert pager(0)[:2] == (None, {"offset": ["2"]})
    assert pager(2)[:2] == ({"offset": ["0"]}, None)
    order = pager(0)[2] + pager(2)[2]
    assert len(order) == 4 and pager(1)[2] == order[1:3]


def test_a_players_record_writes_its_interval_as_the_dashboard_does_on_one_line(client):
    """"win rate 56.6% (95% interval 43.3-69.0)": the dashboard writes "43.3%–69.0%", and "43.3-69.0)" wrapped alone
    to a line of its own (QA round 38): the rate and its interval are one unbreakable span, as the dashboard writes
    them (``zx matches``' stderr line keeps its own form: tests/test_matches_record.py)."""
    from zx_analytics.wilson import wilson_interval
    from zx_web.dashboard import pct

    page = client.get("/matches", params={"player": "Ren"}, headers={"Accept": "text/html"}).text
    low, high = wilson_interval(0, 4)  # (Ren lost all 4)
    want = f'<span class="nowrap">win rate 0.0% (95% interval {pct(low)}\u2013{pct(high)})</span>'
    assert f"Ren: 0 won, 4 lost, 0 drawn of 4 games; {want}</p>" in page, page[:4000]


def test_the_links_carry_the_opponents_deck_and_are_left_out_under_a_filter_the_list_has_not(client):
    """A dashboard filtered by seat (or colours, archetype) linked each row to the list without it: a row counting 10
    linked 18 matches (QA round 37): no row links there; an opponent's deck filter is carried."""
    rows = client.get("/api/matches", params={"game": "zx"}).json()["matches"]
    mine, theirs = rows[0]["p1_deck"], rows[0]["p2_deck"]
    page = client.get("/dashboard", params={"opp_deck": theirs}).text
    links = [html.unescape(h) for h in re.findall(r'href="(/matches\?[^"]+)"', page)]
    row = next(h for h in links if parse_qs(urlsplit(h).query).get("deck") == [mine])
    q = {k: v[0] for k, v in parse_qs(urlsplit(row).query).items()}
    assert q.get("opp_deck") == theirs and client.get("/api/matches", params=q).json()["total"] == 4, row
    for key, value in (("seat", "first"), ("seat", "second")):
        page = client.get("/dashboard", params={key: value}).text
        assert not re.findall(r'href="/matches\?[^"]*deck=', page), (key, value)
        assert "each deck links to its matches" not in page
