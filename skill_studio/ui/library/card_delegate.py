"""Paints one skill card per row; one layout function serves painting, size hints and tooltips."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen, QTextLayout
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QToolTip

from skill_studio.core.format.verdict import Verdict
from skill_studio.core.model import Lifecycle, Skill, TrustTier
from skill_studio.ui.library.marks import draw_icon, draw_stars, draw_verdict, star_at, stars_width
from skill_studio.ui.library.models import NAME_ROLE, SKILL_ROLE, VERDICT_ROLE
from skill_studio.ui.safe_text import literal
from skill_studio.ui.theme import LIFECYCLE_COLORS, ON_FILL, Tokens, current_tokens

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


class CardDelegate(QStyledItemDelegate):
    """A card per skill: name, validation mark, pin, lifecycle badge, trust stars, origin, version,
    description, clickable tags and utility/freshness bars. Rows whose card is not loaded get a light
    placeholder. The view sets :attr:`card_width` (its columns' width) and lays the cards out again."""

    starClicked = Signal(str, int)   # skill name, the trust tier of the star clicked
    tagClicked = Signal(str)         # a tag chip was clicked

    def __init__(self, parent=None, tokens: Tokens | None = None):
        super().__init__(parent)
        self._tokens = tokens
        self._fonts: tuple[QFont, CardFonts, QSize] | None = None
        self.card_width = CARD_WIDTH

    def tokens(self) -> Tokens:
        return self._tokens or current_tokens()

    def _card_fonts(self, font: QFont) -> CardFonts:
        if self._fonts is None or self._fonts[0] != font or self._fonts[2].width() != self.card_width:
            fonts = CardFonts.of(font)
            self._fonts = (QFont(font), fonts, card_size(fonts, self.card_width))
        return self._fonts[1]

    def _layout(self, option, skill: Skill | None) -> CardLayout:
        label = Lifecycle(skill.lifecycle).label if skill is not None else "Candidate"
        rect = option.rect.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
        return card_layout(rect, self._card_fonts(option.font), label, bool(skill is not None and skill.pinned))

    # --- Qt delegate ------------------------------------------------------------

    def sizeHint(self, option, index) -> QSize:
        self._card_fonts(option.font)
        assert self._fonts is not None
        return QSize(self._fonts[2])

    def paint(self, painter: QPainter, option, index) -> None:
        skill = index.data(SKILL_ROLE)
        t = self.tokens()
        fonts = self._card_fonts(option.font)
        geo = self._layout(option, skill)
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setRenderHint(QPainter.TextAntialiasing, True)

        selected = bool(option.state & QStyle.State_Selected)
        hovered = bool(option.state & QStyle.State_MouseOver)
        back = t.selection if selected else t.surface_alt if hovered else t.surface
        border = t.accent if selected else t.border
        card = QRectF(geo.card).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(QPen(QColor(border), 1))
        painter.setBrush(QColor(back))
        painter.drawRoundedRect(card, RADIUS, RADIUS)

        if skill is None:
            self._paint_placeholder(painter, geo, t)
        else:
            self._paint_skill(painter, geo, fonts, skill, index.data(VERDICT_ROLE), t)
        if option.state & QStyle.State_HasFocus and selected:
            painter.setPen(QPen(QColor(t.accent), 1, Qt.DotLine))
            painter.setBrush(Qt.NoBrush)
            painter.drawRoundedRect(card.adjusted(2, 2, -2, -2), RADIUS - 2, RADIUS - 2)
        painter.restore()

    def _paint_placeholder(self, painter: QPainter, geo: CardLayout, t: Tokens) -> None:
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(t.bar_back))
        for rect, frac in ((geo.name_row, 0.6), (geo.meta_row, 0.35), (geo.description, 0.9)):
            r = QRectF(rect.left(), rect.top() + 3, rect.width() * frac, min(rect.height() - 6, 10))
            painter.drawRoundedRect(r, 3, 3)

    def _paint_skill(self, painter: QPainter, geo: CardLayout, fonts: CardFonts, skill: Skill,
                     verdict: Verdict | None, t: Tokens) -> None:
        text, muted = QColor(t.text), QColor(t.text_muted)

        painter.setFont(fonts.name)
        painter.setPen(text)
        name = QFontMetrics(fonts.name).elidedText(skill.name, Qt.ElideRight, geo.name_row.width())
        painter.drawText(geo.name_row, Qt.AlignLeft | Qt.AlignVCenter, name)
        if verdict is not None:
            draw_verdict(painter, geo.verdict, verdict, t)
        if skill.pinned:
            draw_icon(painter, geo.pin, "pin", t.text_muted)

        lifecycle = Lifecycle(skill.lifecycle)
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(LIFECYCLE_COLORS[lifecycle]))
        painter.drawRoundedRect(QRectF(geo.badge), geo.badge.height() / 2, geo.badge.height() / 2)
        painter.setFont(fonts.small)
        painter.setPen(QColor(ON_FILL))
        painter.drawText(geo.badge, Qt.AlignCenter, lifecycle.label)

        fm = QFontMetrics(fonts.base)
        painter.setFont(fonts.base)
        draw_stars(painter, geo.stars, int(skill.trust_tier), t)
        painter.setPen(muted)
        origin = getattr(skill.origin, "value", skill.origin)
        after_stars = geo.meta_row.adjusted(geo.stars.width() + 8, 0, 0, 0)
        painter.drawText(after_stars, Qt.AlignLeft | Qt.AlignVCenter, f"·  {origin}")
        painter.drawText(geo.meta_row, Qt.AlignRight | Qt.AlignVCenter, f"v{skill.version}")

        painter.setPen(text)
        line_h = fm.lineSpacing()
        for i, line in enumerate(elided_lines(skill.description or "", fonts.base,
                                              geo.description.width(), DESC_LINES)):
            r = QRect(geo.description.left(), geo.description.top() + i * line_h,
                      geo.description.width(), line_h)
            painter.drawText(r, Qt.AlignLeft | Qt.AlignVCenter, line)

        self._paint_tags(painter, geo.tags_row, fonts.small, skill.tags, t)
        self._paint_bar(painter, geo.utility_label, geo.utility_bar, "Utility", skill.utility_score,
                        t.bar_utility, fonts.small, t)
        self._paint_bar(painter, geo.freshness_label, geo.freshness_bar, "Freshness", skill.freshness,
                        t.bar_freshness, fonts.small, t)

    def _paint_tags(self, painter: QPainter, row: QRect, font: QFont, tags: list[str], t: Tokens) -> None:
        painter.setFont(font)
        chips, rest_rect, rest = tag_chips(row, font, tags)
        for chip, text, _tag in chips:
            path = QPainterPath()
            path.addRoundedRect(QRectF(chip).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
            painter.setPen(QPen(QColor(t.border), 1))
            painter.setBrush(QColor(t.surface_alt))
            painter.drawPath(path)
            painter.setPen(QColor(t.text_muted))
            painter.drawText(chip, Qt.AlignCenter, text)
        if rest:
            painter.setPen(QColor(t.text_muted))
            painter.drawText(rest_rect, Qt.AlignLeft | Qt.AlignVCenter, rest)

    def _paint_bar(self, painter: QPainter, label_rect: QRect, bar: QRect, label: str, value: float,
                   colour: str, font: QFont, t: Tokens) -> None:
        painter.setFont(font)
        painter.setPen(QColor(t.text_muted))
        painter.drawText(label_rect, Qt.AlignLeft | Qt.AlignVCenter, label)
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(t.bar_back))
        painter.drawRoundedRect(QRectF(bar), 3, 3)
        frac = min(1.0, max(0.0, float(value or 0.0)))
        if frac > 0:
            painter.setBrush(QColor(colour))
            painter.drawRoundedRect(QRectF(bar.left(), bar.top(), max(bar.height(), bar.width() * frac),
                                           bar.height()), 3, 3)

    # --- what is under the mouse ---------------------------------------------------

    def tag_at(self, option, index, pos: QPoint) -> str | None:
        """The tag whose chip is under ``pos`` on this card, or None."""
        skill = index.data(SKILL_ROLE) if index.isValid() else None
        if skill is None:
            return None
        geo = self._layout(option, skill)
        chips, _rect, _rest = tag_chips(geo.tags_row, self._card_fonts(option.font).small, skill.tags)
        return next((tag for rect, _text, tag in chips if rect.contains(pos)), None)

    def clickable_at(self, option, index, pos: QPoint) -> bool:
        """Whether a click at ``pos`` does something of its own (a tag chip, a star)."""
        return self.tag_at(option, index, pos) is not None or self.star_at(option, index, pos) is not None

    def tooltip_text(self, option, index, pos: QPoint) -> str | None:
        """What the card says at ``pos`` (view coordinates): the trust tier over the stars, what a
        tag chip does, the score over a bar, the lifecycle (and why) over the badge, the strict
        check over its mark, else the full description."""
        skill = index.data(SKILL_ROLE) if index.isValid() else None
        if skill is None:
            return None
        geo = self._layout(option, skill)
        if geo.stars.contains(pos):
            return TrustTier(int(skill.trust_tier)).label
        tag = self.tag_at(option, index, pos)
        if tag is not None:
            return f"Show skills tagged {tag}"
        if geo.verdict.contains(pos):
            verdict = index.data(VERDICT_ROLE)
            return verdict.summary() if verdict is not None else "Checking…"
        if skill.pinned and geo.pin.contains(pos):
            return "Pinned: the health check leaves it where it is"
        if geo.utility_bar.united(geo.utility_label).contains(pos):
            return f"Utility {skill.utility_score:.2f}"
        if geo.freshness_bar.united(geo.freshness_label).contains(pos):
            return f"Freshness {skill.freshness:.2f}"
        if geo.badge.contains(pos):
            reason = f": {skill.lifecycle_reason}" if skill.lifecycle_reason else ""
            return Lifecycle(skill.lifecycle).label + reason
        return skill.description or skill.name

    def star_at(self, option, index, pos: QPoint) -> int | None:
        """The trust tier (1-4) of the star under ``pos`` on this card, or None."""
        skill = index.data(SKILL_ROLE) if index.isValid() else None
        if skill is None:
            return None
        geo = self._layout(option, skill)
        if not geo.stars.adjusted(0, -2, 0, 2).contains(pos):
            return None
        return star_at(geo.stars, pos.x())

    def editorEvent(self, event, model, option, index) -> bool:
        # A click on a star sets the trust tier (the window decides whether it may); a click on a
        # tag chip filters by the tag.
        if event.type() == QEvent.MouseButtonRelease and event.button() == Qt.LeftButton:
            pos = event.position().toPoint()
            tier = self.star_at(option, index, pos)
            name = index.data(NAME_ROLE)
            if tier is not None and name:
                self.starClicked.emit(name, tier)
                return True
            tag = self.tag_at(option, index, pos)
            if tag is not None:
                self.tagClicked.emit(tag)
                return True
        return super().editorEvent(event, model, option, index)

    def helpEvent(self, event, view, option, index) -> bool:
        if event is None or event.type() != QEvent.ToolTip:
            return super().helpEvent(event, view, option, index)
        tip = self.tooltip_text(option, index, event.pos())
        if tip is None:
            return super().helpEvent(event, view, option, index)
        QToolTip.showText(event.globalPos(), literal(tip), view)
        return True
