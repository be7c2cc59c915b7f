"""Skills from git repositories and folders: the source forms, add, list, outdated and update, with
real repositories made by the tests (fetched by path and by file:// URL)."""

from __future__ import annotations

import pytest
from source_repos import Upstream, git, skill_md

from skill_studio.core.sources import ops
from skill_studio.core.sources.git import Entry
from skill_studio.core.sources.spec import GIT, GITHUB, LOCAL, SourceError, parse_source
from skill_studio.core.sources.tree import find_skills

LIBRARY = {
    "skills/pdf-tools/SKILL.md": skill_md("pdf-tools", body="1. Open the PDF\n2. Fill the form\n"),
    "skills/pdf-tools/scripts/fill.sh": "#!/bin/sh\necho filling\n",
    "skills/pdf-tools/reference.md": "# Fields\n",
    ".claude/skills/code-review/SKILL.md": skill_md("code-review"),
    "plugins/docs/skills/changelog/SKILL.md": skill_md("changelog"),
    ".claude-plugin/marketplace.json": '{"name": "m", "plugins": [{"name": "docs", "source": "./plugins/docs"}]}',
    "README.md": "# Skills\n",
}


@pytest.fixture
def upstream(tmp_path):
    up = Upstream(tmp_path, LIBRARY)
    fill = up.work / "skills/pdf-tools/scripts/fill.sh"
    fill.chmod(0o755)
    up.push(message="scripts run")
    return up


# --- the source forms ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind, source, url, ref, path", [
    ("anthropics/skills", GITHUB, "anthropics/skills", "https://github.com/anthropics/skills.git", None, ""),
    ("anthropics/skills/skills/pdf", GITHUB, "anthropics/skills", "https://github.com/anthropics/skills.git", None,
     "skills/pdf"),
    ("anthropics/skills#v1.2", GITHUB, "anthropics/skills", "https://github.com/anthropics/skills.git", "v1.2", ""),
    ("https://github.com/anthropics/skills", GITHUB, "anthropics/skills", "https://github.com/anthropics/skills.git",
     None, ""),
    ("https://github.com/anthropics/skills.git", GITHUB, "anthropics/skills",
     "https://github.com/anthropics/skills.git", None, ""),
    ("https://github.com/anthropics/skills/tree/main/skills/pdf", GITHUB, "anthropics/skills",
     "https://github.com/anthropics/skills.git", "main", "skills/pdf"),
    ("https://gitlab.com/team/skills/-/tree/dev/tools", GIT, "https://gitlab.com/team/skills.git",
     "https://gitlab.com/team/skills.git", "dev", "tools"),
    ("git@github.com:team/private-skills.git", GIT, "git@github.com:team/private-skills.git",
     "git@github.com:team/private-skills.git", None, ""),
    ("ssh://git@example.org/skills.git#stable", GIT, "ssh://git@example.org/skills.git",
     "ssh://git@example.org/skills.git", "stable", ""),
])
def test_each_source_form_names_its_repository_ref_and_path(text, kind, source, url, ref, path):
    spec = parse_source(text)
    assert (spec.kind, spec.source, spec.url, spec.ref, spec.path) == (kind, source, url, ref, path)


def test_options_win_over_what_the_source_says():
    spec = parse_source("https://github.com/o/r/tree/main/a", ref="dev", path="b/c")
    assert (spec.ref, spec.path) == ("dev", "b/c")


def test_a_path_on_this_machine_is_a_repository_or_a_folder(tmp_path, upstream):
    assert parse_source(str(upstream.bare)).kind == GIT
    assert parse_source(str(upstream.work)).kind == GIT
    folder = tmp_path / "plain"
    folder.mkdir()
    assert (parse_source(str(folder)).kind, parse_source(str(folder)).url) == (LOCAL, str(folder.resolve()))
    with pytest.raises(SourceError, match="no refs"):
        parse_source(str(folder), ref="main")


@pytest.mark.parametrize("text", ["", "   ", "just-a-word", "./missing-folder", "o/r/../../etc"])
def test_what_is_no_source_is_refused_in_words(text):
    with pytest.raises(SourceError):
        parse_source(text)


def test_a_path_may_not_leave_the_source():
    with pytest.raises(SourceError, match="may not leave"):
        parse_source("o/r", path="../outside")


# --- finding skills in a tree --------------------------------------------------------------------

def _entries(*paths: str, mode: int = 0o100644) -> list[Entry]:
    return [Entry(p, mode, "0" * 40, 10) for p in paths]


