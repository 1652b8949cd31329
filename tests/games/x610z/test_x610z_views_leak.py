"""No hidden X610Z card reaches a seat that may not see it (500-506), at every event of simulated
matches: the view of P1, P2 and a spectator after each event, and each event and record as
redacted for that seat. A code is forbidden for a viewer when it sits only in zones hidden from
him (decks; the other player's hand) and in no zone he sees."""

from __future__ import annotations

import json

import pytest

from zx_events import games
from zx_events.games.x610z.match import project
from zx_events.games.x610z.sim import simulate
from zx_events.games.x610z.views import build_view, redact_event, redact_record
from zx_events.replay import card_names, names_for
from zx_events.seats import event_fields

from x610z_support import hidden_codes as hidden
from x610z_support import play, strings
from x610z_support import visible_codes as visible

VIEWERS = ("P1", "P2", "spectator")


def check_match(text: str) -> int:
    (m, ref), = play(text, source="sim")
    names = names_for(m).names  # the catalog's names, as zx replay and the viewer give them
    assert names
    events = list(m.pending_events)
    records = {i + 1: json.loads(line) for i, line in enumerate(text.splitlines())}
    state = None
    checked = 0
    last = {getattr(ev, "line", None): i for i, ev in enumerate(events)}
    seen_before: dict = {}
    for i, ev in enumerate(events):
        line = getattr(ev, "line", None)
        if line not in seen_before and state is not None:
            seen_before[line] = {v: visible(state, v) for v in VIEWERS}
        before = set() if state is None else {v: visible(state, v) for v in VIEWERS}
        state = project(state, [ev])
        kind = type(ev).__name__
        for viewer in VIEWERS:
            forbidden = hidden(state, viewer) - visible(state, viewer)
            view = build_view(state, viewer, names).to_json()
            assert not forbidden & set(strings(view)), (kind, viewer, forbidden & set(strings(view)))
            assert set(view["names"]) == shown_codes(view), (kind, viewer)  # the codes it shows, named
            fields = redact_event(kind, event_fields(ev), viewer)
            own = {c for c in strings(fields)} & (before.get(viewer, set()) if before else set())
            leak = (forbidden - own) & set(strings(fields))
            assert not leak, (kind, viewer, leak)
            if line in records and last.get(line) == i and "x610zlog" not in records[line]:
                rec = redact_record(records[line], viewer)
                allowed = visible(state, viewer) | seen_before.get(line, {}).get(viewer, set())
                leak = (hidden(state, viewer) - allowed) & set(strings(rec))
                assert not leak, (records[line], viewer, leak)
            checked += 1
        if state.p["P1"]["hand"] and "P1" in VIEWERS:
            assert build_view(state, "P2").players["P1"].hand is None
            assert build_view(state, "P1").players["P1"].hand is not None
    return checked


def shown_codes(view: dict) -> set[str]:
    """The card codes a view's JSON shows (pawns, permanents, hands, piles, the stack)."""
    out = {d["code"] for d in view["dots"].values()} | {p["code"] for p in view["perms"]}
    for p in view["players"].values():
        out |= set(p["hand"] or ()) | set(p["discard"]) | set(p["removed"])
    return out | {e["card"] for e in view["stack"] if isinstance(e.get("card"), str)}


@pytest.mark.parametrize("n", range(12))
def test_x610z_no_hidden_card_leaks_from_any_seat(n):
    sim = next(simulate(1, 11, start=n))
    assert check_match("\n".join(sim.lines()) + "\n") > 0


def test_x610z_deck_order_is_not_kept():
    sim = next(simulate(1, 3))
    (m, _), = play("\n".join(sim.lines()) + "\n", source="sim")
    view = build_view(m, "P1").to_json()
    assert set(view["players"]["P1"]) >= {"deck_count", "hand"} and view["players"]["P1"]["deck"] is None
    # the judge sees the cards, sorted by code: the state keeps no order to show
    judge = build_view(m, "judge").to_json()["players"]["P1"]
    assert judge["deck"] == sorted(m.p["P1"]["deck"]) and len(judge["deck"]) == judge["deck_count"] > 0


@pytest.mark.parametrize("n", range(3))
def test_x610z_a_player_name_naming_a_hidden_card_is_masked_in_every_seats_view(n):
    """Player names are free text (docs/security.md §4): one that names a card in a deck, by code in odd
    case and dash or by name, is ``[card]`` in every view but the judge's, at every event, the named
    player's own view too; the judge sees it as written."""
    sim = next(simulate(1, 11, start=n))
    lines = sim.lines()
    header = json.loads(lines[0])
    names = card_names("x610z", header.get("catalog"), None).names
    public = games.get("x610z").public_names  # ("Life Base": the rules' word, on the board from the setup)
    code = next(c for c in sorted(header["players"]["P2"]["deck"]) if names[c] not in public)
    raw = {"P1": f"Ann {code.lower().replace('-', chr(0x2011))}", "P2": f"{names[code].upper()} fan"}
    for pl, name in raw.items():
        header["players"][pl]["name"] = name
    text = "\n".join([json.dumps(header), *lines[1:]]) + "\n"
    (m, _), = play(text, source="sim")
    cn = names_for(m)
    state = None
    for ev in m.pending_events:
        state = project(state, [ev])
        for viewer in VIEWERS:
            got = {pl: p["name"] for pl, p in build_view(state, viewer, cn.names, mask=cn.mask).to_json()["players"].items()}
            assert got == {"P1": "Ann [card]", "P2": "[card] fan"}, (type(ev).__name__, viewer, got)
        assert {pl: p.name for pl, p in build_view(state, "judge", cn.names, mask=cn.mask).players.items()} == raw
        assert build_view(state, "P2").players["P1"].name == "Ann [card]"  # no catalog at hand: codes still masked


def test_x610z_the_rules_word_life_base_is_not_masked_in_a_seats_finding(tmp_path):
    """A finding's message is free text, masked for the seats: "Life Base", the name of the sample catalog's
    A1-001 and the rules' word for the card every deck places on the board at its setup (101.1a, 105.2a), was
    masked in it ("Z9 is not a Starting Dot ... (not a dot of it: no [card] is placed)", "a [card] cannot warp"):
    a finding the players could not read, and nothing hidden kept. A hidden card's name stays masked."""
    from click.testing import CliRunner

    from zx_cli.main import zx
    from x610z_builder import SETUP, header, r, text

    records = [r("setup", "P1", dot="Z9", hand=SETUP[0]["hand"]), SETUP[1]]
    log = tmp_path / "offboard.x610zlog"
    log.write_text(text(records, header(match="offboard", players={
        "P1": {"name": "Sky Vessel fan", "deck": dict(header()["players"]["P1"]["deck"])},
        "P2": {"name": "B", "deck": dict(header()["players"]["P2"]["deck"])}})), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r_ = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", "--accept-violations", str(log)])
    assert r_.exit_code == 0, r_.output
    for seat in ("P1", "P2", "spectator", "judge"):
        out = CliRunner().invoke(zx, ["--store", store, "replay", "offboard", "--as", seat, "--format", "json"])
        assert out.exit_code == 0, out.output
        assert "no Life Base is placed" in out.stdout and "no [card] is placed" not in out.stdout, (seat, out.stdout)
        if seat != "judge":  # (a hidden card's name, in the player's name: masked as before)
            assert "Sky Vessel fan" not in out.stdout and "[card] fan" in out.stdout, seat
