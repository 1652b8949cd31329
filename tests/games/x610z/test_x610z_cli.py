"""X610Z through the product: the zx commands on a real store (SQLite file, or PostgreSQL) holding
matches of both games."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.application import MatchService

ROOT = Path(__file__).resolve().parents[3]
LEGAL = ROOT / "examples" / "x610z" / "legal"
INVALID = ROOT / "examples" / "x610z" / "invalid"
ZX_LEGAL = ROOT / "examples" / "legal"
SHARP = INVALID / "202.9-sharp-turn.x610zlog"
MATCH = "x610z-sim-7-0264"  # examples/x610z/legal/life-base-destroyed.x610zlog


def run(store: str, *args: str):
    return CliRunner().invoke(zx, ["--store", store, *args])


@pytest.fixture
def both(tmp_path) -> str:
    """A SQLite store with the X610Z legal examples and the Z/X legal examples (X610Z first)."""
    store = str(tmp_path / "s.sqlite")
    for folder in (LEGAL, ZX_LEGAL):
        r = run(store, "import", str(folder))
        assert r.exit_code == 0, r.output
    return store


def test_x610z_import_then_zx_import_share_one_store(both):
    rows = MatchService(both).summaries()
    games = {r["game"] for r in rows}
    assert games == {"x610z", "zx"}
    assert sum(r["game"] == "x610z" for r in rows) == len(list(LEGAL.glob("*.x610zlog")))


def test_x610z_strict_import_names_file_line_and_rule_and_stores_nothing(tmp_path):
    store = str(tmp_path / "s.sqlite")
    r = run(store, "import", str(SHARP))
    assert r.exit_code == 1
    assert f"{SHARP}:11: rule 202.9: sharp turn at A1: B1 > A1 > A2 is 60 degrees (under 90)" in r.output
    assert "Traceback" not in r.output
    assert MatchService(store).summaries() == []
    ok = run(store, "import", "--accept-violations", str(SHARP))
    assert ok.exit_code == 0, ok.output
    (row,) = MatchService(store).summaries()
    assert (row["game"], row["violations"]) == ("x610z", 1)


def test_x610z_matches_game_filter(both):
    r = run(both, "matches", "--game", "x610z", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert rows and {x["game"] for x in rows} == {"x610z"}
    zx_rows = json.loads(run(both, "matches", "--game", "zx", "--format", "json").stdout)
    assert zx_rows and {x["game"] for x in zx_rows} == {"zx"}
    bad = run(both, "matches", "--game", "chess")
    assert bad.exit_code == 2 and "unknown game 'chess'" in bad.output


def test_x610z_audit_bundle_carries_the_log_under_its_own_suffix(tmp_path):
    store = str(tmp_path / "s.sqlite")
    assert run(store, "import", "--accept-violations", str(SHARP)).exit_code == 0
    bundle = tmp_path / "d.zip"
    r = run(store, "audit", "x610z-invalid-202.9-sharp-turn", "--bundle", str(bundle))
    assert r.exit_code == 1 and "202.9" in r.output  # a violation: exit 1
    names = zipfile.ZipFile(bundle).namelist()
    assert "original.x610zlog" in names and "violation-01/state-before.json" in names
    readme = zipfile.ZipFile(bundle).read("README.txt").decode()
    assert "zx audit original.x610zlog" in readme
    original = tmp_path / "original.x610zlog"
    original.write_bytes(zipfile.ZipFile(bundle).read("original.x610zlog"))
    again = run(store, "audit", str(original), "--format", "json")
    (found,) = [json.loads(line) for line in again.stdout.splitlines()]
    assert found["game"] == "x610z" and [v["rule"] for v in found["violations"]] == ["202.9"]


def test_x610z_verify(both):
    r = run(both, "verify", MATCH)
    assert r.exit_code == 0, r.output
    assert "1 intact, 0 failed" in r.output


def as_json(r) -> list[dict]:
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_x610z_stats_never_mix_games(both):
    mixed = as_json(run(both, "stats", "winrates", "--format", "json", "--min-games", "1"))
    assert {r["game"] for r in mixed} == {"x610z", "zx"}
    for game in ("x610z", "zx"):
        alone = as_json(run(both, "stats", "winrates", "--game", game, "--format", "json", "--min-games", "1"))
        assert alone == [{k: v for k, v in r.items() if k != "game"} for r in mixed if r["game"] == game]
    x = as_json(run(both, "stats", "mulligans", "--game", "x610z", "--format", "json"))
    assert {r["hand_size"] for r in x} == {7}  # 105.3a: seven cards (Z/X deals four)
    refused = run(both, "stats", "attacks", "--game", "x610z")
    assert refused.exit_code == 1
    assert "only zx fills" in refused.output and "x610z_attacks" in refused.output
    attacks = as_json(run(both, "stats", "attacks", "--format", "json", "--min-games", "1"))
    assert attacks and "game" not in attacks[0]  # Z/X's attacks table: Z/X only


def test_x610z_sql_game_filter(both):
    q = "SELECT (SELECT string_agg(DISTINCT game, ',') FROM matches) AS games, " \
        "(SELECT count(*) FROM x610z_attacks) AS attacks, (SELECT count(*) FROM filtered_seats(NULL, NULL, NULL, NULL, NULL)) AS seats"
    (x,) = as_json(run(both, "sql", "--game", "x610z", q, "--format", "json"))
    (z,) = as_json(run(both, "sql", "--game", "zx", q, "--format", "json"))
    (a,) = as_json(run(both, "sql", q, "--format", "json"))
    assert x["games"] == "x610z" and z["games"] == "zx" and sorted(a["games"].split(",")) == ["x610z", "zx"]
    assert x["attacks"] == a["attacks"] > 0 and z["attacks"] == 0
    assert x["seats"] + z["seats"] == a["seats"] and x["seats"] == 6
    bad = run(both, "sql", "--game", "chess", "SELECT 1")
    assert bad.exit_code == 2 and "Invalid value for '--game': unknown game 'chess'" in bad.output


def test_replay_json_names_the_match_alike_in_both_games(both):
    """``zx replay --format json`` named the match ``match_id`` for Z/X and ``match`` for X610Z: one
    key, ``match_id`` (as the analytics tables), for both, in the state and in each step's state."""
    zx_match = next(r["match"] for r in MatchService(both).summaries() if r["game"] == "zx")
    for match in (MATCH, zx_match):
        state = json.loads(run(both, "replay", match, "--format", "json").stdout)
        assert state["match_id"] == match and "match" not in state, match
        steps = [json.loads(x) for x in run(both, "replay", match, "--to", "3", "--format", "json").stdout.splitlines()]
        assert steps and all(s["state"]["match_id"] == match for s in steps)


