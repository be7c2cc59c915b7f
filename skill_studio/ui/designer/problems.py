"""The problems panel: validation findings for the edited SKILL.md, computed off the GUI thread."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from functools import partial

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QRunnable, Qt, QThreadPool, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.diagnostics import Diagnostic, Severity
from skill_studio.core.format.validate import PROFILES, validate_text
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.theme import LIGHT, ON_FILL, SEVERITY_MARKS, current_tokens

__all__ = ["DEBOUNCE_MS", "PROFILE_LABELS", "ProblemsPanel", "ValidationRunner", "safe_validate", "severity_icon"]

DEBOUNCE_MS = 300
#: What the profile combo box says for each validation profile.
PROFILE_LABELS = {"strict": "Strict (reference validator)", "lenient": "Lenient (how agents load it)",
                  "claude-upload": "Claude upload"}
#: How a profile is named inside a sentence.
_PROFILE_WORDS = {"strict": "strict", "lenient": "lenient", "claude-upload": "Claude upload"}
_SEVERITY_WORDS = {Severity.ERROR: "Error", Severity.WARNING: "Warning", Severity.INFO: "Info"}
DIAGNOSTIC_ROLE = Qt.UserRole + 1

Validator = Callable[..., list[Diagnostic]]


def safe_validate(validate: Validator, text: str, folder_name: str | None, profile: str,
                  files: Sequence[str] | None, library_names: Sequence[str] | None) -> list[Diagnostic]:
    """The diagnostics of ``validate``; an exception it raises comes back as one S000 error."""
    try:
        return list(validate(text, folder_name, profile, files=files, library_names=library_names))
    except Exception as e:  # noqa: BLE001 - a validator bug must not take the editor down
        return [Diagnostic("S000", Severity.ERROR, f"Validation failed: {type(e).__name__}: {e}", None,
                           "this is a fault in Skill Studio's validator, not necessarily in the skill")]


class _Relay(QObject):
    """Carries a result from a pool thread to the GUI thread (a queued signal)."""

    resultReady = Signal(int, list)


class _ValidationJob(QRunnable):
    def __init__(self, relay: _Relay, seq: int, work: Callable[[], list[Diagnostic]]):
        super().__init__()
        self._relay, self._seq, self._work = relay, seq, work

    def run(self) -> None:
        result = self._work()
        try:
            self._relay.resultReady.emit(self._seq, result)
        except RuntimeError:  # the runner was deleted while this ran
            pass


class ValidationRunner(QObject):
    """Validates SKILL.md text after typing pauses; only the newest request's result is emitted.

    Each request gets a sequence number; a result that arrives after a newer
    request was made is dropped. Work runs on a one-thread pool owned by the
    runner, and a queued request that has not started is dropped when a newer
    one starts.
    """

    finished = Signal(list)

    def __init__(self, parent: QObject | None = None, *, delay_ms: int = DEBOUNCE_MS,
                 validate: Validator = validate_text):
        super().__init__(parent)
        self._validate = validate
        self._seq = 0
        self._pending: tuple[int, tuple] | None = None
        self.last: list[Diagnostic] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._start)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay()  # owned by Python: a running job keeps it alive
        self._relay.resultReady.connect(self._deliver, Qt.QueuedConnection)  # emitted by the pool's thread

    def request(self, text: str, folder_name: str | None, profile: str, files: Sequence[str] | None = None,
                library_names: Sequence[str] | None = None) -> None:
        """Validate after the debounce delay; each call restarts the delay and supersedes earlier ones."""
        self._seq += 1
        self._pending = (self._seq, self._args(text, folder_name, profile, files, library_names))
        self._timer.start()

    def run_now(self, text: str, folder_name: str | None, profile: str, files: Sequence[str] | None = None,
                library_names: Sequence[str] | None = None) -> list[Diagnostic]:
        """Validate at once on this thread, emit ``finished`` and return the diagnostics.

        Pending and running requests are superseded (their results are dropped).
        """
        self._timer.stop()
        self._pending = None
        self._seq += 1
        diags = safe_validate(self._validate, *self._args(text, folder_name, profile, files, library_names))
        self.last = diags
        self.finished.emit(diags)
        return diags

    def cancel(self) -> None:
        """Forget pending work: no ``finished`` comes for earlier requests."""
        self._timer.stop()
        self._pending = None
        self._seq += 1

    def is_busy(self) -> bool:
        """True while a request waits for its delay or a validation runs."""
        return self._timer.isActive() or self._pool.activeThreadCount() > 0

    def wait(self, msecs: int = -1) -> bool:
        """Block until the running validation ends (for shutdown and tests); False on timeout."""
        return self._pool.waitForDone(msecs)

    @staticmethod
    def _args(text, folder_name, profile, files, library_names) -> tuple:
        # Copies, so that the caller may keep changing its lists while the worker reads these.
        return (text, folder_name, profile, None if files is None else list(files),
                None if library_names is None else list(library_names))

    def _start(self) -> None:
        if self._pending is None:
            return
        seq, args = self._pending
        self._pending = None
        self._pool.clear()  # a queued job that has not started is stale now
        self._pool.start(_ValidationJob(self._relay, seq, partial(safe_validate, self._validate, *args)))

    @Slot(int, list)
    @gui_only
    def _deliver(self, seq: int, diags: list) -> None:
        if seq != self._seq:
            return
        self.last = diags
        self.finished.emit(diags)


# --- severity icons --------------------------------------------------------------------------

_ICON_CACHE: dict[tuple[Severity, bool], QIcon] = {}


def severity_colour(severity: Severity, dark: bool) -> QColor:
    """The colour of a severity's icon in the light or dark theme."""
    return QColor(SEVERITY_MARKS[dark][severity.value])


