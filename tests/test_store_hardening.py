"""Mistyped, missing, damaged and foreign stores (issue 14 item 4; docs/security.md).

An unknown scheme is an error listing the accepted forms; read commands never create a store (not
even its folder); a damaged SQLite file or another application's database is reported clearly and
never written.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from zx_cli.main import zx
from pg_roles import READER, granted, new_role
from tcp_proxy import TcpProxy
from zx_events.application import MatchService
from zx_events.store import StoreError, resolve_store

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = sorted((ROOT / "examples" / "legal").glob("*.zxlog"))[0]
MISTYPED = ["mysql://zx@db/zx", "postgresql:/one-slash", "http://example.org/store", "sqlite:///x",
            "ftp:store.sqlite", "postgres:/db"]
READ_COMMANDS = [["matches"], ["replay", "m1"], ["verify"], ["audit", "m1"], ["stats", "winrates"],
                 ["analytics", "update"], ["sql", "SELECT 1"]]


def invoke(cwd: Path, *args: str):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(zx, list(args))
    finally:
        os.chdir(old)


def files_under(d: Path) -> list[str]:
    return sorted(str(p.relative_to(d)) for p in d.rglob("*"))


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("url", MISTYPED)
@pytest.mark.parametrize("command", [["matches"], ["import", str(EXAMPLE)], ["verify"]], ids=["matches", "import",
                                                                                             "verify"])
def test_a_mistyped_store_url_is_refused_and_creates_nothing(tmp_path, url, command, monkeypatch):
    monkeypatch.delenv("ZX_STORE", raising=False)
    monkeypatch.delenv("ZX_ANALYTICS", raising=False)
    r = invoke(tmp_path, "--store", url, *command)
    assert r.exit_code == 1, r.output
    assert "unknown store" in r.output and "memory:" in r.output and "postgresql://USER" in r.output
    assert "Traceback" not in r.output and not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit)
    assert files_under(tmp_path) == []
    assert not Path("/x").exists() or url != "sqlite:///x"


def test_the_error_explains_the_likely_typo():
    with pytest.raises(StoreError, match="two slashes"):
        resolve_store("postgresql:/one-slash")
    with pytest.raises(StoreError, match="give the path itself"):
        resolve_store("sqlite:///srv/store.sqlite")
    with pytest.raises(StoreError, match="write it as ./NAME"):
        resolve_store("mysql://u@h/db")


def test_the_accepted_forms_still_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_store("memory:").kind == "memory"
    assert resolve_store("sqlite://rel/a.sqlite").path == Path("rel/a.sqlite")
    assert resolve_store(str(tmp_path / "b.sqlite")).kind == "sqlite"
    assert resolve_store("./odd:name.sqlite").path == Path("odd:name.sqlite")


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_a_read_command_on_a_missing_store_says_so_and_creates_nothing(tmp_path, command, monkeypatch):
    monkeypatch.delenv("ZX_ANALYTICS", raising=False)
    store = tmp_path / "missing" / "s.sqlite"
    r = invoke(tmp_path, "--store", str(store), *command)
    assert r.exit_code == 1, r.output
    assert ("there is no store at" in r.output or "no analytics file at" in r.output
            or "neither a log file nor a stored match" in r.output), r.output
    assert "Traceback" not in r.output
    assert files_under(tmp_path) == []


def test_the_default_store_is_not_created_by_a_read_command(tmp_path, monkeypatch):
    monkeypatch.delenv("ZX_STORE", raising=False)
    r = invoke(tmp_path, "matches")
    assert r.exit_code == 1 and "there is no store at zx-store.sqlite" in r.output
    assert files_under(tmp_path) == []


def test_import_creates_the_store_and_its_folder(tmp_path):
    store = tmp_path / "new" / "deep" / "s.sqlite"
    r = invoke(tmp_path, "--store", str(store), "import", "--no-analytics", str(EXAMPLE))
    assert r.exit_code == 0, r.output
    assert store.is_file()
    r = invoke(tmp_path, "--store", str(store), "matches", "--format", "csv")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 2


def test_store_after_the_subcommand(tmp_path):
    store = tmp_path / "s.sqlite"
    assert invoke(tmp_path, "--store", str(store), "import", str(EXAMPLE)).exit_code == 0
    r = invoke(tmp_path, "matches", "--store", str(store), "--format", "csv")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 2
    r = invoke(tmp_path, "stats", "attacks", "--store", str(store), "--format", "csv")
    assert r.exit_code == 0, r.output
    r = invoke(tmp_path, "--store", str(tmp_path / "elsewhere.sqlite"), "matches", "--store", str(store))
    assert r.exit_code == 0  # the later one wins


def _damaged(path: Path) -> Path:
    path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 16)
    return path


@pytest.mark.parametrize("command", [["matches"], ["verify"], ["replay", "m1"], ["import", str(EXAMPLE)]],
                         ids=lambda c: c[0])
def test_a_damaged_sqlite_file_is_reported_and_never_written(tmp_path, command):
    store = _damaged(tmp_path / "s.sqlite")
    before = sha(store)
    r = invoke(tmp_path, "--store", str(store), *command)
    assert r.exit_code == 1, r.output
    assert "is damaged or not a SQLite database" in r.output and "nothing was changed" in r.output
    assert "DatabaseError" not in r.output and "Traceback" not in r.output
    assert sha(store) == before and files_under(tmp_path) == ["s.sqlite"]


def test_a_text_file_given_as_store_is_refused(tmp_path):
    store = tmp_path / "notes.txt"
    store.write_text("my notes\n" * 100)
    r = invoke(tmp_path, "--store", str(store), "import", str(EXAMPLE))
    assert r.exit_code == 1 and "is damaged or not a SQLite database" in r.output
    assert store.read_text() == "my notes\n" * 100


def test_a_sqlite_file_of_another_application_is_refused(tmp_path):
    store = tmp_path / "app.sqlite"
    con = sqlite3.connect(store)
    con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO users VALUES (1, 'ann')")
    con.commit()
    con.close()
    before = sha(store)
    for command in (["import", str(EXAMPLE)], ["matches"]):
        r = invoke(tmp_path, "--store", str(store), *command)
        assert r.exit_code == 1, r.output
        assert "is not a zx-events store: it holds tables of another application (users)" in r.output
    assert sha(store) == before and files_under(tmp_path) == ["app.sqlite"]


def test_another_event_sourced_application_is_refused(tmp_path):
    store = tmp_path / "other.sqlite"
    con = sqlite3.connect(store)
    con.execute("CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, topic TEXT, "
                "state BLOB, PRIMARY KEY (originator_id, originator_version))")
    con.execute("INSERT INTO stored_events VALUES ('a', 1, 'shop.orders:Order.Created', x'7b7d')")
    con.commit()
    con.close()
    r = invoke(tmp_path, "--store", str(store), "import", str(EXAMPLE))
    assert r.exit_code == 1 and "holds the events of another application" in r.output


def test_a_folder_given_as_store_is_refused(tmp_path):
    r = invoke(tmp_path, "--store", str(tmp_path), "import", str(EXAMPLE))
    assert r.exit_code == 1 and "is a folder" in r.output


def test_a_store_damaged_under_a_command_is_an_error_not_a_traceback(tmp_path):
    store = tmp_path / "s.sqlite"
    assert invoke(tmp_path, "--store", str(store), "import", "--no-analytics", str(EXAMPLE)).exit_code == 0
    con = sqlite3.connect(store)
    con.execute("DROP TABLE stored_events")  # passes the opening check (an empty store has no table either)
    con.execute("CREATE VIEW stored_events AS SELECT 1/0 AS originator_id")
    con.commit()
    con.close()
    r = invoke(tmp_path, "--store", str(store), "matches")
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"the store {store} failed" in r.output or "damaged" in r.output


def test_the_python_api_creates_by_default_and_not_when_asked(tmp_path):
    with pytest.raises(StoreError, match="there is no store at"):
        MatchService(str(tmp_path / "a" / "s.sqlite"), create=False)
    assert not (tmp_path / "a").exists()
    MatchService(str(tmp_path / "b" / "s.sqlite"))
    assert (tmp_path / "b" / "s.sqlite").exists()


@pytest.mark.postgres
def test_a_read_command_on_a_missing_postgres_schema_creates_nothing(postgres_server):
    from zx_events.store import connect_postgres, postgres_env

    url = postgres_server.fresh_url()
    r = CliRunner().invoke(zx, ["--store", url, "matches"])
    assert r.exit_code == 1 and "there is no store at postgresql://" in r.output
    env = postgres_env(url)
    with connect_postgres(env) as conn:
        assert conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (env["POSTGRES_SCHEMA"],)).fetchone() is None
    r = CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", str(EXAMPLE)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["--store", url, "matches", "--format", "csv"])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 2


def stored_with_a_role(postgres_server, prefix: str) -> tuple[str, dict[str, str], str, str]:
    """A fresh PostgreSQL store holding the example match: its URL and ``postgres_env``, the name of a role
    not made yet (``PREFIX_`` and 8 random hex digits) and the store's URL as that role."""
    from zx_events.store import postgres_env

    url = postgres_server.fresh_url()
    assert CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", str(EXAMPLE)]).exit_code == 0
    role, as_role = new_role(prefix, url)
    return url, postgres_env(url), role, as_role


