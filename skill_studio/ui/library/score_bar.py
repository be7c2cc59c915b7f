"""A thin horizontal bar showing a value in [0, 1] (scores in the detail panel)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget


class ScoreBar(QWidget):
    """A thin horizontal bar showing a value in [0, 1]."""

    def __init__(self, value: float, color: str, back: str, parent=None):
        super().__init__(parent)
        self._value = max(0.0, min(1.0, value))
        self._color, self._back = QColor(color), QColor(back)
        self.setFixedHeight(6)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)

    @property
    def value(self) -> float:
        return self._value

    def sizeHint(self) -> QSize:
        return QSize(120, 6)

    def minimumSizeHint(self) -> QSize:
        return QSize(40, 6)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.setPen(Qt.NoPen)
        r = QRectF(self.rect())
        p.setBrush(self._back)
        p.drawRoundedRect(r, 3, 3)
        if self._value > 0:
            p.setBrush(self._color)
            p.drawRoundedRect(QRectF(r.x(), r.y(), max(r.height(), r.width() * self._value), r.height()), 3, 3)
