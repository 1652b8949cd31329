"""A replay page names its match's head digest and events (QA round 35: a file of ``zx view`` carried none, so one made
from a forged store looked exactly like a real one): in its footer, for every seat, with the ``zx verify --head``
that checks it against the store, and that the file itself is no evidence. One Chromium for the module (a phone's
width: the footer fits it; the page's scripts still run under its CSP)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

SEATS = ("judge", "P1", "P2", "spectator")


def invoke(store: str, *args: str):
    return CliRunner().invoke(zx, ["--store", store, *args])


@pytest.fixture(scope="module")
def files(viewer_store, tmp_path_factory) -> tuple[str, str, int, dict[str, Path]]:
    """The match with a violation of the viewer store, its head and events as ``zx verify`` gives them, and a file
    of ``zx view`` for each seat."""
    match = viewer_store.with_violation
    r = invoke(viewer_store.path, "verify", match, "--format", "json")
    (verdict,) = [v for v in json.loads(r.stdout) if v["match"] == match]
    assert verdict["ok"]
    folder = tmp_path_factory.mktemp("head-digest")
    out = {}
    for seat in SEATS:
        out[seat] = folder / f"{seat}.html"
        r = invoke(viewer_store.path, "view", match, "--as", seat, "-o", str(out[seat]))
        assert r.exit_code == 0, r.output
    return match, verdict["head"], verdict["events"], out


def test_every_seat_s_file_names_the_head_digest_and_how_to_check_it(files):
    match, head, events, paths = files
    for seat, path in paths.items():
        text = path.read_text(encoding="utf-8")
        assert (f'<span id="chain-head">Head digest <code>{head[:16]}</code> ({events:,} events): <code>zx verify '
                f'{match} --head {head[:16]}</code> checks it against the store. This file is no evidence of the '
                f'match: the store (<code>zx verify --head</code>) or a judge\'s bundle (<code>zx verify '
                f'--bundle</code>) is.</span>') in text, seat
        assert f'"chain":{{"head":"{head}","events":{events},"ok":true}}' in text, seat


def test_a_file_of_an_altered_store_says_its_chain_does_not_verify(files, viewer_store, tmp_path):
    match, head, events, _ = files
    store = tmp_path / "altered.sqlite"
    shutil.copyfile(viewer_store.path, store)
    with sqlite3.connect(store) as db:  # one event's timestamp edited in the store
        (oid,) = db.execute("select originator_id from stored_events where originator_version = 1 and "
                            "json_extract(cast(state as text), '$.header.match') = ?", (match,)).fetchone()
        changed = db.execute("update stored_events set state = cast(replace(cast(state as text), '\"20', '\"19') as "
                             "blob) where originator_id = ? and originator_version = 3", (oid,)).rowcount
        assert changed == 1
    out = tmp_path / "v.html"
    r = invoke(str(store), "view", match, "-o", str(out))
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert f"Head digest as stored <code>{head[:16]}</code> ({events:,} events): its chain does not verify" in text
    assert "checks it against the store" not in text


def test_the_footer_is_read_on_a_phone_and_the_page_runs(files, page):
    """At 360 CSS px the footer's sentence is on the page (print hides the footer: its keys are of no use on paper),
    nothing is wider than the screen, and the viewer's script ran (the page's CSP lets exactly its scripts run)."""
    from selenium.webdriver.support.ui import WebDriverWait

    match, head, events, paths = files
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 740, "deviceScaleFactor": 2,
                                                                 "mobile": True})
    for seat in ("P1", "spectator"):
        page.get(paths[seat].as_uri() + "#e=1")
        WebDriverWait(page, 20).until(lambda d: d.execute_script("return document.getElementById('pos').textContent"))
        said = page.execute_script("return document.getElementById('chain-head').innerText")
        assert said.startswith(f"Head digest {head[:16]} ({events:,} events): zx verify {match} --head"), said
        assert page.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), seat
        box = page.execute_script("const r = document.getElementById('chain-head').getBoundingClientRect();"
                                  "return [r.left, r.right, r.height]")
        assert box[0] >= 0 and box[1] <= 360 and box[2] > 0, box
