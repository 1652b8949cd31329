"""A match id made only of dots ("." or "..") is refused at import, in both games (docs/match-log.md, The
header): a browser resolves a URL path segment "." or ".." away, so ``zx serve``'s links to such a match led
back to the match list (QA "share", defect 3). Through ``zx import`` (CliRunner): the error at FILE:LINE, nothing
stored, no store left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {"zx": ROOT / "examples" / "legal" / "first-turns.zxlog",
            "x610z": ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog"}


def _log_with_id(folder: Path, game: str, match_id: str) -> Path:
    example = EXAMPLES[game]
    first, rest = example.read_text(encoding="utf-8").split("\n", 1)
    header = json.loads(first)
    header["match"] = match_id
    log = folder / f"m{example.suffix}"
    log.write_text(json.dumps(header) + "\n" + rest, encoding="utf-8")
    return log


def _import(store: Path, log: Path):
    return CliRunner().invoke(zx, ["--store", str(store), "import", "--no-analytics", "--workers", "1", str(log)])


@pytest.mark.parametrize("game", ["zx", "x610z"])
@pytest.mark.parametrize("match_id", [".", "..", "..."])
def test_a_match_id_made_only_of_dots_is_refused_at_its_header_line(tmp_path, game, match_id):
    log = _log_with_id(tmp_path, game, match_id)
    store = tmp_path / "s.sqlite"
    r = _import(store, log)
    assert r.exit_code == 1, r.output
    assert (f"{log}:1: format: match must not be made only of dots, got '{match_id}': a browser resolves a path "
            f"segment '{match_id}' away, so zx serve's pages could not open the match (docs/match-log.md, The "
            f"header)") in r.output, r.output
    assert "0 imported, 0 unchanged, 1 rejected" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [log.name]  # nothing stored, no store left behind


@pytest.mark.parametrize("match_id", ["..x", "x..", ".x.", "a.b"])
def test_a_match_id_with_dots_and_more_is_still_a_match_id(tmp_path, match_id):
    log = _log_with_id(tmp_path, "zx", match_id)
    r = _import(tmp_path / "s.sqlite", log)
    assert r.exit_code == 0 and "1 imported, 0 unchanged, 0 rejected" in r.output, r.output


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_zx_simulate_makes_no_match_id_made_only_of_dots(tmp_path, game):
    """The ids ``zx simulate`` writes (``sim-SEED-NNNN``, ``x610z-sim-SEED-NNNN``) import."""
    out = tmp_path / "sim"
    r = CliRunner().invoke(zx, ["simulate", "--game", game, "-n", "2", "--max-turns", "4", "-o", str(out)])
    assert r.exit_code == 0, r.output
    records = [json.loads(line) for f in sorted(out.iterdir()) for line in f.read_text(encoding="utf-8").splitlines()]
    ids = [r["match"] for r in records if "zxlog" in r or "x610zlog" in r]
    assert len(ids) == 2 and all(i.strip(".") for i in ids), ids
