"""What the window does before its first paint: the skills' names are read once (with the saved
filters), the designer is not loaded until a skill is opened, and the library shows the same rows
and controls as when the browser read the names by itself first."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QSettings

from skill_studio.core.model import Lifecycle
from skill_studio.core.store import Filters
from skill_studio.ui.library.browser import BrowserWidget
from skill_studio.ui.library.models import SkillListModel
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow


@pytest.fixture
def settings(tmp_path):
    return StudioSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


def _count_name_reads(store, monkeypatch) -> list:
    calls: list = []
    real = store.names

    def names(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "names", names)
    return calls


SAVED = [
    {},
    {"view_mode": "list", "lifecycle": Lifecycle.CANDIDATE.value, "sort": "name", "descending": True},
    {"search": "release", "sort": "relevance"},
    {"tag": "no-such-tag", "origin": "human"},
]


@pytest.mark.parametrize("state", SAVED, ids=["defaults", "list-candidates", "search", "stale-tag"])
def test_the_window_reads_the_names_once_with_the_saved_filters(qtbot, seeded_store, settings, monkeypatch, state):
    settings.browser_state = state
    reads = _count_name_reads(seeded_store, monkeypatch)
    window = MainWindow(seeded_store, settings)
    qtbot.addWidget(window)
    assert len(reads) == 1
    assert window.model.names() == seeded_store.names(window.model.filters, sort=_sort(window.model),
                                                       descending=window.model.sort_key[1])

    # The same rows, counts and controls as a browser that read the names first, then the state.
    model = SkillListModel(seeded_store)
    reference = BrowserWidget(model)
    qtbot.addWidget(reference)
    reference.restore_state(state)
    assert window.model.names() == model.names()
    assert window.browser.state() == reference.state()
    assert window.browser.filters() == reference.filters()
    tabs = window.browser.tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == \
        [reference.tabs.tabText(i) for i in range(reference.tabs.count())]
    combo = window.browser.tag_combo
    if not state.get("tag"):   # the tags come after the first paint; a saved tag filter reads them at once
        assert [combo.itemText(i) for i in range(combo.count())] == ["All tags"]
        qtbot.waitUntil(window.settled)
    assert [combo.itemText(i) for i in range(combo.count())] == \
        [reference.tag_combo.itemText(i) for i in range(reference.tag_combo.count())]
    assert window.browser.empty_label.isHidden() == reference.empty_label.isHidden()


def _sort(model) -> str:
    sort, _ = model.sort_key
    return sort if (sort != "relevance" or model.filters.text) else "name"


def test_a_browser_made_without_loading_reads_on_restore(qtbot, seeded_store, monkeypatch):
    reads = _count_name_reads(seeded_store, monkeypatch)
    model = SkillListModel(seeded_store)
    browser = BrowserWidget(model, load=False)
    qtbot.addWidget(browser)
    assert reads == [] and model.rowCount() == 0
    assert browser.tag_combo.count() == 1   # the tags wait for load_tags
    browser.restore_state({})
    assert len(reads) == 1 and model.names() == seeded_store.names(Filters())
    assert browser.tag_combo.count() == 1
    browser.load_tags()
    assert browser.tag_combo.count() == len(seeded_store.tags()) + 1


def test_a_saved_tag_filter_reads_the_tags_at_once(qtbot, seeded_store):
    tag, n = seeded_store.tags()[0]
    browser = BrowserWidget(SkillListModel(seeded_store), load=False)
    qtbot.addWidget(browser)
    browser.restore_state({"tag": tag})
    assert browser.tag_combo.count() == len(seeded_store.tags()) + 1
    assert browser.tag_combo.currentText() == f"{tag} ({n})"


def test_the_designer_is_loaded_when_a_skill_is_opened(qtbot, seeded_store, settings):
    """In this process the designer module may be loaded already by other tests: the window must
    work either way, and with no designer open, none is found."""
    window = MainWindow(seeded_store, settings)
    qtbot.addWidget(window)
    assert window.workspace.designers() == [] and window.current_designer() is None
    designer = window.open_designer("release-notes")
    assert "skill_studio.ui.designer.designer" in sys.modules
    assert window.workspace.designers() == [designer] and window.current_designer() is designer
    window.workspace.setCurrentIndex(0)
    assert window.current_designer() is None


def test_no_designer_is_found_without_the_module(qtbot, seeded_store, settings, monkeypatch):
    window = MainWindow(seeded_store, settings)
    qtbot.addWidget(window)
    monkeypatch.delitem(sys.modules, "skill_studio.ui.designer.designer", raising=False)
    assert window.workspace.designers() == [] and window.current_designer() is None
    assert not window.actions["save"].isEnabled()


# --- what waits for the first paint, and what the first frame shows all the same -------------

def _count_stats(store, monkeypatch) -> list:
    calls: list = []
    real = store.stats

    def stats(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "stats", stats)
    return calls


@pytest.mark.parametrize("state", SAVED, ids=["defaults", "list-candidates", "search", "stale-tag"])
def test_the_details_are_built_once_and_show_what_a_panel_built_at_once_shows(qtbot, seeded_store, settings,
                                                                               monkeypatch, state):
    from skill_studio.ui.library.detail_panel import DetailPanel

    settings.browser_state = state
    reads = _count_stats(seeded_store, monkeypatch)
    window = MainWindow(seeded_store, settings)
    qtbot.addWidget(window)
    assert len(reads) == 1   # the empty state's counts, read once (not again for each selection signal)
    reference = DetailPanel(seeded_store)
    qtbot.addWidget(reference)
    assert window.details.skill_name is None and sorted(window.details.labels) == sorted(reference.labels)
    for key in reference.labels:
        assert window.details.plain_text(key) == reference.plain_text(key)
    assert window.details.open_button.isHidden() and window.details.review_bar.isHidden()


def test_a_selection_made_at_start_is_shown_in_the_details(qtbot, seeded_store, settings):
    from skill_studio.ui.library.detail_panel import DetailPanel

    window = MainWindow(seeded_store, settings)
    qtbot.addWidget(window)
    name = window.model.name_at(0)
    window.browser.select_name(name)
    reference = DetailPanel(seeded_store)
    qtbot.addWidget(reference)
    reference.show_skill(name)
    assert window.details.skill_name == name
    assert {k: window.details.plain_text(k) for k in reference.labels} == \
        {k: reference.plain_text(k) for k in reference.labels}


def test_a_panel_made_without_loading_shows_nothing_until_asked(qtbot, seeded_store, monkeypatch):
    from skill_studio.ui.library.detail_panel import DetailPanel

    reads = _count_stats(seeded_store, monkeypatch)
    panel = DetailPanel(seeded_store, load=False)
    qtbot.addWidget(panel)
    assert reads == [] and panel.labels == {} and panel.skill_name is None
    panel.show_skill(None)
    assert len(reads) == 1 and panel.plain_text("empty_counts")


def _team_folder(tmp_path):
    import shutil

    from conftest import SAMPLES

    root = tmp_path / "team"
    root.mkdir()
    shutil.copytree(SAMPLES / "release-notes", root / "release-notes")
    return root


def test_linked_folders_are_watched_after_the_first_paint(qtbot, store, settings, tmp_path):
    from skill_studio.core.library import linked

    team = _team_folder(tmp_path)
    linked.link(store, team)
    window = MainWindow(store, settings)
    qtbot.addWidget(window)
    feature = window.feature("linked")
    assert feature.watch.directories() == []           # nothing read before the first frame
    window.show()
    qtbot.waitUntil(window.settled)
    assert str(team) in feature.watch.directories()    # then the folder and its skills are watched
    assert str(team / "release-notes") in feature.watch.directories()


def test_linked_folders_are_not_read_once_the_store_closed(qtbot, store, settings, tmp_path):
    from skill_studio.core.library import linked

    linked.link(store, _team_folder(tmp_path))
    window = MainWindow(store, settings)
    qtbot.addWidget(window)
    feature = window.feature("linked")
    store.close()
    qtbot.waitUntil(window.settled)   # a window never shown: due at the first turn, and dropped
    assert feature.watch.directories() == [] and not feature.timer.isActive()


def test_the_linked_dialogs_are_still_found_where_they_were():
    from skill_studio.ui.agents import linked_dialogs, window_linked

    assert window_linked.ConflictDialog is linked_dialogs.ConflictDialog
    assert window_linked.LinksDialog is linked_dialogs.LinksDialog
    with pytest.raises(AttributeError, match="no_such_thing"):
        window_linked.no_such_thing  # noqa: B018 - the attribute read is the test
