"""No error reaches a ``zx`` user as a traceback (the quality bar): the last resort of ``zx_cli.main.main``
turns an error no command expected into one line naming its type, message and FILE:LINE."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analytics_support import imported_store
from zx_cli.main import internal_error

ROOT = Path(__file__).resolve().parent.parent


def test_an_unexpected_error_is_one_line_naming_where_not_a_traceback(tmp_path):
    """The last resort of ``zx`` (``zx_cli.main.main``): an error no command expected is one line on
    stderr with its type, message and FILE:LINE, exit code 1; ZX_DEBUG=1 shows the traceback."""
    code = ("import sys\nimport zx_cli.analytics\n"
            "def boom(*a, **k):\n    raise RuntimeError('injected for the test')\n"
            "zx_cli.analytics.emit = boom\nfrom zx_cli.main import main\n"
            "sys.argv = ['zx', '--store', sys.argv[1], 'sql', 'SELECT 1 AS n']\nmain()\n")
    store = imported_store(tmp_path)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-c", code, str(store)], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1 and p.stdout == ""
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "Error: internal error: RuntimeError: injected for the test at <string>:4 (in boom)" in p.stderr
    assert "ZX_DEBUG=1 shows the traceback" in p.stderr
    p = subprocess.run([sys.executable, "-c", code, str(store)], cwd=tmp_path, env={**env, "ZX_DEBUG": "1"},
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "Traceback" in p.stderr and "RuntimeError: injected for the test" in p.stderr


def test_a_system_error_says_what_the_system_refused_not_a_bug():
    try:
        open("/nonexistent-dir/x", "w")
    except OSError as e:
        text = internal_error(e)
    assert text.startswith("Error: No such file or directory: /nonexistent-dir/x at ")
    assert "This is a bug" not in text


@pytest.mark.parametrize("args", [["matches"], ["matches", "--format", "json"], ["verify", "--format", "csv"],
                                  ["stats", "winrates"]])
def test_an_output_that_cannot_be_written_says_so_not_a_line_of_a_library(tmp_path, args):
    """``zx matches > /dev/full`` said "Error: No space left on device at .venv/.../rich/console.py:2124 (in
    _write_buffer)": a place in a library, where the user's output was what could not be written."""
    store = imported_store(tmp_path)
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(store), *args], cwd=ROOT, stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120, env={"PATH": "/usr/bin:/bin",
                                                                                 "PYTHONPATH": str(ROOT)})
    assert p.returncode == 1, p.stderr
    assert "Error: cannot write the output (standard output): No space left on device" in p.stderr, p.stderr
    assert "site-packages" not in p.stderr and "Traceback" not in p.stderr


