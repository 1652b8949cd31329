"""``zx serve --follow``: the server keeps the analytics file up to date while it serves (docs/serve.md, "Live
statistics"). A real server process on a small store; a match imported meanwhile by ``zx import`` in another
process is counted by the statistics and the dashboard within seconds, with no 503 and no restart; /api/status says
where the file stands; SIGTERM stops the follower cleanly; ``--workers N`` is refused; and a follower stopped
between pages resumes without counting a match twice.

Before, the server held the file read-only: the import could not update it, and every statistic answered 503 "the
analytics are behind the store ... stop this server" until the server was restarted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import httpx
import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from test_serve_cli import start_serve

ROOT = Path(__file__).resolve().parents[2]
LEGAL = ROOT / "examples" / "legal"
CATCH_UP = 20.0  # s at most for a match imported meanwhile to be counted (the follower polls every second)


def env_without_store() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ZX_STORE", "ZX_ANALYTICS")}
    return {**env, "PYTHONPATH": str(ROOT)}


def games_counted(http: httpx.Client, base: str) -> int:
    r = http.get(base + "/api/stats/winrates")
    assert r.status_code == 200, r.text  # never a 503: the follower is behind for a second at most
    return sum(row["games"] for row in r.json()["rows"])


def test_serve_follow_counts_a_match_imported_meanwhile_without_a_restart(tmp_path):
    store = str(tmp_path / "events.sqlite")
    analytics = tmp_path / "events.duckdb"
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(LEGAL / "first-turns.zxlog"),
                                str(LEGAL / "rules-fidelity.zxlog")])
    assert r.exit_code == 0, r.output
    proc, base = start_serve(["--store", store, "serve", "--follow"], tmp_path, env_without_store())  # (its first update makes the file)
    http = httpx.Client(timeout=30)
    try:
        status = http.get(base + "/api/status").json()
        assert status["analytics_ok"] is True, status
        assert status["analytics_position"] == status["store_last_notification"] > 0, status
        assert "up to date" in status["analytics_message"], status
        before = games_counted(http, base)  # (0: neither match was played to its end)
        dashboard = http.get(base + "/dashboard")
        assert dashboard.status_code == 200, dashboard.text

        # another process imports a match: the server holds the file, and says it projects it itself
        imported = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", store, "import",
                                   str(LEGAL / "range-attacks-win-by-life.zxlog")], cwd=tmp_path,
                                  env=env_without_store(), capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr
        assert "that server projects the new matches itself" in imported.stderr, imported.stderr
        assert "stop that server" not in imported.stderr, imported.stderr

        deadline = time.monotonic() + CATCH_UP
        while (after := games_counted(http, base)) == before:  # 200 at every poll, at the old position meanwhile
            assert time.monotonic() < deadline, http.get(base + "/api/status").json()
            time.sleep(0.2)
        assert after == before + 2, after
        status = http.get(base + "/api/status").json()
        assert status["analytics_ok"] is True, status
        assert status["analytics_position"] == status["store_last_notification"], status  # how far behind: 0
        fresh = http.get(base + "/dashboard")
        assert fresh.status_code == 200 and fresh.text != dashboard.text, fresh.text  # not the one kept before

        # the lock on the file survived the server's updates: no other process reads it (DuckDB: one writer)
        with pytest.raises(duckdb.Error, match="lock"):
            duckdb.connect(str(analytics), read_only=True).close()
        r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates"])  # (at once: the server holds it for good)
        assert r.exit_code == 1 and "started with --follow" in r.output and "ask that server" in r.output, r.output
    finally:
        http.close()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM, err  # (143 in a shell, as zx serve without --follow)
    assert "follow: +1 match, " in err and "Traceback" not in err and "internal error" not in err, err
    # stopped cleanly: the file is whole, up to date, each match once
    r = CliRunner().invoke(zx, ["--store", store, "analytics", "update", "--format", "json"])
    assert r.exit_code == 0 and '"events": 0' in r.stdout, r.output
    con = duckdb.connect(str(analytics), read_only=True)
    try:
        assert con.execute("SELECT count(*), count(DISTINCT match_id) FROM matches").fetchall() == [(3, 3)]
    finally:
        con.close()


def test_serve_follow_with_workers_is_refused():
    r = CliRunner().invoke(zx, ["--store", "memory:", "serve", "--follow", "--workers", "2"])
    assert r.exit_code == 2, r.output
    assert "--follow needs one server process" in r.output and "--workers" in r.output, r.output


def test_serve_follow_stopped_between_pages_resumes_without_counting_twice(tmp_path):
    """The follower's updates take ``stop``: set during a catching up, the update ends after its page under way
    has committed, and the next one resumes there; the tables are those of a rebuild."""
    from zx_analytics.projection import update
    from zx_events.application import MatchService

    store = str(tmp_path / "events.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", *map(str, sorted(LEGAL.glob("*.zxlog")))])
    assert r.exit_code == 0, r.output
    svc = MatchService(store, create=False)
    try:
        stop = threading.Event()
        path = tmp_path / "followed.duckdb"
        first = update(svc, path, page_size=100, workers=0, stop=stop,
                       on_progress=lambda done, total: stop.set() if done else None)
        last = svc.recorder.max_notification_id()
        assert first.pages == 1 and 0 < first.position < last, first
        rest = update(svc, path, page_size=100, workers=0)
        rebuilt = update(svc, tmp_path / "rebuilt.duckdb", workers=0)
        assert rest.position == last and first.events + rest.events == rebuilt.events, (first, rest, rebuilt)
    finally:
        svc.close()
    tables = ("matches", "seats", "turns", "card_games", "attacks", "life")
    counts = []
    for file in (path, rebuilt.path):
        con = duckdb.connect(str(file), read_only=True)
        try:
            counts.append([con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in tables])
        finally:
            con.close()
    assert counts[0] == counts[1] and counts[0][0] == 5, counts


# the shipped Z/X catalog with one card made stronger and renamed: Red Dragons' archetype is named after it
# (tests/test_analytics_catalog_files.py: without the file the stored matches' cards are unknown)
ZX_CHANGE = ("R01-011,Phoenix Ember Healer,Z/X,red,2,3500,", "R01-011,Phoenix Ember Matriarch,Z/X,red,2,4500,")
RIGHT, UNKNOWN = "red: Volcanic Ruin Herald + Phoenix Ember Matriarch", "unknown: R01-001 + R01-002"


def archetypes(http: httpx.Client, base: str) -> dict[str, int]:
    r = http.get(base + "/api/stats/archetypes", params={"min_games": 1})  # (seats: mirror matches counted)
    assert r.status_code == 200, r.text
    return {row["archetype"]: row["seats"] for row in r.json()["rows"]}


def test_serve_follow_catalog_file_labels_the_matches_imported_with_it_those_imported_meanwhile_too(tmp_path):
    """``zx serve --follow --catalog FILE`` (and ``--update``): the matches imported with a catalog file get their
    colours and archetypes from it, as ``zx analytics update --catalog FILE`` gives them, those imported while the
    server runs too. Before, serve had no --catalog: its updates projected them as ``unknown: <codes>``."""
    from importlib import resources

    shipped = resources.files("zx_events.games.zx.catalogs").joinpath("sample.csv").read_text(encoding="utf-8")
    mine = tmp_path / "my-cards.csv"
    mine.write_text(shipped.replace(*ZX_CHANGE), encoding="utf-8")
    store = str(tmp_path / "events.sqlite")
    runner = CliRunner()
    for seed in ("7", "8"):
        r = runner.invoke(zx, ["--store", store, "simulate", "-n", "2", "--decks", "Red Dragons", "--seed", seed,
                               "--out", str(tmp_path / f"sim{seed}")])
        assert r.exit_code == 0, r.output
    r = runner.invoke(zx, ["--store", store, "import", "--no-analytics", "--catalog", str(mine), str(tmp_path / "sim7")])
    assert r.exit_code == 0, r.output

    proc, base = start_serve(["--store", store, "serve", "--follow", "--catalog", str(mine)], tmp_path,
                             env_without_store())
    http = httpx.Client(timeout=30)
    try:
        first = archetypes(http, base)
        assert first.get(RIGHT) == 4 and UNKNOWN not in first, first  # (was: unknown: R01-001 + R01-002)
        imported = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", store, "import", "--catalog", str(mine),
                                   str(tmp_path / "sim8")], cwd=tmp_path, env=env_without_store(), capture_output=True,
                                  text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr
        deadline = time.monotonic() + CATCH_UP
        while (now := archetypes(http, base)) == first:
            assert time.monotonic() < deadline, http.get(base + "/api/status").json()
            time.sleep(0.2)
        assert now.get(RIGHT) == 8 and UNKNOWN not in now, now  # (2 matches more, 2 seats each)
    finally:
        http.close()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err and "zx does not ship" not in err, err


def test_the_live_dashboard_says_when_the_store_holds_events_its_figures_do_not_count(tmp_path):
    """Under --follow, while matches are imported, the dashboard said "24,064 matches" where the list said 24,768 and
    nothing on it said it lagged (QA round 37): a line says the store holds N events more, read at each answer (the
    drawn page is cached by the analytics' position, which stays while the store moves); none when it is up to date,
    and none in zx report's file."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app
    from zx_web.pages import fresh, render_dashboard

    store, analytics = str(tmp_path / "s.sqlite"), str(tmp_path / "s.duckdb")
    logs = Path(__file__).resolve().parents[2] / "examples" / "legal"
    r = CliRunner().invoke(zx, ["--store", store, "import", str(logs / "first-turns.zxlog")],
                           env={"ZX_ANALYTICS": analytics})
    assert r.exit_code == 0, r.output
    with TestClient(create_app(store, analytics=analytics)) as c:
        b = c.app.state.backend
        page = c.get("/dashboard").text
        assert 'id="freshness"' not in page and "zx-freshness" not in page
        drawn = render_dashboard(b, {}, 30, live=True)
        assert 'id="freshness"' not in render_dashboard(b, {}, 30, live=False) and "zx-freshness" not in \
            render_dashboard(b, {}, 30, live=False)  # (a file: no such line)
        r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(logs / "rules-fidelity.zxlog")])
        assert r.exit_code == 0, r.output
        position, last = b.projection()[0], b.store_last_id(fresh=True)
        assert last > position
        said = fresh(b, drawn)
        assert f"The store holds {last - position:,} events the analytics do not count yet (matches imported in the " \
               f"last seconds), which the server is bringing in. Reload in a moment." in said
        assert "zx-freshness" not in said and "drawn before" not in said


