"""``zx simulate``: generate complete, legal matches of a game between its sample decks as log files."""

from __future__ import annotations

import time
from pathlib import Path

import click

from .common import GAME, read_files
from .options import format_option
from .output import counted, emit, progress

COLUMNS = ["file", "matches", "records", "events", "turns", "winners"]


def _game(ctx: click.Context, param: click.Parameter, value: str):
    from zx_events import games

    return games.get(value)  # (a key GAME checked: an installed game)


def _deck_names(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
    if value is None:
        return None
    from zx_events import games

    game = ctx.params.get("game") or games.get(games.DEFAULT)
    names = [n.strip() for n in value.split(",") if n.strip()]
    known = game.sample_deck_names()
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise click.BadParameter(f"unknown sample deck {unknown[0] if unknown else repr(value)}; "
                                 f"known decks: {', '.join(known)}")
    return names


@click.command("simulate")
@click.option("--game", type=GAME, default="zx", show_default=True, is_eager=True, callback=_game,
              help="Which game to play (zx games lists them).")
@click.option("--matches", "-n", type=click.IntRange(min=1), required=True, help="How many matches to play.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Random seed: the same seed gives byte-identical files.")
@click.option("--out", "-o", "out", type=click.Path(file_okay=False), required=True,
              help="Directory for the log files (created with the first file if missing, never left behind "
                   "empty by an error; files of the same name are replaced, a link so named too, never what it names; "
                   "never the store or the analytics file).")
@click.option("--decks", callback=_deck_names, default=None, metavar="NAME,NAME,...",
              help="Sample decks to pair (default: all); pairings rotate through every ordered pair of "
                   "different decks; one deck (named once or more) plays mirror matches.")
@click.option("--policy", type=click.Choice(["greedy", "random", "mixed"]), default="greedy", show_default=True,
              help="How players choose among the legal actions; mixed draws greedy or random per player "
                   "(Z/X; X610Z's simulator plays greedy only, and says so).")
@click.option("--per-file", type=click.IntRange(min=1), default=1, show_default=True,
              help="Matches written to each log file (.zxlog, or .x610zlog with --game x610z).")
@click.option("--max-turns", type=click.IntRange(min=2), default=60, show_default=True,
              help="Turn cap. Z/X: the trailing player concedes, or with Life level the log stops without a result; "
                   "X610Z: the match ends in a draw on time (a result with no winner, reason time).")
@format_option
@click.pass_context
def simulate_cmd(ctx: click.Context, game, matches: int, seed: int, out: str, decks: list[str] | None, policy: str,
                 per_file: int, max_turns: int, fmt: str) -> None:
    """Play complete legal matches between sample decks and write them as match logs (zxlog 1, x610zlog 1).

    \b
    Examples:
      zx simulate --matches 100 --seed 7 --out sim/ --policy mixed --per-file 10
      zx simulate --game x610z -n 20 --out sim-x610z/

    Every record is checked by the rules engine as it is played, so every file imports cleanly.
    One row per file: its matches, records, events (as many as zx import stores: the engine's and the
    Sealed event that closes each match), turns and winners.
    """

    if Path(out).exists() and not Path(out).is_dir():
        raise click.ClickException(f"--out {out} is a file, not a directory")
    if policy not in game.simulate_policies:  # (X610Z's simulator plays one greedy policy: it was ignored silently)
        click.echo(f"warning: --policy {policy}: the {game.name} simulator plays only "
                   f"{' and '.join(game.simulate_policies)}; these matches are played so", err=True)
    files = []
    stopped = False
    start = time.perf_counter()
    with progress(matches, "simulating") as bar:
        task = bar.add_task("simulate", total=matches)

        def played():
            for sim in game.simulate(matches, seed, decks=decks, policy=policy, max_turns=max_turns):
                bar.advance(task)
                yield sim

        made = not Path(out).exists()
        from zx_analytics.paths import same_file

        kept = read_files((ctx.obj or {}).get("store"))
        written = 0

        def before(path: Path) -> None:  # never the store or the analytics file, by a link to it either
            for read, what in kept:
                if same_file(path, read):
                    raise click.ClickException(f"--out {out}: {path} is {what}: zx never writes over the store or "
                                               f"the analytics file; give another folder ({counted(written, 'file')} "
                                               f"written before it)")

        def rows():
            nonlocal written
            for f in game.write_files(out, seed, played(), per_file, before):
                written += 1
                yield f.row()

        try:
            files = list(rows())
        except OSError as e:
            raise click.ClickException(f"cannot write to {out}: {e}") from None
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM: it said "Aborted!" alone over the files it had written
            stopped = True  # (said below the bar's last line)
        finally:  # an error (or Ctrl-C) before a file was written leaves no empty directory of ours behind
            if made and not files and Path(out).is_dir() and not any(Path(out).iterdir()):
                Path(out).rmdir()
    if stopped:
        click.echo(_simulate_interrupted(out, written, -(-matches // per_file), min(written * per_file, matches)),
                   err=True)
        raise click.Abort()
    elapsed = time.perf_counter() - start
    emit(files, fmt, COLUMNS)
    rate = matches / elapsed if elapsed > 0 else float("inf")
    click.echo(f"{counted(matches, 'match', 'matches')} in {counted(len(files), 'file')} in {out} "
               f"({rate:.0f} matches/s)", err=True)


def _simulate_interrupted(out: str, written: int, total: int, matches: int) -> str:
    """What an interrupted ``zx simulate`` kept: the log files written before (each whole: written to a temporary
    file, then moved onto its name), none of the rest."""
    import shlex

    from .sigterm import interrupted_word

    if not written:
        return f"{interrupted_word()}: no log file was written in {out} (of {counted(total, 'file')})"
    return (f"{interrupted_word()}: {written:,} of {counted(total, 'log file')} {'was' if written == 1 else 'were'} "
            f"written in {out}, each whole ({counted(matches, 'match', 'matches')}); the rest were not: `zx import "
            f"{shlex.quote(out)}` imports only those, and the same command again writes them all (the same seed: the same files)")
