"""The Sources tab: every skill added from a repository or a folder, where it stands against its
source, and what changed on each side, shown as the conflict view shows it (side by side).

Checking fetches the sources (on a worker thread; the window stays usable and Cancel stops it).
A skill changed only upstream is updated with Update; one changed on both sides offers both
choices, never a silent overwrite: Take upstream (the studio's edits stay in its history) or
Keep the studio's (the source's change is marked as seen)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.sources import ops
from skill_studio.ui.designer.diff_view import DiffView
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.long_task import OneRunAtATime, ProgressRow, SummaryView, TaskRun

#: How each state reads in the list.
STATE_WORDS = {ops.CURRENT: "Up to date", ops.UPSTREAM: "Changed upstream", ops.HERE: "Edited in the studio",
               ops.BOTH: "Changed on both sides", ops.GONE: "Gone upstream", ops.UNREACHABLE: "Cannot be read"}
COLUMNS = ("Skill", "State", "Source", "Path in it", "Commit")


def _commit_text(s: ops.Status) -> str:
    taken = (s.record.commit or "")[:12]
    now = (s.commit or "")[:12]
    if taken and now and taken != now:
        return f"{taken} → {now}"
    return taken or "(a folder)"


class SourcesView(OneRunAtATime, QWidget):
    """The followed skills and their changes. ``changed(names)`` after an update changed skills."""

    changed = Signal(list)
    addRequested = Signal()
    openRequested = Signal(str)

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.statuses: dict[str, ops.Status] = {}

        self.add_button = QPushButton("Add from a repository…")
        self.add_button.setToolTip("Add skills from a git repository (owner/repo, a URL) or a folder")
        self.add_button.clicked.connect(self.addRequested)
        self.check_button = QPushButton("Check for updates")
        self.check_button.setToolTip("Fetch every source and compare it with what was taken and with the studio")
        self.check_button.clicked.connect(self.check)
        self.summary = SummaryView()
        self.progress = ProgressRow()
        self.progress.cancel_button.setVisible(False)   # a fetch runs to its end (or git's timeout)
        bar = QHBoxLayout()
        bar.addWidget(self.add_button)
        bar.addWidget(self.check_button)
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.progress, 1)

        self.list = QTreeWidget()
        self.list.setColumnCount(len(COLUMNS))
        self.list.setHeaderLabels(list(COLUMNS))
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setSelectionMode(QAbstractItemView.SingleSelection)
        self.list.header().setSectionResizeMode(0, QHeaderView.Interactive)
        self.list.header().setStretchLastSection(True)
        self.list.setColumnWidth(0, 170)
        self.list.setColumnWidth(1, 170)
        self.list.setColumnWidth(2, 220)
        self.list.setMinimumWidth(300)
        self.list.currentItemChanged.connect(lambda *_: self._show_current())
        self.list.itemDoubleClicked.connect(lambda item, _c: self.openRequested.emit(item.text(0)))

        self.title = ElidedLabel()
        self.title.setTextFormat(Qt.PlainText)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.upstream_view = DiffView(mode="side")
        self.studio_view = DiffView(mode="side")
        self.sides = QTabWidget()
        self.sides.addTab(self.upstream_view, "Changes upstream")
        self.sides.addTab(self.studio_view, "Edits in the studio")
        self.update_button = QPushButton("Update")
        self.update_button.setToolTip("Save the source's files as a new version (its commit in the note)")
        self.update_button.clicked.connect(self._update_current)
        self.keep_button = QPushButton("Keep the studio's")
        self.keep_button.setToolTip("Keep the studio's version and mark the source's change as seen")
        self.keep_button.clicked.connect(lambda: self._update(ops.TAKE_STUDIO))
        self.update_all_button = QPushButton("Update all changed upstream")
        self.update_all_button.setToolTip("Update every skill changed only upstream (two-sided changes are left "
                                          "for you to choose)")
        self.update_all_button.clicked.connect(self._update_all)
        buttons = QHBoxLayout()
        buttons.addWidget(self.update_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        buttons.addWidget(self.update_all_button)
        panel = QWidget()
        right = QVBoxLayout(panel)
        right.setContentsMargins(0, 0, 0, 0)
        right.addWidget(self.title)
        right.addWidget(self.detail)
        right.addWidget(self.sides, 1)
        right.addLayout(buttons)

        self.splitter = QSplitter(Qt.Horizontal)
        self.splitter.addWidget(self.list)
        self.splitter.addWidget(panel)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([360, 540])   # (kept in proportion as the tab takes its size)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.splitter, 1)
        self.reload()

    # --- what is shown ------------------------------------------------------------------------

    def reload(self) -> None:
        """List the followed skills as recorded (states not known until a check)."""
        records = self.store.source_records()
        known = self.statuses
        self.statuses = {r.skill: known.get(r.skill) or ops.Status(r.skill, r, "") for r in records}
        self._fill()
        if not records:
            self.summary.show_result("No skill was added from a source yet: Add from a repository… takes skills "
                                     "from a git repository or a folder and follows it.", "info")

    def _fill(self) -> None:
        current = self.current_name()
        self.list.clear()
        for name in sorted(self.statuses):
            s = self.statuses[name]
            where = s.record.source
            item = QTreeWidgetItem([name, STATE_WORDS.get(s.state, "Not checked yet"), where, s.record.path or ".",
                                    _commit_text(s)])
            item.setToolTip(1, s.detail or STATE_WORDS.get(s.state, "Check for updates to compare with the source"))
            item.setToolTip(2, where)
            self.list.addTopLevelItem(item)
            if name == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.topLevelItemCount():
            self.list.setCurrentItem(self.list.topLevelItem(0))
        self._show_current()

    def current_name(self) -> str | None:
        item = self.list.currentItem()
        return item.text(0) if item is not None else None

    def _show_current(self) -> None:
        name = self.current_name()
        s = self.statuses.get(name) if name else None
        busy = self.run is not None
        if s is None:
            self.title.setText("")
            self.detail.setText("")
            self.upstream_view.clear("Nothing selected")
            self.studio_view.clear("Nothing selected")
        else:
            self.title.setText(f"{s.name}: {STATE_WORDS.get(s.state, 'not checked yet')}")
            self.detail.setText(self._detail(s))
            self._show_side(self.upstream_view, s.upstream_text, s.upstream_files, s, "upstream")
            self._show_side(self.studio_view, s.studio_text, s.studio_files, s, "in the studio")
            if s.state == ops.HERE:
                self.sides.setCurrentWidget(self.studio_view)
            elif s.state in (ops.UPSTREAM, ops.BOTH):
                self.sides.setCurrentWidget(self.upstream_view)
        state = s.state if s is not None else ""
        self.update_button.setText("Take upstream" if state == ops.BOTH else "Update")
        self.update_button.setEnabled(not busy and state in (ops.UPSTREAM, ops.BOTH))
        self.keep_button.setVisible(state == ops.BOTH)
        self.keep_button.setEnabled(not busy)
        self.update_all_button.setEnabled(not busy and any(x.state == ops.UPSTREAM for x in self.statuses.values()))
        self.check_button.setEnabled(not busy and bool(self.statuses))
        self.add_button.setEnabled(not busy)

    @staticmethod
    def _detail(s: ops.Status) -> str:
        r = s.record
        where = r.source + (f" / {r.path}" if r.path else "") + (f" (ref {r.ref})" if r.ref else "")
        lines = [f"From {where}, taken {r.fetched_at[:10]}" + (f" at commit {r.commit[:12]}" if r.commit else "")]
        if s.detail and s.state not in (ops.UPSTREAM, ops.BOTH):
            lines.append(s.detail)
        elif s.detail:
            lines.append(f"Commits {s.detail}")
        if s.state == ops.BOTH:
            lines.append("Changed upstream and edited in the studio: nothing is overwritten until you choose.")
        return "\n".join(lines)

    @staticmethod
    def _show_side(view: DiffView, text: str, files: list[str], s: ops.Status, side: str) -> None:
        if not s.state:
            view.clear("Check for updates to compare with the source")
        elif not text and not files:
            view.clear(f"No change {side} since it was taken")
        else:
            label = f"{s.name} as taken" + (f" ({s.record.commit[:12]})" if s.record.commit else "")
            view.set_texts(s.taken_text, text or s.taken_text, label, f"{s.name} {side}")
        view.setToolTip("\n".join(files))

    # --- work ---------------------------------------------------------------------------------

    def check(self) -> None:
        """Fetch every source and compare (on a worker thread)."""
        self.start_work(lambda store, progress, cancelled: ops.outdated(store, with_diffs=True),
                        "Checking the sources…", self._checked)

    def _checked(self, run: TaskRun) -> None:
        if run.error:
            self.summary.show_result(f"The sources could not be checked: {run.error}", "danger")
            return
        statuses: list[ops.Status] = run.result   # type: ignore[assignment]
        self.statuses = {s.name: s for s in statuses}
        self._fill()
        waiting = [s for s in statuses if s.state != ops.CURRENT]
        verdict = f"{len(waiting)} not up to date." if waiting else "all up to date."
        self.summary.show_result(
            f"Checked {len(statuses)} skill(s): {verdict}", "attention" if waiting else "success",
            [f"{s.name}: {STATE_WORDS[s.state]}" + (f" ({s.detail})" if s.detail else "") for s in waiting])

    def _update_current(self) -> None:
        """Update, or (for a change on both sides, as shown) take upstream; a skill edited in the
        studio since the check is then reported as a two-sided change, never overwritten."""
        s = self.statuses.get(self.current_name() or "")
        self._update(ops.TAKE_UPSTREAM if s is not None and s.state == ops.BOTH else None)

    def _update(self, take: str | None) -> None:
        name = self.current_name()
        if name is None:
            return
        self.start_work(lambda store, progress, cancelled: ops.update(store, [name], take=take),
                        f"Updating {name}…", self._updated)

    def _update_all(self) -> None:
        names = sorted(n for n, s in self.statuses.items() if s.state == ops.UPSTREAM)
        self.start_work(lambda store, progress, cancelled: ops.update(store, names), "Updating…", self._updated)

    def _updated(self, run: TaskRun) -> None:
        if run.error:
            self.summary.show_result(f"Not updated: {run.error}", "danger")
            return
        report: ops.UpdateReport = run.result   # type: ignore[assignment]
        done = report.updated + report.kept
        details = [f"{c.name}: changed on both sides; choose a side" for c in report.conflicts] + report.failed
        text = (f"Updated {', '.join(report.updated)}." if report.updated else "") + \
               (f" Kept the studio's {', '.join(report.kept)}." if report.kept else "")
        self.summary.show_result(text.strip() or "Nothing was updated.",
                                 "attention" if details else "success", details)
        if done:
            self.changed.emit(done)
        self.check()

    def work_changed(self) -> None:
        self._show_current()
