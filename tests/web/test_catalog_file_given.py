"""A match imported with a catalog file (``zx import --catalog jp-cards.csv``, how real Z/X venues work: their
catalog is a file, never shipped) is shown with that file's card names only when the user gives the file again:
``--catalog FILE`` of ``zx replay``, ``zx view``, ``zx report`` and ``zx serve`` (docs/security.md, section 5).

QA round 34 (Japanese data): a deck named after a card (紅蓮竜ヴァンガード軸), a Token named after one
(ｴﾝﾊﾞｰ･ﾎｴﾙﾌﾟ･ｽｶｳﾄの抜け殻), a player's name and a note reached P2, the spectator, /api/matches and zx report
unmasked: a stored match's views never read the file its catalog name names, so the mask knew the shipped
catalogs' names only, and these commands had no way to be given the file. Now a file given whose content
(SHA-256) is the one the match pinned names its cards: the board shows them, the mask masks them for every seat
but the judge (in every width variant: full- and half-width katakana, full-width Latin) and violation messages
are shown masked instead of withheld. A file with other content (one byte changed) is not used, and a warning
says so. Without --catalog the behaviour is as before (the documented residual risk)."""

from __future__ import annotations

import csv
import io
import json
import os
import unicodedata
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from zx_cli.main import zx
from zx_web.app import create_app

from test_serve_cli import start_serve

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "zx_events" / "games" / "zx" / "catalogs" / "sample.csv"
FIDELITY = ROOT / "examples" / "legal" / "rules-fidelity.zxlog"  # a Token (Husk), a note
COPIES = ROOT / "examples" / "invalid" / "401-copies-of-a-name.zxlog"  # 5 copies of R01-003/R01-019's name (401)
# the card names the file gives (as /tmp/qa34-cjk/make_catalog.py writes them)
JP = {"R01-001": "エンバー・ホエルプ・スカウト",  # full-width katakana with a middle dot
      "R01-003": "紅蓮竜ヴァンガード", "R01-019": "紅蓮竜ヴァンガード",  # kanji and katakana with ヴ
      "R01-008": "灰空の暴君",  # kanji and hiragana
      "R01-002": "ｼﾝﾀﾞｰ･ﾊｯﾁﾘﾝｸﾞ",  # half-width katakana in the catalog itself
      "U01-003": "ＵＲ０１ギアナイト"}  # full-width Latin and digits
FIDELITY_ID, COPIES_ID = "jp-fidelity", "jp-copies"
P1_DECK = "紅蓮竜ヴァンガード軸"  # a card's name, as the catalog writes it
P2_DECK = "ｴﾝﾊﾞｰ･ﾎｴﾙﾌﾟ･ｽｶｳﾄ入り赤単"  # R01-001's name in half-width katakana
P2_NAME = "ＵＲ０１ギアナイト使い"
TOKEN = "ｴﾝﾊﾞｰ･ﾎｴﾙﾌﾟ･ｽｶｳﾄの抜け殻"  # R01-001's name, half-width
NOTE = "ジャッジメモ：紅蓮竜ヴァンガードを隠し持っていた"
EVENT = "ｼﾝﾀﾞｰ・ハッチリング杯　UR01ギアナイト"  # R01-002's name in another width, U01-003's in ASCII
# the board names the public cards (R01-001, R01-002, R01-003 and U01-003 among them) by the file's names: what only
# free text and a violation message hold is a card's name beside the rest of its text, in any width (R01-008's name,
# never public in these matches, alone); each is looked for as written and in NFKC
HIDDEN = ("ヴァンガード軸", "ヴァンガードを隠し", "of '紅蓮竜", "灰空の暴君", "ギアナイト使い", "スカウト入り赤単",
          "スカウトの抜け殻", "ハッチリング杯", "杯 UR01")
WITHHELD = "[withheld: may name a hidden card of a catalog zx does not have]"  # seats.WITHHELD
NOT_USED = "was not checked against it"


def _catalog(changed: bool = False) -> str:
    rows = list(csv.DictReader(SAMPLE.open(encoding="utf-8")))
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        r["name"] = JP.get(r["code"], r["name"])
        w.writerow(r)
    text = out.getvalue()
    return text.replace("灰空の暴君", "灰空の暴車") if changed else text  # (one character: other bytes)


