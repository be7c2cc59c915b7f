"""Help ▸ Connect an agent…: a snippet per client that starts this installation's server on this
store, copied with one click, and whether a server runs on the store now."""

from __future__ import annotations

import json
import shlex
import tomllib

from PySide6.QtWidgets import QPushButton

from skill_studio.mcp_server import presence
from skill_studio.mcp_server.clients import server_command, snippets
from skill_studio.ui.shell.connect_agent import ConnectAgentDialog


def test_each_snippet_reads_in_its_clients_format(store):
    program, args = server_command(store.path)
    assert args[-3:] == ["mcp", "--store", str(store.path)]
    by = {s.client: s for s in snippets(store.path)}
    assert list(by) == ["Claude Desktop", "Claude Code", "Cursor", "Codex", "VS Code"]
    assert json.loads(by["Claude Desktop"].text) == {"mcpServers": {"skill-studio": {"command": program,
                                                                                      "args": args}}}
    assert json.loads(by["VS Code"].text)["servers"]["skill-studio"]["type"] == "stdio"
    assert tomllib.loads(by["Codex"].text)["mcp_servers"]["skill-studio"] == {"command": program, "args": args}
    assert shlex.split(by["Claude Code"].text) == ["claude", "mcp", "add", "skill-studio", "--", program, *args]


def test_the_dialog_copies_a_snippet_and_says_what_runs(qtbot, store):
    dialog = ConnectAgentDialog(store)
    qtbot.addWidget(dialog)
    assert "No agent is connected" in dialog.status.text()
    copied = []
    dialog.copy_text = copied.append
    dialog.tabs.setCurrentIndex(3)
    page = dialog.tabs.currentWidget()
    copy = next(b for b in page.findChildren(QPushButton) if b.text() == "Copy")
    copy.click()
    assert copied == [dialog.texts["Codex"]] and "Copied the Codex configuration" in dialog.status.text()
    presence.announce(store, "http", "http://127.0.0.1:4321/mcp")
    try:
        again = ConnectAgentDialog(store)
        qtbot.addWidget(again)
        assert "Running on this store now: 1 server(s): http" in again.status.text()
        assert "http://127.0.0.1:4321/mcp" in again.status.text()
    finally:
        presence.withdraw(store)
    assert presence.running(store) == []


def test_help_menu_has_it(qtbot, store, open_window):
    window = open_window(store)
    assert window.action("connect_agent").text().replace("&", "") == "Connect an agent…"
