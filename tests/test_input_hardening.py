"""Bad bytes, pathological JSON, and the small things a newcomer hit (issue 14 items 2, 3 and 7).

A hostile or broken line costs its own match only: it is a format error at its FILE:LINE, the match
holding it is rejected whole, and every other match (of the file, and of the other files) is read
and stored as usual, on the sequential and the parallel import paths.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.application import MatchService
from zx_events.games.zx.cards import load_catalog, parse_catalog
from zx_events.logformat.reader import LONG_LINE, MAX_DEPTH, MAX_LINE, MAX_MATCH_CHARS, MAX_MATCH_LINES, read_log

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
LINES = LEGAL.read_bytes().splitlines()


def renamed(i: int) -> list[bytes]:
    head = json.loads(LINES[0])
    head["match"] = f"m-{i}"
    return [json.dumps(head).encode(), *LINES[1:]]


def stored(store: Path) -> list[str]:
    svc = MatchService(str(store), create=False)
    try:
        return sorted(r["match"] for r in svc.summaries())
    finally:
        svc.close()


def run(*args: str, input: bytes | None = None):
    return CliRunner().invoke(zx, list(args), input=input)


# ---------------------------------------------------------------------- item 2: bytes that are not UTF-8
@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("where", [5, 0], ids=["record", "header"])
def test_a_bad_byte_rejects_its_match_whole_and_the_others_are_read(tmp_path, workers, where):
    m1, m2, m3 = renamed(1), renamed(2), renamed(3)
    m2[where] = m2[where].replace(b'"P1"', b'"P\xff1"', 1) if b'"P1"' in m2[where] else m2[where] + b" \xff"
    data = b"\n".join(m1 + m2 + m3) + b"\n"
    log = tmp_path / "x.zxlog"
    log.write_bytes(data)
    line = len(m1) + where + 1
    offset = data.index(b"\xff")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(log))
    assert r.exit_code == 1, r.output
    assert f"{log}:{line}: format: not UTF-8: byte 0xff at byte offset {offset}" in r.stderr
    assert "the match is rejected whole" in r.stderr and "Traceback" not in r.output
    assert "2 imported, 0 unchanged, 1 rejected" in r.stderr
    assert stored(tmp_path / "s.sqlite") == ["m-1", "m-3"]  # m-2 is not stored cut short, m-3 is not lost


def test_a_bad_byte_is_reported_by_the_audit_of_the_file(tmp_path):
    m1, m2 = renamed(1), renamed(2)
    m2[3] += b"\xc3"
    log = tmp_path / "x.zxlog"
    log.write_bytes(b"\n".join(m1 + m2) + b"\n")
    logs = read_log(log)
    assert [x.match_id for x in logs] == ["m-1", "m-2"]
    assert logs[0].error is None and logs[1].error.line == len(m1) + 4


# ---------------------------------------------------------------------- item 3: pathological JSON
PATHOLOGICAL = {
    "deep-array": (b'{"do": "end", "by": "P1", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                   f"nested too deep: more than {MAX_DEPTH} levels"),
    "deep-object": (b'{"do": "end", "by": "P1", "x": ' + b'{"a": ' * 50 + b"1" + b"}" * 50 + b"}",
                    f"nested too deep: more than {MAX_DEPTH} levels"),
    "deep-header": (b'{"zxlog": 1, "x": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested too deep"),
    "huge-integer": (b'{"do": "turn", "by": "P1", "turn": ' + b"9" * 5000 + b"}", "number too long"),
    "long-line": (b'{"do": "end", "by": "P1", "note": "' + b"x" * (MAX_LINE + 10) + b'"}', "line too long"),
    # what no stored event holds: refused at its line, not a crash of the whole import at the chain
    "integer-past-64-bits": (b'{"do": "turn", "by": "P1", "turn": 18446744073709551616}',
                             "number out of range: 18446744073709551616 (20 digits"),
    "integer-below-64-bits": (b'{"do": "turn", "by": "P1", "turn": -9223372036854775809}', "number out of range"),
    "float-read-as-integer": (b'{"do": "turn", "by": "P1", "turn": 1e30}', "number out of range: 1000000000000000"),
    "float-past-its-range": (b'{"do": "turn", "by": "P1", "turn": 1e400}', "number out of range: 1e400"),
    "lone-surrogate": (b'{"do": "end", "by": "P1", "note": "a\\ud800b"}', "not a character: \\ud800 is half"),
    "lone-surrogate-key": (b'{"do": "end", "by": "P1", "\\udc00": 1}', "not a character: \\udc00"),
}


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("case", list(PATHOLOGICAL))
def test_pathological_json_is_a_format_error_at_its_line(tmp_path, case, workers):
    line, message = PATHOLOGICAL[case]
    bad = renamed(9)
    bad = bad[:4] + [line] + bad[4:]
    (tmp_path / "bad.zxlog").write_bytes(b"\n".join(bad) + b"\n")
    (tmp_path / "good.zxlog").write_bytes(b"\n".join(renamed(8)) + b"\n")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers,
            str(tmp_path / "bad.zxlog"), str(tmp_path / "good.zxlog"))
    assert r.exit_code == 1, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert f"{tmp_path / 'bad.zxlog'}:5: format: {message}" in r.stderr, r.stderr[-500:]
    assert "Traceback" not in r.output and "RecursionError" not in r.output
    # the valid file beside it is stored (a broken header starts a match of its own: m-9's first lines stand)
    assert stored(tmp_path / "s.sqlite") == (["m-8", "m-9"] if case == "deep-header" else ["m-8"])


KEY = "k" * 5000


@pytest.mark.parametrize("tail, message", [
    (f', "{KEY}": 1, "{KEY}": 2}}', "duplicate key '" + "k" * 197 + "...' in one JSON object"),
    (f', "{KEY}": 1}}', "unknown key '" + "k" * 197 + "...' in a setup record"),
], ids=["duplicate-key", "unknown-key"])
def test_a_long_key_is_echoed_cut_to_200_characters_by_import_and_audit(tmp_path, tail, message):
    """A 5,000-character key given twice in line 2 was echoed whole, three times: zx import printed
    61,505 characters (the message, and a table as wide as it); now it is cut as every echoed value is
    (errors.cut: its first 197 characters and ``...``), at FILE:LINE."""
    lines = LEGAL.read_text(encoding="utf-8").splitlines()
    assert lines[1].endswith("}")
    lines[1] = lines[1][:-1] + tail
    log = tmp_path / "dup.zxlog"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(log))
    assert r.exit_code == 1, r.output[:1000]
    assert f"{log}:2: format: {message}" in r.stderr, r.stderr[:1000]
    short = r.output.replace(str(tmp_path), "T")  # (the temp folder's length is pytest's: longer under xdist)
    assert "k" * 198 not in r.output and len(short) < 2500, len(short)  # (the table in a pipe: every column)
    assert not (tmp_path / "s.sqlite").exists()
    audit = run("audit", str(log))
    assert audit.exit_code == 1 and message in audit.stdout, audit.output[:1000]
    short = audit.output.replace(str(tmp_path), "T")
    assert "k" * 198 not in audit.output and len(short) < 2500, len(short)
    js = run("audit", "--format", "json", str(log))
    (finding,) = json.loads(js.stdout)["violations"]
    assert (finding["line"], finding["message"]) == (2, message)


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one grapheme cluster of 7 characters


@pytest.mark.parametrize("code, echoed", [
    ("xy" + FAMILY * 40, '"xy' + FAMILY * 27 + '..."'),  # a joiner: not str.isprintable, so in JSON's quotes
    ("xy" + "\u3000" * 300, '"xy' + "\u3000" * 195 + '..."'),  # an ideographic space: the same
    ("xy" + "\U0001f468" * 300, "'xy" + "\U0001f468" * 195 + "...'"),
], ids=["zwj-family", "ideographic-space", "emoji"])
def test_an_unknown_card_code_is_echoed_cut_to_200_characters_its_quote_closed(tmp_path, code, echoed):
    """docs/match-log.md, Limits: a value an error echoes is cut to 200 characters ending in ``...``. A code
    with a zero-width joiner (any character ``str.isprintable`` refuses) was written as JSON and then cut to 60
    characters, its closing quote lost, inside a family emoji; now it is cut before it is quoted, after a whole
    grapheme cluster, to 200 characters at most."""
    lines = LEGAL.read_text(encoding="utf-8").splitlines()
    setup = json.loads(lines[1])
    setup["hand"][0] = code
    lines[1] = json.dumps(setup, ensure_ascii=False)
    log = tmp_path / "code.zxlog"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = run("audit", "--format", "json", str(log))
    (finding,) = json.loads(r.stdout)["violations"]
    assert finding["message"].startswith(f"setup.hand item 1: unknown card code {echoed} (U+"), finding["message"][:300]
    assert len(echoed) <= 202


HEADER_CASES = {  # (old, new) in the header of first-turns.zxlog; the error's text
    "round-past-64-bits": (b'"round": 3', b'"round": 18446744073709551616', "number out of range"),
    "copies-past-64-bits": (b'"R01-001": 4', b'"R01-001": 18446744073709551616', "number out of range"),
    # 300,000,000 copies is within 64 bits: built as a deck it took 4.7 GB and 79 s before rule 401 refused it
    "copies-past-the-format-limit": (b'"R01-001": 4', b'"R01-001": 300000000',
                                     "players.P1.deck.R01-001 must be a number of copies (a whole number from 1 to 99"),
    "lone-surrogate-in-a-name": (b'"Aki"', b'"\\ud800"', "not a character: \\ud800"),
}


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("case", list(HEADER_CASES))
def test_a_header_no_event_can_hold_rejects_its_match_and_the_others_are_read(tmp_path, case, workers):
    old, new, message = HEADER_CASES[case]
    bad = renamed(7)
    assert old in bad[0]
    bad[0] = bad[0].replace(old, new, 1)
    (tmp_path / "bad.zxlog").write_bytes(b"\n".join(bad) + b"\n")
    (tmp_path / "good.zxlog").write_bytes(b"\n".join(renamed(8)) + b"\n")
    files = [str(tmp_path / "good.zxlog"), str(tmp_path / "bad.zxlog")]
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, *files)
    assert r.exit_code == 1, r.output
    assert f"{tmp_path / 'bad.zxlog'}:1: format: {message}" in r.stderr, r.stderr[-800:]
    assert "internal error" not in r.output and "Traceback" not in r.output
    assert stored(tmp_path / "s.sqlite") == ["m-8"]
    audit = run("audit", "--format", "csv", *files)  # the audit of the file says the same
    assert audit.exit_code == 1 and f",1,,,,,{message}" in audit.stdout.replace('"', ""), audit.output
    assert audit.stdout.rstrip().endswith(f",format,{tmp_path / 'bad.zxlog'}")  # rule empty, kind format (as the
    # JSON), and its file


def test_an_x610z_deck_of_1e30_copies_is_a_format_error(tmp_path):
    log = ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog"
    lines = log.read_bytes().splitlines()
    head = json.loads(lines[0])
    code = next(iter(head["players"]["P1"]["deck"]))
    lines[0] = lines[0].replace(f'"{code}": {head["players"]["P1"]["deck"][code]}'.encode(), f'"{code}": 1e30'.encode(), 1)
    assert b"1e30" in lines[0]
    (tmp_path / "x.x610zlog").write_bytes(b"\n".join(lines) + b"\n")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(tmp_path / "x.x610zlog"))
    assert r.exit_code == 1 and f"{tmp_path / 'x.x610zlog'}:1: format: number out of range" in r.stderr, r.output


def test_the_limits_are_documented():
    doc = (ROOT / "docs" / "match-log.md").read_text(encoding="utf-8")
    limits = doc[doc.index("## Limits"):doc.index("## Card catalogs")]
    assert f"{MAX_LINE:,}" in limits and f"{MAX_DEPTH} levels" in limits and "4,300 digits" in limits
    assert "2\\*\\*64-1" in limits and "surrogate" in limits and "at most 500 codes, each at most 99 copies" in limits
    assert f"{MAX_MATCH_LINES:,} lines" in limits and f"{MAX_MATCH_CHARS >> 20} MiB" in limits


PASS = b'{"do": "pass", "by": "P1"}'
TOO_LONG = {
    "lines": ([PASS] * (MAX_MATCH_LINES + 10), f"more than {MAX_MATCH_LINES:,} lines"),
    "characters": ([b'{"do": "end", "by": "P1", "note": "' + b"x" * 900_000 + b'"}'] * 10,
                   f"more than {MAX_MATCH_CHARS >> 20} MiB of lines"),
}


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("case", list(TOO_LONG))
def test_a_match_past_the_size_limits_is_rejected_at_its_header(tmp_path, case, workers):
    """A hostile match of millions of lines used to be read whole (54 MB: 9.3 GB of memory, 31 s,
    then rejected for its records); past the limits it is rejected at its header, its lines dropped
    as they are read, and the match after it in the same file is imported."""
    extra, message = TOO_LONG[case]
    bad = renamed(9)
    log = tmp_path / "big.zxlog"
    log.write_bytes(b"\n".join([*bad[:3], *extra, *bad[3:], *renamed(8)]) + b"\n")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(log))
    assert r.exit_code == 1, r.output
    assert f"{log}:1: format: match too long: {message} (docs/match-log.md, Limits): the match is rejected whole" \
        in r.stderr, r.stderr[-500:]
    assert "Traceback" not in r.output
    assert stored(tmp_path / "s.sqlite") == ["m-8"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_line_past_the_reading_limit_is_dropped_as_it_is_read(tmp_path, workers):
    """A line that runs past LONG_LINE bytes (twelve million characters here: past a block read and the
    limit) is dropped as it is read, an error of its match at its line, and the match after it is
    imported; a file of zeros (no newline at all) is one such line."""
    bad = renamed(9)
    log = tmp_path / "long.zxlog"
    log.write_bytes(b"\n".join([*bad[:3], b'{"do": "end", "by": "P1", "note": "' + b"x" * (3 * LONG_LINE) + b'"}',
                                *bad[3:], *renamed(8)]) + b"\n")
    zeros = tmp_path / "zeros.zxlog"
    zeros.write_bytes(b"\0" * (3 * LONG_LINE))
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(log), str(zeros))
    assert r.exit_code == 1, r.output
    for where in (f"{log}:4", f"{zeros}:1"):
        assert f"{where}: format: line too long: more than {LONG_LINE:,} bytes (at most {MAX_LINE:,} characters; " \
               f"docs/match-log.md, Limits)" in r.stderr, r.stderr[-800:]
    assert "Traceback" not in r.output
    assert stored(tmp_path / "s.sqlite") == ["m-8"]


def _peak_mib(tmp_path: Path, log: Path) -> float:
    """Peak memory of ``zx import LOG`` in a process of its own (its own high-water mark, VmHWM)."""
    code = ("import sys\nfrom zx_cli.main import main\n"
            "sys.argv = ['zx', '--store', sys.argv[1], 'import', '--no-analytics', '--workers', '1', sys.argv[2]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM')), "
            "file=sys.stderr)\n")  # its own high-water mark (ru_maxrss keeps a forking parent's)
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s.sqlite"), str(log)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "too long" in p.stderr, p.stderr[-500:]
    return int(p.stderr.strip().splitlines()[-1]) / 1024


def test_a_file_without_newlines_costs_no_more_memory_than_a_block(tmp_path):
    """120 MB of zeros: read whole before, about three times its size in memory (and an endless pipe
    without end); now dropped as it is read."""
    log = tmp_path / "zeros.zxlog"
    with open(log, "wb") as f:
        for _ in range(120):
            f.write(b"\0" * 1_000_000)
    peak = _peak_mib(tmp_path, log)
    assert peak < 150, f"peak RSS {peak:.0f} MiB"


def test_a_hostile_match_costs_no_more_memory_than_the_limit(tmp_path):
    """Two million lines of one match (54 MB): the import's peak memory stays that of a small import."""
    bad = renamed(9)
    log = tmp_path / "huge.zxlog"
    with open(log, "wb") as f:
        f.write(bad[0] + b"\n")
        f.write((PASS + b"\n") * 2_000_000)
    peak = _peak_mib(tmp_path, log)
    assert peak < 300, f"peak RSS {peak:.0f} MiB"