def _log(src: Path, match: str, header: dict | None = None, replace: tuple[str, str] | None = None) -> str:
    text = src.read_text(encoding="utf-8")
    if replace:
        text = text.replace(*replace)
    lines = text.splitlines()
    h = json.loads(lines[0])
    h["match"] = match
    for key, value in (header or {}).items():
        if key.startswith("P"):
            h["players"][key[:2]][key[3:]] = value
        else:
            h[key] = value
    lines[0] = json.dumps(h, ensure_ascii=False)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> dict[str, str]:
    """The two matches imported with jp-cards.csv (--accept-violations, their analytics beside the store), the
    file, and a copy with one name changed (other bytes: no match was checked against it)."""
    folder = tmp_path_factory.mktemp("jp-catalog")
    (folder / "jp-cards.csv").write_text(_catalog(), encoding="utf-8")
    (folder / "jp-cards-changed.csv").write_text(_catalog(changed=True), encoding="utf-8")
    (folder / "fidelity.zxlog").write_text(_log(FIDELITY, FIDELITY_ID, {
        "P1.deck_name": P1_DECK, "P2.deck_name": P2_DECK, "P2.name": P2_NAME, "note": NOTE, "event": EVENT},
        ('"name": "Husk"', f'"name": "{TOKEN}"')), encoding="utf-8")
    (folder / "copies.zxlog").write_text(_log(COPIES, COPIES_ID, {"P1.deck_name": P1_DECK, "event": EVENT}),
                                         encoding="utf-8")
    path = str(folder / "events.sqlite")
    r = CliRunner().invoke(zx, ["--store", path, "import", "--accept-violations", "--catalog",
                                str(folder / "jp-cards.csv"), str(folder / "fidelity.zxlog"),
                                str(folder / "copies.zxlog")], env={"ZX_ANALYTICS": str(folder / "events.duckdb")})
    assert r.exit_code == 0, r.output
    return {"store": path, "analytics": str(folder / "events.duckdb"), "folder": str(folder),
            "file": str(folder / "jp-cards.csv"), "changed": str(folder / "jp-cards-changed.csv")}


def _forms(name: str) -> set[str]:
    """``name`` as written, in NFKC, and each JSON-escaped (a page's inline data)."""
    out = {name, unicodedata.normalize("NFKC", name)}
    return out | {json.dumps(n)[1:-1] for n in out}


