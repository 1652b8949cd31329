"""A shared ``zx view`` file in Chromium: its address always names the moment and the seat shown (Back and
Forward, the skip link), a seat in the address is read in any case and a seat the file does not hold falls back
to the seat of it that sees least, and a file holding another player's seat than the one shown says so.
Skipped without Chromium, unless CI is set (then they fail)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from test_viewer_browser import wait_for_hash, write_views  # (the address and file helpers, one copy)
from click.testing import CliRunner

from zx_cli.main import zx


@pytest.fixture(scope="module")
def files(viewer_store, tmp_path_factory) -> dict[str, Path]:
    """Pages of one match written by zx view, by their seats."""
    return write_views(viewer_store.path, tmp_path_factory.mktemp("viewer-share"), (
        (name, seats, viewer_store.matches[1]) for name, seats in (
            ("P1", ["P1"]), ("P1P2", ["P1", "P2"]), ("P2spec", ["P2", "spectator"]),
            ("all", ["judge", "P1", "P2", "spectator"]), ("judgeP2", ["judge", "P2"]))))


def open_file(driver: Any, path: Path, fragment: str = "") -> None:
    driver.get("about:blank")
    driver.get(path.as_uri() + fragment)
    # (a loaded machine: CI once read the new page before its script ran, after the page before had written its
    # address on leaving; a few seconds for it, then the same failure)
    deadline = time.monotonic() + 5
    while driver.execute_script("return typeof zxViewer") != "object" and time.monotonic() < deadline:
        time.sleep(0.05)
    if driver.execute_script("return typeof zxViewer") != "object":
        try:
            said = driver.get_log("browser")
        except Exception:  # (a driver without logs)
            said = []
        pytest.fail(f"the viewer did not start at {driver.current_url}: {said}")


def shown(driver: Any) -> tuple[int, str]:
    return tuple(driver.execute_script("return [zxViewer.seq(), zxViewer.seat()]"))


def keys(driver: Any, *names: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    chain = ActionChains(driver)
    for n in names:
        chain.send_keys(getattr(Keys, n))
    chain.perform()


def test_back_then_forward_the_board_follows_the_address(browser, files):
    """The hashchange handler ignored a fragment equal to the last one it wrote: #e=10, then #e=30 typed, three
    steps (#e=33), Back (#e=10, board 10), Forward: the address read #e=33 and the board stayed at 10."""
    open_file(browser, files["P1"], "#e=10")
    browser.execute_script("location.hash = '#e=30'")  # typed into the address: an entry of the history
    time.sleep(0.2)
    browser.execute_script("document.activeElement && document.activeElement.blur()")
    keys(browser, "ARROW_RIGHT", "ARROW_RIGHT", "ARROW_RIGHT")
    assert shown(browser)[0] == 33 and wait_for_hash(browser, "#e=33") == "#e=33"
    browser.back()
    assert wait_for_hash(browser, "#e=10") == "#e=10"
    time.sleep(0.2)
    assert shown(browser)[0] == 10
    browser.forward()
    assert wait_for_hash(browser, "#e=33") == "#e=33"
    time.sleep(0.2)
    assert shown(browser)[0] == 33  # the board follows the address
    keys(browser, "ARROW_RIGHT")
    assert shown(browser)[0] == 34 and wait_for_hash(browser, "#e=34") == "#e=34"


def test_the_skip_link_moves_the_focus_and_keeps_the_moment_in_the_address(browser, files):
    """Tab, Enter on "Skip to content" replaced #e=12 with #replay (a link that opens at event 1) and added an
    entry to the history; the focus now goes to the replay's controls and the address stays."""
    open_file(browser, files["P1P2"], "#e=12&as=P2")
    before = browser.execute_script("return history.length")
    keys(browser, "TAB")
    assert browser.execute_script("return document.activeElement.className") == "skip"
    keys(browser, "ENTER")
    time.sleep(0.2)
    assert browser.execute_script("return document.activeElement.id") == "replay"
    assert browser.execute_script("return location.hash") == "#e=12&as=P2"
    assert browser.execute_script("return history.length") == before
    keys(browser, "TAB")
    assert browser.execute_script("return document.activeElement.id") == "first"


def test_a_file_holding_another_players_seat_than_the_one_shown_says_so_in_a_banner(browser, files):
    """A P1 and P2 file opened as P1 said nothing, with P2's hand one pick away in the Seat box."""
    def banner() -> str | None:
        el = browser.find_element("id", "judge-banner")
        return el.text if el.is_displayed() else None

    for name, fragment, other, seat in (("P1P2", "#as=P1", "P2", "P1"), ("P1P2", "#as=P2", "P1", "P2"),
                                        ("P2spec", "#as=spectator", "P2", "spectator")):
        open_file(browser, files[name], fragment)
        assert shown(browser)[1] == seat
        text = banner()
        assert text and text.startswith(f"This file also holds {other}'s view ({other}'s hidden cards)"), (name, text)
    open_file(browser, files["P2spec"], "#as=P2")  # P2's own file (and the public zones): nothing more
    assert banner() is None
    open_file(browser, files["P1"])
    assert banner() is None
    open_file(browser, files["all"], "#as=P1")  # the judge's view says more (every hidden card)
    assert banner().startswith("This file also holds the judge's view")


def test_zx_view_says_on_stderr_when_a_file_holds_more_than_one_seats_hidden_cards(viewer_store, tmp_path):
    """zx view --as P1 --as P2 printed only "seats P1, P2"."""
    def stderr(*seats: str) -> str:
        args = ["--store", viewer_store.path, "view", viewer_store.matches[1], "-o", str(tmp_path / "f.html"),
                "--force"]
        for s in seats:
            args += ["--as", s]
        res = CliRunner().invoke(zx, args)
        assert res.exit_code == 0, res.output
        return res.stderr

    assert ("warning: this file holds both players' hidden cards (P1 and P2): do not share it with a player or a "
            "spectator\n") in stderr("P1", "P2")
    assert ("warning: this file holds the judge's view (every hidden card) beside P2: do not share it with a player "
            "or a spectator\n") in stderr("judge", "P2")
    assert ("warning: this file holds P2's hidden cards beside the spectator's view: share it with P2 only\n"
            in stderr("P2", "spectator"))
    for seats in (["P1"], ["P2"], ["judge"], ["spectator"]):
        assert "warning" not in stderr(*seats), seats


def test_a_seat_in_the_address_is_read_in_any_case(browser, files):
    """#as=p2 opened the judge's view (the first seat) and rewrote the address &as=judge; zx view --as and
    zx serve ?as= take a seat in any case."""
    open_file(browser, files["all"], "#e=15&as=p2")
    assert shown(browser) == (15, "P2") and wait_for_hash(browser, "#e=15&as=P2") == "#e=15&as=P2"
    open_file(browser, files["all"], "#e=16&as=SPECTATOR")
    assert shown(browser) == (16, "spectator")
    browser.execute_script("location.hash = '#e=17&as=p1'")
    assert wait_for_hash(browser, "#e=17&as=P1") == "#e=17&as=P1" and shown(browser) == (17, "P1")


def test_a_seat_the_file_does_not_hold_falls_back_to_the_seat_of_it_that_sees_least(browser, files):
    """#as=P3 (or a seat the file was not written for) opened the first seat, the judge's view in a file that
    holds it; now the seat of the file that sees least (spectator < a player < judge), said in the status line."""
    said = "return document.getElementById('said').textContent"
    for name, fragment, seat in (("all", "#e=18&as=P3", "spectator"), ("judgeP2", "#e=18&as=P1", "P2"),
                                 ("P1P2", "#e=18&as=spectator", "P1"), ("all", "#e=18&as=%E0", "spectator")):
        open_file(browser, files[name], fragment)
        assert shown(browser) == (18, seat), (name, fragment)
        assert wait_for_hash(browser, f"#e=18&as={seat}") == f"#e=18&as={seat}"
        assert browser.execute_script(said).startswith("The address names seat "), (name, fragment)
        assert f"which this file does not hold: shown as {seat}" in browser.execute_script(said)
        banner = browser.find_element("id", "judge-banner")  # on screen too, not only for a screen reader
        assert banner.is_displayed() and f"which this file does not hold: shown as {seat}" in banner.text, banner.text
    open_file(browser, files["all"], "#e=20&as=judge")
    assert shown(browser) == (20, "judge")
    browser.execute_script("location.hash = '#e=21&as=P4'")  # typed: the same
    assert wait_for_hash(browser, "#e=21&as=spectator") == "#e=21&as=spectator" and shown(browser) == (21, "spectator")
    assert "does not hold: shown as spectator" in browser.execute_script(said)
