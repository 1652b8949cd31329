"""301.1: a Life card owed (a `life` record) naming a card not in its player's Life (one of his hand).

tests/data/zx-life-card-misnamed.zxlog (QA): a legal match whose line 10 `life` record of P1 names G01-005, a card
of his hand, for G01-004 of his Life. It is one 301.1 and the damage lands: G01-005, as named (the log made it
public), goes to the Charge, and one card of his Life leaves it (the referee takes the last, G01-006), which only the
judge may know (301.3c): ``LifeDamaged``'s ``taken``. His Life record of line 59 names G01-006, the card taken: it
was that damage's card (no finding), and the first damage took another (G01-004, the last of his Life then); his
Charge Excess of line 60 names G01-004, not in the Charge: it was the first damage's card, and takes the place of
G01-005 there (``LifeCardKnown``). The match ends as the log says: P2 wins by life.

Before (digest.8 and digest.9 as first merged): the record was skipped, P1 kept a Life card, a false 905 at line
60 and a false 101.2 at line 91, the stored match with no winner. An earlier fix moved the card taken (G01-006) into
the public Charge: ``zx replay --as P2`` showed a Life card the log never named.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import zx
from zx_events.importer import build_match
from zx_events.replay import card_names
from zx_events.logformat.reader import parse_log

ROOT = Path(__file__).resolve().parents[3]
LOG = ROOT / "tests" / "data" / "zx-life-card-misnamed.zxlog"
MATCH = "qa-z17"
SEATS = ("P1", "P2", "spectator")
CARD_KEYS = ("card", "cards", "hand", "life", "resource", "pay", "trash", "charge", "revealed", "mulligan")


def checked(text: str | None = None):
    (log,) = parse_log(text if text is not None else LOG.read_text("utf-8"), "t.zxlog")
    return build_match(log, strict=False)


def events_of(c, kind: str) -> list:
    return [e for e in c.match.pending_events if type(e).__name__ == kind]


def test_301_1_a_life_card_not_in_life_is_one_finding_and_the_match_won_by_life():
    c = checked()
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 10)]
    assert c.violations[0].message == ("G01-005 is not in P1's Life: the damage lands on a card of his Life the log "
                                       "does not name")
    assert (c.match.outcome["winner"], c.match.outcome["reason"]) == ("P2", "life")
    assert c.match.p["P1"]["life"] == []
    first = events_of(c, "LifeDamaged")[0]
    assert (first.card, first.taken, first.life_after) == ("G01-005", "G01-006", 3)


def test_301_1_a_later_life_record_naming_the_card_taken_is_no_finding():
    """Line 59 names G01-006, the card the damage of line 10 took: that damage's card, no finding; the first damage
    took another (G01-004). The log to line 59: P1's Life 2 cards, his Charge G01-005 (named) and G01-006."""
    lines = LOG.read_text("utf-8").splitlines(keepends=True)
    assert json.loads(lines[58]) == {"do": "life", "by": "P1", "card": "G01-006"}
    c = checked("".join(lines[:59]))
    assert c.violations[1:] == [] and [v.line for v in c.violations] == [10]
    late = events_of(c, "LifeDamaged")[-1]
    assert (late.card, late.taken, late.life_after) == ("G01-006", "G01-004", 2)
    z = c.match.p["P1"]
    assert sorted(z["life"]) == ["G01-002", "G01-003"]
    assert "G01-005" in z["charge"] and "G01-006" in z["charge"]


def test_301_1_a_charge_excess_naming_the_damages_card_sets_the_charge_right():
    """Line 60's Charge Excess names G01-004, in no zone but taken for the first damage: it was that damage's card,
    in the Charge in place of G01-005 (the placeholder the log named), no finding (it was 905 then 301.1)."""
    c = checked("".join(LOG.read_text("utf-8").splitlines(keepends=True)[:60]))
    assert [v.line for v in c.violations] == [10]
    (known,) = events_of(c, "LifeCardKnown")
    assert (known.player, known.card, known.placeholder, known.taken) == ("P1", "G01-004", "G01-005", "G01-004")
    z = c.match.p["P1"]
    assert z["charge"].count("G01-005") == 1 and "G01-004" in z["trash"]  # (one G01-005 destroyed on b1, line 40)
    assert sorted(z["life"]) == ["G01-002", "G01-003"]


# ---------------------------------------------------------------------- no seat but the judge sees the card taken
@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("life") / "events.sqlite")
    r = CliRunner().invoke(zx, ["--store", path, "import", "--no-analytics", "--accept-violations", str(LOG)])
    assert r.exit_code == 0, r.output
    return path


