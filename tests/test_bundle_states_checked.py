"""``zx verify --bundle`` checks the states of ``violation-NN/`` (QA round 35 left them unchecked: the verdict line
said so): derived again from the bundle's log, which reproduces its content hash, by the rules and the reference
data its match pinned (the bundle's catalog or board file, else the shipped ones), as ``zx audit`` derived them. A
state edited, removed or added is ``altered``, naming the file; a bundle whose README.txt says the audit judged by
other rules or data than the match pinned says its states are not checked."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "zx_events" / "games"
SAMPLE = PKG / "zx" / "catalogs" / "sample.csv"
CASES = {  # game -> (log with a violation, match, the reference option and file given to import and audit)
    "zx": (ROOT / "examples" / "invalid" / "204.6-colour.zxlog", "invalid-204.6-colour", "--catalog", None),
    "x610z": (ROOT / "examples" / "x610z" / "invalid" / "502.5-hand-limit.x610zlog", None, "--board",
              PKG / "x610z" / "boards" / "x610z-orbits-sample.json"),
}
CHECKED = "the states in violation-NN/ are the ones its log gives"


def invoke(*args: str):
    r = CliRunner().invoke(zx, list(args), terminal_width=400)
    assert "Traceback" not in r.output
    return r


@pytest.fixture(scope="module", params=sorted(CASES))
def bundle(request, tmp_path_factory) -> tuple[str, Path, str]:
    """(game, the bundle of a stored match with a violation, the text of a name its states hold from the reference
    file): Z/X imported and audited with a venue's catalog file (a card renamed: the states name it), X610Z with
    its board file."""
    game = request.param
    log, match, option, file = CASES[game]
    tmp = tmp_path_factory.mktemp(f"states-{game}")
    if file is None:
        file = tmp / "venue.csv"
        file.write_text(SAMPLE.read_text(encoding="utf-8").replace("Dawnshield Page", "Dawnshield Squire"),
                        encoding="utf-8")
    match = match or json.loads(log.read_text(encoding="utf-8").splitlines()[0])["match"]
    store = str(tmp / "s.sqlite")
    r = invoke("--store", store, "import", "--no-analytics", "--accept-violations", option, str(file), str(log))
    assert r.exit_code == 0, r.output
    path = tmp / "b.zip"
    r = invoke("--store", store, "audit", match, option, str(file), "--bundle", str(path))
    assert r.exit_code == 1 and path.is_file(), r.output  # (its violation)
    return game, path, "Dawnshield Squire" if game == "zx" else ""


def rewritten(bundle: Path, out: Path, change=None, add: dict[str, str] | None = None) -> Path:
    """``bundle`` with each file's text through ``change(name, text)`` (None: left out) and the files ``add``."""
    with zipfile.ZipFile(bundle) as z, zipfile.ZipFile(out, "w") as w:
        for name in z.namelist():
            data = z.read(name)
            text = change(name, data.decode("utf-8")) if change else data
            if text is not None:
                w.writestr(name, text)
        for name, text in (add or {}).items():
            w.writestr(name, text)
    return out


def verify(path: Path):
    r = invoke("verify", "--bundle", str(path), "--format", "json")
    (v,) = json.loads(r.stdout)
    return r, v


def test_the_states_as_written_are_checked_and_the_verdict_line_says_so(bundle):
    game, path, name = bundle
    with zipfile.ZipFile(path) as z:
        states = [n for n in z.namelist() if n.startswith("violation-")]
        assert states == ["violation-01/state-before.json", "violation-01/state-after.json"], states
        assert name in z.read("violation-01/state-after.json").decode("utf-8")  # (the file's names: "" is in any)
    r, v = verify(path)
    assert (r.exit_code, v["status"]) == (0, "ok"), v
    assert CHECKED in r.stderr and "not checked" not in r.stderr, r.stderr


def _a_card_into_the_hand(name: str, text: str) -> str | None:
    """The judge's state after the violation with the first card of P1's deck shown in P2's hand."""
    if name != "violation-01/state-after.json":
        return text
    state = json.loads(text)
    judge = state["judge"]
    judge["players"]["P1"]["hand"] = [*judge["players"]["P1"]["hand"], judge["players"]["P1"]["hand"][0]]
    return json.dumps(state, ensure_ascii=False, indent=2) + "\n"


def test_a_state_edited_is_altered_naming_its_file_and_line(bundle, tmp_path):
    game, path, _ = bundle
    r, v = verify(rewritten(path, tmp_path / "edited.zip", _a_card_into_the_hand))
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert v["message"].startswith("the bundle's violation-01/state-after.json is not the state its log gives at "
                                   "that violation (derived again: line "), v
    assert v["message"].endswith("): it was edited; its events are intact"), v


def test_a_state_removed_is_altered(bundle, tmp_path):
    game, path, _ = bundle
    r, v = verify(rewritten(path, tmp_path / "removed.zip",
                            lambda n, t: None if n == "violation-01/state-before.json" else t))
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert v["message"] == ("the bundle holds no violation-01/state-before.json, the state its violation has: it was "
                            "removed (the bundle was edited); its events are intact"), v


