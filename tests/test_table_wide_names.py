"""Tables fitted by terminal cells, not characters (QA round 31): a Japanese name without spaces, 16 characters and
32 cells, was taken for a one-word value that fits and kept whole, while the match id, the key, was squeezed to
nothing and the other values cut without a sign (``turns`` 23 shown as ``2``, ``P1`` as ``P``)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from rich.cells import cell_len

from zx_cli.main import zx

NAMES = ["高橋一二三四五六七八九十郎太", "佐々木小次郎左衛門右衛門之介"]
DECKS = ["赤単ドラゴンアグロ改二型最新版", "青白コントロール天使軸完全版"]


def test_matches_with_japanese_one_word_names_keeps_the_match_id_and_cuts_nothing(tmp_path):
    logs = tmp_path / "logs"
    assert CliRunner().invoke(zx, ["simulate", "-n", "2", "--seed", "3", "-o", str(logs)]).exit_code == 0
    for k, path in enumerate(sorted(logs.glob("*.zxlog"))):
        lines = path.read_text("utf-8").splitlines()
        header = json.loads(lines[0])
        header["event"] = "全日本選手権二〇二六年度決勝大会"
        for n, seat in enumerate(("P1", "P2")):
            header["players"][seat]["name"] = NAMES[(k + n) % 2]
            header["players"][seat]["deck_name"] = DECKS[(k + n) % 2]
        lines[0] = json.dumps(header, ensure_ascii=False)
        path.write_text("\n".join(lines) + "\n", "utf-8")
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", str(logs), "--no-analytics"]).exit_code == 0
    rows = list(csv_rows(store))
    for width in (80, 120, 200):
        r = CliRunner(env={"COLUMNS": str(width)}).invoke(zx, ["--store", store, "matches"])
        assert r.exit_code == 0, r.output
        table = [line for line in r.stdout.splitlines() if line[:1] in "┃│"]
        assert table and all(cell_len(line) <= width for line in r.stdout.splitlines()), (width, r.stdout)
        head = [c.strip() for c in table[0].strip("┃").split("┃")]
        assert head[0] == "match", (width, head)
        body = "\n".join(table[1:])
        for row in rows:  # the id and each value shown whole, as CSV gives it
            assert row["match"] in body, (width, body)
            for column in head[1:]:
                assert row[column] in body, (width, column, row[column], body)


def csv_rows(store: str):
    import csv
    import io

    r = CliRunner().invoke(zx, ["--store", store, "matches", "--format", "csv"])
    assert r.exit_code == 0, r.output
    return csv.DictReader(io.StringIO(r.stdout))
