"""The browser replay viewer: one self-contained HTML file that replays a stored match from chosen seats.

``viewer_data(svc, match_id, seats)`` computes the page's data: for every event of the match and every
seat the file is written for, the state that seat sees (301.3: the same ``build_view`` that
``zx replay --as SEAT --format json`` prints), the event and its record as that seat may read them,
and the violations recorded. ``viewer_html(svc, match_id, seats)`` wraps it with the viewer's script
and style and the game's board renderer into one HTML page that fetches nothing.

Hidden information is removed here, in Python, never in the page: the data of a seat is computed by
the view functions alone, and only for the seats the file is written for, so the bytes of a P1 file
hold nothing P1 may not see (no hidden card code or name, no unmasked free text, no import path).

Encoding (docs/replay.md, "The viewer file"): every state is flattened into *slots* (the leaves of
its JSON up to depth 3: ``["squares", "a1", "power"]``, ``["players", "P1", "hand"]``, ...); every
distinct leaf value is stored once in ``pool``; a seat's events are lists of changes
``[slot, value, slot, value, ...]`` (value -1: the slot is gone) against the previous event. Event
texts, record texts and kinds go through the same pool. A 500-event match fits in ~100-250 KiB.
"""

from __future__ import annotations

import html
import json
import re
import shlex
from dataclasses import dataclass, field, replace
from importlib.resources import files
from typing import Any, Iterable, Sequence

import orjson

from zx_events import games, replay
from zx_events.errors import Error
from zx_events.freetext import INVISIBLE_UTF8, JSON_RAW_UTF8, counted, printable
from zx_events.seats import JUDGE, PERSPECTIVES, engine_message, event_fields
from zx_events.ids import project
from zx_events.narration import compact, fields_text, seat_players

from .icon import icon_href

FORMAT = 1  # the payload's version: viewer.js reads this one
DEPTH = 3  # slots are the leaves of a state's JSON down to this many keys
STATIC = files("zx_web") / "static"
GAME = games.DEFAULT  # the board files a page names when it does not say which game it is


@dataclass(frozen=True)
class GameViews:
    """What the viewer asks of a game: its key (which ``web/board.js`` draws it), its 301.3 view
    functions, and the card names of a match (``replay.CardNames``: names, masker, warning)."""

    key: str
    build_view: Any
    redact_record: Any
    redact_event: Any
    names: Any  # Match -> replay.CardNames
    narrate: Any = None  # (kind, fields as a seat sees them, card names, players' names, before=, mask=) -> a sentence


def game_views(game: Any) -> GameViews:
    """``GameViews`` of a game of the registry (``zx_events.games.base.Game``): its seat views, its sentences, and
    card names from the catalog its match was checked against (``replay.names_for``)."""
    return GameViews(game.key, game.build_view, game.redact_record, game.redact_event, replay.names_for,
                     game.narrate)


def views_of(hist: replay.History) -> GameViews:
    """The ``GameViews`` of the game a stored match belongs to, its card names with the catalog files of ``hist``
    (``replay.History.catalogs``: the one the match was checked against names its cards)."""
    views = game_views(replay.game_of(hist.state_at(1)))
    return replace(views, names=hist.names) if hist.catalogs else views


class ViewerError(Error, ValueError):
    """A page that cannot be built: an unknown seat, no seat at all (a ``zx_events.errors.Error``)."""


def parse_seats(seats: Iterable[str]) -> list[str]:
    """Seats in the canonical order (judge, P1, P2, spectator), each once; at least one."""
    from zx_events.seats import parse_perspective

    chosen = set()
    for s in seats:
        try:
            chosen.add(parse_perspective(s))
        except ValueError as e:
            raise ViewerError(str(e)) from None
    if not chosen:
        raise ViewerError("no seat: give at least one of " + ", ".join(PERSPECTIVES))
    return [p for p in PERSPECTIVES if p in chosen]


