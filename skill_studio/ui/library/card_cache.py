"""Painted cards kept as pixmaps, so a card shown again (scrolling back and forth, a hover, a
verdict coming in for its neighbour) is copied instead of laid out and drawn again.

A card's key holds everything its picture depends on: the fields the card shows, its verdict, its
state (selected, hovered, focused), its size, the font, the theme's colours, the device pixel ratio
and the background under it. A skill that changes, a new theme or a new width make a new key, so
nothing stale is ever shown; old pictures fall out of the least-recently-used end of a cache bounded
in bytes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QAbstractScrollArea, QStyleOptionViewItem

from skill_studio.core.format.verdict import Verdict
from skill_studio.core.model import Skill

#: What the pictures may take together (about 400 cards of 300 x 150 at a device pixel ratio of 1,
#: 100 at a ratio of 2).
BUDGET_BYTES = 72 * 1024 * 1024
#: What the parts many cards share (star rows, badges, tag chips, marks) may take together.
PART_BUDGET = 8 * 1024 * 1024


def card_content(skill: Skill, verdict: Verdict | None) -> tuple:
    """What a card shows of ``skill`` and its verdict (the painted fields, nothing else)."""
    return (skill.name, str(skill.lifecycle), bool(skill.pinned), int(skill.trust_tier),
            str(getattr(skill.origin, "value", skill.origin)), skill.version, skill.description or "",
            tuple(skill.tags), float(skill.utility_score or 0.0), float(skill.freshness or 0.0),
            None if verdict is None else bool(verdict.valid))


class CardPixmaps:
    """A least-recently-used cache of card pictures, bounded by :attr:`budget` bytes."""

    def __init__(self, budget: int = BUDGET_BYTES):
        self.budget = budget
        self._items: OrderedDict[Hashable, QPixmap] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def bytes(self) -> int:
        return self._bytes

    def get(self, key: Hashable) -> QPixmap | None:
        pixmap = self._items.get(key)
        if pixmap is not None:
            self._items.move_to_end(key)
        return pixmap

    def put(self, key: Hashable, pixmap: QPixmap) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self._bytes -= _size(old)
        self._items[key] = pixmap
        self._bytes += _size(pixmap)
        while self._bytes > self.budget and len(self._items) > 1:
            _key, dropped = self._items.popitem(last=False)
            self._bytes -= _size(dropped)

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0


def _size(pixmap: QPixmap) -> int:
    return pixmap.width() * pixmap.height() * 4


def background_of(option: QStyleOptionViewItem) -> QColor | None:
    """The plain colour under a cell of the view that paints ``option``, or None when it is not one
    opaque colour (a picture copied over it would then not match what is under it)."""
    widget = option.widget
    target = widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget
    if target is None:
        brush = option.palette.brush(QPalette.Base)
    elif target.autoFillBackground():
        brush = target.palette().brush(target.backgroundRole())
    else:
        return None
    if brush.style() != Qt.SolidPattern or brush.color().alpha() != 255:
        return None
    return brush.color()


def paint_through(cache: CardPixmaps, painter: QPainter, option: QStyleOptionViewItem, key: Hashable,
                  paint: Callable[[QPainter], None], back: QColor | None) -> None:
    """Copy the picture of the cell ``key`` names into ``option.rect``, drawn first with ``paint``
    (which draws the cell at ``option.rect``) when it is not cached. Where a copy could differ from
    drawing in place (a fractional device pixel ratio, a background ``back`` that is not one colour:
    None), the cell is drawn in place."""
    ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
    if back is None or ratio != int(ratio) or ratio < 1:
        paint(painter)
        return
    rect = option.rect
    full = (key, rect.width(), rect.height(), ratio, back.rgba())
    pixmap = cache.get(full)
    if pixmap is None:
        pixmap = QPixmap(rect.width() * int(ratio), rect.height() * int(ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(back)
        inner = QPainter(pixmap)
        inner.translate(-rect.left(), -rect.top())
        paint(inner)
        inner.end()
        cache.put(full, pixmap)
    painter.drawPixmap(rect.topLeft(), pixmap)


def blit_part(cache: CardPixmaps | None, painter: QPainter, rect: QRect, back: QColor, key: Hashable,
              draw: Callable[[QPainter, QRect], None]) -> None:
    """Draw a part of a card that sits on the plain colour ``back`` (a star row, a badge, a tag
    chip): ``draw(painter, rect)`` draws it; its picture is kept in ``cache`` under ``key`` and
    copied the next times. Without a cache, or on a fractional device pixel ratio, it is drawn in
    place."""
    device = painter.device()
    ratio = device.devicePixelRatioF() if device is not None else 1.0
    if cache is None or ratio != int(ratio) or ratio < 1 or rect.isEmpty():
        draw(painter, rect)
        return
    full = (key, rect.width(), rect.height(), ratio, back.rgba())
    pixmap = cache.get(full)
    if pixmap is None:
        pixmap = QPixmap(rect.width() * int(ratio), rect.height() * int(ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(back)
        inner = QPainter(pixmap)
        inner.setRenderHints(painter.renderHints())
        draw(inner, QRect(0, 0, rect.width(), rect.height()))
        inner.end()
        cache.put(full, pixmap)
    painter.drawPixmap(rect.topLeft(), pixmap)
