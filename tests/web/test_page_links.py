"""Links between the pages, the replay's Download, the deck share of one player, and the life chart's start
(a coach's requests, QA round 36, comparing zx with HSReplay, Showdown and 17lands).

One store for the module: simulated Z/X matches, two X610Z ones, and three shipped example logs whose names are
varied: a deck named with a card's code (masked outside the judge's view), a player named with a bidirectional
control (its mask drops only that: it hides nothing). A server of each kind (the judge's, anyone's) on it, through
FastAPI's TestClient; the browser tests share one Chromium (tests/web/conftest.py) and one uvicorn.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
HIDDEN_DECK = "Dragons R01-002"  # a card's code: masked ("Dragons [card]") outside the judge's view
BIDI_PLAYER = "Aki\u202e"  # its mask drops the control only: shown "Aki", hiding nothing


@dataclass
class Store:
    store: str
    analytics: Path
    folder: Path


def run(*args: str, env: dict | None = None) -> str:
    r = CliRunner().invoke(zx, list(args), env=env)
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture(scope="module")
def st(tmp_path_factory: pytest.TempPathFactory) -> Store:
    folder = tmp_path_factory.mktemp("links")
    logs = folder / "logs"
    run("simulate", "-n", "30", "--seed", "11", "--policy", "mixed", "-o", str(logs / "zx"), "--per-file", "10")
    run("simulate", "--game", "x610z", "-n", "2", "--seed", "3", "-o", str(logs / "x610z"))
    for i, src in enumerate(("first-turns.zxlog", "long-game-reload-win-by-life.zxlog",
                             "range-attacks-win-by-life.zxlog")):
        lines = (ROOT / "examples" / "legal" / src).read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        if i == 0:
            header["players"]["P2"]["deck_name"] = HIDDEN_DECK
        if i == 1:
            header["players"]["P1"]["name"] = BIDI_PLAYER
        (logs / src).write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n",
                                encoding="utf-8")
    store, analytics = str(folder / "events.sqlite"), folder / "analytics.duckdb"
    run("--store", store, "import", str(logs), "--no-analytics")
    run("--store", store, "analytics", "update", "--analytics", str(analytics))
    return Store(store, analytics, folder)


@pytest.fixture(scope="module")
def client(st: Store):
    with TestClient(create_app(st.store, analytics=st.analytics)) as c:
        yield c


@pytest.fixture(scope="module")
def judge(st: Store):
    with TestClient(create_app(st.store, analytics=st.analytics, judge=True)) as c:
        yield c


def table_rows(page: str, section: str) -> list[tuple[list[str], list[str | None]]]:
    """The Data table of a dashboard section: each row's cells (text) and each cell's link (or None)."""
    at = page.index(f'id="{section}"')
    chunk = page[at:page.index("</section>", at)]
    body = chunk[chunk.index("<tbody>"):chunk.index("</tbody>")]
    out = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        hrefs = [html.unescape(m.group(1)) if (m := re.search(r'<a [^>]*href="([^"]+)"', c)) else None for c in cells]
        out.append(([html.unescape(re.sub("<[^>]+>", "", c)) for c in cells], hrefs))
    return out


def listed(client: TestClient, href: str) -> dict:
    """What the match list at ``href`` (a link of a page) lists: /api/matches with the same query."""
    parts = urlsplit(href)
    assert parts.path == "/matches", href
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert client.get(href).status_code == 200, href  # the page itself takes the link's query
    return client.get("/api/matches", params={**query, "limit": 500}).json()


def busiest_player(client: TestClient) -> str:
    rows = client.get("/api/stats/winrates", params={"by": "player", "game": "zx", "min_games": 1}).json()["rows"]
    return max(rows, key=lambda r: (r["games"], r["player"]))["player"]


# ---------------------------------------------------------------------- 1. links between pages
def test_each_deck_row_of_the_dashboard_links_to_its_matches_with_the_filters_carried(client):
    """Each deck row of the deck share, win rate and weekly trend tables links to the match list filtered by that
    deck, the dashboard's game, player and date filters carried over (the trend's row: its ISO week within them),
    and the list holds as many matches as the row counts. Before: no row linked anywhere."""
    player = busiest_player(client)
    since = "2000-01-01"
    page = client.get("/dashboard", params={"game": "zx", "player": player, "since": since, "min_games": 1}).text
    share = table_rows(page, "share")
    assert share and all(hrefs[0] for _, hrefs in share), share
    for cells, hrefs in share:  # deck, seats, matches, ...
        q = parse_qs(urlsplit(hrefs[0]).query)
        assert q == {"game": ["zx"], "player": [player], "deck": [cells[0]], "since": [since], "exact": ["1"]}, hrefs[0]
        assert listed(client, hrefs[0])["total"] == int(cells[2]), (cells, hrefs[0])
    for cells, hrefs in table_rows(page, "winrates"):
        assert parse_qs(urlsplit(hrefs[0]).query)["deck"] == [cells[0]]
    for cells, hrefs in table_rows(page, "trend"):  # week, deck, seats (the player's: one a match), ...
        q = parse_qs(urlsplit(hrefs[1]).query)
        assert q["deck"] == [cells[1]] and q["player"] == [player] and q["since"][0] >= since
        got = listed(client, hrefs[1])
        assert got["total"] == int(cells[2]), (cells, hrefs[1])


def test_an_opponent_filter_is_carried_into_the_links_and_the_form_and_labels_the_share(client):
    """`/dashboard?opponent=O` (the statistics take it since round 36): its deck rows linked to every match of the
    deck (41 where the row counted 5), the form had no field for it (Apply dropped it), the share said "of all
    seats": the links carry it, the form keeps it, the share is "of the N seats facing O"."""
    opponent = busiest_player(client)
    page = client.get("/dashboard", params={"game": "zx", "opponent": opponent, "min_games": 1}).text
    share = table_rows(page, "share")
    assert share and all(hrefs[0] for _, hrefs in share), share
    for cells, hrefs in share:  # deck, seats, matches, ...
        q = parse_qs(urlsplit(hrefs[0]).query)
        assert q == {"game": ["zx"], "deck": [cells[0]], "opponent": [opponent], "exact": ["1"]}, hrefs[0]
        assert listed(client, hrefs[0])["total"] == int(cells[1]), (cells, hrefs[0])
    assert f'name="opponent" value="{html.escape(opponent)}"' in page
    assert re.search(r"of the [\d,]+ seats? facing " + re.escape(html.escape(opponent)), page), page[:2000]


