"""Skill folders on disk: discovery and reading a folder into a skill (writing one out:
``folder_write``)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.names import file_name_problem, printable
from skill_studio.core.format.skill_paths import VCS_REASON, vcs_part
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.library.bounded_read import ReadRefused, read_bounded
from skill_studio.core.model import ENTRY_DEFAULTS, Origin, Skill, SkillFile

SKIP_DIRS = frozenset({".git", "node_modules"})
SKIP_IN_SKILL = frozenset({".git", "node_modules", "__pycache__"})
ARCHIVE_SUFFIXES = (".skill", ".zip")
MAX_DEPTH = 10
MAX_FILES_PER_SKILL = 5000
MAX_SKILL_BYTES = 200 * 1024 * 1024
MAX_FILE_BYTES = 50 * 1024 * 1024


class FolderError(ValueError):
    """A skill folder that cannot be read or written; the message names the path."""


# --- discovery ----------------------------------------------------------------

def discover(root: str | os.PathLike, max_depth: int = MAX_DEPTH,
             problems: list[str] | None = None) -> list[Path]:
    """Skill folders under ``root`` (folders holding an entry named exactly SKILL.md), sorted.

    Hidden folders are walked, ``.git`` and ``node_modules`` skipped, links to
    folders not followed, and a skill folder is not searched further. A folder
    that cannot be read is skipped; ``problems``, when given, gets a line for it.
    """
    from skill_studio.core.library.atomic import is_staging  # (loaded when a tree is walked)

    root = Path(root)
    if os.path.lexists(root / "SKILL.md"):
        return [root]
    found: list[Path] = []
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as err:
            if problems is not None:
                problems.append(f"{printable(str(folder))}: cannot be read ({err.strerror or err})")
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


def has_skill_md(folder: str | os.PathLike) -> bool:
    """True when the folder holds an entry named SKILL.md or skill.md, whatever it is (a file, a
    folder, a link, a fifo): reading it as a skill says what is wrong with it."""
    return any(os.path.lexists(os.path.join(folder, name)) for name in ("SKILL.md", "skill.md"))


def missing_path_reason(path: str | os.PathLike) -> str:
    """Why a path that does not exist cannot be read: no such path, a link loop, or a dangling link."""
    path = Path(path)
    if not os.path.islink(path):
        return "no such file or folder"
    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"is a link loop (it points to {printable(os.readlink(path))!r}, which leads back to it)"
    return f"is a link to {printable(os.readlink(path))!r}, which does not exist"


# --- reading ------------------------------------------------------------------

def read_folder(folder: str | os.PathLike, *, refuse_outside_links: bool = False,
                ) -> tuple[Path, bytes, list[SkillFile], list[str]]:
    """SKILL.md path and bytes, the files beside it, and notes on files left out.

    Links are never followed: one that points inside the folder is left out with a
    note; one that points outside it (or loops) too, unless ``refuse_outside_links``
    (an import's choice), which refuses the folder. SKILL.md itself may be a link to a
    file inside the folder. Files that are not regular (fifos, sockets) are left out
    with a note, and are never opened for reading.

    Raises FolderError naming the path: no SKILL.md, a SKILL.md that is a folder, a
    fifo or a link out of the folder, a file or folder that cannot be read, a file name
    that hides what it is (control, invisible or bidi characters) or that Windows
    reserves, and a folder over the limits (files, bytes, bytes per file). Raises
    SkillParseError when SKILL.md is over its size limit.
    """
    folder = Path(folder)
    md, data = read_skill_md(folder)
    files: list[SkillFile] = []
    notes: list[str] = []
    total = entries_seen = 0
    stack = [(str(folder), "")]
    while stack:
        dirpath, prefix = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            raise FolderError(f"{printable(dirpath)}: cannot be read ({err.strerror or err})") from None
        for e in entries:
            rel = prefix + e.name
            if not prefix and e.name == md.name:
                continue
            entries_seen += 1
            if entries_seen > 4 * MAX_FILES_PER_SKILL:
                raise FolderError(f"{printable(str(folder))}: more than {4 * MAX_FILES_PER_SKILL} files and "
                                  "folders; not a skill folder")
            problem = file_name_problem(e.name)
            if problem:
                raise FolderError(f"{printable(e.path)}: {problem}")
            if e.is_symlink():
                where, leaves = _link_target(folder, e.path)
                if leaves and refuse_outside_links:
                    raise FolderError(f"{printable(e.path)}: {where}; links that leave the skill folder are "
                                      "not imported (copy the file in, or remove the link)")
                notes.append(f"{printable(rel)}: {where}, left out")
                continue
            if vcs_part(e.name):      # a folder, or a file of "gitdir: elsewhere"
                notes.append(f"{printable(rel)}: {VCS_REASON}, left out")
                continue
            if e.is_dir(follow_symlinks=False):
                if e.name not in SKIP_IN_SKILL:
                    stack.append((e.path, rel + "/"))
                continue
            if e.name.endswith(".pyc"):
                continue
            if not e.is_file(follow_symlinks=False):
                notes.append(f"{printable(rel)}: not a regular file (a fifo, socket or device), left out")
                continue
            if len(files) >= MAX_FILES_PER_SKILL:
                raise FolderError(f"{printable(str(folder))}: more than {MAX_FILES_PER_SKILL} files; "
                                  "not a skill folder")
            content, mode = _read_regular(e.path, MAX_FILE_BYTES)
            total += len(content)
            if total > MAX_SKILL_BYTES:
                raise FolderError(f"{printable(str(folder))}: more than {MAX_SKILL_BYTES // 2**20} MiB in "
                                  "all; not a skill folder")
            files.append(SkillFile(rel, content, mode))
    files.sort(key=lambda f: f.path)
    return md, data, files, notes


def read_skill_md(folder: str | os.PathLike) -> tuple[Path, bytes]:
    """The path and bytes of a folder's SKILL.md (or skill.md), read as ``read_folder`` reads it;
    raises FolderError or SkillParseError as it does."""
    md, md_real = _skill_md(Path(folder))
    return md, _read_regular(md_real, skillmd.MAX_SKILL_MD_BYTES, shown=md)[0]


def _skill_md(folder: Path) -> tuple[Path, Path]:
    """The SKILL.md (or skill.md) entry of a folder and the file to read for it."""
    for name in ("SKILL.md", "skill.md"):
        md = folder / name
        try:
            st = os.lstat(md)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise FolderError(f"{printable(str(md))}: cannot be read ({e.strerror or e})") from None
        if stat.S_ISLNK(st.st_mode):
            where, leaves = _link_target(folder, str(md))
            if leaves:
                raise FolderError(f"{printable(str(md))}: {where}; SKILL.md must be a file of the skill folder")
            return md, Path(os.path.realpath(md))
        if stat.S_ISDIR(st.st_mode):
            raise FolderError(f"{printable(str(md))}: is a folder, not a file")
        return md, md
    if not folder.is_dir():
        raise FolderError(f"{printable(str(folder))}: not a folder")
    raise FolderError(f"{printable(str(folder))}: Missing required file: SKILL.md")


def _link_target(folder: Path, link: str) -> tuple[str, bool]:
    """Where a link inside a skill folder points, said in words, and whether it leaves the folder
    (points outside it, nowhere outside, or round in a loop)."""
    try:
        target = printable(os.readlink(link))
    except OSError as e:
        return f"is a link that cannot be read ({e.strerror or e})", True
    try:
        real = os.path.realpath(link, strict=True)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"is a link loop (it points to {target!r})", True
        real = os.path.realpath(link)
        if _inside(folder, real):
            return f"is a link to {target!r}, which does not exist", False
        return f"is a link to {target!r}, outside the skill folder (and missing)", True
    if _inside(folder, real):
        return f"is a link to {target!r}", False
    return f"is a link to {target!r}, outside the skill folder", True


def _inside(folder: Path, real: str) -> bool:
    root = os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _read_regular(path: str | Path, limit: int, shown: Path | None = None) -> tuple[bytes, int]:
    """The bytes and permission bits of a regular file of at most ``limit`` bytes, opened
    without following a link and without waiting (a fifo is refused, not read)."""
    try:
        return read_bounded(path, limit, follow_links=False, shown=shown or path,
                            what="SKILL.md" if shown is not None else "file of a skill")
    except ReadRefused as e:
        if shown is not None and e.size is not None:
            raise SkillParseError(f"file is {e.size:,} bytes, over the {limit:,}-byte limit for SKILL.md",
                                  e.path, 1, 1) from None
        raise FolderError(str(e)) from None


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
    if os.path.basename(source) == "skill.md":
        skill.md_filename = "skill.md"
    return skill


def _key_line(doc: skillmd.SkillDocument, key: str) -> int:
    for i, line in enumerate(doc.frontmatter_text.splitlines()):
        if line.startswith(f"{key}:"):
            return doc.frontmatter_line + i
    return doc.frontmatter_line


# --- export -------------------------------------------------------------------
