"""From X610Z Match events to analytics rows: one small state per match, plain tuples out.

Mirrors ``zx_events.games.zx.rows``: ``MatchRows.feed(seq, topic, payload)`` appends finished
rows to per-table buffers. The shared tables (``matches``, ``seats``, ``turns``, ``draws``,
``card_games``) keep the Z/X column order so both games land in the same tables; their Z/X-only
columns hold the X610Z meaning noted below or NULL:
- ``p1_colours``/``colours``: the deck's energy identity (M, B, C: the types of its crystals and
  costs holding at least 10% of the weight), ``p1_colours_all`` every type;
- ``seats.damage_taken``: damage marked on the seat's Life Base; ``life_ignitions``: 0 (no Ignition);
  ``was_behind``: its Life Base had more damage than the other after some turn;
- ``turns.damage_dealt``: the damage marked on the Life Base of the turn player's opponent in the turn (an
  ``x610z_life`` row each: by attack or effect, whoever's; damage to a summon is none);
- ``turns.resource``: an Energy Crystal Card was cast; ``ignitions``: 0; ``p1_life``/``p2_life``:
  the Life Bases' remaining Defense (Defense minus damage);
- ``draws`` (and ``card_games.drawn``): the setup and Murphy hands, the Draw Phase, and effects that
  put a card into a hand: ``draw``, ``search`` (211.2) and ``zone`` to ``hand``; the card of a Draw Phase draw
  left out of the log, unknown in the hand (a ``CardDrawn`` of ``HIDDEN``: no row), known (``CardDrawn`` with
  ``unknown``; before it, drawn) at the record that first used it (digest.8, ``Referee._from_unknown``):
  ``late``, no Draw Phase draw of that turn; a setup left out (its hand 7 ``HIDDEN`` cards): ``hand_size`` and
  ``mulligan`` NULL, and a card its player uses from the hand the rows do not know him to hold (``hidden``: his
  hand and deck as the events tell them, while unknown cards are left) is an ``opening`` row (turn 0) then, as
  ``Match._from_hand`` takes it for one of them;
- ``turns.ended``: the turn's ``end`` record was applied, in time (``TurnEnded``) or late (a ``LateRecord`` of
  the turn's player in the next turn); a ``TurnEnded`` at the line of the next ``TurnStarted`` (the `turn` record
  ended the turn, its `end` left out) is none. A finished turn's row waits in ``prev`` until the next is finished.
X610Z's own tables: ``x610z_attacks`` (each attack with its outcome), ``x610z_life`` (damage to a
Life Base; its ``source`` a card: an effect's source named by its dot is the summon on it then, NULL when none
is: ``_source_card``), ``x610z_moves`` (movements and warps by dot), ``x610z_casts`` (cards cast, crystals,
activations and abilities with their outcome). The in-flight state is JSON-native (``to_json``).
"""

from __future__ import annotations

from typing import Any, Callable

from functools import lru_cache
from importlib import resources

from zx_events.games.rowkit import SHARED_COLUMNS, DeckMemo, parse_played_at  # noqa: F401
from zx_events.games.rowkit import deck_list as _deck_list
from zx_events.games.rowkit import instant as _instant
from zx_events.games.rowkit import match_head
from zx_events.games.rowkit import shipped_catalog
from zx_events.seats import HIDDEN

from .match import topic as event_topic

SHARED = ("matches", "seats", "turns", "draws", "card_games")
COLUMNS: dict[str, tuple[str, ...]] = {
    "x610z_attacks": ("match_id", "match_no", "seq", "turn", "player", "attacker_card", "attacker_dot",
                      "target_card", "target_dot", "target_life", "distance", "outcome", "damage"),
    "x610z_life": ("match_id", "match_no", "seq", "turn", "player", "source", "cause", "amount", "damage_after"),
    "x610z_moves": ("match_id", "match_no", "seq", "turn", "player", "card", "life", "from_dot", "to_dot",
                    "steps", "warp", "outcome"),
    "x610z_casts": ("match_id", "match_no", "seq", "turn", "player", "card", "kind", "own_turn", "outcome"),
}
GAME = "x610z"
SIGNATURE_CARDS = 2
OWN_COLUMNS = COLUMNS
# the CREATE statements of X610Z's own tables (zx_events/games/x610z/sql/), run by the projection
SQL: tuple[str, ...] = tuple(
    resources.files(__package__).joinpath("sql").joinpath(f"create_{t}.sql").read_text(encoding="utf-8")
    for t in OWN_COLUMNS)
