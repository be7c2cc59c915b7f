"""When the store cannot be used: saying so (the file was left as it was), opening another store,
and rescuing the skills a damaged store still holds, off the GUI thread."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from skill_studio.core.store import StoreError, UnusableStore
from skill_studio.ui.gui_thread import GuiCaller
from skill_studio.ui.long_task import TaskRun, run_in_progress_dialog

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
        #: the lines behind "Show Details…" of the next tell (what could not be rescued, and why)
        self.details: list[str] = []
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
        run = run_in_progress_dialog(self.parent_widget, "Rescue skills", "Reading the skills the store still holds…",
                                     TaskRun(_rescue_work(rescue, dest), store_path, self, "rescue"))
        if run.error is not None:
            self.details = []
            self.tell("Rescue failed", _escape(run.error.split(": ", 1)[-1]), "")
            return None
        report = run.result
        partial = [s for s in report.rescued if s.note]
        written = f"{len(report.rescued)} skill(s) written to <b>{_escape(report.to)}</b>" + (
            f", {len(partial)} of them not whole" if partial else "")
        if report.stopped:
            text = (f"<p>Stopped: {written}. The rest of the store was not read; rescue into the same folder "
                    "again to read it all.</p>")
        else:
            text = f"<p>{written}" + (f"; {len(report.lost)} could not be read" if report.lost else "") + ".</p>"
        text += "<p>Import the folder into a new store (File ▸ Import…) to go on working.</p>"
        self.details = [*report.lost, *(f"{s.name}: {s.note}" for s in partial)]
        self.tell("Rescue stopped" if report.stopped else "Skills rescued", text, report.to)
        return report

    def _tell(self, title: str, text: str, folder: str) -> None:
        box = QMessageBox(QMessageBox.Information if folder else QMessageBox.Warning, title, text,
                          parent=self.parent_widget)
        box.setTextFormat(Qt.RichText)
        show = box.addButton("Show folder", QMessageBox.ActionRole) if folder else None
        box.addButton(QMessageBox.Close)
        if self.details:   # behind "Show Details…", in a scrolling box; also in rescue-report.json
            box.setDetailedText("\n".join(self.details))
        self.details = []
        box.exec()
        if show is not None and box.clickedButton() is show:
            from PySide6.QtCore import QUrl

            QDesktopServices.openUrl(QUrl.fromLocalFile(folder))

    # --- while the window runs --------------------------------------------------------

    def install_hook(self) -> None:
        """Errors no panel handled reach the user as a message instead of only the terminal. A
        damaged store is reported once, with the rescue offered (every view that reads the damaged
        part fails again; the terminal still gets each one)."""
        previous = sys.excepthook

        def hook(kind, error, tb):
            previous(kind, error, tb)
            # Shown on the GUI thread, whichever raised, once what raised is over: an error raised
            # while a view paints or a model answers never opens a dialog inside it.
            self._gui.post(self._report, kind, error)

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


def _rescue_work(rescue: Callable, dest: str) -> Callable:
    """The rescue as a worker runs it: progress by rows read, stopping when cancelled."""
    def work(path, progress, cancelled):
        return rescue(path, dest, lambda done, total: progress("Reading row", done, total), cancelled)
    return work
