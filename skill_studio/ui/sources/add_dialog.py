"""Add skills from a source: the user names it (owner/repo, a URL, a folder), the dialog lists what
it offers (fetched on a worker thread), the user ticks the skills to add, and they are added as
candidates for review, each remembering where it came from."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.sources import ops
from skill_studio.ui.long_task import ProgressRow, SummaryView, TaskRun, start_run


class AddSourceDialog(QDialog):
    """``added`` holds the names added once the dialog is accepted."""

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Add skills from a repository")
        self.store = store
        self.added: list[str] = []
        self.run: TaskRun | None = None
        self.listed_for: tuple[str, str] | None = None
        self.closing = False

        self.source = QLineEdit()
        self.source.setPlaceholderText("owner/repo, https://…, git@host:team/skills.git, or a folder")
        self.source.textChanged.connect(self._edited)
        self.source.returnPressed.connect(self.list_skills)
        browse = QPushButton("Folder…")
        browse.setToolTip("Choose a folder or a repository on this computer")
        browse.clicked.connect(self._browse)
        self.ref = QLineEdit()
        self.ref.setPlaceholderText("default branch")
        self.ref.textChanged.connect(self._edited)
        self.list_button = QPushButton("List skills")
        self.list_button.setDefault(True)
        self.list_button.clicked.connect(self.list_skills)
        where = QHBoxLayout()
        where.addWidget(self.source, 1)
        where.addWidget(browse)
        form = QFormLayout()
        form.addRow("Source:", where)
        ref_row = QHBoxLayout()
        ref_row.addWidget(self.ref, 1)
        ref_row.addWidget(self.list_button)
        form.addRow("Branch, tag or commit:", ref_row)

        self.skills = QListWidget()
        self.skills.setAlternatingRowColors(True)
        self.skills.itemChanged.connect(lambda _i: self._count())
        self.summary = SummaryView()
        self.progress = ProgressRow()
        self.progress.cancel_button.setVisible(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.add_button = self.buttons.addButton("Add", QDialogButtonBox.AcceptRole)
        self.add_button.setEnabled(False)
        self.add_button.clicked.connect(self.add_checked)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.skills, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.progress)
        layout.addWidget(self.buttons)
        self.summary.show_result("Skills are added as candidates: the gate keeps them from agents until they are "
                                 "reviewed. Nothing from the repository is run.", "info")
        self.resize(640, 480)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder or repository of skills")
        if folder:
            self.source.setText(folder)
            self.list_skills()

    def _edited(self) -> None:
        if self.listed_for is not None and self.listed_for != self._asked():
            self.skills.clear()
            self.listed_for = None
            self._count()

    def _asked(self) -> tuple[str, str]:
        return self.source.text().strip(), self.ref.text().strip()

    def list_skills(self) -> None:
        source, ref = self._asked()
        if not source or self.run is not None:
            return
        self._start(lambda store, progress, cancelled: ops.list_source(store, source, ref=ref or None),
                    f"Reading {source}…", self._listed)

    def _listed(self, run: TaskRun) -> None:
        self.skills.clear()
        if run.error:
            self.summary.show_result(run.error, "danger")
            return
        spec, commit, listed, problems = run.result   # type: ignore[misc]
        self.listed_for = self._asked()
        followed = {(r.url, r.path) for r in self.store.source_records()}
        for s in listed:
            label = (s.name or s.path or ".") + (f"   [{s.plugin}]" if s.plugin else "") + \
                f"   {s.path or '.'}"
            item = QListWidgetItem(label)
            item.setData(Qt.UserRole, s.name or s.path)
            if s.problem:
                item.setFlags(item.flags() & ~Qt.ItemIsUserCheckable & ~Qt.ItemIsEnabled)
                item.setToolTip(f"Cannot be added: {s.problem}")
                item.setText(label + "   (cannot be added)")
            elif (spec.url, s.path) in followed:
                item.setFlags(item.flags() & ~Qt.ItemIsUserCheckable & ~Qt.ItemIsEnabled)
                item.setToolTip("Added before; the Sources tab updates it")
                item.setText(label + "   (added before)")
            elif s.name in self.store:
                item.setFlags(item.flags() & ~Qt.ItemIsUserCheckable & ~Qt.ItemIsEnabled)
                item.setToolTip("The library has a skill of this name already; it is not replaced")
                item.setText(label + "   (name taken)")
            else:
                item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
                item.setCheckState(Qt.Checked)
                item.setToolTip(s.description)
            self.skills.addItem(item)
        at = f" at {commit[:12]}" if commit else ""
        self.summary.show_result(f"{spec.describe()}{at} offers {len(listed)} skill(s).",
                                 "attention" if problems else "info", problems)
        self._count()

    def checked(self) -> list[str]:
        return [self.skills.item(i).data(Qt.UserRole) for i in range(self.skills.count())
                if self.skills.item(i).flags() & Qt.ItemIsUserCheckable
                and self.skills.item(i).checkState() == Qt.Checked]

    def _count(self) -> None:
        n = len(self.checked())
        self.add_button.setText(f"Add {n} skill(s)" if n else "Add")
        self.add_button.setEnabled(n > 0 and self.run is None)

    def add_checked(self) -> None:
        names = self.checked()
        source, ref = self._asked()
        if not names or self.run is not None:
            return
        self._start(lambda store, progress, cancelled: ops.add(store, source, names=names, ref=ref or None),
                    f"Adding {len(names)} skill(s)…", self._done)

    def _done(self, run: TaskRun) -> None:
        if run.error:
            self.summary.show_result(run.error, "danger")
            return
        report: ops.AddReport = run.result   # type: ignore[assignment]
        self.added = report.added
        refused = [f"{e.source}: {e.reason}" for e in report.entries if e.status != "imported"]
        if refused:
            self.summary.show_result(f"Added {len(report.added)} skill(s); {len(refused)} not added.", "attention",
                                     refused + report.problems)
            self.list_skills()
            return
        self.accept()

    def _start(self, work, first_text: str, finished) -> None:
        for w in (self.list_button, self.add_button, self.source, self.ref):
            w.setEnabled(False)

        def ended(run: TaskRun) -> None:
            self.run = None
            if self.closing:   # closed meanwhile: a listing is dropped; what an add added is still told
                if isinstance(run.result, ops.AddReport):
                    self.added = run.result.added
                super(AddSourceDialog, self).reject()
                return
            for w in (self.list_button, self.source, self.ref):
                w.setEnabled(True)
            try:
                finished(run)
            finally:
                self._count()

        self.run = start_run(self, work, self.store, "add-source", self.progress, first_text, ended)

    def reject(self) -> None:
        """Closing while a repository is read: the dialog says it closes once the reading is done
        (a fetch cannot be stopped halfway) and does, the window staying responsive meanwhile."""
        if self.run is not None:
            if not self.closing:
                self.closing = True
                self.progress.label.setText("Closing once the repository has been read…")
                for w in (self.skills, self.buttons):
                    w.setEnabled(False)
            return
        super().reject()
