"""The JSON API under ``/api``: matches, views from a seat, statistics, audits. Read-only.

Hidden information (301.3): a view without ``as`` is the spectator's; ``as=P1``/``P2`` shows that
seat's own hand and Dynamis; ``as=judge`` (everything) is refused with 403 unless the server was
started with ``--judge``. Outside the judge's view, card codes and names in free text (violation
messages, audit findings) are masked and the header's deck lists are left out, as in ``zx replay``.
"""

from __future__ import annotations

from typing import Any, Literal

import orjson
from fastapi import APIRouter, Depends, Query, Request, Response

from zx_events.errors import ZXError
from zx_events.freetext import json_escaped_bytes

from .app_json import JSON
from .backend import Backend, StoreFailed, WebError, store_failure
from zx_events.matchlist import SORTS, MatchFilters, page, unknown_filter

router = APIRouter(prefix="/api")
DEFAULT_MIN_GAMES = 30  # zx stats --min-games
BIG = 2 ** 53  # the largest a number parameter may be: past it JSON (and the answer echoing it) cannot hold it exactly

MAX_LIMIT = 500
STEPS_BYTES = 4 * 1024 * 1024  # of steps in one /steps answer (``next`` says where the rest starts)


async def backend(request: Request) -> Backend:
    # async: FastAPI runs a plain function dependency in a worker thread, a hop each request
    return request.app.state.backend


# ---------------------------------------------------------------------- shared parameters
async def match_filters(
    game: str | None = Query(None, description="Only this game (see /api/games)."),
    player: str | None = Query(None, description="Only matches with this player on either side (exact name)."),
    deck: str | None = Query(None, description="Only matches with this deck on either side (exact name); with "
                                               "player, on that player's side."),
    event: str | None = Query(None, description="Only this event (exact name)."),
    since: str | None = Query(None, description="Played on or after this date (YYYY-MM-DD)."),
    until: str | None = Query(None, description="Played on or before this date (YYYY-MM-DD)."),
    winner: str | None = Query(None, description="P1, P2, draw, none (no result), or the winning player's name."),
    q: str | None = Query(None, description="Words found in the id, event, player or deck names."),
    opponent: str | None = Query(None, description="Only matches against this player (exact name); with player, "
                                                   "that player's matches against them."),
    opp_deck: str | None = Query(None, description="Only matches where the side facing player (without player: "
                                                   "either side) played this deck (exact name)."),
    exact: str | None = Query(None, description="1: names as written (in any Unicode normal form), each spelling "
                                                "apart, as the statistics count them; default: in any case and width."),
) -> MatchFilters:
    try:
        return MatchFilters(game or None, player or None, deck or None, event or None, since or None,
                            until or None, winner or None, q or None, opponent or None, opp_deck or None,
                            exact or None)
    except ValueError as e:
        raise WebError(400, str(e)) from None


async def list_sort(sort: str | None = Query(None, description="store (default: as stored, in import order), "
                                                                 "newest (the latest played first) or oldest; "
                                                                 "ties in store order, undated matches last.")
                    ) -> str:
    if not sort:
        return "store"
    if sort.strip().lower() not in SORTS:
        raise WebError(400, f"sort: {sort!r} is not one of {', '.join(SORTS)}")
    return sort.strip().lower()


class StatsQuery:
    """The filters of ``zx stats`` (zx_analytics.stats.Filters), and --min-games."""

    def __init__(self, filters: Any, min_games: int, request: Any = None) -> None:
        self.filters = filters
        self.min_games = min_games
        self.request = request  # (its client watched while it waits its turn: Backend.in_turn)


async def stats_query(
    request: Request,
    since: str | None = Query(None, description="Matches played on or after this date (YYYY-MM-DD)."),
    until: str | None = Query(None, description="Matches played on or before this date (YYYY-MM-DD)."),
    event: str | None = Query(None, description="Only this event (exact name)."),
    deck: str | None = Query(None, description="Only the side playing this deck (exact name)."),
    player: str | None = Query(None, description="Only the side of this player (exact name)."),
    opp_deck: str | None = Query(None, description="Only sides whose opponent plays this deck."),
    opponent: str | None = Query(None, description="Only sides facing this player (exact name); with player, head "
                                                   "to head."),
    seat: str | None = Query(None, description="Only the side that went first (or second)."),
    colours: str | None = Query(None, description="Only the side with this colour identity (red, white/green, ...)."),
    archetype: str | None = Query(None, description="Only the side playing this archetype."),
    opp_archetype: str | None = Query(None, description="Only sides whose opponent plays this archetype."),
    game: str | None = Query(None, description="Only matches of this game (see /api/games)."),
    min_games: int = Query(DEFAULT_MIN_GAMES, ge=1, le=BIG, description="Rows resting on fewer games are flagged low_sample."),
) -> StatsQuery:
    from zx_analytics.stats import Filters

    given = dict(since=since, until=until, event=event, deck=deck, player=player, opp_deck=opp_deck, opponent=opponent,
                 seat=seat,
                 colours=colours, archetype=archetype, opp_archetype=opp_archetype,
                 game=game.strip().lower() if game else game)  # (any case, as zx stats --game takes it)
    try:
        return StatsQuery(Filters(**{k: v or None for k, v in given.items()}), min_games, request)
    except ValueError as e:
        raise WebError(400, str(e)) from None


