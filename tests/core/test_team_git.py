"""A team's library in git: two clones of one repository, one linked to a store; the studio's saves
committed and pushed, the team's commits pulled in as new versions, a skill changed on both sides
held back until a side is chosen, and a selection published as a new repository."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from source_repos import Upstream, git, skill_md

from skill_studio.core.library import linked, team_git
from skill_studio.core.sources import ops

pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.fixture
def team(tmp_path, store):
    """(the linked clone, a teammate's clone): the team repository holds alpha and beta."""
    up = Upstream(tmp_path, {"alpha/SKILL.md": skill_md("alpha"), "beta/SKILL.md": skill_md("beta")})
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    git("clone", "-q", str(up.bare), str(mine), cwd=tmp_path)
    git("clone", "-q", str(up.bare), str(theirs), cwd=tmp_path)
    linked.link(store, mine)
    return mine, theirs


def _save(store, name: str, extra: str, note: str = "edited") -> None:
    s = store.get(name)
    store.update(name, replace(s, skill_md=s.skill_md + extra, content=s.content + extra), s.version, note=note)


def _teammate_commits(theirs, rel: str, text: str) -> None:
    (theirs / rel).parent.mkdir(parents=True, exist_ok=True)
    (theirs / rel).write_text(text)
    git("add", "-A", cwd=theirs)
    git("commit", "-qm", "teammate", cwd=theirs)
    git("push", "-q", cwd=theirs)


def test_the_state_of_a_linked_working_copy(store, team):
    mine, _ = team
    st = team_git.state(mine)
    assert (st.branch, st.upstream, st.ahead, st.behind, st.changed) == ("main", "origin/main", 0, 0, [])
    assert "in step with origin/main" in st.describe()
    with pytest.raises(team_git.TeamError, match="not a git working copy"):
        team_git.state(mine.parent)


def test_studio_saves_are_committed_with_their_notes_and_pushed(store, team):
    mine, theirs = team
    _save(store, "alpha", "\nA better step.\n", note="clearer first step")
    commit = team_git.commit(store, mine)
    message = git("log", "-1", "--format=%B", cwd=mine)
    assert message.startswith("Update alpha") and "- alpha v2: clearer first step" in message
    assert team_git.state(mine).ahead == 1
    assert team_git.push(mine).ahead == 0
    git("pull", "-q", cwd=theirs)
    assert git("rev-parse", "HEAD", cwd=theirs).strip() == commit
    assert "A better step." in (theirs / "alpha" / "SKILL.md").read_text()
    with pytest.raises(team_git.TeamError, match="nothing to commit"):
        team_git.commit(store, mine)


def test_the_teams_commits_come_in_as_new_versions(store, team):
    mine, theirs = team
    _teammate_commits(theirs, "beta/SKILL.md", skill_md("beta", body="The team's rule.\n"))
    _teammate_commits(theirs, "gamma/SKILL.md", skill_md("gamma"))
    assert team_git.state(mine, fetch=True).behind == 2
    report = team_git.pull(store, mine)
    assert report.pulled and report.conflicts == [] and report.state.behind == 0
    assert "The team's rule." in store.get("beta").skill_md and store.get("beta").version == 2
    assert "gamma" in store


def test_unrelated_changes_on_both_sides_merge(store, team):
    mine, theirs = team
    _save(store, "alpha", "\nOurs.\n")
    _teammate_commits(theirs, "beta/SKILL.md", skill_md("beta", body="Theirs.\n"))
    report = team_git.pull(store, mine)
    assert report.pulled
    assert "Ours." in store.get("alpha").skill_md and "Theirs." in store.get("beta").skill_md
    assert "Ours." in (mine / "alpha" / "SKILL.md").read_text()   # still to commit
    assert team_git.state(mine).changed == ["alpha/SKILL.md"]


@pytest.mark.parametrize("side", [team_git.TEAM, team_git.STUDIO])
def test_a_skill_changed_on_both_sides_waits_for_a_choice(store, team, side):
    mine, theirs = team
    _save(store, "alpha", "\nOurs.\n")
    _teammate_commits(theirs, "alpha/SKILL.md", skill_md("alpha", body="Theirs.\n"))
    report = team_git.pull(store, mine)
    assert not report.pulled
    (conflict,) = report.conflicts
    assert conflict.path == "alpha" and "Theirs." in conflict.team_text and "Ours." in conflict.studio_text
    assert team_git.state(mine).behind == 1 and "Ours." in store.get("alpha").skill_md   # nothing pulled
    report = team_git.pull(store, mine, keep={"alpha": side})
    assert report.pulled and report.state.behind == 0
    text = store.get("alpha").skill_md
    if side == team_git.TEAM:
        assert "Theirs." in text and "Ours." not in text
        assert any("Ours." in store.version_text("alpha", v.version)[0] for v in store.versions("alpha"))
    else:
        assert "Ours." in text and "Theirs." not in text
        assert team_git.state(mine).changed == ["alpha/SKILL.md"]   # the studio's side, to commit


def test_publish_writes_a_repository_ready_for_the_tools(store, tmp_path):
    from conftest import make

    for name in ("pdf-forms", "sql-review"):
        store.add(make(name, f"Does {name}. Use when needed."))
    dest = team_git.publish(store, ["pdf-forms", "sql-review"], tmp_path / "team-skills")
    assert (dest / "skills" / "pdf-forms" / "SKILL.md").exists()
    readme = (dest / "README.md").read_text()
    assert "| [sql-review](skills/sql-review/SKILL.md) | Does sql-review. Use when needed. |" in readme
    market = json.loads((dest / ".claude-plugin" / "marketplace.json").read_text())
    assert market["plugins"][0]["skills"] == ["./skills/pdf-forms", "./skills/sql-review"]
    assert git("status", "--porcelain", cwd=dest) == ""
    # what was published is a source the studio (and so the skills tool's layout) reads back
    spec, _, listed, _ = ops.list_source(store, str(dest))
    assert [(s.name, s.plugin) for s in listed] == [("pdf-forms", "team-skills"), ("sql-review", "team-skills")]
    with pytest.raises(team_git.TeamError, match="not empty"):
        team_git.publish(store, ["pdf-forms"], dest)


def test_the_team_command_round_trip(store, team, capsys):
    from skill_studio.cli import main

    mine, theirs = team
    _teammate_commits(theirs, "alpha/SKILL.md", skill_md("alpha", body="Theirs.\n"))
    _save(store, "alpha", "\nOurs.\n")
    args = ["--store", str(store.path), "team"]
    assert main([*args, "pull", str(mine)]) == 1
    assert "--keep-team alpha" in capsys.readouterr().out
    assert main([*args, "pull", str(mine), "--keep-studio", "alpha"]) == 0
    assert main([*args, "commit", str(mine), "-m", "Keep our alpha"]) == 0
    assert main([*args, "push", str(mine)]) == 0
    assert main([*args, "status"]) == 0
    out = capsys.readouterr().out
    assert "pulled" in out and "committed" in out and "in step with origin/main" in out
    assert git("log", "-1", "--format=%s", cwd=mine).strip() == "Keep our alpha"


def test_a_merge_that_fails_leaves_the_studios_side_as_it_was(store, team):
    mine, theirs = team
    (mine / "README.md").write_text("ours\n")
    git("add", "-A", cwd=mine)
    git("commit", "-qm", "our readme", cwd=mine)
    _teammate_commits(theirs, "README.md", "theirs\n")
    _teammate_commits(theirs, "alpha/SKILL.md", skill_md("alpha", body="Theirs.\n"))
    _save(store, "alpha", "\nOurs.\n")
    with pytest.raises(team_git.TeamError, match="README.md changed by the team and here"):
        team_git.pull(store, mine, keep={"alpha": team_git.STUDIO})
    assert "Ours." in (mine / "alpha" / "SKILL.md").read_text()
    linked.sync(store, mine)
    assert "Ours." in store.get("alpha").skill_md
    assert not (mine / ".git" / "MERGE_HEAD").exists()


def test_a_skill_new_on_both_sides_waits_for_a_choice_and_the_studios_side_is_exact(store, team):
    mine, theirs = team
    (theirs / "gamma").mkdir()
    (theirs / "gamma" / "extra.md").write_text("the team's extra\n")
    _teammate_commits(theirs, "gamma/SKILL.md", skill_md("gamma", body="Theirs.\n"))
    (mine / "gamma").mkdir()
    (mine / "gamma" / "SKILL.md").write_text(skill_md("gamma", body="Ours.\n"))
    linked.sync(store, mine)
    report = team_git.pull(store, mine)
    assert [c.path for c in report.conflicts] == ["gamma"] and not report.pulled
    report = team_git.pull(store, mine, keep={"gamma": team_git.STUDIO})
    assert report.pulled
    assert sorted(p.name for p in (mine / "gamma").iterdir()) == ["SKILL.md"]   # the studio's side, exactly
    assert "Ours." in store.get("gamma").skill_md


def test_commit_takes_only_the_linked_folder(tmp_path, store):
    up = Upstream(tmp_path, {"lib/alpha/SKILL.md": skill_md("alpha"), "other/code.py": "x = 1\n"})
    clone = tmp_path / "clone"
    git("clone", "-q", str(up.bare), str(clone), cwd=tmp_path)
    linked.link(store, clone / "lib")
    _save(store, "alpha", "\nOurs.\n")
    (clone / "other" / "code.py").write_text("x = 2\n")
    git("add", "other/code.py", cwd=clone)
    team_git.commit(store, clone / "lib")
    assert git("show", "--name-only", "--format=", "HEAD", cwd=clone).split() == ["lib/alpha/SKILL.md"]
    assert git("diff", "--cached", "--name-only", cwd=clone).split() == ["other/code.py"]   # still staged
    with pytest.raises(team_git.TeamError, match="not linked"):
        team_git.commit(store, clone)


def test_the_state_of_a_branch_that_follows_nothing(tmp_path, store):
    plain = tmp_path / "plain"
    plain.mkdir()
    git("init", "-q", "-b", "main", cwd=plain)
    (plain / "a b").mkdir()
    (plain / "a b" / "SKILL.md").write_text(skill_md("spaced"))
    git("add", "-A", cwd=plain)
    git("commit", "-qm", "one", cwd=plain)
    git("mv", "a b", "c d", cwd=plain)
    st = team_git.state(plain, fetch=True)
    assert st.upstream == "" and "following no remote branch" in st.describe()
    assert sorted(st.changed) == ["a b/SKILL.md", "c d/SKILL.md"]


@pytest.mark.parametrize("side", [team_git.TEAM, team_git.STUDIO])
def test_a_studio_change_already_committed_meets_the_teams(store, team, side):
    mine, theirs = team
    _save(store, "alpha", "\nOurs, committed.\n")
    team_git.commit(store, mine, "ours")
    _teammate_commits(theirs, "alpha/SKILL.md", skill_md("alpha", body="Theirs.\n"))
    _teammate_commits(theirs, "beta/SKILL.md", skill_md("beta", body="Theirs too.\n"))
    report = team_git.pull(store, mine, keep={"alpha": side})
    assert report.pulled and report.state.behind == 0 and report.state.ahead == 2
    text = store.get("alpha").skill_md
    assert ("Theirs." in text) == (side == team_git.TEAM) and ("Ours, committed." in text) == (side == team_git.STUDIO)
    assert "Theirs too." in store.get("beta").skill_md
    assert git("status", "--porcelain", cwd=mine) == ""


def test_a_file_outside_the_skills_changed_on_both_sides_stops_the_pull_before_it_starts(store, team):
    mine, theirs = team
    _teammate_commits(theirs, "README.md", "theirs\n")
    _teammate_commits(theirs, "alpha/SKILL.md", skill_md("alpha", body="Theirs.\n"))
    (mine / "README.md").write_text("ours, not committed\n")
    _save(store, "alpha", "\nOurs.\n")
    with pytest.raises(team_git.TeamError, match="README.md changed by the team and here, outside any skill"):
        team_git.pull(store, mine, keep={"alpha": team_git.STUDIO})
    assert (mine / "README.md").read_text() == "ours, not committed\n"
    assert "Ours." in (mine / "alpha" / "SKILL.md").read_text()
    assert git("stash", "list", cwd=mine) == "" and team_git.state(mine).behind == 2


def test_a_linked_folder_that_is_one_skill_keeps_the_studios_side(tmp_path, store):
    up = Upstream(tmp_path, {"SKILL.md": skill_md("solo")})
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    git("clone", "-q", str(up.bare), str(mine), cwd=tmp_path)
    git("clone", "-q", str(up.bare), str(theirs), cwd=tmp_path)
    linked.link(store, mine)
    _teammate_commits(theirs, "SKILL.md", skill_md("solo", body="Theirs.\n"))
    _save(store, "solo", "\nOurs.\n")
    report = team_git.pull(store, mine, keep={".": team_git.STUDIO})
    assert report.pulled and report.state.behind == 0
    assert "Ours." in store.get("solo").skill_md
    assert git("log", "--format=%s", "-1", cwd=mine).strip() == "teammate"


def test_when_git_fails_halfway_everything_is_put_back(store, team, monkeypatch):
    mine, theirs = team
    _teammate_commits(theirs, "alpha/SKILL.md", skill_md("alpha", body="Theirs.\n"))
    _save(store, "alpha", "\nOurs.\n")
    _save(store, "beta", "\nOurs in beta.\n")
    real = team_git._git

    def failing(folder, *args, **kw):
        if args[0] == "merge" and "--ff-only" in args:
            raise team_git.TeamError("git merge: the disk is full")
        return real(folder, *args, **kw)

    monkeypatch.setattr(team_git, "_git", failing)
    with pytest.raises(team_git.TeamError, match="the disk is full; nothing was pulled"):
        team_git.pull(store, mine, keep={"alpha": team_git.STUDIO})
    assert "Ours." in (mine / "alpha" / "SKILL.md").read_text()
    assert "Ours in beta." in (mine / "beta" / "SKILL.md").read_text()   # the stash came back
    assert git("stash", "list", cwd=mine) == "" and team_git.state(mine).behind == 1
