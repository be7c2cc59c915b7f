"""The designer's metadata form: each frontmatter field as a widget, written back one field at a time."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QMargins, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.fields import set_studio_field, studio_fields
from skill_studio.core.format.frontmatter import set_field
from skill_studio.core.format.skillmd import SkillDocument, SkillParseError, parse_document
from skill_studio.core.format.strict import MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH
from skill_studio.ui.designer.form_checks import (
    look_alike_messages,
    name_messages,
    not_in_library,
    parse_error_banner,
    pattern_problem,
    split_tokens,
)
from skill_studio.ui.theme import current_tokens

DEBOUNCE_MS = 400
COMBO_LIMIT = 2000   # more skills than this: the parent field completes names instead of listing them
#: Keys written even when empty (an emptied optional field is removed from the frontmatter).
REQUIRED_KEYS = frozenset({"name", "description"})


class TokenCompleter(QCompleter):
    """Completes the last of several comma-separated names in a line edit."""

    def __init__(self, parent=None):
        super().__init__(parent, caseSensitivity=Qt.CaseSensitivity.CaseInsensitive,
                         filterMode=Qt.MatchFlag.MatchContains)
        self.setModel(QStringListModel(self))
        self._head = ""

    def set_words(self, words: list[str]) -> None:
        words = sorted(set(words), key=str.casefold)
        if words != self.model().stringList():
            self.model().setStringList(words)

    def splitPath(self, path: str) -> list[str]:
        # Called as the user types (not when a completion is highlighted): remember what comes before.
        last = re.split(r"[,\s]", path)[-1]
        self._head = path[: len(path) - len(last)]
        return [last]

    def pathFromIndex(self, index) -> str:
        return self._head + super().pathFromIndex(index) + ", "


class _PlainEdit(QPlainTextEdit):
    """A QPlainTextEdit that says when the user leaves it, as QLineEdit does."""

    editingFinished = Signal()

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.editingFinished.emit()


@dataclass
class _Field:
    key: str                      # frontmatter key, or the studio field's name
    studio: bool
    get: Callable[[], Any]        # the value the widget shows (str, or list for token fields)
    put: Callable[[Any], None]    # show a value without telling anyone
    timer: QTimer                 # the pause after typing before the field is written


class MetadataForm(QWidget):
    """A scrollable form over a SKILL.md's frontmatter; each user edit rewrites only that field's text."""

    textEdited = Signal(str)  # the whole new SKILL.md text after the user changed one field

    def __init__(self, parent: QWidget | None = None, *, library_names: Callable[[], list[str]] = list,
                 library_tags: Callable[[], list[str]] = list, read_only: bool = False):
        super().__init__(parent)
        self._library_names = library_names
        self._library_tags = library_tags
        self._read_only = read_only
        self._doc: SkillDocument | None = None
        self._studio: dict[str, Any] = {}
        self._broken = self._loading = False
        self._library: set[str] = set()
        self._library_source: object = None
        self._near: dict[str, list[str]] = {}   # name typed -> near-duplicate warnings
        self._library_tags_seen: list[str] | None = None
        #: The name the skill is saved under: typing it again is not a clash with the library.
        self.saved_name: str | None = None
        self._fields: dict[str, _Field] = {}
        self._build()
        self._refresh_checks()

    # --- building ----------------------------------------------------------------

    def _build(self) -> None:
        self.banner = QLabel(wordWrap=True, visible=False, objectName="frontmatterErrorBanner",
                             textFormat=Qt.TextFormat.PlainText)
        self.fields_box = QWidget()
        form = QFormLayout(self.fields_box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)

        self.name_edit = self._line("name", "lowercase-with-hyphens")
        self.name_message, self.folder_note = self._note(), self._note()
        form.addRow("&Name", self._stack(self.name_edit, self.name_message, self.folder_note))
        self.description_edit = _PlainEdit()
        self.description_edit.setTabChangesFocus(True)
        self.description_edit.setPlaceholderText("What the skill does, and when an agent should use it.")
        self.description_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 6 + 12)
        self.description_counter = self._note(align_right=True)
        self._add("description", False, self.description_edit.toPlainText, self.description_edit.setPlainText)
        self.description_edit.textChanged.connect(lambda: self._typed("description"))
        self.description_edit.editingFinished.connect(lambda: self._finish("description"))
        form.addRow("&Description", self._stack(self.description_edit, self.description_counter))
        self.license_edit = self._line("license", "e.g. Apache-2.0, or LICENSE.txt")
        form.addRow("&License", self.license_edit)
        self.compatibility_edit = self._line("compatibility", "environment requirements, e.g. Python 3.11, git")
        self.compatibility_counter = self._note(align_right=True)
        form.addRow("&Compatibility", self._stack(self.compatibility_edit, self.compatibility_counter))
        self.allowed_tools_edit = self._line("allowed-tools", "space-separated, e.g. Bash Read Write")
        form.addRow("&Allowed tools", self.allowed_tools_edit)

        studio_head = QLabel("Studio fields")
        studio_head.setProperty("role", "heading")
        studio_head.setToolTip("Written where the file has them; new ones go under metadata, "
                               "so the skill still passes the strict profile")
        form.addRow(studio_head)

        self.tags_edit = self._token_field("tags", "e.g. security, review")
        form.addRow("&Tags", self.tags_edit)
        self.depends_edit = self._token_field("depends_on", "skills this one needs")
        self.depends_note = self._note()
        form.addRow("D&epends on", self._stack(self.depends_edit, self.depends_note))
        self.conflicts_edit = self._token_field("conflicts_with", "skills not to load with this one")
        self.conflicts_note = self._note()
        form.addRow("Con&flicts with", self._stack(self.conflicts_edit, self.conflicts_note))
        self.trigger_edit = self._line("trigger_pattern", "regular expression, e.g. review|is this safe",
                                       studio=True, strip=True)
        self.trigger_edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.trigger_message = self._note()
        form.addRow("T&rigger pattern", self._stack(self.trigger_edit, self.trigger_message))
        self.parent_combo = QComboBox(editable=True, insertPolicy=QComboBox.InsertPolicy.NoInsert)
        self.parent_combo.lineEdit().setPlaceholderText("the skill this one extends")
        self.parent_combo.completer().setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.parent_combo.completer().setFilterMode(Qt.MatchFlag.MatchContains)
        self.parent_note = self._note()
        parent_line = self.parent_combo.lineEdit()
        self._add("parent_skill_id", True, lambda: parent_line.text().strip(), self.parent_combo.setEditText)
        parent_line.textEdited.connect(lambda _t: self._typed("parent_skill_id"))
        parent_line.editingFinished.connect(lambda: self._finish("parent_skill_id"))
        self.parent_combo.activated.connect(lambda _i: self._finish("parent_skill_id"))
        form.addRow("&Parent", self._stack(self.parent_combo, self.parent_note))

        inner = QWidget()
        column = QVBoxLayout(inner)
        column.addWidget(self.banner)
        column.addWidget(self.fields_box)
        column.addStretch(1)
        scroll = QScrollArea(widgetResizable=True, frameShape=QScrollArea.Shape.NoFrame)
        scroll.setWidget(inner)
        QVBoxLayout(self, contentsMargins=QMargins(0, 0, 0, 0)).addWidget(scroll)
        for edit in (*self.fields_box.findChildren(QLineEdit), self.description_edit):
            edit.setReadOnly(self._read_only)
        self.parent_combo.setEnabled(not self._read_only)

    def _note(self, *, align_right: bool = False) -> QLabel:
        label = QLabel(wordWrap=not align_right, visible=False, textFormat=Qt.TextFormat.PlainText)
        label.setAlignment(Qt.AlignmentFlag.AlignRight if align_right else Qt.AlignmentFlag.AlignLeft)
        return label

    @staticmethod
    def _stack(*widgets: QWidget) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box, spacing=2, contentsMargins=QMargins(0, 0, 0, 0))
        for w in widgets:
            lay.addWidget(w)
        return box

    def _add(self, key: str, studio: bool, get: Callable[[], Any], put: Callable[[Any], None]) -> None:
        timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        timer.timeout.connect(lambda: self._commit(key))
        self._fields[key] = _Field(key, studio, get, put, timer)

    def _line(self, key: str, placeholder: str, *, studio: bool = False, strip: bool = False) -> QLineEdit:
        edit = QLineEdit()
        edit.setPlaceholderText(placeholder)
        self._add(key, studio, (lambda: edit.text().strip()) if strip else edit.text, edit.setText)
        edit.textEdited.connect(lambda _t: self._typed(key))
        edit.editingFinished.connect(lambda: self._finish(key))
        return edit

    def _token_field(self, key: str, placeholder: str) -> QLineEdit:
        edit = self._line(key, placeholder + " (comma-separated)", studio=True)
        self._fields[key].get = lambda: split_tokens(edit.text())
        self._fields[key].put = lambda v: edit.setText(", ".join(v))
        completer = TokenCompleter(edit)
        edit.setCompleter(completer)
        # A picked name goes in at once; the line edit has the completion by the time this runs.
        completer.activated.connect(lambda _t: QTimer.singleShot(0, lambda: self._finish(key)))
        return edit

    # --- public ------------------------------------------------------------------

    def set_text(self, skill_md: str) -> None:
        """Show ``skill_md``'s frontmatter (emits nothing). A field the user has a pending edit in,
        or whose shown value already equals the text's, is left alone (cursor and all).
        Frontmatter that does not parse keeps the last good values, disabled, under a banner."""
        try:
            doc = parse_document(skill_md)
        except SkillParseError as e:
            self._broken = True
            self.fields_box.setEnabled(False)
            self._show_banner(parse_error_banner(e))
            return
        self._broken = False
        self.banner.hide()
        self.fields_box.setEnabled(True)
        self._set_doc(doc)
        if self.saved_name is None:
            self.saved_name = str(doc.data.get("name") or "").strip()
        if self._library_tags_seen is None:
            self.refresh_library()
        self.tags_edit.completer().set_words([*self._library_tags_seen, *self._studio["tags"]])
        self._loading = True
        try:
            for f in self._fields.values():
                if f.timer.isActive():
                    continue  # the user's pending edit is applied to this text when it fires
                value = self._value_in_doc(f)
                if f.get() != value:
                    f.put(value)
        finally:
            self._loading = False
        self._refresh_checks()

    def refresh_library(self) -> None:
        """Ask ``library_names`` and ``library_tags`` again (done on the first set_text and when shown)."""
        library = self._library_names()
        if library is self._library_source:  # the same list as last time: nothing to redo
            return
        self._library_source = library
        self._library = set(library)
        self._near = {}
        self._library_tags_seen = list(self._library_tags())
        names = sorted(self._library, key=str.casefold)
        for edit in (self.depends_edit, self.conflicts_edit):
            edit.completer().set_words(names)
        if len(names) > COMBO_LIMIT:  # a big library: the parent field completes instead of listing
            names = []
        if [self.parent_combo.itemText(i) for i in range(self.parent_combo.count())] != names:
            current = self.parent_combo.currentText()
            self.parent_combo.clear()
            self.parent_combo.addItems(names)
            self.parent_combo.setEditText(current)
        self._refresh_checks()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._doc is not None:
            self.refresh_library()

    def text(self) -> str | None:
        """The SKILL.md text the form last showed or wrote (None before set_text)."""
        return self._doc.text if self._doc is not None else None

    def set_saved_name(self, name: str | None) -> None:
        """The name the skill is stored under (after a save or rename)."""
        self.saved_name = name
        self._refresh_checks()

    def flush(self) -> None:
        """Write every pending (debounced) edit now."""
        for key, f in self._fields.items():
            if f.timer.isActive():
                f.timer.stop()
                self._commit(key)

    # --- editing -----------------------------------------------------------------

    def _set_doc(self, doc: SkillDocument) -> None:
        self._doc = doc
        self._studio = studio_fields(doc.data)

    def _value_in_doc(self, f: _Field) -> Any:
        if f.studio:
            return v if isinstance(v := self._studio.get(f.key), list) else (v or "")
        value = self._doc.data.get(f.key) if self._doc is not None else None
        return "" if value is None else str(value)

    def _typed(self, key: str) -> None:
        if not self._loading:
            self._fields[key].timer.start()
            self._refresh_checks()

    def _finish(self, key: str) -> None:
        self._fields[key].timer.stop()
        self._commit(key)

    def _commit(self, key: str) -> None:
        f = self._fields[key]
        if self._doc is None or self._broken or self._read_only:
            return
        value = f.get()
        if value == self._value_in_doc(f):
            return
        try:
            if f.studio:
                new = set_studio_field(self._doc, key, value)
            else:
                empty = value == "" and key not in REQUIRED_KEYS
                new = set_field(self._doc, key, None if empty else value)
            doc = parse_document(new)
        except (ValueError, SkillParseError) as e:
            self._show_banner(f"Could not write {key}: {e}")
            return
        if new == self._doc.text:
            return
        self._set_doc(doc)
        self.textEdited.emit(new)

    def _show(self, label: QLabel, text: str, colour: str) -> None:
        label.setText(text)
        label.setStyleSheet(f"color: {colour};")
        label.setVisible(bool(text))

    def _show_banner(self, text: str) -> None:
        self.banner.setText(text)
        self.banner.show()
        t = current_tokens()
        self.banner.setStyleSheet(f"background: {t.error_back}; color: {t.error}; padding: 8px;"
                                  f" border: 1px solid {t.error}; border-radius: 4px;")

    def _refresh_checks(self) -> None:
        t = current_tokens()
        bad, warn, muted = t.error, t.warning, t.text_muted
        name = self.name_edit.text()
        problems = name_messages(name)
        stripped = name.strip()
        others = self._library - {self.saved_name}
        if stripped and stripped in others:
            problems.append(f"Another skill in the library is already named '{stripped}'")
        elif stripped and not problems:
            if stripped not in self._near:  # checked once per name typed, not on every refresh
                self._near[stripped] = look_alike_messages(stripped, others)
            problems += self._near[stripped]
        self._show(self.name_message, "\n".join(problems), bad)
        if stripped and self.saved_name and stripped != self.saved_name and not problems:
            note = f"The folder will follow the name: {self.saved_name}/ becomes {stripped}/"
        else:
            note = "The skill's folder follows the name"
        self._show(self.folder_note, note, muted)
        n = len(self.description_edit.toPlainText())
        self._show(self.description_counter, f"{n} / {MAX_DESCRIPTION_LENGTH}",
                   bad if n > MAX_DESCRIPTION_LENGTH else muted)
        n = len(self.compatibility_edit.text())
        self._show(self.compatibility_counter, f"{n} / {MAX_COMPATIBILITY_LENGTH}",
                   bad if n > MAX_COMPATIBILITY_LENGTH else muted)
        for edit, label in ((self.depends_edit, self.depends_note), (self.conflicts_edit, self.conflicts_note)):
            self._show(label, not_in_library(split_tokens(edit.text()), self._library), warn)
        parent = self.parent_combo.currentText().strip()
        self._show(self.parent_note, not_in_library([parent] if parent else [], self._library), warn)
        self._show(self.trigger_message, pattern_problem(self.trigger_edit.text().strip()), bad)
        if self.banner.isVisible():
            self._show_banner(self.banner.text())

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._refresh_checks()