def severity_icon(severity: Severity, dark: bool | None = None) -> QIcon:
    """A painted icon: a red disc with a cross, an amber triangle with '!', a blue disc with 'i'."""
    dark = current_tokens().dark if dark is None else dark
    key = (severity, dark)
    if key not in _ICON_CACHE:
        pix = QPixmap(32, 32)
        pix.fill(Qt.transparent)
        p = QPainter(pix)
        p.setRenderHint(QPainter.Antialiasing)
        p.setPen(Qt.NoPen)
        p.setBrush(severity_colour(severity, dark))
        mark = QPen(QColor(LIGHT.text) if severity is Severity.WARNING else QColor(ON_FILL), 3.5,
                    Qt.SolidLine, Qt.RoundCap)
        if severity is Severity.WARNING:
            p.drawPolygon(QPolygonF([QPointF(16, 2), QPointF(30.5, 29), QPointF(1.5, 29)]))
            p.setPen(mark)
            p.drawLine(QPointF(16, 11), QPointF(16, 19))
            p.drawPoint(QPointF(16, 24.5))
        else:
            p.drawEllipse(QRectF(2, 2, 28, 28))
            p.setPen(mark)
            if severity is Severity.ERROR:
                p.drawLine(QPointF(11, 11), QPointF(21, 21))
                p.drawLine(QPointF(21, 11), QPointF(11, 21))
            else:
                p.drawPoint(QPointF(16, 9.5))
                p.drawLine(QPointF(16, 14.5), QPointF(16, 23))
        p.end()
        _ICON_CACHE[key] = QIcon(pix)
    return _ICON_CACHE[key]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 or word == 'info' else 's'}"


def summarize(errors: int, warnings: int, infos: int) -> str:
    """'2 errors, 1 warning, 3 info', or 'No problems'."""
    parts = [_plural(n, w) for n, w in ((errors, "error"), (warnings, "warning"), (infos, "info")) if n]
    return ", ".join(parts) if parts else "No problems"


# --- the panel -------------------------------------------------------------------------------