def test_a_table_fits_the_terminal_and_says_what_it_left_out(tmp_path):
    """Every command's table fits the terminal (``COLUMNS``, or the terminal's own width): the first
    column always, then the others in order while they fit; the ones left out are named on stderr.
    Piped (no terminal), a table keeps every column. Before, ``zx matches`` was 200 characters wide
    in an 80-column terminal."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    store = imported_store(tmp_path, "--no-analytics")
    for width in (80, 120):
        r = CliRunner(env={"COLUMNS": str(width)}).invoke(zx, ["--store", str(store), "matches"])
        assert r.exit_code == 0, r.output
        lines = r.stdout.splitlines()
        assert max(len(line) for line in lines) <= width and "m1" in r.stdout
        assert f" left out to fit {width} characters: " in r.stderr and "--format csv|json" in r.stderr
    wide = CliRunner(env={"COLUMNS": "240"}).invoke(zx, ["--store", str(store), "matches"])
    assert "left out" not in wide.stderr and "violations" in wide.stdout
    piped = CliRunner().invoke(zx, ["--store", str(store), "matches"])
    assert "left out" not in piped.stderr and "violations" in piped.stdout


def test_a_table_in_a_pipe_has_every_column_and_never_cuts_a_cell(tmp_path):
    """To a pipe or a file (no terminal, no ``COLUMNS``) every command's table has every column, each
    cell whole on one line, the table as wide as its content. Before, tables were 100-200 characters
    wide: ``zx verify | grep MATCH`` found nothing (the id folded in two), ``zx import`` cut the source
    path, ``zx sql`` squeezed 26 columns (``Fals``/``e``), and ``zx stats`` left 16 columns out at 120."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    long_id = "rules-fidelity-605-6-lethal-startup-of-a-long-simulated-name"
    lines = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["match"] = long_id
    log = tmp_path / ("a-folder-with-a-long-name-" * 3) / "first-turns-with-a-long-file-name.zxlog"
    log.parent.mkdir()
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(imported_store(tmp_path))  # (the hand-built matches: rows for zx stats)
    piped = CliRunner()
    r = piped.invoke(zx, ["--store", store, "import", str(log)])
    assert r.exit_code == 0, r.output
    assert any(long_id in line and str(log) in line for line in r.stdout.splitlines()), r.stdout
    r = piped.invoke(zx, ["--store", store, "verify"])
    assert r.exit_code == 0 and any(long_id in line and "ok" in line for line in r.stdout.splitlines()), r.stdout
    r = piped.invoke(zx, ["--store", store, "sql", "SELECT * FROM seats"])
    rows = [line for line in r.stdout.splitlines() if line.startswith("│")]
    head = next(line for line in r.stdout.splitlines() if line.startswith("┃"))
    assert r.exit_code == 0 and len(rows) == 8 and head.count("┃") > 20  # one line a seat, every column
    assert all(row.count("│") == head.count("┃") for row in rows) and "False" in r.stdout
    for args in (["stats", "winrates"], ["stats", "cards"]):
        r = piped.invoke(zx, ["--store", store, *args])
        assert r.exit_code == 0 and "left out" not in r.stderr, r.output
        rows = [line for line in r.stdout.splitlines() if line.startswith("│")]
        assert rows and all("%" in line for line in rows), r.stdout  # no cell wrapped onto a second line
    assert "losses" in piped.invoke(zx, ["--store", store, "stats", "winrates"]).stdout


def test_a_count_of_one_is_singular(tmp_path, capsys, monkeypatch):
    """"(1 columns left out ...)" and "1 matches projected": one is singular in every count the
    commands print."""
    from click.testing import CliRunner

    from zx_cli.main import zx
    from zx_cli.output import emit

    monkeypatch.setenv("COLUMNS", "40")
    emit([{"a": "x" * 20, "b": "y" * 20}], "table")
    monkeypatch.delenv("COLUMNS")
    assert "(1 column left out to fit 40 characters: b;" in capsys.readouterr().err
    r = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), "import",
                                str(ROOT / "examples" / "legal" / "first-turns.zxlog")])
    assert r.exit_code == 0 and "events, 1 match projected into" in r.stderr, r.stderr
    r = CliRunner().invoke(zx, ["simulate", "-n", "1", "--out", str(tmp_path / "sim")])
    assert r.exit_code == 0 and "1 match in 1 file in" in r.stderr, r.stderr


