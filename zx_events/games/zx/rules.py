"""The rules version this engine checks against, and the titles of the clauses it cites.

Numbers in the seed sections (202, 301-303, 601-605) are the Comprehensive Rules' own. The others
come from the digest in shared/rules/README.md; those marked uncertain are the project's documented
choice (docs/rules.md) and are printed together with ``RULES_VERSION`` so a later reader knows
exactly what a citation meant.
"""

from __future__ import annotations

RULES_VERSION = "zx-cr-seed-2026.11+digest.14"  # .2: 605.6, lethal Power 0, startup priority (issue 15)
# .3: a Reload or Charge Excess keeps the Battle Event Step open (603.1c); 202.7f/202.7g also for an effect's
# move; 302.1c for every Square source; a startup ability is a Main Phase action (506) and starts it; a Shift on
# a Z/X EX goes with it to Dynamis (202.8a). A match keeps replaying as the version it was imported under
# (``zx_events.games.digest_of``: the aggregate's own rules changes are gated on it); zx audit says when
# they differ.
# .4: an accepted violation of an owed Life card (604.3b) ends the battle as a waived trigger's does; a record
# owed that cannot be applied stands for its obligation; a waiver lasts for its battle only (in the state's own
# BattleEnded: gated on digest_of); an attack while a battle is owed a record breaks that obligation (604.3b,
# 1102, 1103), not 602.1; with deck and Trash both empty the Draw Phase draws what is left (503.3); the non-turn
# player's Event or startup ability outside the Battle Event Step is 506 (603.1b governs only the step); a
# Reboot Resource card named twice in one payment is 301.1 (it was called Sleep, 805); a setup written after
# turn 1 by a player not set up is applied, reported once by the turn's 402 (it was also a fatal 501.3); a short
# Draw Phase (503.3), reported where the phase is left, names the draw record's line.
# .5: an Event played in the Draw Phase before the draw is 506 (it was a short draw, 503.3, with the draw then
# refused as after the phase); a startup ability while a record is owed (the Life card in the Battle Damage Step, a
# trigger, a Reload, a Charge Excess) breaks that obligation (604.3b, 1102, 1103, 902, 905), as an Event does; a
# destroy no longer meets an owed Void Bringer (1103: a card on Square into Trash; a destroyed Z/X goes to Charge,
# 1007), which stays owed; a card is moved out of the Temporary or the Force Zone only when it is there (301.1):
# Temporary holds the Event being resolved (from its play, Ignition or Life record to the next record but its
# effects) and the cards an effect put there (any code passed, and a move out of Temporary put the card into `to`:
# the state's own handler, gated on digest_of; the Event resolving is taken from where the state has sent it).
# .6: a play of a card other than an Event (506), a Resource record (504.3), an Ignition (505.3) and a battle
# declared (602.1) by the turn player in the Draw Phase before its draw are refused at their line, as an Event or a
# startup ability there is (506, digest.5), and the draw record after them is applied (each was a short draw, 503.3,
# with the draw then refused as after the Draw Phase); "before the draw" is only before any draw record of the turn
# (after one, a record leaving the phase short is 503.3 there, as before: for an Event too), and only once a turn (a
# second such record finds the draw left out: 503.3 there, applied); the referee's alone,
# the state's handlers are unchanged.
# .7: one mistake, one finding: a setup naming a card not in the deck is one 301.1 and applied where possible (the
# player set up: it was fatal, and every later record of his was charged).
# A record refused only for its timing (a later phase before the draw, a later phase or after the End Phase) is
# applied as played, the Draw Phase kept open for its draw (a startup ability or attack after the End Phase still skipped).
# A Reload left out (902) or naming a card not in Life (301.1) still puts the Trash back into the deck.
# A Life card written one record late is applied, not reported again (604.3b once).
# Two Charge Excesses (or Reloads) owed by both players at once are met in either order (no text orders them).
# A Charge Excess left out is one 905, its owner's; the cards it leaves over the limit are not counted again.
# .8 (2026-11-27/28; the referee's alone, the state's handlers read old events as before): records left out. A Draw
# Phase draw left out (503.3) put its cards in the hand, unknown (CardsDrawn of '?'), known where first used (they
# stayed in the deck: 301.1 where played, 309.2a, 902, the result lost); a setup left out (402) is done unseen at
# turn 1, hand 4, Life 4 and Resource 2 unknown cards (PlayerSetUp of '?'), each known where first used: a play, a
# Resource record, a payment, Life damage, a Reload, an effect's move (the player was never set up: every card he
# used 301.1, 902, 101.2, the result lost); a late setup names them; its 402 is the player's who left it out. (The
# draw's change landed on 2026-11-27 at 21:23 without this bump: matches imported from then until the bump pin .7.)
# .9 (2026-11-28; the referee's alone): a `turn 1` record of the player the header's "first" does not name is one
# 501.3 naming the header, turn 1 beginning at the next record as its writer's turn when only the turn player writes
# it (the header wrong: the log's order), else the `turn` record's writer's (its seat wrong: the header's); it was the
# header's player's turn and every record after it charged (19 findings in a match). "Turn N has not ended" (501.3) is
# the finding of the player who left his `end` out; a play logged twice says so, skipped (it said played as written).
# A `life` record naming a card not in his Life (no Ignition) is one 301.1 and the damage lands: the card named goes
# to the Charge as written, the last of his Life leaves it (LifeDamaged's `taken`, the judge's only), a later record
# naming the damage's card sets it right (LifeCardKnown); it was skipped, 905 and 101.2 after it, the result lost.
# .10 (2026-11-28; the referee's alone): such a `life` record with an Ignition is the same one 301.1, the card
# named played from the Life as written (onto its Square, or an Event to the Trash), the last of his Life taken (the
# judge's only); it was fatal, skipped: the damage still owed, the Square empty, 7 findings in a match, the result lost.
# .11 (2026-11-28; the referee's alone): a card other than an Event played in the Battle Event Step, by the player
# with priority or without it, is one 603.1b at its line and not applied (the card stays in the hand, its cost unpaid,
# the priority where it was), where it cannot be a record after the step closed with its trailing passes left out: the
# non-turn player's (it was 506), or the turn player's while the battle would then owe a Life card. The pass after it
# by the player who passed just before it answers it as if it had been an action: his pass before stands, this one is
# not applied, no finding. It closed the step: 604.3b at the play (the Life card owed), 506 or 301.1 for the play,
# 603.1b "pass outside a Battle Event Step" for the legal pass after it; strict import named 604.3b.
# .12 (2026-11-29; the referee's alone, Reloaded's new `taken` absent from older events): an effect's move onto the
# Square, Square to Square too, is held to the placement of a play for the card's controller (806: it put an
# opponent's Z/X on its dest into the Trash with no event naming it); an attack out of reach (602.1b) or by a Sleep
# Z/X (602.1a) opens no battle (602.1c: it did, 604.3b for a Life card "due"); a reload naming a card not in the Life
# takes the last one (301.1 once, the judge's only: it kept it, 101.2, the result lost); a Life card after a battle an
# Overboost kept from damaging is 604.3c (was 604.3b); a move to the Square without dest is the log's format error
# (was 301.1); a setup's Resource card left out is not charged again at its payment (301.1 once); a Shift refused for
# its vessel says why.
# .13 (2026-11-29, QA round 37; the referee's and the sentences' alone but for two new event fields, absent before and
# read only where present): an attack on the Player Square of a player whose Player card has left the Square is 602.1b,
# no battle (602.1c: it took a Life card as battle damage); a move of a Player card from the Square to the Trash meets
# an owed Void Bringer (1103: it was applied and charged as not met); a sleep/reboot of a Player card sets its state
# (302.2, EffectApplied's `player_state`; Reboot at its owner's 502), of one gone 301.1 (it changed nothing); the loss
# waits for the end of a resolution (the effect records of one card's: both at 0 a draw; the first step's player lost,
# 501.3, 101.2 for a right draw); MatchEnded's `how` (effect, reload) says a last Life card that went by no damage;
# sentences say where a Z/X EX (Dynamis face-up) and a Shift (with its vessel) go.
# .14 (2026-11-29, QA round 37's second pass: digest.13's decisions made right; the referee's and the sentences' alone
# but for one new event field and `how` on a draw, absent before and read only where present): a Player card a move
# names by its code without owner is its owner's (it was the writer's: a legal Void Bringer refused, 301.1); 202.7f on
# an Overboost controller's Player card is not applied and a refused move does not meet an owed Void Bringer (it was
# recorded and applied); a face-down Z/X EX or EV EX leaving the Square for anywhere but Square or Dynamis goes to
# Dynamis face-up (EffectApplied's `ex_to_dynamis`: it went to the hand or the Trash); a draw by an Event's steps has
# MatchEnded's `how` (effect); sentences: a Token moved off the Square disappears, a Player card moved is named, the
# log's result after a loss with `how` says it; 301.1 of a Player Square without `target` names the Player card there.

