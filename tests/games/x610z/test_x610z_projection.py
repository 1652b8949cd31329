"""X610Z through the real analytics projection (zx_analytics/projection.py over a SQLite and a
PostgreSQL store into a DuckDB file): the projection calls ``HANDLERS[topic]`` directly, never
``MatchRows.feed``, so the rows it writes must be the ones ``feed`` gives over the same stored events,
with every attack (outcome included) written once, whatever the page size."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import duckdb
import orjson
import pytest

from zx_analytics.projection import update
from zx_events.games.x610z import rows
from zx_events.games.x610z.cards import load_catalog
from zx_events.games.x610z.sim import simulate
from zx_events.logformat.reader import parse_log

ROOT = Path(__file__).resolve().parents[3]
LEGAL = sorted((ROOT / "examples" / "x610z" / "legal").glob("*.x610zlog"))
OWN = ("x610z_attacks", "x610z_life", "x610z_moves", "x610z_casts")


def import_corpus(svc) -> list[str]:
    ids = []
    for path in LEGAL:
        for log in parse_log(path.read_text(encoding="utf-8"), str(path)):
            assert svc.import_log(log).status == "imported"
            ids.append(log.match_id)
    for sim in simulate(6, 21, policy="mixed"):
        (log,) = parse_log("\n".join(sim.lines()) + "\n", f"sim-{sim.header['match']}.x610zlog")
        assert svc.import_log(log).status == "imported"
        ids.append(log.match_id)
    return ids


def fed(svc, match_ids: list[str]) -> dict[str, list[tuple]]:
    """The rows ``MatchRows.feed`` gives over each stored match's events, in the projection's shape
    (match_no: the notification id of the match's Started event, as the projection numbers them)."""
    energy = rows.energy_of(load_catalog("x610z-sample"))
    started = {orjson.loads(n.state)["match_id"]: (n.originator_id, n.id)
               for n in svc.recorder.select_notifications(start=1, limit=100_000) if n.topic.endswith(":Started")}
    buf = rows.new_buffers()
    topics = set(rows.TOPICS)
    for mid in match_ids:
        oid, no = started[mid]
        m = rows.MatchRows(str(oid), no, buf)
        for se in svc.recorder.select_events(UUID(str(oid))):
            if se.topic not in topics:
                continue
            d = orjson.loads(se.state)
            if se.topic.endswith(":Started"):
                m.started(d, energy)
            else:
                m.feed(se.originator_version, se.topic, d)
        m.close()
    return buf


def table(path: Path, name: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        cols = ", ".join(rows.COLUMNS[name])
        return sorted(con.execute(f"SELECT {cols} FROM {name}").fetchall(), key=repr)
    finally:
        con.close()


def resolved_attacks(svc) -> int:
    """Attacks that resolved or fizzled, counted from the stored Announced/Resolved pairs."""
    n = 0
    for note in svc.recorder.select_notifications(start=1, limit=100_000):
        if note.topic == rows.event_topic("Announced") and orjson.loads(note.state)["entry"]["kind"] == "attack":
            n += 1
    return n


@pytest.mark.parametrize("page_size", [50_000, 7])
def test_x610z_projection_writes_the_rows_feed_gives(service, tmp_path, page_size):
    ids = import_corpus(service)
    path = tmp_path / "a.duckdb"
    result = update(service, path, page_size=page_size)
    assert result.matches == len(ids)
    want = fed(service, ids)
    for name in OWN:
        expected = sorted((tuple(r) for r in want[name]), key=repr)
        got = table(path, name)
        assert len(got) == len(expected), name
        assert [tuple(_plain(v) for v in r) for r in got] == [tuple(_plain(v) for v in r) for r in expected], name
    attacks = [dict(zip(rows.COLUMNS["x610z_attacks"], r)) for r in table(path, "x610z_attacks")]
    assert len(attacks) == resolved_attacks(service) > 0
    outcomes = {a["outcome"] for a in attacks}
    assert "destroyed" in outcomes and "damaged" in outcomes, outcomes
    for a in attacks:
        assert a["outcome"] in ("destroyed", "damaged", "fizzled") and a["distance"] >= 1
        assert (a["damage"] == 0) if a["outcome"] == "fizzled" else a["damage"] >= 0


def test_x610z_projection_fills_the_shared_tables_for_win_rates(service, tmp_path):
    ids = import_corpus(service)
    path = tmp_path / "a.duckdb"
    update(service, path)
    con = duckdb.connect(str(path), read_only=True)
    try:
        games = con.execute("SELECT game, count(*) FROM matches GROUP BY ALL").fetchall()
        assert games == [("x610z", len(ids))]
        seats = con.execute("SELECT result, count(*) FROM seats WHERE game = 'x610z' GROUP BY ALL ORDER BY 1").fetchall()
        wins = dict(seats)
        assert wins["win"] == wins["loss"] == len(ids)  # every corpus match ends with a winner
        warps = con.execute("SELECT count(*) FROM x610z_moves WHERE warp").fetchone()[0]
        life = con.execute("SELECT count(*), sum(amount) FROM x610z_life").fetchone()
        taken = con.execute("SELECT sum(damage_taken) FROM seats WHERE game = 'x610z'").fetchone()[0]
        assert life[0] > 0 and 0 < taken <= life[1]  # damage marked at the end: dealt, less any healed
        first = con.execute("SELECT amount, damage_after FROM x610z_life QUALIFY "
                            "row_number() OVER (PARTITION BY match_id, player ORDER BY seq) = 1").fetchall()
        assert first and all(amount == after > 0 for amount, after in first)
        assert warps >= 0
        cards = con.execute("SELECT count(*) FROM card_catalog WHERE catalog = 'x610z-sample'").fetchone()[0]
        assert cards == len(load_catalog("x610z-sample").cards)
    finally:
        con.close()


def _plain(v):
    """DuckDB gives back dates and bools as Python values; the buffers hold the same (tuples -> lists)."""
    return list(v) if isinstance(v, tuple) else v


def test_x610z_turns_damage_dealt_is_the_life_damage_the_turn_players_opponent_took(service, tmp_path):
    """``turns.damage_dealt`` is "Life damage points the opponent took in this turn" (docs/data-dictionary.md):
    it added an attack's damage whatever its target (a summon too) and an effect's to any dot, and left out
    an effect of the opponent's on its own turn-opponent's Life Base: on 50 simulated matches 108 of 694 turns
    differed from what x610z_life says the Life Bases took (378 against 173). Recounted from x610z_life, every
    turn is equal (analytics schema 10)."""
    import_corpus(service)
    path = tmp_path / "a.duckdb"
    update(service, path)
    con = duckdb.connect(str(path), read_only=True)
    try:
        turns, differ, dealt, life = con.execute(
            "WITH l AS (SELECT match_no, turn, player, sum(amount) AS lb FROM x610z_life GROUP BY ALL) "
            "SELECT count(*), count(*) FILTER (WHERE t.damage_dealt <> coalesce(l.lb, 0)), sum(t.damage_dealt), "
            "(SELECT sum(amount) FROM x610z_life) FROM turns t LEFT JOIN l "
            "ON l.match_no = t.match_no AND l.turn = t.turn AND l.player <> t.player").fetchone()
        summons = con.execute("SELECT count(*) FROM x610z_attacks WHERE NOT target_life AND damage > 0").fetchone()[0]
        own = con.execute("SELECT coalesce(sum(l.amount), 0) FROM x610z_life l JOIN turns t USING (match_no, turn) "
                          "WHERE l.player = t.player").fetchone()[0]  # a turn player's own Life Base, in its turn
    finally:
        con.close()
    assert summons > 0 and turns > 0  # (the corpus has attacks on summons: what was counted as Life damage)
    assert differ == 0 and dealt + own == life, (turns, differ, dealt, life, own)



def test_503_1_x610z_life_source_is_a_card_code_and_a_file_of_the_schema_before_is_rebuilt(service, tmp_path):
    """``x610z_life.source`` is "the card that dealt it" (docs/data-dictionary.md): an effect whose source is a
    summon named by its dot (an ability, a trigger) has that summon's code, never the dot (QA round 27: 790 of 1,707
    effect rows held "E6", "S1"). A file built before (schema 12, its rows with dots) is refused until rebuilt, and
    the rebuild writes the codes (analytics schema 13)."""
    from zx_analytics.db import SCHEMA_VERSION, AnalyticsError

    import_corpus(service)
    dotted = sum(1 for n in service.recorder.select_notifications(start=1, limit=100_000)
                 if n.topic == rows.event_topic("EffectApplied") and (d := orjson.loads(n.state))["op"] == "damage"
                 and "-" not in d["source"])
    assert dotted > 0  # (the corpus has effects whose source is a dot)
    path = tmp_path / "a.duckdb"
    update(service, path)

    def sources() -> list[tuple]:
        con = duckdb.connect(str(path), read_only=True)
        try:
            return con.execute("SELECT cause, source FROM x610z_life WHERE source IS NULL "
                               "OR NOT regexp_matches(source, '^[A-Z][0-9]+-[0-9]+$')").fetchall()
        finally:
            con.close()

    assert sources() == []
    con = duckdb.connect(str(path))
    try:  # (a file of the schema before: an effect's source as its log wrote it, a dot)
        con.execute("UPDATE x610z_life SET source = 'S6' WHERE cause = 'effect'")
        con.execute("UPDATE projection_position SET schema_version = ?", [SCHEMA_VERSION - 1])
    finally:
        con.close()
    with pytest.raises(AnalyticsError, match=f"schema {SCHEMA_VERSION - 1}, this version writes {SCHEMA_VERSION}: "
                                             f"run `zx analytics update --rebuild`"):
        update(service, path)
    update(service, path, rebuild=True)
    assert sources() == []