@pytest.mark.postgres
def test_a_reader_role_with_the_documented_grants_reads_and_nothing_creates_a_table(postgres_server, tmp_path):
    """docs/deployment.md's reader grants (USAGE on the schema, SELECT on both tables; no INSERT on the
    snapshots: no reader writes one): zx verify failed ("permission denied for schema", then "is it damaged?") and every view of
    zx serve answered 500, because opening the snapshots ran CREATE TABLE IF NOT EXISTS, which needs
    CREATE on the schema. And a read command or zx serve made the snapshots table again once dropped."""
    from fastapi.testclient import TestClient

    from zx_web.app import create_app
    from zx_events.store import connect_postgres

    url, env, role, reader = stored_with_a_role(postgres_server, "zx_reader")
    schema = env["POSTGRES_SCHEMA"]
    with granted(env, role, READER):
        match = "hand-first-turns-001"
        for args in (["verify", match], ["audit", match], ["replay", match, "--event", "9", "--as", "P1"], ["matches"],
                     ["view", match, "-o", str(tmp_path / "v.html")]):
            r = CliRunner().invoke(zx, ["--store", reader, *args])
            assert r.exit_code == 0 and "permission denied" not in r.output, (args, r.output)
        with TestClient(create_app(reader, analytics=tmp_path / "none.duckdb")) as c:
            assert c.get(f"/api/matches/{match}/view", params={"at": 9, "as": "P1"}).status_code == 200
        # an import as the reader: its cause at once (it was "pipeline aborted ... run the import again")
        r = CliRunner().invoke(zx, ["--store", reader, "import", "--no-analytics", str(EXAMPLE)])
        assert r.exit_code == 1 and f"the role {role} may not write" in r.output and "lacks INSERT" in r.output
        with connect_postgres(env) as conn:  # dropped: no reader and no server makes it again
            conn.execute(f'DROP TABLE "{schema}".matches_snapshots')
        for args in (["verify"], ["audit", match], ["matches"], ["replay", match, "--event", "9"]):
            assert CliRunner().invoke(zx, ["--store", url, *args]).exit_code == 0, args
        with TestClient(create_app(url, analytics=tmp_path / "none.duckdb")) as c:
            assert c.get(f"/api/matches/{match}/view", params={"at": 9}).status_code == 200
        with connect_postgres(env) as conn:
            assert conn.execute("SELECT to_regclass(%s)", (f'"{schema}".matches_snapshots',)).fetchone()[0] is None
        assert CliRunner().invoke(zx, ["--store", url, "prepare"]).exit_code == 0  # a writer makes it
        with connect_postgres(env) as conn:
            assert conn.execute("SELECT to_regclass(%s)", (f'"{schema}".matches_snapshots',)).fetchone()[0] is not None


