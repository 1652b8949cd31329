"""Seats and what is common to every game's views: who may look (the judge, a player, a spectator),
how a hidden card is shown, masking card codes in free text, and turning frozen views back into
JSON-native data. What each seat sees is the game's (its ``views`` module); these are the words it
uses to say so.
"""

from __future__ import annotations

import copyreg
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Collection, Iterable

import orjson

from zx_events.errors import ArgumentTypeError, ZXError, not_ascii, shown
from zx_events.freetext import BIDI_CONTROLS, JUDGE, folded_name, nfc, normalize

SPECTATOR = "spectator"
PLAYERS = ("P1", "P2")
PERSPECTIVES = (JUDGE, *PLAYERS, SPECTATOR)
HIDDEN = "?"  # stands for one card the viewer may not see, where a record or event names it


def deck_count(z: Any) -> int:
    """How many cards a player's deck holds (``z``: his zones, ``deck`` and ``hand`` lists of codes, either game's
    match state): the deck the state keeps, less his hand's unknown cards (``HIDDEN``: of a setup or a draw the log
    left out, digest.8), and a Z/X setup left out's unknown Life and Resource cards (402), whose codes it still
    lists, which of them they are not being known (the views' deck size, an empty deck's rules: X610Z 106.3, Z/X 902
    and 503.3's cards owed)."""
    n = len(z["deck"]) - z["hand"].count(HIDDEN)
    if z.get("unseen"):  # (Z/X: a setup left out, 402)
        n -= z["life"].count(HIDDEN) + sum(r["code"] == HIDDEN for r in z["resource"])
    return n
MASK = "[card]"  # replaces a card code inside free text outside the judge's view
# a rules engine's message (a violation's) outside the judge's view, for a match whose catalog's names the views do
# not have (``Masker.withheld``: a catalog file, or a shipped catalog that changed since): any name in it may be a
# hidden card's, and without the names none can be told from the other words (docs/security.md, free text)
WITHHELD = "[withheld: may name a hidden card of a catalog zx does not have]"


def deck_listed_note(listed: int, count: int, where: str) -> str:
    """The judge's note on a deck list of ``listed`` codes for a deck of ``count`` cards: the unknown cards of a setup
    or a draw the log left out (``deck_count``) are still listed there, which ones unknown ("40 of these 50: 10 are in
    his hand, Life or Resource, unknown which (the log left them out)"); "" when the list is the deck."""
    out = listed - count
    if out <= 0:
        return ""
    return (f"{count} of these {listed}: {out} {'is' if out == 1 else 'are'} {where}, unknown which (the log left "
            f"{'it' if out == 1 else 'them'} out)")


def parse_perspective(text: str) -> str:
    """``judge``, ``P1``, ``P2`` or ``spectator`` (case-insensitive); another is an error naming its non-ASCII
    characters (``errors.not_ascii``: a Cyrillic ``Р1`` read as the very seat the message asked for)."""
    low = text.strip().lower()
    for p in PERSPECTIVES:
        if p.lower() == low:
            return p
    named = not_ascii(text)
    raise ZXError(f"unknown perspective {shown(text)}{f' ({named})' if named else ''}: one of "
                     f"{', '.join(PERSPECTIVES)}")


