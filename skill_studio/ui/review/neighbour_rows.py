"""How a nearest existing skill is shown in the review queue: its row (name, lifecycle, the
similarity with its band in words and a bar for it) and the words around it (tooltip, what the
diff pane says for a skill that is no near copy)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate

from skill_studio.core.health.bands import SIMILARITY_BANDS
from skill_studio.core.review import queue as review
from skill_studio.ui.review.queue_list import row_fonts
from skill_studio.ui.theme import LIFECYCLE_COLORS, current_tokens

__all__ = ["BAND_MEANINGS", "NEIGHBOUR_ROLE", "NeighbourDelegate", "neighbour_text", "neighbour_tip", "only_related"]

NEIGHBOUR_ROLE = Qt.UserRole + 20   # a nearest-skill item's Neighbour
_LOWS = dict(SIMILARITY_BANDS)
#: What each similarity band means to a reviewer.
BAND_MEANINGS = {
    "same skill": f"at least {_LOWS['same skill']:.2f}: the same skill worded apart; compare them and merge one "
                  "into the other",
    "near copy": f"at least {_LOWS['near copy']:.2f}: a near copy; compare them and consider a merge",
    "related": f"at least {_LOWS['related']:.2f}: about a related task, not a copy; nothing to compare or merge",
}


def neighbour_text(n: review.Neighbour) -> str:
    """The similarity as shown on a neighbour's row: '0.82 · near copy'."""
    return f"{n.similarity:.2f} · {n.band}"


def neighbour_tip(n: review.Neighbour) -> str:
    meaning = BAND_MEANINGS.get(n.band, n.band)
    if n.differs:
        meaning = (f"about different things, however similar (made from one template?): each names what the other "
                   f"hardly mentions: {', '.join(n.differs)}; nothing to compare or merge")
    return f"{n.name} ({n.lifecycle.label}): similarity {n.similarity:.3f}, {n.band} ({meaning})\n\n{n.description}"


def only_related(n: review.Neighbour) -> str:
    """What the diff pane says for a neighbour that is no near copy."""
    return f"Only {n.band} ({n.similarity:.2f}): no near copy to compare with"


class NeighbourDelegate(QStyledItemDelegate):
    """A nearest existing skill: name, its lifecycle in small type, its similarity with the band in
    words, and a bar for the similarity (absolute: a full bar is 1.0)."""

    BAR_WIDTH = 90

    def sizeHint(self, option, index) -> QSize:
        return QSize(200, QFontMetrics(option.font).height() + 10)

    def paint(self, painter: QPainter, option, index) -> None:
        n: review.Neighbour | None = index.data(NEIGHBOUR_ROLE)
        if n is None:
            return
        t = current_tokens()
        base, bold, small = row_fonts(option.font)
        r = option.rect
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing, True)
        selected = bool(option.state & QStyle.State_Selected)
        hovered = bool(option.state & QStyle.State_MouseOver)
        painter.fillRect(r, QColor(t.selection if selected else t.surface_alt if hovered else t.surface))
        bar = QRect(r.right() - self.BAR_WIDTH - 8, r.center().y() - 3, self.BAR_WIDTH, 6)
        score_w = max(QFontMetrics(small).horizontalAdvance(f"0.00 · {band}") for band, _ in SIMILARITY_BANDS) + 6
        state_w = QFontMetrics(small).horizontalAdvance(n.lifecycle.label) + 12
        name_rect = QRect(r.left() + 8, r.top(), bar.left() - score_w - state_w - r.left() - 16, r.height())
        painter.setFont(bold if selected else base)
        painter.setPen(QColor(t.text))
        painter.drawText(name_rect, Qt.AlignLeft | Qt.AlignVCenter,
                         QFontMetrics(painter.font()).elidedText(n.name, Qt.ElideRight, name_rect.width()))
        state_colour = QColor(LIFECYCLE_COLORS[n.lifecycle])
        painter.setFont(small)
        painter.setPen(state_colour.lighter(160) if t.dark else state_colour)
        painter.drawText(QRect(name_rect.right() + 8, r.top(), state_w, r.height()),
                         Qt.AlignLeft | Qt.AlignVCenter, n.lifecycle.label)
        painter.setPen(QColor(t.text_muted))
        painter.drawText(QRect(bar.left() - score_w - 4, r.top(), score_w, r.height()),
                         Qt.AlignRight | Qt.AlignVCenter, neighbour_text(n))
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(t.bar_back))
        painter.drawRoundedRect(QRectF(bar), 3, 3)
        frac = min(1.0, max(0.0, float(n.similarity)))
        if frac > 0:
            painter.setBrush(QColor(t.accent if n.copy else t.text_muted))
            painter.drawRoundedRect(QRectF(bar.left(), bar.top(), max(6.0, bar.width() * frac), bar.height()), 3, 3)
        painter.restore()