SQL_TABLES: tuple[str, ...] = tuple(OWN_COLUMNS)  # what a rebuild of the analytics file drops
COLUMNS = {**SHARED_COLUMNS, **OWN_COLUMNS}
PROJECTED = tuple(t for t in COLUMNS if t != "card_catalog")
ENERGY_ORDER = ("M", "B", "C")
IDENTITY_SHARE = 0.10

DESTROYED = event_topic("Destroyed")
TOPICS = tuple(event_topic(n) for n in (
    "Started", "PlayerSetUp", "TurnStarted", "CardDrawn", "CrystalCast", "Announced", "ActionFailed", "Resolved",
    "EffectApplied", "Destroyed", "TurnEnded", "LateRecord", "MatchEnded", "ViolationRecorded"))


def deck_energy(deck: dict[str, int] | None, energy_of: dict[str, tuple[str, ...]] | None) -> tuple[str | None, str | None]:
    """A deck's energy identity and every energy type in it ('/'-joined, M, B, C order)."""
    if energy_of is None or not deck:
        return None, None
    weight: dict[str, int] = {}
    for code, n in deck.items():
        for t in energy_of.get(code, ()):
            weight[t] = weight.get(t, 0) + int(n)
    total = sum(weight.values())
    if not total:
        return "none", "none"
    order = list(ENERGY_ORDER) + sorted(t for t in weight if t not in ENERGY_ORDER)
    return ("/".join(t for t in order if weight.get(t, 0) >= IDENTITY_SHARE * total),
            "/".join(t for t in order if weight.get(t, 0) > 0))



def archetype(deck: dict[str, int] | None, identity: str | None, facts: dict | None) -> str | None:
    """``"<energy identity>: <signature card> + <signature card>"``: the two cards of the deck that are
    neither crystals nor its Life Base, ranked by copies, then total cost, then Attack Power, then code.
    Without ``facts`` (a catalog zx does not ship) no card is known to be a crystal or the Life Base, the
    ranking is copies, then code, and cards are named by code."""
    if not deck:
        return None
    facts = facts or {}
    cards = [(c, n) for c, n in deck.items() if not facts.get(c, ("", 0, 0, False))[3]]

    def rank(item):
        code, n = item
        _, cost, attack, _ = facts.get(code, ("", 0, 0, False))
        return (-int(n), -cost, -attack, code)

    sig = [c for c, _ in sorted(cards, key=rank)[:SIGNATURE_CARDS]]
    return f"{identity or 'unknown'}: " + " + ".join(facts[c][0] if c in facts else c for c in sig)


@lru_cache(maxsize=8)
def _facts(name: str | None, sha256: str | None = None, given: Any = None) -> dict | None:
    """The ``card_facts`` of the catalog a match was checked against (its name and SHA-256, as its
    Started event pins them): ``given``, the catalog file the user handed the projection with that
    SHA-256 (``zx analytics update --catalog FILE``: its cards named), else the one zx ships
    (``rowkit.shipped_catalog``: by its name, or by its content under another name: its cards then
    named by code, as its energy types are unknown); None for a catalog neither given nor shipped
    (its cards are stored nowhere)."""
    from .cards import builtin_catalog_names, load_catalog

    if given is not None:
        return card_facts(given)
    cat, by_name = shipped_catalog(load_catalog, builtin_catalog_names(), name, sha256)
    return None if cat is None else card_facts(cat, named=by_name)


def card_facts(catalog, *, named: bool = True) -> dict[str, tuple[str, int, int, bool]]:
    """code -> (name, total cost, Attack Power, crystal or Life Base); the code for the name unless ``named``."""
    return {code: (c.name if named else code, sum(c.cost.values()), c.attack or 0, c.is_crystal or c.is_life_base)
            for code, c in catalog.cards.items()}


def catalog_rows(cat: Any) -> tuple[dict[str, tuple[str, ...]], list[tuple]]:
    """A catalog's energy types per card (its "colours") and its ``card_catalog`` rows."""
    rows = []
    for c in cat.cards.values():
        cost = "".join(f"{t}{n}" for t, n in c.cost.items()) or None
        rows.append((cat.name, cat.sha256, c.code, c.name, c.type, "/".join(energy_of(cat)[c.code]) or "none", cost,
                     c.attack, None))
    return energy_of(cat), rows