def test_a_tree_is_walked_as_a_folder_is():
    found = find_skills(_entries(
        "skills/a/SKILL.md", "skills/a/inner/SKILL.md", "skills/a/ref.md", ".hidden/b/SKILL.md",
        "node_modules/c/SKILL.md", "d/.git/SKILL.md", "e/skill.md", "deep/1/2/3/4/5/6/7/8/9/10/11/SKILL.md"))
    assert [s.path for s in found] == [".hidden/b", "skills/a"]
    assert sorted(e.path for e in found[1].files) == ["SKILL.md", "inner/SKILL.md", "ref.md"]


def test_links_submodules_git_folders_and_crafted_names_never_reach_a_skill():
    entries = _entries("s/SKILL.md", "s/ok.md", "s/.git/config", "s/.GIT/hooks/x", "s/../../etc/passwd",
                       "s/./a", "s/node_modules/m.js")
    entries += [Entry("s/link", 0o120000, "1" * 40, 5), Entry("s/sub", 0o160000, "2" * 40, 0)]
    (skill,) = find_skills(entries)
    assert [e.path for e in skill.files] == ["SKILL.md", "ok.md"]
    assert any("link" in n for n in skill.left_out) and any("submodule" in n for n in skill.left_out)


# --- add and list --------------------------------------------------------------------------------

def test_list_shows_every_skill_with_its_path_and_plugin(store, upstream):
    spec, commit, listed, problems = ops.list_source(store, upstream.url)
    assert commit == upstream.head() and problems == []
    assert [(s.name, s.path, s.plugin) for s in listed] == [
        ("code-review", ".claude/skills/code-review", None),
        ("changelog", "plugins/docs/skills/changelog", "docs"),
        ("pdf-tools", "skills/pdf-tools", None)]
    assert len(store) == 0   # listing adds nothing


@pytest.mark.parametrize("form", ["url", "path"])
def test_add_takes_every_skill_as_a_candidate_and_records_its_source(store, upstream, form):
    source = upstream.url if form == "url" else str(upstream.bare)
    report = ops.add(store, source)
    assert sorted(report.added) == ["changelog", "code-review", "pdf-tools"]
    pdf = store.get("pdf-tools")
    assert pdf.lifecycle == "candidate"
    assert {f.path: (f.data, f.mode & 0o111 != 0) for f in pdf.files} == {
        "scripts/fill.sh": (b"#!/bin/sh\necho filling\n", True), "reference.md": (b"# Fields\n", False)}
    assert store.versions("pdf-tools")[0].note == f"added from {source}@{upstream.head()[:12]}"
    record = store.source_records(["pdf-tools"])[0]
    assert (record.source, record.commit, record.path, record.ref) == (source, upstream.head(), "skills/pdf-tools",
                                                                       None)


def test_add_one_skill_by_name_or_folder_and_an_unknown_one_is_named(store, upstream):
    assert ops.add(store, upstream.url, names=["code-review"]).added == ["code-review"]
    assert ops.add(store, upstream.url, names=["changelog"]).added == ["changelog"]
    with pytest.raises(SourceError, match="has no skill nope; it offers changelog, code-review, pdf-tools"):
        ops.add(store, upstream.url, names=["nope"])


def test_a_path_inside_the_repository_and_a_ref(store, upstream):
    old = upstream.head()
    upstream.push({"skills/pdf-tools/SKILL.md": skill_md("pdf-tools", body="Newer.\n")})
    report = ops.add(store, upstream.url, path="skills", ref=old)
    assert report.added == ["pdf-tools"] and report.commit == old
    assert "Newer" not in store.get("pdf-tools").skill_md


def test_a_name_the_library_has_is_never_replaced_and_a_second_add_points_at_update(store, upstream):
    from conftest import make

    store.add(make("code-review", "Ours. Use when reviewing."))
    report = ops.add(store, upstream.url)
    skipped = {e.reason for e in report.entries if e.status == "skipped"}
    assert any('has a skill named "code-review" already; it is not replaced' in r for r in skipped)
    assert store.get("code-review").description == "Ours. Use when reviewing."
    again = ops.add(store, upstream.url, names=["pdf-tools"])
    assert again.added == [] and "skill-studio update pdf-tools" in again.entries[0].reason


def test_what_an_import_refuses_is_refused_from_a_repository(store, tmp_path):
    up = Upstream(tmp_path, {"bad/SKILL.md": "---\nname: bad\ndescription: [unclosed\n---\nx\n",
                             "good/SKILL.md": skill_md("good")})
    report = ops.add(store, up.url)
    assert report.added == ["good"]
    (bad,) = [e for e in report.entries if e.status == "skipped"]
    assert "SKILL.md" in bad.reason and "bad" in bad.source


