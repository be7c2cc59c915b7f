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

Every folder is built beside its target and swapped in (core.library.folder_write.export_folder); the
manifest is written atomically after the skills. Installs and removals in one folder take turns
(a lock file beside the manifest), so several at once each find the others' entries recorded.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from skill_studio.core.health import scores
from skill_studio.core.library.atomic import file_in_the_way
from skill_studio.core.library.folder_write import export_folder, skill_files_with_md
from skill_studio.core.library.install_files import describe_os_error, file_hash, listing, read_only, remove, writable
from skill_studio.core.library.install_manifest import (
    COPY,
    LINK,
    LOCK,
    MANIFEST,
    InstallError,
    folder_name_problem,
    locked,
    read_manifest,
    write_manifest,
)
from skill_studio.core.store import NotFound, Store

LINK_WARNING = ("a linked skill is the library's own folder: edits made through the link change the library "
                "(the studio re-imports them), and the gate cannot take it back from the agent")


@dataclass(frozen=True)
class Installed:
    """One skill of a target folder as the manifest and the store see it."""

    name: str
    mode: str                  # COPY or LINK
    version: int               # the version installed
    current_version: int | None   # the store's now (None: no longer in the store)
    state: str                 # one of INSTALL_STATES
    detail: str = ""


@dataclass
class InstallReport:
    installed: list[str]       # written (new or updated)
    unchanged: list[str]       # already current
    removed: list[str]         # taken out (pruned or uninstalled)
    skipped: dict[str, str]    # name -> why it was not installed
    warnings: list[str]


def _place(target: Path, name: str) -> Path:
    """``target/name`` for a name that is a plain folder name; raises InstallError otherwise."""
    problem = folder_name_problem(name)
    place = target / name
    if problem or place.parent != target:
        raise InstallError(f'"{name}" {problem or "is not a folder name"}')
    return place


def _source_folder(skill) -> Path | None:
    """The skill's own folder on disk (where its SKILL.md was imported from), or None."""
    if skill.source_path and "!" not in skill.source_path:
        md = Path(skill.source_path)
        if md.is_file():
            return md.resolve().parent
    return None


def install(store: Store, folder: str | os.PathLike, names: Iterable[str] | None = None, *, link: bool = False,
            prune: bool = False, force: bool = False) -> InstallReport:
    """Install skills into ``folder`` (created if needed): the named ones, or every skill that
    passes the gate. Skills already installed and current are left as they are; stale ones are
    replaced. With ``prune``, skills this folder's manifest lists that are not in the set are
    removed. A folder or file there that the studio did not install is never touched: a skill of
    that name is skipped; nor is an installed skill changed by hand since (files changed, added
    or removed; a folder put in place of a link), unless ``force``."""
    from skill_studio.core.agents import matching

    target = Path(folder)
    _make_target(target)
    wanted = list(dict.fromkeys(names)) if names is not None else matching.gated(store)
    read_manifest(target)   # a manifest not the studio's stops it before anything is made there
    with locked(target / LOCK):
        return _install(store, target, wanted, link=link, prune=prune, force=force)


def _make_target(target: Path) -> None:
    """Create the target folder as needed; InstallError (nothing created) when a file is in the
    way or the folder cannot be made."""
    blocker = file_in_the_way(target)
    if blocker is not None:
        where = "is a file" if blocker == target else f"cannot be a folder: {blocker} is a file"
        raise InstallError(f"{target}: {where}; install into a folder (choose another one, or move the file away)")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InstallError(f"{target}: the folder cannot be made ({describe_os_error(e)}); choose a folder you "
                           "can write to") from None


