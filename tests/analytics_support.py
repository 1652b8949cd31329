"""Hand-built matches with known outcomes for the analytics tests, and helpers to project them.

- ``m1`` (Test, 2026-11-01): Aki (Red Dragons, P1, first) beats Ren (Blue Control) on Life in
  turn 7. Battles: a Range attack that destroys, an attack on the player with an Event played in
  the Battle Event Step, a Life card played by its IG that triggers Life Recovery, a Charge
  Excess, and a last attack that ends the match inside its battle.
- ``m2`` (Cup, 2026-12-05): Ren (Blue Control, P2, first) beats Mio (Red Dragons, who took a
  mulligan) by concession in turn 2; Mio performed an Ignition that played a Z/X.
- ``m3`` (no date): the same opening as m1, one battle (the target survives), no result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from support import BOARD, SETUP, header, text
from zx_events.games.zx.decks import deck_by_name
from zx_events.logformat.reader import parse_log

P1P, P2P = {"do": "pass", "by": "P1"}, {"do": "pass", "by": "P2"}

M1 = [*BOARD,
      {"do": "play", "by": "P1", "card": "R01-005", "pay": ["R01-001", "R01-002", "R01-009"], "square": "c2"},
      {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, P1P, P2P,
      {"do": "attack", "by": "P1", "from": "b2", "target": "b3"},
      {"do": "play", "by": "P1", "card": "R01-014", "pay": []},
      {"do": "effect", "by": "P1", "source": "R01-014", "op": "power", "square": "b2", "delta": 1000,
       "until": "end_of_battle"},
      P2P, P1P,
      {"do": "life", "by": "P2", "card": "U01-005"},
      {"do": "attack", "by": "P1", "from": "a1", "target": "a2"}, P1P, P2P,
      {"do": "end", "by": "P1"},
      {"do": "turn", "by": "P2"},
      {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
      {"do": "play", "by": "P2", "card": "U01-009", "pay": ["U01-001", "U01-002"], "square": "a2"},
      {"do": "attack", "by": "P2", "from": "a2", "target": "a1"}, P2P, P1P,
      {"do": "end", "by": "P2"},
      {"do": "turn", "by": "P1"},
      {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-013"]},
      {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, P1P, P2P,
      {"do": "life", "by": "P2", "card": "U01-011", "ignite": {"square": "c3"}},
      {"do": "effect", "by": "P2", "source": "U01-011", "op": "recover", "card": "U01-016"},
      {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, P1P, P2P,
      {"do": "life", "by": "P2", "card": "U01-006"},
      {"do": "end", "by": "P1"},
      {"do": "turn", "by": "P2"},
      {"do": "draw", "by": "P2", "cards": ["U01-009", "U01-010"]},
      {"do": "end", "by": "P2"},
      {"do": "turn", "by": "P1"},
      {"do": "draw", "by": "P1", "cards": ["R01-003", "R01-013"]},
      {"do": "attack", "by": "P1", "from": "c2", "target": "b3"}, P1P, P2P,
      {"do": "life", "by": "P2", "card": "U01-013"},
      {"do": "charge_excess", "by": "P2", "trash": ["U01-001"]},
      {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, P1P, P2P,
      {"do": "life", "by": "P2", "card": "U01-016"}]

M2 = [{"do": "setup", "by": "P1", "hand": ["R01-001", "R01-002", "R01-004", "R01-009"],
       "mulligan": ["R01-003", "R01-013", "R01-010", "R01-014"],
       "life": ["R01-005", "R01-011", "R01-012", "R01-006"], "resource": ["R01-001", "R01-002"]},
      SETUP[1],
      {"do": "turn", "by": "P2"},
      {"do": "play", "by": "P2", "card": "U01-001", "pay": [], "square": "b2"},
      {"do": "attack", "by": "P2", "from": "b2", "target": "b1"}, P2P, P1P,
      {"do": "life", "by": "P1", "card": "R01-005"},
      {"do": "end", "by": "P2"},
      {"do": "turn", "by": "P1"},
      {"do": "draw", "by": "P1", "cards": ["R01-004", "R01-009"]},
      {"do": "ignition", "by": "P1", "charge": "R01-005", "revealed": "R01-013", "play": {"square": "c1"}},
      {"do": "concede", "by": "P1"}]

M3 = [*BOARD, {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}, P1P, P2P, {"do": "end", "by": "P1"}]


def headers() -> dict[str, dict]:
    h1 = header("m1")
    h2 = header("m2", first="P2", played_at="2026-12-05T18:30:00+09:00", event="Cup",
                players={"P1": deck_by_name("Red Dragons").to_header_player("Mio"),
                         "P2": deck_by_name("Blue Control").to_header_player("Ren")})
    h3 = header("m3")
    del h3["played_at"]
    return {"m1": h1, "m2": h2, "m3": h3}


def log_text(ids: tuple[str, ...] = ("m1", "m2", "m3")) -> str:
    """The hand-built matches as one zxlog file's text."""
    recs = {"m1": M1, "m2": M2, "m3": M3}
    h = headers()
    return "".join(text(recs[i], h[i]) for i in ids)


