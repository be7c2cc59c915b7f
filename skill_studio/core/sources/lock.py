"""``skills-lock.json``: the skills a project uses and where each came from, checked in beside the
project so that the same skills can be restored elsewhere.

The file is the one the ``skills`` tool keeps: ``{"version": 1, "skills": {NAME: {"source",
"sourceType", "computedHash", …}}}``, skills in name order, two-space JSON and a final newline, no
times, so that two branches adding different skills merge cleanly and a review diff shows only
what changed. Beside the tool's fields the studio writes ``skillPath`` (the skill's folder in its
source) and ``commit`` (the exact commit taken), so a restore takes the very files that were
locked. A skill made in the studio has ``sourceType`` "studio": it can be restored only from a
library that holds it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from skill_studio.core.library.folder_write import skill_files_with_md
from skill_studio.core.model import Skill
from skill_studio.core.sources.snapshot import folder_hash

LOCK_FILE = "skills-lock.json"
VERSION = 1
STUDIO = "studio"


class LockError(ValueError):
    """A lock file that cannot be read (the message names the file and the line)."""


@dataclass(frozen=True)
class LockEntry:
    name: str
    source: str
    source_type: str          # github, git, local or studio
    computed_hash: str
    skill_path: str = ""
    ref: str | None = None
    commit: str | None = None

    def as_json(self) -> dict[str, str]:
        out = {"source": self.source}
        if self.ref:
            out["ref"] = self.ref
        out["sourceType"] = self.source_type
        if self.skill_path:
            out["skillPath"] = self.skill_path
        if self.commit:
            out["commit"] = self.commit
        out["computedHash"] = self.computed_hash
        return out


def skill_hash(skill: Skill) -> str:
    """The ``computedHash`` of a skill as it is installed: every file, SKILL.md included."""
    files = skill_files_with_md(skill)
    return folder_hash(files[0].data, files[1:], files[0].path)


def tool_hash(skill: Skill) -> str:
    """The ``computedHash`` the ``skills`` tool writes for the same folder (each path, then its
    bytes, in path order), so a lock file it wrote is checked too."""
    h = hashlib.sha256()
    for f in sorted(skill_files_with_md(skill), key=lambda f: f.path):
        h.update(f.path.encode("utf-8"))
        h.update(f.data)
    return h.hexdigest()


def holds(skill: Skill, computed_hash: str) -> bool:
    """Whether ``skill`` has the files a lock entry's hash names (the studio's hash or the tool's)."""
    return computed_hash in (skill_hash(skill), tool_hash(skill))


def entry_for(store, skill: Skill) -> LockEntry:
    """The lock entry of a stored skill: its source when it came from one, else the studio."""
    records = store.source_records([skill.name])
    if not records:
        return LockEntry(skill.name, STUDIO, STUDIO, skill_hash(skill))
    r = records[0]
    return LockEntry(skill.name, r.source, r.source_type, skill_hash(skill), r.path, r.ref, r.commit)


def lock_path(project: str | os.PathLike) -> Path:
    return Path(project) / LOCK_FILE


def read_lock(project: str | os.PathLike) -> dict[str, LockEntry]:
    """The entries of the project's lock file ({} when it has none)."""
    path = lock_path(project)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise LockError(f"{path}: cannot be read ({e})") from None
    if "\n<<<<<<<" in "\n" + text:
        raise LockError(f"{path}:{_line_of(text, '<<<<<<<')}: holds a merge conflict; resolve it (each side's "
                        "skills, one entry per name) and try again")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise LockError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        raise LockError(f"{path}:1: not a skills lock file (it needs an object with \"skills\")")
    entries: dict[str, LockEntry] = {}
    for name, raw in data["skills"].items():
        where = f"{path}:{_line_of(text, json.dumps(name))}"
        if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in ("source", "sourceType")):
            raise LockError(f"{where}: the entry of {name!r} needs \"source\" and \"sourceType\"")
        wrong = [k for k in ("computedHash", "skillPath", "ref", "commit") if k in raw and not isinstance(raw[k], str)]
        if wrong:
            raise LockError(f"{where}: in the entry of {name!r}, {', '.join(wrong)} must be text")
        entries[name] = LockEntry(name, raw["source"], raw["sourceType"], raw.get("computedHash", ""),
                                  raw.get("skillPath", ""), raw.get("ref") or None, raw.get("commit") or None)
    return entries


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def write_lock(project: str | os.PathLike, entries: dict[str, LockEntry]) -> Path:
    """Write the lock file (sorted, stable) in one step: a reader never sees half of it."""
    path = lock_path(project)
    body = {"version": VERSION, "skills": {name: entries[name].as_json() for name in sorted(entries)}}
    text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".skills-lock-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def lock_skills(store, project: str | os.PathLike, names: list[str]) -> Path:
    """Record the named stored skills in the project's lock file (other entries kept)."""
    entries = read_lock(project)
    for name in names:
        entries[name] = entry_for(store, store.get(name))
    return write_lock(project, entries)


def unlock_skills(project: str | os.PathLike, names: list[str]) -> Path | None:
    """Drop the named skills from the project's lock file, if it has one."""
    if not lock_path(project).exists():
        return None
    entries = read_lock(project)
    for name in names:
        entries.pop(name, None)
    return write_lock(project, entries)


__all__ = ["LOCK_FILE", "LockEntry", "LockError", "STUDIO", "entry_for", "holds", "lock_path", "lock_skills",
           "read_lock", "skill_hash", "tool_hash", "unlock_skills", "write_lock"]
