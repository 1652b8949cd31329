"""The architecture holds (docs/architecture.md): the core reaches a game only through the registry,
games are independent, nothing imports in a circle, every module imports on its own, and the
registry lists the installed games (``zx games``)."""

from __future__ import annotations

import json
import logging
import os
import pkgutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("zx_events", "zx_analytics", "zx_cli", "zx_web")


def modules() -> list[str]:
    out = []
    for package in PACKAGES:
        out.append(package)
        for info in pkgutil.walk_packages([str(ROOT / package.replace(".", "/"))], prefix=package + "."):
            out.append(info.name)
    return sorted(out)


def test_the_import_contracts_hold(monkeypatch, capsys):
    """``lint-imports`` (import-linter, contracts in pyproject.toml): the core never imports
    zx_events.games.zx or zx_events.games.x610z, nor the core the analytics, the CLI or the web service (the match
    list's record imported zx_analytics.wilson until round 38), the games never import each other, and no module
    or package imports its siblings in a circle (function-level imports included)."""
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    # import-linter configures logging with dictConfig, which disables every logger that exists
    # already (zx.serve among them, for the tests after this one): they are enabled again after it
    enabled = [lg for lg in logging.Logger.manager.loggerDict.values()
               if isinstance(lg, logging.Logger) and not lg.disabled]
    try:
        code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    finally:
        for lg in enabled:
            lg.disabled = False
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count(" KEPT") == 4 and "BROKEN" not in out


def test_the_zx_rules_engine_is_mypy_clean(tmp_path):
    """The Z/X referee, its checks and its effects type-check (mypy, configured in pyproject.toml; round 38 made them
    clean: 141 errors, each an invariant mypy could not see, none a bug). Kept so: an Optional that flows where the
    engine assumes a value is a finding here, not an internal error at a user's import."""
    from mypy import api

    engine = [str(ROOT / "zx_events" / "games" / "zx" / "engine" / f"{name}.py") for name in ("referee", "checks",
                                                                                              "effects")]
    out, err, code = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path),
                              "--no-error-summary", *engine])
    assert code == 0 and not out.strip(), out + err


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_game_package_imports_no_private_name_of_another_module():
    """A game's code used the log schema's private ``_q`` (``from zx_events.games.schema import _q``): what a
    game takes from the boundary and the core's helpers is their public names (docs/architecture.md, "What each
    room may import"); within its own package a game may share what it likes."""
    import ast

    found = []
    for path in sorted((ROOT / "zx_events" / "games").glob("*/**/*.py")):
        game = "zx_events.games." + path.relative_to(ROOT / "zx_events" / "games").parts[0]
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and not (node.module == game or node.module.startswith(game + ".")):
                found += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []


