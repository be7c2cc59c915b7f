"""What an import reads: every skill under the paths it was given (a folder, a tree of folders, a
SKILL.md or a .skill/.zip archive) as the bytes of its SKILL.md and its files, or why it cannot be read.
A path that cannot be read is reported and the walk goes on."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from skill_studio.core.format.names import printable
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.library.archive import skill_file_mode
from skill_studio.core.library.folders import (
    ARCHIVE_SUFFIXES,
    FolderError,
    discover,
    has_skill_md,
    missing_path_reason,
    read_folder,
)
from skill_studio.core.model import SkillFile


@dataclass
class ReadSkill:
    """One skill as read from disk or an archive, or why it could not be read."""

    source: str
    folder_name: str = ""
    data: bytes = b""
    files: list[SkillFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def read_sources(path: Path) -> Iterator[ReadSkill]:
    """Every skill under a path: a folder, a tree, a SKILL.md, or a .skill/.zip archive.

    A folder that cannot be read is reported and the walk goes on.
    """
    shown = printable(str(path))
    try:
        if not path.exists():
            yield ReadSkill(str(path), error=f"{shown}: {missing_path_reason(path)}")
            return
        if path.name in ("SKILL.md", "skill.md") and not path.is_dir():
            path = path.parent
        elif not path.is_dir():
            if path.is_file() and path.suffix.lower() in ARCHIVE_SUFFIXES:
                yield _archive_source(path)
            elif path.is_file():
                yield ReadSkill(str(path), error=f"{shown}: not a skill folder, a SKILL.md or a "
                                             f"{'/'.join(ARCHIVE_SUFFIXES)} archive")
            else:
                yield ReadSkill(str(path), error=f"{shown}: not a file or a folder (a fifo, socket or device)")
            return
        problems: list[str] = []
        folders = [path] if has_skill_md(path) else discover(path, problems=problems)
    except OSError as e:
        yield ReadSkill(str(path), error=f"{shown}: cannot be read ({e.strerror or e})")
        return
    for problem in problems:
        yield ReadSkill(problem.split(": ", 1)[0], error=problem)
    if not folders and not problems:
        yield ReadSkill(str(path), error=f"{shown}: no skill found (no folder under it holds a SKILL.md)")
    for folder in folders:
        source = os.path.join(folder, "SKILL.md")
        if _undecodable(str(folder)):
            yield ReadSkill(source, folder.name, error=f"{printable(str(folder))}: the path is not valid UTF-8; "
                                                   "rename the folder")
            continue
        try:
            md, data, files, notes = read_folder(folder, refuse_outside_links=True)
        except (FolderError, SkillParseError) as e:
            yield ReadSkill(source, folder.name, error=str(e))
            continue
        except OSError as e:
            yield ReadSkill(source, folder.name, error=f"{printable(source)}: cannot be read ({e.strerror or e})")
            continue
        yield ReadSkill(str(md), folder.name, data, [replace(f, mode=skill_file_mode(f.mode)) for f in files], notes)


def _archive_source(path: Path) -> ReadSkill:
    """The skill of a .skill/.zip archive, or why it cannot be read (naming the archive's path)."""
    from skill_studio.core.library.archive import ArchiveError, read_skill_archive

    shown = printable(str(path))
    try:
        archived = read_skill_archive(path)
    except ArchiveError as e:
        where = f"{shown}: member {e.member!r} " if e.member is not None else f"{shown}: "
        return ReadSkill(str(path), error=where + e.reason)
    except OSError as e:
        return ReadSkill(str(path), error=f"{shown}: cannot be read ({e.strerror or e})")
    md = next(f for f in archived.files if f.path in ("SKILL.md", "skill.md"))
    rest = [f for f in archived.files if f is not md]
    return ReadSkill(f"{path}!{archived.folder_name}/{md.path}", archived.folder_name, md.data, rest,
                 list(archived.ignored))


def _undecodable(text: str) -> bool:
    """True when a path holds bytes that are not UTF-8 (decoded as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
