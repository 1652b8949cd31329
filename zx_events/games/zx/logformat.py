"""The Z/X match log format (``zxlog`` 1): its JSON Schema, compiled once (``zx_events.games.schema``)."""

from __future__ import annotations

from functools import cache
from importlib import resources

import orjson

from zx_events.games.schema import LogFormat

from .board import is_square_name

HEADER_KEY = "zxlog"
SCHEMA_FILE = "match-log.schema.json"


@cache
def log_format() -> LogFormat:
    """Validators are compiled on the first record of each kind."""
    schema = orjson.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_bytes())
    return LogFormat(schema, HEADER_KEY, is_position=is_square_name)  # effect.source: a Square or a card code
