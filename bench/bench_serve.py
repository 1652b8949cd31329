"""How fast does ``zx serve`` answer, under concurrent clients, on a store of 10,000 matches?

Starts the real server (``zx serve``, uvicorn, one process unless --workers) on 127.0.0.1 at a free
port, then runs a bounded asyncio + httpx client loop: C clients (1, 10 and 50 by default), each
sending its share of R requests one after the other. Every request goes to 127.0.0.1 only, and the
run stops by itself. Per phase it prints the median, p99 and max latency, the throughput and the
errors (any status but 200, or a failed connection), and the ratios to the floor:

- floor (HTTP):      GET /api/status at the same concurrency: the server's framework, one cached
                     dict and the HTTP round trip, with no work behind it;
- floor (in-process): the work of the endpoint called in this process, no HTTP (the median of the
                     same view computed by replay.load_history + step_at + to_json, and of the
                     same Stats query on a warm DuckDB connection).

Phases:
- view (random):   /api/matches/{id}/view?at=N&as=SEAT for random matches, events and seats: a new
                   match almost every time (the server's history cache holds 256 of 10,000);
- view (stepping): 20 matches stepped through event by event, as the replay page and a client do;
- stats (cold):    every /api/stats endpoint and "by" with different filters (decks, date ranges):
                   each query reaches DuckDB once;
- stats (warm):    the same requests again: served from the server's cache of results.

Targets (issue 18): view p99 under 20 ms, stats p99 under 100 ms, no error under 50 concurrent
clients. The machine has 2 cores shared with the client loop (and here with other work): with C
clients in a closed loop every request waits for the ones ahead of it, so p99 grows with C as
(service time x C / cores); the 1-client figures show the service time itself.

The store: --store/--analytics, or --dir (default /tmp/zx-bench-serve) where --matches (default
10,000) simulated matches are written and imported by `zx simulate` and `zx import` once (a few
minutes) and reused by later runs.

Usage: .venv/bin/python bench/bench_serve.py [--store PATH --analytics PATH | --dir DIR --matches N]
                                             [--clients 1,10,50] [--requests 2000] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ZX = [sys.executable, "-c", "from cli.main import main; main()"]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


def build(folder: Path, matches: int) -> tuple[str, str]:
    store, analytics = folder / "events.sqlite", folder / "events.duckdb"
    if store.exists() and analytics.exists():
        return str(store), str(analytics)
    folder.mkdir(parents=True, exist_ok=True)
    print(f"building {matches} matches into {folder} (zx simulate + zx import; a few minutes)", file=sys.stderr)
    subprocess.run([*ZX, "simulate", "-n", str(matches), "--seed", "11", "--out", str(folder / "logs"),
                    "--policy", "mixed", "--per-file", "100", "--format", "json"], check=True, env=ENV,
                   stdout=subprocess.DEVNULL)
    logs = sorted(str(p) for p in (folder / "logs").glob("*.zxlog"))
    subprocess.run([*ZX, "--store", str(store), "import", *logs, "--format", "json"], check=True, env=ENV,
                   stdout=subprocess.DEVNULL)
    return str(store), str(analytics)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered))) - 1))]


async def run_phase(base: str, urls: list[str], clients: int) -> dict[str, Any]:
    """``clients`` workers share ``urls`` (each sent once, in order of taking); latency per request."""
    import httpx

    queue: asyncio.Queue[str] = asyncio.Queue()
    for u in urls:
        queue.put_nowait(u)
    latencies: list[float] = []
    errors: list[str] = []

    # one client per worker, each with one keep-alive connection (a shared httpx pool degrades with many
    # connections), made and connected before the clock starts: their set-up is the client's cost
    clients_ = [httpx.AsyncClient(base_url=base, timeout=60.0, verify=False,
                                  limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))
                for _ in range(clients)]
    for c in clients_:
        await c.get("/api/status")

    async def worker(client: Any) -> None:
        while True:
            try:
                url = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            t = time.perf_counter()
            try:
                r = await client.get(url)
                if r.status_code != 200:
                    errors.append(f"{r.status_code} {url}: {r.text[:120]}")
            except httpx.HTTPError as e:
                errors.append(f"{type(e).__name__} {url}")
            latencies.append(time.perf_counter() - t)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(c) for c in clients_))
    wall = time.perf_counter() - t0
    for c in clients_:
        await c.aclose()
    return {"n": len(latencies), "median_ms": statistics.median(latencies) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000, "max_ms": max(latencies) * 1000,
            "req_s": len(latencies) / wall, "errors": errors}


def view_urls(rng: random.Random, matches: list[tuple[str, int]], n: int) -> list[str]:
    out = []
    for _ in range(n):
        mid, last = rng.choice(matches)
        out.append(f"/api/matches/{mid}/view?at={rng.randint(1, last)}&as={rng.choice(['spectator', 'P1', 'P2'])}")
    return out


def stepping_urls(rng: random.Random, matches: list[tuple[str, int]], n: int) -> list[str]:
    out: list[str] = []
    for mid, last in rng.sample(matches, min(20, len(matches))):
        out += [f"/api/matches/{mid}/view?at={at}&as=P1" for at in range(1, last + 1)]
    return out[:n]


def stats_urls(decks: list[str], days: list[str], n: int) -> list[str]:
    kinds = ["winrates?by=deck", "winrates?by=first", "winrates?by=colour", "matchups", "attacks?by=card",
             "attacks?by=square", "attacks?by=target", "life?by=seat", "life?by=turn", "cards"]
    filters = [""] + [f"&deck={d.replace(' ', '%20')}" for d in decks] + [f"&since={d}" for d in days]
    urls = []
    for f in filters:
        for k in kinds:
            sep = "&" if "?" in k else "?"
            urls.append(f"/api/stats/{k}{sep}min_games=30{f}")
    return urls[:n]


def in_process_floor(store: str, analytics: str, matches: list[tuple[str, int]], rng: random.Random) -> dict:
    from analytics.db import connect_reader
    from analytics.stats import Stats
    from zx_events import replay
    from zx_events.application import MatchService

    svc = MatchService(store)
    view = []
    for _ in range(200):
        mid, last = rng.choice(matches)
        t = time.perf_counter()
        replay.load_history(svc, mid).step_at(rng.randint(1, last), "P1").state.to_json()
        view.append(time.perf_counter() - t)
    svc.close()
    con = connect_reader(Path(analytics))
    st = Stats(con)
    calls = [lambda: st.winrates(by="deck"), lambda: st.matchups(), lambda: st.attacks(by="card"),
             lambda: st.life(by="turn"), lambda: st.cards()]
    stats = []
    for _ in range(3):
        for c in calls:
            t = time.perf_counter()
            c()
            stats.append(time.perf_counter() - t)
    con.close()
    return {"view_ms": statistics.median(view) * 1000, "stats_ms": statistics.median(stats) * 1000}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", default=None, help="the store (a SQLite path or postgresql:// URL)")
    ap.add_argument("--analytics", default=None, help="its analytics file")
    ap.add_argument("--dir", default="/tmp/zx-bench-serve", help="where to build (and reuse) the store")
    ap.add_argument("--matches", type=int, default=10_000, help="matches to build (default 10,000)")
    ap.add_argument("--clients", default="1,10,50", help="concurrent clients per phase (default 1,10,50)")
    ap.add_argument("--requests", type=int, default=2000, help="requests per phase (default 2000)")
    ap.add_argument("--workers", type=int, default=1, help="zx serve --workers (default 1)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if (args.store is None) != (args.analytics is None):
        ap.error("give --store and --analytics together, or neither (then --dir is built)")
    store, analytics = (args.store, args.analytics) if args.store else build(Path(args.dir), args.matches)
    clients = [int(c) for c in args.clients.split(",")]
    rng = random.Random(args.seed)

    from analytics.db import connect_reader

    con = connect_reader(Path(analytics))
    ids = [r[0] for r in con.execute("SELECT match_id FROM matches ORDER BY match_no").fetchall()]
    decks = [r[0] for r in con.execute("SELECT DISTINCT deck FROM seats WHERE deck IS NOT NULL ORDER BY 1").fetchall()]
    days = [str(d) for d in con.execute(
        "SELECT quantile_disc(played_on, [0.2, 0.4, 0.6, 0.8]) FROM matches").fetchall()[0][0]]
    con.close()
    from zx_events import replay
    from zx_events.application import MatchService

    svc = MatchService(store)
    sample = rng.sample(ids, min(len(ids), 2000))
    matches = [(m, replay.last_seq(svc, m)) for m in sample]  # the view phases pick among these 2,000
    svc.close()
    print(f"store: {store} ({len(ids)} matches, {len(sample)} sampled for the views); analytics: {analytics}",
          file=sys.stderr)

    floor = in_process_floor(store, analytics, matches, rng)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(Path(args.dir if not args.store else Path(store).parent) / "bench-serve-server.log", "w")
    server = subprocess.Popen([*ZX, "--store", store, "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--analytics", analytics, "--workers", str(args.workers)], env=ENV, stdout=subprocess.DEVNULL,
                              stderr=log, text=True)
    print(f"server pid {server.pid}, log {log.name}", file=sys.stderr)
    try:
        import httpx

        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/api/status", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                print(f"the server did not start: see {log.name}", file=sys.stderr)
                return 1
            time.sleep(0.2)
        rows = []
        stats_cold = stats_urls(decks, days, args.requests)
        phases = [("floor (HTTP): /api/status", lambda: ["/api/status"] * args.requests),
                  ("view (random)", lambda: view_urls(rng, matches, args.requests)),
                  ("view (stepping)", lambda: stepping_urls(rng, matches, args.requests))]
        for c in clients:
            for name, make in phases:
                rows.append((name, c, asyncio.run(run_phase(base, make(), c))))
            # stats: a fresh server cache is needed for cold figures: each concurrency level gets new filters
            cold = [u + f"&until=2099-12-{c % 28 + 1:02d}" for u in stats_cold]
            rows.append(("stats (cold)", c, asyncio.run(run_phase(base, cold, c))))
            warm = (cold * (args.requests // len(cold) + 1))[: args.requests]
            rows.append(("stats (warm)", c, asyncio.run(run_phase(base, warm, c))))
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()

    print(f"in-process floor: view {floor['view_ms']:.2f} ms (load_history + step_at + to_json, median of 200), "
          f"stats {floor['stats_ms']:.2f} ms (Stats query on a warm connection, median of 15)")
    http_floor = {c: r for name, c, r in rows if name.startswith("floor")}
    print(f"{'phase':<28} {'clients':>7} {'requests':>8} {'median ms':>10} {'p99 ms':>8} {'max ms':>8} {'req/s':>7} "
          f"{'errors':>6} {'p99/floor':>9}")
    for name, c, r in rows:
        ratio = r["p99_ms"] / http_floor[c]["p99_ms"] if http_floor.get(c) else float("nan")
        print(f"{name:<28} {c:>7} {r['n']:>8} {r['median_ms']:>10.2f} {r['p99_ms']:>8.2f} {r['max_ms']:>8.1f} "
              f"{r['req_s']:>7.0f} {len(r['errors']):>6} {ratio:>9.2f}")
    errors = [e for _, _, r in rows for e in r["errors"]]
    for e in errors[:10]:
        print(f"error: {e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
