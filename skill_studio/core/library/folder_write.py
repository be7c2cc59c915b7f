"""Writing skills out as folders and archives: the files a skill writes (never version-control
metadata), where two skills would share one folder, and a folder written whole or not at all."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

from skill_studio.core.format.names import printable
from skill_studio.core.format.skill_paths import VCS_NAMES, vcs_part
from skill_studio.core.library.folders import FolderError
from skill_studio.core.model import Skill, SkillFile


def skill_files_with_md(skill: Skill) -> list[SkillFile]:
    """The files of a skill, SKILL.md included, as they are written out (installed, exported,
    linked, copied for a run): never version-control metadata, even if a store from before that
    rule holds some."""
    return [SkillFile(skill.md_filename or "SKILL.md", skill.skill_md.encode("utf-8"), 0o644),
            *(f for f in skill.files if not vcs_part(f.path))]


class ExportClash(FolderError):
    """Skills that would be written to one folder (names equal but for case): nothing is written."""

    def __init__(self, groups: list[list[str]]):
        def clash(group: list[str]) -> str:
            names = [f'"{n}"' for n in group]
            return (f"{', '.join(names[:-1])} and {names[-1]} would "
                    f"{'both' if len(names) == 2 else 'all'} be written to one folder")

        super().__init__("; ".join(map(clash, groups)) + " (names that differ only in case share a folder on "
                         "macOS and Windows); export them to different places")
        self.groups = groups


def folder_clashes(skills: Iterable[Skill]) -> list[list[str]]:
    """The names of skills that would be written to the same folder in one place (the folder name
    compared without case, as macOS and Windows do), one list per folder; empty when none clash."""
    by_folder: dict[str, list[str]] = {}
    for skill in skills:
        by_folder.setdefault((skill.folder_name or skill.name).casefold(), []).append(skill.name)
    return [group for group in by_folder.values() if len(group) > 1]


def export_folder(skill: Skill, dest_dir: str | os.PathLike) -> Path:
    """Write the skill as ``dest_dir/<folder>/`` (byte-identical SKILL.md and files; each file
    0o755 when executable, else 0o644).

    The folder is built in a staging folder beside the target and swapped in, so a reader
    never sees a half-written skill. Returns the skill folder. Raises FolderError, naming the
    path and what to do, when a file stands where ``dest_dir`` or the skill's folder must be, or
    a file's path is longer than the file system takes; OSError when the disk refuses the write.
    """
    from skill_studio.core.library.archive import safe_relative_path, skill_file_mode
    from skill_studio.core.library.atomic import remove_staging, stage_beside, swap_in

    dest_dir = Path(dest_dir)
    _make_dest(dest_dir)
    target = dest_dir / _folder_name(skill)
    if os.path.lexists(target) and (target.is_symlink() or not target.is_dir()):
        raise FolderError(f"{printable(str(target))}: exists and is not a folder; not replacing it (move it "
                          "away, or write the skill somewhere else)")
    stage = stage_beside(target)
    try:
        built = stage / "skill"
        built.mkdir()
        for f in skill_files_with_md(skill):
            out = built / safe_relative_path(f.path)
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
                with open(out, "wb") as fh:
                    fh.write(f.data)
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as e:
                if e.errno != errno.ENAMETOOLONG:
                    raise
                raise FolderError(f"{printable(str(target / f.path))}: the path is longer than the file system "
                                  "allows; rename the file (or its folders) in the studio, or write the skill "
                                  "to a folder with a shorter path") from None
            os.chmod(out, skill_file_mode(f.mode))
        os.chmod(built, 0o755)
        kept = _carry_vcs(target, built)
        try:
            swap_in(built, target)
        except BaseException:
            _carry_vcs(built, target, kept)   # the old folder is still at target: give them back
            raise
    finally:
        remove_staging(stage)
    return target


def _carry_vcs(old: Path, new: Path, names: list[str] | None = None) -> list[str]:
    """Move the version-control metadata (a ``.git`` or ``.hg`` at the top) of the folder a
    write replaces into its new contents: a skill never holds one, but the folder someone
    exports into may be their repository. Returns the names moved."""
    if names is None:
        try:
            names = [e.name for e in os.scandir(old) if e.name.casefold() in VCS_NAMES]
        except (FileNotFoundError, NotADirectoryError):
            return []
    for name in names:
        os.rename(old / name, new / name)
    return names


def _make_dest(dest_dir: Path) -> None:
    """Create ``dest_dir`` (and its parents) as needed; FolderError when a file is in the way."""
    from skill_studio.core.library.atomic import file_in_the_way

    blocker = file_in_the_way(dest_dir)
    if blocker is not None:
        where = "is a file, not a folder" if blocker == dest_dir else \
            f"cannot be a folder: {printable(str(blocker))} is a file"
        raise FolderError(f"{printable(str(dest_dir))}: {where}; choose a folder to write to, or move the file away")
    dest_dir.mkdir(parents=True, exist_ok=True)


def export_archive(skill: Skill, dest_dir: str | os.PathLike, suffix: str = ".zip") -> Path:
    """Write the skill as ``dest_dir/<folder><suffix>`` holding one ``<folder>/``; returns the path."""
    from skill_studio.core.library.archive_write import write_skill_archive

    folder = _folder_name(skill)
    _make_dest(Path(dest_dir))
    return write_skill_archive(Path(dest_dir) / f"{folder}{suffix}", folder, skill_files_with_md(skill))


def _folder_name(skill: Skill) -> str:
    name = skill.folder_name or skill.name
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise FolderError(f'"{skill.name}": cannot be written as a folder named {name!r}')
    if len(os.fsencode(name)) > 255:
        raise FolderError(f'"{skill.name}": its folder name is longer than the 255 bytes a file system allows; '
                          "rename the skill to write it out")
    return name
