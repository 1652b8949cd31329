"""``zx audit``: every violation of a log or a stored match, the JSON contract, pins, and bundles."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from test_verify import Tamper
from zx_events import integrity
from zx_events.audit import audit_log, audit_stored, stored_log
from zx_events.logformat.reader import parse_log, read_log
from zx_events.games.zx.match import match_uuid
from zx_events.games.zx.rules import RULES_VERSION, title

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "examples" / "legal" / "first-turns.zxlog"
INVALID = ROOT / "examples" / "invalid"
MANIFEST = json.loads((INVALID / "expected.json").read_text(encoding="utf-8"))
THREE_ID = "audit-three"
# (line, turn, player, rule) of the three wrong steps put into the legal example below
THREE = [(10, 2, "P2", "503.3"), (12, 2, "P2", "504.3"), (22, 3, "P1", "602.1b")]


def three_violations_text() -> str:
    """The legal example with three wrong steps: a draw of 3, a second Resource, an attack out of reach."""
    lines = LEGAL.read_text(encoding="utf-8").splitlines()
    recs = [json.loads(line) for line in lines]
    recs[0]["match"] = THREE_ID
    recs[9] = {"do": "draw", "by": "P2", "cards": ["U01-003", "U01-004", "U01-005"]}  # line 10
    recs.insert(11, {"do": "resource", "by": "P2", "card": "U01-005"})  # line 12
    c3 = next(i for i, r in enumerate(recs) if r.get("do") == "attack" and r["from"] == "c3")
    assert c3 + 1 == 22
    recs[c3] = {"do": "attack", "by": "P1", "from": "c3", "target": "a2"}  # line 22: distance 3, no Range
    # b2 now attacks b3 (legal), so the one wrong attack costs one finding (it opens no battle, 602.1c)
    recs[c3 + 1] = {"do": "attack", "by": "P1", "from": "b2", "target": "b3"}
    return "".join(json.dumps(r) + "\n" for r in recs)


@pytest.fixture
def three(tmp_path: Path) -> Path:
    path = tmp_path / "three.zxlog"
    path.write_text(three_violations_text(), encoding="utf-8")
    return path


def run(*args: str, store: str | None = None):
    base = ["--store", store] if store else []
    return CliRunner().invoke(zx, [*base, "audit", *args])


def json_lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


# ---------------------------------------------------------------------- log files
def test_log_with_three_violations_reports_all_three(three, tmp_path):
    store = tmp_path / "none.sqlite"
    r = run(str(three), "--format", "json", store=str(store))
    assert r.exit_code == 1, r.output
    (out,) = json_lines(r.stdout)
    got = [(v["line"], v["turn"], v["player"], v["rule"]) for v in out["violations"]]
    assert got == THREE
    assert out["violations"][2]["message"] == "a2 is not next to c3 and c3 has no Range"
    assert out["ok"] is False and out["integrity"] == "not stored"
    assert not store.exists()  # auditing a file never creates a store


def test_table_is_the_default(three):
    r = run(str(three))
    assert r.exit_code == 1
    assert "3 rule violations in 1 match" in r.stdout
    for line, _, _, rule in THREE:
        assert rule in r.stdout and f"│ {line} " in r.stdout
    assert f"{THREE_ID} ({three}): 3 violations; checked with catalog sample" in r.stderr
    assert RULES_VERSION in r.stderr


def test_csv(three):
    r = run(str(three), "--format", "csv")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[0] == "match,line,seq,turn,player,rule,message,kind,source"
    assert lines[1] == f"{THREE_ID},10,,2,P2,503.3,\"3 cards drawn in the Draw Phase, needs exactly 2\",rule,{three}"
    assert len(lines) == 4


def test_a_malformed_log_is_the_same_finding_in_csv_and_json():
    """A malformed log's finding was rule ``format`` in CSV and rule null in JSON: both machine outputs
    now give the rule empty (null) and kind ``format``; the table, read by a person, shows ``format``."""
    import csv

    bad = str(INVALID / "format-bad-json.zxlog")
    (out,) = json_lines(run(bad, "--format", "json").stdout)
    (finding,) = out["violations"]
    assert (finding["rule"], finding["kind"], finding["line"]) == (None, "format", 6)
    r = run(bad, "--format", "csv")
    (row,) = list(csv.DictReader(io.StringIO(r.stdout)))
    assert r.exit_code == 1 and (row["rule"], row["kind"], row["line"]) == ("", "format", "6")
    assert row["message"] == finding["message"]
    r = run(bad)
    assert r.exit_code == 1 and any("│ format " in line and "bad JSON" in line for line in r.stdout.splitlines())


def test_clean_example_exits_0():
    r = run(str(LEGAL), "--format", "json")
    assert r.exit_code == 0, r.output
    (out,) = json_lines(r.stdout)
    assert out["ok"] is True and out["violations"] == []
    assert out["events"] == 31  # the engine's events for this log (a stored copy adds its seal)


def test_json_contract_one_object_per_match_per_line(three, tmp_path):
    both = tmp_path / "both.zxlog"
    both.write_text(LEGAL.read_text(encoding="utf-8") + three.read_text(encoding="utf-8"), encoding="utf-8")
    r = run(str(both), "--format", "json")
    assert r.exit_code == 1
    outs = json_lines(r.stdout)
    assert [o["match"] for o in outs] == ["hand-first-turns-001", THREE_ID]
    for o in outs:
        assert {"match", "source", "events", "ok", "violations", "integrity"} <= set(o)
        assert o["source"] == str(both)
        assert o["catalog"]["name"] == "sample" and len(o["catalog"]["sha256"]) == 64
        assert o["rules_version"] == RULES_VERSION
    v = outs[1]["violations"][0]
    assert {"line", "turn", "player", "rule", "message"} <= set(v)
    assert isinstance(v["rule"], str) and v["line"] == 10 + 23  # the second match starts on line 24
    assert v["title"] == title("503.3")


def test_format_error_is_a_finding_with_its_line(tmp_path):
    text = LEGAL.read_text(encoding="utf-8").splitlines()
    text[2] = text[2][:-1]  # line 3: bad JSON
    path = tmp_path / "broken.zxlog"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    r = run(str(path), "--format", "json")
    assert r.exit_code == 1
    (out,) = json_lines(r.stdout)
    (v,) = out["violations"]
    assert (v["kind"], v["line"], v["rule"]) == ("format", 3, None)
    assert v["message"].startswith("bad JSON")


def test_neither_file_nor_stored_match(service, store_url):
    r = run("no-such-thing", store=store_url)
    assert r.exit_code == 1
    assert "unknown match 'no-such-thing': it is neither a log file nor in the store " in r.output


def test_no_store_is_not_created_for_an_unknown_target(tmp_path):
    store = tmp_path / "s.sqlite"
    r = run("typo.zxlog", store=str(store))
    assert r.exit_code == 1
    assert f"unknown match 'typo.zxlog': it is neither a log file nor a stored match (there is no store at {store})" \
        in r.output
    assert not store.exists()


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_invalid_example_audits_with_exactly_the_expected_line_and_rule(name):
    expected = MANIFEST[name]
    findings = [f for log in read_log(INVALID / name) for f in audit_log(log).findings]
    assert [(f.line, f.rule, f.kind) for f in findings] == [(expected["line"], expected["rule"], expected["kind"])]
    assert expected["message_contains"] in findings[0].message


def test_every_invalid_example_through_the_cli():
    files = sorted(str(INVALID / n) for n in MANIFEST)
    r = run(*files, "--format", "json")
    assert r.exit_code == 1
    outs = json_lines(r.stdout)
    by_source = {}
    for o in outs:
        assert o["ok"] is False
        by_source.setdefault(Path(o["source"]).name, []).extend(o["violations"])
    assert {n: [(v["line"], v["rule"]) for v in vs] for n, vs in by_source.items()} == \
        {n: [(e["line"], e["rule"])] for n, e in MANIFEST.items()}


# ---------------------------------------------------------------------- stored matches
def test_stored_match_with_accepted_violations_audits_with_all_three(three, service, store_url):
    imp = CliRunner().invoke(zx, ["--store", store_url, "import", "--accept-violations", str(three),
                                  "--format", "json"])
    assert imp.exit_code == 0, imp.output
    (outcome,) = json.loads(imp.stdout)
    assert outcome["status"] == "imported" and len(outcome["violations"]) == 3 and len(outcome["head"]) == 64
    table = CliRunner().invoke(zx, ["--store", store_url, "import", "--accept-violations", str(three)])
    assert outcome["head"][:16] in table.stdout  # the head for the score sheet, on re-import too
    strict = CliRunner().invoke(zx, ["--store", store_url, "import", str(three)])  # refused: it breaks 3 rules
    assert strict.exit_code == 1 and "stored as played, with 3 violations" in strict.stderr, strict.output
    r = run(THREE_ID, "--format", "json", store=store_url)
    assert r.exit_code == 1, r.output
    (out,) = json_lines(r.stdout)
    assert out["events"] == outcome["events"] == 31  # (the attack out of reach opens no battle: 602.1c, digest.12)
    assert out["integrity"] == "ok" and out["head"] == outcome["head"]
    assert [(v["line"], v["turn"], v["player"], v["rule"]) for v in out["violations"]] == \
        [(None, t, p, rule) for _, t, p, rule in THREE]
    rows = integrity.stored_rows(service, match_uuid(THREE_ID))
    for v, (line, *_rest) in zip(out["violations"], THREE):  # seq: the event that carries that record
        assert rows[v["seq"] - 1].state["line"] == line and rows[v["seq"] - 1].state["rec"] is not None
    assert out["pinned"] == {"catalog": out["catalog"], "rules_version": RULES_VERSION}
    assert out["warnings"] == []
    assert "seq" in r.stdout and "integrity ok" in r.stderr


def test_stored_log_reproduces_the_imported_content(three, service):
    """Every record is carried by an event: the rebuilt log has the content hash of the original."""
    logs = [*read_log(LEGAL), *read_log(three)]
    logs += [log for n in sorted(MANIFEST) if MANIFEST[n]["kind"] == "rule" for log in read_log(INVALID / n)]
    for log in logs:
        assert service.import_log(log, accept_violations=True).status == "imported", log.source
        rebuilt = stored_log(integrity.stored_rows(service, match_uuid(log.match_id)))
        assert rebuilt.header == log.header
        assert [(r.line, r.data) for r in rebuilt.records] == [(r.line, r.data) for r in log.records]
        assert rebuilt.content_sha256 == log.content_sha256


def test_tampered_stored_match_fails_its_integrity(three, service, store_url):
    (log,) = read_log(three)
    service.import_log(log, accept_violations=True)
    t = Tamper(service)
    seq = t.seq_of(THREE_ID, "zx.match:ResourcePlaced", 3)  # P2's second Resource, line 12
    t.set_state(THREE_ID, seq, t.state(THREE_ID, seq).replace(b"U01-005", b"U01-009"))
    r = run(THREE_ID, "--format", "json", store=store_url)
    assert r.exit_code == 1
    (out,) = json_lines(r.stdout)
    assert out["integrity"] == "altered" and out["ok"] is False
    assert f"seq {seq}" in out["integrity_detail"]
    assert "integrity altered" in r.stderr


def test_log_file_compared_with_the_store(three, service, store_url, tmp_path):
    (log,) = read_log(LEGAL)
    service.import_log(log)
    r = run(str(LEGAL), "--format", "json", store=store_url)
    (out,) = json_lines(r.stdout)
    assert r.exit_code == 0 and out["integrity"] == "ok" and out["head"] == integrity.stored_head(
        service, match_uuid(log.match_id))
    changed = tmp_path / "changed.zxlog"
    changed.write_text(LEGAL.read_text(encoding="utf-8").replace('"note": "opening drop"', '"note": "x"'),
                       encoding="utf-8")
    r = run(str(changed), "--format", "json", store=store_url)
    (out,) = json_lines(r.stdout)
    assert r.exit_code == 1 and out["integrity"] == "differs"
    assert "with other content" in out["integrity_detail"]


def test_audit_warns_when_the_pinned_catalog_or_rules_differ(three, service, store_url, tmp_path, monkeypatch):
    import zx_events.games.zx.setup

    monkeypatch.setattr(zx_events.games.zx.setup, "RULES_VERSION", "zx-cr-older")
    (log,) = read_log(LEGAL)
    service.import_log(log)
    monkeypatch.undo()
    sample = (ROOT / "zx_events" / "games" / "zx" / "catalogs" / "sample.csv").read_text(encoding="utf-8")
    other = tmp_path / "sample-v2.csv"
    other.write_text(sample.replace("Ember Whelp Scout", "Ember Whelp Scout v2"), encoding="utf-8")
    r = run(log.match_id, "--catalog", str(other), "--format", "json", store=store_url)
    # another rules version is a warning; another catalog than the pinned one is no clean audit (QA round 35)
    assert r.exit_code == 1, r.output
    (out,) = json_lines(r.stdout)
    assert out["ok"] is False and out["other_than_pinned"] == ["catalog"] and out["violations"] == []
    assert out["pinned"]["rules_version"] == "zx-cr-older"
    assert out["catalog"]["sha256"] != out["pinned"]["catalog"]["sha256"]
    assert len(out["warnings"]) == 2
    assert "against catalog sample" in out["warnings"][0] and "pass --catalog" in out["warnings"][0]
    assert "against rules zx-cr-older, this audit used " + RULES_VERSION in out["warnings"][1]
    assert r.stderr.count("warning: hand-first-turns-001:") == 2


# ---------------------------------------------------------------------- dispute bundles
def test_bundle_of_a_stored_match(three, service, store_url, tmp_path):
    (log,) = read_log(three)
    head = service.import_log(log, accept_violations=True).head
    path = tmp_path / "dispute.zip"
    r = run(THREE_ID, "--bundle", str(path), store=store_url)
    assert r.exit_code == 1 and f"dispute bundle written to {path}" in r.stderr
    z = zipfile.ZipFile(path)
    names = set(z.namelist())
    assert {"README.txt", "original.zxlog", "events.jsonl", "violations.json"} <= names
    for n in (1, 2, 3):
        assert {f"violation-0{n}/state-before.json", f"violation-0{n}/state-after.json"} <= names
    # the original log: same content, every record on its line
    (again,) = parse_log(z.read("original.zxlog").decode(), "original.zxlog")
    assert again.content_sha256 == log.content_sha256
    assert [f.line for f in audit_log(again).findings] == [line for line, *_ in THREE]
    # the events with their digests: the stored chain
    events = [json.loads(line) for line in z.read("events.jsonl").decode().splitlines()]
    rows = integrity.stored_rows(service, match_uuid(THREE_ID))
    assert [(e["seq"], e["topic"], e["digest"]) for e in events] == [(r.seq, r.topic, r.digest) for r in rows]
    assert events[-1]["digest"] == head and "digest" not in events[0]["payload"]
    # each violation: rule number and title, seq and line
    vs = json.loads(z.read("violations.json"))
    assert [(v["line"], v["rule"], v["title"]) for v in vs] == [(line, rule, title(rule)) for line, _, _, rule in THREE]
    assert all(v["seq"] and v["states"] == f"violation-0{v['n']}" for v in vs)
    assert vs[1]["record"] == {"do": "resource", "by": "P2", "card": "U01-005"}
    # the states around the second Resource: before it P2 has put one card into Resource, after it two
    before = json.loads(z.read("violation-02/state-before.json"))
    after = json.loads(z.read("violation-02/state-after.json"))
    assert set(before) == {"seq", "judge", "P1", "P2"}
    assert len(before["judge"]["players"]["P2"]["resource"]) == 3
    assert len(after["judge"]["players"]["P2"]["resource"]) == 4
    assert after["seq"] > before["seq"]
    # 301.3: P1 does not see P2's hand, P2 does, the judge sees both and the decks
    assert before["P1"]["players"]["P2"]["hand"] is None and before["P1"]["players"]["P2"]["hand_count"] == 6
    assert "U01-005" in before["P2"]["players"]["P2"]["hand"]
    assert before["P2"]["players"]["P1"]["hand"] is None
    assert before["judge"]["players"]["P1"]["deck"] and before["P1"]["players"]["P1"]["deck"] is None
    readme = z.read("README.txt").decode()
    assert f"head digest:    {head}" in readme and "integrity:      ok" in readme
    assert "reproduces the content hash recorded at import" in readme
    assert "rule 504.3 (Resource Phase: at most one card into Resource)" in readme


def test_bundle_of_a_log_file_keeps_its_own_lines(three, tmp_path):
    path = tmp_path / "file.zip"
    r = run(str(three), "--bundle", str(path))
    assert r.exit_code == 1
    z = zipfile.ZipFile(path)
    assert z.read("original.zxlog").decode() == three.read_text(encoding="utf-8")
    events = [json.loads(line) for line in io.TextIOWrapper(z.open("events.jsonl"), encoding="utf-8")]
    assert len(events) == 30 and all(len(e["digest"]) == 64 for e in events)
    assert "head digest:    (not stored)" in z.read("README.txt").decode()


def test_a_bundle_readme_escapes_control_characters_of_the_catalog_and_log(tmp_path):
    """An X610Z rule message (402.8) names a catalog's Class; a class holding ``ESC]0;...BEL ESC[2J`` went raw
    into README.txt: a head judge's ``cat`` set the window title and cleared the screen. It is escaped there as
    zx audit escapes it in the terminal."""
    import csv

    rows = list(csv.reader(open(ROOT / "zx_events/games/x610z/catalogs/x610z-sample.csv", encoding="utf-8")))
    at = rows[0].index("class")
    for r in rows[1:]:  # (the Beasts are Mages too: P2's Forest Beast cast while his Storm Caller is in play is 402.8;
        # the cascade that gave one, after P1's cast at line 76 was refused, is gone since X610Z digest.9 plays it as
        # written, for a card of the hand the log does not name)
        if r[at] in ("Mage", "Beast"):
            r[at] = "Mage\x1b]0;OWNED\x07\x1b[2J"
    with open(tmp_path / "cards.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    lines = (ROOT / "examples/x610z/legal/life-base-destroyed.x610zlog").read_text(encoding="utf-8").splitlines()
    added = [{"do": "effect", "by": "P1", "source": "A1-031", "op": "search", "card": "A1-040"},
             {"do": "effect", "by": "P1", "source": "A1-031", "op": "zone", "card": "A1-024", "from": "hand", "to": "deck"}]
    log = tmp_path / "m.x610zlog"
    log.write_text("\n".join(lines[:11] + [json.dumps(r) for r in added] + lines[11:]) + "\n", encoding="utf-8")
    path = tmp_path / "b.zip"
    r = run("--catalog", str(tmp_path / "cards.csv"), str(log), "--bundle", str(path))
    assert r.exit_code == 1, r.output
    readme = zipfile.ZipFile(path).read("README.txt").decode()
    assert "rule 402.8" in readme and "Class Mage\\x1b]0;OWNED\\x07\\x1b[2J" in readme, readme
    assert "\x1b" not in readme and "\x07" not in readme


def test_a_bundle_never_replaces_a_file_unasked_and_leaves_nothing_beside_it(three, tmp_path):
    """--bundle onto an existing file is refused before any work; with --force it is replaced whole;
    no temporary file is left beside it (the bundle used to be written to FILE.zip.part first,
    replacing a file of that name)."""
    path = tmp_path / "dispute.zip"
    path.write_text("mine")
    (tmp_path / "dispute.zip.part").write_text("also mine")
    r = run(str(three), "--bundle", str(path))
    assert r.exit_code == 1 and "already exists" in r.output and path.read_text() == "mine"
    r = run(str(three), "--bundle", str(path), "--force")
    assert r.exit_code == 1 and f"dispute bundle written to {path}" in r.stderr
    assert zipfile.ZipFile(path).read("original.zxlog").decode() == three.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dispute.zip", "dispute.zip.part", three.name]
    assert (tmp_path / "dispute.zip.part").read_text() == "also mine"


def test_bundle_needs_exactly_one_match(three, tmp_path):
    r = run(str(three), str(LEGAL), "--bundle", str(tmp_path / "x.zip"))
    assert r.exit_code == 2 and "--bundle needs exactly one match" in r.output
    assert not (tmp_path / "x.zip").exists()


def test_audit_stored_library_call(three, service):
    (log,) = read_log(three)
    service.import_log(log, accept_violations=True)
    a = audit_stored(service, THREE_ID)
    assert [(f.rule, f.seq is not None) for f in a.findings] == [(rule, True) for *_, rule in THREE]
    assert a.verdict.ok and a.integrity_ok and not a.ok


def test_the_audit_api_says_what_to_give_and_names_an_unknown_match_as_replay_does(three, service, tmp_path):
    """``audit_stored(PATH, ...)`` and ``audit_log(PATH)`` were AttributeErrors from inside ('str' object has no
    attribute 'mapper' / 'game'), an unknown match a bare ZXError that ``except replay.UnknownMatch`` missed (QA
    round 34). Each is a TypeError saying what to give, or UnknownMatch in replay's words; a catalog is taken by
    its name, as import_logs takes it."""
    from zx_events import replay

    (log,) = read_log(three)
    service.import_log(log, accept_violations=True)
    for call, wanted in ((lambda: audit_stored(str(tmp_path / "s.sqlite"), THREE_ID), "takes a MatchService"),
                         (lambda: audit_stored(service, 5), "a match id is a str"),
                         (lambda: audit_log(str(three)), "takes one zx_events.logformat.reader.MatchLog"),
                         (lambda: audit_log(read_log(three)), "not list"),
                         (lambda: audit_log(log, catalog=3), "catalog must be a catalog's name or file")):
        with pytest.raises(TypeError, match=wanted):
            call()
    with pytest.raises(replay.UnknownMatch, match="unknown match 'nope': it is not in the store"):
        audit_stored(service, "nope")
    by_name = audit_log(log, catalog="sample")
    assert [f.rule for f in by_name.findings] == [f.rule for f in audit_log(log).findings] == [r for *_, r in THREE]
    assert by_name.catalog["name"] == "sample"
    assert [f.rule for f in audit_stored(service, THREE_ID, catalog="sample").findings] == [r for *_, r in THREE]


def test_an_empty_log_among_others_is_a_format_finding_and_the_others_are_audited(tmp_path):
    """``zx audit A EMPTY B`` stopped at the empty file with its error alone: no row for A or B, not even B's
    violation; ``zx import`` of the same files rejects the empty one and reads the others. It is now a finding
    of kind ``format`` naming the file, the other files audited as usual (exit 1)."""
    empty = tmp_path / "empty.zxlog"
    empty.write_text("")
    bom = tmp_path / "bom.zxlog"
    bom.write_bytes(b"\xef\xbb\xbf\n")
    bad = ROOT / "examples" / "invalid" / "503.3-too-many.zxlog"
    r = run(str(LEGAL), str(empty), str(bom), str(bad), "--format", "csv")
    assert r.exit_code == 1, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [(x["match"], x["rule"], x["kind"]) for x in rows] == [
        ("", "", "format"), ("", "", "format"), ("invalid-503.3-too-many", "503.3", "rule")]
    assert f"{empty} is empty: no match in it" in rows[0]["message"] and str(bom) in rows[1]["message"]
    out = json_lines(run(str(LEGAL), str(empty), str(bad), "--format", "json").stdout)
    assert [(o["match"], o["ok"]) for o in out] == [("hand-first-turns-001", True), (None, False),
                                                   ("invalid-503.3-too-many", False)]
    assert out[1]["source"] == str(empty) and out[1]["violations"][0]["kind"] == "format"


def test_the_audit_title_counts_malformed_logs_apart_from_rule_violations(tmp_path):
    """An empty file and a broken one were "2 violations in 2 matches": neither is a rule violation (docs/audit.md:
    a malformed log is a finding of kind format, with no rule), and neither holds a match."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    (tmp_path / "empty.zxlog").write_text("")
    (tmp_path / "bad.zxlog").write_text('{"zxlog": 1,\n')
    r = CliRunner().invoke(zx, ["audit", str(tmp_path / "empty.zxlog"), str(tmp_path / "bad.zxlog")])
    assert r.exit_code == 1 and "no rule violations and 2 malformed logs in 0 matches" in r.stdout, r.output
    r = CliRunner().invoke(zx, ["audit", str(tmp_path / "empty.zxlog"),
                                "examples/invalid/101.2-result-before-end.zxlog"])
    assert r.exit_code == 1 and "1 rule violation and 1 malformed log in 1 match" in r.stdout, r.output


