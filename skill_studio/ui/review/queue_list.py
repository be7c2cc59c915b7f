"""The review queue's rows: a list model over the queued cards and the delegate that paints them
(one layout function serves paint and size hint)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCore import QAbstractListModel, QModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate

from skill_studio.core.model import Lifecycle, Skill
from skill_studio.ui.library.marks import draw_badge, draw_stars, stars_width
from skill_studio.ui.library.models import NAME_ROLE, SKILL_ROLE, relative_time
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import LIFECYCLE_COLORS, current_tokens

__all__ = ["QueueDelegate", "QueueModel", "RowLayout", "paint_badge", "queue_row_layout", "row_fonts",
           "waiting_text"]

PAD = 8
GAP = 3


def waiting_text(created_at: str | None, now: datetime | None = None) -> str:
    """How long a skill has waited for review: 'waiting 3 days', 'just arrived', or ''."""
    age = relative_time(created_at, now)
    if age == "never":
        return ""
    if age == "just now":
        return "just arrived"
    return "waiting " + age.removesuffix(" ago")


def meta_text(skill: Skill, now: datetime | None = None) -> str:
    """The row's second line after the stars: origin and age."""
    origin = getattr(skill.origin, "value", skill.origin)
    waiting = waiting_text(skill.created_at, now)
    return f"{origin}  ·  {waiting}" if waiting else str(origin)


class QueueModel(QAbstractListModel):
    """The queued skills (card fields only, as ``review.queue`` gives them), in queue order.

    ``data()`` only reads the list it was given: no store query while the view paints.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self._skills: list[Skill] = []

    def set_skills(self, skills: list[Skill]) -> None:
        self.beginResetModel()
        self._skills = list(skills)
        self.endResetModel()

    def names(self) -> list[str]:
        return [s.name for s in self._skills]

    def skill(self, row: int) -> Skill | None:
        return self._skills[row] if 0 <= row < len(self._skills) else None

    def row_of(self, name: str) -> int:
        """The row of ``name``, or -1."""
        return next((i for i, s in enumerate(self._skills) if s.name == name), -1)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._skills)

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._skills):
            return None
        skill = self._skills[index.row()]
        if role in (Qt.DisplayRole, NAME_ROLE):
            return skill.name
        if role == SKILL_ROLE:
            return skill
        if role == Qt.ToolTipRole:
            reason = f"\n{skill.lifecycle_reason}" if skill.lifecycle_reason else ""
            return literal(f"{skill.name} — {Lifecycle(skill.lifecycle).label}{reason}\n\n{skill.description}")
        return None


@dataclass
class RowLayout:
    """The rectangles of one queue row."""

    row: QRect
    name: QRect
    badge: QRect
    stars: QRect
    meta: QRect
    description: QRect


def row_fonts(font: QFont) -> tuple[QFont, QFont, QFont]:
    """(base, bold, small) fonts derived from a view's font."""
    bold = QFont(font)
    bold.setBold(True)
    small = QFont(font)
    size = font.pointSizeF()
    small.setPointSizeF(max(6.5, size * 0.85) if size > 0 else 8)
    return QFont(font), bold, small


def queue_row_layout(rect: QRect, font: QFont, badge_label: str = "Candidate") -> RowLayout:
    """Where each part of a queue row goes inside ``rect`` (its height is the row's height)."""
    base, bold, small = (QFontMetrics(f) for f in row_fonts(font))
    left, width = rect.left() + PAD + 4, rect.width() - 2 * PAD - 4
    y = rect.top() + PAD
    badge_h = small.height() + 4
    top_h = max(bold.height(), badge_h)
    badge_w = small.horizontalAdvance(badge_label) + 14
    badge = QRect(left + width - badge_w, y + (top_h - badge_h) // 2, badge_w, badge_h)
    name = QRect(left, y, width - badge_w - 8, top_h)
    y += top_h + GAP
    star_h = max(10, base.height() - 4)
    stars = QRect(left, y + (base.height() - star_h) // 2, stars_width(star_h), star_h)
    meta = QRect(stars.right() + 8, y, left + width - stars.right() - 8, base.height())
    y += base.height() + GAP
    description = QRect(left, y, width, base.height())
    y += base.height() + PAD
    return RowLayout(QRect(rect.left(), rect.top(), rect.width(), y - rect.top()), name, badge, stars, meta,
                     description)


paint_badge = draw_badge   # the cards' lifecycle badge


class QueueDelegate(QStyledItemDelegate):
    """One queued skill per row: name, lifecycle badge, trust stars, origin, age, one-line description."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._height: tuple[QFont, int] | None = None

    def sizeHint(self, option, index) -> QSize:
        if self._height is None or self._height[0] != option.font:
            self._height = (QFont(option.font), queue_row_layout(QRect(0, 0, 300, 0), option.font).row.height())
        return QSize(300, self._height[1])

    def paint(self, painter: QPainter, option, index) -> None:
        skill: Skill | None = index.data(SKILL_ROLE)
        if skill is None:
            return
        t = current_tokens()
        lifecycle = Lifecycle(skill.lifecycle)
        geo = queue_row_layout(option.rect, option.font, lifecycle.label)
        base, bold, small = row_fonts(option.font)
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing, True)
        selected = bool(option.state & QStyle.State_Selected)
        hovered = bool(option.state & QStyle.State_MouseOver)
        back = t.selection if selected else t.surface_alt if hovered else t.surface
        painter.fillRect(option.rect, QColor(back))
        # A stripe in the lifecycle colour marks the row's state even where the badge is cut off.
        painter.fillRect(QRect(option.rect.left(), option.rect.top() + 4, 3, option.rect.height() - 8),
                         QColor(LIFECYCLE_COLORS[lifecycle]))
        painter.setPen(QColor(t.border))
        painter.drawLine(option.rect.bottomLeft(), option.rect.bottomRight())

        painter.setFont(bold)
        painter.setPen(QColor(t.text))
        painter.drawText(geo.name, Qt.AlignLeft | Qt.AlignVCenter,
                         QFontMetrics(bold).elidedText(skill.name, Qt.ElideRight, geo.name.width()))
        paint_badge(painter, geo.badge, lifecycle, small)

        painter.setFont(base)
        draw_stars(painter, geo.stars, int(skill.trust_tier), t)   # the same stars as the library's
        painter.setPen(QColor(t.text_muted))
        painter.drawText(geo.meta, Qt.AlignLeft | Qt.AlignVCenter,
                         QFontMetrics(base).elidedText(meta_text(skill), Qt.ElideRight, geo.meta.width()))
        description = " ".join((skill.description or "").split())
        painter.drawText(geo.description, Qt.AlignLeft | Qt.AlignVCenter,
                         QFontMetrics(base).elidedText(description, Qt.ElideRight, geo.description.width()))
        if option.state & QStyle.State_HasFocus and selected:
            painter.setPen(QPen(QColor(t.accent), 1, Qt.DotLine))
            painter.setBrush(Qt.NoBrush)
            painter.drawRect(QRectF(option.rect).adjusted(5.5, 1.5, -1.5, -1.5))
        painter.restore()
