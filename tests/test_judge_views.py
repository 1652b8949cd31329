"""The judge's view against the seats' views, on every surface and in both games.

The judge sees each Deck's cards (Z/X 301.3; X610Z: the state keeps a Deck as an unordered
multiset, so it is shown sorted by code); P1, P2 and the spectator see only its size: a card that
never left a Deck is in none of their outputs (``zx replay --format json``, ``zx view`` HTML,
``/api/matches/{id}/view`` and ``/steps``, the bundle's ``state-*.json``), and is in the judge's.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from support import strings
from zx_web.app import create_app

ROOT = Path(__file__).resolve().parent.parent
LOGS = {"zx": ROOT / "examples" / "legal" / "first-turns.zxlog",
        "x610z": ROOT / "examples" / "x610z" / "legal" / "life-base-destroyed.x610zlog"}
BLIND = ("P1", "P2", "spectator")


def cli(store: str, *args: str, code: int = 0) -> str:
    r = CliRunner().invoke(zx, ["--store", store, *args])
    assert r.exit_code == code, r.output
    return r.stdout


def steps(store: str, match: str, seat: str) -> list[dict]:
    out = cli(store, "replay", match, "--event", "1", "--to", "end", "--as", seat, "--format", "json")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="module", params=sorted(LOGS))
def stored(request, tmp_path_factory) -> tuple[str, str, list[dict], set[str], str]:
    """A legal match of each game in a store, its judge's steps, and the codes that never left a Deck
    (in the judge's Decks, and nowhere else in the judge's steps but the Started event's deck lists)."""
    store = str(tmp_path_factory.mktemp(request.param) / "s.sqlite")
    cli(store, "import", "--no-analytics", str(LOGS[request.param]))
    match = json.loads(LOGS[request.param].read_text(encoding="utf-8").splitlines()[0])["match"]
    judge = steps(store, match, "judge")
    in_decks: set[str] = set()
    elsewhere: set[str] = set()
    for step in judge:
        state = json.loads(json.dumps(step["state"]))
        for p in state["players"].values():
            in_decks.update(p.pop("deck", None) or ())  # (None: a seat that may not see it)
        state.pop("names")
        elsewhere.update(strings(state))
        elsewhere.update(strings(step["record"]))
        elsewhere.update(strings([e for e in step["events"] if e["kind"] != "Started"]))
    secret = in_decks - elsewhere
    assert secret, "the match draws every card: nothing to check"
    return store, match, judge, secret, request.param


def test_the_judge_sees_each_deck_sorted_and_the_seats_only_its_size(stored):
    store, match, judge, secret, _ = stored
    last = judge[-1]["state"]
    for pl, p in last["players"].items():
        assert p["deck"] == sorted(p["deck"]) and len(p["deck"]) == p["deck_count"], pl
    assert secret <= set(strings(last))  # ... and the names of the codes it shows
    for seat in BLIND:
        seen = steps(store, match, seat)
        assert all(p["deck"] is None for s in seen for p in s["state"]["players"].values()), seat
        leak = secret & set(strings(seen))
        assert not leak, (seat, leak)
        assert [s["state"]["players"][pl]["deck_count"] for s in seen for pl in ("P1", "P2")] == \
            [s["state"]["players"][pl]["deck_count"] for s in judge for pl in ("P1", "P2")]


def test_the_judge_sees_each_deck_in_the_replay_text_and_csv(stored):
    store, match, _, secret, _ = stored
    text = cli(store, "replay", match, "--as", "judge")
    assert all(code in text for code in secret)
    rows = cli(store, "replay", match, "--as", "judge", "--format", "csv")
    for seat in BLIND:
        for fmt in ("table", "csv"):
            out = cli(store, "replay", match, "--as", seat, "--format", fmt)
            assert not {c for c in secret if c in out}, (seat, fmt)
    assert all(f",{code}," in rows for code in secret)


def test_the_judge_sees_each_deck_in_the_html_viewer_and_the_seats_do_not(stored, tmp_path):
    store, match, _, secret, _ = stored
    pages = {}
    for seat in ("judge", *BLIND):
        path = tmp_path / f"{seat}.html"
        cli(store, "view", match, "--as", seat, "-o", str(path))
        pages[seat] = path.read_text(encoding="utf-8")
    assert all(code in pages["judge"] for code in secret)
    for seat in BLIND:
        assert not {c for c in secret if c in pages[seat]}, seat


def test_the_judge_sees_each_deck_in_the_api_and_the_seats_do_not(stored):
    store, match, _, secret, _ = stored
    with TestClient(create_app(store)) as client, TestClient(create_app(store, judge=True)) as judge:
        view = judge.get(f"/api/matches/{match}/view", params={"as": "judge"}).json()
        assert secret <= set(strings(view))
        assert all(p["deck"] for p in view["players"].values())
        for seat in BLIND:
            for c in (client, judge):
                body = [c.get(f"/api/matches/{match}/view", params={"as": seat}).json(),
                        c.get(f"/api/matches/{match}/steps", params={"as": seat, "limit": 500}).json()]
                assert not secret & set(strings(body)), seat
                assert all(p["deck"] is None for p in body[0]["players"].values())


def test_the_bundle_states_show_the_decks_to_the_judge_only(stored, tmp_path):
    store, _, _, _, game = stored
    # a stored match's bundle holds states only around its violations: the log with one draw twice
    log = LOGS[game]
    lines = log.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["match"] = head["match"] + "-bad"
    bad = tmp_path / ("bad" + log.suffix)
    records = [json.loads(x) for x in lines[1:]]
    draw = next(i for i, r in enumerate(records) if r.get("do") == "draw")
    records.insert(draw + 1, dict(records[draw]))  # a second draw: a violation
    bad.write_text("\n".join(json.dumps(x) for x in (head, *records)) + "\n", encoding="utf-8")
    cli(store, "import", "--no-analytics", "--accept-violations", str(bad))
    path = tmp_path / "b.zip"
    cli(store, "audit", head["match"], "--bundle", str(path), code=1)  # (1: it found violations)
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as z:
        state = json.loads(z.read("violation-01/state-before.json"))
    for pl in ("P1", "P2"):
        judge_deck = state["judge"]["players"][pl]["deck"]
        assert judge_deck == sorted(judge_deck) and len(judge_deck) == state["judge"]["players"][pl]["deck_count"]
        assert state["P1"]["players"][pl]["deck"] is None and state["P2"]["players"][pl]["deck"] is None
