"""What an import writes to the store, and how: new skills in batches and new versions, on a
thread of its own, each skill reported as it ends up (core.library.importer). A skill another
process stored or changed meanwhile is unchanged when it is the same as this one (and kept,
this one skipped, when it is not); a write the store refuses for want of space or access is
reported as failed, not as a rule's refusal."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from skill_studio.core.format.names import printable
from skill_studio.core.model import Origin, Skill
from skill_studio.core.store import (
    AlreadyExists,
    NotFound,
    ReadOnlySkill,
    Store,
    StoreBusy,
    StoreError,
    UnusableStore,
    VersionConflict,
    content_hash,
)


@dataclass
class ImportEntry:
    """What happened to one skill of an import."""

    source: str
    status: str  # imported, updated, unchanged, merged, skipped
    name: str | None = None
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    strict_errors: list[str] = field(default_factory=list)
    proposed_merge: str | None = None   # the reviewed skill an extracted one nearly repeats (left to a reviewer)
    #: Skipped because writing it to the store failed (a full disk, a busy or damaged store), not
    #: by a rule of the import: trying again once the cause is gone imports it.
    failed: bool = False


class Writer:
    """Writes to the store on a thread of its own, so reading and parsing the next
    skills overlaps with SQLite's work (which runs without the GIL)."""

    def __init__(self, store: Store, author: str | None, *, index_later: bool = False, note: str = "imported"):
        self.store, self.author, self.index_later, self.note = store, author, index_later, note
        self.jobs: queue.Queue = queue.Queue(maxsize=4)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="skill-import-writer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (job := self.jobs.get()) is not None:
            if self.error is None:
                try:
                    job()
                except BaseException as e:  # noqa: BLE001 - handed back to the importing thread
                    self.error = e

    def add(self, batch: list[tuple[ImportEntry, Skill]]) -> None:
        def job() -> None:
            try:
                self.store.add_many([s for _, s in batch], author=self.author, note=self.note,
                                    index_later=self.index_later)
            except (StoreBusy, UnusableStore) as e:   # one by one would wait or fail the same way
                for entry, _skill in batch:
                    _fail(entry, e)
            except StoreError:
                # Another process added one of these names meanwhile (or one cannot be written):
                # one by one, reporting each.
                for entry, skill in batch:
                    try:
                        self.store.add(skill, author=self.author, note=self.note)
                    except AlreadyExists:
                        self._settle(entry, skill)
                    except StoreError as e:
                        _fail(entry, e)
        self._submit(job)

    def update(self, entry: ImportEntry, skill: Skill, version: int) -> None:
        def job() -> None:
            try:
                self.store.update(skill.name, skill, version, author=self.author, note="re-imported",
                                  allow_builtin=skill.origin == Origin.BUILTIN)
            except VersionConflict as e:
                self._settle(entry, skill, str(e))
            except (ReadOnlySkill, NotFound) as e:
                entry.status, entry.reason = "skipped", str(e)
            except StoreError as e:
                _fail(entry, e)
        self._submit(job)

    def _settle(self, entry: ImportEntry, skill: Skill, clash: str | None = None) -> None:
        """A skill another process stored (or changed) while this import ran: when it is the same
        as this one, it is reported unchanged; otherwise the other one is kept and this one
        skipped (with ``clash``, or the store's own words), as it would be in any other clash."""
        try:
            current = self.store.get(skill.name, with_files=False)
        except StoreError as e:
            entry.status, entry.reason = "skipped", str(e)
            return
        if current.content_hash == content_hash(skill.skill_md, skill.files):
            entry.status, entry.reason = "unchanged", ""
            return
        entry.status = "skipped"
        entry.reason = clash or (f'a skill named "{skill.name}" already exists: another program added it while '
                                 "this import ran, with other content, and it was kept; import again to make "
                                 "this one its new version")

    def _submit(self, job: Callable[[], None]) -> None:
        self._raise()
        self.jobs.put(job)

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join()
        self._raise()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error


def _fail(entry: ImportEntry, error: StoreError) -> None:
    entry.status, entry.failed = "skipped", True
    entry.reason = f"{printable(entry.source)}: not imported: {error}"
