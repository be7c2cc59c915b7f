"""The store's files are its owner's alone (its settings hold the local API's write token), and a
store another process holds too long is reported with that process and what to do."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from skill_studio.core.store import Store, StoreBusy
from skill_studio.core.store.errors import store_holder

posix = pytest.mark.skipif(os.name != "posix", reason="file modes and /proc")
PROC = os.path.isdir("/proc/self/fd")
SUFFIXES = ("", "-wal", "-shm")


@pytest.fixture
def loose_umask():
    old = os.umask(0o022)
    yield
    os.umask(old)


def modes(db) -> dict[str, int]:
    return {s: os.stat(f"{db}{s}").st_mode & 0o777 for s in SUFFIXES if os.path.exists(f"{db}{s}")}


@posix
def test_a_new_store_is_its_owners_alone(tmp_path, loose_umask):
    db = tmp_path / "new" / "store.db"
    with Store(db) as store:
        store.set_setting("api.server", {"token": "secret"})
        assert modes(db) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


@posix
@pytest.mark.parametrize("loose", [0o644, 0o664, 0o666, 0o640, 0o604])
def test_an_existing_stores_files_are_tightened_when_opened(tmp_path, loose_umask, loose):
    db = tmp_path / "store.db"
    Store(db).close()
    held = sqlite3.connect(db)   # keeps the -wal and -shm files while the store is opened again
    held.execute("PRAGMA journal_mode = WAL")
    held.execute("CREATE TABLE IF NOT EXISTS spare (x)")
    for suffix in SUFFIXES:
        os.chmod(f"{db}{suffix}", loose)
    journal = tmp_path / "store.db-journal"
    journal.write_bytes(b"")
    os.chmod(journal, loose)
    try:
        with Store(db):
            assert set(modes(db).values()) == {loose & 0o700}
            assert os.stat(journal).st_mode & 0o777 == loose & 0o700
    finally:
        held.close()


@posix
def test_another_users_store_is_not_changed(tmp_path, loose_umask, monkeypatch):
    """Its modes are its owner's choice (opening it may still work, through a group)."""
    db = tmp_path / "store.db"
    Store(db).close()
    os.chmod(db, 0o664)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(db).st_uid + 1)
    with Store(db):
        assert modes(db)[""] == 0o664


# --- a store held too long -------------------------------------------------------------------

FROZEN_WRITER = textwrap.dedent("""
    import sqlite3, sys
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO settings (key, value) VALUES ('frozen', '1')")
    print("holding", flush=True)
    sys.stdin.read()   # until the test lets go
""")

OPEN_ONLY = textwrap.dedent("""
    import sys
    f = open(sys.argv[1], "rb")
    print("holding", flush=True)
    sys.stdin.read()
""")


def hold(script: str, db) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", script, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "holding"
    return proc


def let_go(proc: subprocess.Popen) -> None:
    proc.stdin.close()
    proc.wait(30)
    proc.stdout.close()


@pytest.mark.skipif(not PROC, reason="processes are found through /proc")
def test_a_busy_store_names_the_process_holding_it_and_what_to_do(tmp_path):
    db = tmp_path / "store.db"
    Store(db).close()
    with Store(db, busy_timeout_ms=50) as store:
        writer = hold(FROZEN_WRITER, db)
        try:
            with pytest.raises(StoreBusy) as caught:
                store.set_setting("mine", 1)
            with pytest.raises(StoreBusy) as again:
                with store.transaction():
                    pass
        finally:
            let_go(writer)
        store.set_setting("mine", 1)   # free again
    for message in (str(caught.value), str(again.value)):
        assert message.startswith(f"{db}: cannot write to the skill store")
        assert f"process {writer.pid} (python" in message
        assert "wait for it to finish, or close that program" in message
        assert len(message) < 300 + len(str(db))


@pytest.mark.skipif(not PROC, reason="processes are found through /proc")
def test_the_holder_is_found_by_its_lock_among_readers(tmp_path):
    db = tmp_path / "store.db"
    Store(db).close()
    reader = hold(OPEN_ONLY, db)   # has the store open, holds no lock: listed first in /proc
    try:
        assert store_holder(db) == (reader.pid, store_holder(db)[1])   # only it has the file open
        writer = hold(FROZEN_WRITER, db)
        try:
            pid, command = store_holder(db)
            assert pid == writer.pid and command.startswith("python")
        finally:
            let_go(writer)
    finally:
        let_go(reader)
    assert store_holder(db) is None   # nobody else has it


def test_without_a_holder_found_the_message_still_says_what_to_do(tmp_path, monkeypatch):
    from skill_studio.core.store import errors

    monkeypatch.setattr(errors, "store_holder", lambda path: None)
    message = str(StoreBusy.held(tmp_path / "store.db", "database is locked"))
    assert "another program is writing to it" in message and "wait for it to finish, or close it" in message
