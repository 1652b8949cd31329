"""Catalog files handed to the analytics: ``zx analytics update --catalog FILE`` and ``zx import --catalog
FILE`` (docs/analytics.md, docs/data-dictionary.md "Archetypes").

A match checked against a catalog zx does not ship keeps the catalog's name and SHA-256 only, and the
projection never reads a file a stored name names (docs/security.md §5). So its colours were NULL and
its archetype ranked by copies then code: Red Dragons was ``unknown: R01-001 + R01-002``, its cheapest
filler, and X610Z's Mystic Rush ``unknown: A1-010 + A1-011``, its Energy Crystals. A file the user
gives is used for exactly the stored matches that pin its SHA-256: colours, card names and the
archetype's ranking by cost and Power are the file's.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from zx_analytics.tables import COLUMNS
from zx_cli.main import zx

# the custom catalogs: the shipped ones with one card made stronger (and renamed), so that it becomes
# a signature card of a sample deck
ZX_CHANGE = ("R01-011,Phoenix Ember Healer,Z/X,red,2,3500,",
             "R01-011,Phoenix Ember Matriarch,Z/X,red,2,4500,")  # Power 3500 -> 4500
X610Z_CHANGE = ("A1-024,Storm Caller,Summon,yes,M1C1,3,Mage,Air,,2,",
                "A1-024,Tempest Caller,Summon,yes,M1C1,3,Mage,Air,,4,")  # Attack Power 2 -> 4
CASES = {  # game: (shipped catalog file, change, simulate options, deck, its label under the file, without it)
    "zx": ("zx_events.games.zx.catalogs", "sample.csv", ZX_CHANGE, ["--decks", "Red Dragons", "--seed", "7"],
           "Red Dragons", "red: Volcanic Ruin Herald + Phoenix Ember Matriarch", "unknown: R01-001 + R01-002", "red"),
    "x610z": ("zx_events.games.x610z.catalogs", "x610z-sample.csv", X610Z_CHANGE,
              ["--game", "x610z", "--decks", "Mystic Rush,Boost Walkers", "--seed", "3"],
              "Mystic Rush", "M/B: Tempest Caller + Hunter Dragon", "unknown: A1-010 + A1-011", "M/B"),
}


def run(store: Path, *args: str):
    r = CliRunner().invoke(zx, ["--store", str(store), *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    return r


def custom_catalog(game: str, path: Path) -> Path:
    package, name, (old, new) = CASES[game][0], CASES[game][1], CASES[game][2]
    shipped = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    assert shipped.count(old) == 1
    path.write_text(shipped.replace(old, new), encoding="utf-8")
    return path


def rows(duck: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(duck), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def labels(duck: Path, deck: str) -> set[tuple]:
    """(colours, archetype) of every side that played ``deck``."""
    return set(rows(duck, f"SELECT colours, archetype FROM seats WHERE deck = '{deck}'"))


def dump(duck: Path) -> dict[str, list[tuple]]:
    """Every analytics table, its rows sorted."""
    return {t: sorted(rows(duck, f"SELECT * FROM {t}"), key=repr) for t in COLUMNS}


@pytest.mark.parametrize("game", list(CASES))
def test_a_catalog_file_gives_its_matches_colours_names_and_archetypes(tmp_path, game):
    _, _, _, sim_options, deck, right, fallback, colours = CASES[game]
    mine = custom_catalog(game, tmp_path / "my-cards.csv")
    sim = tmp_path / "sim"
    assert run(tmp_path / "unused.sqlite", "simulate", "-n", "2", *sim_options, "--out", str(sim)).exit_code == 0
    store, duck = tmp_path / "s.sqlite", tmp_path / "s.duckdb"

    # zx import --catalog FILE hands its catalog on to the analytics update it runs
    r = run(store, "import", "--catalog", str(mine), str(sim))
    assert r.exit_code == 0, r.output
    assert "zx does not ship" not in r.stderr
    assert labels(duck, deck) == {(colours, right)}
    assert rows(duck, "SELECT DISTINCT catalog FROM matches") == [("my-cards",)]
    new_name = CASES[game][2][1].split(",")[1]  # named by the file's names, in card_catalog too
    assert rows(duck, f"SELECT catalog FROM card_catalog WHERE name = '{new_name}'") == [("my-cards",)]
    with_file = dump(duck)

    # without the file the matches' cards are unknown: a note says so and what to do
    r = run(store, "analytics", "update", "--rebuild")
    assert r.exit_code == 0, r.output
    sha = hashlib.sha256(mine.read_bytes()).hexdigest()  # what the import pinned
    assert r.stderr.splitlines()[-1] == (
        f"note: 2 matches were checked against catalog my-cards (sha256 {sha[:8]}…), which zx does not ship: "
        f"their colours and archetypes are unknown/by code; pass --catalog FILE to zx analytics update --rebuild")
    assert labels(duck, deck) == {(None, fallback)}
    assert rows(duck, "SELECT count(*) FROM card_catalog") == [(0,)]

    # an update with the file keeps the rows already projected (nothing to project: no note either) ...
    r = run(store, "analytics", "update", "--catalog", str(mine))
    assert r.exit_code == 0 and "note" not in r.stderr, r.output
    assert labels(duck, deck) == {(None, fallback)}

    # ... --rebuild --catalog makes them right, matched by content: a copy under another name, among
    # catalogs that match no stored match (the other game's, a shipped one), serially or in workers
    copy = tmp_path / "renamed.csv"
    copy.write_bytes(mine.read_bytes())
    other = custom_catalog("x610z" if game == "zx" else "zx", tmp_path / "other.csv")
    for workers in ("1", "2"):
        r = run(store, "analytics", "update", "--rebuild", "--workers", workers, "--catalog", str(other),
                "--catalog", str(copy), "--catalog", "sample", "--format", "json")
        assert r.exit_code == 0, r.output
        assert r.stderr.count("note") == 0, r.stderr
        assert f'"workers": {0 if workers == "1" else 2}' in r.stdout
        assert dump(duck) == with_file


def test_a_bad_catalog_file_is_an_error_before_anything_is_projected(tmp_path):
    """A file that is not a catalog of any game, or no file: the import's own error (FILE:LINE), exit 1,
    and the analytics file is neither made nor changed."""
    store = tmp_path / "s.sqlite"
    log = Path(__file__).resolve().parent.parent / "examples" / "legal" / "first-turns.zxlog"
    assert run(store, "import", "--no-analytics", str(log)).exit_code == 0
    bad = tmp_path / "bad.csv"
    bad.write_text("code,name,type,color,cost,power,race,icons,keywords\nR01-001,X,Z/X,purple,1,1000,,,\n",
                   encoding="utf-8")
    r = run(store, "analytics", "update", "--catalog", str(bad))
    assert r.exit_code == 1
    assert r.stderr == f"Error: {bad}:2: format: R01-001: unknown colour 'purple' (one of red, blue, white, black, " \
                       f"green or none) (shipped catalogs by game: zx: sample; x610z: x610z-sample)\n"
    r2 = run(store, "analytics", "update", "--catalog", str(tmp_path / "missing.csv"))
    assert r2.exit_code == 1 and "missing.csv" in r2.stderr and "no such file" in r2.stderr, r2.stderr
    assert not (tmp_path / "s.duckdb").exists()


def test_two_catalog_files_of_one_name_each_keep_their_own_card_names(tmp_path):
    """Two catalog files named alike (a/my-cards.csv, b/my-cards.csv) with other content: each match's
    archetype used its own file, but card_catalog kept the first file's rows alone under that name (its
    key was the name), so the second file's card names were nowhere. The key is the content too
    (catalog_sha256, schema 8): each file's rows, with its own names, serially or in workers."""
    _, _, (old, new), sim_options, deck, right, _, colours = CASES["zx"]
    other_new = new.replace("Phoenix Ember Matriarch", "Phoenix Ember Empress")
    first = custom_catalog("zx", (tmp_path / "a").mkdir() or tmp_path / "a" / "my-cards.csv")
    second = tmp_path / "b" / "my-cards.csv"
    second.parent.mkdir()
    second.write_text(first.read_text(encoding="utf-8").replace(new, other_new), encoding="utf-8")
    sim = tmp_path / "sim"
    assert run(tmp_path / "unused.sqlite", "simulate", "-n", "2", *sim_options, "--out", str(sim)).exit_code == 0
    one, two = sorted(sim.iterdir())
    store, duck = tmp_path / "s.sqlite", tmp_path / "s.duckdb"
    assert run(store, "import", "--catalog", str(first), str(one)).exit_code == 0
    r = run(store, "import", "--catalog", str(second), str(two))
    assert r.exit_code == 0 and "zx does not ship" not in r.stderr, r.output
    shas = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (first, second)}
    want = [("my-cards", shas[first], "Phoenix Ember Matriarch"), ("my-cards", shas[second], "Phoenix Ember Empress")]
    names = "SELECT catalog, name FROM card_catalog WHERE code = 'R01-011' ORDER BY name DESC"
    assert rows(duck, names) == [(c, n) for c, _, n in want]  # (before: the first file's row alone)
    got = "SELECT catalog, catalog_sha256, name FROM card_catalog WHERE code = 'R01-011' ORDER BY name DESC"
    assert rows(duck, got) == want
    assert rows(duck, "SELECT count(*) FROM card_catalog") == [(2 * rows(duck, "SELECT count(DISTINCT code) "
                                                                             "FROM card_catalog")[0][0],)]
    assert labels(duck, deck) == {(colours, right), (colours, right.replace("Matriarch", "Empress"))}
    # each match joins its own file's rows (matches.catalog_sha256): the name alone gave both files' rows
    own = ("SELECT m.match_id, c.name FROM matches m JOIN card_catalog c USING (catalog, catalog_sha256) "
           "WHERE c.code = 'R01-011' ORDER BY m.match_id")
    assert rows(duck, own) == [(one.stem, "Phoenix Ember Matriarch"), (two.stem, "Phoenix Ember Empress")]
    imported = dump(duck)
    for workers in ("1", "2"):
        r = run(store, "analytics", "update", "--rebuild", "--workers", workers, "--catalog", str(second),
                "--catalog", str(first))
        assert r.exit_code == 0 and "note" not in r.stderr, r.output
        assert dump(duck) == imported


