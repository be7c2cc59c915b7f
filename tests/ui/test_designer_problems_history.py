"""Designer problems, diff and history: debounced validation, the problems list, diffs and versions."""

import difflib
import threading

import pytest
from conftest import SCREENSHOTS
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from skill_studio.core.format import skillmd
from skill_studio.core.format.diagnostics import Diagnostic, Severity
from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.frontmatter import compose
from skill_studio.core.model import ENTRY_DEFAULTS, Origin
from skill_studio.ui import theme
from skill_studio.ui.designer.diff_rows import ADDED, EQUAL, FILLER, REMOVED
from skill_studio.ui.designer.diff_view import DiffView
from skill_studio.ui.designer.history_panel import HistoryPanel
from skill_studio.ui.designer.problems import PROFILE_LABELS, ProblemsPanel, ValidationRunner

GOOD = "---\nname: demo\ndescription: Does a thing. Use when needed.\n---\n\n# Demo\n\nBody.\n"
EXTRA_KEY = "---\nname: demo\ndescription: Does a thing. Use when needed.\nowner: me\n---\n\n# Demo\n"
BROKEN = "---\nname: demo\ndescription: a: b\n---\n\nBody.\n"


def shot(widget, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()  # let layouts settle after the last change
    assert widget.grab().save(str(SCREENSHOTS / name))


def shown(qtbot, widget, height=620, width=900):
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    return widget


def echo_validator(calls, slow_text=None, started=None, release=None):
    """A validator that reports its text as the message; on ``slow_text`` it says it ``started``
    and holds on until the test sets ``release``."""
    def validate(text, folder_name, profile, *, files=None, library_names=None):
        calls.append(text)
        if text == slow_text:
            started.set()
            release.wait(30)
        return [Diagnostic("X001", Severity.WARNING, text, 1)]
    return validate


def settled(qtbot, runner):
    """Wait until the runner has nothing pending or running, and what it sent is delivered."""
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=10000)
    runner.wait()
    QApplication.processEvents()   # a result already on its way from the pool thread arrives


def test_runner_debounces_quick_requests_into_one_result(qtbot):
    calls, results = [], []
    runner = ValidationRunner(delay_ms=80, validate=echo_validator(calls))
    runner.finished.connect(results.append)
    with qtbot.waitSignal(runner.finished, timeout=10000):
        for text in ("one", "two", "three"):
            runner.request(text, "demo", "strict")
    settled(qtbot, runner)   # nothing else is on its way
    assert calls == ["three"]
    assert [[d.message for d in r] for r in results] == [["three"]]
    assert not runner.is_busy()


def test_runner_newest_request_wins_when_work_overlaps(qtbot):
    calls, results, started, release = [], [], threading.Event(), threading.Event()
    runner = ValidationRunner(delay_ms=0, validate=echo_validator(calls, "slow", started, release))
    runner.finished.connect(results.append)
    runner.request("slow", "demo", "strict")
    qtbot.waitUntil(started.is_set, timeout=10000)
    runner.request("fast", "demo", "strict")
    release.set()   # the slow one ends only now, after the newer request
    with qtbot.waitSignal(runner.finished, timeout=10000) as blocker:
        pass
    settled(qtbot, runner)   # the slow one's result has come back too
    assert calls == ["slow", "fast"]  # the slow one did run, but its result was dropped
    assert [d.message for d in blocker.args[0]] == ["fast"]
    assert len(results) == 1 and runner.last == results[0]


def test_run_now_supersedes_a_pending_request(qtbot):
    calls, results = [], []
    runner = ValidationRunner(delay_ms=50, validate=echo_validator(calls))
    runner.finished.connect(results.append)
    runner.request("later", "demo", "strict")
    now = runner.run_now("now", "demo", "strict")
    assert not runner.is_busy()   # the pending request is dropped, not waiting for its delay
    settled(qtbot, runner)
    assert [d.message for d in now] == ["now"] and calls == ["now"] and len(results) == 1


