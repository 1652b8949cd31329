"""What does tamper evidence cost? The digest chain at import, zx verify, and zx audit of a stored match.

N copies of the example match (examples/legal/first-turns.zxlog, distinct ids) are built and
imported into a fresh SQLite store, then:

- chain:   integrity.chain over the pending events of the built matches (canonical JSON + SHA-256
           per event: what sealing adds to an import); floor: the store's own JSON encoding of each
           event (which every save does anyway) and one SHA-256 of it: any content digest needs both.
- verify:  read every match's rows and recompute its chain (what `zx verify` does per match);
           floor: read the same rows with the recorder and hash their raw stored bytes once.
- audit:   audit_stored per match (rebuild the log from the events, re-run the rules engine, verify);
           floor: the rules engine alone (build_match) on the already parsed log.

Ratios are measured / floor in the same run.

Usage: .venv/bin/python bench/bench_verify.py [--matches 300] [--format json]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_store import copies  # noqa: E402
from cli.output import emit  # noqa: E402
from zx_events import integrity  # noqa: E402
from zx_events.application import MatchService  # noqa: E402
from zx_events.audit import audit_stored  # noqa: E402
from zx_events.importer import build_match  # noqa: E402
from zx_events.logformat.reader import parse_log  # noqa: E402
from zx_events.match import match_uuid  # noqa: E402


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=300, help="distinct matches (default 300)")
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)
    n = args.matches
    logs = [parse_log(t, f"copy-{i}.zxlog")[0] for i, t in enumerate(copies(n, "verify"))]
    rows = []

    # chain: the cost sealing adds to an import
    built = [build_match(log).match.pending_events for log in logs]
    events = sum(len(b) for b in built)
    transcoder = MatchService("memory:").mapper.transcoder
    flat = [e for b in built for e in b]
    t_chain = timed(lambda: [integrity.chain(b) for b in built])
    t_floor = timed(lambda: [hashlib.sha256(transcoder.encode(dict(vars(e)))).digest() for e in flat])
    rows.append({"step": "chain at import", "matches": n, "events": events,
                 "ev/s": round(events / t_chain), "floor ev/s": round(events / t_floor),
                 "ratio": round(t_chain / t_floor, 1), "ms/match": round(t_chain / n * 1e3, 3)})

    with tempfile.TemporaryDirectory() as tmp:
        svc = MatchService(str(Path(tmp) / "verify.sqlite"))
        for log in logs:
            assert svc.import_log(log).status == "imported"
        ids = [match_uuid(log.match_id) for log in logs]
        stored_events = sum(len(svc.recorder.select_events(i)) for i in ids)

        def verify_all() -> None:
            for log, i in zip(logs, ids):
                assert integrity.verify_rows(log.match_id, integrity.stored_rows(svc, i)).ok

        def read_and_hash() -> None:
            for i in ids:
                for s in svc.recorder.select_events(i):
                    hashlib.sha256(s.state).digest()

        t_verify, t_read = timed(verify_all), timed(read_and_hash)
        rows.append({"step": "zx verify", "matches": n, "events": stored_events,
                     "ev/s": round(stored_events / t_verify), "floor ev/s": round(stored_events / t_read),
                     "ratio": round(t_verify / t_read, 1), "ms/match": round(t_verify / n * 1e3, 3)})

        def audit_all() -> None:
            for log in logs:
                assert audit_stored(svc, log.match_id).ok

        t_audit = timed(audit_all)
        t_engine = timed(lambda: [build_match(log, strict=False) for log in logs])
        rows.append({"step": "zx audit (stored)", "matches": n, "events": stored_events,
                     "ev/s": round(stored_events / t_audit), "floor ev/s": round(stored_events / t_engine),
                     "ratio": round(t_audit / t_engine, 1), "ms/match": round(t_audit / n * 1e3, 3)})
        svc.close()
    emit(rows, args.fmt, ["step", "matches", "events", "ev/s", "floor ev/s", "ratio", "ms/match"],
         title="tamper evidence (ratio = measured time / floor time, same run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
