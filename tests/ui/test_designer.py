"""The designer inside the window: opening, typing, the form, saving, conflicts, history,
drafts after a crash, closing with unsaved changes, read-only builtins."""

from __future__ import annotations

import pytest
import shiboken6
from conftest import SCREENSHOTS, shown_window
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import Store
from skill_studio.ui import theme
from skill_studio.ui.designer.designer import DesignerWidget
from skill_studio.ui.designer.saving import Saver
from skill_studio.ui.designer.session import EditSession
from skill_studio.ui.settings import StudioSettings
from skill_studio.ui.shell.main_window import MainWindow

SKILL = "release-notes"


@pytest.fixture
def window(qtbot, seeded_store, tmp_path):
    w = shown_window(qtbot, seeded_store, tmp_path, (1400, 860))
    w.activateWindow()  # shortcuts need the window active
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=3000)
    opened = w.workspace.open_skill

    def open_quietly(name, **kwargs):  # closing the window at the end asks nothing
        d = opened(name, **kwargs)
        if d is not None:
            d.ask_unsaved = lambda: "discard"
        return d

    w.workspace.open_skill = open_quietly
    return w


@pytest.fixture
def designer(window) -> DesignerWidget:
    return window.open_designer(SKILL)


def type_at_end(qtbot, designer, text):
    editor = designer.editor
    cursor = editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    editor.setFocus()
    for i, piece in enumerate(text.split("\n")):  # keyClicks cannot type a line break
        if i:
            qtbot.keyClick(editor, Qt.Key_Return)
        if piece:
            qtbot.keyClicks(editor, piece)


def settle(qtbot, designer):
    """Wait until the designer has caught up with the last edit: validated (and shown it), the
    form and steps in step, the preview rendered, the editor in the theme's colours."""
    qtbot.waitUntil(lambda: not (designer.validator.is_busy() or designer._form_timer.isActive()
                                 or designer.preview.is_busy() or designer.editor._recolour_pending),
                    timeout=10000)
    designer.validator.wait()
    QApplication.processEvents()   # what is already on its way (a validation result, layouts) arrives


def test_enter_on_a_card_opens_the_designer_in_a_tab(window, qtbot):
    window.browser.select_name(SKILL)
    view = window.browser.card_view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_Return)
    designer = window.workspace.currentWidget()
    assert isinstance(designer, DesignerWidget)
    assert window.workspace.tabText(window.workspace.currentIndex()) == SKILL
    assert designer.text() == window.store.get(SKILL).skill_md
    assert window.open_designer(SKILL) is designer  # a second open brings the same tab forward
    assert len(window.workspace.designers()) == 1


def test_typing_updates_preview_problems_and_the_dirty_marker(window, designer, qtbot):
    with qtbot.waitSignal(designer.preview.rendered, timeout=5000):
        type_at_end(qtbot, designer, "\n## Brand new section\n")
    assert "Brand new section" in designer.preview.toPlainText()
    assert designer.is_dirty()
    assert window.workspace.tabText(window.workspace.currentIndex()).startswith("• ")
    # Break the description: the problems panel and the editor's marks follow.
    text = designer.text()
    start = text.index("description:")
    end = text.index("\n", start)
    cursor = designer.editor.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, cursor.MoveMode.KeepAnchor)
    designer.editor.setTextCursor(cursor)
    with qtbot.waitSignal(designer.validator.finished, timeout=5000):
        qtbot.keyClicks(designer.editor, "description:")
    assert designer.problems.counts()[0] >= 1
    assert any("description" in d.message.lower() for d in designer.problems.diagnostics())


def test_a_form_edit_changes_only_that_line_and_is_one_undo(designer, qtbot):
    before = designer.text().splitlines()
    form = designer.form
    designer.side.setCurrentWidget(form)
    form.license_edit.setFocus()
    form.license_edit.selectAll()
    qtbot.keyClicks(form.license_edit, "BSD-3-Clause")
    qtbot.keyClick(form.license_edit, Qt.Key_Return)
    qtbot.waitUntil(lambda: "license: BSD-3-Clause" in designer.text(), timeout=3000)
    after = designer.text().splitlines()
    added = [line for line in after if line not in before]
    removed = [line for line in before if line not in after]
    assert added == ["license: BSD-3-Clause"]
    assert all(line.startswith("license:") for line in removed)  # the old value, if there was one
    assert designer.is_dirty()
    designer.editor.undo()
    assert designer.text().splitlines() == before


