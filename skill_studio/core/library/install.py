"""Installing skills into an agent's skill folder (``.claude/skills/``, ``.agents/skills/``,
``<workspace>/.skills/`` or any folder), keeping track of what was installed.

Each skill becomes ``<folder>/<name>/``. By default it is a read-only copy, so an agent cannot
change the library behind the reviewer's back; on request it is a symbolic link to the studio's
managed copy of the skill's current version instead (core.library.managed), which every save
rewrites: a link follows the library, a copy stays as installed until it is updated. A manifest
in the folder (MANIFEST) records, for each skill the studio installed, the version and content
hash it came from, how it was installed, the hash of each file and, for a link, what it holds,
so that:

- what an agent finds there (the files on disk, through the link for a link) is compared with
  the store's current version: the same is current, a version the store has moved on from is
  stale, and a copy whose files were changed on disk is modified;
- updating or removing touches only what the studio installed: other folders there are never
  written or deleted.

Every folder is built beside its target and swapped in (core.library.folder_write.export_folder); the
manifest is written atomically after the skills. Installs and removals in one folder take turns
(a lock file beside the manifest), so several at once each find the others' entries recorded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from skill_studio.core.health import scores
from skill_studio.core.library import managed
from skill_studio.core.library.atomic import file_in_the_way, link_in_place
from skill_studio.core.library.install_files import (
    describe_os_error,
    files_of,
    remove,
    write_copy,
)
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
from skill_studio.core.library.install_state import (
    CHANGED_BY_HAND,
    INSTALL_STATES,
    change_detail,
    stale_detail,
    state_of,
)
from skill_studio.core.store import NotFound, Store

LINK_WARNING = ("a linked skill follows the library: saves that change the library reach agents at once, "
                "before anyone reviews them (the link points at a read-only copy the studio rewrites on each "
                "save), and the gate cannot take it back from the agent")


@dataclass(frozen=True)
class Installed:
    """One skill of a target folder as the manifest and the store see it."""

    name: str
    mode: str                  # COPY or LINK
    version: int               # the version it holds (the store's when current, else the one installed)
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
    stopped: bool = False      # cancelled on the way: the lists hold what was done until then


#: progress(stage, done, total), called before each skill ("Installing", 312, 871)
Progress = Callable[[str, int, int], None]
#: cancelled() -> True to stop before the next skill (what was done stays done and recorded)
Cancelled = Callable[[], bool]


def _go_on(report: InstallReport, cancelled: Cancelled | None) -> bool:
    if cancelled is not None and cancelled():
        report.stopped = True
    return not report.stopped


def _place(target: Path, name: str) -> Path:
    """``target/name`` for a name that is a plain folder name; raises InstallError otherwise."""
    problem = folder_name_problem(name)
    place = target / name
    if problem or place.parent != target:
        raise InstallError(f'"{name}" {problem or "is not a folder name"}')
    return place


def install(store: Store, folder: str | os.PathLike, names: Iterable[str] | None = None, *, link: bool = False,
            prune: bool = False, force: bool = False, progress: Progress | None = None,
            cancelled: Cancelled | None = None) -> InstallReport:
    """Install skills into ``folder`` (created if needed): the named ones, or every skill that
    passes the gate. Skills already installed and current are left as they are; stale ones are
    replaced. With ``prune``, skills this folder's manifest lists that are not in the set are
    removed. A folder or file there that the studio did not install is never touched: a skill of
    that name is skipped; nor is an installed skill changed by hand since (files changed, added
    or removed; a folder put in place of a link), unless ``force``. ``progress`` hears of each
    skill; when ``cancelled()`` says so it stops before the next one (nothing is pruned then) and
    the report, marked ``stopped``, holds what was done."""
    from skill_studio.core.agents import matching

    target = Path(folder)
    _make_target(target)
    wanted = list(dict.fromkeys(names)) if names is not None else matching.gated(store)
    read_manifest(target)   # a manifest not the studio's stops it before anything is made there
    with locked(target / LOCK):
        return _install(store, target, wanted, link=link, prune=prune, force=force, progress=progress,
                        cancelled=cancelled)


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


def _install(store: Store, target: Path, wanted: list[str], *, link: bool, prune: bool, force: bool,
             progress: Progress | None, cancelled: Cancelled | None) -> InstallReport:
    manifest = read_manifest(target)
    entries: dict = manifest["skills"]
    report = InstallReport([], [], [], {}, [])
    mode = LINK if link else COPY
    if link:
        report.warnings.append(LINK_WARNING)
    try:
        for i, name in enumerate(wanted):
            if not _go_on(report, cancelled):
                break
            if progress is not None:
                progress("Installing", i + 1, len(wanted))
            try:
                skill = store.get(name)
            except NotFound:
                report.skipped[name] = "no such skill in the store"
                continue
            try:
                place = _place(target, skill.name)
                done, wrote = _install_one(store, skill, place, entries.get(skill.name), mode, force)
            except (InstallError, ValueError) as e:   # FolderError is a ValueError
                report.skipped[name] = str(e)
                continue
            except OSError as e:
                report.skipped[name] = describe_os_error(e)
                continue
            entries[skill.name] = done
            (report.installed if wrote else report.unchanged).append(skill.name)
        if prune and not report.stopped:
            keep = set(wanted)
            gone = sorted(set(entries) - keep)
            for i, name in enumerate(gone):
                if not _go_on(report, cancelled):
                    break
                if progress is not None:
                    progress("Removing", i + 1, len(gone))
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


def _install_one(store: Store, skill, place: Path, known: dict | None, mode: str,
                 force: bool) -> tuple[dict, bool]:
    """Install one skill at ``place``; returns its manifest entry and whether anything was
    written (False: it was current). Raises InstallError when something there is not the
    studio's to replace."""
    if known is None and (place.exists() or place.is_symlink()):
        what = "a folder" if place.is_dir() and not place.is_symlink() else "a file or link"
        raise InstallError(f"{place} exists ({what}) and was not installed by Skill Studio; not replacing it "
                           "(move it away to install this skill here)")
    current = files_of(skill)
    if known is not None:
        state = state_of(place, known, current)
        as_before = mode == COPY and known.get("mode") == COPY and known.get("content_hash") == skill.content_hash
        if as_before and state == "current":
            return _entry(skill, mode, current, known.get("installed_at")), False
        if state in CHANGED_BY_HAND and not force:
            raise InstallError(f"{place} was changed after it was installed ({change_detail(place, known, state)}); "
                               "not replacing it without force")
    if mode == LINK:
        folder, files, refreshed = managed.provide(store, skill.name)
        text = managed.link_text(place, folder)
        if known is not None and known.get("mode") == LINK and known.get("target") == text and \
                place.is_symlink() and os.readlink(place) == text:
            return _entry(skill, mode, files, known.get("installed_at"), text), refreshed
        if place.exists() and not place.is_symlink():   # a copy the studio made (forced, or copy to link)
            remove(place)
        link_in_place(place, text)
        return _entry(skill, mode, files, None, text), True
    write_copy(skill, place)   # what is there is the studio's (or forced)
    return _entry(skill, mode, current), True


