"""From Match events to analytics rows: one small state per match, plain tuples out.

``MatchRows`` is fed the decoded payloads of one match's events in order (``feed``) and appends
finished rows to per-table buffers (lists of tuples in the column order of ``COLUMNS``). A row is
appended once, when it is final: a play, a life point or an ignition at once; an attack when its
battle ends (605) or the match does; a turn when it ends; the match, seat and card-game rows when
the match is closed. The values still in flight (the turn and battle under way, Life counts, the
per-side and per-card summaries) are JSON-native, so the projector can persist them with its
tracking position and resume exactly (``to_json``).

Life counts follow the events that name them: setup, Life damage (which carries the count after
it), Reload (902), Life Recovery (1102), effects that move a named card into or out of Life, and
effects that move a card from a Square into Life: the engine records whose Life each arriving card
joins (``into_life``: a Token disappears, a Z/X EX goes to Dynamis, a Shift goes with its vessel).

Cards come into the hand (``draws``, and ``card_games`` drawn: seen, not a "game not seen") by the
setup, the Draw Phase, an effect's ``draw``, and an effect's ``move`` of a named card to ``hand``; the card
of a draw that named a card not in the deck (301.1), drawn (``CardsDrawn`` without a record) where its player
first used it (``Referee._drawn_late``), is a ``late`` row: no Draw Phase draw of that turn; so is the card of a Draw
Phase draw left out of the log, unknown in the hand (a ``CardsDrawn`` of ``HIDDEN``: no row) until the record that
first uses it (``CardsDrawn`` with ``unknown``). The opening hand (and
the hand a mulligan returned) is turn 0, whenever its setup record comes (402: written after turn 1's, applied late).

A card played from a hand that does not hold it, taken as written (301.1, ``Referee._ghost``: the finding's message
ends with ``rules.PLAYED_AS_WRITTEN``; ViolationRecorded is read for it), was in the hand, brought there by a record
the log left out. A player not set up at turn 1 (his setup left out, 402) holds a hand of 4 cards the log never
names: such a card is one of them while they last and his deck (``hidden``: its list less the cards the events take
out of it) holds it, an ``opening`` row (turn 0), as X610Z's unknown hand (105.2a); else (a mulligan or an effect's
move to hand left out) a ``late`` row. A card discarded at an `end` that the hand does not hold is not discarded
(the referee's 301.1): no row.

A turn's row waits (``prev``) until the next turn's is finished: ``ended`` is its `end` record applied, in time
(``TurnEnded``) or written after the next `turn` record (a ``LateRecord`` of its player).

Column meanings are documented in docs/data-dictionary.md.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Callable

from zx_events.games.rowkit import SHARED_COLUMNS, DeckMemo, parse_played_at  # noqa: F401  (parse_played_at: here too)
from zx_events.games.rowkit import deck_list as _deck_list
from zx_events.games.rowkit import instant as _instant
from zx_events.games.rowkit import match_head
from zx_events.games.rowkit import shipped_catalog
from zx_events.games.zx.match import topic as event_topic
from zx_events.games.zx.rules import PLAYED_AS_WRITTEN
from zx_events.seats import HIDDEN

COLUMNS: dict[str, tuple[str, ...]] = {  # the shared tables (zx_events.games.rowkit), then Z/X's own
    **SHARED_COLUMNS,
    "plays": ("match_id", "match_no", "seq", "turn", "player", "card", "zone", "kind", "square", "on_square", "cost",
              "extra", "own_turn", "attack_seq"),
    "attacks": ("match_id", "match_no", "seq", "turn", "player", "attacker_card", "attacker_power",
                "attacker_square", "target_kind", "target_card", "target_power", "target_square", "distance",
                "range_used", "events", "event_count", "outcome", "life_damage", "battle_ended", "first_of_card",
                "first_of_square", "first_of_target"),
    "life": ("match_id", "match_no", "seq", "turn", "player", "card", "kind", "ig_played", "life_recovery",
             "void_bringer", "life_after", "attack_seq"),
    "ignitions": ("match_id", "match_no", "seq", "turn", "player", "charge_card", "revealed", "kind", "played",
                  "square"),
}
PROJECTED = tuple(t for t in COLUMNS if t != "card_catalog")

# The topics the projection reads; the others (PriorityPassed, ChargeExcessTrashed, Conceded,
# ResultRecorded) carry nothing the tables hold, so they are not even fetched.
TOPICS = tuple(event_topic(n) for n in (
    "Started", "PlayerSetUp", "TurnStarted", "CardsDrawn", "Reloaded", "ResourcePlaced", "IgnitionPerformed",
    "CardPlayed", "AttackDeclared", "BattleDamageDealt", "ZXDestroyed", "BattleEnded", "LifeDamaged",
    "EffectApplied", "TurnEnded", "LateRecord", "MatchEnded", "ViolationRecorded"))

COLOUR_ORDER = ("red", "blue", "white", "black", "green")
IDENTITY_SHARE = 0.10  # a colour is part of a deck's identity from 10% of its coloured copies


def deck_colours(deck: dict[str, int] | None, colours_of: dict[str, tuple[str, ...]] | None) -> tuple[str | None, str | None]:
    """A deck's colour identity and every colour in it, each as a '/'-joined string in game order.

    Weights are main-deck copies; a multicolour card counts once for each of its colours and a
    colourless card for none. The identity keeps the colours with at least ``IDENTITY_SHARE`` of
    the weight, so one splashed card does not make a deck two-coloured ("Blue Control" with one
    red/blue card is ``blue``; ``colours_all`` says ``red/blue``). None without a catalog.
    """
    if colours_of is None or not deck:
        return None, None
    weight: dict[str, int] = {}
    for code, n in deck.items():
        for c in colours_of.get(code, ()):
            weight[c] = weight.get(c, 0) + int(n)
    total = sum(weight.values())
    if total == 0:
        return "none", "none"
    ident = "/".join(c for c in COLOUR_ORDER if weight.get(c, 0) >= IDENTITY_SHARE * total)
    every = "/".join(c for c in COLOUR_ORDER if weight.get(c, 0) > 0)
    return ident, every


GAME = "zx"  # the analytics ``game`` column of this game's matches
HAND = 4  # 402: the cards first dealt to a hand
SIGNATURE_CARDS = 2  # cards named in an archetype label


@cache
def card_facts(catalog: str | None, sha256: str | None = None, given: Any = None
               ) -> dict[str, tuple[str, float, int]] | None:
    """code -> (label, cost, power) of the catalog a match was checked against (its name and SHA-256,
    as its Started event pins them): ``given``, the catalog file the user handed the projection with
    that SHA-256 (``zx analytics update --catalog FILE``), else the one zx ships (``rowkit.shipped_catalog``:
    by its name, or by its content under another name). The label is the card's name in the given
    catalog or the shipped one of that name, else its code (as the match's colours are unknown then);
    cost: -1 without, inf for infinite. None for a catalog neither given nor shipped: its costs and
    Powers are stored nowhere."""
    from zx_events.games.zx.cards import builtin_catalog_names, load_catalog

    cat, by_name = (given, True) if given is not None else \
        shipped_catalog(load_catalog, builtin_catalog_names(), catalog, sha256)
    if cat is None:
        return None
    return {code: (c.name if by_name else code, -1.0 if c.cost is None else float(c.cost), c.power or 0)
            for code, c in cat.cards.items()}


def archetype(deck: dict[str, int] | None, identity: str | None, facts: dict[str, tuple[str, float, int]] | None
              ) -> str | None:
    """A deck's archetype label, from what it contains (not from the name its player typed).

    ``"<colour identity>: <signature card> + <signature card>"``. The signature cards are the main
    deck's ``SIGNATURE_CARDS`` cards ranked by copies (most first), then cost (highest first: the
    top end a deck is built around), then Power (highest first), then code: a total order, so the
    label depends on the deck list and the catalog only, and is the same on every run and machine.
    ``facts``: ``card_facts`` (each card's label, cost, Power); without them (a catalog zx does not
    ship) the ranking is copies, then code, and cards are named by code. An identity of None is ``unknown``.
    None without a deck list."""
    if not deck:
        return None
    facts = facts or {}

    def rank(item: tuple[str, Any]) -> tuple:
        code, n = item
        _, cost, power = facts.get(code, ("", -1.0, 0))
        return (-int(n), -cost, -power, code)

    sig = [code for code, _ in sorted(deck.items(), key=rank)[:SIGNATURE_CARDS]]
    return f"{identity or 'unknown'}: " + " + ".join(facts[c][0] if c in facts else c for c in sig)


def _deck_summary(deck: Any, catalog: tuple[Any, Any, Any], colours_of: dict | None) -> tuple:
    """(colour identity, every colour, archetype, list) of a deck: the match row's values of a seat.
    ``catalog``: the (name, SHA-256) the match's Started event pins, and the catalog given for it or None."""
    colours, every = deck_colours(deck, colours_of)
    return colours, every, archetype(deck, colours, card_facts(*catalog)), _deck_list(deck)


