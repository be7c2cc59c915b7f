"""Linked folders in the main window: File ▸ Link a folder of skills… and Linked folders…; the
linked folders are watched, and every change on disk or save in the studio starts a sync (after a
short pause); a conflict is shown with both versions side by side for the user to choose."""

from __future__ import annotations

import difflib
from html import escape
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer
from PySide6.QtGui import QColor, QFontDatabase, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
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
from skill_studio.core.library.folders import discover
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.safe_text import information
from skill_studio.ui.shell.feature import ActionSpec, Feature, at

SYNC_DELAY_MS = 600


class ConflictDialog(QDialog):
    """One skill changed on disk and in the studio: both versions, and which to keep."""

    def __init__(self, conflict: linked.Conflict, parent: QWidget | None = None):
        super().__init__(parent)
        self.conflict, self.choice = conflict, None
        self.setWindowTitle(f"Changed on both sides: {conflict.name}")
        where = escape(f"{conflict.folder}/{conflict.path}")
        note = QLabel(f"<b>{escape(conflict.name)}</b> changed in <i>{where}</i> and in the studio "
                      "since the last sync. Nothing was overwritten. Keep one version; the other is replaced "
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
        for (title, text), lines in zip((("On disk", conflict.disk_text), ("In the studio", conflict.store_text)),
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
        self.keep_disk = buttons.addButton("Keep the folder's", QDialogButtonBox.AcceptRole)
        self.keep_studio = buttons.addButton("Keep the studio's", QDialogButtonBox.AcceptRole)
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


class LinkedFeature(Feature):
    id = "linked"

    def __init__(self, shell):
        super().__init__(shell)
        self.pick_folder = lambda: QFileDialog.getExistingDirectory(shell, "Folder of skills to link")
        self.ask_conflict = self._ask_conflict        # (conflict) -> "disk" | "studio" | None
        self.tell = lambda text: information(shell, "Linked folders", text)
        self.last: list[linked.SyncReport] = []
        self._syncing = False
        self._waiting: set[str] = set()               # conflicts already asked about (folder/path)
        self.watch = QFileSystemWatcher(shell)
        self.watch.directoryChanged.connect(lambda _p: self.schedule())
        self.watch.fileChanged.connect(lambda _p: self.schedule())
        self.timer = QTimer(shell, singleShot=True, interval=SYNC_DELAY_MS)
        self.timer.timeout.connect(self.sync)

    def action_specs(self) -> list[ActionSpec]:
        return [
            ActionSpec("link_folder", "&Link a folder of skills…", self.link_folder, None,
                       "Keep the library in step with a folder of skills, such as a team's checkout",
                       places=(at("File", 3, 10),)),
            ActionSpec("linked_folders", "Lin&ked folders…", self.show_links, None,
                       "The linked folders: sync now or unlink", places=(at("File", 3, 11),)),
        ]

    def attach(self) -> None:
        self.rewatch()
        if linked.linked_folders(self.shell.store):   # catch up with what changed while the studio was closed
            self.timer.start()

    def changes_applied(self, changes: ChangeSet) -> None:
        if changes.skills or changes.unknown:
            self.schedule()

    def shutdown(self) -> None:
        self.timer.stop()   # no sync starts after the window is gone

    # --- linking ----------------------------------------------------------------------

    def link_folder(self, folder: str | None = None) -> linked.SyncReport | None:
        folder = folder or self.pick_folder()
        if not folder:
            return None
        try:
            report = linked.link(self.shell.store, folder)
        except linked.LinkError as e:
            self.tell(str(e))
            return None
        self._after([report])
        self.tell(f"Linked {folder}: {summary(report)}")
        return report

    def show_links(self) -> None:
        dialog = LinksDialog(self, self.shell)
        dialog.exec()

    # --- keeping in step --------------------------------------------------------------

    def schedule(self) -> None:
        if self.shell.isVisible() and not self._syncing and linked.linked_folders(self.shell.store):
            self.timer.start()

    def sync(self) -> list[linked.SyncReport]:
        self.timer.stop()
        w = self.shell
        if not w.isVisible() or not linked.linked_folders(w.store):   # a closed window's store may be closed
            return []
        self._syncing = True
        try:
            reports = linked.sync(w.store)
        except Exception as e:   # noqa: BLE001 - a slot must not raise: the next change tries again
            w.show_status(f"Linked folders: the sync stopped: {e}", 12000)
            return []
        finally:
            self._syncing = False
        self._after(reports)
        return reports

    def conflicts(self) -> list[linked.Conflict]:
        """The conflicts of the last sync."""
        return [c for r in self.last for c in r.conflicts]

    def _after(self, reports: list[linked.SyncReport]) -> None:
        w = self.shell
        self.last = reports
        self.rewatch()
        if any(r.imported or r.gone_on_disk or r.renamed for r in reports):
            self._publish(sync_changes(reports))
        done = [summary(r) for r in reports if r.changed or r.errors or r.conflicts]
        if done:
            w.show_status("Linked folders: " + "; ".join(done), 12000)
        current = {f"{c.folder}/{c.path}" for c in self.conflicts()}
        self._waiting &= current   # settled elsewhere: a new conflict there is asked about again
        for c in self.conflicts():
            key = f"{c.folder}/{c.path}"
            if key not in self._waiting:
                self._waiting.add(key)
                self.settle(c)

    def settle(self, conflict: linked.Conflict) -> bool:
        """Ask which side of a conflict to keep, and keep it; True when it was settled."""
        w = self.shell
        choice = self.ask_conflict(conflict)
        if choice not in ("disk", "studio"):
            return False
        try:
            linked.resolve(w.store, conflict, choice)
        except (linked.LinkError, OSError) as e:
            self.tell(f"{conflict.name} was not changed: {e}")
            self._waiting.discard(f"{conflict.folder}/{conflict.path}")
            self.schedule()
            return False
        self._waiting.discard(f"{conflict.folder}/{conflict.path}")
        for r in self.last:
            r.conflicts = [c for c in r.conflicts if c is not conflict]
        if choice == "disk":
            self._publish(ChangeSet.of(changed=[conflict.name], label="linked folders"))
        self.schedule()
        return True

    def _publish(self, changes: ChangeSet) -> None:
        self._syncing = True   # what the views do with it is not a change to write back
        try:
            self.shell.publish(changes)
        finally:
            self._syncing = False

    def _ask_conflict(self, conflict: linked.Conflict) -> str | None:
        dialog = ConflictDialog(conflict, self.shell)
        dialog.exec()
        return dialog.choice

    def rewatch(self) -> None:
        """Watch each linked folder and its skills' folders and files (set again only when they change)."""
        paths = set()
        for folder in linked.linked_folders(self.shell.store):
            root = Path(folder)
            if root.is_dir():
                paths.add(str(root))
                for skill in discover(root):
                    paths.add(str(skill))
                    paths.update(str(p) for p in skill.rglob("*") if not p.is_symlink())   # edits in place too
        watched = set(self.watch.directories()) | set(self.watch.files())   # Qt drops paths that went away
        if paths == watched:
            return
        if watched - paths:
            self.watch.removePaths(sorted(watched - paths))
        if paths - watched:
            self.watch.addPaths(sorted(paths - watched))


class LinksDialog(QDialog):
    def __init__(self, owner: LinkedFeature, parent: QWidget | None = None):
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
                                "written back; no version-control commands are run):"))
        layout.addWidget(self.list, 1)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(close)
        self.resize(640, 360)
        self.refresh()

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
            self.status.setText(summary(report))
        self.refresh()

    def _sync(self) -> None:
        reports = self.owner.sync()
        self.status.setText("; ".join(f"{r.folder}: {summary(r)}" for r in reports) or "Nothing is linked.")
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


def summary(r: linked.SyncReport) -> str:
    parts = [f"{len(r.imported)} imported" if r.imported else "", f"{len(r.written)} written back" if r.written else "",
             f"renamed on disk: {', '.join(r.renamed)}" if r.renamed else "",
             f"{len(r.conflicts)} changed on both sides" if r.conflicts else "",
             f"{len(r.gone_on_disk)} removed on disk (kept)" if r.gone_on_disk else "",
             f"{len(r.gone_in_store)} deleted in the studio (folders kept)" if r.gone_in_store else "",
             f"{len(r.errors)} could not be read: {r.errors[0]}" if r.errors else ""]
    return ", ".join(p for p in parts if p) or "in step"


def sync_changes(reports: list[linked.SyncReport]) -> ChangeSet:
    """What a sync changed in the store: the skills read from disk (new or changed there, and those
    renamed on disk, under their new names)."""
    names = [n for r in reports for n in r.imported] + [e.split(" → ")[-1] for r in reports for e in r.renamed]
    return ChangeSet.of(added=names, links=True, label="linked folders")
