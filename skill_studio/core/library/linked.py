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

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from skill_studio.core.format.skillmd import SkillParseError
from skill_studio.core.library.archive import skill_file_mode
from skill_studio.core.library.atomic import is_staging
from skill_studio.core.library.folders import FolderError, build_skill, discover, find_skill_md, read_folder
from skill_studio.core.library.linked_write import write_folder
from skill_studio.core.model import Origin
from skill_studio.core.store import Store, StoreError
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
    disk_hash: str = ""    # both sides as they were shown: resolve refuses if either changed since
    store_hash: str = ""


@dataclass
class SyncReport:
    folder: str
    imported: list[str] = field(default_factory=list)      # new or changed on disk, now in the store
    written: list[str] = field(default_factory=list)       # changed in the studio, now on disk
    conflicts: list[Conflict] = field(default_factory=list)
    gone_on_disk: list[str] = field(default_factory=list)  # folders removed on disk (skills kept)
    gone_in_store: list[str] = field(default_factory=list)  # skills deleted in the studio (folders kept)
    renamed: list[str] = field(default_factory=list)       # "old → new", renamed on disk (old kept in the store)
    errors: list[str] = field(default_factory=list)        # folders that could not be read, with file and line

    @property
    def changed(self) -> bool:
        return bool(self.imported or self.written or self.gone_on_disk or self.gone_in_store or self.renamed)


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


_READ_ERRORS = (FolderError, SkillParseError, OSError, ValueError)
#: A skill folder to import: (relative path, path, its contents' hash on disk, its signature).
_NewFolder = tuple[str, Path, str, str]


