"""Install skills into an agent's skill folder: choose the folder and copy or link, tick the
skills (those the gate lets agents see), see what is installed there already (current, stale,
modified) and update it. Installing and updating run on a worker thread with progress and Cancel,
and end with a one-line summary whose details open on request."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.agents import matching
from skill_studio.core.library import install
from skill_studio.core.library.descriptor import build_descriptor, save_descriptor
from skill_studio.ui.long_task import ProgressRow, SummaryView, TaskRun
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens, role_text


def preset_folders() -> list[str]:
    """Agent skill folders to offer: the user's Claude and agents folders, and .skills here."""
    home = Path.home()
    return [str(home / ".claude" / "skills"), str(home / ".agents" / "skills"), str(Path.cwd() / ".skills")]


class InstallDialog(QDialog):
    def __init__(self, store, parent: QWidget | None = None, folders: list[str] | None = None):
        super().__init__(parent)
        self.setWindowTitle("Install skills for agents")
        self.store = store
        self.pick_folder = lambda start: QFileDialog.getExistingDirectory(self, "Agent skill folder", start)
        self.last_report: install.InstallReport | None = None
        self._run: TaskRun | None = None

        self.folder = QComboBox(editable=True)
        self.folder.addItems(list(dict.fromkeys((folders or []) + preset_folders())))
        self.folder.setMinimumContentsLength(40)
        self.folder.setToolTip("The agent's skills folder: each skill goes in a folder of its name")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.folder, 1)
        where.addWidget(browse)

        self.copy = QRadioButton("Copy, read-only (an agent cannot change the library)")
        self.link = QRadioButton("Link, following every save (to the studio's read-only copy of each skill)")
        self.link.setToolTip("The link points at a copy of the skill's current version that the studio keeps "
                             "beside the store and rewrites on each save; it is relative when both are on one "
                             "file system, so a folder holding both can be moved or mounted elsewhere")
        self.copy.setChecked(True)
        self._mode = QButtonGroup(self)
        for b in (self.copy, self.link):
            self._mode.addButton(b)
        self.link_warning = QLabel(f"Careful: {install.LINK_WARNING}.")
        self.link_warning.setWordWrap(True)
        self.link_warning.setStyleSheet(f"color: {current_tokens().warning};")
        self.link_warning.setVisible(False)
        self.link.toggled.connect(self.link_warning.setVisible)
        self.prune = QCheckBox("Remove skills installed there before that are not ticked")
        self.prune.toggled.connect(lambda _on: self._count())
        self.force = QCheckBox("Also replace or remove installed skills changed by hand")
        self.force.toggled.connect(lambda _on: self.refresh_status())
        self.force.setToolTip("Without this, a copy whose files were changed, added or removed after it was "
                              "installed is left as it is")

        self.skills = QListWidget()
        self.skills.setAccessibleName("Skills to install")
        self.gate = {e.name: e for e in matching.gate(store)}
        for e in self.gate.values():
            item = QListWidgetItem(e.name if e.passed else f"{e.name} — {e.reason}")
            item.setData(Qt.UserRole, e.name)
            if e.passed:
                item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
                item.setCheckState(Qt.Checked)
                item.setToolTip(literal(e.warning or e.description))
            else:
                item.setFlags(item.flags() & ~Qt.ItemIsEnabled)
                item.setToolTip(literal(f"Agents may not see it: {e.reason}"))
            self.skills.addItem(item)
        self.count = QLabel()
        self.skills.itemChanged.connect(lambda _item: self._count())
        all_button, none_button = QPushButton("All that agents may see"), QPushButton("None")
        all_button.clicked.connect(lambda: self._check(True))
        none_button.clicked.connect(lambda: self._check(False))
        pick = QHBoxLayout()
        pick.addWidget(self.count, 1)
        pick.addWidget(all_button)
        pick.addWidget(none_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("Skills"))
        left_layout.addWidget(self.skills, 1)
        left_layout.addLayout(pick)

        self.installed = QTableWidget(0, 3)
        self.installed.setHorizontalHeaderLabels(["Installed there", "State", "Detail"])
        self.installed.verticalHeader().setVisible(False)
        self.installed.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.installed.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.installed.horizontalHeader().setStretchLastSection(True)
        self.update_button = QPushButton("Update stale")
        self.update_button.clicked.connect(self.update_stale)
        self.descriptor_button = QPushButton("Export descriptor…")
        self.descriptor_button.setToolTip("A JSON file for runtimes that take one: this folder as the skills root, "
                                          "the skills agents may see enabled and the others disabled, with why")
        self.descriptor_button.clicked.connect(self.export_descriptor)
        self.save_path = lambda start: QFileDialog.getSaveFileName(self, "Save the descriptor", start,
                                                                   "JSON (*.json)")[0]
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(QLabel("In this folder now"))
        right_layout.addWidget(self.installed, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.descriptor_button)
        row.addWidget(self.update_button)
        right_layout.addLayout(row)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([380, 420])

        # One line, the same height whether it shows progress or the outcome: the lists keep their size.
        self.summary = SummaryView()
        self.message = self.summary   # text(): the whole of the last outcome
        self.progress = ProgressRow()
        self.status_line = QStackedWidget()
        self.status_line.addWidget(self.summary)
        self.status_line.addWidget(self.progress)
        self.status_line.setSizePolicy(self.status_line.sizePolicy().horizontalPolicy(),
                                       self.summary.sizePolicy().verticalPolicy())
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.close_button = buttons.button(QDialogButtonBox.Close)
        self.install_button = buttons.addButton("Install", QDialogButtonBox.AcceptRole)
        self.install_button.setDefault(True)
        self.install_button.clicked.connect(self.do_install)
        buttons.rejected.connect(self.reject)

        how = QVBoxLayout()
        how.setSpacing(4)
        for w in (self.copy, self.link, self.link_warning, self.prune, self.force):
            how.addWidget(w)
        form = QFormLayout()
        form.addRow("Folder", where)
        form.addRow("How", how)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(split, 1)
        layout.addWidget(self.status_line)
        layout.addWidget(buttons)
        self._busy_widgets = [self.folder, browse, self.copy, self.link, self.prune, self.force, self.skills,
                              all_button, none_button, self.install_button, self.update_button,
                              self.descriptor_button, self.close_button]
        self.folder.currentTextChanged.connect(lambda _text: self.refresh_status())
        self._count()
        self.refresh_status()
        self.resize(860, 600)

    # --- choosing ---------------------------------------------------------------------

    def target(self) -> str:
        return self.folder.currentText().strip()

    def checked(self) -> list[str]:
        return [self.skills.item(i).data(Qt.UserRole) for i in range(self.skills.count())
                if self.skills.item(i).checkState() == Qt.Checked]

    def set_checked(self, names: list[str]) -> None:
        wanted = set(names)
        for i in range(self.skills.count()):
            item = self.skills.item(i)
            if item.flags() & Qt.ItemIsUserCheckable:
                item.setCheckState(Qt.Checked if item.data(Qt.UserRole) in wanted else Qt.Unchecked)

    def _check(self, on: bool) -> None:
        self.set_checked([n for n, e in self.gate.items() if e.passed] if on else [])

    def _count(self) -> None:
        n = len(self.checked())
        self.count.setText(f"{n} ticked")
        self.install_button.setEnabled(n > 0 or self.prune.isChecked())

    @Slot()
    def _browse(self) -> None:
        chosen = self.pick_folder(self.target() or str(Path.home()))
        if chosen:
            self.folder.setCurrentText(chosen)

    # --- doing ------------------------------------------------------------------------

    def refresh_status(self) -> None:
        target = self.target()
        rows = []
        try:
            rows = install.status(self.store, target) if target and Path(target).is_dir() else []
        except (install.InstallError, OSError) as e:
            self._say(str(e), "danger")
        self.installed.setRowCount(len(rows))
        for r, row in enumerate(rows):
            state = QTableWidgetItem(row.state)
            state.setForeground(QColor(role_text(current_tokens(), install.INSTALL_STATES[row.state])))
            for c, item in enumerate((QTableWidgetItem(f"{row.name} ({row.mode}, v{row.version})"), state,
                                      QTableWidgetItem(row.detail))):
                self.installed.setItem(r, c, item)
        self.update_button.setEnabled(any(row.state in ("stale", "missing") or (
            row.state in install.CHANGED_BY_HAND and self.force.isChecked()) for row in rows))

    @Slot()
    def do_install(self) -> install.InstallReport | None:
        """Install the ticked skills (and prune, when asked) on a worker thread; returns the report,
        also after Cancel (what was done until then), or None when nothing could be installed."""
        target = self.target()
        if not target:
            self._say("Choose a folder first.", "danger")
            return None
        names = self.checked()
        run = self._run_work(partial(install.install, folder=target, names=names, link=self.link.isChecked(),
                                     prune=self.prune.isChecked(), force=self.force.isChecked()),
                             f"Installing {len(names)} skill{'s' if len(names) != 1 else ''}…")
        if run.error is not None:
            self._say(f"Nothing was installed: {_reason(run.error)}", "danger")
            return None
        report: install.InstallReport = run.result   # type: ignore[assignment]
        self.last_report = report
        text, role, details = install_summary(report, target, names)
        self._say(text, role, details)
        self.refresh_status()
        return report

    @Slot()
    def update_stale(self) -> None:
        target = self.target()
        run = self._run_work(partial(install.update, folder=target, force=self.force.isChecked()),
                             "Updating the installed skills…")
        if run.error is not None:
            self._say(f"Nothing was updated: {_reason(run.error)}", "danger")
            return
        rows: list[install.Installed] = run.result   # type: ignore[assignment]
        left = [f"{r.name}: {r.state}" + (f" ({r.detail})" if r.detail else "") for r in rows if r.state != "current"]
        if run.was_cancelled():
            self._say(f"Update stopped; {len(left)} installed skill(s) still not current.", "attention", left)
        elif left:
            self._say(f"Updated what could be; {len(left)} still not current.", "attention", left)
        else:
            self._say("Updated: every installed skill is current.", "success")
        self.refresh_status()

    def _run_work(self, work, first_text: str) -> TaskRun:
        """Run ``work(store, progress=, cancelled=)`` on a worker thread while the progress line
        shows how far it got and the rest of the dialog waits; returns the ended run."""
        for w in self._busy_widgets:
            w.setEnabled(False)
        self._run = run = TaskRun(work, self.store, self, "install")
        self.progress.follow(run, first_text)
        self.status_line.setCurrentWidget(self.progress)
        try:
            run.start().wait()
        finally:
            self._run = None
            self.status_line.setCurrentWidget(self.summary)
            for w in self._busy_widgets:
                w.setEnabled(True)
            self._count()
            run.deleteLater()
        return run

    def is_busy(self) -> bool:
        return self._run is not None

    def reject(self) -> None:
        """Escape or closing the window while work runs cancels it (the dialog stays to report)."""
        if self._run is not None:
            self.progress.cancel_button.click()
            return
        super().reject()

    def closeEvent(self, event) -> None:
        if self._run is not None:
            self.progress.cancel_button.click()
            event.ignore()
            return
        super().closeEvent(event)

    @Slot()
    def export_descriptor(self) -> str | None:
        target = self.target()
        if not target:
            self._say("Choose a folder first.", "danger")
            return None
        path = self.save_path(str(Path(target) / "skills-descriptor.json"))
        if not path:
            return None
        try:
            save_descriptor(build_descriptor(self.store, target), path)
        except (install.InstallError, OSError) as e:
            self._say(f"The descriptor was not saved: {e}", "danger")
            return None
        self._say(f"Saved the descriptor to {path}.", "success")
        return path

    def _say(self, text: str, role: str, details: list[str] | None = None) -> None:
        """Show ``text`` in the colour of its role (success, attention or danger), with ``details``
        behind "Show details"."""
        self.summary.show_result(text, role, details or [])


