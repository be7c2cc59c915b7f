"""Long work the user waits for (installing, exporting, rescuing a store): it runs on a worker
thread (ui/task_worker.py), shows how far it got ("Installing 312 of 871…") with a Cancel button,
and ends with a one-line summary and a list of details the user can open when they want them.

Everything here lives on the GUI thread: the worker's signals reach :class:`TaskRun` through
queued connections to its slots, and only then the widgets."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEventLoop, QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QProgressDialog,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.safe_text import literal
from skill_studio.ui.task_worker import TaskWorker, start_worker
from skill_studio.ui.theme import current_tokens, role_text

#: run(arg, progress=progress(stage, done, total), cancelled=cancelled() -> bool) -> result
Work = Callable[..., object]
#: Rows of details shown at once when they are opened (more scroll).
DETAIL_ROWS = 8


def progress_text(stage: str, done: int, total: int) -> str:
    """ "Installing 312 of 871…", or "Installing…" while the total is not known."""
    return f"{stage} {done} of {total}…" if total > 0 else f"{stage}…"


class TaskRun(QObject):
    """One piece of long work on its own thread, seen from the GUI thread. ``ended`` is emitted
    once the thread has stopped; then ``result`` holds what the work returned (also after a
    cancel, when the work returns what it did until then), or ``error`` why it failed."""

    progressed = Signal(str, int, int)
    ended = Signal()

    def __init__(self, work: Work, arg: object = None, parent: QObject | None = None, name: str = "task"):
        super().__init__(parent)
        self._work, self._arg, self._name = work, arg, name
        self._cancel = threading.Event()
        self._thread: QThread | None = None
        self._worker: TaskWorker | None = None
        self._ended = False
        self.result: object = None
        self.error: str | None = None

    def start(self) -> TaskRun:
        if self._thread is not None:
            raise RuntimeError(f"the {self._name} is already running")
        self._worker = worker = TaskWorker(self._work, self._arg, self._cancel)
        # Slots of this object (GUI thread), queued: the worker thread never runs them.
        worker.progressed.connect(self._progressed, Qt.QueuedConnection)
        worker.succeeded.connect(self._succeeded, Qt.QueuedConnection)
        worker.failed.connect(self._failed, Qt.QueuedConnection)
        worker.done.connect(self._done, Qt.QueuedConnection)
        self._thread = start_worker(worker, self, self._name)
        return self

    def running(self) -> bool:
        return self._thread is not None and not self._ended

    def has_ended(self) -> bool:
        return self._ended

    @Slot()
    def cancel(self) -> None:
        """Ask the work to stop before its next step; it reports what it did until then."""
        self._cancel.set()

    def was_cancelled(self) -> bool:
        return self._cancel.is_set()

    def wait(self) -> TaskRun:
        """Keep the GUI going (a local event loop) until the work has ended."""
        if self._thread is not None and not self._ended:
            loop = QEventLoop()
            self.ended.connect(loop.quit)
            loop.exec()
            self.ended.disconnect(loop.quit)
        return self

    def stop(self) -> None:
        """Cancel and wait for the thread (before what owns the run goes away)."""
        self._cancel.set()
        if self._thread is not None:
            self._thread.wait()

    @Slot(str, int, int)
    @gui_only
    def _progressed(self, stage: str, done: int, total: int) -> None:
        self.progressed.emit(stage, done, total)

    @Slot(object)
    def _succeeded(self, result: object) -> None:
        self.result = result

    @Slot(str)
    def _failed(self, message: str) -> None:
        self.error = message

    @Slot()
    @gui_only
    def _done(self) -> None:
        if self._thread is not None:
            self._thread.wait()
        if self.result is None and self.error is None:
            self.error = "the work stopped without a result"
        self._ended = True
        self.ended.emit()


def run_in_progress_dialog(parent: QWidget | None, title: str, first_text: str, run: TaskRun,
                           minimum_ms: int = 500) -> TaskRun:
    """Start ``run`` with a window-modal progress dialog (shown when the work takes longer than
    ``minimum_ms``) whose Cancel stops it; returns once it has ended."""
    dialog = QProgressDialog(first_text, "Cancel", 0, 0, parent)
    dialog.setWindowTitle(title)
    dialog.setWindowModality(Qt.WindowModal)
    dialog.setMinimumDuration(minimum_ms)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.setMinimumWidth(420)
    follower = _DialogFollower(dialog)
    run.progressed.connect(follower.show_progress)
    dialog.canceled.connect(run.cancel)
    run.start()
    run.wait()
    dialog.canceled.disconnect(run.cancel)
    dialog.close()
    dialog.deleteLater()
    run.deleteLater()   # after the caller has read it: deleted when the event loop next runs
    return run


class _DialogFollower(QObject):
    def __init__(self, dialog: QProgressDialog):
        super().__init__(dialog)
        self.dialog = dialog

    @Slot(str, int, int)
    def show_progress(self, stage: str, done: int, total: int) -> None:
        self.dialog.setLabelText(progress_text(stage, done, total))
        self.dialog.setMaximum(max(total, 0))
        self.dialog.setValue(min(done, total) if total > 0 else 0)


def show_summary(parent: QWidget | None, title: str, text: str, details: Sequence[str]) -> None:
    """A box with the one-line ``text`` and, behind its "Show Details…" button, ``details`` one a
    line in a scrolling box."""
    box = QMessageBox(QMessageBox.Information, title, literal(text), QMessageBox.Close, parent)
    if details:
        box.setDetailedText("\n".join(details))
    box.exec()


class ProgressRow(QWidget):
    """A line for a dialog of its own: what is being done, a bar and Cancel; hidden when idle."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = ElidedLabel()
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setMaximumWidth(240)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop after the skill being written; what was done is kept and reported")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.setVisible(False)
        self._run: TaskRun | None = None

    def follow(self, run: TaskRun, first_text: str) -> None:
        """Show ``run``'s progress until it ends; Cancel cancels it."""
        self._run = run
        self.label.setText(first_text)
        self.bar.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        self.cancel_button.clicked.connect(self._cancel)
        run.progressed.connect(self.show_progress)
        run.ended.connect(self._ended)
        self.setVisible(True)

    @Slot(str, int, int)
    def show_progress(self, stage: str, done: int, total: int) -> None:
        self.label.setText(progress_text(stage, done, total))
        self.bar.setRange(0, max(total, 0))
        self.bar.setValue(min(done, total) if total > 0 else 0)

    @Slot()
    def _cancel(self) -> None:
        if self._run is not None:
            self._run.cancel()
            self.cancel_button.setEnabled(False)
            self.label.setText("Stopping after the current skill…")

    @Slot()
    def _ended(self) -> None:
        self.cancel_button.clicked.disconnect(self._cancel)
        self._run = None
        self.setVisible(False)


