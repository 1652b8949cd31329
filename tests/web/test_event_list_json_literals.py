"""The browser's event list writes ``true``, ``false`` and ``null`` as JSON and zx replay write them: it wrote
Python's ``True`` and ``False`` (``void=True``, ``permanent=False``) where the terminal wrote ``true``."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from zx_cli.main import zx
from zx_web.viewer import event_text, record_text

ROOT = Path(__file__).resolve().parents[2]
MATCH = "x610z-invalid-200.1a-not-in-hand"  # examples/x610z/invalid: a cast of a card not in the hand (void)


def test_an_events_and_a_records_booleans_and_nulls_read_as_json():
    fields = {"player": "P1", "entry": {"kind": "cast", "void": True, "target": None}, "permanent": False}
    assert event_text("Announced", fields, "P2", str) == \
        "player=P1 entry={kind=cast void=true target=null} permanent=false"
    assert record_text({"do": "effect", "by": "P1", "op": "move", "warp": True, "extra": [False, None]}) == \
        "P1 effect op=move warp=true extra=[false null]"


def test_the_event_list_in_chromium_writes_json_literals(browser, tmp_path):
    """The list says each event in its game's words (docs/replay.md, Play-by-play); the judge's file shows its
    fields on hovering it (the ``title``), with JSON's literals."""
    store, out = str(tmp_path / "events.sqlite"), tmp_path / "m.html"
    src = ROOT / "examples" / "x610z" / "invalid" / "200.1a-not-in-hand.x610zlog"
    log = tmp_path / src.name  # its cast of a card in no deck list of his (A1-050, of his list, is played as written
    log.write_text(src.read_text(encoding="utf-8").replace('"card": "A1-050"', '"card": "A1-033"'),  # since digest.10)
                   encoding="utf-8")
    env = {"ZX_ANALYTICS": str(tmp_path / "events.duckdb")}
    r = CliRunner().invoke(zx, ["--store", store, "import", "--accept-violations", str(log)], env=env)
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["--store", store, "view", MATCH, "--as", "judge", "-o", str(out)])
    assert r.exit_code == 0, r.output
    browser.get(out.as_uri() + "#e=10")
    lines = [x for x in browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#events li.ev .text'), "
        "function (t) { return t.title; })") if "void" in x]
    assert lines and all("void=true" in x for x in lines), lines
    said = browser.find_element("id", "events").text
    assert "it does nothing" in said and "void" not in said  # (the void cast, in words)
    assert not any(w in x for x in lines for w in ("True", "False", "None")), lines
