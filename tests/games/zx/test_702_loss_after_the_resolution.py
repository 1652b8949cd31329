"""Loss (the digest's rule effects, 701-702: "a player with 0 Life loses; both at once is a draw", checked before any
player gets priority). The steps of one resolution (an Event's `effect` records, by its player with its source) come
between no rule effects: the loss waits for the resolution's end (the next record that is not one of its steps, or
the log's end), so an Event taking both players' last Life is a draw, in whichever order its steps are written
(digest.13). It gave the win to the player of the step written first, 501.3 for the next step, and a right `result`
of a draw was 101.2. A loss whose last Life card went by an effect or a Reload ("not damage", the digest) says so,
not "by damage". QA round 37: `loss-both-0-one-event-draw`, `loss-both-0-swapped`, `loss-reload-takes-last-life`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

from zx_events.games.zx.narrate import sentence
from zx_events.narration import Words

from .boundary_logs import ATTACK_P1, P, checked, events_of, findings, imported_store, vb_turn2

P1L = ["R01-010", "R01-012", "R01-005", "R01-006"]
P2L = ["U01-011", "U01-013", "U01-005", "U01-006"]
EVENT = P("P2", "play", card="U01-014", pay=[])  # (line 13)
SEATS = ("judge", "P1", "P2", "spectator")
RELOAD_LOG = Path(__file__).resolve().parents[2] / "data" / "zx-loss-reload-takes-last-life.zxlog"


def lose(pl: str, cards: list[str], source: str = "U01-014") -> list[dict]:
    return [P("P2", "effect", source=source, op="move", card=c, from_="life", to="trash", owner=pl) for c in cards]


def both_at_0(*result: dict) -> list[dict]:
    """Lines 14-21: the Event's steps, three of P1's Life cards, three of P2's, P1's last, P2's last."""
    return vb_turn2() + [EVENT] + lose("P1", P1L[:3]) + lose("P2", P2L[:3]) + lose("P1", P1L[3:]) + \
        lose("P2", P2L[3:]) + list(result)


DRAW = P("P2", "result", winner=None, reason="both at 0 Life")
LOGS = {
    "draw": both_at_0(DRAW),
    "swapped": (lambda r: r[:-2] + [r[-1], r[-2]])(both_at_0()),
    "p1-only": vb_turn2() + [EVENT] + lose("P1", P1L) + [P("P2", "result", winner="P2", reason="life")],
    "p1-only-no-reason": vb_turn2() + [EVENT] + lose("P1", P1L) + [P("P2", "result", winner="P2")],
}


@pytest.mark.parametrize("name", ["draw", "swapped"])
def test_702_an_event_taking_both_players_last_life_is_a_draw(name):
    c = checked(LOGS[name])
    assert findings(c) == []
    (ended,) = events_of(c, "MatchEnded")
    assert (ended.winner, ended.reason, ended.line) == (None, "draw", 21)  # at its last step
    assert c.match.outcome == {"winner": None, "reason": "draw", "how": "effect"}


def test_702_the_loss_is_checked_at_the_log_end_in_a_resolution_and_a_wrong_result_is_101_2():
    c = checked(both_at_0())
    assert findings(c) == [] and c.match.outcome == {"winner": None, "reason": "draw", "how": "effect"}
    c = checked(both_at_0(P("P2", "result", winner="P2", reason="life")))
    assert findings(c) == [("101.2", 22, "P2")]
    assert c.violations[0].message == ("result says P2 won, the engine's outcome is a draw, both players at 0 Life at "
                                       "once")


def test_702_a_step_of_another_source_comes_after_the_loss():
    """One card's resolution only: an effect record of another source is a new one, after the rule effects."""
    recs = vb_turn2() + [EVENT] + lose("P1", P1L) + lose("P2", P2L[:1], source="b3")
    c = checked(recs)
    assert findings(c) == [("501.3", 18, "P2")]
    assert c.violations[0].message == "effect record after the game has ended (P2 won by life)"
    (ended,) = events_of(c, "MatchEnded")
    assert (ended.winner, ended.line, ended.how) == ("P2", 17, "effect")


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("r37loss")
    return imported_store(folder, {name: LOGS[name] for name in ("draw", "p1-only", "p1-only-no-reason")}, "r37-loss",
                          (str(RELOAD_LOG),))