def test_validator_exception_becomes_an_error_diagnostic(qtbot):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")
    runner = ValidationRunner(delay_ms=0, validate=broken)
    [d] = runner.run_now(GOOD, "demo", "strict")
    assert (d.code, d.severity) == ("S000", Severity.ERROR) and "ZeroDivisionError: boom" in d.message
    with qtbot.waitSignal(runner.finished, timeout=10000) as blocker:
        runner.request(GOOD, "demo", "strict")
    assert [d.code for d in blocker.args[0]] == ["S000"]
    # An unknown profile is the validator's ValueError, reported the same way.
    [d] = ValidationRunner().run_now(GOOD, "demo", "no-such-profile")
    assert d.code == "S000" and "ValueError" in d.message


def test_broken_frontmatter_gives_an_error_on_its_line(qtbot):
    runner = ValidationRunner(delay_ms=10)
    with qtbot.waitSignal(runner.finished, timeout=10000) as blocker:
        runner.request(BROKEN, "demo", "strict", files=[], library_names=["demo"])
    [d] = [d for d in blocker.args[0] if d.severity is Severity.ERROR]
    assert d.code == "S003" and d.line == 3 and "quote it" in d.hint


SAMPLE = [
    Diagnostic("W003", Severity.INFO, "description does not say when to use the skill", 3, "add 'Use when ...'"),
    Diagnostic("S019", Severity.ERROR, "Directory name 'x' must match skill name 'demo'", 2),
    Diagnostic("W002", Severity.WARNING, "link to scripts/run.sh names no file of the skill", 14,
               "add the file or fix the link"),
    Diagnostic("S000", Severity.ERROR, "Validation failed: KeyError: 'x'", None),
    Diagnostic("S010", Severity.ERROR, "Unexpected fields in frontmatter: owner", 4, "remove the field"),
]


@pytest.fixture
def panel(qtbot):
    return shown(qtbot, ProblemsPanel(), 260, 720)


def rows(panel):
    return [tuple(panel.tree.topLevelItem(i).text(c) for c in range(4))
            for i in range(panel.tree.topLevelItemCount())]


def test_panel_rows_sorted_by_line_with_counts_and_summary(qtbot, panel):
    with qtbot.waitSignal(panel.countsChanged) as blocker:
        panel.set_diagnostics(SAMPLE)
    assert blocker.args == [3, 1, 1] and panel.counts() == (3, 1, 1)
    assert panel.summary() == panel.summary_label.full_text() == "3 errors, 1 warning, 1 info"
    assert [r[1:3] for r in rows(panel)] == [("", "S000"), ("2", "S019"), ("3", "W003"), ("4", "S010"),
                                             ("14", "W002")]
    assert rows(panel)[1][0] == "Error" and rows(panel)[4][0] == "Warning"
    assert not panel.tree.topLevelItem(1).icon(0).isNull()
    assert "remove the field" in panel.tree.topLevelItem(3).toolTip(3)
    panel.tree.setCurrentItem(panel.tree.topLevelItem(4))
    assert panel.detail_label.isVisible() and "add the file or fix the link" in panel.detail_label.text()
    panel.set_diagnostics(SAMPLE[1:3])
    assert panel.summary() == "1 error, 1 warning"
    panel.set_diagnostics(SAMPLE)
    panel.tree.setCurrentItem(panel.tree.topLevelItem(3))
    shot(panel, "designer-problems.png")


def test_info_toggle_hides_info_rows_but_not_their_count(panel):
    panel.set_diagnostics(SAMPLE)
    panel.info_toggle.click()
    assert not panel.show_info() and panel.counts() == (3, 1, 1)
    assert "W003" not in [r[2] for r in rows(panel)] and len(rows(panel)) == 4
    panel.set_diagnostics([SAMPLE[0]])
    assert panel.stack.currentWidget() is panel.empty_label
    assert panel.empty_label.text() == "No errors or warnings with the strict profile (1 info hidden)"
    panel.info_toggle.click()
    assert rows(panel)[0][2] == "W003"


