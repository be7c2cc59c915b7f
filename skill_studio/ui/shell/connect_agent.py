"""Help ▸ Connect an agent…: the configuration that makes an agent client (Claude Desktop, Claude
Code, Cursor, Codex, VS Code) start the studio's Model Context Protocol server on this store, a
Copy button for each, and whether a server is running on the store now."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from skill_studio.ui.shell.feature import ActionSpec, Feature, at
from skill_studio.ui.shell.help import HELP_GROUP


def running_text(store) -> str:
    from skill_studio.mcp_server import presence

    servers = presence.running(store)
    if not servers:
        return "No agent is connected to this store now: a client starts the server when it needs it."
    parts = [f"{s['transport']} (process {s['pid']}" + (f", {s['url']}" if s.get("url") else "") + ")"
             for s in servers]
    return f"Running on this store now: {len(servers)} server(s): " + "; ".join(parts) + "."


class ConnectAgentDialog(QDialog):
    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Connect an agent")
        self.store = store
        self.copy_text = lambda text: QGuiApplication.clipboard().setText(text)   # replaceable in tests
        intro = QLabel("Agents use the library through the Model Context Protocol: they search it, load skills "
                       "(the gate decides which), read their files and report how they went. What they write "
                       "arrives as candidates for review. Add this to the client's configuration:")
        intro.setWordWrap(True)
        self.tabs = QTabWidget()
        from skill_studio.mcp_server.clients import snippets

        mono = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        self.texts: dict[str, str] = {}
        for snip in snippets(store.path):
            page = QWidget()
            lay = QVBoxLayout(page)
            where = QLabel(f"Where: {snip.where}")
            where.setWordWrap(True)
            where.setTextInteractionFlags(Qt.TextSelectableByMouse)
            edit = QPlainTextEdit(snip.text, readOnly=True)
            edit.setFont(mono)
            edit.setLineWrapMode(QPlainTextEdit.NoWrap)
            copy = QPushButton("Copy")
            copy.clicked.connect(lambda _c=False, s=snip: self._copy(s.client, s.text))
            row = QHBoxLayout()
            row.addWidget(where, 1)
            row.addWidget(copy)
            lay.addLayout(row)
            lay.addWidget(edit, 1)
            self.tabs.addTab(page, snip.client)
            self.texts[snip.client] = snip.text
        self.status = QLabel(running_text(store))
        self.status.setWordWrap(True)
        self.note = QLabel("Over HTTP instead (one server for several clients): skill-studio mcp --http prints "
                           "the address and a token. Agents that may also change reviewed skills: add "
                           "--allow-manage.")
        self.note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.resize(720, 460)

    def _copy(self, client: str, text: str) -> None:
        self.copy_text(text)
        self.status.setText(f"Copied the {client} configuration. " + running_text(self.store))


class ConnectFeature(Feature):
    """Help ▸ Connect an agent…"""

    id = "connect"

    def action_specs(self) -> list[ActionSpec]:
        return [ActionSpec("connect_agent", "&Connect an agent…", self.show, None,
                           "The configuration that connects Claude, Cursor, Codex or VS Code to this library",
                           places=(at("Help", HELP_GROUP, 3),))]

    def show(self) -> None:
        dialog = ConnectAgentDialog(self.shell.store, self.shell)
        dialog.exec()
        dialog.deleteLater()
