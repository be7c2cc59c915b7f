"""The local API in the main window: while `skill-studio serve` runs on this store, the status bar
says where, and File ▸ Copy local API token copies the token it needs for writes. The store's
announcement is first read right after the window's first paint."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.shell.feature import ActionSpec, Feature, at


class ApiFeature(Feature):
    id = "api"

    def __init__(self, shell):
        super().__init__(shell)
        self.label = QLabel(shell)
        self.label.setProperty("role", "muted")
        self.copy_text = lambda text: QGuiApplication.clipboard().setText(text)   # replaceable in tests

    def action_specs(self) -> list[ActionSpec]:
        return [ActionSpec("copy_api_token", "Copy local API &token", self.copy_token, None,
                           "Copy the write token of the local API that skill-studio serve runs on this store",
                           places=(at("File", 3, 0),))]

    def attach(self) -> None:
        self.shell.add_status_widget(self.label)
        self.label.hide()
        self.shell.action("copy_api_token").setEnabled(False)
        self.shell.after_first_paint(self.refresh)

    def changes_applied(self, changes: ChangeSet) -> None:
        if changes.settings:   # the server announces itself in the store's settings
            self.refresh()

    def refresh(self) -> None:
        from skill_studio.api.announcement import running_server

        info = running_server(self.shell.store)
        self.shell.action("copy_api_token").setEnabled(info is not None)
        self.label.setVisible(info is not None)
        if info is not None:
            self.label.setText(f"API: {info['url']}")
            self.label.setToolTip(f"skill-studio serve is running on this store (since {info.get('started_at')}); "
                                  "changes made over it show here")

    def copy_token(self) -> None:
        from skill_studio.api.announcement import running_server

        info = running_server(self.shell.store)
        if info is None:
            self.shell.show_status("No local API is running on this store (skill-studio serve)", 6000)
            return
        self.copy_text(info["token"])
        self.shell.show_status(f"Copied the token of {info['url']}", 6000)
