"""The bindings panel: cards with their switch, the edit dialog (actions and their parameters,
conditions checked as typed), add/duplicate/delete, YAML export and import, the status line, the
event simulator (cooldowns tried with the clock offset), the event log, and the window's toggle
and detail panel; screenshots for a person to look at."""

from __future__ import annotations

import pytest
from conftest import SCREENSHOTS, make, shown_window
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog

from skill_studio.core.bus.dispatch import Binding, Condition
from skill_studio.core.model import Lifecycle
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui import theme
from skill_studio.ui.bindings.binding_dialog import BindingDialog
from skill_studio.ui.bindings.bindings_panel import BindingsPanel


@pytest.fixture
def bus_store(store):
    for name in ("pytest-runner", "lint-fixer", "release-notes"):
        store.add(make(name, f"Runs {name}. Use when {name} is needed.", f"# {name}\n\nSteps for {name}.\n"))
    draft = make("draft-helper", "A draft. Use when drafting.")
    draft.lifecycle = Lifecycle.CANDIDATE
    store.add(draft)
    store.add_binding(Binding("pytest-runner", "test_failed", "invoke_skill",
                              conditions=[Condition("file.path", r"/\.py$/")], priority=10, cooldown=600))
    store.add_binding(Binding("lint-fixer", "file_changed", "call_tool", {"tool": "run_linter",
                                                                          "arguments": {"path": "{file.path}"}},
                              conditions=[Condition("branch", "main")], priority=5))
    store.add_binding(Binding("release-notes", "commit_created", "emit_event",
                              {"event_type": "file_changed",
                               "payload": {"branch": "main", "file": {"path": "CHANGELOG.md"}}}))
    store.add_binding(Binding("draft-helper", "test_failed", "notify", {"message": "tests failed on {branch}"},
                              priority=1))
    store.add_binding(Binding("lint-fixer", "test_failed", "inject_context", {"text": "Lint {file.path}"},
                              enabled=False))
    return store


@pytest.fixture
def panel(qtbot, bus_store):
    theme.apply_theme(QApplication.instance(), theme.LIGHT)
    p = BindingsPanel(bus_store)
    qtbot.addWidget(p)
    p.resize(1100, 760)
    p.show()
    qtbot.waitExposed(p)
    p.told = []
    p.tell = lambda title, text: p.told.append(text)
    return p


def card_rect(panel, row):
    return panel.list.visualRect(panel.model.index(row))


def test_cards_status_and_the_switch(panel, qtbot, bus_store):
    assert panel.model.rowCount() == 5
    first = panel.model.binding_at(0)
    assert first.skill == "pytest-runner" and first.priority == 10   # highest priority first
    assert panel.status.text() == "Bus: 5 binding(s) · 4 enabled · 0 in cooldown now"
    text = panel.model.index(0).data(Qt.DisplayRole)
    assert "test_failed" in text and "cooldown 10 min" in text and r"file.path ~ /\.py$/" in text
    panel.grab().save(str(SCREENSHOTS / "bindings-panel.png"))
    switch = panel.delegate.switch_rect(card_rect(panel, 0).adjusted(4, 3, -4, -3)).center()
    qtbot.mouseClick(panel.list.viewport(), Qt.LeftButton, pos=switch)
    assert not bus_store.binding(first.id).enabled
    assert panel.status.text().startswith("Bus: 5 binding(s) · 3 enabled")
    qtbot.mouseClick(panel.list.viewport(), Qt.LeftButton, pos=switch)
    assert bus_store.binding(first.id).enabled
    panel.filter.setText("lint")
    assert panel.model.rowCount() == 2


def test_the_edit_dialog(qtbot, bus_store):
    d = BindingDialog(bus_store, None)
    qtbot.addWidget(d)
    d.resize(700, 620)
    d.show()
    qtbot.waitExposed(d)
    d.skill.setText("lint-fixer")
    d.event_type.setEditText("file_changed")
    d.action.setCurrentText("call_tool")
    assert set(d._param_edits) == {"tool", "arguments"}         # the parameters follow the action
    d._param_edits["tool"].setText("WordCount")
    d._param_edits["arguments"].setText('{"path": ')
    assert "JSON" in d._param_edits["arguments"].toolTip()
    d._param_edits["arguments"].setText('{"path": "{file.path}"}')
    row = d.add_condition("file.path", "(unclosed", regex=True)
    assert d.condition_error.isVisible() and "Condition 1" in d.condition_error.text()
    qtbot.waitUntil(lambda: d._param_edits["tool"].isVisible())   # rows added while open are shown
    d.grab().save(str(SCREENSHOTS / "binding-dialog.png"))
    d.conditions.cellWidget(row, 2).setText(r"\.py$")
    assert not d.condition_error.isVisible()
    d.cooldown.setValue(30)
    d.accept()                                                   # the tool name is refused
    assert d.result() != QDialog.DialogCode.Accepted and d.errors.isVisible() and "tool" in d.errors.text()
    d._param_edits["tool"].setText("word_count")
    d.accept()
    b = d.result_binding()
    assert b is not None and b.params == {"tool": "word_count", "arguments": {"path": "{file.path}"}}
    assert b.conditions == [Condition("file.path", r"/\.py$/")] and b.cooldown == 30
    d.action.setCurrentText("invoke_skill")      # what both actions take is kept
    assert set(d._param_edits) == {"arguments"} and d._param_text("arguments") == '{"path": "{file.path}"}'


