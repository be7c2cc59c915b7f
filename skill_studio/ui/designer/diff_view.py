"""A diff of two texts shown: side by side (aligned, tinted, changed characters emphasised) or unified.
The rows come from :mod:`.diff_rows`."""

from __future__ import annotations

import difflib

from PySide6.QtCore import QRect, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QPainter
from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from skill_studio.ui.designer.diff_rows import (
    ADDED,
    EQUAL,
    FILLER,
    HEADER,
    HUNK,
    REMOVED,
    Side,
    side_by_side,
    split_lines,
    unified_lines,
    unified_side,
)
from skill_studio.ui.theme import DIFF_COLOURS, Tokens, current_tokens

__all__ = ["MODES", "DiffPane", "DiffView"]

MODES = ("side", "unified")


def _colours(t: Tokens) -> dict[str, QColor]:
    c = DIFF_COLOURS[t.dark]
    pairs = {REMOVED: c["removed"], ADDED: c["added"], REMOVED + "+": c["removed_word"], ADDED + "+": c["added_word"],
             HUNK: c["hunk"], HEADER: t.surface_alt, FILLER: t.surface_alt}
    return {k: QColor(v) for k, v in pairs.items()}


class _Gutter(QWidget):
    def __init__(self, pane: DiffPane):
        super().__init__(pane)
        self._pane = pane

    def paintEvent(self, event) -> None:
        self._pane.paint_gutter(event.rect())


