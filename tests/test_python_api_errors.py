"""The Python API's errors (QA round 37): a wrong-typed argument is a ``TypeError`` saying what to give, raised
before anything is touched (docs/analytics.md); whatever zx finds wrong (a damaged store or analytics file, a bad
statistic argument, an export selecting no match) is a ``zx_events.errors.Error`` with the CLI's words
(docs/replay.md, "Errors"): never a raw sqlite3, eventsourcing or DuckDB exception, never a silent wrong answer.

One store (three simulated matches imported with a catalog file renamed a card of) and its analytics file serve
the module; the damaged copies are made from them.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_analytics import projection
from zx_analytics.stats import Stats
from zx_cli.main import zx
from zx_events import replay
from zx_events.application import MatchService
from zx_events.errors import Error
from zx_events.games import load_catalogs

RENAMED = "Ember Whelp Scout II"


def cli(*args: str):
    return CliRunner().invoke(zx, list(args))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """``s.sqlite`` (3 simulated matches, imported with ``mod.csv``, a catalog naming one card anew), its
    analytics ``s.duckdb``."""
    d = tmp_path_factory.mktemp("api")
    shipped = resources.files("zx_events.games.zx.catalogs").joinpath("sample.csv").read_text(encoding="utf-8")
    assert shipped.count("Ember Whelp Scout,") == 1
    (d / "mod.csv").write_text(shipped.replace("Ember Whelp Scout,", RENAMED + ","), encoding="utf-8")
    r = cli("simulate", "-n", "3", "--seed", "5", "--out", str(d / "sim"))
    assert r.exit_code == 0, r.output
    r = cli("--store", str(d / "s.sqlite"), "import", "--catalog", str(d / "mod.csv"), str(d / "sim"))
    assert r.exit_code == 0, r.output
    assert (d / "s.duckdb").exists()
    return d


@pytest.fixture(scope="module")
def catalogs(folder):
    return load_catalogs(str(folder / "mod.csv"))


@pytest.fixture(scope="module")
def svc(folder):
    with MatchService(str(folder / "s.sqlite"), create=False) as s:
        yield s


def seats(duck: Path) -> tuple[int, int]:
    with Stats(str(duck)) as st:
        return st.sql_rows("SELECT count(*) FROM seats")[1][0][0], st.position()[0]


# ------------------------------------------------------------------ 1, 2: catalogs= of another type


def wrong_catalogs(catalogs: dict) -> list:
    """What a caller passes by mistake: the dict load_catalogs gives, a file's name, a list of names, one catalog."""
    (one,) = catalogs.values()
    return [catalogs, "mod.csv", Path("mod.csv"), ["mod.csv"], one, 5]


def test_update_with_catalogs_of_another_type_is_a_type_error_and_the_file_is_untouched(folder, svc, catalogs):
    """It emptied the analytics file (rebuild=True: 0 seats at position 0), then raised AttributeError from
    inside tables.py; without rebuild the AttributeError alone."""
    duck = folder / "s.duckdb"
    before = seats(duck)
    assert before[0] == 6 and before[1] > 0
    for bad in wrong_catalogs(catalogs):
        for rebuild in (True, False):
            with pytest.raises(TypeError, match=r"catalogs must be catalogs loaded from files, such as "
                                                r"zx_events\.games\.load_catalogs\(FILE\)\.values\(\)"):
                projection.update(svc, duck, rebuild=rebuild, catalogs=bad)
            assert seats(duck) == before
    with pytest.raises(TypeError, match=r"got a dict of keys \['zx'\]: pass its \.values\(\)"):
        projection.update(svc, duck, rebuild=True, catalogs=catalogs)
    projection.update(svc, duck, rebuild=True, catalogs=catalogs.values())  # what it asks for, as before
    assert seats(duck) == before
    with Stats(str(duck)) as st:
        assert st.sql_rows("SELECT count(*) FROM card_catalog WHERE name = ?", [RENAMED])[1] == [(1,)]


def test_replay_with_catalogs_of_another_type_is_a_type_error_not_a_view_without_names(svc, catalogs):
    """view_at, steps and load_history ignored them: the view lacked the card names, without a word."""
    match = svc.summaries()[0]["match"]
    good = tuple(catalogs.values())
    assert RENAMED in str(replay.view_at(svc, match, seq=40, catalogs=good).to_json())
    assert replay.load_history(svc, match, list(catalogs.values())).catalogs == good
    calls = {"view_at": lambda c: replay.view_at(svc, match, seq=40, catalogs=c),
             "steps": lambda c: replay.steps(svc, match, catalogs=c),
             "load_history": lambda c: replay.load_history(svc, match, c)}
    for name, call in calls.items():
        for bad in wrong_catalogs(catalogs):
            with pytest.raises(TypeError, match=r"catalogs must be catalogs loaded from files"):
                call(bad)
    with pytest.raises(TypeError, match=r"got str 'mod\.csv': a file's name is read by load_catalogs\(FILE\)"):
        replay.view_at(svc, match, catalogs="mod.csv")
    with pytest.raises(TypeError, match=r"got a list holding str 'mod\.csv': a file is read by load_catalogs"):
        replay.steps(svc, match, catalogs=["mod.csv"])
    assert replay.view_at(svc, match, seq=40, catalogs=None).to_json() == replay.view_at(svc, match, seq=40).to_json()