# the end of the message of the 301.1 finding that a play names a card of the deck list the hand does not hold,
# played as written for a card of the hand the log does not name (``Referee._ghost``, digest.7): stored in
# ViolationRecorded events, where the analytics rows find that play (zx_events.games.zx.rows): never reworded
PLAYED_AS_WRITTEN = "played as written, for a card of the hand the log does not name"


# number -> (title, certain)
RULES: dict[str, tuple[str, bool]] = {
    "101.2": ("The game's outcome is the engine's own; a result record must agree", True),
    "101.4": ("A player may concede at any time", True),
    "202.7b": ("A Z/X Overboost is its upper and lower part combined", True),
    "202.7e": ("A player who controls a Z/X Overboost on Square receives no damage", True),
    "202.7f": ("An Overboost controller's Player cards are unaffected by card effects", True),
    "202.7g": ("Only one of your own Z/X Overboost on Square", True),
    "202.8c": ("No Shift while you control one on Square", True),
    "202.8d": ("A Shift is put on top of a card on Square (its vessel)", True),
    "202.11b": ("A Z/X Token has Power and the other parameters", True),
    "202.11c": ("A Token that leaves Square disappears", True),
    "202.12d": ("A Counter cannot go below 0", True),
    "202.13b": ("A Link is put on a chosen Square", True),
    "202.13e": ("A Link cannot be chosen except by a card that names Links", True),
    "202.13f": ("A Link is unaffected by effects that do not name Links", True),
    "204.6": ("A cost is paid with at least one Resource card of the card's colour", False),
    "301.1": ("A card is only where the state says it is", True),
    "302.1c": ("An ability is played by the controller of its card", True),
    "303.1": ("Square is the zone of Player and Z/X cards", True),
    "303.5a": ("A card put on Square from elsewhere enters in Reboot", True),
    "303.6a": ("A Player card is not moved to another Square", True),
    "309.2a": ("Hand limit 6 after the End Phase", False),
    "401": ("Deck construction: 50 cards, at most 4 of a name, 20 IG, Dynamis up to 16", False),
    "402": ("Setup: hand 4, optional mulligan, Life 4, Resource 2, once per player", False),
    "501.3": ("Turns in order; nothing after the game has ended", False),
    "502": ("Reboot Phase", False),
    "503.3": ("Draw Phase: draw 2", False),
    "503.3a": ("The first player draws nothing on their first turn", False),
    "504.3": ("Resource Phase: at most one card into Resource", False),
    "505.3": ("Ignition Phase: Charge to Trash, reveal the top card", False),
    "505.3a": ("Ignition needs a Charge card; only an IG card is played free", False),
    "506": ("Main Phase: cards, Events and startup abilities are played in your own Main Phase (Events and "
            "abilities also in a Battle Event Step); one Z/X EX or EV EX from Dynamis a turn", False),
    "507": ("End Phase", False),
    "602.1": ("A battle is declared in the turn player's Main Phase, one at a time", True),
    "602.1a": ("The attacker is a Reboot Z/X of the turn player on Square", True),
    "602.1b": ("The target is an opponent Z/X next to (or in Range of) the attacker, or the empty opponent Player "
               "Square while his Player card is on it", True),
    "603.1b": ("Battle Event Step: only the player with priority acts", True),
    "604.3b": ("An attack on a player deals 1 damage, one Life card a point", True),
    "604.3c": ("No damage is dealt to a player who controls a Z/X Overboost", True),
    "805": ("Cost: sleep that many Reboot Resource cards", False),
    "806": ("Placement of a Z/X", False),
    "902": ("Reload: empty deck, Trash back to the deck, a Life card to Charge", True),
    "905": ("Charge Excess: Charge above 4, the owner trashes the excess", False),
    "1102": ("Life Recovery: top of the deck into Life when Life is not higher than the opponent's", False),
    "1103": ("Void Bringer: a card on Square into Trash when Life is not higher than the opponent's", False),
}


