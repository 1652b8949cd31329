"""Cards (202) and the card catalog CSV (``code,name,type,color,cost,power,race,icons,keywords``)."""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from dataclasses import dataclass, field
from enum import Enum
from importlib import resources
from pathlib import Path

from zx_events.games.base import CardSet, is_file, not_found, read_catalog_bytes
from zx_events.errors import CatalogError, cut, decoded, shown

COLOURS = ("red", "blue", "white", "black", "green")
ICONS = ("IG", "LR", "VB")
HEADER = ["code", "name", "type", "color", "cost", "power", "race", "icons", "keywords"]
INF = math.inf
_WHOLE = re.compile(r"[0-9]{1,9}")  # ASCII digits only: int() would also take "1_000", "+5", "٣"; at most 9
# (a power of 10**30 from a catalog was stored in events, which hold 64-bit integers: the import crashed)


class CardType(str, Enum):
    """202.2: the eight card types, and the three marker types of 202.2a."""

    ZX = "Z/X"  # 202.3
    EVENT = "Event"  # 202.4
    PLAYER = "Player"  # 202.5
    ZX_EX = "Z/X EX"  # 202.6
    ZX_OB = "Z/X OB"  # 202.7
    SHIFT = "Shift"  # 202.8
    EV_EX = "EV EX"  # 202.9
    PL_EX = "PL EX"  # 202.10
    TOKEN = "Token"  # 202.11 (marker)
    COUNTER = "Counter"  # 202.12 (marker)
    LINK = "Link"  # 202.13 (marker)

    @property
    def is_marker(self) -> bool:
        """202.2a: Token, Counter and Link are marker types, not card types."""
        return self in _MARKER

    @property
    def is_zx(self) -> bool:
        """Z/X, and 202.6a Z/X EX and 202.7a Z/X OB, which are also treated as Z/X."""
        return self in _ZX

    @property
    def a(self) -> str:
        """The type with its article, as a message writes it: "a Z/X", "an Event", "an EV EX" (ee-vee)."""
        return f"{'an' if self in (CardType.EVENT, CardType.EV_EX) else 'a'} {self.value}"

    @property
    def is_event(self) -> bool:
        """Event, and 202.9a EV EX, which is also treated as Event."""
        return self in _EVENT

    @property
    def is_player(self) -> bool:
        """Player, and 202.10a PL EX, which is also treated as Player."""
        return self in _PLAYER

    @property
    def is_extra(self) -> bool:
        """Z/X EX and EV EX: played from Dynamis, one of them a turn, back to Dynamis face-up."""
        return self in _EXTRA

    @property
    def in_main_deck(self) -> bool:
        """Only Z/X and Event cards go in the main deck (401)."""
        return self in _MAIN_DECK

    @property
    def in_dynamis(self) -> bool:
        """Z/X EX, Shift, EV EX and Z/X OB upper halves go in the Dynamis deck (401)."""
        return self in _DYNAMIS


# the members each CardType test above asks for, looked up once (a member's lookup on the class cost
# twice the test itself, and the engine asks these for every card it checks)
_MARKER = (CardType.TOKEN, CardType.COUNTER, CardType.LINK)
_ZX = (CardType.ZX, CardType.ZX_EX, CardType.ZX_OB)
_EVENT = (CardType.EVENT, CardType.EV_EX)
_PLAYER = (CardType.PLAYER, CardType.PL_EX)
_EXTRA = (CardType.ZX_EX, CardType.EV_EX)
_MAIN_DECK = (CardType.ZX, CardType.EVENT)
_DYNAMIS = (CardType.ZX_EX, CardType.SHIFT, CardType.EV_EX, CardType.ZX_OB)

# catalog spellings: the spec's exact strings, and the type names 202.2 uses in words
_TYPE_ALIASES = {t.value.lower(): t for t in CardType} | {
    "z/x extra": CardType.ZX_EX,
    "z/x overboost": CardType.ZX_OB,
    "event extra": CardType.EV_EX,
    "player extra": CardType.PL_EX,
}
# markers a catalog may list (202.11: a Token may appear on Square); Counter and Link have no rows
_CATALOG_TYPES = {t for t in CardType if t not in (CardType.COUNTER, CardType.LINK)}


