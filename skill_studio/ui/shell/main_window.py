"""The main window: a frame that assembles the browser, the detail panel, menus and the toolbar."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMenu, QMessageBox, QSplitter, QVBoxLayout, QWidget

from skill_studio import __version__
from skill_studio.core.store import Store
from skill_studio.ui import theme
from skill_studio.ui.library.browser import BrowserWidget
from skill_studio.ui.library.detail_panel import DetailPanel
from skill_studio.ui.library.models import SkillListModel
from skill_studio.ui.library.stats_bar import StatsBar
from skill_studio.ui.safe_text import warning
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.store_watch import StoreWatcher
from skill_studio.ui.shell.workspace import Workspace


class MainWindow(QMainWindow):
    """Skill Studio's window over one store."""

    storeChanged = Signal()  # this window changed the store (import, new, delete)

    def __init__(self, store: Store, settings: StudioSettings, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.settings = settings
        self.setWindowTitle(f"Skill Studio — {store.path.name}")
        self.setAcceptDrops(True)

        self.model = SkillListModel(store, self)
        self.browser = BrowserWidget(self.model, self)
        self.stats = StatsBar(store, self)
        self.details = DetailPanel(store, self)

        left = QWidget(self)
        layout = QVBoxLayout(left)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.stats)
        self.splitter = QSplitter(Qt.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.details)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([900, 360])
        self.workspace = Workspace(store, self.splitter, self)
        self.setCentralWidget(self.workspace)

        self.actions: dict[str, QAction] = {}
        self.import_report = None
        # How the window tells the user things (replaceable, e.g. in tests).
        self.tell = warning
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self.store_label = QLabel(f"Store: {store.path}", self)
        self.store_label.setProperty("role", "muted")
        self.problems_label = QLabel(self)  # the open skill's problem counts
        self.statusBar().addPermanentWidget(self.problems_label)
        self.statusBar().addPermanentWidget(self.store_label)
        self.workspace.currentChanged.connect(self._tab_changed)
        self.workspace.problemsChanged.connect(self._tab_changed)
        self._tab_changed()

        self.browser.selectionChanged.connect(self._on_selection)
        for view in (self.browser.card_view, self.browser.table_view):
            view.setContextMenuPolicy(Qt.CustomContextMenu)
            view.customContextMenuRequested.connect(lambda pos, v=view: self._context_menu_at(v, pos))
        self.browser.filtersChanged.connect(self.stats.update_stats)
        self.browser.skillActivated.connect(self.open_designer)
        self.details.openRequested.connect(self.open_designer)
        self.workspace.storeChanged.connect(self._changed_by_designer)
        self.workspace.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.details.skillLinkActivated.connect(self.reveal)
        self.watcher = StoreWatcher(store, parent=self)
        self.watcher.changedElsewhere.connect(self.refresh)
        self.watcher.changedElsewhere.connect(self.workspace.store_changed)

        from skill_studio.ui.agents.window_agents import WindowAgents
        from skill_studio.ui.agents.window_linked import WindowLinked
        from skill_studio.ui.bindings.window_bindings import WindowBindings
        from skill_studio.ui.graph.window_graph import WindowGraph
        from skill_studio.ui.review.window_review import WindowReview

        self.review = WindowReview(self)
        self.watcher.changedElsewhere.connect(self.review.queue.refresh)

        self.graph = WindowGraph(self)
        self.bindings = WindowBindings(self)
        self.agents = WindowAgents(self)
        self.linked = WindowLinked(self)
        self.browser.restore_state(settings.browser_state)  # applies the saved filters once
        self.stats.update_stats(self.model.filters)
        self._on_selection(self.browser.selected_names())
        self._restore_geometry()

    # --- actions --------------------------------------------------------------

    def _action(self, key: str, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        action.setObjectName(key)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(tip or text.replace("&", "").replace("…", ""))
        action.setStatusTip(action.toolTip())
        action.triggered.connect(slot)
        self.actions[key] = action
        return action

    def _build_actions(self) -> None:
        a = self._action
        a("new_skill", "&New skill…", self.new_skill, QKeySequence.New, "Create a skill from the template")
        a("import", "&Import…", self.import_dialog, "Ctrl+I", "Import skill folders or .skill/.zip files")
        a("export", "&Export selection…", lambda: self.export_selection(False), "Ctrl+E",
          "Write the selected skills as folders")
        a("export_zip", "Export selection as &zip…", lambda: self.export_selection(True), "Ctrl+Shift+E",
          "Write each selected skill as a .zip")
        a("delete", "&Delete…", self.delete_selection, QKeySequence.Delete, "Delete the selected skills")
        a("open", "&Open in designer", self.open_selected, "Ctrl+O", "Edit the selected skill in the designer")
        a("copy_names", "&Copy name", self.copy_names, QKeySequence.Copy, "Copy the selected skills' names")
        # Ctrl+C copies names only where the skills are; text fields elsewhere keep their own copy.
        self.actions["copy_names"].setShortcutContext(Qt.WidgetWithChildrenShortcut)
        self.browser.addAction(self.actions["copy_names"])
        a("save", "&Save", self.save_current, QKeySequence.Save, "Save the open skill as a new version")
        a("save_copy", "Save as &copy", self.save_current_as_copy, None, "Save the open skill's text as a new skill")
        a("close_tab", "Close &tab", self.close_current_tab, QKeySequence.Close, "Close the designer tab")
        a("quit", "&Quit", self.close, QKeySequence.Quit)
        a("find", "&Find", self.browser.focus_search, QKeySequence.Find, "Search skills")
        a("select_all", "Select &all", self.browser.select_all, QKeySequence.SelectAll)
        a("view_cards", "&Cards", lambda: self.set_view_mode("cards"), "Ctrl+1", "Show skills as cards")
        a("view_list", "&List", lambda: self.set_view_mode("list"), "Ctrl+2", "Show skills as a list")
        a("refresh", "&Refresh", self.refresh, QKeySequence.Refresh, "Read the store again")
        a("about", "&About Skill Studio", self.about)
        # Keys that act on the library work on its page only, so that in a designer Delete,
        # Ctrl+F and Ctrl+A stay the editor's.
        for key in ("export", "export_zip", "delete", "open", "find", "select_all"):
            self.actions[key].setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.splitter.addAction(self.actions[key])
        group = QActionGroup(self)
        for key in ("view_cards", "view_list"):
            self.actions[key].setCheckable(True)
            group.addAction(self.actions[key])
        self.theme_group = QActionGroup(self)
        for name in ("system", "light", "dark"):
            act = a(f"theme_{name}", name.capitalize(), lambda checked=False, n=name: self.set_theme(n))
            act.setCheckable(True)
            act.setChecked(self.settings.theme == name)
            self.theme_group.addAction(act)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        for key in ("new_skill", "import", None, "save", "save_copy", "close_tab", None, "export", "export_zip"):
            file_menu.addAction(self.actions[key]) if key else file_menu.addSeparator()
        file_menu.addSeparator()
        file_menu.addAction(self.actions["quit"])
        edit = bar.addMenu("&Edit")
        edit.addAction(self.actions["copy_names"])
        edit.addAction(self.actions["find"])
        edit.addAction(self.actions["select_all"])
        view = bar.addMenu("&View")
        view.addAction(self.actions["view_cards"])
        view.addAction(self.actions["view_list"])
        view.addSeparator()
        themes = view.addMenu("&Theme")
        for name in ("system", "light", "dark"):
            themes.addAction(self.actions[f"theme_{name}"])
        view.addSeparator()
        view.addAction(self.actions["refresh"])
        skill = bar.addMenu("&Skill")
        skill.addAction(self.actions["open"])
        skill.addSeparator()
        skill.addAction(self.actions["export"])
        skill.addAction(self.actions["export_zip"])
        skill.addSeparator()
        skill.addAction(self.actions["delete"])
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.actions["about"])

    def _build_toolbar(self) -> None:
        tb = self.addToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonTextOnly)
        for key in ("new_skill", "import", "export", "delete"):
            tb.addAction(self.actions[key])
        tb.addSeparator()
        tb.addAction(self.actions["view_cards"])
        tb.addAction(self.actions["view_list"])

    # --- behaviour ------------------------------------------------------------

    def _on_selection(self, names: list) -> None:
        self.details.show_skill(names[0] if len(names) == 1 else None)
        has = bool(names)
        for key in ("export", "export_zip", "delete", "copy_names"):
            self.actions[key].setEnabled(has)
        self.actions["open"].setEnabled(len(names) == 1)
        self.actions["copy_names"].setText("&Copy names" if len(names) > 1 else "&Copy name")
        if hasattr(self, "review"):
            self.review.selection_changed(names)
        if len(names) > 1:
            self.statusBar().showMessage(f"{len(names)} selected")

    def context_menu(self) -> QMenu:
        """What a right click on the selected skills offers."""
        menu = QMenu(self)
        for key in ("open", None, "export", "export_zip", None, "copy_names", None, "delete"):
            if key is None:
                menu.addSeparator()
            else:
                menu.addAction(self.actions[key])
        self.review.add_to_context_menu(menu)
        return menu

    def _context_menu_at(self, view, pos) -> None:
        index = view.indexAt(pos)
        if index.isValid() and self.model.name_at(index.row()) not in self.browser.selected_names():
            self.browser.select_name(self.model.name_at(index.row()))  # a right click selects what it is on
        if not self.browser.selected_names():
            return
        menu = self.context_menu()
        menu.setAttribute(Qt.WA_DeleteOnClose)
        menu.popup(view.viewport().mapToGlobal(pos))

    def copy_names(self) -> None:
        """The selected skills' names on the clipboard, one per line (the search field copies its text)."""
        if self.browser.search.hasFocus():
            self.browser.search.copy()
            return
        names = self.browser.selected_names()
        if names:
            QApplication.clipboard().setText("\n".join(names))
            self.statusBar().showMessage(f"Copied {len(names)} name{'s' if len(names) != 1 else ''}", 3000)

    def open_designer(self, name: str):
        """Open the skill in a designer tab (or bring its tab forward)."""
        return self.workspace.open_skill(name)

    def open_selected(self) -> None:
        names = self.browser.selected_names()
        if len(names) == 1:
            self.open_designer(names[0])

    def _tab_changed(self, _index: int = -1) -> None:
        designer = self.workspace.current_designer()
        for key in ("save", "save_copy", "close_tab"):
            self.actions[key].setEnabled(designer is not None)
        if designer is not None:
            self.actions["save"].setEnabled(not designer.session.read_only)
        self.problems_label.setText(designer.problems.summary() if designer is not None else "")

    def save_current(self) -> None:
        designer = self.workspace.current_designer()
        if designer is not None:
            designer.save()

    def save_current_as_copy(self) -> None:
        designer = self.workspace.current_designer()
        if designer is not None:
            designer.save_as_copy()

    def close_current_tab(self) -> None:
        index = self.workspace.currentIndex()
        if index > 0:
            self.workspace.close_designer(index)

    def _changed_by_designer(self) -> None:
        self.refresh()
        self.storeChanged.emit()

    def set_view_mode(self, mode: str) -> None:
        self.browser.set_view_mode(mode)
        self.actions["view_cards" if mode == "cards" else "view_list"].setChecked(True)

    def set_theme(self, name: str) -> None:
        self.settings.theme = name
        theme.apply_theme(QApplication.instance(), theme.tokens_for(name))
        self.browser.viewport_update()

    def reveal(self, name: str) -> None:
        """Show a skill: clear filters that hide it, select it in the browser."""
        if self.model.row_of(name) < 0:
            self.browser.clear_filters()
        self.browser.select_name(name)
        self.details.show_skill(name)

    def refresh(self) -> None:
        self.browser.refresh()
        self.stats.update_stats(self.model.filters, library_changed=True)
        self._on_selection(self.browser.selected_names())

    def _changed(self) -> None:
        self.refresh()
        self.storeChanged.emit()

    def import_paths(self, paths: list[str]) -> None:
        from skill_studio.ui.library.import_flow import run_import

        report = run_import(self, self.store, paths, show_report=self._show_import_report,
                            show_message=self.tell) if paths else None
        if report is not None:
            if report.undo is not None and report.undo.names:  # extracted skills merged on import
                self.review.actions.record(report.undo)
            self._changed()
            self.statusBar().showMessage(f"Import: {report.summary}", 15_000)

    def _show_import_report(self, parent, report) -> None:
        """The report opens beside the window (not modal), so the user can read it while working."""
        from skill_studio.ui.library.import_flow import ImportReportDialog

        self.import_report = ImportReportDialog(report, self)
        self.import_report.setAttribute(Qt.WA_DeleteOnClose)
        self.import_report.show()

    def import_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        dialog = QFileDialog(self, "Import skills")
        dialog.setFileMode(QFileDialog.Directory)
        dialog.setOption(QFileDialog.ShowDirsOnly, False)
        if dialog.exec():
            self.import_paths(dialog.selectedFiles())

    def export_selection(self, as_zip: bool) -> None:
        from skill_studio.ui.library.skill_actions import export_skills

        names = self.browser.selected_names()
        if names:
            written = export_skills(self, self.store, names, as_zip=as_zip, show_message=self.tell)
            if written:
                self.statusBar().showMessage(f"Exported {len(written)} skill(s) to {Path(written[0]).parent}")

    def new_skill(self) -> None:
        from skill_studio.ui.library.skill_actions import new_skill

        name = new_skill(self, self.store)
        if name:
            self._changed()
            self.reveal(name)
            self.open_designer(name)

    def delete_selection(self) -> None:
        """Delete the selected skills (asks first; refusals name the skills that need them; Ctrl+Z undoes)."""
        self.review.actions.delete(self.browser.selected_names())

    def about(self) -> None:
        QMessageBox.about(self, "About Skill Studio", f"<h3>Skill Studio {__version__}</h3><p>Build, review and "
                          f"maintain libraries of agent skills.</p><p>Store: {escape(str(self.store.path))}</p>")

    # --- drag and drop --------------------------------------------------------

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    dragMoveEvent = dragEnterEvent

    def dropEvent(self, event) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        event.acceptProposedAction()
        self.import_paths(paths)

    # --- geometry -------------------------------------------------------------

    def _restore_geometry(self) -> None:
        geometry = self.settings.geometry("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1280, 800)
        splitter = self.settings.geometry("splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)
        self.actions["view_cards" if self.browser.view_mode() == "cards" else "view_list"].setChecked(True)

    def save_state(self) -> None:
        self.settings.set_geometry("geometry", self.saveGeometry())
        self.settings.set_geometry("splitter", self.splitter.saveState())
        self.settings.browser_state = self.browser.state()
        self.settings.sync()

    def closeEvent(self, event) -> None:
        if not self.workspace.close_all():  # the author kept a designer with unsaved changes open
            event.ignore()
            return
        self.watcher.stop()
        self.browser.filter_bar.cancel_pending_search()  # no search runs after the window is gone
        self.save_state()
        super().closeEvent(event)
