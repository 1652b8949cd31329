"""zx matches: filters by player, deck, event, date range, winner, violations, and --limit; unknown
names are errors that name the closest ones (hand-built matches of tests/analytics_support.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from analytics_support import imported_store
from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
INVALID = ROOT / "examples" / "invalid" / "202.7e-player-under-overboost.zxlog"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = imported_store(tmp_path_factory.mktemp("matches"), "--no-analytics")
    r = CliRunner().invoke(zx, ["--store", str(s), "import", "--no-analytics", "--accept-violations", str(INVALID)])
    assert r.exit_code == 0, r.output
    return s


def ids(store: Path, *args: str) -> list[str]:
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", *args, "--format", "json"])
    assert r.exit_code == 0, r.output
    return [m["match"] for m in json.loads(r.stdout)]


def test_filters(store):
    every = ids(store)
    assert every[:3] == ["m1", "m2", "m3"] and len(every) == 4
    assert ids(store, "--player", "mio") == ["m2"]  # any case, either side
    assert ids(store, "--deck", "Blue Control", "--event", "Cup") == ["m2"]
    assert ids(store, "--since", "2026-11-01", "--until", "2026-11-30") == ["m1", every[3]]  # m3 has no date
    assert ids(store, "--since", "2026-11-02") == ["m2"]
    assert ids(store, "--winner", "P1") == ["m1"]
    assert ids(store, "--winner", "Ren") == ["m2"]  # the matches Ren won
    assert "m3" in ids(store, "--winner", "none")  # no result recorded
    assert ids(store, "--violations") == [every[3]]
    assert ids(store, "--limit", "2") == ["m1", "m2"]
    assert ids(store, "--player", "Aki", "--limit", "1") == ["m1"]


def test_nothing_matches_known_names(store):
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", "--player", "Mio", "--winner", "Aki"])
    assert r.exit_code == 0 and "no stored match matches these filters" in r.output


@pytest.mark.parametrize("args,message", [
    (["--player", "Akki"], "Error: no player named 'Akki' in the store; did you mean 'Aki'?"),
    (["--deck", "Red Dragon"], "Error: no deck named 'Red Dragon' in the store; did you mean 'Red Dragons'?"),
    (["--event", "Cupp"], "Error: no event named 'Cupp' in the store; did you mean 'Cup'?"),
    (["--winner", "Renn"], "Error: no player named 'Renn' in the store; did you mean 'Ren'?"),
])
def test_unknown_names_are_errors(store, args, message):
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", *args])
    assert r.exit_code == 1 and r.output.strip() == message


def test_bad_options_are_usage_errors(store):
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", "--since", "2026-13-01"])
    assert r.exit_code == 2 and "Invalid value for '--since': '2026-13-01' is not a date (YYYY-MM-DD)" in r.output
    r = CliRunner().invoke(zx, ["--store", str(store), "matches", "--limit", "0"])
    assert r.exit_code == 2