@pytest.mark.postgres
def test_zx_prepare_without_select_on_the_events_is_told_so_before_any_work(postgres_server):
    """zx prepare checked its grants on the snapshots table but not SELECT on the events it replays: a role
    with INSERT on matches_snapshots only got past the check and failed under the command."""
    url, env, role, as_role = stored_with_a_role(postgres_server, "zx_noselect")
    schema = env["POSTGRES_SCHEMA"]
    with granted(env, role, "SELECT, INSERT ON {t}.matches_snapshots"):
        r = CliRunner().invoke(zx, ["--store", as_role, "prepare"])
        assert r.exit_code == 1 and "Traceback" not in r.output, r.output
        assert (f'it lacks SELECT on "{schema}".matches_events (the events it replays) (docs/deployment.md lists the '
                f'grants of zx prepare); nothing was written') in r.output, r.output


@pytest.mark.postgres
def test_a_role_that_may_not_use_or_create_in_the_schema_is_told_which_grant_before_anything_is_made(postgres_server):
    """A read command by a role without USAGE on the store's schema said "cannot create schema"; an import
    by a role without CREATE on the schema said "cannot open the store ...: permission denied for schema".
    Each now names the grant it lacks, and nothing is created."""
    from zx_events.store import connect_postgres

    url, env, role, as_role = stored_with_a_role(postgres_server, "zx_noschema")
    schema, fresh = env["POSTGRES_SCHEMA"], f"{env['POSTGRES_SCHEMA']}_new"
    new_store = as_role.replace(f"schema={schema}", f"schema={fresh}")
    with connect_postgres(env) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'CREATE SCHEMA "{fresh}"')  # made for the role, without a grant yet
    try:
        for args in (["matches"], ["verify"], ["replay", "hand-first-turns-001"]):
            r = CliRunner().invoke(zx, ["--store", as_role, *args])
            assert r.exit_code == 1 and f"the role {role} may not use schema {schema}" in r.output, (args, r.output)
            assert "grant it USAGE on it and SELECT on its tables" in r.output and "create" not in r.output, r.output
        r = CliRunner().invoke(zx, ["--store", new_store, "import", "--no-analytics", str(EXAMPLE)])
        assert r.exit_code == 1 and f"the role {role} may not use schema {fresh}" in r.output, r.output
        with connect_postgres(env) as conn:
            conn.execute(f'GRANT USAGE ON SCHEMA "{fresh}" TO "{role}"')
        r = CliRunner().invoke(zx, ["--store", new_store, "import", "--no-analytics", str(EXAMPLE)])
        assert r.exit_code == 1 and f"may not create the store's tables in schema {fresh}" in r.output, r.output
        assert "grant it CREATE on the schema" in r.output and "nothing was created" in r.output, r.output
        with connect_postgres(env) as conn:
            assert conn.execute("SELECT to_regclass(%s)", (f'"{fresh}".matches_events',)).fetchone()[0] is None
            conn.execute(f'GRANT CREATE ON SCHEMA "{fresh}" TO "{role}"')
        assert CliRunner().invoke(zx, ["--store", new_store, "import", "--no-analytics", str(EXAMPLE)]).exit_code == 0
    finally:
        with connect_postgres(env) as conn:
            conn.execute(f'DROP SCHEMA "{fresh}" CASCADE')
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