_DECKS = DeckMemo(_deck_summary)

Buffers = dict[str, list[tuple]]


def catalog_rows(cat: Any) -> tuple[dict[str, tuple[str, ...]], list[tuple]]:
    """A catalog's colours per card (a deck's identity) and its ``card_catalog`` rows."""
    rows = []
    for c in cat.cards.values():
        cost = None if c.cost is None else ("inf" if c.cost == float("inf") else str(c.cost))
        rows.append((cat.name, cat.sha256, c.code, c.name, c.type.value, "/".join(c.colors) or "none", cost, c.power,
                     "/".join(sorted(c.icons)) or None))
    return {code: c.colors for code, c in cat.cards.items()}, rows


def new_buffers() -> Buffers:
    return {t: [] for t in COLUMNS}


class MatchRows:
    """The in-flight state of one match, and the rows its events produce."""

    __slots__ = ("oid", "no", "mid", "head", "turn", "active", "life", "battle", "trow", "violations", "winner",
                 "reason", "ended", "cards", "side", "attacked", "prev", "hidden", "ghost", "buf")

    def __init__(self, oid: str, no: int, buf: Buffers) -> None:
        self.oid = oid
        self.no = no  # match_no: the notification id of the match's first event
        self.mid: str = ""
        self.head: dict[str, Any] = {}  # the match row's values known from Started
        self.turn = 0
        self.active: str | None = None
        self.life = {"P1": 0, "P2": 0}
        self.battle: dict[str, Any] | None = None
        self.trow: list | None = None  # [turn, player, drawn, resource, ignitions, plays, attacks, damage]
        self.violations = 0
        self.winner: str | None = None
        self.reason: str | None = None
        self.ended = False
        self.cards: dict[str, list] = {}  # "P1 R01-001" -> [opening, drawn, played]
        # per side: [turns taken, Life damage taken, Life cards played by IG, was behind on Life,
        # cards first dealt (402), took the mulligan (402)]
        self.side = {"P1": [0, 0, 0, False, None, None], "P2": [0, 0, 0, False, None, None]}
        self.attacked: set[str] = set()  # "c P1 R01-001", "s P1 b2", "t P1 player": seen in an attack
        self.prev: list | None = None  # the turn row finished last, until the next is: its `end` may come late
        # player -> [unknown cards left in his opening hand, his deck {code: n} as the events tell it]: a setup left
        # out (402)
        self.hidden: dict[str, list] = {}
        # [line, player, message] of the referee's last finding that a play names a card the hand does not hold,
        # played as written (301.1, ``Referee._ghost``): the CardPlayed of that line follows
        self.ghost: list | None = None
        self.buf = buf

    # ------------------------------------------------------------------ persistence of the in-flight state
    _STATE = ("no", "mid", "head", "turn", "active", "life", "battle", "trow", "violations", "winner", "reason",
              "ended", "cards", "side", "prev", "hidden", "ghost")

    def to_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self._STATE}
        out["attacked"] = sorted(self.attacked)
        out["game"] = GAME
        return out

    @classmethod
    def from_json(cls, oid: str, data: dict[str, Any], buf: Buffers) -> "MatchRows":
        m = cls(oid, data["no"], buf)
        for k in cls._STATE:
            if k in data:  # (prev; hidden, ghost: not in a state persisted before schema 11; 12, which is rebuilt)
                setattr(m, k, data[k])
        m.attacked = set(data["attacked"])
        return m

    # ------------------------------------------------------------------ events
    def feed(self, seq: int, topic: str, d: dict[str, Any]) -> None:
        handler = HANDLERS.get(topic)
        if handler is not None:
            handler(self, seq, d)

    def started(self, d: dict, colours_of: dict | None, given: Any = None) -> None:
        """The match's Started payload ``d``; ``colours_of``: its catalog's colours per card (None: a
        catalog neither shipped by that name nor given); ``given``: the catalog file handed to the
        projection with the SHA-256 the match pins (``zx_analytics.tables.Catalogs.of``)."""
        self.mid = d["match_id"]
        self.head = match_head(d, lambda deck, ref: _DECKS.summary(deck, ref, colours_of), given)

    def close(self) -> None:
        """The match has no more events (for now): flush the battle and turn under way, then the match,
        seat and card rows."""
        if self.battle is not None:
            self._attack_row(None, False)
        if self.trow is not None:
            self._turn_row(False)
        self._flush_turn()
        h, mid, no = self.head, self.mid, self.no
        at, on, month = parse_played_at(h.get("played_at"))
        self.buf["matches"].append((
            mid, no, self.oid, GAME, at, on, month, h.get("event"), h.get("format"), h.get("round"),
            h.get("catalog"), h.get("p1_name"), h.get("p1_deck"), h.get("p1_colours"), h.get("p1_colours_all"),
            h.get("p1_archetype"), h.get("p2_name"), h.get("p2_deck"), h.get("p2_colours"), h.get("p2_colours_all"),
            h.get("p2_archetype"), h.get("first"), self.winner, self.reason, self.turn, self.violations,
            h.get("source"), _instant(h.get("imported_at")), h.get("catalog_sha256")))
        seats = self.buf["seats"].append
        for me, you, a, b in (("P1", "P2", "p1", "p2"), ("P2", "P1", "p2", "p1")):
            if self.winner is not None:
                result = "win" if self.winner == me else "loss"
            else:
                result = "draw" if self.reason == "draw" else None
            mine, theirs = self.side[me], self.side[you]
            seats((mid, no, GAME, on, month, h.get("event"), h.get("format"), me, h.get(f"{a}_name"),
                   h.get(f"{a}_deck"), h.get(f"{a}_colours"), h.get(f"{a}_archetype"), h.get(f"{b}_name"),
                   h.get(f"{b}_deck"), h.get(f"{b}_colours"), h.get(f"{b}_archetype"),
                   "first" if h.get("first") == me else "second", "second" if h.get("first") == me else "first",
                   result, self.turn, theirs[0], mine[1], mine[2], mine[3], mine[4], mine[5]))
        games = self.buf["card_games"].append
        for me, a in (("P1", "p1"), ("P2", "p2")):  # every card of the deck list, seen or not (never seen: GNS)
            for code, copies in (h.get(f"{a}_list") or {}).items():
                if f"{me} {code}" not in self.cards:
                    games((mid, no, me, code, copies, False, 0, 0))
        for key, (opening, drawn, played) in self.cards.items():
            games((mid, no, key[:2], key[3:], (h.get(f"p{key[1]}_list") or {}).get(key[3:], 0), opening, drawn,
                   played))

    # ------------------------------------------------------------------ rows finished over time
    def _turn_row(self, ended: bool) -> None:
        """The turn under way is finished: its row waits in ``prev`` (its `end` may still come, late)."""
        t, life = self.trow, self.life
        self._flush_turn()
        self.prev = [self.mid, self.no, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], life["P1"], life["P2"], ended]
        if life["P1"] < life["P2"]:
            self.side["P1"][3] = True
        elif life["P2"] < life["P1"]:
            self.side["P2"][3] = True
        self.trow = None

    def _flush_turn(self) -> None:
        if self.prev is not None:
            self.buf["turns"].append(tuple(self.prev))
            self.prev = None

    def _attack_row(self, outcome: str | None, ended: bool) -> None:
        b = self.battle
        if outcome is None:  # the match ended in the battle: what the Damage Step decided, if it came
            outcome = b["outcome"]
        # the first attack of this side in the match with this card, from this Square, at this target:
        # counting them counts games, where a count(DISTINCT match) would cost a second hash table
        p, seen = b["player"], self.attacked
        keys = (f"c {p} {b['acard']}", f"s {p} {b['asq']}", f"t {p} {b['tcard'] or 'player'}")
        firsts = [k not in seen for k in keys]
        seen.update(keys)
        self.buf["attacks"].append((
            self.mid, self.no, b["seq"], b["turn"], p, b["acard"], b["apower"], b["asq"], b["tkind"],
            b["tcard"], b["tpower"], b["tsq"], b["dist"], b["range"], b["events"], len(b["events"]), outcome,
            b["damage"], ended, *firsts))
        self.battle = None

    def _draw_rows(self, seq: int, player: str, cards: Any, source: str, src: str | None = "deck") -> None:
        """``cards`` came into ``player``'s hand (from ``src``): a draws row each, and the card's card_games entry.
        The opening hand (and the hand a mulligan returned) is turn 0, whenever its record comes (a setup written
        after the `turn` record of turn 1, applied late: 402)."""
        append, mid, no, seen = self.buf["draws"].append, self.mid, self.no, self.cards
        turn = 0 if source in ("opening", "mulliganed") else self.turn
        h = self.hidden.get(player)
        for c in cards:
            append((mid, no, seq, turn, player, c, source))
            if source == "mulliganed":
                continue
            entry = seen.get(f"{player} {c}")
            if entry is None:
                entry = seen[f"{player} {c}"] = [False, 0, 0]
            if source == "opening":
                entry[0] = True
                continue
            entry[1] += 1
            if h is not None and src == "deck" and h[1].get(c, 0) > 0:  # (out of the deck of a setup left out)
                h[1][c] -= 1

    def _untold(self, seq: int, player: str, card: str) -> None:
        """``player`` played ``card`` from his hand, which did not hold it: the referee took the play as written
        (301.1, ``Referee._ghost``), so the card was in the hand, brought there by a record the log left out. Of a
        setup left out (402), while its 4 unknown cards last and the deck holds the card, it is one of them: an
        ``opening`` row (turn 0), as X610Z's unknown hand (105.2a); else (an effect's move to hand, a mulligan,
        left out of the log) it came later: a ``late`` row, known where it is used."""
        h = self.hidden.get(player)
        if h is not None and h[0] > 0 and h[1].get(card, 0) > 0:
            h[0] -= 1
            h[1][card] -= 1
            self._draw_rows(seq, player, (card,), "opening")
            if not h[0]:
                del self.hidden[player]  # (every unknown card known: nothing more to infer)
        else:
            self._draw_rows(seq, player, (card,), "late")

    def _played(self, player: str, card: str) -> None:
        entry = self.cards.get(f"{player} {card}")
        if entry is None:
            entry = self.cards[f"{player} {card}"] = [False, 0, 0]
        entry[2] += 1


