"""A SQLite store row whose aggregate id is no UUID (edited in the store, outside zx): QA round 35's red team made
one such row, and zx verify, zx matches and zx analytics update each ended in "internal error: ValueError: badly
formed hexadecimal UUID string", no match verified. Each names it now and goes on with the others."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from zx_cli.main import zx

LEGAL = Path(__file__).resolve().parents[1] / "examples" / "legal"


def run(store: Path, *args: str):
    return CliRunner().invoke(zx, ["--store", str(store), *args])


def test_a_row_whose_id_is_no_uuid_is_named_not_an_internal_error(tmp_path):
    store = tmp_path / "s.sqlite"
    logs = sorted(LEGAL.glob("*.zxlog"))[:3]
    assert run(store, "import", "--no-analytics", *map(str, logs)).exit_code == 0
    con = sqlite3.connect(store)
    with con:
        (victim,) = con.execute("SELECT originator_id FROM stored_events WHERE originator_version = 1 "
                                "ORDER BY rowid LIMIT 1").fetchone()
        con.execute("UPDATE stored_events SET originator_id = 'not-a-uuid' WHERE originator_id = ?", [victim])
    con.close()
    r = run(store, "verify", "--format", "json")
    assert r.exit_code == 1 and "internal error" not in r.output, r.output
    records = json.loads(r.stdout)
    (odd,) = [v for v in records if v["match"] == "not-a-uuid"]
    assert odd["status"] == "forged" and "no id zx writes (not a UUID)" in odd["message"]
    assert sum(1 for v in records if v["match"] and v["ok"]) >= 1  # the others verified
    assert any(v["status"] == "deleted" for v in records)  # the match it was (the seal lists it)
    r = run(store, "matches", "--format", "csv")
    assert r.exit_code == 0 and "not-a-uuid" in r.stdout and "damaged" in r.stdout, r.output
    for workers in ("0", "2"):
        r = CliRunner().invoke(zx, ["--store", str(store), "analytics", "update", "--rebuild", "--analytics",
                                    str(tmp_path / f"a{workers}.duckdb")], env={"ZX_ANALYTICS_WORKERS": workers})
        assert r.exit_code == 0 and "internal error" not in r.output, r.output
