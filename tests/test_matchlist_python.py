"""The match list in Python (docs/replay.md, "The match list in Python"): ``zx_events.matchlist`` (it was
``zx_web.matchlist``) keeps exactly the rows ``zx matches`` lists, and the ids it
keeps are the export ``zx export`` writes with the same filters. QA round 37: the list's filters had no
documented Python way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from test_docs_examples import ROOT, python_blocks, run
from zx_cli.main import zx
from zx_events.application import MatchService
from zx_events.errors import Error
from zx_events.matchlist import FilterError, MatchFilters, kept, record_line, records


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("matchlist")
    r = CliRunner().invoke(zx, ["demo", "-n", "3", "--dir", str(folder / "zx-demo")])
    assert r.exit_code == 0, r.output
    return folder


@pytest.fixture(scope="module")
def summaries(demo) -> list[dict]:
    with MatchService(str(demo / "zx-demo" / "events.sqlite"), create=False) as svc:
        return svc.summaries()


def zx_matches(demo: Path, *options: str) -> tuple[list[dict], str]:
    r = CliRunner().invoke(zx, ["--store", str(demo / "zx-demo" / "events.sqlite"), "matches", *options,
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout), r.stderr


@pytest.mark.parametrize("options, filters, sort", [
    ((), {}, None),
    (("--game", "zx", "--deck", "Red Dragons", "--since", "2026-04-01", "--sort", "newest"),
     {"game": "zx", "deck": "Red Dragons", "since": "2026-04-01"}, "newest"),
    (("--player", "P2 bot"), {"player": "P2 bot"}, None),
    (("--player", "p2 BOT", "--opp-deck", "Mystic Rush", "--sort", "oldest"),
     {"player": "p2 BOT", "opp_deck": "Mystic Rush"}, "oldest"),
    (("--opponent", "Riku", "--until", "2026-12-31"), {"opponent": "Riku", "until": "2026-12-31"}, None),
    (("--winner", "P2", "--event", "x610z simulation"), {"winner": "P2", "event": "x610z simulation"}, None),
    (("--player", "P1 bot", "--winner", "P1 bot"), {"player": "P1 bot", "winner": "P1 bot"}, None),
])
def test_kept_gives_exactly_the_rows_of_zx_matches(demo, summaries, options, filters, sort):
    listed, said = zx_matches(demo, *options)
    rows = kept(summaries, MatchFilters(**filters), sort=sort)
    assert rows == listed and rows
    if filters.get("player") and not filters.get("winner"):  # the record line zx matches ends with
        (rec,) = records(rows)
        assert f"record: {record_line(MatchFilters(**filters), rec, rows)}" in said


def test_the_docs_example_runs_against_the_demo_and_prints_what_it_says(demo):
    (block,) = python_blocks("replay.md", "The match list in Python")
    out = run(block, demo).splitlines()
    doc = (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    said = re.search(r"it prints `([^`]+)`, then\s+`([^`]+)`, then `([^`]+)`, and writes", doc, flags=re.S)
    assert said, "docs/replay.md says what the example prints"
    assert out == [" ".join(s.split()) for s in said.groups()]
    # the export is zx export's with the same filter: the same matches
    r = CliRunner().invoke(zx, ["--store", str(demo / "zx-demo" / "events.sqlite"), "export", "--player", "P2 bot",
                                "--analytics", str(demo / "zx-demo" / "events.duckdb"), "--parquet",
                                str(demo / "cli-export")])
    assert r.exit_code == 0, r.output

    def ids(folder: Path) -> list[str]:
        return sorted(pl.read_parquet(folder / "matches" / "**" / "*.parquet")["match_id"].to_list())

    assert ids(demo / "p2-bot") == ids(demo / "cli-export") and len(ids(demo / "p2-bot")) == 3
    # and its dictionary says it is filtered, as zx export's does (it read as a whole export: QA round 37)
    said = (demo / "p2-bot" / "data-dictionary.md").read_text(encoding="utf-8")
    assert "## This export: filtered\n\nThis export holds 3 of the 6 matches of the analytics file: those that the " \
           "ids given to `export_parquet(matches=...)` select" in said, said[-600:]


def test_bad_filters_are_errors():
    for bad in ({"since": "2026-02-30"}, {"since": "2026-03-01", "until": "2026-02-01"}, {"game": "chess"}):
        with pytest.raises(FilterError) as e:
            MatchFilters(**bad)
        assert isinstance(e.value, Error) and isinstance(e.value, ValueError)
    with pytest.raises(FilterError, match=r"sort: 'nwest' is not one of store, newest, oldest"):
        kept([], MatchFilters(), sort="nwest")
    with pytest.raises(TypeError, match=r"player must be text \(a str\) or None, got int 5"):
        MatchFilters(player=5)  # (AttributeError from inside, as the rows were filtered)


def test_an_unknown_filter_is_an_argument_type_error_naming_the_closest():
    """`MatchFilters(oponent=...)` was Python's plain TypeError, no suggestion, which `except Error` missed (QA round
    37), where `Stats.winrates(oponent=)` names the closest."""
    from zx_events.errors import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match=r"MatchFilters has no filter 'oponent'; did you mean 'opponent'\?"):
        MatchFilters(oponent="Ren")