# ---------------------------------------------------------------------- one handler per topic
def _setup(m: MatchRows, seq: int, d: dict) -> None:
    p = d["player"]
    unknown = d["hand"].count(HIDDEN)
    if unknown:  # 402: a setup left out, done unseen at turn 1 (its cards ``HIDDEN``): no rows, hand size and mulligan
        m.hidden[p] = [unknown, dict(m.head.get(f"p{p[1]}_list") or {})]  # unknown, as before; each card known
        m.life[p] = len(d.get("life") or ())  # later (``CardsDrawn`` with ``unknown``) an ``opening`` row
        return
    m.side[p][4], m.side[p][5] = len(d["hand"]), d.get("mulligan") is not None  # 402: one optional mulligan
    m.hidden.pop(p, None)  # (a setup written after turn 1's `turn` record, applied late: the hand is known now)
    if d.get("mulligan") is None:
        m._draw_rows(seq, p, d["hand"], "opening")
    else:  # 402: the first four go back; the redrawn four are the opening hand
        m._draw_rows(seq, p, d["hand"], "mulliganed")
        m._draw_rows(seq, p, d["mulligan"], "opening")
    m.life[p] = len(d.get("life") or ())


def _turn_started(m: MatchRows, seq: int, d: dict) -> None:
    if m.trow is not None:  # the previous turn had no end record
        m._turn_row(False)
    if m.turn == 0:  # 402: a player not set up at turn 1 (his setup left out) holds a hand of 4 the log never names
        for p in ("P1", "P2"):
            if m.side[p][4] is None:
                m.hidden[p] = [HAND, dict(m.head.get(f"p{p[1]}_list") or {})]
    m.turn, m.active = d["turn"], d["player"]
    m.trow = [m.turn, m.active, 0, False, 0, 0, 0, 0]
    m.side[m.active][0] += 1