def file_name(match_id: str, seats: Sequence[str]) -> str:
    """The name ``zx view`` gives its file when ``-o`` names none, and ``zx serve``'s Download its attachment:
    ``MATCH-SEAT.html``, the id's characters other than letters, digits, ``.``, ``_`` and ``-`` as ``_`` (no path,
    no quote, nothing a header or a file system reads otherwise), ``match`` for an id with none left."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", match_id).strip("._") or "match"
    return f"{safe}-{'-'.join(seats)}.html"


def shared_warning(seats: Sequence[str]) -> str | None:
    """What ``zx view`` says on stderr when its file holds more than the seat that sees least of it (the page's
    banner says it too, at a seat that sees less): None for one seat's file."""
    if len(seats) < 2:
        return None
    players = [s for s in seats if s in ("P1", "P2")]
    if JUDGE in seats:
        rest = ", ".join(s for s in seats if s != JUDGE)
        return (f"this file holds the judge's view (every hidden card) beside {rest}: do not share it with a player "
                "or a spectator")
    if len(players) == 2:
        return "this file holds both players' hidden cards (P1 and P2): do not share it with a player or a spectator"
    return f"this file holds {players[0]}'s hidden cards beside the spectator's view: share it with {players[0]} only"


# ---------------------------------------------------------------------- the game's part
def board_script(game: str = GAME) -> str:
    """The game's board renderer (JavaScript): draws one state, and names the chart's series.

    It belongs to the game package: ``zx_events/games/GAME/web/board.js`` (Z/X's draws the Square
    and both players' panels; another game ships its own there and the viewer stays the same)."""
    return _game_file(game, "board.js")


def board_style(game: str = GAME) -> str:
    """The game's board style sheet, beside its renderer (``web/board.css``)."""
    return _game_file(game, "board.css")


def _game_file(game: str, name: str) -> str:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", game or ""):
        raise ViewerError(f"no board renderer for game {game!r}")
    path = files("zx_events.games") / game / "web" / name
    if not path.is_file():
        raise ViewerError(f"no board renderer for game {game!r}: zx_events/games/{game}/web/{name} is missing")
    return path.read_text(encoding="utf-8")


# ---------------------------------------------------------------------- texts
_compact = compact  # (zx_events.narration: a value on one line, true/false/null as JSON writes them)


def record_text(rec: dict | None, header: bool = False) -> str:
    """A log record on one line: ``P1 play card=R01-002 pay=[R01-001] square=a1``."""
    if rec is None:
        return "header" if header else ""  # a game whose events do not keep their record: its line only
    r = dict(rec)
    head = f"{r.pop('by', '')} {r.pop('do', '')}".strip()
    note = r.pop("note", None)
    rest = " ".join(f"{k}={_compact(v)}" for k, v in r.items() if v not in (None, [], {}))
    return " ".join(x for x in (head, rest, f"— {note}" if note else "") if x)


def event_text(kind: str, data: dict, seat: str, mask: Any) -> str:
    """An event's own fields on one line, ``key=value``, as ``seat`` may read them (redact_event applied before):
    the judge's list shows them on hovering an event (its ``title``), beside the game's sentence (``Game.narrate``)."""
    if kind == "Started":
        h = data.get("header", {})
        note = h.get("note")
        if note and seat != JUDGE:
            note = mask(note)  # free text in the header may name any card
        parts = [data.get("match_id"), h.get("event"), h.get("played_at"), note and f"— {note}"]
        if seat == JUDGE:  # the import's file path and digest: the judge's file only
            parts += [f"source={data.get('source')}", f"sha256={str(data.get('content_sha256'))[:12]}"]
        return " ".join(str(p) for p in parts if p)
    return fields_text(data)


# ---------------------------------------------------------------------- encoding
@dataclass
class _Pool:
    values: list[Any] = field(default_factory=list)
    index: dict[bytes, int] = field(default_factory=dict)

    def add(self, value: Any) -> int:
        key = orjson.dumps(value)
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.values)
            self.values.append(value)
        return i


