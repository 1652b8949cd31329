"""How fast is the analytics projection, how much memory does it take, how fast are the stats?

1. Corpus: ``--matches`` simulated matches (zx_events.games.zx.sim, seeded) in a SQLite store, cached in
   ``--workdir`` between runs.
2. Projection (a child process, so its peak RSS is its own): ``update(..., rebuild=True)`` into a
   fresh DuckDB file. Figures: store events/s (the notification log advanced per second: every
   event, including the topics the tables do not need), projected events/s, peak RSS in MiB.
   Floor, same run, same rows: reading the projected notifications straight from SQLite and
   decoding every payload with orjson, nothing else; ratio = projection time / floor time.
3. Stats at scale: the projected tables are copied (new match ids) until they stand for
   ``--scale-events`` events (default 30M, at least 100,000 matches), then every stats query
   runs once cold and ``--repeat`` times warm (median), at two scales: ``--small-matches``
   (10,000) and the large one. Baselines per query: a pure-Python loop computing the same groups,
   counts and Wilson intervals over the same rows already fetched into lists of tuples
   (``python/warm`` = how many times slower it is), and one DuckDB scan of the columns the query
   reads (``sum(hash(cols))``; ratio = query / that scan).

4. Do copies flatter the figures? With ``--corpus`` (a store of distinct simulated matches, e.g.
   10,000), the small scale is that corpus itself (``made_of: distinct``), and ``copies_check``
   times the same number of matches built from 1/K of them copied K times: ``copies/distinct`` near
   1 (or above) says the copied large scale is not flattered by its copies.

Usage: .venv/bin/python bench/bench_analytics.py [--matches 2000] [--corpus STORE] [--scale-events 30000000]
       [--format json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from zx_analytics.projection import PAGE_SIZE  # noqa: E402
from zx_cli.output import emit  # noqa: E402

# what each stats query reads, for its floor: table -> columns
SEATS = ["match_no", "side", "played_on", "event", "deck", "name", "result"]
CARD_GAMES = ["match_no", "player", "card", "opening", "drawn", "played", "copies"]
READS = {
    "winrates --by deck": {"seats": SEATS + ["opp_deck"]},
    "winrates --by first": {"seats": SEATS + ["seat"]},
    "winrates --by archetype": {"seats": SEATS + ["archetype", "opp_archetype"]},
    "matchups": {"seats": SEATS + ["opp_deck"]},
    "matchups --by archetype": {"seats": SEATS + ["archetype", "opp_archetype"]},
    "attacks --by card": {"attacks": ["match_no", "player", "attacker_card", "outcome", "event_count"],
                          "seats": SEATS},
    "attacks --by target": {"attacks": ["match_no", "player", "target_kind", "target_card", "outcome"],
                            "seats": SEATS},
    "life --by seat": {"seats": SEATS + ["seat", "opp_turns", "damage_taken", "life_ignitions", "was_behind"]},
    "life --by turn": {"life": ["match_no", "turn", "player", "ig_played"], "seats": SEATS + ["seat", "turns"]},
    "cards": {"card_games": CARD_GAMES, "seats": SEATS},
    "cards --seat first --opp-deck D --since": {"card_games": CARD_GAMES, "seats": SEATS + ["seat", "opp_deck"]},
    "mulligans": {"seats": SEATS + ["seat", "hand_size", "mulligan"]},
    "archetypes": {"seats": SEATS + ["archetype", "colours", "opp_archetype"]},
    "meta --by week": {"seats": SEATS + ["opp_deck"]},
    "meta --by week --group archetype": {"seats": SEATS + ["archetype", "opp_archetype"]},
}
CALLS = {
    "winrates --by deck": ("winrates", {"by": "deck"}), "winrates --by first": ("winrates", {"by": "first"}),
    "winrates --by archetype": ("winrates", {"by": "archetype"}),
    "matchups": ("matchups", {}), "matchups --by archetype": ("matchups", {"by": "archetype"}),
    "attacks --by card": ("attacks", {"by": "card"}),
    "attacks --by target": ("attacks", {"by": "target"}), "life --by seat": ("life", {}),
    "life --by turn": ("life", {"by": "turn"}), "cards": ("cards", {}),
    "cards --seat first --opp-deck D --since": ("cards", {"seat": "first", "opp_deck": "Blue Control",
                                                          "since": "2026-03-01"}),
    "mulligans": ("mulligans", {}), "archetypes": ("archetypes", {}), "meta --by week": ("meta", {"by": "week"}),
    "meta --by week --group archetype": ("meta", {"by": "week", "group": "archetype"}),
}
CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from zx_events.application import MatchService
from zx_analytics.projection import update
svc = MatchService({store!r})
r = update(svc, {path!r}, rebuild=True, page_size={page})
out = r.to_json()
out["store_events"] = r.position
out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def corpus(workdir: Path, matches: int, seed: int) -> Path:
    from zx_events.application import MatchService
    from zx_events.logformat.reader import parse_log
    from zx_events.games.zx.sim import simulate

    store = workdir / f"corpus-{matches}-{seed}.sqlite"
    if store.exists():
        return store
    tmp = store.with_suffix(".partial")
    for p in workdir.glob(tmp.name + "*"):
        p.unlink()
    svc = MatchService(str(tmp))
    t = time.perf_counter()
    for i, sim in enumerate(simulate(matches, seed, policy="mixed"), 1):
        (log,) = parse_log("\n".join(sim.lines()) + "\n", f"sim-{i}.zxlog")
        svc.import_log(log)
        if i % 500 == 0:
            print(f"corpus: {i}/{matches} matches ({time.perf_counter() - t:.0f} s)", file=sys.stderr)
    svc.close()
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(tmp) + suffix)
        if src.exists():
            src.rename(str(store) + suffix)
    return store


def replicate(store: Path, times: int) -> Path:
    """The corpus ``times`` over (new aggregate ids, match ids suffixed ~k), to measure at scale
    without simulating every match: each copy's matches stay contiguous in the log."""
    import sqlite3

    if times <= 1:
        return store
    out = store.with_name(f"{store.stem}-x{times}.sqlite")
    if out.exists():
        return out
    shutil.copy(store, out)
    con = sqlite3.connect(out)
    base = con.execute("SELECT max(rowid) FROM stored_events").fetchone()[0]
    for k in range(1, times):
        con.execute(
            "INSERT INTO stored_events (originator_id, originator_version, topic, state) "
            "SELECT substr(originator_id, 1, 24) || printf('%08x', ?), originator_version, topic, "
            "CASE WHEN topic = 'zx.match:Started' THEN CAST(json_set(CAST(state AS TEXT), "
            "'$.match_id', json_extract(CAST(state AS TEXT), '$.match_id') || '~' || ?, "
            "'$.header.match', json_extract(CAST(state AS TEXT), '$.match_id') || '~' || ?) AS BLOB) "
            "ELSE state END FROM stored_events WHERE rowid <= ? ORDER BY rowid",
            [k, k, k, base])
        con.commit()
    con.close()
    return out


