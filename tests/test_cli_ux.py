"""The command line's manners across commands (QA round 19): a DuckDB file without zx's schema named as such by
every reader, an interrupted first update or export leaving nothing half-made, narrow tables keeping the column a
command exists for, a closed output ending quietly with 141, one spelling of the same option and message."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from analytics_support import imported_store
from zx_cli.main import zx


def run(store: Path, *args: str, **kw) -> "object":
    return CliRunner().invoke(zx, ["--store", str(store), *args], **kw)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The hand-built matches imported into a SQLite store, analytics updated by zx import."""
    return imported_store(tmp_path_factory.mktemp("imported"))


# ------------------------------------------------------------------ 1. a DuckDB file without zx's schema
@pytest.mark.parametrize("command", [["stats", "winrates"], ["sql", "SELECT count(*) FROM matches"],
                                     ["export", "--parquet", "{tmp}/out"], ["report", "-o", "{tmp}/meta.html"]])
def test_every_reader_names_a_duckdb_file_without_zxs_schema(imported, tmp_path, command):
    """A DuckDB file with no table (a first update interrupted at once, or any other) was "internal error:
    CatalogException ... a bug in zx" (zx stats), "Table with name matches does not exist" (zx sql), "cannot
    export to DIR" (zx export), "analytics schema None" (zx report). Each says what the file is and what to run."""
    blank = tmp_path / "blank.duckdb"
    duckdb.connect(str(blank)).close()
    r = run(imported, *[a.format(tmp=tmp_path) for a in command], "--analytics", str(blank))
    assert r.exit_code == 1, r.output
    assert r.output == (f"Error: {blank} is not zx's analytics file (no schema): run `zx --store {imported} "
                        f"analytics update --analytics {blank}` to build it, or name zx's analytics file with "
                        f"--analytics\n")
    assert not (tmp_path / "out").exists() and not (tmp_path / "meta.html").exists()
    assert run(imported, "analytics", "update", "--analytics", str(blank)).exit_code == 0  # the advice works
    assert run(imported, *[a.format(tmp=tmp_path) for a in command], "--analytics", str(blank)).exit_code == 0


@pytest.mark.parametrize("command", [["stats", "winrates"], ["sql", "SELECT 1"], ["export", "--parquet", "{tmp}/out"],
                                     ["report", "-o", "{tmp}/meta.html"]])
def test_every_reader_names_a_duckdb_file_of_other_tables_as_another_database(imported, tmp_path, command):
    """A DuckDB file of the user's own (tables, not zx's): the readers advised `zx analytics update` to build it,
    which then refused it ("a DuckDB database that is not zx's analytics ... choose another file"). They say what
    it is, as the update does."""
    mine = tmp_path / "mine.duckdb"
    with duckdb.connect(str(mine)) as con:
        con.execute("CREATE TABLE sales (n INTEGER)")
    r = run(imported, *[a.format(tmp=tmp_path) for a in command], "--analytics", str(mine))
    assert r.exit_code == 1, r.output
    assert r.output == (f"Error: {mine} is a DuckDB database that is not zx's analytics (it holds sales): name zx's "
                        f"analytics file with --analytics (zx analytics update writes only its own)\n")
    assert not (tmp_path / "out").exists() and not (tmp_path / "meta.html").exists()


def test_a_first_update_interrupted_before_its_schema_is_committed_leaves_no_file(imported, tmp_path, monkeypatch):
    """Ctrl-C in the first second of a first `zx analytics update` left a DuckDB file without tables, which
    every reader then failed on. The update that made the file removes it (and its .wal) when it ends before the
    schema is committed; one that found a file leaves it."""
    import zx_analytics.projection as projection

    reset = projection._reset

    def ctrl_c_in_the_schema(con, store):
        con.execute("CREATE TABLE half (x INTEGER)")  # something written, uncommitted
        raise KeyboardInterrupt

    monkeypatch.setattr(projection, "_reset", ctrl_c_in_the_schema)
    new = tmp_path / "new.duckdb"
    r = run(imported, "analytics", "update", "--analytics", str(new))
    assert r.exit_code == 1 and "Aborted!" in r.output, r.output
    assert not new.exists() and not Path(f"{new}.wal").exists()
    blank = tmp_path / "blank.duckdb"  # a file that was there is never removed
    duckdb.connect(str(blank)).close()
    assert run(imported, "analytics", "update", "--analytics", str(blank)).exit_code == 1
    assert blank.exists()
    monkeypatch.setattr(projection, "_reset", reset)
    assert run(imported, "analytics", "update", "--analytics", str(new)).exit_code == 0 and new.exists()


