"""Regenerate examples/invalid/: one small log per check of the spec's rule table, and format errors.

Every log is the legal examples/legal/first-turns.zxlog (decks "Red Dragons" / "Blue Control",
catalog "sample") cut short and changed in one place: the records before the bad one are legal,
the bad record is the last one that matters, and its line is the one the engine must cite. The
manifest examples/invalid/expected.json says, per file, the line, the rule (null for a format
error), the kind ("rule" or "format") and a fragment of the message.

Usage: python examples/make_invalid.py        (writes examples/invalid/*.zxlog and expected.json)
       python examples/make_invalid.py --check (exit 1 when the committed files are out of date)
"""

from __future__ import annotations

import copy
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
LEGAL = HERE / "legal" / "first-turns.zxlog"
OUT = HERE / "invalid"
MANIFEST = "expected.json"


def _legal() -> list[dict]:
    return [json.loads(line) for line in LEGAL.read_text(encoding="utf-8").splitlines() if line.strip()]


_L = _legal()
HEADER: dict = _L[0]
SETUP: list[dict] = _L[1:3]  # lines 2-3
T1: list[dict] = _L[3:8]  # lines 4-8: P1 resource, R01-002 on a1, R01-001 on b2, end
T2: list[dict] = _L[8:17]  # lines 9-17: P2 draw, resource, U01-003 on b3, U01-001 on a2, a2 attacks a1
T3: list[dict] = _L[17:23]  # lines 18-23: P1 draw, R01-003 on c3, c3 attacks b3, b2 attacks a2, end


def rec(do: str, by: str, **fields) -> dict:
    return {"do": do, "by": by, **fields}


def header(case: str, **players: dict) -> dict:
    h = copy.deepcopy(HEADER)
    h["match"] = f"invalid-{case}"
    for pl, over in players.items():
        h["players"][pl].update(over)
    return h