# ---------------------------------------------------------------------- item 7: small things
def test_version(tmp_path):
    r = run("--version")
    assert r.exit_code == 0 and r.output.strip() == f"zx {version('zx-events')}"


def test_import_a_folder(tmp_path):
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(ROOT / "examples" / "legal"))
    assert r.exit_code == 0, r.output
    assert len(stored(tmp_path / "s.sqlite")) == len(list((ROOT / "examples" / "legal").glob("*.zxlog")))
    (tmp_path / "empty").mkdir()
    r = run("--store", str(tmp_path / "s.sqlite"), "import", str(tmp_path / "empty"))
    assert r.exit_code == 1 and "a folder with no *.zxlog file in it" in r.output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_what_is_not_a_regular_file_is_rejected_never_opened_and_the_other_logs_imported(tmp_path, workers):
    """A FIFO in the folder was left out without a word, a link to /dev/zero hung the whole import (nothing
    imported). Each non-regular file, found in a folder or named, is a rejected log ("not a regular file"),
    never opened to read, and the other logs are imported. (A subprocess: a regression hangs, not the suite.)"""
    import socket

    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.zxlog").write_bytes(b"\n".join(renamed(1)) + b"\n")
    os.mkfifo(folder / "pipe.zxlog")
    (folder / "zero.zxlog").symlink_to("/dev/zero")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(folder / "s.zxlog"))
    except OSError:  # (a path too long for a socket's address)
        sock.close()
        sock = None
    other = tmp_path / "other.zxlog"
    os.mkfifo(other)
    code = "import sys\nfrom zx_cli.main import main\nsys.argv = ['zx', *sys.argv[1:]]\nmain()\n"
    try:
        p = subprocess.run([sys.executable, "-c", code, "--store", str(tmp_path / "s.sqlite"), "import",
                            "--no-analytics", "--workers", workers, str(folder), str(other)],
                           capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"})
    finally:
        if sock is not None:
            sock.close()
    kinds = {"pipe.zxlog": "a named pipe (FIFO)", "zero.zxlog": "a device", **({"s.zxlog": "a socket"} if sock else {})}
    for name, what in kinds.items():
        assert f"not a regular file: {folder / name} is {what}; a log is a file" in p.stdout + p.stderr, p.stdout
    assert f"not a regular file: {other} is a named pipe (FIFO)" in p.stdout + p.stderr
    assert p.returncode == 1 and f"1 imported, 0 unchanged, {len(kinds) + 1} rejected" in p.stderr, p.stderr
    assert stored(tmp_path / "s.sqlite") == ["m-1"]


def test_a_log_in_a_folder_that_cannot_be_read_is_reported_not_skipped(tmp_path):
    """A link to nothing named like a log was skipped without a word (exit 0, every match said imported);
    it is a rejected log now. A subfolder that cannot be read is an error before anything is done."""
    import shutil
    import tempfile

    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.zxlog").write_bytes(b"\n".join(renamed(1)) + b"\n")
    (folder / "gone.zxlog").symlink_to(tmp_path / "no-such.zxlog")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(folder))
    assert r.exit_code == 1 and f"{folder / 'gone.zxlog'}: format: log file not found" in r.stderr, r.output
    assert "1 imported, 0 unchanged, 1 rejected" in r.stderr and stored(tmp_path / "s.sqlite") == ["m-1"]

    # a subfolder this user may not read (as root every folder can be read: the check runs as nobody)
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv is None:
        pytest.skip("run as root without setpriv: no folder is unreadable")
    shared = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        shared.chmod(0o777)
        (shared / "ok.zxlog").write_bytes(b"\n".join(renamed(2)) + b"\n")
        (shared / "locked").mkdir(mode=0o700)
        (shared / "locked" / "b.zxlog").write_bytes(b"\n".join(renamed(3)) + b"\n")
        if os.geteuid() != 0:
            (shared / "locked").chmod(0)
        code = "import sys\nfrom zx_cli.main import main\nsys.argv = ['zx', *sys.argv[1:]]\nmain()\n"
        cmd = [sys.executable, "-c", code, "--store", str(shared / "n.sqlite"), "import", "--no-analytics", str(shared)]
        if os.geteuid() == 0:
            cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
            probe = subprocess.run([*cmd[:4], sys.executable, "-c", "import zx_cli.main"], capture_output=True,
                                   timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
            if probe.returncode != 0:  # (a clone in a private folder, as CI's: nobody may not run zx there)
                pytest.skip("nobody cannot run zx from this checkout")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert p.returncode == 1 and f"{shared / 'locked'}: a folder that cannot be read" in p.stderr, p.stderr[-600:]
        assert not (shared / "n.sqlite").exists()  # nothing was imported, no store made
    finally:
        (shared / "locked").chmod(0o700)
        shutil.rmtree(shared)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_import_from_standard_input(tmp_path, workers):
    data = b"\n".join(renamed(1) + renamed(2)) + b"\n"
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, "-", input=data)
    assert r.exit_code == 0, r.output
    assert stored(tmp_path / "s.sqlite") == ["m-1", "m-2"]
    r = run("--store", str(tmp_path / "t.sqlite"), "import", "--no-analytics", "-", input=data.replace(b'"P2"', b'P2', 1))
    assert r.exit_code == 1 and "<stdin>:" in r.stderr