@pytest.mark.postgres
def test_zx_prepare_and_zx_verify_seal_without_usage_are_told_the_grants_of_their_own_command(postgres_server):
    """zx prepare and zx verify --seal by a role without USAGE on the store's schema were told a reader's grants,
    then one sentence of both commands' grants: each is now told what it needs itself (zx prepare --repair,
    DELETE too), and those grants, given one command at a time, are enough for it to run."""
    from zx_events.store import connect_postgres

    url, env, role, as_role = stored_with_a_role(postgres_server, "zx_writer")
    schema = env["POSTGRES_SCHEMA"]
    with connect_postgres(env) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        # a store from before the seal (0.1.0): zx verify --seal writes its first entry
        conn.execute(f'DELETE FROM "{schema}".matches_events WHERE topic LIKE %s', ("zx_events.%",))
    advice = {
        ("prepare",): "USAGE on it, SELECT on matches_events, and SELECT, INSERT on matches_snapshots, which zx "
                      "prepare needs",
        ("prepare", "--repair"): "USAGE on it, SELECT on matches_events, and SELECT, INSERT, DELETE on "
                                 "matches_snapshots, which zx prepare --repair needs",
        ("verify", "--seal"): "USAGE on it and on its sequences, SELECT on matches_events and matches_snapshots, and "
                              "INSERT, UPDATE on matches_events (for LOCK TABLE ... IN EXCLUSIVE MODE), which zx "
                              "verify --seal needs",
    }
    grants = {
        ("prepare",): [f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"',
                       f'GRANT SELECT ON "{schema}".matches_events TO "{role}"',
                       f'GRANT SELECT, INSERT ON "{schema}".matches_snapshots TO "{role}"'],
        ("prepare", "--repair"): [f'GRANT DELETE ON "{schema}".matches_snapshots TO "{role}"'],
        ("verify", "--seal"): [f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"',
                               f'GRANT INSERT, UPDATE ON "{schema}".matches_events TO "{role}"'],
    }
    try:
        for args, needs in advice.items():
            r = CliRunner().invoke(zx, ["--store", as_role, *args])
            assert r.exit_code == 1 and "Traceback" not in r.output, (args, r.output)
            assert (f"the role {role} may not use schema {schema} of {as_role}: grant it {needs} (docs/deployment.md, "
                    f'"Setting up the server"); nothing was written') in r.output, (args, r.output)
            assert "SELECT on its tables" not in r.output and "nothing was read" not in r.output, (args, r.output)
        for args, statements in grants.items():  # what each was told is enough for it
            with connect_postgres(env) as conn:
                for statement in statements:
                    conn.execute(statement)
            r = CliRunner().invoke(zx, ["--store", as_role, *args])
            assert r.exit_code == 0, (args, r.output)
        assert "1 match sealed" in r.output, r.output
    finally:
        with connect_postgres(env) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


def test_a_store_password_never_reaches_a_message():
    """A password with an unencoded #, ? or / cut urlparse's netloc short and stayed in the message, and
    three messages printed the URL as given."""
    from zx_events.store import _redact, redacted

    for password in ("Hunter2pw", "Hunter#2pw", "Hun/ter?2", "a@b#c"):
        url = f"postgresql://postgres:{password}@127.0.0.1:1/db?sslmode=disable"
        assert password not in _redact(url) and _redact(url).startswith("postgresql://postgres:***@")
        assert password not in redacted(f"cannot open the store {url}: failed for {password}", url)
        r = CliRunner().invoke(zx, ["--store", url, "matches"])  # nothing listens on port 1
        assert r.exit_code == 1 and password not in r.output and "Traceback" not in r.output, r.output
    assert _redact("postgresql://postgres@127.0.0.1:5432/db") == "postgresql://postgres@127.0.0.1:5432/db"


