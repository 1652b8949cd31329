"""A real store for the web tests: simulated matches plus one stored with a violation, imported through
the same path as ``zx import`` (SQLite or PostgreSQL), and its analytics file projected."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VIOLATION_LOG = ROOT / "examples" / "invalid" / "301.1-not-in-hand.zxlog"
VIOLATION_MATCH = "invalid-301.1-not-in-hand"
SIM_MATCHES = 40
SIM_SEED = 5


@dataclass
class Built:
    store: str
    analytics: Path
    logs: Path
    matches: list[str]


def build_store(store: str, folder: Path, matches: int = SIM_MATCHES) -> Built:
    from analytics.projection import update
    from zx_events.application import MatchService
    from zx_events.games.zx.sim.batch import simulate, write_files
    from zx_events.parallel import import_files

    logs = folder / "logs"
    files = [f.path for f in write_files(logs, SIM_SEED, simulate(matches, SIM_SEED, policy="mixed"), per_file=10)]
    bad = folder / "logs" / "with-violation.zxlog"
    shutil.copy(VIOLATION_LOG, bad)
    svc = MatchService(store)
    try:
        outs = list(import_files(svc, files, workers=1))
        outs += list(import_files(svc, [str(bad)], workers=1, accept_violations=True))
        assert all(o.status == "imported" for o in outs), [str(o.error) for o in outs if o.error]
        analytics = folder / "analytics.duckdb"
        update(svc, analytics, rebuild=True)
    finally:
        svc.close()
    return Built(store, analytics, logs, [o.match_id for o in outs])