class DiffPane(QPlainTextEdit):
    """A read-only text view whose rows are tinted by kind, with line numbers in a gutter."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.TextSelectableByKeyboard)
        self.side = Side()
        self._gutter = _Gutter(self)
        self.updateRequest.connect(self._on_update_request)

    def show_side(self, side: Side) -> None:
        """Show these rows (replacing what was shown)."""
        self.side = side
        self.setPlainText("\n".join(side.lines))
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        self._place_gutter()

    def gutter_width(self) -> int:
        widest = max((len(n) for n in self.side.numbers), default=0)
        return self.fontMetrics().horizontalAdvance("9") * widest + 12 if widest else 0

    def _place_gutter(self) -> None:
        cr = self.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_gutter()

    def _on_update_request(self, rect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def _visible_rows(self, bottom: float):
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        while block.isValid():
            geo = self.blockBoundingGeometry(block).translated(offset)
            if geo.top() > bottom:
                break
            yield block, geo
            block = block.next()

    def paint_gutter(self, rect: QRect) -> None:
        t = current_tokens()
        painter = QPainter(self._gutter)
        painter.fillRect(rect, QColor(t.surface_alt))
        painter.setPen(QColor(t.text_muted))
        painter.setFont(self.font())
        width = self._gutter.width() - 6
        for block, geo in self._visible_rows(rect.bottom()):
            n = block.blockNumber()
            if n < len(self.side.numbers) and self.side.numbers[n]:
                painter.drawText(QRectF(0, geo.top(), width, geo.height()), Qt.AlignRight | Qt.AlignVCenter,
                                 self.side.numbers[n])
        painter.end()

    def paintEvent(self, event) -> None:
        # Row tints and character emphasis go under the text the base class draws.
        colours = _colours(current_tokens())
        painter = QPainter(self.viewport())
        width = self.viewport().width()
        hatch = QBrush(QColor(current_tokens().border), Qt.BDiagPattern)
        for block, geo in self._visible_rows(event.rect().bottom()):
            row = block.blockNumber()
            kind = self.side.kinds[row] if row < len(self.side.kinds) else EQUAL
            band = QRectF(0, geo.top(), width, geo.height())
            if kind in colours:
                painter.fillRect(band, colours[kind])
            if kind == FILLER:
                painter.setBrushOrigin(0, int(geo.top()))
                painter.fillRect(band, hatch)
            spans = self.side.spans.get(row)
            if spans and kind + "+" in colours:
                layout = block.layout()
                for start, end in spans:
                    line = layout.lineForTextPosition(start)
                    if not line.isValid():
                        continue
                    x1, x2 = line.cursorToX(start)[0], line.cursorToX(end)[0]
                    painter.fillRect(QRectF(geo.left() + x1, geo.top() + line.y(), max(x2 - x1, 2.0),
                                            line.height()), colours[kind + "+"])
        painter.end()
        super().paintEvent(event)


class DiffView(QWidget):
    """Two texts compared, side by side or as a unified diff, with a toggle between the two."""

    modeChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, mode: str = "side"):
        super().__init__(parent)
        self._mode = mode if mode in MODES else "side"
        self._reset([], [], ("before", "after"), "Nothing to compare")
        self.side_button, self.unified_button = QToolButton(), QToolButton()
        group = QButtonGroup(self)
        for button, name, text in ((self.side_button, "side", "Side by side"),
                                   (self.unified_button, "unified", "Unified")):
            button.setText(text)
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setProperty("diffMode", name)
            button.clicked.connect(self._mode_button_clicked)
            group.addButton(button)
        self.stats_label = QLabel()
        self.stats_label.setProperty("role", "muted")

        self.left_label, self.right_label = (QLabel(textFormat=Qt.TextFormat.PlainText) for _ in range(2))
        for label in (self.left_label, self.right_label):
            label.setContentsMargins(4, 0, 4, 0)
        self.left_pane, self.right_pane, self.unified_pane = DiffPane(), DiffPane(), DiffPane()
        for a, b in ((self.left_pane, self.right_pane), (self.right_pane, self.left_pane)):
            a.verticalScrollBar().valueChanged.connect(b.verticalScrollBar().setValue)
            a.horizontalScrollBar().valueChanged.connect(b.horizontalScrollBar().setValue)
        side_page = QWidget()
        grid = QGridLayout(side_page)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(2)
        for col, (label, pane) in enumerate(((self.left_label, self.left_pane),
                                             (self.right_label, self.right_pane))):
            grid.addWidget(label, 0, col)
            grid.addWidget(pane, 1, col)
            grid.setColumnStretch(col, 1)
        self.message_label = QLabel(textFormat=Qt.TextFormat.PlainText)
        self.message_label.setAlignment(Qt.AlignCenter)
        self.message_label.setWordWrap(True)
        self.message_label.setProperty("role", "muted")
        self.stack = QStackedWidget()
        for page in (side_page, self.unified_pane, self.message_label):
            self.stack.addWidget(page)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for w in (self.side_button, self.unified_button):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(self.stats_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self._refresh()

    # --- public -------------------------------------------------------------

    def set_texts(self, old: str, new: str, old_label: str = "before", new_label: str = "after") -> None:
        """Compare ``old`` (left, '-') with ``new`` (right, '+')."""
        old_lines, new_lines = split_lines(old), split_lines(new)
        message = ""
        if old == new:
            message = f"No differences between {old_label} and {new_label}"
        elif old_lines == new_lines:
            message = f"No differences between {old_label} and {new_label} except line endings"
        self._reset(old_lines, new_lines, (old_label, new_label), message)
        self._refresh()

    def clear(self, message: str = "Nothing to compare") -> None:
        """Show a sentence instead of a diff."""
        self._reset([], [], self._labels, message)
        self._refresh()

    def set_mode(self, mode: str) -> None:
        """'side' (two aligned panes) or 'unified' (one pane with +/- lines). Raises ValueError."""
        if mode not in MODES:
            raise ValueError(f"unknown diff mode {mode!r}; expected 'side' or 'unified'")
        if mode != self._mode:
            self._mode = mode
            self._refresh()
            self.modeChanged.emit(mode)

    def mode(self) -> str:
        return self._mode

    def labels(self) -> tuple[str, str]:
        """The (old, new) labels of the texts compared."""
        return self._labels

    def message(self) -> str:
        """The sentence shown instead of a diff ('No differences ...'), or '' while a diff shows."""
        return self._message if self.stack.currentWidget() is self.message_label else ""

    def unified_text(self) -> str:
        """The unified diff (difflib's format, 3 lines of context), lines joined with '\\n'."""
        if self._unified is None:
            self._unified = unified_lines(self._old, self._new, *self._labels, matcher=self._get_matcher())
        return "\n".join(self._unified)

    # --- internals ----------------------------------------------------------

    def _reset(self, old: list[str], new: list[str], labels: tuple[str, str], message: str) -> None:
        self._old, self._new, self._labels, self._message = old, new, labels, message
        self._unified: list[str] | None = None
        self._matcher: difflib.SequenceMatcher | None = None
        self._side_done = self._unified_done = False

    def _get_matcher(self) -> difflib.SequenceMatcher:
        # One line matcher per pair of texts serves both modes (matching is the costly part).
        if self._matcher is None:
            self._matcher = difflib.SequenceMatcher(None, self._old, self._new)
        return self._matcher

    def _mode_button_clicked(self) -> None:
        self.set_mode(self.sender().property("diffMode"))

    def _refresh(self) -> None:
        self.side_button.setChecked(self._mode == "side")
        self.unified_button.setChecked(self._mode == "unified")
        if self._message:
            self.message_label.setText(self._message)
            self.stack.setCurrentWidget(self.message_label)
            self.stats_label.setText("")
            return
        if self._mode == "side" and not self._side_done:
            left, right = side_by_side(self._old, self._new, self._get_matcher())
            self.left_pane.show_side(left)
            self.right_pane.show_side(right)
            self.left_label.setText(self._labels[0])
            self.right_label.setText(self._labels[1])
            self._side_done = True
        elif self._mode == "unified" and not self._unified_done:
            self.unified_text()
            self.unified_pane.show_side(unified_side(self._unified))
            self._unified_done = True
        self.stack.setCurrentIndex(MODES.index(self._mode))
        changed = [op for op in self._get_matcher().get_opcodes() if op[0] != "equal"]
        added, removed = sum(j2 - j1 for *_, j1, j2 in changed), sum(i2 - i1 for _, i1, i2, *_ in changed)
        self.stats_label.setText(f"+{added} \u2212{removed} lines")
