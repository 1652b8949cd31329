"""The boundary between the game-neutral core and a game: what the pipeline asks of a game.

The core (log reader, importer, application service, store, digest chain, audit, bundle, replay,
analytics projection, CLI, web) never imports a game's modules: it asks the registry
(``zx_events.games``) for the ``Game`` whose header key starts a match in a log, or whose topic
prefix a stored event carries, and calls it through this interface only. docs/architecture.md
draws it.

A game is one object (boardgame.io's "a game is a plain object"; shared/notes/game-boundary-proposal.md
§2), subclassing ``Game``. The interface is the smallest one both Z/X and X610Z fit:

- identity: ``key``, ``name``, ``header_key``, ``topic_prefix``, ``rules_version``, ``rule_title``;
- the log: ``log_format`` (from the JSON Schema of its records), ``is_position``, ``header_codes``;
- reference data: ``load_catalog`` (and ``catalog_names``), ``load_fixtures`` (pinned data besides
  the catalog a header names, such as X610Z's board file);
- the engine: ``aggregate`` and ``open_match`` (the aggregate with its referee, strict or lenient),
  ``to_act`` and ``legal_records`` (the legal-action lister);
- seats: ``build_view``, ``redact_record``, ``redact_event`` (what each seat may see), ``narrate`` (an event
  said in the game's words, from the fields a seat sees);
- drawing: ``render_board`` (terminal), ``card_rows``/``card_columns`` (CSV), ``board_script``
  (the browser's board drawing);
- analytics: ``rows`` (the module that turns events into DuckDB rows);
- simulation: ``simulate`` (the legal-action lister and policy behind ``zx simulate``).
"""

from __future__ import annotations

import re

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from importlib import import_module, resources
from typing import Any, Iterable, Iterator, Mapping, Protocol

import orjson


@dataclass(frozen=True, slots=True)
class Violation:
    """A record that breaks a rule: where, when, who, which clause (by number) and what."""

    line: int | None
    turn: int
    player: str | None
    rule: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "turn": self.turn, "player": self.player, "rule": self.rule,
                "message": self.message}


def is_file(path: str) -> bool:
    """Whether ``path`` names a regular file (a catalog or board given as a file); False for a name no file can
    have (longer than the system allows, a NUL in it: ``Path.is_file`` raised OSError for the first)."""
    from pathlib import Path

    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def is_dir(path: str) -> bool:
    """Whether ``path`` names a folder (False for a name no file can have, as ``is_file``)."""
    from pathlib import Path

    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def not_found(name: str, label: str, shipped: list[str], *, kind: str = "catalog", suffix: str = ".csv",
              file: str = "CSV file") -> str:
    """Why ``name`` (``--catalog NAME``, ``--board NAME``: ``kind``) names nothing: a folder or other file that is no
    regular file, a name that looks like a path (a folder in it, or the ``suffix`` ending) a file that does not
    exist (said alike by every game); else neither a shipped one nor a ``file`` (``label``: "catalog", "X610Z
    catalog", "board"; ``shipped``: the shipped names)."""
    from pathlib import Path

    from zx_events.errors import shown

    try:
        what = f"is a folder, not a {file}" if Path(name).is_dir() else "is no regular file" if Path(name).exists() \
            else "no such file" if "/" in name or "\\" in name or name.lower().endswith(suffix) else None
    except (OSError, ValueError):
        what = None
    if what is not None:
        return f"{kind} file {shown(name)}: {what}"
    return f"unknown {label} {shown(name)}: not a shipped {kind} ({', '.join(shipped) or 'none'}) nor a {file}"


MAX_CATALOG = 16 << 20  # bytes of a catalog file, 16 MiB (the shipped ones: under 10 KB; docs/match-log.md, Limits)


