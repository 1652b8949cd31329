"""The X610Z rules engine: checks each log record against the state, then records what happened.

``Referee.handle(line, record)`` checks one record. Strict mode raises ``RuleViolation`` at the
first violation (``FILE:LINE: rule NNN: message``); lenient mode (``--accept-violations``, the
audit) records each violation as a ``ViolationRecorded`` event and applies the record as played
where that is possible. The engine derives, and never reads from the log: phase changes when
passes were left out, resolutions and fizzles (200.4, 202.11, 208.5), failures for want of
payment (200.5), attack damage (202.5a), destruction (210.5, 601.5, 602.5, 209.2c/f) and the
outcome (106). Rule numbers are X610Z CR V1.1's; choices are in docs/rules-x610z.md.
"""

from __future__ import annotations

from typing import Any

from zx_events.errors import FormatError, RuleViolation
from zx_events.seats import HIDDEN
from zx_events.games.base import Violation, inert_since  # noqa: F401  (Violation: what a referee reports, in every game)

from . import checks
from .board import Board
from .cards import COLORLESS, Card, Catalog
from .decks import check_deck
from .match import HAND_LIMIT, Match, deck_count, hand_count, other, stat
from .rules import PLAYED_AS_WRITTEN

CODE_CHARS = "-"  # a card code has a dash, a dot id never does


class _Skip(Exception):
    """A record that cannot be applied at all (lenient mode): recorded, then skipped (an announcement of what is
    not there first goes on the stack as nothing: ``Referee._void``)."""


def is_code(value: Any) -> bool:
    return isinstance(value, str) and CODE_CHARS in value


