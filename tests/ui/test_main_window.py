"""The main window: assembled panels, view toggles, selection, other writers, settings, drops."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from skill_studio.core.store import Store
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow


@pytest.fixture
def settings(tmp_path):
    return StudioSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


@pytest.fixture
def window(qtbot, seeded_store, settings):
    w = MainWindow(seeded_store, settings)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_window_shows_the_library(window, seeded_store):
    assert window.model.rowCount() == len(seeded_store)
    assert window.windowTitle().startswith("Skill Studio")
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus == ["File", "Edit", "View", "Skill", "Help"]


def test_details_follow_the_selection(window, qtbot):
    window.browser.select_name("release-notes")
    qtbot.waitUntil(lambda: window.details.skill_name == "release-notes")
    assert window.actions["delete"].isEnabled() and window.actions["export"].isEnabled()


def test_view_toggle_keeps_the_selection(window, qtbot):
    window.browser.select_name("pdf-extract")
    window.actions["view_list"].trigger()
    assert window.browser.view_mode() == "list"
    assert window.browser.selected_names() == ["pdf-extract"]
    window.actions["view_cards"].trigger()
    assert window.browser.view_mode() == "cards"
    assert window.browser.selected_names() == ["pdf-extract"]


def test_a_change_by_another_process_shows_up(window, seeded_store, tmp_path):
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin

    other = Store(seeded_store.path)
    other.add(build_skill(b"---\nname: from-cli\ndescription: Added elsewhere. Use when testing.\n---\n",
                          "from-cli", [], origin=Origin.HUMAN, source="cli"))
    other.close()
    assert window.watcher.check()
    assert window.model.row_of("from-cli") >= 0


def test_settings_persist_between_runs(qtbot, seeded_store, settings):
    first = MainWindow(seeded_store, settings)
    qtbot.addWidget(first)
    first.set_view_mode("list")
    first.browser.restore_state({**first.browser.state(), "lifecycle": "released"})
    first.close()
    second = MainWindow(seeded_store, settings)
    qtbot.addWidget(second)
    assert second.browser.view_mode() == "list"
    assert second.model.filters.lifecycle == "released"


def test_drop_a_folder_and_a_zip_imports_them(window, qtbot, tmp_path, seeded_store):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    from skill_studio.core.library.folder_write import export_archive
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin

    folder = tmp_path / "drop" / "dropped-skill"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: dropped-skill\ndescription: Dropped. Use when dragging.\n---\nBody\n")
    zipped = export_archive(build_skill(b"---\nname: zipped-skill\ndescription: Zipped. Use when zipping.\n---\n",
                                        "zipped-skill", [], origin=Origin.HUMAN, source="x"), tmp_path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder)), QUrl.fromLocalFile(str(zipped))])
    event = QDropEvent(QPointF(100, 100), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.import_report is not None, timeout=10_000)
    assert window.model.row_of("dropped-skill") >= 0 and window.model.row_of("zipped-skill") >= 0
    assert "2 imported" in window.statusBar().currentMessage()


def test_delete_is_refused_while_others_depend(window, seeded_store):
    shown = []
    window.feature("review").actions.ask_reason = lambda parent, title, text: ""
    window.feature("review").actions.tell = lambda title, text: shown.append(text)
    from conftest import make

    seeded_store.add(make("needs-notes", meta={"depends-on": "release-notes"}))
    window.refresh()
    window.browser.select_name("release-notes")
    window.actions["delete"].trigger()
    assert "release-notes" in seeded_store
    assert any('<a href="skill:needs-notes">needs-notes</a>' in text for text in shown)
    window.browser.select_name("changelog-writer")  # builtin: read-only
    window.actions["delete"].trigger()
    assert "changelog-writer" in seeded_store and "builtin" in shown[-1]


def test_screenshots(qtbot, tmp_path, seeded_store):
    """Card view, list view, dark theme and an empty store, for a person to look at."""

    from conftest import SCREENSHOTS

    out = SCREENSHOTS

    from skill_studio.ui import theme

    out.mkdir(exist_ok=True)
    app = QApplication.instance()
    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    w = MainWindow(seeded_store, settings)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    w.browser.select_name("release-notes")
    QApplication.processEvents()
    assert w.grab().save(str(out / "main-cards.png"))
    w.set_view_mode("list")
    QApplication.processEvents()
    assert w.grab().save(str(out / "main-list.png"))
    theme.apply_theme(app, theme.DARK)
    w.set_view_mode("cards")
    QApplication.processEvents()
    assert w.grab().save(str(out / "main-dark.png"))
    theme.apply_theme(app, theme.LIGHT)
    empty = MainWindow(Store(tmp_path / "empty.db"), settings)
    qtbot.addWidget(empty)
    empty.resize(1280, 800)
    empty.show()
    QApplication.processEvents()
    assert empty.grab().save(str(out / "main-empty.png"))


def test_right_click_selects_the_card_and_offers_its_actions(window, qtbot, monkeypatch):
    from PySide6.QtCore import Qt

    browser = window.browser
    browser.select_name("release-notes")
    view = browser.card_view
    row = window.model.row_of("pdf-extract")
    pos = view.visualRect(window.model.index(row, 0)).center()
    shown = []
    monkeypatch.setattr("PySide6.QtWidgets.QMenu.popup", lambda menu, at, *a: shown.append(
        [act.text().replace("&", "") for act in menu.actions() if not act.isSeparator()]))
    view.customContextMenuRequested.emit(pos)
    assert browser.selected_names() == ["pdf-extract"]  # the right click selected what it was on
    assert shown == [["Open in designer", "Lifecycle", "Merge…", "Export selection…", "Export selection as zip…",
                      "Copy name", "Delete…"]]
    browser.select_names(["pdf-extract", "release-notes"])
    shown.clear()
    view.customContextMenuRequested.emit(pos)  # on a selected card: the selection stays
    assert browser.selected_names() == ["pdf-extract", "release-notes"]
    assert "Copy names" in shown[0]
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_C, Qt.ControlModifier)
    assert QApplication.clipboard().text() == "pdf-extract\nrelease-notes"
    browser.search.setText("pdf")
    browser.search.selectAll()
    browser.search.setFocus()
    qtbot.keyClick(browser.search, Qt.Key_C, Qt.ControlModifier)  # the search field copies its own text
    assert QApplication.clipboard().text() == "pdf"


def test_right_click_on_empty_space_with_nothing_selected_shows_nothing(window, monkeypatch):
    from PySide6.QtCore import QPoint

    window.browser.select_names([])
    shown = []
    monkeypatch.setattr("PySide6.QtWidgets.QMenu.popup", lambda menu, at, *a: shown.append(menu))
    view = window.browser.card_view
    view.customContextMenuRequested.emit(QPoint(view.viewport().width() - 2, view.viewport().height() - 2))
    assert shown == []
