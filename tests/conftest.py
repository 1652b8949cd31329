"""Shared fixtures: every test that touches the event store runs on SQLite AND on PostgreSQL.

How to use them (replay, audit, analytics, import tests):

    def test_something(store_url):        # a fresh, empty store: a SQLite file in tmp_path, or a
        svc = MatchService(store_url)     # fresh PostgreSQL schema (URL ...?schema=tN); each test
        ...                               # runs twice: test_something[sqlite], [postgres]

    def test_other(service, count_rows):  # service: MatchService(store_url), closed afterwards
        service.import_log(...)
        assert count_rows(service) == 31  # rows in its events table, counted with SQL

    def test_cli(store_url, backend):     # backend: "sqlite" or "postgres"
        CliRunner().invoke(zx, ["--store", store_url, "import", ...])

A subclass of MatchService must keep ``name = MatchService.name``: eventsourcing names the
PostgreSQL table after the application (``matches_events``), so a subclass named otherwise would
silently use a table of its own there (SQLite always uses ``stored_events``).

``store_url`` is an ordinary ``--store`` value, so it also works for ``zx --store URL ...`` in a
subprocess and for ``resolve_store``. A module that only wants one backend can override it, or
select one with ``-k sqlite`` / ``-k postgres``.

PostgreSQL comes from ``ZX_TEST_POSTGRES`` (e.g. ``postgresql://postgres@127.0.0.1:5432/postgres``;
a password in the URL or PGPASSWORD). Once per session a database ``zx_test_<pid>_<hex>`` is
created on that server (dropped at the end; if the user may not create databases, schemas in the
given database are used and dropped instead); each test gets a new schema in it (~10 ms, measured
against ~2.5 ms for TRUNCATE, which would leak tables others create, such as projection tracking).
With ``ZX_TEST_POSTGRES`` unset the postgres cases are skipped, unless ``CI`` is set: then they
fail, as they do whenever the configured server cannot be reached.
"""

from __future__ import annotations

import gc
import itertools
import os
import sqlite3
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlencode, urlparse

import pytest

from zx_events.store import StoreError, connect_postgres, postgres_env


@pytest.hookimpl(optionalhook=True)  # (a hook of pytest-xdist: unknown under -p no:xdist)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the README's test command): one worker per core and one more. A good part of the suite waits
    rather than computes (servers and browsers started and stopped, subprocesses, PostgreSQL): one run used 1,855 s
    of CPU in 3,104 s of test time on 2 workers; a third worker runs while another waits.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still says how many."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # (pytest-xdist's own hook reads it)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


# The files that take longest (their tests' wall time in one run on 3 workers, 2026-11-28 round 30, the trims of
# that round counted: 90-22 s each), run first: the workers take files in the order collected (--dist loadfile),
# and these last (tests/web sorts after tests/test_*) kept one worker busy for minutes after the others had
# finished. test_store_pg_network and test_store_pg_large_batch mostly wait (timeouts on purpose): begun early,
# the other workers compute meanwhile. Only the order changes; a file not here runs after.
LONGEST_FIRST = ("tests/web/test_serve_api.py", "tests/test_analytics_cli.py", "tests/web/test_viewer_browser.py",
                 "tests/test_analytics_projection.py", "tests/web/test_serve_dashboard.py", "tests/test_sql_sandbox.py",
                 "tests/test_store_seal.py", "tests/test_store_pg_network.py", "tests/web/test_serve_browser.py",
                 "tests/web/test_serve_stop.py", "tests/web/test_viewer_page.py", "tests/test_input_hardening.py",
                 "tests/test_cli_ux.py", "tests/test_python_api_stats.py", "tests/web/test_x610z_web.py",
                 "tests/web/test_look_dark_phone_violations.py", "tests/test_store_pg_large_batch.py")


def pytest_configure(config: pytest.Config) -> None:
    if (sys.dont_write_bytecode and getattr(config.option, "tx", None) and not hasattr(config, "workerinput")
            and getattr(config.option, "assertmode", "rewrite") == "rewrite"):
        _rewrite_once_for_the_workers(config)


