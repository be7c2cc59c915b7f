"""While the cards are dragged through fast (jump after jump), or the wheel is spun, the cards not
drawn yet are sketched;
once the scrolling stops or slows, every card in sight is the card drawn in full, pixel for pixel. A
single jump, and a kept card, are drawn in full at once."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from test_card_paint_cache import STATES, _grab, _model, _paint, _skills, shown_cards

from skill_studio.ui import theme
from skill_studio.ui.library import card_view
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


def _screen(view) -> QImage:
    """What the screen shows of the cards now (painted, not painted again to look)."""
    port = view.viewport()
    at = port.mapTo(port.window(), QPoint(0, 0))
    screen = port.screen().grabWindow(port.window().winId(), at.x(), at.y(), port.width(), port.height())
    return screen.toImage().convertToFormat(QImage.Format_RGB32)


def _shows_in_full(qtbot, view) -> None:
    """Wait until the screen shows every card in sight drawn in full (a sketch left: a timeout)."""
    qtbot.waitUntil(lambda: not view.filling(), timeout=5000)
    expected = _today(view)
    qtbot.waitUntil(lambda: _screen(view) == expected, timeout=5000)


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
        _shows_in_full(qtbot, view)
        assert sketched != _screen(view)
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
    _shows_in_full(qtbot, view)


def test_a_single_jump_lands_on_cards_drawn_in_full(qtbot, cards):
    view, _model = cards
    view.card_delegate.cache.clear()
    bar = view.verticalScrollBar()
    _drag(view, [bar.maximum()])   # End: one jump, the scrolling settled before it
    assert not view.card_delegate.sketching and not view.card_delegate.sketched
    assert _grab(view, True) == _today(view)


class _Clock:
    """The view's clock, moved on by the test."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _wheel(view, clock, notches: int, apart: float) -> None:
    """Turn the wheel down ``notches`` notches (three rows each), ``apart`` seconds between them."""
    bar = view.verticalScrollBar()
    for _ in range(notches):
        clock.now += apart
        bar.setValue(min(bar.maximum(), bar.value() + 3 * bar.singleStep()))
        view.viewport().repaint()


def test_a_spun_wheel_sketches_and_a_turned_one_does_not(qtbot, cards, monkeypatch):
    view, _model = cards
    clock = _Clock()
    monkeypatch.setattr(card_view, "_now", clock)
    view.resize(300, 500)   # one card a row, taller than a notch moves
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() >= 6 * bar.singleStep())   # two notches down, with room
    assert 3 * bar.singleStep() < view.viewport().height()   # a notch is no jump
    view.card_delegate.cache.clear()
    _wheel(view, clock, 2, apart=0.2)   # notch by notch, as one reads: every card drawn in full
    assert not view.card_delegate.sketching and not view.card_delegate.sketched
    view.verticalScrollBar().setValue(0)
    qtbot.waitUntil(lambda: not view.filling())
    view.card_delegate.cache.clear()
    _wheel(view, clock, 2, apart=0.01)   # spun: notches 10 ms apart
    assert view.card_delegate.sketching and view.card_delegate.sketched
    _shows_in_full(qtbot, view)   # and once it stops, every card in full
