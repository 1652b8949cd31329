"""The X610Z game object: everything the game-neutral core asks of X610Z (``zx_events.games.base.Game``).

Its modules are imported when first asked for, so ``zx matches`` never loads the rules engine."""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from zx_events.games.base import Game
from zx_events.games.schema import quoted

from .rules import REASONS, RULES_VERSION, SHORT_REASONS, gone_text, title

BOARD_FIXTURE = "board"



_IS_CODE: Any = None


def _is_code() -> Any:
    global _IS_CODE
    from .referee import is_code

    _IS_CODE = is_code
    return is_code

class X610Z(Game):
    key = "x610z"
    name = "X610Z"
    header_key = "x610zlog"
    card_field_kinds = frozenset({"cast", "activate"})
    topic_prefix = "x610z.match"  # match.PREFIX, not imported: the aggregate loads when asked for
    rules_version = RULES_VERSION
    default_catalog = "x610z-sample"
    log_suffix = ".x610zlog"
    schema_file = "match-log-x610z.schema.json"
    seat_sees = "that seat's own Hand too (502.3-502.4), and of each Deck only its size"
    seats_rule = "502.3"
    simulate_policies = ("greedy",)  # (sim.py: one simple greedy policy)
    public_names = frozenset({"Life Base"})  # (the card type's and the sample catalog's A1-001's name)
    reasons = REASONS
    short_reasons = SHORT_REASONS
    # what a `turn` record writes after its TurnStarted (referee._turn_begun): 209.2f, a summon or permanent whose Time
    # Counter ran out in the Reactivation Phase, and 106.3, the match ended by the draw due from an empty deck
    turn_effects = frozenset({"Destroyed", "PermanentLeft", "MatchEnded"})
    # (web/board.js's PHASES: tests/web/test_viewer_browser.py checks that they agree)
    phases = {"setup": "Setup", "draw": "Draw Phase", "action": "Action Phase", "end": "End Phase",
              "closed": "End Phase (closed)", "over": "End of turn", "ended": "Match ended"}

    def reason_text(self, reason: str | None, how: str | None = None, winner: str | None = None) -> str:
        """A result's reason as the match page says it; a draw whose Life Bases one resolution's effects took out of
        play (MatchEnded's ``how``, digest.13) says so: "both Life Bases left play at once (one resolution's effects
        took both out of play; 106.1a)" (``rules.gone_text``)."""
        return gone_text(winner, reason, how) or super().reason_text(reason)

    def rule_title(self, rule: str) -> str:
        return title(rule)

    # ------------------------------------------------------------------ the log
    def is_position(self, value: Any) -> bool:
        is_code = _IS_CODE or _is_code()  # (the referee's, imported on first use: not each call)
        return not is_code(value)  # a dot id or a seat; a card code always has a dash

    def card_field_problem(self, record: dict, catalog: Any) -> str | None:
        """docs/match-log-x610z.md, Records: ``dot`` is a summon's (where its cast places it: a dot of
        another card's cast, on the board or not, is placed nowhere); ``on`` names the card in play a
        target code is fixed on (with a target that is no code it names nothing); ``choice`` is which of an
        Effect Card's two effects is chosen (207.1): never a summon's or a crystal's (the catalog does not say
        which Effects hold two, so an Effect's is taken as written)."""
        do = record["do"]
        if do == "cast":
            card = catalog[record["card"]]
            what = f"{card.code} ({card.name}) is {'an' if card.type[:1] in 'AEIOU' else 'a'} {card.type}"
            if "dot" in record and not card.is_summon:
                return (f"cast.dot: {what}: only a summon's cast names a dot, the one it is placed on "
                        f"(docs/match-log-x610z.md, Records); leave dot out, got {quoted(record['dot'])}")
            target = record.get("target")
            if "on" in record and not (isinstance(target, str) and not self.is_position(target)):
                return (f"cast.on: it names the card in play a target card is fixed on, and the target is "
                        f"{quoted(target) if target is not None else 'none'}, no card code (docs/match-log-x610z.md, "
                        f"Records); leave on out, got {quoted(record['on'])}")
        if "choice" in record:  # 207.1: some Effect Cards hold two effects, one chosen when cast or activated
            code = record["card"] if do == "cast" else record.get("effect")
            card = catalog[code] if isinstance(code, str) and code in catalog else None
            if card is not None and "Effect" not in card.type:  # (the catalog does not say which Effects have two)
                return (f"{do}.choice: {card.code} ({card.name}) is {'an' if card.type[:1] in 'AEIOU' else 'a'} "
                        f"{card.type}: only an Effect Card holds two effects to choose from (207.1; "
                        f"docs/match-log-x610z.md, Records); leave choice out, got {quoted(record['choice'])}")
        return None

    def header_codes(self, header: dict) -> Iterator[tuple[str, str]]:
        players = header.get("players")
        for seat in self.seats:
            info = players.get(seat) if isinstance(players, dict) else None
            for key in ("deck", "side"):
                if isinstance(info, dict) and isinstance(info.get(key), dict):
                    for code in info[key]:
                        yield f"players.{seat}.{key}", code

    # ------------------------------------------------------------------ reference data
    def load_catalog(self, name_or_path: str | None = None, *, files: bool = True):
        from .cards import load_catalog

        return load_catalog(name_or_path or self.default_catalog, files=files)

    def catalog_names(self) -> list[str]:
        from .cards import builtin_catalog_names

        return builtin_catalog_names()

    def board_names(self) -> list[str]:
        from .board import builtin_board_names

        return builtin_board_names()

    def load_fixtures(self, header: dict, override: Mapping[Any, Any] | None = None) -> dict[str, Any]:
        """The shipped board the header names, or the board given with ``--board`` (``override``);
        its name and SHA-256 are pinned in the Started event."""
        from .board import load_board

        board = override.get((self.key, BOARD_FIXTURE)) if override else None
        if board is None:
            return {BOARD_FIXTURE: load_board(header["board"], files=False)}
        named = header.get("board")
        if named != board.name:  # a log checked on a board it does not name (the file's "name" says which it is)
            from zx_events.errors import FormatError, shown

            raise FormatError(f"board: the header names board {shown(named)}, --board {shown(board.source)} holds "
                              f"board {shown(board.name)}: give the file of the board the match was played on "
                              "(its \"name\" is the header's board)")
        return {BOARD_FIXTURE: board}

    def fixture_options(self) -> tuple[str, ...]:
        return (BOARD_FIXTURE,)

    def load_fixture(self, kind: str, name_or_path: str) -> Any:
        if kind != BOARD_FIXTURE:
            return super().load_fixture(kind, name_or_path)
        from .board import load_board

        return load_board(name_or_path)

    # ------------------------------------------------------------------ the engine
    @property
    def aggregate(self) -> type:
        from .match import Match

        return Match

    def open_match(self, header: dict, catalog: Any, fixtures: dict, *, strict: bool = True,
                   source: str | None = None, content_sha256: str = "", line: int | None = 1):
        from .setup import open_match

        return open_match(header, catalog, fixtures[BOARD_FIXTURE], strict=strict, source=source,
                          content_sha256=content_sha256, line=line)

    def to_act(self, match: Any, catalog: Any, fixtures: dict) -> str | None:
        from .legal import to_act

        return to_act(match)

    def legal_records(self, match: Any, catalog: Any, fixtures: dict, player: str) -> list[dict]:
        from .legal import legal_records

        return legal_records(match, catalog, fixtures[BOARD_FIXTURE], player)

    # ------------------------------------------------------------------ drawing
    def render_board(self, view: Any) -> Any:
        from rich.text import Text

        from zx_events.freetext import printable

        from .board import builtin_board_names, load_board
        from .render import Fitted, draw_unmapped

        if view.layout is None:  # not the board the match pinned (views.pinned_board): a board file given at import
            why = (f"board {view.board!r} is not the one zx ships under that name" if view.board in
                   builtin_board_names() else f"board {view.board!r} is not shipped with zx")
            return Text(printable(draw_unmapped(view, why)))
        board = load_board(view.board, files=False)  # a stored name: a shipped board, never a file
        # text, never markup: a name masked to "[card]" (or "[/]") is shown as is; escaped before the Text
        # holds it (Text drops \r \b \v \f, and measures other controls as no width: the line was cut)
        return Fitted(board, view, printable)  # the map as wide as the terminal gives it

    # ------------------------------------------------------------------ simulation
    def sample_deck_names(self) -> list[str]:
        from .decks import sample_decks

        return [d["name"] for d in sample_decks()["decks"]]


GAME = X610Z()
