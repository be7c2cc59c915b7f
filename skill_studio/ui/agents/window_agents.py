"""Getting skills to agents, as a feature of the window: the "Try a query" action (toolbar, View menu,
Ctrl+Shift+Q) and its tab, kept in step with the store."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.shell.feature import ActionSpec, Feature, PageSpec, at


class AgentsFeature(Feature):
    id = "agents"

    def __init__(self, shell):
        super().__init__(shell)
        self.dialog = None   # the install dialog while it is open
        self.copy_text = lambda text: QGuiApplication.clipboard().setText(text)   # replaceable in tests

    def action_specs(self) -> list[ActionSpec]:
        return [
            ActionSpec("try_query", "Try a &query", self.show, "Ctrl+Shift+Q",
                       "The skills an agent would be offered for a query, and those the gate keeps out",
                       places=(at("View", 3, 4),), toolbar=(2, 2)),
            ActionSpec("show_agent_folders", "&Agents' folders", self.show_folders,
                       tip="Which agents are on this computer, where each reads skills, and which skills each has",
                       places=(at("View", 3, 6),)),
            ActionSpec("install_skills", "&Install for agents…", self.install, "Ctrl+Shift+I",
                       "Copy (or link) the skills agents may see into an agent's skill folder",
                       places=(at("File", 2, 10),)),
            ActionSpec("copy_prompt", "Copy &prompt block", self.copy_prompt, "Ctrl+Shift+C",
                       "Copy the <available_skills> block of the selected skills (of every skill agents may see "
                       "when none is selected)", places=(at("Skill", 3, 0),)),
        ]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("query", "Try a query", self._make),
                PageSpec("agent_folders", "Agents' folders", self._make_folders)]

    def show_folders(self) -> None:
        self.shell.open_page("agent_folders")

    def _make_folders(self, parent):
        from skill_studio.ui.agents.agent_folders_view import AgentFoldersView

        view = AgentFoldersView(self.shell.store, parent)
        view.installed.connect(lambda _names: self.shell.publish(ChangeSet.of(installs=True,
                                                                              label="installed for agents")))
        return view

    @property
    def query(self):
        """The query panel while its tab is open, else None."""
        return self.shell.page("query")

    def is_open(self) -> bool:
        return self.query is not None

    def show(self) -> None:
        """The query panel in its own tab (opened once)."""
        self.shell.open_page("query").query.setFocus()

    def _make(self, parent):
        from skill_studio.ui.agents.query_panel import QueryPanel

        panel = QueryPanel(self.shell.store, parent)
        panel.skillSelected.connect(self._reveal)
        panel.openRequested.connect(self.shell.open_designer)
        return panel

    def install(self) -> None:
        """The install dialog: the skills agents may see into an agent's skill folder."""
        from skill_studio.ui.agents.install_dialog import InstallDialog

        w = self.shell
        self.dialog = InstallDialog(w.store, w, w.settings.install_folders)
        try:
            self.dialog.exec()
            if self.dialog.last_report is not None:
                w.settings.install_folders = [self.dialog.target(), *w.settings.install_folders]
                w.publish(ChangeSet.of(installs=True, label="install"))
        finally:
            self.dialog.deleteLater()
            self.dialog = None

    def copy_prompt(self) -> str:
        """Copy the prompt block of the browser's selection, or of the gated set; returns it."""
        from skill_studio.core.agents.prompt import gated_prompt, prompt_for

        w = self.shell
        names = w.selected_names()
        what = f"{len(names)} selected skill(s)" if names else "the skills agents may see"
        made = prompt_for(w.store, names) if names else gated_prompt(w.store)
        self.copy_text(made.text)
        extra = "".join(f"; {note}" for note in made.notes())
        w.show_status(f"Copied the prompt block of {what}{extra}", 8000)
        return made.text

    def _reveal(self, name: str) -> None:
        if name in self.shell.store:
            self.shell.reveal(name)

    def changes_applied(self, changes: ChangeSet) -> None:
        if self.query is not None:
            self.query.apply_changes(changes)
        folders = self.shell.page("agent_folders")
        if folders is not None and (changes.installs or changes.added or changes.removed or changes.renamed
                                    or changes.unknown):
            folders.reload()

    def shutdown(self) -> None:
        folders = self.shell.page("agent_folders")
        if folders is not None:
            folders.shutdown()
