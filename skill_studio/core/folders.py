"""Skill folders and archives on disk: discovery, import into the store, export out of it."""

from __future__ import annotations

import os
import queue
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Iterator

from skill_studio.core import skillmd
from skill_studio.core.fields import to_skill
from skill_studio.core.frontmatter import set_field
from skill_studio.core.model import ENTRY_DEFAULTS, Origin, Skill, SkillFile
from skill_studio.core.skillmd import SkillParseError
from skill_studio.core.store import Store, content_hash

SKIP_DIRS = frozenset({".git", "node_modules"})
SKIP_IN_SKILL = frozenset({".git", "node_modules", "__pycache__"})
ARCHIVE_SUFFIXES = (".skill", ".zip")
MAX_DEPTH = 10
MAX_FILES_PER_SKILL = 5000
MAX_SKILL_BYTES = 200 * 1024 * 1024


class FolderError(ValueError):
    """A skill folder that cannot be read or written; the message names the path."""


@dataclass
class ImportEntry:
    """What happened to one skill of an import."""

    source: str
    status: str  # imported, updated, unchanged, skipped
    name: str | None = None
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    strict_errors: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    entries: list[ImportEntry] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for e in self.entries if e.status == status)

    @property
    def summary(self) -> str:
        parts = [f"{self.count(s)} {s}" for s in ("imported", "updated", "unchanged", "skipped")]
        return ", ".join(parts)


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
            if e.name in SKIP_DIRS:
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append((Path(e.path), depth + 1))
            except OSError:
                continue
    return sorted(found, key=lambda p: str(p))


def find_skill_md(folder: Path) -> Path | None:
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
    doc = skillmd.parse_document(data, source)
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


def _load_source(path: Path) -> Iterable[tuple[str, str, bytes, list[SkillFile], list[str]]]:
    """(source, folder name, SKILL.md bytes, files, notes) for each skill under a path."""
    if path.is_file() and path.suffix.lower() in ARCHIVE_SUFFIXES:
        from skill_studio.core.archive import read_skill_archive

        archived = read_skill_archive(path)
        md = next(f for f in archived.files if f.path in ("SKILL.md", "skill.md"))
        rest = [f for f in archived.files if f is not md]
        yield f"{path}!{archived.folder_name}/{md.path}", archived.folder_name, md.data, rest, \
            list(archived.ignored)
        return
    if path.is_file() and path.name in ("SKILL.md", "skill.md"):
        path = path.parent
    folders = [path] if find_skill_md(path) else discover(path)
    for folder in folders:
        md, data, files, notes = read_folder(folder)
        yield str(md), folder.name, data, files, notes


# --- import -------------------------------------------------------------------

class _Writer:
    """Writes batches of new skills on a thread of its own, so reading and parsing
    the next skills overlaps with SQLite's work (which runs without the GIL)."""

    def __init__(self, store: Store, author: str | None):
        self.store, self.author = store, author
        self.queue: queue.Queue = queue.Queue(maxsize=4)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="skill-import-writer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            job = self.queue.get()
            if job is None:
                return
            if self.error is None:
                try:
                    job()
                except BaseException as e:  # handed back to the importing thread
                    self.error = e

    def submit(self, job: Callable[[], object]) -> None:
        self._raise()
        self.queue.put(job)

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join()
        self._raise()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error


