"""A dispute bundle in each game's words, and ``zx verify --bundle`` saying where its log was edited.

- The README cites the rule of what each seat sees of the match's own game (Z/X 301.3, X610Z 502.3);
  the help texts, which are not per game, cite both; docs/analytics.md gives each game's clause for
  "the record is the violation" (Z/X 101.2, X610Z 106.1b).
- An edited log in a bundle is named at its first line that differs from the records its events hold
  (``first at original.x610zlog:N``), as ``zx audit LOG`` names it against the store, in text and JSON.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from zx_events.games.x610z.rules import title as x610z_title
from zx_events.games.zx.rules import title as zx_title

ROOT = Path(__file__).resolve().parent.parent
LOGS = {"zx": ROOT / "examples" / "legal" / "first-turns.zxlog",
        "x610z": ROOT / "examples" / "x610z" / "legal" / "life-base-destroyed.x610zlog"}
SEATS_RULE = {"zx": "301.3", "x610z": "502.3"}


@pytest.fixture(scope="module", params=sorted(LOGS))
def bundle(request, tmp_path_factory) -> tuple[str, Path]:
    """A stored legal match of each game and its dispute bundle."""
    folder = tmp_path_factory.mktemp(request.param)
    store = str(folder / "s.sqlite")
    r = CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(LOGS[request.param])])
    assert r.exit_code == 0, r.output
    match = json.loads(LOGS[request.param].read_text(encoding="utf-8").splitlines()[0])["match"]
    path = folder / "d.zip"
    r = CliRunner().invoke(zx, ["--store", store, "audit", match, "--bundle", str(path)])
    assert r.exit_code == 0, r.output
    return request.param, path


def test_the_bundle_readme_cites_the_seats_rule_of_its_matchs_game(bundle):
    game, path = bundle
    readme = zipfile.ZipFile(path).read("README.txt").decode()
    assert f"as the judge, P1 and P2 each see it ({SEATS_RULE[game]})" in readme
    other = SEATS_RULE["zx" if game == "x610z" else "x610z"]
    assert other not in readme


@pytest.mark.parametrize("game, log", [("zx", ROOT / "examples" / "invalid" / "602.1a-sleep-attacker.zxlog"),
                                       ("x610z", ROOT / "examples" / "x610z" / "invalid" / "502.5-hand-limit.x610zlog")])
def test_a_bundle_with_violations_cites_the_seats_rule_not_the_last_violations(game, log, tmp_path):
    """The README's line on what each seat sees cited the last violation's rule ("rule 502.5 (End of turn: ...)"):
    the loop over the violations reused the name."""
    path = tmp_path / "d.zip"
    r = CliRunner().invoke(zx, ["--store", str(tmp_path / "none.sqlite"), "audit", str(log), "--bundle", str(path)])
    assert r.exit_code == 1, r.output  # (a violation found)
    readme = zipfile.ZipFile(path).read("README.txt").decode()
    assert f"as the judge, P1 and P2 each see it ({SEATS_RULE[game]})" in readme, readme


@pytest.mark.parametrize("command", [["replay"], ["view"], ["serve"]])
def test_the_seat_help_texts_cite_both_games_rules(command):
    r = CliRunner().invoke(zx, [*command, "--help"], terminal_width=400)
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "Z/X 301.3, X610Z 502.3" in text
    assert "(301.3" not in text  # a bare Z/X rule: not X610Z's


def test_analytics_doc_gives_each_games_clause_for_a_result_record_that_breaks_a_rule():
    text = " ".join((ROOT / "docs" / "analytics.md").read_text(encoding="utf-8").split())
    assert "(the record is the violation: Z/X 101.2, X610Z 106.1b)" in text
    assert zx_title("101.2") and x610z_title("106.1b")


def edited(bundle: Path, out: Path, line: int, change) -> Path:
    """``bundle`` with line ``line`` (1-based) of its log changed by ``change``."""
    with zipfile.ZipFile(bundle) as z, zipfile.ZipFile(out, "w") as w:
        for item in z.namelist():
            data = z.read(item)
            if item.startswith("original."):
                lines = data.decode("utf-8").split("\n")
                lines[line - 1] = change(lines[line - 1])
                data = "\n".join(lines).encode("utf-8")
            w.writestr(item, data)
    return out


def verify(path: Path, fmt: str) -> tuple[int, str]:
    r = CliRunner().invoke(zx, ["--store", str(path.parent / "none.sqlite"), "verify", "--bundle", str(path),
                                "--format", fmt], terminal_width=400)
    assert "Traceback" not in r.output
    return r.exit_code, r.stdout


def test_verify_bundle_names_the_first_line_of_an_edited_log(bundle, tmp_path):
    game, path = bundle
    name = next(n for n in zipfile.ZipFile(path).namelist() if n.startswith("original."))
    lines = zipfile.ZipFile(path).read(name).decode("utf-8").split("\n")
    line = next(i for i, text in enumerate(lines, 1) if i > 5 and '"by": "P1"' in text)
    record = json.loads(lines[line - 1])
    changed = edited(path, tmp_path / "edited.zip", line, lambda text: text.replace('"by": "P1"', '"by": "P2"', 1))
    code, out = verify(changed, "json")
    (v,) = json.loads(out)
    assert code == 1 and v["status"] == "altered", out
    assert f"the log in the bundle was edited: first at {name}:{line}, " in v["message"], v["message"]
    assert f"where the match in events.jsonl has {json.dumps(record, ensure_ascii=False)}"[:80] in v["message"]
    code, out = verify(changed, "table")
    assert code == 1 and f"first at {name}:{line}" in " ".join(out.split()).replace("│ ", "").replace(" │", ""), out
    code, out = verify(changed, "csv")
    assert code == 1 and f"first at {name}:{line}, " in out
    # a line that is no longer JSON: that line, and why
    broken = edited(path, tmp_path / "broken.zip", line, lambda text: text[:-3])
    code, out = verify(broken, "json")
    (v,) = json.loads(out)
    assert code == 1 and f"edited: first at {name}:{line}, which cannot be read (bad JSON" in v["message"], out


def rewritten(bundle: Path, out: Path, change) -> Path:
    """``bundle`` with its entries ``(name, bytes)`` replaced by ``change(entries)``, in that order."""
    with zipfile.ZipFile(bundle) as z:
        entries = [(n, z.read(n)) for n in z.namelist()]
    with zipfile.ZipFile(out, "w") as w:
        for name, data in change(entries):
            w.writestr(name, data)
    return out


def head_of(bundle: Path) -> str:
    readme = zipfile.ZipFile(bundle).read("README.txt").decode()
    return next(line.split()[2] for line in readme.splitlines() if line.startswith("head digest:"))


def verify_args(path: Path, *args: str) -> tuple[int, str]:
    """The exit code and what it says (with --format json: its stdout, the records)."""
    r = CliRunner().invoke(zx, ["--store", str(path.parent / "none.sqlite"), "verify", "--bundle", str(path), *args],
                           terminal_width=400)
    assert "Traceback" not in r.output
    return r.exit_code, r.stdout if "json" in args else " ".join(r.output.split())


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_verify_bundle_checks_its_games_log_by_name_and_refuses_a_file_it_does_not_write(bundle, tmp_path):
    """An untouched copy of the log first in the zip (``original.zxlog.orig``) and an edited ``original.zxlog``
    verified "intact": the first entry whose name starts with "original." was checked, the judge reads the other."""
    game, path = bundle
    name = "original" + (".zxlog" if game == "zx" else ".x610zlog")
    assert name in zipfile.ZipFile(path).namelist()
    head = head_of(path)

    def last_record_deleted(data: bytes) -> bytes:
        lines = data.decode("utf-8").rstrip("\n").split("\n")
        return ("\n".join(lines[:-1]) + "\n").encode("utf-8")

    two = rewritten(path, tmp_path / "two.zip", lambda entries: [
        (f"{name}.orig", dict(entries)[name]),
        *((n, last_record_deleted(d) if n == name else d) for n, d in entries)])
    code, out = verify_args(two, "--head", head)
    assert code == 1 and f"holds '{name}.orig', which zx audit --bundle does not write" in out, out
    assert "refused" in out and "intact" not in out
    # the log twice under its own name (unzip and zx read different ones): refused too
    twice = rewritten(path, tmp_path / "twice.zip", lambda entries: [
        (name, dict(entries)[name]), *((n, last_record_deleted(d) if n == name else d) for n, d in entries)])
    code, out = verify_args(twice, "--head", head)
    assert code == 1 and f"holds '{name}' twice" in out and "refused" in out, out
    # the bundle as written, and unzipped and zipped again (zip -r adds its folders): intact
    code, out = verify_args(path, "--head", head)
    assert code == 0 and "intact" in out, out
    rezipped = rewritten(path, tmp_path / "rezipped.zip", lambda entries: [
        *(("violation-01/", b"") for _ in entries[:1]), *entries])
    assert verify_args(rezipped, "--head", head)[0] == 0


def test_verify_bundle_finds_a_record_moved_to_another_line_than_its_event_carries(bundle, tmp_path):
    """A blank line after the header moved every record one line down, the findings' lines no longer theirs, and
    the bundle verified: the content hash does not see line numbers."""
    game, path = bundle
    name = "original" + (".zxlog" if game == "zx" else ".x610zlog")
    lines = zipfile.ZipFile(path).read(name).decode("utf-8").split("\n")
    assert lines[1].strip()  # the first record, on line 2
    shifted = rewritten(path, tmp_path / "shifted.zip", lambda entries: [
        (n, d.replace(b"\n", b"\n\n", 1) if n == name else d) for n, d in entries])
    code, out = verify_args(shifted, "--head", head_of(path), "--format", "json")
    (v,) = json.loads(out)
    assert code == 1 and v["status"] == "altered", out
    assert f"the log in the bundle was edited: first at {name}:3, {lines[1][:40]}" in v["message"], v["message"]
    assert "where the match in events.jsonl has it at line 2" in v["message"]


def test_verify_bundle_of_a_stored_match_without_its_seal_says_deleted(bundle, tmp_path):
    """With its Sealed event removed, a stored match's bundle was called "the bundle of a log file ... no chain to
    check" and the head given was not compared: its README and the head say it is a stored match's."""
    game, path = bundle
    noseal = rewritten(path, tmp_path / "noseal.zip", lambda entries: [
        (n, d.rstrip(b"\n").rsplit(b"\n", 1)[0] + b"\n" if n == "events.jsonl" else d) for n, d in entries])
    for args in (["--head", head_of(path)], []):
        code, out = verify_args(noseal, *args, "--format", "json")
        (v,) = json.loads(out)
        assert code == 1 and v["status"] == "deleted" and "without its seal" in v["message"], out
        assert "bundle of a log file" not in out
    # its README's word taken away too: the head given still says a stored match
    no_word = rewritten(noseal, tmp_path / "noword.zip", lambda entries: [
        (n, d.replace(b"the stored match", b"the log file") if n == "README.txt" else d) for n, d in entries])
    code, out = verify_args(no_word, "--head", head_of(path), "--format", "json")
    assert code == 1 and json.loads(out)[0]["status"] == "deleted", out