def test_save_makes_a_version_with_the_note(window, designer, qtbot):
    version = window.store.get(SKILL).version
    type_at_end(qtbot, designer, "\nOne more line.\n")
    designer.toolbar.note.setText("a test edit")
    with qtbot.waitSignal(designer.saved):
        assert designer.save()
    stored = window.store.get(SKILL)
    assert stored.version == version + 1 and stored.skill_md.endswith("One more line.\n")
    assert window.store.versions(SKILL)[0].note == "a test edit"
    assert designer.toolbar.note.text() == ""   # the note went with that version
    assert not designer.is_dirty()
    assert window.workspace.tabText(window.workspace.currentIndex()) == SKILL
    assert designer.history.versions_shown()[0] == stored.version


@pytest.mark.parametrize("choice", ["reload", "overwrite", "copy", "cancel"])
def test_a_save_that_meets_another_change_is_never_written_over_silently(window, designer, qtbot, choice):
    other = Store(window.store.path)
    theirs = other.get(SKILL)
    from skill_studio.core.format.fields import to_skill
    from skill_studio.core.format.skillmd import parse_document

    their_text = theirs.skill_md + "\nTheir line.\n"
    other.update(SKILL, to_skill(parse_document(their_text), theirs.folder_name, files=theirs.files),
                 theirs.version, note="from the command line")
    other.close()
    type_at_end(qtbot, designer, "\nMy line.\n")
    seen, emitted = [], []
    designer.resolve_conflict = lambda stored, mine: seen.append((stored, mine)) or choice
    designer.saved.connect(emitted.append)
    result = designer.save()
    assert seen and "Their line." in seen[0][0] and "My line." in seen[0][1]
    stored = window.store.get(SKILL)
    if choice == "reload":
        assert not result and designer.text() == their_text and not designer.is_dirty()
        assert emitted == []
    elif choice == "overwrite":
        assert result and "My line." in stored.skill_md and "Their line." not in stored.skill_md
        assert any("Their line." in window.store.version_text(SKILL, v.version)[0]
                   for v in window.store.versions(SKILL))  # theirs is kept in the history
        assert [c.changed for c in emitted] == [{SKILL}]
    elif choice == "copy":
        assert result and stored.skill_md == their_text
        copy = window.store.get(f"{SKILL}-copy")
        assert "My line." in copy.skill_md and f"name: {SKILL}-copy" in copy.skill_md
        assert designer.session.name == f"{SKILL}-copy"
        assert [(c.added, c.changed) for c in emitted] == [({f"{SKILL}-copy"}, set())]
    else:
        assert not result and stored.skill_md == their_text and designer.is_dirty()
        assert emitted == []


def test_each_write_to_the_store_is_announced_once_with_what_it_changed(window, designer, qtbot):
    emitted = []
    designer.saved.connect(emitted.append)
    type_at_end(qtbot, designer, "\nOne more line.\n")
    assert designer.save()
    designer.editor.set_text_keeping_place(designer.text().replace(f"name: {SKILL}", "name: notes-for-release", 1))
    assert designer.save()
    designer.restore_version(1)
    assert emitted == [ChangeSet.of(changed={SKILL}, label=f"Save {SKILL}"),
                       ChangeSet.of(renamed=[(SKILL, "notes-for-release")],
                                    label=f"Rename {SKILL} to notes-for-release"),
                       ChangeSet.of(changed={"notes-for-release"},
                                    label="Restore notes-for-release to version 1")]
    assert designer.save()   # nothing to save: nothing written, nothing announced
    assert len(emitted) == 3


def test_a_rename_the_store_refuses_is_not_saved_and_says_why(window, designer):
    told, emitted = [], []
    designer.tell = lambda title, text: told.append(text)
    designer.saved.connect(emitted.append)
    look_alike = "pdf-extr\u0430ct"   # Cyrillic a
    designer.editor.set_text_keeping_place(designer.text().replace(f"name: {SKILL}", f"name: {look_alike}", 1))
    assert not designer.save()
    assert len(told) == 1 and 'reads like the skill "pdf-extract"' in told[0]
    assert emitted == [] and look_alike not in window.store and designer.is_dirty()
    assert designer.session.name == SKILL


