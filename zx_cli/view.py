"""``zx view MATCH``: write one self-contained HTML file that replays a stored match in a browser."""

from __future__ import annotations

import re
from pathlib import Path

import click

from zx_events.errors import ZXError

from .common import OutputFile, PlayerName, Seat, given_catalogs, seat_of, used_catalogs, view_catalogs_option
from .options import written_option
from .output import emit_written, printable


def default_path(match_id: str, seats: list[str]) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", match_id).strip("._") or "match"
    return Path(f"{safe}-{'-'.join(seats)}.html")


@click.command("view")
@click.argument("match_id", metavar="MATCH")
@click.option("--as", "seats", type=Seat(names=True), multiple=True,
              help="Seat the file is written for (Z/X 301.3, X610Z 502.3), repeatable: the page can switch only "
                   "among these. P1/P2 see their own hand and Dynamis, spectator the public zones, judge everything; "
                   "or a player's name (any case): that player's seat (a seat word is the seat, whoever is named "
                   "so). Default: spectator.")
@click.option("-o", "--output", "--out", "output", type=OutputFile(), default=None,
              metavar="FILE.html", help="Where to write the page (default: MATCH-SEAT.html here).")
@click.option("--force", is_flag=True, help="Overwrite FILE.html if it exists.")
@view_catalogs_option()
@written_option
@click.pass_context
def view_cmd(ctx: click.Context, match_id: str, seats: tuple[str, ...], output: str | None, force: bool,
             catalog_files: tuple[str, ...], fmt: str) -> None:
    """Write a stored match as one HTML file that replays it in any browser, from the seats chosen.

    \b
    Example:
      zx view sim-2026-0001 --as P1 -o match.html

    The file is self-contained (nothing is fetched when it opens) and holds only what its seats may
    see at every event; step with the buttons, the arrow keys, the slider or a click on an event, and
    share a moment with the address (#e=57). --as also takes a player's name, in any case:
    that player's seat (--as Riku: sim-2026-0001-P2.html, Riku's seat's file). Prints the path
    written (--format json|csv: a row with its size, match and seats). A match imported with a
    catalog file names its cards only when given that file (--catalog FILE).
    """
    from zx_web.viewer import ViewerError, page, parse_seats, shared_warning, viewer_data
    from zx_events.replay import last_seq, pinned_by, state_at

    from .common import check_writable, read_files, service, write_page

    names = [s for s in seats if isinstance(s, PlayerName)]  # (read as seats once the match is loaded)
    words = [s for s in seats if not isinstance(s, PlayerName)]
    try:
        chosen = parse_seats(words or ["spectator"]) if words or not names else []
    except ViewerError as e:
        raise click.UsageError(str(e)) from None
    catalogs = given_catalogs(catalog_files)  # (a bad file: its FILE:LINE error, before the store is opened)
    svc = service(ctx)  # the store, then the match, then the file written: "there is no store", "unknown match"
    players: dict[str, str] = {}  # seat -> the name it was asked for by
    try:  # are not hidden behind "FILE exists: give --force" (nothing is written either way)
        last_seq(svc, match_id)
        if names:  # each a seat, named in the file's name and the message by it (MATCH-P2.html)
            first = state_at(svc, match_id, 1)
            for name in names:
                seat, named = seat_of(name, first, match_id)
                players.setdefault(seat, named or name)
            chosen = parse_seats([*chosen, *players])
        path = Path(output) if output else default_path(match_id, chosen)
        check_writable(path, force, read_files(ctx.obj["store"], *((f, f"the catalog {f}") for f in catalog_files)),
                       None if output else
                       f"the file zx view writes for match {match_id!r} as {', '.join(chosen)} when -o names none")
        if catalogs:  # the file the match was checked against names its cards; another is not used (a warning)
            catalogs = used_catalogs(catalog_files, catalogs, pinned_by(state_at(svc, match_id, 1)),
                                     f"match {match_id!r} was not")
        page_data = viewer_data(svc, match_id, chosen, catalogs=catalogs)
    except (ZXError, ViewerError) as e:
        raise click.ClickException(getattr(e, "message", None) or str(e)) from None
    finally:
        svc.close()
    if page_data.get("warning"):  # what the page's banner says (a failed verification first), as zx replay says it
        click.echo(printable(f"warning: {page_data['warning']}"), err=True)
    data = page(page_data).encode("utf-8")
    write_page(path, data, force)
    said = ", ".join(f"{s} ({printable(players[s])})" if s in players else s for s in chosen)
    click.echo(f"{len(data) / 1024:.0f} KiB, seats {said}: open it in a browser", err=True)
    if shared_warning(chosen):  # a file for several seats: the seat that sees least is shown more (its banner)
        click.echo(f"warning: {shared_warning(chosen)}", err=True)
    emit_written(fmt, {"file": str(path), "bytes": len(data), "match": match_id, "seats": chosen})