def projection_floor(store: Path, page_size: int) -> tuple[int, float]:
    """Read the projected topics' rows straight from SQLite and decode each payload: nothing less will do."""
    import sqlite3

    import orjson

    from zx_analytics.tables import TOPICS

    con = sqlite3.connect(store)
    t = time.perf_counter()
    n, last = 0, 0
    q = (f"SELECT rowid, originator_id, originator_version, topic, state FROM stored_events WHERE rowid > ? "
         f"AND topic IN ({','.join('?' * len(TOPICS))}) ORDER BY rowid LIMIT {int(page_size)}")
    while True:
        rows = con.execute(q, [last, *TOPICS]).fetchall()
        if not rows:
            break
        for r in rows:
            orjson.loads(r[4])
        n += len(rows)
        last = rows[-1][0]
    dt = time.perf_counter() - t
    con.close()
    return n, dt


def scale_up(src: Path, dst: Path, target_events: int, min_matches: int) -> tuple[int, int]:
    """Copy the tables under new match ids until they stand for ``target_events`` events."""
    import duckdb

    shutil.copy(src, dst)
    con = duckdb.connect(str(dst))
    base_matches = con.execute("SELECT count(*) FROM matches").fetchall()[0][0]
    store_events = con.execute("SELECT position FROM projection_position").fetchall()[0][0]
    copies = max(-(-target_events // max(store_events, 1)), -(-min_matches // max(base_matches, 1)))
    con.execute("SET preserve_insertion_order = false")
    tables = ["matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_games"]
    offset = con.execute("SELECT max(match_no) + 1 FROM matches").fetchall()[0][0]
    for t in tables:
        con.execute(f"CREATE TEMP TABLE base_{t} AS SELECT * FROM {t}")
    for k in range(1, copies):
        con.execute("BEGIN")
        for t in tables:
            con.execute(f"INSERT INTO {t} SELECT * REPLACE (match_id || '~{k}' AS match_id, "
                        f"match_no + {k * offset} AS match_no) FROM base_{t}")
        con.execute("COMMIT")
    con.execute("CHECKPOINT")
    con.close()
    return base_matches * copies, store_events * copies


# ---------------------------------------------------------------- the pure-Python baseline
Z = 1.959963984540054


def _wilson(k: int, n: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    p = k / n
    d = 1 + Z * Z / n
    c = p + Z * Z / (2 * n)
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (c - h) / d, (c + h) / d


def _rates(groups: dict) -> dict:
    return {k: (v, _wilson(v[1], v[0])) for k, v in groups.items()}


def _py_winrates(rows: dict, extra: int, by_pair: bool = False) -> dict:
    g: dict = {}
    for r in rows["seats"]:  # SEATS + [key]: deck 4, result 6, extra column 7
        if r[6] is None or (not by_pair and extra == 4 and r[4] == r[7]) or (by_pair and r[4] == r[7]):
            continue
        key = (r[4], r[7]) if by_pair else r[extra]
        v = g.setdefault(key, [0, 0])
        v[0] += 1
        v[1] += r[6] == "win"
    return _rates(g)


def _py_attacks(rows: dict, by_target: bool) -> dict:
    sides = {(r[0], r[1]) for r in rows["seats"]}
    g: dict = {}
    for a in rows["attacks"]:
        if (a[0], a[1]) not in sides:
            continue
        key = ("player" if a[2] == "player" else a[3]) if by_target else a[2]
        outcome = a[4] if by_target else a[3]
        v = g.setdefault(key, [0, 0, set()])
        v[0] += 1
        v[1] += outcome in ("destroyed", "player_damaged")
        v[2].add(a[0])
    return {k: ((v[0], v[1], len(v[2])), _wilson(v[1], v[0])) for k, v in g.items()}


def _py_life_seat(rows: dict) -> dict:
    g: dict = {}
    for r in rows["seats"]:  # seat 7, opp_turns 8, damage 9, ignitions 10, behind 11
        if r[6] is None:
            continue
        v = g.setdefault(r[7], [0, 0, 0, 0, 0, 0])
        v[0] += 1
        v[1] += r[8]
        v[2] += r[9]
        v[3] += r[10]
        v[4] += bool(r[11])
        v[5] += bool(r[11]) and r[6] == "win"
    return {k: (v, v[2] / max(v[1], 1), _wilson(v[5], v[4])) for k, v in g.items()}


def _py_life_turn(rows: dict) -> dict:
    seat = {(r[0], r[1]): r[7] for r in rows["seats"]}
    g: dict = {}
    for x in rows["life"]:  # match_no, turn, player, ig_played
        s = seat.get((x[0], x[2]))
        if s is None:
            continue
        v = g.setdefault((s, x[1]), [0, 0])
        v[0] += 1
        v[1] += bool(x[3])
    return g


def _py_cards(rows: dict) -> dict:
    """The 17lands metrics: oh, gd, gih, gns, played, deck (games, wins) per card, with Wilson intervals."""
    result = {(r[0], r[1]): r[6] for r in rows["seats"]}
    g: dict = {}
    for c in rows["card_games"]:  # match_no, player, card, opening, drawn, played, copies
        res = result.get((c[0], c[1]))
        if res is None:
            continue
        v = g.setdefault(c[2], [0] * 12)
        won = res == "win"
        facts = (c[3], not c[3] and c[4] > 0, c[3] or c[4] > 0, c[6] > 0 and not c[3] and c[4] == 0, c[5] > 0,
                 c[6] > 0)
        for i, f in enumerate(facts):
            if f:
                v[2 * i] += 1
                v[2 * i + 1] += won
    return {k: (v, [_wilson(v[2 * i + 1], v[2 * i]) for i in range(6)]) for k, v in g.items()}


PYTHON = {
    "winrates --by deck": lambda rows: _py_winrates(rows, 4),
    "winrates --by first": lambda rows: _py_winrates(rows, 7),
    "matchups": lambda rows: _py_winrates(rows, 7, by_pair=True),
    "attacks --by card": lambda rows: _py_attacks(rows, False),
    "attacks --by target": lambda rows: _py_attacks(rows, True),
    "life --by seat": _py_life_seat,
    "life --by turn": _py_life_turn,
    "cards": _py_cards,
}


def time_stats(path: Path, repeat: int) -> list[dict]:
    import duckdb

    from zx_analytics.stats import Stats

    rows = []
    con = duckdb.connect(str(path), read_only=True)
    st = Stats(con)
    for name, (method, kw) in CALLS.items():
        t = time.perf_counter()
        getattr(st, method)(**kw)
        cold = time.perf_counter() - t
        warm, cpu = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            df = getattr(st, method)(**kw)
            warm.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)  # every thread of this process: steadier on a shared machine
        floor = []
        for _ in range(repeat):
            t = time.perf_counter()
            for table, cols in READS[name].items():
                con.execute(f"SELECT sum(hash({', '.join(cols)})) FROM {table}").fetchall()
            floor.append(time.perf_counter() - t)
        w, f = statistics.median(warm), statistics.median(floor)
        # the pure-Python loop over the same rows, already fetched into lists of tuples (fetch not timed)
        groups, py = None, None
        if name in PYTHON:
            data = {table: con.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
                    for table, cols in READS[name].items()}
            t = time.perf_counter()
            groups = len(PYTHON[name](data))
            py = time.perf_counter() - t
            del data
        rows.append({"query": f"zx stats {name}", "rows": df.height, "python_groups": groups,
                     "cold_ms": round(cold * 1000, 1), "warm_ms": round(w * 1000, 1),
                     "warm_cpu_ms": round(statistics.median(cpu) * 1000, 1),
                     "python_ms": None if py is None else round(py * 1000, 1),
                     "python/warm": None if py is None else round(py / w, 1),
                     "floor_ms": round(f * 1000, 1), "ratio": round(w / f, 1),
                     "under_1s": w < 1.0})
    con.close()
    return rows


def subset(src: Path, dst: Path, keep: int) -> None:
    """A copy of the projected tables with only the first ``keep`` matches (by match_no)."""
    import duckdb

    shutil.copy(src, dst)
    con = duckdb.connect(str(dst))
    con.execute("CREATE TEMP TABLE keep AS SELECT match_no FROM matches ORDER BY match_no LIMIT ?", [keep])
    for t in ["matches", "seats", "plays", "attacks", "life", "ignitions", "turns", "draws", "card_games"]:
        con.execute(f"DELETE FROM {t} WHERE match_no NOT IN (SELECT match_no FROM keep)")
    con.execute("CHECKPOINT")
    con.close()


def _fresh(p: Path) -> Path:
    for q in (p, Path(str(p) + ".wal")):
        if q.exists():
            q.unlink()
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=2000, help="simulated matches in the corpus")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", default=None, metavar="STORE",
                    help="a SQLite store of distinct matches to project instead of simulating one "
                         "(e.g. 10,000 from zx simulate + zx import)")
    ap.add_argument("--replicate", type=int, default=1, help="project the corpus copied this many times")
    ap.add_argument("--page-size", type=int, default=PAGE_SIZE)
    ap.add_argument("--scale-events", type=int, default=30_000_000, help="events the scaled-up tables stand for")
    ap.add_argument("--min-matches", type=int, default=100_000, help="matches the scaled-up tables hold at least")
    ap.add_argument("--small-matches", type=int, default=10_000, help="matches of the smaller stats scale")
    ap.add_argument("--copies-check", type=int, default=5, metavar="K",
                    help="also time the small scale built from 1/K of the distinct matches copied K times "
                         "(do copies flatter the figures?); 0: skip")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workdir", default=os.environ.get("ZX_BENCH_DIR", "/tmp/zx-bench-analytics"))
    ap.add_argument("--skip-stats", action="store_true")
    ap.add_argument("--format", choices=["table", "json", "csv"], default="table")
    a = ap.parse_args()
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    store = Path(a.corpus) if a.corpus else corpus(work, a.matches, a.seed)
    store = replicate(store, a.replicate)
    duck = _fresh(work / "bench.duckdb")
    floor_n, floor_s = projection_floor(store, a.page_size)
    child = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), store=str(store), path=str(duck),
                                                               page=a.page_size)],
                           capture_output=True, text=True, check=True)
    r = json.loads(child.stdout.strip().splitlines()[-1])
    proj = [{
        "corpus_matches": r["matches"], "store_events": r["store_events"], "projected_events": r["events"],
        "seconds": r["seconds"], "store_events_per_s": round(r["store_events"] / r["seconds"]),
        "projected_events_per_s": round(r["events"] / r["seconds"]), "peak_rss_mib": round(r["peak_rss_mib"], 1),
        "floor_seconds": round(floor_s, 3), "floor_events_per_s": round(floor_n / floor_s), "ratio": round(
            r["seconds"] / floor_s, 2)}]
    out: dict = {"projection": proj}
    if not a.skip_stats:
        big = work / "bench-scaled.duckdb"
        scaled, stats = [], []
        distinct_small: dict[str, float] = {}
        for label, target_events, min_matches in (("distinct", 0, a.small_matches),
                                                  ("scaled", a.scale_events, a.min_matches)):
            matches, events = scale_up(duck, _fresh(big), target_events, min_matches)
            kind = "distinct" if matches == r["matches"] and not a.replicate > 1 else "copies"
            scaled.append({"matches": matches, "store_events": events, "made_of": kind})
            rows = time_stats(big, a.repeat)
            if label == "distinct":
                distinct_small = {x["query"]: (x["warm_ms"], x["warm_cpu_ms"]) for x in rows}
            stats += [{"matches": matches, "made_of": kind, **row} for row in rows]
        out["scaled"] = scaled
        out["stats"] = stats
        if a.copies_check and distinct_small:
            # the same size as the distinct scale, made of 1/K of its matches copied K times: if copies
            # flattered the figures, these would be faster than the distinct ones
            n = r["matches"]
            part = _fresh(work / "bench-part.duckdb")
            subset(duck, part, -(-n // a.copies_check))
            matches, _ = scale_up(part, _fresh(big), 0, n)
            check = []
            for row in time_stats(big, a.repeat):
                d, dc = distinct_small[row["query"]]
                check.append({"query": row["query"], "matches": matches, "distinct_warm_ms": d,
                              "copies_warm_ms": row["warm_ms"], "copies/distinct": round(row["warm_ms"] / d, 2),
                              "distinct_cpu_ms": dc, "copies_cpu_ms": row["warm_cpu_ms"],
                              "cpu copies/distinct": round(row["warm_cpu_ms"] / dc, 2) if dc else None})
            out["copies_check"] = check
    if a.format == "json":
        print(json.dumps(out))
        return
    for name, rows in out.items():
        print(f"# {name}")
        emit(rows, a.format)


if __name__ == "__main__":
    main()
