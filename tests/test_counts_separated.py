"""Counts in the messages a user reads are thousands separated, ``1,234``, as most already were (QA rounds 31-32:
``119000 more rows`` under a table cut at 1,000, ``zx sql``'s ``showing the first 1200 rows``). Machine outputs
(``--format json|csv``) keep plain numbers: tests/test_sql_output.py, tests/test_input_hardening.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from zx_cli.output import counted, emit
from zx_events.audit import recount_warning
from zx_events.ledger import LedgerState, Sealed, describe, seal_summary
from zx_events.logformat.reader import MAX_LINE, parse_log
from zx_events.narration import counted as said

ROOT = Path(__file__).resolve().parent.parent


def test_a_cut_table_says_how_many_rows_it_left_out_with_separators(capsys, monkeypatch):
    """``emit``'s note under every table cut at 1,000 rows (zx matches, zx stats, zx import's outcomes)."""
    monkeypatch.delenv("COLUMNS", raising=False)
    emit([{"n": i} for i in range(2234)], "table")
    out, err = capsys.readouterr()
    assert "(the table shows the first 1,000 rows; 1,234 more rows left out: --format csv|json gives every row)" \
        in err, err
    assert out.count("\n") > 1000
    emit([{"n": i} for i in range(2234)], "csv")  # every row, each a plain number
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "2233" and not err


@pytest.mark.parametrize("n, text", [(1, "1 match"), (999, "999 matches"), (1000, "1,000 matches"),
                                     (1234567, "1,234,567 matches")])
def test_counted_separates_thousands(n, text):
    assert counted(n, "match", "matches") == text


def test_the_replays_sentences_separate_thousands():
    """zx_events.narration: a count of cards, and the events a match's seal counts."""
    from zx_events.narration import number

    assert said(1, "card") == "a card" and said(1500, "card") == "1,500 cards"
    assert number(12345) == "12,345" and number(None) == "None" and number(True) == "True"


def test_the_store_seal_and_verify_messages_separate_thousands():
    sealed = Sealed("m1", "00000000-0000-0000-0000-000000000001", 12345, "ab" * 32, 7)
    assert "(entry 7, 12,345 events, head abababababababab)" in describe("deleted", sealed)
    state = LedgerState(True, 1200, "cd" * 32, {str(i): sealed for i in range(2500)})
    assert seal_summary(state).startswith("store seal: 2,500 matches in 1,200 entries, store head cdcdcd")
    assert recount_warning(1000, 1234) == ("1,000 violations were recorded at import, the current rules engine "
                                           "finds 1,234")


def test_a_line_too_long_says_its_length_with_separators():
    header = (ROOT / "examples" / "legal" / "first-turns.zxlog").read_text(encoding="utf-8").splitlines()[0]
    (log,) = parse_log(f"{header}\n" + "x" * (MAX_LINE + 5) + "\n", "big.zxlog")
    assert log.error is not None and \
        "line too long: 1,000,005 characters (at most 1,000,000; docs/match-log.md, Limits)" in str(log.error), \
        log.error
