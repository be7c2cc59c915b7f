"""Painted parts of the health view: score bars in the table, the band summary strip and the
trend chart of one skill's health over the kept runs."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from skill_studio.core.health.checks import BAND_NAMES, BAND_ROLES, BANDS
from skill_studio.ui.health.health_models import BAND_ROLE, SKILL_COLUMNS, VALUE_ROLE
from skill_studio.ui.theme import ROLE_FILLS, Tokens, current_tokens

#: One colour per band, from the band's colour role.
BAND_COLOURS = {band: ROLE_FILLS[role] for band, role in BAND_ROLES.items()}
#: Redundancy and failure risk are bad when high: drawn in the warning role's colour.
RISK_COLOUR = ROLE_FILLS["warning"]
EMPTY_TREND = "No earlier runs"
NO_SKILL = "Select a skill to see its health over the runs"


def score_band(health: float) -> str:
    """The band of a health score alone (failing rests on uses, which a trend point does not hold)."""
    return next((band for band, low in BANDS if health >= low), BANDS[-1][0])


def bar_colour(attr: str, index, t: Tokens) -> str:
    if attr == "health":
        return BAND_COLOURS.get(index.data(BAND_ROLE), t.accent)
    return {"utility": t.bar_utility, "freshness": t.bar_freshness}.get(attr, RISK_COLOUR)


class BarDelegate(QStyledItemDelegate):
    """Paints a score in [0, 1] as a thin bar with its value beside it (one delegate for every
    bar column; no widget per row)."""

    BAR_HEIGHT = 6
    TEXT_WIDTH = 34

    def paint(self, painter: QPainter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.CE_ItemViewItem, opt, painter, opt.widget)   # background, selection
        value = index.data(VALUE_ROLE)
        if not isinstance(value, (int, float)):
            return
        value = max(0.0, min(1.0, float(value)))
        t = current_tokens()
        attr = SKILL_COLUMNS[index.column()][0]
        r = QRectF(option.rect).adjusted(6, 0, -6, 0)
        bar = QRectF(r.left(), r.center().y() - self.BAR_HEIGHT / 2,
                     max(8.0, r.width() - self.TEXT_WIDTH - 6), self.BAR_HEIGHT)
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing)
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(t.bar_back))
        painter.drawRoundedRect(bar, 3, 3)
        if value > 0:
            painter.setBrush(QColor(bar_colour(attr, index, t)))
            painter.drawRoundedRect(QRectF(bar.left(), bar.top(), max(bar.height(), bar.width() * value),
                                           bar.height()), 3, 3)
        painter.setPen(QColor(t.text))
        painter.drawText(QRectF(bar.right() + 4, r.top(), self.TEXT_WIDTH, r.height()),
                         Qt.AlignRight | Qt.AlignVCenter, f"{value:.2f}")
        painter.restore()

    def sizeHint(self, option, index) -> QSize:
        return QSize(120, max(24, option.fontMetrics.height() + 8))


class SummaryStrip(QWidget):
    """How many skills fall in each band, and the planned actions, on one line."""

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(18)
        self.band_labels: dict[str, QLabel] = {}
        for band in BAND_NAMES:
            label = QLabel(self)
            label.setObjectName(f"band_{band}")
            self.band_labels[band] = label
            layout.addWidget(label)
        self.actions_label = QLabel(self)
        self.actions_label.setProperty("role", "muted")
        self.actions_label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        layout.addWidget(self.actions_label, 1)
        self.counts: dict[str, int] = {}
        self.action_counts: dict[str, int] = {}
        self.set_summary({})

    def set_summary(self, summary: dict) -> None:
        """A run's summary: {"skills": n, "bands": {band: n}, "actions": {action: n}}."""
        self.counts = {band: int(summary.get("bands", {}).get(band, 0)) for band in BAND_NAMES}
        self.action_counts = dict(summary.get("actions", {}))
        for band, label in self.band_labels.items():
            colour = BAND_COLOURS[band]
            label.setText(f'<span style="color:{colour}; font-size:15px">\u25cf</span> {band} '
                          f'<b style="color:{colour}">{self.counts[band]}</b>')
        if not summary:
            self.actions_label.setText("No health check run yet")
        elif not self.action_counts:
            self.actions_label.setText(f"{summary.get('skills', 0)} skills \u2014 nothing planned")
        else:
            planned = " \u00b7 ".join(f"{name} {n}" for name, n in sorted(self.action_counts.items()))
            self.actions_label.setText(f"{summary.get('skills', 0)} skills \u2014 planned: {planned}")


