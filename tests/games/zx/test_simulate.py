"""The match simulator: deterministic, every log it writes imports under strict rules, rules get exercised."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zx_cli.main import zx
from zx_events.application import MatchService
from zx_events.importer import build_match
from zx_events.logformat.reader import parse_log, read_log
from zx_events.games.zx.sim import simulate, write_files
from zx_events.games.zx.sim.coverage import features

ROOT = Path(__file__).resolve().parents[3]


def logs_of(sim):
    (log,) = parse_log("\n".join(sim.lines()) + "\n", f"{sim.match_id}.zxlog")
    return log


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


# ---------------------------------------------------------------- determinism
def test_same_seed_gives_identical_bytes(tmp_path):
    for name in ("a", "b"):
        list(write_files(tmp_path / name, 5, simulate(7, 5, policy="mixed"), per_file=3))
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert list(a) == ["sim-5-0001.zxlog", "sim-5-0002.zxlog", "sim-5-0003.zxlog"]
    assert a == b
    list(write_files(tmp_path / "c", 6, simulate(7, 6, policy="mixed"), per_file=3))
    assert list(files(tmp_path / "c").values()) != list(a.values())


def test_same_seed_same_bytes_across_processes_and_hash_seeds(tmp_path):
    """No dependence on hash randomisation or set order: two interpreters, two PYTHONHASHSEEDs."""
    for hs in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hs}
        subprocess.run([sys.executable, "-c", "from zx_cli.main import main; main()", "simulate", "-n", "3", "--seed", "11", "--policy",
                        "mixed", "--out", str(tmp_path / hs), "--format", "csv"], cwd=ROOT, env=env, check=True,
                       capture_output=True)
    assert files(tmp_path / "1") == files(tmp_path / "2")
    assert len(files(tmp_path / "1")) == 3


def test_match_n_is_the_same_whatever_the_batch():
    alone = list(simulate(1, 8, start=4))[0]
    in_batch = list(simulate(5, 8))[3]
    assert alone.lines() == in_batch.lines()


# ---------------------------------------------------------------- every log imports cleanly
# one store per policy: the same (seed, n) under another policy is another match with the same id
_SERVICES = {p: MatchService("memory:") for p in ("greedy", "random", "mixed")}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=10**6), n=st.integers(min_value=1, max_value=500),
       policy=st.sampled_from(["greedy", "random", "mixed"]))
def test_every_simulated_log_imports_cleanly(seed, n, policy):
    (sim,) = simulate(1, seed, policy=policy, start=n, check=True)
    svc = _SERVICES[policy]
    out = svc.import_log(logs_of(sim))  # strict rules: the first violation rejects the match
    # a seed drawn twice gives the same bytes: unchanged, never a conflict
    assert out.status in ("imported", "unchanged"), out.error
    assert out.violations == []
    stored = svc.get_match(sim.match_id)
    assert (stored.outcome or {}).get("winner") == sim.winner
    assert (stored.outcome or {}).get("reason") == sim.reason
    assert stored.turn == sim.turns
    if sim.reason in ("life", "draw"):  # the engine's own outcome, and the log's result agrees (101.2)
        assert sim.records[-1] == {"do": "result", "by": sim.winner or sim.header["first"],
                                   "winner": sim.winner, "reason": sim.reason}


def test_turn_cap_the_trailing_player_concedes_or_the_log_stops():
    sims = list(simulate(12, 4, policy="random", max_turns=4, check=True))
    reasons = Counter(s.reason for s in sims)
    assert reasons[None] and reasons["concede"]
    for s in sims:
        m = build_match(logs_of(s)).match  # strict
        assert s.turns <= 4
        lives = {pl: len(m.p[pl]["life"]) for pl in ("P1", "P2")}
        if s.reason is None:  # Life level at the cap: the log stops after the End Phase, no result
            assert s.turns == 4 and s.records[-1]["do"] == "end" and lives["P1"] == lives["P2"]
        elif s.reason == "concede" and s.records[-3]["do"] == "end" and s.turns == 4:  # at the cap
            loser = "P1" if s.winner == "P2" else "P2"
            assert s.records[-2] == {"do": "concede", "by": loser}
            assert lives[loser] < lives[s.winner]


# ---------------------------------------------------------------- the rules it exercises
REQUIRED = ("battle_on_zx", "battle_on_player", "range_attack", "ignition_play", "charge_excess", "reload",
            "life_recovery", "void_bringer", "life_ignite", "mulligan", "dynamis_play", "event_in_battle",
            "win_by_life", "concession")


# issue 15: every Overboost, Shift, Link, startup-ability and Ignition path the lister lists
PATHS = ("overboost", "shift", "link", "startup", "startup_in_battle", "ignition_no_play", "ignition_play_zx",
         "ignition_play_event", "life_ignite_zx", "life_ignite_event")
RECORD_KINDS = ("setup", "turn", "draw", "reload", "resource", "ignition", "play", "attack", "pass", "life",
                "charge_excess", "effect", "end", "concede", "result")


def test_features_appear_over_200_matches():
    """A seeded corpus holds every record kind and every rules path the simulator can write."""
    total: Counter = Counter()
    kinds: Counter = Counter()
    for sim in simulate(200, 1, policy="mixed"):
        checked = build_match(logs_of(sim))  # counted from the engine's events, not from the log
        total += features(checked.match.pending_events)
        kinds.update(r["do"] for r in sim.records)
        if all(total[f] for f in (*REQUIRED, *PATHS)) and sorted(kinds) == sorted(RECORD_KINDS):
            break  # every one seen (by the 38th match): the rest of the 200 cannot change the verdict
    missing = [f for f in (*REQUIRED, *PATHS) if total[f] < 1]
    assert not missing, f"never happened in 200 matches: {missing}; counts {dict(total)}"
    assert sorted(kinds) == sorted(RECORD_KINDS), kinds
    schema = json.loads((ROOT / "zx_events" / "games" / "zx" / "match-log.schema.json").read_text())
    assert sorted(RECORD_KINDS) == sorted(schema["$defs"]["action"]["properties"]["do"]["enum"])


# ---------------------------------------------------------------- headers and decks
def test_headers_ids_dates_rounds_and_rotating_pairings():
    sims = list(simulate(20, 3))
    assert [s.match_id for s in sims[:2]] == ["sim-3-0001", "sim-3-0002"]
    months = {s.header["played_at"][:7] for s in sims}
    assert len(months) >= 4  # analytics partitions by month
    assert {s.header["event"] for s in sims} == {"Sim League"}
    assert all(isinstance(s.header["round"], int) and s.header["round"] >= 1 for s in sims)
    pairs = [(s.header["players"]["P1"]["deck_name"], s.header["players"]["P2"]["deck_name"]) for s in sims]
    assert len(set(pairs)) == 20 and all(a != b for a, b in pairs)  # 5 decks: 20 ordered pairs
    assert {s.header["first"] for s in sims} == {"P1", "P2"}


def test_decks_option_picks_among_the_sample_decks():
    sims = list(simulate(4, 2, decks=["Red Dragons", "Green Beasts"]))
    names = {s.header["players"][p]["deck_name"] for s in sims for p in ("P1", "P2")}
    assert names == {"Red Dragons", "Green Beasts"}
    with pytest.raises(KeyError, match="known decks: Red Dragons"):
        list(simulate(1, 2, decks=["Nope"]))
    with pytest.raises(ValueError, match="unknown policy"):
        list(simulate(1, 2, policy="smart"))


# ---------------------------------------------------------------- the command
def test_cli_writes_files_and_prints_a_table_json_and_csv(tmp_path):
    runner = CliRunner()
    res = runner.invoke(zx, ["simulate", "--matches", "4", "--seed", "9", "--out", str(tmp_path / "o"),
                             "--per-file", "3", "--policy", "mixed", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["matches"] for r in rows] == [3, 1]
    assert [Path(r["file"]).name for r in rows] == ["sim-9-0001.zxlog", "sim-9-0002.zxlog"]
    for r in rows:
        logs = read_log(r["file"])
        assert len(logs) == r["matches"]
        assert r["records"] == sum(len(log.records) for log in logs)
        assert len(r["winners"]) == r["matches"]
    assert "4 matches in 2 files" in res.stderr
    res = runner.invoke(zx, ["simulate", "-n", "2", "--seed", "9", "--out", str(tmp_path / "t")])
    assert res.exit_code == 0 and "sim-9-0001.zxlog" in res.stdout and "winners" in res.stdout
    res = runner.invoke(zx, ["simulate", "-n", "2", "--seed", "9", "--out", str(tmp_path / "c"), "--format", "csv"])
    assert res.stdout.splitlines()[0] == "file,matches,records,events,turns,winners"
    imported = runner.invoke(zx, ["--store", "memory:", "import", *[r["file"] for r in rows]],
                             env={"ZX_ANALYTICS": str(tmp_path / "analytics.duckdb")})  # not in the cwd
    assert imported.exit_code == 0, imported.output
    assert "4 imported, 0 unchanged, 0 rejected" in imported.stderr


def test_cli_bad_input():
    runner = CliRunner()
    res = runner.invoke(zx, ["simulate", "-n", "1", "--out", "x", "--decks", "Red Dragons,Nope"])
    assert res.exit_code == 2
    assert "unknown sample deck Nope; known decks: Red Dragons, Blue Control" in res.output
    res = runner.invoke(zx, ["simulate", "-n", "0", "--out", "x"])
    assert res.exit_code == 2


def test_cli_out_is_a_file(tmp_path):
    f = tmp_path / "f"
    f.write_text("")
    res = CliRunner().invoke(zx, ["simulate", "-n", "1", "--out", str(f)])
    assert res.exit_code != 0
    assert "is a file, not a directory" in res.output or "is a file" in res.output


def test_a_deck_named_twice_plays_mirrors_as_named_once(tmp_path):
    """--decks "Red Dragons,Red Dragons" divided by zero in pairing (no pair of different decks) and
    left its empty --out directory behind; a deck named twice is named once."""
    once = [s.lines() for s in simulate(3, 5, decks=["Red Dragons"])]
    assert [s.lines() for s in simulate(3, 5, decks=["Red Dragons", "Red Dragons"])] == once
    two = [s.lines() for s in simulate(4, 5, decks=["Red Dragons", "Blue Control"])]
    assert [s.lines() for s in simulate(4, 5, decks=["Red Dragons", "Blue Control", "Red Dragons"])] == two
    res = CliRunner().invoke(zx, ["simulate", "-n", "2", "--seed", "5", "--out", str(tmp_path / "o"),
                                  "--decks", "Red Dragons,Red Dragons", "--format", "json"])
    assert res.exit_code == 0, res.output
    for r in json.loads(res.stdout):
        (log,) = read_log(r["file"])
        assert {p["deck_name"] for p in log.header["players"].values()} == {"Red Dragons"}


def test_an_error_before_the_first_file_leaves_no_directory(tmp_path):
    def failing():
        raise RuntimeError("no match")
        yield  # a generator

    with pytest.raises(RuntimeError):
        list(write_files(tmp_path / "lib", 1, failing()))
    assert not (tmp_path / "lib").exists()
    # the first file cannot be written (its name, with a 300-digit seed, is too long): an error, no directory
    res = CliRunner().invoke(zx, ["simulate", "-n", "1", "--seed", "9" * 300, "--out", str(tmp_path / "o")])
    assert res.exit_code == 1 and "cannot write to" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_the_events_simulate_reports_are_the_events_import_stores(tmp_path, game):
    """zx simulate said one event fewer a match than zx import stores and every replay surface counts (the
    Sealed event the import appends): 231 against 232."""
    out = tmp_path / "sim"
    r = CliRunner().invoke(zx, ["simulate", "--game", game, "--matches", "3", "--seed", "16", "--out", str(out),
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    said = sum(row["events"] for row in json.loads(r.stdout))
    imported = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(out),
                                       "--format", "json"])
    assert imported.exit_code == 0, imported.output
    assert said == sum(row["events"] for row in json.loads(imported.stdout))