def energy_of(catalog) -> dict[str, tuple[str, ...]]:
    """Per card code, the energy types it uses (cost) or makes (crystal)."""
    out = {}
    for code, c in catalog.cards.items():
        types = set(c.energy_types) | {t for alt in c.produces for t in alt}
        out[code] = tuple(sorted(types))
    return out


def _deck_summary(deck: Any, catalog: tuple[Any, Any, Any], energy: dict | None) -> tuple:
    """(energy identity, every type, archetype, list) of a deck: the match row's values of a seat.
    ``catalog``: the (name, SHA-256) the match's Started event pins, and the catalog given for it or None."""
    ident, every = deck_energy(deck, energy)
    return ident, every, archetype(deck, ident, _facts(*catalog)), _deck_list(deck)


_DECKS = DeckMemo(_deck_summary)

Buffers = dict[str, list[tuple]]


def new_buffers() -> Buffers:
    return {t: [] for t in COLUMNS}


class MatchRows:
    __slots__ = ("oid", "no", "mid", "head", "turn", "active", "dots", "stack", "lb", "trow", "violations",
                 "winner", "reason", "ended", "cards", "side", "attack", "prev", "hidden", "buf")
    _STATE = ("no", "mid", "head", "turn", "active", "dots", "stack", "lb", "trow", "violations", "winner", "reason",
              "ended", "cards", "side", "attack", "prev", "hidden")

    def __init__(self, oid: str, no: int, buf: Buffers) -> None:
        self.oid, self.no, self.buf = oid, no, buf
        self.mid = ""
        self.head: dict[str, Any] = {}
        self.turn = 0
        self.active: str | None = None
        self.dots: dict[str, list] = {}  # dot -> [code, controller, life]
        self.stack: list[dict] = []  # the entries announced and not resolved
        self.lb = {"P1": [0, 0], "P2": [0, 0]}  # Life Base [defense, damage]
        self.trow: list | None = None  # [turn, player, drawn, crystal, casts, attacks, damage]
        self.violations = 0
        self.winner: str | None = None
        self.reason: str | None = None
        self.ended = False
        self.cards: dict[str, list] = {}
        # per side: [turns taken, was behind, hand size first dealt (105.3a), took Murphy's Law (105.4)]
        self.side = {"P1": [0, False, None, None], "P2": [0, False, None, None]}
        self.attack: list | None = None  # the attack row just resolved: a Destroyed event may follow
        # the turn row finished last, with the line of its TurnEnded (None: none), until the next turn's is finished:
        # its `end` may still come late (LateRecord), or have been left out (the next TurnStarted at that line)
        self.prev: list | None = None
        # player -> [unknown cards left in his hand, his hand {code: n}, his deck {code: n}]: a setup left out
        self.hidden: dict[str, list] = {}

    def to_json(self) -> dict[str, Any]:
        return {**{k: getattr(self, k) for k in self._STATE}, "game": GAME}

    @classmethod
    def from_json(cls, oid: str, data: dict[str, Any], buf: Buffers) -> "MatchRows":
        m = cls(oid, data["no"], buf)
        for k in cls._STATE:
            if k in data:  # (prev, hidden: not in a state persisted before schema 11, which is rebuilt)
                setattr(m, k, data[k])
        return m

    def feed(self, seq: int, topic: str, d: dict[str, Any]) -> None:
        """One event; the same as ``HANDLERS[topic](self, seq, d)`` (what the projection calls)."""
        handler = HANDLERS.get(topic)
        if handler is not None:
            handler(self, seq, d)

    def started(self, d: dict, energy: dict | None, given: Any = None) -> None:
        """As Z/X's ``MatchRows.started``: ``energy`` the energy types per card, ``given`` the catalog
        file handed to the projection with the SHA-256 the match pins."""
        self.mid = d["match_id"]
        self.head = match_head(d, lambda deck, ref: _DECKS.summary(deck, ref, energy), given, "constructed")

    def _flush_attack(self) -> None:
        self.buf["x610z_attacks"].append(tuple(self.attack))
        self.attack = None

    def close(self) -> None:
        if self.attack is not None:
            self._flush_attack()
        if self.trow is not None:
            self._turn_row(False)
        self._flush_turn()
        h, mid, no = self.head, self.mid, self.no
        at, on, month = parse_played_at(h.get("played_at"))
        self.buf["matches"].append((
            mid, no, self.oid, GAME, at, on, month, h.get("event"), h.get("format"), h.get("round"), h.get("catalog"),
            h.get("p1_name"), h.get("p1_deck"), h.get("p1_colours"), h.get("p1_colours_all"), h.get("p1_archetype"),
            h.get("p2_name"), h.get("p2_deck"), h.get("p2_colours"), h.get("p2_colours_all"), h.get("p2_archetype"),
            h.get("first"), self.winner, self.reason, self.turn, self.violations, h.get("source"),
            _instant(h.get("imported_at")), h.get("catalog_sha256")))
        for me, you, a, b in (("P1", "P2", "p1", "p2"), ("P2", "P1", "p2", "p1")):
            if self.winner is not None:
                result = "win" if self.winner == me else "loss"
            else:
                result = "draw" if self.ended else None
            self.buf["seats"].append((
                mid, no, GAME, on, month, h.get("event"), h.get("format"), me, h.get(f"{a}_name"), h.get(f"{a}_deck"),
                h.get(f"{a}_colours"), h.get(f"{a}_archetype"), h.get(f"{b}_name"), h.get(f"{b}_deck"),
                h.get(f"{b}_colours"), h.get(f"{b}_archetype"),
                "first" if h.get("first") == me else "second", "second" if h.get("first") == me else "first",
                result, self.turn, self.side[you][0], self.lb[me][1], 0, self.side[me][1], self.side[me][2],
                self.side[me][3]))
        games = self.buf["card_games"].append
        for me, a in (("P1", "p1"), ("P2", "p2")):  # every card of the deck list, seen or not
            for code, copies in (h.get(f"{a}_list") or {}).items():
                if f"{me} {code}" not in self.cards:
                    games((mid, no, me, code, copies, False, 0, 0))
        for key, (opening, drawn, played) in self.cards.items():
            games((mid, no, key[:2], key[3:], (h.get(f"p{key[1]}_list") or {}).get(key[3:], 0), opening, drawn,
                   played))

    def _turn_row(self, ended: bool, line: int | None = None) -> None:
        """The turn under way is finished (``ended``: by its `end` record, at ``line``): its row waits in ``prev``."""
        t = self.trow
        left = {p: v[0] - v[1] for p, v in self.lb.items()}
        self._flush_turn()
        self.prev = [[self.mid, self.no, t[0], t[1], t[2], t[3], 0, t[4], t[5], t[6], left["P1"], left["P2"], ended],
                     line]
        if self.lb["P1"][1] > self.lb["P2"][1]:
            self.side["P1"][1] = True
        elif self.lb["P2"][1] > self.lb["P1"][1]:
            self.side["P2"][1] = True
        self.trow = None

    def _flush_turn(self) -> None:
        if self.prev is not None:
            self.buf["turns"].append(tuple(self.prev[0]))
            self.prev = None

    def _into_hand(self, player: str, card: str, src: str | None) -> None:
        """``card`` came into the hand of a player whose setup was left out (from ``src``), as far as the rows follow it."""
        h = self.hidden.get(player)
        if h is not None:
            h[1][card] = h[1].get(card, 0) + 1
            if src == "deck" and h[2].get(card, 0) > 0:
                h[2][card] -= 1

    def _out_of_hand(self, seq: int, player: str, card: str, unknown: bool = True) -> None:
        """``card`` left the hand of a player whose setup was left out: one the hand was not known to hold, while the
        deck holds it, is one of its unknown cards (``unknown``: as ``Match._from_hand`` takes it), in the opening hand."""
        h = self.hidden.get(player)
        if h is None or not card:
            return
        if h[1].get(card, 0) > 0:
            h[1][card] -= 1
        elif unknown and h[0] > 0 and h[2].get(card, 0) > 0:
            h[0] -= 1
            h[2][card] -= 1
            self.buf["draws"].append((self.mid, self.no, seq, 0, player, card, "opening"))
            self._card(player, card, 0)
            if not h[0]:
                del self.hidden[player]  # (every unknown card known: nothing more to infer)

    def _card(self, player: str, card: str, which: int) -> None:
        entry = self.cards.get(f"{player} {card}")
        if entry is None:
            entry = self.cards[f"{player} {card}"] = [False, 0, 0]
        if which == 0:
            entry[0] = True
        else:
            entry[which] += 1

    def _draws(self, seq: int, player: str, cards: list, source: str, src: str | None = "deck") -> None:
        for c in cards:
            self.buf["draws"].append((self.mid, self.no, seq, self.turn, player, c, source))
            if source != "mulliganed":
                self._card(player, c, 0 if source == "opening" else 1)
                if self.hidden:
                    self._into_hand(player, c, src)

    def _life_damage(self, seq: int, dot: str, amount: int, source: str, cause: str) -> None:
        hit = self.dots.get(dot)
        if hit is None or not hit[2] or not amount:
            return
        who = hit[1]
        self.lb[who][1] += amount
        self.buf["x610z_life"].append((self.mid, self.no, seq, self.turn, who, source, cause, amount, self.lb[who][1]))
        if self.trow is not None and who != self.active:  # turns.damage_dealt: what the turn player's opponent took
            self.trow[6] += amount


