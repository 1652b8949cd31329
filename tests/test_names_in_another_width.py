"""Names written in another width (Japanese players' half-width katakana ``ﾀﾛｳ`` for ``タロウ``, full-width ``Ｒｅｎ``
for ``Ren``) in the match list's filters and the statistics' errors. The QA report (round 34): ``zx matches
--player タロウ`` found nothing and its hint never named ``ﾀﾛｳ`` (difflib saw no character in common); ``Ren`` did
not find ``Ｒｅｎ``. The list's filters compare in NFKC (hiragana and katakana stay apart); the statistics, which
group names exactly, name the other width first in their error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_analytics.stats import UnknownName
from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("width")
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    logs = []
    for i, (p1, p2) in enumerate((("ﾀﾛｳ", "Ｒｅｎ"), ("あき", "ＵＲ０１デッキ使い"))):
        header = json.loads(lines[0])
        header["match"] = f"width-{i}"
        header["players"]["P1"]["name"], header["players"]["P2"]["name"] = p1, p2
        path = tmp / f"m{i}.zxlog"
        path.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
        logs.append(str(path))
    store = str(tmp / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", *logs])
    assert r.exit_code == 0, r.output
    return store


@pytest.mark.parametrize("typed, found", [("タロウ", ["width-0"]), ("ﾀﾛｳ", ["width-0"]), ("ren", ["width-0"]),
                                          ("ＲＥＮ", ["width-0"]), ("あき", ["width-1"])])
def test_the_match_list_finds_a_name_in_any_width_and_case(store, typed, found):
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--player", typed, "--format", "json"])
    assert r.exit_code == 0, r.output
    assert [m["match"] for m in json.loads(r.stdout)] == found


def test_hiragana_and_katakana_stay_apart(store):
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--player", "アキ"])
    assert r.exit_code == 1 and "no player named 'アキ'" in r.output, r.output


def test_the_statistics_error_names_the_other_width_first():
    e = UnknownName("player", "タロウ", ["Aki", "Ren", "ﾀﾛｳ", "Ｒｅｎ", "ＲＥＮ"])
    assert e.suggestions[0] == "ﾀﾛｳ" and "did you mean 'ﾀﾛｳ'" in str(e)
    assert UnknownName("player", "ren", ["Aki", "Ren", "Ｒｅｎ", "ＲＥＮ"]).suggestions[:3] == ["Ren", "ＲＥＮ", "Ｒｅｎ"]
