"""301.1: a Life card owed (a `life` record) naming a card not in its player's Life (one of his hand).

tests/data/zx-life-card-misnamed.zxlog (QA): a legal match whose line 10 `life` record of P1 names G01-005, a card
of his hand, for G01-004 of his Life. It is one 301.1 and the damage lands: G01-005, as named (the log made it
public), goes to the Charge, and one card of his Life leaves it (the referee takes the last, G01-006), which only the
judge may know (301.3c): ``LifeDamaged``'s ``taken``. His Life record of line 59 names G01-006, the card taken: it
was that damage's card (no finding), and the first damage took another (G01-004, the last of his Life then); his
Charge Excess of line 60 names G01-004, not in the Charge: it was the first damage's card, and takes the place of
G01-005 there (``LifeCardKnown``). The match ends as the log says: P2 wins by life.

tests/data/zx-life-card-ignited-misnamed.zxlog: examples/legal/long-game-reload-win-by-life.zxlog with line 11's
`life` record of P1, an Ignition onto b1, naming G01-011 (in his deck, not in his Life) for G01-010. The same: one
301.1, G01-011 is played from the Life as written (onto b1), the last card of his Life (G01-017) taken, the judge's
only. Before (digest.9): fatal 301.1, the record skipped: the damage still owed, b1 empty (602.1a at his attack from
it), 505.3a, 604.3b, 905, 1103 and a false 101.2 (7 findings, the result lost).

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

from zx_cli.main import zx
from zx_events.errors import RuleViolation
from zx_events.importer import build_match
from zx_events.replay import card_names
from zx_events.logformat.reader import parse_log

ROOT = Path(__file__).resolve().parents[3]
LOG = ROOT / "tests" / "data" / "zx-life-card-misnamed.zxlog"
MATCH = "qa-z17"
IGNITED = ROOT / "tests" / "data" / "zx-life-card-ignited-misnamed.zxlog"
SEATS = ("P1", "P2", "spectator")
CARD_KEYS = ("card", "cards", "hand", "life", "resource", "pay", "trash", "charge", "revealed", "mulligan")


def checked(text: str | None = None, *, strict: bool = False):
    (log,) = parse_log(text if text is not None else LOG.read_text("utf-8"), "t.zxlog")
    return build_match(log, strict=strict)


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
@pytest.fixture(scope="module", params=[(LOG, MATCH, 20, ("G01-006", "G01-004")), (IGNITED, "qa-z17-ig", 12, ("G01-017",))],
                ids=["charge", "ignition"])
def store(request, tmp_path_factory) -> tuple:
    """A store of one of the two logs, with its match, an event after its first damage named wrong and the cards
    the damages took (as the judge sees them)."""
    log, match, seq, taken = request.param
    path = str(tmp_path_factory.mktemp("life") / "events.sqlite")
    r = CliRunner().invoke(zx, ["--store", path, "import", "--no-analytics", "--accept-violations", str(log)])
    assert r.exit_code == 0, r.output
    return path, log, match, seq, taken


def replay(store: tuple, seat: str, *args: str) -> str:
    path, _, match, _, _ = store
    r = CliRunner().invoke(zx, ["--store", path, "replay", match, "--as", seat, *args], env={"COLUMNS": "200"})
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
    damage named wrong) that the log has not named in public by then, nor (for a player) his hand has held; the
    field ``taken`` reads ``?``. ``--event`` is asked at every event to 40 after the first damage named wrong, then
    at every 25th; the table to 60 after it."""
    _, log, match, first_after, taken_cards = store
    records = [json.loads(x) for x in log.read_text("utf-8").splitlines()[1:]]
    judge = [json.loads(x) for x in replay(store, "judge", "--to", "end", "--format", "json").splitlines()]
    names = dict(card_names("zx", "sample", None).names)
    secret_at: dict[int, set[str]] = {}  # seq -> the codes no seat but the judge may see there
    held_at: dict[tuple[str, int], set[str]] = {}  # (player, seq) -> the codes his hand has held by then
    taken: set[str] = set()
    life0: set[str] = set()
    held: dict[str, set[str]] = {"P1": set(), "P2": set()}
    for step in judge:
        taken.update(e["data"]["taken"] for e in step["events"] if e["data"].get("taken"))
        life = {c for p in ("P1", "P2") for c in step["state"]["players"][p]["life"] or ()}
        secret = (life | life0 | taken) - public_codes(records, step["line"] or 0)
        life0 = life
        for p in held:
            held[p] = held[p] | set(step["state"]["players"][p]["hand"] or ())
        for seq in range(step["seq_first"], step["seq_last"] + 1):
            secret_at[seq] = secret
            for p in held:
                held_at[p, seq] = held[p]
    assert taken_cards[0] in secret_at[first_after]  # (not vacuous: the card taken, and cards of the Life)
    assert {"G01-002", "G01-003"} & secret_at[first_after]
    assert set(taken_cards) <= taken
    last = judge[-1]["seq_last"]
    for seat in SEATS:
        forbidden_at = {seq: secret - held_at.get((seat, seq), set()) for seq, secret in secret_at.items()}
        steps = [json.loads(x) for x in replay(store, seat, "--to", "end", "--format", "json").splitlines()]
        for step in steps:
            for e in step["events"]:
                if e["data"].get("taken") is not None or e["kind"] == "LifeCardKnown":
                    assert e["data"]["taken"] == "?", (seat, e)
            data = "\x00".join(strings([step["record"], step["events"], step["violations"], step["state"]]))
            for c in forbidden_at[step["seq_last"]] | forbidden_at[step["seq_first"]]:
                assert c not in data and names.get(c, c) not in data, (seat, step["seq_first"], c)
        for seq in [*range(1, first_after + 41), *range(first_after + 50, last + 1, 25)]:
            data = replay(store, seat, "--event", str(seq), "--format", "json")
            for c in forbidden_at[seq]:
                assert c not in data and names.get(c, c) not in data, (seat, seq, c)
        to = min(last, first_after + 60)  # (the table of a whole long match is seconds of drawing a seat)
        shown = [step for step in steps if step["seq_first"] <= to]
        blocks = re.split(r"^─+ " + match + r" · step (\d+) · ", replay(store, seat, "--to", str(to)), flags=re.M)
        table = dict(zip(map(int, blocks[1::2]), blocks[2::2]))  # step -> its block of the table
        assert len(table) == len(shown)
        for step in shown:
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