def _install(store: Store, target: Path, wanted: list[str], *, link: bool, prune: bool,
             force: bool) -> InstallReport:
    manifest = read_manifest(target)
    entries: dict = manifest["skills"]
    report = InstallReport([], [], [], {}, [])
    mode = LINK if link else COPY
    if link:
        report.warnings.append(LINK_WARNING)
    try:
        for name in wanted:
            try:
                skill = store.get(name)
            except NotFound:
                report.skipped[name] = "no such skill in the store"
                continue
            try:
                place = _place(target, skill.name)
                done = _install_one(skill, place, entries.get(skill.name), mode, force)
            except (InstallError, ValueError) as e:   # FolderError is a ValueError
                report.skipped[name] = str(e)
                continue
            except OSError as e:
                report.skipped[name] = describe_os_error(e)
                continue
            if done is None:
                report.unchanged.append(skill.name)
            else:
                entries[skill.name] = done
                report.installed.append(skill.name)
        if prune:
            keep = set(wanted)
            for name in sorted(set(entries) - keep):
                why = _removal_refused(target / name, entries[name], force)
                if why:
                    report.skipped[name] = why
                    continue
                try:
                    remove(target / name)
                except OSError as e:
                    report.skipped[name] = f"not removed: {describe_os_error(e)}"
                    continue
                del entries[name]
                report.removed.append(name)
    finally:   # what was done is recorded even when something failed on the way
        manifest["store"] = str(store.path)
        write_manifest(target, manifest)
    return report


def _install_one(skill, place: Path, known: dict | None, mode: str, force: bool) -> dict | None:
    """Install one skill at ``place``; returns its manifest entry, or None when it was current.
    Raises InstallError when something there is not the studio's to replace."""
    if known is None and (place.exists() or place.is_symlink()):
        what = "a folder" if place.is_dir() and not place.is_symlink() else "a file or link"
        raise InstallError(f"{place} exists ({what}) and was not installed by Skill Studio; not replacing it "
                           "(move it away to install this skill here)")
    if known is not None:
        state = _state(place, known)
        if known.get("mode") == mode and known.get("content_hash") == skill.content_hash and state == "current":
            return None
        if state in CHANGED_BY_HAND and not force:
            raise InstallError(f"{place} was changed after it was installed ({_detail(place, known, state)}); "
                               "not replacing it without force")
    if mode == LINK:
        source = _source_folder(skill)
        if source is None:
            raise InstallError("it has no folder on disk to link to (export it, or install a copy)")
        if place.exists() or place.is_symlink():
            remove(place)
        os.symlink(source, place, target_is_directory=True)
        files = {}
    else:
        if place.is_symlink() or (place.exists() and not place.is_dir()):   # (forced: the entry is ours)
            remove(place)
        elif place.is_dir():
            writable(place)   # the old copy is swapped out and deleted
        written = export_folder(replace(skill, folder_name=skill.name), place.parent)
        files = {f.path: file_hash(f.data) for f in skill_files_with_md(skill)}
        read_only(written)
    return {"version": skill.version, "content_hash": skill.content_hash, "mode": mode,
            "installed_at": scores.format_time(scores.utcnow()), "files": files}


def _removal_refused(place: Path, entry: dict, force: bool) -> str | None:
    state = _state(place, entry)
    if state in CHANGED_BY_HAND and not force:
        return f"{place} was changed after it was installed ({_detail(place, entry, state)}); not removed without force"
    return None


def uninstall(folder: str | os.PathLike, names: Iterable[str], *, force: bool = False) -> InstallReport:
    """Remove installed skills: only those the manifest lists, and not one changed by hand since
    it was installed unless ``force`` (others are reported, untouched)."""
    target = Path(folder)
    if not target.is_dir():   # nothing the studio installed is there: nothing to lock or read
        report = InstallReport([], [], [], {}, [])
        for name in names:
            report.skipped[name] = "not installed here by Skill Studio; left alone"
        return report
    read_manifest(target)
    with locked(target / LOCK):
        return _uninstall(target, names, force=force)


def _uninstall(target: Path, names: Iterable[str], *, force: bool) -> InstallReport:
    manifest = read_manifest(target)
    report = InstallReport([], [], [], {}, [])
    try:
        for name in names:
            entry = manifest["skills"].get(name)
            if entry is None:
                report.skipped[name] = "not installed here by Skill Studio; left alone"
                continue
            why = _removal_refused(target / name, entry, force)
            if why:
                report.skipped[name] = why
                continue
            try:
                remove(_place(target, name))
            except InstallError as e:
                report.skipped[name] = f"not removed: {e}"
                continue
            except OSError as e:
                report.skipped[name] = f"not removed: {describe_os_error(e)}"
                continue
            del manifest["skills"][name]
            report.removed.append(name)
    finally:
        if report.removed:
            write_manifest(target, manifest)
    return report