@pytest.mark.parametrize("text", ["", "\n\n  \n", "\ufeff"], ids=["empty", "blank", "byte-order-mark"])
def test_an_empty_log_is_an_error_naming_the_file(tmp_path, text):
    """A file of one UTF-8 byte order mark (what an editor saves for an empty "UTF-8 with BOM" file)
    was read as a log of no match: nothing imported, exit 0."""
    log = tmp_path / "empty.zxlog"
    log.write_text(text, encoding="utf-8")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(log))
    assert r.exit_code == 1
    assert f"{log}: format: {log} is empty: no match in it" in r.stderr
    r = run("--store", str(tmp_path / "s.sqlite"), "audit", str(log))
    assert r.exit_code == 1 and f"{log} is empty" in r.output


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("stray", ['"zxlog"', '["x610zlog", 1]', '{"do": "pass", "by": "P1"}{"zxlog": 1}',
                                   '{"do": "pass", "by": "P1", "zxlog": 1}', '{"\\u0064o": "pass", "x610zlog": 1}'],
                         ids=["string", "array", "two-objects", "record-with-a-format-key", "escaped-do"])
def test_a_stray_line_naming_a_format_key_rejects_its_match_whole(tmp_path, stray, workers):
    """A line of a match that is no object, or two objects the second a header, was taken for the header of a
    new match: the match it was in was stored cut short at it (its later records, and their violations,
    never read), and its whole log was then refused as different content. It is that match's malformed
    line: the match is rejected whole, nothing of it is stored, and the whole log imports afterwards. So is an
    action record that holds a format key too (QA round 32, fuzz: its match's first part was stored, and the line
    was said to be a header with an unknown key 'do')."""
    log = tmp_path / "m.zxlog"
    log.write_bytes(b"\n".join([*LINES[:5], stray.encode(), *LINES[5:]]) + b"\n")
    store = str(tmp_path / "s.sqlite")
    r = run("--store", store, "import", "--no-analytics", "--workers", workers, str(log))
    assert r.exit_code == 1 and f"{log}:6: format: " in r.stderr, r.output
    assert "imported" not in r.stdout.replace("0 imported", "")
    assert not (tmp_path / "s.sqlite").exists() or stored(tmp_path / "s.sqlite") == []
    if "}{" not in stray and ("do" in stray or "0064o" in stray):  # an action record holding a format key
        assert f"{log}:6: format: an action record (\"do\") that also holds the format key" in r.stderr, r.stderr
        assert "unknown key" not in r.stderr
        audit = run("audit", str(log), "--format", "csv")
        assert audit.exit_code == 1 and audit.stdout.count(',6,,,,,"an action record') == 2, audit.stdout
    r = run("--store", store, "import", "--no-analytics", "--workers", workers, str(LEGAL))
    assert r.exit_code == 0, r.output
    assert stored(tmp_path / "s.sqlite") == ["hand-first-turns-001"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_two_logs_joined_without_a_newline_reject_the_match_whose_last_record_shares_the_line(tmp_path, workers):
    """``cat a.zxlog b.zxlog`` where ``a`` has no final newline: a's last record and b's header on one line.
    a was stored without that record (its outcome lost, for good: the whole log was then refused as
    different content); now it is rejected, the line named, and so is b (its header broken), and the
    third match, on its own lines, is stored."""
    a = b"\n".join(renamed(1))
    data = a + b"\n".join(renamed(2)) + b"\n" + b"\n".join(renamed(3)) + b"\n"
    joined = len(renamed(1))  # the line a's last record and b's header share
    log = tmp_path / "joined.zxlog"
    log.write_bytes(data)
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(log))
    assert r.exit_code == 1, r.output
    assert f"{log}:{joined}: format: bad JSON: Extra data" in r.stderr
    assert "two logs joined without a newline between them?" in r.stderr
    assert stored(tmp_path / "s.sqlite") == ["m-3"]
    r = run("--store", str(tmp_path / "s.sqlite"), "audit", str(log))
    assert r.exit_code == 1 and "no rule violations and 2 malformed logs in 2 matches" in r.output, r.output
    assert "m-1" in r.output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_header_written_twice_is_a_finding_and_the_match_is_read_from_the_second(tmp_path, workers):
    """QA round 32 (fuzz): the header line twice (a copy-paste slip) stored the first as a match of no record, and
    the match itself, from the second, was refused as different content, for good; `zx audit` found nothing."""
    log = tmp_path / "twice.zxlog"
    log.write_bytes(b"\n".join([LINES[0], *LINES]) + b"\n")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(log),
            "--format", "csv")
    assert r.exit_code == 1, r.output
    assert f"{log}:1: format: a header with no record after it, then the same match's header again at line 2" \
        in r.stderr, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [(x["status"], x["events"]) for x in rows] == [("rejected", "0"), ("imported", "32")], rows
    assert stored(tmp_path / "s.sqlite") == ["hand-first-turns-001"]
    audit = run("audit", str(log), "--format", "csv")
    assert audit.exit_code == 1 and ',1,,,,,"a header with no record after it' in audit.stdout, audit.stdout


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("accept", [False, True], ids=["strict", "accept-violations"])
def test_two_matches_of_one_file_with_one_id_the_second_is_rejected_naming_the_first(tmp_path, workers, accept):
    """QA round 32 (fuzz): a broken copy of a match, then the whole match, in one file under one id: a strict
    import stored the second, --accept-violations the first (and refused the second as different content);
    which one was stored hung on the flag. The second is now an error of the file naming the first's line, in
    both, and in `zx audit`; the first is read as usual (an identical copy is "unchanged", as in another file)."""
    broken = [*LINES[:13], *LINES[14:]]  # a record left out: 603.1b at line 14, a finding
    log = tmp_path / "two.zxlog"
    log.write_bytes(b"\n".join([*broken, *LINES, *broken]) + b"\n")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(log),
            "--format", "csv", *(["--accept-violations"] if accept else []))
    assert r.exit_code == 1, r.output
    second = len(broken) + 1
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [x["status"] for x in rows] == (["imported", "rejected", "unchanged"] if accept else
                                           ["rejected", "rejected", "rejected"]), rows  # (the third: the first again)
    assert rows[1]["source"] == f"{log}:{second}" and rows[1]["error"].startswith(
        "match id 'hand-first-turns-001' is the id of the match at line 1 of this file too, with other records")
    assert (stored(tmp_path / "s.sqlite") == ["hand-first-turns-001"]) if accept else \
        not (tmp_path / "s.sqlite").exists()
    audit = run("audit", str(log), "--format", "csv")
    assert audit.exit_code == 1 and f",{second},,,,,\"match id 'hand-first-turns-001' is the id" in audit.stdout, \
        audit.stdout


