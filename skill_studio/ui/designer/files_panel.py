"""The designer's files panel: the files beside SKILL.md as a folder tree, added, renamed and removed."""

from __future__ import annotations

import posixpath
from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QStyle,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.library.archive import safe_relative_path
from skill_studio.core.library.bounded_read import ReadRefused, read_bounded
from skill_studio.core.model import SkillFile
from skill_studio.core.runtime.script_run import is_script
from skill_studio.ui.designer import file_rules
from skill_studio.ui.designer.file_rules import MAX_FILE_BYTES, check_path, describe, human_size, is_binary, kind_of
from skill_studio.ui.designer.flow import FlowLayout
from skill_studio.ui.safe_text import literal, question, warning
from skill_studio.ui.theme import current_tokens

PATH_ROLE = Qt.ItemDataRole.UserRole + 1     # the file's path, or the folder's path for a folder row
IS_FOLDER_ROLE = Qt.ItemDataRole.UserRole + 2
COLUMNS = ("Name", "Size", "Type", "Exec")


class FilesPanel(QWidget):
    """The skill's files (besides SKILL.md) by folder, with size, type and executable bit."""

    filesChanged = Signal()           # the user added, renamed, removed or re-moded a file
    openFileRequested = Signal(str)   # the path of a text file to open in the designer
    runRequested = Signal(str)        # the path of a script to try in the Run tab

    def __init__(self, parent: QWidget | None = None, *, read_only: bool = False):
        super().__init__(parent)
        self._files: dict[str, SkillFile] = {}
        self.checks = file_rules.FileChecks()
        self._read_only = read_only
        # Dialogs, replaceable (tests set these to plain functions).
        self.ask_text = self._ask_text        # (title, label, default) -> str | None
        self.pick_files = self._pick_files    # () -> list[str]
        self.confirm = self._confirm          # (text) -> bool
        self.tell = self._tell                # (text) -> None

        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(COLUMNS))
        self.tree = QTreeView(uniformRowHeights=True, alternatingRowColors=True,
                              editTriggers=QAbstractItemView.EditTrigger.NoEditTriggers,
                              contextMenuPolicy=Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.setModel(self.model)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, len(COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.activated.connect(self._activated)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.selectionModel().currentChanged.connect(self._show_details)
        self.details = QLabel(wordWrap=True, textFormat=Qt.TextFormat.PlainText,
                              textInteractionFlags=Qt.TextInteractionFlag.TextSelectableByMouse)

        self.actions: dict[str, QAction] = {}
        self.buttons: dict[str, QPushButton] = {}
        buttons = FlowLayout()   # wraps in a narrow pane rather than widening the window
        for key, text, shortcut, tip, slot in (
                ("add_files", "Add file…", None, "Copy files from disk into the selected folder", self.add_files),
                ("new_text_file", "New text file…", None, "Create an empty text file", self.new_text_file),
                ("rename_file", "Rename…", QKeySequence(Qt.Key.Key_F2), "Rename or move the selection",
                 self.rename_selected),
                ("delete_file", "Delete", QKeySequence(QKeySequence.StandardKey.Delete), "Delete the selection",
                 self.delete_selected),
                ("toggle_executable", "Toggle executable", None, "Switch the mode between 755 and 644",
                 self.toggle_executable)):
            action = QAction(text, self, toolTip=tip)
            if shortcut is not None:
                action.setShortcut(shortcut)
                action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                self.tree.addAction(action)
            action.triggered.connect(slot)
            self.actions[key] = action
            button = QPushButton(text, self, toolTip=tip, visible=not read_only)  # a child, never a window
            button.clicked.connect(action.trigger)
            action.enabledChanged.connect(button.setEnabled)
            self.buttons[key] = button
            buttons.add(button)
        run = QAction("Run script", self, toolTip="Try the selected script in a temporary copy (the Run tab)")
        run.triggered.connect(self.run_selected)
        self.actions["run_script"] = self.run_action = run
        self.buttons["run_script"] = run_button = QPushButton("Run", self, toolTip=run.toolTip())
        run_button.clicked.connect(run.trigger)
        run.enabledChanged.connect(run_button.setEnabled)
        buttons.add(run_button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.details)
        self.changeEvent(QEvent(QEvent.Type.PaletteChange))
        self._rebuild()

    # --- public ------------------------------------------------------------------

    def set_files(self, files: list[SkillFile]) -> None:
        """Show these files (SKILL.md itself is left out); emits nothing."""
        self._files = {f.path: f for f in files if f.path not in ("SKILL.md", "skill.md")}
        self._rebuild()

    def files(self) -> list[SkillFile]:
        return list(self._files.values())

    def update_file(self, path: str, data: bytes) -> None:
        """New contents for a file the designer edited in its own tab (mode kept; emits nothing)."""
        old = self._files.get(path)
        self._files[path] = SkillFile(path, data, old.mode if old else 0o644)
        self._rebuild(select=path)

    def selected_path(self) -> tuple[str, bool] | None:
        """The selected (path, is_folder), or None."""
        index = self.tree.currentIndex()
        item = self.model.itemFromIndex(index.siblingAtColumn(0)) if index.isValid() else None
        return None if item is None else (item.data(PATH_ROLE), bool(item.data(IS_FOLDER_ROLE)))

    def select(self, path: str) -> None:
        if (item := self._find(path)) is not None:
            self.tree.setCurrentIndex(item.index())

    # --- actions -----------------------------------------------------------------

    @Slot()
    def add_files(self) -> None:
        if self._read_only:
            return
        folder = self._target_folder()
        added = None
        for name in self.pick_files():
            source = Path(name)
            try:
                size = source.stat().st_size
                if size > MAX_FILE_BYTES:
                    raise ValueError(f"it is {human_size(size)} ({size:,} bytes), over the "
                                     f"{MAX_FILE_BYTES // 2**20} MB limit for a file of a skill")
                path = check_path(posixpath.join(folder, source.name), list(self._files))
                data, mode = read_bounded(source, MAX_FILE_BYTES, what="file of a skill")
            except ReadRefused as e:
                self.tell(f"'{source.name}' was not added: {str(e).removeprefix(e.path + ': ')}.")
                continue
            except (OSError, ValueError) as e:
                self.tell(f"'{source.name}' was not added: {e}.")
                continue
            self._files[path] = SkillFile(path, data, 0o755 if mode & 0o111 else 0o644)
            added = path
        if added is not None:
            self._changed(added)

    @Slot()
    def new_text_file(self) -> None:
        if self._read_only:
            return
        folder = self._target_folder()
        path = self._ask_path("New text file", "Path in the skill folder (e.g. scripts/run.sh):",
                              f"{folder}/" if folder else "", lambda t: check_path(t, list(self._files)))
        if path is not None:
            self._files[path] = SkillFile(path, b"", 0o644)
            self._changed(path)

    @Slot()
    def rename_selected(self) -> None:
        sel = self.selected_path()
        if sel is None or self._read_only:
            return
        old, is_folder = sel
        moving = [p for p in self._files if p.startswith(old + "/")] if is_folder else [old]
        others = [p for p in self._files if p not in moving]

        def check(text: str) -> str:
            if not is_folder:
                return check_path(text, others)
            try:
                new = safe_relative_path(text)
            except ValueError as e:
                raise ValueError(f"'{text}' {e}") from None
            for p in moving:
                check_path(new + p[len(old):], others)
            return new

        new = self._ask_path("Rename folder" if is_folder else "Rename", "New path:", old, check)
        if new is None or new == old:
            return
        renamed = {p: new + p[len(old):] for p in moving}
        self._files = {renamed.get(p, p): SkillFile(renamed.get(p, p), f.data, f.mode)
                       for p, f in self._files.items()}
        self._changed(new if not is_folder else next(iter(renamed.values()), None))

    @Slot()
    def delete_selected(self) -> None:
        sel = self.selected_path()
        if sel is None or self._read_only:
            return
        path, is_folder = sel
        doomed = [p for p in self._files if p.startswith(path + "/")] if is_folder else [path]
        question = (f"Delete the folder '{path}' and its {len(doomed)} file{'s' if len(doomed) != 1 else ''}?"
                    if is_folder else f"Delete '{path}'?")
        if not doomed or not self.confirm(question):
            return
        for p in doomed:
            del self._files[p]
        self._changed(None)

    @Slot()
    def toggle_executable(self) -> None:
        sel = self.selected_path()
        if sel is None or sel[1] or self._read_only:
            return
        f = self._files[sel[0]]
        mode = (f.mode & ~0o111) if f.executable else (f.mode | 0o111)
        self._files[f.path] = SkillFile(f.path, f.data, mode)
        self._changed(f.path)

    @Slot()
    def run_selected(self) -> None:
        sel = self.selected_path()
        if sel is not None and not sel[1] and is_script(sel[0]):
            self.runRequested.emit(sel[0])

    # --- internals ---------------------------------------------------------------

    def _ask_path(self, title: str, label: str, default: str, check) -> str | None:
        """Ask for a path until ``check`` accepts it (returning the clean path) or the user gives up.
        The same refused answer twice ends the asking (a scripted answer would only repeat)."""
        text, previous = default, None
        while True:
            text = self.ask_text(title, label, text)
            if text is None or not text.strip() or text == previous:
                return None
            previous = text
            try:
                return check(text)
            except ValueError as e:
                self.tell(f"{e}.")

    def _target_folder(self) -> str:
        sel = self.selected_path()
        return "" if sel is None else sel[0] if sel[1] else posixpath.dirname(sel[0])

    def _changed(self, select: str | None) -> None:
        self._rebuild(select=select)
        self.filesChanged.emit()

    def _find(self, path: str) -> QStandardItem | None:
        """The name cell of a file or folder row."""
        hits = self.model.match(self.model.index(0, 0), PATH_ROLE, path, 1,
                                Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive)
        return self.model.itemFromIndex(hits[0]) if hits else None

    def _rebuild(self, select: str | None = None) -> None:
        current = select or (self.selected_path() or (None,))[0]
        self.model.removeRows(0, self.model.rowCount())
        style = self.style()
        folder_icon = style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
        file_icon = style.standardIcon(QStyle.StandardPixmap.SP_FileIcon)
        problem_icon = style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self.checks.keep(self._files)
        # No wrapper of the model's invisible root item is ever made: Qt deletes that item without
        # telling Python, and a wrapper outliving it (as one kept until a garbage collection does)
        # would be handed back later for whatever object is then at its address.
        folders: dict[str, QStandardItem] = {}

        def add_row(folder: str, row: list[QStandardItem]) -> None:
            (folders[folder].appendRow if folder else self.model.appendRow)(row)

        def folder_item(path: str) -> None:
            missing = []
            while path and path not in folders:
                missing.append(path)
                path = posixpath.dirname(path)
            for path in reversed(missing):   # outermost first
                item = QStandardItem(folder_icon, posixpath.basename(path))
                item.setData(path, PATH_ROLE)
                item.setData(True, IS_FOLDER_ROLE)
                add_row(posixpath.dirname(path), [item] + [QStandardItem() for _ in COLUMNS[1:]])
                folders[path] = item

        def order(f: SkillFile) -> list[tuple[int, str]]:  # in each folder: folders first, then files
            parts = f.path.casefold().split("/")
            return [(0, p) for p in parts[:-1]] + [(1, parts[-1])]

        for f in sorted(self._files.values(), key=order):
            folder_item(posixpath.dirname(f.path))
            binary = is_binary(f.data)
            problems = self.checks.of(f)
            name = QStandardItem(problem_icon if problems else file_icon, posixpath.basename(f.path))
            name.setData(f.path, PATH_ROLE)
            name.setData(False, IS_FOLDER_ROLE)
            name.setToolTip(literal("\n".join([f.path, describe(f), *file_rules.problem_lines(problems)])))
            size = QStandardItem(human_size(len(f.data)))
            size.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            kind = QStandardItem(f"{'binary' if binary else 'text'} · {kind_of(f.path, binary)}")
            exe = QStandardItem("✓" if f.executable else "")
            exe.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            exe.setToolTip("executable (mode 755)" if f.executable else "not executable (mode 644)")
            add_row(posixpath.dirname(f.path), [name, size, kind, exe])
        folders.clear()
        self.tree.expandAll()
        if current:
            self.select(current)
        self._show_details()

    @Slot()
    def _show_details(self, *_args) -> None:
        sel = self.selected_path()
        if not self._files:
            self.details.setText("No files besides SKILL.md. Add scripts, references or assets here.")
        elif sel is None or sel[1]:
            inside = [f for p, f in self._files.items() if sel is None or p.startswith(sel[0] + "/")]
            n, total = len(inside), human_size(sum(len(f.data) for f in inside))
            where = f"{sel[0]}/ — " if sel else ""
            self.details.setText(f"{where}{n} file{'s' if n != 1 else ''}, {total}")
        else:
            f = self._files[sel[0]]
            hint = "" if is_binary(f.data) else " — double-click or Enter to open"
            found = file_rules.problem_lines(self.checks.of(f), file_rules.MAX_SHOWN_PROBLEMS, summary=True)
            self.details.setText("\n".join([f"{f.path}: {describe(f)}{hint}", *found]))
        enabled = {"rename_file": sel is not None, "delete_file": sel is not None,
                   "toggle_executable": sel is not None and not sel[1]}
        for key, action in self.actions.items():
            action.setEnabled(not self._read_only and enabled.get(key, True))
        self.run_action.setEnabled(sel is not None and not sel[1] and is_script(sel[0]))

    @Slot(QModelIndex)
    def _activated(self, index: QModelIndex) -> None:
        item = self.model.itemFromIndex(index.siblingAtColumn(0))
        f = self._files.get(item.data(PATH_ROLE)) if item is not None else None
        if f is None:  # a folder
            return
        if is_binary(f.data):
            self.details.setText(f"{f.path}: {describe(f)} — binary files cannot be opened here")
            return
        self.openFileRequested.emit(f.path)

    @Slot()
    def _context_menu(self, pos) -> None:
        menu = QMenu(self)
        menu.addActions(list(self.actions.values()))
        menu.exec(self.tree.viewport().mapToGlobal(pos))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            t = current_tokens()
            self.tree.setStyleSheet(f"QTreeView {{ selection-background-color: {t.selection}; "
                                    f"selection-color: {t.text}; }}")

    # --- real dialogs ------------------------------------------------------------

    def _ask_text(self, title: str, label: str, default: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, literal(label), text=default)
        return text if ok else None

    def _pick_files(self) -> list[str]:
        return QFileDialog.getOpenFileNames(self, "Add files to the skill")[0]

    def _confirm(self, text: str) -> bool:
        return question(self, "Skill files", text)

    def _tell(self, text: str) -> None:
        warning(self, "Skill files", text)

