"""The viewer page (zx_web/viewer.py, zx view): its data, its bytes, the command.

- the states the page rebuilds are exactly ``zx replay --as SEAT --format json``'s, at every event;
- 301.3 on the bytes: a file written for P1, P2 or a spectator holds no code and no name of a card
  that seat may not see at any event, no unmasked free text, no import path; a judge's holds them;
- the file fetches nothing: no URL, a Content-Security-Policy that forbids any request;
- ``zx view``: the path printed, the seats, the errors (unknown match, bad seat, an existing file).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from viewer_support import BIDI, bidi_log
from zx_web import viewer
from zx_events import replay
from zx_events.application import MatchService
from zx_events.games.zx.views import JUDGE, PERSPECTIVES
from zx_events.logformat.reader import parse_log

LINES_FIRST_TURNS = (Path(__file__).resolve().parents[2] / "examples" / "legal" / "first-turns.zxlog").read_text(
    encoding="utf-8").splitlines()

SEATS = ("P1", "P2", "spectator")


@pytest.fixture(scope="module")
def svc(viewer_store):
    s = MatchService(viewer_store.path)
    yield s
    s.close()


def read_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="zx-data">(.*?)</script>', page, re.S)
    assert m, "no data element in the page"
    return json.loads(m.group(1))


# ---------------------------------------------------------------------- the data
def test_every_state_the_page_rebuilds_is_the_replay_view_of_that_seat_at_that_event(svc, viewer_store):
    for match_id in viewer_store.matches[:3]:
        data = viewer.viewer_data(svc, match_id, PERSPECTIVES)
        hist = replay.load_history(svc, match_id)
        assert data["last"] == hist.last_seq and data["turns"] == list(hist.turns)
        for seat in PERSPECTIVES:
            states = viewer.decode(data, seat)
            assert len(states) == hist.last_seq
            for seq in range(1, hist.last_seq + 1):
                assert states[seq - 1] == viewer.page_state(hist.step_at(seq, seat).state.to_json()), (match_id, seat, seq)


def test_the_page_data_equals_zx_replay_format_json_at_chosen_events(viewer_store):
    match_id = viewer_store.with_violation
    runner = CliRunner()
    svc = MatchService(viewer_store.path)
    try:
        data = viewer.viewer_data(svc, match_id, ["P2"])
    finally:
        svc.close()
    states = viewer.decode(data, "P2")
    for seq in (1, 2, data["last"] // 2, data["last"]):
        out = runner.invoke(zx, ["--store", viewer_store.path, "replay", match_id, "--event", str(seq),
                                 "--as", "P2", "--format", "json"])
        assert out.exit_code == 0, out.output
        assert states[seq - 1] == viewer.page_state(json.loads(out.stdout))


def test_the_event_list_holds_each_event_its_record_line_and_every_violation_with_its_rule(svc, viewer_store):
    match_id = viewer_store.with_violation
    hist = replay.load_history(svc, match_id)
    data = viewer.viewer_data(svc, match_id, ["judge", "P1", "P2"])
    pool = data["pool"]
    assert [pool[k] for k in data["kinds"]] == [type(e).__name__ for e in hist.events]
    assert [s[2] for s in data["steps"]] == [getattr(hist.events[lo - 1], "line", None) for lo, _ in hist.bounds]
    for seat in ("judge", "P1", "P2"):
        v = data["views"][seat]
        assert len(v["events"]) == hist.last_seq and len(v["records"]) == len(hist.bounds)
        steps = list(hist.steps(seat))
        recorded = [(x.rule, x.player, x.message, x.applied) for st in steps for x in st.violations]
        assert recorded, "the match has a recorded violation"
        assert [tuple(x[1:]) for x in v["violations"]] == recorded
        for st in steps:  # the record text is the seat's redacted record
            assert pool[v["records"][st.index]] == viewer.record_text(replay.thaw(st.record), header=st.index == 0)
    # the refused late draw (a violation of 501.3, not applied): its cards stay in the deck, the judge's only
    # (301.3c; the drawer read them until 2026-11-27, as if they had been drawn)
    (seq, rule, who, _, applied), = data["views"]["judge"]["violations"]
    step = next(i for i, (lo, hi, _) in enumerate(data["steps"]) if lo <= seq <= hi)
    other = "P2" if who == "P1" else "P1"
    assert rule == "501.3" and applied is False
    assert "cards=[? ?]" in pool[data["views"][other]["records"][step]]
    assert "cards=[? ?]" in pool[data["views"][who]["records"][step]]
    assert "cards=[? ?]" not in pool[data["views"]["judge"]["records"][step]]


def test_a_500_event_match_fits_in_well_under_1_mib_for_every_seat_at_once(tmp_path):
    from zx_events.logformat.reader import parse_log
    from zx_events.games.zx.sim import simulate

    (sim,) = simulate(1, seed=11, policy="greedy")  # 1,091 events, 58 turns
    assert sim.events > 1000
    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        (log,) = parse_log("\n".join(sim.lines()) + "\n", "long.zxlog")
        assert svc.import_log(log).status == "imported"
        page = viewer.viewer_html(svc, log.match_id, PERSPECTIVES)
    finally:
        svc.close()
    size = len(page.encode())
    assert size < 1024 * 1024, f"{size} bytes for {sim.events} events, four seats"


def test_a_page_grows_with_its_match_not_with_its_square(tmp_path):
    """Every state of the page held the violations so far and each Square's modifiers whole: one more
    violation stored all the earlier ones again at every event, so a 84 KB log of 2,000 out-of-turn passes
    (stored with --accept-violations) made a 227 MB page (1.3 GB and 25 s to build), and 2,000 Power
    modifiers on one card did the same. The page holds each violation once; its states, the Power."""
    lines = LINES_FIRST_TURNS
    at = next(i for i, ln in enumerate(lines) if json.loads(ln).get("do") == "play") + 1
    sizes = {}
    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        for n in (150, 300):
            head = json.loads(lines[0]) | {"match": f"v{n}"}
            extra = [json.dumps({"do": "pass", "by": "P2"})] * n  # out of turn: a violation each (603.1b)
            extra += [json.dumps({"do": "effect", "by": "P1", "source": "b1", "op": "power", "square": "b1",
                                  "delta": 0, "until": "end_of_turn"})] * n
            text = "\n".join([json.dumps(head), *lines[1:at], *extra, *lines[at:]]) + "\n"
            (log,) = parse_log(text, f"v{n}.zxlog")
            assert svc.import_log(log, accept_violations=True).status == "imported"
            data = viewer.viewer_data(svc, f"v{n}", ["judge", "spectator"])
            assert len(data["views"]["judge"]["violations"]) >= n
            sizes[n] = len(viewer.page(data).encode())
    finally:
        svc.close()
    assert sizes[300] < 2.3 * sizes[150], sizes  # linear: it was 3.9x (5.1 MB, then 20 MB)


def test_a_cards_modifiers_are_in_the_page_while_it_holds_a_few_and_its_power_always(tmp_path):
    """The page's states kept no Power modifier, so a card holding several showed their sum where zx replay
    lists each (``(1500 +2000 -500)``). The page keeps a Square's modifiers while the card holds at most
    ``viewer.MODS_SHOWN`` (permanent ones can pile up on a card in a legal log: 20,000 in
    tests/games/zx/test_power_modifiers.py), past that its Power and base only; every state is still
    ``page_state`` of zx replay's, and a card with no modifier has no list in the page."""
    n = viewer.MODS_SHOWN + 2
    lines = LINES_FIRST_TURNS
    at = next(i for i, ln in enumerate(lines) if json.loads(ln).get("do") == "play") + 1  # P1's card on a1
    mod = json.dumps({"do": "effect", "by": "P1", "source": "a1", "op": "power", "square": "a1", "delta": 100,
                      "until": "permanent"})
    text = "\n".join([*lines[:at], *[mod] * n, *lines[at:]]) + "\n"
    (log,) = parse_log(text, "mods.zxlog")
    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        assert svc.import_log(log).status == "imported"
        data = viewer.viewer_data(svc, log.match_id, ["P2"])
        hist = replay.load_history(svc, log.match_id)
        states = viewer.decode(data, "P2")
        held = []
        for seq in range(1, hist.last_seq + 1):
            full = hist.step_at(seq, "P2").state.to_json()
            a1, shown = full["squares"]["a1"], states[seq - 1]["squares"]["a1"]
            if a1 is not None:
                held.append((len(a1["mods"]), json.dumps(shown.get("mods")), shown["power"] - shown["base"]))
            assert states[seq - 1] == viewer.page_state(full), seq
            for sq in states[seq - 1]["squares"].values():
                assert sq is None or sq.get("mods") != [], seq  # an empty list: never in the page
    finally:
        svc.close()
    kept = list(dict.fromkeys(held))  # (modifiers held, the page's list of them, Power over base)
    assert kept[: n + 1] == [(k, json.dumps([[100, "permanent"]] * k if 0 < k <= viewer.MODS_SHOWN else None),
                              100 * k) for k in range(n + 1)], kept