def frame(df: Any, q: StatsQuery, **extra: Any) -> dict[str, Any]:
    return {"filters": {k: v for k, v in q.filters.params().items() if v is not None}, "min_games": q.min_games,
            **extra, "columns": df.columns, "rows": df.to_dicts()}


# ---------------------------------------------------------------------- status and games
@router.get("/status", summary="The server: store, analytics and whether they agree")
def status(request: Request, b: Backend = Depends(backend)) -> Response:
    # a plain function, in a worker thread: it reads the store (a round trip to a PostgreSQL server)
    out: dict[str, Any] = {"store": b.svc.store.label, "judge": b.judge, "deck_lists": b.deck_lists,
                           "seats": b.seats(), "warming": b.warming}
    try:
        # its server still lost (app.store_reachable), or a read of the store failed under a request in the last
        # STORE_FAILED_SECONDS (a damaged file: every page a 500, and the status said store_ok, QA round 38)
        failed_before = getattr(request.state, "store_failed", None) or b.failed_recently()
        if failed_before is not None:
            raise failed_before
        try:
            fresh = b.freshness()
            more = {"analytics_ok": fresh.ok, "analytics_position": fresh.position,
                    "analytics_message": fresh.message}
        except StoreFailed:
            raise
        except WebError as e:
            more = {"analytics_ok": False, "analytics_position": None, "analytics_message": e.message}
        # the store's last notification read after the analytics' position, and now (not the second-old one the
        # pages use): --follow may have projected past that one, and the status said the analytics were ahead
        last = b.store_last_id(fresh=True)
    except Exception as e:
        if not (isinstance(e, StoreFailed) or store_failure(e)):
            raise
        # the store failing under it (its PostgreSQL server out of reach): its 503 (or 500), with the status all
        # the same, what is known without the store (the answer was the error alone)
        failed = b.store_error(e)
        out.update(store_ok=False, store_message=failed.message, store_last_notification=None,
                   analytics=str(b.analytics_path), analytics_ok=False, analytics_position=None,
                   analytics_message="not compared with the store: it cannot be read now")
        raise StoreFailed(failed.status, failed.message, extra=out, logged=failed.logged) from None
    out.update(store_ok=True, store_message=None, store_last_notification=last, analytics=str(b.analytics_path),
               **more)
    return JSON(out)


@router.get("/games", summary="The games this server knows, with their stored match counts")
def games(b: Backend = Depends(backend)) -> Response:
    from zx_events import games as registry

    counts: dict[str, int] = {}
    for row in b.summaries():
        counts[row.get("game") or registry.DEFAULT] = counts.get(row.get("game") or registry.DEFAULT, 0) + 1
    return JSON([{"game": g.key, "title": g.name, "matches": counts.get(g.key, 0), "seats": list(g.seats),
                  "perspectives": b.seats(), "rules": g.rules_version, "header": g.header_key}
                 for g in registry.all_games()])


# ---------------------------------------------------------------------- matches
@router.get("/matches", summary="Stored matches, filtered and paged")
def matches(filters: MatchFilters = Depends(match_filters),
            offset: int = Query(0, ge=0, le=BIG, description="Rows to skip."),
            limit: int = Query(50, ge=1, le=MAX_LIMIT, description=f"Rows to return (at most {MAX_LIMIT})."),
            sort: str = Depends(list_sort), b: Backend = Depends(backend)) -> Response:
    """With ``player``, each match is seen from that player's side: ``seat``, ``opponent``, ``deck``, ``opp_deck``
    and ``result`` (won, lost, draw, none) besides the summary's fields."""
    rows = b.listed()
    result = page(rows, filters, offset, limit, sort)
    unknown = unknown_name(b, rows, filters) if not result["total"] else None
    if unknown is not None:  # a name no listed match has: 400, as /api/stats answers it, and the names to use
        key, e = unknown
        return JSON({"error": str(e), "status": 400, "filter": key, "suggestions": e.suggestions}, status_code=400)
    return JSON(result)