# ------------------------------------------------------------------ 2. Ctrl-C during zx export
def _interrupted_stream(*args, **kwargs) -> None:
    """What DuckDB raises when Ctrl-C lands in the Python Arrow stream a COPY reads (zx export's rows): the
    KeyboardInterrupt inside its InvalidInputException."""
    import pyarrow as pa

    def batches():
        raise KeyboardInterrupt
        yield  # (a generator)

    con = duckdb.connect()
    try:
        con.register("export_rows", pa.RecordBatchReader.from_batches(pa.schema([("x", pa.int64())]), batches()))
        con.execute("SELECT * FROM export_rows").fetchall()
    finally:
        con.close()


def test_ctrl_c_in_the_arrow_stream_of_an_export_is_an_interruption_and_leaves_no_new_folder(imported, tmp_path,
                                                                                                monkeypatch):
    """Ctrl-C during zx export was at times "Error: cannot export to DIR: Invalid Input Error: reading the schema
    of the object registered as 'export_rows' failed: KeyboardInterrupt" (DuckDB's error around it), and the DIR
    the export had made was left behind, empty. It is the export's interruption, and a DIR it made goes."""
    import zx_analytics.export as export
    from zx_cli.common import interrupted

    with pytest.raises(duckdb.InvalidInputException) as caught:
        _interrupted_stream()
    assert interrupted(caught.value)
    assert not interrupted(duckdb.InvalidInputException("Invalid Input Error: no KeyboardInterrupt here"))
    monkeypatch.setattr(export, "_copy", _interrupted_stream)
    out = tmp_path / "new"
    r = run(imported, "export", "--parquet", str(out))
    assert r.exit_code == 1 and r.stderr.endswith(f"interrupted: nothing was exported into {out}\nAborted!\n"), \
        r.output
    assert "cannot export" not in r.output and not out.exists()
    kept = tmp_path / "kept"  # a DIR that was there stays
    kept.mkdir()
    assert run(imported, "export", "--parquet", str(kept)).exit_code == 1 and kept.is_dir()


# ------------------------------------------------------------------ 3. narrow tables
def test_a_narrow_stats_table_never_shows_a_count_without_its_rate(capsys):
    """``COLUMNS=80 zx stats meta`` showed games and wins, not win_rate, whose counts they are (docs/analytics.md:
    never another metric's count without its rate): a count goes with its rate, or the room goes elsewhere."""
    import polars as pl

    from zx_cli.output import emit_frame

    df = pl.DataFrame({"week": ["2026-W02"] * 2, "deck": ["Red Dragons", "Black Reapers"], "seats": [2, 1],
                       "share": [1 / 3, 1 / 6], "share_low": [0.097, 0.03], "share_high": [0.7, 0.564],
                       "games": [2, 1], "wins": [2, 1], "win_rate": [1.0, 1.0], "win_rate_low": [0.342, 0.207],
                       "win_rate_high": [1.0, 1.0], "field": [6, 6], "low_sample": [True, True]})
    for width in range(60, 100):
        emit_frame(df, "table", width=width, keep=2)
        out = capsys.readouterr().out
        header = next(line for line in out.splitlines() if "deck" in line)
        cells = [c.strip() for c in header.strip("┃ ").split("┃")]
        assert "share" in cells and ("win_rate" in cells or not {"games", "wins"} & set(cells)), (width, cells)
    # and the rates win the room: at 80 columns stats archetypes showed colours, not win_rate
    df = pl.DataFrame({"archetype": ["M/B: Hunter Dragon + Storm Caller", "M/B: Stone Golem + Forest Beast"],
                       "seats": [22, 20], "share": [0.275, 0.25], "share_low": [0.189, 0.168],
                       "share_high": [0.381, 0.355], "games": [22, 20], "win_rate": [0.409, 0.6],
                       "win_rate_low": [0.233, 0.387], "win_rate_high": [0.613, 0.781],
                       "decks": ["Mystic Rush (22)", "Boost Walkers (20)"], "colours": ["M/B", "M/B"],
                       "deck_names": [1, 1], "field": [80, 80], "wins": [9, 12], "low_sample": [True, True]})
    emit_frame(df, "table", width=80)
    out = capsys.readouterr().out
    assert "40.9% (23.3-61.3)" in out and "27.5% (18.9-38.1)" in out and max(map(len, out.splitlines())) <= 80


