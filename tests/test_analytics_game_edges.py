"""Statistics at the edges of what a header or a game holds (QA, 2026-11-28)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent


def _zx(store: Path, *args: str):
    r = CliRunner().invoke(zx, ["--store", str(store), *args])
    assert r.exit_code == 0, r.output
    return r


def test_a_deck_named_empty_is_a_deck_without_a_name_not_a_mirror(tmp_path):
    """Two matches of different decks, each side's ``deck_name`` written "" (the schema allows it): every match was
    taken for a mirror (the same deck name on both sides) and left out of win rates and matchups, which printed
    nothing; a deck without a name is ``(no name)``, one group, never a mirror (docs/data-dictionary.md)."""
    store = tmp_path / "s.sqlite"
    _zx(store, "import", str(ROOT / "tests" / "data" / "zx-empty-deck-names.zxlog"))
    rates = json.loads(_zx(store, "stats", "winrates", "--min-games", "1", "--format", "json").stdout)
    assert [(r["deck"], r["games"], r["wins"]) for r in rates] == [("(no name)", 4, 2)]
    pairs = json.loads(_zx(store, "stats", "matchups", "--min-games", "1", "--format", "json").stdout)
    assert [(r["deck"], r["opponent"], r["games"]) for r in pairs] == [("(no name)", "(no name)", 4)]


def test_x610z_life_statistics_give_no_ignition_rate(tmp_path):
    """X610Z has no Ignition (its seats' life_ignitions are always 0): ``zx stats life`` said 0.0% (0.0-3.7), an
    interval as if measured. Its Ignition columns are null, Z/X's as before."""
    store = tmp_path / "s.sqlite"
    _zx(store, "import", *map(str, sorted((ROOT / "examples" / "x610z" / "legal").glob("*.x610zlog"))),
        str(ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog"))
    x6 = json.loads(_zx(store, "stats", "life", "--game", "x610z", "--format", "json").stdout)
    assert x6 and all(r["damage"] is not None for r in x6)
    assert all(r[k] is None for r in x6 for k in r if k.startswith("ignition")), x6
    both = json.loads(_zx(store, "stats", "life", "--format", "json").stdout)
    assert {r["game"] for r in both} == {"zx", "x610z"}
    assert all((r["ignitions"] is None) == (r["game"] == "x610z") for r in both), both  # (Z/X: counted, 0 here)
    assert any(r["game"] == "zx" and r["ignition_rate"] is not None for r in both), both


def test_an_empty_table_of_matches_that_all_stop_before_their_end_says_so(tmp_path):
    """A file of matches none of which has a result (each log stops before its end) said "no rows: the analytics
    file has no matches for this yet", as if the import or the update had failed."""
    lines = (ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog").read_text(encoding="utf-8").splitlines()
    log = tmp_path / "cut.zxlog"
    log.write_text("\n".join(lines[:40]) + "\n", encoding="utf-8")
    store = tmp_path / "s.sqlite"
    _zx(store, "import", str(log))
    for method in ("winrates", "cards", "matchups"):
        r = _zx(store, "stats", method, "--format", "csv")
        assert len(r.stdout.splitlines()) == 1  # (the header)
        assert r.stderr.strip() == (f"no rows: the one match in the analytics file has no result (its log stops "
                                    f"before its end), and {method} count finished matches only"), r.stderr


def test_a_statistic_of_a_store_that_is_not_there_advises_the_import(tmp_path, monkeypatch):
    """With neither the store nor its analytics file there, ``zx stats`` advised `zx analytics update`, which then said
    "there is no store at ...": the advice is the import, which makes both; nothing is created."""
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(zx, ["--store", "none.sqlite", "stats", "winrates"])
    assert r.exit_code == 1
    assert r.output.strip() == ("Error: no analytics file at none.duckdb, and no store at none.sqlite: import logs "
                                "first (`zx --store none.sqlite import LOGS` makes both)"), r.output
    assert list(tmp_path.iterdir()) == []