def test_an_unknown_game_or_a_bad_date_is_the_same_usage_error_for_every_command(tmp_path):
    """``--game foo`` was exit 2 "game: unknown game 'foo'" (zx matches), exit 2 "Invalid value for
    '--game'" (zx simulate), exit 1 "no game named 'foo' in the analytics file" (zx stats, report,
    sql); a bad date "since: ... is not a date" or "since must be a date YYYY-MM-DD, got ...". Now
    every command says it alike, naming the option as typed and the known games, exit 2."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    store = str(imported_store(tmp_path))
    out = str(tmp_path / "out")
    commands = {"matches": ["matches"], "simulate": ["simulate", "-n", "1", "--out", out],
                "stats": ["stats", "winrates"], "report": ["report", "-o", str(tmp_path / "r.html")],
                "sql": ["sql", "SELECT 1"]}
    for name, args in commands.items():
        r = CliRunner().invoke(zx, ["--store", store, *args, "--game", "foo"])
        assert r.exit_code == 2, (name, r.output)
        assert "Error: Invalid value for '--game': unknown game 'foo' (known: zx, x610z; zx games lists them)" \
            in r.stderr, (name, r.output)
    for name in ("matches", "stats", "report"):
        for option, value in (("--since", "2026-13-01"), ("--until", "2026-02-30")):
            r = CliRunner().invoke(zx, ["--store", store, *commands[name], option, value])
            assert r.exit_code == 2, (name, r.output)
            assert f"Error: Invalid value for '{option}': '{value}' is not a date (YYYY-MM-DD)" in r.stderr, r.output
    assert not (tmp_path / "out").exists() and not (tmp_path / "r.html").exists()
    r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates", "--game", "x610z"])  # known, not in the file
    # (it said "no game named 'x610z' in the analytics file; known: 'zx'", of an installed game /api/games lists:
    # QA round 35, a served statistic before zx serve --follow had reached that game's matches)
    assert r.exit_code == 1 and "the analytics file has no match of game x610z yet; it holds matches of zx" in r.stderr, r.stderr


def test_a_replay_fits_the_width_it_is_given(tmp_path):
    from click.testing import CliRunner

    from zx_cli.main import zx

    store = imported_store(tmp_path, "--no-analytics")
    for width, env in ((80, {"COLUMNS": "80"}), (120, {})):  # piped without COLUMNS: 120
        r = CliRunner(env=env).invoke(zx, ["--store", str(store), "replay", "m1", "--event", "20"])
        assert r.exit_code == 0, r.output
        assert max(len(line) for line in r.stdout.splitlines()) == width


def test_a_process_count_past_the_limit_is_an_error_not_a_fork_storm(tmp_path, monkeypatch):
    """``--workers 99999999999999999999`` (a typo of many digits) forked workers until the system
    refused: 20-30 s of a hung command. Now every --workers and ZX_ANALYTICS_WORKERS stops at 256."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    store = imported_store(tmp_path)
    many = "99999999999999999999"
    for args in (["import", "--workers", many, str(store.with_name("hand.zxlog"))],
                 ["analytics", "update", "--workers", many], ["serve", "--workers", many]):
        r = CliRunner().invoke(zx, ["--store", str(store), *args])
        assert r.exit_code == 2 and f"Invalid value for '--workers': {many} is not in the range 1<=x<=256" in r.output
    from zx_analytics.parallel import MAX_WORKERS as PROJECTION_MAX
    from zx_cli.common import MAX_WORKERS

    assert MAX_WORKERS == PROJECTION_MAX == 256  # two constants: the CLI's start-up does not import zx_analytics.parallel
    for value in (many, "abc", "-1"):
        monkeypatch.setenv("ZX_ANALYTICS_WORKERS", value)
        r = CliRunner().invoke(zx, ["--store", str(store), "analytics", "update", "--rebuild"])
        assert r.exit_code == 1 and f"ZX_ANALYTICS_WORKERS must be a whole number from 0 to 256, got '{value}'" in r.output


def test_a_number_past_what_an_option_takes_is_a_usage_error_and_changes_nothing(tmp_path):
    """``analytics update --rebuild --page-size 99999999999999999999`` emptied the analytics file, then failed
    ("internal error: OverflowError"); ``follow --interval`` and ``sql --timeout`` of 1e10 or inf ended in an
    OverflowError (a traceback, from sql's timer thread, and exit 0), and nan polled without pause or never
    stopped the query. Each is now refused before any work, naming the option (exit 2)."""
    from click.testing import CliRunner

    from zx_analytics.stats import MAX_SQL_TIMEOUT as API_MAX
    from zx_cli.common import MAX_SQL_TIMEOUT
    from zx_cli.main import zx

    store = imported_store(tmp_path)
    duck = store.with_suffix(".duckdb")
    before = duck.read_bytes()
    cases = [(["analytics", "update", "--rebuild", "--page-size", "99999999999999999999"], "--page-size",
              "99999999999999999999 is not in the range 1<=x<=10000000"),
             (["analytics", "follow", "--page-size", "10000001"], "--page-size", "10000001 is not in the range")]
    for value, words in (("nan", "'nan' is not a number of seconds"), ("inf", "inf is not in the range 0.05<=x<=3600"),
                         ("1e300", "1e+300 is not in the range 0.05<=x<=3600")):
        cases.append((["analytics", "follow", "--interval", value], "--interval", words))
    for value, words in (("nan", "'nan' is not a number of seconds"), ("inf", "inf is not in the range 0<=x<=86400"),
                         ("1e10", "10000000000.0 is not in the range 0<=x<=86400")):
        cases.append((["sql", "--timeout", value, "SELECT 1"], "--timeout", words))
    for args, option, words in cases:
        r = CliRunner().invoke(zx, ["--store", str(store), *args])
        assert r.exit_code == 2 and f"Invalid value for '{option}': {words}" in r.stderr, (args, r.output)
        assert "Traceback" not in r.output
    assert duck.read_bytes() == before
    assert MAX_SQL_TIMEOUT == API_MAX == 86_400  # two constants: the CLI's start-up does not import zx_analytics.stats
    from zx_analytics.stats import Stats

    with Stats(str(duck)) as st:
        for bad in (float("nan"), float("inf"), 1e10, -1):
            with pytest.raises(ValueError, match=r"timeout must be 0\.\.86400 seconds, or None for no limit"):
                st.sql("SELECT 1", timeout=bad)
        assert st.sql("SELECT 1 AS x", timeout=86_400)["x"].to_list() == [1]


