"""The advice a message gives, with the ``--store`` and ``--analytics`` the user typed: a module of its own, so
that both the command line (cli.common.with_store) and the server's worker processes (web.app.app_from_env,
which start without a command line) give it without one importing the other."""

from __future__ import annotations


def with_given(text: str, store: str | None, analytics: str | None) -> str:
    """Each ``zx analytics update``, ``zx import`` and ``zx serve --update`` that ``text`` advises, with the
    ``--store`` (its password redacted) and ``--analytics`` given (``cli.common.with_store`` for a command line;
    ``zx serve --workers N``: each worker process gives the advice of the command that started it,
    ``web.app.app_from_env``)."""
    import re
    import shlex

    if not (store or analytics) or "`zx " not in text:
        return text
    from zx_events.store import redacted

    given = f" --store {shlex.quote(redacted(store, store))}" if store else ""
    file = f" --analytics {shlex.quote(str(analytics))}" if analytics else ""
    env = f"ZX_ANALYTICS={shlex.quote(str(analytics))} " if analytics else ""  # (zx import takes no --analytics)
    return re.sub(r"`zx (analytics update|import|serve(?= --update))\b",  # (`zx serve` naming a holder: as is)
                  lambda m: f"`zx{given} analytics update{file}" if m.group(1) == "analytics update"
                  else f"`zx{given} serve{file}" if m.group(1) == "serve" else f"`{env}zx{given} import", text)
