"""Saving from the designer: Ctrl+S saves at once (no dialog), with the optional note typed beside
Save; a change made elsewhere is shown before anything else is asked."""

from __future__ import annotations

import pytest
from conftest import shown_window
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QInputDialog, QMessageBox

from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.skillmd import parse_document
from skill_studio.core.store import Store

SKILL = "release-notes"


@pytest.fixture
def no_dialogs(monkeypatch):
    """Every dialog the designer could open is recorded instead of waiting for a person."""
    opened: list[str] = []

    def refuse(name, answer):
        def record(*_args, **_kwargs):
            opened.append(name)
            return answer
        return record

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(refuse("getText", ("", False))))
    monkeypatch.setattr(QDialog, "exec", refuse("QDialog.exec", 0))
    monkeypatch.setattr(QMessageBox, "exec", refuse("QMessageBox.exec", 0))
    for name in ("question", "warning", "information", "critical"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(refuse(f"QMessageBox.{name}", QMessageBox.No)))
    return opened


@pytest.fixture
def window(qtbot, seeded_store, tmp_path):
    w = shown_window(qtbot, seeded_store, tmp_path, (1280, 800))
    w.workspace.close_all = lambda: True
    w.activateWindow()   # shortcuts need the window active
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=3000)
    return w


@pytest.fixture
def designer(window):
    d = window.open_designer(SKILL)
    d.ask_unsaved = lambda: "discard"
    return d


def type_at_end(qtbot, designer, text: str) -> None:
    cursor = designer.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    designer.editor.setTextCursor(cursor)
    designer.editor.setFocus()
    qtbot.keyClicks(designer.editor, text)


def edit_elsewhere(path, name: str, line: str) -> str:
    """Another process (the command line, another window) saves a new version."""
    other = Store(path)
    try:
        skill = other.get(name)
        text = skill.skill_md + line
        other.update(name, to_skill(parse_document(text), skill.folder_name, files=skill.files), skill.version)
        return text
    finally:
        other.close()


@pytest.mark.parametrize("note", ["", "Tightened the steps", "  spaced and ünïcode — note  "])
def test_ctrl_s_saves_at_once_with_the_note_typed_beside_save(qtbot, window, designer, no_dialogs, note):
    version = window.store.get(SKILL).version
    type_at_end(qtbot, designer, "More.")
    designer.toolbar.note.setText(note)
    designer.editor.setFocus()
    qtbot.keyClick(designer.editor, Qt.Key_S, Qt.ControlModifier)
    assert no_dialogs == []
    assert window.store.get(SKILL).version == version + 1 and not designer.is_dirty()
    assert window.store.versions(SKILL)[0].note == (note.strip() or "edited")
    assert designer.toolbar.note.text() == ""   # cleared for the next version
    assert QApplication.activeModalWidget() is None


def test_enter_in_the_note_saves(qtbot, window, designer, no_dialogs):
    type_at_end(qtbot, designer, "More.")
    designer.toolbar.note.setFocus()
    qtbot.keyClicks(designer.toolbar.note, "Fixed a typo")
    qtbot.keyClick(designer.toolbar.note, Qt.Key_Return)
    assert no_dialogs == [] and not designer.is_dirty()
    assert window.store.versions(SKILL)[0].note == "Fixed a typo"


def test_a_note_is_kept_when_nothing_was_saved(qtbot, window, designer, no_dialogs):
    type_at_end(qtbot, designer, "More.")
    designer.toolbar.note.setText("keep me")
    edit_elsewhere(window.store.path, SKILL, "\nTheirs.\n")
    designer.resolve_conflict = lambda stored, mine: "cancel"
    assert not designer.save()
    assert designer.toolbar.note.text() == "keep me" and designer.is_dirty()


@pytest.mark.parametrize("choice", ["cancel", "overwrite", "reload"])
def test_a_change_made_elsewhere_is_shown_before_anything_is_asked(qtbot, window, designer, no_dialogs, choice):
    type_at_end(qtbot, designer, "Mine.")
    designer.toolbar.note.setText("my note")
    theirs = edit_elsewhere(window.store.path, SKILL, "\nTheirs.\n")
    asked: list[str] = []
    designer.confirm = lambda title, text: asked.append("confirm") or True
    designer.tell = lambda title, text: asked.append("tell")
    designer.ask_unsaved = lambda: asked.append("unsaved") or "cancel"
    designer.resolve_conflict = lambda stored, mine: asked.append(f"conflict: {stored == theirs}") or choice
    designer.editor.setFocus()
    qtbot.keyClick(designer.editor, Qt.Key_S, Qt.ControlModifier)
    assert asked == ["conflict: True"] and no_dialogs == []
    stored = window.store.get(SKILL)
    if choice == "overwrite":
        assert stored.skill_md.endswith("Mine.") and window.store.versions(SKILL)[0].note == "my note"
    elif choice == "reload":
        assert designer.text() == theirs and not designer.is_dirty()
    else:
        assert stored.skill_md == theirs and designer.is_dirty()


def test_a_restore_after_a_change_elsewhere_says_so_before_asking(qtbot, window, designer):
    type_at_end(qtbot, designer, "Mine.")
    edit_elsewhere(window.store.path, SKILL, "\nTheirs.\n")
    asked: list[str] = []
    designer.confirm = lambda title, text: asked.append("confirm") or True
    designer.tell = lambda title, text: asked.append(f"{title}: {text}")
    designer.restore_version(1)
    assert len(asked) == 1 and asked[0].startswith(f"Not restored: {SKILL} was changed elsewhere")
