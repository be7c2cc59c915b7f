"""While the cards are dragged through fast (jump after jump), the cards not drawn yet are sketched;
once the scrolling stops or slows, every card in sight is the card drawn in full, pixel for pixel. A
single jump, and a kept card, are drawn in full at once."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from test_card_paint_cache import STATES, _grab, _model, _paint, _skills, shown_cards

from skill_studio.ui import theme
from skill_studio.ui.library.card_delegate import CardDelegate


@pytest.mark.parametrize("tokens", [theme.LIGHT, theme.DARK], ids=["light", "dark"])
def test_a_sketch_stands_in_only_for_a_card_not_kept_and_the_full_card_follows(qtbot, tokens):
    skills = _skills()
    model = _model(skills)
    sketching, drawn = CardDelegate(tokens=tokens), CardDelegate(tokens=tokens)
    drawn.cache = drawn.parts = None
    sketching.sketching = True
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        for name, state in STATES.items():
            what = f"{skills[row].name} {name}"
            expected = _paint(drawn, index, state, tokens, 1)
            sketching.sketching = True
            sketch = _paint(sketching, index, state, tokens, 1)
            assert sketch != expected, f"not a sketch: {what}"
            sketching.sketching = False
            assert _paint(sketching, index, state, tokens, 1) == expected, f"the full card differs: {what}"
            sketching.sketching = True
            assert _paint(sketching, index, state, tokens, 1) == expected, f"a kept card was sketched: {what}"
    assert sketching.sketched == model.rowCount() * len(STATES)


def test_without_the_cache_every_card_is_drawn_in_full(qtbot):
    model = _model(_skills())
    delegate, drawn = CardDelegate(tokens=theme.LIGHT), CardDelegate(tokens=theme.LIGHT)
    delegate.cache = delegate.parts = drawn.cache = drawn.parts = None
    delegate.sketching = True
    index = model.index(0, 0)
    assert _paint(delegate, index, STATES["plain"], theme.LIGHT, 1) == _paint(drawn, index, STATES["plain"],
                                                                             theme.LIGHT, 1)
    assert not delegate.sketched


@pytest.fixture
def cards(qtbot, seeded_store):
    view, model = shown_cards(qtbot, seeded_store, 560, 200)   # two columns, about one row of cards in sight
    qtbot.waitUntil(lambda: not model.verdicts.busy())
    qtbot.waitUntil(lambda: not view.filling())
    yield view, model
    model.verdicts.shutdown()


def _jumps(view) -> list[int]:
    """Places of the scroll bar each more than a screen from the one before, back and forth."""
    bar = view.verticalScrollBar()
    step = view.viewport().height() + 7
    there = list(range(0, bar.maximum() + 1, step))
    assert len(there) >= 3, "too few cards to jump through"
    return there + there[-2::-1]


def _shown(qtbot, view) -> QImage:
    """What the screen shows of the cards now (painted, not painted again to look)."""
    qtbot.waitUntil(lambda: not view.filling(), timeout=5000)
    QApplication.processEvents()   # the paints the last slice asked for
    port = view.viewport()
    at = port.mapTo(port.window(), QPoint(0, 0))
    screen = port.screen().grabWindow(port.window().winId(), at.x(), at.y(), port.width(), port.height())
    return screen.toImage().convertToFormat(QImage.Format_RGB32)


def _today(view):
    """The cards in sight as drawn without sketches: each drawn in full, then kept."""
    view.card_delegate.cache.clear()
    return _grab(view, True)


def _drag(view, places: list[int]) -> None:
    bar = view.verticalScrollBar()
    for value in places:
        bar.setValue(value)
        view.viewport().repaint()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_after_a_fast_drag_and_a_stop_every_card_in_sight_is_drawn_in_full(qtbot, cards, dark):
    view, model = cards
    app = QApplication.instance()
    if dark:
        theme.apply_theme(app, theme.DARK)
    try:
        view.setCurrentIndex(model.index(model.rowCount() // 2, 0))   # a selected card among them
        view.card_delegate.cache.clear()
        _drag(view, _jumps(view))
        assert view.card_delegate.sketched, "a fast drag sketches the cards not drawn yet"
        sketched = view.viewport().grab().toImage()
        full = _shown(qtbot, view)
        assert full == _today(view)
        assert sketched != full
    finally:
        theme.apply_theme(app, theme.LIGHT)


def test_slowing_down_after_a_fast_drag_draws_the_sketched_cards_in_full(qtbot, cards):
    view, _model = cards
    view.card_delegate.cache.clear()
    _drag(view, _jumps(view)[:3])
    assert view.card_delegate.sketching and view.card_delegate.sketched
    bar = view.verticalScrollBar()
    _drag(view, [bar.value() - bar.singleStep()])   # a small step: slowed down
    assert not view.card_delegate.sketching
    assert _shown(qtbot, view) == _today(view)


def test_a_single_jump_lands_on_cards_drawn_in_full(qtbot, cards):
    view, _model = cards
    view.card_delegate.cache.clear()
    bar = view.verticalScrollBar()
    _drag(view, [bar.maximum()])   # End: one jump, the scrolling settled before it
    assert not view.card_delegate.sketching and not view.card_delegate.sketched
    assert _grab(view, True) == _today(view)
