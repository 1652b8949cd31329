"""A field the record's card does not take is a format error at its line, in both games.

The spec of each record says which fields a card takes (docs/match-log.md, play: ``square`` is where a
Z/X goes, ``on`` the Square a Shift goes on, an IG card played free is ``{"square": ...}`` for a Z/X and
``{}`` for an Event; docs/match-log-x610z.md, Records: ``dot`` is a summon's, ``on`` names the card a
target code is fixed on, ``choice`` which of an Effect Card's two effects, 207.1). Bullseye (an X610Z Effect)
cast with ``"dot": "Z9"`` (no dot of the board) or ``"on": "Q7"``, a summon cast with a ``choice``, and Data
Surge (a Z/X Event)
played onto ``b3``, imported with no violation and audited clean, the stray value stored as written. A
malformed record, as an unknown key: refused whatever its value (docs/match-log.md, How errors are
reported), so the referee and the rules versions are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
X610Z_LOG = ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog"  # line 8: Bullseye cast on S2
ZX_LOG = ROOT / "examples" / "legal" / "rules-fidelity.zxlog"  # line 24: Data Surge played
IG_LOG = ROOT / "examples" / "legal" / "long-game-reload-win-by-life.zxlog"  # line 25: an Event's IG, "play": {}
ACTIVATE_LOG = ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog"  # line 163: an activate
LIFE_LOG = ROOT / "examples" / "legal" / "life-recovery-ignition-concession.zxlog"  # line 24: "ignite": {}


def mutated(tmp_path: Path, src: Path, line: int, change) -> Path:
    lines = src.read_text(encoding="utf-8").split("\n")
    rec = json.loads(lines[line - 1])
    change(rec)
    lines[line - 1] = json.dumps(rec)
    out = tmp_path / f"m{src.suffix}"
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


CASES = [
    (X610Z_LOG, 8, lambda r: r.update(dot="Z9"),
     "cast.dot: A1-030 (Bullseye) is an Effect: only a summon's cast names a dot, the one it is placed on "
     "(docs/match-log-x610z.md, Records); leave dot out, got 'Z9'"),
    (X610Z_LOG, 8, lambda r: r.update(dot="S2"),  # a dot of the board: the same
     "cast.dot: A1-030 (Bullseye) is an Effect: only a summon's cast names a dot, the one it is placed on "
     "(docs/match-log-x610z.md, Records); leave dot out, got 'S2'"),
    (X610Z_LOG, 8, lambda r: r.update(on="Q7"),
     "cast.on: it names the card in play a target card is fixed on, and the target is 'S2', no card code "
     "(docs/match-log-x610z.md, Records); leave on out, got 'Q7'"),
    (ACTIVATE_LOG, 25, lambda r: r.update(choice=2),
     "cast.choice: A1-020 ("),
    (ZX_LOG, 24, lambda r: r.update(square="b3"),
     "play.square: U01-014 (Data Surge) is an Event: only a Z/X is played onto a Square (docs/match-log.md, "
     "play); leave square out, got 'b3'"),
    (ZX_LOG, 24, lambda r: r.update(on="a2"),
     "play.on: U01-014 (Data Surge) is an Event: only a Shift is played on a card (docs/match-log.md, play); "
     "leave on out, got 'a2'"),
    (IG_LOG, 25, lambda r: r.update(play={"square": "a1"}),
     "ignition.play.square: U01-016 ("),
    (LIFE_LOG, 24, lambda r: r.update(ignite={"square": "a1"}),
     "life.ignite.square: W01-015 ("),
]


@pytest.mark.parametrize("src,line,change,message", CASES,
                         ids=["x610z-dot-off-board", "x610z-dot-on-board", "x610z-on", "x610z-summon-choice",
                              "zx-square",
                              "zx-on", "zx-ignition-square", "zx-life-ignite-square"])
def test_a_field_the_card_does_not_take_is_a_format_error_at_its_line(tmp_path, src, line, change, message):
    log = mutated(tmp_path, src, line, change)
    r = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics",
                                "--accept-violations", str(log)])
    assert r.exit_code == 1, r.output
    assert f"{log}:{line}: format: {message}" in r.stderr, r.stderr
    a = CliRunner().invoke(zx, ["--store", str(tmp_path / "none.sqlite"), "audit", "--format", "json", str(log)])
    assert a.exit_code == 1, a.output
    (found,) = json.loads(a.stdout)["violations"]
    assert found["line"] == line and found["rule"] is None and message in found["message"], found


@pytest.mark.parametrize("src,line,change", [
    (X610Z_LOG, 8, lambda r: r.update(choice=2)),  # Bullseye, an Effect Card
    (ACTIVATE_LOG, 163, lambda r: r.update(choice=1)),  # a permanent Effect activated
], ids=["x610z-effect-cast", "x610z-effect-activate"])
def test_207_1_an_effect_cards_choice_is_taken_as_written(tmp_path, src, line, change):
    """207.1: some Effect Cards hold two effects, one chosen when cast or activated. The catalog does not say
    which, so an Effect's ``choice`` imports as written; a summon's is refused (above)."""
    log = mutated(tmp_path, src, line, change)
    r = CliRunner().invoke(zx, ["--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(log)])
    assert r.exit_code == 0, r.output