def _setup(m: MatchRows, seq: int, d: dict) -> None:
    p = d["player"]
    murphy = d.get("murphy") or []
    unknown = d["hand"].count(HIDDEN)  # (HIDDEN: a card unknown, of a setup left out, digest.8)
    # no setup record: no hand dealt as far as the log tells, as Z/X's seats without one (NULL, NULL)
    m.side[p][2], m.side[p][3] = (None, None) if unknown else (len(d["hand"]), bool(murphy))
    if unknown:
        deck = dict(m.head.get(f"p{p[1]}_list") or {})
        lb_code = (d.get("life_base") or {}).get("code")
        if deck.get(lb_code):
            deck[lb_code] -= 1
        m.hidden[p] = [unknown, {}, deck]
    known = [c for c in d["hand"] if c != HIDDEN]
    m._draws(seq, p, known, "mulliganed" if murphy else "opening")
    for i, hand in enumerate(murphy):
        m._draws(seq, p, hand, "opening" if i == len(murphy) - 1 else "mulliganed")
    lb = d["life_base"]
    if lb is not None:  # (None: a setup that placed no Life Base, digest.8)
        m.dots[d["dot"]] = [lb["code"], p, True]
        m.lb[p] = [int((lb.get("stats") or {}).get("defense", 0)), 0]


