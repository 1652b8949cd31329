"""Regenerate examples/x610z/invalid/: one small X610Z log per check of the rule table in
docs/rules-x610z.md, each legal up to one record (the last), whose line the engine must cite.

The manifest invalid/expected.json gives, per file, the line, the rule and a fragment of the
message. Decks, hands and turns are those of the spec's examples (catalog x610z-sample, board
x610z-orbits-sample).

Usage: python examples/x610z/make_invalid.py          (writes the files)
       python examples/x610z/make_invalid.py --check  (exit 1 when the committed files are out of date)
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "invalid"

P1_DECK = {"A1-002": 1, "A1-010": 18, "A1-011": 9, "A1-020": 3, "A1-021": 3, "A1-022": 3, "A1-030": 3,
           "A1-031": 3, "A1-032": 3, "A1-040": 3, "A1-050": 2}
P2_DECK = {"A1-002": 1, "A1-010": 10, "A1-011": 19, "A1-020": 3, "A1-021": 3, "A1-022": 3, "A1-030": 3,
           "A1-031": 3, "A1-032": 3, "A1-040": 3, "A1-050": 2}
RICH = dict(P1_DECK, **{"A1-010": 9, "A1-023": 3, "A1-033": 3, "A1-034": 2, "A1-035": 3, "A1-012": 1})
P1_HAND = ["A1-010", "A1-011", "A1-020", "A1-030", "A1-031", "A1-040", "A1-022"]
P2_HAND = ["A1-010", "A1-011", "A1-020", "A1-021", "A1-022", "A1-031", "A1-032"]
HEADER = {"x610zlog": 1, "rules": "x610z-cr-1.1", "match": "", "played_at": "2026-11-20T19:00:00+01:00",
          "event": "X610Z invalid examples", "format": "constructed", "catalog": "x610z-sample",
          "board": "x610z-orbits-sample", "first": "P1",
          "players": {"P1": {"name": "Mia", "deck_name": "Mystic Rush", "deck": P1_DECK},
                      "P2": {"name": "Ole", "deck_name": "Boost Walkers", "deck": P2_DECK}}}


def r(do: str, by: str, **fields) -> dict:
    if "src" in fields:
        fields["from"] = fields.pop("src")
    return {"do": do, "by": by, **fields}


def pp(active: str) -> list[dict]:
    return [r("pass", "P2" if active == "P1" else "P1"), r("pass", active)]


# the Life Bases, Iron Keep (A1-002): a summon with an ability (continuous), the source in play of the effects the
# shortcuts below log (503.1, 402.10; the engine does not read card text), controlled by the record's player (214.2)
HOME = {"P1": "S1", "P2": "S4"}


def gain(by: str, t: str, n: int) -> dict:
    return r("effect", by, source=HOME[by], op="energy", type=t, amount=n)


def fetch(code: str) -> dict:
    return r("effect", "P1", source=HOME["P1"], op="search", card=code)


SETUP = [r("setup", "P1", dot="S1", hand=P1_HAND), r("setup", "P2", dot="S4", hand=P2_HAND)]
T1 = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-011"),
              r("energy", "P1", crystal="A1-011")]
VESSEL = T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1")] + pp("P1")
BATTLE = (VESSEL + [r("move", "P1", src="E1", path=["B1"], pay={"B": 1})] + pp("P1") + [r("end", "P1")]
          + [r("turn", "P2"), r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"),
             r("cast", "P2", card="A1-022", pay={}, dot="E4")] + pp("P2")
          + [r("energy", "P2", crystal="A1-011"), r("move", "P2", src="E4", path=["E5", "B5"], pay={"B": 1})]
          + pp("P2") + [r("end", "P2"), r("turn", "P1"), r("draw", "P1", card="A1-010")])
END = [r("pass", "P1"), r("pass", "P2")]  # from P1's Action Phase into his End Phase


def deck(pl: str = "P1", **over) -> dict:
    return {pl: over}


# name, records, rule, message fragment, header changes ({player: {key: value}} or {"format": ...})
CASES: list[tuple[str, list[dict], str, str, dict]] = [
    ("101.1a-deck-size", SETUP, "101.1a", "needs at least 51", deck(deck={**P1_DECK, "A1-010": 10})),
    ("101.1a-two-life-bases", SETUP, "101.1a", "2 Life Base Cards", deck(deck={**P1_DECK, "A1-001": 1})),
    ("101.1b-limited-deck-size", SETUP, "101.1b", "needs at least 41",
     {"format": "limited", **deck(deck={"A1-001": 1, "A1-010": 10, "A1-011": 5, "A1-020": 10, "A1-022": 5,
                                        "A1-030": 1, "A1-031": 1, "A1-040": 1})}),
    ("304.3a-deck-restriction", SETUP, "304.3a", "Deck Restriction is 3", deck(deck={**P1_DECK, "A1-020": 4, "A1-010": 17})),
    ("102.1a-side-deck", SETUP, "102.1a", "needs 0 or exactly 10", deck(deck=P1_DECK, side={"A1-010": 5})),
    ("105.2a-setup-order", [SETUP[1]], "105.2a", "places his Life Base first", {}),
    ("105.2a-not-a-starting-dot", [r("setup", "P1", dot="A1", hand=P1_HAND)], "105.2a", "not a Starting Dot", {}),
    ("105.2b-not-opposing", [SETUP[0], r("setup", "P2", dot="S3", hand=P2_HAND)], "105.2b", "does not oppose", {}),
    ("105.3a-hand-size", [r("setup", "P1", dot="S1", hand=P1_HAND[:6])], "105.3a", "needs 7", {}),
    ("105.4-murphy-hand-size", [r("setup", "P1", dot="S1", hand=P1_HAND, murphy=[P1_HAND[:5]])], "105.4", "needs 6", {}),
    ("700.1-turn-out-of-order", SETUP + [r("turn", "P2")], "700.1", "belongs to P1", {}),
    ("106.1b-after-the-end", SETUP + [r("concede", "P2"), r("turn", "P1")], "106.1b", "after the game has ended", {}),
    ("106.1b-result-disagrees", SETUP + [r("concede", "P2"), r("result", "P2", winner="P2", reason="concede")],
     "106.1b", "disagrees", {}),
    ("702.1-second-draw", SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("draw", "P1", card="A1-010")],
     "702.1", "second card", {}),
    ("702.1-no-draw", SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011")], "702.1", "without drawing", {}),
    ("702.2-stackable-in-draw-phase", SETUP + [r("turn", "P1"), r("activate", "P2", effect="A1-050", pay={})], "702.2",
     "only triggers", {}),  # (before P1's draw: the Draw Phase ends with it, 702.3)
    ("201.3-pass-without-priority", T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"), r("pass", "P1")],
     "201.3", "without priority", {}),
    ("201.3-cast-without-priority", T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"),
                                          r("cast", "P1", card="A1-031", pay={"B": 1})], "201.3", "without priority", {}),
    ("206.1a-permanent-by-reactive-player", T1 + [r("cast", "P2", card="A1-022", pay={}, dot="E4")], "206.1a",
     "only the active player", {}),
    ("206.2a-non-permanent-in-draw-phase", BATTLE[:-1] + [r("pass", "P1"), r("cast", "P2", card="A1-031", pay={})],
     "206.2a", "outside the Action and End Phases", {}),  # (P1 passes before his draw, 702.3: P2 has priority)
    ("202.1-move-by-reactive-player", T1 + [r("move", "P2", src="S4", path=["A4"], pay={"B": 1})], "202.1",
     "only the active player", {}),
    ("201.7-move-in-end-phase", T1 + END + [r("move", "P1", src="S1", path=["A1"], pay={"B": 1})], "201.7",
     "End Phase", {}),
    ("403.1-second-crystal", T1 + [r("crystal", "P1", card="A1-010")], "403.1", "already cast", {}),
    ("403.2-crystal-by-reactive-player", T1 + [r("crystal", "P2", card="A1-010")], "403.2", "only the active player", {}),
    ("201.7-crystal-in-end-phase", SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010")] + END
     + [r("crystal", "P1", card="A1-010")], "201.7", "End Phase", {}),
    ("200.1a-not-in-hand", T1 + [r("cast", "P1", card="A1-050", pay={})], "200.1a", "not in P1's hand", {}),
    ("204.1b-specific-part", T1 + [gain("P1", "M", 1), r("cast", "P1", card="A1-030", pay={"B": 1}, target="S4")],
     "204.1b", "its own energy type", {}),
    ("203.2b-colorless-energy", T1 + [gain("P1", "C", 1), gain("P1", "M", 1),
                                      r("cast", "P1", card="A1-030", pay={"C": 1}, target="S4")], "203.2b",
     "Colorless energy", {}),
    ("200.5-more-than-the-cost", T1 + [gain("P1", "M", 1), r("cast", "P1", card="A1-031", pay={"B": 1, "M": 1})],
     "200.5", "more than the cost", {}),
    ("200.5-not-in-the-pool", T1 + [r("cast", "P1", card="A1-031", pay={"M": 1})], "200.5", "Energy Pool holds M0", {}),
    ("200.5-less-while-energy-remained", T1 + [gain("P1", "M", 1), r("cast", "P1", card="A1-020", pay={"M": 1}, dot="E1")],
     "200.5", "while energy remained", {}),
    ("206.1e-activated-crystal", T1 + [r("energy", "P1", crystal="A1-011")], "206.1e", "is activated", {}),
    ("402.10g-paid-ability-twice", SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"),
                                            r("end", "P1", discard=["A1-031"]),
                                            r("turn", "P2"), r("draw", "P2", card="A1-011"), gain("P2", "B", 4),
                                            r("cast", "P2", card="A1-021", pay={"B": 2}, dot="E4")] + pp("P2")
     + [r("ability", "P2", summon="E4", kind="paid", pay={"B": 1})] + pp("P2")
     + [r("ability", "P2", summon="E4", kind="paid", pay={"B": 1})], "402.10g", "already used this turn", {}),
    ("402.10f-activated-ability-twice", T1 + [fetch("A1-023"), gain("P1", "B", 3),
                                              r("cast", "P1", card="A1-023", pay={"B": 2}, dot="E1")] + pp("P1")
     + [r("ability", "P1", summon="E1", kind="activated", pay={"B": 1})] + pp("P1")
     + [r("ability", "P1", summon="E1", kind="activated", pay={"B": 1})], "402.10f", "already used", deck(deck=RICH)),
    ("402.6-placement", T1 + [r("cast", "P1", card="A1-022", pay={}, dot="A1")], "402.6", "or an Ending Dot", {}),
    ("600.5-occupied-dot", VESSEL + [r("move", "P1", src="E1", path=["B1", "A1", "S1"], pay={"B": 1})], "600.5",
     "occupied", {}),
    ("402.8-class-restriction", VESSEL + [fetch("A1-022"), r("cast", "P1", card="A1-022", pay={}, dot="E2")],
     "402.8", "Class Vessel", {}),
    ("200.3-no-target", T1 + [r("cast", "P1", card="A1-040", pay={"B": 1})], "200.3", "needs a target", {}),
    ("401.2a-summon-effect-target", T1 + [r("cast", "P1", card="A1-040", pay={"B": 1}, target="A1-011")], "401.2a",
     "cannot target", {}),
    ("401.3a-class-specific-target", T1 + [fetch("A1-033"), gain("P1", "M", 1),
                                           r("cast", "P1", card="A1-033", pay={"M": 1}, target="S1")], "401.3a",
     "targets a Dragon", deck(deck=RICH)),
    ("401.4a-crystal-effect-target", T1 + [fetch("A1-034"), r("cast", "P1", card="A1-034", pay={"B": 1}, target="S1")],
     "401.4a", "targets a crystal", deck(deck=RICH)),
    ("401.5a-effect-effect-target", T1 + [fetch("A1-035"), r("cast", "P1", card="A1-035", pay={"B": 1}, target="A1-011")],
     "401.5a", "cannot target", deck(deck=RICH)),
    ("202.2a-movement-energy", T1 + [r("move", "P1", src="S1", path=["A1"], pay={})], "202.2a", "less than", {}),
    ("202.2b-card-activated", T1 + [gain("P1", "C", 1), r("move", "P1", src="S1", path=["A1"], pay={"B": 1})] + pp("P1")
     + [r("move", "P1", src="A1", path=["B1"], pay={"C": 1})], "202.2b", "reactivated", {}),
    ("202.4-deactivated-move", T1 + [r("effect", "P2", source=HOME["P2"], op="deactivate", dot="S1"),
                                     r("move", "P1", src="S1", path=["A1"], pay={"B": 1})], "202.4", "deactivated", {}),
    ("202.5c-speed", T1 + [r("move", "P1", src="S1", path=["A1", "B1"], pay={"B": 1})], "202.5c", "Speed is 1", {}),
    ("600.3-unconnected", T1 + [r("move", "P1", src="S1", path=["B1"], pay={"B": 1})], "600.3", "no line joins", {}),
    ("202.9-sharp-turn", VESSEL + [r("move", "P1", src="E1", path=["B1", "A1", "A2"], pay={"B": 1})], "202.9",
     "60 degrees", {}),
    ("604.2-life-base-warp", T1 + [r("move", "P1", src="S1", path=["E1"], pay={"B": 1})], "604.2",
     "Life Base cannot warp", {}),
    ("604.2-warp-to-a-foreign-starting-dot", VESSEL + [r("move", "P1", src="E1", path=["S2"], pay={"B": 1})], "604.2",
     "not E1 and S2", {}),
    ("202.8-move-after-attack", BATTLE + [r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"),
                                          r("attack", "P1", src="B1", target="B5", path=["B6", "B5"])] + pp("P1")
     + [r("move", "P1", src="B1", path=["B2"], pay={"M": 1})], "202.8", "leaves this turn's direction", {}),
    ("202.9-second-move-changes-direction", VESSEL + [gain("P1", "C", 1), r("move", "P1", src="E1", path=["E2"], pay={"B": 1})]
     + pp("P1") + [r("effect", "P1", source=HOME["P1"], op="reactivate", dot="E2"),
                   r("move", "P1", src="E2", path=["E1"], pay={"C": 1})], "202.9", "turns back", {}),
    ("202.3-friendly-target", BATTLE + [r("effect", "P1", source=HOME["P1"], op="place", card="A1-020", src="hand",
                                          dot="A1"),
                                        r("attack", "P1", src="B1", target="A1", path=["A1"])], "202.3",
     "P1's own", {}),  # (not his Life Base: a Starting Dot is a No Attack Dot, 603.2)
    ("202.5d-out-of-range", BATTLE + [r("attack", "P1", src="B1", target="B5", path=["B2", "B3", "B4", "B5"])],
     "202.5d", "Range is 2", {}),  # (around the ring: no sharp turn, 202.9)
    ("202.3b-second-attack", BATTLE + [r("attack", "P1", src="B1", target="B5", path=["B6", "B5"])] + pp("P1")
     + [r("attack", "P1", src="B1", target="B5", path=["B6", "B5"])], "202.3b", "already attacked", {}),
    ("202.4-deactivated-attack", BATTLE + [r("effect", "P2", source=HOME["P2"], op="deactivate", dot="B1"),
                                           r("attack", "P1", src="B1", target="B5", path=["B6", "B5"])], "202.4",
     "deactivated", {}),
    ("603.2-target-on-no-attack-dot", BATTLE + [r("effect", "P2", source=HOME["P2"], op="relocate", dot="B5", to="B6"),
                                                r("attack", "P1", src="B1", target="B6", path=["B6"])], "603.2",
     "cannot be attacked", {}),
    ("604.4-through-a-warp-dot", BATTLE + [r("effect", "P1", source=HOME["P1"], op="stat", dot="B1", stat="range",
                                             delta=2),
                                           r("attack", "P1", src="B1", target="B5", path=["E1", "E6", "E5", "B5"])],
     "604.4", "Warp Dot E1", {}),
    ("703.7-end-with-stack", T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1"), r("end", "P1")], "703.7",
     "on the stack", {}),
    ("704.6-after-end-phase", T1 + END + [r("pass", "P2"), r("pass", "P1"), r("cast", "P2", card="A1-031", pay={"C": 1})],
     "704.6", "End Phase ended", {}),
    ("502.5-hand-limit", SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("end", "P1")], "502.5",
     "holds 8 cards", {}),
    ("210.4-damage-source-not-in-play", BATTLE + [r("effect", "P1", source="A1-030", op="damage", dot="B5", amount=1)],
     "210.4", "neither in play", {}),
    ("503.1-effect-source-in-hand", BATTLE + [r("effect", "P1", source="A1-031", op="draw", cards=["A1-010", "A1-010"])],
     "503.1", "when its cast resolves", {}),
]


def build() -> dict[str, str]:
    files, manifest = {}, []
    for name, records, rule, fragment, over in CASES:
        h = copy.deepcopy(HEADER)
        h["match"] = f"x610z-invalid-{name}"
        h["note"] = f"one violation: rule {rule} at the last line"
        for key, value in over.items():
            if key in ("P1", "P2"):
                h["players"][key].update(value)
            else:
                h[key] = value
        lines = [json.dumps(h)] + [json.dumps(x) for x in records]
        line = 1 if rule in ("101.1a", "101.1b", "304.3a", "102.1a") else len(lines)
        files[f"{name}.x610zlog"] = "\n".join(lines) + "\n"
        manifest.append({"file": f"{name}.x610zlog", "line": line, "rule": rule, "message": fragment})
    files["expected.json"] = json.dumps(manifest, indent=1) + "\n"
    return files


def main(argv: list[str]) -> int:
    files = build()
    if "--check" in argv:
        stale = [n for n, text in files.items() if not (OUT / n).is_file() or (OUT / n).read_text() != text]
        for n in stale:
            print(f"out of date: {OUT / n}", file=sys.stderr)
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        (OUT / n).write_text(text, encoding="utf-8")
    print(f"wrote {len(files) - 1} logs and expected.json to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
