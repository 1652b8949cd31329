"""Match simulator: complete, legal matches between sample decks, written as zxlog v1."""

from zx_events.games.zx.sim.batch import POLICY_CHOICES, SimFile, match_header, simulate, write_files
from zx_events.games.zx.sim.play import MAX_TURNS, SimMatch, play_match

__all__ = ["MAX_TURNS", "POLICY_CHOICES", "SimFile", "SimMatch", "match_header", "play_match", "simulate",
           "write_files"]