# ------------------------------------------------------------------ 3: export_parquet(matches=...) choosing none


def test_export_of_no_match_is_an_error_and_one_id_as_a_str_a_type_error_nothing_written(folder, svc, tmp_path):
    """A str, ids none of which the file holds, or [] wrote an empty export that looked complete."""
    from zx_analytics.export import NothingToExport, export_parquet

    ids = sorted(r["match"] for r in svc.summaries())
    with Stats(str(folder / "s.duckdb")) as st:
        with pytest.raises(TypeError, match=rf"matches must be a list of match ids .*got str '{ids[0]}': one id "
                                            rf"is \[id\]"):
            export_parquet(st.con, tmp_path / "one", matches=ids[0])
        with pytest.raises(TypeError, match="matches must be a list of match ids"):
            export_parquet(st.con, tmp_path / "int", matches=[1])
        with pytest.raises(NothingToExport, match=r"no match of the analytics file has the id given \(1: "
                                                  r"'sim-2026-001'\): nothing was exported"):
            export_parquet(st.con, tmp_path / "typo", matches=["sim-2026-001"])
        with pytest.raises(NothingToExport, match=r"matches=\[\] names none.*nothing was exported"):
            export_parquet(st.con, tmp_path / "none", matches=iter([]))
        assert isinstance(NothingToExport("x"), Error)
        assert not any((tmp_path / d).exists() for d in ("one", "int", "typo", "none"))
        rows = export_parquet(st.con, tmp_path / "two", matches=(i for i in [ids[0], "not-a-match"]))
        assert {r["table"]: r["rows"] for r in rows if r["table"] in ("matches", "seats")} == {"matches": 1,
                                                                                               "seats": 2}


# ------------------------------------------------------------------ 4: a damaged analytics file