def _rewrite(config: pytest.Config, files: list[Path]) -> None:
    from _pytest.assertion import assertstate_key
    from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc, get_cache_dir

    state = config.stash[assertstate_key]
    for fn in files:
        source_hash, co = _rewrite_test(fn, config)
        cache = get_cache_dir(fn)
        cache.mkdir(exist_ok=True)
        _write_pyc(state, co, source_hash, cache / (fn.name[:-3] + PYC_TAIL))


def _rewrite_once_for_the_workers(config: pytest.Config) -> None:
    """With PYTHONDONTWRITEBYTECODE set (as on the CI host), pytest keeps no rewritten test module: every xdist
    worker parsed and rewrote the asserts of every test file again as it collected, 8 s of CPU each of 12 (3
    workers: 24 s, while the workers all start at once on 2 cores). The controller writes them once here, on
    2 processes, before the workers start; each worker then reads them (pytest's own cache, checked against each
    file's hash). Nothing else is written; where pytest's private API differs, the workers rewrite as before."""
    import multiprocessing

    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir

        files = [p for p in sorted((ROOT / "tests").rglob("*.py"))
                 if (p.name.startswith("test_") or p.name == "conftest.py")
                 and _read_pyc(p, get_cache_dir(p) / (p.name[:-3] + PYC_TAIL)) is None]
        if not files:
            return
        halves = [files[0::2], files[1::2]]
        child = multiprocessing.get_context("fork").Process(target=_rewrite, args=(config, halves[1]), daemon=True)
        child.start()
        _rewrite(config, halves[0])
        child.join(120)
    except Exception:  # (another pytest's internals, a read-only checkout: the workers rewrite for themselves)
        pass


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    root = config.rootpath
    items.sort(key=lambda item: rank.get(item.path.relative_to(root).as_posix(), len(rank)))  # (a stable sort)

ROOT = Path(__file__).resolve().parent.parent


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@dataclass
class PostgresTestServer:
    """Where this session's PostgreSQL test stores live."""

    base_url: str  # ZX_TEST_POSTGRES, pointed at the session database
    schema_prefix: str
    created_database: str | None
    admin_env: dict[str, str]
    _next: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def fresh_url(self) -> str:
        schema = f"{self.schema_prefix}{next(self._next)}"
        sep = "&" if "?" in self.base_url else "?"
        return f"{self.base_url}{sep}{urlencode({'schema': schema})}"


