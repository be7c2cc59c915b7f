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
from skill_studio.core.agents.prompt import gated_prompt
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens

TYPING_DELAY_MS = 250
COLUMNS = ("#", "Skill", "Found by", "Words rank", "Similarity", "Relevance", "Prior", "Score", "Note")
EXCLUDED_COLUMNS = ("Skill", "Why agents do not see it", "Found by", "Score")
#: The columns that take the room left (the others fit their contents).
STRETCHED = ("Skill", "Note", "Why agents do not see it")
#: What each column of the results means, shown over its header.
COLUMN_TIPS = {
    "#": "Where an agent would find the skill in its list",
    "Found by": "Whether the skill matched the query's words, its meaning, or both",
    "Words rank": "Place among the skills that share words with the query (– for none)",
    "Similarity": "How close the query is in meaning to the skill's name and description (0 to 1)",
    "Relevance": "How well the skill answers the query, words and meaning together",
    "Prior": "The skill's track record (utility and freshness); it only separates skills of about the "
             "same relevance",
    "Score": "The order the agent sees: relevance first, then the track record",
    "Why agents do not see it": "What keeps the skill out of every agent's list (its lifecycle, trust or a rule)",
}
#: strategy -> (label in the switch, what it does)
STRATEGY_LABELS = {
    "fused": ("Fused", "Relevance first, from the query's words and its meaning together; a skill's track "
                       "record only separates skills of about the same relevance"),
    "keywords": ("Words", "Relevance from the words the query shares with each skill (and its trigger "
                          "patterns) alone; the track record only separates near ties"),
    "vectors": ("Vectors", "Relevance from how close the query is in meaning to each skill's name and "
                           "description alone; the track record only separates near ties"),
    "product": ("Seed product", "The first ranking: similarity × utility × freshness"),
}
#: strategy -> how the status line names it
STRATEGY_NAMES = {"fused": "fused relevance (words and vectors)", "keywords": "words", "vectors": "vectors",
                  "product": "the seed product (similarity × utility × freshness)"}
NO_RANK = "–"


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    for c, name in enumerate(columns):
        if name in COLUMN_TIPS:
            table.horizontalHeaderItem(c).setToolTip(COLUMN_TIPS[name])
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectRows)
    table.setSelectionMode(QAbstractItemView.SingleSelection)
    table.setAlternatingRowColors(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeToContents)
    for c, name in enumerate(columns):
        if name in STRETCHED:
            header.setSectionResizeMode(c, QHeaderView.Stretch)
    header.setTextElideMode(Qt.ElideRight)
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
        for key, (label, tip) in STRATEGY_LABELS.items():
            self.strategy.addItem(label, key)
            self.strategy.setItemData(self.strategy.count() - 1, tip, Qt.ToolTipRole)
        self.strategy.setCurrentIndex(self.strategy.findData(matching.DEFAULT_STRATEGY))
        self.strategy.setToolTip(STRATEGY_LABELS[matching.DEFAULT_STRATEGY][1])
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
        self.strategy.currentIndexChanged.connect(self._strategy_changed)
        self.copy_button.clicked.connect(self.copy_prompt)
        for table in (self.matches, self.excluded):
            table.itemSelectionChanged.connect(lambda t=table: self._selected(t))
            table.itemDoubleClicked.connect(lambda item, t=table: self._open(t, item.row()))

    # --- running ---------------------------------------------------------------------

    def set_query(self, text: str, strategy: str | None = None) -> None:
        if strategy is not None:
            strategy = matching.ALIASES.get(strategy, strategy)
            if strategy not in STRATEGY_LABELS:
                raise ValueError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGY_LABELS)}")
            self.strategy.blockSignals(True)
            self.strategy.setCurrentIndex(self.strategy.findData(strategy))
            self.strategy.blockSignals(False)
            self.strategy.setToolTip(STRATEGY_LABELS[strategy][1])
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

    @Slot(int)
    def _strategy_changed(self, _index: int) -> None:
        self.strategy.setToolTip(STRATEGY_LABELS[self.strategy.currentData()][1])
        self.run()

    def apply_changes(self, changes) -> bool:
        """Run the query again when a skill changed (any skill may now match, or match differently); True if so."""
        if not (changes.skills or changes.unknown) or not self.query.text().strip():
            return False
        self.run()
        return True

    def _show(self, r: matching.MatchResult) -> None:
        self._fill(self.matches, [_match_row(rank, m) for rank, m in enumerate(r.matches, 1)])
        self._fill(self.excluded, [[_cell(m.name, tip=m.description), _cell(m.excluded), _cell(m.found_by),
                                    _cell(f"{m.score:.3f}", number=True, tip=_score_tip(m))] for m in r.excluded])
        found = f"{len(r.matches)} skill(s) an agent may see" if r.matches else "No skill an agent may see matches"
        note = f" ({r.note})" if r.note else ""
        self.status.setText(f"{found}, ranked by {STRATEGY_NAMES.get(r.strategy, r.strategy)}{note}. "
                            "Double-click a skill to open it.")
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
        made = gated_prompt(self.store)
        self.copy_text(made.text)
        shown = made.text.count("<skill>")
        extra = "".join(f" {note[:1].upper()}{note[1:]}." for note in made.notes())
        self.status.setText(f"Copied the prompt block of {shown} skill(s) agents may see.{extra}")
        return made.text

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self.status.setStyleSheet(f"color: {current_tokens().text_muted};")


