"""Linked folders: a store kept in step with a folder of skills (typically a checkout of a team's
skills repository). No version-control command is ever run; the folder is just files.

Linking imports every skill folder under it. From then on, each sync compares, for every skill
folder, three things: its contents on disk, the skill in the store, and the contents both had at
the last sync (recorded in the store's settings, so the link survives restarts):

- only the disk changed: the skill is imported again (a new version in the store);
- only the store changed (saved in the studio): the folder is written back, built beside the
  old one and swapped in, so a reader never sees half of it; files the import leaves out
  (links, caches) are kept;
- both changed, differently: a conflict. Nothing is overwritten; ``resolve`` keeps one side.

A skill folder that appears on disk is imported; one that disappears is reported and its skill
stays in the store; a skill deleted in the studio is reported and its folder stays on disk.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from skill_studio.core.folders import FolderError, build_skill, discover, read_folder, skill_files_with_md
from skill_studio.core.model import Origin
from skill_studio.core.skillmd import SkillParseError
from skill_studio.core.store import NotFound, Store
from skill_studio.core.store.rows import content_hash

SETTING = "linked.folders"   # {folder: {"skills": {relative path: {"name": ..., "hash": ...}}}}


class LinkError(Exception):
    """A folder cannot be linked, unlinked or synced (not a folder, not linked)."""


@dataclass(frozen=True)
class Conflict:
    """A skill changed both on disk and in the studio since the last sync."""

    folder: str        # the linked folder
    path: str          # the skill folder, relative to it
    name: str
    disk_text: str     # SKILL.md as it is on disk
    store_text: str    # SKILL.md as the store has it


@dataclass
class SyncReport:
    folder: str
    imported: list[str] = field(default_factory=list)      # new or changed on disk, now in the store
    written: list[str] = field(default_factory=list)       # changed in the studio, now on disk
    conflicts: list[Conflict] = field(default_factory=list)
    gone_on_disk: list[str] = field(default_factory=list)  # folders removed on disk (skills kept)
    gone_in_store: list[str] = field(default_factory=list)  # skills deleted in the studio (folders kept)
    errors: list[str] = field(default_factory=list)        # folders that could not be read, with file and line

    @property
    def changed(self) -> bool:
        return bool(self.imported or self.written or self.gone_on_disk or self.gone_in_store)


def _links(store: Store) -> dict:
    value = store.setting(SETTING, {})
    return value if isinstance(value, dict) else {}


def linked_folders(store: Store) -> list[str]:
    return sorted(_links(store))


def _key(folder: str | os.PathLike) -> str:
    return str(Path(folder).expanduser().resolve())


def link(store: Store, folder: str | os.PathLike) -> SyncReport:
    """Link a folder of skills to the store and import it (a folder already linked is synced)."""
    key = _key(folder)
    if not Path(key).is_dir():
        raise LinkError(f"{folder}: not a folder")
    links = _links(store)
    links.setdefault(key, {"skills": {}})
    store.set_setting(SETTING, links)
    return sync(store, key)[0]


def unlink(store: Store, folder: str | os.PathLike) -> None:
    """Stop keeping a folder in step (its skills stay in the store, its files on disk)."""
    key = _key(folder)
    links = _links(store)
    if key not in links:
        raise LinkError(f"{folder}: not linked to this store")
    del links[key]
    store.set_setting(SETTING, links)


def _disk(path: Path) -> tuple[str, str, list] | str:
    """(SKILL.md text, content hash, files) of a skill folder on disk, or why it cannot be read."""
    try:
        md, data, files, _notes = read_folder(path)
        skill = build_skill(data, path.name, files, origin=Origin.HUMAN, source=str(md))
    except (FolderError, SkillParseError, OSError) as e:
        return str(e)
    # As the import reads it, so that a folder the import took reads as unchanged.
    return skill.skill_md, content_hash(skill.skill_md, skill.files), skill.files


def sync(store: Store, folder: str | os.PathLike | None = None) -> list[SyncReport]:
    """Bring one linked folder (or every one) and the store in step; see the module docstring."""
    links = _links(store)
    keys = [_key(folder)] if folder is not None else sorted(links)
    for key in keys:
        if key not in links:
            raise LinkError(f"{folder}: not linked to this store")
    reports = [_sync_one(store, key, links[key]) for key in keys]
    store.set_setting(SETTING, links)
    return reports


def _sync_one(store: Store, key: str, state: dict) -> SyncReport:
    from skill_studio.core.importer import import_paths

    report = SyncReport(key)
    root = Path(key)
    known: dict = state.setdefault("skills", {})
    if not root.is_dir():
        report.errors.append(f"{key}: the linked folder is gone (nothing changed in the store)")
        return report
    on_disk = {str(p.relative_to(root)) if p != root else ".": p for p in discover(root)}
    for rel, path in on_disk.items():
        disk = _disk(path)
        if isinstance(disk, str):
            report.errors.append(disk)
            continue
        text, disk_hash, _files = disk
        rec = known.get(rel)
        if rec is None:   # new on disk
            entry = import_paths(store, [path]).entries[0]
            if entry.status == "skipped":
                report.errors.append(entry.reason or f"{path}: not imported")
                continue
            known[rel] = {"name": entry.name, "hash": disk_hash}
            if entry.status != "unchanged":
                report.imported.append(entry.name)
            continue
        name, last = rec["name"], rec["hash"]
        try:
            skill = store.get(name)
        except NotFound:
            report.gone_in_store.append(name)
            del known[rel]
            continue
        if disk_hash == last and skill.content_hash == last:
            continue
        if skill.content_hash == last or disk_hash == skill.content_hash:   # only the disk changed
            if disk_hash != skill.content_hash:
                entry = import_paths(store, [path]).entries[0]
                if entry.status == "skipped":
                    report.errors.append(entry.reason or f"{path}: not imported")
                    continue
                report.imported.append(name)
            rec["hash"] = disk_hash
        elif disk_hash == last:   # only the store changed
            rec["hash"] = write_back(skill, path)
            report.written.append(name)
        else:
            report.conflicts.append(Conflict(key, rel, name, text, skill.skill_md))
    for rel in sorted(set(known) - set(on_disk)):
        report.gone_on_disk.append(known.pop(rel)["name"])
    return report


def write_back(skill, path: Path) -> str:
    """Write a stored skill into its folder on disk: a copy of the folder with the skill's files
    written and its removed files deleted, swapped in for the old one (what the import leaves
    out, such as links, stays). Returns the content hash now on disk."""
    path = Path(path)
    stage = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    old = None
    try:
        staged = stage / "skill"
        shutil.copytree(path, staged, symlinks=True)
        before = read_folder(path)
        wanted = {f.path: f for f in skill_files_with_md(skill)}
        md_name = before[0].name
        for f in before[2]:
            if f.path not in wanted:
                (staged / f.path).unlink()
        if md_name not in wanted and "SKILL.md" in wanted:   # written under the name found on disk
            wanted[md_name] = wanted.pop("SKILL.md")
        for rel, f in wanted.items():
            out = staged / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if out.is_symlink():
                out.unlink()
            with open(out, "wb") as fh:
                fh.write(f.data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(out, f.mode & 0o777 or 0o644)
        old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent))
        os.replace(path, old / "skill")
        try:
            os.replace(staged, path)
        except BaseException:
            os.replace(old / "skill", path)
            raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    disk = _disk(path)
    return disk[1] if not isinstance(disk, str) else ""


def resolve(store: Store, conflict: Conflict, keep: str) -> None:
    """End a conflict: ``keep`` "disk" imports the folder over the store's version, "studio"
    writes the store's version over the folder. Either way the other side's text is in the
    store's history or was on disk only: the caller should have shown it."""
    from skill_studio.core.importer import import_paths

    if keep not in ("disk", "studio"):
        raise ValueError('keep "disk" or "studio"')
    links = _links(store)
    state = links.get(conflict.folder)
    if state is None or conflict.path not in state.get("skills", {}):
        raise LinkError(f"{conflict.folder}: {conflict.path} is not a linked skill any more")
    path = Path(conflict.folder) / conflict.path if conflict.path != "." else Path(conflict.folder)
    rec = state["skills"][conflict.path]
    if keep == "disk":
        entry = import_paths(store, [path], origin=Origin.HUMAN).entries[0]
        if entry.status == "skipped":
            raise LinkError(entry.reason or f"{path}: not imported")
        rec["hash"] = store.get(rec["name"], with_files=False).content_hash
    else:
        rec["hash"] = write_back(store.get(rec["name"]), path)
    store.set_setting(SETTING, links)


__all__ = ["Conflict", "LinkError", "SETTING", "SyncReport", "link", "linked_folders", "resolve", "sync", "unlink",
           "write_back"]
