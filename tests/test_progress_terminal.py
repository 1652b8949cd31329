"""A line said while a progress bar is drawn on a terminal gets a line of its own (a pseudo-terminal: the bar is
drawn only there).

The QA report (round 31): Ctrl-C during ``zx import`` printed ``importing ━━━━━━╺━━━ 3.0/6.2 MB 0:00:00interrupted:
320 matches were imported ...``: click writes to stderr itself, not through rich's redirection, so the message
went on the bar's line, and the bar was drawn again under it."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")


def screen_lines(raw: bytes) -> list[str]:
    """The lines a terminal shows for ``raw`` (styles left out; ``\\r`` goes back to the line's start, ``ESC[2K``
    erases it; enough of a terminal for a bar drawn on one line)."""
    text = re.sub(r"\x1b\[[0-9;]*m|\x1b\[\?25[hl]", "", raw.decode("utf-8", "replace"))
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        shown = ""
        for part in line.split("\r"):
            if part.startswith("\x1b[2K"):
                shown, part = "", part[4:]
            shown = part + shown[len(part):]
        lines.append(shown)
    return lines


def run_in_pty(script: str, *args: str) -> tuple[int, list[str]]:
    master, slave = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "COLUMNS": "100"}
    proc = subprocess.Popen([sys.executable, "-c", script, *args], stdin=slave, stdout=slave, stderr=slave, env=env,
                            close_fds=True, start_new_session=True)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if select.select([master], [], [], 0.1)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=10), screen_lines(out)


def test_ctrl_c_during_an_import_says_how_far_it_got_on_a_line_of_its_own(tmp_path):
    """The import is interrupted after its first match (a KeyboardInterrupt as Ctrl-C raises it, from the
    import's loop); the bar is shown for these few small logs as for 2 MB of them."""
    script = """
import sys
import zx_cli.output, zx_events.parallel as parallel
shown = zx_cli.output.progress
zx_cli.output.progress = lambda total, label, enabled=True, **k: shown(total, label, True, **k)
real = parallel.import_files
def import_files(*args, **kwargs):
    it = real(*args, **kwargs)
    yield next(it)
    raise KeyboardInterrupt
parallel.import_files = import_files
from zx_cli.main import main
sys.argv = ["zx", *sys.argv[1:]]
main()
"""
    logs = sorted(str(p) for p in (ROOT / "examples" / "legal").glob("*.zxlog"))
    status, lines = run_in_pty(script, "--store", str(tmp_path / "s.sqlite"), "import", "--workers", "1", *logs)
    assert status == 1, lines
    said = [i for i, line in enumerate(lines) if "interrupted:" in line]
    assert len(said) == 1, lines
    line = lines[said[0]]
    assert re.match(r"interrupted: \d+ match(es)? (was|were) imported into ", line), lines  # (not on the bar's line)
    bars = [i for i, line in enumerate(lines) if line.startswith("importing ")]
    assert bars and max(bars) < said[0], lines  # the bar's last state above it, not drawn again under it
    assert lines[said[0] + 1] == "Aborted!"


def test_a_note_said_while_the_bar_is_drawn_goes_above_it(tmp_path):
    """``zx prepare``'s line for a damaged match, the import's note of a table lock waited for: ``say``."""
    script = """
import time
from zx_cli.output import progress, say
with progress(10, "working") as bar:
    task = bar.add_task("work", total=10)
    bar.advance(task, 3)
    time.sleep(0.3)
    say(bar, "m-1: a note for this match")
    bar.advance(task, 7)
say(bar, "after the bar")
"""
    status, lines = run_in_pty(script)
    assert status == 0, lines
    lines = [line for line in lines if line.strip()]
    note = lines.index("m-1: a note for this match")
    assert lines[note + 1].startswith("working ") and "10/10" in lines[note + 1], lines
    assert lines[-1] == "after the bar", lines
    assert not any("note" in line and "working" in line for line in lines), lines
