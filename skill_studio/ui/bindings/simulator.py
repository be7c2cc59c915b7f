"""The event simulator and the recent event log of the bindings panel.

The simulator dispatches a real event through the bus (it is logged and starts cooldowns), at
the current time plus an offset the user chooses, so cooldowns can be tried without waiting.
Every binding considered is listed with fired or skipped, why, what its action would do and how
long it took; events emitted by ``emit_event`` actions appear under the binding that emitted them.
"""

from __future__ import annotations

import json
from datetime import timedelta

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.bus import dispatch as bus
from skill_studio.core.health import scores
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens

UNITS = (("seconds", 1), ("minutes", 60), ("hours", 3600), ("days", 86400))


def result_text(result) -> str:
    """What an action would do, as one line: ``tool: run_linter · arguments: {"path": "a.py"}``."""
    if result is None:
        return ""
    if not isinstance(result, dict):
        return json.dumps(result, ensure_ascii=False)
    return " · ".join(f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                      for k, v in result.items() if v is not None)


def check_payload(text: str) -> tuple[dict | None, str]:
    """(the payload, '') or (None, what is wrong, with line and column)."""
    if not text.strip():
        return {}, ""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        return None, f"Not JSON: {e.msg} at line {e.lineno}, column {e.colno}"
    if not isinstance(value, dict):
        return None, "The payload must be a JSON object: {\"field\": \"value\", ...}"
    return value, ""


def event_types(store, bindings=None) -> list[str]:
    """The usual event types, then the others the bindings use."""
    known = list(bus.KNOWN_EVENT_TYPES)
    used = {b.event_type for b in (store.bindings() if bindings is None else bindings)}
    return known + sorted(used - set(known))


class Simulator(QWidget):
    dispatched = Signal(object)      # bus.Dispatched

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.event_type = QComboBox(self)
        self.event_type.setEditable(True)
        self.event_type.setMinimumWidth(140)
        self.event_type.setToolTip("Offered: the usual event types and those in use; any name is allowed")
        self.payload = QPlainTextEdit(self)
        self.payload.setPlaceholderText('{"file": {"path": "src/app.py"}, "branch": "main"}')
        self.payload.setFixedHeight(90)
        self.payload.textChanged.connect(self._check)
        self.event_type.editTextChanged.connect(lambda _text: self._check())
        self.payload_status = QLabel(self)
        self.payload_status.setWordWrap(True)
        self.offset = QSpinBox(self)
        self.offset.setRange(0, 100_000)
        self.offset.setPrefix("+ ")
        self.offset.setToolTip("Dispatch as if this much later: try cooldowns without waiting")
        self.unit = QComboBox(self)
        for text, seconds in UNITS:
            self.unit.addItem(text, seconds)
        self.clock = ElidedLabel("", self, minimum=60)   # the whole time in its tooltip when short of room
        self.clock.setProperty("role", "muted")
        self.offset.valueChanged.connect(self._show_clock)
        self.unit.currentIndexChanged.connect(self._show_clock)
        self.dispatch_button = QPushButton("Dispatch", self)
        self.dispatch_button.setDefault(True)
        self.dispatch_button.clicked.connect(self.dispatch)
        self.results = QTreeWidget(self)
        self.results.setHeaderLabels(["Binding", "", "Why", "What it would do", "ms"])
        self.results.setRootIsDecorated(True)
        self.results.setAlternatingRowColors(True)
        header = self.results.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(2, QHeaderView.Stretch)   # why and what share the room left
        header.setSectionResizeMode(3, QHeaderView.Stretch)
        for col, width in ((0, 200), (1, 70), (4, 50)):
            header.resizeSection(col, width)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)

        row = QHBoxLayout()
        row.addWidget(QLabel("Event", self))
        row.addWidget(self.event_type)
        row.addSpacing(12)
        row.addWidget(QLabel("Clock", self))
        row.addWidget(self.offset)
        row.addWidget(self.unit)
        row.addWidget(self.clock, 1)
        row.addWidget(self.dispatch_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(row)
        layout.addWidget(QLabel("Payload (JSON)", self))
        layout.addWidget(self.payload)
        layout.addWidget(self.payload_status)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.summary)
        self.refresh_types()
        self._check()
        self._show_clock()

    def refresh_types(self, bindings=None) -> None:
        types = event_types(self.store, bindings)
        if types == [self.event_type.itemText(i) for i in range(self.event_type.count())]:
            return
        current = self.event_type.currentText()
        self.event_type.clear()
        self.event_type.addItems(types)
        self.event_type.setEditText(current or self.event_type.itemText(0))

    def offset_seconds(self) -> int:
        return self.offset.value() * self.unit.currentData()

    def now(self):
        return scores.utcnow() + timedelta(seconds=self.offset_seconds())

    def _show_clock(self) -> None:
        if self.offset_seconds():
            self.clock.setText(f"dispatching at {scores.format_time(self.now())[:19].replace('T', ' ')} (UTC)")
        else:
            self.clock.setText("dispatching now")

    def _check(self) -> None:
        payload, problem = check_payload(self.payload.toPlainText())
        self.payload_status.setText(problem or ("Valid JSON object" if self.payload.toPlainText().strip()
                                                else "No payload: an empty object"))
        t = current_tokens()
        self.payload_status.setStyleSheet(f"color: {t.error if problem else t.text_muted};")
        self.dispatch_button.setEnabled(payload is not None and bool(self.event_type.currentText().strip()))

    def dispatch(self):
        """Dispatch the event as written; returns the bus's answer (None if the payload is bad)."""
        payload, problem = check_payload(self.payload.toPlainText())
        event_type = self.event_type.currentText().strip()
        if payload is None or not event_type:
            return None
        # At another time than now the dispatch is a dry run: it is compared with the real
        # cooldowns but neither logged nor starts any, so agents are not held up by a test.
        result = bus.dispatch(self.store, event_type, payload, self.now(), record=not self.offset_seconds())
        self.show_result(result)
        self.dispatched.emit(result)
        return result

    def show_result(self, d) -> None:
        self.results.clear()
        self._add(self.results, d)   # (never the invisible root item: see FilesPanel._rebuild)
        self.results.expandAll()
        fired = sum(len(x.fired) for x in _all(d))
        considered = sum(len(x.outcomes) for x in _all(d))
        self.summary.setText(f"{d.event_type}: {fired} fired of {considered} considered"
                             + ("" if d.ok else " — an action failed") + (
                                 f"; {len(d.emitted)} event(s) emitted" if d.emitted else "")
                             + ("" if d.event_id is not None else " (a trial at another time: not logged)"))
        t = current_tokens()
        self.summary.setStyleSheet(f"color: {t.success if d.ok else t.error};")

    def _add(self, parent: QTreeWidget | QTreeWidgetItem, d) -> None:
        if not d.outcomes:
            QTreeWidgetItem(parent, [f"no binding listens to {d.event_type}", "", "", "", ""])
        emitted = iter(d.emitted)
        for o in d.outcomes:
            b = o.binding
            item = QTreeWidgetItem(parent, [f"{b.skill} → {b.action}", "fired" if o.fired else "skipped", o.reason,
                                            result_text(o.result), f"{o.duration_ms:.2f}" if o.fired else ""])
            item.setToolTip(3, literal(json.dumps(o.result, ensure_ascii=False, indent=2)) if o.result else "")
            item.setToolTip(2, literal(o.reason))
            tokens = current_tokens()
            colour = QColor(tokens.success if o.fired else tokens.text_muted)
            item.setForeground(1, colour)
            if o.fired and b.action == "emit_event" and o.result and "stopped" not in o.result:
                child = next(emitted, None)
                if child is not None:
                    sub = QTreeWidgetItem(item, [f"emitted {child.event_type}", "", "", result_text(child.payload), ""])
                    self._add(sub, child)