def test_a_narrow_terminal_keeps_the_columns_that_matter(tmp_path):
    """At 80 columns an audit keeps the rule, its message and the line (the judge's question), an
    import the status and the error, zx matches the decks and the winner."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    store = imported_store(tmp_path, "--no-analytics")
    invalid = Path(__file__).resolve().parent.parent / "examples" / "invalid" / "202.7e-player-under-overboost.zxlog"
    narrow = CliRunner(env={"COLUMNS": "80"})
    for args, kept in ((["audit", str(invalid)], ("rule", "message", "line", "202.7e")),
                       (["import", "--no-analytics", str(invalid)], ("status", "error", "rejected", "rule 202.7e")),
                       (["matches"], ("p1_deck", "p2_deck", "winner", "Red Dragons"))):
        r = narrow.invoke(zx, ["--store", str(store), *args])
        assert max(len(line) for line in r.stdout.splitlines()) <= 80
        for word in kept:
            assert word in r.stdout, (args, word, r.stdout)


def test_an_output_that_cannot_show_a_character_escapes_it(tmp_path):
    """A player named in Japanese, printed to a stream that only takes ASCII (PYTHONIOENCODING=ascii,
    a cp1252 console): the table shows the name escaped (\\u5c71...) instead of the command failing
    with UnicodeEncodeError."""
    import json

    log = Path(__file__).resolve().parent.parent / "examples" / "legal" / "first-turns.zxlog"
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"]["P1"]["name"] = "山田太郎"
    jp = tmp_path / "jp.zxlog"
    jp.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    code = "import sys\nfrom zx_cli.main import main\nsys.argv = ['zx', *sys.argv[1:]]\nmain()\n"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "ascii"}
    store = str(tmp_path / "s.sqlite")
    for args in (["--store", store, "import", "--no-analytics", str(jp)], ["--store", store, "matches"]):
        p = subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, env=env, capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr.decode("ascii", "replace")[-500:]
    assert b"\\u5c71\\u7530\\u592a\\u90ce" in p.stdout and b"Traceback" not in p.stderr


def test_an_import_that_cannot_start_makes_no_store(tmp_path, monkeypatch):
    """A log path that does not exist, or a bad --catalog, is an error before anything is done: no
    empty zx-store.sqlite is left in the working directory (both made one)."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZX_STORE", raising=False)
    legal = ROOT / "examples" / "legal" / "first-turns.zxlog"
    r = CliRunner().invoke(zx, ["import", "typo.zxlog"])
    assert r.exit_code == 1 and "typo.zxlog: no such file or folder (nothing was imported)" in r.output
    r = CliRunner().invoke(zx, ["import", str(legal), "missing/"])
    assert r.exit_code == 1 and "missing/: no such file or folder" in r.output
    bad = tmp_path / "cards.csv"
    bad.write_text("code,name\n")
    r = CliRunner().invoke(zx, ["import", "--catalog", str(bad), str(legal)])
    assert r.exit_code == 1 and f"{bad}:1: format: not a catalog of any game" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.csv"]