def test_the_followers_errors_give_the_commands_remedy_not_the_python_apis(tmp_path):
    """The follower thread started in an empty context, so ADVICE_FOR read "python" there: a file built from another
    store gave the server's log and every statistic's 503 the Python API's remedy, "(in Python:
    zx_analytics.projection.update(svc, ..., rebuild=True))" (QA round 37). It runs in its starter's context."""
    from fastapi.testclient import TestClient

    from zx_events.errors import ADVICE_FOR
    from zx_web.app import create_app

    logs = Path(__file__).resolve().parents[2] / "examples" / "legal"
    analytics = str(tmp_path / "a.duckdb")
    for name in ("a", "b"):
        r = CliRunner().invoke(zx, ["--store", str(tmp_path / f"{name}.sqlite"), "import",
                                    *(["--no-analytics"] if name == "b" else []), str(logs / "first-turns.zxlog")],
                               env={"ZX_ANALYTICS": analytics})
        assert r.exit_code == 0, r.output
    said: list[str] = []
    advice = ADVICE_FOR.set("cli")  # (as zx serve runs: zx_cli.main sets it for the command's run)
    try:
        app = create_app(str(tmp_path / "b.sqlite"), analytics=analytics)
        b = app.state.backend
        b.follow(interval=0.1, say=said.append)  # (before it serves, as zx serve --follow starts it)
        with TestClient(app) as c:
            b._follower.thread.join(timeout=CATCH_UP)
            assert b._follower.error is not None and "a.sqlite" in b._follower.error, said
            answer = c.get("/api/stats/winrates").json()
    finally:
        ADVICE_FOR.reset(advice)
    assert "--rebuild" in b._follower.error and "in Python" not in b._follower.error, b._follower.error
    assert "in Python" not in answer["error"] and not any("in Python" in s for s in said), (answer, said)


