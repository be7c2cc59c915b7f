"""The Graph tab's two toolbar rows. The first: scope, hops, layout, filters, the find box, Fit,
Legend and Export. The second: what is shown (counts), the switch for the skills without
relations, progress with Cancel while the graph is laid out, and the problems note ("No problems",
or the count, which shows or hides the problems panel). The widgets become attributes of the view."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidgetAction,
)

from skill_studio.core.model import Lifecycle, Origin
from skill_studio.ui.elided import ElidedLabel
from skill_studio.ui.graph.graph_legend import GraphLegend

LAYOUTS = (("layered", "Layered"), ("spring", "Force-directed"), ("radial", "Radial"))
SCOPES = ("Whole library", "Around a skill")
EXPORTS = (("Picture (PNG)…", "png"), ("Drawing (SVG)…", "svg"), ("GraphML…", "graphml"),
           ("Graphviz DOT…", "dot"), ("JSON…", "json"))


def build_bar(view) -> QVBoxLayout:
    """Both rows, their widgets set on ``view`` (a GraphView) and wired to its slots."""
    rows = QVBoxLayout()
    rows.setSpacing(4)
    rows.addLayout(_first_row(view))
    rows.addLayout(_second_row(view))
    return rows


def _first_row(view) -> QHBoxLayout:
    bar = QHBoxLayout()
    view.scope_combo = QComboBox(view)
    view.scope_combo.addItems(SCOPES)
    view.scope_combo.setToolTip("Show every skill, or only those a few links from the selected one")
    view.scope_combo.currentIndexChanged.connect(view._scope_changed)
    view.depth = QSpinBox(view)
    view.depth.setRange(1, 8)
    view.depth.setValue(2)
    view.depth.setToolTip("How many links away from the selected skill to show")
    view.depth.valueChanged.connect(view._scope_changed)
    view.hops_label = QLabel("Hops:", view)
    view.hops_label.setBuddy(view.depth)
    view.layout_combo = QComboBox(view)
    for key, text in LAYOUTS:
        view.layout_combo.addItem(text, key)
    view.layout_combo.setToolTip("Layered: prerequisites above what needs them; each group of related skills "
                                 "on its own")
    view.layout_combo.currentIndexChanged.connect(view._scope_changed)
    view.lifecycle_button = filter_button(view, "Lifecycle", Lifecycle)
    view.origin_button = filter_button(view, "Origin", Origin)
    view.search = QLineEdit(view)
    view.search.setPlaceholderText("Find a skill (Enter: next)")
    view.search.setClearButtonEnabled(True)
    view.search.setMinimumWidth(180)
    view.search.setAccessibleName("Find a skill in the graph")
    view.search.textChanged.connect(view._search_changed)
    view.search.returnPressed.connect(view.next_hit)
    view.fit_button = QToolButton(view)
    view.fit_button.setText("Fit")
    view.fit_button.setToolTip("Show the whole graph (F)")
    view.fit_button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
    view.fit_button.clicked.connect(view.canvas.fit)
    view.legend = GraphLegend()
    view.legend_button = QToolButton(view)
    view.legend_button.setText("Legend")
    view.legend_button.setToolTip("What the colours, lines and stars mean")
    view.legend_button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
    view.legend_button.setPopupMode(QToolButton.InstantPopup)
    menu = QMenu(view.legend_button)
    holder = QWidgetAction(menu)
    holder.setDefaultWidget(view.legend)
    menu.addAction(holder)
    view.legend_button.setMenu(menu)
    view.export_button = QToolButton(view)
    view.export_button.setText("Export")
    view.export_button.setPopupMode(QToolButton.InstantPopup)
    menu = QMenu(view.export_button)
    for text, kind in EXPORTS:
        action = QAction(text, menu)
        action.triggered.connect(lambda _=False, k=kind: view.export(k))
        menu.addAction(action)
    view.export_button.setMenu(menu)
    for w in (view.scope_combo, view.hops_label, view.depth, view.layout_combo, view.lifecycle_button,
              view.origin_button):
        bar.addWidget(w)
    bar.addWidget(view.search, 1)
    for w in (view.fit_button, view.legend_button, view.export_button):
        bar.addWidget(w)
    view.hops_label.hide()
    view.depth.hide()
    return bar


def _second_row(view) -> QHBoxLayout:
    bar = QHBoxLayout()
    view.status = ElidedLabel("", view)
    view.status.setProperty("role", "muted")
    view.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    view.isolated_box = QCheckBox("Show skills without relations", view)
    view.isolated_box.setToolTip("Skills with no dependency, conflict or parent among those shown; hidden on "
                                 "a big library so the related ones can be seen")
    view.isolated_box.toggled.connect(view._isolated_toggled)
    view.progress = QProgressBar(view)
    view.progress.setMaximumWidth(160)
    view.progress.setTextVisible(False)
    view.progress.setAccessibleName("Graph layout progress")
    view.cancel_button = QToolButton(view)
    view.cancel_button.setText("Cancel")
    view.cancel_button.setToolTip("Stop laying out the graph")
    view.cancel_button.clicked.connect(view.cancel)
    view.progress.hide()
    view.cancel_button.hide()
    view.problems_note = QToolButton(view)
    view.problems_note.setAutoRaise(True)
    view.problems_note.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
    view.problems_note.setText("No problems")
    view.problems_note.toggled.connect(view._problems_toggled)
    bar.addWidget(view.status, 1)
    for w in (view.isolated_box, view.problems_note):   # their text whole; the status line gives way
        w.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Fixed)
    for w in (view.isolated_box, view.progress, view.cancel_button, view.problems_note):
        bar.addWidget(w)
    return bar


def filter_button(view, text: str, enum) -> QToolButton:
    button = QToolButton(view)
    button.setText(text)
    button.setPopupMode(QToolButton.InstantPopup)
    button.setToolTip(f"Show skills of these {text.lower()} values")
    menu = QMenu(button)
    for value in enum:
        label = getattr(value, "label", value.value)
        action = QAction(label, menu)
        action.setCheckable(True)
        action.setChecked(True)
        action.setData(value.value)
        action.toggled.connect(view._scope_changed)
        menu.addAction(action)
    button.setMenu(menu)
    return button
