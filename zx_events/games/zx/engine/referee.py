"""The rules engine: checks each log record against the state, then records what happened.

``Referee.handle(record)`` checks one record. In strict mode the first violation raises
``RuleViolation`` (rule number, message, ``FILE:LINE``); in lenient mode (``--accept-violations``,
and the audit) each violation is recorded as a ``ViolationRecorded`` event and the record is
applied as it was played where that is possible. After every record the rule effects are
processed in the digest's order (Reload, Charge Excess, Lethal Damage, Loss, Player Damage):
the automatic ones (lethal damage, loss) by the engine, the ones that need a player's choice
(Reload, Charge Excess, a Life card per point of damage, Life Recovery, Void Bringer) as
obligations that the next records must meet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NoReturn, overload

from zx_events.games.zx.board import Square, player_square
from zx_events.games.zx.cards import Card, CardType, Catalog
from zx_events.games.zx.decks import check_deck
from zx_events.errors import FormatError, RuleViolation
from zx_events.games.base import Violation, inert_since  # noqa: F401  (Violation: what a referee reports, in every game)
from zx_events.games.zx.match import HIDDEN, LIMIT_CHARGE, LIMIT_HAND, PHASES, Match, deck_count, other, power_of
from zx_events.games.zx.engine import checks
from zx_events.games.zx.engine.effects import check_effect
from zx_events.games.zx.rules import PLAYED_AS_WRITTEN


def _event_class(name: str) -> type:
    """``Match.NAME``: an event class ``Match``'s ``@event`` methods make (eventsourcing), which mypy cannot see."""
    cls: type = getattr(Match, name)
    return cls


_VIOLATION_RECORDED = _event_class("ViolationRecorded")
_DRAW = PHASES.index("draw")
_PHASE_NO = {p: i for i, p in enumerate(PHASES)}  # PHASES.index, without a scan
# events whose methods change nothing ``Referee.settle`` acts on (see there): a pass, a draw, a Resource
# placed; a turn started (Sleep and Reboot, and waivers dropped: a battle owed nothing only waits longer);
# an attack declared (the attacker Sleep, and a battle in its Event Step, which settle leaves alone)
_INERT = frozenset({_event_class("PriorityPassed"), _event_class("CardsDrawn"), _event_class("ResourcePlaced"),
                    _event_class("TurnStarted"), _event_class("AttackDeclared")})
_MAIN = PHASES.index("main")


class _Skip(Exception):
    """A record that cannot be applied at all (lenient mode): recorded, then skipped."""


@dataclass(frozen=True, slots=True)
class Obligation:
    key: str
    kind: str  # the record that meets it: reload, charge_excess, life, recover, void
    player: str
    rule: str
    message: str


_KIND = {CardType.ZX: "zx", CardType.ZX_EX: "ex", CardType.ZX_OB: "ob", CardType.TOKEN: "token",
         CardType.EVENT: "event", CardType.EV_EX: "evex", CardType.SHIFT: "shift"}


