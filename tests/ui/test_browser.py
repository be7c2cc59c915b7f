"""The skill browser: tabs with counts, filters, debounced search, sort, two views, one selection."""


import pytest
from conftest import SCREENSHOTS
from PySide6.QtCore import QEvent, QMargins, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem, QToolTip

from skill_studio.core.model import Lifecycle
from skill_studio.core.store import Filters, Store
from skill_studio.ui import theme
from skill_studio.ui.library.browser import BrowserWidget
from skill_studio.ui.library.card_delegate import MARGIN, CardDelegate, CardFonts, card_layout
from skill_studio.ui.library.models import COLUMNS, SkillListModel

COLUMN_KEYS = [key for key, _ in COLUMNS]

SHOTS = SCREENSHOTS


@pytest.fixture
def browser(qtbot, seeded_store):
    model = SkillListModel(seeded_store)
    widget = BrowserWidget(model)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def tab_index(widget: BrowserWidget, lifecycle: str | None) -> int:
    return next(i for i in range(widget.tabs.count()) if widget.tabs.tabData(i) == lifecycle)


def click_tab(qtbot, widget: BrowserWidget, lifecycle: str | None) -> None:
    i = tab_index(widget, lifecycle)
    qtbot.mouseClick(widget.tabs, Qt.LeftButton, pos=widget.tabs.tabRect(i).center())


def test_tabs_show_live_counts(browser, seeded_store):
    counts = seeded_store.counts()["lifecycle"]
    assert browser.tabs.tabText(0) == f"All {len(seeded_store)}"
    for state in Lifecycle:
        assert browser.tabs.tabText(tab_index(browser, state.value)) == f"{state.label} {counts[state.value]}"
    browser.origin_combo.setCurrentIndex(browser.origin_combo.findData("llm"))
    llm_counts = seeded_store.counts(Filters(origin="llm"))["lifecycle"]
    assert browser.tabs.tabText(tab_index(browser, "released")) == f"Released {llm_counts['released']}"
    assert browser.tabs.tabText(0) == f"All {sum(llm_counts.values())}"


def test_clicking_a_tab_filters(qtbot, browser, seeded_store):
    with qtbot.waitSignal(browser.filtersChanged) as blocker:
        click_tab(qtbot, browser, "released")
    assert blocker.args[0] == Filters(lifecycle="released")
    assert browser.model.names() == seeded_store.names(Filters(lifecycle="released"))
    click_tab(qtbot, browser, "candidate")
    assert browser.model.names() == seeded_store.names(Filters(lifecycle="candidate"))
    click_tab(qtbot, browser, None)
    assert browser.model.rowCount() == len(seeded_store)


def test_search_is_debounced_and_can_be_ranked(qtbot, browser, seeded_store):
    qtbot.keyClicks(browser.search, "changelog")
    assert browser.model.rowCount() == len(seeded_store)  # not yet: the search waits for typing to stop
    expected = seeded_store.names(Filters(text="changelog"), sort="relevance")
    qtbot.waitUntil(lambda: browser.model.names() == expected, timeout=2000)
    assert 0 < len(expected) < len(seeded_store)
    assert browser.model.sort_key == ("relevance", False)   # a search ranks by relevance
    browser.sort_actions["name"].trigger()
    assert browser.model.names() == seeded_store.names(Filters(text="changelog"))
    assert browser.model.sort_key == ("name", False)
    browser.search.clear()
    qtbot.waitUntil(lambda: browser.model.rowCount() == len(seeded_store), timeout=2000)
    assert browser.model.sort_key[0] == "name"


def test_origin_and_tag_combos_filter(browser, seeded_store):
    browser.origin_combo.setCurrentIndex(browser.origin_combo.findData("human"))
    assert browser.model.names() == seeded_store.names(Filters(origin="human"))
    browser.origin_combo.setCurrentIndex(0)
    browser.tag_combo.setCurrentIndex(browser.tag_combo.findData("git"))
    assert browser.model.names() == seeded_store.names(Filters(tag="git"))
    assert browser.tag_combo.count() == 1 + len(seeded_store.tags())


