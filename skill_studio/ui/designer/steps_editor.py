"""The designer's steps editor: the frontmatter's ordered `steps` list, reordered and edited in place."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QStyledItemDelegate,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.fields import set_studio_field, steps_from_body, steps_location, studio_fields
from skill_studio.core.format.skillmd import SkillDocument, SkillParseError, parse_document
from skill_studio.ui.designer.flow import FlowLayout
from skill_studio.ui.designer.form_checks import parse_error_banner
from skill_studio.ui.theme import current_tokens

BODY_NOTE = "These steps come from the body's 'Steps' section; edit them there."
NEW_KEY_NOTE = ("Steps you add are written under 'metadata' as one numbered list ('steps'), "
                "which the strict profile accepts.")
TOP_LEVEL_NOTE = ("This file keeps its steps in a top-level 'steps:' list; the strict profile reports "
                  "it as an unexpected field (S010).")


class _NumberedDelegate(QStyledItemDelegate):
    """Shows each step whole with its number; edits it in a multi-line editor (Enter keeps the
    text, Shift+Enter starts a new line, Escape drops the change)."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        prefix = f"{index.row() + 1}.  "
        hang = " " * (len(prefix) + 1)  # later lines of a step sit under its text, not its number
        # The display text has its line breaks as line separators already.
        option.text = prefix + option.text.replace("\u2028", "\u2028" + hang)

    def createEditor(self, parent, option, index) -> QWidget:
        editor = QPlainTextEdit(parent)
        editor.setTabChangesFocus(True)
        editor.setToolTip("Enter keeps the step; Shift+Enter starts a new line; Escape cancels")
        return editor

    def setEditorData(self, editor, index) -> None:
        if isinstance(editor, QPlainTextEdit):
            editor.setPlainText(index.data(Qt.ItemDataRole.EditRole) or "")
            editor.selectAll()
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor, model, index) -> None:
        if isinstance(editor, QPlainTextEdit):
            model.setData(index, editor.toPlainText(), Qt.ItemDataRole.EditRole)
        else:
            super().setModelData(editor, model, index)

    def updateEditorGeometry(self, editor, option, index) -> None:
        rect = option.rect
        lines = max(4, (index.data(Qt.ItemDataRole.EditRole) or "").count("\n") + 2)
        rect.setHeight(max(rect.height(), editor.fontMetrics().lineSpacing() * lines + 12))
        editor.setGeometry(rect)

    def eventFilter(self, editor, event) -> bool:
        if isinstance(editor, QPlainTextEdit) and event.type() == QEvent.Type.KeyPress \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                editor.insertPlainText("\n")
            else:
                self.commitData.emit(editor)
                self.closeEditor.emit(editor, QStyledItemDelegate.EndEditHint.NoHint)
            return True
        return super().eventFilter(editor, event)


class _StepList(QListWidget):
    """The list of steps; Delete removes the current one."""

    deletePressed = Signal()

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Delete and self.state() != QAbstractItemView.State.EditingState:
            self.deletePressed.emit()
            return
        super().keyPressEvent(event)


