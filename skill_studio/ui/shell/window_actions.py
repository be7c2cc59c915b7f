"""The window's own actions: new, import and export of skills, the designer tabs (save, close),
the clipboard and search on the library page, how skills are shown (cards, list, theme), about."""

from __future__ import annotations

from functools import partial
from html import escape

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from skill_studio import __version__
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui import theme
from skill_studio.ui.long_task import TaskRun, progress_text, run_in_progress_dialog, show_summary
from skill_studio.ui.shell.feature import (
    CONTEXT,
    ActionSpec,
    Feature,
    MenuSpec,
    any_selected,
    at,
    in_designer,
    one_selected,
)

THEMES = ("system", "light", "dark")


def _can_save(shell) -> bool:
    designer = shell.current_designer()
    return designer is not None and not designer.session.read_only


class WindowActions(Feature):
    """What the window does itself, declared like any feature's actions."""

    id = "window"

    def __init__(self, shell):
        super().__init__(shell)
        self.import_report = None   # the report of the last import while it is open
        self.indexing: TaskRun | None = None   # the imported skills being indexed for search
        #: where an export goes (a folder; "" when the user gives up): replaceable, e.g. in tests
        self.pick_export_folder = lambda: QFileDialog.getExistingDirectory(self.shell, "Export skills to folder")
        #: how an outcome with details is shown: show_summary(parent, title, text, details)
        self.show_summary = show_summary

    def action_specs(self) -> list[ActionSpec]:
        w = self.shell
        specs = [
            ActionSpec("new_skill", "&New skill…", self.new_skill, QKeySequence.New, "Create a skill from the template",
                       places=(at("File", 0, 0),), toolbar=(0, 0)),
            ActionSpec("import", "&Import…", self.import_dialog, "Ctrl+I", "Import skill folders or .skill/.zip files",
                       places=(at("File", 0, 1),), toolbar=(0, 1)),
            ActionSpec("save", "&Save", self.save_current, QKeySequence.Save, "Save the open skill as a new version",
                       places=(at("File", 1, 0),), enabled=_can_save),
            ActionSpec("save_copy", "Save as &copy", self.save_current_as_copy, None,
                       "Save the open skill's text as a new skill", places=(at("File", 1, 1),), enabled=in_designer),
            ActionSpec("close_tab", "Close &tab", self.close_current_tab, QKeySequence.Close, "Close the designer tab",
                       places=(at("File", 1, 2),), enabled=in_designer),
            ActionSpec("export", "&Export selection…", lambda: self.export_selection(False), "Ctrl+E",
                       "Write the selected skills as folders", scope="library", enabled=any_selected,
                       places=(at("File", 2, 0), at("Skill", 1, 0), at(CONTEXT, 1, 0)), toolbar=(0, 2)),
            ActionSpec("export_zip", "Export selection as &zip…", lambda: self.export_selection(True), "Ctrl+Shift+E",
                       "Write each selected skill as a .zip", scope="library", enabled=any_selected,
                       places=(at("File", 2, 20), at("Skill", 1, 1), at(CONTEXT, 1, 1))),
            ActionSpec("quit", "&Quit", w.close, QKeySequence.Quit, places=(at("File", 3, 99),)),
            ActionSpec("copy_names", "&Copy name", self.copy_names, QKeySequence.Copy,
                       "Copy the selected skills' names", scope="browser", enabled=any_selected,
                       places=(at("Edit", 1, 0), at(CONTEXT, 2, 0))),
            ActionSpec("find", "&Find", w.browser.focus_search, QKeySequence.Find, "Search skills", scope="library",
                       places=(at("Edit", 1, 1),)),
            ActionSpec("select_all", "Select &all", w.browser.select_all, QKeySequence.SelectAll, scope="library",
                       places=(at("Edit", 1, 2),)),
            ActionSpec("view_cards", "&Cards", lambda: self.set_view_mode("cards"), "Ctrl+1", "Show skills as cards",
                       places=(at("View", 0, 0),), toolbar=(1, 0), checkable=True, exclusive="view"),
            ActionSpec("view_list", "&List", lambda: self.set_view_mode("list"), "Ctrl+2", "Show skills as a list",
                       places=(at("View", 0, 1),), toolbar=(1, 1), checkable=True, exclusive="view"),
            ActionSpec("refresh", "&Refresh", w.refresh, QKeySequence.Refresh, "Read the store again",
                       places=(at("View", 2, 0),)),
            ActionSpec("open", "&Open in designer", self.open_selected, "Ctrl+O",
                       "Edit the selected skill in the designer", scope="library", enabled=one_selected,
                       places=(at("Skill", 0, 0), at(CONTEXT, 0, 0))),
            ActionSpec("about", "&About Skill Studio", self.about, places=(at("Help", 0, 0),)),
        ]
        for i, name in enumerate(THEMES):
            specs.append(ActionSpec(f"theme_{name}", name.capitalize(),
                                    lambda _checked=False, n=name: self.set_theme(n),
                                    places=(at("View/Theme", 0, i),), checkable=True,
                                    checked=w.settings.theme == name, exclusive="theme"))
        return specs

    def menu_specs(self) -> list[MenuSpec]:
        return [MenuSpec("View/Theme", "&Theme", (at("View", 1, 0),))]

    def selection_changed(self, names: list[str]) -> None:
        self.shell.action("copy_names").setText("&Copy names" if len(names) > 1 else "&Copy name")

    # --- skills -------------------------------------------------------------------------

    def new_skill(self) -> None:
        from skill_studio.ui.library.skill_actions import new_skill

        w = self.shell
        made = new_skill(w, w.store)
        changes = made if isinstance(made, ChangeSet) else ChangeSet.of(added=[made] if made else [])
        if changes:
            w.publish(changes)
            name = next(iter(changes.added), None)
            if name:
                w.reveal(name)
                w.open_designer(name)

    def import_dialog(self) -> None:
        """Choose a folder or archives (.zip, .skill) and import them as if dropped on the window."""
        chooser = ImportChooser(self.shell)
        try:
            if chooser.exec() and chooser.paths:
                self.import_paths(chooser.paths)
        finally:
            chooser.deleteLater()

    def import_paths(self, paths: list[str]) -> None:
        from skill_studio.ui.library.import_flow import import_changes, run_import

        w = self.shell
        report = run_import(w, w.store, paths, show_report=self._show_import_report,
                            show_message=w.tell) if paths else None
        if report is None:
            return
        with w.batch():   # the import and the merges of its extracted skills are one change
            review = w.feature("review")
            if report.undo is not None and report.undo.names and review is not None:
                review.record(report.undo)   # Ctrl+Z undoes those merges
            w.publish(import_changes(report))
        w.show_status(f"Import: {report.summary}", 15_000)
        self.index_for_search()

    def index_for_search(self) -> None:
        """Index for search, on a worker thread, the skills an import left waiting; the status bar
        says how far it got ("Indexing for search 4500 of 10000…"). A search in between indexes what
        is left first, so it finds every skill all the same (it only waits for it)."""
        from skill_studio.core.ops.library import index_for_search

        w = self.shell
        if (self.indexing is not None and self.indexing.running()) or not w.store.waiting_for_index():
            return   # (a run under way indexes every skill waiting, those of a later import too)
        self.indexing = TaskRun(index_for_search, w.store, w, "search-index")
        self.indexing.progressed.connect(self._indexing_progressed)
        self.indexing.ended.connect(self._indexed)
        self.indexing.start()

    @Slot(str, int, int)
    def _indexing_progressed(self, stage: str, done: int, total: int) -> None:
        self.shell.show_status(progress_text(stage, done, total), 5_000)

    @Slot()
    def _indexed(self) -> None:
        run = self.indexing
        if run is None or self.shell.store.closed:
            return
        if run.error is not None:   # the store said no: the next search indexes them instead
            self.shell.show_status(f"Indexing for search stopped: {run.error}", 15_000)
        elif isinstance(run.result, int) and run.result:
            self.shell.show_status(f"Indexed {run.result} imported skill{'s' if run.result != 1 else ''} "
                                   "for search.", 5_000)

    def shutdown(self) -> None:
        """Stop indexing (what is left is indexed by the next search, or the next import)."""
        if self.indexing is not None:
            self.indexing.stop()

    def _show_import_report(self, parent, report) -> None:
        """The report opens beside the window (not modal), so the user can read it while working."""
        from skill_studio.ui.library.import_flow import ImportReportDialog

        self.import_report = ImportReportDialog(report, self.shell)
        self.import_report.setAttribute(Qt.WA_DeleteOnClose)
        self.import_report.destroyed.connect(self._report_closed)
        self.import_report.show()

    def _report_closed(self, *_args) -> None:
        self.import_report = None

    def export_selection(self, as_zip: bool) -> list[str]:
        """Write the selected skills into a folder the user picks, on a worker thread with progress
        and Cancel; the status bar says what was written, and a box lists what was not. Returns the
        paths written."""
        from skill_studio.core.ops.library import ExportClash, export_plan, export_skills

        w = self.shell
        names = w.selected_names()
        if not names:
            return []
        try:
            export_plan(w.store, names)
        except ExportClash as e:
            w.tell(w, "Export refused", "These skills would be written to the same folder name; export them "
                   "separately:\n\n" + "\n".join(f"• {', '.join(group)}" for group in e.groups))
            return []
        dest = self.pick_export_folder()
        if not dest:
            return []
        kind = "zip files" if as_zip else "folders"
        run = run_in_progress_dialog(w, "Export skills", f"Exporting {len(names)} skill(s)…",
                                     TaskRun(partial(export_skills, names=names, dest=dest, as_zip=as_zip),
                                             w.store, w, "export"))
        if run.error is not None:
            w.tell(w, "Export failed", f"Nothing more was exported to {dest}: {run.error.split(': ', 1)[-1]}")
            return []
        exported = run.result
        written = [str(path) for _name, path in exported.written]
        n = len(written)
        text = (f"{'Export stopped: exported' if exported.stopped else 'Exported'} {n} skill{'s' if n != 1 else ''} "
                f"to {dest} as {kind}")
        if exported.failed:
            text += f"; {len(exported.failed)} could not be written"
        if exported.stopped:
            text += f"; {len(names) - n - len(exported.failed)} not reached"
        w.show_status(text + ".", 15_000)
        if exported.failed or exported.stopped:
            details = [f"{name}: {why}" for name, why in exported.failed.items()]
            details += [f"Written: {path}" for path in written]
            self.show_summary(w, "Export stopped" if exported.stopped else "Export problems", text + ".", details)
        return written

    def open_selected(self) -> None:
        names = self.shell.selected_names()
        if len(names) == 1:
            self.shell.open_designer(names[0])

    def copy_names(self) -> None:
        """The selected skills' names on the clipboard, one per line (the search field copies its text)."""
        w = self.shell
        if w.browser.search.hasFocus():
            w.browser.search.copy()
            return
        names = w.selected_names()
        if names:
            QApplication.clipboard().setText("\n".join(names))
            w.show_status(f"Copied {len(names)} name{'s' if len(names) != 1 else ''}", 3000)

    # --- designer tabs ------------------------------------------------------------------

    def save_current(self) -> None:
        designer = self.shell.current_designer()
        if designer is not None:
            designer.save()

    def save_current_as_copy(self) -> None:
        designer = self.shell.current_designer()
        if designer is not None:
            designer.save_as_copy()

    def close_current_tab(self) -> None:
        workspace = self.shell.workspace
        index = workspace.currentIndex()
        if index > 0:
            workspace.close_designer(index)

    # --- how skills are shown -----------------------------------------------------------

    def set_view_mode(self, mode: str) -> None:
        """Cards or list on the library page (in place of any other page shown there)."""
        self.shell.show_browser()
        self.shell.browser.set_view_mode(mode)
        self.show_view_mode()

    def show_view_mode(self) -> None:
        self.shell.action("view_cards" if self.shell.browser.view_mode() == "cards" else "view_list").setChecked(True)

    def set_theme(self, name: str) -> None:
        self.shell.settings.theme = name
        theme.apply_theme(QApplication.instance(), theme.tokens_for(name))
        self.shell.browser.viewport_update()

    def about(self) -> None:
        w = self.shell
        QMessageBox.about(w, "About Skill Studio", f"<h3>Skill Studio {__version__}</h3><p>Build, review and "
                          f"maintain libraries of agent skills.</p><p>Store: {escape(str(w.store.path))}</p>"
                          "<p>New here? Help › Getting started shows where to begin and what the words "
                          "mean.</p>")


