"""The library as a new user meets it: cards flow to the width, the list fits, a search ranks by
relevance, tags filter, validation and trust marks, the selection survives changes, the window fits."""

import pytest
from conftest import shown_window
from layout_fit import fit_problems
from PySide6.QtCore import QSize

from skill_studio.core.review.queue import queue_count
from skill_studio.core.store import Filters
from skill_studio.ui.library.browser import BrowserWidget
from skill_studio.ui.library.card_delegate import MIN_CARD_WIDTH
from skill_studio.ui.library.models import VERDICT_ROLE, SkillListModel
from skill_studio.ui.library.stats_bar import StatsBar


@pytest.fixture
def browser(qtbot, seeded_store):
    widget = BrowserWidget(SkillListModel(seeded_store))
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.model.verdicts.shutdown()


@pytest.mark.parametrize("width", [700, 1000, 1500])
def test_cards_flow_to_the_width(qtbot, browser, width):
    browser.resize(width, 700)
    view = browser.card_view
    qtbot.waitUntil(lambda: view.viewport().width() < width)
    area = view.viewport().width()
    assert view.columns() == max(1, area // MIN_CARD_WIDTH)
    first, second = (view.visualRect(browser.model.index(r, 0)) for r in (0, 1))
    assert first.width() * view.columns() <= area       # every column fits: no sideways scrolling
    assert area - first.width() * view.columns() < view.columns() + 3   # and they share the row
    if view.columns() > 1:
        assert second.top() == first.top() and second.left() == first.right() + 1
    assert not view.horizontalScrollBar().isVisible()


@pytest.mark.parametrize("width", [600, 720, 1000])
def test_list_columns_fit_without_sideways_scrolling(qtbot, browser, width):
    browser.set_view_mode("list")
    browser.resize(width, 700)
    table = browser.table_view
    qtbot.waitUntil(lambda: table.viewport().width() < width)
    header = table.horizontalHeader()
    shown = sum(header.sectionSize(i) for i in range(header.count()) if not header.isSectionHidden(i))
    assert shown <= table.viewport().width() + 1
    assert "name" not in table.hidden_columns() and "trust" not in table.hidden_columns()


@pytest.mark.parametrize("query", ["pdf", "release", "git commit", "review"])
def test_a_search_ranks_by_relevance_until_another_sort_is_picked(qtbot, browser, seeded_store, query):
    browser.sort_actions["trust"].trigger()
    browser.search.setText(query)
    browser._search_now()
    expected = seeded_store.names(Filters(text=query), sort="relevance")
    assert browser.model.names() == expected and browser.model.sort_key[0] == "relevance"
    assert "Relevance" in browser.sort_button.text()
    browser.sort_actions["name"].trigger()
    assert browser.model.names() == seeded_store.names(Filters(text=query))
    browser.search.clear()
    browser._search_now()
    assert browser.model.sort_key[0] == "trust"   # the user's sort is back


def test_the_skill_named_as_typed_comes_first(store):
    from conftest import make
    for name, description in (("apdf-tools", "Works on pdf files. Use when a pdf is given."),
                              ("pdf-merge", "Merges files. Use when merging."),
                              ("tools-pdf", "Handles pdf. Use when pdf."), ("pdf", "Reads PDF. Use when reading.")):
        store.add(make(name, description))
    assert store.names(Filters(text="pdf"), sort="relevance")[:3] == ["pdf", "pdf-merge", "tools-pdf"]
    assert [s.name for s in store.list(Filters(text="pdf"), sort="relevance", limit=2)] == ["pdf", "pdf-merge"]


def test_a_tag_filter_from_the_card(qtbot, browser, seeded_store):
    skill = browser.model.skill_at(0)
    tag = skill.tags[0]
    browser.delegate.tagClicked.emit(tag)
    assert browser.tag_combo.currentData() == tag
    assert browser.model.names() == seeded_store.names(Filters(tag=tag))


def test_validation_marks_come_from_a_background_check(qtbot, tmp_path):
    from conftest import make

    from skill_studio.core.store import Store
    with Store(tmp_path / "v.db") as store:
        good, bad = make("good-skill"), make("bad-skill")
        bad.folder_name = "another-folder"   # strict: the folder must be named as the skill
        store.add(good)
        store.add(bad)
        model = SkillListModel(store)
        model.reload()
        rows = [model.row_of(n) for n in ("bad-skill", "good-skill")]
        for r in rows:
            model.data(model.index(r, 0), VERDICT_ROLE)
        qtbot.waitUntil(lambda: all(model.data(model.index(r, 0), VERDICT_ROLE) is not None for r in rows))
        bad_verdict, good_verdict = (model.data(model.index(r, 0), VERDICT_ROLE) for r in rows)
        assert good_verdict.valid and not bad_verdict.valid
        assert "Fails the strict check" in model.data(model.index(rows[0], 0), 3)   # the tooltip
        model.verdicts.shutdown()


def test_stats_bar_counts_what_the_review_queue_holds(qtbot, seeded_store):
    bar = StatsBar(seeded_store)
    qtbot.addWidget(bar)
    bar.update_stats(None)
    assert f"{queue_count(seeded_store)} awaiting review" in bar.text()
    assert bar.minimumSizeHint().width() < 300


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)])
@pytest.mark.parametrize("mode", ["cards", "list"])
def test_the_library_fits(qtbot, seeded_store, tmp_path, size, mode):
    window = shown_window(qtbot, seeded_store, tmp_path, size)
    window.set_view_mode(mode)
    window.browser.select_name("pdf-extract")
    qtbot.waitUntil(lambda: window.details.skill_name == "pdf-extract")
    # The review bar inside the panel belongs to the review feature (its buttons are checked there).
    # The review bar in the panel and the status bar's size grip belong to other parts of the window.
    assert [p for p in fit_problems(window, QSize(*size)) if "ReviewBar" not in p and "QSizeGrip" not in p] == []
    assert window.details.minimumSizeHint().width() <= 320
    window.model.verdicts.shutdown()