class StepsEditor(QWidget):
    """Add, edit, remove and reorder the steps; each change rewrites only the `steps` key of SKILL.md."""

    textEdited = Signal(str)  # the whole new SKILL.md text after the user changed the steps

    def __init__(self, parent: QWidget | None = None, *, read_only: bool = False):
        super().__init__(parent)
        self._read_only = read_only
        self._doc: SkillDocument | None = None
        self._actions: list[str] = []     # the steps the text holds
        self._from_body = False
        self._loading = False
        self._sync_timer = QTimer(self)
        self._sync_timer.setSingleShot(True)
        self._sync_timer.setInterval(0)  # after a drop's insert and remove have both happened
        self._sync_timer.timeout.connect(self._sync)

        self.banner = QLabel()
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setWordWrap(True)
        self.banner.hide()
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setProperty("role", "muted")
        self.note.hide()

        self.list = _StepList()
        self.list.setItemDelegate(_NumberedDelegate(self.list))
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.deletePressed.connect(self.remove_current)
        self.list.currentRowChanged.connect(self._update_buttons)
        self.list.itemDelegate().closeEditor.connect(self._editor_closed)
        model = self.list.model()
        for sig in (model.rowsMoved, model.rowsRemoved, model.rowsInserted, model.dataChanged):
            sig.connect(self._schedule_sync)

        self.add_button = QPushButton("Add")
        self.add_button.setToolTip("Add a step after the selected one")
        self.edit_button = QPushButton("Edit")
        self.edit_button.setToolTip("Edit the selected step (F2 or double-click); Shift+Enter starts "
                                    "a new line in it")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected step (Delete)")
        self.up_button = QPushButton("Move up")
        self.down_button = QPushButton("Move down")
        self.copy_button = QPushButton("Copy into frontmatter")
        self.copy_button.setToolTip("Write the body's steps, each one whole, into the frontmatter "
                                    "(under 'metadata'), where they can be edited and reordered here")
        self.add_button.clicked.connect(lambda: self.add_step())
        self.edit_button.clicked.connect(self.edit_current)
        self.remove_button.clicked.connect(self.remove_current)
        self.up_button.clicked.connect(lambda: self.move_current(-1))
        self.down_button.clicked.connect(lambda: self.move_current(1))
        self.copy_button.clicked.connect(self._copy_body_steps)
        self._edit_buttons = (self.add_button, self.edit_button, self.remove_button,
                              self.up_button, self.down_button)

        buttons = FlowLayout()   # wraps in a narrow pane rather than widening the window
        buttons.add(*self._edit_buttons, self.copy_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.note)
        layout.addLayout(buttons)
        self._restyle()
        self._update_buttons()

    # --- public ------------------------------------------------------------------

    def set_text(self, skill_md: str) -> None:
        """Show the steps of ``skill_md`` (emits nothing). Unparseable frontmatter keeps the
        last steps, disabled, under a banner."""
        try:
            doc = parse_document(skill_md)
        except SkillParseError as e:
            self.banner.setText(parse_error_banner(e))
            self.banner.show()
            self.list.setEnabled(False)
            self._update_buttons()
            return
        self.banner.hide()
        self.list.setEnabled(True)
        self._doc = doc
        actions = [s["action"] for s in studio_fields(doc.data)["steps"]]
        where = steps_location(doc.data)
        from_body = False
        if not actions and where is None:
            body_steps = [s["action"] for s in steps_from_body(doc.body)]
            from_body = bool(body_steps)
            actions = body_steps if from_body else []
        self._from_body = from_body
        self._actions = [] if from_body else actions
        if self.steps() != actions or self._from_body != from_body or self.list.count() != len(actions):
            self._fill(actions)
        if from_body:
            self.note.setText(BODY_NOTE)
        elif where is None:
            self.note.setText(NEW_KEY_NOTE)
        elif where[0] is None and isinstance(doc.data["steps"], list):
            self.note.setText(TOP_LEVEL_NOTE)
        elif not isinstance(doc.data[where[1]] if where[0] is None else doc.data["metadata"][where[1]],
                            (list, str)):
            self.note.setText("The 'steps' value is not a list; changing the steps here replaces it.")
        else:
            self.note.setText("")
        self.note.setVisible(bool(self.note.text()) and not self._read_only)
        self._update_buttons()

    def steps(self) -> list[str]:
        """The steps as shown (blank ones being typed are left out)."""
        texts = (self.list.item(i).text().strip() for i in range(self.list.count()))
        return [t for t in texts if t]

    def is_from_body(self) -> bool:
        return self._from_body

    def add_step(self, text: str | None = None) -> None:
        """Add a step after the current one: ``text`` at once, or a blank one opened for editing."""
        if not self._editable():
            return
        row = self.list.currentRow() + 1 if self.list.currentRow() >= 0 else self.list.count()
        item = self._item(text or "")
        self.list.insertItem(row, item)
        self.list.setCurrentRow(row)
        if not text:
            self.list.editItem(item)

    @Slot()
    def edit_current(self) -> None:
        item = self.list.currentItem()
        if item is not None and self._editable():
            self.list.editItem(item)

    @Slot()
    def remove_current(self) -> None:
        row = self.list.currentRow()
        if row >= 0 and self._editable():
            self.list.takeItem(row)

    def move_current(self, delta: int) -> None:
        row = self.list.currentRow()
        target = row + delta
        if row < 0 or not 0 <= target < self.list.count() or not self._editable():
            return
        item = self.list.takeItem(row)
        self.list.insertItem(target, item)
        self.list.setCurrentRow(target)

    # --- internals ---------------------------------------------------------------

    def _editable(self) -> bool:
        return self._doc is not None and not self._read_only and not self._from_body and self.list.isEnabled()

    def _item(self, text: str) -> QListWidgetItem:
        item = QListWidgetItem(text)
        flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
        if not self._read_only and not self._from_body:
            flags |= Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled
        item.setFlags(flags)
        return item

    def _fill(self, actions: list[str]) -> None:
        self._loading = True
        try:
            row = self.list.currentRow()
            self.list.clear()
            for action in actions:
                self.list.addItem(self._item(action))
            if actions:
                self.list.setCurrentRow(min(max(row, 0), len(actions) - 1))
        finally:
            self._loading = False
        self._sync_timer.stop()
        movable = not self._read_only and not self._from_body
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove if movable
                                  else QAbstractItemView.DragDropMode.NoDragDrop)

    @Slot()
    def _schedule_sync(self, *_args) -> None:
        if not self._loading:
            self._sync_timer.start()

    @Slot()
    def _editor_closed(self, *_args) -> None:
        # A step left blank (a new one abandoned, or one emptied) goes away.
        for row in reversed(range(self.list.count())):
            if not self.list.item(row).text().strip():
                self.list.takeItem(row)
        self._schedule_sync()

    @Slot()
    def _sync(self) -> None:
        if not self._editable():
            return
        steps = self.steps()
        if steps == self._actions:
            return
        self._write(steps)

    def _write(self, steps: list[str]) -> None:
        try:
            new = set_studio_field(self._doc, "steps", steps)
            doc = parse_document(new)
        except ValueError as e:   # SkillParseError too: a frontmatter the steps cannot be written into
            self.note.setText(f"Could not write the steps: {e}")
            self.note.show()
            return
        if new == self._doc.text:
            return
        self._doc = doc
        self._actions = list(steps)
        self._update_buttons()
        self.textEdited.emit(new)

    @Slot()
    def _copy_body_steps(self) -> None:
        if self._doc is None or not self._from_body or self._read_only:
            return
        steps = [s["action"] for s in steps_from_body(self._doc.body)]
        self._from_body = False
        self.note.hide()
        self._fill(steps)
        self._write(steps)

    @Slot()
    def _update_buttons(self, *_args) -> None:
        editable = self._editable()
        row, count = self.list.currentRow(), self.list.count()
        for b in self._edit_buttons:
            b.setVisible(not self._read_only and not self._from_body)
        self.add_button.setEnabled(editable)
        self.edit_button.setEnabled(editable and row >= 0)
        self.remove_button.setEnabled(editable and row >= 0)
        self.up_button.setEnabled(editable and row > 0)
        self.down_button.setEnabled(editable and 0 <= row < count - 1)
        self.copy_button.setVisible(self._from_body and not self._read_only)

    def _restyle(self) -> None:
        t = current_tokens()
        self.banner.setStyleSheet(f"color: {t.error};")
        self.list.setStyleSheet(f"QListWidget {{ selection-background-color: {t.selection}; "
                                f"selection-color: {t.text}; }}")

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()
