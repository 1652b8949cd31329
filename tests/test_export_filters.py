"""zx export with the match list's filters (QA round 36: a coach exports one opponent's matches to Parquet for a
notebook): every table holds the rows of the matches zx matches lists for the same filters, card_catalog the
catalogs they were checked against, the data dictionary says which filters chose them; an unknown name is zx
matches' error with the closest names; without a filter the export is as before. The store of
tests/head_to_head_support.py."""

from __future__ import annotations

import json

import polars as pl
import pytest
from click.testing import CliRunner

from head_to_head_support import MIO, REN, build
from zx_analytics.export import DICTIONARY, PARTITIONED, _dictionary
from zx_cli.main import zx

TABLES = (*PARTITIONED, "card_catalog")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build(tmp_path_factory.mktemp("h2h-export"))


@pytest.fixture(scope="module")
def everything(store, tmp_path_factory):
    """The unfiltered export (its folder)."""
    out = tmp_path_factory.mktemp("all") / "all"
    assert run(store, "export", "--parquet", str(out)).exit_code == 0
    return out


def run(store, *args: str):
    path, analytics = store
    return CliRunner().invoke(zx, ["--store", path, *args], env={"ZX_ANALYTICS": str(analytics)})


def read(out, table: str) -> pl.DataFrame:
    if table == "card_catalog":
        return pl.read_parquet(out / table / "card_catalog.parquet")
    return pl.read_parquet(out / table / "**" / "*.parquet", hive_partitioning=True)


def same(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    a, b = a.select(sorted(a.columns)), b.select(sorted(b.columns))
    return a.columns == b.columns and a.sort(a.columns).equals(b.sort(b.columns))


@pytest.mark.parametrize("filters", [
    ["--player", REN, "--opponent", MIO],
    ["--player", "ren tanaka", "--opp-deck", "Red Dragons"],
    ["--opponent", MIO, "--since", "2026-03-02", "--until", "2026-05-01"],
    ["--deck", "Black Reapers", "--game", "zx", "--event", "Sim League"],
])
def test_a_filtered_export_is_the_unfiltered_one_restricted_to_the_listed_matches(store, everything, tmp_path,
                                                                                   filters):
    listed = run(store, "matches", *filters, "--format", "json")
    assert listed.exit_code == 0, listed.output
    ids = [m["match"] for m in json.loads(listed.stdout)]
    assert 0 < len(ids) < 7
    out = tmp_path / "some"
    r = run(store, "export", "--parquet", str(out), *filters, "--format", "json")
    assert r.exit_code == 0, r.output
    written = {row["table"]: row["rows"] for row in json.loads(r.stdout)}
    assert f"exporting {len(ids)} match{'es' if len(ids) > 1 else ''} of 7 (" in r.stderr
    matches = read(everything, "matches")
    chosen = matches.filter(pl.col("match_id").is_in(ids))
    assert sorted(read(out, "matches")["match_id"].to_list()) == sorted(ids)
    numbers = chosen["match_no"].to_list()
    for table in PARTITIONED:  # (x610z_*: no rows in either, their columns alike)
        whole, part = read(everything, table), read(out, table)
        assert part.height == written[table], table
        assert same(part, whole.filter(pl.col("match_no").is_in(numbers))), table
    assert written["matches"] == len(ids) and written["seats"] == 2 * len(ids) and written["turns"] > 0
    pins = chosen.select("catalog", "catalog_sha256").unique()
    catalog = read(everything, "card_catalog").join(pins, on=["catalog", "catalog_sha256"], how="semi")
    assert catalog.height and same(read(out, "card_catalog"), catalog)
    text = (out / DICTIONARY).read_text(encoding="utf-8")
    assert text.startswith(_dictionary()) and "## This export: filtered" in text
    assert f"holds {len(ids)} of the 7 matches" in text and "zx export --" in text


def test_the_dictionary_names_the_filters_and_an_unfiltered_one_is_as_shipped(store, everything, tmp_path):
    assert (everything / DICTIONARY).read_text(encoding="utf-8") == _dictionary()  # no filter: as before
    out = tmp_path / "ren"
    assert run(store, "export", "--parquet", str(out), "--player", REN, "--opponent", MIO).exit_code == 0
    assert (out / DICTIONARY).read_text(encoding="utf-8").endswith(
        f"`zx export --player '{REN}' --opponent '{MIO}'` select (as `zx matches` selects them). Every table holds "
        f"the rows of those matches only, and `card_catalog` the catalogs they were checked against; an unfiltered "
        f"`zx export` holds them all.\n")


def test_an_unknown_name_is_the_lists_error_and_no_match_exports_nothing(store, tmp_path):
    out = tmp_path / "none"
    r = run(store, "export", "--parquet", str(out), "--opponent", "Mio Sat")
    assert r.exit_code == 1 and r.output.strip() == "Error: no player named 'Mio Sat' in the store; did you mean 'Mio Sato'?"
    assert r.output.strip() == run(store, "matches", "--opponent", "Mio Sat").output.strip()
    r = run(store, "export", "--parquet", str(out), "--player", REN, "--since", "2027-01-01")
    assert r.exit_code == 1 and "matches these filters: nothing was exported" in r.output
    r = run(store, "export", "--parquet", str(out), "--since", "2026-13-01")
    assert r.exit_code == 2 and "'2026-13-01' is not a date" in r.output
    assert not out.exists()  # nothing written, no folder made


def test_the_python_api_exports_the_matches_named(store, everything, tmp_path):
    from zx_analytics.db import connect_reader
    from zx_analytics.export import export_parquet

    con = connect_reader(store[1])
    try:
        rows = export_parquet(con, tmp_path / "api", matches=["h2", "h3", "nope"])
    finally:
        con.close()
    assert {r["table"]: r["rows"] for r in rows}["matches"] == 2
    assert sorted(read(tmp_path / "api", "matches")["match_id"].to_list()) == ["h2", "h3"]
    assert same(read(tmp_path / "api", "seats"), read(everything, "seats").filter(pl.col("match_id").is_in(["h2", "h3"])))


def test_filters_read_the_file_sandboxed_sql_planted_in_it_is_refused(tmp_path):
    """The filters read the file's matches through zx sql's sandbox, as the export's tables are read: a view planted
    in place of ``matches`` that lists a folder is refused, naming the table and the file, nothing written."""
    import duckdb

    path, analytics = build(tmp_path)
    con = duckdb.connect(str(analytics))
    con.execute("ALTER TABLE matches RENAME TO matches_real")
    con.execute(f"CREATE VIEW matches AS SELECT m.* REPLACE ((SELECT string_agg(file, ',') FROM glob('{tmp_path}/*')) "
                f"AS event) FROM matches_real m")
    con.close()
    out = tmp_path / "out"
    r = run((path, analytics), "export", "--parquet", str(out), "--player", REN)
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert (f"refused: the analytics file {analytics} holds SQL that zx did not write: reading its matches reached for "
            f"files, the network or extensions, which zx export does not allow") in r.output
    assert "h1.zxlog" not in r.output  # (no name of a file in the folder the view lists)
    assert not out.exists()
