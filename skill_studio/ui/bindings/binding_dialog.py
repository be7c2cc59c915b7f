"""Adding or editing a binding: skill, event type, action with the parameters that action takes,
conditions (field, exact or regex, value; regexes checked as they are typed), priority,
cooldown and the enabled switch. OK checks the whole binding with the core's rules and keeps
the dialog open, naming each problem, until it is valid."""

from __future__ import annotations

import json

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.bus import dispatch as bus
from skill_studio.core.bus.dispatch import Binding, Condition
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import current_tokens

EXACT, REGEX = "is exactly", "matches regex"
JSON_PARAMS = {"payload", "arguments"}
LABELS = {"text": "Text to inject", "event_type": "Event to emit", "payload": "Its payload (JSON)",
          "tool": "Tool name", "arguments": "Arguments (JSON)", "message": "Message", "channel": "Channel"}


def error_style() -> str:
    """The border of a field whose value is refused."""
    return f"border: 1px solid {current_tokens().error};"


def condition_problem(regex: bool, value: str) -> str | None:
    """What is wrong with a condition's value as typed, or None. An exact value written between
    slashes would be read back as a regex, so it is refused."""
    if regex:
        if not value:
            return "an empty regex matches every value; write a pattern or use an exact value"
        return bus.check_condition_value(f"/{value}/")
    if len(value) > 2 and value.startswith("/") and value.endswith("/"):
        return "a value between slashes is read as a regex: choose “matches regex”"
    return None