class Referee:
    def __init__(self, match: Match, catalog: Catalog, *, strict: bool = True, source: str | None = None):
        self.m = match
        self.cat = catalog
        self.strict = strict
        self.source = source
        self.found: list[Violation] = []
        self.line: int | None = None
        self.by: str | None = None
        self.rec: dict | None = None
        self._settled = -1  # the match's version when settle last found nothing to do
        self.meeting: str | None = None  # the obligation the record being handled meets, if any
        self._short_draw: int | None = None  # the turn whose Draw Phase was reported short (503.3)
        self._draw_lines: tuple[int, list[int | None]] = (0, [])  # a turn, the lines of its draw records (503.3)
        self._draw_seen = 0  # the last turn with a draw record, applied or not (``_before_draw``)
        self._early = 0  # the last turn a record was reported as before its draw (``_before_draw``)
        self._kept: tuple[int, str] = (-1, "draw")  # a turn, its phase as the referee keeps it after a record
        # of a later phase applied before the draw (``_phase_now``)
        self._early_rec: dict | None = None  # the record reported as before its draw, while it is handled
        self._early_skipped: tuple[int, str | None, str] | None = None  # a turn, its player, the card of his
        # Resource record reported as before the draw and not applied (its card not in the hand): the draw left out
        # held it (``_leave_draw``)
        self._broke: str | None = None  # the obligation the record being handled broke (reported), if any
        self._late_life: tuple[int, str] | None = None  # a turn, a player whose owed Life card a record broke
        self._late_excess: tuple[int, str] | None = None  # a turn, a player whose owed Charge Excess a record broke
        self._excess_kept: dict[str, int] = {}  # a player -> the cards over the Charge limit a Charge Excess left
        # out (reported) keeps there: owed no more, and later Charge Excesses judged without them (``due``)
        self.result_line: int | None = None  # the line of the log's result record, once read
        self._void_destroy: dict[str, int] = {}  # an owed Void Bringer -> the line of a destroy written while owed
        self._refused: tuple[int, str] | None = None  # a turn, the defender of an attack refused (not applied):
        # the passes and Life card after it are that battle's, reported with it (``do_pass``, ``do_life``)
        self._refused_life = True  # its attack aimed at the defender's Player Square (``_refuse``)
        self._refused_passes = 0  # the passes of that battle seen: the attacker's, then the defender's
        self._turn_line: int | None = None  # the line of the turn record of the turn under way
        self._prev: dict | None = None  # the record being handled (then the one before the next)
        self._before: dict | None = None  # the record before the one being handled
        self._prev_line: int | None = None  # the line of ``_prev``
        self._before_line: int | None = None  # the line of ``_before``
        self._repeat = False  # the record being handled is the one before it again, verbatim (a line written twice)
        self._no_damage: tuple[int, str] | None = None  # a turn, the defender of its last battle, which dealt no
        # damage to him for his Overboost (604.3c): a Life card of his after it is 604.3c (``do_life``)
        self._stray: tuple[int | None, dict] | None = None  # a line, a pass there with no battle under way (603.1b)
        self._step_refused: dict | None = None  # the last play refused in a Battle Event Step (603.1b, ``do_play``)
        self._wrong_pass: tuple[int | None, dict] | None = None  # a line, a pass there refused for its priority
        # (603.1b)
        self._unended: tuple[int, str] | None = None  # a turn, the player of the turn before it, not ended (501.3)
        self._turn1: str | None = None  # the writer of a `turn 1` record the header's `first` does not name (501.3):
        # turn 1 begins at the next record, of whichever of the two acts first (``handle``, ``do_turn``)
        self._untold: tuple[int, str] | None = None  # a turn, its player: a turn begun with no turn record (501.3)
        self._skipped_resource: tuple[int, str | None] | None = None  # a turn, a player: a Resource record of his
        # refused
        self._absent: dict[str, int] = {}  # card -> turn: cards a payment named though not in Resource (301.1), or of a
        # Resource record reported and not applied: later payments naming them are not charged again (digest.7)
        self._ghost: dict[str, int] = {}  # player -> cards his hand holds that the log has used up under a name the
        # hand did not hold (an `end` discarding it, a `play` of it, reported once, 301.1): the hand limit counts the
        # hand without them, and a play standing for a card of the hand needs one there beyond them
        self._life_taken: dict[str, list[tuple[str, str]]] = {}  # player -> (the card named, the card taken) of
        # each damage whose Life record named a card not in his Life (301.1, ``do_life``): the named card went to the
        # Charge, the one taken (the judge's only) left the Life, until a later record names the damage's card
        self._misdrawn: dict[str, int] = {}  # player -> cards his draws named wrong (not in the deck, 301.1) and left
        # out: the first card he then uses from his hand that the hand does not hold but the deck does was one of them
        self._named: set[str] = set()  # players whose setup, left out at turn 1 (402), a setup record named later
        self._made: dict[tuple[str, str], list[str]] = {}  # (player, hand/life/resource) -> the cards of a setup
        # left out his records have used from there, known since (``_known``, ``_drawn_late``; ``_name_unseen``)
        self.resolving: tuple[str, str, str] | None = None  # the Event resolving in Temporary: player, code, and
        # the zone the state already holds it in (trash; Dynamis for an EV EX), until the next record but its effects
        self._held: tuple[str | None, str | None, int | None] | None = None  # the resolution under way (its player,
        # its source, the line of its last effect record) after an effect record left a player at 0 Life: the loss
        # is checked when it ends (``_end_resolution``), so both at 0 at once is a draw (digest.13)

    # ------------------------------------------------------------------ violations
    @overload
    def fail(self, rule: str, message: str, *, fatal: Literal[True], waive: str | None = None,
             player: str | None = None) -> NoReturn: ...

    @overload
    def fail(self, rule: str, message: str, *, fatal: bool = False, waive: str | None = None,
             player: str | None = None) -> None: ...

    def fail(self, rule: str, message: str, *, fatal: bool = False, waive: str | None = None,
             player: str | None = None) -> None:
        """A violation at the record being handled: strict, ``RuleViolation``; lenient, recorded. ``fatal``: the record
        cannot be applied (it never returns: ``_Skip``)."""
        if self.strict:
            raise RuleViolation(rule, message, source=self.source, line=self.line)
        if self._repeat and waive is None:  # a line written twice: its first finding stands for it, and it is
            fatal = True  # not applied (digest.7: applied, a second Z/X EX paid with Sleep cards, 805 per card, two
            # draws, 309.2a later)
        if fatal and self._early_rec is self.rec and self.rec is not None:
            raise _Skip  # a record reported for its timing (``_before_draw``) that cannot be applied either: the
            # card it names comes with the draw after it, say; that finding stands for it (digest.7)
        if fatal and waive is None:  # the record owed cannot be applied: this violation stands for the
            waive = self.meeting  # obligation, which is not reported again at the next record
        if waive is not None and waive.startswith("charge_excess:"):  # 905 reported once: the excess stays
            pl = waive.split(":")[1]  # (digest.7: it was owed again at every turn, and every later Charge Excess
            self._excess_kept[pl] = len(self.m.p[pl]["charge"]) - LIMIT_CHARGE  # was one card short)
        player = player or self.by
        v = Violation(self.line, self.m.turn, player, rule, message)
        self.found.append(v)
        self.m._violation(rule=rule, message=message, line=self.line, turn=self.m.turn, player=player,
                          rec=self.rec if fatal else None, waive=waive)
        if fatal:
            raise _Skip

    def check(self, problem: tuple[str, str] | None, *, fatal: bool = False) -> None:
        if problem is not None:
            self.fail(*problem, fatal=fatal)

    def card(self, code: str) -> Card:
        return self.cat[code]

    # ------------------------------------------------------------------ header (401)
    def header(self, header: dict, line: int | None) -> None:
        self.line, self.by, self.rec = line, None, None
        for pl in ("P1", "P2"):
            info = header["players"][pl]
            self.by = pl
            for rule, message in check_deck(self.cat, info.get("deck") or {}, info.get("dynamis"),
                                            info.get("player_card")):
                self.fail(rule, f"{pl}: {message}")
        self.by = None

    # ------------------------------------------------------------------ records
    def handle(self, line: int, rec: dict) -> None:
        m = self.m
        self.line, self.rec, self.by, self.meeting = line, rec, rec.get("by"), None
        self._early_rec = self._broke = None
        since = len(m.__dict__["_pending_events"])  # this record's events come after (``_store_skipped``)
        self._before, self._prev = self._prev, rec
        self._before_line, self._prev_line = self._prev_line, line
        self._repeat = rec == self._before
        kind = rec["do"]
        if self._refused is not None and kind not in ("pass", "life"):
            self._refused = None  # the battle refused at its attack (``do_attack``) had no more records
        if self.resolving is not None and (kind != "effect" or rec.get("startup")):
            self.resolving = None  # the Event's resolution is over: it has gone on from Temporary
        try:
            if self._held is not None and not (kind == "effect" and not rec.get("startup")
                                               and (self.by, rec.get("source")) == self._held[:2]):
                self._end_resolution()  # the resolution that left a player at 0 Life is over: the loss, now
            if self._turn1 is not None:  # the `turn 1` record before, against the header (501.3, reported there):
                # the turn is the log's first player's if he acts first (the header's `first` wrong), the header's
                # if he does (the turn record's seat wrong), one finding either way (digest.8: the header's, and
                # every record of the log's first player and then of the other charged, 19 findings in a match)
                who = self.by if kind in _TURN_ACTS and self.by in ("P1", "P2") else self._turn1
                self._turn1 = None
                m._turn_started(turn=1, player=who, line=self.line)
                self._turn_line = self.line
            if m.outcome is not None and kind != "result":
                self.fail("501.3", f"{kind} record after the game has ended "
                                   f"({self._outcome_text()})", fatal=True)
            if kind in _TURN_ACTS and self.by == (other(checks.turn_player(m)) if m.turn else m.first) and (
                    m.phase == "over" if m.turn else m.p["P1"]["ready"] and m.p["P2"]["ready"]):
                # the next player acts after the End Phase: his turn record is left out (or written later). The turn
                # begins here, reported once (digest.7: every record of the turn was charged as in the other
                # player's turn, 503.3, 504.3, 506, 602.1, 501.3, and the turn numbers after it were off by one)
                after = f"after the End Phase of turn {m.turn}" if m.turn else "after the setup"
                self.fail("501.3", f"turn {m.turn + 1} of {self.by} begins with no turn record (a {kind} record "
                                   f"{after})")
                m._turn_started(turn=m.turn + 1, player=self.by, line=self.line)
                self._turn_line, self._untold = self.line, (m.turn, self.by)
            if kind in _TURN_ACTS and self.by in ("P1", "P2") and m.active is not None and self.by != m.active \
                    and m.phase not in ("over", "ended") and (m.battle is None or m.battle["step"] != "event") \
                    and self._fits(rec, m.active):
                # a record only the turn player writes, by the other player, whose cards are the turn player's: the
                # seat is wrong, reported once, and it is applied as the turn player's (digest.7: it was skipped, and
                # the records after it that depend on it charged: 301.1 at the payment, 602.1a at the attack)
                self.fail(_TURN_ACTS[kind], f"{self.by} acts in {m.active}'s turn, where only {m.active} may: the "
                                            f"{kind} record is taken as {m.active}'s (its cards are {m.active}'s)")
                self.by = m.active
            if kind == "turn" and self._untold == (m.turn, self.by) and rec.get("turn", m.turn) == m.turn:
                raise _Skip  # that turn's record, written late: the finding where it began stands for it
            if kind == "turn" and self.by == m.active and m.turn > 0 and (
                    rec.get("turn") == m.turn or "turn" not in rec and m.phase != "over"):
                began = f" (it began at line {self._turn_line})" if self._turn_line is not None else ""
                self.fail("501.3", f"a second turn record for turn {m.turn} of {m.active}{began}", fatal=True)
                # skipped, one finding (digest.7: three, the turn number, the turn player, the turn not ended)
            if "turn" in rec:
                expected = m.turn + 1 if kind == "turn" else m.turn
                if rec["turn"] != expected:
                    self.fail("501.3", f"record says turn {rec['turn']}, the engine is in turn {expected}")
            b = m.battle
            if b is not None and b["step"] == "event" and kind == "attack" and self.by != b["defender"]:
                entry = m.sq.get(rec["from"])
                if rec["target"] == b["target"] and entry is not None and entry["uid"] == b["attacker_uid"] \
                        and entry["sleep"]:
                    # the same attack again, its attacker still Sleep: not a next battle after trailing passes left
                    # out, which closed this one early (digest.7: then 602.1a, and the legal passes charged, 603.1b;
                    # the attacker on another target is still read so: 602.1a, examples/invalid)
                    self.fail("602.1", f"a battle is already under way (the attack from {b['from']} on "
                                       f"{b['target']}, in its Battle Event Step)", fatal=True)
            if m.battle is not None and m.battle["step"] == "event" and not self._keeps_step_open(rec):
                self._damage_step()  # 603.1c: trailing passes that close the step may be left out
            due = self.due()  # None at once in the usual case: nothing can be owed
            if due is not None and due.kind in ("reload", "charge_excess") and kind == due.kind \
                    and self.by in ("P1", "P2") and self.by != due.player:
                # both players owe a Reload, or a Charge Excess, at once: the Z/X rules give no order between
                # them (the digest orders the kinds only), so either player's record comes first (digest.7: the
                # turn player's was required, and the other's refused)
                mine = self.due(first=self.by)
                if mine is not None and mine.kind == due.kind and mine.player == self.by:
                    due = mine
            if due is not None and due.kind == "life" and kind == "life" and self.by in ("P1", "P2") \
                    and self.by != due.player and rec["card"] not in m.p[self.by]["life"] \
                    and (rec["card"] in m.p[due.player]["life"] or self._known(due.player, "life", rec["card"])):
                # the Life card owed under the other player's seat (its card is in the owing player's Life): one
                # finding, and it is applied as his (digest.7: it was skipped, the damage never landed, and a result
                # at 0 Life was 101.2)
                self.fail("604.3b", f"{due.message}: the life record is under {self.by}'s seat, taken as "
                                    f"{due.player}'s ({rec['card']} is in {due.player}'s Life)")
                self.by = due.player
            if due is None:
                if self._void_destroy:
                    self._void_destroy.clear()
            else:
                if self._meets(rec, self.by, due):
                    self.meeting = due.key  # a record of it that cannot be applied waives it (fail)
                    self._void_destroy.pop(due.key, None)
                elif due.kind == "void" and kind == "effect" and rec.get("op") == "destroy" and self.by == due.player \
                        and not rec.get("startup"):
                    self._void_destroy[due.key] = line  # named if the Void Bringer is still owed at the next record
                elif kind not in ("effect", "concede", "result") or rec.get("startup"):  # an attack too (not
                    # 602.1): it is owed first; a startup ability is an action (603.1b), not a step of a resolution
                    # that may come between (digest.5: it passed, in the Battle Damage Step too, 603.1)
                    got = "a startup ability (effect record with startup: true)" if kind == "effect" else \
                        f"{_a(kind)} record"
                    near = self._void_destroy.get(due.key)
                    if near is not None:  # what the writer may have meant for it (1103 with 1007)
                        got += f" (the destroy at line {near} does not meet it: a destroyed Z/X goes to Charge, 1007)"
                    self._void_destroy.pop(due.key, None)
                    self.fail(due.rule, f"{due.message}, got {got}", waive=due.key, player=due.player)
                    # (filed under the player who owed the record, as its message says, for every kind: a Life card
                    # 604.3b, a Life Recovery 1102, a Void Bringer 1103, a Reload 902; round 36: only a Charge
                    # Excess was, the others under the player who wrote the next record)
                    self._broke = due.key
                    if due.kind == "life" and kind != "life":  # the Life card may come next, one record late
                        self._late_life = (m.turn, due.player)
                    if due.kind == "charge_excess":  # so may the Charge Excess, later in its turn (do_charge_excess)
                        self._late_excess = (m.turn, due.player)
                    if due.kind == "reload":  # 902: the part that needs no choice is performed, Trash back into
                        # the deck; only the Life card to Charge is missing (digest.7: the deck stayed empty, and
                        # every later draw was charged, 301.1, 503.3, 309.2a)
                        m._reloaded(player=due.player, life=None, line=self.line)
                    self.settle()  # a battle owed nothing more ends (605) before the record is applied
                    if self._repeat:  # a line written twice: that finding stands for it (``fail``)
                        raise _Skip
            do = _DO.get(kind) if type(self) is Referee else None
            if do is None:
                handler = getattr(self, "do_" + str(kind), None)
                if handler is None:  # (a log's schema refuses it first: a record rewritten in the store)
                    raise FormatError(f"unknown record kind {kind!r}", source=self.source, line=self.line)
                handler(rec)
            else:
                do(self, rec)
        except _Skip:
            if kind == "resource" and self._reported_early(rec):  # (its card may be of a draw left out: _leave_draw)
                self._early_skipped = (m.turn, self.by, rec["card"])
            if kind == "resource" and not self._repeat:  # its card never went into Resource: the payments naming
                self._absent.setdefault(rec["card"], m.turn)  # it follow from that
                self._skipped_resource = (m.turn, self.by)
            self._store_skipped(since)
        self.settle()

    def _reported_early(self, rec: dict) -> bool:
        """Whether ``rec`` was reported as before its draw (``_before_draw``) while it was handled. (A method, not
        ``self._early_rec is rec`` in ``handle``: there mypy takes the attribute for the None ``handle`` set it to
        before the handler ran, which mypyc, compiling the engine, would check at run time.)"""
        return self._early_rec is rec

    def _store_skipped(self, since: int) -> None:
        """A record skipped (not applied) is still stored at its line, carried by an event of it, as every record
        is: the audit and the replay rebuild the log from the records the events carry. One skipped by a fatal
        finding is carried by that ``ViolationRecorded``; one skipped after a finding that did not skip it (the
        record reported for its timing that cannot be applied either, ``fail``; the other player's Life card where
        one was owed, ``do_life``) by that finding, its last, which is not stored yet (``since``: this record's
        events are the match's pending ones from there): it now carries the record, as a fatal one does, and so
        says the record was not applied; one skipped without a finding of its own (a pass of the battle refused at
        its attack, ``do_pass``) by a ``RecordSkipped`` event (they were stored nowhere: the replay left out
        their lines, and the audit of the stored match read another log)."""
        m, rec = self.m, self.rec
        pending = m.__dict__["_pending_events"]
        if rec is None or any(getattr(e, "rec", None) is not None for e in pending[since:]):
            return
        for i in range(len(pending) - 1, since - 1, -1):
            e = pending[i]
            if type(e) is _VIOLATION_RECORDED and vars(e)["line"] == self.line:
                carrier = object.__new__(type(e))
                object.__setattr__(carrier, "__dict__", {**vars(e), "rec": rec})
                pending[i] = carrier  # (the last ViolationRecorded of the match: its entry is the last one)
                m.violations[-1] = {**m.violations[-1], "applied": False}
                return
        m._skipped(player=self.by, rec=rec, line=self.line)

    def finish(self) -> None:
        """End of the log: close a Battle Event Step whose trailing passes were left out."""
        self.rec, self._repeat = None, False
        if self._held is not None:  # (the log ends in the resolution that left a player at 0 Life)
            self._end_resolution()
        if self.m.outcome is None and self.m.battle is not None and self.m.battle["step"] == "event":
            self._damage_step()
            self.settle()

    def _fits(self, rec: dict, pl: str) -> bool:
        """Does the turn-player record ``rec`` name cards where ``pl`` holds them (and, but for a draw, where the
        player it names does not)?"""
        m, kind = self.m, rec["do"]
        z, w = m.p[pl], m.p[rec["by"]]
        if kind == "draw":
            return not checks.missing(z["deck"], rec["cards"])
        if kind == "resource":
            return rec["card"] in z["hand"] and rec["card"] not in w["hand"]
        if kind == "ignition":
            return rec["charge"] in z["charge"] and rec["charge"] not in w["charge"]
        if kind == "play":
            if rec.get("from", "hand") == "dynamis":
                return any(d["code"] == rec["card"] for d in z["dynamis"]) \
                    and not any(d["code"] == rec["card"] for d in w["dynamis"])
            return rec["card"] in z["hand"] and rec["card"] not in w["hand"]
        if kind == "attack":
            e = m.sq.get(rec["from"])
            return e is not None and e["ctrl"] == pl
        if kind == "end":  # (the other player's end just after the turn record: his own turn's, written late)
            return self._unended != (m.turn, rec["by"]) and not checks.missing(z["hand"], rec.get("discard", []))
        return False

    # ------------------------------------------------------------------ obligations (rule effects)
    def due(self, first: str | None = None) -> Obligation | None:
        """The first obligation owed and not waived: the digest's order of kinds, and of players the turn
        player's first (``first``: that player's, for two of one kind owed at once, which the rules do not order)."""
        m = self.m
        if m.outcome is not None:
            return None
        p1, p2, b = m.p["P1"], m.p["P2"], m.battle
        if not (p1["ready"] and deck_count(p1) <= 0 and p1["trash"]
                or p2["ready"] and deck_count(p2) <= 0 and p2["trash"]
                or len(p1["charge"]) > LIMIT_CHARGE or len(p2["charge"]) > LIMIT_CHARGE
                or b is not None and (b["life_due"] > 0 or b["triggers"])):
            return None  # nothing below can be owed (the usual case, asked after every record)
        first = first or m.active
        order = (first, other(first)) if first else ("P1", "P2")
        waived = m.waived  # the first obligation owed and not waived, in this order (each made only then)
        for pl in order:  # 902 Reload
            z = m.p[pl]
            if z["ready"] and deck_count(z) <= 0 and z["trash"] and f"reload:{pl}" not in waived:
                return Obligation(f"reload:{pl}", "reload", pl, "902",
                                  f"{pl}'s deck is empty and Trash is not: a reload record for {pl} is due")
        for pl in order:  # 905 Charge Excess
            n = len(m.p[pl]["charge"])
            if n > LIMIT_CHARGE + self._kept_excess(pl) and f"charge_excess:{pl}" not in waived:
                return Obligation(f"charge_excess:{pl}", "charge_excess", pl, "905",
                                  f"{pl}'s Charge holds {n} cards, above the limit of {LIMIT_CHARGE}: "
                                  f"a charge_excess record for {pl} is due")
        b = m.battle
        if b is not None and b["life_due"] > 0:  # player damage, one Life card a point
            d = b["defender"]
            if f"life:{d}" not in waived:
                return Obligation(f"life:{d}", "life", d, "604.3b", f"{d} takes 1 damage: a life record for {d} is due")
        if b is not None:
            for key in b["triggers"]:
                if key in waived:
                    continue
                what, pl = key.split(":")
                rule, name, op = ("1102", "Life Recovery", "recover") if what == "recover" else \
                    ("1103", "Void Bringer", "move from square to trash")
                return Obligation(key, what, pl, rule,
                                  f"{name} of {pl} triggered: an effect record ({op}) by {pl} is due")
        return None

    def _kept_excess(self, pl: str) -> int:
        """The cards over the Charge limit that a Charge Excess of ``pl`` left out keeps there (reported once,
        905): no more than are over the limit now (cards that left the Charge take them away)."""
        kept = self._excess_kept.get(pl)
        if not kept:
            return 0
        kept = min(kept, max(0, len(self.m.p[pl]["charge"]) - LIMIT_CHARGE))
        self._excess_kept[pl] = kept
        return kept

    @staticmethod
    def _meets(rec: dict, by: str | None, due: Obligation) -> bool:
        if by != due.player:
            return False
        if due.kind == "recover":
            return rec["do"] == "effect" and rec.get("op") == "recover"
        if due.kind == "void":  # 1103: a card on Square into Trash, the one record that resolves it (effects._move).
            # Not a destroy (digest.5: it met it and resolved nothing): a destroyed Z/X goes to Charge (1007), and a
            # destroy may be a step that comes first (an IG/VB Event played from Life resolves before its trigger)
            # A Player card on its Player Square is a card on a Square (303.1, 202.5): its move to the Trash meets it
            # too (digest.13: it was applied and 1103 charged as not met); a Link is no card (202.13a)
            return rec["do"] == "effect" and rec.get("op") == "move" and rec.get("from") == "square" \
                and rec.get("to") == "trash" and rec.get("target", "card") in ("card", "player")
        return rec["do"] == due.kind

    def settle(self) -> None:
        """Automatic rule effects: lethal damage, loss, and the end of a finished battle.

        Nothing to do when it found nothing to do the last time and every event since is one whose
        method cannot give it anything to do (``_INERT``): the Power, damage and modifiers of the
        cards on Square, Life and readiness, the battle's step, damage owed and triggers, and the
        outcome are as they were."""
        m = self.m
        d = m.__dict__
        if inert_since(m, self._settled, _INERT):
            self._settled = d["_version"]
            return
        while m.outcome is None:
            # lethal damage: damage at least its Power, or Power 0 or less (a Token made with Power 0,
            # a printed Power 0), destroyed to its owner's Charge (1007); a card without a Power (a
            # face-down card) is no Z/X to destroy
            dead = []
            for s, e in m.sq.items():  # checks.lethal, inlined: this runs after every record
                if e is not None:
                    p = e["base"]
                    if p is None:
                        continue
                    p += e["msum"]  # (the modifiers' sum, kept by the events: not summed again here)
                    if p <= 0 or e["dmg"] >= p:
                        dead.append((s, e))
            for s, e in dead:
                m._destroyed(square=s, uid=e["uid"], code=e["code"], cause="lethal", line=self.line)
            p1, p2 = m.p["P1"], m.p["P2"]
            losers = [pl for pl, z in (("P1", p1), ("P2", p2)) if z["ready"] and not z["life"]] \
                if p1["ready"] and not p1["life"] or p2["ready"] and not p2["life"] else None
            if losers and self.rec is not None and self.rec["do"] == "effect":
                # a step of a resolution (an Event's, an ability's): the rule effects are checked before a player
                # gets priority (701-702), not between its steps; the loss waits for its end, so an Event taking
                # both players' last Life is a draw (digest.13: the player of the step written first lost, 501.3
                # for the next step, and a right `result` of a draw was 101.2)
                self._held = (self.by, self.rec.get("source"), self.line)
                losers = None
            if losers:  # a player with 0 Life loses; both at once is a draw
                if len(losers) == 2:
                    m._ended(winner=None, reason="draw", line=self.line)
                else:  # (his last Life card gone to the Charge by a Reload, 902, is no damage: the sentence says so)
                    how = "reload" if self.rec is not None and self.rec["do"] == "reload" else None
                    m._ended(winner=other(losers[0]), reason="life", line=self.line,
                             **({"how": how} if how else {}))
                return
            b = m.battle
            moved = False
            # a Life card or trigger whose violation was accepted (waived) is owed no more: the battle ends
            if b is not None and b["step"] == "damage" and (b["life_due"] == 0 or f"life:{b['defender']}" in m.waived):
                pending = [k for k in b["triggers"] if k not in m.waived]
                if not pending:  # 605: Battle End Step
                    if _lethal_after_battle(m):
                        # 605.5, then 605.6: a rule effect now pending (a Z/X whose damage reaches its
                        # Power once the boost is gone) is performed before the battle ends
                        m._battle_effects_ended(line=self.line)
                    else:
                        outcome = b["outcome"]
                        if outcome == "damaged_zx":
                            outcome = "survived"
                        m._battle_ended(outcome=outcome, line=self.line)
                    moved = True
            if not dead and not moved:
                self._settled = d["_version"]
                return

    def _end_resolution(self) -> None:
        """The resolution whose effect records left a player at 0 Life (``settle``) is over: the loss is checked
        now, before the record after it (701-702), at the line of its last step; both players at 0 is a draw. A
        player whose Life it gave back (a Life Recovery's step) does not lose."""
        m, held = self.m, self._held
        self._held = None
        if m.outcome is not None or held is None:
            return
        losers = [pl for pl in ("P1", "P2") if m.p[pl]["ready"] and not m.p[pl]["life"]]
        if len(losers) == 2:  # (by an effect too: the sentence says so; digest.13 did not)
            m._ended(winner=None, reason="draw", line=held[2], how="effect")
        elif losers:  # his last Life card went by an effect, not damage (the sentence says so)
            m._ended(winner=other(losers[0]), reason="life", line=held[2], how="effect")

    # ------------------------------------------------------------------ phases
    def _turn_player(self, rule: str) -> None:
        if self.m.active is None:
            self.fail(rule, f"{self.by} acts before the first turn (no turn record yet)", fatal=True)
        if self.by != self.m.active:
            self.fail(rule, f"{self.by} acts in {self.m.active}'s turn, where only {self.m.active} may",
                      fatal=True)

    def _leave_draw(self) -> None:
        """503.3: on leaving the Draw Phase exactly 2 were drawn (none on turn 1: 503.3a), or all that deck
        and Trash held (``checks.to_draw``). The cards a draw left out owed were drawn, the log left them out: they
        are in the hand, unknown (``CardsDrawn`` of ``HIDDEN``, as many as the deck holds), their codes still in the
        deck the state keeps (``deck_count`` counts them out): the hand and deck counts, 309.2a's hand limit and
        902's empty deck count them at once; the record that first uses one names it (``_drawn_late``). A Resource
        record before the draw that was not applied for its card not in the hand (``_before_draw``, its 504.3) put
        one of them into Resource: it is applied now (unless this record is another Resource record, the one
        meant). (digest.8: the cards stayed in the deck, the hand 2 short: 301.1 where one was played, 309.2a for a
        right discard, 902 for a right Reload, and the result lost.)"""
        m = self.m
        if self._phase_now() != "draw":
            return
        owed = checks.to_draw(m)
        if owed and self._short_draw != m.turn:  # too many was already reported by the draw record that went
            self._short_draw = m.turn  # over; short, once (a record leaving it that is skipped leaves it open)
            need = m.drawn + owed
            # (reported where the phase is left, the first moment the shortfall is known: a Reload may
            # split the draw; the message names the draw records, digest.4)
            lines = self._draw_lines[1] if self._draw_lines[0] == m.turn else []
            at = f" (the draw at line {lines[0]})" if len(lines) == 1 else \
                f" (the draws at lines {', '.join(map(str, lines[:-1]))} and {lines[-1]})" if lines else ""
            self.fail("503.3", f"{m.active} drew {_cards(m.drawn)} in the Draw Phase, "
                               f"{'needs exactly 2' if need == 2 else f'needs {need}, all its deck and Trash hold'}{at}")
            pl = checks.turn_player(m)
            z = m.p[pl]
            unknown = min(owed, deck_count(z))
            if unknown > 0:
                m._drawn(player=pl, cards=[HIDDEN] * unknown, line=self.line)
            early, self._early_skipped = self._early_skipped, None
            if early is not None and early[:2] == (m.turn, pl) and not z["resource_used"] \
                    and self.rec is not None and self.rec["do"] != "resource" and self._drawn_late(pl, early[2]):
                # (a second Resource record leaving the phase is the one the writer meant: the first stays refused)
                m._resource_placed(player=pl, card=early[2], line=self.line)
                if self._absent.get(early[2]) == m.turn:
                    del self._absent[early[2]]
                self._skipped_resource = None

    def _phase_now(self) -> str:
        """The phase of the turn: the state's, or after a record of a later phase applied in the Draw Phase
        before its draw (digest.7), the referee's own, which goes on from the Draw Phase (the state's handler
        moved on with that record: the draw after it, and the records of the phases between, are legal)."""
        m = self.m
        t, phase = self._kept
        return phase if t == m.turn and m.phase not in ("over", "ended") else m.phase

    def _enter(self, phase: str) -> None:
        """A record of ``phase`` applied: the referee's own phase of the turn (``_phase_now``) moves on."""
        t, kept = self._kept
        if t == self.m.turn and _PHASE_NO[phase] > _PHASE_NO[kept]:
            self._kept = (t, phase)

    def _before_draw(self, rule: str, what: str, wanted: str) -> bool:
        """The turn player's record of a later phase while the Draw Phase still owes its draw and no draw
        record has come (digest.6; digest.5 for an Event or a startup ability): reported at its line with the
        rule of the phase it belongs to, and applied as played (digest.7; it was skipped), the Draw Phase kept
        open by the referee for the draw record that follows (``_phase_now``; it was a short draw, 503.3, at
        this record, and the draw after it was then refused as after the Draw Phase). True when it was. After a draw record, a record leaving the phase with cards still owed is a short
        draw (``_leave_draw``); so is the ``end`` of the turn, and a second such record before any draw: the
        draw is then taken as left out (503.3 there, and the record applied), not as coming next, so a log
        that leaves its draw out has two violations, not one at every record up to the ``end``."""
        m = self.m
        if m.phase == "draw" and self.by == m.active and not m.drawn and self._draw_seen != m.turn \
                and self._early != m.turn and checks.to_draw(m):
            self._early = m.turn
            self._kept = (m.turn, "draw")  # applied as played (digest.7), the Draw Phase kept open for its draw
            self.fail(rule, f"{what} in the Draw Phase, before the draw: {wanted}")
            self._early_rec = self.rec
            return True
        return False

    def _not_past(self, phase: str, rule: str, what: str, *, apply: bool = True) -> None:
        """A record of ``phase`` in a later phase of the turn, or after its End Phase: reported, and applied
        as played (digest.7: it was skipped, and the records that depend on it were charged: the Z/X played
        attacks, the Resource card placed pays). Before the first turn, or after the game, nothing is, nor
        (``apply=False``) a startup ability or a battle after the End Phase: its "until end of turn" would
        last into the next turn, the battle would run into it."""
        now = self._phase_now()
        if now in ("setup", "over", "ended") or _PHASE_NO[now] > _PHASE_NO[phase]:
            where = "before the first turn" if now == "setup" else \
                "after the End Phase" if now == "over" else f"in the {now.capitalize()} Phase"
            self.fail(rule, f"{what} {where}", fatal=not apply or now in ("setup", "ended"))

    # ------------------------------------------------------------------ setup and turn
    def do_setup(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        z = m.p[pl]
        # a player not set up when turn 1 began was reported there (402): his setup, written late, is applied
        # then (digest.4: it was a second, fatal violation, and the player never set up: false 301.1 and
        # 602.1a after it, his 0-Life loss and Reload checks off)
        unseen = z.get("unseen") and pl not in self._named  # his setup left out, taken as done unseen at turn 1
        if m.turn > 0 and z["ready"] and not unseen:
            self.fail("501.3", "setup after the game began", fatal=True)
        if z["ready"] and not unseen:
            self.fail("402", f"{pl} is already set up", fatal=True)
        for key, n in (("hand", 4), ("mulligan", 4), ("life", 4), ("resource", 2)):
            if key in r and len(r[key]) != n:
                self.fail("402", f"setup {key} has {len(r[key])} cards, needs {n}")
        if unseen:
            self._name_unseen(r)
            return
        start = r.get("start_card")
        if start is not None and not self.card(start).type == CardType.ZX:
            self.fail("402", f"the Start Card {start} is not a Z/X")
        gate = r.get("gate")
        if gate is not None and not any(d["code"] == gate for d in z["dynamis"]):
            self.fail("301.1", f"the Gate Card {gate} is not in {pl}'s Dynamis")
        # the cards the deck holds are taken as written, in the setup's order (hand and Start Card, the
        # hand back for a mulligan, the new hand, Life, Resource); a card it does not hold is reported once,
        # 301.1, and left out: the rest of the setup is applied and the player is set up (digest.7: it was
        # fatal, the player never set up, and every later record of his was charged: 301.1, 402, 602.1a)
        deck, lost = list(z["deck"]), []

        def take(codes: list[str]) -> list[str]:
            kept = []
            for c in codes:
                if c in deck:
                    deck.remove(c)
                    kept.append(c)
                else:
                    lost.append(c)
            return kept

        hand = take(list(r["hand"]))
        if start and not take([start]):
            start = None
        mulligan = r.get("mulligan")
        if mulligan is not None:
            deck.extend(hand)
            mulligan = take(list(mulligan))
        life = take(list(r["life"]))
        short = len(lost)
        resource = take(list(r["resource"]))
        start_resource = r.get("start_resource")
        if start_resource and not take([start_resource]):
            start_resource = None
        for c in lost[short:]:  # a Resource card left out: the payments naming it follow from this finding, not
            self._absent.setdefault(c, m.turn)  # charged again (digest.12: 301.1 again at the first payment)
        if lost:
            self.fail("301.1", f"{', '.join(lost)} not in {pl}'s deck (setup takes cards out of the deck)")
        start_card = None
        if start:
            start_card = {"code": start, "square": str(player_square(pl)), "power": self.card(start).power}
        m._set_up(player=pl, hand=hand, mulligan=mulligan, life=life, resource=resource, start_card=start_card,
                  start_resource=start_resource, gate=gate, rec=r, line=self.line)

    def _name_unseen(self, r: dict) -> None:
        """A setup written after turn 1 by a player whose setup was taken as done unseen there (402, reported at
        the turn, ``_unseen_setup``): it names his unknown cards. Each card of its hand (the mulligan's new hand if
        it took one), Life and Resource not yet known (``_made``: the ones his records have used since) takes the
        place of one still unknown there (``CardsDrawn`` with ``unknown`` and ``zone``; the first carries the
        record); a card the deck does not list is 301.1 and left out. Its Start Card, Start Resource and Gate Card
        are not applied (the Square and the Dynamis are as the records since left them)."""
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        z = m.p[pl]
        self._named.add(pl)
        lost, carried = [], False
        for zone, codes in (("hand", r.get("mulligan") or r["hand"]), ("life", r["life"]), ("resource", r["resource"])):
            made = self._made.get((pl, zone), [])
            cards: list[str] = []
            deck = list(z["deck"])
            unknown = z["hand"].count(HIDDEN) if zone == "hand" else z["life"].count(HIDDEN) if zone == "life" \
                else sum(e["code"] == HIDDEN for e in z["resource"])
            for c in codes:
                if c in made:  # known already, where a record used it
                    made.remove(c)
                elif c in deck and len(cards) < unknown:
                    deck.remove(c)
                    cards.append(c)
                else:
                    lost.append(c)
            if cards or zone == "hand":
                m._drawn(player=pl, cards=cards, rec=None if carried else r, line=self.line, unknown=True, zone=zone)
                carried = True
        if lost:
            self.fail("301.1", f"{', '.join(lost)} not in {pl}'s deck (setup takes cards out of the deck)")

    def do_turn(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        unready = [p for p in ("P1", "P2") if not m.p[p]["ready"]]
        if unready and m.turn == 0:
            for p in unready:  # each his, who left his setup out (it was the turn record's writer's, once for both)
                self.fail("402", f"turn 1 before the setup of {p}", player=p)
            for p in unready:  # his setup happened unseen, the log left it out: hand 4, Life 4 and Resource 2 cards
                self._unseen_setup(p)  # from his deck, unknown to every seat (digest.8: he was never set up, and
                # his records were charged: 301.1 for every card he used, 902, 101.2 and the result lost)
        expected = m.first if m.turn == 0 else other(checks.turn_player(m))
        if m.turn == 0 and pl != expected:  # the header's `first` contradicted by the log's
            # turn 1: one 501.3 (digest.8: turn 1 was the header's player's, and every record of the log's first
            # player in it, then of the other in turn 2... charged: 503.3, 504.3, 506, 602.1, 501.3 at each `turn`)
            self.fail("501.3", f"turn 1 is {pl}'s: the header says {expected} goes first (turn 1 begins at the next "
                               f"record, the turn of the player who acts first)")
            self._turn1 = pl  # (not applied here: ``handle`` begins the turn at the next record)
            raise _Skip
        if pl != expected:  # the turns alternate (501.3): it is taken as the turn of the player whose turn it is
            self.fail("501.3", f"turn {m.turn + 1} is {expected}'s, not {pl}'s")  # (digest.7: it was the writer's,
            # and every record of the player whose turn it was after it was charged, 503.3, 504.3, 506, 602.1)
        if m.turn > 0 and m.phase != "over":
            self._unended = (m.turn + 1, checks.turn_player(m))  # its end may come next, written late (``do_end``)
            self.fail("501.3", f"turn {m.turn} of {m.active} has not ended (no end record)", player=m.active)
            # (its player's, who left his end out: it was the `turn` record's writer's)
        m._turn_started(turn=m.turn + 1, player=expected, rec=r, line=self.line)
        self._turn_line = self.line

    def _unseen_setup(self, pl: str) -> None:
        """402: ``pl``'s setup, left out of the log, taken as done where turn 1 begins: his hand 4, Life 4 and
        Resource 2 cards from his deck, unknown (``PlayerSetUp`` of ``HIDDEN``; the deck's list still holds their
        codes, ``deck_count`` counts them out) until the record that first uses one names it (``_drawn_late``,
        ``_known``); no Start Card. A setup record written later names them (``do_setup``)."""
        n = deck_count(self.m.p[pl])
        hand, life, resource = min(4, n), min(4, max(0, n - 4)), min(2, max(0, n - 8))
        self.m._set_up(player=pl, hand=[HIDDEN] * hand, mulligan=None, life=[HIDDEN] * life,
                       resource=[HIDDEN] * resource, start_card=None, start_resource=None, gate=None, line=self.line)

    def _known(self, pl: str, zone: str, code: str) -> bool:
        """Whether ``code``, used from ``pl``'s Life or Resource (``zone``), which does not hold it, was one of its
        unknown cards, of a setup left out (402, ``_unseen_setup``) and still listed in the deck: known now
        (``CardsDrawn`` with ``unknown`` and ``zone``; an unknown Resource card is Reboot: no record names it to
        Sleep)."""
        z = self.m.p[pl]
        if not z.get("unseen") or code not in z["deck"]:
            return False
        if zone == "life":
            if code in z["life"] or HIDDEN not in z["life"]:
                return False
        elif not any(r["code"] == HIDDEN for r in z["resource"]):
            return False
        self.m._drawn(player=pl, cards=[code], line=self.line, unknown=True, zone=zone)
        self._made.setdefault((pl, zone), []).append(code)
        return True

    def do_draw(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m = self.m
        if m.active is not None and self.by != m.active:
            if not m.drawn:  # the wrong player's draw in the Draw Phase: this finding stands for the turn's draw
                self._draw_seen = self._short_draw = m.turn  # (digest.7: the phase was also short, 503.3, and a
                # Resource record after it before the draw, 504.3)
        self._turn_player("503.3")
        self._draw_seen = m.turn
        if self._phase_now() != "draw":
            self.fail("503.3", f"draw record after the Draw Phase ({self._phase_now()}); card effects draw with an "
                               f"effect record (op draw)", fatal=True)
        cards = list(r["cards"])
        lost = checks.missing(m.p[self.by]["deck"], cards)
        if lost:  # the cards the deck holds are drawn, the one missing left out, and the Draw Phase is not reported
            self.fail("301.1", f"{', '.join(lost)} not in {self.by}'s deck")  # short for it (digest.7: the draw was
            self._short_draw = m.turn  # skipped, the phase short, 503.3, and the other card charged where played)
            for c in lost:
                cards.remove(c)
            self._misdrawn[self.by] = self._misdrawn.get(self.by, 0) + len(lost)  # (``_drawn_late``)
        expected = 0 if m.turn == 1 else 2
        if m.drawn + len(cards) > expected:
            if m.turn == 1:
                self.fail("503.3a", "the first player draws nothing on their first turn")
            else:
                self.fail("503.3", f"{m.drawn + len(cards)} cards drawn in the Draw Phase, needs exactly 2")
        m._drawn(player=self.by, cards=cards, rec=r, line=self.line)
        if self._draw_lines[0] != m.turn:
            self._draw_lines = (m.turn, [])
        self._draw_lines[1].append(self.line)

    def _drawn_late(self, pl: str, code: str) -> bool:
        """Whether ``code``, used from ``pl``'s hand, which does not hold it, was one of its unknown cards, of a draw
        left out (``HIDDEN``, ``_leave_draw``): known now (``CardsDrawn`` with ``unknown``), or the card of a draw
        that named another card, one not in the deck (301.1, reported there): the deck holds it, and it is drawn now
        (digest.7: it was 301.1 again, 'not in P2's hand', where it was played)."""
        z = self.m.p[pl]
        if code in z["hand"] or code not in z["deck"]:
            return False
        if HIDDEN in z["hand"]:
            if z.get("unseen"):  # a setup left out's card, or a draw left out's: which, unknown (``zone`` says so)
                self.m._drawn(player=pl, cards=[code], line=self.line, unknown=True, zone="hand")
                self._made.setdefault((pl, "hand"), []).append(code)
            else:
                self.m._drawn(player=pl, cards=[code], line=self.line, unknown=True)
            return True
        if not self._misdrawn.get(pl):
            return False
        self._misdrawn[pl] -= 1
        self.m._drawn(player=pl, cards=[code], line=self.line)
        return True

    def do_reload(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        z = self.m.p[self.by]
        if deck_count(z) > 0:
            self.fail("902", f"{self.by}'s deck is not empty ({deck_count(z)} cards): no Reload", fatal=True)
        if not z["trash"]:
            self.fail("902", f"{self.by}'s Trash is empty: nothing to Reload", fatal=True)
        life, taken, earlier = r["life"], None, None
        if life not in z["life"] and not self._known(self.by, "life", life):
            if not z["life"] or HIDDEN in z["life"]:  # Trash back into the deck all the same (digest.7), no Life
                self.fail("301.1", f"{life} is not in {self.by}'s Life")  # card to Charge
                life = None
            else:  # one finding, and the Reload takes the last card of his Life, the judge's only (301.3c), as a
                # Life card of damage named wrong does (digest.9; digest.12: it kept the Life card, and the last
                # damage of the match was refused, 101.2, the result lost)
                taken, earlier = self._life_taken_for(self.by, life)
                if earlier is None:
                    self.fail("301.1", f"{life} is not in {self.by}'s Life: the Reload puts a card of his Life the log "
                                       f"does not name into the Charge")
                self._take_life_card(self.by, life, taken, earlier)
        self.m._reloaded(player=self.by, life=life, rec=r, line=self.line, taken=taken)

    def do_resource(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, z = self.m, self.m.p[self.by]
        self._turn_player("504.3")
        if self._absent.get(r["card"]) != m.turn:  # (a payment of this turn named it before it came: reported there,
            self._not_past("resource", "504.3", "a Resource record")  # digest.7: and again here, 504.3)
        if not self._before_draw("504.3", f"{r['card']} put into Resource",
                                 "a card is put into Resource in the Resource Phase"):
            self._leave_draw()
            self._enter("resource")
        if z["resource_used"]:
            self.fail("504.3", f"{self.by} already put a card into Resource this turn")
        if r["card"] not in z["hand"] and not self._drawn_late(self.by, r["card"]):
            self.fail("301.1", f"{r['card']} is not in {self.by}'s hand", fatal=True)
        if self._absent.get(r["card"]) == m.turn:  # the card a payment of its turn named before it came (that 301.1
            del self._absent[r["card"]]  # stands for the swap); one missing since an earlier turn (its Resource
            # record left out) is a copy the state still lacks: this is another (digest.7: it was forgotten here, and
            # a payment naming both was 301.1, 'paid 2 times')
        m._resource_placed(player=self.by, card=r["card"], rec=r, line=self.line)

    def do_ignition(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, z, pl = self.m, self.m.p[self.by], self.by
        self._turn_player("505.3")
        self._not_past("ignition", "505.3", "an Ignition")
        if not self._before_draw("505.3", "an Ignition", "Ignition is performed in the Ignition Phase"):
            self._leave_draw()
            self._enter("ignition")
        if not z["charge"]:
            self.fail("505.3a", "Ignition with an empty Charge", fatal=True)
        if r["charge"] not in z["charge"]:
            swaps = self._life_swaps(pl, [r["charge"]])  # (the Life card of a damage named wrong, 301.1: digest.9)
            if swaps is None:
                self.fail("301.1", f"{r['charge']} is not in {pl}'s Charge", fatal=True)
            self._swap_life(pl, swaps)
        revealed = r["revealed"]
        if revealed not in z["deck"]:
            self.fail("301.1", f"{revealed} is not in {pl}'s deck", fatal=True)
        card = self.card(revealed)
        play = r.get("play")
        kind = _KIND.get(card.type, "card")
        if play is not None:
            if not card.ignition:
                self.fail("505.3a", f"{revealed} has no IG icon: it cannot be played free")
            self._free_play(card, play, pl)
        m._ignition(player=pl, charge=r["charge"], revealed=revealed, play=play, kind=kind,
                    base=card.power, rec=r, line=self.line)
        if play is not None and card.is_event:  # resolves in Temporary, then Trash
            self.resolving = (pl, revealed, "trash")

    def _free_play(self, card: Card, play: dict, pl: str) -> None:
        """An IG card played free (505.3a, or from Life by damage): a Z/X needs a legal Square."""
        if card.is_zx:
            if not play.get("square"):
                self.fail("806", f"{card.code} is a Z/X: its play needs a square", fatal=True)
            self.check(checks.placement(self.m, pl, play["square"]), fatal=True)
        elif not card.is_event:
            self.fail("505.3a", f"{card.code} is {card.type.a}: only Z/X and Events are played free",
                      fatal=True)

    # ------------------------------------------------------------------ playing cards
    def do_play(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        z = m.p[pl]
        code = r["card"]
        card = self.card(code)
        zone = r.get("from", "hand")
        b = m.battle
        in_step = b is not None and b["step"] == "event"
        if card.is_event:
            if in_step and b is not None:
                if b["priority"] != pl:
                    self.fail("603.1b", f"{pl} plays {code} without priority ({b['priority']} has it)")
            elif m.active is not None and pl != m.active:  # 506 (603.1b is the step's; before turn 1: _not_past)
                self.fail("506", f"{pl} plays the Event {code} in {m.active}'s turn outside a Battle Event Step")
            else:
                self._not_past("main", "506", f"the Event {code} played")
                if not self._before_draw("506", f"the Event {code} played", "Events are played in the Main Phase"):
                    self._leave_draw()
                    self._enter("main")
        else:
            if in_step and b is not None:  # one finding, not applied: the card stays in the hand, the priority where
                # it was; the passes after it are the step's (digest.11: it closed the step as if its trailing passes
                # were left out, then 604.3b for the Life card owed, 506 or 301.1 for the play, 603.1b for the next pass)
                how = "in the Battle Event Step" if b["priority"] == pl else \
                    f"without priority ({b['priority']} has it)"
                self._step_refused = r
                self.fail("603.1b", f"{pl} plays {code} {how}: only Events and abilities are played in the Battle "
                                    f"Event Step, not the {card.type.value} {code} (not applied)", fatal=True)
            if m.active is not None and pl != m.active:  # (before turn 1: _not_past says so)
                self.fail("506", f"{pl} plays {code} in {m.active}'s turn: cards other than Events are played "
                                 f"only in your own Main Phase", fatal=True)
            self._not_past("main", "506", f"{code} played")
            if not self._before_draw("506", f"{code} played", "cards other than Events are played in your own Main Phase"):
                self._leave_draw()
                self._enter("main")
        extra = ghost = False
        if zone == "dynamis":
            if not card.type.in_dynamis:
                self.fail("301.1", f"{code} is {card.type.a}, not a Dynamis card", fatal=True)
            if not any(d["code"] == code for d in z["dynamis"]):
                self.fail("301.1", f"{code} is not in {pl}'s Dynamis", fatal=True)
            if card.type.is_extra:
                extra = True
                if z["extra_used"]:
                    self.fail("603.1b" if in_step else "506",
                              f"{pl} already played a Z/X EX or EV EX from Dynamis this turn")
        else:
            if card.type.in_dynamis:
                self.fail("301.1", f"{code} is {card.type.a}: it is played from Dynamis (from: dynamis)",
                          fatal=True)
            if code not in z["hand"] and not self._drawn_late(pl, code):
                if code not in self.m.players[pl].get("deck", {}) or len(z["hand"]) <= self._ghost.get(pl, 0):
                    self.fail("301.1", f"{code} is not in {pl}'s hand", fatal=True)
                if self._repeat:  # the play just before, logged twice: skipped, and the finding says so (it said
                    # 'played as written', the words of a play applied, ``fail`` making it fatal)
                    self.fail("301.1", f"{code} is not in {pl}'s hand: the same record as line {self._before_line}, "
                                       f"logged twice (skipped)", fatal=True)
                # a card of his deck list: played as written, one finding, for a card of the hand the log does not
                # name, which stays there uncounted (``_ghost``; digest.7: skipped, and its attack was 602.1a, an
                # attack on it 602.1b)
                self.fail("301.1", f"{code} is not in {pl}'s hand: {PLAYED_AS_WRITTEN}")
                ghost = True
        pay = list(r.get("pay", []))
        if z.get("unseen"):  # a card paid that Resource does not hold (Reboot): one of its unknown cards (402)
            for c in checks.missing([e["code"] for e in z["resource"] if not e["sleep"]], pay):
                self._known(pl, "resource", c)
        held = [e["code"] for e in z["resource"]]
        if self._skipped_resource == (m.turn, pl) and not z["resource_used"]:
            # a Resource record of this turn refused (its card not in hand, say: reported there): the card of the hand
            # a payment names that is not in Resource is the one it meant (digest.7: 301.1 again, here)
            meant = next((c for c in checks.missing(held, pay) if c in z["hand"]), None)
            if meant is not None:
                self._absent.setdefault(meant, m.turn)
                self._skipped_resource = None
        for problem in checks.cost_problems(m, self.cat, pl, card, pay, self._absent):
            if ghost and (problem[0] == "204.6" or problem[1].startswith(f"{code} ")):
                continue  # the cost and colour are the card meant's, which the log does not name: its 301.1 stands
            self.check(problem)
        for c in checks.missing(held, pay):  # 301.1 reported once, here
            self._absent.setdefault(c, m.turn)  # (digest.7), a card not there or named more often than held
        square = r.get("square")
        on = r.get("on")
        kind = _KIND.get(card.type)
        if card.is_zx:
            if not square:
                self.fail("806", f"{code} is a Z/X: its play needs a square", fatal=True)
            self.check(checks.placement(m, pl, square), fatal=True)
            if card.type == CardType.ZX_OB and checks.controls_overboost(m, pl):
                self.fail("202.7g", f"{pl} already has a Z/X Overboost on Square")
        elif card.type == CardType.SHIFT:
            vessel = m.sq.get(on) if on else None
            if vessel is None:  # what is wrong, said (digest.12: "needs a card on Square" with a Player card there)
                holder = next((p for p in ("P1", "P2") if on == str(player_square(p))), None) if on else None
                if not on:
                    why = f"the Shift {code} needs a card on Square to go on: the play names none (on: its Square)"
                elif holder is not None and m.p[holder]["player_card"]:
                    why = (f"{on} holds no card but {holder}'s Player card, which is no Shift Vessel: the Shift {code} "
                           f"goes on a card put on the Square, not on a Player card")
                else:
                    why = f"{on} holds no card: the Shift {code} cannot exist on its own on Square"
                self.fail("202.8d", why, fatal=True)
            if checks.controls_shift(m, pl):
                self.fail("202.8c", f"{pl} already controls a Shift on Square")
        elif not card.is_event:
            self.fail("806", f"{card.type.a} card is not played", fatal=True)
        assert kind is not None  # (a Z/X, a Shift or an Event: every other type is refused above, 806)
        m._played(player=pl, card=code, zone=zone, pay=list(r.get("pay", [])), kind=kind,
                  square=square if card.is_zx else None, on=on if card.type == CardType.SHIFT else None,
                  base=card.power, extra=extra, rec=r, line=self.line)
        if ghost:
            self._ghost[pl] = self._ghost.get(pl, 0) + 1
        if card.is_event:  # it resolves in Temporary (the state has sent it on at once: an EV EX to Dynamis)
            self.resolving = (pl, code, "dynamis" if card.type.is_extra else "trash")

    # ------------------------------------------------------------------ battle (601-605)
    def do_attack(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        if m.active is None:
            self.fail("602.1", f"{pl} declares a battle before the first turn (no turn record yet)", fatal=True)
        if pl != m.active:
            self._refuse(other(m.active))
            self.fail("602.1", f"only the turn player {m.active} declares a battle", fatal=True)
        if m.battle is not None:
            self.fail("602.1", "a battle is already under way", fatal=True)
        try:
            self._not_past("main", "602.1", "a battle declared", apply=False)  # (a battle after the End Phase would
            # run into the next turn: skipped, as before)
        except _Skip:
            self._refuse(other(pl))  # its passes and Life card with it (digest.7: each pass was 603.1b)
            raise
        if not self._before_draw("602.1", "a battle declared", "a battle is declared in the Main Phase"):
            self._leave_draw()
            self._enter("main")
        src, dst = r["from"], r["target"]
        problem = checks.attacker(m, pl, src)
        on_player = Square.parse(dst) == player_square(other(pl))  # only an attack on his Player Square owes a Life
        # card (604.3b); one on a Z/X never does (604.3a), refused or not
        if problem is not None:  # 602.1c: no attacker to choose, no battle (digest.12: a Sleep Z/X's, or a face-down
            self._refuse(other(pl), on_player)  # card's, attack opened one, and its Life card "due" was a second
            # finding, 604.3b)
            self.check(problem, fatal=True)
        entry = m.sq[src]
        assert entry is not None  # (checks.attacker: a Z/X of his is there)
        target_kind, problem = checks.attack_target(m, pl, dst)
        fatal = target_kind is None and problem is not None and problem[0] != "202.7e"  # (no target: a problem)
        if fatal:
            self._refuse(other(pl), on_player)
        self.check(problem, fatal=fatal)
        if target_kind is None:
            target_kind = "player"
        card = self.cat.get(entry["code"])
        problem = checks.attack_geometry(src, dst, card)
        if problem is not None:  # 602.1c: a target the attacker cannot choose, no battle (digest.12: the battle
            self._refuse(other(pl), on_player)  # opened all the same, 604.3b for a Life card "due", and its narration
            self.check(problem, fatal=True)  # invented a Range for a Z/X with none)
        dist = Square.parse(src).distance(Square.parse(dst))
        target_info = None
        if target_kind == "zx":
            t = m.sq[dst]
            assert t is not None  # (checks.attack_target: a Z/X is there)
            target_info = {"uid": t["uid"], "code": t["code"], "power": power_of(t)}
        m._attack(player=pl, square=src, target=dst,
                  attacker={"uid": entry["uid"], "code": entry["code"], "power": power_of(entry)},
                  target_kind=target_kind, target_info=target_info, distance=dist,
                  range_used=dist > 1 and card is not None and card.range is not None,
                  rec=r, line=self.line)
        if self._stray is not None and self._before is self._stray[1]:  # the attacker's pass, written just before
            m._passed(player=pl, line=self._stray[0])  # the attack: reported there, and the battle's first pass
            # (digest.7: the defender's pass after the attack was 603.1b, the attacker having priority)

    def _keeps_step_open(self, rec: dict) -> bool:
        """Records of the Battle Event Step; any other record closes it (implied trailing passes).

        A ``reload`` or ``charge_excess`` record is a rule effect owed before a player gets priority
        (702; 602.1f, 604.1, 605.1): it is performed in the step, and priority stays where it was. With
        nothing owed, and none of its kind left out before it (written late), it is not the step's: the
        trailing passes were left out, and it is owed after the battle damage (digest.7: it was refused,
        905 or 902, and asked for again at the next record)."""
        kind = rec["do"]
        if kind in ("pass", "effect", "concede"):
            return True
        if kind == "life" and self._late_life == (self.m.turn, self.by):  # the Life card of the battle before,
            return True  # one record late (after this battle's attack): not this one's damage (``do_life``; digest.7:
            # it closed this step, took this battle's damage, and both passes after it were 603.1b)
        if kind in ("reload", "charge_excess"):
            return self.due() is not None or f"{kind}:{self.by}" in self.m.waived \
                or kind == "charge_excess" and self.by is not None and bool(self._excess_kept.get(self.by))
        card = self.cat.get(rec["card"]) if rec["do"] == "play" else None
        if card is None or card.is_event:
            return card is not None
        # a card other than an Event is the step's (603.1b, ``do_play``) where it cannot come after the step closed
        # with its trailing passes left out: the non-turn player's (506 there), or the turn player's while the battle
        # would then owe a Life card, which it would break (604.3b) (digest.11: it closed the step, three findings)
        m = self.m
        b = m.battle
        assert b is not None  # (``handle`` asks while a battle is in its Event Step)
        return self.by != m.active or b["target_kind"] == "player" and b["attacker_uid"] is not None \
            and checks.find_uid(m, b["attacker_uid"]) is not None and not checks.controls_overboost(m, b["defender"])

    def _refuse(self, defender: str, on_player: bool = True) -> None:
        """A battle that is not applied (its attack refused, or left out): the passes and the defender's Life card
        after it are its own (``do_pass``, ``do_life``), not charged again. ``on_player``: its attack aimed at the
        defender's Player Square (or is left out); an attack on a Z/X, or on a Square that is not his Player
        Square, owes no Life card (604.3a), and one after it is 604.3b (round 36: it was taken silently)."""
        self._refused, self._refused_passes = (self.m.turn, defender), 0
        self._refused_life = on_player

    def do_pass(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m = self.m
        b = m.battle
        if b is None and self._refused is not None and self._refused[0] == m.turn and self._refused_passes < 2:
            n, defender = self._refused_passes, self._refused[1]
            has = other(defender) if n == 0 else defender
            if self.by != has:  # out of order all the same (digest.7: skipped unchecked)
                self.fail("603.1b", f"{self.by} passes without priority ({has} has it, in the battle not applied "
                                    f"above)", fatal=True)
            self._refused_passes += 1
            raise _Skip  # a pass of the battle refused at its attack: that finding stands for it (digest.7)
        if b is None and self.by == m.active and m.phase not in ("setup", "over", "ended"):
            self._stray = (self.line, r)  # the attack may come next: this pass then is its first (``do_attack``)
            self._refuse(other(self.by))  # the first pass of a battle whose attack is left out: reported once, here,
            self._refused_passes = 1  # and the defender's pass and Life card after it are that battle's (digest.7:
            # each pass was 603.1b, and the Life card 604.3b)
        if b is None or b["step"] != "event":
            self.fail("603.1b", "pass outside a Battle Event Step", fatal=True)
        if b["priority"] != self.by and b["passes"] == 1 and self.by == other(b["priority"]) \
                and self._step_refused is not None and self._before is self._step_refused:
            # the pass again of the player who passed before the card refused in the step (603.1b, ``do_play``): it
            # answers the play as if it had been an action; the play not applied, his pass before stands and this
            # one changes nothing, its finding standing for it (digest.11: 603.1b, "pass outside a Battle Event Step")
            raise _Skip
        w = self._wrong_pass
        if b["priority"] != self.by and w is not None and self._before is w[1] and w[1]["by"] == self.by:
            # the pass just refused, and now one by the same player: that one was the pass of the player with
            # priority under the wrong seat, applied now as his (digest.7: this one, legal after it, was charged too)
            self.m._passed(player=b["priority"], line=w[0])
            if b["passes"] >= 2:
                self._damage_step()
                raise _Skip
        if b["priority"] != self.by:
            self._wrong_pass = (self.line, r)
            self.fail("603.1b", f"{self.by} passes without priority ({b['priority']} has it)", fatal=True)
            # not applied: it changes nothing (digest.7: it counted as the second pass, the damage step came
            # early, and the next legal pass was charged, 603.1b)
        self.m._passed(player=self.by, rec=r, line=self.line)
        after = self.m.battle
        if after is not None and after["passes"] >= 2:  # 603.1c: both passed
            self._damage_step()

    def _damage_step(self) -> None:
        """604: the attacker deals its Power to a Z/X target, or 1 damage to the player."""
        m = self.m
        b = m.battle
        assert b is not None  # (a battle's Event Step closing)
        att = checks.find_uid(m, b["attacker_uid"])
        if att is None:  # 604.2
            outcome, amount = "fizzled", 0
        elif b["target_kind"] == "zx":
            if checks.find_uid(m, b["target_uid"]) is None:  # 604.3a
                outcome, amount = "fizzled", 0
            else:  # 604.3d: the target stays the target, wherever it moved
                outcome, amount = "damaged_zx", max(0, power_of(att[1]))
        elif checks.controls_overboost(m, b["defender"]):  # 604.3c
            outcome, amount = "no_damage_overboost", 0
        else:  # 604.3b
            outcome, amount = "player_damaged", 1
        self._no_damage = (m.turn, b["defender"]) if outcome == "no_damage_overboost" else None
        m._battle_damage(outcome=outcome, amount=amount, line=self.line)
        self.settle()  # 604.4 / 605: rule effects, then the Battle End Step when nothing is owed

    def do_life(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        b = m.battle
        late = False
        if b is None or b["life_due"] <= 0 or b["defender"] != pl:
            if self._broke is not None and self._broke.startswith("life:"):
                raise _Skip  # the other player's Life card in place of the one owed: reported once, there (digest.7)
            if self._late_life == (m.turn, pl):  # the Life card owed, written after the record reported in its
                late, self._late_life = True, None  # place (604.3b): applied, not charged again (digest.7)
            elif b is None and self._refused == (m.turn, pl) and self._refused_life:  # the Life card of the
                # battle refused at its attack, aimed at his Player Square:
                late, self._refused = True, None  # applied as the damage the log says it took, not charged (digest.7)
            elif self._no_damage == (m.turn, pl):  # the battle just fought on him dealt none (digest.12: 604.3b)
                self.fail("604.3c", f"no damage is dealt to {pl}: {pl} controls a Z/X Overboost on Square, so no Life "
                                    f"card is due", fatal=True)
            elif b is None and self._refused == (m.turn, pl):  # the battle refused at its attack, on a Z/X
                self.fail("604.3b", f"no damage to {pl} is waiting for a Life card (the attack refused above was not "
                                    f"on {pl}'s Player Square: an attack on a Z/X deals {pl} no damage, 604.3a)",
                          fatal=True)
            else:
                self.fail("604.3b", f"no damage to {pl} is waiting for a Life card", fatal=True)
        z = m.p[pl]
        code = r["card"]
        ignite = r.get("ignite")
        taken = earlier = None
        misnamed = code not in z["life"] and not self._known(pl, "life", code)  # (one of a setup left out's unknown
        if misnamed:  # cards is in it)
            if not z["life"] or HIDDEN in z["life"]:
                self.fail("301.1", f"{code} is not in {pl}'s Life", fatal=True)
            taken, earlier = self._life_taken_for(pl, code)
            if earlier is None:
                self.fail("301.1", f"{code} is not in {pl}'s Life: the damage lands on a card of his Life the log "
                                   f"does not name" + ("" if ignite is None else f"; {code} is played as written"))
        card = self.card(code)
        if ignite is not None:
            if not card.ignition:
                self.fail("505.3a", f"{code} has no IG icon: it cannot be played from Life")
            self._free_play(card, ignite, pl)
        if misnamed and taken is not None:  # (after the checks that may skip the record; misnamed: taken is set)
            self._take_life_card(pl, code, taken, earlier)
        life_after = len(z["life"]) - 1
        triggers: list[str] = []
        if ignite is not None and life_after <= len(m.p[other(pl)]["life"]) and not late:
            if card.life_recovery and deck_count(z) > 0:  # 1102
                triggers.append(f"recover:{pl}")
            if card.void_bringer:  # 1103
                triggers.append(f"void:{pl}")
        m._life_damaged(player=pl, card=code, ignite=ignite, kind=_KIND.get(card.type, "card"),
                        base=card.power, life_after=life_after, triggers=triggers, rec=r, line=self.line,
                        taken=taken)
        if ignite is not None and card.is_event:  # resolves in Temporary, then Trash
            self.resolving = (pl, code, "trash")

    def _life_taken_for(self, pl: str, code: str) -> tuple[str, int | None]:
        """The card of ``pl``'s Life a damage takes where its Life record names ``code``, not in his Life: the last
        of his Life, the judge's only (301.3c: ``LifeDamaged``'s ``taken``); ``code``, as named, goes to the Charge
        (the log made it public), or is played from the Life as written with an Ignition (digest.9: that record was
        skipped, fatal 301.1: the damage still owed, a Z/X missing from its Square, the result lost). One 301.1
        (digest.8: the record skipped, he kept that Life card, his Charge a card short, 905 at his next Charge
        Excess, a result at his 0 Life 101.2, no winner); but ``code`` the card an earlier such damage took (its
        index in ``_life_taken``, the second value; else None): it was this damage's, no finding, and that one took
        another. ``_take_life_card`` records it once the record is applied."""
        pairs = self._life_taken.get(pl, [])
        return self.m.p[pl]["life"][-1], next((i for i, (_, was) in enumerate(pairs) if was == code), None)

    def _take_life_card(self, pl: str, code: str, taken: str, earlier: int | None) -> None:
        """Remember ``_life_taken_for``'s pairing: (the card named, the card taken), for a later record naming
        the card taken (``_life_swaps``)."""
        pairs = self._life_taken.setdefault(pl, [])
        if earlier is None:
            pairs.append((code, taken))
        else:
            pairs[earlier] = (pairs[earlier][0], taken)

    def _life_swaps(self, pl: str, codes: list[str]) -> list[tuple[str, str, str]] | None:
        """Where a Charge record (an Ignition's cost, a Charge Excess) names ``codes``, not in ``pl``'s Charge:
        each a card of his Life, or one taken for a damage whose Life record named a card not in his Life, while
        the card that record named is still in his Charge, was that damage's card (no finding): the swaps (card,
        card named, card taken) that set the Charge right (``LifeCardKnown``); None if one of them is not so."""
        z = self.m.p[pl]
        spare, pairs = list(z["charge"]), []
        for named, was in self._life_taken.get(pl, ()):  # the ones whose named card the log has not used from the
            if named in spare:  # Charge since (one copy each)
                spare.remove(named)
                pairs.append((named, was))
        life = list(z["life"])
        swaps = []
        for code in codes:
            pair = next((q for q in pairs if q[1] == code), None)
            if pair is None and code in life and pairs:
                pair = pairs[-1]
            if pair is None:
                return None
            pairs.remove(pair)
            if code in life:
                life.remove(code)
            swaps.append((code, *pair))
        return swaps

    def _swap_life(self, pl: str, swaps: list[tuple[str, str, str]]) -> None:
        """Perform ``_life_swaps``' swaps: each a ``LifeCardKnown`` (its card taken the judge's only)."""
        pairs = self._life_taken.get(pl, [])
        for code, named, was in swaps:
            pairs.remove((named, was))
            self.m._life_card_known(player=pl, card=code, placeholder=named, taken=was, line=self.line)

    def do_charge_excess(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        z = self.m.p[self.by]
        kept = self._kept_excess(self.by)  # left there by a Charge Excess left out: judged without them
        n = len(z["charge"]) - LIMIT_CHARGE - kept
        if kept and self._late_excess == (self.m.turn, self.by) and len(r["trash"]) == n + kept:
            # the Charge Excess left out, written late in the turn it was owed (after the record reported in its
            # place), with any owed now: it meets them all (digest.7: 905 again, 'not above the limit', and the
            # cards stayed in Charge)
            self._excess_kept.pop(self.by, None)
            self._late_excess = None
            n, kept = n + kept, 0
        left = f" ({_cards(kept)} over it kept there since a Charge Excess was left out)" if kept else ""
        if n <= 0:
            self.fail("905", f"{self.by}'s Charge holds {len(z['charge'])} cards, not above the limit of "
                             f"{LIMIT_CHARGE}{left}", fatal=True)
        if len(r["trash"]) != n:
            self.fail("905", f"{self.by}'s Charge holds {len(z['charge'])} cards{left}: exactly {n} go to Trash, "
                             f"{len(r['trash'])} given")
        lost = checks.missing(z["charge"], r["trash"])
        swaps = self._life_swaps(self.by, lost) if lost else None  # (the Life card of a damage named wrong, 301.1)
        if lost and swaps is None:
            self.fail("301.1", f"{', '.join(lost)} not in {self.by}'s Charge", fatal=True)
        self._swap_life(self.by, swaps or [])
        self.m._charge_excess(player=self.by, cards=list(r["trash"]), rec=r, line=self.line)

    # ------------------------------------------------------------------ effects
    def do_effect(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        if r.get("startup"):
            self._startup(r)
        args = check_effect(self, r)
        self.m._effect(player=self.by, source=r["source"], op=r["op"], args=args, rec=r, line=self.line)
        if "resolving" in args:  # the Event resolving has been moved out of Temporary
            self.resolving = None

    def _startup(self, r: dict) -> None:
        """807: ``startup: true`` marks the effect record that plays a startup ability (the records
        after it without the key are its resolution). In the Battle Event Step it is one of the four
        actions of the player with priority (603.1b), and priority goes to the other player (603.1c);
        outside a battle only the turn player plays one (the non-turn player acts only in a Battle
        Event Step), in their Main Phase (506): not before the first turn, in the Draw Phase before its
        draw, or after the End Phase."""
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        b = m.battle
        source = r["source"]
        if b is not None and b["step"] == "event":
            if b["priority"] != pl:
                self.fail("603.1b", f"{pl} plays a startup ability of {source} without priority "
                                    f"({b['priority']} has it)")
        else:
            if m.active is not None and pl != m.active:  # 506: 603.1b is the Battle Event Step's
                self.fail("506", f"{pl} plays a startup ability of {source} in {m.active}'s turn outside "
                                 f"a Battle Event Step")
            self._not_past("main", "506", f"a startup ability of {source} played", apply=False)
            if not self._before_draw("506", f"a startup ability of {source} played",
                                     "startup abilities are played in the Main Phase"):
                self._enter("main")
        self.check(checks.startup_source(m, pl, source))  # 302.1c: an ability's controller is its card's
        m._ability_played(player=pl, source=source, line=self.line)

    # ------------------------------------------------------------------ end of turn and game
    def do_end(self, r: dict) -> None:
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        m, pl = self.m, self.by
        if m.active is None:
            self.fail("501.3", f"{pl} ends a turn before the first turn (no turn record yet)", fatal=True)
        if pl != m.active and self._unended == (m.turn, pl) and self._before is not None \
                and self._before["do"] == "turn":
            # the end of the turn before, written after the turn record: reported there (digest.7: and again here,
            # 'P1 ends a turn that is P2's'; then it was skipped whole, its discards kept in the hand, and the hand
            # limit charged at his next End Phases, 309.2a): its discards leave the hand, nothing else happens
            self._unended = None
            discard = list(r.get("discard", []))
            for c in checks.missing(m.p[pl]["hand"], discard):  # (the cards the hand holds)
                discard.remove(c)
            m._late(player=pl, discard=discard, rec=r, line=self.line)
            return
        if pl != m.active:
            self.fail("501.3", f"{pl} ends a turn that is {m.active}'s", fatal=True)
        if m.phase in ("over", "setup"):
            self.fail("501.3", "no turn under way to end", fatal=True)
        self._leave_draw()
        z = m.p[pl]
        discard = list(r.get("discard", []))
        lost = [c for c in checks.missing(z["hand"], discard) if not self._drawn_late(pl, c)]
        held = len(z["hand"]) + self._misdrawn.get(pl, 0) - self._ghost.get(pl, 0)  # the hand as the log has it
        if lost:  # the cards the hand holds are discarded as written and the turn ends; the card meant for one not
            # there stays in the hand, uncounted (digest.7: the end was skipped, the turn never ended, and the other
            # player's turn record after it was charged, 501.3)
            self.fail("301.1", f"{', '.join(lost)} not in {pl}'s hand: nothing is discarded for "
                               f"{'it' if len(lost) == 1 else 'them'} (the End Phase discards from the hand)")
            self._ghost[pl] = self._ghost.get(pl, 0) + len(lost)
            for c in lost:
                discard.remove(c)
        need = max(0, held - LIMIT_HAND)
        if len(r.get("discard", [])) != need:
            self.fail("309.2a", f"{pl} holds {_cards(held)}: the End Phase discards exactly {need} "
                                f"to the hand limit of {LIMIT_HAND}, {len(r.get('discard', []))} discarded")
        m._turn_ended(player=pl, discard=discard, rec=r, line=self.line)

    def do_concede(self, r: dict) -> None:  # 101.4
        assert self.by is not None  # (every record kind's schema requires `by`: ``handle`` set it)
        self.m._conceded(player=self.by, rec=r, line=self.line)
        self.m._ended(winner=other(self.by), reason="concede", line=self.line)

    def do_result(self, r: dict) -> None:  # 101.2
        o = self.m.outcome
        winner = r.get("winner")
        if self.result_line is not None:  # the one record allowed after the end is the result, once
            self.fail("501.3", f"a second result record after the game has ended (the result is at line "
                               f"{self.result_line})", fatal=True)
        self.result_line = self.line
        if o is None:
            self.fail("101.2", f"result says {_who(winner)}, but the game has not ended by the rules")
        elif o["winner"] != winner:
            self.fail("101.2", f"result says {_who(winner)}, the engine's outcome is {self._outcome_text()}")
        self.m._result(winner=winner, reason=r.get("reason"), rec=r, line=self.line)

    def _outcome_text(self) -> str:
        o = self.m.outcome or {}
        if o.get("reason") == "draw":  # (it said "a draw by draw")
            return "a draw, both players at 0 Life at once"
        return f"{_who(o.get('winner'))} by {o.get('reason')}"


_TURN_ACTS = {"draw": "503.3", "resource": "504.3", "ignition": "505.3", "play": "506", "attack": "602.1",
              "end": "501.3"}  # records only a turn player writes outside a battle, and their rule: after the End
# Phase, the other player's begin his turn; in a turn, the other's naming the turn player's cards are his (handle)
_DO = {name[3:]: f for name, f in vars(Referee).items() if name.startswith("do_")}  # kind -> Referee.do_KIND


def _lethal_after_battle(m: Match) -> bool:
    """605.5: would a Z/X have lethal damage once its "until end of battle" effects disappear? (Only
    then the engine records their end on its own, before the battle ends; otherwise ``BattleEnded``
    ends them as it always did, so matches without such a Z/X keep the same events.)"""
    for e in m.sq.values():
        if e is not None and e["base"] is not None and "end_of_battle" in e["mends"]:
            if checks.lethal(e, ending="end_of_battle"):
                return True
    return False


def _a(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _cards(n: int) -> str:
    return f"{n} card{'' if n == 1 else 's'}"


def _who(winner: str | None) -> str:
    return f"{winner} won" if winner else "a draw"
