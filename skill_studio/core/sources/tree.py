"""The skills in a commit's tree, found by the rules a folder walk follows (core.library.folders):
a skill is a folder holding a file named exactly SKILL.md, hidden folders count, ``.git`` and
``node_modules`` are skipped, and a skill folder is not searched further. A plugin marketplace
(``.claude-plugin/marketplace.json``) names the plugin each skill belongs to.

Only files go into a staged skill folder: links and submodules are left out with a note (a link
from a repository could point anywhere on this machine), and so is anything under ``.git``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from skill_studio.core.format.names import printable
from skill_studio.core.format.skill_paths import DRIVE_RE, safe_relative_path
from skill_studio.core.library.folders import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_FILES_PER_SKILL,
    MAX_SKILL_BYTES,
    SKIP_DIRS,
    SKIP_IN_SKILL,
)
from skill_studio.core.sources.git import Entry, blobs
from skill_studio.core.sources.spec import SourceError

MARKETPLACE = ".claude-plugin/marketplace.json"
MAX_SOURCE_BYTES = 2 * 1024 ** 3     # what one add may read from a repository
MAX_MARKETPLACE_BYTES = 1024 * 1024


@dataclass
class TreeSkill:
    """A skill folder of a tree: its path ("" for the tree's root), its files and what was left out."""

    path: str
    files: list[Entry] = field(default_factory=list)      # paths relative to the skill folder
    left_out: list[str] = field(default_factory=list)
    plugin: str | None = None
    problem_text: str | None = None   # found when staging (a crafted tree)

    @property
    def size(self) -> int:
        return sum(e.size for e in self.files)

    def problem(self) -> str | None:
        """Why the skill cannot be taken as a whole (too many files, too large), or None."""
        if self.problem_text:
            return self.problem_text
        if len(self.files) > MAX_FILES_PER_SKILL:
            return f"more than {MAX_FILES_PER_SKILL} files"
        big = next((e for e in self.files if e.size > MAX_FILE_BYTES), None)
        if big is not None:
            return f"{big.path} is larger than {MAX_FILE_BYTES // 2**20} MiB"
        if self.size > MAX_SKILL_BYTES:
            return f"larger than {MAX_SKILL_BYTES // 2**20} MiB"
        return None


def _skipped(parts: tuple[str, ...], skip: frozenset[str]) -> bool:
    return any(p in skip or p.lower() == ".git" for p in parts)


def _sound(path: str) -> bool:
    """Whether a path of a tree is one the studio writes inside a folder as it is (a crafted tree
    may hold "..", ".", empty names, backslashes, drive letters or control characters)."""
    try:
        return safe_relative_path(path) == path and not DRIVE_RE.match(path.split("/")[-1])
    except ValueError:
        return False


def _ancestors(path: str) -> list[str]:
    """The folders holding ``path``, nearest first, the tree's root ("") last."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)] + [""]


def find_skills(entries: list[Entry], under: str = "") -> list[TreeSkill]:
    """The skill folders of a tree listing (``entries``, as git.tree gives them for ``under``)."""
    base = len(PurePosixPath(under).parts) if under else 0
    folders: set[str] = set()
    for e in entries:
        parts = PurePosixPath(e.path).parts
        if parts[-1] != "SKILL.md" or not _sound(e.path) or _skipped(parts[:-1], SKIP_DIRS) \
                or len(parts) - 1 - base > MAX_DEPTH:
            continue
        folders.add("/".join(parts[:-1]))
    # a skill folder is not searched further
    chosen = sorted(f for f in folders if f == "" or not any(a in folders for a in _ancestors(f)))
    skills = {f: TreeSkill(f) for f in chosen}
    for e in entries:
        owner = next((a for a in _ancestors(e.path) if a in skills), None)
        if owner is None:
            continue
        rel = e.path[len(owner) + 1:] if owner else e.path
        skill = skills[owner]
        if _skipped(PurePosixPath(rel).parts[:-1], SKIP_IN_SKILL) or PurePosixPath(rel).name.lower() == ".git":
            continue
        if not _sound(e.path):
            skill.left_out.append(f"{printable(rel)}: left out (a name no file here may have)")
            continue
        if e.is_file:
            skill.files.append(Entry(rel, e.mode, e.sha, e.size))
        elif e.mode == 0o120000:
            skill.left_out.append(f"{printable(rel)}: left out (a link; links are never taken from a repository)")
        elif e.mode == 0o160000:
            skill.left_out.append(f"{printable(rel)}: left out (a submodule)")
    return [skills[f] for f in chosen]


def name_plugins(git_dir: Path, entries: list[Entry], skills: list[TreeSkill]) -> list[str]:
    """Set each skill's plugin from the tree's plugin marketplace, if it has one; lines for what
    in the marketplace file could not be read."""
    market = next((e for e in entries if e.path == MARKETPLACE and e.is_file), None)
    if market is None:
        return []
    if market.size > MAX_MARKETPLACE_BYTES:
        return [f"{MARKETPLACE}: larger than 1 MiB, not read"]
    try:
        data = json.loads(blobs(git_dir, [market.sha])[market.sha].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return [f"{MARKETPLACE}: not valid JSON ({e})"]
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, list):
        return [f"{MARKETPLACE}: has no list of plugins"]
    for plugin in plugins:   # a plugin's own list of skills, or else the skills under its folder
        if not isinstance(plugin, dict) or not isinstance(plugin.get("name"), str):
            continue
        listed, source = plugin.get("skills"), plugin.get("source")
        if isinstance(listed, list):
            roots = [r for r in listed if isinstance(r, str)]
            exact = True
        else:
            roots = [source] if isinstance(source, str) and source.startswith("./") else []
            exact = False
        for root in roots:
            clean = str(PurePosixPath(root)).removeprefix("./").strip("/")
            clean = "" if clean == "." else clean
            for skill in skills:
                inside = skill.path == clean if exact else (clean == "" or skill.path == clean
                                                            or skill.path.startswith(clean + "/"))
                if skill.plugin is None and inside:
                    skill.plugin = printable(plugin["name"])
    return []


def stage(git_dir: Path, skills: list[TreeSkill], dest: Path, fallback_name: str) -> dict[Path, TreeSkill]:
    """Write the files of ``skills`` under ``dest`` (a fresh folder), each skill in a folder of its
    own name (``fallback_name`` for a skill at the tree's root); the staged folders, each with its
    skill. SourceError when together they are more than an add may read."""
    total = sum(s.size for s in skills)
    if total > MAX_SOURCE_BYTES:
        raise SourceError(f"these skills hold {total / 2**30:.1f} GiB, more than the "
                          f"{MAX_SOURCE_BYTES // 2**30} GiB one add may take; name fewer with --skill")
    data = blobs(git_dir, [e.sha for s in skills for e in s.files])
    staged: dict[Path, TreeSkill] = {}
    made: set[Path] = set()
    for number, skill in enumerate(skills):
        name = PurePosixPath(skill.path).name if skill.path else fallback_name
        folder = dest / str(number) / name
        try:
            folder.mkdir(parents=True)
            for e in skill.files:
                target = folder.joinpath(*PurePosixPath(e.path).parts)
                if target.parent not in made:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o755 if e.executable else 0o644)
                with os.fdopen(fd, "wb") as out:
                    out.write(data[e.sha])
        except OSError as err:   # a crafted tree: a name twice, a file and a folder of one name
            where = Path(str(err.filename or ""))
            name = str(where.relative_to(folder)) if where.is_relative_to(folder) else skill.path
            skill.problem_text = f"its files cannot be written as a folder ({err.strerror or err}: {printable(name)})"
            continue
        staged[folder] = skill
    return staged


__all__ = ["MARKETPLACE", "MAX_SOURCE_BYTES", "TreeSkill", "find_skills", "name_plugins", "stage"]