def _leaks(text: str | bytes) -> list[str]:
    """The ``HIDDEN`` names ``text`` holds, in any width variant."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    folded = unicodedata.normalize("NFKC", text)
    return [n for n in HIDDEN if any(f in text or f in folded for f in _forms(n))]


def _zx(s: dict[str, str], *args: str) -> "CliRunner.Result":
    return CliRunner().invoke(zx, ["--store", s["store"], *args], env={"COLUMNS": "200",
                                                                      "ZX_ANALYTICS": s["analytics"]})


def _replay(s: dict[str, str], match: str, seat: str, *args: str) -> tuple[str, str]:
    r = _zx(s, "replay", match, "--as", seat, *args)
    assert r.exit_code == 0, r.output
    return r.stdout, r.stderr


def _view(s: dict[str, str], match: str, seat: str, tmp_path: Path, *args: str) -> tuple[bytes, str]:
    out = tmp_path / f"{match}-{seat}.html"
    r = _zx(s, "view", match, "--as", seat, "-o", str(out), "--force", *args)
    assert r.exit_code == 0, r.output
    return out.read_bytes(), r.stderr


def _surfaces(s: dict[str, str], seat: str, tmp_path: Path, *args: str) -> dict[str, str | bytes]:
    """Every surface of ``zx replay`` and ``zx view`` of both matches as ``seat`` (``args``: --catalog FILE)."""
    out: dict[str, str | bytes] = {}
    for match in (FIDELITY_ID, COPIES_ID):
        out[f"{match} terminal"] = _replay(s, match, seat, *args)[0]
        out[f"{match} steps"] = _replay(s, match, seat, "--to", "end", *args)[0]
        out[f"{match} json steps"] = _replay(s, match, seat, "--to", "end", "--format", "json", *args)[0]
        out[f"{match} zx view"] = _view(s, match, seat, tmp_path, *args)[0]
    return out


# ---------------------------------------------------------------------- zx replay, zx view
def test_without_catalog_the_files_names_reach_p2_as_before_the_documented_residual_risk(store, tmp_path):
    state = json.loads(_replay(store, FIDELITY_ID, "P2", "--format", "json")[0])
    assert state["players"]["P1"]["deck_name"] == P1_DECK  # (docs/security.md, section 5: give --catalog FILE)
    _, err = _replay(store, COPIES_ID, "P2")
    assert "give that file with --catalog FILE" in err, err
    copies = json.loads(_replay(store, COPIES_ID, "P2", "--format", "json")[0])
    assert [v["message"] for v in copies["violations"]] == [WITHHELD]


@pytest.mark.parametrize("seat", ["P2", "spectator"])
def test_with_the_catalog_file_zx_replay_and_zx_view_mask_its_names_in_every_width(store, seat, tmp_path):
    for surface, text in _surfaces(store, seat, tmp_path, "--catalog", store["file"]).items():
        assert not _leaks(text), f"{surface}: {_leaks(text)} shown to {seat}"
    state = json.loads(_replay(store, FIDELITY_ID, seat, "--format", "json", "--catalog", store["file"])[0])
    players = state["players"]
    assert (players["P1"]["deck_name"], players["P2"]["deck_name"]) == ("[card]軸", "[card]入り赤単")
    assert players["P2"]["name"] == "[card]使い"
    steps = _replay(store, FIDELITY_ID, seat, "--to", "end", "--catalog", store["file"])[0]
    assert "[card]の抜け殻" in steps  # the Token's name
    # the board names the cards by the file's names (public cards: on the Square)
    assert {sq["name"] for sq in state["squares"].values() if sq} >= {JP["R01-001"], JP["U01-003"]}


@pytest.mark.parametrize("seat", ["P1", "P2", "spectator"])
def test_with_the_catalog_file_a_violation_message_is_shown_masked_instead_of_withheld(store, seat):
    state = json.loads(_replay(store, COPIES_ID, seat, "--format", "json", "--catalog", store["file"])[0])
    assert [v["message"] for v in state["violations"]] == [
        "P1: main deck has 5 copies of '[card]' ([card] x2, [card] x3), at most 4 of a name"]
    _, err = _replay(store, COPIES_ID, seat, "--catalog", store["file"])
    assert "warning" not in err, err


def test_the_judge_reads_the_files_names_whole(store, tmp_path):
    state = json.loads(_replay(store, FIDELITY_ID, "judge", "--format", "json", "--catalog", store["file"])[0])
    assert (state["players"]["P1"]["deck_name"], state["players"]["P2"]["name"]) == (P1_DECK, P2_NAME)
    assert TOKEN in _replay(store, FIDELITY_ID, "judge", "--to", "end", "--format", "json", "--catalog",
                            store["file"])[0]
    copies = json.loads(_replay(store, COPIES_ID, "judge", "--format", "json", "--catalog", store["file"])[0])
    assert "5 copies of '紅蓮竜ヴァンガード' (R01-003 x2, R01-019 x3)" in copies["violations"][0]["message"]
    page, _ = _view(store, FIDELITY_ID, "judge", tmp_path, "--catalog", store["file"])
    assert json.dumps(P1_DECK)[1:-1] in page.decode("utf-8") or P1_DECK in page.decode("utf-8")


def test_a_catalog_file_with_other_content_is_not_used_and_a_warning_says_so(store, tmp_path):
    out, err = _replay(store, FIDELITY_ID, "P2", "--format", "json", "--catalog", store["changed"])
    assert f"warning: --catalog {store['changed']}: match '{FIDELITY_ID}' {NOT_USED}" in err, err
    assert "it was not used" in err and "cannot be loaded" in err  # (the match's catalog: still not at hand)
    assert json.loads(out)["players"]["P1"]["deck_name"] == P1_DECK  # as without --catalog
    copies = json.loads(_replay(store, COPIES_ID, "P2", "--format", "json", "--catalog", store["changed"])[0])
    assert [v["message"] for v in copies["violations"]] == [WITHHELD]
    page, err = _view(store, FIDELITY_ID, "P2", tmp_path, "--catalog", store["changed"])
    assert f"match '{FIDELITY_ID}' {NOT_USED}" in err, err
    # both files: the one the match pinned is used, the other warned of
    out, err = _replay(store, FIDELITY_ID, "P2", "--format", "json", "--catalog", store["changed"], "--catalog",
                       store["file"])
    assert json.loads(out)["players"]["P1"]["deck_name"] == "[card]軸" and err.count(NOT_USED) == 1, err


def test_a_bad_catalog_file_is_an_error_naming_it_and_a_view_never_writes_over_it(store, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("code,name\nR01-001\n", encoding="utf-8")
    r = _zx(store, "replay", FIDELITY_ID, "--catalog", str(bad))
    assert r.exit_code == 1 and "bad.csv" in r.output and "Traceback" not in r.output, r.output
    r = _zx(store, "view", FIDELITY_ID, "--catalog", store["file"], "-o", store["file"], "--force")
    assert r.exit_code != 0 and "catalog" in r.output, r.output
    assert Path(store["file"]).read_text(encoding="utf-8") == _catalog()


# ---------------------------------------------------------------------- zx report
def test_zx_report_masks_the_files_names_with_catalog(store, tmp_path):
    plain = tmp_path / "plain.html"
    r = _zx(store, "report", "-o", str(plain))
    assert r.exit_code == 0, r.output
    assert "紅蓮竜ヴァンガード軸" in plain.read_text(encoding="utf-8")  # (as before: the residual risk)
    masked = tmp_path / "masked.html"
    r = _zx(store, "report", "-o", str(masked), "--catalog", store["file"])
    assert r.exit_code == 0 and "warning" not in r.stderr, r.output
    assert not _leaks(masked.read_text(encoding="utf-8")), _leaks(masked.read_text(encoding="utf-8"))
    assert "[card]軸" in masked.read_text(encoding="utf-8")
    r = _zx(store, "report", "-o", str(tmp_path / "other.html"), "--catalog", store["changed"])
    assert r.exit_code == 0 and f"--catalog {store['changed']}: no stored match was checked against it" in r.stderr
    assert "紅蓮竜ヴァンガード軸" in (tmp_path / "other.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------------- zx serve
@pytest.fixture(scope="module")
def served(store, tmp_path_factory):
    """``zx serve --catalog jp-cards.csv --catalog jp-cards-changed.csv`` (no --judge), its stderr once stopped."""
    env = {k: v for k, v in os.environ.items() if k not in ("ZX_STORE", "ZX_ANALYTICS")}
    proc, base = start_serve(["--store", store["store"], "serve", "--analytics", store["analytics"], "--catalog",
                              store["file"], "--catalog", store["changed"]], tmp_path_factory.mktemp("serve"), env)
    try:
        with httpx.Client(base_url=base, timeout=120) as c:
            yield c, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.communicate(timeout=30)


@pytest.mark.parametrize("seat", ["P2", "spectator"])
def test_zx_serve_with_the_catalog_masks_the_files_names_in_views_lists_and_the_dashboard(served, seat):
    c, _ = served
    answers = {
        "list": c.get("/api/matches"),
        "list page": c.get("/matches"),
        "dashboard": c.get("/dashboard"),
        "stats": c.get("/api/stats/archetypes"),
    }
    for match in (FIDELITY_ID, COPIES_ID):
        answers.update({
            f"{match} view": c.get(f"/api/matches/{match}/view", params={"as": seat}),
            f"{match} steps": c.get(f"/api/matches/{match}/steps", params={"as": seat}),
            f"{match} replay page": c.get(f"/matches/{match}/replay", params={"as": seat}),
            f"{match} match": c.get(f"/api/matches/{match}"),
            f"{match} match page": c.get(f"/matches/{match}"),
            f"{match} audit": c.get(f"/api/audit/{match}"),
        })
    for what, answer in answers.items():
        assert answer.status_code == 200, (what, answer.text[:300])
        assert not _leaks(answer.text), f"{what}: {_leaks(answer.text)} shown to {seat}"
    decks = {m["p1_deck"] for m in answers["list"].json()["matches"]}
    assert decks == {"[card]軸"}, decks
    view = answers[f"{FIDELITY_ID} view"].json()
    assert view["players"]["P2"]["name"] == "[card]使い"
    assert {sq["name"] for sq in view["squares"].values() if sq} >= {JP["R01-001"], JP["U01-003"]}
    copies = answers[f"{COPIES_ID} view"].json()
    assert [v["message"] for v in copies["violations"]] == [
        "P1: main deck has 5 copies of '[card]' ([card] x2, [card] x3), at most 4 of a name"]
    assert "[card]の抜け殻" in answers[f"{FIDELITY_ID} steps"].text


def test_zx_serve_warns_of_the_catalog_file_no_stored_match_was_checked_against(served, store):
    _, proc = served
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert f"warning: --catalog {store['changed']}: no stored match was checked against it" in err, err
    assert f"--catalog {store['file']}:" not in err and "Traceback" not in err, err


def test_the_judges_server_given_the_file_shows_its_names(store):
    from zx_events.games import load_catalogs

    catalogs = tuple(load_catalogs(store["file"]).values())
    with TestClient(create_app(store["store"], judge=True, analytics=store["analytics"], catalogs=catalogs),
                    raise_server_exceptions=False) as c:
        view = c.get(f"/api/matches/{FIDELITY_ID}/view", params={"as": "judge"}).json()
        assert view["players"]["P1"]["deck_name"] == P1_DECK and view["players"]["P2"]["name"] == P2_NAME
        assert P1_DECK in {m["p1_deck"] for m in c.get("/api/matches").json()["matches"]}
    with TestClient(create_app(store["store"], analytics=store["analytics"]), raise_server_exceptions=False) as c:
        # without the file (as before): the residual risk docs/security.md names
        assert P1_DECK in {m["p1_deck"] for m in c.get("/api/matches").json()["matches"]}


def test_each_worker_of_zx_serve_workers_reads_the_servers_copy_and_never_serves_without_it(
        store, monkeypatch, tmp_path, caplog):
    """``zx serve --workers N --catalog FILE``: each worker builds its app from the environment (``app_from_env``):
    the files by path and SHA-256. A worker started after the file changed (one that died, replaced) served the
    names it masks unmasked (QA round 34, this round's own QA). The server gives its workers copies of the files as
    it checked them, in a folder of its own; a worker whose file does not hold that content does not start."""
    import shutil
    import stat

    import click

    from zx_cli.serve import _private_copies
    from zx_events.games import load_catalogs
    from zx_web.app import CANNOT_OPEN, ENV_ANALYTICS, ENV_CATALOGS, ENV_STORE, app_from_env

    original = tmp_path / "jp-cards.csv"  # (a copy: the module's file stays as the other tests read it)
    shutil.copy(store["file"], original)
    cat = next(iter(load_catalogs(str(original)).values()))
    copies = _private_copies([(str(original), cat)])
    try:
        ((copy, sha),) = copies.files
        assert sha == cat.sha256 and stat.S_IMODE(Path(copies.folder).stat().st_mode) == 0o700
        original.write_text(_catalog(changed=True), encoding="utf-8")  # (the user's file changed after start)
        monkeypatch.setenv(ENV_STORE, store["store"])
        monkeypatch.setenv(ENV_ANALYTICS, store["analytics"])
        monkeypatch.setenv(ENV_CATALOGS, json.dumps(copies.files))
        with TestClient(app_from_env(), raise_server_exceptions=False) as c:
            view = c.get(f"/api/matches/{FIDELITY_ID}/view", params={"as": "P2"}).json()
            assert view["players"]["P1"]["deck_name"] == "[card]軸"
        Path(copy).write_text(_catalog(changed=True), encoding="utf-8")  # (its own copy altered: it does not start)
        with pytest.raises(SystemExit) as ended:
            app_from_env()
        assert ended.value.code == CANNOT_OPEN
        assert f"the catalog file {copy} zx serve gave this worker is not the one it checked" in caplog.text
    finally:
        copies.remove()
    assert not Path(copies.folder).exists()
    with pytest.raises(click.ClickException, match="changed while zx serve started"):  # (changed before its copy)
        _private_copies([(str(original), cat)])
