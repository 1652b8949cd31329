"""``effect`` records: what a card's ability did, checked against what the rules allow its objects.

``check_effect`` validates one effect record and returns the arguments the ``EffectApplied`` event
carries (the record's fields plus catalog facts the state needs, e.g. a card's base Power).
Restrictions enforced: a Player card does not move to another Square (303.6a; to another zone it
does leave the Square); a Link is chosen and
affected only by cards that name Links (202.13e-f); an Overboost controller's Player cards are
unaffected (202.7f); Counters do not go below 0 (202.12d); one Z/X Overboost on Square (202.7g), also
when a move puts one there.
"""

from __future__ import annotations

from typing import Literal, NoReturn, Protocol, overload

from zx_events.errors import FormatError
from zx_events.games.zx.board import SQUARE_NAMES, Square, player_square
from zx_events.games.zx.cards import CardType, Catalog
from zx_events.games.zx.engine import checks
from zx_events.games.zx.match import Match


class Judge(Protocol):
    """What checking an effect needs of the referee (``engine.referee.Referee``, which imports this
    module: naming it here instead would make the two import each other)."""

    m: Match
    cat: Catalog
    by: str | None
    source: str | None  # the log's file name, and the line of the record checked (a FormatError's FILE:LINE)
    line: int | None
    resolving: tuple[str, str, str] | None  # the Event resolving in Temporary: player, code, zone the state holds it in

    @overload
    def fail(self, rule: str, message: str, *, fatal: Literal[True], waive: str | None = None) -> NoReturn: ...

    @overload
    def fail(self, rule: str, message: str, *, fatal: bool = False, waive: str | None = None) -> None: ...

    def fail(self, rule: str, message: str, *, fatal: bool = False, waive: str | None = None) -> None: ...

    def check(self, problem: tuple[str, str] | None, *, fatal: bool = False) -> None: ...

    def _known(self, pl: str, zone: str, code: str) -> bool: ...  # one of a setup left out's unknown cards (402)

    def _drawn_late(self, pl: str, code: str) -> bool: ...  # one of the hand's unknown cards (402, 503.3)


def _by(ref: Judge) -> str:
    """The player of the effect record checked (its schema requires ``by``: ``Referee.handle`` set it)."""
    assert ref.by is not None
    return ref.by


_FIELDS = ("square", "delta", "until", "amount", "card", "from", "to", "owner", "dest", "resource",
           "cards", "name", "power", "upper", "target", "face")


def _missing(ref: Judge, key: str, why: str) -> NoReturn:
    """A field the record's kind needs, left out: the log's format error (``FILE:LINE``), as a missing key the schema
    names is, not a rule's (digest.12: it was 301.1, "a card is only where the state says it is")."""
    raise FormatError(f"missing required key {key!r} in an effect record ({why})", source=ref.source, line=ref.line)


def _source_names_links(ref: Judge, source: str) -> bool:
    if source in SQUARE_NAMES:
        e = ref.m.sq.get(source)
        code = e["code"] if e is not None else None
    else:
        code = source
    card = ref.cat.get(code) if code else None
    return card is not None and card.has_keyword("link")


def _square_owner(square: str) -> str | None:
    s = Square.parse(square)
    for pl in ("P1", "P2"):
        if s == player_square(pl):
            return pl
    return None


