"""How zx reports the store failing under it: a folder or file it may not write, a full disk, a lock
held by another process, Ctrl-C during an import. Each says what happened, to which file, what was
kept and what to do next: never "damaged ... restore it from a backup" for a file that is only
read-only, never only "Aborted!" or "a read-only store" whatever the cause. Real SQLite files, real
processes and signals (tests/failure_support.py)."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from analytics_support import imported_store, log_text
from failure_support import ENV, ROOT, ZX, copy_store, corpus, interrupt, obeying_permissions, small_disk, zx  # noqa: F401 (corpus: a fixture)


def test_a_store_in_a_read_only_folder_is_read_and_never_called_damaged(tmp_path):
    """A healthy WAL store in a folder this user may not write (SQLite cannot create its -shm file: "attempt
    to write a readonly database") was "damaged or not a SQLite database ... Restore it from a backup" for
    every command. Readers now read it (as an unchanging file); writers say the folder is not writable."""
    prefix = obeying_permissions()
    store = imported_store(tmp_path, "--no-analytics")
    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.move(store, folder / "s.sqlite")
    for side in ("-wal", "-shm"):
        Path(f"{store}{side}").unlink(missing_ok=True)
    folder.chmod(0o555)
    try:
        r = zx(folder, "--store", "s.sqlite", "matches", "--format", "csv", prefix=prefix)
        assert r.returncode == 0, r.stderr
        assert [line.split(",")[0] for line in r.stdout.splitlines()[1:]] == ["m1", "m2", "m3"]
        r = zx(folder, "--store", "s.sqlite", "verify", prefix=prefix)
        assert r.returncode == 0 and "3 intact, 0 failed" in r.stderr, r.stderr
        r = zx(folder, "--store", "s.sqlite", "replay", "m1", "--format", "json", prefix=prefix)
        assert r.returncode == 0 and '"match_id": "m1"' in r.stdout, r.stderr
        r = zx(folder, "--store", "s.sqlite", "import", "--no-analytics", str(tmp_path / "hand.zxlog"), prefix=prefix)
        assert r.returncode == 1
        assert f"the folder {folder} of the store is not writable" in r.stderr and "s.sqlite-wal" in r.stderr
        r2 = zx(folder, "--store", "s.sqlite", "prepare", prefix=prefix)
        assert r2.returncode == 1 and f"the folder {folder} of the store is not writable" in r2.stderr, r2.stderr
        for out in (r.stderr, r2.stderr):
            assert "damaged" not in out and "backup" not in out and "Traceback" not in out
        assert sorted(p.name for p in folder.iterdir()) == ["s.sqlite"]  # nothing written beside it
    finally:
        folder.chmod(0o755)


def test_an_import_into_a_read_only_store_file_names_it_instead_of_run_the_import_again(tmp_path):
    """``zx import`` into a store file without write permission said "the store failed after 0 imported
    matches ... run the import again: OperationalError: attempt to write a readonly database"; zx prepare
    said "(a read-only store ...)" for any failure. Both now name the file that is not writable."""
    prefix = obeying_permissions()
    store = imported_store(tmp_path, "--no-analytics")
    (tmp_path / "new.zxlog").write_text(log_text(("m1",)).replace('"match": "m1"', '"match": "m4"'), encoding="utf-8")
    store.chmod(0o444)
    before = store.read_bytes()
    r = zx(tmp_path, "--store", "s.sqlite", "import", "--no-analytics", "new.zxlog", prefix=prefix)
    assert r.returncode == 1
    assert "cannot import into s.sqlite: the store file s.sqlite is not writable by this user" in r.stderr
    assert "nothing was imported" in r.stderr and "run the import again" not in r.stderr
    r = zx(tmp_path, "--store", "s.sqlite", "prepare", prefix=prefix)
    assert r.returncode == 1
    assert "cannot write snapshots to s.sqlite: the store file s.sqlite is not writable" in r.stderr
    assert "0 of 3 matches were prepared before" in r.stderr and "Traceback" not in r.stderr
    r = zx(tmp_path, "--store", "s.sqlite", "matches", prefix=prefix)  # and it reads as before
    assert r.returncode == 0 and "m3" in r.stdout
    assert store.read_bytes() == before


def test_an_import_waiting_for_another_writer_says_so(tmp_path):
    """``zx import`` on a store another process holds the write lock of waited up to 30 s without a word.
    It now says so once it has waited 3 s; the import goes on when the lock is released."""
    store = imported_store(tmp_path, "--no-analytics")
    holder = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys, time\n"
                               "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                               "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(4.5)\n"
                               "c.execute('ROLLBACK')", str(store)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        r = zx(tmp_path, "--store", "s.sqlite", "import", "--no-analytics", "hand.zxlog")
    finally:
        holder.wait(timeout=30)
    assert r.returncode == 0, r.stderr
    assert "note: another process is writing s.sqlite (another zx import or zx prepare): waiting" in r.stderr
    assert "0 imported, 3 unchanged" in r.stderr


def test_prepare_on_a_full_disk_says_the_disk_is_full_and_how_far_it_got(corpus, tmp_path):
    """``zx prepare`` on a full disk said "(a read-only store: seeks still work ...)" and not how many
    matches it had prepared; the matches it prepared keep their snapshots and a run again goes on."""
    size = (corpus / "store.sqlite").stat().st_size
    with small_disk(tmp_path / "disk", f"{size // 1024 + 600}k") as disk:
        copy_store(corpus, disk)
        r = zx(disk, "--store", "s.sqlite", "prepare")
        assert r.returncode == 1
        assert "cannot write snapshots to s.sqlite: the disk holding s.sqlite is full" in r.stderr, r.stderr
        assert "read-only" not in r.stderr and "Traceback" not in r.stderr
        prepared = int(r.stderr.split(" of 200 matches were prepared before")[0].rsplit(" ", 1)[1])
        assert 0 < prepared < 200
        assert "free some space, then run zx prepare again" in r.stderr
        subprocess.run(["mount", "-o", f"remount,size={size // 1024 + 20000}k", str(disk)], check=True)
        r = zx(disk, "--store", "s.sqlite", "prepare", "--format", "json")
        assert r.returncode == 0, r.stderr
        assert f'"prepared": {200 - prepared}' in r.stdout, r.stdout


def stored_matches(store: Path) -> int:
    try:
        con = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0
    try:
        return con.execute("SELECT count(*) FROM stored_events WHERE topic LIKE '%:Started'").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        con.close()


def test_ctrl_c_during_an_import_says_how_many_were_stored_and_how_to_finish(corpus, tmp_path):
    """Ctrl-C during ``zx import`` said only "Aborted!". It now says how many matches were stored and that
    the import run again finishes the job, those stored being 'unchanged'; no traceback."""
    for attempt in range(3):  # the signal sent at the first commit seen; on a busy host the import may still
        store = tmp_path / f"s{attempt}.sqlite"  # finish first (a CI run): then again, into a new store
        r = interrupt(tmp_path, ["--store", str(store), "import", "--workers", "1", "--no-analytics",
                                 str(corpus / "logs")], lambda: stored_matches(store) >= 1)
        if r.returncode != 0 or "200 imported" not in r.stderr:
            break
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and r.stderr.strip().splitlines()[-1] == "Aborted!"
    stored = stored_matches(store)
    assert 1 <= stored < 200, r.stderr
    said = f"{stored} match was" if stored == 1 else f"{stored} matches were"
    assert (f"interrupted: {said} imported into {store} before (the batch under way was not saved); "
            f"run the import again to finish it: the matches stored are 'unchanged' then") in r.stderr
    r = zx(tmp_path, "--store", str(store), "import", "--workers", "1", "--no-analytics", str(corpus / "logs"))
    assert r.returncode == 0 and f"{200 - stored} imported, {stored} unchanged, 0 rejected" in r.stderr


def test_sigterm_during_the_analytics_update_after_an_import_says_so_and_ends_by_the_signal(corpus, tmp_path):
    """SIGTERM while zx import brought the analytics file up to date (after "N imported ...") ended it without a
    word: the SIGTERM handler was the import loop's only. The whole command now takes it as Ctrl-C: the
    matches are imported, the analytics file was not brought up to date, and `zx analytics update` finishes
    it; the process still ends by the signal."""
    import threading

    cards = tmp_path / "my cards.csv"  # the import's --catalog FILE: named in the advice (the update needs it)
    shutil.copy(ROOT / "zx_events" / "games" / "zx" / "catalogs" / "sample.csv", cards)
    for attempt in range(3):  # (on a busy host the update may finish before the signal)
        store = tmp_path / f"t{attempt}.sqlite"
        p = subprocess.Popen([*ZX, "--store", str(store), "import", "--workers", "1", "--catalog", str(cards),
                              str(corpus / "logs")],
                             cwd=tmp_path, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(iter(p.stderr.readline, "")), daemon=True)
        reader.start()
        deadline = time.monotonic() + 60
        while p.poll() is None and not any("200 imported" in line for line in lines) and time.monotonic() < deadline:
            time.sleep(0.005)
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
        reader.join(timeout=10)
        err = "".join(lines)
        if p.returncode != 0:
            break
    assert p.returncode == -signal.SIGTERM, (p.returncode, err)
    assert "Traceback" not in err and "200 imported, 0 unchanged, 0 rejected" in err, err
    last = err.strip().splitlines()[-1]  # (update_after_import's words, or the command's just before it began)
    # (a signal in the update's last commit, the file then holding every event, says so instead: QA round 31)
    assert last.startswith("interrupted") and (f"analytics update --catalog '{cards}'`" in last and
                                               "analytics file" in last or "after the update was complete" in last), err
    r = zx(tmp_path, "--store", str(store), "analytics", "update")
    assert r.returncode == 0, r.stderr
    r = zx(tmp_path, "--store", str(store), "stats", "winrates", "--format", "csv")
    assert r.returncode == 0 and "note:" not in r.stderr, r.stderr


def test_sigterm_before_an_import_began_says_nothing_was_imported_and_ends_by_the_signal(corpus, tmp_path):
    """SIGTERM before zx import's loop (here in the 3 s it waits for another process's write lock on the store)
    ended it with exit 143 and no word; it now says that nothing was imported, and still ends by the signal."""
    import os
    import threading

    store = tmp_path / "s.sqlite"
    first = sorted((corpus / "logs").iterdir())[0]
    assert zx(tmp_path, "--store", str(store), "import", "--no-analytics", str(first)).returncode == 0
    holder = sqlite3.connect(store)
    holder.execute("BEGIN IMMEDIATE")  # another writer
    try:
        p = subprocess.Popen([*ZX, "--store", str(store), "import", "--no-analytics", str(corpus / "logs")],
                             cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(iter(p.stderr.readline, "")), daemon=True)
        reader.start()
        def opened() -> bool:  # the store is open: it waits 3 s for the lock before its note and its loop
            try:
                return any(os.path.realpath(f"/proc/{p.pid}/fd/{fd}") == str(store.resolve())
                           for fd in os.listdir(f"/proc/{p.pid}/fd"))
            except OSError:
                return False

        deadline = time.monotonic() + 60
        while p.poll() is None and not opened() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not lines, lines  # (not yet at its note)
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
        reader.join(timeout=10)
    finally:
        holder.rollback()
        holder.close()
    err = "".join(lines)
    assert p.returncode == -signal.SIGTERM, (p.returncode, err)
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == f"interrupted (SIGTERM): 0 matches were imported into {store}", err


def test_sigterm_during_an_import_says_what_ctrl_c_says_and_ends_by_the_signal(corpus, tmp_path):
    """SIGTERM to ``zx import`` (systemd, ``timeout``, docker stop) ended it with exit 143 and not a word,
    hundreds of matches stored. It now says what Ctrl-C says (how many were stored, the batch under way
    not saved, run it again), closes the store and still ends by the signal; the store verifies, and the
    import run again stores the rest."""
    for attempt in range(3):  # (as for Ctrl-C: on a busy host the import may finish before the signal)
        store = tmp_path / f"t{attempt}.sqlite"
        p = subprocess.Popen([*ZX, "--store", str(store), "import", "--workers", "1", "--no-analytics",
                              str(corpus / "logs")], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while p.poll() is None and stored_matches(store) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)  # to the process alone, as kill -TERM PID
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            raise AssertionError(f"zx import still ran 60 s after SIGTERM: {p.communicate()[1][-2000:]}") from None
        if p.returncode != 0 or "200 imported" not in err:
            break
    assert p.returncode == -signal.SIGTERM, (p.returncode, err)
    assert "Traceback" not in err and out == ""
    stored = stored_matches(store)
    assert 1 <= stored < 200, err
    said = f"{stored} match was" if stored == 1 else f"{stored} matches were"
    assert err.strip().splitlines()[-1] == (
        f"interrupted (SIGTERM): {said} imported into {store} before (the batch under way was not saved); "
        f"run the import again to finish it: the matches stored are 'unchanged' then"), err
    r = zx(tmp_path, "--store", str(store), "verify")
    assert r.returncode == 0 and f"{stored} intact, 0 failed" in r.stderr, r.stderr
    r = zx(tmp_path, "--store", str(store), "import", "--workers", "1", "--no-analytics", str(corpus / "logs"))
    assert r.returncode == 0 and f"{200 - stored} imported, {stored} unchanged, 0 rejected" in r.stderr


def test_ctrl_c_after_the_import_s_analytics_update_is_complete_says_the_file_holds_every_event(tmp_path, monkeypatch):
    """QA round 31: a Ctrl-C in the last commit of the analytics update after zx import (the file then holding every
    event) said "the analytics file was not brought up to date; `zx analytics update` finishes it", where the next
    update projected nothing. It says what zx analytics update says in that case: the file holds every event."""
    from click.testing import CliRunner

    import zx_cli.analytics
    from zx_cli.main import zx as zx_group

    real = zx_cli.analytics.run_update

    def complete_then_ctrl_c(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(zx_cli.analytics, "run_update", complete_then_ctrl_c)
    store = tmp_path / "s.sqlite"
    r = CliRunner().invoke(zx_group, ["--store", str(store), "import", str(ROOT / "examples" / "legal")])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "interrupted: the matches are imported; after the update was complete: " in r.stderr, r.stderr
    assert "not brought up to date" not in r.stderr, r.stderr