LEGAL = Path(__file__).resolve().parents[2] / "examples" / "legal"


def following(tmp_path):
    """An app over a store of one match, following it (started before it serves, as zx serve --follow starts it):
    (app, its backend, the store, the deadline of the waits)."""
    from zx_web.app import create_app

    store, analytics = str(tmp_path / "s.sqlite"), str(tmp_path / "s.duckdb")
    r = CliRunner().invoke(zx, ["--store", store, "import", str(LEGAL / "first-turns.zxlog")],
                           env={"ZX_ANALYTICS": analytics})
    assert r.exit_code == 0, r.output
    app = create_app(store, analytics=analytics)
    app.state.backend.follow(interval=0.1, say=lambda text: None)
    return app, app.state.backend, store, time.monotonic() + CATCH_UP


def projected(b, before, deadline) -> None:
    """Wait until the follower has moved the file past ``before``."""
    while b.projection()[0] == before:
        assert time.monotonic() < deadline, "never projected"
        time.sleep(0.05)


def imported_meanwhile(b, store: str, before, deadline) -> None:
    """A second match imported into the store by zx import, and projected by the follower."""
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(LEGAL / "rules-fidelity.zxlog")])
    assert r.exit_code == 0, r.output
    projected(b, before, deadline)


def test_under_follow_a_dashboard_is_answered_at_once_while_it_is_drawn_anew(tmp_path):
    """During an import each update of --follow made every dashboard visitor wait for a redraw (5-10 s at 25,000
    matches, QA round 37): the page drawn last is answered at once, its freshness line at its own position, while the
    new one is drawn in the background; the next request gets the new one."""
    from fastapi.testclient import TestClient

    app, b, store, deadline = following(tmp_path)
    with TestClient(app) as c:
        projected(b, None, deadline)
        first = c.get("/dashboard").text
        before = b.projection()[0]
        assert "1 match " in first and 'id="freshness"' not in first
        imported_meanwhile(b, store, before, deadline)
        answered = c.get("/dashboard").text
        assert "1 match " in answered, answered[:2000]  # the page drawn before, at once
        assert "This page was drawn before the analytics' latest update; a new one is being drawn." in answered
        while "2 matches" not in (page := c.get("/dashboard").text):  # drawn anew in the background
            assert time.monotonic() < deadline, "never drawn anew"
            time.sleep(0.05)
        assert 'id="freshness"' not in page


def test_the_background_drawings_never_turn_a_visitor_away(tmp_path):
    """One drawing a key, queued among the visitors: 31 kept dashboards re-opened after an update filled the queue
    (16), and a dashboard asked for the first time was refused "the server is busy" (QA round 37). One background
    drawing at a time, never counted among the visitors waiting their turn."""
    from fastapi.testclient import TestClient

    app, b, store, deadline = following(tmp_path)
    with TestClient(app) as c:
        projected(b, None, deadline)
        kept = [c.get("/dashboard", params={"min_games": n}) for n in range(1, 21)]
        assert {k.status_code for k in kept} == {200}
        before = b.projection()[0]
        imported_meanwhile(b, store, before, deadline)
        again = [c.get("/dashboard", params={"min_games": n}) for n in range(1, 21)]
        assert {a.status_code for a in again} == {200} and len(b.redrawing) <= 1
        new = c.get("/dashboard", params={"min_games": 99})
        assert new.status_code == 200, new.text[:300]