def test_every_module_imports_on_its_own():
    """Each module imported first in a fresh child process (``python -c "import zx_cli.audit"`` for
    every module): an import circle or a missing import shows here. Third-party packages are
    imported once in the parent, so each child pays only for the project's own modules."""
    import subprocess

    names = modules()
    assert "zx_cli.audit" in names and "zx_events.games.zx.engine.effects" in names and len(names) > 80
    script = r"""
import os, sys, importlib, traceback
for heavy in ("eventsourcing.application", "duckdb", "polars", "pyarrow", "click", "fastapi", "uvicorn",
              "jsonschema", "fastjsonschema", "orjson", "rich.console", "rich.table", "psycopg", "psycopg_pool",
              "altair", "vl_convert", "jinja2", "numpy", "selenium.webdriver", "eventsourcing.sqlite",
              "eventsourcing.postgres", "fastapi.responses", "starlette.middleware"):
    importlib.import_module(heavy)
ours = [m for m in sys.modules if m.split(".")[0] in ("zx_events", "zx_analytics", "zx_cli", "zx_web")]
assert not ours, ours
failed = []
for name in sys.argv[1:]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            importlib.import_module(name)
            code = 0
        except BaseException:
            os.write(w, traceback.format_exc().encode()[-2000:])
            code = 1
        os._exit(code)
    os.close(w)
    err = os.read(r, 4000).decode()
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failed.append((name, err))
for name, err in failed:
    print("FAILED", name, err)
sys.exit(1 if failed else 0)
"""
    r = subprocess.run([sys.executable, "-c", script, *names], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stdout + r.stderr


def test_zx_games_lists_the_installed_games():
    from zx_cli.main import zx

    r = CliRunner().invoke(zx, ["games", "--format", "json"])
    assert r.exit_code == 0, r.output
    games = json.loads(r.stdout)
    assert [g["key"] for g in games] == ["zx", "x610z"]
    zxg = games[0]
    assert zxg["header"] == "zxlog 1" and zxg["topics"] == "zx.match:*" and "sample" in zxg["catalogs"]
    assert {"setup", "turn", "attack", "effect", "result"} <= set(zxg["record_kinds"])
    from zx_events.games.zx.rules import RULES_VERSION

    assert zxg["rules"] == RULES_VERSION
    r = CliRunner().invoke(zx, ["games", "--format", "csv"])
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == "key,name,rules,header,suffix,topics,catalogs,record_kinds"
    r = CliRunner().invoke(zx, ["games"])
    assert r.exit_code == 0 and "zxlog 1" in r.stdout and "x610zlog 1" in r.stdout


def test_the_registry_finds_a_game_by_header_key_and_topic():
    from zx_events import games

    assert games.for_header({"zxlog": 1}).key == "zx" and games.for_header({"x610zlog": 1}).key == "x610z"
    assert games.for_header({"do": "turn"}) is None
    assert games.for_topic("zx.match:Started").key == "zx"
    assert games.for_topic("x610z.match:Sealed").key == "x610z"
    with pytest.raises(games.UnknownGame, match="belongs to no installed game"):
        games.for_topic("chess.match:Started")
    with pytest.raises(games.UnknownGame, match="unknown game 'chess': one of zx, x610z"):
        games.get("chess")


def test_a_log_file_may_hold_matches_of_both_games(tmp_path):
    """The reader picks each match's game from its header key."""
    from zx_events.logformat.reader import read_log

    zx_text = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text(encoding="utf-8")
    x_files = sorted((ROOT / "examples" / "x610z").rglob("*.x610zlog"))
    legal = next(p for p in x_files if "invalid" not in str(p))
    mixed = tmp_path / "mixed.log"
    mixed.write_text(zx_text + legal.read_text(encoding="utf-8"), encoding="utf-8")
    logs = read_log(mixed)
    assert [log.game.key for log in logs] == ["zx", "x610z"]
    assert all(log.error is None for log in logs)
    assert logs[1].header_line == len(zx_text.splitlines()) + 1


def test_a_header_with_two_format_keys_is_a_format_error(tmp_path):
    from zx_events.logformat.reader import read_log

    path = tmp_path / "two.zxlog"
    path.write_text('{"zxlog": 1, "x610zlog": 1, "match": "m"}\n', encoding="utf-8")
    (log,) = read_log(path)
    assert log.error is not None and log.error.line == 1
    assert "holds one format key, this one holds 'zxlog' and 'x610zlog'" in str(log.error)


@pytest.mark.parametrize("key", ["zx", "x610z"])
def test_each_game_plays_a_simulated_match_through_the_interface(key):
    """A game's simulated match replayed through the Game interface only: each record is written by
    the seat ``to_act`` names, the legal-action lister offers that seat a record of its kind at that
    point (the cards drawn depend on a deck order the lister does not know), and the strict referee
    accepts it."""
    import json

    from zx_events import games
    from zx_events.logformat.reader import parse_log

    game = games.get(key)
    (sim,) = list(game.simulate(1, 5))
    text = "".join(json.dumps(r) + "\n" for r in (sim.header, *sim.records))
    (log,) = parse_log(text, f"sim{game.log_suffix}")
    assert log.error is None and log.game is game
    catalog = game.load_catalog(log.header.get("catalog"))
    fixtures = game.load_fixtures(log.header)
    match, referee = game.open_match(log.header, catalog, fixtures, strict=True, source="sim")
    offered = 0
    for rec in log.records:
        if rec.data["do"] not in ("result", "concede", "effect"):  # an effect records what a resolution did
            player = game.to_act(match, catalog, fixtures)
            assert rec.data["by"] == player, rec
            kinds = {r["do"] for r in game.legal_records(match, catalog, fixtures, player)}
            assert rec.data["do"] in kinds, (rec, kinds)
            offered += 1
        referee.handle(rec.line, rec.data)
    referee.finish()
    assert referee.found == [] and offered > 20


def test_every_data_file_of_the_packages_is_in_the_package_data():
    """A wheel (`pip install .`, not -e) held no X610Z board nor the X610Z analytics SQL: `games/*/*.json` does
    not reach subfolders, so an X610Z import said "internal error: FileNotFoundError" and every analytics update
    failed. Each file of the packages that is not Python is matched by a package-data glob, as setuptools globs."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    patterns = config["package-data"]
    for package in ("zx_events", "zx_analytics", "zx_cli", "zx_web"):
        base = ROOT / package
        shipped = {p for pattern in patterns.get(package, []) for p in base.glob(pattern)}
        data = {p for p in base.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
                and "__pycache__" not in p.parts}
        assert sorted(str(p.relative_to(ROOT)) for p in data - shipped) == [], package


def test_the_distribution_installs_only_zx_prefixed_top_level_packages():
    """QA round 34: 0.2.0 installed the top-level packages ``analytics``, ``cli`` and ``web`` beside ``zx_events``:
    generic names that another distribution's package (Segment's analytics-python installs an ``analytics``)
    overwrote in site-packages, or ours overwrote theirs. The top-level names are exactly the four packages of
    docs/architecture.md, in the installed metadata (what ``pip install`` wrote) and in what setuptools finds
    with pyproject's ``packages.find``; the ``zx`` script is ``zx_cli:main``."""
    import tomllib
    from importlib.metadata import distribution

    expected = {"zx_events", "zx_analytics", "zx_cli", "zx_web"}
    assert set(PACKAGES) == expected
    dist = distribution("zx-events")
    top_level = dist.read_text("top_level.txt")
    if top_level is not None:
        installed = set(top_level.split())
    else:  # an installer that writes no top_level.txt: the first folder of each Python file it installed
        installed = {f.parts[0] for f in dist.files or () if f.suffix == ".py" and len(f.parts) > 1
                     and not f.parts[0].startswith("..")}
    assert installed == expected, "reinstall (pip install -e .) after a change of the packages"
    assert [e.value for e in dist.entry_points if e.group == "console_scripts" and e.name == "zx"] == ["zx_cli:main"]
    find = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]["find"]
    try:
        from setuptools import find_packages
    except ImportError:  # (a venv of Python 3.12+ holds no setuptools: the metadata above is then the check)
        return
    found = find_packages(where=str(ROOT), include=find.get("include", ("*",)), exclude=find.get("exclude", ()))
    assert {name.split(".")[0] for name in found} == expected


