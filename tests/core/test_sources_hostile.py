"""Sources that are hostile or odd: crafted trees git itself would refuse, names that pick the
wrong skill, plugins sharing a folder, a skill followed from inside another, a name the studio
gave otherwise, terminal escapes in file names; and the hash that tells folders apart."""

from __future__ import annotations

import pytest
from source_repos import Upstream, crafted_commit, skill_md, tree_of

from skill_studio.core.model import SkillFile
from skill_studio.core.sources import ops
from skill_studio.core.sources.snapshot import folder_hash


def test_a_crafted_tree_is_refused_for_its_skill_and_others_go_on(store, tmp_path):
    up = Upstream(tmp_path / "a", {"good/SKILL.md": skill_md("good")})
    ops.add(store, up.url)
    other = Upstream(tmp_path / "b", {"calm/SKILL.md": skill_md("calm")})
    ops.add(store, other.url)
    folder_x = tree_of(up.bare, [("100644", "y", b"y")])
    good = tree_of(up.bare, [("100644", "SKILL.md", skill_md("good", body="v2\n").encode()),
                             ("100644", "x", b"a file"), ("40000", "x", folder_x.encode())])
    twice = tree_of(up.bare, [("100644", "SKILL.md", skill_md("twice").encode()), ("100644", "a", b"1"),
                              ("100644", "a", b"2")])
    crafted_commit(up.bare, [("40000", "good", good.encode()), ("40000", "twice", twice.encode())])
    _spec, _commit, listed, _ = ops.list_source(store, up.url)
    problems = {s.path: s.problem for s in listed}
    assert "cannot be written as a folder" in problems["good"] and "cannot be written" in problems["twice"]
    states = {s.name: (s.state, s.detail) for s in ops.outdated(store)}
    assert states["calm"][0] == ops.CURRENT                      # the other source is still followed
    assert states["good"][0] == ops.UNREACHABLE and "cannot be written" in states["good"][1]


def test_crafted_names_never_leave_the_staging_folder(store, tmp_path):
    up = Upstream(tmp_path, {"s/SKILL.md": skill_md("s")})
    inner = tree_of(up.bare, [("100644", "SKILL.md", skill_md("s").encode()), ("100644", "..", b"up"),
                              ("100644", "a\\..\\..\\x", b"back"), ("100644", "C:evil", b"drive"),
                              ("100644", "ok\x1b[2J.md", b"escape"), ("100644", "fine.md", b"fine")])
    crafted_commit(up.bare, [("40000", "s", inner.encode())])
    assert ops.add(store, up.url).added == ["s"]
    assert [f.path for f in store.get("s").files] == ["fine.md"]
    assert not (tmp_path / "x").exists() and not (tmp_path / "up").exists()


def test_a_name_picks_the_skill_of_that_name_before_a_folder_of_that_name(store, tmp_path):
    up = Upstream(tmp_path, {"a/foo/SKILL.md": skill_md("baz"), "b/bar/SKILL.md": skill_md("foo")})
    assert ops.add(store, up.url, names=["foo"]).added == ["foo"]
    assert store.source_records(["foo"])[0].path == "b/bar"
    assert ops.add(store, up.url, names=["a/foo"]).added == ["baz"]   # a path still names its folder


def test_plugins_that_share_the_root_are_told_apart_by_their_lists(store, tmp_path):
    market = ('{"name": "m", "plugins": ['
              '{"name": "documents", "source": "./", "skills": ["./skills/pdf", "./skills/docx"]},'
              '{"name": "examples", "source": "./", "skills": ["./skills/art"]}]}')
    up = Upstream(tmp_path, {".claude-plugin/marketplace.json": market, "skills/pdf/SKILL.md": skill_md("pdf"),
                             "skills/docx/SKILL.md": skill_md("docx"), "skills/art/SKILL.md": skill_md("art"),
                             "skills/other/SKILL.md": skill_md("other")})
    _spec, _c, listed, _ = ops.list_source(store, up.url)
    assert {s.name: s.plugin for s in listed} == {"art": "examples", "docx": "documents", "pdf": "documents",
                                                  "other": None}


def test_a_skill_followed_from_inside_another_stays_current(store, tmp_path):
    up = Upstream(tmp_path, {"skills/SKILL.md": skill_md("skills"), "skills/pdf/SKILL.md": skill_md("pdf")})
    assert ops.add(store, up.url, path="skills/pdf").added == ["pdf"]
    assert [(s.name, s.state) for s in ops.outdated(store)] == [("pdf", ops.CURRENT)]
    up.push({"skills/pdf/SKILL.md": skill_md("pdf", body="New.\n")})
    assert ops.update(store).updated == ["pdf"]


def test_an_update_keeps_the_name_the_studio_gave(store, tmp_path):
    from dataclasses import replace

    up = Upstream(tmp_path, {"x1/SKILL.md": skill_md("dup"), "x2/SKILL.md": skill_md("dup"),
                             "keep/SKILL.md": skill_md("keep")})
    assert sorted(ops.add(store, up.url).added) == ["dup", "dup-2", "keep"]
    skill = store.get("keep")
    store.update("keep", replace(skill, name="kept", skill_md=skill.skill_md.replace("name: keep", "name: kept")),
                 skill.version)
    up.push({"x2/SKILL.md": skill_md("dup", body="Second, newer.\n"), "keep/SKILL.md": skill_md("keep", body="B\n")})
    report = ops.update(store, take=ops.TAKE_UPSTREAM)
    assert report.failed == [] and sorted(report.updated) == ["dup-2", "kept"]
    assert "Second, newer." in store.get("dup-2").skill_md and "name: dup-2" in store.get("dup-2").skill_md
    assert "name: kept" in store.get("kept").skill_md and "keep" not in store


def test_escapes_in_file_names_are_shown_as_text(store, tmp_path):
    up = Upstream(tmp_path, {"s/SKILL.md": skill_md("s")})
    link = "\x1b[2J\x1b[31mFAKE"
    (up.work / "s" / link).symlink_to("SKILL.md")
    up.push(message="link")
    report = ops.add(store, up.url)
    assert report.added == ["s"]
    assert any("\\x1b[2J" in p for p in report.problems) and not any("\x1b" in p for p in report.problems)


@pytest.mark.parametrize("a, b", [
    ((b"one", [SkillFile("notes.txt", b"two", 0o644)]), (b"one" + b"notes.txt" + b"two", [])),
    ((b"x", [SkillFile("run.sh", b"echo", 0o644)]), (b"x", [SkillFile("run.sh", b"echo", 0o755)])),
    ((b"x", [SkillFile("ab", b"c", 0o644)]), (b"x", [SkillFile("a", b"bc", 0o644)])),
])
def test_the_folder_hash_tells_different_folders_apart(a, b):
    assert folder_hash(*a) != folder_hash(*b)


@pytest.mark.parametrize("ref", ["a b", "x:y", "main..v1", "^main", "-foo", "--upload-pack=touch x", "*"])
def test_a_ref_that_is_no_name_is_refused_in_words(store, tmp_path, ref):
    from skill_studio.core.sources.git import GitError

    up = Upstream(tmp_path, {"s/SKILL.md": skill_md("s")})
    with pytest.raises(GitError, match="not a branch, tag or commit name"):
        ops.add(store, up.url, ref=ref)
    assert not (tmp_path / "x").exists()