def test_add_duplicate_delete_and_the_delete_key(panel, qtbot, bus_store):
    panel.edit_binding = lambda binding, title: Binding("release-notes", "deploy_finished", "notify",
                                                        {"message": "deployed"}, priority=50)
    assert panel.add()
    added = panel.selected()
    assert added.event_type == "deploy_finished" and bus_store.binding(added.id).priority == 50
    assert panel.duplicate()
    copy = panel.selected()
    assert copy.id != added.id and not copy.enabled and copy.event_type == "deploy_finished"
    panel.confirm = lambda title, text: True
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key_Delete)               # the binding goes, never a skill
    assert copy.id not in {b.id for b in bus_store.bindings()}
    assert "release-notes" in bus_store
    panel.edit_binding = lambda binding, title: None          # cancelled: nothing changes
    before = len(bus_store.bindings())
    assert not panel.add() and len(bus_store.bindings()) == before


def test_export_and_import_yaml(panel, tmp_path, bus_store):
    path = tmp_path / "bindings.yaml"
    panel.ask_save_path = lambda title, name, flt: str(path)
    assert panel.export()
    text = path.read_text()
    assert "pytest-runner" in text and "test_failed" in text
    for b in bus_store.bindings():
        bus_store.delete_binding(b.id)
    panel.ask_open_path = lambda title, flt: str(path)
    assert panel.import_() == 5
    assert len(bus_store.bindings()) == 5 and panel.model.rowCount() == 5
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("pytest-runner", "no-such-skill", 1))
    panel.ask_open_path = lambda title, flt: str(bad)
    assert panel.import_() == 0 and len(bus_store.bindings()) == 5    # all or nothing
    assert "no-such-skill" in panel.told[-1]


def test_the_simulator_with_cooldowns_and_the_log(panel, qtbot, bus_store):
    sim = panel.simulator
    panel.tabs.setCurrentWidget(sim)
    sim.event_type.setEditText("test_failed")
    sim.payload.setPlainText('{"file": {"path": "src/app.py"}, "branch": ')
    assert not sim.dispatch_button.isEnabled() and "line 1" in sim.payload_status.text()
    sim.payload.setPlainText('{"file": {"path": "src/app.py"}, "branch": "main"}')
    assert sim.dispatch_button.isEnabled()
    qtbot.mouseClick(sim.dispatch_button, Qt.LeftButton)
    rows = {sim.results.topLevelItem(i).text(0): sim.results.topLevelItem(i) for i in
            range(sim.results.topLevelItemCount())}
    assert rows["pytest-runner → invoke_skill"].text(1) == "fired"
    assert rows["draft-helper → notify"].text(1) == "skipped" and "not exposed" in rows["draft-helper → notify"].text(2)
    assert rows["lint-fixer → inject_context"].text(2) == "disabled"
    assert "cooldown" in panel.status.text() and "1 in cooldown now" in panel.status.text()
    sim.grab().save(str(SCREENSHOTS / "bindings-simulator.png"))
    qtbot.mouseClick(sim.dispatch_button, Qt.LeftButton)            # again at once: cooling down
    first = sim.results.topLevelItem(0)
    assert first.text(1) == "skipped" and "cooling down" in first.text(2)
    sim.unit.setCurrentIndex(sim.unit.findText("minutes"))
    sim.offset.setValue(11)                                          # 11 minutes later: expired
    assert "dispatching at" in sim.clock.full_text()
    logged = bus_store.event_count()
    qtbot.mouseClick(sim.dispatch_button, Qt.LeftButton)
    assert sim.results.topLevelItem(0).text(1) == "fired" and "not logged" in sim.summary.text()
    assert bus_store.event_count() == logged                         # a trial: the real cooldown is untouched
    sim.offset.setValue(0)
    qtbot.mouseClick(sim.dispatch_button, Qt.LeftButton)
    assert "cooling down" in sim.results.topLevelItem(0).text(2)
    sim.event_type.setEditText("")
    assert not sim.dispatch_button.isEnabled()
    # an event that emits another: the emitted one is shown under the binding that emitted it
    sim.offset.setValue(0)
    sim.event_type.setEditText("commit_created")
    sim.payload.setPlainText("{}")
    qtbot.mouseClick(sim.dispatch_button, Qt.LeftButton)
    emitter = sim.results.topLevelItem(0)
    assert emitter.text(1) == "fired" and emitter.child(0).text(0) == "emitted file_changed"
    called = emitter.child(0).child(0)
    assert called.text(0) == "lint-fixer → call_tool" and called.text(1) == "fired"
    # the tool's arguments filled from the payload
    assert "CHANGELOG.md" in called.text(3) and "run_linter" in called.text(3)
    # the log lists every event, filters and searches, and shows one event's details
    log = panel.log
    panel.tabs.setCurrentWidget(log)
    assert log.table.rowCount() == 5   # two test_failed, one more, commit_created and what it emitted
    log.type_filter.setCurrentIndex(log.type_filter.findData("commit_created"))
    assert log.table.rowCount() == 1 and log.table.item(0, 3).text() == "pass"
    log.table.selectRow(0)
    assert "commit_created" in log.details.toPlainText() and "release-notes" in log.details.toPlainText()
    log.type_filter.setCurrentIndex(0)
    log.search.setText("src/app.py")
    assert log.table.rowCount() == 3 and log.details.toPlainText() == ""
    # Delete anywhere in the panel never deletes the skill selected in the library
    log.table.setFocus()
    log.table.selectRow(0)
    qtbot.keyClick(log.table, Qt.Key_Delete)
    assert {"pytest-runner", "lint-fixer", "release-notes", "draft-helper"} <= set(bus_store.names())