def player_seat(name: str, players: dict[str, str], match_id: str) -> str:
    """The seat (P1 or P2) of the player named ``name`` (in any case and width: ``folded_name``) in match
    ``match_id``, whose header names ``players`` (seat -> name; ``narration.seat_players``, the judge's). A seat
    word is never a name here: ``parse_perspective`` reads it first (a player named ``P2`` sitting at P1 is
    asked for as P1). A ValueError says what to give instead: a name no player of the match has (naming its
    players, and the non-ASCII characters of a look-alike of a seat, a Cyrillic ``Р1``), or the name of both
    players (give P1 or P2; the two spelled apart, ``Mio`` and ``Ｍｉｏ``: the one spelled as given)."""
    key = folded_name(name)
    seats = [s for s in PLAYERS if isinstance(players.get(s), str) and folded_name(players[s]) == key]
    if len(seats) == 1:
        return seats[0]
    if len(seats) > 1:  # folded alike: the one spelled exactly as given, if one is, in any Unicode normal form, as
        # the statistics take a name (``Ｍｉｏ`` facing ``Mio``: the name as written was refused, QA round 37)
        exact = [s for s in seats if nfc(players[s]) == nfc(name.strip())]
        if len(exact) == 1:
            return exact[0]
        same = " and ".join(shown(n) for n in dict.fromkeys(players[s] for s in seats))
        raise ZXError(f"both players of match {shown(match_id)} are named {same}: give the seat, P1 or P2")
    listed = [f"{s} {shown(players[s])}" for s in PLAYERS if isinstance(players.get(s), str) and players[s]]
    named = not_ascii(name) if _looks_like_a_seat(name) else ""
    their = f"its players are {' and '.join(listed)}" if listed else "its header names no player"
    raise ZXError(f"no player named {shown(name)}{f' ({named})' if named else ''} in match {shown(match_id)} "
                     f"({their}); give a player's name or a seat: {', '.join(map(repr, PERSPECTIVES))} (in any "
                     f"case)")


def _looks_like_a_seat(text: str) -> bool:
    """Whether ``text`` may be a seat word written with a look-alike character (a Cyrillic ``Р1``, a full-width
    ``Ｐ１``): as short as one, of Latin, Greek, Cyrillic or full-width letters and digits (a name of another
    script is not one: its characters are not named)."""
    import unicodedata

    return 0 < len(text) <= max(map(len, PERSPECTIVES)) and all(
        ch.isascii() or any(w in unicodedata.name(ch, "") for w in ("LATIN", "GREEK", "CYRILLIC", "FULLWIDTH"))
        for ch in text)


def sees_own(viewer: str, owner: str | None) -> bool:
    """The judge, or the card's owner."""
    return viewer == JUDGE or (owner is not None and viewer == owner)


def record_applied(events: Iterable[Any]) -> bool:
    """Whether the record of a step whose domain events are ``events`` was applied: a ``ViolationRecorded``
    carrying the record (``rec``) says it was not (``zx import --accept-violations``), and so does a
    ``RecordSkipped`` (a record passed over, another record's finding standing for it: a Z/X late `end` was one,
    its discard, kept in the hand, shown to every seat; it is now applied, a ``LateRecord``). What a record not
    applied names stays where it was, so a game's ``redact_record`` shows it only to the seats that see there."""
    return not any(type(e).__name__ == "RecordSkipped"
                   or type(e).__name__ == "ViolationRecorded" and getattr(e, "rec", None) is not None for e in events)


def _positions_only(value: Any, is_position: Callable[[Any], bool]) -> bool:
    """Whether every string in ``value`` names a board position (a dot, a Square, a seat), none a card."""
    if isinstance(value, str):
        return is_position(value)
    if isinstance(value, dict):
        return all(_positions_only(v, is_position) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_positions_only(v, is_position) for v in value)
    return True


def _hidden(value: Any) -> Any:
    """``value`` with each card in it as ``?``, lists (a list of hands too) keeping their lengths."""
    if isinstance(value, (list, tuple)):
        return [_hidden(v) if isinstance(v, (list, tuple)) else HIDDEN for v in value]
    return HIDDEN


def hide_not_applied(rec: dict, viewer: str, log_format: Any, sees: Callable[[dict, str], bool]) -> None:
    """A record not applied (``record_applied``) as ``viewer`` may see it, in place: it moved no card, so where
    it says a card is, or goes, did not happen, and a card it names may be in any hidden zone. Hidden by default:
    every field that may name a card (the game's schema, ``LogFormat.card_keys``: a code, codes at any depth, a
    position or a code) reads ``?``, and so does any key the schema does not give the record's kind, unless
    its value names only board positions, or ``sees(rec, key)``: the record takes that card from a zone
    ``viewer`` looks at (his own hand: each game says which fields do). A card a refused record names in a
    public zone is ``?`` as well: the record's word that it is there is what was refused; the state shows what
    is there. The judge sees the record whole (the caller does not call this for him)."""
    name = log_format.def_name(rec)
    keys = log_format.card_keys.get(name, {}) if name else {}
    for key in list(rec):
        if key in ("do", "by") or rec[key] is None:
            continue
        kind = keys.get(key, "unknown")
        if kind is None or kind == "position" and _positions_only(rec[key], log_format.is_position):
            continue
        if not sees(rec, key):
            rec[key] = _hidden(rec[key])