class SummaryView(QWidget):
    """A one-line summary (elided, with the whole text as its tooltip) and a "Show details" button
    that opens a scrolling list below it. Opening the list makes the window taller by the list's
    height where the screen has room, so the window's other parts keep their size."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = ElidedLabel()
        self.label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.toggle = QPushButton("Show details")
        self.toggle.setCheckable(True)
        self.toggle.setVisible(False)
        self.toggle.toggled.connect(self._show_details)
        self.details = QListWidget()
        self.details.setAccessibleName("Details")
        self.details.setUniformItemSizes(True)
        self.details.setTextElideMode(Qt.ElideMiddle)
        self.details.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.details.setVisible(False)
        self.details.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.label, 1)
        line.addWidget(self.toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(line)
        layout.addWidget(self.details)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self._grown = 0

    def text(self) -> str:
        return self.label.full_text()

    def show_result(self, text: str, role: str, details: Sequence[str] = ()) -> None:
        """``text`` in the colour of ``role`` (success, attention or danger), with ``details``
        (one line each) behind the button; the list starts closed."""
        self.toggle.setChecked(False)
        self.label.setText(text)
        self.label.setStyleSheet(f"color: {role_text(current_tokens(), role)};")
        self.details.clear()
        for line in details:
            item = QListWidgetItem(line)
            item.setToolTip(literal(line))
            self.details.addItem(item)
        self.toggle.setText(f"Show details ({len(details)})")
        self.toggle.setVisible(bool(details))

    @Slot(bool)
    def _show_details(self, shown: bool) -> None:
        count = self.details.count()
        self.toggle.setText(f"{'Hide' if shown else 'Show'} details ({count})")
        window = self.window()
        if not shown:
            self.details.setVisible(False)
            if self._grown and window is not self:
                window.resize(window.width(), window.height() - self._grown)
            self._grown = 0
            return
        row = self.details.sizeHintForRow(0) if count else self.fontMetrics().height()
        frame, spacing = 2 * self.details.frameWidth() + 2, self.layout().spacing()
        screen = window.screen() if window is not self else None
        room = screen.availableGeometry().height() - window.frameGeometry().height() if screen else 0
        # As many rows as the screen has room for (up to DETAIL_ROWS), and never fewer than four.
        rows = max(min(count, DETAIL_ROWS, (room - spacing - frame) // max(row, 1)), min(count, 4), 1)
        self.details.setFixedHeight(row * rows + frame)
        self._grown = max(0, min(row * rows + frame + spacing, room))
        self.details.setVisible(True)
        if self._grown and screen is not None:
            window.resize(window.width(), window.height() + self._grown)
            free = screen.availableGeometry()
            geometry = window.frameGeometry()
            if geometry.bottom() + self._grown > free.bottom():   # keep it on the screen: move it up
                window.move(geometry.x(), max(free.top(), free.bottom() - geometry.height() - self._grown))


def start_run(parent: QObject, work: Work, arg: object, name: str, progress: ProgressRow, first_text: str,
              finished: Callable[[TaskRun], None]) -> TaskRun:
    """Start ``work(arg, progress=, cancelled=)`` on a worker thread, shown on ``progress``;
    ``finished(run)`` is called on the GUI thread once it has ended (the run is deleted after)."""
    run = TaskRun(work, arg, parent, name)
    progress.follow(run, first_text)

    def ended() -> None:
        try:
            finished(run)
        finally:
            run.deleteLater()

    run.ended.connect(ended)
    return run.start()


class OneRunAtATime:
    """For a view that runs one piece of work at a time on ``self.progress`` (a ProgressRow), its
    ``self.summary`` (a SummaryView) hidden meanwhile; ``self.store`` is what the work gets.
    ``work_changed()`` is called when work starts and ends (to enable or disable what depends on it)."""

    run: TaskRun | None = None
    progress: ProgressRow
    summary: SummaryView
    store: object

    def work_changed(self) -> None:
        """Override: the run started or ended."""

    def start_work(self, work: Work, first_text: str, finished: Callable[[TaskRun], None]) -> None:
        if self.run is not None:
            return
        self.summary.setVisible(False)

        def ended(run: TaskRun) -> None:
            self.run = None
            self.summary.setVisible(True)
            try:
                finished(run)
            finally:
                self.work_changed()

        assert isinstance(self, QObject)
        self.run = start_run(self, work, self.store, type(self).__name__, self.progress, first_text, ended)
        self.work_changed()

    def shutdown(self) -> None:
        """Stop the work (before the view goes away)."""
        if self.run is not None:
            self.run.stop()