def _drawn(m: MatchRows, seq: int, d: dict) -> None:
    if HIDDEN in d["cards"]:
        return  # the cards of a Draw Phase draw left out, unknown (503.3, digest.8): a row for each when it is known
    if d.get("zone", "hand") != "hand":  # a setup left out's unknown Life or Resource card, known now: no draw
        h = m.hidden.get(d["player"])
        for c in d["cards"] if h is not None else ():
            if h[1].get(c, 0) > 0:  # (out of the deck)
                h[1][c] -= 1
        return
    rec = d.get("rec") or {}
    if rec.get("do") == "setup":  # a setup written after turn 1, naming the cards of the setup left out (402)
        p = d["player"]
        m.side[p][4], m.side[p][5] = len(rec.get("hand") or ()), rec.get("mulligan") is not None
        if rec.get("mulligan") is not None:
            m._draw_rows(seq, p, rec.get("hand") or (), "mulliganed")
    if d.get("unknown") and m.hidden.get(d["player"]) is not None:
        for c in d["cards"]:  # a card of the hand of a setup left out (402), known now: opening while they last
            m._untold(seq, d["player"], c)
        return
    if (d.get("rec") or {}).get("do") != "draw":
        # the card of a draw that named another card, not in the deck (301.1), drawn where it was first used
        # (Referee._drawn_late): no draw of this turn's Draw Phase
        m._draw_rows(seq, d["player"], d["cards"], "late")
        return
    m._draw_rows(seq, d["player"], d["cards"], "draw")
    if m.trow is not None:
        m.trow[2] += len(d["cards"])