def test_the_packages_a_script_imports_say_they_are_typed():
    """QA round 34: no ``py.typed``, so a type checker (mypy) took nothing of the Python API's annotations
    ("module is installed, but missing library stubs or py.typed marker"). The three packages scripts import
    carry it, and pyproject ships it with them."""
    import tomllib
    from importlib.resources import files

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    for package in ("zx_events", "zx_analytics", "zx_web"):
        assert files(package).joinpath("py.typed").is_file(), package
        assert "py.typed" in data[package], package


def test_a_folder_holding_analytics_cli_and_web_modules_does_not_shadow_ours(tmp_path):
    """QA round 34: a notebook's folder holding an ``analytics.py`` (or a ``web/`` folder) shadowed our package of
    that name (``No module named 'analytics.stats'; 'analytics' is not a package``): the working directory comes
    first on ``sys.path`` of ``python -c``, ``python -m`` and a notebook. Our packages' names are ours alone
    (``zx_analytics``, ``zx_cli``, ``zx_web``): run from such a folder, they still import ours, and ``python -m
    zx_cli.main`` still runs."""
    import subprocess

    for shadow in (tmp_path / "analytics.py", tmp_path / "cli.py", tmp_path / "web" / "__init__.py"):
        shadow.parent.mkdir(exist_ok=True)
        shadow.write_text(f"raise ImportError('the folder\\'s own {shadow.relative_to(tmp_path)} was imported')\n",
                          encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # ours as installed, not from the checkout
    code = ("import sys\n"
            "from zx_analytics.stats import Stats\n"
            "import zx_cli.main, zx_web.app\n"
            "import zx_analytics, zx_cli, zx_web\n"
            "print(*(m.__file__ for m in (zx_analytics, zx_cli, zx_web)), sep='\\n')\n"
            "assert not {'analytics', 'cli', 'web'} & set(sys.modules), sorted(sys.modules)\n"
            "import analytics\n")  # the folder's own, first on the path: the shadow was there to be found
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "the folder's own analytics.py was imported" in r.stderr, r.stderr
    files = [Path(line) for line in r.stdout.splitlines()]
    assert [f.parent.name for f in files] == ["zx_analytics", "zx_cli", "zx_web"], r.stdout
    assert not any(f.is_relative_to(tmp_path) for f in files), r.stdout
    r = subprocess.run([sys.executable, "-m", "zx_cli.main", "--version"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("zx "), r.stderr


def test_every_library_the_packages_import_is_a_declared_dependency():
    """QA round 34: ``zx serve`` imported numpy, which only the dev extras brought: installed from the wheel it failed
    to start ("internal error: No module named 'numpy'"). Every module outside the standard library that a module of
    the four packages imports (at its top or in a function) comes from a distribution pyproject.toml's
    dependencies name, or is imported by name only where it is installed (``zx_cli.serve``)."""
    import ast
    import re
    import sys
    import tomllib
    from importlib.metadata import packages_distributions

    declared = {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].strip().lower().replace("_", "-")
                for d in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]}
    dists = packages_distributions()
    imported: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    imported.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    third = {name: where for name, where in imported.items()
             if name not in sys.stdlib_module_names and name not in PACKAGES and name != "__future__"}
    dev_only = {"selenium": "zx_web/browser.py"}  # (headless Chromium for tests, bench and docs/img: the dev extra)
    undeclared = {name: where for name, where in third.items() if dev_only.get(name) != where
                  and not {d.lower().replace("_", "-") for d in dists.get(name, ())} & declared}
    assert undeclared == {}, undeclared
    assert {"duckdb", "polars", "eventsourcing", "click"} <= set(third)  # (the scan reads imports)
    from zx_cli.serve import SERVE_IMPORTS  # (the modules serve imports by name, as text)

    by_name = {n.split(".")[0] for n in SERVE_IMPORTS} - set(PACKAGES)
    assert {n for n in by_name if not {d.lower().replace("_", "-") for d in dists.get(n, ())} & declared} == set()
