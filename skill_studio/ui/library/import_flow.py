"""Importing in the background: the runner thread, the progress dialog and the report dialog."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable

from PySide6.QtCore import (
    QAbstractTableModel,
    QEventLoop,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QThread,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QProgressDialog,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.names import printable
from skill_studio.core.library.importer import ImportEntry, ImportReport, import_paths
from skill_studio.core.model import Origin
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Store
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.safe_text import literal, warning
from skill_studio.ui.theme import current_tokens

#: show_message(parent, title, text): how a function tells the user something (a warning box by default).
ShowMessage = Callable[[QWidget | None, str, str], object]

PROGRESS_INTERVAL = 0.05  # seconds between progress signals, so a big import does not flood the GUI


class _ImportWorker(QObject):
    """Runs one import on the thread it was moved to."""

    progressed = Signal(int, str)
    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(self, store: Store, paths: list[str], origin: Origin, cancelled: threading.Event):
        super().__init__()
        self._store, self._paths, self._origin, self._cancelled = store, paths, origin, cancelled
        self._last_emit = 0.0

    @Slot()
    def run(self) -> None:
        try:
            # The skills are indexed for search after the report (ui.shell.window_actions): a search
            # in between indexes them first, so it finds them all the same.
            report = import_paths(self._store, self._paths, origin=self._origin, progress=self._progress,
                                  index_later=True)
        except Exception as e:  # noqa: BLE001 - reported to the user; the import leaves the store consistent
            self.failed.emit(f"{type(e).__name__}: {e}" if not str(e) else str(e))
        else:
            self.succeeded.emit(report)

    def _progress(self, done: int, source: str) -> bool:
        now = time.monotonic()
        if done == 1 or now - self._last_emit >= PROGRESS_INTERVAL:
            self._last_emit = now
            self.progressed.emit(done, source)
        return not self._cancelled.is_set()


class ImportRunner(QObject):
    """Imports skill folders, trees and archives on a worker thread.

    ``finished`` and ``failed`` are emitted once the worker thread has stopped,
    so the runner may be dropped right after either.
    """

    progressed = Signal(int, str)   # skills read so far, the source just read
    finished = Signal(object)       # the ImportReport (also after cancel(): what was done until then)
    failed = Signal(str)            # why the import stopped

    def __init__(self, store: Store, parent: QObject | None = None):
        super().__init__(parent)
        self._store = store
        self._cancelled = threading.Event()
        self._thread: QThread | None = None
        self._worker: _ImportWorker | None = None
        self._outcome: tuple[str, object] | None = None

    def is_running(self) -> bool:
        return self._thread is not None

    def start(self, paths: Iterable[str], origin: Origin | str = Origin.HUMAN) -> None:
        """Start importing ``paths``; raises RuntimeError when an import is already running."""
        if self._thread is not None:
            raise RuntimeError("an import is already running")
        self._cancelled.clear()
        self._outcome = None
        self._thread = QThread(self)
        self._worker = _ImportWorker(self._store, [str(p) for p in paths], Origin(origin), self._cancelled)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        # The worker's thread emits these: each is queued to this object, in the GUI thread.
        self._worker.progressed.connect(self.progressed, Qt.QueuedConnection)
        self._worker.succeeded.connect(self._on_succeeded, Qt.QueuedConnection)
        self._worker.failed.connect(self._on_failed, Qt.QueuedConnection)
        self._thread.finished.connect(self._on_thread_finished, Qt.QueuedConnection)
        self._thread.start()

    def cancel(self) -> None:
        """Stop at the next skill; what was read until then is kept and reported."""
        self._cancelled.set()

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until the worker thread has stopped (for shutdown); True when it has."""
        return self._thread is None or self._thread.wait(msecs)

    @Slot(object)
    @gui_only
    def _on_succeeded(self, report: ImportReport) -> None:
        self._outcome = ("finished", report)
        self._thread.quit()

    @Slot(str)
    @gui_only
    def _on_failed(self, message: str) -> None:
        self._outcome = ("failed", message)
        self._thread.quit()

    @Slot()
    @gui_only
    def _on_thread_finished(self) -> None:
        thread, worker, outcome = self._thread, self._worker, self._outcome
        self._thread = self._worker = None
        worker.deleteLater()
        thread.deleteLater()
        if outcome is None:
            self.failed.emit("the import stopped without a result")
        elif outcome[0] == "finished":
            self.finished.emit(outcome[1])
        else:
            self.failed.emit(outcome[1])


