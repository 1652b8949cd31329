"""The tables under the dashboard's charts (``zx serve``'s /dashboard and ``zx report``'s file), their text
equivalents: each column headed in words, a rate as a percentage, a Wilson interval as one column, a row under the
minimum of games "below minimum". They were the frames' keys and values (win_rate_low, gih_wr, oh_games,
low_sample; 0.487 | 0.381 | 0.595 | False) under a chart that says 48.7% [38%–60%] n=80. The JSON API keeps its
keys and numbers. QA round 30, item 3."""

from __future__ import annotations

import html as html_text
import re

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from serve_support import Built, build_store
from zx_web.app import create_app
from zx_web.dashboard import pct

MIN_GAMES = 8  # each deck's games in the store: one more, and every deck's row is under the minimum


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    folder = tmp_path_factory.mktemp("data-tables")
    return build_store(str(folder / "events.sqlite"), folder, matches=20)


@pytest.fixture(scope="module")
def client(built: Built):
    with TestClient(create_app(built.store, analytics=built.analytics, deck_lists=True)) as c:
        yield c


@pytest.fixture(scope="module")
def pages(built: Built, client, tmp_path_factory) -> dict[str, str]:
    """The served dashboard and ``zx report --deck-lists``'s file, for the same minimum of games."""
    out = tmp_path_factory.mktemp("data-tables-report") / "meta.html"
    r = CliRunner().invoke(zx, ["--store", built.store, "report", "--analytics", str(built.analytics), "--deck-lists",
                                "--min-games", str(MIN_GAMES), "-o", str(out)])
    assert r.exit_code == 0, r.output
    return {"dashboard": client.get("/dashboard", params={"min_games": MIN_GAMES}).text,
            "report": out.read_text(encoding="utf-8")}


def tables(page: str) -> dict[str, tuple[list[str], list[dict[str, str]]]]:
    """Each section's data table: its headers and its rows (header: cell text)."""
    out = {}
    for key, body in re.findall(r'<section class="chart-section" id="([^"]+)">(.*?)</section>', page, re.S):
        if "<table" not in body:
            continue
        table = body[body.index("<table"):body.index("</table>")]
        text = lambda cell: html_text.unescape(re.sub(r"<[^>]+>", "", cell))  # noqa: E731
        heads = [text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
        rows = [dict(zip(heads, map(text, re.findall(r"<td[^>]*>(.*?)</td>", tr))))
                for tr in re.findall(r"<tr class=[^>]*>(.*?)</tr>", table, re.S)]
        out[key] = (heads, rows)
    return out


def test_every_data_table_heads_its_columns_in_words_and_writes_no_python_value(pages):
    """No header is a key (an underscore, a lower-case first letter: low_sample, gih_wr), and no cell is a Python
    value (True, False, None) or a bare fraction (0.487): rates are percentages, 17lands' short names kept."""
    for name, page in pages.items():
        found = tables(page)
        assert set(found) == {"share", "trend", "winrates", "matchups", "first", "attacks", "life", "cards"}, name
        for key, (heads, rows) in found.items():
            assert rows, (name, key)
            assert not [h for h in heads if "_" in h or not h[:1].isupper()], (name, key, heads)
            cells = [c for r in rows for c in r.values()]
            assert not {"True", "False", "None"} & set(cells), (name, key)
            assert not [c for c in cells if re.fullmatch(r"0\.\d{3}", c)], (name, key, rows[0])
        heads = found["cards"][0]
        assert {"GIH WR", "GIH WR 95% interval", "IWD", "OH WR", "GD WR", "GNS WR", "Played WR"} <= set(heads), heads
        assert "Attacked Z/X destroyed" in found["attacks"][0]  # the outcome in the game's words


@pytest.mark.parametrize("min_games", [MIN_GAMES, MIN_GAMES + 1])
def test_win_rates_read_as_the_chart_writes_them_and_the_json_api_keeps_its_keys_and_numbers(client, pages,
                                                                                             min_games):
    """The win rate by deck's rows: the rate as a percentage, its interval one column, "below minimum" where the
    row rests on fewer games than the minimum (else "enough"); the API's rows are the same, in keys and fractions.
    (Each deck of the store has 8 games: every row is enough at 8, below the minimum at 9.)"""
    api = client.get("/api/stats/winrates", params={"by": "deck", "min_games": min_games}).json()
    assert {"win_rate", "win_rate_low", "win_rate_high", "low_sample"} <= set(api["columns"])
    rows = api["rows"]
    assert {r["low_sample"] for r in rows} == {min_games > MIN_GAMES}
    assert all(isinstance(r["win_rate"], float) and isinstance(r["low_sample"], bool) for r in rows)
    expected = {r["deck"]: {"Deck": r["deck"], "Games": str(r["games"]), "Wins": str(r["wins"]),
                            "Losses": str(r["losses"]), "Draws": str(r["draws"]), "Win rate": pct(r["win_rate"]),
                            "Win rate 95% interval": f"{pct(r['win_rate_low'])}–{pct(r['win_rate_high'])}",
                            "Sample": "below minimum" if r["low_sample"] else "enough"} for r in rows}
    shown = dict(pages) if min_games == MIN_GAMES else {}
    shown["dashboard"] = client.get("/dashboard", params={"min_games": min_games}).text
    for name, page in shown.items():
        heads, got = tables(page)["winrates"]
        assert heads == ["Deck", "Games", "Wins", "Losses", "Draws", "Win rate", "Win rate 95% interval", "Sample"]
        assert {r["Deck"]: r for r in got} == expected, name
        low = re.findall(r'<tr class="(low|)">', page[page.index('id="winrates"'):page.index('id="matchups"')])
        assert sorted(low) == sorted("low" if r["low_sample"] else "" for r in rows), name  # still greyed


def test_card_rates_and_iwd_read_as_percentages_and_points(client, pages):
    """The per-card table (published hands: --deck-lists): GIH WR and the other rates as percentages, IWD in
    percentage points, signed, as the API's fractions give them."""
    rows = {r["card"]: r for r in client.get("/api/stats/cards", params={"min_games": MIN_GAMES}).json()["rows"]}
    for name, page in pages.items():
        _, shown = tables(page)["cards"]
        assert shown, name
        for row in shown:
            r = rows[row["Card"]]
            assert row["GIH WR"] == pct(r["gih_wr"]) and row["GIH games"] == str(r["gih_games"]), (name, row)
            assert row["IWD"] == ("-" if r["iwd"] is None else f"{r['iwd'] * 100:+.1f} pp"), (name, row)
