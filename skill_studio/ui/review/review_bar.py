"""The detail panel's review buttons: the lifecycle moves allowed from the skill's state, and pinning."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QHBoxLayout, QMenu, QToolButton, QWidget

from skill_studio.core.model import Origin, Skill
from skill_studio.core.review.lifecycle import MOVE_TERMS, MOVES, allowed_moves
from skill_studio.ui.library.marks import icon
from skill_studio.ui.theme import current_tokens


class ReviewBar(QWidget):
    """"Lifecycle ▾" with only the lifecycle moves allowed from the state, and Pin/Unpin.
    Hidden for builtin skills, which are read-only."""

    moveRequested = Signal(str)     # the action
    pinRequested = Signal(bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.move_button = QToolButton(self)
        self.move_button.setText("Lifecycle")
        self.move_button.setToolTip("Move this skill through its lifecycle (each move asks why)")
        self.move_button.setPopupMode(QToolButton.InstantPopup)
        self.menu = QMenu(self.move_button)
        self.move_button.setMenu(self.menu)
        self.pin_button = QToolButton(self)
        self.pin_button.setCheckable(True)
        self.pin_button.toggled.connect(self._pin_toggled)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.move_button)
        row.addWidget(self.pin_button)
        self._setting = False
        self.set_skill(None)

    def set_skill(self, skill: Skill | None) -> None:
        self.menu.clear()
        editable = skill is not None and skill.origin != Origin.BUILTIN
        self.setVisible(editable)
        if not editable:
            return
        for action in allowed_moves(skill.lifecycle):
            item = self.menu.addAction(f"{MOVE_TERMS[action].title}  → {MOVES[action][skill.lifecycle].label}")
            item.setObjectName(action)
            item.triggered.connect(lambda _=False, a=action: self.moveRequested.emit(a))
        self._setting = True
        try:
            self.pin_button.setChecked(bool(skill.pinned))
        finally:
            self._setting = False
        self._pin_text()

    def moves(self) -> list[str]:
        """The moves offered, in menu order."""
        return [a.objectName() for a in self.menu.actions()]

    def _pin_text(self) -> None:
        pinned = self.pin_button.isChecked()
        self.pin_button.setText("Pinned" if pinned else "Pin")
        # the pin mark (an SVG of the app's, no font glyph) only while pinned: "Pin" stays short
        self.pin_button.setIcon(icon("pin", current_tokens().accent) if pinned else QIcon())
        self.pin_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon if pinned
                                           else Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.pin_button.setToolTip("Health checks never move a pinned skill. Click to "
                                   + ("unpin." if pinned else "pin."))

    def _pin_toggled(self, on: bool) -> None:
        self._pin_text()
        if not self._setting:
            self.pinRequested.emit(on)
