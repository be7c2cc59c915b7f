"""The designer's toolbar: save, undo and redo for the mouse, the editor's find and view actions,
and which of the editor, the preview and the details are shown. Its actions are the designer's
(``designer.save_action`` and the rest), with their shortcuts in the designer's reach."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QToolBar


class DesignerToolbar(QToolBar):
    def __init__(self, designer) -> None:
        super().__init__(designer)
        self.designer = d = designer
        self.setToolButtonStyle(Qt.ToolButtonTextOnly)
        a, editor = self._action, d.editor
        # Ctrl+S is the window's File ▸ Save, which saves the designer in front.
        d.save_action = a("&Save", d.save, None, "Save a new version (Ctrl+S)")
        d.preview_action = a("&Preview", self._preview_toggled, "Ctrl+Shift+P", "Show or hide the preview",
                             checkable=True)
        d.preview_action.setChecked(True)
        d.preview_only_action = a("Preview &full width", self._preview_full_toggled, None,
                                  "Show only the preview", checkable=True)
        d.side_action = a("&Details", self._side_toggled, None, "Show or hide the metadata, files and history",
                          checkable=True)
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

    def _preview_toggled(self, on: bool) -> None:
        d = self.designer
        d.preview.setVisible(on)
        if not on and d.preview_only_action.isChecked():
            d.preview_only_action.setChecked(False)
            d.splitter.widget(0).show()

    def _preview_full_toggled(self, on: bool) -> None:
        d = self.designer
        d.splitter.widget(0).setVisible(not on)
        d.side.setVisible(not on and d.side_action.isChecked())
        if on:
            d.preview_action.setChecked(True)
            d.preview.show()

    def _side_toggled(self, on: bool) -> None:
        self.designer.side.setVisible(on)