def check_effect(ref: Judge, r: dict) -> dict:
    m, op = ref.m, r["op"]
    args = {k: r[k] for k in _FIELDS if k in r}
    target = r.get("target", "card")
    square = r.get("square")
    # ---- what on the Square the effect acts on
    if square and target == "link":
        if not m.links.get(square):
            ref.fail("301.1", f"there is no Link on {square}", fatal=True)
        if not _source_names_links(ref, r["source"]):
            ref.fail("202.13f", f"{r['source']} does not name Links: the Link on {square} is unaffected")
    elif square and target == "player":
        owner = _square_owner(square)
        if owner is None:
            ref.fail("301.1", f"{square} is not a Player Square: there is no Player card on it", fatal=True)
        if checks.controls_overboost(m, owner):  # not applied, as a move 806 refuses is not (digest.13: recorded
            # as unaffected and then applied, a move meeting an owed Void Bringer)
            ref.fail("202.7f", f"{owner} controls a Z/X Overboost on Square: {owner}'s Player card is "
                               f"unaffected by card effects", fatal=True)
        if op == "move" and r.get("to") == "square":
            ref.fail("303.6a", f"{owner}'s Player card on {square} does not move to another Square")
        elif op in ("move", "destroy"):  # to another zone: 303.6a does not forbid it; the card leaves the Square.
            # A destroy puts it into the Trash (1007: a card other than a Z/X; round 36: it narrated "is destroyed"
            # and nothing moved)
            if not m.p[owner]["player_card"]:
                ref.fail("301.1", f"{owner} has no Player card on {square}", fatal=True)
            args["player_leaves"] = True
            args["owner"] = owner
            if op == "destroy":
                args["to"] = "trash"
            _void_resolved(ref, r, args)
        elif op in ("sleep", "reboot"):  # 302.2/303.5: a card on Square, the Player card too, is Reboot or Sleep:
            # its state is kept (``player_state``: whose Player card; it Reboots at its owner's Reboot Phase, 502).
            # Digest.13: it was narrated and changed nothing, also with the Player card gone from the Square
            if not m.p[owner]["player_card"]:
                ref.fail("301.1", f"{owner} has no Player card on {square} (it has left the Square)", fatal=True)
            args["player_state"] = owner
        elif op in ("power", "damage"):  # a Player card is no Z/X (303.6): no Power to change, no damage to take
            # (round 36: "gets -1000 Power", "is dealt 1000 damage", and nothing changed)
            what = "has no Power to change" if op == "power" else "takes no damage"
            ref.fail("303.6", f"{owner}'s Player card on {square} is no Z/X: it {what}", fatal=True)
    elif square and op in ("power", "damage", "destroy", "sleep", "reboot") or \
            (op == "move" and r.get("from") == "square" and not (r.get("card") and ref.cat[r["card"]].is_player)):
        if not square:
            _missing(ref, "square", "an effect on a card on Square names its Square")
        if m.sq.get(square) is None:
            owner = _square_owner(square)
            if owner is not None and m.p[owner]["player_card"]:  # (a record meaning the Player card there, its
                # `target` left out: digest.13 said "there is no card on b1", the Player card in sight)
                ref.fail("301.1", f"there is no card on {square} but {owner}'s Player card (an effect on it says "
                                  f"target: player)", fatal=True)
            ref.fail("301.1", f"there is no card on {square}", fatal=True)
        _face_down_ex(ref, r, args)
    handler = _OPS.get(op)
    if handler is not None:
        handler(ref, r, args)
    return args


def _face_down_ex(ref: Judge, r: dict, args: dict) -> None:
    """A face-down card on Square that is a Z/X EX or EV EX (put there from Dynamis with ``face: down``) and leaves
    for anywhere but Square or Dynamis goes to Dynamis face-up, as a face-up one does (the digest): EffectApplied's
    ``ex_to_dynamis`` (absent before, read only where present: digest.13 sent it to the hand or the Trash as a
    card, the state's entry of a face-down card knowing no kind)."""
    square = r.get("square")
    e = ref.m.sq.get(square) if square is not None else None
    if e is None or e.get("up") is not False or r.get("target", "card") != "card":
        return
    card = ref.cat.get(e["code"])
    if card is None or not card.type.is_extra:
        return
    if r["op"] == "destroy" or r["op"] == "move" and r.get("to") not in ("square", "dynamis"):
        args["ex_to_dynamis"] = True


