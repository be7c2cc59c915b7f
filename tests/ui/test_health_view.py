"""The health view: a real check runs on its thread and fills the summary, table, plan and pairs;
cancel stores nothing; the plan applies only ticked moves; pairs can be merged or dismissed;
the trend and the thresholds page work; screenshots for a person to look at."""

import time
from datetime import UTC, datetime, timedelta

import pytest
from conftest import SCREENSHOTS, make
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QDoubleSpinBox, QSpinBox

from skill_studio.core.health import checks as health
from skill_studio.core.health.checks import HealthRun, PlannedAction, SkillHealth
from skill_studio.core.model import Lifecycle, Origin, TrustTier
from skill_studio.ui import theme
from skill_studio.ui.health.health_models import (
    BAND_COLUMN,
    HEALTH_COLUMN,
    NAME_ROLE,
    VALUE_ROLE,
    HealthFilterProxy,
    PairModel,
    PlanModel,
    SkillHealthModel,
)
from skill_studio.ui.health.health_pairs import pair_roles
from skill_studio.ui.health.health_parts import BAND_COLOURS, EMPTY_TREND, NO_SKILL, score_band
from skill_studio.ui.health.health_view import HealthView

CSV_BODY = ("# CSV cleaner\n\nRead the CSV file, trim every cell, drop empty rows, normalise the dates "
            "to ISO 8601 and write the file back.\n")
CSV_DESCRIPTION = "Cleans CSV files: trims cells, drops empty rows, normalises dates. Use when a CSV is messy."


@pytest.fixture
def health_store(seeded_store):
    """The samples plus two stale llm skills (moved), a stale human one (reported only) and a
    near-duplicate pair where the llm copy should be merged into the human original."""
    old = datetime.now(UTC) - timedelta(days=400)
    for name, description, origin in (("old-llm-notes", "Summarises meeting notes. Use when notes pile up.",
                                       Origin.LLM),
                                      ("old-llm-slides", "Builds slide decks. Use when a talk is due.", Origin.LLM),
                                      ("old-human-guide", "Explains releasing. Use when releasing.", Origin.HUMAN)):
        seeded_store.add(make(name, description, origin=origin), now=old)
    seeded_store.add(make("csv-cleaner", CSV_DESCRIPTION, CSV_BODY, origin=Origin.HUMAN))
    seeded_store.add(make("csv-tidy", CSV_DESCRIPTION.replace("CSV is", "CSV file is"),
                          CSV_BODY + "\nKeep a backup.\n", origin=Origin.LLM))
    return seeded_store


@pytest.fixture
def view(qtbot, health_store):
    theme.apply_theme(QApplication.instance(), theme.LIGHT)
    v = HealthView(health_store)
    qtbot.addWidget(v, before_close_func=lambda w: w.shutdown())
    v.resize(1280, 800)
    return v


def run_check(qtbot, view) -> HealthRun:
    with qtbot.waitSignal(view.runFinished, timeout=20000) as blocker:
        qtbot.mouseClick(view.run_button, Qt.LeftButton)
        assert view.is_running() and not view.run_button.isEnabled()
    return blocker.args[0]


def sk(name, h, *, origin=Origin.LLM, lifecycle=Lifecycle.CANDIDATE, uses=1, failing=False, risk=None):
    return SkillHealth(name, origin, lifecycle, TrustTier.PROVISIONAL, False, uses, h, 0.1, h,
                       1 - h if risk is None else risk, h, failing)


def hand_run() -> HealthRun:
    skills = [sk("alpha", 0.9), sk("beta", 0.6), sk("gamma", 0.4), sk("delta", 0.1, origin=Origin.HUMAN)]
    actions = [PlannedAction("gamma", "deprecate", "stale", "freshness 0.05 < 0.1"),
               PlannedAction("delta", "deprecate", "stale", "human skill: reported", applies=False)]
    return HealthRun(skills, actions, [], health.summarize(skills, actions))


def plan_row(view, skill) -> int:
    return next(i for i, a in enumerate(view.plan_model.actions()) if a.skill == skill)


