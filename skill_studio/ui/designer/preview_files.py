"""What the preview may load: files of the skill itself, named by relative paths, decoded inertly."""

from __future__ import annotations

import posixpath

from PySide6.QtCore import QBuffer, QIODevice, QUrl
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter, QPen

from skill_studio.core.render.sanitize import svg_is_self_contained
from skill_studio.ui.theme import current_tokens

__all__ = ["decode_skill_image", "not_shown_image", "skill_path"]

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


def decode_skill_image(data: bytes) -> QImage:
    """The image a skill file holds; :func:`not_shown_image` when it cannot be read, or when it is
    an SVG that refers to anything outside itself (QtSvg would load that, from any path, itself)."""
    buffer = QBuffer()
    buffer.setData(data)
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    if bytes(reader.format()).lower() in (b"svg", b"svgz") and not svg_is_self_contained(data):
        return not_shown_image()
    image = reader.read()
    return image if not image.isNull() else not_shown_image()