# two legal matches of each game, the first before the second in one file
PAIRS = {
    "zx": (LEGAL, ROOT / "examples" / "legal" / "rules-fidelity.zxlog", b"zxlog"),
    "x610z": (ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog",
              ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog", b"x610zlog"),
}


def _escaped(key: bytes) -> bytes:
    """``key`` with its first letter and its ``l`` written as ``\\u`` escapes: ``\\u007ax\\u006Cog``."""
    return b"\\u%04x" % key[0] + key[1:-3] + b"\\u%04X" % key[-3] + key[-2:]


SPELLINGS = {  # the second match's header, its format key written another way: the same JSON object
    "escaped": lambda head, key: head.replace(b'{"%s": 1, ' % key, b'{"%s": 1, ' % _escaped(key), 1),
    "last": lambda head, key: head.replace(b'{"%s": 1, ' % key, b"{", 1)[:-1] + b', "%s": 1}' % key,
    "spaced": lambda head, key: head.replace(b'{"%s": 1, ' % key, b'{ "%s" : 1 , ' % key, 1),
    "byte-order-mark-then-last": lambda head, key: b"\xef\xbb\xbf" + SPELLINGS["last"](head, key),
    "escaped-last": lambda head, key: SPELLINGS["last"](head, key).replace(b'"%s"' % key, b'"%s"' % _escaped(key)),
}
DAMAGES = {  # the second match made bad; (its lines, the error's line in it, the error's text)
    "bad-byte": (lambda lines: [*lines[:5], lines[5][:-1] + b', "note": "caf\xe9"}', *lines[6:]], 6,
                 "not UTF-8: byte 0xe9 at byte offset"),
    "too-long": (lambda lines: [*lines, *[b""] * MAX_MATCH_LINES], 1,
                 f"match too long: more than {MAX_MATCH_LINES:,} lines (docs/match-log.md, Limits)"),
}


@pytest.mark.parametrize("game", list(PAIRS))
@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_header_however_its_format_key_is_written_starts_a_match_of_its_own(tmp_path, game, damage, spelling):
    """The file was split into matches where the literal ``"zxlog"`` (``"x610zlog"``) was, so the header
    of a second match written ``{"\\u007axlog": 1, ...}`` (or after a byte order mark, its key last) was
    no cut: the two matches were one piece, and the second's bad byte or length rejected the first,
    legal, match too, at the second's line (or at the first's header, the second then not reported at
    all). A header is an object with a format key, however written: the first match is imported, the
    second rejected at a line of its own; the audit of the file says the same."""
    first_log, second_log, key = PAIRS[game]
    first = first_log.read_bytes().splitlines()
    second = second_log.read_bytes().splitlines()
    second[0] = SPELLINGS[spelling](second[0], key)
    assert json.loads(second[0].decode("utf-8-sig"))[key.decode()] == 1  # the same header, as JSON reads it
    damage_lines, at, message = DAMAGES[damage]
    log = tmp_path / f"two.{key.decode()}"
    log.write_bytes(b"\n".join([*first, *damage_lines(second)]) + b"\n")
    first_id, second_id = (json.loads(x[0].decode("utf-8-sig"))["match"] for x in (first, second))
    line = len(first) + at

    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", "1", "--format", "csv",
            str(log))
    assert r.exit_code == 1, r.output
    rows = {row["match"]: row for row in csv.DictReader(io.StringIO(r.stdout))}
    assert set(rows) == {first_id, second_id}, r.stdout
    assert rows[first_id]["status"] == "imported", rows[first_id]
    assert (rows[second_id]["status"], rows[second_id]["source"]) == ("rejected", f"{log}:{line}")
    assert rows[second_id]["error"].startswith(message), rows[second_id]
    assert stored(tmp_path / "s.sqlite") == [first_id]

    audit = run("audit", "--format", "json", str(log))
    assert audit.exit_code == 1, audit.output
    found = {x["match"]: x for x in map(json.loads, audit.stdout.splitlines())}
    assert found[first_id]["ok"] is True and found[first_id]["violations"] == []
    [violation] = found[second_id]["violations"]
    assert (violation["line"], violation["kind"]) == (line, "format") and violation["message"].startswith(message)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_header_past_a_limit_with_its_format_key_last_rejects_its_own_match_only(tmp_path, workers):
    """A header with an integer of 5,000 digits and its format key after it was taken for a broken record
    naming a format key further on (two logs joined without a newline?): the match before it was
    rejected too. It is a header past a limit: a match of its own, rejected at its line."""
    second = renamed(2)
    second[0] = SPELLINGS["last"](second[0], b"zxlog").replace(b'"round": 3', b'"round": 1' + b"0" * 5000, 1)
    log = tmp_path / "x.zxlog"
    log.write_bytes(b"\n".join([*renamed(1), *second, *renamed(3)]) + b"\n")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(log))
    assert r.exit_code == 1, r.output
    assert f"{log}:{len(LINES) + 1}: format: number too long" in r.stderr and "joined" not in r.stderr, r.stderr
    assert stored(tmp_path / "s.sqlite") == ["m-1", "m-3"]


