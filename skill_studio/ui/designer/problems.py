"""The problems panel: validation findings for the edited SKILL.md (computed off the GUI thread by
:class:`~skill_studio.ui.designer.validation.ValidationRunner`), by line, with the whole message below."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.diagnostics import Diagnostic, Severity
from skill_studio.core.format.validate import PROFILES
from skill_studio.ui.designer.validation import DEBOUNCE_MS, ValidationRunner, safe_validate
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.theme import LIGHT, ON_FILL, SEVERITY_MARKS, current_tokens

__all__ = ["DEBOUNCE_MS", "PROFILE_LABELS", "ProblemsPanel", "ValidationRunner", "safe_validate", "severity_icon"]

#: What the profile combo box says for each validation profile.
PROFILE_LABELS = {"strict": "Strict (reference validator)", "lenient": "Lenient (how agents load it)",
                  "claude-upload": "Claude upload"}
#: How a profile is named inside a sentence.
_PROFILE_WORDS = {"strict": "strict", "lenient": "lenient", "claude-upload": "Claude upload"}
_SEVERITY_WORDS = {Severity.ERROR: "Error", Severity.WARNING: "Warning", Severity.INFO: "Info"}
DIAGNOSTIC_ROLE = Qt.UserRole + 1


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


def breakable(text: str, run: int = 40) -> str:
    """``text`` with a zero-width break allowed every ``run`` characters of a longer word (a path,
    a URL), so that it wraps inside a narrow pane instead of widening it."""
    return re.sub(rf"\S{{{run}}}(?=\S)", lambda m: m.group(0) + "\u200b", text)


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
        self.profile_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.profile_combo.setMinimumContentsLength(10)
        self.profile_combo.setToolTip("Which rules to check the skill against")
        for name in PROFILES:
            self.profile_combo.addItem(PROFILE_LABELS.get(name, name), name)
        self.profile_combo.currentIndexChanged.connect(self._on_profile_index)
        self.summary_label = ElidedLabel(minimum=30)
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
        # However long the message (a path, a URL, a pasted line), the pane is never widened by it.
        self.detail_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
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
        # A long message scrolls in a few lines under the list; the list keeps its rows.
        self.detail_scroll = QScrollArea()
        self.detail_scroll.setWidgetResizable(True)
        self.detail_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.detail_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.detail_scroll.setWidget(self.detail_label)
        self.detail_scroll.setMaximumHeight(self.fontMetrics().lineSpacing() * 4 + 8)
        self.detail_scroll.hide()
        page_layout.addWidget(self.detail_scroll)
        self.stack = QStackedWidget()
        self.stack.addWidget(list_page)
        self.stack.addWidget(self.empty_label)

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        bar.addWidget(QLabel("Profile:"))
        bar.addWidget(self.profile_combo, 3)
        self.profile_combo.setMaximumWidth(self.profile_combo.fontMetrics().horizontalAdvance(
            max(PROFILE_LABELS.values(), key=len)) + 48)
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
            self.detail_scroll.hide()
            return
        where = f"line {d.line}" if d.line is not None else "whole file"
        text = f"<b>{html.escape(d.code)}</b> ({where}): {html.escape(breakable(d.message))}"
        if d.hint:
            text += f"<br><b>Fix:</b> {html.escape(breakable(d.hint))}"
        self.detail_label.setText(text)
        self.detail_scroll.show()

    def _on_item_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        d = item.data(0, DIAGNOSTIC_ROLE)
        if d is not None and d.line is not None:
            self.lineActivated.emit(d.line)

    def changeEvent(self, event: QEvent) -> None:
        # The icons follow the theme; repaint them when the palette changes.
        if event.type() == QEvent.PaletteChange and self._diags:
            self._refill()
        super().changeEvent(event)
