"""The match summaries of a SQLite store read through its partial indexes (``zx_events.summaries.INDEXES``,
made by every import) are those read from every event: for both games, matches stored with violations
(turn numbers out of order among them), the 0.1.0 store once an import has indexed it, and ``zx serve``'s
first read followed by the matches imported after it. A store without the indexes is read whole, as before;
the import that indexes a store of many events says so first."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from pg_roles import IMPORTER, granted, new_role
from zx_events import application, summaries
from zx_events.application import MatchService
from zx_events.store import resolve_store

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FIXTURE = Path(__file__).parent / "fixtures" / "zx-store-0.1.0.sqlite"
TURNS_OUT_OF_ORDER = EXAMPLES / "invalid" / "501.3-turn-out-of-order.zxlog"


def run(store: Path, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(zx, ["--store", str(store), *args])
    return r.exit_code, r.stdout, r.stderr


def unindexed_copy(store: Path, to: Path) -> Path:
    """A copy of ``store`` without the summaries' indexes (as a store no import of this release has written)."""
    shutil.copyfile(store, to)
    con = sqlite3.connect(to)
    for name in summaries.INDEXES:
        con.execute(f"DROP INDEX IF EXISTS {name}")
    con.commit()
    con.close()
    return to


def indexed(store: Path) -> bool:
    con = sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True)
    try:
        return summaries.has_indexes(con)
    finally:
        con.close()


def listed(store: Path) -> list[dict]:
    rows = summaries.read_sqlite(resolve_store(str(store), prepare=False, create=False))
    assert rows is not None
    return sorted(rows, key=lambda r: r["match"])


def served(store: Path) -> list[dict]:
    svc = MatchService(str(store), create=False)
    try:
        return sorted(svc.summaries(), key=lambda r: r["match"])
    finally:
        svc.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """Both games' legal examples, and every invalid Z/X and X610Z example stored as played."""
    s = tmp_path_factory.mktemp("indexed") / "events.sqlite"
    legal = [*sorted((EXAMPLES / "legal").glob("*.zxlog")), *sorted((EXAMPLES / "x610z" / "legal").glob("*"))]
    code, out, err = run(s, "import", "--no-analytics", *map(str, legal))
    assert code == 0, out + err
    invalid = [*sorted((EXAMPLES / "invalid").glob("*.zxlog")), *sorted((EXAMPLES / "x610z" / "invalid").glob("*"))]
    run(s, "import", "--no-analytics", "--accept-violations", *map(str, invalid))  # (some are refused: format)
    return s


def test_an_import_indexes_the_store_and_the_listing_through_the_indexes_is_the_whole_read(store, tmp_path):
    assert indexed(store)
    copy = unindexed_copy(store, tmp_path / "copy.sqlite")
    con = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
    assert summaries.indexed_notes(con) is None  # (read whole)
    con.close()
    rows = listed(store)
    games = {r["game"] for r in rows}
    violated = [r for r in rows if r["violations"]]
    assert games == {"zx", "x610z"} and len(violated) >= 20 and len(rows) >= 40, (games, len(violated), len(rows))
    assert rows == listed(copy)
    assert served(store) == served(copy) == rows  # the application's read (zx serve, the Python API) too


def test_every_stored_match_numbers_its_turns_1_2_3_so_its_last_turn_is_its_greatest(store):
    """What the indexed read takes of TurnStarted (each match's last): the engines number the turns themselves,
    whatever a record says (501.3-turn-number, stored with its violation) and in 0.1.0's store too."""
    for path in (store, FIXTURE):
        svc = MatchService(str(path), create=False, write=False)
        con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            turns: dict = {}
            for oid, state in con.execute("SELECT originator_id, state FROM stored_events WHERE topic LIKE "
                                          "'%:TurnStarted' ORDER BY originator_id, originator_version"):
                turns.setdefault(oid, []).append(svc.mapper.fields(state)["turn"])
        finally:
            con.close()
            svc.close()
        assert len(turns) >= 20 and all(t == list(range(1, len(t) + 1)) for t in turns.values())
    rows = {r["match"]: r for r in listed(store)}
    assert rows["invalid-501.3-turn-number"]["violations"] >= 1  # (its second turn record says turn 3)