def imported_store(folder: Path, *options: str) -> Path:
    """The hand-built matches written to ``folder/hand.zxlog`` and imported by ``zx import`` (with
    ``options``) into ``folder/s.sqlite`` (its analytics file beside it, unless ``--no-analytics``)."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    log = folder / "hand.zxlog"
    log.write_text(log_text(), encoding="utf-8")
    store = folder / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(store), "import", *options, str(log)])
    assert r.exit_code == 0, r.output
    return store


def import_matches(svc: Any, ids: tuple[str, ...] = ("m1", "m2", "m3")) -> None:
    for log in parse_log(log_text(ids), "hand.zxlog"):
        out = svc.import_log(log)
        assert out.status == "imported", out.to_json()


TABLES = ("matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_games",
          "card_catalog")
SORT = {"matches": ["match_id"], "seats": ["match_id", "side"], "turns": ["match_id", "turn"],
        "card_catalog": ["catalog", "catalog_sha256", "code"], "draws": ["match_id", "seq", "card", "source"],
        "card_games": ["match_id", "player", "card"]}


def _read(con: Any, name: str, drop: tuple[str, ...] = ()) -> pl.DataFrame:
    return con.sql(f"SELECT * FROM {name}").pl().drop(list(drop)).sort(SORT.get(name, ["match_id", "seq"]))


def table(path: Path, name: str, drop: tuple[str, ...] = ()) -> pl.DataFrame:
    """A table of the analytics file as a frame, in a stable order."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return _read(con, name, drop)
    finally:
        con.close()


def all_tables(path: Path) -> dict[str, pl.DataFrame]:
    """Every table of ``TABLES``, as ``table`` reads it, through one connection (opening the file is ~30 ms:
    once a table made this a tenth of some tests' time)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {t: _read(con, t) for t in TABLES}
    finally:
        con.close()


def assert_same_tables(want: Path, got: Path) -> None:
    """Every analytics table of the file ``got`` equals that of ``want`` (row order included)."""
    from polars.testing import assert_frame_equal

    expected, actual = all_tables(want), all_tables(got)
    for name in expected:
        assert_frame_equal(actual[name], expected[name])


def started_ids(svc: Any) -> dict[str, int]:
    """match id -> the notification id of its Started event, read through the recorder."""
    out = {}
    for n in svc.recorder.select_notifications(start=None, limit=10_000, topics=["zx.match:Started"]):
        out[svc.mapper.to_domain_event(n).match_id] = n.id
    return out


def simulated_analytics(folder: Path, matches: int, seed: int) -> Path:
    """``matches`` simulated Z/X matches (``zx simulate --policy mixed``'s engine, ``seed``), each
    imported (every rule checked) into ``folder/s.sqlite`` and projected into ``folder/s.duckdb``;
    returns the analytics file."""
    from zx_analytics.projection import update
    from zx_events.application import MatchService
    from zx_events.games.zx.sim import simulate

    svc = MatchService(str(folder / "s.sqlite"))
    try:
        for sim in simulate(matches, seed, policy="mixed"):
            (log,) = parse_log("\n".join(sim.lines()) + "\n", "sim.zxlog")
            assert svc.import_log(log).status == "imported"
        update(svc, folder / "s.duckdb")
    finally:
        svc.close()
    return folder / "s.duckdb"
