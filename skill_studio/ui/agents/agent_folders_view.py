"""The agents' folders tab: which agents are on this machine, where each reads skills (its global
folder, and its folder in the chosen project), and for each skill of the library the agents that
have it. Ticking agents and selecting skills, Install puts them there (read-only copies, the
rules of every install) and Remove takes out what the studio installed; installing into the
project records the skills in its ``skills-lock.json``. The project is remembered."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.library.agent_folders import AgentFolder, folders
from skill_studio.core.library.install import LINK_WARNING
from skill_studio.core.model import Lifecycle
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.long_task import OneRunAtATime, ProgressRow, SummaryView, TaskRun

PROJECT_SETTING = "agents.project"


def _where(place: AgentFolder) -> str:
    return "Project" if place.scope == "project" else "This computer"


def _holders_text(have) -> str:
    """The agents that have a skill, a folder at a time: agents sharing one folder (.agents/skills)
    are named together, shortened past two; "*" marks a copy the studio did not install."""
    by_folder: dict[Path, list] = {}
    for h in have:
        by_folder.setdefault(h.folder.path, []).append(h)
    parts = []
    for holding in by_folder.values():
        names = [h.folder.agent.name for h in holding]
        text = ", ".join(names[:2]) + (f" +{len(names) - 2}" if len(names) > 2 else "")
        scope = " (project)" if holding[0].folder.scope == "project" else ""
        parts.append(text + scope + ("" if holding[0].by_studio else " *"))
    return "; ".join(parts)


class AgentFoldersView(OneRunAtATime, QWidget):
    """``installed(names)`` after skills were installed or removed."""

    installed = Signal(list)

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.places: list[AgentFolder] = []
        self.pick_folder = lambda: QFileDialog.getExistingDirectory(self, "Project folder")   # replaceable in tests

        project = store.setting(PROJECT_SETTING, "")
        self.project: Path | None = Path(project) if project else None
        self.project_label = ElidedLabel()
        choose = QPushButton("Choose project…")
        choose.setToolTip("A project folder: its agents' folders (.claude/skills, .agents/skills…) and its lock file")
        choose.clicked.connect(self._choose)
        self.clear_button = QPushButton("No project")
        self.clear_button.clicked.connect(lambda: self.set_project(None))
        top = QHBoxLayout()
        top.addWidget(QLabel("Project:"))
        top.addWidget(self.project_label, 1)
        top.addWidget(choose)
        top.addWidget(self.clear_button)

        self.agents = QTreeWidget()
        self.agents.setHeaderLabels(["Agent", "Where", "On this computer", "Skills", "Folder"])
        self.agents.setRootIsDecorated(False)
        self.agents.setUniformRowHeights(True)
        self.agents.header().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.agents.header().setStretchLastSection(True)
        self.agents.itemChanged.connect(lambda *_: self._enable())
        self.skills = QTreeWidget()
        self.skills.setHeaderLabels(["Skill", "Lifecycle", "Agents that have it"])
        self.skills.setRootIsDecorated(False)
        self.skills.setUniformRowHeights(True)
        self.skills.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.skills.setColumnWidth(0, 200)
        self.skills.setColumnWidth(1, 100)
        self.skills.itemSelectionChanged.connect(self._enable)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.agents)
        split.addWidget(self.skills)
        split.setChildrenCollapsible(False)
        split.setSizes([260, 400])

        self.install_button = QPushButton("Install for the ticked agents")
        self.install_button.clicked.connect(self.install)
        self.link_box = QCheckBox("Link instead of copying")
        self.link_box.setToolTip(LINK_WARNING)
        self.remove_button = QPushButton("Remove from the ticked agents")
        self.remove_button.setToolTip("Removes only what the studio installed; nothing else there is touched")
        self.remove_button.clicked.connect(self.remove)
        self.summary = SummaryView()
        self.progress = ProgressRow()
        buttons = QHBoxLayout()
        buttons.addWidget(self.install_button)
        buttons.addWidget(self.link_box)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.summary, 1)
        buttons.addWidget(self.progress, 1)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        self.reload()

    # --- what is shown ------------------------------------------------------------------------

    def set_project(self, project: Path | None) -> None:
        self.project = project
        self.store.set_setting(PROJECT_SETTING, str(project) if project else "")
        self.reload()

    def _choose(self) -> None:
        folder = self.pick_folder()
        if folder:
            self.set_project(Path(folder))

    def reload(self) -> None:
        from skill_studio.core.library.agent_install import holders

        self.project_label.setText(str(self.project) if self.project else "none (only the agents' folders on this "
                                                                           "computer)")
        self.clear_button.setEnabled(self.project is not None)
        ticked = self.ticked_keys()
        self.places = folders(self.project)
        held = holders(self.store, self.project)
        counts: dict[tuple[str, str], int] = {}
        for holding in held.values():
            for h in holding:
                counts[(h.folder.agent.key, h.folder.scope)] = counts.get((h.folder.agent.key, h.folder.scope), 0) + 1
        self.agents.blockSignals(True)
        self.agents.clear()
        for place in self.places:
            n = counts.get((place.agent.key, place.scope), 0)
            item = QTreeWidgetItem([place.agent.name, _where(place), "yes" if place.present else "not found",
                                    str(n) if place.path.is_dir() else "no folder yet", str(place.path)])
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(0, Qt.Checked if (place.agent.key, place.scope) in ticked else Qt.Unchecked)
            item.setToolTip(4, str(place.path))
            if not place.present:
                item.setForeground(2, self.palette().placeholderText())
            self.agents.addTopLevelItem(item)
        self.agents.blockSignals(False)
        selected = set(self.selected_names())
        self.skills.clear()
        for card in self.store.cards(self.store.names()):
            have = held.get(card.name, [])
            item = QTreeWidgetItem([card.name, Lifecycle(card.lifecycle).label, _holders_text(have) or "—"])
            if have:
                item.setToolTip(2, "\n".join(f"{h.folder.agent.name}: {h.folder.path}"
                                             + ("" if h.by_studio else " (not installed by the studio)")
                                             for h in have))
            self.skills.addTopLevelItem(item)
            item.setSelected(card.name in selected)
        self._enable()

    def ticked(self) -> list[AgentFolder]:
        return [self.places[i] for i in range(self.agents.topLevelItemCount())
                if self.agents.topLevelItem(i).checkState(0) == Qt.Checked]

    def ticked_keys(self) -> set[tuple[str, str]]:
        return {(p.agent.key, p.scope) for p in self.ticked()} if self.places else set()

    def selected_names(self) -> list[str]:
        return [item.text(0) for item in self.skills.selectedItems()]

    def _enable(self) -> None:
        ready = self.run is None and bool(self.ticked()) and bool(self.selected_names())
        self.install_button.setEnabled(ready)
        self.remove_button.setEnabled(ready)

    # --- work ---------------------------------------------------------------------------------

    def install(self) -> None:
        names, targets, project, link = self.selected_names(), self._targets(), self.project, self.link_box.isChecked()

        def work(store, progress, cancelled):
            from skill_studio.core.library import install
            from skill_studio.core.sources.lock import lock_skills

            done, skipped, in_project = set(), {}, set()
            for folder in targets:
                report = install.install(store, folder, names, link=link, progress=progress, cancelled=cancelled)
                done.update(report.installed, report.unchanged)
                skipped.update(report.skipped)
                if project is not None and folder.is_relative_to(project):
                    in_project.update(report.installed, report.unchanged)
            if project is not None and in_project:
                lock_skills(store, project, sorted(in_project))
            return sorted(done), skipped

        self._start(work, f"Installing {len(names)} skill(s)…", "Installed")

    def remove(self) -> None:
        names, targets, project = self.selected_names(), self._targets(), self.project

        def work(store, progress, cancelled):
            from skill_studio.core.library import install
            from skill_studio.core.sources.lock import unlock_skills

            done, skipped, left_project = set(), {}, set()
            for folder in targets:
                if folder.is_dir():
                    report = install.uninstall(folder, names)
                    done.update(report.removed)
                    skipped.update(report.skipped)
                    if project is not None and folder.is_relative_to(project):
                        left_project.update(report.removed)
            if project is not None and left_project:   # (still in another of the project's folders: kept)
                places = {p.path for p in folders(project) if p.scope == "project"}
                still = {n for n in left_project if any((place / n).exists() for place in places)}
                unlock_skills(project, sorted(left_project - still))
            return sorted(done), skipped

        self._start(work, f"Removing {len(names)} skill(s)…", "Removed")

    def _targets(self) -> list[Path]:
        return list(dict.fromkeys(p.path for p in self.ticked()))

    def work_changed(self) -> None:
        self._enable()

    def _start(self, work, first_text: str, verb: str) -> None:
        def finished(run: TaskRun) -> None:
            if run.error:
                self.summary.show_result(f"{verb} nothing: {run.error}", "danger")
            else:
                done, skipped = run.result   # type: ignore[misc]
                self.summary.show_result(f"{verb} {len(done)} skill(s)" + (f"; {len(skipped)} left as they were."
                                                                            if skipped else "."),
                                         "attention" if skipped else "success",
                                         [f"{n}: {why}" for n, why in skipped.items()])
                if done:
                    self.installed.emit(done)
            self.reload()

        self.start_work(work, first_text, finished)