SECRET = "Hunter2Secret"
# every way a password may be typed in a mistyped or refused store URL (QA: three of them printed it in clear)
SECRET_URLS = [
    f"postgresql:/zx:{SECRET}@127.0.0.1:1/db",  # one slash
    f"postgres:/zx:{SECRET}@127.0.0.1:1/db",
    f"postgresql:zx:{SECRET}@127.0.0.1:1/db",  # no slash
    f"postgresql//zx:{SECRET}@127.0.0.1:1/db",  # no colon: it was read as a SQLite path
    f"postgresql:///zx:{SECRET}@127.0.0.1:1/db",  # three slashes: the password was the database name
    f"POSTGRESQL://zx:{SECRET}@127.0.0.1:1/db",
    f"postgresql://zx@127.0.0.1:1/db?password={SECRET}",  # libpq's parameter, which zx does not take
    f"postgresql://zx@127.0.0.1:1/db?sslmode=disable&PassWord={SECRET}",
    f"postgresql://zx@127.0.0.1:1/db?%70assword={SECRET}",  # its name percent-encoded
    f"postgresql://zx@127.0.0.1:1/db?password%3D{SECRET}",
    f"postgresql://zx@127.0.0.1:1/db?sslpassword={SECRET}",
    f"postgresql://zx:{SECRET[:6]}%32{SECRET[7:]}@[127.0.0.1:1/db",  # percent-encoded, and a URL urlparse refuses
    f"postgresql://zx:12/{SECRET}@127.0.0.1:1/db",  # an unencoded / ? or # cut the host part short
    f"postgresql://zx:12?{SECRET}@127.0.0.1:1/db",
    f"postgresql://zx:12#{SECRET}@127.0.0.1:1/db",
]


@pytest.mark.parametrize("url", SECRET_URLS)
@pytest.mark.parametrize("how", ["--store", "ZX_STORE"])
def test_a_store_password_is_masked_in_every_mistyped_form(tmp_path, url, how, monkeypatch):
    """The password of a store URL never reaches a message, whatever the mistake around it: a scheme with
    one slash or none, ?password= in the query (its name in any case or percent-encoded), percent-encoded
    in the user part; it was printed in clear by "unknown store" and "unknown parameter password"."""
    monkeypatch.delenv("ZX_STORE", raising=False)
    for command in (["matches"], ["import", "--no-analytics", str(EXAMPLE)]):
        if how == "ZX_STORE":
            monkeypatch.setenv("ZX_STORE", url)
            r = invoke(tmp_path, *command)
        else:
            r = invoke(tmp_path, "--store", url, *command)
        assert r.exit_code == 1, r.output
        assert SECRET not in r.output and "unter2" not in r.output and "***" in r.output, r.output
        assert "Traceback" not in r.output and "internal error" not in r.output, r.output
        assert files_under(tmp_path) == []  # (postgresql//... was a SQLite path: import made its folders)


@pytest.mark.parametrize("password", ["Sec/ret", "Sec?ret", "Sec#ret", "P@ss:w/rd?#1+x"])
def test_an_unencoded_slash_question_mark_or_hash_in_a_password_says_to_percent_encode_it(password):
    """docs/deployment.md: an @ after the host (a password holding an unencoded / ? #) is an error listing the
    accepted forms; a password not starting with digits was "bad port in the store URL", the port check (its
    start, "Sec", stood where the port goes) coming before this one."""
    with pytest.raises(StoreError) as info:
        resolve_store(f"postgresql://zx:{password}@127.0.0.1:54329/zx", prepare=False)
    assert str(info.value).startswith("bad store URL 'postgresql://zx:***@127.0.0.1:54329/zx': an @ after the host, "
                                      "or a # in it: a password that holds / ? # or @ must be percent-encoded "
                                      "(%2F %3F %23 %40). A store is "), str(info.value)


def test_a_password_given_as_a_parameter_is_told_where_it_goes():
    with pytest.raises(StoreError) as info:
        resolve_store(f"postgresql://zx@127.0.0.1:1/db?password={SECRET}", prepare=False)
    assert "unknown parameter password in the store URL postgresql://zx@127.0.0.1:1/db?password=***" in str(info.value)
    assert "a password goes before the host (postgresql://USER:PASSWORD@HOST/DB), or in PGPASSWORD" in str(info.value)


@pytest.mark.parametrize("command", [["matches"], ["audit", "m1"], ["analytics", "update"], ["serve"], ["verify"],
                                     ["import", "--no-analytics", str(EXAMPLE)], ["replay", "m1"], ["prepare"],
                                     ["view", "m1", "-o", "v.html"], ["analytics", "follow"]],
                         ids=lambda c: c[0] if c[0] != "analytics" else f"analytics-{c[1]}")
def test_an_unbalanced_bracket_in_a_store_url_is_the_bad_url_error(tmp_path, command, monkeypatch):
    """postgresql://zx@[127.0.0.1:5432/db: urlparse raises ValueError ("Invalid IPv6 URL"): zx matches, audit,
    analytics and serve called it an internal error ("a bug in zx"), the others "cannot open the store"."""
    monkeypatch.delenv("ZX_STORE", raising=False)
    monkeypatch.setenv("ZX_ANALYTICS", str(tmp_path / "a.duckdb"))
    r = invoke(tmp_path, "--store", f"postgresql://zx:{SECRET}@[127.0.0.1:1/db", *command)
    assert r.exit_code == 1, r.output
    assert r.output.startswith("Error: bad store URL 'postgresql://zx:***@[127.0.0.1:1/db': Invalid IPv6 URL"), r.output
    assert "an IPv6 host is written [::1]" in r.output and "postgresql://USER[:PASSWORD]@HOST" in r.output
    assert SECRET not in r.output and "internal error" not in r.output
    assert files_under(tmp_path) == []


