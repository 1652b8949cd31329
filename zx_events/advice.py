"""The advice a message gives, with the ``--store`` and ``--analytics`` the user typed: a module of its own, so
that both the command line (zx_cli.common.with_store) and the server's worker processes (zx_web.app.app_from_env,
which start without a command line) give it without one importing the other."""

from __future__ import annotations


def with_given(text: str, store: str | None, analytics: str | None, env_analytics: str | None = None,
               visitors: bool = False) -> str:
    """Each ``zx analytics update``, ``zx import`` and ``zx serve --update`` (or ``--follow``) that ``text`` advises,
    with the ``--store`` (without its password: ``store.without_password``) and ``--analytics`` given
    (``zx_cli.common.with_store`` for a command line; ``zx serve --workers N``: each worker process gives the advice of the command that started it,
    ``zx_web.app.app_from_env``); ``env_analytics``: the file given as ``ZX_ANALYTICS`` instead, before each command
    as it was given (``ZX_ANALYTICS=x.duckdb zx import LOGS``, which takes no --analytics: for that one command, the
    update it advised, run as written, updated the store's default file). ``visitors``: advice a served page or a
    shared report gives, its store as ``store.for_visitors`` names it (of its parameters ``schema`` only)."""
    import re
    import shlex

    if not (store or analytics or env_analytics) or "`zx " not in text:
        return text
    from zx_events.store import for_visitors, without_password

    shown = for_visitors if visitors else without_password
    given = f" --store {shlex.quote(shown(store))}" if store else ""  # (to run as pasted: no "***")
    file = f" --analytics {shlex.quote(str(analytics))}" if analytics else ""
    env = f"ZX_ANALYTICS={shlex.quote(str(analytics))} " if analytics else ""  # (zx import takes no --analytics)
    before = f"ZX_ANALYTICS={shlex.quote(env_analytics)} " if env_analytics and not analytics else ""
    # (`zx serve` naming a holder: as is)
    return re.sub(r"`zx (analytics update|import|serve(?= --update| --follow))\b",
                  lambda m: f"`{before}zx{given} analytics update{file}" if m.group(1) == "analytics update"
                  else f"`{before}zx{given} serve{file}" if m.group(1) == "serve"
                  else f"`{env or before}zx{given} import", text)


def told_again(text: str, store: str | None) -> str:
    """``text``, advice worded for a visitor (``with_given(..., visitors=True)``), for the terminal again: its
    ``--store`` as typed (without the password), its connection parameters back, so that it runs as pasted (``zx
    report``'s error met while it drew the page, whose advice is a visitor's: QA round 38)."""
    import shlex

    if not store:
        return text
    from zx_events.store import for_visitors, without_password

    shown, typed = shlex.quote(for_visitors(store)), shlex.quote(without_password(store))
    return text.replace(f" --store {shown}", f" --store {typed}")
