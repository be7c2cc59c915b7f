"""What reaches disk from a skill's files: only 0o755 (executable) or 0o644, whatever an archive,
a folder or an older store holds (no setuid, setgid or sticky bit, no write for group or
others); and archive members whose names no file system takes are refused at import, named."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest
from conftest import make

from skill_studio.cli import main
from skill_studio.core.library import install
from skill_studio.core.library.archive import MAX_PATH_BYTES, ArchiveError, read_skill_archive
from skill_studio.core.library.archive_write import write_skill_archive
from skill_studio.core.library.folder_write import export_archive, export_folder
from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import SkillFile
from skill_studio.core.store import Store

SKILL_MD = b"---\nname: moded\ndescription: Carries odd modes. Use when testing.\n---\n\nBody.\n"
#: Modes a hostile or careless source may carry, and what a skill's file gets for each.
MODES = {
    "setuid": (0o4755, 0o755), "setgid": (0o2755, 0o755), "sticky": (0o1777, 0o755),
    "world-writable": (0o666, 0o644), "group-writable": (0o664, 0o644), "group-exec": (0o654, 0o755),
    "owner-only": (0o600, 0o644), "owner-exec": (0o700, 0o755), "nothing": (0o000, 0o644),
    "all-bits": (0o7777, 0o755),
}


def _zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        md = zipfile.ZipInfo("moded/SKILL.md")
        md.create_system, md.external_attr = 3, (stat.S_IFREG | 0o4666) << 16
        zf.writestr(md, SKILL_MD)
        for name, (mode, _) in MODES.items():
            info = zipfile.ZipInfo(f"moded/bin/{name}")
            info.create_system, info.external_attr = 3, (stat.S_IFREG | mode) << 16
            zf.writestr(info, b"#!/bin/sh\n")
    return path


def _folder(path: Path) -> Path:
    (path / "bin").mkdir(parents=True)
    (path / "SKILL.md").write_bytes(SKILL_MD)
    os.chmod(path / "SKILL.md", 0o666)
    for name, (mode, _) in MODES.items():
        f = path / "bin" / name
        f.write_bytes(b"#!/bin/sh\n")
        os.chmod(f, mode)
    return path


def _modes_on_disk(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): stat.S_IMODE(p.stat().st_mode) for p in folder.rglob("*") if p.is_file()}


EXPECTED = {f"bin/{name}": want for name, (_, want) in MODES.items()} | {"SKILL.md": 0o644}


@pytest.mark.parametrize("source", ["zip", "folder"])
def test_only_plain_modes_are_stored_and_written(tmp_path, source):
    src = _zip(tmp_path / "moded.zip") if source == "zip" else _folder(tmp_path / "src" / "moded")
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [src])
        assert [e.status for e in report.entries] == ["imported"], report.entries
        skill = store.get("moded")
        assert {f.path: f.mode for f in skill.files} == {k: v for k, v in EXPECTED.items() if k != "SKILL.md"}
        assert _modes_on_disk(export_folder(skill, tmp_path / "out")) == EXPECTED
        with zipfile.ZipFile(export_archive(skill, tmp_path / "zips")) as zf:
            assert {i.filename.split("/", 1)[1]: stat.S_IMODE(i.external_attr >> 16) for i in zf.infolist()} == EXPECTED
        install.install(store, tmp_path / "agent", ["moded"])
        installed = _modes_on_disk(tmp_path / "agent" / "moded")
        assert installed == {k: v & ~0o222 for k, v in EXPECTED.items()}   # read-only copies


def test_an_older_store_holding_odd_modes_still_writes_plain_ones(tmp_path):
    """A store from before the rule may hold any mode: every writer decides again."""
    files = [SkillFile(f"bin/{name}", b"#!/bin/sh\n", mode) for name, (mode, _) in MODES.items()]
    with Store(tmp_path / "s.db") as store:
        store.add(make("moded", "Carries odd modes. Use when testing.", files=files))
        skill = store.get("moded")
        assert any(f.mode not in (0o644, 0o755) for f in skill.files)   # stored as given
        assert _modes_on_disk(export_folder(skill, tmp_path / "out")) == EXPECTED
        with zipfile.ZipFile(export_archive(skill, tmp_path / "zips")) as zf:
            assert {i.filename.split("/", 1)[1]: stat.S_IMODE(i.external_attr >> 16) for i in zf.infolist()} == EXPECTED
        install.install(store, tmp_path / "agent", ["moded"])
        assert _modes_on_disk(tmp_path / "agent" / "moded") == {k: v & ~0o222 for k, v in EXPECTED.items()}


def test_the_archive_writer_writes_plain_modes(tmp_path):
    files = [SkillFile("SKILL.md", SKILL_MD, 0o6666),
             *(SkillFile(f"bin/{name}", b"x", mode) for name, (mode, _) in MODES.items())]
    with zipfile.ZipFile(write_skill_archive(tmp_path / "m.zip", "moded", files)) as zf:
        assert {i.filename.split("/", 1)[1]: stat.S_IMODE(i.external_attr >> 16) for i in zf.infolist()} == EXPECTED


# --- names longer than a file system takes ------------------------------------------------------

LONG_NAMES = {
    "a file name of 256 bytes": "moded/" + "n" * 256,
    "a folder name of 256 bytes": "moded/" + "d" * 256 + "/file.txt",
    "a name of 128 characters, 256 bytes": "moded/" + "é" * 128,
    "a path over the limit": "moded/" + "/".join(["p" * 200] * (MAX_PATH_BYTES // 200 + 1)) + "/f",
}


@pytest.mark.parametrize("member", LONG_NAMES.values(), ids=LONG_NAMES.keys())
def test_members_named_longer_than_a_file_system_takes_are_refused(tmp_path, member):
    path = tmp_path / "moded.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("moded/SKILL.md", SKILL_MD)
        zf.writestr(member, b"x")
    with pytest.raises(ArchiveError) as caught:
        read_skill_archive(path)
    assert caught.value.member == member and "longer than" in caught.value.reason
    with Store(tmp_path / "s.db") as store:
        entry = import_paths(store, [path]).entries[0]
        assert entry.status == "skipped" and member[:40] in entry.reason and "longer than" in entry.reason
        assert store.names() == []


def test_names_just_within_the_limits_are_taken(tmp_path):
    path = tmp_path / "moded.zip"
    fits = "moded/" + "/".join(["p" * 200] * ((MAX_PATH_BYTES - 300) // 201)) + "/" + "é" * 127
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("moded/SKILL.md", SKILL_MD)
        zf.writestr(fits, b"x")
    assert fits.split("/", 1)[1] in [f.path for f in read_skill_archive(path).files]


def test_the_import_command_names_the_long_member(tmp_path, capsys):
    path = tmp_path / "moded.zip"
    member = "moded/" + "n" * 300
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("moded/SKILL.md", SKILL_MD)
        zf.writestr(member, b"x")
    assert main(["--store", str(tmp_path / "s.db"), "import", str(path)]) == 1
    out = capsys.readouterr().out
    assert "n" * 300 in out and "longer than the 255" in out
