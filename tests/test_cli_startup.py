"""Start-up wiring of the ``zx`` command (issue 20, item 4): each command imports only what it needs.

``zx --help`` lists every command without importing the modules that define them (zx_cli/main.py
``LAZY_COMMANDS``), and neither it nor ``zx matches`` loads DuckDB, Polars, FastAPI or a rules
engine. These are behaviour tests (which modules a fresh process has loaded), not timings: the
timings are bench/bench_startup.py's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from zx_cli.main import LAZY_COMMANDS, zx

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(str(p) for p in (ROOT / "examples" / "legal").glob("*.zxlog"))

# run ``zx ARGS`` in a fresh interpreter, then write the names of the loaded modules to stderr
PROBE = """
import json, sys
from zx_cli.main import main
sys.argv = ["zx", *sys.argv[1:]]
try:
    main()
except SystemExit as e:
    code = e.code
else:
    code = 0
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""

HEAVY = ("duckdb", "polars", "pyarrow", "fastapi", "starlette", "uvicorn", "jinja2")


def probe(*args: str, store: Path | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if store is not None:
        env["ZX_STORE"] = str(store)
    r = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    marker = r.stderr.rindex("MODULES ")
    return r, set(json.loads(r.stderr[marker + len("MODULES "):].splitlines()[0]))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` that are, or are inside, one of ``names``."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = tmp_path_factory.mktemp("startup") / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(s), "import", "--no-analytics", *EXAMPLES])
    assert r.exit_code == 0, r.output
    return s


def test_each_lazy_command_is_listed_by_its_own_help():
    """The help paragraph ``zx --help`` shows for a command not loaded yet is the command's own,
    shortened the same way at every terminal width."""
    from importlib import import_module

    for name, (module, attribute, paragraph) in LAZY_COMMANDS.items():
        command = getattr(import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == name, (name, command)
        first = command.help.split("\n\n")[0]
        assert " ".join(first.split()) == paragraph, f"zx_cli/main.py LAZY_COMMANDS[{name!r}]: update it to {first!r}"
        stand_in = click.Command(name, help=paragraph)
        for limit in range(20, 200, 7):
            assert stand_in.get_short_help_str(limit) == command.get_short_help_str(limit), (name, limit)


def test_help_lists_every_command_without_importing_them():
    r, modules = probe("--help")
    listed = r.stdout[r.stdout.index("Commands:"):]
    for name in ("import", "matches", "games", *LAZY_COMMANDS):
        assert f"\n  {name} " in listed, name
    assert loaded(modules, HEAVY) == []
    assert loaded(modules, tuple({m for m, _, _ in LAZY_COMMANDS.values()})) == []
    # nor the store, a game, or the installed version (looked up by --version only)
    assert loaded(modules, ("eventsourcing", "zx_events.games.zx", "zx_events.games.x610z", "rich",
                            "importlib.metadata")) == []


def test_help_loads_no_table_drawing():
    """The tables' module (zx_cli.output: json, decimal, csv, the free-text rules, about 20 ms) is the printing
    commands', not --help's: the root module takes its --format options from zx_cli.options."""
    r, modules = probe("--help")
    assert r.returncode == 0 and "Commands:" in r.stdout
    assert loaded(modules, ("zx_cli.output", "zx_events.freetext", "decimal", "csv")) == []
    r, modules = probe("games", "--format", "json")
    assert r.returncode == 0 and '"key": "zx"' in r.stdout
    assert loaded(modules, ("zx_cli.output",)) == ["zx_cli.output"]


def test_version_is_looked_up_when_asked():
    from importlib.metadata import version

    r, _ = probe("--version")
    assert r.stdout.strip() == f"zx {version('zx-events')}"


def test_matches_loads_no_analytics_web_or_other_command(store):
    r, modules = probe("matches", "--format", "csv", store=store)
    assert len(r.stdout.splitlines()) == len(EXAMPLES) + 1, r.stdout
    assert loaded(modules, HEAVY) == []
    assert loaded(modules, ("zx_analytics", *{m for m, _, _ in LAZY_COMMANDS.values()})) == []


def test_a_lazy_command_loads_its_own_module_only(store):
    match = CliRunner().invoke(zx, ["--store", str(store), "matches", "--format", "csv"]).stdout.splitlines()[1]
    mid = match.split(",")[0]
    r, modules = probe("verify", mid, "--format", "json", "--store", str(store))  # --store after the command
    assert [(v["match"], v["status"]) for v in json.loads(r.stdout)] == [(mid, "ok"), (None, "sealed")]
    assert "zx_cli.audit" in modules
    assert loaded(modules, ("zx_cli.analytics", "zx_cli.serve", "zx_cli.replay", "zx_cli.demo", "zx_cli.view", "zx_cli.simulate")) == []
    assert loaded(modules, HEAVY) == []


def test_store_is_accepted_after_every_lazy_command(tmp_path, monkeypatch):
    """Loading a command (or a group: every command under it) gives it ``--store`` after its name; a
    command that opens no store refuses it (zx demo --store mine.sqlite went into zx-demo/ without a word)."""
    from zx_cli.main import STORELESS

    ctx = click.Context(zx)

    def leaves(command: click.Command) -> list[click.Command]:
        if isinstance(command, click.Group):
            return [leaf for sub in command.commands.values() for leaf in leaves(sub)]
        return [command]

    for name in zx.list_commands(ctx):
        for leaf in leaves(zx.get_command(ctx, name)):
            assert any("--store" in p.opts for p in leaf.params) is (leaf.name not in STORELESS), (name, leaf.name)
    monkeypatch.chdir(tmp_path)  # (a regression would run the demo: in a folder of its own)
    for args in (["demo", "--store", "mine.sqlite"], ["--store", "mine.sqlite", "demo"], ["simulate", "--store", "x"]):
        r = CliRunner().invoke(zx, args)
        assert r.exit_code == 2 and ("--store" in r.output), (args, r.output)
    assert list(tmp_path.iterdir()) == []


def test_store_is_accepted_after_a_group_name(tmp_path):
    """README: ``--store`` works before or after the command; after a group's name (``zx stats --store
    S winrates``, ``zx analytics --store S update``) it was "No such option '--store'"."""
    from analytics_support import imported_store

    store = str(imported_store(tmp_path))
    ctx = click.Context(zx)
    groups = [name for name in zx.list_commands(ctx) if isinstance(zx.get_command(ctx, name), click.Group)]
    assert sorted(groups) == ["analytics", "stats"]
    for name in groups:
        assert any("--store" in p.opts for p in zx.get_command(ctx, name).params), name
    r = CliRunner().invoke(zx, ["stats", "--store", store, "winrates", "--format", "json"])
    assert r.exit_code == 0 and {x["deck"] for x in json.loads(r.stdout)} == {"Red Dragons", "Blue Control"}, r.output
    r = CliRunner().invoke(zx, ["analytics", "--store", store, "update", "--format", "json"])
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["events"] == 0, r.output  # (the import brought it up to date)
    r = CliRunner().invoke(zx, ["stats", "--store", str(tmp_path / "none.sqlite"), "winrates"])
    assert r.exit_code == 1 and f"no analytics file at {tmp_path / 'none.duckdb'}" in r.output  # that store's


def test_an_unknown_command_is_a_usage_error():
    r = CliRunner().invoke(zx, ["matchez"])
    assert r.exit_code == 2 and "No such command 'matchez'" in r.output


def test_matches_imports_no_game(store):
    """``zx matches`` reads the stored fields of the events it lists (``MatchMapper.fields``): no
    game's rules engine, log schema or event classes are imported."""
    _, modules = probe("matches", "--format", "json", store=store)
    assert loaded(modules, ("zx_events.games.zx", "zx_events.games.x610z", "fastjsonschema")) == []


def test_the_events_a_summary_reads_have_no_later_class_version():
    """``MatchService.update_summaries`` reads its four kinds of events without their classes, so
    without upcasting: a class version on one of them needs its upcast there too."""
    from zx_events import games
    from zx_events.application import TOPICS_ENDED, TOPICS_STARTED, TOPICS_TURN, TOPICS_VIOLATION
    from zx_events.codec import event_class

    topics = [*TOPICS_STARTED, *TOPICS_TURN, *TOPICS_ENDED, *TOPICS_VIOLATION]
    assert {games.topic_key(t) for t in topics} == set(games.keys())
    for topic in topics:
        assert getattr(event_class(topic), "class_version", 1) == 1, topic


def test_summaries_are_those_of_the_decoded_events(store):
    """The rows read from the stored fields are the rows the decoded events give."""
    from zx_events.application import (TOPICS_ENDED, TOPICS_STARTED, TOPICS_TURN, TOPICS_VIOLATION,
                                       MatchService)

    svc = MatchService(str(store), create=False)
    rows = {r["match"]: r for r in svc.summaries()}
    assert len(rows) == len(EXAMPLES)
    expected: dict = {}
    by_id: dict = {}
    for n in svc.notifications([*TOPICS_STARTED, *TOPICS_TURN, *TOPICS_ENDED, *TOPICS_VIOLATION]):
        e = svc.mapper.to_domain_event(n)
        if n.topic in TOPICS_STARTED:
            by_id[n.originator_id] = e.match_id
            expected[e.match_id] = {"turns": 0, "winner": None, "reason": None,
                                    "p1": e.header["players"]["P1"]["name"], "event": e.header.get("event")}
        elif n.topic in TOPICS_TURN:
            row = expected[by_id[n.originator_id]]
            row["turns"] = max(row["turns"], e.turn)
        elif n.topic in TOPICS_ENDED:
            expected[by_id[n.originator_id]].update(winner=e.winner, reason=e.reason)
    assert {m: {k: rows[m][k] for k in ("turns", "winner", "reason", "p1", "event")} for m in rows} == expected
    assert any(r["winner"] for r in rows.values()) and all(r["game"] == "zx" for r in rows.values())


def test_the_snapshot_fingerprint_reads_the_same_code_without_importing_it():
    """Each game's ``projection_code`` is the source of the module that defines its aggregate, and
    the eventsourcing version in the fingerprint is the one importlib.metadata gives: the same
    fingerprint as before either was read without an import (stored snapshots stay valid)."""
    from importlib import import_module, resources
    from importlib.metadata import version

    import eventsourcing

    from zx_events import games
    from zx_events.replay import installed_version

    for game in games.all_games():
        module = game.aggregate.__module__
        assert module == f"{game.package}.{game.aggregate_module}"
        package, _, name = module.rpartition(".")
        assert game.projection_code() == resources.files(package).joinpath(name + ".py").read_bytes()
        assert game.topic_prefix == import_module(module).PREFIX
    assert eventsourcing is not None and installed_version("eventsourcing") == version("eventsourcing")
    assert installed_version("orjson") == version("orjson")


def test_replaying_a_match_imports_its_own_game_only(store):
    match = CliRunner().invoke(zx, ["--store", str(store), "matches", "--format", "csv"]).stdout.splitlines()[1]
    r, modules = probe("replay", match.split(",")[0], "--event", "5", "--format", "json", store=store)
    assert json.loads(r.stdout)
    assert "zx_events.games.zx.match" in modules
    # the other game is asked for its identity and its projection code (a file read), not imported whole
    assert loaded(modules, ("zx_events.games.x610z.match", "zx_events.games.x610z.referee", "importlib.metadata",
                            *HEAVY)) == []


def test_stats_do_not_import_pyarrow(store):
    """The stats' frames are read from DuckDB's Arrow stream by Polars (``pl.DataFrame(relation)``),
    the same frames as ``relation.pl()`` without importing pyarrow."""
    r = CliRunner().invoke(zx, ["--store", str(store), "analytics", "update"])
    assert r.exit_code == 0, r.output
    r, modules = probe("stats", "winrates", "--format", "json", store=store)
    rows = json.loads(r.stdout)
    assert rows and rows == json.loads(CliRunner().invoke(zx, ["--store", str(store), "stats", "winrates",
                                                                "--format", "json"]).stdout)
    assert "duckdb" in modules and "polars" in modules and loaded(modules, ("pyarrow",)) == []


def test_stats_frames_are_those_of_pl(store):
    import duckdb
    import polars as pl

    con = duckdb.connect()
    rel = con.sql("SELECT 1 AS a, 2.5::DECIMAL(5,2) AS d, 'x' AS s, {'k': 1} AS st, 1.5::DOUBLE AS f, "
                  "12::BIGINT AS b, true AS bo, '2026-01-01'::TIMESTAMP AS ts, [1.5] AS l, NULL::VARCHAR AS n")
    assert pl.DataFrame(rel).equals(rel.pl()) and pl.DataFrame(rel).schema == rel.pl().schema
    empty = con.sql("SELECT 1 AS a, 'x' AS s WHERE false")
    assert pl.DataFrame(empty).schema == empty.pl().schema and pl.DataFrame(empty).height == 0


def test_stored_topics_are_resolved_through_the_codec():
    """A stored topic resolves only once its game is imported, and games are imported lazily:
    every module resolves topics with ``codec.event_class`` (its game first), none with
    eventsourcing's ``resolve_topic`` alone."""
    offenders = []
    for folder in ("zx_events", "zx_analytics", "zx_cli", "zx_web"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "zx_events" / "codec.py":
                continue
            text = path.read_text(encoding="utf-8")
            if "resolve_topic(" in text:
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.fixture(scope="module")
def both_games(tmp_path_factory):
    """Both games' legal examples, and matches stored with their violations."""
    s = tmp_path_factory.mktemp("startup-both") / "s.sqlite"
    others = sorted(str(p) for p in (ROOT / "examples" / "x610z" / "legal").glob("*.x610zlog"))
    invalid = sorted(str(p) for p in (ROOT / "examples" / "invalid").glob("30*.zxlog"))[:3]
    for args in (["import", "--no-analytics", *EXAMPLES, *others],
                 ["import", "--no-analytics", "--accept-violations", *invalid]):
        r = CliRunner().invoke(zx, ["--store", str(s), *args])
        assert r.exit_code == 0, r.output
    return s


def test_matches_on_a_sqlite_store_does_not_open_the_application(store):
    """``zx matches`` reads a SQLite store's summaries straight from its file: eventsourcing (a
    fifth of its start-up) is not imported."""
    r, modules = probe("matches", "--format", "csv", store=store)
    assert len(r.stdout.splitlines()) == len(EXAMPLES) + 1, r.stdout
    assert loaded(modules, ("eventsourcing", "zx_events.application")) == []


def test_summaries_read_from_the_file_are_the_services(both_games):
    from zx_events.application import MatchService
    from zx_events.store import resolve_store
    from zx_events.summaries import read_sqlite

    direct = read_sqlite(resolve_store(str(both_games), create=False))
    svc = MatchService(str(both_games), create=False)
    try:
        expected = svc.summaries()
    finally:
        svc.close()
    assert direct == expected
    assert {r["game"] for r in direct} == {"zx", "x610z"} and any(r["violations"] for r in direct)
    listed = json.loads(CliRunner().invoke(zx, ["--store", str(both_games), "matches", "--format", "json"]).stdout)
    assert [r["match"] for r in listed] == [r["match"] for r in expected]


def test_summaries_the_file_cannot_give_are_the_services(both_games, tmp_path, monkeypatch):
    """The 0.1.0 store (eventsourcing's transcoder JSON) and a store configured with a cipher are read
    by the application (tests/test_fixture_0_1_0.py lists the first). (An empty file is no store to a
    read command: tests/test_store_readers.py.)"""
    import shutil

    from zx_events.store import resolve_store
    from zx_events.summaries import read_sqlite

    old = tmp_path / "old.sqlite"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "zx-store-0.1.0.sqlite", old)
    assert read_sqlite(resolve_store(str(old), create=False)) is None
    monkeypatch.setenv("MATCHES_CIPHER_TOPIC", "eventsourcing.cipher:AESCipher")
    assert read_sqlite(resolve_store(str(both_games), create=False)) is None


def test_a_bar_that_is_not_drawn_loads_no_rich(tmp_path):
    """A progress bar too small to draw (here: one file to import, one match to verify) is not made:
    with ``--format json`` nothing of rich (its console and progress modules, ~40 ms) is imported."""
    store = tmp_path / "s.sqlite"
    r, modules = probe("import", "--no-analytics", "--format", "json", EXAMPLES[0], store=store)
    out = json.loads(r.stdout)
    assert [o["status"] for o in out] == ["imported"]
    assert loaded(modules, ("rich",)) == []
    r, modules = probe("verify", out[0]["match"], "--format", "json", store=store)
    assert [v["status"] for v in json.loads(r.stdout)] == ["ok", "sealed"]  # the match's, the store's
    assert loaded(modules, ("rich",)) == []


def test_an_import_on_one_process_loads_no_multiprocessing():
    """``--workers 1`` (or a memory store) imports in this process: multiprocessing (~9 ms) is not loaded."""
    r, modules = probe("--store", "memory:", "import", "--no-analytics", "--format", "json", EXAMPLES[0])
    assert [o["status"] for o in json.loads(r.stdout)] == ["imported"]
    assert loaded(modules, ("multiprocessing",)) == []


def _every_command(group: click.Group, path: tuple[str, ...] = ()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _every_command(command, (*path, name))


def test_every_help_shows_its_examples_whole_one_per_line():
    """Each command's examples are printed as written, one command a line, at any terminal width: a
    wrapped example (``--per-\\n  file 10``, ``tokyo-\\n  regional``) cannot be copied and run."""
    commands = [((), zx), *_every_command(zx)]
    assert len(commands) > 20
    for path, command in commands:
        written = [line.strip() for line in command.help.splitlines()]
        start = next((i for i, line in enumerate(written) if line in ("Example:", "Examples:")), None)
        assert start is not None, f"zx {' '.join(path)}: no Example: block in its help"
        block = written[start + 1:written.index("", start) if "" in written[start:] else None]
        # (a line in brackets says what the one above it needs: tests/test_cli_help_examples.py runs the others)
        assert block and all(line.startswith(("zx ", "cat ", "python ", "(")) for line in block), (path, block)
        for width in (60, 80):
            shown = CliRunner().invoke(zx, [*path, "--help"], terminal_width=width).output
            lines = [line.strip() for line in shown.splitlines()]
            for example in block:
                assert example in lines, (path, width, example, shown)


def test_a_ctrl_c_while_the_command_line_is_imported_is_aborted_not_a_traceback():
    """The ``zx`` script imported ``zx_cli.main`` before anything could catch a Ctrl-C: one in its first ~40 ms
    (click, the command modules being imported) printed a KeyboardInterrupt's traceback. The entry point is
    ``zx_cli:main``, which imports ``zx_cli.main`` itself and says "Aborted!" (exit 1), as at any later moment. The
    KeyboardInterrupt is raised where a Ctrl-C lands then: inside an import of ``zx_cli.main``."""
    entry = subprocess.run([sys.executable, "-c", "from importlib.metadata import entry_points\n"
                            "print(*[e.value for e in entry_points(group='console_scripts', name='zx')])"],
                           capture_output=True, text=True, check=True)
    assert entry.stdout.split() == ["zx_cli:main"]
    code = ("import builtins, sys\n"
            "real = builtins.__import__\n"
            "def ctrl_c(name, *args, **kw):\n"
            "    if name == 'click':\n"
            "        raise KeyboardInterrupt\n"
            "    return real(name, *args, **kw)\n"
            "builtins.__import__ = ctrl_c\n"
            "import zx_cli\n"
            "sys.argv = ['zx', 'matches']\n"
            "zx_cli.main()\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "Aborted!\n"), r


# run ``zx ARGS`` as PROBE does, and write to stderr the regular expressions zx's own modules compiled meanwhile
# (module imports included): each as the file that compiled it and the pattern's start
COMPILES_PROBE = """
import json, re, sys
from pathlib import Path
ours = tuple(str(Path.cwd() / d) + "/" for d in ("zx_cli", "zx_events", "zx_web", "zx_analytics"))
compiled = []
real = re._compile
def recording(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == real.__code__.co_filename:  # (re.compile, re.sub...)
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename.startswith(ours):
        compiled.append(f"{frame.f_code.co_filename}:{frame.f_lineno}: {str(pattern)[:30]!r}")
    return real(pattern, flags)
re._compile = recording
from zx_cli.main import main
sys.argv = ["zx", *sys.argv[1:]]
try:
    main()
except SystemExit as e:
    code = e.code
else:
    code = 0
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\nCOMPILED " + json.dumps(compiled) + "\\n")
sys.exit(code)
"""

# what zx matches leaves alone (issue 20 target 4): hashlib (OpenSSL's library: a SHA-1 of a match's id is the
# builtin module's), and decimal (a CSV's check for DuckDB's values; a table's rich imports it itself)
LAZY = ("hashlib", "_hashlib", "_blake2")


def compiles_probe(*args: str, store: Path, env: dict[str, str] | None = None):
    run_env = {**os.environ, "PYTHONPATH": str(ROOT), "ZX_STORE": str(store), **(env or {})}
    r = subprocess.run([sys.executable, "-c", COMPILES_PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                       env=run_env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    tail = r.stderr[r.stderr.rindex("\nMODULES "):].splitlines()
    return r, set(json.loads(tail[1][len("MODULES "):])), json.loads(tail[2][len("COMPILED "):])


@pytest.mark.parametrize("args,env", [(("matches",), {}), (("matches",), {"COLUMNS": "80"}),
                                      (("matches", "--format", "csv"), {}), (("matches", "--format", "json"), {}),
                                      (("matches", "--player", "Aki", "--limit", "2"), {"COLUMNS": "120"})],
                         ids=["table", "table-80", "csv", "json", "filtered"])
def test_matches_compiles_no_pattern_and_loads_no_lazy_module(both_games, args, env):
    """``zx matches`` (any format, to a pipe or a terminal's width) compiles none of zx's regular expressions and
    imports none of the modules it does not use (``LAZY``; decimal but for a table: rich's): each is compiled or
    imported where a command first needs it (a store URL's parts, a control character to escape, a cut cell, a
    digest). Issue 20 target 4: eight patterns of the free-text rules, seven of the store's and hashlib were
    about 15 ms of its start-up."""
    r, modules, compiled = compiles_probe(*args, store=both_games, env=env)
    table = "--format" not in args
    shown = "opp_deck" if "--player" in args else "p1_deck"  # (with --player: the player's side, QA round 36)
    assert shown in r.stdout and ("rich.table" in modules) is table, r.stdout
    assert compiled == []
    assert loaded(modules, (*LAZY, *(() if table else ("decimal",)))) == []


FREEZE_PROBE = """
import gc, sys
from zx_cli.main import main
sys.argv = ["zx", *sys.argv[1:]]
try:
    main()
except SystemExit:
    sys.stderr.write(f"\\nFROZEN {gc.get_freeze_count()}\\n")
    raise
"""


@pytest.mark.parametrize("args,frozen", [(("matches",), True), (("matches", "--format", "csv"), True),
                                         (("games", "--format", "json"), True), (("verify", "--format", "json"), False),
                                         (("matches", "--player", "nobody"), False), (("--help",), False)])
def test_a_command_that_holds_nothing_ends_without_the_last_collections(store, args, frozen):
    """``zx matches`` and ``zx games`` end holding no store or file (``zx_cli.main.holding_nothing``): the ``zx``
    process ends without collecting reference cycles (``gc.freeze``: a walk of every object, ~9 ms of zx matches,
    issue 20 target 4); a command that opened the application (zx verify), or one that failed, ends as before."""
    r = subprocess.run([sys.executable, "-c", FREEZE_PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "ZX_STORE": str(store)}, timeout=120)
    assert r.returncode == (1 if "nobody" in args else 0), r.stderr
    assert (int(r.stderr.rsplit("FROZEN ", 1)[1].split()[0]) > 0) is frozen, r.stderr
    if "csv" in args:
        assert len(r.stdout.splitlines()) == len(EXAMPLES) + 1  # (every row written: the end is as before)


def test_a_command_run_in_another_program_never_freezes_its_objects(store):
    """Nor leaves the garbage collector off: ``zx matches`` runs with it off (``zx_cli.main._without_collector``),
    then turns it on again, when it ends and when it fails."""
    import gc

    before = gc.get_freeze_count()
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", "--format", "csv"])
    assert r.exit_code == 0 and gc.get_freeze_count() == before and gc.isenabled()
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", "--player", "nobody"])
    assert r.exit_code == 1 and gc.isenabled()
    gc.disable()
    try:  # (one that was off stays off)
        assert CliRunner().invoke(zx, ["--store", str(store), "matches"]).exit_code == 0 and not gc.isenabled()
    finally:
        gc.enable()