def _header(out: str) -> list[str]:
    """The header cells of a table, a header folded over lines (``hand_`` over ``size``) joined."""
    lines = [line for line in out.splitlines() if line.startswith("┃")]
    return ["".join(c.strip() for c in col) for col in zip(*[line.strip("┃").split("┃") for line in lines])]


@pytest.mark.parametrize("columns", [80, 60])
def test_a_narrow_meta_or_mulligans_table_keeps_its_win_rates_before_counts(imported, columns):
    """At 80 columns ``zx stats meta`` showed seats, share and field but not win_rate, and ``zx stats mulligans``
    games, keep_rate and kept but not its win rates: a table's rates, its win rates first, come before counts,
    the sample flag and the width of its labels."""
    for args, wanted in ((["meta"], {"win_rate"}), (["meta", "--by", "event"], {"win_rate"}),
                         (["meta", "--group", "archetype"], {"win_rate"}), (["archetypes"], {"win_rate"}),
                         (["mulligans"], {"kept_win_rate", "mulligan_win_rate"} if columns == 80 else
                          {"kept_win_rate"})):
        r = CliRunner(env={"COLUMNS": str(columns)}).invoke(zx, ["--store", str(imported), "stats", *args])
        assert r.exit_code == 0, r.output
        assert max(len(line) for line in r.stdout.splitlines()) <= columns, r.stdout
        cells = _header(r.stdout)
        assert wanted <= set(cells), (args, columns, cells)
        if columns == 80 and args[0] == "meta":  # the share too, its count (seats) left out for them
            assert "share" in cells and "seats" not in cells, (args, cells)
        assert "kept" not in cells or "keep_rate" in cells, (args, cells)  # (keep_rate's count, only beside it)


def test_a_narrow_mulligans_table_folds_a_keys_header_to_keep_its_three_rates(capsys):
    """The three rates of ``zx stats mulligans`` beside seat and hand_size needed 82 columns: a key's header
    (``hand_size``, over its one-digit values) folds, the sample flag goes, and all three fit in 80."""
    import polars as pl

    from zx_cli.output import emit_frame

    df = pl.DataFrame({"seat": ["first", "second"], "hand_size": [4, 4], "games": [60, 60],
                       "keep_rate": [0.967, 0.983], "keep_rate_low": [0.886, 0.911], "keep_rate_high": [0.991, 0.997],
                       "kept_games": [58, 59], "kept_win_rate": [0.569, 0.441], "kept_win_rate_low": [0.441, 0.322],
                       "kept_win_rate_high": [0.688, 0.567], "mulligan_games": [2, 1],
                       "mulligan_win_rate": [0.5, 0.0], "mulligan_win_rate_low": [0.095, 0.0],
                       "mulligan_win_rate_high": [0.905, 0.793], "kept": [58, 59], "kept_wins": [33, 26],
                       "mulligan_wins": [1, 0], "low_sample": [True, True]})
    emit_frame(df, "table", width=80, keep=2)
    out = capsys.readouterr()
    assert max(len(line) for line in out.out.splitlines()) <= 80, out.out
    assert _header(out.out) == ["seat", "hand_size", "keep_rate", "kept_win_rate", "mulligan_win_rate"], out.out
    assert "50.0% (9.5-90.5)" in out.out and "sample" in out.err