def _turn_started(m: MatchRows, seq: int, d: dict) -> None:
    if m.trow is not None:
        m._turn_row(False)
    elif m.prev is not None and m.prev[1] is not None and m.prev[1] == d.get("line"):
        m.prev[0][12] = False  # the `turn` record ended the turn before (700.1): its `end` left out, none recorded
    m.turn, m.active = d["turn"], d["player"]
    m.trow = [m.turn, m.active, 0, False, 0, 0, 0]
    m.side[m.active][0] += 1


def _drawn(m: MatchRows, seq: int, d: dict) -> None:
    if d["card"] == HIDDEN:
        return  # the card of a Draw Phase draw left out, unknown (702.1, digest.8): its row comes when it is known
    if (d.get("rec") or {}).get("do") != "draw":
        # the card of a Draw Phase draw left out (702.1), drawn at the record that first used it (digest.8): no draw
        # of this turn's Draw Phase, which draws exactly 1 (702.1)
        m._draws(seq, d["player"], [d["card"]], "late")
        return
    m._draws(seq, d["player"], [d["card"]], "draw")
    if m.trow is not None and d["player"] == m.active:
        m.trow[2] += 1


def _crystal(m: MatchRows, seq: int, d: dict) -> None:
    p = d["player"]
    m.buf["x610z_casts"].append((m.mid, m.no, seq, m.turn, p, d["card"], "crystal", p == m.active, "resolved"))
    if m.hidden:
        m._out_of_hand(seq, p, d["card"])
    m._card(p, d["card"], 2)
    if m.trow is not None:
        m.trow[3] = True