def _match_row(rank: int, m: matching.Match) -> list[QTableWidgetItem]:
    """The cells of one ranked skill, in COLUMNS order; each number's tooltip carries it in full."""
    words = str(m.lexical_rank) if m.lexical_rank is not None else NO_RANK
    return [_cell(str(rank), number=True), _cell(m.name, tip=m.description),
            _cell(m.found_by, tip=_found_tip(m)),
            _cell(words, number=True, tip=_words_tip(m)),
            _cell(f"{m.similarity:.3f}" if m.vector_rank is not None else NO_RANK, number=True,
                  tip=_similarity_tip(m)),
            _cell(f"{m.relevance:.3f}", number=True, tip=_relevance_tip(m)),
            _cell(f"{m.prior:.3f}", number=True, tip=_prior_tip(m)),
            _cell(f"{m.score:.3f}", number=True, tip=_score_tip(m)),
            _cell(m.warning or "", tip=m.warning)]


def _found_tip(m: matching.Match) -> str:
    """Each signal that found it (a trigger match ranks first), or the strategy that ranked it."""
    return "; ".join(m.evidence()) or f"ranked by {STRATEGY_NAMES.get(m.strategy, m.strategy)}"


def _words_tip(m: matching.Match) -> str:
    if m.lexical_rank is None:
        return "not found by the query's words" if m.strategy in ("fused", "keywords") else \
            "words not used by this strategy"
    return f"place {m.lexical_rank} in the full-text ranking; bm25 {m.bm25:.6g} (higher is better)"


def _similarity_tip(m: matching.Match) -> str:
    if m.strategy == "keywords":
        return "vectors not used by this strategy"
    if m.vector_rank is None:
        return "not close enough to the query: under the library's background similarity"
    rank = f"; place {m.vector_rank} by similarity" if m.vector_rank is not None else ""
    return f"cosine similarity of the query and the skill's name and description: {m.similarity:.6f}{rank}"


def _relevance_tip(m: matching.Match) -> str:
    if m.strategy == "product":
        return f"the seed product ranks by similarity alone: {m.relevance:.6f}"
    return f"how much the skill is about the query, 1.0 when first in every signal: {m.relevance:.6f}"


def _prior_tip(m: matching.Match) -> str:
    if m.strategy == "product":
        return (f"utility × freshness = {m.utility:.3f} × {m.freshness:.3f} = {m.prior:.6f} "
                "(the seed product: no floor)")
    floor = matching.PRIOR_FLOOR
    return (f"{floor:g} + {1 - floor:g} × utility × freshness = {floor:g} + {1 - floor:g} × {m.utility:.3f} × "
            f"{m.freshness:.3f} = {m.prior:.6f}")


def _score_tip(m: matching.Match) -> str:
    if m.strategy == "product":
        return (f"similarity × utility × freshness = {m.similarity:.3f} × {m.utility:.3f} × {m.freshness:.3f} "
                f"= {m.score:.6f}")
    return f"relevance × prior = {m.relevance:.3f} × {m.prior:.3f} = {m.score:.6f}"
