"""Replay (zx_events.replay, zx_events.games.zx.views, zx replay): seeking, turns, steps, views, the CLI.

Every test that reads a store runs on SQLite and on PostgreSQL (the ``service`` / ``store_url``
fixtures of conftest.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from support import BOARD, SETUP, header, text
from zx_events import games, replay
from zx_events.logformat.reader import parse_log, read_log
from zx_events.games.zx.match import Match, match_uuid
from zx_events.games.zx.sim import simulate
from zx_events.games.zx.views import build_view

EXAMPLE_ID = "hand-first-turns-001"


def state(m: Match) -> dict:
    """Everything an aggregate holds except what is only there while saving."""
    return {k: v for k, v in vars(m).items() if k != "_pending_events"}


def rebuilt(svc, match_id: str, seq: int) -> Match:
    """A Match rebuilt from the first ``seq`` stored events, one after the other, no snapshot."""
    m = None
    for row in svc.recorder.select_events(match_uuid(match_id), lte=seq):
        m = svc.mapper.to_domain_event(row).mutate(m)
    return m


def import_text(svc, source: str, *, accept: bool = False) -> str:
    (log,) = parse_log(source, "t.zxlog")
    out = svc.import_log(log, accept_violations=accept)
    assert out.status == "imported", out.error
    return log.match_id


def import_example(svc, path) -> str:
    (log,) = read_log(path)
    assert svc.import_log(log).status == "imported"
    return log.match_id


def snapshot_versions(svc, match_id: str) -> list[int]:
    store = replay._snapshots(svc)
    return [r.originator_version for r in store.recorder.select_events(replay.snapshot_id(match_id))]


# ---------------------------------------------------------------------- seeking
def test_state_at_every_seq_equals_a_match_rebuilt_from_the_first_seq_events(service, example_log, monkeypatch):
    monkeypatch.setattr(replay, "SNAPSHOT_EVERY", 5)
    mid = import_example(service, example_log)
    last = replay.last_seq(service, mid)
    assert snapshot_versions(service, mid) == []  # the import writes none: snapshots are lazy
    for seq in range(1, last + 1):
        assert state(replay.state_at(service, mid, seq)) == state(rebuilt(service, mid, seq)), seq
    assert snapshot_versions(service, mid) == list(range(5, last + 1, 5))
    for seq in range(1, last + 1):  # now through the snapshots
        assert state(replay.state_at(service, mid, seq)) == state(rebuilt(service, mid, seq)), seq
    assert state(replay.state_at(service, mid)) == state(rebuilt(service, mid, last))


def test_snapshots_of_other_event_code_are_never_used(service, example_log, monkeypatch):
    monkeypatch.setattr(replay, "SNAPSHOT_EVERY", 10)
    mid = import_example(service, example_log)
    assert replay.prepare_snapshots(service, mid) == 3
    old = replay.snapshot_id(mid)
    monkeypatch.setattr(replay, "projection_fingerprint", lambda: "match.py changed")
    assert replay.snapshot_id(mid) not in (old, match_uuid(mid))
    assert snapshot_versions(service, mid) == []  # the old ones are not this code's
    assert state(replay.state_at(service, mid, 25)) == state(rebuilt(service, mid, 25))
    assert snapshot_versions(service, mid) == [10, 20, 30]  # written again, for this code


def test_seeks_into_a_long_simulated_match_agree_with_a_full_replay(service):
    sim = next(s for s in simulate(10, seed=11, policy="random") if s.events >= 150)
    mid = import_text(service, "\n".join(sim.lines()) + "\n")
    last = replay.last_seq(service, mid)
    assert replay.prepare_snapshots(service, mid) == last // replay.SNAPSHOT_EVERY
    assert replay.prepare_snapshots(service, mid) == 0  # already there
    seqs = sorted({1, 2, 49, 50, 51, 99, 100, 101, last - 1, last, *range(3, last, 17)})
    for seq in seqs:
        assert state(replay.state_at(service, mid, seq)) == state(rebuilt(service, mid, seq)), seq
        view = replay.view_at(service, mid, seq=seq)
        assert view.seq == seq and view.to_json() == build_view(rebuilt(service, mid, seq), "judge",
                                                                replay.names_for(rebuilt(service, mid, 1)).names,
                                                                last_seq=last).to_json()


def test_a_snapshot_altered_after_a_trusted_seek_is_not_trusted_again(tmp_path):
    """A seek remembers the snapshot rows it checked by the SHA-256 of their bytes: the same process,
    seeking again after the snapshots table was edited, checks the edited row afresh and replays."""
    import sqlite3

    from zx_events.application import MatchService

    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        sim = next(s for s in simulate(10, seed=11, policy="random") if s.events >= 150)
        mid = import_text(svc, "\n".join(sim.lines()) + "\n")
        replay.prepare_snapshots(svc, mid)
        seq = 3 * replay.SNAPSHOT_EVERY + 4
        truth = state(rebuilt(svc, mid, seq))
        assert state(replay.state_at(svc, mid, seq)) == truth  # checked and remembered
        assert state(replay.state_at(svc, mid, seq)) == truth  # remembered
        sid, table = replay.snapshot_id(mid), replay._snapshots(svc).recorder.events_table_name
        with sqlite3.connect(tmp_path / "s.sqlite") as con:
            (body,) = con.execute(f"SELECT state FROM {table} WHERE originator_id = ? AND originator_version = ?",
                                  (sid.hex, 3 * replay.SNAPSHOT_EVERY)).fetchone()
            doc = json.loads(body)
            doc["state"]["turn"] += 40
            con.execute(f"UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                        (json.dumps(doc).encode(), sid.hex, 3 * replay.SNAPSHOT_EVERY))
        con.close()
        assert state(replay.state_at(svc, mid, seq)) == truth  # the edited snapshot is not used
        assert mid in replay._DISTRUSTED[svc]
    finally:
        svc.close()


def test_a_seek_never_creates_a_store_file(tmp_path):
    """The seek's own read connection opens the file without creating it: a store deleted under a
    running service never becomes a new empty file."""
    import threading

    from zx_events.application import MatchService

    path = tmp_path / "s.sqlite"
    svc = MatchService(str(path))
    try:
        mid = import_text(svc, "\n".join(next(iter(simulate(1, seed=3))).lines()) + "\n")
        assert replay.state_at(svc, mid, 5).version == 5
        for p in tmp_path.glob("s.sqlite*"):
            p.unlink()

        def seek() -> None:  # a thread that has not read yet: its own read connection is opened now
            try:  # the recorder's pooled connections may still read the deleted file's pages
                replay.state_at(svc, mid, 6)
            except Exception:  # noqa: BLE001 - either way, no file may appear
                pass

        thread = threading.Thread(target=seek)
        thread.start()
        thread.join()
        assert not path.exists()
    finally:
        svc.close()


def test_unknown_match_and_a_seq_beyond_the_match_are_errors(service, example_log):
    with pytest.raises(replay.UnknownMatch, match=r"^unknown match 'nope': it is not in the store "):
        replay.state_at(service, "nope", 3)
    with pytest.raises(replay.UnknownMatch):
        replay.load_history(service, "nope")
    mid = import_example(service, example_log)
    last = replay.last_seq(service, mid)
    with pytest.raises(replay.OutOfRange, match=f"has {last} events: seq must be 1..{last}"):
        replay.state_at(service, mid, last + 1)
    with pytest.raises(replay.OutOfRange, match="numbered from 1"):
        replay.state_at(service, mid, 0)


def test_a_seat_not_in_the_list_or_both_seq_and_turn_are_errors(service, example_log):
    """``view_at(perspective="p1")`` (or "P3", "Judge") gave the spectator's view labelled as asked, and
    ``steps(..., "P3")`` the same; ``view_at(seq=40, turn=3)`` ignored seq. Each is a ValueError now (the
    CLI refused them already), at the call."""
    mid = import_example(service, example_log)
    for bad, hint in (("p1", ": did you mean 'P1'?"), ("Judge", ": did you mean 'judge'?"), ("P3", "")):
        message = f"perspective must be one of judge, P1, P2, spectator, got '{bad}'{hint}"
        with pytest.raises(ValueError, match=re.escape(message) + "$"):
            replay.view_at(service, mid, seq=3, perspective=bad)
        with pytest.raises(ValueError, match=re.escape(message)):
            replay.steps(service, mid, bad)
        with pytest.raises(ValueError, match=re.escape(message)):
            replay.load_history(service, mid).step_at(3, bad)
    with pytest.raises(ValueError, match=r"give seq or turn, not both \(seq=5, turn=1\)"):
        replay.view_at(service, mid, seq=5, turn=1)
    assert replay.view_at(service, mid, seq=5, perspective="P1").perspective == "P1"


def test_turn_starts_are_the_states_right_after_each_turn_record(service, example_log):
    mid = import_example(service, example_log)
    starts = replay.turn_starts(service, mid)
    assert starts == [4, 9, 20]  # the TurnStarted events of lines 4, 9 and 18
    for n, seq in enumerate(starts, 1):
        v = replay.view_at(service, mid, turn=n)
        assert (v.seq, v.turn, v.active, v.phase) == (seq, n, "P1" if n % 2 else "P2", "draw")
    assert replay.load_history(service, mid).turns == tuple(starts)
    with pytest.raises(replay.OutOfRange, match=f"match {mid} has 3 turns: turn must be 1..3"):
        replay.view_at(service, mid, turn=4)


# ---------------------------------------------------------------------- steps
def test_steps_are_the_records_each_with_its_events_and_the_state_after(service, example_log):
    mid = import_example(service, example_log)
    (log,) = read_log(example_log)
    hist = replay.load_history(service, mid)
    steps = list(hist.steps())
    assert len(steps) == len(log.records) + 1
    assert steps[0].record is None and steps[0].line == log.header_line
    assert [e.kind for e in steps[0].events] == ["Started"]
    for step, rec in zip(steps[1:], log.records):
        assert step.line == rec.line
        assert replay.thaw(step.record) == rec.data
    # derived events carry the line of the record that caused them: this attack closes the battle before it
    at22 = next(s for s in steps if s.line == 22)
    assert [e.kind for e in at22.events] == ["BattleDamageDealt", "ZXDestroyed", "BattleEnded", "AttackDeclared"]
    assert [e.kind for e in steps[-1].events][-2:] == ["TurnEnded", "Sealed"]
    seqs = [e.seq for s in steps for e in s.events]
    assert seqs == list(range(1, hist.last_seq + 1))
    for s in steps:
        assert (s.seq_first, s.seq_last) == (s.events[0].seq, s.events[-1].seq)
        assert s.state.to_json() == replay.view_at(service, mid, seq=s.seq_last).to_json()
        assert hist.step_of(s.seq_first) == hist.step_of(s.seq_last) == s.index
    # a position inside a step: the step cut after it
    cut = hist.step_at(25)
    assert (cut.index, cut.seq_last, [e.kind for e in cut.events]) == (at22.index, 25,
                                                                       ["BattleDamageDealt", "ZXDestroyed"])
    assert cut.state.square("b3") is None and cut.state.battle is not None


def test_a_history_projects_again_and_again_to_the_same_states(service, example_log):
    mid = import_example(service, example_log)
    hist = replay.load_history(service, mid)
    first = [s.state for s in hist.steps("P1")]
    again = [s.state for s in hist.steps("P1")]
    assert first == again
    assert state(hist.state_at(hist.last_seq)) == state(rebuilt(service, mid, hist.last_seq))


def _with_violations() -> tuple[str, int, int, int]:
    """BOARD, then a second Resource in one turn (504.3, applied) and a play of a card that is not
    in hand nor in the deck list (301.1, not applied: one of the deck list is played as written, digest.7).
    Returns the log and the lines of P1's draw and of the two."""
    records = [*BOARD, {"do": "resource", "by": "P1", "card": "R01-004"},
               {"do": "resource", "by": "P1", "card": BOARD[-1]["cards"][1]},  # drawn just before
               {"do": "play", "by": "P1", "card": "U01-008", "pay": [], "square": "c1",
                "note": "U01-008 from the sleeve"},
               {"do": "end", "by": "P1"}]
    draw_line = len(BOARD) + 1  # the header is line 1
    return text(records, header("viol-1")), draw_line, draw_line + 2, draw_line + 3