def test_models_pass_the_model_tester(qtmodeltester):
    run = hand_run()
    skills = SkillHealthModel()
    skills.set_skills(run.skills)
    qtmodeltester.check(skills)
    proxy = HealthFilterProxy()
    proxy.setSourceModel(skills)
    proxy.set_band("fair")
    qtmodeltester.check(proxy)
    assert [proxy.index(r, 0).data() for r in range(proxy.rowCount())] == ["beta"]
    plan = PlanModel()
    plan.set_actions(run.actions)
    qtmodeltester.check(plan)
    pairs = PairModel()
    pairs.set_pairs([("b", "a", 0.8)])
    qtmodeltester.check(pairs)


def test_a_real_run_fills_summary_table_plan_and_pairs(qtbot, view, health_store):
    result = run_check(qtbot, view)
    assert not view.is_running() and view.run_button.isEnabled()
    assert result.run_id and health_store.health_history("csv-tidy")       # kept for trends
    assert view.summary.counts == result.summary["bands"]
    for band, n in result.summary["bands"].items():
        assert f">{n}</b>" in view.summary.band_labels[band].text()
    assert "deprecate 2" in view.summary.actions_label.text()
    names = {view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())}
    assert names == {s.name for s in result.skills} and len(names) == 15
    assert view.plan_model.rowCount() == len(result.actions)
    assert {a.skill for a in result.actions if a.rule == "stale"} == {"old-llm-notes", "old-llm-slides",
                                                                      "old-human-guide"}
    assert view.pair_model.pairs()[0][:2] == ("csv-tidy", "csv-cleaner")
    assert view.tabs.tabText(1) == f"Near-duplicates ({len(result.pairs)})"

    view.table.sortByColumn(HEALTH_COLUMN, Qt.DescendingOrder)
    shown = [view.proxy.index(r, HEALTH_COLUMN).data(VALUE_ROLE) for r in range(view.proxy.rowCount())]
    assert shown == sorted((s.health for s in result.skills), reverse=True)
    view.table.sortByColumn(HEALTH_COLUMN, Qt.AscendingOrder)
    assert view.proxy.index(0, HEALTH_COLUMN).data(VALUE_ROLE) == min(s.health for s in result.skills)


def test_filter_box_and_band_combo(qtbot, view):
    view.show_result(hand_run())
    qtbot.keyClicks(view.filter_edit, "al")
    assert [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())] == ["alpha"]
    view.filter_edit.clear()
    view.band_combo.setCurrentIndex(view.band_combo.findData("critical"))
    assert [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())] == ["delta"]
    assert view.shown_label.text() == "1 of 4 skills"


def test_cancel_stops_a_run_and_nothing_is_stored(qtbot, view, health_store):
    def slow_run(store, *, progress, cancelled):
        for i in range(100000):
            progress("vectors", i, 100000)
            if cancelled():
                raise InterruptedError("cancelled")
            time.sleep(0.001)
        raise AssertionError("never cancelled")

    view.run_health = slow_run
    qtbot.mouseClick(view.run_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: view.stage_label.text().startswith("Reading skills"), timeout=5000)
    assert view.progress.maximum() == 100000 and view.cancel_button.isEnabled()
    assert view.table.isEnabled() and view.settings_page.save_button.isEnabled()   # the rest stays usable
    with qtbot.waitSignal(view.runCancelled, timeout=5000):
        qtbot.mouseClick(view.cancel_button, Qt.LeftButton)
    assert not view.is_running() and view.run_button.isEnabled() and view.result is None
    assert "nothing was stored" in view.status_label.full_text()
    assert health_store.recent_health(5) == {}


def test_a_real_run_cancelled_at_once_keeps_nothing(qtbot, view, health_store):
    view.run_health = lambda store, *, progress, cancelled: health.run(store, progress=progress, cancelled=lambda: True)
    with qtbot.waitSignal(view.runCancelled, timeout=10000):
        view.start_run()
    assert health_store.recent_health(5) == {} and view.result is None


def test_a_failing_run_is_reported(qtbot, view):
    def broken(store, **_):
        raise RuntimeError("disk on fire")

    view.run_health = broken
    with qtbot.waitSignal(view.runFailed, timeout=5000) as blocker:
        view.start_run()
    assert "disk on fire" in blocker.args[0] and "disk on fire" in view.status_label.full_text()
    assert view.run_button.isEnabled()