def test_the_0_1_0_store_once_imported_into_lists_its_matches_as_before(tmp_path):
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(FIXTURE, copy)
    code, before, err = run(copy, "matches", "--format", "json")
    assert code == 0 and not indexed(copy), err
    x610z = sorted((EXAMPLES / "x610z" / "legal").glob("*"))[0]  # (the 0.1.0 store's are Z/X matches)
    code, out, err = run(copy, "import", "--no-analytics", str(x610z))
    assert code == 0 and indexed(copy) and "1 imported" in out + err, out + err
    assert "indexing" not in err  # (20 matches: at once, said nothing)
    code, after, err = run(copy, "matches", "--format", "json")
    assert code == 0, err
    old = json.loads(before)
    new = json.loads(after)
    assert len(new) == len(old) + 1 and new[:len(old)] == old  # (store order kept)
    assert served(copy) == sorted(new, key=lambda r: r["match"])


def test_zx_serve_first_read_then_the_matches_imported_after_it(tmp_path):
    live = tmp_path / "live.sqlite"
    code, out, err = run(live, "import", "--no-analytics", *map(str, sorted((EXAMPLES / "legal").glob("*.zxlog"))))
    assert code == 0 and indexed(live), out + err
    reader = MatchService(str(live), create=False, write=False)  # (zx serve's)
    try:
        rows: dict = {}
        last = reader.update_summaries(rows)
        assert last == reader.recorder.max_notification_id() and len(rows) == 5
        x610z = sorted((EXAMPLES / "x610z" / "legal").glob("*"))
        code, out, err = run(live, "import", "--no-analytics", str(x610z[0]))
        assert code == 0, out + err
        code, out, err = run(live, "import", "--no-analytics", "--accept-violations", str(TURNS_OUT_OF_ORDER))
        assert code == 0, out + err
        assert reader.update_summaries(rows, last) > last
        assert len(rows) == 7 and sorted(rows.values(), key=lambda r: r["match"]) == served(live) == listed(live)
    finally:
        reader.close()


def test_an_import_into_a_store_of_many_events_says_it_indexes_it_first(store, tmp_path, monkeypatch):
    copy = unindexed_copy(store, tmp_path / "big.sqlite")
    con = sqlite3.connect(copy)
    events = con.execute("SELECT max(rowid) FROM stored_events").fetchone()[0]
    con.close()
    monkeypatch.setattr(application, "INDEX_NOTE_EVENTS", 100)  # (a million and more, otherwise)
    code, out, err = run(copy, "import", "--no-analytics", str(EXAMPLES / "legal" / "first-turns.zxlog"))
    assert code == 0 and indexed(copy), out + err
    assert f"note: indexing the store's {events:,} events for listing its matches (once: about 1 s)" in err
    code, out, err = run(copy, "import", "--no-analytics", str(EXAMPLES / "legal" / "rules-fidelity.zxlog"))
    assert code == 0 and "indexing" not in err  # once


def test_an_import_drops_the_summaries_indexes_of_another_set_of_games(store, tmp_path):
    """A release with other games names its indexes otherwise; an import keeps only its own up to date, and
    makes again one of its names made otherwise (by hand: the list was read whole for good); a user's own
    index stays, even named zx_summary_... (QA round 33)."""
    copy = unindexed_copy(store, tmp_path / "other.sqlite")
    con = sqlite3.connect(copy)
    con.execute("CREATE INDEX zx_summary_turns_00000000 ON stored_events(originator_id) WHERE topic = 'zx.match:X'")
    con.execute(f"CREATE INDEX {summaries.HEADS_INDEX} ON stored_events(topic)")  # (ours, made otherwise)
    con.execute("CREATE INDEX mine ON stored_events(topic)")  # (not ours: kept)
    con.execute("CREATE INDEX zx_summary_by_player ON stored_events(originator_id)")  # (a user's: kept)
    con.commit()
    con.close()
    code, out, err = run(copy, "import", "--no-analytics", str(EXAMPLES / "legal" / "first-turns.zxlog"))
    assert code == 0, out + err
    con = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE "
                                       "'sqlite_%'")}
    assert summaries.has_indexes(con)
    con.close()
    assert names == {*summaries.INDEXES, "mine", "zx_summary_by_player"}
    assert listed(copy) == listed(store)


