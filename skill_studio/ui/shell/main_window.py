"""The main window as a frame: the library page, the tabs, the status bar; menus, toolbar and the
skills' context menu built in one place from what the features declare; one change hook."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Store
from skill_studio.ui.library.browser import BrowserWidget
from skill_studio.ui.library.detail_panel import DetailPanel
from skill_studio.ui.library.models import SkillListModel
from skill_studio.ui.library.stats_bar import StatsBar
from skill_studio.ui.safe_text import warning
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.feature import CONTEXT, ActionSpec, Feature, MenuSpec, PageSpec, Place, groups
from skill_studio.ui.shell.store_watch import StoreWatcher
from skill_studio.ui.shell.window_actions import WindowActions
from skill_studio.ui.shell.workspace import Workspace

#: The menu bar, in this order: (path, title).
TOP_MENUS = (("File", "&File"), ("Edit", "&Edit"), ("View", "&View"), ("Skill", "&Skill"), ("Help", "&Help"))


class MainWindow(QMainWindow):
    """Skill Studio's window over one store.

    ``changed(ChangeSet)`` is the one way changes reach the views: emitted once per operation
    (:meth:`publish`) and for changes another process made (the store watcher).
    """

    changed = Signal(object)   # ChangeSet

    def __init__(self, store: Store, settings: StudioSettings, parent: QWidget | None = None, *,
                 features: Sequence[type[Feature]] | None = None):
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
        self.library_stack = QStackedWidget(left)   # the skills' views, or a feature's library page
        self.library_stack.addWidget(self.browser)
        layout.addWidget(self.library_stack, 1)
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
        self.tell = warning   # how the window tells the user things (replaceable, e.g. in tests)
        self.store_label = QLabel(f"Store: {store.path}", self)
        self.store_label.setProperty("role", "muted")
        self.problems_label = QLabel(self)  # the open skill's problem counts
        self.statusBar().addPermanentWidget(self.problems_label)
        self.statusBar().addPermanentWidget(self.store_label)
        self.watcher = StoreWatcher(store, parent=self)

        self._specs: dict[str, ActionSpec] = {}
        self._menus: dict[str, QMenu] = {}
        self._pages: dict[str, PageSpec] = {}
        self._open_pages: dict[str, QWidget] = {}
        self._pending: ChangeSet | None = None   # collected while a batch is open
        if features is None:
            from skill_studio.ui.shell.features import FEATURES

            features = FEATURES
        self.window_actions = WindowActions(self)
        self.features: list[Feature] = [self.window_actions, *(f(self) for f in features)]
        self._build()

        self.changed.connect(self._apply_changes)
        for feature in self.features:
            self.changed.connect(feature.changes_applied)
        self.watcher.changedElsewhere.connect(self._changed_elsewhere)
        self.workspace.changed.connect(self.publish)
        self.workspace.currentChanged.connect(self._tab_changed)
        self.workspace.problemsChanged.connect(self._tab_changed)
        self.workspace.statusMessage.connect(lambda text: self.show_status(text, 5000))
        self.browser.selectionChanged.connect(self._on_selection)
        for view in (self.browser.card_view, self.browser.table_view):
            view.setContextMenuPolicy(Qt.CustomContextMenu)
            view.customContextMenuRequested.connect(lambda pos, v=view: self._context_menu_at(v, pos))
        self.browser.filtersChanged.connect(self.stats.update_stats)
        self.browser.skillActivated.connect(self.open_designer)
        self.details.openRequested.connect(self.open_designer)
        self.details.skillLinkActivated.connect(self.reveal)
        for feature in self.features:
            feature.attach()
        self.browser.restore_state(settings.browser_state)  # applies the saved filters once
        self.window_actions.show_view_mode()
        self.stats.update_stats(self.model.filters)
        self._tab_changed()
        self._on_selection(self.browser.selected_names())
        self._restore_geometry()

    # --- building from the declarations ----------------------------------------------

    def _build(self) -> None:
        exclusive: dict[str, QActionGroup] = {}
        entries: dict[str, list[tuple[Place, object]]] = {}
        toolbar: list[tuple[Place, object]] = []
        for feature in self.features:
            for spec in feature.action_specs():
                action = self._make_action(spec)
                if spec.exclusive:
                    exclusive.setdefault(spec.exclusive, QActionGroup(self)).addAction(action)
                for place in spec.places:
                    entries.setdefault(place.menu, []).append((place, spec.id))
                if spec.toolbar is not None:
                    toolbar.append((Place("", *spec.toolbar), spec.id))
            for menu in feature.menu_specs():
                self._menus[menu.path] = QMenu(menu.title, self)
                for place in menu.places:
                    entries.setdefault(place.menu, []).append((place, menu))
            for page in feature.page_specs():
                self._pages[page.id] = page
        bar = self.menuBar()
        unknown = set(entries) - set(self._menus) - {path for path, _ in TOP_MENUS} - {CONTEXT}
        if unknown:
            raise ValueError(f"entries declared for menus no one declares: {', '.join(sorted(unknown))}")
        for path, title in TOP_MENUS:
            self._menus[path] = bar.addMenu(title)
        for path, menu in self._menus.items():
            self._fill(menu, entries.get(path, []))
        tb = self.addToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonTextOnly)
        for i, group in enumerate(groups(toolbar)):
            if i:
                tb.addSeparator()
            for action_id in group:
                action = self.actions[str(action_id)]
                tb.addAction(action)
                button = tb.widgetForAction(action)
                if button is not None and not action.icon().isNull():   # an icon is shown beside the word
                    button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self._context_entries = entries.get(CONTEXT, [])
        for page in self._pages.values():
            if page.kind == "fixed":
                widget = page.create(self.workspace)
                self._open_pages[page.id] = widget
                self.workspace.add_fixed_tab(widget, page.title)

    def _make_action(self, spec: ActionSpec) -> QAction:
        if spec.id in self.actions:
            raise ValueError(f"two features declare the action {spec.id!r}")
        action = QAction(spec.text, self)
        action.setObjectName(spec.id)
        if spec.shortcut is not None:
            action.setShortcut(QKeySequence(spec.shortcut))
        action.setToolTip(spec.tip or spec.text.replace("&", "").replace("…", ""))
        action.setStatusTip(action.toolTip())
        if spec.icon is not None:
            action.setIcon(spec.icon)
        if spec.checkable:
            action.setCheckable(True)
            action.setChecked(spec.checked)
        action.triggered.connect(spec.triggered)
        if spec.scope:
            # Keys that act on the library work there only, so that in a designer Delete, Ctrl+F,
            # Ctrl+A and Ctrl+C stay the editor's.
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            (self.browser if spec.scope == "browser" else self.splitter).addAction(action)
        self.actions[spec.id] = action
        self._specs[spec.id] = spec
        return action

    def _fill(self, menu: QMenu, entries: list[tuple[Place, object]]) -> None:
        for i, group in enumerate(groups(entries)):
            if i:
                menu.addSeparator()
            for item in group:
                if isinstance(item, MenuSpec):
                    menu.addMenu(self._menus[item.path])
                else:
                    menu.addAction(self.actions[str(item)])

    def context_menu(self) -> QMenu:
        """What a right click on the selected skills offers."""
        menu = QMenu(self)
        self._fill(menu, self._context_entries)
        return menu

    # --- the public API features use ----------------------------------------------------

    def action(self, action_id: str) -> QAction:
        """The action with this id (KeyError if no feature declares it)."""
        return self.actions[action_id]

    def feature(self, feature_id: str) -> Feature | None:
        return next((f for f in self.features if f.id == feature_id), None)

    def publish(self, changes: ChangeSet) -> None:
        """Tell every view what an operation changed (once; inside :meth:`batch`, when it ends)."""
        if not changes:
            return
        if self._pending is not None:
            self._pending = self._pending | changes
            return
        self.changed.emit(changes)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Everything published inside reaches the views as one change set, at the end."""
        if self._pending is not None:
            yield
            return
        self._pending = ChangeSet()
        try:
            yield
        finally:
            changes, self._pending = self._pending, None
            self.publish(changes)

    def open_page(self, page_id: str) -> QWidget:
        """Show a declared page (made the first time, or again after its tab was closed)."""
        spec = self._pages[page_id]
        widget = self.page(page_id)
        if widget is None:
            parent = self.library_stack if spec.kind == "library" else self.workspace
            widget = spec.create(parent)
            self._open_pages[page_id] = widget
            if spec.kind == "library":
                self.library_stack.addWidget(widget)
            else:
                self.workspace.addTab(widget, spec.title)
        if spec.kind == "library":
            self.workspace.setCurrentIndex(0)
            self.library_stack.setCurrentWidget(widget)
        else:
            self.workspace.setCurrentWidget(widget)
        return widget

    def page(self, page_id: str) -> QWidget | None:
        """The page's widget while it is open, else None."""
        widget = self._open_pages.get(page_id)
        if widget is None or self._pages[page_id].kind == "library":
            return widget
        return widget if self.workspace.holds(widget) else None

    def showing(self, page_id: str) -> bool:
        """Whether the page is the one shown in its place (its tab current, or on the library page)."""
        widget = self.page(page_id)
        if widget is None:
            return False
        if self._pages[page_id].kind == "library":
            return self.library_stack.currentWidget() is widget
        return self.workspace.currentWidget() is widget

    def set_page_title(self, page_id: str, title: str) -> None:
        widget = self.page(page_id)
        if widget is not None and self._pages[page_id].kind != "library":
            self.workspace.setTabText(self.workspace.indexOf(widget), title)

    def show_browser(self) -> None:
        """The skills' views on the library page (in place of a feature's page)."""
        self.library_stack.setCurrentWidget(self.browser)

    def selected_names(self) -> list[str]:
        return self.browser.selected_names()

    def current_designer(self):
        return self.workspace.current_designer()

    def open_designer(self, name: str):
        """Open the skill in a designer tab (or bring its tab forward)."""
        return self.workspace.open_skill(name)

    def reveal(self, name: str) -> None:
        """Show a skill: clear filters that hide it, select it in the browser."""
        if self.model.row_of(name) < 0:
            self.browser.clear_filters()
        self.browser.select_name(name)
        self.details.show_skill(name)

    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def add_status_widget(self, widget: QWidget) -> None:
        """A lasting widget at the right of the status bar, after those added before."""
        self.statusBar().addPermanentWidget(widget)

    # --- kept up to date ----------------------------------------------------------------

    def _changed_elsewhere(self) -> None:
        self.publish(ChangeSet.outside())

    def _apply_changes(self, changes: ChangeSet) -> None:
        """The library page and the designers follow a change set."""
        if changes.skills or changes.unknown:
            self.browser.apply_changes(changes)
            self.stats.update_stats(self.model.filters, library_changed=True)
        shown = self.details.skill_name
        if shown is not None and (changes.membership or changes.bindings or changes.touches([shown])):
            self.details.refresh()
        self.workspace.apply_changes(changes)

    def refresh(self) -> None:
        """Read the store again, everywhere."""
        self.publish(ChangeSet.outside("read again"))

    def _update_enabled(self) -> None:
        for action_id, spec in self._specs.items():
            if spec.enabled is not None:
                self.actions[action_id].setEnabled(bool(spec.enabled(self)))

    def _on_selection(self, names: list) -> None:
        self.details.show_skill(names[0] if len(names) == 1 else None)
        self._update_enabled()
        for feature in self.features:
            feature.selection_changed(names)
        if len(names) > 1:
            self.show_status(f"{len(names)} selected")

    def _tab_changed(self, _index: int = -1) -> None:
        self._update_enabled()
        designer = self.workspace.current_designer()
        self.problems_label.setText(designer.problems.summary() if designer is not None else "")

    def _context_menu_at(self, view, pos) -> None:
        index = view.indexAt(pos)
        if index.isValid() and self.model.name_at(index.row()) not in self.browser.selected_names():
            self.browser.select_name(self.model.name_at(index.row()))  # a right click selects what it is on
        if not self.browser.selected_names():
            return
        menu = self.context_menu()
        menu.setAttribute(Qt.WA_DeleteOnClose)
        menu.popup(view.viewport().mapToGlobal(pos))

    # --- the library's entry points kept on the window -----------------------------------

    def set_view_mode(self, mode: str) -> None:
        self.window_actions.set_view_mode(mode)

    def import_paths(self, paths: list[str]) -> None:
        self.window_actions.import_paths(paths)

    @property
    def import_report(self):
        """The report of the last import while it is open beside the window."""
        return self.window_actions.import_report

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

    # --- geometry and closing ----------------------------------------------------

    def _restore_geometry(self) -> None:
        geometry = self.settings.geometry("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1280, 800)
        splitter = self.settings.geometry("splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)

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
        for feature in self.features:
            feature.shutdown()
        self.browser.filter_bar.cancel_pending_search()  # no search runs after the window is gone
        self.save_state()
        super().closeEvent(event)