def _move(ref: Judge, r: dict, args: dict) -> None:
    m, pl = ref.m, _by(ref)
    src, dst = r["from"], r["to"]
    code = r.get("card")
    if code is not None and ref.cat[code].is_player:
        owner = _player_card_owner(ref, r, code)
        if checks.controls_overboost(m, owner):  # named by its code as by its Square (target: player); not applied
            ref.fail("202.7f", f"{owner} controls a Z/X Overboost on Square: {owner}'s Player card is "
                               f"unaffected by card effects", fatal=True)
    if code is not None and ref.cat[code].is_player and (src == "square" or dst == "square"):
        if dst == "square":
            ref.fail("303.6a", f"the Player card {code} does not move to another Square")
        else:  # from its Player Square to another zone: not what 303.6a forbids
            owner = _player_card_owner(ref, r, code)
            if m.p[owner]["player_card"] != code:
                if m.p[owner]["player_card"] is None and m.players.get(owner, {}).get("player_card") == code:
                    ref.fail("301.1", f"{owner} has no Player card on {player_square(owner)} (it has left the "
                                      f"Square)", fatal=True)
                ref.fail("301.1", f"{code} is not {owner}'s Player card on Square", fatal=True)
            args["player_leaves"] = True
            args["owner"] = owner
            _void_resolved(ref, r, args)
            return
    if dst == "square" and not r.get("dest"):
        _missing(ref, "dest", "a move to the Square names the Square it goes to")
    if dst == "force" and r.get("dest") and m.sq.get(r["dest"]) is None:
        ref.fail("301.1", f"there is no card on {r['dest']} to put a Force card under", fatal=True)
    if src == "square":
        if r.get("target", "card") == "card":
            square = r.get("square")
            e = m.sq.get(square) if square is not None else None
            if dst == "square" and e is not None and r["dest"] != r.get("square"):
                # 806: Square to Square too, the placement rule of a play, for the card's controller: not onto
                # the opponent's Player Square, an opponent's Z/X (or face-down card), nor his own Sleep one; onto
                # his own Reboot one, that one goes to the Trash (digest.12: not checked, and an opponent's Z/X
                # there went to the Trash with no event naming it)
                problem = checks.placement(m, e["ctrl"], r["dest"])
                if problem is not None:
                    moved = "a face-down card" if e.get("up") is False else e["code"]
                    ref.fail(problem[0], f"{problem[1]}: {moved} on {r['square']} is not moved there (an effect's "
                                         f"move is held to the placement of a play)", fatal=True)
            if dst == "life" and e is not None:  # whose Life each arriving card joins (for Life counts)
                owners = [] if e["kind"] in ("token", "ex") or args.get("ex_to_dynamis") else [e["owner"]]  # 202.11c;
                # an EX to Dynamis, a face-down one too
                if e.get("shift") and e["kind"] != "ex":  # 202.8a: its Shift goes with it (with an EX to Dynamis)
                    owners.append(e.get("shift_owner", e["owner"]))
                if owners:
                    args["into_life"] = owners
            _void_resolved(ref, r, args)
        return
    if code is None:
        _missing(ref, "card", f"a move from {src} names the card it moves")
    owner = r.get("owner") or pl
    z = m.p[owner]
    if src == "resource":
        present = any(x["code"] == code for x in z["resource"])
    elif src == "dynamis":
        present = any(x["code"] == code for x in z["dynamis"])
    elif src in ("temporary", "force"):  # 301.2a: shared zones, each card with its owner (digest.5: any code passed)
        present = any(x["code"] == code and x["owner"] == owner for x in getattr(m, src))
        if not present and src == "temporary" and ref.resolving is not None and ref.resolving[:2] == (owner, code):
            present = True  # the Event resolving: the state has already sent it on, to where it takes it from
            args["resolving"] = ref.resolving[2]
    else:
        present = code in z.get(src, [])
    if not present and src in ("life", "resource"):  # one of a setup left out's unknown cards (402), known now
        present = ref._known(owner, src, code)
    elif not present and src == "hand":  # one of the hand's unknown cards, of a setup or a draw left out (402, 503.3),
        present = ref._drawn_late(owner, code)  # known now, as where it is played (it was 301.1 'not in P1's hand')
    if not present:
        if src == "temporary":
            ref.fail("301.1", f"{code} of {owner} is not in the Temporary Zone (it holds the Event being resolved "
                              f"and the cards an effect put there)", fatal=True)
        if src == "force":
            ref.fail("301.1", f"{code} of {owner} is not in the Force Zone", fatal=True)
        ref.fail("301.1", f"{code} is not in {owner}'s {src}", fatal=True)
    card = ref.cat[code]
    if dst == "square":
        if card.type == CardType.SHIFT:  # 202.8d: a Shift goes on a vessel, played with `on`
            ref.fail("202.8d", f"the Shift {code} cannot stand on its own on Square: it goes on a vessel "
                               f"(a play record with on)", fatal=True)
        if r.get("face") != "down" and not (card.is_zx or card.type == CardType.TOKEN):
            ref.fail("303.1", f"{code} is {card.type.a}: only Z/X (and Tokens) are put on Square face-up; another "
                              f"card goes there face-down (face: down)", fatal=True)
        problem = checks.placement(m, owner, r["dest"])  # (its controller is its owner, 302.1b)
        if problem is not None:  # the card named, as for a move from another Square (a seat's replay masks it
            # where it is hidden from him, ``views``)
            ref.fail(problem[0], f"{problem[1]}: {code} from {owner}'s {_ZONE_WORDS.get(src, src)} is not put there "
                                 f"(an effect's move is held to the placement of a play)", fatal=True)
        if card.type == CardType.ZX_OB and r.get("face") != "down" and checks.controls_overboost(m, owner):
            ref.fail("202.7g", f"{owner} already has a Z/X Overboost on Square")
        args["base"] = card.power
        args["kind"] = {CardType.ZX_EX: "ex", CardType.ZX_OB: "ob", CardType.TOKEN: "token"}.get(card.type, "zx")
    elif card.type.is_extra:
        args["kind"] = "ex"


