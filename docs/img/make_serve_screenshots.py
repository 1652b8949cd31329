"""Remake docs/img/serve-*.png: the pages of `zx serve` over a demo store, in headless Chromium.

    zx demo --dir /tmp/serve-demo    # then, from the repository:
    python docs/img/make_serve_screenshots.py --store /tmp/serve-demo/events.sqlite

The server runs in this process (uvicorn on a free port of 127.0.0.1, with --deck-lists, as the
life-damage and per-card picture says); each picture is the viewport, 1280 pixels wide.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from pathlib import Path

from zx_web.app import create_app
from zx_web.browser import chromium

WIDTH = 1280


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(store: str, analytics: str | None):
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(store, analytics=analytics, deck_lists=True),
                                        host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return srv, thread, f"http://127.0.0.1:{port}"


def shoot(driver, url: str, out: Path, height: int, section: str | None = None) -> None:
    driver.get(url)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    size = driver.get_window_size()  # the window holds the viewport and the browser's frame
    driver.set_window_size(size["width"] + WIDTH - inner[0], size["height"] + height - inner[1])
    if section:  # that section's top at the top of the window, less a margin
        driver.execute_script("const e = document.getElementById(arguments[0]);"
                              "window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 10)", section)
    time.sleep(0.2)
    if not driver.save_screenshot(str(out)):
        raise SystemExit(f"could not write {out}")
    print(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--analytics", help="the analytics file (default: the store's own, as zx serve finds it)")
    ap.add_argument("--match", default="sim-2026-0003", help="the match shown on its page and in its replay")
    ap.add_argument("--event", type=int, default=57, help="the replay's moment")
    ap.add_argument("--deck", default="Red Dragons", help="the match list's deck filter")
    ap.add_argument("--out", default=str(Path(__file__).parent))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    srv, thread, url = serve(args.store, args.analytics)
    try:
        with chromium(WIDTH, 957) as driver:
            shoot(driver, f"{url}/matches?deck={args.deck.replace(' ', '+')}&winner=P1", out / "serve-matches.png", 657)
            shoot(driver, f"{url}/matches/{args.match}", out / "serve-match.png", 957)
            shoot(driver, f"{url}/matches/{args.match}/replay?as=P1#e={args.event}", out / "serve-replay.png", 957)
            shoot(driver, f"{url}/dashboard", out / "serve-dashboard.png", 957)
            shoot(driver, f"{url}/dashboard", out / "serve-dashboard-matchups.png", 957, "matchups")
            shoot(driver, f"{url}/dashboard", out / "serve-dashboard-life.png", 957, "life")
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


if __name__ == "__main__":
    main()