def test_an_import_that_stores_nothing_leaves_no_store_it_made_and_nothing_of_its_matches(tmp_path, monkeypatch):
    """Every match rejected: the store the command made is removed again (it stayed, empty; it stays only
    while another process has it open: tests/test_import_cleanup.py); a store that existed before stays as
    it was."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZX_STORE", raising=False)
    invalid = str(ROOT / "examples" / "invalid" / "101.2-result-before-end.zxlog")
    legal = str(ROOT / "examples" / "legal" / "first-turns.zxlog")
    r = CliRunner().invoke(zx, ["import", invalid])
    assert r.exit_code == 1 and "0 imported, 0 unchanged, 1 rejected into zx-store.sqlite" in r.stderr
    assert "the store zx-store.sqlite that this import created was removed again" in r.stderr
    assert list(tmp_path.iterdir()) == []
    r = CliRunner().invoke(zx, ["--store", "kept.sqlite", "import", "--no-analytics", legal, invalid])
    assert r.exit_code == 1 and "1 imported" in r.stderr
    r = CliRunner().invoke(zx, ["--store", "kept.sqlite", "import", "--no-analytics", invalid])
    assert r.exit_code == 1
    r = CliRunner().invoke(zx, ["--store", "kept.sqlite", "matches", "--format", "json"])
    assert r.exit_code == 0 and [m["match"] for m in json.loads(r.stdout)] == ["hand-first-turns-001"]


def _in_a_terminal(args: list[str], typed: bytes = b"") -> str:
    """``zx ARGS`` with its stdin, stdout and stderr on a fresh pseudo-terminal (which reports no size:
    0 columns), ``typed`` typed into it; everything it wrote."""
    import os
    import pty
    import select

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COLUMNS", None)
    proc = subprocess.Popen([sys.executable, "-c", "from zx_cli.main import main; main()", *args], stdin=slave,
                            stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    out = b""
    sent = False
    while True:
        ready = select.select([master], [], [], 2.0)[0]
        if not ready:
            if not sent:
                os.write(master, typed)
                sent = True
                continue
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(master)
    return out.decode("utf-8", "replace")


def test_a_terminal_that_reports_no_width_gets_the_whole_table_and_stdin_says_it_waits(tmp_path):
    """A bare pty reports 0 columns: tables were fitted to 0 characters (every column but the first
    left out); and `zx import -` typed at a terminal waited without a word."""
    store = imported_store(tmp_path)
    out = _in_a_terminal(["--store", str(store), "matches"])
    assert "columns left out" not in out and "played_at" in out
    out = _in_a_terminal(["--store", "memory:", "import", "-"], typed=b"\x04")
    assert "reading match logs from standard input: paste or type them, then Ctrl-D" in out
    assert "0 imported" in out


def test_an_argument_that_is_not_utf8_is_an_error_about_it_not_a_crash(tmp_path):
    """A byte that is not UTF-8 in an argument (a mistyped id, a file name from another system)
    reaches Python as half a surrogate pair, which uuid5 and a UTF-8 stream cannot encode: each
    command says the match is unknown (the byte shown escaped), exit 1, never an internal error."""
    log = ROOT / "examples" / "legal" / "first-turns.zxlog"
    store = str(tmp_path / "s.sqlite")
    code = "import sys\nfrom zx_cli.main import main\nsys.argv = ['zx', *sys.argv[1:]]\nmain()\n"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8"}
    p = subprocess.run([sys.executable, "-c", code, "--store", store, "import", "--no-analytics", str(log)],
                       cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr[-500:]
    for command in ("replay", "view", "audit", "verify", "prepare"):
        p = subprocess.run([sys.executable, "-c", code, "--store", store, command, b"m\xff1"], cwd=tmp_path, env=env,
                           capture_output=True, timeout=120)
        err = p.stderr.decode("utf-8")
        assert p.returncode == 1, (command, err)
        assert "m\\udcff1" in err and "internal error" not in err and "Traceback" not in err, (command, err)
    assert {q.name for q in tmp_path.iterdir()} <= {"s.sqlite", "s.sqlite-shm", "s.sqlite-wal"}  # nothing written for it


def test_a_table_shows_the_sample_column_only_when_a_row_is_flagged(capsys):
    """``low_sample`` is a ``sample`` column marking rows ``low``; with no row flagged (zx demo's 80
    games a deck) it was an empty column taking a table's width; JSON and CSV keep it always."""
    import polars as pl

    from zx_cli.output import emit_frame

    def frame(low: list[bool]) -> pl.DataFrame:
        return pl.DataFrame({"deck": ["Red Dragons", "Blue Control"][:len(low)], "games": [80, 12][:len(low)],
                             "win_rate": [0.5, 0.25][:len(low)], "win_rate_low": [0.4, 0.1][:len(low)],
                             "win_rate_high": [0.6, 0.5][:len(low)], "low_sample": low})
    emit_frame(frame([False]), "table", width=100)
    shown = capsys.readouterr().out
    assert "Red Dragons" in shown and "50.0% (40.0-60.0)" in shown and "sample" not in shown
    emit_frame(frame([False, True]), "table", width=100)
    shown = capsys.readouterr().out
    assert "sample" in shown and [line.split("│")[-2].strip() for line in shown.splitlines()
                                  if "Dragons" in line or "Control" in line] == ["", "low"]
    emit_frame(frame([False]), "csv")
    assert capsys.readouterr().out.splitlines()[0].endswith(",low_sample")


