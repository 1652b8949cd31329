"""Test helpers: play an X610Z log through the referee; what a seat may see (the leak tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zx_events.games.x610z.setup import board_for, catalog_for, open_match

SPEC = Path(__file__).resolve().parents[3] / ".." / ".." / "shared" / "spec" / "x610z"
SPEC = Path("/work/shared/spec/x610z") if not SPEC.exists() else SPEC


def split(text: str) -> list[tuple[int, dict, list[tuple[int, dict]]]]:
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        obj = json.loads(line)
        if "x610zlog" in obj:
            out.append((no, obj, []))
        else:
            out[-1][2].append((no, obj))
    return out


def play(text: str, *, strict: bool = True, source: str = "t.x610zlog"):
    matches = []
    for hline, header, records in split(text):
        m, ref = open_match(header, catalog_for(header), board_for(header), strict=strict, source=source, line=hline)
        for no, rec in records:
            ref.handle(no, rec)
        ref.finish()
        matches.append((m, ref))
    return matches


# ---------------------------------------------------------------------- what a seat may see (leak tests)
def visible_codes(m: Any, viewer: str) -> set[str]:
    """Codes in zones the viewer sees: the board, permanents, the stack, discard and removed piles,
    his own hand."""
    if m is None:
        return set()
    out = {e["code"] for e in m.dots.values()} | {p["code"] for p in m.perms}
    out |= {s["card"] for s in m.stack if s.get("card")}
    for pl, z in m.p.items():
        out |= set(z["discard"]) | set(z["removed"])
        if viewer == pl:
            out |= set(z["hand"])
    return out


def hidden_codes(m: Any, viewer: str) -> set[str]:
    """Codes in zones the viewer may not see: every deck, the other player's hand."""
    out: set[str] = set()
    if m is None:
        return out
    for pl, z in m.p.items():
        out |= set(z["deck"])
        if viewer != pl:
            out |= set(z["hand"])
    return out


def strings(value: Any) -> list[str]:
    """Every string in a JSON-like value, keys included, in document order. (A list built in one walk: the
    leak tests call it on every view of every event; nested generators cost them a third of their time.)"""
    return strings_and_texts(value)[0]


def strings_and_texts(value: Any, text_keys: Any = (), key: str | None = None) -> tuple[list[str], list[str]]:
    """``strings(value)``, and in the same walk the strings held under one of ``text_keys`` (free text: what a
    leak test checks by words, not by codes); ``key``: the key ``value`` itself is held under."""
    found: list[str] = []
    texts: list[str] = []

    def walk(value: Any, key: str | None) -> None:
        if isinstance(value, str):
            found.append(value)
            if key in text_keys:
                texts.append(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                found.append(k)
                walk(v, k)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v, key)

    walk(value, key)
    return found, texts