def test_parse_seats_orders_and_checks():
    assert viewer.parse_seats(["spectator", "p1", "JUDGE", "P1"]) == ["judge", "P1", "spectator"]
    with pytest.raises(viewer.ViewerError, match="unknown perspective 'P3'"):
        viewer.parse_seats(["P3"])
    with pytest.raises(viewer.ViewerError, match="no seat"):
        viewer.parse_seats([])


# ---------------------------------------------------------------------- 301.3 on the bytes
def seen_by(svc, match_id: str, seat: str) -> set[str]:
    """Every card code ``zx replay --as SEAT`` shows at any event: the states after every event,
    and the records and events of every step (redacted for the seat)."""
    hist = replay.load_history(svc, match_id)
    codes: set[str] = set()
    names = replay.names_for(hist.state_at(1)).names
    text = []
    for st in hist.steps(seat):
        text.append(json.dumps([replay.thaw(st.record), [e.to_json() for e in st.events]]))
    m = None
    from zx_events.games.zx.views import build_view

    for e in hist.events:
        m = e.mutate(m)
        codes.update(build_view(m, seat, names).codes())
    blob = "\n".join(text)
    codes.update(c for c in names if c in blob)
    return codes


def hidden_from(svc, match_id: str, seat: str) -> tuple[set[str], dict[str, str]]:
    """Codes of the match's cards that ``seat`` never sees, and the catalog names."""
    hist = replay.load_history(svc, match_id)
    m = hist.state_at(1)
    names = dict(replay.names_for(m).names)
    every = {c for pl in ("P1", "P2") for c in m.p[pl]["deck"]} | \
        {d["code"] for pl in ("P1", "P2") for d in m.p[pl]["dynamis"]}
    return every - seen_by(svc, match_id, seat), names