def replay(store: str, seat: str, *args: str) -> str:
    r = CliRunner().invoke(zx, ["--store", store, "replay", MATCH, "--as", seat, *args], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return r.stdout


def public_codes(records: list[dict], line: int) -> set[str]:
    """The codes the log names in public by ``line`` (of a setup record its Resource only: a hand, a Life are not)."""
    out: set[str] = set()
    for n, rec in enumerate(records, start=2):
        if n > line:
            break
        for key in ("resource",) if rec["do"] == "setup" else CARD_KEYS:
            v = rec.get(key)
            out.update([v] if isinstance(v, str) else v or [])
    return out


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_301_1_the_life_card_taken_for_one_named_wrong_is_shown_to_no_seat_but_the_judge(store):
    """At every event, as P1, P2 and a spectator, ``zx replay --format json`` (the state, and the step's record,
    events and sentences) and the table name no card of a Life (the judge's view's, and the cards taken for the
    damage named wrong) that the log has not named in public by then; the field ``taken`` reads ``?``."""
    records = [json.loads(x) for x in LOG.read_text("utf-8").splitlines()[1:]]
    judge = [json.loads(x) for x in replay(store, "judge", "--to", "end", "--format", "json").splitlines()]
    names = dict(card_names("zx", "sample", None).names)
    forbidden_at: dict[int, set[str]] = {}  # seq -> the codes no seat but the judge may see there
    taken: set[str] = set()
    life0: set[str] = set()
    for step in judge:
        taken.update(e["data"]["taken"] for e in step["events"] if e["data"].get("taken"))
        life = {c for p in ("P1", "P2") for c in step["state"]["players"][p]["life"] or ()}
        secret = (life | life0 | taken) - public_codes(records, step["line"] or 0)
        life0 = life
        for seq in range(step["seq_first"], step["seq_last"] + 1):
            forbidden_at[seq] = secret
    assert "G01-006" in forbidden_at[20] and "G01-002" in forbidden_at[20]  # (not vacuous: taken, and a Life card)
    assert {"G01-006", "G01-004"} <= taken
    last = judge[-1]["seq_last"]
    for seat in SEATS:
        steps = [json.loads(x) for x in replay(store, seat, "--to", "end", "--format", "json").splitlines()]
        for step in steps:
            for e in step["events"]:
                if e["data"].get("taken") is not None or e["kind"] == "LifeCardKnown":
                    assert e["data"]["taken"] == "?", (seat, e)
            data = "\x00".join(strings([step["record"], step["events"], step["violations"], step["state"]]))
            for c in forbidden_at[step["seq_last"]] | forbidden_at[step["seq_first"]]:
                assert c not in data and names.get(c, c) not in data, (seat, step["seq_first"], c)
        for seq in range(1, last + 1):
            data = replay(store, seat, "--event", str(seq), "--format", "json")
            for c in forbidden_at[seq]:
                assert c not in data and names.get(c, c) not in data, (seat, seq, c)
        blocks = re.split(r"^─+ " + MATCH + r" · step (\d+) · ", replay(store, seat, "--to", "end"), flags=re.M)
        table = dict(zip(map(int, blocks[1::2]), blocks[2::2]))  # step -> its block of the table
        assert len(table) == len(steps)
        for step in steps:
            block = table[step["step"]]
            for c in forbidden_at[step["seq_last"]] | forbidden_at[step["seq_first"]]:
                assert c not in block and names.get(c, c) not in block, (seat, step["step"], c, block)


def test_301_1_an_ignition_naming_the_damages_card_in_the_charge_sets_the_charge_right():
    """An Ignition at P1's turn 2 (after his draw, line 13) naming G01-004, of his Life, as its Charge card: it was the card of
    the damage of line 10 (no finding), in the Charge in place of G01-005, and G01-006, taken for it, back in Life."""
    lines = LOG.read_text("utf-8").splitlines(keepends=True)
    assert json.loads(lines[12])["do"] == "draw" and json.loads(lines[13])["do"] == "resource"
    ignition = json.dumps({"do": "ignition", "by": "P1", "charge": "G01-004", "revealed": "G01-001"}) + "\n"
    c = checked("".join([*lines[:13], ignition]))
    assert [v.line for v in c.violations] == [10]
    (known,) = events_of(c, "LifeCardKnown")
    assert (known.card, known.placeholder, known.taken, known.line) == ("G01-004", "G01-005", "G01-006", 14)
    z = c.match.p["P1"]
    assert "G01-005" not in z["charge"] and sorted(z["life"]) == ["G01-002", "G01-003", "G01-006"]
