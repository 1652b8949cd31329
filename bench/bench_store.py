"""How fast do matches go into each store? Import events/s into memory, SQLite and PostgreSQL.

N copies of the example match (examples/legal/first-turns.zxlog) under distinct ids (the note
varies, so each id has its own content) are imported into a fresh store of each kind:

- import:  MatchService.import_log per match: look-up, rules engine, seal, save in one transaction
           (what `zx import` does after reading the file);
- save:    Application.save of the already built and sealed matches: encoding + one transaction
           per match (the store's share of an import);
- floor:   recorder.insert_events of the same events, already encoded, one transaction per match:
           the bare eventsourcing write rate, which an import cannot beat.

Ratios are floor events/s over import (or save) events/s, measured in the same run on the same
events. PostgreSQL runs when --postgres URL or ZX_TEST_POSTGRES is given; each run uses a fresh
schema, dropped afterwards.

Usage: .venv/bin/python bench/bench_store.py [--matches 300] [--postgres postgresql://...] [--format json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from zx_cli.output import emit  # noqa: E402
from zx_events.application import MatchService  # noqa: E402
from zx_events.importer import build_match  # noqa: E402
from zx_events.integrity import seal  # noqa: E402
from zx_events.logformat.reader import parse_log  # noqa: E402
from zx_events.games.zx.match import match_uuid  # noqa: E402
from zx_events.store import connect_postgres  # noqa: E402

EXAMPLE = ROOT / "examples" / "legal" / "first-turns.zxlog"


def copies(n: int, prefix: str) -> list[str]:
    """``n`` distinct matches: the example under ids PREFIX-NNNNN, each with its own note."""
    lines = EXAMPLE.read_text().splitlines()
    out = []
    for i in range(n):
        recs = [json.loads(line) for line in lines]
        recs[0]["match"] = f"{prefix}-{i:05d}"
        for r in recs[1:]:
            if "note" in r:
                r["note"] = f"{r['note']} #{i}"
        out.append("".join(json.dumps(r) + "\n" for r in recs))
    return out


def fresh_store(kind: str, pg_url: str | None, tmp: Path) -> str:
    if kind == "memory":
        return "memory:"
    if kind == "sqlite":
        return str(tmp / f"bench-{uuid.uuid4().hex[:8]}.sqlite")
    sep = "&" if "?" in pg_url else "?"
    return f"{pg_url}{sep}schema=bench_{uuid.uuid4().hex[:10]}"


def drop(svc: MatchService) -> None:
    cfg = svc.store
    svc.close()
    if cfg.kind == "postgres":
        with connect_postgres(cfg.env) as con:
            con.execute(f'DROP SCHEMA IF EXISTS "{cfg.schema}" CASCADE')


def measure(kind: str, pg_url: str | None, n: int, tmp: Path) -> dict[str, Any]:
    texts = copies(n, f"bench-{kind}")
    logs = [parse_log(t, f"copy-{i}.zxlog")[0] for i, t in enumerate(texts)]

    # import: the whole of MatchService.import_log
    svc = MatchService(fresh_store(kind, pg_url, tmp))
    label = svc.store.label
    t = time.perf_counter()
    for log in logs:
        out = svc.import_log(log)
        if out.status != "imported":
            raise SystemExit(f"bench: import failed on {kind}: {out.error}")
    t_import = time.perf_counter() - t
    events = sum(len(svc.recorder.select_events(match_uuid(log.match_id))) for log in logs)
    stored = {log.match_id: svc.recorder.select_events(match_uuid(log.match_id)) for log in logs}
    drop(svc)

    # save: Application.save of the built, sealed aggregates (engine time left out)
    matches = []
    for log in logs:
        m = build_match(log).match
        seal(m)
        matches.append(m)
    svc = MatchService(fresh_store(kind, pg_url, tmp))
    t = time.perf_counter()
    for m in matches:
        svc.save(m)
    t_save = time.perf_counter() - t
    drop(svc)

    # floor: the recorder's insert of the same encoded events, one transaction per match
    svc = MatchService(fresh_store(kind, pg_url, tmp))
    batches = list(stored.values())
    t = time.perf_counter()
    for batch in batches:
        svc.recorder.insert_events(batch)
    t_floor = time.perf_counter() - t
    drop(svc)

    floor = events / t_floor
    return {"store": kind, "where": label, "matches": n, "events": events,
            "import ev/s": round(events / t_import), "save ev/s": round(events / t_save),
            "floor ev/s": round(floor), "floor/import": round(floor / (events / t_import), 2),
            "floor/save": round(floor / (events / t_save), 2),
            "import ms/match": round(t_import / n * 1e3, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=300, help="distinct matches per store (default 300)")
    ap.add_argument("--postgres", default=os.environ.get("ZX_TEST_POSTGRES"), metavar="URL",
                    help="PostgreSQL server to measure too (default: ZX_TEST_POSTGRES)")
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)
    kinds = ["memory", "sqlite"] + (["postgres"] if args.postgres else [])
    if not args.postgres:
        print("bench: PostgreSQL skipped (give --postgres URL or set ZX_TEST_POSTGRES)", file=sys.stderr)
    else:
        import psycopg

        print(f"bench: psycopg {psycopg.__version__}, {psycopg.pq.__impl__} implementation", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(k, args.postgres, args.matches, Path(tmp)) for k in kinds]
    emit(rows, args.fmt, ["store", "matches", "events", "import ev/s", "save ev/s", "floor ev/s",
                          "floor/import", "floor/save", "import ms/match"],
         title="import into the event store (events/s; ratio = floor rate / measured rate)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