def import_paths(store: Store, paths: Iterable[str | os.PathLike], *, origin: Origin = Origin.HUMAN,
                 author: str | None = None, check_strict: bool = True,
                 progress: Callable[[int, str], bool] | None = None, batch: int = 250) -> ImportReport:
    """Import skill folders, trees of them, SKILL.md files and .skill/.zip archives (lenient).

    Each skill is reported as imported, updated (a new version), unchanged or
    skipped with the reason. A name met twice in one import: the first path
    (in sorted order) keeps it, the next ones become ``name-2``, ``name-3``...
    ``progress(done, source)`` may return False to stop early. New skills are
    written in transactions of ``batch``; nothing already stored is lost.
    """
    report = ImportReport()
    seen: dict[str, str] = {}
    known = store.hashes()
    pending: list[Skill] = []
    writer = _Writer(store, author)
    done = 0

    def flush() -> None:
        if pending:
            chunk = list(pending)
            pending.clear()
            writer.submit(lambda: store.add_many(chunk, author=author, note="imported"))

    try:
        for raw in paths:
            for entry, skill in _read_all(Path(raw), origin, check_strict, report):
                if skill is None:
                    continue
                skill = _dedupe_name(skill, seen, entry.source, entry)
                entry.name = skill.name
                seen[skill.name] = entry.source
                skill.content_hash = content_hash(skill.skill_md, skill.files)
                if skill.name in known:
                    version, old_hash = known[skill.name]
                    if old_hash == skill.content_hash:
                        entry.status = "unchanged"
                    else:
                        entry.status = "updated"
                        writer.submit(lambda s=skill, v=version: store.update(
                            s.name, s, v, author=author, note="re-imported"))
                else:
                    entry.status = "imported"
                    pending.append(skill)
                    if len(pending) >= batch:
                        flush()
                done += 1
                if progress is not None and progress(done, entry.source) is False:
                    return report
        return report
    finally:
        flush()
        writer.close()


def _read_all(path: Path, origin: Origin, check_strict: bool,
              report: ImportReport) -> Iterator[tuple[ImportEntry, Skill | None]]:
    """Read and parse every skill under ``path``; each gets an entry in the report."""
    if not path.exists():
        report.entries.append(ImportEntry(str(path), "skipped", reason=f"{path}: no such file or folder"))
        return
    try:
        sources = _load_source(path)
        for source, folder_name, data, files, notes in sources:
            entry = ImportEntry(source, "skipped", warnings=list(notes))
            report.entries.append(entry)
            try:
                skill = build_skill(data, folder_name, files, origin=origin, source=source)
            except SkillParseError as e:
                entry.reason = str(e)
                yield entry, None
                continue
            if check_strict:
                entry.strict_errors, lenient_warnings = _diagnose(data, folder_name, files)
                entry.warnings.extend(lenient_warnings)
            yield entry, skill
    except (FolderError, SkillParseError, ValueError, OSError) as e:
        report.entries.append(ImportEntry(str(path), "skipped", reason=str(e)))


def _dedupe_name(skill: Skill, seen: dict[str, str], source: str, entry: ImportEntry) -> Skill:
    if skill.name not in seen:
        return skill
    n = 2
    while f"{skill.name}-{n}" in seen:
        n += 1
    new_name = f"{skill.name}-{n}"
    doc = skillmd.parse_document(skill.skill_md, source)
    text = set_field(doc, "name", new_name)
    entry.warnings.append(f'name "{skill.name}" is already taken in this import by '
                          f'{seen[skill.name]}; imported as "{new_name}"')
    content = skillmd.split(text, source).body
    return replace(skill, name=new_name, skill_md=text, content=content)


def _diagnose(data: bytes, folder_name: str, files: list[SkillFile]) -> tuple[list[str], list[str]]:
    """What strict would say (errors) and the lenient warnings, for the import report."""
    try:
        from skill_studio.core import validate
    except ImportError:  # pragma: no cover - validator not available
        return [], []
    paths = [f.path for f in files]
    strict = validate.validate_text(data, folder_name, "strict", files=paths, lints=False)
    lenient = validate.validate_text(data, folder_name, "lenient", files=paths, lints=True)
    return ([d.message for d in strict if d.severity == "error"],
            [d.message for d in lenient if d.severity == "warning"])


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

    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / _folder_name(skill)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=dest_dir))
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
        old = None
        if target.exists():
            old = dest_dir / f".{target.name}.old-{os.getpid()}"
            os.replace(target, old)
        os.replace(stage, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return target


def export_archive(skill: Skill, dest_dir: str | os.PathLike, suffix: str = ".zip") -> Path:
    """Write the skill as ``dest_dir/<folder><suffix>`` holding one ``<folder>/``; returns the path."""
    from skill_studio.core.archive import write_skill_archive

    folder = _folder_name(skill)
    Path(dest_dir).mkdir(parents=True, exist_ok=True)
    return write_skill_archive(Path(dest_dir) / f"{folder}{suffix}", folder, skill_files_with_md(skill))


def _folder_name(skill: Skill) -> str:
    name = skill.folder_name or skill.name
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise FolderError(f'"{skill.name}": cannot be written as a folder named {name!r}')
    return name
