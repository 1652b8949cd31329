"""The match list's filters, now ``zx_events.matchlist`` (the core's: ``zx matches``, ``zx export``, the server and
the Python API share them): this name is that module, for the code that imports it from here."""

import sys

from zx_events import matchlist

sys.modules[__name__] = matchlist