@dataclass(frozen=True, slots=True)
class Card:
    code: str
    name: str
    type: CardType
    colors: tuple[str, ...] = ()  # empty = colourless ("none")
    cost: float | int | None = None  # None = no cost; INF = "inf"
    power: int | None = None
    race: str = ""
    icons: frozenset[str] = frozenset()
    keywords: tuple[str, ...] = ()

    @property
    def is_zx(self) -> bool:
        return self.type.is_zx

    @property
    def is_event(self) -> bool:
        return self.type.is_event

    @property
    def is_player(self) -> bool:
        return self.type.is_player

    @property
    def ignition(self) -> bool:
        return "IG" in self.icons

    @property
    def life_recovery(self) -> bool:
        return "LR" in self.icons

    @property
    def void_bringer(self) -> bool:
        return "VB" in self.icons

    @property
    def colourless(self) -> bool:
        return not self.colors

    @property
    def range(self) -> float | int | None:
        """Range X (1104): the distance it may attack; ``INF`` for ``range:inf``; None without."""
        best: float | int | None = None
        for kw in self.keywords:
            if kw.startswith("range:"):
                v = kw.split(":", 1)[1].strip()
                r = INF if v == "inf" else int(v)
                best = r if best is None else max(best, r)
        return best

    def has_keyword(self, name: str) -> bool:
        return any(kw == name or kw.startswith(name + ":") for kw in self.keywords)

    def shares_colour(self, other: "Card") -> bool:
        theirs = other.colors
        for c in self.colors:  # (a loop over the few colours: two sets a call cost more than the test)
            if c in theirs:
                return True
        return False

    def to_json(self) -> dict:
        cost = "inf" if self.cost == INF else self.cost
        return {
            "code": self.code, "name": self.name, "type": self.type.value, "colors": list(self.colors),
            "cost": cost, "power": self.power, "race": self.race, "icons": sorted(self.icons),
            "keywords": list(self.keywords),
        }


@dataclass(frozen=True)
class Catalog(CardSet):
    """A named set of cards, with the SHA-256 of the CSV it was read from."""

    name: str
    sha256: str
    cards: dict[str, Card] = field(repr=False, compare=False)  # sha256 stands for the content
    source: str = ""

    game = "zx"  # the game a catalog belongs to (zx_events.games)


def _parse_int(text: str, what: str, where: str, *, allow_inf: bool) -> float | int | None:
    text = text.strip()
    if text == "":
        return None
    if allow_inf and text == "inf":
        return INF
    if text.startswith("-") and _WHOLE.fullmatch(text[1:]):
        raise CatalogError(f"{what} must not be negative, got {text}")
    if not _WHOLE.fullmatch(text):
        raise CatalogError(f"{what} must be a whole number of at most 9 digits{', inf' if allow_inf else ''} or empty, "
                           f"got {text[:40]!r}")
    return int(text)


