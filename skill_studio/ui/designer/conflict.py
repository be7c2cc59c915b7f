"""The designer's questions: unsaved changes on close, and a save that meets somebody else's."""

from __future__ import annotations

from html import escape

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMessageBox, QVBoxLayout, QWidget

from skill_studio.ui.designer.diff_view import DiffView


def ask_unsaved(parent: QWidget | None, name: str) -> str:
    """'save', 'discard' or 'cancel'."""
    box = QMessageBox(QMessageBox.Warning, "Unsaved changes",
                      f"{name} has changes that are not saved.", parent=parent)
    box.setInformativeText("Save them as a new version before closing?")
    box.setStandardButtons(QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel)
    box.setDefaultButton(QMessageBox.Save)
    answer = box.exec()
    return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")


class ConflictDialog(QDialog):
    """Shows what the store holds against the author's text; the author picks what happens."""

    def __init__(self, name: str, stored: str, mine: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"{name} changed elsewhere")
        self.choice = "cancel"
        text = QLabel(f"<b>{escape(name)}</b> was saved by someone else (another window or the command line) "
                      "after you opened it. Nothing has been written. The store's version is on the "
                      "left, yours on the right.")
        text.setWordWrap(True)
        self.diff = DiffView(self)
        self.diff.set_texts(stored, mine, "In the store now", "Your text")
        buttons = QDialogButtonBox(self)
        for label, choice, role, tip in (
                ("Reload theirs", "reload", QDialogButtonBox.DestructiveRole,
                 "Drop your changes and edit the store's version"),
                ("Overwrite with mine", "overwrite", QDialogButtonBox.AcceptRole,
                 "Save your text as the next version over theirs (theirs stays in the history)"),
                ("Save mine as a copy", "copy", QDialogButtonBox.AcceptRole,
                 "Keep theirs and add your text as a new skill"),
                ("Cancel", "cancel", QDialogButtonBox.RejectRole, "Keep editing; nothing is saved")):
            button = buttons.addButton(label, role)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, c=choice: self._choose(c))
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.diff, 1)
        layout.addWidget(buttons)
        self.resize(980, 620)

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.accept() if choice != "cancel" else self.reject()


def resolve_conflict(parent: QWidget | None, name: str, stored: str, mine: str) -> str:
    """'reload', 'overwrite', 'copy' or 'cancel'."""
    dialog = ConflictDialog(name, stored, mine, parent)
    try:
        dialog.exec()
        return dialog.choice
    finally:
        dialog.deleteLater()