class ImportProgressDialog(QProgressDialog):
    """A busy indicator with the count of skills read, the current source and Cancel."""

    def __init__(self, runner: ImportRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Importing skills")
        self.setLabelText("Looking for skills…")
        self.setRange(0, 0)  # the total is not known until the walk is over
        self.setMinimumDuration(0)
        self.setAutoReset(False)
        self.setWindowModality(Qt.WindowModal)
        self.setMinimumWidth(480)
        self._runner = runner
        self.canceled.connect(runner.cancel)
        runner.progressed.connect(self.show_progress)

    @Slot(int, str)
    @gui_only
    def show_progress(self, done: int, source: str) -> None:
        width = max(self.width() - 60, 300)
        shown = self.fontMetrics().elidedText(source, Qt.ElideMiddle, width)
        self.setLabelText(f"{done} skill{'s' if done != 1 else ''} read\n{shown}")


def report_text(report: ImportReport) -> str:
    """The report as plain text: the summary, then one line per skill and its notes."""
    lines = [f"Import report: {report.summary}", ""]
    for e in report.entries:
        lines.append(f"{e.status}\t{printable(e.name or '-')}\t{printable(e.source)}")
        if e.reason:
            lines.append(f"\treason: {printable(e.reason)}")
        lines += [f"\twarning: {printable(w)}" for w in e.warnings]
        lines += [f"\tstrict: {printable(s)}" for s in e.strict_errors]
    return "\n".join(lines) + "\n"


def _details(entry: ImportEntry) -> list[str]:
    """Reason, warnings and strict errors; the reason without the source path the row already shows."""
    reason = entry.reason
    if reason.startswith(entry.source + ":"):
        rest = reason[len(entry.source) + 1:]
        m = re.match(r"(\d+):(\d+): ", rest)
        reason = f"line {m.group(1)}: {rest[m.end():]}" if m else rest.lstrip()
    out = [reason] if reason else []
    out += entry.warnings
    out += [f"strict: {s}" for s in entry.strict_errors]
    return out


class ImportReportModel(QAbstractTableModel):
    """One row per entry of an import report: status, name, source, details."""

    HEADERS = ("Status", "Name", "Source", "Details")

    def __init__(self, report: ImportReport, parent: QObject | None = None):
        super().__init__(parent)
        self._entries = list(report.entries)
        style = QApplication.style()
        self._skipped_icon = style.standardIcon(QStyle.SP_MessageBoxCritical)
        self._warning_icon = style.standardIcon(QStyle.SP_MessageBoxWarning)
        tokens = current_tokens()
        self._skipped_back = QBrush(QColor(tokens.error_back))
        self._skipped_fore = QBrush(QColor(tokens.error))

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole and 0 <= section < len(self.HEADERS):
            return self.HEADERS[section]
        return None

    def entry(self, row: int) -> ImportEntry:
        return self._entries[row]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        e, col = self._entries[index.row()], index.column()
        skipped = e.status == "skipped"
        if role == Qt.DisplayRole:
            if col == 0:
                return e.status
            if col == 1:
                return printable(e.name) if e.name else "—"
            if col == 2:
                return printable(e.source)
            return printable("; ".join(_details(e)))
        if role == Qt.ToolTipRole:   # every cell may be cut: its tooltip holds it whole, shown literally
            if col == 3:
                return literal("\n".join(printable(d) for d in _details(e))) if _details(e) else None
            return literal(self.data(index, Qt.DisplayRole))
        if role == Qt.DecorationRole:
            if col == 0 and skipped:
                return self._skipped_icon
            if col == 3 and not skipped and (e.warnings or e.strict_errors):
                return self._warning_icon
            return None
        if role == Qt.BackgroundRole and skipped:
            return self._skipped_back
        if role == Qt.ForegroundRole and skipped and col in (0, 3):
            return self._skipped_fore
        return None


class _ElideRightDelegate(QStyledItemDelegate):
    """Details read from the start: cut them at the end, not in the middle like paths."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.ElideRight


class ImportReportDialog(QDialog):
    """The outcome of an import: a summary line, a table of every skill, Copy report and Close."""

    def __init__(self, report: ImportReport, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Import report")
        self.report = report
        self.summary_label = QLabel(report.summary, textFormat=Qt.PlainText)
        font = self.summary_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.summary_label.setFont(font)
        self.summary_label.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.model = ImportReportModel(report, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setTextElideMode(Qt.ElideMiddle)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.Interactive)
        header.setSectionResizeMode(2, QHeaderView.Interactive)
        header.setSectionResizeMode(3, QHeaderView.Stretch)
        header.setMinimumSectionSize(60)
        # A long name or path is cut (its tooltip holds it whole): the details keep room to be read.
        header.resizeSection(1, min(max(self.table.sizeHintForColumn(1), 80), 220))
        header.resizeSection(2, 240)
        self.table.setItemDelegateForColumn(3, _ElideRightDelegate(self.table))

        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.copy_button = QPushButton("Copy report")
        self.copy_button.setToolTip("Copy the whole report as plain text")
        buttons.addButton(self.copy_button, QDialogButtonBox.ActionRole)
        self.copy_button.clicked.connect(self.copy_report)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(860, 440)

    @Slot()
    def copy_report(self) -> None:
        QGuiApplication.clipboard().setText(report_text(self.report))
        self.copy_button.setText("Copied")
        QTimer.singleShot(2000, self, self._reset_copy_button)

    @Slot()
    def _reset_copy_button(self) -> None:
        self.copy_button.setText("Copy report")


class _Outcome:
    """What a local event loop waited for."""

    def __init__(self, loop: QEventLoop):
        self.loop = loop
        self.report: ImportReport | None = None
        self.error: str | None = None

    @Slot(object)
    def finished(self, report: ImportReport) -> None:
        self.report = report
        self.loop.quit()

    @Slot(str)
    def failed(self, message: str) -> None:
        self.error = message
        self.loop.quit()


def _show_report_dialog(parent: QWidget | None, report: ImportReport) -> None:
    ImportReportDialog(report, parent).exec()


def run_import(parent: QWidget | None, store: Store, paths: Iterable[str], origin: Origin | str = "human", *,
               show_report: Callable[[QWidget | None, ImportReport], object] | None = _show_report_dialog,
               show_message: ShowMessage = warning) -> ImportReport | None:
    """Import ``paths`` with a progress dialog (the GUI stays live), then show the report.

    Returns the report (also after Cancel), or None when the import failed (the
    reason is shown with ``show_message``). ``show_report=None`` skips the report.
    """
    runner = ImportRunner(store, parent)
    dialog = ImportProgressDialog(runner, parent)
    loop = QEventLoop()
    outcome = _Outcome(loop)
    runner.finished.connect(outcome.finished)
    runner.failed.connect(outcome.failed)
    runner.start(paths, origin)
    dialog.open()
    loop.exec()
    dialog.close()
    dialog.deleteLater()
    runner.deleteLater()
    if outcome.error is not None:
        show_message(parent, "Import failed", f"The import stopped: {outcome.error}")
        return None
    if show_report is not None:
        show_report(parent, outcome.report)
    return outcome.report


def import_changes(report: ImportReport) -> ChangeSet:
    """What an import changed: the skills it added, and those it updated or merged into."""
    added = [e.name for e in report.entries if e.status == "imported" and e.name]
    changed = [e.name for e in report.entries if e.status in ("updated", "merged") and e.name]
    return ChangeSet.of(added=added, changed=changed, label="import")
