"""Writing simulated matches of any game to log files, ``per_file`` matches a file (``zx simulate``).

A game's simulator gives matches with ``lines()`` (the log text), ``records``, ``events``,
``turns``, ``winner`` and ``reason``; this module writes them and says what each file holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator


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


def write_files(out: str | Path, name: str, sims: Iterable[Any], per_file: int = 1) -> Iterator[SimFile]:
    """Write the matches ``per_file`` to a file ``<out>/<name>``, ``name`` formatted with ``k`` (the
    file's number from 1); yields each file written. ``out`` is made (if missing) when the first file
    is written, so a simulation that fails before it leaves no empty directory behind."""
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
        path.write_text("\n".join(line for s in batch for line in s.lines()) + "\n", encoding="utf-8", newline="\n")
        return SimFile(str(path), list(batch))

    for sim in sims:
        batch.append(sim)
        if len(batch) == per_file:
            yield flush()
            batch = []
    if batch:
        yield flush()
