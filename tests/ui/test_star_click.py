"""Setting trust by clicking a star on a card or in the list: the skill stays selected, the details
stay on it and show the new stars, and the status bar says what was set."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem


@pytest.fixture
def window(open_window, seeded_store):
    return open_window(seeded_store, 1280, 800)


def _star_point(window, name: str, tier: int) -> QPoint:
    """Where the card of ``name`` draws its star of ``tier``, in the card view's viewport."""
    view = window.browser.card_view
    index = window.model.index(window.model.row_of(name), 0)
    view.scrollTo(index)
    QApplication.processEvents()
    option = QStyleOptionViewItem()
    option.initFrom(view)
    option.rect = view.visualRect(index)
    for y in range(option.rect.top(), option.rect.bottom()):
        for x in range(option.rect.left(), option.rect.right()):
            if window.browser.delegate.star_at(option, index, QPoint(x, y)) == tier:
                return QPoint(x + 2, y + 2)
    raise AssertionError(f"no star {tier} on the card of {name}")


@pytest.mark.parametrize("name,tier", [("release-notes", 1), ("csv-cleanup", 2), ("release-notes", 3)])
def test_a_star_click_keeps_the_selection_and_the_details(window, qtbot, seeded_store, name, tier):
    window.set_view_mode("cards")
    window.browser.select_name(name)
    qtbot.waitUntil(lambda: window.details.skill_name == name)
    point = _star_point(window, name, tier)
    qtbot.mouseClick(window.browser.card_view.viewport(), Qt.LeftButton, pos=point)
    qtbot.waitUntil(lambda: seeded_store.get(name).trust_tier == tier)
    QApplication.processEvents()
    assert window.browser.selected_names() == [name]
    assert window.details.skill_name == name
    assert window.statusBar().currentMessage().startswith(f"Trust of {name} set to {tier}")
