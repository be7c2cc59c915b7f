"""The graph's problems (cycles, missing dependencies, conflicts) as a list beside the canvas, shown
only when there are some, and the toolbar's note that counts them and shows or hides the list."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QStyle, QToolButton, QVBoxLayout, QWidget

from skill_studio.ui.graph.graph_node import CYCLE_RED
from skill_studio.ui.safe_text import literal


def _counted(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


class ProblemsSide(QWidget):
    """The list of problems; ``problemClicked(names)`` when one is clicked or activated."""

    problemClicked = Signal(list)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMinimumWidth(200)
        self.title = QLabel("Problems", self)
        self.title.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setAccessibleName("Graph problems")
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.list)

    def fill(self, problems, note: QToolButton) -> bool:
        """List ``problems`` and set the toolbar's ``note``: "No problems", or how many there are
        (checkable: it shows or hides the list). Returns whether the list should be shown."""
        self.list.clear()
        errors = sum(p.severity == "error" for p in problems)
        warnings = len(problems) - errors
        parts = [_counted(errors, "error")] * bool(errors) + [_counted(warnings, "warning")] * bool(warnings)
        self.title.setText("Problems: " + (", ".join(parts) if problems else "none"))
        for p in problems:
            icon = self.style().standardIcon(QStyle.SP_MessageBoxCritical if p.severity == "error"
                                             else QStyle.SP_MessageBoxWarning)
            item = QListWidgetItem(icon, p.message)
            item.setToolTip(literal(p.message + "\n\nClick to show these skills"))
            item.setData(Qt.UserRole, list(p.skills))
            if p.severity == "error":
                item.setForeground(QColor(CYCLE_RED))
            self.list.addItem(item)
        note.blockSignals(True)
        if problems:
            was = note.isCheckable()
            note.setCheckable(True)
            note.setChecked(note.isChecked() or not was)   # shown at first; then as the person left it
            note.setText(_counted(len(problems), "problem"))
            note.setToolTip("Show or hide the list of problems: " + ", ".join(parts))
        else:
            note.setChecked(False)
            note.setCheckable(False)
            note.setText("No problems")
            note.setToolTip("No dependency cycles, missing dependencies or conflicts in the library")
        note.blockSignals(False)
        return bool(problems) and note.isChecked()

    def _clicked(self, item: QListWidgetItem) -> None:
        names = item.data(Qt.UserRole) or []
        if names:
            self.problemClicked.emit(list(names))
