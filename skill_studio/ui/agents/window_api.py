"""The local API in the main window: while `skill-studio serve` runs on this store, the status bar
says where, and File ▸ Copy local API token copies the token it needs for writes."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel

from skill_studio.api import SERVER_SETTING
from skill_studio.core.store import StoreError

if TYPE_CHECKING:
    from skill_studio.ui.shell.main_window import MainWindow


def running_server(store) -> dict | None:
    """The announced server of this store, when its process is still alive."""
    try:
        info = store.setting(SERVER_SETTING)
    except StoreError:
        return None
    if not isinstance(info, dict) or not info.get("url") or not info.get("token"):
        return None
    try:
        pid = int(info.get("pid") or 0)
        if pid <= 0:
            return None
        os.kill(pid, 0)
    except (ProcessLookupError, ValueError, TypeError, OverflowError):
        return None          # it ended without withdrawing (killed)
    except PermissionError:
        pass                 # alive, another user's
    return info


class WindowApi:
    def __init__(self, window: MainWindow):
        self.window = w = window
        self.label = QLabel(w)
        self.label.setProperty("role", "muted")
        w.statusBar().addPermanentWidget(self.label)
        w._action("copy_api_token", "Copy local API &token", self.copy_token, None,
                  "Copy the write token of the local API that skill-studio serve runs on this store")
        file_menu = next(m.menu() for m in w.menuBar().actions() if m.text().replace("&", "") == "File")
        file_menu.insertAction(w.actions["quit"], w.actions["copy_api_token"])
        self.copy_text = lambda text: QGuiApplication.clipboard().setText(text)   # replaceable in tests
        w.watcher.changedElsewhere.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        info = running_server(self.window.store)
        self.window.actions["copy_api_token"].setEnabled(info is not None)
        self.label.setVisible(info is not None)
        if info is not None:
            self.label.setText(f"API: {info['url']}")
            self.label.setToolTip(f"skill-studio serve is running on this store (since {info.get('started_at')}); "
                                  "changes made over it show here")

    def copy_token(self) -> None:
        info = running_server(self.window.store)
        if info is None:
            self.window.statusBar().showMessage("No local API is running on this store (skill-studio serve)", 6000)
            return
        self.copy_text(info["token"])
        self.window.statusBar().showMessage(f"Copied the token of {info['url']}", 6000)
