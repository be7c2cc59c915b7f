"""A linked folder that is a team's git working copy, from the Linked folders dialog: its state,
Commit and Push, and a Pull whose two-sided change is asked about with the team's side and the
studio's, and nothing overwritten until the user chooses."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import shown_window

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from source_repos import Upstream, git, skill_md

from skill_studio.core.library import linked
from skill_studio.ui.agents.linked_dialogs import LinksDialog

pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.fixture
def setup(qtbot, store, tmp_path):
    up = Upstream(tmp_path, {"alpha/SKILL.md": skill_md("alpha"), "beta/SKILL.md": skill_md("beta")})
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    git("clone", "-q", str(up.bare), str(mine), cwd=tmp_path)
    git("clone", "-q", str(up.bare), str(theirs), cwd=tmp_path)
    linked.link(store, mine)
    window = shown_window(qtbot, store, tmp_path, (1200, 800))
    feature = window.feature("linked")
    dialog = LinksDialog(feature, window)
    qtbot.addWidget(dialog)
    return window, feature, dialog, mine, theirs


def _save(store, name: str, extra: str) -> None:
    s = store.get(name)
    store.update(name, replace(s, skill_md=s.skill_md + extra, content=s.content + extra), s.version, note="ours")


def test_state_commit_and_push_from_the_dialog(setup, store):
    window, feature, dialog, mine, theirs = setup
    assert "in step with origin/main" in dialog.team_label.text()
    assert all(b.isEnabled() for b in dialog.team_buttons.values())
    _save(store, "alpha", "\nOurs.\n")
    dialog.team_buttons["commit"].click()
    assert dialog.status.text().startswith("Committed ")
    assert "1 commit(s) to push" in dialog.team_label.text()
    dialog.team_buttons["push"].click()
    assert dialog.status.text().startswith("Pushed:")
    git("pull", "-q", cwd=theirs)
    assert "Ours." in (theirs / "alpha" / "SKILL.md").read_text()


def test_a_pull_asks_about_a_skill_changed_on_both_sides(setup, store):
    window, feature, dialog, mine, theirs = setup
    _save(store, "alpha", "\nOurs.\n")
    (theirs / "alpha" / "SKILL.md").write_text(skill_md("alpha", body="Theirs.\n"))
    git("commit", "-qam", "theirs", cwd=theirs)
    git("push", "-q", cwd=theirs)
    asked = []
    feature.ask_team_conflict = lambda c: asked.append(c) or None   # decide later
    dialog.team_buttons["pull"].click()
    assert "waits for a choice" in dialog.status.text()
    (conflict,) = asked
    assert "Theirs." in conflict.disk_text and "Ours." in conflict.store_text
    assert "Ours." in store.get("alpha").skill_md
    feature.ask_team_conflict = lambda c: "disk"   # take the team's
    dialog.team_buttons["pull"].click()
    assert dialog.status.text().startswith("Pulled;")
    assert "Theirs." in store.get("alpha").skill_md
    assert window.model.row_of("alpha") >= 0


def test_a_folder_that_is_no_working_copy_says_so(qtbot, store, tmp_path):
    plain = tmp_path / "plain"
    (plain / "alpha").mkdir(parents=True)
    (plain / "alpha" / "SKILL.md").write_text(skill_md("alpha"))
    linked.link(store, plain)
    window = shown_window(qtbot, store, tmp_path, (1200, 800))
    dialog = LinksDialog(window.feature("linked"), window)
    qtbot.addWidget(dialog)
    assert "not a git working copy" in dialog.team_label.text()
    assert not any(b.isEnabled() for b in dialog.team_buttons.values())


def test_publish_the_selection_as_a_repository(qtbot, seeded_store, tmp_path):
    window = shown_window(qtbot, seeded_store, tmp_path, (1200, 800))
    feature = window.feature("linked")
    told = []
    feature.tell = told.append
    names = seeded_store.names()[:2]
    window.browser.select_names(names)
    assert window.selected_names() == names and window.action("publish_repository").isEnabled()
    feature.pick_new_folder = lambda: str(tmp_path / "published")
    assert feature.publish() == str(tmp_path / "published")
    assert (tmp_path / "published" / ".claude-plugin" / "marketplace.json").exists()
    assert told[-1].startswith("Published 2 skill(s) as a git repository")
    assert git("log", "--format=%s", cwd=tmp_path / "published").strip() == "Publish 2 skill(s) from Skill Studio"