def _leaves(value: Any, prefix: tuple, depth: int, out: dict[tuple, Any]) -> None:
    if isinstance(value, dict) and value and depth < DEPTH:
        for k, v in value.items():
            _leaves(v, prefix + (k,), depth + 1, out)
    else:
        out[prefix] = value


MODS_SHOWN = 8  # a Square's Power modifiers are in the page while it holds at most this many (a Z/X lean view's)


def page_state(view: dict) -> dict:
    """A seat's view as the page keeps it at each event: without what grows with the match and the
    page never reads from a state: the violations so far (the page has each one once, with its seq:
    ``violations``), and a Square's list of Power modifiers when it is empty, when the card's Power is not
    shown (face-down) or when it holds more than ``MODS_SHOWN`` (board.js then shows the Power with its base
    and their sum, ``Power 5000 (4500 +500)``; else each modifier, as zx replay does: ``(1500 +2000 -500)``).
    The views are built lean (no violations, and no modifiers past ``MODS_SHOWN``). Each was one slot, kept whole at every change: 2,000
    violations made a page of 227 MB, 1.3 GB and 25 s to build, and 2,000 modifiers on one card the same."""
    view.pop("violations", None)
    squares = view.get("squares")
    if isinstance(squares, dict):
        for sq in squares.values():
            if isinstance(sq, dict) and not (sq.get("power") is not None
                                             and 0 < len(sq.get("mods") or ()) <= MODS_SHOWN):
                sq.pop("mods", None)
    return view


def flatten(state: dict) -> dict[tuple, Any]:
    """A state's slots: path (tuple of keys) -> leaf value (JSON-native)."""
    out: dict[tuple, Any] = {}
    _leaves(state, (), 0, out)
    return out


def unflatten(slots: dict[tuple, Any]) -> dict:
    """The inverse of ``flatten`` (what viewer.js does in the page)."""
    root: dict = {}
    for path, value in slots.items():
        node = root
        for k in path[:-1]:
            node = node.setdefault(k, {})
        node[path[-1]] = value
    return root


def _header_info(m: Any, mask: Any) -> dict[str, Any]:
    """What the title bar shows (every seat of the page): public facts of the header, free text with
    card codes and names masked (no decks, no note, no file path: zx_events.freetext)."""
    h = m.header or {}

    def text(v: Any) -> Any:
        return mask(v) if isinstance(v, str) else v

    return {"match": m.match_id, "event": text(h.get("event")), "round": text(h.get("round")),
            "played_at": h.get("played_at"), "format": text(h.get("format")),
            "players": {p: {"name": text(i.get("name")), "deck_name": text(i.get("deck_name"))}
                        for p, i in (m.players or {}).items()}}


def viewer_data(svc: Any, match_id: str, seats: Sequence[str] = ("spectator",),
                game: GameViews | None = None, verdict: Any = None, catalogs: Any = ()) -> dict[str, Any]:
    """The page's data for ``seats`` (JSON-native; see the module docstring for its encoding). A match
    that fails verification (its chain, the store seal or its replay snapshots: what ``zx verify`` checks)
    says so in the page's warning banner, as ``zx replay`` says so on stderr: a shared file of an altered
    match shows what was altered. ``verdict``: that check, made already (``zx serve``'s replay page).
    ``catalogs``: catalog files the user gave (``zx view --catalog FILE``), the one the match was checked against
    naming its cards (``replay.History.catalogs``)."""
    from zx_events.ledger import failure_warning

    data = history_data(replay.load_history(svc, match_id, catalogs), seats, game)
    verdict = verdict if verdict is not None else replay.verify_match(svc, match_id)
    if not verdict.ok:
        data["warning"] = "; ".join(w for w in (failure_warning(verdict), data.get("warning")) if w)
    # the match's head digest as stored, and its events: the page names them (``chain_note``), so that a file made
    # from a forged store is not one a reader cannot tell from a real one (QA round 35); a digest shows nothing a
    # seat may not see: every seat's page has it
    data["chain"] = {"head": verdict.head, "events": verdict.events, "ok": verdict.ok}
    return data


