"""A record not applied (``zx import --accept-violations``: its step's ``ViolationRecorded`` carries it) moves no
card: each card it names stays where it was, so a seat reads it only if it may look there (docs/replay.md).

Both games, every surface a seat reads a step's record on: ``zx replay`` (the terminal text and
``--format json``), the ``zx view`` HTML file and ``zx serve``'s ``/api/matches/{id}/steps``. The first tests are
the defects QA found (tests/data/*-refused-*: simulated logs cut after the refused record); the last goes through
every record kind and every field of each game's schema that may name a card (``LogFormat.card_keys``), each
record refused (written after the match's result), naming a card no seat sees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from support import strings
from zx_web.app import create_app
from zx_events import games, replay
from zx_events.seats import HIDDEN

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
BLIND = ("P1", "P2", "spectator")


def cli(store: str, *args: str, code: int = 0) -> str:
    r = CliRunner().invoke(zx, ["--store", store, *args])
    assert r.exit_code == code, r.output
    return r.stdout


def stored(tmp_path: Path, *logs: Path) -> str:
    store = str(tmp_path / "s.sqlite")
    cli(store, "import", "--no-analytics", "--accept-violations", *map(str, logs))
    return store


def json_steps(store: str, match: str, seat: str) -> list[dict]:
    out = cli(store, "replay", match, "--event", "1", "--to", "end", "--as", seat, "--format", "json")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def surfaces(store: str, match: str, seat: str, tmp_path: Path) -> dict[str, str]:
    """What ``seat`` reads of the whole match, by surface: the terminal, the JSON steps, the HTML file, the API."""
    page = tmp_path / f"{match}-{seat}.html"
    cli(store, "view", match, "--as", seat, "-o", str(page), "--force")
    api = []
    with TestClient(create_app(store)) as client:
        start = 0
        while start is not None:  # (the steps in pages)
            got = client.get(f"/api/matches/{match}/steps", params={"as": seat, "start": start, "limit": 500})
            assert got.status_code == 200, got.text
            api.append(got.text)
            start = got.json()["next"]
    return {"text": cli(store, "replay", match, "--event", "1", "--to", "end", "--as", seat),
            "json": cli(store, "replay", match, "--event", "1", "--to", "end", "--as", seat, "--format", "json"),
            "html": page.read_bytes().decode("utf-8"), "api": "\n".join(api)}


def record_at(store: str, match: str, seat: str, line: int) -> dict:
    return next(s["record"] for s in json_steps(store, match, seat) if s["line"] == line)


def assert_unseen(store: str, match: str, seats: tuple[str, ...], codes: set[str], tmp_path: Path) -> None:
    for seat in seats:
        for where, text in surfaces(store, match, seat, tmp_path).items():
            shown = {c for c in codes if c in text}
            assert not shown, f"{seat} reads {sorted(shown)} in {where}"


# ---------------------------------------------------------------------- the defects QA found
def test_x610z_502_3_a_refused_end_shows_its_discard_to_its_player_only(tmp_path):
    """x8-refend: P1's second `end` (700.1) discards nothing: A1-020 and A1-030 stay in his hand, which P2 and the
    spectator do not see (502.3); they read the record's discard as `?` on every surface."""
    store = stored(tmp_path, DATA / "x610z-refused-end.x610zlog")
    match = "refused-end-discard"
    assert record_at(store, match, "P1", 13)["discard"] == ["A1-020", "A1-030"]
    for seat in ("P2", "spectator"):
        assert record_at(store, match, seat, 13)["discard"] == [HIDDEN, HIDDEN]
    assert_unseen(store, match, ("P2", "spectator"), {"A1-020", "A1-030"}, tmp_path)


def test_x610z_502_3_a_refused_place_from_the_hand_shows_its_card_to_its_player_only(tmp_path):
    """x10-refplace: an effect's `place` of A1-020 from P1's hand, refused (600.5: S1 is occupied): the card is
    still in his hand."""
    store = stored(tmp_path, DATA / "x610z-refused-place-hand.x610zlog")
    match = "refused-place-hand"
    assert record_at(store, match, "P1", 12)["card"] == "A1-020"
    for seat in ("P2", "spectator"):
        assert record_at(store, match, seat, 12)["card"] == HIDDEN
    assert_unseen(store, match, ("P2", "spectator"), {"A1-020"}, tmp_path)


def test_x610z_500_a_refused_place_from_the_deck_shows_its_card_to_the_judge_only(tmp_path):
    """x11-refplacedeck: the same `place` of A1-022 from P1's deck: nobody but the judge sees a deck (500), its
    owner neither. (P2 holds an A1-022 of his own: his view is checked at the record.)"""
    store = stored(tmp_path, DATA / "x610z-refused-place-deck.x610zlog")
    match = "refused-place-deck"
    assert record_at(store, match, "judge", 12)["card"] == "A1-022"
    for seat in BLIND:
        assert record_at(store, match, seat, 12)["card"] == HIDDEN
    assert_unseen(store, match, ("P1", "spectator"), {"A1-022"}, tmp_path)