def test_violations_are_shown_at_the_step_where_they_happened(service):
    source, draw_line, resource_line, play_line = _with_violations()
    mid = import_text(service, source, accept=True)
    steps = list(replay.steps(service, mid))
    found = {s.line: [(v.rule, v.applied) for v in s.violations] for s in steps if s.violations}
    assert found == {resource_line: [("504.3", True)], play_line: [("301.1", False)]}
    play = next(s for s in steps if s.line == play_line)
    assert replay.thaw(play.record)["card"] == "U01-008"  # the record that was not applied
    assert [e.kind for e in play.events] == ["ViolationRecorded"]
    assert "U01-008" in play.violations[0].message
    assert len(play.state.violations) == 2  # the state keeps every violation so far
    # outside the judge's view, free text names no card
    as_p2 = next(s for s in replay.steps(service, mid, "P2") if s.line == play_line)
    assert "U01-008" not in as_p2.violations[0].message and "[card]" in as_p2.violations[0].message
    assert "note" not in replay.thaw(as_p2.record)  # notes are the judge's (zx_events.freetext)
    drawn = next(s for s in replay.steps(service, mid, "P2") if s.line == draw_line)
    assert replay.thaw(drawn.record)["cards"] == ["?", "?"]
    assert [e.to_json()["data"]["cards"] for e in drawn.events] == [["?", "?"]]


