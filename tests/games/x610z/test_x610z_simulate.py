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


def test_x610z_simulated_match_ids_count_from_1_as_their_files_and_zx(tmp_path):
    """``x610z-sim-7-0001.x610zlog`` held match ``x610z-sim-7-000000`` (6 digits from 0) while Z/X's
    ``sim-5-0001.zxlog`` holds ``sim-5-0001``: X610Z's ids count from 1 in 4 digits too, more past
    9999, and a match's content stays what its seed and index made it (only the id changed)."""
    import json

    from zx_events.games.zx.sim import simulate as zx_simulate

    from pathlib import Path

    for k, f in enumerate(write_files(tmp_path, 7, simulate(3, 7), per_file=1), start=1):
        path = Path(f.path)
        header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert path.name == f"x610z-sim-7-{k:04d}.x610zlog" and header["match"] == f"x610z-sim-7-{k:04d}"
    assert next(zx_simulate(1, 5)).header["match"] == "sim-5-0001"
    assert next(simulate(1, 7, start=9999)).match_id == "x610z-sim-7-10000"
    later = next(simulate(1, 7, start=263))
    assert later.match_id == "x610z-sim-7-0264" and later.header["round"] == 264


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


def test_x610z_simulate_says_its_simulator_plays_greedy_only(tmp_path):
    """``zx simulate --game x610z --policy random|mixed`` wrote the same files as greedy, in silence (X610Z's
    simulator has one policy): it says so on stderr; greedy, the default, and Z/X's policies say nothing."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    r = CliRunner().invoke(zx, ["simulate", "--game", "x610z", "-n", "1", "--policy", "mixed",
                                "--out", str(tmp_path / "m")])
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == ("warning: --policy mixed: the X610Z simulator plays only greedy; these "
                                        "matches are played so")
    for args in (["--game", "x610z"], ["--game", "x610z", "--policy", "greedy"], ["--game", "zx", "--policy", "random"]):
        r = CliRunner().invoke(zx, ["simulate", *args, "-n", "1", "--out", str(tmp_path / "g")])
        assert r.exit_code == 0 and "warning" not in r.stderr, r.output