def assert_bytes_hide(raw: bytes, forbidden: set[str], names: dict[str, str], allowed: set[str], where: str) -> None:
    text = raw.decode("utf-8")
    for code in forbidden:
        assert code not in text, f"{where}: card {code} is in the file"
    allowed_names = {names[c] for c in allowed if c in names}
    for code in forbidden:
        name = names.get(code)
        if name and name not in allowed_names:
            assert name not in text, f"{where}: the name {name!r} of hidden card {code} is in the file"


def test_301_3_a_file_for_P1_P2_or_a_spectator_holds_no_card_that_seat_may_not_see(svc, viewer_store, tmp_path):
    runner = CliRunner()
    checked = 0
    for match_id in viewer_store.matches:
        for seat in SEATS:
            out = tmp_path / f"{match_id}-{seat}.html"
            res = runner.invoke(zx, ["--store", viewer_store.path, "view", match_id, "--as", seat, "-o", str(out)])
            assert res.exit_code == 0, res.output
            raw = out.read_bytes()
            forbidden, names = hidden_from(svc, match_id, seat)
            assert forbidden, f"{match_id}: every card was seen by {seat}: the check would prove nothing"
            allowed = {c for c in names if c not in forbidden}
            assert_bytes_hide(raw, forbidden, names, allowed, f"{match_id} as {seat}")
            text = raw.decode()
            assert viewer_store.source not in text and "secret-import-folder" not in text  # the import path
            assert "thinking about R" not in text and "thinking about U" not in text  # notes: masked codes
            checked += 1
    assert checked == len(viewer_store.matches) * len(SEATS)


