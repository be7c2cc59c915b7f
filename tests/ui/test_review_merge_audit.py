"""The merge dialog (preview, swap, refusals, apply, cancel) and the audit log view (filters, sort, CSV)."""

import csv

import pytest
from conftest import SCREENSHOTS, make
from PySide6.QtCore import QDate, QPoint, Qt
from PySide6.QtWidgets import QApplication, QDialog

from skill_studio.core.model import Lifecycle
from skill_studio.core.review.lifecycle import Change, move, set_trust
from skill_studio.core.store import StoreError
from skill_studio.ui import theme
from skill_studio.ui.review.audit_view import ALL_ACTIONS, COLUMNS, AuditLogView
from skill_studio.ui.review.merge_dialog import CHOOSE, MergeDialog

TARGET, SOURCE = "security-review", "code-review-checklist"


def shot(widget, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()
    assert widget.grab().save(str(SCREENSHOTS / name))


@pytest.fixture
def dialog(qtbot, seeded_store):
    d = MergeDialog(seeded_store, TARGET, SOURCE)
    qtbot.addWidget(d)
    d.resize(1000, 700)
    d.show()
    return d


def summary(d):
    return " ".join(d.summary.toPlainText().split())


# --- merge dialog -------------------------------------------------------------


def test_preview_of_a_real_pair(dialog, seeded_store):
    d = dialog
    assert (d.target(), d.source()) == (TARGET, SOURCE)
    assert d.apply_button.isEnabled() and d.error() == ""
    p = d.preview
    assert len(p.added_steps) == 7 and p.dependents == ["python-test-writer"]
    text = summary(d)
    assert f"Merging {SOURCE} into {TARGET}" in text
    assert "Steps (14, 7 added)" in text
    assert "+ 8. Understand the intent before reading code" in text     # added steps: marked and renumbered
    assert "1. List the trust boundaries" in text and "+ 1." not in text
    assert "Dependents rewritten: python-test-writer" in text
    assert f'The source will be archived with the reason: Merged into "{TARGET}"' in text
    assert "Uses: 5 + 69 = 74" in text
    assert "+ pull-request" in text and "+ security" not in text         # tags added are marked
    depends = text.split("Depends on:")[1].split("Files added:")[0]
    assert depends.strip() == "shell-script-hardening, \u2212 code-review-checklist"  # needs itself no more
    assert "Files added: references/review-comments.md" in text
    html = d.summary.toHtml().lower()
    assert theme.LIGHT.success in html
    assert d.diff_view.mode() == "unified"
    assert d.diff_view.labels() == (f"{TARGET}/SKILL.md (now)", f"{TARGET}/SKILL.md (merged)")
    assert f"+## Merged from {SOURCE}" in d.diff_view.unified_text()
    # a preview writes nothing
    assert seeded_store.get(SOURCE).lifecycle == Lifecycle.RELEASED
    assert seeded_store.get(TARGET).version == 1


def test_swap_swaps_names_and_previews_again(qtbot, dialog):
    qtbot.mouseClick(dialog.swap_button, Qt.LeftButton)
    assert (dialog.target(), dialog.source()) == (SOURCE, TARGET)
    assert (dialog.preview.target.name, dialog.preview.source.name) == (SOURCE, TARGET)
    text = summary(dialog)
    assert "Dependents rewritten: none" in text
    assert f'Merged into "{SOURCE}"' in text
    assert dialog.diff_view.labels()[0] == f"{SOURCE}/SKILL.md (now)"


@pytest.mark.parametrize("target, source, words", [
    ("release-notes", "release-notes", "into itself"),
    ("release-notes", "changelog-writer", "builtin"),            # builtin source
    ("git-commit-message", "gitmoji-commits", "builtin"),        # builtin target
    ("release-notes", "no-such-skill", 'There is no skill named "no-such-skill"'),
])
def test_refused_or_unknown_pairs_disable_apply(dialog, target, source, words):
    dialog.set_names(target, source)
    assert not dialog.apply_button.isEnabled()
    assert dialog.preview is None
    assert words in dialog.error() and dialog.message_label.text() == dialog.error()
    assert dialog.message_label.isVisible()
    assert theme.LIGHT.error in dialog.message_label.styleSheet()
    assert dialog.summary.toPlainText() == ""
    assert dialog.diff_view.message() == "Nothing to preview"


def test_empty_names_ask_for_a_choice_without_error(qtbot, seeded_store):
    d = MergeDialog(seeded_store)
    qtbot.addWidget(d)
    assert (d.target(), d.source()) == ("", "")
    assert d.message_label.text() == CHOOSE and d.error() == ""
    assert not d.apply_button.isEnabled()


def test_typed_name_is_previewed_after_a_pause(qtbot, dialog):
    line = dialog.source_combo.lineEdit()
    line.clear()
    qtbot.keyClicks(line, "shell-script-hardening")
    assert dialog._timer.isActive()        # debounced: not yet recomputed for every key
    qtbot.waitUntil(lambda: dialog.preview is not None
                    and dialog.preview.source.name == "shell-script-hardening", timeout=2000)
    assert "Merging shell-script-hardening into security-review" in summary(dialog)
    line.setText("shell-script-harden")
    qtbot.keyClick(line, Qt.Key_Return)    # Return previews at once and never merges
    assert 'There is no skill named "shell-script-harden"' in dialog.error()
    assert dialog.isVisible() and dialog.change is None


def test_description_cut_is_noted(qtbot, store):
    store.add(make("long-a", "Alpha " * 150 + "Use when alpha."))
    store.add(make("long-b", "Beta words " * 60 + "Use when beta."))
    d = MergeDialog(store, "long-a", "long-b")
    qtbot.addWidget(d)
    assert d.preview.description_cut
    assert "(cut to 1,024 characters)" in summary(d)
    assert "The source will be archived" in summary(d)


def test_apply_with_the_default_merge_archives_the_source(qtbot, dialog, seeded_store):
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert dialog.result() == QDialog.Accepted
    assert isinstance(dialog.change, Change)
    assert set(dialog.change.names) == {TARGET, SOURCE, "python-test-writer"}
    source = seeded_store.get(SOURCE)
    assert source.lifecycle == Lifecycle.ARCHIVED
    assert source.lifecycle_reason == f'Merged into "{TARGET}"'
    assert seeded_store.get(TARGET).version == 2
    assert seeded_store.get("python-test-writer").depends_on == [TARGET]
    assert seeded_store.audit_entries(action="merge")[0].skill == TARGET


def test_failing_merge_keeps_the_dialog_open_with_the_message(qtbot, dialog, seeded_store):
    calls = []

    def refuse(target, source, with_files):
        calls.append((target, source))
        raise StoreError("the store is read-only right now")

    dialog.do_merge = refuse
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert calls == [(TARGET, SOURCE)]
    assert dialog.isVisible() and dialog.result() != QDialog.Accepted
    assert dialog.change is None
    assert "the store is read-only right now" in dialog.message_label.text()
    assert dialog.apply_button.isEnabled()          # may be tried again
    assert seeded_store.get(SOURCE).lifecycle == Lifecycle.RELEASED


def test_cancel_writes_nothing(qtbot, dialog, seeded_store):
    before = (len(seeded_store.audit_entries()), seeded_store.get(TARGET).version)
    qtbot.mouseClick(dialog.cancel_button, Qt.LeftButton)
    assert not dialog.isVisible() and dialog.result() == QDialog.Rejected
    assert dialog.change is None
    assert (len(seeded_store.audit_entries()), seeded_store.get(TARGET).version) == before


def test_merge_preview_screenshot(dialog):
    theme.apply_theme(QApplication.instance(), theme.LIGHT)
    dialog.update_preview()
    shot(dialog, "merge-preview.png")
    assert (SCREENSHOTS / "merge-preview.png").stat().st_size > 20_000


# --- audit log ----------------------------------------------------------------


OLD = [("2024-03-05T12:00:00Z", "ana", "release-notes", "promote", "verified", "released", "shipped twice"),
       ("2024-03-20T12:00:00Z", "ben", "pdf-extract", "state:trust_tier", "1", "2", "checked the output"),
       ("2024-04-02T12:00:00Z", "ana", "csv-cleanup", "archive", "candidate", "archived", "rejected 100%")]


@pytest.fixture
def audited(seeded_store):
    with seeded_store.transaction():
        for at, actor, skill, action, old, new, reason in OLD:
            seeded_store._audit(skill, action, old, new, reason, actor, at)
    move(seeded_store, "pdf-extract", "deprecate", "Fails on scanned invoices")
    set_trust(seeded_store, "security-review", 3, "Reviewed by two more people")
    return seeded_store


@pytest.fixture
def view(qtbot, audited):
    v = AuditLogView(audited)
    qtbot.addWidget(v)
    v.resize(1100, 600)
    v.show()
    return v


def shown(v):
    """(skill, action) of every row, in the order shown."""
    m = v.model
    return [(m.index(r, 2).data(), m.entry(r).action) for r in range(m.rowCount())]


def test_rows_match_the_store(qtmodeltester, view, audited):
    entries = audited.audit_entries()
    assert view.model.rowCount() == len(entries)
    assert view.model.entries() == sorted(entries, key=lambda e: (e.at, e.id), reverse=True)  # newest first
    assert view.count_label.text() == f"{len(entries)} entries"
    m = view.model
    assert [m.headerData(c, Qt.Horizontal) for c in range(m.columnCount())] == list(COLUMNS)
    assert [m.index(0, c).data() for c in range(1, 7)] == \
        ["tester", "security-review", "trust", "2", "3", "Reviewed by two more people"]
    assert m.index(0, 0).data() == "just now"
    old = next(r for r in range(m.rowCount()) if m.index(r, 6).data() == "shipped twice")
    assert m.index(old, 0).data().endswith("ago") and "year" in m.index(old, 0).data()
    assert m.index(old, 0).data(Qt.ToolTipRole).startswith("2024-03-05T12:00:00Z")
    assert view.stack.currentWidget() is view.table
    qtmodeltester.check(view.model)


def test_skill_and_text_filters_narrow_after_a_pause(qtbot, view):
    qtbot.keyClicks(view.skill_edit, "pdf-extract")
    qtbot.waitUntil(lambda: {s for s, _ in shown(view)} == {"pdf-extract"}, timeout=2000)
    assert ("pdf-extract", "deprecate") in shown(view) and ("pdf-extract", "state:trust_tier") in shown(view)
    qtbot.keyClicks(view.text_edit, "output")
    qtbot.waitUntil(lambda: shown(view) == [("pdf-extract", "state:trust_tier")], timeout=2000)
    assert view.count_label.text() == "1 entry"
    view.skill_edit.clear()
    view.text_edit.setText("100%")            # literal %, found in a reason
    qtbot.keyClick(view.text_edit, Qt.Key_Return)
    assert shown(view) == [("csv-cleanup", "archive")]
    view.text_edit.setText("ANA")             # the actor, any case
    view.reload()
    assert {s for s, _ in shown(view)} == {"release-notes", "csv-cleanup"}


def test_action_filter_lists_actions_in_use_and_families(view, audited):
    combo = view.action_combo
    items = [combo.itemData(i) for i in range(combo.count())]
    assert combo.itemText(0) == ALL_ACTIONS and items[0] is None
    assert set(audited.actions_in_use()) <= set(items) and "state" in items
    combo.setCurrentIndex(combo.findData("trust"))
    assert shown(view) == [("security-review", "trust")]
    combo.setCurrentIndex(combo.findData("state"))
    assert {a for _, a in shown(view)} == {"state:lifecycle", "state:trust_tier", "state:pinned"}
    view.set_action_filter(None)
    assert view.model.rowCount() == len(audited.audit_entries())


def test_date_filters_and_any_date(qtbot, view, audited):
    assert not view.since_edit.isEnabled() and view.since_edit.text() == "any date"
    view.since_check.setChecked(True)
    assert view.since_edit.isEnabled() and view.since_edit.text() != "any date"
    view.since_edit.setDate(QDate(2024, 3, 6))
    view.until_check.setChecked(True)
    view.until_edit.setDate(QDate(2024, 4, 2))        # the whole day counts
    qtbot.waitUntil(lambda: shown(view) == [("csv-cleanup", "archive"), ("pdf-extract", "state:trust_tier")],
                    timeout=2000)
    view.until_edit.setDate(QDate(2024, 4, 1))
    qtbot.waitUntil(lambda: shown(view) == [("pdf-extract", "state:trust_tier")], timeout=2000)
    view.since_check.setChecked(False)                # back to any date: the first entry returns
    assert view.since_edit.text() == "any date"
    assert shown(view) == [("pdf-extract", "state:trust_tier"), ("release-notes", "promote")]
    view.until_check.setChecked(False)
    assert view.model.rowCount() == len(audited.audit_entries())
    view.since_check.setChecked(True)                 # the date picked before comes back
    assert view.since_edit.date() == QDate(2024, 3, 6)


def test_empty_state_when_nothing_matches(view):
    view.text_edit.setText("no entry says this")
    view.reload()
    assert view.model.rowCount() == 0
    assert view.stack.currentWidget() is view.empty_label
    assert view.empty_label.text() == "No audit entries match these filters"
    assert view.count_label.text() == "0 entries" and not view.export_button.isEnabled()


def test_empty_log_says_so(qtbot, store):
    v = AuditLogView(store)
    qtbot.addWidget(v)
    assert v.empty_label.text() == "Nothing has been recorded in the audit log yet"
    assert v.action_combo.count() == 1


def test_sorting_by_column(view, audited):
    view.table.sortByColumn(2, Qt.AscendingOrder)
    skills = [s for s, _ in shown(view)]
    assert skills == sorted(skills, key=str.casefold)
    view.table.sortByColumn(0, Qt.AscendingOrder)
    assert view.model.entries() == sorted(audited.audit_entries(), key=lambda e: (e.at, e.id))
    assert view.model.index(0, 6).data() == "shipped twice"   # the oldest entry first
    view.table.sortByColumn(6, Qt.DescendingOrder)
    reasons = [view.model.index(r, 6).data().casefold() for r in range(view.model.rowCount())]
    assert reasons == sorted(reasons, reverse=True)
    view.refresh()                                            # a reload keeps the chosen order
    assert [view.model.index(r, 6).data().casefold() for r in range(view.model.rowCount())] == reasons


def test_refresh_shows_new_entries_and_actions(view, audited):
    n = view.model.rowCount()
    move(audited, "security-review", "promote", "Two clean reviews")
    view.refresh()
    assert view.model.rowCount() == n + 1
    assert shown(view)[0] == ("security-review", "promote")
    assert view.action_combo.findData("promote") >= 0


def test_set_skill_filter(view):
    view.set_skill_filter("security-review")
    assert view.skill_edit.text() == "security-review"
    assert {s for s, _ in shown(view)} == {"security-review"}
    view.set_skill_filter(None)
    assert len({s for s, _ in shown(view)}) > 1


def test_export_csv_writes_the_rows_shown(qtbot, view, tmp_path):
    view.set_skill_filter("pdf-extract")
    view.table.sortByColumn(3, Qt.AscendingOrder)
    path = tmp_path / "audit.csv"
    view.ask_save_path = lambda: str(path)
    with qtbot.waitSignal(view.statusMessage) as signal:
        qtbot.mouseClick(view.export_button, Qt.LeftButton)
    rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
    assert rows[0] == list(COLUMNS)
    entries = view.model.entries()
    assert rows[1:] == [[e.at, e.actor, e.skill, e.action, e.from_value or "", e.to_value or "", e.reason]
                        for e in entries]
    assert [r[3] for r in rows[1:]] == sorted(r[3] for r in rows[1:])
    assert "2024-03-20T12:00:00Z" in [r[0] for r in rows[1:]]           # exact times
    assert str(path) in signal.args[0] and view.status_label.text() == signal.args[0]
    assert signal.args[0].startswith(f"Exported {len(entries)} entries")


def test_export_failure_names_the_file(qtbot, view, tmp_path):
    view.ask_save_path = lambda: str(tmp_path)      # a directory cannot be written as a file
    with qtbot.waitSignal(view.statusMessage) as signal:
        assert view.export_csv() is False
    assert signal.args[0].startswith(f"Could not write {tmp_path}")
    assert str(tmp_path) in view.status_label.text()
    view.ask_save_path = lambda: ""                 # cancelled: nothing happens
    assert view.export_csv() is False


def test_double_click_emits_skill_activated(qtbot, view):
    view.table.sortByColumn(2, Qt.AscendingOrder)
    row = next(r for r in range(view.model.rowCount()) if view.model.index(r, 2).data() == "csv-cleanup")
    rect = view.table.visualRect(view.model.index(row, 1))
    qtbot.mouseClick(view.table.viewport(), Qt.LeftButton, pos=rect.center())
    with qtbot.waitSignal(view.skillActivated, timeout=2000) as signal:
        qtbot.mouseDClick(view.table.viewport(), Qt.LeftButton, pos=rect.center())
    assert signal.args == ["csv-cleanup"]


def test_audit_log_screenshot(view):
    theme.apply_theme(QApplication.instance(), theme.LIGHT)
    view.refresh()
    shot(view, "audit-log.png")
    assert (SCREENSHOTS / "audit-log.png").stat().st_size > 20_000


def _untrusted_copy(store):
    from skill_studio.core.model import Origin, SkillFile

    body = "# Notes\n\n1. Read the changelog.\n2. Write the notes.\n"
    store.add(make("notes", "Writes release notes. Use when releasing.", body))
    store.add(make("notes-extracted", "Writes release notes. Use when releasing.", body + "3. Announce it.\n",
                   origin=Origin.LLM, files=[SkillFile("scripts/helper.sh", b"#!/bin/sh\necho hi\n", 0o755)]))


@pytest.mark.parametrize("tick", [False, True])
def test_an_untrusted_sources_files_come_only_when_ticked(qtbot, store, tick):
    _untrusted_copy(store)
    d = MergeDialog(store, "notes", "notes-extracted")
    qtbot.addWidget(d)
    d.show()
    assert d.files_check.isVisible() and not d.files_check.isChecked()
    assert "Also add 1 file(s) from notes-extracted: scripts/helper.sh" == d.files_check.text()
    assert "Files not added: scripts/helper.sh" in summary(d)
    if tick:
        box = d.files_check   # a click on the box itself (the widget runs wider than its text)
        qtbot.mouseClick(box, Qt.LeftButton, pos=QPoint(8, box.height() // 2))
        assert d.files_check.isChecked() and "Files added: scripts/helper.sh" in summary(d)
    qtbot.mouseClick(d.apply_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: d.result() == QDialog.Accepted)
    assert ("scripts/helper.sh" in {f.path for f in store.get("notes").files}) is tick
    assert "Announce it." in store.get("notes").skill_md


def test_no_files_box_when_the_source_brings_no_new_file(qtbot, dialog):
    dialog.set_names(SOURCE, SOURCE + "x")
    assert not dialog.files_check.isVisible()