def player_of(events: Iterable[Any], kind: str, default: str | None) -> str | None:
    """The ``player`` of the first of a step's domain ``events`` of type ``kind``, else ``default``: whose hand a
    draw record's cards went to (a draw under the other seat is the turn player's, each game's ``redact_record``),
    not the seat that wrote it."""
    return next((getattr(e, "player", default) for e in events if type(e).__name__ == kind), default)


@dataclass(frozen=True, slots=True)
class ViolationView:
    line: int | None
    turn: int
    player: str | None
    rule: str
    message: str
    applied: bool


_SCALARS = (str, int, float, bool, type(None))


def read_only(items: dict) -> MappingProxyType:
    """A read-only mapping of ``items``: how a pickled (or deep-copied) view's mappings are made again."""
    return MappingProxyType(items)


# A view's read-only mappings (MappingProxyType, which Python cannot pickle) pickle as a copy of their items, so
# that views and replay steps go through pickle, copy.deepcopy and dataclasses.asdict ("cannot pickle 'mappingproxy'
# object"); a view owns its mappings' dicts (``freeze``), so the copy shares nothing and loses nothing
copyreg.pickle(MappingProxyType, lambda m: (read_only, (dict(m),)))


def freeze(value: Any) -> Any:
    """A deep read-only copy of JSON-like data: dicts become mappings, lists tuples (``plain``'s inverse)."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def plain(value: Any) -> Any:
    """Frozen view data back to JSON-native dicts and lists."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    names = getattr(type(value), "__dataclass_fields__", None)
    if names is not None:
        return {n: plain(getattr(value, n)) for n in names}
    if isinstance(value, (dict, MappingProxyType)):
        return {k: plain(v) for k, v in value.items()}
    return value


def _mapping(value: Any) -> Any:
    if isinstance(value, MappingProxyType):
        return dict(value)
    raise ArgumentTypeError(type(value).__name__)


def dumps(value: Any) -> bytes:
    """``orjson.dumps(plain(value))``, the same bytes, with the dataclasses, tuples and mappings walked
    by orjson itself instead of copied by ``plain`` first (a third of a server's view)."""
    return orjson.dumps(value, default=_mapping)


# R01-001, EX-R01, u01-013, between characters that are not ASCII letters or digits (the look-behind after its first
# letter, which the search looks for first: one before it was 2x slower): \b took a kanji or kana for a
# letter, so a code written against Japanese text ("B12-034軸", "軸B12-034", as Japanese is written, without a
# space) was never masked (QA round 34)
_CODE_LIKE = re.compile(r"[A-Za-z](?<![A-Za-z0-9].)[A-Za-z0-9]*-[A-Za-z0-9]*[0-9][A-Za-z0-9]*(?![A-Za-z0-9])",
                        re.IGNORECASE)
MASK_CACHE_CHARS = 1 << 22  # a Masker keeps the texts it masked last, and their masks, up to 4 Mi characters in all


