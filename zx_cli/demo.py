"""``zx demo``: the whole product in one command, on a fresh embedded store."""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import click

from .options import FORMATS
from .sigterm import interrupted_word, opened
from .output import emit, emit_frame, progress, terminal_width


_WIDER = "a wider terminal, or zx stats ... --wide, shows them"  # (zx demo has no --wide of its own)
MARK = ".zx-demo"  # a folder the demo made: its next run may replace what it wrote there
OWN = ("logs", "events.sqlite", "events.sqlite-wal", "events.sqlite-shm", "events.sqlite-journal", "events.duckdb",
       "events.duckdb.wal", MARK)  # what the demo writes, and all it ever deletes
_SIM_LOG = re.compile(r"(?:[a-z0-9]+-)?sim-[0-9]+-[0-9]+\.[a-z0-9]+log")  # sim-2026-0001.zxlog, x610z-sim-...


def _clear(root: Path) -> None:
    """Make ``root`` ready for a demo: what an earlier demo wrote there goes (``OWN``), nothing else.

    A folder is a demo's when it has the demo's mark, or (made before the mark) when it holds only
    what a demo writes, its store included and its logs all simulated ones. Anything else is refused
    before a file is touched: a folder holding someone's own ``events.sqlite`` used to be deleted whole."""
    if root.exists() and not root.is_dir():
        raise click.ClickException(f"{root} is a file, not a folder: choose another --dir")
    if not root.exists() or not any(root.iterdir()):
        return
    names = {p.name for p in root.iterdir()}
    logs = root / "logs"
    logs_simulated = not logs.exists() or (logs.is_dir() and all(f.is_file() and _SIM_LOG.fullmatch(f.name)
                                                                 for f in logs.iterdir()))
    made_before_the_mark = names <= set(OWN) and "events.sqlite" in names and logs.is_dir()  # zx 0.2.0 and before
    if not ((root / MARK).is_file() or made_before_the_mark) or not logs_simulated:
        foreign = sorted(names - set(OWN))
        if logs.is_dir():
            foreign += [f"logs/{f.name}" for f in sorted(logs.iterdir()) if not _SIM_LOG.fullmatch(f.name)]
        held = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "") if foreign else "a store it did not make"
        raise click.ClickException(f"{root} exists and is not a zx demo folder (it holds {held}): choose another "
                                   f"--dir; nothing was changed")
    for name in OWN:
        p = root / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()


@click.command("demo")
@click.option("--matches", "-n", type=click.IntRange(min=2), default=200, show_default=True,
              help="How many matches to simulate of each game.")
@click.option("--seed", type=click.IntRange(min=0), default=2026, show_default=True, help="Simulation seed.")
@click.option("--dir", "out", type=click.Path(file_okay=False), default="zx-demo", show_default=True,
              help="Folder for the demo's logs, event store (events.sqlite) and analytics (events.duckdb); "
                   "what an earlier demo wrote there is replaced, nothing else.")
@click.option("--turn", type=click.IntRange(min=1), default=3, show_default=True,
              help="The turn of each game's first match to replay.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output as tables; as JSON (the summary and the win rates); or as CSV (the win rates: a row a "
                   "deck and a row a seat, of each game).")
