"""A card's first paint takes the short ways, with the same pixels as the long ones: a line of text
drawn at its baseline as drawText in a rectangle draws it, a description drawn from its one layout as
its lines drawn one by one, words measured once; and the cards about to scroll into sight are drawn
into the kept pictures between frames, the same as painting them would."""

from __future__ import annotations

from functools import partial

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QApplication
from test_card_paint_cache import _grab, shown_cards

from skill_studio.ui.library.card_layout import Advances, LineDrawer, elided_lines, tag_chips

TEXTS = [
    "Does a thing.", "", " ", "x", "Extracts tables from scanned PDF files, cleans the headers and writes CSV",
    "a-very-long-word-with-no-room-to-break-that-is-wider-than-any-card-could-ever-be-and-more",
    "Ünïcödé, «quoted» text", "日本語のテキスト", "ends with an ellipsis…", "…", "tabs\tand\nnew lines  and   runs",
    "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW", "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii",
    "Use when a report arrives as a picture of a table rather than as data, or when the columns need "
    "renaming first; then check the totals, the dates and the currencies against the source, twice.",
    "mixed ascii and ✓ marks ✗ here", "emoji 🙂 inside",
]


def _fonts() -> list[QFont]:
    base = QApplication.font()
    bold = QFont(base)
    bold.setBold(True)
    bold.setPointSizeF(base.pointSizeF() + 1)
    small = QFont(base)
    small.setPointSizeF(max(6.5, base.pointSizeF() * 0.85))
    serif = QFont("DejaVu Serif", 11)
    return [base, bold, small, serif]


def _image(ratio: int) -> QImage:
    image = QImage(320 * ratio, 90 * ratio, QImage.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(QColor("#ffffff"))
    return image


def _drawn(ratio: int, font: QFont, draw) -> QImage:
    image = _image(ratio)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing, True)
    painter.setRenderHint(QPainter.TextAntialiasing, True)
    painter.setFont(font)
    painter.setPen(QColor("#1d2330"))
    draw(painter)
    painter.end()
    return image


def _in_rect(painter: QPainter, rect: QRect, text: str) -> None:
    painter.drawText(rect, Qt.AlignLeft | Qt.AlignVCenter, text)


def _line_by_line(painter: QPainter, text: str, font: QFont, box: QRect, line_h: int, lines: int) -> None:
    for i, line in enumerate(elided_lines(text, font, box.width(), lines)):
        _in_rect(painter, QRect(box.left(), box.top() + i * line_h, box.width(), line_h), line)


@pytest.mark.parametrize("ratio", [1, 2])
def test_a_line_at_its_baseline_is_the_line_drawn_in_its_rectangle(qtbot, ratio):
    for font in _fonts():
        drawer, fm = LineDrawer(font), QFontMetrics(font)
        for text in TEXTS:
            for rect in (QRect(7, 5, 255, fm.lineSpacing()), QRect(3, 11, 180, fm.height() + 5),
                         QRect(0, 0, 60, fm.height() - 4), QRect(9, 30, 300, 24)):   # narrow, low, tall
                fast = _drawn(ratio, font, partial(drawer.draw, rect=rect, text=text, wide=fm.horizontalAdvance(text)))
                slow = _drawn(ratio, font, partial(_in_rect, rect=rect, text=text))
                assert fast == slow, f"{text!r} in {rect} with {font.family()} {font.pointSizeF()} at {ratio}"


@pytest.mark.parametrize("ratio", [1, 2])
def test_a_description_drawn_from_its_layout_is_its_lines_drawn_one_by_one(qtbot, ratio):
    for font in _fonts():
        drawer, line_h = LineDrawer(font), QFontMetrics(font).lineSpacing()
        for text in TEXTS + [" ".join(TEXTS)]:
            for width, lines in ((255, 3), (120, 2), (40, 3), (300, 1)):
                box = QRect(6, 4, width, line_h * lines)
                fast = _drawn(ratio, font, partial(drawer.draw_wrapped, text=text, box=box, line_height=line_h,
                                                   max_lines=lines))
                slow = _drawn(ratio, font, partial(_line_by_line, text=text, font=font, box=box, line_h=line_h,
                                                   lines=lines))
                assert fast == slow, f"{text[:40]!r} {width} wide, {lines} lines, {font.family()} at {ratio}"


def test_words_measured_once_measure_as_the_font_does(qtbot):
    font = QApplication.font()
    fm, advances = QFontMetrics(font), Advances(font)
    for word in TEXTS + ["+3", "v12", "pdf", "données"]:
        assert advances(word) == fm.horizontalAdvance(word)
        assert advances(word) == fm.horizontalAdvance(word)   # remembered
    tag_sets = [[], ["pdf"], ["pdf", "csv", "tables", "extraction", "reports", "ocr"],
                ["a-very-long-tag-name-that-does-not-fit-in-a-chip-at-all"], ["données", "日本語", "ümlaut"]]
    for tags in tag_sets:
        for row in (QRect(10, 80, 260, 18), QRect(0, 0, 90, 18)):
            assert tag_chips(row, font, tags, advances) == tag_chips(row, font, tags)


def test_remembered_words_stay_within_their_limit(qtbot, monkeypatch):
    monkeypatch.setattr(Advances, "LIMIT", 5)
    advances = Advances(QApplication.font())
    for i in range(12):
        advances(f"word{i}")
        assert len(advances._known) <= 5


@pytest.fixture
def cards(qtbot, seeded_store):
    view, model = shown_cards(qtbot, seeded_store, 560, 330)   # two columns, about two rows of cards in sight
    yield view, model
    model.verdicts.shutdown()


def test_the_cards_ahead_are_drawn_between_frames_as_painting_draws_them(qtbot, cards):
    view, model = cards
    view.setCurrentIndex(model.index(0, 0))       # a selected card among them
    bar = view.verticalScrollBar()
    bar.setValue(bar.singleStep())                # a wheel step down
    rows = view.rows_ahead()
    assert rows is not None
    cache = view.card_delegate.cache
    qtbot.waitUntil(lambda: not view._warm.isActive() and not view._ahead.isActive())
    assert view.warm_ahead() == (0, False)        # all drawn already, between frames
    kept = set(cache._items)
    bar.setValue(bar.value() + 2 * bar.singleStep())   # they come into sight
    view._warm.stop()
    view._ahead.stop()
    shown = _grab(view, True)
    assert shown == _grab(view, False)
    assert view.viewport().rect().intersects(view.visualRect(model.index(rows[0], 0)))
    # Painting them only copied what was drawn ahead (but the card under the mouse, if any: hovered).
    drawn_now = [key for key in set(cache._items) - kept]
    assert all(key[0][1] == (False, True, False) for key in drawn_now), drawn_now
    assert len(drawn_now) <= 1


def test_drawing_ahead_keeps_to_its_slice_and_a_jump_draws_nothing(qtbot, cards):
    view, _model = cards
    bar = view.verticalScrollBar()
    view.card_delegate.cache.clear()
    bar.setValue(bar.singleStep())
    view._warm.stop()
    view._ahead.stop()
    drawn, more = view.warm_ahead(0.0)            # no time: one card, then the rest later
    assert drawn == 1 and more
    rest, more = view.warm_ahead()
    assert rest >= 1 and not more
    assert view.warm_ahead() == (0, False)
    bar.setValue(0)
    bar.setValue(bar.maximum())                   # a jump: nothing is known ahead
    assert view.rows_ahead() is None and view.warm_ahead() == (0, False)
