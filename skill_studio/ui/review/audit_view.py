"""The audit log: who changed what and why, filtered, sorted and exported as CSV."""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime, time, timedelta

from PySide6.QtCore import QAbstractTableModel, QDate, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDateEdit,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.store import AuditEntry
from skill_studio.ui.designer.history_panel import exact_time
from skill_studio.ui.library.models import relative_time
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens

__all__ = ["AuditLogView", "AuditTableModel", "COLUMNS", "write_csv"]

COLUMNS = ("When", "Who", "Skill", "Action", "From", "To", "Why")
FIELDS = ("at", "actor", "skill", "action", "from_value", "to_value", "reason")
ALL_ACTIONS = "All actions"
#: How long typing in a filter waits before the log is queried again.
DEBOUNCE_MS = 250
#: Most entries loaded at once (newest first); the count label says when there were more.
LOAD_LIMIT = 10000
#: A date filter at this date means "any date".
ANY_DATE = QDate(2000, 1, 1)


def write_csv(path: str, entries: list[AuditEntry]) -> None:
    """Write the entries (header row, exact ISO times) as UTF-8 CSV. Raises OSError."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        for e in entries:
            writer.writerow(["" if getattr(e, k) is None else getattr(e, k) for k in FIELDS])


class AuditTableModel(QAbstractTableModel):
    """Audit entries as rows; display texts are computed once per load, sorting happens here."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._entries: list[AuditEntry] = []
        self._texts: list[tuple[str, ...]] = []
        self._tips: list[str] = []
        self._sort = (0, Qt.DescendingOrder)

    # --- data ---------------------------------------------------------------

    def set_entries(self, entries: list[AuditEntry], now: datetime | None = None) -> None:
        """Show these entries, in the current sort order."""
        self.beginResetModel()
        self._entries = list(entries)
        self._order()
        self._compute(now)
        self.endResetModel()

    def entries(self) -> list[AuditEntry]:
        """The entries in the order shown."""
        return list(self._entries)

    def entry(self, row: int) -> AuditEntry:
        return self._entries[row]

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.DisplayRole:
            return self._texts[row][col]
        if role == Qt.ToolTipRole:
            if col == 0:
                return literal(self._tips[row])
            text = self._texts[row][col]
            return literal(text) if len(text) > 40 else None
        if role == Qt.UserRole:
            return self._entries[row]
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def flags(self, index):
        return Qt.ItemIsEnabled | Qt.ItemIsSelectable if index.isValid() else Qt.NoItemFlags

    # --- sorting ------------------------------------------------------------

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        """Sort the loaded rows; When sorts by time (ties by entry order), the others as text."""
        if not 0 <= column < len(COLUMNS):
            return
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        ids = [self._entries[i.row()].id for i in old]
        self._sort = (column, order)
        self._order()
        self._compute(None)
        where = {e.id: row for row, e in enumerate(self._entries)}
        self.changePersistentIndexList(old, [self.index(where[i], p.column()) for i, p in zip(ids, old)])
        self.layoutChanged.emit()

    def _order(self) -> None:
        column, order = self._sort
        name = FIELDS[column]
        if column == 0:
            def key(e):
                return (e.at, e.id)
        else:
            def key(e):
                return ((getattr(e, name) or "").casefold(), e.id)
        self._entries.sort(key=key, reverse=order == Qt.DescendingOrder)

    def _compute(self, now: datetime | None) -> None:
        self._texts = [(relative_time(e.at, now), e.actor, e.skill, action_words(e.action), e.from_value or "",
                        e.to_value or "", e.reason or "") for e in self._entries]
        self._tips = [f"{e.at}\n{exact_time(e.at)}" for e in self._entries]


def action_words(action: str) -> str:
    """An audited action as people read it: "state:trust_tier" is "state: trust tier" (the CSV
    export and the filters keep the stored name)."""
    return action.replace(":", ": ").replace("_", " ")


