"""The match list: filtering, ordering and paging the match summaries (``MatchService.summaries``) as ``zx
matches`` lists them, ``zx export``'s filters choose them and the server's ``/api/matches`` and ``/matches`` page
answer them; the core's, for the Python API too (docs/replay.md, "The match list in Python")::

    from zx_events.application import MatchService
    from zx_events.matchlist import MatchFilters, kept, records

    with MatchService("zx-store.sqlite", create=False) as svc:
        rows = kept(svc.summaries(), MatchFilters(player="Aki", opponent="Ren"), sort="newest")
    records(rows)  # Aki's record against Ren, one a game (as zx matches --player Aki --opponent Ren says it)

A filter or sort of a value it does not take is a ``FilterError`` (a ``zx_events.errors.Error`` and a
``ValueError``); a filter that is not text a ``TypeError``. (It was ``zx_web.matchlist`` until round 37.)"""

from __future__ import annotations

from datetime import date
from typing import Any, Iterable

from zx_events import freetext
from zx_events.errors import ArgumentTypeError, ZXError, shown
from zx_events.games import DEFAULT, GAME_MODULES


GAMES = tuple(GAME_MODULES)  # the games a match list can be filtered by: every registered game
SEATS = ("P1", "P2")


# A filter form sends its choice in the request's URL (GET): a deck or event name of a log may hold nearly
# 1,000,000 characters (a header line's limit, docs/match-log.md), 12 MB percent-encoded, more than a browser
# sends (Chromium: 2 MB a URL). A form offers the names whose percent-encoded form is at most ``OFFERED_MAX``
# bytes (a 10,000-character Japanese deck name is 90 KB: offered), and the server reads a request line and
# headers of up to 1 MiB (uvicorn's h11: zx_cli.serve.REQUEST_HEAD_MAX): every offered filter at once, with room for
# the typed ones. Beyond 64 KiB of URL uvicorn's default parser (httptools) answered a plain-text 400.
OFFERED_MAX = 256 * 1024


class FilterError(ZXError):
    """A match list filter or sort of a value it does not take: a date that is not one, ``since`` after ``until``,
    an unknown game or sort (a ``ValueError`` too, as it was; ``zx matches`` says it as a usage error)."""