def history_data(hist: replay.History, seats: Sequence[str] = ("spectator",),
                 game: GameViews | None = None) -> dict[str, Any]:
    """The page's data of a match's events (``replay.History``) for ``seats``: ``game``'s views
    (default: those of the match's own game) decide what each seat sees, its ``key`` which board
    renderer draws it."""
    seats = parse_seats(seats)
    game = game or views_of(hist)
    build_view, redact_record, redact_event = game.build_view, game.redact_record, game.redact_event
    narrate = game.narrate or (lambda kind, fields, names, players, before=None, mask=None: fields_text(fields))
    match_id = hist.match_id
    pool = _Pool()
    paths: dict[tuple, int] = {}
    kinds = [pool.add(type(e).__name__) for e in hist.events]
    steps = [[lo, hi, getattr(hist.events[lo - 1], "line", None)] for lo, hi in hist.bounds]
    per_seat: dict[str, dict[str, Any]] = {
        s: {"changes": [], "events": [], "records": [], "violations": [], **({"fields": []} if s == JUDGE else {})}
        for s in seats}
    previous: dict[str, dict[tuple, int]] = {s: {} for s in seats}
    match = None
    cn = None
    info: dict[str, Any] = {}
    players: dict[str, dict[str, str]] = {}
    last = hist.last_seq
    for index, (lo, hi) in enumerate(hist.bounds):
        chunk = hist.events[lo - 1: hi]
        rec = next((e.rec for e in chunk if getattr(e, "rec", None) is not None), None)
        for e in chunk:
            before = match  # (each seat sees the event as the state it is applied to lets it: a face-down Force
            # card that leaves, 301.3b; Game.redact_event's ``before``)
            if before is None:  # the Started event
                match = project(None, (e,))  # (ids.project: an event it cannot apply is a DamagedMatch)
            if cn is None:
                cn = game.names(match)
                info = _header_info(match, cn.mask)
                players = {s: seat_players(match, s, cn.mask) for s in seats}  # (as each seat's board names them)
            kind = type(e).__name__
            fields = event_fields(e)
            records = {s: record_text(redact_record(rec, s, cn.mask, chunk, before=before), header=index == 0)
                       for s in seats} if e.originator_version == lo else {}
            seen_by = {s: redact_event(kind, fields, s, cn.mask, before=before) for s in seats}
            told = {s: narrate(kind, seen, cn.names, players[s], before=before, mask=None if s == JUDGE else cn.mask)
                    for s, seen in seen_by.items()}
            if before is not None:
                match = project(match, (e,))
            for s in seats:
                out = per_seat[s]
                if e.originator_version == lo:
                    out["records"].append(pool.add(records[s]))
                seen = seen_by[s]
                out["events"].append(pool.add(told[s]))  # what the seat sees (and the public state before)
                if s == JUDGE:  # and its fields, key=value: the judge's list shows them on hovering the event
                    out["fields"].append(pool.add(event_text(kind, seen, s, cn.mask)))
                if kind == "ViolationRecorded":
                    msg = e.message if s == JUDGE else engine_message(cn.mask, e.message)
                    out["violations"].append([e.originator_version, e.rule, e.player, msg, e.rec is None])  # applied
                view = page_state(build_view(match, s, cn.names, mask=cn.mask, last_seq=last, lean=True).to_json())
                slots = flatten(view)
                before = previous[s]
                now: dict[tuple, int] = {}
                delta: list[int] = []
                for path, value in slots.items():
                    v = pool.add(value)
                    now[path] = v
                    if before.get(path) != v:
                        p = paths.get(path)
                        if p is None:
                            p = paths[path] = len(paths)
                        delta += (p, v)
                for path in before:  # in the order they came, not a set's (which follows the hash seed)
                    if path not in now:
                        delta += (paths[path], -1)
                previous[s] = now
                out["changes"].append(delta)
    outcome = getattr(match, "outcome", None) if match is not None else None  # (public: every seat's board says it)
    result = {k: outcome.get(k) for k in ("winner", "reason", "how") if outcome.get(k) is not None} \
        if isinstance(outcome, dict) else None
    return {"format": FORMAT, "game": game.key, "match": match_id, "info": info, "result": result,
            "seats": seats, "last": last, "turns": list(hist.turns), "begins": list(hist.begins), "steps": steps,
            "kinds": kinds,
            "paths": [list(p) for p in paths], "pool": pool.values, "views": per_seat,
            "warning": "; ".join(w for w in (cn.warning if cn else None, *_pin_warnings(game, match)) if w) or None}


