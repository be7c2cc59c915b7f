"""The designer's toolbar: save with an optional note of what changed, undo and redo for the mouse,
the editor's find and view actions, and which of the editor, the preview and the details are shown.
Its actions are the designer's (``designer.save_action`` and the rest), with their shortcuts in the
designer's reach."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLineEdit, QToolBar

#: The most of the toolbar the note box takes; it gives way first when the toolbar is narrow.
NOTE_WIDTH = 260


class DesignerToolbar(QToolBar):
    def __init__(self, designer) -> None:
        super().__init__(designer)
        self.designer = d = designer
        self.setToolButtonStyle(Qt.ToolButtonTextOnly)
        a, editor = self._action, d.editor
        # Ctrl+S is the window's File ▸ Save, which saves the designer in front.
        d.save_action = a("&Save", d.save, None, "Save a new version now (Ctrl+S), with the note beside it")
        self.note = QLineEdit(self)
        self.note.setObjectName("saveNote")
        self.note.setPlaceholderText("What changed (optional)")
        self.note.setToolTip("A short note kept with the next saved version (optional). Enter saves.")
        self.note.setClearButtonEnabled(True)
        self.note.setMaximumWidth(NOTE_WIDTH)
        self.note.setMinimumWidth(self.note.fontMetrics().horizontalAdvance(self.note.placeholderText()) + 40)
        self.note.returnPressed.connect(d.save)
        d.preview_action = a("&Preview", self._preview_toggled, "Ctrl+Shift+P", "Show or hide the preview",
                             checkable=True)
        d.preview_action.setChecked(True)
        d.preview_only_action = a("Preview &full width", self._preview_full_toggled, None,
                                  "Show only the preview", checkable=True)
        d.side_action = a("&Details", self._side_toggled, "Ctrl+Shift+D",
                          "Show or hide the details: metadata, steps, files, history and run. "
                          "In a narrow window they open in the preview's place.", checkable=True)
        d.side_action.setChecked(True)
        d.validate_action = a("Chec&k now", d._validate_now, "F7", "Validate the text now")
        # Undo and redo keep their keys in the editor (Ctrl+Z, Ctrl+Shift+Z); these are for the mouse.
        d.undo_action = a("&Undo", editor.undo, None, "Undo (Ctrl+Z)")
        d.redo_action = a("&Redo", editor.redo, None, "Redo (Ctrl+Shift+Z)")
        d.undo_action.setEnabled(False)
        d.redo_action.setEnabled(False)
        editor.undoAvailable.connect(d.undo_action.setEnabled)
        editor.redoAvailable.connect(d.redo_action.setEnabled)
        self.addAction(d.save_action)
        self.note_action = self.addWidget(self.note)
        self.addSeparator()
        for action in (d.undo_action, d.redo_action):
            self.addAction(action)
        self.addSeparator()
        for action in (editor.find_action, editor.replace_action, editor.wrap_action,
                       editor.zoom_out_action, editor.zoom_in_action):
            self.addAction(action)
        self.addSeparator()
        for action in (d.preview_action, d.preview_only_action, d.side_action):
            self.addAction(action)
        if d.session.read_only:
            d.save_action.setEnabled(False)
            self.note_action.setVisible(False)
            editor.replace_action.setEnabled(False)  # the store refuses it anyway: don't offer it

    def _action(self, text: str, slot, shortcut=None, tip: str = "", checkable: bool = False) -> QAction:
        d = self.designer
        action = QAction(text, d)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            d.addAction(action)
        action.setToolTip(tip or text.replace("&", ""))
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        return action

    # --- which views are shown ------------------------------------------------------

    def follow_panes(self) -> None:
        """Check the view actions as the panes are now (a resize may move the details to the drawer)."""
        d, panes = self.designer, self.designer.panes
        drawer_open = not panes.docked() and panes.details_wanted()   # in the preview's place
        for action, on in ((d.preview_action, panes.preview_wanted and not drawer_open),
                           (d.preview_only_action, panes.preview_only),
                           (d.side_action, panes.details_wanted())):
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)

    def _preview_toggled(self, on: bool) -> None:
        self.designer.panes.set_preview(on)

    def _preview_full_toggled(self, on: bool) -> None:
        self.designer.panes.set_preview_only(on)

    def _side_toggled(self, on: bool) -> None:
        self.designer.panes.set_details(on)
