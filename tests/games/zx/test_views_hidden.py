"""Cards the rules hide stay hidden from P2 and spectators on every output (301.3, 302.3), and their
owner and the judge still see them.

Each case is a crafted match imported into a real SQLite store and read through the JSON of ``zx
replay --format json`` (its steps: record, events, state) and the HTTP API of ``zx serve``
(``/api/matches/{id}/view`` and ``/steps``):

- 301.3c / 302.3c: a card an effect moves from a hand or a deck into Dynamis is face-down there;
  only a Gate Card and a Z/X EX or EV EX that comes back are face-up (digest);
- 301.3b: a card an effect puts face-down on a Square: its Power and kind are not in the event;
- 301.3b: a Start Card is face-down on its Player Square until both players have set up (digest),
  also in the ``zx view`` HTML file;
- 301.3b / 301.3d: a face-down Force card is a card back the other seats count, not nothing, also
  in CSV and on the board.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from support import BOARD, SETUP, header, text
from zx_web.app import create_app

BLIND = ("P2", "spectator")  # the seats that may not see P1's hidden cards
SEEING = ("P1", "judge")


def stored(tmp_path: Path, records: list[dict], match: str, *options: str) -> str:
    log = tmp_path / f"{match}.zxlog"
    log.write_text(text(records, header(match)), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", *options, str(log)])
    assert r.exit_code == 0, r.output
    return store


def cli(store: str, *args: str) -> str:
    r = CliRunner().invoke(zx, ["--store", store, *args])
    assert r.exit_code == 0, r.output
    return r.stdout


def steps_json(store: str, match: str, seat: str) -> list[dict]:
    """Every step of ``zx replay --format json`` (record, events, state), as ``seat`` sees it."""
    out = cli(store, "replay", match, "--event", "1", "--to", "end", "--as", seat, "--format", "json")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


class Api:
    """``zx serve``'s API on the store: the players' server and the judge's (``--judge``)."""

    def __init__(self, store: str):
        self.store = store

    def __enter__(self) -> "Api":
        self._open = [TestClient(create_app(self.store)), TestClient(create_app(self.store, judge=True))]
        self.client, self.judge = (c.__enter__() for c in self._open)
        return self

    def __exit__(self, *exc: object) -> None:
        for c in self._open:
            c.__exit__(*exc)

    def get(self, seat: str, url: str, **params: object) -> dict:
        r = (self.judge if seat == "judge" else self.client).get(url, params={"as": seat, **params})
        assert r.status_code == 200, r.text
        return r.json()

    def steps(self, match: str, seat: str) -> list[dict]:
        return self.get(seat, f"/api/matches/{match}/steps", limit=500)["steps"]

    def view(self, match: str, seat: str, at: int | None = None) -> dict:
        return self.get(seat, f"/api/matches/{match}/view", **({} if at is None else {"at": at}))


def at_line(steps: list[dict], line: int) -> dict:
    (step,) = [s for s in steps if s["line"] == line]
    return step


def effect_args(step: dict) -> dict:
    (ev,) = [e for e in step["events"] if e["kind"] == "EffectApplied"]
    return ev["data"]["args"]


