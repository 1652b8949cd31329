"""``zx verify --bundle``: README.txt and violations.json checked against the bundle's events (QA round 35, security:
README.txt's head digest changed to another head and a made-up violation added to it and to violations.json
verified "intact"; README.txt is what the head judge reads first)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
COLOUR = ROOT / "examples" / "invalid" / "204.6-colour.zxlog"  # one 204.6, accepted at import
MATCH = "invalid-204.6-colour"
CHECKED = "README.txt's head digest, integrity, pins and violations and violations.json agree with its events"
NOT_COVERED = "README.txt and violations.json are not covered by the chain"


def invoke(*args: str):
    return CliRunner().invoke(zx, list(args))


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> tuple[Path, str]:
    """The dispute bundle of a stored match with one violation, and its head."""
    tmp = tmp_path_factory.mktemp("bundle")
    store = str(tmp / "s.sqlite")
    assert invoke("--store", store, "import", "--no-analytics", "--accept-violations", str(COLOUR)).exit_code == 0
    path = tmp / "b.zip"
    r = invoke("--store", store, "audit", MATCH, "--bundle", str(path))
    assert r.exit_code == 1 and path.is_file(), r.output  # (its violation)
    r = invoke("--store", store, "verify", MATCH, "--format", "json")
    (verdict,) = [v for v in json.loads(r.stdout) if v["match"] == MATCH]
    return path, verdict["head"]


def edited(bundle: Path, tmp: Path, **texts) -> Path:
    """A copy of ``bundle`` whose members ``texts`` (README_txt= -> README.txt) are functions of their text."""
    out = tmp / "edited.zip"
    with zipfile.ZipFile(bundle) as z, zipfile.ZipFile(out, "w") as w:
        for name in z.namelist():
            data = z.read(name).decode("utf-8")
            change = texts.get(name.replace(".", "_"))
            w.writestr(name, change(data) if change else data)
    return out


def verify(path: Path, head: str | None = None):
    return invoke("verify", "--bundle", str(path), *(["--head", head] if head else []), "--format", "json")


def test_the_bundle_as_written_is_intact_and_the_verdict_says_what_was_checked(bundle):
    path, head = bundle
    r = verify(path, head[:16])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0]["status"] == "ok"
    assert f"intact: {path} (its events' chain and its log, without the store; the head written down; {CHECKED}, " \
           f"and the states in violation-NN/ are the ones its log gives)" in r.stderr, r.stderr


def test_another_head_digest_in_the_readme_is_altered(bundle, tmp_path):
    path, head = bundle
    other = "5b467131fce15af92ef84130b5b4a67ac152119635a78d7d5a032bd556a3af83"
    r = verify(edited(path, tmp_path, README_txt=lambda t: t.replace(head, other)), head[:16])
    assert r.exit_code == 1
    (v,) = json.loads(r.stdout)
    assert v["status"] == "altered" and v["message"] == (
        f"the bundle's README.txt names head digest {other[:16]}, its events' chain ends at {head[:16]}: README.txt "
        f"was edited (or is another match's); its events are intact"), v
    assert r.stderr.startswith("FAILED: ")


def made_up(t: str) -> str:
    entries = json.loads(t)
    entries.append({**entries[0], "n": 2, "rule": "105.1", "message": "P1 had won on life"})
    return json.dumps(entries)


def test_a_violation_made_up_in_violations_json_and_the_readme_is_altered(bundle, tmp_path):
    path, head = bundle

    def readme(t: str) -> str:
        line = next(ln for ln in t.splitlines() if ln.startswith("   1. "))
        return t.replace("1 violation:\n", "2 violations:\n").replace(
            line + "\n", line + "\n" + line.replace("   1. ", "   2. ", 1).split(": rule ")[0] +
            ": rule 105.1 (): P1 had won on life\n")

    r = verify(edited(path, tmp_path, README_txt=readme, violations_json=made_up), head[:16])
    assert r.exit_code == 1
    (v,) = json.loads(r.stdout)
    assert v["status"] == "altered" and "violations.json" in v["message"], v


def test_the_violation_left_out_of_both_is_altered(bundle, tmp_path):
    """An acquittal: the one violation recorded at import taken out of violations.json and README.txt."""
    path, head = bundle

    def readme(t: str) -> str:
        line = next(ln for ln in t.splitlines() if ln.startswith("   1. "))
        return t.replace("1 violation:\n", "0 violations:\n").replace(line + "\n", "")

    r = verify(edited(path, tmp_path, README_txt=readme, violations_json=lambda t: "[]"), head[:16])
    assert r.exit_code == 1
    (v,) = json.loads(r.stdout)
    assert v["status"] == "altered" and v["message"].startswith(
        "the bundle's violations.json lists 0 violations, its events record 1 at import"), v


def test_the_readme_list_edited_alone_is_altered(bundle, tmp_path):
    path, head = bundle
    r = verify(edited(path, tmp_path, README_txt=lambda t: t.replace("none of the paid cards is white",
                                                                      "the paid cards are white")), head[:16])
    assert r.exit_code == 1
    (v,) = json.loads(r.stdout)
    assert v["status"] == "altered" and "README.txt lists other violations than its violations.json" in v["message"]


def test_a_readme_that_names_other_rules_and_other_violations_is_said_not_covered(bundle, tmp_path):
    """Judged by other rules than the match pinned, the findings may differ from those recorded: the bundle cannot
    tell, and the verdict line says its report is not covered; its status is ``unchecked``, exit 1 (it was ``ok``,
    exit 0: a README.txt line edited switched the checks off, QA round 36)."""
    path, head = bundle

    def readme(t: str) -> str:
        line = next(ln for ln in t.splitlines() if ln.startswith("   1. "))
        return t.replace("1 violation:\n", "0 violations:\n").replace(line + "\n", "").replace(
            "rules version:  zx-", "rules version:  zy-")

    r = verify(edited(path, tmp_path, README_txt=readme, violations_json=lambda t: "[]"), head[:16])
    assert r.exit_code == 1 and json.loads(r.stdout)[0]["status"] == "unchecked", r.output  # (round 36: exit 0, ok)
    assert r.stderr.startswith("UNCHECKED: ")
    assert ("; README.txt's head digest, integrity and pins agree with its events; its violations differ from the 1 "
            f"its events record at import, and its README.txt says the audit judged by other rules or reference data "
            f"than the match pinned: {NOT_COVERED} (zx audit of its log judges them))") in r.stderr, r.stderr


def test_a_readme_that_names_other_rules_with_the_recorded_violations_is_checked(bundle, tmp_path):
    path, head = bundle
    r = verify(edited(path, tmp_path, README_txt=lambda t: t.replace("rules version:  zx-", "rules version:  zy-")),
               head[:16])
    assert r.exit_code == 0 and CHECKED in r.stderr, r.output


@pytest.mark.parametrize("listed", ['[{"n": 1, "line": [5], "rule": 204.6}]', '{"n": 1}', '[1, 2]', 'not json',
                                    '[{"n": 1, "line": 5, "rule": "204.6", "message": {"a": 1}}]'])
def test_a_violations_json_not_as_zx_writes_it_is_altered_not_a_traceback(bundle, tmp_path, listed):
    path, head = bundle
    r = verify(edited(path, tmp_path, violations_json=lambda t: listed), head[:16])
    assert r.exit_code == 1 and (r.exception is None or isinstance(r.exception, SystemExit)), r.exception
    (v,) = json.loads(r.stdout)
    assert v["status"] == "altered" and "violations.json" in v["message"], v


def test_the_verdict_line_escapes_the_bundles_file_name(bundle, tmp_path):
    """A stranger's attachment saved under its own name: the verdict line wrote the path as it is, so a name holding
    OSC 52 wrote the terminal's clipboard and CSI 2J cleared the screen (QA round 37); as escapes, as the errors."""
    path, head = bundle
    named = tmp_path / "evil\x1b]52;c;SGFja2Vk\x07\x1b[2J.zip"
    named.write_bytes(path.read_bytes())
    r = verify(named, head[:16])
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stderr.splitlines() if ln.startswith("intact: "))
    assert "\x1b" not in line and "\x07" not in line and "evil\\x1b]52;c;SGFja2Vk\\x07\\x1b[2J.zip" in line, line