def test_a_narrow_log_audit_keeps_the_message_and_shows_no_empty_seq(tmp_path):
    """``COLUMNS=60 zx audit LOG1 LOG2`` left out each violation's message and showed seq, empty on every row
    of a log audit (a log has no stored event)."""
    invalid = Path(__file__).resolve().parent.parent / "examples" / "invalid"
    r = CliRunner(env={"COLUMNS": "60"}).invoke(zx, ["--store", str(tmp_path / "none.sqlite"), "audit",
                                                     str(invalid / "401-deck-size.zxlog"),
                                                     str(invalid / "602.1b-own-zx.zxlog")])
    assert r.exit_code == 1, r.output
    header = next(line for line in r.stdout.splitlines() if "┃" in line)
    cells = [c.strip() for c in header.strip("┃ ").split("┃")]
    assert cells[0] == "source" and "message" in cells and "rule" in cells and "seq" not in cells, cells  # (the
    # file first: docs/audit.md)
    assert max(len(line) for line in r.stdout.splitlines()) <= 60
    assert "seq" not in r.stderr  # (not "left out" either)


def test_a_narrow_audit_of_a_stored_match_shows_its_seq_and_no_empty_line(tmp_path):
    """``COLUMNS=50 zx audit MATCH`` (stored) showed line, empty on every row (a stored match's place is its seq),
    and left seq out: the table said nowhere where each violation was."""
    invalid = Path(__file__).resolve().parent.parent / "examples" / "invalid"
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", "--accept-violations",
                                str(invalid / "602.1b-own-zx.zxlog")])
    assert r.exit_code == 0, r.output
    r = CliRunner(env={"COLUMNS": "50"}).invoke(zx, ["--store", store, "audit", "invalid-602.1b-own-zx"])
    assert r.exit_code == 1, r.output
    header = next(line for line in r.stdout.splitlines() if "match" in line and "┃" in line)
    cells = [c.strip() for c in header.strip("┃ ").split("┃")]
    assert "seq" in cells and "rule" in cells and "line" not in cells, cells
    assert "line" not in r.stderr



def test_a_title_wider_than_its_table_takes_the_terminals_width(tmp_path):
    """``COLUMNS=120 zx audit MATCH`` of a clean match folded its title to the empty table's 42 characters: three
    centred lines (X610Z's five) of one sentence (QA round 34). A title wider than its table is drawn above it on
    lines as wide as the terminal; one that fits stays the table's."""
    legal = Path(__file__).resolve().parent.parent / "examples" / "legal"
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(legal / "first-turns.zxlog")]).exit_code == 0
    match = json.loads(CliRunner().invoke(zx, ["--store", store, "matches", "--format", "json"]).stdout)[0]["match"]
    for columns in (120, 60):
        r = CliRunner(env={"COLUMNS": str(columns)}).invoke(zx, ["--store", store, "audit", match])
        assert r.exit_code == 0, r.output
        lines = r.stdout.splitlines()
        title = lines[:lines.index(next(line for line in lines if line.startswith("┏")))]
        assert " ".join(t.strip() for t in title).startswith("no rule violations in 1 match; checked against"), title
        assert len(title) == (1 if columns == 120 else 2) and max(map(len, lines)) <= columns, lines
        assert len(title[0].rstrip()) > len(lines[len(title)]), lines  # wider than the table, not folded to it


def test_a_table_keeps_a_time_or_id_whole_and_verify_drops_its_empty_seq(tmp_path):
    """``COLUMNS=100 zx matches`` folded every played_at over two lines (``2026-03-05T10:47:00+09:0`` above a lone
    ``0``), and ``COLUMNS=80 zx verify`` of a clean store kept its seq column, empty on every row. A column of
    single words (a time, an id, a number) is kept whole or left out (named on stderr); verify's seq is shown
    only when a row has one."""
    import json

    store = str(tmp_path / "s.sqlite")
    legal = Path(__file__).resolve().parent.parent / "examples" / "legal"
    assert CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(legal)]).exit_code == 0
    stamps = [m["played_at"] for m in json.loads(CliRunner().invoke(zx, ["--store", store, "matches", "--format",
                                                                         "json"]).stdout)]
    for width in (100, 120, 60):
        r = CliRunner(env={"COLUMNS": str(width)}).invoke(zx, ["--store", store, "matches"])
        assert r.exit_code == 0 and max(len(line) for line in r.stdout.splitlines()) <= width, r.output
        if "played_at" in _header(r.stdout):
            assert all(stamp in r.stdout for stamp in stamps), (width, r.stdout)
        else:
            assert "played_at" in r.stderr  # left out, and said
    # at 100 columns the players, the decks and the winner come first (QA round 36: p2 was left out, played_at
    # kept), the time where there is room for it, whole
    r = CliRunner(env={"COLUMNS": "100"}).invoke(zx, ["--store", store, "matches"])
    assert {"p1", "p2", "winner", "p1_deck", "p2_deck"} <= set(_header(r.stdout)), r.output
    r = CliRunner(env={"COLUMNS": "140"}).invoke(zx, ["--store", store, "matches"])
    assert "played_at" in _header(r.stdout) and all(stamp in r.stdout for stamp in stamps), r.output
    r = CliRunner(env={"COLUMNS": "80"}).invoke(zx, ["--store", store, "verify"])
    assert r.exit_code == 0 and "seq" not in _header(r.stdout) and "message" in _header(r.stdout), r.output