class Referee:
    def __init__(self, match: Match, catalog: Catalog, board: Board, *, strict: bool = True,
                 source: str | None = None):
        self.m = match
        self.cat = catalog
        self.board = board
        self.strict = strict
        self.source = source
        self.found: list[Violation] = []
        self.line: int | None = None
        self.by: str | None = None
        self.resolved: str | None = None  # the source of the entry resolving (its effects follow it), else None
        self.fizzled: str | None = None  # the source of the entry that fizzled instead (it has no effects)
        self.rec: dict | None = None  # the record under way, until an event carries it
        self._settled = -1  # the match's version when settle last found nothing to do
        self.result_line: int | None = None  # the line of the log's result record, once read
        # the turn whose draw the state does not count: refused (212.1), its Draw Phase drew all the same; or made after
        # the Draw Phase (702.1 reported when it was left without it)
        self.drew: int | None = None
        self._pending: list[tuple[int, Violation]] = []  # the record's findings not yet recorded (fail, _flush)
        # (turn, player, line) of the turn a `turn` record ended, its `end` left out or still to come (do_turn, do_end)
        self.closed: tuple[int, str, int | None] | None = None
        self.stray: str | None = None  # who made the pass just before without priority (do_pass), else None
        self.unplaced: set[str] = set()  # the players whose setup placed no Life Base (do_setup): none to lose (210.8)
        # player -> the cards of his hand the state does not know (_implied_setup: ``HIDDEN`` in his hand): a card
        # played from the hand that the state does not hold is one of them while some are left
        self.unknown: dict[str, int] = {}
        # the starting player's setup is due before the other's, logged first: 105.2a there (do_setup), so his setup
        # left out is no second finding at the first `turn` (_implied_setup)
        self.preceded = False
        # the starting player as the log keeps it: the header's "first", unless the setup logged first and turn 1 are
        # both the other player's (``_settle_first``: then the header is the wrong one, and the log's order is followed)
        self.first = match.first
        # (line, player) of a setup logged before the starting player's, judged at the first record after the setups
        # (``_settle_first``): the header's mistake or this record's
        self.swap: tuple[int, str] | None = None
        # (turn, player, pay) of a `crystal` record naming a card that is no crystal, while the hand holds crystals
        # (200.1b, do_crystal): the crystal cast is the one of his hand whose energy he adds first that turn (do_energy)
        self.lost_crystal: tuple[int, str, dict] | None = None
        # player -> the draws of his Draw Phases left out (702.1, _leave_draw) that no later draw made, each an unknown
        # card (``HIDDEN``) in his hand from then on: like ``unknown``, a card he plays or discards from his hand that
        # the state does not hold is one of them (``_from_unknown``: known there)
        self.missed: dict[str, int] = {}
        self.inferred: tuple[int, str] | None = None  # (turn, player) of the turn a record began, its `turn` unseen
        self.last: tuple[int, dict] | None = None  # the line and record handled last
        self.repeat: int | None = None  # the line of the record just before when this one is the same, else None
        # (line, player, due, drawn) of an effect `draw` applied at the record handled last (``due``: its field, else
        # None), and of the one at the record before it (``do_result``: a `deck_out` result right after an effect draw
        # that emptied the loser's deck is the log's word that the draw came short, 106.3; digest.12)
        self.effect_draw: tuple[int, str, int | None, int] | None = None
        self.draw_before: tuple[int, str, int | None, int] | None = None
        # the line of the last `effect` record of the resolution under way (choice 9: its `effect` and `trigger` records),
        # else None: 210.5 and 210.8 are checked when it ends (``end_resolution``), so both Life Bases gone in one
        # resolution is a draw (106.1a; digest.13: the player whose Life Base's record came first lost, the next record
        # of the resolution was 106.1b and a right `result` of a draw too)
        self._held: int | None = None
        # the players whose effect draw came short of an empty deck in the resolution under way (106.3; an effect draw's
        # ``due``, choice 20): lost, with the rest of 210.8 and 106.3, when it ends (``end_resolution``), so a Life Base
        # and a deck-out in one resolution are a draw (106.1a; digest.13 ended the game at the draw, and the lethal
        # damage held for the resolution's end was never counted: the other player won by deck_out)
        self.decked: set[str] = set()

    # ------------------------------------------------------------------ violations
    def fail(self, rule: str, message: str, *, fatal: bool = False, player: str | None = None) -> None:
        """``player``: who broke the rule when it is not the record's player (``self.by``).

        A clause is reported at most once per record and player: a second finding of it is merged into the first
        (its message added), so one mistake that two checks see is one finding (the permanent a reactive player casts
        in the End Phase was 206.1a twice). Findings wait in ``_pending`` until the record's first event (``_carry``)
        or its end, so that a later one can still be merged; a fatal one carries the record that is skipped."""
        if self.strict:
            raise RuleViolation(rule, message, source=self.source, line=self.line)
        player = player or self.by
        for i, (k, v) in enumerate(self._pending):
            if (v.rule, v.player) == (rule, player):
                v = Violation(v.line, v.turn, v.player, rule, f"{v.message}; {message}")
                self._pending[i] = (k, v)
                self.found[k] = v
                break
        else:
            self._pending.append((len(self.found), Violation(self.line, self.m.turn, player, rule, message)))
            self.found.append(self._pending[-1][1])
        if fatal:
            self._flush(carry=(rule, player))
            raise _Skip

    def _flush(self, carry: tuple[str, str | None] | None = None) -> None:
        """The record's findings so far as ``ViolationRecorded`` events; the one of ``carry`` (rule, player), fatal,
        carries the record (it is not applied), after the others."""
        if not self._pending:  # (the usual case, twice a record: the import bench's X610Z was 7% slower)
            return
        pending, self._pending = [v for _, v in self._pending], []
        pending.sort(key=lambda v: (v.rule, v.player) == carry)  # (stable: the fatal one last)
        for v in pending:
            self.m._violation(rule=v.rule, message=v.message, line=v.line, turn=v.turn, player=v.player,
                              rec=self._take() if (v.rule, v.player) == carry else None)

    def _carry(self) -> dict | None:
        """The record under way for the first event it causes (replay and the audit read it there), after the
        record's findings so far."""
        self._flush()
        return self._take()

    def _take(self) -> dict | None:
        rec, self.rec = self.rec, None
        return rec

    def _void(self, rule: str, message: str, entry: dict, pay: dict | None = None) -> None:
        """A stackable announcement (or a trigger) naming a summon, card, permanent or dot that is not there
        (digest.8): reported, then announced as nothing. ``entry`` (what the record names) goes on the stack marked
        ``void``, the payment spent as logged (there is no cost to check it against), priority to the next player
        (201.4), and it fizzles when it resolves, changing nothing. So the passes logged after it resolve it, as
        they would have resolved the action the record meant: it was skipped, priority stayed with its player, and
        the other player's legal pass after it was charged (201.3), two findings for one mistake."""
        self.fail(rule, message)
        entry = {"id": self.line, "by": self.by, **entry, "void": True}
        self.m._announced(player=self.by, entry=entry, pay=pay or {}, rec=self._carry(), line=self.line)
        raise _Skip

    def check(self, problem: tuple[str, str] | None, *, fatal: bool = False) -> None:
        if problem is not None:
            self.fail(*problem, fatal=fatal)

    def card(self, code: str) -> Card:
        return self.cat[code]

    # ------------------------------------------------------------------ header (101, 102, 304)
    def header(self, header: dict, line: int | None) -> None:
        self.line, self.by = line, None
        fmt = header.get("format") or "constructed"
        for pl in ("P1", "P2"):
            info = header["players"][pl]
            self.by = pl
            for rule, message in check_deck(self.cat, info.get("deck") or {}, info.get("side"), fmt):
                self.fail(rule, f"{pl}: {message}")
        self._flush()
        self.by = None

    # ------------------------------------------------------------------ records
    def handle(self, line: int, rec: dict) -> None:
        m = self.m
        self.line, self.by, self.rec = line, rec.get("by"), rec
        kind = rec["do"]
        stray, answer = self.stray, None
        if kind != "pass":
            self.stray = None
        if kind not in ("effect", "trigger") and not (kind == "pass" and self.by != m.prio):
            # a resolution's effects are logged right after it: over (201.6); a pass without priority does nothing
            # (digest.8: it ended them, and the next effect of the resolution was 210.4 or 503.1)
            self.resolved = self.fizzled = None
            if self._held is not None:
                self.end_resolution()  # the resolution is over: 210.5 and 210.8 now, before this record (106.1b)
        repeat, self.last = self.last, (line, rec)
        self.draw_before, self.effect_draw = self.effect_draw, None
        self.repeat = repeat[0] if repeat is not None and repeat[1] == rec else None
        try:
            if self.swap is not None and kind != "setup":
                self._settle_first(kind)
            if kind != "pass" and stray is not None:
                answer = self._stray_pass(stray, kind)
            if kind in _ANNOUNCEMENTS and m.prio not in (None, self.by) and self.repeat is None \
                    and self._holders(rec, kind, m.prio):
                # the record's seat mistaken (digest.8: it was 201.3 and 202.1 or 206.1a, 214.2 or 200.1a, 200.5 for the
                # other pool, and the other player's pass after it 201.3 again): judged as the priority holder's
                self.fail("201.3", f"{self.by} announces {kind} {_NAMED[kind](rec)} without priority ({m.prio} has "
                                   f"it): {m.prio}'s, its player mistaken (judged as {m.prio}'s)")
                self.by = m.prio
            if m.outcome is not None and kind != "result":
                self.fail("106.1b", f"{kind} record after the game has ended "
                                    f"({m.outcome['reason']}, winner {m.outcome['winner'] or 'none'})", fatal=True)
            if kind in _IN_TURN and m.outcome is None and self.by == self._next_player() and (
                    m.phase == "over" or (m.phase == "setup" and all(z["ready"] for z in m.p.values()))):
                self._infer_turn()
            if "turn" in rec:
                expected = m.turn + 1 if kind == "turn" and not self._late_turn() else m.turn
                if rec["turn"] != expected:
                    self.fail("700.1", f"record says turn {rec['turn']}, the engine is in turn {expected}")
            do = _DO.get(kind) if type(self) is Referee else None
            if do is None:
                handler = getattr(self, "do_" + str(kind), None)
                if handler is None:  # (a log's schema refuses it first: a record rewritten in the store)
                    raise FormatError(f"unknown record kind {kind!r}", source=self.source, line=self.line)
                handler(rec)
            else:
                do(self, rec)
        except _Skip:
            pass
        if answer is not None and m.stack and m.stack[-1].get("id") == line and m.prio == answer:
            m._passed(player=answer, line=line)  # (the pass without priority just before answers it: _stray_pass)
        self._flush()
        if m.outcome is None and (kind == "effect" or self._held is not None):
            # a step of a resolution (choice 9; a trigger may go on the stack during it, 207.4b, and a pass without
            # priority does nothing): the rule effects are checked when it is over, not between its steps (106.1a)
            if kind == "effect":
                self._held = line
        else:
            self.settle()

    def end_resolution(self) -> None:
        """The resolution under way is over (choice 9: the next record that is neither an `effect` nor a `trigger`, or
        the end of the log): 210.5 and 210.8 are checked now, once, at the line of its last `effect` record, so a
        resolution whose effects took both Life Bases out of play is a draw (106.1a: "2 players/teams win/lose at the
        same time"; ``settle``: ``simultaneous``), as Z/X holds a loss at 0 Life until its resolution ends (its
        digest.13). digest.13: ``settle`` ran after every record, so the player whose Life Base's effect record came
        first lost there, the next effect record of the same resolution was 106.1b "after the game has ended" and a
        right `result` of a draw 106.1b too. A player whose effect draw came short of an empty deck (its ``due``,
        choice 20: ``decked``) loses in the same check: 106.3 lists "must draw but is unable to draw a card" beside "a
        Life Base leaves play", and says of neither that it is at once (602.2 says "immediately" of the win it means
        so), so his loss and a Life Base's in one resolution are a draw too (106.1a); digest.13 ended the game at the
        draw, before the Life Base's lethal damage was counted. (The X610Z simulator calls it after the effects it
        writes for a resolution, where the import meets the next record.)"""
        held, self._held = self._held, None
        decked, self.decked = self.decked, set()
        if held is None or self.m.outcome is not None:
            return
        here, self.line = self.line, held
        try:
            self.settle(how="effect", decked=decked)  # (the end says so: rules.gone_text)
        finally:
            self.line = here

    def _holders(self, rec: dict, kind: str, holder: str) -> bool:
        """Whether the announcement ``rec`` names what the priority ``holder`` has and its player does not: a summon he
        controls (a move, attack or ability), a card in his hand (a cast), a permanent he controls (an activation)."""
        m = self.m
        if kind in ("move", "attack") and (holder != m.active or m.phase not in ("draw", "action")):
            return False  # (not his to make now either)
        if kind in ("move", "attack", "ability"):
            e = m.dots.get(rec.get("summon" if kind == "ability" else "from"))
            return e is not None and e["ctrl"] == holder
        if kind == "cast":
            card = self.cat.get(rec.get("card"))
            if card is not None and card.permanent and (holder != m.active or m.phase not in ("draw", "action")):
                return False
            return rec.get("card") not in m.p[self.by]["hand"] and rec.get("card") in m.p[holder]["hand"]
        owners = {p["ctrl"] for p in m.perms if p["code"] == rec.get("effect")}
        return holder in owners and self.by not in owners

    def _stray_pass(self, stray: str, kind: str) -> str | None:
        """The record after a pass without priority by ``stray`` (201.3, reported and skipped there) is not a pass, so
        no pass showed whose it was (``do_pass``): the record says it (digest.8: it did nothing, the stack stayed
        unresolved, and the next announcement was 201.3 again or the turn ended 703.7 with it on the stack). With
        actions on the stack, the pass is the one of the round that resolves the top: the holder's pass was left
        out, or the pass was his, its seat mistaken; the round is completed here. With none, an announcement of the
        holder next is what the pass answered, logged before it: the player to answer it once it is announced
        (``handle`` passes for him). Returns that player, else None."""
        m = self.m
        if m.prio is None or m.prio == stray or m.outcome is not None \
                or kind in ("setup", "turn", "result", "concede") \
                or (kind == "effect" and self.rec.get("source") in (self.resolved, self.fizzled)):  # (the resolution's)
            return None
        if m.stack:
            m._passed(player=m.prio, line=self.line)
            self._after_passes()
            if m.prio == stray and m.passes == 1:
                m._passed(player=stray, line=self.line)
                self._after_passes()
            return None
        if self.by == m.prio and kind in ("cast", "activate", "ability", "move", "attack"):
            return stray
        return None

    def finish(self) -> None:
        """End of the log: nothing is left pending (an unfinished match is stored as it stands; a setup logged before
        the starting player's, no turn after it, is its own finding: ``_settle_first``; a log ending in a resolution: its
        rule effects, ``end_resolution``)."""
        if self._held is not None:
            self.end_resolution()
        if self.swap is not None:
            self.line, self.by, self.rec = None, None, None
            self._settle_first(None)
            self._flush()

    def _settle_first(self, kind: str | None) -> None:
        """105.2a for the setup logged before the starting player's (``swap``), judged at the first record after the
        setups (``kind``; None: the log ended). The setup order and turn 1 both the other player's (a `turn` or a record
        of a turn of his): the header's "first" is the wrong one, one finding at that setup, which says so, and the
        log's order is followed from there (``first``: turn 1 is his, and so his draw and hand; digest.8: every record of
        his turn 1 was charged, 700.1, 702.1, 403.2, 201.3, 202.1, and each `end` 502.5, 144 findings in the concession
        example with only its "first" changed). Else the setup is the record by the wrong player, as before."""
        line, pl = self.swap
        self.swap = None
        here = self.line, self.by
        self.line, self.by = line, pl
        try:
            if kind is not None and (kind == "turn" or kind in _IN_TURN) and here[1] == pl:
                self.fail("105.2a", f"the header names {self.first} as the starting player, but {pl} sets up first and "
                                    f"begins turn 1: {pl} is taken as the starting player (the log's order)")
                self.first = pl
            else:
                self._order_finding(pl)
        finally:
            self.line, self.by = here

    # ------------------------------------------------------------------ derived rule effects
    def settle(self, how: str | None = None, decked: set[str] | frozenset[str] = frozenset()) -> None:
        """210.5 lethal damage, 210.8 / 106.3 a Life Base out of play loses the game (``how``: the MatchEnded's of a draw
        where a resolution's effects took both Life Bases out of play, ``end_resolution``); ``decked``: the players
        whose effect draw came short of an empty deck in the resolution ending (106.3), losers too. Both players lost:
        a draw (106.1a), its ``how`` only where both Life Bases left play; one: ``life_base`` where his Life Base left
        play (a deck-out of his as well changes nothing: 106.3 lists the Life Base first), else ``deck_out``.

        Nothing to do when it found nothing to do the last time and every event since is one whose
        method cannot give it anything to do (``_INERT``: none changes a summon's damage, stats,
        modifiers, Life Base or controller, the turn, nor who is set up)."""
        m = self.m
        if m.outcome is not None:
            return
        d = m.__dict__
        version = d["_version"]
        if not decked and inert_since(m, self._settled, _INERT):
            self._settled = version
            return
        dead = []  # (found first, then destroyed: a destruction changes no other summon's defense)
        for dot, e in m.dots.items():
            if (e["dmg"] or e["mods"]) and e["dmg"] >= stat(e, "defense"):
                dead.append((dot, e))
        for dot, e in dead:
            m._destroyed(dot=dot, uid=e["uid"], code=e["code"], cause="210.5", line=self.line)
        if m.turn == 0 and not all(z["ready"] for z in m.p.values()):
            if d["_version"] == version:
                self._settled = version
            return
        alive = set()  # the controllers of a Life Base in play (a loop, stopped once both are found)
        for e in m.dots.values():
            if e["life"]:
                alive.add(e["ctrl"])
                if "P1" in alive and "P2" in alive:
                    break
        gone = [pl for pl in ("P1", "P2") if pl not in alive and pl not in self.unplaced]
        losers = [pl for pl in ("P1", "P2") if pl in gone or pl in decked]
        if len(losers) == 2:
            how = how if how and len(gone) == 2 else None  # (a Life Base and a deck-out: "both losing at once")
            m._ended(winner=None, reason="simultaneous", line=self.line, **({"how": how} if how else {}))  # 106.1a
        elif losers:
            reason = "life_base" if losers[0] in gone else "deck_out"  # 210.8, 106.3
            m._ended(winner=other(losers[0]), reason=reason, line=self.line)
        elif d["_version"] == version:
            self._settled = version

    def _leave_play(self, dot: str, cause: str) -> None:
        e = self.m.dots.get(dot)
        if e is not None:
            self.m._destroyed(dot=dot, uid=e["uid"], code=e["code"], cause=cause, line=self.line)

    def _start_dot(self, dot: str) -> None:
        """601.5: a summon moved or placed onto a Starting Dot not its controller's is destroyed."""
        e = self.m.dots.get(dot)
        if e is not None and self.board.dots[dot].is_start and dot != self.m.p[e["ctrl"]]["home"]:
            self._leave_play(dot, "601.5")

    # ------------------------------------------------------------------ phases and priority
    def _running(self) -> None:
        if self.m.turn == 0:
            self.fail("700.1", f"{self.m.phase if self.m.phase != 'setup' else 'no'} turn under way: "
                               f"a turn record comes first", fatal=True)
        if self.m.phase == "over":
            self.fail("700.1", f"turn {self.m.turn} has ended: a turn record comes first", fatal=True)

    def _leave_draw(self) -> None:
        """The Draw Phase ends (the active player acts, or both pass). Without its draw (702.1): the draw was made,
        the log left it out, so the card drawn is in the hand, unknown (``CardDrawn`` of ``HIDDEN``, after the phase:
        no draw of it that the state counts, so a draw logged late is the turn's, ``do_draw``), its code still in the
        deck the state keeps (``deck_count`` counts it out): the hand and deck counts, 502.5 at the `end` and 106.3
        at the next turn count it at once; the record that first uses it names it (``_from_unknown``). (digest.8: the
        card stayed in the deck until then, the hand a card short: 502.5 for a right discard and none for a missing
        one, the deck-out a turn late, and every seat's counts a card off.)"""
        m = self.m
        if m.phase == "draw":
            missed = m.drawn == 0 and self.drew != m.turn
            if missed:
                self.fail("702.1", f"{m.active} leaves the Draw Phase without drawing 1 card", player=m.active)
                self.missed[m.active] = self.missed.get(m.active, 0) + 1
            m._phase_entered(phase="action", line=self.line)
            if missed:
                m._drawn(player=m.active, card=HIDDEN, line=self.line)

    def _action_phase(self, rule: str, what: str, stackable: bool = False) -> None:
        """Table 1 (201.7): the Action Phase of the active player; passes that close the Draw
        Phase may be left out. A ``stackable`` action after the End Phase ended is 704.6's (``_stackable``)."""
        m = self.m
        if m.phase == "draw" and not m.stack and self.by == m.active:
            self._leave_draw()
        if m.phase != "action" and not (stackable and m.phase == "closed"):
            self.fail(rule, f"{what} {_PHASE_NAME.get(m.phase, 'outside the Action Phase')}: only in the Action Phase")

    def _stackable(self, what: str, phased: bool = False) -> None:
        """201.3: only the priority holder announces a stackable action; 702.2: in the Draw Phase
        only triggers; 704.6: nothing after the End Phase ended.

        ``phased``: the record's own clause says in which phases it is made (206.1a, 206.2a for a cast, Table 1,
        201.7, for a move or attack) and was checked: a record of it in the Draw Phase is that clause's finding
        only, not 702.2 as well (the same fact, two findings: digest.8)."""
        m = self.m
        if m.phase == "draw" and m.stack == [] and self.by == m.active:
            self._leave_draw()
        if m.phase == "draw" and not phased:
            self.fail("702.2", f"{what} in the Draw Phase, where only triggers may be announced")
        if m.phase == "closed":
            self.fail("704.6", f"{what} after the End Phase ended (everyone passed)", fatal=True)
        if self.by != m.prio and self.repeat is not None:
            # the record just before, logged twice (digest.8: applied again, it was 201.3 and then the summon activated
            # 202.2b, the energy spent 200.5, the card not in hand 200.1a, and at the end of the turn 703.7, as it
            # stayed on the stack): skipped
            self.fail("201.3", f"{self.by} announces {what} without priority ({m.prio} has it): the same record as "
                               f"line {self.repeat}, logged twice (skipped)", fatal=True)
        if self.by != m.prio:
            self.fail("201.3", f"{self.by} announces {what} without priority ({m.prio} has it)")

    def _active(self, rule: str, what: str, fatal: bool = False) -> None:
        if self.by != self.m.active:
            self.fail(rule, f"{self.by} {what} in {self.m.active}'s turn: only the active player may", fatal=fatal)

    def _after_passes(self) -> None:
        """201.5: all players passed in a row: the top of the stack resolves, or the phase ends."""
        m = self.m
        if m.passes < 2:
            return
        if m.stack:
            self._resolve()
        elif m.phase == "draw":
            self._leave_draw()
        elif m.phase == "action":
            m._phase_entered(phase="end", line=self.line)  # 703.7; priority to the reactive player, 704.1
        elif m.phase == "end":
            m._phase_entered(phase="closed", line=self.line)  # 704.6

    # ------------------------------------------------------------------ energy helpers
    def _reserve(self, player: str) -> tuple[int, dict]:
        """Energy the player's reactivated crystals could still add (open question 14)."""
        wild, extra = 0, {}
        for p in self.m.perms:
            if p["kind"] == "crystal" and p["ctrl"] == player and not p["act"]:
                alts = self.card(p["code"]).produces
                if len(alts) == 1:
                    extra = checks.add(extra, alts[0])
                elif alts:
                    wild += max(sum(a.values()) for a in alts)
        return wild, extra

    def _pay(self, cost: dict, pay: dict, under_rule: str = "200.5") -> bool:
        """Check a payment; True when the action goes ahead, False when it fails for want of energy.

        A payment that is proper and within the pool is paid whatever the crystals could still add
        (``checks.payment`` asks the reserve only of one that is not): the reserve is looked for
        only then."""
        pool = self.m.p[self.by]["pool"]
        pay = pay or {}
        if checks.paid_properly(cost, pay, pool):
            return True
        wild, extra = self._reserve(self.by)
        result, problem = checks.payment(cost, pay, pool, wild=wild, extra=extra, under_rule=under_rule)
        self.check(problem)
        return result == checks.PAID

    # ------------------------------------------------------------------ setup (105)

    def _life_base(self, deck: Any) -> str | None:
        """The Life Base Card a deck list sets up (105.2a): its one, or, in a deck of several (101.1a), the lowest
        code: whatever order the header lists the deck in (it was the first in that order, and a stored match,
        whose header is kept with its keys sorted, was audited with another one: QA round 32)."""
        return min((c for c in set(deck) if self.card(c).is_life_base), default=None)

    def do_setup(self, r: dict) -> None:
        m, pl, board = self.m, self.by, self.board
        z = m.p[pl]
        if m.turn > 0:
            self.fail("700.1", "setup after the game began", fatal=True)
        if z["ready"]:
            self.fail("105.2a", f"{pl} is already set up", fatal=True)
        opp = m.p[other(pl)]
        if not opp["ready"] and pl != self.first:
            # the header's mistake or this record's: judged at the first record after the setups (_settle_first)
            self.swap = (self.line, pl)
        # digest.8: a setup the state can apply is applied as played, one that places no Life Base is applied without
        # it (the hand dealt, the player set up): it was skipped, and the other player's legal setup was 105.2a, every
        # turn 'a turn before both players set up' and each record 700.1 'no turn under way' (153 findings)
        dot = r["dot"]
        # the second Life Base opposes the first (105.2b): a setup naming a dot that is not a free Starting Dot is
        # placed there, as it has to be (digest.8: placed as played, or not at all, and each later record of the
        # player's Starting Dot was charged: a summon cast there 402.6, his Life Base moved from there 202.2, targeted
        # there 401.2a ...)
        home = opp["home"] if opp["ready"] and opp["home"] in board and board.dots[opp["home"]].is_start else None
        due = board.opposite.get(home) if home else None
        if due in m.dots:
            due = None
        fix = f"; placed on {due}, the Starting Dot opposing {other(pl)}'s {home} (105.2b)" \
            if due and dot != due else ""
        if dot not in board:
            self.fail("105.2a", f"{dot} is not a Starting Dot of board {board.name} (not a dot of it: "
                                f"{'no Life Base is placed' if not fix else 'the Life Base is not placed there'}){fix}")
            dot = None
        else:
            start, taken = board.dots[dot].is_start, dot in m.dots
            if not start:  # (on the board: the Life Base is placed there, as played, unless 105.2b says where)
                self.fail("105.2a", f"{dot} is not a Starting Dot of board {board.name}{'' if taken else fix}")
            if taken:
                what = "the Life Base is not placed there" if fix else "no Life Base is placed"
                self.fail("105.2a", f"{'Starting Dot ' if start else ''}{dot} is taken by {m.dots[dot]['ctrl']}'s "
                                    f"Life Base ({what}){fix}")
                dot = None
            elif start and fix:  # (105.2b: both on Starting Dots; which is wrong the log does not say: as played)
                self.fail("105.2b", f"{dot} does not oppose {other(pl)}'s Starting Dot {home} (opposite: {due})")
                fix = ""
        if fix:
            dot = due
        if self.swap == (self.line, pl) and any((v.rule, v.player) == ("105.2a", pl) for _, v in self._pending):
            # the setup wrong in itself (its dot): the order is its finding too, the header not doubted (one finding)
            self.swap = None
            self._order_finding(pl)
        lb = self._life_base(z["deck"])
        if lb is None:  # (101.1b in Limited play: the header's format, as the deck check cites it)
            rule = "101.1b" if (m.header.get("format") or "constructed") == "limited" else "101.1a"
            self.fail(rule, f"{pl}'s deck has no Life Base Card")
        deck = list(z["deck"])
        if lb is not None:
            deck.remove(lb)  # (105.3a: the hand is drawn without it)
        if lb is None or dot is None:  # no Life Base in play (its card stays in the deck): none to lose (210.8, settle)
            self.unplaced.add(pl)
            lb = None
        hand = list(r["hand"])
        if len(hand) != 7:
            self.fail("105.3a", f"the initial hand has {len(hand)} cards, needs 7")
        # a card not in the deck is reported and left out of the hand, the rest of the setup applied as
        # logged (digest.4: it was fatal, the setup skipped, and every later record found no setup)
        hand, lost = _drawable(deck, hand)
        if lost:
            self.fail("105.3a", f"{', '.join(lost)} not in {pl}'s deck (the hand is drawn from it)")
        size, pool, murphy = len(r["hand"]), deck, []
        for i, again in enumerate(r.get("murphy") or []):
            size -= 1
            if size < 0:  # (it said "needs -1")
                self.fail("105.4", f"Murphy's Law hand {i + 1} follows an empty hand: the option is taken only "
                                   f"while {pl} has cards in his hand (each new hand is one card smaller)")
            elif len(again) != size:
                self.fail("105.4", f"Murphy's Law hand {i + 1} has {len(again)} cards, needs {size}")
            kept, lost = _drawable(pool, again)
            if lost:
                self.fail("105.4", f"{', '.join(lost)} not in {pl}'s deck after shuffling the hand back")
            murphy.append(kept)
            size = len(again)
        card = self.card(lb) if lb is not None else None
        m._set_up(player=pl, dot=dot, life_base=card and {"code": lb, "stats": card.stats(), "cls": card.cls,
                                                          "counters": dict(card.counters)},
                  hand=hand, murphy=murphy, rec=self._carry(), line=self.line)

    def _order_finding(self, pl: str) -> None:
        """105.2a: ``pl``'s setup (the record under way, ``line``) is logged before the starting player's (the one
        finding of it, merged first into the record's other 105.2a findings)."""
        message = f"{self.first} (the starting player) places his Life Base first"
        for i, (k, v) in enumerate(self._pending):
            if (v.rule, v.player) == ("105.2a", pl):
                v = Violation(v.line, v.turn, v.player, v.rule, f"{message}; {v.message}")
                self._pending[i] = (k, v)
                self.found[k] = v
                break
        else:
            self.fail("105.2a", message)
        self.preceded = True

    # ------------------------------------------------------------------ turns (700-704)
    def _late_turn(self) -> bool:
        """Whether a `turn` record now is the one of the turn a record of its player began (``_infer_turn``), logged
        after it (the two swapped)."""
        m = self.m
        return self.inferred == (m.turn, self.by) and m.phase not in ("setup", "over", "ended")

    def do_turn(self, r: dict) -> None:
        m = self.m
        if self._late_turn():
            # the turn's 700.1 is the record that began it (digest.8: this one then ended that turn, 700.1 'has not
            # ended' and 'belongs to' the other player, and began the next, whose records were 702.1 ...): nothing more
            self.inferred = None
            m._late(player=self.by, discard=[], rec=self._carry(), line=self.line)
            return
        if self.repeat is not None and self.by == m.active and m.phase not in ("setup", "over"):
            # the `turn` record just before, logged twice (digest.8: it ended the turn it began, and began the next)
            self.fail("700.1", f"turn {m.turn} has begun: the same record as line {self.repeat}, logged twice "
                               f"(skipped)", fatal=True)
        for pl in ("P1", "P2"):
            if not m.p[pl]["ready"]:
                self._implied_setup(pl)
        if m.phase not in ("setup", "over"):
            # the `end` left out: the turn ends here, its player's finding (the record he left out), discarding down to
            # the hand limit (502.5) cards of his hand unknown which (HIDDEN in his Discard Pile, ``hand_count``)
            # (digest.8: the record was skipped, the turn went on, and every record of the new turn was charged, 702.1,
            # 403.2, 700.1 at its `end`...; then it discarded nothing, the hand a card too many for every seat, and the
            # right discard of his next `end` was 502.5; and the 700.1 was charged to the next turn's player)
            excess = max(0, hand_count(m.p[m.active]) - HAND_LIMIT)
            what = (f"discarding {excess} card{'s' if excess > 1 else ''} of his hand down to {HAND_LIMIT} (502.5), "
                    f"unknown which") if excess else "nothing discarded"
            self.fail("700.1", f"turn {m.turn} has not ended (an end record comes first): it ends here, {what}",
                      player=m.active)
            self.closed = (m.turn, m.active, self.line)
            self._end_turn([HIDDEN] * excess, None)
        expected = self._next_player()
        if self.by != expected:
            # begun as his (digest.8: as the record's player's, and each record of the turn's player was charged: 702.1,
            # 403.2, 201.7, 700.1 at his `end` and at the next `turn`)
            self.fail("700.1", f"turn {m.turn + 1} belongs to {expected}, not {self.by} (begun as {expected}'s)")
            self.by = expected
        m._turn_started(turn=m.turn + 1, player=self.by, rec=self._carry(), line=self.line)
        self._turn_begun()

    def _implied_setup(self, pl: str) -> None:
        """The first `turn` before ``pl`` set up (his setup left out): 105.2a once, and he is set up here, his Life Base
        on the Starting Dot opposing the other player's (105.2b; none placed when that is not known), his 7 cards
        unknown (``unknown``: 7 ``HIDDEN`` cards in his hand, which the deck the state keeps still lists; the views and
        106.3 count them out of it, ``deck_count``, and a card he later plays from them replaces one,
        ``Match._from_hand``). The starting player's, after the other player's setup was 105.2a for it ('places his
        Life Base first'), is no second finding.
        (digest.8: the turn was refused, 'a turn before both players set up', and every record after it was 700.1 'no
        turn under way': over 100 findings; then his hand was empty, so his hand and deck counts were 7 off, and the
        starting player's setup left out was 105.2a twice.)"""
        m, board = self.m, self.board
        z, opp = m.p[pl], m.p[other(pl)]
        dot = board.opposite.get(opp["home"]) if opp["ready"] and opp["home"] else None
        if dot in m.dots:
            dot = None
        lb = self._life_base(z["deck"])
        where = f"on {dot}, the Starting Dot opposing {other(pl)}'s (105.2b)" if dot and lb else "nowhere (not known)"
        if not (pl == self.first and self.preceded):
            self.fail("105.2a", f"{pl} has no setup before the first turn: set up here, his Life Base {where}, his hand "
                                f"of 7 cards unknown", player=pl)
        if lb is None or dot is None:
            self.unplaced.add(pl)
            lb = dot = None
        card = self.card(lb) if lb is not None else None
        self.unknown[pl] = 7
        m._set_up(player=pl, dot=dot, life_base=card and {"code": lb, "stats": card.stats(), "cls": card.cls,
                                                          "counters": dict(card.counters)},
                  hand=[HIDDEN] * 7, murphy=[], line=self.line)

    def _from_unknown(self, pl: str, code: str, pending: list[str] | None = None) -> bool:
        """Whether ``code``, not in ``pl``'s hand as the state knows it, is one of its unknown cards (one less now):
        of a setup left out (``unknown``: the event that takes it from the hand takes it from the deck instead, for one
        of the hand's ``HIDDEN`` cards), or the card of a draw left out (``missed``: known now, ``CardDrawn`` with
        ``unknown`` at this record, no finding: it takes the place of the ``HIDDEN`` card ``_leave_draw`` put in the
        hand and leaves the deck's list; digest.8: the card drawn was played, and was 200.1a or 200.1b 'not in hand',
        and its effect 503.1, one more finding each; then it stayed in the deck). ``pending``: the codes this record
        has already taken as unknown cards of a setup left out, still in the deck until its event (this one is
        added)."""
        pending = [] if pending is None else pending
        for pool in (self.unknown, self.missed):
            if pool.get(pl) and self.m.p[pl]["deck"].count(code) > pending.count(code):
                pool[pl] -= 1
                if pool is self.missed:
                    self.m._drawn(player=pl, card=code, rec=self._carry(), line=self.line, unknown=True)
                else:
                    pending.append(code)
                return True
        return False

    def _discards(self, pl: str, discard: list[str]) -> tuple[list[str], list[str]]:
        """``discard`` (an `end`'s, 502.5) split into the cards that leave ``pl``'s hand, each copy once: the ones it
        holds, then the ones taken as its unknown cards (``_from_unknown``), and the ones it does not hold."""
        held, rest = _drawable(self.m.p[pl]["hand"], discard)
        pending: list[str] = []
        lost = [c for c in rest if not self._from_unknown(pl, c, pending)]
        return held + pending, lost

    def _next_player(self) -> str:
        """Whose the next turn is (700.1, 700.2: the starting player's first, then as ``extra_turn`` and
        ``skip_turn`` effects queued them, else the other player's)."""
        m = self.m
        return self.first if m.turn == 0 else (m.turns_queue[0] if m.turns_queue else other(m.active))

    def _infer_turn(self) -> None:
        """A record of the next turn's player after an ``end`` (or after the setups, the starting player's), its
        ``turn`` record left out: 700.1 once, and the turn begins here, then the record is judged in it (digest.8: the
        turn was not begun, so each record of it was 700.1 'turn N has ended', or 'no turn under way' before the first,
        and the `turn` record after its `end` 'belongs to' the other player). A ``turn`` record later is the next
        turn's, counted from this one."""
        m = self.m
        m._turn_started(turn=m.turn + 1, player=self.by, line=self.line)
        self.inferred = (m.turn, self.by)
        self._turn_begun()
        after = f"turn {m.turn - 1}'s end" if m.turn > 1 else "the setups"
        self.fail("700.1", f"turn {m.turn} begins without a turn record (it comes after {after}): begun here, as "
                           f"{self.by}'s", fatal=m.outcome is not None)

    def _turn_begun(self) -> None:
        """209.2f and 106.3 when a turn begins."""
        m = self.m
        for dot, e in list(m.dots.items()):  # 209.2f (open question 20): at once
            if e["counters"].get("time", 1) <= 0:
                self._leave_play(dot, "209.2f")
        for p in list(m.perms):
            if p["counters"].get("time", 1) <= 0:
                m._perm_left(uid=p["uid"], code=p["code"], cause="209.2f", line=self.line)
        if deck_count(m.p[self.by]) <= 0:  # 106.3: the draw of 702.1 is due from an empty deck (the unknown cards of
            # a setup or a draw left out, listed in the deck the state keeps, are in the hand: digest.8, it found no
            # deck-out, or a turn late)
            m._ended(winner=other(self.by), reason="deck_out", line=self.line)

    def do_draw(self, r: dict) -> None:
        m = self.m
        self._running()
        if self.by != m.active and not m.drawn and self.drew != m.turn and r["card"] in m.p[m.active]["deck"]:
            # the turn's draw, still to be made, of a card of the active player's deck, under the other seat: the
            # active player's draw, its seat mistaken (digest.8, as Z/X takes it and as an `end` by the other player is
            # the active player's end: it was refused, and the active player's next record was 702.1 again)
            self.fail("702.1", f"{self.by} draws in {m.active}'s turn, where only {m.active} draws: the draw record "
                               f"is taken as {m.active}'s ({r['card']} is in {m.active}'s deck)")
            self.by = m.active
        if self.by != m.active:
            self.fail("702.1", "a draw record belongs to the active player's Draw Phase", fatal=True)
        if m.drawn >= 1 or self.drew == m.turn:  # (after the Draw Phase, which ended with the first, 702.3: applied,
            # as it was right after it; after a refused draw of a card not in the deck, 212.1, which was the turn's)
            if self.repeat is not None:
                # the record just before, logged twice (it was applied: a second card into the hand, so the hand was
                # one card over at the end, 502.5, and a card the deck no longer held was 212.1 at a later draw):
                # skipped
                self.fail("702.1", f"{self.by} draws a second card this turn: the same record as line {self.repeat}, "
                                   f"logged twice (skipped)", fatal=True)
            self.fail("702.1", f"{self.by} draws a second card this turn (the Draw Phase's draw is exactly 1)")
        # else after the record that left the Draw Phase without a draw, which was its 702.1 (_leave_draw): the turn's
        # draw made late, applied as played with no second finding (digest.8: it was refused as 'a draw record belongs to
        # the active player's Draw Phase', and the hand was one card short at the end, 502.5)
        late = m.phase != "draw" and not m.drawn and self.drew != m.turn
        if r["card"] not in m.p[self.by]["deck"]:
            # the draw was made, of no card the engine knows (digest.8): leaving the phase is no 702.1 (it was, at the
            # next record: the same mistake twice), a second draw is one
            self.drew = m.turn
            self.fail("212.1", f"{r['card']} is not in {self.by}'s deck (a card is drawn from the top of the deck)",
                      fatal=True)
        # the draw left out made late: its card, unknown in the hand since (_leave_draw), is known
        known = late and bool(self.missed.get(self.by))
        m._drawn(player=self.by, card=r["card"], rec=self._carry(), line=self.line, unknown=known)
        if late:
            self.drew = m.turn  # (the state counts only a draw in the Draw Phase: a second late one is 702.1)
            if known:
                self.missed[self.by] -= 1
        self._draw_phase_over()

    def _draw_phase_over(self) -> None:
        """702.3: the Draw Phase "ends when the active player has drawn the card and all triggered effects and
        triggered abilities have been resolved": the Action Phase begins, priority to the active player (703.1).
        (digest.8: the Draw Phase lasted until both passed or the active player acted, so the reactive player's
        answer to the active player's pass was 702.2 and 206.2a, and the two passes after the draw closed the Draw
        Phase, where they close the Action Phase.)"""
        m = self.m
        if m.phase == "draw" and m.drawn and not m.stack:
            m._phase_entered(phase="action", line=self.line)

    def do_pass(self, r: dict) -> None:
        m = self.m
        self._running()
        if m.phase == "closed":
            self.fail("704.6", "a pass after the End Phase ended (everyone passed)", fatal=True)
        stray, self.stray = self.stray, None
        if self.by != m.prio and stray == self.by:
            # his second pass in a row without priority: the first was the priority holder's, its seat mistaken
            # (digest.8: it did nothing, and this legal one was 201.3 again), so it is that pass now
            m._passed(player=m.prio, line=self.line)
            self._after_passes()
        if self.by != m.prio:
            self.stray = self.by
            self.fail("201.3", f"{self.by} passes without priority ({m.prio} has it)", fatal=True)
        m._passed(player=self.by, rec=self._carry(), line=self.line)
        self._after_passes()
        if stray is not None and stray != self.by and m.prio == stray and m.passes == 1:
            # the pass without priority just before, of the player who has it now: the two logged in the wrong order
            # (digest.8: it did nothing, and the stack stayed unresolved, the phase open); his pass now
            m._passed(player=stray, line=self.line)
            self._after_passes()

    def do_end(self, r: dict) -> None:
        m = self.m
        self._running()
        pl = m.active
        if self.closed is not None and self.closed[:2] == (m.turn - 1, self.by) and self.by != pl:
            # the `end` of the turn a `turn` record ended early (700.1 there, nothing discarded), logged after it: that
            # turn's, late (digest.8: it was applied as the new turn's end, and each record after it was 700.1; then a
            # second 700.1, skipped, its discards kept in the hand): its discards leave the hand (502.5), nothing else
            # A card the hand does not hold as the state knows it is one of its unknown cards (a setup or a draw left
            # out, as at an `end` in time: it was dropped, the card left in the deck); one it does not hold at all is
            # 502.5 once, nothing discarded for it (it was dropped without a word)
            self.closed = None
            kept, lost = self._discards(self.by, list(r.get("discard") or []))
            if lost:
                self._not_in_hand(self.by, lost)
            m._late(player=self.by, discard=kept, rec=self._carry(), line=self.line)
            return
        if self.by != pl:
            # applied as the active player's end (digest.8, as digest.7 applied an `end` with a discard not in the hand):
            # it was skipped, the turn went on, and every record of the next turn was charged (700.1, 702.1, 502.5)
            self.fail("700.1", f"{self.by} ends {pl}'s turn: the active player ends his turn (applied as {pl}'s end)")
        if m.stack:
            rule = "704.6" if m.phase in ("end", "closed") else "703.7"
            self.fail(rule, f"the turn ends with {len(m.stack)} action(s) on the stack")
        if m.phase == "draw":
            self._leave_draw()
        z = m.p[pl]
        discard = list(r.get("discard") or [])
        # (the hand holds the unknown cards of a setup or a draw left out, HIDDEN: counted for 502.5; a discard showing
        # the card of a draw left out makes it known, _from_unknown)
        lost = self._discards(pl, discard)[1]
        kept = len(discard) - len(lost)
        unnamed = []
        for c in lost:  # a card of the deck list, while the hand holds a card for it: discarded as written (digest.9)
            # (the deck the state keeps still lists the cards this `end` takes as unknown cards of the hand)
            taken = discard.count(c) - lost.count(c) - min(z["hand"].count(c), discard.count(c))
            if z["deck"].count(c) - taken > unnamed.count(c) and hand_count(z) - kept > len(unnamed):
                unnamed.append(c)
        if unnamed:
            self.fail("502.5", f"{', '.join(unnamed)} not in {pl}'s hand: discarded as written, for "
                               f"{'a card' if len(unnamed) == 1 else 'cards'} of the hand the log does not name")
        lost = _missing(unnamed, lost)
        if lost:  # (digest.7: the rest of the `end` is applied, the turn ends; it skipped the whole record)
            self._not_in_hand(pl, lost)
        held = hand_count(z)
        if self.lost_crystal is not None and self.lost_crystal[:2] == (m.turn, pl):
            held -= 1  # the crystal cast for a card that is no crystal, its energy not added: one of the hand's (200.1b)
        need = max(0, held - HAND_LIMIT)
        # the unknown cards of a setup left out may be fewer than 7 (105.4: Murphy's Law, each time one card fewer):
        # a count resting on them is no finding (digest.8: a setup left out with Murphy's Law was 502.5 at a right
        # discard)
        fewest = max(0, held - self.unknown.get(pl, 0) - HAND_LIMIT)
        if not fewest <= len(discard) <= need:
            self.fail("502.5", f"{pl} holds {held} cards and discards {len(discard)}: "
                               f"down to {HAND_LIMIT} means {need}")
        self._end_turn(discard, self._carry(), unnamed)

    def _not_in_hand(self, pl: str, lost: list[str]) -> None:
        """502.5: an `end` discards ``lost``, which ``pl`` does not hold (nothing is discarded for them)."""
        self.fail("502.5", f"{', '.join(lost)} not in {pl}'s hand: nothing is discarded for "
                           f"{'it' if len(lost) == 1 else 'them'} (the active player discards from his hand)")

    def _end_turn(self, discard: list, rec: dict | None, unnamed: list | None = None) -> None:
        """The active player's turn ends (``discard``: the cards he discards, 502.5; ``unnamed``: those of them his
        hand does not list, discarded as written for cards of it the log does not name, digest.9), then 602.5: Non Life
        Base summons on Ending Dots are destroyed."""
        self.inferred = None
        self.m._turn_ended(player=self.m.active, discard=discard, rec=rec, line=self.line, unnamed=unnamed or None)
        for dot, e in list(self.m.dots.items()):
            if self.board.dots[dot].is_end and not e["life"]:
                self._leave_play(dot, "602.5")

    def do_concede(self, r: dict) -> None:
        self.m._conceded(player=self.by, rec=self._carry(), line=self.line)
        self.m._ended(winner=other(self.by), reason="concede", line=self.line)  # 106.3

    def do_result(self, r: dict) -> None:
        m = self.m
        winner, reason = r.get("winner"), r.get("reason")
        if self.result_line is not None:  # the one record allowed after the end is the result, once
            self.fail("106.1b", f"a second result record after the game has ended (the result is at line "
                                f"{self.result_line})", fatal=True)
        if m.outcome is None and reason == "time" and winner is None:
            m._ended(winner=None, reason="time", line=self.line)  # 106.1a: a time-limit draw
        elif m.outcome is None and reason == "deck_out" and winner in ("P1", "P2"):
            why = self._short_draw(other(winner))
            if why is None:  # 106.3: the log says the effect draw just before came short (the engine reads no card text)
                m._ended(winner=winner, reason="deck_out", line=self.line)
            else:
                self.fail("106.1b", f"result {winner} (deck_out) but the game has not ended: {why}")
        elif m.outcome is None:
            self.fail("106.1b", f"result {winner or 'none'} ({reason}) but the game has not ended")
        elif (winner, reason) != (m.outcome["winner"], m.outcome["reason"]):
            self.fail("106.1b", f"result {winner or 'none'} ({reason}) disagrees with the engine: "
                                f"{m.outcome['winner'] or 'none'} ({m.outcome['reason']}){self._unstated_draw()}")
        if m.outcome is not None:  # (an early result ends nothing: the game's own result is still to come)
            self.result_line = self.line
        m._result(winner=winner, reason=reason, rec=self._carry(), line=self.line)

    def _unstated_draw(self) -> str:
        """The words a `result` disagreeing with the engine gets when the record before it is an effect draw without a
        ``due`` that left the deck of the player the engine has as the winner empty: a loss of his the log may have
        meant (106.3), which the engine could not count with the resolution's other losses (choice 20), else ""."""
        m, before = self.m, self.draw_before
        if before is None or before[2] is not None or m.outcome is None or m.outcome["winner"] != before[1] \
                or deck_count(m.p[before[1]]) > 0:
            return ""
        return (f" (the effect draw at line {before[0]} left {before[1]}'s deck empty: a draw that came short of it is "
                f"stated by its `due`, the cards owed, and then loses with the resolution's other losses, 106.3)")

    def _short_draw(self, loser: str) -> str | None:
        """Why a `deck_out` result naming ``loser`` as the loser, the game running, states no loss (None: it does).
        106.3: a player loses when he must draw and his deck has no card left. The engine deals the Draw Phase's draw
        itself (``_turn_begun``) but reads no card text, so it cannot know that an effect's draw was owed more cards
        than its record lists: a `deck_out` result right after an effect draw of the loser's that left his deck empty
        is the log's word that the draw came short, the loss applied there (digest.12; an effect draw's ``due`` says it
        at the draw itself). Anything else stays refused, with these words."""
        left = deck_count(self.m.p[loser])
        if left > 0:
            return (f"{loser}'s deck holds {left} card{'s' if left != 1 else ''} (106.3: a player loses when he must "
                    f"draw and his deck is empty)")
        before = self.draw_before
        if before is None or before[1] != loser:
            return (f"{loser}'s deck is empty, but the record before is no effect draw of his that came short (106.3: "
                    f"he loses when a draw is due from it: his next Draw Phase, or an effect's draw logged just "
                    f"before the result)")
        line, _, due, drawn = before
        if due is not None and drawn >= due:
            return f"the effect draw at line {line} drew the {due} card{'s' if due != 1 else ''} due (its `due`)"
        return None

    # ------------------------------------------------------------------ energy (203, 403)
    def do_crystal(self, r: dict) -> None:
        m, code = self.m, r["card"]
        self._running()
        self._active("403.2", "casts an Energy Crystal Card")
        self._action_phase("201.7", "an Energy Crystal Card")
        if m.p[self.by]["crystal_cast"] and self.repeat is not None:
            # the record just before, logged twice (digest.8: applied again, it was 403.1 and took a second copy from
            # the hand, so a later cast of that card was 200.1b 'not in hand'): skipped, as a stackable one (201.3)
            self.fail("403.1", f"{self.by} already cast an Energy Crystal Card this turn: the same record as line "
                               f"{self.repeat}, logged twice (skipped)", fatal=True)
        if m.p[self.by]["crystal_cast"]:
            self.fail("403.1", f"{self.by} already cast an Energy Crystal Card this turn")
        card = self.card(code)
        unnamed = False
        if code not in m.p[self.by]["hand"] and not self._from_unknown(self.by, code):
            what = f"{code} is not in {self.by}'s hand (an Energy Crystal Card is cast from hand)"
            z = m.p[self.by]
            if not card.is_crystal and not z["crystal_cast"] and any(
                    c != HIDDEN and self.card(c).is_crystal for c in z["hand"]):
                # a card that is no crystal, for one of the crystals of the hand: which is known where the log first
                # adds its energy (``lost_crystal``, do_energy; digest.8: skipped, and that `energy` was 203.3, the
                # payment of its energy 200.5, each `end` a false 502.5 and later energy 206.1e)
                self.lost_crystal = (m.turn, self.by, dict(r.get("pay") or {}))
                self.fail("200.1b", f"{what}, and is no Energy Crystal Card ({card.type}): the crystal cast is one of "
                                    f"the hand's, known where its energy is first added", fatal=True)
            if not (card.is_crystal and self._unnamed(self.by, code)):
                self.fail("200.1b", what, fatal=True)
            self.fail("200.1b", f"{what}: {PLAYED_AS_WRITTEN}")
            unnamed = True
        if not card.is_crystal:
            a = "an" if card.type[0] in "AEIOU" else "a"  # (an Effect, an Energy Crystal Effect)
            self.fail("200.1b", f"{code} ({card.name}) is {a} {card.type} card: a crystal record casts only "
                                f"Energy Crystal Cards", fatal=True)
        pay = r.get("pay") or {}
        if not self._pay(card.cost, pay):
            self.m._failed(player=self.by, kind="crystal", pay=pay, rec=self._carry(), line=self.line)
            return
        m._crystal(player=self.by, card=code, pay=pay, counters=dict(card.counters), rec=self._carry(), line=self.line,
                   unnamed=unnamed)

    def _unnamed(self, pl: str, code: str) -> bool:
        """Whether ``code``, which a `cast` or `crystal` of ``pl`` names and his hand does not hold as the state knows
        it (nor as one of its unknown cards, ``_from_unknown``), could stand for a card of his hand the log does not
        name: his deck list holds it (the deck the state keeps) and his hand holds a card. Then the record is played as
        written, one finding (200.1a, 200.1b), the hand one card fewer (``Match._unnamed``), as Z/X plays a card of the
        deck list (301.1): digest.8 announced the cast as nothing, or skipped the crystal, and each later record of the
        summon or crystal was charged (202.2, 202.3 also to the other player, 203.3, 206.1e, and a false 502.5)."""
        z = self.m.p[pl]
        return code in z["deck"] and hand_count(z) > 0

    def do_energy(self, r: dict) -> None:
        m, code = self.m, r["crystal"]
        self._running()
        mine = [p for p in m.perms if p["code"] == code and p["ctrl"] == self.by]
        lost, self.lost_crystal = self.lost_crystal, None
        if lost is not None and lost[:2] == (m.turn, self.by) and not m.p[self.by]["crystal_cast"] \
                and all(p["act"] for p in mine) and code in m.p[self.by]["hand"] and self.card(code).is_crystal:
            # the crystal of a `crystal` record naming a card that is no crystal (200.1b, reported there): this one of
            # the hand, cast now, its energy then added (the record skipped there had no other effect)
            card = self.card(code)
            m._crystal(player=self.by, card=code, pay=lost[2], counters=dict(card.counters), rec=self._carry(),
                       line=self.line)
            mine = [p for p in m.perms if p["code"] == code and p["ctrl"] == self.by]
        elif lost is not None and lost[:2] == (m.turn, self.by):
            self.lost_crystal = lost  # (an energy of another crystal: it may still come)
        if not mine:
            self.fail("203.3", f"{self.by} controls no {code} in play (a crystal's energy flows into its "
                               f"controller's pool)", fatal=True)
        ready = [p for p in mine if not p["act"]]
        if not ready:
            self.fail("206.1e", f"every {code} of {self.by} is activated (it needs reactivation first)")
        crystal = (ready or mine)[0]
        alts = self.card(code).produces
        want = r.get("type")
        if not alts:
            self.fail("203.2a", f"{code} produces no energy", fatal=True)
        if want is None:
            if len(alts) > 1:
                self.fail("203.2a", f"{code} produces {' or '.join(''.join(a) for a in alts)}: name the type")
            alt = alts[0]
        else:
            alt = next((a for a in alts if want in a), None)
            if alt is None:
                self.fail("203.2a", f"{code} cannot produce {want} energy")
                alt = alts[0]
        etype = want if want in alt else next(iter(alt))
        m._energy(player=self.by, uid=crystal["uid"], type=etype, amount=alt[etype], rec=self._carry(), line=self.line)
        if crystal["counters"].get("activation", 1) <= 0:
            m._perm_left(uid=crystal["uid"], code=code, cause="209.2c", line=self.line)

    # ------------------------------------------------------------------ stackable actions
    def _target(self, card: Card, r: dict) -> dict | None:
        """200.3, 401.2a-401.5a: the declared target, resolved to what the engine follows."""
        m = self.m
        target = r.get("target")
        kind = card.targets
        if target is None:
            if kind is not None:
                self.fail("200.3", f"{card.name} ({card.type}) needs a target, declared when it is announced")
            return None
        if isinstance(target, dict):
            if kind is not None:
                self.fail(_TARGET_RULE[kind], f"{card.name} cannot target a player")
            return {"player": target.get("player")}
        # a target that is not there (digest.7): reported with the rule of the card's type (200.4 when the type
        # names none), the action applied as played; it fizzles when it resolves (200.4; it was skipped, 200.3, and
        # the other player's legal pass after it was charged, 201.3)
        if not is_code(target):
            e = m.dots.get(target)
            if e is None:
                self.fail(_TARGET_RULE.get(kind, "200.4"), f"no summon on {target} to target: {card.name} fizzles "
                                                           f"when it resolves")
                return {"dot": target, "uid": None, "gone": True}
            if kind in ("crystal", "effect"):
                self.fail(_TARGET_RULE[kind], f"{card.name} targets {'a crystal' if kind == 'crystal' else 'an Effect'}, "
                                              f"not the summon on {target}")
            if kind == "class" and e["cls"] != card.cls:
                self.fail("401.3a", f"{card.name} targets a {card.cls}, the summon on {target} is a {e['cls']}")
            return {"dot": target, "uid": e["uid"]}
        on = r.get("on")
        found = [p for p in m.perms if p["code"] == target and (on is None or _on_matches(m, p, on))]
        if not found and on is None and kind in (None, "effect"):
            # the glossary's "Effect": "Any type of Effect Card in play or on the stack" (digest.8: one cast and waiting
            # on the stack was "not in play", 401.5a, so a Dispel could not answer a Bullseye); the topmost copy: the
            # card fizzles if that has left the stack when the card resolves (208.5)
            cast = next((s for s in reversed(m.stack) if s["kind"] == "cast" and s.get("card") == target
                         and "Effect" in self.card(target).type), None)
            if cast is not None:
                return {"code": target, "uid": None, "entry": cast["id"]}
        if not found:
            self.fail(_TARGET_RULE.get(kind, "200.4"), f"no {target} in play to target: {card.name} fizzles when it "
                                                       f"resolves")
            return {"code": target, "uid": None, "gone": True}
        tkind = "crystal" if found[0]["kind"] == "crystal" else "effect"
        if kind in ("summon", "class") or (kind in ("crystal", "effect") and kind != tkind):
            self.fail(_TARGET_RULE[kind], f"{card.name} ({card.type}) cannot target {target} "
                                          f"({self.card(target).type})")
        return {"code": target, "uid": found[0]["uid"]}

    def do_cast(self, r: dict) -> None:
        m, code = self.m, r["card"]
        self._running()
        card = self.card(code)
        if card.is_crystal:  # (digest.7: applied as the crystal cast it is; it was skipped)
            self.fail("200.1b", f"{code} is an Energy Crystal Card: it is cast with a crystal record (non "
                                f"stackable; applied as one)")
            self.do_crystal(r)
            return
        if m.phase == "draw" and self.by == m.active and not m.stack:
            self._leave_draw()
        if card.permanent:
            # 206.1a: "only ... by the active player during the Action Phase": one clause, one finding for both
            # halves (a reactive player's permanent in the End Phase was 206.1a twice)
            wrong = [f"in {m.active}'s turn"] if self.by != m.active else []
            if m.phase not in ("action", "closed"):  # (after the End Phase ended: 704.6, _stackable)
                wrong.append(_PHASE_NAME.get(m.phase, "outside the Action Phase"))
            if wrong:
                self.fail("206.1a", f"{self.by} casts the permanent {card.name} {' and '.join(wrong)}: only the active "
                                    f"player, in his Action Phase")
        elif m.phase not in ("action", "end", "closed"):
            self.fail("206.2a", f"the non permanent {card.name} is cast outside the Action and End Phases "
                                f"({_PHASE_NAME.get(m.phase, m.phase)})")
        self._stackable(f"casting {card.name}", phased=True)
        unnamed = False
        if code not in m.p[self.by]["hand"] and not self._from_unknown(self.by, code):
            what = f"{code} is not in {self.by}'s hand (a card is cast from hand)"
            if not self._unnamed(self.by, code):
                self._void("200.1a", what, {"kind": "cast", "card": code}, r["pay"])
            self.fail("200.1a", f"{what}: {PLAYED_AS_WRITTEN}")
            unnamed = True
        entry: dict[str, Any] = {"id": self.line, "kind": "cast", "by": self.by, "card": code,
                                 "permanent": card.permanent}
        if card.is_summon:
            dot = r.get("dot")
            if dot is None or dot not in self.board:
                self._void("402.6", f"a summon is placed on a dot: {card.name} names {dot or 'none'}",
                           {"kind": "cast", "card": code}, r["pay"])
            home = m.p[self.by]["home"]
            if dot != home and not self.board.dots[dot].is_end:
                self.fail("402.6", f"{card.name} is placed on {dot}: only {self.by}'s Starting Dot {home} or an Ending "
                                   f"Dot" if home else f"{card.name} is placed on {dot}: only an Ending Dot ({self.by} "
                                                       f"has no Starting Dot: his setup named no free dot of the board)")
            # 600.5 is not checked here: 402.6 places the pawn when the cast has resolved, and a dot still
            # taken then fizzles the cast (200.4, _resolve); the dot is no target fixed at announcement (200.3)
            if self._controls_class(self.by, card.cls):
                self.fail("402.8", f"{self.by} already controls a summon of Class {card.cls}")
            entry["dot"] = dot
            entry["summon"] = {"stats": card.stats(), "cls": card.cls, "counters": dict(card.counters)}
        else:
            entry["counters"] = dict(card.counters)
        target = self._target(card, r)
        if target is not None:
            entry["target"] = target
        for key in ("choice", "additional"):
            if key in r:
                entry[key] = r[key]
        cost = checks.add(card.cost, card.additional_cost, int(r.get("additional") or 0))
        if unnamed:  # the cost is the card meant's, which the log does not name: the payment as logged, from the pool
            cost = dict(r["pay"] or {})
        if not self._pay(cost, r["pay"]):
            m._failed(player=self.by, kind="cast", pay=r["pay"], rec=self._carry(), line=self.line)
            return
        if unnamed:
            entry["unnamed"] = True
        m._announced(player=self.by, entry=entry, pay=r["pay"], rec=self._carry(), line=self.line)

    def _controls_class(self, player: str, cls: str) -> bool:
        return any(e["ctrl"] == player and e["cls"] == cls for e in self.m.dots.values())

    def _anytime(self, what: str) -> None:
        """Table 1: Effect activations and abilities by anyone in the Action and End Phases."""
        m = self.m
        if m.phase == "draw" and self.by == m.active and not m.stack:
            self._leave_draw()
        if m.phase not in ("action", "end", "closed", "draw"):
            self.fail("201.7", f"{what} outside the Action and End Phases")
        self._stackable(what)

    def do_activate(self, r: dict) -> None:
        m, code = self.m, r["effect"]
        self._running()
        self._anytime(f"activating {code}")
        on = r.get("on")
        mine = [p for p in m.perms if p["code"] == code and p["ctrl"] == self.by
                and (on is None or _on_matches(m, p, on))]
        if not mine:
            self._void("500.1", f"{self.by} controls no {code} in play",
                       {"kind": "activate", "card": code, "uid": None}, r["pay"])
        ready = [p for p in mine if not p["act"]]
        if not ready:
            self.fail("206.1e", f"{code} is activated: it cannot be used again until reactivated")
        perm = (ready or mine)[0]
        # 209.2a, 207.6, 403.4 (digest.7): reported, then applied as played (the permanent activated, the activation
        # on the stack, the payment spent as logged: there is no cost to check it against); they were skipped, and the
        # other player's legal pass after them was charged (201.3)
        if perm["counters"].get("activation", 1) <= 0:
            self.fail("209.2a", f"{code} has no activation left (its Activation Counter is 0)")
        card = self.card(code)
        effectless = card.activation_cost is None and not (card.is_crystal and card.abilities)  # nothing to activate
        if effectless and not card.is_crystal:
            self.fail("207.6", f"{card.name} has no activation symbol")
        elif effectless:
            # 403.4: a crystal is activated to release its effect, or its energy (which an `energy` record or a
            # payment does): an activation of one whose only effect is its energy was accepted, its effects too
            self.fail("403.4", f"{card.name} has no effect besides its energy: it is activated for its energy by "
                               f"an energy record or a payment")
        entry: dict[str, Any] = {"id": self.line, "kind": "activate", "by": self.by, "card": code,
                                 "uid": perm["uid"]}
        target = self._target(card, r) if "target" in r else None
        if target is not None:
            entry["target"] = target
        cost = checks.add(card.activation_cost or {}, card.additional_cost, int(r.get("additional") or 0))
        if not effectless and not self._pay(cost, r["pay"]):
            m._failed(player=self.by, kind="activate", pay=r["pay"], rec=self._carry(), line=self.line)
            return
        m._announced(player=self.by, entry=entry, pay=r["pay"], rec=self._carry(), line=self.line)

    def do_ability(self, r: dict) -> None:
        m, dot, kind = self.m, r["summon"], r["kind"]
        self._running()
        rule = "402.10f" if kind == "activated" else "402.10g"
        self._anytime(f"the {kind} ability of the summon on {dot}")
        e = m.dots.get(dot)
        if e is None or e["ctrl"] != self.by:
            self._void("500.1", f"{self.by} controls no summon on {dot}",
                       {"kind": "ability", "card": None, "uid": None, "ability": kind, "dot": dot}, r["pay"])
        card = self.card(e["code"])
        if kind not in card.abilities:  # (digest.7: applied as played, the payment as logged; it was skipped)
            self.fail(rule, f"{card.name} has no {kind} ability")
        if kind in e["abil"]:
            self.fail(rule, f"the {kind} ability of {card.name} was already used this turn (once per turn)")
        elif kind == "activated" and e["act"]:
            # 402.10f: "A summon with an activated ability ... can either be moved or its ability activated, since both
            # require the activation of the summon": a summon activated (by its movement, or before) uses no activated
            # ability until reactivated (digest.13: cited 206.1e, an activated permanent is not used again, which says
            # it of every permanent; 402.10f words this case, as it does the ability used twice, above)
            self.fail("402.10f", f"{card.name} is activated: it can either be moved or its activated ability "
                                 f"activated, both activating it (it needs it reactivated)")
        entry: dict[str, Any] = {"id": self.line, "kind": "ability", "by": self.by, "card": e["code"],
                                 "uid": e["uid"], "ability": kind}
        if "target" in r:
            entry["target"] = r["target"]
        if kind in card.abilities and not self._pay(card.abilities[kind], r["pay"]):
            m._failed(player=self.by, kind="ability", pay=r["pay"], rec=self._carry(), line=self.line)
            return
        m._announced(player=self.by, entry=entry, pay=r["pay"], rec=self._carry(), line=self.line)

    def do_trigger(self, r: dict) -> None:
        """207.4, 402.10h: a triggered effect or ability goes on the stack; it needs no priority
        (documented choice: it triggers, nobody chooses when) and is allowed in every phase."""
        m, src = self.m, r["source"]
        self._running()
        entry: dict[str, Any] = {"id": self.line, "kind": "trigger", "by": self.by, "source": src}
        if not is_code(src):
            e = m.dots.get(src)
            if e is None or e["ctrl"] != self.by:
                self._void("500.1", f"{self.by} controls no summon on {src}", {"kind": "trigger", "source": src})
            code, entry["uid"] = e["code"], e["uid"]  # (its summon: the trigger fizzles if it leaves play, 210.4)
        else:
            # a card in play the player controls, on the stack as his, or resolving (207.4: the triggered effect of
            # an Effect; 402.10h: of a summon): a code was never looked up, so a card in a hand, a deck or no deck
            # at all triggered, and its damage was dealt (503.1: a card there has no effect)
            code = src
            held = [x for x in (*m.perms, *m.dots.values()) if x["code"] == src and x["ctrl"] == self.by]
            stacked = any(s.get("card") == src and s.get("by") == self.by for s in m.stack)
            if len(held) == 1:  # (of several copies, which one triggered the log does not say: none fizzles it)
                entry["uid"] = held[0]["uid"]
            elif not held and not stacked and src != self.resolved:
                self._void("500.1", f"{src} is not in play, on the stack or resolving for {self.by}: a triggered "
                                    f"effect comes from a card there (207.4, 503.1)", {"kind": "trigger", "source": src})
        card = self.card(code)
        if card.type == "Summon" and "triggered" not in card.abilities:
            self.fail("402.10h", f"{card.name} has no triggered ability")  # (digest.7: on the stack as played)
        if "target" in r:
            entry["target"] = r["target"]
        if m.phase == "closed":
            # 704.6: the End Phase "ends when there is no stack and no player announces an action"; a trigger uses the
            # stack when it triggers (200.1a), in every phase (Table 1): the End Phase goes on until it has resolved
            # (digest.8: it went on the stack of a phase already over, and every pass to resolve it was 704.6)
            m._phase_entered(phase="end", line=self.line)
        m._announced(player=self.by, entry=entry, pay={}, rec=self._carry(), line=self.line)  # 201.4: priority to the next player

    # ------------------------------------------------------------------ movement and attack (202)
    def _own_summon(self, dot: str, what: str, rule: str, void: dict, pay: dict | None = None) -> tuple[dict, bool]:
        """The summon on ``dot`` and whether it is the other player's (``rule``: 202.2 to move, 202.3 to attack
        with, when there is none: the action ``void`` is announced as nothing, ``_void``). One the player does not
        control (214.2: the controller gets to use a card) is reported, and the action goes on the stack as played,
        naming no summon (digest.7): it changes nothing of the other player's summon, and fizzles when it resolves
        (214.5); it was skipped, and the other player's legal pass after it was charged (201.3)."""
        e = self.m.dots.get(dot)
        if e is None:
            self._void(rule, f"no summon on {dot} {what}", void, pay)
        foreign = e["ctrl"] != self.by
        if foreign:
            self.fail("214.2", f"the summon on {dot} is controlled by {e['ctrl']}, not {self.by}: only its "
                               f"controller uses it")
        return e, foreign

    def do_move(self, r: dict) -> None:
        m, board = self.m, self.board
        src, path = r["from"], list(r["path"])
        before = len(self.found)
        self._running()
        self._active("202.1", "moves a summon")
        self._action_phase("201.7", "a movement", stackable=True)
        self._stackable("a movement", phased=True)
        void = {"kind": "move", "uid": None, "from": src, "path": path}  # (what it is announced as when it names no summon)
        e, foreign = self._own_summon(src, "to move", "202.2", void, r["pay"])
        name = self.card(e["code"]).name
        if foreign:
            pass  # (its Summon Card's state is its controller's affair)
        elif e["deact"]:
            self.fail("202.4", f"{name} on {src} is deactivated: it cannot move until reactivated")
        elif e["act"]:
            self.fail("202.2b", f"{name}'s Summon Card is activated: it moves only when reactivated")
        for d in path:
            if d not in board:
                self._void("600.3", f"{d} is not a dot of board {board.name}", void, r["pay"])
        speed = stat(e, "speed")
        if len(path) > speed:
            self.fail("202.5c", f"{name} moves {len(path)} dots, its Speed is {speed}")
        full = [src] + path
        home = m.p[e["ctrl"]]["home"]
        for a, b in zip(full, full[1:]):
            self.check(checks.step_problem(board, a, b, life=e["life"], home=home, attack=False))
        self.check(checks.sharp(board, full))
        if path[-1] in m.dots and path[-1] != src:
            self.fail("600.5", f"{path[-1]} is occupied by {m.dots[path[-1]]['code']}")
        problem, trail, pos = checks.direction(board, e["trail"], e["pos"], e.get("via"), src, path, "move")
        self.check(problem)
        cost = self.card(e["code"]).move_cost
        if not self._pay(cost, r["pay"], under_rule="202.2a"):
            m._failed(player=self.by, kind="move", pay=r["pay"], rec=self._carry(), line=self.line)
            return
        entry = {"id": self.line, "kind": "move", "by": self.by, "uid": None if foreign else e["uid"], "from": src,
                 "path": path, "trail": trail, "pos": pos, "warp": any(board.is_warp(a, b) for a, b in zip(full, full[1:]))}
        if any(v.rule != "702.1" for v in self.found[before:]):  # (a missing draw is the Draw Phase's, not the move's)
            entry["illegal"] = True  # applied as played, but no successful movement: a Life Base wins nothing (602.2)
        m._announced(player=self.by, entry=entry, pay=r["pay"], rec=self._carry(), line=self.line)

    def do_attack(self, r: dict) -> None:
        m, board = self.m, self.board
        src, target, path = r["from"], r["target"], list(r["path"])
        self._running()
        self._active("202.1", "attacks")
        self._action_phase("201.7", "an attack", stackable=True)
        self._stackable("an attack", phased=True)
        void = {"kind": "attack", "uid": None, "from": src, "path": path, "target": None}
        e, foreign = self._own_summon(src, "to attack with", "202.3", void)
        name = self.card(e["code"]).name
        if e["deact"] and not foreign:
            self.fail("202.4", f"{name} on {src} is deactivated: it cannot attack until reactivated")
        if e["attacks"] >= 1 + e["extra_attacks"] and not foreign:
            self.fail("202.3b", f"{name} already attacked this turn (once per turn)")
        t = m.dots.get(target)
        if t is None:
            self._void("202.3", f"no summon on {target} to attack", void)
        if t["ctrl"] == self.by:
            self.fail("202.3", f"the summon on {target} is {self.by}'s own: an attack targets an opponent's summon")
        if not path or path[-1] != target:
            self._void("202.3", f"the attack path must end at the target {target}", void)
        if board.dots[src].no_attack:
            self.fail("603.2", f"{src} is a No Attack Dot: the summon there cannot attack")
        if board.dots[target].no_attack:
            self.fail("603.2", f"{target} is a No Attack Dot: the summon there cannot be attacked")
        full = [src] + path
        for d in path:
            if d not in board:
                self._void("600.3", f"{d} is not a dot of board {board.name}", void)
        for a, b in zip(full, full[1:]):
            self.check(checks.step_problem(board, a, b, life=e["life"], home=None, attack=True))
        inner = [d for d in path[:-1] if board.dots[d].warp]
        if inner:
            self.fail("604.4", f"the attack passes through the Warp Dot {inner[0]}")
        reach = stat(e, "range")
        if len(path) > reach:
            dots = f"{len(path)} dot{'' if len(path) == 1 else 's'}"  # ("1 dots away": QA round 32)
            self.fail("202.5d", f"{target} is {dots} away, {name}'s Range is {reach}")
        self.check(checks.sharp(board, full, what="attack path: "))
        problem, trail, pos = checks.direction(board, e["trail"], e["pos"], e.get("via"), src, path, "attack")
        self.check(problem)
        entry = {"id": self.line, "kind": "attack", "by": self.by, "uid": None if foreign else e["uid"], "from": src,
                 "path": path, "target": t["uid"], "trail": trail, "pos": pos}
        m._announced(player=self.by, entry=entry, pay={}, rec=self._carry(), line=self.line)

    # ------------------------------------------------------------------ resolution (201.5)
    def _resolve(self) -> None:
        m, board = self.m, self.board
        entry = m.stack[-1]
        kind, by = entry["kind"], entry["by"]
        facts: dict[str, Any] = {}
        outcome = "done"
        follow: list = []
        if entry.get("void"):  # digest.8: an announcement of nothing (_void) fizzles, nothing of it takes place
            outcome = "fizzled"
            self.resolved = entry.get("card") or entry.get("source") or entry.get("from") or entry.get("dot")
        elif kind == "cast":
            target = entry.get("target") or {}
            if entry.get("summon"):
                dot = entry["dot"]
                if dot in m.dots or self._controls_class(by, entry["summon"]["cls"]):
                    outcome = "fizzled"  # 200.4
                else:
                    facts["dot"] = dot
                    follow.append(("start", dot))
            elif self._target_gone(target):
                outcome = "fizzled"  # 208.5 (an Effect on the stack: it left it); 200.4 a target that was not there
            elif entry.get("permanent") and target.get("uid") is not None:
                facts["on"] = target["uid"]
            self.resolved = entry["card"]
        elif kind == "activate":
            p = m.perm(entry["uid"])
            if p is None or p["ctrl"] != by or self._target_gone(entry.get("target") or {}):
                # 200.7, 214.5; 208.5 "an Effect with an activated effect" whose target "isn't in play anymore when it
                # resolves" (digest.8: only a cast fizzled so; an activation took place on a target gone); 200.4 a
                # target that was not there
                outcome = "fizzled"
            follow.append(("spent", entry))  # 209.2c: resolved or prevented alike
            self.resolved = entry["card"]
        elif kind == "move":
            src, e = m.find(entry["uid"])
            if e is None or e["ctrl"] != by:
                outcome = "fizzled"  # 214.5
                follow.append(("spent", entry))  # 209.2c: prevented, as resolved
            else:
                to = src
                free = [d for d in entry["path"] if d not in m.dots or d == src]
                if entry["path"][-1] in free:
                    to = entry["path"][-1]
                elif free:
                    to = free[-1]  # 202.11: as far as possible along its path
                facts["to"] = to
                follow.append(("moved", to))
            self.resolved = entry["from"]
        elif kind == "attack":
            _, e = m.find(entry["uid"])
            _, t = m.find(entry["target"])
            if e is None or t is None:
                outcome = "fizzled"  # 210.4: the source must be in play
            else:
                facts["target"] = entry["target"]
                facts["damage"] = stat(e, "attack")  # 202.5a (open question 17)
            self.resolved = entry["from"]
        elif kind == "ability":
            dot = m.find(entry["uid"])[0]
            if dot is None:
                outcome = "fizzled"
            self.resolved = dot or entry["card"]  # (its summon, named by its dot, digest.8: it was the card's code)
        else:
            if entry.get("uid") is not None and not self._in_play(entry["uid"]):
                outcome = "fizzled"  # a trigger whose summon or card left play (210.4: its damage isn't dealt; 503.1)
            self.resolved = entry.get("source")
        if outcome == "fizzled":  # 208.5, 210.4, 503.1: its effect does not take place (a card is discarded)
            self.resolved, self.fizzled = None, self.resolved
        m._resolved(outcome=outcome, facts=facts, line=self.line)
        for what, arg in follow:
            if what == "start":
                self._start_dot(arg)
            elif what == "spent":
                self._spent(arg)
            elif what == "moved":
                e = m.dots.get(arg)
                self._start_dot(arg)
                if e is not None and arg in m.dots and e["counters"].get("activation", 1) <= 0:
                    self._leave_play(arg, "209.2c")
                # 602.2, 106.2: a Life Base that "successfully reaches" an Ending Dot (the glossary's "Successfully":
                # "without being prevented or illegal"; digest.8: a movement reported illegal, a warp, 604.2, won)
                if e is not None and e["life"] and board.dots[arg].is_end and m.dots.get(arg) is e \
                        and not entry.get("illegal"):
                    m._ended(winner=e["ctrl"], reason="ending_dot", line=self.line)
        self._draw_phase_over()  # 702.3: the last trigger of the Draw Phase resolved after the draw

    def _spent(self, entry: dict) -> None:
        """209.2c: a permanent or summon whose Activation Counter is at 0 goes to the Discard Pile directly
        after its activation or movement (``entry``) resolved, or was countered or prevented (it stayed in
        play when countered, and could be activated again)."""
        m = self.m
        if entry["kind"] == "activate":
            p = m.perm(entry.get("uid"))
            if p is not None and p["counters"].get("activation", 1) <= 0:
                m._perm_left(uid=p["uid"], code=p["code"], cause="209.2c", line=self.line)
        elif entry["kind"] == "move":
            dot, e = m.find(entry.get("uid"))
            if e is not None and e["counters"].get("activation", 1) <= 0:
                self._leave_play(dot, "209.2c")

    def _target_gone(self, target: dict) -> bool:
        """208.5: the target of a cast card or an activated effect (``_target``) is not there when it resolves: it was
        not there when announced (200.4), it left play, or an Effect Card cast on the stack left the stack."""
        return bool(target.get("gone")) or (target.get("uid") is not None and not self._in_play(target["uid"])) or \
            (target.get("entry") is not None and not any(s.get("id") == target["entry"] for s in self.m.stack))

    def _in_play(self, uid: int) -> bool:
        return self.m.find(uid)[1] is not None or self.m.perm(uid) is not None

    # ------------------------------------------------------------------ effect records (107.1a)
    def do_effect(self, r: dict) -> None:
        m, op = self.m, r["op"]
        self._running()
        args = {k: v for k, v in r.items()
                if k not in ("do", "by", "turn", "ts", "note", "source", "op", "override", "due")}
        if "override" in r:
            args["override"] = r["override"]
        dot = r.get("dot")
        if op in ("damage", "heal", "stat", "destroy", "relocate", "extra_attack") or \
                (op in ("deactivate", "reactivate", "counter", "control") and dot):
            if dot not in m.dots:
                self.fail("500.1", f"no summon on {dot} for the {op} effect", fatal=True)
        if op in ("deactivate", "reactivate", "counter", "control") and not dot:
            obj = r.get("object")
            found = [p for p in m.perms if p["code"] == obj]
            if not found:
                self.fail("500.1", f"no {obj} in play for the {op} effect", fatal=True)
            args["uid"] = found[0]["uid"]
        self.check(self._source_problem(r["source"], op))
        if op == "energy" and r["type"] != COLORLESS and r["type"] not in self.cat.types:
            self.fail("203.2a", f"{r['type']} is not an energy type of catalog {self.cat.name}: "
                                f"{', '.join(self.cat.types)} or {COLORLESS} (a catalog declares further types in a "
                                f"`# types:` line)", fatal=True)
        for key in {"place": ("dot",), "relocate": ("to",)}.get(op, ()):
            if r[key] not in self.board:  # (a dot off the board was placed, then looked up: KeyError)
                self.fail("600.3", f"{r[key]} is not a dot of board {self.board.name}", fatal=True)
        if op == "place":
            card = self.card(r["card"])
            zone = m.p[self.by].get(r["from"])
            if not isinstance(zone, list) or r["card"] not in zone:
                self.fail("500.1", f"{r['card']} is not in {self.by}'s {r['from']}", fatal=True)
            if r["dot"] in m.dots:
                self.fail("600.5", f"{r['dot']} is occupied by {m.dots[r['dot']]['code']}", fatal=True)
            if not card.is_summon:
                self.fail("500.1", f"{card.name} is not a Summon Card: only summons are placed on dots", fatal=True)
            if self._controls_class(self.by, card.cls):
                self.fail("402.8", f"{self.by} already controls a summon of Class {card.cls}")
            args["summon"] = {"stats": card.stats(), "cls": card.cls, "counters": dict(card.counters)}
        if op == "relocate" and r["to"] in m.dots:
            self.fail("600.5", f"{r['to']} is occupied by {m.dots[r['to']]['code']}", fatal=True)
        if op == "zone" and r["from"] == "play":
            args.update(self._leaving_play(r))
        elif op == "zone" and r["from"] == "cast":
            args.update(self._leaving_stack(r))
        elif op == "zone":
            owner = r.get("owner") or self.by
            zone = m.p[owner].get(r["from"])
            if not isinstance(zone, list) or r["card"] not in zone:
                self.fail("500.1", f"{r['card']} is not in {owner}'s {r['from']}", fatal=True)
        if op in ("draw", "search"):
            cards = r["cards"] if op == "draw" else [r["card"]]
            lost = _missing(m.p[self.by]["deck"], cards)
            if lost:
                self.fail("212.1" if op == "draw" else "500.1", f"{', '.join(lost)} not in {self.by}'s deck", fatal=True)
        if op == "draw" and r.get("due") is not None and len(r["cards"]) > r["due"]:
            self.fail("212.1", f"{self.by} draws {len(r['cards'])} cards where {r['due']} are due (the record's `due`)")
        short = op == "draw" and r.get("due") is not None and len(r["cards"]) < r["due"]
        if short and deck_count(m.p[self.by]) > len(r["cards"]):
            left = deck_count(m.p[self.by]) - len(r["cards"])
            self.fail("212.1", f"{self.by} draws {len(r['cards'])} of the {r['due']} cards due while his deck holds "
                               f"{left} more: a player who has to draw draws them from the top of his deck (212.1), "
                               f"short only when it is empty (106.3)")
        if op in ("counter_action", "raise_cost"):
            entry = next((s for s in m.stack if s.get("id") == r["line"]), None)
            if entry is None:
                self.fail("201.2", f"no action announced at line {r['line']} is on the stack", fatal=True)
            if op == "raise_cost":
                args["payer"] = entry["by"]
        m._effect(player=self.by, source=r["source"], op=op, args=args, rec=self._carry(), line=self.line)
        if op == "draw":
            self.effect_draw = (self.line, self.by, r.get("due"), len(r["cards"]))
            if short and deck_count(m.p[self.by]) <= 0:  # 106.3: he must draw a card his deck no longer holds
                self.decked.add(self.by)  # (lost when the resolution ends, with any Life Base it took: end_resolution)
        if op == "counter_action":
            self._spent(entry)  # 209.2c: countered, as resolved
        if op == "destroy":
            self._leave_play(dot, "effect")
        elif op == "place":
            self._start_dot(r["dot"])
        elif op == "relocate":
            self._start_dot(r["to"])
        elif op == "control" and dot in m.dots:
            e = m.dots[dot]
            if sum(1 for x in m.dots.values() if x["ctrl"] == e["ctrl"] and x["cls"] == e["cls"]) > 1:
                self._leave_play(dot, "402.8")

    def _leaving_play(self, r: dict) -> dict:
        """A ``zone`` effect from ``play``: the crystal or Effect in play with that code (its owner's when
        ``owner`` is given, else the record's player's own first) goes to its owner's ``to`` zone (205.3),
        the Effects fixed on it to their owners' Discard Piles (207.5a); the fields the state needs."""
        m, code, owner = self.m, r["card"], r.get("owner")
        found = sorted((p for p in m.perms if p["code"] == code and owner in (None, p["owner"])),
                       key=lambda p: p["owner"] != self.by)
        if not found:
            if any(e["code"] == code for e in m.dots.values()):
                self.fail("500.1", f"{code} is a summon: a summon in play is named by its dot (`destroy` sends it "
                                   f"to the Discard Pile); `zone` from play moves crystals and Effects", fatal=True)
        p = self._zone_source(found, r, "in play", "play", {p["owner"] for p in m.perms if p["code"] == code})
        return {"uid": p["uid"], "owner": p["owner"]}

    def _leaving_stack(self, r: dict) -> dict:
        """A ``zone`` effect from ``cast`` (a cast countered to a zone, digest.4): the card cast on the stack
        with that code (its owner's, the caster's, when ``owner`` is given, else the record's player's own
        first; the topmost of them) leaves the stack (its cast does not resolve) for its owner's ``to`` zone;
        ``entry`` names the stack entry (its line)."""
        m, code, owner = self.m, r["card"], r.get("owner")
        found = sorted((s for s in reversed(m.stack) if s["kind"] == "cast" and s.get("card") == code
                        and owner in (None, s["by"])), key=lambda s: s["by"] != self.by)
        s = self._zone_source(found, r, "cast on the stack", "the Cast Zone",
                              {s["by"] for s in m.stack if s["kind"] == "cast" and s.get("card") == code})
        return {"entry": s["id"], "owner": s["by"]}

    def _zone_source(self, found: list, r: dict, where: str, leaves: str, owners: set[str]) -> dict:
        """The first of ``found`` (what a ``zone`` effect takes ``where`` from), else 500.1 naming the
        ``owners`` of that code there; 500.1 too when its ``to`` is not a zone a card leaves ``leaves`` for."""
        code, owner = r["card"], r.get("owner")
        if not found:
            self.fail("500.1", f"no {code} {'owned by ' + owner + ' ' if owner else ''}is {where}"
                               + (f" (its owner is {' and '.join(sorted(owners))})" if owners else ""), fatal=True)
        if r["to"] not in ("hand", "deck", "discard", "removed"):
            self.fail("500.1", f"{code} leaves {leaves} for its owner's hand, deck, discard or removed zone, "
                               f"not {r['to']}", fatal=True)
        return found[0]

    def _source_problem(self, source: str, op: str) -> tuple[str, str] | None:
        """What is wrong with the source of an ``op`` effect (210.4 for damage, 503.1 otherwise), else None.

        The card or ability resolving is the source of every effect its resolution's records show; one that
        fizzled of none, whatever now stands where it stood (a second Storm Caller cast onto the dot of the
        first, destroyed). Else the source is in play: a card on the stack has no effect before its cast
        resolves (503.1: "When the casting of the card is resolved, the effect takes place"; digest.8, it was
        accepted), nor has a card in a hand, deck or pile. In play, it is the record's player's (214.2: the
        controller uses a card) and has an effect to give (digest.8; any permanent was taken): a summon an
        ability (210.1: summons are dealt damage "by attacks of summons, by the effect of Effects and by
        abilities"; 402.10: a summon "can have an Ability"), an Energy Crystal an effect besides its energy
        (403.4); an Effect is one."""
        m = self.m
        if source == self.resolved:
            return None
        damage = op == "damage"
        what = f"the damage source {source}" if damage else f"the source {source} of the {op} effect"
        if is_code(source):
            found = [(p, None) for p in m.perms if p["code"] == source] + \
                [(e, dot) for dot, e in m.dots.items() if e["code"] == source]
        else:
            found = [(m.dots[source], source)] if source in m.dots else []
        if source == self.fizzled or not found:
            if source == self.fizzled:
                why = " (it fizzled: its effect does not take place)"
            elif any(s.get("card") == source for s in m.stack):
                why = " (it is on the stack: a card's effect takes place when its cast resolves)"
            else:
                why = "" if damage else " (a card's effect takes place when its cast resolves)"
            return ("210.4" if damage else "503.1"), f"{what} is neither in play nor resolving{why}"
        mine = [(x, dot) for x, dot in found if x["ctrl"] == self.by]
        if not mine:
            ctrl = " and ".join(sorted({x["ctrl"] for x, _ in found}))
            return "214.2", (f"{what} is controlled by {ctrl}, not {self.by}: only its controller uses it (an effect "
                             f"record is by the player whose card or ability it is)")
        for x, dot in mine:
            card = self.card(x["code"])
            if (dot is not None and card.abilities) or x.get("kind") == "effect" or \
                    (x.get("kind") == "crystal" and (card.activation_cost is not None or card.abilities)):
                return None
        x, dot = mine[0]
        card = self.card(x["code"])
        if dot is not None:
            if damage:
                return "210.1", (f"{what} ({card.name} on {dot}) has no ability: a summon deals damage by its attacks "
                                 f"(the engine deals an attack's damage) and by its abilities")
            return "402.10", f"{what} ({card.name} on {dot}) has no ability: a summon has effects by its ability"
        return ("210.1" if damage else "403.4"), (f"{what} ({card.name}) has no effect besides its energy (an "
                                                  f"energy record adds that)")

