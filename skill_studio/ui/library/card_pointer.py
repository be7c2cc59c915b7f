"""What the pointer finds on a skill card: the tag chip or the star under it, what the card says
there (its tooltip), and what a click there does (a star sets the trust tier, a chip filters by
its tag). The card's geometry is the one it is painted with (card_layout, via the delegate)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtWidgets import QToolTip

from skill_studio.core.model import Lifecycle, Skill, TrustTier
from skill_studio.ui.library.card_layout import CardFonts, CardLayout, tag_chips
from skill_studio.ui.library.marks import star_at
from skill_studio.ui.library.models import NAME_ROLE, SKILL_ROLE, VERDICT_ROLE
from skill_studio.ui.safe_text import literal


class CardPointer:
    """The pointer's side of the card delegate (a mixin of CardDelegate, before its Qt base)."""

    starClicked: Signal
    tagClicked: Signal

    def _layout(self, option, skill: Skill | None) -> CardLayout:
        raise NotImplementedError

    def _card_fonts(self, font) -> CardFonts:
        raise NotImplementedError

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
