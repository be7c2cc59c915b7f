"""Start the desktop application on a store."""

from __future__ import annotations

import os
import sys

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


def run(store: Store, argv: list[str] | None = None) -> int:
    """Open the main window on ``store`` and run until it closes; returns the exit code."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui import theme
    from skill_studio.ui.main_window import MainWindow
    from skill_studio.ui.settings import StudioSettings

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("Skill Studio")
    app.setOrganizationName("skill-studio")
    app.setDesktopFileName("org.skillstudio.SkillStudio")   # packaging/linux/*.desktop
    app.setWindowIcon(app_icon())
    settings = StudioSettings()
    theme.apply_theme(app, theme.tokens_for(settings.theme))
    window = MainWindow(store, settings)
    window.show()
    # After a crash or a kill, the drafts the designers kept are offered back.
    QTimer.singleShot(0, window.workspace.recover_drafts)
    return app.exec()
