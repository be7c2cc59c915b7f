"""The Graph tab: the dependency graph of the library (or of the skills around one), its problems
beside it, filters, search, layouts and exports. Loading and layout run off the GUI thread;
positions are kept until the graph they were computed for changes."""

from __future__ import annotations

import threading

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.model import Lifecycle, Origin
from skill_studio.ui import theme
from skill_studio.ui.graph import graph_export
from skill_studio.ui.graph.graph_bar import LAYOUTS, build_bar
from skill_studio.ui.graph.graph_canvas import GraphCanvas
from skill_studio.ui.graph.graph_legend import graph_icon
from skill_studio.ui.graph.graph_prep import Prepared, Scope, prepare
from skill_studio.ui.graph.graph_problems import ProblemsSide
from skill_studio.ui.graph.graph_scene import GraphScene
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.task_worker import TaskWorker, WorkerOwner, start_worker

__all__ = ["LAYOUTS", "GraphView"]

#: Progress and Cancel show when laying out takes longer than this (milliseconds).
PROGRESS_DELAY = 500


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
        self._problem_names: tuple | list = ()
        self._pending_highlight: list | None = None
        #: ask_save_path(title, suggested name, filter) -> path or "" (replaceable in tests).
        self.ask_save_path = lambda title, name, flt: graph_export.ask_path(self, title, name, flt)
        self.tell = lambda title, text: graph_export.tell(self, title, text)

        self.scene = GraphScene(self)
        self.canvas = GraphCanvas(self.scene, self)
        self.canvas.nodeClicked.connect(self._node_clicked)
        self.canvas.nodeDoubleClicked.connect(self.openRequested)
        self.problems_side = side = ProblemsSide(self)
        side.problemClicked.connect(self._problem_clicked)
        self.problem_list = side.list
        self.problems_title = side.title
        self.splitter = splitter = QSplitter(Qt.Horizontal, self)
        splitter.addWidget(self.canvas)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([900, 260])
        splitter.setChildrenCollapsible(False)
        side.hide()   # until there are problems to list

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(build_bar(self))
        layout.addWidget(splitter, 1)
        self._progress_timer = QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.timeout.connect(self._show_progress)
        self._paint_icons()
        QShortcut(QKeySequence("F"), self, self.canvas.fit, context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.Find, self, lambda: self.search.setFocus(), context=Qt.WidgetWithChildrenShortcut)

    def _paint_icons(self) -> None:
        """The toolbar's icons in the theme's colours (again when the theme changes)."""
        tokens = theme.current_tokens()
        self.fit_button.setIcon(graph_icon("fit", tokens.text))
        self.legend_button.setIcon(graph_icon("legend", tokens.text))
        self.isolated_box.setIcon(graph_icon("unrelated", tokens.text_muted))
        problems = self.prepared.problems if self.prepared is not None else []
        errors = any(p.severity == "error" for p in problems)
        colour = tokens.success if not problems else tokens.error if errors else tokens.warning
        self.problems_note.setIcon(graph_icon("problems" if problems else "ok", colour))

    # --- scope ----------------------------------------------------------------

    def _checked(self, button: QToolButton) -> frozenset:
        enum = Lifecycle if button is self.lifecycle_button else Origin
        return frozenset(enum(a.data()) for a in button.menu().actions() if a.isChecked())

    def _scope_changed(self, *_args) -> None:
        focus_mode = self.scope_combo.currentIndex() == 1
        self._show_focus_controls(focus_mode)
        focus = (self.selected,) if focus_mode and self.selected else ()
        self.set_scope(self._scope(focus))

    def _scope(self, focus: tuple) -> Scope:
        """The scope the controls say, around ``focus``; the switch of the skills without relations
        counts once a person has used it (before, the library's size decides)."""
        shown = self.isolated_box.isChecked() if self.isolated_box.property("chosen") else None
        return Scope(tuple(focus), self.depth.value(), self.layout_combo.currentData(),
                     self._checked(self.lifecycle_button), self._checked(self.origin_button), shown)

    def _show_focus_controls(self, focus_mode: bool) -> None:
        self.hops_label.setVisible(focus_mode)
        self.depth.setVisible(focus_mode)
        self.depth.setEnabled(focus_mode)
        self.isolated_box.setVisible(not focus_mode)

    def _isolated_toggled(self, _checked: bool) -> None:
        self.isolated_box.setProperty("chosen", True)
        self._fit_next = True
        self._scope_changed()

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
        self._show_focus_controls(True)
        if depth is not None:
            self.depth.blockSignals(True)
            self.depth.setValue(depth)
            self.depth.blockSignals(False)
        self._fit_next = True
        self.set_scope(self._scope(tuple(names)))

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
        self.progress.setRange(0, 0)
        self._progress_timer.start(PROGRESS_DELAY)
        worker = TaskWorker(lambda store, progress, cancelled: prepare(store, scope, cache, progress=progress,
                                                                       cancelled=cancelled),
                            self.store, self._cancel)
        worker.progressed.connect(self._progressed, Qt.QueuedConnection)
        worker.succeeded.connect(self._loaded, Qt.QueuedConnection)
        worker.failed.connect(self._failed, Qt.QueuedConnection)
        worker.interrupted.connect(self._interrupted, Qt.QueuedConnection)
        self._worker = worker
        self._thread = start_worker(worker, self, "graph-layout")

    @Slot(str, int, int)
    @gui_only
    def _progressed(self, stage: str, done: int, total: int) -> None:
        if self._running:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.status.setText(stage + "…")

    @Slot()
    @gui_only
    def _show_progress(self) -> None:
        if self._running:
            self.progress.show()
            self.cancel_button.show()

    def cancel(self) -> None:
        """Stop laying out the graph; the graph shown before stays."""
        if self._running:
            self._again = False
            self._cancel.set()

    @Slot()
    @gui_only
    def _interrupted(self) -> None:
        self._again = False
        self.status.setText("Stopped laying out the graph" + ("; the previous one is still shown"
                                                              if self.prepared is not None else ""))
        self._finished()

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
        self.legend.fill(self.scene)
        self._fill_problems(prepared)
        self._show_isolated_state(prepared)
        self._search_changed(self.search.text())   # the hits of the graph now shown
        self.status.setText(self._summary(prepared))
        if self._fit_next:
            self.canvas.fit()
            self._fit_next = False
        else:
            self.canvas.update_detail()
        self._show_highlights()
        self._finished()
        self.ready.emit()

    @staticmethod
    def _summary(prepared: Prepared) -> str:
        shown, total = len(prepared.view), len(prepared.full)
        edges = len(prepared.view.edges())
        text = f"{shown:,} of {total:,} skills · {edges:,} link{'s' if edges != 1 else ''}"
        if prepared.isolated_hidden:
            text += f" · {len(prepared.isolated):,} skills without relations hidden"
        return text

    def _show_isolated_state(self, prepared: Prepared) -> None:
        box = self.isolated_box
        box.blockSignals(True)
        box.setChecked(not prepared.isolated_hidden)
        box.blockSignals(False)
        count = len(prepared.isolated)
        box.setText(f"Show skills without relations ({count:,})")
        box.setEnabled(bool(count))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        # The theme changed: the scene's colours come from it, so draw the same graph again.
        if (event.type() == QEvent.StyleChange and self.prepared is not None
                and self.scene.tokens != theme.current_tokens()):
            p = self.prepared
            self.scene.build(p.view, p.positions, p.problems)
            self.legend.fill(self.scene)
            self._paint_icons()
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
        self._progress_timer.stop()
        self.progress.hide()
        self.cancel_button.hide()
        if self._again and not self._closed:
            self.reload()

    def shutdown(self) -> None:
        """Stop for good (the tab is closing): no reload starts after this."""
        self._closed, self._again = True, False
        super().shutdown()

    # --- problems, search, selection ------------------------------------------------

    def _fill_problems(self, prepared: Prepared) -> None:
        """The problems beside the graph, shown only when there are some (see :class:`ProblemsSide`)."""
        self._show_side(self.problems_side.fill(prepared.problems, self.problems_note))
        self._paint_icons()

    def _problems_toggled(self, shown: bool) -> None:
        self._show_side(shown and self.problem_list.count() > 0)

    def _show_side(self, shown: bool) -> None:
        if shown == self.problems_side.isVisible():
            return
        self.problems_side.setVisible(shown)
        if shown:   # room for the list: about a fifth of the width, at least its minimum
            total = self.splitter.width()
            side = max(self.problems_side.minimumWidth(), min(320, total // 4))
            self.splitter.setSizes([total - side, side])

    def _problem_clicked(self, names: list) -> None:
        if not all(n in self.scene.nodes for n in names):
            self.focus_on(names, depth=1)
            self._pending_highlight = names
        self._problem_names = names
        self._show_highlights()
        self.canvas.fit_rect(self.scene.bounds_of(names))

    def _show_highlights(self) -> None:
        """Outline the search hits, a clicked problem's skills and the selected skill, and more
        lightly the selected skill's neighbours."""
        names = set(self._hits) | set(self._problem_names)
        near: set[str] = set()
        if self.selected:
            names.add(self.selected)
            view = self.prepared.view.graph if self.prepared is not None else None
            if view is not None and self.selected in view:
                near = (set(view.succ[self.selected]) | set(view.pred[self.selected])) - {self.selected}
        self.scene.set_highlighted(names, near)
        if self.prepared is not None and self._pending_highlight:
            if all(n in self.scene.nodes for n in self._pending_highlight):
                self.canvas.fit_rect(self.scene.bounds_of(self._pending_highlight))
                self._pending_highlight = None

    def _search_changed(self, text: str) -> None:
        view = self.prepared.view if self.prepared else None
        self._hits = view.search(text)[:500] if (view is not None and text.strip()) else []
        self._hit = -1
        self._show_highlights()

    def next_hit(self) -> None:
        """Go to the next skill found: zoomed in until its name reads, selected, its neighbours
        outlined. A skill among the hidden ones without relations is named in the status line."""
        text = self.search.text().strip()
        if not self._hits:
            if text and self.prepared is not None and self.prepared.isolated_hidden:
                needle = text.casefold()
                hidden = [n for n in self.prepared.isolated if needle in n.casefold()]
                if hidden:
                    self.status.setText(f"{hidden[0]} has no relations and is hidden: tick "
                                        "“Show skills without relations” to see it")
            elif text and self.prepared is not None:
                self.status.setText(f"No skill shown matches “{text}”")
            return
        self._hit = (self._hit + 1) % len(self._hits)
        name = self._hits[self._hit]
        self.canvas.zoom_to(self.scene.nodes[name].sceneBoundingRect())
        if not self.scene.nodes[name].node.missing:
            self.selected = name
            self._show_highlights()
        self.status.setText(f"Found {name} ({self._hit + 1} of {len(self._hits)}; Enter: next)")
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
