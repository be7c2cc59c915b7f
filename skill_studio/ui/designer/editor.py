"""The designer's code editor: line numbers, diagnostics, highlighting, zoom and find marks."""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QMimeData, QRect, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontDatabase,
    QKeySequence,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from skill_studio.ui.designer.gutter import DOT_WIDTH, SEVERITIES, LineNumberGutter
from skill_studio.ui.designer.highlighter import FileHighlighter, SkillHighlighter
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import SEVERITY_MARKS, current_tokens

INDENT = "  "
ZOOM_RANGE = (-6, 24)


class CodeEditor(QPlainTextEdit):
    """A plain-text editor for skill files; actions are attributes so a window can list them in menus."""

    firstVisibleLineChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._gutter = LineNumberGutter(self)
        self._diagnostics: list[tuple[QTextCursor, str, str]] = []
        self._diag_selections: list[QTextEdit.ExtraSelection] = []
        self._search_ranges: list[tuple[int, int]] = []
        self._search_selections: list[QTextEdit.ExtraSelection] = []
        self._zoom = 0
        self._first_visible = 1
        self._recolour_pending = False
        self._tokens = current_tokens()
        self._highlighter: SkillHighlighter | FileHighlighter | None = None

        self._base_font = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        self._base_font.setPointSizeF(max(self._base_font.pointSizeF(), 10.0))  # -1 when sized in pixels
        self.document().setUndoRedoEnabled(True)
        self.setLineWrapMode(QPlainTextEdit.NoWrap)
        self._make_actions()
        self._apply_font()
        self.set_file_name("SKILL.md")

        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._on_update_request)
        self.cursorPositionChanged.connect(self._refresh_selections)
        self.verticalScrollBar().valueChanged.connect(self._check_first_visible)
        self._apply_colours()

    def _make_actions(self) -> None:
        for name, text, keys, tip, slot in (
                ("find", "&Find…", ["Ctrl+F"], "Find text in the file", None),
                ("replace", "&Replace…", ["Ctrl+H"], "Find and replace text", None),
                ("wrap", "Word &Wrap", ["Alt+Z"], "Wrap long lines", None),
                ("zoom_in", "Zoom &In", ["Ctrl++", "Ctrl+="], "Larger text", self.zoom_in),
                ("zoom_out", "Zoom &Out", ["Ctrl+-"], "Smaller text", self.zoom_out),
                ("zoom_reset", "&Reset Zoom", ["Ctrl+0"], "Default text size", self.reset_zoom)):
            act = QAction(text, self)
            act.setObjectName(name)
            act.setShortcuts([QKeySequence(k) for k in keys])
            act.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            act.setToolTip(tip)
            if slot is not None:
                act.triggered.connect(slot)
            self.addAction(act)
            setattr(self, f"{name}_action", act)
        self.wrap_action.setCheckable(True)
        self.wrap_action.toggled.connect(self.set_word_wrap)

    def set_file_name(self, path: str) -> None:
        """Choose the highlighter: SKILL.md gets the skill highlighter, other files a pygments lexer."""
        name = os.path.basename(path)
        if self._highlighter is not None:
            self._highlighter.setDocument(None)
            self._highlighter.deleteLater()
        if name.lower() == "skill.md":
            self._highlighter = SkillHighlighter(self.document(), self._tokens.dark)
        else:
            self._highlighter = FileHighlighter(self.document(), name, self._tokens.dark)

    @property
    def highlighter(self) -> SkillHighlighter | FileHighlighter:
        return self._highlighter

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        # apply_theme stores the tokens after it sets the palette: read them once the change is over.
        if event.type() in (QEvent.PaletteChange, QEvent.StyleChange) and not self._recolour_pending:
            self._recolour_pending = True
            QTimer.singleShot(0, self, self._apply_colours)

    def _apply_colours(self) -> None:
        self._recolour_pending = False
        self._tokens = current_tokens()
        self._highlighter.set_dark(self._tokens.dark)
        self._build_diag_selections()
        self._build_search_selections()
        self._gutter.update()

    def _apply_font(self) -> None:
        font = QFont(self._base_font)
        font.setPointSizeF(self._base_font.pointSizeF() + self._zoom)
        self.setFont(font)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self._gutter.setFont(font)
        self._update_gutter_width()

    def comfort_width(self, columns: int = 80) -> int:
        """The width that shows ``columns`` characters of the editor's font beside the line numbers."""
        return self.fontMetrics().horizontalAdvance("x" * columns) + self.viewportMargins().left() + 24

    def zoom_level(self) -> int:
        """Points added to (or taken from) the default font size."""
        return self._zoom

    def set_zoom_level(self, level: int) -> None:
        low = max(ZOOM_RANGE[0], 4 - int(self._base_font.pointSizeF()))
        level = max(low, min(ZOOM_RANGE[1], level))
        if level != self._zoom:
            self._zoom = level
            self._apply_font()

    def zoom_in(self) -> None:
        self.set_zoom_level(self._zoom + 1)

    def zoom_out(self) -> None:
        self.set_zoom_level(self._zoom - 1)

    def reset_zoom(self) -> None:
        self.set_zoom_level(0)

    def wheelEvent(self, event) -> None:
        if not event.modifiers() & Qt.ControlModifier:
            return super().wheelEvent(event)
        delta = event.angleDelta().y()
        self.zoom_in() if delta > 0 else self.zoom_out() if delta < 0 else None
        event.accept()

    def set_word_wrap(self, on: bool) -> None:
        self.setLineWrapMode(QPlainTextEdit.WidgetWidth if on else QPlainTextEdit.NoWrap)
        if self.wrap_action.isChecked() != on:
            self.wrap_action.setChecked(on)

    def word_wrap(self) -> bool:
        return self.lineWrapMode() != QPlainTextEdit.NoWrap

    def gutter_width(self) -> int:
        digits = max(2, len(str(max(1, self.blockCount()))))
        return DOT_WIDTH + 4 + self.fontMetrics().horizontalAdvance("9") * digits + 8

    def _update_gutter_width(self, *_args) -> None:
        if self.viewportMargins().left() != self.gutter_width():
            self.setViewportMargins(self.gutter_width(), 0, 0, 0)
            self._layout_gutter()

    def _layout_gutter(self) -> None:
        rect = self.contentsRect()
        self._gutter.setGeometry(QRect(rect.left(), rect.top(), self.gutter_width(), rect.height()))

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        self._check_first_visible()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._layout_gutter()
        self._check_first_visible()

    def set_diagnostics(self, marks: list[tuple[int, str, str]]) -> None:
        """Mark lines with (1-based line, "error"|"warning"|"info", message); lines past the end are ignored."""
        self._diagnostics = []
        for line, severity, message in marks:
            if 1 <= line <= self.blockCount():
                cursor = QTextCursor(self._block(line))
                cursor.movePosition(QTextCursor.EndOfBlock, QTextCursor.KeepAnchor)
                self._diagnostics.append((cursor, severity if severity in SEVERITIES else "info", message))
        self._build_diag_selections()

    def diagnostics_at(self, line: int) -> list[tuple[str, str]]:
        """(severity, message) for the marks now on a 1-based line; they move with edits."""
        return self._marks_by_block().get(line - 1, [])

    def diagnostic_tooltip(self, line: int) -> str:
        return "\n".join(f"{sev.capitalize()}: {msg}" for sev, msg in self.diagnostics_at(line))

    def show_diagnostic_tip(self, line: int, global_pos, widget: QWidget) -> None:
        tip = self.diagnostic_tooltip(line)
        QToolTip.showText(global_pos, literal(tip), widget) if tip else QToolTip.hideText()

    def _marks_by_block(self) -> dict[int, list[tuple[str, str]]]:
        marks: dict[int, list[tuple[str, str]]] = {}
        for cursor, severity, message in self._diagnostics:
            marks.setdefault(cursor.blockNumber(), []).append((severity, message))
        return marks

    def _build_diag_selections(self) -> None:
        colours = SEVERITY_MARKS[self._tokens.dark]
        self._diag_selections = []
        for cursor, severity, _ in sorted(self._diagnostics, key=lambda d: -SEVERITIES.index(d[1])):
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.WaveUnderline)
            fmt.setUnderlineColor(QColor(colours[severity]))
            self._diag_selections.append(_selection(cursor, fmt))
        self._refresh_selections()

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.ToolTip:
            line = self.cursorForPosition(event.pos()).blockNumber() + 1
            self.show_diagnostic_tip(line, event.globalPos(), self.viewport())
            return True
        return super().viewportEvent(event)

    def set_search_marks(self, ranges: list[tuple[int, int]]) -> None:
        """Highlight found text: (start, end) document positions, drawn under the diagnostics."""
        self._search_ranges = list(ranges)
        self._build_search_selections()

    def _build_search_selections(self) -> None:
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(self._tokens.find_match))
        self._search_selections = []
        for start, end in self._search_ranges:
            cursor = QTextCursor(self.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.KeepAnchor)
            self._search_selections.append(_selection(cursor, fmt))
        self._refresh_selections()

    def _refresh_selections(self) -> None:
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(self._tokens.surface_alt))
        fmt.setProperty(QTextFormat.FullWidthSelection, True)
        cursor = self.textCursor()
        cursor.clearSelection()
        self.setExtraSelections([_selection(cursor, fmt), *self._search_selections, *self._diag_selections])
        self._gutter.update()

    def _block(self, line: int):
        return self.document().findBlockByNumber(max(0, min(line, self.blockCount()) - 1))

    def go_to_line(self, line: int) -> None:
        """Put the cursor at the start of a 1-based line (clamped), centre it and take the focus."""
        self.setTextCursor(QTextCursor(self._block(line)))
        self.centerCursor()
        self.setFocus()

    def first_visible_line(self) -> int:
        return self.firstVisibleBlock().blockNumber() + 1

    def scroll_to_line(self, line: int) -> None:
        """Scroll so a 1-based line is at the top (as far as the scroll range allows); the cursor stays."""
        self.verticalScrollBar().setValue(self._block(line).firstLineNumber())

    def _check_first_visible(self, *_args) -> None:
        first = self.first_visible_line()
        if first != self._first_visible:
            self._first_visible = first
            self.firstVisibleLineChanged.emit(first)

    def set_text_keeping_place(self, text: str) -> None:
        """Replace the text as one undoable edit, keeping the cursor in place and the scroll position.

        Only the span that differs is rewritten. A cursor outside it stays on its text; a cursor
        inside it keeps its line and column.
        """
        old = self.document().toRawText().replace("\u2029", "\n")
        if text == old:
            return
        start, end_old, end_new = changed_span(old, text)
        first, last = utf16_len(old[:start]), utf16_len(old[:end_old])
        cursor = self.textCursor()
        inside = first <= cursor.position() <= last
        line, column = cursor.blockNumber(), cursor.positionInBlock()
        vbar, hbar = self.verticalScrollBar().value(), self.horizontalScrollBar().value()
        edit = QTextCursor(self.document())
        edit.beginEditBlock()
        edit.setPosition(first)
        edit.setPosition(last, QTextCursor.KeepAnchor)
        edit.insertText(text[start:end_new])
        edit.endEditBlock()
        if inside:
            block = self.document().findBlockByNumber(min(line, self.blockCount() - 1))
            cursor.setPosition(block.position() + min(column, block.length() - 1))
            self.setTextCursor(cursor)
        self.verticalScrollBar().setValue(vbar)
        self.horizontalScrollBar().setValue(hbar)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Backtab or (
                event.key() == Qt.Key_Tab and not event.modifiers() & (Qt.ControlModifier | Qt.AltModifier)):
            self._tab(dedent=event.key() == Qt.Key_Backtab)
            return
        super().keyPressEvent(event)

    def _tab(self, dedent: bool) -> None:
        """Tab inserts spaces to the next stop, or indents the selected lines; Shift+Tab dedents them."""
        cursor = self.textCursor()
        doc = self.document()
        first = doc.findBlock(cursor.selectionStart())
        last = doc.findBlock(cursor.selectionEnd())
        if last != first and cursor.selectionEnd() == last.position():
            last = last.previous()
        if first == last and not dedent:
            column = cursor.selectionStart() - first.position()
            cursor.insertText(" " * (len(INDENT) - column % len(INDENT)))
            return
        edit = QTextCursor(doc)
        edit.beginEditBlock()
        for number in range(first.blockNumber(), last.blockNumber() + 1):
            block = doc.findBlockByNumber(number)
            edit.setPosition(block.position())
            if dedent:
                spaces = len(block.text()) - len(block.text().lstrip(" "))
                edit.setPosition(block.position() + min(spaces, len(INDENT)), QTextCursor.KeepAnchor)
                edit.removeSelectedText()
            else:
                edit.insertText(INDENT)
        edit.endEditBlock()

    def insertFromMimeData(self, source: QMimeData) -> None:
        if source.hasText():  # plain text only, whatever else the clipboard offers
            self.textCursor().insertText(source.text())

    def createMimeDataFromSelection(self) -> QMimeData:
        data = QMimeData()
        data.setText(self.textCursor().selectedText().replace("\u2029", "\n"))
        return data


def _selection(cursor: QTextCursor, fmt: QTextCharFormat) -> QTextEdit.ExtraSelection:
    selection = QTextEdit.ExtraSelection()
    selection.cursor, selection.format = cursor, fmt
    return selection


def changed_span(old: str, new: str) -> tuple[int, int, int]:
    """(start, end in old, end in new) of the part that differs between two texts."""
    start = len(os.path.commonprefix([old, new]))
    tail = len(os.path.commonprefix([old[start:][::-1], new[start:][::-1]]))
    return start, len(old) - tail, len(new) - tail


def utf16_len(text: str) -> int:
    """Length in UTF-16 units, which is how QTextDocument counts positions."""
    return len(text.encode("utf-16-le")) // 2
