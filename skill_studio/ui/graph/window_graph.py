"""The dependency graph in the main window: the Graph action (toolbar, View menu, Ctrl+Shift+G),
its tab, and keeping it in step with the browser's selection and with changes to the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QToolBar

if TYPE_CHECKING:
    from skill_studio.ui.shell.main_window import MainWindow


class WindowGraph:
    def __init__(self, window: MainWindow):
        self.window = w = window
        self.view = None
        w._action("show_graph", "Dependency &graph", self.show, "Ctrl+Shift+G",
                  "Which skills need which: the dependency graph and its problems")
        bar = w.menuBar()
        view_menu = next(m.menu() for m in bar.actions() if m.text().replace("&", "") == "View")
        view_menu.addAction(w.actions["show_graph"])
        toolbar = w.findChild(QToolBar, "main_toolbar")
        if toolbar is not None:
            toolbar.addAction(w.actions["show_graph"])
        w.browser.selectionChanged.connect(self._selection)
        w.storeChanged.connect(self._store_changed)
        w.watcher.changedElsewhere.connect(self._store_changed)
        w.workspace.storeChanged.connect(self._store_changed)

    def is_open(self) -> bool:
        return self.window.workspace.holds(self.view)

    def show(self) -> None:
        """The graph in its own tab (opened once), showing the browser's selection."""
        from skill_studio.ui.graph.graph_view import GraphView

        w = self.window
        if not self.is_open():
            self.view = GraphView(w.store, w.workspace)
            self.view.skillSelected.connect(self._reveal)
            self.view.openRequested.connect(w.open_designer)
            names = w.browser.selected_names()
            self.view.selected = names[0] if len(names) == 1 else None
            w.workspace.addTab(self.view, "Graph")
            self.view.reload()
        w.workspace.setCurrentWidget(self.view)

    def _reveal(self, name: str) -> None:
        if name in self.window.store:
            self.window.reveal(name)

    def _selection(self, names: list) -> None:
        if self.is_open():
            self.view.set_selected(names[0] if len(names) == 1 else None)

    def _store_changed(self) -> None:
        if self.is_open():
            self.view.store_changed()