def _pin_warnings(game: GameViews, match: Any) -> list[str]:
    """The warnings of the fixtures ``match`` pinned that are not at hand (X610Z: a board file given at import: the
    page draws no map of it), as ``zx replay`` gives them on stderr (``zx_events.pins.view_warnings``)."""
    from zx_events.pins import view_warnings

    if match is None or game.key not in games.keys():
        return []
    return view_warnings(games.get(game.key), match)


def decode(data: dict[str, Any], seat: str) -> list[dict]:
    """Every state of ``seat`` in ``data`` (index 0 = after event 1): what the page rebuilds."""
    paths = [tuple(p) for p in data["paths"]]
    pool = data["pool"]
    slots: dict[tuple, Any] = {}
    out = []
    for delta in data["views"][seat]["changes"]:
        for i in range(0, len(delta), 2):
            path, v = paths[delta[i]], delta[i + 1]
            if v < 0:
                slots.pop(path, None)
            else:
                slots[path] = pool[v]
        out.append(unflatten(slots))
    return out


# ---------------------------------------------------------------------- the page
def _inline_json(data: Any) -> str:
    """JSON safe inside <script type="application/json">: every ``<`` (only ever inside a string) as
    ``\\u003c``, so no ``</script`` can close the element and no ``<!--`` change how it is parsed.
    (``<!--`` was written ``<\\!--``, not a JSON escape: JSON.parse failed and the page of any match
    with ``<!--`` in a name or note showed nothing.) Every text in it is drawn as a terminal shows it
    (``_drawn``)."""
    text = orjson.dumps(data)
    if _CONTROLS_IN_JSON.search(text):  # (rare: the whole data is walked only then)
        text = orjson.dumps(_drawn(data))
    return text.decode("utf-8").replace("<", "\\u003c")


# a control character printable escapes, in orjson's JSON: raw (C1, DEL, separators, bidi controls: freetext's
# JSON_RAW_UTF8), or a C0 one as JSON writes it (``\\u001b``, ``\\b``, ``\\f``, ``\\r``; an escaped backslash
# before ``b`` only costs a walk that changes nothing); or an invisible format character (freetext.INVISIBLE_UTF8:
# a joiner in an emoji only costs a walk that changes nothing)
_CONTROLS_IN_JSON = re.compile(JSON_RAW_UTF8.pattern + rb"|\\u00[01][0-9a-f]|\\[bfr]|" + INVISIBLE_UTF8.pattern)


