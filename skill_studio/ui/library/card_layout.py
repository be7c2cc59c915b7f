"""A card's geometry: its fonts, the rectangles of its parts, the grid of cards, the tag chips that
fit and the description's lines; one layout serves painting, size hints, clicks and tooltips."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF, QPainter, QPen, QPixmap, QTextLayout, QTextLine

from skill_studio.ui.library.marks import stars_width
from skill_studio.ui.theme import Tokens

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


class Advances:
    """A font's metrics with the advances of the short words cards repeat (tags, "+2", "v3")
    remembered: measuring a word shapes it again each time."""

    LIMIT = 4096   # words remembered; then forgotten all at once and measured again

    def __init__(self, font: QFont):
        self.metrics = QFontMetrics(font)
        self._known: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        known = self._known.get(text)
        if known is None:
            if len(self._known) >= self.LIMIT:
                self._known.clear()
            known = self._known[text] = self.metrics.horizontalAdvance(text)
        return known

    def horizontalAdvance(self, text: str) -> int:
        return self(text)

    def elidedText(self, text: str, mode, width: int) -> str:
        return self.metrics.elidedText(text, mode, width)


def tag_chips(row: QRect, font: QFont, tags: list[str], metrics: Advances | None = None
              ) -> tuple[list[tuple[QRect, str, str]], QRect, str]:
    """The chips of a card's tags row: (rectangle, text shown, tag) each, then where the "+N" of the
    tags left out goes and its text ('' when every tag is shown). ``metrics``: the font's, if kept."""
    fm: Advances | QFontMetrics = metrics if metrics is not None else QFontMetrics(font)
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
    return [line for line, _wide in laid_lines(text, font, width, max_lines)]


def laid_lines(text: str, font: QFont, width: int, max_lines: int) -> list[tuple[str, float]]:
    """:func:`elided_lines` with the width each line takes (its natural width; ``width`` at most for
    the elided last line)."""
    text = " ".join(text.split())
    if not text or width <= 0:
        return []
    _layout, laid = _wrap(text, font, width, max_lines)
    spans = [(line.textStart(), line.textLength(), line.naturalTextWidth()) for line in laid]
    lines = [(text[s:s + n].rstrip(), wide) for s, n, wide in spans]
    if spans:
        start = spans[-1][0]
        rest = text[start:]
        if len(rest) > spans[-1][1]:
            lines[-1] = (QFontMetrics(font).elidedText(rest, Qt.ElideRight, width), float(width))
    return lines


def _wrap(text: str, font: QFont, width: int, max_lines: int) -> tuple[QTextLayout, list[QTextLine]]:
    """``text`` laid out in lines ``width`` wide, at most ``max_lines`` of them, and its layout."""
    layout = QTextLayout(text, font)
    lines: list[QTextLine] = []
    layout.beginLayout()
    while len(lines) < max_lines:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        lines.append(line)
    layout.endLayout()
    return layout, lines


class LineDrawer:
    """Draws one line of text left-aligned and centred vertically in a rectangle, exactly as
    ``QPainter.drawText(rect, Qt.AlignLeft | Qt.AlignVCenter, text)`` does, but at its baseline
    when that is the same (the text is shaped once, not laid out in the rectangle first): for text
    every glyph of which the font has (ASCII, and the ellipsis when the font has it), that fits the
    rectangle."""

    def __init__(self, font: QFont):
        self._font = QFont(font)
        metrics = QFontMetricsF(font)
        self._ascent = metrics.ascent()
        self._height = metrics.ascent() + metrics.descent()
        self._metrics = QFontMetrics(font)
        self._ellipsis = self._metrics.inFont("\u2026")

    def plain(self, text: str) -> bool:
        """Whether ``text`` is drawn with the font's own glyphs only."""
        if text.endswith("\u2026") and self._ellipsis:
            text = text[:-1]
        return text.isascii() and text.isprintable()

    def draw(self, painter: QPainter, rect: QRect, text: str, wide: float) -> None:
        """Draw ``text`` (``wide`` pixels wide) in ``rect``: the painter's font must be this font."""
        if wide <= rect.width() and self._height <= rect.height() and self.plain(text):
            y = rect.top() + (rect.height() - self._height) / 2 + self._ascent
            painter.drawText(QPointF(rect.left(), y), text)
        else:
            painter.drawText(rect, Qt.AlignLeft | Qt.AlignVCenter, text)

    def draw_wrapped(self, painter: QPainter, text: str, box: QRect, line_height: int, max_lines: int) -> None:
        """Draw ``text`` as :meth:`draw` draws each line of ``elided_lines(text, font, box.width(),
        max_lines)`` in rows ``line_height`` high from the top of ``box``; the lines the text is
        wrapped into are drawn from that layout (shaped once) where that is the same (text of
        the font's own glyphs only)."""
        text = " ".join(text.split())
        width = box.width()
        if not text or width <= 0:
            return
        _layout, lines = _wrap(text, self._font, width, max_lines)   # (the lines live as long as their layout)
        last = len(lines) - 1
        plain = self.plain(text)   # one run of the font's own glyphs: each line is as if shaped alone
        for i, line in enumerate(lines):
            start, length = line.textStart(), line.textLength()
            rect = QRect(box.left(), box.top() + i * line_height, width, line_height)
            if i == last and len(text) - start > length:   # text remains: the rest, elided
                self.draw(painter, rect, self._metrics.elidedText(text[start:], Qt.ElideRight, width), width)
                continue
            words = text[start:start + length].rstrip()
            wide = line.naturalTextWidth()
            if plain and wide <= width and self._height <= line_height:
                baseline = rect.top() + (line_height - self._height) / 2 + self._ascent
                line.draw(painter, QPointF(rect.left(), baseline - line.y() - line.ascent()))
            else:
                self.draw(painter, rect, words, wide)


