"""The Graph tab: the dependency graph of the library (or of the skills around one), its problems
beside it, filters, search, layouts and exports. Loading and layout run off the GUI thread;
positions are kept until the graph they were computed for changes."""

from __future__ import annotations

import threading

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QAction, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QSpinBox,
    QSplitter,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.model import Lifecycle, Origin
from skill_studio.ui import theme
from skill_studio.ui.graph import graph_export
from skill_studio.ui.graph.graph_canvas import GraphCanvas
from skill_studio.ui.graph.graph_prep import Prepared, Scope, prepare
from skill_studio.ui.graph.graph_scene import CYCLE_RED, GraphScene
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.safe_text import literal
from skill_studio.ui.task_worker import TaskWorker, WorkerOwner, start_worker

LAYOUTS = (("layered", "Layered"), ("spring", "Force-directed"), ("radial", "Radial"))


class GraphView(WorkerOwner, QWidget):
    """Signals: ``skillSelected`` (a node was clicked), ``openRequested`` (double-clicked)."""

    skillSelected = Signal(str)
    openRequested = Signal(str)
    ready = Signal()

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.scope = Scope()
        self.prepared: Prepared | None = None
        self.selected: str | None = None
        self._cache: dict = {}
        self._thread = self._worker = None
        self._cancel = threading.Event()
        self._again = False
        self._running = False
        self._closed = False
        self._fit_next = True
        self._hits: list[str] = []
        self._hit = -1
        #: ask_save_path(title, suggested name, filter) -> path or "" (replaceable in tests).
        self.ask_save_path = lambda title, name, flt: graph_export.ask_path(self, title, name, flt)
        self.tell = lambda title, text: graph_export.tell(self, title, text)

        self.scene = GraphScene(self)
        self.canvas = GraphCanvas(self.scene, self)
        self.canvas.nodeClicked.connect(self._node_clicked)
        self.canvas.nodeDoubleClicked.connect(self.openRequested)
        self.problem_list = QListWidget(self)
        self.problem_list.setAccessibleName("Graph problems")
        self.problem_list.setWordWrap(True)
        self.problem_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.problem_list.itemClicked.connect(self._problem_clicked)
        self.problem_list.itemActivated.connect(self._problem_clicked)
        self.problems_title = QLabel("Problems", self)
        side = QWidget(self)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.problems_title)
        side_layout.addWidget(self.problem_list)
        splitter = QSplitter(Qt.Horizontal, self)
        splitter.addWidget(self.canvas)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([900, 280])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(self._build_bar())
        layout.addWidget(splitter, 1)
        QShortcut(QKeySequence("F"), self, self.canvas.fit, context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.Find, self, lambda: self.search.setFocus(), context=Qt.WidgetWithChildrenShortcut)

    def _build_bar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        self.scope_combo = QComboBox(self)
        self.scope_combo.addItems(["Whole library", "Around the selected skill"])
        self.scope_combo.setToolTip("Show every skill, or only those a few links from the selected one")
        self.scope_combo.currentIndexChanged.connect(self._scope_changed)
        self.depth = QSpinBox(self)
        self.depth.setRange(1, 8)
        self.depth.setValue(2)
        self.depth.setToolTip("How many links away from the selected skill to show")
        self.depth.valueChanged.connect(self._scope_changed)
        self.layout_combo = QComboBox(self)
        for key, text in LAYOUTS:
            self.layout_combo.addItem(text, key)
        self.layout_combo.setToolTip("Layered: prerequisites above what needs them")
        self.layout_combo.currentIndexChanged.connect(self._scope_changed)
        self.lifecycle_button = self._filter_button("Lifecycle", Lifecycle)
        self.origin_button = self._filter_button("Origin", Origin)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find a skill (Enter: next)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._search_changed)
        self.search.returnPressed.connect(self.next_hit)
        fit = QToolButton(self)
        fit.setText("Fit")
        fit.setToolTip("Show the whole graph (F)")
        fit.clicked.connect(self.canvas.fit)
        self.export_button = QToolButton(self)
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QToolButton.InstantPopup)
        menu = QMenu(self.export_button)
        for text, kind in (("Picture (PNG)…", "png"), ("Drawing (SVG)…", "svg"), ("GraphML…", "graphml"),
                           ("Graphviz DOT…", "dot"), ("JSON…", "json")):
            action = QAction(text, menu)
            action.triggered.connect(lambda _=False, k=kind: self.export(k))
            menu.addAction(action)
        self.export_button.setMenu(menu)
        self.status = QLabel(self)
        self.status.setProperty("role", "muted")
        hops = QLabel("Hops:", self)
        hops.setBuddy(self.depth)
        for w in (self.scope_combo, hops, self.depth, self.layout_combo, self.lifecycle_button, self.origin_button):
            bar.addWidget(w)
        bar.addWidget(self.search, 1)
        bar.addWidget(fit)
        bar.addWidget(self.export_button)
        bar.addWidget(self.status)
        self.depth.setEnabled(False)
        return bar

    def _filter_button(self, text: str, enum) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setPopupMode(QToolButton.InstantPopup)
        button.setToolTip(f"Show skills of these {text.lower()} values")
        menu = QMenu(button)
        for value in enum:
            action = QAction(value.value, menu)
            action.setCheckable(True)
            action.setChecked(True)
            action.setData(value.value)
            action.toggled.connect(self._scope_changed)
            menu.addAction(action)
        button.setMenu(menu)
        return button

    # --- scope ----------------------------------------------------------------

    def _checked(self, button: QToolButton) -> frozenset:
        enum = Lifecycle if button is self.lifecycle_button else Origin
        return frozenset(enum(a.data()) for a in button.menu().actions() if a.isChecked())

    def _scope_changed(self, *_args) -> None:
        focus_mode = self.scope_combo.currentIndex() == 1
        self.depth.setEnabled(focus_mode)
        focus = (self.selected,) if focus_mode and self.selected else ()
        self.set_scope(Scope(focus, self.depth.value(), self.layout_combo.currentData(),
                             self._checked(self.lifecycle_button), self._checked(self.origin_button)))

    def set_scope(self, scope: Scope) -> None:
        if scope != self.scope:
            self._fit_next = self._fit_next or scope.focus != self.scope.focus or scope.layout != self.scope.layout
            self.scope = scope
            self.reload()

    def focus_on(self, names, depth: int | None = None) -> None:
        """Show only ``names`` and what is within the hops around them."""
        self.scope_combo.blockSignals(True)
        self.scope_combo.setCurrentIndex(1)
        self.scope_combo.blockSignals(False)
        self.depth.setEnabled(True)
        if depth is not None:
            self.depth.blockSignals(True)
            self.depth.setValue(depth)
            self.depth.blockSignals(False)
        self._fit_next = True
        self.set_scope(Scope(tuple(names), self.depth.value(), self.layout_combo.currentData(),
                             self._checked(self.lifecycle_button), self._checked(self.origin_button)))

    def set_selected(self, name: str | None) -> None:
        """The browser's selection: outlined here; in focus mode the view moves to it."""
        if name == self.selected:
            return
        self.selected = name
        if self.scope_combo.currentIndex() == 1 and name:
            self._scope_changed()
        self._show_highlights()

    # --- loading --------------------------------------------------------------

    def is_running(self) -> bool:
        return self._running

    def reload(self) -> None:
        """Load the graph again (the store changed, or the scope did), off the GUI thread."""
        if self._closed:
            return
        if self._running:
            self._again = True
            return
        if self._thread is not None:
            self._thread.quit()
            self._thread.wait()
            self._thread.deleteLater()
        self._running, self._again = True, False
        self._cancel = threading.Event()
        scope, cache = self.scope, dict(self._cache)
        self.status.setText("Laying out the graph…")
        worker = TaskWorker(lambda store, progress, cancelled: prepare(store, scope, cache, cancelled=cancelled),
                              self.store, self._cancel)
        worker.succeeded.connect(self._loaded, Qt.QueuedConnection)
        worker.failed.connect(self._failed, Qt.QueuedConnection)
        worker.interrupted.connect(self._finished, Qt.QueuedConnection)
        self._worker = worker
        self._thread = start_worker(worker, self, "graph-layout")

    def apply_changes(self, changes) -> bool:
        """Lay the graph out again when a skill it holds changed, or skills came or went; True if so."""
        full = self.prepared.full if self.prepared is not None else None
        if full is None or not (changes.membership or any(name in full for name in changes.skills)):
            return False
        self.reload()
        return True

    @Slot(object)
    @gui_only
    def _loaded(self, prepared: Prepared) -> None:
        self._cache = {prepared.key: prepared.positions}   # kept until the graph changes
        self.prepared = prepared
        self.scene.build(prepared.view, prepared.positions, prepared.problems)
        self._fill_problems(prepared)
        self._search_changed(self.search.text())   # the hits of the graph now shown
        shown = len(prepared.view)
        edges = len(prepared.view.edges())
        self.status.setText(f"{shown:,} of {len(prepared.full):,} skills · {edges:,} links")
        if self._fit_next:
            self.canvas.fit()
            self._fit_next = False
        else:
            self.canvas.update_detail()
        self._show_highlights()
        self._finished()
        self.ready.emit()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        # The theme changed: the scene's colours come from it, so draw the same graph again.
        if (event.type() == QEvent.StyleChange and self.prepared is not None
                and self.scene.tokens != theme.current_tokens()):
            p = self.prepared
            self.scene.build(p.view, p.positions, p.problems)
            self.canvas.update_detail()
            self._show_highlights()

    @Slot(str)
    @gui_only
    def _failed(self, message: str) -> None:
        self.status.setText("The graph could not be loaded")
        self._finished()
        self.tell("Graph", f"The dependency graph could not be loaded:\n\n{message}")

    @Slot()
    @gui_only
    def _finished(self) -> None:
        self._running = False
        if self._again and not self._closed:
            self.reload()

    def shutdown(self) -> None:
        """Stop for good (the tab is closing): no reload starts after this."""
        self._closed, self._again = True, False
        super().shutdown()

    # --- problems, search, selection ------------------------------------------------

    def _fill_problems(self, prepared: Prepared) -> None:
        self.problem_list.clear()
        errors = sum(p.severity == "error" for p in prepared.problems)
        warnings = len(prepared.problems) - errors
        self.problems_title.setText(f"Problems: {errors} error(s), {warnings} warning(s)" if prepared.problems
                                    else "Problems: none")
        for p in prepared.problems:
            icon = self.style().standardIcon(QStyle.SP_MessageBoxCritical if p.severity == "error"
                                             else QStyle.SP_MessageBoxWarning)
            item = QListWidgetItem(icon, p.message)
            item.setToolTip(literal(p.message + "\n\nClick to show these skills"))
            item.setData(Qt.UserRole, list(p.skills))
            if p.severity == "error":
                item.setForeground(QColor(CYCLE_RED))
            self.problem_list.addItem(item)

    def _problem_clicked(self, item: QListWidgetItem) -> None:
        names = item.data(Qt.UserRole) or []
        if not names:
            return
        if not all(n in self.scene.nodes for n in names):
            self.focus_on(names, depth=1)
            self._pending_highlight = names
        self._problem_names = names
        self._show_highlights()
        self.canvas.fit_rect(self.scene.bounds_of(names))

    def _show_highlights(self) -> None:
        names = set(self._hits) | set(getattr(self, "_problem_names", ()))
        if self.selected:
            names.add(self.selected)
        self.scene.set_highlighted(names)
        if self.prepared is not None and getattr(self, "_pending_highlight", None):
            if all(n in self.scene.nodes for n in self._pending_highlight):
                self.canvas.fit_rect(self.scene.bounds_of(self._pending_highlight))
                self._pending_highlight = None

    def _search_changed(self, text: str) -> None:
        view = self.prepared.view if self.prepared else None
        self._hits = view.search(text)[:500] if (view is not None and text.strip()) else []
        self._hit = -1
        self._show_highlights()

    def next_hit(self) -> None:
        if not self._hits:
            return
        self._hit = (self._hit + 1) % len(self._hits)
        name = self._hits[self._hit]
        self.canvas.centerOn(self.scene.nodes[name])
        self.skillSelected.emit(name)

    def _node_clicked(self, name: str) -> None:
        self._problem_names = ()
        self.skillSelected.emit(name)
        if not self.scene.nodes[name].node.missing:
            self.set_selected(name)

    # --- export ----------------------------------------------------------------

    def export(self, kind: str) -> bool:
        if self.prepared is None:
            return False
        return graph_export.export(self, kind)