def _reloaded(m: MatchRows, seq: int, d: dict) -> None:
    if d.get("life") is not None:  # 902: one Life card goes to Charge (not damage); none for a Reload left out
        m.life[d["player"]] -= 1  # (digest.7: only its Trash back into the deck)
    h = m.hidden.get(d["player"])
    if h is not None:  # the Trash back into the deck: which cards it holds, the rows do not follow (the deck list)
        h[1] = dict(m.head.get(f"p{d['player'][1]}_list") or {})


def _resource(m: MatchRows, seq: int, d: dict) -> None:
    if m.trow is not None:
        m.trow[3] = True


def _ignition(m: MatchRows, seq: int, d: dict) -> None:
    play = d.get("play")
    m.buf["ignitions"].append((m.mid, m.no, seq, m.turn, d["player"], d["charge"], d["revealed"], d.get("kind"),
                               play is not None, (play or {}).get("square")))
    h = m.hidden.get(d["player"])
    if h is not None and h[1].get(d["revealed"], 0) > 0:  # (out of the deck)
        h[1][d["revealed"]] -= 1
    if play is not None:  # 505.3a: played free by its IG icon
        m._played(d["player"], d["revealed"])
    if m.trow is not None:
        m.trow[4] += 1


def _played(m: MatchRows, seq: int, d: dict) -> None:
    b = m.battle
    in_battle = b is not None and b["step"] == "event"
    p = d["player"]
    m.buf["plays"].append((m.mid, m.no, seq, m.turn, p, d["card"], d.get("zone"), d.get("kind"), d.get("square"),
                           d.get("on"), len(d.get("pay") or ()), bool(d.get("extra")), p == m.active,
                           b["seq"] if in_battle else None))
    g, m.ghost = m.ghost, None
    if g is not None and g[0] == d.get("line") and g[1] == p and g[2].startswith(f"{d['card']} is not in {p}'s hand: "):
        m._untold(seq, p, d["card"])
    m._played(p, d["card"])
    if in_battle:  # 603: an Event played in the Battle Event Step
        b["events"].append(d["card"])
    if m.trow is not None and p == m.active:
        m.trow[5] += 1


