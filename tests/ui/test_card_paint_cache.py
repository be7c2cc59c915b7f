"""Cards copied from their kept pictures look exactly as cards drawn in place: every state, both
themes, device pixel ratios 1 and 2; a changed skill and a new theme are drawn anew; the pictures
kept stay within their budget."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter, QPalette, QPixmap, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionViewItem

from skill_studio.core.format.verdict import Verdict
from skill_studio.core.model import Lifecycle, Origin, Skill, TrustTier
from skill_studio.ui import theme
from skill_studio.ui.library.card_cache import CardPixmaps
from skill_studio.ui.library.card_delegate import CardDelegate, CardFonts, card_size
from skill_studio.ui.library.card_view import CardView
from skill_studio.ui.library.models import SKILL_ROLE, VERDICT_ROLE, SkillListModel

LONG = ("Extracts tables from scanned PDF files, cleans the headers and writes CSV; use when a report "
        "arrives as a picture of a table rather than as data, or when the columns need renaming first.")


def _skills() -> list[Skill]:
    """Cards of every kind: each lifecycle, tier and origin, pinned or not, no tags to many (long,
    short, not Latin), an empty, a short and a long description, a long name."""
    tags = [[], ["pdf"], ["pdf", "csv", "tables", "extraction", "reports", "ocr"],
            ["a-very-long-tag-name-that-does-not-fit-in-a-chip-at-all"], ["données", "日本語", "ümlaut"]]
    descriptions = ["", "Does a thing.", LONG, "Ünïcödé, «quoted» text, 日本語のテキスト."]
    out = []
    for lifecycle in Lifecycle:
        for tier in TrustTier:
            n = len(out)
            out.append(Skill(name=f"skill-{lifecycle.value}-{int(tier)}" + "-long-enough-to-be-cut" * (n % 3 == 2),
                             description=descriptions[n % len(descriptions)], lifecycle=lifecycle,
                             trust_tier=tier, origin=list(Origin)[n % len(Origin)], version=n,
                             tags=tags[n % len(tags)], pinned=bool(n % 2), utility_score=(n % 5) / 4,
                             freshness=((n + 2) % 5) / 4))
    return out


VERDICTS = [None, Verdict(0), Verdict(2, "line 1: the name is wrong")]
STATES = {"plain": QStyle.State_Enabled, "hovered": QStyle.State_Enabled | QStyle.State_MouseOver,
          "selected": QStyle.State_Enabled | QStyle.State_Selected,
          "focused": QStyle.State_Enabled | QStyle.State_Selected | QStyle.State_HasFocus}


def _model(skills: list[Skill]) -> QStandardItemModel:
    model = QStandardItemModel()
    for i, skill in enumerate(skills):
        item = QStandardItem()
        item.setData(skill, SKILL_ROLE)
        item.setData(VERDICTS[i % len(VERDICTS)], VERDICT_ROLE)
        model.appendRow(item)
    return model


def _paint(delegate: CardDelegate, index, state, tokens, ratio: int) -> QImage:
    """The card of ``index`` painted at (7, 13) into an image of the theme's background."""
    font = QApplication.font()
    size = card_size(CardFonts.of(font), delegate.card_width)
    option = QStyleOptionViewItem()
    option.rect = QRect(7, 13, size.width(), size.height())
    option.font = font
    option.state = state
    palette = QPalette()
    palette.setColor(QPalette.Base, QColor(tokens.surface))
    option.palette = palette
    image = QImage((size.width() + 14) * ratio, (size.height() + 26) * ratio, QImage.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(QColor(tokens.surface))
    painter = QPainter(image)
    delegate.paint(painter, option, index)
    painter.end()
    return image


@pytest.mark.parametrize("ratio", [1, 2])
@pytest.mark.parametrize("tokens", [theme.LIGHT, theme.DARK], ids=["light", "dark"])
def test_a_kept_card_is_pixel_equal_to_one_drawn_in_place(qtbot, tokens, ratio):
    skills = _skills()
    model = _model(skills)
    kept, drawn = CardDelegate(tokens=tokens), CardDelegate(tokens=tokens)
    drawn.cache = drawn.parts = None
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        for name, state in STATES.items():
            expected = _paint(drawn, index, state, tokens, ratio)
            first = _paint(kept, index, state, tokens, ratio)      # drawn, then kept
            again = _paint(kept, index, state, tokens, ratio)      # copied from what was kept
            what = f"{skills[row].name} {name} at ratio {ratio}"
            assert first == expected, f"the card drawn through the cache differs: {what}"
            assert again == expected, f"the kept card differs: {what}"
    assert len(kept.cache) > 0 and len(kept.parts) > 0   # the cache was used, not passed by


def test_cards_that_differ_are_kept_apart(qtbot):
    """Every field a card shows makes a different picture: none is shown for another."""
    skills = _skills()
    model = _model(skills)
    delegate = CardDelegate(tokens=theme.LIGHT)
    images = {}
    for row in range(model.rowCount()):
        images[row] = _paint(delegate, model.index(row, 0), STATES["plain"], theme.LIGHT, 1)
    assert len(delegate.cache) == model.rowCount()
    assert len({bytes(image.constBits()) for image in images.values()}) == model.rowCount()


def test_the_cache_keeps_to_its_budget():
    cache = CardPixmaps(budget=3 * 100 * 100 * 4)
    for i in range(10):
        cache.put(i, QPixmap(100, 100))
        assert cache.bytes <= cache.budget
    assert len(cache) == 3 and cache.get(9) is not None and cache.get(0) is None
    cache.get(7)                      # used lately: kept when the next one comes
    cache.put(10, QPixmap(100, 100))
    assert cache.get(7) is not None and cache.get(8) is None


def shown_cards(qtbot, store, width: int, height: int) -> tuple[CardView, SkillListModel]:
    """A card view over ``store``'s skills, shown at that size (shut its model's checks down after)."""
    model = SkillListModel(store)
    view = CardView()
    view.setModel(model)
    model.reload()
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    return view, model


@pytest.fixture
def cards(qtbot, seeded_store):
    view, model = shown_cards(qtbot, seeded_store, 900, 600)
    qtbot.waitUntil(lambda: not model.verdicts.busy())
    yield view, model
    model.verdicts.shutdown()


def _grab(view, cached: bool) -> QImage:
    delegate = view.card_delegate
    kept = delegate.cache, delegate.parts
    if not cached:
        delegate.cache = delegate.parts = None
    try:
        view.viewport().repaint()
        return view.viewport().grab().toImage()
    finally:
        delegate.cache, delegate.parts = kept


def test_the_view_shows_the_same_cards_with_and_without_the_cache(cards):
    view, _model = cards
    assert _grab(view, True) == _grab(view, False)
    assert _grab(view, True) == _grab(view, False)   # now copied from what was kept


def test_a_changed_skill_is_painted_with_its_new_content(cards, seeded_store):
    view, model = cards
    name = model.name_at(0)
    before = _grab(view, True)
    skill = seeded_store.get(name)
    # Not a new version: the card must follow what it shows, not only the version number.
    seeded_store.set_state(name, pinned=not skill.pinned, utility_score=1.0 - skill.utility_score)
    model.refresh_skills([name])
    after = _grab(view, True)
    assert after != before
    assert after == _grab(view, False)


def test_a_theme_change_repaints_the_cards(cards):
    view, _model = cards
    app = QApplication.instance()
    light = _grab(view, True)
    theme.apply_theme(app, theme.DARK)
    try:
        dark = _grab(view, True)
        assert dark != light
        assert dark == _grab(view, False)
    finally:
        theme.apply_theme(app, theme.LIGHT)
    assert _grab(view, True) == light


def test_hover_and_selection_are_painted_from_their_own_pictures(cards, qtbot):
    view, model = cards
    plain = _grab(view, True)
    view.setCurrentIndex(model.index(0, 0))
    selected = _grab(view, True)
    assert selected != plain
    assert selected == _grab(view, False)
    view.clearSelection()
    view.setCurrentIndex(model.index(-1, 0))
    assert _grab(view, True) == _grab(view, False)
