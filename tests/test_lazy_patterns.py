"""The regular expressions zx compiles when first used, not when a module is imported (issue 20 target 4: zx
matches compiled 17 of them at every start-up; tests/test_cli_startup.py checks that it compiles none), and the
shortcuts that let most text need none of them: each gives what the pattern gives."""

from __future__ import annotations

import re
import sys

import pytest

from zx_cli import output
from zx_events import freetext, store


def every_printable_character() -> str:
    return "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isprintable())


def test_printable_text_holds_nothing_the_free_text_rules_escape():
    """``printable``, ``visible`` and ``json_escaped`` return a text that ``str.isprintable`` (no control,
    format, separator or unassigned character but the space) as it is, without its patterns: none of them
    matches any such character (a Japanese name, an emoji, an accented letter compile nothing)."""
    text = every_printable_character()
    assert len(text) > 100_000
    for source in (freetext._CONTROL, freetext._INVISIBLE_SHOWN, freetext._JSON_RAW):
        assert re.search(source, text) is None, source
    for c in "\u200b\u200c\u200d\u00ad\ufeff\x1b\x7f\x9b\u2028\u202e\u061c\t\n":  # (what they escape: not printable)
        assert not c.isprintable(), repr(c)


@pytest.mark.parametrize("text", ["Aki", "アキ", "José", "Black\u200bReapers", "\u200dA\u200d", "a\u200db", "👨\u200d👩",
                                  "Evil\x1b]52;c;x\x07", "\u202eevil", "DEL\x7f", "C1\x9b2J", "tab\there", "line\nbreak"])
def test_the_shortcuts_give_what_the_patterns_give(text):
    """Each function as it was with its patterns compiled at import (the same sources)."""
    control, invisible, raw = (re.compile(s) for s in (freetext._CONTROL, freetext._INVISIBLE_SHOWN, freetext._JSON_RAW))
    assert freetext.printable(text) == freetext.escaped(control, freetext.escaped(invisible, text))
    assert freetext.printable(text, unseen=False) == freetext.escaped(control, text)
    assert freetext.visible(text) == freetext.printable(text)  # (a page shows what a terminal does: QA round 33)
    as_json = output.json_text({"name": text})
    assert as_json == raw.sub(lambda m: f"\\u{ord(m.group()):04x}", output.json.dumps({"name": text}, ensure_ascii=False))


def test_the_public_patterns_are_attributes_still():
    """``from zx_events.freetext import INVISIBLE`` (zx_web.viewer, zx_events.seats) gives the compiled pattern."""
    from zx_events.freetext import BIDI_CONTROLS, INVISIBLE, INVISIBLE_UTF8, JSON_RAW_UTF8

    assert all(isinstance(p, re.Pattern) for p in (BIDI_CONTROLS, INVISIBLE, INVISIBLE_UTF8, JSON_RAW_UTF8))
    assert INVISIBLE.search("a\u200bb") and JSON_RAW_UTF8.search("\u202e".encode()) and BIDI_CONTROLS.search("\u202e")
    assert INVISIBLE is freetext.INVISIBLE  # (compiled once)
    with pytest.raises(AttributeError):
        freetext.NO_SUCH_PATTERN  # noqa: B018


@pytest.mark.parametrize("url", ["zx-store.sqlite", "/tmp/a b/s.sqlite", "~/s.sqlite", "./x:y.sqlite", "a@b.sqlite",
                                 "postgres//u:p@h/db", "POSTGRESQL//u@h", "mysql://u@h/db", "C:\\zx\\s.sqlite",
                                 "sqlite:///abs.sqlite", "http:x"])
def test_a_store_path_is_read_as_the_patterns_read_it(url):
    """``parse_store`` asks the scheme patterns only of a store with a colon or an ``@``: the others match neither."""
    expected = bool(re.match(store._SCHEME, url) or re.match(store._POSTGRES_TYPO, url))
    if ":" not in url and "@" not in url:
        assert not expected
    try:
        store.parse_store(url)
        refused = False
    except store.StoreError as e:
        refused = "unknown store" in str(e)
    assert refused is (expected and not (url.startswith("sqlite://") and not url.startswith("sqlite:///")))
