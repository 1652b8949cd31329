"""zx replay's stack line says what the browser's board says: a trigger's source, each entry's target, the
card's name where the view names it. It named neither a trigger's source nor any target (``P1 trigger``,
``P2 cast A1-035`` where the browser read ``P1 trigger S6 → A3``, ``P2 cast Dispel → A1-030``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("stack-line")
    path = str(folder / "events.sqlite")
    for log in (ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog", ROOT / "tests" / "data" /
                "x610z-void-cast.x610zlog"):
        r = CliRunner().invoke(zx, ["--store", path, "import", "--accept-violations", str(log)],
                               env={"ZX_ANALYTICS": str(folder / "events.duckdb")})
        assert r.exit_code == 0, r.output
    return path


def stack_line(store: str, match: str, event: int, seat: str) -> str:
    r = CliRunner().invoke(zx, ["--store", store, "replay", match, "--event", str(event), "--as", seat],
                           env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return next(x for x in r.stdout.splitlines() if x.startswith("Stack (top last): "))


def test_the_stack_line_names_a_triggers_source_and_its_target(store):
    assert stack_line(store, "x610z-sim-7-0279", 87, "spectator") == "Stack (top last): P1 trigger S6 → A3"


def test_the_stack_line_names_a_casts_card_and_its_target(store):
    line = stack_line(store, "qa-void-cast", 67, "P2")  # line 55: P1 casts Bullseye (A1-030) at S3
    assert line == "Stack (top last): P2 move S3; P1 cast A1-030 Bullseye → S3"


def test_the_stack_line_names_no_card_a_seat_may_not_see_502_3(store):
    assert stack_line(store, "qa-void-cast", 85, "P2") == "Stack (top last): P1 cast ? (refused: it fizzles)"
    assert stack_line(store, "qa-void-cast", 85, "P1") == \
        "Stack (top last): P1 cast A1-024 Storm Caller (refused: it fizzles)"