def parse_catalog(text: str, *, name: str, source: str) -> Catalog:
    """Read a catalog CSV; a bad row raises ``CatalogError`` with ``FILE:LINE``."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    # a UTF-8 byte-order mark (spreadsheet exports) is not part of the first column's name
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff")), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise CatalogError("empty catalog: expected the header row " + ",".join(HEADER), source=source, line=1) from None
    except csv.Error as e:
        raise CatalogError(f"bad CSV: {e}", source=source, line=1) from None
    header = [h.strip() for h in header]
    if header != HEADER:
        raise CatalogError(f"header must be {','.join(HEADER)}, got {cut(','.join(header))}", source=source, line=1)
    cards: dict[str, Card] = {}
    start = reader.line_num  # physical lines consumed so far; a record may span several (quoted newline)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise CatalogError(f"bad CSV: {e}", source=source, line=start + 1) from None
        line = start + 1  # the record's first physical line
        start = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        try:
            card = _parse_row(row)
        except CatalogError as e:
            raise e.at(source, line) from None
        if card.code in cards:
            raise CatalogError(f"duplicate card code {cut(card.code)}", source=source, line=line)
        cards[card.code] = card
    return Catalog(name=name, sha256=sha, cards=cards, source=source)


def _parse_row(row: list[str]) -> Card:
    if len(row) != len(HEADER):
        raise CatalogError(f"expected {len(HEADER)} columns, got {len(row)}")
    code, name, type_, color, cost, power, race, icons, keywords = (c.strip() for c in row)
    label = cut(code)  # the code as messages echo it (at most 200 characters)
    if not code:
        raise CatalogError("empty card code")
    if not name:
        raise CatalogError(f"{label}: empty card name")
    ctype = _TYPE_ALIASES.get(type_.lower())
    if ctype is None or ctype not in _CATALOG_TYPES:
        raise CatalogError(f"{label}: unknown card type {shown(type_)} (202.2: one of {', '.join(t.value for t in sorted(_CATALOG_TYPES, key=list(CardType).index))})")
    colors: tuple[str, ...] = ()
    if color and color != "none":
        parts = tuple(c.strip() for c in color.split("/"))
        bad = [c for c in parts if c not in COLOURS]
        if bad:
            raise CatalogError(f"{label}: unknown colour {shown(bad[0])} (one of {', '.join(COLOURS)} or none)")
        if len(set(parts)) != len(parts):
            raise CatalogError(f"{label}: colour listed twice in {shown(color)}")
        colors = parts
    elif not color:
        raise CatalogError(f"{label}: empty colour (use none for colourless)")
    icon_set: frozenset[str] = frozenset()
    if icons:
        parts = [i.strip() for i in icons.split("/")]
        bad = [i for i in parts if i not in ICONS]
        if bad:
            raise CatalogError(f"{label}: unknown icon {shown(bad[0])} (one of IG, LR, VB)")
        icon_set = frozenset(parts)
    kws = tuple(k.strip() for k in keywords.split(";") if k.strip())
    for kw in kws:
        if kw.startswith("range:"):
            v = kw.split(":", 1)[1].strip()
            if v != "inf" and not (_WHOLE.fullmatch(v) and int(v) >= 1):
                raise CatalogError(f"{label}: bad Range {kw[:40]!r} (range:N with N >= 1 of at most 9 digits, or range:inf)")
    power_v = _parse_int(power, f"{label}: power", "", allow_inf=False)
    if ctype.is_zx and power_v is None:
        raise CatalogError(f"{label}: {ctype.a} needs a power")
    return Card(
        code=code, name=name, type=ctype, colors=colors,
        cost=_parse_int(cost, f"{label}: cost", "", allow_inf=True), power=power_v,  # type: ignore[arg-type]
        race=race, icons=icon_set, keywords=kws,
    )


def read_catalog(path: str | Path, *, name: str | None = None) -> Catalog:
    p = Path(path)
    try:
        data = read_catalog_bytes(p)
    except FileNotFoundError:
        raise CatalogError(f"catalog file not found: {p}") from None
    except OSError as e:
        raise CatalogError(f"cannot read the catalog file: {e.strerror or e}", source=str(p)) from None
    text = decoded(data, "the catalog file", str(p), CatalogError)
    return parse_catalog(text, name=name or p.stem, source=str(p))


_BUILTIN: dict[str, Catalog] = {}


def builtin_catalog_names() -> list[str]:
    return sorted(p.name[:-4] for p in resources.files("zx_events.games.zx.catalogs").iterdir() if p.name.endswith(".csv"))


def load_catalog(name_or_path: str, *, files: bool = True) -> Catalog:
    """A shipped catalog by name (``sample``) or, ``files``, a CSV file by path. ``files=False`` for a
    name that comes from data (a log's header, a stored match): it names a shipped catalog, never a
    file to read (a log cannot make zx read a file: docs/security.md)."""
    if name_or_path in _BUILTIN:
        return _BUILTIN[name_or_path]
    if name_or_path in builtin_catalog_names():  # a shipped one: looked up among their names, never by a stat
        # of a name from data (a 300-character name was an OSError, "File name too long", an internal error)
        res = resources.files("zx_events.games.zx.catalogs").joinpath(f"{name_or_path}.csv")
        cat = parse_catalog(res.read_text(encoding="utf-8"), name=name_or_path, source=f"zx_events/games/zx/catalogs/{name_or_path}.csv")
        _BUILTIN[name_or_path] = cat
        return cat
    if not files:
        raise CatalogError(f"unknown catalog {shown(name_or_path)}: not a shipped catalog "
                           f"({', '.join(builtin_catalog_names()) or 'none'}); a catalog file is given with "
                           f"--catalog FILE")
    if is_file(name_or_path):
        return read_catalog(name_or_path)
    raise CatalogError(not_found(name_or_path, "catalog", builtin_catalog_names()))
