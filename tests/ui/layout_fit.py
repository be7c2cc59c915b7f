"""What a person sees as broken in a laid-out window: a visible widget cut off by its parent, a label
or button narrower than its text needs without eliding it, a window whose minimum size is larger
than the screen it must fit. The GUI tests walk views with :func:`fit_problems`."""

from __future__ import annotations

import re

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QMenuBar,
    QScrollBar,
    QSizeGrip,
    QSplitter,
    QSplitterHandle,
    QTabBar,
    QToolBar,
    QWidget,
)

#: The narrowest a pane beside another may be (across, down) before it counts as collapsed.
PANE_FLOOR = (160, 80)
#: Pixels a widget may lack before it counts as cut (rounding, frames drawn outside).
SLACK = 3


def _path(widget: QWidget) -> str:
    parts = []
    w: QWidget | None = widget
    while w is not None and len(parts) < 4:
        parts.append(w.objectName() or type(w).__name__)
        w = w.parentWidget()
    return "/".join(reversed(parts))


def _inside_scrolled_content(widget: QWidget) -> bool:
    """Whether the widget lies in the content of a scroll area (which may be larger than the view)."""
    w = widget.parentWidget()
    while w is not None:
        if isinstance(w.parentWidget(), QAbstractScrollArea) and w is w.parentWidget().viewport():
            return True
        if isinstance(w, (QToolBar, QTabBar, QMenuBar)):   # these hide or scroll what does not fit
            return True
        w = w.parentWidget()
    return False


def _text_needs(widget: QWidget) -> tuple[str, int] | None:
    """(text, width it needs) for a widget that shows one line of text and must show it whole."""
    if isinstance(widget, QLabel):
        if widget.wordWrap() or not widget.text() or widget.pixmap() is not None and not widget.pixmap().isNull():
            return None
        if widget.textFormat() == Qt.RichText or widget.textFormat() == Qt.AutoText and re.search(
                r"<[a-zA-Z/!]", widget.text()):
            return None   # rich text lays itself out; its width is the layout's
        text = widget.text()
        if "\n" in text:
            text = max(text.split("\n"), key=len)
        margins = widget.contentsMargins()
        need = widget.fontMetrics().horizontalAdvance(text) + margins.left() + margins.right() \
            + 2 * widget.margin() + 2 * widget.frameWidth()
        return text, need
    if isinstance(widget, QAbstractButton) and widget.text():
        return widget.text(), widget.minimumSizeHint().width() if widget.minimumSizeHint().isValid() \
            else widget.sizeHint().width()
    return None


def widget_problems(widget: QWidget) -> list[str]:
    """What is wrong with one visible widget where it stands."""
    problems: list[str] = []
    parent = widget.parentWidget()
    if parent is not None and widget.isVisible() and not widget.isWindow() \
            and not isinstance(widget, (QScrollBar, QSplitterHandle, QSizeGrip)) \
            and not _inside_scrolled_content(widget):
        inside = parent.rect().adjusted(-SLACK, -SLACK, SLACK, SLACK)
        geometry: QRect = widget.geometry()
        if geometry.width() > 0 and geometry.height() > 0 and not inside.contains(geometry):
            problems.append(f"{_path(widget)} at {geometry.getRect()} is cut by its parent "
                            f"({parent.width()}x{parent.height()})")
    if widget.isVisible() and not _inside_scrolled_content(widget):
        need = _text_needs(widget)
        if need is not None and widget.width() + SLACK < need[1]:
            text, width = need
            problems.append(f"{_path(widget)} shows {text!r} in {widget.width()} px; it needs {width} px")
        if isinstance(widget, QLineEdit) and widget.placeholderText() and not widget.text():
            margins = widget.textMargins()
            need_px = widget.fontMetrics().horizontalAdvance(widget.placeholderText()) \
                + margins.left() + margins.right() + 12
            if widget.width() < min(need_px, 120):   # a search box too narrow to say what it is for
                problems.append(f"{_path(widget)} is {widget.width()} px wide: its hint "
                                f"{widget.placeholderText()!r} cannot be read")
        if isinstance(widget, (QComboBox, QAbstractSpinBox)) and widget.width() + SLACK < min(
                widget.minimumSizeHint().width(), 80):
            problems.append(f"{_path(widget)} is {widget.width()} px wide, below the "
                            f"{widget.minimumSizeHint().width()} px it needs")
    if isinstance(widget, QSplitter) and widget.isVisible():
        across = widget.orientation() == Qt.Horizontal
        floor = PANE_FLOOR[0] if across else PANE_FLOOR[1]
        for i in range(widget.count()):
            pane = widget.widget(i)
            size = pane.width() if across else pane.height()
            if pane.isVisible() and 0 < size < floor:
                problems.append(f"{_path(pane)} is squeezed to {size} px in its splitter "
                                f"(less than {floor}): hide it or give it room")
    return problems


#: The smallest screen every view must fit.
SMALL_SCREEN = QSize(1024, 700)


def fit_problems(root: QWidget, screen: QSize | None = None) -> list[str]:
    """Every problem of ``root`` (a window or a page) and its visible children, on ``screen``
    (the small one when not given)."""
    screen = SMALL_SCREEN if screen is None else screen
    problems: list[str] = []
    if root.isWindow():
        hint = root.minimumSizeHint().expandedTo(root.minimumSize())
        if hint.width() > screen.width() or hint.height() > screen.height():
            problems.append(f"{_path(root)} needs at least {hint.width()}x{hint.height()}, more than the "
                            f"{screen.width()}x{screen.height()} screen")
        if root.width() > screen.width() or root.height() > screen.height():
            problems.append(f"{_path(root)} grew to {root.width()}x{root.height()}, past the "
                            f"{screen.width()}x{screen.height()} screen")
    for widget in [root, *root.findChildren(QWidget)]:
        if widget.isWindow() and widget is not root:
            continue
        if not widget.isVisibleTo(root):
            continue
        problems.extend(widget_problems(widget))
    return problems
