"""The projection into DuckDB: hand-built matches give exactly the expected rows (no mocks: the real
engine, the real store on SQLite and PostgreSQL, the real DuckDB file)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import orjson
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from zx_analytics.db import SCHEMA_VERSION, AnalyticsError, connect_writer, create_schema
from zx_analytics.projection import update
from zx_events.games.zx.rows import COLUMNS, deck_colours
from analytics_support import all_tables, assert_same_tables, import_matches, started_ids, table
from zx_events.application import MatchService
from zx_events.games.zx.match import match_uuid

ROOT = Path(__file__).resolve().parent.parent


def expected(actual: pl.DataFrame, rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=actual.schema, orient="row")


@pytest.fixture
def projected(service, tmp_path):
    import_matches(service)
    path = tmp_path / "a.duckdb"
    result = update(service, path)
    return service, path, result


def rows_of(path, name: str, svc) -> pl.DataFrame:
    """A table without match_no, once every row's match_no is checked against the store."""
    df = table(path, name)
    want = started_ids(svc)
    assert [want[m] for m in df["match_id"]] == df["match_no"].to_list(), name
    return df.drop("match_no")


def test_matches_rows(projected):
    svc, path, result = projected
    assert (result.matches, result.pages) == (3, 1)
    df = rows_of(path, "matches", svc)
    from zx_events.games.zx.cards import load_catalog

    # the catalog's SHA-256 as each match pins it: the key of its card_catalog rows with its name
    assert df["catalog_sha256"].to_list() == [load_catalog("sample").sha256] * 3
    df = df.drop("imported_at", "source", "catalog_sha256")
    tz = timezone.utc
    # archetypes: colour identity + the two signature cards (most copies, then highest cost)
    red, blue = "red: Volcanic Ruin Herald + Scorchclaw Raider", "blue: Azure Gearknight + Mistveil Tactician"
    assert_frame_equal(df, expected(df, [
        ("m1", str(match_uuid("m1")), "zx", datetime(2026, 11, 1, 1, 0, tzinfo=tz), date(2026, 11, 1), "2026-11",
         "Test", None, None, "sample", "Aki", "Red Dragons", "red", "red", red, "Ren", "Blue Control", "blue",
         "red/blue", blue, "P1", "P1", "life", 7, 0),
        ("m2", str(match_uuid("m2")), "zx", datetime(2026, 12, 5, 9, 30, tzinfo=tz), date(2026, 12, 5), "2026-12",
         "Cup", None, None, "sample", "Mio", "Red Dragons", "red", "red", red, "Ren", "Blue Control", "blue",
         "red/blue", blue, "P2", "P2", "concede", 2, 0),
        ("m3", str(match_uuid("m3")), "zx", None, None, None, "Test", None, None, "sample", "Aki", "Red Dragons", "red",
         "red", red, "Ren", "Blue Control", "blue", "red/blue", blue, "P1", None, None, 3, 0),
    ]))


def test_plays_rows(projected):
    svc, path, _ = projected
    df = rows_of(path, "plays", svc)
    base = [(6, 1, "P1", "R01-002", "hand", "zx", "a1", None, 1, False, True, None),
            (7, 1, "P1", "R01-001", "hand", "zx", "b2", None, 0, False, True, None),
            (12, 2, "P2", "U01-003", "hand", "zx", "b3", None, 2, False, True, None),
            (13, 2, "P2", "U01-001", "hand", "zx", "a2", None, 0, False, True, None)]
    assert_frame_equal(df, expected(df, [
        *[("m1", *r) for r in base],
        ("m1", 17, 3, "P1", "R01-005", "hand", "zx", "c2", None, 3, False, True, None),
        ("m1", 25, 3, "P1", "R01-014", "hand", "event", None, None, 0, False, True, 24),  # in battle 24 (603)
        ("m1", 41, 4, "P2", "U01-009", "hand", "zx", "a2", None, 2, False, True, None),
        ("m2", 5, 1, "P2", "U01-001", "hand", "zx", "b2", None, 0, False, True, None),
        *[("m3", *r) for r in base],
    ]))


def test_attacks_rows(projected):
    svc, path, _ = projected
    df = rows_of(path, "attacks", svc)
    # the last three columns: the first attack of this side in the match with this card, from this
    # Square, at this target (the player: P1 at 24 first)
    assert_frame_equal(df, expected(df, [
        # Range 2 (1104) from c2 to b3, 6000 into 4500: destroyed
        ("m1", 18, 3, "P1", "R01-005", 6000, "c2", "zx", "U01-003", 4500, "b3", 2, True, [], 0, "destroyed", 0, True,
         True, True, True),
        # the empty Player Square b3: 1 damage; Flash Fire played in the Battle Event Step
        ("m1", 24, 3, "P1", "R01-001", 1500, "b2", "player", None, None, "b3", 1, False, ["R01-014"], 1,
         "player_damaged", 1, True, True, True, True),
        ("m1", 32, 3, "P1", "R01-002", 3000, "a1", "zx", "U01-001", 1500, "a2", 1, False, [], 0, "destroyed", 0, True,
         True, True, True),
        ("m1", 42, 4, "P2", "U01-009", 4000, "a2", "zx", "R01-002", 3000, "a1", 1, False, [], 0, "destroyed", 0, True,
         True, True, True),
        ("m1", 51, 5, "P1", "R01-005", 6000, "c2", "player", None, None, "b3", 2, True, [], 0, "player_damaged", 1,
         True, False, False, False),
        ("m1", 58, 5, "P1", "R01-001", 1500, "b2", "player", None, None, "b3", 1, False, [], 0, "player_damaged", 1,
         True, False, False, False),
        ("m1", 70, 7, "P1", "R01-005", 6000, "c2", "player", None, None, "b3", 2, True, [], 0, "player_damaged", 1,
         True, False, False, False),
        # the last point of Life: the match ends inside the battle, before its Battle End Step
        ("m1", 77, 7, "P1", "R01-001", 1500, "b2", "player", None, None, "b3", 1, False, [], 0, "player_damaged", 1,
         False, False, False, False),
        ("m2", 6, 1, "P2", "U01-001", 1500, "b2", "player", None, None, "b1", 1, False, [], 0, "player_damaged", 1,
         True, True, True, True),
        ("m3", 17, 3, "P1", "R01-001", 1500, "b2", "zx", "U01-003", 4500, "b3", 1, False, [], 0, "survived", 0, True,
         True, True, True),
    ]))