def test_switching_views_keeps_the_selection(qtbot, browser):
    names = browser.model.names()
    picked = [names[1], names[3]]
    rect = browser.card_view.visualRect(browser.model.index(1, 0))
    qtbot.mouseClick(browser.card_view.viewport(), Qt.LeftButton, pos=rect.center())
    rect = browser.card_view.visualRect(browser.model.index(3, 0))
    with qtbot.waitSignal(browser.selectionChanged) as blocker:
        qtbot.mouseClick(browser.card_view.viewport(), Qt.LeftButton, Qt.ControlModifier, rect.center())
    assert blocker.args[0] == picked
    browser.set_view_mode("list")
    assert browser.view_mode() == "list"
    assert browser.stack.currentWidget() is browser.table_view
    assert browser.selected_names() == picked
    assert browser.table_view.selectionModel().isRowSelected(3, browser.model.index(0, 0).parent())
    browser.set_view_mode("cards")
    assert browser.selected_names() == picked
    with pytest.raises(ValueError):
        browser.set_view_mode("tiles")


def test_selection_is_kept_by_name_across_filters_and_sort(browser, seeded_store):
    assert browser.select_name("release-notes")
    browser.sort_actions["utility"].trigger()
    assert browser.selected_names() == ["release-notes"]
    click = tab_index(browser, "released")
    browser.tabs.setCurrentIndex(click)
    assert browser.selected_names() == ["release-notes"]
    browser.refresh()
    assert browser.selected_names() == ["release-notes"]
    assert not browser.select_name("csv-cleanup")  # archived: not on the Released tab


@pytest.mark.parametrize("mode", ["cards", "list"])
def test_double_click_and_enter_activate_a_skill(qtbot, browser, mode):
    browser.set_view_mode(mode)
    view = browser.current_view()
    row = browser.model.row_of("pdf-extract")
    rect = view.visualRect(browser.model.index(row, 0))
    activations = []
    browser.skillActivated.connect(activations.append)
    with qtbot.waitSignal(browser.skillActivated) as blocker:
        # A real double-click is a press and release, then the double-click event.
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=rect.center())
        qtbot.mouseDClick(view.viewport(), Qt.LeftButton, pos=rect.center())
    assert blocker.args == ["pdf-extract"]
    QApplication.processEvents()   # (anything the clicks left queued is handled)
    assert activations == ["pdf-extract"]  # once per double-click
    browser.select_name("security-review")
    view.setFocus()
    with qtbot.waitSignal(browser.skillActivated) as blocker:
        qtbot.keyClick(view, Qt.Key_Return)
    assert blocker.args == ["security-review"]


def test_empty_store_shows_how_to_begin(qtbot, tmp_path):
    theme.apply_theme(QApplication.instance(), theme.LIGHT)
    with Store(tmp_path / "empty.db", actor="tester") as store:
        widget = BrowserWidget(SkillListModel(store))
        qtbot.addWidget(widget)
        widget.resize(1000, 700)
        widget.show()
        assert widget.empty_label.isVisible()
        assert "No skills yet" in widget.empty_label.text()
        assert "File ▸ Import" in widget.empty_label.text()
        assert widget.tabs.tabText(0) == "All 0"
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert widget.grab().save(str(SHOTS / "browser-empty-store.png"))


def test_search_without_results_says_so(qtbot, browser):
    assert not browser.empty_label.isVisible()
    qtbot.keyClicks(browser.search, "zebracorn")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 0, timeout=2000)
    assert browser.empty_label.isVisible()
    assert "No skills match “zebracorn”" in browser.empty_label.text()
    browser.clear_filters()
    assert browser.model.rowCount() == 10
    assert not browser.empty_label.isVisible()


