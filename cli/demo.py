"""``zx demo``: the whole product in one command, on a fresh embedded store."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import click

from .output import FORMATS, emit, emit_frame, progress


@click.command("demo")
@click.option("--matches", "-n", type=click.IntRange(min=2), default=200, show_default=True,
              help="How many matches to simulate.")
@click.option("--seed", type=click.IntRange(min=0), default=2026, show_default=True, help="Simulation seed.")
@click.option("--dir", "out", type=click.Path(file_okay=False), default="zx-demo", show_default=True,
              help="Folder for the demo's logs, event store (events.sqlite) and analytics (events.duckdb); "
                   "replaced on every run.")
@click.option("--turn", type=click.IntRange(min=1), default=3, show_default=True,
              help="The turn of the first match to replay.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output as tables, or the summary as JSON or CSV.")
def demo_cmd(matches: int, seed: int, out: str, turn: int, fmt: str) -> None:
    """Simulate matches, import them, update analytics, print a metagame summary and replay a turn.

    Example: zx demo --matches 200

    Every step is the real one: the simulator writes zxlog files, the importer checks every record
    with the rules engine into a fresh SQLite event store, the projection fills DuckDB, the stats
    are the same as `zx stats`, and the replay reads only the event store.
    """
    from analytics.projection import update
    from analytics.stats import Stats
    from zx_events.application import MatchService
    from zx_events.parallel import import_files
    from zx_events import games

    zx_game = games.get("zx")

    t0 = time.perf_counter()
    root = Path(out)
    if root.exists():
        if not (root / "events.sqlite").exists() and any(root.iterdir()):
            raise click.ClickException(f"{root} exists and is not a zx demo folder: choose another --dir")
        shutil.rmtree(root)
    logs_dir = root / "logs"
    logs_dir.mkdir(parents=True)

    with progress(matches, "simulating") as bar:
        task = bar.add_task("simulate", total=matches)

        def counted():
            for sim in zx_game.simulate(matches, seed, policy="mixed"):
                bar.advance(task)
                yield sim

        files = list(zx_game.write_files(logs_dir, seed, counted(), per_file=50))
    t_sim = time.perf_counter()

    svc = MatchService(str(root / "events.sqlite"))
    paths = [str(p) for p in sorted(logs_dir.glob("*.zxlog"))]
    total = sum(Path(p).stat().st_size for p in paths)
    with progress(total, "importing") as bar:  # the same import as `zx import`
        task = bar.add_task("import", total=total)
        outcomes = list(import_files(svc, paths, on_bytes=lambda n: bar.advance(task, n)))
    events = sum(o.events for o in outcomes)
    rejected = [str(o.error) for o in outcomes if o.status == "rejected"]
    if rejected:
        raise click.ClickException("the simulator wrote logs the engine rejects:\n" + "\n".join(rejected[:5]))
    t_import = time.perf_counter()

    result = update(svc, root / "events.duckdb", rebuild=True)
    t_analytics = time.perf_counter()

    with Stats(root / "events.duckdb", min_games=30) as stats:
        decks = stats.winrates(by="deck")
        seats = stats.winrates(by="first")
        attacks = stats.attacks(by="target")
    first = outcomes[0].match_id
    summary = {
        "store": str(root / "events.sqlite"), "analytics": str(root / "events.duckdb"), "matches": len(outcomes),
        "files": len(files), "events": events, "simulate_s": round(t_sim - t0, 2),
        "import_s": round(t_import - t_sim, 2), "analytics_s": round(t_analytics - t_import, 2),
        "total_s": round(time.perf_counter() - t0, 2), "projected_events": getattr(result, "events", None),
    }
    if fmt != "table":
        rows = [{"table": "deck", **r} for r in decks.to_dicts()] + [{"table": "first", **r} for r in seats.to_dicts()]
        if fmt == "json":
            click.echo(json.dumps({"summary": summary, "winrates": rows}, default=str))
        else:
            emit(rows, "csv")
        return
    emit([summary], "table", ["matches", "events", "simulate_s", "import_s", "analytics_s", "total_s", "store"],
         title="zx demo")
    # the same style as zx stats: rates as percentages with their Wilson 95% interval, fitted to the terminal
    emit_frame(decks.select("deck", "games", "win_rate", "win_rate_low", "win_rate_high", "low_sample"), "table",
               title="Win rate by deck (Wilson 95%)")
    emit_frame(seats.select("seat", "games", "win_rate", "win_rate_low", "win_rate_high", "low_sample"), "table",
               title="First-player advantage")
    emit_frame(attacks.head(6).select("target", "name", "attacks", "success_rate", "success_rate_low",
                                      "success_rate_high", "low_sample"), "table", title="Attacks by target (top 6)")
    _replay_turn(svc, first, turn)
    click.echo(f"\nNext: zx --store {root / 'events.sqlite'} replay {first} --step    |    "
               f"zx --store {root / 'events.sqlite'} view {first} --as P1    |    "
               f"zx --store {root / 'events.sqlite'} stats matchups    |    "
               f"zx --store {root / 'events.sqlite'} serve  (then open http://127.0.0.1:8000)", err=True)


def _replay_turn(svc: Any, match_id: str, turn: int) -> None:
    from zx_events.replay import game_of, load_history

    from .replay import draw_step

    hist = load_history(svc, match_id)
    turn = min(turn, len(hist.turns))
    lo = hist.step_of(hist.turn_seq(turn))
    hi = hist.step_of(hist.turn_seq(turn + 1)) if turn < len(hist.turns) else len(hist.bounds)
    click.echo(f"\nReplay of {match_id}, turn {turn}, as a spectator sees it:")
    last = None
    for step in hist.steps(perspective="spectator", start=lo, stop=hi):
        rec = step.record
        click.echo(f"  line {step.line}: {rec.get('by', '')} {rec.get('do', '')} "
                   + json.dumps({k: v for k, v in dict(rec).items() if k not in ('by', 'do')}, default=list))
        last = step
    if last is not None:
        draw_step(last, game_of(hist.state_at(1)))
    sys.stdout.flush()
