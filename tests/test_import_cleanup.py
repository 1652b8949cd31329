"""SIGTERM while ``zx import`` loads its own modules is taken as it is at every other moment of the
command. Real processes and signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from failure_support import ENV

ROOT = Path(__file__).resolve().parent.parent
LEGAL = str(ROOT / "examples" / "legal" / "first-turns.zxlog")


# SIGTERM while zx import loaded its own modules (eventsourcing, the parallel importer: tens of ms, before
# its SIGTERM handler was installed) ended it with exit 143 and no word. The hook below sends the signal at
# exactly that moment: when the command first imports zx_events.parallel.
_SIGTERM_ON_IMPORT = """
import importlib.abc, os, signal, sys

class SigtermOnImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "zx_events.parallel":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, SigtermOnImport())
from cli.main import main
main()
"""


def test_sigterm_while_the_import_loads_its_modules_says_so_and_ends_by_the_signal(tmp_path):
    p = subprocess.run([sys.executable, "-c", _SIGTERM_ON_IMPORT, "--store", "s.sqlite", "import", "--no-analytics",
                        LEGAL], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert p.stderr.strip().splitlines()[-1] == "interrupted (SIGTERM): 0 matches were imported", p.stderr
    assert os.listdir(tmp_path) == []  # (no store made)
