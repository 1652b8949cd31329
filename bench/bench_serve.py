"""How fast does ``zx serve`` answer, under concurrent clients, on a store of 10,000 matches?

Starts the real server (``zx serve``, uvicorn, one process unless --workers) on 127.0.0.1 at a free
port, then runs a bounded asyncio client loop: C clients (1, 10 and 50 by default), each on its own
keep-alive connection, sending its share of R requests one after the other (a closed loop). The
client is a minimal HTTP/1.1 reader on asyncio streams (uvloop when installed): it costs ~0.1 ms of
CPU a request, where httpx cost ~1 ms, which on a 2-core machine shared by client and server was a
large part of every figure. Every request goes to 127.0.0.1 only, and the run stops by itself.
Per phase it prints the median, p99 and max latency, the throughput, the errors (any status but
200, or a failed connection), the server's CPU per request (from /proc: not inflated by waiting for
a core), the 1-minute load average at the end of the phase, and the ratio of p99 to the floor:

- floor (HTTP):      GET /api/status at the same concurrency: the server's framework, one cached
                     dict and the HTTP round trip, with no work behind it;
- floor (in-process): the work of the endpoint called in this process, no HTTP: the view by the
                     server's own path (zx_web.cursor, nothing cached) and by replay.load_history +
                     step_at; each stats query on a warm DuckDB connection with
                     the derived tables the server counts from (zx_analytics.derived).

Phases:
- view (random):   /api/matches/{id}/view?at=N&as=SEAT for random matches, events and seats: a new
                   match almost every time (the server keeps 256 matches of 10,000);
- view (stepping): each client steps through matches of its own event by event, as a client
                   replaying a match does;
- stats (cold):    every /api/stats endpoint and "by" with different filters (decks, opponents' decks,
                   dates, seats, and pairs of them; 670 requests at 5 decks): each reaches DuckDB once;
- stats (warm):    the same requests again: served from the server's cache of encoded answers;
- paced:           50 clients that each send at most --view-rate (views) or --stats-rate (cold
                   stats) requests a second: the latency of concurrent users below saturation.

The store is prepared first (`zx prepare`: replay snapshots every 10 events, which the server reads
and never writes), so a view of a match new to the server decodes one snapshot and at most 9 events;
--no-prepare on a store never prepared measures views that replay each match from its first event.

Targets (issue 18): view p99 under 20 ms, stats p99 under 100 ms, no error under 50 concurrent
clients. In a closed loop every request waits for the ones ahead of it: with C clients,
latency = C / throughput (Little's law), so p99 at 50 clients is set by how many requests a second
the machine can serve, shared here between client, server and other work; the 1-client figures
show the service time itself and the paced phase the latency under a bounded rate.

The store: --store/--analytics, or --dir (default /tmp/zx-bench-serve) where --matches (default
10,000) simulated matches are written and imported by `zx simulate` and `zx import` once (about
two minutes) and reused by later runs.

Usage: .venv/bin/python bench/bench_serve.py [--store PATH --analytics PATH | --dir DIR --matches N]
                                             [--clients 1,10,50] [--requests 2000] [--workers 1]
                                             [--paced-clients 50] [--view-rate 10] [--stats-rate 1]
                                             [--no-prepare]
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
if str(ROOT) not in sys.path:  # this tree's code, also for the in-process floor
    sys.path.insert(0, str(ROOT))
ZX = [sys.executable, "-c", "from zx_cli.main import main; main()"]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


def build(folder: Path, matches: int) -> tuple[str, str]:
    store, analytics = folder / "events.sqlite", folder / "events.duckdb"
    if store.exists() and analytics.exists():
        from zx_analytics.db import SCHEMA_VERSION, connect_reader, stored_version

        con = connect_reader(analytics)
        try:
            current = stored_version(con) == SCHEMA_VERSION
        finally:
            con.close()
        if not current:  # made by an older version of the projection
            print(f"rebuilding {analytics} (zx analytics update --rebuild)", file=sys.stderr)
            subprocess.run([*ZX, "--store", str(store), "analytics", "update", "--rebuild"], check=True, env=ENV,
                           stdout=subprocess.DEVNULL)
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


class Connection:
    """One keep-alive HTTP/1.1 connection to the server: GET a path, read the status and the body."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: Any = None
        self.writer: Any = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def get(self, path: str) -> tuple[int, bytes]:
        if self.writer is None:
            await self.open()
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
            elif name.strip().lower() == b"transfer-encoding":  # not sent by this server; never guessed at
                raise RuntimeError(f"unexpected transfer-encoding on {path}")
        return status, await self.reader.readexactly(length)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def server_cpu(pid: int) -> float:
    """The server process's CPU seconds so far (user + system, its threads included)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run_phase(host: str, port: int, urls: list[str] | list[list[str]], clients: int, rate: float | None = None,
                    pid: int | None = None) -> dict[str, Any]:
    """``clients`` workers share ``urls`` (each sent once, in order of taking), or each sends its own
    list (``urls`` a list of lists); latency per request. With ``rate``, each worker sends at most
    ``rate`` requests a second (it waits out the rest of 1/rate after each answer, from a random
    start): a paced, not a closed, loop."""
    shared: asyncio.Queue[str] = asyncio.Queue()
    own: list[asyncio.Queue[str]] = []
    if urls and isinstance(urls[0], list):
        for lst in urls:
            q: asyncio.Queue[str] = asyncio.Queue()
            for u in lst:
                q.put_nowait(u)
            own.append(q)
    else:
        for u in urls:
            shared.put_nowait(u)  # type: ignore[arg-type]
    latencies: list[float] = []
    errors: list[str] = []
    conns = [Connection(host, port) for _ in range(clients)]
    for c in conns:  # connected before the clock starts
        await c.open()
    rng = random.Random(clients)

    async def worker(conn: Connection, queue: asyncio.Queue[str]) -> None:
        if rate:
            await asyncio.sleep(rng.random() / rate)
        while True:
            try:
                url = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            t = time.perf_counter()
            try:
                status, body = await conn.get(url)
                if status != 200:
                    errors.append(f"{status} {url}: {body[:120]!r}")
            except (OSError, asyncio.IncompleteReadError, ValueError) as e:
                errors.append(f"{type(e).__name__} {url}")
                await conn.close()
            took = time.perf_counter() - t
            latencies.append(took)
            if rate and took < 1 / rate:
                await asyncio.sleep(1 / rate - took)

    cpu0 = server_cpu(pid) if pid else float("nan")
    t0 = time.perf_counter()
    await asyncio.gather(*(worker(c, own[i] if own else shared) for i, c in enumerate(conns)))
    wall = time.perf_counter() - t0
    cpu = (server_cpu(pid) - cpu0) if pid else float("nan")
    for c in conns:
        await c.close()
    return {"n": len(latencies), "median_ms": statistics.median(latencies) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000, "max_ms": max(latencies) * 1000,
            "req_s": len(latencies) / wall, "errors": errors, "server_cpu_ms": cpu * 1000 / max(1, len(latencies)),
            "load1": os.getloadavg()[0]}


def run(coro: Any) -> Any:
    try:
        import uvloop  # the client's own overhead, a third lower
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def view_urls(rng: random.Random, matches: list[tuple[str, int]], n: int) -> list[str]:
    out = []
    for _ in range(n):
        mid, last = rng.choice(matches)
        out.append(f"/api/matches/{mid}/view?at={rng.randint(1, last)}&as={rng.choice(['spectator', 'P1', 'P2'])}")
    return out


def stepping_urls(rng: random.Random, matches: list[tuple[str, int]], n: int, clients: int) -> list[list[str]]:
    """One list per client: each client steps through matches of its own, event by event from the first,
    as a client replaying a match does (n requests in all)."""
    per = max(1, n // clients)
    out: list[list[str]] = []
    picks = iter(rng.sample(matches, len(matches)))
    for _ in range(clients):
        urls: list[str] = []
        while len(urls) < per:
            mid, last = next(picks)
            urls += [f"/api/matches/{mid}/view?at={at}&as=P1" for at in range(1, last + 1)]
        out.append(urls[:per])
    return out


def stats_urls(decks: list[str], days: list[str], n: int) -> list[str]:
    """Up to ``n`` statistics requests: every endpoint and "by" under each filter set, the sets in
    this order: none, each deck, each opponent's deck, each start date, each seat, then the pairs
    (deck and date, deck and seat, deck and opponent's deck), as a dashboard user narrows down."""
    kinds = ["winrates?by=deck", "winrates?by=first", "winrates?by=colour", "matchups", "attacks?by=card",
             "attacks?by=square", "attacks?by=target", "life?by=seat", "life?by=turn", "cards"]
    deck = [f"&deck={d.replace(' ', '%20')}" for d in decks]
    opp = [f"&opp_deck={d.replace(' ', '%20')}" for d in decks]
    since = [f"&since={d}" for d in days]
    seat = ["&seat=first", "&seat=second"]
    filters = ([""] + deck + opp + since + seat + [a + b for a in deck for b in since]
               + [a + b for a in deck for b in seat] + [a + b for a in deck for b in opp if a[6:] != b[10:]])
    urls = []
    for f in filters:
        for k in kinds:
            sep = "&" if "?" in k else "?"
            urls.append(f"/api/stats/{k}{sep}min_games=30{f}")
    return urls[:n]


def in_process_floor(store: str, analytics: str, matches: list[tuple[str, int]], rng: random.Random) -> dict:
    from zx_analytics.db import connect_reader
    from zx_analytics.stats import Stats
    from zx_web.backend import Backend
    from zx_events import replay
    from zx_events.application import MatchService

    svc = MatchService(store)
    picks = [(mid, rng.randint(1, last), rng.choice(["spectator", "P1", "P2"])) for mid, last in rng.sample(matches, 200)]
    old, new = [], []
    for mid, at, seat in picks:
        t = time.perf_counter()
        replay.load_history(svc, mid).step_at(at, seat).state.to_json()
        old.append(time.perf_counter() - t)
    backend = Backend(svc, Path(analytics))
    for mid, at, seat in picks:  # each match new to this backend: nothing cached
        t = time.perf_counter()
        backend.view_json(mid, seat, at=at)
        new.append(time.perf_counter() - t)
    backend.close()
    con = connect_reader(Path(analytics))
    from zx_analytics.derived import build

    st = Stats(con, derived=build(con))  # as the server counts them (zx_web.backend: its derived tables)
    calls = {"winrates": lambda: st.winrates(by="deck"), "matchups": lambda: st.matchups(),
             "attacks": lambda: st.attacks(by="card"), "life": lambda: st.life(by="turn"), "cards": lambda: st.cards()}
    stats: dict[str, float] = {}
    for name, c in calls.items():
        times = []
        for _ in range(3):
            t = time.perf_counter()
            c()
            times.append(time.perf_counter() - t)
        stats[name] = statistics.median(times) * 1000
    con.close()
    return {"view_ms": statistics.median(new) * 1000, "view_p99_ms": percentile(new, 0.99) * 1000,
            "history_view_ms": statistics.median(old) * 1000, "stats_ms": stats}


def warm_file_cache(paths: list[str]) -> str:
    """Read the store's and the analytics' files once, so the figures are of a server whose files are
    in the operating system's cache (as a server's are after its first hours) rather than of this
    machine's disk: the 10,000-match store is 2 GB, and this host's cache does not always keep it
    (a random view's first read of a snapshot from disk: 0.4 ms, from the cache: 0.08 ms)."""
    t, size = time.perf_counter(), 0
    for p in paths:
        if not p.startswith(("postgresql://", "postgres://")) and Path(p).is_file():
            with open(p, "rb") as f:
                while chunk := f.read(1 << 23):
                    size += len(chunk)
    note = f"OS file cache warmed: read {size / 2**20:,.0f} MiB in {time.perf_counter() - t:.1f} s"
    print(note, file=sys.stderr)
    return note


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", default=None, help="the store (a SQLite path or postgresql:// URL)")
    ap.add_argument("--analytics", default=None, help="its analytics file")
    ap.add_argument("--dir", default="/tmp/zx-bench-serve", help="where to build (and reuse) the store")
    ap.add_argument("--matches", type=int, default=10_000, help="matches to build (default 10,000)")
    ap.add_argument("--clients", default="1,10,50", help="concurrent clients per phase (default 1,10,50)")
    ap.add_argument("--requests", type=int, default=2000, help="requests per phase (default 2000)")
    ap.add_argument("--workers", type=int, default=1, help="zx serve --workers (default 1)")
    ap.add_argument("--paced-clients", type=int, default=50, help="clients of the paced phases (0: none)")
    ap.add_argument("--view-rate", type=float, default=10.0, help="views a second per paced client (default 10)")
    ap.add_argument("--stats-rate", type=float, default=1.0, help="cold stats a second per paced client (default 1)")
    ap.add_argument("--prepare", action=argparse.BooleanOptionalAction, default=True,
                    help="run `zx prepare` on the store first (default): the views start from stored snapshots; "
                         "--no-prepare measures a store as imported (on a store never prepared)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if (args.store is None) != (args.analytics is None):
        ap.error("give --store and --analytics together, or neither (then --dir is built)")
    store, analytics = (args.store, args.analytics) if args.store else build(Path(args.dir), args.matches)
    if args.prepare:  # incremental: a store prepared before costs two small reads a match
        t = time.perf_counter()
        subprocess.run([*ZX, "--store", store, "prepare", "--format", "csv"], check=True, env=ENV,
                       stdout=subprocess.DEVNULL)
        print(f"zx prepare: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    cached = warm_file_cache([store, analytics])
    clients = [int(c) for c in args.clients.split(",")]
    rng = random.Random(args.seed)

    from zx_analytics.db import connect_reader

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
    load_start = os.getloadavg()

    floor = in_process_floor(store, analytics, matches, rng)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(Path(args.dir if not args.store else Path(store).parent) / "bench-serve-server.log", "w")
    server = subprocess.Popen([*ZX, "--store", store, "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--analytics", analytics, "--workers", str(args.workers)], env=ENV,
                              stdout=subprocess.DEVNULL, stderr=log, text=True)
    print(f"server pid {server.pid}, log {log.name}", file=sys.stderr)
    pid = server.pid if args.workers == 1 else None  # with workers, the CPU is in the children
    rows = []
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
        while httpx.get(base + "/api/status", timeout=10).json().get("warming"):  # its match list and default
            time.sleep(0.2)                                                       # statistics, then gc.freeze
        host = "127.0.0.1"
        stats_cold = stats_urls(decks, days, args.requests)
        phases = [("floor (HTTP): /api/status", lambda: ["/api/status"] * args.requests),
                  ("view (random)", lambda: view_urls(rng, matches, args.requests)),
                  ("view (stepping)", lambda: stepping_urls(rng, matches, args.requests, c))]
        for n, c in enumerate(clients):
            for name, make in phases:
                rows.append((name, c, run(run_phase(host, port, make(), c, pid=pid))))
            # stats: cold figures need queries new to the server: each concurrency level gets new filters
            cold = [u + f"&until=2099-12-{n + 1:02d}" for u in stats_cold]
            rows.append(("stats (cold)", c, run(run_phase(host, port, cold, c, pid=pid))))
            warm = (cold * (args.requests // len(cold) + 1))[: args.requests]
            rows.append(("stats (warm)", c, run(run_phase(host, port, warm, c, pid=pid))))
        if args.paced_clients:
            c = args.paced_clients
            views = view_urls(rng, matches, max(c * 20, min(args.requests, int(c * args.view_rate * 10))))
            rows.append((f"view (random) @{args.view_rate:g}/s each", c,
                         run(run_phase(host, port, views, c, rate=args.view_rate, pid=pid))))
            cold = [u + "&until=2099-11-30" for u in stats_cold][: max(c, int(c * args.stats_rate * 4))]
            rows.append((f"stats (cold) @{args.stats_rate:g}/s each", c,
                         run(run_phase(host, port, cold, c, rate=args.stats_rate, pid=pid))))
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
    load_end = os.getloadavg()

    print(f"load average (1, 5, 15 min): {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} at the start, "
          f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f} at the end; {os.cpu_count()} cores; {cached}")
    print(f"in-process floor: view {floor['view_ms']:.2f} ms median, {floor['view_p99_ms']:.2f} ms p99 (the server's "
          f"path, nothing cached; load_history + step_at: {floor['history_view_ms']:.2f} ms), stats "
          + ", ".join(f"{k} {v:.1f}" for k, v in floor["stats_ms"].items()) + " ms (warm connection, median of 3)")
    http_floor = {c: r for name, c, r in rows if name.startswith("floor")}
    print(f"{'phase':<28} {'clients':>7} {'requests':>8} {'median ms':>10} {'p99 ms':>8} {'max ms':>8} {'req/s':>7} "
          f"{'errors':>6} {'cpu ms/req':>10} {'load1':>6} {'p99/floor':>9}")
    for name, c, r in rows:
        ratio = r["p99_ms"] / http_floor[c]["p99_ms"] if http_floor.get(c) else float("nan")
        print(f"{name:<28} {c:>7} {r['n']:>8} {r['median_ms']:>10.2f} {r['p99_ms']:>8.2f} {r['max_ms']:>8.1f} "
              f"{r['req_s']:>7.0f} {len(r['errors']):>6} {r['server_cpu_ms']:>10.2f} {r['load1']:>6.2f} {ratio:>9.2f}")
    print("targets (issue 18):")
    for name, c, r in rows:
        if name.startswith("view") or name.startswith("stats"):
            limit = 20.0 if name.startswith("view") else 100.0
            print(f"  {name:<28} {c:>3} clients: p99 {r['p99_ms']:.1f} ms < {limit:g} ms: "
                  f"{'met' if r['p99_ms'] < limit else 'NOT met'}; errors {len(r['errors'])}")
    errors = [e for _, _, r in rows for e in r["errors"]]
    for e in errors[:10]:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
