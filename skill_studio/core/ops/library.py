"""Moving skills between the store and folders: importing (which changes the store) and exporting
(which writes files only, under the rule that two skills never share one folder)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skill_studio.core.library.folder_write import ExportClash, export_archive, export_folder, folder_clashes
from skill_studio.core.library.folders import FolderError
from skill_studio.core.library.importer import ImportReport, import_paths
from skill_studio.core.model import Origin, Skill
from skill_studio.core.ops.changes import ChangeSet
from skill_studio.core.store import NotFound, Store

__all__ = ["ExportClash", "Exported", "Imported", "export_plan", "export_skills", "import_skills"]


@dataclass(frozen=True)
class Imported:
    """An import's report (one entry per skill found) and what it changed in the store."""

    report: ImportReport
    changes: ChangeSet


def import_skills(store: Store, paths: Iterable[str | os.PathLike], *, origin: Origin = Origin.HUMAN,
                  author: str | None = None, progress: Callable[[int, str], bool] | None = None,
                  merge_similar: bool | None = None) -> Imported:
    """Import skill folders, trees of them and archives (see :func:`import_paths` for the rules)."""
    report = import_paths(store, paths, origin=origin, author=author, progress=progress,
                          merge_similar=merge_similar)
    changes = import_changes(report)
    if changes.skills:
        from skill_studio.core.library.managed import refresh

        refresh(store, changes.skills)
    return Imported(report, changes)


def index_for_search(store: Store, *, progress: Callable[[str, int, int], None] | None = None,
                     cancelled: Callable[[], bool] | None = None) -> int:
    """Index for search the skills an import left waiting (``import_paths(..., index_later=True)``);
    returns how many. ``progress("Indexing for search", done, total)`` follows it; after a cancel
    the rest keeps waiting, and the next search indexes it first."""
    def step(done: int, total: int) -> None:
        if progress is not None:
            progress("Indexing for search", done, total)

    return store.index_pending(progress=step, cancelled=cancelled)


def import_changes(report: ImportReport) -> ChangeSet:
    """The skills an import added or changed, merges of extracted skills included."""
    added = {e.name for e in report.entries if e.status == "imported" and e.name}
    changed = {e.name for e in report.entries if e.status == "updated" and e.name}
    if report.undo is not None:
        # The library skills extracted ones were merged into; a skill merged away on arrival was
        # never in the store for anyone to see.
        merges = ChangeSet.from_states(report.undo.before, report.undo.after)
        changed |= merges.changed - added
    changes = ChangeSet.of(added=added, changed=changed, label="Import")
    return changes


@dataclass(frozen=True)
class Exported:
    """The files an export wrote (skill name, path) and the skills it could not write, with why.
    Exporting changes nothing in the store: ``changes`` is always empty."""

    written: tuple[tuple[str, Path], ...]
    failed: Mapping[str, str] = field(default_factory=dict)
    changes: ChangeSet = field(default_factory=ChangeSet)
    stopped: bool = False   # cancelled on the way: ``written`` is what was written until then


def export_plan(store: Store, names: Sequence[str]) -> tuple[list[Skill], dict[str, str]]:
    """The skills an export of ``names`` writes and the names it cannot find (with why), checked
    before anything is written: ExportClash when two of them would share one folder."""
    skills, missing = [], {}
    for name in dict.fromkeys(names):
        try:
            skills.append(store.get(name))
        except NotFound:
            missing[name] = "no such skill in the store"
    clashes = folder_clashes(skills)
    if clashes:
        raise ExportClash(clashes)
    return skills, missing


def export_skills(store: Store, names: Sequence[str], dest: str | os.PathLike, *, as_zip: bool = False,
                  progress: Callable[[str, int, int], None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> Exported:
    """Write each named skill into ``dest`` as a folder (or ``<folder>.zip``).

    Refused whole (ExportClash, nothing written) when two skills would be written to one folder.
    A skill that cannot be written (or is not in the store) is named in ``failed`` with the
    reason; the others are still written. ``progress("Exporting", done, total)`` hears of each
    skill; when ``cancelled()`` says so it stops before the next one (each skill is written whole,
    beside its place and then moved there) and the result, marked ``stopped``, holds what was written.
    """
    skills, failed = export_plan(store, names)
    written: list[tuple[str, Path]] = []
    for i, skill in enumerate(skills):
        if cancelled is not None and cancelled():
            return Exported(tuple(written), failed, stopped=True)
        if progress is not None:
            progress("Exporting", i + 1, len(skills))
        try:
            path = export_archive(skill, dest) if as_zip else export_folder(skill, dest)
        except (FolderError, OSError, ValueError) as e:
            failed[skill.name] = str(e)
        else:
            written.append((skill.name, path))
    return Exported(tuple(written), failed)
