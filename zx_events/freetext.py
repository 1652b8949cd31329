"""What free text a seat sees (docs/security.md, "Hidden information and free text").

A log carries text nobody checks against the rules: the header's ``note``, ``event``, ``round``,
``format``, player and deck names, and each record's ``note`` and ``ts``. Any of it can name a
hidden card ("P2 holds U01-013", in lowercase, with a Unicode hyphen, by the card's name). The
policy, for every seat that is not the judge (players and spectators), in every game:

- ``note`` (header and records): judge only. A note is the scorekeeper's, not a player's.
- ``ts``: shown only when it is a date-time or date (ISO 8601). Import still accepts any text
  (match log v1 says "text, ISO 8601 recommended"); the judge sees it as written.
- the importer's file path (``source`` of the ``Started`` event): judge only. Any other event's
  ``source`` (an effect's or ability's card or Square) is what every seat saw played: shown.
- the header's other text (``event``, ``round``, ``format``, names, deck names), and the text a
  record carries besides (Z/X: a ``result``'s ``reason``, a Token's ``name``; in the events and the
  state built from them too): shown, with card codes and card names masked by the game's masker,
  which compares after ``normalize``: invisible characters dropped (format characters, bidirectional
  controls, default-ignorable ones: ``R01\u200b-008``), Unicode compatibility forms folded (NFKC),
  every dash-like character read as ``-``, any letter case. A text with a card masked is shown with each
  card replaced whole (the invisible characters that hid it too) and the rest as written; a text without
  one is shown as written (the joiners a script or an emoji sequence needs kept); both without their
  bidirectional controls (``seats.Masker``).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from functools import cache
from typing import Any, Callable, Mapping

JUDGE = "judge"
JUDGE_ONLY_RECORD = ("note",)
JUDGE_ONLY_HEADER = ("note",)
JUDGE_ONLY_EVENT = {"Started": ("source",)}  # event kind -> its judge-only fields: the file path the match
# was imported from (an EffectApplied's or AbilityPlayed's ``source`` is a public card or Square: kept)
MASKED_HEADER = ("event", "round", "format")
MASKED_PLAYER = ("name", "deck_name")
# a record's free text besides its note and ts, by record kind (``seat_record`` with a mask): Z/X's result
# reason and Token name (match log v1: any text). X610Z's records carry none (its reason is one of a fixed list)
MASKED_RECORD = {"result": ("reason",), "effect": ("name",)}
# the same text in the events: an event's own field, or a field of its ``args`` (the effect record's op fields)
MASKED_EVENT = {"ResultRecorded": ("reason",)}
MASKED_EVENT_ARGS = {"EffectApplied": ("name",)}
# C0 controls but tab and newline, DEL, C1 controls, line/paragraph separators, bidirectional
# overrides and isolates: what can move a terminal's cursor, set its title, colours, links or
# clipboard (ESC sequences, OSC 52), or show text in another order than it is stored
_CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
# the same characters but the C0 controls, which JSON escapes itself (``json.dumps`` and ``orjson`` write
# U+0000-U+001F as ``\u001b``, ``\n``...; everything else raw), and their UTF-8 bytes
_JSON_RAW = "[\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
_JSON_RAW_UTF8 = b"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]"


# Format characters no one sees, which two names can differ by alone ("Black\u200bReapers" printed as
# "BlackReapers", in two rows): the soft hyphen, the Mongolian vowel separator, the zero-width space, the word
# joiner and the invisible operators, the deprecated format characters, the byte-order mark; and a zero-width
# (non-)joiner that joins nothing: at the text's edge, or beside an ASCII character, a space or another of
# these. Inside an emoji sequence, or between the letters of a script that joins (a Persian name's non-joiner),
# a joiner changes what is drawn: kept. Shown as escapes (``\\u200b``), never dropped: the name stays as logged.
_UNSEEN = "\u00ad\u180e\u200b\u2060-\u2064\u206a-\u206f\ufeff"
_ALONE = f"\\x00-\\x7f\\s{_UNSEEN}\u200c\u200d"  # what a joiner beside joins nothing with
_INVISIBLE_SHOWN = f"[{_UNSEEN}]|(?<![^{_ALONE}])[\u200c\u200d]|[\u200c\u200d](?![^{_ALONE}])"
# the UTF-8 bytes of every character ``INVISIBLE`` may escape (a joiner too, wherever it is): where to look
_INVISIBLE_UTF8 = b"\xc2\xad|\xe1\xa0\x8e|\xe2\x80[\x8b-\x8d]|\xe2\x81[\xa0-\xa4\xaa-\xaf]|\xef\xbb\xbf"


def printable(text: str, unseen: bool = True) -> str:
    """``text`` as a terminal may show it: each control character written as its escape (``\\x1b``,
    ``\\u202e``), and (``unseen``; a CSV keeps them) each invisible format character (``INVISIBLE``:
    ``\\u200b``), everything else as it is. A log's names and messages are someone else's text: a player
    named ``\\x1b]52;c;...`` wrote the clipboard of the judge who listed the matches; two decks whose names
    differed by a zero-width space were two rows that read alike."""
    if text.isprintable():  # (no control, format or separator character but the space: nothing to escape; most
        return text  # text, a Japanese name's too, so that no pattern is compiled for it)
    return escaped(_re(_CONTROL), escaped(_re(_INVISIBLE_SHOWN), text) if unseen else text)


def visible(text: str) -> str:
    """``text`` as a page shows it: as a terminal does (``printable``), each control character and each
    invisible format character as its escape (``\\x1b``, ``\\u200b``), everything else as it is (the page's
    template escapes HTML). A browser draws a control character as nothing, so two names that differed by
    one (ESC, BEL, a C1 CSI) read alike on the match list, the match page and the data tables (only the
    invisible format characters were escaped: QA round 33)."""
    return printable(text)


def json_escaped(text: str) -> str:
    """JSON text (``json.dumps``'s, ``orjson``'s, with or without ``ensure_ascii``) with each character
    ``printable`` escapes written as its JSON escape (``\\u009b``, ``\\u202e``): the same value once
    decoded, and nothing a terminal acts on. JSON escapes U+0000-U+001F itself but writes C1 controls
    (U+009B is a CSI), DEL, line separators and bidirectional controls raw, so ``zx matches --format json``
    in a terminal ran a player name's escape sequence, or showed it reversed. Such a character can only
    be inside a string of valid JSON, where its escape is valid too."""
    if text.isprintable() or not _re(_JSON_RAW).search(text):  # (isprintable: none of them, no pattern compiled)
        return text
    return _re(_JSON_RAW).sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_escaped_bytes(data: bytes) -> bytes:
    """``json_escaped`` of UTF-8 JSON bytes (``orjson.dumps``'s: the HTTP API's answers)."""
    if not _re(_JSON_RAW_UTF8).search(data):
        return data
    return _re(_JSON_RAW_UTF8).sub(lambda m: b"\\u%04x" % ord(m.group().decode("utf-8")), data)


def escaped(chars: re.Pattern, text: str) -> str:
    """``text`` with each character ``chars`` matches written as its escape (``\\x01``, ``\\ufffe``)."""
    if not chars.search(text):
        return text
    return chars.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


# bidirectional marks, embeddings, overrides and isolates: what can show text in another order than it is stored
# (a masked text drops them: ``seats.Masker``)
_BIDI_CONTROLS = "[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
_DASHES = "[\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u02d7\u2e3a\u2e3b\ufe58\ufe63\uff0d\u30fc]"


# Characters a reader does not see: every format character (Unicode category Cf: zero-width space and joiners,
# soft hyphen, word joiner, U+FEFF, bidirectional marks, embeddings, overrides and isolates, tags, ...) and every
# other default-ignorable code point (variation selectors, the combining grapheme joiner, Hangul fillers, ...).
# Inside a card code or name they hid it from the mask, and the screen showed it whole (R01\u200b-008); a
# bidirectional override showed text stored reversed (\u202e800-10R) as the code in a browser
_INVISIBLE = (  # (and the control characters, C0, DEL, C1, line and paragraph separators, which a reader sees as
    # an escape or a break, not as a letter: "紅蓮竜\x7fヴァンガード" named the card past the mask, QA round 34)
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


# Each pattern above is compiled when first used (``_re``), not when this module is imported: the eight took
# about 3 ms of every command's start-up (``zx matches``, issue 20 target 4), and most text needs none
# (``printable``'s ``isprintable``). The module's public ones are its attributes still (``__getattr__``).
_re = cache(re.compile)
_PUBLIC = {"INVISIBLE": _INVISIBLE_SHOWN, "INVISIBLE_UTF8": _INVISIBLE_UTF8, "JSON_RAW_UTF8": _JSON_RAW_UTF8,
           "BIDI_CONTROLS": _BIDI_CONTROLS, "DROPPED": _INVISIBLE}


def __getattr__(name: str) -> re.Pattern:
    """``freetext.INVISIBLE``, ``INVISIBLE_UTF8``, ``JSON_RAW_UTF8``, ``BIDI_CONTROLS``, ``DROPPED`` (what ``normalize``
    drops): the compiled pattern, made when first asked for (``from zx_events.freetext import BIDI_CONTROLS`` asks)."""
    if name in _PUBLIC:
        return _re(_PUBLIC[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def folded_name(text: str) -> str:
    """A name (a player's, a deck's, an event's) as zx compares what a user types with a log's (``zx matches
    --player`` and the match list's filters, ``zx replay --as NAME``): in any letter case, in any Unicode normal
    form ("José" typed is the "José" of a log written as e + combining acute: "no player named 'José'; did you
    mean 'José'?") and any width (NFKC: "タロウ" typed finds the "ﾀﾛｳ" of a log, "Ren" the "Ｒｅｎ": they found
    nothing, QA round 34; hiragana and katakana stay apart, "あき" is not "アキ"), without bidirectional controls
    (which a seat that is not the judge's sees dropped: a name as stored in a log found nothing in its list)."""
    if not text.isascii():
        text = _re(_BIDI_CONTROLS).sub("", unicodedata.normalize("NFKC", text))
    return text.casefold()


def nfc(text: Any) -> Any:
    """A header's free text (event, format, a player's and a deck's name) in Unicode NFC, so one name written in
    two normal forms (a log from a system that stores "é" as e + combining acute) is one key in every grouping and
    join of the analytics (one row by deck, one matchup), as the filters already compare it; anything else as is."""
    return unicodedata.normalize("NFC", text) if isinstance(text, str) else text


def normalize(text: str) -> str:
    """``text`` as compared for card codes and names, and as a mask shows it: without invisible characters
    (``_INVISIBLE``: dropped before NFKC, so that what they separated composes, and after it, should NFKC
    give one), NFKC, every dash-like character ``-``. Linear in the length of ``text``."""
    invisible = _re(_INVISIBLE)
    text = invisible.sub("", text)
    if "\u309b" in text or "\u309c" in text:  # the spacing sound marks, as Japanese wrote them before Unicode (ウ゛
        text = text.translate(_SOUND_MARKS)  # for ヴ): NFKC makes them a space and the combining mark, which never
        # composed, and a card's name written so was never masked (QA round 34): the combining marks, which compose
    return _re(_DASHES).sub("-", invisible.sub("", unicodedata.normalize("NFKC", text)))


_SOUND_MARKS = {0x309B: 0x3099, 0x309C: 0x309A}  # KATAKANA-HIRAGANA (SEMI-)VOICED SOUND MARK -> the combining ones


def cells_prefix(text: str, cells: int) -> int:
    """The length of the longest start of ``text`` made of whole grapheme clusters (Unicode's UAX #29: a flag,
    an emoji ZWJ sequence, a letter with its accents are one) that takes at most ``cells`` terminal cells (a
    wide character takes two), both as the ``wcwidth`` library reads them; ``len(text)`` when all of it fits.
    A cut there never leaves half a flag, a family cut at a joiner or a surrogate pair's half (a chart's
    renderer could not read one). Reads no further than it needs: linear in ``cells``, not in ``text``."""
    if len(text) * 2 <= cells:  # a cluster holds a character at the least and takes two cells at the most
        return len(text)
    from wcwidth import iter_graphemes, wcswidth

    used = end = 0
    for cluster in iter_graphemes(text):
        width = wcswidth(cluster)
        used += width if width >= 0 else len(cluster)  # (a control character: as its escape will, about)
        if used > cells:
            return end
        end += len(cluster)
    return end


SHOWN_CELLS = 200  # terminal cells of a value a terminal is shown: a table's cell (zx_cli.output.CELL_MAX), a board's name


def cut_cells(text: str, cells: int = SHOWN_CELLS, ellipsis: str = "...") -> str:
    """``text`` as a terminal is shown it: at most ``cells`` terminal cells, a longer one cut at a grapheme
    cluster (``cells_prefix``) and ending in ``ellipsis`` (a board's player and deck names: ``zx replay`` drew a
    10,000-character name whole, in every board; a chart's label, ``zx_web.dashboard.short``, ends in "…")."""
    if cells_prefix(text, cells) == len(text):
        return text
    return text[:cells_prefix(text, cells - len(ellipsis))] + ellipsis



def result_text(winner: str | None, reason: str | None, reasons: Mapping[str, str]) -> str:
    """A match's result as the boards say it: "P2 won by taking the other Life Base out of play (210.8)", "a draw by the
    time limit (106.1a)": the reason in its game's words (``reasons``, the game's ``rules.REASONS``), one the game
    does not name (a log's own text) as it is, cut to ``SHOWN_CELLS`` (``cut_cells``); zx replay's boards of both
    games (their ``render``) and, in JavaScript, each game's web/board.js."""
    words = reasons.get(str(reason), str(reason))
    return (f"{winner} won" if winner else "a draw") + (f" by {cut_cells(words)}" if reason else "")

def is_timestamp(value: Any) -> bool:
    """An ISO 8601 date-time or date (what ``ts`` must be)."""
    if not isinstance(value, str) or not value or len(value) > 40:
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        try:
            date.fromisoformat(value)
        except ValueError:
            return False
    return True


def seat_record(rec: dict, viewer: str, mask: Callable[[str], str] | None = None) -> dict:
    """A record's free text as ``viewer`` may see it (in place; returns ``rec``): with ``mask`` (a game
    whose records carry free text: ``MASKED_RECORD``), that text masked."""
    if viewer == JUDGE:
        return rec
    for key in JUDGE_ONLY_RECORD:
        rec.pop(key, None)
    if "ts" in rec and not is_timestamp(rec["ts"]):
        rec.pop("ts")
    if mask is not None:
        _mask_fields(rec, MASKED_RECORD.get(rec.get("do"), ()), mask)
    return rec


def _mask_fields(fields: dict, keys: tuple[str, ...], mask: Callable[[str], str]) -> None:
    for key in keys:
        if isinstance(fields.get(key), str):
            fields[key] = mask(fields[key])


def seat_header(header: dict, viewer: str, mask: Callable[[str], str]) -> dict:
    """A header's free text as ``viewer`` may see it (a new dict; players' decks are the game's business)."""
    if viewer == JUDGE:
        return header
    out = {k: v for k, v in header.items() if k not in JUDGE_ONLY_HEADER}
    for key in MASKED_HEADER:
        if isinstance(out.get(key), str):
            out[key] = mask(out[key])
    players = out.get("players")
    if isinstance(players, dict):
        out["players"] = {p: ({k: (mask(v) if k in MASKED_PLAYER and isinstance(v, str) else v)
                               for k, v in info.items() if k not in JUDGE_ONLY_HEADER}
                              if isinstance(info, dict) else info)
                          for p, info in players.items()}
    return out


def seat_player(info: dict, mask: Callable[[str], str] | None) -> dict:
    """A player's names (``MASKED_PLAYER``: name, deck name) from the header's entry ``info``, as a seat
    sees them in a view of the board: masked for every seat but the judge's (``mask`` None), the player's
    own names included, as in ``seat_header``."""
    out = {}
    for key in MASKED_PLAYER:
        value = info.get(key) if isinstance(info, dict) else None
        out[key] = mask(value) if mask is not None and isinstance(value, str) else value
    return out


def seat_event(kind: str, fields: dict, viewer: str, mask: Callable[[str], str] | None = None) -> dict:
    """The fields of a ``kind`` event without what only the judge sees (in place, its ``args`` copied when
    changed; returns ``fields``); with ``mask``, its free text (``MASKED_EVENT``, ``MASKED_EVENT_ARGS``) masked."""
    if viewer == JUDGE:
        return fields
    for key in JUDGE_ONLY_EVENT.get(kind, ()):
        fields.pop(key, None)
    if mask is not None:
        _mask_fields(fields, MASKED_EVENT.get(kind, ()), mask)
        if kind in MASKED_EVENT_ARGS and isinstance(fields.get("args"), dict):
            fields["args"] = dict(fields["args"])  # the stored event's own dict: never changed
            _mask_fields(fields["args"], MASKED_EVENT_ARGS[kind], mask)
    return fields


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 match``, ``2 matches``, ``1,234 more rows``: a count (thousands separated, as every count a message gives)
    and its noun, singular for one (``plural``: when not noun + s). zx's messages and pages alike (zx_cli.output's
    until round 38, where the pages wrote it again inline)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
