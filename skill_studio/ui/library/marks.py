"""The library's small marks, drawn from the SVG icons in resources/icons in a theme colour (no font
glyph, so no font can lack them): trust stars, the pin, a skill's validation state."""

from __future__ import annotations

import base64
import importlib.resources

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QImage, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer

from skill_studio.core.format.verdict import Verdict
from skill_studio.core.model import Lifecycle
from skill_studio.ui.theme import LIFECYCLE_COLORS, ON_FILL, Tokens

MAX_TIER = 4
STAR_GAP = 2     # between two stars, in pixels

_RENDERERS: dict[tuple[str, str], QSvgRenderer] = {}


def icon_svg(name: str) -> str:
    """The text of resources/icons/<name>.svg."""
    return (importlib.resources.files("skill_studio.resources") / "icons" / f"{name}.svg").read_text("utf-8")


def _renderer(name: str, colour: str) -> QSvgRenderer:
    key = (name, QColor(colour).name())
    if key not in _RENDERERS:
        data = icon_svg(name).replace("currentColor", key[1])
        _RENDERERS[key] = QSvgRenderer(QByteArray(data.encode("utf-8")))
    return _RENDERERS[key]


def draw_icon(painter: QPainter, rect: QRect | QRectF, name: str, colour: str) -> None:
    """Paint the icon ``name`` in ``colour`` into ``rect`` (as vectors: sharp at any scale)."""
    _renderer(name, colour).render(painter, QRectF(rect))


def icon_image(name: str, colour: str, size: int, scale: float = 2.0) -> QImage:
    """The icon as an image of ``size`` logical pixels (drawn at ``scale`` for high-density screens)."""
    px = max(1, round(size * scale))
    image = QImage(px, px, QImage.Format_ARGB32_Premultiplied)
    image.fill(Qt.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing, True)
    draw_icon(painter, QRectF(0, 0, px, px), name, colour)
    painter.end()
    image.setDevicePixelRatio(scale)
    return image


def icon(name: str, colour: str, size: int = 16) -> QIcon:
    """A QIcon of the icon in ``colour`` (for item views' decorations and buttons)."""
    result = QIcon()
    for scale in (1.0, 2.0):
        result.addPixmap(QPixmap.fromImage(icon_image(name, colour, size, scale)))
    return result


def icon_data_url(name: str, colour: str, size: int, scale: float = 2.0) -> str:
    """The icon as a PNG data URL, for an <img> in a label's rich text."""
    buffer = QBuffer()
    buffer.open(QIODevice.WriteOnly)
    icon_image(name, colour, size, scale).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(bytes(buffer.data())).decode("ascii")


# --- trust stars -----------------------------------------------------------------------------

def stars_width(height: int) -> int:
    """The width of a row of MAX_TIER stars ``height`` pixels high."""
    return MAX_TIER * height + (MAX_TIER - 1) * STAR_GAP


def star_rect(row: QRect, n: int) -> QRect:
    """The square of the ``n``-th star (1-based) in a row of stars whose left edge starts ``row``."""
    size = row.height()
    return QRect(row.left() + (n - 1) * (size + STAR_GAP), row.top(), size, size)


def star_at(row: QRect, x: int) -> int | None:
    """The tier (1-4) of the star at ``x`` in a row of stars, or None when ``x`` is outside it."""
    size = row.height()
    if size <= 0 or not row.left() <= x < row.left() + stars_width(size):
        return None
    return min(MAX_TIER, 1 + (x - row.left()) // (size + STAR_GAP))


def draw_stars(painter: QPainter, row: QRect, tier: int, t: Tokens) -> None:
    """Trust as stars, the same in the cards, the list and the details: ``tier`` filled in the
    theme's star colour, the rest as outlines in the muted text colour."""
    painter.save()
    painter.setRenderHint(QPainter.Antialiasing, True)
    for n in range(1, MAX_TIER + 1):
        filled = n <= tier
        draw_icon(painter, star_rect(row, n), "star" if filled else "star-empty",
                  t.star if filled else t.text_muted)
    painter.restore()


def stars_html(tier: int, t: Tokens, size: int, link_up_to: int = 0) -> str:
    """Trust as star images for a rich-text label; stars up to ``link_up_to`` are links 'trust:N'."""
    filled = icon_data_url("star", t.star, size)
    empty = icon_data_url("star-empty", t.text_muted, size)
    parts = []
    for n in range(1, MAX_TIER + 1):
        img = f'<img src="{filled if n <= tier else empty}" width="{size}" height="{size}">'
        parts.append(f'<a href="trust:{n}" style="text-decoration:none;">{img}</a>' if n <= link_up_to else img)
    return "&#8202;".join(parts)


# --- validation ------------------------------------------------------------------------------

def verdict_icon_name(verdict: Verdict) -> str:
    return "valid" if verdict.valid else "invalid"


def verdict_colour(verdict: Verdict, t: Tokens) -> str:
    return t.success if verdict.valid else t.error


def draw_verdict(painter: QPainter, rect: QRect, verdict: Verdict, t: Tokens) -> None:
    """The validation mark: a muted check when the strict check passes, a red mark when it fails."""
    painter.save()
    painter.setRenderHint(QPainter.Antialiasing, True)
    draw_icon(painter, rect, verdict_icon_name(verdict), verdict_colour(verdict, t))
    painter.restore()


def verdict_icon(verdict: Verdict, t: Tokens, size: int = 16) -> QIcon:
    return icon(verdict_icon_name(verdict), verdict_colour(verdict, t), size)


def icon_size(height: int) -> QSize:
    side = max(10, height)
    return QSize(side, side)


# --- a card's badge, tag chips and score bars ---------------------------------------------------

def draw_badge(painter: QPainter, rect: QRect, lifecycle: Lifecycle, font: QFont) -> None:
    """A lifecycle badge: its label on its colour, in a pill."""
    painter.setPen(Qt.NoPen)
    painter.setBrush(QColor(LIFECYCLE_COLORS[lifecycle]))
    painter.drawRoundedRect(QRectF(rect), rect.height() / 2, rect.height() / 2)
    painter.setFont(font)
    painter.setPen(QColor(ON_FILL))
    painter.drawText(rect, Qt.AlignCenter, lifecycle.label)



def draw_chip(painter: QPainter, rect: QRect, text: str, font: QFont, t: Tokens) -> None:
    """A tag chip: ``text`` in an outlined, rounded box."""
    path = QPainterPath()
    path.addRoundedRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
    painter.setPen(QPen(QColor(t.border), 1))
    painter.setBrush(QColor(t.surface_alt))
    painter.drawPath(path)
    painter.setFont(font)
    painter.setPen(QColor(t.text_muted))
    painter.drawText(rect, Qt.AlignCenter, text)



def draw_bar(painter: QPainter, bar: QRect, frac: float, colour: str, t: Tokens) -> None:
    """A score bar filled to ``frac`` (0-1) in ``colour``."""
    painter.setPen(Qt.NoPen)
    painter.setBrush(QColor(t.bar_back))
    painter.drawRoundedRect(QRectF(bar), 3, 3)
    if frac > 0:
        painter.setBrush(QColor(colour))
        painter.drawRoundedRect(QRectF(bar.left(), bar.top(), max(bar.height(), bar.width() * frac),
                                       bar.height()), 3, 3)
