"""Render the app icon's PNG sizes from its SVG (resources/icons/app/): run after changing the SVG.

Usage: python packaging/render_icons.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
FOLDER = Path(__file__).resolve().parent.parent / "resources" / "icons" / "app"


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    if QGuiApplication.instance() is None:   # painting needs one
        QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(FOLDER / "skill-studio.svg"))
    if not renderer.isValid():
        print(f"{FOLDER / 'skill-studio.svg'}: not a valid SVG", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format_ARGB32_Premultiplied)
        image.fill(Qt.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = FOLDER / f"skill-studio-{size}.png"
        image.save(str(out))
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
