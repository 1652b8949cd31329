"""Build small X610Z logs for the per-clause tests: a standard header and setup, a few prefixes
(turns already played) and helpers that assert the first violation's line and rule."""

from __future__ import annotations

import json

import pytest

from zx_events.errors import RuleViolation

from x610z_support import play

# the Life Base is Iron Keep (A1-002), a summon with an ability (continuous): its dot (S1, S4) is the source in play of
# the effects the tests log as shortcuts (energy, a search, a placed summon: the engine does not read card text), its
# player's (digest.8: a summon without an ability, the other player's Life Base, is no source)
P1_DECK = {"A1-002": 1, "A1-010": 18, "A1-011": 9, "A1-020": 3, "A1-021": 3, "A1-022": 3, "A1-030": 3,
           "A1-031": 3, "A1-032": 3, "A1-040": 3, "A1-050": 2}
P2_DECK = {"A1-002": 1, "A1-010": 10, "A1-011": 19, "A1-020": 3, "A1-021": 3, "A1-022": 3, "A1-030": 3,
           "A1-031": 3, "A1-032": 3, "A1-040": 3, "A1-050": 2}
P1_HAND = ["A1-010", "A1-011", "A1-020", "A1-030", "A1-031", "A1-040", "A1-022"]
P2_HAND = ["A1-010", "A1-011", "A1-020", "A1-021", "A1-022", "A1-031", "A1-032"]


def header(**over) -> dict:
    h = {"x610zlog": 1, "rules": "x610z-cr-1.1", "match": "t", "catalog": "x610z-sample",
         "board": "x610z-orbits-sample", "first": "P1",
         "players": {"P1": {"name": "A", "deck": dict(P1_DECK)}, "P2": {"name": "B", "deck": dict(P2_DECK)}}}
    h.update(over)
    return h


def r(do: str, by: str, **fields) -> dict:
    return {"do": do, "by": by, **fields}


SETUP = [r("setup", "P1", dot="S1", hand=P1_HAND), r("setup", "P2", dot="S4", hand=P2_HAND)]

# turn 1: P1 draws, casts a Boost Crystal and has B1 in his pool
T1 = SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"), r("crystal", "P1", card="A1-011"),
              r("energy", "P1", crystal="A1-011")]


def pp(active: str) -> list[dict]:
    """The two passes that resolve the top of the stack (reactive player first, 201.4)."""
    return [r("pass", "P2" if active == "P1" else "P1"), r("pass", active)]


# three turns: P1's Sky Vessel ends on B1, P2's on B5; turn 3 (P1) has drawn
BATTLE = (T1 + [r("cast", "P1", card="A1-022", pay={}, dot="E1")] + pp("P1")
          + [r("move", "P1", **{"from": "E1"}, path=["B1"], pay={"B": 1})] + pp("P1") + [r("end", "P1")]
          + [r("turn", "P2"), r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"),
             r("cast", "P2", card="A1-022", pay={}, dot="E4")] + pp("P2")
          + [r("energy", "P2", crystal="A1-011"), r("move", "P2", **{"from": "E4"}, path=["E5", "B5"], pay={"B": 1})]
          + pp("P2") + [r("end", "P2"), r("turn", "P1"), r("draw", "P1", card="A1-010")])


def text(records: list[dict], head: dict | None = None) -> str:
    return "\n".join(json.dumps(x) for x in [head or header()] + records) + "\n"


def run(records: list[dict], head: dict | None = None, strict: bool = True):
    return play(text(records, head), strict=strict)[0]


def refused(records: list[dict], rule: str, line: int | None = None, head: dict | None = None,
            contains: str = "") -> RuleViolation:
    """Strict import stops at ``line`` (default: the last record) with ``rule``."""
    with pytest.raises(RuleViolation) as info:
        run(records, head)
    err = info.value
    assert (err.rule, err.line) == (rule, line or len(records) + 1), str(err)
    assert contains in err.message
    return err


def legal(records: list[dict], head: dict | None = None):
    m, ref = run(records, head)
    assert ref.found == []
    return m


def deck_drawn_out() -> list[dict]:
    """P1's whole deck drawn (his draw, then a `draw` effect of the rest) and discarded in his turn 1, P2's turn,
    then P1's turn 2, whose draw is due from an empty deck (106.3), and the log's result ``deck_out``."""
    m, _ = run(SETUP)
    rest = list(m.p["P1"]["deck"])
    rest.remove("A1-010")
    return SETUP + [r("turn", "P1"), r("draw", "P1", card="A1-010"),
                    r("effect", "P1", source="S1", op="draw", cards=rest), r("end", "P1", discard=rest + ["A1-010"]),
                    r("turn", "P2"), r("draw", "P2", card="A1-010"), r("end", "P2", discard=["A1-010"]),
                    r("turn", "P1"), r("result", "P1", winner="P2", reason="deck_out")]