def test_a_matchup_row_links_to_the_matches_of_its_deck_against_its_opponents(client):
    """A matchup row (the row's deck against the column's) links to the match list of that deck against that deck
    (``opp_deck``, since the list has it: a note said the link listed every match of the row's deck), which lists
    as many matches as the row counts games."""
    page = client.get("/dashboard", params={"game": "zx", "min_games": 1}).text
    rows = [(cells, hrefs) for cells, hrefs in table_rows(page, "matchups")
            if "[card]" not in cells[0] and "[card]" not in cells[1]]
    assert rows
    for cells, hrefs in rows:
        q = parse_qs(urlsplit(hrefs[0]).query)
        assert q["deck"] == [cells[0]] and q["opp_deck"] == [cells[1]] and hrefs[1] is None, (cells, hrefs)
        assert listed(client, hrefs[0])["total"] == int(cells[2]), (cells, hrefs[0])
    assert "not only those against the column's deck" not in html.unescape(page)
    cells = rows[0][0]  # its link says where it goes (QA round 36: "the matches of Black Reapers" alone)
    assert f'title="{html.escape(f"the matches of {cells[0]} against {cells[1]}")}"' in page


def test_a_masked_name_is_never_put_in_a_link(client, judge, st):
    """A deck named with a card's code is shown ``Dragons [card]`` outside the judge's view: its rows get no link,
    and no link of any page holds the code or the mask; the judge's server links it as stored. A name whose mask
    drops only a bidirectional control is linked in its shown form."""
    for path, params in (("/dashboard", {"game": "zx", "min_games": 1}), ("/matches/hand-first-turns-001", {})):
        page = client.get(path, params=params).text
        hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page)]
        assert "Dragons [card]" in page and not any("R01-002" in h or "[card]" in h or "%5Bcard%5D" in h
                                                   for h in hrefs), path
    page = client.get("/dashboard", params={"game": "zx", "min_games": 1}).text
    for section in ("share", "winrates", "matchups", "trend"):
        rows = [(cells, hrefs) for cells, hrefs in table_rows(page, section)]
        at = 1 if section == "trend" else 0
        assert all(hrefs[at] is None for cells, hrefs in rows if cells[at] == "Dragons [card]"), section
        assert all(hrefs[at] for cells, hrefs in rows if cells[at] == "Red Dragons"), section
    assert [hrefs[0] for cells, hrefs in table_rows(page, "share") if cells[0] == "Dragons [card]"] == [None]
    page = client.get("/matches/hand-first-turns-001").text
    assert 'id="deck-P2"' not in page and 'id="deck-P1"' in page and 'id="player-P2"' in page
    # a dashboard filtered on the masked deck: its own rows carry nothing hidden either
    page = client.get("/dashboard", params={"game": "zx", "deck": "Dragons [card]", "min_games": 1}).text
    assert not any("R01-002" in h or "card%5D" in h for h in re.findall(r'href="([^"]+)"', page))
    j = judge.get("/matches/hand-first-turns-001").text
    href = html.unescape(re.search(r'id="deck-P2" href="([^"]+)"', j).group(1))
    assert parse_qs(urlsplit(href).query)["deck"] == [HIDDEN_DECK] and listed(judge, href)["total"] == 1
    # the bidirectional control dropped: the link names the player as the list shows it, and finds the match
    match = "sim-1-0038"  # (long-game-reload-win-by-life.zxlog)
    assert client.get("/api/matches/sim-1-0038").json()["header"]["players"]["P1"]["name"] == "Aki"
    page = client.get(f"/matches/{match}").text
    href = html.unescape(re.search(r'id="player-P1" href="([^"]+)"', page).group(1))
    assert parse_qs(urlsplit(href).query)["player"] == ["Aki"] and "\u202e" not in href
    assert match in [m["match"] for m in listed(client, href)["matches"]]