def test_life_rows(projected):
    svc, path, _ = projected
    df = rows_of(path, "life", svc)
    assert_frame_equal(df, expected(df, [
        ("m1", 30, 3, "P2", "U01-005", "zx", False, False, False, 3, 24),
        # IG from Life (604.3b); Life Recovery (1102) as 2 <= the opponent's 4
        ("m1", 55, 5, "P2", "U01-011", "zx", True, True, False, 2, 51),
        ("m1", 62, 5, "P2", "U01-006", "zx", False, False, False, 2, 58),  # 3 after the recovery, then 2
        ("m1", 74, 7, "P2", "U01-013", "zx", False, False, False, 1, 70),
        ("m1", 81, 7, "P2", "U01-016", "event", False, False, False, 0, 77),
        ("m2", 10, 1, "P1", "R01-005", "zx", False, False, False, 3, 6),
    ]))


def test_ignitions_and_turns_rows(projected):
    svc, path, _ = projected
    df = rows_of(path, "ignitions", svc)
    assert_frame_equal(df, expected(df, [("m2", 15, 2, "P1", "R01-005", "R01-013", "zx", True, "c1")]))
    df = rows_of(path, "turns", svc)
    opening = [(1, "P1", 0, True, 0, 2, 0, 0, 4, 4, True), (2, "P2", 2, True, 0, 2, 0, 0, 4, 4, True)]
    assert_frame_equal(df, expected(df, [
        *[("m1", *r) for r in opening],
        ("m1", 3, "P1", 2, False, 0, 2, 3, 1, 4, 3, True),
        ("m1", 4, "P2", 2, False, 0, 1, 1, 0, 4, 3, True),
        ("m1", 5, "P1", 2, False, 0, 0, 2, 2, 4, 2, True),
        ("m1", 6, "P2", 2, False, 0, 0, 0, 0, 4, 2, True),
        ("m1", 7, "P1", 2, False, 0, 0, 2, 2, 4, 0, False),  # lost on Life inside the turn
        ("m2", 1, "P2", 0, False, 0, 1, 1, 1, 3, 4, True),
        ("m2", 2, "P1", 2, False, 1, 0, 0, 0, 3, 4, False),  # conceded
        *[("m3", *r) for r in opening],
        ("m3", 3, "P1", 2, False, 0, 0, 1, 0, 4, 4, True),
    ]))


def test_draws_rows(projected):
    svc, path, _ = projected
    df = rows_of(path, "draws", svc)
    got = df.filter(pl.col("match_id") == "m2")
    rows = [("m2", 2, 0, "P1", c, "mulliganed") for c in ("R01-001", "R01-002", "R01-004", "R01-009")]
    rows += [("m2", 2, 0, "P1", c, "opening") for c in ("R01-003", "R01-010", "R01-013", "R01-014")]  # 402
    rows += [("m2", 3, 0, "P2", c, "opening") for c in ("U01-001", "U01-002", "U01-003", "U01-014")]
    rows += [("m2", 14, 2, "P1", "R01-004", "draw"), ("m2", 14, 2, "P1", "R01-009", "draw")]
    assert_frame_equal(got, expected(got, rows).sort(["match_id", "seq", "card", "source"]))
    per_match = df.group_by("match_id").len().sort("match_id")
    assert per_match["len"].to_list() == [20, 14, 12]  # m1: 8 opening + 6 Draw Phases of 2


def test_seats_rows(projected):
    svc, path, _ = projected
    df = rows_of(path, "seats", svc)
    on1, on2 = date(2026, 11, 1), date(2026, 12, 5)
    red = ("Red Dragons", "red", "red: Volcanic Ruin Herald + Scorchclaw Raider")
    blue = ("Blue Control", "blue", "blue: Azure Gearknight + Mistveil Tactician")
    # side, name, deck, colours, archetype, opp_name, opp_deck, opp_colours, opp_archetype, seat, opp_seat,
    # result, turns, opp_turns, damage_taken, life_ignitions, was_behind, hand_size, mulligan (402: Mio in m2)
    assert_frame_equal(df, expected(df, [
        ("m1", "zx", on1, "2026-11", "Test", None, "P1", "Aki", *red, "Ren", *blue, "first", "second", "win", 7, 3, 0,
         0, False, 4, False),
        ("m1", "zx", on1, "2026-11", "Test", None, "P2", "Ren", *blue, "Aki", *red, "second", "first", "loss", 7, 4, 5,
         1, True, 4, False),
        ("m2", "zx", on2, "2026-12", "Cup", None, "P1", "Mio", *red, "Ren", *blue, "second", "first", "loss", 2, 1, 1,
         0, True, 4, True),
        ("m2", "zx", on2, "2026-12", "Cup", None, "P2", "Ren", *blue, "Mio", *red, "first", "second", "win", 2, 1, 0,
         0, False, 4, False),
        ("m3", "zx", None, None, "Test", None, "P1", "Aki", *red, "Ren", *blue, "first", "second", None, 3, 1, 0, 0,
         False, 4, False),
        ("m3", "zx", None, None, "Test", None, "P2", "Ren", *blue, "Aki", *red, "second", "first", None, 3, 2, 0, 0,
         False, 4, False),
    ]))