# ---------------------------------------------------------------------- 301.3c: Dynamis
GATE_SETUP = [dict(SETUP[0], gate="EX-R01"), SETUP[1]]
INTO_DYNAMIS = [
    *GATE_SETUP, *BOARD[2:],
    {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-004", "from": "hand", "to": "dynamis"},
    {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-015", "from": "deck", "to": "dynamis"},
    {"do": "play", "by": "P1", "card": "EX-R02", "from": "dynamis", "pay": ["R01-001", "R01-002"]},  # an EV EX
]
# R01-004 (Flamecrest Lancer) and R01-015 (Dragon's Roar) were never in a zone P2 or a spectator saw
SECRET_DYNAMIS = ("R01-004", "Flamecrest Lancer", "R01-015", "Dragon's Roar")


def test_301_3c_a_card_an_effect_moves_from_hand_or_deck_into_dynamis_is_face_down_there(tmp_path):
    store = stored(tmp_path, INTO_DYNAMIS, "hid-dyn")
    with Api(store) as api:
        for seat in BLIND:
            for where, state in (("zx replay", steps_json(store, "hid-dyn", seat)[-1]["state"]),
                                 ("/view", api.view("hid-dyn", seat)), ("/steps", api.steps("hid-dyn", seat)[-1]["state"])):
                p1 = state["players"]["P1"]
                # face-up: the Gate Card and the EV EX back from Temporary (digest); the rest only counted
                assert sorted(d["code"] for d in p1["dynamis"] if d["up"]) == ["EX-R01", "EX-R02"], (seat, where)
                assert [d for d in p1["dynamis"] if not d["up"]] == [{"code": None, "up": False}] * 7, (seat, where)
                assert p1["dynamis_count"] == 9
            shown = json.dumps([steps_json(store, "hid-dyn", seat), api.steps("hid-dyn", seat)])
            for secret in SECRET_DYNAMIS:
                assert secret not in shown, (seat, secret)
        for seat in SEEING:  # the owner looks at their own Dynamis (301.3c): the two cards, face-down
            for state in (steps_json(store, "hid-dyn", seat)[-1]["state"], api.view("hid-dyn", seat)):
                dyn = state["players"]["P1"]["dynamis"]
                assert {"code": "R01-004", "up": False} in dyn and {"code": "R01-015", "up": False} in dyn, seat
                assert sorted(d["code"] for d in dyn if d["up"]) == ["EX-R01", "EX-R02"], seat
    # the stored events and state are untouched (a stored match replays as it was checked): the view applies the rule
    from zx_events import replay
    from zx_events.application import MatchService

    svc = MatchService(store, create=False)
    try:
        m = replay.state_at(svc, "hid-dyn", None)
    finally:
        svc.close()
    assert {"code": "R01-004", "up": True} in m.p["P1"]["dynamis"]


# ---------------------------------------------------------------------- 301.3b: face-down on a Square
FACE_DOWN_C1 = {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-005", "from": "hand",
                "to": "square", "dest": "c1", "face": "down"}


def test_301_3b_a_card_put_face_down_on_a_square_shows_no_power_nor_kind_in_its_event(tmp_path):
    store = stored(tmp_path, [*BOARD, FACE_DOWN_C1], "hid-fd")
    line = len(BOARD) + 2
    with Api(store) as api:
        for seat in BLIND:
            for where, steps in (("zx replay", steps_json(store, "hid-fd", seat)), ("/steps", api.steps("hid-fd", seat))):
                step = at_line(steps, line)
                assert effect_args(step) == {"card": "?", "dest": "c1", "face": "down", "from": "hand",
                                             "to": "square"}, (seat, where)
                assert step["record"]["card"] == "?" and "base" not in step["record"], (seat, where)
                c1 = step["state"]["squares"]["c1"]
                assert (c1["code"], c1["name"], c1["base"], c1["power"], c1["kind"]) == (None, None, None, None, "card")
                shown = json.dumps(step)
                assert "R01-005" not in shown and "Magma Wyrm Sentinel" not in shown and "6000" not in shown
        for seat in SEEING:
            step = at_line(api.steps("hid-fd", seat), line)
            assert effect_args(step)["card"] == "R01-005" and effect_args(step)["base"] == 6000, seat
            assert at_line(steps_json(store, "hid-fd", seat), line)["state"]["squares"]["c1"]["code"] == "R01-005"


# ---------------------------------------------------------------------- 301.3b: the Start Card
START = [dict(SETUP[0], start_card="R01-007"), SETUP[1], {"do": "turn", "by": "P1"}]
START_SECRET = ("R01-007", "Inferno Drake Lord", "7500")


def test_301_3b_a_start_card_is_face_down_until_both_players_have_set_up(tmp_path):
    store = stored(tmp_path, START, "hid-start")
    with Api(store) as api:
        for seat in BLIND:
            for where, steps in (("zx replay", steps_json(store, "hid-start", seat)),
                                 ("/steps", api.steps("hid-start", seat))):
                p1_setup, p2_setup = at_line(steps, 2), at_line(steps, 3)
                # after P1's setup, P2 has not set up: a card back on b1, and the record and event say only where
                assert p1_setup["record"]["start_card"] == "?", (seat, where)
                (ev,) = p1_setup["events"]
                assert ev["data"]["start_card"] == {"code": "?", "square": "b1"}, (seat, where)
                b1 = p1_setup["state"]["squares"]["b1"]
                assert (b1["code"], b1["name"], b1["power"], b1["kind"]) == (None, None, None, "card"), (seat, where)
                shown = json.dumps(p1_setup)
                for secret in START_SECRET:
                    assert secret not in shown, (seat, where, secret)
                # both set up: it is face-up (the digest's setup flips the Start Cards)
                b1 = p2_setup["state"]["squares"]["b1"]
                assert (b1["code"], b1["power"]) == ("R01-007", 7500), (seat, where)
            assert api.view("hid-start", seat, at=2)["squares"]["b1"]["code"] is None
        for seat in SEEING:
            step = at_line(api.steps("hid-start", seat), 2)
            assert step["record"]["start_card"] == "R01-007" and step["state"]["squares"]["b1"]["power"] == 7500
            assert steps_json(store, "hid-start", seat)[1]["events"][0]["data"]["start_card"]["code"] == "R01-007"
    # the HTML file of zx view for P2 holds the Start Card only in states after both setups
    page = tmp_path / "p2.html"
    cli(store, "view", "hid-start", "--as", "P2", "-o", str(page))
    from zx_web import viewer

    data = viewer.decode(json.loads(_data_of(page.read_text(encoding="utf-8"))), "P2")
    assert data[1]["squares"]["b1"]["code"] is None and data[2]["squares"]["b1"]["code"] == "R01-007"


def test_301_3b_a_start_card_flips_at_turn_1_where_a_setup_left_out_is_done_unseen(tmp_path):
    """P2's setup written after the turn record: at `turn 1` (402) his setup left out is taken as done unseen there,
    so both players are set up and P1's Start Card flips at turn 1, as in a game whose setups were all written (the
    later setup only names P2's unknown cards). Before P2 was set up unseen, the Start Card stayed face-down until
    his setup record: past turn 1, while the game was under way."""
    late = [START[0], START[2], START[1], {"do": "end", "by": "P1"}]
    store = stored(tmp_path, late, "hid-late", "--accept-violations")
    with Api(store) as api:
        for seat in (*BLIND, *SEEING):
            for where, steps in (("zx replay", steps_json(store, "hid-late", seat)),
                                 ("/steps", api.steps("hid-late", seat))):
                p1_setup, turn = at_line(steps, 2), at_line(steps, 3)
                assert p1_setup["state"]["squares"]["b1"]["code"] == (None if seat in BLIND else "R01-007"), \
                    (seat, where)
                assert turn["state"]["squares"]["b1"]["code"] == "R01-007", (seat, where)


def test_301_3b_a_setup_left_out_is_done_unseen_at_turn_1_and_the_start_cards_flip_there(tmp_path):
    """A log whose P2 never sets up: his setup is taken as done unseen at turn 1 (402), the Start Cards flip there
    (P1's R01-007 on b1) and every card P1 plays shows (with the flip tied to both setups, before that change, P1's
    Start Card stayed face-down for the whole match; before the flip was tied to them, every card he played did)."""
    never = [START[0], START[2], {"do": "resource", "by": "P1", "card": "R01-009"},
             {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"},
             {"do": "end", "by": "P1"}]
    store = stored(tmp_path, never, "hid-never", "--accept-violations")
    for seat in BLIND:
        last = steps_json(store, "hid-never", seat)[-1]["state"]["squares"]
        assert last["a1"]["code"] == "R01-002" and last["b1"]["code"] == "R01-007", seat


def _data_of(page: str) -> str:
    import re

    m = re.search(r'<script type="application/json" id="zx-data">(.*?)</script>', page, re.S)
    assert m, "no data element in the page"
    return m.group(1)


# ---------------------------------------------------------------------- 301.3d: a face-down Force card
FORCE_DOWN = [
    *BOARD,
    {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-005", "from": "hand", "to": "force",
     "dest": "a1", "face": "down"},
    {"do": "effect", "by": "P1", "source": "a1", "op": "move", "card": "R01-014", "from": "hand", "to": "force",
     "face": "down"},  # not under a Square
]


def test_301_3d_a_face_down_force_card_is_counted_by_every_seat(tmp_path):
    store = stored(tmp_path, FORCE_DOWN, "hid-force")
    with Api(store) as api:
        for seat in BLIND:
            for where, state in (("zx replay", steps_json(store, "hid-force", seat)[-1]["state"]),
                                 ("/view", api.view("hid-force", seat))):
                assert state["squares"]["a1"]["force"] == [None] and state["force"] == [None], (seat, where)
                shown = json.dumps(state)
                assert "R01-005" not in shown and "R01-014" not in shown
            csv = cli(store, "replay", "hid-force", "--as", seat, "--format", "csv").splitlines()
            # the loose one: a row without its code, counted (seq, step, player, zone, square, code, name, count, ...)
            assert [r.split(",")[3:] for r in csv if ",force," in r] == \
                [["force", "", "", "", "1", "", "", "face-down", "hidden"]], seat
            (a1,) = [r for r in csv if ",square,a1," in r]
            assert "force (face-down)" in a1 and "R01-005" not in a1
            board = cli(store, "replay", "hid-force", "--as", seat)
            assert "Force: (face-down)" in board and "Force zone: (face-down)" in board
        for seat in SEEING:
            state = api.view("hid-force", seat)
            assert state["squares"]["a1"]["force"] == ["R01-005"] and state["force"] == ["R01-014"], seat