class Masker:
    """Replaces card codes and names inside free text by ``[card]``: a catalog's, and anything code-like,
    in any letter case, after ``freetext.normalize`` (invisible characters dropped, NFKC, dash-like characters
    as ``-``).

    At each place of the text, left to right, the longest name that starts there is masked, else a
    code-like word, as one case-insensitive regular expression of every name (longest first) and then
    the code shape would. That expression cost ~3 ms per 1,000 characters (it tried each of the
    catalog's ~270 names at every place), so one view of a match named with 220,000 characters took
    1.5 s: the names are searched as a trie of their characters instead, in the text with each character
    folded to one character of its letter-case class (``_Folding``), where most places are ruled out by
    their first character or two: 10-40 ms per 220,000 characters, the code shape's search included."""

    def __init__(self, words: Iterable[str] = (), *, withheld: bool = False):
        # ``withheld``: ``words`` are not (all) the names of the catalog the match was checked against, so a rules
        # engine's message, which names cards by that catalog's names, is withheld (``engine_message``)
        self.withheld = withheld
        self.words = tuple(words)  # (what it masks besides the code shape, as given)
        normalized = {normalize(w) for w in self.words if w} - {""}
        self._fold = _Folding("".join(normalized))
        folded = {self._fold.word(w) for w in normalized}
        self._names = _trie_pattern(folded) if folded else None
        # the same few texts (players' and deck names) are masked in every step's view, and a name may be
        # 1,000,000 characters: kept up to MASK_CACHE_CHARS characters (texts and masks), not by count
        self._kept: OrderedDict[str, str] = OrderedDict()
        self._kept_chars = 0
        self._lock = threading.Lock()

    def __call__(self, text: str) -> str:
        if not text:
            return text
        with self._lock:
            hit = self._kept.get(text)
            if hit is not None:
                self._kept.move_to_end(text)
                return hit
        masked = self._mask(text)
        size = len(text) + len(masked)
        if size <= MASK_CACHE_CHARS:
            with self._lock:
                if text not in self._kept:
                    self._kept[text] = masked
                    self._kept_chars += size
                    while self._kept_chars > MASK_CACHE_CHARS:
                        old, old_masked = self._kept.popitem(last=False)
                        self._kept_chars -= len(old) + len(old_masked)
        return masked

    def _mask(self, text: str) -> str:
        written, text = text, normalize(text)
        names = self._names
        folded = self._fold(text) if names is not None else text
        name = names.search(folded) if names is not None else None
        code = _CODE_LIKE.search(text)
        spans: list[tuple[int, int]] = []  # the cards, in ``text`` (normalized)
        pos = 0
        while name is not None or code is not None:
            # at the same place a name goes first; a later match is searched again only when this one covers it
            m = name if code is None or (name is not None and name.start() <= code.start()) else code
            spans.append((m.start(), m.end()))
            pos = m.end()
            if name is not None and name.start() < pos:
                name = names.search(folded, pos)  # type: ignore[union-attr]
            if code is not None and code.start() < pos:
                code = _CODE_LIKE.search(text, pos)  # its look-behind reads text[pos - 1], as a substitution's does
        if not spans:  # no card in it: the text as written (a name in a script that needs its joiners, an emoji
            # sequence: normalized, they came apart, and the name as shown no longer found its matches), without
            # the bidirectional controls that could show it in another order (\u202e800-10R as a code)
            return BIDI_CONTROLS.sub("", written)
        kept = _as_written(written, text, spans)
        if kept is not None:
            return kept
        out: list[str] = []  # (a card that begins or ends inside what one character became: the text as compared)
        pos = 0
        for start, end in spans:
            out += (text[pos:start], MASK)
            pos = end
        out.append(text[pos:])
        return "".join(out)


