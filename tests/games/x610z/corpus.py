"""Issue 16's "done when", end to end over a simulated X610Z corpus (default 500 matches):

    PYTHONPATH=. python tests/games/x610z/corpus.py --matches 500 --seed 16 --dir /tmp/x610z-corpus

Each step is the product's own command (``zx ...`` in a fresh process, as a user runs it) on a SQLite
store, except the leak check, which is the property test of test_x610z_stored_leak.py run over
every stored match (every event, every seat: P1, P2, spectator):

1. ``zx simulate --game x610z`` writes the corpus (deterministic by seed: simulated twice, compared);
2. ``zx import`` imports it strictly (every match imported, none rejected);
3. the leak check replays every match from every seat (``zx_events.replay`` over the stored events);
4. ``zx audit`` re-checks every stored match (no violation, integrity ok);
5. ``zx verify`` recomputes every digest chain and the store seal;
6. ``zx matches --game x610z`` lists them and ``zx stats winrates --game x610z`` counts them.

Prints one line per step with its time, and exits 1 at the first step that fails. A small corpus of
the same script runs in the test suite (test_x610z_corpus.py)."""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]


def zx(store: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ZX_ANALYTICS": str(store.with_suffix(".duckdb"))}
    env.pop("ZX_STORE", None)
    return subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(store), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)


def check(store: Path, *args: str) -> subprocess.CompletedProcess:
    r = zx(store, *args)
    if r.returncode != 0:
        raise SystemExit(f"zx {' '.join(args)} failed (exit {r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r


def _leak_check(args: tuple[str, list[str]]) -> int:
    from test_x610z_stored_leak import check_match

    from zx_events.application import MatchService

    store, ids = args
    svc = MatchService(store)
    try:
        return sum(check_match(svc, mid) for mid in ids)
    finally:
        svc.close()


def run(matches: int, seed: int, folder: Path, workers: int = 2, say=print) -> dict:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    store, logs = folder / "corpus.sqlite", folder / "logs"
    out: dict = {"matches": matches, "seed": seed}

    t = time.perf_counter()
    check(store, "simulate", "--game", "x610z", "-n", str(matches), "--seed", str(seed), "--out", str(logs),
          "--per-file", "50")
    check(store, "simulate", "--game", "x610z", "-n", str(matches), "--seed", str(seed), "--out",
          str(folder / "again"), "--per-file", "50")
    cmp = filecmp.dircmp(logs, folder / "again")
    assert not cmp.diff_files and not cmp.left_only and not cmp.right_only, "the same seed gave other logs"
    shutil.rmtree(folder / "again")
    out["simulate_s"] = round(time.perf_counter() - t, 1)
    say(f"1. simulate: {matches} matches in {len(list(logs.iterdir()))} files, same seed same bytes "
        f"({out['simulate_s']} s)")

    t = time.perf_counter()
    r = check(store, "import", str(logs), "--format", "json")
    rows = json.loads(r.stdout)
    statuses = {x["status"] for x in rows}
    assert len(rows) == matches and statuses == {"imported"}, (len(rows), statuses)
    ids = [x["match"] for x in rows]
    out["events"] = sum(x["events"] for x in rows)
    out["import_s"] = round(time.perf_counter() - t, 1)
    say(f"2. import (strict): {len(ids)} imported, 0 rejected, {out['events']} events ({out['import_s']} s)")

    t = time.perf_counter()
    chunks = [ids[i::workers] for i in range(workers)]
    if workers == 1:  # (in this process: no pool to start, and its CPU time is this process's, not a late child's)
        views = _leak_check((str(store), ids))
    else:
        with ProcessPoolExecutor(workers) as pool:
            views = sum(pool.map(_leak_check, [(str(store), c) for c in chunks]))
    out["views_checked"] = views
    out["leak_s"] = round(time.perf_counter() - t, 1)
    say(f"3. replay from every seat: {views} views (every event x P1, P2, spectator) and every step's records "
        f"and events, no hidden card shown ({out['leak_s']} s)")

    t = time.perf_counter()
    r = check(store, "audit", *ids, "--format", "json")
    audits = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    assert len(audits) == matches and all(a["game"] == "x610z" and not a["violations"] for a in audits)
    assert all(a.get("integrity") == "ok" for a in audits), {a.get("integrity") for a in audits}
    out["audit_s"] = round(time.perf_counter() - t, 1)
    say(f"4. audit: {len(audits)} stored matches re-checked, 0 violations, integrity ok ({out['audit_s']} s)")

    t = time.perf_counter()
    r = check(store, "verify")
    assert f"{matches} intact, 0 failed" in r.stderr + r.stdout, r.stderr[-500:]
    out["verify_s"] = round(time.perf_counter() - t, 1)
    say(f"5. verify: {matches} intact, 0 failed, store seal checked ({out['verify_s']} s)")

    t = time.perf_counter()
    listed = json.loads(check(store, "matches", "--game", "x610z", "--format", "json").stdout)
    assert len(listed) == matches and {m["game"] for m in listed} == {"x610z"}
    wr = json.loads(check(store, "stats", "winrates", "--game", "x610z", "--format", "json").stdout)
    seats = sum(r["games"] for r in wr)
    finished = sum(1 for m in listed if m["winner"] or m["reason"])
    assert seats == 2 * finished - 2 * sum(1 for m in listed if m["p1_deck"] == m["p2_deck"]), (seats, finished)
    first = json.loads(check(store, "stats", "winrates", "--by", "first", "--game", "x610z", "--format",
                             "json").stdout)
    out["stats_s"] = round(time.perf_counter() - t, 1)
    out["winrates"] = {r["deck"]: [r["games"], r["wins"]] for r in wr}
    out["first"] = {r["seat"]: [r["games"], r["wins"]] for r in first}
    say(f"6. zx matches --game x610z: {len(listed)}; zx stats winrates --game x610z: "
        + ", ".join(f"{d} {w}/{g}" for d, (g, w) in out["winrates"].items())
        + f"; first player {out['first'].get('first')} ({out['stats_s']} s)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=500)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--dir", default="x610z-corpus")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    t = time.perf_counter()
    out = run(a.matches, a.seed, Path(a.dir), a.workers)
    print(f"all checks passed in {time.perf_counter() - t:.0f} s: {json.dumps(out)}")


if __name__ == "__main__":
    main()
