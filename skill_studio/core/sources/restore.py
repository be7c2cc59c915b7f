"""Restoring a project's locked skills into a library: each skill of ``skills-lock.json`` that the
library lacks is added from its source at the locked commit, and checked against the locked
hash. A skill the library has with other files is not replaced (it is reported), nor is a
skill made in a studio invented: both are said, by name."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from skill_studio.core.sources import ops
from skill_studio.core.sources.git import GitError
from skill_studio.core.sources.lock import STUDIO, holds, read_lock
from skill_studio.core.sources.spec import SourceError


@dataclass
class RestoreReport:
    present: list[str] = field(default_factory=list)      # in the library already, as locked
    added: list[str] = field(default_factory=list)        # added from their sources now
    problems: dict[str, str] = field(default_factory=dict)   # name -> why it is not ready

    @property
    def ready(self) -> list[str]:
        """The locked skills the library now holds as locked: what to install."""
        return sorted(self.present + self.added)


def restore(store, project: str | os.PathLike, *, interactive: bool = False) -> RestoreReport:
    """Bring the skills of the project's lock file into ``store``. Raises LockError for a lock
    file that cannot be read."""
    report = RestoreReport()
    entries = read_lock(project)
    for name in sorted(entries):
        entry = entries[name]
        if name in store:
            if entry.computed_hash and not holds(store.get(name), entry.computed_hash):
                report.problems[name] = ("the library's differs from the locked one (other files); not replaced: "
                                         "update or delete it, or lock it again")
            else:
                report.present.append(name)
            continue
        if entry.source_type == STUDIO:
            report.problems[name] = "made in a studio, and this library does not have it (import it first)"
            continue
        try:   # the locked commit's files; the skill then follows the ref the lock names
            added = ops.add(store, entry.source, ref=entry.ref, path=entry.skill_path or None,
                            names=None if entry.skill_path else [name], at_commit=entry.commit,
                            interactive=interactive)
        except (SourceError, GitError) as e:
            report.problems[name] = str(e)
            continue
        if name not in added.added:
            why = next((e.reason for e in added.entries if e.status != "imported" and e.reason), "")
            report.problems[name] = why or f"{entry.source}: {entry.skill_path or '.'} holds no skill named {name}"
            continue
        if entry.computed_hash and not holds(store.get(name), entry.computed_hash):
            report.problems[name] = (f"added from {entry.source}, but its files differ from the locked ones "
                                     "(the source changed at that ref); not installed")
            continue
        report.added.append(name)
    return report


__all__ = ["RestoreReport", "restore"]