@pytest.mark.parametrize("seat", ["p1", "p2", "spectator", "judge"])
def test_x610z_replay_from_every_seat_hides_hands_and_deck_order(both, seat):
    state = json.loads(run(both, "replay", MATCH, "--turn", "6", "--as", seat, "--format", "json").stdout)
    for pl, p in state["players"].items():
        shown = seat == "judge" or seat == pl.lower()
        assert (p["hand"] is not None) == shown and p["hand_count"] > 0
        assert p["deck_count"] > 0
        # the deck's cards: the judge's only, sorted (no order is kept)
        if seat == "judge":
            assert p["deck"] == sorted(p["deck"]) and len(p["deck"]) == p["deck_count"]
        else:
            assert p["deck"] is None
    table = run(both, "replay", MATCH, "--turn", "6", "--as", seat)
    assert table.exit_code == 0 and "dots: Starting S1" in table.output  # the board drawing
    for pl in ("P1", "P2"):
        hidden_line = f"  Hand: {state['players'][pl]['hand_count']} hidden"
        block = table.output.split(f"\n{pl} ")[1].split("\n  Discard")[0]
        assert (hidden_line in block) == (seat not in ("judge", pl.lower()))
    csv = run(both, "replay", MATCH, "--turn", "6", "--as", seat, "--format", "csv").stdout.splitlines()
    assert csv[0].startswith("seq,step,player,zone,dot,code,name")
    for pl in ("P1", "P2"):
        hand = [r.split(",") for r in csv[1:] if r.split(",")[2:4] == [pl, "hand"]]
        if seat in ("judge", pl.lower()):
            assert len(hand) == state["players"][pl]["hand_count"] and all(h[5] and h[6] for h in hand)
        else:
            assert len(hand) == 1 and hand[0][5] == "" and int(hand[0][7]) == state["players"][pl]["hand_count"]


def test_x610z_tables_are_exported_as_parquet(both, tmp_path):
    import polars as pl

    out = tmp_path / "out"
    rows = {r["table"]: r for r in as_json(run(both, "export", "--parquet", str(out), "--format", "json"))}
    (n,) = as_json(run(both, "sql", "SELECT count(*) AS n FROM x610z_attacks", "--format", "json"))
    assert rows["x610z_attacks"]["rows"] == n["n"] > 0
    back = pl.scan_parquet(out / "x610z_attacks", hive_partitioning=True).collect()
    assert back.height == n["n"] and set(back["month"]) == {"2026-11"}
    for table in ("x610z_life", "x610z_moves", "x610z_casts", "plays"):
        assert rows[table]["rows"] > 0, table


@pytest.mark.parametrize("width", [40, 50, 80])
def test_x610z_board_is_drawn_as_wide_as_the_terminal(both, width):
    """The X610Z map was drawn 61 columns wide whatever the terminal: below ~60 columns its lines wrapped and the
    dots and lines no longer met. It is squeezed to the terminal (down to 31 columns), as the Z/X board fits 40."""
    r = CliRunner(env={"COLUMNS": str(width)}).invoke(zx, ["--store", both, "replay", MATCH, "--turn", "3", "--as", "P1"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= width
    # the map whole: its top and bottom dots (S4 and S1, a Life Base on each) alone on their lines, and the
    # middle row's two start dots (S5, S3) on one line with the Quest dot's column between them
    assert [line.strip() for line in lines if line.strip() in ("2L", "1L")] == ["2L", "1L"]
    (row,) = [line for line in lines if line.startswith("S5")]
    assert row.rstrip().endswith("S3")
    assert any(line.strip().endswith("Q0") or "·Q0" in line for line in lines)


def test_x610z_bundle_names_the_board_it_was_checked_against_and_the_one_pinned(tmp_path):
    """202.9 and 603.2 read the board's geometry: the bundle's README named the catalog and the rules used
    and pinned, not the board, so a head judge could not tell which board the violation was found on."""
    from zx_events.games.x610z.board import load_board

    board = load_board("x610z-orbits-sample", files=False)
    store = str(tmp_path / "s.sqlite")
    assert run(store, "import", "--accept-violations", str(SHARP)).exit_code == 0
    bundle = tmp_path / "d.zip"
    run(store, "audit", "x610z-invalid-202.9-sharp-turn", "--bundle", str(bundle))
    readme = zipfile.ZipFile(bundle).read("README.txt").decode()
    sha = board.ref["sha256"]
    assert f"board used:     x610z-orbits-sample sha256 {sha}" in readme, readme
    assert f"board x610z-orbits-sample sha256 {sha}, rules " in readme  # pinned at import
    assert "add --catalog FILE --board FILE" in readme
