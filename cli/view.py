"""``zx view MATCH``: write one self-contained HTML file that replays a stored match in a browser."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import click

from zx_events.errors import ZXError
from zx_events.seats import PERSPECTIVES


def default_path(match_id: str, seats: list[str]) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", match_id).strip("._") or "match"
    return Path(f"{safe}-{'-'.join(seats)}.html")


@click.command("view")
@click.argument("match_id", metavar="MATCH")
@click.option("--as", "seats", type=click.Choice(PERSPECTIVES, case_sensitive=False), multiple=True,
              help="Seat the file is written for (301.3), repeatable: the page can switch only among these. "
                   "P1/P2 see their own hand and Dynamis, spectator the public zones, judge everything. "
                   "Default: spectator.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, writable=True), default=None,
              metavar="FILE.html", help="Where to write the page (default: MATCH-SEAT.html here).")
@click.option("--force", is_flag=True, help="Overwrite FILE.html if it exists.")
@click.pass_context
def view_cmd(ctx: click.Context, match_id: str, seats: tuple[str, ...], output: str | None, force: bool) -> None:
    """Write a stored match as one HTML file that replays it in any browser, from the seats chosen.

    Example: zx view sim-2026-0001 --as P1 -o match.html

    The file is self-contained (nothing is fetched when it opens) and holds only what its seats may
    see at every event; step with the buttons, the arrow keys, the slider or a click on an event, and
    share a moment with the address (#e=57). Prints the path written.
    """
    from web.viewer import ViewerError, parse_seats, viewer_html

    from .common import service

    try:
        chosen = parse_seats(seats or ("spectator",))
    except ViewerError as e:
        raise click.UsageError(str(e)) from None
    path = Path(output) if output else default_path(match_id, chosen)
    if path.exists() and not force:
        raise click.ClickException(f"{path} exists: give --force to overwrite it, or -o another file")
    if not path.parent.is_dir():
        raise click.ClickException(f"cannot write {path}: the folder {path.parent} does not exist")
    svc = service(ctx)
    try:
        text = viewer_html(svc, match_id, chosen)
    except (ZXError, ViewerError) as e:
        raise click.ClickException(getattr(e, "message", None) or str(e)) from None
    finally:
        svc.close()
    data = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=".zx-view-", suffix=".html", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a written page is an ordinary file
        if force:
            os.replace(tmp, path)
        else:  # never overwrite a file that appeared meanwhile
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise click.ClickException(f"{path} exists: give --force to overwrite it") from None
            except OSError:  # no hard links on this file system
                if path.exists():
                    raise click.ClickException(f"{path} exists: give --force to overwrite it") from None
                os.replace(tmp, path)
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    click.echo(f"{len(data) / 1024:.0f} KiB, seats {', '.join(chosen)}: open it in a browser", err=True)
    click.echo(str(path))