def sim_match(client: TestClient, game: str = "zx") -> dict:
    """A simulated match of ``game`` (none of the varied example logs)."""
    rows = client.get("/api/matches", params={"game": game, "limit": 500}).json()["matches"]
    return next(m for m in rows if m["match"].startswith(("sim-11-", "x610z-sim-3-")))


def test_the_match_page_links_each_player_and_deck_to_their_matches(client):
    """The match page's player and deck names link to the match list of that player, of that deck (either side)."""
    match = sim_match(client)
    page = client.get(f"/matches/{match['match']}").text
    for seat in ("P1", "P2"):
        for kind, key in (("player", seat.lower()), ("deck", f"{seat.lower()}_deck")):
            href = html.unescape(re.search(rf'id="{kind}-{seat}" href="([^"]+)"', page).group(1))
            assert parse_qs(urlsplit(href).query) == {"game": ["zx"], kind: [match[key]]}
            got = listed(client, href)
            assert match["match"] in [m["match"] for m in got["matches"]]
            assert all(match[key] in (m[f"p1{key[2:]}"], m[f"p2{key[2:]}"]) for m in got["matches"])


# ---------------------------------------------------------------------- 3. the deck share of one player
def test_with_a_player_filter_the_deck_share_is_of_that_players_seats(client):
    """/dashboard?player=P: each deck's share of P's seats (the deck share and its weekly trend), labelled "of P's
    N seats"; it was each deck's share of the whole field (P's two decks at a few percent each). The figures are
    counted again from the match list: P's side of every match P played."""
    player = busiest_player(client)
    mine = client.get("/api/matches", params={"game": "zx", "player": player, "limit": 500}).json()["matches"]
    decks: dict[str, int] = {}
    weeks: dict[str, int] = {}
    from datetime import date

    for m in mine:
        side = "p1" if m["p1"] == player else "p2"
        decks[m[f"{side}_deck"]] = decks.get(m[f"{side}_deck"], 0) + 1
        y, w, _ = date.fromisoformat(m["played_at"][:10]).isocalendar()
        weeks[f"{y}-W{w:02d}"] = weeks.get(f"{y}-W{w:02d}", 0) + 1
    page = client.get("/dashboard", params={"game": "zx", "player": player, "min_games": 1}).text
    rows = {cells[0]: cells for cells, _ in table_rows(page, "share")}  # deck, seats, matches, P's seats, share
    assert {d: int(c[1]) for d, c in rows.items()} == decks
    assert {int(c[3]) for c in rows.values()} == {len(mine)}
    from zx_web.dashboard import pct

    assert {d: c[4] for d, c in rows.items()} == {d: pct(n / len(mine)) for d, n in decks.items()}
    assert f"of {html.escape(player, quote=True)}&#39;s {len(mine):,} seats" in page
    assert f"of {player}'s {len(mine):,} seats" in html.unescape(page)  # the axis's title too
    trend = [cells for cells, _ in table_rows(page, "trend")]  # week, deck, seats, P's seats in the week, share
    assert {c[0]: int(c[3]) for c in trend} == weeks
    assert all(c[4] == pct(int(c[2]) / int(c[3])) for c in trend)
    # without the player the share is of every seat, as before
    page = client.get("/dashboard", params={"game": "zx", "min_games": 1}).text
    every = client.get("/api/matches", params={"game": "zx", "limit": 500}).json()["total"] * 2
    assert {int(cells[3]) for cells, _ in table_rows(page, "share")} == {every}