def _announced(m: MatchRows, seq: int, d: dict) -> None:
    e = dict(d["entry"])
    e["seq"], e["turn"] = seq, m.turn
    if e.get("void"):  # an announcement of nothing (digest.8): no card played, no move or attack; it only fizzles
        m.stack.append(e)
        return
    if e["kind"] == "attack":
        a = m.dots.get(e["from"]) or [None, None, False]
        t = m.dots.get(e["path"][-1]) or [None, None, False]
        e["acard"], e["tdot"], e["tcard"], e["tlife"] = a[0], e["path"][-1], t[0], t[2]
        if m.trow is not None:
            m.trow[5] += 1
    elif e["kind"] == "move":
        e["card"], e["life"] = (m.dots.get(e["from"]) or [None])[0], (m.dots.get(e["from"]) or [0, 0, False])[2]
    elif e["kind"] == "cast" and m.trow is not None and e["by"] == m.active:
        m.trow[4] += 1
    if e["kind"] == "cast":
        if m.hidden:
            m._out_of_hand(seq, d["player"], e["card"])  # (to the Cast Zone from the hand, 503.1)
        m._card(e["by"], e["card"], 2)
    m.stack.append(e)


def _failed(m: MatchRows, seq: int, d: dict) -> None:
    m.buf["x610z_casts"].append((m.mid, m.no, seq, m.turn, d["player"], None, d["kind"], d["player"] == m.active,
                                 "failed"))


def _resolved(m: MatchRows, seq: int, d: dict) -> None:
    if not m.stack:
        return
    e = m.stack.pop()
    facts, done = d.get("facts") or {}, d.get("outcome") == "done"
    kind, by = e["kind"], e["by"]
    if e.get("void"):
        return
    if kind in ("cast", "activate", "ability"):
        m.buf["x610z_casts"].append((m.mid, m.no, e["seq"], e["turn"], by, e.get("card"),
                                     kind if kind != "ability" else f"ability:{e.get('ability')}",
                                     by == m.active, "resolved" if done else "fizzled"))
        if kind == "cast" and done and facts.get("dot"):
            m.dots[facts["dot"]] = [e["card"], by, False]
    elif kind == "move":
        to = facts.get("to") if done else None
        warp = bool(e.get("warp"))
        outcome = "fizzled" if not done else ("moved" if to == e["path"][-1] else "stopped")
        m.buf["x610z_moves"].append((m.mid, m.no, e["seq"], e["turn"], by, e.get("card"), bool(e.get("life")),
                                     e["from"], to, len(e["path"]), warp, outcome))
        if done and to and to != e["from"] and e["from"] in m.dots:
            m.dots[to] = m.dots.pop(e["from"])
    elif kind == "attack":
        dmg = int(facts.get("damage", 0)) if done else 0
        outcome = "fizzled" if not done else "damaged"
        m.attack = [m.mid, m.no, e["seq"], e["turn"], by, e.get("acard"), e["from"], e.get("tcard"),
                    e.get("tdot"), bool(e.get("tlife")), len(e["path"]), outcome, dmg]
        if done:  # (a summon's damage is no Life damage: _life_damage counts a Life Base's alone)
            m._life_damage(seq, e.get("tdot"), dmg, e.get("acard") or "", "attack")


def _source_card(m: MatchRows, source: str | None) -> str | None:
    """The card an effect's ``source`` names: a code itself; a dot (a summon's ability or trigger:
    docs/match-log-x610z.md) the code of the summon on it at that moment, None when none is there (210.4,
    accepted: a damage source not in play)."""
    if source is None or "-" in source:  # (a card code has a dash, a dot id never does: referee.is_code)
        return source
    return (m.dots.get(source) or [None])[0]


