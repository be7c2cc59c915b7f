"""Skill folders on disk: discovery, reading a folder into a skill, and writing one back out."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from skill_studio.core import skillmd
from skill_studio.core.atomic import is_staging
from skill_studio.core.fields import to_skill
from skill_studio.core.model import ENTRY_DEFAULTS, Origin, Skill, SkillFile
from skill_studio.core.skillmd import SkillParseError

SKIP_DIRS = frozenset({".git", "node_modules"})
SKIP_IN_SKILL = frozenset({".git", "node_modules", "__pycache__"})
ARCHIVE_SUFFIXES = (".skill", ".zip")
MAX_DEPTH = 10
MAX_FILES_PER_SKILL = 5000
MAX_SKILL_BYTES = 200 * 1024 * 1024


class FolderError(ValueError):
    """A skill folder that cannot be read or written; the message names the path."""


# --- discovery ----------------------------------------------------------------

def discover(root: str | os.PathLike, max_depth: int = MAX_DEPTH) -> list[Path]:
    """Skill folders under ``root`` (folders holding a file named exactly SKILL.md), sorted.

    Hidden folders are walked, ``.git`` and ``node_modules`` skipped, links to
    folders not followed, and a skill folder is not searched further.
    """
    root = Path(root)
    if (root / "SKILL.md").is_file():
        return [root]
    found: list[Path] = []
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        names = {e.name for e in entries}
        if "SKILL.md" in names and folder != root:
            found.append(Path(folder))
            continue
        if depth >= max_depth:
            continue
        for e in entries:
            if e.name in SKIP_DIRS or is_staging(e.name):   # what an interrupted export left
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append((Path(e.path), depth + 1))
            except OSError:
                continue
    return sorted(found, key=lambda p: str(p))


def find_skill_md(folder: str | os.PathLike) -> Path | None:
    """The skill's SKILL.md (or skill.md) path, or None when it has neither."""
    folder = Path(folder)
    for name in ("SKILL.md", "skill.md"):
        if (folder / name).is_file():
            return folder / name
    return None


# --- reading ------------------------------------------------------------------

def read_folder(folder: str | os.PathLike) -> tuple[Path, bytes, list[SkillFile], list[str]]:
    """SKILL.md path and bytes, the files beside it, and notes on files left out.

    Raises FolderError when there is no SKILL.md or the folder is over the limits.
    """
    folder = Path(folder)
    md = find_skill_md(folder)
    if md is None:
        raise FolderError(f"{folder}: Missing required file: SKILL.md")
    if md.stat().st_size > skillmd.MAX_SKILL_MD_BYTES:
        raise SkillParseError(f"file is over the {skillmd.MAX_SKILL_MD_BYTES:,}-byte limit for SKILL.md",
                              str(md), 1, 1)
    files: list[SkillFile] = []
    notes: list[str] = []
    total = 0
    stack = [(str(folder), "")]
    while stack:
        dirpath, prefix = stack.pop()
        with os.scandir(dirpath) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            rel = prefix + e.name
            if not prefix and e.name == md.name:
                continue
            if e.is_symlink():
                notes.append(f"{rel}: a link, left out")
                continue
            if e.is_dir():
                if e.name not in SKIP_IN_SKILL:
                    stack.append((e.path, rel + "/"))
                continue
            if not e.is_file() or e.name.endswith(".pyc"):
                continue
            st = e.stat()
            total += st.st_size
            if len(files) >= MAX_FILES_PER_SKILL or total > MAX_SKILL_BYTES:
                raise FolderError(f"{folder}: more than {MAX_FILES_PER_SKILL} files or "
                                  f"{MAX_SKILL_BYTES // 2**20} MiB; not a skill folder")
            with open(e.path, "rb") as fh:
                files.append(SkillFile(rel, fh.read(), stat.S_IMODE(st.st_mode) & 0o777))
    files.sort(key=lambda f: f.path)
    with open(md, "rb") as fh:
        data = fh.read()
    return md, data, files, notes


def build_skill(data: bytes, folder_name: str, files: list[SkillFile], *, origin: Origin,
                source: str) -> Skill:
    """Parse SKILL.md bytes into a Skill with its files and entry state for ``origin``.

    Raises SkillParseError (file, line, column) when it cannot be loaded leniently:
    unreadable frontmatter, or a missing or empty description.
    """
    return skill_from_document(skillmd.parse_document(data, source), folder_name, files, origin=origin,
                               source=source)


def skill_from_document(doc: skillmd.SkillDocument, folder_name: str, files: list[SkillFile], *,
                        origin: Origin, source: str) -> Skill:
    """A Skill from a parsed SKILL.md, as ``build_skill`` makes it; raises SkillParseError likewise."""
    skill = to_skill(doc, folder_name)
    if not skill.description:
        line = _key_line(doc, "description")
        raise SkillParseError("description is missing or empty; a skill needs one to be loaded",
                              source, line, 1)
    if not skill.name:
        raise SkillParseError("no name in the frontmatter and no folder name", source, doc.frontmatter_line, 1)
    skill.origin = Origin(origin)
    skill.lifecycle, skill.trust_tier = ENTRY_DEFAULTS[skill.origin]
    skill.files, skill.source_path = files, source
    if Path(source).name == "skill.md":
        skill.md_filename = "skill.md"
    return skill


def _key_line(doc: skillmd.SkillDocument, key: str) -> int:
    for i, line in enumerate(doc.frontmatter_text.splitlines()):
        if line.startswith(f"{key}:"):
            return doc.frontmatter_line + i
    return doc.frontmatter_line


# --- export -------------------------------------------------------------------

def skill_files_with_md(skill: Skill) -> list[SkillFile]:
    """The files of a skill, SKILL.md included, as they are written out."""
    return [SkillFile(skill.md_filename or "SKILL.md", skill.skill_md.encode("utf-8"), 0o644), *skill.files]


def export_folder(skill: Skill, dest_dir: str | os.PathLike) -> Path:
    """Write the skill as ``dest_dir/<folder>/`` (byte-identical SKILL.md, files, mode bits).

    The folder is built beside the target and swapped in, so a reader never
    sees a half-written skill. Returns the skill folder.
    """
    from skill_studio.core.archive import safe_relative_path
    from skill_studio.core.atomic import stage_beside, swap_in

    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / _folder_name(skill)
    if target.exists() and (target.is_symlink() or not target.is_dir()):
        raise FolderError(f"{target}: exists and is not a folder; not replacing it")
    stage = stage_beside(target)
    try:
        for f in skill_files_with_md(skill):
            out = stage / safe_relative_path(f.path)
            out.parent.mkdir(parents=True, exist_ok=True)
            with open(out, "wb") as fh:
                fh.write(f.data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(out, f.mode & 0o777)
        os.chmod(stage, 0o755)
        swap_in(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return target


def export_archive(skill: Skill, dest_dir: str | os.PathLike, suffix: str = ".zip") -> Path:
    """Write the skill as ``dest_dir/<folder><suffix>`` holding one ``<folder>/``; returns the path."""
    from skill_studio.core.archive_write import write_skill_archive

    folder = _folder_name(skill)
    Path(dest_dir).mkdir(parents=True, exist_ok=True)
    return write_skill_archive(Path(dest_dir) / f"{folder}{suffix}", folder, skill_files_with_md(skill))


def _folder_name(skill: Skill) -> str:
    name = skill.folder_name or skill.name
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise FolderError(f'"{skill.name}": cannot be written as a folder named {name!r}')
    return name