class ProblemsPanel(QWidget):
    """A profile chooser over the list of diagnostics, sorted by line.

    Clicking a row, or pressing Enter on it, emits ``lineActivated`` with its
    SKILL.md line; the selected row's full message and fix hint show below the
    list. With nothing to show, a sentence replaces the list.
    """

    profileChanged = Signal(str)
    lineActivated = Signal(int)
    countsChanged = Signal(int, int, int)

    COLUMNS = ("Severity", "Line", "Code", "Message")

    def __init__(self, parent: QWidget | None = None, *, profile: str = "strict"):
        super().__init__(parent)
        self._diags: list[Diagnostic] = []
        self._shown: list[Diagnostic] = []
        self.profile_combo = QComboBox()
        self.profile_combo.setToolTip("Which rules to check the skill against")
        for name in PROFILES:
            self.profile_combo.addItem(PROFILE_LABELS.get(name, name), name)
        self.profile_combo.currentIndexChanged.connect(self._on_profile_index)
        self.summary_label = QLabel()
        self.summary_label.setProperty("role", "muted")
        self.info_toggle = QToolButton()
        self.info_toggle.setText("Show info")
        self.info_toggle.setCheckable(True)
        self.info_toggle.setChecked(True)
        self.info_toggle.setToolTip("Show or hide information-level findings")
        self.info_toggle.toggled.connect(self._refill)

        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(self.COLUMNS))
        self.tree.setHeaderLabels(list(self.COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setTextElideMode(Qt.ElideRight)
        header = self.tree.header()
        header.setStretchLastSection(True)
        for col in range(3):
            header.setSectionResizeMode(col, QHeaderView.ResizeToContents)
        self.tree.itemClicked.connect(self._on_item_activated)
        self.tree.itemActivated.connect(self._on_item_activated)
        self.tree.currentItemChanged.connect(self._show_detail)
        self.detail_label = QLabel()
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextFormat(Qt.RichText)
        self.detail_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.detail_label.setContentsMargins(6, 2, 6, 4)
        self.detail_label.hide()
        self.empty_label = QLabel()
        self.empty_label.setAlignment(Qt.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setProperty("role", "muted")

        list_page = QWidget()
        page_layout = QVBoxLayout(list_page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.setSpacing(0)
        page_layout.addWidget(self.tree, 1)
        page_layout.addWidget(self.detail_label)
        self.stack = QStackedWidget()
        self.stack.addWidget(list_page)
        self.stack.addWidget(self.empty_label)

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        bar.addWidget(QLabel("Profile:"))
        bar.addWidget(self.profile_combo)
        bar.addStretch(1)
        bar.addWidget(self.summary_label)
        bar.addWidget(self.info_toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self.set_profile(profile)
        self._refill()

    # --- profile ------------------------------------------------------------

    def profile(self) -> str:
        """The chosen validation profile ('strict', 'lenient' or 'claude-upload')."""
        return self.profile_combo.currentData()

    def set_profile(self, profile: str) -> None:
        """Choose a profile without emitting ``profileChanged``. Raises ValueError for an unknown one."""
        index = self.profile_combo.findData(profile)
        if index < 0:
            raise ValueError(f"unknown profile {profile!r}")
        self.profile_combo.blockSignals(True)
        self.profile_combo.setCurrentIndex(index)
        self.profile_combo.blockSignals(False)
        self._refill()

    def _on_profile_index(self, _index: int) -> None:
        self._refill()
        self.profileChanged.emit(self.profile())

    # --- diagnostics --------------------------------------------------------

    def set_diagnostics(self, diags: Sequence[Diagnostic]) -> None:
        """Show these diagnostics (any order; shown by line, file-wide ones first)."""
        self._diags = sorted(diags, key=lambda d: (d.line is not None, d.line or 0))
        self._refill()
        self.countsChanged.emit(*self.counts())

    def diagnostics(self) -> list[Diagnostic]:
        """Every diagnostic set, sorted by line (also the hidden info items)."""
        return list(self._diags)

    def counts(self) -> tuple[int, int, int]:
        """(errors, warnings, infos) among all diagnostics set."""
        sev = [d.severity for d in self._diags]
        return sev.count(Severity.ERROR), sev.count(Severity.WARNING), sev.count(Severity.INFO)

    def summary(self) -> str:
        """'2 errors, 1 warning' and the like, or 'No problems'."""
        return summarize(*self.counts())

    def show_info(self) -> bool:
        return self.info_toggle.isChecked()

    def empty_text(self) -> str:
        """The sentence shown in place of an empty list."""
        word = _PROFILE_WORDS.get(self.profile(), self.profile())
        hidden = self.counts()[2] if not self.show_info() else 0
        if hidden:
            return f"No errors or warnings with the {word} profile ({hidden} info hidden)"
        return f"No problems found with the {word} profile"

    def _refill(self, *_args) -> None:
        show_info = self.show_info()
        self._shown = [d for d in self._diags if show_info or d.severity is not Severity.INFO]
        self.tree.clear()
        items = []
        for d in self._shown:
            item = QTreeWidgetItem(["", "" if d.line is None else str(d.line), d.code, d.message])
            item.setIcon(0, severity_icon(d.severity))
            item.setText(0, _SEVERITY_WORDS[d.severity])
            item.setTextAlignment(1, Qt.AlignRight | Qt.AlignVCenter)
            # Always markup (a paragraph), so an escaped "&" is never shown as "&amp;".
            tip = f"<p>{html.escape(d.message)}" + (f"<br><b>Fix:</b> {html.escape(d.hint)}" if d.hint else "") + "</p>"
            for col in range(len(self.COLUMNS)):
                item.setToolTip(col, tip)
            item.setData(0, DIAGNOSTIC_ROLE, d)
            items.append(item)
        self.tree.addTopLevelItems(items)
        self.empty_label.setText(self.empty_text())
        self.stack.setCurrentIndex(0 if self._shown else 1)
        self.summary_label.setText(self.summary() if self._diags else "")
        self._show_detail(self.tree.currentItem())

    def _show_detail(self, item: QTreeWidgetItem | None, _previous=None) -> None:
        d = item.data(0, DIAGNOSTIC_ROLE) if item is not None else None
        if d is None:
            self.detail_label.hide()
            return
        where = f"line {d.line}" if d.line is not None else "whole file"
        text = f"<b>{html.escape(d.code)}</b> ({where}): {html.escape(d.message)}"
        if d.hint:
            text += f"<br><b>Fix:</b> {html.escape(d.hint)}"
        self.detail_label.setText(text)
        self.detail_label.show()

    def _on_item_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        d = item.data(0, DIAGNOSTIC_ROLE)
        if d is not None and d.line is not None:
            self.lineActivated.emit(d.line)

    def changeEvent(self, event: QEvent) -> None:
        # The icons follow the theme; repaint them when the palette changes.
        if event.type() == QEvent.PaletteChange and self._diags:
            self._refill()
        super().changeEvent(event)