_DO = {name[3:]: f for name, f in vars(Referee).items() if name.startswith("do_")}  # kind -> Referee.do_KIND

# events whose methods change nothing Referee.settle reads (see there): a pass, energy added, a card
# drawn, a phase entered, a crystal cast, an action announced (to the stack: the summons' damage,
# stats, modifiers, Life Bases and controllers are those of before)
_INERT = frozenset({Match.Passed, Match.EnergyAdded, Match.CardDrawn, Match.PhaseEntered, Match.CrystalCast,
                    Match.Announced})

# the records made in a turn (each handler checks it with Referee._running): one after an `end` by the next turn's
# player begins that turn (Referee._infer_turn)
_IN_TURN = frozenset({"draw", "pass", "end", "crystal", "energy", "cast", "activate", "ability", "trigger", "move",
                      "attack", "effect"})

_ANNOUNCEMENTS = frozenset({"cast", "activate", "ability", "move", "attack"})  # (stackable, by the priority holder)
_NAMED = {"cast": lambda r: f"({r.get('card')})", "activate": lambda r: f"({r.get('effect')})",
          "ability": lambda r: f"(the summon on {r.get('summon')})",
          "move": lambda r: f"(the summon on {r.get('from')})", "attack": lambda r: f"(the summon on {r.get('from')})"}

_PHASE_NAME = {"draw": "in the Draw Phase", "end": "in the End Phase", "closed": "after the End Phase"}

_TARGET_RULE = {"summon": "401.2a", "class": "401.3a", "crystal": "401.4a", "effect": "401.5a"}


def _on_matches(m: Match, perm: dict, on: str) -> bool:
    if not is_code(on):
        e = m.dots.get(on)
        return e is not None and perm.get("on") == e["uid"]
    host = m.perm(perm.get("on"))
    return host is not None and host["code"] == on


def _drawable(zone: list, codes: list) -> tuple[list[str], list[str]]:
    """``codes`` split into the ones ``zone`` holds (each copy once) and the ones it does not."""
    pool = list(zone)
    kept, lost = [], []
    for c in codes:
        try:
            pool.remove(c)
            kept.append(c)
        except ValueError:
            lost.append(c)
    return kept, lost


def _missing(zone: list, codes: list) -> list[str]:
    pool = list(zone)
    lost = []
    for c in codes:
        try:
            pool.remove(c)
        except ValueError:
            lost.append(c)
    return lost