def test_a_state_added_is_altered(bundle, tmp_path):
    game, path, _ = bundle
    with zipfile.ZipFile(path) as z:
        copy = z.read("violation-01/state-after.json").decode("utf-8")
    r, v = verify(rewritten(path, tmp_path / "added.zip", add={"violation-02/state-before.json": copy}))
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert v["message"] == ("the bundle holds violation-02/state-before.json, a state of no violation its log "
                            "gives: it was added (the bundle was edited); its events are intact"), v


def test_a_readme_saying_other_rules_leaves_the_states_unchecked_and_says_so(bundle, tmp_path):
    """The audit judged by another rules version than the match pinned (a later zx): the states it derived are that
    engine's, which this one cannot derive again: not checked, and the verdict line says so; the status is
    ``unchecked``, exit 1 (it was ok, exit 0: a README.txt line edited with a forged state passed, QA round 36)."""
    game, path, _ = bundle

    def other_rules(name: str, text: str) -> str | None:
        if name == "README.txt":
            return "\n".join(ln.replace(ln.split(":", 1)[1], " zx-cr-9.9") if ln.startswith("rules version:") else ln
                             for ln in text.split("\n"))
        return _a_card_into_the_hand(name, text)

    r, v = verify(rewritten(path, tmp_path / "other.zip", other_rules))
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v  # (its chain intact, its states not judged: not ok)
    assert r.stderr.startswith("UNCHECKED: ") and v["message"].startswith(f"{v['events']:,} events, chain intact; ")
    assert "; the states in violation-NN/ are not checked: its README.txt says the audit judged by rules version " \
           "zx-cr-9.9, this zx derives them by rules version " in r.stderr, r.stderr
    assert "and they differ (`zx audit` of its log by the zx that wrote it derives them)" in r.stderr, r.stderr


# ------------------------------------------------------------------ QA round 36: the check of the states itself

@pytest.mark.parametrize("file_name", ["..csv", "a\\b.csv", "new\nline.csv", "esc\x1b[31mred.csv", "x" * 201 + ".csv",
                                       "佐藤 蓮" * 20 + ".csv"])
def test_a_genuine_bundle_of_a_catalog_file_of_any_name_is_intact_with_its_states_checked(file_name, tmp_path):
    """A catalog's name is its file's, and the states show it: the check read the bundle's catalog.csv under the
    name ``catalog`` where the pinned one was no plain file name (``..``, 201 characters, a backslash), and called
    genuine bundles "edited"; a line break in it broke the README's pins line in two ("README.txt was edited"); an
    ESC in it left the states unchecked (the README escapes it)."""
    log, match, option, _ = CASES["zx"]
    file = tmp_path / file_name
    file.write_text(SAMPLE.read_text(encoding="utf-8").replace("Dawnshield Page", "Dawnshield Squire"),
                    encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    assert invoke("--store", store, "import", "--no-analytics", "--accept-violations", option, str(file),
                  str(log)).exit_code == 0
    path = tmp_path / "b.zip"
    assert invoke("--store", store, "audit", match, option, str(file), "--bundle", str(path)).exit_code == 1
    r, v = verify(path)
    assert (r.exit_code, v["status"]) == (0, "ok"), v
    assert CHECKED in r.stderr, r.stderr


def _entry(n: int, change):
    def on(name: str, text: str) -> str:
        if name != "violations.json":
            return text
        entries = json.loads(text)
        change(entries[n - 1])
        return json.dumps(entries, ensure_ascii=False, indent=2) + "\n"
    return on


def test_a_violations_record_or_its_states_folder_edited_is_altered(bundle, tmp_path):
    """violations.json's ``record`` (the record that broke the rule, as the head judge reads it) and ``states``
    (the folder of its states) were not compared with anything: a concede written in as the record verified
    "intact", the states checked."""
    _, path, _ = bundle
    r, v = verify(rewritten(path, tmp_path / "record.zip", _entry(1, lambda e: e.update(record={"do": "concede"}))))
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert v["message"].startswith("the bundle's violations.json gives violation 1 another record than its log "
                                   "holds at line "), v
    r, v = verify(rewritten(path, tmp_path / "states.zip", _entry(1, lambda e: e.update(states="violation-02"))))
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert v["message"] == ("the bundle's violations.json points violation 1 to the states 'violation-02', its log "
                            "gives violation-01: it was edited; its events are intact"), v


def test_a_readme_naming_a_catalog_nothing_ships_cannot_switch_the_check_off(bundle, tmp_path):
    """README.txt's ``catalog used:`` line is not in the chain: naming another catalog in it, by this zx's rules
    version, switched the states check off and a forged state passed. A catalog that is neither the pinned one, nor
    a file of the bundle, nor one zx ships, is an edit."""
    game, path, _ = bundle
    kind = "catalog" if game == "zx" else "board"

    def other(name: str, text: str) -> str | None:
        if name == "README.txt":
            return "\n".join(ln[:-6] + "abcdef" if ln.startswith(f"{kind} used:") else ln for ln in text.split("\n"))
        return _a_card_into_the_hand(name, text)

    r, v = verify(rewritten(path, tmp_path / "other.zip", other))
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert f"the bundle's README.txt names {kind} " in v["message"] and "nor one zx ships: README.txt was edited" \
        in v["message"], v


def test_the_states_of_a_match_imported_by_earlier_rules_are_checked(tmp_path):
    """The 0.1.0 fixture's matches pinned rules digest.1; the audit derived their states by this zx's rules and the
    pinned catalog, which the check derives them by again: checked (they were left unchecked, whatever was in them)."""
    import shutil

    store = tmp_path / "s.sqlite"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "zx-store-0.1.0.sqlite", store)
    path = tmp_path / "b.zip"
    r = invoke("--store", str(store), "audit", "invalid-603.1b-out-of-priority", "--bundle", str(path))
    assert r.exit_code == 1 and path.is_file(), r.output
    r, v = verify(path)
    assert (r.exit_code, v["status"]) == (0, "ok") and CHECKED in r.stderr, (v, r.stderr)
    r, v = verify(rewritten(path, tmp_path / "forged.zip", _a_card_into_the_hand))
    assert r.exit_code == 1 and v["status"] == "altered", v