def test_the_import_progress_counts_bytes_as_sizes(capsys):
    """``zx import`` and ``zx demo`` advance their bar by the bytes read: shown as sizes (``3.2/3.2 MB``),
    not as ``3165747/3165747``; other bars count their items."""
    from zx_cli.output import progress

    with progress(3_165_747, "importing", in_bytes=True) as bar:
        bar.advance(bar.add_task("import", total=3_165_747), 3_165_747)
    with progress(400, "simulating") as bar:
        bar.advance(bar.add_task("simulate", total=400), 400)
    err = capsys.readouterr().err
    assert "3.2/3.2 MB" in err and "3165747" not in err and "400/400" in err


def test_a_narrow_table_wraps_long_names_to_keep_the_rate(capsys):
    """``zx stats winrates --by archetype`` at 60 columns showed games, wins and losses but not the
    win rate: the archetype's name took 27 of them unwrapped. Long text now wraps narrower before the
    first rate is left out, a rate's cell never wraps, and where even that is too wide the rate
    stays before its count."""
    import polars as pl

    from zx_cli.output import emit_frame

    df = pl.DataFrame({"game": ["x610z"], "archetype": ["M/B: Hunter Dragon + Storm Caller"], "games": [101],
                       "wins": [45], "losses": [56], "draws": [0], "win_rate": [0.4455],
                       "win_rate_low": [0.352], "win_rate_high": [0.543], "low_sample": [False]})
    emit_frame(df, "table", width=60, keep=2)
    out = capsys.readouterr()
    header = next(line for line in out.out.splitlines() if "archetype" in line)
    assert "games" in header and "win_rate" in header and "44.5% (35.2-54.3)" in out.out
    assert max(len(line) for line in out.out.splitlines()) <= 60 and "wins, losses, draws" in out.err
    emit_frame(df, "table", width=50, keep=2)
    out = capsys.readouterr().out
    assert "44.5% (35.2-54.3)" in out and max(len(line) for line in out.splitlines()) <= 50


def test_a_narrow_matchup_table_keeps_the_rate_not_only_its_counts(capsys):
    """``zx stats matchups`` at 60 columns showed deck, opponent, games, wins and sample, not the win
    rate: its widest cell (``100.0% (34.2-100.0)``) did not fit beside two names wrapped at 12, the last
    try (the rate before its count) was kept though it had failed, and the counts filled the room. The
    names now wrap narrower to keep the rate, its count left out where both do not fit."""
    import polars as pl

    from zx_cli.output import emit_frame

    df = pl.DataFrame({"game": ["zx"] * 2, "deck": ["Black Reapers"] * 2, "opponent": ["Green Beasts", "White Knights"],
                       "games": [2, 3], "wins": [2, 1], "losses": [0, 2], "draws": [0, 0], "win_rate": [1.0, 1 / 3],
                       "win_rate_low": [0.342, 0.061], "win_rate_high": [1.0, 0.792], "low_sample": [True, True]})
    for width in range(56, 68):
        emit_frame(df.drop("game"), "table", width=width, keep=2)
        out = capsys.readouterr()
        header = next(line for line in out.out.splitlines() if "deck" in line)
        assert "win_rate" in header and "100.0% (34.2-100.0)" in out.out and "33.3% (6.1-79.2)" in out.out, width
        assert "sample" in header and max(len(line) for line in out.out.splitlines()) <= width
        left = out.err.split(" characters: ", 1)[1].split(";")[0].split(", ")  # the note naming what was left out
        assert "win_rate" not in left and "losses" in left, width


