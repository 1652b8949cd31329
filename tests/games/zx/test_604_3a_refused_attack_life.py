"""604.3a / 604.3b after a refused attack (602.1c, digest.12): its passes and a Life card of the defender are the
refused battle's only where the attack aimed at his Player Square. An attack on a Z/X (an opponent's out of reach,
602.1b, or one's own) never owes a Life card (604.3a): a Life card after it is 604.3b "no damage is waiting", as
after the legal attack on a Z/X, and no Life card is taken (QA round 36: `602.1c-refused-zx-target-life`,
`602.1b-own-zx-passes-life`: LifeDamaged, P1 to 3 Life, no finding)."""

from __future__ import annotations

import pytest

from .boundary_logs import END2, P, checked, events_of, findings, turn2

LIFE = [P("P1", "life", card="R01-005")]
PASSES = [P("P2", "pass"), P("P1", "pass")]
NO_DAMAGE = "no damage to P1 is waiting for a Life card"


def attack(src: str, target: str) -> list[dict]:
    return turn2() + [P("P2", "attack", from_=src, target=target)] + PASSES + LIFE + [END2]


@pytest.mark.parametrize("src,target,refused", [
    ("b3", "a1", "602.1b"),  # P1's Z/X, out of reach (b3 is not next to a1, no Range)
    ("a2", "b3", "602.1b"),  # P2's own Z/X
])
def test_a_life_card_after_a_refused_attack_on_a_zx_is_604_3b_and_takes_nothing(src, target, refused):
    c = checked(attack(src, target))
    assert findings(c) == [(refused, 14, "P2"), ("604.3b", 17, "P1")]
    assert c.violations[1].message == (f"{NO_DAMAGE} (the attack refused above was not on P1's Player Square: an "
                                       f"attack on a Z/X deals P1 no damage, 604.3a)")
    assert events_of(c, "LifeDamaged") == []
    assert len(c.match.p["P1"]["life"]) == 4 and "R01-005" not in c.match.p["P1"]["charge"]


def test_the_legal_twin_an_attack_on_a_zx_owes_no_life_card():
    c = checked(attack("a2", "a1"))
    assert findings(c) == [("604.3b", 17, "P1")] and c.violations[0].message == NO_DAMAGE
    assert events_of(c, "LifeDamaged") == [] and len(c.match.p["P1"]["life"]) == 4


def test_a_refused_attack_on_the_player_square_still_takes_its_life_card():
    """digest.12 kept for the attack it was meant for: the Player Square out of reach (a2 is not next to b1)."""
    c = checked(attack("a2", "b1"))
    assert findings(c) == [("602.1b", 14, "P2")]
    assert [e.card for e in events_of(c, "LifeDamaged")] == ["R01-005"] and len(c.match.p["P1"]["life"]) == 3
