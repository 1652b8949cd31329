"""The match list served (``/api/matches``, the ``/matches`` page) for a coach (QA round 36): the opponent and the
opponent's deck as filters, the player's side with a player filter (its replay links open that player's seat), a
sort by the moment played; a name no match has answered with the closest ones, never a name a mask hides on a
server that is not the judge's. The store of tests/head_to_head_support.py; one browser for the module's page test."""

from __future__ import annotations

import re
from html import unescape

import pytest

from head_to_head_support import HIDDEN, MIO, REN, build
from zx_web.app import create_app

HTML = {"accept": "text/html"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build(tmp_path_factory.mktemp("h2h-web"))


def listed(client, **params) -> list[str]:
    got = client.get("/api/matches", params=params)
    assert got.status_code == 200, got.text
    return [m["match"] for m in got.json()["matches"]]


def page_rows(client, **params) -> list[str]:
    got = client.get("/matches", params=params, headers=HTML)
    assert got.status_code == 200, got.text
    return re.findall(r'<tr data-match="([^"]+)"', got.text)


def test_the_api_filters_by_opponent_and_sorts(clients):
    c, j = clients
    for client in (c, j):
        assert listed(client, opponent=MIO) == ["h1", "h2", "h5", "h6", "h7"]
        assert listed(client, player=REN, opponent=MIO, deck="Black Reapers") == ["h1", "h2"]
        assert listed(client, player=REN, opp_deck="Red Dragons") == ["h1", "h6"]
        assert listed(client, sort="newest") == ["h2", "h5", "h3", "h1", "h7", "h6", "h4"]
        assert listed(client, sort="oldest", limit=2) == ["h6", "h7"]
        assert listed(client, sort="newest", offset=1, limit=2) == ["h5", "h3"]
    got = c.get("/api/matches", params={"player": REN, "opponent": MIO, "sort": "newest"}).json()
    assert got["sort"] == "newest" and got["filters"] == {"player": REN, "opponent": MIO}
    assert [(m["match"], m["seat"], m["opponent"], m["deck"], m["opp_deck"], m["result"]) for m in got["matches"]] == [
        ("h2", "P2", MIO, "Black Reapers", "Blue Control", "won"), ("h5", "P2", MIO, "Red Dragons", "Green Beasts", "none"),
        ("h1", "P1", MIO, "Black Reapers", "Red Dragons", "lost"), ("h6", "P1", MIO, "Green Beasts", "Red Dragons", "lost")]
    assert got["matches"][0]["p1"] == MIO and got["matches"][0]["winner"] == "P2"  # (the summary's fields kept)
    bad = c.get("/api/matches", params={"sort": "latest"})
    assert bad.status_code == 400 and bad.json()["error"] == "sort: 'latest' is not one of store, newest, oldest"


def test_an_unknown_opponent_is_answered_with_the_closest_names_never_a_hidden_one(clients):
    c, j = clients
    got = c.get("/api/matches", params={"player": REN, "opponent": "Mio Sat"})
    assert got.status_code == 400 and got.json() == {
        "error": "no player named 'Mio Sat' in the store; did you mean 'Mio Sato'?", "status": 400,
        "filter": "opponent", "suggestions": [MIO]}
    assert c.get("/api/matches", params={"opp_deck": "Red Dragon"}).json()["suggestions"] == ["Red Dragons"]
    # a guess at the card in "Kai U01-003": one answer, right or wrong, naming the masked name only
    answers = [c.get("/api/matches", params={"opponent": guess}).json() for guess in (HIDDEN, "Kai U01-004")]
    assert answers[0] == answers[1] == {"error": "no player named 'Kai [card]' in the store; did you mean 'Kai [card]'?",
                                        "status": 400, "filter": "opponent", "suggestions": ["Kai [card]"]}
    assert listed(c, opponent="Kai [card]") == ["h7"]
    assert j.get("/api/matches", params={"opponent": "Kai U01-004"}).json()["suggestions"] == [HIDDEN]
    page = c.get("/matches", params={"opponent": "Kai U01-004"}, headers=HTML)
    assert page.status_code == 400 and "U01-003" not in page.text
    assert 'class="suggestion">Kai [card]</a>' in page.text


def test_the_page_shows_the_players_side_and_replays_from_their_seat(clients):
    c, j = clients
    for client, judge in ((c, False), (j, True)):
        text = client.get("/matches", params={"player": REN, "opponent": MIO, "sort": "newest"}, headers=HTML).text
        head = re.search(r"<thead>(.*?)</thead>", text, re.S).group(1)
        assert re.findall(r'<th scope="col"[^>]*>([^<]+)</th>', head) == [  # (whom, the result, the replay first)
            "opponent", "result", "replay", "date", "match", "deck", "opponent's deck", "seat", "event", "turns",
            "violations"]
        assert re.findall(r'<tr data-match="([^"]+)" data-seat="([^"]+)"', text) == [
            ("h2", "P2"), ("h5", "P2"), ("h1", "P1"), ("h6", "P1")]
        links = re.findall(r'<a class="replay" href="([^"]+)">', text)
        assert links == ["/matches/h2/replay?as=P2", "/matches/h5/replay?as=P2", "/matches/h1/replay?as=P1",
                         "/matches/h6/replay?as=P1"]
        results = re.findall(r'<td class="result[^"]*">(\w+)', text)
        assert results == ["won", "none", "lost", "lost"]
        # the form shows what was asked: the opponent typed, the sort chosen
        assert f'name="opponent" id="opponent" value="{MIO}"' in text
        assert '<option value="newest" selected>newest first</option>' in text
        # a non-judge server offers the player seats: the link opens that seat's replay
        replay = client.get(links[0], headers=HTML)
        assert replay.status_code == 200, replay.text
        assert '<b class="seat-link here" aria-current="page">P2</b>' in replay.text
    # the pager keeps the sort and the filters
    plain = c.get("/matches", params={"sort": "oldest"}, headers=HTML).text
    assert re.findall(r'<tr data-match="([^"]+)"', plain) == ["h6", "h7", "h1", "h3", "h2", "h5", "h4"]
    assert 'data-seat' not in plain and "<th scope=\"col\">P1</th>" in plain  # no player: both sides, as before
    assert page_rows(c, opp_deck="Red Dragons", player=REN) == ["h1", "h6"]
    assert c.get("/matches", params={"sort": "latest"}, headers=HTML).status_code == 400


def test_the_form_filters_by_opponent_and_sorts_in_a_browser(store, browser):
    """The page's form in Chromium: an opponent typed, a sort chosen, the list as asked; a replay link opens the
    player's seat."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.expected_conditions import staleness_of
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from test_serve_browser import running

    path, analytics = store
    with running(create_app(path, analytics=analytics)) as url:
        browser.get(url + "/matches")
        browser.find_element(By.NAME, "player").send_keys(REN)
        browser.find_element(By.ID, "opponent").send_keys(MIO)
        Select(browser.find_element(By.ID, "sort")).select_by_value("newest")
        before = browser.find_element(By.ID, "match-table")
        browser.find_element(By.ID, "search").click()
        WebDriverWait(browser, 10).until(staleness_of(before))  # (the answer's page, not the form's: a race)
        rows = browser.find_elements(By.CSS_SELECTOR, "#match-table tbody tr")
        assert [r.get_attribute("data-match") for r in rows] == ["h2", "h5", "h1", "h6"]
        assert [r.find_element(By.CSS_SELECTOR, "td.result").text.split()[0] for r in rows] == [
            "won", "none", "lost", "lost"]
        rows[2].find_element(By.CSS_SELECTOR, "a.replay").click()
        assert browser.current_url.startswith(url + "/matches/h1/replay?as=P1")
        here = browser.find_element(By.CSS_SELECTOR, ".seat-link.here")
        assert unescape(here.text) == "P1"
        browser.get("about:blank")