def test_card_games_rows(projected):
    svc, path, _ = projected
    from zx_events.games.zx.decks import deck_by_name

    all_m2 = rows_of(path, "card_games", svc).filter(pl.col("match_id") == "m2")
    df = all_m2.filter(pl.col("opening") | (pl.col("drawn") > 0) | (pl.col("played") > 0))
    # Mio's mulliganed four are not in hand; R01-013 was revealed by an Ignition and played (505.3a)
    red, blue = deck_by_name("Red Dragons").deck, deck_by_name("Blue Control").deck
    assert_frame_equal(df, expected(df, [
        ("m2", "P1", "R01-003", red["R01-003"], True, 0, 0), ("m2", "P1", "R01-004", red["R01-004"], False, 1, 0),
        ("m2", "P1", "R01-009", red["R01-009"], False, 1, 0), ("m2", "P1", "R01-010", red["R01-010"], True, 0, 0),
        ("m2", "P1", "R01-013", red["R01-013"], True, 0, 1), ("m2", "P1", "R01-014", red["R01-014"], True, 0, 0),
        ("m2", "P2", "U01-001", blue["U01-001"], True, 0, 1), ("m2", "P2", "U01-002", blue["U01-002"], True, 0, 0),
        ("m2", "P2", "U01-003", blue["U01-003"], True, 0, 0), ("m2", "P2", "U01-014", blue["U01-014"], True, 0, 0),
    ]))
    # every other card of each deck list is there too, never seen (GNS), with its copies
    unseen = all_m2.join(df, on=["match_id", "player", "card"], how="anti")
    assert sorted(unseen.filter(pl.col("player") == "P1")["card"]) == sorted(set(red) - set(df["card"]))
    assert sorted(unseen.filter(pl.col("player") == "P2")["card"]) == sorted(set(blue) - set(df["card"]))
    assert unseen.select((pl.col("opening").not_() & (pl.col("drawn") == 0) & (pl.col("played") == 0)).all()).item()
    assert all(r["copies"] == {"P1": red, "P2": blue}[r["player"]][r["card"]] for r in unseen.iter_rows(named=True))
    m1 = rows_of(path, "card_games", svc).filter(pl.col("match_id") == "m1")
    assert m1.filter(pl.col("card") == "U01-011").rows() == [("m1", "P2", "U01-011", blue["U01-011"], False, 0, 1)]
    assert m1.filter(pl.col("card") == "R01-013").rows() == [("m1", "P1", "R01-013", red["R01-013"], False, 2, 0)]
    assert m1.filter(pl.col("card") == "U01-003").rows() == [("m1", "P2", "U01-003", blue["U01-003"], True, 1, 1)]


def test_card_catalog_is_the_shipped_sample(projected):
    _, path, _ = projected
    df = table(path, "card_catalog")
    assert df.height == 134
    row = df.filter(pl.col("code") == "U01-016").row(0, named=True)
    from zx_events.games.zx.cards import load_catalog

    assert row == {"catalog": "sample", "catalog_sha256": load_catalog("sample").sha256, "code": "U01-016",
                   "name": "Maelstrom Purge", "type": "Event",
                   "colours": "blue", "cost": "2", "power": None, "icons": "IG/VB"}


def test_tracking_position_and_nothing_in_flight(projected):
    svc, path, result = projected
    last = svc.recorder.max_notification_id()
    assert result.position == last
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT position, schema_version FROM projection_position").fetchall() == [(last, SCHEMA_VERSION)]
    assert con.execute("SELECT count(*) FROM projection_inflight").fetchall() == [(0,)]
    con.close()
    again = update(svc, path)  # nothing new: nothing written
    assert (again.events, again.matches, again.pages) == (0, 0, 0)
    assert all_tables(path)["matches"].height == 3


@pytest.mark.parametrize("page_size", [1, 7, 40])
def test_pages_that_split_matches_give_the_same_tables(service, tmp_path, page_size):
    """Each page is a transaction: a match cut by a page boundary is carried over as in-flight state."""
    import_matches(service)
    whole, paged = tmp_path / "whole.duckdb", tmp_path / "paged.duckdb"
    update(service, whole)
    result = update(service, paged, page_size=page_size)
    assert result.pages > 1
    assert_same_tables(whole, paged)


def test_direct_reads_equal_reads_through_select_notifications(service, tmp_path):
    import_matches(service)
    fast, generic = tmp_path / "fast.duckdb", tmp_path / "generic.duckdb"
    update(service, fast, page_size=9)
    update(service, generic, page_size=9, fast_read=False)
    assert_same_tables(generic, fast)


def test_in_flight_state_is_committed_with_the_page(service, tmp_path):
    import_matches(service, ("m1",))
    path = tmp_path / "a.duckdb"
    update(service, path, page_size=20, stop_after_pages=1)  # 20 projected events: up to seq 22
    con = duckdb.connect(str(path), read_only=True)
    (oid, state), = con.execute("SELECT match_uuid, state FROM projection_inflight").fetchall()
    position = con.execute("SELECT position FROM projection_position").fetchall()[0][0]
    attacks = con.execute("SELECT count(*) FROM attacks").fetchall()[0][0]
    con.close()
    state = orjson.loads(state)
    assert oid == str(match_uuid("m1")) and state["mid"] == "m1"
    assert state["turn"] == 3 and state["life"] == {"P1": 4, "P2": 4}
    # the page ended inside the first battle (22: its target destroyed; 23: its Battle End Step)
    assert state["battle"]["seq"] == 18 and state["battle"]["outcome"] == "destroyed"
    assert attacks == 0 and position == 22


