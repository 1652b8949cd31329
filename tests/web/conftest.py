"""Fixtures of the viewer tests: a SQLite store of simulated matches, and headless Chromium.

``viewer_store`` imports a few simulated matches (zx_events.games.zx.sim), some varied the way
tests/games/zx/test_views_leak.py varies them: notes that name cards, and a record after the end that the
engine refuses, stored as a violation (``--accept-violations``). ``browser`` is Debian's Chromium
driven by Selenium (zx_web/browser.py); without it the browser tests are skipped, unless ``CI`` is
set: then they fail, like the PostgreSQL tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pytest

from viewer_support import varied_log
from zx_events.application import MatchService
from zx_events.logformat.reader import parse_log


def in_ci() -> bool:
    import os

    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@dataclass
class ViewerStore:
    path: str  # a --store value
    matches: list[str]  # ids, in import order
    with_violation: str  # a match with a recorded violation
    source: str  # the file name the matches were imported from (must never reach a player's file)


CASES = [(14, "greedy", False, False), (12, "random", True, True), (13, "mixed", True, False),
         (14, "random", False, True), (16, "greedy", True, True), (15, "random", True, False)]  # 70-200 events


@pytest.fixture(scope="session")
def viewer_store(tmp_path_factory: pytest.TempPathFactory) -> ViewerStore:
    root = tmp_path_factory.mktemp("viewer-store")
    path = str(root / "events.sqlite")
    svc = MatchService(path)
    ids = []
    violation = None
    source = "secret-import-folder/viewer-case.zxlog"
    try:
        for seed, policy, notes, late in CASES:
            text, _ = varied_log(seed, policy, notes, late)
            (log,) = parse_log(text, source)
            out = svc.import_log(log, accept_violations=True)
            assert out.status == "imported", out.error
            ids.append(log.match_id)
            if late and out.violations and violation is None:
                violation = log.match_id
    finally:
        svc.close()
    assert violation is not None
    return ViewerStore(path, ids, violation, source)


def need_browser() -> None:
    """Skip the test where Chromium cannot run here; fail it in CI, where it must."""
    from zx_web.browser import missing

    why = missing()
    if why:
        if in_ci():
            pytest.fail(f"browser tests cannot run in CI: {why}", pytrace=False)
        pytest.skip(f"browser tests skipped: {why}")


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from zx_web.browser import chromium

    need_browser()
    with chromium() as driver:
        yield driver


@pytest.fixture
def page(browser) -> Iterator[object]:
    """The session's browser for one test: its emulated media and viewport put back afterwards, and the page left
    (the access tests of the served pages and of the viewer's files emulate print, a colour scheme, a width)."""
    yield browser
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.get("about:blank")


@pytest.fixture(scope="module")
def clients(store):
    """A server of the module's ``store`` (its path and analytics file) and a judge's server of it: two TestClients."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    path, analytics = store
    with TestClient(create_app(path, analytics=analytics)) as c, \
            TestClient(create_app(path, analytics=analytics, judge=True)) as j:
        yield c, j