def test_301_3_the_bytes_check_catches_a_judge_file_and_a_judge_file_says_it_holds_everything(svc, viewer_store):
    match_id = viewer_store.matches[1]
    page = viewer.viewer_html(svc, match_id, [JUDGE])
    forbidden, names = hidden_from(svc, match_id, "P1")
    with pytest.raises(AssertionError, match="is in the file"):
        assert_bytes_hide(page.encode(), forbidden, names, set(), "judge as P1")
    assert viewer_store.source in page  # the judge's file holds everything, the import path too
    assert "Judge" in (Path(viewer.STATIC / "viewer.js").read_text())  # the first-screen banner (browser test)


def test_a_file_for_two_seats_holds_only_what_one_of_them_sees(svc, viewer_store):
    match_id = viewer_store.matches[2]
    page = viewer.viewer_html(svc, match_id, ["P1", "spectator"])
    data = read_data(page)
    assert data["seats"] == ["P1", "spectator"] and set(data["views"]) == {"P1", "spectator"}
    forbidden, names = hidden_from(svc, match_id, "P1")
    assert_bytes_hide(page.encode(), forbidden, names, set(), "P1 + spectator")


# ---------------------------------------------------------------------- self-contained
def test_the_file_fetches_nothing_every_script_and_style_is_inline(svc, viewer_store):
    page = viewer.viewer_html(svc, viewer_store.matches[0], ["P1"])
    assert "default-src 'none'" in page  # the browser itself refuses any request (CSP)
    # its one <link> is its icon, inline (a data: URL: without it the browser asked for /favicon.ico)
    assert re.findall(r"<link[^>]*>", page) == [m for m in re.findall(r'<link rel="icon" href="data:[^"]+">', page)]
    page = re.sub(r'<link rel="icon" href="data:[^"]+">', "", page)
    for bad in ("<link", " src=", "url(", "@import", "fetch(", "XMLHttpRequest", "//cdn", "https://"):
        assert bad not in page, bad
    assert re.findall(r"http://[^\"' ]+", page) == ["http://www.w3.org/2000/svg"]  # a namespace name, not fetched
    # (its style, and the one that hides the controls where scripts do not run: inside <noscript>)
    assert page.count("<script") == 3 and page.count("<style") == 2 and page.count("<noscript><style>") == 1


def test_text_that_could_close_the_data_element_is_escaped():
    page = viewer.page({"format": 1, "game": "zx", "match": "m", "info": {"match": "</script><b>x"},
                        "seats": ["P1"], "last": 0, "turns": [], "steps": [], "kinds": [], "paths": [], "pool": [],
                        "views": {"P1": {"changes": [], "events": [], "records": [], "violations": []}}})
    assert "</script><b>" not in page
    assert read_data(page)["info"]["match"] == "</script><b>x"