# ---------------------------------------------------------------------- 2. the replay's Download
def zx_view(st: Store, match: str, seat: str, out: Path) -> bytes:
    run("--store", st.store, "view", match, "--as", seat, "-o", str(out))
    return out.read_bytes()


def test_download_is_the_file_zx_view_writes_for_the_seat_shown(client, judge, st, tmp_path):
    match = sim_match(client)["match"]
    page = client.get(f"/matches/{match}/replay", params={"as": "P1"}).text
    href = html.unescape(re.search(r'<a class="download"[^>]* href="([^"]+)"', page).group(1))
    assert href == f"/matches/{match}/replay/download?as=P1"
    r = client.get(href)
    assert r.status_code == 200 and r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.headers["content-disposition"] == f'attachment; filename="{match}-P1.html"'
    assert r.content == zx_view(st, match, "P1", tmp_path / "p1.html")
    assert b'id="download"' not in r.content and b'id="served-nav"' not in r.content  # it stands alone
    r = judge.get(f"/matches/{match}/replay/download", params={"as": "judge"})
    assert r.status_code == 200 and r.content == zx_view(st, match, "judge", tmp_path / "judge.html")
    assert client.get(f"/matches/{match}/replay/download").headers["content-disposition"].endswith(
        f'"{match}-spectator.html"')  # no seat asked: the spectator's, as the replay page


def test_download_of_a_seat_not_served_is_refused_as_the_replay_page(client):
    match = client.get("/api/matches", params={"limit": 1}).json()["matches"][0]["match"]
    for path in (f"/matches/{match}/replay", f"/matches/{match}/replay/download"):
        assert client.get(path, params={"as": "judge"}).status_code == 403
        assert client.get(path, params={"as": "P3"}).status_code == 400
        assert client.get(path.replace(match, "no-such-match"), params={"as": "P1"}).status_code == 404
    assert client.get(f"/matches/{match}/replay/download", params={"as": "P1", "x": "1"}).status_code == 400
    r = client.get(f"/matches/{match}/replay/download", params={"as": "judge"})
    assert b"Traceback" not in r.content and "attachment" not in r.headers.get("content-disposition", "")


def test_download_file_name_has_safe_characters_only():
    from zx_cli.view import default_path
    from zx_web.viewer import file_name

    for match in ("sim-1", 'a"b\r\nc/../d', "..", "日本-1", "x;y=z"):
        assert file_name(match, ["P1"]) == str(default_path(match, ["P1"]))
        assert re.fullmatch(r"[A-Za-z0-9._-]+", file_name(match, ["P1"]))