def test_a_narrow_winrates_table_of_low_samples_keeps_the_rate(capsys):
    """At 30-40 columns ``zx stats winrates`` on low samples showed deck, games, wins and the ``low``
    flag, not the win rate (the flag was always kept and the names wrapped at 8 at least): the names
    wrap at 6, then the flag goes, then the rate stands beside the keys alone."""
    import polars as pl

    from zx_cli.output import emit_frame

    df = pl.DataFrame({"deck": ["Black Reapers", "Blue Control"], "games": [8, 8], "wins": [4, 3], "losses": [4, 5],
                       "draws": [0, 0], "win_rate": [0.5, 0.375], "win_rate_low": [0.215, 0.137],
                       "win_rate_high": [0.785, 0.694], "low_sample": [True, True]})
    for width in range(30, 41):
        emit_frame(df, "table", width=width)
        out = capsys.readouterr()
        header = next(line for line in out.out.splitlines() if "deck" in line)
        assert "win_rate" in header and "50.0% (21.5-78.5)" in out.out, (width, out.out)
        assert max(len(line) for line in out.out.splitlines()) <= width, width


def test_a_closed_standard_input_is_said_or_needs_nothing(tmp_path):
    """With standard input closed (``<&-``) Python has no ``sys.stdin``: ``zx replay --step`` and ``zx import -``
    failed with "internal error: AttributeError: 'NoneType' object has no attribute 'isatty'"."""
    store = imported_store(tmp_path)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}

    def zx_closed_stdin(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(store), *args], cwd=ROOT, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                              preexec_fn=lambda: os.close(0))

    match = json.loads(subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(store), "matches", "--format",
                                       "json"], cwd=ROOT, env=env, capture_output=True, text=True).stdout)[0]["match"]
    stepped = zx_closed_stdin("replay", match, "--step")
    assert stepped.returncode == 0 and "internal error" not in stepped.stderr, stepped.stderr
    assert stepped.stdout.count(f"{match} · step ") > 1  # every step, as without a terminal
    imported = zx_closed_stdin("import", "-")
    assert imported.returncode == 2 and "standard input, which is closed" in imported.stderr, imported.stderr
    assert "internal error" not in imported.stderr


def test_a_closed_standard_output_is_an_error_before_anything_is_done(tmp_path):
    """``zx matches >&-`` printed nothing and exited 0; ``zx view M -o F >&-`` wrote F and exited 0."""
    out = tmp_path / "v.html"
    p = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(tmp_path / "s.sqlite"), "matches"], cwd=ROOT,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                       timeout=120, preexec_fn=lambda: os.close(1))
    assert p.returncode == 1 and "Error: standard output is closed" in p.stderr, p.stderr
    assert not out.exists() and not (tmp_path / "s.sqlite").exists()


def _zx(*args: str, cwd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zx_cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}, **kw)


