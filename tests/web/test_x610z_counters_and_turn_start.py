"""QA round 38, X610Z: a summon's counters on every surface, and where a turn begins.

209.2d: "A Time Counter placed on a permanent indicates how many times the permanent can be reactivated during its
controller's reactivation phase before it is moved to the Discard Pile" (the catalog's ``time:N``). A summon's were
shown nowhere: the terminal legend, ``zx replay --format json``'s ``dots`` and the viewer showed a crystal's or an
Effect's counters (``perms``; the viewer not even those) but never a summon's. Counters are physical markers: public.

``zx replay --turn N`` ("right after its turn record"), the server's ``?turn=N`` and the viewer's turn buttons stopped
at the turn's ``TurnStarted`` event, before the rest of its `turn` record: at turn 9 the Guardian Spirit whose Time
Counter ran out (209.2f) still stood on the board. Z/X's `turn` record ends with its TurnStarted, and lands there.

The log is QA's E (its make_logs.py): P1 places a Guardian Spirit (A1-025, time:3) on A2 in turn 3 (a shortcut effect
of his Iron Keep; the engine reads no card text), deactivates and reactivates it twice by effects (209.2e: no counter
taken), casts a Watchtower (A1-050, activation:3); the Spirit's counter goes down in P1's turns 5 and 7 and runs out
in turn 9."""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from zx_web.app import create_app

from seat_support import browser_at_turn, replay, stored_as_played

ROOT = Path(__file__).resolve().parents[2]
MATCH = "qa38-time-counter"
ZX_MATCH = "hand-first-turns-001"  # examples/legal/first-turns.zxlog

P1_DECK = {"A1-002": 1, "A1-010": 16, "A1-011": 9, "A1-020": 3, "A1-022": 3, "A1-023": 3, "A1-025": 3,
           "A1-030": 3, "A1-031": 3, "A1-040": 3, "A1-050": 2, "A1-032": 3}
P2_DECK = {"A1-002": 1, "A1-010": 10, "A1-011": 19, "A1-020": 3, "A1-021": 3, "A1-022": 3, "A1-030": 3,
           "A1-031": 3, "A1-032": 3, "A1-040": 3, "A1-050": 2}
P1_HAND = ["A1-010", "A1-011", "A1-025", "A1-050", "A1-031", "A1-040", "A1-022"]
P2_HAND = ["A1-010", "A1-011", "A1-020", "A1-021", "A1-022", "A1-031", "A1-032"]


def r(do: str, by: str, **f) -> dict:
    return {"do": do, "by": by, **f}


def eff(op: str, **f) -> dict:
    return r("effect", "P1", source="S1", op=op, **f)


def pp(a: str) -> list[dict]:
    return [r("pass", "P2" if a == "P1" else "P1"), r("pass", a)]


def battle() -> list[dict]:
    """Three turns: P1's Sky Vessel on B1, P2's on B5; turn 3 (P1) has drawn."""
    return [r("setup", "P1", dot="S1", hand=P1_HAND), r("setup", "P2", dot="S4", hand=P2_HAND), r("turn", "P1"),
              r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-011"), r("energy", "P1", crystal="A1-011"),
              r("cast", "P1", card="A1-022", pay={}, dot="E1")] + pp("P1") + [
        r("move", "P1", **{"from": "E1"}, path=["B1"], pay={"B": 1})] + pp("P1") + [
        r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"),
        r("cast", "P2", card="A1-022", pay={}, dot="E4")] + pp("P2") + [
        r("energy", "P2", crystal="A1-011"), r("move", "P2", **{"from": "E4"}, path=["E5", "B5"], pay={"B": 1})] + \
        pp("P2") + [r("end", "P2"), r("turn", "P1"), r("draw", "P1", card="A1-010")]