def _entry(skill, mode: str, files: dict[str, str], installed_at: str | None = None,
           target: str | None = None) -> dict:
    entry = {"version": skill.version, "content_hash": skill.content_hash, "mode": mode,
             "installed_at": installed_at or scores.format_time(scores.utcnow()), "files": files}
    if target is not None:
        entry["target"] = target   # what the link holds, as written
    return entry


def _removal_refused(place: Path, entry: dict, force: bool) -> str | None:
    state = state_of(place, entry)
    if state in CHANGED_BY_HAND and not force:
        return (f"{place} was changed after it was installed ({change_detail(place, entry, state)}); "
                "not removed without force")
    return None


def uninstall(folder: str | os.PathLike, names: Iterable[str], *, force: bool = False,
              progress: Progress | None = None, cancelled: Cancelled | None = None) -> InstallReport:
    """Remove installed skills: only those the manifest lists, and not one changed by hand since
    it was installed unless ``force`` (others are reported, untouched). ``progress`` and
    ``cancelled`` as for :func:`install`."""
    target = Path(folder)
    if not target.is_dir():   # nothing the studio installed is there: nothing to lock or read
        report = InstallReport([], [], [], {}, [])
        for name in names:
            report.skipped[name] = "not installed here by Skill Studio; left alone"
        return report
    read_manifest(target)
    with locked(target / LOCK):
        return _uninstall(target, list(names), force=force, progress=progress, cancelled=cancelled)


def _uninstall(target: Path, names: list[str], *, force: bool, progress: Progress | None,
               cancelled: Cancelled | None) -> InstallReport:
    manifest = read_manifest(target)
    report = InstallReport([], [], [], {}, [])
    try:
        for i, name in enumerate(names):
            if not _go_on(report, cancelled):
                break
            if progress is not None:
                progress("Removing", i + 1, len(names))
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


def status(store: Store, folder: str | os.PathLike) -> list[Installed]:
    """Every skill the studio installed in ``folder``, by name, with its state: what an agent
    finds there (the files on disk, through the link for a link) next to the store's current
    version: current, stale (another version), modified or replaced (changed by hand since),
    missing, or removed from store. The version shown is the store's for a current one, else
    the one installed."""
    target = Path(folder)
    entries = read_manifest(target)["skills"]
    out = []
    for name in sorted(entries):
        entry = entries[name]
        try:
            skill = store.get(name)
        except NotFound:
            out.append(Installed(name, entry["mode"], entry["version"], None, "removed from store",
                                 "the store has no skill of this name any more"))
            continue
        place = target / name
        state = state_of(place, entry, files_of(skill))
        detail = (stale_detail(place, entry, skill.version) if state == "stale"
                  else change_detail(place, entry, state))
        version = skill.version if state == "current" else entry["version"]
        out.append(Installed(name, entry["mode"], version, skill.version, state, detail))
    return out


def update(store: Store, folder: str | os.PathLike, *, force: bool = False, progress: Progress | None = None,
           cancelled: Cancelled | None = None) -> list[Installed]:
    """Install again, the way each was installed, the skills of ``folder`` that are stale or
    missing (and, with ``force``, those changed by hand); returns the status after (``progress``
    and ``cancelled`` as for :func:`install`)."""
    rows = status(store, folder)
    states = ("stale", "missing") + (CHANGED_BY_HAND if force else ())
    for mode in (COPY, LINK):
        names = [r.name for r in rows if r.mode == mode and r.state in states]
        if names and install(store, folder, names, link=mode == LINK, force=force, progress=progress,
                             cancelled=cancelled).stopped:
            break
    return status(store, folder)


__all__ = ["CHANGED_BY_HAND", "COPY", "INSTALL_STATES", "InstallError", "InstallReport", "Installed", "LINK",
           "LINK_WARNING", "LOCK", "MANIFEST",
           "folder_name_problem", "install", "read_manifest", "status", "uninstall", "update"]
