"""Version-control metadata never enters a skill, whatever brings it: git runs the commands a
``.git`` folder names (core.fsmonitor, hooks) when it is used in the folder it is found in, a
``.git`` file points it at another (``gitdir:``), and Mercurial runs hooks from ``.hg``. Archives
and folders leave it out and say so, the store refuses it, and a skill that still holds some
from an older store is installed and exported without it."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from conftest import make

from skill_studio.core.format.skill_paths import vcs_part
from skill_studio.core.library import install
from skill_studio.core.library.archive import read_skill_archive
from skill_studio.core.library.folder_write import export_folder
from skill_studio.core.library.folders import read_folder
from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import SkillFile
from skill_studio.core.store import Store, StoreError

SKILL_MD = b"---\nname: gitty\ndescription: Does a thing. Use when needed.\n---\n\n# Gitty\n\nRun it.\n"
FSMONITOR = b"[core]\n\tfsmonitor = \"sh -c 'touch /tmp/pwned'\"\n"

METADATA = [
    ("gitty/.git/config", FSMONITOR),                         # a whole repository's config
    ("gitty/.git/hooks/post-checkout", b"#!/bin/sh\ntouch /tmp/pwned\n"),
    ("gitty/.git", b"gitdir: ./scripts/repo\n"),             # a .git file pointing inside the skill
    ("gitty/.GIT/config", FSMONITOR),                         # one on a case-insensitive disk
    ("gitty/scripts/.git/config", FSMONITOR),                 # deeper in the skill
    ("gitty/.hg/hgrc", b"[hooks]\nupdate = touch /tmp/pwned\n"),
]


@pytest.mark.parametrize("member, data", METADATA, ids=[m for m, _ in METADATA])
def test_an_archive_brings_no_version_control_metadata(tmp_path, member, data):
    archive = tmp_path / "gitty.skill"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("gitty/SKILL.md", SKILL_MD)
        zf.writestr("gitty/scripts/run.sh", b"echo hi\n")
        zf.writestr(member, data)
    read = read_skill_archive(archive)
    assert sorted(f.path for f in read.files) == ["SKILL.md", "scripts/run.sh"]
    assert any(member in line and "version-control metadata" in line for line in read.ignored)
    store = Store(tmp_path / "s.db")
    report = import_paths(store, [archive])
    assert [e.status for e in report.entries] == ["imported"]
    assert [f.path for f in store.get("gitty").files] == ["scripts/run.sh"]
    store.close()


@pytest.mark.parametrize("kind", ["folder", "file", "upper-case folder"])
def test_a_folder_brings_no_version_control_metadata(tmp_path, kind):
    skill = tmp_path / "gitty"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(SKILL_MD)
    (skill / "scripts" / "run.sh").write_bytes(b"echo hi\n")
    if kind == "file":
        (skill / ".git").write_bytes(b"gitdir: ./scripts\n")
    else:
        git = skill / (".GIT" if kind.startswith("upper") else ".git")
        git.mkdir()
        (git / "config").write_bytes(FSMONITOR)
    _md, _data, files, notes = read_folder(skill)
    assert [f.path for f in files] == ["scripts/run.sh"] and not any(vcs_part(f.path) for f in files)
    assert any("version-control metadata" in n for n in notes)


def test_the_store_refuses_a_file_inside_git_metadata(store):
    skill = make("gitty", files=[SkillFile(".git/config", FSMONITOR, 0o644)])
    with pytest.raises(StoreError, match=r"\.git/config.*version-control metadata"):
        store.add(skill)
    assert "gitty" not in store


def test_metadata_an_older_store_holds_is_never_written_out(store, tmp_path):
    """A store written before the rule may hold such files: installs and exports leave them out."""
    store.add(make("gitty", files=[SkillFile("scripts/run.sh", b"echo hi\n", 0o755)]))
    with store.transaction():   # as an older version of the studio could have stored it
        store._conn.execute("INSERT INTO skill_files (skill, path, mode, size, blob) VALUES (?, ?, ?, ?, ?)",
                            ("gitty", ".git/config", 0o644, len(FSMONITOR), store._store_blob(FSMONITOR)))
    assert ".git/config" in [f.path for f in store.get("gitty").files]
    report = install.install(store, tmp_path / "agent", ["gitty"])
    assert report.installed == ["gitty"]
    installed = tmp_path / "agent" / "gitty"
    assert (installed / "scripts" / "run.sh").is_file() and not (installed / ".git").exists()
    exported = export_folder(store.get("gitty"), tmp_path / "out")
    assert not (Path(exported) / ".git").exists() and (Path(exported) / "SKILL.md").is_file()


@pytest.mark.parametrize("name", [".git", ".hg", ".GIT"])
def test_an_export_into_a_repository_keeps_its_version_control_folder(tmp_path, name):
    from conftest import make

    skill = make("notes", "Writes notes. Use when asked.")
    target = tmp_path / "out" / "notes"
    (target / name).mkdir(parents=True)
    (target / name / "config").write_text("[core]\n")
    (target / "stale.md").write_text("from an older export\n")
    export_folder(skill, tmp_path / "out")
    assert (target / name / "config").read_text() == "[core]\n"
    assert not (target / "stale.md").exists() and (target / "SKILL.md").is_file()
    export_folder(skill, tmp_path / "out")     # and again: it stays
    assert (target / name / "config").is_file()
    assert not list((tmp_path / "out").glob(".notes.*"))   # no staging left beside it