@pytest.mark.postgres
@pytest.mark.parametrize("command, allow, cut", [
    (["analytics", "follow"], 1000, 3.0),  # the server lost while follow waits for matches (QA's case)
    (["import", "--no-analytics", str(EXAMPLE)], 2, None),  # lost once the store is open, before the import checks
], ids=["follow", "import"])
def test_a_postgres_server_lost_under_a_command_is_called_unreachable_not_damaged(postgres_server, tmp_path,
                                                                                 command, allow, cut, monkeypatch):
    """The server gone after the store was opened: zx analytics follow (and every command) said "is it
    damaged? `zx verify` checks it; restore it from a backup" (docs/deployment.md: a damaged store is
    only a file SQLite cannot read); zx import was an internal error (its privilege check connects)."""
    import threading
    from urllib.parse import urlparse

    from zx_events.store import postgres_env

    url = postgres_server.fresh_url()
    assert CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", str(EXAMPLE)]).exit_code == 0
    env = postgres_env(url)
    proxy = TcpProxy((env["POSTGRES_HOST"], int(env["POSTGRES_PORT"])), allow=allow)
    u = urlparse(url)
    lost = u._replace(netloc=f"{u.username}@127.0.0.1:{proxy.port}").geturl() + "&connect_timeout=1"
    monkeypatch.setenv("ZX_ANALYTICS", str(tmp_path / "a.duckdb"))
    timer = threading.Timer(cut, proxy.close) if cut else None
    if timer:
        timer.start()
    try:
        r = CliRunner().invoke(zx, ["--store", lost, *command])
    finally:
        proxy.close()
    assert r.exit_code == 1, r.output
    assert f"the PostgreSQL server at 127.0.0.1:{proxy.port} could not be reached" in r.output, r.output
    assert "check that it runs and that this machine reaches it" in r.output
    assert "damaged" not in r.output and "backup" not in r.output and "internal error" not in r.output


@pytest.mark.postgres
def test_an_importer_or_preparer_missing_a_documented_grant_is_told_which(postgres_server):
    """docs/deployment.md's grants, each missing in turn: the import said "pipeline aborted ... run the import
    again" without UPDATE (its cause only in the server's log), "permission denied for sequence ... run the
    import again" without USAGE on the sequence, and zx prepare "permission denied ... run zx prepare again"
    without INSERT on the snapshots or in a read-only session: running again could never succeed. Each is now
    named before any work, as a missing INSERT was; a privilege lost during the work is named too."""
    from eventsourcing.persistence import PersistenceError

    from zx_cli.replay import _prepare_failed
    from zx_events import replay
    from zx_events.store import connect_postgres

    _, env, role, importer = stored_with_a_role(postgres_server, "zx_importer")
    schema = env["POSTGRES_SCHEMA"]
    events, snapshots = f'"{schema}".matches_events', f'"{schema}".matches_snapshots'
    sequence = f"{schema}.matches_events_notification_id_seq"
    others = sorted((ROOT / "examples" / "legal").glob("*.zxlog"))[1:3]

    def sql(*statements: str) -> None:
        with connect_postgres(env) as conn:
            for statement in statements:
                conn.execute(statement)

    def zx_as(*args: str):
        return CliRunner().invoke(zx, ["--store", importer, *args])

    sql(f'CREATE ROLE "{role}" LOGIN', f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"',  # docs/deployment.md's
        f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"',  # grants, but UPDATE
        f'GRANT SELECT, INSERT ON {events}, {snapshots} TO "{role}"')
    try:
        r = zx_as("import", "--no-analytics", str(others[0]))
        assert r.exit_code == 1 and r.output == (
            f"Error: the role {role} may not write {importer}: it lacks UPDATE on {events} (for LOCK TABLE ... IN "
            f"EXCLUSIVE MODE) (docs/deployment.md lists the grants of an importer); nothing was imported\n"), r.output
        sql(f'GRANT UPDATE ON {events} TO "{role}"', f'REVOKE USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" FROM "{role}"')
        r = zx_as("import", "--no-analytics", str(others[0]))
        assert r.exit_code == 1 and f"it lacks USAGE on the sequence {sequence} (docs/deployment.md" in r.output
        sql(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"', f'ALTER ROLE "{role}" SET '
            f'default_transaction_read_only = on')
        for args in (["import", "--no-analytics", str(others[0])], ["prepare"]):
            r = zx_as(*args)
            assert r.exit_code == 1 and f"the role {role} may not write {importer}: its sessions are read-only " \
                "(default_transaction_read_only is on for the role or its database)" in r.output, (args, r.output)
            assert "run " not in r.output
        sql(f'ALTER ROLE "{role}" RESET default_transaction_read_only', f'REVOKE INSERT ON {snapshots} FROM "{role}"')
        r = zx_as("prepare")
        assert r.exit_code == 1 and r.output == (
            f"Error: the role {role} may not write {importer}: it lacks INSERT on {snapshots} (docs/deployment.md "
            f"lists the grants of zx prepare); nothing was written (seeks still work, replaying from the first "
            f"event)\n"), r.output
        sql(f'GRANT INSERT ON {snapshots} TO "{role}"')
        r = zx_as("prepare", "--repair")
        assert r.exit_code == 1 and f"it lacks DELETE on {snapshots} (for --repair)" in r.output, r.output
        # with every documented grant, both work
        assert zx_as("import", "--no-analytics", str(others[0])).exit_code == 0
        assert zx_as("prepare").exit_code == 0, zx_as("prepare").output
        # a privilege lost while zx prepare works: named, with what to do (not "run zx prepare again" alone)
        assert zx_as("import", "--no-analytics", str(others[1])).exit_code == 0
        svc = MatchService(importer, create=False, write=True)  # as zx prepare opens it (one opened to read writes none)
        try:
            sql(f'REVOKE INSERT ON {snapshots} FROM "{role}"')
            match = svc.summaries()[-1]["match"]
            with pytest.raises(PersistenceError) as info:
                replay.prepare_snapshots(svc, match, strict=True)
            message = _prepare_failed(svc, info.value, 0, 1)
        finally:
            svc.close()
        assert f"the role {role} may not do that (permission denied for table matches_snapshots)" in message, message
        assert "docs/deployment.md lists the grants" in message and "grant it, then run zx prepare again" in message
    finally:
        sql(f'DROP OWNED BY "{role}"', f'DROP ROLE "{role}"')