def _as_written(written: str, normalized: str, spans: list[tuple[int, int]]) -> str | None:
    """``written`` with the cards found in its normalized form (``spans`` of ``normalized``) replaced by ``[card]``
    and the rest as written, its bidirectional controls dropped; None when a card begins or ends inside what one
    character (with the marks it composes with) became. Masked text was all shown as compared: every Japanese
    long vowel mark (ー) as ``-``, full-width text folded ("[card]軸ス-パ-スタ-", QA round 34).

    ``written`` is cut into pieces that normalize one by one: a character that begins a composition (its
    decomposition starts with a character of combining class 0; not one ``normalize`` drops, nor a Hangul vowel
    or final consonant, nor a spacing sound mark ゛゜, which compose with the character before) and the characters
    up to the next one. The pieces' forms must add up to ``normalized`` (else None: a composition this cut does not
    see); each card then covers whole pieces, and the text between two cards is the pieces between them, as
    written."""
    from bisect import bisect_left

    if normalized == written:  # (most text: ASCII, already in its compared form): a piece a character
        cuts = starts = None
    else:
        cuts, forms = _pieces(written)
        if "".join(forms) != normalized:
            return None
        starts = [0]
        for form in forms:
            starts.append(starts[-1] + len(form))
    out: list[str] = []
    pos = 0
    for start, end in spans:
        if starts is None or cuts is None:
            a, b = start, end
        else:
            first, after = bisect_left(starts, start), bisect_left(starts, end)
            if first >= len(starts) or starts[first] != start or after >= len(starts) or starts[after] != end:
                return None
            a, b = cuts[first], cuts[after]
        out += (BIDI_CONTROLS.sub("", written[pos:a]), MASK)
        pos = b
    out.append(BIDI_CONTROLS.sub("", written[pos:]))
    return "".join(out)


def _pieces(written: str) -> tuple[list[int], list[str]]:
    """Where ``_as_written`` cuts ``written`` (the start of each piece, then its length) and each piece's normalized
    form. Per distinct character and piece, once (a text repeats them: 220,000 Japanese characters in ~0.1 s)."""
    import unicodedata

    from zx_events import freetext

    dropped = freetext.DROPPED
    begins: dict[str, bool] = {}
    cuts = [0]
    for i in range(1, len(written)):
        ch = written[i]
        if " " <= ch < "\x7f":  # (a printable ASCII character begins its piece; a control is dropped: below)
            cuts.append(i)
            continue
        begin = begins.get(ch)
        if begin is None:
            first = unicodedata.normalize("NFKD", ch)[:1]
            begin = begins[ch] = bool(first) and not unicodedata.combining(first) and not dropped.match(ch) \
                and not ("\u1160" <= ch <= "\u11ff" or "\ud7b0" <= ch <= "\ud7ff" or ch in "\u309b\u309c")
        if begin:
            cuts.append(i)
    cuts.append(len(written))
    known: dict[str, str] = {}
    forms = []
    for a, b in zip(cuts, cuts[1:]):
        piece = written[a:b]
        form = known.get(piece)
        if form is None:
            form = known[piece] = piece if piece.isascii() and piece.isprintable() else normalize(piece)
        forms.append(form)
    return cuts, forms


def engine_message(mask: Callable[[str], str], text: str) -> str:
    """A rules engine's message (a violation's) as a seat other than the judge reads it: ``mask(text)``, or
    ``WITHHELD`` when ``mask`` does not know the names of the catalog the match was checked against
    (``Masker.withheld``; a ``functools.lru_cache`` of a Masker keeps its attributes). The engine writes a card's
    name from that catalog (X610Z "A1-020 (Hunter Dragon) is a Summon card", Z/X "5 copies of 'Crimson Drake
    Vanguard'"): a mask that knows only the code shape showed it to every seat (QA round 28)."""
    if text and getattr(mask, "withheld", False):
        return WITHHELD
    return mask(text)


def _same_case(a: str, b: str) -> bool:
    """Whether IGNORECASE matches character ``b`` to character ``a`` (the judge of every folding below)."""
    return re.fullmatch(re.escape(a), b, re.IGNORECASE) is not None


