"""What tamper evidence costs to check: ``zx verify`` against reading the rows and hashing them.

The first ``--files`` files of the corpus (``zx simulate --policy mixed``, 100 matches a file) are
imported into a fresh SQLite store by this tree's ``zx import``; then, CPU time of this process:

- verify: per match, what ``zx verify`` does: read its rows and recompute and check the chain
  (``integrity.verify_stored``; before 0.2 ``verify_rows(stored_rows(...))``);
- floor:  per match, read the same rows with the recorder (``select_events``) and SHA-256 each
  stored payload once: no verification can do less. Ratio = verify / floor (target: at most 1.5).
- audit (for information): ``audit_stored`` per match (rebuild the log, re-run the rules engine,
  verify) against the rules engine alone on the rebuilt log.

Usage: .venv/bin/python bench/bench_verify.py [--files 3] [--repeat 3] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WORKDIR, clocks, corpus, fresh, report, result  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=1000, help="corpus size (its first files are used)")
    ap.add_argument("--files", type=int, default=3, help="corpus files imported (100 matches each)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each (the fastest counts)")
    ap.add_argument("--workdir", type=Path, default=WORKDIR)
    ap.add_argument("--audit", action="store_true", help="also time zx audit of the stored matches")
    ap.add_argument("--format", dest="fmt", choices=["table", "json", "csv"], default="table")
    args = ap.parse_args(argv)

    from zx_events import integrity
    from zx_events.application import MatchService
    from zx_events.parallel import import_files

    files = corpus(args.matches, args.workdir)[: args.files]
    svc = MatchService(fresh(args.workdir / "verify.sqlite"))
    outs = [o for o in import_files(svc, [str(f) for f in files], workers=1) if o.status == "imported"]
    import sqlite3
    from uuid import UUID

    con = sqlite3.connect(svc.store.path)  # the aggregate ids, in import order
    oids = [UUID(r[0]) for r in con.execute("SELECT originator_id FROM stored_events WHERE originator_version = 1 "
                                            "AND topic LIKE '%:Started' ORDER BY rowid")]  # not the store ledger
    con.close()
    ids = list(zip((o.match_id for o in outs), oids))
    events = sum(o.events for o in outs)

    fast = getattr(integrity, "verify_stored", None)  # (not in 0.1.0)

    def verify(mid, oid):
        return fast(svc, mid, oid) if fast else integrity.verify_rows(mid, integrity.stored_rows(svc, oid))

    def verify_all() -> None:
        for mid, oid in ids:
            assert verify(mid, oid).ok

    def read_and_hash() -> None:
        sha = hashlib.sha256
        for _, oid in ids:
            for s in svc.recorder.select_events(oid):
                sha(s.state).digest()

    def best(fn) -> float:
        times = []
        for _ in range(args.repeat):
            with clocks() as c:
                fn()
            times.append(c["cpu"])
        return min(times)

    t_floor, t_verify = best(read_and_hash), best(verify_all)
    rows = [result("verify", f"zx verify, {len(ids)} matches, {events} events", round(events / t_verify),
                   "events/CPU-s", round(events / t_floor), t_verify / t_floor, "<= 1.5x floor",
                   t_verify / t_floor <= 1.5, floor_note="select_events + SHA-256 of each stored payload")]
    if args.audit:
        from zx_events.audit import audit_stored

        with clocks() as c:
            for mid, _ in ids:
                assert audit_stored(svc, mid).ok
        rows.append(result("verify", f"zx audit (stored), {len(ids)} matches", round(events / c["cpu"]),
                           "events/CPU-s", None, None, "", None))
    svc.close()
    report(rows, args.fmt, "zx verify (ratio = verify CPU / floor CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