def _signature(path: Path) -> str:
    """A hash of the names, sizes, times and modes of everything in a skill folder: when it is
    the same as at the last sync, the folder is taken as unchanged without reading it."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            h.update(f"{os.path.relpath(os.path.join(root, name), path)}\0{st.st_size}\0{st.st_mtime_ns}\0"
                     f"{st.st_mode}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _disk(path: Path):
    """(the skill as the import would read it, its content hash) of a skill folder on disk.
    Raises the errors in _READ_ERRORS, naming the file (and line)."""
    md, data, files, _notes = read_folder(path)
    files = [replace(f, mode=skill_file_mode(f.mode)) for f in files]   # as an import stores them
    skill = build_skill(data, path.name, files, origin=Origin.HUMAN, source=str(md))
    return skill, content_hash(skill.skill_md, skill.files)


def sync(store: Store, folder: str | os.PathLike | None = None) -> list[SyncReport]:
    """Bring one linked folder (or every one) and the store in step; see the module docstring."""
    links = _links(store)
    keys = [_key(folder)] if folder is not None else sorted(links)
    for key in keys:
        if key not in links:
            raise LinkError(f"{folder}: not linked to this store")
    reports = []
    try:
        for key in keys:
            reports.append(_Sync(store, key, links[key]).run())
    finally:   # what was done is recorded, even when something failed on the way
        store.set_setting(SETTING, links)
        from skill_studio.core.library.managed import refresh  # links installed elsewhere follow

        refresh(store, {name for r in reports for name in (*r.imported, *(x.split(" → ")[-1] for x in r.renamed))})
    return reports


class _Sync:
    """One linked folder's sync. Each record: the skill's name, the content hashes on disk and in
    the store at the last sync, the folder's signature, and "deleted" once the studio deleted it."""

    def __init__(self, store: Store, key: str, state: dict):
        self.store, self.key = store, key
        self.root = Path(key)
        self.known: dict = state.setdefault("skills", {})
        for rec in self.known.values():   # records of an earlier form: one hash for both sides
            if "hash" in rec:
                rec["disk"] = rec["store"] = rec.pop("hash")
        self.report = SyncReport(key)

    def run(self) -> SyncReport:
        r = self.report
        if not self.root.is_dir():
            r.errors.append(f"{self.key}: the linked folder is gone (nothing changed in the store)")
            return r
        on_disk = {}
        for p in discover(self.root):
            rel = str(p.relative_to(self.root)) if p != self.root else "."
            if not any(is_staging(part) for part in Path(rel).parts):
                on_disk[rel] = p
        hashes = {n: v[1] for n, v in self.store.import_state().items()}
        read: dict[str, tuple] = {}
        for rel, path in on_disk.items():
            rec = self.known.get(rel)
            try:
                sig = _signature(path)
                if rec is not None and rec.get("sig") == sig:
                    continue   # unchanged on disk: not read
                skill, disk_hash = _disk(path)
                read[rel] = (skill, disk_hash, sig)
            except _READ_ERRORS as e:
                r.errors.append(str(e))
        names: dict[str, list[str]] = {}
        for rel in on_disk:
            if rel in read:
                names.setdefault(read[rel][0].name, []).append(rel)
            elif rel in self.known and not self.known[rel].get("deleted"):
                names.setdefault(self.known[rel]["name"], []).append(rel)
        clashes = {rel for rels in names.values() if len(rels) > 1 for rel in rels}
        for rel in sorted(clashes & set(read)):
            others = [x for x in names[read[rel][0].name] if x != rel]
            r.errors.append(f"{on_disk[rel] / 'SKILL.md'}: the same name as {', '.join(others)} in this folder; "
                            "neither is synced until one is renamed")
        new: list[_NewFolder] = []
        for rel, (skill, disk_hash, sig) in read.items():
            if rel in clashes:
                continue
            try:
                if rel in self.known and not self.known[rel].get("deleted"):
                    self._known(rel, on_disk[rel], skill, disk_hash, sig, hashes)
                else:
                    self._new(rel, on_disk[rel], skill, disk_hash, sig, hashes, new)
            except (*_READ_ERRORS, StoreError) as e:
                r.errors.append(f"{on_disk[rel]}: {e}")
        self._import_new(new)
        for rel in sorted(set(self.known) - set(read) - clashes):
            if rel in on_disk:   # unchanged on disk: the store side may have changed
                try:
                    self._store_side(rel, on_disk[rel], hashes)
                except (*_READ_ERRORS, StoreError) as e:
                    r.errors.append(f"{on_disk[rel]}: {e}")
            else:
                rec = self.known.pop(rel)
                if not rec.get("deleted"):
                    r.gone_on_disk.append(rec["name"])
        return r

    def _current_name(self, rec: dict, path: Path, hashes: dict) -> str | None:
        """The record's skill in the store now (following a rename made in the studio), or None
        when the studio deleted it: the record then keeps the folder out until it changes."""
        if rec["name"] in hashes:
            return rec["name"]
        md = find_skill_md(path)
        renamed = self.store.names_from([str(md)]).get(str(md)) if md else None
        if renamed in hashes:
            rec["name"] = renamed
            return renamed
        if not rec.get("deleted"):
            rec["deleted"] = True
            self.report.gone_in_store.append(rec["name"])
        return None

    def _store_side(self, rel: str, path: Path, hashes: dict) -> None:
        rec = self.known[rel]
        if rec.get("deleted"):
            return
        name = self._current_name(rec, path, hashes)
        if name is not None and hashes[name] != rec["store"]:   # saved in the studio
            self._write(rec, name, path, hashes[name])

    def _known(self, rel: str, path: Path, skill, disk_hash: str, sig: str, hashes: dict) -> None:
        rec = self.known[rel]
        name = self._current_name(rec, path, hashes)
        if name is None:
            return
        disk_changed, store_changed = disk_hash != rec["disk"], hashes[name] != rec["store"]
        if disk_changed and skill.name != name:   # renamed on disk: a new skill, the old one stays
            entry = self._import(path)
            self.report.renamed.append(f"{name} → {entry.name}")
            rec.update(name=entry.name, disk=disk_hash, store=self.store.import_state()[entry.name][1], sig=sig)
        elif disk_changed and store_changed and disk_hash != hashes[name]:
            self._conflict(rel, name, skill, disk_hash, hashes[name])   # the folder is read again next time
        elif disk_changed:
            if disk_hash != hashes[name]:
                self._import(path)
                self.report.imported.append(name)
            rec.update(disk=disk_hash, store=self.store.import_state()[name][1], sig=sig)
        elif store_changed:
            self._write(rec, name, path, hashes[name])
        else:
            rec["sig"] = sig

    def _new(self, rel: str, path: Path, skill, disk_hash: str, sig: str, hashes: dict,
             new: list[_NewFolder]) -> None:
        """A folder seen for the first time (or again after the studio deleted its skill)."""
        rec = self.known.get(rel)
        if rec is not None and rec.get("deleted") and rec.get("disk") == disk_hash:
            rec["sig"] = sig   # still the folder of a skill the studio deleted: left alone
            return
        name = skill.name
        if name in hashes and hashes[name] != disk_hash:
            md = find_skill_md(path)
            ours = self.store.names_from([str(md)]).get(str(md)) == name if md else False
            if not ours:   # the library already has a different skill of that name
                self.known[rel] = {"name": name, "disk": "", "store": "", "sig": sig}
                self._conflict(rel, name, skill, disk_hash, hashes[name])
                return
        if name in hashes and hashes[name] == disk_hash:
            self.known[rel] = {"name": name, "disk": disk_hash, "store": disk_hash, "sig": sig}
            return
        new.append((rel, path, disk_hash, sig))

    def _import_new(self, new: list[_NewFolder]) -> None:
        """Import the new folders in one import (its batches), and record each."""
        from skill_studio.core.library.importer import import_paths

        if not new:
            return
        by_source = {}
        for rel, path, disk_hash, sig in new:
            md = find_skill_md(path)
            by_source[str(md)] = (rel, disk_hash, sig)
        report = import_paths(self.store, [path for _rel, path, _h, _s in new])
        state = self.store.import_state()
        for entry in report.entries:
            found = by_source.get(entry.source)
            if found is None:
                continue
            rel, disk_hash, sig = found
            if entry.status == "skipped" or not entry.name:
                self.report.errors.append(entry.reason or f"{entry.source}: not imported")
                continue
            self.known[rel] = {"name": entry.name, "disk": disk_hash, "store": state[entry.name][1], "sig": sig}
            if entry.status != "unchanged":
                self.report.imported.append(entry.name)

    def _import(self, path: Path):
        from skill_studio.core.library.importer import import_paths

        entry = import_paths(self.store, [path]).entries[0]
        if entry.status == "skipped" or not entry.name:
            raise StoreError(entry.reason or "not imported")
        return entry

    def _write(self, rec: dict, name: str, path: Path, store_hash: str) -> None:
        skill, disk_hash = _disk(path)   # read again: never write over a change the signature missed
        if disk_hash == store_hash:
            rec.update(disk=disk_hash, store=store_hash, sig=_signature(path))
            return
        if disk_hash != rec["disk"]:
            self._conflict(str(path.relative_to(self.root)) if path != self.root else ".", name, skill, disk_hash,
                           store_hash)
            rec.pop("sig", None)
            return
        rec.update(disk=write_back(self.store.get(name), path), store=store_hash, sig=_signature(path))
        self.report.written.append(name)

    def _conflict(self, rel: str, name: str, skill, disk_hash: str, store_hash: str) -> None:
        self.report.conflicts.append(Conflict(self.key, rel, name, skill.skill_md, self.store.get(name).skill_md,
                                              disk_hash, store_hash))