def unknown_name(b: Backend, rows: list[dict[str, Any]], filters: MatchFilters) -> tuple[str, Any] | None:
    """The filter (its key) of the match list that names nothing of ``rows`` (``Backend.listed``), and its
    ``UnknownName`` with the closest names; None when every name is known. Outside the judge's view the names
    are the list's (masked: a suggestion never names a card a mask hides) and the one asked for is masked as the
    list shows names, so a guess of a hidden card's name is answered as any other (``public_unknown_name``)."""
    found = unknown_filter(rows, filters)
    if found is None:
        return None
    from zx_analytics.stats import UnknownName

    key, (kind, value, known, where, none) = found
    return key, UnknownName(kind, value if b.judge else b.masked_name(value), known, where, none)


@router.get("/matches/{match_id}", summary="One match: header, result, violations, digest chain")
def match_detail_endpoint(match_id: str, b: Backend = Depends(backend)) -> Response:
    return JSON(match_detail(match_id, b))


def match_detail(match_id: str, b: Backend) -> dict[str, Any]:
    """The match page's data: header (deck lists only for the judge), result, violations, and whether it
    verifies as ``zx verify MATCH`` says (its chain, the store seal, its replay snapshots)."""
    from zx_events import games as registry
    from zx_events.audit import seq_of_lines
    from zx_events.ids import match_uuid
    from zx_events.integrity import stored_rows
    from zx_events.replay import card_names
    from zx_events.seats import JUDGE, SPECTATOR, engine_message

    rows = stored_rows(b.svc, match_uuid(match_id))
    started = next((r for r in rows if registry.is_topic(r.topic, "Started") and r.state), None)
    if started is None:
        from zx_events.replay import unknown

        if not rows:
            raise unknown(b.svc, match_id)  # 404 (its kind), as the application answers a ZXError
        # stored, but its first event unreadable (zx matches lists it, damaged): it said "unknown match: it
        # is not in the store"; as zx audit MATCH says it, with what zx verify finds
        verdict = b.verdict(match_id, rows)
        raise WebError(409, f"match {match_id!r} is in the store, but its Started event is missing or cannot be "
                            f"decoded: nothing of it can be shown here ({verdict.status}: {verdict.message}); "
                            f"zx verify {match_id} names the damage")
    game = registry.for_topic(started.topic)
    topic = game.topic
    st = started.state
    viewer = JUDGE if b.judge else SPECTATOR
    catalog = st.get("catalog") or {}
    mask = card_names(game.key, catalog.get("name"), catalog.get("sha256"), b.catalogs).mask
    header = game.redact_event("Started", {"header": st.get("header", {})}, viewer, mask)["header"]
    if not b.judge and isinstance(header.get("note"), str):  # free text may name a hidden card
        header = {**header, "note": mask(header["note"])}
    result: dict[str, Any] = {"winner": None, "reason": None, "turns": 0}
    violations = []
    seqs = seq_of_lines(rows)  # a violation's seq: the event that holds its record, as zx audit gives it (docs/audit.md)
    for r in rows:
        s = r.state or {}
        if r.topic == topic("TurnStarted"):
            result["turns"] = max(result["turns"], int(s.get("turn") or 0))
        elif r.topic == topic("MatchEnded"):
            result["winner"], result["reason"] = s.get("winner"), s.get("reason")
            if s.get("how"):  # (Z/X, digest.13: how a loser's last Life card went where it was no damage)
                result["how"] = s["how"]
        elif r.topic == topic("ViolationRecorded"):
            message = s.get("message", "")
            violations.append({"seq": seqs.get(s.get("line"), r.seq), "line": s.get("line"), "turn": s.get("turn"),
                               "player": s.get("player"),
                               "rule": s.get("rule"), "message": message if b.judge else engine_message(mask, message),
                               "applied": s.get("rec") is None})  # (a record not applied rides on its violation)
    players = header.get("players", {})
    if result["winner"] in players:
        result["winner_name"] = players[result["winner"]].get("name")
    verdict = b.verdict(match_id, rows)  # its chain, the store seal, its replay snapshots (a view reads them)
    how = result.get("how")  # (a game whose results carry one says it: "no Life left (a Reload put their ...)")
    reason = result["reason"]
    result["reason_text"] = None if not reason else \
        game.reason_text(reason, how=how, winner=result.get("winner")) if how else game.reason_text(reason)
    return {"match": match_id, "game": game.key, "header": header, "result": result, "events": len(rows),
            "violations": violations,
            "chain": {"head": verdict.head, "verifies": verdict.ok, "status": verdict.status, "seq": verdict.seq,
                      "message": verdict.message},
            # what it was checked against at import: the catalog, the game's other reference data (X610Z: the board)
            "catalog": catalog, **{kind: st.get(kind) for kind in game.fixture_options()},
            "rules_version": st.get("rules_version"), "perspectives": b.seats()}