def test_a_path_naming_a_home_folder_of_no_user_is_an_error_about_it(tmp_path, monkeypatch):
    """``--store '~nosuchuser/x.sqlite'`` (or ``--analytics``) was "internal error: RuntimeError: Could not
    determine home directory ... This is a bug in zx". A store path says the user does not exist; an analytics
    path is taken as written (there is no such file)."""
    from click.testing import CliRunner

    from zx_cli.main import zx

    monkeypatch.chdir(tmp_path)
    for args in (["matches"], ["import", "--no-analytics", str(ROOT / "examples" / "legal")], ["verify"]):
        r = CliRunner().invoke(zx, ["--store", "~nosuchuser-zx/x.sqlite", *args])
        assert r.exit_code == 1, r.output
        assert ("cannot read the store path '~nosuchuser-zx/x.sqlite': ~nosuchuser-zx names no user of this "
                "machine") in r.output and "internal error" not in r.output
    r = CliRunner().invoke(zx, ["stats", "winrates", "--analytics", "~nosuchuser-zx/x.duckdb"])
    assert r.exit_code == 1 and "no analytics file at ~nosuchuser-zx/x.duckdb" in r.output, r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.postgres
def test_the_first_seal_by_a_role_that_may_not_write_the_events_is_refused_before_any_work(postgres_server):
    """zx verify --seal of a store from before the seal writes its first entries into the events table, as an
    import does; a role with only a reader's grants verified every match, then failed under the command with
    "permission denied". It is told the grants it lacks first, as zx import and zx prepare are."""
    from zx_events.ledger import LEDGER_ID
    from zx_events.store import connect_postgres

    url, env, role, as_role = stored_with_a_role(postgres_server, "zx_noseal")
    schema = env["POSTGRES_SCHEMA"]
    with connect_postgres(env) as conn:  # a store from before the seal: its matches, no ledger
        conn.execute(f'DELETE FROM "{schema}".matches_events WHERE originator_id = %s', (LEDGER_ID,))
    with granted(env, role, READER):
        r = CliRunner().invoke(zx, ["--store", as_role, "verify", "--seal"])
        assert r.exit_code == 1 and "Traceback" not in r.output and "permission denied" not in r.output, r.output
        assert f'it lacks INSERT on "{schema}".matches_events' in r.output, r.output
        assert "lists the grants of an importer, which zx verify --seal needs); nothing was sealed" in r.output
        assert "intact" not in r.output  # refused before the matches were read
        r = CliRunner().invoke(zx, ["--store", as_role, "verify"])  # reading stays a reader's
        assert r.exit_code == 0 and "store seal: none" in r.output, r.output
        with connect_postgres(env) as conn:  # an empty store: nothing to seal, nothing to refuse
            conn.execute(f'DELETE FROM "{schema}".matches_events')
        r = CliRunner().invoke(zx, ["--store", as_role, "verify", "--seal"])
        assert r.exit_code == 0 and "may not write" not in r.output, r.output