def test_no_bidirectional_control_reaches_the_judges_page_each_is_shown_as_its_escape(tmp_path):
    """The judge's view holds a log's text exact: a name stored as ``\\u202e800-10R`` was drawn ``R01-008``
    (the chart's legend), notes, ts, events and Token names alike. The page's data now holds each control
    as ``zx replay`` shows it (``freetext.printable``: ``\\u202e``), so none reaches the page raw; a seat's
    text has them dropped (the mask), as before."""
    from zx_events.freetext import printable

    (log,) = parse_log(bidi_log(tmp_path).read_text("utf-8"), "bidi.zxlog")
    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        assert svc.import_log(log).status == "imported"
        judge = viewer.viewer_html(svc, log.match_id, ["judge"])
        seat = viewer.viewer_html(svc, log.match_id, ["P1"])
    finally:
        svc.close()
    assert not any(c in judge or c in seat for c in BIDI)
    data = json.dumps(read_data(judge), ensure_ascii=False)
    assert not any(c in data for c in BIDI)  # (nor as a JSON escape that the page would decode)
    texts = json.dumps([printable(t + BIDI) for t in ("\u202e800-10R", "Cup", "Husk", "n", "t")], ensure_ascii=False)
    for text in json.loads(texts):
        assert json.dumps(text, ensure_ascii=False)[1:-1] in data, text
    assert "800-10R" in json.dumps(read_data(seat), ensure_ascii=False)