def test_a_truncated_line_reads_well(tmp_path):
    log = tmp_path / "t.zxlog"
    log.write_bytes(LEGAL.read_bytes()[:-40])
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(log))
    assert r.exit_code == 1
    assert "truncated file: the last line is incomplete JSON (Unterminated string starting at column" in r.stderr
    assert "at at" not in r.stderr


@pytest.fixture
def one_stored(tmp_path):
    store = tmp_path / "s.sqlite"
    assert run("--store", str(store), "import", "--no-analytics", str(LEGAL)).exit_code == 0
    return store


def test_a_bundle_into_a_missing_folder_is_an_error(one_stored, tmp_path):
    r = run("--store", str(one_stored), "audit", "hand-first-turns-001", "--bundle", str(tmp_path / "no" / "b.zip"))
    assert r.exit_code == 1 and "the folder" in r.output and "does not exist" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", [["audit", "hand-first-turns-001", "--bundle"], ["view", "hand-first-turns-001", "-o"],
                                     ["report", "--min-games", "1", "-o"]], ids=["bundle", "view", "report"])
def test_a_written_file_is_a_regular_file_never_a_folder_nor_a_device(one_stored, tmp_path, command, monkeypatch):
    """``--bundle out/`` wrote a file named ``out``; ``-o FIFO --force`` (or ``-o /dev/full --force``)
    replaced the FIFO or the device with a file; ``-o -`` (stdout, by the usual convention) wrote a file
    named ``-`` in the current folder. Each is refused before any work, --force or not, and nothing is made."""
    monkeypatch.chdir(tmp_path)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    before = sorted(p.name for p in tmp_path.iterdir())
    for target, why in ((f"{tmp_path / 'out'}/", "names a folder (it ends with /)"),
                        (str(pipe), "is not a regular file"),
                        ("-", "- would be a file named '-' here: these commands write a file, not stdout")):  # (never a real device here: run as root, a
        # regression would replace it)
        for force in ([], ["--force"]):
            r = run("--store", str(one_stored), *command, target, *force)
            assert r.exit_code == 2 and why in r.output, (target, r.output)
    assert sorted(p.name for p in tmp_path.iterdir()) == before and pipe.is_fifo()


def test_a_bundle_never_replaces_a_file_unless_forced(one_stored, tmp_path):
    target = tmp_path / "b.zip"
    target.write_bytes(b"keep me")
    r = run("--store", str(one_stored), "audit", "hand-first-turns-001", "--bundle", str(target))
    assert r.exit_code == 1 and "already exists: give another name, or --force" in r.output
    assert target.read_bytes() == b"keep me"
    r = run("--store", str(one_stored), "audit", "hand-first-turns-001", "--bundle", str(target), "--force")
    assert r.exit_code == 0 and target.read_bytes()[:2] == b"PK"


