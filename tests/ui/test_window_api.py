"""The window shows the local API and offers its token only while that very server runs: a note
left by a server that was killed is not honoured (nor its token copied)."""

from __future__ import annotations

import subprocess
import sys

from conftest import shown_window

from skill_studio.api import SERVER_SETTING
from skill_studio.api.server import ApiServer


def _ended_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(30)
    return proc.pid


def _api(window):
    return next(f for f in window.features if f.id == "api")


def test_a_running_server_is_shown_and_its_token_copied(qtbot, store, tmp_path):
    server = ApiServer(store, 0)
    try:
        server.announce()
        window = shown_window(qtbot, store, tmp_path)
        qtbot.waitUntil(window.settled)   # the announcement is read after the first paint
        api = _api(window)
        copied = []
        api.copy_text = copied.append
        assert api.label.isVisible() and api.label.text() == f"API: {server.url}"
        window.action("copy_api_token").trigger()
        assert copied == [server.token]
    finally:
        server.withdraw()
        server.server_close()


def test_a_killed_servers_note_is_not_honoured(qtbot, store, tmp_path):
    store.set_setting(SERVER_SETTING, {"url": "http://127.0.0.1:9/", "token": "left-behind", "pid": _ended_pid(),
                                       "started_at": "2024-01-01T00:00:00Z"})
    window = shown_window(qtbot, store, tmp_path)
    qtbot.waitUntil(window.settled)
    api = _api(window)
    copied = []
    api.copy_text = copied.append
    assert not api.label.isVisible() and not window.action("copy_api_token").isEnabled()
    api.copy_token()
    assert copied == [] and store.setting(SERVER_SETTING) is None
