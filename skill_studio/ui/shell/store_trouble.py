"""When the store cannot be used: saying so (the file was left as it was), opening another store,
and rescuing the skills a damaged store still holds, off the GUI thread."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from skill_studio.core.store import StoreError, UnusableStore
from skill_studio.ui.gui_thread import GuiCaller, gui_only
from skill_studio.ui.task_worker import TaskWorker, start_worker

_LABELS = {"rescue": ("Rescue skills…", QMessageBox.ActionRole),
           "open": ("Open another store…", QMessageBox.AcceptRole), "quit": ("Quit", QMessageBox.RejectRole),
           "close": ("Close", QMessageBox.RejectRole)}
_TITLES = {"damaged": "The skill store is damaged", "newer": "The skill store is from a newer Skill Studio",
           "not-a-store": "This file is not a skill store"}


def describe(error: StoreError) -> tuple[str, str]:
    """(title, text) telling the user what is wrong with the store and that nothing was changed."""
    kind = getattr(error, "kind", "")
    title = _TITLES.get(kind, "Cannot open the skill store")
    path = getattr(error, "path", None)
    reason = getattr(error, "reason", None) or str(error)
    lines = [f"<p><b>{_escape(str(path))}</b></p>" if path else "",
             f"<p>{_escape(reason[:1].upper() + reason[1:])}.</p>",
             "<p>The file was not changed.</p>"]
    if kind == "damaged":
        lines.append("<p>Rescue its skills: every skill that can still be read is written to a folder "
                     "as SKILL.md and files, ready to import into a new store.</p>")
    return title, "".join(lines)


def _escape(text: str) -> str:
    import html

    return html.escape(text, quote=False)


class _RescueWatch(QObject):
    """The rescue worker's signals, received on the GUI thread: the dialog shows the progress, the
    outcome is kept, and the waiting loop ends when the worker is done."""

    def __init__(self, dialog: QProgressDialog, loop: QEventLoop):
        super().__init__()
        self.dialog, self.loop = dialog, loop
        self.result: dict = {}

    @Slot(str, int, int)
    @gui_only
    def progressed(self, stage: str, done: int, total: int) -> None:
        self.dialog.setMaximum(total)
        self.dialog.setValue(done)

    @Slot(object)
    def succeeded(self, report) -> None:
        self.result["report"] = report

    @Slot(str)
    def failed(self, message: str) -> None:
        self.result["error"] = message

    @Slot()
    def done(self) -> None:
        self.loop.quit()


class StoreTrouble(QObject):
    """The questions and the rescue, with every dialog replaceable (tests answer them)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.parent_widget = parent
        #: choose(title, text, choices) -> one of the choices: 'rescue', 'open', 'quit', 'close'
        self.choose: Callable[[str, str, tuple[str, ...]], str] = self._choose
        self.pick_store: Callable[[], str] = lambda: QFileDialog.getSaveFileName(
            self.parent_widget, "Open or create a skill store", str(Path.home()), "Skill stores (*.db);;All files (*)",
            options=QFileDialog.DontConfirmOverwrite)[0]
        self.pick_folder: Callable[[], str] = lambda: QFileDialog.getExistingDirectory(
            self.parent_widget, "Rescue the skills into a new or empty folder")
        self.tell: Callable[[str, str, str], None] = self._tell   # (title, text, folder to offer or "")
        self._showing = False
        self._damage_told = False
        self._gui = GuiCaller(self)

    # --- at start -------------------------------------------------------------------

    def after_failure(self, error: StoreError) -> Path | None:
        """Ask what to do about a store that cannot be opened: rescue its skills (and ask again),
        open another store (its path is returned) or quit (None)."""
        title, text = describe(error)
        choices = ("rescue", "open", "quit") if getattr(error, "kind", "") == "damaged" else ("open", "quit")
        while True:
            answer = self.choose(title, text, choices)
            if answer == "rescue":
                self.rescue(Path(error.path))
                continue
            if answer == "open":
                picked = self.pick_store()
                if picked:
                    return Path(picked)
                continue
            return None

    def _choose(self, title: str, text: str, choices: tuple[str, ...]) -> str:
        box = QMessageBox(QMessageBox.Critical, title, text, parent=self.parent_widget)
        box.setTextFormat(Qt.RichText)
        buttons = {box.addButton(*_LABELS[c]): c for c in choices}
        box.setDefaultButton(next(iter(buttons)))
        box.exec()
        return buttons.get(box.clickedButton(), choices[-1])

    # --- the rescue -----------------------------------------------------------------

    def rescue(self, store_path: Path):
        """Ask for a folder and write the readable skills of ``store_path`` there (on a worker thread,
        with progress); returns the report, or None when cancelled or refused."""
        from skill_studio.core.store.rescue import rescue

        dest = self.pick_folder()
        if not dest:
            return None
        dialog = QProgressDialog("Reading the skills the store still holds…", None, 0, 0, self.parent_widget)
        dialog.setWindowTitle("Rescue skills")
        dialog.setMinimumDuration(300)
        loop = QEventLoop()
        watch = _RescueWatch(dialog, loop)
        worker = TaskWorker(lambda path, progress, cancelled: rescue(path, dest, lambda d, t: progress("rows", d, t)),
                            store_path, threading.Event())
        # Received by slots of an object of the GUI thread: queued there, never run by the worker.
        worker.progressed.connect(watch.progressed, Qt.QueuedConnection)
        worker.succeeded.connect(watch.succeeded, Qt.QueuedConnection)
        worker.failed.connect(watch.failed, Qt.QueuedConnection)
        worker.done.connect(watch.done, Qt.QueuedConnection)
        thread = start_worker(worker, self, "rescue")
        loop.exec()
        thread.wait()
        dialog.close()
        result = watch.result
        if "error" in result:
            self.tell("Rescue failed", _escape(result["error"].split(": ", 1)[-1]), "")
            return None
        report = result["report"]
        partial = [s for s in report.rescued if s.note]
        text = (f"<p>{len(report.rescued)} skill(s) written to <b>{_escape(report.to)}</b>"
                + (f", {len(partial)} of them not whole" if partial else "") + ".</p>")
        if report.lost:
            text += "<p>Could not be read:</p><ul>" + "".join(
                f"<li>{_escape(line)}</li>" for line in report.lost[:12]) + "</ul>"
            if len(report.lost) > 12:
                text += f"<p>… and {len(report.lost) - 12} more (see rescue-report.json).</p>"
        text += "<p>Import the folder into a new store (File ▸ Import…) to go on working.</p>"
        self.tell("Skills rescued", text, report.to)
        return report

    def _tell(self, title: str, text: str, folder: str) -> None:
        box = QMessageBox(QMessageBox.Information if folder else QMessageBox.Warning, title, text,
                          parent=self.parent_widget)
        box.setTextFormat(Qt.RichText)
        show = box.addButton("Show folder", QMessageBox.ActionRole) if folder else None
        box.addButton(QMessageBox.Close)
        box.exec()
        if show is not None and box.clickedButton() is show:
            QDesktopServices.openUrl(QUrl.fromLocalFile(folder))

    # --- while the window runs --------------------------------------------------------

    def install_hook(self) -> None:
        """Errors no panel handled reach the user as a message instead of only the terminal. A
        damaged store is reported once, with the rescue offered (every view that reads the damaged
        part fails again; the terminal still gets each one)."""
        previous = sys.excepthook

        def hook(kind, error, tb):
            previous(kind, error, tb)
            self._gui.call(self._report, kind, error)   # shown on the GUI thread, whichever raised

        sys.excepthook = hook

    def _report(self, kind: type, error: BaseException) -> None:
        damaged = isinstance(error, UnusableStore) and error.kind == "damaged"
        if self._showing or (damaged and self._damage_told):
            return
        self._showing = True
        try:
            if damaged:
                self._damage_told = True
                title, text = describe(error)
                if self.choose(title, text, ("rescue", "close")) == "rescue":
                    self.rescue(Path(error.path))
            elif isinstance(error, StoreError):
                self.tell("Not done", _escape(str(error)), "")
            else:
                self.tell("Unexpected error", _escape(f"{kind.__name__}: {error}") +
                          "<p>Your skills are in the store; the details are in the terminal output.</p>", "")
        finally:
            self._showing = False
