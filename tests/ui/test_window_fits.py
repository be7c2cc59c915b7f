"""Every view of the window at the smallest screen the studio supports (1024x700) and at the common
ones: nothing cut by its parent, no text squeezed without eliding, no collapsed pane, and a window
that never grows past the screen. The first window fits the screen it opens on, at scale 1 and 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from layout_fit import fit_problems
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication, QTabWidget

SIZES = [QSize(1024, 700), QSize(1280, 800), QSize(1920, 1080)]


def _settle(qtbot, window, size: QSize) -> None:
    """The window at ``size`` with the current page's work done (a graph laid out) and laid out."""
    window.resize(size)
    page = window.centralWidget().currentWidget()
    if hasattr(page, "is_running"):
        qtbot.waitUntil(lambda: not page.is_running(), timeout=15_000)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: window.isVisible() and window.width() > 0)
    QApplication.processEvents()


def _inner_tabs(widget) -> list[QTabWidget]:
    """The tab widgets a page holds (a designer's Metadata/Steps/…, the health view's tabs)."""
    return [t for t in widget.findChildren(QTabWidget) if t.isVisibleTo(widget)]


def _views(window):
    """(label, how to show it) for every view a user can reach from the menus, in order."""
    yield "library cards", lambda: window.set_view_mode("cards")
    yield "library list", lambda: window.set_view_mode("list")
    yield "a skill selected", lambda: window.browser.select_name("csv-cleanup")
    yield "designer", lambda: window.open_designer("csv-cleanup")
    for action in ("show_queue", "show_audit", "show_graph", "show_health", "try_query", "view_bindings"):
        if action in window.actions:
            yield action, window.actions[action].trigger


@pytest.fixture
def window(open_window, seeded_store):
    return open_window(seeded_store)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s.width()}x{s.height()}")
def test_every_view_fits(window, qtbot, size):
    problems: list[str] = []
    for label, show in _views(window):
        show()
        _settle(qtbot, window, size)
        page = window.centralWidget().currentWidget()
        tabs = [t for t in _inner_tabs(page) if t is not window.centralWidget()]
        for tab_widget in tabs or [None]:
            for index in range(tab_widget.count() if tab_widget is not None else 1):
                if tab_widget is not None:
                    if not tab_widget.isTabVisible(index) or not tab_widget.isTabEnabled(index):
                        continue
                    tab_widget.setCurrentIndex(index)
                    QApplication.processEvents()
                where = label if tab_widget is None else f"{label} / {tab_widget.tabText(index)}"
                problems += [f"{where}: {p}" for p in fit_problems(window, size)]
        window.set_view_mode("cards") if label == "view_bindings" else None
    assert not problems, "\n".join(problems)


def test_a_long_status_text_does_not_widen_the_window(window, qtbot):
    width = window.width()
    window.show_status("A message that goes on " * 40)
    window.problems_label.setText("12 errors, 40 warnings " * 10)
    QApplication.processEvents()
    assert window.width() == width
    assert window.minimumSizeHint().width() <= 1024


SCREEN_SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication
    from skill_studio.core.library import samples
    from skill_studio.core.store import Store
    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow

    folder = Path(sys.argv[1])
    app = QApplication([])
    store = Store(folder / "s.db")
    samples.seed(store)
    window = MainWindow(store, StudioSettings(QSettings(str(folder / "s.ini"), QSettings.IniFormat)))
    window.show()
    app.processEvents()
    free = app.primaryScreen().availableGeometry()
    hint = window.minimumSizeHint()
    print(json.dumps({"window": [window.width(), window.height()], "free": [free.width(), free.height()],
                      "hint": [hint.width(), hint.height()]}))
    window.close()
""")


@pytest.mark.parametrize("dpr", [1, 2])
def test_the_first_window_fits_a_small_screen(tmp_path, dpr):
    """A new user's first window on a 1024x700 laptop (at scale 1, and at scale 2 as on a
    2048x1400 panel) opens inside the screen, however big the default size is."""
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"windowFrameMargins": False, "screens": [
        {"name": "Laptop", "x": 0, "y": 0, "width": 1024, "height": 700, "logicalDpi": 96,
         "logicalBaseDpi": 96, "dpr": dpr}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    done = subprocess.run([sys.executable, "-c", SCREEN_SCRIPT, str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["free"] == [1024, 700]
    assert seen["window"][0] <= 1024 and seen["window"][1] <= 700, seen
    assert seen["hint"][0] <= 1024 and seen["hint"][1] <= 700, seen
