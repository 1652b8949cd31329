"""``zx verify --bundle``: README.txt forgeries that passed the whole check, and its honest catalog or board (QA
round 37, bundle2).

D1: ``integrity: ok`` edited to ``ok (re-verified by the head judge)`` (no status zx audit writes) with a violation made
up in README.txt and violations.json verified ``unchecked`` as a damaged store's bundle, and a damaged store's bundle
without the failure warning zx audit always writes passed too; its states' bar said ``1/0``. D2: warning lines
duplicated, swapped or (by this zx's rules) dropped were not caught. D3: the first differing line was quoted from its
start, cut at 100 characters, non-ASCII as is: a Cyrillic о, an NFD é and an edit past character 100 gave two quotes
that read alike. D4: a genuine bundle of ``zx audit MATCH --catalog OTHER`` (X610Z: ``--board FILE``), whose README.txt
says so, was ``altered``. N2: 10,000 spaces after a key verified ``ok``.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx

ROOT = Path(__file__).resolve().parent.parent
INVALID = ROOT / "examples" / "invalid"
SAMPLE = ROOT / "zx_events" / "games" / "zx" / "catalogs" / "sample.csv"
COLOUR, SQUARE = "invalid-204.6-colour", "invalid-303.1-event-put-on-square"
WRITTEN = "the bundle's README.txt is not the one zx audit writes of its match: its line "


def invoke(*args: str):
    return CliRunner().invoke(zx, list(args), terminal_width=400)


def head_of(bundle: Path) -> str:
    return next(ln.split()[2] for ln in zipfile.ZipFile(bundle).read("README.txt").decode().splitlines()
                if ln.startswith("head digest:"))


def audit(store: Path, match: str, bundle: Path, *options: str) -> Path:
    r = invoke("--store", str(store), "audit", match, "--bundle", str(bundle), *options)
    assert bundle.is_file(), r.output
    return bundle


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict:
    """Genuine bundles: of a stored match (204.6) audited as pinned, with another catalog file (D4) and by another
    rules version (an older zx: D2); of a match pinned to a catalog zx does not ship, audited with the shipped one (two
    warnings, this zx's rules: D2); and of a store whose seal entry was edited (its README records the failure: D1)."""
    tmp = tmp_path_factory.mktemp("forged")
    other = tmp / "other cat.csv"  # (sample.csv with two cards changed: another content than the match pinned)
    other.write_text(SAMPLE.read_text(encoding="utf-8")
                     .replace("R01-001,Ember Whelp Scout,Z/X,red,0,1500", "R01-001,Ember Whelp Scout,Z/X,red,0,2500")
                     .replace("R01-002,Cinder Hatchling,Z/X,red,", "R01-002,Cinder Hatchling,Z/X,blue,"),
                     encoding="utf-8")
    store, store2 = tmp / "s.sqlite", tmp / "s2.sqlite"
    assert invoke("--store", str(store), "import", "--no-analytics", "--accept-violations",
                  str(INVALID / "204.6-colour.zxlog")).exit_code == 0
    assert invoke("--store", str(store2), "import", "--no-analytics", "--accept-violations", "--catalog", str(other),
                  str(INVALID / "303.1-event-put-on-square.zxlog")).exit_code == 0
    out = {"tmp": tmp, "other": other,
           "genuine": audit(store, COLOUR, tmp / "genuine.zip"),
           "catalog": audit(store, COLOUR, tmp / "catalog.zip", "--catalog", str(other)),
           "square": audit(store2, SQUARE, tmp / "square.zip")}
    from zx_events import games

    with pytest.MonkeyPatch.context() as mp:  # (the audit by an older zx: its rules version another)
        mp.setattr(type(games.get("zx")), "rules_version", "zx-cr-seed-2026.11+digest.999")
        out["old"] = audit(store, COLOUR, tmp / "old.zip", "--catalog", str(other))
        out["old1"] = audit(store, COLOUR, tmp / "old1.zip")  # (one warning: the rules')
    sealed = tmp / "seal.sqlite"  # the seal entry edited: the store's integrity fails, the match's chain is intact
    sealed.write_bytes(store.read_bytes())
    n = sum(1 for ln in zipfile.ZipFile(out["genuine"]).read("events.jsonl").decode().splitlines() if ln.strip())
    with sqlite3.connect(sealed) as db:
        (state,) = db.execute("select state from stored_events where topic like '%ledger%'").fetchone()
        db.execute("update stored_events set state = ? where topic like '%ledger%'",
                   (bytes(state).replace(f'",{n},"'.encode(), f'",{n + 1},"'.encode()),))
    out["failed"] = audit(sealed, COLOUR, tmp / "failed.zip")
    assert "integrity:      seal (" in zipfile.ZipFile(out["failed"]).read("README.txt").decode()
    out["head"] = head_of(out["genuine"])
    return out


def rewritten(bundle: Path, out: Path, readme=None, **files) -> Path:
    """``bundle`` with its README.txt's text through ``readme`` and each file of ``files`` (its name with ``/`` as
    ``__``) through its function."""
    changes = {"README.txt": readme, **{name.replace("__", "/"): f for name, f in files.items()}}
    with zipfile.ZipFile(bundle) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as w:
        for info in z.infolist():
            data = z.read(info.filename)
            change = changes.get(info.filename)
            w.writestr(info, change(data.decode("utf-8")).encode("utf-8") if change else data)
    return out


def verify(path: Path, head: str | None = None):
    r = invoke("verify", "--bundle", str(path), *(["--head", head] if head else []), "--format", "json")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception  # (never a traceback)
    assert "This is a bug in zx" not in r.output, r.output
    (v,) = json.loads(r.stdout)
    return r, v


def lines_of(text: str, key: str) -> list[int]:
    return [i for i, ln in enumerate(text.split("\n")) if ln.startswith(key)]


# ---------------------------------------------------------------------------------------------------------- D1

def made_up(text: str, integrity: str) -> str:
    """README.txt with its ``integrity:`` value edited and a second violation made up under the first."""
    lines = text.split("\n")
    lines[lines_of(text, "integrity:")[0]] = f"integrity:      {integrity}"
    at = lines.index("1 violation:")
    lines[at] = "2 violations:"
    lines.insert(at + 2, lines[at + 1].replace("   1.", "   2.").rsplit("): ", 1)[0]
                 + "): P2 looked at P1 hand (judge ruling: game loss for P2)")
    return "\n".join(lines)


def two_violations(text: str) -> str:
    v = json.loads(text)
    v.append(dict(v[0], n=2, message="P2 looked at P1 hand (judge ruling: game loss for P2)", states=None))
    return json.dumps(v, indent=2)


@pytest.mark.parametrize("integrity", ["ok (re-verified by the head judge)", "FAILED (3 events rewritten)", "seal",
                                       "altered", "ok ()"])
def test_an_integrity_zx_audit_never_writes_with_a_made_up_violation_is_altered_naming_its_line(made, tmp_path,
                                                                                                 integrity):
    forged = rewritten(made["genuine"], tmp_path / "f.zip", lambda t: made_up(t, integrity),
                       **{"violations.json": two_violations})
    r, v = verify(forged, made["head"])
    assert (r.exit_code, v["status"]) == (1, "altered"), v  # (it was unchecked, as a damaged store's bundle)
    assert v["message"].startswith(f"the bundle's README.txt records integrity {integrity!r} (its line 9), which zx "
                                   f"audit never writes: it writes `ok`, or the store's failure as `STATUS (what "
                                   f"failed)`"), v
    assert v["message"].endswith(": README.txt was edited; its events are intact"), v


def test_a_damaged_stores_bundle_is_unchecked_and_altered_without_its_failure_warning(made, tmp_path):
    r, v = verify(made["failed"])
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v
    text = zipfile.ZipFile(made["failed"]).read("README.txt").decode()
    (first,) = lines_of(text, "warning:")[:1]
    assert "fails verification (seal: " in text.split("\n")[first]

    def dropped(t: str) -> str:
        return "\n".join(ln for i, ln in enumerate(t.split("\n")) if i != first)

    r, v = verify(rewritten(made["failed"], tmp_path / "f.zip", dropped))
    assert (r.exit_code, v["status"]) == (1, "altered"), v  # (it was unchecked: no line in it zx does not write)
    assert v["message"].startswith(f"{WRITTEN}{first + 1} differs at column 1: it holds "), v
    # and its failure made up in a genuine bundle's README: the failure's status with its warning, zx audit's words
    failed_lines = text.split("\n")

    def failure_made_up(t: str) -> str:
        lines = t.split("\n")
        lines[lines_of(t, "integrity:")[0]] = failed_lines[lines_of(text, "integrity:")[0]]
        return "\n".join(lines)

    r, v = verify(rewritten(made["genuine"], tmp_path / "g.zip", failure_made_up), made["head"])
    assert (r.exit_code, v["status"]) == (1, "altered") and v["message"].startswith(WRITTEN), v


def test_the_states_bar_of_a_damaged_stores_bundle_counts_its_states(made):
    """N1: the bar's total was violations.json's count, none where the store had failed: ``1/0``."""
    from zx_events.bundle import check_bundle

    seen: list[tuple[int, int]] = []
    verdict, _ = check_bundle(str(made["failed"]), None, lambda done, total: seen.append((done, total)))
    assert verdict.status == "unchecked" and seen == [(1, 1)], (verdict, seen)


# ---------------------------------------------------------------------------------------------------------- D2

def warnings_changed(how: str):
    def change(t: str) -> str:
        lines = t.split("\n")
        at = lines_of(t, "warning:")
        if how == "dup":
            lines.insert(at[0] + 1, lines[at[0]])
        elif how == "swap":
            lines[at[0]], lines[at[1]] = lines[at[1]], lines[at[0]]
        else:
            del lines[at[0]]
        return "\n".join(lines)
    return change


@pytest.mark.parametrize("how", ["dup", "swap", "drop"])
def test_warning_lines_duplicated_swapped_or_dropped_by_this_zxs_rules_are_altered(made, tmp_path, how):
    """Another catalog than pinned (two warnings): README.txt names this zx's rules version, so all of them, in
    order (the branch of violations other than recorded took some of them, in the forger's order, copies kept)."""
    r, v = verify(made["square"])
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v  # (its violations found by another catalog)
    assert len(lines_of(zipfile.ZipFile(made["square"]).read("README.txt").decode(), "warning:")) == 2
    r, v = verify(rewritten(made["square"], tmp_path / "f.zip", warnings_changed(how)))
    assert (r.exit_code, v["status"]) == (1, "altered"), v
    assert v["message"].startswith(WRITTEN) and "differs at column 17: it holds " in v["message"], v


@pytest.mark.parametrize("tail", ["   (approved by the head judge)", " ", "\u00a0"])
def test_words_after_the_catalog_used_where_the_violations_differ_are_altered(made, tmp_path, tail):
    """No state is derived where its violations differ from the recorded ones: the catalog it names was not checked,
    and one with words after its hash (read as its hash) verified ``unchecked``."""
    def change(t: str) -> str:
        return re.sub(r"^(catalog used: .*)$", lambda m: m.group(1) + tail, t, count=1, flags=re.M)

    r, v = verify(rewritten(made["square"], tmp_path / "f.zip", change))
    assert (r.exit_code, v["status"]) == (1, "altered"), v
    assert v["message"].startswith(("the bundle's README.txt names catalog sample sha256 ", WRITTEN)), v


def test_an_older_zxs_bundle_is_intact_and_its_warning_duplicated_altered(made, tmp_path):
    """A copy of a warning kept the forger's copy (``[w for w in warnings if w in derived]``): intact, exit 0."""
    r, v = verify(made["old1"], made["head"])
    assert (r.exit_code, v["status"]) == (0, "ok"), v  # (its states derive alike here: checked whole)
    r, v = verify(rewritten(made["old1"], tmp_path / "f.zip", warnings_changed("dup")), made["head"])
    assert (r.exit_code, v["status"]) == (1, "altered"), v
    assert v["message"].startswith(f"{WRITTEN}12 differs at column 1: it holds 'warning:  "), v


def test_an_older_zxs_bundle_verifies_and_its_warnings_duplicated_or_swapped_are_altered(made, tmp_path):
    """By another rules version some of zx audit's warnings, in order: one left out is what an older release wrote;
    a copy or two swapped are no release's."""
    text = zipfile.ZipFile(made["old"]).read("README.txt").decode()
    assert "rules version:  zx-cr-seed-2026.11+digest.999" in text and len(lines_of(text, "warning:")) >= 2, text
    r, v = verify(made["old"], made["head"])
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v  # (another catalog file: D4, below)
    for how in ("dup", "swap"):
        r, v = verify(rewritten(made["old"], tmp_path / "f.zip", warnings_changed(how)), made["head"])
        assert (r.exit_code, v["status"]) == (1, "altered"), (how, v)  # (a copy was kept: unchecked, or intact)
        assert v["message"].startswith(WRITTEN), v
    def rules_dropped(t: str) -> str:  # (the rules' warning: an older release wrote none)
        return "\n".join(ln for ln in t.split("\n") if not (ln.startswith("warning:") and "against rules" in ln))

    r, v = verify(rewritten(made["old"], tmp_path / "f.zip", rules_dropped), made["head"])
    assert v["status"] == "unchecked", v
    # the catalog's warning dropped: the bundle's catalog.csv is then one its README does not say it used
    r, v = verify(rewritten(made["old"], tmp_path / "f.zip", warnings_changed("drop")), made["head"])
    assert v["status"] == "altered" and v["message"].startswith("the bundle's catalog.csv is not the catalog"), v


# ---------------------------------------------------------------------------------------------------------- D3

@pytest.mark.parametrize("change, said", [
    (lambda t: t.replace("\nContents:", "\nC\u043entents:"),
     "differs at column 2: it holds 'C\\u043entents:', zx audit writes 'Contents:'"),
    (lambda t: t.replace("score sheet's)", "score sheet's) or trust this README"),
     "differs at column 128: it holds '...e score sheet\\'s) or trust this README', zx audit writes "
     "'...e score sheet\\'s)'"),
])
def test_the_first_differing_line_is_quoted_at_its_column_with_look_alikes_escaped(made, tmp_path, change, said):
    r, v = verify(rewritten(made["genuine"], tmp_path / "f.zip", change), made["head"])
    assert (r.exit_code, v["status"]) == (1, "altered") and v["message"].startswith(WRITTEN), v
    m = re.search(r"differs at column \d+: it holds ('.*'), zx audit writes ('.*'): README\.txt was edited",
                  v["message"])
    assert m is not None and m.group(1) != m.group(2), v  # (the two quotes read apart)
    if said is not None:
        assert said in v["message"], v


def test_an_nfd_letter_is_quoted_as_its_escapes(made, tmp_path):
    """``source:`` (the Started event's) edited to its NFD form: the same letters to the eye."""
    def nfd(t: str) -> str:
        return "\n".join(unicodedata.normalize("NFD", ln.replace("colour", "colouré")) if ln.startswith("source:")
                         else ln for ln in t.split("\n"))

    from zx_events.bundle import _differing

    column, theirs, ours = _differing("source: café", unicodedata.normalize("NFD", "source: café"))
    assert (column, theirs, ours) == (12, "'source: caf\\u00e9'", "'source: cafe\\u0301'")
    r, v = verify(rewritten(made["genuine"], tmp_path / "f.zip", nfd), made["head"])
    assert v["status"] == "altered" and "colour" in v["message"], v


# ---------------------------------------------------------------------------------------------------------- D4

def test_a_bundle_audited_with_another_catalog_its_readme_names_is_unchecked_and_says_so(made, tmp_path):
    r, v = verify(made["catalog"], made["head"])
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v  # (it was altered: "edited, swapped, or given ...")
    assert "its README.txt says the audit judged by catalog other cat (sha256 " in v["message"], v
    assert "the bundle's file, not by the one its match pinned (catalog sample (sha256 d1f17d68f09f))" in v["message"]
    assert r.stderr.splitlines()[-1].startswith("UNCHECKED: "), r.stderr
    # a catalog file swapped in without README.txt saying so, or without its warning, stays altered; a state edited
    # is (its states are derived again by that file)
    pinned = "catalog used:   sample sha256 d1f17d68f09ff83ffc0691b9f7785b0cca6cd7e08109f7a38ea8add710f972c9"
    for readme in (lambda t: re.sub(r"catalog used: .*", pinned, t),
                   lambda t: re.sub(r"warning: .*\n", "", t)):
        r, v = verify(rewritten(made["catalog"], tmp_path / "f.zip", readme), made["head"])
        assert (r.exit_code, v["status"]) == (1, "altered"), v
        assert v["message"].startswith("the bundle's catalog.csv is not the catalog its match was imported with"), v
    swapped = tmp_path / "swapped.zip"  # the genuine bundle with the other catalog added
    with zipfile.ZipFile(made["genuine"]) as z, zipfile.ZipFile(swapped, "w") as w:
        for info in z.infolist():
            w.writestr(info, z.read(info.filename))
        w.writestr("catalog.csv", made["other"].read_bytes())
    r, v = verify(swapped, made["head"])
    assert v["status"] == "altered" and "does not say the audit used it" in v["message"], v
    r, v = verify(rewritten(made["catalog"], tmp_path / "s.zip", None, **{
        "violation-01/state-after.json": lambda t: t.replace('"turn": 1,', '"turn": 2,', 1)}), made["head"])
    assert v["status"] == "altered" and "violation-01/state-after.json" in v["message"], v


@pytest.mark.parametrize("file_name", ["esc\x1b[31mred.csv", "new\nline.csv", "zero\u200bwidth.csv", "a\\x1b.csv"])
def test_a_bundle_audited_with_another_catalog_of_any_name_is_unchecked(made, tmp_path, file_name):
    """Its name is escaped in README.txt, and its states hold it as it is: they derive alike under it."""
    store = tmp_path / "s.sqlite"
    assert invoke("--store", str(store), "import", "--no-analytics", "--accept-violations",
                  str(INVALID / "204.6-colour.zxlog")).exit_code == 0
    catalog = tmp_path / file_name
    catalog.write_bytes(made["other"].read_bytes())
    path = audit(store, COLOUR, tmp_path / "b.zip", "--catalog", str(catalog))
    r, v = verify(path)
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v
    assert "its README.txt says the audit judged by catalog " in v["message"] and "\x1b" not in r.output, v


def test_an_x610z_bundle_audited_with_a_venues_board_is_unchecked(tmp_path):
    log = ROOT / "examples" / "x610z" / "invalid" / "502.5-hand-limit.x610zlog"
    board = ROOT / "zx_events" / "games" / "x610z" / "boards" / "x610z-orbits-sample.json"
    match = json.loads(log.read_text(encoding="utf-8").splitlines()[0])["match"]
    venue, store, path = tmp_path / "venue.json", tmp_path / "x.sqlite", tmp_path / "x.zip"
    venue.write_text(board.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # (another content, same board)
    assert invoke("--store", str(store), "import", "--no-analytics", "--accept-violations", str(log)).exit_code == 0
    audit(store, match, path, "--board", str(venue))
    r, v = verify(path)
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v
    assert "its README.txt says the audit judged by board x610z-orbits-sample (sha256 " in v["message"], v


def test_an_x610z_bundle_audited_with_a_board_of_another_name_is_unchecked(tmp_path):
    """The audit finds the log malformed (its header names another board) and reads no board: its README.txt's pins
    line names the catalog and rules alone, its finding is a format one (rule null), its count warning counts rule
    findings: all as zx audit writes them, which the check called "other pins" (edited)."""
    log = ROOT / "examples" / "x610z" / "invalid" / "502.5-hand-limit.x610zlog"
    board = ROOT / "zx_events" / "games" / "x610z" / "boards" / "x610z-orbits-sample.json"
    match = json.loads(log.read_text(encoding="utf-8").splitlines()[0])["match"]
    venue, store, path = tmp_path / "venue.json", tmp_path / "x.sqlite", tmp_path / "x.zip"
    data = json.loads(board.read_text(encoding="utf-8"))
    venue.write_text(json.dumps({**data, "name": "venue-board"}), encoding="utf-8")
    assert invoke("--store", str(store), "import", "--no-analytics", "--accept-violations", str(log)).exit_code == 0
    audit(store, match, path, "--board", str(venue))
    text = zipfile.ZipFile(path).read("README.txt").decode()
    assert "holds board 'venue-board'" in text and "catalog used:   None sha256 None" in text, text
    r, v = verify(path)
    assert (r.exit_code, v["status"]) == (1, "unchecked"), v
    r, v = verify(rewritten(path, tmp_path / "f.zip", lambda t: re.sub(r"warning: .*\n", "", t)))
    assert (r.exit_code, v["status"]) == (1, "altered") and v["message"].startswith(WRITTEN), v


# ---------------------------------------------------------------------------------------------------------- N2

def test_the_spaces_after_a_key_are_at_most_zx_audits_alignment(made, tmp_path):
    def spaced(n: int):
        return lambda t: re.sub(r"^source: +", "source:" + " " * n, t, count=1, flags=re.M)

    for n in (1, 9):  # (one space says the same; 9: as zx audit aligns it)
        r, v = verify(rewritten(made["genuine"], tmp_path / "f.zip", spaced(n)), made["head"])
        assert (r.exit_code, v["status"]) == (0, "ok"), (n, v)
    for n in (10, 10_000):
        r, v = verify(rewritten(made["genuine"], tmp_path / "f.zip", spaced(n)), made["head"])
        assert (r.exit_code, v["status"]) == (1, "altered"), (n, v)
        assert v["message"].startswith(f"{WRITTEN}3 differs at column ") and len(v["message"]) < 600, v
