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


def test_the_python_api_warns_of_a_catalog_of_another_game_it_does_not_use(tmp_path, files):
    """``audit_log``, ``audit_stored``, ``import_log`` and ``import_logs`` used a Z/X catalog given for an X610Z
    match for nothing, without a word, where zx warns (QA round 37). Each warns now (``OtherGameCatalog``, a
    ``UserWarning``), once a call; a catalog of the match's game, or {game: catalog} naming it, gives none; and zx's
    commands, which say it their own way, show no Python warning."""
    import warnings

    from zx_events.application import MatchService
    from zx_events.audit import audit_log, audit_stored
    from zx_events.games import load_catalogs
    from zx_events.importer import OtherGameCatalog
    from zx_events.logformat.reader import read_log

    (x6,), (zxm,) = read_log(str(X610Z_LOG)), read_log(str(ZX_LOG))
    said = r"the catalog my-zx-cards is a Z/X catalog, not used for X610Z matches: each is checked against the one " \
           r"its header names; give a catalog of X610Z"
    svc = MatchService("memory:")
    try:
        for catalog in (files["catalog"], str(files["catalog"]), load_catalogs(str(files["catalog"]))["zx"]):
            with pytest.warns(OtherGameCatalog, match=said) as caught:
                assert audit_log(x6, catalog=catalog).ok
            assert len(caught) == 1 and caught[0].filename == __file__
            with pytest.warns(OtherGameCatalog, match=said) as caught:
                assert svc.import_log(x6, catalog=catalog).status in ("imported", "unchanged")
            assert len(caught) == 1 and caught[0].filename == __file__
            with pytest.warns(OtherGameCatalog, match=said) as caught:
                assert [o.status for o in svc.import_logs([x6], catalog=catalog)] == ["unchanged"]
            assert len(caught) == 1 and caught[0].filename == __file__
            with pytest.warns(OtherGameCatalog, match=said) as caught:
                assert audit_stored(svc, x6.match_id, catalog=catalog).ok
            assert len(caught) == 1 and caught[0].filename == __file__
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert audit_log(zxm, catalog=files["catalog"]).ok
            assert audit_log(x6, catalog=None).ok and audit_log(x6, catalog="x610z-sample").ok
            assert svc.import_log(zxm, catalog=files["catalog"]).status == "imported"
            assert audit_stored(svc, zxm.match_id, catalog=files["catalog"]).ok
    finally:
        svc.close()
    r = run(tmp_path / "s.sqlite", "import", "--no-analytics", "--catalog", str(files["catalog"]), str(X610Z_LOG))
    assert r.exit_code == 0 and "OtherGameCatalog" not in r.stderr and r.stderr.count("warning") == 1, r.stderr
