"""The JSON response of every endpoint: orjson (fast; dates and datetimes as ISO text)."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse


class JSON(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