# ------------------------------------------------------------------ 4. a closed output
def _closed_output(cwd: Path, *args: str, read: int = 0) -> "tuple[int, str]":
    """Run zx with its stdout a pipe whose reader goes away (``| true``, or after ``read`` bytes: ``| head -c``)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    p = subprocess.Popen([sys.executable, "-c", "from zx_cli.main import main; main()", *args], cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "PYTHONPATH": str(root), "COLUMNS": ""})
    if read:
        p.stdout.read(read)
    p.stdout.close()
    err = p.stderr.read().decode()
    return p.wait(timeout=120), err


def test_a_closed_output_ends_quietly_with_141_as_posix_tools_do(imported, tmp_path):
    """``zx audit LOG --format json | true``, ``zx verify | true`` and ``zx sql ... | head`` exited 1, silently: a
    script read "a violation found" (or an error). They now end as a tool SIGPIPE ends: 141, nothing said. A large
    table cut short by its reader (``| head -1``) was lost without an error and exited 0 (a short write passed
    over): it is 141 too."""
    log = Path(__file__).resolve().parent.parent / "examples" / "legal"
    logs = sorted(log.glob("*.zxlog"))
    for args, read in (([str(tmp_path / "none.sqlite"), "audit", str(logs[0]), "--format", "json"], 0),
                       ([str(imported), "verify"], 0), ([str(imported), "matches"], 0),
                       ([str(imported), "sql", "--limit", "0", "SELECT * FROM range(100000)"], 10)):
        status, err = _closed_output(tmp_path, "--store", *args, read=read)
        assert status == 141 and "Error" not in err and "Traceback" not in err and "Aborted" not in err, (args, err)


# ------------------------------------------------------------------ 5. one spelling
def test_output_options_take_both_spellings_and_game_any_case(imported, tmp_path):
    """``zx simulate -o DIR`` and ``zx view/report --out FILE`` were "No such option" (each took only the other
    spelling); ``--game X610Z`` was "unknown game 'X610Z'"."""
    r = run(imported, "simulate", "-n", "1", "-o", str(tmp_path / "sim"), "--game", "X610Z")
    assert r.exit_code == 0 and list((tmp_path / "sim").iterdir()), r.output
    assert run(imported, "matches", "--game", "ZX", "--format", "csv").exit_code == 0
    assert run(imported, "stats", "winrates", "--game", "Zx").exit_code == 0
    match = run(imported, "matches", "--format", "csv").stdout.splitlines()[1].split(",")[0]
    r = run(imported, "view", match, "--out", str(tmp_path / "v.html"))
    assert r.exit_code == 0 and (tmp_path / "v.html").is_file(), r.output
    r = run(imported, "report", "--out", str(tmp_path / "meta.html"))
    assert r.exit_code == 0 and (tmp_path / "meta.html").is_file(), r.output


@pytest.mark.parametrize("command", ["replay", "view", "prepare", "verify", "audit"])
def test_an_unknown_match_is_said_in_one_wording(imported, command):
    """replay said "unknown match 'X': it is not in the store S (zx matches lists the stored ones)", verify "no
    stored match 'X' in S", prepare the same with "(zx matches lists them)", audit "X: neither a log file nor a
    stored match in S". One wording now; audit says the name is no log file either."""
    r = run(imported, command, "no-such-match")
    assert r.exit_code == 1, r.output
    what = "it is neither a log file nor in" if command == "audit" else "it is not in"
    assert r.output == f"Error: unknown match 'no-such-match': {what} the store {imported} (zx matches lists the " \
                       f"stored ones)\n"