def test_no_output_ever_writes_over_a_file_the_command_reads(tmp_path):
    """``zx view MATCH -o s.sqlite --force`` replaced the store with the page (its -wal and -shm gone too),
    ``audit --bundle s.sqlite --force`` with a zip, ``report -o s.duckdb --force`` the analytics file with
    HTML (and ``view``/``audit --bundle`` onto it, after the first fix), and ``export --parquet DIR --force`` deleted an analytics file kept in DIR/matches/. Each is refused,
    --force or not, by name, through a link or a hard link, and nothing is written."""
    store = tmp_path / "s.sqlite"
    assert run("--store", str(store), "import", str(LEGAL)).exit_code == 0
    log = tmp_path / "first-turns.zxlog"
    log.write_bytes(LEGAL.read_bytes())
    (tmp_path / "link.html").symlink_to(store)
    os.link(store, tmp_path / "hard.html")
    (tmp_path / "out" / "matches").mkdir(parents=True)
    (tmp_path / "out" / "matches" / "a.duckdb").write_bytes((tmp_path / "s.duckdb").read_bytes())
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    match = "hand-first-turns-001"
    for args in (["view", match, "-o", str(store)], ["view", match, "-o", str(tmp_path / "link.html")],
                 ["view", match, "-o", str(tmp_path / "hard.html")], ["view", match, "-o", f"{store}-wal"],
                 ["audit", match, "--bundle", str(store)], ["audit", str(log), "--bundle", str(log)],
                 ["view", match, "-o", str(tmp_path / "s.duckdb")], ["audit", match, "--bundle", str(tmp_path / "s.duckdb")],
                 ["report", "--min-games", "1", "-o", str(tmp_path / "s.duckdb")],
                 ["report", "--min-games", "1", "-o", f"{store}-shm"],
                 ["export", "--parquet", str(tmp_path / "out"), "--analytics", str(tmp_path / "out/matches/a.duckdb")]):
        r = run("--store", str(store), *args, "--force")
        assert r.exit_code == 1 and "zx never writes over a file the command reads, --force or not" in r.output, (args, r.output)
        assert "nothing was written" in r.output and "Traceback" not in r.output
        assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before, args
    r = run("--store", str(store), "view", match, "-o", str(tmp_path / "link.html"))
    assert "is the store" in r.output and (tmp_path / "link.html").is_symlink()
    r = run("--store", str(store), "report", "--min-games", "1", "-o", str(tmp_path / "s.duckdb"))
    assert f"-o {tmp_path / 's.duckdb'} is the analytics file" in r.output
    assert run("--store", str(store), "verify").exit_code == 0