def test_a_repository_that_cannot_be_fetched_is_said_with_gits_words(store, tmp_path):
    from skill_studio.core.sources.git import GitError

    with pytest.raises(GitError, match="git fetch"):
        ops.add(store, (tmp_path / "nothing.git").as_uri())


def test_hooks_attributes_and_config_of_a_source_never_run(store, tmp_path):
    marker = tmp_path / "ran"
    up = Upstream(tmp_path, {"s/SKILL.md": skill_md("s"), ".gitattributes": "* filter=evil diff=evil\n",
                             "s/data.txt": "plain\n"})
    for hook in ("post-checkout", "post-merge", "pre-push", "post-update", "update", "pre-receive",
                 "reference-transaction", "post-index-change"):
        path = up.bare / "hooks" / hook
        path.write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        path.chmod(0o755)
    with open(up.bare / "config", "a") as config:
        config.write(f'[filter "evil"]\n\tsmudge = touch {marker}\n\tclean = touch {marker}\n'
                     f'[diff "evil"]\n\ttextconv = touch {marker}\n[core]\n\tfsmonitor = touch {marker}\n'
                     f'[uploadpack]\n\tpackObjectsHook = touch {marker}\n')
    assert ops.add(store, up.url).added == ["s"]
    up.push({"s/data.txt": "changed\n"})
    report = ops.update(store)
    assert report.updated == ["s"], report
    assert not marker.exists()
    assert store.get("s").files[0].data == b"changed\n"


# --- following the source -----------------------------------------------------------------------

def _edit_in_studio(store, name: str, text: str) -> None:
    from dataclasses import replace

    skill = store.get(name)
    store.update(name, replace(skill, skill_md=skill.skill_md + text, content=skill.content + text), skill.version,
                 note="edited")


def test_an_upstream_change_is_shown_as_a_diff_and_update_saves_a_version_with_the_commit(store, upstream):
    ops.add(store, upstream.url)
    assert {s.state for s in ops.outdated(store)} == {ops.CURRENT}
    commit = upstream.push({"skills/pdf-tools/SKILL.md": skill_md("pdf-tools", body="1. Open\n2. Sign\n"),
                            "skills/pdf-tools/new.md": "new\n"})
    (pdf,) = [s for s in ops.outdated(store) if s.state != ops.CURRENT]
    assert pdf.name == "pdf-tools" and pdf.state == ops.UPSTREAM and pdf.commit == commit
    assert "+2. Sign" in pdf.upstream_diff and "new file new.md" in pdf.upstream_diff and pdf.studio_diff == ""
    report = ops.update(store)
    assert report.updated == ["pdf-tools"] and sorted(report.current) == ["changelog", "code-review"]
    skill = store.get("pdf-tools")
    assert "2. Sign" in skill.skill_md and skill.version == 2
    assert store.versions("pdf-tools")[0].note == f"updated from {upstream.url}@{commit[:12]}"
    assert {s.state for s in ops.outdated(store)} == {ops.CURRENT}


def test_a_studio_edit_alone_is_left_as_it_is(store, upstream):
    ops.add(store, upstream.url)
    _edit_in_studio(store, "code-review", "\nOur note.\n")
    status = {s.name: s for s in ops.outdated(store)}["code-review"]
    assert status.state == ops.HERE and "+Our note." in status.studio_diff
    assert ops.update(store).updated == []
    assert "Our note." in store.get("code-review").skill_md


def test_a_change_on_both_sides_is_never_overwritten_until_a_side_is_chosen(store, upstream):
    ops.add(store, upstream.url)
    _edit_in_studio(store, "code-review", "\nOur note.\n")
    upstream.push({".claude/skills/code-review/SKILL.md": skill_md("code-review", body="Their rule.\n")})
    report = ops.update(store)
    (conflict,) = report.conflicts
    assert conflict.state == ops.BOTH and "+Their rule." in conflict.upstream_diff
    assert "+Our note." in conflict.studio_diff
    assert "Our note." in store.get("code-review").skill_md   # nothing overwritten
    kept = ops.update(store, ["code-review"], take=ops.TAKE_STUDIO)
    assert kept.kept == ["code-review"] and "Our note." in store.get("code-review").skill_md
    assert {s.name: s.state for s in ops.outdated(store)}["code-review"] == ops.HERE


def test_taking_upstream_keeps_the_studio_edit_in_history(store, upstream):
    ops.add(store, upstream.url)
    _edit_in_studio(store, "code-review", "\nOur note.\n")
    upstream.push({".claude/skills/code-review/SKILL.md": skill_md("code-review", body="Their rule.\n")})
    assert ops.update(store, ["code-review"], take=ops.TAKE_UPSTREAM).updated == ["code-review"]
    skill = store.get("code-review")
    assert "Their rule." in skill.skill_md and "Our note." not in skill.skill_md
    assert "Our note." in store.version_text("code-review", 2)[0]


