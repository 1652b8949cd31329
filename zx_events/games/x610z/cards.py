"""X610Z cards (300-404) and the catalog CSV (match-log-x610z.md, "Card catalog").

Energy strings (204.2): one or more ``<type><amount>``: ``M`` Mystic, ``B`` Boost, ``C``
Colorless; another capital letter is a specific type the catalog declares on a leading
``# types: X, Y`` line (203.2a). Costs are plain ``{type: amount}`` dicts.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from zx_events.games.base import CardSet, is_file, not_found, read_catalog_bytes
from zx_events.errors import CatalogError, cut, decoded, shown

HEADER = ["code", "name", "type", "permanent", "cost", "restriction", "class", "element", "crew",
          "attack", "defense", "speed", "range", "move_cost", "activation_cost", "additional_cost",
          "ability", "produces", "counters", "keywords", "text"]
TYPES = ("Summon", "Energy Crystal", "Effect", "Summon Effect", "Class Specific Effect",
         "Energy Crystal Effect", "Effect Effect")  # 304.2a, 400.1
ENERGY = ("M", "B")  # 203.2a: the specific types every catalog knows
COLORLESS = "C"  # 203.2b
LIFE_BASE = "Life Base"  # 402.2: the Life Base summon's Class (choice, open question 12)
ABILITY_KINDS = ("activated", "paid", "triggered", "continuous")  # 402.10e-h
INF = math.inf
_WHOLE = re.compile(r"[0-9]{1,9}")  # at most 9 digits: a catalog's numbers reach stored events (64-bit integers)
_PART = re.compile(r"([A-Z])([0-9]{1,9})")
CODE = re.compile(r"[A-Z][A-Z0-9]*-[A-Z0-9]+")


def parse_energy(text: str, types: tuple[str, ...], what: str) -> dict[str, int]:
    """``"B1C1"`` -> ``{"B": 1, "C": 1}``; empty -> ``{}``."""
    text = text.strip()
    if not text:
        return {}
    out: dict[str, int] = {}
    pos = 0
    for m in _PART.finditer(text):
        if m.start() != pos:
            break
        t, n = m.group(1), int(m.group(2))
        if t != COLORLESS and t not in types:
            raise CatalogError(f"{what}: unknown energy type {shown(t)} in {shown(text)} (203.2: {', '.join(types)} or C)")
        if t in out:
            raise CatalogError(f"{what}: energy type {t} twice in {shown(text)}")
        out[t] = n
        pos = m.end()
    if pos != len(text):
        raise CatalogError(f"{what}: bad energy string {shown(text)} (like M2, B1C1, C3)")
    return out


def energy_text(cost: dict[str, int]) -> str:
    return "".join(f"{t}{n}" for t, n in sorted(cost.items(), key=lambda kv: (kv[0] == COLORLESS, kv[0]))) or "0"


@dataclass(frozen=True)
class Card:
    code: str
    name: str
    type: str
    permanent: bool
    cost: dict = field(default_factory=dict)
    restriction: float = 3
    cls: str = ""
    element: str = ""
    crew: str = ""
    attack: int | None = None
    defense: int | None = None
    speed: int | None = None
    range: int | None = None
    move_cost: dict = field(default_factory=dict)
    activation_cost: dict | None = None
    additional_cost: dict = field(default_factory=dict)
    abilities: dict = field(default_factory=dict)  # kind -> cost dict (activated/paid) or {}
    produces: tuple = ()  # alternatives, each a cost-like dict
    counters: dict = field(default_factory=dict)  # activation / time -> N (209.2)
    keywords: tuple = ()
    text: str = ""

    @property
    def is_summon(self) -> bool:
        return self.type == "Summon"

    @property
    def is_life_base(self) -> bool:
        return self.type == "Summon" and self.cls == LIFE_BASE

    @property
    def is_crystal(self) -> bool:
        return self.type == "Energy Crystal"

    @property
    def targets(self) -> str | None:
        """401.2a-401.5a: what a card of this type must target (None: not checkable or no target)."""
        return {"Summon Effect": "summon", "Class Specific Effect": "class",
                "Energy Crystal Effect": "crystal", "Effect Effect": "effect"}.get(self.type)

    @property
    def energy_types(self) -> tuple[str, ...]:
        """The energy types in its Casting Cost (its "colours" for analytics; () = colorless)."""
        return tuple(sorted(t for t in self.cost if t != COLORLESS))

    def stats(self) -> dict:
        return {"attack": self.attack or 0, "defense": self.defense or 0, "speed": self.speed or 0,
                "range": self.range or 0}


@dataclass(frozen=True)
class Catalog(CardSet):
    name: str
    sha256: str
    cards: dict[str, Card] = field(repr=False, compare=False)
    types: tuple[str, ...] = ENERGY
    source: str = ""

    game = "x610z"  # the game a catalog belongs to (zx import --catalog)


def _int(text: str, what: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    if text.startswith("-") and _WHOLE.fullmatch(text[1:]):  # as the Z/X catalog says it
        raise CatalogError(f"{what} must not be negative, got {text}")
    if not _WHOLE.fullmatch(text):
        raise CatalogError(f"{what} must be a whole number of at most 9 digits or empty, got {text[:40]!r}")
    return int(text)


def parse_catalog(text: str, *, name: str, source: str) -> Catalog:
    """Read an X610Z catalog CSV; a bad row raises ``CatalogError`` with ``FILE:LINE``."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    body = text.removeprefix("\ufeff")
    types = ENERGY
    lines = body.splitlines(keepends=True)
    skip = 0
    while skip < len(lines) and lines[skip].startswith("#"):
        head = lines[skip][1:].strip()
        if head.startswith("types:"):
            extra = tuple(t.strip() for t in head[6:].split(",") if t.strip())
            bad = [t for t in extra if not re.fullmatch(r"[A-Z]", t) or t == COLORLESS]
            if bad:
                raise CatalogError(f"# types: an energy type is one capital letter other than C, got {shown(bad[0])}",
                                   source=source, line=skip + 1)
            types = tuple(dict.fromkeys(ENERGY + extra))
        skip += 1
    reader = csv.reader(io.StringIO("".join(lines[skip:])), strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise CatalogError("empty catalog: expected the header row " + ",".join(HEADER), source=source,
                           line=skip + 1) from None
    if header != HEADER:
        raise CatalogError(f"header must be {','.join(HEADER)}", source=source, line=skip + 1)
    cards: dict[str, Card] = {}
    start = reader.line_num
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise CatalogError(f"bad CSV: {e}", source=source, line=skip + start + 1) from None
        line = skip + start + 1
        start = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        try:
            card = _row(row, types)
        except CatalogError as e:
            raise e.at(source, line) from None
        if card.code in cards:
            raise CatalogError(f"duplicate card code {cut(card.code)}", source=source, line=line)
        cards[card.code] = card
    return Catalog(name, sha, cards, types, source)


def _row(row: list[str], types: tuple[str, ...]) -> Card:
    if len(row) != len(HEADER):
        raise CatalogError(f"expected {len(HEADER)} columns, got {len(row)}")
    v = dict(zip(HEADER, (c.strip() for c in row)))
    code = v["code"]
    label = cut(code)  # the code as messages echo it (at most 200 characters)
    if not CODE.fullmatch(code):
        raise CatalogError(f"code: {shown(code)} is not a catalog code like A1-001 (307.2)")
    if not v["name"]:
        raise CatalogError(f"{label}: empty name")
    if v["type"] not in TYPES:
        raise CatalogError(f"{label}: type must be one of {', '.join(TYPES)} (304.2a), got {shown(v['type'])}")
    if v["permanent"] not in ("yes", "no"):
        raise CatalogError(f"{label}: permanent must be yes or no (304.4a), got {shown(v['permanent'])}")
    restriction: float
    if v["restriction"] == "inf":
        restriction = INF
    else:
        r = _int(v["restriction"], f"{label}: restriction")
        if r is None or r < 1:
            raise CatalogError(f"{label}: restriction must be a whole number >= 1 or inf (304.3)")
        restriction = r
    stats = {k: _int(v[k], f"{label}: {k}") for k in ("attack", "defense", "speed", "range")}
    if v["type"] == "Summon":
        missing = [k for k, n in stats.items() if n is None]
        if missing:
            raise CatalogError(f"{label}: a Summon needs {', '.join(missing)} (402.10)")
        if not v["class"]:
            raise CatalogError(f"{label}: a Summon needs a class (402.2)")
        if v["permanent"] != "yes":
            raise CatalogError(f"{label}: a Summon is a permanent (206.1)")
    _rules_of_row(v, label)
    abilities: dict[str, dict] = {}
    for part in (p.strip() for p in v["ability"].split(";") if p.strip()):
        kind, _, cost = part.partition(":")
        if kind not in ABILITY_KINDS:
            raise CatalogError(f"{label}: ability kind must be one of {', '.join(ABILITY_KINDS)}, got {shown(kind)}")
        abilities[kind] = parse_energy(cost, types, f"{label}: ability {kind}")
    produces = tuple(parse_energy(p, types, f"{label}: produces") for p in v["produces"].split("/") if p.strip())
    if v["type"] == "Energy Crystal" and not produces:
        raise CatalogError(f"{label}: an Energy Crystal produces energy (203.3)")
    counters: dict[str, int] = {}
    for part in (p.strip() for p in v["counters"].split(";") if p.strip()):
        kind, _, n = part.partition(":")
        if kind not in ("activation", "time") or not _WHOLE.fullmatch(n) or int(n) < 1:
            raise CatalogError(f"{label}: counters must be activation:N or time:N (209.2), got {shown(part)}")
        counters[kind] = int(n)
    return Card(
        code=code, name=v["name"], type=v["type"], permanent=v["permanent"] == "yes",
        cost=parse_energy(v["cost"], types, f"{label}: cost"), restriction=restriction, cls=v["class"],
        element=v["element"], crew=v["crew"], attack=stats["attack"], defense=stats["defense"],
        speed=stats["speed"], range=stats["range"],
        move_cost=parse_energy(v["move_cost"], types, f"{label}: move_cost"),
        activation_cost=parse_energy(v["activation_cost"], types, f"{label}: activation_cost")
        if v["activation_cost"] else None,
        additional_cost=parse_energy(v["additional_cost"], types, f"{label}: additional_cost"),
        abilities=abilities, produces=produces, counters=counters,
        keywords=tuple(k.strip() for k in v["keywords"].split(";") if k.strip()), text=v["text"],
    )


SUMMON_ONLY = {"class": "402.2", "element": "402.4", "attack": "402.10", "defense": "402.10", "speed": "402.10",
               "range": "402.10", "move_cost": "204.5"}  # the spec's table: "Summon only" / "(Summon)"


def _rules_of_row(v: dict[str, str], label: str) -> None:
    """What the rules say of a row's columns (docs/match-log-x610z.md, Card catalog): a summon that is no Life Base has
    an Element (402.4), a Life Base none (402.5), and an Energy Crystal none of a Summon's columns. Checked where a
    catalog is read (``zx import``/``zx audit`` with ``--catalog FILE``, a shipped catalog); a stored match never
    reads one, so one imported before these checks replays as before."""
    if v["type"] == "Summon":
        if v["class"] == LIFE_BASE and v["element"]:
            raise CatalogError(f"{label}: a Life Base has no Element (402.5), got element {shown(v['element'])}")
        if v["class"] != LIFE_BASE and not v["element"]:
            raise CatalogError(f"{label}: a summon that is no Life Base has an Element (402.4): the element column "
                               f"is empty (class {cut(v['class'])})")
    elif v["type"] == "Energy Crystal":
        for column, rule in SUMMON_ONLY.items():
            if v[column]:
                raise CatalogError(f"{label}: an Energy Crystal has no {column} ({rule}: a Summon's column, "
                                   f"docs/match-log-x610z.md, Card catalog), got {shown(v[column])}")


def read_catalog(path: str | Path) -> Catalog:
    p = Path(path)
    try:
        data = read_catalog_bytes(p)
    except FileNotFoundError:
        raise CatalogError(f"catalog file not found: {p}") from None
    except OSError as e:
        raise CatalogError(f"cannot read the catalog file: {e.strerror or e}", source=str(p)) from None
    text = decoded(data, "the catalog file", str(p), CatalogError)
    return parse_catalog(text, name=p.stem, source=str(p))


_BUILTIN: dict[str, Catalog] = {}


def builtin_catalog_names() -> list[str]:
    return sorted(p.name[:-4] for p in resources.files(__package__).joinpath("catalogs").iterdir()
                  if p.name.endswith(".csv"))


def load_catalog(name_or_path: str, *, files: bool = True) -> Catalog:
    """A shipped X610Z catalog by name (``x610z-sample``) or, ``files``, a CSV file by path
    (``files=False`` for a name from data: see ``zx_events.games.zx.cards.load_catalog``)."""
    if name_or_path in _BUILTIN:
        return _BUILTIN[name_or_path]
    if name_or_path in builtin_catalog_names():  # among the shipped names, never a stat (zx.cards.load_catalog)
        res = resources.files(__package__).joinpath("catalogs").joinpath(f"{name_or_path}.csv")
        cat = parse_catalog(res.read_text(encoding="utf-8"), name=name_or_path,
                            source=f"catalogs/{name_or_path}.csv")
        _BUILTIN[name_or_path] = cat
        return cat
    if not files:
        raise CatalogError(f"unknown X610Z catalog {shown(name_or_path)}: not a shipped catalog "
                           f"({', '.join(builtin_catalog_names())}); a catalog file is given with --catalog FILE")
    if is_file(name_or_path):
        return read_catalog(name_or_path)
    raise CatalogError(not_found(name_or_path, "X610Z catalog", builtin_catalog_names()))
