"""Play-by-play (``Game.narrate``; zx_events/games/{zx,x610z}/narrate.py): every event kind of both games said in
the game's words, with card names from the match's pinned catalog, from the fields a seat sees and nothing more;
in the browser viewer's list, ``zx replay``'s terminal steps, its JSON and ``zx serve``'s steps (``text``).

The matches: simulated ones of both games, and the same with one-record mistakes imported with
``--accept-violations`` (a violation recorded, a record passed over, an ``end`` written after the next ``turn``:
a late record), so that every kind each game's ``match.py`` declares (``@event("...")``) occurs."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events import games, replay
from zx_events.application import MatchService
from zx_events.errors import ZXError
from zx_events.games.x610z.sim import simulate as simulate_x610z
from zx_events.games.zx.sim import simulate as simulate_zx
from zx_events.logformat.reader import parse_log
from zx_events.narration import Words, fields_text, seat_players
from zx_events.seats import HIDDEN, JUDGE, PERSPECTIVES, event_fields

ROOT = Path(__file__).resolve().parent.parent
SEATS = PERSPECTIVES  # judge, P1, P2, spectator


def declared_kinds(game: str) -> set[str]:
    """Every event kind the game's aggregate declares (``@event("Name"``)."""
    text = (ROOT / "zx_events" / "games" / game / "match.py").read_text(encoding="utf-8")
    return set(re.findall(r'@event\("([A-Za-z]+)"', text))