# ---------------------------------------------------------------------- views (301.3)
def _gate_log() -> str:
    records = [dict(r) for r in BOARD]
    records[0] = dict(SETUP[0], gate="EX-R01")  # a Gate Card is face-up in Dynamis
    return text(records, header("gate-1"))


def test_each_seat_sees_what_301_3_lets_it_see(service):
    mid = import_text(service, _gate_log())
    m = replay.state_at(service, mid)
    judge, p1, p2, spec = (replay.view_at(service, mid, perspective=p) for p in ("judge", "P1", "P2", "spectator"))
    for v in (judge, p1, p2, spec):  # 301.3d: every zone's size is known to all
        for pl in ("P1", "P2"):
            pv, z = v.player(pl), m.p[pl]
            assert (pv.deck_count, pv.life_count, pv.hand_count, pv.dynamis_count) == \
                (len(z["deck"]), len(z["life"]), len(z["hand"]), len(z["dynamis"]))
            assert pv.charge == tuple(z["charge"]) and pv.trash == tuple(z["trash"])  # 301.3a
            assert [r.code for r in pv.resource] == [r["code"] for r in z["resource"]]
    assert Counter(judge.player("P1").deck) == Counter(m.p["P1"]["deck"])
    assert judge.player("P2").life == tuple(m.p["P2"]["life"])
    assert p1.player("P1").hand == tuple(m.p["P1"]["hand"]) and p1.player("P2").hand is None
    assert p2.player("P2").hand == tuple(m.p["P2"]["hand"]) and p2.player("P1").hand is None
    assert spec.player("P1").hand is None and spec.player("P2").hand is None
    for v in (p1, p2, spec):  # 301.3c: Life is face-down, even to its owner; the deck is hidden
        assert all(v.player(pl).life is None and v.player(pl).deck is None for pl in ("P1", "P2"))
    # Dynamis: the owner looks at theirs; a face-up card (the Gate) is public
    assert Counter(d.code for d in p1.player("P1").dynamis) == Counter(d["code"] for d in m.p["P1"]["dynamis"])
    for v in (p2, spec):
        shown = [d.code for d in v.player("P1").dynamis if d.code is not None]
        assert shown == ["EX-R01"] and v.player("P1").dynamis[0].up
    assert all(d.code is None for d in p1.player("P2").dynamis)
    assert p1.square("b3").code == "U01-003" and p1.square("b3").name == "Azure Gearknight"
    assert "R01-004" in p1.names and "R01-004" not in p2.names  # names only of the cards shown


def test_a_view_is_immutable_and_does_not_alias_the_match(service, example_log):
    mid = import_example(service, example_log)
    m = replay.state_at(service, mid)
    v = build_view(m, "judge", replay.names_for(m).names)
    before = v.to_json()
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.turn = 9  # type: ignore[misc]
    with pytest.raises(TypeError):
        v.names["X"] = "y"  # type: ignore[index]
    m.p["P1"]["hand"].append("R01-008")
    m.sq["a1"]["mods"].append([1000, "end_of_turn"])
    m.sq["a1"]["dmg"] = 500
    assert v.to_json() == before
    assert v.square("a1").power == 3000 and v.square("a1").mods == ()


def test_power_with_modifiers_is_the_base_plus_their_sum(service):
    records = [*BOARD, {"do": "effect", "by": "P1", "source": "R01-003", "op": "power", "square": "a1",
                        "delta": 1500, "until": "end_of_turn"},
               {"do": "effect", "by": "P1", "source": "R01-003", "op": "power", "square": "a1",
                "delta": -500, "until": "permanent"}]
    mid = import_text(service, text(records, header("mods-1")))
    a1 = replay.view_at(service, mid).square("a1")
    assert (a1.base, a1.mods, a1.power) == (3000, ((1500, "end_of_turn"), (-500, "permanent")), 4000)


def test_a_changed_catalog_still_names_cards_but_warns():
    cn = replay.card_names("zx", "sample", "0" * 64)
    assert cn.names["R01-001"] == "Ember Whelp Scout"
    assert cn.warning.startswith("the match was checked against catalog 'sample' sha256 000000000000, the current")
    gone = replay.card_names("zx", "no-such-catalog", None)
    assert dict(gone.names) == {} and "cannot be loaded" in gone.warning
    # the file is never read from the stored name; the user may give it (zx replay --catalog FILE, round 34)
    assert "give that file with --catalog FILE" in gone.warning and "never makes zx read" in gone.warning, gone.warning
    assert replay.card_names("zx", "sample", None).warning is None


# ---------------------------------------------------------------------- zx replay
def _cli(store_url: str, *args: str, input: str | None = None):
    return CliRunner().invoke(zx, ["--store", store_url, "replay", *args], input=input)


@pytest.fixture
def stored_example(store_url, example_log) -> str:
    from zx_events.application import MatchService

    svc = MatchService(store_url)
    try:
        import_example(svc, example_log)
    finally:
        svc.close()
    return store_url


def test_cli_unknown_match_exits_1_with_a_clear_message(stored_example):
    from zx_events.store import resolve_store

    r = _cli(stored_example, "nope")
    assert r.exit_code == 1
    label = resolve_store(stored_example, prepare=False).label
    assert r.stderr == f"Error: unknown match 'nope': it is not in the store {label} (zx matches lists the stored ones)\n"
    assert r.stdout == ""


