"""What a seat reads of a stored match on the surfaces a player uses: ``zx replay`` (table or JSON) and the
``zx view`` file; the tests that a refused or hidden card stays hidden there share them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from zx_cli.main import zx


def replay(store: str, match: str, seat: str, *args: str) -> str:
    """``zx replay MATCH --as SEAT ARGS`` in 200 columns: its standard output (exit 0 asserted)."""
    r = CliRunner().invoke(zx, ["--store", store, "replay", match, "--as", seat, *args], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return r.stdout


def view_file(store: str, match: str, seat: str, tmp_path: Path) -> bytes:
    """The bytes of ``zx view MATCH --as SEAT``'s file."""
    out = tmp_path / f"{match}-{seat}.html"
    r = CliRunner().invoke(zx, ["--store", store, "view", match, "--as", seat, "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out.read_bytes()


def stored_as_played(folder: Path, logs: "list[Path]") -> str:
    """A SQLite store in ``folder`` holding ``logs``, imported with ``--accept-violations`` (their analytics beside
    it): its path."""
    path = str(folder / "events.sqlite")
    for log in logs:
        r = CliRunner().invoke(zx, ["--store", path, "import", "--accept-violations", str(log)],
                               env={"ZX_ANALYTICS": str(folder / "events.duckdb")})
        assert r.exit_code == 0, r.output
    return path


def browser_at_turn(browser: object, store: str, match: str, seat: str, turn: int, tmp_path: Path) -> None:
    """``browser`` on ``zx view MATCH --as SEAT``'s file, at the start of turn ``turn`` (its first step's seq)."""
    view_file(store, match, seat, tmp_path)
    browser.get((tmp_path / f"{match}-{seat}.html").as_uri())  # type: ignore[attr-defined]
    seq = int(replay(store, match, seat, "--turn", str(turn), "--format", "csv").splitlines()[1].split(",")[0])
    browser.execute_script(f"zxViewer.go({seq})")  # type: ignore[attr-defined]