def test_unticked_moves_are_excluded_from_apply(qtbot, view):
    run_check(qtbot, view)
    calls, asked = [], []
    view.do_apply = lambda actions, exclude: calls.append((actions, list(exclude))) or (None, [])
    view.confirm = lambda text: asked.append(text) or True
    assert view.apply_button.text() == "Apply 2 moves"
    assert view.plan_model.set_checked(plan_row(view, "old-llm-notes"), False)
    assert view.apply_button.text() == "Apply 1 move"
    with qtbot.waitSignal(view.storeChanged):
        qtbot.mouseClick(view.apply_button, Qt.LeftButton)
    (actions, exclude), = calls
    assert exclude == ["old-llm-notes"] and "old-llm-slides" in asked[0] and "old-llm-notes" not in asked[0]
    assert {a.skill for a in actions if a.applies} == {"old-llm-notes", "old-llm-slides"}


def test_the_real_apply_changes_the_store_once_confirmed(qtbot, view, health_store):
    run_check(qtbot, view)
    view.confirm = lambda text: False
    assert not view.apply_plan()
    assert health_store.get("old-llm-slides").lifecycle == Lifecycle.CANDIDATE
    view.confirm = lambda text: True
    view.plan_model.set_checked(plan_row(view, "old-llm-notes"), False)
    with qtbot.waitSignal(view.storeChanged) as applied:
        qtbot.mouseClick(view.apply_button, Qt.LeftButton)
    assert applied.args[0].changed == {"old-llm-slides"} and not applied.args[0].membership
    assert health_store.get("old-llm-slides").lifecycle == Lifecycle.DEPRECATED
    assert health_store.get("old-llm-notes").lifecycle == Lifecycle.CANDIDATE
    row = plan_row(view, "old-llm-slides")
    assert not view.plan_model.checkable(row) and "(applied)" in view.plan_model.index(row, 1).data()
    assert view.plan_model.checkable(plan_row(view, "old-llm-notes"))   # the unticked one can still be applied
    assert view.apply_button.text() == "Apply 0 moves" and not view.apply_button.isEnabled()


def test_refusals_are_shown(qtbot, view):
    view.show_result(hand_run())
    shown = []
    view.confirm, view.inform = (lambda text: True), shown.append
    view.do_apply = lambda actions, exclude: (None, ['Cannot deprecate "gamma": moved meanwhile'])
    view.apply_plan()
    assert shown and "moved meanwhile" in shown[0]


def test_reported_only_actions_cannot_be_ticked(qtbot, view):
    run_check(qtbot, view)
    for skill in ("old-human-guide", "csv-tidy"):
        row = plan_row(view, skill)
        index = view.plan_model.index(row, 0)
        assert not index.flags() & Qt.ItemIsUserCheckable and not index.flags() & Qt.ItemIsEnabled
        assert not view.plan_model.set_checked(row, True)
        assert index.data(Qt.CheckStateRole) == Qt.Unchecked
        assert "(reported)" in view.plan_model.index(row, 1).data()
    assert {a.skill for a in view.plan_model.checked_actions()} == {"old-llm-notes", "old-llm-slides"}


def test_a_pair_shows_both_files_and_merge_names_source_and_target(qtbot, view, health_store):
    run_check(qtbot, view)
    assert not view.merge_button.isEnabled()
    view.select_pair(0)
    assert view.diff.labels()[0].startswith("csv-cleaner") and view.diff.labels()[1].startswith("csv-tidy")
    assert view.diff.left_pane.toPlainText().startswith("---")
    assert "Keep a backup." in view.diff.right_pane.toPlainText()
    with qtbot.waitSignal(view.mergeRequested) as blocker:
        qtbot.mouseClick(view.merge_button, Qt.LeftButton)
    assert blocker.args == ["csv-tidy", "csv-cleaner"]