def test_a_handed_in_log_that_differs_says_where_and_its_bundle_gives_the_stored_head(tmp_path):
    """A log whose stored match has other content: "integrity differs" named no line (and the rebuilt log's keys
    are sorted: a diff marked every line); its bundle said "head digest: (not stored)" under "differs"."""
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(LEGAL)]).exit_code == 0
    lines = LEGAL.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"square": "b2"' in line)
    lines[at] = lines[at].replace('"square": "b2"', '"square": "c2"')
    handed = tmp_path / "handed.zxlog"
    handed.write_text("\n".join(lines) + "\n")
    head = CliRunner().invoke(zx, ["--store", store, "verify", "hand-first-turns-001", "--format", "json"])
    stored_head = json.loads(head.stdout)[0]["head"]
    out = json.loads(run(str(handed), "--format", "json", store=store).stdout.splitlines()[0])
    assert out["integrity"] == "differs"
    assert f": first at {handed}:{at + 1}, " in out["integrity_detail"] and '"square": "c2"' in out["integrity_detail"]
    assert f"the stored match's head is {stored_head}" in out["integrity_detail"], out["integrity_detail"]
    bundle = tmp_path / "hf.zip"
    run(str(handed), "--bundle", str(bundle), store=store)
    readme = zipfile.ZipFile(bundle).read("README.txt").decode()
    assert "head digest:    (this log is not the stored match: its head is under integrity)" in readme, readme
    assert "(not stored)" not in readme