def test_restore_an_old_version_from_the_history(window, designer, qtbot):
    first = window.store.get(SKILL)
    type_at_end(qtbot, designer, "\nTemporary.\n")
    designer.save()
    designer.history.restoreRequested.emit(first.version)
    stored = window.store.get(SKILL)
    assert stored.skill_md == first.skill_md and stored.version == first.version + 2
    assert designer.text() == first.skill_md


def test_a_draft_survives_a_window_destroyed_without_saving(qtbot, seeded_store, tmp_path):
    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    w = MainWindow(seeded_store, settings)
    w.show()
    designer = w.open_designer(SKILL)
    type_at_end(qtbot, designer, "\nUnsaved work.\n")
    qtbot.waitUntil(lambda: seeded_store.draft(SKILL) is not None, timeout=8000)  # autosaved while typing
    w.deleteLater()  # gone without closeEvent, as after a crash
    qtbot.waitUntil(lambda: not shiboken6.isValid(w), timeout=5000)

    again = MainWindow(seeded_store, settings)
    qtbot.addWidget(again)
    again.workspace.close_all = lambda: True
    asked = []
    again.workspace.ask_recover = lambda parent, name, at, lines: asked.append(name) or "recover"
    assert again.workspace.recover_drafts() == 1
    recovered = again.workspace.designer_for(SKILL)
    assert asked == [SKILL] and recovered.text().endswith("Unsaved work.\n") and recovered.is_dirty()
    assert recovered.save()
    assert seeded_store.draft(SKILL) is None
    assert seeded_store.get(SKILL).skill_md.endswith("Unsaved work.\n")


def test_closing_with_unsaved_changes_asks(window, designer, qtbot):
    type_at_end(qtbot, designer, "x")
    index = window.workspace.indexOf(designer)
    designer.ask_unsaved = lambda: "cancel"
    assert not window.workspace.close_designer(index)
    assert window.workspace.designer_for(SKILL) is designer
    designer.save_draft()
    designer.ask_unsaved = lambda: "discard"
    assert window.workspace.close_designer(index)
    assert window.workspace.designer_for(SKILL) is None and window.store.draft(SKILL) is None


def test_builtin_skills_open_read_only(window):
    builtin = next(s.name for s in window.store.list() if s.origin.value == "builtin")
    designer = window.open_designer(builtin)
    assert designer.editor.isReadOnly() and not designer.save_action.isEnabled()
    assert designer.banner.isVisible() and "read-only" in designer.banner.text()


def test_files_open_in_their_own_tab_and_edits_make_the_skill_dirty(window, qtbot):
    from skill_studio.core.format.templates import new_skill

    window.store.add(new_skill("runner-demo", "Runs the demo. Use when asked.", "script"))
    designer = window.open_designer("runner-demo")
    designer.open_file("scripts/run.sh")
    editor = designer.file_tabs.editor_for("scripts/run.sh")
    assert editor is not None and "set -euo pipefail" in editor.toPlainText()
    assert designer.file_tabs.currentWidget() is editor
    editor.appendPlainText("# edited")
    assert designer.is_dirty()
    assert designer.save()
    script = next(f for f in window.store.get("runner-demo").files if f.path == "scripts/run.sh")
    assert script.data.decode().rstrip().endswith("# edited") and script.mode == 0o755


def test_an_edit_from_another_process_reloads_a_clean_designer(window, designer):
    other = Store(window.store.path)
    skill = other.get(SKILL)
    from skill_studio.core.format.fields import to_skill
    from skill_studio.core.format.skillmd import parse_document

    text = skill.skill_md + "\nFrom elsewhere.\n"
    other.update(SKILL, to_skill(parse_document(text), skill.folder_name, files=skill.files), skill.version)
    other.close()
    window.workspace.store_changed()
    assert designer.text() == text and not designer.is_dirty()


def test_a_change_set_about_other_skills_leaves_the_designer_as_it_is(window, designer):
    before = designer.text()
    text = _store_edit(window.store.path, SKILL, lambda t: t + "\nFrom elsewhere.\n")
    designer.store_changed(ChangeSet.of(changed={"pdf-extract"}))
    assert designer.text() == before
    designer.store_changed(ChangeSet.of(changed={SKILL}))
    assert designer.text() == text and not designer.is_dirty()


