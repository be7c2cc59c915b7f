"""Linked installs follow the store: a link points at the studio's managed copy of the current
version, which every save, restore, rename or delete brings in step (written whole, swapped in);
links are relative where they can be; ``installed`` compares what an agent really finds with the
store's version, for links and copies; and the gated prompt block can tell agents how to run a
skill's scripts from a workspace mount."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SAMPLES, make

from skill_studio.cli import main
from skill_studio.core.agents import prompt
from skill_studio.core.library import atomic, install, managed
from skill_studio.core.model import SkillFile
from skill_studio.core.ops.skills import delete_skills, restore_version, save_skill
from skill_studio.core.store import Store


@pytest.fixture
def lib(tmp_path, capsys):
    path = tmp_path / "home" / "s.db"
    names = ("pdf-extract", "release-notes", "shell-script-hardening")
    assert main(["--store", str(path), "import", *(str(SAMPLES / name) for name in names)]) == 0
    capsys.readouterr()
    with Store(path) as s:
        yield s


def new_version(store, name, words="Second version"):
    """Save the next version of ``name`` the way every front end does (core.ops)."""
    current = store.get(name)
    return save_skill(store, name, make(name, f"{words}. Use when testing links."), current.version).skill


def read_through(link: Path) -> str:
    return (link / "SKILL.md").read_text(encoding="utf-8")


def rows(store, target):
    return {r.name: r for r in install.status(store, target)}


# --- the link follows every write of its skill ------------------------------------------------------

def test_a_link_points_at_the_managed_copy_and_follows_each_save(lib, tmp_path):
    target = tmp_path / "home" / "ws" / ".skills"
    install.install(lib, target, ["pdf-extract"], link=True)
    link = target / "pdf-extract"
    copy = managed.managed_root(lib) / "pdf-extract"
    assert link.resolve() == copy.resolve() and copy.parent == Path(f"{lib.path}-managed")
    assert all(stat.S_IMODE(p.lstat().st_mode) & 0o222 == 0 for p in [copy, *copy.rglob("*")])   # read-only
    new_version(lib, "pdf-extract")
    assert "Second version" in read_through(link)
    row = rows(lib, target)["pdf-extract"]
    assert (row.state, row.version, row.current_version) == ("current", 2, 2)
    new_version(lib, "pdf-extract", "Third version")
    assert "Third version" in read_through(link) and rows(lib, target)["pdf-extract"].version == 3


@pytest.mark.parametrize("write", ["restore", "rename", "delete"])
def test_every_write_of_a_linked_skill_reaches_its_links(lib, tmp_path, write):
    target = tmp_path / "home" / "ws" / ".skills"
    new_version(lib, "pdf-extract")
    install.install(lib, target, ["pdf-extract"], link=True)
    link = target / "pdf-extract"
    assert "Second version" in read_through(link)
    if write == "restore":
        restore_version(lib, "pdf-extract", 1, 2)
        assert read_through(link) == (SAMPLES / "pdf-extract" / "SKILL.md").read_text(encoding="utf-8")
        assert rows(lib, target)["pdf-extract"].state == "current"
        return
    if write == "rename":
        save_skill(lib, "pdf-extract", make("pdf-reader", "Renamed. Use when testing links."), 2)
    else:
        assert not delete_skills(lib, ["pdf-extract"]).refused
    # the old name serves nothing any more, and says so
    assert link.is_symlink() and not link.exists()
    assert not (managed.managed_root(lib) / "pdf-extract").exists()
    assert rows(lib, target)["pdf-extract"].state == "removed from store"


def test_a_skill_never_linked_gets_no_managed_copy(lib, tmp_path):
    install.install(lib, tmp_path / "skills", ["pdf-extract"])          # a copy, not a link
    new_version(lib, "pdf-extract")
    assert not managed.managed_root(lib).exists()
    install.install(lib, tmp_path / "skills2", ["release-notes"], link=True)
    new_version(lib, "pdf-extract", "Third version")
    root = managed.managed_root(lib)
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == ["release-notes"]


def test_the_managed_copy_is_swapped_in_whole(lib, tmp_path, monkeypatch):
    """At the instant of the swap the link still reads the whole old version, the new one is
    complete beside it; just after, the link reads the whole new one."""
    target = tmp_path / "home" / "ws" / ".skills"
    lib.update("shell-script-hardening", make("shell-script-hardening", "One. Use when testing.",
                                              files=[SkillFile("scripts/run.sh", b"echo one\n", 0o755)]), 1)
    install.install(lib, target, ["shell-script-hardening"], link=True)
    link = target / "shell-script-hardening"
    seen = []
    real = atomic.swap_in

    def watched(staged, where):
        seen.append(((link / "scripts" / "run.sh").read_bytes(), (staged / "scripts" / "run.sh").read_bytes(),
                     "Two." in (staged / "SKILL.md").read_text()))
        real(staged, where)
        seen.append(((link / "scripts" / "run.sh").read_bytes(), "Two." in read_through(link)))
    monkeypatch.setattr(atomic, "swap_in", watched)
    skill = make("shell-script-hardening", "Two. Use when testing.",
                 files=[SkillFile("scripts/run.sh", b"echo two\n", 0o755)])
    save_skill(lib, "shell-script-hardening", skill, 2)
    assert seen == [(b"echo one\n", b"echo two\n", True), (b"echo two\n", True)]
    assert not [p for p in managed.managed_root(lib).iterdir() if p.name.endswith((".tmp", ".old"))]


# --- relative where they can be ----------------------------------------------------------------------

def test_a_link_is_relative_and_survives_moving_a_folder_holding_both(lib, tmp_path):
    target = tmp_path / "home" / "ws" / ".skills"
    install.install(lib, target, ["pdf-extract"], link=True)
    text = os.readlink(target / "pdf-extract")
    assert not os.path.isabs(text) and text == os.path.join("..", "..", "s.db-managed", "pdf-extract")
    assert json.loads((target / install.MANIFEST).read_text())["skills"]["pdf-extract"]["target"] == text
    lib.close()
    moved = tmp_path / "mounted-elsewhere"
    (tmp_path / "home").rename(moved)
    assert "name: pdf-extract" in read_through(moved / "ws" / ".skills" / "pdf-extract")


def test_a_link_across_file_systems_is_absolute(lib, tmp_path, monkeypatch):
    copies = managed.managed_root(lib)
    monkeypatch.setattr(managed, "same_volume", lambda a, b: False)
    target = tmp_path / "elsewhere" / "skills"
    install.install(lib, target, ["pdf-extract"], link=True)
    text = os.readlink(target / "pdf-extract")
    assert os.path.isabs(text) and Path(text) == (copies / "pdf-extract").resolve()
    assert install.status(lib, target)[0].state == "current"


def test_one_volume_is_told_by_the_device(tmp_path):
    (tmp_path / "a").mkdir()
    assert managed.same_volume(tmp_path / "a", tmp_path)
    assert not managed.same_volume(tmp_path / "missing", tmp_path)
    if Path("/proc").is_dir() and os.stat("/proc").st_dev != os.stat(tmp_path).st_dev:
        assert not managed.same_volume(Path("/proc"), tmp_path)


# --- installed tells the truth -----------------------------------------------------------------------

@pytest.mark.parametrize("link", [False, True])
def test_a_store_change_that_did_not_reach_the_folder_is_stale_never_current(lib, tmp_path, link):
    """A write the studio's operations did not make (another tool, a failed refresh) leaves the
    installed files behind: reported stale with the versions, then updated."""
    target = tmp_path / "skills"
    install.install(lib, target, ["pdf-extract"], link=link)
    lib.update("pdf-extract", make("pdf-extract", "Behind the studio's back. Use when testing."), 1)
    row = rows(lib, target)["pdf-extract"]
    assert (row.state, row.version, row.current_version) == ("stale", 1, 2)
    assert "v1" in row.detail and "v2 in the store" in row.detail
    after = {r.name: r for r in install.update(lib, target)}["pdf-extract"]
    assert (after.state, after.version) == ("current", 2)
    assert "Behind the studio" in read_through(target / "pdf-extract")


def test_a_managed_copy_changed_on_disk_is_not_current(lib, tmp_path):
    target = tmp_path / "skills"
    install.install(lib, target, ["pdf-extract"], link=True)
    md = managed.managed_root(lib) / "pdf-extract" / "SKILL.md"
    os.chmod(md, 0o644)
    md.write_text("edited where the link points\n")
    row = rows(lib, target)["pdf-extract"]
    assert row.state == "stale" and "other files than v1" in row.detail
    assert install.update(lib, target)[0].state == "current"
    assert read_through(target / "pdf-extract") == (SAMPLES / "pdf-extract" / "SKILL.md").read_text(encoding="utf-8")


def test_an_earlier_link_to_the_import_folder_is_stale_and_relinked(lib, tmp_path):
    """A link of the kind that pointed at the folder a skill was imported from does not follow
    saves: reported stale even while its files match, and an update relinks it."""
    source = tmp_path / "source" / "pdf-extract"
    source.parent.mkdir()
    source.symlink_to(SAMPLES / "pdf-extract", target_is_directory=True)
    target = tmp_path / "skills"
    install.install(lib, target, ["release-notes"])
    (target / "pdf-extract").symlink_to(source, target_is_directory=True)
    data = json.loads((target / install.MANIFEST).read_text())
    data["skills"]["pdf-extract"] = {"mode": "link", "version": 1, "content_hash": lib.get("pdf-extract").content_hash,
                                     "files": {}}
    (target / install.MANIFEST).write_text(json.dumps(data))
    row = rows(lib, target)["pdf-extract"]
    assert row.state == "stale" and "does not follow saves" in row.detail and str(source) in row.detail
    install.update(lib, target)
    assert (target / "pdf-extract").resolve() == (managed.managed_root(lib) / "pdf-extract").resolve()
    assert rows(lib, target)["pdf-extract"].state == "current"
    assert (SAMPLES / "pdf-extract" / "SKILL.md").is_file()        # the import folder is left as it was


def test_a_link_pointed_elsewhere_by_hand_is_replaced_and_left_alone(lib, tmp_path):
    target = tmp_path / "skills"
    install.install(lib, target, ["pdf-extract"], link=True)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "SKILL.md").write_text("the user's own\n")
    link = target / "pdf-extract"
    link.unlink()
    link.symlink_to(mine, target_is_directory=True)
    row = rows(lib, target)["pdf-extract"]
    assert row.state == "replaced" and str(mine) in row.detail
    install.update(lib, target)
    assert link.resolve() == mine.resolve()
    assert "without force" in install.install(lib, target, ["pdf-extract"], link=True).skipped["pdf-extract"]
    install.install(lib, target, ["pdf-extract"], link=True, force=True)
    assert rows(lib, target)["pdf-extract"].state == "current" and (mine / "SKILL.md").is_file()


@pytest.mark.parametrize("first", [False, True])
def test_switching_between_copy_and_link(lib, tmp_path, first):
    target = tmp_path / "skills"
    install.install(lib, target, ["pdf-extract"], link=first)
    report = install.install(lib, target, ["pdf-extract"], link=not first)
    assert report.installed == ["pdf-extract"]
    place = target / "pdf-extract"
    assert place.is_symlink() == (not first) and (place / "SKILL.md").is_file()
    assert [(r.mode, r.state) for r in install.status(lib, target)] == [("copy" if first else "link", "current")]
    assert install.install(lib, target, ["pdf-extract"], link=not first).unchanged == ["pdf-extract"]
    assert not [p for p in target.iterdir() if p.name.endswith((".tmp", ".old"))]


def test_no_place_for_managed_copies_is_a_clear_skip(lib, tmp_path):
    Path(f"{lib.path}-managed").write_text("a file of the user's\n")
    report = install.install(lib, tmp_path / "skills", ["pdf-extract"], link=True)
    why = report.skipped["pdf-extract"]
    assert f"{lib.path}-managed is a file" in why and "move the file away" in why
    assert not (tmp_path / "skills" / "pdf-extract").exists()
    assert Path(f"{lib.path}-managed").read_text() == "a file of the user's\n"
    assert new_version(lib, "pdf-extract").version == 2          # saves go on


def test_installed_command_says_what_a_link_serves(lib, tmp_path, capsys):
    store, target = str(lib.path), str(tmp_path / "skills")
    assert main(["--store", store, "install", "--to", target, "--link", "pdf-extract"]) == 0
    lib.update("pdf-extract", make("pdf-extract", "Behind the studio's back. Use when testing."), 1)
    capsys.readouterr()
    assert main(["--store", store, "installed", target]) == 0
    out = capsys.readouterr().out
    assert "stale" in out and "(link, v1)" in out and "v2 in the store" in out
    assert main(["--store", store, "installed", target, "--update", "--json"]) == 0
    assert [(r["state"], r["version"]) for r in json.loads(capsys.readouterr().out)] == [("current", 2)]


# --- the run hint in the gated block ------------------------------------------------------------------

def scripted(lib, files):
    """The sample shell skill (its SKILL.md still on disk) with these files beside it."""
    s = lib.get("shell-script-hardening")
    lib.update(s.name, replace(s, files=list(files)), s.version)


def test_the_gated_block_tells_agents_how_to_run_scripts_from_the_mount(lib):
    scripted(lib, [SkillFile("scripts/run.sh", b"echo\n", 0o755), SkillFile("main.py", b"print()\n", 0o644),
                   SkillFile("scripts/notes.json", b"{}\n", 0o644), SkillFile("references/a.md", b"#\n", 0o644)])
    plain = prompt.gated_prompt(lib).text
    hinted = prompt.gated_prompt(lib, run_hint_mount=".skills").text
    line = ("Run its scripts from the workspace: python3 .skills/shell-script-hardening/main.py; "
            "bash .skills/shell-script-hardening/scripts/run.sh")
    assert line in hinted and line not in plain
    assert hinted.count("Run its scripts") == 1                       # only the skill that has scripts
    assert hinted.replace("\n" + line, "") == plain                   # nothing else changes


@pytest.mark.parametrize("mount, shown", [("./.skills/", ".skills/x/scripts/run.sh"),
                                          ("my skills", "'my skills/x/scripts/run.sh'"),
                                          ("ws\\.skills", "ws/.skills/x/scripts/run.sh")])
def test_the_hint_names_the_mount_as_given_quoted_for_a_shell(mount, shown):
    skill = make("x", "X. Use when testing.", files=[SkillFile("scripts/run.sh", b"echo\n", 0o755)])
    assert prompt.run_hint(skill, mount) == f"Run its scripts from the workspace: bash {shown}"


def test_a_skill_without_scripts_gets_no_hint_and_many_are_shortened():
    assert prompt.run_hint(make("x", "X. Use when testing."), ".skills") is None
    many = make("x", "X. Use when testing.", files=[SkillFile(f"scripts/s{i}.sh", b"echo\n", 0o755)
                                                   for i in range(8)])
    hint = prompt.run_hint(many, ".skills")
    assert hint is not None and hint.count("bash ") == prompt.MAX_HINTED_SCRIPTS and hint.endswith("(and 3 more)")


@pytest.mark.parametrize("mount", ["", "/abs/.skills", "../.skills", "a/../../b", "C:\\skills"])
def test_a_mount_outside_the_workspace_is_refused(lib, mount):
    with pytest.raises(ValueError, match="--run-hint"):
        prompt.gated_prompt(lib, run_hint_mount=mount)


def test_the_prompt_command_with_a_run_hint(lib, capsys):
    scripted(lib, [SkillFile("scripts/run.sh", b"echo\n", 0o755)])
    store = str(lib.path)
    assert main(["--store", store, "prompt", "--gated", "--run-hint", ".skills"]) == 0
    out = capsys.readouterr().out
    assert "Run its scripts from the workspace: bash .skills/shell-script-hardening/scripts/run.sh" in out
    assert out.strip() == prompt.gated_prompt(lib, run_hint_mount=".skills").text
    assert main(["--store", store, "prompt", "--run-hint", ".skills"]) == 2
    assert "--run-hint goes with --gated" in capsys.readouterr().err
    assert main(["--store", store, "prompt", "--gated", "--run-hint", "/tmp/x"]) == 2
    assert "not a folder inside the workspace" in capsys.readouterr().err


def test_merges_undo_and_re_imports_reach_the_link_too(lib, tmp_path):
    from skill_studio.core.ops.library import import_skills
    from skill_studio.core.ops.review import merge_skills, undo
    from skill_studio.core.review.lifecycle import UndoStack

    target = tmp_path / "home" / "ws" / ".skills"
    install.install(lib, target, ["release-notes"], link=True)
    link = target / "release-notes"
    stack = UndoStack(lib)
    merged = merge_skills(lib, "release-notes", "shell-script-hardening")
    stack.push(merged.change)
    assert "Merged from shell-script-hardening" in read_through(link)
    assert rows(lib, target)["release-notes"].state == "current"
    undo(stack)
    assert "Merged from shell-script-hardening" not in read_through(link)
    assert rows(lib, target)["release-notes"].state == "current"
    folder = tmp_path / "again" / "release-notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: release-notes\ndescription: Re-imported. Use when testing links.\n"
                                     "---\n# Again\n", encoding="utf-8")
    import_skills(lib, [folder])
    assert "Re-imported" in read_through(link) and rows(lib, target)["release-notes"].state == "current"
