"""The find and replace bar that sits under a code editor: options, match count, marks, replace all."""

from __future__ import annotations

import bisect
import re

import shiboken6
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QTextCursor
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QToolButton, QWidget

from skill_studio.ui.designer.editor import CodeEditor
from skill_studio.ui.theme import current_tokens

#: More marks than this are counted but not painted: each one costs on every cursor move.
MAX_MARKS = 2000
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_FIND_TIP = "Text to find (Enter: next, Shift+Enter: previous, Esc: close)"


def compile_query(query: str, match_case: bool, whole_word: bool, regex: bool) -> re.Pattern:
    """The pattern the bar searches with; raises re.error for a bad regular expression."""
    body = query if regex else re.escape(query)
    if whole_word:
        body = rf"(?<!\w)(?:{body})(?!\w)"
    return re.compile(body, re.MULTILINE | (0 if match_case else re.IGNORECASE))


def _utf16_positions(text: str, matches: list[re.Match]) -> list[tuple[int, int]]:
    """Match spans as QTextDocument positions (UTF-16 units, not code points)."""
    if text.isascii() or _ASTRAL.search(text) is None:
        return [m.span() for m in matches]
    spans, last, offset = [], 0, 0
    for m in matches:
        offset += len(text[last:m.start()].encode("utf-16-le")) // 2
        start = offset
        offset += len(m.group().encode("utf-16-le")) // 2
        spans.append((start, offset))
        last = m.end()
    return spans