#: What an installed skill's folder can be, each with its colour role: as installed and the store's
#: version; an older version; edited or replaced by hand; gone; or its skill gone from the store.
INSTALL_STATES: dict[str, str] = {"current": "success", "stale": "attention", "modified": "attention",
                                  "replaced": "attention", "missing": "danger", "removed from store": "danger"}
CHANGED_BY_HAND = ("modified", "replaced")


def _state(place: Path, entry: dict) -> str:
    """current, missing, modified (files changed, added or removed), or replaced (something
    else put where the studio's copy or link was)."""
    if entry.get("mode") == LINK:
        if place.is_symlink():
            return "current" if place.resolve().is_dir() else "missing"
        return "replaced" if place.exists() else "missing"
    if place.is_symlink() or (place.exists() and not place.is_dir()):
        return "replaced"
    if not place.exists():
        return "missing"
    recorded = entry.get("files") or {}
    found = listing(place)
    if set(found) != set(recorded):
        return "modified"
    for path, digest in recorded.items():
        try:
            if file_hash(found[path].read_bytes()) != digest:
                return "modified"
        except OSError:
            return "modified"
    return "current"


def _detail(place: Path, entry: dict, state: str) -> str:
    if state == "replaced":
        return "something else is in its place"
    if state == "modified":
        recorded = set(entry.get("files") or {})
        found = set(listing(place)) if place.is_dir() else set()
        parts = []
        if found - recorded:
            parts.append("files added: " + ", ".join(sorted(found - recorded)[:3]))
        if recorded - found:
            parts.append("files removed: " + ", ".join(sorted(recorded - found)[:3]))
        return "; ".join(parts) or "files changed"
    return ""


def status(store: Store, folder: str | os.PathLike) -> list[Installed]:
    """Every skill the studio installed in ``folder``, by name, with its state: current, stale
    (the store has a newer version), modified or replaced (changed by hand since), missing, or
    removed from store."""
    target = Path(folder)
    entries = read_manifest(target)["skills"]
    out = []
    for name in sorted(entries):
        entry = entries[name]
        try:
            skill = store.get(name, with_files=False)
        except NotFound:
            out.append(Installed(name, entry["mode"], entry["version"], None, "removed from store",
                                 "the store has no skill of this name any more"))
            continue
        place = target / name
        state = _state(place, entry)
        detail = _detail(place, entry, state)
        if state == "current" and entry["content_hash"] != skill.content_hash:
            state = "stale"
            detail = f"v{entry['version']} installed, v{skill.version} in the store"
        elif state == "missing":
            detail = "its folder is gone" if entry["mode"] == COPY else "its link is gone or points nowhere"
        out.append(Installed(name, entry["mode"], entry["version"], skill.version, state, detail))
    return out


def update(store: Store, folder: str | os.PathLike, *, force: bool = False) -> list[Installed]:
    """Install again, the way each was installed, the skills of ``folder`` that are stale or
    missing (and, with ``force``, those changed by hand); returns the status after."""
    rows = status(store, folder)
    states = ("stale", "missing") + (CHANGED_BY_HAND if force else ())
    for mode in (COPY, LINK):
        names = [r.name for r in rows if r.mode == mode and r.state in states]
        if names:
            install(store, folder, names, link=mode == LINK, force=force)
    return status(store, folder)


def descriptor(store: Store, root: str | os.PathLike) -> dict:
    """A runtime descriptor of a skills folder: its path and, for the default consumer, the
    enabled skills (installed there and passing the gate) and the disabled ones, each with why
    (kept out by the gate, or not installed there). A folder the studio has not installed into
    describes the gated set."""
    from skill_studio.core.agents import matching

    target = Path(root)
    entries = matching.gate(store)
    installed = set(read_manifest(target)["skills"]) if target.is_dir() else set()
    if not installed:
        installed = {e.name for e in entries if e.passed}
    enabled = sorted(e.name for e in entries if e.passed and e.name in installed)
    disabled = [{"name": e.name, "reason": e.reason or "not installed in this folder"}
                for e in entries if e.name not in enabled]
    return {"skills_root": str(target.resolve()), "consumers": {"default": {"enabled": enabled, "disabled": disabled}}}


__all__ = ["COPY", "InstallError", "InstallReport", "Installed", "LINK", "LINK_WARNING", "LOCK", "MANIFEST",
           "descriptor", "folder_name_problem", "install", "read_manifest", "status", "uninstall", "update"]
