"""A card a record names but that stayed in a hidden zone is shown only to the seats that see that zone, on every
surface (zx replay's table and JSON, zx view's file, zx serve's view and steps):

- X610Z, digest.8: a cast announced as nothing (402.6, 200.1a: ``void`` on the stack, "refused: it fizzles")
  moves no card; the card stays in its owner's hand, which is his only (502.3);
- Z/X, a record not applied (``zx import --accept-violations``): a refused ``reload`` or ``life`` leaves its
  card face-down in Life, seen by nobody but the judge (301.3c)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

from seat_support import replay, stored_as_played, view_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
VOID = "qa-void-cast"  # tests/data/x610z-void-cast.x610zlog: line 67, P1 casts Storm Caller (A1-024) at dot Z9
RELOAD = "invalid-902-reload-with-cards-in-deck"  # line 6: P1 reloads R01-010 from Life with cards in the deck
LIFE = "qa-refused-life"  # tests/data/zx-refused-life.zxlog: line 6, a Life card U01-013 when no damage is due
OTHERS = ("P2", "spectator")


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    return stored_as_played(tmp_path_factory.mktemp("refused"), [
        DATA / "x610z-void-cast.x610zlog", DATA / "zx-refused-life.zxlog",
        ROOT / "examples" / "invalid" / "902-reload-with-cards-in-deck.zxlog"])


@pytest.fixture(scope="module")
def client(store):
    with TestClient(create_app(store), raise_server_exceptions=False) as c:
        yield c


# ---------------------------------------------------------------------- X610Z: a void cast (digest.8, 502.3)
@pytest.mark.parametrize("seat", OTHERS)
def test_a_void_cast_names_its_card_in_hand_to_no_other_seat_502_3(store, client, seat, tmp_path):
    table = replay(store, VOID, seat)
    assert "line 67: P1 cast {\"card\": \"?\"" in table
    assert "Stack (top last): P1 cast ? (refused: it fizzles)" in table
    assert "A1-024" not in table and "Storm Caller" not in table
    state = json.loads(replay(store, VOID, seat, "--format", "json"))
    assert state["stack"] == [{"by": "P1", "card": "?", "id": 67, "kind": "cast", "void": True}]
    assert "A1-024" not in json.dumps(state)
    page = view_file(store, VOID, seat, tmp_path)
    assert b"A1-024" not in page and b"Storm Caller" not in page
    api = client.get(f"/api/matches/{VOID}/view", params={"as": seat})
    assert api.status_code == 200 and api.json()["stack"][0]["card"] == "?"
    assert "A1-024" not in api.text and "Storm Caller" not in api.text
    steps = client.get(f"/api/matches/{VOID}/steps", params={"as": seat, "start": 60})
    assert steps.status_code == 200 and "A1-024" not in steps.text and "Storm Caller" not in steps.text


def test_a_void_cast_shows_its_card_to_its_owner_and_the_judge(store, tmp_path):
    for seat in ("P1", "judge"):
        assert "Stack (top last): P1 cast A1-024 Storm Caller (refused: it fizzles)" in replay(store, VOID, seat)
        state = json.loads(replay(store, VOID, seat, "--format", "json"))
        assert state["stack"][0]["card"] == "A1-024" and state["names"]["A1-024"] == "Storm Caller"
    assert b"Storm Caller" in view_file(store, VOID, "P1", tmp_path)


def test_a_void_casts_stack_entry_in_chromium_names_no_card_for_p2(browser, store, tmp_path):
    view_file(store, VOID, "P2", tmp_path)
    browser.get((tmp_path / f"{VOID}-P2.html").as_uri())
    browser.execute_script("zxViewer.go(zxViewer.data.last)")
    text = browser.find_element("css selector", "[data-field=stack]").text
    assert text == "Stack (top last): P1 cast ? (refused: it fizzles)"
    assert "A1-024" not in browser.find_element("id", "events").text


# ---------------------------------------------------------------------- Z/X: records not applied (301.3c)
@pytest.mark.parametrize("match, line", [(RELOAD, 'line 6: P1 reload {"life": "?"}'),
                                         (LIFE, 'line 6: P2 life {"card": "?"}')])
@pytest.mark.parametrize("seat", ("P1", "P2", "spectator"))
def test_a_record_not_applied_names_no_life_card_to_any_seat_but_the_judge_301_3c(store, client, tmp_path, match,
                                                                                   line, seat):
    card = "R01-010" if match == RELOAD else "U01-013"
    table = replay(store, match, seat, "--event", "7")
    assert line in table and card not in table
    assert card not in view_file(store, match, seat, tmp_path).decode()
    if seat != "judge":
        steps = client.get(f"/api/matches/{match}/steps", params={"as": seat, "limit": 8}).json()["steps"]
        assert [s["record"] for s in steps if s["line"] == 6][0] is not None
        assert card not in json.dumps(steps)


def test_a_record_not_applied_still_names_its_card_to_the_judge(store):
    assert 'line 6: P1 reload {"life": "R01-010"}' in replay(store, RELOAD, "judge", "--event", "7")
    assert 'line 6: P2 life {"card": "U01-013"}' in replay(store, LIFE, "judge", "--event", "7")


class ViolationRecorded:  # the event of a record not applied: it carries the record (``rec``)
    def __init__(self, rec: dict) -> None:
        self.rec = rec


@pytest.mark.parametrize("rec, owner_sees", [
    ({"do": "resource", "by": "P1", "card": "R01-009"}, True),  # stays in the hand
    ({"do": "play", "by": "P1", "card": "R01-002", "square": "a1"}, True),
    ({"do": "end", "by": "P1", "discard": ["R01-004"]}, True),
    ({"do": "ignition", "by": "P1", "charge": "R01-001", "revealed": "R01-005"}, False),  # stays on the deck
    ({"do": "draw", "by": "P1", "cards": ["R01-005"]}, False),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-006", "from": "life", "to": "hand"}, False),
    ({"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-006", "from": "hand", "to": "deck"}, True),
])
def test_each_zx_record_not_applied_names_a_hidden_card_only_to_who_sees_where_it_stayed(rec, owner_sees):
    from zx_events.games.zx.views import redact_record

    refused = (ViolationRecorded(rec),)
    named = {k: v for k, v in rec.items() if k in ("card", "discard", "revealed", "cards")}
    back = {k: ["?"] * len(v) if isinstance(v, list) else "?" for k, v in named.items()}
    for seat in ("P2", "spectator"):
        out = redact_record(rec, seat, events=refused)
        assert {k: out[k] for k in named} == back, out
    own = redact_record(rec, "P1", events=refused)
    assert {k: own[k] for k in named} == (named if owner_sees else back), own
    assert redact_record(rec, "judge", events=refused) == rec
    assert redact_record(rec, "P1") == rec  # applied: as before


# ---------------------------------------------------------------------- Z/X: a late end (LateRecord)
def test_a_late_end_names_its_discard_to_every_seat_as_the_card_goes_to_the_trash_301_3c(tmp_path):
    """An `end` written after the next `turn` record (its finding at the turn record stands for it) was stored as a
    ``RecordSkipped`` event, its discard kept in its owner's hand and hidden from the other seats. Now its discard is
    applied (a ``LateRecord`` event): the card goes to the Trash, a public zone, and every seat reads it."""
    from zx_events.games.zx.sim import simulate

    sim = list(simulate(3, 7, policy="mixed"))[2]
    recs = list(sim.records)
    i = next(i for i in range(len(recs) - 1) if recs[i]["do"] == "end" and recs[i].get("discard")
             and recs[i + 1]["do"] == "turn")
    recs[i], recs[i + 1] = recs[i + 1], recs[i]
    (card,) = recs[i + 1]["discard"]
    owner, line = recs[i + 1]["by"], i + 3  # (the header is line 1)
    log = tmp_path / "late-end.zxlog"
    log.write_text("".join(json.dumps(r) + "\n" for r in [{**sim.header, "match": "late-end"}, *recs]))
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--accept-violations", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output

    def step(seat: str, at: int = line) -> dict:
        out = replay(store, "late-end", seat, "--to", "end", "--format", "json")
        return next(d for d in map(json.loads, out.splitlines()) if d["line"] == at)

    held = step("judge", line - 1)["state"]["players"][owner]["hand"].count(card)
    judged = step("judge")
    assert [e["kind"] for e in judged["events"]] == ["LateRecord"]
    assert judged["state"]["players"][owner]["hand"].count(card) == held - 1
    assert card in judged["state"]["players"][owner]["trash"]
    for seat in ("P1", "P2", "spectator"):
        shown = step(seat)
        assert shown["record"] == recs[i + 1] and card in shown["state"]["players"][owner]["trash"], shown
        table = replay(store, "late-end", seat, "--to", "end")
        assert f"line {line}: {owner} end" in table and card in table.split(f"line {line}:")[1].split("\n")[0]
        assert "[record not applied]" not in table.split(f"line {line}:")[1].split("\n")[0]
        page = view_file(store, "late-end", seat, tmp_path)
        assert f'"discard": ["{card}"]'.encode() in page or f"discard=[{card}]".encode() in page


def test_a_draw_under_the_other_seat_names_its_cards_only_to_the_player_who_drew_them_301_3(tmp_path):
    """A Z/X `draw` written under the other player's seat is taken as the turn player's (digest.7): the cards go to
    the turn player's hand, but the record was masked by its ``by``, so the seat that wrote it read them (table,
    JSON, the zx view file) while their owner read ``?``."""
    from zx_events.games.zx.sim import simulate

    sim = list(simulate(1, 7))[0]
    recs = [dict(r) for r in sim.records]
    i = next(i for i, r in enumerate(recs) if r["do"] == "draw" and r["by"] == "P2")
    drawer, cards = "P2", recs[i]["cards"]
    recs[i]["by"] = "P1"
    log = tmp_path / "draw-seat.zxlog"
    log.write_text("".join(json.dumps(r) + "\n" for r in [{**sim.header, "match": "draw-seat"}, *recs]))
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--accept-violations", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
    line = i + 2  # (the header is line 1)

    def record(seat: str) -> dict:
        out = replay(store, "draw-seat", seat, "--to", "end", "--format", "json")
        return next(d for d in map(json.loads, out.splitlines()) if d["line"] == line)["record"]

    assert record("judge")["cards"] == cards
    assert record(drawer)["cards"] == cards  # the hand they went to
    for seat in ("P1", "spectator"):
        assert record(seat)["cards"] == ["?"] * len(cards), seat
        table = replay(store, "draw-seat", seat, "--to", "end")
        shown = table.split(f"line {line}:")[1].split("\n")[0]
        assert all(c not in shown for c in cards), shown
        page = view_file(store, "draw-seat", seat, tmp_path).decode()
        assert f"cards=[{' '.join(cards)}]" not in page