def test_incremental_updates_equal_a_rebuild(service, tmp_path):
    path, rebuilt = tmp_path / "inc.duckdb", tmp_path / "rebuilt.duckdb"
    import_matches(service, ("m1",))
    assert update(service, path).matches == 1
    import_matches(service, ("m2", "m3"))
    second = update(service, path)
    assert second.matches == 2 and not second.rebuilt
    update(service, rebuilt, rebuild=True)
    assert_same_tables(rebuilt, path)


def test_an_event_appended_to_a_projected_match_reprojects_it(service, tmp_path):
    """Not done by the application today; if it were, the match is projected again, not doubled."""
    import_matches(service)
    path, rebuilt = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    update(service, path)
    m = service.get_match("m1")
    m._violation(rule="101.2", message="appended by the test", line=None, turn=m.turn, player=None)
    service.save(m)
    result = update(service, path)
    assert result.matches == 1
    got = all_tables(path)
    assert got["matches"].filter(pl.col("match_id") == "m1")["violations"].to_list() == [1]
    update(service, rebuilt, rebuild=True)
    for name, want in all_tables(rebuilt).items():
        assert_frame_equal(got[name], want)


def test_memory_store_is_always_rebuilt(tmp_path):
    path = tmp_path / "mem.duckdb"
    for _ in range(2):  # a second process has a new, empty memory store: nothing stale survives
        svc = MatchService("memory:")
        import_matches(svc, ("m2",))
        result = update(svc, path)
        assert result.rebuilt and result.matches == 1
    assert table(path, "matches")["match_id"].to_list() == ["m2"]


def test_a_memory_store_never_replaces_the_analytics_of_another_store(tmp_path):
    """A memory store's analytics are rebuilt each time, but not over a file another store's
    projection made (a memory import to check a log wiped the analytics ZX_ANALYTICS pointed at)."""
    path = tmp_path / "shared.duckdb"
    kept = MatchService(str(tmp_path / "kept.sqlite"))
    import_matches(kept, ("m1",))
    update(kept, path)
    before = all_tables(path)
    svc = MatchService("memory:")
    import_matches(svc, ("m2",))
    with pytest.raises(AnalyticsError, match=r"shared\.duckdb was built from sqlite:.*kept\.sqlite, not memory:: "
                                             r"run `zx analytics update --rebuild`"):
        update(svc, path)
    for name, want in all_tables(path).items():
        assert_frame_equal(before[name], want)
    assert update(svc, path, rebuild=True).matches == 1  # asked for: replaced
    assert table(path, "matches")["match_id"].to_list() == ["m2"]


def test_zx_import_into_a_memory_store_writes_no_analytics_file(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from zx_cli.main import zx

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZX_ANALYTICS", raising=False)
    log = Path(__file__).parents[1] / "examples" / "legal" / "first-turns.zxlog"
    r = CliRunner().invoke(zx, ["--store", "memory:", "import", str(log)])
    assert r.exit_code == 0, r.output
    assert "analytics: not updated: a memory: store lasts only as long as this command" in r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("rebuild", [False, True])
def test_a_duckdb_file_that_is_not_zx_analytics_is_never_written(tmp_path, rebuild):
    """A user's own DuckDB file given as --analytics by mistake: its tables stay as they were (an
    update dropped one named like ours, ``matches``, and added fifteen beside them), with or without
    --rebuild, on one process or several."""
    path = tmp_path / "mine.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE matches AS SELECT 1 AS mine")
    con.execute("CREATE TABLE research AS SELECT 42 AS answer")
    con.close()
    svc = MatchService(str(tmp_path / "s.sqlite"))
    import_matches(svc, ("m1",))
    for workers in (0, 2):
        with pytest.raises(AnalyticsError, match=r"mine\.duckdb is a DuckDB database that is not zx's analytics "
                                                 r"\(it holds matches, research\)"):
            update(svc, path, rebuild=rebuild, workers=workers)
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SHOW TABLES").fetchall() == [("matches",), ("research",)]
    assert con.execute("SELECT * FROM matches").fetchall() == [(1,)]
    con.close()
    assert update(svc, tmp_path / "new.duckdb", rebuild=rebuild).matches == 1  # a new file is made as before


def test_refuses_a_file_built_from_another_store(tmp_path):
    a, b = MatchService(str(tmp_path / "a.sqlite")), MatchService(str(tmp_path / "b.sqlite"))
    import_matches(a, ("m1",))
    import_matches(b, ("m2",))
    path = tmp_path / "x.duckdb"
    update(a, path)
    with pytest.raises(AnalyticsError, match=r"was built from sqlite:.*a\.sqlite.*--rebuild"):
        update(b, path)
    assert update(b, path, rebuild=True).matches == 1
    assert table(path, "matches")["match_id"].to_list() == ["m2"]


def test_refuses_an_older_schema(tmp_path):
    svc = MatchService(str(tmp_path / "s.sqlite"))
    import_matches(svc, ("m2",))
    path = tmp_path / "x.duckdb"
    update(svc, path)
    con = connect_writer(path)
    con.execute("UPDATE projection_position SET schema_version = 0")
    con.close()
    with pytest.raises(AnalyticsError, match=f"schema 0, this version writes {SCHEMA_VERSION}: run `zx analytics update --rebuild`"):
        update(svc, path)


def test_columns_of_the_code_are_the_columns_of_the_schema(tmp_path):
    con = connect_writer(tmp_path / "s.duckdb")
    create_schema(con)
    for name, cols in COLUMNS.items():
        got = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                                         "ORDER BY ordinal_position", [name]).fetchall()]
        assert tuple(got) == cols, name
    con.close()