def test_a_damaged_analytics_file_is_damaged_file_with_the_clis_words_and_pythons_advice(folder, tmp_path):
    """Stats opened it without a word, then every statistic raised DuckDB's raw IOException."""
    from zx_analytics.db import DamagedFile

    cut = tmp_path / "cut.duckdb"
    data = (folder / "s.duckdb").read_bytes()
    cut.write_bytes(data[:len(data) // 2])
    with Stats(str(cut)) as st:
        calls = {"winrates": st.winrates, "cards": st.cards, "meta": st.meta, "games": st.games,
                 "sql": lambda: st.sql("SELECT * FROM seats"), "sql_rows": lambda: st.sql_rows("SELECT * FROM plays")}
        for name, call in calls.items():
            with pytest.raises(DamagedFile) as e:
                call()
            said = str(e.value)
            assert said.startswith(f"the analytics file {cut} is damaged or not a DuckDB database (IO Error: "), said
            assert said.endswith(f"): `zx analytics update --rebuild` rebuilds it from the store (in Python: "
                                 f"zx_analytics.projection.update(svc, {str(cut)!r}, rebuild=True))"), said
            assert isinstance(e.value, Error)
        # reworded for another reader (the CLI, the server), it keeps DuckDB's words, without Python's advice
        again = DamagedFile(cut, e.value)
        assert again.cause == e.value.cause and str(again).endswith("rebuilds it from the store")


# ------------------------------------------------------------------ 6: bad statistic arguments


def test_bad_statistic_arguments_are_errors_and_still_value_or_type_errors(folder):
    """They were plain ValueError/TypeError: ``except Error`` let them through."""
    from zx_analytics.stats import BadArgument, BadArgumentType

    with Stats(str(folder / "s.duckdb")) as st:
        values = {"since='2026-02-30'": lambda: st.winrates(since="2026-02-30"),
                  "since after until": lambda: st.winrates(since="2026-03-01", until="2026-02-01"),
                  "seat='third'": lambda: st.winrates(seat="third"), "by='foo'": lambda: st.winrates(by="foo"),
                  "meta(group='foo')": lambda: st.meta(group="foo"), "meta(by='foo')": lambda: st.meta(by="foo"),
                  "matchups(by='foo')": lambda: st.matchups(by="foo"), "min_games=0": lambda: Stats(st.con, 0),
                  "limit=-1": lambda: st.sql("SELECT 1", limit=-1)}
        for label, call in values.items():
            with pytest.raises(BadArgument) as e:
                call()
            assert isinstance(e.value, Error) and isinstance(e.value, ValueError), label
        types = {"oponent=": lambda: st.winrates(oponent="Riku"), "deck=5": lambda: st.winrates(deck=5),
                 "card=5": lambda: st.cards(card=5), "sql(5)": lambda: st.sql(5)}
        for label, call in types.items():
            with pytest.raises(BadArgumentType) as e:
                call()
            assert isinstance(e.value, Error) and isinstance(e.value, TypeError), label
        with pytest.raises(TypeError, match=r"unknown filter 'oponent': did you mean 'opponent'\? the filters are "):
            st.winrates(oponent="Riku")
        with pytest.raises(ValueError, match=r"since: '2026-02-30' is not a date \(YYYY-MM-DD\)"):
            st.winrates(since="2026-02-30")
        for name in ("player", "opponent", "deck"):  # (as the CLI's usage error: it was "no player named ''; did
            for empty in ("", "  "):  # you mean ...")
                with pytest.raises(BadArgument, match=rf"{name}: {empty!r} is empty: give a name, or None for no "
                                                      rf"{name} filter"):
                    st.winrates(**{name: empty})


# ------------------------------------------------------------------ 5: a damaged store


@pytest.fixture(scope="module")
def corrupt(folder) -> Path:
    """``s.sqlite`` with 512 bytes of every 8 KiB past the first overwritten (as a failing disk leaves it)."""
    import random

    data = bytearray((folder / "s.sqlite").read_bytes())
    rng = random.Random(3)
    for at in range(8192, len(data), 8192):
        data[at:at + 512] = bytes(rng.randrange(256) for _ in range(512))
    path = folder / "corrupt.sqlite"
    path.write_bytes(bytes(data))
    return path


def test_a_damaged_store_is_a_store_failure_in_the_clis_words(corrupt, svc):
    """MatchService opened it, then summaries() raised sqlite3.DatabaseError, get_match, steps and verify_match
    eventsourcing's DatabaseError: raw, past ``except Error``."""
    from zx_events.store import StoreError, StoreFailure

    match = sorted(r["match"] for r in svc.summaries())[0]
    said = f"the store {corrupt} failed: database disk image is malformed (is it damaged? `zx verify` checks it; " \
           f"restore it from a backup)"
    r = cli("--store", str(corrupt), "matches")  # what zx says of it
    assert r.exit_code == 1 and r.output == f"Error: {said}\n", r.output
    with MatchService(str(corrupt), create=False) as damaged:
        calls = {"summaries": damaged.summaries, "get_match": lambda: damaged.get_match(match),
                 "has_match": lambda: damaged.has_match(match), "steps": lambda: replay.steps(damaged, match),
                 "load_history": lambda: replay.load_history(damaged, match),
                 "verify_match": lambda: replay.verify_match(damaged, match),
                 "view_at": lambda: replay.view_at(damaged, match, seq=3)}
        for name, call in calls.items():
            with pytest.raises(StoreFailure) as e:
                call()
            assert str(e.value) == said, name
            assert isinstance(e.value, StoreError) and isinstance(e.value, Error), name
            assert e.value.cause is e.value.__cause__ and "malformed" in str(e.value.cause), name


def test_the_server_tells_a_store_failure_by_its_cause_as_before_never_as_a_bad_request(folder, corrupt, svc):
    """The replay functions and has_match now raise StoreFailure, a ZXError, which the server's handlers answered
    400 ("bad request"): it is the store failing (store_failure), answered as its cause was: 500, the server's
    words (a lost PostgreSQL server's 503 alike)."""
    from zx_web.app import store_failures
    from zx_web.backend import Backend, store_failure
    from zx_events.store import StoreFailure

    match = sorted(r["match"] for r in svc.summaries())[0]
    with MatchService(str(corrupt), create=False) as damaged:
        with pytest.raises(StoreFailure) as e:
            replay.load_history(damaged, match)
        backend = Backend(damaged, folder / "s.duckdb")
        assert store_failure(e.value) and StoreFailure in store_failures(backend)
        answer = backend.store_error(e.value)
        assert (answer.status, answer.message) == (500, f"the store {corrupt} failed to be read (is it damaged? `zx "
                                                         f"verify` checks it)")
        assert answer.logged == (f"the store {corrupt} failed: DatabaseError: database disk image is malformed (is "
                                 f"it damaged? `zx verify` checks it)")  # (the server's log; the visitor: no class)
        assert answer.message == backend.store_error(e.value.cause).message


# ------------------------------------------------------------------ 8: a Python caller's remedy, a zx user's


def test_rebuild_needed_and_damaged_file_name_a_python_callers_remedy_and_the_cli_its_own(folder, svc, tmp_path):
    """RebuildNeeded told a script to run `zx analytics update --rebuild`: it says update(..., rebuild=True) too;
    a zx command says its own words alone."""
    import duckdb

    from zx_analytics.db import RebuildNeeded

    old = tmp_path / "old.duckdb"
    old.write_bytes((folder / "s.duckdb").read_bytes())
    con = duckdb.connect(str(old))
    con.execute("UPDATE projection_position SET schema_version = 1")
    con.close()
    remedy = f" (in Python: zx_analytics.projection.update(svc, {str(old)!r}, rebuild=True))"
    with pytest.raises(RebuildNeeded) as e:
        Stats(str(old))
    assert str(e.value).endswith(f"run `zx analytics update --rebuild`{remedy}"), str(e.value)
    with pytest.raises(RebuildNeeded) as e:
        projection.update(svc, old)
    assert str(e.value).endswith(f"run `zx analytics update --rebuild`{remedy}"), str(e.value)
    r = cli("--store", str(folder / "s.sqlite"), "stats", "winrates", "--analytics", str(old))
    assert r.exit_code == 1 and r.output.endswith(f"--analytics {old} --rebuild`\n"), r.output
    cut = tmp_path / "cut.duckdb"
    data = (folder / "s.duckdb").read_bytes()
    cut.write_bytes(data[:len(data) // 2])
    r = cli("--store", str(folder / "s.sqlite"), "stats", "winrates", "--analytics", str(cut))
    assert r.exit_code == 1 and "is damaged or not a DuckDB database" in r.output, r.output
    assert r.output.endswith(f"--analytics {cut} --rebuild` rebuilds it from the store\n"), r.output


def test_help_says_what_the_api_takes():
    """help(MatchService) showed eventsourcing's Application docstring; help(Stats.winrates) named no filter;
    help(update) showed *args, **kwargs; the packages had no docstring."""
    import pydoc

    import zx_analytics
    import zx_events
    from zx_analytics.stats import Filters

    def shown(thing) -> str:
        return pydoc.render_doc(thing, renderer=pydoc.plaintext)

    assert "A store of matches" in shown(MatchService) and "create=False" in shown(MatchService)
    for statistic in ("winrates", "matchups", "archetypes", "meta", "mulligans", "attacks", "life", "cards"):
        text = " ".join(shown(getattr(Stats, statistic)).split())
        assert all(f"``{name}``" in text for name in Filters.names()), statistic
    text = shown(projection.update)
    assert "rebuild: 'bool' = False" in text and "catalogs:" in text and "Bring the analytics file" in text
    assert "MatchService" in zx_events.__doc__ and "Stats" in zx_analytics.__doc__


# ------------------------------------------------------------------ round 37's second look: every type error an Error


def test_an_argument_of_another_type_is_an_error_and_a_type_error_everywhere(folder, svc, catalogs, tmp_path):
    """The packages' docstrings say every error for what a script gives is a zx_events.errors.Error; the type errors
    of export_parquet, update, view_at and MatchFilters were plain TypeErrors (the QA's review, round 37)."""
    from zx_analytics.export import export_parquet
    from zx_events.errors import ArgumentTypeError
    from zx_events.matchlist import MatchFilters

    match = svc.summaries()[0]["match"]
    with Stats(str(folder / "s.duckdb")) as st:
        calls = [lambda: export_parquet(st.con, tmp_path / "out", matches=match),
                 lambda: export_parquet(st, tmp_path / "out2"),
                 lambda: projection.update(svc, folder / "s.duckdb", catalogs="my.csv"),
                 lambda: replay.view_at(svc, match, catalogs={"a": 1}),
                 lambda: MatchFilters(player=5),
                 lambda: st.winrates(deck=5)]
        for call in calls:
            with pytest.raises(ArgumentTypeError) as e:
                call()
            assert isinstance(e.value, Error) and isinstance(e.value, TypeError), e.value
    assert not (tmp_path / "out").exists() and not (tmp_path / "out2").exists()


def test_steps_keep_the_catalogs_given_as_an_iterator(svc, catalogs):
    """steps() checked catalogs= and passed on what it was given: an iterator, read by the check, was empty then, and
    the steps lacked the file's card names without a word (the QA's review, round 37)."""
    match = svc.summaries()[0]["match"]
    for given in (catalogs.values(), list(catalogs.values()), (c for c in catalogs.values()),
                  iter(catalogs.values())):
        named = any(RENAMED in str(step.state) for step in replay.steps(svc, match, catalogs=given))
        assert named, type(given).__name__