def test_sort_menu_and_header_change_the_model_sort(qtbot, browser, seeded_store):
    browser.sort_actions["trust"].trigger()
    assert browser.model.sort_key == ("trust", False)
    browser.descending_action.trigger()
    assert browser.model.sort_key == ("trust", True)
    assert browser.model.names() == seeded_store.names(sort="trust", descending=True)
    assert "Trust" in browser.sort_button.text()
    browser.set_view_mode("list")
    header = browser.table_view.horizontalHeader()
    qtbot.mouseClick(header.viewport(), Qt.LeftButton,
                     pos=QPoint(header.sectionViewportPosition(COLUMN_KEYS.index("utility")) + 10,
                                header.height() // 2))
    assert browser.model.sort_key[0] == "utility"
    assert browser.sort_actions["utility"].isChecked()


def test_state_round_trips(qtbot, browser, seeded_store):
    browser.set_view_mode("list")
    browser.tabs.setCurrentIndex(tab_index(browser, "released"))
    browser.origin_combo.setCurrentIndex(browser.origin_combo.findData("human"))
    browser.sort_actions["updated"].trigger()
    browser.descending_action.trigger()
    state = browser.state()
    assert state == {"view_mode": "list", "lifecycle": "released", "origin": "human", "tag": None,
                     "search": "", "sort": "updated", "descending": True}
    other = BrowserWidget(SkillListModel(seeded_store))
    qtbot.addWidget(other)
    other.restore_state(state)
    assert other.state() == state
    assert other.model.names() == seeded_store.names(Filters(lifecycle="released", origin="human"),
                                                     sort="updated", descending=True)
    other.restore_state({"view_mode": "nonsense", "lifecycle": "gone", "sort": "nope"})
    assert other.state()["lifecycle"] is None and other.state()["sort"] is None


def test_card_tooltips_name_the_trust_tier(browser):
    view = browser.card_view
    delegate: CardDelegate = browser.delegate
    index = browser.model.index(browser.model.row_of("release-notes"), 0)
    option = QStyleOptionViewItem()
    option.rect = view.visualRect(index)
    option.font = view.font()
    geo = card_layout(option.rect.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN), CardFonts.of(option.font), "Released")
    assert delegate.tooltip_text(option, index, geo.stars.center()) == "Trusted"
    skill = browser.model.skill_at(index.row())
    assert delegate.tooltip_text(option, index, geo.description.center()) == skill.description
    assert delegate.sizeHint(option, index) == geo.card.size().grownBy(QMargins(MARGIN, MARGIN, MARGIN, MARGIN))
    # The real path: a tooltip event on the viewport reaches the delegate.
    viewport = view.viewport()
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.ToolTip, geo.stars.center(),
                                                viewport.mapToGlobal(geo.stars.center())))
    assert QToolTip.text() == "Trusted"
    QToolTip.hideText()


def test_screenshots(qtbot, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance()
    browser.select_name("release-notes")
    try:
        for name, tokens in (("light", theme.LIGHT), ("dark", theme.DARK)):
            theme.apply_theme(app, tokens)
            for mode in ("cards", "list"):
                browser.set_view_mode(mode)
                qtbot.waitUntil(lambda: browser.current_view().isVisible(), timeout=5000)
                QApplication.processEvents()   # pending layouts and repaints, before the picture
                path = SHOTS / f"browser-{mode}-{name}.png"
                assert browser.grab().save(str(path))
                assert path.stat().st_size > 0
        browser.set_view_mode("cards")
        qtbot.keyClicks(browser.search, "zebracorn")
        qtbot.waitUntil(lambda: browser.empty_label.isVisible(), timeout=5000)
        assert browser.grab().save(str(SHOTS / "browser-no-match-dark.png"))
    finally:
        theme.apply_theme(app, theme.LIGHT)


def test_select_all_selects_every_shown_skill(qtbot, browser):
    browser.tabs.setCurrentIndex(tab_index(browser, "released"))
    with qtbot.waitSignal(browser.selectionChanged) as blocker:
        browser.select_all()
    assert blocker.args[0] == browser.model.names()
    assert len(browser.selected_names()) == 5