def _attack(m: MatchRows, seq: int, d: dict) -> None:
    a, t = d.get("attacker") or {}, d.get("target_info") or {}
    m.battle = {"seq": seq, "turn": m.turn, "player": d["player"], "acard": a.get("code"), "apower": a.get("power"),
                "asq": d["square"], "tkind": d["target_kind"], "tcard": t.get("code"), "tpower": t.get("power"),
                "tuid": t.get("uid"), "tsq": d["target"], "dist": d.get("distance"), "range": d.get("range_used"),
                "events": [], "outcome": None, "damage": 0, "step": "event"}
    if m.trow is not None:
        m.trow[6] += 1


def _battle_damage(m: MatchRows, seq: int, d: dict) -> None:
    b = m.battle
    if b is not None:  # 604: damaged_zx is "survived" unless lethal damage destroys it (1007)
        b["step"] = "damage"
        b["outcome"] = "survived" if d["outcome"] == "damaged_zx" else d["outcome"]


def _destroyed(m: MatchRows, seq: int, d: dict) -> None:
    b = m.battle
    if b is not None and b["tuid"] is not None and b["tuid"] == d.get("uid"):
        b["outcome"] = "destroyed"


def _battle_ended(m: MatchRows, seq: int, d: dict) -> None:
    if m.battle is not None:
        m._attack_row(d["outcome"], True)


