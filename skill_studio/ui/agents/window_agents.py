"""Getting skills to agents, in the main window: the "Try a query" action (toolbar, View menu,
Ctrl+Shift+Q) and its tab, kept in step with the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QToolBar

if TYPE_CHECKING:
    from skill_studio.ui.main_window import MainWindow


class WindowAgents:
    def __init__(self, window: "MainWindow"):
        self.window = w = window
        self.query = None
        w._action("try_query", "Try a &query", self.show, "Ctrl+Shift+Q",
                  "The skills an agent would be offered for a query, and those the gate keeps out")
        view_menu = next(m.menu() for m in w.menuBar().actions() if m.text().replace("&", "") == "View")
        view_menu.addAction(w.actions["try_query"])
        toolbar = w.findChild(QToolBar, "main_toolbar")
        if toolbar is not None:
            toolbar.addAction(w.actions["try_query"])
        for signal in (w.storeChanged, w.watcher.changedElsewhere, w.workspace.storeChanged):
            signal.connect(self._store_changed)

    def is_open(self) -> bool:
        return self.window.workspace.holds(self.query)

    def show(self) -> None:
        """The query panel in its own tab (opened once)."""
        from skill_studio.ui.agents.query_panel import QueryPanel

        w = self.window
        if not self.is_open():
            self.query = QueryPanel(w.store, w.workspace)
            self.query.skillSelected.connect(self._reveal)
            self.query.openRequested.connect(w.open_designer)
            w.workspace.addTab(self.query, "Try a query")
        w.workspace.setCurrentWidget(self.query)
        self.query.query.setFocus()

    def _reveal(self, name: str) -> None:
        if name in self.window.store:
            self.window.reveal(name)

    def _store_changed(self) -> None:
        if self.is_open():
            self.query.store_changed()