@dataclass
class Case:
    """``before`` (legal) + ``bad`` (the record the engine must reject) + ``after`` (never reached)."""

    name: str
    rule: str | None
    message: str
    before: list = field(default_factory=list)
    bad: dict | str | None = None
    after: list = field(default_factory=list)
    hdr: dict | None = None
    kind: str = "rule"
    line: int | None = None  # default: the line of ``bad``
    text: str | None = None  # the whole file, for format errors that need it

    def lines(self) -> list[str]:
        out = [] if self.hdr is False else [json.dumps(self.hdr or header(self.name), ensure_ascii=False)]
        for r in [*self.before, *([self.bad] if self.bad is not None else []), *self.after]:
            out.append(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
        return out

    def render(self) -> str:
        return self.text if self.text is not None else "\n".join(self.lines()) + "\n"

    def bad_line(self) -> int:
        if self.line is not None:
            return self.line
        return (0 if self.hdr is False else 1) + len(self.before) + 1


def _turn(by: str, n: int) -> dict:
    return rec("turn", by, turn=n)


# P2's turn 2 up to the attack a2 -> a1 (lines 9-14): P2 has priority in the Battle Event Step
T2_TO_ATTACK = T2[:6]
# the board after the legal log (line 23): P2's Charge holds U01-003 and U01-001 (both destroyed)
ALL = [*SETUP, *T1, *T2, *T3]


def cases() -> list[Case]:
    c: list[Case] = []
    add = c.append

    # ---------------------------------------------------------------- 602 battle declaration
    add(Case("602.1a-sleep-attacker", "602.1a", "is Sleep, not Reboot",
             [*SETUP, *T1, *T2, *T3[:5]],
             rec("attack", "P1", **{"from": "b2", "target": "b3"},
                 note="b2 already attacked a2 this turn: it is Sleep")))
    add(Case("602.1a-not-own-zx", "602.1a", "holds no Z/X of P1",
             [*SETUP, *T1, *T2, *T3[:2]],
             rec("attack", "P1", **{"from": "c1", "target": "c2"}, note="c1 is empty")))
    add(Case("602.1b-out-of-reach", "602.1b", "is not next to a1 and a1 has no Range",
             [*SETUP, *T1, *T2, *T3[:2]],
             rec("attack", "P1", **{"from": "a1", "target": "b3"}, note="distance 3, no Range")))
    add(Case("602.1b-own-zx", "602.1b", "holds P1's own Z/X",
             [*SETUP, *T1, *T2, *T3[:2]],
             rec("attack", "P1", **{"from": "a1", "target": "b2"})))
    add(Case("602.1b-empty-square", "602.1b", "holds no Z/X of P2 and is not P2's Player Square",
             [*SETUP, *T1, *T2, *T3[:2]],
             rec("attack", "P1", **{"from": "b2", "target": "c2"})))
    under_way = _battle_under_way()  # R01-003 on c2 first: its attack is legal but for the Life card owed
    add(Case("604.3b-attack-while-life-owed", "604.3b", "a life record for P2 is due, got an attack record",
             [*under_way[:-3], T3[2] | {"square": "c2"}, *under_way[-3:]],
             rec("attack", "P1", **{"from": "c2", "target": "c3"},
                 note="P2 still owes the Life card for the attack on b3")))
    add(Case("602.1-after-end-phase", "602.1", "a battle declared after the End Phase",
             [*SETUP, *T1],
             rec("attack", "P1", **{"from": "a1", "target": "a2"})))

    # ---------------------------------------------------------------- 202.7e: no damage under an Overboost
    add(Case("202.7e-player-under-overboost", "202.7e", "P2 controls a Z/X Overboost on Square",
             [*SETUP, *T1,
              _turn("P2", 2), T2[1], T2[2],
              rec("play", "P2", card="U01-003", pay=["U01-001", "U01-002"], square="c3"),
              rec("effect", "P2", source="PL-002", op="overboost", square="a3", upper="EX-U04"),
              rec("end", "P2"),
              _turn("P1", 3), T3[1]],
             rec("attack", "P1", **{"from": "b2", "target": "b3"}, note="b3 is P2's empty Player Square")))

    # ---------------------------------------------------------------- 603.1b: priority, Dynamis in battle
    add(Case("603.1b-out-of-priority", "603.1b", "P1 passes without priority (P2 has it)",
             [*SETUP, *T1, *T2_TO_ATTACK],
             rec("pass", "P1", note="the attacker P2 has priority first")))
    add(Case("603.1b-event-without-priority", "603.1b", "P1 plays R01-014 without priority (P2 has it)",
             [*SETUP, *T1, *T2, T3[0],
              rec("draw", "P1", cards=["R01-003", "R01-014"]),
              T3[2], T3[3],
              rec("pass", "P1")],
             rec("play", "P1", card="R01-014", pay=[], note="P1 passed: P2 has priority")))
    add(Case("603.1b-second-ev-ex-in-battle", "603.1b", "already played a Z/X EX or EV EX from Dynamis",
             [*SETUP, *T1, *T2, T3[0], T3[1],
              rec("resource", "P1", card="R01-004"),
              rec("play", "P1", card="EX-R02", **{"from": "dynamis"}, pay=["R01-001", "R01-002"]),
              rec("attack", "P1", **{"from": "b2", "target": "b3"})],
             rec("play", "P1", card="EX-R02", **{"from": "dynamis"}, pay=["R01-009", "R01-004"],
                 note="P1, the attacker, has priority")))
    add(Case("506-second-ev-ex-in-main-phase", "506", "already played a Z/X EX or EV EX from Dynamis",
             [*SETUP, *T1, *T2, T3[0], T3[1],
              rec("resource", "P1", card="R01-004"),
              rec("play", "P1", card="EX-R02", **{"from": "dynamis"}, pay=["R01-001", "R01-002"])],
             rec("play", "P1", card="EX-R02", **{"from": "dynamis"}, pay=["R01-009", "R01-004"])))

    # ---------------------------------------------------------------- 202.7g, 202.8c: one of each on Square
    add(Case("202.7g-second-overboost", "202.7g", "already has a Z/X Overboost on Square",
             [*SETUP, *T1[:3],
              rec("effect", "P1", source="PL-001", op="overboost", square="c1", upper="EX-R04")],
             rec("effect", "P1", source="PL-001", op="overboost", square="c2", upper="EX-R04"),
             hdr=header("202.7g-second-overboost",
                        P1={"deck_name": "Red Dragons (two Overboost)",
                            "dynamis": {"EX-R01": 2, "EX-R02": 2, "EX-R03": 2, "EX-R04": 2}})))
    add(Case("202.8c-second-shift", "202.8c", "already controls a Shift on Square",
             [*SETUP, *T1[:4],
              rec("play", "P1", card="EX-R03", **{"from": "dynamis"}, pay=["R01-002"], on="a1")],
             rec("play", "P1", card="EX-R03", **{"from": "dynamis"}, pay=["R01-009"], on="b2")))

    # ---------------------------------------------------------------- effects on Player cards and Links
    add(Case("303.6a-player-card-moved", "303.6a", "does not move to another Square",
             [*SETUP, *T1[:4]],
             rec("effect", "P1", source="a1", op="move", square="b1", target="player",
                 **{"from": "square", "to": "square"}, owner="P1", dest="c1")))
    add(Case("202.13f-link-unaffected", "202.13f", "does not name Links",
             [*SETUP, *T1[:4],
              rec("effect", "P1", source="W01-018", op="link", square="c2")],
             rec("effect", "P1", source="a1", op="destroy", square="c2", target="link")))

    # ---------------------------------------------------------------- 301.1: cards are where the state says
    add(Case("301.1-not-in-hand", "301.1", "R01-003 is not in P1's hand",
             [*SETUP, *T1[:1]],
             rec("play", "P1", card="R01-003", pay=["R01-001", "R01-002"], square="a1")))
    add(Case("301.1-not-in-deck", "301.1", "not in P2's deck",
             [*SETUP, *T1, T2[0]],
             rec("draw", "P2", cards=["U01-008", "U01-008"], note="the deck holds one U01-008")))

    # ---------------------------------------------------------------- 503.3 / 503.3a: the Draw Phase
    add(Case("503.3a-draw-on-first-turn", "503.3a", "the first player draws nothing on their first turn",
             [*SETUP, T1[0]],
             rec("draw", "P1", cards=["R01-003", "R01-013"])))
    add(Case("503.3-too-many", "503.3", "3 cards drawn in the Draw Phase, needs exactly 2",
             [*SETUP, *T1, T2[0]],
             rec("draw", "P2", cards=["U01-003", "U01-004", "U01-005"])))
    add(Case("503.3-too-few", "503.3", "P2 drew 1 card in the Draw Phase, needs exactly 2",
             [*SETUP, *T1, T2[0], rec("draw", "P2", cards=["U01-003"])],
             rec("play", "P2", card="U01-001", pay=[], square="a2")))

    # ---------------------------------------------------------------- 504.3: one Resource a turn
    add(Case("504.3-second-resource", "504.3", "already put a card into Resource this turn",
             [*SETUP, *T1[:2]],
             rec("resource", "P1", card="R01-004")))

    # ---------------------------------------------------------------- 805 / 204.6: paying the cost
    add(Case("805-too-few-resources", "805", "U01-003 costs 2, 1 Resource card paid",
             [*SETUP, *T1, *T2[:3]],
             rec("play", "P2", card="U01-003", pay=["U01-001"], square="b3")))
    add(Case("805-sleep-resource", "805", "R01-001 in P1's Resource is Sleep",
             [*SETUP, *T1[:3]],
             rec("play", "P1", card="R01-004", pay=["R01-001"], square="c1")))
    add(Case("204.6-colour", "204.6", "none of the paid cards is white",
             [rec("setup", "P1", hand=["W01-002", "W01-001", "W01-003", "W01-009"],
                  life=["W01-010", "W01-012", "W01-015", "W01-013"], resource=["G01-013", "G01-013"]),
              SETUP[1], T1[0]],
             rec("play", "P1", card="W01-002", pay=["G01-013"], square="a1",
                 note="both Resource cards are green"),
             hdr=header("204.6-colour", P1=_deck_player("White Knights", "Aki"))))

    # ---------------------------------------------------------------- 806: where a Z/X may be played
    add(Case("806-opponent-player-square", "806", "b3 is P2's Player Square",
             [*SETUP, *T1[:2]],
             rec("play", "P1", card="R01-002", pay=["R01-001"], square="b3")))
    add(Case("806-opponent-zx", "806", "a1 holds P1's Z/X R01-002",
             [*SETUP, *T1, *T2[:4]],
             rec("play", "P2", card="U01-001", pay=[], square="a1")))
    add(Case("806-own-sleep-zx", "806", "a2 holds P2's own Sleep Z/X U01-001",
             [*SETUP, *T1, *T2[:8]],
             rec("play", "P2", card="U01-002", pay=["U01-004"], square="a2",
                 note="U01-001 on a2 attacked: it is Sleep")))

    add(Case("806-effect-moves-onto-opponent-zx", "806", "a1 holds P1's Z/X R01-002: U01-001 on a2 is not moved there",
             [*SETUP, *T1, *T2[:5]],
             rec("effect", "P2", source="U01-003", op="move", square="a2", **{"from": "square", "to": "square"},
                 dest="a1", note="an effect's move is held to the placement of a play (digest.12)")))

    # ---------------------------------------------------------------- 505.3a: Ignition
    add(Case("505.3a-empty-charge", "505.3a", "Ignition with an empty Charge",
             [*SETUP, *T1[:2]],
             rec("ignition", "P1", charge="R01-010", revealed="R01-013")))
    add(Case("505.3a-ig-play-without-ig", "505.3a", "U01-009 has no IG icon",
             [*ALL, _turn("P2", 4), rec("draw", "P2", cards=["U01-005", "U01-006"])],
             rec("ignition", "P2", charge="U01-003", revealed="U01-009", play={"square": "b3"})))

    add(Case("505.3a-life-ignite-without-ig", "505.3a", "U01-005 has no IG icon",
             _battle_under_way(),
             rec("life", "P2", card="U01-005", ignite={"square": "a3"})))

    # ---------------------------------------------------------------- 501.3: turn order, game over
    add(Case("501.3-turn-out-of-order", "501.3", "turn 2 is P2's, not P1's",
             [*SETUP, *T1],
             rec("turn", "P1")))
    add(Case("501.3-turn-number", "501.3", "record says turn 3, the engine is in turn 2",
             [*SETUP, *T1],
             rec("turn", "P2", turn=3)))
    add(Case("501.3-after-game-ended", "501.3", "record after the game has ended",
             [*SETUP, *T1, T2[0], rec("concede", "P2")],
             rec("draw", "P2", cards=["U01-003", "U01-004"])))

    # ---------------------------------------------------------------- 309.2a: hand limit
    add(Case("309.2a-hand-above-limit", "309.2a", "P2 holds 7 cards",
             [*SETUP, *T1, *T2[:4],
              rec("effect", "P2", source="b3", op="draw", cards=["U01-005", "U01-006", "U01-007"])],
             rec("end", "P2")))

    # ---------------------------------------------------------------- 401: deck construction (header)
    add(Case("401-deck-size", "401", "main deck has 49 cards, needs exactly 50",
             list(ALL), None, line=1,
             hdr=header("401-deck-size", P1={"deck": {**HEADER["players"]["P1"]["deck"], "R01-001": 3}})))
    add(Case("401-copies-of-a-name", "401", "5 copies of 'Crimson Drake Vanguard'",
             list(ALL), None, line=1,
             hdr=header("401-copies-of-a-name",
                        P1={"deck": {**HEADER["players"]["P1"]["deck"], "R01-019": 3, "R01-017": 1}})))

    # ---------------------------------------------------------------- 101.2: the outcome is the engine's
    add(Case("101.2-result-before-end", "101.2", "the game has not ended by the rules",
             list(ALL),
             rec("result", "P1", winner="P1", reason="life")))
    add(Case("101.2-wrong-winner", "101.2", "the engine's outcome is P1 won by concede",
             [*SETUP, *T1, T2[0], rec("concede", "P2")],
             rec("result", "P2", winner="P2", reason="concede")))

    # ---------------------------------------------------------------- 902, 905: rule effects with a choice
    add(Case("902-reload-with-cards-in-deck", "902", "deck is not empty",
             [*SETUP, *T1[:2]],
             rec("reload", "P1", life="R01-010")))
    add(Case("905-charge-not-above-limit", "905", "not above the limit of 4",
             list(ALL),
             rec("charge_excess", "P2", trash=["U01-003"])))

    # ---------------------------------------------------------------- rules-fidelity defects (issue 15)
    add(Case("602.1b-target-destroyed-at-605.6", "602.1b", "a2 holds no Z/X of P2",
             [*_board(), ATTACK_B2_A2, rec("pass", "P1"),
              rec("play", "P2", card="U01-014", pay=[]),
              rec("effect", "P2", source="U01-014", op="power", square="a2", delta=1000, until="end_of_battle",
                  note="2500 Power survives 1500 damage; the boost ends in the Battle End Step (605.5)")],
             rec("attack", "P1", **{"from": "a1", "target": "a2"},
                 note="passes left out: U01-001 was destroyed before the battle ended (605.6)")))
    add(Case("602.1b-power-0-token-destroyed", "602.1b", "c2 holds no Z/X of P2",
             [*_board(), rec("attack", "P1", **{"from": "a1", "target": "a2"}), rec("pass", "P1"),
              rec("play", "P2", card="U01-014", pay=[]),
              rec("effect", "P2", source="U01-014", op="token", square="c2", name="Husk", power=0),
              rec("pass", "P1"), rec("pass", "P2")],
             rec("attack", "P1", **{"from": "b2", "target": "c2"},
                 note="a Token with Power 0 is destroyed at once (lethal damage)")))
    add(Case("603.1b-startup-without-priority", "603.1b", "startup ability of b3 without priority (P1 has it)",
             [*_board(), ATTACK_B2_A2],
             rec("effect", "P2", source="b3", op="power", square="b3", delta=500, until="end_of_turn",
                 startup=True, note="the attacker P1 has priority first (603.1a)")))

    add(Case("302.1c-startup-of-opponents-card", "302.1c", "is P2's to play, not P1's",
             [*_board(), ATTACK_B2_A2],
             rec("effect", "P1", source="b3", op="power", square="b2", delta=500, until="end_of_turn",
                 startup=True, note="b3 holds P2's Z/X: its startup ability is P2's")))
    add(Case("303.1-event-put-on-square", "303.1", "only Z/X (and Tokens) are put on Square face-up",
             _board(),
             rec("effect", "P1", source="a1", op="move", card="R01-014", **{"from": "hand"}, to="square",
                 dest="c1", note="an Event face-up on Square")))

    # ---------------------------------------------------------------- format errors (no rule)
    good = [json.dumps(r, ensure_ascii=False) for r in [*SETUP, *T1]]
    add(Case("format-bad-json", None, "bad JSON", good[:4],
             '{"do": "play", "by": "P1", "card": "R01-002" "pay": ["R01-001"], "square": "a1"}',
             good[5:], kind="format"))
    add(Case("format-unknown-key", None, "unknown key 'sqaure'", good[:4],
             rec("play", "P1", card="R01-002", pay=["R01-001"], sqaure="a1"), good[5:], kind="format"))
    add(Case("format-unknown-card-code", None, "unknown card code 'R01-999'", good[:4],
             rec("play", "P1", card="R01-999", pay=["R01-001"], square="a1"), good[5:], kind="format"))
    add(Case("format-wrong-type", None, "got '1'", good[:2],
             rec("turn", "P1", turn="1"), good[3:], kind="format"))
    add(Case("format-move-to-square-without-dest", None, "needs dest", good[:8],
             rec("effect", "P1", source="R01-002", op="move", square="a1", **{"from": "square", "to": "square"}),
             good[8:], kind="format"))
    add(Case("format-missing-header", None, "record before the match header", good[:0],
             good[0], good[1:], hdr=False, kind="format"))
    trunc = Case("format-truncated", None, "truncated file", good[:6], None, kind="format", line=8)
    body = "\n".join(trunc.lines()) + "\n"
    trunc.text = body + json.dumps(T1[4])[:-9]  # the last line lost its end (and its newline)
    add(trunc)
    return c


def _deck_player(name: str, player: str) -> dict:
    sys.path.insert(0, str(HERE.parent))
    from zx_events.games.zx.decks import deck_by_name

    return deck_by_name(name).to_header_player(player)


ATTACK_B2_A2 = rec("attack", "P1", **{"from": "b2", "target": "a2"})


def _board() -> list[dict]:
    """Turn 3, P1's Main Phase: P1 has R01-002 (3000) on a1 and R01-001 (1500) on b2, P2 has U01-003
    (4500) on b3 and U01-001 (1500) on a2; P2 holds the Event U01-014 (cost 0)."""
    p2 = rec("setup", "P2", hand=["U01-001", "U01-002", "U01-003", "U01-014"],
             life=["U01-011", "U01-013", "U01-005", "U01-006"], resource=["U01-001", "U01-002"])
    return [SETUP[0], p2, *T1,
            _turn("P2", 2), rec("draw", "P2", cards=["U01-003", "U01-004"]), T2[2], T2[3], T2[4],
            rec("end", "P2"), _turn("P1", 3), rec("draw", "P1", cards=["R01-005", "R01-014"])]


def _battle_under_way() -> list[dict]:
    """Turn 3 until P1's attack on P2's empty Player Square has dealt its damage.

    P2 moves U01-003 off b3 in turn 2 (played on c3 instead), so b2 can attack P2 on b3; after the
    Battle Event Step closes, P2 owes one Life card and the battle is still under way (604.3b).
    """
    return [*SETUP, *T1,
            _turn("P2", 2), T2[1], T2[2],
            rec("play", "P2", card="U01-003", pay=["U01-001", "U01-002"], square="c3"),
            rec("end", "P2"),
            _turn("P1", 3), T3[1],
            rec("attack", "P1", **{"from": "b2", "target": "b3"}),
            rec("pass", "P1"), rec("pass", "P2")]


def write(out: Path = OUT) -> dict[str, dict]:
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict] = {}
    for case in cases():
        name = f"{case.name}.zxlog"
        (out / name).write_text(case.render(), encoding="utf-8")
        manifest[name] = {"line": case.bad_line(), "rule": case.rule, "kind": case.kind,
                          "message_contains": case.message}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str]) -> int:
    if "--check" in argv:
        stale = [c.name for c in cases()
                 if not (OUT / f"{c.name}.zxlog").exists()
                 or (OUT / f"{c.name}.zxlog").read_text(encoding="utf-8") != c.render()]
        if stale:
            print(f"out of date: {', '.join(stale)} (run python examples/make_invalid.py)", file=sys.stderr)
            return 1
        return 0
    manifest = write()
    print(f"wrote {len(manifest)} logs and {MANIFEST} to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