class ImportChooser(QDialog):
    """File ▸ Import: a folder (one skill, or a tree of them) or archives (.zip, .skill); what is
    chosen is in ``paths`` and goes through the same import as files dropped on the window."""

    ARCHIVES = "Skill archives (*.zip *.skill);;All files (*)"

    def __init__(self, parent: QWidget | None = None, start: str = ""):
        super().__init__(parent)
        self.setWindowTitle("Import skills")
        self.paths: list[str] = []
        self._start = start
        text = QLabel("Import a skill folder, a folder holding many skills, or skill archives (.zip or "
                      ".skill). You can also drop folders and archives on the window.", wordWrap=True)
        self.folder_button = QPushButton("Choose folder…")
        self.archive_button = QPushButton("Choose archives…")
        self.folder_button.clicked.connect(self.choose_folder)
        self.archive_button.clicked.connect(self.choose_archives)
        buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        buttons.addButton(self.folder_button, QDialogButtonBox.ActionRole)
        buttons.addButton(self.archive_button, QDialogButtonBox.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(buttons)
        self.setMinimumWidth(440)

    @Slot()
    def choose_folder(self) -> None:
        self._chosen([QFileDialog.getExistingDirectory(self, "Import a skill folder", self._start)])

    @Slot()
    def choose_archives(self) -> None:
        self._chosen(QFileDialog.getOpenFileNames(self, "Import skill archives", self._start, self.ARCHIVES)[0])

    def _chosen(self, paths: list[str]) -> None:
        self.paths = [p for p in paths if p]
        if self.paths:
            self.accept()
