"""The X610Z ruleset id and the titles of the clauses the engine cites (X610Z CR V1.1 numbers): one for
each clause of the table in docs/rules-x610z.md, and none else (106.3, 701.2 and 702.3, never reported, had one).

The id carries the digest version: it changes whenever a documented choice (docs/rules-x610z.md)
changes, and every violation is printed with it.
"""

from __future__ import annotations

RULESET = "x610z-cr-1.1"  # the header's "rules" value
RULES_VERSION = "x610z-cr-1.1+digest.13"
# the end of the message of the 200.1a or 200.1b finding that a `cast` or `crystal` names a card of the deck list the hand
# does not hold, played as written for a card of the hand the log does not name (``Referee._unnamed``, digest.10), as
# Z/X's 301.1 (zx_events.games.zx.rules.PLAYED_AS_WRITTEN): stored in ViolationRecorded events, never reworded
PLAYED_AS_WRITTEN = "played as written, for a card of the hand the log does not name"
# .9 (2026-11-27/28; the referee's alone, the state's handlers read old events as before): records left out and logged
# twice. A Draw Phase draw left out (702.1) puts its card in the hand, unknown (CardDrawn of '?'), known where first
# used; an `end` left out (700.1, the active player's) discards his hand down to 7 (502.5) as '?' in his Discard Pile,
# a late `end` naming them; 502.5 allows Murphy's Law's smaller hand (105.4); a `draw` repeating the record just
# before, after the turn's draw, is one 702.1 and skipped. (Those of 2026-11-27 evening landed without this bump, some
# of their notes in docs/rules-x610z.md saying "digest.8": matches imported from then until the bump pin .8.)
# .10 (2026-11-28; the referee's alone): a header whose "first" names the other player than the setup logged first and turn 1 is one
# 105.2a at that setup, the log's order followed (it was 144 findings); a `cast` or `crystal` naming a card of the deck
# list its hand does not hold (200.1a, 200.1b), while the hand holds a card, is played as written for a card of the hand
# the log does not name (``PLAYED_AS_WRITTEN``; Announced and CrystalCast with ``unnamed``: that card leaves the hand
# uncounted, ``match.hand_count``), its payment spent as logged (the cost is the card meant's); it was announced as
# nothing, or skipped, and each later record of the summon or crystal was charged (202.2, 202.3, 203.3, 206.1e, 502.5).
# Events stored before carry no ``unnamed``: they replay as stored.
# .13 (2026-11-29; the referee's alone, stored events replay as stored): 210.5 and 210.8 are checked when a resolution
# ends (choice 9: the next record that is neither an `effect` nor a `trigger`, or the end of the log), once, at the line
# of its last `effect` record, not after each of its records: both Life Bases taken out of play by one resolution is a
# draw (106.1a, `simultaneous`), as Z/X holds a loss at 0 Life until its resolution ends; a summon dealt lethal damage by
# one of its records and healed by a later one stays (210.6: lethal damage is final once the action has resolved). The
# player whose Life Base's record came first lost there, the next effect record was 106.1b and a right `result` of a
# draw 106.1b too. An effect draw short of its ``due`` from an empty deck (106.3) loses in the same check (it ended the
# game at the draw, so a Life Base the resolution took out of play was never counted: a draw became a deck-out win).
# An activated ability of a summon already activated (moved) is 402.10f ("it can either be moved or its
# ability activated, since both require the activation of the summon"): it was cited 206.1e.
# .12 (2026-11-29; the referee's alone, stored events replay as stored): a player who must draw for an effect and cannot
# loses (106.3, not only in his Draw Phase): a `deck_out` result right after an effect draw of his that left his deck
# empty is the log's word that the draw came short (the engine reads no card text), the loss (MatchEnded) applied at the
# result; an effect draw's optional ``due`` (the cards owed) says it at the draw itself. It was 106.1b 'the game has
# not ended', nothing stored. A deck_out result with cards left in the deck, or with no such draw just before, stays
# 106.1b, saying which.
# .11 (2026-11-28): after a stackable action that fails for want of energy (200.5: a cast, activation, ability or
# movement whose cost cannot be met) priority goes to the next player (201.4, choice 4), as after any announcement, a
# void one too (.8): it stayed with the player, and the other player's legal pass after it was 201.3 (strict import
# refused the legal log; an underpayment while energy remained was two findings). A crystal cast is no announcement
# (200.1b, 200.2). The change is in the state's own handler (match._failed, ActionFailed), gated on
# ``zx_events.games.digest_of``: a match stored under .10 replays as it was imported.
# .8: a record refused without being applied leaves priority where the log's next records expect it (one mistake, one
# finding): a stackable announcement or trigger naming what is not there (a move or attack from an empty dot, 202.2 /
# 202.3; an attack on one or with a path not ending at its target, 202.3; a path off the board, 600.3; a cast not in
# hand, 200.1a, or onto no dot of the board, 402.6; an activate, ability or trigger of what is not in play, 500.1) goes
# on the stack as an announcement of nothing (its entry marked `void`: no card moved, no summon used, the payment
# spent as logged), priority to the next player (201.4), and fizzles when it resolves. It was skipped, priority stayed
# with its player, and the other player's legal pass after it was charged (201.3). A draw of a card not in the deck
# (212.1) is the turn's draw, no card drawn (leaving the Draw Phase was a second finding, 702.1). The state's handlers
# read the `void` mark (Announced, Resolved), which only entries announced under digest.8 carry: a stored match
# replays as imported.
# .8 (also): the source of an `effect` is the card or ability resolving, or a permanent in play that is the record's player's
# (214.2) and has an effect to give: a summon an ability (210.1 for damage, 402.10), an Energy Crystal an effect
# besides its energy (403.4); any permanent in play was taken, the other player's Life Base too. A card on the stack
# is no source before its cast resolves (503.1; 210.4 for damage): it was taken as one. An ability's effects name its
# summon by its dot (its card's code was taken as the one resolving). A movement reported illegal (applied as played)
# is no successful one: a Life Base it takes onto an Ending Dot wins nothing (602.2, the glossary's "Successfully"; a
# warp, 604.2, won the game and made every later record 106.1b). The Draw Phase ends with the draw, once the triggers
# on the stack have resolved (702.3): the two passes after a draw closed the Draw Phase, now the Action Phase, and a
# reactive player's non permanent answering the active player's pass after his draw was 206.2a / 702.2. An Effect
# Card waiting on the stack is a target of a card that may target an Effect (the glossary's "Effect": "in play or on
# the stack"; it was 401.5a "not in play"), and the card fizzles if it has left the stack (208.5). A trigger after
# everyone passed in the End Phase keeps the End Phase until it has resolved (704.6: it ends only with no stack; each
# pass to resolve it was 704.6). The referee's only: stored events replay as stored.
# .8 (also): one mistake, one finding where a refused setup, draw, end or turn charged the records after it. A setup on a
# dot of the board that is not a Starting Dot is 105.2a and applied as played (the Life Base there); one that can place
# no Life Base (a dot off the board or taken, no Life Base Card) is applied without it (the hand dealt, the player set
# up, no Life Base to lose, 210.8): it was skipped, and the other setup, every turn and record were 105.2a or 700.1.
# 105.2b only when both Life Bases are on Starting Dots. A draw after the first action is the turn's draw, applied with
# no second finding (702.1 was reported where the Draw Phase was left; it was refused, and the end 502.5). An `end` by
# the other player is 700.1 applied as the active player's end; a `turn` while the turn runs is 700.1 and ends it there
# (both were skipped, and the next turn charged). A clause is reported once per record (the findings merged: 206.1a
# was twice for a reactive player's permanent in the End Phase); a cast, move or attack in the Draw Phase is its own
# clause's (206.1a, 206.2a, 201.7), not 702.2 too; an activated ability used again is 402.10f, not 206.1e too; after
# the End Phase ended 704.6, not 206.1a or 201.7 too. An activation whose target left play fizzles (208.5), as a cast
# does. The PlayerSetUp handler takes a null life_base (only this version writes one): stored events replay as stored.
# .7: a record that breaks a rule but can be applied as written is applied (docs/audit.md), where it was skipped and
# the other player's legal records after it were charged (201.3 a pass, 700.1 a turn not ended): a `trigger` from a
# summon without a triggered ability (402.10h), an `activate` of a permanent with no activation left (209.2a), of an
# Effect without an Activation Symbol (207.6) or of an Energy Crystal with no effect (403.4) and an `ability` the
# summon does not have (402.10f/g) go on the stack, their payment spent as logged; a `cast` of an Energy Crystal Card
# is applied as the `crystal` record it should be (200.1b); an `end` discarding a card not in hand ends the turn, the
# card staying where it is (502.5); a move or attack with the other player's summon (214.2) and a cast or activation
# whose target is not there (401.2a-401.5a, 200.4) go on the stack and fizzle when they resolve, naming no summon of
# the other player's. Clauses cited: 214.2 for a summon the player does not control (was 202.1, the active player);
# 200.1a a cast card not in hand, 200.1b a crystal card not in hand, 212.1 a draw not in the deck, 203.3 a crystal
# he does not control, 202.2 / 202.3 no summon to move / attack with, 502.5 a discard not in hand (all were 500.1,
# which only lists the zones); a target that is not there, 401.2a-401.5a by the card's type, 200.4 when its type
# names none (was 200.3, declaring a target, or 500.1). The referee's only: stored events replay as stored.
# .6: a `trigger` naming a code needs that card in play under its player, on the stack as his, or resolving
# (500.1: a code was never looked up, a card in a hand or in no deck triggered and dealt damage); a summon's
# trigger needs a triggered ability (402.10h); a trigger whose summon or card left play fizzles (210.4); an
# `activate` of an Energy Crystal whose only effect is its energy is 403.4 (every crystal was exempt from
# 207.6). The referee's only: stored events replay as stored.
# .5: a `skip_turn` effect takes out the skipped player's next turn (700.2, the glossary's "skip": the turn
# does not occur) and the turns after it keep their order (700.1): P1 skipping his own next turn in his turn 3
# gives P2 turns 4 and 5, then P1. It put the other player first in the turn queue, which the other player's
# ordinary next turn used up when the skipped player was the active one: the skip never took effect (P1 had
# turn 5), and the legal order was refused as 700.1. A skip of the opponent's turn is as it was. An
# `extra_turn` of the player whose turn is not under way comes after his ordinary next turn (P1's turn 3, an
# extra turn of P2: P2 turns 4 and 5, then P1); it took the place of that turn (he gained no turn, P1's turn 5
# was accepted). The changes are in the state's own handlers (match._op_skip_turn, match._op_extra_turn) and
# apply to matches imported under digest.5 on (``zx_events.games.digest_of``): a match stored under digest.4
# replays as it was imported.
# .4: an action that fizzled when it resolved (208.5 a cast whose target left play, 200.4, 200.7, 214.5, 210.4)
# is the source of no effect: its `effect` records are refused (210.4 for damage, 503.1 for the other ops;
# under digest.3 a fizzled card counted as resolving, so a fizzled Bullseye dealt its damage). Accepting the
# same logs, a missing draw is one 702.1 of the active player whatever his first action (a non permanent
# cast, activation or ability was 206.2a / 702.2, the engine staying in the Draw Phase). A `place` or
# `relocate` onto a dot off the board is 600.3 (it was a KeyError, an internal error). A setup hand (or
# Murphy's Law hand) naming a card not in the deck is one 105.3a (105.4), the setup applied without that
# card (it was skipped whole: a violation on nearly every later record). An extra attack (202.3b) of a
# summon that has only attacked this turn may go any way, the last attack setting the direction (202.8
# ties moving and attacking only; it was refused as 202.8). A `zone` effect from `cast` takes a card cast on
# the stack to its owner's hand, deck, discard or removed zone, its cast unresolved (it was always refused as
# 500.1); `zone` to play or cast is a format error (the schema; it was accepted and moved nothing). An `energy`
# effect of a type the catalog does not declare is 203.2a (it was accepted, and the type could be spent). The `zone`
# from cast change is in the state's own handler (match._op_zone) and applies to matches imported under
# digest.4 on (``zx_events.games.digest_of``); the other changes are the referee's: stored events replay as
# stored.
# .3: every effect op's source is in play, on the stack or resolving (503.1; 210.4 for damage as before); a
# resolved card or ability stays "resolving" only until the next record that is neither an effect nor a
# trigger (a card resolved turns ago no longer deals damage from its Discard Pile); a `zone` effect moves a
# crystal or Effect out of play (205.3), its fixed Effects to their owners' Discard Piles (207.5a); a summon
# cast onto a dot taken at announcement is no longer refused (402.6 places it when the cast resolves: a dot
# still taken then fizzles the cast, 200.4). The one change in the state's own handlers (`zone` from play)
# applies to matches imported under digest.3 on (``zx_events.games.digest_of``), so a stored match replays
# as it was checked.
KNOWN_RULESETS = (RULESET,)