def write_back(skill, path: Path) -> str:
    """Write a stored skill into its folder (core.library.linked_write); returns the content hash now on disk."""
    write_folder(skill, path)
    try:
        return _disk(path)[1]
    except _READ_ERRORS:
        return ""


def resolve(store: Store, conflict: Conflict, keep: str) -> None:
    """End a conflict: ``keep`` "disk" imports the folder over the store's version, "studio"
    writes the store's version over the folder. Refused (LinkError) when either side changed
    again since the conflict was shown: sync, and look again."""
    from skill_studio.core.library.importer import import_paths

    if keep not in ("disk", "studio"):
        raise ValueError('keep "disk" or "studio"')
    links = _links(store)
    state = links.get(conflict.folder)
    if state is None or conflict.path not in state.get("skills", {}):
        raise LinkError(f"{conflict.folder}: {conflict.path} is not a linked skill any more")
    path = Path(conflict.folder) / conflict.path if conflict.path != "." else Path(conflict.folder)
    rec = state["skills"][conflict.path]
    try:
        disk_hash = _disk(path)[1]
        store_hash = store.get(conflict.name, with_files=False).content_hash
    except (*_READ_ERRORS, StoreError) as e:
        raise LinkError(f"{path}: {e}") from None
    if conflict.disk_hash and (disk_hash, store_hash) != (conflict.disk_hash, conflict.store_hash):
        raise LinkError(f"{conflict.name} changed again since both versions were shown; nothing was overwritten. "
                        "Sync and look again.")
    if keep == "disk":
        entry = import_paths(store, [path], origin=Origin.HUMAN).entries[0]
        if entry.status == "skipped" or not entry.name:   # (an entry not skipped has its name)
            raise LinkError(entry.reason or f"{path}: not imported")
        rec.update(name=entry.name, disk=disk_hash, store=store.get(entry.name, with_files=False).content_hash)
    else:
        try:
            written = write_back(store.get(conflict.name), path)
        except (*_READ_ERRORS, StoreError) as e:
            raise LinkError(f"{path}: {e}") from None
        rec.update(name=conflict.name, disk=written, store=store_hash)
    rec.pop("deleted", None)
    rec["sig"] = _signature(path)
    store.set_setting(SETTING, links)


__all__ = ["Conflict", "LinkError", "SETTING", "SyncReport", "link", "linked_folders", "resolve", "sync", "unlink",
           "write_back"]
