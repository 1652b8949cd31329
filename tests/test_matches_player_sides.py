"""The match list seen from a player's side, after QA round 36: a match with a player of that name on both seats
is both his sides (a row each: a win and a loss, as zx stats counts it; it showed P1's alone, "won"); a name the
list folds over several spellings says so (zx stats takes each as written: the list counted 13 where the stats
counted 10); sorted by date, a narrow table keeps the date; a seat word typed in full width is the seat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
RANGE = ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog"  # P2 wins by life
MATCHES = {  # match: (played_at, P1, P2)
    "self": ("2026-08-03T10:00:00+09:00", "Kai Tan", "Kai Tan"),
    "upper": ("2026-08-02T23:30:00-05:00", "KAI TAN", "Mio Sato"),
    "wide": ("2026-08-04T09:00:00+09:00", "Mio Sato", "Ｋａｉ Ｔａｎ"),
    "named-p2": ("2026-08-01T09:00:00+09:00", "P2", "Mio Sato"),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("sides")
    lines = RANGE.read_text(encoding="utf-8").splitlines()
    logs = []
    for match, (played_at, p1, p2) in MATCHES.items():
        header = json.loads(lines[0])
        header.update(match=match, played_at=played_at)
        header["players"]["P1"]["name"], header["players"]["P2"]["name"] = p1, p2
        logs.append(folder / f"{match}.zxlog")
        logs[-1].write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(folder / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", *map(str, logs)])
    assert r.exit_code == 0, r.output
    return store


def listed(store: str, *args: str) -> list[dict]:
    r = CliRunner().invoke(zx, ["--store", store, "matches", *args, "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_a_match_with_the_player_on_both_seats_is_both_his_sides(store):
    got = [(m["match"], m["seat"], m["result"]) for m in listed(store, "--player", "Kai Tan", "--opponent", "Kai Tan")]
    assert got == [("self", "P1", "lost"), ("self", "P2", "won")]
    r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates", "--by", "player", "--player", "Kai Tan",
                                "--opponent", "Kai Tan", "--min-games", "1", "--format", "json"])
    (row,) = json.loads(r.stdout)
    assert (row["games"], row["wins"]) == (2, 1)  # (zx stats: the same two sides)


def test_a_name_matching_several_spellings_says_so(store):
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--player", "kai tan"])
    assert r.exit_code == 0, r.output
    assert "note: --player 'kai tan' matches 3 spellings of the name ('KAI TAN', 'Kai Tan', 'Ｋａｉ Ｔａｎ'): zx " \
           "stats counts each apart, as written" in r.stderr, r.stderr
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--player", "Mio Sato"])
    assert "spellings" not in r.stderr


def test_sorted_by_date_a_narrow_table_keeps_the_date(store):
    for args in ((), ("--player", "Mio Sato")):
        r = CliRunner().invoke(zx, ["--store", store, "matches", *args, "--sort", "newest"], env={"COLUMNS": "80"},
                               terminal_width=80)
        head = next(ln for ln in r.stdout.splitlines() if "match" in ln)
        assert "played_at" in head, r.stdout


def test_a_seat_word_in_full_width_is_the_seat(store):
    """`--as Ｐ２` (a Japanese keyboard in full width) was read as a name: in a match where the player named "P2"
    sits at P1, the opposite seat opened."""
    r = CliRunner().invoke(zx, ["--store", store, "replay", "named-p2", "--as", "Ｐ２", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["perspective"] == "P2"


def test_an_opponent_matching_several_spellings_says_so_too(store):
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--opponent", "KAI TAN"])
    assert r.exit_code == 0, r.output
    assert "note: --opponent 'KAI TAN' matches 3 spellings of the name" in r.stderr, r.stderr


def test_a_filtered_export_of_several_spellings_says_so_and_its_dictionary_too(store, tmp_path):
    """zx export --opponent NAME selects what zx matches lists (names folded), and said nothing of the spellings
    it merged, where zx stats counts each apart (QA round 36)."""
    out = tmp_path / "exp"
    r = CliRunner().invoke(zx, ["--store", store, "export", "--parquet", str(out), "--opponent", "KAI TAN"])
    assert r.exit_code == 0, r.output
    note = "--opponent 'KAI TAN' matches 3 spellings of the name ('KAI TAN', 'Kai Tan', 'Ｋａｉ Ｔａｎ'): zx stats " \
           "counts each apart, as written"
    assert f"note: {note}" in r.stderr, r.stderr
    assert f"Note: {note}." in (out / "data-dictionary.md").read_text(encoding="utf-8")


def test_the_served_list_says_so_too(store):
    """The /matches page folds names as zx matches does: a player or opponent standing for several spellings is said
    above the list (the statistics and the dashboard count each apart), as the names are shown there."""
    import html

    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    with TestClient(create_app(store)) as c:
        page = html.unescape(c.get("/matches", params={"opponent": "kai tan"}, headers={"Accept": "text/html"}).text)
        assert 'id="spellings-opponent"' in page and "matches 3 spellings of the name (KAI TAN, Kai Tan, Ｋａｉ Ｔａｎ)" \
            in page, page[:3000]
        page = c.get("/matches", params={"player": "Mio Sato"}, headers={"Accept": "text/html"}).text
        assert "spellings" not in page


@pytest.mark.parametrize("args", [["matches", "--opponent", ""], ["matches", "--player", "  "],
                                  ["stats", "winrates", "--opponent", ""], ["stats", "winrates", "--deck", " "],
                                  ["export", "--parquet", "x", "--player", ""]])
def test_an_empty_name_is_a_usage_error_naming_its_option(store, args, tmp_path):
    """`--opponent ''` was no filter at all in zx matches and "no player named ''; did you mean ..." in zx stats
    (QA round 36): a usage error naming the option, nothing written."""
    r = CliRunner().invoke(zx, ["--store", store, *[str(tmp_path / a) if a == "x" else a for a in args]])
    option = next(a for a in args if a.startswith("--") and a != "--parquet")
    assert r.exit_code == 2 and f"Invalid value for '{option}'" in r.output and "is empty: give a name, or leave " \
        "the option out" in r.output, r.output
    assert not (tmp_path / "x").exists()


def test_the_served_lists_note_counts_the_spellings_of_the_matches_listed(store):
    """The page's note counted the spellings of every stored match (three where the list showed one: the others in
    matches the other filters left out): of the rows listed, as zx matches says it."""
    import html

    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    with TestClient(create_app(store)) as c:
        page = html.unescape(c.get("/matches", params={"player": "kai tan", "opponent": "Kai Tan"},
                                   headers={"Accept": "text/html"}).text)
        assert 'data-match="self"' in page and "spellings" not in page  # (the match "self" alone: one spelling)
        page = html.unescape(c.get("/matches", params={"player": "kai tan", "opponent": "Mio Sato"},
                                   headers={"Accept": "text/html"}).text)
        assert "matches 2 spellings of the name (KAI TAN, Ｋａｉ Ｔａｎ)" in page  # (of the two matches listed)


def test_with_limit_the_spellings_note_is_of_every_match_kept(store):
    """`--limit 1` counted the spellings of the one row shown (one: no note) where the filter matched three (QA round
    37): of every match the filters keep, as the record line."""
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--player", "kai tan", "--limit", "1"])
    assert r.exit_code == 0, r.output
    assert "note: --player 'kai tan' matches 3 spellings of the name" in r.stderr, r.stderr


def test_exact_takes_names_as_written_as_zx_stats_counts_them(store):
    """The list folds case and width, zx stats counts each spelling apart: `--exact` lists (and records) what zx stats
    counts (the README's record line promised zx stats' count; only the API had exact=1, QA round 37)."""
    folded_rows = listed(store, "--player", "Kai Tan")
    exact = listed(store, "--player", "Kai Tan", "--exact")
    assert {m["player"] for m in exact} == {"Kai Tan"} and len(exact) < len(folded_rows)
    r = CliRunner().invoke(zx, ["--store", store, "stats", "winrates", "--by", "player", "--player", "Kai Tan",
                                "--min-games", "1", "--format", "json"])
    (row,) = json.loads(r.stdout)
    assert row["games"] == sum(m["result"] in ("won", "lost", "draw") for m in exact)
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--player", "Kai Tan", "--exact"])
    assert f"of {row['games']} game" in r.stderr and "spellings" not in r.stderr, r.stderr


def test_a_filtered_export_with_exact_holds_what_zx_matches_exact_lists(store, tmp_path):
    """`zx export --exact` chooses as `zx matches --exact` does (names as written, as zx stats counts them): only
    `zx matches` had it (round 37's close)."""
    import polars as pl

    out = tmp_path / "exp"
    r = CliRunner().invoke(zx, ["--store", store, "export", "--parquet", str(out), "--opponent", "KAI TAN", "--exact"])
    assert r.exit_code == 0, r.output
    exported = sorted(pl.read_parquet(out / "matches" / "**" / "*.parquet")["match_id"].to_list())
    assert exported == sorted({m["match"] for m in listed(store, "--opponent", "KAI TAN", "--exact")}) == ["upper"]
    said = (out / "data-dictionary.md").read_text(encoding="utf-8")
    assert "`zx export --opponent 'KAI TAN' --exact`" in said and "spellings" not in said and "spellings" not in \
        r.stderr, (said[-500:], r.stderr)
