"""The dependency graph as a feature of the window: the Graph action (toolbar, View menu,
Ctrl+Shift+G), its tab, and keeping it in step with the browser's selection."""

from __future__ import annotations

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.shell.feature import ActionSpec, Feature, PageSpec, at


class GraphFeature(Feature):
    id = "graph"

    def action_specs(self) -> list[ActionSpec]:
        return [ActionSpec("show_graph", "Dependency &graph", self.show, "Ctrl+Shift+G",
                           "Which skills need which: the dependency graph and its problems",
                           places=(at("View", 3, 3),), toolbar=(2, 1))]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("graph", "Graph", self._make)]

    @property
    def view(self):
        """The graph while its tab is open, else None."""
        return self.shell.page("graph")

    def show(self) -> None:
        """The graph in its own tab (opened once), showing the browser's selection."""
        self.shell.open_page("graph")

    def _make(self, parent):
        from skill_studio.ui.graph.graph_view import GraphView

        shell = self.shell
        view = GraphView(shell.store, parent)
        view.skillSelected.connect(self._reveal)
        view.openRequested.connect(shell.open_designer)
        names = shell.selected_names()
        view.selected = names[0] if len(names) == 1 else None
        view.reload()
        return view

    def _reveal(self, name: str) -> None:
        if name in self.shell.store:
            self.shell.reveal(name)

    def selection_changed(self, names: list[str]) -> None:
        if self.view is not None:
            self.view.set_selected(names[0] if len(names) == 1 else None)

    def changes_applied(self, changes: ChangeSet) -> None:
        if self.view is not None:
            self.view.apply_changes(changes)
