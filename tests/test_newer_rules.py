"""A store taken back to an older zx: a match imported under rules newer than this zx knows is not replayed as if
it were older (its state's own handlers are gated on the version a match was imported under: an older build, not
knowing digest.5, replayed an Event moved out of Temporary into hand as also in Trash, in silence). Replay, view and
zx serve refuse it, naming both versions; verify and the match list still read it."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_events import games

ROOT = Path(__file__).resolve().parent.parent
LOGS = {"zx": (ROOT / "examples" / "legal" / "first-turns.zxlog", "hand-first-turns-001"),
        "x610z": (ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog", None)}


def stored_under_newer_rules(tmp_path: Path, game: str, monkeypatch) -> tuple[Path, str, str]:
    """A store holding one match imported by a zx whose rules were one digest ahead of this one's."""
    own = games.get(game).rules_version
    head, _, n = own.rpartition("+digest.")
    newer = f"{head}+digest.{int(n) + 1}"
    setup = importlib.import_module(f"zx_events.games.{game}.setup")
    monkeypatch.setattr(setup, "RULES_VERSION", newer)
    monkeypatch.setattr(type(games.get(game)), "rules_version", newer)
    log, match_id = LOGS[game]
    match_id = match_id or json.loads(log.read_text(encoding="utf-8").splitlines()[0])["match"]
    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
    monkeypatch.undo()
    assert games.get(game).rules_version == own
    return store, match_id, newer


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_a_match_of_newer_rules_is_refused_by_replay_view_and_serve_and_still_verified(tmp_path, monkeypatch, game):
    store, match_id, newer = stored_under_newer_rules(tmp_path, game, monkeypatch)
    own = games.get(game).rules_version
    said = (f"match {match_id!r} was imported under rules {newer}, newer than this zx knows ({own}): it is replayed "
            f"only by a zx that knows them (upgrade zx; docs/deployment.md, Upgrading)")
    for args in (["replay", match_id], ["replay", match_id, "--format", "json"], ["view", match_id, "-o",
                                                                                  str(tmp_path / "v.html")]):
        r = CliRunner().invoke(zx, ["--store", str(store), *args])
        assert r.exit_code == 1 and said in r.output, r.output
    assert not (tmp_path / "v.html").exists()
    r = CliRunner().invoke(zx, ["--store", str(store), "verify"])
    assert r.exit_code == 0 and "1 intact, 0 failed" in r.output, r.output
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", "--format", "json"])
    assert r.exit_code == 0 and [m["match"] for m in json.loads(r.stdout)] == [match_id]
    from zx_web.app import create_app

    with TestClient(create_app(str(store))) as client:
        for path in (f"/api/matches/{match_id}/view?at=1", f"/api/matches/{match_id}/steps"):
            answer = client.get(path)
            assert answer.status_code == 409 and answer.json()["error"] == said, answer.text
        page = client.get(f"/matches/{match_id}/replay", headers={"accept": "text/html"})
        assert page.status_code == 409 and "newer than this zx knows" in page.text


def test_the_current_rules_and_older_ones_replay():
    """known_rules lets every version up to the game's own through (the 0.1.0 store's have no digest at all)."""
    for game in ("zx", "x610z"):
        own = games.get(game).rules_version
        for version in (own, own.rpartition("+digest.")[0] + "+digest.1", own.rpartition("+")[0], None):
            games.known_rules(game, "m", version)


def test_zx_prepare_counts_a_match_of_newer_rules_apart_from_damaged_ones(tmp_path, monkeypatch):
    """zx prepare counted it "damaged" (zx verify passes it: it is intact, refused on purpose)."""
    store, match_id, newer = stored_under_newer_rules(tmp_path, "zx", monkeypatch)
    r = CliRunner().invoke(zx, ["--store", str(store), "prepare", "--format", "json"])
    assert r.exit_code == 1 and f"{match_id}: match {match_id!r} was imported under rules {newer}" in r.stderr
    (row,) = json.loads(r.stdout)
    assert (row["damaged"], row["newer_rules"], row["up_to_date"], row["prepared"]) == (0, 1, 0, 0), row