class AuditLogView(QWidget):
    """Every audit entry that matches the filters above the table, newest first by default.

    ``ask_save_path()`` returns where Export CSV writes ('' or None: cancelled); it defaults
    to a file dialog and tests replace it.
    """

    skillActivated = Signal(str)
    statusMessage = Signal(str)

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.ask_save_path = self._ask_save_path
        self._picked: dict[QDateEdit, QDate] = {}  # the date a date filter had before it was unticked

        self.skill_edit = QLineEdit(self)
        self.skill_edit.setPlaceholderText("Any skill")
        self.skill_edit.setClearButtonEnabled(True)
        self.skill_edit.setToolTip("Only this skill's entries (exact name)")
        self._completer = QCompleter([], self.skill_edit)
        self._completer.setCaseSensitivity(Qt.CaseInsensitive)
        self._completer.setFilterMode(Qt.MatchContains)
        self.skill_edit.setCompleter(self._completer)
        self.action_combo = QComboBox(self)
        self.action_combo.setToolTip("Only this kind of change")
        self.action_combo.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.since_check, self.since_edit = self._date_filter("From", -30)
        self.until_check, self.until_edit = self._date_filter("to", 0)
        self.text_edit = QLineEdit(self)
        self.text_edit.setPlaceholderText("Search skill, who or why")
        self.text_edit.setClearButtonEnabled(True)
        self.export_button = QPushButton("Export CSV\u2026", self)
        self.export_button.setToolTip("Save the entries shown, in the order shown, as a CSV file")
        self.export_button.clicked.connect(self.export_csv)

        filters = QHBoxLayout()
        filters.addWidget(QLabel("Skill:", self))
        filters.addWidget(self.skill_edit, 2)
        filters.addWidget(self.action_combo)
        for check, edit in ((self.since_check, self.since_edit), (self.until_check, self.until_edit)):
            filters.addWidget(check)
            filters.addWidget(edit)
        filters.addWidget(self.text_edit, 3)

        self.model = AuditTableModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setSortIndicator(0, Qt.DescendingOrder)
        header.setHighlightSections(False)
        header.setStretchLastSection(True)
        for col, width in enumerate((110, 90, 170, 140, 90, 90)):
            header.resizeSection(col, width)
        header.setSectionResizeMode(QHeaderView.Interactive)
        self.table.setSortingEnabled(True)
        self.table.doubleClicked.connect(self._on_double_click)
        self.empty_label = QLabel(self)
        self.empty_label.setAlignment(Qt.AlignCenter)
        self.empty_label.setProperty("role", "muted")
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty_label)

        self.count_label = QLabel(self)
        self.count_label.setProperty("role", "muted")
        self.status_label = QLabel(self)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setProperty("role", "muted")
        self.status_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        bottom = QHBoxLayout()
        bottom.addWidget(self.count_label)
        bottom.addWidget(self.status_label, 1)
        bottom.addWidget(self.export_button)

        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.stack, 1)
        layout.addLayout(bottom)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.reload)
        for edit in (self.skill_edit, self.text_edit):
            edit.textChanged.connect(self._timer.start)
            edit.returnPressed.connect(self.reload)
        for edit in (self.since_edit, self.until_edit):
            edit.dateChanged.connect(self._timer.start)
        for check in (self.since_check, self.until_check):
            check.toggled.connect(self._on_date_toggled)
        self._completer.activated.connect(self._timer.start)
        self.action_combo.currentIndexChanged.connect(self.reload)
        self.refresh()

    # --- public -------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the action list, the skill names and the entries (after the store changed)."""
        self._fill_actions()
        self._completer.model().setStringList(self.store.names())
        self.reload()

    def reload(self) -> None:
        """Query the entries again with the current filters."""
        self._timer.stop()
        entries = self.store.audit_entries(**self.filters(), limit=LOAD_LIMIT)
        self.model.set_entries(entries)
        n = len(entries)
        more = " (the newest; narrow the filters to see older ones)" if n >= LOAD_LIMIT else ""
        self.count_label.setText(f"{n:,} {'entry' if n == 1 else 'entries'}{more}")
        if n:
            self.stack.setCurrentWidget(self.table)
        else:
            filtered = any(self.filters().values())
            self.empty_label.setText("No audit entries match these filters" if filtered
                                     else "Nothing has been recorded in the audit log yet")
            self.stack.setCurrentWidget(self.empty_label)
        self.export_button.setEnabled(bool(n))

    def filters(self) -> dict:
        """The keyword arguments for ``store.audit_entries`` the filters stand for (None: any)."""
        since, until = self._bound(self.since_check, self.since_edit), self._bound(self.until_check, self.until_edit)
        since = since and _utc_stamp(since)
        until = until and _utc_stamp(until + timedelta(days=1), end=True)
        return {"skill": self.skill_edit.text().strip() or None, "action": self.action_combo.currentData(),
                "since": since, "until": until, "text": self.text_edit.text().strip() or None}

    def set_skill_filter(self, name: str | None) -> None:
        """Show only this skill's entries (None or '': every skill), at once."""
        self.skill_edit.setText(name or "")
        self.reload()

    def set_action_filter(self, action: str | None) -> None:
        """Show only this action (or family such as 'state'); None: all. Unknown actions are added."""
        index = self.action_combo.findData(action) if action else 0
        if index < 0:
            self.action_combo.addItem(action, action)
            index = self.action_combo.count() - 1
        self.action_combo.setCurrentIndex(index)

    def export_csv(self) -> bool:
        """Write the rows shown to the path ``ask_save_path()`` gives; True when written."""
        path = self.ask_save_path()
        if not path:
            return False
        path = str(path)
        try:
            write_csv(path, self.model.entries())
        except OSError as e:
            self._report(f"Could not write {path}: {e.strerror or e}", error=True)
            return False
        n = self.model.rowCount()
        self._report(f"Exported {n:,} {'entry' if n == 1 else 'entries'} to {path}", error=False)
        return True

    # --- internals ----------------------------------------------------------

    def _date_filter(self, label: str, days: int) -> tuple[QCheckBox, QDateEdit]:
        check = QCheckBox(label, self)
        check.setToolTip("Tick to filter by date; untick for any date")
        edit = QDateEdit(self)
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("yyyy-MM-dd")
        edit.setMinimumDate(ANY_DATE)  # the minimum stands for "no bound" and reads "any date"
        edit.setSpecialValueText("any date")
        edit.setDate(ANY_DATE)
        edit.setEnabled(False)
        self._picked[edit] = QDate.currentDate().addDays(days)
        return check, edit

    def _on_date_toggled(self) -> None:
        for check, edit in ((self.since_check, self.since_edit), (self.until_check, self.until_edit)):
            if check.isChecked() == edit.isEnabled():
                continue
            edit.blockSignals(True)
            if check.isChecked():
                edit.setDate(self._picked[edit])
            else:
                self._picked[edit] = edit.date() if edit.date() != ANY_DATE else self._picked[edit]
                edit.setDate(ANY_DATE)
            edit.blockSignals(False)
            edit.setEnabled(check.isChecked())
        self.reload()

    def _bound(self, check: QCheckBox, edit: QDateEdit) -> date | None:
        return edit.date().toPython() if check.isChecked() and edit.date() != ANY_DATE else None

    def _fill_actions(self) -> None:
        current = self.action_combo.currentData()
        actions = self.store.actions_in_use()
        families = sorted({a.split(":", 1)[0] for a in actions if ":" in a})
        items: list[tuple[str, str | None]] = [(ALL_ACTIONS, None)]
        for value in sorted(set(actions) | set(families), key=lambda a: (a.split(":", 1)[0], ":" in a, a)):
            words = action_words(value)
            items.append((f"{words} (all)" if value in families and value not in actions else words, value))
        self.action_combo.blockSignals(True)
        self.action_combo.clear()
        for text, value in items:
            self.action_combo.addItem(text, value)
        index = self.action_combo.findData(current) if current else 0
        if index < 0:
            self.action_combo.addItem(current, current)
            index = self.action_combo.count() - 1
        self.action_combo.setCurrentIndex(index)
        self.action_combo.blockSignals(False)

    def _on_double_click(self, index) -> None:
        if index.isValid():
            self.skillActivated.emit(self.model.entry(index.row()).skill)

    def _report(self, text: str, *, error: bool) -> None:
        self.status_label.setStyleSheet(f"color: {current_tokens().error};" if error else "")
        self.status_label.setText(text)
        self.statusMessage.emit(text)

    def _ask_save_path(self) -> str:
        path, _ = QFileDialog.getSaveFileName(self, "Export the audit log", "audit-log.csv",
                                              "CSV files (*.csv);;All files (*)")
        return path


def _utc_stamp(day: date, *, end: bool = False) -> str:
    """Local midnight starting ``day`` as a UTC audit stamp (one second before it with ``end``)."""
    local = datetime.combine(day, time()).astimezone()
    if end:
        local -= timedelta(seconds=1)
    return local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