def records() -> list[dict]:
    recs = battle() + [eff("place", card="A1-025", dot="A2", **{"from": "hand"}),
                     eff("deactivate", dot="A2"), eff("reactivate", dot="A2"),
                     eff("deactivate", dot="A2"), eff("reactivate", dot="A2"),
                     eff("energy", type="C", amount=2), r("cast", "P1", card="A1-050", pay={"C": 2})] + pp("P1")
    for _ in range(3):  # a quiet P2 turn, then P1's turn (turns 5, 7, 9)
        recs += [r("end", "P1"), r("turn", "P2"), r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"),
                 r("end", "P2"), r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-010")]
    return recs + [r("end", "P1")]


DRAW = "qa38-both-life-bases"  # QA's D: Discount's resolution deals 12 damage to each Iron Keep (106.1a, digest.13)
DRAW_TEXT = "both Life Bases left play at once (one resolution's effects took both out of play; 106.1a)"


def both_life_bases() -> list[dict]:
    discount = [r("effect", "P1", source="A1-031", op="damage", dot=d, amount=12) for d in ("S4", "S1")]
    return battle() + [r("energy", "P1", crystal="A1-011"), r("cast", "P1", card="A1-031", pay={"B": 1})] + pp("P1") \
        + discount + [r("result", "P1", winner=None, reason="simultaneous")]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("counters")
    logs = []
    for match, recs in ((MATCH, records()), (DRAW, both_life_bases())):
        header = {"x610zlog": 1, "rules": "x610z-cr-1.1", "match": match, "catalog": "x610z-sample",
                  "board": "x610z-orbits-sample", "first": "P1",
                  "players": {"P1": {"name": "Ann", "deck": P1_DECK}, "P2": {"name": "Bob", "deck": P2_DECK}}}
        logs.append(folder / f"{match}.x610zlog")
        logs[-1].write_text("".join(json.dumps(x) + "\n" for x in [header] + recs))
    return stored_as_played(folder, [*logs, ROOT / "examples" / "legal" / "first-turns.zxlog"])


@pytest.fixture(scope="module")
def client(store):
    with TestClient(create_app(store, analytics=Path(store).with_suffix(".duckdb"))) as c:
        yield c


def view(store: str, seat: str, *args: str, match: str = MATCH) -> dict:
    return json.loads(replay(store, match, seat, "--format", "json", *args))


@pytest.mark.parametrize("seat", ("P2", "spectator", "judge"))
def test_209_2d_a_summons_time_counter_shows_in_the_terminal_csv_and_json(store, seat):
    # turn 5: one reactivation in its controller's Reactivation Phase (209.2e; the effects' reactivations took none)
    assert view(store, seat, "--turn", "5")["dots"]["A2"]["counters"] == {"time": 2}
    table = replay(store, MATCH, seat, "--turn", "7")
    assert "1a on A2: Guardian Spirit (P1) A1 D5 S1 R1, time 1" in table
    assert "A1-050 Watchtower (effect, activation 3)" in table  # (a permanent's, as before)
    rows = list(csv.DictReader(io.StringIO(replay(store, MATCH, seat, "--turn", "7", "--format", "csv"))))
    assert [r_["detail"] for r_ in rows if r_["dot"] == "A2"] == ["time 1"]
    assert [r_["detail"] for r_ in rows if r_["code"] == "A1-050" and r_["zone"] == "play"] == ["effect, activation 3"]
    dots = view(store, seat, "--turn", "7")["dots"]
    assert dots["A2"]["counters"] == {"time": 1} and dots["B1"]["counters"] == {}


def test_turn_n_begins_after_every_event_of_its_turn_record_209_2f(store, client):
    """Turn 9's `turn` record: TurnStarted (the Reactivation Phase takes the Spirit's last counter), then the Spirit
    moves to P1's Discard Pile (209.2f). --turn 9 lands after both, in the terminal, JSON and the served view."""
    at = view(store, "P1", "--turn", "9")
    assert "A2" not in at["dots"] and "A1-025" in at["players"]["P1"]["discard"] and at["turn"] == 9
    assert at["seq"] == view(store, "P1", "--turn", "8")["seq"] + 6  # (turn 8: turn, draw, crystal, end; turn 9)
    table = replay(store, MATCH, "P1", "--turn", "9")
    assert f"seq {at['seq']}/" in table and " on A2: " not in table  # (no pawn on A2 in the legend)
    assert "moves to P1's Discard Pile as its Time Counter ran out (209.2f)" in table
    served = client.get(f"/api/matches/{MATCH}/view", params={"turn": 9, "as": "P2"}).json()
    assert served["seq"] == at["seq"] and "A2" not in served["dots"]


def test_zx_turn_n_begins_at_its_turn_started_event_which_ends_its_record(store, client):
    """Z/X (the shared replay code, its game naming no event after TurnStarted): --turn N is TurnStarted's seq, the last
    event of its `turn` record, as before."""
    from zx_events import replay as rp
    from zx_events.application import MatchService

    svc = MatchService(store)
    try:
        hist = rp.load_history(svc, ZX_MATCH)
        assert len(hist.turns) == 3
        for n, seq in enumerate(hist.turns, 1):
            assert hist.turn_seq(n) == seq
            assert hist.bounds[hist.step_of(seq)][1] == seq  # the step's (the `turn` record's) last event
            assert type(hist.events[seq - 1]).__name__ == "TurnStarted"
            assert rp.turn_starts(svc, ZX_MATCH)[n - 1] == seq
            assert view(store, "judge", "--turn", str(n), match=ZX_MATCH)["seq"] == seq
            assert client.get(f"/api/matches/{ZX_MATCH}/view", params={"turn": n}).json()["seq"] == seq
    finally:
        svc.close()


def test_the_viewer_draws_a_summons_and_a_permanents_counters_and_begins_turns_after_their_records(browser, store,
                                                                                                   tmp_path):
    browser_at_turn(browser, store, MATCH, "P2", 7, tmp_path)
    pawn = browser.find_element("css selector", "#board [data-field=pawns] li[data-dot=A2]")
    assert pawn.text.endswith("Guardian Spirit (P1) A1 D5 S1 R1, time 1")
    title = browser.execute_script("return document.querySelector('#board g.pawn[data-code=\"A1-025\"] title')"
                                   ".textContent")
    assert title == "1a on A2: Guardian Spirit (P1) A1 D5 S1 R1, time 1"
    watchtower = browser.find_element("css selector", "[data-player=P1] [data-zone=play] [data-code='A1-050']")
    assert watchtower.find_element("css selector", "[data-field=counters]").text == "activation 3"
    # the turn buttons land where zx replay --turn does: turn 9 after the Spirit left (209.2f)
    nine = view(store, "P2", "--turn", "9")["seq"]
    assert browser.execute_script("return zxViewer.data.begins[8]") == nine
    browser.execute_script(f"zxViewer.go({nine - 2})")
    browser.find_element("css selector", "#next-turn").click()
    assert browser.execute_script("return zxViewer.seq()") == nine
    assert not browser.find_elements("css selector", "#board [data-field=pawns] li[data-dot=A2]")


def test_106_1a_a_draw_by_one_resolution_says_so_on_every_surface(store, client, browser, tmp_path):
    """MatchEnded's ``how`` (digest.13, as Z/X's): the Life Bases left play by a resolution's effects, the loss checked
    when it ended. The terminal, the narration, the match page and its JSON, and the viewer say it alike."""
    table = replay(store, DRAW, "spectator")
    assert f"Result: a draw: {DRAW_TEXT}" in table
    steps = replay(store, DRAW, "spectator", "--to", "end")
    assert f"The match ends: a draw: {DRAW_TEXT}" in " ".join(steps.split())
    assert view(store, "P1", match=DRAW)["outcome"] == {"winner": None, "reason": "simultaneous", "how": "effect"}
    result = client.get(f"/api/matches/{DRAW}").json()["result"]
    assert (result["how"], result["reason_text"]) == ("effect", DRAW_TEXT)
    page = html.unescape(" ".join(client.get(f"/matches/{DRAW}").text.split()))
    assert f'<span id="reason">{DRAW_TEXT}</span>' in page
    browser_at_turn(browser, store, DRAW, "P2", 3, tmp_path)
    browser.execute_script("zxViewer.go(zxViewer.data.last)")
    assert browser.find_element("css selector", "[data-field=outcome]").text == f"Match over: a draw: {DRAW_TEXT}"
    page = client.get(f"/matches/{DRAW}/replay").text  # (its line where its scripts do not run: the same words)
    said = html.unescape(page[page.index('id="no-script-result">') + 22:].split("</p>", 1)[0])
    assert said.startswith(f"A draw: {DRAW_TEXT} · "), said


def test_the_viewers_words_for_how_both_life_bases_left_play_are_the_rules():
    """web/board.js's LIFE_BASES_GONE is rules.py's (the terminal's and the match page's)."""
    import re

    from zx_events.games.x610z.rules import LIFE_BASES_GONE

    js = (ROOT / "zx_events" / "games" / "x610z" / "web" / "board.js").read_text(encoding="utf-8")
    found = re.search(r"var LIFE_BASES_GONE = \{(.*?)\};", js, re.S).group(1)
    assert dict(re.findall(r'(\w+): "([^"]+)"', found)) == LIFE_BASES_GONE
