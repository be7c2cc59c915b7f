"""The agents' folders tab: agents found, a project chosen and remembered, skills installed for
ticked agents (the lock file written) and removed, each skill showing the agents that have it."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from skill_studio.ui.agents.agent_folders_view import AgentFoldersView


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    for var in ("XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


def _press(qtbot, view, button) -> None:
    """Click Install or Remove and wait until the work is done and told."""
    with qtbot.waitSignal(view.installed, timeout=20000):
        qtbot.mouseClick(button, Qt.LeftButton)
    qtbot.waitUntil(lambda: view.run is None)


def _row(view, name: str, where: str):
    return next(view.agents.topLevelItem(i) for i in range(view.agents.topLevelItemCount())
                if view.agents.topLevelItem(i).text(0) == name and view.agents.topLevelItem(i).text(1) == where)


def _skill(view, name: str):
    return next(view.skills.topLevelItem(i) for i in range(view.skills.topLevelItemCount())
                if view.skills.topLevelItem(i).text(0) == name)


def test_install_for_ticked_agents_then_remove(qtbot, seeded_store, home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    view = AgentFoldersView(seeded_store)
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.show()
    assert _row(view, "Claude Code", "This computer").text(2) == "yes"
    assert _row(view, "Codex", "This computer").text(2) == "not found"
    view.pick_folder = lambda: str(project)
    view._choose()
    assert seeded_store.setting("agents.project") == str(project)
    _row(view, "Claude Code", "Project").setCheckState(0, Qt.Checked)
    _row(view, "Codex", "Project").setCheckState(0, Qt.Checked)
    name = view.skills.topLevelItem(0).text(0)
    _skill(view, name).setSelected(True)
    assert view.install_button.isEnabled()
    _press(qtbot, view, view.install_button)
    assert (project / ".claude" / "skills" / name / "SKILL.md").exists()
    assert (project / ".agents" / "skills" / name / "SKILL.md").exists()
    assert list(json.loads((project / "skills-lock.json").read_text())["skills"]) == [name]
    have = _skill(view, name).text(2)
    assert have == "Claude Code (project); Codex, Cursor +5 (project)"
    assert "Amp: " in _skill(view, name).toolTip(2)
    assert "Installed 1 skill(s)." in view.summary.text()

    _skill(view, name).setSelected(True)
    _press(qtbot, view, view.remove_button)
    assert not (project / ".claude" / "skills" / name).exists()
    assert json.loads((project / "skills-lock.json").read_text())["skills"] == {}
    assert _skill(view, name).text(2) == "—"

    again = AgentFoldersView(seeded_store)   # the project is remembered
    qtbot.addWidget(again)
    assert again.project == project


def test_the_window_opens_the_tab(qtbot, seeded_store, open_window, home):
    window = open_window(seeded_store)
    window.action("show_agent_folders").trigger()
    assert window.page("agent_folders") is not None


def test_link_instead_of_copying(qtbot, seeded_store, home):
    view = AgentFoldersView(seeded_store)
    qtbot.addWidget(view)
    _row(view, "Claude Code", "This computer").setCheckState(0, Qt.Checked)
    name = view.skills.topLevelItem(0).text(0)
    _skill(view, name).setSelected(True)
    view.link_box.setChecked(True)
    _press(qtbot, view, view.install_button)
    assert (home / ".claude" / "skills" / name).is_symlink()


def test_removing_from_a_global_folder_leaves_the_projects_lock_alone(qtbot, seeded_store, home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    view = AgentFoldersView(seeded_store)
    qtbot.addWidget(view)
    view.set_project(project)
    name = view.skills.topLevelItem(0).text(0)
    for where in ("Project", "This computer"):
        _row(view, "Claude Code", where).setCheckState(0, Qt.Checked)
    _skill(view, name).setSelected(True)
    _press(qtbot, view, view.install_button)
    _row(view, "Claude Code", "Project").setCheckState(0, Qt.Unchecked)
    _skill(view, name).setSelected(True)
    _press(qtbot, view, view.remove_button)
    assert not (home / ".claude" / "skills" / name).exists()
    assert (project / ".claude" / "skills" / name).exists()
    assert list(json.loads((project / "skills-lock.json").read_text())["skills"]) == [name]


def test_a_skill_still_in_another_project_folder_stays_locked(qtbot, seeded_store, home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    view = AgentFoldersView(seeded_store)
    qtbot.addWidget(view)
    view.set_project(project)
    name = view.skills.topLevelItem(0).text(0)
    for agent in ("Claude Code", "Codex"):
        _row(view, agent, "Project").setCheckState(0, Qt.Checked)
    _skill(view, name).setSelected(True)
    _press(qtbot, view, view.install_button)
    _row(view, "Codex", "Project").setCheckState(0, Qt.Unchecked)
    _skill(view, name).setSelected(True)
    _press(qtbot, view, view.remove_button)
    assert not (project / ".claude" / "skills" / name).exists()
    assert list(json.loads((project / "skills-lock.json").read_text())["skills"]) == [name]