def _drawn(value: Any) -> Any:
    """``value`` with each of its texts as ``freetext.printable`` gives it: every control character and
    invisible format character as its escape (``\\u202e``, ``\\x9b``, ``\\u200b``). The judge's view holds a
    log's text exact, and a bidirectional override in it made the browser draw a name stored as
    ``\\u202e800-10R`` as ``R01-008`` in the chart's legend (the heading showed ``800-10R``), a note or a Token name likewise; it now reads ``\\u202e800-10R`` everywhere,
    as in ``zx replay --as judge``. A seat's text has its bidirectional controls dropped already (the mask)."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {k: _drawn(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_drawn(v) for v in value]
    return value


def _script_hash(text: str) -> str:
    """The CSP hash source of an inline script: base64 of the SHA-256 of its UTF-8 text."""
    import base64
    import hashlib

    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _inline_code(text: str, what: str) -> str:
    if "</script" in text.lower() or "</style" in text.lower():
        raise ViewerError(f"{what} cannot be inlined: it contains a closing tag")
    return text


# what viewer.js says of a seat when the game's board.js says nothing (its ``seatNote``), and its seats' names
SEAT_NOTES = {
    "judge": "sees everything, every hidden card included",
    "P1": "sees what P1 may see: the public zones and P1's own hidden cards",
    "P2": "sees what P2 may see: the public zones and P2's own hidden cards",
    "spectator": "sees the public zones only"}
_SEES = {"spectator": 0, "P1": 1, "P2": 1, JUDGE: 2}
_JS_STRING = r'"(?:[^"\\\n]|\\.)*"'


def board_words(game: str = GAME) -> tuple[dict[str, str], str | None]:
    """What the game's board.js says of its seats (``seatNotes``: each seat's note in the Seat box, else
    ``SEAT_NOTES``) and of a judge's file (``hiddenZones``), read from its text: the page is drawn with them
    before its script runs, the words the script writes (tests/web/test_viewer_phone.py holds them equal)."""
    text = board_script(game)
    notes = dict(SEAT_NOTES)
    block = re.search(r"\bseatNotes\s*=\s*\{([^{}]*)\}", text)
    if block:
        notes = {k: json.loads(v) for k, v in re.findall(r"([A-Za-z0-9_]+)\s*:\s*(" + _JS_STRING + ")", block.group(1))}
    hidden = re.search(r"\bhiddenZones\s*:\s*(" + _JS_STRING + ")", text)
    return notes, json.loads(hidden.group(1)) if hidden else None


def least_seeing(seats: Sequence[str]) -> str:
    """The seat a page opens at when its address names none (viewer.js's ``leastSeeing``): the one of ``seats``
    that sees least (spectator, then a player, P1 before P2, then the judge)."""
    least = seats[0]
    for s in seats:
        if _SEES.get(s, 0) < _SEES.get(least, 0):
            least = s
    return least


def _js_text(value: Any) -> str:
    """``value`` as JavaScript's ``String(value)`` writes it (a header's round may be a number)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, (str, int, float)):
        return str(value)
    return orjson.dumps(value).decode("utf-8")


def _shared_banner(seats: Sequence[str], seat: str) -> str:
    """The banner of a file with more seats than the one shown (viewer.js's ``sharedBanner``)."""
    if JUDGE in seats:
        return "This file also holds the judge's view (every hidden card): do not share it with players."
    others = [x for x in seats if x in ("P1", "P2") and x != seat]
    if not others:
        return ""
    both = "P1" in seats and "P2" in seats
    return ("This file also holds " + ("P1's and P2's views (their hidden cards)" if len(others) > 1 else
                                       f"{others[0]}'s view ({others[0]}'s hidden cards)") + ": " +
            ("do not share it with a player or a spectator." if both else f"share it with {others[0]} only."))


