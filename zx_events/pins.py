"""What a stored match pinned at import, against what zx ships now.

A stored match keeps the name and SHA-256 of the reference data it was checked against: its catalog and its game's
fixtures (X610Z: the board). A stored name is looked up among the shipped ones only, never as a file (docs/security.md,
section 5), and a shipped fixture is used for the match only when it holds the pinned content: a board file given at
import under a name zx does not ship, or under a shipped name with other content, is not at hand. Each view of the
match (``zx replay``, ``zx view``, ``zx serve``) and its audit then says so in the same words, the catalog's
(``replay.card_names``): ``the match was checked against KIND 'NAME' sha256 P, the current one is C``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zx_events.errors import ZXError


def changed(kind: str, name: Any, pinned: Any, current: Any) -> str:
    """The words of a warning about reference data zx ships now with other content than the match pinned (the
    first 12 hex digits of each SHA-256)."""
    return (f"the match was checked against {kind} {name!r} sha256 {str(pinned)[:12]}, the current one is "
            f"{str(current)[:12]}")


def not_shipped(kind: str, name: Any, pinned: Any) -> str:
    """The words of a warning about reference data the match pinned that zx ships none of (a file given at import)."""
    return f"the match was checked against {kind} {name!r} sha256 {str(pinned)[:12]}, a {kind} file zx does not ship"


def pinned_fixture(game: Any, header: Mapping | None, kind: str, pin: Any) -> tuple[Any, str | None]:
    """The ``kind`` (X610Z: board) that ``pin`` ({name, sha256}) names, when zx ships it with that content, and None;
    else None and the warning's words (``changed``, ``not_shipped``). By name, from the shipped ones only (never a
    file: the name comes from the store)."""
    if not isinstance(pin, Mapping) or not isinstance(pin.get("name"), str):
        return None, None  # nothing pinned (a game without this fixture's pin): nothing to say
    try:
        shipped = game.load_fixtures({**(header or {}), kind: pin["name"]}).get(kind)
    except ZXError:
        shipped = None
    if shipped is not None and getattr(shipped, "ref", None) == dict(pin):
        return shipped, None
    if shipped is None:
        return None, not_shipped(kind, pin["name"], pin.get("sha256"))
    return None, changed(kind, pin["name"], pin.get("sha256"), shipped.ref.get("sha256"))


def shipped_fixture(game: Any, header: Mapping | None, kind: str, pin: Any) -> Any:
    """``pinned_fixture``'s fixture alone: the shipped one holding the pinned content, else None."""
    return pinned_fixture(game, header, kind, pin)[0]


def unpinned(game: Any, header: Mapping | None, pins: Mapping[str, Any]) -> dict[str, str]:
    """Each fixture kind of ``game`` whose pin (``pins[kind]``: the Started event's, or the match state's) zx does not
    ship with that content -> the warning's words."""
    out = {}
    for kind in game.fixture_options():
        _, why = pinned_fixture(game, header, kind, pins.get(kind))
        if why is not None:
            out[kind] = why
    return out


def view_warnings(game: Any, match: Any) -> list[str]:
    """The warnings of a view of a stored match of ``game`` (its state ``match``) about the fixtures it pinned that
    are not at hand (X610Z: a board file given at import): each view draws no map of them (docs/security.md,
    section 5)."""
    pins = {kind: getattr(match, kind, None) for kind in game.fixture_options()}
    return [f"{why}: the {kind} is not drawn, only what is on it (docs/security.md, section 5)"
            for kind, why in unpinned(game, getattr(match, "header", None), pins).items()]
