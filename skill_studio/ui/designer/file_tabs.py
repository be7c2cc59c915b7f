"""The designer's editor tabs: SKILL.md first (never closed), then any text file of the skill."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from skill_studio.core.model import SkillFile
from skill_studio.ui.designer.editor import CodeEditor
from skill_studio.ui.safe_text import literal


def text_of(data: bytes) -> str | None:
    """The file's text, or None when it is binary (NUL bytes or not UTF-8)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class FileTabs(QTabWidget):
    """Tabs of editors; a file tab's edits come out as ``fileEdited(path, bytes)``."""

    fileEdited = Signal(str, bytes)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setDocumentMode(True)
        self.setTabsClosable(True)
        self.setMovable(False)
        self.tabCloseRequested.connect(self.close_tab)
        self._editors: dict[str, CodeEditor] = {}

    def add_main(self, editor: CodeEditor, below: QWidget, label: str) -> None:
        page = QWidget(self)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(editor, 1)
        layout.addWidget(below)
        self.addTab(page, label)
        bar = self.tabBar()
        for side in (bar.ButtonPosition.RightSide, bar.ButtonPosition.LeftSide):
            button = bar.tabButton(0, side)
            if button is not None:
                button.hide()  # SKILL.md stays open

    def editor_for(self, path: str) -> CodeEditor | None:
        return self._editors.get(path)

    def open_file(self, file: SkillFile, *, read_only: bool = False) -> bool:
        """Show ``file`` in its tab (opened if needed); False for a binary file."""
        editor = self._editors.get(file.path)
        if editor is None:
            text = text_of(file.data)
            if text is None:
                return False
            editor = CodeEditor(self)
            editor.set_file_name(file.path)
            editor.setPlainText(text)
            editor.setReadOnly(read_only)
            editor.textChanged.connect(lambda p=file.path, e=editor: self.fileEdited.emit(
                p, e.toPlainText().encode("utf-8")))
            self._editors[file.path] = editor
            self.addTab(editor, file.path.rsplit("/", 1)[-1])
            self.setTabToolTip(self.count() - 1, literal(file.path))
        self.setCurrentWidget(editor)
        return True

    def close_tab(self, index: int) -> None:
        if index <= 0:
            return
        widget = self.widget(index)
        for path, editor in list(self._editors.items()):
            if editor is widget:
                del self._editors[path]
        self.removeTab(index)
        widget.deleteLater()

    def reload(self, files: list[SkillFile]) -> None:
        """Show ``files`` in the open tabs (after a save, restore or reload); tabs of files that are
        gone, or are no longer text, close."""
        by_path = {f.path: f for f in files}
        for path, editor in list(self._editors.items()):
            text = text_of(by_path[path].data) if path in by_path else None
            if text is None:
                self.close_tab(self.indexOf(editor))
            elif editor.toPlainText() != text:
                editor.blockSignals(True)  # not an edit by the author
                try:
                    editor.setPlainText(text)
                finally:
                    editor.blockSignals(False)

    def files_changed(self, paths: set[str]) -> None:
        """Close the tabs of files that are gone (deleted or renamed)."""
        for path, editor in list(self._editors.items()):
            if path not in paths:
                self.close_tab(self.indexOf(editor))
