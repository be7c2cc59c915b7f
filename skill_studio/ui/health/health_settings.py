"""The thresholds page: one editor per ``health.*`` setting, saved to the store."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from skill_studio.core.health import checks as health

#: Each setting in plain words: (label, tooltip). Every setting the core knows has one (a test checks).
LABELS: dict[str, tuple[str, str]] = {
    "health.weight_utility": ("How much usefulness counts",
                              "How much a skill that helps when used adds to its health"),
    "health.weight_redundancy": ("How much repeating others counts against",
                                 "How much a skill that repeats other skills counts against it"),
    "health.weight_freshness": ("How much recent use counts",
                                "How much a skill used lately adds to its health"),
    "health.weight_failure": ("How much failing counts against",
                              "How much a skill that often fails counts against it"),
    "health.redundancy_floor": ("Repeating starts at similarity",
                                "Skills less alike than this do not count as repeating each other"),
    "health.stale_freshness": ("Unused: freshness below",
                               "A skill this long unused is offered for deprecation (0 = never used lately)"),
    "health.stale_max_uses": ("… and fewer uses than",
                              "Only skills used fewer times than this count as unused"),
    "health.low": ("Low health: below", "A skill under this health is offered for degrading"),
    "health.low_min_uses": ("… after at least this many uses",
                            "Low health counts only once a skill was used this often"),
    "health.failing_rate": ("Failing: success rate below",
                            "A skill used often enough that succeeds less often than this is failing"),
    "health.sustained": ("Dropping: health below",
                         "A skill that stays under this health over several checks is offered for degrading"),
    "health.sustained_runs": ("… in this many checks in a row", "How many checks the drop must last"),
    "health.sustained_days": ("… over at least this many days", "How long the drop must last"),
    "health.sustained_gap_hours": ("… with checks this many hours apart",
                                   "Checks closer together than this count as one"),
    "health.duplicate": ("Near-duplicates: similarity from",
                         "Two skills at least this alike are listed as near-duplicates"),
    "health.only_llm": ("Move only skills an agent extracted",
                        "Skills written by a person are reported in the plan but never moved"),
}


#: The settings in groups, each under a heading (a setting not listed goes in the last group).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("How the health score is made", ("health.weight_utility", "health.weight_redundancy", "health.weight_freshness",
                                      "health.weight_failure", "health.redundancy_floor")),
    ("When the plan moves a skill", ("health.only_llm", "health.stale_freshness", "health.stale_max_uses",
                                     "health.low", "health.low_min_uses", "health.failing_rate", "health.sustained",
                                     "health.sustained_runs", "health.sustained_days", "health.sustained_gap_hours")),
    ("Near-duplicates", ("health.duplicate",)),
)


def grouped_settings() -> list[tuple[str, list[str]]]:
    """Every setting the core knows, once, in its group."""
    listed = {key for _, keys in GROUPS for key in keys}
    groups = [(title, [k for k in keys if k in health.DEFAULTS]) for title, keys in GROUPS]
    groups[-1][1].extend(k for k in health.DEFAULTS if k not in listed)
    return groups


class HealthSettingsPage(QWidget):
    """A form over the store's health settings (scrolls when the window is short); Save writes
    them, Restore defaults writes the studio's defaults back."""

    settingsSaved = Signal()

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        self.editors: dict[str, QWidget] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldsStayAtSizeHint)   # short numbers, short boxes
        for title, keys in grouped_settings():
            heading = QLabel(title, self)
            heading.setProperty("role", "heading")
            form.addRow(heading)
            for key in keys:
                editor = self._editor(key, health.DEFAULTS[key])
                editor.setObjectName(key)
                if not isinstance(editor, QCheckBox):
                    editor.setMinimumWidth(110)
                self.editors[key] = editor
                text, tip = LABELS.get(key, (key.removeprefix("health.").replace("_", " ").capitalize(), ""))
                label = QLabel(text, self)
                label.setToolTip(tip)
                editor.setToolTip(tip)
                form.addRow(label, editor)
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
        note = QLabel("What the next health check counts, and when it plans a move. "
                      "Hover a setting to read what it does.", self)
        note.setWordWrap(True)
        note.setProperty("role", "muted")
        fields = QWidget(self)
        fields_layout = QVBoxLayout(fields)
        fields_layout.setContentsMargins(0, 0, 0, 0)
        fields_layout.addLayout(form)
        fields_layout.addStretch(1)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(fields)
        self.scroll.viewport().setAutoFillBackground(False)   # the page's own background, not a grey box
        fields.setAutoFillBackground(False)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.scroll, 1)
        layout.addLayout(buttons)
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