def read_catalog_bytes(path: Any) -> bytes:
    """The bytes of the catalog file ``path`` (``--catalog FILE``), at most ``MAX_CATALOG``: a larger file is a
    ``CatalogError`` before a byte is read (a 300 MB file was read whole, 4 GB at its peak, before the CSV reader
    refused a field), as is what is not a regular file. ``OSError`` as ``open``."""
    from zx_events.errors import CatalogError
    from zx_events.files import NotRegular, read_limited

    try:
        data, size = read_limited(path, MAX_CATALOG)
    except NotRegular as e:
        raise CatalogError(f"the catalog file {path} is {e.what}, not a regular file (nothing was read)",
                           source=str(path)) from None
    if data is None:
        raise CatalogError(f"catalog file too big: {size:,} bytes "
                           f"(a catalog file has at most {MAX_CATALOG >> 20} MiB, {MAX_CATALOG:,} bytes; the shipped "
                           f"ones have under 10 KB: docs/match-log.md, Limits); nothing of it was read",
                           source=str(path))
    return data


class CardSet:
    """What every game's catalog answers (a frozen dataclass with ``name``, ``sha256``, ``cards``:
    code -> card with ``code`` and ``name``, and the class attribute ``game``)."""

    name: str
    sha256: str
    cards: dict[str, Any]
    game: str

    def __contains__(self, code: object) -> bool:
        return code in self.cards

    def __getitem__(self, code: str) -> Any:
        return self.cards[code]

    def get(self, code: str) -> Any:
        return self.cards.get(code)

    def __len__(self) -> int:
        return len(self.cards)

    @property
    def ref(self) -> dict:
        """What a stored match pins: the catalog's name and content hash."""
        return {"name": self.name, "sha256": self.sha256}

    @property
    def names(self) -> dict[str, str]:
        """Card code -> card name."""
        return {c.code: c.name for c in self.cards.values()}


class Referee(Protocol):
    """Checks one match's records in order and applies them to its aggregate.

    Strict: the first violation raises ``RuleViolation`` (``FILE:LINE: rule NNN: message``).
    Lenient: each violation is recorded (``found``, and a ``ViolationRecorded`` event) and the
    record is applied as far as it can be."""

    found: list[Violation]

    def handle(self, line: int, rec: dict) -> None: ...

    def finish(self) -> None: ...


