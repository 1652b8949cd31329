"""A PostgreSQL store's analytics file is the store's, whichever role and host spelling reads or updates it
(docs/analytics.md, docs/deployment.md: an owner's scheduled update, importers, readers on other machines).

The QA report (round 34): the file recorded the URL with its role, ``postgresql://owner@127.0.0.1:...``; a reader's
``zx analytics update`` was refused ("was built from postgresql://owner@..., not postgresql://reader@..."), its
``zx serve`` answered every statistic 503, and ``--rebuild`` as the reader made the file another store to the
owner's next update. Real PostgreSQL (the test server), real roles with docs/deployment.md's reader grants."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from pg_roles import READER, granted, new_role

ROOT = Path(__file__).resolve().parent.parent
LOGS = [str(p) for p in sorted((ROOT / "examples" / "legal").glob("*.zxlog"))]


def _identity(path: Path) -> str:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT store FROM projection_position").fetchone()[0]


@pytest.mark.postgres
def test_every_role_and_host_spelling_updates_and_reads_the_same_analytics_file(postgres_server, tmp_path):
    from fastapi.testclient import TestClient

    from zx_web.app import create_app
    from zx_events.store import postgres_env

    url = postgres_server.fresh_url()
    duck = tmp_path / "shared.duckdb"
    env = {"ZX_ANALYTICS": str(duck)}
    r = CliRunner().invoke(zx, ["--store", url, "import", *LOGS[:3]], env=env)  # the owner: imports, projects
    assert r.exit_code == 0, r.output
    schema = postgres_env(url)["POSTGRES_SCHEMA"]
    built = _identity(duck)
    assert built.startswith("PostgreSQL server ") and built.endswith(f", schema {schema}") and "@" not in built
    role, as_reader = new_role("zx_analyst", url)
    with granted(postgres_env(url), role, READER):
        other_host = as_reader.replace("127.0.0.1", "localhost")
        for store in (as_reader, other_host):
            r = CliRunner().invoke(zx, ["--store", store, "analytics", "update"], env=env)
            assert r.exit_code == 0 and "built from" not in r.output, r.output
            r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates", "--format", "json"], env=env)
            assert r.exit_code == 0 and r.stdout.startswith("["), r.output
            with TestClient(create_app(store, analytics=duck)) as c:
                status = c.get("/api/status").json()
                assert status["analytics_ok"] is True, status
                assert c.get("/api/stats/winrates", params={"min_games": 1}).status_code == 200
        r = CliRunner().invoke(zx, ["--store", url, "import", *LOGS[3:]], env=env)  # the owner's next import
        assert r.exit_code == 0 and "built from" not in r.output, r.output
        r = CliRunner().invoke(zx, ["--store", as_reader, "analytics", "update"], env=env)
        assert r.exit_code == 0, r.output
    assert _identity(duck) == built

    # a file an earlier release built records the URL with its role: taken, and named the new way by the update
    from zx_events.store import parse_store

    with duckdb.connect(str(duck)) as con:
        con.execute("UPDATE projection_position SET store = ?", [parse_store(url).label])
    r = CliRunner().invoke(zx, ["--store", url, "analytics", "update"], env=env)
    assert r.exit_code == 0 and "built from" not in r.output, r.output
    assert _identity(duck) == built
    other = postgres_server.fresh_url()  # another schema: another store, refused as before
    assert CliRunner().invoke(zx, ["--store", other, "import", "--no-analytics", LOGS[0]]).exit_code == 0
    r = CliRunner().invoke(zx, ["--store", other, "analytics", "update"], env=env)
    assert r.exit_code == 1 and f"was built from {built}, not PostgreSQL server" in r.output, r.output
