"""Three nits of ``zx stats`` (QA round 36): ``winrates --by first`` listed the seat with more games first (``second``
for a player who went second more often); ``mulligans`` listed ``kept`` last, far from ``keep_rate`` whose count it
is, where it read as ``kept_games`` again; ``life``'s averages were drawn to four significant digits (``0.4896``
beside ``0.365``) where its rates have one decimal of a percent."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

from analytics_support import M1, M3, headers, log_text
from support import text
from zx_analytics.projection import update
from zx_analytics.stats import Stats
from zx_cli.main import zx
from zx_events.application import MatchService
from zx_events.logformat.reader import parse_log


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """m1, m2, m3 of analytics_support, m1 twice more (m1b, m1c) and m3 once more (m3b): Ren went first in m2 and
    second in m1, m1b, m1c (finished: 1 game first, 3 second); m3 and m3b have no result (their hands kept, not
    finished)."""
    folder = tmp_path_factory.mktemp("stats-nits")
    logs = log_text()
    for copy_id, of, records in (("m1b", "m1", M1), ("m1c", "m1", M1), ("m3b", "m3", M3)):
        h = copy.deepcopy(headers()[of])
        h["match"] = copy_id
        logs += text(records, h)
    svc = MatchService(str(folder / "s.sqlite"))
    for log in parse_log(logs, "nits.zxlog"):
        assert svc.import_log(log).status == "imported"
    update(svc, folder / "s.duckdb")
    svc.close()
    return str(folder / "s.sqlite"), str(folder / "s.duckdb")


def stats(files, *args: str, columns: int = 200):
    store, analytics = files
    r = CliRunner().invoke(zx, ["--store", store, "stats", *args, "--analytics", analytics],
                           env={"COLUMNS": str(columns)})
    assert r.exit_code == 0, r.output
    return r.stdout


def test_winrates_by_first_lists_first_then_second_whatever_their_games(files):
    with Stats(files[1], min_games=1) as st:
        df = st.winrates(by="first", player="Ren")
        assert df["seat"].to_list() == ["first", "second"], df
        assert df["games"].to_list() == [1, 3]  # (second has more games: it was listed first)
        assert st.winrates(by="first")["seat"].to_list() == ["first", "second"]
        assert st.winrates(by="player")["player"].to_list()[0] in ("Aki", "Ren")  # the other keys: by games, as ever
        assert st.winrates(by="player")["games"].to_list() == sorted(st.winrates(by="player")["games"], reverse=True)
    rows = [line.split("│")[1].strip() for line in stats(files, "winrates", "--by", "first", "--player", "Ren")
            .splitlines() if line.startswith("│")]
    assert rows == ["first", "second"]


def test_mulligans_lists_each_rate_after_its_counts(files):
    """``kept`` (hands kept, finished or not: keep_rate's count) next to ``keep_rate``; ``kept_games`` (the finished
    ones: kept_win_rate's) next to its rate. They differ by the unfinished matches (m3)."""
    with Stats(files[1], min_games=1) as st:
        df = st.mulligans()
    assert df.columns[:4] == ["seat", "hand_size", "games", "kept"], df.columns
    assert df.columns.index("keep_rate") == 4
    assert df.columns.index("kept_games") < df.columns.index("kept_wins") < df.columns.index("kept_win_rate")
    assert df.columns.index("mulligan_games") < df.columns.index("mulligan_wins") < df.columns.index(
        "mulligan_win_rate")
    first = df.filter(df["seat"] == "first").row(0, named=True)
    assert (first["games"], first["kept"], first["kept_games"]) == (6, 6, 4)  # m3's, m3b's kept hands: no result
    header = next(line for line in stats(files, "mulligans").splitlines() if "seat" in line)
    cells = [c.strip() for c in header.strip("┃").split("┃")]
    assert cells[:6] == ["seat", "hand_size", "games", "kept", "keep_rate", "kept_games"], cells


def test_life_averages_to_two_decimals_in_a_table_every_digit_in_json_and_csv(files):
    by_turn = json.loads(stats(files, "life", "--by", "turn", "--format", "json"))
    exact = [r["damage_per_game"] for r in by_turn if r["damage_per_game"] is not None]
    assert any(round(v, 2) != v for v in exact), exact  # a figure with more digits than two
    table = stats(files, "life", "--by", "turn")
    header = next(line for line in table.splitlines() if "damage_per_game" in line)
    at = [c.strip() for c in header.strip("┃").split("┃")].index("damage_per_game")
    shown = [line.strip("│").split("│")[at].strip() for line in table.splitlines() if line.startswith("│")]
    assert shown == [f"{v:.2f}" for v in (r["damage_per_game"] for r in by_turn)], shown
    csv = stats(files, "life", "--by", "turn", "--format", "csv").splitlines()
    col = csv[0].split(",").index("damage_per_game")
    assert [float(line.split(",")[col]) for line in csv[1:]] == [r["damage_per_game"] for r in by_turn]
    by_seat = json.loads(stats(files, "life", "--format", "json"))
    table = stats(files, "life")
    for r in by_seat:
        assert f" {r['damage_per_turn']:.2f} " in table, table


def test_a_rate_empty_in_every_row_gives_way_in_a_narrow_table(capsys, monkeypatch):
    """X610Z's life has no Ignition: its ignition_rate is empty in every row, yet a narrow table kept it before the
    rates with values (QA round 36, `zx stats life --game x610z` at 80 columns)."""
    import polars as pl

    from zx_cli.output import emit_frame

    df = pl.DataFrame({"seat": ["first", "second"], "games": [300, 300], "damage": [900, 950],
                       "ignitions": [None, None], "ignition_rate": [None, None], "ignition_rate_low": [None, None],
                       "ignition_rate_high": [None, None], "behind_games": [115, 150], "comebacks": [60, 77],
                       "comeback_rate": [0.522, 0.513], "comeback_rate_low": [0.431, 0.434],
                       "comeback_rate_high": [0.611, 0.592]},
                      schema_overrides={"ignitions": pl.Int64, "ignition_rate": pl.Float64,
                                        "ignition_rate_low": pl.Float64, "ignition_rate_high": pl.Float64})
    emit_frame(df, "table", width=60)
    out = capsys.readouterr()
    assert "comeback_rate" in out.out and "ignition_rate" not in out.out, out.out
    assert "ignition_rate" not in out.err  # (since round 37 not drawn at all, at any width: no column left out to
    # fit; CSV and JSON keep it)
