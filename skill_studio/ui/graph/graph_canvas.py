"""The graph's view: zoom with the wheel, pan by dragging, F fits; a click selects a skill and a
double-click opens it; labels hide when zoomed far out."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QImage, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsView

from skill_studio.ui.graph.graph_scene import GraphScene

#: Below this scale the node labels are hidden (unreadable anyway, and costly to draw).
LABEL_SCALE = 0.42
#: Find zooms in to at least this scale: a node's name is then as large as the rest of the window's text.
READABLE_SCALE = 1.0
MIN_SCALE, MAX_SCALE = 0.02, 4.0
#: Zoomed out, the edges and boxes are drawn once into a picture of at most this many pixels
#: and each frame only shows the picture; a bigger one is not worth its memory.
OVERVIEW_PIXELS = 12_000_000
#: Zoomed in on a big graph, the edges around the view (this share of its size on each side)
#: are drawn once into a picture, and the frames show the picture until the view leaves it:
#: thousands of long edges crossing a view cost more than a frame's time to draw.
MARGIN = 0.3
PICTURE_EDGES = 6000   # from this many edges on (below, drawing them directly is quick enough)


class GraphCanvas(QGraphicsView):
    nodeClicked = Signal(str)
    nodeDoubleClicked = Signal(str)
    backgroundClicked = Signal()

    def __init__(self, scene: GraphScene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.DontAdjustForAntialiasing, True)
        self.setFocusPolicy(Qt.StrongFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)   # drag to pan
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self._press: QPoint | None = None
        self._picture: tuple | None = None   # (scene generation, scale, source rect, image)
        self.setAccessibleName("Dependency graph")

    @property
    def graph_scene(self) -> GraphScene:
        return self.scene()

    # --- zoom -------------------------------------------------------------

    def zoom_by(self, factor: float) -> None:
        scale = self.transform().m11()
        factor = max(MIN_SCALE / scale, min(MAX_SCALE / scale, factor))
        self.scale(factor, factor)
        self.update_detail()

    def fit(self) -> None:
        """Show the whole graph (no bigger than life size)."""
        rect = self.graph_scene.bounds
        self.fit_rect(rect)

    def fit_rect(self, rect: QRectF) -> None:
        if rect.isEmpty():
            return
        rect = rect.adjusted(-40, -40, 40, 40)
        self.fitInView(rect, Qt.KeepAspectRatio)
        if self.transform().m11() > 1.0:
            self.resetTransform()
            self.centerOn(rect.center())
        elif self.transform().m11() < MIN_SCALE:
            self.resetTransform()
            self.scale(MIN_SCALE, MIN_SCALE)
            self.centerOn(rect.center())
        self.update_detail()

    def zoom_to(self, rect: QRectF) -> None:
        """Centre on ``rect`` (a node's box), zoomed in to at least READABLE_SCALE so its name reads."""
        scale = min(MAX_SCALE, max(self.transform().m11(), READABLE_SCALE))
        self.setTransform(QTransform.fromScale(scale, scale))
        self.centerOn(rect.center())
        self.update_detail()

    def update_detail(self) -> None:
        """Choose for the zoom now: labels when near enough to read, edges as items or as one picture."""
        scale = self.transform().m11()
        detail = scale >= LABEL_SCALE
        source = self.graph_scene.bounds
        if source.isEmpty():           # nothing shown
            pictured = False
        elif detail:
            pictured = self.graph_scene.edge_count >= PICTURE_EDGES
        else:
            pictured = source.width() * source.height() * scale * scale <= OVERVIEW_PIXELS
        self.graph_scene.show_labels(detail, edges=not pictured)
        self.setRenderHint(QPainter.Antialiasing, detail)   # smooth curves are invisible far out, and costly
        if not pictured:
            self._picture = None

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        super().drawBackground(painter, rect)
        scene = self.graph_scene
        if scene.edges_shown:
            return
        scale = self.transform().m11()
        view = self.mapToScene(self.viewport().rect()).boundingRect()
        picture = self._picture
        if picture is None or picture[:2] != (scene.generation, scale) or (
                scene.labels_shown and not picture[2].contains(view)):
            if scene.labels_shown:   # zoomed in: the edges around the view
                source = view.adjusted(-view.width() * MARGIN, -view.height() * MARGIN,
                                       view.width() * MARGIN, view.height() * MARGIN)
            else:                    # zoomed out: everything
                source = scene.bounds
            image = QImage(max(1, round(source.width() * scale)), max(1, round(source.height() * scale)),
                           QImage.Format_ARGB32_Premultiplied)
            image.fill(0)
            if scene.labels_shown:
                scene.render_edges(image, source)
            else:
                scene.render_overview(image, source)
            self._picture = picture = (scene.generation, scale, source, image)
        painter.drawImage(picture[2], picture[3])

    def wheelEvent(self, event) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(1.15 ** steps)
        event.accept()

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key == Qt.Key_F and not event.modifiers():
            self.fit()
        elif key in (Qt.Key_Plus, Qt.Key_Equal):
            self.zoom_by(1.25)
        elif key == Qt.Key_Minus:
            self.zoom_by(0.8)
        else:
            super().keyPressEvent(event)

    # --- clicks (a drag pans; a click without moving selects) -------------

    def mousePressEvent(self, event) -> None:
        self._press = event.position().toPoint() if event.button() == Qt.LeftButton else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        pos = event.position().toPoint()
        if self._press is not None and (pos - self._press).manhattanLength() < 5:
            name = self.name_at(pos)
            if name:
                self.nodeClicked.emit(name)
            else:
                self.backgroundClicked.emit()
        self._press = None

    def mouseDoubleClickEvent(self, event) -> None:
        name = self.name_at(event.position().toPoint())
        if name:
            self.nodeDoubleClicked.emit(name)
        else:
            super().mouseDoubleClickEvent(event)

    def name_at(self, pos: QPoint) -> str | None:
        return self.graph_scene.node_at(self.mapToScene(pos), self.transform())

    def point_of(self, name: str) -> QPoint:
        """Where a node's centre is on the viewport (for tests and tooltips)."""
        return self.mapFromScene(self.graph_scene.nodes[name].scenePos())

    # --- pictures -----------------------------------------------------------

    def render_image(self, max_side: int = 8000) -> QImage:
        """The whole graph as an image, at life size when it fits in ``max_side`` pixels."""
        scene = self.graph_scene
        rect = scene.bounds.adjusted(-30, -30, 30, 30)
        scale = min(1.0, max_side / max(rect.width(), rect.height(), 1.0))
        image = QImage(max(1, int(rect.width() * scale)), max(1, int(rect.height() * scale)),
                       QImage.Format_ARGB32_Premultiplied)
        image.fill(scene.backgroundBrush().color())
        shown = scene.labels_shown
        scene.show_labels(True)
        painter = QPainter(image)
        painter.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        scene.render(painter, QRectF(image.rect()), rect)
        painter.end()
        scene.show_labels(shown)
        return image
