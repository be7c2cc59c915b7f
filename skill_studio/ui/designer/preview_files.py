"""What the preview may load: files of the skill itself, named by relative paths, decoded inertly
and within bounds (any thread: only QImage, never QPixmap)."""

from __future__ import annotations

import posixpath

from PySide6.QtCore import QBuffer, QIODevice, QSize, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter, QPen
from PySide6.QtSvg import QSvgRenderer

from skill_studio.core.render.svg import svg_refusal
from skill_studio.ui.theme import current_tokens

__all__ = ["MAX_IMAGE_BYTES", "MAX_IMAGE_PIXELS", "decode_skill_image", "not_shown_image", "skill_path"]

#: Image files bigger than this are not decoded.
MAX_IMAGE_BYTES = 16 * 1024 * 1024
#: Raster images with more pixels than this are not decoded (checked in the header, before).
MAX_IMAGE_PIXELS = 25_000_000
#: An image is shown at most this wide and this high (a bigger one is scaled down).
MAX_SHOWN_SIDE = 2_400
#: Megabytes QImageReader may allocate for one image.
_ALLOCATION_MB = 128

_FULLY_DECODED = QUrl.ComponentFormattingOption.FullyDecoded


def skill_path(url: QUrl, files) -> str | None:
    """Return the skill file (POSIX path relative to the skill folder) that *url* names, or
    ``None`` when it has a scheme or host, is absolute, contains ``..`` or names no file in
    *files*. A ``./`` prefix, a query and a fragment are ignored."""
    if url.scheme() or url.authority():
        return None
    path = url.path(_FULLY_DECODED)
    if not path or path.startswith("/") or "\\" in path or any(ord(c) < 32 for c in path):
        return None
    if ".." in path.split("/"):
        return None
    norm = posixpath.normpath(path)
    return norm if norm in files else None


def not_shown_image() -> QImage:
    """A small crossed box standing for a skill image that is not shown."""
    image = QImage(18, 18, QImage.Format.Format_ARGB32)
    t = current_tokens()
    image.fill(QColor(t.surface_alt))
    painter = QPainter(image)
    painter.setPen(QPen(QColor(t.text_muted), 1))
    painter.drawRect(0, 0, 17, 17)
    painter.drawLine(4, 4, 13, 13)
    painter.drawLine(13, 4, 4, 13)
    painter.end()
    return image


def decode_skill_image(data: bytes, width: int = MAX_SHOWN_SIDE) -> QImage:
    """The image a skill file holds, no wider than *width* and no larger than
    :data:`MAX_SHOWN_SIDE` either way (scaled down, keeping its proportions).

    :func:`not_shown_image` when it cannot be read, is over :data:`MAX_IMAGE_BYTES` or
    :data:`MAX_IMAGE_PIXELS` (read from its header, before decoding), or is an SVG that
    :func:`~skill_studio.core.render.svg.svg_refusal` refuses: one that refers to anything outside
    itself (QtSvg would load that, from any path, itself) or that would draw too much. Safe to
    call on a worker thread; slow on big files, so the preview calls it there."""
    if len(data) > MAX_IMAGE_BYTES:
        return not_shown_image()
    buffer = QBuffer()
    buffer.setData(data)
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    reader.setAllocationLimit(_ALLOCATION_MB)
    if bytes(reader.format()).lower() in (b"svg", b"svgz"):
        return _draw_svg(data, width) if svg_refusal(data) is None else not_shown_image()
    size = reader.size()
    if not size.isValid() or size.width() * size.height() > MAX_IMAGE_PIXELS:
        return not_shown_image()
    fitted = _fitted(size, width)
    if fitted != size:
        reader.setScaledSize(fitted)
    image = reader.read()
    return image if not image.isNull() else not_shown_image()


def _fitted(size: QSize, width: int) -> QSize:
    """*size* scaled down to fit *width* and :data:`MAX_SHOWN_SIDE` (never up)."""
    room = QSize(max(1, min(width, MAX_SHOWN_SIDE)), MAX_SHOWN_SIDE)
    if size.width() <= room.width() and size.height() <= room.height():
        return size
    return size.scaled(room, Qt.AspectRatioMode.KeepAspectRatio).expandedTo(QSize(1, 1))


def _draw_svg(data: bytes, width: int) -> QImage:
    renderer = QSvgRenderer(data)
    if not renderer.isValid():
        return not_shown_image()
    size = renderer.defaultSize()
    if not size.isValid() or size.isEmpty():
        size = QSize(100, 100)
    size = _fitted(size, width)
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    return image