# ---------------------------------------------------------------------- the same with an Ignition (digest.10)
def test_301_1_a_life_card_not_in_life_with_an_ignition_is_played_as_written():
    """Line 11 ignites G01-011 onto b1, not in P1's Life: one 301.1 and the damage lands: G01-011, as written, on b1,
    the last of his Life (G01-017) taken, the judge's only; his attack from b1 (line 18) is no finding, and the
    match ends as the log says. G01-011's Life Recovery (1102), owed as written, is the record's consequence the log
    does not carry: the one other finding."""
    c = checked(IGNITED.read_text("utf-8"))
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 11), ("1102", 12)]
    assert c.violations[0].message == ("G01-011 is not in P1's Life: the damage lands on a card of his Life the log "
                                       "does not name; G01-011 is played as written")
    first = events_of(c, "LifeDamaged")[0]
    assert (first.card, first.taken, first.life_after, first.ignite) == ("G01-011", "G01-017", 3, {"square": "b1"})
    assert (c.match.outcome["winner"], c.match.outcome["reason"]) == ("P2", "life")
    lines = IGNITED.read_text("utf-8").splitlines(keepends=True)
    assert json.loads(lines[17]) == {"do": "attack", "by": "P1", "from": "b1", "target": "a1"}
    early = checked("".join(lines[:11]))
    assert early.match.sq["b1"]["code"] == "G01-011" and early.match.sq["b1"]["owner"] == "P1"
    assert sorted(early.match.p["P1"]["life"]) == ["G01-003", "G01-010", "G01-013"]


def test_301_1_a_hand_card_without_ig_icon_ignited_from_life_is_301_1_and_505_3a():
    """The record names G01-007, of P1's hand, with no IG icon: 301.1 (not in the Life) and 505.3a (it cannot be played
    from Life), the damage landing all the same (the card, as written, on b1); nothing more."""
    lines = IGNITED.read_text("utf-8").splitlines(keepends=True)
    lines[10] = lines[10].replace("G01-011", "G01-007")
    c = checked("".join(lines))
    assert [(v.rule, v.line) for v in c.violations] == [("301.1", 11), ("505.3a", 11)]
    assert (c.match.outcome["winner"], c.match.outcome["reason"]) == ("P2", "life")


def test_301_1_an_ignition_naming_a_card_not_in_life_is_refused_in_strict_mode():
    with pytest.raises(RuleViolation) as e:
        checked(IGNITED.read_text("utf-8"), strict=True)
    assert (e.value.rule, e.value.line) == ("301.1", 11)


@pytest.mark.parametrize("seat", SEATS)
def test_301_1_zx_serve_shows_each_seat_the_steps_zx_replay_shows_it(store, seat):
    """``zx serve``'s steps and views of the match are ``zx replay``'s JSON for the seat (the test above checks those
    for the card taken), every page of them; a view asked after the first damage named wrong reads ``taken`` as ?."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app

    path, _, match, first_after, taken_cards = store
    expected = [json.loads(x) for x in replay(store, seat, "--to", "end", "--format", "json").splitlines()]
    with TestClient(create_app(path)) as c:
        served, start = [], 0
        while start is not None:
            page = c.get(f"/api/matches/{match}/steps", params={"as": seat, "start": start, "limit": 200}).json()
            served += page["steps"]
            start = page["next"]
        assert served == expected
        view = c.get(f"/api/matches/{match}/view", params={"as": seat, "at": first_after})
        assert view.json() == json.loads(replay(store, seat, "--event", str(first_after), "--format", "json"))
        assert taken_cards[0] not in view.text
