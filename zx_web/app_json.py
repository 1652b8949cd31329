"""The JSON response of every endpoint: orjson (fast; dates and datetimes as ISO text), each character a
terminal acts on escaped (``freetext.json_escaped_bytes``: an answer read with curl is shown in one)."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse

from zx_events.freetext import json_escaped_bytes


class JSON(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json_escaped_bytes(orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS))
