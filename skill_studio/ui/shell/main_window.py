"""The main window as a frame: the library page, the tabs and pages the features declare, the status
bar, and the one change hook. Its actions, menus and toolbar are built by :mod:`.commands`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMainWindow, QMenu, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Store
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.library.browser import BrowserWidget
from skill_studio.ui.library.detail_panel import DetailPanel
from skill_studio.ui.library.models import SkillListModel
from skill_studio.ui.library.stats_bar import StatsBar
from skill_studio.ui.safe_text import warning
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.after_paint import AfterFirstPaint
from skill_studio.ui.shell.commands import Commands
from skill_studio.ui.shell.feature import Feature, PageSpec
from skill_studio.ui.shell.store_watch import StoreWatcher
from skill_studio.ui.shell.window_actions import WindowActions
from skill_studio.ui.shell.workspace import Workspace


class MainWindow(QMainWindow):
    """Skill Studio's window over one store.

    ``changed(ChangeSet)`` is the one way changes reach the views: emitted once per operation
    (:meth:`publish`) and for changes another process made (the store watcher).

    The first frame shows the skills; the stats bar's figures, the tag filter's tags and what
    features leave for later (:meth:`after_first_paint`) come right after it.
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
        self.browser = BrowserWidget(self.model, self, load=False)   # read by restore_state below
        self.stats = StatsBar(store, self, load=False)   # after the first paint
        self.details = DetailPanel(store, self, load=False)   # filled once the selection is known

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
        # The details keep room for their buttons (Open in designer, Lifecycle, Pin) in one row.
        self.details.setMinimumWidth(max(280, self.details.minimumSizeHint().width()))
        self.splitter.setCollapsible(0, False)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([1000, 320])   # the skills first; the details beside them
        self.workspace = Workspace(store, self.splitter, self)
        self.setCentralWidget(self.workspace)

        self.commands = Commands(self, scopes={"browser": self.browser, "library": self.splitter})
        self.actions: dict[str, QAction] = self.commands.actions
        self.tell = warning   # how the window tells the user things (replaceable, e.g. in tests)
        # The store's path leaves out its middle rather than widen the window.
        self.store_label = ElidedLabel(f"Store: {store.path}", self, mode=Qt.ElideMiddle, minimum=120)
        self.store_label.setMaximumWidth(420)
        self.store_label.set_tip(str(store.path))
        self.store_label.setProperty("role", "muted")
        self.problems_label = ElidedLabel("", self)  # the open skill's problem counts
        self.statusBar().addPermanentWidget(self.problems_label)
        self.statusBar().addPermanentWidget(self.store_label)
        self.watcher = StoreWatcher(store, parent=self)

        self._pages: dict[str, PageSpec] = {}
        self._open_pages: dict[str, QWidget] = {}
        self._pending: ChangeSet | None = None   # collected while a batch is open
        self._later = AfterFirstPaint(self, wanted=lambda: not store.closed)   # none after the store closed
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
        for view in (self.browser.card_view, self.browser.table_view):
            view.setContextMenuPolicy(Qt.CustomContextMenu)
            view.customContextMenuRequested.connect(lambda pos, v=view: self._context_menu_at(v, pos))
        self.browser.skillActivated.connect(self.open_designer)
        self.details.openRequested.connect(self.open_designer)
        self.details.skillLinkActivated.connect(self.reveal)
        for feature in self.features:
            feature.attach()
        self.browser.restore_state(settings.browser_state)  # applies the saved filters once
        self.browser.selectionChanged.connect(self._on_selection)   # the restored selection is shown below, once
        self.browser.filtersChanged.connect(self.stats.update_stats)
        self._later.watch(self.browser.current_view().viewport())
        self._later.add(self.browser.load_tags)
        self._later.add(lambda: self.stats.update_stats(self.model.filters))
        self.window_actions.show_view_mode()
        self._tab_changed()
        self._on_selection(self.browser.selected_names())
        self._restore_geometry()

    # --- pages from the declarations -------------------------------------------------

    def _build(self) -> None:
        for feature in self.features:
            for page in feature.page_specs():
                self._pages[page.id] = page
        self.commands.build(self.features)
        for page in self._pages.values():
            if page.kind == "fixed":
                widget = page.create(self.workspace)
                self._open_pages[page.id] = widget
                self.workspace.add_fixed_tab(widget, page.title)

    def context_menu(self) -> QMenu:
        """What a right click on the selected skills offers."""
        return self.commands.context_menu()

    # --- the public API features use ----------------------------------------------------

    def action(self, action_id: str) -> QAction:
        """The action with this id (KeyError if no feature declares it)."""
        return self.actions[action_id]

    def settled(self) -> bool:
        """Whether what waits for the first paint has run (the stats bar's figures, the tags...)."""
        return self._later.done

    def after_first_paint(self, task) -> None:
        """Run ``task`` right after the window's first frame is painted (at once if it was)."""
        self._later.add(task)

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
        self.commands.update_enabled(self)

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
        self.fit_to_screen()
        splitter = self.settings.geometry("splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)

    def fit_to_screen(self) -> None:
        """Keep the window inside the screen's free area (a saved size from a bigger screen, or
        the first size on a small laptop)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        free = screen.availableGeometry()
        frame = self.frameGeometry().size() - self.geometry().size()   # title bar and borders
        width = min(self.width(), free.width() - frame.width())
        height = min(self.height(), free.height() - frame.height())
        if (width, height) != (self.width(), self.height()):
            self.resize(max(width, 320), max(height, 240))
        if not free.contains(self.frameGeometry().topLeft()):
            self.move(free.topLeft())

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
