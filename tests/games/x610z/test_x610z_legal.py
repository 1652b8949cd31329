"""The X610Z legal-action lister against the referee: everything it lists is accepted."""

import random

from zx_events.games.x610z.board import load_board
from zx_events.games.x610z.cards import load_catalog
from zx_events.games.x610z.legal import exact_payments, is_legal, legal_records, to_act
from zx_events.games.x610z.sim import simulate

from x610z_builder import BATTLE, run
from x610z_support import board_for, catalog_for, open_match, split


def test_x610z_legal_exact_payments():
    assert exact_payments({"M": 1, "C": 1}, {"M": 1, "B": 1}) == [{"M": 1, "B": 1}]
    assert sorted(map(str, exact_payments({"C": 1}, {"M": 1, "B": 1}))) == ["{'B': 1}", "{'M': 1}"]
    assert exact_payments({"M": 2}, {"M": 1, "B": 3}) == []
    assert exact_payments({"C": 1}, {"C": 1}) == [{"C": 1}]


def test_x610z_every_listed_record_is_accepted_along_simulated_matches():
    cat, board = load_catalog("x610z-sample"), load_board("x610z-orbits-sample")
    rng = random.Random(5)
    checked = 0
    for sim in simulate(4, 21):
        text = "\n".join(sim.lines()) + "\n"
        (hline, header, records), = split(text)
        m, ref = open_match(header, catalog_for(header), board_for(header), source="t", line=hline)
        for no, rec in records:
            if rng.random() < 0.1 and m.outcome is None:
                who = to_act(m)
                cands = [c for c in legal_records(m, cat, board, who) if c["do"] not in ("concede", "result")]
                for cand in rng.sample(cands, min(12, len(cands))):
                    if True:
                        assert is_legal(m, cat, board, cand), (no, cand)
                        checked += 1
            ref.handle(no, rec)
    assert checked > 100


def test_x610z_202_5d_lister_offers_only_targets_in_range():
    m, _ = run(BATTLE)
    cat, board = load_catalog("x610z-sample"), load_board("x610z-orbits-sample")
    attacks = [r for r in legal_records(m, cat, board, "P1") if r["do"] == "attack"]
    assert attacks and all(r["target"] == "B5" and len(r["path"]) <= 2 for r in attacks)
