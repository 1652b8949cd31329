"""Play-by-play: an event said in one line of its game's words, as a seat may read it.

Each game says its own events (``zx_events/games/GAME/narrate.py``, reached through ``Game.narrate``): its
``SAYS`` table maps an event kind to the fields it knows and a function that writes the sentence from those
fields *as the seat sees them* (after the game's ``redact_event``: a hidden card is ``?`` and reads "a card").
A sentence never says more than those fields: it looks up nothing but the card names of the match's pinned
catalog (``Words.names``) and the players' names as the seat sees them (``Words.players``, masked outside the
judge's view as the board's are); a game whose sentences read the state an event was applied to (its
``SEES_BEFORE``) reads only what is public there, and says the log's free text it holds (a Z/X Token's name) as the
seat reads it (``Words.free``: masked outside the judge's view, as the board masks it).

The words are the reader's; what is not the game's to say stays as the key=value text every surface showed
before (``fields_text``): an event kind the game does not know, and a field the game's table does not name (a
later version's), appended to its sentence. Nothing here raises (``say``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from zx_events.freetext import cut_cells, result_text
from zx_events.seats import GENERIC_MASK, HIDDEN

NAME_CELLS = 40  # terminal cells of a player's name, a Token's name, in a sentence (the board shows them whole)


def compact(value: Any) -> str:
    """A value on one line; ``true``, ``false`` and ``null`` as JSON (and zx replay) write them."""
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(compact(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + " ".join(f"{k}={compact(v)}" for k, v in value.items()) + "}"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return str(value)


def fields_text(fields: Mapping[str, Any]) -> str:
    """An event's fields on one line (``player=P1 card=A1-010``): what an event said before it had a sentence, and
    what it still says where its game has none."""
    return " ".join(f"{k}={compact(v)}" for k, v in fields.items()
                    if k != "originator_topic" and v not in (None, [], {}, ()))


def hidden(code: Any) -> bool:
    """Whether a card field is one the seat may not read (``?``), or says no card at all."""
    return not isinstance(code, str) or code == HIDDEN or code == ""


def number(v: Any) -> str:
    """A count as a sentence gives it, thousands separated (``1,234``); anything else (a stored field that is not
    a count) as it is."""
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def counted(n: int, word: str, plural: str | None = None) -> str:
    if n == 1:
        return f"a {word}" if word[0] not in "aeiouAEIOU" else f"an {word}"
    return f"{n:,} {plural or word + 's'}"


@dataclass(frozen=True)
class Words:
    """What a sentence may name besides its fields: card code -> name (the match's pinned catalog), seat ->
    player's name as the seat sees it (masked but for the judge; empty when the header gives none), and the masker
    of the log's free text for the seat (``free``; None: the judge's, who reads it whole)."""

    names: Mapping[str, str] = field(default_factory=dict)
    players: Mapping[str, str] = field(default_factory=dict)
    mask: Callable[[str], str] | None = GENERIC_MASK  # (masked unless said to be the judge's)

    def free(self, text: Any) -> str:
        """The log's free text the state holds (a Z/X Token's name) as the seat reads it: its card names and codes
        masked but for the judge (``zx_events.freetext``, as the board masks it), on one line, cut (``short``)."""
        if not isinstance(text, str):
            return ""
        return short(self.mask(text) if self.mask is not None else text).strip()

    def card(self, code: Any) -> str:
        """``Flamecrest Lancer R01-010``; a hidden card ``a card``; a code the catalog lacks, the code."""
        if hidden(code):
            return "a card"
        name = self.names.get(code)
        return f"{name} {code}" if name else str(code)

    def cards(self, codes: Any) -> str:
        """A list of cards: each shown named, the hidden ones counted (``2 cards``; ``no cards``)."""
        if not isinstance(codes, (list, tuple)):
            return self.card(codes)
        if not codes:
            return "no cards"
        shown = [self.card(c) for c in codes if not hidden(c)]
        unseen = len(codes) - len(shown)
        if unseen:
            shown.append(counted(unseen, "card") if not shown else f"{unseen:,} hidden card{'s' if unseen > 1 else ''}")
        return ", ".join(shown)

    def who(self, seat: Any) -> str:
        """``P1 Mio``: the seat with the player's name (cut to ``NAME_CELLS``), or the seat alone; a name that
        starts with its seat (a simulated X610Z match's "P1 bot") alone, not after its seat again."""
        if not seat:
            return "nobody"
        name = self.players.get(seat)
        if not (isinstance(name, str) and name.strip()):
            return str(seat)
        name = short(name)
        return name if name == seat or name.startswith(f"{seat} ") else f"{seat} {name}"


_BREAKS = re.compile("[\n\r\t]+")  # (other separators, NEL, U+2028: escaped where shown, as on the board)


def one_line(text: Any) -> Any:
    """Free text on one line: each run of line feeds, carriage returns and tabs as a space; anything else as it is
    (a NEL, a line or paragraph separator, a form feed: escaped where the sentence is shown, ``freetext.printable``,
    as the board shows the name: two names told apart by one read alike as spaces)."""
    return _BREAKS.sub(" ", text) if isinstance(text, str) else text


def short(text: Any) -> str:
    """Free text in a sentence, on its one line (a line break as a space) and at most ``NAME_CELLS`` terminal
    cells (a name of 10,000 characters in every line of a 500-event list was megabytes)."""
    return cut_cells(one_line(str(text)), NAME_CELLS, "…")


def skipped(player: Any, w: Words) -> str:
    """A record passed over (``RecordSkipped``: another record's finding stands for it)."""
    return (f"{w.who(player)}'s record" if player else "A record") + " is passed over: not applied"


def signed(n: Any) -> str:
    """A change with its sign: ``+2``, ``-1``."""
    return f"+{n}" if isinstance(n, int) and n >= 0 else str(n)


def hand(cards: Any, w: Words) -> str:
    """Cards drawn or put face-down: named, or counted when the seat sees none of them ("2 cards")."""
    cards = cards or []
    return counted(len(cards), "card") if all(hidden(c) for c in cards) else w.cards(cards)


def discarding(f: Mapping[str, Any], w: Words) -> str:
    """``, discarding CARDS`` of an end of turn's ``discard`` (nothing without one)."""
    discard = f.get("discard") or []
    return f", discarding {w.cards(discard)}" if discard else ""


def violation(f: Mapping[str, Any], w: Words) -> str:
    """A ``ViolationRecorded``: the rule, who broke it, the turn, the message (and a waiver, where a game has one)."""
    who = f" by {f['player']}" if f.get("player") else ""
    text = f"Rule {f.get('rule')} broken{who} (turn {f.get('turn')}): {f.get('message')}"
    return text + (f" (waived: {f['waive']})" if f.get("waive") else "")


def imported_from(f: Mapping[str, Any]) -> str:
    """The words of a ``Started`` event's fields ``f`` naming the file the match was imported from and its digest,
    as its sentence holds them (the judge's: the only seat whose fields hold ``source``); ``zx replay`` finds them
    there to keep them whole."""
    return f" (imported from {one_line(str(f['source']))}, sha256 {str(f.get('content_sha256'))[:12]})"


def started(f: Mapping[str, Any], w: Words) -> str:
    """A match's ``Started``: its id, event, round and date, the board (a game that has one), the players and
    their decks, who goes first; the header's note and the import's file (whole) and digest where the seat's fields
    hold them (the judge's)."""
    h = f.get("header") or {}
    players = h.get("players") or {}
    sides = []
    for seat in sorted(players):
        info = players[seat] if isinstance(players[seat], Mapping) else {}
        name, deck = info.get("name"), info.get("deck_name")
        sides.append(seat + (f" {short(name)}" if name else "") + (f" ({short(deck)})" if deck else ""))
    rnd = h.get("round")  # a number labelled ("Osaka CS, round 6": a bare 6 read as part of the event), a text as is
    rnd = f"round {rnd}" if isinstance(rnd, int) and not isinstance(rnd, bool) or str(rnd).isdigit() else rnd
    where = ", ".join(short(v) for v in (h.get("event"), rnd) if v)
    text = f"Match {f.get('match_id')} begins" + (f" at {where}" if where else "") + \
        (f" ({h['played_at']})" if h.get("played_at") else "")
    board = f.get("board") or {}
    if isinstance(board, Mapping) and board.get("name"):
        text += f" on the board {short(board['name'])}"
    if sides:
        text += ": " + " vs ".join(sides)
    text += f"; {h.get('first') or 'P1'} goes first"
    # the path and the note whole, on one line (not cut to NAME_CELLS: the browser wraps them, docs/replay.md; the
    # terminal cuts a step's text at 200 cells, with a note); once a match, unlike a name in every sentence. The
    # path first: a long note cut in the terminal took the path with it
    if f.get("source"):  # the import's file and digest: the judge's only
        text += imported_from(f)
    if h.get("note"):  # (the judge's only: redact_event leaves it out for every other seat)
        text += f" — {one_line(str(h['note'])).strip()}"
    return text


def known_now(player: Any, cards: Any, w: Words) -> str:
    """The card(s) of a draw the log left out, unknown in the hand until the record that first uses them (digest.8;
    either game's draw event with ``unknown``): named to the seats that see the hand, "known now" to the others."""
    codes = cards if isinstance(cards, (list, tuple)) else [cards]
    what = "known now" if all(hidden(c) for c in codes) else w.cards(cards)
    return f"{w.who(player)}'s card drawn unknown (his draw left out of the log) is {what}"


EVERY_EVENT = frozenset({"line", "rec", "originator_topic"})  # fields a sentence leaves out on purpose, any game's


def known(*names: str) -> frozenset[str]:
    """The fields an event kind's sentence reads or leaves out on purpose (a game's ``SAYS``): ``names`` and
    ``EVERY_EVENT``'s; ``say`` appends any other as key=value text."""
    return frozenset(names) | EVERY_EVENT


Say = Callable[..., str]  # (fields, words) -> a sentence; a kind of a game's READS_BEFORE: (fields, words, before)


def common(reasons: Mapping[str, str]) -> dict[str, tuple[frozenset[str], Say]]:
    """The sentences of the events every game's match records alike (a turn begins, a concession, the end, the
    log's result in the game's ``reasons``, a record passed over, the import's seal): a game's ``SAYS`` starts
    from these."""
    return {
        "TurnStarted": (known("turn", "player"),
                        lambda f, w: f"Turn {f.get('turn')}: {w.who(f.get('player'))}'s turn begins"),
        "Conceded": (known("player"), lambda f, w: f"{w.who(f.get('player'))} concedes"),
        "MatchEnded": (known("winner", "reason"),
                       lambda f, w: "The match ends: " + result_text(f.get("winner"), f.get("reason"), reasons)),
        "ResultRecorded": (known("winner", "reason"), lambda f, w: "The log records the result: "
                           + result_text(f.get("winner"), one_line(f.get("reason")), reasons)),
        "RecordSkipped": (known("player"), lambda f, w: skipped(f.get("player"), w)),
        "Sealed": (known("events", "last"), lambda f, w: f"The import is sealed after {number(f.get('events'))} events "
                   f"(digest {str(f.get('last'))[:12]})"),
    }


def say(table: Mapping[str, tuple[frozenset[str], Say]], kind: str, fields: Mapping[str, Any],
        words: Words, before: Any = None, reads_before: frozenset[str] = frozenset()) -> str | None:
    """``kind``'s sentence from ``table`` (a game's ``SAYS``), with any field the table does not know
    appended as key=value text; None when the game does not say ``kind``, or could not from these fields. A kind of
    ``reads_before`` is written with ``before`` too, the state the event was applied to (None: not given)."""
    entry = table.get(kind)
    if entry is None:
        return None
    known, write = entry
    try:
        text = write(fields, words, before) if kind in reads_before else write(fields, words)
    except Exception:  # (a field of another shape than the game's: a later version's, an altered one)
        return None
    extra = {k: v for k, v in fields.items() if k not in known}
    rest = fields_text(extra)
    return f"{text} ({rest})" if rest else text


def seat_players(match: Any, perspective: str, mask: Callable[[str], str] | None) -> dict[str, str]:
    """Seat -> the player's name in the match's header, as ``perspective`` sees it (``freetext.seat_player``:
    masked for every seat but the judge's, as the board shows it); a seat without a name is left out."""
    from zx_events.freetext import JUDGE, seat_player

    out = {}
    for seat, info in (getattr(match, "players", None) or {}).items():
        name = seat_player(info if isinstance(info, dict) else {}, None if perspective == JUDGE else mask)["name"]
        if isinstance(name, str) and name:
            out[seat] = name
    return out
