"""A catalog file whose rows the rules rule out (402.4, 402.5, an Energy Crystal with a Summon's columns) is refused
by zx import at FILE:LINE, nothing stored; a match stored before that check, checked against such a file, still
replays: a stored match never makes zx read a catalog file (QA round 28, formats 6)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parents[3]
LOG = ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog"


def _impossible(tmp_path: Path) -> Path:
    text = resources.files("zx_events.games.x610z").joinpath("catalogs", "x610z-sample.csv").read_text(encoding="utf-8")
    text = text.replace("A1-020,Hunter Dragon,Summon,yes,M2,3,Dragon,Fire,", "A1-020,Hunter Dragon,Summon,yes,M2,3,Dragon,,")
    p = tmp_path / "impossible.csv"
    p.write_text(text, encoding="utf-8")
    return p


def _run(store: Path, *args: str):
    return CliRunner().invoke(zx, ["--store", str(store), *args])


def test_402_4_zx_import_refuses_the_catalog_at_file_line_nothing_stored(tmp_path):
    cat = _impossible(tmp_path)
    store = tmp_path / "s.sqlite"
    r = _run(store, "import", "--no-analytics", "--catalog", str(cat), str(LOG))
    assert r.exit_code == 1, r.output
    assert r.output.startswith(f"Error: {cat}:8: format: A1-020: a summon that is no Life Base has an Element (402.4): "
                               "the element column is empty (class Dragon)"), r.output
    assert not store.exists()


def test_402_4_a_match_stored_with_such_a_catalog_before_the_check_still_replays(tmp_path, monkeypatch):
    """Imported as an earlier version did (the row checks off), then replayed and audited with today's: replay reads
    no catalog file (the pinned name is not shipped: cards by code, a warning), so it works as before."""
    from zx_events.games.x610z import cards

    cat = _impossible(tmp_path)
    store = tmp_path / "s.sqlite"
    with monkeypatch.context() as m:
        m.setattr(cards, "_rules_of_row", lambda v, label: None)
        r = _run(store, "import", "--no-analytics", "--catalog", str(cat), str(LOG))
        assert r.exit_code == 0, r.output
    match = json.loads(LOG.read_text(encoding="utf-8").splitlines()[0])["match"]
    r = _run(store, "replay", match, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)
    r = _run(store, "verify", match)
    assert r.exit_code == 0, r.output
