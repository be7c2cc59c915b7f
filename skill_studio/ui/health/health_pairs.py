"""The near-duplicate pairs of a health run: a list, the two SKILL.md side by side, and the
two answers a reviewer gives (merge them, or they are not duplicates)."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.health.checks import HealthRun
from skill_studio.core.store import StoreError
from skill_studio.ui.designer.diff_view import DiffView
from skill_studio.ui.health.health_models import PairModel
from skill_studio.ui.safe_text import literal

NO_PAIR = "Select a pair to compare the two SKILL.md files"


def table_view(parent: QWidget, model) -> QTableView:
    """A read-only table selecting whole rows, one at a time."""
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setSelectionMode(QAbstractItemView.SingleSelection)
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 10)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    return view


def pair_roles(result: HealthRun) -> list[tuple[str, str, float]]:
    """(source, target, similarity) of each pair: the target is the one the plan suggests keeping
    (higher trust, then utility); pairs are ordered as the run gave them (best first). A template
    family is no pair: the plan reports it once, and the run's pairs leave its members out."""
    suggested = {frozenset((a.skill, a.target)): (a.skill, a.target)
                 for a in result.actions if a.rule == "near-duplicate" and a.target}
    out = []
    for p in result.pairs:
        source, target = suggested.get(frozenset((p.a, p.b)), (p.b, p.a))
        out.append((source, target, float(p.similarity)))
    return out


class PairsPanel(QWidget):
    """Pairs as (source, target, similarity); "Not duplicates" writes the dismissal to the store."""

    mergeRequested = Signal(str, str)   # (source, target)
    pairDismissed = Signal(str, str)    # (source, target)
    countChanged = Signal(int)

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        self.pair_model = PairModel(self)
        self.pair_view = table_view(self, self.pair_model)
        header = self.pair_view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        header.setSectionResizeMode(1, QHeaderView.Stretch)
        header.resizeSection(2, 80)
        self.pair_view.selectionModel().currentRowChanged.connect(self._pair_selected)
        self.merge_button = QPushButton("Merge\u2026", self)
        self.dismiss_button = QPushButton("Not duplicates", self)
        self.dismiss_button.setToolTip("Never flag this pair again")
        self.merge_button.clicked.connect(self.request_merge)
        self.dismiss_button.clicked.connect(self.dismiss_pair)
        buttons = QHBoxLayout()
        buttons.addWidget(self.merge_button)
        buttons.addWidget(self.dismiss_button)
        buttons.addStretch(1)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.pair_view, 1)
        left_layout.addLayout(buttons)
        self.diff = DiffView(self)
        splitter = QSplitter(Qt.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(self.diff)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([340, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        self._pair_selected()

    def set_pairs(self, pairs: list[tuple[str, str, float]]) -> None:
        self.pair_model.set_pairs(pairs)
        self._pair_selected()
        self.countChanged.emit(self.pair_model.rowCount())

    def current_pair(self) -> tuple[str, str, float] | None:
        index = self.pair_view.currentIndex()
        return self.pair_model.pair(index.row()) if index.isValid() else None

    def select_pair(self, row: int) -> None:
        self.pair_view.selectionModel().setCurrentIndex(
            self.pair_model.index(row, 0), QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)

    def _pair_selected(self, *_args) -> None:
        pair = self.current_pair()
        self.merge_button.setEnabled(pair is not None)
        self.dismiss_button.setEnabled(pair is not None)
        if pair is None:
            self.merge_button.setToolTip("Merge the first skill of a pair into the second (the one kept)")
            self.diff.clear(NO_PAIR)
            return
        source, target, sim = pair
        self.merge_button.setToolTip(literal(f"Merge {source} into {target}"))
        try:
            left, right = self.store.get(target).skill_md, self.store.get(source).skill_md
        except StoreError as e:
            self.diff.clear(f"Cannot compare: {e}")
            return
        self.diff.set_texts(left, right, f"{target} (kept)", f"{source} ({sim:.2f} similar)")

    def request_merge(self) -> None:
        pair = self.current_pair()
        if pair is not None:
            self.mergeRequested.emit(pair[0], pair[1])

    def dismiss_pair(self) -> None:
        """Record the current pair as not duplicates (never flagged again) and drop it."""
        index = self.pair_view.currentIndex()
        if not index.isValid():
            return
        row = index.row()
        source, target, _ = self.pair_model.pair(row)
        self.store.dismiss_pair(source, target)
        self.pair_model.remove(row)
        if self.pair_model.rowCount():
            self.select_pair(min(row, self.pair_model.rowCount() - 1))
        self._pair_selected()
        self.pairDismissed.emit(source, target)
        self.countChanged.emit(self.pair_model.rowCount())
