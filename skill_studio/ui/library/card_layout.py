"""A card's geometry: its fonts, the rectangles of its parts, the grid of cards, the tag chips that
fit and the description's lines; one layout serves painting, size hints, clicks and tooltips."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QTextLayout

from skill_studio.ui.library.marks import stars_width

CARD_WIDTH = 300  # a card's width until the view says how wide its columns are
MIN_CARD_WIDTH = 260
MAX_CARD_WIDTH = 520
MARGIN = 5        # around each card, inside its cell of the view
PAD = 10          # inside the card border
GAP = 5           # between rows
DESC_LINES = 3
MAX_TAGS = 4
RADIUS = 6


@dataclass(frozen=True)
class CardFonts:
    """The fonts of a card, derived from the view's font."""

    base: QFont
    name: QFont
    small: QFont

    @classmethod
    def of(cls, font: QFont) -> CardFonts:
        name = QFont(font)
        name.setBold(True)
        name.setPointSizeF(font.pointSizeF() + 1 if font.pointSizeF() > 0 else 10)
        small = QFont(font)
        small.setPointSizeF(max(6.5, font.pointSizeF() * 0.85) if font.pointSizeF() > 0 else 8)
        return cls(QFont(font), name, small)  # a copy: the view's option dies after the call


@dataclass
class CardLayout:
    """Every rectangle of one card, in view coordinates."""

    card: QRect
    name_row: QRect
    meta_row: QRect
    stars: QRect
    description: QRect
    tags_row: QRect
    utility_label: QRect
    utility_bar: QRect
    freshness_label: QRect
    freshness_bar: QRect
    badge: QRect = field(default_factory=QRect)
    verdict: QRect = field(default_factory=QRect)   # the validation mark
    pin: QRect = field(default_factory=QRect)       # empty unless pinned


def columns_for(width: int) -> tuple[int, int]:
    """(columns, cell width) of a card grid ``width`` pixels wide: as many columns as cards of at
    least MIN_CARD_WIDTH fit, sharing the width evenly (at most MAX_CARD_WIDTH each)."""
    n = max(1, width // MIN_CARD_WIDTH)
    return n, max(1, min(MAX_CARD_WIDTH, (width - 2) // n))   # 2: the list view wraps at its edge


def card_size(fonts: CardFonts, width: int = CARD_WIDTH) -> QSize:
    """The size of every card (its margin included) for these fonts, ``width`` wide."""
    size = card_layout(QRect(0, 0, width - 2 * MARGIN, 10_000), fonts).card.size()
    return QSize(width, size.height() + 2 * MARGIN)


def card_layout(rect: QRect, fonts: CardFonts, lifecycle_label: str = "Candidate", pinned: bool = False) -> CardLayout:
    """The rectangles of a card drawn at the top left of ``rect`` (width from ``rect``)."""
    base, name, small = (QFontMetrics(f) for f in (fonts.base, fonts.name, fonts.small))
    left = rect.left() + 1 + PAD
    width = rect.width() - 2 - 2 * PAD
    y = rect.top() + 1 + PAD

    badge_h = small.height() + 4
    row_h = max(name.height(), badge_h)
    badge_w = small.horizontalAdvance(lifecycle_label) + 14
    badge = QRect(left + width - badge_w, y + (row_h - badge_h) // 2, badge_w, badge_h)
    mark = badge_h
    verdict = QRect(badge.left() - 6 - mark, y + (row_h - mark) // 2, mark, mark)
    pin = QRect(verdict.left() - 4 - mark, verdict.top(), mark, mark) if pinned else QRect()
    name_row = QRect(left, y, (pin.left() if pinned else verdict.left()) - 6 - left, row_h)
    y += row_h + GAP - 2

    meta_row = QRect(left, y, width, base.height())
    star = max(8, base.height() - 3)
    stars = QRect(left, y + (base.height() - star) // 2, stars_width(star), star)
    y += meta_row.height() + GAP

    description = QRect(left, y, width, base.lineSpacing() * DESC_LINES)
    y += description.height() + GAP

    tags_row = QRect(left, y, width, small.height() + 4)
    y += tags_row.height() + GAP + 1

    label_h = small.height()
    half = (width - 12) // 2
    u_label_w = small.horizontalAdvance("Utility") + 6
    f_label_w = small.horizontalAdvance("Freshness") + 6
    bar_y = y + (label_h - 6) // 2
    utility_label = QRect(left, y, u_label_w, label_h)
    utility_bar = QRect(left + u_label_w, bar_y, half - u_label_w, 6)
    f_left = left + half + 12
    freshness_label = QRect(f_left, y, f_label_w, label_h)
    freshness_bar = QRect(f_left + f_label_w, bar_y, left + width - f_left - f_label_w, 6)
    y += label_h + PAD + 1

    card = QRect(rect.left(), rect.top(), rect.width(), y - rect.top())
    return CardLayout(card, name_row, meta_row, stars, description, tags_row, utility_label,
                      utility_bar, freshness_label, freshness_bar, badge, verdict, pin)


def tag_chips(row: QRect, font: QFont, tags: list[str]) -> tuple[list[tuple[QRect, str, str]], QRect, str]:
    """The chips of a card's tags row: (rectangle, text shown, tag) each, then where the "+N" of the
    tags left out goes and its text ('' when every tag is shown)."""
    fm = QFontMetrics(font)
    x, right = row.left(), row.right()
    chips: list[tuple[QRect, str, str]] = []
    shown = tags[:MAX_TAGS]
    for i, tag in enumerate(shown):
        more = len(tags) - i - 1
        reserve = fm.horizontalAdvance(f"+{more}") + 6 if more else 0
        room = right - x - reserve
        w = fm.horizontalAdvance(tag) + 12
        text = tag
        if w > room:
            if room < fm.horizontalAdvance("…") + 24:
                return chips, QRect(x, row.top(), right - x, row.height()), f"+{len(tags) - i}"
            text, w = fm.elidedText(tag, Qt.ElideRight, room - 12), room
        chips.append((QRect(x, row.top(), w, row.height()), text, tag))
        x += w + 4
    rest = f"+{len(tags) - len(shown)}" if len(tags) > len(shown) else ""
    return chips, QRect(x, row.top(), max(0, right - x), row.height()), rest


def elided_lines(text: str, font: QFont, width: int, max_lines: int) -> list[str]:
    """``text`` wrapped to ``width``; at most ``max_lines`` lines, the last elided if text remains."""
    text = " ".join(text.split())
    if not text or width <= 0:
        return []
    layout = QTextLayout(text, font)
    spans: list[tuple[int, int]] = []
    layout.beginLayout()
    while len(spans) < max_lines:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        spans.append((line.textStart(), line.textLength()))
    layout.endLayout()
    lines = [text[s:s + n].rstrip() for s, n in spans]
    if spans:
        start = spans[-1][0]
        rest = text[start:]
        if len(rest) > spans[-1][1]:
            lines[-1] = QFontMetrics(font).elidedText(rest, Qt.ElideRight, width)
    return lines