@router.get("/matches/{match_id}/view",
            summary="The state after an event, as a seat sees it (the same JSON as zx replay --event N --as SEAT)")
async def match_view(match_id: str, request: Request,
               at: int | None = Query(None, ge=1, le=BIG, description="The event (seq, 1 = Started); default: the last."),
               turn: int | None = Query(None, ge=1, le=BIG, description="Or: the start of this turn."),
               as_: str | None = Query(None, alias="as", description="spectator (default), P1, P2, or judge "
                                                                     "(only with zx serve --judge)."),
               b: Backend = Depends(backend)) -> Response:
    # async: a view kept is answered from the event loop (a dictionary look-up); any other is computed in a
    # worker thread (Backend.view), never in the loop, where one slow view held every other request
    if at is not None and turn is not None:
        raise WebError(400, "give at or turn, not both")
    perspective = b.allowed(as_)
    body = await b.view(match_id, perspective, at=at, turn=turn, request=request)
    return Response(body, media_type="application/json")


@router.get("/matches/{match_id}/steps",
            summary="Every step (log record) of a match with its events and the state after, as a seat sees it")
async def match_steps(match_id: str, request: Request,
                      start: int = Query(0, ge=0, le=BIG, description="The first step (0 = the header)."),
                      limit: int = Query(50, ge=1, le=MAX_LIMIT, description="Steps to return."),
                      as_: str | None = Query(None, alias="as", description="spectator (default), P1, P2, or judge."),
                      b: Backend = Depends(backend)) -> Response:
    # in a worker thread, with the views (Backend.view_limiter): steps taking seconds to compute never take
    # every thread the other endpoints (/api/status) are computed in
    perspective = b.allowed(as_)
    return await b.in_turn(b.view_limiter, lambda: steps_answer(b, match_id, perspective, start, limit), "views",
                           request)


def steps_answer(b: Backend, match_id: str, perspective: str, start: int, limit: int) -> Response:
    hist = b.history(match_id)
    total = len(hist.bounds)
    if start >= total:
        raise WebError(400, f"match {match_id} has {total} steps: start must be 0..{total - 1}")
    # at most STEPS_BYTES of steps an answer (at least one): a match stored with 2,000 violations
    # carries them all in every later state, and 500 such steps were a 72 MB answer built in 5-7 s
    import orjson

    parts: list[bytes] = []
    size = 0
    for step in hist.steps(perspective, start, start + limit):
        if parts and size >= STEPS_BYTES:
            break
        parts.append(json_escaped_bytes(orjson.dumps(step.to_json(), option=orjson.OPT_NON_STR_KEYS)))  # (app_json)
        size += len(parts[-1])
    after = start + len(parts)
    head = orjson.dumps({"match": match_id, "perspective": perspective, "total": total, "start": start,
                         "next": after if after < total else None})
    return Response(head[:-1] + b',"steps":[' + b",".join(parts) + b"]}", media_type="application/json")


@router.get("/audit/{match_id}", summary="Re-check a stored match with the current rules engine (zx audit)")
def audit(match_id: str, b: Backend = Depends(backend)) -> Response:
    from zx_events.audit import audit_stored
    from zx_events.replay import card_names
    from zx_events.seats import engine_message

    if not b.svc.has_match(match_id):
        from zx_events.replay import unknown

        raise unknown(b.svc, match_id)  # 404 (its kind), as the application answers a ZXError
    try:
        a = audit_stored(b.svc, match_id)
    except ZXError as e:
        if store_failure(e):  # (a StoreFailure: the store failing, its 500 or 503, not a bad request)
            raise
        raise WebError(400, e.message) from None
    out = a.to_json()
    if not b.judge:  # free text may name hidden cards (301.3); the import path is the server's business
        out.pop("source", None)
        # the names of the catalog the re-check used (its messages name cards by them), not the pinned one's: a match
        # checked against a catalog file is audited with the shipped catalog its header names (the file's names,
        # unknown here, masked nothing: QA round 28); one that cannot be loaded withholds them (seats.engine_message)
        cat = a.catalog or (a.pinned or {}).get("catalog") or {}
        mask = card_names(a.game, cat.get("name"), cat.get("sha256"), b.catalogs).mask
        for v in out["violations"]:
            v["message"] = engine_message(mask, v["message"])
    return JSON(out)


