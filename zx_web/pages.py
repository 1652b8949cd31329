"""The HTML pages: the match list with search, a match, its replay, and the metagame dashboard.

Pages are rendered on the server from the same functions as the API (Jinja2 templates with
autoescape); they need no script to show their content, and nothing outside this server.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from zx_events.freetext import visible

from . import api, dashboard
from .backend import Backend, WebError
from .icon import icon, icon_href
from zx_events.matchlist import (OFFERED_MAX, MatchFilters, kept, paged, reason_words,  # noqa: F401 (OFFERED_MAX:
                                 record_parts, spellings_of)  # its home was here)

router = APIRouter(include_in_schema=False)
HERE = Path(__file__).parent
PAGE_SIZE = 50


@cache
def env() -> jinja2.Environment:
    e = jinja2.Environment(loader=jinja2.PackageLoader("zx_web", "templates"),
                           autoescape=jinja2.select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
    e.filters["pct"] = dashboard.pct
    # a name's invisible format characters as escapes ("Black\u200bReapers"): two names that differ by them alone
    # read alike in a list, a table or a form's options (an option's value keeps the name exact)
    e.filters["visible"] = lambda value: visible(value) if isinstance(value, str) else value
    e.globals["icon_href"] = icon_href()
    e.globals["reason_words"] = reason_words  # (a listed match's reason in its game's words, short and whole)
    return e


def offered(names: list[str]) -> list[str]:
    """The ``names`` a filter form offers: those whose percent-encoded form (in the URL it asks for) is at most
    ``OFFERED_MAX`` bytes. A longer one is still listed in the tables; a form that offered it asked for a URL
    the server (and a browser) refuses."""
    from urllib.parse import quote_plus

    return [n for n in names if len(n) * 12 <= OFFERED_MAX or (len(n) <= OFFERED_MAX
                                                                and len(quote_plus(n)) <= OFFERED_MAX)]


def offered_choices(opts: dict[str, Any]) -> dict[str, Any]:
    """The dashboard form's choices (``dashboard.choices``) with its event and deck names as ``offered``."""
    return {k: offered(v) if k in ("event", "deck") else v for k, v in opts.items()}


def render(name: str, **context: Any) -> str:
    context.setdefault("inline_css", None)
    return env().get_template(name).render(**context)


def css() -> str:
    return (HERE / "static" / "style.css").read_text(encoding="utf-8")


# an error page's heading, what went wrong in words (WCAG 2.4.6: its heading and title were "404", "400")
ERROR_HEADINGS = {400: "Bad request", 403: "Not allowed", 404: "Not found", 405: "Method not allowed",
                  409: "Conflict", 413: "Too large", 500: "Server error", 503: "Unavailable"}
TITLE_MESSAGE = 80  # characters of the message an error page's title holds (the page has it whole)


def error_heading(status: int) -> str:
    from http import HTTPStatus

    try:
        return ERROR_HEADINGS.get(status) or HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def error_page(request: Request, status: int, message: str) -> str:
    """The page of an error: its heading says what went wrong ("Not found"), its title that and the message's
    beginning ("Not found: unknown match 'x': it is not in the store …"), the message whole under the heading."""
    said = visible(" ".join(message.split()))
    said = said if len(said) <= TITLE_MESSAGE else said[:TITLE_MESSAGE - 1] + "…"
    return render("error.html", status=status, heading=error_heading(status), said=said, message=message, nav="")


# the dashboard's filters a refusal's reason names ("since: 'x' is not a date", "since A is after until B",
# "min_games: Input should be ...", "no deck named 'X' ..."): the form marks them (aria-invalid)
_FAULT = re.compile(r"(?:no |)(since|until|min_games|event|deck|player|opponent|game)\b")


def faulty_fields(problem: str) -> set[str]:
    """The form's fields a refusal's reason (``problem``) is about: the filter it starts with, both dates for
    From after To; none for another reason (an unknown parameter, a seat)."""
    m = _FAULT.match(problem)
    if m is None:
        return set()
    return {"since", "until"} if re.match(r"since \S+ is after until ", problem) else {m.group(1)}


