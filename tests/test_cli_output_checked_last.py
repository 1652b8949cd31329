"""A command that writes a file checks what it reads (the store, the match, the analytics file) before the
path it writes: ``zx view nope -o existing.html`` said "existing.html exists: give --force", and only with
--force the real error, "unknown match 'nope'" (QA "share", defect 6). So do ``zx report``, ``zx export`` and
``zx audit --bundle``. Through the CLI (CliRunner): the real error first, nothing created or changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
MATCH = "hand-first-turns-001"


def run(*args: str):
    return CliRunner().invoke(zx, list(args))


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A store holding one match, without an analytics file."""
    store = tmp_path_factory.mktemp("stored") / "s.sqlite"
    assert run("--store", str(store), "import", "--no-analytics", str(LEGAL)).exit_code == 0
    return store


def _files(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


def _existing(folder: Path) -> tuple[Path, Path]:
    """A file and an export folder (not an earlier export) that a command would refuse to replace."""
    page = folder / "existing.html"
    page.write_text("mine")
    out = folder / "out"
    (out / "matches").mkdir(parents=True)
    return page, out


NO_STORE = {"view": ["view", MATCH, "-o", "{page}"],
            "report": ["report", "-o", "{page}"],
            "export": ["export", "--parquet", "{out}"],
            "audit --bundle": ["audit", MATCH, "--bundle", "{page}"]}
NO_STORE_SAYS = {"view": "there is no store at {store}",
                 "report": "there is no store at {store}",
                 "export": "no analytics file at {analytics}, and no store at {store}",
                 "audit --bundle": f"unknown match '{MATCH}': it is neither a log file nor a stored match (there is "
                                   f"no store at {{store}})"}


@pytest.mark.parametrize("command", list(NO_STORE))
def test_no_store_is_said_before_an_existing_output(tmp_path, command):
    page, out = _existing(tmp_path)
    store = tmp_path / "none.sqlite"
    before = _files(tmp_path)
    args = [a.format(page=page, out=out) for a in NO_STORE[command]]
    r = run("--store", str(store), *args)
    assert r.exit_code == 1, r.output
    assert NO_STORE_SAYS[command].format(store=store, analytics=tmp_path / "none.duckdb") in r.output, r.output
    assert "exists" not in r.output and "would replace" not in r.output, r.output
    assert _files(tmp_path) == before  # nothing created, nothing changed


@pytest.mark.parametrize("command", ["view", "audit --bundle"])
def test_an_unknown_match_is_said_before_an_existing_output(stored, tmp_path, command):
    page, _ = _existing(tmp_path)
    before, stored_before = _files(tmp_path), _files(stored.parent)
    args = ["view", "nope", "-o", str(page)] if command == "view" else ["audit", "nope", "--bundle", str(page)]
    r = run("--store", str(stored), *args)
    assert r.exit_code == 1, r.output
    assert "unknown match 'nope'" in r.output and "exists" not in r.output, r.output
    assert _files(tmp_path) == before and _files(stored.parent) == stored_before


@pytest.mark.parametrize("command", ["report", "export"])
def test_no_analytics_file_is_said_before_an_existing_output(stored, tmp_path, command):
    page, out = _existing(tmp_path)
    before, stored_before = _files(tmp_path), _files(stored.parent)
    args = ["report", "-o", str(page)] if command == "report" else ["export", "--parquet", str(out)]
    r = run("--store", str(stored), *args)
    assert r.exit_code == 1, r.output
    assert f"no analytics file at {stored.with_suffix('.duckdb')}" in r.output, r.output
    assert "exists" not in r.output and "would replace" not in r.output, r.output
    assert _files(tmp_path) == before and _files(stored.parent) == stored_before


def test_an_existing_output_is_still_refused_once_the_match_is_found(stored, tmp_path):
    page, _ = _existing(tmp_path)
    r = run("--store", str(stored), "view", MATCH, "-o", str(page))
    assert r.exit_code == 1 and f"{page} exists: give --force to overwrite it, or -o another file" in r.output
    assert page.read_text() == "mine"
    r = run("--store", str(stored), "audit", MATCH, "--bundle", str(page))
    assert r.exit_code == 1 and "already exists: give another name, or --force" in r.output, r.output
    assert page.read_text() == "mine"


def test_the_default_file_of_zx_view_is_named_as_the_default(stored, tmp_path, monkeypatch):
    """``zx view ..`` (a match stored before such ids were refused) wrote match-spectator.html, and the next
    ``zx view .`` said "match-spectator.html exists", a name the user never gave: it says whose default it is."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / f"{MATCH}-spectator.html").write_text("mine")
    r = run("--store", str(stored), "view", MATCH)
    assert r.exit_code == 1, r.output
    assert (f"{MATCH}-spectator.html exists (the file zx view writes for match '{MATCH}' as spectator when -o "
            f"names none): give --force to overwrite it, or -o another file") in r.output, r.output
    assert (tmp_path / f"{MATCH}-spectator.html").read_text() == "mine"