def test_a_deleted_working_directory_is_one_line_not_two_tracebacks(tmp_path):
    """``zx view M -o ./v.html`` in a folder deleted under the shell: a FileNotFoundError traceback, then a second
    one from the last resort's own look at where it was raised."""
    gone = tmp_path / "gone"
    gone.mkdir()
    code = ("import os, sys\nos.chdir(sys.argv[1])\nos.rmdir(sys.argv[1])\nsys.argv = ['zx', 'view', 'm', '-o', "
            "'./v.html']\nfrom zx_cli.main import main\nmain()\n")
    p = subprocess.run([sys.executable, "-c", code, str(gone)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.strip() == ("Error: the working directory no longer exists (it was deleted or moved): cd to a "
                                "folder that does")


def test_a_log_file_whose_name_is_not_utf8_is_imported_with_the_others(tmp_path):
    """A file named with a byte that is not UTF-8 failed the whole import ("internal error: TypeError: str is not
    valid UTF-8"), the valid logs with it, and removed the new store."""
    logs = tmp_path / "l"
    logs.mkdir()
    (logs / "a.zxlog").write_bytes((ROOT / "examples" / "legal" / "first-turns.zxlog").read_bytes())
    odd = os.fsdecode(b"caf\xe9.zxlog")
    (logs / odd).write_bytes((ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog").read_bytes())
    p = _zx("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(logs), "--format", "json",
            cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert [o["status"] for o in json.loads(p.stdout)] == ["imported", "imported"]


def test_sql_with_a_byte_the_terminal_could_not_decode_is_an_sql_error_not_a_bug(tmp_path):
    store = imported_store(tmp_path)
    p = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(store), "sql", b"select 'caf\xe9' AS x"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert p.returncode == 1 and "internal error" not in p.stderr, p.stderr
    assert "SQL error: the query holds \\udce9 at character 12, a byte that is not text" in p.stderr


def test_a_system_refusal_names_the_place_in_zx_not_in_python(tmp_path):
    """``Error: File name too long: ccc.sqlite at .../python3.11/pathlib.py:1013 (in stat)``: a line of Python's."""
    p = _zx("--store", str(tmp_path / ("c" * 260 + ".sqlite")), "matches", cwd=tmp_path)
    assert p.returncode == 1 and "File name too long" in p.stderr, p.stderr
    assert "pathlib.py" not in p.stderr and "python3" not in p.stderr


def test_a_new_store_sqlite_cannot_open_says_why_and_leaves_nothing(tmp_path):
    """A path longer than SQLite opens: "unable to open database file", and the folders made for it stayed; a
    name too long for its -journal file: an empty store file stayed."""
    log = str(ROOT / "examples" / "legal" / "first-turns.zxlog")
    deep = "/".join(["y" * 240] * 3) + "/s.sqlite"
    p = _zx("--store", deep, "import", "--no-analytics", log, cwd=tmp_path)
    assert p.returncode == 1 and "bytes, and SQLite opens at most 512" in p.stderr and "give a shorter --store" in \
        p.stderr, p.stderr
    long_name = "b" * 248 + ".sqlite"
    p = _zx("--store", long_name, "import", "--no-analytics", log, cwd=tmp_path)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert list(tmp_path.iterdir()) == []


def test_import_refuses_a_database_given_as_a_log_before_anything_is_done(tmp_path, monkeypatch):
    """``zx import --analytics league.duckdb log.zxlog`` (the form every other command takes): import's
    --analytics is a switch, so league.duckdb was read as a match log (rejected, exit 1), the log imported and a
    new ./zx-analytics.duckdb written, league.duckdb not updated (QA). A DuckDB or SQLite database named as a
    log is refused up front, saying what it is and how to name import's analytics file: no store, no
    analytics file is made, the database is untouched."""
    import sqlite3

    import duckdb
    from click.testing import CliRunner

    from zx_cli.main import zx

    monkeypatch.chdir(tmp_path)
    for var in ("ZX_STORE", "ZX_ANALYTICS"):
        monkeypatch.delenv(var, raising=False)
    legal = ROOT / "examples" / "legal" / "first-turns.zxlog"
    league = tmp_path / "league.duckdb"
    duckdb.connect(str(league)).close()
    sqlite3.connect(str(tmp_path / "old.sqlite")).execute("CREATE TABLE t (x)").connection.commit()
    before = league.read_bytes()
    r = CliRunner().invoke(zx, ["import", "--analytics", "league.duckdb", str(legal)])
    assert r.exit_code == 1, r.output
    assert "league.duckdb: a DuckDB database, not a match log" in r.output
    assert "ZX_ANALYTICS=league.duckdb zx import" in r.output and "nothing was imported" in r.output
    r = CliRunner().invoke(zx, ["import", str(legal), "old.sqlite"])
    assert r.exit_code == 1 and "old.sqlite: a SQLite database, not a match log" in r.output, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["league.duckdb", "old.sqlite"]
    assert league.read_bytes() == before
    # the switch still is one: --analytics before a log imports it and updates the analytics file
    r = CliRunner().invoke(zx, ["import", "--analytics", str(legal)])
    assert r.exit_code == 0 and (tmp_path / "zx-store.duckdb").exists(), r.output
