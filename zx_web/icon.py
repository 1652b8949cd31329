"""The pages' icon, one file (static/icon.svg). Each page names it inline as a ``data:`` URL (the served
pages through base.html, a file of ``zx view`` through static/viewer.html); ``zx serve`` also answers
/favicon.ico with it, for what is not a page (a JSON answer of the API opened in a browser)."""
from __future__ import annotations

from functools import cache
from importlib.resources import files
from urllib.parse import quote


@cache
def icon() -> str:
    """The icon's SVG text."""
    return (files("zx_web") / "static" / "icon.svg").read_text(encoding="utf-8").strip()


@cache
def icon_href() -> str:
    """The icon as a ``data:`` URL (every page's CSP allows ``img-src data:``)."""
    return "data:image/svg+xml," + quote(icon(), safe="=/:")