# ---------------------------------------------------------------------- in Chromium
@pytest.fixture(scope="module")
def server(st: Store):
    from test_serve_browser import running

    with running(create_app(st.store, analytics=st.analytics)) as url:
        yield url


def test_in_chromium_the_links_lead_to_the_list_and_the_download_opens_offline(browser, server, client, tmp_path):
    """A real browser: a deck row's link of the dashboard opens the list of its matches, the match page's player
    link that player's matches; the replay page's Download gives the file, which opens from disk (file://: nothing
    fetched) and replays the match at the seat shown."""
    import urllib.request

    from selenium.webdriver.common.by import By

    browser.get(server + "/dashboard?game=zx&min_games=1")
    link = browser.find_element(By.CSS_SELECTOR, "#share details a.matches-link")
    deck = link.get_attribute("textContent")
    browser.execute_script("arguments[0].closest('details').open = true", link)
    link.click()
    count = browser.find_element(By.ID, "match-count").text
    want = client.get("/api/matches", params={"game": "zx", "deck": deck}).json()["total"]
    assert browser.current_url.split("?")[0].endswith("/matches") and count.startswith(f"{want} match"), count
    match = sim_match(client)
    browser.get(f"{server}/matches/{match['match']}")
    browser.find_element(By.ID, "player-P1").click()
    assert browser.find_element(By.ID, "match-count").text.startswith(
        f"{client.get('/api/matches', params={'game': 'zx', 'player': match['p1']}).json()['total']} match")
    browser.get(f"{server}/matches/{match['match']}/replay?as=P2")
    button = browser.find_element(By.ID, "download")
    assert button.is_displayed() and button.text == "Download"
    with urllib.request.urlopen(button.get_attribute("href"), timeout=30) as r:
        body = r.read()
    path = tmp_path / f"{match['match']}-P2.html"
    path.write_bytes(body)
    browser.get_log("browser")  # (what the session's browser logged before: drained)
    browser.get(path.as_uri())
    assert browser.execute_script("return typeof zxViewer") == "object"
    assert browser.execute_script("return zxViewer.seat()") == "P2"
    assert browser.execute_script("return zxViewer.data.last") > 10
    assert not browser.find_elements(By.ID, "download")
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]  # nothing fetched, no error
    assert not errors, errors


# ---------------------------------------------------------------------- 4. the life chart's start
CHART_START = """
var out = {};
document.querySelectorAll('#chart path.series').forEach(function (p) {
  var m = p.getAttribute('d').match(/^M\\s*([-\\d.]+)[ ,]([-\\d.]+)/);
  out[p.dataset.key] = {x: +m[1], y: +m[2]}; });
var zero = Math.max.apply(null, Array.prototype.map.call(document.querySelectorAll('#chart line.grid'),
  function (l) { return +l.getAttribute('y1'); }));
return {lines: out, zero: zero};
"""


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_the_life_chart_starts_where_each_players_life_is_first_known(browser, client, st, tmp_path, game):
    """The chart's lines started at 0 on the first event (Started), before either player's set-up put their Life
    (Z/X: 4 Life cards; X610Z: a Life Base): each line now starts at the event its player's Life is first known
    (where the cursor stands at that event), in both games, above the zero line."""
    from zx_events.application import MatchService
    from zx_web import viewer

    match = sim_match(client, game)["match"]
    svc = MatchService(st.store)
    try:
        data = viewer.viewer_data(svc, match, ["spectator"])
    finally:
        svc.close()
    states = viewer.decode(data, "spectator")
    path = tmp_path / f"{game}.html"
    path.write_text(viewer.page(data), encoding="utf-8")
    browser.get(path.as_uri())
    drawn = browser.execute_script(CHART_START)
    for seat in ("P1", "P2"):
        if game == "zx":
            first = next(i + 1 for i, s in enumerate(states) if s["players"][seat]["life_count"])
        else:
            first = next(i + 1 for i, s in enumerate(states)
                         if any(d.get("life") and d.get("ctrl") == seat for d in (s.get("dots") or {}).values()))
        assert first > 1, seat
        browser.execute_script("zxViewer.go(arguments[0])", first)
        cursor = float(browser.find_element("css selector", "#chart line.cursor").get_attribute("x1"))
        line = drawn["lines"][seat]
        assert abs(line["x"] - cursor) < 0.01 and line["y"] < drawn["zero"] - 1, (seat, first, line, cursor)