def _player_card_owner(ref: Judge, r: dict, code: str) -> str:
    """Whose Player card a record naming it by its code means: its ``owner``, by default the card's owner
    (docs/match-log.md, ``move``): the player whose Player card on Square it is, else whose it was (the header's),
    the writer's first where both have that card (digest.13: always the writer's, a legal Void Bringer on the
    opponent's Player card refused, 301.1)."""
    if r.get("owner"):
        return r["owner"]
    pl = ref.by or "P1"
    seats = (pl, "P2" if pl == "P1" else "P1")
    for pl_ in seats:
        if ref.m.p[pl_]["player_card"] == code:
            return pl_
    for pl_ in seats:
        if ref.m.players.get(pl_, {}).get("player_card") == code:
            return pl_
    return pl


def _void_resolved(ref: Judge, r: dict, args: dict) -> None:
    """A move of a card on a Square into the Trash by the player whose Void Bringer is owed resolves it (1103: "puts
    one card on any Square into Trash"): a Z/X, a face-down card, or a Player card on its Player Square (digest.13)."""
    b = ref.m.battle
    if b is not None and r["op"] == "move" and r.get("from") == "square" and r.get("to") == "trash" \
            and f"void:{ref.by}" in b["triggers"]:
        args["resolves"] = f"void:{ref.by}"


_ZONE_WORDS = {"temporary": "Temporary Zone", "force": "Force Zone", "resource": "Resource", "dynamis": "Dynamis",
               "charge": "Charge", "trash": "Trash", "life": "Life"}


def _resource_or_square(ref: Judge, r: dict, args: dict) -> None:
    if r.get("resource") is not None:
        owner = r.get("owner") or _by(ref)
        if not any(x["code"] == r["resource"] for x in ref.m.p[owner]["resource"]) \
                and not ref._known(owner, "resource", r["resource"]):  # (a setup left out's unknown card, 402)
            ref.fail("301.1", f"{r['resource']} is not in {owner}'s Resource", fatal=True)
    elif not r.get("square"):
        _missing(ref, "square", f"{r['op']} names a Square, or a Resource card with 'resource'")


def _draw(ref: Judge, r: dict, args: dict) -> None:
    pl = _by(ref)
    lost = checks.missing(ref.m.p[pl]["deck"], r.get("cards", []))
    if lost:
        ref.fail("301.1", f"{', '.join(lost)} not in {pl}'s deck", fatal=True)


def _recover(ref: Judge, r: dict, args: dict) -> None:
    m, pl = ref.m, _by(ref)
    if r.get("card") not in m.p[pl]["deck"]:
        ref.fail("301.1", f"{r.get('card')} is not in {pl}'s deck", fatal=True)
    b = m.battle
    if b is not None and f"recover:{pl}" in b["triggers"]:
        args["resolves"] = f"recover:{pl}"


def _token(ref: Judge, r: dict, args: dict) -> None:
    ref.check(checks.placement(ref.m, _by(ref), r["square"]), fatal=True)
    if r.get("power") is None:
        ref.fail("202.11b", "a Z/X Token needs its power", fatal=True)


def _counter(ref: Judge, r: dict, args: dict) -> None:
    have = ref.m.p[_by(ref)]["counters"]
    if have + int(r.get("delta", 0)) < 0:
        ref.fail("202.12d", f"{ref.by} has {have} Counters: cannot expend {-int(r['delta'])}")


def _link(ref: Judge, r: dict, args: dict) -> None:
    if not r.get("square"):
        ref.fail("202.13b", "a Link is put on a chosen Square (square)", fatal=True)


def _overboost(ref: Judge, r: dict, args: dict) -> None:
    m, pl = ref.m, _by(ref)
    upper = r.get("upper")
    if upper is None or not any(d["code"] == upper for d in m.p[pl]["dynamis"]):  # (no Dynamis card is None)
        ref.fail("301.1", f"{upper} is not in {pl}'s Dynamis", fatal=True)
    card = ref.cat[upper]
    if card.type != CardType.ZX_OB:
        ref.fail("202.7b", f"{upper} is {card.type.a}, not a Z/X Overboost upper part")
    if checks.controls_overboost(m, pl):
        ref.fail("202.7g", f"{pl} already has a Z/X Overboost on Square")
    ref.check(checks.placement(m, pl, r["square"]), fatal=True)
    args["base"] = card.power


def _damage(ref: Judge, r: dict, args: dict) -> None:
    if int(r.get("amount", 0)) < 0:
        ref.fail("301.1", "damage is not negative", fatal=True)


_OPS = {"move": _move, "sleep": _resource_or_square, "reboot": _resource_or_square, "draw": _draw,
        "recover": _recover, "token": _token, "counter": _counter, "link": _link, "overboost": _overboost,
        "damage": _damage}
