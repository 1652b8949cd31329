"""``zx replay --to end`` keeps the lines of a board's parts while they do not change (``zx_events.drawing.Kept``):
what it prints must be what drawing every step afresh prints, at any width and from any seat, for both games."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_cli.replay import draw_step
from zx_events import replay
from zx_events.application import MatchService
from zx_events.drawing import Kept


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """One simulated match of each game (75 and a few hundred steps) in a SQLite store."""
    d = tmp_path_factory.mktemp("kept")
    store = str(d / "s.sqlite")
    for game in ("zx", "x610z"):
        r = CliRunner().invoke(zx, ["simulate", "--game", game, "-n", "1", "--seed", "5", "--out", str(d / game)])
        assert r.exit_code == 0, r.output
        logs = [str(p) for p in (d / game).iterdir()]
        r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", *logs])
        assert r.exit_code == 0, r.output
    svc = MatchService(store)
    try:
        histories = {}
        for row in svc.summaries():
            h = replay.load_history(svc, row["match"])
            histories[replay.game_of(h.state_at(1)).key] = h
    finally:
        svc.close()
    assert set(histories) == {"zx", "x610z"}
    return histories


def _drawn(capsys, hist, perspective: str, fresh: bool) -> str:
    game = replay.game_of(hist.state_at(1))
    Kept._lines.clear()
    capsys.readouterr()
    for step in hist.steps(perspective):
        if fresh:
            Kept._lines.clear()
        draw_step(step, game, set())
    return capsys.readouterr().out


@pytest.mark.parametrize("game", ["zx", "x610z"])
@pytest.mark.parametrize("perspective,columns", [("judge", "120"), ("P1", "80"), ("spectator", "200")])
def test_replay_to_end_draws_what_every_step_drawn_afresh_draws(stored, capsys, monkeypatch, game, perspective,
                                                                columns):
    monkeypatch.setenv("COLUMNS", columns)
    hist = stored[game]
    kept = _drawn(capsys, hist, perspective, fresh=False)
    parts = len(Kept._lines)
    afresh = _drawn(capsys, hist, perspective, fresh=True)
    assert kept == afresh
    assert kept.count(" · step ") == len(hist.bounds) > 50
    assert parts < kept.count("\n")  # lines were kept and drawn again (a step changes one part or none)


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_a_part_kept_at_one_width_is_not_drawn_at_another(stored, capsys, monkeypatch, game):
    hist = stored[game]
    (step,) = hist.steps("judge", 40, 41)
    drawn = replay.game_of(hist.state_at(1))

    def draw(columns: str, fresh: bool) -> str:
        monkeypatch.setenv("COLUMNS", columns)
        if fresh:
            Kept._lines.clear()
        capsys.readouterr()
        draw_step(step, drawn, set())
        return capsys.readouterr().out

    afresh = {columns: draw(columns, fresh=True) for columns in ("200", "80")}
    assert afresh["200"] != afresh["80"]
    Kept._lines.clear()
    for columns in ("200", "80", "200", "80"):  # the second 200 and 80 from what the first two kept
        assert draw(columns, fresh=False) == afresh[columns]


def _lines(renderable, width: int) -> list[str]:
    from rich.console import Console

    console = Console(width=width, soft_wrap=False, highlight=False, color_system=None)
    with console.capture() as cap:
        console.print(renderable)
    return cap.get().rstrip("\n").split("\n")


@pytest.mark.parametrize("width", [60, 80, 200])
def test_a_zone_line_wraps_under_its_first_value(width):
    from rich.cells import cell_len
    from rich.text import Text

    from zx_events.drawing import hanging

    cards = ", ".join(f"K01-{i:03d} Graveyard Wisp 墓場" for i in range(30))
    line = Text(f"  Deck: {cards}", style="dim")
    lines = _lines(hanging(line), width)
    assert lines[0].startswith("  Deck: K01-000 ")
    assert len(lines) > 1 and all(x.startswith(" " * 8) and x[8] != " " for x in lines[1:])
    assert all(cell_len(x) <= width for x in lines)
    assert " ".join(x.strip() for x in lines) == f"Deck: {cards}"  # every card, in order, none cut


def test_a_line_that_fits_or_has_no_zone_label_is_drawn_as_it_is():
    from rich.text import Text

    from zx_events.drawing import hanging

    short = Text("  Hand: K01-014 Dark Omen")
    assert hanging(short) is not short and _lines(hanging(short), 80) == ["  Hand: K01-014 Dark Omen"]
    header = Text("Life 4 · Deck 38 · Hand 3 · " * 6)
    assert hanging(header) is header  # not a zone's line
    narrow = _lines(hanging(Text("  Deck (judge, sorted): " + "A1-010 Mystic Crystal, " * 8)), 40)
    assert len(narrow) > 1 and not narrow[1].startswith(" ")  # the label takes over half the width: wrapped plain
