"""The health view follows the window's changes: undoing an applied plan says the moves were undone
(and they can be ticked again), redoing says they were applied again, and any other change to the
skills of a run says the plan may be out of date. The run ends with a one-line summary."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import make
from PySide6.QtCore import Qt

from skill_studio.core.model import Lifecycle, Origin

STALE = ("old-llm-notes", "old-llm-slides", "old-llm-charts")


@pytest.fixture
def window(open_window, seeded_store):
    old = datetime.now(UTC) - timedelta(days=400)
    for name in STALE:
        seeded_store.add(make(name, f"Does {name} things. Use when {name} is due.", origin=Origin.LLM), now=old)
    return open_window(seeded_store)


def health_view(window, qtbot):
    window.actions["show_health"].trigger()
    view = window.feature("health").view
    view.confirm = lambda text: True
    view.inform = lambda text: None
    with qtbot.waitSignal(view.runFinished, timeout=20_000):
        qtbot.mouseClick(view.run_button, Qt.LeftButton)
    return view


def ticked(view) -> set[str]:
    return {a.skill for a in view.plan_model.checked_actions()}


def test_the_run_ends_with_a_summary(window, qtbot):
    view = health_view(window, qtbot)
    said = view.status_label.full_text()
    assert said.startswith(f"Checked {len(view.result.skills)} skills: ") and "moves planned" in said
    assert "near-duplicate pair" in said
    assert window.statusBar().currentMessage() == f"Health check done. {said}"


def test_undo_and_redo_of_an_applied_plan_reach_the_health_view(window, qtbot, seeded_store):
    view = health_view(window, qtbot)
    moved = ticked(view)
    assert moved >= set(STALE)
    n = len(moved)
    assert view.apply_plan()
    assert view.status_label.full_text().startswith(f"Applied {n} moves")
    assert window.statusBar().currentMessage() == f"Health plan applied: {n} moves"
    assert not ticked(view) and all(seeded_store.get(s).lifecycle == Lifecycle.DEPRECATED for s in STALE)

    window.actions["undo"].trigger()
    assert view.status_label.full_text() == f"The {n} moves were undone: the plan can be applied again"
    assert "Applied" not in view.status_label.full_text()
    assert ticked(view) == moved and view.apply_button.isEnabled()
    assert window.statusBar().currentMessage() == f"Undid: health plan applied: {n} moves"
    assert all(seeded_store.get(s).lifecycle == Lifecycle.CANDIDATE for s in STALE)

    window.actions["redo"].trigger()
    assert view.status_label.full_text().startswith(f"The {n} moves were applied again")
    assert not ticked(view)

    window.actions["undo"].trigger()
    window.feature("review").actions.set_trust("old-llm-notes", 2)   # another change to a skill it shows
    assert view.status_label.full_text().startswith("Skills changed since this check ran")
