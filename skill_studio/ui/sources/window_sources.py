"""Skills from repositories and folders as a feature of the window: File ▸ Add skills from a
repository…, View ▸ Sources (the tab of followed skills, their changes and updates)."""

from __future__ import annotations

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.shell.feature import ActionSpec, Feature, PageSpec, at


class SourcesFeature(Feature):
    id = "sources"

    def __init__(self, shell):
        super().__init__(shell)
        self.dialog = None   # the add dialog while it is open

    def action_specs(self) -> list[ActionSpec]:
        return [
            ActionSpec("add_from_source", "Add skills from a &repository…", self.add,
                       tip="Add skills from a git repository (owner/repo, a URL) or a folder, as candidates that "
                           "remember where they came from", places=(at("File", 2, 5),)),
            ActionSpec("show_sources", "&Sources", self.show,
                       tip="Skills added from repositories: what changed upstream and in the studio, and updates",
                       places=(at("View", 3, 5),)),
        ]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("sources", "Sources", self._make)]

    @property
    def view(self):
        """The Sources tab while it is open, else None."""
        return self.shell.page("sources")

    def show(self) -> None:
        self.shell.open_page("sources")

    def _make(self, parent):
        from skill_studio.ui.sources.sources_view import SourcesView

        view = SourcesView(self.shell.store, parent)
        view.addRequested.connect(self.add)
        view.openRequested.connect(self._open)
        view.changed.connect(lambda names: self.shell.publish(ChangeSet.of(changed=names,
                                                                           label="updated from sources")))
        return view

    def _open(self, name: str) -> None:
        if name in self.shell.store:
            self.shell.open_designer(name)

    def add(self) -> None:
        """The add dialog; what it added is announced to every view, and the Sources tab opens."""
        from skill_studio.ui.sources.add_dialog import AddSourceDialog

        self.dialog = dialog = AddSourceDialog(self.shell.store, self.shell)
        try:
            dialog.exec()
            added = list(dialog.added)
        finally:
            self.dialog = None
            dialog.deleteLater()
        if added:
            self.shell.publish(ChangeSet.of(added=added, label="added from a source"))
            self.shell.show_status(f"Added {len(added)} skill(s) as candidates; the Sources tab follows their "
                                   "source.", 8000)
            self.show()

    def changes_applied(self, changes: ChangeSet) -> None:
        if self.view is not None and (changes.added or changes.removed or changes.renamed or changes.unknown):
            self.view.reload()

    def shutdown(self) -> None:
        if self.view is not None:
            self.view.shutdown()
