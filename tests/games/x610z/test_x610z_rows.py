"""X610Z analytics rows, fed the events of real matches (the engine, no mocks)."""

from zx_events.games.x610z import rows
from zx_events.games.x610z.cards import load_catalog
from zx_events.games.x610z.match import topic
from zx_events.seats import event_fields

from x610z_builder import BATTLE, T1, pp, r, run


def fed(m) -> tuple:
    """Every event of ``m`` fed to a ``MatchRows`` (not closed yet) and its buffers."""
    buf = rows.new_buffers()
    mr = rows.MatchRows(str(m.id), 1, buf)
    for seq, ev in enumerate(m.pending_events, 1):
        name, d = type(ev).__name__, {**event_fields(ev), "rec": getattr(ev, "rec", None)}  # (as stored: its record)
        if name == "Started":
            mr.started({**d, "match_id": m.match_id}, rows.energy_of(load_catalog("x610z-sample")))
        mr.feed(seq, topic(name), d)
    return mr, buf


def project(m) -> dict:
    mr, buf = fed(m)
    mr.close()
    return buf


def test_x610z_rows_attack_outcome_life_base_damage_and_moves():
    recs = BATTLE + [r("effect", "P1", source="S1", op="damage", dot="B5", amount=1),
                     r("attack", "P1", **{"from": "B1"}, target="B5", path=["B6", "B5"])] + pp("P1") + \
        [r("effect", "P1", source="S1", op="damage", dot="S4", amount=3), r("concede", "P2")]
    m, _ = run(recs)
    buf = project(m)
    (attack,) = buf["x610z_attacks"]
    cols = rows.COLUMNS["x610z_attacks"]
    row = dict(zip(cols, attack))
    assert (row["attacker_card"], row["target_dot"], row["outcome"], row["damage"], row["distance"]) == \
        ("A1-022", "B5", "destroyed", 1, 2)
    (life,) = buf["x610z_life"]
    assert dict(zip(rows.COLUMNS["x610z_life"], life))["player"] == "P2"
    moves = [dict(zip(rows.COLUMNS["x610z_moves"], x)) for x in buf["x610z_moves"]]
    assert [(x["from_dot"], x["to_dot"], x["steps"]) for x in moves] == [("E1", "B1", 1), ("E4", "B5", 2)]
    (match,) = buf["matches"]
    match = dict(zip(rows.COLUMNS["matches"], match))
    assert (match["game"], match["winner"], match["reason"]) == ("x610z", "P1", "concede")
    assert match["p1_archetype"].startswith(match["p1_colours"] + ": ")
    seats = {s["side"]: s for s in (dict(zip(rows.COLUMNS["seats"], x)) for x in buf["seats"])}
    assert (seats["P1"]["result"], seats["P2"]["result"], seats["P2"]["damage_taken"]) == ("win", "loss", 3)
    assert (seats["P1"]["hand_size"], seats["P1"]["mulligan"]) == (7, False)
    games = {(g[2], g[3]): g for g in buf["card_games"]}
    assert games[("P1", "A1-022")][4] == 3  # copies in the deck list


def test_x610z_rows_warp_is_flagged():
    recs = T1 + [r("effect", "P1", source="S1", op="energy", type="C", amount=1),
                         r("move", "P1", **{"from": "S1"}, path=["A1"], pay={"B": 1})] + pp("P1") + \
        [r("cast", "P1", card="A1-022", pay={}, dot="E3")] + pp("P1") + \
        [r("move", "P1", **{"from": "E3"}, path=["S1"], pay={"C": 1})] + pp("P1")
    m, _ = run(recs)
    moves = [dict(zip(rows.COLUMNS["x610z_moves"], x)) for x in project(m)["x610z_moves"]]
    assert [(x["from_dot"], x["to_dot"], x["warp"]) for x in moves] == [("S1", "A1", False), ("E3", "S1", True)]


def test_x610z_rows_a_card_searched_or_moved_into_hand_is_drawn_not_unseen():
    """``search`` (211.2) and ``zone`` to ``hand`` put a card into a hand: a ``draws`` row (source
    ``effect``) and ``card_games.drawn``, so a card fetched and cast is seen, not a "game not seen"."""
    recs = T1 + [r("effect", "P1", source="S1", op="search", card="A1-050"),
                 r("effect", "P1", source="S1", op="energy", type="C", amount=3),
                 r("cast", "P1", card="A1-050", pay={"B": 1, "C": 1})] + pp("P1") + \
        [r("effect", "P1", source="S1", op="zone", card="A1-032", to="hand", **{"from": "deck"}), r("concede", "P2")]
    buf = project(run(recs)[0])
    effect = [d[4:] for d in buf["draws"] if d[6] == "effect"]
    assert effect == [("P1", "A1-050", "effect"), ("P1", "A1-032", "effect")]
    games = {(g[2], g[3]): g[4:] for g in buf["card_games"]}  # copies, opening, drawn, played
    assert games[("P1", "A1-050")] == (2, False, 1, 1)
    assert games[("P1", "A1-032")] == (3, False, 1, 0)


def test_x610z_rows_a_card_taken_off_the_stack_by_zone_is_no_cast_in_flight():
    """A `zone` effect from cast (digest.4) takes the Sky Vessel off the stack unresolved: the rows drop it
    from their stack as for `counter_action` (no x610z_casts row) and count it put into P1's hand."""
    from test_x610z_effects import countered

    m, _ = run(countered() + [r("concede", "P2")])
    mr, buf = fed(m)
    assert mr.stack == []
    mr.close()
    casts = [dict(zip(rows.COLUMNS["x610z_casts"], x)) for x in buf["x610z_casts"]]
    assert [(c["card"], c["outcome"]) for c in casts if c["kind"] == "cast"] == [("A1-031", "resolved")]
    assert [d[4:] for d in buf["draws"] if d[6] == "effect"] == [("P1", "A1-022", "effect")]


