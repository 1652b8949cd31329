"""A small store for the match list's head-to-head, side and sort tests (``zx matches``, ``/api/matches``, the
``/matches`` page) and ``zx export``'s filters: the headers of two shipped example logs rewritten (ids, players,
decks, dates), imported with their analytics file.

The range-attacks example ends with P2's win by life, the first-turns one without a result: the seat a player is
given makes their result (won as P2, lost as P1, none). Dates are not in import order; h2 and h5 were played at the
same moment (a tie: store order), h6 and h7 read the other way round as text and as instants (+09:00 against UTC),
h4 has no date.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RANGE = ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog"  # P2 wins by life
OPEN = ROOT / "examples" / "legal" / "first-turns.zxlog"  # no result recorded
HIDDEN = "Kai U01-003"  # (U01-003: a card's code, masked outside the judge's view)

MATCHES = {  # match: (log, played_at, P1, P1's deck, P2, P2's deck)
    "h1": (RANGE, "2026-03-10T10:00:00+09:00", "Ren Tanaka", "Black Reapers", "Mio Sato", "Red Dragons"),
    "h2": (RANGE, "2026-05-01T12:00:00+09:00", "Mio Sato", "Blue Control", "Ren Tanaka", "Black Reapers"),
    "h3": (RANGE, "2026-04-01T12:00:00+09:00", "Ren Tanaka", "Red Dragons", "Aki Mori", "Blue Control"),
    "h4": (RANGE, None, "Aki Mori", "Black Reapers", "Ren Tanaka", "Blue Control"),
    "h5": (OPEN, "2026-05-01T12:00:00+09:00", "Mio Sato", "Green Beasts", "Ren Tanaka", "Red Dragons"),
    "h6": (RANGE, "2026-03-01T01:00:00+09:00", "Ren Tanaka", "Green Beasts", "Mio Sato", "Red Dragons"),
    "h7": (RANGE, "2026-02-28T20:00:00+00:00", HIDDEN, "White Knights", "Mio Sato", "Blue Control"),
}
REN, MIO = "Ren Tanaka", "Mio Sato"


def write_logs(folder: Path) -> list[Path]:
    logs = []
    for match, (log, played_at, p1, d1, p2, d2) in MATCHES.items():
        lines = log.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        header["match"] = match
        if played_at is None:
            header.pop("played_at", None)
        else:
            header["played_at"] = played_at
        header["players"]["P1"].update(name=p1, deck_name=d1)
        header["players"]["P2"].update(name=p2, deck_name=d2)
        logs.append(folder / f"{match}.zxlog")
        logs[-1].write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    return logs


def build(folder: Path) -> tuple[str, Path]:
    """The store (its path) and its analytics file, the matches imported in ``MATCHES``' order."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    store, analytics = str(folder / "s.sqlite"), folder / "s.duckdb"
    r = CliRunner().invoke(zx, ["--store", store, "import", *map(str, write_logs(folder))],
                           env={"ZX_ANALYTICS": str(analytics)})
    assert r.exit_code == 0, r.output
    return store, analytics
