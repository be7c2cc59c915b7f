"""The bindings as cards: a list model over the store's bindings and the delegate that paints
one card per binding (skill, event, action, priority, cooldown, conditions, an enabled switch)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QEvent, QModelIndex, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate

from skill_studio.core.bus.model import Binding
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import ON_FILL, current_tokens

BINDING_ROLE = Qt.UserRole + 1
PAD, SWITCH_W, SWITCH_H = 10, 34, 18


def condition_text(binding: Binding) -> str:
    if not binding.conditions:
        return "any payload"
    return ", ".join(f"{c.field} ~ {c.value}" if c.is_regex else f"{c.field} = {c.value}"
                     for c in binding.conditions)


def cooldown_text(seconds: float) -> str:
    if not seconds:
        return "no cooldown"
    if seconds % 3600 == 0:
        return f"cooldown {int(seconds // 3600)} h"
    if seconds % 60 == 0:
        return f"cooldown {int(seconds // 60)} min"
    return f"cooldown {seconds:g} s"


def summary(binding: Binding) -> str:
    """One line a person reads (also the accessible text of the card)."""
    state = "on" if binding.enabled else "off"
    return (f"{binding.skill} on {binding.event_type} → {binding.action}; priority {binding.priority}; "
            f"{cooldown_text(binding.cooldown)}; when {condition_text(binding)}; {state}")


class BindingListModel(QAbstractListModel):
    """The bindings shown, in the store's order (priority, highest first)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[Binding] = []

    def set_bindings(self, bindings: list[Binding]) -> None:
        self.beginResetModel()
        self._rows = list(bindings)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        b = self._rows[index.row()]
        if role == BINDING_ROLE:
            return b
        if role in (Qt.DisplayRole, Qt.AccessibleTextRole):
            return summary(b)
        if role == Qt.ToolTipRole:
            return literal(summary(b).replace("; ", "\n"))
        return None

    def binding_at(self, row: int) -> Binding | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, binding_id: int | None) -> int:
        return next((i for i, b in enumerate(self._rows) if b.id == binding_id), -1)


class BindingCardDelegate(QStyledItemDelegate):
    """Paints a binding card; a click on its switch emits ``toggled`` (binding id, new state)."""

    toggled = Signal(int, bool)

    def _fonts(self, option) -> tuple[QFont, QFont, QFont]:
        base = QFont(option.font)
        bold = QFont(base)
        bold.setBold(True)
        small = QFont(base)
        small.setPointSizeF(max(7.0, base.pointSizeF() * 0.9) if base.pointSizeF() > 0 else 8)
        return base, bold, small

    def sizeHint(self, option, index) -> QSize:
        base, bold, small = (QFontMetrics(f) for f in self._fonts(option))
        return QSize(600, PAD * 2 + bold.height() + 6 + small.height() + 2)

    def switch_rect(self, rect: QRect) -> QRect:
        return QRect(rect.left() + PAD, rect.top() + (rect.height() - SWITCH_H) // 2, SWITCH_W, SWITCH_H)

    def paint(self, painter: QPainter, option, index) -> None:
        b: Binding = index.data(BINDING_ROLE)
        if b is None:
            return
        t = current_tokens()
        base, bold, small = self._fonts(option)
        rect = option.rect.adjusted(4, 3, -4, -3)
        selected = bool(option.state & QStyle.State_Selected)
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing)
        path = QPainterPath()
        path.addRoundedRect(QRectF(rect), 6, 6)
        painter.fillPath(path, QColor(t.selection if selected else t.surface))
        painter.setPen(QPen(QColor(t.accent if selected else t.border), 1))
        painter.drawPath(path)

        sw = self.switch_rect(rect)
        track = QPainterPath()
        track.addRoundedRect(QRectF(sw), SWITCH_H / 2, SWITCH_H / 2)
        painter.fillPath(track, QColor(t.accent if b.enabled else t.bar_back))
        knob = SWITCH_H - 4
        x = sw.right() - knob - 2 if b.enabled else sw.left() + 2
        painter.setBrush(QColor(ON_FILL))
        painter.setPen(Qt.NoPen)
        painter.drawEllipse(QRectF(x, sw.top() + 2, knob, knob))

        left = sw.right() + 12
        width = rect.right() - PAD - left
        top = rect.top() + PAD - 2
        bold_m, small_m = QFontMetrics(bold), QFontMetrics(small)
        right_text = f"priority {b.priority} · {cooldown_text(b.cooldown)}"
        right_w = small_m.horizontalAdvance(right_text)
        text = QColor(t.text if b.enabled else t.text_muted)
        painter.setFont(bold)
        painter.setPen(text)
        bold_m = painter.fontMetrics()   # as the painter draws (the widget's resolution)
        head = b.skill
        head_w = min(bold_m.horizontalAdvance(head) + 2, max(60, width - right_w - 220))
        painter.drawText(QRect(left, top, head_w, bold_m.height()), Qt.AlignLeft | Qt.AlignVCenter,
                         bold_m.elidedText(head, Qt.ElideRight, head_w))
        painter.setFont(base)
        base_m = painter.fontMetrics()
        event = f"  on  {b.event_type}  →  {b.action}"
        painter.setPen(QColor(t.accent if b.enabled else t.text_muted))
        ev_rect = QRect(left + head_w, top, max(0, width - head_w - right_w - 12), bold_m.height())
        painter.drawText(ev_rect, Qt.AlignLeft | Qt.AlignVCenter,
                         base_m.elidedText(event, Qt.ElideRight, ev_rect.width()))
        painter.setFont(small)
        small_m = painter.fontMetrics()
        right_w = small_m.horizontalAdvance(right_text) + 2
        painter.setPen(QColor(t.text_muted))
        painter.drawText(QRect(rect.right() - PAD - right_w, top, right_w, bold_m.height()),
                         Qt.AlignRight | Qt.AlignVCenter, right_text)
        when = "when " + condition_text(b) + ("" if b.enabled else "   (disabled)")
        painter.drawText(QRect(left, top + bold_m.height() + 6, width, small_m.height() + 2),
                         Qt.AlignLeft | Qt.AlignVCenter, small_m.elidedText(when, Qt.ElideRight, width))
        painter.restore()

    def editorEvent(self, event, model, option, index) -> bool:
        if event.type() == QEvent.MouseButtonRelease and event.button() == Qt.LeftButton:
            b = index.data(BINDING_ROLE)
            if b is not None and self.switch_rect(option.rect.adjusted(4, 3, -4, -3)).contains(
                    event.position().toPoint()):
                self.toggled.emit(b.id, not b.enabled)
                return True
        return super().editorEvent(event, model, option, index)
