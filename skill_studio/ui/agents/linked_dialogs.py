"""The linked folders' dialogs: a conflict shown with both versions side by side for the user to
choose, and the list of linked folders (sync now, resolve, unlink). Loaded when one is first opened."""

from __future__ import annotations

import difflib
from html import escape
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.library import linked


class ConflictDialog(QDialog):
    """One skill changed on disk and in the studio: both versions, and which to keep."""

    def __init__(self, conflict: linked.Conflict, parent: QWidget | None = None, *,
                 titles: tuple[str, str] = ("On disk", "In the studio"),
                 keeps: tuple[str, str] = ("Keep the folder's", "Keep the studio's"), why: str = ""):
        super().__init__(parent)
        self.conflict, self.choice = conflict, None
        self.setWindowTitle(f"Changed on both sides: {conflict.name}")
        where = escape(f"{conflict.folder}/{conflict.path}")
        note = QLabel(f"<b>{escape(conflict.name)}</b> " + (escape(why) if why else
                      f"changed in <i>{where}</i> and in the studio since the last sync.") +
                      " Nothing was overwritten. Keep one version; the other is replaced "
                      "(the studio's earlier versions stay in its history).")
        note.setWordWrap(True)
        mono = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        sides = QSplitter()
        disk_lines, store_lines = conflict.disk_text.splitlines(), conflict.store_text.splitlines()
        changed = [set(), set()]   # the lines that differ, on each side
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, disk_lines, store_lines).get_opcodes():
            if tag != "equal":
                changed[0].update(range(i1, i2))
                changed[1].update(range(j1, j2))
        self.edits = []
        for (title, text), lines in zip(((titles[0], conflict.disk_text), (titles[1], conflict.store_text)),
                                        changed):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(QLabel(f"<b>{title}</b> ({len(lines)} line(s) differ, highlighted)"))
            edit = QPlainTextEdit(text, readOnly=True)
            edit.setFont(mono)
            edit.setLineWrapMode(QPlainTextEdit.NoWrap)
            _highlight(edit, lines)
            lay.addWidget(edit)
            sides.addWidget(box)
            self.edits.append(edit)
        buttons = QDialogButtonBox()
        self.keep_disk = buttons.addButton(keeps[0], QDialogButtonBox.AcceptRole)
        self.keep_studio = buttons.addButton(keeps[1], QDialogButtonBox.AcceptRole)
        later = buttons.addButton("Decide later", QDialogButtonBox.RejectRole)
        self.keep_disk.clicked.connect(lambda: self._choose("disk"))
        self.keep_studio.clicked.connect(lambda: self._choose("studio"))
        later.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(sides, 1)
        layout.addWidget(buttons)
        self.resize(980, 560)

    def _choose(self, side: str) -> None:
        self.choice = side
        self.accept()


def _highlight(edit: QPlainTextEdit, lines: set[int]) -> None:
    marks = []
    colour = QColor(255, 200, 0, 70)
    for n in sorted(lines):
        block = edit.document().findBlockByNumber(n)
        if block.isValid():
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(colour)
            sel.format.setProperty(QTextFormat.FullWidthSelection, True)
            sel.cursor = QTextCursor(block)
            marks.append(sel)
    edit.setExtraSelections(marks)
    if lines:
        edit.setTextCursor(QTextCursor(edit.document().findBlockByNumber(min(lines))))
        edit.centerCursor()


class LinksDialog(QDialog):
    """The linked folders, and what to do with them; ``owner`` is the window's linked folders feature."""

    def __init__(self, owner: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.owner = owner
        self.setWindowTitle("Linked folders")
        self.list = QListWidget()
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        add, sync, unlink = QPushButton("Link a folder…"), QPushButton("Sync now"), QPushButton("Unlink")
        self.resolve_button = QPushButton("Resolve conflicts…")
        add.clicked.connect(self._add)
        sync.clicked.connect(self._sync)
        unlink.clicked.connect(self._unlink)
        self.resolve_button.clicked.connect(self._resolve)
        row = QHBoxLayout()
        for b in (add, sync, self.resolve_button, unlink):
            row.addWidget(b)
        row.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Folders kept in step with the library (changes on disk are imported, saves are "
                                "written back; git runs only when you use the team repository's buttons):"))
        layout.addWidget(self.list, 1)
        layout.addLayout(row)
        layout.addWidget(self.team_box())
        layout.addWidget(self.status)
        layout.addWidget(close)
        self.resize(640, 420)
        self.list.currentTextChanged.connect(lambda _t: self._team_state())
        self.refresh()

    def team_box(self) -> QWidget:
        """A linked folder that is a git working copy: where it stands, Pull, Commit and Push."""
        box = QGroupBox("Team repository (git)")
        self.team_label = QLabel()
        self.team_label.setWordWrap(True)
        self.team_label.setTextFormat(Qt.TextFormat.PlainText)
        self.team_buttons = {action: QPushButton(text) for action, text in (
            ("status", "Check"), ("pull", "Pull"), ("commit", "Commit"), ("push", "Push"))}
        self.team_buttons["status"].setToolTip("Fetch the team's commits and compare")
        self.team_buttons["pull"].setToolTip("Take the team's commits (a skill changed on both sides is asked about)")
        self.team_buttons["commit"].setToolTip("Commit the studio's saves in this folder, with their notes")
        self.team_buttons["push"].setToolTip("Send the commits to the team")
        row = QHBoxLayout()
        for action, button in self.team_buttons.items():
            button.clicked.connect(lambda _c=False, a=action: self._team(a))
            row.addWidget(button)
        row.addStretch(1)
        lay = QVBoxLayout(box)
        lay.addWidget(self.team_label)
        lay.addLayout(row)
        return box

    def _team_state(self, text: str | None = None) -> None:
        item = self.list.currentItem()
        said = text if text is not None else self.owner.team_state(item.text()) if item is not None else None
        on = said is not None
        self.team_label.setText(said if on else "The folder chosen is not a git working copy: clone the team's "
                                "repository and link the clone to commit, pull and push from here.")
        for button in self.team_buttons.values():
            button.setEnabled(on)

    def _team(self, action: str) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.status.setText(self.owner.team(item.text(), action))
            self.refresh()
            self._team_state()

    def refresh(self) -> None:
        n = len(self.owner.conflicts())
        self.resolve_button.setEnabled(n > 0)
        self.resolve_button.setText(f"Resolve {n} conflict(s)…" if n else "No conflicts")
        self.list.clear()
        self.list.addItems(linked.linked_folders(self.owner.shell.store))
        if self.list.count():
            self.list.setCurrentRow(0)

    def _add(self) -> None:
        report = self.owner.link_folder()
        if report is not None:
            self.status.setText(self.owner.summary(report))
        self.refresh()

    def _sync(self) -> None:
        reports = self.owner.sync()
        self.status.setText("; ".join(f"{r.folder}: {self.owner.summary(r)}" for r in reports) or "Nothing is linked.")
        self.refresh()

    def _resolve(self) -> None:
        settled = sum(self.owner.settle(c) for c in self.owner.conflicts())
        self.status.setText(f"{settled} conflict(s) settled." if settled else "Nothing was changed.")
        self.refresh()

    def _unlink(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        linked.unlink(self.owner.shell.store, item.text())
        self.owner.rewatch()
        self.status.setText(f"Unlinked {item.text()}: its skills stay in the library, its files on disk.")
        self.refresh()