RULES: dict[str, str] = {
    "101.1a": "Constructed deck: at least 51 cards, exactly one Life Base Card",
    "101.1b": "Limited deck: at least 41 cards, exactly one Life Base Card",
    "102.1a": "Constructed side deck: 0 or 10 cards; Deck Restriction over deck and side deck",
    "105.2a": "Life Bases on free Starting Dots, starting player first",
    "105.2b": "Opponents' Life Bases on opposing Starting Dots",
    "105.3a": "Initial hand: 7 cards from the deck",
    "105.4": "Murphy's Law: hands of 6, 5, ... cards, only if taken the first time",
    "106.1b": "The engine's outcome; nothing after the game has ended",
    "200.1a": "Casting: a (non Energy Crystal) card is cast from hand",
    "200.3": "Targets are declared when the action is announced",
    "200.4": "An action whose target is not there fails (fizzles)",
    "200.5": "Energy released from the pool; as much as possible when the cost cannot be met",
    "201.3": "Only the priority holder announces a stackable action or passes",
    "201.7": "Table 1: moves, attacks and Energy Crystal Cards in the Action Phase only",
    "202.1": "Only the active player moves and attacks",
    "202.2": "A player moves a summon (on the dot the movement starts from)",
    "202.2a": "Movement Energy must be paid",
    "202.2b": "A summon moves only if its Summon Card is reactivated",
    "202.3": "An attack is with a summon and targets an opponent's summon",
    "202.3b": "One attack per summon per turn",
    "202.4": "A deactivated summon cannot move or attack",
    "202.5c": "A movement covers at most Speed dots",
    "202.5d": "An attack reaches at most Range dots",
    "202.8": "In one turn a summon moves and attacks in one direction",
    "202.9": "No sharp turn (under 90 degrees) in a movement, nor in an attack path (choice 7)",
    "203.2b": "Colorless energy pays only Colorless costs",
    "203.2a": "A crystal produces one of the energy types it names (the type is on the card)",
    "203.3": "An activated Energy Crystal's energy flows into its controller's pool: he controls it",
    "204.1b": "Each specific part of a cost is paid with its own type",
    "206.1a": "Permanents: by the active player in his Action Phase",
    "206.1e": "An activated permanent cannot be used until reactivated",
    "206.2a": "Non permanents: in the Action and End Phases",
    "209.2a": "An Activation Counter placed on a permanent indicates how many times the permanent can be "
              "activated before it is moved to the Discard Pile",
    "212.1": "A card is drawn from the top of the deck",
    "214.2": "The controller of a card is the player that gets to use it",
    "304.3a": "The deck restriction indicates how many copies of that specific card a deck is allowed to contain",
    "401.2a": "A Summon Effect Card targets a summon",
    "401.3a": "A Class Specific Effect Card targets a summon of its Class",
    "401.4a": "An Energy Crystal Effect Card targets a crystal",
    "401.5a": "An Effect Effect Card targets an Effect",
    "402.6": "A summon is placed on its caster's Starting Dot or an Ending Dot",
    "402.8": "At most one summon of each Class per player",
    "402.10f": "An activated ability: once per turn, it activates the summon",
    "402.10g": "A paid ability: once per turn",
    "402.10h": "A triggered ability: the summon has one",
    "403.1": "One Energy Crystal Card per turn",
    "403.2": "Energy Crystal Cards by the active player",
    "403.4": "An Energy Crystal is activated to release its effect: one with only its energy has none",
    "500.1": "A card is only where the state says it is",
    "502.5": "End of turn: discard down to 7 cards, from the hand",
    "600.3": "Steps along lines between connected dots",
    "600.5": "At most one summon per dot",
    "603.2": "No attack from or onto a No Attack Dot",
    "604.2": "Warp: a Non Life Base summon, between its Starting Dot and an Ending Dot",
    "604.4": "No attack through a Warp Dot",
    "700.1": "Turns clockwise, four phases",
    "702.1": "Draw Phase: the active player draws exactly 1 card",
    "702.2": "Draw Phase: only triggers",
    "703.7": "The Action Phase ends with an empty stack",
    "704.6": "The End Phase ends with an empty stack",
}