def test_a_log_audited_where_there_is_no_store_says_it_was_compared_with_none(tmp_path):
    """In a folder with no store, "integrity not stored" read as "this match was never imported"."""
    r = run(str(LEGAL), store=str(tmp_path / "nowhere.sqlite"))
    assert r.exit_code == 0 and "note: there is no store at " in r.stderr and "not compared with stored" in r.stderr
    assert not (tmp_path / "nowhere.sqlite").exists()


def test_verify_bundle_checks_a_dispute_bundle_without_the_store(tmp_path):
    """A head judge away from the store could not check a bundle: its README offered only `zx verify MATCH
    --head HEAD` against the store. `zx verify --bundle FILE [--head HEX]` recomputes its events' chain and checks
    its log against the content hash recorded at import; an edit to either, or another head, fails it."""
    store = str(tmp_path / "s.sqlite")
    assert CliRunner().invoke(zx, ["--store", store, "import", "--no-analytics", str(LEGAL)]).exit_code == 0
    stored = json.loads(CliRunner().invoke(zx, ["--store", store, "verify", "hand-first-turns-001", "--format",
                                                "json"]).stdout)[0]["head"]
    bundle = tmp_path / "d.zip"
    assert run("hand-first-turns-001", "--bundle", str(bundle), store=store).exit_code == 0

    def verify(path, *args):
        return CliRunner().invoke(zx, ["--store", str(tmp_path / "none.sqlite"), "verify", "--bundle", str(path),
                                       *args, "--format", "json"])

    ok = verify(bundle, "--head", stored[:16])
    assert ok.exit_code == 0, ok.output
    (v,) = json.loads(ok.stdout)
    assert (v["status"], v["head"], v["match"]) == ("ok", stored, "hand-first-turns-001")
    assert not (tmp_path / "none.sqlite").exists()
    assert json.loads(verify(bundle, "--head", "0" * 16).stdout)[0]["status"] == "head"

    def edited(name: str, change) -> Path:
        out = tmp_path / f"edited-{name}.zip"
        with zipfile.ZipFile(bundle) as z, zipfile.ZipFile(out, "w") as w:
            for item in z.namelist():
                data = z.read(item)
                w.writestr(item, change(data) if item == name else data)
        return out

    events = edited("events.jsonl", lambda b: b.replace(b'"square": "b2"', b'"square": "c2"', 1))
    r = verify(events)
    assert r.exit_code == 1 and json.loads(r.stdout)[0]["status"] == "altered", r.output
    log = edited("original.zxlog", lambda b: b.replace(b'"square": "b2"', b'"square": "c2"', 1))
    r = verify(log)
    assert r.exit_code == 1 and "does not reproduce the content hash" in json.loads(r.stdout)[0]["message"], r.output
    handed = tmp_path / "f.zip"
    run(str(LEGAL), "--bundle", str(handed))  # a log file's bundle: derived events, no chain to check
    r = verify(handed)
    assert r.exit_code == 1 and "the bundle of a log file, not of a stored match" in r.output
    seq = edited("events.jsonl", lambda b: b.replace(b'"seq": 3,', b'"seq": "three",', 1))
    r = verify(seq)
    assert r.exit_code == 1 and "events.jsonl:3: its seq is not a whole number" in r.output, r.output
    r = verify(tmp_path / "missing.zip")
    assert r.exit_code == 1 and "no bundle at" in r.output and "Traceback" not in r.output


def test_the_recount_warning_says_was_for_one_violation_and_were_for_others():
    from zx_events.audit import recount_warning

    assert recount_warning(1, 2) == "1 violation was recorded at import, the current rules engine finds 2"
    assert recount_warning(0, 1).startswith("0 violations were recorded at import")
    assert recount_warning(3, 1).startswith("3 violations were recorded at import")