def test_cli_bad_positions(stored_example):
    r = _cli(stored_example, EXAMPLE_ID, "--turn", "4")
    assert (r.exit_code, r.stderr) == (1, f"Error: match {EXAMPLE_ID} has 3 turns: turn must be 1..3\n")
    r = _cli(stored_example, EXAMPLE_ID, "--event", "99")
    assert (r.exit_code, r.stderr) == (1, f"Error: match {EXAMPLE_ID} has 32 events: seq must be 1..32\n")
    r = _cli(stored_example, EXAMPLE_ID, "--turn", "2", "--event", "3")
    assert r.exit_code == 2 and "give --turn or --event, not both" in r.stderr
    r = _cli(stored_example, EXAMPLE_ID, "--to", "later")
    assert r.exit_code == 2 and "'later' is neither 'end' nor an event number" in r.stderr
    r = _cli(stored_example, EXAMPLE_ID, "--as", "P3")
    assert r.exit_code == 2
    r = _cli(stored_example, EXAMPLE_ID, "--event", "20", "--to", "10")
    assert r.exit_code == 2 and r.stderr.endswith("Error: --to 10 is before the start position (event 20)\n")
    assert r.stderr.startswith("Usage: ")  # (a usage error, exit 2, as --turn with --event: QA round 31; it was 1)


def test_cli_json_is_the_view(stored_example):
    from zx_events.application import MatchService

    r = _cli(stored_example, EXAMPLE_ID, "--event", "14", "--as", "P2", "--format", "json")
    assert r.exit_code == 0, r.output
    svc = MatchService(stored_example)
    try:
        expected = replay.view_at(svc, EXAMPLE_ID, seq=14, perspective="P2").to_json()
    finally:
        svc.close()
    got = json.loads(r.stdout)
    assert got == expected  # last_seq too (view_at gave None)
    assert got["players"]["P1"]["hand"] is None and got["players"]["P2"]["hand_count"] == 3


def test_cli_to_end_prints_every_step_and_step_does_too_without_a_terminal(stored_example):
    r = _cli(stored_example, EXAMPLE_ID, "--to", "end")
    assert r.exit_code == 0, r.output
    titles = [ln for ln in r.stdout.splitlines() if f"{EXAMPLE_ID} · step " in ln]
    assert len(titles) == 23 and "step 0 " in titles[0] and "step 22 " in titles[-1]
    assert "P1 attack" in r.stdout and "Crimson Drake Vanguard" in r.stdout
    stepped = _cli(stored_example, EXAMPLE_ID, "--step", input="n\nn\n")  # stdin is not a terminal
    assert stepped.exit_code == 0 and stepped.stdout == r.stdout
    lines = _cli(stored_example, EXAMPLE_ID, "--turn", "3", "--to", "end", "--format", "json").stdout.splitlines()
    assert [json.loads(x)["step"] for x in lines] == list(range(17, 23))
    upto = _cli(stored_example, EXAMPLE_ID, "--event", "14", "--to", "25", "--format", "json").stdout.splitlines()
    assert [json.loads(x)["seq_last"] for x in upto][-1] == 25


def test_cli_board_from_a_seat_hides_the_other_hand(stored_example):
    judge = _cli(stored_example, EXAMPLE_ID, "--to", "end").stdout
    p1 = _cli(stored_example, EXAMPLE_ID, "--to", "end", "--as", "P1").stdout
    p2 = _cli(stored_example, EXAMPLE_ID, "--to", "end", "--as", "P2").stdout
    # R01-013 only ever sat in P1's deck, then P1's hand (drawn on line 19)
    assert "R01-013" in judge and "R01-013" in p1 and "Blaze Drake Cadet" in p1
    assert "R01-013" not in p2 and "Blaze Drake Cadet" not in p2
    assert "Hand: 2 hidden" in p2 and "Dynamis: 7 face-down" in p2
    board = _cli(stored_example, EXAMPLE_ID, "--event", "23").stdout
    assert "│ R01-003 Crimson Drake Vanguard" in board and "Battle: c3 -> b3 (Z/X)" in board


def test_cli_csv_lists_each_card_and_each_hidden_zone(stored_example):
    r = _cli(stored_example, EXAMPLE_ID, "--as", "spectator", "--format", "csv")
    assert r.exit_code == 0
    rows = r.stdout.splitlines()
    assert rows[0] == "seq,step,player,zone,square,code,name,count,power,dmg,state,detail"
    assert "32,22,P1,square,a1,R01-002,Cinder Hatchling,1,3000,0,Reboot," in rows
    assert "32,22,P1,hand,,,,2,,,,hidden" in rows


def test_cli_violations_at_their_step(store_url):
    from zx_events.application import MatchService

    source, _, resource_line, play_line = _with_violations()
    svc = MatchService(store_url)
    try:
        import_text(svc, source, accept=True)
    finally:
        svc.close()
    out = _cli(store_url, "viol-1", "--to", "end", "--as", "P2").stdout
    chunks = out.split("viol-1 · step ")
    hit = [c for c in chunks if "! violation" in c]
    assert len(hit) == 2
    assert f"line {resource_line}: P1 resource" in hit[0] and "rule 504.3" in hit[0]
    assert f"line {play_line}: P1 play" in hit[1] and "rule 301.1" in hit[1] and "[record not applied]" in hit[1]


def test_a_read_only_store_still_seeks_without_snapshots(tmp_path):
    from zx_events.application import MatchService

    path = tmp_path / "ro.sqlite"
    sim = next(s for s in simulate(10, seed=11, policy="random") if s.events >= 150)
    rw = MatchService(str(path))
    mid = import_text(rw, "\n".join(sim.lines()) + "\n")
    replay._snapshots(rw)  # the snapshots table exists, empty
    rw.close()
    ro = MatchService(str(path), env={"SQLITE_DBNAME": f"file:{path}?mode=ro", "CREATE_TABLE": "n"})
    try:
        assert replay.prepare_snapshots(ro, mid) == 0
        assert mid in replay._UNWRITABLE[ro]
        last = replay.last_seq(ro, mid)
        for seq in (60, 120, last):
            assert state(replay.state_at(ro, mid, seq)) == state(rebuilt(ro, mid, seq))
        assert snapshot_versions(ro, mid) == []
    finally:
        ro.close()


