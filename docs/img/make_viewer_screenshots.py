"""Remake docs/img/viewer-SEAT.png: one `zx view` file per seat, opened in headless Chromium at one event.

    zx demo    # then, from the repository:
    python docs/img/make_viewer_screenshots.py --store zx-demo/events.sqlite sim-2026-0003 --event 193
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from zx_web.browser import chromium
from zx_web.viewer import viewer_html
from zx_events.application import MatchService

SEATS = ("P1", "P2", "spectator", "judge")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("match")
    ap.add_argument("--store", required=True)
    ap.add_argument("--event", type=int, required=True)
    ap.add_argument("--out", default=str(Path(__file__).parent))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="zx-shots-"))
    svc = MatchService(args.store)
    try:
        for seat in SEATS:
            (tmp / f"{seat}.html").write_text(viewer_html(svc, args.match, [seat]), encoding="utf-8")
    finally:
        svc.close()
    with chromium(1360, 1560) as driver:
        for seat in SEATS:
            driver.get((tmp / f"{seat}.html").as_uri() + f"#e={args.event}")
            assert driver.execute_script("return zxViewer.seq()") == args.event
            driver.save_screenshot(str(Path(args.out) / f"viewer-{seat}.png"))
            print(Path(args.out) / f"viewer-{seat}.png")


if __name__ == "__main__":
    main()