def title(rule: str) -> str:
    entry = RULES.get(rule)
    return entry[0] if entry else ""


# the engine's result reasons (MatchEnded.reason) as a reader says them, "by {text}": the game's ``reasons``
# (Game.reason_text), zx replay's board and web/board.js's REASONS (tests/web/test_result_in_the_games_words.py)
# (a draw's line says "a draw by {text}" itself, so the text does not say it again)
REASONS = {"life": "damage with no Life left (a player with 0 Life loses)",
           "draw": "both players at 0 Life at once", "concede": "concession"}
# the same, short, as the match list says them after "won", "lost" or "draw" (Game.reason_label): "won (life)" and
# "lost (concede)" were the engine's keys, "won (concede)" read as if the winner had conceded (QA round 38)
SHORT_REASONS = {"life": "no Life left", "draw": "both at 0 Life", "concede": "by concession"}
# how a loser's last Life card went where it was no damage (``MatchEnded``'s ``how`` and the outcome's, digest.13):
# the match's end says it in place of "damage with no Life left" (a Reload is "not damage", the digest)
LAST_LIFE = {"effect": "an effect took their last Life card",
             "reload": "a Reload put their last Life card into the Charge"}
# a draw whose last Life cards went by an effect (an Event's steps took both players' last Life, digest.14)
LAST_LIFE_BOTH = {"effect": "an effect took both players' last Life cards"}
