"""The designer's metadata form, steps editor and files panel: each user edit changes only its own text."""

import os
import stat

import pytest
from conftest import SCREENSHOTS
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLineEdit, QPlainTextEdit, QStyle, QWidget

from skill_studio.core.format.skillmd import parse_document
from skill_studio.core.model import SkillFile
from skill_studio.ui import theme
from skill_studio.ui.designer.file_rules import MAX_FILE_BYTES, MAX_SHOWN_PROBLEMS, check_path
from skill_studio.ui.designer.files_panel import FilesPanel
from skill_studio.ui.designer.metadata_form import DEBOUNCE_MS, MetadataForm
from skill_studio.ui.designer.steps_editor import BODY_NOTE, StepsEditor

SKILL = """\
---
name: security-review
description: Extends the code review with security checks. Use when a change touches authentication or secrets.
license: Apache-2.0
compatibility: Python 3.11 and git
allowed-tools: Bash Read
metadata:
  tags: "security code-review"
  depends-on: "code-review-checklist"
  conflicts-with: "quick-lint"
  trigger-pattern: "security review|is this safe"
  parent: "code-review-checklist"
  author: "Security guild"
steps:
  - List the trust boundaries the change crosses
  - Search the diff for risky constructs
  - Rate each finding by what an attacker gains
---

# Security review

Run the ordinary review first; this skill adds the questions an attacker would ask.
"""

LIBRARY = ["security-review", "code-review-checklist", "shell-script-hardening", "git-commit-message",
           "release-notes"]
WAIT = DEBOUNCE_MS * 5


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """The (old, new) line pairs that differ; every other line must be equal and in place."""
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new), (old, new)
    return [(a, b) for a, b in zip(old, new) if a != b]


@pytest.fixture
def form(qtbot):
    widget = MetadataForm(library_names=lambda: list(LIBRARY), library_tags=lambda: ["security", "python"])
    qtbot.addWidget(widget)
    widget.resize(520, 900)
    widget.set_text(SKILL)
    return widget


def retype(qtbot, form, edit, text):
    """Select what the field holds and type ``text`` over it, as a person would; returns the new SKILL.md."""
    with qtbot.waitSignal(form.textEdited, timeout=WAIT) as blocker:
        edit.selectAll()
        qtbot.keyClicks(edit, text)
        if isinstance(edit, QLineEdit):
            qtbot.keyClick(edit, Qt.Key_Return)
    return blocker.args[0]


# --- metadata form ---------------------------------------------------------------

@pytest.mark.parametrize("attr, typed, old_line, new_line", [
    ("name_edit", "security-audit", "name: security-review", "name: security-audit"),
    ("license_edit", "MIT", "license: Apache-2.0", "license: MIT"),
    ("compatibility_edit", "Python 3.12", "compatibility: Python 3.11 and git", "compatibility: Python 3.12"),
    ("allowed_tools_edit", "Bash Read Grep", "allowed-tools: Bash Read", "allowed-tools: Bash Read Grep"),
    ("tags_edit", "security, owasp", '  tags: "security code-review"', "  tags: security owasp"),
    ("depends_edit", "code-review-checklist, shell-script-hardening", '  depends-on: "code-review-checklist"',
     "  depends-on: code-review-checklist shell-script-hardening"),
    ("conflicts_edit", "git-commit-message", '  conflicts-with: "quick-lint"', "  conflicts-with: git-commit-message"),
    ("trigger_edit", "injection|secrets?", '  trigger-pattern: "security review|is this safe"',
     '  trigger-pattern: "injection|secrets?"'),
])
def test_editing_a_field_changes_only_its_line(qtbot, form, attr, typed, old_line, new_line):
    after = retype(qtbot, form, getattr(form, attr), typed)
    assert changed_lines(SKILL, after) == [(old_line, new_line)]
    assert form.text() == after


def test_description_is_written_after_typing_stops(qtbot, form):
    new = "Checks a change for security problems. Use when reviewing risky code."
    after = retype(qtbot, form, form.description_edit, new)
    assert changed_lines(SKILL, after) == [(SKILL.splitlines()[2], f"description: {new}")]


