"""Saving the graph: the picture (PNG, SVG) of what the view shows, and the graph itself
(GraphML, DOT, JSON) of the skills shown. Files are written whole or not at all."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QWidget

from skill_studio.core.graph import dependencies as core_graph
from skill_studio.ui.safe_text import warning

FILTERS = {
    "png": ("Export the graph as a picture", "PNG image (*.png)"),
    "svg": ("Export the graph as a drawing", "SVG drawing (*.svg)"),
    "graphml": ("Export the graph as GraphML", "GraphML (*.graphml)"),
    "dot": ("Export the graph for Graphviz", "Graphviz DOT (*.dot *.gv)"),
    "json": ("Export the graph as JSON", "JSON (*.json)"),
}


def ask_path(parent: QWidget, title: str, name: str, flt: str) -> str:
    path, _ = QFileDialog.getSaveFileName(parent, title, str(Path.home() / name), flt)
    return path


def tell(parent: QWidget, title: str, text: str) -> None:
    warning(parent, title, text)


def _atomic(path: Path, write) -> None:
    """``write(temporary path)``, then rename over ``path``: never a half-written file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)   # a temporary file is private; an export is not
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_svg(scene, path: str, title: str = "Skill dependencies") -> None:
    rect = scene.bounds.adjusted(-30, -30, 30, 30)
    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setSize(QSize(int(rect.width()), int(rect.height())))
    generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    generator.setTitle(title)
    generator.setDescription("Dependency graph exported from Skill Studio")
    shown = scene.labels_shown
    scene.show_labels(True)
    painter = QPainter(generator)
    scene.render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    painter.end()
    scene.show_labels(shown)


def export(view, kind: str) -> bool:
    """Ask where, then write the ``kind`` export of ``view`` (a GraphView). True when written."""
    title, flt = FILTERS[kind]
    focus = view.prepared.scope.focus
    suggested = f"{focus[0] if focus else 'skills'}-graph.{'gv' if kind == 'dot' else kind}"
    chosen = view.ask_save_path(title, suggested, flt)
    if not chosen:
        return False
    path = Path(chosen)
    if not path.suffix:
        path = path.with_suffix("." + kind)
    graph = view.prepared.view
    try:
        if kind == "png":
            image = view.canvas.render_image()
            _atomic(path, lambda tmp: _check(image.save(tmp, "PNG"), path))
        elif kind == "svg":
            _atomic(path, lambda tmp: write_svg(view.scene, tmp))
        elif kind == "graphml":
            _atomic(path, lambda tmp: core_graph.write_graphml(graph, tmp))
        elif kind == "dot":
            _atomic(path, lambda tmp: Path(tmp).write_text(core_graph.to_dot(graph), encoding="utf-8"))
        else:
            data = core_graph.to_json(graph, view.prepared.positions)
            _atomic(path, lambda tmp: Path(tmp).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                                           encoding="utf-8"))
    except OSError as e:
        view.tell("Export failed", f"{path} could not be written:\n\n{e}")
        return False
    view.status.setText(f"Saved {path.name}")
    return True


def _check(ok: bool, path: Path) -> None:
    if not ok:
        raise OSError(f"{path}: the image could not be encoded")
