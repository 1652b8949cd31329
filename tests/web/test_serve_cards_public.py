"""The per-card figures a server or a report shares without ``--deck-lists`` or ``--judge``: only what
every spectator saw. A card in a hand is hidden from all but its owner (Z/X 301.3c; X610Z 502.3-502.4), so
they list only the cards played, with their played figures; the hand figures (GIH, OH, GD) and the deck-list
figures (deck, GNS, IWD) come with ``--deck-lists`` or ``--judge``.

QA's case: P1 "Mio" keeps R01-008 Ashen Sky Tyrant and R01-009 Scorchclaw Raider in hand all match, never
played nor revealed (the spectator's view: ``Hand: 2 hidden``); ``zx report --player Mio``,
``/api/stats/cards?player=Mio`` and ``/dashboard?player=Mio`` listed both, with their opening-hand games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = ("R01-008", "Ashen Sky Tyrant", "R01-009", "Scorchclaw Raider")  # kept in Mio's hand, never played
PLAYED = ("R01-002", "Cinder Hatchling")  # played by Mio on turn 1
PLAYED_FIGURES = {"card", "name", "played_games", "played_wins", "played_wr", "played_wr_low", "played_wr_high",
                  "low_sample"}
ONE_MATCH = [{"player": "Mio"}, {"since": "2026-11-02", "until": "2026-11-02"}, {"event": "Mio Cup"}]


def hand_kept_log() -> str:
    """A legal Z/X match (first-turns.zxlog's header; QA's mklog.py) where P1, Mio, keeps R01-008 and
    R01-009 in hand from the opening hand to the end; P2 concedes on turn 2."""
    header = json.loads((ROOT / "examples" / "legal" / "first-turns.zxlog").read_text().splitlines()[0])
    header.update(match="hand-1", played_at="2026-11-02T14:03:00+09:00", event="Mio Cup")
    header["players"]["P1"]["name"] = "Mio"
    records = [header,
               {"do": "setup", "by": "P1", "hand": ["R01-008", "R01-009", "R01-002", "R01-004"],
                "life": ["R01-010", "R01-011", "R01-005", "R01-013"], "resource": ["R01-001", "R01-002"]},
               {"do": "setup", "by": "P2", "hand": ["U01-001", "U01-002", "U01-003", "U01-004"],
                "life": ["U01-011", "U01-013", "U01-005", "U01-006"], "resource": ["U01-001", "U01-002"]},
               {"do": "turn", "by": "P1", "turn": 1}, {"do": "resource", "by": "P1", "card": "R01-004"},
               {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"},
               {"do": "end", "by": "P1"}, {"do": "turn", "by": "P2", "turn": 2},
               {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]}, {"do": "concede", "by": "P2"},
               {"do": "result", "by": "P1", "winner": "P1", "reason": "P2 conceded"}]
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[str, Path]:
    """Mio's match beside another (first-turns.zxlog: another player, day and event)."""
    folder = tmp_path_factory.mktemp("cards-public")
    log = folder / "hand-kept.zxlog"
    log.write_text(hand_kept_log(), encoding="utf-8")
    path, analytics = str(folder / "events.sqlite"), folder / "events.duckdb"
    other = ROOT / "examples" / "legal" / "first-turns.zxlog"
    r = CliRunner().invoke(zx, ["--store", path, "import", str(log), str(other)], env={"ZX_ANALYTICS": str(analytics)})
    assert r.exit_code == 0, r.output
    return path, analytics


@pytest.fixture(scope="module")
def client(store):
    with TestClient(create_app(store[0], analytics=store[1])) as c:
        yield c


def report(store: tuple[str, Path], out: Path, params: dict[str, str], *flags: str) -> bytes:
    args = [a for k, v in params.items() for a in (f"--{k}", v)]
    r = CliRunner().invoke(zx, ["--store", store[0], "report", "--analytics", str(store[1]), "--min-games", "1",
                                "-o", str(out), *args, *flags])
    assert r.exit_code == 0, r.output
    return out.read_bytes()


@pytest.mark.parametrize("params", ONE_MATCH, ids=["player", "day", "event"])
def test_cards_kept_in_hand_are_in_no_shared_figure_301_3c(store, client, tmp_path, params):
    """Narrowed to Mio's one match, the figures shared without --deck-lists list R01-002 (played) with its
    played figures only, and neither card Mio kept hidden in hand: not in the API's rows, not in the
    dashboard's page, not anywhere in the report's bytes."""
    rows = client.get("/api/stats/cards", params={**params, "min_games": 1}).json()["rows"]
    assert [r["card"] for r in rows] == ["R01-002"] and set(rows[0]) == PLAYED_FIGURES
    assert rows[0]["played_games"] == rows[0]["played_wins"] == 1 and rows[0]["played_wr"] == 1.0
    page = client.get("/dashboard", params={**params, "min_games": 1}).text
    shared = report(store, tmp_path / "meta.html", params)
    for text, where in ((page, "dashboard"), (shared.decode("utf-8"), "report")):
        assert not [h for h in HIDDEN if h in text], where
        assert all(p in text for p in PLAYED), where
        cards = text.split('id="cards"')[1]
        assert '>Played WR 95% interval</th>' in cards and "gih_" not in cards and "oh_games" not in cards, where
        assert not [h for h in (">GIH WR<", ">GIH games<", ">OH games<", ">IWD<") if h in cards], where
        assert "--deck-lists" in cards and "win rate when played" in cards, where  # the note, the chart's axis


def test_cards_kept_in_hand_are_shown_where_the_hands_are_published(store, client, tmp_path):
    """With --deck-lists (the deck lists and hands published, as after an event) or --judge: every
    per-card figure, the cards kept in hand included, as ``zx stats cards`` gives them."""
    params = {"player": "Mio", "min_games": 1}
    r = CliRunner().invoke(zx, ["--store", store[0], "stats", "cards", "--analytics", str(store[1]), "--player", "Mio",
                                "--min-games", "1", "--format", "json"])
    assert r.exit_code == 0, r.output
    expected = json.loads(r.stdout)
    assert {"R01-008", "R01-009"} <= {r["card"] for r in expected}  # the analyst's own machine: every figure
    for option in ("deck_lists", "judge"):
        with TestClient(create_app(store[0], analytics=store[1], **{option: True})) as published:
            assert published.get("/api/stats/cards", params=params).json()["rows"] == expected, option
            page = published.get("/dashboard", params=params).text
            assert all(h in page for h in HIDDEN) and '>GIH WR</th>' in page, option
    shared = report(store, tmp_path / "meta.html", {"player": "Mio"}, "--deck-lists").decode("utf-8")
    assert all(h in shared for h in HIDDEN) and '>GIH WR</th>' in shared


def test_a_match_where_no_card_was_played_says_so_in_the_card_section(store, client):
    """P2 (first-turns' player of the Mio match) played nothing: the section says why it is empty."""
    page = client.get("/dashboard", params={"event": "Mio Cup", "seat": "second", "min_games": 1}).text
    cards = page.split('id="cards"')[1]
    assert "no card was played in these matches (cards kept in hand are not shown)" in cards
    assert not [h for h in ("U01-001", "U01-002", "U01-003", "U01-004") if h in cards]