def test_cards_moved_to_force_and_temporary_are_kept_and_shown(service):
    """301.2a: Force and Temporary are shared public zones; a card an effect moves there stays there."""
    card = BOARD[-1]["cards"][0]  # just drawn by P1
    other = BOARD[-1]["cards"][1]
    records = [*BOARD,
               {"do": "effect", "by": "P1", "source": card, "op": "move", "card": card, "from": "hand", "to": "force"},
               {"do": "effect", "by": "P1", "source": other, "op": "move", "card": other, "from": "hand",
                "to": "temporary"}]
    mid = import_text(service, text(records, header("force-1")))
    m = replay.state_at(service, mid)
    assert m.force == [{"code": card, "owner": "P1"}] and m.temporary == [{"code": other, "owner": "P1"}]
    for seat in ("P2", "spectator"):
        v = replay.view_at(service, mid, perspective=seat)
        assert (v.force, v.temporary) == ((card,), (other,))
        assert v.player("P1").hand_count == len(m.p["P1"]["hand"])


def test_interactive_keys_step_through_records_and_turns(service, example_log, monkeypatch, capsys):
    """--step on a terminal: n next record, t next turn, p previous, q quit (keys fed to click.getchar)."""
    import click

    from zx_cli.replay import Output, _interactive

    mid = import_example(service, example_log)
    hist = replay.load_history(service, mid)
    keys = iter(["n", "t", "p", "t", "t", "t", "t", "q"])
    monkeypatch.setattr(click, "getchar", lambda: next(keys))
    _interactive(hist, "P1", 0, Output("json", games.get("zx")))
    captured = capsys.readouterr()
    shown = [json.loads(x)["step"] for x in captured.out.splitlines()]
    # header, setup P1, turn 1, setup P2, turn 1, turn 2, turn 3; the last t has no later turn
    assert shown == [0, 1, 3, 2, 3, 8, 17]
    assert "no later turn: this is the last one" in captured.err


def test_interactive_prompt_fits_a_narrow_terminal(service, example_log, monkeypatch, capsys):
    """The key prompt of --step was 68 characters on a 60-column terminal: a narrow terminal gets a
    shorter one (the same keys), a wide one the whole."""
    import click

    from zx_cli.replay import KEYS, Output, _interactive

    mid = import_example(service, example_log)
    hist = replay.load_history(service, mid)
    for width in ("60", "40", "120"):
        monkeypatch.setenv("COLUMNS", width)
        keys = iter(["n", "t", "q"])
        monkeypatch.setattr(click, "getchar", lambda: next(keys))
        _interactive(hist, "P1", 0, Output("json", games.get("zx")))
        prompts = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
        assert len(prompts) == 3 and all(len(line) <= int(width) for line in prompts), prompts
        assert all(("q quit" in line) and ("t " in line) and ("p " in line) for line in prompts)
        assert (KEYS in prompts[0]) == (width == "120")


# ---------------------------------------------------------------------- reading snapshots without writing (zx serve)
def _long_sim(service) -> str:
    sim = next(s for s in simulate(10, seed=11, policy="random") if s.events >= 150)
    return import_text(service, "\n".join(sim.lines()) + "\n")


def test_seek_without_prepare_writes_nothing_and_uses_the_stored_snapshots(service):
    mid = _long_sim(service)
    last = replay.last_seq(service, mid)
    for seq in (9, 10, 57, last):
        match, base = replay.seek(service, mid, seq, prepare=False)
        assert base == 0 and state(match) == state(rebuilt(service, mid, seq)), seq
    assert snapshot_versions(service, mid) == []  # nothing written
    assert replay.prepare_snapshots(service, mid) == last // replay.SNAPSHOT_EVERY
    for seq in (9, 10, 57, 100, last):
        match, base = replay.seek(service, mid, seq, prepare=False)
        assert base == seq - seq % replay.SNAPSHOT_EVERY and state(match) == state(rebuilt(service, mid, seq)), seq


