"""Headless Chromium from Debian's packages, driven by Selenium (tests and bench/bench_viewer.py).

Nothing is downloaded: the driver and the browser are the system's (/usr/bin/chromedriver,
/usr/bin/chromium), passed explicitly, and Selenium Manager is told to stay offline.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

CHROMIUM = os.environ.get("ZX_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("ZX_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
         "--disable-extensions", "--disable-default-apps", "--hide-scrollbars", "--mute-audio")


def missing() -> str | None:
    """Why the browser cannot run here (None when it can)."""
    for what, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            return f"{what} not found at {path} (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    return None


@contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator["object"]:
    """A headless Chromium WebDriver with a throwaway profile; quit and removed afterwards."""
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch a driver or a browser
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="zx-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.add_argument(f"--window-size={width},{height}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        try:
            driver.quit()
        finally:
            shutil.rmtree(profile, ignore_errors=True)
