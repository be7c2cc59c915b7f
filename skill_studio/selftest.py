"""``skill-studio --selftest``: the app checks itself where it is installed (a wheel, a bundle).

On a temporary store seeded with the sample skills, the main window is opened offscreen and each
part is exercised once: the browser shows the samples and selects one, the designer opens it and
renders its preview, the graph lays the library out, a health check scores it, and a query is
matched. Each step prints ok or what failed; the exit code is 0 when all passed, else 1.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

TIMEOUT = 30.0   # seconds a step may wait for work done on a thread


def _wait(app, done: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > end:
            raise TimeoutError(f"{what} did not finish in {TIMEOUT:.0f} s")
        app.processEvents()
        time.sleep(0.01)


def _quiet_offscreen(mode, context, message) -> None:
    """Qt's messages, less the offscreen platform's notes that it cannot do window-manager things."""
    if "propagateSizeHints" not in message:
        sys.stderr.write(message + "\n")


def run(out=sys.stdout) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import qInstallMessageHandler

    qInstallMessageHandler(_quiet_offscreen)
    failures: list[str] = []

    def step(name: str, fn: Callable[[], str | None]) -> None:
        t0 = time.perf_counter()
        try:
            detail = fn() or ""
        except Exception as e:   # noqa: BLE001 - every failure is reported, then the next step runs
            failures.append(f"{name}: {type(e).__name__}: {e}")
            print(f"FAIL {name}: {type(e).__name__}: {e}", file=out)
            traceback.print_exc(limit=3, file=out)
            return
        print(f"ok   {name} ({time.perf_counter() - t0:.2f} s){': ' + detail if detail else ''}", file=out)

    from skill_studio import __version__

    print(f"Skill Studio {__version__} self-test (Python {sys.version.split()[0]}, {sys.platform})", file=out)
    with tempfile.TemporaryDirectory(prefix="skill-studio-selftest-") as tmp:
        state: dict = {}

        def start() -> str:
            from PySide6.QtCore import QSettings
            from PySide6.QtWidgets import QApplication

            from skill_studio.core.library import samples
            from skill_studio.core.store import Store
            from skill_studio.ui.settings import StudioSettings
            from skill_studio.ui.shell.main_window import MainWindow

            app = QApplication.instance() or QApplication([sys.argv[0]])
            store = Store(Path(tmp) / "selftest.db")
            samples.seed(store)
            settings = StudioSettings(QSettings(str(Path(tmp) / "settings.ini"), QSettings.IniFormat))
            window = MainWindow(store, settings)
            window.resize(1200, 800)
            window.show()
            app.processEvents()
            state.update(app=app, store=store, window=window)
            return f"{len(store)} sample skills in a temporary store"

        def browser() -> str:
            w = state["window"]
            rows = w.model.rowCount()
            if rows < 5:
                raise AssertionError(f"the browser shows {rows} skills")
            if not w.browser.select_name("release-notes") or w.browser.selected_names() != ["release-notes"]:
                raise AssertionError("could not select release-notes")
            return f"{rows} skills listed, one selected"

        def designer() -> str:
            w, app = state["window"], state["app"]
            w.open_designer("release-notes")
            d = w.workspace.currentWidget()
            preview = getattr(d, "preview", None)
            if preview is None:
                raise AssertionError("no designer opened")
            _wait(app, lambda: "Release notes" in preview.toPlainText() or "release" in preview.toPlainText().lower(),
                  "the preview")
            return f"preview of {len(preview.toPlainText())} characters"

        def graph() -> str:
            w, app = state["window"], state["app"]
            w.actions["show_graph"].trigger()
            view = w.feature("graph").view
            _wait(app, lambda: len(view.scene.nodes) > 0, "the graph layout")
            return f"{len(view.scene.nodes)} skills laid out"

        def health() -> str:
            from skill_studio.core.health import checks as health

            result = health.run(state["store"], keep=False)
            if len(result.skills) != len(state["store"]):
                raise AssertionError(f"{len(result.skills)} of {len(state['store'])} skills scored")
            return f"{len(result.skills)} skills scored, {len(result.actions)} planned move(s)"

        def matching() -> str:
            from skill_studio.core.agents import matching

            r = matching.match(state["store"], "write release notes from the git log", 5)
            if not r.matches:
                raise AssertionError("no skill matched a query about release notes")
            return f"{r.matches[0].name} first, by {r.strategy}"

        for name, fn in (("start", start), ("browser", browser), ("designer preview", designer), ("graph", graph),
                         ("health", health), ("matching", matching)):
            if name != "start" and "window" not in state:
                failures.append(f"{name}: not run (the window did not start)")
                print(f"FAIL {name}: not run", file=out)
                continue
            step(name, fn)
        if "window" in state:
            state["window"].close()
            state["store"].close()
    print("self-test passed" if not failures else f"self-test FAILED: {len(failures)} step(s)", file=out)
    return 0 if not failures else 1
