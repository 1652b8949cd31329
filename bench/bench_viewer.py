"""How big is a `zx view` file, how fast does it open and step? (zx_web/viewer.py, zx_web/static/viewer.js)

Simulates a match of about --events events (zx_events.games.zx.sim, random policy), imports it into a
temporary SQLite store, writes its page for one seat and for all four, and opens it in Debian's
headless Chromium (zx_web/browser.py: Selenium, nothing downloaded). Prints:

- size:       bytes of the file for P1, spectator, judge and all four seats (target: under 1 MiB);
- first draw: from navigation start to the viewer's first drawn position (performance mark
              "zx-first-draw", median of --loads loads; target: under 1 s), against the floor: the
              same file with its two scripts replaced by an empty one (the browser parses the same
              bytes, data included, and draws nothing), and the time JSON.parse takes on the data;
- step:       the time of one step (go to event N, then a forced style and layout), over every event
              of the match, in the page (performance.now); target: under 16 ms. Floor: the same loop
              writing one line of text instead of drawing the board.

Every figure is printed with its ratio to the floor measured in the same run (the machine is shared).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from zx_web.browser import chromium, missing
from zx_web.viewer import viewer_html
from zx_events.application import MatchService
from zx_events.games.zx.sim import simulate
from zx_events.logformat.reader import parse_log

STEP_LOOP = """
var go = arguments[0] === 'floor'
  ? function (s) { document.getElementById('pos').textContent = 'event ' + s; }
  : function (s) { zxViewer.go(s); };
var last = zxViewer.data.last, times = [];
for (var s = 1; s <= last; s++) {
  var t = performance.now();
  go(s);
  void document.body.offsetHeight;  // style and layout now, inside the measured time
  times.push(performance.now() - t);
}
return times;
"""


def a_match(events: int, seed: int) -> str:
    """Log text of the first simulated match with events within 10% of ``events``."""
    start = 1
    while True:
        for sm in simulate(20, seed=seed, policy="random", start=start):
            if abs(sm.events - events) <= events // 10:
                return "\n".join(sm.lines()) + "\n"
        start += 20


def ms(x: float) -> str:
    return f"{x:.2f} ms" if x < 10 else f"{x:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=500, help="about how many events the match has")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--loads", type=int, default=5, help="page loads to time (median)")
    args = ap.parse_args(argv)
    why = missing()
    if why:
        print(f"bench_viewer: {why}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="zx-bench-viewer-"))
    svc = MatchService(str(tmp / "events.sqlite"))
    (log,) = parse_log(a_match(args.events, args.seed), "bench.zxlog")
    assert svc.import_log(log).status == "imported"
    pages = {}
    print(f"match {log.match_id}: ", end="")
    for seats in (["P1"], ["spectator"], ["judge"], ["judge", "P1", "P2", "spectator"]):
        t = time.perf_counter()
        text = viewer_html(svc, log.match_id, seats)
        built = time.perf_counter() - t
        pages["+".join(seats)] = (text, built)
    svc.close()
    last = int(re.search(r'"last":(\d+)', pages["P1"][0]).group(1))
    print(f"{last} events\n\nsize of the file (target: under 1 MiB = 1,048,576 bytes)")
    for name, (text, built) in pages.items():
        n = len(text.encode())
        print(f"  {name:<28} {n:>9,} bytes  {n / 2**20:5.2f} MiB  ({n / last:,.0f} bytes/event; built in {built:.2f} s)")

    page = pages["P1"][0]
    path = tmp / "P1.html"
    path.write_text(page, encoding="utf-8")
    bare = re.sub(r"<script>.*?</script>\s*<script>.*?</script>",
                  lambda _: '<script>performance.mark("zx-first-draw")</script>', page, count=1, flags=re.S)
    # (the page's policy runs its own two scripts only, by their SHA-256: the floor's one script runs without it)
    bare = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", bare, count=1)
    assert bare != page and "Content-Security-Policy" not in bare
    bare_path = tmp / "bare.html"
    bare_path.write_text(bare, encoding="utf-8")

    mark = "return performance.getEntriesByName('zx-first-draw')[0].startTime"
    parse = ("var t = performance.now(); JSON.parse(document.getElementById('zx-data').textContent);"
             " return performance.now() - t")
    with chromium() as driver:
        firsts, floors, parses = [], [], []
        for i in range(args.loads + 1):  # the first load warms the browser up: not counted
            driver.get("about:blank")
            driver.get(bare_path.as_uri())
            f = driver.execute_script(mark)
            driver.get("about:blank")
            driver.get(path.as_uri())
            d = driver.execute_script(mark)
            p = driver.execute_script(parse)
            if i:
                firsts.append(d)
                floors.append(f)
                parses.append(p)
        steps = driver.execute_script(STEP_LOOP, "viewer")
        floor_steps = driver.execute_script(STEP_LOOP, "floor")
        steps2 = driver.execute_script(STEP_LOOP, "viewer")  # twice: noise shows
    first, floor, parsed = (statistics.median(x) for x in (firsts, floors, parses))
    print(f"\nfirst draw in headless Chromium, P1's file (median of {args.loads} loads; target: under 1 s)")
    print(f"  viewer: navigation start -> first position drawn   {ms(first)}")
    print(f"  floor:  the same bytes without the scripts         {ms(floor)}   ratio {first / floor:.1f}")
    print(f"  JSON.parse of the data alone                       {ms(parsed)}")

    def show(name: str, xs: list[float]) -> None:
        xs = sorted(xs)
        p95 = xs[int(0.95 * (len(xs) - 1))]
        print(f"  {name:<34} median {ms(statistics.median(xs))}  p95 {ms(p95)}  max {ms(xs[-1])}  "
              f"all {len(xs)} events {ms(sum(xs))}")

    print("\none step (go to event N, then style and layout), every event of the match (target: under 16 ms)")
    show("viewer (pass 1)", steps)
    show("viewer (pass 2)", steps2)
    show("floor: one line of text", floor_steps)
    both = steps + steps2
    print(f"  ratio of the totals to the floor's: {sum(both) / 2 / max(sum(floor_steps), 1e-9):.1f}; "
          f"steps over 16 ms: {sum(1 for x in both if x > 16)} of {len(both)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
