"""Start the desktop application on a store."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from skill_studio.core.store import Store


def display_available() -> bool:
    """Whether Qt can open a window here (a platform was chosen, or a display exists)."""
    if os.environ.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def app_icon():
    """The app's icon: its SVG and PNG sizes, from the package's resources."""
    import importlib.resources

    from PySide6.QtGui import QIcon, QPixmap

    icon = QIcon()
    folder = importlib.resources.files("skill_studio.resources") / "icons" / "app"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".png"):
            pixmap = QPixmap()
            if pixmap.loadFromData(entry.read_bytes()):
                icon.addPixmap(pixmap)
    return icon


def application(argv: list[str] | None = None):
    """The QApplication (made if there is none yet) with its name, desktop file, icon and theme."""
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui import theme
    from skill_studio.ui.settings import StudioSettings

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("Skill Studio")
    app.setOrganizationName("skill-studio")
    app.setDesktopFileName("org.skillstudio.SkillStudio")   # packaging/linux/*.desktop
    app.setWindowIcon(app_icon())
    theme.apply_theme(app, theme.tokens_for(StudioSettings().theme))
    return app


def start(open_store: Callable[[], Store], argv: list[str] | None = None, *, trouble=None) -> int:
    """Open the store (``open_store()``) and the main window on it, and run until it closes.

    A store that cannot be used is explained, with a way on: open another store, or rescue the
    skills of a damaged one. Returns the exit code (1 when the user gave up).
    """
    from PySide6.QtCore import QTimer

    from skill_studio.core.store import StoreError
    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow
    from skill_studio.ui.shell.store_trouble import StoreTrouble

    app = application(argv)
    trouble = trouble or StoreTrouble()
    store = window = None
    while window is None:
        try:
            store = open_store()
            window = MainWindow(store, StudioSettings())
        except (StoreError, OSError) as e:   # not a store, newer, damaged, not readable, no folder
            if store is not None:
                store.close()
            store = None
            other = trouble.after_failure(e)
            if other is None:
                return 1
            open_store = lambda path=other: Store(path)   # noqa: E731
    try:
        window.show()
        trouble.parent_widget = window
        trouble.install_hook()
        # After a crash or a kill, the drafts the designers kept are offered back.
        QTimer.singleShot(0, window.workspace.recover_drafts)
        return app.exec()
    finally:
        store.close()