# ---------------------------------------------------------------------- statistics (zx stats)
def stats_json(b: Backend, q: StatsQuery, method: str, **options: Any) -> bytes:
    """The answer of ``/api/stats/<method>``: the frame of ``Stats.<method>(**options, **filters)`` as JSON,
    cached (encoded) by the analytics position."""
    options = {k: v for k, v in options.items() if v is not None}
    kwargs = {**q.filters.params(), **options}
    return b.cached(_stats_key(q, method, options),
                    lambda: json_escaped_bytes(orjson.dumps(frame(b.stats(method, kwargs, q.min_games), q, **options))))


def _stats_key(q: StatsQuery, method: str, options: dict[str, Any]) -> tuple[Any, ...]:
    return ("json", method, tuple(sorted({**q.filters.params(), **options}.items())), q.min_games)


async def _stats(b: Backend, q: StatsQuery, method: str, **options: Any) -> Response:
    """A cached answer is served from the event loop; the others are computed in a worker thread
    (DuckDB lets go of the GIL while it works, and a query may take tens of milliseconds), at most
    ``Backend.stats_limiter`` at once, the others waiting their turn in order (zx_web.app)."""
    body = await b.off_loop(b.peek_cached, _stats_key(q, method, {k: v for k, v in options.items() if v is not None}),
                            reads=b.store_due())
    if body is None:
        body = await b.in_turn(b.stats_limiter, lambda: stats_json(b, q, method, **options), "statistics", q.request)
    return Response(body, media_type="application/json")


def warm_stats(b: Backend) -> int:
    """Compute the unfiltered answer of every statistics endpoint and "by" (what the dashboard and most
    clients ask first), so that the first visitor finds them cached; returns how many."""
    from zx_analytics.stats import Filters

    q = StatsQuery(Filters(), DEFAULT_MIN_GAMES)
    done = 0
    for method, options in DEFAULT_STATS:
        if b.closed:
            break
        stats_json(b, q, method, **options)
        done += 1
    return done


@router.get("/stats/winrates", summary="Win rates with Wilson 95% intervals (zx stats winrates)")
async def winrates(by: Literal["deck", "archetype", "colour", "player", "first"] = Query("deck", description="What each row is."),
             q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "winrates", by=by)


@router.get("/stats/matchups", summary="Deck (archetype, colours) against deck (zx stats matchups)")
async def matchups(by: Literal["deck", "archetype", "colour"] = Query("deck", description="What each row is."),
             q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "matchups", by=by)


@router.get("/stats/attacks", summary="Attack outcomes and success rates (zx stats attacks)")
async def attacks(by: Literal["card", "square", "target"] = Query("card", description="What each row is."),
            q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "attacks", by=by)


@router.get("/stats/life", summary="Life damage by seat or by turn (zx stats life)")
async def life(by: Literal["seat", "turn"] = Query("seat", description="What each row is."),
         q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "life", by=by)


@router.get("/stats/cards", summary="Per-card win rates as 17lands defines them: GIH, OH, GD, GNS, played, IWD "
                                    "(zx stats cards); unless the server has --deck-lists or --judge, only the "
                                    "cards played, with their played figures (a hand is hidden: Z/X 301.3, X610Z 502.3)")
async def cards(card: str | None = Query(None, description="Only this card (code or name)."),
          q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "cards", card=card or None)


@router.get("/stats/mulligans", summary="Opening hands by seat and hand size (zx stats mulligans)")
async def mulligans(q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "mulligans")


@router.get("/stats/archetypes", summary="Archetypes: share, win rate, deck names (zx stats archetypes)")
async def archetypes(q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "archetypes")


@router.get("/stats/meta", summary="The metagame by week, month or event (zx stats meta)")
async def meta(by: Literal["week", "month", "event"] = Query("week", description="What each period is."),
         group: Literal["deck", "archetype", "colour"] = Query("deck", description="What each row's share is of."),
         q: StatsQuery = Depends(stats_query), b: Backend = Depends(backend)) -> Response:
    return await _stats(b, q, "meta", by=by, group=group)


DEFAULT_STATS: list[tuple[str, dict[str, Any]]] = [
    *(("winrates", {"by": by}) for by in ("deck", "archetype", "colour", "player", "first")),
    *(("matchups", {"by": by}) for by in ("deck", "archetype", "colour")),
    *(("attacks", {"by": by}) for by in ("card", "square", "target")),
    *(("life", {"by": by}) for by in ("seat", "turn")),
    ("cards", {}), ("mulligans", {}), ("archetypes", {}),
    *(("meta", {"by": by, "group": "deck"}) for by in ("week", "month", "event")),
]
