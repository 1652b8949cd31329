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
    from zx_analytics.projection import update
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


def emulate(browser: object, media: str = "", scheme: str = "light") -> None:
    """Chromium's emulated media (``print``, or "" for the screen) and ``prefers-color-scheme``."""
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {  # type: ignore[attr-defined]
        "media": media, "features": [{"name": "prefers-color-scheme", "value": scheme}]})


# the colours of a page as Chromium draws them, for a script's contrast checks: parse (an rgb()/rgba() text), lum
# (relative luminance), blend (one colour over another), under (what is under an element: its backgrounds blended,
# down to the first opaque one, over white)
COLOURS = r"""
function parse(c) { var m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
  var p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); if (p.length < 4) p.push(1); return p; }
function lum(p) { var a = p.slice(0, 3).map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * a[0] + 0.7152 * a[1] + 0.0722 * a[2]; }
function blend(top, bot) { var a = top[3]; return [0, 1, 2].map(function (i) { return top[i] * a + bot[i] * (1 - a); }).concat([1]); }
function under(el) { var layers = []; for (; el && el.nodeType === 1; el = el.parentElement) {
    var c = parse(getComputedStyle(el).backgroundColor); if (c && c[3] > 0) layers.push(c); if (c && c[3] === 1) break; }
  var b = [255, 255, 255, 1]; for (var i = layers.length - 1; i >= 0; i--) b = blend(layers[i], b); return b; }
"""
