"""The dependency graph drawn with QGraphicsScene: a rounded box per skill (name, lifecycle
colour, trust stars), depends-on arrows, conflict and parent lines.

Everything is drawn by Qt's own items (no Python ``paint``), so a frame of thousands of
nodes stays cheap: a node is a path item with two text children, and the edges are batched
into a few path items per style and per region of the scene, so the scene's index skips the
regions out of view. Labels are hidden when the view is zoomed far out.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QImage, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsScene, QGraphicsSimpleTextItem

from skill_studio.core.graph.dependencies import EDGE_CONFLICTS, EDGE_DEPENDS, EDGE_PARENT, Node, Problem, SkillGraph
from skill_studio.core.model import Lifecycle
from skill_studio.ui import theme

#: Scene pixels per layout unit, and a node box's size in pixels.
UNIT_X, UNIT_Y = 185.0, 110.0
BOX_W, BOX_H = 170.0, 46.0
NAME_ROLE = 0            # QGraphicsItem.data key holding a node's skill name
REGION = 800.0           # edges are batched per square of this many scene pixels
SMOOTH_EDGES = 2000      # up to this many edges, they are always drawn antialiased
CYCLE_RED = theme.ROLE_FILLS["danger"]   # cycles and conflicts


def _box_path() -> QPainterPath:
    path = QPainterPath()
    path.addRoundedRect(QRectF(-BOX_W / 2, -BOX_H / 2, BOX_W, BOX_H), 8, 8)
    return path


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def node_tooltip(node: Node) -> str:
    if node.missing:
        return f"<b>{_html(node.name)}</b><br>Not in the library: some skill depends on it."
    stars = "★" * int(node.trust_tier) + "☆" * (4 - int(node.trust_tier))
    desc = node.description if len(node.description) <= 300 else node.description[:299] + "…"
    return (f"<b>{_html(node.name)}</b> — {node.lifecycle.value}, {node.origin.value}, {stars}<br>"
            f"{_html(desc)}<br><br>utility {node.utility:.2f} · freshness {node.freshness:.2f} · "
            f"success {node.success_rate:.0%} · {node.uses} use(s)")


class EdgeBatch(QGraphicsPathItem):
    """Many edge pieces in one item. Thousands of smooth (antialiased) lines cost several times
    more to draw than plain ones, so a big graph's edges are drawn smooth only when zoomed in
    closer than life size, where few are in view."""

    smooth = True

    def paint(self, painter, option, widget=None) -> None:
        if self.smooth or option.levelOfDetailFromTransform(painter.worldTransform()) > 1.0:
            super().paint(painter, option, widget)
            return
        was = painter.testRenderHint(QPainter.Antialiasing)
        painter.setRenderHint(QPainter.Antialiasing, False)
        super().paint(painter, option, widget)
        painter.setRenderHint(QPainter.Antialiasing, was)


class NodeItem(QGraphicsPathItem):
    """One skill's box; its name and stars are child items (hidden when zoomed far out)."""

    def __init__(self, node: Node, path: QPainterPath, font: QFont, small: QFont, tokens: theme.Tokens):
        super().__init__(path)
        self.node = node
        self.setData(NAME_ROLE, node.name)
        self.setToolTip(node_tooltip(node))
        self.setAcceptHoverEvents(False)
        self.setFlag(QGraphicsItem.ItemIsSelectable, False)
        metrics = QFontMetrics(font)
        label = metrics.elidedText(node.name, Qt.ElideMiddle, int(BOX_W - 16))
        self.label = QGraphicsSimpleTextItem(label, self)
        self.label.setFont(font)
        self.label.setPos(-metrics.horizontalAdvance(label) / 2, -BOX_H / 2 + 5)
        if node.missing:
            stars_text = "missing"
        else:
            tier = int(node.trust_tier)
            stars_text = "★" * tier + "☆" * (4 - tier)
        self.stars = QGraphicsSimpleTextItem(stars_text, self)
        self.stars.setFont(small)
        self.stars.setPos(-QFontMetrics(small).horizontalAdvance(stars_text) / 2, BOX_H / 2 - 20)
        self.in_cycle = False
        self.restyle(tokens, False)

    def restyle(self, tokens: theme.Tokens, highlighted: bool) -> None:
        node = self.node
        if node.missing:
            colour = QColor(tokens.text_muted)
            pen = QPen(colour, 1.5, Qt.DashLine)
            fill = QColor(tokens.window)
            text = colour
        else:
            colour = QColor(theme.LIFECYCLE_COLORS[node.lifecycle])
            pen = QPen(colour, 2.0)
            fill = QColor(tokens.surface)
            tint = QColor(colour)
            tint.setAlpha(40 if tokens.dark else 28)
            fill = _blend(fill, tint)
            text = QColor(tokens.text)
        if self.in_cycle:
            pen = QPen(QColor(CYCLE_RED), 3.0, pen.style())
        if highlighted:
            pen = QPen(QColor(tokens.accent), 4.0)
            fill = QColor(tokens.selection)
        self.setPen(pen)
        self.setBrush(QBrush(fill))
        self.label.setBrush(QBrush(text))
        self.stars.setBrush(QBrush(QColor(tokens.text_muted if node.missing else tokens.star)))
        self.setZValue(2 if highlighted else 1)