def test_activating_a_row_emits_its_line(qtbot, panel):
    panel.set_diagnostics(SAMPLE)
    tree = panel.tree
    tree.setCurrentItem(tree.topLevelItem(3))
    with qtbot.waitSignal(panel.lineActivated, timeout=1000) as blocker:
        qtbot.keyClick(tree, Qt.Key_Return)
    assert blocker.args == [4]
    rect = tree.visualItemRect(tree.topLevelItem(4))
    qtbot.mousePress(tree.viewport(), Qt.LeftButton, pos=rect.center())  # a double click starts with a press
    with qtbot.waitSignal(panel.lineActivated, timeout=1000) as blocker:
        qtbot.mouseDClick(tree.viewport(), Qt.LeftButton, pos=rect.center())
    assert blocker.args == [14]
    rect = tree.visualItemRect(tree.topLevelItem(1))
    with qtbot.waitSignal(panel.lineActivated, timeout=1000) as blocker:
        qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=rect.center())
    assert blocker.args == [2]
    with qtbot.assertNotEmitted(panel.lineActivated, wait=50):  # the file-wide row has no line
        tree.setCurrentItem(tree.topLevelItem(0))
        qtbot.keyClick(tree, Qt.Key_Return)


def test_empty_state_is_a_sentence_not_an_empty_table(panel):
    panel.set_diagnostics([])
    assert panel.empty_label.isVisible() and not panel.tree.isVisible()
    assert panel.empty_label.text() == "No problems found with the strict profile"
    assert panel.summary() == "No problems" and panel.counts() == (0, 0, 0)
    panel.set_profile("claude-upload")
    assert panel.empty_label.text() == "No problems found with the Claude upload profile"


def test_profile_combo_labels_and_switching_changes_diagnostics(qtbot, panel):
    combo = panel.profile_combo
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "Strict (reference validator)", "Lenient (how agents load it)", "Claude upload"]
    assert [combo.itemData(i) for i in range(combo.count())] == list(PROFILE_LABELS)
    runner = ValidationRunner(panel)
    runner.finished.connect(panel.set_diagnostics)
    panel.profileChanged.connect(lambda p: runner.run_now(EXTRA_KEY, "demo", p))
    runner.run_now(EXTRA_KEY, "demo", panel.profile())
    assert panel.counts()[0] == 1 and rows(panel)[0][2] == "S010" and rows(panel)[0][1] == "4"
    with qtbot.waitSignal(panel.profileChanged) as blocker:
        combo.setCurrentIndex(combo.findData("lenient"))
    assert blocker.args == ["lenient"]
    assert panel.counts()[0] == 0 and "L020" in [r[2] for r in rows(panel)]
    runner.run_now(GOOD.replace("name: demo", "name: other"), "demo", panel.profile())
    assert panel.counts() == (0, 1, 0) and rows(panel)[0][2] == "L014"
    with qtbot.assertNotEmitted(panel.profileChanged):
        panel.set_profile("strict")
    assert panel.profile() == "strict"


@pytest.fixture
def diff(qtbot):
    return shown(qtbot, DiffView(), 400)


def test_side_by_side_aligns_with_filler(diff):
    diff.set_texts("a\nb\nc\nd\n", "a\nc\nd\ne\nf\n", "old", "new")
    left, right = diff.left_pane, diff.right_pane
    assert left.blockCount() == right.blockCount() == 6
    assert left.side.kinds == [EQUAL, REMOVED, EQUAL, EQUAL, FILLER, FILLER]
    assert right.side.kinds == [EQUAL, FILLER, EQUAL, EQUAL, ADDED, ADDED]
    assert left.toPlainText().split("\n") == ["a", "b", "c", "d", "", ""]
    assert right.toPlainText().split("\n") == ["a", "", "c", "d", "e", "f"]
    assert left.side.numbers == ["1", "2", "3", "4", "", ""]
    assert (diff.left_label.text(), diff.right_label.text()) == ("old", "new")
    assert diff.stats_label.text() == "+2 \u22121 lines"
    assert left.isReadOnly() and right.isReadOnly()


