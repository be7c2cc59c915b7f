"""The Sources tab and the add dialog, used as a person would: name a repository, list it, tick,
add; check for updates, look at both sides, update or choose a side."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from source_repos import Upstream, skill_md

from skill_studio.core.sources import ops
from skill_studio.ui.sources.add_dialog import AddSourceDialog
from skill_studio.ui.sources.sources_view import STATE_WORDS, SourcesView


@pytest.fixture
def upstream(tmp_path):
    return Upstream(tmp_path, {"skills/alpha/SKILL.md": skill_md("alpha"), "skills/beta/SKILL.md": skill_md("beta"),
                               "skills/broken/SKILL.md": "---\nname: broken\n---\nno description\n"})


def _states(view: SourcesView) -> dict[str, str]:
    return {view.list.topLevelItem(i).text(0): view.list.topLevelItem(i).text(1)
            for i in range(view.list.topLevelItemCount())}


def _select(view: SourcesView, name: str) -> None:
    item = next(view.list.topLevelItem(i) for i in range(view.list.topLevelItemCount())
                if view.list.topLevelItem(i).text(0) == name)
    view.list.setCurrentItem(item)


def test_the_dialog_lists_a_repository_and_adds_what_is_ticked(qtbot, store, upstream):
    dialog = AddSourceDialog(store)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.source, upstream.url)
    qtbot.mouseClick(dialog.list_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.skills.count() == 3 and dialog.run is None, timeout=20000)
    texts = [dialog.skills.item(i).text() for i in range(3)]
    (broken,) = [i for i, t in enumerate(texts) if "skills/broken" in t]
    assert texts[broken].endswith("(cannot be added)")
    assert "description" in dialog.skills.item(broken).toolTip()
    assert dialog.add_button.text() == "Add 2 skill(s)"
    dialog.skills.item([i for i, t in enumerate(texts) if t.startswith("beta")][0]).setCheckState(Qt.Unchecked)
    assert dialog.add_button.text() == "Add 1 skill(s)"
    with qtbot.waitSignal(dialog.accepted, timeout=20000):
        qtbot.mouseClick(dialog.add_button, Qt.LeftButton)
    assert dialog.added == ["alpha"] and store.get("alpha").lifecycle == "candidate"
    assert "beta" not in store


def test_a_source_that_cannot_be_read_is_said_in_the_dialog(qtbot, store, tmp_path):
    dialog = AddSourceDialog(store)
    qtbot.addWidget(dialog)
    dialog.source.setText((tmp_path / "missing.git").as_uri())
    dialog.list_skills()
    qtbot.waitUntil(lambda: dialog.run is None and "git fetch" in dialog.summary.text(), timeout=20000)
    assert dialog.skills.count() == 0 and not dialog.add_button.isEnabled()


def test_check_update_and_a_two_sided_choice(qtbot, store, upstream):
    ops.add(store, upstream.url, names=["alpha", "beta"])
    skill = store.get("beta")
    store.update("beta", replace(skill, skill_md=skill.skill_md + "Ours.\n", content=skill.content + "Ours.\n"),
                 skill.version)
    upstream.push({"skills/alpha/SKILL.md": skill_md("alpha", body="New step.\n"),
                   "skills/beta/SKILL.md": skill_md("beta", body="Theirs.\n")})
    view = SourcesView(store)
    qtbot.addWidget(view)
    view.resize(1100, 600)
    view.show()
    assert _states(view) == {"alpha": "Not checked yet", "beta": "Not checked yet"}
    qtbot.mouseClick(view.check_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: view.run is None and _states(view)["alpha"] != "Not checked yet", timeout=20000)
    assert _states(view) == {"alpha": STATE_WORDS[ops.UPSTREAM], "beta": STATE_WORDS[ops.BOTH]}

    _select(view, "beta")
    assert view.update_button.text() == "Take upstream" and view.keep_button.isVisible()
    assert "nothing is overwritten until you choose" in view.detail.text()
    assert "Theirs." in view.upstream_view.unified_text()
    view.sides.setCurrentWidget(view.studio_view)
    assert "Ours." in view.studio_view.unified_text()

    _select(view, "alpha")
    assert view.update_button.text() == "Update" and not view.keep_button.isVisible()
    with qtbot.waitSignal(view.changed, timeout=20000) as changed:
        qtbot.mouseClick(view.update_button, Qt.LeftButton)
    assert changed.args == [["alpha"]]
    qtbot.waitUntil(lambda: view.run is None and _states(view)["alpha"] == STATE_WORDS[ops.CURRENT], timeout=20000)
    assert "New step." in store.get("alpha").skill_md

    _select(view, "beta")
    with qtbot.waitSignal(view.changed, timeout=20000):
        qtbot.mouseClick(view.keep_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: view.run is None and _states(view)["beta"] == STATE_WORDS[ops.HERE], timeout=20000)
    assert "Ours." in store.get("beta").skill_md


def test_the_window_has_the_sources_tab_and_the_add_action(qtbot, store, open_window, upstream):
    ops.add(store, upstream.url, names=["alpha"])
    window = open_window(store)
    window.action("show_sources").trigger()
    view = window.page("sources")
    assert view is not None and _states(view) == {"alpha": "Not checked yet"}
    assert window.action("add_from_source").text().replace("&", "") == "Add skills from a repository…"


def test_closing_while_a_repository_is_read_does_not_wait(qtbot, store, upstream):
    dialog = AddSourceDialog(store)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.source.setText(upstream.url)
    dialog.list_skills()
    assert dialog.run is not None
    with qtbot.waitSignal(dialog.rejected, timeout=20000):
        dialog.reject()
        assert dialog.closing and "Closing once the repository has been read" in dialog.progress.label.text()
        dialog.reject()   # asked again: still waits for the reading, never ends it halfway
    assert dialog.run is None and dialog.skills.count() == 0


def test_update_never_overwrites_an_edit_made_after_the_check(qtbot, store, upstream):
    ops.add(store, upstream.url, names=["alpha"])
    upstream.push({"skills/alpha/SKILL.md": skill_md("alpha", body="Theirs.\n")})
    view = SourcesView(store)
    qtbot.addWidget(view)
    view.check()
    qtbot.waitUntil(lambda: view.run is None and _states(view)["alpha"] == STATE_WORDS[ops.UPSTREAM], timeout=20000)
    skill = store.get("alpha")   # edited in the studio after the check
    store.update("alpha", replace(skill, skill_md=skill.skill_md + "Ours.\n", content=skill.content + "Ours.\n"),
                 skill.version)
    _select(view, "alpha")
    qtbot.mouseClick(view.update_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: view.run is None and _states(view)["alpha"] == STATE_WORDS[ops.BOTH], timeout=20000)
    assert "Ours." in store.get("alpha").skill_md and "Theirs." not in store.get("alpha").skill_md
    assert view.update_button.text() == "Take upstream"   # now offered as the two-sided choice it is


def test_closing_the_windows_add_dialog_mid_fetch_ends_cleanly(qtbot, store, open_window, upstream):
    from PySide6.QtCore import QTimer

    window = open_window(store)
    feature = window.feature("sources")
    seen = []

    def drive() -> None:
        dialog = feature.dialog
        dialog.source.setText(upstream.url)
        dialog.list_skills()
        seen.append(dialog.run is not None)
        dialog.reject()

    QTimer.singleShot(0, drive)
    feature.add()   # exec() returns once the reading ended and the dialog closed
    assert seen == [True] and feature.dialog is None
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)   # the dialog goes; its thread had ended