# ------------------------------------------------------------------ 6. a progress bar only for work
def test_an_analytics_update_draws_a_bar_only_when_there_is_work(imported, tmp_path):
    """A no-op `zx analytics update` drew an empty bar on stderr ("analytics ━━━ 0/? 0:00:00"), and so did one
    refused at once, before its error. Nothing on stderr now when there is nothing to do; the error alone."""
    r = run(imported, "analytics", "update", "--format", "csv")
    assert r.exit_code == 0 and r.stderr == "", r.stderr
    r = run(imported, "analytics", "update", "--analytics", str(imported))
    assert r.exit_code == 1 and r.stderr.startswith("Error: ") and "analytics ━" not in r.stderr, r.stderr
    r = run(imported, "analytics", "update", "--analytics", str(tmp_path / "new.duckdb"))  # work: a bar
    assert r.exit_code == 0 and "analytics" in r.stderr and "━" in r.stderr, r.stderr


# ------------------------------------------------------------------ 7. zx audit DIR, zx audit -
def test_audit_reads_a_folder_of_logs_and_standard_input_as_import_does(tmp_path):
    """``zx audit logs/`` and ``zx audit - < r3.zxlog`` were "neither a log file nor a stored match", though zx
    import takes both. A folder stands for its logs of every game, - for standard input."""
    examples = Path(__file__).resolve().parent.parent / "examples"
    store = tmp_path / "none.sqlite"
    r = run(store, "audit", str(examples / "legal"), "--format", "json")
    assert r.exit_code == 0, r.output
    audited = [line for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(audited) >= len(list((examples / "legal").glob("*.zxlog")))
    one = sorted((examples / "invalid").glob("401-*.zxlog"))[0]
    r = run(store, "audit", "-", "--format", "csv", input=one.read_text(encoding="utf-8"))
    assert r.exit_code == 1 and ",401," in r.stdout, r.output  # the violation, read from standard input
    assert not store.exists()


# ------------------------------------------------------------------ 8. a mistyped command
TYPOS = """
import json, sys
from click.testing import CliRunner
from zx_cli.main import zx
said = {}
for args in json.loads(sys.argv[1]):
    r = CliRunner().invoke(zx, args)
    said[" ".join(args)] = [r.exit_code, r.output.strip().splitlines()[-1], sorted(sys.modules)]
print(json.dumps(said))
"""


def test_a_mistyped_command_is_offered_the_one_meant_lazy_or_not(tmp_path):
    """``zx stat`` said "No such command 'stat'." and nothing more, while ``zx improt`` added "Did you mean
    'import'?": click offered the commands already loaded only, and most are loaded when run (LAZY_COMMANDS). Every
    command is offered now, none of their modules imported for it (a fresh process: in this one, other tests
    loaded them)."""
    import json
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    meant = {"stat": "stats", "stas": "stats", "expor": "export", "sqll": "sql", "replya": "replay",
             "improt": "import", "matchs": "matches", "analytic": "analytics", "verfy": "verify"}
    typed = [[typo] for typo in meant] + [["stats", "winratse"]]
    r = subprocess.run([sys.executable, "-c", TYPOS, json.dumps(typed)], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    assert r.returncode == 0, r.stderr
    said = json.loads(r.stdout)
    from zx_cli.main import LAZY_COMMANDS

    lazy = {module for module, _, _ in LAZY_COMMANDS.values()}
    for typo, command in meant.items():
        assert said[typo][:2] == [2, f"Error: No such command '{typo}'. Did you mean '{command}'?"], typo
        assert [m for m in said[typo][2] if m in lazy] == [], typo  # (offered by name: nothing imported for it)
    assert said["stats winratse"][:2] == [2, "Error: No such command 'winratse'. Did you mean 'winrates'?"]


def test_a_mistyped_command_far_from_every_name_is_offered_none():
    r = CliRunner().invoke(zx, ["qqqqzz"])
    assert r.exit_code == 2 and r.output.strip().splitlines()[-1] == "Error: No such command 'qqqqzz'.", r.output


# ------------------------------------------------------------------ 9. advice that runs
@pytest.mark.parametrize("command", [["sql", "SELECT 1"], ["export", "--parquet", "out"], ["stats", "winrates"]])
def test_a_reader_of_a_store_that_is_not_there_advises_the_import(tmp_path, monkeypatch, command):
    """``zx sql`` and ``zx export`` with neither the store nor its analytics file there advised `zx analytics
    update`, which then said "there is no store at ...". They say what ``zx stats`` says: the import makes both.
    Nothing is created (the store, the analytics file, the export's folder)."""
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(zx, ["--store", "league.sqlite", *command])
    assert r.exit_code == 1
    assert r.output == ("Error: no analytics file at league.duckdb, and no store at league.sqlite: import logs first "
                        "(`zx --store league.sqlite import LOGS` makes both)\n"), r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["sql", "SELECT 1"], ["export", "--parquet", "out"], ["stats", "winrates"]])