def _blend(base: QColor, over: QColor) -> QColor:
    a = over.alphaF()
    return QColor.fromRgbF(base.redF() * (1 - a) + over.redF() * a, base.greenF() * (1 - a) + over.greenF() * a,
                           base.blueF() * (1 - a) + over.blueF() * a)


def _clip_to_boxes(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Segments p->q (centre to centre) shortened to start and end on the boxes' borders."""
    d = q - p
    half = np.array([BOX_W / 2 + 2, BOX_H / 2 + 2])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.min(np.where(np.abs(d) > 1e-9, half / np.abs(d), np.inf), axis=1)
    t = np.clip(np.nan_to_num(t, posinf=0.5), 0.0, 0.5)[:, None]
    return p + d * t, q - d * t


class GraphScene(QGraphicsScene):
    """The scene of one graph and its positions. ``nodes`` maps a name to its item."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.nodes: dict[str, NodeItem] = {}
        self.edge_items: list[QGraphicsPathItem] = []
        self.arrow_items: list[QGraphicsPathItem] = []
        self.overview: list[QGraphicsPathItem] = []   # every node as a plain box, one item per colour
        self.edge_paths: list[tuple[QPainterPath, QPen]] = []   # every edge whole, one path per style
        self.overview_rects: list[tuple[QBrush, list[QRectF]]] = []
        self._edge_count = 0
        self._cells: dict[tuple[int, int], list[QGraphicsPathItem]] = defaultdict(list)   # region: its batches
        self.highlighted: set[str] = set()
        self.labels_shown = self.edges_shown = True
        self.bounds = QRectF()
        self.generation = 0   # counts rebuilds (a view's cached pictures of the scene go with them)
        self.tokens = theme.current_tokens()

    def build(self, graph: SkillGraph, positions: dict[str, tuple[float, float]], problems: list[Problem] = ()) -> None:
        """Replace the scene's content with ``graph`` laid out at ``positions`` (layout units)."""
        self.clear()
        self.nodes, self.edge_items, self.arrow_items, self.overview = {}, [], [], []
        self.edge_paths = []
        self._edge_count = 0
        self._cells = defaultdict(list)
        self.highlighted = set()
        self.tokens = tokens = theme.current_tokens()
        self.setBackgroundBrush(QColor(tokens.window))
        font = QFont()
        font.setPointSizeF(9.5)
        font.setBold(True)
        small = QFont()
        small.setPointSizeF(8.5)
        path = _box_path()
        cyclic = {name for p in problems if p.kind in ("cycle", "self-dependency") for name in p.skills}
        for node in graph.nodes():
            x, y = positions.get(node.name, (0.0, 0.0))
            item = NodeItem(node, path, font, small, tokens)
            item.setPos(x * UNIT_X, y * UNIT_Y)
            if node.name in cyclic:
                item.in_cycle = True
                item.restyle(tokens, False)
            self.addItem(item)
            self.nodes[node.name] = item
        self._build_edges(graph, positions, cyclic, tokens)
        self._build_overview(tokens)
        self.labels_shown = False
        self.show_labels(True)
        self.generation += 1
        self.bounds = rect = self.itemsBoundingRect()   # kept: costly to compute over many items
        pad = max(rect.width(), rect.height()) * 0.5 + 400   # room to pan past the edges
        self.setSceneRect(rect.adjusted(-pad, -pad, pad, pad))

    def _build_edges(self, graph: SkillGraph, positions, cyclic: set[str], tokens: theme.Tokens) -> None:
        edges = [(u, v, kind) for u, v, kind in graph.edges() if u in positions and v in positions and u != v]
        self._edge_count = len(edges)
        if not edges:
            return
        p = np.array([positions[u] for u, _, _ in edges], float) * (UNIT_X, UNIT_Y)
        q = np.array([positions[v] for _, v, _ in edges], float) * (UNIT_X, UNIT_Y)
        a, b = _clip_to_boxes(p, q)
        styles = []
        for u, v, kind in edges:
            if kind == EDGE_DEPENDS and u in cyclic and v in cyclic:
                kind = "cycle"
            elif kind == EDGE_DEPENDS and graph.node(v).missing:
                kind = "ghost"
            styles.append(kind)
        # A long edge is cut into pieces no longer than half a region, each batched with its
        # region's: a batch then covers little more than its region, and the scene's index
        # leaves out of a frame every batch out of view.
        pieces = np.maximum(1, np.ceil(np.hypot(*(b - a).T) / (REGION / 2))).astype(int)
        owner = np.repeat(np.arange(len(edges)), pieces)
        step = np.arange(len(owner)) - np.repeat(np.cumsum(pieces) - pieces, pieces)
        t0 = (step / pieces[owner])[:, None]
        t1 = ((step + 1) / pieces[owner])[:, None]
        starts = a[owner] + (b[owner] - a[owner]) * t0
        ends = a[owner] + (b[owner] - a[owner]) * t1
        cells = np.floor((starts + ends) / 2 / REGION).astype(int)
        line_groups: dict[tuple, list[int]] = defaultdict(list)
        for k, (i, cx, cy) in enumerate(zip(owner.tolist(), cells[:, 0].tolist(), cells[:, 1].tolist())):
            line_groups[(styles[i], cx, cy)].append(k)
        whole: dict[str, QPainterPath] = defaultdict(QPainterPath)   # for the zoomed-out picture
        for i, style in enumerate(styles):
            whole[style].moveTo(a[i, 0], a[i, 1])
            whole[style].lineTo(b[i, 0], b[i, 1])
        head_cells = np.floor(b / REGION).astype(int)
        head_groups: dict[tuple, list[int]] = defaultdict(list)
        for i, style in enumerate(styles):
            head_groups[(style, int(head_cells[i, 0]), int(head_cells[i, 1]))].append(i)
        muted = QColor(tokens.text_muted)
        pens = {
            EDGE_DEPENDS: QPen(muted, 1.3), "ghost": QPen(muted, 1.2, Qt.DashLine),
            "cycle": QPen(QColor(CYCLE_RED), 2.2),
            EDGE_CONFLICTS: QPen(QColor(CYCLE_RED), 1.5, Qt.DashLine),
            EDGE_PARENT: QPen(QColor(tokens.accent), 1.3, Qt.DotLine),
        }
        for pen in pens.values():
            pen.setCosmetic(True)   # as wide on screen at any zoom, and much cheaper to draw
        self.edge_paths = [(whole[style], pens[style]) for style in whole]
        arrows = {EDGE_DEPENDS: muted, "ghost": muted, "cycle": QColor(CYCLE_RED)}
        for (style, cx, cy), idx in line_groups.items():
            lines = QPainterPath()
            for k in idx:
                lines.moveTo(starts[k, 0], starts[k, 1])
                lines.lineTo(ends[k, 0], ends[k, 1])
            item = EdgeBatch(lines)
            item.smooth = len(edges) <= SMOOTH_EDGES
            item.setPen(pens[style])
            item.setZValue(0)
            self.addItem(item)
            self.edge_items.append(item)
            self._cells[(cx, cy)].append(item)
        for (style, cx, cy), idx in head_groups.items():
            if style not in arrows:
                continue
            heads = QPainterPath()
            for i in idx:
                _arrow_head(heads, a[i], b[i])
            head = QGraphicsPathItem(heads)
            head.setPen(Qt.NoPen)
            head.setBrush(arrows[style])
            head.setZValue(0)
            self.addItem(head)
            self.arrow_items.append(head)
            self._cells[(cx, cy)].append(head)

    def _build_overview(self, tokens: theme.Tokens) -> None:
        """What is drawn instead of the node items when zoomed far out: plain boxes batched by
        colour (a few items instead of thousands)."""
        groups: dict[str, QPainterPath] = defaultdict(QPainterPath)
        rects: dict[str, list[QRectF]] = defaultdict(list)
        for item in self.nodes.values():
            colour = "ghost" if item.node.missing else ("cycle" if item.in_cycle else item.node.lifecycle.value)
            pos = item.pos()
            rect = QRectF(pos.x() - BOX_W / 2, pos.y() - BOX_H / 2, BOX_W, BOX_H)
            groups[colour].addRect(rect)
            rects[colour].append(rect)
        self.overview_rects = []
        for colour, path in groups.items():
            item = QGraphicsPathItem(path)
            if colour == "ghost":
                item.setBrush(QColor(tokens.text_muted))
            elif colour == "cycle":
                item.setBrush(QColor(CYCLE_RED))
            else:
                item.setBrush(QColor(theme.LIFECYCLE_COLORS[Lifecycle(colour)]))
            item.setPen(Qt.NoPen)
            item.setZValue(1)
            item.setVisible(False)
            self.addItem(item)
            self.overview.append(item)
            self.overview_rects.append((item.brush(), rects[colour]))

    # --- state shown on the nodes ---------------------------------------------

    def set_highlighted(self, names) -> None:
        """Outline these nodes (the browser's selection, search hits, a clicked problem)."""
        names = {n for n in names if n in self.nodes}
        for name in self.highlighted ^ names:
            self.nodes[name].restyle(self.tokens, name in names)
            self.nodes[name].setVisible(self.labels_shown or name in names)
        self.highlighted = names

    def show_labels(self, shown: bool, edges: bool = True) -> None:
        """Detail (boxes with names and stars, arrowheads) or, zoomed far out, the overview;
        ``edges=False`` leaves the edges and overview boxes out (the view draws them from a
        picture of them, see :meth:`render_overview`)."""
        if (shown, edges) == (self.labels_shown, self.edges_shown):
            return
        self.labels_shown, self.edges_shown = shown, edges
        for name, item in self.nodes.items():
            item.setVisible(shown or name in self.highlighted)
        for item in self.arrow_items:
            item.setVisible(shown and edges)
        for item in self.edge_items:
            item.setVisible(edges)
        for item in self.overview:
            item.setVisible(edges and not shown)

    def render_overview(self, image: QImage, source: QRectF) -> None:
        """Draw the edges and the plain boxes of ``source`` into ``image`` (a few paths, not
        thousands of items)."""
        if source.isEmpty() or image.isNull():
            return
        painter = QPainter(image)
        scale = image.width() / source.width()   # one scale for both axes: a non-uniform one is drawn far slower
        painter.scale(scale, scale)
        painter.translate(-source.left(), -source.top())
        painter.setBrush(Qt.NoBrush)
        for path, pen in self.edge_paths:
            plain = QPen(pen)
            plain.setStyle(Qt.SolidLine)   # dashes and dots are invisible this far out, and slow
            painter.setPen(plain)
            painter.drawPath(path)
        painter.setPen(Qt.NoPen)
        for brush, rects in self.overview_rects:
            painter.setBrush(brush)
            painter.drawRects(rects)   # far quicker than filling one path of thousands of boxes
        painter.end()

    def render_edges(self, image: QImage, source: QRectF) -> None:
        """Draw the edges (with arrowheads) that cross ``source`` into ``image``: the batches
        of the regions around it, found with the scene's index; the rest is cut off."""
        if source.isEmpty() or image.isNull():
            return
        painter = QPainter(image)
        painter.setRenderHint(QPainter.Antialiasing, self._edge_count <= SMOOTH_EDGES)
        scale = image.width() / source.width()
        painter.scale(scale, scale)
        painter.translate(-source.left(), -source.top())
        # A batch holds the pieces whose middle is in its region: they reach at most half a
        # region beyond it, so the regions one further out are enough.
        cols = range(math.floor(source.left() / REGION) - 1, math.floor(source.right() / REGION) + 2)
        rows = range(math.floor(source.top() / REGION) - 1, math.floor(source.bottom() / REGION) + 2)
        for cx in cols:
            for cy in rows:
                for item in self._cells.get((cx, cy), ()):
                    if isinstance(item, EdgeBatch):
                        painter.setPen(item.pen())
                        painter.setBrush(Qt.NoBrush)
                    else:
                        painter.setPen(Qt.NoPen)
                        painter.setBrush(item.brush())
                    painter.drawPath(item.path())
        painter.end()

    @property
    def edge_count(self) -> int:
        return self._edge_count

    def node_at(self, pos: QPointF, transform) -> str | None:
        item = self.itemAt(pos, transform)
        while item is not None and not isinstance(item, NodeItem):
            item = item.parentItem()
        return item.node.name if item is not None else None

    def bounds_of(self, names) -> QRectF:
        rect = QRectF()
        for name in names:
            if name in self.nodes:
                rect = rect.united(self.nodes[name].sceneBoundingRect())
        return rect


def _arrow_head(path: QPainterPath, start: np.ndarray, end: np.ndarray, size: float = 10.0) -> None:
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy)
    if length < 1e-6:
        return
    ux, uy = dx / length, dy / length
    bx, by = end[0] - ux * size, end[1] - uy * size
    path.moveTo(end[0], end[1])
    path.lineTo(bx - uy * size * 0.45, by + ux * size * 0.45)
    path.lineTo(bx + uy * size * 0.45, by - ux * size * 0.45)
    path.closeSubpath()
