"""The main window: assembled panels, view toggles, selection, other writers, settings, drops."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from skill_studio.core.store import Store
from skill_studio.ui.main_window import MainWindow
from skill_studio.ui.settings import StudioSettings


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
    from skill_studio.core.folders import build_skill
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