@pytest.mark.postgres
def test_the_python_api_opening_a_store_to_write_as_a_reader_role_gets_a_store_error_not_psycopgs(postgres_server):
    """MatchService(url) (it may write: it makes a missing snapshots table) as a role with SELECT only, on a
    store whose snapshots table is gone, raised eventsourcing's ProgrammingError "permission denied for schema";
    the CLI said it in words. Now the service says it (StoreError, a ValueError), and create=False reads."""
    from zx_events import replay
    from zx_events.application import MatchService
    from zx_events.store import StoreError, connect_postgres

    url, env, role, as_role = stored_with_a_role(postgres_server, "zx_apiread")
    schema = env["POSTGRES_SCHEMA"]
    with connect_postgres(env) as conn:
        conn.execute(f'DROP TABLE "{schema}".matches_snapshots')
    with granted(env, role, "SELECT ON {t}.matches_events"):
        with pytest.raises(StoreError) as info:
            MatchService(as_role)
        assert str(info.value) == (f"cannot open the store {as_role}: the role {role} may not do that (permission "
                                   f"denied for schema {schema}): docs/deployment.md lists the grants of an importer "
                                   f"and a reader")
        reader = MatchService(as_role, create=False)
        try:
            assert replay.view_at(reader, "hand-first-turns-001", seq=9).seq == 9
        finally:
            reader.close()


@pytest.mark.postgres
def test_zx_matches_on_a_postgres_store_closes_what_it_opened(postgres_server, monkeypatch):
    """zx matches on a PostgreSQL store left its service to the collector: in a longer-lived process (CliRunner,
    the Python API) its connection pool was closed by ``__del__``, with a warning from psycopg_pool."""
    url = postgres_server.fresh_url()
    assert CliRunner().invoke(zx, ["--store", url, "import", "--no-analytics", str(EXAMPLE)]).exit_code == 0
    opened, closed = [], []
    real_init, real_close = MatchService.__init__, MatchService.close
    monkeypatch.setattr(MatchService, "__init__", lambda self, *a, **k: (opened.append(self), real_init(self, *a, **k))[1])
    monkeypatch.setattr(MatchService, "close", lambda self: (closed.append(self), real_close(self))[1])
    r = CliRunner().invoke(zx, ["--store", url, "matches", "--format", "json"])
    assert r.exit_code == 0 and EXAMPLE.stem in r.output, r.output
    assert opened and all(svc in closed for svc in opened)


def test_a_service_whose_recorder_cannot_be_made_closes_what_it_opened(tmp_path, monkeypatch):
    """MatchService's set-up failing after eventsourcing made its factory (the recorder's tables refused: a role
    without a grant) left the factory's connection pool to the collector: closed by ``Application.__del__`` on
    whatever thread the collection ran, psycopg_pool's "cannot join current thread" and a pytest warning. It is
    closed before the error goes up."""
    from eventsourcing.persistence import PersistenceError

    made, closed = [], []
    real_factory = MatchService.construct_factory

    def factory(self, env):
        f = real_factory(self, env)
        made.append(f)
        real_close = f.close
        f.close = lambda: (closed.append(f), real_close())[1]
        return f

    held = []  # (the half-made service kept alive, as a reference cycle keeps it until a collection)

    def refused(self):
        held.append(self)
        raise PersistenceError("permission denied for schema zx")

    monkeypatch.setattr(MatchService, "construct_factory", factory)
    monkeypatch.setattr(MatchService, "construct_recorder", refused)
    with pytest.raises(StoreError, match="permission denied for schema zx"):
        MatchService(str(tmp_path / "s.sqlite"))
    assert made and all(f in closed for f in made)


@pytest.mark.parametrize("typed, pasted", [
    ("postgresql://reader:s3cret@db:5432/zx?schema=s&sslmode=verify-full",
     "postgresql://reader@db:5432/zx?schema=s&sslmode=verify-full"),
    ("postgresql://reader@db/zx?password=s3cret&schema=s", "postgresql://reader@db/zx?schema=s"),
    ("postgres://reader:p%40ss@db/zx?Password%3Dq;schema=s", "postgres://reader@db/zx?schema=s"),
    ("league/s.sqlite", "league/s.sqlite"),
])
def test_an_advised_command_names_the_store_without_its_password(typed, pasted):
    """The commands a message advises carried the store as ``postgresql://reader:***@...``: pasted and run, ``***``
    was the password (QA round 34). They carry it without one (libpq then asks PGPASSWORD or ~/.pgpass), never the
    password itself."""
    import shlex

    from zx_events.advice import with_given

    advice = with_given("run `zx analytics update` first", typed, None)
    assert advice == f"run `zx --store {shlex.quote(pasted)} analytics update` first"
    assert "s3cret" not in advice and "***" not in advice and "p%40ss" not in advice