def _reason(error: str) -> str:
    """The worker's "InstallError: why" without the error's class name, which means nothing to a user."""
    kind, _, why = error.partition(": ")
    return why if kind == "InstallError" and why else error


def short_path(path: str) -> str:
    """``path`` with the home folder written as ~."""
    home = str(Path.home())
    return "~" + path[len(home):] if path == home or path.startswith(home + "/") else path


def install_summary(report: install.InstallReport, target: str,
                    wanted: list[str]) -> tuple[str, str, list[str]]:
    """(one line, colour role, one detail line per skill) for an install's report:
    "Installed 871 skills into ~/.claude/skills; 3 skipped"."""
    def count(n: int) -> str:
        return f"{n} skill{'s' if n != 1 else ''}"

    verb = "Stopped: installed" if report.stopped else "Installed"
    parts = [f"{verb} {count(len(report.installed))} into {short_path(target)}"] if report.installed \
        else [f"{'Stopped: nothing' if report.stopped else 'Nothing'} new installed in {short_path(target)}"]
    if report.unchanged:
        parts.append(f"{len(report.unchanged)} already current")
    if report.removed:
        parts.append(f"removed {count(len(report.removed))}")
    if report.skipped:
        parts.append(f"{len(report.skipped)} skipped")
    done = set(report.installed) | set(report.unchanged) | set(report.skipped)
    not_reached = [n for n in wanted if n not in done] if report.stopped else []
    if not_reached:
        parts.append(f"{len(not_reached)} not reached")
    details = [f"Skipped {name}: {why}" for name, why in report.skipped.items()]
    details += [f"Not reached (stopped): {name}" for name in not_reached]
    details += [f"Installed {name}" for name in report.installed]
    details += [f"Removed {name}" for name in report.removed]
    details += [f"Already current: {name}" for name in report.unchanged]
    role = "attention" if report.skipped or report.stopped else "success"
    return "; ".join(parts) + ".", role, details
