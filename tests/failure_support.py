"""What the failure tests share (tests/test_store_failures.py, tests/test_analytics_failures.py): the
CLI in a subprocess, running it where file permissions apply, a small disk to fill, a corpus big
enough to interrupt or to fill one, and Ctrl-C sent as a terminal sends it.

Read-only cases run the CLI without the power to ignore file permissions: as root under ``setpriv``
(CAP_DAC_OVERRIDE dropped), else as the user running the tests; full disks are small tmpfs mounts
(root only): each test is skipped, with the reason, where that is not possible.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": "/tmp"}
ZX = [sys.executable, "-c", "from zx_cli.main import main; main()"]
DROP = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]


def zx(cwd: Path, *args: str, prefix: tuple[str, ...] = (), env: dict | None = None,
       timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, *ZX, *args], cwd=cwd, env={**ENV, **(env or {})}, capture_output=True, text=True,
                          timeout=timeout)


def zx_here(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``zx ARGS`` run in this process (click's CliRunner) in ``cwd``, as ``zx`` gives it in its own: where a test is
    about what a command says and its exit status, not about a process (a signal, a full disk under it, its exit).
    Without ZX_STORE or ZX_ANALYTICS, as ``zx`` above (``env``: variables set, or unset with None, meanwhile); an
    exception the command did not turn into its error fails."""
    import contextlib

    from click.testing import CliRunner

    from zx_cli.main import zx as zx_group

    with contextlib.chdir(cwd):
        r = CliRunner().invoke(zx_group, list(args), env={"ZX_STORE": None, "ZX_ANALYTICS": None, **(env or {})})
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception), r.stderr)
    return subprocess.CompletedProcess(["zx", *args], r.exit_code, r.stdout, r.stderr)


def obeying_permissions() -> tuple[str, ...]:
    """A command prefix under which file permissions apply (root's CAP_DAC_OVERRIDE dropped by setpriv;
    nothing for another user), else the test is skipped."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv and subprocess.run([setpriv, *DROP, "--", "true"], capture_output=True).returncode == 0:
        return (setpriv, *DROP, "--")
    pytest.skip("running as root without setpriv to drop CAP_DAC_OVERRIDE: root would write a read-only folder")


@contextlib.contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    """``folder`` as a tmpfs of ``size`` (a full disk on demand), unmounted afterwards; skipped where
    mount is not allowed (not root, a container without CAP_SYS_ADMIN)."""
    folder.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True,
                       text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs for a full disk: {p.stderr.strip() or p.returncode}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """200 simulated Z/X matches, one log file each, imported into ``store.sqlite`` beside them (and
    projected into ``store.duckdb``): the copies each test takes are big enough to interrupt or to fill
    a small disk."""
    d = tmp_path_factory.mktemp("corpus")  # (made in this process: the tests' own commands run in theirs)
    p = zx_here(d, "simulate", "-n", "200", "--seed", "3", "--out", "logs", "--policy", "mixed")
    assert p.returncode == 0, p.stderr
    p = zx_here(d, "--store", "store.sqlite", "import", "--workers", "1", "logs")
    assert p.returncode == 0, p.stderr
    return d


def copy_store(corpus: Path, to: Path) -> Path:
    to.mkdir(parents=True, exist_ok=True)
    shutil.copy(corpus / "store.sqlite", to / "s.sqlite")
    return to / "s.sqlite"


def _default_sigint() -> None:
    """In the child: SIGINT as a terminal's process has it. A test run started in the background by a
    non-interactive shell (``.ci/run ... &``) ignores SIGINT, the child inherits that, and Python then
    installs no handler: the Ctrl-C never arrived (the import finished, exit 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt(cwd: Path, args: list[str], when) -> subprocess.CompletedProcess:
    """Run ``zx ARGS`` in its own process group and send SIGINT to the group (as a terminal's Ctrl-C
    does) as soon as ``when()`` is true."""
    p = subprocess.Popen([*ZX, *args], cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=_default_sigint)
    deadline = time.monotonic() + 60
    while p.poll() is None and not when() and time.monotonic() < deadline:
        time.sleep(0.01)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # Ctrl-C did not stop it: fail, and leave no process behind
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise AssertionError(f"zx {' '.join(args)} still ran 60 s after Ctrl-C; stderr: {err[-2000:]}") from None
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)
