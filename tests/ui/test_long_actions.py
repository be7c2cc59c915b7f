"""Long actions (install, export, the rescue of a store) run on a worker thread: their progress
reaches the window, Cancel stops them with what was done reported and nothing half-written, and
they end with a one-line summary whose details open without squeezing the rest."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import make
from layout_fit import fit_problems
from PySide6.QtCore import QSettings, QSize
from PySide6.QtWidgets import QApplication, QPushButton

from skill_studio.core.library import install
from skill_studio.core.model import Origin
from skill_studio.core.store import Store
from skill_studio.ui.agents.install_dialog import InstallDialog, install_summary
from skill_studio.ui.long_task import ProgressRow, TaskRun, progress_text

MANY = 220


@pytest.fixture
def many_store(tmp_path):
    """A store of 220 skills agents may see."""
    with Store(tmp_path / "many.db", actor="tester") as s:
        for i in range(MANY):
            s.add(make(f"tool-{i:03d}", f"Handles tool {i} work. Use when asked for tool {i}.", origin=Origin.BUILTIN))
        yield s


def _pause_after(monkeypatch, module, attr: str, count: int) -> tuple[threading.Event, list]:
    """Wrap ``module.attr`` so that the worker waits after ``count`` calls until the test lets it
    go on: a cancel made meanwhile is seen before the next skill, whatever the machine's speed."""
    real = getattr(module, attr)
    go_on, calls = threading.Event(), []

    def paced(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append(args)
        if len(calls) == count:
            assert go_on.wait(10), "the test never let the work go on"
        return result

    monkeypatch.setattr(module, attr, paced)
    return go_on, calls


class _WhenPaused:
    """Does ``act()`` on the GUI thread (a timer polls) once the worker waits at its pause, then
    lets it go on: the work sees what ``act`` did before its next skill."""

    def __init__(self, go_on: threading.Event, calls: list, count: int, act):
        from PySide6.QtCore import QTimer

        self.go_on, self.calls, self.count, self.act = go_on, calls, count, act
        self.timer = QTimer(interval=5)
        self.timer.timeout.connect(self._poll)

    def _poll(self) -> None:
        if len(self.calls) >= self.count and not self.go_on.is_set() and self.act():
            self.go_on.set()
            self.timer.stop()

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.stop()
        self.go_on.set()


def _leftovers(folder: Path) -> list[str]:
    """Anything in an install or export folder that is not a whole skill or the studio's own files."""
    return sorted(p.name for p in folder.iterdir()
                  if not (p.is_dir() and (p / "SKILL.md").is_file()) and p.name not in (install.MANIFEST, install.LOCK)
                  and p.suffix != ".zip")


# --- the task run ------------------------------------------------------------------

def test_progress_reaches_the_gui_thread_and_the_result_comes_back(qtbot):
    gui = threading.get_ident()
    seen_in: list[int] = []

    def work(arg, progress, cancelled):
        for i in range(1, 6):
            progress("Counting", i, 5)
        return arg * 2

    run = TaskRun(work, 21)
    row = ProgressRow()
    qtbot.addWidget(row)
    shown: list[str] = []
    run.progressed.connect(lambda *_a: (seen_in.append(threading.get_ident()), shown.append(row.label.full_text())))
    row.follow(run, "Starting…")
    assert row.isVisibleTo(row.parentWidget() or row)
    with qtbot.waitSignal(run.ended, timeout=5000):
        run.start()
    assert run.result == 42 and run.error is None and not run.running()
    assert seen_in and set(seen_in) == {gui}, "the progress is handled on the GUI thread"
    assert row.label.full_text() == "Counting 5 of 5…" and row.bar.value() == 5 and row.bar.maximum() == 5
    assert not row.isVisibleTo(row.parentWidget() or row), "the row goes when the work ends"
    assert progress_text("Installing", 312, 871) == "Installing 312 of 871…"


def test_a_failing_work_ends_with_its_reason(qtbot):
    def work(arg, progress, cancelled):
        raise OSError("disk full")

    run = TaskRun(work)
    with qtbot.waitSignal(run.ended, timeout=5000):
        run.start()
    assert run.result is None and run.error == "OSError: disk full"


# --- installing ----------------------------------------------------------------------

def _dialog(qtbot, store, target, size: QSize | None = None) -> InstallDialog:
    dialog = InstallDialog(store, None, [str(target)])
    qtbot.addWidget(dialog)
    dialog.resize(size or QSize(860, 600))
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_installing_many_shows_progress_and_a_summary_that_keeps_the_lists_tall(qtbot, many_store, tmp_path):
    target = tmp_path / "agent" / "skills"
    dialog = _dialog(qtbot, many_store, target)
    before = (dialog.skills.height(), dialog.installed.height())
    labels: list[str] = []
    dialog.progress.bar.valueChanged.connect(lambda _v: labels.append(dialog.progress.label.full_text()))
    report = dialog.do_install()
    assert report is not None and len(report.installed) == MANY and not report.stopped
    assert any(text.startswith("Installing ") and f" of {MANY}…" in text for text in labels), labels[:3]
    assert dialog.message.text() == f"Installed {MANY} skills into {target}."
    assert dialog.summary.toggle.isVisible() and dialog.summary.toggle.text() == f"Show details ({MANY})"
    assert not dialog.summary.details.isVisible(), "the details start closed"
    QApplication.processEvents()
    assert (dialog.skills.height(), dialog.installed.height()) == before, "the summary takes no room from the lists"
    assert dialog.installed.rowCount() == MANY
    assert fit_problems(dialog, QSize(1280, 800)) == []

    dialog.summary.toggle.click()
    assert dialog.summary.details.isVisible() and dialog.summary.details.count() == MANY
    qtbot.waitUntil(lambda: (dialog.skills.height(), dialog.installed.height()) == before, timeout=3000)
    assert dialog.summary.details.height() < 12 * dialog.summary.details.sizeHintForRow(0), "it scrolls"
    dialog.summary.toggle.click()
    qtbot.waitUntil(lambda: dialog.height() == 600, timeout=3000)
    assert not dialog.summary.details.isVisible()


def test_the_install_dialog_fits_a_small_screen(qtbot, many_store, tmp_path):
    dialog = _dialog(qtbot, many_store, tmp_path / "skills", QSize(1000, 640))
    dialog.do_install()
    QApplication.processEvents()
    assert fit_problems(dialog, QSize(1024, 700)) == []


def test_cancel_stops_the_install_and_reports_what_was_done(qtbot, many_store, tmp_path, monkeypatch):
    from skill_studio.core.library import install as install_module

    target = tmp_path / "skills"
    dialog = _dialog(qtbot, many_store, target)
    go_on, calls = _pause_after(monkeypatch, install_module, "_install_one", 30)

    with _WhenPaused(go_on, calls, 30, lambda: dialog.progress.cancel_button.click() or True):   # as the user would
        report = dialog.do_install()
    assert go_on.is_set() and report is not None and report.stopped
    assert len(report.installed) == 30, "stopped before the next skill"
    assert [row.name for row in install.status(many_store, target)] == report.installed, "the manifest holds them"
    assert _leftovers(target) == [], "nothing half-written"
    text = dialog.message.text()
    assert text.startswith("Stopped: installed 30 skills into ") and f"{MANY - 30} not reached" in text
    assert dialog.install_button.isEnabled() and not dialog.is_busy()


def test_closing_the_dialog_while_installing_cancels_first(qtbot, many_store, tmp_path, monkeypatch):
    from skill_studio.core.library import install as install_module

    dialog = _dialog(qtbot, many_store, tmp_path / "skills")
    go_on, calls = _pause_after(monkeypatch, install_module, "_install_one", 5)
    closed = []
    dialog.rejected.connect(lambda: closed.append(True))

    with _WhenPaused(go_on, calls, 5, lambda: dialog.reject() or True):   # Escape or the window's close button
        report = dialog.do_install()
    assert report is not None and report.stopped and len(report.installed) == 5
    assert closed == [] and dialog.isVisible(), "the dialog stays to say what was done"


def test_the_summary_of_an_install_names_the_folder_and_lists_each_skill(tmp_path):
    report = install.InstallReport(["a", "b"], ["c"], ["old"], {"d": "a folder of that name is there"}, [])
    text, role, details = install_summary(report, str(Path.home() / ".claude" / "skills"), ["a", "b", "c", "d"])
    assert text == "Installed 2 skills into ~/.claude/skills; 1 already current; removed 1 skill; 1 skipped."
    assert role == "attention" and details[0] == "Skipped d: a folder of that name is there" and len(details) == 5
    report = install.InstallReport([], [], [], {}, [], stopped=True)
    text, role, details = install_summary(report, "/x", ["a", "b"])
    assert text == "Stopped: nothing new installed in /x; 2 not reached." and details == [
        "Not reached (stopped): a", "Not reached (stopped): b"]


# --- exporting -------------------------------------------------------------------------

@pytest.fixture
def window(qtbot, many_store, tmp_path):
    from skill_studio.ui.settings import StudioSettings
    from skill_studio.ui.shell.main_window import MainWindow

    w = MainWindow(many_store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def _exporting(window, tmp_path):
    """The window's actions set to export into a new folder, and the list of summaries shown."""
    actions = window.feature("window")
    out = tmp_path / "out"
    out.mkdir()
    actions.pick_export_folder = lambda: str(out)
    shown: list = []
    actions.show_summary = lambda *a: shown.append(a)
    return actions, out, shown


@pytest.mark.parametrize("as_zip", [False, True])
def test_export_runs_with_progress_and_says_what_it_wrote(qtbot, window, tmp_path, as_zip):
    actions, out, shown = _exporting(window, tmp_path)
    window.browser.select_names([f"tool-{i:03d}" for i in range(40)])
    written = actions.export_selection(as_zip)
    assert len(written) == 40 and shown == []
    kind = "zip files" if as_zip else "folders"
    assert window.statusBar().currentMessage() == f"Exported 40 skills to {out} as {kind}."


def test_cancel_stops_the_export_and_lists_what_was_written(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QProgressDialog

    from skill_studio.core.ops import library

    actions, out, shown = _exporting(window, tmp_path)
    go_on, calls = _pause_after(monkeypatch, library, "export_folder", 7)

    def cancel() -> bool:
        dialogs = [d for d in QApplication.topLevelWidgets()
                   if isinstance(d, QProgressDialog) and d.windowTitle() == "Export skills"]
        for d in dialogs:
            d.findChild(QPushButton).click()   # the dialog's Cancel
        return bool(dialogs)

    window.browser.select_names([f"tool-{i:03d}" for i in range(60)])
    with _WhenPaused(go_on, calls, 7, cancel):
        written = actions.export_selection(False)
    assert go_on.is_set() and len(written) == 7
    assert sorted(p.name for p in out.iterdir()) == [f"tool-{i:03d}" for i in range(7)] and _leftovers(out) == []
    (parent, title, text, details), = shown
    assert title == "Export stopped"
    assert text == f"Export stopped: exported 7 skills to {out} as folders; 53 not reached."
    assert len(details) == 7 and details[0].startswith("Written: ")


# --- the rescue of a damaged store -------------------------------------------------------

def test_the_rescue_can_be_cancelled_and_says_so(qtbot, many_store, tmp_path):
    from skill_studio.core.store.rescue import REPORT_NAME, rescue

    seen = []
    report = rescue(many_store.path, tmp_path / "rescued", lambda done, total: seen.append(done),
                    lambda: len(seen) >= 12)
    assert report.stopped and len(report.rescued) == 12
    assert '"stopped": true' in (tmp_path / "rescued" / REPORT_NAME).read_text()
    assert all((tmp_path / "rescued" / s.folder / "SKILL.md").is_file() for s in report.rescued)


def test_the_rescue_in_the_window_shows_a_summary_with_details(qtbot, many_store, tmp_path, monkeypatch):
    from skill_studio.core.store import rescue as rescue_module
    from skill_studio.ui.shell.store_trouble import StoreTrouble

    real = rescue_module.rescue

    def stopping(path, dest, progress=None, cancelled=None):   # the user cancels after 12 rows
        done = []
        return real(path, dest, lambda d, t: (done.append(d), progress(d, t)), lambda: len(done) >= 12)

    monkeypatch.setattr(rescue_module, "rescue", stopping)
    trouble = StoreTrouble()
    told = []
    trouble.pick_folder = lambda: str(tmp_path / "rescued")
    trouble.tell = lambda title, text, folder: told.append((title, text, folder, list(trouble.details)))
    report = trouble.rescue(Path(many_store.path))
    assert report is not None and report.stopped
    (title, text, folder, _details), = told
    assert title == "Rescue stopped" and "Stopped: 12 skill(s) written to" in text and "<li>" not in text
    assert folder == str(tmp_path / "rescued")