def test_a_forced_push_upstream_is_followed(store, upstream):
    ops.add(store, upstream.url)
    git("reset", "-q", "--hard", "HEAD~1", cwd=upstream.work)
    rewritten = upstream.push({"skills/pdf-tools/SKILL.md": skill_md("pdf-tools", body="Rewritten.\n")},
                              force=True)
    status = {s.name: s for s in ops.outdated(store)}["pdf-tools"]
    assert status.state == ops.UPSTREAM and status.commit == rewritten
    assert ops.update(store, ["pdf-tools"]).updated == ["pdf-tools"]
    assert store.source_records(["pdf-tools"])[0].commit == rewritten


def test_a_skill_deleted_upstream_is_reported_and_kept(store, upstream):
    ops.add(store, upstream.url)
    upstream.push(remove=["plugins/docs/skills/changelog"])
    status = {s.name: s for s in ops.outdated(store)}["changelog"]
    assert status.state == ops.GONE and "not in the source any more" in status.detail
    report = ops.update(store)
    assert [g.name for g in report.gone] == ["changelog"] and "changelog" in store


def test_an_unreachable_source_is_reported_per_skill(store, upstream):
    import shutil

    ops.add(store, upstream.url)
    shutil.rmtree(upstream.bare)
    assert {s.state for s in ops.outdated(store)} == {ops.UNREACHABLE}
    assert len(ops.update(store).failed) == 3


def test_a_renamed_skill_is_still_followed(store, upstream):
    from dataclasses import replace

    ops.add(store, upstream.url, names=["changelog"])
    skill = store.get("changelog")
    store.update("changelog", replace(skill, name="release-log",
                                      skill_md=skill.skill_md.replace("name: changelog", "name: release-log")),
                 skill.version)
    assert [r.skill for r in store.source_records()] == ["release-log"]
    store.delete("release-log")
    assert store.source_records() == []


def test_a_plain_folder_is_a_source_too(store, tmp_path):
    folder = tmp_path / "team"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "SKILL.md").write_text(skill_md("notes"))
    report = ops.add(store, str(folder))
    assert report.added == ["notes"] and report.commit is None
    (folder / "notes" / "SKILL.md").write_text(skill_md("notes", body="Changed on disk.\n"))
    assert [s.state for s in ops.outdated(store)] == [ops.UPSTREAM]
    assert ops.update(store).updated == ["notes"]
    assert "Changed on disk." in store.get("notes").skill_md


def test_a_working_copy_on_this_machine_is_read_without_its_config_or_hooks(store, tmp_path):
    marker = tmp_path / "ran"
    up = Upstream(tmp_path, {"s/SKILL.md": skill_md("s"), ".gitattributes": "* filter=evil\n", "s/a.txt": "a\n"})
    hooks = up.work / ".git" / "hooks"
    for hook in ("post-checkout", "post-merge", "pre-auto-gc", "post-rewrite", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        (hooks / hook).chmod(0o755)
    with open(up.work / ".git" / "config", "a") as config:
        config.write(f'[filter "evil"]\n\tsmudge = touch {marker}\n[core]\n\tfsmonitor = touch {marker}\n'
                     f'\tsshCommand = touch {marker}\n[uploadpack]\n\tpackObjectsHook = touch {marker}\n')
    (up.work / "s" / "uncommitted.txt").write_text("not committed\n")
    assert ops.add(store, str(up.work)).added == ["s"]
    assert not marker.exists()
    assert [f.path for f in store.get("s").files] == ["a.txt"]   # its commits, never uncommitted files
    assert not any(".git" in f.path for f in store.get("s").files)


def test_a_fetch_that_brings_too_much_is_stopped(store, tmp_path, monkeypatch):
    import os as _os

    from skill_studio.core.sources import git as source_git

    up = Upstream(tmp_path, {"s/SKILL.md": skill_md("s"), "s/big.bin": _os.urandom(3 * 1024 * 1024)})
    real = source_git.fetch_bounded
    monkeypatch.setattr(source_git, "fetch_bounded",
                        lambda args, git_dir, **kw: real(args, git_dir, **{**kw, "limit": 1024 * 1024}))
    from skill_studio.core.sources.git import GitError

    with pytest.raises(GitError, match="brought more than"):
        ops.add(store, up.url)
    assert len(store) == 0
    cache = tmp_path / "store.db-sources"
    assert cache.is_dir() and not list(cache.glob("*.git"))   # the cache holds none of it