def test_prepare_snapshots_skips_a_match_that_has_them_all(service, monkeypatch):
    mid = _long_sim(service)
    last = replay.last_seq(service, mid)
    assert replay.prepare_snapshots(service, mid) == last // replay.SNAPSHOT_EVERY
    calls = []
    real = replay._read
    monkeypatch.setattr(replay, "_read", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert replay.prepare_snapshots(service, mid) == 0
    assert calls == []  # no event read or decoded: the last snapshot is where the last one belongs


def _growing(service, violations: int = 600) -> str:
    """A match whose state grows with every record: P1's second Resource of a turn (504.3), again and
    again, imported with --accept-violations (each one recorded in the state)."""
    records = [*BOARD[:5], *[{"do": "resource", "by": "P1", "card": "R01-004"}] * violations]
    return import_text(service, text(records, header("grow-1")), accept=True)


def test_snapshots_of_a_growing_state_stay_within_a_multiple_of_its_events_bytes(service):
    """Every 10 events, a match whose state keeps growing filed snapshots whose bytes grew with the
    square of its length (a 200 KB log of 4,000 accepted violations made a 97 MB store): they are filed
    further apart as the state outgrows its events, within SNAPSHOT_SPACE times the events' bytes."""
    mid = _growing(service)
    last = replay.last_seq(service, mid)
    assert replay.prepare_snapshots(service, mid) > 0
    snaps = replay._snapshots(service).recorder.select_events(replay.snapshot_id(mid))
    events = sum(len(r.state) for r in service.recorder.select_events(match_uuid(mid)))
    assert sum(len(s.state) for s in snaps) <= replay.SNAPSHOT_SPACE * events
    versions = [s.originator_version for s in snaps]
    assert versions[:3] == [10, 20, 30] and all(v % replay.SNAPSHOT_EVERY == 0 for v in versions)
    assert len(versions) < last // replay.SNAPSHOT_EVERY // 2  # further apart as the state grows
    for seq in sorted({1, 9, 10, 11, 199, 200, 201, *range(3, last, 37), last}):
        match, base = replay.seek(service, mid, seq, prepare=False)
        assert base == max((v for v in versions if v <= seq), default=0), seq
        assert state(match) == state(rebuilt(service, mid, seq)), seq
        upto = seq - seq % replay.SNAPSHOT_EVERY  # the last place a snapshot could be before seq
        between = sum(len(r.state) for r in service.recorder.select_events(match_uuid(mid), gt=base, lte=upto))
        size = next((len(s.state) for s in snaps if s.originator_version == base), 0)
        # besides its snapshot, a seek decodes under a quarter of its bytes in events, and 9 events more
        assert upto <= base or between * replay.SNAPSHOT_SPACE < size, seq


def test_a_match_with_snapshots_further_apart_is_not_prepared_again_by_each_seek(service, monkeypatch):
    mid = _growing(service)
    last = replay.last_seq(service, mid)
    written = replay.prepare_snapshots(service, mid)
    calls = []
    real = replay._read
    monkeypatch.setattr(replay, "_read", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert replay.prepare_snapshots(service, mid) == 0
    assert calls == []  # nothing the match's events call for is missing: not every event read again
    prepared = []
    real_prepare = replay.prepare_snapshots
    monkeypatch.setattr(replay, "prepare_snapshots", lambda *a, **k: prepared.append(a) or real_prepare(*a, **k))
    for seq in (last, last - 1, last // 2, 25):
        assert state(replay.state_at(service, mid, seq)) == state(rebuilt(service, mid, seq))
    assert prepared == []  # every seek found the snapshots it should, none found one missing
    assert len(snapshot_versions(service, mid)) == written


def test_a_seek_files_the_snapshots_a_growing_match_lacks_from_where_it_has_them(service):
    """A match prepared up to a point (snapshots deleted after it) gets the missing ones, the same
    ones a whole preparation files."""
    mid = _growing(service)
    replay.prepare_snapshots(service, mid)
    whole = snapshot_versions(service, mid)
    rec = replay._snapshots(service).recorder
    keep = whole[len(whole) // 2]
    with rec.datastore.transaction(commit=True) as c:
        sid = replay.snapshot_id(mid)
        if service.store.kind == "sqlite":
            c.execute(f"DELETE FROM {rec.events_table_name} WHERE originator_id = ? AND originator_version > ?",
                      (sid.hex, keep))
        else:
            from psycopg.sql import SQL, Identifier

            c.execute(SQL("DELETE FROM {s}.{t} WHERE originator_id = %s AND originator_version > %s").format(
                s=Identifier(rec.datastore.schema), t=Identifier(rec.events_table_name)), (sid, keep))
    assert snapshot_versions(service, mid) == [v for v in whole if v <= keep]
    last = replay.last_seq(service, mid)
    assert state(replay.state_at(service, mid, last)) == state(rebuilt(service, mid, last))
    assert snapshot_versions(service, mid) == whole


def test_prepare_snapshots_strict_raises_on_a_read_only_store(tmp_path):
    from eventsourcing.persistence import PersistenceError

    from zx_events.application import MatchService

    path = tmp_path / "ro.sqlite"
    rw = MatchService(str(path))
    mid = _long_sim(rw)
    replay._snapshots(rw)
    rw.close()
    ro = MatchService(str(path), env={"SQLITE_DBNAME": f"file:{path}?mode=ro", "CREATE_TABLE": "n"})
    try:
        with pytest.raises(PersistenceError):
            replay.prepare_snapshots(ro, mid, strict=True)
    finally:
        ro.close()


def test_json_bytes_of_every_view_are_its_to_json_encoded(service):
    """The server encodes a view with ``json_bytes`` (orjson walks the frozen view itself): the same
    bytes as ``orjson.dumps(view.to_json())`` for every seat at every event, in both games."""
    import orjson

    from zx_events.games.x610z.sim import simulate as simulate_x610z

    mids = [_long_sim(service)]
    x = next(iter(simulate_x610z(1, seed=5)))
    (log,) = parse_log("\n".join(x.lines()) + "\n", "t.x610zlog")
    assert service.import_log(log).status == "imported"
    mids.append(log.match_id)
    seen = set()
    for mid in mids:
        history = replay.load_history(service, mid)
        for seq in range(1, history.last_seq + 1):
            match = history.state_at(seq)
            cn = replay.names_for(match)
            game = replay.game_of(match)
            seen.add(game.key)
            for seat in ("judge", "spectator", "P1", "P2"):
                view = game.build_view(match, seat, cn.names, mask=cn.mask, last_seq=history.last_seq)
                assert view.json_bytes() == orjson.dumps(view.to_json()), (mid, seq, seat)
    assert seen == {"zx", "x610z"}


# ---------------------------------------------------------------------- zx prepare
def _prepare(store_url: str, *args: str):
    return CliRunner().invoke(zx, ["--store", store_url, "prepare", *args])


def test_cli_prepare_writes_the_missing_snapshots_once(store_url):
    from zx_events.application import MatchService

    svc = MatchService(store_url)
    try:
        mid = _long_sim(svc)
        other = import_text(svc, "\n".join(next(iter(simulate(1, seed=3))).lines()) + "\n")
        last = replay.last_seq(svc, mid)
    finally:
        svc.close()
    r = _prepare(store_url, "--format", "json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)
    svc = MatchService(store_url)
    try:
        want = last // 10 + replay.last_seq(svc, other) // 10
        assert row == {**row, "matches": 2, "prepared": 2, "up_to_date": 0, "snapshots": want, "damaged": 0}
        assert snapshot_versions(svc, mid) == list(range(10, last + 1, 10))
    finally:
        svc.close()
    again = _prepare(store_url, mid, "--format", "csv")
    assert again.exit_code == 0
    assert again.stdout.splitlines()[1].startswith("1,0,1,0,0,")  # one match named, already prepared
    table = _prepare(store_url)
    assert table.exit_code == 0 and "up_to_date" in table.stdout


def test_cli_prepare_bad_match_and_missing_store_are_clear_errors(tmp_path):
    r = _prepare(str(tmp_path / "none.sqlite"))
    assert r.exit_code == 1 and "there is no store at" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "none.sqlite").exists()
    from zx_events.application import MatchService

    svc = MatchService(str(tmp_path / "s.sqlite"))
    import_text(svc, "\n".join(next(iter(simulate(1, seed=3))).lines()) + "\n")
    svc.close()
    r = _prepare(str(tmp_path / "s.sqlite"), "nope")
    assert r.exit_code == 1 and "unknown match 'nope': it is not in the store" in r.output


def test_cli_prepare_names_a_damaged_match_and_exits_1(tmp_path):
    import sqlite3

    from zx_events.application import MatchService

    path = tmp_path / "s.sqlite"
    svc = MatchService(str(path))
    mid = _long_sim(svc)
    ok = import_text(svc, "\n".join(next(iter(simulate(1, seed=3))).lines()) + "\n")
    svc.close()
    with sqlite3.connect(path) as con:
        con.execute("DELETE FROM stored_events WHERE originator_id = ? AND originator_version = 30",
                    [match_uuid(mid).hex])
    r = _prepare(str(path), "--format", "json")
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"{mid}: match {mid} cannot be replayed" in r.stderr and "zx verify" in r.stderr
    (row,) = json.loads(r.stdout)
    assert row["damaged"] == 1 and row["prepared"] == 1
    svc = MatchService(str(path))
    try:
        assert snapshot_versions(svc, mid) == [] and snapshot_versions(svc, ok)
    finally:
        svc.close()


def test_no_snapshots_says_whether_a_store_has_any(service, monkeypatch):
    """On SQLite and PostgreSQL (it said False on PostgreSQL always: zx serve never gave its note there)."""
    svc = service
    mid = _long_sim(svc)
    assert replay.no_snapshots(svc) is True  # no snapshots table yet
    replay._snapshots(svc)
    assert replay.no_snapshots(svc) is True  # the table, empty
    replay.prepare_snapshots(svc, mid)
    assert replay.no_snapshots(svc) is False
    # after an upgrade that changes the replaying code, its snapshots are all ignored: as good as none (zx serve
    # said nothing, docs/replay.md said new ones would be written, which serve, replay and view never do)
    monkeypatch.setattr(replay, "projection_fingerprint", lambda: "another-version")
    assert replay.no_snapshots(svc) is True
    monkeypatch.undo()
    assert replay.no_snapshots(svc) is False
    from zx_events.application import MatchService

    memory = MatchService("memory:")
    assert replay.no_snapshots(memory) is False  # not a stored file or server: cannot tell, nothing said


def test_a_state_as_json_names_its_game_first_in_every_game(tmp_path):
    """docs/replay.md: the JSON state is "one JSON object (`game`, `match_id`, ...)". X610Z's had its game,
    Z/X's had none: a tool reading a store of both games could not tell a Z/X state from another."""
    import json

    from click.testing import CliRunner

    from zx_cli.main import zx

    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", "examples/legal/first-turns.zxlog",
                                "examples/x610z/legal/concession.x610zlog"])
    assert r.exit_code == 0, r.output
    for match, game in (("hand-first-turns-001", "zx"), ("x610z-sim-7-0279", "x610z")):
        r = CliRunner().invoke(zx, ["--store", store, "replay", match, "--format", "json"])
        assert r.exit_code == 0, r.output
        assert list(json.loads(r.stdout))[:2] == ["game", "match_id"] and json.loads(r.stdout)["game"] == game


def test_a_position_inside_a_step_then_to_shows_the_rest_of_that_step(stored_example):
    """``--event N --to M`` (and ``--step`` without a terminal) printed the step cut at N, then went on with the
    next step: the step's events after N were never shown (the viewer and /steps show them)."""
    from zx_events.application import MatchService

    svc = MatchService(stored_example, create=False)
    try:
        hist = replay.load_history(svc, EXAMPLE_ID)
    finally:
        svc.close()
    lo, hi = next((lo, hi) for lo, hi in hist.bounds if hi - lo >= 1)  # a step of two events or more
    stop = min(hi + 2, hist.last_seq)
    for args in (["--to", str(stop)], ["--step"]):
        r = _cli(stored_example, EXAMPLE_ID, "--event", str(lo), *args, "--format", "json", input="")
        assert r.exit_code == 0, r.output
        steps = [json.loads(line) for line in r.stdout.splitlines()]
        seqs = [e["seq"] for s in steps for e in s["events"]]
        assert seqs[: stop - lo + 1] == list(range(lo, stop + 1)), (args, seqs)
        first, rest = steps[0], steps[1]
        assert (first["seq_first"], first["seq_last"], rest["seq_first"], rest["seq_last"]) == (lo, lo, lo + 1, hi)
        assert rest["step"] == first["step"] and rest["record"] == first["record"] and rest["line"] == first["line"]
        assert rest["state"] == replay_json_state(stored_example, hi)
    r = _cli(stored_example, EXAMPLE_ID, "--event", str(lo), "--to", str(lo + 1), "--format", "json")
    assert [[e["seq"] for e in json.loads(line)["events"]] for line in r.stdout.splitlines()] == [[lo], [lo + 1]]


def replay_json_state(store: str, seq: int) -> dict:
    r = _cli(store, EXAMPLE_ID, "--event", str(seq), "--format", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_the_terminal_names_each_phase_as_the_viewer_does(stored_example):
    """The header said "over", "ended" and "setup" where the page says "End of turn", "Match ended" and
    "Setup" (the games' ``phases``, the same as web/board.js's PHASES: checked below)."""
    import re
    from pathlib import Path

    from zx_events.application import MatchService

    svc = MatchService(stored_example, create=False)
    try:
        hist = replay.load_history(svc, EXAMPLE_ID)
    finally:
        svc.close()
    over = next(s for s in range(1, hist.last_seq + 1) if hist.state_at(s).phase == "over")
    for seq, words in ((1, "Setup"), (over, "End of turn")):
        head = _cli(stored_example, EXAMPLE_ID, "--event", str(seq)).stdout.splitlines()[0]
        assert f" · {words} · as judge" in head, head
    for key in ("zx", "x610z"):
        game = games.get(key)
        js = (Path(games.__file__).parent / key / "web" / "board.js").read_text(encoding="utf-8")
        table = re.search(r"var PHASES = \{(.*?)\};", js, re.S).group(1)
        assert dict(re.findall(r'(\w+): "([^"]+)"', table)) == dict(game.phases), key
        assert game.phase_text("over") == "End of turn" and game.phase_text("nonesuch") == "Nonesuch Phase"


def test_each_token_on_the_board_is_shown_by_its_own_name_in_the_terminal_and_in_csv(tmp_path):
    """Every Token's code is TOKEN, and the view's ``names`` (code -> name) holds one name for it: ``zx replay``'s
    board and ``--format csv`` showed every Token under the first one's name (a Token named "Acorn" read
    "紅蓮トークン"); its Square's own name is shown now (the JSON always had it)."""
    recs = [*BOARD[:-1],
            {"do": "effect", "by": "P1", "source": "R01-001", "op": "token", "square": "c1", "name": "紅蓮トークン",
             "power": 1000},
            {"do": "effect", "by": "P1", "source": "R01-001", "op": "token", "square": "c2", "name": "Acorn",
             "power": 1000},
            BOARD[-1]]
    log = tmp_path / "tokens.zxlog"
    log.write_text(text(recs, header("tokens")), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
    csv = CliRunner().invoke(zx, ["--store", store, "replay", "tokens", "--format", "csv"])
    assert csv.exit_code == 0, csv.output
    tokens = sorted(tuple(line.split(",")[4:7]) for line in csv.stdout.splitlines() if ",TOKEN," in line)
    assert tokens == [("c1", "TOKEN", "紅蓮トークン"), ("c2", "TOKEN", "Acorn")], tokens
    board = CliRunner().invoke(zx, ["--store", store, "replay", "tokens"], env={"COLUMNS": "120"})
    assert board.exit_code == 0, board.output
    assert "TOKEN Acorn [Token]" in board.stdout and "TOKEN 紅蓮トークン [Token]" in board.stdout, board.stdout
    for seat in ("P2", "spectator"):  # a seat's view: the names masked (no card named in them: as written)
        seen = CliRunner().invoke(zx, ["--store", store, "replay", "tokens", "--as", seat], env={"COLUMNS": "120"})
        assert "TOKEN Acorn [Token]" in seen.stdout and "TOKEN 紅蓮トークン [Token]" in seen.stdout, seen.stdout


@pytest.mark.parametrize("log", ["legal/first-turns.zxlog", "x610z/legal/concession.x610zlog"])
def test_a_board_shows_a_10000_character_player_name_cut_to_200_terminal_cells_with_a_note(tmp_path, log):
    """``zx replay`` drew a 10,000-character player name whole in every board (326 lines for one board at 80
    columns instead of 75; --to end 24,620 instead of 5,795): a board cuts a player's or deck name to 200
    terminal cells, as a table cuts a value, with the table's note on stderr; JSON gives it whole."""
    from pathlib import Path

    from wcwidth import wcswidth

    from zx_events.freetext import SHOWN_CELLS

    long_name = "紅蓮" * 5000
    lines = (Path(__file__).parents[1] / "examples" / log).read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["players"]["P2"]["name"] = long_name
    path = tmp_path / Path(log).name
    path.write_text("\n".join([json.dumps(head, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(path)])
    assert r.exit_code == 0, r.output
    board = CliRunner().invoke(zx, ["--store", store, "replay", head["match"]], env={"COLUMNS": "80"})
    assert board.exit_code == 0, board.output
    shown = "".join(board.stdout.split())
    assert long_name not in shown and "紅蓮" * 40 in shown and "紅蓮..." in shown
    start = shown.index("紅蓮")
    assert wcswidth(shown[start:shown.index("...", start) + 3]) <= SHOWN_CELLS
    assert len(board.stdout.splitlines()) < 120, len(board.stdout.splitlines())
    assert (f"(1 name cut to {SHOWN_CELLS} terminal cells (a wide character takes two) in every board; "
            "--format json gives every value)") in board.stderr, board.stderr
    js = CliRunner().invoke(zx, ["--store", store, "replay", head["match"], "--format", "json"])
    assert long_name in js.stdout and "cut to" not in js.stderr


def test_a_5000_character_token_name_and_result_reason_are_cut_to_200_terminal_cells_from_every_seat(tmp_path):
    """``zx replay`` cut a player's and deck name to 200 terminal cells, but drew a Token's name and a result's
    reason whole: in the board's Square, in the record's line and in each event's (a 5,000-character reason filled
    60 lines of its step at 80 columns). They are cut as a name is, at a grapheme cluster (CJK, emoji, a family
    emoji, a flag), marked "...", with a note on stderr; --format json keeps them whole."""
    from rich.cells import cell_len
    from wcwidth import wcswidth

    from zx_events.freetext import SHOWN_CELLS

    long = ("Ω漢字😀👨\u200d👩\u200d👧🇯🇵" * 1000)[:5000]
    recs = [*BOARD,
            {"do": "effect", "by": "P1", "source": "R01-001", "op": "token", "square": "c1", "name": "T" + long,
             "power": 1000},
            {"do": "concede", "by": "P2"},
            {"do": "result", "by": "P1", "winner": "P1", "reason": "R" + long}]
    log = tmp_path / "long.zxlog"
    log.write_text(text(recs, header("long-token")), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
    steps = CliRunner().invoke(zx, ["--store", store, "replay", "long-token", "--to", "end", "--format", "json"])
    made = [json.loads(line)["seq_last"] for line in steps.stdout.splitlines() if "op" in line and '"token"' in line]
    for seat in ("P1", "P2", "spectator", "judge"):
        for where in ([], ["--event", str(made[0])]):  # the final board, and the token's own step
            board = CliRunner().invoke(zx, ["--store", store, "replay", "long-token", "--as", seat, *where],
                                       env={"COLUMNS": "80"})
            assert board.exit_code == 0, board.output
            lines = board.stdout.splitlines()
            assert max(cell_len(line) for line in lines) <= 80, seat
            assert len(lines) < 120, (seat, len(lines))
            squares = [line.split("│") for line in lines if line.count("│") == 4]  # c1's lines joined again:
            shown = "".join(line for line in lines if "│" not in line) + "".join(s[3].strip() for s in squares)
            assert long[:300] not in shown, seat
            for start in ("T" + long[:40], "R" + long[:40]):
                if start in shown:  # each shown is cut, marked "...", at most 200 cells and never half a cluster
                    at = shown.index(start)
                    cut = shown[at:shown.index("...", at) + 3]
                    assert wcswidth(cut) <= SHOWN_CELLS and long.startswith(cut[1:-3]), seat
            assert "T" + long[:40] in shown and ("R" + long[:40] in shown) == (not where), seat
            assert f"cut to {SHOWN_CELLS} terminal cells" in board.stderr and "--format json" in board.stderr, seat
        js = CliRunner().invoke(zx, ["--store", store, "replay", "long-token", "--as", seat, "--format", "json"])
        assert js.exit_code == 0 and json.loads(js.stdout)["squares"]["c1"]["name"] == "T" + long, seat
        js = CliRunner().invoke(zx, ["--store", store, "replay", "long-token", "--as", seat, "--to", "end",
                                     "--format", "json"])
        assert json.loads(js.stdout.splitlines()[-1])["record"]["reason"] == "R" + long and "cut to" not in js.stderr
