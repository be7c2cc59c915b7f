"""Skill folders on disk: discovery, reading a folder into a skill, and writing one back out."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.names import file_name_problem, printable
from skill_studio.core.format.skill_paths import VCS_REASON, vcs_part
from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.library.atomic import is_staging
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
            content, mode = _read_regular(Path(e.path), MAX_FILE_BYTES)
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


def _read_regular(path: Path, limit: int, shown: Path | None = None) -> tuple[bytes, int]:
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
        swap_in(built, target)
    finally:
        remove_staging(stage)
    return target


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
