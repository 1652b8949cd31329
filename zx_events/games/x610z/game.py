"""The X610Z game object: everything the game-neutral core asks a game for, in one place
(shared/notes/game-boundary-proposal.md §2; boardgame.io's "a game is one plain object")."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from . import rows as _rows
from .board import Board, load_board
from .cards import Catalog, load_catalog
from .match import PREFIX, Match, project
from .referee import is_code
from .render import draw
from .rules import RULES_VERSION, title
from .setup import DEFAULT_CATALOG, open_match
from .views import build_view, redact_event, redact_record

SCHEMA_FILE = "match-log-x610z.schema.json"


def _schema() -> dict:
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def _code_fields(schema: dict) -> dict[str, dict[str, str]]:
    """Per record ``$defs`` entry: field -> 'code' | 'codes' | 'dotOrCode' (from the schema)."""
    out = {}
    for name, d in schema["$defs"].items():
        fields = {}
        for key, sub in (d.get("properties") or {}).items():
            ref = sub.get("$ref", "").rsplit("/", 1)[-1]
            if ref in ("code", "codes", "dotOrCode", "target"):
                fields[key] = ref
        out[name] = fields
    return out


class X610Z:
    key = "x610z"
    header_key = "x610zlog"
    topic_prefix = PREFIX
    rules_version = RULES_VERSION
    aggregate = Match
    default_catalog = DEFAULT_CATALOG
    log_suffix = ".x610zlog"

    def __init__(self) -> None:
        self.schema = _schema()
        self._fields = _code_fields(self.schema)

    # reference data
    def load_catalog(self, name_or_path: str | None) -> Catalog:
        return load_catalog(name_or_path or DEFAULT_CATALOG)

    def load_fixtures(self, header: dict) -> dict[str, Any]:
        return {"board": load_board(header["board"])}

    def codes_in(self, record: dict, def_name: str) -> Iterator[str]:
        if def_name == "header":
            for info in (record.get("players") or {}).values():
                for key in ("deck", "side"):
                    if isinstance(info, dict) and isinstance(info.get(key), dict):
                        yield from info[key]
            return
        for key, kind in self._fields.get(def_name, {}).items():
            value = record.get(key)
            if kind == "codes" and isinstance(value, list):
                yield from (v for v in value if isinstance(v, str))
            elif kind == "code" and isinstance(value, str):
                yield value
            elif kind in ("dotOrCode", "target") and is_code(value):
                yield value

    # the engine
    def open_match(self, header: dict, catalog: Catalog, fixtures: dict, *, strict: bool = True,
                   source: str | None = None, content_sha256: str = "", line: int | None = 1):
        board: Board = fixtures["board"]
        return open_match(header, catalog, board, strict=strict, source=source, content_sha256=content_sha256,
                          line=line)

    def rule_title(self, rule: str) -> str:
        return title(rule)

    # views
    build_view = staticmethod(build_view)
    redact_record = staticmethod(redact_record)
    redact_event = staticmethod(redact_event)
    project = staticmethod(project)

    def render_board(self, match: Match, view) -> str:
        return draw(load_board(match.board["name"]), view)

    def projection_code(self) -> bytes:
        return Path(__file__).with_name("match.py").read_bytes()

    # analytics and simulation
    rows = _rows

    def simulate(self, matches: int, seed: int, **kw):
        from .sim import simulate
        return simulate(matches, seed, **kw)


GAME = X610Z()
