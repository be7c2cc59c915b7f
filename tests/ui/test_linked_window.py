"""Linked folders in the window: linking imports, an edit on disk shows in the library after a
pause, a save in the studio reaches the disk, a two-sided change asks with both versions and
overwrites nothing until the user chooses; a screenshot of the conflict dialog."""

from __future__ import annotations

import shutil

import pytest
from conftest import SAMPLES, SCREENSHOTS, shown_window

from skill_studio.core.library import linked
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.ui.agents.window_linked import ConflictDialog, LinksDialog


@pytest.fixture
def team(tmp_path):
    root = tmp_path / "team"
    root.mkdir()
    for name in ("release-notes", "pdf-extract"):
        shutil.copytree(SAMPLES / name, root / name)
    return root


@pytest.fixture
def window(qtbot, store, tmp_path):
    w = shown_window(qtbot, store, tmp_path, (1200, 800))
    told = []
    w.feature("linked").tell = told.append
    w.told = told
    return w


def studio_save(store, name, old, new):
    s = store.get(name)
    store.update(name, build_skill(s.skill_md.replace(old, new, 1).encode(), name, s.files, origin=Origin.HUMAN,
                                   source=s.source_path), s.version)


def test_link_then_edits_on_disk_and_saves_in_the_studio(window, qtbot, store, team):
    window.feature("linked").pick_folder = lambda: str(team)
    window.actions["link_folder"].trigger()
    assert "Linked" in window.told[0] and window.model.row_of("pdf-extract") >= 0
    md = team / "pdf-extract" / "SKILL.md"
    md.write_text(md.read_text().replace("description:", "description: From disk.", 1))
    qtbot.waitUntil(lambda: "From disk." in store.get("pdf-extract").description, timeout=5000)
    studio_save(store, "release-notes", "description:", "description: From the studio.")
    window.publish(ChangeSet.of(changed={"release-notes"}))
    qtbot.waitUntil(lambda: "From the studio." in (team / "release-notes" / "SKILL.md").read_text(), timeout=5000)


def test_a_conflict_asks_and_overwrites_nothing_until_answered(window, qtbot, store, team):
    asked = []
    window.feature("linked").ask_conflict = lambda c: asked.append(c) or None    # "decide later"
    linked.link(store, team)
    md = team / "pdf-extract" / "SKILL.md"
    md.write_text(md.read_text().replace("description:", "description: Disk side.", 1))
    studio_save(store, "pdf-extract", "description:", "description: Studio side.")
    window.feature("linked").sync()
    assert [c.name for c in asked] == ["pdf-extract"]
    assert "Disk side." in md.read_text() and "Studio side." in store.get("pdf-extract").description
    window.feature("linked").sync()
    assert len(asked) == 1                               # asked once, not at every sync
    dialog = ConflictDialog(asked[0], window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.grab().save(str(SCREENSHOTS / "linked-conflict.png"))
    dialog.keep_studio.click()
    assert dialog.choice == "studio"
    linked.resolve(store, asked[0], dialog.choice)
    assert "Studio side." in md.read_text()


def test_the_links_dialog(window, qtbot, store, team):
    linked.link(store, team)
    dialog = LinksDialog(window.feature("linked"), window)
    qtbot.addWidget(dialog)
    assert dialog.list.count() == 1 and dialog.list.item(0).text() == str(team.resolve())
    dialog._sync()
    assert "in step" in dialog.status.text()
    dialog._unlink()
    assert dialog.list.count() == 0 and linked.linked_folders(store) == []


def test_decide_later_then_resolve_from_the_dialog_and_a_new_conflict_is_asked_again(window, qtbot, store, team):
    asked = []
    answers = [None, "studio", "disk"]
    window.feature("linked").ask_conflict = lambda c: asked.append(c) or answers.pop(0)
    linked.link(store, team)
    md = team / "pdf-extract" / "SKILL.md"
    md.write_text(md.read_text().replace("description:", "description: Disk side.", 1))
    studio_save(store, "pdf-extract", "description:", "description: Studio side.")
    window.feature("linked").sync()
    assert len(asked) == 1 and "changed on both sides" in window.statusBar().currentMessage()
    dialog = LinksDialog(window.feature("linked"), window)
    qtbot.addWidget(dialog)
    assert dialog.resolve_button.isEnabled() and "Resolve 1 conflict" in dialog.resolve_button.text()
    dialog._resolve()                                   # answered "studio" this time
    assert len(asked) == 2 and "Studio side." in md.read_text() and not dialog.resolve_button.isEnabled()
    md.write_text(md.read_text().replace("Studio side.", "Disk again.", 1))
    studio_save(store, "pdf-extract", "Studio side.", "Studio again.")
    window.feature("linked").sync()
    assert len(asked) == 3 and "Disk again." in store.get("pdf-extract").description   # asked again: "disk"


def test_a_sync_that_fails_is_reported_not_raised(window, store, team, monkeypatch):
    linked.link(store, team)

    def broken(*_a, **_k):
        raise OSError("disk trouble")
    monkeypatch.setattr(linked, "sync", broken)
    assert window.feature("linked").sync() == [] and "disk trouble" in window.statusBar().currentMessage()


def test_a_folder_written_back_is_still_watched(window, qtbot, store, team):
    linked.link(store, team)
    window.feature("linked").sync()
    studio_save(store, "pdf-extract", "description:", "description: From the studio.")
    window.feature("linked").sync()                                        # the folder is swapped for the written one
    md = team / "pdf-extract" / "SKILL.md"
    assert "From the studio." in md.read_text() and str(md) in window.feature("linked").watch.files()
    md.write_text(md.read_text().replace("From the studio.", "Then from disk.", 1))
    qtbot.waitUntil(lambda: "Then from disk." in store.get("pdf-extract").description, timeout=5000)