def test_stats_cards_names_a_code_by_every_name_its_catalogs_give_it_the_same_every_run(tmp_path):
    """Two catalogs that name one code differently (a catalog and a later edition, here two files given
    with --catalog): zx stats cards took the card's name with any_value across them, so the name shown
    was either, and could change between runs. It is every name, each once, in alphabetical order,
    joined by ' / ' (docs/data-dictionary.md, card_catalog), for a code and for a card asked by a name
    of several codes (a reprint: R01-003 and R01-019)."""
    _, _, (_, new), sim_options, *_ = CASES["zx"]
    first = custom_catalog("zx", tmp_path / "my-cards.csv")  # R01-011 Phoenix Ember Matriarch
    second = tmp_path / "my-cards-2nd-edition.csv"  # R01-011 Phoenix Ember Empress, R01-003 and R01-012 renamed
    text = first.read_text(encoding="utf-8").replace(new, new.replace("Matriarch", "Empress"))
    for code, name in (("R01-003", "Crimson Drake Vanguard"), ("R01-012", "Volcanic Ruin Herald")):
        text = text.replace(f"{code},{name},", f"{code},{name} II,")
    second.write_text(text, encoding="utf-8")
    sim = tmp_path / "sim"
    assert run(tmp_path / "unused.sqlite", "simulate", "-n", "2", *sim_options, "--out", str(sim)).exit_code == 0
    one, two = sorted(sim.iterdir())
    store = tmp_path / "s.sqlite"
    assert run(store, "import", "--catalog", str(first), str(one)).exit_code == 0
    assert run(store, "import", "--catalog", str(second), str(two)).exit_code == 0

    def names(*args: str) -> dict[str, str]:
        r = run(store, "stats", "cards", "--format", "json", *args)
        assert r.exit_code == 0, r.output
        return {row["card"]: row["name"] for row in json.loads(r.stdout)}

    for _ in range(2):
        every = names()
        assert every["R01-011"] == "Phoenix Ember Empress / Phoenix Ember Matriarch"
        assert every["R01-003"] == "Crimson Drake Vanguard / Crimson Drake Vanguard II"
        assert every["R01-001"] == "Ember Whelp Scout"  # one name in both: itself
        assert names("--card", "R01-011") == {"R01-011": "Phoenix Ember Empress / Phoenix Ember Matriarch"}
        assert names("--card", "crimson drake vanguard") == {
            "R01-003/R01-019": "Crimson Drake Vanguard / Crimson Drake Vanguard II"}
        r = run(store, "stats", "attacks", "--format", "json")  # (names by attacker card too)
        attackers = {row["card"]: row["name"] for row in json.loads(r.stdout)}
        assert attackers["R01-012"] == "Volcanic Ruin Herald / Volcanic Ruin Herald II", attackers