def test_a_name_too_long_for_a_url_gets_no_link(tmp_path):
    """A deck named with 300,000 characters (a header line may hold nearly 1,000,000) is a URL of 900 KB, past what
    a filter form asks for (``zx_web.pages.OFFERED_MAX``) and what a browser sends: no link, on the match page or the
    dashboard; the other names of the same rows and pages keep theirs."""
    long_deck = "Deep " + "D" * 300_000
    lines = (ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P2"]["deck_name"] = long_deck
    (tmp_path / "long.zxlog").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    store, analytics = str(tmp_path / "s.sqlite"), tmp_path / "s.duckdb"
    run("--store", store, "import", str(tmp_path / "long.zxlog"), env={"ZX_ANALYTICS": str(analytics)})
    with TestClient(create_app(store, analytics=analytics)) as c:
        page = c.get(f"/matches/{header['match']}").text
        assert 'id="deck-P2"' not in page and 'id="deck-P1"' in page and 'id="player-P2"' in page
        assert long_deck in page  # shown, not linked
        page = c.get("/dashboard", params={"min_games": 1}).text
        rows = {cells[0]: hrefs[0] for cells, hrefs in table_rows(page, "share")}
        assert rows[long_deck] is None and rows[header["players"]["P1"]["deck_name"]], list(rows.values())
        assert max(map(len, re.findall(r'href="([^"]*)"', page))) < 1000


def test_an_opponent_filter_labels_the_share_and_its_trend_as_the_seats_facing_them(client):
    """QA round 36: with ?opponent=O the deck share's column was "All seats", its note "(two a match)", the trend's
    "the seats played in an ISO week" and "Week's seats", where every figure is of the seats facing O."""
    opponent = busiest_player(client)
    page = html.unescape(client.get("/dashboard", params={"game": "zx", "opponent": opponent, "min_games": 1}).text)
    assert f"(one a match {opponent} played, under the date" in page and "(two a match)" not in page
    assert f"Seats facing {opponent}</th>" in page and f"Seats facing {opponent} in the week</th>" in page
    assert f"Each deck's share of the seats facing {opponent} in an ISO week" in page
    assert ">All seats</th>" not in page and ">Week's seats</th>" not in page


def test_the_trend_charts_points_name_their_week_as_the_axis_shows_it():
    """A screen reader heard "ISO week: 105659; share of the week's seats: 16.666667%" for a point of the trend
    chart (its axis counts weeks from year 1) and "values from 105,658.5" for the axis (QA round 36)."""
    import polars as pl

    from zx_web.dashboard import trend_chart

    df = pl.DataFrame({"week": ["2026-W01", "2026-W01", "2026-W03"], "deck": ["A", "B", "A"], "seats": [1, 2, 3],
                       "field": [3, 3, 3], "share": [1 / 3, 2 / 3, 1.0]})
    labels = re.findall(r'aria-label="([^"]*)"', html.unescape(trend_chart(df)))
    assert "2026-W01: B, 66.7% of the week's seats" in labels and "2026-W03: A, 100.0% of the week's seats" in labels
    assert not any("10565" in label or "105,6" in label for label in labels), labels


def test_an_unknown_opponent_gets_the_dashboards_own_page_and_the_trend_says_whose_seats(client):
    """QA round 36: `/dashboard?opponent=nobody` answered bare JSON where an unknown player gets the page with its
    form (the field marked); the trend chart's points and axis said "of the week's seats" under a player and
    opponent filter, where the table says "Aki's seats facing Ren"."""
    r = client.get("/dashboard", params={"game": "zx", "opponent": "Nobody At All"}, headers={"Accept": "text/html"})
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html"), r.text[:300]
    page = html.unescape(r.text)
    assert "no opponent named 'Nobody At All'" in page
    assert re.search(r'name="opponent" value="Nobody At All" aria-invalid="true"', page), page[:3000]
    opponent = busiest_player(client)
    page = html.unescape(client.get("/dashboard", params={"game": "zx", "opponent": opponent, "min_games": 1}).text)
    assert f"of the seats facing {opponent} in the week" in page and "of the week's seats" not in page


def test_the_deck_share_bars_say_their_label():
    """QA round 36: a bar was read "share: 33.333333%"."""
    import polars as pl

    from zx_web.dashboard import share_chart

    df = pl.DataFrame({"deck": ["A", "B"], "seats": [1, 2], "matches": [1, 2], "all_seats": [3, 3],
                       "share": [1 / 3, 2 / 3], "share_low": [0.06, 0.2], "share_high": [0.79, 0.94],
                       "low_sample": [True, True]})
    labels = re.findall(r'aria-label="([^"]*)"', html.unescape(share_chart(df, "of all 3 seats")))
    assert "A: 33.3% [6%–79%] n=1 of all 3 seats" in labels
    assert not any("33.333333" in label for label in labels), labels


# ---------------------------------------------------------------------- 5. every link answers (QA round 38)
def crawled_pages(client: TestClient) -> list[str]:
    """The pages a visitor opens: the home, the list (a player's side of it too), a match of each game and its
    replay, the dashboard of each game, the API page."""
    zx_match, x6_match = sim_match(client, "zx"), sim_match(client, "x610z")
    return ["/", "/matches", f"/matches?player={zx_match['p1']}", "/matches?game=x610z",
            f"/matches/{zx_match['match']}", f"/matches/{zx_match['match']}/replay?as=P1",
            f"/matches/{x6_match['match']}", f"/matches/{x6_match['match']}/replay?as=spectator",
            "/dashboard?min_games=1", "/dashboard?game=x610z&min_games=1", "/about"]


def test_every_link_of_every_page_answers(client):
    """/about linked its endpoints' templates, `/api/matches/{match_id}` and three more: 404 (QA round 38, whose
    crawl followed 450+ links). Every link of every page a visitor opens answers without an error; a template is
    printed as code, and a stored match's id is given as its example."""
    answers: dict[str, int] = {}
    bad = []
    for page in crawled_pages(client):
        r = client.get(page, headers={"Accept": "text/html"})
        assert r.status_code == 200, (page, r.status_code)
        for href in sorted({html.unescape(h) for h in re.findall(r'href="([^"#]*)"', r.text)}):
            if not href.startswith("/"):
                assert href.startswith("data:"), (page, href)  # (the icon; nothing elsewhere)
                continue
            if href not in answers:
                answers[href] = client.get(href, headers={"Accept": "text/html"}).status_code
            if answers[href] >= 400:
                bad.append((page, href, answers[href]))
    assert not bad, bad
    assert len(answers) > 60, len(answers)  # (the crawl reached the lists, matches, replays, API and downloads)
    about = client.get("/about").text
    assert "<code>/api/matches/{match_id}</code>" in about and 'href="/api/matches/{' not in about
    example = html.unescape(re.search(r'<a href="([^"]+)" id="example">', about).group(1))
    assert client.get(example).json()["match"] == example.rsplit("/", 1)[1]


# ---------------------------------------------------------------------- 6. the replay without scripts (QA round 38)
def shown(browser, selector: str) -> bool:
    from selenium.webdriver.common.by import By

    found = browser.find_elements(By.CSS_SELECTOR, selector)
    return bool(found) and all(e.is_displayed() for e in found)


def test_without_scripts_the_replay_says_so_with_its_result_and_how_to_step_through_it(browser, server, client,
                                                                                         st, tmp_path):
    """With JavaScript off the replay page was blank and silent: its buttons drawn but dead, the chart, board and
    event list empty boxes. It now says why, the match's result as the match page says it, and how to step through
    it: `zx replay MATCH --as SEAT` and the Download; the dead controls are hidden. The file zx view writes (the
    Download's) says so too; with scripts on, nothing of it shows."""
    from selenium.webdriver.common.by import By

    match = sim_match(client)["match"]
    detail = client.get(f"/api/matches/{match}").json()
    result, turns, events = detail["result"], detail["result"]["turns"], detail["events"]
    said = (f"{result['winner']} {result['winner_name']} won" +
            (f": {result['reason_text']}" if result.get("how") else f" by {result['reason_text']}") +
            f" · {turns} turn{'' if turns == 1 else 's'} · {events} events")
    dead = ("#replay", ".chart-box", "main", "footer .keys", "#seat", ".skip")
    path = tmp_path / "p1.html"
    path.write_bytes(zx_view(st, match, "P1", path))
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(f"{server}/matches/{match}/replay?as=P1")
        note = browser.find_element(By.ID, "no-script")
        assert note.is_displayed(), note
        assert browser.find_element(By.ID, "no-script-result").text == said
        assert f"zx replay {match} --as P1" in note.text and "the Download above" in note.text, note.text
        assert not [s for s in dead if browser.find_elements(By.CSS_SELECTOR, s) and shown(browser, s)], \
            [s for s in dead if shown(browser, s)]
        assert shown(browser, "#download") and shown(browser, "#back-match") and shown(browser, "#seat-shown")
        assert browser.find_element(By.ID, "seat-shown").text == "Seat: P1"
        browser.get(path.as_uri())  # the file zx view writes: itself, no Download
        note = browser.find_element(By.ID, "no-script")
        assert note.is_displayed() and browser.find_element(By.ID, "no-script-result").text == said
        assert f"zx replay {match} --as P1" in note.text and "this file in a browser that runs scripts" in note.text
        assert not shown(browser, "#replay") and not shown(browser, "main")
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get(f"{server}/matches/{match}/replay?as=P1")
    assert browser.execute_script("return typeof zxViewer") == "object"
    assert not shown(browser, "#no-script") and shown(browser, "#replay") and shown(browser, "main")
    assert shown(browser, "footer .keys") and not shown(browser, "#seat-shown")


# ---------------------------------------------------------------------- 7. how the pages read (QA round 38)
def test_the_lists_record_and_the_replays_date_stay_on_one_line_and_names_hyphenate(browser, server, client, page):
    """The record's rate and interval wrapped "43.3-69.0)" alone (1280 and 1920 px); the replay's date broke
    "2026-05-" / "28T17:54..." on a phone; long names broke mid-word on a phone without a hyphen where one could
    go (``hyphens: auto``, the page's lang); the Winner field cut its placeholder, "P1, P2, draw, a n"."""
    from selenium.webdriver.common.by import By

    zx_match = sim_match(client)
    player = zx_match["p1"]
    for width in (390, 1280, 1920):
        browser.set_window_size(width, 900)
        browser.get(f"{server}/matches?player={player}")
        span = browser.find_element(By.CSS_SELECTOR, "#record .nowrap")
        assert span.text.startswith("win rate ") and "%\u2013" in span.text, span.text
        assert browser.execute_script("return arguments[0].getClientRects().length", span) == 1, width
        assert browser.execute_script("return getComputedStyle(document.querySelector('main')).hyphens") == "auto"
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
        fits = browser.execute_script(
            "var i = document.querySelector('input[name=winner]'), c = document.createElement('canvas').getContext('2d'),"
            " s = getComputedStyle(i); c.font = s.font;"
            " return [c.measureText(i.placeholder).width, i.clientWidth - parseFloat(s.paddingLeft) -"
            " parseFloat(s.paddingRight)];")
        assert fits[0] <= fits[1], (width, fits)
    browser.set_window_size(390, 844)
    browser.get(f"{server}/matches/{zx_match['match']}/replay?as=spectator")
    when = browser.find_element(By.CSS_SELECTOR, "#match-sub .when")
    assert when.text == zx_match["played_at"] and \
        browser.execute_script("return arguments[0].getClientRects().length", when) == 1
    label = browser.find_element(By.ID, "download").get_attribute("aria-label")
    assert label == "Download this replay as the spectator sees it (one HTML file)", label
    page_html = client.get(f"/matches/{zx_match['match']}/replay", params={"as": "spectator"}).text
    assert '<span class="when">' in page_html  # (drawn so before the script writes it again)