def head_parts(data: dict[str, Any]) -> dict[str, str]:
    """The page's title bar, Seat box and banners as its script draws them when it starts (at the seat that sees
    least: the one it opens at unless its address names another), in HTML: the page is laid out with them from its
    first paint, and nothing moves when the script runs (QA round 35: on a phone the title, written by the script
    at the end of a 100-400 KiB page, pushed the buttons, the chart and the board 150 px down once they were on
    screen). Only what the data of the page holds, as the script writes it: the header's public facts (masked for
    every seat: ``_header_info``), the words of the seat shown; each text escaped."""
    esc = html.escape
    info = _drawn(data.get("info") or {})
    players = info.get("players") or {}

    def who(p: str) -> str:
        i = players.get(p) or {}
        deck = _js_text(i.get("deck_name"))
        return (f'<span class="who {p}">{p} {esc(_js_text(i.get("name")))}</span>' +
                (f" ({esc(deck)})" if deck else ""))

    round_ = info.get("round")
    facts = [esc(_js_text(x)) for x in (info.get("event"), None if round_ is None else "round " + _js_text(round_))
             if x not in (None, "", 0, False)]
    when = info.get("played_at")  # (on one line: "2026-05-" / "28T17:54..." broke on a phone, QA round 38)
    if when not in (None, "", 0, False):
        facts.append(f'<span class="when">{esc(_js_text(when))}</span>')
    seats = list(data["seats"])
    seat = least_seeing(seats)
    notes, hidden = board_words(data["game"])
    if seat == JUDGE:
        banner = ("Judge's file: it holds every hidden card of this match" + (f" ({hidden})" if hidden else "") +
                  ". Do not share it with players or spectators.")
    else:
        banner = _shared_banner(seats, seat)
    warning = data.get("warning")
    return {
        "{{HEADING}}": esc(_js_text(info.get("match") or data.get("match"))),
        "{{SUBTITLE}}": who("P1") + " vs " + who("P2") + " · " + " · ".join(facts),
        "{{SEATS}}": "".join(f'<option value="{esc(s)}"{" selected" if s == seat else ""}>{esc(s)}</option>'
                             for s in seats),
        "{{SEATOFF}}": " disabled" if len(seats) < 2 else "",
        "{{SEATSHOWN}}": esc("Seat: " + seat),
        "{{SEATNOTE}}": esc(notes.get(seat, "")),
        "{{BANNER}}": esc(banner),
        "{{BANNEROFF}}": "" if banner else " hidden",
        "{{WARNING}}": esc("warning: " + printable(warning)) if warning else "",
        "{{WARNINGOFF}}": "" if warning else " hidden",
        "{{VIOLOFF}}": "" if data["views"][seat]["violations"] else " hidden",  # its buttons and marks' row
        "{{LAST}}": str(int(data["last"])),
    }


def result_said(data: dict[str, Any]) -> str:
    """The match's result as the match page says it ("P2 Yuna won by damage with no Life left (...)", "a draw by
    the time limit (106.1a)", "no result"), its turns and events: text, from the page's data (the header's public
    names, masked as the title bar's; the result is every seat's)."""
    result = data.get("result") or {}
    players = (_drawn(data.get("info") or {}).get("players")) or {}
    winner, reason, how = result.get("winner"), result.get("reason"), result.get("how")
    try:
        game = games.get(data["game"])
    except ValueError:
        game = None
    words = "" if not reason else str(reason) if game is None else game.reason_text(reason, how=how, winner=winner)
    if winner:
        name = _js_text((players.get(winner) or {}).get("name"))
        said = f"{winner} {name}".strip() + " won" + ((": " if how else " by ") + words if words else "")
    elif reason:  # (with how, as the match page: "a draw: both Life Bases left play at once (...)")
        said = f"a draw{': ' if how else ' by '}{words}"
    else:
        said = "no result"
    turns, events = len(data.get("turns") or ()), int(data.get("last") or 0)
    return f"{said[:1].upper()}{said[1:]} · {counted(turns, 'turn')} · {counted(events, 'event')}"


def no_script(data: dict[str, Any], served: bool) -> str:
    """What the page says where its scripts do not run (``<noscript>``): that the replay is drawn by them, the
    match's result, and the two ways to step through it without them: ``zx replay MATCH --as SEAT`` in a terminal
    and, served, the Download (one file, for a browser that runs scripts; a file of zx view: itself). Its dead
    controls, empty chart, board and event list are hidden then (the head's ``<noscript><style>``): until 2026-11-29
    the page was drawn blank and silent, its buttons doing nothing (QA round 38)."""
    esc = html.escape
    seats = list(data["seats"])
    seat = least_seeing(seats)
    match = printable(shlex.quote(str(data.get("match"))))
    command = " or ".join(f"<code>zx replay {esc(match)} --as {esc(s)}</code>"
                          for s in [seat] + [s for s in seats if s != seat])
    how = ("the Download above: one HTML file, for a browser that runs scripts" if served else
           "this file in a browser that runs scripts (it fetches nothing)")
    return (f'<noscript><div id="no-script" class="banner noscript" role="note"><p>This replay is drawn by '
            f'JavaScript, which this browser does not run here.</p>'
            f'<p id="no-script-result">{esc(result_said(data))}</p>'
            f'<p>To step through it: in a terminal, {command} (<code>--turn N</code>, <code>--step</code>), '
            f'where the store is; or {how}.</p></div></noscript>\n')