def ended(store: str, match: str, seat: str) -> tuple[str, str]:
    r = CliRunner().invoke(zx, ["--store", store, "replay", match, "--as", seat, "--to", "end", "--format", "json"])
    assert r.exit_code == 0, r.output
    frames = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    (said,) = [e["text"] for f in frames for e in f["events"] if e["kind"] == "MatchEnded"]
    board = CliRunner().invoke(zx, ["--store", store, "replay", match, "--as", seat, "--to", "end"]).stdout
    return said, board


@pytest.mark.parametrize("seat", SEATS)
def test_702_the_end_says_how_the_last_life_card_went(store, seat):
    said, board = ended(store, "r37-loss-draw", seat)
    assert "Match over: a draw by both players at 0 Life at once" in board and "None won" not in board
    assert said == ("The match ends: a draw by both players at 0 Life at once (an effect took both players' last Life "
                    "cards)")  # (digest.14: it said nothing of the effect)
    said, board = ended(store, "r37-loss-p1-only", seat)
    assert said == ("The match ends: P2 won: P1 has no Life left (an effect took their last Life card; a player with 0 "
                    "Life loses)")
    said, board = ended(store, "r37-reload-last-life", seat)
    assert said == ("The match ends: P2 won: P1 has no Life left (a Reload put their last Life card into the Charge; a "
                    "player with 0 Life loses)")
    assert "damage" not in said
    assert "Match over: P2 won: P1 has no Life left (a Reload put their last Life card into the Charge)" in board


def test_702_a_loss_by_damage_is_at_once_and_says_damage():
    recs = vb_turn2() + [EVENT] + lose("P1", P1L[:3]) + ATTACK_P1 + [P("P1", "life", card="R01-006"),
                                                                      P("P2", "result", winner="P2", reason="life")]
    c = checked(recs)
    assert findings(c) == []
    (end,) = events_of(c, "MatchEnded")
    assert (end.winner, end.reason, end.line, end.how) == ("P2", "life", 21, None)
    assert sentence("MatchEnded", {"winner": end.winner, "reason": end.reason, "how": end.how}, Words()) == \
        "The match ends: P2 won by damage with no Life left (a player with 0 Life loses)"


@pytest.mark.parametrize("name", ["p1-only", "p1-only-no-reason"])
@pytest.mark.parametrize("seat", SEATS)
def test_702_the_logs_result_after_such_a_loss_says_how_too(store, seat, name):
    """The log's `result` record of that loss ("life"): its sentence said "P2 won by damage with no Life left" after
    the match's end said an effect took it (QA round 37: `L-p1-0-result`); one giving no reason said "P2 won" alone."""
    r = CliRunner().invoke(zx, ["--store", store, "replay", f"r37-loss-{name}", "--as", seat, "--to", "end",
                                "--format", "json"])
    assert r.exit_code == 0, r.output
    frames = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    (said,) = [e["text"] for f in frames for e in f["events"] if e["kind"] == "ResultRecorded"]
    assert said == ("The log records the result: P2 won: P1 has no Life left (an effect took their last Life card; a "
                    "player with 0 Life loses)")


def test_702_the_logs_result_of_a_loss_by_damage_says_damage():
    assert sentence("ResultRecorded", {"winner": "P2", "reason": "life"}, Words()) == \
        "The log records the result: P2 won by damage with no Life left (a player with 0 Life loses)"


def test_702_the_match_list_carries_how_where_the_match_end_has_it(store):
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = {row["match"]: row for row in json.loads(r.stdout)}
    assert rows["r37-loss-p1-only"]["how"] == "effect" and rows["r37-reload-last-life"]["how"] == "reload"
    assert rows["r37-loss-draw"]["how"] == "effect"  # (a draw by an Event's steps, digest.14)


def test_702_the_match_page_says_a_draw_by_an_effect():
    from zx_events import games

    game = games.get("zx")
    assert game.reason_text("draw", how="effect") == \
        "both players at 0 Life at once (an effect took both players' last Life cards)"
    assert game.reason_text("draw") == "both players at 0 Life at once"