def test_a_store_edited_in_lists_the_same_read_whole_or_through_the_indexes(store, tmp_path):
    """Whatever was edited in the store (a TurnStarted unreadable or renumbered, first, middle or last; a second
    Started event), the list is the same both ways, and --limit gives the list's first matches: the list reads
    each match's last TurnStarted either way (through the indexes it read only that one, whole every one: QA
    round 33). zx verify is the check of the events."""
    edited = tmp_path / "edited.sqlite"
    shutil.copyfile(store, edited)
    con = sqlite3.connect(edited)
    oids = [r[0] for r in con.execute("SELECT originator_id FROM stored_events WHERE topic LIKE '%:Started' "
                                      "ORDER BY rowid")]

    def turn_rows(oid):
        return [r[0] for r in con.execute("SELECT rowid FROM stored_events WHERE originator_id = ? AND topic LIKE "
                                          "'%:TurnStarted' ORDER BY originator_version", (oid,))]

    def edit(rowid, change):
        (state,) = con.execute("SELECT state FROM stored_events WHERE rowid = ?", (rowid,)).fetchone()
        con.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (change(state), rowid))

    def renumbered(n):
        return lambda state: json.dumps({**json.loads(state), "turn": n}).encode()

    edit(turn_rows(oids[0])[1], lambda state: b"not json{")
    edit(turn_rows(oids[1])[1], renumbered(99))
    edit(turn_rows(oids[2])[-1], renumbered(1))
    edit(turn_rows(oids[3])[-1], lambda state: b"not json{")
    edit(turn_rows(oids[4])[0], renumbered("7"))
    con.execute("UPDATE stored_events SET topic = (SELECT topic FROM stored_events WHERE originator_id = ? AND "
                "originator_version = 1) WHERE originator_id = ? AND topic LIKE '%:Sealed'", (oids[5], oids[5]))
    con.commit()
    con.close()
    whole = unindexed_copy(edited, tmp_path / "whole.sqlite")

    def matches(path, *args):
        code, out, err = run(path, "matches", "--format", "json", *args)
        assert code == 0, err
        return json.loads(out)

    rows = matches(edited)
    assert rows == matches(whole) and served(edited) == served(whole) == sorted(rows, key=lambda r: r["match"])
    assert [r["reason"] for r in rows[:6]].count("damaged") >= 2 and len({r["match"] for r in rows}) == len(rows)
    for n in (1, 5, 6, 7, 12):
        assert matches(edited, "--limit", str(n)) == rows[:n], n


def test_the_first_matches_read_match_by_match_are_the_lists_first(store):
    """``zx matches --limit N`` without filters reads only the first N matches (summaries.read_sqlite's first)."""
    config = resolve_store(str(store), prepare=False, create=False)
    every = summaries.read_sqlite(config)
    assert every is not None and len(every) > 40
    for n in (1, 2, 7, len(every) - 1, len(every), len(every) + 5):
        assert summaries.read_sqlite(config, n) == every[:n], n  # (store order: both games mixed, as stored)
    code, out, err = run(store, "matches", "--limit", "3", "--format", "json")
    assert code == 0 and json.loads(out) == every[:3], err
    code, out, err = run(store, "matches", "--game", "x610z", "--limit", "2", "--format", "json")
    assert code == 0 and json.loads(out) == [r for r in every if r["game"] == "x610z"][:2], err


