"""The review workflow in the window: the queue tab, lifecycle actions from the menus, the detail
panel and the cards, refusals that name the allowed moves, trust stars, undo, the audit log."""

from __future__ import annotations

from datetime import UTC

import pytest
import shiboken6
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from skill_studio.core.model import Lifecycle, TrustTier
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow


@pytest.fixture
def window(qtbot, seeded_store, tmp_path):
    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    settings.reviewer = "ana"
    w = MainWindow(seeded_store, settings)
    qtbot.addWidget(w)
    w.resize(1300, 820)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=3000)
    told = []
    w.feature("review").actions.tell = lambda title, text: told.append(text)
    w.feature("review").actions.ask_reason = lambda parent, title, prompt: "checked by hand"
    w.told = told
    return w


def test_the_queue_tab_approves_by_keyboard_and_ctrl_z_undoes(window, qtbot, seeded_store):
    ws = window.workspace
    index = ws.indexOf(window.feature("review").queue)
    assert index == 1 and ws.tabText(index) == "Review (2)"
    window.actions["show_queue"].trigger()
    queue = window.feature("review").queue
    first = queue.current_name()
    queue.list.setFocus()
    qtbot.keyClick(queue.list, Qt.Key_A)
    assert seeded_store.get(first).lifecycle == Lifecycle.VERIFIED
    assert ws.tabText(index) == "Review (1)" and queue.current_name() != first
    entry = next(e for e in seeded_store.audit_log(first) if e.action == "promote")
    assert (entry.actor, entry.reason) == ("ana", "approved in the review queue")
    qtbot.keyClick(queue.list, Qt.Key_Z, Qt.ControlModifier)
    assert seeded_store.get(first).lifecycle != Lifecycle.VERIFIED and ws.tabText(index) == "Review (2)"


def test_reject_needs_a_reason_and_archives(window, qtbot, seeded_store):
    window.actions["show_queue"].trigger()
    queue = window.feature("review").queue
    name = queue.current_name()
    queue.list.setFocus()
    qtbot.keyClick(queue.list, Qt.Key_R)
    qtbot.keyClicks(queue.detail if False else QApplication.focusWidget(), "duplicate of pdf-tools")
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Return)
    skill = seeded_store.get(name)
    assert skill.lifecycle == Lifecycle.ARCHIVED and skill.lifecycle_reason == "duplicate of pdf-tools"


def test_lifecycle_menu_moves_the_selection_and_refusals_name_the_allowed_moves(window, seeded_store):
    window.browser.select_names(["release-notes", "security-review"])
    menu = window.context_menu()
    titles = [a.text().replace("&", "") for a in menu.actions()]
    assert "Lifecycle" in titles and "Merge…" in titles
    window.actions["move_deprecate"].trigger()
    assert {seeded_store.get(n).lifecycle for n in ("release-notes", "security-review")} == {Lifecycle.DEPRECATED}
    window.browser.select_names([])
    window.feature("review").actions.move(["release-notes"], "promote")  # deprecated cannot be promoted
    assert "allowed from deprecated: archive (→ archived), restore (→ candidate)" in window.told[-1]
    window.actions["undo"].trigger()  # the two deprecations were one step
    assert {seeded_store.get(n).lifecycle for n in ("release-notes", "security-review")} == \
           {Lifecycle.RELEASED, Lifecycle.VERIFIED}


def test_the_detail_panel_offers_allowed_moves_pins_and_clickable_stars(window, seeded_store):
    window.browser.select_name("security-review")
    bar = window.details.review_bar
    assert bar.isVisible() and bar.moves() == ["promote", "degrade", "deprecate", "archive"]
    bar.menu.actions()[0].trigger()
    assert seeded_store.get("security-review").lifecycle == Lifecycle.RELEASED
    bar.pin_button.click()
    assert seeded_store.get("security-review").pinned
    window.details.labels["trust"].linkActivated.emit("trust:1")
    assert seeded_store.get("security-review").trust_tier == TrustTier.UNTRUSTED
    window.browser.select_name("changelog-writer")  # builtin: no review buttons, no star links
    assert not window.details.review_bar.isVisible()
    assert "href" not in window.details.labels["trust"].text()