def test_parent_picked_from_the_list_is_written_at_once(qtbot, form):
    combo = form.parent_combo
    assert combo.findText("release-notes") >= 0
    with qtbot.waitSignal(form.textEdited, timeout=WAIT) as blocker:
        combo.setCurrentIndex(combo.findText("release-notes"))
        combo.activated.emit(combo.currentIndex())  # what a click in the popup does
    assert changed_lines(SKILL, blocker.args[0]) == [('  parent: "code-review-checklist"',
                                                      "  parent: release-notes")]


def test_emptying_an_optional_field_removes_it(qtbot, form):
    with qtbot.waitSignal(form.textEdited, timeout=WAIT) as blocker:
        form.license_edit.selectAll()
        qtbot.keyClick(form.license_edit, Qt.Key_Delete)
        qtbot.keyClick(form.license_edit, Qt.Key_Return)
    assert blocker.args[0] == SKILL.replace("license: Apache-2.0\n", "")
    after = retype(qtbot, form, form.tags_edit, " ")
    assert after == SKILL.replace("license: Apache-2.0\n", "").replace('  tags: "security code-review"\n', "")


def test_unchanged_field_emits_nothing(qtbot, form):
    with qtbot.assertNotEmitted(form.textEdited, wait=DEBOUNCE_MS * 2):
        form.license_edit.editingFinished.emit()
        form.tags_edit.setText("security,  code-review")  # same names, other spacing
        form.tags_edit.editingFinished.emit()


def test_set_text_fills_the_form_and_emits_nothing(qtbot, form):
    other = SKILL.replace("license: Apache-2.0", "license: MIT").replace('"quick-lint"', '"a b"')
    with qtbot.assertNotEmitted(form.textEdited, wait=50):
        form.set_text(other)
    assert form.name_edit.text() == "security-review"
    assert form.description_edit.toPlainText().startswith("Extends the code review")
    assert form.license_edit.text() == "MIT"
    assert form.compatibility_edit.text() == "Python 3.11 and git"
    assert form.allowed_tools_edit.text() == "Bash Read"
    assert form.tags_edit.text() == "security, code-review"
    assert form.depends_edit.text() == "code-review-checklist"
    assert form.conflicts_edit.text() == "a, b"
    assert form.trigger_edit.text() == "security review|is this safe"
    assert form.parent_combo.currentText() == "code-review-checklist"


def test_set_text_keeps_the_cursor_of_an_unchanged_field(qtbot, form):
    form.name_edit.setCursorPosition(4)
    form.set_text(SKILL.replace("license: Apache-2.0", "license: MIT"))
    assert form.name_edit.cursorPosition() == 4
    form.tags_edit.setText("security, code-review, ")  # typing the next tag
    form.set_text(SKILL)
    assert form.tags_edit.text() == "security, code-review, "


def test_top_level_list_stays_a_list(qtbot):
    text = "---\nname: x\ndescription: d\ndepends_on:\n  - a\n---\nbody\n"
    form = MetadataForm(library_names=lambda: ["a", "b"])
    qtbot.addWidget(form)
    form.set_text(text)
    after = retype(qtbot, form, form.depends_edit, "a, b")
    assert after == "---\nname: x\ndescription: d\ndepends_on:\n  - a\n  - b\n---\nbody\n"
    assert parse_document(after).data["depends_on"] == ["a", "b"]


def test_description_counter_turns_red_over_the_limit(qtbot, form):
    edit = form.description_edit
    edit.setPlainText("x" * 1024)
    assert form.description_counter.text() == "1024 / 1024"
    assert theme.LIGHT.error not in form.description_counter.styleSheet()
    edit.setPlainText("x" * 1025)
    assert form.description_counter.text() == "1025 / 1024"
    assert theme.LIGHT.error in form.description_counter.styleSheet()
    assert form.compatibility_counter.text() == f"{len('Python 3.11 and git')} / 500"


def test_name_check_shows_the_validator_messages(qtbot, form):
    form.show()
    form.name_edit.selectAll()
    qtbot.keyClicks(form.name_edit, "Bad_Name")
    message = form.name_message.text()
    assert "Skill name 'Bad_Name' must be lowercase" in message
    assert "Skill name 'Bad_Name' contains invalid characters. Only letters, digits, and hyphens are allowed." \
        in message
    assert form.name_message.isVisible() and theme.LIGHT.error in form.name_message.styleSheet()
    form.name_edit.setText("")
    qtbot.keyClicks(form.name_edit, "release-notes")
    assert form.name_message.text() == "Another skill in the library is already named 'release-notes'"
    form.name_edit.setText("")
    qtbot.keyClicks(form.name_edit, "security-audit")
    assert not form.name_message.isVisible()
    assert form.folder_note.text() == "The folder will follow the name: security-review/ becomes security-audit/"
    form.name_edit.setText("")
    qtbot.keyClicks(form.name_edit, "security-review")  # its own saved name is no clash
    assert not form.name_message.isVisible()