class _Folding:
    """Characters as a case-sensitive search compares them where a case-insensitive one compared those of
    ``chars`` (the names' characters): each character that IGNORECASE matches to one of them becomes the
    one character chosen for that case class (``A`` and ``a``; ``i``, ``I`` and the dotless ``ı``), any other
    character stays itself (and matches none). Which class a character is in is asked of ``re`` itself, so
    both searches find the same names. A character of a class met for the first time (``I`` where the names
    have only ``i``) is classed then: a text costs two scans of ``re`` and, when a character changes, a
    ``str.translate``."""

    def __init__(self, chars: str) -> None:
        self.rep: dict[str, str] = {}  # a character -> its class's character, for the names' and those met since
        self.table: dict[int, str] = {}  # the same, for str.translate, where they differ
        self._by_case: dict[str, str] = {}  # a lower or upper case form -> the class's character
        self._cased: list[str] = []  # the classes' characters that have a case
        self._lock = threading.Lock()
        for c in sorted(set(chars)):
            r = self._class_of(c)
            if r is None:  # a class of its own
                r = c
                if c.lower() != c or c.upper() != c:
                    self._cased.append(c)
                    self._by_case.setdefault(c.lower(), c)
                    self._by_case.setdefault(c.upper(), c)
            self._add(c, r)
        self._chars = "".join(re.escape(c) for c in self.rep)
        self._patterns()

    def _class_of(self, c: str) -> str | None:
        low, up = c.lower(), c.upper()
        if low == c == up:  # no case: IGNORECASE compares it as it is
            return c if c in self.rep else None
        for form in (low, up):
            r = self._by_case.get(form)
            if r is not None and _same_case(r, c):
                return r
        # an equivalence neither case form shows (U+0130, "İ", and "i"): asked of every class with a case
        return next((r for r in self._cased if _same_case(r, c)), None)

    def _add(self, c: str, r: str) -> None:
        self.rep[c] = r
        if r != c:
            self.table[ord(c)] = r

    def _patterns(self) -> None:
        known = "".join(re.escape(c) for c in self.rep)
        # a character that IGNORECASE matches to a name's character and that is not classed yet
        self._new = re.compile(f"(?i:[{self._chars}])(?<![{known}])") if known else None
        self._changes = re.compile("[" + "".join(re.escape(chr(k)) for k in self.table) + "]") if self.table else None

    def word(self, word: str) -> str:
        return "".join(self.rep[c] for c in word)

    def __call__(self, text: str) -> str:
        """``text`` folded, of the same length (a match in it is the same span of ``text``)."""
        found = self._new.search(text) if self._new is not None else None
        while found is not None:
            with self._lock:
                c = found.group()
                if c not in self.rep:
                    self._add(c, self._class_of(c) or c)
                    self._patterns()
            found = self._new.search(text, found.end())
        with self._lock:  # (another thread's _patterns sets _new, then _changes: read after its whole update)
            changes = self._changes
        return text.translate(self.table) if changes is not None and changes.search(text) else text


def _trie_pattern(words: Collection[str]) -> re.Pattern:
    """A case-sensitive expression that matches, at any place, the longest of ``words`` that starts there:
    the words as a trie (``abc|abd|ab`` as ``ab(?:c|d)?``), so a place where no word starts costs a character
    or two, where the plain alternation of ~270 names tried each. A trie too deep for ``re`` to compile
    (hundreds of words each the start of the next) is the plain alternation, longest first: the same matches."""
    root: dict[str, Any] = {}
    for w in words:
        node = root
        for c in w:
            node = node.setdefault(c, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict[str, Any]) -> str:
        alternatives = []
        for c, child in node.items():
            if c:
                chain = [c]  # a run of single branches is written as one literal
                while len(child) == 1 and "" not in child:
                    (c, child), = child.items()
                    chain.append(c)
                alternatives.append(re.escape("".join(chain)) + pattern(child))
        if not alternatives:
            return ""
        body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        return f"(?:{body})?" if "" in node else body  # greedy: the longer word first, else the word ending here

    try:
        return re.compile(pattern(root))
    except (RecursionError, re.error, OverflowError):
        return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))


GENERIC_MASK = Masker()

_SKIP = frozenset({"rec", "line", "originator_id", "originator_version", "timestamp", "digest"})


def event_fields(event: Any) -> dict[str, Any]:
    """An event's own fields (what the engine decided), without the record it came from nor its
    integrity digest (``zx_events.integrity``)."""
    return {k: v for k, v in vars(event).items() if k not in _SKIP}


def hide(codes: Any) -> Any:
    """Each card of ``codes`` (a list, or one code) as ``?``."""
    if isinstance(codes, list):
        return [HIDDEN] * len(codes)
    return HIDDEN if codes is not None else None
