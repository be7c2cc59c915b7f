"""The small dialog that asks why: a lifecycle move needs a reason (it goes into the audit log), so
its OK waits until one is typed; a deletion's reason is optional. The dialog never closes on
something the operation would refuse."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget

REQUIRED_HINT = "A reason is required: it is kept in the audit log with the change."
OPTIONAL_HINT = "Optional: kept in the audit log with the change."


class ReasonDialog(QDialog):
    """A question, a one-line answer and OK/Cancel; with ``required``, OK is enabled only while
    the answer holds more than spaces."""

    def __init__(self, parent: QWidget | None, title: str, prompt: str, *, required: bool = True):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.required = required
        self.prompt = QLabel(prompt, self)
        self.prompt.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt.setWordWrap(True)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Reason" if required else "Reason (optional)")
        self.hint = QLabel(REQUIRED_HINT if required else OPTIONAL_HINT, self)
        self.hint.setWordWrap(True)
        self.hint.setProperty("role", "muted")
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        self.ok_button = self.buttons.button(QDialogButtonBox.Ok)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addWidget(self.edit)
        layout.addWidget(self.hint)
        layout.addWidget(self.buttons)
        self.edit.textChanged.connect(self._check)
        self._check()
        self.resize(440, self.sizeHint().height())

    def reason(self) -> str:
        return self.edit.text().strip()

    def _check(self, *_args) -> None:
        self.ok_button.setEnabled(bool(self.reason()) or not self.required)
        if self.ok_button.isEnabled():
            self.ok_button.setToolTip("")
        else:
            self.ok_button.setToolTip("Type a reason first")

    def accept(self) -> None:
        if self.required and not self.reason():   # Enter in the empty box: stay open
            self.edit.setFocus()
            return
        super().accept()


def ask_reason(parent: QWidget | None, title: str, prompt: str, *, required: bool = True) -> str | None:
    """The reason typed, or None when cancelled (never empty when ``required``)."""
    dialog = ReasonDialog(parent, title, prompt, required=required)
    try:
        return dialog.reason() if dialog.exec() == QDialog.DialogCode.Accepted else None
    finally:
        dialog.deleteLater()


__all__ = ["OPTIONAL_HINT", "REQUIRED_HINT", "ReasonDialog", "ask_reason"]
