"""Getting skills to agents, in the main window: the "Try a query" action (toolbar, View menu,
Ctrl+Shift+Q) and its tab, kept in step with the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QToolBar

if TYPE_CHECKING:
    from skill_studio.ui.shell.main_window import MainWindow


class WindowAgents:
    def __init__(self, window: MainWindow):
        self.window = w = window
        self.query = None
        self.dialog = None   # the install dialog while it is open
        w._action("try_query", "Try a &query", self.show, "Ctrl+Shift+Q",
                  "The skills an agent would be offered for a query, and those the gate keeps out")
        w._action("install_skills", "&Install for agents…", self.install, "Ctrl+Shift+I",
                  "Copy (or link) the skills agents may see into an agent's skill folder")
        view_menu = next(m.menu() for m in w.menuBar().actions() if m.text().replace("&", "") == "View")
        view_menu.addAction(w.actions["try_query"])
        file_menu = next(m.menu() for m in w.menuBar().actions() if m.text().replace("&", "") == "File")
        file_menu.insertAction(_export_or_last(file_menu), w.actions["install_skills"])
        w._action("copy_prompt", "Copy &prompt block", self.copy_prompt, "Ctrl+Shift+C",
                  "Copy the <available_skills> block of the selected skills (of every skill agents may see "
                  "when none is selected)")
        skill_menu = next(m.menu() for m in w.menuBar().actions() if m.text().replace("&", "") == "Skill")
        skill_menu.addSeparator()
        skill_menu.addAction(w.actions["copy_prompt"])
        self.copy_text = lambda text: QGuiApplication.clipboard().setText(text)   # replaceable in tests
        toolbar = w.findChild(QToolBar, "main_toolbar")
        if toolbar is not None:
            toolbar.addAction(w.actions["try_query"])
        for signal in (w.storeChanged, w.watcher.changedElsewhere, w.workspace.storeChanged):
            signal.connect(self._store_changed)
        from skill_studio.ui.agents.window_api import WindowApi

        self.api = WindowApi(w)

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

    def install(self) -> None:
        """The install dialog: the skills agents may see into an agent's skill folder."""
        from skill_studio.ui.agents.install_dialog import InstallDialog

        w = self.window
        self.dialog = InstallDialog(w.store, w, w.settings.install_folders)
        try:
            self.dialog.exec()
            if self.dialog.last_report is not None:
                w.settings.install_folders = [self.dialog.target(), *w.settings.install_folders]
        finally:
            self.dialog.deleteLater()
            self.dialog = None

    def copy_prompt(self) -> str:
        """Copy the prompt block of the browser's selection, or of the gated set; returns it."""
        from skill_studio.core.agents import matching
        from skill_studio.core.agents.prompt import prompt_for

        w = self.window
        names = w.browser.selected_names()
        what = f"{len(names)} selected skill(s)" if names else "the skills agents may see"
        block, left_out = prompt_for(w.store, names or matching.gated(w.store))
        self.copy_text(block)
        extra = f"; left out, no SKILL.md on disk: {', '.join(left_out)}" if left_out else ""
        w.statusBar().showMessage(f"Copied the prompt block of {what}{extra}", 8000)
        return block

    def _reveal(self, name: str) -> None:
        if name in self.window.store:
            self.window.reveal(name)

    def _store_changed(self) -> None:
        if self.is_open():
            self.query.store_changed()


def _export_or_last(menu):
    """The action after the File menu's export entry (the install goes beside it), else None: last."""
    actions = menu.actions()
    for i, a in enumerate(actions):
        if "export" in a.text().replace("&", "").lower():
            return actions[i + 1] if i + 1 < len(actions) else None
    return None
