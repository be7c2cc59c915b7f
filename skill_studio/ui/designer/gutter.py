"""The designer editor's gutter: the visible line numbers (the current one brighter) and a dot
for each line with a diagnostic, whose tooltip says what it is."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QWidget

from skill_studio.ui.theme import SEVERITY_MARKS

SEVERITIES = ("error", "warning", "info")
DOT_WIDTH = 10  # gutter width kept for the diagnostic dot


class LineNumberGutter(QWidget):
    """Paints the visible line numbers and diagnostic dots to the left of the editor."""

    def __init__(self, editor) -> None:   # the designer's CodeEditor (which imports this module)
        super().__init__(editor)
        self._editor = editor

    def event(self, event) -> bool:
        if event.type() == QEvent.ToolTip:
            line = self._editor.cursorForPosition(QPoint(0, event.pos().y())).blockNumber() + 1
            self._editor.show_diagnostic_tip(line, event.globalPos(), self)
            return True
        return super().event(event)

    def paintEvent(self, event) -> None:
        e, rect = self._editor, event.rect()
        t = e._tokens
        painter = QPainter(self)
        painter.fillRect(rect, QColor(t.window))
        painter.setPen(QColor(t.border))
        painter.drawLine(self.width() - 1, rect.top(), self.width() - 1, rect.bottom())
        marks = e._marks_by_block()
        colours = SEVERITY_MARKS[t.dark]
        current = e.textCursor().blockNumber()
        block = e.firstVisibleBlock()
        top = round(e.blockBoundingGeometry(block).translated(e.contentOffset()).top())
        line_height = e.fontMetrics().height()
        painter.setRenderHint(QPainter.Antialiasing)
        while block.isValid() and top <= rect.bottom():
            height = round(e.blockBoundingRect(block).height())
            if block.isVisible() and top + height >= rect.top():
                number = block.blockNumber()
                painter.setPen(QColor(t.text if number == current else t.text_muted))
                painter.drawText(0, top, self.width() - 6, line_height, Qt.AlignRight, str(number + 1))
                if number in marks:
                    worst = min(SEVERITIES.index(sev) for sev, _ in marks[number])
                    painter.setPen(Qt.NoPen)
                    painter.setBrush(QColor(colours[SEVERITIES[worst]]))
                    painter.drawEllipse(3, top + (line_height - 7) // 2, 7, 7)
            block = block.next()
            top += height
        painter.end()
