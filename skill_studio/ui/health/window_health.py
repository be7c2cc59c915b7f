"""Health checks as a feature of the window: the Health action (toolbar, View menu, Ctrl+Shift+H) and
its tab; applying a plan is one undoable change, and a run's fresh scores reach the other views."""

from __future__ import annotations

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.review.wording import health_applied
from skill_studio.ui.shell.feature import ActionSpec, Feature, PageSpec, at


class HealthFeature(Feature):
    id = "health"

    def __init__(self, shell):
        super().__init__(shell)
        self._own: ChangeSet | None = None   # the fresh scores of a run the view shows already

    def action_specs(self) -> list[ActionSpec]:
        return [ActionSpec("show_health", "&Health", self.show, "Ctrl+Shift+H",
                           "Score every skill, plan maintenance moves, find near-duplicates",
                           places=(at("View", 3, 2),), toolbar=(2, 0))]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("health", "Health", self._make)]

    @property
    def view(self):
        """The health view while its tab is open, else None."""
        return self.shell.page("health")

    def show(self) -> None:
        """The health view in its own tab (opened once; its runs go off the GUI thread)."""
        self.shell.open_page("health")

    def _make(self, parent):
        from skill_studio.ui.health.health_view import HealthView

        shell = self.shell
        view = HealthView(shell.store, parent)
        view.do_apply = self._apply
        view.mergeRequested.connect(self._merge)
        view.skillActivated.connect(shell.reveal)
        view.runFinished.connect(self._run_finished)
        return view

    def _review(self):
        return self.shell.feature("review")

    def _apply(self, actions, exclude):
        """Apply the plan; with the review feature present, Ctrl+Z undoes the whole plan."""
        from skill_studio.core.health import checks as health

        shell = self.shell
        change, refused = health.apply(shell.store, actions, exclude, author=shell.settings.reviewer)
        review = self._review()
        moved = len(change.after)
        if change.names and review is not None:
            review.record(change, health_applied(moved))   # recorded and told to the views as one change
        elif change.names:
            shell.publish(ChangeSet.of(changed=change.names, label=change.label))
            shell.show_status(health_applied(moved), 10_000)
        return change, refused

    def _merge(self, source: str, target: str) -> None:
        review = self._review()
        if review is not None:
            review.actions.merge(source, target)

    def _run_finished(self, run) -> None:
        """A run brought every skill's freshness up to date in the store."""
        names = [s.name for s in getattr(run, "skills", ())]
        self._own = ChangeSet.of(changed=names, label="health check")
        try:
            self.shell.publish(self._own)
        finally:
            self._own = None
        view = self.view
        if view is not None:
            self.shell.show_status(f"Health check done. {view.run_summary()}", 10_000)

    def changes_applied(self, changes: ChangeSet) -> None:
        """An undo of an applied plan (or any other change to skills) reaches the view's note."""
        view = self.view
        if view is not None and changes is not self._own:
            view.changes_applied(changes)