def test_declared_arrow_types_are_the_types_duckdb_gives_the_tables(tmp_path):
    """zx_analytics.writer.declared_types reads the CREATE statements without a database: each column's
    Arrow type is the one DuckDB maps the type it created to (the pages' tables insert as they are)."""
    import pyarrow as pa

    from zx_analytics.tables import COLUMNS as ALL_COLUMNS
    from zx_analytics.writer import declared_types

    duck = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BIGINT": pa.int64(), "BOOLEAN": pa.bool_(),
            "DATE": pa.date32(), "TIMESTAMP WITH TIME ZONE": pa.timestamp("us", tz="UTC"),
            "VARCHAR[]": pa.list_(pa.string())}
    con = connect_writer(tmp_path / "s.duckdb")
    create_schema(con)
    created: dict[str, dict[str, str]] = {}
    for t, c, kind in con.execute("SELECT table_name, column_name, data_type FROM information_schema.columns "
                                  "WHERE table_schema = 'main'").fetchall():
        created.setdefault(t, {})[c] = kind
    con.close()
    declared = declared_types()
    assert set(declared) == set(ALL_COLUMNS)
    for table, schema in declared.items():
        assert schema == pa.schema([(c, duck[created[table][c]]) for c in ALL_COLUMNS[table]]), table


def test_the_writer_rolls_back_held_pages_when_stopped_before_their_commit(tmp_path):
    """Pages held in one open transaction (Page.held: a rebuild by workers) are committed with the page that
    ends it; a writer stopped before that page (a failure, Ctrl-C) leaves none of their rows, and the file can
    be written again."""
    from zx_analytics.db import connect_writer
    from zx_analytics.projection import _position, _reset
    from zx_analytics.writer import Page, Writer, declared_types

    path = tmp_path / "a.duckdb"
    con = connect_writer(path)
    _reset(con, "test")
    row = ("cat", "sha", "C-1", "One", "zx", "red", "1", 1000, None)
    writer = Writer(con, declared_types())
    writer.put(Page({"card_catalog": [row]}, [], None, 5, 5, held=True))
    writer.stop()
    assert con.execute("SELECT count(*) FROM card_catalog").fetchall() == [(0,)]
    assert _position(con)[:2] == (0, 0)
    writer = Writer(con, declared_types())
    writer.put(Page({"card_catalog": [row]}, [], None, 5, 5, held=True))
    writer.put(Page({"card_catalog": [row[:2] + ("C-2",) + row[3:]]}, [], None, 9, 9))
    writer.close()
    assert con.execute("SELECT code FROM card_catalog ORDER BY code").fetchall() == [("C-1",), ("C-2",)]
    assert _position(con)[:2] == (9, 9)
    con.close()


def test_deck_colour_identity_ignores_a_splash():
    colours = {"A": ("blue",), "B": ("red", "blue"), "C": (), "D": ("green",)}
    assert deck_colours({"A": 49, "B": 1}, colours) == ("blue", "red/blue")
    assert deck_colours({"A": 40, "D": 10}, colours) == ("blue/green", "blue/green")
    assert deck_colours({"C": 50}, colours) == ("none", "none")
    assert deck_colours({"A": 50}, None) == (None, None)


def test_the_primary_key_refuses_counting_a_match_twice(tmp_path):
    """If the position were lost, re-inserting a match fails in the writer, the page is rolled back,
    and the error reaches the caller."""
    svc = MatchService(str(tmp_path / "s.sqlite"))
    import_matches(svc, ("m1", "m2"))
    path = tmp_path / "x.duckdb"
    update(svc, path)
    before = all_tables(path)
    con = connect_writer(path)
    con.execute("UPDATE projection_position SET position = 0")
    con.close()
    with pytest.raises(duckdb.ConstraintException, match="Duplicate key"):
        update(svc, path)
    after = all_tables(path)
    for name in before:
        assert_frame_equal(after[name], before[name])


def copy_under_another_id(svc, match: str):
    """A plain SQL-like copy of ``match``'s stored rows under another aggregate id (what someone with
    write access to the store can do); returns the copy's id."""
    import uuid

    from eventsourcing.persistence import StoredEvent

    copy = uuid.uuid4()
    svc.recorder.insert_events([StoredEvent(copy, r.originator_version, r.topic, r.state)
                                for r in svc.recorder.select_events(match_uuid(match))])
    return copy


def without(tables: dict[str, pl.DataFrame], match: str) -> dict[str, pl.DataFrame]:
    return {name: df.filter(pl.col("match_id") != match) if "match_id" in df.columns else df
            for name, df in tables.items()}


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("page_size", [12, 100_000])
def test_a_copy_of_a_match_under_another_id_is_left_out_with_a_warning(service, tmp_path, workers, page_size):
    """Two aggregates of one match id (a copy of m1's rows under another id) ended the update in
    "internal error: ConstraintException ... duplicate key "m1"", in the serial projection and the
    workers alike, every run again. zx import files m1 under match_uuid("m1") only: the copy is left
    out (UpdateResult.left_out, a warning in the CLI), the genuine m1 kept, and the update goes on."""
    if workers and service.store.kind != "sqlite":
        pytest.skip("worker processes project a SQLite store")
    import_matches(service, ("m1", "m2"))
    path, rebuilt, paged = tmp_path / "a.duckdb", tmp_path / "b.duckdb", tmp_path / "c.duckdb"
    update(service, path, workers=0)
    before = all_tables(path)
    copy = copy_under_another_id(service, "m1")
    import_matches(service, ("m3",))  # after the copy in the log
    result = update(service, path, page_size=page_size, workers=workers)
    assert (result.matches, result.left_out) == (1, [(str(copy), "m1")])
    after = all_tables(path)
    assert sorted(after["matches"]["match_id"].to_list()) == ["m1", "m2", "m3"]
    assert after["matches"].filter(pl.col("match_id") == "m1")["match_uuid"].to_list() == [str(match_uuid("m1"))]
    for name, want in without(before, "m3").items():
        assert_frame_equal(without(after, "m3")[name], want)
    again = update(service, rebuilt, rebuild=True, page_size=page_size, workers=workers)
    assert (again.matches, again.left_out) == (3, [(str(copy), "m1")])
    assert_same_tables(path, rebuilt)
    # cut into runs of one page each: the copy's rest, met at the start of a run, is left out too (reopen)
    left_out, runs = [], 0
    while True:
        run = update(service, paged, page_size=page_size, stop_after_pages=1, workers=workers)
        left_out += run.left_out
        runs += 1
        if not run.events:
            break
    assert left_out == [(str(copy), "m1")]
    assert runs == 2 if page_size > 1000 else runs > (4 if workers else 8), runs  # (12: the matches cut into runs)
    assert_same_tables(path, paged)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_zx_analytics_update_warns_of_an_aggregate_it_leaves_out(service, tmp_path):
    from click.testing import CliRunner

    from zx_cli.main import zx

    import_matches(service, ("m1", "m2"))
    copy = copy_under_another_id(service, "m2")
    r = CliRunner().invoke(zx, ["--store", str(service.store.path), "analytics", "update", "--analytics",
                                str(tmp_path / "a.duckdb")])
    assert r.exit_code == 0 and "internal error" not in r.output, r.output
    assert (f"warning: the stored aggregate {copy} says it is match m2, which zx import files under "
            f"{match_uuid('m2')}: zx import did not write it (a copy of a match's events, or a forgery), and the "
            f"analytics leave it out; zx verify names it (forged)") in r.stderr
    assert table(tmp_path / "a.duckdb", "matches")["match_id"].to_list() == ["m1", "m2"]