def test_changed_characters_are_emphasised_and_scrolling_is_shared(diff):
    old = "".join(f"line {i}\n" for i in range(200)).replace("line 7\n", "colour = red\n")
    new = old.replace("colour = red", "colour = blue")
    diff.set_texts(old, new)
    row = diff.left_pane.side.lines.index("colour = red")
    assert diff.left_pane.side.kinds[row] == REMOVED and diff.right_pane.side.kinds[row] == ADDED
    left_spans, right_spans = diff.left_pane.side.spans[row], diff.right_pane.side.spans[row]
    assert left_spans and right_spans
    assert all(s >= len("colour = ") and e <= len("colour = red") for s, e in left_spans)
    assert all(s >= len("colour = ") and e <= len("colour = blue") for s, e in right_spans)
    assert "b" in "".join("colour = blue"[s:e] for s, e in right_spans)
    assert len(diff.left_pane.side.spans) == 1  # unchanged lines have no emphasis
    diff.left_pane.verticalScrollBar().setValue(120)
    assert diff.right_pane.verticalScrollBar().value() == 120


def test_unified_text_equals_difflib(qtbot, diff):
    old = "".join(f"line {i}\n" for i in range(40))
    new = old.replace("line 3\n", "line three\n").replace("line 30\n", "") + "tail\n"
    diff.set_texts(old, new, "v1", "v2")
    expected = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "v1", "v2", lineterm=""))
    assert diff.unified_text().split("\n") == expected
    with qtbot.waitSignal(diff.modeChanged) as blocker:
        diff.unified_button.click()
    assert blocker.args == ["unified"] and diff.mode() == "unified"
    assert diff.stack.currentWidget() is diff.unified_pane
    assert diff.unified_pane.toPlainText().split("\n") == expected
    kinds = diff.unified_pane.side.kinds
    assert kinds[:3] == ["header", "header", "hunk"] and kinds.count(ADDED) == 2 and kinds.count(REMOVED) == 2
    diff.set_mode("side")
    assert diff.side_button.isChecked() and not diff.unified_button.isChecked()
    with pytest.raises(ValueError):
        diff.set_mode("sideways")


def test_identical_texts_say_no_differences(diff):
    diff.set_texts(GOOD, GOOD, "v1", "v2")
    assert diff.stack.currentWidget() is diff.message_label and diff.message_label.isVisible()
    assert diff.message() == "No differences between v1 and v2" and diff.unified_text() == ""
    diff.set_texts(GOOD, GOOD.replace("\n", "\r\n"), "a", "b")
    assert diff.message().startswith("No differences") and "line endings" in diff.message()
    diff.set_texts("x\n", "y\n")
    assert diff.message() == ""


def test_large_texts_align(diff):
    old_lines = [f"line {i} with some words" for i in range(5000)]
    new_lines = list(old_lines)
    for i in range(0, 5000, 97):
        new_lines[i] = new_lines[i].replace("some", "other")
    del new_lines[2000:2010]
    new_lines[4000:4000] = ["inserted"] * 5
    diff.set_texts("\n".join(old_lines), "\n".join(new_lines))
    assert diff.left_pane.blockCount() == diff.right_pane.blockCount() >= 5000
    assert (diff.left_pane.side.kinds.count(FILLER), diff.right_pane.side.kinds.count(FILLER)) == (5, 10)
    diff.set_mode("unified")
    assert diff.unified_text().count("\n+inserted") == 5


def make(name, body, description="Does a thing. Use when needed."):
    doc = skillmd.parse_document(compose({"name": name, "description": description}, body))
    lifecycle, tier = ENTRY_DEFAULTS[Origin.HUMAN]
    return to_skill(doc, name, origin=Origin.HUMAN, lifecycle=lifecycle, trust_tier=tier, files=[])


BODIES = [
    "# Demo\n\nStep one.\nStep two.\n",
    "# Demo\n\nStep one.\nStep two, carefully.\nStep three.\n",
    "# Demo skill\n\nStep one.\nStep two, carefully.\nStep three.\n\n## Notes\n\nKeep it short.\n",
]


@pytest.fixture
def history(qtbot, store):
    store.add(make("demo", BODIES[0]), note="added")
    for version, body in enumerate(BODIES[1:], start=1):
        store.update("demo", make("demo", body), expected_version=version, note=f"edit {version}")
    fetched = []

    def text_of(version):
        fetched.append(version)
        return store.version_text("demo", version)[0]

    widget = shown(qtbot, HistoryPanel())
    widget.set_history(store.versions("demo"), text_of, store.get("demo").version)
    widget.fetched = fetched
    return widget


