"""What the graph's colours, lines and marks mean: a small panel (shown from the toolbar's Legend
button) listing each style the scene draws now, in the words of the domain's vocabularies:
lifecycle states, kinds of relation, problem marks and trust tiers. Also the graph's icons,
drawn from the app's SVG resources in the theme's text colour."""

from __future__ import annotations

import importlib.resources

from PySide6.QtCore import QByteArray, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QIcon, QImage, QPainter, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QWidget

from skill_studio.core.graph.dependencies import EDGE_CONFLICTS, EDGE_DEPENDS, EDGE_PARENT, EDGE_TERMS, MARK_TERMS
from skill_studio.core.model import LIFECYCLE_ORDER, LIFECYCLE_TERMS, Lifecycle, TrustTier
from skill_studio.ui import theme

SWATCH_W, SWATCH_H = 46, 16


def graph_icon(name: str, colour: str) -> QIcon:
    """resources/icons/graph-<name>.svg drawn in ``colour`` (its ``currentColor``), sharp at 2x."""
    data = (importlib.resources.files("skill_studio.resources") / "icons" / f"graph-{name}.svg").read_text()
    renderer = QSvgRenderer(QByteArray(data.replace("currentColor", colour).encode()))
    icon = QIcon()
    for side in (16, 24, 32, 48):
        image = QImage(side, side, QImage.Format_ARGB32_Premultiplied)
        image.fill(0)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        icon.addPixmap(QPixmap.fromImage(image))
    return icon


def _swatch(draw, ratio: float) -> QPixmap:
    image = QImage(round(SWATCH_W * ratio), round(SWATCH_H * ratio), QImage.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    draw(painter)
    painter.end()
    return QPixmap.fromImage(image)


def _box(border: QColor, fill: QColor, style=Qt.SolidLine, width: float = 2.0):
    def draw(painter: QPainter) -> None:
        painter.setPen(QPen(border, width, style))
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(QRectF(3, 2, SWATCH_W - 6, SWATCH_H - 4), 4, 4)
    return draw


def _line(pen: QPen, arrow: bool):
    def draw(painter: QPainter) -> None:
        plain = QPen(pen)
        plain.setCosmetic(False)
        painter.setPen(plain)
        y = SWATCH_H / 2
        painter.drawLine(2, round(y), SWATCH_W - 4, round(y))
        if arrow:
            painter.setPen(Qt.NoPen)
            painter.setBrush(pen.color())
            painter.drawPolygon([QPointF(SWATCH_W - 2, y), QPointF(SWATCH_W - 9, y - 4), QPointF(SWATCH_W - 9, y + 4)])
    return draw


def _stars(colour: QColor, text: str):
    def draw(painter: QPainter) -> None:
        painter.setPen(colour)
        font = painter.font()
        font.setPointSizeF(7.5)
        painter.setFont(font)
        painter.drawText(QRectF(0, 0, SWATCH_W, SWATCH_H), Qt.AlignCenter, text)
    return draw


class GraphLegend(QFrame):
    """The legend of one scene: :meth:`fill` lists what it draws; ``keys()`` the styles listed."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("graphLegend")
        self.setAccessibleName("Graph legend")
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(10, 8, 10, 8)
        self._grid.setHorizontalSpacing(8)
        self._grid.setVerticalSpacing(3)
        self._keys: list[str] = []

    def keys(self) -> list[str]:
        return list(self._keys)

    def texts(self) -> list[str]:
        return [w.text() for w in self.findChildren(QLabel) if w.property("legendText")]

    def fill(self, scene) -> None:
        """List the styles ``scene`` (a GraphScene) draws, in sections."""
        while self._grid.count():
            item = self._grid.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self._keys = []
        tokens = scene.tokens
        used = scene.used
        ratio = self.devicePixelRatioF() or 1.0
        self._row = 0
        states = [s for s in LIFECYCLE_ORDER if s.value in used]
        if states or "missing" in used:
            self._title("Skills: the box's colour is the lifecycle")
        for state in states:
            colour = QColor(theme.LIFECYCLE_COLORS[state])
            tint = QColor(colour)
            tint.setAlpha(60)
            terms = LIFECYCLE_TERMS[state]
            self._entry(state.value, _box(colour, tint), f"{terms.label}: {terms.meaning}", ratio)
        if "missing" in used:
            muted = QColor(tokens.text_muted)
            terms = MARK_TERMS["missing"]
            self._entry("missing", _box(muted, QColor(tokens.window), Qt.DashLine, 1.5),
                        f"{terms.label}: {terms.meaning}", ratio)
        if "cycle" in used:
            terms = MARK_TERMS["cycle"]
            self._entry("cycle", _box(QColor(theme.ROLE_FILLS["danger"]), QColor(tokens.surface), width=3.0),
                        f"{terms.label}: {terms.meaning} (red outline and arrows)", ratio)
        pens = scene.edge_pens
        lines = [(EDGE_DEPENDS, True, EDGE_TERMS[EDGE_DEPENDS]), (EDGE_CONFLICTS, False, EDGE_TERMS[EDGE_CONFLICTS]),
                 (EDGE_PARENT, False, EDGE_TERMS[EDGE_PARENT])]
        shown = [(k, arrow, t) for k, arrow, t in lines if k in used]
        if "ghost" in used:
            shown.append(("ghost", True, MARK_TERMS["missing"]))
        if shown:
            self._title("Relations: the line's style")
        for key, arrow, terms in shown:
            text = (f"{EDGE_TERMS[EDGE_DEPENDS].label} a missing skill" if key == "ghost"
                    else f"{terms.label}: {terms.meaning}")
            self._entry(key, _line(pens[key], arrow), text, ratio)
        if any(s.value in used for s in Lifecycle):
            self._title("Trust: the stars under the name")
            star = QColor(tokens.star)
            for tier in TrustTier:
                self._entry(f"trust-{int(tier)}", _stars(star, tier.stars), f"{int(tier)} – {tier.label}", ratio)
        if not self._keys:
            self._title("Nothing is drawn")
        self.adjustSize()

    def _title(self, text: str) -> None:
        label = QLabel(text, self)
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        self._grid.addWidget(label, self._row, 0, 1, 2)
        self._row += 1

    def _entry(self, key: str, draw, text: str, ratio: float) -> None:
        swatch = QLabel(self)
        swatch.setPixmap(_swatch(draw, ratio))
        swatch.setFixedSize(SWATCH_W, SWATCH_H)
        label = QLabel(text, self)
        label.setProperty("legendText", True)
        self._grid.addWidget(swatch, self._row, 0)
        self._grid.addWidget(label, self._row, 1)
        self._keys.append(key)
        self._row += 1