def test_not_duplicates_dismisses_the_pair_for_good(qtbot, view, health_store):
    run_check(qtbot, view)
    before = view.pair_model.rowCount()
    view.select_pair(0)
    qtbot.mouseClick(view.dismiss_button, Qt.LeftButton)
    assert health_store.dismissed_pairs() == {("csv-cleaner", "csv-tidy")}
    assert view.pair_model.rowCount() == before - 1
    assert view.tabs.tabText(1) == (f"Near-duplicates ({before - 1})" if before > 1 else "Near-duplicates")
    assert "csv-tidy" not in {a.skill for a in view.plan_model.actions()}
    assert ("csv-tidy", "csv-cleaner") not in [p[:2] for p in view.pair_model.pairs()]
    assert view.dismiss_button.isEnabled() == (before > 1)
    result = run_check(qtbot, view)
    assert {"csv-cleaner", "csv-tidy"} not in [{p.a, p.b} for p in result.pairs]
    assert view.pair_model.rowCount() == before - 1


def test_trend_has_a_point_per_run(qtbot, view):
    assert view.trend.message() == NO_SKILL
    view.show_result(hand_run())              # not kept: no history for its skills
    assert view.select_skill("alpha") and view.trend.message() == EMPTY_TREND
    run_check(qtbot, view)
    assert view.select_skill("csv-cleaner") and len(view.trend.points()) == 1
    run_check(qtbot, view)
    assert view.current_skill() == "csv-cleaner"       # the selection survives a new run
    points = view.trend.points()
    assert len(points) == 2 and view.trend.message() == ""
    plot = view.trend.plot_rect()
    assert all(plot.top() <= p.y() <= plot.bottom() for p in points) and points[0].x() < points[1].x()


def test_activating_a_row_names_the_skill(qtbot, view):
    view.show_result(hand_run())
    with qtbot.waitSignal(view.skillActivated) as blocker:
        view.table.doubleClicked.emit(view.proxy.index(0, 0))
    assert blocker.args == [view.proxy.index(0, 0).data(NAME_ROLE)]


def test_thresholds_page_saves_and_restores_defaults(qtbot, view, health_store):
    page = view.settings_page
    assert page.values() == health.DEFAULTS
    assert isinstance(page.editors["health.only_llm"], QCheckBox)
    assert isinstance(page.editors["health.stale_max_uses"], QSpinBox)
    assert isinstance(page.editors["health.duplicate"], QDoubleSpinBox)
    page.editors["health.duplicate"].setValue(0.9)
    page.editors["health.stale_max_uses"].setValue(7)
    page.editors["health.only_llm"].setChecked(False)
    with qtbot.waitSignal(page.settingsSaved):
        qtbot.mouseClick(page.save_button, Qt.LeftButton)
    cfg = health.settings(health_store)
    assert (cfg["health.duplicate"], cfg["health.stale_max_uses"], cfg["health.only_llm"]) == (0.9, 7, False)
    qtbot.mouseClick(page.restore_button, Qt.LeftButton)
    assert page.values() == health.DEFAULTS and health.settings(health_store) == health.DEFAULTS


def failing_run() -> HealthRun:
    """A skill that fails most of its uses with a middling health, one never used with a low one,
    and a template family of three reported once."""
    skills = [sk("alpha", 0.9), sk("broken", 0.5, uses=12, failing=True, risk=0.85), sk("unused", 0.35, uses=0),
              sk("form-a", 0.6), sk("form-b", 0.61), sk("form-c", 0.62)]
    family = PlannedAction("form-a", "review", "template-family",
                           "3 skills share one template; they differ in the product name", applies=True,
                           members=["form-a", "form-b", "form-c"])
    actions = [PlannedAction("broken", "deprecate", "failing", "success rate 0.15 < 0.3 after 12 uses"), family]
    return HealthRun(skills, actions, [], health.summarize(skills, actions))


