"""What a visitor reads names the store without the operator's connection parameters (QA round 37: a public 503
page advised `zx --store postgresql://...?sslrootcert=/etc/zx/ca.pem ...`): a served page's and a shared report's
advice name it by ``store.for_visitors`` (no password, of its parameters ``schema`` only); the terminal's advice
and the server's log keep them, to run as pasted."""

from __future__ import annotations

import html
import os
import shlex

import duckdb
import httpx
import pytest
from click.testing import CliRunner

from test_serve_cli import ROOT, start_serve
from zx_cli.main import zx
from zx_events.advice import with_given
from zx_events.application import MatchService

pytestmark = pytest.mark.postgres


def test_for_visitors_keeps_the_schema_only():
    assert with_given("run `zx analytics update`", "postgresql://u:pw@h/db?sslkey=/k&password=x&schema=s&options=-c",
                      None, visitors=True) == "run `zx --store 'postgresql://u@h/db?schema=s' analytics update`"
    # (as parse_store reads a URL: on "&" alone, the last of a repeated name)
    for typed, shown in (("postgresql://h/db?sslrootcert=/etc/ca.pem;schema=season", "postgresql://h/db"),
                         ("postgresql://h/db?schema=a&schema=b", "postgresql://h/db?schema=b")):
        assert with_given("`zx import`", typed, None, visitors=True) == f"`zx --store {shlex.quote(shown)} import`"
    assert with_given("run `zx analytics update`", "league/s.sqlite", None, visitors=True) == \
        "run `zx --store league/s.sqlite analytics update`"


def test_served_pages_and_reports_advise_the_store_without_its_connection_parameters(postgres_server, monkeypatch,
                                                                                      tmp_path):
    ca = os.environ.get("ZX_TEST_POSTGRES_CA")
    if not ca:
        pytest.skip("ZX_TEST_POSTGRES_CA (the test server's certificate) is not set: .ci/run sets it")
    for var in ("PGSSLMODE", "PGSSLROOTCERT", "ZX_ANALYTICS", "ZX_STORE"):
        monkeypatch.delenv(var, raising=False)
    url = postgres_server.fresh_url()  # (...?schema=NAME)
    typed = f"{url}&sslmode=verify-full&sslrootcert={ca}&connect_timeout=5"
    shown = shlex.quote(url)
    in_html = html.escape(shown).replace("&#x27;", "&#39;")  # (as the pages escape a quote)
    MatchService(typed).close()  # (an empty store)
    analytics = tmp_path / "a.duckdb"
    report = tmp_path / "r.html"

    r = CliRunner().invoke(zx, ["--store", typed, "report", "--analytics", str(analytics), "-o", str(report)])
    assert r.exit_code == 1 and f"sslrootcert={ca}" in r.output, r.output  # the terminal's: runs as pasted
    r = CliRunner().invoke(zx, ["--store", typed, "analytics", "update", "--analytics", str(analytics)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["--store", typed, "report", "--analytics", str(analytics), "-o", str(report)])
    assert r.exit_code == 0, r.output
    page = report.read_text(encoding="utf-8")
    assert f"zx --store {in_html} import LOGS`" in page
    assert ca not in page and "sslrootcert" not in page and "connect_timeout" not in page
    analytics.unlink()  # served without an analytics file: the statistics' 503 advises the update
    proc, base = start_serve(["--store", typed, "serve", "--analytics", str(analytics)], tmp_path, dict(os.environ))
    try:
        with httpx.Client(base_url=base, timeout=30) as c:
            answers = [c.get("/api/stats/winrates").text, c.get("/matches", headers={"accept": "text/html"}).text,
                       c.get("/dashboard", headers={"accept": "text/html"}).text]
    finally:
        proc.terminate()
        err = proc.communicate(timeout=30)[1]
    assert f"`zx --store {shown} analytics update --analytics {analytics}`" in answers[0], answers[0]
    assert f"zx --store {in_html} import LOGS`" in answers[1]
    for text in answers:
        assert ca not in text and "sslrootcert" not in text and "connect_timeout" not in text
    assert f"sslrootcert={ca}" in err, err  # (its start-up line: "statistics unavailable: ... run `zx --store ...`")

    # an analytics file found damaged at start-up: its answer was worded then, in the terminal's words, and every
    # visitor got them (the store's connection parameters, DuckDB's words; QA round 38)
    r = CliRunner().invoke(zx, ["--store", typed, "analytics", "update", "--analytics", str(analytics)])
    assert r.exit_code == 0, r.output
    analytics.write_bytes(analytics.read_bytes()[:len(analytics.read_bytes()) // 4])  # cut short
    proc, base = start_serve(["--store", typed, "serve", "--analytics", str(analytics)], tmp_path, dict(os.environ))
    try:
        with httpx.Client(base_url=base, timeout=30) as c:
            answers = [c.get("/api/status").json()["analytics_message"], c.get("/api/stats/winrates").text,
                       c.get("/dashboard", headers={"accept": "text/html"}).text]
    finally:
        proc.terminate()
        err = proc.communicate(timeout=30)[1]
    assert f"is damaged or not a DuckDB database: `zx --store {shown} analytics update --analytics {analytics} " \
           f"--rebuild`" in answers[0], answers[0]
    for text in answers:
        assert "sslrootcert" not in text and "connect_timeout" not in text and "IO Error" not in text, text[:3000]
    assert f"sslrootcert={ca}" in err and "statistics unavailable: the analytics file" in err, err

    # a block of the file damaged where only the page's drawing reads it: the error is the terminal's, its advice to
    # run as pasted (it was the page's, a visitor's, the connection parameters gone: QA round 38)
    analytics = tmp_path / "b.duckdb"  # (a.duckdb was cut short above)
    logs = sorted(str(p) for p in (ROOT / "examples" / "legal").glob("*.zxlog"))
    r = CliRunner().invoke(zx, ["--store", typed, "import", "--no-analytics", *logs])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["--store", typed, "analytics", "update", "--analytics", str(analytics)])
    assert r.exit_code == 0, r.output
    good = analytics.read_bytes()
    con = duckdb.connect(str(analytics), read_only=True)
    block = con.execute("SELECT min(block_id) FROM pragma_storage_info('seats') WHERE block_id >= 0").fetchall()[0][0]
    block_size = con.execute("PRAGMA database_size").fetchall()[0][2]
    con.close()
    damaged = bytearray(good)
    at = 3 * 4096 + block * block_size + 64
    damaged[at:at + 64] = b"\xff" * 64
    analytics.write_bytes(bytes(damaged))
    r = CliRunner().invoke(zx, ["--store", typed, "report", "--analytics", str(analytics), "-o",
                                str(tmp_path / "r2.html")])
    assert r.exit_code == 1 and f"sslrootcert={ca}" in r.output and "is damaged" in r.output, r.output
    assert not (tmp_path / "r2.html").exists()
    analytics.write_bytes(good)
