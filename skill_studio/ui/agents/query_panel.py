"""Try a query: the skills an agent would be offered for it (SPEC §8), ranked with each score's
breakdown, the strategy switch, the skills the gate keeps out and why, and the prompt block of
what agents may see, ready to copy."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.agents import matching
from skill_studio.core.agents.prompt import prompt_for
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens

TYPING_DELAY_MS = 250
COLUMNS = ("#", "Skill", "Found by", "Similarity", "Utility", "Freshness", "Score", "Note")
EXCLUDED_COLUMNS = ("Skill", "Why agents do not see it", "Found by", "Score")
STRATEGY_LABELS = {"auto": "Auto (vectors, else keywords)", "vectors": "Vectors", "keywords": "Keywords"}


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectRows)
    table.setSelectionMode(QAbstractItemView.SingleSelection)
    table.setAlternatingRowColors(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeToContents)
    header.setStretchLastSection(True)
    return table


def _cell(text: str, *, number: bool = False, tip: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if number:
        item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    if tip:
        item.setToolTip(literal(tip))
    return item


class QueryPanel(QWidget):
    """A query box and what matching makes of it, kept up to date as the query is typed."""

    skillSelected = Signal(str)
    openRequested = Signal(str)

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.result: matching.MatchResult | None = None
        self.copy_text = lambda text: QGuiApplication.clipboard().setText(text)   # replaceable in tests

        self.query = QLineEdit(placeholderText="Ask as an agent would: e.g. write release notes from the git log",
                               clearButtonEnabled=True)
        self.query.setAccessibleName("Query")
        self.strategy = QComboBox()
        for key, label in STRATEGY_LABELS.items():
            self.strategy.addItem(label, key)
        self.strategy.setToolTip("Vectors compare the query with each skill's name and description; keywords use "
                                 "trigger patterns and the full-text index")
        self.copy_button = QPushButton("Copy prompt block")
        self.copy_button.setToolTip("Copy the <available_skills> block of every skill agents may see")
        top = QHBoxLayout()
        top.addWidget(QLabel("Query"))
        top.addWidget(self.query, 1)
        top.addWidget(QLabel("Strategy"))
        top.addWidget(self.strategy)
        top.addWidget(self.copy_button)

        self.status = QLabel("Type a query to see the skills an agent would be offered.")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.status.setProperty("role", "muted")
        self.matches = _table(COLUMNS)
        self.matches.setAccessibleName("Ranked skills")
        self.excluded_label = QLabel("Kept out by the gate")
        self.excluded = _table(EXCLUDED_COLUMNS)
        self.excluded.setAccessibleName("Skills kept out by the gate")
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 4, 0, 0)
        lower_layout.addWidget(self.excluded_label)
        lower_layout.addWidget(self.excluded, 1)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.matches)
        split.addWidget(lower)
        split.setSizes([420, 200])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)

        self._timer = QTimer(self, singleShot=True, interval=TYPING_DELAY_MS)
        self._timer.timeout.connect(self.run)
        self.query.textChanged.connect(lambda _text: self._timer.start())
        self.query.returnPressed.connect(self.run)
        self.strategy.currentIndexChanged.connect(lambda _i: self.run())
        self.copy_button.clicked.connect(self.copy_prompt)
        for table in (self.matches, self.excluded):
            table.itemSelectionChanged.connect(lambda t=table: self._selected(t))
            table.itemDoubleClicked.connect(lambda item, t=table: self._open(t, item.row()))

    # --- running ---------------------------------------------------------------------

    def set_query(self, text: str, strategy: str | None = None) -> None:
        if strategy is not None:
            self.strategy.setCurrentIndex(self.strategy.findData(strategy))
        self.query.setText(text)
        self.run()

    @Slot()
    def run(self) -> None:
        self._timer.stop()
        text = self.query.text().strip()
        if not text:
            self.result = None
            self._fill(self.matches, [])
            self._fill(self.excluded, [])
            self.status.setText("Type a query to see the skills an agent would be offered.")
            return
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            self.result = matching.match(self.store, text, 25, self.strategy.currentData())
        finally:
            QApplication.restoreOverrideCursor()
        self._show(self.result)

    def apply_changes(self, changes) -> bool:
        """Run the query again when a skill changed (any skill may now match, or match differently); True if so."""
        if not (changes.skills or changes.unknown) or not self.query.text().strip():
            return False
        self.run()
        return True

    def _show(self, r: matching.MatchResult) -> None:
        self._fill(self.matches, [
            [_cell(str(rank), number=True), _cell(m.name, tip=m.description), _cell(_found_by(m)),
             _cell(f"{m.similarity:.3f}", number=True, tip=_similarity_tip(m)), _cell(f"{m.utility:.3f}", number=True),
             _cell(f"{m.freshness:.3f}", number=True), _cell(f"{m.score:.3f}", number=True,
                                                             tip="similarity × utility × freshness"),
             _cell(m.warning or "")] for rank, m in enumerate(r.matches, 1)])
        self._fill(self.excluded, [[_cell(m.name, tip=m.description), _cell(m.excluded), _cell(_found_by(m)),
                                    _cell(f"{m.score:.3f}", number=True)] for m in r.excluded])
        found = f"{len(r.matches)} skill(s) an agent may see" if r.matches else "No skill an agent may see matches"
        how = "by vectors" if r.strategy == "vectors" else "by keywords"
        note = f" ({r.note})" if r.note else ""
        self.status.setText(f"{found}, found {how}{note}. Double-click a skill to open it.")
        self.excluded_label.setText(f"Kept out by the gate: {len(r.excluded)}" if r.excluded
                                    else "Kept out by the gate: none of the skills found")
        for row, m in enumerate(r.matches):
            if m.warning:
                self.matches.item(row, len(COLUMNS) - 1).setForeground(Qt.darkYellow)

    @staticmethod
    def _fill(table: QTableWidget, rows: list[list[QTableWidgetItem]]) -> None:
        table.setSortingEnabled(False)
        table.clearContents()
        table.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, item in enumerate(cells):
                table.setItem(r, c, item)

    # --- selection and copying ------------------------------------------------------

    def _name_at(self, table: QTableWidget, row: int) -> str | None:
        item = table.item(row, 1 if table is self.matches else 0)
        return item.text() if item is not None else None

    def _selected(self, table: QTableWidget) -> None:
        rows = table.selectionModel().selectedRows()
        if rows and (name := self._name_at(table, rows[0].row())):
            self.skillSelected.emit(name)

    def _open(self, table: QTableWidget, row: int) -> None:
        if name := self._name_at(table, row):
            self.openRequested.emit(name)

    @Slot()
    def copy_prompt(self) -> str:
        """Copy the prompt block of the gated set; returns it."""
        block, left_out = prompt_for(self.store, matching.gated(self.store))
        self.copy_text(block)
        shown = block.count("<skill>")
        extra = (f" {len(left_out)} left out: no SKILL.md on disk ({', '.join(left_out[:5])}"
                 + ("…" if len(left_out) > 5 else "") + ").") if left_out else ""
        self.status.setText(f"Copied the prompt block of {shown} skill(s) agents may see.{extra}")
        return block

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self.status.setStyleSheet(f"color: {current_tokens().text_muted};")


def _found_by(m: matching.Match) -> str:
    if m.strategy == "vectors":
        return "vectors"
    return "keywords + trigger" if m.trigger else "keywords"


def _similarity_tip(m: matching.Match) -> str:
    if m.strategy == "vectors":
        return "cosine similarity of the query and the skill's name and description"
    return ("its trigger pattern matched the query; " if m.trigger else "") + \
        "full-text relevance, relative to the best hit (1.0)"