def test_screenshots(window, designer, qtbot):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with qtbot.waitSignal(designer.preview.rendered, timeout=5000):
        designer.preview.render_now()
    settle(qtbot, designer)
    assert window.grab().save(str(SCREENSHOTS / "designer-light.png"))
    app = QApplication.instance()
    theme.apply_theme(app, theme.DARK)
    try:
        qtbot.waitUntil(lambda: designer.preview.dark, timeout=5000)   # the preview follows the theme
        settle(qtbot, designer)
        assert window.grab().save(str(SCREENSHOTS / "designer-dark.png"))
    finally:
        theme.apply_theme(app, theme.LIGHT)
        qtbot.waitUntil(lambda: not designer.preview.dark, timeout=5000)
        settle(qtbot, designer)


def test_keys_in_the_designer_act_on_the_designer(window, designer, qtbot):
    type_at_end(qtbot, designer, "More.")
    designer.editor.setFocus()
    qtbot.keyClick(designer.editor, Qt.Key_F, Qt.ControlModifier)  # the editor's find, not the library's
    assert designer.find_bar.isVisible() and not window.browser.search.hasFocus()
    deleted = []
    window.delete_selection = lambda: deleted.append(True)
    window.actions["delete"].triggered.disconnect()
    window.actions["delete"].triggered.connect(window.delete_selection)
    designer.editor.setFocus()
    qtbot.keyClick(designer.editor, Qt.Key_Delete)
    assert deleted == []
    version = window.store.get(SKILL).version
    qtbot.keyClick(designer.editor, Qt.Key_S, Qt.ControlModifier)  # File ▸ Save
    assert window.store.get(SKILL).version == version + 1
    assert window.problems_label.text() == designer.problems.summary()
    window.workspace.setCurrentIndex(0)
    assert window.problems_label.text() == "" and not window.actions["save"].isEnabled()


def test_preview_can_be_hidden_or_shown_full_width(designer):
    designer.preview_action.trigger()
    assert not designer.preview.isVisible()
    designer.preview_only_action.trigger()
    assert designer.preview.isVisible() and not designer.file_tabs.isVisible() and not designer.side.isVisible()
    designer.preview_only_action.trigger()
    assert designer.file_tabs.isVisible() and designer.side.isVisible()


def test_no_part_of_the_designer_becomes_a_window_of_its_own(window, designer, qtbot):
    type_at_end(qtbot, designer, "x")
    settle(qtbot, designer)   # everything the keystroke set off has happened
    strays = [w for w in QApplication.topLevelWidgets() if w.isVisible() and not isinstance(w, MainWindow)]
    assert strays == []
    assert QApplication.activeWindow() is window


def test_toolbar_undo_redo_and_zoom(designer, qtbot):
    assert not designer.undo_action.isEnabled()
    type_at_end(qtbot, designer, "abc")
    assert designer.undo_action.isEnabled()
    designer.undo_action.trigger()
    assert not designer.text().endswith("abc") and designer.redo_action.isEnabled()
    designer.redo_action.trigger()
    assert designer.text().endswith("abc")
    level = designer.editor.zoom_level()
    designer.editor.zoom_in_action.trigger()
    assert designer.editor.zoom_level() > level


def _store_edit(path, name, transform, files=None):
    """Another process saves a new version of ``name``."""
    from skill_studio.core.format.fields import to_skill
    from skill_studio.core.format.skillmd import parse_document

    other = Store(path)
    skill = other.get(name)
    text = transform(skill.skill_md)
    other.update(name, to_skill(parse_document(text), skill.folder_name,
                                files=skill.files if files is None else files), skill.version)
    other.close()
    return text


def test_a_draft_older_than_the_store_meets_the_newer_version_as_a_conflict(qtbot, seeded_store, tmp_path):
    settings = StudioSettings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    base = seeded_store.get(SKILL)
    seeded_store.save_draft(SKILL, base.skill_md + "\nMy draft.\n", base.version)
    theirs = _store_edit(seeded_store.path, SKILL, lambda t: t + "\nTheirs.\n")
    w = MainWindow(seeded_store, settings)
    qtbot.addWidget(w)
    w.workspace.close_all = lambda: True
    w.workspace.ask_recover = lambda *a: "recover"
    w.workspace.recover_drafts()
    designer = w.workspace.designer_for(SKILL)
    assert "newer" in designer.banner.text()
    seen = []
    designer.resolve_conflict = lambda stored, mine: seen.append(stored) or "cancel"
    assert not designer.save()
    assert seen == [theirs] and seeded_store.get(SKILL).skill_md == theirs


