"""What the window says after each review operation and after its undo or redo: a sentence with
the skill names and the values in the domain's words, that replaces the one before (no stale
message after an undo); the Undo and Redo menu items say the same; a move's reason dialog cannot
be closed without a reason, so it never ends in an error."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from skill_studio.core.model import LIFECYCLE_TERMS, Lifecycle, TrustTier
from skill_studio.ui.review import wording
from skill_studio.ui.review.reason_dialog import REQUIRED_HINT, ReasonDialog, ask_reason


@pytest.fixture
def window(open_window, seeded_store):
    w = open_window(seeded_store, reviewer="ana")
    told: list[str] = []
    w.feature("review").actions.tell = lambda title, text: told.append(text)
    w.feature("review").actions.ask_reason = lambda parent, title, prompt: "checked by hand"
    w.told = told
    return w


def status(window) -> str:
    return window.statusBar().currentMessage()


def undo_then_redo(window, said: str) -> None:
    """Undo and Redo name the operation in the menu, and their message replaces the last one."""
    undo, redo = window.actions["undo"], window.actions["redo"]
    assert undo.isEnabled() and said in undo.text().replace("&&", "&")
    undo.trigger()
    assert status(window) == wording.stepped("Undo", said)
    assert status(window).startswith("Undid: ") and said[1:] in status(window)
    assert redo.isEnabled() and said in redo.text().replace("&&", "&")
    redo.trigger()
    assert status(window) == wording.stepped("Redo", said)


@pytest.mark.parametrize("tier", [1, 2, 3])
def test_setting_trust_names_the_skill_the_tier_and_its_name(window, seeded_store, tier):
    name = "release-notes"
    actions = window.feature("review").actions
    actions.set_trust(name, tier)
    said = f"Trust of {name} set to {tier} \u2013 {TrustTier(tier).label}"
    assert status(window) == said
    window.actions["undo"].trigger()
    assert status(window) == f"Undid: trust of {name} set to {tier} \u2013 {TrustTier(tier).label}"
    assert seeded_store.get(name).trust_tier == TrustTier.TRUSTED
    window.actions["redo"].trigger()
    assert status(window) == f"Redid: trust of {name} set to {tier} \u2013 {TrustTier(tier).label}"
    assert "\u2605" not in window.actions["undo"].text()   # no star glyphs in the menu


@pytest.mark.parametrize(("name", "action"), [("python-test-writer", "promote"), ("security-review", "promote"),
                                              ("release-notes", "degrade"), ("release-notes", "deprecate"),
                                              ("pdf-extract", "archive"), ("gitmoji-commits", "restore")])
def test_a_lifecycle_move_names_the_skill_and_its_new_state(window, seeded_store, name, action):
    window.browser.select_name(name)
    window.actions[f"move_{action}"].trigger()
    state = seeded_store.get(name).lifecycle
    label = LIFECYCLE_TERMS[state].label
    said = status(window)
    assert said.startswith(f"{name} {action}") and label.lower() in said.lower()
    assert "done" not in said and "Ctrl+Z" not in said
    undo_then_redo(window, said)


def test_moving_several_skills_names_them(window, seeded_store):
    window.browser.select_names(["release-notes", "security-review"])
    window.actions["move_deprecate"].trigger()
    said = status(window)
    assert said in ("release-notes and security-review deprecated", "security-review and release-notes deprecated")
    undo_then_redo(window, said)


def test_pin_delete_and_merge_say_what_they_did(window, seeded_store):
    actions = window.feature("review").actions
    actions.set_pinned(["release-notes", "pdf-extract"], True)
    assert status(window) == "release-notes and pdf-extract pinned"
    undo_then_redo(window, "release-notes and pdf-extract pinned")
    actions.delete(["python-test-writer"])
    assert status(window) == "python-test-writer deleted"
    undo_then_redo(window, "python-test-writer deleted")
    assert wording.merged("csv-tidy", "csv-cleanup") == "Merged csv-tidy into csv-cleanup"


@pytest.mark.parametrize(("names", "text"), [
    (["a"], "a"), (["a", "b"], "a and b"), (["a", "b", "c"], "a, b and c"),
    (["a", "b", "c", "d", "e"], "5 skills (a, b, c and 2 more)")])
def test_names_are_listed_in_words(names, text):
    assert wording.names_text(names) == text


def test_an_undo_replaces_the_message_of_the_operation(window, seeded_store):
    actions = window.feature("review").actions
    actions.set_trust("release-notes", 1)
    before = status(window)
    window.actions["undo"].trigger()
    assert status(window) != before and status(window).startswith("Undid:")
    assert not window.actions["undo"].isEnabled() and window.actions["undo"].text() == "&Undo"
    actions.undo()   # Ctrl+Z with nothing left (in the queue): says so instead of leaving the old message
    assert status(window) == "Nothing to undo"


# --- the reason dialog ----------------------------------------------------------------------------

@pytest.mark.parametrize("typed", ["", "   ", "\t"])
def test_a_required_reason_keeps_ok_disabled_until_one_is_typed(qtbot, typed):
    dialog = ReasonDialog(None, "Promote pdf", "Why is it ready to promote?")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.edit, typed)
    assert not dialog.ok_button.isEnabled() and dialog.hint.text() == REQUIRED_HINT
    qtbot.keyClick(dialog.edit, Qt.Key_Return)   # Enter on an empty reason keeps the dialog open
    assert dialog.isVisible() and dialog.result() == 0
    qtbot.keyClicks(dialog.edit, "tested on three PDFs")
    assert dialog.ok_button.isEnabled()
    dialog.edit.clear()
    assert not dialog.ok_button.isEnabled()


def test_an_optional_reason_may_stay_empty(qtbot):
    dialog = ReasonDialog(None, "Delete", "Delete pdf?", required=False)
    qtbot.addWidget(dialog)
    assert dialog.ok_button.isEnabled()


def _answer_modal(qtbot, answers: list[str], seen: list[str]) -> QTimer:
    """Answer each reason dialog that opens: first try OK while empty (it must stay open), then
    type the next answer and press OK."""
    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ReasonDialog) or not answers:
            return
        seen.append(f"ok-enabled={dialog.ok_button.isEnabled()}")
        dialog.ok_button.click()
        seen.append(f"open-after-empty-ok={dialog.isVisible()}")
        dialog.edit.setText(answers.pop(0))
        dialog.ok_button.click()

    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(look)
    timer.start()
    return timer


def test_promote_from_the_menu_cannot_end_in_an_error(window, qtbot, seeded_store):
    actions = window.feature("review").actions
    actions.ask_reason = ask_reason   # the real dialog
    seen: list[str] = []
    timer = _answer_modal(qtbot, ["reviewed the examples"], seen)
    try:
        window.browser.select_name("python-test-writer")
        window.actions["move_promote"].trigger()
    finally:
        timer.stop()
    assert seen == ["ok-enabled=False", "open-after-empty-ok=True"]
    assert not window.told   # no error after the dialog
    skill = seeded_store.get("python-test-writer")
    assert skill.lifecycle == Lifecycle.VERIFIED and skill.lifecycle_reason == "reviewed the examples"
    assert status(window) == "python-test-writer promoted to Verified"
