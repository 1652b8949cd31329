"""What free text a seat sees (issue 14 item 6; zx_events/freetext.py, docs/security.md).

A log that smuggles "P2 holds G01-007" into the header's note and event, a record's note and its
ts (also in lowercase, with a Unicode hyphen, fullwidth, by the card's name), imported from a file
whose path says something: no player's or spectator's view shows any of it; the judge's shows it
as written. The property test over simulated matches is tests/games/zx/test_views_leak.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from zx_cli.main import zx
from zx_cli.output import json_text
from zx_events.freetext import is_timestamp, normalize, printable, seat_header, seat_record
from zx_events.games.zx.views import GENERIC_MASK, JUDGE, Masker

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
# G01-007 "Great Horn Behemoth" is in neither deck of the match: nothing legitimate shows it
SMUGGLED = ["G01-007", "g01-007", "G01\u2010007", "\uff27\uff10\uff11\uff0d\uff10\uff10\uff17", "g01\u2212007",
            "great horn behemoth"]


@pytest.fixture
def leaky(tmp_path):
    lines = LEGAL.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["match"] = "leak-1"
    header["note"] = "P2 holds G01-007"
    header["event"] = "Open g01\u2010007 cup"
    records = [json.loads(x) for x in lines[1:]]
    for i, say in enumerate(SMUGGLED):
        records[3 + i]["note"] = f"P2 holds {say}"
    records[10]["ts"] = "P2 holds g01-007"
    records[11]["ts"] = "2026-11-01T14:03:05+09:00"
    folder = tmp_path / "judges-only-folder"
    folder.mkdir()
    log = folder / "leak-path-secret.zxlog"
    log.write_text("\n".join(json.dumps(x) for x in [header, *records]) + "\n", encoding="utf-8")
    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
    return store


def replay_json(store: Path, seat: str) -> str:
    r = CliRunner().invoke(zx, ["--store", str(store), "replay", "leak-1", "--as", seat, "--event", "1",
                                "--to", "end", "--format", "json"])
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.mark.parametrize("seat", ["P1", "P2", "spectator"])
def test_no_seat_sees_smuggled_text_or_the_import_path(leaky, seat):
    out = replay_json(leaky, seat)
    folded = normalize(out).casefold()
    assert "g01-007" not in folded and "great horn behemoth" not in folded
    assert "judges-only-folder" not in out and "leak-path-secret" not in out
    assert '"note"' not in out
    assert "P2 holds g01-007" not in out  # a ts that is not a date-time is not shown...
    assert "2026-11-01T14:03:05+09:00" in out  # ...one that is, is


def test_the_judge_sees_the_text_as_written(leaky):
    out = replay_json(leaky, JUDGE)
    assert "P2 holds G01-007" in out and "leak-path-secret" in out and "Open g01\u2010007 cup" in out


@pytest.mark.parametrize("seat", ["P1", "spectator"])
def test_the_browser_viewer_shows_no_smuggled_text(leaky, seat):
    from zx_web.viewer import viewer_data
    from zx_events.application import MatchService

    svc = MatchService(str(leaky), create=False)
    try:
        data = json.dumps(viewer_data(svc, "leak-1", [seat]), ensure_ascii=False)
    finally:
        svc.close()
    folded = normalize(data).casefold()
    assert "g01-007" not in folded and "great horn behemoth" not in folded and "leak-path-secret" not in data


@pytest.mark.parametrize("text", SMUGGLED)
def test_the_mask_sees_through_case_dashes_and_width(text):
    masked = Masker(["G01-007", "Great Horn Behemoth"])(f"P2 holds {text}")
    assert masked == "P2 holds [card]"


@pytest.mark.parametrize("name", ["\u0639\u0644\u06cc\u200c\u0631\u0636\u0627",  # Persian, its ZWNJ
                                  "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # a family emoji (ZWJ)
                                  "\u0915\u094d\u200d\u0937 \u2764\ufe0f", "Stra\u00dfe", "\uff21\uff4b\uff49"])
def test_301_3c_a_name_without_a_card_is_shown_as_written(name):
    """The mask showed every text normalized, invisible characters dropped: a Persian name lost the non-joiner
    its spelling needs, a family emoji came apart, and the name as shown no longer found its matches (HTTP
    filters: 0 matches, "no player named ..."). A text with no card in it is shown as written (without its
    bidirectional controls); one with a card is masked as before."""
    assert GENERIC_MASK(name) == name
    assert GENERIC_MASK("\u202e" + name) == name  # (an override could show stored text reversed)
    assert GENERIC_MASK(name + " R01\u200c-008") == name + " [card]"  # (the rest as written: it was normalized)
    assert GENERIC_MASK("R01-008 " + name + "\u202e") == "[card] " + name


def test_a_code_written_against_japanese_text_is_masked():
    """\\b took a kanji or kana for a letter: "B12-034軸" and "軸B12-034" (Japanese is written without spaces)
    reached every seat as written, where "B12-034 軸" was masked (QA round 34). A code is bounded by anything but
    an ASCII letter or digit; a longer word is still not a code."""
    for text, shown in (("B12-034軸スーパースター", "[card]軸スーパースター"), ("軸B12-034", "軸[card]"),
                        ("赤単B12-034使い", "赤単[card]使い"), ("ＢＸ１２－０３４の", "[card]の"),
                        ("x_R01-008", "x_[card]"), ("AB12-034", "[card]"), ("2B12-034", "2B12-034"),
                        ("B12-034x", "[card]"), ("B12-034-", "[card]-")):
        assert GENERIC_MASK(text) == shown, (text, GENERIC_MASK(text))


def test_a_card_name_written_with_spacing_sound_marks_or_controls_in_it_is_masked():
    """ウ゛ for ヴ and ハ゜ for パ (the spacing sound marks U+309B/U+309C, as Japanese was written before Unicode): NFKC
    made each a space and a combining mark, which never composed, and the card's name reached every seat; so did a
    name split by a control character (DEL, NEL), which a reader sees as an escape or a break (QA round 34)."""
    mask = Masker(["紅蓮竜ヴァンガード", "スーパースター", "灰空の暴君"])
    for text, shown in (("紅蓮竜ウ゛ァンガード軸", "[card]軸"), ("スーハ゜ースター杯", "[card]杯"),
                        ("紅蓮竜\x7fヴァンガード", "[card]"), ("灰空\x85の暴君 x", "[card] x"),
                        ("灰空\u2028の暴君", "[card]"), ("a\tb R01-008", "a\tb [card]"),
                        ("ウ゛ 普通の名前", "ウ゛ 普通の名前")):
        assert mask(text) == shown, (text, mask(text))


def test_the_mask_leaves_ordinary_text_alone():
    assert GENERIC_MASK("Tokyo Regional 2026, round 3") == "Tokyo Regional 2026, round 3"
    assert GENERIC_MASK("b3 is not next to a1 (602.1b)") == "b3 is not next to a1 (602.1b)"


# characters whose letter cases IGNORECASE relates in more than one way: i, I, dotless i and dotted I; s and
# long s; K and the Kelvin sign; the Greek finals, symbols and iota subscript; Cyrillic's old forms; the ligatures
CASES = "iIıİsSſkKKµμΜΣσςβϐΒθϑϴΩωΩÅåßẞвВᲀͅιΙιﬅﬆ-‐ 019_.xyzαΑ"


BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def reference_mask(words: list[str]):
    """The mask as it was written first: one case-insensitive expression of every name, longest first, then
    the code shape (it tried each of the catalog's names at every character: 1.5 s for 220,000 of them)."""
    import re

    code = r"[A-Za-z](?<![A-Za-z0-9].)[A-Za-z0-9]*-[A-Za-z0-9]*[0-9][A-Za-z0-9]*(?![A-Za-z0-9])"
    ordered = sorted({normalize(w) for w in words if w}, key=len, reverse=True)
    pattern = re.compile("|".join([*(re.escape(w) for w in ordered), code]), re.IGNORECASE)
    bidi = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

    def mask(text: str) -> str:  # (a text with nothing masked: as written, its bidirectional controls dropped)
        masked, n = pattern.subn("[card]", normalize(text))
        return masked if n else bidi.sub("", text)

    return mask


@st.composite
def names_and_text(draw):
    words = draw(st.lists(st.text(CASES, min_size=1, max_size=5), max_size=10))
    piece = st.text(CASES, max_size=3)
    if words:  # the names themselves, in other cases, often
        piece = st.one_of(piece, st.sampled_from(words), st.sampled_from(words).map(str.swapcase),
                          st.sampled_from(words).map(str.upper), st.sampled_from(words).map(str.lower))
    return words, "".join(draw(st.lists(piece, max_size=12)))


@given(names_and_text())
@settings(max_examples=500, deadline=None)
def test_the_mask_masks_what_one_case_insensitive_expression_of_every_name_masks(case):
    """The same matches, in every case IGNORECASE relates: the longest name at each place, else the code shape."""
    words, text = case
    masked, compared = Masker(words)(text), reference_mask(words)(text)
    assert (normalize(masked) if "[card]" in compared else masked) == compared  # the same cards, at the same places
    if masked != compared:  # the text between them as written, but its bidirectional controls (a card beginning or
        # ending inside what one character became is shown as compared)
        written, pos = BIDI_CONTROLS.sub("", text), 0
        for part in masked.split("[card]"):
            found = written.find(part, pos)
            assert found >= 0, (masked, written, part)
            pos = found + len(part)


def test_the_mask_masks_a_catalogs_names_as_one_expression_of_them_does():
    from zx_events.replay import card_names

    cn = card_names("zx", "sample", None)
    words = [*cn.names, *cn.names.values()]
    names = sorted(cn.names.values())[:40]
    text = " ".join(f"{n.upper()} x{c}y {n.lower()}-{c.lower()}1 {n.swapcase()}" for n, c in zip(names, cn.names))
    assert cn.mask(text) == reference_mask(words)(text) and cn.mask(text).count("[card]") >= 80


def test_the_policy_functions():
    rec = {"do": "draw", "by": "P1", "note": "x", "ts": "soon"}
    assert seat_record(dict(rec), JUDGE) == rec
    assert seat_record(dict(rec), "P2") == {"do": "draw", "by": "P1"}
    assert seat_record({"ts": "2026-11-01"}, "P1") == {"ts": "2026-11-01"}
    header = {"note": "n", "event": "E U01-013", "players": {"P1": {"name": "u01-013", "deck": {}}}}
    assert seat_header(header, "spectator", GENERIC_MASK) == {"event": "E [card]",
                                                              "players": {"P1": {"name": "[card]", "deck": {}}}}
    assert [is_timestamp(x) for x in ("2026-11-01T14:03:00+09:00", "2026-11-01", "14:03", "", None)] == \
        [True, True, False, False, False]


# ---------------------------------------------------------------------- an event's source
EFFECTS = {"rules-fidelity-605-6-lethal-startup": ROOT / "examples" / "legal" / "rules-fidelity.zxlog",
           "x610z-sim-9-0075": ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog"}


@pytest.fixture
def both_games(tmp_path):
    """A Z/X match and an X610Z match with effects, imported from a folder only the judge may know of."""
    folder = tmp_path / "judges-only-folder"
    folder.mkdir()
    store = tmp_path / "s.sqlite"
    for src in EFFECTS.values():
        (folder / src.name).write_bytes(src.read_bytes())
        r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", str(folder / src.name)])
        assert r.exit_code == 0, r.output
    return store


def seat_steps(store: Path, match: str, seat: str) -> dict[str, list[dict]]:
    """Every step as ``seat`` sees it: through ``zx replay --format json`` and ``zx serve``'s /steps."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    r = CliRunner().invoke(zx, ["--store", str(store), "replay", match, "--as", seat, "--event", "1",
                                "--to", "end", "--format", "json"])
    assert r.exit_code == 0, r.output
    with TestClient(create_app(str(store), judge=seat == JUDGE)) as c:
        api = c.get(f"/api/matches/{match}/steps", params={"as": seat, "limit": 500})
    assert api.status_code == 200, api.text
    return {"zx replay": [json.loads(x) for x in r.stdout.splitlines() if x.strip()], "/steps": api.json()["steps"]}


@pytest.mark.parametrize("seat", ["P2", "spectator"])
def test_301_3a_an_effects_source_is_every_seats_and_only_the_import_path_is_the_judges(both_games, seat):
    for match in EFFECTS:
        for where, steps in seat_steps(both_games, match, seat).items():
            played = [(e["data"].get("source"), s["record"]["source"]) for s in steps for e in s["events"]
                      if e["kind"] in ("EffectApplied", "AbilityPlayed")]
            assert played and all(got == rec for got, rec in played), (match, where, played)  # the public card/Square
            started = steps[0]["events"][0]
            assert started["kind"] == "Started" and "source" not in started["data"], (match, where)
            assert "judges-only-folder" not in json.dumps(steps), (match, where)


def test_the_judge_sees_the_import_path_and_every_source(both_games):
    for match, src in EFFECTS.items():
        for where, steps in seat_steps(both_games, match, JUDGE).items():
            assert steps[0]["events"][0]["data"]["source"].endswith(f"judges-only-folder/{src.name}"), where
            assert all(e["data"].get("source") == s["record"]["source"] for s in steps for e in s["events"]
                       if e["kind"] == "EffectApplied"), where


# ---------------------------------------------------------------------- free text in records (Z/X), invisible characters
# A short legal Z/X log (first-turns.zxlog's header) where P1 keeps R01-008 and R01-009 in hand the whole match
# (301.3c, 502.3: the hand is hidden): nothing P2 or a spectator is given may name them, in any form
HIDDEN = {"R01-008": "Ashen Sky Tyrant", "R01-009": "Scorchclaw Raider"}
TOLD = {"token": "Ashen Sky Tyrant R01-008 in hand", "reason": "P2 conceded; P1 still held R01-008 Ashen Sky Tyrant"}
TOLD_MASKED = {"token": "[card] [card] in hand", "reason": "P2 conceded; P1 still held [card] [card]"}


def hidden_hand_log(path: Path, match: str, *, token: str | None = None, reason: str | None = None,
                    p1: str = "Mio", deck: str | None = None) -> Path:
    """``token``: P1 puts a Token of that name on c1; ``reason``: the result record's; ``p1``, ``deck``: P1's
    name and deck name."""
    header = json.loads(LEGAL.read_text(encoding="utf-8").splitlines()[0])
    header["match"] = match
    header["players"]["P1"]["name"] = p1
    if deck is not None:
        header["players"]["P1"]["deck_name"] = deck
    records = [
        header,
        {"do": "setup", "by": "P1", "hand": ["R01-008", "R01-009", "R01-002", "R01-004"],
         "life": ["R01-010", "R01-011", "R01-005", "R01-013"], "resource": ["R01-001", "R01-002"]},
        {"do": "setup", "by": "P2", "hand": ["U01-001", "U01-002", "U01-003", "U01-004"],
         "life": ["U01-011", "U01-013", "U01-005", "U01-006"], "resource": ["U01-001", "U01-002"]},
        {"do": "turn", "by": "P1", "turn": 1}, {"do": "resource", "by": "P1", "card": "R01-004"},
        {"do": "play", "by": "P1", "card": "R01-002", "pay": ["R01-001"], "square": "a1"}]
    if token is not None:
        records.append({"do": "effect", "by": "P1", "source": "a1", "op": "token", "square": "c1", "name": token,
                        "power": 1000})
    records += [{"do": "end", "by": "P1"}, {"do": "turn", "by": "P2", "turn": 2},
                {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004"]}, {"do": "concede", "by": "P2"}]
    if reason is not None:
        records.append({"do": "result", "by": "P1", "winner": "P1", "reason": reason})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def import_logs(store: Path, *logs: Path) -> None:
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", *map(str, logs)])
    assert r.exit_code == 0, r.output


def hidden_named(text: str, drop: str = "") -> list[str]:
    """The hidden cards ``text`` names, by code or name, as a reader sees it: without the characters of
    ``drop`` (which show as nothing), in any case, with any dash, in fullwidth forms."""
    folded = normalize(text.translate({ord(c): None for c in drop})).casefold()
    return [x for code, name in HIDDEN.items() for x in (code, name) if normalize(x).casefold() in folded]


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    """A match whose Token's name and result's reason name P1's hidden cards."""
    tmp = tmp_path_factory.mktemp("told")
    store = tmp / "s.sqlite"
    import_logs(store, hidden_hand_log(tmp / "told.zxlog", "told", **TOLD))
    return store


def steps_of(text: str) -> list[dict]:
    """The steps of a ``zx replay --format json`` output or a /steps answer."""
    lines = [json.loads(x) for x in text.splitlines() if x.strip()]
    return lines[0]["steps"] if len(lines) == 1 and "steps" in lines[0] else lines


@pytest.mark.parametrize("seat", ["P2", "spectator"])
def test_301_3c_a_results_reason_and_a_tokens_name_are_masked_for_every_seat_but_the_judge(told, seat, tmp_path):
    """docs/security.md §4: a result's reason and a Token's name are free text like a player's name (they were
    shown whole: the record, its event, the Token on c1 and the view's names)."""
    outs = seat_outputs(told, "told", seat, tmp_path)
    for where, text in outs.items():
        assert hidden_named(text) == [], (seat, where)
        if "'at': 1" not in where:  # (before the Token)
            assert TOLD_MASKED["token"] in text, (seat, where)
        if "/view?" not in where:  # every step, the result's included
            assert TOLD_MASKED["reason"] in text, (seat, where)
    for where in ("zx replay --format json", f"/api/matches/told/steps?{{'as': '{seat}', 'limit': 500}}"):
        steps = steps_of(outs[where])
        said = {(e["kind"], k): v for s in steps for e in s["events"]
                for k, v in [*e["data"].items(), *e["data"].get("args", {}).items()] if k in ("reason", "name")}
        assert said[("ResultRecorded", "reason")] == TOLD_MASKED["reason"], where
        assert said[("EffectApplied", "name")] == TOLD_MASKED["token"], where
        records = {s["record"]["do"]: s["record"] for s in steps if s["record"]}
        assert records["result"]["reason"] == TOLD_MASKED["reason"], where
        assert records["effect"]["name"] == TOLD_MASKED["token"], where
        last = steps[-1]["state"]
        assert last["squares"]["c1"]["name"] == TOLD_MASKED["token"] and last["names"]["TOKEN"] == TOLD_MASKED["token"]
    assert f"TOKEN {TOLD_MASKED['token']}" in outs["zx replay --format table"]
    # (the event in the game's words, its reason as the seat reads it: docs/replay.md, Play-by-play)
    assert re.search(r"ResultRecorded +The log records the result: P[12] won by " + re.escape(TOLD_MASKED["reason"]),
                     outs["zx replay --format table"])


def test_301_3c_the_judge_sees_a_results_reason_and_a_tokens_name_whole(told, tmp_path):
    outs = seat_outputs(told, "told", JUDGE, tmp_path)
    for where in ("zx replay --format json", "/api/matches/told/steps?{'as': 'judge', 'limit': 500}"):
        steps = steps_of(outs[where])
        assert steps[-1]["record"]["reason"] == TOLD["reason"] and steps[-1]["events"][0]["data"]["reason"] == TOLD["reason"]
        assert steps[-1]["state"]["squares"]["c1"]["name"] == TOLD["token"]
    assert TOLD["token"] in outs["zx view"] and TOLD["reason"] in outs["zx view"]


def test_every_free_text_field_of_a_log_is_in_the_policy():
    """Every string of a log that no check gives a form (the schemas' free text) is in zx_events.freetext's
    policy: a note judge only, ts shown as a date-time, the rest masked. X610Z's records carry none but note
    and ts; Z/X's carry a result's reason and a Token's name (they were shown whole: MASKED_RECORD)."""
    from zx_events import games
    from zx_events.freetext import JUDGE_ONLY_HEADER, JUDGE_ONLY_RECORD, MASKED_HEADER, MASKED_PLAYER, MASKED_RECORD

    def free(prop: dict) -> bool:
        if "$ref" in prop:
            return prop["$ref"].rsplit("/", 1)[-1] in ("text", "name")
        types = prop.get("type") if isinstance(prop.get("type"), list) else [prop.get("type")]
        return "string" in types and not {"pattern", "enum", "const"} & set(prop)

    for key, masked_record in (("zx", MASKED_RECORD), ("x610z", {})):
        defs = games.get(key).log_format.schema["$defs"]
        records: dict[str, set[str]] = {}
        for d in defs.values():
            do = d.get("properties", {}).get("do", {}).get("const")
            if do is not None:
                records.setdefault(do, set()).update(k for k, p in d["properties"].items() if free(p))
        told_text = {do: keys - {*JUDGE_ONLY_RECORD, "ts"} for do, keys in records.items()}
        assert {do: keys for do, keys in told_text.items() if keys} == \
            {do: set(keys) for do, keys in masked_record.items()}, key
        header = defs["header"]["properties"]
        shipped = {"catalog", "board"}  # the name of reference data zx ships, nothing else (docs/security.md §5)
        assert {k for k, p in header.items() if free(p)} <= {*JUDGE_ONLY_HEADER, *MASKED_HEADER, *shipped}, key
        entry = header["players"]["properties"]["P1"]
        entry = defs[entry["$ref"].rsplit("/", 1)[-1]] if "$ref" in entry else entry
        assert {k for k, p in entry["properties"].items() if free(p)} <= {*JUDGE_ONLY_HEADER, *MASKED_PLAYER}, key


# characters a reader does not see, each put inside a hidden card's code and name: format characters, other
# default-ignorable ones, and bidirectional controls (they hid the code from the mask, and the screen showed it)
INVISIBLE = {"zero-width space": "\u200b", "soft hyphen": "\u00ad", "word joiner": "\u2060",
             "zero-width no-break space": "\ufeff", "variation selector": "\ufe0f", "zero-width joiner": "\u200d",
             "combining grapheme joiner": "\u034f", "tag": "\U000e0041", "Hangul filler": "\u3164",
             "left-to-right mark": "\u200e", "right-to-left override": "\u202e", "first strong isolate": "\u2068",
             "pop directional isolate": "\u2069", "Arabic letter mark": "\u061c"}
BIDI = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def hidden_in(ch: str) -> dict[str, str]:
    """The free text of a log that names R01-008 and R01-009 with ``ch`` inside each code and name."""
    return {"p1": f"Mio R01{ch}-008", "deck": f"Ashen Sky Ty{ch}rant in hand",
            "token": f"R01-{ch}009 token", "reason": f"P1 held Scorch{ch}claw Raider"}


@pytest.mark.parametrize("ch", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_301_3c_the_mask_sees_through_invisible_and_bidi_characters(ch):
    mask = Masker([*HIDDEN, *HIDDEN.values()])
    for text in hidden_in(ch).values():
        masked = mask(text)
        assert "[card]" in masked and hidden_named(masked, ch) == [] and ch not in masked, ascii(masked)


def test_301_3c_every_format_character_is_seen_through():
    import unicodedata

    mask = Masker([*HIDDEN, *HIDDEN.values()])
    for ch in (chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"):
        # (the card with the character in it replaced; the rest as written, but a bidirectional control)
        assert mask(f"R01{ch}-008 Ashen{ch} Sky") == "[card] " + BIDI_CONTROLS.sub("", f"Ashen{ch} Sky"), ascii(ch)
        assert mask(f"Ashen{ch} Sky Tyrant") == "[card]", ascii(ch)


@pytest.fixture(scope="module")
def disguised(tmp_path_factory):
    """A match per character of INVISIBLE, whose free text names P1's hidden cards with it inside."""
    tmp = tmp_path_factory.mktemp("disguised")
    store = tmp / "s.sqlite"
    import_logs(store, *(hidden_hand_log(tmp / f"m{i}.zxlog", f"disguised-{i}", **hidden_in(ch))
                         for i, ch in enumerate(INVISIBLE.values())))
    return store


def seat_files(store: Path, match: str, seat: str, tmp: Path) -> dict[str, str]:
    """``zx replay`` (terminal and JSON) and the bytes of ``zx view``'s file, as ``seat``."""
    base = ["--store", str(store)]
    out = {}
    for fmt in ("json", "table"):
        r = CliRunner().invoke(zx, [*base, "replay", match, "--as", seat, "--to", "end", "--format", fmt],
                               env={"COLUMNS": "200"})
        assert r.exit_code == 0, r.output
        out[f"zx replay --format {fmt}"] = r.stdout
    page = tmp / f"{match}-{seat}.html"
    r = CliRunner().invoke(zx, [*base, "view", match, "--as", seat, "-o", str(page)])
    assert r.exit_code == 0, r.output
    out["zx view"] = page.read_bytes().decode("utf-8")
    return out


@pytest.mark.parametrize("i,ch", list(enumerate(INVISIBLE.values())), ids=INVISIBLE.keys())
def test_301_3c_an_invisible_or_bidi_character_gets_no_hidden_card_past_the_mask(disguised, i, ch, tmp_path):
    """A code or name with a zero-width space, a soft hyphen, a bidi control... inside was not masked, and
    the terminal and the browser showed it whole: the mask reads them as nothing, and the masked text a
    seat is given holds none of them (the judge's, all: the bidi controls written as their escapes, in JSON as
    JSON escapes and in zx view's file as zx replay shows them, ``\\u202e``)."""
    for seat in ("P2", "spectator"):
        for where, text in seat_files(disguised, f"disguised-{i}", seat, tmp_path).items():
            assert hidden_named(text, ch) == [], (seat, where)  # the code and the name, as a reader sees them
            assert ch not in text and not set(BIDI) & set(text), (seat, where)
            assert "Mio [card]" in text and "[card] in hand" in text, (seat, where)
    judge = seat_files(disguised, f"disguised-{i}", JUDGE, tmp_path)
    whole = hidden_in(ch)["p1"]
    assert json_text(whole)[1:-1] in judge["zx replay --format json"], "the judge's: whole"
    assert json.dumps(printable(whole), ensure_ascii=False)[1:-1] in judge["zx view"], "the judge's: whole"
    assert not set(BIDI) & set(judge["zx view"] + judge["zx replay --format json"])


def test_301_3c_a_bidi_override_cannot_show_reversed_text_as_a_hidden_code_in_the_html_file(tmp_path):
    """``\\u202e800-10R`` was shown by the browser as R01-008: a seat's file holds no bidi control, so it
    shows the text in the order it is stored; the judge's shows each as its escape (``\\u202e800-10R``)."""
    store = tmp_path / "s.sqlite"
    import_logs(store, hidden_hand_log(tmp_path / "m.zxlog", "reversed", p1="Mio \u202e800-10R\u202c",
                                       deck="\u202ednah ni tnaryT ykS nehsA\u202c"))
    for seat in ("P2", "spectator"):
        text = seat_files(store, "reversed", seat, tmp_path)["zx view"]
        assert not set(BIDI) & set(text), seat
        assert "Mio 800-10R" in text and "dnah ni tnaryT ykS nehsA" in text, seat
    judge = seat_files(store, "reversed", JUDGE, tmp_path)["zx view"]
    assert "Mio \\\\u202e800-10R\\\\u202c" in judge and not set(BIDI) & set(judge)  # (each backslash doubled in the JSON)


# ---------------------------------------------------------------------- player and deck names in a seat's view
# free text naming a card in neither deck, by name in odd case and by code with a Unicode hyphen
NAMED = {"named-zx": (LEGAL, {"P1": {"name": "Ann great HORN behemoth"}, "P2": {"deck_name": "Blue g01\u2011007"}},
                      ("behemoth", "g01")),
         "named-x610z": (EFFECTS["x610z-sim-9-0075"],
                         {"P1": {"name": "Ann prism CRYSTAL"}, "P2": {"name": "a1\u2010012 fan"}}, ("prism", "a1-012"))}
MASKED_NAMES = {"named-zx": {"P1": {"name": "Ann [card]"}, "P2": {"deck_name": "Blue [card]"}},
                "named-x610z": {"P1": {"name": "Ann [card]"}, "P2": {"name": "[card] fan"}}}


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    """A Z/X and an X610Z match whose player and deck names name a card."""
    tmp = tmp_path_factory.mktemp("named")
    store = tmp / "s.sqlite"
    for match, (src, players, _) in NAMED.items():
        lines = src.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        header["match"] = match
        for pl, names in players.items():
            header["players"][pl].update(names)
        log = tmp / f"{match}{src.suffix}"
        log.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
        r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", str(log)])
        assert r.exit_code == 0, r.output
    return store


def seat_outputs(store: Path, match: str, seat: str, tmp: Path) -> dict[str, str]:
    """What ``seat`` is given of ``match``: zx replay (JSON, terminal), zx view's file, zx serve's
    /view, /steps and replay page."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    base = ["--store", str(store)]
    out = {}
    for fmt in ("json", "table"):
        r = CliRunner().invoke(zx, [*base, "replay", match, "--as", seat, "--event", "1", "--to", "end", "--format", fmt])
        assert r.exit_code == 0, r.output
        out[f"zx replay --format {fmt}"] = r.stdout
    page = tmp / f"{match}-{seat}.html"
    r = CliRunner().invoke(zx, [*base, "view", match, "--as", seat, "-o", str(page)])
    assert r.exit_code == 0, r.output
    out["zx view"] = page.read_text(encoding="utf-8")
    with TestClient(create_app(str(store), judge=seat == JUDGE)) as c:
        for path, params in ((f"/api/matches/{match}/view", {"as": seat}),
                             (f"/api/matches/{match}/view", {"as": seat, "at": 1}),
                             (f"/api/matches/{match}/steps", {"as": seat, "limit": 500}),
                             (f"/matches/{match}/replay", {"as": seat})):
            got = c.get(path, params=params)
            assert got.status_code == 200, (path, got.text)
            out[f"{path}?{params}"] = got.text
    return out


def view_names(text: str) -> list[dict[str, dict]]:
    """The players' names and deck names of every state in a JSON answer."""
    found = []

    def walk(v):
        if isinstance(v, dict):
            players = v.get("players")
            if isinstance(players, dict) and "perspective" in v:
                found.append({pl: {k: p.get(k) for k in ("name", "deck_name") if k in p} for pl, p in players.items()})
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    try:
        walk(json.loads(text))
    except json.JSONDecodeError:  # zx replay: one step a line
        for line in text.splitlines():
            walk(json.loads(line))
    return found


@pytest.mark.parametrize("seat", ["P1", "P2", "spectator"])
@pytest.mark.parametrize("match", NAMED)
def test_player_and_deck_names_are_masked_in_every_seats_view(named, match, seat, tmp_path):
    """docs/security.md §4: names are masked for every seat but the judge, the player's own too: in the
    state of every step, not only on the match page (they were shown raw in every view)."""
    _, players, secrets = NAMED[match]
    for where, text in seat_outputs(named, match, seat, tmp_path).items():
        folded = normalize(text).casefold()
        for secret in secrets:
            assert secret not in folded, (match, seat, where, secret)
        assert "[card]" in text, (match, seat, where)
        if where.startswith("/api/") or where.endswith("json"):
            states = view_names(text)
            assert states, (where, text[:200])
            for state in states:
                for pl, names in MASKED_NAMES[match].items():
                    assert {k: state[pl][k] for k in names} == names, (match, seat, where, state)


@pytest.mark.parametrize("match", NAMED)
def test_the_judge_sees_player_and_deck_names_as_written(named, match, tmp_path):
    _, players, _ = NAMED[match]
    outs = seat_outputs(named, match, JUDGE, tmp_path)
    for where in ("zx replay --format json", f"/api/matches/{match}/view?{{'as': 'judge'}}"):
        for state in view_names(outs[where]):
            for pl, names in players.items():
                assert {k: state[pl][k] for k in names} == names, (where, state)


def test_a_100000_character_name_is_masked_once_not_in_every_steps_view(tmp_path):
    """A name is masked in the view of every step, and a header line may hold 1,000,000 characters: the mask
    keeps what it gave for the last texts (zx view of a match with a 100,000-character deck name took 115 s
    when a scan of the catalog's names cost ~3 ms per 1,000 characters, the same match 0.4 s)."""
    import time

    from zx_web.viewer import decode, viewer_data
    from zx_events.application import MatchService

    lines = LEGAL.read_text(encoding="utf-8").splitlines()
    name = "Ann " + "x" * 100_000 + " g01-007"
    for match, who in (("plain", "Ann"), ("long", name)):
        header = json.loads(lines[0])
        header["match"] = match
        header["players"]["P1"]["name"] = who
        (tmp_path / f"{match}.zxlog").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(tmp_path / "plain.zxlog"),
                                str(tmp_path / "long.zxlog")])
    assert r.exit_code == 0, r.output
    svc = MatchService(store, create=False)
    try:
        took = {}
        for match in ("plain", "plain", "long"):
            start = time.monotonic()
            data = viewer_data(svc, match, ["spectator"])
            took[match] = time.monotonic() - start
    finally:
        svc.close()
    assert took["long"] < 3 * took["plain"] + 1, took
    assert {s["P1"]["name"] for s in view_names(json.dumps(decode(data, "spectator")))} == {name[:-7] + "[card]"}
