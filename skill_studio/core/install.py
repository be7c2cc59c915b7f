"""Installing skills into an agent's skill folder (``.claude/skills/``, ``.agents/skills/``,
``<workspace>/.skills/`` or any folder), keeping track of what was installed.

Each skill becomes ``<folder>/<name>/``. By default it is a read-only copy, so an agent cannot
change the library behind the reviewer's back; on request it is a symbolic link to the skill's
own folder on disk instead (edits made through the link change that folder, which the studio
imports from). A manifest in the folder (MANIFEST) records, for each skill the studio
installed, the version and content hash it came from, how it was installed and the hash of each
file written, so that:

- an installed copy whose skill has changed in the store since is reported stale, and one whose
  files were changed on disk is reported modified;
- updating or removing touches only what the studio installed: other folders there are never
  written or deleted.

Every folder is built beside its target and swapped in (core.folders.export_folder); the
manifest is written atomically after the skills.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable

from skill_studio.core import scores
from skill_studio.core.folders import export_folder, skill_files_with_md
from skill_studio.core.store import NotFound, Store

MANIFEST = ".skill-studio-install.json"
COPY, LINK = "copy", "link"
LINK_WARNING = ("a linked skill is the library's own folder: edits made through the link change the library "
                "(the studio re-imports them), and the gate cannot take it back from the agent")


class InstallError(Exception):
    """Something in the target folder stops an install; nothing of it was changed."""


@dataclass(frozen=True)
class Installed:
    """One skill of a target folder as the manifest and the store see it."""

    name: str
    mode: str                  # COPY or LINK
    version: int               # the version installed
    current_version: int | None   # the store's now (None: no longer in the store)
    state: str                 # "current", "stale", "modified", "missing" (folder gone), "removed from store"
    detail: str = ""


@dataclass
class InstallReport:
    installed: list[str]       # written (new or updated)
    unchanged: list[str]       # already current
    removed: list[str]         # taken out (pruned or uninstalled)
    skipped: dict[str, str]    # name -> why it was not installed
    warnings: list[str]


def _file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_manifest(folder: str | os.PathLike) -> dict:
    """The manifest of a target folder ({} when it has none). Raises InstallError when it is not
    one of ours (not JSON, not a mapping)."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        return {"skills": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InstallError(f"{path}: not a readable install manifest ({e}); move it away to install here") from None
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        raise InstallError(f"{path}: not an install manifest of Skill Studio; move it away to install here")
    return data


def _write_manifest(folder: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".manifest.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=2, sort_keys=True)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, folder / MANIFEST)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _writable(path: Path) -> None:
    """Give back the owner's write permission in a read-only installed copy (to replace or remove it)."""
    if path.is_symlink() or not path.is_dir():
        return
    for root, dirs, _files in os.walk(path):
        os.chmod(root, stat.S_IMODE(os.lstat(root).st_mode) | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
        for d in dirs:
            p = os.path.join(root, d)
            if not os.path.islink(p):
                os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)


def _read_only(path: Path) -> None:
    for root, dirs, files in os.walk(path, topdown=False):
        for f in files:
            p = os.path.join(root, f)
            os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) & ~0o222)
        for d in dirs:
            p = os.path.join(root, d)
            os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) & ~0o222)
    os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~0o222)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        _writable(path)
        shutil.rmtree(path)


def _source_folder(skill) -> Path | None:
    """The skill's own folder on disk (where its SKILL.md was imported from), or None."""
    if skill.source_path and "!" not in skill.source_path:
        md = Path(skill.source_path)
        if md.is_file():
            return md.resolve().parent
    return None