class Game(ABC):
    """One game on the engine. Subclasses set the class attributes and implement the abstract methods.

    The rest has defaults that find the game's parts by module name in its package, imported on
    first use: ``views`` (``build_view``, ``redact_record``, ``redact_event``), ``render``
    (``card_rows``, ``CSV_COLUMNS``), ``rows`` (analytics), ``sim`` (``simulate``, ``write_files``),
    ``web/board.js``."""

    key: str  # "zx": the audit JSON's "game", the analytics "game" column, --game
    name: str  # "Z/X -Zillions of enemy X-"
    header_key: str  # "zxlog": the key that starts one of its matches in a log
    format_version: int = 1  # the header key's value this reader knows
    topic_prefix: str  # "zx.match": every stored event topic of the game is PREFIX:Name
    rules_version: str  # the ruleset id printed with every violation
    default_catalog: str  # the catalog a header without "catalog" means
    log_suffix: str  # ".zxlog": the file suffix zx import DIR and zx simulate use
    schema_file: str  # the JSON Schema of the records, a file in the game's package
    aggregate_module: str = "match"  # the module of the game's package that defines ``aggregate``
    seats: tuple[str, ...] = ("P1", "P2")
    # what a player's seat sees beyond the public zones, in the game's words (the match page's Replay card)
    seat_sees: str = "that seat's own hidden cards too"
    # the rule that says what each seat may see (the dispute bundle's README cites it)
    seats_rule: str = ""
    simulate_policies: tuple[str, ...] = ("greedy", "random", "mixed")  # the --policy values its simulator plays
    # card names that are also the rules' own words for what every seat sees, left unmasked in the seats' free
    # text (``zx_events.seats.Masker``): X610Z's "Life Base" (a deck's one Life Base Card is on the board from its
    # setup, 101.1a / 105.2a), masked in every finding that said "a Life Base cannot warp" as "a [card] ..."
    public_names: frozenset[str] = frozenset()
    # the engine's result reasons (MatchEnded.reason) as a reader says them: "by {text}"
    reasons: Mapping[str, str] = {}
    # the same, short, as a list's result cell says them, "won (deck out)", whoever won or lost (``reason_label``)
    short_reasons: Mapping[str, str] = {}
    # the engine's phases as the replay viewer (web/board.js, its PHASES) and zx replay name them
    phases: Mapping[str, str] = {}
    # the outcomes of an attack (the analytics ``attacks`` table's columns) as the dashboard's legend says them
    attack_outcomes: Mapping[str, str] = {}
    # the event kinds a `turn` record may write after its TurnStarted, the rule effects of the turn's beginning (X610Z:
    # a permanent whose Time Counter ran out, 209.2f; a draw due from an empty deck, 106.3): a turn begins after them
    # (``replay.turn_begins``: ``zx replay --turn N``, the server's ``turn``, the viewer's turns). None: the TurnStarted
    # event ends its record (Z/X)
    turn_effects: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ identity
    def reason_text(self, reason: str | None, how: str | None = None, winner: str | None = None) -> str:
        """A result's reason as the match page says it (``ending_dot`` -> "its Life Base reaching an Ending
        Dot (602.2)"); one the game does not name (a log's own text) as it is. ``how`` and ``winner``: how the end
        came and who won, for a game whose results carry a ``how`` (Z/X's, digest.13); unused here."""
        return self.reasons.get(reason or "", reason or "")

    def reason_label(self, reason: str | None) -> str:
        """A result's reason short, as the match list says it after "won", "lost" or "draw" (``short_reasons``:
        Z/X's ``life`` -> "no Life left"); a reason the game has no short words for: its ``reasons`` words without
        their last parenthesis (the rule's number), one the game does not name at all (a log's own text) as it is.
        The list wrote the engine's key, "won (concede)", which read as if the winner had conceded (QA round 38)."""
        key = reason or ""
        if key in self.short_reasons:
            return self.short_reasons[key]
        words = self.reasons.get(key)
        if words is None:
            return key
        return re.sub(r"\s*\([^()]*\)$", "", words) or words

    def phase_text(self, phase: str | None) -> str:
        """A phase as the viewer shows it (``over`` -> "End of turn"); one the game does not name: "X Phase"."""
        return self.phases.get(phase or "", f"{(phase or '').capitalize()} Phase")

    def __repr__(self) -> str:
        return f"<game {self.key}>"

    @property
    def package(self) -> str:
        """The game's package (``zx_events.games.zx``)."""
        return type(self).__module__.rsplit(".", 1)[0]

    def part(self, name: str) -> Any:
        """A module of the game's package (``views``, ``render``, ``rows``, ``sim``), imported on first use."""
        return import_module(f"{self.package}.{name}")

    def topic(self, name: str) -> str:
        """The stable topic an event of this game is stored under (``Started`` -> ``zx.match:Started``)."""
        return f"{self.topic_prefix}:{name}"

    def owns_topic(self, topic: str) -> bool:
        return topic.startswith(self.topic_prefix + ":")

    @abstractmethod
    def rule_title(self, rule: str) -> str:
        """The title of a clause the engine cites ("" if unknown)."""

    # ------------------------------------------------------------------ the log
    @cached_property
    def schema(self) -> dict:
        return orjson.loads(resources.files(self.package).joinpath(self.schema_file).read_bytes())

    @cached_property
    def log_format(self):
        """The game's ``LogFormat``: validators compiled on first use of each record kind."""
        from zx_events.games.schema import LogFormat

        return LogFormat(self.schema, self.header_key, version=self.format_version, is_position=self.is_position)

    @property
    def record_kinds(self) -> tuple[str, ...]:
        return tuple(self.schema["$defs"]["action"]["properties"]["do"]["enum"])

    def is_position(self, value: Any) -> bool:
        """Whether a value of a field that holds "a position or a card code" names a position."""
        return False

    # the record kinds ``card_field_problem`` looks at (none: the check is skipped)
    card_field_kinds: frozenset[str] = frozenset()

    def card_field_problem(self, record: dict, catalog: Any) -> str | None:
        """What field of ``record`` (of a kind in ``card_field_kinds``, its codes in ``catalog``) its card
        does not take, as a format error says it (``cast.dot: ... leave dot out``), or None. The spec of the
        record says which fields each card takes (a Square where a Z/X goes, a dot for a summon): a field no
        card of its type takes is a malformed record, refused whatever its value, as an unknown key is."""
        return None

    def header_codes(self, header: dict) -> Iterator[tuple[str, str]]:
        """Every card code a header names (checked against the catalog), with the field that names it
        (``("players.P2.deck", "B01-001")``): by default each player's deck."""
        players = header.get("players")
        for seat in self.seats:
            entry = players.get(seat) if isinstance(players, dict) else None
            if isinstance(entry, dict) and isinstance(entry.get("deck"), dict):
                for code in entry["deck"]:
                    yield f"players.{seat}.deck", code

    # ------------------------------------------------------------------ reference data
    @abstractmethod
    def load_catalog(self, name_or_path: str | None = None, *, files: bool = True) -> Any:
        """A shipped catalog by name, or (``files``) a catalog file by path (None: ``default_catalog``).
        The catalog has ``name``, ``sha256``, ``ref`` (what a match pins), ``names`` (code -> name),
        ``game`` and ``code in catalog``; a bad file raises ``CatalogError`` naming it.

        ``files=False`` for every name that comes from data (a log's header, a stored match): such a
        name picks a shipped catalog and never a file, so a log cannot make zx read a file of the
        machine (docs/security.md); a catalog file comes from the command line (``--catalog FILE``)."""

    @abstractmethod
    def catalog_names(self) -> list[str]:
        """The shipped catalogs."""

    def load_fixtures(self, header: dict, override: Mapping[Any, Any] | None = None) -> dict[str, Any]:
        """Reference data a header pins besides the catalog (X610Z: its board), by the shipped names
        the header gives (never a file: see ``load_catalog``), or where ``override`` holds one (a file
        given on the command line: ``fixture_options``, ``zx_events.games.load_references``) that
        one. Z/X: none."""
        return {}

    def fixture_options(self) -> tuple[str, ...]:
        """The kinds of reference data besides the catalog a user may give as a file on the command
        line, each a ``--KIND NAME|FILE`` option of ``zx import`` and ``zx audit`` (X610Z: board)."""
        return ()

    def load_fixture(self, kind: str, name_or_path: str) -> Any:
        """One of ``fixture_options`` by shipped name or file path (a bad one: ``FormatError``)."""
        from zx_events.errors import FormatError

        raise FormatError(f"{self.name} has no {kind} to give")

    # ------------------------------------------------------------------ the engine
    @property
    @abstractmethod
    def aggregate(self) -> type:
        """The match aggregate class (eventsourcing ``Aggregate``)."""

    @abstractmethod
    def open_match(self, header: dict, catalog: Any, fixtures: dict, *, strict: bool = True,
                   source: str | None = None, content_sha256: str = "", line: int | None = 1
                   ) -> tuple[Any, Referee]:
        """A match started from a checked header, with the referee for its records."""

    @abstractmethod
    def to_act(self, match: Any, catalog: Any, fixtures: dict) -> str | None:
        """The seat that acts next (None: nobody, the match is over)."""

    @abstractmethod
    def legal_records(self, match: Any, catalog: Any, fixtures: dict, player: str) -> list[dict]:
        """The legal-action lister: every record ``player`` may write next (the simulator's policy
        chooses among them; each is accepted by a strict referee)."""

    def projection_code(self) -> bytes:
        """What replay's snapshot fingerprint hashes: the code that rebuilds a state from events (the
        source of ``aggregate_module``, read without importing it)."""
        return resources.files(self.package).joinpath(self.aggregate_module + ".py").read_bytes()

    # ------------------------------------------------------------------ seats
    def build_view(self, match: Any, perspective: str, names: Any = None, **kw: Any) -> Any:
        """A frozen view of ``match`` from one seat (``to_json()`` for JSON), hiding what it may not see."""
        return self.part("views").build_view(match, perspective, names, **kw)

    def redact_record(self, rec: dict | None, viewer: str, mask: Any = None, events: Any = (),
                      before: Any = None) -> dict | None:
        """A log record as ``viewer`` may see it; ``events``: the domain events of its step (whether it was
        applied, and how, decides what of it a seat sees: ``seats.record_applied``); ``before``: the state
        before its step, for a game whose views say ``SEES_BEFORE`` (Z/X: a face-down Force card leaving)."""
        views = self.part("views")
        if getattr(views, "SEES_BEFORE", False):
            return views.redact_record(rec, viewer, mask, events, before=before)
        return views.redact_record(rec, viewer, mask, events)

    def redact_event(self, kind: str, fields: dict, viewer: str, mask: Any = None, before: Any = None) -> dict:
        """An event's fields as ``viewer`` may see them; ``before``: the state the event was applied to, for a
        game whose views say ``SEES_BEFORE`` (what a seat sees of it depends on that state: Z/X, a face-down
        Force card that leaves for a hidden zone, 301.3b)."""
        views = self.part("views")
        if getattr(views, "SEES_BEFORE", False):
            return views.redact_event(kind, fields, viewer, mask, before=before)
        return views.redact_event(kind, fields, viewer, mask)

    def narrate(self, kind: str, fields: Mapping[str, Any], names: Mapping[str, str] | None = None,
                players: Mapping[str, str] | None = None, before: Any = None, mask: Any = ...) -> str:
        """One line of play-by-play: event ``kind`` said in the game's words ("P1 Mio attacks P2's Player Square
        (b3) with Flamecrest Lancer R01-010 (Power 2000) from b2") from its ``fields`` as a seat sees them
        (``redact_event``'s: a hidden card reads "a card"), the card ``names`` of the match's catalog and the
        ``players``' names as that seat sees them. The game's ``narrate`` module says each of its event kinds
        (``sentence``); one it does not say, the key=value text of its fields (``narration.fields_text``).
        ``before``: the state the event was applied to, for a game whose ``narrate`` says ``SEES_BEFORE`` (Z/X:
        where a destroyed card goes, by its kind, and a Token's name; X610Z: the cards of an attack); ``mask``: the
        seat's masker of the log's free text the state holds (a Token's name), None for the judge's (not given: the
        generic one, ``Words``')."""
        from zx_events.narration import Words, fields_text

        module = self.part("narrate")
        words = Words(names or {}, players or {}) if mask is ... else Words(names or {}, players or {}, mask)
        text = module.sentence(kind, fields, words, before=before) if getattr(module, "SEES_BEFORE", False) else \
            module.sentence(kind, fields, words)
        return text if text is not None else fields_text(fields)

    # ------------------------------------------------------------------ drawing
    @abstractmethod
    def render_board(self, view: Any) -> Any:
        """The board of ``view`` for the terminal (a string or a rich renderable)."""

    @property
    def card_columns(self) -> tuple[str, ...]:
        """The columns of ``card_rows``."""
        return tuple(self.part("render").CSV_COLUMNS)

    def card_rows(self, view: Any, step: int) -> list[dict]:
        """``zx replay --format csv``: one row per card (or hidden count) in the view."""
        return self.part("render").card_rows(view, step)

    def board_script(self) -> str | None:
        """The browser's board drawing (a script registering ``window.ZXBoards[key]``), or None."""
        res = resources.files(self.package).joinpath("web", "board.js")
        return res.read_text(encoding="utf-8") if res.is_file() else None

    # ------------------------------------------------------------------ analytics and simulation
    @property
    def rows(self) -> Any:
        """The analytics rows module: ``GAME``, ``COLUMNS``, ``TOPICS``, ``HANDLERS``, ``MatchRows``,
        ``catalog_rows`` and optionally ``SQL``/``SQL_TABLES`` and ``NO_PAYLOAD`` (see zx_analytics/tables.py)."""
        return self.part("rows")

    @abstractmethod
    def sample_deck_names(self) -> list[str]:
        """The shipped sample decks ``zx simulate`` plays."""

    def simulate(self, matches: int, seed: int, **kw: Any) -> Iterable[Any]:
        """Legal matches between the sample decks, deterministic by seed (a simulator policy over the
        game's legal-action lister)."""
        return self.part("sim").simulate(matches, seed, **kw)

    def write_files(self, out: Any, seed: int, sims: Iterable[Any], per_file: int = 1,
                    before: Any = None) -> Iterator[Any]:
        """Write simulated matches ``per_file`` to a log file in ``out``; yields each file written
        (``row()``: file, matches, records, events, turns, winners). ``before``: called with each file's
        path before it is written (``games.simfiles.write_files``)."""
        return self.part("sim").write_files(out, seed, sims, per_file, before)

    # ------------------------------------------------------------------ zx games
    def describe(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "rules": self.rules_version,
                "header": f"{self.header_key} {self.format_version}", "topics": self.topic_prefix + ":*",
                "record_kinds": list(self.record_kinds), "catalogs": self.catalog_names(),
                "suffix": self.log_suffix}


