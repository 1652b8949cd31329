"""The X610Z simulator: legal matches between the sample decks, deterministic by seed."""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zx_events.games.x610z.sim import simulate, write_files

from x610z_support import play


def test_x610z_simulate_is_deterministic_by_seed(tmp_path):
    a = [s.lines() for s in simulate(5, 3)]
    b = [s.lines() for s in simulate(5, 3)]
    c = [s.lines() for s in simulate(5, 4)]
    assert a == b and a != c
    files = list(write_files(tmp_path, 3, simulate(5, 3), per_file=2))
    assert [f.row()["matches"] for f in files] == [2, 2, 1]
    assert all(p.name.endswith(".x610zlog") for p in tmp_path.iterdir())


@settings(max_examples=int(os.environ.get("X610Z_SIM_EXAMPLES", "25")), deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**6), n=st.integers(min_value=0, max_value=10**4))
def test_x610z_every_simulated_match_imports_strictly(seed, n):
    sim = next(simulate(1, seed, start=n))
    (m, ref), = play("\n".join(sim.lines()) + "\n", source=sim.match_id)
    assert ref.found == [] and m.outcome == {"winner": sim.winner, "reason": sim.reason}
    assert len(m.pending_events) == sim.events


@pytest.mark.parametrize("decks", [["Prism Keep", "Grey Tide"], ["Mystic Rush"], ["Mystic Rush", "Mystic Rush"]])
def test_x610z_simulate_pairs_the_chosen_decks(decks):
    for s in simulate(3, 1, decks=decks):
        assert {p["deck_name"] for p in s.header["players"].values()} <= set(decks)
