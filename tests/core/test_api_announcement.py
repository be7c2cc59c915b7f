"""The note a running server leaves in the store for the window: honoured while that very server
runs; a note whose process is gone, or whose process number now belongs to another program, is
treated as absent and removed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from skill_studio.api import SERVER_SETTING
from skill_studio.api.announcement import announce, process_identity, running_server, withdraw
from skill_studio.api.server import ApiServer
from skill_studio.core.store import Store

LINUX = os.path.isdir("/proc/self") and process_identity(os.getpid()) is not None


def ended_pid() -> int:
    """The number of a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(30)
    return proc.pid


def test_a_running_servers_note_is_honoured(store):
    server = ApiServer(store, 0)
    try:
        server.announce()
        info = running_server(store)
        assert info is not None and info["url"] == server.url and info["token"] == server.token
        assert info["pid"] == os.getpid()
        server.withdraw()
        assert running_server(store) is None and store.setting(SERVER_SETTING) is None
    finally:
        server.server_close()


@pytest.mark.parametrize("stale", [
    pytest.param(lambda: {"pid": ended_pid()}, id="its process ended"),
    pytest.param(lambda: {"pid": os.getpid(), "process": "another-boot:1"}, id="its number is another process's",
                 marks=pytest.mark.skipif(not LINUX, reason="process start times are read from /proc")),
    pytest.param(lambda: {"pid": os.getpid(), "process": None}, id="nothing listens at its address"),
    pytest.param(lambda: {"pid": 0}, id="no process"),
    pytest.param(lambda: {"pid": "many"}, id="a process that is no number"),
    pytest.param(lambda: {"pid": os.getpid(), "token": ""}, id="no token"),
])
def test_a_note_left_by_a_dead_server_is_ignored_and_removed(store, stale):
    # A port nothing listens on: one just released.
    probe = ApiServer(store, 0)
    url = probe.url
    probe.server_close()
    note = {"url": url, "token": "left-behind", "started_at": "2024-01-01T00:00:00Z", **stale()}
    store.set_setting(SERVER_SETTING, note)
    assert running_server(store) is None
    assert store.setting(SERVER_SETTING) is None


@pytest.mark.parametrize("note", ["a string", 5, ["url", "token"]])
def test_a_note_of_another_shape_is_removed(store, note):
    store.set_setting(SERVER_SETTING, note)
    assert running_server(store) is None and store.setting(SERVER_SETTING) is None


def test_an_older_note_without_the_start_time_is_honoured_while_its_server_answers(store):
    server = ApiServer(store, 0)
    try:
        store.set_setting(SERVER_SETTING, {"url": server.url, "token": server.token, "pid": os.getpid()})
        assert running_server(store)["token"] == server.token
    finally:
        server.server_close()
    assert running_server(store) is None and store.setting(SERVER_SETTING) is None


def test_withdraw_leaves_another_servers_note(store):
    other = {"url": "http://127.0.0.1:1", "token": "t", "pid": os.getpid() + 1}
    store.set_setting(SERVER_SETTING, other)
    withdraw(store)
    assert store.setting(SERVER_SETTING) == other
    announce(store, "http://127.0.0.1:2", "mine")
    withdraw(store)
    assert store.setting(SERVER_SETTING) is None


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_killed_serve_leaves_no_usable_token(tmp_path):
    db = tmp_path / "store.db"
    Store(db).close()
    proc = subprocess.Popen([sys.executable, "-m", "skill_studio", "--store", str(db), "serve", "--port", "0",
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()
        token = proc.stdout.readline().split(": ")[1].strip()
        with Store(db) as store:
            assert running_server(store)["token"] == token
        for suffix in ("", "-wal", "-shm"):   # the token is in these files while it runs
            assert os.stat(f"{db}{suffix}").st_mode & 0o077 == 0, suffix
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(20)
        proc.stdout.close()
        proc.stderr.close()
    with Store(db) as store:
        assert store.setting(SERVER_SETTING)["token"] == token   # it could not withdraw it
        assert running_server(store) is None
        assert store.setting(SERVER_SETTING) is None