def test_301_3c_a_refused_second_setup_shows_its_start_resource_and_gate_to_nobody(tmp_path):
    """z10-refsetup: P1's second `setup` (402) takes nothing out of his deck: its Start Resource (R01-008) and
    Gate Card (EX-R04) are deck cards, seen by the judge only, as its hand, Life and Resource are."""
    store = stored(tmp_path, DATA / "zx-refused-second-setup.zxlog")
    match = "refused-second-setup"
    judge = record_at(store, match, "judge", 4)
    assert (judge["start_resource"], judge["gate"]) == ("R01-008", "EX-R04")
    for seat in BLIND:
        rec = record_at(store, match, seat, 4)
        assert rec["start_resource"] == rec["gate"] == rec["start_card"] == HIDDEN, seat
        assert set(rec["hand"]) == set(rec["life"]) == set(rec["resource"]) == {HIDDEN}, seat
    assert_unseen(store, match, ("P2", "spectator"), {"R01-008", "EX-R04"}, tmp_path)


# ---------------------------------------------------------------------- every record kind, every card field
LOGS = {"zx": ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog",
        "x610z": ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog"}

# a valid value of each $defs reference a record kind requires that names no card (the test's own choice)
PLAIN = {"dot": "A1", "square": "a1", "player": "P1", "zone": "deck", "zoneTo": "hand", "energyType": "M",
         "amount": 1, "int": 1, "count": 1, "payment": {}, "path": ["A1"], "turnNumber": 1, "text": "Sprout",
         "name": "Sprout"}
# the fields that take their card from the hand (Z/X: or the Dynamis) of the record's player, who looks there
# (Z/X 301.3c, X610Z 502.3): docs/match-log.md, docs/match-log-x610z.md (a `from` zone: the first of the schema's
# zones, deck, which nobody looks at; a play's: the hand, its default)
OWN_HAND = {"zx": {("play", "card"), ("resource", "card"), ("end", "discard"), ("effect_overboost", "upper")},
            "x610z": {("crystal", "card"), ("cast", "card"), ("end", "discard")}}


def value(defs: dict, node: dict, code: str, card: bool) -> Any:
    """A value of schema ``node``: ``code`` where it names a card (``card``), else a plain one."""
    ref = node.get("$ref", "").rsplit("/", 1)[-1]
    if card and (ref == "code" or ref.endswith("OrCode")):
        return code
    if card and ref == "codes":
        return [code, code]
    if ref in PLAIN and not card:
        return PLAIN[ref]
    if ref:
        return value(defs, defs[ref], code, card)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    if node.get("type") == "array":
        return [value(defs, node["items"], code, card)]
    if "anyOf" in node:
        return value(defs, node["anyOf"][0], code, card)
    if node.get("type") == "integer":
        return node.get("minimum", 1)
    raise AssertionError(f"no value for {json.dumps(node)[:200]}: add its reference to PLAIN")


def names_card(defs: dict, node: Any) -> bool:
    """Whether a schema node may hold a card code, at any depth (the test's own reading of the schema)."""
    if isinstance(node, dict):
        ref = node.get("$ref", "").rsplit("/", 1)[-1]
        if ref in ("code", "codes") or ref.endswith("OrCode") or ref and names_card(defs, defs[ref]):
            return True
        return any(names_card(defs, v) for k, v in node.items() if k != "$ref")
    return isinstance(node, list) and any(names_card(defs, v) for v in node)


def card_fields(game: str) -> dict[str, dict[str, bool]]:
    """Each record kind's ``$defs`` entry (effect: ``effect_OP``) -> its keys -> whether the key names a card."""
    fmt = games.get(game).log_format
    kinds = [k for k in fmt.kinds if k != "effect"] + [f"effect_{op}" for op in fmt.effect_ops]
    return {n: {k: names_card(fmt.defs, v) for k, v in fmt.defs[n]["properties"].items()} for n in kinds}


def refused_records(game: str, code: str, by: str) -> list[tuple[str, dict]]:
    """One record per record kind (effect: per op) whose every card field names ``code``, its required plain
    fields filled in; the kind's ``$defs`` name with each."""
    fmt = games.get(game).log_format
    out = []
    for name, keys in card_fields(game).items():
        if not any(keys.values()):
            continue
        d = fmt.defs[name]
        props = d["properties"]
        rec = {"do": props["do"].get("const", name), "by": by}
        for k in d.get("required", ()):
            if not keys.get(k):
                rec.setdefault(k, value(fmt.defs, props[k], code, False))
        for k, kind in keys.items():
            if kind:
                rec[k] = value(fmt.defs, props[k], code, True)
        out.append((name, rec))
    return out


@pytest.fixture(scope="module", params=sorted(LOGS))
def refused(request, tmp_path_factory) -> tuple[str, str, Path, str, dict]:
    """A legal match of the game with every refused record appended after its result, once written by P1 and
    once by P2 (two matches); the code they name: one no seat sees in the match without them."""
    game = request.param
    tmp = tmp_path_factory.mktemp(game)
    lines = LOGS[game].read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    base = str(tmp / "base.sqlite")
    cli(base, "import", "--no-analytics", str(LOGS[game]))
    deck = {c for pl in ("P1", "P2") for c in head["players"][pl]["deck"]}
    catalog = set(replay.card_names(game, head.get("catalog"), None).names)
    said = "".join(json.dumps(json_steps(base, head["match"], seat)) for seat in BLIND)
    unseen = sorted(c for c in catalog if c not in said)
    # a card of a deck no seat sees, else (a sample deck shows every code it has) one of the catalog's in no deck
    code = next((c for c in unseen if c in deck), unseen[0])
    logs, written = [], {}
    for by in ("P1", "P2"):
        recs = refused_records(game, code, by)
        hd = {**head, "match": f"refused-all-{by}"}
        path = tmp / f"{by}{LOGS[game].suffix}"
        path.write_text("\n".join((json.dumps(hd), *lines[1:], *(json.dumps(r) for _, r in recs))) + "\n",
                        encoding="utf-8")
        logs.append(path)
        written[by] = {len(lines) + 1 + i: (name, r) for i, (name, r) in enumerate(recs)}
    store = str(tmp / "s.sqlite")
    cli(store, "import", "--no-analytics", "--accept-violations", *map(str, logs))
    return game, store, tmp, code, written


def test_every_card_field_of_every_record_kind_is_covered(refused):
    game, _, _, _, written = refused
    fields = card_fields(game)
    named = {(name, k) for name, rec in written["P1"].values() for k in rec if fields[name].get(k)}
    assert named == {(n, k) for n, keys in fields.items() for k, card in keys.items() if card}
    assert {n for n, _ in named} >= {"setup", "draw", "end", "effect_draw"}
    if hasattr(games.get(game).log_format, "card_keys"):  # what the views hide by: the same fields
        assert {(n, k) for n, keys in games.get(game).log_format.card_keys.items() for k, kind in keys.items()
                if kind} == named


def test_no_seat_reads_a_card_a_refused_record_names_in_a_zone_it_may_not_see(refused):
    """Every record kind and card field of the game's schema, refused (after the result): the card it names
    (one of a deck: the judge's only) is in no other seat's terminal text, JSON, HTML file or API steps, but
    for the record's own player where the record takes it from his hand (he looks there)."""
    game, store, tmp, code, written = refused
    for by, other in (("P1", "P2"), ("P2", "P1")):
        match = f"refused-all-{by}"
        judge = {s["line"]: s for s in json_steps(store, match, "judge")}
        for line, (name, rec) in written[by].items():
            kinds = [e["kind"] for e in judge[line]["events"]]
            assert "ViolationRecorded" in kinds and judge[line]["violations"][0]["applied"] is False, (line, name)
            assert code in set(strings(judge[line]["record"])), (line, name)
        assert_unseen(store, match, (other, "spectator"), {code}, tmp)
        own = {s["line"]: s["record"] for s in json_steps(store, match, by)}
        for line, (name, rec) in written[by].items():
            shown = {k for k, v in own[line].items() if code in set(strings(v))}
            assert shown <= {k for n, k in OWN_HAND[game] if n == name}, (name, shown)
            assert shown >= {k for n, k in OWN_HAND[game] if n == name and k in rec}, (name, shown)


class ViolationRecorded:  # a step's finding that carries its record: the record was not applied
    rec = {"do": "pass", "by": "P1"}


@pytest.mark.parametrize("game", sorted(LOGS))
def test_a_key_the_schema_does_not_give_a_refused_record_is_hidden(game):
    """Hidden by default: a field the schema does not know (a record of another version, a new field whose
    redaction nobody wrote) reads `?` in a refused record, a list of them as many `?`, for the record's own
    player too; and so does every field but `do` and `by` of a kind the schema does not know."""
    g = games.get(game)
    rec = {"do": "end", "by": "P1", "secret": "X9-999", "more": ["X9-999", "X9-998"], "turn": 3}
    for seat in BLIND:
        assert g.redact_record(rec, seat, None, (ViolationRecorded(),)) == \
            {"do": "end", "by": "P1", "secret": HIDDEN, "more": [HIDDEN, HIDDEN], "turn": 3}
        assert g.redact_record({"do": "shuffle", "by": "P1", "cards": ["X9-999"]}, seat, None,
                               (ViolationRecorded(),)) == {"do": "shuffle", "by": "P1", "cards": [HIDDEN]}
    assert g.redact_record(rec, "judge", None, (ViolationRecorded(),)) == rec
    from zx_events.seats import hide_not_applied

    plain = {"do": "end", "by": "P1", "more": ["X9-999"]}
    hide_not_applied(plain, "P1", g.log_format, lambda r, k: True)  # (what the game says its seat sees: shown)
    assert plain["more"] == ["X9-999"]
