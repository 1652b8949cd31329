"""Writing simulated matches of any game to log files, ``per_file`` matches a file (``zx simulate``).

A game's simulator gives matches with ``lines()`` (the log text), ``records``, ``events``,
``turns``, ``winner`` and ``reason``; this module writes them and says what each file holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
import os
import tempfile
from typing import Any, Callable, Iterable, Iterator


@dataclass
class SimFile:
    """One written log file and what is in it."""

    path: str
    matches: list[Any] = field(default_factory=list)

    def row(self) -> dict:
        return {"file": self.path, "matches": len(self.matches),
                "records": sum(len(s.records) for s in self.matches),
                # as zx import stores them and zx replay counts them: the engine's, and the Sealed event the import
                # appends (one fewer than every replay surface said of the same match)
                "events": sum(s.events + 1 for s in self.matches),
                "turns": sum(s.turns for s in self.matches),
                "winners": [f"{s.winner or '-'} {s.reason or 'unfinished'}" for s in self.matches]}


def write_files(out: str | Path, name: str, sims: Iterable[Any], per_file: int = 1,
                before: Callable[[Path], None] | None = None) -> Iterator[SimFile]:
    """Write the matches ``per_file`` to a file ``<out>/<name>``, ``name`` formatted with ``k`` (the
    file's number from 1); yields each file written. ``out`` is made (if missing) when the first file
    is written, so a simulation that fails before it leaves no empty directory behind. ``before``:
    called with each file's path before it is written (to refuse one, by raising).

    Each file is written to a temporary file in ``out``, then moved onto its name (``os.replace``): a
    link planted under that name is replaced, never written through (a link to a file outside ``out``
    had that file overwritten with the log), and a file is whole or not there."""
    if per_file < 1:
        raise ValueError("per_file must be at least 1")
    out = Path(out)
    batch: list[Any] = []
    k = 0

    def flush() -> SimFile:
        nonlocal k
        if k == 0:
            out.mkdir(parents=True, exist_ok=True)
        k += 1
        path = out / name.format(k=k)
        if before is not None:
            before(path)
        _write_whole(path, ("\n".join(line for s in batch for line in s.lines()) + "\n").encode("utf-8"))
        return SimFile(str(path), list(batch))

    for sim in sims:
        batch.append(sim)
        if len(batch) == per_file:
            yield flush()
            batch = []
    if batch:
        yield flush()


def _write_whole(path: Path, data: bytes) -> None:
    """``data`` into a new temporary file beside ``path``, then moved onto ``path``: whatever was under that
    name (a file, a link to anything) is replaced, and nothing a link names is opened. A file gets the
    permissions of any new file (the umask's)."""
    fd, tmp = tempfile.mkstemp(prefix=".zx-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # (mkstemp makes it private; a log is an ordinary file)
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