def mistaken(records: list[dict]) -> Iterator[list[dict]]:
    """The records with one mistake each: an ``end`` after the next ``turn`` (a late record), a record written
    twice, two neighbours swapped, a record by the other player (refused: a violation; a pass of a refused battle
    passed over)."""
    n = len(records)
    late = next(i for i in range(n - 1) if records[i].get("do") == "end" and records[i + 1].get("do") == "turn")
    yield records[:late] + [records[late + 1], records[late]] + records[late + 2:]
    for i in range(3, n - 1, max(1, n // 6)):
        yield records[:i + 1] + [records[i]] + records[i + 1:]
        yield records[:i] + [records[i + 1], records[i]] + records[i + 2:]
        if records[i].get("by") in ("P1", "P2"):
            yield records[:i] + [{**records[i], "by": "P2" if records[i]["by"] == "P1" else "P1"}] + records[i + 1:]


def refused_attack() -> str:
    """A Z/X example whose P2 attack comes from a Square without P2's Z/X (602.1a): the passes of that battle are
    passed over (RecordSkipped)."""
    recs = [json.loads(line) for line in (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8")
            .splitlines()]
    recs[0]["match"] = "narrate-refused-attack"
    recs[13]["from"] = "c2"
    return "".join(json.dumps(r) + "\n" for r in recs)


def _texts(game: str) -> Iterator[tuple[str, str]]:
    examples = ROOT / "examples" / ("" if game == "zx" else "x610z")
    for path in sorted((examples / "legal").iterdir()):  # (a reload, a concession, an ability, a Life Burst...)
        yield path.name, path.read_text(encoding="utf-8")
    for path in sorted((examples / "invalid").glob("[0-9]*log")):  # a violation of each rule the engine checks
        yield path.name, path.read_text(encoding="utf-8")
    if game == "zx":
        sims = list(simulate_zx(3, 5, policy="mixed"))
        suffix = ".zxlog"
        yield "refused.zxlog", refused_attack()
        # a Life card named wrong (301.1), its card taken set right later (LifeCardKnown)
        yield "life-card-misnamed.zxlog", (ROOT / "tests" / "data" / "zx-life-card-misnamed.zxlog").read_text("utf-8")
    else:
        sims = list(simulate_x610z(3, 5))
        suffix = ".x610zlog"
    for k, sim in enumerate(sims):
        yield f"sim-{k}{suffix}", "".join(json.dumps(r) + "\n" for r in [sim.header, *sim.records])
        for j, records in enumerate(mistaken([dict(r) for r in sim.records])):
            if k == 0 or j == 0:
                header = {**sim.header, "match": f"{sim.header['match']}-m{j}"}
                yield f"m-{k}-{j}{suffix}", "".join(json.dumps(r) + "\n" for r in [header, *records])


@pytest.fixture(scope="module", params=["zx", "x610z"])
def corpus(request) -> Iterator[tuple[str, MatchService, list[str]]]:
    """(game, a service on a memory store holding its matches, their ids)."""
    svc = MatchService("memory:")
    ids = []
    for name, text in _texts(request.param):
        try:
            (log,) = parse_log(text, name)
        except ZXError:  # (an example of a malformed log)
            continue
        out = svc.import_log(log, accept_violations=True)
        assert out.status == "imported" or name[0].isdigit(), (name, out.error)  # (an example rejected whole)
        if out.status == "imported":
            ids.append(log.match_id)
    yield request.param, svc, ids
    svc.close()


def seat_sentences(svc: MatchService, match_id: str) -> Iterator[tuple[str, str, dict, dict, str, Any]]:
    """(seat, kind, the event's fields, as the seat sees them, its sentence, card names) for every event and seat."""
    hist = replay.load_history(svc, match_id)
    first = hist.state_at(1)
    game = replay.game_of(first)
    cn = replay.names_for(first)
    narrate = game.part("narrate")
    players = {s: seat_players(first, s, cn.mask) for s in SEATS}
    for e in hist.events:
        kind, fields = type(e).__name__, event_fields(e)
        for seat in SEATS:
            seen = game.redact_event(kind, fields, seat, cn.mask)
            yield seat, kind, fields, seen, narrate.sentence(kind, seen, Words(cn.names, players[seat])), cn.names


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


def test_every_event_kind_of_both_games_has_a_sentence_that_names_its_cards(corpus):
    """Each kind its match.py declares occurs and is said in words (none falls back to key=value text), for every
    seat; each card code a seat's fields name is in the sentence, with its catalog name beside it."""
    game, svc, ids = corpus
    said: dict[str, str] = {}
    for match_id in ids:
        for seat, kind, _, seen, text, names in seat_sentences(svc, match_id):
            assert text is not None, (game, kind, seat, seen)  # the game says it: no fallback
            assert "=" not in text or kind in ("ViolationRecorded",), (kind, text)  # no key=value left in it
            said.setdefault(kind, text)
            if kind == "Started":  # (a header's decks are not the sentence's)
                continue
            for code in strings(seen):
                if code in names:
                    assert f"{names[code]} {code}" in text, (kind, seat, code, text)
    assert set(said) == declared_kinds(game), set(said) ^ declared_kinds(game)


def test_sentences_in_the_words_of_the_brief():
    """A few sentences as a reader reads them."""
    names = {"R01-010": "Flamecrest Lancer", "U01-010": "Tidal Sprite", "A1-030": "Bullseye"}
    w = {"names": names, "players": {"P1": "Mio"}}
    zx, x610z = games.get("zx"), games.get("x610z")
    attack = {"attacker": {"code": "R01-010", "power": 2000, "uid": 2}, "distance": 1, "player": "P1",
              "range_used": False, "square": "b2", "target": "b3", "target_info": None, "target_kind": "player"}
    assert zx.narrate("AttackDeclared", attack, **w) == \
        "P1 Mio attacks P2's Player Square (b3) with Flamecrest Lancer R01-010 (Power 2000) from b2"
    assert zx.narrate("LifeDamaged", {"player": "P2", "card": "U01-010", "ignite": None, "kind": "zx", "base": 1000,
                                      "life_after": 3, "triggers": []}, **w) == \
        "P2 takes 1 Life damage: Tidal Sprite U01-010 goes to the Charge (3 Life left)"
    assert zx.narrate("CardsDrawn", {"player": "P2", "cards": [HIDDEN]}, **w) == "P2 draws a card"
    assert x610z.narrate("CardDrawn", {"player": "P2", "card": HIDDEN}, **w) == "P2 draws a card"
    cast = {"player": "P1", "pay": {"M": 1}, "entry": {"by": "P1", "card": "A1-030", "counters": {}, "id": 8,
                                                      "kind": "cast", "permanent": False,
                                                      "target": {"dot": "S3", "uid": 2}}}
    assert x610z.narrate("Announced", cast, **w) == \
        "P1 Mio casts Bullseye A1-030 targeting the summon on S3, paying 1 M energy"
    assert zx.narrate("MatchEnded", {"winner": "P1", "reason": "concede"}) == "The match ends: P1 won by concession"


def test_an_unknown_kind_or_field_falls_back_to_its_fields_never_an_exception():
    zx, x610z = games.get("zx"), games.get("x610z")
    for game in (zx, x610z):
        assert game.narrate("Teleported", {"player": "P1", "to": "b2"}) == "player=P1 to=b2"
        assert game.narrate("Conceded", {"player": "P1", "reason": "tired"}) == "P1 concedes (reason=tired)"
        assert game.narrate("TurnStarted", {"turn": 3, "player": "P1", "colour": None}) == "Turn 3: P1's turn begins"
        assert game.narrate("EffectApplied", {"player": "P1", "source": "b2", "op": "warp", "args": {"n": 1}})
        assert game.narrate("Sealed", {"events": [1, {"x": None}], "last": 7})  # odd shapes: words all the same
    assert zx.narrate("AttackDeclared", {"attacker": 5}) == "attacker=5"  # (it could not: its fields)
    assert fields_text({"a": True, "b": None, "c": [None, False]}) == "a=true c=[null false]"


def test_a_seats_sentences_never_name_a_card_its_fields_hide(corpus):
    """301.3 / 500-506: a card ``redact_event`` hides from a seat (a draw, a hand, a Life card, a search) is "a
    card" in that seat's sentence: neither its code nor its name is there, over every event of every match, for
    P1, P2 and a spectator. A sentence is made of the seat's fields, its names and the catalog's names of the codes
    those fields show."""
    game, svc, ids = corpus
    hidden_draws = 0
    for match_id in ids:
        for seat, kind, fields, seen, text, names in seat_sentences(svc, match_id):
            if seat == JUDGE:
                continue
            shown = set(strings(seen))
            for code in set(strings(fields)) - shown:
                if code not in names:
                    continue
                assert code not in text, (kind, seat, code, text)
                name = names[code]
                assert name not in text or any(name in names.get(c, "") for c in shown) or name in \
                    " ".join(str(v) for v in shown), (kind, seat, name, text)
            if kind in ("CardsDrawn", "CardDrawn") and set(strings(seen.get("cards", seen.get("card")))) == {HIDDEN}:
                hidden_draws += 1
                if seen.get("unknown"):  # X610Z: the card of a draw left out (unknown in the hand), known where used
                    assert re.fullmatch(r"P[12]( .+)?'s card drawn unknown \(his draw left out of the log\) is known "
                                        r"now", text), text
                    continue
                assert re.fullmatch(r"P[12]( .+)? draws (a card|\d+ cards)|P[12]( .+)?'s draw was left out of the "
                                    r"log: he drew a card, unknown", text), text
    assert hidden_draws > 0


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[str, str, str]:
    """A SQLite store with a simulated match of each game (zx's id, x610z's id)."""
    folder = tmp_path_factory.mktemp("narrate")
    store = str(folder / "s.sqlite")
    svc = MatchService(store)
    try:
        ids = []
        for sim, suffix in ((next(iter(simulate_zx(1, 3, policy="greedy"))), ".zxlog"),
                            (next(iter(simulate_x610z(1, 3))), ".x610zlog")):
            (log,) = parse_log("\n".join(sim.lines()) + "\n", "m" + suffix)
            assert svc.import_log(log).status == "imported"
            ids.append(log.match_id)
    finally:
        svc.close()
    return store, ids[0], ids[1]


def test_the_viewer_file_lists_each_seats_sentences_and_the_judges_fields_on_hover(stored):
    from zx_web import viewer

    store, *ids = stored
    svc = MatchService(store, create=False)
    try:
        for match_id in ids:
            hist = replay.load_history(svc, match_id)
            data = viewer.viewer_data(svc, match_id, ["judge", "P1", "P2", "spectator"])
            pool = data["pool"]
            for seat in ("judge", "P1", "P2", "spectator"):
                v = data["views"][seat]
                assert [pool[i] for i in v["events"]] == [e.text for st in hist.steps(seat) for e in st.events]
                assert ("fields" in v) == (seat == "judge")
            judge = data["views"]["judge"]
            assert [pool[i] for i in judge["fields"]][1:] == \
                [fields_text(dict(replay.thaw(e.data))) for st in hist.steps("judge") for e in st.events][1:]
            page = viewer.viewer_html(svc, match_id, ["P2"])
            texts = [e.text for st in hist.steps("P2") for e in st.events]
            assert "P1 draws a card" in " ".join(texts) or "P1 bot draws a card" in " ".join(texts) or \
                any(re.search(r"P1 .*draws \d+ cards", t) for t in texts)
            for t in texts[1:40]:
                assert json.dumps(t, ensure_ascii=False)[1:-1].replace("<", "\\u003c") in page, t
    finally:
        svc.close()


def test_zx_replay_prints_each_events_sentence_and_its_json_has_text(stored):
    store, zx_id, x610z_id = stored
    r = CliRunner().invoke(zx, ["--store", store, "replay", zx_id, "--as", "P2", "--to", "end"],
                           env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    assert re.search(r"seq +\d+ AttackDeclared +P[12] .* attacks P[12]'s .* with .* from [abc][123]", r.stdout)
    assert re.search(r"seq +\d+ CardsDrawn +P1( .+)? draws (a card|\d+ cards)\n", r.stdout)
    assert not re.search(r"seq +\d+ \w+ +player=", r.stdout)  # no key=value text left
    for match_id in (zx_id, x610z_id):
        r = CliRunner().invoke(zx, ["--store", store, "replay", match_id, "--as", "P1", "--to", "end",
                                    "--format", "json"])
        assert r.exit_code == 0, r.output
        events = [e for line in r.stdout.splitlines() for e in json.loads(line)["events"]]
        game = games.get("zx" if match_id == zx_id else "x610z")
        assert events and all(set(e) == {"seq", "kind", "data", "text"} for e in events)
        assert all(e["text"] and e["text"] != fields_text(e["data"]) for e in events[1:])
        assert any(game.key == "x610z" and "casts" in e["text"] or "plays" in e["text"] for e in events)


def test_zx_serves_steps_with_their_text(stored):
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    store, zx_id, x610z_id = stored
    with TestClient(create_app(store)) as c:
        for match_id in (zx_id, x610z_id):
            steps = c.get(f"/api/matches/{match_id}/steps", params={"as": "P2", "limit": 30}).json()["steps"]
            events = [e for s in steps for e in s["events"]]
            assert events and all("data" in e and e["text"] for e in events)
            by_kind = defaultdict(list)
            for e in events:
                by_kind[e["kind"]].append(e["text"])
            assert any(t.startswith("Turn 1: ") for t in by_kind["TurnStarted"])


def test_the_judges_first_sentence_holds_the_header_note_and_the_import_path_whole(tmp_path):
    """D6 (docs/replay.md: the browser viewer shows a note whole, wrapped): the judge's ``Started`` sentence in
    ``zx view``'s data names the header's note and the file imported from whole, not cut to ``NAME_CELLS`` (40
    cells: "... (imported from /work/main/examples/x610z/invalid/105.3..."); no other seat's names either."""
    from zx_web import viewer

    note = "Judge call at table 12: P2 appealed the ruling on the Reboot of c2, " + "see the head judge's notes " * 3
    folder = tmp_path / "a-rather-long-folder-name-of-the-judge" / "and-another-one-under-it"
    folder.mkdir(parents=True)
    recs = [json.loads(line) for line in (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8")
            .splitlines()]
    recs[0]["note"] = note
    path = folder / "first-turns-with-a-note.zxlog"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(path)])
    assert r.exit_code == 0, r.output
    svc = MatchService(store, create=False)
    try:
        data = viewer.viewer_data(svc, recs[0]["match"], ["judge", "P1", "spectator"])
    finally:
        svc.close()
    pool = data["pool"]
    first = {seat: pool[data["views"][seat]["events"][0]] for seat in ("judge", "P1", "spectator")}
    assert note.strip() in first["judge"], first["judge"]
    assert f"imported from {path}," in first["judge"], first["judge"]
    for seat in ("P1", "spectator"):
        assert "folder-name-of-the-judge" not in first[seat] and "Judge call" not in first[seat], first[seat]
    # the terminal cuts a step's text at 200 cells: the path before the note (a long note took the path with it),
    # and the path whole (the words before it cut to make room: this path is over 150 cells)
    r = CliRunner().invoke(zx, ["--store", store, "replay", recs[0]["match"], "--event", "1"], env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    (line,) = [x for x in r.stdout.splitlines() if " Started " in x]
    assert f"(imported from {path}, sha256 " in line and "Judge call" not in line and line.endswith("..."), line


def test_the_judges_first_line_keeps_the_file_when_the_matchs_words_are_long(tmp_path):
    """QA round 31: with a long event, round and names the words before the file passed 200 cells, and the
    terminal's cut took the file with them ("... P1 goes first (imported from /tmp/.../first-..."). The file is
    kept; the words before it are cut to make room (the note after it is what goes); one text counted as cut."""
    recs = [json.loads(line) for line in (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8")
            .splitlines()]
    recs[0].update(event="The Grand Championship of the Whole Wide Region, 2026", round="Top 8, table 3, game 2",
                   note="Judge call at table 3 " * 20)
    for seat, who in (("P1", "Akihiro Yamanaka-Fitzgerald"), ("P2", "Renata Oyelaran-Kowalczyk")):
        recs[0]["players"][seat].update(name=who, deck_name=f"{who}'s Extremely Long Deck Name")
    folder = tmp_path / "judges-folder-of-this-regional"
    folder.mkdir()
    path = folder / "table-3-game-2.zxlog"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(path)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["--store", store, "replay", recs[0]["match"], "--event", "1"], env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    (line,) = [x for x in r.stdout.splitlines() if " Started " in x]
    text = line.split(" Started ", 1)[1].strip()
    assert f"(imported from {path}, sha256 " in text, text
    assert text.startswith(f"Match {recs[0]['match']} begins at "), text
    assert "Judge call" not in text and text.endswith(")..."), text  # (the note: cut to "...")
    assert "1 text of records, events or violations" in r.stderr, r.stderr
    # the judge's seat only: every other seat's first line has no file, and is cut as before
    r = CliRunner().invoke(zx, ["--store", store, "replay", recs[0]["match"], "--event", "1", "--as", "P1"],
                           env={"COLUMNS": "400"})
    assert "imported from" not in r.stdout and "judges-folder" not in r.stdout


def test_a_names_line_separators_are_escaped_in_sentences_as_on_the_board(tmp_path):
    """QA round 34 (nit): a player named ``So\\x85ra`` (a NEL) read ``So ra`` in every sentence of the play-by-play,
    also to the judge, while the board showed ``So\\x85ra``: two names told apart by it read alike. A NEL, a line or
    paragraph separator, a form feed are escaped where the sentence is shown (terminal, JSON, HTML file); a line
    feed, carriage return or tab is a space, as before (a sentence is one line)."""
    from zx_web import viewer

    recs = [json.loads(line) for line in (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8")
            .splitlines()]
    recs[0]["players"]["P1"]["name"] = "So\x85ra\u2028Aoi"
    recs[0]["players"]["P2"]["name"] = "Ren\nKai"
    path = tmp_path / "m.zxlog"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(path)])
    assert r.exit_code == 0, r.output
    for seat in ("P2", "spectator"):  # (the judge's first line is cut for the file imported from: its data below)
        r = CliRunner().invoke(zx, ["--store", store, "replay", recs[0]["match"], "--event", "1", "--as", seat],
                               env={"COLUMNS": "400"})
        assert r.exit_code == 0, r.output
        (line,) = [x for x in r.stdout.splitlines() if " Started " in x]
        assert "P1 So\\x85ra\\u2028Aoi (" in line and "P2 Ren Kai (" in line, line
    svc = MatchService(store, create=False)
    try:
        data = viewer.viewer_data(svc, recs[0]["match"], ["judge"])
    finally:
        svc.close()
    first = data["pool"][data["views"]["judge"]["events"][0]]
    assert "So\x85ra\u2028Aoi" in first  # (the page's data: written as the terminal shows it when the page is made)
    page = viewer._inline_json(data)
    assert "So\\\\x85ra\\\\u2028Aoi" in page and "So ra" not in page


def test_a_numbered_round_is_labelled_in_the_first_sentence():
    """QA round 35 (nit): "Match m begins at Osaka CS, 6 (...)": the round read as part of the event. A numbered
    round is "round 6"; a round written as text stays as written."""
    from zx_events.narration import Words, started

    for rnd, said in ((6, "at Osaka CS, round 6 ("), ("6", "at Osaka CS, round 6 ("), ("Top 8", "at Osaka CS, Top 8 (")):
        text = started({"match_id": "m", "header": {"event": "Osaka CS", "round": rnd, "played_at": "2026-05-01",
                                                    "players": {}}}, Words())
        assert said in text, text