def chain_note(data: dict[str, Any]) -> str:
    """The footer's sentence on the match's head digest (``viewer_data``'s ``chain``), in HTML, or "" (a page of
    data without it): 16 hex digits, enough for ``zx verify --head`` and no wider than a phone's footer; and that
    the file itself is no evidence (anyone can write one from a forged store): the store and a judge's bundle are."""
    chain = data.get("chain") or {}
    head, events = chain.get("head"), chain.get("events")
    if not isinstance(head, str) or not re.fullmatch(r"[0-9a-f]{16,64}", head):
        return ""
    esc = html.escape
    short = head[:16]
    match = shlex.quote(str(data.get("match")))
    count = f" ({counted(int(events), 'event')})" if isinstance(events, int) else ""
    if not chain.get("ok"):
        return (f'<span id="chain-head">Head digest as stored <code>{short}</code>{count}: its chain does not verify '
                f'(the warning above).</span>\n  ')
    return (f'<span id="chain-head">Head digest <code>{short}</code>{count}: <code>zx verify '
            f'{esc(printable(match))} --head {short}</code> checks it against the store. This file is no evidence of the '
            f'match: the store '
            f'(<code>zx verify --head</code>) or a judge\'s bundle (<code>zx verify --bundle</code>) is.</span>\n  ')


def page(data: dict[str, Any], nav: str = "") -> str:
    """The whole HTML page for ``data`` (from ``viewer_data``). ``nav``: HTML of links put under the title
    bar (zx serve's: back to the match and the list, the other seats it offers); a file of ``zx view``
    has none: it stands alone."""
    template = (STATIC / "viewer.html").read_text(encoding="utf-8")
    info = data["info"]
    # served (zx serve gives its links): "· zx-events", as its other pages end; a file of zx view: "· zx view"
    title = f"{info['match']} · {', '.join(data['seats'])} · {'zx-events' if nav else 'zx view'}"
    viewer_js = _inline_code((STATIC / "viewer.js").read_text(encoding="utf-8"), "viewer.js")
    board_js = _inline_code(board_script(data["game"]), "the board renderer")
    parts = {
        "{{TITLE}}": html.escape(title),
        "{{STYLE}}": _inline_code((STATIC / "viewer.css").read_text(encoding="utf-8"), "viewer.css"),
        "{{VIEWER}}": viewer_js,
        "{{BOARD}}": board_js,
        "{{BOARDSTYLE}}": _inline_code(board_style(data["game"]), "the board style"),
        "{{DATA}}": _inline_json(data),
        "{{NAV}}": nav,
        "{{NOSCRIPT}}": no_script(data, served=bool(nav)),
        "{{CHAIN}}": chain_note(data),
        "{{ICON}}": icon_href(),
        # only these two scripts run (their SHA-256 in the page's CSP): a script a log's text might
        # ever smuggle into the page would not, nor an inline event handler; and nothing is fetched
        "{{SCRIPTS}}": " ".join(f"'sha256-{_script_hash(js)}'" for js in (board_js, viewer_js)),
        **head_parts(data),
    }
    # one pass over the template: what is put in is never scanned again
    return re.sub(r"\{\{[A-Z]+\}\}", lambda m: parts[m.group(0)], template)


def viewer_html(svc: Any, match_id: str, seats: Sequence[str] = ("spectator",), game: GameViews | None = None,
                nav: str = "", verdict: Any = None, catalogs: Any = ()) -> str:
    """One self-contained HTML page replaying ``match_id`` from ``seats`` (for zx view and zx serve; ``verdict``,
    ``catalogs``: ``viewer_data``'s)."""
    return page(viewer_data(svc, match_id, seats, game, verdict, catalogs), nav)


def dumps(data: dict[str, Any]) -> str:
    """The payload as JSON text (for a server that sends it apart from the page)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