def test_clicking_a_star_on_a_card_sets_the_trust(window, qtbot, seeded_store):
    view = window.browser.card_view
    row = window.model.row_of("release-notes")
    index = window.model.index(row, 0)
    rect = view.visualRect(index)
    from PySide6.QtWidgets import QStyleOptionViewItem

    option = QStyleOptionViewItem()
    option.rect = rect
    option.font = view.font()
    geo = window.browser.delegate._layout(option, window.model.skill_at(row))
    star_width = geo.stars.width() // 4
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=geo.stars.topLeft() + type(geo.stars.topLeft())(
        star_width // 2, geo.stars.height() // 2))
    assert seeded_store.get("release-notes").trust_tier == TrustTier.UNTRUSTED


def test_the_audit_log_tab_shows_the_changes(window, seeded_store):
    window.feature("review").actions.move(["release-notes"], "degrade", "too many failures")
    window.actions["show_audit"].trigger()
    audit = window.feature("review").audit
    assert window.workspace.currentWidget() is audit
    rows = [audit.model.index(r, 2).data() for r in range(audit.model.rowCount())]
    assert "release-notes" in rows


def test_screenshots(window, qtbot):
    from conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    window.actions["show_queue"].trigger()
    queue = window.feature("review").queue
    qtbot.waitUntil(lambda: window.workspace.currentWidget() is queue and queue.isVisible()
                    and queue.current_name() is not None, timeout=5000)
    QApplication.processEvents()   # pending layouts and repaints, before the picture
    assert window.grab().save(str(SCREENSHOTS / "window-review-queue.png"))
    window.feature("review").actions.move(["release-notes"], "degrade", "too many failures")
    window.actions["show_audit"].trigger()
    audit = window.feature("review").audit
    qtbot.waitUntil(lambda: window.workspace.currentWidget() is audit and audit.isVisible()
                    and "release-notes" in [audit.model.index(r, 2).data() for r in range(audit.model.rowCount())],
                    timeout=5000)
    QApplication.processEvents()
    assert window.grab().save(str(SCREENSHOTS / "window-audit-log.png"))


def test_the_health_tab_runs_applies_through_undo_and_merges(window, qtbot, seeded_store):
    from datetime import datetime, timedelta

    from conftest import make

    from skill_studio.core.model import Origin

    seeded_store.add(make("forgotten", origin=Origin.LLM), now=datetime.now(UTC) - timedelta(days=400))
    window.actions["show_health"].trigger()
    view = window.feature("health").view
    assert window.workspace.currentWidget() is view
    with qtbot.waitSignal(view.runFinished, timeout=20_000) as run:
        view.start_run()
    assert any(a.skill == "forgotten" and a.applies for a in run.args[0].actions)
    view.confirm = lambda text: True
    view.inform = lambda text: None
    assert view.apply_plan()
    assert seeded_store.get("forgotten").lifecycle == Lifecycle.DEPRECATED
    window.workspace.setCurrentIndex(0)
    window.actions["undo"].trigger()  # the whole plan is one undo step
    assert seeded_store.get("forgotten").lifecycle == Lifecycle.CANDIDATE
    merged = []
    window.feature("review").actions.merge = lambda source, target: merged.append((source, target))
    view.mergeRequested.emit("a", "b")
    assert merged == [("a", "b")]


def test_delete_from_the_window_refuses_dependents_deletes_them_together_and_asks_first(window, seeded_store):
    from conftest import make

    actions = window.feature("review").actions
    seeded_store.add(make("needs-notes", meta={"depends-on": "release-notes"}))
    assert actions.delete(["gitmoji-commits", "release-notes"]) == ["gitmoji-commits"]
    assert "release-notes" in seeded_store and "needs-notes" in window.told[-1]
    assert sorted(actions.delete(["release-notes", "needs-notes"])) == ["needs-notes", "release-notes"]
    asked = []
    actions.ask_reason = lambda parent, title, prompt: asked.append(prompt) or None  # cancelled
    assert actions.delete(["csv-cleanup"]) == [] and "csv-cleanup" in seeded_store and asked
    actions.undo()
    assert {"release-notes", "needs-notes"} <= set(seeded_store.names())


def test_closed_audit_and_health_tabs_open_again(window, qtbot, seeded_store):
    ws = window.workspace
    window.actions["show_audit"].trigger()
    window.actions["show_health"].trigger()
    audit, health_view = window.feature("review").audit, window.feature("health").view
    for view in (audit, health_view):
        assert ws.close_designer(ws.indexOf(view))
    qtbot.waitUntil(lambda: not shiboken6.isValid(audit) and not shiboken6.isValid(health_view),
                    timeout=5000)                     # the closed views are deleted
    name = window.feature("review").queue.current_name()
    window.feature("review").actions.move([name], "promote", "checked")   # refreshes what is open, nothing else
    assert seeded_store.get(name).lifecycle is Lifecycle.VERIFIED
    window.actions["show_audit"].trigger()
    assert window.feature("review").audit is not audit and ws.currentWidget() is window.feature("review").audit
    window.actions["show_health"].trigger()
    assert window.feature("health").view is not health_view and ws.currentWidget() is window.feature("health").view
