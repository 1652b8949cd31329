"""The match page and ``/api/matches/{id}`` agree with ``zx audit``: one violation has one seq on every
surface (docs/audit.md: the stored event that holds its record), in both games; and they show what the
match was checked against at import: the catalog and, for X610Z, the board (name and SHA-256)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
LOGS = {"zx": ROOT / "examples" / "invalid" / "602.1a-sleep-attacker.zxlog",
        "x610z": ROOT / "examples" / "x610z" / "invalid" / "502.5-hand-limit.x610zlog"}


@pytest.fixture(scope="module", params=sorted(LOGS))
def stored(request, tmp_path_factory) -> tuple[str, str, str]:
    store = str(tmp_path_factory.mktemp(request.param) / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", "--accept-violations",
                                str(LOGS[request.param])])
    assert r.exit_code == 0, r.output
    match = json.loads(LOGS[request.param].read_text(encoding="utf-8").splitlines()[0])["match"]
    return store, match, request.param


def audit_json(store: str, match: str) -> dict:
    r = CliRunner().invoke(zx, ["--store", store, "audit", match, "--format", "json"])
    assert r.exit_code == 1, r.output  # (1: it found violations)
    return json.loads(r.stdout.splitlines()[0])


def test_a_violation_has_the_seq_of_its_record_in_the_audit_the_api_and_the_match_page(stored):
    store, match, _ = stored
    audit = [(v["seq"], v["rule"]) for v in audit_json(store, match)["violations"]]
    assert audit
    for judge in (False, True):
        with TestClient(create_app(store, judge=judge)) as client:
            api = [(v["seq"], v["rule"]) for v in client.get(f"/api/matches/{match}").json()["violations"]]
            served = [(v["seq"], v["rule"]) for v in client.get(f"/api/audit/{match}").json()["violations"]]
            page = client.get(f"/matches/{match}").text
        table = page.split('id="violations"', 1)[1].split("</table>", 1)[0]
        rows = [(int(seq), rule) for seq, rule in
                re.findall(r'<tr><td class="num">(\d+)</td>.*?<td>([0-9][0-9a-z.]*)</td>', table)]
        assert api == served == rows == audit, (judge, api, served, rows, audit)


def test_the_match_page_and_api_show_the_catalog_and_board_the_match_was_checked_against(stored):
    store, match, game = stored
    first = CliRunner().invoke(zx, ["--store", store, "replay", match, "--event", "1", "--to", "1", "--format", "json"])
    started = json.loads(first.stdout)["events"][0]["data"]
    with TestClient(create_app(store)) as client:
        detail = client.get(f"/api/matches/{match}").json()
        page = client.get(f"/matches/{match}").text
    kinds = ["catalog", "board"] if game == "x610z" else ["catalog"]
    assert game != "x610z" or re.fullmatch(r"[0-9a-f]{64}", started["board"]["sha256"])
    for kind in kinds:
        assert detail[kind] == started[kind] and detail[kind]["name"], kind
        shown = re.search(rf'<span id="pinned-{kind}">(.*?)</span></span>', page).group(1)
        assert started[kind]["name"] in shown and started[kind]["sha256"] in shown, (kind, shown)
    assert "board" not in detail or game == "x610z"
    assert f"rules {started['rules_version']}" in page
