"""A one-line label that gives up width gracefully: it ends in '…' (or leaves out its middle, for
paths) when narrower than its text, and then its tooltip holds the whole text. Its minimum width is
small, so a long text never makes the window wider."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from skill_studio.ui.safe_text import literal


class ElidedLabel(QLabel):
    """``full_text()`` is the whole text; ``text()`` what is shown. ``mode`` is where the '…' goes."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *, mode: Qt.TextElideMode = Qt.ElideRight,
                 minimum: int = 40):
        super().__init__(parent)
        self._full = ""
        self._mode = mode
        self._minimum = minimum
        self._own_tip = ""
        self.setTextFormat(Qt.PlainText)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Preferred)
        self.setText(text)

    def full_text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()
        self.updateGeometry()

    def set_tip(self, tip: str) -> None:
        """A tooltip of the label's own, shown when the text is whole (after the whole text otherwise)."""
        self._own_tip = tip
        self._elide()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        m = self.contentsMargins()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + m.left() + m.right() + 2, hint.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self._minimum, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.FontChange, QEvent.StyleChange):
            self._elide()

    def is_elided(self) -> bool:
        return super().text() != self._full

    def _elide(self) -> None:
        m = self.contentsMargins()
        width = max(0, self.width() - m.left() - m.right())
        shown = self.fontMetrics().elidedText(self._full, self._mode, width)
        super().setText(shown)
        tip = self._full if shown != self._full and self._full not in self._own_tip else ""
        self.setToolTip(literal("\n\n".join(t for t in (tip, self._own_tip) if t)))