def test_failing_skills_have_their_band_filter_summary_and_stand_lowest(qtbot, view):
    run = failing_run()
    broken = next(s for s in run.skills if s.name == "broken")
    assert broken.band == "failing" and run.summary["bands"]["failing"] == 1
    view.show_result(run)
    assert view.summary.counts["failing"] == 1
    label = view.summary.band_labels["failing"].text()
    assert "failing" in label and ">1</b>" in label and BAND_COLOURS["failing"] in label
    view.band_combo.setCurrentIndex(view.band_combo.findData("failing"))
    assert [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())] == ["broken"]
    assert view.shown_label.text() == "1 of 6 skills"
    view.band_combo.setCurrentIndex(0)
    view.table.sortByColumn(HEALTH_COLUMN, Qt.AscendingOrder)
    order = [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())]
    assert order[:2] == ["broken", "unused"]     # failing below the never-used skill of lower health
    assert order == [s.name for s in sorted(run.skills, key=lambda s: s.standing)]
    view.table.sortByColumn(HEALTH_COLUMN, Qt.DescendingOrder)
    assert view.proxy.index(view.proxy.rowCount() - 1, 0).data() == "broken"
    view.table.sortByColumn(BAND_COLUMN, Qt.AscendingOrder)
    assert view.proxy.index(0, 0).data() == "broken"
    view.table.sortByColumn(HEALTH_COLUMN, Qt.AscendingOrder)
    band_cell = view.proxy.index(0, BAND_COLUMN)
    assert band_cell.data() == "failing" and band_cell.data(Qt.ToolTipRole) == f"failing: {broken.why}"
    assert "success rate 0.15" in band_cell.data(Qt.ToolTipRole)
    unused = view.proxy.index(1, BAND_COLUMN)
    assert unused.data(Qt.ToolTipRole) == f"{unused.data()}: {run.skills[2].why}"


def test_a_template_family_is_one_row_reported_never_applied_nor_paired(qtbot, view):
    run = failing_run()
    view.show_result(run)
    row = plan_row(view, "form-a")
    model = view.plan_model
    assert model.index(row, 0).data() == "form-a + 2 more (3 skills)"
    assert model.index(row, 3).data() == "3 skills share one template; they differ in the product name"
    assert model.index(row, 1).data() == "review (reported)"
    tip = model.index(row, 0).data(Qt.ToolTipRole)
    assert tip.startswith("3 skills share one template") and all(f"• {m}" in tip for m in ("form-a", "form-b",
                                                                                           "form-c"))
    assert not model.checkable(row) and not model.set_checked(row, True)
    assert not model.index(row, 0).flags() & Qt.ItemIsUserCheckable
    assert [a.skill for a in model.checked_actions()] == ["broken"] and "form-a" not in model.excluded_skills()
    assert not any(a.applies for a in model.actions() if a.rule == "template-family")
    assert pair_roles(run) == [] and view.pair_model.rowCount() == 0
    calls = []
    view.confirm = lambda text: True
    view.do_apply = lambda actions, exclude: calls.append(actions) or (None, [])
    assert view.apply_plan()
    assert all(not a.applies for a in calls[0] if a.rule == "template-family")
    model.mark_applied({"form-a", "broken"})
    assert "(applied)" not in model.index(row, 1).data()


def test_the_trend_colours_a_point_by_its_score_band(qtbot, view):
    assert [score_band(h) for h in (0.95, 0.6, 0.35, 0.1, 0.0, -0.2)] == ["healthy", "fair", "poor", "critical",
                                                                          "critical", "critical"]
    view.show_result(failing_run())
    view.trend.set_history("broken", [(1, "2025-01-01T00:00:00Z", 0.5), (2, "2025-01-09T00:00:00Z", -0.1)])
    view.trend.resize(320, 200)
    assert not view.trend.grab().isNull() and len(view.trend.points()) == 2


def _shoot(qtbot, view, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    view.setAttribute(Qt.WA_DontShowOnScreen)   # laid out and painted, never a window on a screen
    view.show()
    qtbot.waitUntil(view.isVisible, timeout=5000)
    QApplication.processEvents()   # pending layouts and repaints, before the picture
    image = view.grab()
    assert image.width() == 1280 and image.save(str(SCREENSHOTS / name))


def test_screenshots(qtbot, view, health_store):
    health_store.add(make("log-reader", "Reads log files. Use when a service fails.", origin=Origin.LLM),
                     now=datetime.now(UTC) - timedelta(days=40))
    run_check(qtbot, view)
    run_check(qtbot, view)
    view.select_skill("csv-tidy")
    _shoot(qtbot, view, "health-view.png")
    view.tabs.setCurrentIndex(1)
    view.select_pair(0)
    _shoot(qtbot, view, "health-duplicates.png")