# The server's pages hold no script: a policy that runs none, loads nothing from elsewhere, and
# lets no other site frame them (the replay page, which carries its own policy naming its two
# scripts, gets only the framing rule: zx_web.viewer)
PAGE_POLICY = ("default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; "
               "base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def html_response(text: str, policy: str = PAGE_POLICY, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers={**HEADERS, "Content-Security-Policy": policy})


ICON_HEADERS = {"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff",
                "Content-Security-Policy": "default-src 'none'"}


def favicon() -> Response:
    """``/favicon.ico``: the pages' icon, an SVG (read-only, nothing of the store; a browser keeps it a day)."""
    return Response(icon(), media_type="image/svg+xml", headers=ICON_HEADERS)


@router.get("/", response_class=HTMLResponse)
def home() -> RedirectResponse:
    return RedirectResponse("/matches", status_code=307)


SORT_LABELS = (("store", "as stored"), ("newest", "newest first"), ("oldest", "oldest first"))  # (matchlist.SORTS)


@router.get("/matches", response_class=HTMLResponse)
def match_list(request: Request, filters: MatchFilters = Depends(api.match_filters),
               offset: int = Query(0, ge=0, le=api.BIG), sort: str = Depends(api.list_sort),
               b: Backend = Depends(api.backend)) -> HTMLResponse:
    everything = b.listed()  # (read once: the page, its unknown names and its choices of one list)
    chosen = kept(everything, filters, sort)
    result = paged(chosen, filters, offset, PAGE_SIZE, sort)
    # a name the list folds over several spellings (as the list shows them), which the statistics count apart
    # (of the rows listed, as zx matches says it of its own; none where names are taken as written, exact=1)
    folds = [(kind, found) for kind, name in (("player", filters.player), ("opponent", filters.opponent))
             if name and not filters.exact and len(found := spellings_of(chosen, name, ("p1", "p2"))) > 1]
    tallies = result.get("records") or []  # the player's record, in words (the API gives it as figures)
    record = [record_parts(filters, t, chosen, len(tallies) > 1, percent=True) for t in tallies]
    params = {**filters.params(), **({"sort": sort} if sort != "store" else {})}  # (the links keep the order)
    # a name no listed match has: said above the empty list, with links to the closest names (400, as the API)
    unknown = api.unknown_name(b, everything, filters) if not result["total"] else None
    suggested = [(name, "/matches?" + urlencode({**params, unknown[0]: name})) for name in unknown[1].suggestions] \
        if unknown else []

    def link(off: int) -> str:
        return "/matches?" + urlencode({**params, "offset": off})

    any_spelling = "/matches?" + urlencode({k: v for k, v in params.items() if k != "exact"})  # (exact dropped)
    last = (result["total"] - 1) // PAGE_SIZE * PAGE_SIZE if result["total"] else None
    last_link = link(last) if last is not None else None  # (an offset past the end said "No match fits these
    # filters" under "28000 matches, 1000000-999999 shown", QA round 37)
    prev_link, next_link = pager(offset, result["total"], link)
    from zx_events import games as registry
    from zx_events.games.rowkit import nfc

    # a name in any Unicode normal form is one choice (as the filter matches it, and the analytics hold it)
    decks = sorted({nfc(d) for r in everything for d in (r.get("p1_deck"), r.get("p2_deck")) if d})
    events = sorted({nfc(r["event"]) for r in everything if r.get("event")})
    held = registry.choices(r.get("game") or registry.DEFAULT for r in everything)
    return html_response(render("matches.html", nav="matches", result=result, f=filters, decks=offered(decks),
                                events=offered(events), games=held, prev_link=prev_link, next_link=next_link,
                                empty_advice=b.advised("The store has no matches yet: import logs with `zx import "
                                                       "LOGS` (then `zx analytics update` for the dashboard)."),
                                stored=len(everything), store=b.svc.store.label, sort=sort, sorts=SORT_LABELS,
                                seats=b.seats(),
                                unknown=str(unknown[1]) if unknown else None, suggested=suggested, folds=folds,
                                record=record, any_spelling=any_spelling, last_link=last_link),
                         status=400 if unknown else 200)


def pager(offset: int, total: int, link: Any) -> tuple[str | None, str | None]:
    """The list's "previous" and "next" links from ``offset`` among ``total`` rows: pages start at a multiple of
    ``PAGE_SIZE``, each link going to the page that holds the row just before the first shown (previous) or just
    after the last (next), so that no row is skipped and a page off the grid (``offset=53``: rows 54-103) is back on
    it in one step; past the end, "previous" is the last page, as the count line's link. It was ``offset - 50``:
    past the end, a page past the end again (20 empty pages to walk back from ``offset=1000`` of 53), and ``offset=3``
    from ``offset=53`` (QA round 38)."""
    if offset >= total:
        return (link((total - 1) // PAGE_SIZE * PAGE_SIZE) if total else None), None
    prev = link((offset - 1) // PAGE_SIZE * PAGE_SIZE) if offset > 0 else None
    after = offset + PAGE_SIZE  # (the first row not shown)
    return prev, (link(after // PAGE_SIZE * PAGE_SIZE) if after < total else None)


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def match_page(match_id: str, b: Backend = Depends(api.backend)) -> HTMLResponse:
    from zx_events import games as registry

    detail = api.match_detail(match_id, b)
    return html_response(render("match.html", nav="matches", m=detail, seats=b.seats(),
                                game=registry.get(detail["game"]), links=match_links(b, match_id, detail["game"])))


def match_links(b: Backend, match_id: str, game: str) -> dict[str, str]:
    """The match page's links to the match list: each player's name to that player's matches (``player-P1``), each
    deck's name to that deck's matches (``deck-P1``: either side, as the list's deck filter), of the match's game.
    A name masked for this server's seat (a card's code or name in it: ``Backend.masked_name``, the --catalog
    files) is never put in a URL: it gets no link (a name whose mask drops only bidirectional controls is linked
    in the form the list shows)."""
    from zx_events.freetext import BIDI_CONTROLS

    row = next((r for r in b.summaries() if r.get("match") == match_id), None)
    if row is None:
        return {}
    out: dict[str, str] = {}
    for seat in ("P1", "P2"):
        for kind, key in (("player", seat.lower()), ("deck", f"{seat.lower()}_deck")):
            raw = row.get(key)
            if not isinstance(raw, str) or not raw:
                continue
            shown = raw if b.judge else b.masked_name(raw)
            if shown != BIDI_CONTROLS.sub("", raw) and not b.judge:
                continue  # hides a card's text: no link
            href = "/matches?" + urlencode({"game": game, kind: shown})
            if len(href) <= OFFERED_MAX:  # (a name of nearly 1,000,000 characters: a URL no browser sends)
                out[f"{kind}-{seat}"] = href
    return out


@router.get("/matches/{match_id}/replay", response_class=HTMLResponse)
def replay_page(match_id: str, as_: str | None = Query(None, alias="as"),
                b: Backend = Depends(api.backend)) -> HTMLResponse:
    perspective, verdict, viewer = _replay_of(match_id, as_, b)
    # one seat per page: a page asked for as a spectator holds nothing a spectator may not see (301.3); built with
    # this verdict (its banner), not verified a second time
    return html_response(b.replays.get((match_id, perspective, verdict.status, verdict.seq, verdict.message),
                                       lambda: viewer.viewer_html(b.svc, match_id, seats=[perspective],
                                                           nav=replay_nav(match_id, perspective, b.seats()),
                                                           verdict=verdict, catalogs=b.catalogs)),
                         policy="frame-ancestors 'none'")


@router.get("/matches/{match_id}/replay/download")
def replay_download(match_id: str, as_: str | None = Query(None, alias="as"),
                    b: Backend = Depends(api.backend)) -> Response:
    """The replay page's "Download": the one self-contained HTML file ``zx view MATCH --as SEAT`` writes, for the
    seat the page shows, as an attachment named as ``zx view`` names it (``MATCH-SEAT.html``, safe characters
    only). Only a seat this server offers (``Backend.allowed``: the judge's with ``--judge`` alone, 403 else; 404 for
    an unknown match, as the replay page). Built as the replay page is (the same views, one seat, the match's
    verdict of now), without the server's links, and kept among the replay pages (``Backend.replays``: at most
    ``ANSWER_BYTES`` an answer, ``CACHE_BYTES`` in all), so that a second download of a long match is not built
    again. Nothing is written on the server: the file is the answer's body."""
    perspective, verdict, viewer = _replay_of(match_id, as_, b)
    body = b.replays.get(("download", match_id, perspective, verdict.status, verdict.seq, verdict.message),
                         lambda: viewer.page(viewer.viewer_data(b.svc, match_id, [perspective], verdict=verdict,
                                                                catalogs=b.catalogs)).encode("utf-8"))
    name = viewer.file_name(match_id, [perspective])
    return Response(body, media_type="text/html; charset=utf-8",
                    headers={**HEADERS, "Content-Security-Policy": "frame-ancestors 'none'",
                             "Content-Disposition": f'attachment; filename="{name}"'})


def _replay_of(match_id: str, as_: str | None, b: Backend) -> tuple[str, Any, Any]:
    """A served replay's seat (``Backend.allowed``: 400, 403), a 404 for an unknown match before the viewer reads
    it, what zx verify says of it now (its chain and the store seal, read again; its snapshots' check cached by its
    head, as the match page says it: a page kept from before the store was altered kept its old banner), and the
    viewer module (zx_web/viewer.py)."""
    perspective = b.allowed(as_)
    b.history(match_id)
    try:
        from . import viewer
    except ImportError:
        raise WebError(503, "the replay viewer (zx_web/viewer.py) is not installed in this version") from None
    return perspective, b.verdict(match_id), viewer


def seen_by(perspective: str) -> str:
    """A seat as a sentence names it: "the spectator", "the judge", "P1" ("as spectator sees it", QA round 38)."""
    return perspective if perspective in ("P1", "P2") else f"the {perspective}"


def replay_nav(match_id: str, perspective: str, seats: list[str]) -> str:
    """The served replay page's links: back to the match and the list, and the same match from each
    other seat this server offers (the judge's only with --judge). Links only, no script: the page's
    policy runs its two scripts and nothing else (viewer.js gives each seat link the moment shown, #e=N)."""
    from html import escape
    from urllib.parse import quote

    from .viewer import file_name

    here = "/matches/" + quote(match_id, safe="")
    other = " ".join(f'<a class="seat-link" id="as-{escape(s)}" href="{here}/replay?as={quote(s)}">{escape(s)}</a>'
                     if s != perspective else f'<b class="seat-link here" aria-current="page">{escape(s)}</b>'
                     for s in seats)
    # the file zx view writes for this seat (replay_download): the page as it stands alone, without these links
    # a link, as a download is (a role="button" took Space, which a link does not: the page scrolled, QA round 36),
    # named with its seat for a screen reader
    download = (f'<a class="download" id="download" '
                f'href="{here}/replay/download?as={quote(perspective)}" '
                f'download="{escape(file_name(match_id, [perspective]))}" '
                f'aria-label="Download this replay as {escape(seen_by(perspective))} sees it (one HTML file)" '
                f'title="this replay as one HTML file, as zx view --as {escape(perspective)} writes it: it opens in any '
                f'browser, offline">Download</a>')
    return (f'<nav class="served" id="served-nav" aria-label="zx serve"><a id="back-match" href="{here}">&larr; '
            f'{escape(match_id)}</a> · <a id="back-list" href="/matches">Matches</a> · seen from: {other} · '
            f'{download}</nav>\n')


@router.get("/dashboard", response_class=HTMLResponse)
async def dashboard_page(request: Request, q: api.StatsQuery = Depends(api.stats_query),
                         b: Backend = Depends(api.backend)) -> HTMLResponse:
    """A dashboard drawn before is answered from the event loop; any other is drawn in a worker thread, at most
    ``Backend.dashboard_limiter`` at once, the others waiting their turn in order (zx_web.app): never in the threads
    of the other endpoints, which it held while vl-convert drew (holding the GIL), with /api/status behind them."""
    filters = q.filters.params()
    key = dashboard_key(filters, q.min_games, live=True)
    kept = await b.off_loop(lambda: fresh(b, b.peek_cached(key)), reads=b.store_due())
    if kept is not None:
        return html_response(kept)
    stale = drawn_before(b, key)
    if stale is not None:  # under --follow: the page drawn a moment ago, at once, with its freshness line; the new
        # one drawn meanwhile for the next request (during an import each update made every visitor wait for a
        # redraw, 5-10 s at 25,000 matches, QA round 37)
        redraw_later(b, key, lambda: dashboard_answer(b, filters, q.min_games))
        return html_response(await b.off_loop(lambda: fresh(b, stale, drawn_earlier=True)) or "")
    return await b.in_turn(b.dashboard_limiter, lambda: dashboard_answer(b, filters, q.min_games), "dashboards",
                           request)  # (a client gone leaves the queue before its turn)


STALE_SECONDS = 60.0  # how old a page drawn before an update of --follow may be to be answered while it is drawn anew


def drawn_before(b: Backend, key: tuple[Any, ...]) -> str | None:
    """The live dashboard of ``key`` drawn last under --follow, if it was drawn within ``STALE_SECONDS``; None
    otherwise, and without a follower (a plain server answers 503 once behind: its file does not move)."""
    import time

    held = b.drawn_pages.get(key)
    if held is None or not b.following or time.monotonic() - held[1] > STALE_SECONDS:
        return None
    return held[0]


def redraw_later(b: Backend, key: tuple[Any, ...], draw: Any) -> None:
    """``draw()`` (the dashboard of ``key`` at the file's position now) in the background, one at a time for the whole
    server (another key asked meanwhile keeps its page drawn before until a later request finds none running), with
    a token of the dashboards' limiter but never counted among the visitors waiting their turn: queued one a key,
    31 kept dashboards re-opened after an update filled the queue and a new one was refused "busy" (QA round 37);
    its errors are the next request's (it draws again)."""
    import asyncio

    import anyio.to_thread

    busy = b.redrawing
    if busy:
        return

    async def run() -> None:
        try:
            await anyio.to_thread.run_sync(draw, limiter=b.dashboard_limiter)
        except Exception:  # noqa: BLE001 - (a store lost, a file gone: the next request says it)
            pass
        finally:
            busy.discard(key)
    busy.add(key)
    b.redraws = {t for t in b.redraws if not t.done()}  # (held until done: a task the loop holds only weakly may
    b.redraws.add(asyncio.get_running_loop().create_task(run()))  # be collected)


FRESHNESS = "<!--zx-freshness-->"  # where the live dashboard says its figures are behind the store (``fresh``)


def fresh(b: Backend, page: str | None, drawn_earlier: bool = False) -> str | None:
    """A drawn live dashboard (cached by the analytics' position) with the line, at its ``FRESHNESS`` mark, that says
    its figures are behind the store: under --follow, while matches are imported, the page said "24,064 matches"
    where the list said 24,768, and nothing on it said it lagged (QA round 37). Read now, never cached: the store
    moves without the file's position. ``drawn_earlier``: a page drawn before the file's latest update
    (``drawn_before``), said so. No position of the page's own is named: the follower may commit between the
    statistics a page reads (a line naming one disagreed with the figures under it, QA round 37)."""
    if page is None or FRESHNESS not in page:
        return page
    try:
        position, last = b.projection()[0], b.store_last_id()  # (the store's, re-read once a second)
    except Exception:  # noqa: BLE001 - (the figures were drawn: a store that does not answer now changes none)
        return page.replace(FRESHNESS, "")
    behind = max(0, last - (position or 0))
    said = []
    if drawn_earlier:
        said.append("This page was drawn before the analytics' latest update; a new one is being drawn.")
    if behind:
        said.append(f"The store holds {behind:,} event{'s' if behind != 1 else ''} the analytics do not count yet "
                    f"(matches imported in the last seconds), which the server is bringing in.")
    note = f'<p class="note" id="freshness" role="status">{" ".join(said)} Reload in a moment.</p>' if said else ""
    return page.replace(FRESHNESS, note)


def dashboard_answer(b: Backend, filters: dict[str, Any], min_games: int) -> HTMLResponse:
    """The live dashboard for ``filters``, or its page with the form and the reason when a name is unknown (400)."""
    game = dashboard.shown_game(b, filters.get("game"))
    problem = unknown_name(b, game, filters)
    if problem:  # the dashboard's own page, its form showing what was asked, and names of this game
        return refused_dashboard(b, game, filters, min_games, problem)
    return html_response(fresh(b, render_dashboard(b, filters, min_games, live=True)) or "")


def refused_dashboard(b: Backend, game: str, filters: dict[str, Any], min_games: Any, problem: str) -> HTMLResponse:
    """The dashboard's own page for filters it refuses (400): its form showing what was asked, the reason and a
    link back to the dashboard without filters, no figure."""
    from zx_events import games as registry

    d = dashboard.Dashboard({k: v for k, v in filters.items() if v and k != "game"}, min_games, {}, game=game,
                            game_name=registry.choices([game])[0]["name"])
    return html_response(render("dashboard.html", nav="dashboard", d=d, live=True, title="Metagame",
                                opts=offered_choices(dashboard.choices(b, game)),
                                error=problem, faulty=faulty_fields(problem), store=b.svc.store.label),
                         status=400)


async def dashboard_refusal(request: Request, b: Backend, problem: str) -> HTMLResponse | None:
    """The dashboard's own page (``refused_dashboard``) for a request of /dashboard whose parameters were refused
    before it was drawn (a date that is none, From after To, a minimum of games under 1, an unknown parameter),
    with what was asked as the form shows it; None when that page cannot be drawn (no analytics file): the bare
    error page then. It was the bare page, linking to the matches, where an unknown name got this one."""
    from zx_analytics.stats import Filters
    from zx_events import games as registry

    asked = dict(request.query_params)
    filters = {k: asked[k] for k in Filters.names() if asked.get(k) and k != "game"}
    wanted = (asked.get("game") or "").strip().lower()
    min_games = asked.get("min_games") or api.DEFAULT_MIN_GAMES

    def page() -> HTMLResponse:
        game = wanted if wanted in registry.keys() else dashboard.shown_game(b)
        return refused_dashboard(b, game, filters, min_games, problem)

    try:
        return await b.off_loop(page)
    except Exception:  # (the analytics file missing or failing: the bare page says what was refused)
        return None


def unknown_name(b: Backend, game: str, filters: dict[str, Any]) -> str | None:
    """Why an event, deck or player filter names nothing among ``game``'s matches (as the list shows
    their names), with the closest names of that game; None when every one is known. A name of the
    other game's matches was taken, and every section came out empty."""
    from zx_analytics.stats import UnknownName
    from zx_events import games as registry
    from zx_events.games.rowkit import nfc

    rows = [r for r in b.listed() if (r.get("game") or registry.DEFAULT) == game]
    for key, kind, columns in (("event", "event", ("event",)), ("deck", "deck", ("p1_deck", "p2_deck")),
                               ("player", "player", ("p1", "p2")), ("opponent", "opponent", ("p1", "p2"))):
        value = filters.get(key)
        if not value:
            continue
        if not b.judge:  # the list shows names masked: a name whose mask drops only its bidirectional controls
            value = b.shown_name(value)  # is its shown form (Backend.unmask)
        known = sorted({r[c] for r in rows for c in columns if isinstance(r.get(c), str)})
        if nfc(value) not in {nfc(k) for k in known}:  # in any normal form, as the analytics (the form's names) hold it
            name = registry.choices([game])[0]["name"]
            return str(UnknownName(kind, value, known, f"the {name} matches", f"the store has no {name} matches yet"))
        try:  # a masked name that stands for several names: the dashboard's page says so (it answered JSON)
            b.unmask({key: value})
        except WebError as e:
            return e.message
    return None


def render_dashboard(b: Backend, filters: dict[str, Any], min_games: int, *, live: bool,
                     title: str = "Metagame") -> str:
    """The dashboard page: live (with the filter form and links) or static (``zx report``: one file)."""
    key = dashboard_key(filters, min_games, live=live, title=title)

    def draw() -> str:
        d = dashboard.build(b, filters, min_games)
        opts = offered_choices(dashboard.choices(b, d.game)) if live else {"event": [], "deck": []}
        page = render("dashboard.html", nav="dashboard", d=d, live=live, title=title, opts=opts,
                      inline_css=None if live else css(), store=b.svc.store.label)
        if live and b.following:  # (answered while the next is drawn: drawn_before)
            b.remember_drawn(key, page)
        return page

    return b.cached(key, draw)


def dashboard_key(filters: dict[str, Any], min_games: int, *, live: bool, title: str = "Metagame") -> tuple[Any, ...]:
    """The key of a drawn dashboard among the analytics file's cached answers (``Backend.cached``)."""
    return ("page", tuple(sorted(filters.items())), min_games, live, title)


@router.get("/about", response_class=HTMLResponse)
def about(request: Request, b: Backend = Depends(api.backend)) -> HTMLResponse:
    schema = request.app.openapi()
    endpoints = [(path, op.get("summary", ""), [p["name"] for p in op.get("parameters", [])])
                 for path, ops in schema["paths"].items() for op in ops.values()]
    try:  # a stored match's id, the example of a path's {match_id} (the paths are no links: QA round 38 followed
        example = next((r["match"] for r in b.listed() if r.get("match")), None)  # /api/matches/{match_id}: 404)
    except WebError:  # (a store that does not answer: the page without an example)
        example = None
    return html_response(render("about.html", nav="about", endpoints=endpoints, judge=b.judge, example=example,
                                store=b.svc.store.label, seats=b.seats()))