class BindingDialog(QDialog):
    def __init__(self, store, binding: Binding | None = None, parent: QWidget | None = None, *,
                 title: str = "Binding"):
        super().__init__(parent)
        self.store = store
        self.setWindowTitle(title)
        self.setMinimumWidth(620)
        self._param_edits: dict[str, QWidget] = {}
        self._result: Binding | None = None
        self._id = binding.id if binding else None

        self.skill = QLineEdit(self)
        self.skill.setPlaceholderText("the skill this binding invokes")
        completer = QCompleter(QStringListModel(store.names(), self), self)
        completer.setCaseSensitivity(Qt.CaseInsensitive)
        completer.setFilterMode(Qt.MatchContains)
        self.skill.setCompleter(completer)
        self.event_type = QComboBox(self)
        self.event_type.setEditable(True)
        known = list(bus.KNOWN_EVENT_TYPES)
        known += sorted({b.event_type for b in store.bindings()} - set(known))
        self.event_type.addItems(known)
        self.event_type.setToolTip("Offered: the usual event types and those in use; any name is allowed")
        self.action = QComboBox(self)
        self.action.addItems(list(bus.ACTIONS))
        self.action.currentTextChanged.connect(self._action_changed)
        self.params = QWidget(self)
        self.params_form = QFormLayout(self.params)
        self.params_form.setContentsMargins(0, 0, 0, 0)
        self.priority = QSpinBox(self)
        self.priority.setRange(-bus.MAX_PRIORITY, bus.MAX_PRIORITY)
        self.priority.setToolTip("Higher fires first")
        self.cooldown = QDoubleSpinBox(self)
        self.cooldown.setRange(0, bus.MAX_COOLDOWN)
        self.cooldown.setDecimals(3)
        self.cooldown.setSuffix(" s")
        self.cooldown.setToolTip("After firing, the binding is skipped for this long")
        self.enabled = QCheckBox("Enabled", self)
        self.enabled.setChecked(True)

        self.conditions = QTableWidget(0, 4, self)
        self.conditions.setHorizontalHeaderLabels(["Event field", "Match", "Value", ""])
        header = self.conditions.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        header.setSectionResizeMode(2, QHeaderView.Stretch)
        for col, width in ((1, 150), (3, 90)):
            header.setSectionResizeMode(col, QHeaderView.Fixed)
            header.resizeSection(col, width)
        self.conditions.verticalHeader().hide()
        self.conditions.setMinimumHeight(130)
        add = QPushButton("Add condition", self)
        add.clicked.connect(lambda: self.add_condition())
        self.condition_error = QLabel(self)
        self.condition_error.setStyleSheet(f"color: {current_tokens().error};")
        self.condition_error.setWordWrap(True)
        self.condition_error.hide()

        self.errors = QLabel(self)
        self.errors.setStyleSheet(f"color: {current_tokens().error};")
        self.errors.setWordWrap(True)
        self.errors.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.errors.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.Ok)

        form = QFormLayout()
        form.addRow("Skill", self.skill)
        form.addRow("Event type", self.event_type)
        form.addRow("Action", self.action)
        form.addRow("", self.params)
        timing = QHBoxLayout()
        timing.addWidget(QLabel("Priority", self))
        timing.addWidget(self.priority)
        timing.addSpacing(16)
        timing.addWidget(QLabel("Cooldown", self))
        timing.addWidget(self.cooldown)
        timing.addSpacing(16)
        timing.addWidget(self.enabled)
        timing.addStretch(1)
        form.addRow("", timing)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        heading = QHBoxLayout()
        heading.addWidget(QLabel("<b>Conditions</b> (all must hold; a missing field fails)", self))
        heading.addStretch(1)
        heading.addWidget(add)
        layout.addLayout(heading)
        layout.addWidget(self.conditions)
        layout.addWidget(self.condition_error)
        layout.addWidget(self.errors)
        layout.addWidget(buttons)

        self._action_changed(self.action.currentText())
        if binding is not None:
            self.set_binding(binding)

    # --- filling in -------------------------------------------------------------

    def set_binding(self, b: Binding) -> None:
        self.skill.setText(b.skill)
        self.event_type.setEditText(b.event_type)
        self.action.setCurrentText(b.action)
        self._action_changed(b.action)
        for name, edit in self._param_edits.items():
            value = b.params.get(name)
            if value is None:
                continue
            text = json.dumps(value, ensure_ascii=False) if name in JSON_PARAMS else str(value)
            edit.setPlainText(text) if isinstance(edit, QPlainTextEdit) else edit.setText(text)
        self.priority.setValue(int(b.priority))
        self.cooldown.setValue(float(b.cooldown))
        self.enabled.setChecked(bool(b.enabled))
        self.conditions.setRowCount(0)
        for c in b.conditions:
            regex = c.is_regex
            self.add_condition(c.field, c.value[1:-1] if regex else c.value, regex)

    def add_condition(self, field: str = "", value: str = "", regex: bool = False) -> int:
        row = self.conditions.rowCount()
        self.conditions.insertRow(row)
        name = QLineEdit(field)
        name.setPlaceholderText("e.g. file.path")
        kind = QComboBox()
        kind.addItems([EXACT, REGEX])
        kind.setCurrentIndex(1 if regex else 0)
        text = QLineEdit(value)
        text.setPlaceholderText("value, or a regular expression")
        remove = QPushButton("Remove")
        remove.clicked.connect(lambda: self._remove_condition(remove))
        for col, widget in enumerate((name, kind, text, remove)):
            self.conditions.setCellWidget(row, col, widget)
        text.textChanged.connect(self._check_conditions)
        kind.currentIndexChanged.connect(self._check_conditions)
        self._check_conditions()
        return row

    def _remove_condition(self, button: QPushButton) -> None:
        for row in range(self.conditions.rowCount()):
            if self.conditions.cellWidget(row, 3) is button:
                self.conditions.removeRow(row)
                break
        self._check_conditions()

    def _action_changed(self, action: str) -> None:
        kept = {name: self._param_text(name) for name in self._param_edits}
        while self.params_form.rowCount():
            self.params_form.removeRow(0)
        self._param_edits = {}
        required, optional = bus.ACTIONS.get(action, ((), ()))
        for name in (*required, *optional):
            edit = QPlainTextEdit() if name == "text" else QLineEdit()
            if name == "text":
                edit.setFixedHeight(70)
                edit.setPlaceholderText("{field} is filled from the event's payload")
            elif name in JSON_PARAMS:
                edit.setPlaceholderText('{"key": "value"}')
                edit.textChanged.connect(self._check_json)
            elif name == "tool":
                edit.setPlaceholderText("lowercase_with_underscores")
            if kept.get(name):
                edit.setPlainText(kept[name]) if isinstance(edit, QPlainTextEdit) else edit.setText(kept[name])
            label = LABELS.get(name, name) + (" *" if name in required else "")
            self.params_form.addRow(label, edit)
            self._param_edits[name] = edit
        if not self._param_edits:
            self.params_form.addRow(QLabel("This action takes no parameters.", self.params))

    # --- reading back -----------------------------------------------------------

    def _param_text(self, name: str) -> str:
        edit = self._param_edits[name]
        return (edit.toPlainText() if isinstance(edit, QPlainTextEdit) else edit.text()).strip()

    def _conditions(self) -> list[Condition]:
        out = []
        for row in range(self.conditions.rowCount()):
            field = self.conditions.cellWidget(row, 0).text().strip()
            regex = self.conditions.cellWidget(row, 1).currentIndex() == 1
            value = self.conditions.cellWidget(row, 2).text()
            out.append(Condition(field, f"/{value}/" if regex else value))
        return out

    def binding(self) -> Binding:
        """What the dialog shows, as a binding (not yet checked)."""
        params = {}
        for name in self._param_edits:
            text = self._param_text(name)
            if not text:
                continue
            if name in JSON_PARAMS:
                try:
                    params[name] = json.loads(text)
                except ValueError:
                    params[name] = text          # validation names it
            else:
                params[name] = text
        return Binding(skill=self.skill.text().strip(), event_type=self.event_type.currentText().strip(),
                       action=self.action.currentText(), params=params, conditions=self._conditions(),
                       priority=self.priority.value(), cooldown=self.cooldown.value(),
                       enabled=self.enabled.isChecked(), id=self._id)

    def result_binding(self) -> Binding | None:
        return self._result

    # --- checking ---------------------------------------------------------------

    def _check_conditions(self) -> None:
        problems = []
        for row in range(self.conditions.rowCount()):
            kind, text = self.conditions.cellWidget(row, 1), self.conditions.cellWidget(row, 2)
            if kind is None or text is None:
                continue
            error = condition_problem(kind.currentIndex() == 1, text.text())
            text.setStyleSheet(error_style() if error else "")
            text.setToolTip(literal(error))
            if error:
                problems.append(f"Condition {row + 1}: {error}")
        self.condition_error.setText("\n".join(problems))
        self.condition_error.setVisible(bool(problems))

    def _check_json(self) -> None:
        for name in JSON_PARAMS & set(self._param_edits):
            edit, text = self._param_edits[name], self._param_text(name)
            bad = False
            if text:
                try:
                    json.loads(text)
                except ValueError:
                    bad = True
            edit.setStyleSheet(error_style() if bad else "")
            edit.setToolTip("not valid JSON" if bad else "")

    def accept(self) -> None:
        b = self.binding()
        errors = bus.validate(self.store, b)
        for row in range(self.conditions.rowCount()):
            problem = condition_problem(self.conditions.cellWidget(row, 1).currentIndex() == 1,
                                        self.conditions.cellWidget(row, 2).text())
            if problem:
                errors.setdefault(f"conditions[{row}].value", problem)
        for name in JSON_PARAMS & set(b.params):
            if isinstance(b.params[name], str):
                errors.setdefault(f"params.{name}", f"{LABELS[name]} is not valid JSON")
        if errors:
            self.errors.setText("\n".join(f"{field}: {message}" for field, message in errors.items()))
            self.errors.show()
            return
        self._result = b
        super().accept()