@pytest.mark.postgres
def test_a_postgresql_store_is_indexed_by_its_owners_import_and_listed_through_the_indexes(postgres_server):
    from zx_events.store import connect_postgres, postgres_env

    url = postgres_server.fresh_url()
    code, out, err = run(url, "import", "--no-analytics", *map(str, sorted((EXAMPLES / "legal").glob("*.zxlog"))))
    assert code == 0, out + err
    reader = MatchService(url, create=False, write=False)  # (zx serve's)
    try:
        assert reader._pg_indexed()
        rows: dict = {}
        last = reader.update_summaries(rows)  # through the indexes
        assert last == reader.recorder.max_notification_id() and len(rows) == 5
        invalid = [*sorted((EXAMPLES / "invalid").glob("*.zxlog"))[:6], *sorted((EXAMPLES / "x610z" / "legal").glob("*"))]
        run(url, "import", "--no-analytics", "--accept-violations", *map(str, invalid))
        assert reader.update_summaries(rows, last) > last  # the matches imported since, from the notifications
        whole: dict = {}
        reader.update_summaries(whole, 0)  # every notification read, as before
        listed = list(rows.values())
        assert listed == list(whole.values()) == reader.summaries()
        assert len(listed) >= 10 and {r["game"] for r in listed} == {"zx", "x610z"} and any(r["violations"] for r in listed)
    finally:
        reader.close()
    code, out, err = run(url, "matches", "--format", "json")
    assert code == 0 and json.loads(out) == listed, err

    # an importer role with the documented grants (docs/deployment.md), not the owner: its import leaves the store
    # without the indexes (PostgreSQL lets only the owner make them) and the list is read whole, the same
    env = postgres_env(url)
    role, as_role = new_role("zx_indexer", url)
    with connect_postgres(env) as conn:
        for name in summaries.INDEXES:
            conn.execute(f'DROP INDEX "{env["POSTGRES_SCHEMA"]}"."{name}"')
    with granted(env, role, *IMPORTER):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(application, "INDEX_NOTE_EVENTS", 1)  # (any store "big": no note all the same)
            code, out, err = run(as_role, "import", "--no-analytics", "--accept-violations", str(TURNS_OUT_OF_ORDER))
        assert code == 0 and "Traceback" not in out + err and "indexing" not in err, out + err
        svc = MatchService(url, create=False, write=False)
        try:
            assert not svc._pg_indexed()
            assert [r["match"] for r in svc.summaries()] == [r["match"] for r in listed] + [
                "invalid-501.3-turn-out-of-order"]
        finally:
            svc.close()


@pytest.mark.postgres
def test_a_postgresql_import_whose_indexing_times_out_imports_all_the_same(postgres_server, monkeypatch):
    """Making the indexes waits for the table lock another session holds (an import's, a judge's LOCK TABLE): past
    the role's lock_timeout the import goes on without them (the next one makes them), never an error of its own."""
    import threading

    from zx_events.store import connect_postgres, postgres_env

    url = postgres_server.fresh_url()
    code, out, err = run(url, "import", "--no-analytics", str(EXAMPLES / "legal" / "first-turns.zxlog"))
    assert code == 0, out + err
    env = postgres_env(url)
    schema = env["POSTGRES_SCHEMA"]
    with connect_postgres(env) as conn:
        for name in summaries.INDEXES:
            conn.execute(f'DROP INDEX "{schema}"."{name}"')
    holder = connect_postgres(env, autocommit=False)
    holder.execute(f'LOCK TABLE "{schema}".matches_events IN EXCLUSIVE MODE')
    release = threading.Timer(application.INDEX_LOCK_WAIT + 1.5, holder.commit)  # (past the indexes' wait)
    release.start()
    monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=1000")  # (the inserts' wait: 10 tries of a second)
    try:
        code, out, err = run(url, "import", "--no-analytics", str(EXAMPLES / "legal" / "rules-fidelity.zxlog"))
    finally:
        release.join()
        holder.close()
    assert code == 0 and "1 imported" in out + err and "Traceback" not in out + err, out + err
    assert "note: another session holds the table lock of " in err and "are left to a later import" in err, err
    svc = MatchService(url, create=False, write=False)
    try:
        assert not svc._pg_indexed() and len(svc.summaries()) == 2
    finally:
        svc.close()
    monkeypatch.delenv("PGOPTIONS")
    code, out, err = run(url, "import", "--no-analytics", str(EXAMPLES / "legal" / "range-attacks-win-by-life.zxlog"))
    assert code == 0, out + err
    svc = MatchService(url, create=False, write=False)
    try:
        assert svc._pg_indexed() and len(svc.summaries()) == 3  # the next import made them
    finally:
        svc.close()
