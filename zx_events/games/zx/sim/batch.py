"""Many simulated matches: deck pairings, headers, seeds, and the ``.zxlog`` files they go to.

Everything is derived from ``(seed, n)``: match ``n`` gets its own ``random.Random`` seeded with
the string ``zx-sim:<seed>:<n>`` (string seeds hash with SHA-512, independent of
``PYTHONHASHSEED``), so the same seed gives byte-identical files, and match 7 is the same whether
10 or 1000 matches are generated. No clock is read: ``played_at`` is spread over half a year from
a fixed date, so analytics that partition by month see several months.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator, Sequence

from zx_events.games.simfiles import SimFile  # noqa: F401  (what write_files yields; zx_events.games.zx.sim exports it)
from zx_events.games.simfiles import write_files as _write_files
from zx_events.games.zx.cards import load_catalog
from zx_events.games.zx.decks import Deck, sample_catalog_name, sample_decks
from zx_events.games.zx.sim.play import MAX_TURNS, SimMatch, play_match
from zx_events.games.zx.sim.policy import POLICIES

POLICY_CHOICES = ("greedy", "random", "mixed")
EVENT = "Sim League"
START = datetime(2026, 1, 3, 10, 0, tzinfo=timezone(timedelta(hours=9)))
SPAN_DAYS = 182
NAMES = ("Aki", "Ren", "Mio", "Sora", "Kei", "Yuna", "Taro", "Hana", "Riku", "Emi", "Jun", "Nao")


def pick_decks(names: Sequence[str] | None) -> list[Deck]:
    """The sample decks named (all of them by default), each once however often it is named;
    ``KeyError`` names an unknown one."""
    decks = sample_decks()
    if not names:
        return decks
    known = {d.name: d for d in decks}
    out = []
    for name in dict.fromkeys(names):
        if name not in known:
            raise KeyError(f"no sample deck named {name!r}; known decks: {', '.join(known)}")
        out.append(known[name])
    return out


def pairing(decks: Sequence[Deck], n: int) -> tuple[Deck, Deck]:
    """Match ``n`` (from 1) plays the ``n``-th ordered pair of different decks, round and round; one
    deck (named once or more: ``--decks "Red Dragons,Red Dragons"``) plays mirror matches."""
    decks = list({d.name: d for d in decks}.values())
    if len(decks) == 1:
        return decks[0], decks[0]
    pairs = [(a, b) for a in decks for b in decks if a.name != b.name]
    return pairs[(n - 1) % len(pairs)]


def match_header(seed: int, n: int, decks: Sequence[Deck], rng: random.Random, catalog: str) -> dict:
    """The header of match ``n``: id ``sim-<seed>-<n>``, a date, the league round, players and decks."""
    a, b = pairing(decks, n)
    day = (n * 37 + seed) % SPAN_DAYS  # consecutive matches land in different months
    played = START + timedelta(days=day, minutes=(n * 47) % 480)
    p1, p2 = rng.sample(NAMES, 2)
    return {"zxlog": 1, "match": f"sim-{seed}-{n:04d}", "played_at": played.isoformat(), "event": EVENT,
            "round": day // 7 + 1, "format": "standard", "catalog": catalog, "first": rng.choice(["P1", "P2"]),
            "players": {"P1": a.to_header_player(p1), "P2": b.to_header_player(p2)}}


def simulate(matches: int, seed: int, *, decks: Sequence[str] | None = None, policy: str = "greedy",
             max_turns: int = MAX_TURNS, check: bool = False, start: int = 1) -> Iterator[SimMatch]:
    """Play ``matches`` matches numbered from ``start``, one after the other."""
    if policy not in POLICY_CHOICES:
        raise ValueError(f"unknown policy {policy!r}: one of {', '.join(POLICY_CHOICES)}")
    chosen = pick_decks(decks)
    name = sample_catalog_name()
    catalog = load_catalog(name)
    for n in range(start, start + matches):
        rng = random.Random(f"zx-sim:{seed}:{n}")
        header = match_header(seed, n, chosen, rng, name)
        kinds = {pl: policy if policy != "mixed" else rng.choice(("greedy", "random")) for pl in ("P1", "P2")}
        header["note"] = f"simulated: P1 {kinds['P1']}, P2 {kinds['P2']}"
        players = {pl: POLICIES[k](random.Random(f"zx-sim-explore:{header['match']}:{pl}")) for pl, k in kinds.items()}
        yield play_match(header, catalog, players, rng, max_turns=max_turns, check=check)


def write_files(out: str | Path, seed: int, sims: Iterator[SimMatch], per_file: int = 1, before=None) -> Iterator[SimFile]:
    """Write the matches ``per_file`` to a file, ``<out>/sim-<seed>-<k>.zxlog``; yields each file written."""
    return _write_files(out, f"sim-{seed}-{{k:04d}}.zxlog", sims, per_file, before)