# ---------------------------------------------------------------------- event methods, triggered directly
_TRIGGER = """
def {name}(self, {params}):
    d = self.__dict__
    version = d["_version"] + 1
    timestamp = now()
    event = new(cls)
    set_dict(event, "__dict__", {{"originator_id": d["_id"], "originator_version": version, "timestamp": timestamp,
                                 {fields}}})
    body(self, {args})
    d["_version"] = version
    d["_modified_on"] = timestamp
    d["_pending_events"].append(event)
"""


def direct_trigger(aggregate: type, name: str) -> Any:
    """The ``@event`` method ``name`` of an eventsourcing ``aggregate`` class, triggered without the
    library's generic per-call machinery (every game's match aggregate uses it).

    It builds the same event class with the same fields (defaults filled in as the library does),
    runs the same method body that replay runs, and does the aggregate's version bookkeeping, so
    stored events and replay are unchanged; it skips re-deriving the signature on every call,
    which was about a third of checking a match. The event is built as the mapper builds a stored
    one (its ``__dict__`` set at once): the dataclass ``__init__``'s per-field frozen setattr was a
    quarter of building an event, and its ``__post_init__`` only checks that the id is a UUID, which
    an aggregate's always is.

    The method is compiled from ``_TRIGGER`` with the body's own parameter list (names and
    defaults), so a call binds its arguments as the body would (a missing or unknown one is the same
    ``TypeError``) without a ``**kwargs`` dict, copied and unpacked again, on every event. A body
    with other than plain parameters is a ``TypeError`` here.
    """
    import inspect
    from datetime import datetime
    from functools import partial

    from eventsourcing import domain
    from eventsourcing.domain import CanCreateTimestamp, decorated_func_callers

    decorator = aggregate.__dict__[name]
    cls = decorated_func_callers[decorator]
    body = decorator.decorated_func
    params = list(inspect.signature(body).parameters.values())[1:]
    now = cls.create_timestamp
    if now is CanCreateTimestamp.create_timestamp:  # the library's datetime.now(TZINFO), minus two calls
        now = partial(datetime.now, domain.TZINFO)
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD or not p.name.isidentifier() for p in params):
        raise TypeError(f"{aggregate.__name__}.{name}: only plain parameters are supported by the direct trigger")
    defaults = {f"_d_{p.name}": p.default for p in params if p.default is not p.empty}
    source = _TRIGGER.format(
        name=name,
        params=", ".join(p.name if p.default is p.empty else f"{p.name}=_d_{p.name}" for p in params),
        fields=", ".join(f"{p.name!r}: {p.name}" for p in params),
        args=", ".join(p.name for p in params))
    scope = {"now": now, "new": object.__new__, "set_dict": object.__setattr__, "cls": cls, "body": body,
             **defaults}
    exec(compile(source, f"<{aggregate.__name__}.{name} trigger>", "exec"), scope)
    trigger = scope[name]
    trigger.__qualname__ = name
    trigger.__doc__ = body.__doc__
    return trigger


def install_direct_triggers(aggregate: type) -> None:
    """Every ``@event`` method of ``aggregate`` (but ``__init__``) replaced by its ``direct_trigger``."""
    for name in [n for n, v in list(aggregate.__dict__.items())
                 if type(v).__name__ == "CommandMethodDecorator" and n != "__init__"]:
        setattr(aggregate, name, direct_trigger(aggregate, name))


def inert_since(match: Any, settled: int, inert: Any) -> bool:
    """Whether every event ``match`` recorded after its version ``settled`` is of a class in ``inert``
    (one that cannot give a referee's automatic rule effects anything to do); True when none came
    since, False when they are not all still pending (saved meanwhile, or ``settled`` is ahead)."""
    d = match.__dict__
    since = d["_version"] - settled
    if since < 0:
        return False
    if since == 0:
        return True
    pending = d["_pending_events"]
    if len(pending) < since:
        return False
    for e in pending[-since:]:
        if type(e) not in inert:
            return False
    return True