class MatchFilters:
    """Every filter is optional; names match exactly (in any case and width: ``folded``). ``player``: the
    matches that player played (either side). ``deck``: the matches with that deck on either side; with
    ``player``, on that player's side only (as ``zx stats --player P --deck D`` counts them: the matches where
    the opponent played the deck were listed too, QA round 35).

    ``opponent``: the matches against that player (with ``player``, that player's matches against them);
    ``opp_deck``: the matches where the side facing ``player`` (or any side, without one) played that deck
    (a coach preparing a matchup: "Ren's Red Dragons against Mio's Blue Control"). A match is kept when one of
    its two sides (a player, their deck, their opponent and the opponent's deck) passes every side filter:
    ``side`` names it, the seat the list shows the match from (``pov``).

    ``winner``: P1, P2, ``draw`` (finished without a winner), ``none`` (no result recorded) or a
    player's name (the matches that player won). ``since``/``until``: the match date as written
    in its header, inclusive (a match without a date is left out when either is given).
    ``q``: free text found in the id, event, a player's name or a deck's name.

    ``exact`` (``"1"``; True is taken for it): the names (player, deck, opponent, opp_deck, event, a winner's) as
    written, in any Unicode normal form, as ``zx stats`` and the dashboard take them, each spelling apart: the
    dashboard's links carry it, so a row's link lists the matches the row counts (``Mio`` linked 52 matches of
    ``Mio``, ``MIO`` and ``Ｍｉｏ`` from a row counting 22, QA round 37); ``q`` folds still.

    A frozen value, as the dataclass it was (equality, hash, repr, no assignment), written out: making the
    dataclass was about 2 ms of ``zx matches``' start-up (issue 20 target 4)."""

    FIELDS = ("game", "player", "deck", "event", "since", "until", "winner", "q", "opponent", "opp_deck", "exact")
    game: str | None
    player: str | None
    deck: str | None
    event: str | None
    since: str | None
    until: str | None
    winner: str | None
    q: str | None
    opponent: str | None
    opp_deck: str | None
    exact: str | None

    def __init__(self, game: str | None = None, player: str | None = None, deck: str | None = None,
                 event: str | None = None, since: str | None = None, until: str | None = None,
                 winner: str | None = None, q: str | None = None, opponent: str | None = None,
                 opp_deck: str | None = None, exact: bool | str | None = None, **unknown: Any) -> None:
        put = object.__setattr__
        if unknown:  # (Python's own "unexpected keyword argument" was a plain TypeError, no suggestion: QA round 37)
            import difflib

            name = next(iter(unknown))
            near = difflib.get_close_matches(name, self.FIELDS, n=1)
            raise ArgumentTypeError(f"MatchFilters has no filter {name!r}"
                                    f"{f'; did you mean {near[0]!r}?' if near else ''} (its filters: "
                                    f"{', '.join(self.FIELDS)})")
        if isinstance(exact, bool) or exact is None:
            exact = "1" if exact else None
        elif isinstance(exact, str) and exact.strip().lower() in ("0", "false", "no", "off", ""):
            exact = None
        elif isinstance(exact, str) and exact.strip().lower() in ("1", "true", "yes", "on"):
            exact = "1"
        elif isinstance(exact, str):
            raise FilterError(f"exact: {exact!r} is not 1 or 0")
        for name, v in zip(self.FIELDS, (game, player, deck, event, since, until, winner, q, opponent, opp_deck,
                                         exact)):
            if v is not None and not isinstance(v, str):  # (player=5 was AttributeError from inside, at keep)
                raise ArgumentTypeError(f"{name} must be text (a str) or None, got {type(v).__name__} {shown(v, 80)}")
            put(self, name, v)
        for name in ("since", "until"):
            v = getattr(self, name)
            if v:
                try:  # kept as YYYY-MM-DD (compared with the header's date as text): 20260101 is read too
                    put(self, name, date.fromisoformat(v).isoformat())
                except ValueError:
                    raise FilterError(f"{name}: {v!r} is not a date (YYYY-MM-DD)") from None
        if self.since and self.until and self.since > self.until:
            raise FilterError(f"since {self.since} is after until {self.until}")
        if self.game:  # any case, as zx matches --game takes it
            put(self, "game", self.game.strip().lower())
        if self.game and self.game not in GAMES:
            raise FilterError(f"game: unknown game {self.game!r} (known: {', '.join(GAMES)})")

    def _values(self) -> tuple[str | None, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        return self._values() == other._values() if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"MatchFilters({', '.join(f'{name}={v!r}' for name, v in zip(self.FIELDS, self._values()))})"

    def params(self) -> dict[str, str]:
        return {name: v for name, v in zip(self.FIELDS, self._values()) if v}

    def keep(self, row: dict[str, Any]) -> bool:
        return bool(self.sides(row))

    def side(self, row: dict[str, Any]) -> str | None:
        """The seat (P1, P2) of ``row`` whose side passes every side filter (player, deck, opponent, opp_deck),
        P1's where both do (a mirror, or no side filter); None when the match is not kept."""
        seats = self.sides(row)
        return seats[0] if seats else None

    def sides(self, row: dict[str, Any]) -> list[str]:
        """Every seat (P1, P2) of ``row`` whose side passes every side filter, in seat order (both where both do:
        a player of that name on each seat, a mirror of decks; P1 alone without a side filter); [] when the match
        is not kept."""
        low = nfc if self.exact else folded  # (names as written, each spelling apart; or folded)
        if self.game and (row.get("game") or DEFAULT) != self.game:
            return []
        seats = ["P1"]
        if self.player or self.deck or self.opponent or self.opp_deck:
            p1 = (low(row.get("p1") or ""), low(row.get("p1_deck") or ""))
            p2 = (low(row.get("p2") or ""), low(row.get("p2_deck") or ""))
            # each side as (seat, name, deck, opponent, opponent's deck): a filter of a side keeps the sides it fits
            sides = [("P1", *p1, *p2), ("P2", *p2, *p1)]
            for i, value in enumerate((self.player, self.deck, self.opponent, self.opp_deck), start=1):
                if value:
                    want = low(value)
                    sides = [s for s in sides if s[i] == want]
            if not sides:
                return []
            seats = [side[0] for side in sides]
        if self.event and low(self.event) != low(row.get("event") or ""):
            return []
        day = (row.get("played_at") or "")[:10]
        if (self.since or self.until) and not day:
            return []
        if self.since and day < self.since:
            return []
        if self.until and day > self.until:
            return []
        if self.winner and not _won(row, self.winner, low):
            return []
        if self.q:
            text = folded(" ".join(str(row.get(k) or "") for k in ("match", "event", "p1", "p2", "p1_deck", "p2_deck")))
            if not all(word in text for word in folded(self.q).split()):
                return []
        return seats


def _won(row: dict[str, Any], winner: str, low: Any = None) -> bool:
    low = low or folded
    w = winner.strip()
    if w.upper() in SEATS:
        return row.get("winner") == w.upper()
    if w.lower() == "draw":
        return row.get("winner") is None and row.get("reason") is not None
    if w.lower() == "none":
        return row.get("reason") is None
    seat = row.get("winner")
    return seat in SEATS and low(row.get("p1" if seat == "P1" else "p2") or "") == low(w)


NAME_FILTERS = (("player", "player", ("p1", "p2")), ("opponent", "player", ("p1", "p2")),
                ("deck", "deck", ("p1_deck", "p2_deck")), ("opp_deck", "deck", ("p1_deck", "p2_deck")),
                ("event", "event", ("event",)), ("winner", "player", ("p1", "p2")))
WINNER_WORDS = ("p1", "p2", "draw", "none")  # --winner values that are no player's name


def spellings_of(rows: Iterable[dict[str, Any]], name: str | None, keys: tuple[str, ...]) -> list[str]:
    """The distinct spellings, among ``rows``' ``keys`` (``p1``, ``p2``), of the name the list's filter ``name``
    matches (``folded``: case, width, bidi controls): more than one, and ``zx stats``, the dashboard and
    ``/api/stats``, which take a name as written, count each apart (QA round 36)."""
    if not name:
        return []
    want = folded(name)
    return sorted({r[k] for r in rows for k in keys if isinstance(r.get(k), str) and folded(r[k]) == want})


def unknown_filter(rows: Iterable[dict[str, Any]], filters: MatchFilters) -> tuple[str, tuple[Any, ...]] | None:
    """The filter's key and the arguments of ``zx_analytics.stats.UnknownName`` (kind, value, the names known,
    where, what to say without any) for the first name filter (player, opponent, deck, opponent's deck, event, a
    winner's name) that names nothing of
    ``rows`` (of the game filtered, if any): in ``zx matches``, ``/api/matches`` and the ``/matches`` page
    alike, "no player named '佐藤蓮' in the store; did you mean '佐藤 蓮'?" where the list and the API said
    "0 matches" (QA round 35). None when every name is known. ``rows`` as the caller shows them (a server
    that is not the judge's: masked, so that a suggestion never names hidden text)."""
    from zx_events import games

    where, none = "the store", None
    if filters.game:
        rows = [r for r in rows if (r.get("game") or DEFAULT) == filters.game]
        name = games.choices([filters.game])[0]["name"]
        where, none = f"the {name} matches", f"the store has no {name} matches yet"
    else:
        rows = list(rows)
    for key, kind, columns in NAME_FILTERS:
        value = getattr(filters, key)
        if not value or (key == "winner" and value.strip().lower() in WINNER_WORDS):
            continue
        known = {r[c] for r in rows for c in columns if isinstance(r.get(c), str) and r[c]}
        same = nfc if filters.exact else folded  # (as the filter compares them)
        if same(value) not in {same(k) for k in known}:
            return key, (kind, value, sorted(known), where, none)
    return None


folded = freetext.folded_name  # (one rule: zx replay --as NAME folds a name alike)
nfc = freetext.nfc  # (a name as written, in any normal form, as the statistics take it: exact)



SORTS = ("store", "newest", "oldest")  # the list's orders: as stored (imported), by date either way


def played_key(row: dict[str, Any]) -> tuple[int, Any]:
    """``row``'s moment, to sort by: its header's ``played_at`` as an instant (an offset taken into account: 10:00+09:00
    is before 09:00+00:00; a time without one read as UTC; a date alone as its midnight); (1, None) without a date it
    can read, which the sorts place last."""
    from datetime import datetime, timezone

    text = row.get("played_at")
    if not text or not isinstance(text, str):
        return (1, None)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return (1, None)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (0, moment)


def ordered(rows: list[dict[str, Any]], sort: str | None) -> list[dict[str, Any]]:
    """``rows`` (in store order) in the order ``sort`` names (``SORTS``; None: ``store``): ``newest`` the latest
    played first, ``oldest`` the earliest; matches of one moment stay in store order (the sort is stable), those
    without a date last either way."""
    if not sort or sort == "store":
        return rows
    if sort not in SORTS:
        raise FilterError(f"sort: {sort!r} is not one of {', '.join(SORTS)}")
    keys = [played_key(r) for r in rows]
    dated = [i for i, k in enumerate(keys) if k[0] == 0]
    dated.sort(key=lambda i: keys[i][1], reverse=sort == "newest")  # (stable in reverse too: ties in store order)
    return [rows[i] for i in dated] + [r for k, r in zip(keys, rows) if k[0] == 1]


RESULTS = ("won", "lost", "draw", "none")


def pov(row: dict[str, Any], seat: str) -> dict[str, Any]:
    """``row`` seen from ``seat``'s side: the summary's fields, and ``seat``, ``opponent``, ``deck`` (the seat's),
    ``opp_deck`` and ``result`` (won, lost, draw: finished without a winner, none: no result recorded) as that
    side played it (``zx matches --player P``, ``/api/matches?player=P``, the list page)."""
    other = "P2" if seat == "P1" else "P1"
    mine, theirs = seat.lower(), other.lower()
    winner = row.get("winner")
    result = ("won" if winner == seat else "lost" if winner == other else "draw" if row.get("reason") is not None
              else "none")
    return {**row, "seat": seat, "player": row.get(mine), "opponent": row.get(theirs), "deck": row.get(f"{mine}_deck"),
            "opp_deck": row.get(f"{theirs}_deck"), "result": result}


def reason_words(row: dict[str, Any]) -> tuple[str, str] | None:
    """A listed match's result reason in its game's words: (short, as the list's result cell says it after "won",
    "lost" or "draw": ``Game.reason_label``; whole, as the match page says it: ``Game.reason_text``, its tooltip);
    None for a match without one. The list wrote the engine's key, "won (concede)" (read as if the winner had
    conceded), "won (ending_dot)", its tooltip "life" (QA round 38); JSON and CSV keep the key (``reason``)."""
    from zx_events import games as registry

    reason = row.get("reason")
    if not reason:
        return None
    try:
        game = registry.get(row.get("game") or DEFAULT)
    except ValueError:  # (a game not installed here: its key as stored)
        return str(reason), str(reason)
    return game.reason_label(reason), game.reason_text(reason, how=row.get("how"), winner=row.get("winner"))


def records(chosen: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The player's record over the rows a player filter keeps (``kept``: each a side, ``pov``), one a game (games
    are never mixed, as ``zx stats``): ``game``, ``won``, ``lost``, ``drawn``, ``none`` (no result recorded),
    ``games`` (finished: won, lost or drawn), and ``win_rate`` with its Wilson 95% interval ``win_rate_low``,
    ``win_rate_high`` (None without a finished game), counted as ``zx stats winrates --by player`` counts them:
    a draw is a game without a win, a match without a result is no game, a player on both seats is a win and a
    loss. [] for rows not seen from a side (no player filter)."""
    from zx_events.wilson import wilson_interval

    counts: dict[str, dict[str, int]] = {}
    for r in chosen:
        if r.get("result") not in RESULTS:
            return []
        tally = counts.setdefault(r.get("game") or DEFAULT, dict.fromkeys(("won", "lost", "drawn", "none"), 0))
        tally["drawn" if r["result"] == "draw" else r["result"]] += 1
    out = []
    for game, tally in counts.items():
        games = tally["won"] + tally["lost"] + tally["drawn"]
        low, high = wilson_interval(tally["won"], games)
        out.append({"game": game, **tally, "games": games, "win_rate": tally["won"] / games if games else None,
                    "win_rate_low": low, "win_rate_high": high})
    return out


def record_line(filters: MatchFilters, rec: dict[str, Any], chosen: list[dict[str, Any]],
                several_games: bool = False) -> str:
    """One game's ``records`` entry of the rows ``chosen`` in words, for the list's reader (``zx matches --player``
    on stderr): "Aki against Mio: 3 won, 1 lost, 0 drawn of 4 games; win rate 75.0% (95% interval 30.1-95.4)", its
    rate as ``zx stats`` shows one; each name as the rows spell it (as typed where they spell it several ways).
    The /matches page writes it as the dashboard does (``record_parts`` with ``percent``)."""
    head, rate, tail = record_parts(filters, rec, chosen, several_games)
    return head + (f"; {rate}" if rate else "") + tail


def record_parts(filters: MatchFilters, rec: dict[str, Any], chosen: list[dict[str, Any]],
                 several_games: bool = False, percent: bool = False) -> tuple[str, str, str]:
    """``record_line`` in three parts: who and the counts, the win rate with its interval ("" without a finished
    game), the rest ("; 2 without a result"). ``percent``: the interval as the dashboard writes one, "30.1%–95.4%"
    (the /matches page, which keeps the rate and its interval on one line: "43.3-69.0)" wrapped alone, QA round
    38)."""
    from zx_events import games as registry

    def spelled(key: str, value: str) -> str:
        found = {r[key] for r in chosen if isinstance(r.get(key), str)}
        return found.pop() if len(found) == 1 else value

    who = spelled("player", filters.player or "")
    if filters.deck:
        who += f" playing {spelled('deck', filters.deck)}"
    opp_deck = spelled("opp_deck", filters.opp_deck) if filters.opp_deck else ""
    if filters.opponent:
        who += f" against {spelled('opponent', filters.opponent)}" + (f" playing {opp_deck}" if opp_deck else "")
    elif opp_deck:
        who += f" against {opp_deck}"
    if several_games:
        who += f" ({registry.choices([rec['game']])[0]['name']})"
    head = (f"{who}: {rec['won']:,} won, {rec['lost']:,} lost, {rec['drawn']:,} drawn of {rec['games']:,} "
            f"game{'' if rec['games'] == 1 else 's'}")
    rate = ""
    if rec["win_rate"] is not None:
        low, high = 100 * rec["win_rate_low"], 100 * rec["win_rate_high"]
        interval = f"{low:.1f}%\u2013{high:.1f}%" if percent else f"{low:.1f}-{high:.1f}"
        rate = f"win rate {100 * rec['win_rate']:.1f}% (95% interval {interval})"
    tail = f"; {rec['none']:,} without a result" if rec["none"] else ""
    return head, rate, tail


def kept(rows: Iterable[dict[str, Any]], filters: MatchFilters, sort: str | None = None) -> list[dict[str, Any]]:
    """The rows ``filters`` keep, in the order ``sort`` names; with a player filter each seen from that player's
    side (``pov``)."""
    out = []
    for r in rows:
        seats = filters.sides(r)
        if seats and filters.player:  # each side the player played (both: a player of that name on each seat,
            out.extend(pov(r, seat) for seat in seats)  # counted as zx stats counts them, a win and a loss)
        elif seats:
            out.append(r)
    return ordered(out, sort)


def page(rows: Iterable[dict[str, Any]], filters: MatchFilters, offset: int, limit: int,
         sort: str | None = None) -> dict[str, Any]:
    """The answer of /api/matches: the rows ``filters`` keep (``kept``), the page from ``offset``."""
    return paged(kept(rows, filters, sort), filters, offset, limit, sort)


def paged(chosen: list[dict[str, Any]], filters: MatchFilters, offset: int, limit: int,
          sort: str | None = None) -> dict[str, Any]:
    """``page`` of the rows already kept (``chosen``: the /matches page reads them for its note too); with a player
    filter (and no winner filter, which would decide it), ``records``: the player's record over every row kept,
    one a game."""
    return {"total": len(chosen), "offset": offset, "limit": limit, "filters": filters.params(),
            "sort": sort or "store", "matches": [{"game": "zx", **r} for r in chosen[offset: offset + limit]],
            **({"records": records(chosen)} if recorded(filters) else {})}


def recorded(filters: MatchFilters) -> bool:
    """Whether the list gives the player's record (``records``): a player filter without a winner filter (the
    matches a side won: their record is the filter's)."""
    return bool(filters.player) and not filters.winner
