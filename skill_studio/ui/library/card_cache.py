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

from PySide6.QtCore import QPoint, QRect, QSize, Qt
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

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

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
                  paint: Callable[[QPainter, bool], None], back: QColor | None,
                  base: Callable[[float], QPixmap | None] | None = None) -> None:
    """Copy the picture of the cell ``key`` names into ``option.rect``, drawn first with
    ``paint(painter, based)`` (which draws the cell with its top left corner at (0, 0)) when it is not
    cached. ``base(ratio)``, when given, is a picture of the cell's size the drawing starts from
    instead of the plain ``back``; ``based`` says whether it did (``paint`` leaves out what it
    holds). Where a copy could differ from drawing in place (a fractional device pixel ratio, a
    background ``back`` that is not one colour: None), the cell is drawn in place."""
    device = painter.device()
    ratio = device.devicePixelRatioF() if device is not None else 1.0
    rect = option.rect
    pixmap = picture(cache, ratio, rect.size(), key, paint, back, base)
    if pixmap is None:
        paint_at(painter, rect.topLeft(), lambda p: paint(p, False))
    else:
        painter.drawPixmap(rect.topLeft(), pixmap)


def picture(cache: CardPixmaps, ratio: float, size: QSize, key: Hashable, paint: Callable[[QPainter, bool], None],
            back: QColor | None, base: Callable[[float], QPixmap | None] | None = None) -> QPixmap | None:
    """The kept picture of the cell ``key`` names, ``size`` big at the device pixel ratio ``ratio``
    (see :func:`paint_through`), drawn and kept first when it is not yet; None where a picture could
    differ from drawing in place."""
    if back is None or ratio != int(ratio) or ratio < 1:
        return None
    full = (key, size.width(), size.height(), ratio, back.rgba())
    pixmap = cache.get(full)
    if pixmap is None:
        pixmap = render(size.width(), size.height(), ratio, back, paint, base)
        cache.put(full, pixmap)
    return pixmap


def cached(cache: CardPixmaps, ratio: float, size: QSize, key: Hashable, back: QColor | None) -> bool:
    """Whether the picture :func:`picture` gives for these is kept already."""
    return back is not None and (key, size.width(), size.height(), ratio, back.rgba()) in cache


def paint_at(painter: QPainter, at: QPoint, paint: Callable[[QPainter], None]) -> None:
    """Run ``paint`` (which draws at (0, 0)) with ``painter`` moved to ``at``."""
    painter.translate(at)
    try:
        paint(painter)
    finally:
        painter.translate(-at)


def render(width: int, height: int, ratio: float, back: QColor, paint: Callable[[QPainter, bool], None],
           base: Callable[[float], QPixmap | None] | None = None) -> QPixmap:
    """A picture ``width`` x ``height`` (logical pixels) at the device pixel ratio ``ratio`` painted
    by ``paint(painter, based)``, over ``base(ratio)`` when there is one (``based``), else over the
    plain ``back``."""
    start = base(ratio) if base is not None else None
    if start is not None:
        pixmap = QPixmap(start)   # shared until painted: the painter below copies it
    else:
        pixmap = QPixmap(width * int(ratio), height * int(ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(back)
    inner = QPainter(pixmap)
    paint(inner, start is not None)
    inner.end()
    return pixmap


def part_pixmap(cache: CardPixmaps, ratio: float, size: QSize, back: QColor, key: Hashable,
                draw: Callable[[QPainter, QRect], None], hints: QPainter.RenderHint | None = None) -> QPixmap:
    """The kept picture of a part (see :func:`blit_part`) ``size`` big at the device pixel ratio
    ``ratio``, drawn and kept first when it is not yet."""
    full = (key, size.width(), size.height(), ratio, back.rgba())
    pixmap = cache.get(full)
    if pixmap is None:
        pixmap = QPixmap(size.width() * int(ratio), size.height() * int(ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(back)
        inner = QPainter(pixmap)
        if hints is not None:
            inner.setRenderHints(hints)
        draw(inner, QRect(0, 0, size.width(), size.height()))
        inner.end()
        cache.put(full, pixmap)
    return pixmap


class PartBlitter:
    """Draws the parts of one card that sit on its plain colour ``back`` (see :func:`blit_part`)
    through ``cache``; what every part of the card shares (the device pixel ratio, the colour) is
    read once."""

    def __init__(self, cache: CardPixmaps | None, painter: QPainter, back: QColor):
        device = painter.device()
        self.ratio = device.devicePixelRatioF() if device is not None else 1.0
        self.cache = cache if self.ratio == int(self.ratio) and self.ratio >= 1 else None
        self.painter = painter
        self.back = back
        self._shade = back.rgba()

    def __call__(self, rect: QRect, key: Hashable, draw: Callable[[QPainter, QRect], None]) -> None:
        cache = self.cache
        if cache is None or rect.isEmpty():
            draw(self.painter, rect)
            return
        pixmap = cache.get((key, rect.width(), rect.height(), self.ratio, self._shade))
        if pixmap is None:
            pixmap = part_pixmap(cache, self.ratio, rect.size(), self.back, key, draw, self.painter.renderHints())
        self.painter.drawPixmap(rect.topLeft(), pixmap)


def blit_part(cache: CardPixmaps | None, painter: QPainter, rect: QRect, back: QColor, key: Hashable,
              draw: Callable[[QPainter, QRect], None]) -> None:
    """Draw a part of a card that sits on the plain colour ``back`` (a star row, a badge, a tag
    chip): ``draw(painter, rect)`` draws it; its picture is kept in ``cache`` under ``key`` and
    copied the next times. Without a cache, or on a fractional device pixel ratio, it is drawn in
    place."""
    PartBlitter(cache, painter, back)(rect, key, draw)