def title(rule: str) -> str:
    return RULES.get(rule, "")
RULES.update({
    "200.1b": "Energy Crystal Cards are cast from hand with a crystal record (non stackable)",
    "201.2": "The stack: an effect names an action on it",
    "207.6": "Only an Effect whose activated effect begins with an Activation Symbol is activated",
    "210.1": "Summons are dealt damage by attacks, by the effect of Effects and by abilities",
    "210.4": "The source of damage is in play (or resolving)",
    "402.10": "Summons can have an Ability: one without has no effect to give",
    "503.1": "A cast card's effect takes place when its cast resolves: an effect's source is in play or "
             "resolving",
})


# the engine's result reasons (MatchEnded.reason) as a reader says them, "by {text}": the game's ``reasons``
# (Game.reason_text), zx replay's board and web/board.js's REASONS (tests/web/test_result_in_the_games_words.py)
# (a draw's line says "a draw by {text}" itself, so the text does not say it again)
REASONS = {"ending_dot": "its Life Base reaching an Ending Dot (602.2)",
           "life_base": "taking the other Life Base out of play (210.8)",
           "deck_out": "the other player drawing from an empty Deck (106.3)", "concede": "concession",
           "time": "the time limit (106.1a)", "simultaneous": "both losing at once (106.1a)"}
