"""The docs' Python examples run as written against the store ``zx demo`` makes (README points readers there).

The QA report: docs/analytics.md ("In a notebook") and docs/replay.md ("From Python") named an event ("Tokyo
Regional 2026") and a match ("tokyo-r3-t12") no store has, and a store file the demo does not make. Each block
is run verbatim, in a folder holding a small demo (``zx demo -n 3``, about 2 s: the same seed gives the same
first matches, sim-2026-0003 included, as the 200 of the README's ``zx demo``), and prints what the doc says.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(doc: str, heading: str) -> list[str]:
    """The ```python blocks of ``doc``'s section ``heading`` (up to the next heading of its level or above)."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else None]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs-demo")
    r = CliRunner().invoke(zx, ["demo", "-n", "3", "--dir", str(folder / "zx-demo")])
    assert r.exit_code == 0, r.output
    return folder


def run(code: str, folder: Path) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_notebook_example_of_docs_analytics_runs_against_the_demo_store(demo_folder):
    (block,) = python_blocks("analytics.md", "In a notebook")
    assert '"zx-demo/events.duckdb"' in block and 'event="Sim League"' in block
    # a notebook shows each expression's frame: printed here, every one of them a polars DataFrame
    lines = block.rstrip("\n").split("\n")
    shown = [f"_x = {line}\nassert type(_x).__name__ == 'DataFrame', type(_x)" if line.startswith("st.") and ";" not in line
             else line for line in lines]
    run("\n".join(shown), demo_folder)


def test_the_from_python_example_of_docs_replay_runs_against_the_demo_store_and_prints_what_it_says(demo_folder):
    (block,) = python_blocks("replay.md", "From Python")
    out = run(block, demo_folder).splitlines()
    doc = (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    said = re.search(r"it prints one line a step, (\d+) in all, the first\s+`([^`]+)`", doc)
    assert said, "docs/replay.md says what the example prints"
    assert len(out) == int(said.group(1)) and out[0] == said.group(2)


def test_the_from_python_example_of_docs_audit_runs_and_prints_what_it_says(demo_folder):
    """docs/audit.md "From Python" (added when the audit API said what to give: QA round 34)."""
    (block,) = python_blocks("audit.md", "From Python")
    if not (demo_folder / "examples").exists():
        (demo_folder / "examples").symlink_to(ROOT / "examples")
    out = run(block, demo_folder).splitlines()
    doc = (ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
    said = re.search(r"it prints `([^`]+)`, then\s+`([^`]+)`", doc)
    assert said, "docs/audit.md says what the example prints"
    assert out == [said.group(1), said.group(2)]
