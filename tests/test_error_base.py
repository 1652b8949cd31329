"""One base for every error zx raises for what it was given or found (API nit carried from round 34: a script
calling zx_events and zx_analytics needed ``except (ZXError, AnalyticsError, UnknownName, NotThisGame)``, their
only common base ``Exception``): ``zx_events.errors.Error``. Each real error below is caught by it."""

from __future__ import annotations

from pathlib import Path

import pytest

from zx_events.errors import Error, ZXError

ROOT = Path(__file__).resolve().parent.parent


def test_a_malformed_log_is_an_error_and_still_a_value_error(tmp_path):
    from zx_events.logformat.reader import read_log

    bad = tmp_path / "bad.zxlog"
    bad.write_text('{"kind": "header"\n', encoding="utf-8")
    (log,) = read_log(bad)
    assert isinstance(log.error, Error) and isinstance(log.error, ValueError) and isinstance(log.error, ZXError)
    assert "bad.zxlog:1" in str(log.error)


def test_an_analytics_file_that_is_not_there_is_an_error(tmp_path):
    from zx_analytics.db import AnalyticsError
    from zx_analytics.stats import Stats

    with pytest.raises(Error) as info:
        Stats(str(tmp_path / "none.duckdb"))
    assert isinstance(info.value, AnalyticsError) and "no analytics file" in str(info.value)


def test_an_unknown_match_of_a_store_is_an_error(tmp_path):
    from zx_events.application import MatchService
    from zx_events.replay import state_at

    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        with pytest.raises(Error, match="unknown match"):
            state_at(svc, "no-such-match")
    finally:
        svc.close()


@pytest.fixture(scope="module")
def analytics(tmp_path_factory) -> str:
    """An analytics file of the Z/X examples."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    folder = tmp_path_factory.mktemp("error-base")
    r = CliRunner().invoke(zx, ["--store", str(folder / "s.sqlite"), "import", str(ROOT / "examples" / "legal")])
    assert r.exit_code == 0, r.output
    return str(folder / "s.duckdb")


def test_an_unknown_player_and_another_games_statistic_are_errors(analytics):
    from zx_analytics.stats import NotThisGame, Stats, UnknownName

    with Stats(analytics) as st:
        with pytest.raises(Error) as info:
            st.winrates(player="nobody-at-all")
        assert isinstance(info.value, UnknownName) and isinstance(info.value, ValueError)
        with pytest.raises(Error) as info:
            st.attacks(game="x610z")
        assert isinstance(info.value, NotThisGame) and "only zx fills" in str(info.value), info.value


def test_a_bad_seat_or_arguments_of_a_view_are_errors(analytics, tmp_path):
    """A script's bad argument (a seat no seat word names, seq and turn both, a page of no seat) was a bare
    ValueError, or the viewer's own: each is an Error, and a ValueError as before (QA round 36)."""
    from zx_events import replay
    from zx_events.application import MatchService
    from zx_web.viewer import viewer_html

    store = analytics.replace(".duckdb", ".sqlite")
    svc = MatchService(store, create=False)
    try:
        match = svc.summaries()[0]["match"]
        for call in (lambda: replay.view_at(svc, match, perspective="Mio"),
                     lambda: replay.view_at(svc, match, seq=2, turn=1),
                     lambda: viewer_html(svc, match, ["bogus"]), lambda: viewer_html(svc, match, [])):
            with pytest.raises(Error) as info:
                call()
            assert isinstance(info.value, ValueError)
    finally:
        svc.close()