# the same, short, as the match list says them after "won", "lost" or "draw" (Game.reason_label: whoever won or lost)
SHORT_REASONS = {"ending_dot": "Ending Dot", "life_base": "Life Base out of play", "deck_out": "deck out",
                 "concede": "by concession", "time": "time limit", "simultaneous": "both lost at once"}
# how both Life Bases left play where a resolution's effects took them (MatchEnded's ``how``, the outcome's, digest.13:
# the loss checked when the resolution ended, ``Referee.end_resolution``), as Z/X's LAST_LIFE_BOTH: the draw says it
# (``gone_text``) on every surface (the narration, zx replay's Result, the match page, web/board.js's table: tests/web/
# test_x610z_counters_and_turn_start.py checks that they agree). A single Life Base an effect took out of play is said as
# before ("taking the other Life Base out of play (210.8)"): its effect's lethal damage destroyed it.
LIFE_BASES_GONE = {"effect": "one resolution's effects took both out of play"}


def gone_text(winner: str | None, reason: str | None, how: str | None) -> str | None:
    """The result's reason where ``how`` says how both Life Bases left play: "both Life Bases left play at once (one
    resolution's effects took both out of play; 106.1a)" (a draw); None: the reason's ``REASONS`` words say it."""
    if reason == "simultaneous" and how in LIFE_BASES_GONE and winner is None:
        return f"both Life Bases left play at once ({LIFE_BASES_GONE[how]}; 106.1a)"
    return None


def outcome_text(winner: str | None, reason: str | None, how: str | None = None) -> str:
    """A result as the boards say it: "a draw: both Life Bases left play at once (...)" where ``how`` says it
    (``gone_text``), else ``freetext.result_text``'s "P1 won by taking the other Life Base out of play (210.8)"."""
    from zx_events.freetext import result_text

    gone = gone_text(winner, reason, how)
    return f"{winner + ' won' if winner else 'a draw'}: {gone}" if gone else result_text(winner, reason, REASONS)