@pytest.mark.parametrize("game, name", [("zx", "sim-0-{:04d}.zxlog"), ("x610z", "x610z-sim-0-{:04d}.x610zlog")])
def test_simulate_replaces_a_link_planted_in_its_folder_never_writes_through_it(one_stored, tmp_path, game, name):
    """``zx simulate --out DIR`` wrote through links planted in DIR under its files' names: a file outside DIR was
    overwritten with a log (and one was created there), a copy of the store turned into a log. The link is
    replaced by the log; what it named is untouched."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (elsewhere / "precious.txt").write_text("precious data\n")
    copy = tmp_path / "store-copy.sqlite"
    copy.write_bytes(one_stored.read_bytes())
    (out / name.format(1)).symlink_to(elsewhere / "precious.txt")
    (out / name.format(2)).symlink_to(elsewhere / "created.txt")
    (out / name.format(3)).symlink_to(copy)
    r = run("simulate", "--game", game, "-n", "3", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert (elsewhere / "precious.txt").read_text() == "precious data\n"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["precious.txt"]
    assert copy.read_bytes() == one_stored.read_bytes()
    for k in (1, 2, 3):
        written = out / name.format(k)
        assert not written.is_symlink() and written.is_file() and written.read_text().startswith("{")
    assert sorted(p.name for p in out.iterdir()) == [name.format(k) for k in (1, 2, 3)]  # (no temporary file left)


def test_simulate_never_writes_over_the_store_or_the_analytics_file(one_stored, tmp_path):
    """A name of ``zx simulate``'s files that is the store (a link or a hard link to it) or its analytics file is
    refused: replaced, the store would be lost under that name."""
    out = tmp_path / "out"
    out.mkdir()
    analytics = tmp_path / "s.duckdb"
    analytics.write_bytes(b"analytics")
    before = one_stored.read_bytes()
    for plant in (lambda p: p.symlink_to(one_stored), lambda p: os.link(one_stored, p),
                  lambda p: p.symlink_to(analytics)):
        target = out / "sim-0-0001.zxlog"
        plant(target)
        r = run("--store", str(one_stored), "simulate", "-n", "1", "--out", str(out))
        assert r.exit_code == 1 and f"--out {out}: {target} is the " in r.output, r.output
        assert "zx never writes over the store or the analytics file; give another folder (0 files written" \
            in r.output and "Traceback" not in r.output
        assert one_stored.read_bytes() == before and analytics.read_bytes() == b"analytics"
        assert os.path.lexists(target) and sorted(p.name for p in out.iterdir()) == ["sim-0-0001.zxlog"]
        target.unlink()


def test_the_audit_of_an_altered_log_says_why_on_stdout(one_stored, tmp_path):
    lines = LEGAL.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[-1])
    rec["note"] = "edited"
    lines[-1] = json.dumps(rec)
    (tmp_path / "alt.zxlog").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = run("--store", str(one_stored), "audit", str(tmp_path / "alt.zxlog"), "--format", "csv")
    assert r.exit_code == 1
    (row,) = list(csv.DictReader(io.StringIO(r.stdout)))
    assert (row["match"], row["rule"]) == ("hand-first-turns-001", "integrity")
    assert row["message"].startswith("differs: the store holds hand-first-turns-001 with other content")
    r = run("--store", str(one_stored), "audit", str(tmp_path / "alt.zxlog"))
    assert "1 failing integrity and no rule violations in 1 match" in r.stdout and "0 rule" not in r.stdout


def test_the_test_command_shows_its_summary_line():
    """The README's command and .ci/run's are the same, and pyproject adds no second -q."""
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"].get("addopts", "")
    assert "-q" not in shlex.split(addopts)
    ci = (ROOT / ".ci" / "run").read_text()
    cmd = re.search(r"TEST_CMD=\((.*?)\)", ci).group(1)
    assert cmd in (ROOT / "README.md").read_text()


def test_docs_use_codes_of_the_shipped_catalog_and_document_its_format():
    catalog = load_catalog("sample")
    doc = (ROOT / "docs" / "match-log.md").read_text(encoding="utf-8")
    codes = set(re.findall(r'"([A-Z]{1,2}[0-9]{2}-[0-9]{3}|EX-[A-Z][0-9]{2}|PL-[0-9]{3})"', doc))
    assert codes and codes <= set(catalog.cards), sorted(codes - set(catalog.cards))
    section = doc[doc.index("## Card catalogs (CSV)"):doc.index("## How errors are reported")]
    example = section.split("```")[3].strip()
    parsed = parse_catalog(example + "\n", name="doc", source="docs/match-log.md")
    for code, card in parsed.cards.items():  # the example rows are the shipped catalog's own
        assert card == catalog.cards[code], code


@pytest.mark.parametrize("game,row,old,new,message", [
    ("zx", "R01-010,", ",2000,", ",100000000000000000000000000000,",
     "R01-010: power must be a whole number of at most 9 digits or empty"),
    ("x610z", "A1-001,", ",0,10,1,0,", ",0,10000000000000000000000,1,0,",
     "A1-001: defense must be a whole number of at most 9 digits or empty"),
])
def test_a_catalog_number_no_event_can_hold_is_an_error_at_its_line(tmp_path, game, row, old, new, message):
    """A catalog's numbers reach stored events (powers, stats: 64-bit integers); a power of 10**29
    stopped the import with an internal error at the digest chain."""
    shipped = ROOT / "zx_events" / "games" / game / "catalogs" / ("sample.csv" if game == "zx" else "x610z-sample.csv")
    lines = shipped.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(row))
    assert old in lines[at]
    lines[at] = lines[at].replace(old, new, 1)
    cat = tmp_path / "big.csv"
    cat.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = LEGAL if game == "zx" else ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog"
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--catalog", str(cat), str(log))
    assert r.exit_code == 1 and f"{cat}:{at + 1}: format: {message}" in r.stderr, r.output
    assert "internal error" not in r.output and not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize("command", ["import", "audit"])
@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_a_catalog_file_past_its_size_limit_is_refused_before_it_is_read(tmp_path, game, command):
    """A 300 MB catalog file was read whole (4 GB at its peak) before the CSV reader refused a field; a board
    file is refused over 1 MiB before it is read, and a catalog file now over 16 MiB (a sparse file here)."""
    from zx_events.games.base import MAX_CATALOG

    shipped = ROOT / "zx_events" / "games" / game / "catalogs" / ("sample.csv" if game == "zx" else "x610z-sample.csv")
    cat = tmp_path / "big.csv"
    with open(cat, "wb") as f:
        f.write(shipped.read_bytes())
        f.truncate(MAX_CATALOG + 1)
    log = LEGAL if game == "zx" else ROOT / "examples" / "x610z" / "legal" / "concession.x610zlog"
    args = ["import", "--no-analytics"] if command == "import" else ["audit"]
    r = run("--store", str(tmp_path / "s.sqlite"), *args, "--catalog", str(cat), str(log))
    assert r.exit_code == 1 and (f"catalog file too big: {MAX_CATALOG + 1:,} bytes (a catalog file has at most 16 MiB, "
                                 f"16,777,216 bytes; the shipped ones have under 10 KB: docs/match-log.md, Limits); "
                                 f"nothing of it was read") in r.output, r.output
    assert "Traceback" not in r.output and not (tmp_path / "s.sqlite").exists()
    assert shipped.stat().st_size < MAX_CATALOG // 1000
    doc = (ROOT / "docs" / "match-log.md").read_text(encoding="utf-8")
    assert "catalog file too big" in doc[doc.index("## Limits"):doc.index("## Card catalogs")]


@pytest.mark.parametrize("column", ["restriction", "attack", "defense", "speed", "range"])
def test_a_negative_x610z_catalog_number_is_called_negative_as_in_zx(tmp_path, column):
    """An X610Z catalog's -3 was "not a whole number of at most 9 digits"; the Z/X catalog says
    "must not be negative, got -1500": both games say it the same way, for every numeric field."""
    from zx_events.games.x610z.cards import HEADER, CatalogError, parse_catalog as parse_x610z
    shipped = ROOT / "zx_events" / "games" / "x610z" / "catalogs" / "x610z-sample.csv"
    rows = list(csv.reader(io.StringIO(shipped.read_text(encoding="utf-8"))))
    at = next(i for i, row in enumerate(rows) if row[0] == "A1-020")
    rows[at][HEADER.index(column)] = "-3"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    with pytest.raises(CatalogError) as e:
        parse_x610z(out.getvalue(), name="neg", source="neg.csv")
    assert f"neg.csv:{at + 1}: format: A1-020: {column} must not be negative, got -3" in str(e.value), str(e.value)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_log_that_stops_before_the_result_is_stored_with_a_note(tmp_path, workers):
    """A log cut at a line boundary (``cat log | zx import -`` whose writer died) is a legal match that
    stops: it was stored without a word, and its complete log, later, is refused for good as different
    content. The import says which matches it stored without a result; a finished match gets no note."""
    won = ROOT / "examples" / "legal" / "range-attacks-win-by-life.zxlog"
    lines = won.read_bytes().splitlines()
    cut = tmp_path / "cut.zxlog"
    cut.write_bytes(b"\n".join(lines[: len(lines) // 2]) + b"\n")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--workers", workers, str(cut))
    assert r.exit_code == 0, r.output
    match = json.loads(lines[0])["match"]
    assert f"note: 1 match stored without a result ({match}): its log stops before the match ends" in r.stderr
    assert "refused as different content" in r.stderr
    r = run("--store", str(tmp_path / "t.sqlite"), "import", "--no-analytics", "--workers", workers, str(won))
    assert r.exit_code == 0 and "without a result" not in r.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_file_that_fails_to_read_is_rejected_by_name_and_the_others_are_imported(tmp_path, workers):
    """A read error (EIO: a failing disk or network file system; /proc/self/mem stands in for one) stopped
    the whole import and zx audit with "Error: Input/output error at zx_events/logformat/reader.py:511": no
    file named, the good logs not imported. The file is now rejected, named, and the others go on."""
    if not Path("/proc/self/mem").exists():
        pytest.skip("no /proc/self/mem here")
    good = sorted(str(p) for p in Path("examples/legal").glob("*.zxlog"))[:2]
    store = str(tmp_path / "s.sqlite")
    r = run("--store", store, "import", "--no-analytics", "--workers", workers, good[0], "/proc/self/mem", good[1])
    assert r.exit_code == 1 and "Traceback" not in r.stderr, r.stderr
    assert "/proc/self/mem: format: cannot read /proc/self/mem: Input/output error (at byte 0); the match being " \
           "read is not imported" in r.stderr, r.stderr
    assert "2 imported, 0 unchanged, 1 rejected" in r.stderr
    r = run("--store", store, "audit", good[0], "/proc/self/mem")
    assert r.exit_code == 1 and "cannot read /proc/self/mem: Input/output error" in r.stdout, r.output


def test_an_import_of_many_logs_draws_at_most_a_thousand_table_rows_and_says_so(tmp_path):
    """20,000 one-line matches (a 700 KB file, each rejected): the table of every outcome took 16 s and 200 MB
    (200,000: 130 s and 1.8 GB), rich laying it out whole. A table shows 1,000 rows and a note counts the
    others; --format csv still gives every row (every rejection is on stderr too)."""
    log = tmp_path / "many.zxlog"
    log.write_text("".join('{"zxlog": 1, "match": "m%d"}\n' % i for i in range(3000)), encoding="utf-8")
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", str(log))
    assert r.exit_code == 1
    assert "(the table shows the first 1,000 rows; 2,000 more rows left out: --format csv|json gives every row)" \
        in r.stderr, r.stderr[-500:]  # (it said "2000 more rows", QA 32: counts are thousands separated)
    assert "0 imported, 0 unchanged, 3,000 rejected into " in r.stderr, r.stderr[-500:]
    assert r.stdout.count(" rejected ") == 1000, r.stdout[-300:]
    r = run("--store", str(tmp_path / "s.sqlite"), "import", "--no-analytics", "--format", "csv", str(log))
    assert len(r.stdout.splitlines()) == 3001 and "table shows" not in r.stderr


ZX_LOG = ROOT / "examples" / "legal" / "first-turns.zxlog"
X610Z_LOG = ROOT / "examples" / "x610z" / "legal" / "murphys-law-ending-dot.x610zlog"


@pytest.mark.parametrize("log, line, change, message", [
    (ZX_LOG, 4, {"by": "\u04201"},
     "turn.by must be P1 or P2, got '\u04201' (U+0420 CYRILLIC CAPITAL LETTER ER is not ASCII)"),
    (X610Z_LOG, 4, {"by": "\u04201"},
     "turn.by must be P1 or P2, got '\u04201' (U+0420 CYRILLIC CAPITAL LETTER ER is not ASCII)"),
    (ZX_LOG, 5, {"card": "R01\u2010009"},
     "resource.card: unknown card code 'R01\u2010009' (U+2010 HYPHEN is not ASCII; not in catalog sample)"),
    (X610Z_LOG, 2, {"hand": ["A1\u2010010", "A1-031"]},
     "setup.hand must be a list of card codes (item 1 is 'A1\u2010010': U+2010 HYPHEN is not ASCII)"),
    (X610Z_LOG, 5, {"card": "\uff21\uff11-010"},  # fullwidth
     "draw.card must be a card code, got '\uff21\uff11-010' (U+FF21 FULLWIDTH LATIN CAPITAL LETTER A, "
     "U+FF11 FULLWIDTH DIGIT ONE are not ASCII)"),
    (ZX_LOG, 6, {"square": "\u0430\u0031"},
     "play.square must be a Square (a1..c3), got '\u04301' (U+0430 CYRILLIC SMALL LETTER A is not ASCII)"),
    (X610Z_LOG, 2, {"dot": "S\u2075"},
     "setup.dot must be a dot id (1-8 characters A-Za-z0-9), got 'S\u2075' (U+2075 SUPERSCRIPT FIVE is not ASCII)"),
    (ZX_LOG, 4, {"do": "t\u057drn"},
     "unknown record kind 't\u057drn' (U+057D ARMENIAN SMALL LETTER SEH is not ASCII) (one of "),
    (ZX_LOG, 4, {"by": "P1", "turn": 1, "n\u043ete": "x"},
     "unknown key 'n\u043ete' (U+043E CYRILLIC SMALL LETTER O is not ASCII) in a turn record"),
])
def test_a_look_alike_in_a_value_that_must_be_ascii_has_its_characters_named(tmp_path, log, line, change, message):
    """A Cyrillic ``Р1`` echoed as ``got 'Р1'`` read as the valid seat the message asked for, ``R01‐001`` (U+2010)
    as a valid code: in a seat, a card code, a Square, a dot, a record kind or a key (each ASCII in both
    games), every non-ASCII character is named (errors.not_ascii), in both games."""
    lines = log.read_text("utf-8").splitlines()
    rec = json.loads(lines[line - 1])
    rec.update(change)
    lines[line - 1] = json.dumps(rec, ensure_ascii=False)
    path = tmp_path / log.name
    path.write_text("\n".join(lines) + "\n", "utf-8")
    r = CliRunner().invoke(zx, ["--store", "memory:", "import", "--no-analytics", str(path)])
    assert r.exit_code == 1, r.output
    assert f"{path}:{line}: format: {message}" in r.stderr, r.stderr


def test_not_ascii_names_each_non_ascii_character_once_and_at_most_three():
    """The words after a value that must be ASCII (errors.not_ascii): nothing for ASCII, each other character
    once by its code point and Unicode name (a character without a name by its code point), at most three.
    A header's played_at has an ASCII pattern too: a date in another script has its characters named."""
    from zx_events.errors import not_ascii

    assert not_ascii("P1") == "" and not_ascii("R01-001") == ""
    assert not_ascii("\u0420\u0420\u2010\u00e9\u00e8") == ("U+0420 CYRILLIC CAPITAL LETTER ER, U+2010 HYPHEN, "
                                                         "U+00E9 LATIN SMALL LETTER E WITH ACUTE and 1 more are not ASCII")
    assert not_ascii("\U000e0001") == "U+E0001 LANGUAGE TAG is not ASCII"
    assert not_ascii("\U000f0000") == "U+F0000 is not ASCII"  # (a private-use character has no name)
    lines = ZX_LOG.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["played_at"] = "\u4ee4\u548c8\u5e74"
    r = CliRunner().invoke(zx, ["--store", "memory:", "import", "--no-analytics", "-"],
                           input="\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n")
    assert r.exit_code == 1, r.output
    assert ("got '\u4ee4\u548c8\u5e74' (U+4EE4 CJK UNIFIED IDEOGRAPH-4EE4, U+548C CJK UNIFIED IDEOGRAPH-548C, "
            "U+5E74 CJK UNIFIED IDEOGRAPH-5E74 are not ASCII)") in r.stderr, r.stderr