# ---------------------------------------------------------------------- zx view
def test_zx_view_writes_the_file_and_prints_its_path(viewer_store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    match_id = viewer_store.matches[0]
    res = CliRunner().invoke(zx, ["--store", viewer_store.path, "view", match_id])
    assert res.exit_code == 0, res.output
    path = Path(res.stdout.strip())
    assert path == Path(f"{match_id}-spectator.html") and path.is_file()  # default: a spectator's file
    assert read_data(path.read_text())["seats"] == ["spectator"]
    res = CliRunner().invoke(zx, ["--store", viewer_store.path, "view", match_id, "--as", "p2", "--as", "judge",
                                  "-o", "both.html"])
    assert res.exit_code == 0 and res.stdout.strip() == "both.html"
    assert read_data(Path("both.html").read_text())["seats"] == ["judge", "P2"]


def test_zx_view_writes_the_same_bytes_for_the_same_match_whatever_the_hash_seed(viewer_store, tmp_path):
    """The slots gone at an event were listed in a set's order, which follows PYTHONHASHSEED: two
    runs of zx view on one match wrote two different files."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = []
    for seed in ("1", "2"):
        path = tmp_path / f"seed-{seed}.html"
        subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", viewer_store.path, "view", viewer_store.matches[1],
                        "--as", "judge", "-o", str(path)], cwd=root, check=True, capture_output=True,
                       env=dict(os.environ, PYTHONHASHSEED=seed))
        out.append(path.read_bytes())
    assert out[0] == out[1]


def test_zx_view_format_json_and_csv_describe_the_file(viewer_store, tmp_path):
    match_id = viewer_store.matches[0]
    out = tmp_path / "m.html"
    res = CliRunner().invoke(zx, ["--store", viewer_store.path, "view", match_id, "--as", "P1", "-o", str(out),
                                  "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == {"file": str(out), "bytes": out.stat().st_size, "match": match_id,
                                      "seats": ["P1"]}
    res = CliRunner().invoke(zx, ["--store", viewer_store.path, "view", match_id, "-o", str(out), "--force",
                                  "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == ["file,bytes,match,seats", f"{out},{out.stat().st_size},{match_id},spectator"]


def test_zx_view_does_not_overwrite_a_file_without_force(viewer_store, tmp_path):
    out = tmp_path / "m.html"
    out.write_text("mine")
    args = ["--store", viewer_store.path, "view", viewer_store.matches[0], "-o", str(out)]
    res = CliRunner().invoke(zx, args)
    assert res.exit_code == 1
    assert f"Error: {out} exists: give --force to overwrite it, or -o another file" in res.output
    assert out.read_text() == "mine"
    res = CliRunner().invoke(zx, [*args, "--force"])
    assert res.exit_code == 0 and out.read_text().startswith("<!doctype html>")
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left behind


def test_zx_view_errors_unknown_match_bad_seat_missing_folder(viewer_store, tmp_path):
    runner = CliRunner()
    out = tmp_path / "x.html"
    res = runner.invoke(zx, ["--store", viewer_store.path, "view", "no-such-match", "-o", str(out)])
    assert res.exit_code == 1 and "unknown match 'no-such-match'" in res.output and "Traceback" not in res.output
    assert not out.exists()
    res = runner.invoke(zx, ["--store", viewer_store.path, "view", viewer_store.matches[0], "--as", "P3"])
    assert res.exit_code == 2 and "no player named 'P3'" in res.output and "give a player's name or a seat: " \
        "'judge', 'P1', 'P2', 'spectator'" in res.output  # (--as takes a player's name too since 2026-11-29)
    res = runner.invoke(zx, ["--store", viewer_store.path, "view", viewer_store.matches[0],
                             "-o", str(tmp_path / "nope" / "x.html")])
    assert res.exit_code == 1 and "the folder" in res.output and "does not exist" in res.output
    assert list(tmp_path.iterdir()) == []
    # a folder that takes no new file: the error names the file, not the temporary one beside it
    res = runner.invoke(zx, ["--store", viewer_store.path, "view", viewer_store.matches[0], "-o", "/proc/x.html"])
    assert res.exit_code == 1 and "cannot write /proc/x.html: " in res.output and ".zx-" not in res.output


def test_the_board_renderer_and_its_style_come_from_the_game_package():
    import zx_events.games.zx as zx_game

    folder = Path(zx_game.__file__).parent / "web"
    assert viewer.board_script("zx") == (folder / "board.js").read_text()
    assert "window.ZXBoards.zx = " in viewer.board_script("zx")
    assert viewer.board_style("zx") == (folder / "board.css").read_text()
    with pytest.raises(viewer.ViewerError, match="zx_events/games/nogame/web/board.js is missing"):
        viewer.board_script("nogame")
    with pytest.raises(viewer.ViewerError, match="no board renderer for game '../zx'"):
        viewer.board_script("../zx")


def test_every_match_of_the_0_1_0_fixture_store_opens_in_the_viewer(tmp_path):
    """A user's store from 0.1.0 (tests/fixtures, copied first): every match, every seat, the states
    of every step are the replay's, and the violations recorded by --accept-violations are listed."""
    import shutil

    # ../shared/fixtures' copy in the repository, byte for byte (tests/test_fixture_0_1_0.py checks it)
    src = Path(__file__).resolve().parents[1] / "fixtures" / "zx-store-0.1.0.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copy(f"{src}{suffix}", tmp_path / f"store.sqlite{suffix}")
    svc = MatchService(str(tmp_path / "store.sqlite"))
    try:
        ids = [r["match"] for r in svc.summaries()]
        assert len(ids) == 20
        with_violations = 0
        for i, match_id in enumerate(ids):
            data = viewer.viewer_data(svc, match_id, PERSPECTIVES)
            hist = replay.load_history(svc, match_id)
            every = i % 4 == 0 or data["views"]["judge"]["violations"]  # (every step of these; of the others, the last:
            for seat in PERSPECTIVES:                                      # 20 matches' every step took 20 s)
                states = viewer.decode(data, seat)
                steps = list(hist.steps(seat))
                for st in steps if every else steps[-1:]:
                    assert states[st.seq_last - 1] == viewer.page_state(st.state.to_json()), (match_id, seat, st.index)
                assert len(data["views"][seat]["violations"]) == sum(len(st.violations) for st in steps)
            with_violations += bool(data["views"]["judge"]["violations"])
        assert with_violations == 4
    finally:
        svc.close()


def test_the_page_reads_any_store_sqlite_and_postgresql(service):
    """The same page data from every backend (conftest: SQLite, and PostgreSQL when configured)."""
    from zx_events.logformat.reader import parse_log

    from viewer_support import varied_log

    text, _ = varied_log(12, "random", True, True)
    (log,) = parse_log(text, "pg.zxlog")
    assert service.import_log(log, accept_violations=True).status == "imported"
    data = viewer.viewer_data(service, log.match_id, ["P2", "judge"])
    hist = replay.load_history(service, log.match_id)
    for seat in ("P2", "judge"):
        states = viewer.decode(data, seat)
        for st in hist.steps(seat):
            assert states[st.seq_last - 1] == viewer.page_state(st.state.to_json())
    assert data["views"]["judge"]["violations"][0][1] == "501.3"