def _all(d):
    yield d
    for child in d.emitted:
        yield from _all(child)


class EventLog(QWidget):
    """The recent events: type, bindings fired, pass or fail, time; filter, search, details."""

    def __init__(self, store, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.type_filter = QComboBox(self)
        self.type_filter.setMinimumWidth(160)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search payloads, skills, reasons")
        self.search.setClearButtonEnabled(True)
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Time (UTC)", "Event", "Fired", "Result"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        self.table.setSelectionMode(QTableWidget.SingleSelection)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        for col, width in ((0, 150), (1, 150), (2, 90)):
            self.table.horizontalHeader().resizeSection(col, width)
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select an event to see its payload and every binding it considered")
        self.type_filter.currentIndexChanged.connect(self.refresh)
        self.search.textChanged.connect(self.refresh)
        self.table.itemSelectionChanged.connect(self._show_details)
        top = QHBoxLayout()
        top.addWidget(QLabel("Event", self))
        top.addWidget(self.type_filter)
        top.addWidget(self.search, 1)
        split = QSplitter(Qt.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(self.details)
        split.setSizes([520, 380])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        self._records: list = []
        self.refresh()

    def refresh(self) -> None:
        chosen = self.type_filter.currentData()
        self.type_filter.blockSignals(True)
        self.type_filter.clear()
        self.type_filter.addItem("All events", None)
        for t in sorted(set(event_types(self.store)) | set(self.store.logged_event_types())):
            self.type_filter.addItem(t, t)
        index = self.type_filter.findData(chosen)
        self.type_filter.setCurrentIndex(max(0, index))
        self.type_filter.blockSignals(False)
        self._records = self.store.events(limit=500, event_type=chosen, text=self.search.text().strip() or None)
        self.table.setRowCount(len(self._records))
        for row, r in enumerate(self._records):
            cells = [r.at[:19].replace("T", " "), r.event_type, f"{r.fired} of {r.considered}",
                     "pass" if r.ok else "fail"]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == 3:
                    item.setForeground(QColor(current_tokens().success if r.ok else current_tokens().error))
                self.table.setItem(row, col, item)
        self.table.clearSelection()      # the rows are other events now
        self.details.setPlainText("")

    def _show_details(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self._records):
            self.details.setPlainText("")
            return
        r = self._records[rows[0].row()]
        lines = [f"{r.event_type} at {r.at}" + (f" (emitted, depth {r.depth})" if r.depth else ""),
                 "payload: " + json.dumps(r.payload, ensure_ascii=False, indent=2), ""]
        for o in r.outcomes:
            mark = "fired  " if o.get("fired") else "skipped"
            lines.append(f"{mark} {o.get('skill')} → {o.get('action')}: {o.get('reason')}")
            if o.get("result"):
                lines.append("        " + result_text(o.get("result")))
        self.details.setPlainText("\n".join(lines))