def _life(m: MatchRows, seq: int, d: dict) -> None:
    p = d["player"]
    trig = d.get("triggers") or ()
    b = m.battle
    ignited = d.get("ignite") is not None
    m.buf["life"].append((m.mid, m.no, seq, m.turn, p, d["card"], d.get("kind"), ignited,
                          f"recover:{p}" in trig, f"void:{p}" in trig, d["life_after"],
                          b["seq"] if b is not None else None))
    m.life[p] = d["life_after"]
    taken = m.side[p]
    taken[1] += 1
    if ignited:  # played free by its IG icon from Life
        taken[2] += 1
        m._played(p, d["card"])
    if b is not None:
        b["damage"] += 1
    if m.trow is not None and p != m.active:
        m.trow[7] += 1


def _effect(m: MatchRows, seq: int, d: dict) -> None:
    op, a, p = d.get("op"), d.get("args") or {}, d["player"]
    # a named card an effect put into its owner's hand (from the deck, Trash, Life, ...): seen, not GNS. A move
    # from a Square names the Square, not the card (the engine does not check a code given with it: 301.1)
    if op == "move" and a.get("to") == "hand" and a.get("card") and a.get("from") not in ("hand", "square"):
        m._draw_rows(seq, a.get("owner") or p, (a["card"],), "effect", a.get("from"))
    if m.hidden and op == "move" and a.get("card") and a.get("from") != "square":
        h = m.hidden.get(a.get("owner") or p)
        if h is not None:  # (the deck of a setup left out, as the events tell it)
            if a.get("from") == "deck" and a.get("to") != "hand" and h[1].get(a["card"], 0) > 0:
                h[1][a["card"]] -= 1
            if a.get("to") == "deck":
                h[1][a["card"]] = h[1].get(a["card"], 0) + 1
    if op == "draw":
        m._draw_rows(seq, p, a.get("cards") or (), "effect")
    elif op == "recover":  # 1102: the top card of the deck into Life
        m.life[p] += 1
    elif op == "move" and a.get("card") and (a.get("from") == "life") != (a.get("to") == "life"):
        owner = a.get("owner") or p
        m.life[owner] += 1 if a.get("to") == "life" else -1
    elif op == "move" and a.get("into_life"):  # cards an effect moved from a Square into Life
        for owner in a["into_life"]:
            m.life[owner] += 1


def _turn_ended(m: MatchRows, seq: int, d: dict) -> None:
    if m.trow is not None:
        m._turn_row(True)


def _late(m: MatchRows, seq: int, d: dict) -> None:
    """The `end` of the turn before, written after the next `turn` record (its player not the active one): that
    turn's End Phase was recorded, late."""
    if d["player"] != m.active and m.prev is not None and m.prev[3] == d["player"]:
        m.prev[12] = True


def _ended(m: MatchRows, seq: int, d: dict) -> None:
    m.winner, m.reason, m.ended = d.get("winner"), d.get("reason"), True
    if m.battle is not None:
        m._attack_row(None, False)
    if m.trow is not None:
        m._turn_row(False)


def _violation(m: MatchRows, seq: int, d: dict) -> None:
    m.violations += 1
    if d.get("rec") is None and d.get("rule") == "301.1" and (d.get("message") or "").endswith(PLAYED_AS_WRITTEN):
        m.ghost = [d.get("line"), d.get("player"), d["message"]]  # (the CardPlayed of its line follows)


HANDLERS: dict[str, Callable[[MatchRows, int, dict], None]] = {event_topic(name): handler for name, handler in {
    "PlayerSetUp": _setup, "TurnStarted": _turn_started, "CardsDrawn": _drawn, "Reloaded": _reloaded,
    "ResourcePlaced": _resource, "IgnitionPerformed": _ignition, "CardPlayed": _played, "AttackDeclared": _attack,
    "BattleDamageDealt": _battle_damage, "ZXDestroyed": _destroyed, "BattleEnded": _battle_ended,
    "LifeDamaged": _life, "EffectApplied": _effect, "TurnEnded": _turn_ended, "LateRecord": _late, "MatchEnded": _ended,
    "ViolationRecorded": _violation,
}.items()}
# the topics whose handler reads nothing of the payload (a flag, the end of a turn): the
# projection calls it with None and does not decode the JSON (a seventh of a simulated corpus' events)
NO_PAYLOAD = frozenset(event_topic(name) for name in ("ResourcePlaced", "TurnEnded"))
