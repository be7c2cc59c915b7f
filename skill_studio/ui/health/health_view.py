"""The health view: run a health check off the GUI thread, then read the band summary, every
skill's scores, the plan (and apply it), the near-duplicate pairs and one skill's trend."""

from __future__ import annotations

import functools
import threading

from PySide6.QtCore import QItemSelectionModel, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.health import checks as health
from skill_studio.core.health.checks import BAND_NAMES, BANDS, FAILING, HealthRun
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.gui_thread import gui_only
from skill_studio.ui.health.health_models import (
    BAR_COLUMNS,
    HEALTH_COLUMN,
    NAME_ROLE,
    SKILL_COLUMNS,
    HealthFilterProxy,
    PlanModel,
    SkillHealthModel,
)
from skill_studio.ui.health.health_notes import OUT_OF_DATE, Applied, out_of_date, run_summary, stage_text
from skill_studio.ui.health.health_pairs import PairsPanel, pair_roles, table_view
from skill_studio.ui.health.health_parts import BarDelegate, SummaryStrip, TrendChart
from skill_studio.ui.health.health_settings import HealthSettingsPage
from skill_studio.ui.safe_text import question, warning
from skill_studio.ui.task_worker import TaskWorker, WorkerOwner, start_worker

ALL_BANDS = "All bands"
class HealthView(WorkerOwner, QWidget):
    """Health checks on demand. ``run_health``, ``confirm``, ``inform`` and ``do_apply`` are plain
    attributes the window (or a test) may replace; the view itself writes nothing but the
    thresholds and dismissed pairs unless ``do_apply`` does."""

    runFinished = Signal(object)        # the HealthRun
    runCancelled = Signal()
    runFailed = Signal(str)
    storeChanged = Signal(object)       # ChangeSet: after the plan was applied
    mergeRequested = Signal(str, str)   # (source, target)
    skillActivated = Signal(str)

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        # (store, *, progress, cancelled) -> HealthRun, on the worker thread; many vectors are
        # computed in worker processes (the app's entry points are import-safe)
        self.run_health = functools.partial(health.run, parallel=True)
        self.confirm = self._confirm_box
        self.inform = self._inform_box
        self.do_apply = lambda actions, exclude: health.apply(store, actions, exclude)
        self.result: HealthRun | None = None
        self.applied: Applied | None = None
        self._applying = False
        self._cancel = threading.Event()
        self._thread = self._worker = None
        self._running = False
        self._build()
        self._set_running(False)
        self.show_result(None)

    # --- layout -------------------------------------------------------------

    def _build(self) -> None:
        self.run_button = QPushButton("Run health check", self)
        self.run_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(280)
        self.stage_label = QLabel(self)
        self.stage_label.setTextFormat(Qt.TextFormat.PlainText)
        self.stage_label.setProperty("role", "muted")
        self.status_label = ElidedLabel("", self, minimum=120)   # the whole text in its tooltip
        self.status_label.setProperty("role", "muted")
        self.run_button.clicked.connect(self.start_run)
        self.cancel_button.clicked.connect(self.cancel)
        top = QHBoxLayout()
        for w in (self.run_button, self.cancel_button, self.progress, self.stage_label):
            top.addWidget(w)
        top.addWidget(self.status_label, 1)
        self.summary = SummaryStrip(self)

        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._skills_page(), "Skills and plan")
        self.pairs_panel = PairsPanel(self.store, self)
        self.pair_model, self.pair_view, self.diff = (self.pairs_panel.pair_model, self.pairs_panel.pair_view,
                                                      self.pairs_panel.diff)
        self.merge_button, self.dismiss_button = self.pairs_panel.merge_button, self.pairs_panel.dismiss_button
        self.select_pair, self.current_pair = self.pairs_panel.select_pair, self.pairs_panel.current_pair
        self.pairs_panel.mergeRequested.connect(self.mergeRequested)
        self.pairs_panel.pairDismissed.connect(self._pair_dismissed)
        self.pairs_panel.countChanged.connect(self._pairs_counted)
        self.tabs.addTab(self.pairs_panel, "Near-duplicates")
        self.settings_page = HealthSettingsPage(self.store, self)
        self.tabs.addTab(self.settings_page, "Thresholds")

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.tabs, 1)

    def _skills_page(self) -> QWidget:
        page = QWidget(self)
        self.filter_edit = QLineEdit(page)
        self.filter_edit.setPlaceholderText("Filter by name")
        self.filter_edit.setClearButtonEnabled(True)
        self.band_combo = QComboBox(page)
        self.band_combo.addItem(ALL_BANDS, "")
        lows, lowest = dict(BANDS), min(low for _, low in BANDS if low > 0)
        for band in BAND_NAMES:
            if band == FAILING:
                label = f"{band} (fails most of its uses)"
            else:
                label = f"{band} (\u2265 {lows[band]:.1f})" if lows[band] else f"{band} (< {lowest:.1f})"
            self.band_combo.addItem(label, band)
        self.shown_label = QLabel(page)
        self.shown_label.setProperty("role", "muted")
        filters = QHBoxLayout()
        filters.addWidget(self.filter_edit, 1)
        filters.addWidget(self.band_combo)
        filters.addWidget(self.shown_label)

        self.skill_model = SkillHealthModel(self)
        self.proxy = HealthFilterProxy(self)
        self.proxy.setSourceModel(self.skill_model)
        self.table = table_view(page, self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(HEALTH_COLUMN, Qt.AscendingOrder)     # the weakest first
        self.bar_delegate = BarDelegate(self.table)
        for column in BAR_COLUMNS:
            self.table.setItemDelegateForColumn(column, self.bar_delegate)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        for column, (attr, _) in enumerate(SKILL_COLUMNS[1:], start=1):
            # narrow enough that the names keep room at 1024 px; the bars' values stay whole
            header.resizeSection(column, 104 if column in BAR_COLUMNS else (52 if attr == "uses" else 78))
        self.band_combo.setItemData(self.band_combo.findData(FAILING),
                                    "Enough uses to tell, and most of them failed: below every other skill, "
                                    "whatever the health score", Qt.ToolTipRole)
        self.filter_edit.textChanged.connect(self._filter_changed)
        self.band_combo.currentIndexChanged.connect(self._filter_changed)
        self.table.selectionModel().currentRowChanged.connect(self._skill_selected)
        self.table.doubleClicked.connect(self._activate_from)

        self.plan_model = PlanModel(self)
        self.plan_view = table_view(page, self.plan_model)
        plan_header = self.plan_view.horizontalHeader()
        for column, width in enumerate((190, 160, 120)):
            plan_header.resizeSection(column, width)
        plan_header.setStretchLastSection(True)
        self.plan_view.doubleClicked.connect(self._activate_from)
        self.apply_button = QPushButton(page)
        self.apply_button.clicked.connect(self.apply_plan)
        self.plan_model.checkedChanged.connect(self._update_apply_button)
        plan_title = QLabel("Plan (ticked moves are applied; greyed ones are reported only)", page)
        plan_title.setProperty("role", "muted")
        plan_bar = QHBoxLayout()
        plan_bar.addWidget(plan_title, 1)
        plan_bar.addWidget(self.apply_button)
        plan_box = QWidget(page)
        plan_layout = QVBoxLayout(plan_box)
        plan_layout.setContentsMargins(0, 0, 0, 0)
        plan_layout.addLayout(plan_bar)
        plan_layout.addWidget(self.plan_view, 1)

        self.trend = TrendChart(page)
        bottom = QSplitter(Qt.Horizontal, page)
        bottom.addWidget(plan_box)
        bottom.addWidget(self.trend)
        bottom.setStretchFactor(0, 3)
        bottom.setStretchFactor(1, 1)
        bottom.setSizes([860, 340])
        table_box = QWidget(page)
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.addLayout(filters)
        table_layout.addWidget(self.table, 1)
        self.skills_splitter = QSplitter(Qt.Vertical, page)
        self.skills_splitter.addWidget(table_box)
        self.skills_splitter.addWidget(bottom)
        self.skills_splitter.setStretchFactor(0, 3)
        self.skills_splitter.setStretchFactor(1, 2)
        self.skills_splitter.setSizes([380, 260])
        layout = QVBoxLayout(page)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.skills_splitter)
        return page

    # --- running ------------------------------------------------------------

    def is_running(self) -> bool:
        return self._running

    def start_run(self) -> bool:
        """Start a health check on a worker thread; False if one is already running."""
        if self._running:
            return False
        if self._thread is not None:      # the previous run's thread, done or about to be
            self._thread.quit()
            self._thread.wait()
            self._thread.deleteLater()
        self._cancel = threading.Event()
        self._worker = worker = TaskWorker(self.run_health, self.store, self._cancel)
        worker.progressed.connect(self._on_progress, Qt.QueuedConnection)
        worker.succeeded.connect(self._on_succeeded, Qt.QueuedConnection)
        worker.interrupted.connect(self._on_interrupted, Qt.QueuedConnection)
        worker.failed.connect(self._on_failed, Qt.QueuedConnection)
        self._set_running(True)
        self._say("Running the health check\u2026")
        self._thread = start_worker(worker, self, "health-check")
        return True

    def cancel(self) -> None:
        """Ask the running check to stop at its next step (nothing of it is stored)."""
        if self._running:
            self._cancel.set()
            self.cancel_button.setEnabled(False)
            self.stage_label.setText("Cancelling\u2026")

    def _set_running(self, running: bool) -> None:
        self._running = running
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.cancel_button.setVisible(running)
        self.progress.setVisible(running)
        self.stage_label.setVisible(running)
        if running:
            self.progress.setRange(0, 0)
            self.stage_label.setText("Starting\u2026")

    @Slot(str, int, int)
    @gui_only
    def _on_progress(self, stage: str, done: int, total: int) -> None:
        if not self._running or self._cancel.is_set():
            return
        self.progress.setRange(0, max(0, total))
        self.progress.setValue(min(done, total))
        self.stage_label.setText(stage_text(stage, done, total))

    @Slot(object)
    @gui_only
    def _on_succeeded(self, result) -> None:
        self._set_running(False)
        self.show_result(result)
        self.runFinished.emit(result)

    @Slot()
    @gui_only
    def _on_interrupted(self) -> None:
        self._set_running(False)
        self._say("Cancelled: nothing was stored; the last results stay shown" if self.result is not None
                  else "Cancelled: nothing was stored")
        self.runCancelled.emit()

    @Slot(str)
    @gui_only
    def _on_failed(self, message: str) -> None:
        self._set_running(False)
        self._say(f"The health check failed: {message}")
        self.runFailed.emit(message)

    # --- showing a run ------------------------------------------------------

    def show_result(self, result: HealthRun | None) -> None:
        """Show a run (also one made elsewhere, e.g. by the command line); None: nothing yet."""
        self.result = result
        self.applied = None
        previous = self.current_skill()
        if result is None:
            self.summary.set_summary({})
        else:
            summary = result.summary or health.summarize(result.skills, result.actions)
            self.summary.set_summary(summary)
        self.skill_model.set_skills(result.skills if result else [])
        self.plan_model.set_actions(result.actions if result else [])
        self.pairs_panel.set_pairs(pair_roles(result) if result else [])
        self._say(self.run_summary())
        self._filter_changed()
        if not (previous and self.select_skill(previous)):
            self._skill_selected()

    def run_summary(self) -> str:
        """One line on the run shown: how many skills, moves and near-duplicate pairs."""
        return run_summary(self.result, self.pair_model.rowCount())

    def _say(self, text: str, tip: str = "") -> None:
        self.status_label.setText(text)
        self.status_label.set_tip(tip if tip != text else "")

    def current_skill(self) -> str | None:
        index = self.table.currentIndex()
        return index.data(NAME_ROLE) if index.isValid() else None

    def select_skill(self, name: str) -> bool:
        """Make ``name`` the table's current row (its trend shows); False if it is not listed."""
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if index.data(NAME_ROLE) == name:
                self.table.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
                return True
        return False

    def _filter_changed(self, *_args) -> None:
        self.proxy.set_text(self.filter_edit.text())
        self.proxy.set_band(self.band_combo.currentData() or "")
        self.shown_label.setText(f"{self.proxy.rowCount()} of {self.skill_model.rowCount()} skills")

    def _skill_selected(self, *_args) -> None:
        name = self.current_skill()
        self.trend.set_history(name, self.store.health_history(name) if name else [])

    def _activate_from(self, index) -> None:
        name = index.data(NAME_ROLE)
        if name:
            self.skillActivated.emit(name)

    # --- the plan -----------------------------------------------------------

    def _update_apply_button(self) -> None:
        n = len(self.plan_model.checked_actions())
        self.apply_button.setText(f"Apply {n} move{'' if n == 1 else 's'}")
        self.apply_button.setEnabled(n > 0)

    def apply_plan(self) -> bool:
        """Apply the ticked moves after ``confirm``; returns whether anything was applied."""
        chosen = self.plan_model.checked_actions()
        if not chosen:
            return False
        lines = "\n".join(f"\u2022 {a.action} {a.skill} ({a.rule})" for a in chosen[:12])
        more = f"\n\u2026 and {len(chosen) - 12} more" if len(chosen) > 12 else ""
        if not self.confirm(f"Apply {len(chosen)} lifecycle move(s)?\n\n{lines}{more}"):
            return False
        self._applying = True   # the window hears of the change while do_apply runs: it is this one
        try:
            change, refused = self.do_apply(self.plan_model.actions(), self.plan_model.excluded_skills())
        finally:
            self._applying = False
        names = getattr(change, "names", None)
        applied = set(names) if names is not None else {a.skill for a in chosen}
        self.plan_model.mark_applied(applied)
        done = len(chosen) - len(refused)
        self.applied = Applied(getattr(change, "label", ""), frozenset(applied), done)
        self._say(self.applied.applied_text())
        if refused:
            self.inform("Some moves were refused:\n\n" + "\n".join(refused))
        self.storeChanged.emit(ChangeSet.of(changed=applied, label="health plan"))
        return True

    def changes_applied(self, changes: ChangeSet) -> None:
        """The store changed (``changes`` from the window): an undo or redo of the applied plan
        says so and makes its moves tickable again (or not); another change to skills this run
        shows says the plan may be out of date."""
        if self._applying or self.result is None or not changes:
            return
        note = self.applied.follow(changes) if self.applied is not None else None
        if note is not None:
            self.plan_model.mark_applied(set(self.applied.skills), not self.applied.undone)
            self._say(note)
        elif out_of_date(self.result, changes):
            self._say(OUT_OF_DATE, self.run_summary())

    # --- near-duplicates ----------------------------------------------------

    def _pairs_counted(self, n: int) -> None:
        self.tabs.setTabText(1, f"Near-duplicates ({n})" if n else "Near-duplicates")

    def _pair_dismissed(self, source: str, target: str) -> None:
        self.plan_model.remove_review(source, target)
        self._say(f"{source} and {target} will not be flagged again")

    # --- default dialogs (replaceable) ---------------------------------------

    def _confirm_box(self, text: str) -> bool:
        return question(self, "Apply the health plan", text)

    def _inform_box(self, text: str) -> None:
        warning(self, "Health plan", text)
