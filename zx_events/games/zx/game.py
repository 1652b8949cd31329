"""The Z/X game object: everything the game-neutral core asks of Z/X (``zx_events.games.base.Game``).

Its modules are imported when first asked for, so ``zx matches`` never loads the rules engine."""

from __future__ import annotations

from typing import Any, Iterator

from zx_events.games.base import Game
from zx_events.games.schema import quoted

from . import logformat
from .rules import LAST_LIFE, LAST_LIFE_BOTH, REASONS, RULES_VERSION, SHORT_REASONS, title


class ZX(Game):
    key = "zx"
    name = "Z/X -Zillions of enemy X-"
    header_key = logformat.HEADER_KEY
    topic_prefix = "zx.match"  # match.PREFIX, not imported: the aggregate loads when asked for
    rules_version = RULES_VERSION
    default_catalog = "sample"
    log_suffix = ".zxlog"
    schema_file = logformat.SCHEMA_FILE
    seat_sees = "that seat's own hand and Dynamis too (301.3)"
    seats_rule = "301.3"
    reasons = REASONS
    short_reasons = SHORT_REASONS
    # the analytics ``attacks`` table's outcomes as the dashboard's legend says them (narrate.BATTLE_ENDS's words,
    # shorter): 604.3a-604.3d, 605; fizzled: the attacker or its Z/X target gone from its Square (604.2, 604.3a);
    # unresolved: the attack's battle never reached its damage (the match, or the log, ended first)
    attack_outcomes = {"destroyed": "attacked Z/X destroyed", "player_damaged": "player damaged",
                       "survived": "attacked Z/X survived", "no_damage_overboost": "no damage (Overboost)",
                       "fizzled": "attacker or target gone", "unresolved": "not resolved"}
    # (web/board.js's PHASES: tests/web/test_viewer_browser.py checks that they agree)
    phases = {"setup": "Setup", "draw": "Draw Phase", "resource": "Resource Phase", "ignition": "Ignition Phase",
              "main": "Main Phase", "end": "End Phase", "over": "End of turn", "ended": "Match ended"}

    def reason_text(self, reason: str | None, how: str | None = None, winner: str | None = None) -> str:
        """A result's reason as the match page says it; a loss at 0 Life whose last Life card went by no damage
        (MatchEnded's ``how``, digest.13) says how: "P1 has no Life left (an effect took their last Life card)" (the
        loser named, the other seat of ``winner``: under "P2 Ren won", "no Life left" read as if the winner had
        none, QA round 37), not "damage with no Life left"."""
        if reason == "life" and how in LAST_LIFE:
            loser = {"P1": "P2 has ", "P2": "P1 has "}.get(winner or "", "")
            return f"{loser}no Life left ({LAST_LIFE[how]})"
        if reason == "draw" and how in LAST_LIFE_BOTH:
            return f"{super().reason_text(reason)} ({LAST_LIFE_BOTH[how]})"
        return super().reason_text(reason)

    def rule_title(self, rule: str) -> str:
        return title(rule)

    # ------------------------------------------------------------------ the log
    @property
    def log_format(self):  # type: ignore[override]  (one compiled format, shared with the legal-action lister)
        return logformat.log_format()

    @property
    def schema(self) -> dict:  # type: ignore[override]
        return logformat.log_format().schema

    def is_position(self, value: Any) -> bool:
        return logformat.is_square_name(value)

    card_field_kinds = frozenset({"play", "ignition", "life"})

    def card_field_problem(self, record: dict, catalog: Any) -> str | None:
        """docs/match-log.md, the play record: ``square`` is where a Z/X goes and ``on`` the Square a Shift
        goes on; an IG card played free (``ignition.play``, ``life.ignite``) is ``{"square": ...}`` for a
        Z/X, ``{}`` for an Event. Another card put on a Square is put nowhere (it resolves, or is refused)."""
        do = record["do"]
        if do == "play":
            card = catalog[record["card"]]
            if "square" in record and not card.type.is_zx:
                return (f"play.square: {card.code} ({card.name}) is {card.type.a}: only a Z/X is played onto a "
                        f"Square (docs/match-log.md, play); leave square out, got {quoted(record['square'])}")
            if "on" in record and card.type.value != "Shift":
                return (f"play.on: {card.code} ({card.name}) is {card.type.a}: only a Shift is played on a card "
                        f"(docs/match-log.md, play); leave on out, got {quoted(record['on'])}")
            return None
        key, code = ("play", record.get("revealed")) if do == "ignition" else ("ignite", record.get("card"))
        free = record.get(key)
        if isinstance(free, dict) and "square" in free:
            card = catalog[code]
            if not card.type.is_zx:
                return (f"{do}.{key}.square: {card.code} ({card.name}) is {card.type.a}: only a Z/X played free goes "
                        f"onto a Square, an Event's is {{}} (docs/match-log.md, {do}); leave square out, got "
                        f"{quoted(free['square'])}")
        return None

    def header_codes(self, header: dict) -> Iterator[tuple[str, str]]:
        players = header.get("players")
        for seat in self.seats:
            entry = players.get(seat) if isinstance(players, dict) else None
            if not isinstance(entry, dict):
                continue
            for key in ("deck", "player_card", "dynamis"):
                value = entry.get(key)
                if isinstance(value, dict):
                    for code in value:
                        yield f"players.{seat}.{key}", code
                elif isinstance(value, str):
                    yield f"players.{seat}.{key}", value

    # ------------------------------------------------------------------ reference data
    def load_catalog(self, name_or_path: str | None = None, *, files: bool = True):
        from .cards import load_catalog

        return load_catalog(name_or_path or self.default_catalog, files=files)

    def catalog_names(self) -> list[str]:
        from .cards import builtin_catalog_names

        return builtin_catalog_names()

    # ------------------------------------------------------------------ the engine
    @property
    def aggregate(self) -> type:
        from .match import Match

        return Match

    def open_match(self, header: dict, catalog: Any, fixtures: dict, *, strict: bool = True,
                   source: str | None = None, content_sha256: str = "", line: int | None = 1):
        from .setup import open_match

        return open_match(header, catalog, strict=strict, source=source, content_sha256=content_sha256, line=line)

    def to_act(self, match: Any, catalog: Any, fixtures: dict) -> str | None:
        from .engine.legal import to_act

        return to_act(match, catalog)

    def legal_records(self, match: Any, catalog: Any, fixtures: dict, player: str) -> list[dict]:
        from .engine.legal import legal_records

        return legal_records(match, catalog, player)

    # ------------------------------------------------------------------ drawing
    def render_board(self, view: Any) -> Any:
        from .render import draw_board

        return draw_board(view)

    # ------------------------------------------------------------------ simulation
    def sample_deck_names(self) -> list[str]:
        from .decks import sample_decks

        return [d.name for d in sample_decks()]


GAME = ZX()