@pytest.mark.parametrize("backend", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_gaps_in_postgres_notification_ids(store_url, tmp_path):
    """A rolled-back insert leaves a gap in PostgreSQL's ids: the position is the last id read. (SQLite's rowids
    have no gaps.)"""
    from zx_events.store import connect_postgres

    svc = MatchService(store_url)
    import_matches(svc, ("m1",))
    path, rebuilt = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    update(svc, path)
    cfg = svc.store
    with connect_postgres(cfg.env) as conn:  # sequence values taken and never used, as a rollback leaves them
        seq = conn.execute("SELECT pg_get_serial_sequence(%s, 'notification_id')",
                           (f'"{cfg.schema}"."{svc.recorder.events_table_name}"',)).fetchone()[0]
        for _ in range(5):
            conn.execute("SELECT nextval(%s)", (seq,))
    import_matches(svc, ("m2", "m3"))
    ids = started_ids(svc)
    assert ids["m2"] - 1 not in (r.id for r in svc.recorder.select_notifications(start=None, limit=1000))
    assert update(svc, path).matches == 2
    update(svc, rebuilt, rebuild=True)
    got = all_tables(path)
    for name, want in all_tables(rebuilt).items():
        assert_frame_equal(got[name], want)
    svc.close()


def test_timestamps_read_back_through_the_duckdb_api(projected):
    """TIMESTAMPTZ values come back as aware datetimes from fetchall() too (DuckDB needs pytz for it)."""
    _, path, _ = projected
    con = duckdb.connect(str(path), read_only=True)
    (at,), = con.execute("SELECT played_at FROM matches WHERE match_id = 'm2'").fetchall()
    con.close()
    assert at == datetime(2026, 12, 5, 9, 30, tzinfo=timezone.utc)


# ---------------------------------------------------------------------- worker processes (zx_analytics.parallel)
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
@pytest.mark.parametrize("page_size", [1, 7, 40, 100_000])
def test_worker_processes_give_the_same_tables(service, tmp_path, page_size):
    """Chunks of whole matches projected by forked workers, committed in log order, equal the serial
    projection, wherever the chunk boundaries fall (1: a chunk a notification)."""
    import_matches(service)
    serial, parallel = tmp_path / "serial.duckdb", tmp_path / "parallel.duckdb"
    assert update(service, serial, workers=0).workers == 0
    result = update(service, parallel, page_size=page_size, workers=2)
    assert result.workers == 2 and result.matches == 3
    assert_same_tables(serial, parallel)
    con = duckdb.connect(str(parallel), read_only=True)
    assert con.execute("SELECT count(*) FROM projection_inflight").fetchall()[0][0] == 0
    con.close()


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_workers_resume_a_match_left_in_flight(service, tmp_path):
    """A serial run stopped inside a match (its state committed in flight) is finished by workers."""
    import_matches(service)
    path, whole = tmp_path / "a.duckdb", tmp_path / "whole.duckdb"
    update(service, path, page_size=20, stop_after_pages=1, workers=0)
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT count(*) FROM projection_inflight").fetchall()[0][0] == 1
    con.close()
    result = update(service, path, page_size=11, workers=2)
    assert result.workers == 2 and result.matches == 3
    update(service, whole, workers=0)
    assert_same_tables(whole, path)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_workers_stop_after_pages_and_resume(service, tmp_path):
    import_matches(service)
    path, whole = tmp_path / "a.duckdb", tmp_path / "whole.duckdb"
    first = update(service, path, page_size=9, stop_after_pages=2, workers=2)
    assert first.pages == 2 and first.matches < 3
    rest = update(service, path, page_size=9, workers=2)
    assert first.matches + rest.matches == 3 and first.events + rest.events == update(service, whole).events
    assert_same_tables(whole, path)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_workers_hand_an_event_for_a_closed_match_to_the_serial_projection(service, tmp_path):
    """A worker cannot re-project a match (it needs the analytics file): the serial projection takes
    over from the chunk before it, and the match is projected again, not doubled."""
    import_matches(service)
    path, rebuilt = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    update(service, path, workers=0)
    m = service.get_match("m1")
    m._violation(rule="101.2", message="appended by the test", line=None, turn=m.turn, player=None)
    service.save(m)
    result = update(service, path, page_size=5, workers=2)
    assert result.matches == 1
    got = all_tables(path)
    assert got["matches"].filter(pl.col("match_id") == "m1")["violations"].to_list() == [1]
    # a rebuild meets the appended event in a later chunk, after m3's events
    assert update(service, rebuilt, rebuild=True, page_size=5, workers=2).matches == 4
    for name, want in all_tables(rebuilt).items():
        assert_frame_equal(got[name], want)


def test_workers_by_default_one_a_core_up_to_four(monkeypatch):
    from zx_analytics import parallel

    monkeypatch.delenv(parallel.WORKERS_ENV, raising=False)
    for cores, want in ((1, 1), (2, 2), (8, 4)):
        monkeypatch.setattr(parallel.os, "cpu_count", lambda cores=cores: cores)
        assert parallel.workers_wanted() == (want, False), cores
    monkeypatch.setenv(parallel.WORKERS_ENV, "3")
    assert parallel.workers_wanted() == (3, True)


class _Unreadable(dict):
    """A payload that fails the test if anything of it is read."""

    def __getitem__(self, key):
        raise AssertionError(f"read {key!r}")

    def get(self, key, default=None):
        raise AssertionError(f"read {key!r}")


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_handlers_of_topics_without_payload_read_nothing_of_it(game):
    """The projection does not decode the payloads of ``NO_PAYLOAD`` topics and hands their handlers
    None: each handler reads nothing of its payload and leaves the same state and rows with None."""
    from zx_events import games

    rows = games.get(game).rows
    assert rows.NO_PAYLOAD and rows.NO_PAYLOAD <= set(rows.HANDLERS)
    for topic in rows.NO_PAYLOAD:
        made = []
        for payload in (None, _Unreadable()):
            m = rows.MatchRows("oid", 1, rows.new_buffers())
            rows.HANDLERS[rows.event_topic("TurnStarted")](m, 1, {"turn": 1, "player": "P1"})  # a turn under way
            rows.HANDLERS[topic](m, 2, payload)
            made.append((m.to_json(), m.buf))
        assert made[0] == made[1], topic


def test_a_deck_summary_is_computed_once_per_deck_catalog_and_colours():
    from zx_events.games.rowkit import DeckMemo

    calls = []
    memo = DeckMemo(lambda deck, catalog, colours: calls.append(deck) or (catalog, len(deck or ())))
    red, blue = {"A": 4, "B": 2}, {"C": 4}
    colours = {"A": ("red",)}
    assert memo.summary(red, "sample", colours) == ("sample", 2)
    assert memo.summary(dict(red), "sample", colours) == ("sample", 2) and len(calls) == 1
    memo.summary(red, "other", colours)
    memo.summary(red, "sample", {"A": ("blue",)})  # other colours: computed again
    memo.summary(blue, "sample", colours)
    assert len(calls) == 4
    memo.summary({"A": [1]}, "sample", colours)  # not hashable: computed every time
    memo.summary({"A": [1]}, "sample", colours)
    memo.summary(None, "sample", colours)
    assert len(calls) == 7


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_worker_that_dies_fails_the_update_and_the_next_run_finishes_it(service, tmp_path, monkeypatch):
    import os

    from zx_analytics import parallel

    import_matches(service)
    path, whole = tmp_path / "a.duckdb", tmp_path / "whole.duckdb"
    project = parallel.project

    def dies_at_the_third_match(task):  # the forked workers inherit this
        if task.after >= 60:
            os._exit(9)
        return project(task)

    monkeypatch.setattr(parallel, "project", dies_at_the_third_match)
    with pytest.raises(AnalyticsError, match="worker process died"):
        update(service, path, page_size=10, workers=2)
    monkeypatch.setattr(parallel, "project", project)
    update(service, path, page_size=10, workers=2)
    update(service, whole, workers=0)
    assert_same_tables(whole, path)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_rebuild_by_workers_begun_before_the_file_is_opened_equals_a_serial_rebuild(service, tmp_path):
    """A rebuild starts its workers before it opens the analytics file; the file's old rows (and an
    older match in flight) are dropped all the same."""
    import_matches(service)
    path, whole = tmp_path / "a.duckdb", tmp_path / "whole.duckdb"
    update(service, path, page_size=20, stop_after_pages=1, workers=0)  # a match left in flight
    result = update(service, path, rebuild=True, page_size=7, workers=2)
    assert result.rebuilt and result.workers == 2 and result.matches == 3
    update(service, whole, workers=0)
    assert_same_tables(whole, path)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_rebuild_that_cannot_open_the_file_stops_its_workers(service, tmp_path):
    """The file held by another process: a clear error, and the workers begun for the rebuild end."""
    import multiprocessing
    import subprocess
    import sys

    import_matches(service)
    path = tmp_path / "a.duckdb"
    update(service, path, workers=0)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time\n"
                               "con = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(60)",
                               str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(AnalyticsError, match="in use by another process"):
            update(service, path, rebuild=True, workers=2)
        assert multiprocessing.active_children() == []
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_workers_begun_for_a_new_file_another_update_made_meanwhile_are_dropped(service, tmp_path, monkeypatch):
    """An update to a file that does not exist begins its workers at once; if another update has
    made the file by the time this one opens it, they are stopped and this one goes on from the
    file's position (nothing projected twice)."""
    import multiprocessing

    from zx_analytics import projection

    import_matches(service)
    path, whole = tmp_path / "a.duckdb", tmp_path / "whole.duckdb"
    real = projection.connect_writer

    def another_update_first(p, *a, **k):
        monkeypatch.setattr(projection, "connect_writer", real)
        update(service, p, workers=0)
        return real(p, *a, **k)

    monkeypatch.setattr(projection, "connect_writer", another_update_first)
    result = update(service, path, workers=2)
    assert result.events == 0 and result.workers == 0
    assert multiprocessing.active_children() == []
    update(service, whole, workers=0)
    assert_same_tables(whole, path)


def test_a_card_an_effect_moved_into_hand_is_drawn_and_seen(tmp_path):
    """An effect's ``move`` of a named card to ``hand`` (from the deck, Trash, ...) is a ``draws`` row
    (source ``effect``) in its owner's hand and ``card_games.drawn``: the card played from hand after
    it was a "game not seen" (GNS) before. A card returned from a Square names the Square: not one."""
    from support import BOARD, header, text
    from zx_events.logformat.reader import parse_log

    from zx_analytics.stats import Stats

    recs = [*BOARD,
            {"do": "effect", "by": "P1", "source": "R01-005", "op": "move", "card": "R01-013", "from": "deck",
             "to": "hand"},
            {"do": "play", "by": "P1", "card": "R01-013", "pay": ["R01-001"], "square": "c1"},
            {"do": "effect", "by": "P1", "source": "R01-005", "op": "move", "card": "U01-009", "from": "deck",
             "to": "hand", "owner": "P2"},
            {"do": "effect", "by": "P1", "source": "R01-005", "op": "move", "square": "c1", "from": "square",
             "to": "hand"},
            {"do": "concede", "by": "P2"}]
    svc = MatchService(str(tmp_path / "s.sqlite"))
    try:
        (log,) = parse_log(text(recs, header("fetch")), "fetch.zxlog")
        assert svc.import_log(log).status == "imported"
        update(svc, tmp_path / "s.duckdb")
    finally:
        svc.close()
    draws = table(tmp_path / "s.duckdb", "draws").filter(pl.col("source") == "effect")
    assert draws.select("turn", "player", "card").rows() == [(3, "P1", "R01-013"), (3, "P2", "U01-009")]
    games = table(tmp_path / "s.duckdb", "card_games")
    seen = games.filter(pl.col("card").is_in(["R01-013", "U01-009"])).select("player", "card", "opening", "drawn",
                                                                             "played")
    assert seen.rows() == [("P1", "R01-013", False, 1, 1), ("P2", "U01-009", False, 1, 0)]
    with Stats(tmp_path / "s.duckdb") as st:
        row = st.cards(card="R01-013").row(0, named=True)
    assert (row["gih_games"], row["gd_games"], row["gns_games"], row["played_games"]) == (1, 1, 0, 1)


def test_numbers_and_dates_past_what_a_column_holds_never_stop_the_projection(tmp_path):
    """Two legal logs stopped every ``zx analytics update`` of their store for good (their events are never
    rewritten): two Power modifiers of 2**62 (their sum past 64 bits: "internal error: OverflowError ... pyarrow")
    and a ``played_at`` of 9999-12-31T23:59:59-23:59 (no UTC instant Python holds: "OverflowError: date value
    out of range"). The sum is stored as its column's bound, the instant as unknown with the date as written."""
    import json

    from click.testing import CliRunner

    from zx_cli.main import zx

    lines = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text(encoding="utf-8").splitlines()
    boost = json.dumps({"do": "effect", "by": "P1", "source": "c3", "op": "power", "square": "c3",
                        "delta": 1 << 62, "until": "end_of_turn"})
    big = "\n".join(lines[:20] + [boost, boost] + lines[20:]).replace("hand-first-turns-001", "sum-power")
    edge = json.loads(lines[0])
    edge["match"], edge["played_at"] = "edge-date", "9999-12-31T23:59:59-23:59"
    (tmp_path / "big.zxlog").write_text(big + "\n", encoding="utf-8")
    (tmp_path / "edge.zxlog").write_text("\n".join([json.dumps(edge), *lines[1:]]) + "\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", str(tmp_path / "big.zxlog"), str(tmp_path / "edge.zxlog")])
    assert r.exit_code == 0 and "2 imported" in r.stderr and "internal error" not in r.output, r.output
    with duckdb.connect(str(tmp_path / "s.duckdb"), read_only=True) as con:
        assert con.execute("SELECT match_id, played_at, played_on, month FROM matches ORDER BY match_id").fetchall() == [
            ("edge-date", None, date(9999, 12, 31), "9999-12"),
            ("sum-power", datetime(2026, 11, 1, 5, 3, tzinfo=timezone.utc), date(2026, 11, 1), "2026-11")]
        powers = {p for (p,) in con.execute("SELECT attacker_power FROM attacks WHERE match_id = 'sum-power'").fetchall()}
        assert (1 << 31) - 1 in powers, powers  # c3's Power, 2**63 and more, at its column's bound (INTEGER)
    r = CliRunner().invoke(zx, ["--store", store, "stats", "attacks", "--format", "json"])  # (no result: no win rate)
    assert r.exit_code == 0 and json.loads(r.stdout), r.output


def test_updates_of_one_new_file_from_threads_of_one_process_run_one_after_the_other(tmp_path):
    """Four threads updating one new file on one MatchService: three raised DuckDB's raw
    "TransactionException: ... Catalog write-write conflict", one returned, and the file was gone after
    (each loser removed the file it took for its own new one). Now they run one after the other: every
    one returns, the first projects the matches, the file stays and holds them."""
    import threading

    from analytics_support import imported_store

    store = imported_store(tmp_path, "--no-analytics")
    path = tmp_path / "a.duckdb"
    results: list = []
    go = threading.Barrier(4)

    svc = MatchService(str(store), create=False)
    try:
        def run() -> None:
            go.wait()
            try:
                results.append(update(svc, path))
            except Exception as e:  # (the assertion below shows it)
                results.append(e)

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(not isinstance(r, Exception) for r in results), results
        assert sorted(r.matches for r in results) == [0, 0, 0, 3]
        assert path.exists()
        assert update(svc, path).matches == 0
    finally:
        svc.close()
    assert table(path, "matches")["match_id"].to_list() == ["m1", "m2", "m3"]
