"""A source as it is now: fetched (a git source) or walked (a folder), its skill folders found and,
for git, written to a temporary folder so that the import rules read them as they read any
folder. A snapshot lives for a ``with`` block; its temporary files go with it."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from skill_studio.core.library.folders import discover, read_folder
from skill_studio.core.model import SkillFile
from skill_studio.core.sources import git, tree
from skill_studio.core.sources.spec import SourceError, SourceSpec


@dataclass
class Item:
    """One skill folder of a source."""

    path: str                 # inside the source ("" for its root)
    folder: Path              # where it can be read now (staged, or the folder itself)
    plugin: str | None = None
    left_out: list[str] = field(default_factory=list)
    problem: str | None = None   # why it cannot be taken (too large, too many files)


@dataclass
class Snapshot:
    spec: SourceSpec
    commit: str | None        # the commit read (None for a folder)
    items: list[Item]
    problems: list[str]

    def by_path(self) -> dict[str, Item]:
        return {i.path: i for i in self.items}


def folder_hash(md: bytes, files: list[SkillFile], md_name: str = "SKILL.md") -> str:
    """The hash of a skill folder's files, in path order: each path, whether it is executable, its
    length and its bytes, so that no two different folders give one hash. The lock file's
    ``computedHash``, the same whether the files are on disk, in a repository or stored."""
    h = hashlib.sha256()
    entries = [(md_name, md, False), *((f.path, f.data, bool(f.mode & 0o111)) for f in files)]
    for path, data, executable in sorted(entries, key=lambda e: e[0]):
        h.update(f"{path}\0{'x' if executable else '-'}\0{len(data)}\0".encode("utf-8", "surrogateescape"))
        h.update(data)
    return h.hexdigest()


def read_item(item: Item) -> tuple[bytes, list[SkillFile], str]:
    """SKILL.md's bytes, the other files and the folder hash of an item. Raises FolderError or
    OSError as read_folder does."""
    md_path, data, files, _notes = read_folder(item.folder, refuse_outside_links=True)
    return data, files, folder_hash(data, files, md_path.name)


def cache_root(store) -> Path:
    """Where the bare repositories fetched for ``store`` are kept: ``<store file>-sources``."""
    return Path(f"{store.path}-sources")


def repository_name(spec: SourceSpec) -> str:
    """A folder name for a skill at the very root of a repository: the repository's own name."""
    tail = spec.url.rstrip("/").removesuffix(".git").replace(":", "/").rsplit("/", 1)[-1]
    return tail or "skill"


@contextmanager
def snapshot(store, spec: SourceSpec, *, interactive: bool = False, wanted_paths: set[str] | None = None
             ) -> Iterator[Snapshot]:
    """The source now. ``wanted_paths``: stage only the skill folders at these paths (all when None;
    the others are still listed). Raises SourceError or git.GitError."""
    if not spec.is_git:
        root = Path(spec.url) / spec.path if spec.path else Path(spec.url)
        if not root.is_dir():
            raise SourceError(f"{root}: no such folder")
        problems: list[str] = []
        items = [Item(str(PurePosixPath(*f.relative_to(spec.url).parts)) if f != Path(spec.url) else "", f)
                 for f in discover(root, problems=problems)]
        yield Snapshot(spec, None, items, problems)
        return
    git_dir, commit = git.RepoCache(cache_root(store)).fetch(spec.url, spec.ref, interactive=interactive)
    entries, problems = git.tree(git_dir, commit, spec.path)
    if spec.path and not entries:
        raise SourceError(f"{spec.describe()}: there is no folder {spec.path} at commit {commit[:12]}")
    found = tree.find_skills(entries, spec.path)
    if wanted_paths:   # a skill followed from a path inside another skill's folder, or deeper than a walk goes
        known = {s.path for s in found}
        for path in sorted(wanted_paths - known):
            inner = [e for e in entries if e.path.startswith(path + "/")]
            if any(e.path == f"{path}/SKILL.md" for e in inner):
                found += [s for s in tree.find_skills(inner, path) if s.path == path]
    problems += tree.name_plugins(git_dir, git.tree(git_dir, commit, tree.MARKETPLACE)[0], found)
    staging = Path(tempfile.mkdtemp(prefix="skill-studio-source-"))
    try:
        take = [s for s in found if (wanted_paths is None or s.path in wanted_paths) and s.problem() is None]
        staged = {id(s): folder for folder, s in tree.stage(git_dir, take, staging, repository_name(spec)).items()}
        items = []
        for s in found:
            item = Item(s.path, staged.get(id(s), staging / "-"), s.plugin, list(s.left_out), s.problem())
            items.append(item)
        yield Snapshot(spec, commit, items, problems)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def describe_source(spec: SourceSpec, commit: str | None) -> str:
    """How a version note names where a skill came from: ``owner/repo@1a2b3c4d5e6f`` or the folder."""
    return f"{spec.source}@{commit[:12]}" if commit else spec.source


__all__ = ["Item", "Snapshot", "cache_root", "describe_source", "folder_hash", "read_item", "repository_name",
           "snapshot"]