def test_x610z_archetype_under_a_copy_of_the_shipped_catalog_leaves_out_crystals_and_the_life_base():
    """A match checked against ``--catalog FILE`` keeps the catalog's name and SHA-256 only: its
    archetype knew no card's cost, Attack Power or kind, so its signature cards were the most-copied
    ones, the Energy Crystals (``unknown: A1-010 + A1-011``). A file with the shipped catalog's content
    (its SHA-256) has the shipped catalog's facts: the shipped label's two cards, named by code."""
    m, _ = run(T1 + [r("concede", "P2")])
    started = next(ev for ev in m.pending_events if type(ev).__name__ == "Started")
    d = {**event_fields(started), "match_id": m.match_id}

    def labels(catalog: dict, energy) -> tuple:
        buf = rows.new_buffers()
        mr = rows.MatchRows(str(m.id), 1, buf)
        mr.started({**d, "catalog": catalog}, energy)
        return mr.head["p1_archetype"], mr.head["p2_archetype"]

    shipped = load_catalog("x610z-sample")
    facts = rows.card_facts(shipped)
    named = labels(shipped.ref, rows.energy_of(shipped))
    by_code = labels({"name": "my-cards", "sha256": shipped.sha256}, None)  # no energy types: not a shipped name
    assert by_code != ("unknown: A1-010 + A1-011", "unknown: A1-011 + A1-010")
    for whole, code in zip(named, by_code):
        cards = code.removeprefix("unknown: ").split(" + ")
        assert not any(facts[c][3] for c in cards)  # neither a crystal nor the Life Base
        assert whole.split(": ", 1)[1] == " + ".join(facts[c][0] for c in cards)


def test_702_1_the_card_of_a_draw_left_out_is_a_late_draws_row_where_it_is_known_and_the_unknown_card_none():
    """P1's turn 1 draw left out (702.1): the unknown card it put in his hand (``CardDrawn`` of ``?``) is no draws
    row; the Heal he casts in turn 3, that card, is a ``late`` row there (docs/data-dictionary.md), drawn once in
    card_games, and no turn drew it in its Draw Phase (turn 1 drew 0)."""
    from x610z_builder import SETUP

    recs = SETUP + [r("turn", "P1"), r("crystal", "P1", card="A1-011"), r("end", "P1"),
                    r("turn", "P2"), r("draw", "P2", card="A1-011"), r("crystal", "P2", card="A1-011"), r("end", "P2"),
                    r("turn", "P1"), r("draw", "P1", card="A1-010"), r("energy", "P1", crystal="A1-011"),
                    r("cast", "P1", card="A1-032", target="S1", pay={"B": 1})] + pp("P1") + [r("end", "P1")]
    m, ref = run(recs, strict=False)
    assert [v.rule for v in ref.found] == ["702.1"]
    buf = project(m)
    cols = rows.COLUMNS["draws"]
    draws = [dict(zip(cols, x)) for x in buf["draws"] if dict(zip(cols, x))["source"] in ("draw", "late")]
    assert [(d["turn"], d["player"], d["card"], d["source"]) for d in draws] == [
        (2, "P2", "A1-011", "draw"), (3, "P1", "A1-010", "draw"), (3, "P1", "A1-032", "late")]
    assert not any("?" in x for x in buf["draws"])
    turns = {(t[2], t[3]): dict(zip(rows.COLUMNS["turns"], t)) for t in buf["turns"]}
    assert [turns[(n, p)]["drawn"] for n, p in ((1, "P1"), (2, "P2"), (3, "P1"))] == [0, 1, 1]
    games = {(g[2], g[3]): dict(zip(rows.COLUMNS["card_games"], g)) for g in buf["card_games"]}
    assert (games[("P1", "A1-032")]["drawn"], games[("P1", "A1-032")]["played"]) == (1, 1)


def test_503_1_an_effects_damage_source_on_a_dot_is_the_card_of_the_summon_there():
    """An effect's ``source`` names a summon by its dot (docs/match-log-x610z.md: an ability or a trigger of a
    summon); ``x610z_life.source`` is a card (docs/data-dictionary.md), so a dot is the code of the summon on it at
    that moment: P1's Iron Keep on S1, his Sky Vessel moved from E1 to B1 (210.1, accepted: no ability). A code is
    itself; a dot with no summon (210.4, accepted) names no card: NULL. It was the dot as written ("S1", "E2")."""
    recs = BATTLE + [r("effect", "P1", source=src, op="damage", dot="S4", amount=1)
                     for src in ("S1", "A1-002", "E2", "B1")] + [r("concede", "P2")]
    m, ref = run(recs, strict=False)
    assert [v.rule for v in ref.found] == ["210.4", "210.1"]
    life = [dict(zip(rows.COLUMNS["x610z_life"], x)) for x in project(m)["x610z_life"]]
    assert [(x["player"], x["source"], x["cause"], x["damage_after"]) for x in life] == [
        ("P2", "A1-002", "effect", 1), ("P2", "A1-002", "effect", 2), ("P2", None, "effect", 3),
        ("P2", "A1-022", "effect", 4)]
