"""The thresholds page: one editor per ``health.*`` setting, saved to the store."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.health import checks as health

#: What each setting means, in the words of SPEC §4-§5.
LABELS = {
    "health.weight_utility": "Weight of utility", "health.weight_redundancy": "Weight of (1 \u2212 redundancy)",
    "health.weight_freshness": "Weight of freshness", "health.weight_failure": "Weight of (1 \u2212 failure risk)",
    "health.redundancy_floor": "Similarity with no redundancy (floor)",
    "health.stale_freshness": "Stale: freshness below", "health.stale_max_uses": "Stale: fewer uses than",
    "health.low": "Low health: below", "health.low_min_uses": "Low health: at least uses",
    "health.sustained": "Sustained drop: health below", "health.sustained_runs": "Sustained drop: runs in a row",
    "health.duplicate": "Near-duplicate: similarity from",
    "health.only_llm": "Move only llm skills (report the others)",
}


class HealthSettingsPage(QWidget):
    """A form over the store's health settings; Save writes them, Restore defaults writes
    the defaults of SPEC §5 back."""

    settingsSaved = Signal()

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        self.editors: dict[str, QWidget] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldsStayAtSizeHint)   # short numbers, short boxes
        for key, default in health.DEFAULTS.items():
            editor = self._editor(key, default)
            editor.setObjectName(key)
            if not isinstance(editor, QCheckBox):
                editor.setMinimumWidth(110)
            self.editors[key] = editor
            form.addRow(LABELS.get(key, key), editor)
        self.save_button = QPushButton("Save", self)
        self.restore_button = QPushButton("Restore defaults", self)
        self.status = QLabel(self)
        self.status.setProperty("role", "muted")
        self.save_button.clicked.connect(self.save)
        self.restore_button.clicked.connect(self.restore_defaults)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.status, 1)
        note = QLabel("Thresholds and weights used by the next health check (SPEC \u00a75).", self)
        note.setProperty("role", "muted")
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self.load()

    def _editor(self, key: str, default) -> QWidget:
        if isinstance(default, bool):
            return QCheckBox(self)
        if isinstance(default, int):
            box = QSpinBox(self)
            box.setRange(0 if key != "health.sustained_runs" else 1, 1000)
            return box
        box = QDoubleSpinBox(self)
        box.setDecimals(3)
        box.setRange(0.0, 1.0)
        box.setSingleStep(0.05)
        return box

    def values(self) -> dict:
        """What the form holds now, typed like the defaults."""
        out = {}
        for key, editor in self.editors.items():
            if isinstance(editor, QCheckBox):
                out[key] = editor.isChecked()
            elif isinstance(editor, QSpinBox):
                out[key] = int(editor.value())
            else:
                out[key] = round(float(editor.value()), 6)
        return out

    def set_values(self, values: dict) -> None:
        for key, editor in self.editors.items():
            value = values.get(key, health.DEFAULTS[key])
            if isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, QSpinBox):
                editor.setValue(int(value))
            else:
                editor.setValue(float(value))

    def load(self) -> None:
        """Fill the form from the store (defaults where nothing is stored)."""
        self.set_values(health.settings(self.store))

    def save(self) -> None:
        for key, value in self.values().items():
            self.store.set_setting(key, value)
        self.status.setText("Saved: the next health check uses these values")
        self.settingsSaved.emit()

    def restore_defaults(self) -> None:
        self.set_values(dict(health.DEFAULTS))
        self.save()
        self.status.setText("Defaults restored and saved")