def _effect(m: MatchRows, seq: int, d: dict) -> None:
    a, op = d.get("args") or {}, d.get("op")
    if op == "damage":
        m._life_damage(seq, a.get("dot"), int(a.get("amount", 0)), _source_card(m, d.get("source")), "effect")
    elif op == "heal":
        hit = m.dots.get(a.get("dot"))
        if hit is not None and hit[2]:
            m.lb[hit[1]][1] = max(0, m.lb[hit[1]][1] - int(a.get("amount", 0)))
    elif op == "relocate" and a.get("dot") in m.dots:
        m.dots[a["to"]] = m.dots.pop(a["dot"])
    elif op == "place":
        m.dots[a["dot"]] = [a.get("card"), d.get("player"), False]
        if m.hidden and (a.get("from") or "hand") == "hand":
            m._out_of_hand(seq, a.get("owner") or d["player"], a.get("card"), unknown=False)
    elif op == "draw":
        m._draws(seq, d["player"], a.get("cards") or [], "effect")
    elif op == "search" and a.get("card"):  # 211.2: a card of the deck into its player's hand
        m._draws(seq, d["player"], [a["card"]], "effect")
    elif op == "zone" and a.get("to") == "hand" and a.get("from") != "hand" and a.get("card"):
        m._draws(seq, a.get("owner") or d["player"], [a["card"]], "effect", a.get("from"))  # into its owner's hand
    if op == "zone" and m.hidden and a.get("card"):
        h = m.hidden.get(a.get("owner") or d["player"])
        if h is not None:  # (the hand and deck of a setup left out, as the events tell them)
            if a.get("from") == "hand":
                m._out_of_hand(seq, a.get("owner") or d["player"], a["card"], unknown=False)
            elif a.get("from") == "deck" and a.get("to") != "hand" and h[2].get(a["card"], 0) > 0:
                h[2][a["card"]] -= 1
            if a.get("to") == "deck":
                h[2][a["card"]] = h[2].get(a["card"], 0) + 1
    if op == "zone" and a.get("from") == "cast":  # a cast taken off the stack: it never resolves (as countered)
        m.stack = [s for s in m.stack if s.get("id") != a.get("entry")]
    elif op == "control" and a.get("dot") in m.dots:
        m.dots[a["dot"]][1] = a.get("to")
    elif op == "counter_action":
        m.stack = [s for s in m.stack if s.get("id") != a.get("line")]


def _destroyed(m: MatchRows, seq: int, d: dict) -> None:
    m.dots.pop(d["dot"], None)
    if m.attack is not None and m.attack[8] == d["dot"]:  # the target of the attack just resolved
        if d.get("cause") == "210.5":
            m.attack[11] = "destroyed"
        m._flush_attack()


def _turn_ended(m: MatchRows, seq: int, d: dict) -> None:
    if m.hidden:
        for c in d.get("discard") or ():  # 502.5, from the hand (Match._from_hand)
            m._out_of_hand(seq, d["player"], c)
    if m.trow is not None:
        m._turn_row(True, d.get("line"))


def _late(m: MatchRows, seq: int, d: dict) -> None:
    """A record logged after what it says had happened: the `end` of the turn before (its player not the active
    one) was recorded, late; its discard leaves the hand (502.5), a card the hand was not known to hold as one of
    its unknown cards (``Match._late`` takes it with ``_from_hand``, as ``TurnEnded``)."""
    p = d["player"]
    if p != m.active and m.prev is not None and m.prev[0][3] == p:
        m.prev[0][12] = True
    if m.hidden:
        for c in d.get("discard") or ():
            m._out_of_hand(seq, p, c)


def _ended(m: MatchRows, seq: int, d: dict) -> None:
    m.winner, m.reason, m.ended = d.get("winner"), d.get("reason"), True
    if m.trow is not None:
        m._turn_row(False)


def _violation(m: MatchRows, seq: int, d: dict) -> None:
    m.violations += 1


def _after_attack(handler: Callable[[MatchRows, int, dict], None]) -> Callable[[MatchRows, int, dict], None]:
    """``handler``, first writing the attack row a resolved attack left pending: only a Destroyed event
    right after it can still change its outcome. Every handler but ``_destroyed`` is wrapped, so the
    projection, which calls ``HANDLERS[topic]`` directly (never ``MatchRows.feed``), writes the same rows."""
    def run(m: MatchRows, seq: int, d: dict) -> None:
        if m.attack is not None:
            m._flush_attack()
        handler(m, seq, d)
    run.__name__ = handler.__name__
    return run


HANDLERS: dict[str, Callable[[MatchRows, int, dict], None]] = {event_topic(n): h for n, h in {
    "PlayerSetUp": _after_attack(_setup), "TurnStarted": _after_attack(_turn_started),
    "CardDrawn": _after_attack(_drawn), "CrystalCast": _after_attack(_crystal), "Announced": _after_attack(_announced),
    "ActionFailed": _after_attack(_failed), "Resolved": _after_attack(_resolved),
    "EffectApplied": _after_attack(_effect), "Destroyed": _destroyed, "TurnEnded": _after_attack(_turn_ended),
    "LateRecord": _after_attack(_late),
    "MatchEnded": _after_attack(_ended), "ViolationRecorded": _after_attack(_violation),
}.items()}
# the topics whose handler reads nothing of the payload: the projection calls it with None and does not
# decode the JSON
NO_PAYLOAD = frozenset(event_topic(n) for n in ("ViolationRecorded",))