def test_a_reader_of_a_store_whose_analytics_file_is_not_there_advises_the_update(imported, tmp_path, command):
    """The store there, its analytics file not: the update is the advice, as it was."""
    missing = tmp_path / "none.duckdb"
    r = CliRunner().invoke(zx, ["--store", str(imported), *command, "--analytics", str(missing)],
                           env={"ZX_STORE": None})
    assert r.exit_code == 1
    assert r.output == (f"Error: no analytics file at {missing}: run `zx --store {imported} analytics update "
                        f"--analytics {missing}` (or `ZX_ANALYTICS={missing} zx --store {imported} import LOGS`) "
                        f"first\n"), r.output
    assert not missing.exists()


@pytest.mark.parametrize("command", [["sql", "SELECT 1"], ["export", "--parquet", "out"], ["stats", "winrates"]])
def test_a_reader_of_an_empty_store_file_advises_the_import(tmp_path, monkeypatch, command):
    """An empty file is no store to every reader, the update too ("there is no store at S (an empty file): zx import
    creates one in it"), which each reader advised. The import is the advice; nothing is written or created."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "league.sqlite").touch()
    r = CliRunner().invoke(zx, ["--store", "league.sqlite", *command])
    assert r.exit_code == 1
    assert r.output == ("Error: no analytics file at league.duckdb, and no store at league.sqlite (an empty file): "
                        "import logs first (`zx --store league.sqlite import LOGS` makes both)\n"), r.output
    assert [(p.name, p.stat().st_size) for p in tmp_path.iterdir()] == [("league.sqlite", 0)]


def _foreign(path):
    import sqlite3

    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE foo (x)")
    c.close()


def _no_events(path):
    import sqlite3

    with sqlite3.connect(path) as c:
        c.execute("PRAGMA user_version = 1")
    c.close()


@pytest.mark.parametrize("command", [["sql", "SELECT 1"], ["export", "--parquet", "out"], ["stats", "winrates"]])
@pytest.mark.parametrize("make, said", [
    (_foreign, "league.sqlite is not a zx-events store: it holds tables of another application (foo); nothing was "
               "changed. Give another --store"),
    (_no_events, "there is no store at league.sqlite (a SQLite database without the events table): zx import "
                 "creates one in it (nothing was changed)"),
    (lambda path: path.write_bytes(b"not a database " * 40),
     "the store league.sqlite is damaged or not a SQLite database (file is not a database); nothing was changed. "
     "Restore it from a backup, or give another --store"),
], ids=["another-application", "no-events-table", "damaged"])
def test_a_reader_of_a_file_that_is_no_store_says_what_it_is(tmp_path, monkeypatch, command, make, said):
    """A reader (zx stats, zx sql, zx export) whose analytics file is not there, over a SQLite file that is no
    store (another application's tables, no events table, damaged), advised `zx analytics update`, which then
    refused the file: it says what the update would, and nothing is written or created."""
    monkeypatch.chdir(tmp_path)
    make(tmp_path / "league.sqlite")
    before = [(p.name, p.read_bytes()) for p in tmp_path.iterdir()]
    r = CliRunner().invoke(zx, ["--store", "league.sqlite", *command])
    assert r.exit_code == 1
    assert r.output == f"Error: no analytics file at league.duckdb, and {said}\n", r.output
    assert [(p.name, p.read_bytes()) for p in tmp_path.iterdir()] == before


def test_a_narrow_table_never_folds_a_match_id_to_give_a_name_room(capsys, monkeypatch):
    """At 80 columns `zx matches` folded x610z-sim-11-0001 over two lines (a second try at a narrower wrap counted the
    key at that wrap, and rich took the room from it): the id is what a user copies into zx replay (QA round 37)."""
    from zx_cli.output import emit

    rows = [{"match": f"x610z-sim-11-000{i}", "p1": p1, "p1_deck": "Mystic Rush", "p2": p2, "p2_deck": deck,
             "winner": "P2", "played_at": "2026-01-01T10:00:00+09:00", "event": "X610Z simulation", "turns": 10}
            for i, (p1, p2, deck) in enumerate((("佐藤 健", "田中花子", "Boost Walkers"), ("ｱｷ", "Aki", "Prism Keep"),
                                                ("Ｍｉｏ", "Aki", "Grey Tide")), 1)]
    for width in range(60, 121):  # (narrower, a key folds to keep the columns chosen: an audit's seq at 50)
        monkeypatch.setenv("COLUMNS", str(width))
        emit(rows, "table", ["match", "played_at", "event", "p1", "p1_deck", "p2", "p2_deck", "turns", "winner"],
             first=("p1", "p2", "winner", "p1_deck", "p2_deck"))
        out = capsys.readouterr().out
        for i in (1, 2, 3):
            assert f"x610z-sim-11-000{i} " in out, (width, out)
        assert max(len(line) for line in out.splitlines()) <= width, (width, out)


def test_a_statistic_column_empty_in_every_row_is_not_drawn(capsys):
    """X610Z has no Ignition (docs/analytics.md): its `zx stats life` table drew blank ignitions and ignition_rate
    columns and left out damage_per_turn, the figure its example promises (QA round 37). CSV and JSON keep them."""
    import polars as pl

    from zx_cli.output import emit_frame

    df = pl.DataFrame({"seat": ["first", "second"], "games": [10, 10], "opponent_turns": [69, 73], "damage": [3, 16],
                       "ignitions": [None, None], "behind_games": [3, 7], "comebacks": [1, 4],
                       "damage_per_turn": [0.0435, 0.2192], "ignition_rate": [None, None],
                       "ignition_rate_low": [None, None], "ignition_rate_high": [None, None],
                       "comeback_rate": [1 / 3, 4 / 7], "comeback_rate_low": [0.061, 0.25],
                       "comeback_rate_high": [0.792, 0.842], "low_sample": [True, True]},
                      schema_overrides={"ignitions": pl.Int64, "ignition_rate": pl.Float64,
                                        "ignition_rate_low": pl.Float64, "ignition_rate_high": pl.Float64})
    for width in (80, 130):
        emit_frame(df, "table", width=width)
        head = _header(capsys.readouterr().out)
        assert "ignitions" not in head and "ignition_rate" not in head, (width, head)
        assert "damage_per_turn" in head and "comeback_rate" in head, (width, head)
    emit_frame(df, "csv")
    assert capsys.readouterr().out.splitlines()[0].split(",")[4] == "ignitions"


def test_long_work_says_its_progress_on_a_stderr_that_is_no_terminal(tmp_path):
    """cron, systemd, a pipe into a log: rich draws no bar there, and a 3-minute import said nothing until its summary
    (QA round 37). A line at most every ZX_PROGRESS_SECONDS (10 by default) of work, then rich's last state."""
    r = CliRunner().invoke(zx, ["simulate", "-n", "6", "--out", str(tmp_path / "a")], env={"ZX_PROGRESS_SECONDS": "0"})
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("simulating: ")]
    assert lines[0].startswith("simulating: 1 of 6 (17%), 0:00:0") and lines[-1].startswith("simulating: 6 of 6 (100%)"), \
        r.stderr
    r = CliRunner().invoke(zx, ["simulate", "-n", "6", "--out", str(tmp_path / "b")])
    assert r.exit_code == 0 and "simulating: " not in r.stderr, r.stderr  # (a few seconds' work: no line)
