"""One way out: every operation reaches the views as one change set, and each view refreshes at most
once, only when it shows something that changed. Also: a view plugs in through one registration line."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QToolBar

from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Store
from skill_studio.ui.health.health_view import HealthView
from skill_studio.ui.health.window_health import HealthFeature
from skill_studio.ui.library.models import SKILL_ROLE, VERDICT_ROLE
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.features import FEATURES
from skill_studio.ui.shell.main_window import MainWindow

SKILL = "release-notes"


class Counted:
    """Wraps a view's refresh method (an instance attribute shadows it) and counts the calls."""

    def __init__(self, obj, name: str):
        self.calls = 0
        self._real = getattr(obj, name)
        setattr(obj, name, self)

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self._real(*args, **kwargs)


class Refreshes:
    """How often each view refreshed since the last :meth:`take`."""

    def __init__(self, window, qtbot):
        self.window, self.qtbot = window, qtbot
        model = window.model
        self.resets = self.row_updates = 0
        model.modelReset.connect(self._reset)
        model.dataChanged.connect(self._rows)
        window.actions["show_graph"].trigger()
        self.graph = window.page("graph")
        qtbot.waitUntil(lambda: self.graph.prepared is not None and not self.graph.is_running(), timeout=15_000)
        window.actions["try_query"].trigger()
        self.query = window.page("query")
        self.query.set_query("release notes", "keywords")
        window.actions["view_bindings"].trigger()
        self.bindings = window.page("bindings")
        window.actions["show_audit"].trigger()
        self.audit = window.page("audit")
        self.queue = window.page("review_queue")
        window.set_view_mode("cards")
        window.workspace.setCurrentIndex(0)
        self.spies = {"graph": Counted(self.graph, "reload"), "query": Counted(self.query, "run"),
                      "bindings": Counted(self.bindings, "refresh"), "queue": Counted(self.queue, "refresh"),
                      "audit": Counted(self.audit, "refresh")}
        self.changes: list[ChangeSet] = []
        window.changed.connect(self.changes.append)

    def _reset(self) -> None:
        self.resets += 1

    def _rows(self, _top, _bottom, roles=()) -> None:
        if VERDICT_ROLE in roles:   # a strict-check verdict arriving from its thread, not a re-read
            return
        self.row_updates += 1

    def take(self) -> dict:
        self.qtbot.waitUntil(lambda: not self.graph.is_running(), timeout=15_000)
        counts = {"changes": len(self.changes), "resets": self.resets, "row_updates": self.row_updates,
                  **{name: spy.calls for name, spy in self.spies.items()}}
        self.changes.clear()
        self.resets = self.row_updates = 0
        for spy in self.spies.values():
            spy.calls = 0
        return counts


def row_of(window, name: str):
    return window.model.data(window.model.index(window.model.row_of(name), 0), SKILL_ROLE)


@pytest.fixture
def window(qtbot, seeded_store, tmp_path):
    w = MainWindow(seeded_store, StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w, before_close_func=lambda w: w.page("graph") and w.page("graph").shutdown())
    w.resize(1300, 820)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def refreshes(window, qtbot):
    return Refreshes(window, qtbot)


def test_a_save_in_the_designer_updates_its_row_and_what_shows_its_content(window, refreshes, qtbot):
    window.browser.select_name(SKILL)
    before = row_of(window, SKILL).description
    designer = window.open_designer(SKILL)
    designer.toolbar.note.setText("a test edit")
    designer.ask_unsaved = lambda: "discard"
    designer.editor.setPlainText(designer.text().replace(before, "Writes release notes from the log, tersely.", 1))
    refreshes.take()
    assert designer.save()
    counts = refreshes.take()
    assert counts == {"changes": 1, "resets": 0, "row_updates": 1, "graph": 1, "query": 1, "bindings": 0,
                      "queue": 1, "audit": 1}
    assert row_of(window, SKILL).description == "Writes release notes from the log, tersely."
    assert window.browser.selected_names() == [SKILL]


def test_a_lifecycle_move_updates_the_row_without_a_reset(window, refreshes):
    window.browser.select_name(SKILL)
    window.feature("review").actions.move([SKILL], "degrade", "too many failures")
    counts = refreshes.take()
    assert counts == {"changes": 1, "resets": 0, "row_updates": 1, "graph": 1, "query": 1, "bindings": 0,
                      "queue": 1, "audit": 1}
    assert row_of(window, SKILL).lifecycle == "degraded"
    assert window.browser.selected_names() == [SKILL]
    assert window.details.plain_text("lifecycle").lower().startswith("degraded")


def test_an_import_reloads_the_list_once(window, refreshes, qtbot, tmp_path):
    folder = tmp_path / "in" / "imported-skill"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: imported-skill\ndescription: Imported. Use when importing.\n---\n")
    window.import_paths([str(folder)])
    qtbot.waitUntil(lambda: window.import_report is not None, timeout=10_000)
    window.import_report.close()
    counts = refreshes.take()
    assert counts == {"changes": 1, "resets": 1, "row_updates": 0, "graph": 1, "query": 1, "bindings": 1,
                      "queue": 1, "audit": 1}
    assert row_of(window, "imported-skill").description == "Imported. Use when importing."


def test_a_change_made_elsewhere_refreshes_each_view_once(window, refreshes, qtbot, seeded_store):
    other = Store(seeded_store.path)
    other.add(build_skill(b"---\nname: from-cli\ndescription: Added elsewhere. Use when testing.\n---\n",
                          "from-cli", [], origin=Origin.HUMAN, source="cli"))
    other.close()
    with qtbot.waitSignal(window.changed, timeout=10_000):   # the watcher notices within its interval
        pass
    counts = refreshes.take()
    assert counts == {"changes": 1, "resets": 1, "row_updates": 0, "graph": 1, "query": 1, "bindings": 1,
                      "queue": 1, "audit": 1}
    assert row_of(window, "from-cli").description == "Added elsewhere. Use when testing."


def test_a_bindings_change_leaves_the_skill_views_alone(window, refreshes):
    window.publish(ChangeSet.of(bindings=True))
    counts = refreshes.take()
    assert counts == {"changes": 1, "resets": 0, "row_updates": 0, "graph": 0, "query": 0, "bindings": 1,
                      "queue": 0, "audit": 0}


def test_a_batch_reaches_the_views_as_one_change(window, refreshes):
    with window.batch():
        window.publish(ChangeSet.of(changed={SKILL}))
        window.publish(ChangeSet.of(changed={"pdf-extract"}))
    counts = refreshes.take()
    assert counts["changes"] == 1 and counts["graph"] == 1 and counts["resets"] == 0


def test_a_view_plugs_in_with_one_registration_line(qtbot, seeded_store, tmp_path):
    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    others = [f for f in FEATURES if f is not HealthFeature]
    without = MainWindow(seeded_store, settings, features=others)
    qtbot.addWidget(without)
    assert "show_health" not in without.actions

    window = MainWindow(seeded_store, settings, features=[*others, HealthFeature])   # the one line
    qtbot.addWidget(window)
    action = window.action("show_health")
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert action in view_menu.actions() and action in window.findChild(QToolBar).actions()
    assert action.shortcut().toString() == "Ctrl+Shift+H"
    assert window.page("health") is None
    action.trigger()
    page = window.page("health")
    assert isinstance(page, HealthView) and window.workspace.currentWidget() is page
    assert window.workspace.tabText(window.workspace.indexOf(page)) == "Health"