def test_depends_on_completer_offers_library_names(qtbot, form):
    completer = form.depends_edit.completer()
    form.depends_edit.setText("code-review-checklist, sh")
    completer.setCompletionPrefix(completer.splitPath(form.depends_edit.text())[0])
    model = completer.completionModel()
    assert [model.index(i, 0).data() for i in range(model.rowCount())] == ["shell-script-hardening"]
    completer.setCompletionPrefix("")
    assert set(completer.model().stringList()) == set(LIBRARY)
    completer.splitPath("code-review-checklist, ")  # what typing does
    index = completer.completionModel().index(0, 0)
    assert completer.pathFromIndex(index) == f"code-review-checklist, {index.data()}, "


def test_picking_a_completion_writes_at_once(qtbot, form):
    form.show()
    with qtbot.waitActive(form):  # the line edit takes the completer's picks only while it has focus
        form.activateWindow()
    edit = form.depends_edit
    edit.setFocus()
    edit.end(False)
    assert edit.hasFocus()
    qtbot.keyClicks(edit, ", sh")
    popup = edit.completer().popup()
    qtbot.waitUntil(popup.isVisible, timeout=WAIT)
    with qtbot.waitSignal(form.textEdited, timeout=DEBOUNCE_MS // 2) as blocker:
        qtbot.keyClick(popup, Qt.Key_Down)
        qtbot.keyClick(popup, Qt.Key_Return)
    assert edit.text() == "code-review-checklist, shell-script-hardening, "
    assert changed_lines(SKILL, blocker.args[0]) == [
        ('  depends-on: "code-review-checklist"', "  depends-on: code-review-checklist shell-script-hardening")]


def test_unknown_dependency_is_allowed_but_marked(qtbot, form):
    form.show()
    after = retype(qtbot, form, form.depends_edit, "code-review-checklist, nowhere-skill")
    assert "nowhere-skill" in after
    assert form.depends_note.isVisible()
    assert form.depends_note.text() == "not in the library: nowhere-skill"
    assert not form.conflicts_note.isHidden()  # quick-lint is not in the library either


def test_trigger_pattern_regex_error_is_shown(qtbot, form):
    form.show()
    form.trigger_edit.selectAll()
    qtbot.keyClicks(form.trigger_edit, "([a-z]+")
    assert form.trigger_message.isVisible()
    assert form.trigger_message.text().startswith("Not a valid regular expression: missing ), unterminated")
    qtbot.keyClicks(form.trigger_edit, ")")
    assert not form.trigger_message.isVisible()


def test_broken_frontmatter_disables_the_form(qtbot, form):
    form.show()
    broken = SKILL.replace("license: Apache-2.0", "license: Apache: 2.0")
    form.set_text(broken)
    assert not form.fields_box.isEnabled()
    assert form.banner.isVisible()
    assert form.banner.text().startswith("The frontmatter has an error on line 4:")
    assert form.banner.text().endswith("— fix it in the editor")
    assert form.license_edit.text() == "Apache-2.0"  # the last good value stays
    form.set_text(SKILL)
    assert form.fields_box.isEnabled() and not form.banner.isVisible()


def test_read_only_form_does_not_edit(qtbot):
    form = MetadataForm(read_only=True)
    qtbot.addWidget(form)
    form.set_text(SKILL)
    assert form.name_edit.isReadOnly() and form.description_edit.isReadOnly()
    with qtbot.assertNotEmitted(form.textEdited, wait=50):
        form.license_edit.setText("MIT")
        form.license_edit.editingFinished.emit()


# --- steps -----------------------------------------------------------------------

STEPS = ["List the trust boundaries the change crosses", "Search the diff for risky constructs",
         "Rate each finding by what an attacker gains"]


@pytest.fixture
def steps(qtbot):
    widget = StepsEditor()
    qtbot.addWidget(widget)
    widget.resize(420, 400)
    widget.show()
    widget.set_text(SKILL)
    return widget


def with_steps(items: list[str]) -> str:
    block = "".join(f"  - {s}\n" for s in items)
    head, rest = SKILL.split("steps:\n", 1)
    return head + "steps:\n" + block + rest[rest.index("---"):]


def test_steps_are_shown_in_order(steps):
    assert steps.steps() == STEPS
    assert not steps.is_from_body()


def test_add_step(qtbot, steps):
    steps.list.setCurrentRow(2)
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        steps.add_step("Write the report")
    assert blocker.args[0] == with_steps(STEPS + ["Write the report"])


def test_add_button_opens_an_inline_editor(qtbot, steps):
    steps.list.setCurrentRow(0)
    qtbot.mouseClick(steps.add_button, Qt.LeftButton)
    editor = steps.list.findChild(QPlainTextEdit)
    assert editor is not None
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        qtbot.keyClicks(editor, "Read the threat model")
        qtbot.keyClick(editor, Qt.Key_Return)
    assert blocker.args[0] == with_steps([STEPS[0], "Read the threat model", *STEPS[1:]])


def test_abandoned_new_step_writes_nothing(qtbot, steps):
    with qtbot.assertNotEmitted(steps.textEdited, wait=50):
        steps.add_step()
        editor = steps.list.findChild(QPlainTextEdit)
        qtbot.keyClick(editor, Qt.Key_Escape)
    assert steps.steps() == STEPS and steps.list.count() == 3


def test_edit_step_inline_with_f2(qtbot, steps):
    steps.list.setCurrentRow(1)
    steps.list.setFocus()
    qtbot.keyClick(steps.list, Qt.Key_F2)
    editor = steps.list.findChild(QPlainTextEdit)
    assert editor is not None and editor.toPlainText() == STEPS[1]
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        editor.selectAll()
        qtbot.keyClicks(editor, "Grep the diff for subprocess, eval and pickle")
        qtbot.keyClick(editor, Qt.Key_Return)
    after = blocker.args[0]
    assert changed_lines(SKILL, after) == [("  - " + STEPS[1], "  - Grep the diff for subprocess, eval and pickle")]


def test_remove_step_with_delete(qtbot, steps):
    steps.list.setCurrentRow(0)
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        qtbot.keyClick(steps.list, Qt.Key_Delete)
    assert blocker.args[0] == with_steps(STEPS[1:])


def test_removing_the_last_step_removes_the_key(qtbot):
    editor = StepsEditor()
    qtbot.addWidget(editor)
    text = "---\nname: x\ndescription: d\nsteps:\n  - only\n---\nbody\n"
    editor.set_text(text)
    editor.list.setCurrentRow(0)
    with qtbot.waitSignal(editor.textEdited, timeout=WAIT) as blocker:
        qtbot.mouseClick(editor.remove_button, Qt.LeftButton)
    assert blocker.args[0] == "---\nname: x\ndescription: d\n---\nbody\n"


def test_move_buttons_reorder(qtbot, steps):
    steps.list.setCurrentRow(2)
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        qtbot.mouseClick(steps.up_button, Qt.LeftButton)
    assert blocker.args[0] == with_steps([STEPS[0], STEPS[2], STEPS[1]])
    assert steps.list.currentRow() == 1
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        qtbot.mouseClick(steps.down_button, Qt.LeftButton)
    assert blocker.args[0] == with_steps(STEPS)
    assert not steps.down_button.isEnabled()


def test_model_move_like_a_drop_reorders(qtbot, steps):
    model = steps.list.model()
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        assert model.moveRows(model.index(0, 0).parent(), 0, 1, model.index(0, 0).parent(), 3)
    assert blocker.args[0] == with_steps([STEPS[1], STEPS[2], STEPS[0]])


def test_body_steps_are_read_only(qtbot):
    editor = StepsEditor()
    qtbot.addWidget(editor)
    editor.show()
    text = "---\nname: x\ndescription: d\n---\n# X\n\n## Steps\n\n1. First\n2. Second\n"
    editor.set_text(text)
    assert editor.is_from_body() and editor.steps() == ["First", "Second"]
    assert editor.note.text() == BODY_NOTE and editor.note.isVisible()
    assert not editor.add_button.isVisible() and not editor.remove_button.isVisible()
    assert not editor.list.item(0).flags() & Qt.ItemIsEditable
    with qtbot.assertNotEmitted(editor.textEdited, wait=50):
        editor.list.setCurrentRow(0)
        qtbot.keyClick(editor.list, Qt.Key_Delete)
    assert editor.steps() == ["First", "Second"]
    with qtbot.waitSignal(editor.textEdited, timeout=WAIT) as blocker:
        qtbot.mouseClick(editor.copy_button, Qt.LeftButton)
    assert blocker.args[0] == text.replace("d\n---", "d\nmetadata:\n  steps: |-\n    1. First\n    2. Second\n---")
    assert editor.add_button.isVisible() and not editor.is_from_body()


def test_sample_steps_are_shown_whole_and_copied_into_valid_frontmatter(qtbot):
    from pathlib import Path

    from skill_studio.core.format.validate import errors, validate_text

    text = (Path(__file__).resolve().parents[2] / "resources/samples/csv-cleanup/SKILL.md").read_text("utf-8")
    editor = StepsEditor()
    qtbot.addWidget(editor)
    editor.show()
    editor.set_text(text)
    shown = editor.steps()
    assert len(shown) == 7 and shown[1].startswith("Load with explicit settings")
    assert "```python" in shown[1] and shown[1].endswith("tell the user.")
    assert editor.list.visualItemRect(editor.list.item(1)).height() > 3 * editor.list.fontMetrics().height()
    with qtbot.waitSignal(editor.textEdited, timeout=WAIT) as blocker:
        qtbot.mouseClick(editor.copy_button, Qt.LeftButton)
    assert errors(validate_text(blocker.args[0], "csv-cleanup", "strict", lints=False)) == []
    again = StepsEditor()
    qtbot.addWidget(again)
    again.set_text(blocker.args[0])
    assert again.steps() == shown and not again.is_from_body()


def test_a_step_is_edited_over_several_lines(qtbot, steps):
    steps.list.setCurrentRow(0)
    steps.edit_current()
    editor = steps.list.findChild(QPlainTextEdit)
    assert editor is not None
    with qtbot.waitSignal(steps.textEdited, timeout=WAIT) as blocker:
        editor.selectAll()
        qtbot.keyClicks(editor, "Run the scan:")
        qtbot.keyClick(editor, Qt.Key_Return, Qt.ShiftModifier)
        qtbot.keyClicks(editor, "```sh")
        qtbot.keyClick(editor, Qt.Key_Return, Qt.ShiftModifier)
        qtbot.keyClicks(editor, "scan .")
        qtbot.keyClick(editor, Qt.Key_Return, Qt.ShiftModifier)
        qtbot.keyClicks(editor, "```")
        qtbot.keyClick(editor, Qt.Key_Return)
    doc = parse_document(blocker.args[0])
    assert doc.data["steps"][0] == "Run the scan:\n```sh\nscan .\n```"
    assert steps.steps()[0] == "Run the scan:\n```sh\nscan .\n```"


def test_steps_editor_broken_frontmatter(qtbot, steps):
    steps.set_text("---\nname: [x\n---\n")
    assert not steps.list.isEnabled() and "line" in steps.banner.text()
    assert steps.steps() == STEPS


# --- files -----------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(12_600)


def sample_files() -> list[SkillFile]:
    return [SkillFile("scripts/scan.sh", b"#!/bin/sh\ngrep -rn eval .\n", 0o755),
            SkillFile("scripts/report.py", b"print('report')\n"),
            SkillFile("references/owasp-top-10.md", b"# OWASP Top 10\n" * 40),
            SkillFile("assets/diagram.png", PNG),
            SkillFile("LICENSE.txt", b"Apache License 2.0\n")]


@pytest.fixture
def files(qtbot):
    panel = FilesPanel()
    qtbot.addWidget(panel)
    panel.resize(560, 360)
    panel.show()
    panel.set_files(sample_files())
    told: list[str] = []
    panel.tell = told.append
    panel.confirm = lambda text: True
    panel.told = told
    return panel


def paths(panel) -> set[str]:
    return {f.path for f in panel.files()}


def test_files_show_as_a_tree(files):
    model = files.model
    top = sorted(model.item(r, 0).text() for r in range(model.rowCount()))
    assert top == ["LICENSE.txt", "assets", "references", "scripts"]
    files.select("assets/diagram.png")
    assert files.details.text() == "assets/diagram.png: binary, 12.3 KB, image/png"
    files.select("scripts/scan.sh")
    assert "text, 26 bytes" in files.details.text() and "executable" in files.details.text()
    row = files._find("scripts/scan.sh")
    assert row.parent().child(row.row(), 3).text() == "✓"


def test_files_model_passes_the_model_tester(qtmodeltester, files):
    qtmodeltester.check(files.model)


def test_add_files_copies_into_the_selected_folder(qtbot, files, tmp_path):
    script = tmp_path / "lint.sh"
    script.write_bytes(b"#!/bin/sh\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    big = tmp_path / "huge.bin"
    big.write_bytes(b"\0" * (MAX_FILE_BYTES + 1))
    files.select("scripts/scan.sh")
    files.pick_files = lambda: [str(script), str(big)]
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["add_files"].trigger()
    added = {f.path: f for f in files.files()}["scripts/lint.sh"]
    assert added.data == b"#!/bin/sh\n" and added.mode == 0o755
    assert "huge.bin" not in " ".join(paths(files))
    assert files.told == ["'huge.bin' was not added: it is 10.0 MB (10,485,761 bytes), over the 10 MB limit "
                          "for a file of a skill."]


def test_add_files_refuses_a_fifo_or_device_without_reading_it(qtbot, files, tmp_path):
    pipe = tmp_path / "notes.txt"
    os.mkfifo(pipe)
    good = tmp_path / "ok.txt"
    good.write_text("fine\n")
    files.pick_files = lambda: [str(pipe), "/dev/zero", str(good)]
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["add_files"].trigger()   # a fifo would block a plain read forever
    assert [t.split(":")[0] for t in files.told] == ["'notes.txt' was not added", "'zero' was not added"]
    assert all("not a regular file (a fifo, socket or device)" in t for t in files.told)
    assert any(p.endswith("ok.txt") for p in paths(files))
    assert not any(p.endswith(("notes.txt", "zero")) for p in paths(files))


def test_new_text_file(qtbot, files):
    files.ask_text = lambda title, label, default: "scripts/run.sh"
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        qtbot.mouseClick(files.buttons["new_text_file"], Qt.LeftButton)
    assert "scripts/run.sh" in paths(files)
    assert files.selected_path() == ("scripts/run.sh", False)


def test_rename_file_and_folder(qtbot, files):
    files.select("scripts/report.py")
    files.ask_text = lambda title, label, default: "tools/report.py"
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["rename_file"].trigger()
    assert "tools/report.py" in paths(files) and "scripts/report.py" not in paths(files)
    files.select("scripts")
    files.ask_text = lambda title, label, default: "bin"
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["rename_file"].trigger()
    modes = {f.path: f.mode for f in files.files()}
    assert modes["bin/scan.sh"] == 0o755 and not any(p.startswith("scripts/") for p in modes)


def test_delete_asks_first(qtbot, files):
    files.select("LICENSE.txt")
    files.confirm = lambda text: False
    with qtbot.assertNotEmitted(files.filesChanged, wait=20):
        files.actions["delete_file"].trigger()
    asked = []
    files.confirm = lambda text: asked.append(text) or True
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["delete_file"].trigger()
    assert asked == ["Delete 'LICENSE.txt'?"] and "LICENSE.txt" not in paths(files)
    files.select("scripts")
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["delete_file"].trigger()
    assert asked[-1] == "Delete the folder 'scripts' and its 2 files?"
    assert not any(p.startswith("scripts/") for p in paths(files))


def test_keys_delete_and_rename_in_the_tree(qtbot, files):
    files.activateWindow()
    files.select("LICENSE.txt")
    files.tree.setFocus()
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        qtbot.keyClick(files.tree, Qt.Key_Delete)
    assert "LICENSE.txt" not in paths(files)
    files.select("scripts/report.py")
    files.ask_text = lambda title, label, default: default.replace("report", "summary")
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        qtbot.keyClick(files.tree, Qt.Key_F2)
    assert "scripts/summary.py" in paths(files)


def test_toggle_executable(qtbot, files):
    files.select("scripts/report.py")
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["toggle_executable"].trigger()
    assert {f.path: f.mode for f in files.files()}["scripts/report.py"] == 0o755
    with qtbot.waitSignal(files.filesChanged, timeout=WAIT):
        files.actions["toggle_executable"].trigger()
    assert {f.path: f.mode for f in files.files()}["scripts/report.py"] == 0o644


@pytest.mark.parametrize("bad, reason", [
    ("../x", "'../x' escapes the skill folder"),
    ("/abs", "'/abs' is an absolute path"),
    ("a\\b", "'a\\b' uses backslashes in its path"),
    ("SKILL.md", "'SKILL.md' is the skill's own SKILL.md; edit it in the editor"),
    ("scripts/scan.sh", "'scripts/scan.sh' already exists"),
    ("Scripts/Scan.sh", "'Scripts/Scan.sh' already exists"),
    ("bad\x01name", "'bad\x01name' has a control character in its name"),
    ("scripts", "'scripts' is a folder that holds 'scripts/scan.sh'"),
    ("LICENSE.txt/x", "'LICENSE.txt' is a file, so it cannot hold 'LICENSE.txt/x'"),
])
def test_bad_paths_are_refused_with_the_reason(qtbot, files, bad, reason):
    with pytest.raises(ValueError) as e:
        check_path(bad, [f.path for f in files.files()])
    assert str(e.value) == reason
    files.ask_text = lambda title, label, default: bad
    before = files.files()
    with qtbot.assertNotEmitted(files.filesChanged, wait=20):
        files.actions["new_text_file"].trigger()
    assert files.told == [reason + "."] and files.files() == before


def test_binary_file_does_not_open_but_text_does(qtbot, files):
    index = files._find("assets/diagram.png").index()
    with qtbot.assertNotEmitted(files.openFileRequested, wait=20):
        files.tree.activated.emit(index)
    assert "binary, 12.3 KB, image/png" in files.details.text()
    files.select("scripts/scan.sh")
    with qtbot.waitSignal(files.openFileRequested, timeout=WAIT) as blocker:
        qtbot.keyClick(files.tree, Qt.Key_Return)
    assert blocker.args == ["scripts/scan.sh"]
    rect = files.tree.visualRect(files._find("LICENSE.txt").index())
    with qtbot.waitSignal(files.openFileRequested, timeout=WAIT) as blocker:
        # A real double-click: the first click, then the second one that the system reports as double.
        qtbot.mouseClick(files.tree.viewport(), Qt.LeftButton, pos=rect.center())
        qtbot.mouseDClick(files.tree.viewport(), Qt.LeftButton, pos=rect.center())
    assert blocker.args == ["LICENSE.txt"]


def test_update_file_keeps_mode_and_emits_nothing(qtbot, files):
    with qtbot.assertNotEmitted(files.filesChanged, wait=20):
        files.update_file("scripts/scan.sh", b"#!/bin/sh\necho new\n")
    f = {f.path: f for f in files.files()}["scripts/scan.sh"]
    assert f.data == b"#!/bin/sh\necho new\n" and f.mode == 0o755


BAD_TOOLS = (b"tools:\n"
             b"  - name: Search-Issues\n"
             b"    description: Search the issues of a repository.\n"
             b"    parameters:\n"
             b"      - {name: limit, type: int, description: How many}\n")
GOOD_TOOLS = (b"tools:\n  - name: search_issues\n    description: Search the issues. Use when asked about "
              b"bugs; not for pull requests.\n")


def _icon_is(panel, item, pixmap) -> bool:
    icon = panel.style().standardIcon(pixmap)
    return item.icon().pixmap(16).toImage() == icon.pixmap(16).toImage()


def test_tool_file_problems_show_with_their_lines(qtbot, files):
    with qtbot.assertNotEmitted(files.filesChanged, wait=20):
        files.update_file("tools.yaml", BAD_TOOLS)
    item = files._find("tools.yaml")
    assert _icon_is(files, item, QStyle.StandardPixmap.SP_MessageBoxWarning)
    tip = item.toolTip()
    assert "line 2: warning: tool 'Search-Issues': the name has capital letters" in tip
    assert "line 3: warning: tool 'Search-Issues': the description says what the tool does" in tip
    assert "line 5: warning: tool 'Search-Issues': parameter 'limit' has the type 'int'" in tip
    assert files.selected_path() == ("tools.yaml", False)
    lines = files.details.text().splitlines()
    assert lines[0].startswith("tools.yaml: text,") and lines[1] == "3 problems:"
    assert [line.split(":")[0] for line in lines[2:]] == ["line 2", "line 3", "line 5"]
    assert lines[2].endswith("(W010)")
    # Fixed in its own tab: the mark and the problems go.
    files.update_file("tools.yaml", GOOD_TOOLS)
    assert _icon_is(files, files._find("tools.yaml"), QStyle.StandardPixmap.SP_FileIcon)
    assert len(files.details.text().splitlines()) == 1 and "problem" not in files._find("tools.yaml").toolTip()


@pytest.mark.parametrize("path, data, first", [
    ("tools.yaml", b"tools: [\n", "line 1: warning: is not valid YAML"),
    ("tools.yaml", b"tools:\n  - name: caf\xe9\n", "line 2: warning: is not UTF-8 text"),
    ("sources.yaml", b"- url: example.org/page\n",
     "line 1: warning: source 1: the url 'example.org/page' has no scheme"),
])
def test_unreadable_or_bad_tool_files_are_explained_not_crashed_on(qtbot, files, path, data, first):
    files.update_file(path, data)
    assert files.details.text().splitlines()[2].startswith(first)
    assert first in files._find(path).toolTip()


def test_many_problems_are_listed_in_part_under_the_tree(qtbot, files):
    files.update_file("tools.yaml", b"tools:\n" + b"  - 1\n" * 12)
    lines = files.details.text().splitlines()
    assert lines[1] == "12 problems:" and len(lines) == 2 + MAX_SHOWN_PROBLEMS + 1
    assert lines[-1].startswith("… and 7 more")
    assert files._find("tools.yaml").toolTip().count("warning: tool") == 12


def test_only_the_tool_files_beside_skill_md_are_checked(qtbot, files):
    files.update_file("references/tools.yaml", b"tools: [\n")
    item = files._find("references/tools.yaml")
    assert _icon_is(files, item, QStyle.StandardPixmap.SP_FileIcon) and "problem" not in files.details.text()


# --- screenshots -----------------------------------------------------------------

def _form_and_steps(qtbot):
    box = QWidget()
    qtbot.addWidget(box)
    row = QHBoxLayout(box)
    form = MetadataForm(library_names=lambda: list(LIBRARY))
    steps = StepsEditor()
    row.addWidget(form, 3)
    row.addWidget(steps, 2)
    form.set_text(SKILL)
    steps.set_text(SKILL)
    box.resize(980, 760)
    box.show()
    qtbot.waitExposed(box)
    qtbot.waitUntil(lambda: form.isVisible() and steps.isVisible() and not steps._sync_timer.isActive(),
                    timeout=5000)
    QApplication.processEvents()   # pending layouts and repaints, before the picture
    return box


def test_screenshots(qtbot):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance()
    theme.apply_theme(app, theme.LIGHT)
    try:
        box = _form_and_steps(qtbot)
        assert box.grab().save(str(SCREENSHOTS / "designer-form-light.png"))
        panel = FilesPanel()
        qtbot.addWidget(panel)
        panel.set_files(sample_files())
        panel.resize(560, 340)
        panel.show()
        qtbot.waitExposed(panel)
        panel.select("assets/diagram.png")
        qtbot.waitUntil(lambda: "assets/diagram.png" in (panel.selected_path() or ()), timeout=5000)
        QApplication.processEvents()
        assert panel.grab().save(str(SCREENSHOTS / "designer-files.png"))
        panel.update_file("tools.yaml", BAD_TOOLS)
        qtbot.waitUntil(lambda: "3 problems:" in panel.details.text(), timeout=5000)
        QApplication.processEvents()
        assert panel.grab().save(str(SCREENSHOTS / "designer-files-tool-problems.png"))
        theme.apply_theme(app, theme.DARK)
        dark = _form_and_steps(qtbot)
        assert dark.grab().save(str(SCREENSHOTS / "designer-form-dark.png"))
    finally:
        theme.apply_theme(app, theme.LIGHT)


def test_the_files_tree_leaves_no_wrapper_of_items_qt_deletes_behind(qtbot):
    # Qt deletes a model's invisible root item without telling Python: a wrapper of it that
    # outlived the model would be handed back for the next object made at its address.
    import gc

    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtGui import QStandardItem

    gc.collect()
    gc.disable()
    try:
        panel = FilesPanel()
        panel.set_files(sample_files())
        panel.select("scripts/run.sh")
        panel.deleteLater()
        del panel
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        left = [w for w in shiboken6.getAllValidWrappers() if isinstance(w, QStandardItem)]
    finally:
        gc.enable()
    assert left == []
