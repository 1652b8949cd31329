"""``--catalog`` and ``--board`` that no match of the command is of the game of: a Z/X catalog file with
X610Z logs, an X610Z board with Z/X logs. zx import and zx audit used them for nothing without a word
(exit 0, "1 imported"); zx analytics update --catalog FILE too, for a file no stored match was checked
against. Each now warns on stderr (in --format json too: stdout stays the data), exit code unchanged."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
ZX_LOG = ROOT / "examples" / "legal" / "first-turns.zxlog"
X610Z_LOG = ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog"


def run(store: Path | str, *args: str):
    r = CliRunner().invoke(zx, ["--store", str(store), *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    zx_cat = tmp_path / "my-zx-cards.csv"
    zx_cat.write_text(resources.files("zx_events.games.zx.catalogs").joinpath("sample.csv").read_text(
        encoding="utf-8").replace("Ember Whelp Scout", "Renamed Scout"), encoding="utf-8")
    board = tmp_path / "my-board.json"
    board.write_text(resources.files("zx_events.games.x610z.boards").joinpath("x610z-orbits-sample.json").read_text(
        encoding="utf-8"), encoding="utf-8")
    return {"catalog": zx_cat, "board": board}


@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("command", ["import", "audit"])
def test_a_catalog_or_board_of_a_game_no_match_is_of_is_named_in_a_warning(tmp_path, files, command, fmt):
    what = "log of this import" if command == "import" else "match of this audit"
    extra = ["--no-analytics"] if command == "import" else []
    for option, log, game in (("catalog", X610Z_LOG, "Z/X"), ("board", ZX_LOG, "X610Z")):
        r = run(tmp_path / f"s-{option}.sqlite", command, *extra, f"--{option}", str(files[option]), "--format", fmt,
                str(log))
        assert r.exit_code == 0, r.output
        assert (f"warning: --{option} {files[option]}: no {what} is {game} (the game of this {option}); it was not "
                f"used\n") in r.stderr, r.stderr
        assert "warning: " not in r.stdout


@pytest.mark.parametrize("command", ["import", "audit"])
def test_a_catalog_and_board_a_match_uses_get_no_warning(tmp_path, files, command):
    extra = ["--no-analytics"] if command == "import" else []
    r = run(tmp_path / "s.sqlite", command, *extra, "--catalog", str(files["catalog"]), "--board",
            str(files["board"]), str(ZX_LOG), str(X610Z_LOG))
    assert r.exit_code == 0, r.output
    assert "warning" not in r.stderr, r.stderr


def test_analytics_update_warns_of_a_catalog_file_no_stored_match_was_checked_against(tmp_path, files):
    store = tmp_path / "s.sqlite"
    assert run(store, "import", "--no-analytics", "--catalog", str(files["catalog"]), str(ZX_LOG)).exit_code == 0
    other = tmp_path / "other.csv"  # another content: no stored match pins its SHA-256
    other.write_text(files["catalog"].read_text(encoding="utf-8").replace("Renamed Scout", "Other Scout"),
                     encoding="utf-8")
    r = run(store, "analytics", "update", "--analytics", str(tmp_path / "a.duckdb"), "--catalog",
            str(files["catalog"]), "--catalog", str(other), "--format", "json")
    assert r.exit_code == 0, r.output
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning")]
    assert len(warnings) == 1 and warnings[0].startswith(
        f"warning: --catalog {other}: no stored match was checked against it (catalog other, sha256 "), r.stderr
    assert warnings[0].endswith(", Z/X); it was not used (a catalog file is for the matches imported with it: "
                                "zx import --catalog FILE)")
    assert r.stdout.startswith("[")  # the data, as before