@click.pass_context
def demo_cmd(ctx: click.Context, matches: int, seed: int, out: str, turn: int, fmt: str) -> None:
    """Simulate matches of every game, import them, update analytics, print each game's summary and replay a turn.

    \b
    Example:
      zx demo --matches 200

    Every step is the real one: each game's simulator writes its logs (zxlog, x610zlog), the importer
    checks every record with that game's rules engine into one fresh SQLite event store, the
    projection fills DuckDB, the stats are the same as `zx stats --game GAME` (games are never mixed),
    and the replays read only the event store.
    """
    root = ctx.find_root()
    if root.params.get("store") is not None:  # zx --store X demo, or ZX_STORE: the demo makes its own store
        own = Path(out) / "events.sqlite"
        if root.get_parameter_source("store") != click.core.ParameterSource.ENVIRONMENT:
            raise click.UsageError(f"zx demo makes its own store, {own} (--dir): --store is not used; import into "
                                   f"your store with zx --store STORE import DIR")
        click.echo(f"note: ZX_STORE is not used: zx demo makes its own store, {own}", err=True)
    from zx_analytics.projection import update
    from zx_analytics.stats import NotThisGame, Stats
    from zx_events.application import MatchService
    from zx_events.parallel import import_files
    from zx_events import games

    every = games.all_games()
    t0 = time.perf_counter()
    root = Path(out)
    _clear(root)
    logs_dir = root / "logs"
    logs_dir.mkdir(parents=True)
    (root / MARK).write_text("written by zx demo: a demo run here replaces logs/ and events.* (nothing else)\n",
                             encoding="utf-8")

    files: list[Any] = []
    svc = None
    try:  # Ctrl-C, SIGTERM: what the demo left in its folder is said (it said "Aborted!" alone)
        with progress(matches * len(every), "simulating") as bar:
            task = bar.add_task("simulate", total=matches * len(every))

            def counted(game: Any):
                for sim in game.simulate(matches, seed, policy="mixed"):
                    bar.advance(task)
                    yield sim

            for game in every:
                files += list(game.write_files(logs_dir, seed, counted(game), per_file=50))
        t_sim = time.perf_counter()

        svc = opened(MatchService(str(root / "events.sqlite")))
        paths = [str(p) for game in every for p in sorted(logs_dir.glob(f"*{game.log_suffix}"))]
        total = sum(Path(p).stat().st_size for p in paths)
        with progress(total, "importing", in_bytes=True) as bar:  # the same import as `zx import`
            task = bar.add_task("import", total=total)
            outcomes = list(import_files(svc, paths, on_bytes=lambda n: bar.advance(task, n)))
        events = sum(o.events for o in outcomes)
        rejected = [str(o.error) for o in outcomes if o.status == "rejected"]
        if rejected:
            raise click.ClickException("the simulator wrote logs the engine rejects:\n" + "\n".join(rejected[:5]))
        t_import = time.perf_counter()

        result = update(svc, root / "events.duckdb", rebuild=True)
    except BaseException as e:
        from .common import interrupted

        if not interrupted(e):  # (DuckDB's end of a statement Ctrl-C stopped is one too)
            raise
        if svc is not None:
            svc.close()  # (its -wal and -shm files go)
        if svc is None or not svc.matches_written:  # a store of no match (an empty events.sqlite stayed): removed
            for name in OWN:  # (this run's: _clear removed an earlier demo's)
                if name.startswith("events.sqlite"):
                    (root / name).unlink(missing_ok=True)
            svc = None
        click.echo(_demo_interrupted(root, svc), err=True)
        raise click.Abort() from None
    t_analytics = time.perf_counter()

    per_game = {}  # key -> (game, deck win rates, first-player win rates, attacks by target or None)
    with Stats(root / "events.duckdb", min_games=30) as stats:
        for game in every:
            try:
                attacks = stats.attacks(by="target", game=game.key)
            except NotThisGame:  # a game whose attacks live in its own tables (zx sql)
                attacks = None
            per_game[game.key] = (game, stats.winrates(by="deck", game=game.key),
                                  stats.winrates(by="first", game=game.key), attacks)
    firsts = {}  # game key -> its first match
    for o, game in zip(outcomes, _games_of(paths, every)):
        firsts.setdefault(game.key, o.match_id)
    summary = {
        "store": str(root / "events.sqlite"), "analytics": str(root / "events.duckdb"), "matches": len(outcomes),
        "games": ",".join(g.key for g in every), "files": len(files), "events": events,
        "simulate_s": round(t_sim - t0, 2), "import_s": round(t_import - t_sim, 2),
        "analytics_s": round(t_analytics - t_import, 2), "total_s": round(time.perf_counter() - t0, 2),
        "projected_events": getattr(result, "events", None),
    }
    if fmt != "table":
        rows = [{"game": key, "table": table, **r} for key, (_, decks, seats, _) in per_game.items()
                for table, df in (("deck", decks), ("first", seats)) for r in df.to_dicts()]
        if fmt == "json":
            click.echo(json.dumps({"summary": summary, "winrates": rows}, default=str))
        else:  # every column of every row: a deck row has no seat, a seat row no deck
            emit(rows, "csv", list(dict.fromkeys(k for r in rows for k in r)))
        return
    emit([summary], "table", ["matches", "games", "events", "simulate_s", "import_s", "analytics_s", "total_s",
                              "store"], title="zx demo")
    # the same style as zx stats: rates as percentages with their Wilson 95% interval, fitted to the terminal
    for key, (game, decks, seats, attacks) in per_game.items():
        n = sum(1 for g in _games_of(paths, every) if g is game)
        click.echo("\n" + _fitted(f"== {game.name} ({key}): {n:,} match{'es' if n != 1 else ''}, "
                                  f"zx stats ... --game {key}", "   "))
        emit_frame(decks.select("deck", "games", "win_rate", "win_rate_low", "win_rate_high", "low_sample"), "table",
                   title="Win rate by deck (Wilson 95%)", hint=_WIDER)
        emit_frame(seats.select("seat", "games", "win_rate", "win_rate_low", "win_rate_high", "low_sample"), "table",
                   title="First-player advantage", hint=_WIDER)
        if attacks is not None:
            emit_frame(attacks.head(6).select("target", "name", "attacks", "success_rate", "success_rate_low",
                                              "success_rate_high", "low_sample"), "table",
                       title="Attacks by target (top 6)", hint=_WIDER)
    for key, match_id in firsts.items():
        _replay_turn(svc, match_id, turn)
    store = root / "events.sqlite"
    first = next(iter(firsts.values()))
    steps = [f"zx --store {store} replay {first} --step", f"zx --store {store} view {first} --as P1",
             f"zx --store {store} stats matchups --game {next(iter(firsts))}",
             f"zx --store {store} serve  (then open http://127.0.0.1:8000)"]
    line, width = "Next: " + "    |    ".join(steps), terminal_width()
    # a terminal too narrow for the line: one command a line (a command is never cut: it is copied)
    click.echo("\n" + (line if width is None or len(line) <= width else "\n  ".join(["Next:", *steps])), err=True)