def _unavailable(reason: str) -> None:
    if in_ci() or os.environ.get("ZX_TEST_POSTGRES"):
        pytest.fail(f"PostgreSQL tests cannot run: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL tests skipped: {reason}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresTestServer]:
    url = os.environ.get("ZX_TEST_POSTGRES", "").strip()
    if not url:
        _unavailable("set ZX_TEST_POSTGRES=postgresql://USER@HOST:PORT/DB to run them"
                     + (" (CI is set, so a missing server is a failure)" if in_ci() else ""))
    if urlparse(url).query:
        _unavailable(f"ZX_TEST_POSTGRES must not carry parameters (the tests add ?schema=): {url}")
    try:
        env = postgres_env(url)
        conn = connect_postgres(env)
    except StoreError as e:
        _unavailable(str(e))
    except Exception as e:  # psycopg.Error
        _unavailable(f"cannot connect to PostgreSQL at {url}: {e}")
    token = f"{os.getpid()}_{uuid.uuid4().hex[:8]}"
    dbname = f"zx_test_{token}"
    created: str | None = dbname
    with conn:
        try:
            conn.execute(f'CREATE DATABASE "{dbname}"')
        except Exception:  # no CREATEDB privilege: use schemas in the given database
            created = None
    u = urlparse(url)
    if created:
        server = PostgresTestServer(u._replace(path=f"/{dbname}").geturl(), "t", created, env)
    else:
        server = PostgresTestServer(url, f"zx_test_{token}_", None, env)
    yield server
    with connect_postgres(env) as conn:
        if created:
            conn.execute(f'DROP DATABASE IF EXISTS "{created}" WITH (FORCE)')
        else:
            rows = conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                (server.schema_prefix + "%",)).fetchall()
            for (name,) in rows:
                conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture(params=[pytest.param("sqlite"), pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    """The backend of this test case: "sqlite" or "postgres"."""
    return request.param


@pytest.fixture
def store_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A ``--store`` value for a fresh, empty store on ``backend``."""
    if backend == "sqlite":
        return str(tmp_path / "store.sqlite")
    server: PostgresTestServer = request.getfixturevalue("postgres_server")
    if "ZX_ANALYTICS" not in os.environ:  # its analytics file: in tmp_path, not zx-analytics.duckdb in the cwd
        request.getfixturevalue("monkeypatch").setenv("ZX_ANALYTICS", str(tmp_path / "analytics.duckdb"))
    return server.fresh_url()


@pytest.fixture
def service(store_url: str):
    """A MatchService on ``store_url``; its connections are closed after the test."""
    from zx_events.application import MatchService

    svc = MatchService(store_url)
    yield svc
    svc.close()


def count_stored_rows(svc, match_id: str | None = None, *, ledger: bool = False) -> int:
    """Rows of match events in the events table behind ``svc`` (``stored_events`` in SQLite,
    ``<schema>.matches_events`` in PostgreSQL), counted with SQL on a separate connection;
    only those of ``match_id`` when given; ``ledger``: the store seal's entries instead
    (zx_events.ledger, in the same table)."""
    from zx_events.games.zx.match import match_uuid
    from zx_events.ledger import LEDGER_ID

    table = svc.recorder.events_table_name
    cfg = svc.store
    oid = match_uuid(match_id) if match_id is not None else None
    if cfg.kind == "sqlite":
        with sqlite3.connect(cfg.path) as con:
            if ledger:
                return con.execute(f"SELECT count(*) FROM {table} WHERE originator_id = ?", (LEDGER_ID.hex,)).fetchone()[0]
            if oid is None:
                return con.execute(f"SELECT count(*) FROM {table} WHERE originator_id != ?", (LEDGER_ID.hex,)).fetchone()[0]
            return con.execute(f"SELECT count(*) FROM {table} WHERE originator_id = ?", (oid.hex,)).fetchone()[0]
    if cfg.kind == "postgres":
        with connect_postgres(cfg.env) as con:
            q = f'SELECT count(*) FROM "{cfg.schema}"."{table}"'
            if ledger:
                return con.execute(q + " WHERE originator_id = %s", (LEDGER_ID,)).fetchone()[0]
            if oid is None:
                return con.execute(q + " WHERE originator_id != %s", (LEDGER_ID,)).fetchone()[0]
            return con.execute(q + " WHERE originator_id = %s", (oid,)).fetchone()[0]
    raise ValueError(f"no SQL for a {cfg.kind} store")


@pytest.fixture
def count_rows() -> Callable[..., int]:
    """``count_rows(service[, match_id])`` -> rows in its events table (via SQL)."""
    return count_stored_rows


@pytest.fixture
def example_log() -> Path:
    return ROOT / "examples" / "legal" / "first-turns.zxlog"



@pytest.fixture(autouse=True)
def _heap_left_unfrozen() -> Iterator[None]:
    """A test that ran ``zx serve``'s application in this process (``create_app(serving=True)``) leaves the
    heap frozen (``gc.freeze`` once it is warm, as a server process does for good): every object alive then
    stayed out of the collector's reach for the rest of the worker, and every later import paid for
    ``gc.get_freeze_count`` (``MatchService.import_logs``), which walks them all: ~21 ms a call with ~200,000
    objects frozen, which doubled the CPU of tests/test_store_seal.py run after tests/web/test_serve_dashboard.py.
    The heap is given back as it was (a test that checks the freeze does so before its end)."""
    yield
    if gc.get_freeze_count():
        gc.unfreeze()


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables as a pipe gets them, whatever terminal runs the tests (a test that wants a width sets
    ``COLUMNS`` itself): ``zx_cli.output.emit`` fits a table to ``COLUMNS`` when it is set."""
    monkeypatch.delenv("COLUMNS", raising=False)