class FindReplaceBar(QWidget):
    """Find (and replace) in one CodeEditor; the editor's find/replace actions open it."""

    def __init__(self, editor: CodeEditor, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("findReplaceBar")
        self._editor = editor
        self._pattern: re.Pattern | None = None
        self._matches: list[re.Match] = []
        self._spans: list[tuple[int, int]] = []
        self._starts: list[int] = []
        self._error = ""
        self._stale = True
        self._refresh = QTimer(self, singleShot=True, interval=150)
        self._refresh.timeout.connect(self._research)

        self.find_field = QLineEdit(self, placeholderText="Find", toolTip=_FIND_TIP)
        self.find_field.setClearButtonEnabled(True)
        self.replace_field = QLineEdit(self, placeholderText="Replace",
                                       toolTip="Replacement (with regex: \\1 or \\g<name> for groups)")
        self.prev_button = self._button("↑", "Previous match (Shift+Enter)", self.find_previous)
        self.next_button = self._button("↓", "Next match (Enter)", self.find_next)
        self.case_toggle = self._button("Aa", "Match case", self._options_changed, checkable=True)
        self.word_toggle = self._button("W", "Whole word", self._options_changed, checkable=True)
        self.regex_toggle = self._button(".*", "Regular expression", self._options_changed, checkable=True)
        self.close_button = self._button("✕", "Close (Esc)", self.dismiss)
        self.count_label = QLabel(self)
        self.count_label.setProperty("role", "muted")
        self.count_label.setMinimumWidth(self.count_label.fontMetrics().horizontalAdvance("0000 of 0000"))
        self.replace_button = QPushButton("Replace", self, toolTip="Replace this match and find the next")
        self.replace_button.clicked.connect(self.replace_one)
        self.replace_all_button = QPushButton("Replace all", self, toolTip="Replace every match (one undo step)")
        self.replace_all_button.clicked.connect(self.replace_all)

        grid = QGridLayout(self)
        grid.setContentsMargins(6, 3, 6, 3)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(3)
        grid.addWidget(self.find_field, 0, 0)
        row = QHBoxLayout()
        for w in (self.prev_button, self.next_button, self.case_toggle, self.word_toggle, self.regex_toggle,
                  self.count_label):
            row.addWidget(w)
        row.addStretch(1)
        row.addWidget(self.close_button)
        grid.addLayout(row, 0, 1)
        grid.addWidget(self.replace_field, 1, 0)
        self._replace_buttons = QWidget(self)
        buttons = QHBoxLayout(self._replace_buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.replace_button)
        buttons.addWidget(self.replace_all_button)
        buttons.addStretch(1)
        grid.addWidget(self._replace_buttons, 1, 1)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        self._show_replace(False)

        self.find_field.textChanged.connect(self._options_changed)
        self.find_field.installEventFilter(self)
        self.replace_field.installEventFilter(self)
        editor.document().contentsChanged.connect(self._document_changed)
        editor.find_action.triggered.connect(self.open_find)
        editor.replace_action.triggered.connect(self.open_replace)
        self.addActions([editor.find_action, editor.replace_action])
        self.close_action = QAction("Close Find", editor, shortcut=QKeySequence(Qt.Key_Escape), enabled=False)
        self.close_action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
        self.close_action.triggered.connect(self.dismiss)
        editor.addAction(self.close_action)

    def _button(self, text: str, tip: str, slot, checkable: bool = False) -> QToolButton:
        button = QToolButton(self, text=text, toolTip=tip, checkable=checkable, autoRaise=True)
        (button.toggled if checkable else button.clicked).connect(slot)
        return button

    # -- opening and closing --

    def open_find(self) -> None:
        """Show the bar for finding, seeded with the editor's selection (when on one line)."""
        self._open(replace=False)

    def open_replace(self) -> None:
        """Show the bar with the replace row, seeded with the editor's selection."""
        self._open(replace=True)

    def _open(self, replace: bool) -> None:
        selected = self._editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            query = re.escape(selected) if self.regex_toggle.isChecked() else selected
            if query != self.find_field.text():
                self.find_field.setText(query)
        self._show_replace(replace)
        self.show()
        self.find_field.setFocus()
        self.find_field.selectAll()

    def dismiss(self) -> None:
        """Hide the bar, drop the marks and give the focus back to the editor."""
        self.hide()
        self._editor.setFocus()

    def is_replace_mode(self) -> bool:
        return not self.replace_field.isHidden()

    def _show_replace(self, on: bool) -> None:
        self.replace_field.setVisible(on)
        self._replace_buttons.setVisible(on)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.close_action.setEnabled(True)
        self._research()  # marks are only drawn while the bar shows

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._stale = True
        if shiboken6.isValid(self._editor):
            self.close_action.setEnabled(False)
            self._editor.set_search_marks([])

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.KeyPress and watched in (self.find_field, self.replace_field):
            if event.key() in (Qt.Key_Return, Qt.Key_Enter):
                if event.modifiers() & Qt.ShiftModifier:
                    self.find_previous()
                elif watched is self.replace_field:
                    self.replace_one()
                else:
                    self.find_next()
                return True
            if event.key() == Qt.Key_Escape:
                self.dismiss()
                return True
        return super().eventFilter(watched, event)

    # -- searching --

    def error(self) -> str:
        """The regular-expression (or replacement) error on show, "" when none."""
        return self._error

    def match_count(self) -> int:
        if self._stale:
            self._research()
        return len(self._matches)

    def current_index(self) -> int | None:
        """0-based index of the match the editor has selected, None when the selection is no match."""
        cursor = self._editor.textCursor()
        span = (cursor.selectionStart(), cursor.selectionEnd())
        i = bisect.bisect_left(self._starts, span[0])
        return i if i < len(self._spans) and self._spans[i] == span else None

    def _options_changed(self, *_args) -> None:
        self._research()
        if self._spans:  # search as you type: jump to the first match from where the selection starts
            i = bisect.bisect_left(self._starts, self._editor.textCursor().selectionStart())
            self._select(i % len(self._spans))

    def _document_changed(self) -> None:
        self._stale = True
        if self.isVisible():
            self._refresh.start()

    def _research(self) -> None:
        """Find every match in the document again (no cursor move) and mark them."""
        self._refresh.stop()
        self._stale = False
        self._matches, self._pattern = [], None
        query = self.find_field.text()
        try:
            if query:
                self._pattern = compile_query(query, self.case_toggle.isChecked(), self.word_toggle.isChecked(),
                                              self.regex_toggle.isChecked())
            self._set_error("")
        except re.error as exc:
            self._set_error(f"Invalid regular expression: {exc}")
        text = self._text()
        if self._pattern is not None:
            self._matches = [m for m in self._pattern.finditer(text) if m.end() > m.start()]
        self._spans = _utf16_positions(text, self._matches)
        self._starts = [start for start, _ in self._spans]
        if self.isVisible():
            self._editor.set_search_marks(self._spans[:MAX_MARKS])
        self._update_count()

    def _text(self) -> str:
        return self._editor.document().toRawText().replace("\u2029", "\n")

    def _set_error(self, message: str) -> None:
        self._error = message
        field = self.replace_field if message.startswith("Invalid replacement") else self.find_field
        refused = f"QLineEdit {{ border: 1px solid {current_tokens().error}; }}"
        for f in (self.find_field, self.replace_field):
            f.setStyleSheet(refused if message and f is field else "")
        self.find_field.setToolTip(message if message and field is self.find_field else _FIND_TIP)
        if message:
            field.setToolTip(message)

    def _update_count(self) -> None:
        if self._error:
            text = "Error"
        elif not self.find_field.text():
            text = ""
        elif not self._matches:
            text = "No results"
        else:
            index = self.current_index()
            total = len(self._matches)
            text = f"{index + 1} of {total}" if index is not None else f"{total} found"
        self.count_label.setText(text)
        self.count_label.setToolTip(self._error)

    def _select(self, index: int) -> None:
        start, end = self._spans[index]
        cursor = QTextCursor(self._editor.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.KeepAnchor)
        self._editor.setTextCursor(cursor)
        self._editor.centerCursor()
        self._update_count()

    def find_next(self) -> bool:
        """Select the next match after the selection, wrapping to the first; False when there is none."""
        return self._step(forward=True)

    def find_previous(self) -> bool:
        """Select the match before the selection, wrapping to the last; False when there is none."""
        return self._step(forward=False)

    def _step(self, forward: bool) -> bool:
        if self._stale:
            self._research()
        if not self._spans:
            return False
        cursor = self._editor.textCursor()
        if forward:
            i = bisect.bisect_left(self._starts, cursor.selectionEnd()) % len(self._spans)
        else:
            i = (bisect.bisect_left(self._starts, cursor.selectionStart()) - 1) % len(self._spans)
        self._select(i)
        return True

    # -- replacing --

    def _replacement(self, match: re.Match) -> str:
        text = self.replace_field.text()
        return match.expand(text) if self.regex_toggle.isChecked() else text

    def replace_one(self) -> None:
        """Replace the selected match (if it is one) and move to the next match."""
        if self._stale:
            self._research()
        index = self.current_index()
        if index is None:
            self.find_next()
            return
        try:
            replacement = self._replacement(self._matches[index])
        except (re.error, IndexError) as exc:
            self._set_error(f"Invalid replacement: {exc}")
            self._update_count()
            return
        self._editor.textCursor().insertText(replacement)
        self._research()
        self.find_next()

    def replace_all(self) -> int:
        """Replace every match as one undo step; returns how many were replaced."""
        if self._stale:
            self._research()
        if self._pattern is None or not self._matches:
            return 0
        count = 0

        def substitute(match: re.Match) -> str:
            nonlocal count
            if match.end() == match.start():
                return ""
            count += 1
            return self._replacement(match)

        try:
            text = self._pattern.sub(substitute, self._text())
        except (re.error, IndexError) as exc:
            self._set_error(f"Invalid replacement: {exc}")
            self._update_count()
            return 0
        self._editor.set_text_keeping_place(text)
        self._research()
        self.count_label.setText(f"Replaced {count}")
        self.count_label.setToolTip(f"{count} replaced in one step (undo restores them all)")
        return count