@pytest.fixture
def window(qtbot, bus_store, tmp_path):
    w = shown_window(qtbot, bus_store, tmp_path, (1300, 820))
    return w


def test_delete_in_the_panel_never_deletes_a_skill(window, qtbot, bus_store):
    deleted = []
    window.feature("review").actions.delete = lambda names, *a, **k: deleted.append(names)
    window.browser.select_name("lint-fixer")
    window.actions["view_bindings"].trigger()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    panel = window.feature("bindings").panel
    for widget in (panel.log.table, panel.simulator.results, panel.tabs.tabBar()):
        panel.tabs.setCurrentWidget(panel.log if widget is panel.log.table else panel.simulator)
        widget.setFocus()
        qtbot.keyClick(widget, Qt.Key_Delete)
    assert deleted == [] and "lint-fixer" in bus_store


def test_the_window_toggle_and_the_detail_panel(window, qtbot, bus_store):
    window.browser.select_name("lint-fixer")
    text = window.details.plain_text("bindings")
    assert "on file_changed → call_tool" in text and "on test_failed → inject_context" in text
    window.details.labels["bindings"].linkActivated.emit("bindings")      # "Show in the bindings panel"
    panel = window.feature("bindings").panel
    assert window.feature("bindings").is_shown() and window.actions["view_bindings"].isChecked()
    assert panel.filter.text() == "lint-fixer" and panel.model.rowCount() == 2
    window.grab().save(str(SCREENSHOTS / "bindings-window.png"))
    window.actions["view_cards"].trigger()
    assert not window.feature("bindings").is_shown() and window.browser.isVisible()
    window.actions["view_bindings"].trigger()
    assert window.feature("bindings").is_shown()
    panel.filter.clear()
    bus_store.add_binding(Binding("release-notes", "pr_opened", "invoke_skill"))   # changed elsewhere
    window.publish(ChangeSet.outside())
    shown = [panel.model.binding_at(i).event_type for i in range(panel.model.rowCount())]
    assert "pr_opened" in shown and panel.status.text().startswith("Bus: 6 binding(s)")


def test_deleting_a_skill_says_its_bindings_go_and_undo_brings_them_back(window, qtbot, bus_store):
    asked = []
    window.feature("review").actions.ask_reason = lambda parent, title, prompt: asked.append(prompt) or "replaced"
    window.actions["view_bindings"].trigger()
    panel = window.feature("bindings").panel
    before = panel.model.rowCount()
    assert window.feature("review").actions.delete(["lint-fixer"]) == ["lint-fixer"]
    assert "Its 2 bindings to events go with it; Undo puts them back." in asked[0]
    assert "lint-fixer" not in bus_store and panel.model.rowCount() == before - 2
    assert "Bus: 3 binding(s)" in panel.status.text()
    window.actions["undo"].trigger()
    assert "lint-fixer" in bus_store and panel.model.rowCount() == before
    assert sorted(b.event_type for b in bus_store.bindings(skill="lint-fixer")) == ["file_changed", "test_failed"]


def test_an_empty_bus_says_so_across_the_whole_list(qtbot, tmp_path, store):
    w = shown_window(qtbot, store, tmp_path, (1280, 800))
    w.actions["view_bindings"].trigger()     # the page is made while the window is on screen
    panel = w.feature("bindings").panel
    viewport = panel.list.viewport()
    qtbot.waitUntil(lambda: panel.empty.isVisible() and panel.empty.size() == viewport.size())
    assert viewport.width() > 400 and "Add one" in panel.empty.text()
    w.resize(1100, 760)
    qtbot.waitUntil(lambda: panel.empty.size() == viewport.size())