def test_open_file_tabs_follow_a_restore(window, qtbot):
    from skill_studio.core.format.templates import new_skill

    window.store.add(new_skill("runner-two", "Runs. Use when asked.", "script"))
    designer = window.open_designer("runner-two")
    designer.open_file("scripts/run.sh")
    tab = designer.file_tabs.editor_for("scripts/run.sh")
    tab.appendPlainText("# added")
    assert designer.save()
    designer.restore_version(1)
    assert "# added" not in designer.file_tabs.editor_for("scripts/run.sh").toPlainText()
    assert not designer.is_dirty()


def test_a_pending_form_edit_is_saved_and_asked_about(designer, qtbot):
    form = designer.form
    form.license_edit.setFocus()
    form.license_edit.selectAll()
    qtbot.keyClicks(form.license_edit, "MIT-0")  # still inside the form's pause when saving
    assert designer.save()
    assert "license: MIT-0" in designer.store.get(SKILL).skill_md and not designer.is_dirty()
    qtbot.keyClicks(form.license_edit, "X")
    asked = []
    designer.ask_unsaved = lambda: asked.append(1) or "cancel"
    assert not designer.maybe_close() and asked


def test_unusual_characters_and_crlf_do_not_make_a_skill_dirty(window, qtbot):
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.model import Origin

    text = "---\r\nname: odd-chars\r\ndescription: Costs 100\u00a0EUR. Use when asked.\r\n---\r\n\r\nA\u2028B line.\r\n"
    window.store.add(build_skill(text.encode(), "odd-chars", [], origin=Origin.HUMAN, source="test"))
    designer = window.open_designer("odd-chars")
    assert not designer.is_dirty() and designer.text() == text
    type_at_end(qtbot, designer, "More.")
    assert designer.save()
    saved = window.store.get("odd-chars").skill_md
    assert "100\u00a0EUR" in saved and "\r\n" in saved and "A\u2028B" in saved


def test_restoring_a_version_from_before_a_rename_keeps_the_name(designer, window):
    text = designer.text().replace(f"name: {SKILL}", "name: notes-for-release", 1)
    designer.editor.set_text_keeping_place(text)
    designer.save_draft()
    assert designer.save()
    assert window.store.drafts() == []  # the draft went with the rename
    designer.restore_version(1)
    stored = window.store.get("notes-for-release")
    assert "name: notes-for-release" in stored.skill_md and designer.session.name == "notes-for-release"


def test_steady_typing_still_writes_drafts(designer, window, qtbot):
    type_at_end(qtbot, designer, "a")
    assert designer._draft_timer.isActive() and window.store.draft(SKILL) is None

    def typed_on_and_drafted():
        # A keystroke every few milliseconds, never a pause: a draft timer that each keystroke
        # restarted would never fire.
        type_at_end(qtbot, designer, "b")
        return window.store.draft(SKILL) is not None

    qtbot.waitUntil(typed_on_and_drafted, timeout=30000)
    assert window.store.draft(SKILL)[0].rstrip("b").endswith("a")   # the text as typed so far


def test_save_as_copy_of_a_builtin_opens_an_editable_copy(window):
    builtin = next(s.name for s in window.store.list() if s.origin.value == "builtin")
    designer = window.open_designer(builtin)
    assert not designer.editor.replace_action.isEnabled()
    assert designer.save_as_copy()
    copy = window.workspace.current_designer()
    assert copy is not designer and copy.session.name == f"{builtin}-copy"
    assert not copy.session.read_only and copy.save_action.isEnabled() and copy.form.license_edit.isEnabled()


def test_saving_needs_only_a_session_and_someone_to_ask(seeded_store):
    class Author:
        told: list[str] = []
        conflicts: list[str] = []

        def resolve_conflict(self, stored, mine):
            self.conflicts.append(stored)
            return "overwrite"

        def tell(self, title, text):
            self.told.append(text)

    author, session = Author(), EditSession(seeded_store, SKILL)
    saver = Saver(session, author)
    text = session.base.skill_md + "\nMine.\n"
    theirs = _store_edit(seeded_store.path, SKILL, lambda t: t + "\nTheirs.\n")
    outcome = saver.save(text, session.base.files, "my note")   # meets theirs; the author overwrites
    assert author.conflicts == [theirs]
    assert outcome.written and outcome.changes.changed == {SKILL} and not author.told
    assert seeded_store.get(SKILL).skill_md == text
    assert seeded_store.versions(SKILL)[0].note == "my note"
