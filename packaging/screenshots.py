"""Render the screenshots the AppStream metainfo lists (packaging/linux/screenshots/), offscreen,
from the window on a temporary store seeded with the samples. Publish them at the URLs the
metainfo names.

Usage: python packaging/screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "linux" / "screenshots"


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from skill_studio.core.library import samples
    from skill_studio.core.store import Store
    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s.db")
        samples.seed(store)
        window = MainWindow(store, StudioSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.IniFormat)))
        window.resize(1440, 900)
        window.show()

        def settle(seconds: float = 0.5) -> None:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                app.processEvents()
                time.sleep(0.01)

        window.browser.select_name("release-notes")
        settle()
        window.grab().save(str(OUT / "library.png"))
        window.actions["show_graph"].trigger()
        settle(1.5)
        window.grab().save(str(OUT / "graph.png"))
        window.actions["view_bindings"].trigger()
        settle()
        window.grab().save(str(OUT / "bindings.png"))
        window.close()
        store.close()
    for name in ("library.png", "graph.png", "bindings.png"):
        print(OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