class TrendChart(QWidget):
    """One skill's health over the kept runs: a 0-1 axis, the band limits as dashed lines, and a
    polyline through one point per run."""

    MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 34, 12, 24, 18

    def __init__(self, parent=None):
        super().__init__(parent)
        self.name: str | None = None
        self.history: list[tuple[int, str, float]] = []
        self.setMinimumSize(220, 150)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)

    def set_history(self, name: str | None, history: list[tuple[int, str, float]]) -> None:
        """(run, at, health) oldest first, as ``store.health_history`` gives them."""
        self.name, self.history = name, list(history)
        self.setToolTip("\n".join(f"{at[:16].replace('T', ' ')}  {h:.2f}" for _, at, h in self.history))
        self.update()

    def message(self) -> str:
        """The sentence shown instead of a chart, or '' when points are drawn."""
        if self.name is None:
            return NO_SKILL
        return "" if self.history else EMPTY_TREND

    def plot_rect(self) -> QRectF:
        return QRectF(self.MARGIN_LEFT, self.MARGIN_TOP, max(10, self.width() - self.MARGIN_LEFT - self.MARGIN_RIGHT),
                      max(10, self.height() - self.MARGIN_TOP - self.MARGIN_BOTTOM))

    def points(self) -> list[QPointF]:
        """Where each run's health is drawn."""
        r, n = self.plot_rect().adjusted(8, 0, -8, 0), len(self.history)   # points clear of the axis
        out = []
        for i, (_, _, h) in enumerate(self.history):
            x = r.center().x() if n == 1 else r.left() + r.width() * i / (n - 1)
            out.append(QPointF(x, r.bottom() - r.height() * max(0.0, min(1.0, h))))
        return out

    def sizeHint(self) -> QSize:
        return QSize(320, 200)

    def paintEvent(self, event) -> None:
        t = current_tokens()
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), QColor(t.surface))
        title = f"Health of {self.name}" if self.name else "Health trend"
        p.setPen(QColor(t.text))
        p.drawText(QRectF(8, 2, self.width() - 16, self.MARGIN_TOP - 4), Qt.AlignLeft | Qt.AlignVCenter, title)
        message = self.message()
        if message:
            p.setPen(QColor(t.text_muted))
            p.drawText(QRectF(self.rect()).adjusted(8, self.MARGIN_TOP, -8, -8), Qt.AlignCenter | Qt.TextWordWrap,
                       message)
            p.end()
            return
        r = self.plot_rect()
        p.setPen(QPen(QColor(t.border), 1))
        p.drawLine(r.bottomLeft(), r.topLeft())
        p.drawLine(r.bottomLeft(), r.bottomRight())
        small = p.font()
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.85))
        p.setFont(small)
        for value in (0.0, 1.0):
            y = r.bottom() - r.height() * value
            p.setPen(QColor(t.text_muted))
            p.drawText(QRectF(0, y - 8, self.MARGIN_LEFT - 6, 16), Qt.AlignRight | Qt.AlignVCenter, f"{value:.1f}")
        for band, low in BANDS:
            if low <= 0:
                continue
            y = r.bottom() - r.height() * low
            pen = QPen(QColor(BAND_COLOURS[band]), 1, Qt.DashLine)
            p.setPen(pen)
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
            p.drawText(QRectF(0, y - 8, self.MARGIN_LEFT - 6, 16), Qt.AlignRight | Qt.AlignVCenter, f"{low:.1f}")
        points = self.points()
        p.setPen(QPen(QColor(t.accent), 2))
        if len(points) > 1:
            p.drawPolyline(QPolygonF(points))
        for point, (_, _, h) in zip(points, self.history):
            p.setPen(QPen(QColor(t.surface), 1.5))
            p.setBrush(QColor(BAND_COLOURS[score_band(h)]))
            p.drawEllipse(point, 4, 4)
        if self.history:
            first, last = self.history[0][1][:10], self.history[-1][1][:10]
            p.setPen(QColor(t.text_muted))
            p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), self.MARGIN_BOTTOM - 2),
                       Qt.AlignLeft | Qt.AlignVCenter, first)
            if len(self.history) > 1:
                p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), self.MARGIN_BOTTOM - 2),
                           Qt.AlignRight | Qt.AlignVCenter, last)
        p.end()
