"""The dependency graph drawn with QGraphicsScene: a rounded box per skill (name, lifecycle
colour, trust stars; see :mod:`graph_node`), depends-on arrows, conflict and parent lines.

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
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene

from skill_studio.core.graph.dependencies import EDGE_CONFLICTS, EDGE_DEPENDS, EDGE_PARENT, Problem, SkillGraph
from skill_studio.core.model import Lifecycle
from skill_studio.ui import theme
from skill_studio.ui.graph.graph_node import CYCLE_RED, NodeItem, node_tooltip, relation_lines

#: Scene pixels per layout unit.
UNIT_X, UNIT_Y = 185.0, 110.0
REGION = 800.0           # edges are batched per square of this many scene pixels
SMOOTH_EDGES = 2000      # up to this many edges, they are always drawn antialiased


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


def _clip_to_boxes(p: np.ndarray, q: np.ndarray, hp: np.ndarray, hq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Segments p->q (centre to centre) shortened to start and end on the boxes' borders (the
    boxes' half sizes ``hp`` and ``hq``)."""
    d = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        tp = np.min(np.where(np.abs(d) > 1e-9, (hp + 2) / np.abs(d), np.inf), axis=1)
        tq = np.min(np.where(np.abs(d) > 1e-9, (hq + 2) / np.abs(d), np.inf), axis=1)
    tp = np.clip(np.nan_to_num(tp, posinf=0.5), 0.0, 0.5)[:, None]
    tq = np.clip(np.nan_to_num(tq, posinf=0.5), 0.0, 0.5)[:, None]
    return p + d * tp, q - d * tq


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
        self.near: set[str] = set()        # neighbours of what is highlighted, outlined more lightly
        self.used: set[str] = set()        # the styles drawn: lifecycle values, edge kinds, marks
        self.labels_shown = self.edges_shown = True
        self.bounds = QRectF()
        self.generation = 0   # counts rebuilds (a view's cached pictures of the scene go with them)
        self.tokens = theme.current_tokens()
        self.edge_pens: dict[str, QPen] = {}   # the pen of each edge style drawn

    def build(self, graph: SkillGraph, positions: dict[str, tuple[float, float]], problems: list[Problem] = ()) -> None:
        """Replace the scene's content with ``graph`` laid out at ``positions`` (layout units)."""
        self.clear()
        self.nodes, self.edge_items, self.arrow_items, self.overview = {}, [], [], []
        self.edge_paths = []
        self._edge_count = 0
        self._cells = defaultdict(list)
        self.highlighted, self.near = set(), set()
        self.tokens = tokens = theme.current_tokens()
        self.setBackgroundBrush(QColor(tokens.window))
        font = QFont()
        font.setPointSizeF(9.5)
        font.setBold(True)
        small = QFont()
        small.setPointSizeF(8.5)
        cyclic = {name for p in problems if p.kind in ("cycle", "self-dependency") for name in p.skills}
        multi = graph.graph
        self.used = set()
        for node in graph.nodes():
            x, y = positions.get(node.name, (0.0, 0.0))
            item = NodeItem(node, font, small, tokens)
            item.setPos(x * UNIT_X, y * UNIT_Y)
            item.setToolTip(node_tooltip(node, relation_lines(multi, node.name)))
            if node.name in cyclic:
                item.in_cycle = True
                item.restyle(tokens, None)
            self.used.add("missing" if node.missing else node.lifecycle.value)
            self.addItem(item)
            self.nodes[node.name] = item
        if cyclic & set(self.nodes):
            self.used.add("cycle")
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
        half = {name: (item.w / 2, item.h / 2) for name, item in self.nodes.items()}
        hp = np.array([half[u] for u, _, _ in edges], float).reshape(-1, 2)
        hq = np.array([half[v] for _, v, _ in edges], float).reshape(-1, 2)
        a, b = _clip_to_boxes(p, q, hp, hq)
        styles = []
        for u, v, kind in edges:
            if kind == EDGE_DEPENDS and u in cyclic and v in cyclic:
                kind = "cycle"
            elif kind == EDGE_DEPENDS and graph.node(v).missing:
                kind = "ghost"
            styles.append(kind)
        self.used.update(styles)
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
        self.edge_pens = pens
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
            rect = QRectF(pos.x() - item.w / 2, pos.y() - item.h / 2, item.w, item.h)
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

    def set_highlighted(self, names, near=()) -> None:
        """Outline these nodes (the browser's selection, search hits, a clicked problem), and
        more lightly the ``near`` ones (the neighbours of a skill found)."""
        names = {n for n in names if n in self.nodes}
        near = {n for n in near if n in self.nodes} - names
        was = dict.fromkeys(self.near, "near") | dict.fromkeys(self.highlighted, "hit")
        now = dict.fromkeys(near, "near") | dict.fromkeys(names, "hit")
        for name in was.keys() | now.keys():
            if was.get(name) != now.get(name):
                item = self.nodes[name]
                item.restyle(self.tokens, now.get(name))
                item.setVisible(self.labels_shown or name in now)
        self.highlighted, self.near = names, near

    def show_labels(self, shown: bool, edges: bool = True) -> None:
        """Detail (boxes with names and stars, arrowheads) or, zoomed far out, the overview;
        ``edges=False`` leaves the edges and overview boxes out (the view draws them from a
        picture of them, see :meth:`render_overview`)."""
        if (shown, edges) == (self.labels_shown, self.edges_shown):
            return
        self.labels_shown, self.edges_shown = shown, edges
        for name, item in self.nodes.items():
            item.setVisible(shown or name in self.highlighted or name in self.near)
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