class CardKit:
    """The colours and metrics every card of one set of fonts and one theme draws with."""

    def __init__(self, fonts: CardFonts, t: Tokens, style: tuple[str, int]):
        self.fonts = fonts
        self.tokens = t
        self.style = style
        self.text, self.muted = QColor(t.text), QColor(t.text_muted)
        self.name = QFontMetrics(fonts.name)
        self.base = Advances(fonts.base)
        self.small = Advances(fonts.small)
        self.lines = LineDrawer(fonts.base)
        self.title = LineDrawer(fonts.name)
        self.line_height = self.base.metrics.lineSpacing()
        self._meta: dict[tuple, tuple[QRect, QRect, tuple[int, int]]] = {}

    def meta(self, geo: CardLayout, left: bool, words: str) -> tuple[QRect, QRect, tuple[int, int]]:
        """Where ``words`` of the meta row go (after the stars when ``left``, else at its right
        end): the text's rectangle, the part drawn on (its room: ink may stand out of the advance)
        and the text's rectangle's edges from the part's."""
        key = (left, words, geo.card.width(), geo.card.height(), geo.card.topLeft().toTuple())
        found = self._meta.get(key)
        if found is None:
            rect = geo.meta_row.adjusted(geo.stars.width() + 8, 0, 0, 0) if left else geo.meta_row
            wide = self.base(words) + 2 * PAD
            part = rect.adjusted(0, 0, wide - rect.width(), 0) if left else rect.adjusted(rect.width() - wide, 0, 0, 0)
            part = part.intersected(geo.card.adjusted(1, 1, -1, -1))
            if len(self._meta) >= Advances.LIMIT:
                self._meta.clear()
            found = self._meta[key] = (rect, part, (rect.left() - part.left(), rect.right() - part.right()))
        return found


# --- the parts many cards share (drawn at ``rect``, each setting all it draws with) ------------

def draw_frame(painter: QPainter, geo: CardLayout, border: str, back: str, font: QFont, t: Tokens) -> None:
    painter.setPen(QPen(QColor(border), 1))
    painter.setBrush(QColor(back))
    painter.drawRoundedRect(QRectF(geo.card).adjusted(0.5, 0.5, -0.5, -0.5), RADIUS, RADIUS)
    draw_label(painter, geo.utility_label, "Utility", font, t)
    draw_label(painter, geo.freshness_label, "Freshness", font, t)


def draw_text(painter: QPainter, rect: QRect, align, text: str, font: QFont, colour: QColor) -> None:
    painter.setFont(font)
    painter.setPen(colour)
    painter.drawText(rect, align | Qt.AlignVCenter, text)


def draw_label(painter: QPainter, rect: QRect, label: str, font: QFont, t: Tokens) -> None:
    painter.setFont(font)
    painter.setPen(QColor(t.text_muted))
    painter.drawText(rect, Qt.AlignLeft | Qt.AlignVCenter, label)


def sketch_card(painter: QPainter, geo: CardLayout, kit: CardKit, name: str, description: str,
                frame: QPixmap | None, border: str, back: str) -> None:
    """A quick stand-in for a card at (0, 0) while the view jumps through the cards: its frame
    (``frame``, its kept picture, or drawn in ``border`` and ``back``), its name and the start of its
    description, each clipped to its place (nothing measured, elided or wrapped)."""
    if frame is not None:
        painter.drawPixmap(0, 0, frame)
    else:
        draw_frame(painter, geo, border, back, kit.fonts.small, kit.tokens)
    painter.setFont(kit.fonts.name)
    painter.setPen(kit.text)
    painter.drawText(geo.name_row, Qt.AlignLeft | Qt.AlignVCenter, name)
    line = QRect(geo.description.left(), geo.description.top(), geo.description.width(), kit.line_height)
    words = " ".join(description[:line.width() // 3].split())   # more than the line holds
    painter.setFont(kit.fonts.base)
    painter.drawText(line, Qt.AlignLeft | Qt.AlignVCenter, words)
