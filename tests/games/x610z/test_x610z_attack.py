"""Attack (202.3-202.8, 603, 604.4), damage and destruction (210)."""

from x610z_builder import BATTLE, legal, pp, r, refused


def atk(src, target, path, by="P1"):
    return r("attack", by, **{"from": src}, target=target, path=path)


def test_x610z_202_5a_an_attack_deals_its_attack_power():
    m = legal(BATTLE + [atk("B1", "B5", ["B6", "B5"])] + pp("P1"))
    assert m.dots["B5"]["dmg"] == 1 and not m.dots["B1"]["act"]  # 202.3b: the card is not rotated


def test_x610z_210_5_lethal_damage_destroys_the_summon():
    recs = BATTLE + [r("effect", "P1", source="S1", op="damage", dot="B5", amount=1), atk("B1", "B5", ["B6", "B5"])]
    m = legal(recs + pp("P1"))
    assert "B5" not in m.dots and "A1-022" in m.p["P2"]["discard"]


def test_x610z_210_8_a_destroyed_life_base_loses_the_game():
    recs = BATTLE + [r("effect", "P1", source="S1", op="damage", dot="S4", amount=12),
                     r("result", "P1", winner="P1", reason="life_base")]
    m = legal(recs)
    assert m.outcome == {"winner": "P1", "reason": "life_base"}


def test_x610z_210_4_damage_from_a_source_not_in_play():
    refused(BATTLE + [r("effect", "P1", source="A1-030", op="damage", dot="B5", amount=1)], "210.4")


def test_x610z_202_1_only_the_active_player_attacks():
    refused(BATTLE + [atk("B5", "B1", ["B6", "B1"], by="P2")], "202.1")


def test_x610z_202_3_the_target_is_an_opponents_summon():
    refused(BATTLE + [atk("B1", "S1", ["A1", "S1"])], "202.3", contains="P1's own")


def test_x610z_202_3b_one_attack_per_turn():
    refused(BATTLE + [atk("B1", "B5", ["B6", "B5"])] + pp("P1") + [atk("B1", "B5", ["B6", "B5"])], "202.3b")


def test_x610z_202_3b_an_effect_allows_another_attack():
    recs = BATTLE + [atk("B1", "B5", ["B6", "B5"])] + pp("P1") + \
        [r("effect", "P1", source="S1", op="extra_attack", dot="B1"), atk("B1", "B5", ["B6", "B5"])] + pp("P1")
    m = legal(recs)
    assert "B5" not in m.dots


def test_x610z_202_4_a_deactivated_summon_cannot_attack():
    recs = BATTLE + [r("effect", "P2", source="S4", op="deactivate", dot="B1"), atk("B1", "B5", ["B6", "B5"])]
    refused(recs, "202.4")


def test_x610z_202_5d_the_target_within_range():
    refused(BATTLE + [atk("B1", "B5", ["A1", "A6", "A5", "B5"])], "202.5d", contains="Range is 2")


def test_x610z_603_2_the_target_on_a_no_attack_dot():
    recs = BATTLE + [r("effect", "P2", source="S4", op="relocate", dot="B5", to="B6"), atk("B1", "B6", ["B6"])]
    refused(recs, "603.2", contains="cannot be attacked")


def test_x610z_603_2_the_attacker_on_a_no_attack_dot():
    recs = BATTLE + [r("effect", "P1", source="S1", op="relocate", dot="B1", to="B6"), atk("B6", "B5", ["B5"])]
    refused(recs, "603.2", contains="cannot attack")


def test_x610z_603_3_effects_still_damage_summons_on_no_attack_dots():
    recs = BATTLE + [r("effect", "P2", source="S4", op="relocate", dot="B5", to="B6"),
                     r("effect", "P1", source="S1", op="damage", dot="B6", amount=1)]
    m = legal(recs)
    assert m.dots["B6"]["dmg"] == 1


def test_x610z_604_4_no_attack_through_a_warp_dot():
    recs = BATTLE + [r("effect", "P1", source="S1", op="stat", dot="B1", stat="range", delta=2),
                     atk("B1", "B5", ["E1", "E6", "E5", "B5"])]
    refused(recs, "604.4", contains="Warp Dot E1")


def test_x610z_202_8_an_attack_after_a_move_keeps_its_direction():
    recs = BATTLE + [r("crystal", "P1", card="A1-010"), r("energy", "P1", crystal="A1-010"),
                     r("move", "P1", **{"from": "B1"}, path=["B2"], pay={"M": 1})] + pp("P1") + \
        [r("effect", "P1", source="S1", op="stat", dot="B2", stat="range", delta=1),
         atk("B2", "B5", ["B1", "B6", "B5"])]
    refused(recs, "202.8", contains="turns back")


def test_x610z_202_7c_stats_never_below_zero():
    recs = BATTLE + [r("effect", "P2", source="S4", op="stat", dot="B1", stat="range", delta=-5)]
    m = legal(recs)
    from zx_events.games.x610z.match import stat
    assert stat(m.dots["B1"], "range") == 0
    refused(recs + [atk("B1", "B5", ["B6", "B5"])], "202.5d", contains="B5 is 2 dots away, ")


def _two_targets() -> list[dict]:
    """Turn 1: P1's Sky Vessel placed on A2, P2's summons on A3 and A1 (either side of it), one more
    attack for the Vessel."""
    from x610z_builder import T1
    return T1 + [r("effect", "P1", source="S1", op="place", card="A1-022", dot="A2", **{"from": "hand"}),
                 r("effect", "P2", source="S4", op="place", card="A1-022", dot="A3", **{"from": "hand"}),
                 r("effect", "P2", source="S4", op="place", card="A1-021", dot="A1", **{"from": "hand"}),
                 r("effect", "P1", source="S1", op="extra_attack", dot="A2")]


def test_x610z_202_8_an_extra_attack_may_go_another_way_and_sets_the_direction():
    """202.8 links moving and attacking; 202.3b gives an extra attack no direction: the second attack,
    on A1, was refused as leaving 'this turn's direction' of the first, on A3. A move afterwards follows
    the last attack."""
    recs = _two_targets() + [atk("A2", "A3", ["A3"])] + pp("P1") + [atk("A2", "A1", ["A1"])] + pp("P1")
    m = legal(recs)
    assert m.dots["A2"]["attacks"] == 2 and not m.stack
    recs += [r("effect", "P1", source="S1", op="destroy", dot="A3"), r("move", "P1", **{"from": "A2"},
                                                                        path=["A3"], pay={"B": 1})]
    refused(recs, "202.8", contains="the attack went on to A1, this goes to A3")


def test_x610z_202_8_an_extra_attack_after_a_move_still_continues_it():
    """vice versa: once the summon moved, its attacks keep the move's direction, an extra one too."""
    from x610z_builder import T1
    recs = T1 + [r("effect", "P1", source="S1", op="place", card="A1-022", dot="A2", **{"from": "hand"}),
                 r("move", "P1", **{"from": "A2"}, path=["A3"], pay={"B": 1})] + pp("P1") + \
        [r("effect", "P2", source="S4", op="place", card="A1-022", dot="A4", **{"from": "hand"}),
         r("effect", "P2", source="S4", op="place", card="A1-021", dot="A2", **{"from": "hand"}),
         r("effect", "P1", source="S1", op="extra_attack", dot="A3"), atk("A3", "A4", ["A4"])] + pp("P1")
    legal(recs)
    refused(recs + [atk("A3", "A2", ["A2"])], "202.8", contains="leaves this turn's direction at A3")
