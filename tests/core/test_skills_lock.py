"""The project lock file and the agents' folders: install for agents by name, the lock written
stable and sorted, and the same skills restored from it into a fresh library."""

from __future__ import annotations

import json

import pytest
from source_repos import Upstream, skill_md

from skill_studio.cli import main
from skill_studio.core.library.agent_folders import agents, find_agent, folders
from skill_studio.core.library.agent_install import holders, targets
from skill_studio.core.sources import ops
from skill_studio.core.sources.lock import LockError, read_lock, skill_hash
from skill_studio.core.sources.restore import restore
from skill_studio.core.store import Store


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    for var in ("XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def upstream(tmp_path):
    return Upstream(tmp_path, {"skills/alpha/SKILL.md": skill_md("alpha"),
                               "skills/alpha/scripts/go.sh": "#!/bin/sh\necho go\n",
                               "skills/beta/SKILL.md": skill_md("beta")})


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_agent_named_in_the_table_has_its_folders(home, monkeypatch):
    keys = [a.key for a in agents()]
    assert keys == ["claude-code", "codex", "cursor", "gemini-cli", "github-copilot", "opencode", "windsurf",
                    "goose", "amp", "agents"]
    assert find_agent("claude-code").global_dir == home / ".claude" / "skills"
    assert find_agent("windsurf").global_dir == home / ".codeium" / "windsurf" / "skills"
    monkeypatch.setenv("CODEX_HOME", str(home / "elsewhere"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "cfg"))
    assert find_agent("codex").global_dir == home / "elsewhere" / "skills"
    assert find_agent("opencode").global_dir == home / "cfg" / "opencode" / "skills"
    with pytest.raises(ValueError, match="no agent 'vim'"):
        find_agent("vim")


def test_an_agent_is_present_when_its_settings_folder_is(home, tmp_path):
    (home / ".claude").mkdir()
    present = {(f.agent.key, f.scope) for f in folders(tmp_path / "proj") if f.present}
    assert present == {("claude-code", "global"), ("claude-code", "project")}


def test_agents_sharing_a_folder_get_it_once(tmp_path, home):
    project = tmp_path / "proj"
    places = targets(["codex", "cursor", "claude-code"], project)
    assert places == {project / ".agents" / "skills": ["codex", "cursor"],
                      project / ".claude" / "skills": ["claude-code"]}


def test_install_for_agents_in_a_project_writes_a_stable_lock(tmp_path, capsys, home, upstream):
    db, project = str(tmp_path / "a.db"), tmp_path / "proj"
    assert run(capsys, "--store", db, "add", upstream.url)[0] == 0
    code, out, err = run(capsys, "--store", db, "install", "beta", "alpha", "--agent", "claude-code",
                         "--agent", "codex", "--project", str(project))
    assert code == 0, err
    assert (project / ".claude" / "skills" / "alpha" / "scripts" / "go.sh").exists()
    assert (project / ".agents" / "skills" / "beta" / "SKILL.md").exists()
    text = (project / "skills-lock.json").read_text()
    data = json.loads(text)
    assert list(data) == ["version", "skills"] and list(data["skills"]) == ["alpha", "beta"]
    assert data["skills"]["alpha"] == {"source": upstream.url, "sourceType": "git", "skillPath": "skills/alpha",
                                       "commit": upstream.head(), "computedHash": data["skills"]["alpha"][
                                           "computedHash"]}
    assert text.endswith("}\n") and '\n  "skills": {\n    "alpha": {\n      "source"' in text
    with Store(tmp_path / "a.db") as store:
        assert data["skills"]["alpha"]["computedHash"] == skill_hash(store.get("alpha"))
        held = holders(store, project)
    assert sorted(h.folder.agent.key for h in held["alpha"]) == [
        "agents", "amp", "claude-code", "codex", "cursor", "gemini-cli", "github-copilot", "opencode"]
    assert all(h.by_studio and h.folder.scope == "project" for h in held["alpha"])
    # installing again changes nothing in the file
    run(capsys, "--store", db, "install", "alpha", "--agent", "claude-code", "--project", str(project))
    assert (project / "skills-lock.json").read_text() == text


def test_the_lock_restores_the_same_skills_into_a_fresh_library(tmp_path, capsys, home, upstream):
    first, project = str(tmp_path / "first.db"), tmp_path / "proj"
    run(capsys, "--store", first, "add", upstream.url)
    run(capsys, "--store", first, "install", "alpha", "beta", "--agent", "codex", "--project", str(project))
    locked = upstream.head()
    upstream.push({"skills/alpha/SKILL.md": skill_md("alpha", body="Moved on upstream.\n")})
    elsewhere = tmp_path / "elsewhere.db"
    code, out, err = run(capsys, "--store", str(elsewhere), "install", "--from-lock", "--project", str(project),
                         "--to", str(tmp_path / "restored"))
    assert code == 0, err
    assert "added from their sources: alpha, beta" in out
    with Store(elsewhere) as store:
        assert "Moved on upstream" not in store.get("alpha").skill_md   # the locked commit, not the newest
        assert store.source_records(["alpha"])[0].commit == locked
    assert (tmp_path / "restored" / "alpha" / "scripts" / "go.sh").read_text() == "#!/bin/sh\necho go\n"


def test_restore_says_what_it_cannot_do_and_replaces_nothing(tmp_path, home, upstream, store):
    from conftest import make

    project = tmp_path / "proj"
    project.mkdir()
    (project / "skills-lock.json").write_text(json.dumps({"version": 1, "skills": {
        "alpha": {"source": upstream.url, "sourceType": "git", "skillPath": "skills/alpha", "computedHash": "x"},
        "ours": {"source": "studio", "sourceType": "studio", "computedHash": "y"},
        "beta": {"source": upstream.url, "sourceType": "git", "skillPath": "skills/beta", "computedHash": ""}}}))
    store.add(make("alpha", "Our own alpha. Use when testing."))
    report = restore(store, project)
    assert report.ready == ["beta"]
    assert "differs from the locked one" in report.problems["alpha"]
    assert "made in a studio" in report.problems["ours"]
    assert store.get("alpha").description == "Our own alpha. Use when testing."


@pytest.mark.parametrize("text, line, words", [
    ('{"version": 1,\n "skills": {\n  "a": {"source": 1}\n }\n}\n', 3, "needs \"source\" and \"sourceType\""),
    ('{"version": 1,\n "skills": {\n<<<<<<< ours\n', 3, "merge conflict"),
    ('{"version": 1,\n "skills": [\n', 3, "not valid JSON"),
])
def test_a_broken_lock_file_is_named_with_its_line(tmp_path, text, line, words):
    (tmp_path / "skills-lock.json").write_text(text)
    with pytest.raises(LockError) as e:
        read_lock(tmp_path)
    assert f"skills-lock.json:{line}:" in str(e.value) and words in str(e.value)


def test_the_agents_command_lists_each_folder(tmp_path, capsys, home):
    (home / ".gemini").mkdir()
    code, out, _ = run(capsys, "agents", "--project", str(tmp_path), "--json")
    rows = json.loads(out)
    gemini = [r for r in rows if r["agent"] == "gemini-cli"]
    assert [(r["scope"], r["present"], r["exists"]) for r in gemini] == [("global", True, False),
                                                                        ("project", True, False)]


def test_a_lock_entry_without_a_path_restores_only_its_skill_and_it_follows_its_branch(tmp_path, home, upstream,
                                                                                     store):
    commit = upstream.head()
    project = tmp_path / "proj"
    project.mkdir()
    (project / "skills-lock.json").write_text(json.dumps({"version": 1, "skills": {
        "beta": {"source": upstream.url, "ref": "main", "sourceType": "git", "commit": commit, "computedHash": ""}}}))
    upstream.push({"skills/beta/SKILL.md": skill_md("beta", body="Later.\n")})
    report = restore(store, project)
    assert report.ready == ["beta"] and "alpha" not in store
    assert "Later." not in store.get("beta").skill_md                     # the locked commit's files
    record = store.source_records(["beta"])[0]
    assert (record.ref, record.commit) == ("main", commit)
    assert [s.state for s in ops.outdated(store)] == [ops.UPSTREAM]       # and it follows main after


def test_a_lock_field_of_the_wrong_type_is_named(tmp_path):
    (tmp_path / "skills-lock.json").write_text('{"version": 1, "skills": {\n "a": {"source": "x", '
                                               '"sourceType": "git", "commit": 7}}}\n')
    with pytest.raises(LockError, match=r"skills-lock.json:2: in the entry of 'a', commit must be text"):
        read_lock(tmp_path)


def test_a_lock_the_skills_tool_wrote_is_checked_with_its_own_hash(tmp_path, home, upstream, store):
    from skill_studio.core.sources.lock import tool_hash

    project = tmp_path / "proj"
    project.mkdir()
    ops.add(store, upstream.url, names=["alpha"])
    theirs = tool_hash(store.get("alpha"))
    (project / "skills-lock.json").write_text(json.dumps({"version": 1, "skills": {
        "alpha": {"source": upstream.url, "sourceType": "git", "computedHash": theirs}}}))
    assert restore(store, project).ready == ["alpha"]