def _demo_interrupted(root: Path, svc: Any) -> str:
    """What an interrupted ``zx demo`` left in its folder: the log files written (each whole), the matches
    imported, whether the analytics file was made; a demo run again replaces them."""
    logs = root / "logs"
    written = sum(1 for f in logs.iterdir() if _SIM_LOG.fullmatch(f.name)) if logs.is_dir() else 0
    left = [f"{written:,} simulated log file{'s' if written != 1 else ''} in {logs}"]
    if svc is not None:
        n = svc.matches_written
        left.append(f"{n:,} match{'es' if n != 1 else ''} imported into {root / 'events.sqlite'}")
    if (root / "events.duckdb").exists():
        left.append(f"the analytics file {root / 'events.duckdb'}, not brought up to date")
    return (f"{interrupted_word()}: the demo was not finished: {root} holds {', '.join(left)}; `zx demo` again "
            f"replaces them (nothing else there is touched)")


def _fitted(text: str, indent: str = "") -> str:
    """``text`` wrapped at the terminal's width (``COLUMNS``, or the terminal's own), ``indent`` before
    each line it continues on; as it is to a pipe or a file (one record, one line)."""
    width = terminal_width()
    if width is None or len(text) <= width:
        return text
    import textwrap

    return "\n".join(textwrap.wrap(text, max(width, len(indent) + 20), subsequent_indent=indent,
                                    break_on_hyphens=False)) or text


def _games_of(paths: list[str], every: list[Any]) -> list[Any]:
    """The game of each imported match, in import order (one match per log file line of matches)."""
    out = []
    for p in paths:
        game = next(g for g in every if p.endswith(g.log_suffix))
        with open(p, encoding="utf-8") as f:
            out += [game] * sum(1 for line in f if f'"{game.header_key}"' in line)
    return out


def _replay_turn(svc: Any, match_id: str, turn: int) -> None:
    from zx_events.replay import game_of, load_history

    from .replay import draw_step

    hist = load_history(svc, match_id)
    turn = min(turn, len(hist.turns))
    lo = hist.step_of(hist.turn_seq(turn))
    hi = hist.step_of(hist.turn_seq(turn + 1)) if turn < len(hist.turns) else len(hist.bounds)
    click.echo("\n" + _fitted(f"Replay of {match_id} ({game_of(hist.state_at(1)).name}), turn {turn}, as a "
                              f"spectator sees it:", "  "))
    last = None
    for step in hist.steps(perspective="spectator", start=lo, stop=hi):
        rec = step.record
        click.echo(_fitted(f"  line {step.line}: {rec.get('by', '')} {rec.get('do', '')} "
                           + json.dumps({k: v for k, v in dict(rec).items() if k not in ('by', 'do')}, default=list),
                           "      "))
        last = step
    if last is not None:
        draw_step(last, game_of(hist.state_at(1)))
    sys.stdout.flush()