def install(store: Store, folder: str | os.PathLike, names: Iterable[str] | None = None, *, link: bool = False,
            prune: bool = False) -> InstallReport:
    """Install skills into ``folder`` (created if needed): the named ones, or every skill that
    passes the gate. Skills already installed and current are left as they are; stale ones are
    replaced. With ``prune``, skills this folder's manifest lists that are not in the set are
    removed. A folder or file there that the studio did not install is never touched: a skill of
    that name is skipped."""
    from skill_studio.core import matching

    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(target)
    entries: dict = manifest["skills"]
    wanted = list(dict.fromkeys(names)) if names is not None else matching.gated(store)
    report = InstallReport([], [], [], {}, [])
    mode = LINK if link else COPY
    if link:
        report.warnings.append(LINK_WARNING)
    for name in wanted:
        try:
            skill = store.get(name)
        except NotFound:
            report.skipped[name] = "no such skill in the store"
            continue
        place = target / skill.name
        known = entries.get(skill.name)
        if known is None and (place.exists() or place.is_symlink()):
            report.skipped[name] = f"{place} exists and was not installed by Skill Studio; not replacing it"
            continue
        if known is not None and known.get("mode") == mode and known.get("content_hash") == skill.content_hash \
                and _state(place, known) == "current":
            report.unchanged.append(skill.name)
            continue
        if link:
            source = _source_folder(skill)
            if source is None:
                report.skipped[name] = "it has no folder on disk to link to (export it, or install a copy)"
                continue
            if place.exists() or place.is_symlink():
                _remove(place)
            os.symlink(source, place, target_is_directory=True)
            files = {}
        else:
            if place.is_symlink():
                _remove(place)
            elif place.is_dir():
                _writable(place)   # the old copy is swapped out and deleted
            written = export_folder(replace(skill, folder_name=skill.name), target)
            files = {f.path: _file_hash(f.data) for f in skill_files_with_md(skill)}
            _read_only(written)
        entries[skill.name] = {"version": skill.version, "content_hash": skill.content_hash, "mode": mode,
                               "installed_at": scores.format_time(scores.utcnow()), "files": files}
        report.installed.append(skill.name)
    if prune:
        keep = set(wanted)
        for name in sorted(set(entries) - keep):
            _remove(target / name)
            del entries[name]
            report.removed.append(name)
    manifest["store"] = str(store.path)
    _write_manifest(target, manifest)
    return report


def uninstall(folder: str | os.PathLike, names: Iterable[str]) -> InstallReport:
    """Remove installed skills; only those the manifest lists (others are reported, untouched)."""
    target = Path(folder)
    manifest = read_manifest(target)
    report = InstallReport([], [], [], {}, [])
    for name in names:
        if name not in manifest["skills"]:
            report.skipped[name] = "not installed here by Skill Studio; left alone"
            continue
        _remove(target / name)
        del manifest["skills"][name]
        report.removed.append(name)
    if report.removed:
        _write_manifest(target, manifest)
    return report


def _state(place: Path, entry: dict) -> str:
    if entry.get("mode") == LINK:
        return "current" if place.is_symlink() and place.resolve().is_dir() else "missing"
    if not place.is_dir() or place.is_symlink():
        return "missing"
    for path, digest in (entry.get("files") or {}).items():
        f = place / path
        try:
            if _file_hash(f.read_bytes()) != digest:
                return "modified"
        except OSError:
            return "modified"
    return "current"


def status(store: Store, folder: str | os.PathLike) -> list[Installed]:
    """Every skill the studio installed in ``folder``, by name, with its state."""
    target = Path(folder)
    entries = read_manifest(target)["skills"]
    out = []
    for name in sorted(entries):
        entry = entries[name]
        try:
            skill = store.get(name, with_files=False)
        except NotFound:
            out.append(Installed(name, entry.get("mode", COPY), entry.get("version", 0), None, "removed from store",
                                 "the store has no skill of this name any more"))
            continue
        state = _state(target / name, entry)
        detail = ""
        if state == "current" and entry.get("content_hash") != skill.content_hash:
            state = "stale"
            detail = f"v{entry.get('version')} installed, v{skill.version} in the store"
        elif state == "modified":
            detail = "its files were changed after it was installed"
        elif state == "missing":
            detail = "its folder is gone"
        out.append(Installed(name, entry.get("mode", COPY), entry.get("version", 0), skill.version, state, detail))
    return out


def update(store: Store, folder: str | os.PathLike) -> list[Installed]:
    """Install again, the way each was installed, the skills of ``folder`` that are stale,
    modified or missing; returns the status after."""
    rows = status(store, folder)
    for mode in (COPY, LINK):
        names = [r.name for r in rows if r.mode == mode and r.state in ("stale", "modified", "missing")]
        if names:
            install(store, folder, names, link=mode == LINK)
    return status(store, folder)


def descriptor(store: Store, root: str | os.PathLike, consumers: dict[str, list[str] | None] | None = None) -> dict:
    """A runtime descriptor: the skills root and, per consumer, the enabled skills (those named,
    or the gated set) and the disabled ones (every other skill, with the reason when the gate
    keeps it out)."""
    from skill_studio.core import matching

    entries = matching.gate(store)
    gated = [e.name for e in entries if e.passed]
    out = {"skills_root": str(Path(root).resolve()), "consumers": {}}
    for consumer, names in (consumers or {"default": None}).items():
        enabled = gated if names is None else [n for n in names if n in {e.name for e in entries}]
        on = set(enabled)
        out["consumers"][consumer] = {
            "enabled": sorted(enabled),
            "disabled": [{"name": e.name, "reason": e.reason or "not selected"} for e in entries if e.name not in on]}
    return out


__all__ = ["COPY", "InstallError", "InstallReport", "Installed", "LINK", "LINK_WARNING", "MANIFEST", "descriptor",
           "install", "read_manifest", "status", "uninstall", "update"]