def test_history_lists_versions_and_selects_the_current_one(history):
    tree = history.tree
    assert history.versions_shown() == [3, 2, 1]
    assert tree.topLevelItem(0).text(0) == "v3 (current)" and tree.topLevelItem(0).font(0).bold()
    assert [tree.topLevelItem(i).text(3) for i in range(3)] == ["edit 2", "edit 1", "added"]
    assert tree.topLevelItem(2).text(2) == "tester" and tree.topLevelItem(1).text(1) == "just now"
    assert tree.topLevelItem(1).toolTip(1)[:2] == "20"
    assert history.selected_versions() == [3] and history.compared() == (2, 3)
    assert history.diff_view.labels() == ("Version 2", "Version 3 (current)")
    assert "+## Notes" in history.diff_view.unified_text()
    assert not history.restore_button.isEnabled()
    shot(history, "designer-history-side.png")
    history.diff_view.set_mode("unified")
    shot(history, "designer-history-unified.png")


def test_selecting_a_version_diffs_against_the_previous_and_two_against_each_other(history):
    history.select_versions(2)
    assert history.compared() == (1, 2)
    assert "-Step two.\n+Step two, carefully." in history.diff_view.unified_text()
    history.select_versions(1)
    assert history.compared() == (None, 1) and history.diff_view.labels()[0] == "Before version 1"
    history.select_versions(3, 1)
    assert history.selected_versions() == [1, 3] and history.compared() == (1, 3)
    assert history.diff_view.labels() == ("Version 1", "Version 3 (current)")
    assert not history.compare_combo.isEnabled() and not history.restore_button.isEnabled()
    history.select_versions(3)
    history.compare_with(1)
    assert history.compared() == (1, 3) and history.compare_combo.currentText() == "Version 1"
    history.compare_with(None)
    assert history.compared() == (2, 3)
    history.tree.clearSelection()
    assert history.compared() is None and history.diff_view.message().startswith("Select a version")
    assert sorted(history.fetched) == [1, 2, 3]  # each text fetched once


def test_restore_emits_the_version_and_is_off_for_the_current_and_read_only(qtbot, history):
    history.tree.setCurrentItem(history.tree.topLevelItem(1))
    assert history.selected_versions() == [2] and history.restore_button.isEnabled()
    with qtbot.waitSignal(history.restoreRequested, timeout=1000) as blocker:
        qtbot.mouseClick(history.restore_button, Qt.LeftButton)
    assert blocker.args == [2]
    history.select_versions(3)
    assert not history.restore_button.isEnabled()
    history.set_read_only(True)
    history.select_versions(1)
    assert not history.restore_button.isVisible()
    with qtbot.assertNotEmitted(history.restoreRequested):
        history.restore_button.click()


def test_history_after_restore_and_unreadable_version(store, history):
    store.restore("demo", 1, expected_version=3)
    history.set_history(store.versions("demo"), lambda v: store.version_text("demo", v)[0], 4)
    assert history.versions_shown() == [4, 3, 2, 1] and history.compared() == (3, 4)
    assert history.tree.topLevelItem(0).text(3) == "restored version 1"
    history.set_history(store.versions("demo"), lambda v: store.version_text("demo", 99)[0], 4)
    assert "Could not read" in history.diff_view.message()
    history.set_history([], lambda v: "", 0)
    assert history.diff_view.message() == "No saved versions yet"


def test_history_dark_screenshot(qtbot, store):
    app = QApplication.instance()
    theme.apply_theme(app, theme.DARK)
    try:
        store.add(make("demo", BODIES[0]))
        store.update("demo", make("demo", BODIES[2]), expected_version=1, note="more steps")
        widget = shown(qtbot, HistoryPanel())
        widget.set_history(store.versions("demo"), lambda v: store.version_text("demo", v)[0], 2)
        assert widget.compared() == (1, 2)
        shot(widget, "designer-history-dark.png")
    finally:
        theme.apply_theme(app, theme.LIGHT)