def _readme_line(prefix: str, change):
    def on(name: str, text: str) -> str | None:
        if name != "README.txt":
            return text
        return "\n".join(change(ln) if ln.startswith(prefix) else ln for ln in text.split("\n"))
    return on


def test_readme_lines_nothing_could_have_written_are_altered_even_with_the_states_alike(bundle, tmp_path):
    """QA round 36 (PostgreSQL pass): with the states untouched, README.txt naming a catalog used that nothing ships
    nor pinned, or saying its log does not reproduce the content hash it does reproduce, verified intact."""
    game, path, _ = bundle
    kind = "catalog" if game == "zx" else "board"
    r, v = verify(rewritten(path, tmp_path / "cat.zip", _readme_line(f"{kind} used:", lambda ln: ln[:-6] + "abcdef")))
    assert r.exit_code == 1 and v["status"] == "altered" and "nor one zx ships: README.txt was edited" in \
        v["message"], v
    r, v = verify(rewritten(path, tmp_path / "log.zip", _readme_line(
        "original.", lambda ln: ln.split(":")[0] + ": does NOT reproduce the content hash recorded at import")))
    assert r.exit_code == 1 and v["status"] == "altered" and "says its log does not reproduce the content hash" in \
        v["message"], v


def test_a_state_edited_under_a_readme_saying_the_store_was_altered_is_altered(bundle, tmp_path):
    """README.txt's integrity line is the store's at the audit, which a bundle cannot check; the states it holds are
    its log's still: one edited was "unchecked" (QA round 36), it is altered, naming the file."""
    _, path, _ = bundle

    def both(name: str, text: str) -> str | None:
        if name == "README.txt":
            return _readme_line("integrity:", lambda ln: "integrity:      altered at seq 3")(name, text)
        return _a_card_into_the_hand(name, text)

    r, v = verify(rewritten(path, tmp_path / "both.zip", both))
    assert r.exit_code == 1 and v["status"] == "altered", v
    assert v["message"].startswith("the bundle's violation-01/state-after.json is not the state its log gives"), v
    r, v = verify(rewritten(path, tmp_path / "integrity.zip", _readme_line("integrity:",
                                                                            lambda ln: "integrity:      altered")))
    assert r.exit_code == 1 and v["status"] == "altered", v  # (no status zx audit writes: QA round 37)
    assert "records integrity 'altered' (its line " in v["message"], v

    def failed(name: str, text: str) -> str | None:  # (the store's failure as zx audit writes it, its warning first)
        if name != "README.txt":
            return text
        match = next(ln.split()[-1] for ln in text.split("\n") if ln.startswith("Dispute bundle for match "))
        warning = (f"warning:        {match} fails verification (altered: seq 3 was edited): what is shown may not be "
                   f"what was imported; zx verify {match} names the damage")
        text = _readme_line("integrity:", lambda ln: "integrity:      altered (seq 3 was edited)")(name, text)
        at = next(ln for ln in text.split("\n") if ln.startswith("original."))
        return text.replace(at + "\n", f"{at}\n{warning}\n", 1)

    r, v = verify(rewritten(path, tmp_path / "failed.zip", failed))
    assert r.exit_code == 1 and v["status"] == "unchecked", v  # (the states alike: the report not all checked)


@pytest.mark.parametrize("line", ["integrity:", "rules version:", "original."])
def test_a_readme_line_zx_audit_writes_removed_is_altered(bundle, tmp_path, line):
    """QA round 36: README.txt without its content-hash line verified ok; without its integrity line it was
    "unchecked ... integrity 'None'": every README zx audit writes of a stored match has them."""
    _, path, _ = bundle

    def removed(name: str, text: str) -> str | None:
        if name != "README.txt":
            return text
        return "\n".join(ln for ln in text.split("\n") if not ln.startswith(line))

    r, v = verify(rewritten(path, tmp_path / "removed.zip", removed))
    assert r.exit_code == 1 and v["status"] == "altered" and "README.txt has no " in v["message"], v
