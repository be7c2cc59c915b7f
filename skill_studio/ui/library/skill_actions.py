"""Exporting and creating skills from the window, with the dialogs they need (deleting is a review
operation: ui/review/actions.py)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.format.strict import MAX_DESCRIPTION_LENGTH
from skill_studio.core.format.templates import TEMPLATES
from skill_studio.core.ops.library import ExportClash, export_plan
from skill_studio.core.ops.library import export_skills as export_ops
from skill_studio.core.ops.skills import create_skill, description_problem, new_name_problem
from skill_studio.core.store import Store, StoreError
from skill_studio.ui.library.import_flow import ShowMessage
from skill_studio.ui.safe_text import warning
from skill_studio.ui.theme import current_tokens


def export_skills(parent: QWidget | None, store: Store, names: Sequence[str], dest: str | None = None,
                  as_zip: bool = False, *, show_message: ShowMessage = warning) -> list[str]:
    """Write each named skill into ``dest`` as a folder (or a .zip); returns the paths written.

    Asks for the folder when ``dest`` is None (nothing is written if the user cancels). The
    export's rules are :func:`skill_studio.core.ops.library.export_skills`': refused whole when two
    skills would be written to one folder; a skill that fails is named with the reason.
    """
    try:
        skills, missing = export_plan(store, names)
    except ExportClash as e:
        lines = [f"• {', '.join(group)}" for group in e.groups]
        show_message(parent, "Export refused",
                     "These skills would be written to the same folder name; export them separately:\n\n"
                     + "\n".join(lines))
        return []
    exported = None
    if skills:
        if dest is None:
            dest = QFileDialog.getExistingDirectory(parent, "Export skills to folder")
            if not dest:
                return []
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            exported = export_ops(store, [s.name for s in skills], dest, as_zip=as_zip)
        except ExportClash:   # renamed meanwhile: nothing was written
            exported = None
        finally:
            QApplication.restoreOverrideCursor()
    failed = {**missing, **(exported.failed if exported else {})}
    if failed:
        show_message(parent, "Export problems", f"{len(failed)} skill(s) could not be exported:\n\n"
                     + "\n".join(f'"{name}": {why}' for name, why in failed.items()))
    return [str(path) for _name, path in exported.written] if exported else []


# --- new skill ------------------------------------------------------------------

class NewSkillDialog(QDialog):
    """Template, name and description of a new skill, checked as typed; OK adds it to the store."""

    def __init__(self, store: Store, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New skill")
        self._store = store
        self._created: str | None = None
        tokens = current_tokens()
        self._error_style = f"color: {tokens.error};"
        self._muted_style = f"color: {tokens.text_muted};"

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("e.g. pdf-form-filler")
        self.name_edit.setMaxLength(200)  # longer than allowed, so the length message can show
        self.name_message = QLabel()
        self.name_message.setTextFormat(Qt.TextFormat.PlainText)
        self.name_message.setWordWrap(True)
        self.description_edit = QPlainTextEdit()
        self.description_edit.setPlaceholderText("What the skill does, and when an agent should use it.")
        self.description_edit.setTabChangesFocus(True)
        self.counter = QLabel()
        self.counter.setAlignment(Qt.AlignRight)
        self.template_combo = QComboBox()
        for t in TEMPLATES.values():
            self.template_combo.addItem(t.label, t.key)
            self.template_combo.setItemData(self.template_combo.count() - 1, t.summary, Qt.ToolTipRole)
        self.template_summary = QLabel()
        self.template_summary.setWordWrap(True)
        self.template_summary.setStyleSheet(self._muted_style)
        self.template_combo.currentIndexChanged.connect(self._template_changed)
        self.folder_label = QLabel()
        self.folder_label.setStyleSheet(self._muted_style)
        origin = QLabel("human")
        origin.setToolTip("Skills made here are written by a person")
        self.error_label = QLabel()
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(self._error_style)
        self.error_label.hide()

        form = QFormLayout()
        form.addRow("&Template:", self.template_combo)
        form.addRow("", self.template_summary)
        form.addRow("&Name:", self.name_edit)
        form.addRow("", self.name_message)
        form.addRow("Folder:", self.folder_label)
        form.addRow("&Description:", self.description_edit)
        form.addRow("", self.counter)
        form.addRow("Origin:", origin)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.Ok)
        self.ok_button.setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        self.name_edit.textChanged.connect(self._check)
        self.description_edit.textChanged.connect(self._check)
        self.resize(560, 420)
        self._template_changed()
        self._check()

    def name(self) -> str:
        return self.name_edit.text().strip()

    def template(self) -> str:
        return self.template_combo.currentData()

    @Slot()
    def _template_changed(self) -> None:
        self.template_summary.setText(TEMPLATES[self.template()].summary)

    def description(self) -> str:
        return self.description_edit.toPlainText().strip()

    def created_name(self) -> str | None:
        """The name of the skill added to the store, or None before it is."""
        return self._created

    def is_valid(self) -> bool:
        return self.ok_button.isEnabled()

    @Slot()
    def _check(self) -> None:
        problem = new_name_problem(self._store, self.name())
        self.folder_label.setText(f"{self.name() or 'name'}/  (the folder follows the name)")
        if problem is None:
            self.name_message.setText("Name is free")
            self.name_message.setStyleSheet(self._muted_style)
        else:
            self.name_message.setText(problem)
            # Before anything is typed the hint is advice, not an error.
            self.name_message.setStyleSheet(self._muted_style if not self.name_edit.text() else self._error_style)
        n = len(self.description())
        described = description_problem(self.description()) is None
        self.counter.setText(f"{n} / {MAX_DESCRIPTION_LENGTH}" + ("  (required)" if n == 0 else ""))
        self.counter.setStyleSheet(self._error_style if n and not described else self._muted_style)
        self.counter.setToolTip(description_problem(self.description()) or "")
        self.ok_button.setEnabled(problem is None and described)
        self.error_label.hide()

    def accept(self) -> None:
        if not self.is_valid():
            return
        name = self.name()
        try:
            create_skill(self._store, name, self.description(), self.template())
        except (StoreError, ValueError) as e:  # the rules (CreateRefused is a ValueError), a store error
            self.error_label.setText(f"Could not create the skill: {e}")
            self.error_label.show()
            return
        self._created = name
        super().accept()


def new_skill(parent: QWidget | None, store: Store) -> str | None:
    """Ask for a new skill and add it; returns its name, or None when cancelled."""
    dialog = NewSkillDialog(store, parent)
    try:
        return dialog.created_name() if dialog.exec() == QDialog.Accepted else None
    finally:
        dialog.deleteLater()


__all__ = ["NewSkillDialog", "export_skills", "new_skill"]