def test_verify_bundle_finds_a_second_match_added_to_its_log(bundle, tmp_path):
    """The content hash covers the log's first match: a match added after it (which `zx audit` of the log audits
    too) is an edit."""
    game, path = bundle
    name = "original" + (".zxlog" if game == "zx" else ".x610zlog")
    log = zipfile.ZipFile(path).read(name)
    added = rewritten(path, tmp_path / "added.zip", lambda entries: [
        (n, d + b"\n" + log if n == name else d) for n, d in entries])
    code, out = verify_args(added, "--format", "json")
    (v,) = json.loads(out)
    assert code == 1 and v["status"] == "altered" and "holds 2 matches, its events one" in v["message"], out


# ---------------------------------------------------------------------- a bundle from outside: its limits

def test_verify_bundle_refuses_a_fifo_and_a_link_to_a_device_without_reading_them(tmp_path):
    """A FIFO as the bundle waited forever for a writer, a link to /dev/zero read past 8 GB: a bundle is a
    regular file, after its links, asked before a byte is read (a subprocess: a regression hangs, not the suite)."""
    import os
    import subprocess
    import sys

    fifo, zero = tmp_path / "fifo.zip", tmp_path / "zero.zip"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    for path, what in ((fifo, "a named pipe (FIFO)"), (zero, "a device")):
        r = subprocess.run([sys.executable, "-m", "zx_cli.main", "--store", str(tmp_path / "none.sqlite"), "verify",
                            "--bundle", str(path)], capture_output=True, text=True, timeout=30,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"})
        assert r.returncode == 1, r.stderr
        assert f"{path} is {what}, not a regular file: a dispute bundle is a zip file" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
    assert not (tmp_path / "none.sqlite").exists()


def test_verify_bundle_refuses_a_bundle_or_a_file_in_it_past_its_size_limit(bundle, tmp_path, monkeypatch):
    """A 1 MB zip holding 1 GB of events took 2 GB of memory: the bundle file, each file's declared size and
    what is read of it are bounded (the limits patched down here, to stay fast)."""
    from zx_events import bundle as bundle_module

    game, path = bundle
    head = head_of(path)
    padded = rewritten(path, tmp_path / "padded.zip", lambda entries: [
        (n, d + b"\n" * 300_000 if n == "events.jsonl" else d) for n, d in entries])
    assert verify_args(padded, "--head", head)[0] == 0  # (blank lines: within the real limits, intact)
    monkeypatch.setattr(bundle_module, "MAX_MEMBER", 200_000)
    code, out = verify_args(padded, "--head", head)
    assert code == 1 and "its events.jsonl holds " in out and " bytes uncompressed (a file of a dispute bundle holds " \
        "at most 0 MiB, 200,000 bytes: docs/audit.md, Dispute bundles): refused" in out, out
    assert "intact" not in out
    monkeypatch.setattr(bundle_module, "MAX_BUNDLE", path.stat().st_size - 1)
    code, out = verify_args(path, "--head", head)
    assert code == 1 and f"is too big for a dispute bundle: {path.stat().st_size:,} bytes (at most 0 MiB" in out, out


def test_a_bundle_file_is_read_within_its_limit_whatever_its_header_declares():
    """What decompresses counts, not the size a (crafted) header declares: the read stops one byte past it."""
    import io

    from zx_events.files import Capped, TooBig, read_capped

    assert read_capped(io.BytesIO(b"x" * 100), 100) == b"x" * 100
    source = io.BytesIO(b"x" * 10_000)
    with pytest.raises(TooBig, match="more than 100 bytes"):
        read_capped(source, 100)
    assert source.tell() == 101
    capped = Capped(io.BytesIO(b"x" * 10_000), 100)
    with pytest.raises(TooBig):
        while capped.read1(30):
            pass


def test_verify_bundle_holds_its_log_to_the_limits_of_a_log(bundle, tmp_path):
    """200 MiB of newlines after the log's last record took 1.9 GB and said "intact" (the content hash does not
    see blank lines): the log is read as zx import reads one, and a match past 50,000 lines is an edited log."""
    game, path = bundle
    name = "original" + (".zxlog" if game == "zx" else ".x610zlog")
    padded = rewritten(path, tmp_path / "newlines.zip", lambda entries: [
        (n, d + b"\n" * 60_000 if n == name else d) for n, d in entries])
    code, out = verify_args(padded, "--head", head_of(path), "--format", "json")
    (v,) = json.loads(out)
    assert code == 1 and v["status"] == "altered", out
    assert (f"the bundle's {name} is not a log zx import reads: match too long: more than 50,000 lines "
            f"(docs/match-log.md, Limits)") in v["message"], v["message"]
    assert "the log in the bundle was edited" in v["message"]