@pytest.mark.parametrize("command", [["replay", "hand-first-turns-001", "--turn", "1"],
                                     ["view", "hand-first-turns-001", "-o", "{tmp}/m.html"]])
def test_a_look_alike_seat_given_to_as_has_its_character_named(tmp_path, command):
    """``zx replay MATCH --as Р1`` (a Cyrillic Р) said "'Р1' is not one of 'judge', 'p1', 'p2', 'spectator'",
    the very seat it asked for; ``zx view --as`` the same. The character is named (errors.not_ascii), a usage
    error as any other seat not known; a seat in another case is still one. The seats are listed as they are
    written (click lower-cases a case-blind choice's: 'p1', 'p2'), "in any case". Since QA round 36 ``--as`` also
    takes a player's name: a value that is no seat is looked for among the match's players, and the error names
    them beside the seats, the look-alike's character still named."""
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(ZX_LOG)]).exit_code == 0
    command = [a.replace("{tmp}", str(tmp_path)) for a in command]
    r = CliRunner().invoke(zx, ["--store", store, *command, "--as", "\u04201"])
    assert r.exit_code == 2, r.output
    assert ("Invalid value for '--as': no player named '\u04201' (U+0420 CYRILLIC CAPITAL LETTER ER is not ASCII) in "
            "match 'hand-first-turns-001' (its players are P1 'Aki' and P2 'Ren'); give a player's name or a seat: "
            "'judge', 'P1', 'P2', 'spectator' (in any case)") in r.stderr, r.stderr
    r = CliRunner().invoke(zx, ["--store", store, *command, "--as", "P3"])
    assert r.exit_code == 2 and ("no player named 'P3' in match 'hand-first-turns-001' (its players are P1 'Aki' and "
                                 "P2 'Ren'); give a player's name or a seat: 'judge', 'P1', 'P2', 'spectator' (in any "
                                 "case)") in r.stderr, r.stderr
    assert not (tmp_path / "m.html").exists()
    ok = CliRunner().invoke(zx, ["--store", store, *command, "--as", "p2"])
    assert ok.exit_code == 0, ok.output


def test_a_file_that_grows_past_its_limit_while_read_is_refused_with_its_size_then(tmp_path, monkeypatch):
    """read_limited asks the size of the open file, then reads at most the limit and one byte more: a file that
    grew in between was refused with the size "limit + 1" (and the catalog's "more than 16 MiB" words for it were
    never reached). It is refused with its size once read."""
    from zx_events import files

    path = tmp_path / "grows.csv"
    path.write_bytes(b"x" * 100)
    real = files.open_regular
    monkeypatch.setattr(files, "open_regular", lambda p: (real(p)[0], 10))  # (its size when asked, before it grew)
    assert files.read_limited(path, 50) == (None, 100)
    assert files.read_limited(path, 100) == (b"x" * 100, 10)
