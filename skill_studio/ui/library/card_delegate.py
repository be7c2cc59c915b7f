"""Paints one skill card per row (its geometry is card_layout's); cards shown again, and the parts
many cards share, are copied from pictures kept in card_cache."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QStyle, QStyledItemDelegate

from skill_studio.core.format.verdict import Verdict
from skill_studio.core.model import Lifecycle, Skill
from skill_studio.ui.library.card_cache import (
    PART_BUDGET,
    CardPixmaps,
    PartBlitter,
    background_of,
    cached,
    card_content,
    paint_at,
    paint_through,
    part_pixmap,
    picture,
)
from skill_studio.ui.library.card_layout import (  # noqa: F401 - the layout's names, as before
    CARD_WIDTH,
    DESC_LINES,
    MARGIN,
    MAX_CARD_WIDTH,
    MIN_CARD_WIDTH,
    PAD,
    RADIUS,
    CardFonts,
    CardKit,
    CardLayout,
    card_layout,
    card_size,
    columns_for,
    draw_frame,
    draw_label,
    draw_text,
    elided_lines,
    sketch_card,
    tag_chips,
)
from skill_studio.ui.library.card_pointer import CardPointer
from skill_studio.ui.library.marks import draw_badge, draw_bar, draw_chip, draw_icon, draw_stars, draw_verdict
from skill_studio.ui.library.models import SKILL_ROLE, VERDICT_ROLE
from skill_studio.ui.theme import Tokens, current_tokens


def _colours(state: tuple[bool, bool, bool], t: Tokens) -> tuple[str, str]:
    """(border, fill) of a card in ``state``."""
    selected, hovered, _focused = state
    return (t.accent if selected else t.border,
            t.selection if selected else t.surface_alt if hovered else t.surface)


_SELECTED, _HOVERED, _FOCUSED = (flag.value for flag in (QStyle.State_Selected, QStyle.State_MouseOver,
                                                          QStyle.State_HasFocus))


def _state(option) -> tuple[bool, bool, bool]:
    """(selected, hovered, focused) of the cell ``option`` paints."""
    flags = option.state.value   # as a number: a flag's own operators cost more than the rest
    return bool(flags & _SELECTED), bool(flags & _HOVERED), bool(flags & _FOCUSED)


class CardDelegate(CardPointer, QStyledItemDelegate):
    """A card per skill: name, validation mark, pin, lifecycle badge, trust stars, origin, version,
    description, clickable tags and utility/freshness bars. Rows whose card is not loaded get a light
    placeholder. The view sets :attr:`card_width` (its columns' width) and lays the cards out again."""

    starClicked = Signal(str, int)   # skill name, the trust tier of the star clicked
    tagClicked = Signal(str)         # a tag chip was clicked

    def __init__(self, parent=None, tokens: Tokens | None = None):
        super().__init__(parent)
        self._tokens = tokens
        self._fonts: tuple[QFont, CardFonts, QSize, str] | None = None
        self.card_width = CARD_WIDTH
        #: Painted cards, copied when shown again, and the parts many cards share (star rows,
        #: badges, tag chips, marks); None draws every card, or every part, in place.
        self.cache: CardPixmaps | None = CardPixmaps()
        self.parts: CardPixmaps | None = CardPixmaps(PART_BUDGET)
        self._theme_numbers: dict[Tokens, int] = {}
        self._theme_seen: tuple[Tokens, int] | None = None
        self._geos: dict[tuple, CardLayout] = {}   # cards' layouts at (0, 0), for the fonts of _fonts
        self._kits: dict[tuple[str, int], CardKit] = {}
        #: While the view jumps (a fast drag: every card in sight is new), a card not kept yet is
        #: sketched (its frame, name and the start of its description); the view has the cards in
        #: sight drawn in full as soon as the scrolling settles. ``sketched`` counts the sketches.
        self.sketching = False
        self.sketched = 0
        #: (view, the colour under its cells) while that view paints: read once, not at every card.
        self.painting: tuple[object, QColor | None] | None = None

    def tokens(self) -> Tokens:
        return self._tokens or current_tokens()

    def _theme_key(self, t: Tokens) -> int:
        """A small number per distinct set of colours, for the cache keys (hashing every colour of
        the theme at every card would cost more than the rest of a key)."""
        seen = self._theme_seen
        if seen is not None and seen[0] is t:
            return seen[1]
        number = self._theme_numbers.setdefault(t, len(self._theme_numbers))
        self._theme_seen = (t, number)
        return number

    def _card_fonts(self, font: QFont) -> CardFonts:
        if self._fonts is None or self._fonts[0] != font or self._fonts[2].width() != self.card_width:
            fonts = CardFonts.of(font)
            self._fonts = (QFont(font), fonts, card_size(fonts, self.card_width), font.key())
            self._geos = {}
            self._kits = {}
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
        verdict = index.data(VERDICT_ROLE) if skill is not None else None
        if self.cache is None or skill is None:
            t, fonts, state = self.tokens(), self._card_fonts(option.font), _state(option)
            w, h = option.rect.width(), option.rect.height()
            under = background_of(option) if skill is not None else None
            paint_at(painter, option.rect.topLeft(),
                     lambda p: self._paint_card(p, w, h, state, skill, verdict, t, fonts, under))
            return
        key, draw, under, base = self._plan(option, skill, verdict)
        if self.sketching and under is not None:
            device = painter.device()
            ratio = device.devicePixelRatioF() if device is not None else 1.0
            if not cached(self.cache, ratio, option.rect.size(), key, under):
                self._sketch(painter, option, skill, key[1], ratio, under)
                return
        paint_through(self.cache, painter, option, key, draw, under, base)

    def _sketch(self, painter: QPainter, option, skill: Skill, state: tuple[bool, bool, bool], ratio: float,
                under: QColor) -> None:
        """A quick stand-in for the card of ``skill`` in ``state``: its frame, its name and the start
        of its description, each clipped to its place."""
        t, fonts = self.tokens(), self._card_fonts(option.font)
        w, h = option.rect.width(), option.rect.height()
        geo = self._geo(fonts, w, h, Lifecycle(skill.lifecycle).label, bool(skill.pinned))
        kit = self._kit(fonts, t)
        frame = self._frame(ratio, w, h, state, t, fonts, under) if ratio == int(ratio) and ratio >= 1 else None
        border, back = _colours(state, t)
        paint_at(painter, option.rect.topLeft(),
                 lambda p: sketch_card(p, geo, kit, skill.name, skill.description or "", frame, border, back))
        self.sketched += 1

    def warm(self, option, index, ratio: float) -> bool:
        """Draw the card of ``index`` into the kept pictures as :meth:`paint` would at the device
        pixel ratio ``ratio``, without showing it (so painting it later only copies it); whether it
        was drawn now (False: kept already, not loaded, or not kept at all)."""
        skill = index.data(SKILL_ROLE)
        if self.cache is None or skill is None:
            return False
        key, paint, under, base = self._plan(option, skill, index.data(VERDICT_ROLE))
        size = option.rect.size()
        if cached(self.cache, ratio, size, key, under):
            return False
        return picture(self.cache, ratio, size, key, paint, under, base) is not None

    def _plan(self, option, skill: Skill, verdict: Verdict | None) -> tuple:
        """What the kept picture of a card needs: (key, paint, background, base) for paint_through."""
        t = self.tokens()
        fonts = self._card_fonts(option.font)
        painting = self.painting
        under = painting[1] if painting is not None and option.widget is painting[0] else background_of(option)
        state = _state(option)
        w, h = option.rect.width(), option.rect.height()
        assert self._fonts is not None
        key = (card_content(skill, verdict), state, self._fonts[3], self._theme_key(t))
        base = None
        if self.parts is not None and under is not None:
            back = under
            base = lambda ratio: self._frame(ratio, w, h, state, t, fonts, back)  # noqa: E731
        return (key, lambda p, framed: self._paint_card(p, w, h, state, skill, verdict, t, fonts, under, framed),
                under, base)

    def _geo(self, fonts: CardFonts, w: int, h: int, label: str = "Candidate", pinned: bool = False) -> CardLayout:
        """The layout of a card whose cell is ``w`` x ``h`` with its top left corner at (0, 0) (kept:
        every card of a size, lifecycle and pin shares it; nothing may change it)."""
        key = (w, h, label, pinned)
        geo = self._geos.get(key)
        if geo is None:
            geo = self._geos[key] = card_layout(QRect(MARGIN, MARGIN, w - 2 * MARGIN, h - 2 * MARGIN), fonts,
                                                label, pinned)
        return geo

    def _frame(self, ratio: float, w: int, h: int, state: tuple[bool, bool, bool], t: Tokens, fonts: CardFonts,
               under: QColor) -> QPixmap | None:
        """The kept picture of the frame every card in ``state`` shares (its outline, its fill and
        the bars' labels) on ``under``, ``w`` x ``h``."""
        if self.parts is None:
            return None
        border, back = _colours(state, t)
        frame = (border, back, self._fonts[3] if self._fonts is not None else "", self._theme_key(t))

        def draw(p: QPainter, _r: QRect) -> None:
            p.setRenderHint(QPainter.Antialiasing, True)
            p.setRenderHint(QPainter.TextAntialiasing, True)
            draw_frame(p, self._geo(fonts, w, h), border, back, fonts.small, t)
        return part_pixmap(self.parts, ratio, QSize(w, h), under, ("frame", frame), draw)

    def _paint_card(self, painter: QPainter, w: int, h: int, state: tuple[bool, bool, bool], skill: Skill | None,
                    verdict: Verdict | None, t: Tokens, fonts: CardFonts, under: QColor | None = None,
                    framed: bool = False) -> None:
        """Draw the card of a cell ``w`` x ``h`` at (0, 0); ``framed``: the frame is drawn already."""
        if skill is None:
            geo = self._geo(fonts, w, h)
        else:
            geo = self._geo(fonts, w, h, Lifecycle(skill.lifecycle).label, bool(skill.pinned))
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setRenderHint(QPainter.TextAntialiasing, True)

        selected, _hovered, focused = state
        border, back = _colours(state, t)
        card = QRectF(geo.card).adjusted(0.5, 0.5, -0.5, -0.5)
        # The frame (the card's outline, its fill and the bars' labels) is the same on every card.
        if self.parts is None:
            under = None
        if framed:
            pass
        elif under is not None:
            ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
            if ratio == int(ratio) and ratio >= 1:
                frame = self._frame(ratio, w, h, state, t, fonts, under)
                assert frame is not None
                painter.drawPixmap(0, 0, frame)
            else:
                draw_frame(painter, geo, border, back, fonts.small, t)
        else:
            painter.setPen(QPen(QColor(border), 1))
            painter.setBrush(QColor(back))
            painter.drawRoundedRect(card, RADIUS, RADIUS)

        if skill is None:
            self._paint_placeholder(painter, geo, t)
        else:
            self._paint_skill(painter, geo, fonts, skill, verdict, t, QColor(back),
                              framed=framed or under is not None)
        if focused and selected:
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

    def _kit(self, fonts: CardFonts, t: Tokens) -> CardKit:
        """What every card drawn with these fonts and colours shares (kept per fonts and theme)."""
        font_key = self._fonts[3] if self._fonts is not None else fonts.base.key()
        key = (font_key, self._theme_key(t))
        kit = self._kits.get(key)
        if kit is None or kit.fonts is not fonts:
            kit = self._kits[key] = CardKit(fonts, t, key)
        return kit

    def _paint_skill(self, painter: QPainter, geo: CardLayout, fonts: CardFonts, skill: Skill,
                     verdict: Verdict | None, t: Tokens, back: QColor, framed: bool = False) -> None:
        kit = self._kit(fonts, t)
        style = kit.style
        font_key, theme = style
        blit = PartBlitter(self.parts, painter, back)

        painter.setFont(fonts.name)
        painter.setPen(kit.text)
        room = geo.name_row.width()
        kit.title.draw(painter, geo.name_row, kit.name.elidedText(skill.name, Qt.ElideRight, room), room)
        if verdict is not None:
            blit(geo.verdict, ("verdict", bool(verdict.valid), theme), lambda p, r: draw_verdict(p, r, verdict, t))
        if skill.pinned:
            blit(geo.pin, ("pin", theme), lambda p, r: draw_icon(p, r, "pin", t.text_muted))

        lifecycle = Lifecycle(skill.lifecycle)
        blit(geo.badge, ("badge", lifecycle, font_key), lambda p, r: draw_badge(p, r, lifecycle, fonts.small))

        painter.setFont(fonts.base)
        tier = int(skill.trust_tier)
        blit(geo.stars, ("stars", tier, theme), lambda p, r: draw_stars(p, r, tier, t))
        painter.setPen(kit.muted)
        origin = getattr(skill.origin, "value", skill.origin)
        for left, words in ((True, f"·  {origin}"), (False, f"v{skill.version}")):
            rect, part, room = kit.meta(geo, left, words)
            if self.parts is None:
                painter.drawText(rect, (Qt.AlignLeft if left else Qt.AlignRight) | Qt.AlignVCenter, words)
                continue
            blit(part, ("meta", words, left, style),
                 lambda p, r, a=Qt.AlignLeft if left else Qt.AlignRight, w=words, x=room:
                 draw_text(p, r.adjusted(x[0], 0, x[1], 0), a, w, fonts.base, kit.muted))

        painter.setPen(kit.text)
        kit.lines.draw_wrapped(painter, skill.description or "", geo.description, kit.line_height, DESC_LINES)

        self._paint_tags(painter, geo.tags_row, fonts.small, skill.tags, t, back, style, kit, blit)
        for label_rect, bar, label, value, colour in (
                (geo.utility_label, geo.utility_bar, "Utility", skill.utility_score, t.bar_utility),
                (geo.freshness_label, geo.freshness_bar, "Freshness", skill.freshness, t.bar_freshness)):
            if not framed:   # else the frame holds the label
                draw_label(painter, label_rect, label, fonts.small, t)
            frac = min(1.0, max(0.0, float(value or 0.0)))
            blit(bar, ("bar", colour, frac, theme), lambda p, r, f=frac, c=colour: draw_bar(p, r, f, c, t))

    def _paint_tags(self, painter: QPainter, row: QRect, font: QFont, tags: list[str], t: Tokens,
                    back: QColor, style: tuple[str, int], kit: CardKit | None = None,
                    blit: PartBlitter | None = None) -> None:
        chips, rest_rect, rest = tag_chips(row, font, tags, kit.small if kit is not None else None)
        blit = blit if blit is not None else PartBlitter(self.parts, painter, back)
        for chip, text, _tag in chips:
            blit(chip, ("chip", text, style), lambda p, r, text=text: draw_chip(p, r, text, font, t))
        if rest:
            painter.setFont(font)
            painter.setPen(kit.muted if kit is not None else QColor(t.text_muted))
            painter.drawText(rest_rect, Qt.AlignLeft | Qt.AlignVCenter, rest)
